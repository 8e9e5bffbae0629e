//! Running it as operators do: the database going away and coming back, a process killed in the
//! middle of work, and two instances on one database.

use std::time::{Duration, Instant};

use futures_util::StreamExt as _;

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
    let mut own = ids(first.unfinished_here(10).await.expect("unfinished"));
    own.sort_by_key(|id| id.to_string());
    assert_eq!(own, expected, "an instance's own unfinished runs");
    assert_eq!(ids(second.unfinished_here(10).await.expect("unfinished")), [], "never another instance's");
    first.retire().await.expect("retire");
    assert_eq!(ids(second.abandoned(alive_since, 10).await.expect("abandoned")).len(), 2, "a stopped instance at once");
    assert_eq!(ids(second.abandoned(alive_since, 1).await.expect("abandoned")).len(), 1, "at most the limit");
}

/// A row the service cannot read (edited by hand) is a 500, not the 503 "retry shortly" of an
/// outage: retrying will not help.
#[tokio::test]
async fn an_unreadable_row_is_a_500_not_an_outage() {
    let target = crate::test_cluster::shared().await.fresh_database().await;
    let app = spawn_app_around(Adapters::on_postgres(&target, 2).await.expect("store"), &[], |_| {}).await;
    let token = app.token_for("analyst").await;
    let db = target.connect().await.expect("connect");
    let owner: uuid::Uuid =
        db.query_one("SELECT id FROM users WHERE role = 'analyst'", &[]).await.expect("user").get(0);
    let id = uuid::Uuid::new_v4();
    db.execute(
        "INSERT INTO analyses (id, owner_id, kind, status, request, cdm_events, created_at, completed_at) \
         VALUES ($1, $2, 'market', 'failed', '{}'::jsonb, '{\"not\": \"an array\"}'::jsonb, now(), now())",
        &[&id, &owner],
    )
    .await
    .expect("a row edited by hand");
    let response = app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(&token)).await;
    assert!(response.headers().get("retry-after").is_none());
    assert_error(response, 500).await;
    assert_eq!(app.get("/api/auth/me", Some(&token)).await.status(), 200, "the rest still works");
}

/// The service's binary as a process of its own, which a test can kill with SIGKILL.
struct ServiceProcess {
    child: tokio::process::Child,
    address: String,
}

impl ServiceProcess {
    /// Starts the binary with `vars` and waits until it answers `/health/live`.
    async fn start(vars: &[(&str, String)], data_dir: &std::path::Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("free port").local_addr().expect("addr").port();
        let log = std::fs::File::create(data_dir.join(format!("service-{port}.log"))).expect("log file");
        let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_creditflow"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("BIND_ADDR", format!("127.0.0.1:{port}"))
            .env("DATA_DIR", data_dir)
            .env("JWT_SECRET", "crash-test-secret-crash-test-secret-0123")
            .env("ADMIN_EMAIL", ADMIN_EMAIL)
            .env("ADMIN_PASSWORD", ADMIN_PASSWORD)
            .env("READER_WORKER", env!("CARGO_BIN_EXE_creditflow"))
            .env("RUST_LOG", "warn")
            .envs(vars.iter().map(|(name, value)| (*name, value.as_str())))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .expect("the service starts");
        let address = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while client.get(format!("{address}/health/live")).send().await.is_err() {
            assert!(Instant::now() < deadline, "the service did not come up");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Self { child, address }
    }

    async fn kill_9(mut self) {
        self.child.kill().await.expect("SIGKILL");
    }
}

async fn admin_token(client: &reqwest::Client, address: &str) -> String {
    let body = json!({ "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD });
    let signed_in: Value = client
        .post(format!("{address}/api/auth/login"))
        .json(&body)
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("json");
    access_token(&signed_in)
}

/// `GET address path` as `token`, as JSON.
async fn get_json(client: &reqwest::Client, address: &str, path: &str, token: &str) -> Value {
    let response = client.get(format!("{address}{path}")).bearer_auth(token).send().await.expect("GET");
    response.json().await.expect("json")
}

async fn analyses(client: &reqwest::Client, address: &str, token: &str) -> Vec<Value> {
    let listed = get_json(client, address, "/api/quantitative-analysis/results", token).await;
    listed["analyses"].as_array().cloned().unwrap_or_default()
}

/// A provider that accepts connections and never answers, so whoever calls it waits.
async fn silent_provider() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{address}/v1")
}

#[tokio::test]
async fn after_kill_9_mid_analysis_and_mid_upload_no_run_stays_running_and_no_document_is_partial() {
    let cluster = crate::test_cluster::shared().await;
    let (database, target) = cluster.fresh_database_named().await;
    let data_dir = tempfile_dir("crash");
    let mut vars = cluster.service_vars(&database);
    // The prices come from the sample mirror at once; the summary's language model never answers,
    // so the run waits in `running` after its figures are computed.
    vars.extend([
        ("MARKET_DATA_DIR", concat!(env!("CARGO_MANIFEST_DIR"), "/examples/market-data").to_owned()),
        ("LLM_BASE_URL", silent_provider().await),
        ("LLM_MODEL", "silent".to_owned()),
        ("LLM_TIMEOUT", "120s".to_owned()),
        ("INSTANCE_STALE_AFTER", "2s".to_owned()),
    ]);
    let client = reqwest::Client::new();
    // A document stored before (by an instance without the model, whose extraction would wait on it).
    let before = ServiceProcess::start(&cluster.service_vars(&database), &data_dir).await;
    let stored = client
        .post(format!("{}/api/documents", before.address))
        .bearer_auth(admin_token(&client, &before.address).await)
        .json(&json!({ "title": "Before the crash", "text": AGREEMENT }))
        .send()
        .await
        .expect("create");
    assert_eq!(stored.status(), 201);
    before.kill_9().await;

    let first = ServiceProcess::start(&vars, &data_dir).await;
    let token = admin_token(&client, &first.address).await;

    // An analysis waiting on its provider, and an upload whose body is half sent.
    let analysis = tokio::spawn({
        let (client, url, token) =
            (client.clone(), format!("{}/api/quantitative-analysis/market", first.address), token.clone());
        async move {
            let sent = client.post(url).bearer_auth(token).json(&json!({ "query": "AAPL", "time_range": "6M" })).send();
            match sent.await {
                Ok(response) => format!("{}: {}", response.status(), response.text().await.unwrap_or_default()),
                Err(error) => error.to_string(),
            }
        }
    });
    let upload = tokio::spawn({
        let (client, url, token) = (client.clone(), format!("{}/api/documents", first.address), token.clone());
        async move {
            let head = format!(
                "--cut\r\nContent-Disposition: form-data; name=\"file\"; filename=\"agreement.txt\"\r\n\
                 Content-Type: text/plain\r\n\r\n{AGREEMENT}\r\n"
            );
            let body = futures_util::stream::once(async move { Ok::<_, std::io::Error>(head.into_bytes()) })
                .chain(futures_util::stream::pending());
            let _ = client
                .post(url)
                .bearer_auth(token)
                .header("content-type", "multipart/form-data; boundary=cut")
                .body(reqwest::Body::wrap_stream(body))
                .send()
                .await;
        }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while !analyses(&client, &first.address, &token).await.iter().any(|a| a["status"] == "running") {
        if analysis.is_finished() || Instant::now() > deadline {
            panic!("the analysis never started: {}", analysis.await.expect("join"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    first.kill_9().await;
    analysis.abort();
    upload.abort();

    // Restarted: the interrupted run ends failed, with the reason and a closing event, by itself.
    let second = ServiceProcess::start(&vars, &data_dir).await;
    let token = admin_token(&client, &second.address).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    let runs = loop {
        let runs = analyses(&client, &second.address, &token).await;
        if runs.iter().all(|run| run["status"] != "running" && run["status"] != "pending") {
            break runs;
        }
        assert!(Instant::now() < deadline, "a run is still unfinished: {runs:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["status"], "failed");
    assert!(runs[0]["error"].as_str().is_some_and(|e| e.starts_with("interrupted")), "{}", runs[0]);
    let id = runs[0]["analysis_id"].as_str().expect("analysis_id");
    let run = get_json(&client, &second.address, &format!("/api/quantitative-analysis/results/{id}"), &token).await;
    crate::cdm_events::record(&run);
    let last = run["cdm_events"].as_array().and_then(|events| events.last()).cloned().unwrap_or_default();
    assert!(last.to_string().contains("interrupted"), "the closing event says why: {last}");

    // The upload left nothing; the document written before is whole.
    let listed = get_json(&client, &second.address, "/api/documents", &token).await;
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["documents"][0]["title"], "Before the crash");
    let db = target.connect().await.expect("connect");
    let partial: i64 = db
        .query_one(
            "SELECT count(*) FROM documents d WHERE NOT EXISTS \
             (SELECT 1 FROM document_versions v WHERE v.document_id = d.id AND v.version = d.current_version)",
            &[],
        )
        .await
        .expect("query")
        .get(0);
    assert_eq!(partial, 0, "a document without its current version");
    second.kill_9().await;
    let _ = std::fs::remove_dir_all(&data_dir);
}

/// A live instance ends its own run whose execution stopped without an outcome — here a chat
/// launch whose client gave up, so that the request's future (and the run in it) was dropped —
/// and leaves alone the run it is still executing.
#[tokio::test]
async fn a_run_cancelled_with_its_request_is_ended_by_its_own_instance_and_a_run_in_flight_is_not() {
    let model = creditflow::adapters::llm::OpenAiCompatible::new(
        &silent_provider().await,
        "silent",
        None,
        Duration::from_secs(120),
    )
    .expect("adapter");
    let mut adapters = crate::chatbot::with_market_data();
    adapters.llm = Some(std::sync::Arc::new(model));
    let app = spawn_app_around(adapters, &[("INSTANCE_STALE_AFTER", "2s")], |_| {}).await;
    let token = app.token_for("analyst").await;
    let session = app.chat_session(&token, "cancelled").await;
    let launch = json!({
        "workflow_type": "quant",
        "session_id": session,
        "workflow_params": { "analysis_type": "market", "query": "AAPL", "time_range": "6M" },
    });
    // The summary's model never answers: the run waits in `running` until the client gives up.
    let gave_up = Duration::from_secs(3);
    let client = reqwest::Client::builder().timeout(gave_up).build().expect("client");
    let started = Instant::now();
    let request = tokio::spawn(
        client
            .post(format!("{}/api/digitizer-chatbot/launch-workflow", app.address))
            .bearer_auth(token.clone())
            .json(&launch)
            .send(),
    );
    let run = loop {
        let runs = analyses(&app.client, &app.address, &token).await;
        if let Some(run) = runs.into_iter().find(|run| run["status"] == "running") {
            break run;
        }
        assert!(started.elapsed() < gave_up, "the run never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let path = format!("/api/quantitative-analysis/results/{}", run["analysis_id"].as_str().expect("analysis_id"));
    // Sweeps run every third of a second: while the request waits, each sees the run in flight.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(started.elapsed() < gave_up, "the check must fall before the client gives up");
    assert_eq!(get_json(&app.client, &app.address, &path, &token).await["status"], "running");
    assert!(request.await.expect("join").is_err(), "the client gives up");
    let deadline = Instant::now() + Duration::from_secs(5);
    let ended = loop {
        let run = get_json(&app.client, &app.address, &path, &token).await;
        if run["status"] != "running" {
            break run;
        }
        assert!(Instant::now() < deadline, "the cancelled run is still running: {run}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(ended["status"], "failed", "{ended}");
    assert!(ended["error"].as_str().is_some_and(|e| e.starts_with("interrupted: this analysis")), "{ended}");
    crate::cdm_events::record(&ended);
    let last = ended["cdm_events"].as_array().and_then(|events| events.last()).cloned().unwrap_or_default();
    assert!(last.to_string().contains("interrupted"), "the closing event says why: {last}");
}

/// A directory of its own under the system's temporary directory, readable by the cluster user.
fn tempfile_dir(label: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("creditflow-{label}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("directory");
    dir
}

/// Two `Application`s over one database, each with its own pool, stand for two instances behind a
/// load balancer (the resumption of a run whose instance died is in `research.rs`).
#[tokio::test]
async fn two_instances_share_one_budget_run_each_queued_job_once_and_read_each_others_writes() {
    use crate::research::{app_on_web_around, fake_web, research_vars, submit, wait_for_research};

    let target = crate::test_cluster::shared().await.fresh_database().await;
    let web = fake_web(Duration::ZERO).await;
    let mut vars = research_vars(&web);
    vars.push(("RESEARCH_WORKERS".into(), "2".into()));
    let instance = || async {
        Adapters::on_postgres_with(&target, 4, creditflow::config::RateLimitStore::Postgres).await.expect("store")
    };
    let first = app_on_web_around(instance().await, &vars).await;
    let second = app_on_web_around(instance().await, &vars).await;
    let token = first.token_for("analyst").await;

    // What one writes, the other reads: a document, and a conversation continued on the other.
    let created: Value = first
        .post("/api/documents", Some(&token), &json!({ "title": "Shared", "text": AGREEMENT }))
        .await
        .json()
        .await
        .expect("json");
    let document = created["document"]["document_id"].as_i64().expect("document id");
    let read: Value = second.get(&format!("/api/documents/{document}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(read["document"]["title"], "Shared", "{read}");
    let session = first.chat_session(&token, "shared").await;
    let turn = json!({ "message": "hello", "session_id": session });
    assert_eq!(first.post("/api/digitizer-chatbot/chat", Some(&token), &turn).await.status(), 200);
    assert_eq!(second.post("/api/digitizer-chatbot/chat", Some(&token), &turn).await.status(), 200);
    let history: Value = second
        .get(&format!("/api/digitizer-chatbot/sessions/{session}"), Some(&token))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(history["messages"].as_array().map(Vec::len), Some(4), "both turns, from either instance: {history}");

    // Queued research runs, submitted to either instance: each is run once, by one worker, to the end.
    let mut ids = Vec::new();
    for round in 0..6 {
        let app = if round % 2 == 0 { &first } else { &second };
        ids.push(submit(app, &token, json!({ "query": format!("SOFR floors {round}"), "max_iterations": 1 })).await);
    }
    for id in &ids {
        let run = wait_for_research(&first, &token, id).await;
        assert_eq!((run["status"].as_str(), run["attempts"].as_u64()), (Some("completed"), Some(1)), "{run}");
    }

    // One budget per user over both instances (the runs and chat turns above spent some of it):
    // every request, whichever instance gets it, takes exactly one slot, and the request after the
    // 60th of the minute is refused by either, with the same headers.
    let body = json!({ "text": "CREDIT AGREEMENT dated as of March 15, 2024" });
    let remaining = |response: &reqwest::Response| -> u64 {
        response.headers()["x-ratelimit-remaining"].to_str().expect("ascii").parse().expect("number")
    };
    let mut left = remaining(&first.post("/api/extract", Some(&token), &body).await);
    let mut round = 0;
    while left > 0 {
        let app = if round % 2 == 0 { &second } else { &first };
        let response = app.post("/api/extract", Some(&token), &body).await;
        assert_eq!(response.status(), 200);
        assert_eq!(remaining(&response), left - 1, "one slot per request, over both instances");
        left -= 1;
        round += 1;
    }
    let headers = |response: &reqwest::Response| {
        ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]
            .map(|name| response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned())
    };
    let refused_here = first.post("/api/extract", Some(&token), &body).await;
    let refused_there = second.post("/api/extract", Some(&token), &body).await;
    assert_eq!((refused_here.status().as_u16(), refused_there.status().as_u16()), (429, 429));
    assert_eq!(headers(&refused_here), headers(&refused_there));
    assert_eq!(headers(&refused_here)[..2], ["60".to_owned(), "0".to_owned()]);
    assert_error(refused_there, 429).await;
}
