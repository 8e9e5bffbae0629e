//! The rolling-window rate limiter in PostgreSQL, for several instances sharing one budget per
//! user. Each decision is one transaction holding an advisory lock on the key, so of N concurrent
//! requests for one key with K slots free exactly K are admitted, across all instances; the window
//! arithmetic is the domain's own ([`SlidingWindowLog`]), fed with the key's stored events.

use async_trait::async_trait;
use deadpool_postgres::Transaction;

use super::store::{PostgresStore, unavailable};
use crate::domain::ratelimit::{RateDecision, RatePolicy, SlidingWindowLog};
use crate::ports::rate_limit::{RateLimitError, RateLimiter};
use crate::ports::store::StoreError;

fn store_error(error: StoreError) -> RateLimitError {
    RateLimitError::Unavailable(error.into_cause())
}

/// Locks `key` for this transaction, forgets its events older than the window, and returns the rest.
async fn window_of(
    tx: &Transaction<'_>,
    key: &str,
    policy: RatePolicy,
    now_ms: i64,
) -> Result<SlidingWindowLog, StoreError> {
    let lock = tx.prepare_cached("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))").await.map_err(unavailable)?;
    tx.execute(&lock, &[&key]).await.map_err(unavailable)?;
    let cutoff = now_ms - policy.window_ms;
    let forget =
        tx.prepare_cached("DELETE FROM rate_limit_events WHERE key = $1 AND at_ms <= $2").await.map_err(unavailable)?;
    tx.execute(&forget, &[&key, &cutoff]).await.map_err(unavailable)?;
    let events = tx.prepare_cached("SELECT at_ms FROM rate_limit_events WHERE key = $1").await.map_err(unavailable)?;
    let rows = tx.query(&events, &[&key]).await.map_err(unavailable)?;
    Ok(SlidingWindowLog::from_events(rows.iter().map(|row| row.get::<_, i64>(0))))
}

impl PostgresStore {
    async fn decide(
        &self,
        key: &str,
        policy: RatePolicy,
        now_ms: i64,
        record: bool,
    ) -> Result<RateDecision, StoreError> {
        let mut client = self.connection().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let mut log = window_of(&tx, key, policy, now_ms).await?;
        let decision = if record { log.try_acquire(policy, now_ms) } else { log.peek(policy, now_ms) };
        if record && decision.allowed {
            let insert = tx
                .prepare_cached("INSERT INTO rate_limit_events (key, at_ms) VALUES ($1, $2)")
                .await
                .map_err(unavailable)?;
            tx.execute(&insert, &[&key, &now_ms]).await.map_err(unavailable)?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(decision)
    }
}

#[async_trait]
impl RateLimiter for PostgresStore {
    async fn try_acquire(&self, key: &str, policy: RatePolicy, now_ms: i64) -> Result<RateDecision, RateLimitError> {
        self.decide(key, policy, now_ms, true).await.map_err(store_error)
    }

    async fn peek(&self, key: &str, policy: RatePolicy, now_ms: i64) -> Result<RateDecision, RateLimitError> {
        self.decide(key, policy, now_ms, false).await.map_err(store_error)
    }

    async fn release(&self, key: &str, at_ms: i64) -> Result<(), RateLimitError> {
        let client = self.connection().await.map_err(store_error)?;
        // One row only: two attempts admitted in the same millisecond hold two slots.
        let statement = client
            .prepare_cached(
                "DELETE FROM rate_limit_events WHERE ctid = \
                 (SELECT ctid FROM rate_limit_events WHERE key = $1 AND at_ms = $2 LIMIT 1)",
            )
            .await
            .map_err(|e| store_error(unavailable(e)))?;
        client.execute(&statement, &[&key, &at_ms]).await.map_err(|e| store_error(unavailable(e)))?;
        Ok(())
    }

    async fn reset(&self, key: &str) -> Result<(), RateLimitError> {
        let client = self.connection().await.map_err(store_error)?;
        let statement = client
            .prepare_cached("DELETE FROM rate_limit_events WHERE key = $1")
            .await
            .map_err(|e| store_error(unavailable(e)))?;
        client.execute(&statement, &[&key]).await.map_err(|e| store_error(unavailable(e)))?;
        Ok(())
    }
}
