//! Web search providers (Wikipedia, SearXNG, Tavily, Brave) behind one trait. Each adapter maps its
//! provider's wire format (DOMAIN.md §4) onto [`SearchHit`]; merging several providers' hits and
//! deduplicating them by canonical URL is the research loop's job, so that one provider's failure is
//! recorded and the others' hits still count.

use async_trait::async_trait;

/// One search result, normalised across providers.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    pub title: String,
    /// Absolute http(s) URL of the page.
    pub url: String,
    /// The provider's excerpt, as plain text (HTML tags and entities removed).
    pub snippet: String,
    /// When the page was published or last changed, as the provider reported it (RFC 3339 or a
    /// date when it gave one; free text such as Brave's "2 days ago" is kept as sent).
    pub published_at: Option<String>,
    /// The provider's relevance score, when it gives one (not comparable across providers).
    pub score: Option<f64>,
    /// Which provider found it: `wikipedia`, `searxng`, `tavily`, `brave`.
    pub provider: String,
}

/// Why a search failed. Texts never contain an API key.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// Connection refused or reset, DNS or TLS failure, or the request timed out.
    #[error("{provider} unreachable: {reason}")]
    Unavailable { provider: String, reason: String },
    /// The provider answered an error status (after retries for 429 and 5xx).
    #[error("{provider} answered {status}")]
    Status { provider: String, status: u16 },
    /// A success answer that is not the provider's documented format.
    #[error("{provider} sent an unusable answer: {reason}")]
    InvalidResponse { provider: String, reason: String },
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait WebSearch: Send + Sync + 'static {
    /// Up to `limit` results for `query`, best first.
    ///
    /// # Errors
    /// A [`SearchError`] naming the provider; adapters retry 429 and 5xx with backoff first.
    async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError>;

    /// The provider's name as it appears in [`SearchHit::provider`] and in error statistics.
    fn name(&self) -> &str;
}
