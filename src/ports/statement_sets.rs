//! Storage of supplied statement sets: written once, read by id (the service checks the owner),
//! and the latest one of a deal found for a loan application.

use async_trait::async_trait;

use crate::domain::auth::UserId;
use crate::domain::statements::stored::{StatementSetId, StatementSetRecord};
use crate::ports::store::StoreError;

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait StatementSetRepository: Send + Sync + 'static {
    /// Stores a set.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; then nothing is stored.
    async fn create(&self, record: StatementSetRecord) -> Result<(), StoreError>;

    /// The set; unknown is `Ok(None)`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn find(&self, id: StatementSetId) -> Result<Option<StatementSetRecord>, StoreError>;

    /// The newest set stored for `deal_id` (by `owner` only, unless `None`: any owner's).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn latest_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
    ) -> Result<Option<StatementSetRecord>, StoreError>;

    /// Up to `limit` sets of `deal_id` (by `owner` only, unless `None`: any owner's), newest first,
    /// with how many there are in all.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<(Vec<StatementSetRecord>, u64), StoreError>;
}
