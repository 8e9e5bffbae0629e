//! Bounded storage, on both stores: a statement set keeps short labels and a bounded list of the
//! rows it could not read, counts in its owner's storage quota beside their documents, and can be
//! deleted, as a document can, by its owner or an administrator, leaving an entry in the audit
//! trail, giving the quota back, and leaving the analyses that read it as they were.

use reqwest::Method;
use serde_json::{Value, json};

use crate::documents::AGREEMENT;
use crate::helpers::*;
use crate::test_cluster;

async fn memory_app(vars: &[(&str, &str)]) -> TestApp {
    spawn_app_with(vars, |_| {}).await
}

async fn postgres_app(vars: &[(&str, &str)]) -> TestApp {
    spawn_app_around(test_cluster::shared().await.fresh_adapters().await, vars, |_| {}).await
}

/// The rows every statement set needs, as a CSV in USD.
const REQUIRED_ROWS: &str = "Revenue,1200\nOperating income,150\nInterest expense,30\nNet income,90\nCash,80\n\
     Current assets,400\nTotal assets,1000\nCurrent liabilities,250\nTotal liabilities,600\nTotal debt,350\n\
     Total equity,400\n";

/// A fiscal year in thousands that balances.
fn financials() -> Value {
    json!({
        "currency": "USD",
        "unit": 1000,
        "periods": [{
            "period_end": "2023-12-31", "months": 12,
            "revenue": 12000.0, "operating_income": 1500.0, "interest_expense": 300.0, "net_income": 900.0,
            "cash": 800.0, "current_assets": 4000.0, "total_assets": 10000.0,
            "current_liabilities": 2500.0, "total_liabilities": 6000.0, "total_debt": 3500.0, "total_equity": 4000.0
        }]
    })
}

async fn store_set(app: &TestApp, token: &str, deal_id: Option<i64>) -> reqwest::Response {
    let body = json!({ "borrower_name": "Northwind Tools GmbH", "deal_id": deal_id, "financials": financials() });
    app.post("/api/financial-statements", Some(token), &body).await
}

async fn stored_set_id(app: &TestApp, token: &str, deal_id: Option<i64>) -> String {
    let response = store_set(app, token, deal_id).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    body["statement_set_id"].as_str().expect("statement_set_id").to_owned()
}

async fn stored_document_id(app: &TestApp, token: &str, text: &str, deal_id: i64) -> i64 {
    let body = json!({ "title": "Credit agreement", "text": text, "deal_id": deal_id });
    let response = app.post("/api/documents", Some(token), &body).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    body["document"]["document_id"].as_i64().expect("document_id")
}

async fn delete(app: &TestApp, path: &str, token: &str) -> reqwest::Response {
    app.request(Method::DELETE, path, Some(token), None).await
}

async fn a_sheet_of_long_unknown_rows_is_kept_to_two_hundred_rows_of_two_hundred_characters(app: TestApp) {
    let token = app.token_for("analyst").await;
    let mut csv = format!("Line item,FY2023\n{REQUIRED_ROWS}");
    for row in 0..250 {
        // Long enough to be cut, short enough for any cap on a CSV field.
        csv.push_str(&format!("Note {row} {},{row}\n", "z".repeat(500)));
    }
    let parts = [
        FormPart::file("long.csv", "text/csv", csv.as_bytes()),
        FormPart::text("borrower_name", "Northwind"),
        FormPart::text("currency", "USD"),
    ];

    let response = app.post_form("/api/financial-statements", &token, &parts).await;

    assert_eq!(response.status(), 201);
    let created: Value = response.json().await.expect("json");
    let unrecognised = created["unrecognised"].as_array().expect("unrecognised");
    assert_eq!((unrecognised.len(), &created["unrecognised_count"]), (200, &json!(250)));
    assert!(
        unrecognised.iter().all(|row| row["label"].as_str().is_some_and(|label| label.chars().count() <= 200)),
        "every label is kept to 200 characters"
    );
    assert!(created.to_string().len() < 100_000, "the answer is {} bytes", created.to_string().len());
    let id = created["statement_set_id"].as_str().expect("id");
    let read: Value =
        app.get(&format!("/api/financial-statements/{id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(
        (&read["unrecognised"], &read["unrecognised_count"], &read["assumptions"]),
        (&created["unrecognised"], &created["unrecognised_count"], &created["assumptions"]),
        "what is kept is what was answered"
    );
}

#[tokio::test]
async fn a_sheet_of_long_unknown_rows_is_kept_bounded_on_the_memory_store() {
    a_sheet_of_long_unknown_rows_is_kept_to_two_hundred_rows_of_two_hundred_characters(memory_app(&[]).await).await;
}

#[tokio::test]
async fn a_sheet_of_long_unknown_rows_is_kept_bounded_on_postgres() {
    a_sheet_of_long_unknown_rows_is_kept_to_two_hundred_rows_of_two_hundred_characters(postgres_app(&[]).await).await;
}

/// `DOCUMENT_QUOTA_BYTES` of [`quota_vars`].
const QUOTA_BYTES: usize = 50_000;

async fn statement_sets_count_in_the_owners_quota_until_a_deletion_gives_it_back(app: TestApp) {
    let (sets_only, with_documents) = (app.token_for("analyst").await, app.token_for("analyst").await);

    // One set each by count.
    stored_set_id(&app, &sets_only, None).await;
    let refused = assert_error(store_set(&app, &sets_only, None).await, 403).await;
    assert_eq!(
        (&refused["detail"]["quota"], &refused["detail"]["limit"], &refused["detail"]["used"]),
        (&json!("statement_sets"), &json!(1), &json!(1)),
        "{refused}"
    );

    // The bytes are shared with the documents: a full quota of text leaves no room for a set.
    let mut text = AGREEMENT.to_owned();
    text.push_str(&"\nSchedule".repeat((QUOTA_BYTES - AGREEMENT.len()) / 9));
    text.push_str(&"x".repeat(QUOTA_BYTES - text.len()));
    let document = stored_document_id(&app, &with_documents, &text, 9).await;
    let refused = assert_error(store_set(&app, &with_documents, None).await, 403).await;
    assert_eq!(
        (&refused["detail"]["quota"], &refused["detail"]["used"]),
        (&json!("bytes"), &json!(QUOTA_BYTES)),
        "{refused}"
    );

    // Deleting the document gives its bytes back.
    assert_eq!(delete(&app, &format!("/api/documents/{document}"), &with_documents).await.status(), 204);
    stored_set_id(&app, &with_documents, None).await;
}

fn quota_vars() -> [(&'static str, &'static str); 2] {
    [("STATEMENT_SET_QUOTA_COUNT", "1"), ("DOCUMENT_QUOTA_BYTES", "50000")]
}

#[tokio::test]
async fn statement_sets_count_in_the_quota_on_the_memory_store() {
    statement_sets_count_in_the_owners_quota_until_a_deletion_gives_it_back(memory_app(&quota_vars()).await).await;
}

#[tokio::test]
async fn statement_sets_count_in_the_quota_on_postgres() {
    statement_sets_count_in_the_owners_quota_until_a_deletion_gives_it_back(postgres_app(&quota_vars()).await).await;
}

async fn only_the_owner_or_an_administrator_deletes_and_the_audit_trail_says_who(app: TestApp) {
    let (owner, stranger, admin) =
        (app.token_for("analyst").await, app.token_for("analyst").await, app.admin_token().await);
    let document = stored_document_id(&app, &owner, AGREEMENT, 4).await;
    let (first_set, second_set) = (stored_set_id(&app, &owner, Some(4)).await, stored_set_id(&app, &owner, None).await);
    let document_path = format!("/api/documents/{document}");
    let set_path = |id: &str| format!("/api/financial-statements/{id}");

    // Someone else's records are not there for them.
    assert_error(delete(&app, &document_path, &stranger).await, 404).await;
    assert_error(delete(&app, &set_path(&first_set), &stranger).await, 404).await;
    assert_eq!(app.get(&document_path, Some(&owner)).await.status(), 200, "still there");
    assert_error(delete(&app, "/api/documents/not-a-number", &owner).await, 404).await;
    assert_error(delete(&app, &set_path("not-a-uuid"), &owner).await, 404).await;

    // The owner deletes their document; an administrator deletes the owner's set.
    assert_eq!(delete(&app, &document_path, &owner).await.status(), 204);
    assert_error(app.get(&document_path, Some(&owner)).await, 404).await;
    assert_error(delete(&app, &document_path, &owner).await, 404).await;
    assert_eq!(delete(&app, &set_path(&first_set), &admin).await.status(), 204);
    assert_error(app.get(&set_path(&first_set), Some(&owner)).await, 404).await;
    assert_eq!(app.get(&set_path(&second_set), Some(&owner)).await.status(), 200, "only that one");

    // The audit trail is the administrators'; newest first, each entry saying whose and by whom.
    assert_error(app.get("/api/admin/deletions", Some(&owner)).await, 403).await;
    let trail: Value = app.get("/api/admin/deletions?limit=10", Some(&admin)).await.json().await.expect("json");
    assert_eq!(trail["total"], 2, "{trail}");
    let (by_admin, by_owner) = (&trail["deletions"][0], &trail["deletions"][1]);
    assert_eq!((&by_admin["kind"], &by_admin["id"]), (&json!("statement_set"), &json!(first_set)));
    assert_ne!(by_admin["deleted_by"], by_admin["owner"], "{by_admin}");
    assert_eq!(by_admin["summary"]["borrower_name"], "Northwind Tools GmbH");
    assert!(by_admin["summary"]["statements_sha256"].as_str().is_some_and(|h| h.len() == 64), "{by_admin}");
    assert_eq!((&by_owner["kind"], &by_owner["id"]), (&json!("document"), &json!(document.to_string())));
    assert_eq!(by_owner["deleted_by"], by_owner["owner"], "{by_owner}");
    assert_eq!(by_owner["freed"]["documents"], 1);
    assert_eq!(by_owner["freed"]["bytes"], json!(AGREEMENT.len()));
    assert_eq!(by_owner["summary"]["history"][0]["action"], "create");
    assert!(!trail.to_string().contains("CREDIT AGREEMENT"), "the text itself is not kept");
    assert_error(app.get("/api/admin/deletions?limit=500", Some(&admin)).await, 400).await;
}

#[tokio::test]
async fn only_the_owner_or_an_administrator_deletes_on_the_memory_store() {
    only_the_owner_or_an_administrator_deletes_and_the_audit_trail_says_who(memory_app(&[]).await).await;
}

#[tokio::test]
async fn only_the_owner_or_an_administrator_deletes_on_postgres() {
    only_the_owner_or_an_administrator_deletes_and_the_audit_trail_says_who(postgres_app(&[]).await).await;
}

async fn analyses_keep_their_inputs_after_what_they_read_is_deleted(app: TestApp) {
    let token = app.token_for("analyst").await;
    let set = stored_set_id(&app, &token, Some(77)).await;
    let document = stored_document_id(&app, &token, AGREEMENT, 77).await;
    let mut runs = Vec::new();
    for (path, body) in [
        (
            "/api/quantitative-analysis/loan-application",
            json!({ "borrower_name": "Northwind Tools GmbH", "loan_amount": 1_000_000.0, "deal_id": 77 }),
        ),
        (
            "/api/quantitative-analysis/company",
            json!({ "company_name": "Northwind Tools GmbH", "analysis_type": "financial", "statement_set_id": set }),
        ),
    ] {
        let response = app.post(path, Some(&token), &body).await;
        assert_eq!(response.status(), 200, "{path}");
        let body: Value = response.json().await.expect("json");
        let id = body["analysis_id"].as_str().expect("analysis_id").to_owned();
        let path = format!("/api/quantitative-analysis/results/{id}");
        let stored: Value = app.get(&path, Some(&token)).await.json().await.expect("json");
        runs.push((path, stored));
    }

    assert_eq!(delete(&app, &format!("/api/financial-statements/{set}"), &token).await.status(), 204);
    assert_eq!(delete(&app, &format!("/api/documents/{document}"), &token).await.status(), 204);

    for (path, before) in runs {
        let after: Value = app.get(&path, Some(&token)).await.json().await.expect("json");
        assert_eq!(after, before, "{path} reads as it did");
    }
}

#[tokio::test]
async fn analyses_keep_their_inputs_after_a_deletion_on_the_memory_store() {
    analyses_keep_their_inputs_after_what_they_read_is_deleted(memory_app(&[]).await).await;
}

#[tokio::test]
async fn analyses_keep_their_inputs_after_a_deletion_on_postgres() {
    analyses_keep_their_inputs_after_what_they_read_is_deleted(postgres_app(&[]).await).await;
}
