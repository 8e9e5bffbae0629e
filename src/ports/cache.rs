//! A cache of provider responses (SEC company facts, price series), kept in the store so that
//! repeated analyses — on any instance — do not fetch the same data again while it is fresh. Each
//! adapter keeps at most [`ResponseCache::capacity`] entries, dropping the oldest first.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::ports::store::StoreError;

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait ResponseCache: Send + Sync + 'static {
    /// The body stored under `key` if it was stored after `fresh_after`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer (callers then fetch afresh).
    async fn get(&self, key: &str, fresh_after: OffsetDateTime) -> Result<Option<Vec<u8>>, StoreError>;

    /// Stores (or replaces) the body under `key`, fetched at `at`; past [`Self::capacity`] entries
    /// the oldest are dropped.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn put(&self, key: &str, body: Vec<u8>, at: OffsetDateTime) -> Result<(), StoreError>;

    /// The most entries kept.
    fn capacity(&self) -> usize;
}
