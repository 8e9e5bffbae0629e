//! Finished people-workflow results in process memory, listed in the same order as PostgreSQL's.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use super::{RunKey, page_of_runs};
use crate::domain::listing::RunQuery;
use crate::domain::people::runs::{PeopleId, PeopleRecord};
use crate::ports::people::PeopleRepository;
use crate::ports::store::StoreError;

#[derive(Default)]
pub struct MemoryPeopleStore {
    results: Mutex<HashMap<PeopleId, PeopleRecord>>,
}

impl MemoryPeopleStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn results(&self) -> MutexGuard<'_, HashMap<PeopleId, PeopleRecord>> {
        // Every operation inserts or reads whole records, so a poisoned lock still holds consistent data.
        self.results.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl PeopleRepository for MemoryPeopleStore {
    async fn create(&self, record: PeopleRecord) -> Result<(), StoreError> {
        self.results().insert(record.id, record);
        Ok(())
    }

    async fn find(&self, id: PeopleId) -> Result<Option<PeopleRecord>, StoreError> {
        Ok(self.results().get(&id).cloned())
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<PeopleRecord>, u64), StoreError> {
        let key = |r: &PeopleRecord| RunKey {
            owner: r.owner,
            deal_id: r.deal_id,
            created_at: r.created_at,
            id: r.id.as_uuid(),
        };
        let results = self.results();
        Ok(page_of_runs(results.values(), key, (query.owner, query.deal_id), (query.offset(), query.limit)))
    }
}
