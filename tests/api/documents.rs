//! `POST /api/extract` and the document endpoints: extraction with provenance and CDM events,
//! versions, the review workflow and its role rules, ownership, listing, pagination and search.

use serde_json::{Value, json};

use std::sync::Arc;
use std::time::Duration;

use creditflow::adapters::llm::OpenAiCompatible;
use creditflow::adapters::memory::MemoryAnalysisStore;
use creditflow::domain::auth::UserId;
use creditflow::domain::quant::runs::{AnalysisKind, AnalysisRecord};
use creditflow::ports::analyses::AnalysisRepository;

use crate::cdm_events;
use crate::fake_llm::FakeLlm;
use crate::helpers::*;
use crate::test_cluster;

pub const AGREEMENT: &str = "CREDIT AGREEMENT

dated as of March 15, 2024

among

ACME INDUSTRIAL HOLDINGS, INC.,
as the Borrower,

THE LENDERS PARTY HERETO

and

FIRST NATIONAL BANK OF NEW YORK, N.A.,
as Administrative Agent

SECTION 2.01. Term Loans. Subject to the terms and conditions set forth herein, each Term Lender \
agrees to make a term loan (the \"Term Loan\") to the Borrower on the Closing Date in an aggregate \
principal amount not to exceed Five Hundred Million Dollars ($500,000,000).

SECTION 2.08. Interest. The Term Loan shall bear interest at a rate per annum equal to Term SOFR \
for a three-month Interest Period plus the Applicable Margin of 2.75%.

SECTION 2.10. Maturity. The Term Loan shall mature on March 15, 2029 (the \"Maturity Date\").

SECTION 9.09. Governing Law. THIS AGREEMENT SHALL BE GOVERNED BY, AND CONSTRUED IN ACCORDANCE WITH, \
THE LAW OF THE STATE OF NEW YORK.
";

const RECIPE: &str = "Grandmother's apple pie. Preheat the oven to 200 degrees. Peel six apples, slice them \
thinly and toss with sugar and cinnamon. Line a dish with pastry, fill, cover and bake for 45 minutes.";

async fn post_json(app: &TestApp, path: &str, token: &str, body: &Value) -> (u16, Value) {
    let response = app.post(path, Some(token), body).await;
    let status = response.status().as_u16();
    (status, response.json().await.expect("json body"))
}

async fn get_json(app: &TestApp, path: &str, token: &str) -> (u16, Value) {
    let response = app.get(path, Some(token)).await;
    let status = response.status().as_u16();
    (status, response.json().await.expect("json body"))
}

/// Every quoted value in the report's provenance must be the exact text at its span.
fn assert_provenance_quotes_the_text(report: &Value, text: &str) {
    let provenance = report["provenance"].as_object().expect("provenance map");
    assert!(!provenance.is_empty(), "no provenance: {report}");
    for (pointer, source) in provenance {
        let (start, end) =
            (source["start"].as_u64().expect("start") as usize, source["end"].as_u64().expect("end") as usize);
        assert_eq!(text.get(start..end), source["quote"].as_str(), "provenance of {pointer}");
    }
}

#[tokio::test]
async fn extraction_returns_the_agreement_with_provenance_and_valid_cdm_events() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;

    let response = app.post("/api/extract", Some(&token), &json!({ "text": AGREEMENT })).await;
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("x-ratelimit-remaining"), "a workflow endpoint reports its budget");
    let body: Value = response.json().await.expect("json");

    assert_eq!(body["status"], "success");
    let agreement = &body["agreement"];
    assert_eq!(agreement["agreementDate"], "2024-03-15");
    assert_eq!(agreement["legalAgreementIdentification"]["governingLaw"], "USNY");
    let names: Vec<&str> =
        agreement["parties"].as_array().expect("parties").iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.iter().any(|n| n.contains("ACME INDUSTRIAL HOLDINGS")), "{names:?}");
    assert_provenance_quotes_the_text(&body["extraction"], AGREEMENT);
    assert_eq!(body["extraction"]["llm"]["used"], false, "no LLM configured: rules only");
    let events = body["cdm_events"].as_array().expect("cdm_events");
    assert!(events.len() >= 2, "an extraction step and a contract formation: {events:?}");
    assert!(events.iter().any(|e| e["proposedEvent"]["intent"] == "ContractFormation"));
    cdm_events::record(&body);
}

#[tokio::test]
async fn a_text_that_is_not_a_credit_agreement_is_reported_as_irrelevant() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let (status, body) = post_json(&app, "/api/extract", &token, &json!({ "text": RECIPE })).await;
    assert_eq!(status, 200);
    assert_eq!(body["extraction"]["status"], "irrelevant_document");
    let events = body["cdm_events"].as_array().expect("cdm_events");
    assert!(events.iter().all(|e| e["proposedEvent"]["intent"] != "ContractFormation"), "no contract from a recipe");
    cdm_events::record(&body);
}

#[tokio::test]
async fn bad_extraction_requests_get_clear_errors() {
    let app = spawn_app_with(&[("EXTRACT_MAX_BYTES", "2000")], |_| {}).await;
    let analyst = app.token_for("analyst").await;

    let blank = assert_error(app.post("/api/extract", Some(&analyst), &json!({ "text": "  \n " })).await, 400).await;
    assert_eq!(blank["detail"]["field"], "text");
    let missing = assert_error(app.post("/api/extract", Some(&analyst), &json!({})).await, 400).await;
    assert_eq!(missing["detail"]["field"], "text");
    let too_long = app.post("/api/extract", Some(&analyst), &json!({ "text": "x".repeat(2001) })).await;
    assert_eq!(too_long.status(), 413);
    assert!(too_long.headers().contains_key("x-ratelimit-limit"));
    assert_error(too_long, 413).await;

    let mut not_utf8 = br#"{"text": "Credit Agreement "#.to_vec();
    not_utf8.extend_from_slice(&[0xff, 0xfe, b'"', b'}']);
    let response = app
        .client
        .post(format!("{}/api/extract", app.address))
        .bearer_auth(&analyst)
        .header("content-type", "application/json")
        .body(not_utf8)
        .send()
        .await
        .expect("sent");
    let error = assert_error(response, 400).await;
    assert!(
        error["detail"]["reason"].as_str().is_some_and(|r| r.contains("unicode") || r.contains("UTF-8")),
        "{error}"
    );

    let viewer = app.token_for("viewer").await;
    assert_error(app.post("/api/extract", Some(&viewer), &json!({ "text": AGREEMENT })).await, 403).await;
    assert_error(app.post("/api/extract", None, &json!({ "text": AGREEMENT })).await, 401).await;
}

#[tokio::test]
async fn the_workflow_budget_is_exact_under_a_concurrent_burst_and_separate_per_user() {
    let app = spawn_app_with(&[("RATE_LIMIT_PER_MINUTE", "5")], |_| {}).await;
    let (first, second) = (app.token_for("analyst").await, app.token_for("analyst").await);
    let body = json!({ "text": AGREEMENT });
    let burst = (0..20).map(|_| app.post("/api/extract", Some(&first), &body));
    let statuses: Vec<u16> = futures_util::future::join_all(burst).await.iter().map(|r| r.status().as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 5, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 15, "{statuses:?}");

    let refused = app.post("/api/extract", Some(&first), &json!({ "text": AGREEMENT })).await;
    assert_eq!(refused.headers()["x-ratelimit-remaining"], "0");
    assert!(refused.headers().contains_key("retry-after"));
    assert_error(refused, 429).await;
    assert_eq!(app.post("/api/extract", Some(&second), &json!({ "text": AGREEMENT })).await.status(), 200);
}

async fn create_document(app: &TestApp, token: &str, title: &str, text: &str) -> Value {
    let (status, body) =
        post_json(app, "/api/documents", token, &json!({ "title": title, "text": text, "deal_id": 42 })).await;
    assert_eq!(status, 201, "{body}");
    cdm_events::record(&body);
    body["document"].clone()
}

async fn review(app: &TestApp, token: &str, id: i64, action: &str) -> (u16, Value) {
    let (status, body) = post_json(
        app,
        &format!("/api/documents/{id}/workflow"),
        token,
        &json!({ "action": action, "comment": format!("{action} please") }),
    )
    .await;
    if status == 200 {
        cdm_events::record(&body);
    }
    (status, body)
}

/// The lifecycle of one document, run against the memory and the PostgreSQL store.
async fn a_document_is_versioned_and_reviewed(app: &TestApp) {
    let analyst = app.token_for("analyst").await;
    let admin = app.admin_token().await;
    let document = create_document(app, &analyst, "Acme term loan", AGREEMENT).await;
    let id = document["document_id"].as_i64().expect("integer id");
    assert_eq!((document["current_version"].as_i64(), document["workflow_state"].as_str()), (Some(1), Some("draft")));
    assert_eq!(document["deal_id"], 42);
    assert_eq!(document["total_commitment"]["currency"], "USD");
    assert_provenance_quotes_the_text(&document["versions"][0]["extraction"], AGREEMENT);

    let amended = AGREEMENT.replace("2.75%", "3.00%");
    let (status, body) =
        post_json(app, &format!("/api/documents/{id}/versions"), &analyst, &json!({ "text": amended })).await;
    assert_eq!(status, 201, "{body}");
    cdm_events::record(&body);
    assert_eq!(body["document"]["current_version"], 2);
    assert_eq!(body["document"]["versions"].as_array().map(Vec::len), Some(2));

    assert_eq!(review(app, &analyst, id, "submit").await.0, 200);
    let (status, refused) = review(app, &analyst, id, "approve").await;
    assert_eq!((status, refused["status"].as_str()), (403, Some("error")));
    assert_eq!(review(app, &admin, id, "approve").await.0, 200);
    let (status, body) = review(app, &admin, id, "publish").await;
    assert_eq!(status, 200);
    assert_eq!(body["document"]["workflow_state"], "published");
    let (status, conflict) = review(app, &analyst, id, "submit").await;
    assert_eq!(status, 409, "{conflict}");
    assert_eq!(review(app, &admin, id, "archive").await.0, 200);
    let (status, _) =
        post_json(app, &format!("/api/documents/{id}/versions"), &analyst, &json!({ "text": AGREEMENT })).await;
    assert_eq!(status, 409, "archived documents take no versions");

    let fetched = app.get(&format!("/api/documents/{id}"), Some(&analyst)).await;
    assert_eq!(fetched.status(), 200);
    let fetched: Value = fetched.json().await.expect("json");
    let history = fetched["document"]["workflow"]["history"].as_array().expect("history");
    let actions: Vec<&str> = history.iter().filter_map(|e| e["action"].as_str()).collect();
    assert_eq!(actions, ["create", "new_version", "submit", "approve", "publish", "archive"]);
    assert_eq!(history[2]["comment"], "submit please");
    assert_eq!(fetched["document"]["workflow_data"]["analyses"], json!([]));
}

#[tokio::test]
async fn a_document_is_versioned_and_reviewed_in_memory() {
    a_document_is_versioned_and_reviewed(&spawn_app().await).await;
}

#[tokio::test]
async fn a_document_is_versioned_and_reviewed_on_postgres() {
    let cluster = test_cluster::shared().await;
    let app = spawn_app_around(cluster.fresh_adapters().await, &[], |_| {}).await;
    a_document_is_versioned_and_reviewed(&app).await;
    lists_page_and_search(&app).await;
}

#[tokio::test]
async fn documents_are_visible_to_their_owner_and_admins_only() {
    let app = spawn_app().await;
    let (owner, stranger, admin) =
        (app.token_for("analyst").await, app.token_for("analyst").await, app.admin_token().await);
    let id = create_document(&app, &owner, "Private", AGREEMENT).await["document_id"].as_i64().expect("id");

    assert_error(app.get(&format!("/api/documents/{id}"), Some(&stranger)).await, 404).await;
    let workflow = format!("/api/documents/{id}/workflow");
    assert_error(app.post(&workflow, Some(&stranger), &json!({ "action": "submit" })).await, 404).await;
    assert_eq!(app.get(&format!("/api/documents/{id}"), Some(&admin)).await.status(), 200);
    let listed: Value = app.get("/api/documents", Some(&stranger)).await.json().await.expect("json");
    assert_eq!(listed["total"], 0);
    for bad in ["0", "-1", "abc", "99999999999999999999"] {
        assert_error(app.get(&format!("/api/documents/{bad}"), Some(&owner)).await, 404).await;
    }
}

async fn lists_page_and_search(app: &TestApp) {
    let token = app.token_for("analyst").await;
    for title in ["Globex revolving facility", "Initech bridge loan", "Umbrella term loan"] {
        create_document(app, &token, title, AGREEMENT).await;
    }
    let page: Value = app.get("/api/documents?page=1&limit=2", Some(&token)).await.json().await.expect("json");
    assert_eq!((page["total"].as_u64(), page["total_pages"].as_u64()), (Some(3), Some(2)));
    let titles: Vec<&str> =
        page["documents"].as_array().expect("documents").iter().filter_map(|d| d["title"].as_str()).collect();
    assert_eq!(titles, ["Umbrella term loan", "Initech bridge loan"], "most recently updated first");
    let first = &page["documents"][0];
    assert!(first["borrower"].as_str().is_some_and(|b| b.contains("ACME")), "{first}");
    assert_eq!(first["workflow_state"], "draft");

    let beyond: Value = app.get("/api/documents?page=3&limit=2", Some(&token)).await.json().await.expect("json");
    assert_eq!((beyond["total"].as_u64(), beyond["documents"].as_array().map(Vec::len)), (Some(3), Some(0)));
    let found: Value = app.get("/api/documents?search=bridge", Some(&token)).await.json().await.expect("json");
    assert_eq!(found["total"], 1);
    assert_eq!(found["documents"][0]["title"], "Initech bridge loan");
    let by_text: Value =
        app.get("/api/documents?search=administrative%20agent", Some(&token)).await.json().await.expect("json");
    assert_eq!(by_text["total"], 3);

    for (query, field) in [("limit=0", "limit"), ("limit=201", "limit"), ("page=0", "page"), ("page=x", "page")] {
        let error = assert_error(app.get(&format!("/api/documents?{query}"), Some(&token)).await, 400).await;
        assert_eq!(error["detail"]["field"], field, "{query}");
    }
}

#[tokio::test]
async fn documents_list_in_pages_and_can_be_searched_in_memory() {
    lists_page_and_search(&spawn_app().await).await;
}

/// The agreement without its date; the signature line states it in words the rules do not read.
fn undated_agreement() -> String {
    AGREEMENT.replacen("dated as of March 15, 2024", "", 1) + "\nThe signing took place 15 March 2024.\n"
}

async fn app_with_model(base_url: &str) -> TestApp {
    let model = OpenAiCompatible::new(base_url, "fake-model", None, Duration::from_secs(5)).expect("adapter");
    spawn_app_with(&[], move |adapters| adapters.llm = Some(Arc::new(model))).await
}

#[tokio::test]
async fn a_language_model_fills_a_missing_field_only_with_words_found_in_the_text() {
    let llm = FakeLlm::answering(json!({
        "/agreementDate": { "value": "15 March 2024", "quote": "The signing took place 15 March 2024." },
        "/effectiveDate": { "value": "1 January 2099", "quote": "effective as of 1 January 2099" },
    }))
    .await;
    let app = app_with_model(&llm.base_url).await;
    let token = app.token_for("analyst").await;
    let text = undated_agreement();

    let (status, body) = post_json(&app, "/api/extract", &token, &json!({ "text": text })).await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(body["agreement"]["agreementDate"], "2024-03-15");
    let provenance = &body["extraction"]["provenance"]["/agreementDate"];
    assert_eq!(provenance["quote"], "15 March 2024");
    assert_provenance_quotes_the_text(&body["extraction"], &text);
    let report = &body["extraction"]["llm"];
    assert_eq!((report["used"].as_bool(), report["model"].as_str()), (Some(true), Some("fake-model")));
    assert_eq!(report["adopted"][0]["field"], "/agreementDate");
    let dropped = report["dropped"].as_array().expect("dropped");
    assert!(dropped.iter().any(|d| d["field"] == "/effectiveDate"), "an invented quote is dropped: {report}");
    assert!(!body["agreement"].as_object().expect("agreement").contains_key("effectiveDate"));
    let requests = llm.requests();
    assert_eq!(requests.len(), 1, "the date was found in the first chunk");
    assert_eq!(requests[0]["response_format"]["type"], "json_schema");
    cdm_events::record(&body);
}

#[tokio::test]
async fn a_proposed_value_that_belongs_to_another_instrument_is_dropped_with_the_reason() {
    let text = "FIRST AMENDMENT TO CREDIT AGREEMENT\n\nThis FIRST AMENDMENT is entered into among ACME HOLDINGS, \
        INC., as the Borrower, and FIRST BANK, N.A., as Administrative Agent.\n\nReference is made to the Credit \
        Agreement dated as of May 1, 2020 and to the Pledge Agreement dated April 9, 2021. Each Note shall be governed by the laws of the State of Texas.\n";
    let llm = FakeLlm::answering(json!({
        "/agreementDate": { "value": "April 9, 2021", "quote": "Pledge Agreement dated April 9, 2021" },
        "/legalAgreementIdentification/governingLaw": {
            "value": "Texas", "quote": "Each Note shall be governed by the laws of the State of Texas"
        },
    }))
    .await;
    let app = app_with_model(&llm.base_url).await;
    let token = app.token_for("analyst").await;

    let (status, body) = post_json(&app, "/api/extract", &token, &json!({ "text": text })).await;

    assert_eq!(status, 200, "{body}");
    let agreement = body["agreement"].as_object().expect("agreement");
    assert!(!agreement.contains_key("agreementDate"), "{body}");
    assert!(agreement["legalAgreementIdentification"].get("governingLaw").is_none(), "{body}");
    let dropped = body["extraction"]["llm"]["dropped"].as_array().expect("dropped");
    let reason_for = |field: &str| {
        dropped.iter().find(|d| d["field"] == field).and_then(|d| d["reason"].as_str()).unwrap_or("").to_owned()
    };
    assert!(reason_for("/agreementDate").contains("another instrument"), "{dropped:?}");
    assert!(reason_for("/legalAgreementIdentification/governingLaw").contains("governs this document"), "{dropped:?}");
}

/// An amendment of [`AGREEMENT`]: it names the agreement by its date and replaces two of its values.
const AMENDMENT: &str = "FIRST AMENDMENT TO CREDIT AGREEMENT

THIS FIRST AMENDMENT TO CREDIT AGREEMENT, dated as of June 1, 2025, is among ACME INDUSTRIAL HOLDINGS, INC., \
as the Borrower, and FIRST NATIONAL BANK OF NEW YORK, N.A., as Administrative Agent, and amends the Credit \
Agreement dated as of March 15, 2024.

1. The date \"March 15, 2029\" in the definition of \"Maturity Date\" is deleted and replaced with the date \
\"March 15, 2031\".

2. The percentage \"2.75%\" in the definition of \"Applicable Margin\" is deleted and replaced with \"2.25%\".

3. THIS AMENDMENT SHALL BE GOVERNED BY THE LAW OF THE STATE OF NEW YORK.
";

#[tokio::test]
async fn an_amendment_shows_what_it_changes_in_the_agreement_of_its_deal() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let agreement = create_document(&app, &token, "Credit agreement", AGREEMENT).await;
    let amendment = create_document(&app, &token, "First amendment", AMENDMENT).await;

    let (status, body) = get_json(&app, &format!("/api/documents/{}", amendment["document_id"]), &token).await;

    assert_eq!(status, 200, "{body}");
    let amended = &body["document"]["workflow_data"]["amended_agreement"];
    assert_eq!(amended["document_id"], agreement["document_id"], "{body}");
    assert_eq!(amended["agreement_date"], "2024-03-15");
    let changes: Vec<(&str, &Value, &Value, &str)> = amended["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| (c["field"].as_str().unwrap_or(""), &c["before"], &c["after"], c["source"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        changes,
        [
            ("/facilities/0/terminationDate", &json!("2029-03-15"), &json!("2031-03-15"), "stated"),
            ("/facilities/0/spread", &json!("0.0275"), &json!("0.0225"), "stated"),
        ]
    );
    let (_, original) = get_json(&app, &format!("/api/documents/{}", agreement["document_id"]), &token).await;
    assert!(original["document"]["workflow_data"].get("amended_agreement").is_none(), "{original}");
}

#[tokio::test]
async fn an_unreachable_language_model_leaves_the_rules_result_and_says_so() {
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = closed.local_addr().expect("address");
    drop(closed);
    let app = app_with_model(&format!("http://{address}/v1")).await;
    let token = app.token_for("analyst").await;

    let (status, body) = post_json(&app, "/api/extract", &token, &json!({ "text": undated_agreement() })).await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(body["extraction"]["status"], "partial_data_missing");
    assert!(body["extraction"]["missing_fields"].as_array().expect("missing").iter().any(|f| f == "/agreementDate"));
    let errors = body["extraction"]["llm"]["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{body}");
    cdm_events::record(&body);
}

#[tokio::test]
async fn a_document_lists_the_callers_analyses_of_its_deal() {
    let analyses = Arc::new(MemoryAnalysisStore::new());
    let store = analyses.clone();
    let app = spawn_app_with(&[], move |adapters| adapters.analyses = store).await;
    let token = app.token_for("analyst").await;
    let me: Value = app.get("/api/auth/me", Some(&token)).await.json().await.expect("json");
    let caller: UserId = me["id"].as_str().expect("id").parse().expect("uuid");
    let at = time::OffsetDateTime::now_utc();
    let mine = AnalysisRecord::pending(caller, AnalysisKind::Company, json!({}), Some(42), at);
    let other_deal = AnalysisRecord::pending(caller, AnalysisKind::Market, json!({}), Some(99), at);
    let someone_elses = AnalysisRecord::pending(UserId::new_random(), AnalysisKind::Company, json!({}), Some(42), at);
    for record in [&mine, &other_deal, &someone_elses] {
        analyses.create(record.clone()).await.expect("stored");
    }
    let id = create_document(&app, &token, "Deal 42", AGREEMENT).await["document_id"].as_i64().expect("id");

    let body: Value = app.get(&format!("/api/documents/{id}"), Some(&token)).await.json().await.expect("json");

    let linked = body["document"]["workflow_data"]["analyses"].as_array().expect("analyses");
    assert_eq!(linked.len(), 1, "{linked:?}");
    assert_eq!(linked[0]["analysis_id"], mine.id.to_string());
    assert_eq!((linked[0]["analysis_type"].as_str(), linked[0]["status"].as_str()), (Some("company"), Some("pending")));
    let admin: Value =
        app.get(&format!("/api/documents/{id}"), Some(&app.admin_token().await)).await.json().await.expect("json");
    assert_eq!(
        admin["document"]["workflow_data"]["analyses"].as_array().map(Vec::len),
        Some(2),
        "admins see every owner's"
    );
}

#[tokio::test]
async fn a_write_beyond_the_owners_quota_is_refused_with_the_figures_and_stores_nothing() {
    let app = spawn_app_with(&[("DOCUMENT_QUOTA_COUNT", "2"), ("DOCUMENT_QUOTA_BYTES", "4000")], |_| {}).await;
    let (token, other) = (app.token_for("analyst").await, app.token_for("analyst").await);
    let first = create_document(&app, &token, "First", AGREEMENT).await;
    let id = first["document_id"].as_i64().expect("document_id");
    let used = AGREEMENT.len();
    let body = json!({ "text": AGREEMENT.repeat(4) });
    let (status, error) = post_json(&app, &format!("/api/documents/{id}/versions"), &token, &body).await;
    assert_eq!(status, 403, "{error}");
    assert_eq!(error["status"], "error");
    assert_eq!((error["detail"]["quota"].as_str(), error["detail"]["limit"].as_u64()), (Some("bytes"), Some(4000)));
    assert_eq!(error["detail"]["used"].as_u64(), Some(used as u64), "{error}");
    let stored: Value = app.get(&format!("/api/documents/{id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(stored["document"]["versions"].as_array().map(Vec::len), Some(1), "nothing was stored: {stored}");

    create_document(&app, &token, "Second", AGREEMENT).await;
    let (status, error) =
        post_json(&app, "/api/documents", &token, &json!({ "title": "Third", "text": AGREEMENT })).await;
    assert_eq!((status, error["detail"]["quota"].as_str()), (403, Some("documents")), "{error}");
    let listed: Value = app.get("/api/documents", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 2);
    // Another user's quota is their own.
    create_document(&app, &other, "Theirs", AGREEMENT).await;
}

#[tokio::test]
async fn document_writes_have_their_own_per_user_rate_limit() {
    let app = spawn_app_with(&[("DOCUMENT_WRITES_PER_MINUTE", "2")], |_| {}).await;
    let token = app.token_for("analyst").await;
    let body = json!({ "title": "Limited", "text": AGREEMENT });
    for remaining in ["1", "0"] {
        let response = app.post("/api/documents", Some(&token), &body).await;
        assert_eq!(response.status(), 201);
        assert_eq!(response.headers()["x-ratelimit-limit"], "2");
        assert_eq!(response.headers()["x-ratelimit-remaining"], remaining);
    }
    let refused = app.post("/api/documents", Some(&token), &body).await;
    assert!(refused.headers().contains_key("retry-after") && refused.headers().contains_key("x-ratelimit-reset"));
    assert_error(refused, 429).await;
    let listed: Value = app.get("/api/documents", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 2, "the refused write stored nothing");
    // Reading is not a write, and the workflow budget is separate.
    assert_eq!(app.get("/api/documents", Some(&token)).await.status(), 200);
    assert_eq!(app.post("/api/extract", Some(&token), &json!({ "text": AGREEMENT })).await.status(), 200);
    app.clock.advance(time::Duration::minutes(1));
    assert_eq!(app.post("/api/documents", Some(&token), &body).await.status(), 201);
}
