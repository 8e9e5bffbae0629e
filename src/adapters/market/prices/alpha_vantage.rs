//! [`AlphaVantage`]: daily closes from Alpha Vantage's time-series API (used when
//! `ALPHAVANTAGE_API_KEY` is set).
//!
//! `GET {ALPHAVANTAGE_URL}?function=TIME_SERIES_DAILY_ADJUSTED&symbol=…&outputsize=…&apikey=…`;
//! each day's `5. adjusted close` is taken, `4. close` when a day has none. The adjusted series is a
//! premium endpoint for free keys: when Alpha Vantage answers so, the adapter asks once more with
//! `TIME_SERIES_DAILY` and uses its unadjusted `4. close` (with a warning in the log). `outputsize`
//! is `compact` (the last 100 days) when that covers the range, `full` otherwise.
//!
//! Alpha Vantage reports errors with HTTP 200: `Error Message` for an unknown symbol (or a rejected
//! key, which is told apart by its text), `Note` / `Information` for rate limits and premium-only
//! features. The key travels in the query string, so request URLs are never logged or put in errors
//! and provider texts are scrubbed of it.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::Url;
use serde_json::{Map, Value};
use time::Date;
use time::macros::format_description;

use super::{RetryPolicy, base_url, excerpt, get_with_retries, http_client, series_for_range};
use crate::config::Secret;
use crate::domain::quant::market::{PricePoint, PriceSeries, TimeRange};
use crate::ports::price_history::{ALIGNMENT_SLACK_PRICES, PriceHistory, PriceHistoryError, normalize_symbol};

const PROVIDER: &str = "alpha-vantage";

/// Alpha Vantage's public endpoint.
pub const DEFAULT_ALPHAVANTAGE_URL: &str = "https://www.alphavantage.co/query";

/// Days in a `compact` answer.
const COMPACT_DAYS: usize = 100;

const ADJUSTED: &str = "TIME_SERIES_DAILY_ADJUSTED";
const UNADJUSTED: &str = "TIME_SERIES_DAILY";
const TIME_SERIES_KEY: &str = "Time Series (Daily)";

/// Configuration of [`AlphaVantage`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaVantageSettings {
    /// The query endpoint (`ALPHAVANTAGE_URL`).
    pub base_url: String,
    /// `ALPHAVANTAGE_API_KEY`; never logged nor put into an error.
    pub api_key: Secret,
    /// Limit on one attempt (connect, send, whole answer).
    pub timeout: Duration,
}

impl AlphaVantageSettings {
    /// The public endpoint with `api_key` and 20 s per attempt.
    pub fn with_key(api_key: Secret) -> Self {
        Self { base_url: DEFAULT_ALPHAVANTAGE_URL.to_owned(), api_key, timeout: Duration::from_secs(20) }
    }
}

/// The [`PriceHistory`] port over Alpha Vantage.
#[derive(Clone, Debug)]
pub struct AlphaVantage {
    client: reqwest::Client,
    base: Url,
    api_key: Secret,
    retry: RetryPolicy,
}

impl AlphaVantage {
    /// A client for `settings`, with the default [`RetryPolicy`].
    ///
    /// # Errors
    /// A `base_url` that is not an http(s) URL or holds credentials, an empty key, or an HTTP client
    /// that cannot be built.
    pub fn new(settings: &AlphaVantageSettings) -> anyhow::Result<Self> {
        let base = base_url("ALPHAVANTAGE_URL", &settings.base_url)?;
        if settings.api_key.expose().trim().is_empty() {
            anyhow::bail!("invalid ALPHAVANTAGE_API_KEY: must not be empty");
        }
        let client = http_client(concat!("creditflow/", env!("CARGO_PKG_VERSION")), settings.timeout)?;
        Ok(Self { client, base, api_key: settings.api_key.clone(), retry: super::DEFAULT_RETRY })
    }

    /// The same client with another retry policy.
    #[must_use]
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    fn query_url(&self, function: &str, symbol: &str, range: TimeRange) -> Url {
        let outputsize =
            if range.window_prices() + ALIGNMENT_SLACK_PRICES <= COMPACT_DAYS { "compact" } else { "full" };
        let mut url = self.base.clone();
        url.query_pairs_mut()
            .append_pair("function", function)
            .append_pair("symbol", symbol)
            .append_pair("outputsize", outputsize)
            .append_pair("datatype", "json")
            .append_pair("apikey", self.api_key.expose());
        url
    }

    /// Provider text fit for an error: short, without the key.
    fn scrub(&self, text: &str) -> String {
        excerpt(&text.replace(self.api_key.expose(), "[redacted]"), 300)
    }

    /// One function's answer: `Ok(None)` when it is premium-only for this key.
    async fn fetch(
        &self,
        function: &str,
        symbol: &str,
        range: TimeRange,
    ) -> Result<Option<Vec<PricePoint>>, PriceHistoryError> {
        let answer =
            get_with_retries(&self.client, &self.query_url(function, symbol, range), &self.retry, PROVIDER).await?;
        if answer.is_html {
            return Err(unavailable(format!(
                "answered an HTML page (HTTP {}) instead of JSON: a challenge or error page",
                answer.status.as_u16()
            )));
        }
        if !answer.status.is_success() {
            let body = String::from_utf8_lossy(&answer.body);
            return Err(unavailable(format!("answered HTTP {}: {}", answer.status.as_u16(), self.scrub(&body))));
        }
        let body: Value =
            serde_json::from_slice(&answer.body).map_err(|e| invalid(format!("the answer is not JSON: {e}")))?;
        let Value::Object(body) = body else {
            return Err(invalid("the answer is not a JSON object".to_owned()));
        };
        if let Some(message) = body.get("Error Message") {
            let message = message.as_str().unwrap_or_default();
            if message.to_ascii_lowercase().contains("apikey") {
                return Err(unavailable(format!("rejected the API key: {}", self.scrub(message))));
            }
            return Err(PriceHistoryError::UnknownSymbol { symbol: symbol.to_owned() });
        }
        if let Some(note) = body.get("Note") {
            let note = note.as_str().unwrap_or_default();
            return Err(unavailable(format!("rate limited: {}", self.scrub(note))));
        }
        if let Some(information) = body.get("Information") {
            let information = information.as_str().unwrap_or_default();
            if information.to_ascii_lowercase().contains("premium endpoint") {
                return Ok(None);
            }
            return Err(unavailable(format!("rate limited or refused: {}", self.scrub(information))));
        }
        let series = body
            .get(TIME_SERIES_KEY)
            .and_then(Value::as_object)
            .ok_or_else(|| invalid(format!("the answer has no '{TIME_SERIES_KEY}' object")))?;
        daily_points(series).map(Some)
    }
}

#[async_trait]
impl PriceHistory for AlphaVantage {
    #[tracing::instrument(name = "prices.alpha_vantage", skip(self), fields(provider = PROVIDER))]
    async fn daily_closes(&self, symbol: &str, range: TimeRange) -> Result<PriceSeries, PriceHistoryError> {
        let symbol = normalize_symbol(symbol)?;
        let points = match self.fetch(ADJUSTED, &symbol, range).await? {
            Some(points) => points,
            None => {
                tracing::warn!(%symbol, "adjusted daily series is premium for this key: using unadjusted closes");
                self.fetch(UNADJUSTED, &symbol, range)
                    .await?
                    .ok_or_else(|| unavailable("both daily series are premium endpoints for this API key".to_owned()))?
            }
        };
        series_for_range(PROVIDER, &symbol, points, range)
    }

    fn provider(&self) -> &'static str {
        PROVIDER
    }
}

fn unavailable(reason: String) -> PriceHistoryError {
    PriceHistoryError::Unavailable { provider: PROVIDER, reason }
}

fn invalid(reason: String) -> PriceHistoryError {
    PriceHistoryError::InvalidData { provider: PROVIDER, reason }
}

/// `{"2024-01-02": {"4. close": "…", "5. adjusted close": "…"}, …}` → points, adjusted close first.
fn daily_points(series: &Map<String, Value>) -> Result<Vec<PricePoint>, PriceHistoryError> {
    let format = format_description!("[year]-[month]-[day]");
    series
        .iter()
        .map(|(day, fields)| {
            let date =
                Date::parse(day, format).map_err(|_| invalid(format!("'{}' is not a date", excerpt(day, 20))))?;
            let close = fields
                .get("5. adjusted close")
                .or_else(|| fields.get("4. close"))
                .ok_or_else(|| invalid(format!("{day} has no close")))?;
            let close = match close {
                Value::String(text) => text.trim().parse::<f64>().ok(),
                Value::Number(number) => number.as_f64(),
                _ => None,
            }
            .ok_or_else(|| invalid(format!("{day}: close {} is not a number", excerpt(&close.to_string(), 30))))?;
            Ok(PricePoint { date, close })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider, refused_url};
    use crate::adapters::retry::test_support::fast_retries;

    const KEY: &str = "AVKEY-0123456789-SECRET";
    const ADJUSTED_IBM: &str = include_str!("../fixtures/prices/alphavantage_daily_adjusted_ibm.json");
    const DAILY_IBM: &str = include_str!("../fixtures/prices/alphavantage_daily_ibm.json");
    const ERROR_MESSAGE: &str = include_str!("../fixtures/prices/alphavantage_error_message.json");
    const NOTE: &str = include_str!("../fixtures/prices/alphavantage_note.json");
    const RATE_LIMIT_INFORMATION: &str = include_str!("../fixtures/prices/alphavantage_information_rate_limit.json");
    const PREMIUM_INFORMATION: &str = include_str!("../fixtures/prices/alphavantage_information_premium.json");

    fn alpha_vantage_at(url: String) -> AlphaVantage {
        let settings = AlphaVantageSettings { base_url: url, ..AlphaVantageSettings::with_key(Secret::new(KEY)) };
        AlphaVantage::new(&settings).expect("client").with_retry_policy(fast_retries())
    }

    fn alpha_vantage(provider: &FakeProvider) -> AlphaVantage {
        alpha_vantage_at(provider.url("/query"))
    }

    fn assert_no_key(error: &PriceHistoryError) {
        for text in [error.to_string(), format!("{error:?}")] {
            assert!(!text.contains(KEY), "{text}");
        }
    }

    #[tokio::test]
    async fn alpha_vantage_parses_adjusted_closes_sorted_by_date() {
        let provider = FakeProvider::start(vec![Answer::json(200, ADJUSTED_IBM)]).await;

        let series = alpha_vantage(&provider).daily_closes("ibm", TimeRange::OneMonth).await.expect("series");

        let closes: Vec<(Date, f64)> = series.points().iter().map(|p| (p.date, p.close)).collect();
        assert_eq!(
            closes,
            vec![
                (date!(2024 - 01 - 02), 157.5804),
                (date!(2024 - 01 - 03), 156.2143),
                (date!(2024 - 01 - 04), 157.6682),
                (date!(2024 - 01 - 05), 155.2972),
                (date!(2024 - 01 - 08), 157.2291),
            ]
        );
        let received = provider.received();
        assert_eq!(received.len(), 1);
        let query = &received[0].query;
        for part in
            ["function=TIME_SERIES_DAILY_ADJUSTED", "symbol=IBM", "outputsize=compact", &format!("apikey={KEY}")]
        {
            assert!(query.contains(part), "{query} lacks {part}");
        }
    }

    #[tokio::test]
    async fn alpha_vantage_asks_for_the_full_history_for_long_ranges() {
        let provider = FakeProvider::start(vec![Answer::json(200, ADJUSTED_IBM)]).await;

        alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneYear).await.expect("series");

        assert!(provider.received()[0].query.contains("outputsize=full"));
    }

    #[tokio::test]
    async fn alpha_vantage_premium_adjusted_series_falls_back_to_daily_closes() {
        let provider =
            FakeProvider::start(vec![Answer::json(200, PREMIUM_INFORMATION), Answer::json(200, DAILY_IBM)]).await;

        let series = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect("series");

        assert_eq!(series.points().iter().map(|p| p.close).collect::<Vec<_>>(), vec![160.10, 161.59, 159.16]);
        let received = provider.received();
        assert_eq!(received.len(), 2);
        assert!(received[1].query.contains("function=TIME_SERIES_DAILY&"), "{}", received[1].query);
    }

    #[tokio::test]
    async fn alpha_vantage_premium_everywhere_is_unavailable() {
        let provider = FakeProvider::start(vec![Answer::json(200, PREMIUM_INFORMATION)]).await;

        let error = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect_err("premium");

        assert!(
            matches!(error, PriceHistoryError::Unavailable { provider: "alpha-vantage", ref reason } if reason.contains("premium")),
            "{error:?}"
        );
    }

    #[tokio::test]
    async fn alpha_vantage_error_message_is_an_unknown_symbol() {
        let provider = FakeProvider::start(vec![Answer::json(200, ERROR_MESSAGE)]).await;

        let error = alpha_vantage(&provider).daily_closes("NOPE", TimeRange::OneMonth).await.expect_err("unknown");

        assert_eq!(error, PriceHistoryError::UnknownSymbol { symbol: "NOPE".into() });
    }

    #[tokio::test]
    async fn alpha_vantage_rejected_key_is_unavailable_without_the_key() {
        let body = serde_json::json!({"Error Message": format!("the parameter apikey is invalid or missing: {KEY}")});
        let provider = FakeProvider::start(vec![Answer::json(200, body.to_string())]).await;

        let error = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect_err("bad key");

        assert!(
            matches!(error, PriceHistoryError::Unavailable { ref reason, .. } if reason.contains("API key")),
            "{error:?}"
        );
        assert_no_key(&error);
    }

    #[tokio::test]
    async fn alpha_vantage_note_and_rate_limit_information_are_unavailable() {
        for body in [NOTE, RATE_LIMIT_INFORMATION] {
            let provider = FakeProvider::start(vec![Answer::json(200, body)]).await;

            let error = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect_err("limited");

            assert!(matches!(error, PriceHistoryError::Unavailable { provider: "alpha-vantage", .. }), "{error:?}");
            assert!(error.to_string().contains("rate limit"), "{error}");
            assert_eq!(provider.received().len(), 1, "a rate-limit answer is not hammered");
        }
    }

    #[tokio::test]
    async fn alpha_vantage_html_body_is_unavailable() {
        let provider = FakeProvider::start(vec![Answer::html("<html><body>Bad gateway</body></html>")]).await;

        let error = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect_err("html");

        assert!(
            matches!(error, PriceHistoryError::Unavailable { ref reason, .. } if reason.contains("HTML")),
            "{error:?}"
        );
    }

    #[tokio::test]
    async fn alpha_vantage_persistent_500_is_unavailable_and_never_shows_the_key() {
        let provider = FakeProvider::start(vec![Answer::json(500, format!("internal error for apikey={KEY}"))]).await;

        let error = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect_err("down");

        assert!(matches!(error, PriceHistoryError::Unavailable { provider: "alpha-vantage", .. }), "{error:?}");
        assert_eq!(provider.received().len(), 3);
        assert_no_key(&error);
    }

    #[tokio::test]
    async fn alpha_vantage_retries_a_503_then_succeeds() {
        let provider = FakeProvider::start(vec![Answer::json(503, "{}"), Answer::json(200, ADJUSTED_IBM)]).await;

        let series = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect("series");

        assert_eq!(series.len(), 5);
        assert_eq!(provider.received().len(), 2);
    }

    #[tokio::test]
    async fn alpha_vantage_unreachable_and_timeout_errors_never_show_the_key() {
        let error = alpha_vantage_at(refused_url("/query"))
            .daily_closes("IBM", TimeRange::OneMonth)
            .await
            .expect_err("refused");
        assert!(matches!(error, PriceHistoryError::Unavailable { .. }), "{error:?}");
        assert_no_key(&error);

        let provider = FakeProvider::start(vec![Answer::json(200, ADJUSTED_IBM).delayed(Duration::from_secs(5))]).await;
        let settings = AlphaVantageSettings {
            base_url: provider.url("/query"),
            timeout: Duration::from_millis(200),
            ..AlphaVantageSettings::with_key(Secret::new(KEY))
        };
        let client = AlphaVantage::new(&settings).expect("client").with_retry_policy(fast_retries());
        let error = client.daily_closes("IBM", TimeRange::OneMonth).await.expect_err("timeout");
        assert!(
            matches!(error, PriceHistoryError::Unavailable { ref reason, .. } if reason.contains("timeout")),
            "{error:?}"
        );
        assert_no_key(&error);
    }

    #[tokio::test]
    async fn alpha_vantage_rejects_an_invalid_symbol_without_a_request() {
        let provider = FakeProvider::start(vec![Answer::json(200, ADJUSTED_IBM)]).await;

        let error = alpha_vantage(&provider).daily_closes("IBM&apikey=x", TimeRange::OneMonth).await.expect_err("bad");

        assert!(matches!(error, PriceHistoryError::InvalidSymbol { .. }), "{error:?}");
        assert!(provider.received().is_empty());
    }

    #[tokio::test]
    async fn alpha_vantage_unusable_answers_are_invalid_data() {
        for body in [
            "[]".to_owned(),
            serde_json::json!({"Meta Data": {}}).to_string(),
            serde_json::json!({TIME_SERIES_KEY: {"2024-13-01": {"4. close": "1"}}}).to_string(),
            serde_json::json!({TIME_SERIES_KEY: {"2024-01-02": {"4. close": "n/a"}}}).to_string(),
            serde_json::json!({TIME_SERIES_KEY: {}}).to_string(),
        ] {
            let provider = FakeProvider::start(vec![Answer::json(200, body.clone())]).await;

            let error = alpha_vantage(&provider).daily_closes("IBM", TimeRange::OneMonth).await.expect_err("invalid");

            assert!(
                matches!(error, PriceHistoryError::InvalidData { provider: "alpha-vantage", .. }),
                "{body}: {error:?}"
            );
        }
    }

    #[test]
    fn alpha_vantage_debug_output_hides_the_key() {
        let settings = AlphaVantageSettings::with_key(Secret::new(KEY));
        let client = AlphaVantage::new(&settings).expect("client");
        assert!(!format!("{settings:?}{client:?}").contains(KEY));
        assert!(AlphaVantage::new(&AlphaVantageSettings::with_key(Secret::new(" "))).is_err());
    }
}
