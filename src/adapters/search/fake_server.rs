//! A local fake search provider for the adapters' tests: answers from a script (the last answer
//! repeats) and records what it received.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use warp::Filter;
use warp::http::HeaderMap;

/// An API key the tests send; it must never show up in an error.
pub(super) const KEY: &str = "test-key-0123456789-very-secret";

/// One scripted answer.
#[derive(Clone)]
pub(super) struct Scripted {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Scripted {
    pub fn json(status: u16, body: Value) -> Self {
        Self::text(status, &body.to_string())
    }

    pub fn text(status: u16, body: &str) -> Self {
        Self { status, headers: Vec::new(), body: body.to_owned(), delay: Duration::ZERO }
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// One request the fake provider received.
#[derive(Clone, Debug)]
pub(super) struct Received {
    pub method: String,
    pub path: String,
    /// The decoded query pairs, in order.
    pub query: Vec<(String, String)>,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Received {
    pub fn query_value(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

pub(super) struct FakeProvider {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
}

impl FakeProvider {
    pub async fn start(script: Vec<Scripted>) -> Self {
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let route = warp::method()
            .and(warp::path::full())
            .and(warp::query::raw().or(warp::any().map(String::new)).unify())
            .and(warp::header::headers_cloned())
            .and(warp::body::bytes())
            .then(
                move |method: warp::http::Method,
                      path: warp::path::FullPath,
                      query: String,
                      headers: HeaderMap,
                      body: Bytes| {
                    let script = Arc::clone(&script);
                    let log = Arc::clone(&log);
                    async move {
                        log.lock().expect("log").push(Received {
                            method: method.to_string(),
                            path: path.as_str().to_owned(),
                            query: serde_urlencoded::from_str(&query).expect("query"),
                            headers,
                            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                        });
                        let answer = {
                            let mut script = script.lock().expect("script");
                            if script.len() > 1 { script.pop_front() } else { script.front().cloned() }
                        }
                        .expect("a scripted answer");
                        tokio::time::sleep(answer.delay).await;
                        let mut response =
                            http::Response::builder().status(answer.status).header("content-type", "application/json");
                        for (name, value) in &answer.headers {
                            response = response.header(*name, value.as_str());
                        }
                        response.body(answer.body).expect("response")
                    }
                },
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(warp::serve(route).incoming(listener).run());
        Self { addr, received }
    }

    /// `http://127.0.0.1:<port>` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().expect("log").clone()
    }
}

/// A base URL nothing listens on.
pub(super) use crate::adapters::retry::test_support::{fast_retries, refused_url};

/// Every rendering of an error a caller might log.
pub(super) fn renderings(error: &crate::ports::web_search::SearchError) -> [String; 2] {
    [error.to_string(), format!("{error:?}")]
}
