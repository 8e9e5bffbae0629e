//! Storage of supplied statement sets: written once under the owner's storage quota, read by id
//! (the service checks the owner), the latest one of a deal found for a loan application, and
//! deleted with an entry in the audit trail.

use async_trait::async_trait;

use crate::domain::auth::UserId;
use crate::domain::documents::{Deletion, DeletionRecord, DocumentQuota, QuotaExceeded};
use crate::domain::statements::stored::{StatementSetId, StatementSetRecord};
use crate::ports::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum StatementSetWriteError {
    /// The set would take the owner beyond their quota; nothing was stored.
    #[error(transparent)]
    QuotaExceeded(QuotaExceeded),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait StatementSetRepository: Send + Sync + 'static {
    /// Stores a set, if its owner's `quota` has room for one more set of its
    /// [`StatementSetRecord::stored_bytes`], and counts it in their usage.
    ///
    /// # Errors
    /// [`StatementSetWriteError::QuotaExceeded`]; [`StatementSetWriteError::Store`] when the store
    /// cannot answer. Either way nothing is stored.
    async fn create(&self, record: StatementSetRecord, quota: DocumentQuota) -> Result<(), StatementSetWriteError>;

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

    /// Deletes the set, writes its entry in the audit trail
    /// ([`StatementSetRecord::deletion_record`]) and gives its owner's quota back what the set
    /// was counted for, all in one change. Analyses that read the set keep their own copy of its
    /// periods.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; then nothing changed. An unknown
    /// id is `Ok(None)`.
    async fn delete(&self, id: StatementSetId, deletion: Deletion) -> Result<Option<DeletionRecord>, StoreError>;
}
