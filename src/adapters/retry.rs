//! Retrying calls to external HTTP providers (language models, market data): one backoff policy
//! and one reader of the provider's wait hint, shared by every client adapter.

use std::time::Duration;

use rand::Rng;
use reqwest::header::HeaderMap;

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
