//! [`EdgarClient`]: the [`FinancialData`] port over SEC EDGAR's keyless JSON APIs (DOMAIN.md §3), and
//! the pure SEC-format parsing both SEC adapters share ([`TickerIndex`], [`statements_from_facts`]).
//!
//! - Company resolution reads `company_tickers.json` (`{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},…}`)
//!   once and keeps it in memory for [`EdgarSettings::tickers_ttl`].
//! - Statements read `companyfacts/CIK##########.json` and keep, per fiscal year and per fiscal
//!   quarter, one fact per line.
//!
//! SEC asks for a `User-Agent` naming the application and a contact e-mail and for at most ten
//! requests per second: every request carries [`EdgarSettings::user_agent`], and every attempt,
//! retries included, waits for its slot in a process-wide schedule of
//! [`EdgarSettings::max_requests_per_second`]. Connection failures, 429 and 5xx are retried with
//! exponential backoff (honouring a `Retry-After` in seconds, capped); a timeout is not retried
//! (every attempt gets the full timeout, and a slow SEC is as slow again).
//!
//! # Period selection (DOMAIN.md §3)
//! `fy`/`fp` describe the filing, not the period, so they are ignored. Only facts from forms `10-K`
//! and `10-K/A` count (an amendment restates the original and, being filed later, wins); `10-KT`
//! transition reports, 10-Q, 8-K and foreign-filer forms are ignored. Only `USD` amounts (and
//! `shares` for the share count) are read.
//! - Fiscal years are the end dates of annual flows (duration 350–380 days) of the income and
//!   cash-flow lines; the newest `years` are kept.
//! - Flows (income statement, cash flow) are the annual-duration facts ending on the fiscal year end;
//!   instants (balance sheet) the facts without `start` dated on it. When several filings report the
//!   same period (a 10-K repeats the prior years as comparatives), the latest `filed` wins, so
//!   restatements replace original values.
//! - Tag fallbacks are tried in DOMAIN.md order **per fiscal year** (filers switch concepts over
//!   time, e.g. `SalesRevenueNet` before 2018): the first tag with a value for that year is used.
//! - `Liabilities`, when absent, is derived as `LiabilitiesAndStockholdersEquity − StockholdersEquity`
//!   (both instants on the fiscal year end) and the provenance says so. With non-controlling
//!   interests this overstates liabilities by the NCI, as DOMAIN.md's formula does.
//! - Shares outstanding are `dei:EntityCommonStockSharesOutstanding` from the cover page of the 10-K:
//!   the cover date falls after the fiscal year end, so the fact dated within 200 days after it
//!   (latest filed) is used; several values of the same filing and date (share classes) are summed.
//! - Lines the DOMAIN.md list does not name but the statements hold: gross profit (`GrossProfit`),
//!   short-term investments (`ShortTermInvestments` | `MarketableSecuritiesCurrent`) and finance
//!   leases (`FinanceLeaseLiability`).
//!
//! # Quarters
//! The same lines, tags, fallbacks and "latest filed wins" rule, over fiscal quarters:
//! - Quarters are the periods of three-month flows (duration 80–100 days) reported in forms `10-Q`
//!   and `10-Q/A`. A quarter's flow is that three-month fact; when the filer reports the line only
//!   year to date (cash-flow lines and often D&A are), it is the difference of two 10-Q year-to-date
//!   facts of the same tag and start, one ending on the quarter end and one the day before the
//!   quarter starts (six months − three months, nine − six). Provenance records the derivation.
//! - No 10-Q covers a fiscal fourth quarter, and three-month facts in a 10-K are not read. A fourth
//!   quarter is derived, line by line and within one tag, as FY − Q1 − Q2 − Q3, only when the 10-K's
//!   fiscal year and all of Q1, Q2 and Q3 are there: Q1 starting on the fiscal year's first day, each
//!   quarter starting the day after the previous one ends, and the remainder 80–100 days long.
//!   Otherwise the fourth quarter is left out and [`QuarterlyStatementsWithProvenance::left_out`]
//!   says why; no fourth quarter is ever estimated.
//! - Balance-sheet lines are the instants dated on the quarter end from any 10-Q or 10-K (a fourth
//!   quarter's balance sheet is the fiscal year's), latest filed first.
//! - Shares outstanding are not read for quarters.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use anyhow::{Context, bail};
use async_trait::async_trait;
use bytes::Bytes;
use regex::Regex;
use reqwest::{StatusCode, Url};
use serde::Deserialize;
use time::Date;
use time::macros::format_description;
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::adapters::retry::retry_after;
use crate::domain::quant::quarterly::{MAX_QUARTERS, QuarterSource, QuarterStatement, QuarterlyStatements};
use crate::domain::quant::statements::{CompanyFinancials, FiscalYearStatement, MAX_FISCAL_YEARS};
use crate::ports::cache::ResponseCache;
use crate::ports::financial_data::{
    CompanyQuery, CompanyStatements, FinancialData, FinancialDataError, LineProvenance, MAX_CANDIDATES,
    QuarterlyStatementsWithProvenance, ResolvedCompany, StatementLine, StatementsWithProvenance,
};

/// The provider name errors carry.
pub const PROVIDER: &str = "SEC EDGAR";
/// SEC's ticker → CIK file.
pub const DEFAULT_TICKERS_URL: &str = "https://www.sec.gov/files/company_tickers.json";
/// SEC's company-facts API; files are `{base}/CIK##########.json`.
pub const DEFAULT_FACTS_BASE_URL: &str = "https://data.sec.gov/api/xbrl/companyfacts";

/// Longest provider error text kept in an error, in characters.
const BODY_EXCERPT_LIMIT: usize = 200;
/// Longest time opening a connection may take, whatever the request timeout.
const CONNECT_TIMEOUT_CAP: Duration = Duration::from_secs(10);

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
    http: reqwest::Client,
    tickers_url: Url,
    facts_base_url: String,
    max_attempts: u32,
    retry_base_delay: Duration,
    tickers_ttl: Duration,
    limiter: RateLimiter,
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
            tickers_url,
            facts_base_url: facts_base_url.as_str().trim_end_matches('/').to_owned(),
            max_attempts: settings.max_attempts.max(1),
            retry_base_delay: settings.retry_base_delay,
            tickers_ttl: settings.tickers_ttl,
            limiter: RateLimiter::new(settings.max_requests_per_second),
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
        let body = self.get(url.clone()).await.map_err(|failure| failure.into_error(url.as_str()))?;
        let index = Arc::new(TickerIndex::parse(&body, PROVIDER)?);
        *cached = Some(CachedTickers { fetched_at: Instant::now(), index: Arc::clone(&index) });
        Ok(index)
    }

    /// GET with rate limiting and retries: the body of a 2xx answer.
    async fn get(&self, url: Url) -> Result<Bytes, Failure> {
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
                failure = %failure.describe(),
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
        let body = match self.get(parsed).await {
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
enum Failure {
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

    /// The failure with its causes, for logs and error reasons.
    fn describe(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            text.push_str(": ");
            text.push_str(&error.to_string());
            cause = error.source();
        }
        text
    }

    fn into_error(self, url: &str) -> FinancialDataError {
        let hint = match &self {
            Self::Status { status: StatusCode::FORBIDDEN, .. } => {
                " (SEC refuses requests without a User-Agent naming the application and a contact e-mail, \
                 and clients above 10 requests/s)"
            }
            _ => "",
        };
        FinancialDataError::Unavailable { provider: PROVIDER, reason: format!("GET {url}: {}{hint}", self.describe()) }
    }
}

fn excerpt(body: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(body).split_whitespace().collect::<Vec<_>>().join(" ");
    let text: String = text.chars().take(BODY_EXCERPT_LIMIT).collect();
    if text.is_empty() { "(empty body)".to_owned() } else { text }
}

// ---- company resolution ----

/// One company of `company_tickers.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TickerEntry {
    cik: u64,
    ticker: String,
    title: String,
    normalised_title: String,
}

impl TickerEntry {
    fn to_company(&self) -> ResolvedCompany {
        ResolvedCompany {
            cik: self.cik,
            name: self.title.clone(),
            ticker: (!self.ticker.is_empty()).then(|| self.ticker.clone()),
        }
    }
}

/// The ticker list in SEC's order (roughly by market value; a company's first entry is its primary
/// share class), searchable by ticker and normalised name.
#[derive(Clone, Debug, Default)]
pub struct TickerIndex {
    entries: Vec<TickerEntry>,
    by_ticker: HashMap<String, usize>,
}

#[derive(Deserialize)]
struct RawTickerEntry {
    cik_str: serde_json::Value,
    #[serde(default)]
    ticker: String,
    title: String,
}

impl TickerIndex {
    /// Parses `company_tickers.json`: an object keyed `"0"`, `"1"`, … in SEC's order, whose values
    /// hold `cik_str` (a number, or digits as a string), `ticker` and `title`.
    ///
    /// # Errors
    /// [`FinancialDataError::InvalidData`] naming `provider` when the document has another shape.
    pub fn parse(json: &[u8], provider: &'static str) -> Result<Self, FinancialDataError> {
        let invalid = |reason: String| FinancialDataError::InvalidData { provider, reason };
        let mut deserializer = serde_json::Deserializer::from_slice(json);
        let raw: HashMap<String, RawTickerEntry> = serde_path_to_error::deserialize(&mut deserializer)
            .map_err(|e| invalid(format!("company_tickers.json is malformed at '{}': {}", e.path(), e.inner())))?;
        let mut keyed: Vec<(Option<u64>, String, RawTickerEntry)> =
            raw.into_iter().map(|(key, entry)| (key.parse().ok(), key, entry)).collect();
        // Numeric keys in numeric order first (SEC's order), anything else after, by key.
        keyed.sort_by(|a, b| (a.0.is_none(), a.0, &a.1).cmp(&(b.0.is_none(), b.0, &b.1)));
        let mut index = Self::default();
        for (_, key, raw) in keyed {
            let cik = match &raw.cik_str {
                serde_json::Value::Number(n) => n.as_u64(),
                serde_json::Value::String(s) => s.trim().parse().ok(),
                _ => None,
            }
            .ok_or_else(|| invalid(format!("company_tickers.json entry '{key}' has no numeric cik_str")))?;
            let ticker = normalise_ticker(&raw.ticker);
            let position = index.entries.len();
            if !ticker.is_empty() {
                index.by_ticker.entry(ticker.clone()).or_insert(position);
            }
            index.entries.push(TickerEntry {
                cik,
                ticker,
                normalised_title: normalise_company_name(&raw.title),
                title: raw.title.trim().to_owned(),
            });
        }
        Ok(index)
    }

    /// Number of entries (share classes count separately).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Resolves a query in this order: the query's ticker exactly; the name exactly (normalised by
    /// [`normalise_company_name`]); the name taken as a ticker; the companies whose normalised name
    /// contains the query's normalised words as whole words (a prefix included). Entries of one CIK
    /// (share classes) count once, as their first entry.
    ///
    /// # Errors
    /// [`FinancialDataError::UnknownCompany`] when nothing matches, [`FinancialDataError::Ambiguous`]
    /// (at most [`MAX_CANDIDATES`], in SEC's order) when one step matches several companies.
    pub fn resolve(&self, query: &CompanyQuery) -> Result<ResolvedCompany, FinancialDataError> {
        if let Some(entry) = query.ticker.as_deref().and_then(|ticker| self.by_ticker(ticker)) {
            return Ok(entry.to_company());
        }
        let name = query.name.trim();
        let wanted = normalise_company_name(name);
        let unknown = || FinancialDataError::UnknownCompany { query: query.describe() };
        if !wanted.is_empty() {
            let exact = self.distinct_companies(|entry| entry.normalised_title == wanted);
            if !exact.is_empty() {
                return self.single_or_ambiguous(query, exact);
            }
        }
        if let Some(entry) = self.by_ticker(name) {
            return Ok(entry.to_company());
        }
        if wanted.is_empty() {
            return Err(unknown());
        }
        let needle = format!(" {wanted} ");
        let containing = self.distinct_companies(|entry| format!(" {} ", entry.normalised_title).contains(&needle));
        if containing.is_empty() {
            return Err(unknown());
        }
        self.single_or_ambiguous(query, containing)
    }

    fn by_ticker(&self, ticker: &str) -> Option<&TickerEntry> {
        let ticker = normalise_ticker(ticker);
        if ticker.is_empty() {
            return None;
        }
        self.by_ticker.get(&ticker).and_then(|&position| self.entries.get(position))
    }

    /// Matching entries, one per CIK, in SEC's order.
    fn distinct_companies(&self, matches: impl Fn(&TickerEntry) -> bool) -> Vec<&TickerEntry> {
        let mut seen = HashSet::new();
        self.entries.iter().filter(|entry| matches(entry) && seen.insert(entry.cik)).collect()
    }

    fn single_or_ambiguous(
        &self,
        query: &CompanyQuery,
        matches: Vec<&TickerEntry>,
    ) -> Result<ResolvedCompany, FinancialDataError> {
        match matches.as_slice() {
            [only] => Ok(only.to_company()),
            _ => Err(FinancialDataError::Ambiguous {
                query: query.describe(),
                candidates: matches.iter().take(MAX_CANDIDATES).map(|entry| entry.to_company()).collect(),
            }),
        }
    }
}

/// Tickers compare upper-case, with `.` as `-` (`brk.b` finds SEC's `BRK-B`) and without a leading `$`.
fn normalise_ticker(raw: &str) -> String {
    raw.trim().trim_start_matches('$').to_uppercase().replace('.', "-")
}

/// Legal-form words dropped from the end of a name. `holdings`, `group` and the like are kept: they
/// tell apart companies that share a stem ("Acme Holdings" is not "Acme"); the containment step of
/// [`TickerIndex::resolve`] still finds them.
const LEGAL_SUFFIXES: &[&str] = &[
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "co",
    "company",
    "ltd",
    "limited",
    "plc",
    "llc",
    "lp",
    "llp",
    "sa",
    "ag",
    "nv",
    "se",
];

/// SEC titles carry state-of-incorporation or history tags such as `/DE/` or `/NEW/`.
static STATE_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"/[a-z]{1,4}/").unwrap_or_else(|error| panic!("the state-tag pattern must compile: {error}"))
});

/// A company name for comparison: lower case; `/DE/`-style tags removed; apostrophes dropped
/// (`McDonald's` = `mcdonalds`); any other punctuation a word break (`Amazon.com` = `amazon com`,
/// `AT&T` = `at t`); the word `and` and a leading `the` dropped; legal-form suffixes
/// (`LEGAL_SUFFIXES`: inc, corp, co, ltd, plc, …) dropped from the end, keeping at least one word.
pub fn normalise_company_name(raw: &str) -> String {
    let lower = raw.to_lowercase();
    let untagged = STATE_TAG.replace_all(&lower, " ");
    let spaced: String = untagged
        .chars()
        .filter(|c| !matches!(c, '\'' | '’'))
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut words: Vec<&str> = spaced.split_whitespace().filter(|word| *word != "and").collect();
    if words.len() > 1 && words.first() == Some(&"the") {
        words.remove(0);
    }
    while words.len() > 1 && words.last().is_some_and(|word| LEGAL_SUFFIXES.contains(word)) {
        words.pop();
    }
    words.join(" ")
}

// ---- statement normalisation ----

#[derive(Deserialize)]
struct CompanyFactsDocument {
    #[serde(default)]
    cik: Option<u64>,
    #[serde(default)]
    facts: HashMap<String, HashMap<String, Concept>>,
}

#[derive(Deserialize)]
struct Concept {
    #[serde(default)]
    units: HashMap<String, Vec<RawFact>>,
}

#[derive(Deserialize)]
struct RawFact {
    #[serde(default)]
    start: Option<String>,
    end: String,
    val: f64,
    accn: String,
    #[serde(default)]
    form: String,
    filed: String,
}

/// A fact with its dates parsed.
#[derive(Clone, Debug)]
struct Fact {
    start: Option<Date>,
    end: Date,
    val: f64,
    accn: String,
    form: String,
    filed: Date,
}

impl Fact {
    fn from_raw(raw: &RawFact) -> Option<Self> {
        let start = match raw.start.as_deref() {
            Some(text) => Some(parse_date(text)?),
            None => None,
        };
        Some(Self {
            start,
            end: parse_date(&raw.end)?,
            val: raw.val,
            accn: raw.accn.clone(),
            form: raw.form.clone(),
            filed: parse_date(&raw.filed)?,
        })
        .filter(|fact| fact.val.is_finite())
    }

    fn is_annual_filing(&self) -> bool {
        matches!(self.form.as_str(), "10-K" | "10-K/A")
    }

    fn is_quarterly_filing(&self) -> bool {
        matches!(self.form.as_str(), "10-Q" | "10-Q/A")
    }

    /// Days from the first to the last day of a flow's period (a 91-day quarter is 90); `None` for
    /// an instant.
    fn duration_days(&self) -> Option<i64> {
        self.start.map(|start| (self.end - start).whole_days())
    }

    fn is_annual_flow(&self) -> bool {
        self.is_annual_filing() && self.duration_days().is_some_and(|days| ANNUAL_DAYS.contains(&days))
    }

    fn is_annual_instant(&self) -> bool {
        self.is_annual_filing() && self.start.is_none()
    }

    /// A three-month flow of a 10-Q.
    fn is_quarter_flow(&self) -> bool {
        self.is_quarterly_filing() && self.duration_days().is_some_and(|days| QUARTER_DAYS.contains(&days))
    }

    /// A balance-sheet fact of a 10-K or a 10-Q.
    fn is_periodic_instant(&self) -> bool {
        (self.is_annual_filing() || self.is_quarterly_filing()) && self.start.is_none()
    }

    /// Whether `self` was filed after `other` (the accession number breaks ties), so it wins.
    fn supersedes(&self, other: &Fact) -> bool {
        (self.filed, &self.accn) > (other.filed, &other.accn)
    }
}

/// Duration of an annual flow, in days from first to last day.
const ANNUAL_DAYS: std::ops::RangeInclusive<i64> = 350..=380;
/// Duration of a quarterly flow, in days from first to last day (13 weeks is 90, 14 weeks 97).
const QUARTER_DAYS: std::ops::RangeInclusive<i64> = 80..=100;

/// The latest-filed of `facts`.
fn latest_filed<'a>(facts: impl Iterator<Item = &'a Fact>) -> Option<&'a Fact> {
    facts.reduce(|best, fact| if fact.supersedes(best) { fact } else { best })
}

/// For each period end, the start most facts give (ties: the later start); `facts` are flows.
fn periods<'a>(facts: impl Iterator<Item = &'a Fact>) -> BTreeMap<Date, Date> {
    let mut starts: BTreeMap<Date, HashMap<Date, usize>> = BTreeMap::new();
    for fact in facts {
        if let Some(start) = fact.start {
            *starts.entry(fact.end).or_default().entry(start).or_default() += 1;
        }
    }
    starts
        .into_iter()
        .filter_map(|(end, counts)| {
            counts.into_iter().max_by_key(|(start, count)| (*count, *start)).map(|(start, _)| (end, start))
        })
        .collect()
}

fn parse_date(text: &str) -> Option<Date> {
    Date::parse(text.trim(), format_description!("[year]-[month]-[day]")).ok()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Flow,
    Instant,
}

/// Each line, whether it is a flow or an instant, and its `us-gaap` tags in fallback order
/// (DOMAIN.md §3). Shares outstanding (dei) and the liabilities derivation are handled apart.
const LINES: &[(StatementLine, Kind, &[&str])] = &[
    (
        StatementLine::Revenue,
        Kind::Flow,
        &["Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax", "SalesRevenueNet"],
    ),
    (StatementLine::GrossProfit, Kind::Flow, &["GrossProfit"]),
    (StatementLine::OperatingIncome, Kind::Flow, &["OperatingIncomeLoss"]),
    (StatementLine::NetIncome, Kind::Flow, &["NetIncomeLoss"]),
    (
        StatementLine::DepreciationAmortization,
        Kind::Flow,
        &["DepreciationDepletionAndAmortization", "DepreciationAndAmortization"],
    ),
    (StatementLine::InterestExpense, Kind::Flow, &["InterestExpense", "InterestExpenseNonoperating"]),
    (StatementLine::IncomeTax, Kind::Flow, &["IncomeTaxExpenseBenefit"]),
    (StatementLine::CashFromOperations, Kind::Flow, &["NetCashProvidedByUsedInOperatingActivities"]),
    (StatementLine::CapitalExpenditure, Kind::Flow, &["PaymentsToAcquirePropertyPlantAndEquipment"]),
    (StatementLine::TotalAssets, Kind::Instant, &["Assets"]),
    (StatementLine::CurrentAssets, Kind::Instant, &["AssetsCurrent"]),
    (StatementLine::TotalLiabilities, Kind::Instant, &["Liabilities"]),
    (StatementLine::CurrentLiabilities, Kind::Instant, &["LiabilitiesCurrent"]),
    (StatementLine::LongTermDebtNoncurrent, Kind::Instant, &["LongTermDebtNoncurrent"]),
    (StatementLine::LongTermDebtCurrent, Kind::Instant, &["LongTermDebtCurrent"]),
    (StatementLine::LongTermDebt, Kind::Instant, &["LongTermDebt"]),
    (StatementLine::ShortTermBorrowings, Kind::Instant, &["ShortTermBorrowings"]),
    (StatementLine::CommercialPaper, Kind::Instant, &["CommercialPaper"]),
    (StatementLine::FinanceLeases, Kind::Instant, &["FinanceLeaseLiability"]),
    (StatementLine::Equity, Kind::Instant, &["StockholdersEquity"]),
    (StatementLine::Cash, Kind::Instant, &["CashAndCashEquivalentsAtCarryingValue"]),
    (StatementLine::ShortTermInvestments, Kind::Instant, &["ShortTermInvestments", "MarketableSecuritiesCurrent"]),
    (StatementLine::RetainedEarnings, Kind::Instant, &["RetainedEarningsAccumulatedDeficit"]),
    (StatementLine::Receivables, Kind::Instant, &["AccountsReceivableNetCurrent"]),
    (StatementLine::Inventory, Kind::Instant, &["InventoryNet"]),
];

const LIABILITIES_AND_EQUITY: &str = "LiabilitiesAndStockholdersEquity";
const STOCKHOLDERS_EQUITY: &str = "StockholdersEquity";
const SHARES_OUTSTANDING: &str = "EntityCommonStockSharesOutstanding";
/// How long after the fiscal year end the 10-K cover page's share count may be dated.
const SHARES_COVER_WINDOW_DAYS: i64 = 200;

/// The facts of one document, by taxonomy and tag, in one unit.
struct FactTable {
    gaap: HashMap<String, Vec<Fact>>,
    shares: Vec<Fact>,
}

impl FactTable {
    fn from_document(document: &CompanyFactsDocument) -> Self {
        let facts_in = |taxonomy: &str, tag: &str, unit: &str| -> Vec<Fact> {
            document
                .facts
                .get(taxonomy)
                .and_then(|concepts| concepts.get(tag))
                .and_then(|concept| concept.units.get(unit))
                .map(|raw| raw.iter().filter_map(Fact::from_raw).collect())
                .unwrap_or_default()
        };
        let wanted = LINES
            .iter()
            .flat_map(|(_, _, tags)| tags.iter().copied())
            .chain([LIABILITIES_AND_EQUITY, STOCKHOLDERS_EQUITY]);
        let gaap = wanted.map(|tag| (tag.to_owned(), facts_in("us-gaap", tag, "USD"))).collect();
        Self { gaap, shares: facts_in("dei", SHARES_OUTSTANDING, "shares") }
    }

    fn tag(&self, tag: &str) -> &[Fact] {
        self.gaap.get(tag).map_or(&[], Vec::as_slice)
    }

    /// Fiscal year ends: end dates of annual flows of the flow lines, newest first.
    fn fiscal_year_ends(&self) -> Vec<Date> {
        let ends: BTreeSet<Date> =
            self.flow_facts().filter(|fact| fact.is_annual_flow()).map(|fact| fact.end).collect();
        ends.into_iter().rev().collect()
    }

    /// The latest-filed fact of `tag` for the fiscal year ending `year_end`.
    fn pick(&self, tag: &str, kind: Kind, year_end: Date) -> Option<&Fact> {
        let is_annual = |fact: &Fact| match kind {
            Kind::Flow => fact.is_annual_flow(),
            Kind::Instant => fact.is_annual_instant(),
        };
        latest_filed(self.tag(tag).iter().filter(|fact| fact.end == year_end && is_annual(fact)))
    }

    /// The 10-K cover-page share count for the fiscal year ending `year_end`: the facts of the latest
    /// filing dated within the window after it, summed over share classes.
    fn shares_outstanding(&self, year_end: Date) -> Option<(f64, Vec<&Fact>)> {
        let in_window = |fact: &&Fact| {
            let days = (fact.end - year_end).whole_days();
            fact.is_annual_instant() && (0..=SHARES_COVER_WINDOW_DAYS).contains(&days)
        };
        let chosen = latest_filed(self.shares.iter().filter(in_window))?;
        let classes: Vec<&Fact> =
            self.shares.iter().filter(in_window).filter(|f| f.accn == chosen.accn && f.end == chosen.end).collect();
        Some((classes.iter().map(|fact| fact.val).sum(), classes))
    }

    /// Every fact of the flow lines' tags.
    fn flow_facts(&self) -> impl Iterator<Item = &Fact> {
        LINES
            .iter()
            .filter(|(_, kind, _)| *kind == Kind::Flow)
            .flat_map(|(_, _, tags)| tags.iter())
            .flat_map(|tag| self.tag(tag).iter())
    }

    /// Fiscal years as `end → start`, from the annual flows of the flow lines.
    fn fiscal_year_periods(&self) -> BTreeMap<Date, Date> {
        periods(self.flow_facts().filter(|fact| fact.is_annual_flow()))
    }

    /// Quarters reported in 10-Qs as `end → start`, from the three-month flows of the flow lines.
    fn quarter_periods(&self) -> BTreeMap<Date, Date> {
        periods(self.flow_facts().filter(|fact| fact.is_quarter_flow()))
    }

    /// The latest-filed annual fact of `tag` for exactly the fiscal year `start..=end`.
    fn fiscal_year_flow(&self, tag: &str, start: Date, end: Date) -> Option<&Fact> {
        latest_filed(self.tag(tag).iter().filter(|f| f.is_annual_flow() && f.start == Some(start) && f.end == end))
    }

    /// The latest-filed 10-Q fact of `tag` for exactly the period `start..=end`.
    fn quarterly_report_flow(&self, tag: &str, start: Date, end: Date) -> Option<&Fact> {
        latest_filed(self.tag(tag).iter().filter(|f| f.is_quarterly_filing() && f.start == Some(start) && f.end == end))
    }

    /// `tag` over the 10-Q quarter `start..=end`: the three-month fact, else the difference of two
    /// year-to-date facts with the same start, ending on `end` and on the day before `start`.
    fn quarter_flow(&self, tag: &str, start: Date, end: Date) -> Option<QuarterFlow<'_>> {
        if let Some(fact) = self.quarterly_report_flow(tag, start, end) {
            return Some(QuarterFlow {
                value: fact.val,
                fact,
                derivation: None,
                citation: format!("{} (accn {})", fact.val, fact.accn),
            });
        }
        let before = start.previous_day()?;
        let year_starts: BTreeSet<Date> = self
            .tag(tag)
            .iter()
            .filter(|f| f.is_quarterly_filing() && f.end == end)
            .filter_map(|f| f.start)
            .filter(|year_start| *year_start < start)
            .collect();
        // The latest common start is the fiscal year's (an older one would be a longer cumulation).
        year_starts.iter().rev().find_map(|&year_start| {
            let longer = self.quarterly_report_flow(tag, year_start, end)?;
            let shorter = self.quarterly_report_flow(tag, year_start, before)?;
            let value = longer.val - shorter.val;
            let derivation = format!(
                "year to date {year_start} to {end} {} (accn {}) - year to date {year_start} to {before} {} (accn {})",
                longer.val, longer.accn, shorter.val, shorter.accn
            );
            Some(QuarterFlow {
                value,
                fact: longer,
                citation: format!("{value} ({derivation})"),
                derivation: Some(derivation),
            })
        })
    }

    /// `tag` over a derived fourth quarter: FY − Q1 − Q2 − Q3, all four of this tag.
    fn fourth_quarter_flow(&self, tag: &str, fourth: &FourthQuarter) -> Option<QuarterFlow<'_>> {
        let year = self.fiscal_year_flow(tag, fourth.year_start, fourth.year_end)?;
        let mut first_three = Vec::with_capacity(3);
        for &(start, end) in &fourth.first_three {
            first_three.push(self.quarter_flow(tag, start, end)?);
        }
        let value = year.val - first_three.iter().map(|q| q.value).sum::<f64>();
        let quarters: Vec<String> =
            first_three.iter().enumerate().map(|(i, q)| format!(" - Q{} {}", i + 1, q.citation)).collect();
        let derivation = format!(
            "fourth quarter = fiscal year {} to {} {} ({} accn {}){}",
            fourth.year_start,
            fourth.year_end,
            year.val,
            year.form,
            year.accn,
            quarters.concat()
        );
        Some(QuarterFlow { value, fact: year, citation: value.to_string(), derivation: Some(derivation) })
    }

    /// The latest-filed balance-sheet fact of `tag` dated `end`, from a 10-K or a 10-Q.
    fn periodic_instant(&self, tag: &str, end: Date) -> Option<&Fact> {
        latest_filed(self.tag(tag).iter().filter(|f| f.is_periodic_instant() && f.end == end))
    }

    /// The quarters to report, newest first (at most `limit`), and the fiscal fourth quarters left
    /// out, each with its reason.
    fn quarter_plans(&self, limit: usize) -> (Vec<QuarterPlan>, Vec<String>) {
        let reported = self.quarter_periods();
        let by_start: BTreeMap<Date, Date> = reported.iter().map(|(&end, &start)| (start, end)).collect();
        let mut plans: Vec<QuarterPlan> =
            reported.iter().map(|(&end, &start)| QuarterPlan { start, end, fourth: None }).collect();
        let mut left_out: Vec<(Date, String)> = Vec::new();
        for (&year_end, &year_start) in &self.fiscal_year_periods() {
            if reported.contains_key(&year_end) {
                continue;
            }
            match FourthQuarter::of(&by_start, year_start, year_end) {
                Ok(fourth) => plans.push(QuarterPlan { start: fourth.start, end: year_end, fourth: Some(fourth) }),
                Err(reason) => left_out.push((
                    year_end,
                    format!(
                        "the fourth quarter of the fiscal year {year_start} to {year_end} is left out: {reason};                          it is derived only as FY - Q1 - Q2 - Q3 when all are reported"
                    ),
                )),
            }
        }
        plans.sort_by_key(|plan| std::cmp::Reverse(plan.end));
        plans.truncate(limit.min(MAX_QUARTERS));
        let Some(oldest) = plans.last().map(|plan| plan.end) else {
            return (plans, vec!["no quarterly (10-Q) facts of three-month periods are reported".to_owned()]);
        };
        let notes = left_out.into_iter().rev().filter(|(end, _)| *end > oldest).map(|(_, note)| note).collect();
        (plans, notes)
    }
}

fn field_mut(year: &mut FiscalYearStatement, line: StatementLine) -> &mut Option<f64> {
    match line {
        StatementLine::Revenue => &mut year.revenue,
        StatementLine::GrossProfit => &mut year.gross_profit,
        StatementLine::OperatingIncome => &mut year.operating_income,
        StatementLine::NetIncome => &mut year.net_income,
        StatementLine::DepreciationAmortization => &mut year.depreciation_amortization,
        StatementLine::InterestExpense => &mut year.interest_expense,
        StatementLine::IncomeTax => &mut year.income_tax,
        StatementLine::TotalAssets => &mut year.total_assets,
        StatementLine::CurrentAssets => &mut year.current_assets,
        StatementLine::TotalLiabilities => &mut year.total_liabilities,
        StatementLine::CurrentLiabilities => &mut year.current_liabilities,
        StatementLine::LongTermDebtNoncurrent => &mut year.long_term_debt_noncurrent,
        StatementLine::LongTermDebtCurrent => &mut year.long_term_debt_current,
        StatementLine::LongTermDebt => &mut year.long_term_debt,
        StatementLine::ShortTermBorrowings => &mut year.short_term_borrowings,
        StatementLine::CommercialPaper => &mut year.commercial_paper,
        StatementLine::FinanceLeases => &mut year.finance_leases,
        StatementLine::Equity => &mut year.equity,
        StatementLine::Cash => &mut year.cash,
        StatementLine::ShortTermInvestments => &mut year.short_term_investments,
        StatementLine::RetainedEarnings => &mut year.retained_earnings,
        StatementLine::Receivables => &mut year.receivables,
        StatementLine::Inventory => &mut year.inventory,
        StatementLine::CashFromOperations => &mut year.cash_from_operations,
        StatementLine::CapitalExpenditure => &mut year.capital_expenditure,
        StatementLine::SharesOutstanding => &mut year.shares_outstanding,
    }
}

/// One quarter's value of a flow line, with the fact it rests on.
struct QuarterFlow<'a> {
    value: f64,
    /// The reported fact, or the one a derivation starts from (the longer year-to-date figure, the
    /// fiscal year).
    fact: &'a Fact,
    derivation: Option<String>,
    /// The value with its source, as a fourth-quarter derivation cites it.
    citation: String,
}

/// A quarter to fill in.
struct QuarterPlan {
    start: Date,
    end: Date,
    /// Set for a fiscal fourth quarter, derived from its fiscal year and first three quarters.
    fourth: Option<FourthQuarter>,
}

/// A fiscal fourth quarter and what it is derived from.
struct FourthQuarter {
    year_start: Date,
    year_end: Date,
    /// Q1, Q2 and Q3 as `(start, end)`.
    first_three: [(Date, Date); 3],
    /// The day after Q3 ends.
    start: Date,
}

impl FourthQuarter {
    /// The fourth quarter of the fiscal year `year_start..=year_end`, when the 10-Q quarters
    /// (`by_start`: start → end) hold its Q1 (starting on `year_start`), Q2 and Q3, each starting
    /// the day after the previous one ends, and what remains is 80–100 days long.
    fn of(by_start: &BTreeMap<Date, Date>, year_start: Date, year_end: Date) -> Result<Self, String> {
        let mut first_three = [(year_start, year_start); 3];
        let mut next_start = year_start;
        for (index, slot) in first_three.iter_mut().enumerate() {
            let number = index + 1;
            let end = *by_start
                .get(&next_start)
                .ok_or_else(|| format!("no 10-Q reports its Q{number} (a quarter starting {next_start})"))?;
            *slot = (next_start, end);
            next_start = end.next_day().ok_or_else(|| format!("Q{number} ends on the last representable day"))?;
        }
        let remaining = (year_end - next_start).whole_days();
        if !QUARTER_DAYS.contains(&remaining) {
            return Err(format!(
                "its first three quarters end {}, leaving {} days, not a quarter",
                first_three[2].1,
                remaining + 1
            ));
        }
        Ok(Self { year_start, year_end, first_three, start: next_start })
    }
}

/// Sets lines of one statement and records their provenance.
struct Recorder<'a> {
    source_url: &'a str,
    provenance: Vec<LineProvenance>,
}

impl Recorder<'_> {
    /// `lines.<line> = value`, read from `fact` (or derived from it) over `period` (`None` start for
    /// an instant).
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        lines: &mut FiscalYearStatement,
        statement_end: Date,
        line: StatementLine,
        tag: String,
        value: f64,
        fact: &Fact,
        period: (Option<Date>, Date),
        derivation: Option<String>,
    ) {
        *field_mut(lines, line) = Some(value);
        self.provenance.push(LineProvenance {
            statement_end,
            line,
            tag,
            value,
            accession_number: fact.accn.clone(),
            form: fact.form.clone(),
            period_start: period.0,
            period_end: period.1,
            filed: fact.filed,
            source_url: self.source_url.to_owned(),
            derivation,
        });
    }

    /// `Liabilities`, when not reported, as `LiabilitiesAndStockholdersEquity − StockholdersEquity`
    /// of the instants `instant(tag)` gives.
    fn derive_liabilities<'f>(
        &mut self,
        lines: &mut FiscalYearStatement,
        statement_end: Date,
        instant: impl Fn(&str) -> Option<&'f Fact>,
    ) {
        if lines.total_liabilities.is_some() {
            return;
        }
        let (Some(total), Some(equity)) = (instant(LIABILITIES_AND_EQUITY), instant(STOCKHOLDERS_EQUITY)) else {
            return;
        };
        let derivation = format!(
            "Liabilities not reported: us-gaap:{LIABILITIES_AND_EQUITY} {} (accn {}) - us-gaap:{STOCKHOLDERS_EQUITY} {} (accn {})",
            total.val, total.accn, equity.val, equity.accn
        );
        self.record(
            lines,
            statement_end,
            StatementLine::TotalLiabilities,
            format!("us-gaap:{LIABILITIES_AND_EQUITY} - us-gaap:{STOCKHOLDERS_EQUITY}"),
            total.val - equity.val,
            total,
            (None, total.end),
            Some(derivation),
        );
    }
}

/// Normalises a `companyfacts` document into the latest `years` fiscal years (at most
/// [`MAX_FISCAL_YEARS`]) and the latest `quarters` fiscal quarters (at most [`MAX_QUARTERS`]; `0`
/// skips them) with provenance, following the rules in the module documentation. `source_url` is
/// recorded in every provenance entry.
///
/// # Errors
/// [`FinancialDataError::InvalidData`] naming `provider` when the document is not a companyfacts
/// document or belongs to another CIK; [`FinancialDataError::NoStatements`] when it holds no annual
/// (10-K) `us-gaap` facts at all.
pub fn statements_from_facts(
    json: &[u8],
    company: &ResolvedCompany,
    years: usize,
    quarters: usize,
    source_url: &str,
    provider: &'static str,
) -> Result<CompanyStatements, FinancialDataError> {
    let invalid = |reason: String| FinancialDataError::InvalidData { provider, reason };
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    let document: CompanyFactsDocument = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        invalid(format!("company facts of CIK {} are malformed at '{}': {}", company.padded_cik(), e.path(), e.inner()))
    })?;
    if let Some(cik) = document.cik.filter(|cik| *cik != company.cik) {
        return Err(invalid(format!("{source_url} holds the facts of CIK {cik}, not of CIK {}", company.cik)));
    }
    let table = FactTable::from_document(&document);
    let year_ends = table.fiscal_year_ends();
    if year_ends.is_empty() {
        return Err(FinancialDataError::NoStatements {
            provider,
            company: company.name.clone(),
            reason: format!("no annual (10-K) us-gaap facts for CIK {} in {source_url}", company.padded_cik()),
        });
    }
    let annual = annual_statements(&table, company, &year_ends, years, source_url);
    let quarterly = if quarters == 0 {
        QuarterlyStatementsWithProvenance::default()
    } else {
        quarterly_statements(&table, quarters, source_url)
    };
    Ok(CompanyStatements { annual, quarterly })
}

/// [`statements_from_facts`] without quarters.
///
/// # Errors
/// As [`statements_from_facts`].
pub fn annual_statements_from_facts(
    json: &[u8],
    company: &ResolvedCompany,
    years: usize,
    source_url: &str,
    provider: &'static str,
) -> Result<StatementsWithProvenance, FinancialDataError> {
    statements_from_facts(json, company, years, 0, source_url, provider).map(|statements| statements.annual)
}

fn annual_statements(
    table: &FactTable,
    company: &ResolvedCompany,
    year_ends: &[Date],
    years: usize,
    source_url: &str,
) -> StatementsWithProvenance {
    let mut recorder = Recorder { source_url, provenance: Vec::new() };
    let mut statements = Vec::new();
    for &year_end in year_ends.iter().take(years.min(MAX_FISCAL_YEARS)) {
        let mut year = FiscalYearStatement::empty(year_end);
        for &(line, kind, tags) in LINES {
            let found = tags.iter().find_map(|tag| table.pick(tag, kind, year_end).map(|fact| (tag, fact)));
            if let Some((tag, fact)) = found {
                let period = (fact.start, fact.end);
                recorder.record(&mut year, year_end, line, format!("us-gaap:{tag}"), fact.val, fact, period, None);
            }
        }
        recorder.derive_liabilities(&mut year, year_end, |tag| table.pick(tag, Kind::Instant, year_end));
        if let Some((shares, classes)) = table.shares_outstanding(year_end)
            && let Some(first) = classes.first()
        {
            let derivation = (classes.len() > 1).then(|| {
                let parts: Vec<String> = classes.iter().map(|fact| fact.val.to_string()).collect();
                format!("sum of {} share classes: {}", classes.len(), parts.join(" + "))
            });
            recorder.record(
                &mut year,
                year_end,
                StatementLine::SharesOutstanding,
                format!("dei:{SHARES_OUTSTANDING}"),
                shares,
                first,
                (None, first.end),
                derivation,
            );
        }
        statements.push(year);
    }
    StatementsWithProvenance {
        financials: CompanyFinancials::new(company.name.clone(), company.ticker.clone(), statements),
        provenance: recorder.provenance,
    }
}

fn quarterly_statements(table: &FactTable, quarters: usize, source_url: &str) -> QuarterlyStatementsWithProvenance {
    let (plans, left_out) = table.quarter_plans(quarters);
    let mut recorder = Recorder { source_url, provenance: Vec::new() };
    let mut statements = Vec::with_capacity(plans.len());
    for plan in &plans {
        let source =
            if plan.fourth.is_some() { QuarterSource::DerivedFourthQuarter } else { QuarterSource::QuarterlyReport };
        let mut quarter = QuarterStatement::empty(plan.start, plan.end, source);
        for &(line, kind, tags) in LINES {
            match kind {
                Kind::Flow => {
                    let found = tags.iter().find_map(|tag| {
                        let flow = match &plan.fourth {
                            Some(fourth) => table.fourth_quarter_flow(tag, fourth),
                            None => table.quarter_flow(tag, plan.start, plan.end),
                        };
                        flow.map(|flow| (tag, flow))
                    });
                    if let Some((tag, flow)) = found {
                        recorder.record(
                            &mut quarter.lines,
                            plan.end,
                            line,
                            format!("us-gaap:{tag}"),
                            flow.value,
                            flow.fact,
                            (Some(plan.start), plan.end),
                            flow.derivation,
                        );
                    }
                }
                Kind::Instant => {
                    let found = tags.iter().find_map(|tag| table.periodic_instant(tag, plan.end).map(|f| (tag, f)));
                    if let Some((tag, fact)) = found {
                        let period = (None, fact.end);
                        recorder.record(
                            &mut quarter.lines,
                            plan.end,
                            line,
                            format!("us-gaap:{tag}"),
                            fact.val,
                            fact,
                            period,
                            None,
                        );
                    }
                }
            }
        }
        recorder.derive_liabilities(&mut quarter.lines, plan.end, |tag| table.periodic_instant(tag, plan.end));
        statements.push(quarter);
    }
    QuarterlyStatementsWithProvenance {
        statements: QuarterlyStatements::new(statements),
        provenance: recorder.provenance,
        left_out,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::net::SocketAddr;
    use std::sync::Mutex as StdMutex;

    use time::macros::date;

    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider, Received, refused_url};

    pub(crate) const TICKERS_JSON: &str = include_str!("fixtures/company_tickers.json");
    pub(crate) const FACTS: &[(&str, &str)] = &[
        ("CIK0000320193.json", include_str!("fixtures/companyfacts/CIK0000320193.json")),
        ("CIK0001900001.json", include_str!("fixtures/companyfacts/CIK0001900001.json")),
        ("CIK0001900002.json", include_str!("fixtures/companyfacts/CIK0001900002.json")),
        ("CIK0001900003.json", include_str!("fixtures/companyfacts/CIK0001900003.json")),
    ];
    const USER_AGENT: &str = "creditflow-tests credit-team@example.com";
    const TICKERS_PATH: &str = "/files/company_tickers.json";
    const FACTS_PREFIX: &str = "/api/xbrl/companyfacts/";

    pub(crate) fn apple() -> ResolvedCompany {
        ResolvedCompany { cik: 320193, name: "Apple Inc.".to_owned(), ticker: Some("AAPL".to_owned()) }
    }

    pub(crate) fn company(cik: u64, name: &str, ticker: &str) -> ResolvedCompany {
        ResolvedCompany { cik, name: name.to_owned(), ticker: Some(ticker.to_owned()) }
    }

    fn query(name: &str) -> CompanyQuery {
        CompanyQuery::new(name, None)
    }

    /// How the fake SEC misbehaves.
    #[derive(Clone, Copy, Default)]
    struct Conditions {
        /// Every request answers 500.
        always_fail: bool,
        /// Waited before a file is served.
        delay: Duration,
    }

    /// A local SEC: `company_tickers.json` and the company-facts fixtures, with scripted failures.
    struct FakeSec {
        addr: SocketAddr,
        provider: FakeProvider,
        conditions: Arc<StdMutex<Conditions>>,
    }

    /// SEC's error page, with a `Retry-After` in seconds when given.
    fn sec_error(status: u16, retry_after: Option<&str>) -> Answer {
        let answer = Answer::json(status, "<html>Service Unavailable</html>");
        match retry_after {
            Some(seconds) => answer.header("retry-after", seconds),
            None => answer,
        }
    }

    /// The fixture SEC serves at `path`, or its 404.
    fn sec_file(path: &str) -> Answer {
        let body = if path == TICKERS_PATH {
            Some(TICKERS_JSON)
        } else {
            path.strip_prefix(FACTS_PREFIX)
                .and_then(|file| FACTS.iter().find(|(name, _)| *name == file))
                .map(|(_, body)| *body)
        };
        match body {
            Some(body) => Answer::json(200, body),
            None => Answer::json(404, "{\"message\":\"Not Found\"}"),
        }
    }

    impl FakeSec {
        async fn start() -> Self {
            let conditions = Arc::new(StdMutex::new(Conditions::default()));
            let current = Arc::clone(&conditions);
            let provider = FakeProvider::answering(move |request| {
                let Conditions { always_fail, delay } = *current.lock().expect("conditions");
                if always_fail { sec_error(500, None) } else { sec_file(&request.path).delayed(delay) }
            })
            .await;
            Self { addr: provider.addr(), provider, conditions }
        }

        fn settings(&self) -> EdgarSettings {
            EdgarSettings {
                tickers_url: format!("http://{}{TICKERS_PATH}", self.addr),
                facts_base_url: format!("http://{}{}", self.addr, FACTS_PREFIX),
                timeout: Duration::from_secs(5),
                max_requests_per_second: 1000,
                retry_base_delay: Duration::from_millis(5),
                ..EdgarSettings::new(USER_AGENT)
            }
        }

        fn client(&self) -> EdgarClient {
            EdgarClient::new(self.settings()).expect("client")
        }

        fn fail_next(&self, status: u16, retry_after: Option<&str>) {
            self.provider.answer_next(sec_error(status, retry_after));
        }

        fn always_fail(&self) {
            self.conditions.lock().expect("conditions").always_fail = true;
        }

        fn delay(&self, delay: Duration) {
            self.conditions.lock().expect("conditions").delay = delay;
        }

        fn received(&self) -> Vec<Received> {
            self.provider.received()
        }
    }

    fn assert_unavailable(error: &FinancialDataError) {
        assert!(matches!(error, FinancialDataError::Unavailable { provider: "SEC EDGAR", .. }), "{error:?}");
        assert!(error.to_string().contains("SEC EDGAR"), "{error}");
    }

    // ---- resolution ----

    #[tokio::test]
    async fn market_edgar_resolves_a_ticker_and_sends_the_user_agent() {
        let sec = FakeSec::start().await;

        let company = sec.client().resolve(&CompanyQuery::new("", Some("aapl".to_owned()))).await.expect("apple");

        assert_eq!(company, apple());
        let received = sec.received();
        assert_eq!(received.len(), 1);
        assert_eq!(received[0].path, TICKERS_PATH);
        assert_eq!(received[0].header("user-agent"), Some(USER_AGENT));
    }

    #[tokio::test]
    async fn market_edgar_resolves_names_ignoring_case_punctuation_and_legal_suffixes() {
        let sec = FakeSec::start().await;
        let client = sec.client();

        let apple_by_name = client.resolve(&query("apple")).await.expect("apple");
        assert_eq!(apple_by_name.name, "Apple Inc.", "the exact name beats Apple Hospitality REIT");
        assert_eq!(client.resolve(&query("LEVERCO HOLDINGS")).await.expect("leverco").cik, 1900001);
        assert_eq!(client.resolve(&query("Fallback Widgets Inc")).await.expect("fallback").cik, 1900002);
        assert_eq!(client.resolve(&query("lossmaker")).await.expect("prefix").cik, 1900003);
        assert_eq!(client.resolve(&query("AAPL")).await.expect("name as ticker").cik, 320193);
        let berkshire = client.resolve(&CompanyQuery::new("x", Some("brk.b".to_owned()))).await.expect("brk");
        assert_eq!((berkshire.cik, berkshire.ticker.as_deref()), (1067983, Some("BRK-B")));
        let alphabet = client.resolve(&query("alphabet")).await.expect("one company, two share classes");
        assert_eq!((alphabet.cik, alphabet.ticker.as_deref()), (1652044, Some("GOOGL")));
        let wrong_ticker = CompanyQuery::new("Apple Inc.", Some("ZZZZ".to_owned()));
        assert_eq!(client.resolve(&wrong_ticker).await.expect("name after unknown ticker").cik, 320193);

        let tickers_fetches = sec.received().iter().filter(|r| r.path == TICKERS_PATH).count();
        assert_eq!(tickers_fetches, 1, "the ticker list is fetched once and cached");
    }

    #[tokio::test]
    async fn market_edgar_ambiguous_names_return_the_candidates() {
        let sec = FakeSec::start().await;

        let error = sec.client().resolve(&query("Acme")).await.expect_err("ambiguous");

        let FinancialDataError::Ambiguous { query, candidates } = &error else { panic!("{error:?}") };
        assert_eq!(query, "Acme");
        let names: Vec<&str> = candidates.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["ACME UNITED CORP", "Acme Capital Holdings Inc /DE/"]);
        assert!(error.is_client_error());
    }

    #[tokio::test]
    async fn market_edgar_unknown_companies_are_named_in_the_error() {
        let sec = FakeSec::start().await;
        let client = sec.client();

        let error = client.resolve(&query("Nonexistent Widgets")).await.expect_err("unknown");
        assert!(
            matches!(&error, FinancialDataError::UnknownCompany { query } if query == "Nonexistent Widgets"),
            "{error:?}"
        );
        assert!(error.to_string().contains("Nonexistent Widgets"));
        assert!(matches!(client.resolve(&query("  ")).await, Err(FinancialDataError::UnknownCompany { .. })));
        assert!(matches!(client.resolve(&query("Inc.")).await, Err(FinancialDataError::UnknownCompany { .. })));
    }

    // ---- statements ----

    #[tokio::test]
    async fn market_edgar_healthy_company_statements_and_provenance() {
        let sec = FakeSec::start().await;
        let client = sec.client();

        let result = client.annual_statements(&apple(), 6).await.expect("statements");

        let financials = &result.financials;
        assert_eq!((financials.name(), financials.ticker()), ("Apple Inc.", Some("AAPL")));
        let ends: Vec<Date> = financials.years().iter().map(|y| y.fiscal_year_end).collect();
        assert_eq!(ends, vec![date!(2023 - 09 - 30), date!(2022 - 09 - 24), date!(2021 - 09 - 25)]);
        let fy23 = &financials.years()[0];
        assert_eq!(fy23.revenue, Some(383_285_000_000.0), "the 10-Q quarter is ignored");
        assert_eq!(fy23.operating_income, Some(114_301_000_000.0));
        assert_eq!(fy23.net_income, Some(96_995_000_000.0));
        assert_eq!(fy23.depreciation_amortization, Some(11_519_000_000.0));
        assert_eq!(fy23.interest_expense, Some(3_933_000_000.0));
        assert_eq!(fy23.total_assets, Some(352_583_000_000.0));
        assert_eq!(fy23.total_liabilities, Some(290_437_000_000.0));
        assert_eq!(fy23.equity, Some(62_146_000_000.0));
        assert_eq!(fy23.total_debt(), Some(95_281_000_000.0 + 9_822_000_000.0 + 5_985_000_000.0));
        assert_eq!(fy23.retained_earnings, Some(-214_000_000.0));
        assert_eq!(fy23.capital_expenditure, Some(10_959_000_000.0));
        assert_eq!(fy23.shares_outstanding, Some(15_552_752_000.0), "the 10-K cover, not the later 10-Q");
        assert_eq!(fy23.long_term_debt, None, "an unreported line stays None");
        let fy22 = &financials.years()[1];
        assert_eq!(fy22.revenue, Some(394_328_000_000.0));
        assert_eq!(fy22.equity, Some(50_672_000_000.0));
        assert_eq!(fy22.shares_outstanding, Some(15_943_425_000.0));
        let fy21 = &financials.years()[2];
        assert_eq!((fy21.revenue, fy21.net_income), (Some(365_817_000_000.0), Some(94_680_000_000.0)));
        assert_eq!(fy21.total_assets, None, "only the comparatives a 10-K reports");

        let revenue = result.provenance_of(date!(2023 - 09 - 30), StatementLine::Revenue).expect("provenance");
        assert_eq!(revenue.tag, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax");
        assert_eq!(revenue.value, 383_285_000_000.0);
        assert_eq!(revenue.accession_number, "0000320193-23-000106");
        assert_eq!(revenue.form, "10-K");
        assert_eq!(revenue.period_start, Some(date!(2022 - 09 - 25)));
        assert_eq!(revenue.period_end, date!(2023 - 09 - 30));
        assert_eq!(revenue.filed, date!(2023 - 11 - 03));
        assert_eq!(revenue.source_url, format!("http://{}{}CIK0000320193.json", sec.addr, FACTS_PREFIX));
        assert_eq!(revenue.derivation, None);
        let fy22_revenue = result.provenance_of(date!(2022 - 09 - 24), StatementLine::Revenue).expect("fy22");
        assert_eq!(fy22_revenue.accession_number, "0000320193-23-000106", "the later comparative wins");
        let assets = result.provenance_of(date!(2023 - 09 - 30), StatementLine::TotalAssets).expect("assets");
        assert_eq!((assets.tag.as_str(), assets.period_start), ("us-gaap:Assets", None));
        let shares = result.provenance_of(date!(2023 - 09 - 30), StatementLine::SharesOutstanding).expect("shares");
        assert_eq!(
            (shares.tag.as_str(), shares.period_end),
            ("dei:EntityCommonStockSharesOutstanding", date!(2023 - 10 - 20))
        );
        assert_eq!(fy21.equity, Some(63_090_000_000.0), "the opening equity of the 2022 10-K");
        assert_eq!(result.provenance.len(), 21 + 21 + 3, "one entry per reported line and year");
        let received = sec.received();
        assert_eq!(received.last().map(|r| r.header("user-agent")), Some(Some(USER_AGENT)));
    }

    #[tokio::test]
    async fn market_edgar_leveraged_company_takes_restatements_and_amendments() {
        let sec = FakeSec::start().await;

        let result = sec
            .client()
            .annual_statements(&company(1900001, "Leverco Holdings Corp.", "LVRG"), 5)
            .await
            .expect("statements");

        let fy23 = result.financials.latest().expect("fy23");
        assert_eq!(fy23.fiscal_year_end, date!(2023 - 12 - 31));
        assert_eq!(fy23.revenue, Some(2_000_000_000.0));
        assert_eq!(fy23.net_income, Some(8_000_000.0), "the 10-K/A amends the 10-K");
        assert_eq!(fy23.total_debt(), Some(2_600_000_000.0 + 200_000_000.0));
        assert_eq!(fy23.ebitda(), Some(400_000_000.0));
        let leverage = fy23.total_debt().zip(fy23.ebitda()).map(|(debt, ebitda)| debt / ebitda);
        assert_eq!(leverage, Some(7.0));
        let net_income = result.provenance_of(fy23.fiscal_year_end, StatementLine::NetIncome).expect("ni");
        assert_eq!(
            (net_income.form.as_str(), net_income.accession_number.as_str()),
            ("10-K/A", "0001900001-24-000011")
        );
        let fy22 = result.financials.prior().expect("fy22");
        assert_eq!(fy22.revenue, Some(1_880_000_000.0), "the restated comparative replaces the original");
        assert_eq!(fy22.net_income, Some(-5_000_000.0));
        let restated = result.provenance_of(fy22.fiscal_year_end, StatementLine::Revenue).expect("restated");
        assert_eq!(
            (restated.accession_number.as_str(), restated.filed),
            ("0001900001-24-000003", date!(2024 - 02 - 27))
        );
    }

    #[tokio::test]
    async fn market_edgar_missing_tags_use_the_fallbacks_and_the_liabilities_derivation() {
        let sec = FakeSec::start().await;

        let result = sec
            .client()
            .annual_statements(&company(1900002, "Fallback Widgets, Inc.", "FBWG"), 5)
            .await
            .expect("statements");

        let [fy23, fy22] = result.financials.years() else { panic!("two years: {:?}", result.financials) };
        assert_eq!(fy23.fiscal_year_end, date!(2023 - 06 - 30));
        assert_eq!(fy23.revenue, Some(540_000_000.0));
        assert_eq!(fy22.revenue, Some(500_000_000.0));
        let tag = |end, line| result.provenance_of(end, line).map(|p| p.tag.clone());
        assert_eq!(
            tag(fy23.fiscal_year_end, StatementLine::Revenue).as_deref(),
            Some("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")
        );
        assert_eq!(tag(fy22.fiscal_year_end, StatementLine::Revenue).as_deref(), Some("us-gaap:SalesRevenueNet"));
        assert_eq!(fy23.depreciation_amortization, Some(22_000_000.0));
        assert_eq!(
            tag(fy23.fiscal_year_end, StatementLine::DepreciationAmortization).as_deref(),
            Some("us-gaap:DepreciationAndAmortization")
        );
        assert_eq!(fy23.interest_expense, Some(4_500_000.0));
        assert_eq!(
            tag(fy23.fiscal_year_end, StatementLine::InterestExpense).as_deref(),
            Some("us-gaap:InterestExpenseNonoperating")
        );

        assert_eq!(fy23.total_liabilities, Some(760_000_000.0 - 445_000_000.0));
        assert_eq!(fy22.total_liabilities, Some(700_000_000.0 - 400_000_000.0));
        let derived =
            result.provenance_of(fy23.fiscal_year_end, StatementLine::TotalLiabilities).expect("derived liabilities");
        assert_eq!(derived.tag, "us-gaap:LiabilitiesAndStockholdersEquity - us-gaap:StockholdersEquity");
        let derivation = derived.derivation.as_deref().expect("derivation recorded");
        assert!(derivation.contains("760000000") && derivation.contains("445000000"), "{derivation}");

        assert_eq!(fy23.shares_outstanding, Some(34_500_000.0), "two share classes summed");
        let shares = result.provenance_of(fy23.fiscal_year_end, StatementLine::SharesOutstanding).expect("shares");
        assert!(shares.derivation.as_deref().is_some_and(|d| d.contains("2 share classes")), "{shares:?}");
        assert_eq!(fy22.shares_outstanding, Some(30_000_000.0));
    }

    #[tokio::test]
    async fn market_edgar_net_loss_is_kept_negative() {
        let sec = FakeSec::start().await;

        let result = sec
            .client()
            .annual_statements(&company(1900003, "Lossmaker Therapeutics, Inc.", "LOSS"), 5)
            .await
            .expect("statements");

        let [fy23] = result.financials.years() else { panic!("one year: {:?}", result.financials) };
        assert_eq!(fy23.net_income, Some(-150_000_000.0));
        assert_eq!(fy23.ebit(), Some(-140_000_000.0));
        assert_eq!(fy23.cash_from_operations, Some(-120_000_000.0));
        assert_eq!(fy23.retained_earnings, Some(-900_000_000.0));
        assert_eq!(fy23.income_tax, Some(0.0));
        assert_eq!(fy23.depreciation_amortization, None);
        assert_eq!(fy23.ebitda(), None, "no D&A reported, none invented");
        assert_eq!(fy23.shares_outstanding, None);
    }

    #[tokio::test]
    async fn market_edgar_years_limits_the_fiscal_years_newest_first() {
        let sec = FakeSec::start().await;

        let result = sec.client().annual_statements(&apple(), 1).await.expect("statements");

        let ends: Vec<Date> = result.financials.years().iter().map(|y| y.fiscal_year_end).collect();
        assert_eq!(ends, vec![date!(2023 - 09 - 30)]);
        assert!(result.provenance.iter().all(|p| p.statement_end == date!(2023 - 09 - 30)));
    }

    #[tokio::test]
    async fn market_edgar_company_without_facts_has_no_statements() {
        let sec = FakeSec::start().await;

        let error =
            sec.client().annual_statements(&company(1900005, "No XBRL Shell Co", "NOXB"), 5).await.expect_err("404");

        assert!(
            matches!(&error, FinancialDataError::NoStatements { provider: "SEC EDGAR", company, reason }
                if company == "No XBRL Shell Co" && reason.contains("CIK 0001900005")),
            "{error:?}"
        );
        assert!(error.is_client_error());
        assert_eq!(sec.received().len(), 1, "a 404 is not retried");
    }

    // ---- failures, retries, rate limit ----

    #[tokio::test]
    async fn market_edgar_retries_a_503_then_succeeds() {
        let sec = FakeSec::start().await;
        sec.fail_next(503, None);
        sec.fail_next(429, Some("0"));

        let result = sec.client().annual_statements(&apple(), 2).await.expect("statements after retries");

        assert_eq!(result.financials.years().len(), 2);
        assert_eq!(sec.received().len(), 3);
    }

    #[tokio::test]
    async fn market_edgar_persistent_500_is_unavailable_naming_the_provider() {
        let sec = FakeSec::start().await;
        sec.always_fail();
        let client = sec.client();

        let error = client.annual_statements(&apple(), 2).await.expect_err("unavailable");
        assert_unavailable(&error);
        assert!(error.to_string().contains("500"), "{error}");
        assert_eq!(sec.received().len(), 3, "three attempts");

        let error = client.resolve(&query("apple")).await.expect_err("unavailable");
        assert_unavailable(&error);
    }

    #[tokio::test]
    async fn market_edgar_timeout_is_unavailable() {
        let sec = FakeSec::start().await;
        sec.delay(Duration::from_secs(3));
        let client =
            EdgarClient::new(EdgarSettings { timeout: Duration::from_millis(200), ..sec.settings() }).expect("client");
        let started = std::time::Instant::now();

        let error = client.annual_statements(&apple(), 2).await.expect_err("timeout");

        assert_unavailable(&error);
        assert!(started.elapsed() < Duration::from_secs(3), "not waiting for the slow answer");
        assert_eq!(sec.received().len(), 1, "a timeout is not retried");
    }

    #[tokio::test]
    async fn market_edgar_connection_refused_is_unavailable_after_retries() {
        let refused = refused_url("");
        let client = EdgarClient::new(EdgarSettings {
            tickers_url: format!("{refused}/files/company_tickers.json"),
            facts_base_url: format!("{refused}/api/xbrl/companyfacts"),
            retry_base_delay: Duration::from_millis(1),
            ..EdgarSettings::new(USER_AGENT)
        })
        .expect("client");

        let error = client.resolve(&query("apple")).await.expect_err("refused");

        assert_unavailable(&error);
        assert!(error.to_string().contains("3 attempts"), "{error}");
    }

    #[tokio::test]
    async fn market_edgar_respects_the_request_rate_across_calls() {
        let sec = FakeSec::start().await;
        let client = EdgarClient::new(EdgarSettings { max_requests_per_second: 10, ..sec.settings() }).expect("client");
        let started = std::time::Instant::now();

        let lossmaker = company(1900003, "Lossmaker", "LOSS");
        let calls = (0..12).map(|_| client.annual_statements(&lossmaker, 1));
        let results = futures_util::future::join_all(calls).await;

        assert!(results.iter().all(Result::is_ok));
        let elapsed = started.elapsed();
        assert!(elapsed >= Duration::from_millis(1050), "12 requests at 10/s take at least 1.1 s: {elapsed:?}");
    }

    #[test]
    fn market_edgar_settings_are_validated() {
        let settings = EdgarSettings::new(USER_AGENT);
        assert_eq!(settings.max_requests_per_second, 10);
        assert!(EdgarClient::new(settings.clone()).is_ok());
        assert!(EdgarClient::new(EdgarSettings { user_agent: " ".to_owned(), ..settings.clone() }).is_err());
        assert!(EdgarClient::new(EdgarSettings { max_requests_per_second: 0, ..settings.clone() }).is_err());
        assert!(EdgarClient::new(EdgarSettings { tickers_url: "ftp://x/y".to_owned(), ..settings.clone() }).is_err());
        assert!(EdgarClient::new(EdgarSettings { facts_base_url: "not a url".to_owned(), ..settings }).is_err());
    }

    // ---- pure parsing ----

    #[test]
    fn market_company_names_normalise_case_punctuation_and_suffixes() {
        assert_eq!(normalise_company_name("Apple Inc."), "apple");
        assert_eq!(normalise_company_name("APPLE INC"), "apple");
        assert_eq!(normalise_company_name("Acme Capital Holdings Inc /DE/"), "acme capital holdings");
        assert_eq!(normalise_company_name("McDonald's Corp"), "mcdonalds");
        assert_eq!(normalise_company_name("AT&T Inc."), "at t");
        assert_eq!(normalise_company_name("Johnson & Johnson"), "johnson johnson");
        assert_eq!(normalise_company_name("Amazon.com, Inc."), "amazon com");
        assert_eq!(normalise_company_name("The Coca-Cola Co"), "coca cola");
        assert_eq!(normalise_company_name("Inc."), "inc", "one word is always kept");
    }

    #[test]
    fn market_malformed_ticker_lists_are_invalid_data() {
        for body in [
            "[]",
            "{\"0\":{\"ticker\":\"X\",\"title\":\"X\"}}",
            "{\"0\":{\"cik_str\":\"abc\",\"ticker\":\"X\",\"title\":\"X\"}}",
            "<html>",
        ] {
            let error = TickerIndex::parse(body.as_bytes(), PROVIDER).expect_err(body);
            assert!(
                matches!(error, FinancialDataError::InvalidData { provider: "SEC EDGAR", .. }),
                "{body}: {error:?}"
            );
        }
        let index = TickerIndex::parse(TICKERS_JSON.as_bytes(), PROVIDER).expect("fixture");
        assert_eq!(index.len(), 11);
    }

    #[test]
    fn market_facts_of_another_company_are_invalid_data_and_without_annual_facts_no_statements() {
        let (_, apple_facts) = FACTS[0];
        let other = company(1900001, "Leverco", "LVRG");
        let error = annual_statements_from_facts(apple_facts.as_bytes(), &other, 5, "u", PROVIDER).expect_err("cik");
        assert!(matches!(&error, FinancialDataError::InvalidData { reason, .. } if reason.contains("CIK 320193")));

        let quarterly_only = r#"{"cik":1,"entityName":"Q","facts":{"us-gaap":{"Revenues":{"units":{"USD":[
            {"start":"2023-01-01","end":"2023-03-31","val":5,"accn":"a","form":"10-Q","filed":"2023-05-01"}]}}}}}"#;
        let error = annual_statements_from_facts(quarterly_only.as_bytes(), &company(1, "Q", "Q"), 5, "u", PROVIDER)
            .expect_err("no annual facts");
        assert!(matches!(error, FinancialDataError::NoStatements { .. }), "{error:?}");

        let broken = r#"{"cik":1,"facts":{"us-gaap":{"Revenues":{"units":{"USD":[{"end":"2023-03-31","val":"x"}]}}}}}"#;
        let error = annual_statements_from_facts(broken.as_bytes(), &company(1, "Q", "Q"), 5, "u", PROVIDER)
            .expect_err("malformed");
        assert!(
            matches!(&error, FinancialDataError::InvalidData { reason, .. } if reason.contains("Revenues")),
            "{error:?}"
        );
    }

    #[test]
    fn market_facts_outside_the_annual_window_are_ignored() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2022-01-01","end":"2023-12-31","val":1,"accn":"two-years","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":100,"accn":"a","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":999,"accn":"b","form":"8-K","filed":"2024-03-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":555,"accn":"c","form":"10-KT","filed":"2024-03-01"}]}},
            "Assets":{"units":{"USD":[
              {"end":"2023-12-31","val":50,"accn":"a","form":"10-K","filed":"2024-02-01"},
              {"end":"2023-09-30","val":40,"accn":"q","form":"10-Q","filed":"2023-11-01"}],
              "EUR":[{"end":"2023-12-31","val":7,"accn":"e","form":"10-K","filed":"2024-02-01"}]}}}}}"#;
        let result = annual_statements_from_facts(facts.as_bytes(), &company(1, "Q", "Q"), 5, "u", PROVIDER)
            .expect("statements");
        let [year] = result.financials.years() else { panic!("{:?}", result.financials) };
        assert_eq!((year.revenue, year.total_assets), (Some(100.0), Some(50.0)));
    }

    // ---- quarters ----

    const ONE: fn() -> ResolvedCompany = || company(1, "Q", "Q");

    fn quarters_of(json: &str, quarters: usize) -> QuarterlyStatementsWithProvenance {
        statements_from_facts(json.as_bytes(), &ONE(), 6, quarters, "u", PROVIDER).expect("statements").quarterly
    }

    fn ends(quarterly: &QuarterlyStatementsWithProvenance) -> Vec<Date> {
        quarterly.statements.quarters().iter().map(|q| q.period_end).collect()
    }

    fn quarter(quarterly: &QuarterlyStatementsWithProvenance, end: Date) -> &QuarterStatement {
        quarterly
            .statements
            .quarters()
            .iter()
            .find(|q| q.period_end == end)
            .unwrap_or_else(|| panic!("no quarter {end}"))
    }

    #[test]
    fn market_quarters_are_three_month_10q_flows_and_the_latest_filing_wins() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":1000,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2024-01-01","end":"2024-03-31","val":240,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"start":"2024-01-01","end":"2024-03-31","val":230,"accn":"q1a","form":"10-Q/A","filed":"2024-06-01"},
              {"start":"2024-04-01","end":"2024-06-30","val":250,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-01-01","end":"2024-06-30","val":490,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-04-16","end":"2024-06-30","val":1,"accn":"75-days","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-07-01","end":"2024-10-15","val":2,"accn":"106-days","form":"10-Q","filed":"2024-11-01"},
              {"start":"2024-07-01","end":"2024-09-30","val":3,"accn":"three-months-in-a-10-K","form":"10-K","filed":"2024-11-01"},
              {"start":"2024-07-01","end":"2024-09-30","val":4,"accn":"8k","form":"8-K","filed":"2024-11-01"}]}},
            "Assets":{"units":{"USD":[
              {"end":"2024-03-31","val":900,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"end":"2024-03-31","val":905,"accn":"q1a","form":"10-Q/A","filed":"2024-06-01"},
              {"end":"2024-06-30","val":910,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"end":"2024-06-30","val":999,"accn":"8k","form":"8-K","filed":"2024-09-01"}]}}}}}"#;

        let quarterly = quarters_of(facts, 8);

        assert_eq!(
            ends(&quarterly),
            vec![date!(2024 - 06 - 30), date!(2024 - 03 - 31)],
            "75 and 106 days are no quarter"
        );
        let q1 = quarter(&quarterly, date!(2024 - 03 - 31));
        assert_eq!((q1.period_start, q1.source), (date!(2024 - 01 - 01), QuarterSource::QuarterlyReport));
        assert_eq!((q1.lines.revenue, q1.lines.total_assets), (Some(230.0), Some(905.0)), "the 10-Q/A restates");
        let revenue = quarterly.provenance_of(q1.period_end, StatementLine::Revenue).expect("provenance");
        assert_eq!((revenue.accession_number.as_str(), revenue.form.as_str()), ("q1a", "10-Q/A"));
        assert_eq!((revenue.period_start, revenue.period_end), (Some(date!(2024 - 01 - 01)), date!(2024 - 03 - 31)));
        assert_eq!(revenue.derivation, None);
        let q2 = quarter(&quarterly, date!(2024 - 06 - 30));
        assert_eq!(q2.lines.revenue, Some(250.0), "the three-month fact, not the half year less Q1");
        assert_eq!(q2.lines.total_assets, Some(910.0), "an 8-K is not a periodic report");
        assert!(quarterly.left_out.is_empty(), "{:?}", quarterly.left_out);

        let annual = statements_from_facts(facts.as_bytes(), &ONE(), 6, 8, "u", PROVIDER).expect("statements").annual;
        assert_eq!(annual.financials.latest().and_then(|y| y.revenue), Some(1000.0), "annual figures are unchanged");
        assert_eq!(ends(&quarters_of(facts, 1)), vec![date!(2024 - 06 - 30)], "the latest `quarters`");
        assert!(quarters_of(facts, 0).statements.is_empty());
    }

    #[test]
    fn market_a_fourth_quarter_is_the_fiscal_year_less_three_reported_quarters_of_one_tag() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2022-01-01","end":"2022-12-31","val":900,"accn":"k22","form":"10-K","filed":"2023-02-01"},
              {"start":"2022-01-01","end":"2022-03-31","val":200,"accn":"q1-22","form":"10-Q","filed":"2022-05-01"},
              {"start":"2022-07-01","end":"2022-09-30","val":220,"accn":"q3-22","form":"10-Q","filed":"2022-11-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":1000,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-03-31","val":230,"accn":"q1","form":"10-Q","filed":"2023-05-01"},
              {"start":"2023-04-01","end":"2023-06-30","val":240,"accn":"q2","form":"10-Q","filed":"2023-08-01"},
              {"start":"2023-07-01","end":"2023-09-30","val":250,"accn":"q3","form":"10-Q","filed":"2023-11-01"}]}},
            "NetIncomeLoss":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":100,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":90,"accn":"k23a","form":"10-K/A","filed":"2024-04-01"},
              {"start":"2023-01-01","end":"2023-03-31","val":20,"accn":"q1","form":"10-Q","filed":"2023-05-01"},
              {"start":"2023-01-01","end":"2023-06-30","val":45,"accn":"q2","form":"10-Q","filed":"2023-08-01"},
              {"start":"2023-07-01","end":"2023-09-30","val":30,"accn":"q3","form":"10-Q","filed":"2023-11-01"}]}},
            "DepreciationDepletionAndAmortization":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-03-31","val":5,"accn":"q1","form":"10-Q","filed":"2023-05-01"},
              {"start":"2023-04-01","end":"2023-06-30","val":5,"accn":"q2","form":"10-Q","filed":"2023-08-01"},
              {"start":"2023-07-01","end":"2023-09-30","val":5,"accn":"q3","form":"10-Q","filed":"2023-11-01"}]}},
            "DepreciationAndAmortization":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":21,"accn":"k23","form":"10-K","filed":"2024-02-01"}]}},
            "Assets":{"units":{"USD":[
              {"end":"2023-12-31","val":700,"accn":"k23","form":"10-K","filed":"2024-02-01"}]}}}}}"#;

        let quarterly = quarters_of(facts, 8);

        let expected_ends = [(2023, 12, 31), (2023, 9, 30), (2023, 6, 30), (2023, 3, 31), (2022, 9, 30), (2022, 3, 31)]
            .map(|(y, m, d)| Date::from_calendar_date(y, time::Month::try_from(m).expect("month"), d).expect("date"));
        assert_eq!(ends(&quarterly), expected_ends.to_vec());
        let q4 = quarter(&quarterly, date!(2023 - 12 - 31));
        assert_eq!((q4.period_start, q4.source), (date!(2023 - 10 - 01), QuarterSource::DerivedFourthQuarter));
        assert_eq!(q4.lines.revenue, Some(1000.0 - 230.0 - 240.0 - 250.0));
        assert_eq!(
            q4.lines.net_income,
            Some(90.0 - 20.0 - (45.0 - 20.0) - 30.0),
            "the 10-K/A, and Q2 from year to date"
        );
        assert_eq!(q4.lines.depreciation_amortization, None, "no tag holds the year and all three quarters");
        assert_eq!(q4.lines.total_assets, Some(700.0), "the fiscal year's balance sheet");
        let revenue = quarterly.provenance_of(q4.period_end, StatementLine::Revenue).expect("provenance");
        assert_eq!((revenue.accession_number.as_str(), revenue.form.as_str()), ("k23", "10-K"));
        assert_eq!((revenue.period_start, revenue.period_end), (Some(date!(2023 - 10 - 01)), date!(2023 - 12 - 31)));
        let derivation = revenue.derivation.as_deref().expect("derivation");
        for part in
            ["fiscal year 2023-01-01 to 2023-12-31 1000", "Q1 230 (accn q1)", "Q2 240 (accn q2)", "Q3 250 (accn q3)"]
        {
            assert!(derivation.contains(part), "{part}: {derivation}");
        }
        let net_income = quarterly.provenance_of(q4.period_end, StatementLine::NetIncome).expect("provenance");
        assert_eq!(net_income.form, "10-K/A");

        let [note] = quarterly.left_out.as_slice() else { panic!("{:?}", quarterly.left_out) };
        assert!(
            note.contains("2022-01-01 to 2022-12-31") && note.contains("Q2 (a quarter starting 2022-04-01)"),
            "{note}"
        );
        assert!(!ends(&quarterly).contains(&date!(2022 - 12 - 31)), "no fourth quarter is estimated");
    }

    #[test]
    fn market_quarters_reported_only_year_to_date_are_the_difference_of_two_cumulations() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":1000,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2024-01-01","end":"2024-03-31","val":230,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"start":"2024-04-01","end":"2024-06-30","val":240,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-07-01","end":"2024-09-30","val":250,"accn":"q3","form":"10-Q","filed":"2024-11-01"}]}},
            "NetCashProvidedByUsedInOperatingActivities":{"units":{"USD":[
              {"start":"2024-01-01","end":"2024-03-31","val":50,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"start":"2024-01-01","end":"2024-06-30","val":120,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-01-01","end":"2024-09-30","val":160,"accn":"q3","form":"10-Q","filed":"2024-11-01"}]}},
            "PaymentsToAcquirePropertyPlantAndEquipment":{"units":{"USD":[
              {"start":"2024-01-01","end":"2024-06-30","val":30,"accn":"q2","form":"10-Q","filed":"2024-08-01"}]}}}}}"#;

        let quarterly = quarters_of(facts, 8);

        let cfo = |end| quarter(&quarterly, end).lines.cash_from_operations;
        assert_eq!(cfo(date!(2024 - 03 - 31)), Some(50.0));
        assert_eq!(cfo(date!(2024 - 06 - 30)), Some(70.0));
        assert_eq!(cfo(date!(2024 - 09 - 30)), Some(40.0));
        let q3 = quarterly.provenance_of(date!(2024 - 09 - 30), StatementLine::CashFromOperations).expect("provenance");
        assert_eq!(q3.accession_number, "q3", "the quarter's own 10-Q");
        assert_eq!(
            q3.derivation.as_deref(),
            Some(
                "year to date 2024-01-01 to 2024-09-30 160 (accn q3) - year to date 2024-01-01 to 2024-06-30 120 (accn q2)"
            )
        );
        assert_eq!(
            quarter(&quarterly, date!(2024 - 06 - 30)).lines.capital_expenditure,
            None,
            "a half year without its first quarter gives no second quarter"
        );
    }

    #[test]
    fn market_a_fourth_quarter_needs_q1_from_the_first_day_and_a_quarter_length_remainder() {
        let day = |y, m: u8, d| Date::from_calendar_date(y, time::Month::try_from(m).expect("month"), d).expect("date");
        let quarters =
            |list: &[(Date, Date)]| list.iter().map(|&(start, end)| (start, end)).collect::<BTreeMap<_, _>>();
        let tiled = quarters(&[
            (day(2023, 1, 1), day(2023, 3, 31)),
            (day(2023, 4, 1), day(2023, 6, 30)),
            (day(2023, 7, 1), day(2023, 9, 30)),
        ]);
        let fourth = FourthQuarter::of(&tiled, day(2023, 1, 1), day(2023, 12, 31)).expect("fourth");
        assert_eq!(fourth.start, day(2023, 10, 1));

        let error = FourthQuarter::of(&tiled, day(2023, 1, 1), day(2024, 1, 31)).err().expect("too long");
        assert!(error.contains("leaving 123 days"), "{error}");
        let error = FourthQuarter::of(&tiled, day(2022, 12, 25), day(2023, 12, 24)).err().expect("other start");
        assert!(error.contains("Q1 (a quarter starting 2022-12-25)"), "{error}");
        let gap = quarters(&[(day(2023, 1, 1), day(2023, 3, 31)), (day(2023, 4, 2), day(2023, 6, 30))]);
        let error = FourthQuarter::of(&gap, day(2023, 1, 1), day(2023, 12, 31)).err().expect("gap");
        assert!(error.contains("Q2 (a quarter starting 2023-04-01)"), "{error}");
    }

    #[tokio::test]
    async fn market_edgar_healthy_company_quarters_with_a_derived_fourth_quarter() {
        let sec = FakeSec::start().await;

        let statements = sec.client().statements(&apple(), 6, 8).await.expect("statements");

        let quarterly = &statements.quarterly;
        let expected: Vec<Date> = vec![
            date!(2023 - 12 - 30),
            date!(2023 - 09 - 30),
            date!(2023 - 07 - 01),
            date!(2023 - 04 - 01),
            date!(2022 - 12 - 31),
        ];
        assert_eq!(ends(quarterly), expected);
        let q4 = quarter(quarterly, date!(2023 - 09 - 30));
        assert_eq!((q4.period_start, q4.source), (date!(2023 - 07 - 02), QuarterSource::DerivedFourthQuarter));
        let billions = |v: f64| v * 1e6;
        assert_eq!(q4.lines.revenue, Some(billions(383_285.0 - 117_154.0 - 94_836.0 - 81_797.0)));
        assert_eq!(q4.lines.depreciation_amortization, Some(billions(11_519.0 - 8_866.0)), "FY less nine months");
        assert_eq!(q4.lines.equity, Some(billions(62_146.0)));
        let q2 = quarter(quarterly, date!(2023 - 04 - 01));
        assert_eq!(q2.lines.depreciation_amortization, Some(billions(5_814.0 - 2_916.0)));
        assert_eq!(q2.lines.revenue, Some(billions(94_836.0)));
        let latest = quarter(quarterly, date!(2023 - 12 - 30));
        assert_eq!(latest.lines.revenue, Some(119_575_000_000.0));
        assert_eq!(latest.lines.interest_expense, None, "not reported that quarter, not invented");
        assert_eq!(latest.lines.total_debt(), Some(billions(95_088.0 + 10_954.0 + 1_998.0)));
        let q1_revenue =
            quarterly.provenance_of(date!(2022 - 12 - 31), StatementLine::Revenue).expect("provenance of Q1 FY2023");
        assert_eq!(q1_revenue.accession_number, "0000320193-24-000006", "the later comparative wins");
        assert_eq!(q1_revenue.source_url, format!("http://{}{}CIK0000320193.json", sec.addr, FACTS_PREFIX));
        assert!(quarterly.left_out.is_empty(), "{:?}", quarterly.left_out);
        assert_eq!(statements.annual.financials.latest().and_then(|y| y.revenue), Some(383_285_000_000.0));
        assert_eq!(sec.received().len(), 1, "annual and quarterly statements from one fetch");
    }

    #[tokio::test]
    async fn market_edgar_leveraged_company_quarters_take_the_amended_10q_and_10k() {
        let sec = FakeSec::start().await;

        let statements = sec
            .client()
            .statements(&company(1900001, "Leverco Holdings Corp.", "LVRG"), 6, 8)
            .await
            .expect("statements");

        let quarterly = &statements.quarterly;
        let q1 = quarter(quarterly, date!(2024 - 03 - 31));
        assert_eq!(q1.lines.revenue, Some(476_000_000.0), "the 10-Q/A restates the 10-Q");
        let revenue = quarterly.provenance_of(q1.period_end, StatementLine::Revenue).expect("provenance");
        assert_eq!((revenue.form.as_str(), revenue.accession_number.as_str()), ("10-Q/A", "0001900001-24-000025"));
        let q4 = quarter(quarterly, date!(2023 - 12 - 31));
        assert_eq!(q4.lines.net_income, Some(2_000_000.0), "8 (10-K/A) - 1 - 2 - 3, in millions");
        let net_income = quarterly.provenance_of(q4.period_end, StatementLine::NetIncome).expect("provenance");
        assert_eq!(net_income.form, "10-K/A");
        assert_eq!(ends(quarterly).len(), 6);
    }

    #[tokio::test]
    async fn market_edgar_missing_second_quarter_leaves_the_fourth_out_and_says_so() {
        let sec = FakeSec::start().await;

        let statements = sec
            .client()
            .statements(&company(1900002, "Fallback Widgets, Inc.", "FBWG"), 6, 8)
            .await
            .expect("statements");

        let quarterly = &statements.quarterly;
        let expected: Vec<Date> =
            vec![date!(2023 - 12 - 31), date!(2023 - 09 - 30), date!(2023 - 03 - 31), date!(2022 - 09 - 30)];
        assert_eq!(ends(quarterly), expected);
        let [note] = quarterly.left_out.as_slice() else { panic!("{:?}", quarterly.left_out) };
        assert!(note.contains("2022-07-01 to 2023-06-30") && note.contains("Q2"), "{note}");
        let tag = |end, line| quarterly.provenance_of(end, line).map(|p| p.tag.clone());
        assert_eq!(tag(date!(2022 - 09 - 30), StatementLine::Revenue).as_deref(), Some("us-gaap:SalesRevenueNet"));
        assert_eq!(
            tag(date!(2023 - 12 - 31), StatementLine::Revenue).as_deref(),
            Some("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")
        );
        assert_eq!(
            tag(date!(2023 - 12 - 31), StatementLine::InterestExpense).as_deref(),
            Some("us-gaap:InterestExpenseNonoperating")
        );
        let latest = quarter(quarterly, date!(2023 - 12 - 31));
        assert_eq!(latest.lines.total_liabilities, Some(785_000_000.0 - 465_000_000.0), "derived at the quarter end");
    }

    #[tokio::test]
    async fn market_edgar_company_without_10q_facts_has_no_quarters_and_says_so() {
        let sec = FakeSec::start().await;

        let statements = sec
            .client()
            .statements(&company(1900003, "Lossmaker Therapeutics, Inc.", "LOSS"), 6, 8)
            .await
            .expect("statements");

        assert!(statements.quarterly.statements.is_empty());
        assert_eq!(
            statements.quarterly.left_out,
            vec!["no quarterly (10-Q) facts of three-month periods are reported".to_owned()]
        );
        assert_eq!(statements.annual.financials.years().len(), 1);
    }
}
