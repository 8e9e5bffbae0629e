//! [`TavilySearch`]: Tavily's search API, `POST {TAVILY_URL}` with `Authorization: Bearer <key>` and
//! the body `{query, max_results, search_depth: "basic", topic: "general"}`.
//!
//! Tavily's `content` is already plain text extracted from the page (it may hold code such as
//! `Vec<String>`, so it is not parsed as HTML), and `published_date` is present only for some
//! results. The key is held as a sensitive header value, which `Debug` output does not show.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::Url;
use reqwest::header::{AUTHORIZATION, HeaderValue};
use serde::{Deserialize, Serialize};

use super::{
    DEFAULT_RETRY, DEFAULT_SEARCH_TIMEOUT, RetryPolicy, api_key_header, collapse_whitespace, endpoint_url, first_hits,
    hit, http_client, invalid_response, send_with_retries,
};
use crate::config::Secret;
use crate::ports::web_search::{SearchError, SearchHit, WebSearch};

const PROVIDER: &str = "tavily";

/// Tavily's public search endpoint.
pub const DEFAULT_TAVILY_URL: &str = "https://api.tavily.com/search";

/// Tavily's `max_results` cap.
const MAX_RESULTS: usize = 20;

/// Configuration of [`TavilySearch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TavilySettings {
    /// The search endpoint (`TAVILY_URL`).
    pub base_url: String,
    /// `TAVILY_API_KEY`.
    pub api_key: Secret,
    /// Limit on one attempt (connect, send, whole answer).
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl TavilySettings {
    /// Tavily's public endpoint with `api_key`, 10 s per attempt, the default [`RetryPolicy`].
    pub fn new(api_key: Secret) -> Self {
        Self { base_url: DEFAULT_TAVILY_URL.to_owned(), api_key, timeout: DEFAULT_SEARCH_TIMEOUT, retry: DEFAULT_RETRY }
    }
}

/// The [`WebSearch`] port over Tavily's search API.
#[derive(Clone, Debug)]
pub struct TavilySearch {
    client: reqwest::Client,
    endpoint: Url,
    authorization: HeaderValue,
    retry: RetryPolicy,
}

impl TavilySearch {
    /// A client for `settings`.
    ///
    /// # Errors
    /// A `base_url` that is not an http(s) URL or holds credentials, an empty key or one that cannot
    /// be sent in a header (the error does not show it), or an HTTP client that cannot be built.
    pub fn new(settings: &TavilySettings) -> anyhow::Result<Self> {
        let endpoint = endpoint_url("TAVILY_URL", &settings.base_url)?;
        let authorization = api_key_header("TAVILY_API_KEY", &settings.api_key, "Bearer ")?;
        let client = http_client(PROVIDER, settings.timeout)?;
        Ok(Self { client, endpoint, authorization, retry: settings.retry })
    }
}

#[async_trait]
impl WebSearch for TavilySearch {
    #[tracing::instrument(name = "search.tavily", skip_all, fields(provider = PROVIDER, limit))]
    async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let request =
            WireRequest { query, max_results: limit.min(MAX_RESULTS), search_depth: "basic", topic: "general" };
        let answer = send_with_retries(PROVIDER, &self.retry, || {
            self.client.post(self.endpoint.clone()).header(AUTHORIZATION, self.authorization.clone()).json(&request)
        })
        .await?;
        let wire: WireAnswer = answer.json(PROVIDER)?;
        let results = wire.results.ok_or_else(|| invalid_response(PROVIDER, "the answer has no results list"))?;
        Ok(first_hits(results, limit, |result| {
            let snippet = collapse_whitespace(result.content.as_deref().unwrap_or_default());
            hit(PROVIDER, result.title, result.url, snippet, result.published_date, result.score)
        }))
    }

    fn name(&self) -> &str {
        PROVIDER
    }
}

// ---- wire format ----

#[derive(Serialize)]
struct WireRequest<'a> {
    query: &'a str,
    max_results: usize,
    search_depth: &'static str,
    topic: &'static str,
}

#[derive(Deserialize)]
struct WireAnswer {
    results: Option<Vec<WireResult>>,
}

#[derive(Deserialize)]
struct WireResult {
    title: Option<String>,
    url: Option<String>,
    content: Option<String>,
    score: Option<f64>,
    published_date: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::{KEY, renderings};
    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider};
    use crate::adapters::retry::test_support::fast_retries;

    fn client(provider: &FakeProvider) -> TavilySearch {
        let settings = TavilySettings {
            base_url: provider.url("/search"),
            retry: fast_retries(),
            ..TavilySettings::new(Secret::new(KEY))
        };
        TavilySearch::new(&settings).expect("client")
    }

    #[tokio::test]
    async fn tavily_posts_the_query_with_the_bearer_key_and_maps_results() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            json!({"query": "acme", "response_time": 1.2, "images": [], "results": [
                {"title": "Acme 10-K", "url": "https://sec.example/acme", "content": "Revenue of Vec<String>\n grew",
                 "score": 0.91, "raw_content": null, "published_date": "Tue, 04 Mar 2025 10:00:00 GMT"},
                {"title": "No link", "content": "x", "score": 0.5}
            ]}),
        )])
        .await;

        let hits = client(&provider).search("acme \"leverage\" 2025", 30).await.expect("hits");

        assert_eq!(
            hits,
            vec![SearchHit {
                title: "Acme 10-K".to_owned(),
                url: "https://sec.example/acme".to_owned(),
                snippet: "Revenue of Vec<String> grew".to_owned(),
                published_at: Some("Tue, 04 Mar 2025 10:00:00 GMT".to_owned()),
                score: Some(0.91),
                provider: "tavily".to_owned(),
            }]
        );
        let received = provider.received();
        assert_eq!((received[0].method.as_str(), received[0].path.as_str()), ("POST", "/search"));
        assert_eq!(received[0].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
        assert_eq!(
            received[0].body,
            json!({"query": "acme \"leverage\" 2025", "max_results": 20, "search_depth": "basic", "topic": "general"})
        );
    }

    #[tokio::test]
    async fn tavily_rejected_key_is_a_status_error_without_the_key() {
        let provider = FakeProvider::start(vec![Answer::json(
            401,
            json!({"detail": {"error": format!("Unauthorized: invalid API key {KEY}")}}),
        )])
        .await;

        let error = client(&provider).search("acme", 5).await.expect_err("unauthorized");

        assert!(matches!(error, SearchError::Status { status: 401, .. }), "{error:?}");
        assert_eq!(provider.received().len(), 1, "a 401 is not retried");
        for text in renderings(&error) {
            assert!(!text.contains(KEY), "{text}");
        }
    }

    #[test]
    fn tavily_client_debug_output_and_settings_hide_the_key() {
        let settings = TavilySettings::new(Secret::new(KEY));
        let client = TavilySearch::new(&settings).expect("client");
        assert!(!format!("{client:?}").contains(KEY));
        assert!(!format!("{settings:?}").contains(KEY));
        let empty = TavilySearch::new(&TavilySettings::new(Secret::new(" "))).expect_err("empty key");
        assert!(empty.to_string().contains("TAVILY_API_KEY"));
        let broken = TavilySearch::new(&TavilySettings::new(Secret::new("line\nbreak-secret"))).expect_err("bad key");
        assert!(!broken.to_string().contains("break-secret"), "{broken}");
    }
}
