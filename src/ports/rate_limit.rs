//! Rolling-window counters keyed by an opaque string (a user id, an account being signed into).
//! The in-memory adapter serves one instance; a shared store serves several.

use async_trait::async_trait;

use crate::domain::ratelimit::{RateDecision, RatePolicy};

#[derive(Debug, thiserror::Error)]
pub enum RateLimitError {
    /// The backing store could not be reached.
    #[error("rate-limit store unavailable")]
    Unavailable(#[source] anyhow::Error),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait RateLimiter: Send + Sync + 'static {
    /// Admits one event for `key` at `now_ms` if the window has room, atomically: of N concurrent
    /// calls for one key with `limit` slots free, exactly `limit` are admitted.
    ///
    /// # Errors
    /// [`RateLimitError::Unavailable`] when the store cannot answer.
    async fn try_acquire(&self, key: &str, policy: RatePolicy, now_ms: i64) -> Result<RateDecision, RateLimitError>;

    /// The state for `key` without recording an event.
    ///
    /// # Errors
    /// [`RateLimitError::Unavailable`] when the store cannot answer.
    async fn peek(&self, key: &str, policy: RatePolicy, now_ms: i64) -> Result<RateDecision, RateLimitError>;

    /// Gives back the slot of one event of `key` admitted at `at_ms` (the `now_ms` of its
    /// `try_acquire`); nothing happens when there is none.
    ///
    /// # Errors
    /// [`RateLimitError::Unavailable`] when the store cannot answer.
    async fn release(&self, key: &str, at_ms: i64) -> Result<(), RateLimitError>;

    /// Forgets every event of `key`.
    ///
    /// # Errors
    /// [`RateLimitError::Unavailable`] when the store cannot answer.
    async fn reset(&self, key: &str) -> Result<(), RateLimitError>;
}
