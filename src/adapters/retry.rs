//! What every client adapter of an external HTTP provider (language models, market data, web
//! search, page fetching) shares: one backoff policy, one reader of the provider's wait hint, the
//! configured-endpoint check, the client builder and the error-chain text used in messages; and
//! the request loop of the providers that retry alike ([`send_until_answered`]: web search, prices).

use std::time::Duration;

use anyhow::{anyhow, bail};
use bytes::Bytes;
use rand::Rng;
use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, StatusCode, Url};

/// Longest wait for a TCP/TLS connection, whatever the whole request may take.
pub const CONNECT_TIMEOUT_CAP: Duration = Duration::from_secs(10);

/// A provider's HTTP client: `timeout` limits each attempt as a whole; `what` names the provider in
/// the error.
///
/// # Errors
/// When the TLS backend cannot be initialised.
pub fn provider_client(what: &str, user_agent: &str, timeout: Duration) -> anyhow::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(CONNECT_TIMEOUT_CAP))
        .user_agent(user_agent)
        .build()
        .map_err(|e| anyhow!("cannot build the HTTP client of {what}: {}", error_chain(&e.without_url())))
}

/// Parses a configured endpoint (http or https, no credentials); `variable` names it in errors,
/// which never echo a password.
///
/// # Errors
/// When `raw` is not such a URL.
pub fn endpoint_url(variable: &str, raw: &str) -> anyhow::Result<Url> {
    let url = Url::parse(raw.trim()).map_err(|e| anyhow!("invalid {variable}: '{raw}' is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        bail!("invalid {variable}: '{raw}' is not an http(s) URL");
    }
    if !url.username().is_empty() || url.password().is_some() {
        bail!("invalid {variable}: must not contain credentials");
    }
    Ok(url)
}

/// An error and its causes, `: `-separated (reqwest hides the cause, e.g. "connection refused").
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// How transient failures (429, 5xx, connection errors) are retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first one included (1: never retry).
    pub max_attempts: u32,
    /// Wait before the first retry; doubles for each further one (with up to half taken off at random).
    pub base_delay: Duration,
    /// Cap on any wait, a provider's `Retry-After` included.
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1 = the first retry): the provider's hint when it gave
    /// one, else `base_delay · 2^(retry-1)` with up to half of it taken off at random (so clients
    /// that failed together do not retry together); never more than `max_delay`.
    pub fn delay(&self, retry: u32, hint: Option<Duration>) -> Duration {
        if let Some(hint) = hint {
            return hint.min(self.max_delay);
        }
        let exponent = retry.saturating_sub(1).min(16);
        let full = self.base_delay.saturating_mul(1 << exponent).min(self.max_delay);
        let jitter = full / 2;
        let taken_off =
            if jitter.is_zero() { Duration::ZERO } else { rand::rng().random_range(Duration::ZERO..jitter) };
        full - taken_off
    }
}

/// The provider's wait hint: `retry-after-ms` (OpenAI), else `Retry-After` in (possibly
/// fractional) seconds. The HTTP-date form is ignored: the backoff applies instead.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim);
    let seconds = |raw: &str, scale: f64| {
        raw.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .and_then(|n| Duration::try_from_secs_f64(n * scale).ok())
    };
    header("retry-after-ms")
        .and_then(|raw| seconds(raw, 0.001))
        .or_else(|| header("retry-after").and_then(|raw| seconds(raw, 1.0)))
}

/// A provider's final answer: a 2xx, or a 4xx other than 429.
#[derive(Debug)]
pub struct FinalAnswer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// Why [`send_until_answered`] got no final answer.
#[derive(Debug)]
pub enum NoAnswer {
    /// A transport error that is not retried, on attempt number `attempt`: no answer in time, or an
    /// answer whose body could not be read.
    Transport { error: reqwest::Error, attempt: u32 },
    /// Every attempt failed in a way worth retrying: `failure` says how the last one did, and
    /// `status` is its status when it answered (429 or 5xx).
    Exhausted { failure: String, status: Option<StatusCode>, attempts: u32 },
}

/// Sends the request `build` makes, once per attempt, until the provider gives a final answer.
/// 429, 5xx and connection failures (refused, reset, DNS) are retried as `retry` says, honouring the
/// provider's wait hint; a timeout is not (a provider too slow once is as slow again, and every
/// attempt gets the client's full timeout). Each retry is logged as a warning with `provider`, its
/// message starting with `requests` (`"search"`: "search request failed; retrying").
///
/// # Errors
/// [`NoAnswer`] when no attempt got a final answer.
pub async fn send_until_answered(
    provider: &'static str,
    requests: &str,
    retry: &RetryPolicy,
    build: impl Fn() -> RequestBuilder,
) -> Result<FinalAnswer, NoAnswer> {
    let max_attempts = retry.max_attempts.max(1);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let (failure, status, hint) = match build().send().await {
            Ok(response) => {
                let status = response.status();
                let headers = response.headers().clone();
                let hint = retry_after(&headers);
                let body = response.bytes().await.map_err(|error| NoAnswer::Transport { error, attempt })?;
                if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
                    (format!("answered HTTP {}", status.as_u16()), Some(status), hint)
                } else {
                    return Ok(FinalAnswer { status, headers, body });
                }
            }
            Err(error) if error.is_timeout() => return Err(NoAnswer::Transport { error, attempt }),
            // Refused, reset, DNS: worth another attempt.
            Err(error) => (format!("unreachable: {}", error_chain(&error.without_url())), None, None),
        };
        if attempt >= max_attempts {
            return Err(NoAnswer::Exhausted { failure, status, attempts: attempt });
        }
        let delay = retry.delay(attempt, hint);
        tracing::warn!(
            provider,
            attempt,
            delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            failure = %failure,
            "{requests} request failed; retrying"
        );
        tokio::time::sleep(delay).await;
    }
}

/// What the provider adapters' tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use std::time::Duration;

    use super::RetryPolicy;

    /// Retries that take milliseconds, so that a 429 or a 5xx costs a test nothing.
    pub(crate) fn fast_retries() -> RetryPolicy {
        RetryPolicy { max_attempts: 3, base_delay: Duration::from_millis(1), max_delay: Duration::from_millis(20) }
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_respects_the_cap() {
        let policy = RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(300),
        };
        for _ in 0..50 {
            let first = policy.delay(1, None);
            assert!(first > Duration::from_millis(50) && first <= Duration::from_millis(100), "{first:?}");
            let second = policy.delay(2, None);
            assert!(second > Duration::from_millis(100) && second <= Duration::from_millis(200), "{second:?}");
            assert!(policy.delay(10, None) <= Duration::from_millis(300));
        }
        assert_eq!(policy.delay(1, Some(Duration::from_millis(20))), Duration::from_millis(20));
        assert_eq!(policy.delay(1, Some(Duration::from_secs(60))), Duration::from_millis(300));
    }

    #[test]
    fn wait_hints_are_read_in_milliseconds_or_seconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("1.5"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        headers.remove("retry-after-ms");
        headers.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2026 07:28:00 GMT"));
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("-3"));
        assert_eq!(retry_after(&headers), None);
    }
}
