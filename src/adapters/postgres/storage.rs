//! Each owner's storage usage and the audit trail of deletions over PostgreSQL: the
//! `document_usage` row that admits a write under the owner's quota (and is the lock that
//! serialises one owner's writes), and the `deletions` table. Both are written inside the
//! transaction of the document or statement-set change they count.

use anyhow::anyhow;
use async_trait::async_trait;
use deadpool_postgres::Transaction;
use tokio_postgres::Row;

use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::documents::{DeletedKind, DeletionRecord, DocumentQuota, QuotaExceeded, StorageUsage};
use crate::ports::deletions::DeletionTrail;
use crate::ports::store::StoreError;

/// Why a write was not admitted.
#[derive(Debug)]
pub(super) enum Refused {
    Quota(QuotaExceeded),
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

fn count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Checks that `owner` has room for `write` under `quota` and counts the write in the owner's
/// usage, holding the owner's usage row until the transaction ends: a concurrent write of the same
/// owner waits here, and then sees this one. Rolled back with the rest when the write fails after.
pub(super) async fn admit_under_quota(
    tx: &Transaction<'_>,
    owner: UserId,
    quota: DocumentQuota,
    write: StorageUsage,
) -> Result<(), Refused> {
    // The owner's usage row, created when missing and locked by the upsert until the end of the
    // transaction: one owner's writes are admitted one at a time, each against the usage the one
    // before it left.
    let read = tx
        .prepare_cached(
            "INSERT INTO document_usage (owner_id) VALUES ($1) \
             ON CONFLICT (owner_id) DO UPDATE SET owner_id = EXCLUDED.owner_id \
             RETURNING documents, statement_sets, bytes",
        )
        .await
        .map_err(unavailable)?;
    let row = tx.query_one(&read, &[&owner.as_uuid()]).await.map_err(unavailable)?;
    let usage = usage_from_row(&row, "")?;
    quota.admit(usage, write).map_err(Refused::Quota)?;
    let add = tx
        .prepare_cached(
            "UPDATE document_usage SET documents = documents + $2, statement_sets = statement_sets + $3, \
             bytes = bytes + $4 WHERE owner_id = $1",
        )
        .await
        .map_err(unavailable)?;
    let figures = [count(write.documents), count(write.statement_sets), count(write.bytes)];
    tx.execute(&add, &[&owner.as_uuid(), &figures[0], &figures[1], &figures[2]]).await.map_err(unavailable)?;
    Ok(())
}

/// Writes `entry` in the audit trail and gives its owner back what it freed, in the transaction
/// that deletes the record.
pub(super) async fn record_deletion(tx: &Transaction<'_>, entry: &DeletionRecord) -> Result<(), StoreError> {
    let freed = [count(entry.freed.documents), count(entry.freed.statement_sets), count(entry.freed.bytes)];
    // A usage row below what it frees (edited by hand) stops at zero rather than failing the check.
    let give_back = tx
        .prepare_cached(
            "UPDATE document_usage SET documents = greatest(documents - $2, 0), \
             statement_sets = greatest(statement_sets - $3, 0), bytes = greatest(bytes - $4, 0) \
             WHERE owner_id = $1",
        )
        .await
        .map_err(unavailable)?;
    tx.execute(&give_back, &[&entry.owner.as_uuid(), &freed[0], &freed[1], &freed[2]]).await.map_err(unavailable)?;
    let insert = tx
        .prepare_cached(
            "INSERT INTO deletions (kind, record_id, owner_id, deleted_by, deleted_at, \
             freed_documents, freed_statement_sets, freed_bytes, summary) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .await
        .map_err(unavailable)?;
    tx.execute(
        &insert,
        &[
            &entry.kind.as_str(),
            &entry.record_id,
            &entry.owner.as_uuid(),
            &entry.deleted_by.as_uuid(),
            &entry.deleted_at,
            &freed[0],
            &freed[1],
            &freed[2],
            &entry.summary,
        ],
    )
    .await
    .map_err(unavailable)?;
    Ok(())
}

/// The usage in `row`'s columns `{prefix}documents`, `{prefix}statement_sets`, `{prefix}bytes`.
fn usage_from_row(row: &Row, prefix: &str) -> Result<StorageUsage, StoreError> {
    let figure = |name: &str| column::<i64>(row, &format!("{prefix}{name}")).map(|n| u64::try_from(n).unwrap_or(0));
    Ok(StorageUsage {
        documents: figure("documents")?,
        statement_sets: figure("statement_sets")?,
        bytes: figure("bytes")?,
    })
}

fn deletion_from_row(row: &Row) -> Result<DeletionRecord, StoreError> {
    let kind: String = column(row, "kind")?;
    Ok(DeletionRecord {
        kind: DeletedKind::parse(&kind)
            .ok_or_else(|| StoreError::Corrupt(anyhow!("unreadable deletion kind {kind} in the database")))?,
        record_id: column(row, "record_id")?,
        owner: UserId::from_uuid(column(row, "owner_id")?),
        deleted_by: UserId::from_uuid(column(row, "deleted_by")?),
        deleted_at: column(row, "deleted_at")?,
        freed: usage_from_row(row, "freed_")?,
        summary: column(row, "summary")?,
    })
}

#[async_trait]
impl DeletionTrail for PostgresStore {
    async fn list(&self, page: u32, limit: u32) -> Result<(Vec<DeletionRecord>, u64), StoreError> {
        let client = self.connection().await?;
        let total = client.prepare_cached("SELECT count(*) AS total FROM deletions").await.map_err(unavailable)?;
        let total = client.query_one(&total, &[]).await.map_err(unavailable)?;
        let total = u64::try_from(column::<i64>(&total, "total")?).unwrap_or(0);
        let statement = client
            .prepare_cached(
                "SELECT kind, record_id, owner_id, deleted_by, deleted_at, freed_documents, freed_statement_sets, \
                 freed_bytes, summary FROM deletions ORDER BY seq DESC LIMIT $1 OFFSET $2",
            )
            .await
            .map_err(unavailable)?;
        let offset = i64::from(page.saturating_sub(1)) * i64::from(limit);
        let rows = client.query(&statement, &[&i64::from(limit), &offset]).await.map_err(unavailable)?;
        Ok((rows.iter().map(deletion_from_row).collect::<Result<_, _>>()?, total))
    }
}
