//! [`OpenAiCompatible`]: the [`LanguageModel`] port over the OpenAI chat-completions protocol, which
//! OpenAI, Ollama (`http://localhost:11434/v1`), vLLM and the llama.cpp server all speak.
//!
//! One `POST {base_url}/chat/completions` per attempt, with `Authorization: Bearer …` only when a
//! key is configured. Transient failures (429, 5xx, connection errors) are retried with
//! exponential backoff, honouring the provider's `Retry-After` / `retry-after-ms` up to a cap;
//! other 4xx and timeouts are not (a model too slow once is as slow again, and every attempt
//! gets the full `LLM_TIMEOUT`).
//!
//! Token usage is returned and logged at debug level. Neither the API key nor the prompt is
//! ever logged or put into an error; a provider message that echoes the key has it replaced.
//!
//! The wire format, the request body built from a [`ChatRequest`] and the defensive reading of the
//! answer, is in `wire`.

mod wire;

use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use async_trait::async_trait;
use bytes::Bytes;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use reqwest::{StatusCode, Url};
use serde_json::Value;

use crate::adapters::retry::{CONNECT_TIMEOUT_CAP, RetryPolicy, error_chain, retry_after};
use crate::config::{LlmConfig, Secret};
use crate::ports::llm::{ChatRequest, ChatResponse, LanguageModel, LlmError};
use wire::{WireRequest, parse_response};

/// Longest provider error message kept, in characters.
const PROVIDER_MESSAGE_LIMIT: usize = 500;

/// 3 attempts, waits of about 250 ms then 500 ms, at most 10 s when the provider asks for more.
pub const DEFAULT_RETRY: RetryPolicy =
    RetryPolicy { max_attempts: 3, base_delay: Duration::from_millis(250), max_delay: Duration::from_secs(10) };

/// A chat-completions client for one endpoint and model.
#[derive(Clone, Debug)]
pub struct OpenAiCompatible {
    client: reqwest::Client,
    endpoint: Url,
    model: String,
    api_key: Option<Secret>,
    retry: RetryPolicy,
}

impl OpenAiCompatible {
    /// The client for the `LLM_*` configuration, with the default [`RetryPolicy`].
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn from_config(config: &LlmConfig) -> anyhow::Result<Self> {
        Self::new(&config.base_url, config.model.clone(), config.api_key.clone(), config.timeout)
    }

    /// A client posting to `{base_url}/chat/completions` (a trailing slash on `base_url` is
    /// tolerated), each attempt limited to `timeout`.
    ///
    /// # Errors
    /// A `base_url` that is not an http(s) URL or holds credentials, an empty model name, or an HTTP
    /// client that cannot be built (TLS initialisation).
    pub fn new(
        base_url: &str,
        model: impl Into<String>,
        api_key: Option<Secret>,
        timeout: Duration,
    ) -> anyhow::Result<Self> {
        let endpoint = chat_completions_url(base_url)?;
        let model = model.into();
        if model.trim().is_empty() {
            bail!("invalid LLM_MODEL: must not be empty");
        }
        let api_key = api_key.filter(|key| !key.expose().is_empty());
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(CONNECT_TIMEOUT_CAP))
            .user_agent(concat!("creditflow/", env!("CARGO_PKG_VERSION")))
            .build()
            .context("cannot build the HTTP client of the language model")?;
        Ok(Self { client, endpoint, model, api_key, retry: DEFAULT_RETRY })
    }

    /// The same client with another retry policy.
    #[must_use]
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    /// One attempt: the answer's body on 2xx, else what went wrong.
    async fn attempt(&self, body: &Bytes) -> Result<Bytes, Failure> {
        let mut request = self.client.post(self.endpoint.clone()).header(CONTENT_TYPE, "application/json");
        if let Some(key) = &self.api_key {
            request = request.header(AUTHORIZATION, format!("Bearer {}", key.expose()));
        }
        let response = request.body(body.clone()).send().await.map_err(Failure::from_transport)?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let bytes = response.bytes().await.map_err(Failure::from_transport)?;
        if status.is_success() {
            return Ok(bytes);
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            return Err(Failure::RateLimited { retry_after });
        }
        let message = provider_message(&bytes, self.api_key.as_ref());
        Err(Failure::Status { status, message })
    }
}

#[async_trait]
impl LanguageModel for OpenAiCompatible {
    #[tracing::instrument(name = "llm.complete", skip_all, fields(model = %self.model, endpoint = %self.endpoint))]
    async fn complete(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = serde_json::to_vec(&WireRequest::new(&self.model, &request))
            .map(Bytes::from)
            .map_err(|e| LlmError::InvalidResponse(format!("the request cannot be encoded: {e}")))?;
        let started = Instant::now();
        let max_attempts = self.retry.max_attempts.max(1);
        let mut attempts = 0;
        loop {
            attempts += 1;
            let failure = match self.attempt(&body).await {
                Ok(answer) => {
                    let response = parse_response(&answer, &self.model)?;
                    tracing::debug!(
                        prompt_tokens = response.usage.prompt_tokens,
                        completion_tokens = response.usage.completion_tokens,
                        total_tokens = response.usage.total_tokens,
                        finish_reason = response.finish_reason.as_deref().unwrap_or(""),
                        tool_calls = response.tool_calls.len(),
                        attempts,
                        elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                        "language model answered"
                    );
                    return Ok(response);
                }
                Err(failure) => failure,
            };
            if attempts >= max_attempts || !failure.is_retryable() {
                tracing::debug!(attempts, failure = %error_chain(&failure), "language model request failed");
                return Err(failure.into_error(attempts));
            }
            let delay = self.retry.delay(attempts, failure.retry_after());
            tracing::warn!(
                attempt = attempts,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                failure = %error_chain(&failure),
                "language model request failed; retrying"
            );
            tokio::time::sleep(delay).await;
        }
    }

    fn model(&self) -> &str {
        &self.model
    }
}

/// `{base_url}/chat/completions`, keeping any query string of `base_url`.
fn chat_completions_url(base_url: &str) -> anyhow::Result<Url> {
    let mut url = Url::parse(base_url.trim())
        .map_err(|e| anyhow!("invalid LLM_BASE_URL: '{base_url}' is not a URL like http://localhost:11434/v1: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        bail!("invalid LLM_BASE_URL: '{base_url}' is not an http(s) URL like http://localhost:11434/v1");
    }
    if !url.username().is_empty() || url.password().is_some() {
        bail!("invalid LLM_BASE_URL: must not contain credentials: put the key in LLM_API_KEY");
    }
    let path = format!("{}/chat/completions", url.path().trim_end_matches('/'));
    url.set_path(&path);
    Ok(url)
}

/// What went wrong with one attempt.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("no answer in time")]
    Timeout(#[source] reqwest::Error),
    #[error("connection failed")]
    Connection(#[source] reqwest::Error),
    #[error("rate limited (429)")]
    RateLimited { retry_after: Option<Duration> },
    #[error("status {status}: {message}")]
    Status { status: StatusCode, message: String },
}

impl Failure {
    fn from_transport(error: reqwest::Error) -> Self {
        // The URL carries no secret (the key travels in a header), but keep errors minimal anyway.
        let error = error.without_url();
        if error.is_timeout() { Self::Timeout(error) } else { Self::Connection(error) }
    }

    fn is_retryable(&self) -> bool {
        match self {
            Self::Timeout(_) => false,
            Self::Connection(_) | Self::RateLimited { .. } => true,
            Self::Status { status, .. } => status.is_server_error(),
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after } => *retry_after,
            _ => None,
        }
    }

    fn into_error(self, attempts: u32) -> LlmError {
        match self {
            Self::Timeout(error) => LlmError::Unavailable(anyhow::Error::new(error).context("no answer in time")),
            Self::Connection(error) => LlmError::Unavailable(
                anyhow::Error::new(error).context(format!("cannot reach the language model ({attempts} attempts)")),
            ),
            Self::RateLimited { retry_after } => LlmError::RateLimited { attempts, retry_after },
            Self::Status { status, message } => LlmError::Provider { status: status.as_u16(), message },
        }
    }
}

/// The message of an error answer: `{"error":{"message":…}}` (OpenAI, vLLM), `{"error":"…"}`
/// (Ollama), `{"message":…}` / `{"detail":…}`, else the body text; shortened, key removed.
fn provider_message(body: &[u8], api_key: Option<&Secret>) -> String {
    let from_json = serde_json::from_slice::<Value>(body).ok().and_then(|json| {
        let text = |value: &Value| value.as_str().map(str::to_owned);
        json.pointer("/error/message")
            .and_then(text)
            .or_else(|| json.get("error").and_then(text))
            .or_else(|| json.get("message").and_then(text))
            .or_else(|| json.get("detail").and_then(text))
    });
    let message = from_json.unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_owned());
    let message = match api_key.map(Secret::expose) {
        Some(key) if !key.is_empty() => message.replace(key, "[redacted]"),
        _ => message,
    };
    let message: String = message.chars().take(PROVIDER_MESSAGE_LIMIT).collect();
    if message.is_empty() { "(no message)".to_owned() } else { message }
}

/// What the adapter's tests share: a client of the fake provider and the answers it gives.
#[cfg(test)]
mod test_support {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::OpenAiCompatible;
    use crate::adapters::fake_provider::FakeProvider;
    use crate::adapters::retry::RetryPolicy;
    use crate::config::Secret;
    use crate::ports::llm::{ChatMessage, ChatRequest};

    pub(super) const KEY: &str = "sk-test-0123456789-very-secret";

    /// Like `retry::test_support::fast_retries`, but capped at 50 ms: long enough for
    /// `llm_retry_after_is_honoured_but_capped` to measure the cap.
    pub(super) fn fast_retries() -> RetryPolicy {
        RetryPolicy { max_attempts: 3, base_delay: Duration::from_millis(1), max_delay: Duration::from_millis(50) }
    }

    pub(super) fn base_url(provider: &FakeProvider) -> String {
        provider.url("/v1/")
    }

    pub(super) fn client(provider: &FakeProvider, key: Option<&str>) -> OpenAiCompatible {
        OpenAiCompatible::new(&base_url(provider), "test-model", key.map(Secret::new), Duration::from_secs(5))
            .expect("client")
            .with_retry_policy(fast_retries())
    }

    pub(super) fn completion(message: Value) -> Value {
        json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "test-model-2025",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        })
    }

    pub(super) fn hello() -> ChatRequest {
        ChatRequest::new(vec![ChatMessage::user("Say hello")])
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::json;

    use super::test_support::{KEY, base_url, client, completion, fast_retries, hello};
    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider, refused_url};

    #[tokio::test]
    async fn llm_retries_a_429_then_succeeds() {
        let provider = FakeProvider::start(vec![
            Answer::json(429, json!({"error": {"message": "slow down"}})),
            Answer::json(200, completion(json!({"content": "done"}))),
        ])
        .await;

        let response = client(&provider, None).complete(hello()).await.expect("answer");

        assert_eq!(response.content.as_deref(), Some("done"));
        assert_eq!(provider.received().len(), 2);
    }

    #[tokio::test]
    async fn llm_retry_after_is_honoured_but_capped() {
        let provider = FakeProvider::start(vec![
            Answer::json(429, json!({})).header("retry-after", "3600"),
            Answer::json(200, completion(json!({"content": "done"}))),
        ])
        .await;
        let started = Instant::now();

        client(&provider, None).complete(hello()).await.expect("answer");

        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(50), "waited the capped Retry-After: {waited:?}");
        assert!(waited < Duration::from_secs(3), "the hour-long hint is capped: {waited:?}");
    }

    #[tokio::test]
    async fn llm_retry_after_ms_below_the_cap_is_waited_in_full() {
        let provider = FakeProvider::start(vec![
            Answer::json(429, json!({})).header("retry-after-ms", "40"),
            Answer::json(200, completion(json!({"content": "done"}))),
        ])
        .await;
        let started = Instant::now();

        client(&provider, None).complete(hello()).await.expect("answer");

        assert!(started.elapsed() >= Duration::from_millis(40));
    }

    #[tokio::test]
    async fn llm_persistent_429_is_rate_limited_after_all_attempts() {
        let provider = FakeProvider::start(vec![Answer::json(429, json!({})).header("retry-after", "0")]).await;

        let error = client(&provider, None).complete(hello()).await.expect_err("rate limited");

        assert!(
            matches!(error, LlmError::RateLimited { attempts: 3, retry_after: Some(d) } if d.is_zero()),
            "{error:?}"
        );
        assert_eq!(provider.received().len(), 3);
    }

    #[tokio::test]
    async fn llm_retries_a_500_then_succeeds() {
        let provider = FakeProvider::start(vec![
            Answer::json(500, json!({"error": {"message": "upstream crashed"}})),
            Answer::json(200, completion(json!({"content": "recovered"}))),
        ])
        .await;

        let response = client(&provider, None).complete(hello()).await.expect("answer");

        assert_eq!(response.content.as_deref(), Some("recovered"));
        assert_eq!(provider.received().len(), 2);
    }

    #[tokio::test]
    async fn llm_persistent_5xx_is_a_provider_error_after_all_attempts() {
        let provider = FakeProvider::start(vec![Answer::json(503, json!({"error": "model is loading"}))]).await;

        let error = client(&provider, None).complete(hello()).await.expect_err("unavailable");

        assert!(matches!(error, LlmError::Provider { status: 503, ref message } if message == "model is loading"));
        assert!(error.is_transient());
        assert_eq!(provider.received().len(), 3);
    }

    #[tokio::test]
    async fn llm_400_is_not_retried_and_surfaces_the_message_without_the_key() {
        let provider = FakeProvider::start(vec![Answer::json(
            400,
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "type": "invalid_request_error"}}),
        )])
        .await;

        let error = client(&provider, Some(KEY)).complete(hello()).await.expect_err("bad request");

        assert_eq!(provider.received().len(), 1, "a 4xx is not retried");
        let LlmError::Provider { status, message } = &error else { panic!("{error:?}") };
        assert_eq!(*status, 400);
        assert!(message.contains("Incorrect API key provided"), "{message}");
        for text in [error.to_string(), format!("{error:?}"), format!("{:#}", anyhow::Error::new(error))] {
            assert!(!text.contains(KEY), "{text}");
        }
    }

    #[tokio::test]
    async fn llm_error_bodies_that_are_not_json_surface_as_text() {
        let provider = FakeProvider::start(vec![Answer::json(404, "404 page not found")]).await;

        let error = client(&provider, None).complete(hello()).await.expect_err("not found");

        assert!(matches!(error, LlmError::Provider { status: 404, ref message } if message == "404 page not found"));
    }

    #[tokio::test]
    async fn llm_timeout_is_unavailable_and_not_retried() {
        let provider = FakeProvider::start(vec![
            Answer::json(200, completion(json!({"content": "late"}))).delayed(Duration::from_secs(5)),
        ])
        .await;
        let client = OpenAiCompatible::new(&base_url(&provider), "m", None, Duration::from_millis(200))
            .expect("client")
            .with_retry_policy(fast_retries());
        let started = Instant::now();

        let error = client.complete(hello()).await.expect_err("timeout");

        assert!(matches!(error, LlmError::Unavailable(_)), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(3));
        assert_eq!(provider.received().len(), 1);
    }

    #[tokio::test]
    async fn llm_connection_refused_is_unavailable_after_retries() {
        let client = OpenAiCompatible::new(&refused_url("/v1"), "m", Some(Secret::new(KEY)), Duration::from_secs(2))
            .expect("client")
            .with_retry_policy(fast_retries());

        let error = client.complete(hello()).await.expect_err("refused");

        assert!(matches!(error, LlmError::Unavailable(_)), "{error:?}");
        assert!(!format!("{:#}", anyhow::Error::new(error)).contains(KEY));
    }

    #[test]
    fn llm_endpoint_is_base_url_plus_chat_completions() {
        let endpoint = |base: &str| chat_completions_url(base).map(|url| url.to_string());
        assert_eq!(endpoint("http://localhost:11434/v1").expect("url"), "http://localhost:11434/v1/chat/completions");
        assert_eq!(endpoint("http://localhost:11434/v1/").expect("url"), "http://localhost:11434/v1/chat/completions");
        assert_eq!(endpoint("https://llm.internal").expect("url"), "https://llm.internal/chat/completions");
        assert_eq!(
            endpoint("https://llm.internal/openai/v1?api-version=1").expect("url"),
            "https://llm.internal/openai/v1/chat/completions?api-version=1"
        );
        for bad in ["localhost:11434/v1", "ftp://x/v1", "https://user:pw@llm.internal/v1", ""] {
            assert!(chat_completions_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn llm_debug_output_redacts_the_key() {
        let client =
            OpenAiCompatible::new("http://localhost:11434/v1", "m", Some(Secret::new(KEY)), Duration::from_secs(1))
                .expect("client");
        assert!(!format!("{client:?}").contains(KEY));
        assert_eq!(client.model(), "m");
    }
}
