//! A local fake price provider for the adapters' tests: answers from a script (the last answer
//! repeats) and records what it received.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use warp::Filter;

/// One scripted answer.
#[derive(Clone)]
pub(super) struct Scripted {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    pub delay: Duration,
}

impl Scripted {
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Self { status, content_type: "application/json", body: body.into(), delay: Duration::ZERO }
    }

    pub fn html(body: &str) -> Self {
        Self { status: 200, content_type: "text/html; charset=utf-8", body: body.to_owned(), delay: Duration::ZERO }
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// One request the fake provider received.
#[derive(Clone, Debug)]
pub(super) struct Received {
    pub path: String,
    pub query: String,
    pub user_agent: Option<String>,
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
        let route = warp::path::full()
            .and(warp::query::raw().or(warp::any().map(String::new)).unify())
            .and(warp::header::optional::<String>("user-agent"))
            .then(move |path: warp::path::FullPath, query: String, user_agent: Option<String>| {
                let script = Arc::clone(&script);
                let log = Arc::clone(&log);
                async move {
                    log.lock().expect("log").push(Received { path: path.as_str().to_owned(), query, user_agent });
                    let answer = {
                        let mut script = script.lock().expect("script");
                        if script.len() > 1 { script.pop_front() } else { script.front().cloned() }
                    }
                    .expect("a scripted answer");
                    tokio::time::sleep(answer.delay).await;
                    http::Response::builder()
                        .status(answer.status)
                        .header("content-type", answer.content_type)
                        .body(answer.body)
                        .expect("response")
                }
            });
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
