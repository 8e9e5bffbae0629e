//! The instances of the service that share one store, and which of them are alive. Work an instance
//! started and could not finish — it was killed, crashed, or lost its host — is recognised by its
//! instance no longer heart-beating, and ended by one that is (see
//! [`crate::ports::analyses::AnalysisRepository::abandoned`]).

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::ports::store::StoreError;

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait InstanceRegistry: Send + Sync + 'static {
    /// Records that this instance is alive at `now`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn heartbeat(&self, now: OffsetDateTime) -> Result<(), StoreError>;

    /// Removes this instance (it is stopping): whatever it left unfinished is abandoned at once
    /// rather than when its heartbeat would have gone stale.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn retire(&self) -> Result<(), StoreError>;
}
