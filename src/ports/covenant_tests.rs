//! Storage of covenant tests: written once, read by id (the service checks the owner), and listed
//! per deal, newest first.

use async_trait::async_trait;

use crate::domain::auth::UserId;
use crate::domain::deals::stored::{CovenantTestId, CovenantTestRecord};
use crate::ports::store::StoreError;

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait CovenantTestRepository: Send + Sync + 'static {
    /// Stores a test.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; then nothing is stored.
    async fn create(&self, record: CovenantTestRecord) -> Result<(), StoreError>;

    /// The test; unknown is `Ok(None)`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn find(&self, id: CovenantTestId) -> Result<Option<CovenantTestRecord>, StoreError>;

    /// Up to `limit` tests of `deal_id` (by `owner` only, unless `None`: any owner's), newest
    /// first, with how many there are in all.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<(Vec<CovenantTestRecord>, u64), StoreError>;
}
