//! Covenant tests in process memory.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use super::{RunKey, page_of_runs};
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
        let key = |t: &CovenantTestRecord| RunKey {
            owner: t.owner,
            deal_id: Some(t.deal_id),
            created_at: t.created_at,
            id: t.id.as_uuid(),
        };
        Ok(page_of_runs(self.tests().values(), key, (owner, Some(deal_id)), (0, limit)))
    }
}
