//! [`CachedPrices`]: any price adapter behind the response cache, so that a symbol's closes are
//! fetched once per `PRICE_CACHE_TTL` rather than once per analysis (a company analysis reads the
//! company and the benchmark; a desk running ten analyses an hour reads SPY ten times otherwise).
//! Only series are cached: a failure is asked again next time, and a cache that cannot answer is
//! passed by, never an error.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use time::{Date, OffsetDateTime};

use crate::domain::quant::market::{PricePoint, PriceSeries, TimeRange};
use crate::ports::cache::ResponseCache;
use crate::ports::price_history::{PriceHistory, PriceHistoryError, normalize_symbol};

pub struct CachedPrices {
    inner: Arc<dyn PriceHistory>,
    cache: Arc<dyn ResponseCache>,
    ttl: Duration,
}

impl CachedPrices {
    pub fn new(inner: Arc<dyn PriceHistory>, cache: Arc<dyn ResponseCache>, ttl: Duration) -> Self {
        Self { inner, cache, ttl }
    }

    fn key(&self, symbol: &str, range: TimeRange) -> String {
        format!("prices:{}:{symbol}:{range}", self.inner.provider())
    }

    async fn cached(&self, key: &str) -> Option<PriceSeries> {
        let fresh_after = OffsetDateTime::now_utc() - self.ttl;
        let body = match self.cache.get(key, fresh_after).await {
            Ok(body) => body?,
            Err(error) => {
                tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "price cache unavailable");
                return None;
            }
        };
        let stored: StoredSeries = serde_json::from_slice(&body).ok()?;
        let points = stored
            .points
            .into_iter()
            .map(|p| {
                Date::parse(&p.date, time::macros::format_description!("[year]-[month]-[day]"))
                    .ok()
                    .map(|date| PricePoint { date, close: p.close })
            })
            .collect::<Option<Vec<_>>>()?;
        PriceSeries::new(&stored.symbol, points).ok()
    }
}

/// A series as [`PriceSeries`] serialises it.
#[derive(Deserialize)]
struct StoredSeries {
    symbol: String,
    points: Vec<StoredPoint>,
}

#[derive(Deserialize)]
struct StoredPoint {
    date: String,
    close: f64,
}

#[async_trait]
impl PriceHistory for CachedPrices {
    async fn daily_closes(&self, symbol: &str, range: TimeRange) -> Result<PriceSeries, PriceHistoryError> {
        let symbol = normalize_symbol(symbol)?;
        let key = self.key(&symbol, range);
        if let Some(series) = self.cached(&key).await {
            return Ok(series);
        }
        let series = self.inner.daily_closes(&symbol, range).await?;
        if let Ok(body) = serde_json::to_vec(&series)
            && let Err(error) = self.cache.put(&key, body, OffsetDateTime::now_utc()).await
        {
            tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "price cache unavailable");
        }
        Ok(series)
    }

    fn provider(&self) -> &'static str {
        self.inner.provider()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use time::macros::date;

    use super::*;
    use crate::adapters::memory::MemoryResponseCache;

    /// Counts its calls; fails for `FAIL`.
    #[derive(Default)]
    struct Counting(AtomicUsize);

    #[async_trait]
    impl PriceHistory for Counting {
        async fn daily_closes(&self, symbol: &str, _range: TimeRange) -> Result<PriceSeries, PriceHistoryError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            if symbol == "FAIL" {
                return Err(PriceHistoryError::Unavailable { provider: "counting", reason: "down".into() });
            }
            let points = vec![
                PricePoint { date: date!(2024 - 01 - 02), close: 100.5 },
                PricePoint { date: date!(2024 - 01 - 03), close: 101.25 },
            ];
            Ok(PriceSeries::new(symbol, points).expect("series"))
        }

        fn provider(&self) -> &'static str {
            "counting"
        }
    }

    #[tokio::test]
    async fn a_series_is_fetched_once_per_symbol_and_range_while_fresh_and_failures_are_not_kept() {
        let inner = Arc::new(Counting::default());
        let prices = CachedPrices::new(inner.clone(), Arc::new(MemoryResponseCache::new()), Duration::from_secs(600));
        let first = prices.daily_closes("spy", TimeRange::OneYear).await.expect("series");
        let again = prices.daily_closes("SPY", TimeRange::OneYear).await.expect("series");
        assert_eq!(first, again, "the cached series is the same series");
        assert_eq!(inner.0.load(Ordering::SeqCst), 1);
        prices.daily_closes("SPY", TimeRange::OneMonth).await.expect("series");
        assert_eq!(inner.0.load(Ordering::SeqCst), 2, "another range is another request");
        for _ in 0..2 {
            assert!(prices.daily_closes("FAIL", TimeRange::OneYear).await.is_err());
        }
        assert_eq!(inner.0.load(Ordering::SeqCst), 4, "a failure is asked again");

        let expired = CachedPrices::new(inner.clone(), Arc::new(MemoryResponseCache::new()), Duration::ZERO);
        expired.daily_closes("SPY", TimeRange::OneYear).await.expect("series");
        expired.daily_closes("SPY", TimeRange::OneYear).await.expect("series");
        assert_eq!(inner.0.load(Ordering::SeqCst), 6, "a TTL of zero caches nothing");
    }
}
