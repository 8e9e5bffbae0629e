//! The sliding-window rate limiter for one instance: one lock per decision makes concurrent
//! requests of one user exact (of N racing requests with K slots free, exactly K pass).

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::domain::ratelimit::{RateDecision, RatePolicy, SlidingWindowLog};
use crate::ports::rate_limit::{RateLimitError, RateLimiter};

/// Keys idle for a whole window are dropped once the map grows past this, bounding memory.
const SWEEP_THRESHOLD: usize = 10_000;

#[derive(Default)]
pub struct MemoryRateLimiter {
    logs: Mutex<HashMap<String, SlidingWindowLog>>,
}

impl MemoryRateLimiter {
    pub fn new() -> Self {
        Self::default()
    }

    fn logs(&self) -> std::sync::MutexGuard<'_, HashMap<String, SlidingWindowLog>> {
        // Each operation leaves the map consistent, so a poisoned lock is still usable.
        self.logs.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl RateLimiter for MemoryRateLimiter {
    async fn try_acquire(&self, key: &str, policy: RatePolicy, now_ms: i64) -> Result<RateDecision, RateLimitError> {
        let mut logs = self.logs();
        if let Some(log) = logs.get_mut(key) {
            return Ok(log.try_acquire(policy, now_ms));
        }
        if logs.len() >= SWEEP_THRESHOLD {
            logs.retain(|_, log| !log.is_idle(policy, now_ms));
        }
        Ok(logs.entry(key.to_owned()).or_default().try_acquire(policy, now_ms))
    }

    async fn peek(&self, key: &str, policy: RatePolicy, now_ms: i64) -> Result<RateDecision, RateLimitError> {
        let mut logs = self.logs();
        Ok(match logs.get_mut(key) {
            Some(log) => log.peek(policy, now_ms),
            None => SlidingWindowLog::default().peek(policy, now_ms),
        })
    }

    async fn release(&self, key: &str, at_ms: i64) -> Result<(), RateLimitError> {
        if let Some(log) = self.logs().get_mut(key) {
            log.release(at_ms);
        }
        Ok(())
    }

    async fn reset(&self, key: &str) -> Result<(), RateLimitError> {
        self.logs().remove(key);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test]
    async fn concurrent_attempts_of_one_key_are_admitted_exactly_up_to_the_limit() {
        let limiter = Arc::new(MemoryRateLimiter::new());
        let policy = RatePolicy::per_minute(60);
        let attempts = (0..200).map(|_| {
            let limiter = limiter.clone();
            tokio::spawn(async move { limiter.try_acquire("user", policy, 1_000).await })
        });
        let mut admitted = 0;
        for attempt in attempts {
            if attempt.await.expect("join").expect("decision").allowed {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 60);
    }

    #[tokio::test]
    async fn keys_have_separate_budgets_and_reset_clears_one() {
        let limiter = MemoryRateLimiter::new();
        let policy = RatePolicy::per_minute(1);
        assert!(limiter.try_acquire("a", policy, 0).await.expect("ok").allowed);
        assert!(!limiter.try_acquire("a", policy, 1).await.expect("ok").allowed);
        assert!(limiter.try_acquire("b", policy, 1).await.expect("ok").allowed);
        limiter.reset("a").await.expect("ok");
        assert!(limiter.try_acquire("a", policy, 2).await.expect("ok").allowed);
    }

    #[tokio::test]
    async fn a_released_slot_is_free_again() {
        let limiter = MemoryRateLimiter::new();
        let policy = RatePolicy::per_minute(2);
        assert!(limiter.try_acquire("a", policy, 10).await.expect("ok").allowed);
        assert!(limiter.try_acquire("a", policy, 20).await.expect("ok").allowed);
        assert!(!limiter.try_acquire("a", policy, 30).await.expect("ok").allowed);
        limiter.release("a", 20).await.expect("ok");
        assert!(limiter.try_acquire("a", policy, 40).await.expect("ok").allowed);
        // Releasing an event that is not there changes nothing.
        limiter.release("a", 999).await.expect("ok");
        assert!(!limiter.try_acquire("a", policy, 50).await.expect("ok").allowed);
    }
}
