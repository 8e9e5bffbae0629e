//! The research queue over PostgreSQL. A claim is one `UPDATE … WHERE id = (SELECT … FOR UPDATE
//! SKIP LOCKED LIMIT 1)`: concurrent workers of any instance skip each other's rows instead of
//! queueing behind them, and each run is claimed by one of them. Every later write carries
//! `lease_owner = <worker>` in its `WHERE`, so a worker whose lease was taken over changes nothing.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::listing::RunTable;
use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::listing::RunQuery;
use crate::domain::research::runs::{
    ResearchId, ResearchOutcome, ResearchProgress, ResearchRun, ResearchStatus, WorkerId,
};
use crate::ports::research::{LeaseError, ResearchRepository};
use crate::ports::store::StoreError;

const COLUMNS: &str = "id, owner_id, query, deal_id, max_iterations, status, progress, answer, error, cdm_events, \
                       attempts, elapsed_ms, created_at, completed_at";

const TABLE: RunTable<ResearchRun> = RunTable { name: "research_runs", columns: COLUMNS, map: run_from_row };

fn run_from_row(row: &Row) -> Result<ResearchRun, StoreError> {
    let status: String = column(row, "status")?;
    let events: Value = column(row, "cdm_events")?;
    let max_iterations: i32 = column(row, "max_iterations")?;
    let attempts: i32 = column(row, "attempts")?;
    let elapsed_ms: i64 = column(row, "elapsed_ms")?;
    Ok(ResearchRun {
        id: ResearchId::from_uuid(column(row, "id")?),
        owner: UserId::from_uuid(column(row, "owner_id")?),
        query: column(row, "query")?,
        deal_id: column(row, "deal_id")?,
        max_iterations: u32::try_from(max_iterations)
            .map_err(|e| super::store::corrupt("max_iterations", e.to_string()))?,
        status: status.parse().map_err(|e| super::store::corrupt("research status", e))?,
        progress: column(row, "progress")?,
        answer: column(row, "answer")?,
        error: column(row, "error")?,
        cdm_events: match events {
            Value::Array(events) => events,
            _ => return Err(super::store::corrupt("cdm_events", "not an array")),
        },
        attempts: u32::try_from(attempts).map_err(|e| super::store::corrupt("attempts", e.to_string()))?,
        elapsed_ms: u64::try_from(elapsed_ms).map_err(|e| super::store::corrupt("elapsed_ms", e.to_string()))?,
        created_at: column(row, "created_at")?,
        completed_at: column(row, "completed_at")?,
    })
}

fn until(now: OffsetDateTime, lease: Duration) -> OffsetDateTime {
    now + time::Duration::try_from(lease).unwrap_or(time::Duration::days(1))
}

fn elapsed(progress: &ResearchProgress) -> i64 {
    i64::try_from(progress.elapsed_ms).unwrap_or(i64::MAX)
}

impl PostgresStore {
    /// Runs a write that must match one row held by the worker; no row means the lease is lost.
    async fn while_holding(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, LeaseError> {
        let client = self.connection().await?;
        let statement = client.prepare_cached(sql).await.map_err(unavailable)?;
        client.query_opt(&statement, params).await.map_err(unavailable)?.ok_or(LeaseError::Lost)
    }
}

#[async_trait]
impl ResearchRepository for PostgresStore {
    async fn create(&self, run: ResearchRun) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(
                "INSERT INTO research_runs (id, owner_id, query, deal_id, max_iterations, status, progress, \
                 cdm_events, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .await
            .map_err(unavailable)?;
        let max_iterations = i32::try_from(run.max_iterations).unwrap_or(i32::MAX);
        let events = Value::Array(run.cdm_events.clone());
        client
            .execute(
                &statement,
                &[
                    &run.id.as_uuid(),
                    &run.owner.as_uuid(),
                    &run.query,
                    &run.deal_id,
                    &max_iterations,
                    &run.status.as_str(),
                    &run.progress,
                    &events,
                    &run.created_at,
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn claim(
        &self,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<Option<ResearchRun>, StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(&format!(
                "UPDATE research_runs SET status = 'running', lease_owner = $1, lease_expires_at = $2, \
                 attempts = attempts + 1 \
                 WHERE id = (SELECT id FROM research_runs \
                             WHERE status = 'pending' OR (status = 'running' AND lease_expires_at < $3) \
                             ORDER BY created_at, id FOR UPDATE SKIP LOCKED LIMIT 1) \
                 RETURNING {COLUMNS}"
            ))
            .await
            .map_err(unavailable)?;
        let row =
            client.query_opt(&statement, &[&worker.as_uuid(), &until(now, lease), &now]).await.map_err(unavailable)?;
        row.as_ref().map(run_from_row).transpose()
    }

    async fn renew(
        &self,
        id: ResearchId,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        self.while_holding(
            "UPDATE research_runs SET lease_expires_at = $3 \
             WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id",
            &[&id.as_uuid(), &worker.as_uuid(), &until(now, lease)],
        )
        .await
        .map(drop)
    }

    async fn save_progress(
        &self,
        id: ResearchId,
        worker: WorkerId,
        progress: ResearchProgress,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        self.while_holding(
            "UPDATE research_runs SET progress = $3, elapsed_ms = $4, lease_expires_at = $5 \
             WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id",
            &[&id.as_uuid(), &worker.as_uuid(), &progress.progress, &elapsed(&progress), &until(now, lease)],
        )
        .await
        .map(drop)
    }

    async fn finish(
        &self,
        id: ResearchId,
        worker: WorkerId,
        outcome: ResearchOutcome,
        progress: ResearchProgress,
        closing_event: Value,
        at: OffsetDateTime,
    ) -> Result<ResearchRun, LeaseError> {
        let (status, answer, error) = match outcome {
            ResearchOutcome::Completed { answer } => (ResearchStatus::Completed, Some(answer), None),
            ResearchOutcome::Failed { error } => (ResearchStatus::Failed, None, Some(error)),
        };
        let appended = Value::Array(vec![closing_event]);
        let row = self
            .while_holding(
                &format!(
                    "UPDATE research_runs SET status = $3, answer = $4, error = $5, progress = $6, elapsed_ms = $7, \
                     cdm_events = cdm_events || $8, completed_at = $9, lease_owner = NULL, lease_expires_at = NULL \
                     WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING {COLUMNS}"
                ),
                &[
                    &id.as_uuid(),
                    &worker.as_uuid(),
                    &status.as_str(),
                    &answer,
                    &error,
                    &progress.progress,
                    &elapsed(&progress),
                    &appended,
                    &at,
                ],
            )
            .await?;
        Ok(run_from_row(&row)?)
    }

    async fn find(&self, id: ResearchId) -> Result<Option<ResearchRun>, StoreError> {
        TABLE.find(&self.connection().await?, id.as_uuid()).await
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<ResearchRun>, u64), StoreError> {
        let owner = query.owner.map(|owner| owner.as_uuid());
        TABLE.page(&self.connection().await?, owner, query.deal_id, query.limit, query.offset()).await
    }

    async fn queue_depth(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        let client = self.connection().await?;
        // The same condition as `claim`, so the partial queue index serves it.
        let statement = client
            .prepare_cached(
                "SELECT count(*) FROM research_runs \
                 WHERE status = 'pending' OR (status = 'running' AND lease_expires_at < $1)",
            )
            .await
            .map_err(unavailable)?;
        let count: i64 = client.query_one(&statement, &[&now]).await.map_err(unavailable)?.get(0);
        Ok(u64::try_from(count).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_is_allowed_by_the_table() {
        let sql = include_str!("migrations/0006_research_runs.sql");
        for status in ResearchStatus::ALL {
            assert!(sql.contains(&format!("'{}'", status.as_str())), "{status}");
        }
    }
}
