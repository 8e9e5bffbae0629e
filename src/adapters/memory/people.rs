//! Finished people-workflow results in process memory, listed in the same order as PostgreSQL's.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use crate::domain::people_runs::{PeopleId, PeopleQuery, PeopleRecord};
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

    async fn list(&self, query: &PeopleQuery) -> Result<(Vec<PeopleRecord>, u64), StoreError> {
        let results = self.results();
        let mut matching: Vec<&PeopleRecord> = results
            .values()
            .filter(|record| query.owner.is_none_or(|owner| record.owner == owner))
            .filter(|record| query.deal_id.is_none_or(|deal| record.deal_id == Some(deal)))
            .collect();
        matching.sort_by_key(|record| std::cmp::Reverse((record.created_at, record.id)));
        let total = matching.len() as u64;
        let page = matching
            .into_iter()
            .skip(usize::try_from(query.offset()).unwrap_or(usize::MAX))
            .take(query.limit as usize)
            .cloned()
            .collect();
        Ok((page, total))
    }
}
