//! The people workflow (launched through `POST /api/digitizer-chatbot/launch-workflow`) and its
//! stored results (`GET /api/people/results*`) against a local fake web: a SearXNG-format search
//! endpoint that answers every query with the same fixed pages, and those pages. Adverse media is
//! cited by its page, nothing found is said plainly, and IPIP-50 answers are scored exactly — the
//! expected scores are worked out by hand below, not by the crate's scorer.

use std::collections::HashMap;
use std::net::SocketAddr;

use creditflow::Adapters;
use serde_json::{Value, json};
use warp::Filter;

use crate::cdm_events;
use crate::documents::AGREEMENT;
use crate::helpers::*;
use crate::research::app_on_web_around;

/// A page of the fake web: (path under `/pages/`, title, text).
pub(crate) type WebPage = (&'static str, &'static str, &'static str);

/// Adverse media about Jane Doe (a conviction for fraud, a lawsuit), and a page about nobody.
pub(crate) const ADVERSE_MEDIA: &[WebPage] = &[
    (
        "doe-conviction",
        "Former fund manager convicted",
        "Jane Doe was convicted of fraud in 2019 for misstating the accounts of the Harbour Income Fund. \
         She was sentenced to four years in prison.",
    ),
    (
        "doe-lawsuit",
        "Investors sue over fund losses",
        "In 2021 a group of investors sued Jane Doe over losses at the fund, and the lawsuit is still pending.",
    ),
    (
        "freight-report",
        "Regional freight report",
        "Freight volumes rose in the third quarter across the region. Warehouse rents were flat and trucking \
         rates fell slightly over the summer months.",
    ),
];

/// Two different Jane Does: Acme Corp's CFO, and a history professor convicted of fraud.
const NAMESAKES: &[WebPage] = &[
    (
        "acme-cfo",
        "Acme Corp refinances",
        "Acme Corp said on Monday it had refinanced its term loan. Jane Doe, chief financial officer of Acme Corp, \
         said the new facility matures in 2030. She has led the finance team since 2018.",
    ),
    (
        "professor-convicted",
        "Professor convicted of fraud",
        "Jane Doe, a professor of history at Ohio State University, was convicted of fraud on Tuesday for \
         falsifying grant reports. She was sentenced to two years in prison.",
    ),
    (
        "freight-report",
        "Regional freight report",
        "Freight volumes rose in the third quarter across the region. Warehouse rents were flat and trucking \
         rates fell slightly over the summer months.",
    ),
];

/// Pages that name no one the tests ask about.
const NOBODY: &[WebPage] = &[
    (
        "freight-report",
        "Regional freight report",
        "Freight volumes rose in the third quarter across the region. Warehouse rents were flat and trucking \
         rates fell slightly over the summer months.",
    ),
    (
        "harvest",
        "Harvest outlook",
        "The wheat harvest is expected to be larger than last year thanks to a wet spring and mild summer.",
    ),
];

/// A fake web serving `pages` for every search.
pub(crate) struct PeopleWeb {
    base: String,
}

impl PeopleWeb {
    pub(crate) async fn serving(pages: &'static [WebPage]) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address: SocketAddr = listener.local_addr().expect("address");
        let base = format!("http://{address}");
        let search_base = base.clone();
        let search = warp::path!("search").and(warp::query::<HashMap<String, String>>()).map(
            move |query: HashMap<String, String>| {
                let results: Vec<Value> = pages
                    .iter()
                    .map(|(path, title, text)| {
                        json!({
                            "url": format!("{search_base}/pages/{path}"),
                            "title": title,
                            "content": text.chars().take(120).collect::<String>(),
                            "engine": "fake",
                        })
                    })
                    .collect();
                warp::reply::json(&json!({ "query": query.get("q"), "results": results }))
            },
        );
        let page = warp::path!("pages" / String).map(move |name: String| {
            let html = match pages.iter().find(|(path, _, _)| *path == name) {
                Some((_, title, text)) => {
                    format!("<html><head><title>{title}</title></head><body><p>{text}</p></body></html>")
                }
                None => "<html><head><title>missing</title></head><body></body></html>".to_owned(),
            };
            warp::reply::html(html)
        });
        tokio::spawn(warp::serve(search.or(page)).incoming(listener).run());
        Self { base }
    }

    pub(crate) fn page_url(&self, path: &str) -> String {
        format!("{}/pages/{path}", self.base)
    }

    /// The research configuration pointing at this web (loopback pages allowed).
    pub(crate) fn vars(&self) -> Vec<(String, String)> {
        vec![
            ("SEARCH_PROVIDERS".into(), "searxng".into()),
            ("SEARXNG_URL".into(), self.base.clone()),
            ("FETCH_TIMEOUT".into(), "2s".into()),
            ("SEARCH_TIMEOUT".into(), "2s".into()),
            ("FETCH_ALLOW_PRIVATE_NETWORKS".into(), "true".into()),
            ("RATE_LIMIT_PER_MINUTE".into(), "1000".into()),
        ]
    }

    /// An app whose research (and so the people workflow) reads this web, around `adapters`.
    pub(crate) async fn app(&self, adapters: Adapters) -> TestApp {
        app_on_web_around(adapters, &self.vars()).await
    }
}

/// Launches the people workflow and returns the 200 body (its CDM events recorded).
pub(crate) async fn launch_people(app: &TestApp, token: &str, params: Value, deal_id: Option<i64>) -> Value {
    let session = app.chat_session(token, "people-tests").await;
    let request = json!({
        "workflow_type": "people", "session_id": session, "workflow_params": params, "deal_id": deal_id,
    });
    let response = app.post("/api/digitizer-chatbot/launch-workflow", Some(token), &request).await;
    assert_eq!(response.status(), 200, "{params}");
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    assert_eq!((body["status"].as_str(), body["workflow_type"].as_str()), (Some("success"), Some("people")), "{body}");
    body
}

async fn get_json(app: &TestApp, path: &str, token: &str) -> (u16, Value) {
    let response = app.get(path, Some(token)).await;
    let status = response.status().as_u16();
    (status, response.json().await.expect("json"))
}

#[tokio::test]
async fn adverse_media_is_cited_by_its_source_and_sent_to_a_human() {
    let web = PeopleWeb::serving(ADVERSE_MEDIA).await;
    let app = web.app(Adapters::in_memory()).await;
    let token = app.token_for("analyst").await;

    let body = launch_people(&app, &token, json!({ "person_name": "Jane Doe", "context": "fund manager" }), None).await;

    let result = &body["workflow_result"];
    let assessment = &result["credit_assessment"];
    let findings = assessment["adverse_findings"].as_array().expect("adverse_findings");
    let cites = |category: &str, page: &str| {
        findings.iter().any(|f| {
            f["category"] == category
                && f["url"] == web.page_url(page).as_str()
                && f["statement"].as_str().is_some_and(|s| s.contains("Jane Doe") || s.starts_with("She"))
                && f["source"].is_u64()
        })
    };
    assert!(cites("fraud", "doe-conviction"), "{findings:?}");
    assert!(cites("litigation", "doe-lawsuit"), "{findings:?}");
    assert!(
        findings.iter().all(|f| f["url"] != web.page_url("freight-report").as_str()),
        "a page that does not name her is no finding: {findings:?}"
    );
    assert_eq!(assessment["score_band"], "weak", "a fraud conviction: {assessment}");
    assert_eq!(assessment["requires_human_review"], true);
    assert!(
        assessment["notice"].as_str().is_some_and(|n| n.contains("never be the sole basis")),
        "{}",
        assessment["notice"]
    );

    let summary = &result["research_summary"];
    assert_eq!(summary["found"], true, "{summary}");
    let text = summary["text"].as_str().expect("text");
    assert!(text.contains("convicted of fraud") && text.contains('['), "quoted with citations: {text}");
    let sources = summary["sources"].as_array().expect("sources");
    let mentions = |page: &str| {
        sources.iter().find(|s| s["url"] == web.page_url(page).as_str()).map(|s| s["mentions_person"].clone())
    };
    assert_eq!(mentions("doe-conviction"), Some(json!(true)), "{sources:?}");
    assert_eq!(mentions("freight-report"), Some(json!(false)), "{sources:?}");
    for source in sources {
        let n = source["n"].as_u64().expect("n") as usize;
        assert_eq!(sources[n - 1]["url"], source["url"], "sources are numbered in order");
    }

    // Without answers or a language model, no personality is made up.
    let profile = &result["psychometric_profile"];
    assert_eq!(profile["method"], "unavailable", "{profile}");
    assert!(profile["reason"].is_string() && profile["notice"].is_string(), "{profile}");
    for name in ["openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism"] {
        assert_eq!(profile["traits"][name]["score"], Value::Null, "{name}");
        assert_eq!(profile["traits"][name]["confidence"], 0.0, "{name}");
    }
}

#[tokio::test]
async fn when_no_source_names_the_person_the_summary_says_so_and_infers_nothing() {
    let web = PeopleWeb::serving(NOBODY).await;
    let app = web.app(Adapters::in_memory()).await;
    let token = app.token_for("analyst").await;

    let body = launch_people(&app, &token, json!({ "person_name": "Zebulon Quartermaine" }), None).await;

    let result = &body["workflow_result"];
    let summary = &result["research_summary"];
    assert_eq!(summary["found"], false, "{summary}");
    let text = summary["text"].as_str().expect("text");
    assert!(text.starts_with("No reliable information found"), "{text}");
    assert!(text.contains("Zebulon Quartermaine"), "{text}");
    assert!(summary["sources"].as_array().expect("sources").iter().all(|s| s["mentions_person"] == false), "{summary}");
    let assessment = &result["credit_assessment"];
    assert_eq!(assessment["score_band"], "insufficient_evidence", "{assessment}");
    assert_eq!(assessment["adverse_findings"], json!([]));
    assert_eq!(assessment["requires_human_review"], true);
    assert!(assessment["notice"].as_str().is_some_and(|n| !n.is_empty()));
    assert_eq!(result["psychometric_profile"]["method"], "unavailable");
    assert!(body["message"].as_str().is_some_and(|m| m.contains("no reliable information")), "{}", body["message"]);
}

/// Answers to the 50 IPIP items, item 1 first.
const IPIP_ANSWERS: [u8; 50] = [
    5, 1, 4, 2, 5, 1, 5, 2, 4, 1, // items 1–10
    4, 2, 5, 1, 4, 2, 4, 1, 5, 2, // items 11–20
    5, 1, 4, 2, 5, 1, 5, 2, 1, 1, // items 21–30
    4, 2, 5, 2, 4, 1, 4, 1, 2, 5, // items 31–40
    1, 5, 4, 2, 2, 2, 5, 3, 1, 5, // items 41–50
];

/// The scores of [`IPIP_ANSWERS`], by hand from the published key (− items count 6 − answer; score
/// = (item mean − 1) / 4 · 100):
///
/// - extraversion, items 1+ 6− 11+ 16− 21+ 26− 31+ 36− 41+ 46−: 5 5 4 4 5 5 4 5 1 4 = 42 → 4.2 → 80
/// - agreeableness, 2− 7+ 12− 17+ 22− 27+ 32− 37+ 42+ 47+: 5 5 4 4 5 5 4 4 5 5 = 46 → 4.6 → 90
/// - conscientiousness, 3+ 8− 13+ 18− 23+ 28− 33+ 38− 43+ 48+: 4 4 5 5 4 4 5 5 4 3 = 43 → 4.3 → 82.5
/// - emotional stability, 4− 9+ 14− 19+ 24− 29− 34− 39− 44− 49−: 4 4 5 5 4 5 4 4 4 5 = 44 → 4.4 → 85,
///   so neuroticism (keys inverted) is 2 2 1 1 2 1 2 2 2 1 = 16 → 1.6 → 15
/// - openness (intellect), 5+ 10− 15+ 20− 25+ 30− 35+ 40+ 45+ 50+: 5 5 4 4 5 5 4 5 2 5 = 44 → 4.4 → 85
const EXPECTED_IPIP: [(&str, f64, f64); 5] = [
    ("extraversion", 80.0, 4.2),
    ("agreeableness", 90.0, 4.6),
    ("conscientiousness", 82.5, 4.3),
    ("neuroticism", 15.0, 1.6),
    ("openness", 85.0, 4.4),
];

fn assert_ipip_scores(profile: &Value) {
    assert_eq!(profile["method"], "ipip50", "{profile}");
    assert!(profile["instrument"].as_str().is_some_and(|i| i.contains("IPIP")), "{profile}");
    assert!(profile["notice"].as_str().is_some_and(|n| !n.is_empty()));
    for (name, score, mean) in EXPECTED_IPIP {
        let entry = &profile["traits"][name];
        let actual = entry["score"].as_f64().unwrap_or(f64::NAN);
        assert!((actual - score).abs() < 1e-9, "{name}: {actual} instead of {score}");
        let item_mean = entry["item_mean"].as_f64().unwrap_or(f64::NAN);
        assert!((item_mean - mean).abs() < 1e-9, "{name}: item mean {item_mean} instead of {mean}");
        assert_eq!(entry["confidence"], 1.0, "{name}");
        assert!(entry["evidence"].as_array().is_some_and(|e| !e.is_empty()), "{name}: {entry}");
    }
}

#[tokio::test]
async fn ipip_answers_are_scored_exactly_in_either_form() {
    let web = PeopleWeb::serving(NOBODY).await;
    let app = web.app(Adapters::in_memory()).await;
    let token = app.token_for("analyst").await;

    let as_array = launch_people(
        &app,
        &token,
        json!({ "person_name": "Jane Doe", "ipip_responses": IPIP_ANSWERS.to_vec() }),
        None,
    )
    .await;
    assert_ipip_scores(&as_array["workflow_result"]["psychometric_profile"]);

    let by_item: serde_json::Map<String, Value> =
        IPIP_ANSWERS.iter().enumerate().map(|(i, answer)| ((i + 1).to_string(), json!(answer))).collect();
    let as_object =
        launch_people(&app, &token, json!({ "person_name": "Jane Doe", "ipip_responses": by_item }), None).await;
    assert_ipip_scores(&as_object["workflow_result"]["psychometric_profile"]);

    // Stored as returned.
    let id = as_array["workflow_result"]["people_id"].as_str().expect("people_id");
    let (status, stored) = get_json(&app, &format!("/api/people/results/{id}"), &token).await;
    assert_eq!(status, 200, "{stored}");
    assert_ipip_scores(&stored["psychometric_profile"]);

    for (answers, item) in [
        (json!(IPIP_ANSWERS[..49]), None),
        (
            json!(IPIP_ANSWERS.iter().enumerate().map(|(i, a)| if i == 6 { 6 } else { *a }).collect::<Vec<_>>()),
            Some("7"),
        ),
        (json!("5,4,3"), None),
    ] {
        let request = json!({
            "workflow_type": "people", "session_id": "people-tests",
            "workflow_params": { "person_name": "Jane Doe", "ipip_responses": answers },
        });
        let error =
            assert_error(app.post("/api/digitizer-chatbot/launch-workflow", Some(&token), &request).await, 400).await;
        assert_eq!(error["detail"]["field"], "workflow_params.ipip_responses", "{error}");
        if let Some(item) = item {
            assert!(error["message"].as_str().is_some_and(|m| m.contains(&format!("item {item}"))), "{error}");
        }
    }
}

#[tokio::test]
async fn results_are_private_listed_by_deal_and_linked_to_the_deals_documents() {
    let web = PeopleWeb::serving(ADVERSE_MEDIA).await;
    let app = web.app(Adapters::in_memory()).await;
    let (owner, stranger, admin) =
        (app.token_for("analyst").await, app.token_for("analyst").await, app.admin_token().await);

    let body = launch_people(&app, &owner, json!({ "person_name": "Jane Doe" }), Some(77)).await;
    let id = body["workflow_result"]["people_id"].as_str().expect("people_id").to_owned();

    let (status, stored) = get_json(&app, &format!("/api/people/results/{id}"), &owner).await;
    assert_eq!(status, 200, "{stored}");
    assert_eq!((stored["people_id"].as_str(), stored["deal_id"].as_i64()), (Some(id.as_str()), Some(77)));
    assert_eq!(stored["person_name"], "Jane Doe");
    assert_eq!(stored["session_id"], app.chat_session(&owner, "people-tests").await.as_str());
    assert!(stored["created_at"].is_string() && stored["completed_at"].is_string());
    assert_eq!(stored["credit_assessment"], body["workflow_result"]["credit_assessment"]);
    cdm_events::record(&stored);

    assert_error(app.get(&format!("/api/people/results/{id}"), Some(&stranger)).await, 404).await;
    assert_eq!(app.get(&format!("/api/people/results/{id}"), Some(&admin)).await.status(), 200);
    for bad in ["not-a-uuid", &uuid::Uuid::new_v4().to_string()] {
        assert_error(app.get(&format!("/api/people/results/{bad}"), Some(&owner)).await, 404).await;
    }

    let (_, listed) = get_json(&app, "/api/people/results?deal_id=77", &owner).await;
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["people"][0]["people_id"], id.as_str());
    let (_, other_deal) = get_json(&app, "/api/people/results?deal_id=78", &owner).await;
    assert_eq!(other_deal["total"], 0, "{other_deal}");
    let (_, theirs) = get_json(&app, "/api/people/results", &stranger).await;
    assert_eq!(theirs["total"], 0, "{theirs}");
    assert_error(app.get("/api/people/results?page=0", Some(&owner)).await, 400).await;

    let created = app
        .post("/api/documents", Some(&owner), &json!({ "title": "Deal 77", "text": AGREEMENT, "deal_id": 77 }))
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.expect("json");
    cdm_events::record(&created);
    let document_id = created["document"]["document_id"].as_i64().expect("document_id");
    let (_, document) = get_json(&app, &format!("/api/documents/{document_id}"), &owner).await;
    let linked = document["document"]["workflow_data"]["people"].as_array().expect("people");
    assert_eq!(linked.len(), 1, "{linked:?}");
    assert_eq!(linked[0]["people_id"], id.as_str());
    assert_eq!(linked[0]["score_band"], "weak");
}

/// Runs the people workflow through `POST /api/people/research`; returns the 201 body.
async fn research_person(app: &TestApp, token: &str, request: &Value) -> Value {
    let response = app.post("/api/people/research", Some(token), request).await;
    assert_eq!(response.status(), 201, "{request}");
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    body
}

/// Asked about Acme Corp's CFO, the professor's conviction is listed as a namesake's and weighs on
/// nothing; the company, role and location asked about are stored with the result.
async fn a_namesakes_conviction_is_set_aside_and_listed(adapters: Adapters) {
    let web = PeopleWeb::serving(NAMESAKES).await;
    let app = web.app(adapters).await;
    let token = app.token_for("analyst").await;
    let request = json!({ "person_name": "Jane Doe", "company": "Acme Corp", "role": "CFO", "location": "London", "deal_id": 41 });

    let body = research_person(&app, &token, &request).await;

    let identity = &body["identity"];
    assert_eq!(identity["status"], "matched", "{identity}");
    assert_eq!((identity["company"].as_str(), identity["role"].as_str()), (Some("Acme Corp"), Some("CFO")));
    let set_aside = identity["set_aside"].as_array().expect("set_aside");
    assert_eq!(set_aside.len(), 1, "{set_aside:?}");
    assert_eq!(set_aside[0]["url"], web.page_url("professor-convicted").as_str());
    assert!(set_aside[0]["quote"].as_str().is_some_and(|q| q.contains("convicted of fraud")), "{}", set_aside[0]);
    let reason = set_aside[0]["reason"].as_str().expect("reason");
    assert!(reason.contains("Ohio State University") && reason.contains("not Acme Corp"), "{reason}");
    assert_eq!(set_aside[0]["described_as"]["role"], "professor");

    let assessment = &body["credit_assessment"];
    assert_eq!(assessment["adverse_findings"], json!([]), "{assessment}");
    assert_ne!(assessment["score_band"], "weak", "{assessment}");
    assert!(assessment["reasons"][0].as_str().is_some_and(|r| r.starts_with("Left out: 1 passage")), "{assessment}");
    let summary = &body["research_summary"];
    assert_eq!(summary["found"], true, "{summary}");
    let text = summary["text"].as_str().expect("text");
    assert!(text.contains("matures in 2030") && !text.contains("convicted"), "{text}");
    let matched = |page: &str| {
        let sources = summary["sources"].as_array().expect("sources");
        sources.iter().find(|s| s["url"] == web.page_url(page).as_str()).map(|s| s["identity_match"].clone())
    };
    assert_eq!(matched("acme-cfo"), Some(json!("fits")), "{summary}");
    assert_eq!(matched("professor-convicted"), Some(json!("set_aside")), "{summary}");
    assert!(body["message"].as_str().is_some_and(|m| m.contains("set aside")), "{}", body["message"]);

    let id = body["people_id"].as_str().expect("people_id");
    let (status, stored) = get_json(&app, &format!("/api/people/results/{id}"), &token).await;
    assert_eq!(status, 200, "{stored}");
    assert_eq!(
        (stored["company"].as_str(), stored["role"].as_str(), stored["location"].as_str(), stored["deal_id"].as_i64()),
        (Some("Acme Corp"), Some("CFO"), Some("London"), Some(41))
    );
    assert_eq!(stored["identity"], body["identity"]);
}

#[tokio::test]
async fn a_namesakes_conviction_is_set_aside_and_listed_in_memory() {
    a_namesakes_conviction_is_set_aside_and_listed(Adapters::in_memory()).await;
}

#[tokio::test]
async fn a_namesakes_conviction_is_set_aside_and_listed_on_postgres() {
    a_namesakes_conviction_is_set_aside_and_listed(crate::test_cluster::shared().await.fresh_adapters().await).await;
}

/// Asked about a bare name that the sources give to two different people, the workflow assesses
/// nothing and asks which one is meant; a context naming the company settles it.
async fn an_ambiguous_name_is_asked_about_not_assessed(adapters: Adapters) {
    let web = PeopleWeb::serving(NAMESAKES).await;
    let app = web.app(adapters).await;
    let token = app.token_for("analyst").await;

    let launched = launch_people(&app, &token, json!({ "person_name": "Jane Doe" }), None).await;

    let result = &launched["workflow_result"];
    let identity = &result["identity"];
    assert_eq!(identity["status"], "ambiguous", "{identity}");
    let candidates = identity["candidates"].as_array().expect("candidates");
    let mut companies: Vec<&str> = candidates.iter().filter_map(|c| c["company"].as_str()).collect();
    companies.sort_unstable();
    assert_eq!(companies, ["Acme Corp", "Ohio State University"], "{candidates:?}");
    let professor = candidates.iter().find(|c| c["role"] == "professor").expect("the professor");
    assert_eq!(professor["urls"], json!([web.page_url("professor-convicted")]));
    let message = identity["message"].as_str().expect("message");
    assert!(
        message.contains("Which one do you mean?") && message.contains("2 different people named Jane Doe"),
        "{message}"
    );
    let assessment = &result["credit_assessment"];
    assert_eq!(assessment["score_band"], "insufficient_evidence", "{assessment}");
    assert_eq!(assessment["adverse_findings"], json!([]), "{assessment}");
    assert!(assessment["reasons"][0].as_str().is_some_and(|r| r.starts_with("Not assessed")), "{assessment}");
    assert_eq!(result["research_summary"]["text"], message);

    // The same through the people endpoint: its message is the question.
    let asked = research_person(&app, &token, &json!({ "person_name": "Jane Doe" })).await;
    assert!(asked["message"].as_str().is_some_and(|m| m.contains("Which one do you mean?")), "{}", asked["message"]);

    // Context alone tells them apart.
    let settled =
        launch_people(&app, &token, json!({ "person_name": "Jane Doe", "context": "professor at Ohio State" }), None)
            .await;
    let result = &settled["workflow_result"];
    assert_eq!(result["identity"]["status"], "matched", "{}", result["identity"]);
    assert_eq!(result["identity"]["company"], "Ohio State");
    assert_eq!(result["credit_assessment"]["score_band"], "weak", "{}", result["credit_assessment"]);
    let set_aside = result["identity"]["set_aside"].as_array().expect("set_aside");
    assert_eq!(set_aside.iter().map(|s| s["url"].clone()).collect::<Vec<_>>(), [json!(web.page_url("acme-cfo"))]);
}

#[tokio::test]
async fn an_ambiguous_name_is_asked_about_not_assessed_in_memory() {
    an_ambiguous_name_is_asked_about_not_assessed(Adapters::in_memory()).await;
}

#[tokio::test]
async fn an_ambiguous_name_is_asked_about_not_assessed_on_postgres() {
    an_ambiguous_name_is_asked_about_not_assessed(crate::test_cluster::shared().await.fresh_adapters().await).await;
}

#[tokio::test]
async fn identity_fields_are_validated_and_unknown_fields_refused() {
    let web = PeopleWeb::serving(NOBODY).await;
    let app = web.app(Adapters::in_memory()).await;
    let token = app.token_for("analyst").await;
    let long = "x".repeat(121);
    for (request, field) in [
        (json!({ "person_name": "Jane Doe", "company": long }), "company"),
        (json!({ "person_name": "Jane Doe", "role": long }), "role"),
        (json!({ "person_name": "Jane Doe", "location": "Bos\u{7}ton" }), "location"),
        (json!({ "person_name": " " }), "person_name"),
        (json!({ "person_name": "Jane Doe", "employer": "Acme" }), "employer"),
    ] {
        let error = assert_error(app.post("/api/people/research", Some(&token), &request).await, 400).await;
        assert!(error.to_string().contains(field), "{field}: {error}");
    }
}

/// In a chat: a bare name with two people behind it is answered with the question, and naming the
/// company (in words, or as the tool's `company` field) settles it.
async fn in_chat_an_ambiguous_name_is_asked_about_and_the_company_settles_it(adapters: Adapters) {
    let web = PeopleWeb::serving(NAMESAKES).await;
    let app = web.app(adapters).await;
    let token = app.token_for("analyst").await;
    let say = |message: &'static str| {
        let (app, token) = (&app, &token);
        async move {
            let session = app.chat_session(token, "namesakes").await;
            let body = json!({ "message": message, "session_id": session });
            let response = app.post("/api/digitizer-chatbot/chat", Some(token), &body).await;
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.expect("json")
        }
    };

    let asked = say("look into Jane Doe").await;
    assert_eq!(asked["workflow_launched"], "people", "{asked}");
    let response = asked["response"].as_str().expect("response");
    assert!(response.contains("Which one do you mean?"), "the chat asks: {response}");
    assert_eq!(asked["workflow_result"]["identity"]["status"], "ambiguous");

    let settled = say("look into Jane Doe, CFO of Acme Corp").await;
    let identity = &settled["workflow_result"]["identity"];
    assert_eq!(identity["status"], "matched", "{identity}");
    let set_aside: Vec<&str> =
        identity["set_aside"].as_array().into_iter().flatten().filter_map(|s| s["url"].as_str()).collect();
    assert_eq!(set_aside, [web.page_url("professor-convicted")], "the namesake's conviction is set aside");
    assert_eq!(settled["workflow_result"]["credit_assessment"]["adverse_findings"], json!([]), "{settled}");

    // The launch endpoint (and so a model's tool call) takes the company as a field of its own.
    let session = app.chat_session(&token, "namesakes").await;
    let request = json!({ "workflow_type": "people", "session_id": session,
                          "workflow_params": { "person_name": "Jane Doe", "company": "Acme Corp", "role": "CFO" } });
    let launched: Value =
        app.post("/api/digitizer-chatbot/launch-workflow", Some(&token), &request).await.json().await.expect("json");
    assert_eq!(launched["workflow_result"]["identity"]["status"], "matched", "{launched}");
    assert_eq!(launched["workflow_result"]["company"], "Acme Corp", "{launched}");
}

#[tokio::test]
async fn in_chat_an_ambiguous_name_is_asked_about_in_memory() {
    in_chat_an_ambiguous_name_is_asked_about_and_the_company_settles_it(Adapters::in_memory()).await;
}

#[tokio::test]
async fn in_chat_an_ambiguous_name_is_asked_about_on_postgres() {
    in_chat_an_ambiguous_name_is_asked_about_and_the_company_settles_it(
        crate::test_cluster::shared().await.fresh_adapters().await,
    )
    .await;
}
