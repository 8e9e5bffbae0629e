//! Storage of finished people-workflow results: written once, read by their owner (and
//! administrators), listed per owner and deal.

use async_trait::async_trait;

use crate::domain::listing::RunQuery;
use crate::domain::people::runs::{PeopleId, PeopleRecord};
use crate::ports::store::StoreError;

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait PeopleRepository: Send + Sync + 'static {
    /// Stores a finished result.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; then nothing is stored.
    async fn create(&self, record: PeopleRecord) -> Result<(), StoreError>;

    /// The result; unknown is `Ok(None)`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn find(&self, id: PeopleId) -> Result<Option<PeopleRecord>, StoreError>;

    /// One page of results matching `query`, newest first (ties by id), and the total matching.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list(&self, query: &RunQuery) -> Result<(Vec<PeopleRecord>, u64), StoreError>;
}
