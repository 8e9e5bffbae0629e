//! The chat-completions wire format: the request body built from a [`ChatRequest`], and the answer
//! read into a [`ChatResponse`].
//!
//! Answers are parsed defensively, because local models and servers bend the protocol: `content`
//! may be null, absent or a list of text parts; `usage` may be missing (zeros); tool-call
//! `arguments` may be a JSON string, an object, empty, double-encoded or broken. Broken arguments
//! do not fail the call: they become `{"_raw": "<text>"}` ([`RAW_ARGUMENTS_KEY`]) so a tool loop
//! can tell the model and let it correct itself.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::PROVIDER_MESSAGE_LIMIT;
use crate::domain::extraction::llm_proposals::json_kind;
use crate::ports::llm::{
    ChatMessage, ChatRequest, ChatResponse, ChatRole, LlmError, RAW_ARGUMENTS_KEY, TokenUsage, ToolCall,
};

// ---- request wire format ----

#[derive(Serialize)]
pub(super) struct WireRequest<'a> {
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
    pub(super) fn new(model: &'a str, request: &'a ChatRequest) -> Self {
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

pub(super) fn parse_response(body: &[u8], configured_model: &str) -> Result<ChatResponse, LlmError> {
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
    // U+0000 is no character of an answer (a prompt injected through a document could ask for one),
    // and PostgreSQL cannot store the chat turn or the extraction that would quote it.
    let content = content_text(answer.content)?.map(|text| text.replace('\0', "")).filter(|text| !text.is_empty());
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

    use super::super::test_support::{KEY, client, completion, hello};
    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider};
    use crate::ports::llm::{LanguageModel, ResponseSchema, ToolSpec};

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

    #[test]
    fn an_answer_keeps_no_nul_character() {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": "Acme\0 Corp"}}]}).to_string();

        let response = parse_response(body.as_bytes(), "test-model").expect("answer");

        assert_eq!(response.content.as_deref(), Some("Acme Corp"));
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
}
