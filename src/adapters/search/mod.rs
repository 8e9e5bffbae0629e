//! [`WebSearch`] adapters, one per provider: [`WikipediaSearch`] (keyless default),
//! [`SearxngSearch`] (a self-hosted metasearch instance), [`TavilySearch`] and [`BraveSearch`]
//! (API keys). Each maps its provider's wire format (DOMAIN.md §4) onto [`SearchHit`].
//!
//! The adapters share one request loop, [`send_with_retries`] (the providers' common
//! [`send_until_answered`] with search's errors): 429, 5xx and connection failures are retried with
//! exponential backoff and jitter, honouring the provider's `Retry-After` up to a cap; timeouts are
//! not retried (a provider too slow once is as slow again, and every attempt gets the full
//! `SEARCH_TIMEOUT`). Errors carry the provider's name and a status or a reason, never a
//! request URL, header or body, so an API key cannot leak through them or the logs.
//!
//! [`search_providers_from_config`] builds the providers `SEARCH_PROVIDERS` names, in its order.

mod brave;
mod searxng;
mod tavily;
mod wikipedia;

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use bytes::Bytes;
use reqwest::header::HeaderValue;
use reqwest::{RequestBuilder, StatusCode, Url};
use serde::de::DeserializeOwned;

use crate::adapters::retry::{FinalAnswer, NoAnswer, endpoint_url, error_chain, provider_client, send_until_answered};
use crate::config::{ResearchConfig, SearchProviderKind, Secret};
use crate::ports::web_search::{SearchError, SearchHit, WebSearch};

pub use crate::adapters::retry::RetryPolicy;
pub use brave::{BraveSearch, BraveSettings, DEFAULT_BRAVE_URL};
pub use searxng::{SearxngSearch, SearxngSettings};
pub use tavily::{DEFAULT_TAVILY_URL, TavilySearch, TavilySettings};
pub use wikipedia::{DEFAULT_WIKIPEDIA_API_URL, WikipediaSearch, WikipediaSettings};

/// 3 attempts, waits of about 500 ms then 1 s, at most 5 s when the provider asks for more.
pub const DEFAULT_RETRY: RetryPolicy =
    RetryPolicy { max_attempts: 3, base_delay: Duration::from_millis(500), max_delay: Duration::from_secs(5) };

/// Limit on one search request when none is configured.
pub const DEFAULT_SEARCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Sent on every search request; Wikimedia asks API clients to identify themselves.
const USER_AGENT: &str = concat!("creditflow/", env!("CARGO_PKG_VERSION"), " (credit research; web-search adapter)");

/// The providers `config.providers` lists, in that order, each with the default [`RetryPolicy`].
///
/// # Errors
/// A provider listed without its key or URL (the configuration normally refuses that first), a URL
/// that is not http(s), or an HTTP client that cannot be built.
pub fn search_providers_from_config(config: &ResearchConfig) -> anyhow::Result<Vec<Arc<dyn WebSearch>>> {
    let timeout = config.search_timeout;
    let retry = DEFAULT_RETRY;
    config
        .providers
        .iter()
        .map(|provider| -> anyhow::Result<Arc<dyn WebSearch>> {
            Ok(match provider {
                SearchProviderKind::Wikipedia => Arc::new(WikipediaSearch::new(&WikipediaSettings {
                    base_url: config.wikipedia_api_url.clone().unwrap_or_else(|| DEFAULT_WIKIPEDIA_API_URL.to_owned()),
                    timeout,
                    retry,
                })?),
                SearchProviderKind::Searxng => Arc::new(SearxngSearch::new(&SearxngSettings {
                    base_url: config.searxng_url.clone().context("SEARXNG_URL must be set to search with searxng")?,
                    timeout,
                    retry,
                })?),
                SearchProviderKind::Tavily => Arc::new(TavilySearch::new(&TavilySettings {
                    base_url: config.tavily_url.clone().unwrap_or_else(|| DEFAULT_TAVILY_URL.to_owned()),
                    api_key: config
                        .tavily_api_key
                        .clone()
                        .context("TAVILY_API_KEY must be set to search with tavily")?,
                    timeout,
                    retry,
                })?),
                SearchProviderKind::Brave => Arc::new(BraveSearch::new(&BraveSettings {
                    base_url: config.brave_url.clone().unwrap_or_else(|| DEFAULT_BRAVE_URL.to_owned()),
                    api_key: config.brave_api_key.clone().context("BRAVE_API_KEY must be set to search with brave")?,
                    timeout,
                    retry,
                })?),
            })
        })
        .collect()
}

/// Builds the HTTP client of a search provider: `timeout` limits each attempt as a whole.
fn http_client(provider: &str, timeout: Duration) -> anyhow::Result<reqwest::Client> {
    provider_client(provider, USER_AGENT, timeout)
}

/// `prefix` followed by the trimmed `api_key`, as a sensitive header value (hidden from `Debug`
/// output). `variable` names the key in errors, which never show it.
///
/// # Errors
/// An empty key, or one that cannot be sent in a header.
fn api_key_header(variable: &str, api_key: &Secret, prefix: &str) -> anyhow::Result<HeaderValue> {
    let key = api_key.expose().trim();
    if key.is_empty() {
        return Err(anyhow!("invalid {variable}: must not be empty"));
    }
    let mut value = HeaderValue::from_str(&format!("{prefix}{key}"))
        .map_err(|_| anyhow!("invalid {variable}: holds characters that cannot be sent in a header"))?;
    value.set_sensitive(true);
    Ok(value)
}

/// `endpoint` with `pairs` appended to its query string, form-encoded (`&`, `=`, `+`, spaces and
/// non-ASCII in a query cannot break out of their parameter).
fn with_query(endpoint: &Url, pairs: &[(&str, &str)]) -> Url {
    let mut url = endpoint.clone();
    url.query_pairs_mut().extend_pairs(pairs);
    url
}

/// A final answer of a provider: a 2xx, or a 4xx other than 429.
struct Answer {
    status: StatusCode,
    body: Bytes,
}

impl Answer {
    /// The body of a 2xx answer parsed as the provider's documented JSON; any other status is
    /// [`SearchError::Status`].
    fn json<T: DeserializeOwned>(self, provider: &str) -> Result<T, SearchError> {
        if !self.status.is_success() {
            return Err(SearchError::Status { provider: provider.to_owned(), status: self.status.as_u16() });
        }
        // serde_json's message names the position and the expected shape, never the input.
        serde_json::from_slice(&self.body)
            .map_err(|e| invalid_response(provider, format!("not the documented JSON: {e}")))
    }
}

/// Sends the request `build` makes, once per attempt. Returns the answer unless it is 429/5xx after
/// all attempts ([`SearchError::Status`]), the provider cannot be reached after all attempts, or it
/// does not answer within the client's timeout ([`SearchError::Unavailable`] either way).
async fn send_with_retries(
    provider: &'static str,
    retry: &RetryPolicy,
    build: impl Fn() -> RequestBuilder,
) -> Result<Answer, SearchError> {
    match send_until_answered(provider, "search", retry, build).await {
        Ok(FinalAnswer { status, body, .. }) => Ok(Answer { status, body }),
        Err(NoAnswer::Transport { error, attempt }) => Err(transport_error(provider, attempt, error)),
        Err(NoAnswer::Exhausted { failure, status, attempts }) => {
            tracing::debug!(provider, attempts, failure = %failure, "search request failed");
            Err(match status {
                Some(status) => SearchError::Status { provider: provider.to_owned(), status: status.as_u16() },
                None => SearchError::Unavailable {
                    provider: provider.to_owned(),
                    reason: format!("{failure} ({attempts} attempts)"),
                },
            })
        }
    }
}

fn transport_error(provider: &str, attempt: u32, error: reqwest::Error) -> SearchError {
    let reason = if error.is_timeout() {
        "no answer in time (timeout)".to_owned()
    } else {
        format!("request failed after {attempt} attempt(s): {}", error_chain(&error.without_url()))
    };
    SearchError::Unavailable { provider: provider.to_owned(), reason }
}

/// A success answer that is not `provider`'s documented format.
fn invalid_response(provider: &str, reason: impl Into<String>) -> SearchError {
    SearchError::InvalidResponse { provider: provider.to_owned(), reason: reason.into() }
}

/// Plain text of an HTML fragment (Wikipedia's `<span class="searchmatch">`, Brave's `<strong>`, a
/// page's `<title>`): tags removed, entities decoded, whitespace collapsed to single spaces.
pub(crate) fn html_fragment_text(fragment: &str) -> String {
    if !fragment.contains(['<', '&']) {
        return collapse_whitespace(fragment);
    }
    // Wide enough that no snippet is wrapped; the lines are joined below anyway.
    const WIDTH: usize = 10_000;
    match html2text::config::plain_no_decorate().string_from_read(fragment.as_bytes(), WIDTH) {
        Ok(text) => collapse_whitespace(&text),
        Err(_) => collapse_whitespace(fragment),
    }
}

/// `text` with every run of whitespace (newlines included) replaced by one space, trimmed.
fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The hits of a provider's `results`, in the provider's order: the first `limit` that `to_hit`
/// makes a hit of (a result without a usable URL is skipped and does not count).
fn first_hits<R>(results: Vec<R>, limit: usize, to_hit: impl FnMut(R) -> Option<SearchHit>) -> Vec<SearchHit> {
    results.into_iter().filter_map(to_hit).take(limit).collect()
}

/// Whether a provider's result URL is an absolute http(s) URL.
fn is_web_url(raw: &str) -> bool {
    Url::parse(raw).is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
}

/// A hit from a provider's fields, or `None` when it has no usable URL. A missing title falls back
/// to the URL so that every hit can be shown.
fn hit(
    provider: &str,
    title: Option<String>,
    url: Option<String>,
    snippet: String,
    published_at: Option<String>,
    score: Option<f64>,
) -> Option<SearchHit> {
    let url = url.map(|url| url.trim().to_owned()).filter(|url| is_web_url(url))?;
    // U+0000 is no character of a title or snippet, and PostgreSQL cannot store the research state
    // that quotes them.
    let title = title.map(|title| collapse_whitespace(&title.replace('\0', ""))).filter(|title| !title.is_empty());
    Some(SearchHit {
        title: title.unwrap_or_else(|| url.clone()),
        url,
        snippet: if snippet.contains('\0') { snippet.replace('\0', "") } else { snippet },
        published_at: published_at.map(|date| date.trim().to_owned()).filter(|date| !date.is_empty()),
        score: score.filter(|score| score.is_finite()),
        provider: provider.to_owned(),
    })
}

/// What the search adapters' tests share besides [`crate::adapters::fake_provider`].
#[cfg(test)]
mod test_support {
    /// An API key the tests send; it must never show up in an error.
    pub(super) const KEY: &str = "test-key-0123456789-very-secret";

    /// Every rendering of an error a caller might log.
    pub(super) fn renderings(error: &crate::ports::web_search::SearchError) -> [String; 2] {
        [error.to_string(), format!("{error:?}")]
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::{Value, json};

    use super::test_support::{KEY, renderings};
    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider, refused_url};
    use crate::adapters::retry::test_support::fast_retries;
    use crate::config::{Config, Secret};

    /// `kind`'s adapter against `base_url`, with fast retries.
    fn provider(kind: SearchProviderKind, base_url: String, timeout: Duration) -> Arc<dyn WebSearch> {
        let retry = fast_retries();
        let key = Secret::new(KEY);
        match kind {
            SearchProviderKind::Wikipedia => Arc::new(
                WikipediaSearch::new(&WikipediaSettings { base_url: format!("{base_url}/w/api.php"), timeout, retry })
                    .expect("wikipedia"),
            ),
            SearchProviderKind::Searxng => {
                Arc::new(SearxngSearch::new(&SearxngSettings { base_url, timeout, retry }).expect("searxng"))
            }
            SearchProviderKind::Tavily => Arc::new(
                TavilySearch::new(&TavilySettings {
                    base_url: format!("{base_url}/search"),
                    api_key: key,
                    timeout,
                    retry,
                })
                .expect("tavily"),
            ),
            SearchProviderKind::Brave => Arc::new(
                BraveSearch::new(&BraveSettings {
                    base_url: format!("{base_url}/res/v1/web/search"),
                    api_key: key,
                    timeout,
                    retry,
                })
                .expect("brave"),
            ),
        }
    }

    /// A successful answer with one result, in `kind`'s wire format.
    fn one_result(kind: SearchProviderKind) -> Value {
        match kind {
            SearchProviderKind::Wikipedia => json!({"query": {"search": [{"title": "Acme", "snippet": "s"}]}}),
            SearchProviderKind::Searxng => {
                json!({"results": [{"url": "https://acme.example/", "title": "Acme", "content": "s"}]})
            }
            SearchProviderKind::Tavily => {
                json!({"results": [{"url": "https://acme.example/", "title": "Acme", "content": "s", "score": 0.5}]})
            }
            SearchProviderKind::Brave => {
                json!({"web": {"results": [{"url": "https://acme.example/", "title": "Acme", "description": "s"}]}})
            }
        }
    }

    #[tokio::test]
    async fn every_provider_retries_a_429_then_succeeds() {
        for kind in SearchProviderKind::ALL {
            let server = FakeProvider::start(vec![
                Answer::json(429, json!({})).header("retry-after", "0"),
                Answer::json(200, one_result(kind)),
            ])
            .await;

            let hits = provider(kind, server.url(""), Duration::from_secs(5)).search("acme", 5).await;

            let hits = hits.unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            assert_eq!(hits.len(), 1, "{kind:?}");
            assert_eq!(hits[0].title, "Acme", "{kind:?}");
            assert_eq!(hits[0].provider, kind.as_str());
            assert_eq!(server.received().len(), 2, "{kind:?}");
        }
    }

    #[tokio::test]
    async fn every_provider_reports_a_persistent_5xx_as_a_status_error_after_all_attempts() {
        for kind in SearchProviderKind::ALL {
            let server = FakeProvider::start(vec![Answer::json(503, "upstream down")]).await;

            let error =
                provider(kind, server.url(""), Duration::from_secs(5)).search("acme", 5).await.expect_err("5xx");

            assert!(
                matches!(error, SearchError::Status { ref provider, status: 503 } if provider == kind.as_str()),
                "{kind:?}: {error:?}"
            );
            assert_eq!(server.received().len(), 3, "{kind:?}");
        }
    }

    #[tokio::test]
    async fn every_provider_timeout_is_unavailable_and_not_retried() {
        for kind in SearchProviderKind::ALL {
            let server =
                FakeProvider::start(vec![Answer::json(200, one_result(kind)).delayed(Duration::from_secs(3))]).await;
            let started = Instant::now();

            let error =
                provider(kind, server.url(""), Duration::from_millis(200)).search("acme", 5).await.expect_err("late");

            assert!(matches!(error, SearchError::Unavailable { .. }), "{kind:?}: {error:?}");
            assert!(error.to_string().contains("timeout"), "{error}");
            assert!(started.elapsed() < Duration::from_secs(2), "{kind:?}");
            assert_eq!(server.received().len(), 1, "{kind:?}");
        }
    }

    #[tokio::test]
    async fn every_provider_unreachable_is_unavailable_without_the_key() {
        for kind in SearchProviderKind::ALL {
            let error =
                provider(kind, refused_url(""), Duration::from_secs(2)).search("acme", 5).await.expect_err("down");

            assert!(matches!(error, SearchError::Unavailable { .. }), "{kind:?}: {error:?}");
            assert!(error.to_string().contains("3 attempts"), "{error}");
            for text in renderings(&error) {
                assert!(!text.contains(KEY), "{text}");
            }
        }
    }

    #[test]
    fn html_fragments_become_plain_text() {
        assert_eq!(
            html_fragment_text(
                r#"The <span class="searchmatch">credit</span> default swap &amp; its &quot;spread&quot;"#
            ),
            r#"The credit default swap & its "spread""#
        );
        assert_eq!(
            html_fragment_text("Acme <strong>Corp</strong>&#39;s\n  bonds &lt;BBB&gt;"),
            "Acme Corp's bonds <BBB>"
        );
        assert_eq!(html_fragment_text("  plain   text\n"), "plain text");
        assert_eq!(html_fragment_text(""), "");
    }

    #[test]
    fn a_hit_keeps_no_nul_character_in_its_title_or_snippet() {
        let found = hit(
            "brave",
            Some("Acme\0 Corp".into()),
            Some("https://acme.example/".into()),
            "b\0onds".into(),
            None,
            None,
        )
        .expect("a hit");

        assert_eq!((found.title.as_str(), found.snippet.as_str()), ("Acme Corp", "bonds"));
    }

    #[test]
    fn endpoints_must_be_http_without_credentials() {
        assert!(endpoint_url("BRAVE_URL", "http://127.0.0.1:1/search").is_ok());
        for bad in ["", "ftp://x/y", "https://user:pw@x/y", "localhost/search"] {
            let error = endpoint_url("BRAVE_URL", bad).expect_err(bad);
            assert!(error.to_string().contains("BRAVE_URL"), "{error}");
            assert!(!error.to_string().contains("pw@"), "{error}");
        }
    }

    #[test]
    fn hits_need_a_web_url_and_fall_back_to_it_for_a_title() {
        let hit = |title: Option<&str>, url: &str| {
            hit("test", title.map(str::to_owned), Some(url.to_owned()), String::new(), None, Some(f64::NAN))
        };
        assert!(hit(Some("x"), "javascript:alert(1)").is_none());
        assert!(hit(Some("x"), "/relative").is_none());
        let untitled = hit(Some("  "), "https://example.com/a").expect("hit");
        assert_eq!(untitled.title, "https://example.com/a");
        assert_eq!(untitled.score, None, "a score that is not a number is dropped");
    }

    #[test]
    fn providers_are_built_in_the_configured_order() {
        let config = Config::for_tests(&[
            ("SEARCH_PROVIDERS", "brave,wikipedia,searxng,tavily"),
            ("BRAVE_API_KEY", "brave-key"),
            ("TAVILY_API_KEY", "tvly-key"),
            ("SEARXNG_URL", "http://localhost:8888"),
        ])
        .expect("config");

        let providers = search_providers_from_config(&config.research).expect("providers");

        let names: Vec<&str> = providers.iter().map(|provider| provider.name()).collect();
        assert_eq!(names, ["brave", "wikipedia", "searxng", "tavily"]);
    }

    #[test]
    fn the_default_configuration_searches_wikipedia_only() {
        let config = Config::for_tests(&[]).expect("config");

        let providers = search_providers_from_config(&config.research).expect("providers");

        assert_eq!(providers.iter().map(|provider| provider.name()).collect::<Vec<_>>(), ["wikipedia"]);
    }
}
