//! Storage of analysis runs. A run moves `pending` → `running` → `completed` | `failed` and never
//! back: each move is recorded only from the state before it, so two workers cannot both finish it.

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;

use crate::domain::listing::RunQuery;
use crate::domain::quant::runs::{AnalysisId, AnalysisOutcome, AnalysisRecord, AnalysisStatus};
use crate::ports::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AnalysisChangeError {
    /// No run with this id.
    #[error("no such analysis")]
    NotFound,
    /// The run is not in the state the move starts from; nothing was changed.
    #[error("the analysis is {current}")]
    WrongState { current: AnalysisStatus },
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait AnalysisRepository: Send + Sync + 'static {
    /// Stores a new run (normally `pending`).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn create(&self, record: AnalysisRecord) -> Result<(), StoreError>;

    /// `pending` → `running`.
    ///
    /// # Errors
    /// [`AnalysisChangeError::NotFound`], [`AnalysisChangeError::WrongState`] unless pending, or
    /// [`AnalysisChangeError::Store`].
    async fn start(&self, id: AnalysisId) -> Result<(), AnalysisChangeError>;

    /// `running` → `completed` or `failed`, with the events of the whole run.
    ///
    /// # Errors
    /// As [`Self::start`], unless running.
    async fn finish(
        &self,
        id: AnalysisId,
        outcome: AnalysisOutcome,
        cdm_events: Vec<Value>,
        at: OffsetDateTime,
    ) -> Result<AnalysisRecord, AnalysisChangeError>;

    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; unknown is `Ok(None)`.
    async fn find(&self, id: AnalysisId) -> Result<Option<AnalysisRecord>, StoreError>;

    /// One page, newest first, and the total count.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list(&self, query: &RunQuery) -> Result<(Vec<AnalysisRecord>, u64), StoreError>;

    /// Unfinished runs (`pending` or `running`) of other instances that have not heart-beaten since
    /// `alive_since` or are gone ([`crate::ports::instances::InstanceRegistry`]), oldest first, at
    /// most `limit`. A store that only one process ever uses has none.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn abandoned(&self, alive_since: OffsetDateTime, limit: usize) -> Result<Vec<AnalysisRecord>, StoreError>;

    /// Unfinished runs (`pending` or `running`) that this instance stored (every unfinished run, for
    /// a store only one process uses), oldest first, at most `limit`: the service tells the ones it
    /// is still executing from the ones whose execution stopped.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn unfinished_here(&self, limit: usize) -> Result<Vec<AnalysisRecord>, StoreError>;
}
