//! Analysis runs in process memory; one lock per operation keeps every state move atomic.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;

use super::{RunKey, page_of_runs};
use crate::domain::listing::RunQuery;
use crate::domain::quant::runs::{AnalysisId, AnalysisOutcome, AnalysisRecord, AnalysisStatus};
use crate::ports::analyses::{AnalysisChangeError, AnalysisRepository};
use crate::ports::store::StoreError;

#[derive(Default)]
pub struct MemoryAnalysisStore {
    runs: Mutex<HashMap<AnalysisId, AnalysisRecord>>,
}

impl MemoryAnalysisStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn runs(&self) -> MutexGuard<'_, HashMap<AnalysisId, AnalysisRecord>> {
        // Every operation replaces whole records, so a poisoned lock still holds consistent data.
        self.runs.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn moving(
        &self,
        id: AnalysisId,
        from: AnalysisStatus,
        change: impl FnOnce(&mut AnalysisRecord),
    ) -> Result<AnalysisRecord, AnalysisChangeError> {
        let mut runs = self.runs();
        let record = runs.get_mut(&id).ok_or(AnalysisChangeError::NotFound)?;
        if record.status != from {
            return Err(AnalysisChangeError::WrongState { current: record.status });
        }
        change(record);
        Ok(record.clone())
    }
}

#[async_trait]
impl AnalysisRepository for MemoryAnalysisStore {
    async fn create(&self, record: AnalysisRecord) -> Result<(), StoreError> {
        self.runs().insert(record.id, record);
        Ok(())
    }

    async fn start(&self, id: AnalysisId) -> Result<(), AnalysisChangeError> {
        self.moving(id, AnalysisStatus::Pending, |record| record.status = AnalysisStatus::Running).map(drop)
    }

    async fn finish(
        &self,
        id: AnalysisId,
        outcome: AnalysisOutcome,
        cdm_events: Vec<Value>,
        at: OffsetDateTime,
    ) -> Result<AnalysisRecord, AnalysisChangeError> {
        self.moving(id, AnalysisStatus::Running, |record| {
            match outcome {
                AnalysisOutcome::Completed { result } => {
                    record.status = AnalysisStatus::Completed;
                    record.result = Some(result);
                }
                AnalysisOutcome::Failed { error } => {
                    record.status = AnalysisStatus::Failed;
                    record.error = Some(error);
                }
            }
            record.cdm_events = cdm_events;
            record.completed_at = Some(at);
        })
    }

    async fn find(&self, id: AnalysisId) -> Result<Option<AnalysisRecord>, StoreError> {
        Ok(self.runs().get(&id).cloned())
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<AnalysisRecord>, u64), StoreError> {
        let key = |r: &AnalysisRecord| RunKey {
            owner: r.owner,
            deal_id: r.deal_id,
            created_at: r.created_at,
            id: r.id.as_uuid(),
        };
        let runs = self.runs();
        Ok(page_of_runs(runs.values(), key, (query.owner, query.deal_id), (query.offset(), query.limit)))
    }

    /// Memory is one process's: no other instance can have left a run here.
    async fn abandoned(&self, _alive_since: OffsetDateTime, _limit: usize) -> Result<Vec<AnalysisRecord>, StoreError> {
        Ok(Vec::new())
    }

    async fn unfinished_here(&self, limit: usize) -> Result<Vec<AnalysisRecord>, StoreError> {
        let mut unfinished: Vec<AnalysisRecord> = self
            .runs()
            .values()
            .filter(|run| matches!(run.status, AnalysisStatus::Pending | AnalysisStatus::Running))
            .cloned()
            .collect();
        unfinished.sort_by_key(|run| (run.created_at, run.id.as_uuid()));
        unfinished.truncate(limit);
        Ok(unfinished)
    }
}
