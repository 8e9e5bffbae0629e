//! Statement sets in process memory, counted in the owners' usage of the shared
//! [`MemoryStorageLedger`] under the store's lock.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::storage::MemoryStorageLedger;
use super::{RunKey, page_of_runs};
use crate::domain::auth::UserId;
use crate::domain::documents::{Deletion, DeletionRecord, DocumentQuota, StorageUsage};
use crate::domain::statements::stored::{StatementSetId, StatementSetRecord};
use crate::ports::statement_sets::{StatementSetRepository, StatementSetWriteError};
use crate::ports::store::StoreError;

#[derive(Default)]
pub struct MemoryStatementSetStore {
    sets: Mutex<HashMap<StatementSetId, StatementSetRecord>>,
    /// The owners' usage (shared with the documents) and the audit trail of deletions.
    ledger: Arc<MemoryStorageLedger>,
}

impl MemoryStatementSetStore {
    /// A store with a ledger of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store that counts its owners' usage, and records deletions, in `ledger`.
    pub fn sharing(ledger: Arc<MemoryStorageLedger>) -> Self {
        Self { sets: Mutex::default(), ledger }
    }

    fn sets(&self) -> MutexGuard<'_, HashMap<StatementSetId, StatementSetRecord>> {
        // Every operation inserts or reads whole records, so a poisoned lock still holds consistent data.
        self.sets.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl StatementSetRepository for MemoryStatementSetStore {
    async fn create(&self, record: StatementSetRecord, quota: DocumentQuota) -> Result<(), StatementSetWriteError> {
        let mut sets = self.sets();
        let write = StorageUsage::new_statement_set(record.stored_bytes());
        self.ledger.admit(record.owner, quota, write).map_err(StatementSetWriteError::QuotaExceeded)?;
        sets.insert(record.id, record);
        Ok(())
    }

    async fn find(&self, id: StatementSetId) -> Result<Option<StatementSetRecord>, StoreError> {
        Ok(self.sets().get(&id).cloned())
    }

    async fn latest_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
    ) -> Result<Option<StatementSetRecord>, StoreError> {
        Ok(self
            .sets()
            .values()
            .filter(|s| s.deal_id == Some(deal_id) && owner.is_none_or(|o| s.owner == o))
            .max_by_key(|s| (s.created_at, s.id.as_uuid()))
            .cloned())
    }

    async fn list_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<(Vec<StatementSetRecord>, u64), StoreError> {
        let key = |t: &StatementSetRecord| RunKey {
            owner: t.owner,
            deal_id: t.deal_id,
            created_at: t.created_at,
            id: t.id.as_uuid(),
        };
        Ok(page_of_runs(self.sets().values(), key, (owner, Some(deal_id)), (0, limit)))
    }

    async fn delete(&self, id: StatementSetId, deletion: Deletion) -> Result<Option<DeletionRecord>, StoreError> {
        let mut sets = self.sets();
        let Some(record) = sets.remove(&id) else { return Ok(None) };
        let entry = record.deletion_record(deletion, record.stored_bytes());
        self.ledger.record_deletion(entry.clone());
        Ok(Some(entry))
    }
}
