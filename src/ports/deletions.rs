//! The audit trail of deletions, as administrators read it. Its entries are written by the
//! document and statement-set repositories, in the same change as the deletion they record.

use async_trait::async_trait;

use crate::domain::documents::DeletionRecord;
use crate::ports::store::StoreError;

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait DeletionTrail: Send + Sync + 'static {
    /// Page `page` (from 1) of `limit` entries, newest first, with the number of entries in all.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list(&self, page: u32, limit: u32) -> Result<(Vec<DeletionRecord>, u64), StoreError>;
}
