//! The research queue: durable storage of research runs that workers claim under a lease. A worker
//! that dies stops renewing its lease; once the lease has run out, any worker (of any instance
//! sharing the store) claims the run again and resumes from its last saved progress. Every write a
//! worker makes is conditional on still holding the lease, so a worker that lost it (paused, then
//! overtaken) cannot overwrite its successor's work.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;

use crate::domain::listing::RunQuery;
use crate::domain::research::runs::{ResearchId, ResearchOutcome, ResearchProgress, ResearchRun, WorkerId};
use crate::ports::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// The run is finished, or another worker holds it now (this worker's lease ran out); nothing
    /// was changed. The worker must stop working on it.
    #[error("the lease on this research run is lost")]
    Lost,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait ResearchRepository: Send + Sync + 'static {
    /// Stores a new run (normally `pending`).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; then nothing is stored.
    async fn create(&self, run: ResearchRun) -> Result<(), StoreError>;

    /// Claims the oldest run that is `pending`, or `running` with a lease that ran out before `now`:
    /// sets it `running`, held by `worker` until `now + lease`, and counts the attempt. Two workers
    /// never claim the same run at once. `Ok(None)`: nothing to do.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn claim(
        &self,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<Option<ResearchRun>, StoreError>;

    /// Extends `worker`'s lease on a running run to `now + lease`.
    ///
    /// # Errors
    /// [`LeaseError::Lost`] unless `worker` holds the run; [`LeaseError::Store`].
    async fn renew(
        &self,
        id: ResearchId,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError>;

    /// Saves the progress of a run `worker` holds, and renews the lease.
    ///
    /// # Errors
    /// As [`Self::renew`].
    async fn save_progress(
        &self,
        id: ResearchId,
        worker: WorkerId,
        progress: ResearchProgress,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError>;

    /// Finishes a run `worker` holds: `completed` with its answer or `failed` with the error, its
    /// final progress, and the closing CDM step appended to the run's events; releases the lease.
    ///
    /// # Errors
    /// As [`Self::renew`].
    async fn finish(
        &self,
        id: ResearchId,
        worker: WorkerId,
        outcome: ResearchOutcome,
        progress: ResearchProgress,
        closing_event: Value,
        at: OffsetDateTime,
    ) -> Result<ResearchRun, LeaseError>;

    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; unknown is `Ok(None)`.
    async fn find(&self, id: ResearchId) -> Result<Option<ResearchRun>, StoreError>;

    /// One page, newest first, and the total count.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list(&self, query: &RunQuery) -> Result<(Vec<ResearchRun>, u64), StoreError>;

    /// How many runs [`Self::claim`] could hand out at `now`: pending, or running with a lease that
    /// ran out.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn queue_depth(&self, now: OffsetDateTime) -> Result<u64, StoreError>;
}
