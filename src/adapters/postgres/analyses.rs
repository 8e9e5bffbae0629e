//! Analysis runs over PostgreSQL. A state move is one conditional `UPDATE … WHERE status = <from>`,
//! so of two workers finishing one run exactly one succeeds.

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;
use tokio_postgres::Row;

use super::listing::RunTable;
use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::listing::RunQuery;
use crate::domain::quant::runs::{AnalysisId, AnalysisOutcome, AnalysisRecord, AnalysisStatus};
use crate::ports::analyses::{AnalysisChangeError, AnalysisRepository};
use crate::ports::store::StoreError;

const COLUMNS: &str =
    "id, owner_id, kind, request, deal_id, status, result, error, cdm_events, created_at, completed_at";

const TABLE: RunTable<AnalysisRecord> = RunTable { name: "analyses", columns: COLUMNS, map: record_from_row };

fn record_from_row(row: &Row) -> Result<AnalysisRecord, StoreError> {
    let kind: String = column(row, "kind")?;
    let status: String = column(row, "status")?;
    let events: Value = column(row, "cdm_events")?;
    Ok(AnalysisRecord {
        id: AnalysisId::from_uuid(column(row, "id")?),
        owner: UserId::from_uuid(column(row, "owner_id")?),
        kind: kind.parse().map_err(|e| super::store::corrupt("analysis kind", e))?,
        request: column(row, "request")?,
        deal_id: column(row, "deal_id")?,
        status: status.parse().map_err(|e| super::store::corrupt("analysis status", e))?,
        result: column(row, "result")?,
        error: column(row, "error")?,
        cdm_events: match events {
            Value::Array(events) => events,
            _ => return Err(super::store::corrupt("cdm_events", "not an array")),
        },
        created_at: column(row, "created_at")?,
        completed_at: column(row, "completed_at")?,
    })
}

impl PostgresStore {
    /// Why a conditional move matched no row: no such run, or another state.
    async fn analysis_move_refused(&self, id: AnalysisId) -> AnalysisChangeError {
        match AnalysisRepository::find(self, id).await {
            Ok(Some(record)) => AnalysisChangeError::WrongState { current: record.status },
            Ok(None) => AnalysisChangeError::NotFound,
            Err(error) => AnalysisChangeError::Store(error),
        }
    }
}

#[async_trait]
impl AnalysisRepository for PostgresStore {
    async fn create(&self, record: AnalysisRecord) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(&format!(
                "INSERT INTO analyses ({COLUMNS}, instance_id) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
            ))
            .await
            .map_err(unavailable)?;
        let events = Value::Array(record.cdm_events.clone());
        client
            .execute(
                &statement,
                &[
                    &record.id.as_uuid(),
                    &record.owner.as_uuid(),
                    &record.kind.as_str(),
                    &record.request,
                    &record.deal_id,
                    &record.status.as_str(),
                    &record.result,
                    &record.error,
                    &events,
                    &record.created_at,
                    &record.completed_at,
                    &self.instance(),
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn start(&self, id: AnalysisId) -> Result<(), AnalysisChangeError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached("UPDATE analyses SET status = 'running' WHERE id = $1 AND status = 'pending'")
            .await
            .map_err(unavailable)?;
        if client.execute(&statement, &[&id.as_uuid()]).await.map_err(unavailable)? == 1 {
            return Ok(());
        }
        // Back to the pool before asking why: with a pool of one, holding it would wait for ourselves.
        drop(client);
        Err(self.analysis_move_refused(id).await)
    }

    async fn finish(
        &self,
        id: AnalysisId,
        outcome: AnalysisOutcome,
        cdm_events: Vec<Value>,
        at: OffsetDateTime,
    ) -> Result<AnalysisRecord, AnalysisChangeError> {
        let (status, result, error) = match outcome {
            AnalysisOutcome::Completed { result } => (AnalysisStatus::Completed, Some(result), None),
            AnalysisOutcome::Failed { error } => (AnalysisStatus::Failed, None, Some(error)),
        };
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(&format!(
                "UPDATE analyses SET status = $2, result = $3, error = $4, cdm_events = $5, completed_at = $6 \
                 WHERE id = $1 AND status = 'running' RETURNING {COLUMNS}"
            ))
            .await
            .map_err(unavailable)?;
        let events = Value::Array(cdm_events);
        let row = client
            .query_opt(&statement, &[&id.as_uuid(), &status.as_str(), &result, &error, &events, &at])
            .await
            .map_err(unavailable)?;
        drop(client);
        match row {
            Some(row) => Ok(record_from_row(&row)?),
            None => Err(self.analysis_move_refused(id).await),
        }
    }

    async fn find(&self, id: AnalysisId) -> Result<Option<AnalysisRecord>, StoreError> {
        TABLE.find(&self.connection().await?, id.as_uuid()).await
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<AnalysisRecord>, u64), StoreError> {
        let owner = query.owner.map(|owner| owner.as_uuid());
        TABLE.page(&self.connection().await?, owner, query.deal_id, query.limit, query.offset()).await
    }

    async fn abandoned(&self, alive_since: OffsetDateTime, limit: usize) -> Result<Vec<AnalysisRecord>, StoreError> {
        let client = self.connection().await?;
        // A run from before instances were recorded (no instance) is abandoned once it is older
        // than any run lasts, so a rolling upgrade does not end the old release's runs.
        let statement = client
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM analyses a \
                 WHERE a.status IN ('pending', 'running') AND a.instance_id IS DISTINCT FROM $1 \
                   AND CASE WHEN a.instance_id IS NULL THEN a.created_at < $2::timestamptz - interval '1 hour' \
                            ELSE NOT EXISTS (SELECT 1 FROM service_instances i \
                                             WHERE i.id = a.instance_id AND i.heartbeat_at >= $2) END \
                 ORDER BY a.created_at LIMIT $3"
            ))
            .await
            .map_err(unavailable)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client.query(&statement, &[&self.instance(), &alive_since, &limit]).await.map_err(unavailable)?;
        rows.iter().map(record_from_row).collect()
    }

    async fn unfinished_here(&self, limit: usize) -> Result<Vec<AnalysisRecord>, StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM analyses a \
                 WHERE a.status IN ('pending', 'running') AND a.instance_id = $1 \
                 ORDER BY a.created_at LIMIT $2"
            ))
            .await
            .map_err(unavailable)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client.query(&statement, &[&self.instance(), &limit]).await.map_err(unavailable)?;
        rows.iter().map(record_from_row).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::quant::runs::AnalysisKind;

    #[test]
    fn every_kind_and_status_is_allowed_by_the_table() {
        let sql = include_str!("migrations/0003_analyses.sql");
        for kind in AnalysisKind::ALL {
            assert!(sql.contains(&format!("'{}'", kind.as_str())), "{kind}");
        }
        for status in AnalysisStatus::ALL {
            assert!(sql.contains(&format!("'{}'", status.as_str())), "{status}");
        }
    }
}
