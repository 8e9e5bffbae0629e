//! Covenant tests in process memory.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use crate::domain::auth::UserId;
use crate::domain::deals::stored::{CovenantTestId, CovenantTestRecord};
use crate::ports::covenant_tests::CovenantTestRepository;
use crate::ports::store::StoreError;

#[derive(Default)]
pub struct MemoryCovenantTestStore {
    tests: Mutex<HashMap<CovenantTestId, CovenantTestRecord>>,
}

impl MemoryCovenantTestStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn tests(&self) -> MutexGuard<'_, HashMap<CovenantTestId, CovenantTestRecord>> {
        // Every operation inserts or reads whole records, so a poisoned lock still holds consistent data.
        self.tests.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl CovenantTestRepository for MemoryCovenantTestStore {
    async fn create(&self, record: CovenantTestRecord) -> Result<(), StoreError> {
        self.tests().insert(record.id, record);
        Ok(())
    }

    async fn find(&self, id: CovenantTestId) -> Result<Option<CovenantTestRecord>, StoreError> {
        Ok(self.tests().get(&id).cloned())
    }

    async fn list_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<(Vec<CovenantTestRecord>, u64), StoreError> {
        let tests = self.tests();
        let mut listed: Vec<&CovenantTestRecord> =
            tests.values().filter(|t| t.deal_id == deal_id && owner.is_none_or(|o| t.owner == o)).collect();
        listed.sort_by_key(|t| std::cmp::Reverse((t.created_at, t.id.as_uuid())));
        let total = listed.len() as u64;
        Ok((listed.into_iter().take(limit as usize).cloned().collect(), total))
    }
}
