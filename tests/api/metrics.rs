//! `GET /metrics` on its own listener (`METRICS_ADDR`): requests by route template and status,
//! workflow runs, provider calls, rate-limit rejections, build info; the database pool and the
//! research queue on PostgreSQL; nothing of it on the API's listener.

use serde_json::json;

use crate::chatbot::with_market_data;
use crate::helpers::{TestApp, assert_error, spawn_app_around};
use crate::test_cluster;

async fn scrape(app: &TestApp) -> String {
    let address = app.metrics_address.as_ref().expect("METRICS_ADDR is set");
    let response = app.client.get(format!("{address}/metrics")).send().await.expect("scrape");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/plain; version=0.0.4; charset=utf-8");
    response.text().await.expect("text")
}

/// The value of the sample `series` (name and labels exactly as exposed), if exposed.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn requests_runs_providers_and_rejections_are_counted_by_template_never_by_raw_path() {
    let app = spawn_app_around(
        with_market_data(),
        &[("METRICS_ADDR", "127.0.0.1:0"), ("RATE_LIMIT_PER_MINUTE", "2")],
        |_| {},
    )
    .await;
    let token = app.token_for("analyst").await;
    assert_eq!(app.get("/api/auth/me", Some(&token)).await.status(), 200);
    assert_eq!(app.get("/api/auth/me", Some(&token)).await.status(), 200);
    let unknown = uuid::Uuid::new_v4();
    assert_error(app.get(&format!("/api/documents/{unknown}"), Some(&token)).await, 404).await;
    assert_error(app.get("/no/such/thing", None).await, 404).await;
    let analysis = json!({ "query": "AAPL", "time_range": "6M" });
    assert_eq!(app.post("/api/quantitative-analysis/market", Some(&token), &analysis).await.status(), 200);
    assert_eq!(app.post("/api/quantitative-analysis/market", Some(&token), &analysis).await.status(), 200);
    assert_error(app.post("/api/quantitative-analysis/market", Some(&token), &analysis).await, 429).await;

    let text = scrape(&app).await;
    let me = r#"creditflow_http_requests_total{method="GET",route="/api/auth/me",status="200"}"#;
    assert_eq!(sample(&text, me), Some(2.0), "{text}");
    let document = r#"creditflow_http_requests_total{method="GET",route="/api/documents/{document_id}",status="404"}"#;
    assert_eq!(sample(&text, document), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, r#"creditflow_http_requests_total{method="GET",route="unmatched",status="404"}"#),
        Some(1.0)
    );
    assert!(!text.contains(&unknown.to_string()) && !text.contains("/no/such"), "raw paths never become labels");
    let market = r#"creditflow_http_request_duration_seconds_count{method="POST",route="/api/quantitative-analysis/market",status="200"}"#;
    assert_eq!(sample(&text, market), Some(2.0), "{text}");
    assert_eq!(
        sample(&text, r#"creditflow_workflow_runs_total{kind="market",outcome="completed"}"#),
        Some(2.0),
        "{text}"
    );
    assert!(
        text.contains(
            r#"creditflow_workflow_run_duration_seconds_bucket{kind="market",outcome="completed",le="+Inf"} 2"#
        )
    );
    assert!(
        sample(&text, r#"creditflow_provider_calls_total{provider="local-mirror",outcome="answered"}"#)
            .is_some_and(|n| n >= 2.0),
        "{text}"
    );
    assert_eq!(sample(&text, r#"creditflow_rate_limit_rejections_total{budget="workflow"}"#), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, &format!(r#"creditflow_build_info{{version="{}"}}"#, env!("CARGO_PKG_VERSION"))),
        Some(1.0)
    );
    assert!(!text.contains("db_pool"), "no pool without a database");

    // The API's own listener does not serve the metrics.
    assert_error(app.get("/metrics", None).await, 404).await;
}

#[tokio::test]
async fn without_metrics_addr_there_is_no_metrics_listener() {
    let app = spawn_app_around(with_market_data(), &[], |_| {}).await;
    assert!(app.metrics_address.is_none());
}

#[tokio::test]
async fn on_postgresql_the_pool_and_the_research_queue_are_exposed() {
    let adapters = test_cluster::shared().await.fresh_adapters().await;
    // No research worker: a submitted run waits in the queue.
    let app = spawn_app_around(adapters, &[("METRICS_ADDR", "127.0.0.1:0"), ("RESEARCH_WORKERS", "0")], |_| {}).await;
    let token = app.token_for("analyst").await;
    let response = app.post("/api/deep-research/query", Some(&token), &json!({ "query": "SOFR floors" })).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap_or_default());

    let text = scrape(&app).await;
    assert_eq!(sample(&text, "creditflow_research_queue_depth"), Some(1.0), "{text}");
    assert_eq!(sample(&text, "creditflow_db_pool_max_connections"), Some(4.0), "{text}");
    assert!(sample(&text, "creditflow_db_pool_open_connections").is_some_and(|n| n >= 1.0), "{text}");
    assert!(sample(&text, "creditflow_db_pool_in_use_connections").is_some(), "{text}");
    assert_eq!(sample(&text, "creditflow_db_pool_waiters"), Some(0.0), "{text}");
}
