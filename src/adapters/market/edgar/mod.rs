//! [`EdgarClient`]: the [`FinancialData`] port over SEC EDGAR's keyless JSON APIs (DOMAIN.md §3), and
//! the pure SEC-format parsing both SEC adapters share ([`TickerIndex`], [`statements_from_facts`]).
//!
//! - Company resolution reads `company_tickers.json` (`{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},…}`)
//!   once and keeps it in memory for [`EdgarSettings::tickers_ttl`].
//! - Statements read `companyfacts/CIK##########.json` and keep, per fiscal year and per fiscal
//!   quarter, one fact per line.
//!
//! The parts:
//! - `requests`: how every request reaches SEC: the User-Agent, the process-wide rate limit,
//!   retries with backoff, and what a failed request becomes.
//! - `companies`: the ticker list and how a query finds a company in it ([`TickerIndex`]).
//! - `facts`: which XBRL facts are read and which one a fiscal year or quarter takes (the period
//!   selection rules of DOMAIN.md §3).
//! - `statements`: the statements, with provenance, made of the chosen facts
//!   ([`statements_from_facts`]).

mod companies;
mod facts;
mod requests;
mod statements;

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use async_trait::async_trait;
use reqwest::{StatusCode, Url};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::ports::cache::ResponseCache;
use crate::ports::financial_data::{
    CompanyQuery, CompanyStatements, FinancialData, FinancialDataError, ResolvedCompany,
};
use requests::{Failure, RateLimitedClient};

pub use companies::{TickerIndex, normalise_company_name};
pub use statements::{annual_statements_from_facts, statements_from_facts};

/// The provider name errors carry.
pub const PROVIDER: &str = "SEC EDGAR";
/// SEC's ticker → CIK file.
pub const DEFAULT_TICKERS_URL: &str = "https://www.sec.gov/files/company_tickers.json";
/// SEC's company-facts API; files are `{base}/CIK##########.json`.
pub const DEFAULT_FACTS_BASE_URL: &str = "https://data.sec.gov/api/xbrl/companyfacts";

/// How to reach SEC EDGAR. No environment is read here: configuration builds this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgarSettings {
    /// `company_tickers.json` URL (`SEC_TICKERS_URL`).
    pub tickers_url: String,
    /// Base of the company-facts files, without the file name (`SEC_EDGAR_BASE_URL`).
    pub facts_base_url: String,
    /// Sent on every request; SEC wants the application name and a contact e-mail (`SEC_USER_AGENT`).
    pub user_agent: String,
    /// Limit on each attempt (connect, send and read the whole body).
    pub timeout: Duration,
    /// Most requests started per second across all calls of one client (SEC allows 10).
    pub max_requests_per_second: u32,
    /// Attempts per request in all, the first one included (1: never retry).
    pub max_attempts: u32,
    /// Wait before the first retry; doubles for each further one. Also the cap's unit: no wait
    /// exceeds 20 × this (a `Retry-After` included).
    pub retry_base_delay: Duration,
    /// How long the ticker list is kept in memory before it is fetched again.
    pub tickers_ttl: Duration,
}

impl EdgarSettings {
    /// SEC's public URLs, a 30 s timeout, 10 requests/s, 3 attempts from 500 ms, the ticker list
    /// kept for a day.
    pub fn new(user_agent: impl Into<String>) -> Self {
        Self {
            tickers_url: DEFAULT_TICKERS_URL.to_owned(),
            facts_base_url: DEFAULT_FACTS_BASE_URL.to_owned(),
            user_agent: user_agent.into(),
            timeout: Duration::from_secs(30),
            max_requests_per_second: 10,
            max_attempts: 3,
            retry_base_delay: Duration::from_millis(500),
            tickers_ttl: Duration::from_secs(24 * 60 * 60),
        }
    }
}

/// SEC EDGAR client implementing [`FinancialData`]. Cheap to share behind an `Arc`; one instance
/// per process keeps the rate limit process-wide.
#[derive(Debug)]
pub struct EdgarClient {
    http: RateLimitedClient,
    tickers_url: Url,
    facts_base_url: String,
    tickers_ttl: Duration,
    tickers: Mutex<Option<CachedTickers>>,
    /// Company facts kept in the store, and for how long.
    facts_cache: Option<FactsCache>,
}

/// The store that keeps company facts, and for how long.
struct FactsCache(Arc<dyn ResponseCache>, Duration);

impl std::fmt::Debug for FactsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FactsCache").field("ttl", &self.1).finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct CachedTickers {
    fetched_at: Instant,
    index: Arc<TickerIndex>,
}

impl EdgarClient {
    /// Keeps company facts in `cache` for `ttl`: repeated analyses, on any instance sharing the
    /// store, do not fetch the same filing data again while it is fresh.
    #[must_use]
    pub fn with_facts_cache(mut self, cache: Arc<dyn ResponseCache>, ttl: Duration) -> Self {
        self.facts_cache = Some(FactsCache(cache, ttl));
        self
    }

    async fn cached_facts(&self, url: &str) -> Option<Vec<u8>> {
        let FactsCache(cache, ttl) = self.facts_cache.as_ref()?;
        let fresh_after = time::OffsetDateTime::now_utc() - *ttl;
        match cache.get(url, fresh_after).await {
            Ok(body) => body,
            Err(error) => {
                // A cache that does not answer costs a fetch, never an analysis.
                tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "provider cache unavailable");
                None
            }
        }
    }

    async fn cache_facts(&self, url: &str, body: &[u8]) {
        if let Some(FactsCache(cache, _)) = &self.facts_cache
            && let Err(error) = cache.put(url, body.to_vec(), time::OffsetDateTime::now_utc()).await
        {
            tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "provider cache unavailable");
        }
    }

    /// # Errors
    /// A URL that is not http(s), an empty or non-header-safe `user_agent`, a zero
    /// `max_requests_per_second`, or an HTTP client that cannot be built (TLS initialisation).
    pub fn new(settings: EdgarSettings) -> anyhow::Result<Self> {
        let tickers_url = http_url("SEC_TICKERS_URL", &settings.tickers_url)?;
        let facts_base_url = http_url("SEC_EDGAR_BASE_URL", &settings.facts_base_url)?;
        Ok(Self {
            http: RateLimitedClient::new(&settings)?,
            tickers_url,
            facts_base_url: facts_base_url.as_str().trim_end_matches('/').to_owned(),
            tickers_ttl: settings.tickers_ttl,
            tickers: Mutex::new(None),
            facts_cache: None,
        })
    }

    /// The company-facts URL of a company.
    pub fn facts_url(&self, company: &ResolvedCompany) -> String {
        format!("{}/CIK{}.json", self.facts_base_url, company.padded_cik())
    }

    /// The ticker list, from memory while fresh. The lock is held while fetching so concurrent
    /// callers wait for one download instead of each starting their own.
    async fn ticker_index(&self) -> Result<Arc<TickerIndex>, FinancialDataError> {
        let mut cached = self.tickers.lock().await;
        if let Some(entry) = cached.as_ref().filter(|c| c.fetched_at.elapsed() < self.tickers_ttl) {
            return Ok(Arc::clone(&entry.index));
        }
        let url = self.tickers_url.clone();
        let body = self.http.get(url.clone()).await.map_err(|failure| failure.into_error(url.as_str()))?;
        let index = Arc::new(TickerIndex::parse(&body, PROVIDER)?);
        *cached = Some(CachedTickers { fetched_at: Instant::now(), index: Arc::clone(&index) });
        Ok(index)
    }
}

#[async_trait]
impl FinancialData for EdgarClient {
    #[tracing::instrument(name = "edgar.resolve", skip_all, fields(query = %query.describe()))]
    async fn resolve(&self, query: &CompanyQuery) -> Result<ResolvedCompany, FinancialDataError> {
        self.ticker_index().await?.resolve(query)
    }

    #[tracing::instrument(name = "edgar.statements", skip_all, fields(cik = company.cik))]
    async fn statements(
        &self,
        company: &ResolvedCompany,
        years: usize,
        quarters: usize,
    ) -> Result<CompanyStatements, FinancialDataError> {
        let url = self.facts_url(company);
        let parsed = Url::parse(&url).map_err(|e| FinancialDataError::InvalidData {
            provider: PROVIDER,
            reason: format!("cannot build the company-facts URL '{url}': {e}"),
        })?;
        if let Some(body) = self.cached_facts(&url).await {
            return statements_from_facts(&body, company, years, quarters, &url, PROVIDER);
        }
        let body = match self.http.get(parsed).await {
            Ok(body) => {
                self.cache_facts(&url, &body).await;
                body
            }
            Err(Failure::Status { status: StatusCode::NOT_FOUND, .. }) => {
                return Err(FinancialDataError::NoStatements {
                    provider: PROVIDER,
                    company: company.name.clone(),
                    reason: format!("no XBRL company facts for CIK {} at {url}", company.padded_cik()),
                });
            }
            Err(failure) => return Err(failure.into_error(&url)),
        };
        statements_from_facts(&body, company, years, quarters, &url, PROVIDER)
    }
}

fn http_url(setting: &str, raw: &str) -> anyhow::Result<Url> {
    let url = Url::parse(raw.trim()).with_context(|| format!("invalid {setting}: '{raw}' is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        bail!("invalid {setting}: '{raw}' is not an http(s) URL");
    }
    Ok(url)
}
