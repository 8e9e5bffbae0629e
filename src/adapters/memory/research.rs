//! The research queue in process memory, with the same lease semantics as PostgreSQL's: one lock
//! per operation makes claiming, renewing and finishing atomic.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;

use super::{RunKey, page_of_runs};
use crate::domain::listing::RunQuery;
use crate::domain::research::runs::{
    ResearchId, ResearchOutcome, ResearchProgress, ResearchRun, ResearchStatus, WorkerId,
};
use crate::ports::research::{LeaseError, ResearchRepository};
use crate::ports::store::StoreError;

struct Entry {
    run: ResearchRun,
    lease: Option<(WorkerId, OffsetDateTime)>,
}

impl Entry {
    /// Pending, or running with a lease that ran out before `now`.
    fn claimable(&self, now: OffsetDateTime) -> bool {
        match self.run.status {
            ResearchStatus::Pending => true,
            ResearchStatus::Running => self.lease.is_none_or(|(_, expires)| expires < now),
            ResearchStatus::Completed | ResearchStatus::Failed => false,
        }
    }
}

#[derive(Default)]
pub struct MemoryResearchStore {
    runs: Mutex<HashMap<ResearchId, Entry>>,
}

impl MemoryResearchStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn runs(&self) -> MutexGuard<'_, HashMap<ResearchId, Entry>> {
        // Every operation leaves whole entries behind, so a poisoned lock still holds consistent data.
        self.runs.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn held<T>(&self, id: ResearchId, worker: WorkerId, change: impl FnOnce(&mut Entry) -> T) -> Result<T, LeaseError> {
        let mut runs = self.runs();
        let entry = runs.get_mut(&id).ok_or(LeaseError::Lost)?;
        let holds = entry.run.status == ResearchStatus::Running && entry.lease.is_some_and(|(w, _)| w == worker);
        if !holds {
            return Err(LeaseError::Lost);
        }
        Ok(change(entry))
    }
}

fn until(now: OffsetDateTime, lease: Duration) -> OffsetDateTime {
    now + time::Duration::try_from(lease).unwrap_or(time::Duration::MAX)
}

#[async_trait]
impl ResearchRepository for MemoryResearchStore {
    async fn create(&self, run: ResearchRun) -> Result<(), StoreError> {
        self.runs().insert(run.id, Entry { run, lease: None });
        Ok(())
    }

    async fn claim(
        &self,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<Option<ResearchRun>, StoreError> {
        let mut runs = self.runs();
        let Some(entry) = runs
            .values_mut()
            .filter(|entry| entry.claimable(now))
            .min_by_key(|entry| (entry.run.created_at, entry.run.id))
        else {
            return Ok(None);
        };
        entry.run.status = ResearchStatus::Running;
        entry.run.attempts += 1;
        entry.lease = Some((worker, until(now, lease)));
        Ok(Some(entry.run.clone()))
    }

    async fn renew(
        &self,
        id: ResearchId,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        self.held(id, worker, |entry| entry.lease = Some((worker, until(now, lease))))
    }

    async fn save_progress(
        &self,
        id: ResearchId,
        worker: WorkerId,
        progress: ResearchProgress,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        self.held(id, worker, |entry| {
            entry.run.progress = progress.progress;
            entry.run.elapsed_ms = progress.elapsed_ms;
            entry.lease = Some((worker, until(now, lease)));
        })
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
        self.held(id, worker, |entry| {
            let run = &mut entry.run;
            match outcome {
                ResearchOutcome::Completed { answer } => {
                    run.status = ResearchStatus::Completed;
                    run.answer = Some(answer);
                }
                ResearchOutcome::Failed { error } => {
                    run.status = ResearchStatus::Failed;
                    run.error = Some(error);
                }
            }
            run.progress = progress.progress;
            run.elapsed_ms = progress.elapsed_ms;
            run.cdm_events.push(closing_event);
            run.completed_at = Some(at);
            entry.lease = None;
            run.clone()
        })
    }

    async fn find(&self, id: ResearchId) -> Result<Option<ResearchRun>, StoreError> {
        Ok(self.runs().get(&id).map(|entry| entry.run.clone()))
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<ResearchRun>, u64), StoreError> {
        let key = |r: &ResearchRun| RunKey {
            owner: r.owner,
            deal_id: r.deal_id,
            created_at: r.created_at,
            id: r.id.as_uuid(),
        };
        let runs = self.runs();
        let stored = runs.values().map(|entry| &entry.run);
        Ok(page_of_runs(stored, key, (query.owner, query.deal_id), (query.offset(), query.limit)))
    }

    async fn queue_depth(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        Ok(self.runs().values().filter(|entry| entry.claimable(now)).count() as u64)
    }
}
