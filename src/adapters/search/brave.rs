//! [`BraveSearch`]: Brave's web-search API, `GET {BRAVE_URL}?q=…&count=…` with the key in
//! `X-Subscription-Token`.
//!
//! Brave marks matched words in `description` with `<strong>`; snippets are turned into plain text.
//! The publication date is `page_age` (ISO 8601) when Brave gives one, else its free-text `age`
//! ("2 days ago", "March 4, 2025") as sent. An answer without a `web` section means no results.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::Url;
use reqwest::header::{ACCEPT, HeaderValue};
use serde::Deserialize;

use super::{
    DEFAULT_RETRY, DEFAULT_SEARCH_TIMEOUT, RetryPolicy, api_key_header, endpoint_url, first_hits, hit,
    html_fragment_text, http_client, send_with_retries, with_query,
};
use crate::config::Secret;
use crate::ports::web_search::{SearchError, SearchHit, WebSearch};

const PROVIDER: &str = "brave";

/// Brave's public web-search endpoint.
pub const DEFAULT_BRAVE_URL: &str = "https://api.search.brave.com/res/v1/web/search";

/// Brave's `count` cap.
const MAX_RESULTS: usize = 20;

/// Configuration of [`BraveSearch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BraveSettings {
    /// The web-search endpoint (`BRAVE_URL`).
    pub base_url: String,
    /// `BRAVE_API_KEY`.
    pub api_key: Secret,
    /// Limit on one attempt (connect, send, whole answer).
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl BraveSettings {
    /// Brave's public endpoint with `api_key`, 10 s per attempt, the default [`RetryPolicy`].
    pub fn new(api_key: Secret) -> Self {
        Self { base_url: DEFAULT_BRAVE_URL.to_owned(), api_key, timeout: DEFAULT_SEARCH_TIMEOUT, retry: DEFAULT_RETRY }
    }
}

/// The [`WebSearch`] port over Brave's web-search API.
#[derive(Clone, Debug)]
pub struct BraveSearch {
    client: reqwest::Client,
    endpoint: Url,
    token: HeaderValue,
    retry: RetryPolicy,
}

impl BraveSearch {
    /// A client for `settings`.
    ///
    /// # Errors
    /// A `base_url` that is not an http(s) URL or holds credentials, an empty key or one that cannot
    /// be sent in a header (the error does not show it), or an HTTP client that cannot be built.
    pub fn new(settings: &BraveSettings) -> anyhow::Result<Self> {
        let endpoint = endpoint_url("BRAVE_URL", &settings.base_url)?;
        let token = api_key_header("BRAVE_API_KEY", &settings.api_key, "")?;
        let client = http_client(PROVIDER, settings.timeout)?;
        Ok(Self { client, endpoint, token, retry: settings.retry })
    }
}

#[async_trait]
impl WebSearch for BraveSearch {
    #[tracing::instrument(name = "search.brave", skip_all, fields(provider = PROVIDER, limit))]
    async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let count = limit.min(MAX_RESULTS).to_string();
        let url = with_query(&self.endpoint, &[("q", query), ("count", &count)]);
        let answer = send_with_retries(PROVIDER, &self.retry, || {
            self.client
                .get(url.clone())
                .header(ACCEPT, "application/json")
                .header("x-subscription-token", self.token.clone())
        })
        .await?;
        let wire: WireAnswer = answer.json(PROVIDER)?;
        let results = wire.web.and_then(|web| web.results).unwrap_or_default();
        Ok(first_hits(results, limit, |result| {
            let snippet = html_fragment_text(result.description.as_deref().unwrap_or_default());
            let published_at = result.page_age.filter(|age| !age.trim().is_empty()).or(result.age);
            hit(PROVIDER, result.title, result.url, snippet, published_at, None)
        }))
    }

    fn name(&self) -> &str {
        PROVIDER
    }
}

// ---- wire format ----

#[derive(Deserialize)]
struct WireAnswer {
    web: Option<WireWeb>,
}

#[derive(Deserialize)]
struct WireWeb {
    results: Option<Vec<WireResult>>,
}

#[derive(Deserialize)]
struct WireResult {
    title: Option<String>,
    url: Option<String>,
    description: Option<String>,
    age: Option<String>,
    page_age: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::{KEY, renderings};
    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider};
    use crate::adapters::retry::test_support::fast_retries;

    fn client(provider: &FakeProvider) -> BraveSearch {
        let settings = BraveSettings {
            base_url: provider.url("/res/v1/web/search"),
            retry: fast_retries(),
            ..BraveSettings::new(Secret::new(KEY))
        };
        BraveSearch::new(&settings).expect("client")
    }

    #[tokio::test]
    async fn brave_sends_the_subscription_token_and_maps_web_results() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            json!({"type": "search", "query": {"original": "acme"}, "web": {"type": "search", "results": [
                {"title": "Acme Corp", "url": "https://acme.example/", "description": "<strong>Acme</strong> &amp; partners",
                 "age": "2 days ago"},
                {"title": "Acme bonds", "url": "https://bonds.example/acme", "description": "Notes due 2030",
                 "age": "March 4, 2025", "page_age": "2025-03-04T08:00:00"}
            ]}}),
        )])
        .await;

        let hits = client(&provider).search("acme & co/bonds?", 5).await.expect("hits");

        assert_eq!(hits.len(), 2);
        assert_eq!(
            hits[0],
            SearchHit {
                title: "Acme Corp".to_owned(),
                url: "https://acme.example/".to_owned(),
                snippet: "Acme & partners".to_owned(),
                published_at: Some("2 days ago".to_owned()),
                score: None,
                provider: "brave".to_owned(),
            }
        );
        assert_eq!(hits[1].published_at.as_deref(), Some("2025-03-04T08:00:00"));
        let received = provider.received();
        assert_eq!((received[0].method.as_str(), received[0].path.as_str()), ("GET", "/res/v1/web/search"));
        assert_eq!(received[0].query_value("q"), Some("acme & co/bonds?"));
        assert_eq!(received[0].query_value("count"), Some("5"));
        assert_eq!(received[0].header("x-subscription-token"), Some(KEY));
        assert_eq!(received[0].header("accept"), Some("application/json"));
    }

    #[tokio::test]
    async fn brave_without_a_web_section_has_no_hits_and_caps_the_count() {
        let provider = FakeProvider::start(vec![Answer::json(200, json!({"type": "search", "query": {}}))]).await;

        let hits = client(&provider).search("zzzz", 100).await.expect("hits");

        assert!(hits.is_empty());
        assert_eq!(provider.received()[0].query_value("count"), Some("20"));
    }

    #[tokio::test]
    async fn brave_rejected_token_is_a_status_error_without_the_key() {
        let provider = FakeProvider::start(vec![Answer::json(
            422,
            json!({"type": "ErrorResponse", "error": {"detail": format!("Unknown token {KEY}")}}),
        )])
        .await;

        let error = client(&provider).search("acme", 5).await.expect_err("rejected");

        assert!(matches!(error, SearchError::Status { status: 422, .. }), "{error:?}");
        for text in renderings(&error) {
            assert!(!text.contains(KEY), "{text}");
        }
        let debug = format!("{:?}", client(&provider));
        assert!(!debug.contains(KEY), "{debug}");
    }
}
