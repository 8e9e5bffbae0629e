//! Event streams held against a hostile analyst: a cap on the streams one user holds open, one
//! store reader per followed run however many streams follow it, and no plain-text HTTP/2 (whose
//! streams the per-client connection cap cannot see) unless it is turned on.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use creditflow::domain::listing::RunQuery;
use creditflow::domain::research::runs::{ResearchId, ResearchOutcome, ResearchProgress, ResearchRun, WorkerId};
use creditflow::ports::research::{LeaseError, ResearchRepository};
use creditflow::ports::store::StoreError;
use reqwest::Response;
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::helpers::*;

/// The HTTP/2 connection preface (RFC 9113 §3.4) and an empty SETTINGS frame.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";

/// The research queue of the memory store, counting the reads of single runs.
struct CountedReads {
    inner: Arc<dyn ResearchRepository>,
    finds: Arc<AtomicUsize>,
}

#[async_trait]
impl ResearchRepository for CountedReads {
    async fn create(&self, run: ResearchRun) -> Result<(), StoreError> {
        self.inner.create(run).await
    }

    async fn claim(
        &self,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<Option<ResearchRun>, StoreError> {
        self.inner.claim(worker, now, lease).await
    }

    async fn renew(
        &self,
        id: ResearchId,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        self.inner.renew(id, worker, now, lease).await
    }

    async fn save_progress(
        &self,
        id: ResearchId,
        worker: WorkerId,
        progress: ResearchProgress,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        self.inner.save_progress(id, worker, progress, now, lease).await
    }

    async fn finish(
        &self,
        id: ResearchId,
        worker: WorkerId,
        outcome: ResearchOutcome,
        progress: ResearchProgress,
        closing_event: Value,
        at: OffsetDateTime,
    ) -> Result<ResearchRun, LeaseError> {
        self.inner.finish(id, worker, outcome, progress, closing_event, at).await
    }

    async fn find(&self, id: ResearchId) -> Result<Option<ResearchRun>, StoreError> {
        self.finds.fetch_add(1, Ordering::SeqCst);
        self.inner.find(id).await
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<ResearchRun>, u64), StoreError> {
        self.inner.list(query).await
    }

    async fn queue_depth(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        self.inner.queue_depth(now).await
    }
}

/// No research worker: a queued run stays pending, and its streams stay open.
async fn app_with_stream_cap(cap: &str) -> TestApp {
    spawn_app_with(&[("EVENT_STREAMS_PER_USER", cap), ("RESEARCH_WORKERS", "0")], |_| {}).await
}

async fn queued_run(app: &TestApp, token: &str) -> String {
    crate::research::submit(app, token, json!({ "query": "SOFR transition in leveraged loans", "max_iterations": 1 }))
        .await
}

async fn follow(app: &TestApp, token: &str, run: &str) -> Response {
    app.get(&format!("/api/deep-research/results/{run}/events"), Some(token)).await
}

#[tokio::test]
async fn a_user_may_hold_only_so_many_event_streams_open_and_others_are_not_held_back() {
    let app = app_with_stream_cap("2").await;
    let (flooder, other) = (app.token_for("analyst").await, app.token_for("analyst").await);
    let run = queued_run(&app, &flooder).await;
    let first = follow(&app, &flooder, &run).await;
    let second = follow(&app, &flooder, &run).await;
    assert_eq!((first.status().as_u16(), second.status().as_u16()), (200, 200));

    let refused = follow(&app, &flooder, &run).await;
    assert_eq!(refused.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("5"));
    let body = assert_error(refused, 429).await;
    assert_eq!(body["detail"], json!({ "limit": 2, "open": 2 }));
    // A streamed analysis is an event stream too: refused before anything runs.
    let analysis = json!({ "borrower_name": "Northwind Tools GmbH", "loan_amount": 2_000_000.0,
                           "financials": crate::private_borrowers::financials(), "stream": true });
    assert_error(app.post("/api/quantitative-analysis/loan-application", Some(&flooder), &analysis).await, 429).await;
    let theirs = queued_run(&app, &other).await;
    assert_eq!(follow(&app, &other, &theirs).await.status(), 200, "another user has a cap of their own");

    // A client that closes a stream gets its place back.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    let reopened = loop {
        let response = follow(&app, &flooder, &run).await;
        if response.status() == 200 || Instant::now() > deadline {
            break response;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(reopened.status(), 200, "the closed stream's place was not given back");
    drop(second);
}

#[tokio::test]
async fn the_streams_following_one_run_share_one_store_reader_that_slows_down_while_nothing_changes() {
    let finds = Arc::new(AtomicUsize::new(0));
    let counted = finds.clone();
    let app = spawn_app_with(&[("RESEARCH_WORKERS", "0")], move |adapters| {
        adapters.research = Arc::new(CountedReads { inner: adapters.research.clone(), finds: counted });
    })
    .await;
    let token = app.token_for("analyst").await;
    let run = queued_run(&app, &token).await;
    let mut streams = Vec::new();
    for _ in 0..6 {
        let stream = follow(&app, &token, &run).await;
        assert_eq!(stream.status(), 200);
        streams.push(stream);
    }
    let opened = finds.load(Ordering::SeqCst);

    tokio::time::sleep(Duration::from_millis(2600)).await;

    // One reader after 0.5 s, then 1 s and 2 s later as nothing changes: two reads in this window.
    // A reader per stream twice a second made 30; one shared reader twice a second, 5.
    let polled = finds.load(Ordering::SeqCst) - opened;
    assert!((1..=3).contains(&polled), "{polled} reads of the run in 2.6 s");
    drop(streams);
}

#[tokio::test]
async fn the_api_listener_refuses_the_http2_cleartext_preface_by_default() {
    let app = spawn_app().await;
    let mut socket = tokio::net::TcpStream::connect(app.address.trim_start_matches("http://")).await.expect("connect");
    socket.write_all(H2_PREFACE).await.expect("preface sent");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut answer))
        .await
        .expect("the connection is closed")
        .expect("read");
    assert!(answer.is_empty(), "answered {answer:?}");

    let h2_client = reqwest::Client::builder().http2_prior_knowledge().build().expect("client");
    let attempt = h2_client.get(format!("{}/health/live", app.address)).send().await;
    assert!(attempt.is_err(), "served over HTTP/2: {:?}", attempt.map(|r| r.version()));
    // HTTP/1.1 on the same listener is unaffected.
    assert_eq!(app.get("/health/live", None).await.status(), 200);
}

#[tokio::test]
async fn http2_cleartext_is_served_when_turned_on() {
    let app = spawn_app_with(&[("HTTP2_CLEARTEXT", "true")], |_| {}).await;
    let mut socket = tokio::net::TcpStream::connect(app.address.trim_start_matches("http://")).await.expect("connect");
    socket.write_all(H2_PREFACE).await.expect("preface sent");
    let mut frame_header = [0_u8; 9];
    tokio::time::timeout(Duration::from_secs(5), socket.read_exact(&mut frame_header))
        .await
        .expect("answered in time")
        .expect("a frame");
    assert_eq!(frame_header[3], 0x4, "the server's preface is a SETTINGS frame: {frame_header:?}");

    let h2_client = reqwest::Client::builder().http2_prior_knowledge().build().expect("client");
    let response = h2_client.get(format!("{}/health/live", app.address)).send().await.expect("served");
    assert_eq!((response.status().as_u16(), response.version()), (200, reqwest::Version::HTTP_2));
}
