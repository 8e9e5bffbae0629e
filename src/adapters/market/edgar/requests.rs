//! How every request to SEC EDGAR is made ([`RateLimitedClient`]).
//!
//! SEC asks for a `User-Agent` naming the application and a contact e-mail and for at most ten
//! requests per second: every request carries [`EdgarSettings::user_agent`], and every attempt,
//! retries included, waits for its slot in a process-wide schedule of
//! [`EdgarSettings::max_requests_per_second`]. Connection failures, 429 and 5xx are retried with
//! exponential backoff (honouring a `Retry-After` in seconds, capped); a timeout is not retried
//! (every attempt gets the full timeout, and a slow SEC is as slow again).

use std::time::Duration;

use anyhow::{Context, bail};
use bytes::Bytes;
use reqwest::{StatusCode, Url};
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::{EdgarSettings, PROVIDER};
use crate::adapters::retry::{CONNECT_TIMEOUT_CAP, error_chain, retry_after};
use crate::ports::financial_data::FinancialDataError;

/// Longest provider error text kept in an error, in characters.
const BODY_EXCERPT_LIMIT: usize = 200;

/// An HTTP client that keeps SEC's request rate and retries transient failures.
#[derive(Debug)]
pub(super) struct RateLimitedClient {
    http: reqwest::Client,
    limiter: RateLimiter,
    max_attempts: u32,
    retry_base_delay: Duration,
}

impl RateLimitedClient {
    /// # Errors
    /// An empty or non-header-safe `user_agent`, a zero `max_requests_per_second`, or an HTTP client
    /// that cannot be built (TLS initialisation).
    pub(super) fn new(settings: &EdgarSettings) -> anyhow::Result<Self> {
        let user_agent = settings.user_agent.trim();
        if user_agent.is_empty() {
            bail!("invalid SEC_USER_AGENT: SEC requires a User-Agent naming the application and a contact e-mail");
        }
        if settings.max_requests_per_second == 0 {
            bail!("the SEC EDGAR request rate must be at least 1 request per second");
        }
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout.min(CONNECT_TIMEOUT_CAP))
            .user_agent(user_agent)
            .build()
            .context("cannot build the SEC EDGAR HTTP client (is SEC_USER_AGENT a valid header value?)")?;
        Ok(Self {
            http,
            limiter: RateLimiter::new(settings.max_requests_per_second),
            max_attempts: settings.max_attempts.max(1),
            retry_base_delay: settings.retry_base_delay,
        })
    }

    /// GET with rate limiting and retries: the body of a 2xx answer.
    pub(super) async fn get(&self, url: Url) -> Result<Bytes, Failure> {
        let mut attempts = 0;
        loop {
            attempts += 1;
            self.limiter.acquire().await;
            let failure = match self.attempt(url.clone()).await {
                Ok(body) => return Ok(body),
                Err(failure) => failure,
            };
            if attempts >= self.max_attempts || !failure.is_retryable() {
                return Err(failure.after(attempts));
            }
            let delay = self.backoff(attempts, failure.retry_after());
            tracing::warn!(
                url = %url,
                attempt = attempts,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                failure = %error_chain(&failure),
                "SEC EDGAR request failed; retrying"
            );
            tokio::time::sleep(delay).await;
        }
    }

    async fn attempt(&self, url: Url) -> Result<Bytes, Failure> {
        let response = self.http.get(url).send().await.map_err(Failure::transport)?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let body = response.bytes().await.map_err(Failure::transport)?;
        if status.is_success() {
            return Ok(body);
        }
        Err(Failure::Status { status, retry_after, excerpt: excerpt(&body), attempts: 1 })
    }

    /// `base · 2^(retry−1)`, or the server's `Retry-After`, capped at 20 × base.
    fn backoff(&self, retry: u32, hint: Option<Duration>) -> Duration {
        let cap = self.retry_base_delay.saturating_mul(20);
        let computed = self.retry_base_delay.saturating_mul(1 << retry.saturating_sub(1).min(16));
        hint.unwrap_or(computed).min(cap)
    }
}

/// Spaces request starts `1/N` s apart, across all callers: a request waits for the next free slot.
#[derive(Debug)]
struct RateLimiter {
    interval: Duration,
    next_slot: Mutex<Instant>,
}

impl RateLimiter {
    fn new(per_second: u32) -> Self {
        Self { interval: Duration::from_secs(1) / per_second.max(1), next_slot: Mutex::new(Instant::now()) }
    }

    async fn acquire(&self) {
        let slot = {
            let mut next = self.next_slot.lock().await;
            let slot = (*next).max(Instant::now());
            *next = slot + self.interval;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

/// What went wrong with a request.
#[derive(Debug, thiserror::Error)]
pub(super) enum Failure {
    #[error("no answer in time")]
    Timeout(#[source] reqwest::Error),
    #[error("cannot connect ({attempts} attempts)")]
    Connection {
        #[source]
        error: reqwest::Error,
        attempts: u32,
    },
    #[error("answered {status} ({attempts} attempts): {excerpt}")]
    Status { status: StatusCode, retry_after: Option<Duration>, excerpt: String, attempts: u32 },
}

impl Failure {
    fn transport(error: reqwest::Error) -> Self {
        if error.is_timeout() { Self::Timeout(error) } else { Self::Connection { error, attempts: 1 } }
    }

    fn after(self, total: u32) -> Self {
        match self {
            Self::Connection { error, .. } => Self::Connection { error, attempts: total },
            Self::Status { status, retry_after, excerpt, .. } => {
                Self::Status { status, retry_after, excerpt, attempts: total }
            }
            timeout @ Self::Timeout(_) => timeout,
        }
    }

    fn is_retryable(&self) -> bool {
        match self {
            Self::Timeout(_) => false,
            Self::Connection { .. } => true,
            Self::Status { status, .. } => *status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error(),
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    pub(super) fn into_error(self, url: &str) -> FinancialDataError {
        let hint = match &self {
            Self::Status { status: StatusCode::FORBIDDEN, .. } => {
                " (SEC refuses requests without a User-Agent naming the application and a contact e-mail, \
                 and clients above 10 requests/s)"
            }
            _ => "",
        };
        FinancialDataError::Unavailable {
            provider: PROVIDER,
            reason: format!("GET {url}: {}{hint}", error_chain(&self)),
        }
    }
}

fn excerpt(body: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(body).split_whitespace().collect::<Vec<_>>().join(" ");
    let text: String = text.chars().take(BODY_EXCERPT_LIMIT).collect();
    if text.is_empty() { "(empty body)".to_owned() } else { text }
}
