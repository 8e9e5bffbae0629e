//! [`WikipediaSearch`]: full-text search over Wikipedia (keyless), through the MediaWiki API
//! `GET {WIKIPEDIA_API_URL}?action=query&list=search&srsearch=…&format=json&srlimit=N`.
//!
//! The API answers titles, not links: each hit's URL is `/wiki/<Title_with_underscores>` on the API's
//! own scheme, host and port (`https://en.wikipedia.org/wiki/…` for the default endpoint, the fake
//! server's address in tests), percent-encoded the way MediaWiki writes its links. Snippets come as
//! HTML with `<span class="searchmatch">` around the matched words; they are turned into plain text.
//! MediaWiki reports some failures as a 200 with an `error` object; those are invalid responses.

use std::time::Duration;

use async_trait::async_trait;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use reqwest::Url;
use serde::Deserialize;

use super::{
    DEFAULT_RETRY, DEFAULT_SEARCH_TIMEOUT, RetryPolicy, endpoint_url, first_hits, hit, html_fragment_text, http_client,
    invalid_response, send_with_retries, with_query,
};
use crate::ports::web_search::{SearchError, SearchHit, WebSearch};

const PROVIDER: &str = "wikipedia";

/// English Wikipedia's API endpoint.
pub const DEFAULT_WIKIPEDIA_API_URL: &str = "https://en.wikipedia.org/w/api.php";

/// The most results MediaWiki returns to a client without the bot right.
const MAX_RESULTS: usize = 50;

/// What MediaWiki percent-encodes in article paths: everything but letters, digits and
/// `-_.~;:@$!*(),/` (its `wfUrlencode`), so `Moody's` becomes `Moody%27s` as in Wikipedia's own links.
const TITLE_PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'&')
    .add(b'\'')
    .add(b'+')
    .add(b'<')
    .add(b'=')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Configuration of [`WikipediaSearch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WikipediaSettings {
    /// The MediaWiki API endpoint (`WIKIPEDIA_API_URL`).
    pub base_url: String,
    /// Limit on one attempt (connect, send, whole answer).
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl Default for WikipediaSettings {
    /// English Wikipedia, 10 s per attempt, the default [`RetryPolicy`].
    fn default() -> Self {
        Self { base_url: DEFAULT_WIKIPEDIA_API_URL.to_owned(), timeout: DEFAULT_SEARCH_TIMEOUT, retry: DEFAULT_RETRY }
    }
}

/// The [`WebSearch`] port over Wikipedia's search API.
#[derive(Clone, Debug)]
pub struct WikipediaSearch {
    client: reqwest::Client,
    endpoint: Url,
    /// Scheme, host and port of the API: where article links point.
    articles: Url,
    retry: RetryPolicy,
}

impl WikipediaSearch {
    /// A client for `settings`.
    ///
    /// # Errors
    /// A `base_url` that is not an http(s) URL or holds credentials, or an HTTP client that cannot be
    /// built.
    pub fn new(settings: &WikipediaSettings) -> anyhow::Result<Self> {
        let endpoint = endpoint_url("WIKIPEDIA_API_URL", &settings.base_url)?;
        let mut articles = endpoint.clone();
        articles.set_path("/");
        articles.set_query(None);
        articles.set_fragment(None);
        let client = http_client(PROVIDER, settings.timeout)?;
        Ok(Self { client, endpoint, articles, retry: settings.retry })
    }

    /// `{scheme}://{host}[:port]/wiki/<Title_with_underscores>`.
    fn article_url(&self, title: &str) -> String {
        let path_title = utf8_percent_encode(&title.replace(' ', "_"), TITLE_PATH).to_string();
        let mut url = self.articles.clone();
        url.set_path(&format!("/wiki/{path_title}"));
        url.into()
    }
}

#[async_trait]
impl WebSearch for WikipediaSearch {
    #[tracing::instrument(name = "search.wikipedia", skip_all, fields(provider = PROVIDER, limit))]
    async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let srlimit = limit.min(MAX_RESULTS).to_string();
        let url = with_query(
            &self.endpoint,
            &[("action", "query"), ("list", "search"), ("srsearch", query), ("format", "json"), ("srlimit", &srlimit)],
        );
        let answer = send_with_retries(PROVIDER, &self.retry, || self.client.get(url.clone())).await?;
        let wire: WireAnswer = answer.json(PROVIDER)?;
        if let Some(error) = wire.error {
            return Err(invalid_response(
                PROVIDER,
                format!("the API reported error {:?}", error.code.unwrap_or_default()),
            ));
        }
        let results = wire
            .query
            .and_then(|query| query.search)
            .ok_or_else(|| invalid_response(PROVIDER, "the answer has no query.search list"))?;
        Ok(first_hits(results, limit, |result| {
            let title = result.title.filter(|title| !title.trim().is_empty())?;
            let url = self.article_url(title.trim());
            let snippet = html_fragment_text(result.snippet.as_deref().unwrap_or_default());
            hit(PROVIDER, Some(title), Some(url), snippet, result.timestamp, None)
        }))
    }

    fn name(&self) -> &str {
        PROVIDER
    }
}

// ---- wire format ----

#[derive(Deserialize)]
struct WireAnswer {
    query: Option<WireQuery>,
    error: Option<WireError>,
}

#[derive(Deserialize)]
struct WireQuery {
    search: Option<Vec<WireResult>>,
}

#[derive(Deserialize)]
struct WireResult {
    title: Option<String>,
    snippet: Option<String>,
    timestamp: Option<String>,
}

#[derive(Deserialize)]
struct WireError {
    code: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider};
    use crate::adapters::retry::test_support::fast_retries;

    fn client(provider: &FakeProvider) -> WikipediaSearch {
        WikipediaSearch::new(&WikipediaSettings {
            base_url: provider.url("/w/api.php"),
            timeout: Duration::from_secs(5),
            retry: fast_retries(),
        })
        .expect("client")
    }

    #[tokio::test]
    async fn wikipedia_results_become_hits_linking_to_articles_on_the_api_host() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            json!({"batchcomplete": "", "query": {"searchinfo": {"totalhits": 2}, "search": [
                {"ns": 0, "title": "Moody's Investors Service", "pageid": 1, "snippet":
                    "<span class=\"searchmatch\">Moody&#039;s</span> rates &quot;credit&quot; &amp; more",
                 "timestamp": "2024-05-01T10:00:00Z"},
                {"ns": 0, "title": "Credit default swap", "pageid": 2, "snippet": "A <span class=\"searchmatch\">CDS</span>"}
            ]}}),
        )])
        .await;

        let hits = client(&provider).search("Moody's & S&P ratings", 7).await.expect("hits");

        assert_eq!(hits.len(), 2);
        assert_eq!(
            hits[0],
            SearchHit {
                title: "Moody's Investors Service".to_owned(),
                url: provider.url("/wiki/Moody%27s_Investors_Service"),
                snippet: "Moody's rates \"credit\" & more".to_owned(),
                published_at: Some("2024-05-01T10:00:00Z".to_owned()),
                score: None,
                provider: "wikipedia".to_owned(),
            }
        );
        assert_eq!(hits[1].url, provider.url("/wiki/Credit_default_swap"));
        assert_eq!(hits[1].published_at, None);
        let received = provider.received();
        assert_eq!(received.len(), 1);
        assert_eq!((received[0].method.as_str(), received[0].path.as_str()), ("GET", "/w/api.php"));
        for (name, value) in
            [("action", "query"), ("list", "search"), ("srsearch", "Moody's & S&P ratings"), ("format", "json")]
        {
            assert_eq!(received[0].query_value(name), Some(value), "{name}");
        }
        assert_eq!(received[0].query_value("srlimit"), Some("7"));
        assert!(received[0].header("user-agent").is_some_and(|agent| agent.starts_with("creditflow/")));
    }

    #[tokio::test]
    async fn wikipedia_limit_is_capped_and_zero_asks_nothing() {
        let provider = FakeProvider::start(vec![Answer::json(200, json!({"query": {"search": []}}))]).await;
        let client = client(&provider);

        assert!(client.search("bonds", 0).await.expect("no hits").is_empty());
        assert!(provider.received().is_empty());
        client.search("bonds", 500).await.expect("hits");
        assert_eq!(provider.received()[0].query_value("srlimit"), Some("50"));
    }

    #[test]
    fn wikipedia_article_links_use_the_default_host_and_mediawiki_encoding() {
        let client = WikipediaSearch::new(&WikipediaSettings::default()).expect("client");
        assert_eq!(client.article_url("AC/DC"), "https://en.wikipedia.org/wiki/AC/DC");
        assert_eq!(
            client.article_url("Société Générale"),
            "https://en.wikipedia.org/wiki/Soci%C3%A9t%C3%A9_G%C3%A9n%C3%A9rale"
        );
        assert_eq!(client.article_url("100% (song)"), "https://en.wikipedia.org/wiki/100%25_(song)");
        assert_eq!(client.article_url("C++ & Rust?"), "https://en.wikipedia.org/wiki/C%2B%2B_%26_Rust%3F");
    }

    #[tokio::test]
    async fn wikipedia_error_objects_and_missing_lists_are_invalid_responses() {
        for body in [
            json!({"error": {"code": "srsearch-text-disabled", "info": "Search is disabled"}}),
            json!({"batchcomplete": ""}),
        ] {
            let provider = FakeProvider::start(vec![Answer::json(200, body)]).await;

            let error = client(&provider).search("x", 5).await.expect_err("invalid");

            assert!(matches!(error, SearchError::InvalidResponse { ref provider, .. } if provider == "wikipedia"));
        }
    }
}
