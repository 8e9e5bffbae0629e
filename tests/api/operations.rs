//! Running it as operators do: the database going away and coming back, a process killed in the
//! middle of work, and two instances on one database.

use std::time::{Duration, Instant};

use creditflow::Adapters;
use creditflow::adapters::postgres::ClientAuth;
use serde_json::{Value, json};

use crate::helpers::*;
use crate::test_cluster::TestCluster;

const AGREEMENT: &str = "CREDIT AGREEMENT dated as of March 1, 2024 among Northwind Industrial Inc., as Borrower, \
                         and First Bank, N.A., as Administrative Agent. The aggregate Revolving Commitments are \
                         $250,000,000.";

/// What a caller sees on `method path` with `body`: its status, body and how long it took.
async fn timed(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value, Duration) {
    let started = Instant::now();
    let response = app.request(method, path, token, body).await;
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body, started.elapsed())
}

#[tokio::test]
async fn while_the_database_is_down_every_endpoint_that_needs_it_answers_503_fast_and_it_recovers_by_itself() {
    let cluster = TestCluster::start(ClientAuth::Certificate).await;
    let target = cluster.fresh_database().await;
    let app = spawn_app_around(Adapters::on_postgres(&target, 4).await.expect("store"), &[], |_| {}).await;
    let token = app.token_for("analyst").await;
    let written = app.post("/api/documents", Some(&token), &json!({ "title": "Before", "text": AGREEMENT })).await;
    assert_eq!(written.status(), 201);

    cluster.server.stop().await.expect("stop");
    let get = reqwest::Method::GET;
    let post = reqwest::Method::POST;
    let calls: [(reqwest::Method, &str, Option<Value>); 7] = [
        (get.clone(), "/api/auth/me", None),
        (get.clone(), "/api/documents", None),
        (post.clone(), "/api/documents", Some(json!({ "title": "During", "text": AGREEMENT }))),
        (post.clone(), "/api/auth/login", Some(json!({ "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD }))),
        (post.clone(), "/api/deep-research/query", Some(json!({ "query": "SOFR floors" }))),
        (get.clone(), "/api/quantitative-analysis/results", None),
        (post.clone(), "/api/digitizer-chatbot/sessions", Some(json!({}))),
    ];
    for (method, path, body) in calls {
        let token = (path != "/api/auth/login").then_some(token.as_str());
        let (status, body, took) = timed(&app, method.clone(), path, token, body.as_ref()).await;
        assert_eq!(status, 503, "{method} {path}: {body}");
        assert_eq!(body["status"], "error", "{method} {path}: {body}");
        assert!(body["message"].as_str().is_some_and(|m| m.contains("database")), "{method} {path}: {body}");
        assert!(took < Duration::from_secs(3), "{method} {path} took {took:?}");
    }
    let (status, _, took) = timed(&app, get.clone(), "/health/ready", None, None).await;
    assert_eq!(status, 503);
    assert!(took < Duration::from_secs(3), "readiness took {took:?}");
    let (status, report, took) = timed(&app, get.clone(), "/health/database/ssl", None, None).await;
    assert_eq!((status, report["status"].as_str()), (503, Some("unhealthy")), "{report}");
    assert!(took < Duration::from_secs(3), "the TLS report took {took:?}");

    // Back: the pool reconnects on its own within 10 s, and nothing of the failed write exists.
    cluster.server.restart().await.expect("restart");
    let back = Instant::now();
    loop {
        if app.get("/api/auth/me", Some(&token)).await.status() == 200 {
            break;
        }
        assert!(back.elapsed() < Duration::from_secs(10), "not recovered after 10 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(app.get("/health/ready", None).await.status(), 200);
    let listed: Value = app.get("/api/documents", Some(&token)).await.json().await.expect("json");
    let titles: Vec<&str> =
        listed["documents"].as_array().expect("documents").iter().filter_map(|d| d["title"].as_str()).collect();
    assert_eq!(titles, ["Before"], "{listed}");
}

/// Two stores over one database stand for two instances.
#[tokio::test]
async fn an_instance_sees_as_abandoned_only_the_unfinished_runs_of_instances_that_stopped() {
    use creditflow::adapters::postgres::PostgresStore;
    use creditflow::domain::auth::UserId;
    use creditflow::domain::quant::runs::{AnalysisKind, AnalysisRecord};
    use creditflow::ports::analyses::AnalysisRepository;
    use creditflow::ports::instances::InstanceRegistry;

    let target = crate::test_cluster::shared().await.fresh_database().await;
    let (first, second) = (
        PostgresStore::open(&target, 2).await.expect("first instance"),
        PostgresStore::open(&target, 2).await.expect("second instance"),
    );
    let now = time::OffsetDateTime::now_utc();
    let owner = UserId::new_random();
    let pending = AnalysisRecord::pending(owner, AnalysisKind::Market, json!({}), None, now);
    let running = AnalysisRecord::pending(owner, AnalysisKind::Company, json!({}), None, now);
    let finished = AnalysisRecord::pending(owner, AnalysisKind::Company, json!({}), None, now);
    for record in [&pending, &running, &finished] {
        first.create(record.clone()).await.expect("create");
    }
    first.start(running.id).await.expect("start");
    first.start(finished.id).await.expect("start");
    first
        .finish(
            finished.id,
            creditflow::domain::quant::runs::AnalysisOutcome::Failed { error: "x".into() },
            vec![],
            now,
        )
        .await
        .expect("finish");
    first.heartbeat(now).await.expect("heartbeat");
    second.heartbeat(now).await.expect("heartbeat");

    let ids = |records: Vec<AnalysisRecord>| records.into_iter().map(|r| r.id).collect::<Vec<_>>();
    let alive_since = now - time::Duration::seconds(30);
    assert_eq!(ids(second.abandoned(alive_since, 10).await.expect("abandoned")), [], "the first instance is alive");
    let later = now + time::Duration::minutes(5);
    let mut stale = ids(second.abandoned(later, 10).await.expect("abandoned"));
    stale.sort_by_key(|id| id.to_string());
    let mut expected = vec![pending.id, running.id];
    expected.sort_by_key(|id| id.to_string());
    assert_eq!(stale, expected, "its heartbeat went stale: its unfinished runs, not the finished one");
    assert_eq!(ids(first.abandoned(later, 10).await.expect("abandoned")), [], "never an instance's own runs");
    first.retire().await.expect("retire");
    assert_eq!(ids(second.abandoned(alive_since, 10).await.expect("abandoned")).len(), 2, "a stopped instance at once");
    assert_eq!(ids(second.abandoned(alive_since, 1).await.expect("abandoned")).len(), 1, "at most the limit");
}
