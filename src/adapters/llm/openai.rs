//! [`OpenAiCompatible`]: the [`LanguageModel`] port over the OpenAI chat-completions protocol, which
//! OpenAI, Ollama (`http://localhost:11434/v1`), vLLM and the llama.cpp server all speak.
//!
//! One `POST {base_url}/chat/completions` per attempt, with `Authorization: Bearer …` only when a
//! key is configured. Transient failures (429, 5xx, connection errors) are retried with
//! exponential backoff, honouring the provider's `Retry-After` / `retry-after-ms` up to a cap;
//! other 4xx and timeouts are not (a model too slow once is as slow again, and every attempt
//! gets the full `LLM_TIMEOUT`).
//!
//! Answers are parsed defensively, because local models and servers bend the protocol: `content`
//! may be null, absent or a list of text parts; `usage` may be missing (zeros); tool-call
//! `arguments` may be a JSON string, an object, empty, double-encoded or broken. Broken arguments
//! do not fail the call: they become `{"_raw": "<text>"}` ([`RAW_ARGUMENTS_KEY`]) so a tool loop
//! can tell the model and let it correct itself.
//!
//! Token usage is returned and logged at debug level. Neither the API key nor the prompt is
//! ever logged or put into an error; a provider message that echoes the key has it replaced.

use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use async_trait::async_trait;
use bytes::Bytes;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use reqwest::{StatusCode, Url};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::adapters::retry::{CONNECT_TIMEOUT_CAP, RetryPolicy, error_chain, retry_after};
use crate::config::{LlmConfig, Secret};
use crate::domain::extraction::llm_proposals::json_kind;
use crate::ports::llm::{
    ChatMessage, ChatRequest, ChatResponse, ChatRole, LanguageModel, LlmError, RAW_ARGUMENTS_KEY, TokenUsage, ToolCall,
};

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

// ---- request wire format ----

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<WireResponseFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

impl<'a> WireRequest<'a> {
    fn new(model: &'a str, request: &'a ChatRequest) -> Self {
        Self {
            model,
            messages: request.messages.iter().map(WireMessage::new).collect(),
            tools: request
                .tools
                .iter()
                .map(|tool| WireTool {
                    kind: "function",
                    function: WireFunctionSpec {
                        name: &tool.name,
                        description: &tool.description,
                        parameters: &tool.parameters,
                    },
                })
                .collect(),
            response_format: request.response_schema.as_ref().map(|schema| WireResponseFormat {
                kind: "json_schema",
                json_schema: WireJsonSchema { name: &schema.name, schema: &schema.schema, strict: true },
            }),
            temperature: request.temperature,
            max_tokens: request.max_tokens,
        }
    }
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    /// `null` for an assistant turn that only calls tools, as OpenAI documents it.
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCallOut<'a>>,
}

impl<'a> WireMessage<'a> {
    fn new(message: &'a ChatMessage) -> Self {
        let role = match message.role {
            ChatRole::System => "system",
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
            ChatRole::Tool => "tool",
        };
        let only_calls_tools = message.content.is_empty() && !message.tool_calls.is_empty();
        Self {
            role,
            content: if only_calls_tools { None } else { Some(&message.content) },
            tool_call_id: message.tool_call_id.as_deref(),
            tool_calls: message
                .tool_calls
                .iter()
                .map(|call| WireToolCallOut {
                    id: &call.id,
                    kind: "function",
                    function: WireFunctionCallOut { name: &call.name, arguments: call.arguments.to_string() },
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct WireToolCallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionCallOut<'a>,
}

#[derive(Serialize)]
struct WireFunctionCallOut<'a> {
    name: &'a str,
    /// A JSON document in a string, as the protocol wants it.
    arguments: String,
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionSpec<'a>,
}

#[derive(Serialize)]
struct WireFunctionSpec<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

#[derive(Serialize)]
struct WireResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    json_schema: WireJsonSchema<'a>,
}

#[derive(Serialize)]
struct WireJsonSchema<'a> {
    name: &'a str,
    schema: &'a Value,
    strict: bool,
}

// ---- response wire format ----

#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    choices: Option<Vec<WireChoice>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireAnswer>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireAnswer {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCallIn>>,
}

#[derive(Deserialize)]
struct WireToolCallIn {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<WireFunctionCallIn>,
}

#[derive(Deserialize)]
struct WireFunctionCallIn {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    total_tokens: Option<u64>,
}

fn parse_response(body: &[u8], configured_model: &str) -> Result<ChatResponse, LlmError> {
    let wire: WireResponse =
        serde_json::from_slice(body).map_err(|e| LlmError::InvalidResponse(format!("not a chat completion: {e}")))?;
    let Some(choice) = wire.choices.and_then(|choices| choices.into_iter().next()) else {
        let detail = wire.error.as_ref().map(|error| {
            let text = error.pointer("/message").and_then(Value::as_str).or_else(|| error.as_str()).unwrap_or("");
            format!(" (error: {})", text.chars().take(PROVIDER_MESSAGE_LIMIT).collect::<String>())
        });
        return Err(LlmError::InvalidResponse(format!("the answer has no choices{}", detail.unwrap_or_default())));
    };
    let answer = choice.message.ok_or_else(|| LlmError::InvalidResponse("the choice has no message".to_owned()))?;
    let content = content_text(answer.content)?.filter(|text| !text.is_empty());
    let tool_calls = answer
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(index, call)| tool_call(index, call))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ChatResponse {
        content,
        tool_calls,
        usage: wire.usage.map(token_usage).unwrap_or_default(),
        model: wire.model.filter(|name| !name.is_empty()).unwrap_or_else(|| configured_model.to_owned()),
        finish_reason: choice.finish_reason,
    })
}

/// `content` as text: a string, null/absent, or a list of `{"type":"text","text":…}` parts.
fn content_text(content: Option<Value>) -> Result<Option<String>, LlmError> {
    match content {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(Value::Array(parts)) => {
            Ok(Some(parts.iter().filter_map(|part| part.get("text").and_then(Value::as_str)).collect()))
        }
        Some(other) => Err(LlmError::InvalidResponse(format!("the message content is a JSON {}", json_kind(&other)))),
    }
}

fn tool_call(index: usize, call: WireToolCallIn) -> Result<ToolCall, LlmError> {
    let function = call.function.unwrap_or(WireFunctionCallIn { name: None, arguments: None });
    let name = function
        .name
        .filter(|name| !name.trim().is_empty())
        .ok_or_else(|| LlmError::InvalidResponse(format!("tool call {index} has no function name")))?;
    let id = call.id.filter(|id| !id.is_empty()).unwrap_or_else(|| format!("call_{index}"));
    Ok(ToolCall { id, name, arguments: tool_arguments(function.arguments) })
}

/// Normalises `arguments` to a JSON object; see [`ToolCall::arguments`].
fn tool_arguments(arguments: Option<Value>) -> Value {
    match arguments {
        None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
        Some(object @ Value::Object(_)) => object,
        Some(Value::String(text)) => arguments_from_text(&text),
        Some(other) => raw_arguments(other.to_string()),
    }
}

fn arguments_from_text(text: &str) -> Value {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(object @ Value::Object(_)) => object,
        // Double-encoded: a JSON string holding the JSON object.
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(inner.trim()) {
            Ok(object @ Value::Object(_)) => object,
            _ => raw_arguments(text.to_owned()),
        },
        _ => raw_arguments(text.to_owned()),
    }
}

fn raw_arguments(text: String) -> Value {
    let mut object = serde_json::Map::new();
    object.insert(RAW_ARGUMENTS_KEY.to_owned(), Value::String(text));
    Value::Object(object)
}

fn token_usage(usage: WireUsage) -> TokenUsage {
    let narrow = |n: Option<u64>| n.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
    let prompt_tokens = narrow(usage.prompt_tokens);
    let completion_tokens = narrow(usage.completion_tokens);
    let total_tokens = match usage.total_tokens {
        Some(total) => narrow(Some(total)),
        None => prompt_tokens.saturating_add(completion_tokens),
    };
    TokenUsage { prompt_tokens, completion_tokens, total_tokens }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider, refused_url};
    use crate::ports::llm::{ResponseSchema, ToolSpec};

    const KEY: &str = "sk-test-0123456789-very-secret";

    /// Like `retry::test_support::fast_retries`, but capped at 50 ms: long enough for
    /// `llm_retry_after_is_honoured_but_capped` to measure the cap.
    fn fast_retries() -> RetryPolicy {
        RetryPolicy { max_attempts: 3, base_delay: Duration::from_millis(1), max_delay: Duration::from_millis(50) }
    }

    fn base_url(provider: &FakeProvider) -> String {
        provider.url("/v1/")
    }

    fn client(provider: &FakeProvider, key: Option<&str>) -> OpenAiCompatible {
        OpenAiCompatible::new(&base_url(provider), "test-model", key.map(Secret::new), Duration::from_secs(5))
            .expect("client")
            .with_retry_policy(fast_retries())
    }

    fn completion(message: Value) -> Value {
        json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "test-model-2025",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        })
    }

    fn hello() -> ChatRequest {
        ChatRequest::new(vec![ChatMessage::user("Say hello")])
    }

    #[tokio::test]
    async fn llm_request_has_the_openai_shape() {
        let provider =
            FakeProvider::start(vec![Answer::json(200, completion(json!({"role": "assistant", "content": "ok"})))])
                .await;
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
        let request = ChatRequest::new(vec![
            ChatMessage::system("You are careful."),
            ChatMessage::user("Find the borrower."),
            ChatMessage::assistant_tool_calls("", vec![ToolCall::new("call_1", "search", json!({"q": "borrower"}))]),
            ChatMessage::tool_result("call_1", "{\"hits\":[]}"),
        ])
        .with_tools(vec![ToolSpec::new("search", "Searches the document.", json!({"type": "object"}))])
        .with_response_schema(ResponseSchema::new("answer", schema.clone()))
        .with_temperature(0.0)
        .with_max_tokens(256);

        client(&provider, Some(KEY)).complete(request).await.expect("answer");

        let received = provider.received();
        assert_eq!(received.len(), 1);
        assert_eq!(received[0].path, "/v1/chat/completions");
        assert_eq!(received[0].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
        assert_eq!(
            received[0].body,
            json!({
                "model": "test-model",
                "messages": [
                    {"role": "system", "content": "You are careful."},
                    {"role": "user", "content": "Find the borrower."},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"borrower\"}"}}
                    ]},
                    {"role": "tool", "content": "{\"hits\":[]}", "tool_call_id": "call_1"}
                ],
                "tools": [{"type": "function", "function": {
                    "name": "search", "description": "Searches the document.", "parameters": {"type": "object"}
                }}],
                "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": true}},
                "temperature": 0.0,
                "max_tokens": 256
            })
        );
    }

    #[tokio::test]
    async fn llm_request_without_a_key_sends_no_authorization_and_omits_unset_options() {
        let provider =
            FakeProvider::start(vec![Answer::json(200, completion(json!({"role": "assistant", "content": "hi"})))])
                .await;

        client(&provider, None).complete(hello()).await.expect("answer");

        let received = provider.received();
        assert_eq!(received[0].header("authorization"), None);
        assert_eq!(
            received[0].body,
            json!({"model": "test-model", "messages": [{"role": "user", "content": "Say hello"}]})
        );
    }

    #[tokio::test]
    async fn llm_plain_answer_returns_content_usage_model_and_finish_reason() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            completion(json!({"role": "assistant", "content": "Hello there."})),
        )])
        .await;

        let response = client(&provider, None).complete(hello()).await.expect("answer");

        assert_eq!(response.content.as_deref(), Some("Hello there."));
        assert!(response.tool_calls.is_empty());
        assert_eq!(response.usage, TokenUsage { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
        assert_eq!(response.model, "test-model-2025");
        assert_eq!(response.finish_reason.as_deref(), Some("stop"));
    }

    #[tokio::test]
    async fn llm_tool_calls_accept_string_object_empty_and_broken_arguments() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            json!({
                "choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"LIBOR\"}"}},
                    {"id": "call_b", "type": "function", "function": {"name": "fetch", "arguments": {"url": "https://x.test"}}},
                    {"id": "call_c", "type": "function", "function": {"name": "now", "arguments": ""}},
                    {"type": "function", "function": {"name": "search", "arguments": "{\"q\": \"SOFR"}},
                    {"id": "call_e", "function": {"name": "search", "arguments": "\"{\\\"q\\\": \\\"EURIBOR\\\"}\""}}
                ]}}]
            }),
        )])
        .await;

        let response = client(&provider, None).complete(hello()).await.expect("answer");

        assert_eq!(response.content, None);
        assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(response.usage, TokenUsage::default(), "missing usage is zeros");
        assert_eq!(response.model, "test-model", "missing model is the configured one");
        let calls = &response.tool_calls;
        assert_eq!(calls.len(), 5);
        assert_eq!(calls[0], ToolCall::new("call_a", "search", json!({"q": "LIBOR"})));
        assert_eq!(calls[1], ToolCall::new("call_b", "fetch", json!({"url": "https://x.test"})));
        assert_eq!(calls[2], ToolCall::new("call_c", "now", json!({})));
        assert_eq!(calls[3].id, "call_3", "a missing id is made up from the position");
        assert_eq!(calls[3].arguments, json!({"_raw": "{\"q\": \"SOFR"}));
        assert_eq!(calls[3].malformed_arguments(), Some("{\"q\": \"SOFR"));
        assert_eq!(calls[4].arguments, json!({"q": "EURIBOR"}), "double-encoded arguments are unwrapped");
    }

    #[tokio::test]
    async fn llm_tool_call_without_a_name_is_an_invalid_response() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            completion(json!({"role": "assistant", "tool_calls": [{"id": "x", "function": {"arguments": "{}"}}]})),
        )])
        .await;

        let error = client(&provider, None).complete(hello()).await.expect_err("no name");

        assert!(matches!(error, LlmError::InvalidResponse(ref m) if m.contains("name")), "{error:?}");
    }

    #[tokio::test]
    async fn llm_structured_output_is_returned_as_json_content() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            completion(
                json!({"role": "assistant", "content": "{\"borrower\": \"Acme Corp\", \"amount\": \"10,000,000\"}"}),
            ),
        )])
        .await;
        let schema = json!({"type": "object"});

        let response = client(&provider, None)
            .complete(hello().with_response_schema(ResponseSchema::new("terms", schema)))
            .await
            .expect("answer");

        assert_eq!(response.json_content().expect("json"), json!({"borrower": "Acme Corp", "amount": "10,000,000"}));
    }

    #[tokio::test]
    async fn llm_partial_usage_is_completed_and_text_parts_are_joined() {
        let provider = FakeProvider::start(vec![Answer::json(
            200,
            json!({
                "choices": [{"message": {"content": [{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]}}],
                "usage": {"prompt_tokens": 7, "completion_tokens": 2}
            }),
        )])
        .await;

        let response = client(&provider, None).complete(hello()).await.expect("answer");

        assert_eq!(response.content.as_deref(), Some("Hello"));
        assert_eq!(response.usage, TokenUsage { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
        assert_eq!(response.finish_reason, None);
    }

    #[tokio::test]
    async fn llm_answers_that_are_not_completions_are_invalid_responses() {
        for body in [
            "<html>gateway</html>".to_owned(),
            json!({"choices": []}).to_string(),
            json!({"error": {"message": "model is loading"}}).to_string(),
            json!({"choices": [{"finish_reason": "stop"}]}).to_string(),
        ] {
            let provider = FakeProvider::start(vec![Answer::json(200, body)]).await;

            let error = client(&provider, None).complete(hello()).await.expect_err("invalid");

            assert!(matches!(error, LlmError::InvalidResponse(_)), "{error:?}");
            assert_eq!(provider.received().len(), 1, "an unusable answer is not retried");
        }
    }

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
