//! [`YahooChart`]: daily adjusted closes from Yahoo Finance's keyless, unofficial chart API
//! (`GET {YAHOO_CHART_URL}/{SYMBOL}?range=…&interval=1d`).
//!
//! Yahoo serves only browser-like clients reliably, hence the configurable User-Agent; when it
//! answers a challenge or consent page (HTML) the adapter reports the provider as unavailable.
//! Closes come from `indicators.adjclose[0].adjclose`; when Yahoo omits that array (it does for some
//! instruments) the unadjusted `indicators.quote[0].close` is used and a warning is logged. Null
//! entries (days without a price) are skipped. Timestamps (UTC seconds, usually the session open)
//! become dates in the exchange's time zone, shifted by `meta.gmtoffset`.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::Url;
use serde::Deserialize;
use time::{Date, OffsetDateTime};

use super::{RetryPolicy, base_url, excerpt, get_with_retries, http_client, series_for_range};
use crate::domain::quant::market::{PricePoint, PriceSeries, TimeRange};
use crate::ports::price_history::{PriceHistory, PriceHistoryError, normalize_symbol};

const PROVIDER: &str = "yahoo";

/// Yahoo's public chart endpoint.
pub const DEFAULT_YAHOO_CHART_URL: &str = "https://query1.finance.yahoo.com/v8/finance/chart";

/// A current desktop browser's User-Agent: Yahoo rejects or challenges obvious bots.
pub const DEFAULT_BROWSER_USER_AGENT: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// Configuration of [`YahooChart`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YahooSettings {
    /// Base of the chart API (`YAHOO_CHART_URL`); the symbol is appended as a path segment.
    pub chart_url: String,
    /// Sent on every request.
    pub user_agent: String,
    /// Limit on one attempt (connect, send, whole answer).
    pub timeout: Duration,
}

impl Default for YahooSettings {
    /// Yahoo's public endpoint, a browser User-Agent, 15 s per attempt.
    fn default() -> Self {
        Self {
            chart_url: DEFAULT_YAHOO_CHART_URL.to_owned(),
            user_agent: DEFAULT_BROWSER_USER_AGENT.to_owned(),
            timeout: Duration::from_secs(15),
        }
    }
}

/// The [`PriceHistory`] port over Yahoo's chart API.
#[derive(Clone, Debug)]
pub struct YahooChart {
    client: reqwest::Client,
    base: Url,
    retry: RetryPolicy,
}

impl YahooChart {
    /// A client for `settings`, with the default [`RetryPolicy`].
    ///
    /// # Errors
    /// A `chart_url` that is not an http(s) URL or holds credentials, a User-Agent that is not a
    /// valid header value, or an HTTP client that cannot be built.
    pub fn new(settings: &YahooSettings) -> anyhow::Result<Self> {
        let base = base_url("YAHOO_CHART_URL", &settings.chart_url)?;
        let client = http_client(&settings.user_agent, settings.timeout)?;
        Ok(Self { client, base, retry: super::DEFAULT_RETRY })
    }

    /// The same client with another retry policy.
    #[must_use]
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// `{base}/{symbol}?range=…&interval=1d&includeAdjustedClose=true`.
    fn chart_url(&self, symbol: &str, range: TimeRange) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().push(symbol);
        }
        url.query_pairs_mut()
            .append_pair("range", yahoo_range(range))
            .append_pair("interval", "1d")
            .append_pair("includeAdjustedClose", "true");
        url
    }
}

/// The shortest Yahoo range holding `range.window_prices()` trading days plus a margin for holidays
/// and alignment: each Yahoo period holds about as many trading days as our range, never one more,
/// so the next longer one is asked for.
fn yahoo_range(range: TimeRange) -> &'static str {
    match range {
        TimeRange::OneMonth => "3mo",
        TimeRange::ThreeMonths => "6mo",
        TimeRange::SixMonths => "1y",
        TimeRange::OneYear => "2y",
        TimeRange::FiveYears => "10y",
    }
}

#[async_trait]
impl PriceHistory for YahooChart {
    #[tracing::instrument(name = "prices.yahoo", skip(self), fields(provider = PROVIDER))]
    async fn daily_closes(&self, symbol: &str, range: TimeRange) -> Result<PriceSeries, PriceHistoryError> {
        let symbol = normalize_symbol(symbol)?;
        let answer = get_with_retries(&self.client, &self.chart_url(&symbol, range), &self.retry, PROVIDER).await?;
        if answer.is_html {
            return Err(PriceHistoryError::Unavailable {
                provider: PROVIDER,
                reason: format!(
                    "answered an HTML page (HTTP {}) instead of chart JSON: a bot challenge, consent or error page",
                    answer.status.as_u16()
                ),
            });
        }
        let envelope = match serde_json::from_slice::<Envelope>(&answer.body) {
            Ok(envelope) => envelope,
            Err(error) if answer.status.is_success() => {
                return Err(invalid(format!("the answer is not chart JSON: {error}")));
            }
            Err(_) => {
                return Err(PriceHistoryError::Unavailable {
                    provider: PROVIDER,
                    reason: format!(
                        "answered HTTP {}: {}",
                        answer.status.as_u16(),
                        excerpt(&String::from_utf8_lossy(&answer.body), 200)
                    ),
                });
            }
        };
        let chart = envelope.chart.unwrap_or_default();
        if let Some(error) = chart.error {
            let code = error.code.unwrap_or_default();
            if code.eq_ignore_ascii_case("Not Found") {
                return Err(PriceHistoryError::UnknownSymbol { symbol });
            }
            return Err(PriceHistoryError::Unavailable {
                provider: PROVIDER,
                reason: format!(
                    "answered HTTP {} with error {code:?}: {}",
                    answer.status.as_u16(),
                    excerpt(&error.description.unwrap_or_default(), 200)
                ),
            });
        }
        if !answer.status.is_success() {
            return Err(PriceHistoryError::Unavailable {
                provider: PROVIDER,
                reason: format!("answered HTTP {}", answer.status.as_u16()),
            });
        }
        let result = chart
            .result
            .and_then(|results| results.into_iter().next())
            .ok_or_else(|| invalid("the answer has no chart result".to_owned()))?;
        let points = chart_points(&symbol, result)?;
        series_for_range(PROVIDER, &symbol, points, range)
    }

    fn provider(&self) -> &'static str {
        PROVIDER
    }
}

fn invalid(reason: String) -> PriceHistoryError {
    PriceHistoryError::InvalidData { provider: PROVIDER, reason }
}

/// The dated closes of one chart result, nulls skipped; a date seen twice keeps its later entry
/// (Yahoo appends the live intraday point, which may fall on the last session's date).
fn chart_points(symbol: &str, result: ChartResult) -> Result<Vec<PricePoint>, PriceHistoryError> {
    let timestamps = result.timestamp.unwrap_or_default();
    let offset = result.meta.and_then(|meta| meta.gmtoffset).unwrap_or(0);
    let indicators = result.indicators.unwrap_or_default();
    let adjusted = indicators.adjclose.and_then(|series| series.into_iter().next()).and_then(|series| series.adjclose);
    let closes = match adjusted {
        Some(closes) => closes,
        None => {
            let closes = indicators
                .quote
                .and_then(|quotes| quotes.into_iter().next())
                .and_then(|quote| quote.close)
                .unwrap_or_default();
            if !timestamps.is_empty() {
                tracing::warn!(symbol, "Yahoo sent no adjusted closes: using unadjusted closes");
            }
            closes
        }
    };
    if closes.len() != timestamps.len() {
        return Err(invalid(format!("{} timestamps but {} closes", timestamps.len(), closes.len())));
    }
    let mut points: Vec<PricePoint> = Vec::with_capacity(timestamps.len());
    for (timestamp, close) in timestamps.into_iter().zip(closes) {
        let (Some(timestamp), Some(close)) = (timestamp, close) else { continue };
        let date = exchange_date(timestamp, offset)?;
        match points.last_mut() {
            Some(last) if last.date == date => last.close = close,
            _ => points.push(PricePoint { date, close }),
        }
    }
    Ok(points)
}

/// The exchange-local date of a UTC timestamp in seconds.
fn exchange_date(timestamp: i64, gmtoffset: i64) -> Result<Date, PriceHistoryError> {
    timestamp
        .checked_add(gmtoffset)
        .and_then(|local| OffsetDateTime::from_unix_timestamp(local).ok())
        .map(OffsetDateTime::date)
        .ok_or_else(|| invalid(format!("timestamp {timestamp} (offset {gmtoffset} s) is not a date")))
}

// ---- wire format: everything optional, Yahoo drops fields freely ----

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    chart: Option<Chart>,
}

#[derive(Default, Deserialize)]
struct Chart {
    #[serde(default)]
    result: Option<Vec<ChartResult>>,
    #[serde(default)]
    error: Option<ChartError>,
}

#[derive(Deserialize)]
struct ChartError {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Deserialize)]
struct ChartResult {
    #[serde(default)]
    meta: Option<Meta>,
    #[serde(default)]
    timestamp: Option<Vec<Option<i64>>>,
    #[serde(default)]
    indicators: Option<Indicators>,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(default)]
    gmtoffset: Option<i64>,
}

#[derive(Default, Deserialize)]
struct Indicators {
    #[serde(default)]
    quote: Option<Vec<Quote>>,
    #[serde(default)]
    adjclose: Option<Vec<AdjClose>>,
}

#[derive(Deserialize)]
struct Quote {
    #[serde(default)]
    close: Option<Vec<Option<f64>>>,
}

#[derive(Deserialize)]
struct AdjClose {
    #[serde(default)]
    adjclose: Option<Vec<Option<f64>>>,
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::json;
    use time::macros::date;

    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider, refused_url};
    use crate::adapters::retry::test_support::fast_retries;

    const AAPL: &str = include_str!("../fixtures/prices/yahoo_chart_aapl.json");
    const NO_ADJCLOSE: &str = include_str!("../fixtures/prices/yahoo_chart_no_adjclose.json");
    const NOT_FOUND: &str = include_str!("../fixtures/prices/yahoo_chart_not_found.json");
    const CHALLENGE: &str = include_str!("../fixtures/prices/yahoo_challenge.html");

    fn yahoo_at(url: String, timeout: Duration) -> YahooChart {
        let settings = YahooSettings { chart_url: url, timeout, ..YahooSettings::default() };
        YahooChart::new(&settings).expect("client").with_retry_policy(fast_retries())
    }

    fn yahoo(provider: &FakeProvider) -> YahooChart {
        yahoo_at(provider.url("/v8/finance/chart"), Duration::from_secs(5))
    }

    fn dated_closes(series: &PriceSeries) -> Vec<(Date, f64)> {
        series.points().iter().map(|p| (p.date, p.close)).collect()
    }

    /// A chart answer with `days` consecutive weekday sessions ending 2024-12-31, in New York.
    fn generated_chart(days: usize) -> String {
        let mut timestamps = Vec::new();
        let mut closes = Vec::new();
        let mut day = date!(2024 - 12 - 31);
        while timestamps.len() < days {
            if day.weekday().number_from_monday() <= 5 {
                let open = day.with_hms(14, 30, 0).expect("time").assume_utc().unix_timestamp();
                timestamps.push(open);
                closes.push(100.0 + (timestamps.len() % 17) as f64);
            }
            day = day.previous_day().expect("date");
        }
        timestamps.reverse();
        closes.reverse();
        json!({"chart": {"result": [{
            "meta": {"symbol": "SPY", "gmtoffset": -18000},
            "timestamp": timestamps,
            "indicators": {"quote": [{"close": closes}], "adjclose": [{"adjclose": closes}]}
        }], "error": null}})
        .to_string()
    }

    #[tokio::test]
    async fn yahoo_parses_adjusted_closes_skipping_nulls() {
        let provider = FakeProvider::start(vec![Answer::json(200, AAPL)]).await;

        let series = yahoo(&provider).daily_closes("aapl", TimeRange::ThreeMonths).await.expect("series");

        assert_eq!(series.symbol(), "AAPL");
        assert_eq!(
            dated_closes(&series),
            vec![
                (date!(2024 - 01 - 02), 184.73),
                (date!(2024 - 01 - 04), 180.83),
                (date!(2024 - 01 - 05), 180.29),
                (date!(2024 - 01 - 08), 184.65),
            ],
            "adjclose is used, its null day is absent although close has a value"
        );
        let received = provider.received();
        assert_eq!(received.len(), 1);
        assert_eq!(received[0].path, "/v8/finance/chart/AAPL");
        assert!(received[0].query.contains("range=6mo") && received[0].query.contains("interval=1d"));
    }

    #[tokio::test]
    async fn yahoo_sends_a_browser_user_agent() {
        let provider = FakeProvider::start(vec![Answer::json(200, AAPL)]).await;

        yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect("series");

        let user_agent = provider.received()[0].header("user-agent").map(str::to_owned).unwrap_or_default();
        assert_eq!(user_agent, DEFAULT_BROWSER_USER_AGENT);
        assert!(user_agent.starts_with("Mozilla/5.0"));
    }

    #[tokio::test]
    async fn yahoo_falls_back_to_unadjusted_closes_when_adjclose_is_absent() {
        let provider = FakeProvider::start(vec![Answer::json(200, NO_ADJCLOSE)]).await;

        let series = yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect("series");

        assert_eq!(
            dated_closes(&series),
            vec![
                (date!(2024 - 01 - 02), 185.64),
                (date!(2024 - 01 - 03), 184.25),
                (date!(2024 - 01 - 05), 181.18),
                (date!(2024 - 01 - 08), 185.56),
            ]
        );
    }

    #[tokio::test]
    async fn yahoo_dates_are_in_the_exchange_time_zone() {
        // 2024-01-03 23:00 UTC is 2024-01-04 08:00 in Tokyo (gmtoffset +9 h).
        let body = json!({"chart": {"result": [{
            "meta": {"symbol": "7203.T", "gmtoffset": 32400},
            "timestamp": [1704322800],
            "indicators": {"quote": [{"close": [2900.0]}], "adjclose": [{"adjclose": [2890.5]}]}
        }], "error": null}});
        let provider = FakeProvider::start(vec![Answer::json(200, body.to_string())]).await;

        let series = yahoo(&provider).daily_closes("7203.T", TimeRange::OneMonth).await.expect("series");

        assert_eq!(dated_closes(&series), vec![(date!(2024 - 01 - 04), 2890.5)]);
    }

    #[tokio::test]
    async fn yahoo_five_years_asks_for_ten_and_returns_the_window_plus_slack() {
        let provider = FakeProvider::start(vec![Answer::json(200, generated_chart(2520))]).await;

        let series = yahoo(&provider).daily_closes("SPY", TimeRange::FiveYears).await.expect("series");

        assert!(provider.received()[0].query.contains("range=10y"));
        assert_eq!(
            series.len(),
            TimeRange::FiveYears.window_prices() + crate::ports::price_history::ALIGNMENT_SLACK_PRICES
        );
        assert_eq!(series.window(TimeRange::FiveYears).len(), 1261);
        assert_eq!(series.points().last().map(|p| p.date), Some(date!(2024 - 12 - 31)));
    }

    #[tokio::test]
    async fn yahoo_not_found_is_an_unknown_symbol() {
        let provider = FakeProvider::start(vec![Answer::json(404, NOT_FOUND)]).await;

        let error = yahoo(&provider).daily_closes("NOPE", TimeRange::OneMonth).await.expect_err("unknown");

        assert_eq!(error, PriceHistoryError::UnknownSymbol { symbol: "NOPE".into() });
        assert_eq!(provider.received().len(), 1, "a 404 is not retried");
    }

    #[tokio::test]
    async fn yahoo_html_page_is_unavailable() {
        let provider = FakeProvider::start(vec![Answer::html(CHALLENGE)]).await;

        let error = yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect_err("html");

        assert!(
            matches!(error, PriceHistoryError::Unavailable { provider: "yahoo", ref reason } if reason.contains("HTML")),
            "{error:?}"
        );
    }

    #[tokio::test]
    async fn yahoo_html_served_as_json_is_still_recognised() {
        let provider = FakeProvider::start(vec![Answer::json(200, CHALLENGE)]).await;

        let error = yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect_err("html");

        assert!(matches!(error, PriceHistoryError::Unavailable { .. }), "{error:?}");
    }

    #[tokio::test]
    async fn yahoo_retries_a_503_then_succeeds() {
        let provider = FakeProvider::start(vec![Answer::json(503, "{}"), Answer::json(200, AAPL)]).await;

        let series = yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect("series");

        assert_eq!(series.len(), 4);
        assert_eq!(provider.received().len(), 2);
    }

    #[tokio::test]
    async fn yahoo_persistent_500_is_unavailable_naming_the_provider() {
        let provider = FakeProvider::start(vec![Answer::json(500, "{}")]).await;

        let error = yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect_err("down");

        assert!(matches!(error, PriceHistoryError::Unavailable { provider: "yahoo", .. }), "{error:?}");
        assert!(error.to_string().contains("yahoo") && error.to_string().contains("500"), "{error}");
        assert_eq!(provider.received().len(), 3);
    }

    #[tokio::test]
    async fn yahoo_persistent_429_is_unavailable_after_retries() {
        let provider = FakeProvider::start(vec![Answer::json(429, "Too Many Requests")]).await;

        let error = yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect_err("limited");

        assert!(
            matches!(error, PriceHistoryError::Unavailable { ref reason, .. } if reason.contains("429")),
            "{error:?}"
        );
        assert_eq!(provider.received().len(), 3);
    }

    #[tokio::test]
    async fn yahoo_timeout_is_unavailable_and_not_retried() {
        let provider = FakeProvider::start(vec![Answer::json(200, AAPL).delayed(Duration::from_secs(5))]).await;
        let client = yahoo_at(provider.url("/chart"), Duration::from_millis(200));
        let started = Instant::now();

        let error = client.daily_closes("AAPL", TimeRange::OneMonth).await.expect_err("timeout");

        assert!(
            matches!(error, PriceHistoryError::Unavailable { ref reason, .. } if reason.contains("timeout")),
            "{error:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(3));
        assert_eq!(provider.received().len(), 1);
    }

    #[tokio::test]
    async fn yahoo_unreachable_is_unavailable() {
        let client = yahoo_at(refused_url("/chart"), Duration::from_secs(2));

        let error = client.daily_closes("AAPL", TimeRange::OneMonth).await.expect_err("refused");

        assert!(
            matches!(error, PriceHistoryError::Unavailable { provider: "yahoo", ref reason } if reason.contains("unreachable")),
            "{error:?}"
        );
    }

    #[tokio::test]
    async fn yahoo_rejects_an_invalid_symbol_without_a_request() {
        let provider = FakeProvider::start(vec![Answer::json(200, AAPL)]).await;

        let error = yahoo(&provider).daily_closes("AAPL/../x", TimeRange::OneMonth).await.expect_err("invalid");

        assert!(matches!(error, PriceHistoryError::InvalidSymbol { .. }), "{error:?}");
        assert!(provider.received().is_empty());
    }

    #[tokio::test]
    async fn yahoo_unusable_answers_are_invalid_data() {
        for body in [
            "not json".to_owned(),
            json!({"chart": {"result": [], "error": null}}).to_string(),
            json!({"chart": {"result": [{"meta": {}, "indicators": {"quote": [{}]}}], "error": null}}).to_string(),
            json!({"chart": {"result": [{"timestamp": [1, 2], "indicators": {"adjclose": [{"adjclose": [1.0]}]}}]}})
                .to_string(),
            json!({"chart": {"result": [{"timestamp": [1704205800], "indicators": {"adjclose": [{"adjclose": [-1.0]}]}}]}})
                .to_string(),
        ] {
            let provider = FakeProvider::start(vec![Answer::json(200, body.clone())]).await;

            let error = yahoo(&provider).daily_closes("AAPL", TimeRange::OneMonth).await.expect_err("invalid");

            assert!(matches!(error, PriceHistoryError::InvalidData { provider: "yahoo", .. }), "{body}: {error:?}");
        }
    }

    #[test]
    fn yahoo_ranges_hold_more_than_the_window() {
        // Trading days per Yahoo period (≈ 21 per month) must exceed our window's prices.
        let trading_days = |period: &str| match period {
            "3mo" => 63,
            "6mo" => 126,
            "1y" => 252,
            "2y" => 504,
            "10y" => 2520,
            _ => 0,
        };
        for range in TimeRange::ALL {
            assert!(trading_days(yahoo_range(range)) > range.window_prices(), "{range}");
        }
    }
}
