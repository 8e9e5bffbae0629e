//! Probes and request ids.

use std::sync::Arc;

use async_trait::async_trait;
use creditflow::ports::store::{StoreError, StoreHealth};

use crate::helpers::*;

#[tokio::test]
async fn liveness_and_readiness_answer_without_a_token() {
    let app = spawn_app().await;
    assert_eq!(app.get("/health/live", None).await.status(), 200);
    assert_eq!(app.get("/health/ready", None).await.status(), 200);
}

struct BrokenStore;

#[async_trait]
impl StoreHealth for BrokenStore {
    async fn ping(&self) -> Result<(), StoreError> {
        Err(StoreError::Unavailable(anyhow::anyhow!("connection refused to 10.0.0.1:5432 password=hunter2")))
    }
}

#[tokio::test]
async fn readiness_is_503_when_the_store_does_not_answer_and_leaks_nothing() {
    let app = spawn_app_with(&[], |adapters| adapters.store_health = Arc::new(BrokenStore)).await;
    let response = app.get("/health/ready", None).await;
    let body = assert_error(response, 503).await;
    assert!(!body.to_string().contains("hunter2") && !body.to_string().contains("10.0.0.1"));
    assert_eq!(app.get("/health/live", None).await.status(), 200);
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_a_safe_incoming_one_is_echoed() {
    let app = spawn_app().await;
    let generated = app.get("/health/live", None).await;
    assert!(generated.headers().contains_key("x-request-id"));
    let echoed = app
        .client
        .get(format!("{}/no/such/path", app.address))
        .header("x-request-id", "trace-42")
        .send()
        .await
        .expect("sent");
    assert_eq!(echoed.headers()["x-request-id"], "trace-42");
    let replaced = app
        .client
        .get(format!("{}/health/live", app.address))
        .header("x-request-id", "bad id with spaces")
        .send()
        .await
        .expect("sent");
    assert_ne!(replaced.headers()["x-request-id"], "bad id with spaces");
}

#[tokio::test]
async fn the_server_finishes_and_stops_accepting_after_the_shutdown_signal() {
    let config = creditflow::config::Config::for_tests(&[("SHUTDOWN_TIMEOUT", "5s")]).expect("config");
    let mut adapters = creditflow::Adapters::in_memory();
    adapters.hasher = Arc::new(creditflow::adapters::argon2_hasher::Argon2Hasher::fast_for_tests());
    let app = creditflow::Application::build_with(config, adapters).await.expect("build");
    let address = format!("http://127.0.0.1:{}", app.port());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    assert_eq!(client.get(format!("{address}/health/live")).send().await.expect("up").status(), 200);

    stop.send(()).expect("signal");
    tokio::time::timeout(std::time::Duration::from_secs(5), server)
        .await
        .expect("server stops within the deadline")
        .expect("join")
        .expect("clean exit");
    let after = reqwest::Client::new().get(format!("{address}/health/live")).send().await;
    assert!(after.is_err(), "no new connections after shutdown");
}
