//! [`PriceHistory`](crate::ports::price_history::PriceHistory) adapters: [`YahooChart`] (keyless
//! default), [`AlphaVantage`] (when an API key is configured) and [`CsvMirrorPrices`] (a directory of
//! CSV files, for air-gapped deployments and the demo).
//!
//! The HTTP adapters share [`get_with_retries`] (the providers' common [`send_until_answered`]):
//! one `GET` per attempt with the configured timeout, retried with exponential backoff (and jitter, honouring a `Retry-After` in seconds up to a cap) on
//! 429, 5xx and connection failures. Timeouts are not retried: a provider too slow once is as slow
//! again, and each attempt would get the full timeout. Bodies that are HTML (bot challenges, error
//! pages served with 200) are recognised and reported as
//! [`PriceHistoryError::Unavailable`] naming the provider. Request URLs are never put in errors, as
//! Alpha Vantage's carries the key.

mod alpha_vantage;
mod cached;
mod csv_mirror;
mod yahoo;

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use reqwest::{StatusCode, Url};

use crate::adapters::retry::{
    FinalAnswer, NoAnswer, endpoint_url as base_url, error_chain, provider_client, send_until_answered,
};

use crate::domain::quant::market::{PricePoint, PriceSeries, TimeRange};
use crate::ports::price_history::{PriceHistoryError, trailing_for_range};

pub use alpha_vantage::{AlphaVantage, AlphaVantageSettings, DEFAULT_ALPHAVANTAGE_URL};
pub use cached::CachedPrices;
pub use csv_mirror::CsvMirrorPrices;
pub use yahoo::{DEFAULT_BROWSER_USER_AGENT, DEFAULT_YAHOO_CHART_URL, YahooChart, YahooSettings};

pub use crate::adapters::retry::RetryPolicy;

/// 3 attempts, waits of about 500 ms then 1 s, at most 5 s when the provider asks for more.
pub const DEFAULT_RETRY: RetryPolicy =
    RetryPolicy { max_attempts: 3, base_delay: Duration::from_millis(500), max_delay: Duration::from_secs(5) };

/// Builds the HTTP client of a price provider.
fn http_client(user_agent: &str, timeout: Duration) -> anyhow::Result<reqwest::Client> {
    provider_client("a price provider", user_agent, timeout)
}

/// A final answer of the provider: a 2xx, or a 4xx other than 429.
struct Answer {
    status: StatusCode,
    body: Bytes,
    is_html: bool,
}

/// `GET url` with retries. Returns the answer unless it is 429/5xx after all attempts, the provider
/// cannot be reached, or it does not answer within the client's timeout.
async fn get_with_retries(
    client: &reqwest::Client,
    url: &Url,
    retry: &RetryPolicy,
    provider: &'static str,
) -> Result<Answer, PriceHistoryError> {
    match send_until_answered(provider, "price provider", retry, || client.get(url.clone())).await {
        Ok(FinalAnswer { status, headers, body }) => {
            let is_html = headers
                .get(CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| value.to_ascii_lowercase().contains("html"))
                || looks_like_html(&body);
            Ok(Answer { status, body, is_html })
        }
        Err(NoAnswer::Transport { error, .. }) => Err(transport_error(provider, error)),
        Err(NoAnswer::Exhausted { failure, attempts, .. }) => {
            Err(PriceHistoryError::Unavailable { provider, reason: format!("{failure} ({attempts} attempts)") })
        }
    }
}

fn transport_error(provider: &'static str, error: reqwest::Error) -> PriceHistoryError {
    let reason = if error.is_timeout() {
        "no answer in time (timeout)".to_owned()
    } else {
        format!("request failed: {}", error_chain(&error.without_url()))
    };
    PriceHistoryError::Unavailable { provider, reason }
}

/// Whether a body is an HTML page rather than JSON or CSV.
fn looks_like_html(body: &[u8]) -> bool {
    let start = body.iter().position(|b| !b.is_ascii_whitespace()).map_or(&[][..], |i| &body[i..]);
    let head: Vec<u8> = start.iter().take(15).map(u8::to_ascii_lowercase).collect();
    head.starts_with(b"<!doctype html")
        || head.starts_with(b"<html")
        || head.starts_with(b"<head")
        || head.starts_with(b"<body")
        || head.starts_with(b"<!--")
        || head.starts_with(b"<?xml")
}

/// The series of `symbol` from a provider's `points`, trimmed to what `range` needs; no points, or
/// points that make no series, are [`PriceHistoryError::InvalidData`] naming `provider`.
fn series_for_range(
    provider: &'static str,
    symbol: &str,
    points: Vec<PricePoint>,
    range: TimeRange,
) -> Result<PriceSeries, PriceHistoryError> {
    let invalid = |reason| PriceHistoryError::InvalidData { provider, reason };
    if points.is_empty() {
        return Err(invalid(format!("no prices for {symbol}")));
    }
    let series = PriceSeries::new(symbol, points).map_err(|e| invalid(e.to_string()))?;
    Ok(trailing_for_range(series, range))
}

/// The first `limit` characters of a provider's text, for error messages.
fn excerpt(text: &str, limit: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= limit {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(limit).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_bodies_are_recognised() {
        assert!(looks_like_html(b"  <!DOCTYPE html><html>challenge</html>"));
        assert!(looks_like_html(b"<HTML><body>Just a moment...</body></HTML>"));
        assert!(!looks_like_html(b"{\"chart\":{}}"));
        assert!(!looks_like_html(b"Date,Close\n"));
        assert!(!looks_like_html(b""));
    }

    #[test]
    fn base_urls_must_be_http_without_credentials() {
        assert!(base_url("YAHOO_CHART_URL", "http://127.0.0.1:1/chart").is_ok());
        for bad in ["", "ftp://x/y", "https://user:pw@x/y", "localhost/chart"] {
            let error = base_url("YAHOO_CHART_URL", bad).expect_err(bad);
            assert!(error.to_string().contains("YAHOO_CHART_URL"), "{error}");
        }
    }
}
