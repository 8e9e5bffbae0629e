//! `/api/deep-research/*` against a local fake web: a SearXNG-format search endpoint, a Brave
//! endpoint that fails, and result pages (some slow, one huge) served by one warp server that counts
//! every hit and the highest number of requests it served at once.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use creditflow::Adapters;
use creditflow::adapters::fetch::HttpPageFetcher;
use creditflow::adapters::search::search_providers_from_config;
use creditflow::config::Config;
use creditflow::ports::page_fetch::PageFetcher;
use serde_json::{Value, json};
use warp::Filter;

use crate::helpers::*;

/// The fake web's pages: path → (title, paragraphs).
const PAGES: &[(&str, &str, &[&str])] = &[
    (
        "sofr-basics",
        "SOFR basics",
        &[
            "The Secured Overnight Financing Rate (SOFR) is a broad measure of the cost of borrowing cash overnight \
             collateralized by Treasury securities. SOFR replaced USD LIBOR as the benchmark for new leveraged loans.",
            "Lenders price leveraged loans at Term SOFR plus a credit spread, commonly between 300 and 450 basis points.",
        ],
    ),
    (
        "leveraged-loans-impact",
        "Impact of SOFR on leveraged loans",
        &[
            "The impact of SOFR on leveraged loans shows in interest coverage: higher SOFR raised borrowers' interest \
             costs and lowered interest coverage ratios across leveraged loans in 2023.",
            "Risks of the SOFR transition for leveraged loans include basis risk between loan and hedge rates and \
             credit spread adjustments that added roughly 10 to 26 basis points.",
        ],
    ),
    (
        "floors",
        "SOFR floors in credit agreements",
        &["Most leveraged loans carry a SOFR floor of 0.50% or 0.75%, which protected lenders' returns when SOFR \
             was near zero and is out of the money since rates rose."],
    ),
];

/// Counts and peak concurrency seen by the fake web.
#[derive(Default)]
struct Traffic {
    hits: Mutex<HashMap<String, usize>>,
    in_flight: AtomicUsize,
    peak_search: AtomicUsize,
    peak_pages: AtomicUsize,
}

impl Traffic {
    fn enter(&self, path: &str, peak: &AtomicUsize) -> InFlight<'_> {
        *self.hits.lock().expect("hits").entry(path.to_owned()).or_insert(0) += 1;
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(now, Ordering::SeqCst);
        InFlight(self)
    }

    fn hits(&self, path: &str) -> usize {
        self.hits.lock().expect("hits").get(path).copied().unwrap_or(0)
    }

    fn hits_matching(&self, prefix: &str) -> Vec<(String, usize)> {
        let hits = self.hits.lock().expect("hits");
        hits.iter().filter(|(path, _)| path.starts_with(prefix)).map(|(p, n)| (p.clone(), *n)).collect()
    }
}

struct InFlight<'a>(&'a Traffic);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(crate) struct FakeWeb {
    base: String,
    traffic: Arc<Traffic>,
}

fn page_html(title: &str, paragraphs: &[&str]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!("<html><head><title>{title}</title><script>var tracking = 1;</script></head><body>\n{body}</body></html>")
}

/// Serves the fake web with `latency` added to every search and page.
pub(crate) async fn fake_web(latency: Duration) -> FakeWeb {
    let traffic = Arc::new(Traffic::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address: SocketAddr = listener.local_addr().expect("address");
    let base = format!("http://{address}");

    let search_traffic = traffic.clone();
    let search_base = base.clone();
    let search = warp::path!("search").and(warp::query::<HashMap<String, String>>()).then(
        move |query: HashMap<String, String>| {
            let traffic = search_traffic.clone();
            let base = search_base.clone();
            async move {
                let _guard = traffic.enter("/search", &traffic.peak_search);
                tokio::time::sleep(latency).await;
                let q = query.get("q").cloned().unwrap_or_default();
                let mut results: Vec<Value> = PAGES
                    .iter()
                    .map(|(path, title, paragraphs)| {
                        json!({
                            // A tracking parameter and a fragment that canonicalise away: never refetched.
                            "url": format!("{base}/pages/{path}?utm_source=search#top"),
                            "title": title,
                            "content": paragraphs[0].chars().take(160).collect::<String>(),
                            "engine": "fake",
                            "score": 1.0,
                        })
                    })
                    .collect();
                results.push(json!({
                    "url": format!("{base}/pages/slow"),
                    "title": "A slow page about SOFR",
                    "content": "short",
                    "engine": "fake",
                }));
                results.push(json!({
                    "url": format!("{base}/pages/huge"),
                    "title": "A huge page about leveraged loans",
                    "content": "tiny",
                    "engine": "fake",
                }));
                warp::reply::json(&json!({ "query": q, "results": results }))
            }
        },
    );
    let brave_traffic = traffic.clone();
    let brave = warp::path!("brave").map(move || {
        *brave_traffic.hits.lock().expect("hits").entry("/brave".into()).or_insert(0) += 1;
        warp::reply::with_status("upstream broke", warp::http::StatusCode::INTERNAL_SERVER_ERROR)
    });
    let page_traffic = traffic.clone();
    let pages = warp::path!("pages" / String).then(move |name: String| {
        let traffic = page_traffic.clone();
        async move {
            let _guard = traffic.enter(&format!("/pages/{name}"), &traffic.peak_pages);
            tokio::time::sleep(latency).await;
            let html = match name.as_str() {
                "slow" => {
                    tokio::time::sleep(Duration::from_secs(3)).await;
                    page_html("slow", &["SOFR arrives too late."])
                }
                "huge" => page_html("huge", &["leveraged loans ".repeat(200_000).as_str()]),
                _ => match PAGES.iter().find(|(path, _, _)| *path == name) {
                    Some((_, title, paragraphs)) => page_html(title, paragraphs),
                    None => page_html("missing", &[]),
                },
            };
            warp::reply::html(html)
        }
    });
    tokio::spawn(warp::serve(search.or(brave).or(pages)).incoming(listener).run());
    FakeWeb { base, traffic }
}

pub(crate) fn research_vars(web: &FakeWeb) -> Vec<(String, String)> {
    vec![
        ("SEARCH_PROVIDERS".into(), "searxng,brave".into()),
        ("SEARXNG_URL".into(), web.base.clone()),
        ("BRAVE_URL".into(), format!("{}/brave", web.base)),
        ("BRAVE_API_KEY".into(), "brave-test-key".into()),
        ("FETCH_TIMEOUT".into(), "1s".into()),
        ("SEARCH_TIMEOUT".into(), "2s".into()),
        ("FETCH_ALLOW_PRIVATE_NETWORKS".into(), "true".into()),
    ]
}

/// An app whose research uses the real search and fetch adapters, configured from `vars`.
async fn app_on_web(vars: &[(String, String)]) -> TestApp {
    app_on_web_around(Adapters::in_memory(), vars).await
}

/// As [`app_on_web`], around `adapters` (a PostgreSQL store, market data, a language model…).
pub(crate) async fn app_on_web_around(adapters: Adapters, vars: &[(String, String)]) -> TestApp {
    let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let config = Config::for_tests(&pairs).expect("configuration");
    let providers = search_providers_from_config(&config.research).expect("providers");
    let fetcher: Arc<dyn PageFetcher> = Arc::new(HttpPageFetcher::from_config(&config.research).expect("fetcher"));
    spawn_app_around(adapters, &pairs, move |adapters| {
        adapters.web_search = providers;
        adapters.page_fetcher = Some(fetcher);
    })
    .await
}

pub async fn wait_for_research(app: &TestApp, token: &str, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let body: Value =
            app.get(&format!("/api/deep-research/results/{id}"), Some(token)).await.json().await.expect("json");
        if matches!(body["status"].as_str(), Some("completed" | "failed")) {
            crate::cdm_events::record(&body);
            return body;
        }
        assert!(Instant::now() < deadline, "research did not finish: {body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn submit(app: &TestApp, token: &str, body: Value) -> String {
    let response = app.post("/api/deep-research/query", Some(token), &body).await;
    assert_eq!(response.status().as_u16(), 202);
    let created: Value = response.json().await.expect("json");
    crate::cdm_events::record(&created);
    assert_eq!(created["status"], "success");
    assert_eq!(created["cdm_events"][0]["workflowState"]["workflowStatus"], "Pending");
    created["research_id"].as_str().expect("research_id").to_owned()
}

fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn page_text(url: &str) -> Option<String> {
    let path = url.split("/pages/").nth(1)?.split(['?', '#']).next()?;
    PAGES.iter().find(|(p, _, _)| *p == path).map(|(_, _, paragraphs)| normalise(&paragraphs.join(" ")))
}

/// A run followed on its event stream: progress as it changes, then the whole run once, and the end.
#[tokio::test]
async fn a_research_run_is_followed_on_its_event_stream_until_it_ends() {
    let web = fake_web(Duration::from_millis(20)).await;
    let app = app_on_web(&research_vars(&web)).await;
    let token = app.token_for("analyst").await;
    let id =
        submit(&app, &token, json!({ "query": "What is the impact of SOFR on leveraged loans?", "max_iterations": 2 }))
            .await;

    let response = app.get(&format!("/api/deep-research/results/{id}/events"), Some(&token)).await;
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().is_ok_and(|ct| ct.starts_with("text/event-stream")));
    let events = crate::quant::SseClient::read_all(response).await.dispatched;
    let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    let (last, progress) = kinds.split_last().expect("events");
    assert_eq!(*last, "completed", "{kinds:?}");
    assert!(!progress.is_empty() && progress.iter().all(|kind| *kind == "progress"), "{kinds:?}");
    for (sequence, event) in events.iter().enumerate() {
        assert_eq!(event.id, sequence.to_string());
        assert_eq!(event.data["type"], event.event);
    }
    // Each progress event says something new; the last one is the finished run's.
    let updates: Vec<&Value> = events[..events.len() - 1].iter().map(|e| &e.data["data"]).collect();
    assert!(updates.windows(2).all(|pair| pair[0] != pair[1]), "{updates:?}");
    assert_eq!(updates[0]["research_id"], id.as_str());
    assert_eq!(updates[0]["max_iterations"], 2);
    let finished = &events[events.len() - 1].data["data"];
    assert_eq!(finished["status"], "completed");
    assert!(finished["answer"].is_string(), "{finished}");
    assert_eq!(updates[updates.len() - 1]["status"], "completed");
    assert_eq!(updates[updates.len() - 1]["iterations"], finished["statistics"]["iterations"]);
    crate::cdm_events::record(finished);

    // A finished run: its state and its end at once.
    let again = app.get(&format!("/api/deep-research/results/{id}/events"), Some(&token)).await;
    let kinds: Vec<String> =
        crate::quant::SseClient::read_all(again).await.dispatched.into_iter().map(|e| e.event).collect();
    assert_eq!(kinds, ["progress", "completed"]);

    // Someone else's run, an unknown one, or no token: the error shape, before any event.
    let other = app.token_for("analyst").await;
    assert_error(app.get(&format!("/api/deep-research/results/{id}/events"), Some(&other)).await, 404).await;
    let unknown = uuid::Uuid::new_v4();
    assert_error(app.get(&format!("/api/deep-research/results/{unknown}/events"), Some(&token)).await, 404).await;
    assert_error(app.get(&format!("/api/deep-research/results/{id}/events"), None).await, 401).await;
}

#[tokio::test]
async fn a_research_run_reads_the_web_cites_its_sources_and_degrades_around_failures() {
    let web = fake_web(Duration::from_millis(20)).await;
    let app = app_on_web(&research_vars(&web)).await;
    let token = app.token_for("analyst").await;

    let id = submit(
        &app,
        &token,
        json!({ "query": "What is the impact of SOFR on leveraged loans?", "max_iterations": 3, "deal_id": 11 }),
    )
    .await;
    let run = wait_for_research(&app, &token, &id).await;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["query"], "What is the impact of SOFR on leveraged loans?");
    assert!(run["completed_at"].is_string());

    // Iterations within the limit; every statistic present.
    let statistics = &run["statistics"];
    let iterations = statistics["iterations"].as_u64().expect("iterations");
    assert!((1..=3).contains(&iterations), "{statistics}");
    assert!(statistics["time_taken_seconds"].is_number());
    assert!(statistics["queries"].as_u64().expect("queries") >= 1);
    assert_eq!(statistics["sources_used"].as_u64(), run["sources"].as_array().map(|s| s.len() as u64));
    assert!(statistics["pages_fetched"].as_u64().expect("pages") >= 3, "{statistics}");

    // Brave failed every time, the slow page timed out and the huge one was refused: all recorded,
    // and the run went on with the rest.
    let errors = statistics["provider_errors"].as_array().expect("provider_errors");
    assert!(errors.iter().any(|e| e["provider"] == "brave" && e["stage"] == "search"), "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e["stage"] == "fetch" && e["message"].as_str().is_some_and(|m| m.contains("/pages/slow"))),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e["stage"] == "fetch" && e["message"].as_str().is_some_and(|m| m.contains("/pages/huge"))),
        "{errors:?}"
    );
    assert!(web.traffic.hits("/brave") >= 1);

    // Visited URLs are never fetched again, whatever tracking parameters or fragments the hits carry.
    for (path, hits) in web.traffic.hits_matching("/pages/") {
        assert_eq!(hits, 1, "{path} fetched {hits} times");
    }

    // Knowledge items quote the pages they cite.
    let items = run["knowledge_items"].as_array().expect("knowledge_items");
    assert!(!items.is_empty(), "{run}");
    for item in items {
        let content = normalise(item["content"].as_str().expect("content"));
        let sources = item["sources"].as_array().expect("sources");
        assert!(!sources.is_empty(), "{item}");
        for source in sources {
            for field in ["url", "title", "provider", "retrieved_at"] {
                assert!(source[field].is_string(), "{field} in {source}");
            }
        }
        let quoted = content.trim_matches(|c: char| c == '…' || c == '"' || c.is_whitespace());
        let fragment: String = quoted.chars().take(60).collect();
        let cited_page = sources.iter().filter_map(|s| s["url"].as_str()).filter_map(page_text).collect::<Vec<_>>();
        assert!(
            cited_page.iter().any(|text| text.contains(fragment.trim())),
            "item content not found in its cited pages: {fragment:?}"
        );
    }

    // The answer cites sources by number, and every number resolves.
    let answer = run["answer"].as_str().expect("answer");
    let sources = run["sources"].as_array().expect("sources");
    let citations: Vec<usize> =
        answer.split('[').skip(1).filter_map(|rest| rest.split(']').next()?.parse().ok()).collect();
    assert!(!citations.is_empty(), "{answer}");
    assert!(citations.iter().all(|n| (1..=sources.len()).contains(n)), "{answer}");
    assert!(sources.iter().all(|s| s["origin"] == "web" || s["origin"] == "internal"));

    // The closing CDM step follows the queued one.
    let events = run["cdm_events"].as_array().expect("events");
    assert_eq!(events.len(), 2);
    let items_of = |event: &Value| event["workflowState"]["partyCustomisedWorkflow"][0]["customisedWorkflow"].clone();
    let closing = items_of(&events[1]);
    assert!(
        closing
            .as_array()
            .expect("items")
            .iter()
            .any(|i| i["itemName"] == "eventKind" && i["itemValue"] == "ResearchCompleted")
    );
    let queued_id = events[0]["eventIdentifier"][0]["assignedIdentifier"][0]["identifier"]["@data"].clone();
    assert!(
        closing
            .as_array()
            .expect("items")
            .iter()
            .any(|i| i["itemName"] == "previousEventIdentifier" && i["itemValue"] == queued_id)
    );
}

#[tokio::test]
async fn searches_and_page_reads_run_concurrently() {
    let latency = Duration::from_millis(100);
    let web = fake_web(latency).await;
    let app = app_on_web(&research_vars(&web)).await;
    let token = app.token_for("analyst").await;
    let started = Instant::now();
    let id = submit(&app, &token, json!({ "query": "SOFR floors and leveraged loans", "max_iterations": 2 })).await;
    let run = wait_for_research(&app, &token, &id).await;
    let wall = started.elapsed();
    assert_eq!(run["status"], "completed", "{run}");
    let peak_search = web.traffic.peak_search.load(Ordering::SeqCst);
    let peak_pages = web.traffic.peak_pages.load(Ordering::SeqCst);
    assert!(peak_search > 1, "searches ran one at a time (peak {peak_search})");
    assert!(peak_pages > 1, "pages were read one at a time (peak {peak_pages})");
    tracing::info!(?wall, peak_search, peak_pages, "concurrent research run");
}

#[tokio::test]
async fn without_any_reachable_source_the_run_fails_saying_why() {
    let vars = vec![
        ("SEARCH_PROVIDERS".to_owned(), "searxng".to_owned()),
        ("SEARXNG_URL".to_owned(), "http://127.0.0.1:9".to_owned()),
        ("SEARCH_TIMEOUT".to_owned(), "1s".to_owned()),
    ];
    let app = app_on_web(&vars).await;
    let token = app.token_for("analyst").await;
    let id = submit(&app, &token, json!({ "query": "Zorblax quarterly covenant waivers", "max_iterations": 1 })).await;
    let run = wait_for_research(&app, &token, &id).await;
    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().expect("error");
    assert!(error.contains("no source could be consulted") && error.contains("searxng"), "{error}");
    assert!(run.get("completed_at").is_none());
    let closing = &run["cdm_events"][1];
    assert_eq!(closing["workflowState"]["workflowStatus"], "Rejected");
}

#[tokio::test]
async fn offline_research_answers_from_the_users_own_documents() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let text = "CREDIT AGREEMENT dated as of March 15, 2024 among ACME CORP, as Borrower, and FIRST BANK, N.A., \
                as Administrative Agent. The Term Loan bears interest at Term SOFR plus 2.75% per annum with a SOFR \
                floor of 0.50%. The leveraged loans mature on March 15, 2029.";
    let created = app
        .post("/api/documents", Some(&token), &json!({ "title": "Acme SOFR facility", "text": text, "deal_id": 42 }))
        .await;
    assert_eq!(created.status().as_u16(), 201, "{:?}", created.text().await);
    let other = app.token_for("analyst").await;

    let id = submit(
        &app,
        &token,
        json!({ "query": "What SOFR floor applies to the Acme term loan?", "max_iterations": 1, "deal_id": 42 }),
    )
    .await;
    let run = wait_for_research(&app, &token, &id).await;
    assert_eq!(run["status"], "completed", "{run}");
    let sources = run["sources"].as_array().expect("sources");
    assert_eq!(sources.len(), 1, "{sources:?}");
    assert_eq!((sources[0]["origin"].as_str(), sources[0]["provider"].as_str()), (Some("internal"), Some("internal")));
    assert!(sources[0]["url"].as_str().is_some_and(|u| u.starts_with("/api/documents/")));
    assert!(run["answer"].as_str().is_some_and(|a| a.contains("[1]")), "{run}");

    // Someone else neither sees the run nor finds this user's documents.
    assert_error(app.get(&format!("/api/deep-research/results/{id}"), Some(&other)).await, 404).await;
    let theirs =
        submit(&app, &other, json!({ "query": "What SOFR floor applies to the Acme term loan?", "max_iterations": 1 }))
            .await;
    assert_eq!(wait_for_research(&app, &other, &theirs).await["status"], "failed");

    // Listed, and linked to the deal's documents.
    let list: Value = app.get("/api/deep-research/results?deal_id=42", Some(&token)).await.json().await.expect("json");
    assert_eq!(list["total"], 1);
    assert_eq!(list["research"][0]["research_id"], id.as_str());
    let document_id = sources[0]["url"].as_str().and_then(|u| u.rsplit('/').next()).expect("id").to_owned();
    let document: Value =
        app.get(&format!("/api/documents/{document_id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(document["document"]["workflow_data"]["research"][0]["research_id"], id.as_str());
}

#[tokio::test]
async fn research_requests_are_validated_and_results_are_private() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    for (body, field) in [
        (json!({}), "query"),
        (json!({ "query": "   " }), "query"),
        (json!({ "query": 7 }), "query"),
        (json!({ "query": "q", "max_iterations": 0 }), "max_iterations"),
        (json!({ "query": "q", "max_iterations": 21 }), "max_iterations"),
        (json!({ "query": "q", "max_iterations": "five" }), "max_iterations"),
        (json!({ "query": "q", "deal_id": "x" }), "deal_id"),
        (json!({ "query": "q", "depth": 3 }), "depth"),
    ] {
        let error = assert_error(app.post("/api/deep-research/query", Some(&token), &body).await, 400).await;
        assert!(error.to_string().contains(field), "{body}: {error}");
    }
    assert_error(app.get("/api/deep-research/results/not-a-uuid", Some(&token)).await, 404).await;
    assert_error(app.get(&format!("/api/deep-research/results/{}", uuid::Uuid::new_v4()), Some(&token)).await, 404)
        .await;
    assert_error(app.get("/api/deep-research/results?page=0", Some(&token)).await, 400).await;
    let viewer = app.token_for("viewer").await;
    assert_error(app.post("/api/deep-research/query", Some(&viewer), &json!({ "query": "q" })).await, 403).await;
    assert_error(app.post("/api/deep-research/query", None, &json!({ "query": "q" })).await, 401).await;
}

#[tokio::test]
async fn the_ssrf_guard_keeps_research_off_private_addresses() {
    let web = fake_web(Duration::ZERO).await;
    let mut vars = research_vars(&web);
    vars.retain(|(name, _)| name != "FETCH_ALLOW_PRIVATE_NETWORKS");
    let app = app_on_web(&vars).await;
    let token = app.token_for("analyst").await;
    let id = submit(&app, &token, json!({ "query": "SOFR and leveraged loans", "max_iterations": 1 })).await;
    let run = wait_for_research(&app, &token, &id).await;
    assert_eq!(web.traffic.hits_matching("/pages/").len(), 0, "a loopback page was fetched");
    let errors = run["statistics"]["provider_errors"].as_array().expect("errors");
    assert!(
        errors.iter().any(|e| e["stage"] == "fetch" && e["message"].as_str().is_some_and(|m| m.contains("refused"))),
        "{errors:?}"
    );
    // The providers' snippets still count as cited evidence.
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["statistics"]["pages_fetched"], 0);
}

#[tokio::test]
async fn a_run_whose_instance_died_is_resumed_by_another_instance_on_the_same_database() {
    let target = crate::test_cluster::shared().await.fresh_database().await;
    let web = fake_web(Duration::from_millis(250)).await;
    let mut vars = research_vars(&web);
    vars.push(("RESEARCH_WORKERS".into(), "1".into()));
    let on_database = || async { Adapters::on_postgres(&target, 2).await.expect("store") };

    let first = app_on_web_around(on_database().await, &vars).await;
    let token = first.token_for("analyst").await;
    // A question the fake web cannot settle, so the loop keeps searching for all its iterations.
    let question = "What covenant waivers did Zorblax Quantum negotiate and what did they cost?";
    let id = submit(&first, &token, json!({ "query": question, "max_iterations": 4 })).await;
    // Wait until the first instance has saved at least one iteration, then kill it mid-run.
    let deadline = Instant::now() + Duration::from_secs(30);
    let saved = loop {
        let run: Value =
            first.get(&format!("/api/deep-research/results/{id}"), Some(&token)).await.json().await.expect("json");
        if run["status"] == "running" && run["statistics"]["iterations"].as_u64() >= Some(1) {
            break run;
        }
        assert!(run["status"] != "completed", "finished before it could be interrupted: {run}");
        assert!(Instant::now() < deadline, "no iteration saved: {run}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    drop(first);

    // Another instance whose clock is past the dead worker's lease resumes the run.
    let second = app_on_web_around(on_database().await, &vars).await;
    second.clock.advance(time::Duration::minutes(5));
    let run = wait_for_research(&second, &token, &id).await;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["attempts"], 2, "claimed once by each instance");
    let before: Vec<Value> = saved["queries"].as_array().expect("queries").clone();
    let after: Vec<Value> = run["queries"].as_array().expect("queries").clone();
    assert!(
        after.len() >= before.len() && after[..before.len()] == before[..],
        "resumed, not restarted: {before:?} then {after:?}"
    );
    assert!(run["statistics"]["iterations"].as_u64() >= saved["statistics"]["iterations"].as_u64());
}
