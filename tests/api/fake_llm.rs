//! A local stand-in for an OpenAI-compatible server: answers every chat completion with one
//! scripted message and keeps the requests it received.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use warp::Filter;

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
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        let content = content.to_owned();
        let route = warp::path!("v1" / "chat" / "completions").and(warp::post()).and(warp::body::json()).map(
            move |request: Value| {
                recorded.lock().expect("requests").push(request);
                warp::reply::json(&json!({
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": "fake-model",
                    "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }],
                    "usage": { "prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150 },
                }))
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
