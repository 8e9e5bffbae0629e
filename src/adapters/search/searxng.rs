//! [`SearxngSearch`]: a self-hosted SearXNG metasearch instance,
//! `GET {SEARXNG_URL}/search?q=…&format=json&pageno=1`.
//!
//! SearXNG serves JSON only when its `settings.yml` lists `json` under `search.formats`; otherwise
//! it answers 403, which is reported as an invalid response saying so, because retrying or waiting
//! cannot help. It has no result-count parameter: the first page is truncated to the limit.
//! Engines sometimes leave markup or entities in `content`, so snippets are turned into plain text.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::{
    DEFAULT_RETRY, DEFAULT_SEARCH_TIMEOUT, RetryPolicy, endpoint_url, first_hits, hit, html_fragment_text, http_client,
    invalid_response, send_with_retries, with_query,
};
use crate::ports::web_search::{SearchError, SearchHit, WebSearch};

const PROVIDER: &str = "searxng";

/// Configuration of [`SearxngSearch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearxngSettings {
    /// The instance's base URL (`SEARXNG_URL`, like `http://localhost:8888`); `/search` is appended.
    pub base_url: String,
    /// Limit on one attempt (connect, send, whole answer).
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl SearxngSettings {
    /// The instance at `base_url`, 10 s per attempt, the default [`RetryPolicy`].
    pub fn new(base_url: impl Into<String>) -> Self {
        Self { base_url: base_url.into(), timeout: DEFAULT_SEARCH_TIMEOUT, retry: DEFAULT_RETRY }
    }
}

/// The [`WebSearch`] port over a SearXNG instance's JSON API.
#[derive(Clone, Debug)]
pub struct SearxngSearch {
    client: reqwest::Client,
    endpoint: Url,
    retry: RetryPolicy,
}

impl SearxngSearch {
    /// A client for `settings`.
    ///
    /// # Errors
    /// A `base_url` that is not an http(s) URL or holds credentials, or an HTTP client that cannot be
    /// built.
    pub fn new(settings: &SearxngSettings) -> anyhow::Result<Self> {
        let mut endpoint = endpoint_url("SEARXNG_URL", &settings.base_url)?;
        let path = format!("{}/search", endpoint.path().trim_end_matches('/'));
        endpoint.set_path(&path);
        let client = http_client(PROVIDER, settings.timeout)?;
        Ok(Self { client, endpoint, retry: settings.retry })
    }
}

#[async_trait]
impl WebSearch for SearxngSearch {
    #[tracing::instrument(name = "search.searxng", skip_all, fields(provider = PROVIDER, limit))]
    async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let url = with_query(&self.endpoint, &[("q", query), ("format", "json"), ("pageno", "1")]);
        let answer = send_with_retries(PROVIDER, &self.retry, || self.client.get(url.clone())).await?;
        if answer.status == StatusCode::FORBIDDEN {
            return Err(invalid_response(
                PROVIDER,
                "answered 403 Forbidden: JSON output must be enabled on the server \
                 (list json under search.formats in its settings.yml)",
            ));
        }
        let wire: WireAnswer = answer.json(PROVIDER)?;
        let results = wire.results.ok_or_else(|| invalid_response(PROVIDER, "the answer has no results list"))?;
        Ok(first_hits(results, limit, |result| {
            let snippet = html_fragment_text(result.content.as_deref().unwrap_or_default());
            hit(PROVIDER, result.title, result.url, snippet, result.published_date, result.score)
        }))
    }

    fn name(&self) -> &str {
        PROVIDER
    }
}

// ---- wire format ----

#[derive(Deserialize)]
struct WireAnswer {
    results: Option<Vec<WireResult>>,
}

#[derive(Deserialize)]
struct WireResult {
    url: Option<String>,
    title: Option<String>,
    content: Option<String>,
    score: Option<f64>,
    #[serde(rename = "publishedDate")]
    published_date: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider};
    use crate::adapters::retry::test_support::fast_retries;

    fn client(provider: &FakeProvider) -> SearxngSearch {
        let settings = SearxngSettings { retry: fast_retries(), ..SearxngSettings::new(provider.url("/searx/")) };
        SearxngSearch::new(&settings).expect("client")
    }

    #[tokio::test]
    async fn searxng_results_become_hits_truncated_to_the_limit() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            json!({"query": "acme bonds", "number_of_results": 0, "results": [
                {"url": "https://news.example/acme", "title": "Acme  issues bonds", "content": "Acme Corp &amp; <b>bonds</b>",
                 "engine": "duckduckgo", "score": 4.5, "publishedDate": "2025-03-02T00:00:00"},
                {"url": "https://acme.example/ir", "title": "Investor relations", "content": "", "engine": "bing",
                 "score": 1.0, "publishedDate": null},
                {"url": "https://third.example", "title": "Third", "content": "c", "engine": "bing", "score": 0.5}
            ], "answers": [], "suggestions": []}),
        )])
        .await;

        let hits = client(&provider).search("acme bonds 2025", 2).await.expect("hits");

        assert_eq!(
            hits,
            vec![
                SearchHit {
                    title: "Acme issues bonds".to_owned(),
                    url: "https://news.example/acme".to_owned(),
                    snippet: "Acme Corp & bonds".to_owned(),
                    published_at: Some("2025-03-02T00:00:00".to_owned()),
                    score: Some(4.5),
                    provider: "searxng".to_owned(),
                },
                SearchHit {
                    title: "Investor relations".to_owned(),
                    url: "https://acme.example/ir".to_owned(),
                    snippet: String::new(),
                    published_at: None,
                    score: Some(1.0),
                    provider: "searxng".to_owned(),
                },
            ]
        );
        let received = provider.received();
        assert_eq!(received[0].path, "/searx/search");
        assert_eq!(
            received[0].query_pairs,
            [("q", "acme bonds 2025"), ("format", "json"), ("pageno", "1")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .to_vec()
        );
    }

    #[tokio::test]
    async fn searxng_403_says_json_output_must_be_enabled() {
        let provider = FakeProvider::start(vec![Answer::json(403, "Forbidden")]).await;

        let error = client(&provider).search("acme", 5).await.expect_err("forbidden");

        assert!(matches!(error, SearchError::InvalidResponse { .. }), "{error:?}");
        assert!(error.to_string().contains("JSON output must be enabled"), "{error}");
        assert_eq!(provider.received().len(), 1, "a 403 is not retried");
    }

    #[tokio::test]
    async fn searxng_html_instead_of_json_is_an_invalid_response() {
        let provider = FakeProvider::start(vec![Answer::json(200, "<html><body>SearXNG</body></html>")]).await;

        let error = client(&provider).search("acme", 5).await.expect_err("html");

        assert!(matches!(error, SearchError::InvalidResponse { .. }), "{error:?}");
    }
}
