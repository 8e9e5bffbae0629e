//! Statement sets over PostgreSQL: one `INSERT` per set in the transaction that admits it under
//! its owner's quota, read by id, the latest of a deal by an index on (deal, time), and deleted in
//! the transaction that writes the audit entry and gives the quota back.

use anyhow::anyhow;
use async_trait::async_trait;
use serde_json::Value;
use tokio_postgres::Row;

use super::listing::RunTable;
use super::storage::{Refused, admit_under_quota, record_deletion};
use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::documents::{Deletion, DeletionRecord, DocumentQuota, StorageUsage};
use crate::domain::statements::set::StatementSet;
use crate::domain::statements::stored::{SetOrigin, StatementSetId, StatementSetRecord};
use crate::ports::statement_sets::{StatementSetRepository, StatementSetWriteError};
use crate::ports::store::StoreError;

const COLUMNS: &str = "id, owner_id, borrower_name, deal_id, origin, statements, created_at";

fn record_from_row(row: &Row) -> Result<StatementSetRecord, StoreError> {
    let unreadable = |what: &str, error: serde_json::Error| {
        StoreError::Corrupt(anyhow!("unreadable {what} of a statement set in the database: {error}"))
    };
    let origin: Value = column(row, "origin")?;
    let statements: Value = column(row, "statements")?;
    Ok(StatementSetRecord {
        id: StatementSetId::from_uuid(column(row, "id")?),
        owner: UserId::from_uuid(column(row, "owner_id")?),
        borrower_name: column(row, "borrower_name")?,
        deal_id: column(row, "deal_id")?,
        origin: serde_json::from_value::<SetOrigin>(origin).map_err(|e| unreadable("origin", e))?,
        statements: serde_json::from_value::<StatementSet>(statements).map_err(|e| unreadable("statements", e))?,
        created_at: column(row, "created_at")?,
    })
}

/// The table as a deal's listing reads it.
const SETS: RunTable<StatementSetRecord> = RunTable { name: "statement_sets", columns: COLUMNS, map: record_from_row };

#[async_trait]
impl StatementSetRepository for PostgresStore {
    async fn create(&self, record: StatementSetRecord, quota: DocumentQuota) -> Result<(), StatementSetWriteError> {
        let origin = serde_json::to_value(&record.origin).map_err(|e| StoreError::Unavailable(e.into()))?;
        let statements = serde_json::to_value(&record.statements).map_err(|e| StoreError::Unavailable(e.into()))?;
        let stored_bytes = record.stored_bytes();
        let mut client = self.connection().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        admit_under_quota(&tx, record.owner, quota, StorageUsage::new_statement_set(stored_bytes)).await.map_err(
            |refused| match refused {
                Refused::Quota(exceeded) => StatementSetWriteError::QuotaExceeded(exceeded),
                Refused::Store(error) => StatementSetWriteError::Store(error),
            },
        )?;
        let statement = tx
            .prepare_cached(&format!(
                "INSERT INTO statement_sets ({COLUMNS}, stored_bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
            ))
            .await
            .map_err(unavailable)?;
        let stored_bytes = i64::try_from(stored_bytes).unwrap_or(i64::MAX);
        tx.execute(
            &statement,
            &[
                &record.id.as_uuid(),
                &record.owner.as_uuid(),
                &record.borrower_name,
                &record.deal_id,
                &origin,
                &statements,
                &record.created_at,
                &stored_bytes,
            ],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(())
    }

    async fn delete(&self, id: StatementSetId, deletion: Deletion) -> Result<Option<DeletionRecord>, StoreError> {
        let mut client = self.connection().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let delete = tx
            .prepare_cached(&format!("DELETE FROM statement_sets WHERE id = $1 RETURNING {COLUMNS}, stored_bytes"))
            .await
            .map_err(unavailable)?;
        let Some(row) = tx.query_opt(&delete, &[&id.as_uuid()]).await.map_err(unavailable)? else {
            return Ok(None);
        };
        let record = record_from_row(&row)?;
        // What the set was counted for when stored (or by migration 0019, for older sets).
        let stored_bytes = u64::try_from(column::<i64>(&row, "stored_bytes")?).unwrap_or(0);
        let entry = record.deletion_record(deletion, stored_bytes);
        record_deletion(&tx, &entry).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(Some(entry))
    }

    async fn find(&self, id: StatementSetId) -> Result<Option<StatementSetRecord>, StoreError> {
        let client = self.connection().await?;
        SETS.find(&client, id.as_uuid()).await
    }

    async fn latest_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
    ) -> Result<Option<StatementSetRecord>, StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM statement_sets WHERE deal_id = $1 AND ($2::uuid IS NULL OR owner_id = $2) \
                 ORDER BY created_at DESC, id DESC LIMIT 1"
            ))
            .await
            .map_err(unavailable)?;
        let owner = owner.map(|o| o.as_uuid());
        let row = client.query_opt(&statement, &[&deal_id, &owner]).await.map_err(unavailable)?;
        row.as_ref().map(record_from_row).transpose()
    }

    async fn list_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<(Vec<StatementSetRecord>, u64), StoreError> {
        let client = self.connection().await?;
        SETS.page(&client, owner.map(|o| o.as_uuid()), Some(deal_id), limit, 0).await
    }
}
