//! Statement sets in process memory.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use crate::domain::auth::UserId;
use crate::domain::statements::stored::{StatementSetId, StatementSetRecord};
use crate::ports::statement_sets::StatementSetRepository;
use crate::ports::store::StoreError;

#[derive(Default)]
pub struct MemoryStatementSetStore {
    sets: Mutex<HashMap<StatementSetId, StatementSetRecord>>,
}

impl MemoryStatementSetStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn sets(&self) -> MutexGuard<'_, HashMap<StatementSetId, StatementSetRecord>> {
        // Every operation inserts or reads whole records, so a poisoned lock still holds consistent data.
        self.sets.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl StatementSetRepository for MemoryStatementSetStore {
    async fn create(&self, record: StatementSetRecord) -> Result<(), StoreError> {
        self.sets().insert(record.id, record);
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
        let sets = self.sets();
        let mut listed: Vec<&StatementSetRecord> =
            sets.values().filter(|s| s.deal_id == Some(deal_id) && owner.is_none_or(|o| s.owner == o)).collect();
        listed.sort_by_key(|s| std::cmp::Reverse((s.created_at, s.id.as_uuid())));
        let total = listed.len() as u64;
        Ok((listed.into_iter().take(limit as usize).cloned().collect(), total))
    }
}
