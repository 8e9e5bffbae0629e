//! Chat completion with tools and JSON-schema output: what the research loop, the chatbot and
//! LLM-assisted extraction need from a language model. The types are provider-neutral; the
//! OpenAI-compatible wire format lives in [`crate::adapters::llm`].
//!
//! Everything the model returns is untrusted input: tool-call arguments are always a JSON object
//! (see [`ToolCall::arguments`]) and values the model claims to have read in a document are checked
//! against the text by [`crate::domain::extraction::llm_proposals`] before they are kept.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

/// Key under which [`ToolCall::arguments`] keeps arguments the model sent as text that is not a JSON
/// object (broken JSON, a bare string, a number…): `{"_raw": "<the text as received>"}`.
pub const RAW_ARGUMENTS_KEY: &str = "_raw";

/// Who wrote a message of the conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChatRole {
    /// Instructions for the model.
    System,
    /// The user's words (or the service's request on the user's behalf).
    User,
    /// The model's earlier answers, tool calls included.
    Assistant,
    /// The result of a tool call, answering [`ChatMessage::tool_call_id`].
    Tool,
}

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatMessage {
    pub role: ChatRole,
    /// The text; may be empty for an assistant message that only calls tools.
    pub content: String,
    /// For [`ChatRole::Tool`]: the id of the [`ToolCall`] this message answers.
    pub tool_call_id: Option<String>,
    /// For [`ChatRole::Assistant`]: the tool calls the model made in this turn.
    pub tool_calls: Vec<ToolCall>,
}

impl ChatMessage {
    fn plain(role: ChatRole, content: impl Into<String>) -> Self {
        Self { role, content: content.into(), tool_call_id: None, tool_calls: Vec::new() }
    }

    /// Instructions for the model.
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(ChatRole::System, content)
    }

    /// A user turn.
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(ChatRole::User, content)
    }

    /// An earlier plain answer of the model.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(ChatRole::Assistant, content)
    }

    /// An earlier model turn that called tools (its text, often empty, and the calls), to be
    /// followed by one [`ChatMessage::tool_result`] per call.
    pub fn assistant_tool_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self { tool_calls, ..Self::plain(ChatRole::Assistant, content) }
    }

    /// The result of the tool call `tool_call_id` (usually JSON text).
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self { tool_call_id: Some(tool_call_id.into()), ..Self::plain(ChatRole::Tool, content) }
    }

    /// The model's answer as the assistant turn to append to the conversation before continuing it.
    pub fn from_response(response: &ChatResponse) -> Self {
        Self::assistant_tool_calls(response.content.clone().unwrap_or_default(), response.tool_calls.clone())
    }
}

/// A function the model may call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// `^[a-zA-Z0-9_-]{1,64}$` for OpenAI.
    pub name: String,
    /// What the tool does and when to use it: the model reads this.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

impl ToolSpec {
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self { name: name.into(), description: description.into(), parameters }
    }
}

/// A call of a [`ToolSpec`] requested by the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The provider's id, echoed in the [`ChatMessage::tool_result`] that answers it.
    pub id: String,
    pub name: String,
    /// Always a JSON object: the arguments as parsed (a JSON string that holds an object, or an
    /// object); `{}` when the model sent none; `{"_raw": "<text>"}` ([`RAW_ARGUMENTS_KEY`]) when it
    /// sent something that is not a JSON object, so the caller can tell the model and let it retry.
    pub arguments: Value,
}

impl ToolCall {
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self { id: id.into(), name: name.into(), arguments }
    }

    /// The text of arguments that were not a JSON object (see [`ToolCall::arguments`]), if so.
    pub fn malformed_arguments(&self) -> Option<&str> {
        let object = self.arguments.as_object()?;
        if object.len() != 1 {
            return None;
        }
        object.get(RAW_ARGUMENTS_KEY)?.as_str()
    }
}

/// Asks for an answer that is one JSON document conforming to `schema` (structured output).
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseSchema {
    /// `^[a-zA-Z0-9_-]{1,64}$` for OpenAI.
    pub name: String,
    /// JSON schema of the answer. Providers enforcing it strictly (OpenAI) need every object to list
    /// all its properties in `required` and to set `"additionalProperties": false`.
    pub schema: Value,
}

impl ResponseSchema {
    pub fn new(name: impl Into<String>, schema: Value) -> Self {
        Self { name: name.into(), schema }
    }
}

/// One completion request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    /// Functions the model may call; empty: none.
    pub tools: Vec<ToolSpec>,
    /// `Some`: the answer's content must be JSON conforming to the schema.
    pub response_schema: Option<ResponseSchema>,
    /// `None`: the provider's default. `Some(0.0)` for extraction and anything that must repeat.
    pub temperature: Option<f32>,
    /// Longest answer in tokens; `None`: the provider's default.
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        Self { messages, ..Self::default() }
    }

    #[must_use]
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }

    #[must_use]
    pub fn with_response_schema(mut self, schema: ResponseSchema) -> Self {
        self.response_schema = Some(schema);
        self
    }

    #[must_use]
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }
}

/// Tokens a completion consumed, as the provider reported them (zeros when it did not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub total_tokens: u32,
}

/// The model's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatResponse {
    /// The text of the answer; `None` when the model only called tools (or answered nothing).
    pub content: Option<String>,
    /// Tools the model wants called, in order.
    pub tool_calls: Vec<ToolCall>,
    pub usage: TokenUsage,
    /// The model that answered, as the provider named it (the configured name when it did not).
    pub model: String,
    /// `stop`, `tool_calls`, `length` (the answer was cut off at `max_tokens`), … as sent.
    pub finish_reason: Option<String>,
}

impl ChatResponse {
    /// The content parsed as JSON, for requests with a [`ResponseSchema`]. Tolerates what local
    /// models add around the document: surrounding whitespace and a Markdown code fence.
    ///
    /// # Errors
    /// [`LlmError::InvalidResponse`] when there is no content or it is not JSON. Whether the JSON
    /// conforms to the schema is the caller's check.
    pub fn json_content(&self) -> Result<Value, LlmError> {
        let content =
            self.content.as_deref().ok_or_else(|| LlmError::InvalidResponse("the answer has no content".to_owned()))?;
        let trimmed = strip_code_fence(content.trim());
        serde_json::from_str(trimmed)
            .map_err(|e| LlmError::InvalidResponse(format!("the answer is not a JSON document: {e}")))
    }
}

fn strip_code_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    // Drop the info string (`json`) on the opening fence line.
    body.split_once('\n').map_or(body, |(_, inner)| inner).trim()
}

/// Why a completion failed. Texts never contain the API key or the prompt.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The provider could not be reached or did not answer in time: connection refused or reset,
    /// DNS or TLS failure, the request timeout. Transient.
    #[error("language model unavailable")]
    Unavailable(#[source] anyhow::Error),
    /// The provider still answered 429 after the adapter's retries. `retry_after` is the provider's
    /// last hint, if it gave one. Transient.
    #[error("language model rate limit reached after {attempts} attempts")]
    RateLimited { attempts: u32, retry_after: Option<Duration> },
    /// The provider answered an error status: any 4xx but 429 at once (bad request, bad key,
    /// unknown model; not retried), a 5xx after the adapter's retries. `message` is the provider's
    /// own message, with the API key removed should the provider echo it.
    #[error("language model provider answered {status}: {message}")]
    Provider { status: u16, message: String },
    /// The provider answered 2xx with something that is not a usable completion: not JSON, no
    /// choices, a tool call without a name. Also [`ChatResponse::json_content`] on non-JSON content.
    #[error("unusable language model response: {0}")]
    InvalidResponse(String),
}

impl LlmError {
    /// Whether trying again later may succeed: unavailable, rate-limited, or a 5xx.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Unavailable(_) | Self::RateLimited { .. } => true,
            Self::Provider { status, .. } => *status >= 500,
            Self::InvalidResponse(_) => false,
        }
    }
}

/// A chat-completion model.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait LanguageModel: Send + Sync + 'static {
    /// Completes the conversation: an answer, tool calls, or both.
    ///
    /// Adapters retry transient failures (429, 5xx, connection errors) themselves before
    /// reporting them; callers should not add their own retry loop around this call.
    ///
    /// # Errors
    /// - [`LlmError::Unavailable`] when the provider cannot be reached or the request times out;
    /// - [`LlmError::RateLimited`] when it still answers 429 after the adapter's retries;
    /// - [`LlmError::Provider`] for any other error status (4xx at once, 5xx after retries);
    /// - [`LlmError::InvalidResponse`] when a success answer is not a usable completion.
    async fn complete(&self, request: ChatRequest) -> Result<ChatResponse, LlmError>;

    /// The configured model name (what requests ask for).
    fn model(&self) -> &str;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn response_with(content: Option<&str>) -> ChatResponse {
        ChatResponse {
            content: content.map(str::to_owned),
            tool_calls: Vec::new(),
            usage: TokenUsage::default(),
            model: "m".to_owned(),
            finish_reason: Some("stop".to_owned()),
        }
    }

    #[test]
    fn llm_json_content_accepts_plain_and_fenced_json() {
        assert_eq!(response_with(Some(" {\"a\": 1}\n")).json_content().expect("json"), json!({"a": 1}));
        assert_eq!(response_with(Some("```json\n{\"a\": 2}\n```")).json_content().expect("json"), json!({"a": 2}));
        assert_eq!(response_with(Some("```\n[1]\n```")).json_content().expect("json"), json!([1]));
    }

    #[test]
    fn llm_json_content_rejects_prose_and_missing_content() {
        assert!(matches!(response_with(Some("Sure! Here it is")).json_content(), Err(LlmError::InvalidResponse(_))));
        assert!(matches!(response_with(None).json_content(), Err(LlmError::InvalidResponse(_))));
    }

    #[test]
    fn llm_malformed_arguments_are_recognised_only_in_the_raw_shape() {
        let broken = ToolCall::new("c1", "search", json!({ RAW_ARGUMENTS_KEY: "{\"q\": " }));
        assert_eq!(broken.malformed_arguments(), Some("{\"q\": "));
        let fine = ToolCall::new("c2", "search", json!({"q": "x", RAW_ARGUMENTS_KEY: "y"}));
        assert_eq!(fine.malformed_arguments(), None);
    }

    #[test]
    fn llm_transient_errors_are_those_worth_retrying_later() {
        assert!(LlmError::Unavailable(anyhow::anyhow!("refused")).is_transient());
        assert!(LlmError::RateLimited { attempts: 3, retry_after: None }.is_transient());
        assert!(LlmError::Provider { status: 503, message: String::new() }.is_transient());
        assert!(!LlmError::Provider { status: 401, message: String::new() }.is_transient());
        assert!(!LlmError::InvalidResponse(String::new()).is_transient());
    }

    #[test]
    fn llm_message_constructors_set_role_and_links() {
        let call = ToolCall::new("call_1", "lookup", json!({}));
        let assistant = ChatMessage::assistant_tool_calls("", vec![call.clone()]);
        assert_eq!(assistant.role, ChatRole::Assistant);
        assert_eq!(assistant.tool_calls, vec![call]);
        let result = ChatMessage::tool_result("call_1", "{}");
        assert_eq!((result.role, result.tool_call_id.as_deref()), (ChatRole::Tool, Some("call_1")));
        assert_eq!(ChatMessage::system("s").role, ChatRole::System);
        assert_eq!(ChatMessage::user("u").role, ChatRole::User);
    }
}
