//! A local stand-in for an OpenAI-compatible server: answers chat completions with scripted
//! replies (plain answers, tool calls — broken JSON arguments included —, error statuses, slow
//! answers) and keeps the requests it received.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use warp::Filter;
use warp::http::StatusCode;
use warp::reply::Reply;

/// One scripted answer of the fake server.
#[derive(Clone, Debug)]
pub enum Scripted {
    /// An assistant message with this content.
    Text(String),
    /// An assistant message calling tools: `(name, arguments as sent — a JSON string, possibly broken)`.
    ToolCalls(Vec<(String, String)>),
    /// An error status with an OpenAI-style error body.
    Status(u16),
    /// The inner answer, after a delay.
    Slow(Duration, Box<Scripted>),
}

impl Scripted {
    pub fn text(content: &str) -> Self {
        Self::Text(content.to_owned())
    }

    /// One tool call with `arguments` serialised as the JSON string the wire format carries.
    pub fn tool_call(name: &str, arguments: &Value) -> Self {
        Self::ToolCalls(vec![(name.to_owned(), arguments.to_string())])
    }

    /// One tool call whose arguments are sent exactly as `raw` (for broken JSON).
    pub fn raw_tool_call(name: &str, raw: &str) -> Self {
        Self::ToolCalls(vec![(name.to_owned(), raw.to_owned())])
    }
}

pub struct FakeLlm {
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl FakeLlm {
    /// Serves `content` as JSON text (structured output) to every `POST /v1/chat/completions`.
    pub async fn answering(content: Value) -> Self {
        Self::answering_text(&content.to_string()).await
    }

    /// Serves `content` (the assistant message, as is) to every `POST /v1/chat/completions`.
    pub async fn answering_text(content: &str) -> Self {
        Self::scripted(vec![Scripted::text(content)]).await
    }

    /// Serves `script` in order, one answer per request; the last answer repeats once it is used up.
    pub async fn scripted(script: Vec<Scripted>) -> Self {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        let script = Arc::new(script);
        let route = warp::path!("v1" / "chat" / "completions").and(warp::post()).and(warp::body::json()).then(
            move |request: Value| {
                let recorded = recorded.clone();
                let script = script.clone();
                async move {
                    let index = {
                        let mut requests = recorded.lock().expect("requests");
                        requests.push(request);
                        requests.len() - 1
                    };
                    let answer = script.get(index).or(script.last()).cloned().unwrap_or(Scripted::Status(500));
                    reply(answer, index).await
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address: SocketAddr = listener.local_addr().expect("address");
        tokio::spawn(warp::serve(route).incoming(listener).run());
        Self { base_url: format!("http://{address}/v1"), requests }
    }

    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().expect("requests").clone()
    }
}

async fn reply(mut answer: Scripted, index: usize) -> warp::reply::Response {
    while let Scripted::Slow(delay, inner) = answer {
        tokio::time::sleep(delay).await;
        answer = *inner;
    }
    let message = match answer {
        Scripted::Text(content) => json!({ "role": "assistant", "content": content }),
        Scripted::ToolCalls(calls) => json!({
            "role": "assistant",
            "content": null,
            "tool_calls": calls.iter().enumerate().map(|(n, (name, arguments))| json!({
                "id": format!("call_{index}_{n}"),
                "type": "function",
                "function": { "name": name, "arguments": arguments },
            })).collect::<Vec<_>>(),
        }),
        Scripted::Status(status) => {
            let body = warp::reply::json(&json!({ "error": { "message": format!("scripted {status}") } }));
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return warp::reply::with_status(body, status).into_response();
        }
        Scripted::Slow(..) => unreachable!("unwrapped above"),
    };
    let finish_reason = if message.get("tool_calls").is_some() { "tool_calls" } else { "stop" };
    warp::reply::json(&json!({
        "id": format!("chatcmpl-test-{index}"),
        "object": "chat.completion",
        "model": "fake-model",
        "choices": [{ "index": 0, "message": message, "finish_reason": finish_reason }],
        "usage": { "prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150 },
    }))
    .into_response()
}
