//! A local fake of an external HTTP provider, for the adapters' tests: a server on `127.0.0.1:0`
//! that answers from a script or from a function of the request, and records every request it
//! received. Each adapter's tests start one and point the adapter at [`FakeProvider::url`].
//!
//! Integration tests (`tests/`) cannot see this module (it is `cfg(test)`); they keep their own fakes.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use warp::Filter;
use warp::http::HeaderMap;

/// One answer of the fake provider.
#[derive(Clone, Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// How long the provider waits before answering.
    pub delay: Duration,
}

impl Answer {
    /// `body` with `status` and no header at all (not even a content type).
    pub fn new(status: u16, body: impl Into<String>) -> Self {
        Self { status, headers: Vec::new(), body: body.into(), delay: Duration::ZERO }
    }

    /// `body` as `application/json`, whatever it holds: providers send error pages and plain text
    /// under that type too.
    pub fn json(status: u16, body: impl std::fmt::Display) -> Self {
        Self::new(status, body.to_string()).header("content-type", "application/json")
    }

    /// A 200 HTML page (a bot challenge, an error page served as a success).
    pub fn html(body: &str) -> Self {
        Self::new(200, body).header("content-type", "text/html; charset=utf-8")
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// One request the fake provider received.
#[derive(Clone, Debug)]
pub(crate) struct Received {
    pub method: String,
    pub path: String,
    /// The query string as sent, without `?`; empty when there is none.
    pub query: String,
    /// The decoded query pairs, in order.
    pub query_pairs: Vec<(String, String)>,
    pub headers: HeaderMap,
    /// The body parsed as JSON; `Null` when it is empty or not JSON.
    pub body: Value,
}

impl Received {
    /// The decoded value of the query parameter `name`.
    pub fn query_value(&self, name: &str) -> Option<&str> {
        self.query_pairs.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

type Respond = dyn Fn(&Received) -> Answer + Send + Sync;

/// What the server shares with the test.
struct Shared {
    received: Mutex<Vec<Received>>,
    /// Answers given before `respond` is asked, in order.
    queued: Mutex<VecDeque<Answer>>,
    respond: Box<Respond>,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

/// The running fake provider; it stops with the test's runtime.
pub(crate) struct FakeProvider {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl FakeProvider {
    /// A provider answering from `script`, in order; the last answer repeats.
    pub async fn start(mut script: Vec<Answer>) -> Self {
        let last = script.pop().expect("a scripted answer");
        Self::serve(script.into(), Box::new(move |_| last.clone())).await
    }

    /// A provider answering each request with what `respond` makes of it.
    pub async fn answering(respond: impl Fn(&Received) -> Answer + Send + Sync + 'static) -> Self {
        Self::serve(VecDeque::new(), Box::new(respond)).await
    }

    async fn serve(queued: VecDeque<Answer>, respond: Box<Respond>) -> Self {
        let shared = Arc::new(Shared {
            received: Mutex::new(Vec::new()),
            queued: Mutex::new(queued),
            respond,
            in_flight: AtomicUsize::new(0),
            most_in_flight: AtomicUsize::new(0),
        });
        let server = Arc::clone(&shared);
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
                    let shared = Arc::clone(&server);
                    async move {
                        let request = Received {
                            method: method.to_string(),
                            path: path.as_str().to_owned(),
                            query_pairs: serde_urlencoded::from_str(&query).expect("query"),
                            query,
                            headers,
                            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                        };
                        shared.received.lock().expect("log").push(request.clone());
                        let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        shared.most_in_flight.fetch_max(now, Ordering::SeqCst);
                        let queued = shared.queued.lock().expect("queue").pop_front();
                        let answer = queued.unwrap_or_else(|| (shared.respond)(&request));
                        tokio::time::sleep(answer.delay).await;
                        let mut response = http::Response::builder().status(answer.status);
                        for (name, value) in &answer.headers {
                            response = response.header(name.as_str(), value.as_str());
                        }
                        shared.in_flight.fetch_sub(1, Ordering::SeqCst);
                        response.body(answer.body).expect("response")
                    }
                },
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(warp::serve(route).incoming(listener).run());
        Self { addr, shared }
    }

    /// Answers the next request with `answer`, ahead of the script or the function (queued in order).
    pub fn answer_next(&self, answer: Answer) {
        self.shared.queued.lock().expect("queue").push_back(answer);
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request received, in order.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().expect("log").clone()
    }

    /// The path of every request received, in order.
    pub fn paths(&self) -> Vec<String> {
        self.received().into_iter().map(|request| request.path).collect()
    }

    /// The most requests that were being answered at once.
    pub fn most_in_flight(&self) -> usize {
        self.shared.most_in_flight.load(Ordering::SeqCst)
    }
}

/// A URL on a loopback port nothing listens on: connecting is refused at once.
pub(crate) fn refused_url(path: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    format!("http://{addr}{path}")
}
