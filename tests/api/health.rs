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

mod database_ssl {
    use std::sync::Arc;

    use async_trait::async_trait;
    use creditflow::adapters::http::DatabaseHealth;
    use creditflow::domain::health::db_ssl::{DbSslExpectation, DbSslObservation, SslMode};
    use creditflow::ports::db_ssl::{DbSslError, DbSslInspector};
    use serde_json::Value;

    use crate::helpers::*;

    /// An inspector that reports a fixed observation, or fails, or hangs.
    enum Scripted {
        Sees(DbSslObservation),
        Fails,
        Hangs,
    }

    #[async_trait]
    impl DbSslInspector for Scripted {
        async fn inspect(&self) -> Result<DbSslObservation, DbSslError> {
            match self {
                Scripted::Sees(observation) => Ok(observation.clone()),
                Scripted::Fails => Err(DbSslError::Unavailable(anyhow::anyhow!("connection refused"))),
                Scripted::Hangs => std::future::pending().await,
            }
        }
    }

    async fn report(inspector: Scripted, mode: SslMode, required: bool) -> (u16, Value) {
        let app = spawn_app_with(&[], |adapters| {
            adapters.database = Some(DatabaseHealth {
                inspector: Arc::new(inspector),
                expectation: DbSslExpectation { mode, required },
            });
        })
        .await;
        let response = app.get("/health/database/ssl", None).await;
        (response.status().as_u16(), response.json().await.expect("json"))
    }

    #[tokio::test]
    async fn without_a_database_it_is_not_applicable() {
        let app = spawn_app().await;
        let response = app.get("/health/database/ssl", None).await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["status"], "not_applicable");
        assert_eq!(body["ssl_enabled"], false);
        assert!(body["message"].as_str().expect("message").contains("no database"));
    }

    #[tokio::test]
    async fn a_tls_connection_is_reported_as_the_server_sees_it() {
        let observation = DbSslObservation {
            ssl: true,
            version: Some("TLSv1.3".into()),
            cipher: Some("TLS_AES_256_GCM_SHA384".into()),
            bits: Some(256),
            client_dn: Some("/CN=creditflow".into()),
        };
        let (status, body) = report(Scripted::Sees(observation), SslMode::VerifyFull, false).await;
        assert_eq!(status, 200);
        assert_eq!(body["status"], "healthy");
        assert_eq!(body["ssl_enabled"], true);
        assert_eq!(body["ssl_mode"], "verify-full");
        assert_eq!(body["ssl_version"], "TLSv1.3");
        assert_eq!(body["ssl_cipher"], "TLS_AES_256_GCM_SHA384");
        assert_eq!(body["certificate_validation"], "enabled");
        assert_eq!(body["client_certificate"], true);
        assert_eq!(body["ssl_required"], true);
    }

    #[tokio::test]
    async fn a_plain_connection_with_tls_required_is_503() {
        let plain = DbSslObservation { ssl: false, version: None, cipher: None, bits: None, client_dn: None };
        let (status, body) = report(Scripted::Sees(plain), SslMode::Prefer, true).await;
        assert_eq!(status, 503);
        assert_eq!(body["status"], "unhealthy");
    }

    #[tokio::test]
    async fn an_unreachable_or_silent_database_is_503() {
        let (status, body) = report(Scripted::Fails, SslMode::Require, false).await;
        assert_eq!((status, body["status"].as_str()), (503, Some("unhealthy")));
        assert!(!body.to_string().contains("connection refused"), "no driver text in the body");
        let (status, body) = report(Scripted::Hangs, SslMode::Require, false).await;
        assert_eq!(status, 503);
        assert!(body["message"].as_str().expect("message").contains("2 s"));
    }
}
