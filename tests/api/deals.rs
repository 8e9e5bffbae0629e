//! Covenant tests of a deal: the agreement's step-down schedule and definitions read from its text,
//! the borrower's stored statements, an amendment that resets a level, the errors that store
//! nothing, and who may see what — on the memory store and on PostgreSQL.

use serde_json::{Value, json};

use crate::cdm_events;
use crate::helpers::*;
use crate::test_cluster;

const DEAL: i64 = 42;

/// A credit agreement whose net leverage covenant steps down, nets cash up to a cap of $1,000,000,
/// and whose interest cover is a flat minimum.
const AGREEMENT: &str = include_str!("../../examples/deals/northwind-credit-agreement.txt");

/// An amendment that resets the net leverage maximum from its own date.
const AMENDMENT: &str = "AMENDMENT NO. 1 TO CREDIT AGREEMENT\n\nThis AMENDMENT NO. 1 TO CREDIT AGREEMENT, dated as of September 1, 2024 (this \u{201c}Amendment\u{201d}), among NORTHWIND TOOLS INC., a Delaware corporation (the \u{201c}Borrower\u{201d}), the Lenders party hereto and BIG BANK, N.A., as Administrative Agent, amends the Credit Agreement dated as of March 15, 2024.\n\nSection 1. Amendment. Section 7.11 of the Credit Agreement is amended and restated as follows:\n\nSection 7.11 Financial Covenants.\n\n(a) Consolidated Total Net Leverage Ratio. Permit the Consolidated Total Net Leverage Ratio as of the end of any fiscal quarter to be greater than 1.10 to 1.00.\n\nSection 2. Governing Law. This Amendment shall be governed by the laws of the State of New York.\n";

/// FY2022, FY2023 and the nine months to September 2023 and 2024, in thousands: EBITDA over the
/// twelve months to 2024-09-30 = 1,900 + 1,600 - 1,300 = 2,200; debt 3,500, cash 800, interest 300.
fn financials() -> Value {
    let example: Value = serde_json::from_str(include_str!("../../examples/deals/northwind-statements.json"))
        .expect("example statements");
    example["financials"].clone()
}

async fn create_document(app: &TestApp, token: &str, title: &str, text: &str, deal_id: i64) -> i64 {
    let response =
        app.post("/api/documents", Some(token), &json!({ "title": title, "text": text, "deal_id": deal_id })).await;
    assert_eq!(response.status(), 201, "{title}");
    let body: Value = response.json().await.expect("json");
    body["document"]["document_id"].as_i64().expect("document id")
}

async fn store_statements(app: &TestApp, token: &str) -> String {
    let response = app
        .post(
            "/api/financial-statements",
            Some(token),
            &serde_json::from_str::<Value>(include_str!("../../examples/deals/northwind-statements.json"))
                .expect("example"),
        )
        .await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    body["statement_set_id"].as_str().expect("set id").to_owned()
}

fn covenant<'a>(body: &'a Value, name: &str) -> &'a Value {
    body["covenants"]
        .as_array()
        .expect("covenants")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {body}"))
}

fn close(value: &Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() < 1e-9)
}

async fn covenants_are_tested_with_the_agreements_own_definitions(app: &TestApp) {
    let analyst = app.token_for("analyst").await;
    let other = app.token_for("analyst").await;
    let agreement = create_document(app, &analyst, "Northwind credit agreement", AGREEMENT, DEAL).await;
    let set = store_statements(app, &analyst).await;
    let path = format!("/api/deals/{DEAL}/covenant-tests");

    let response = app.post(&path, Some(&analyst), &json!({ "statement_set_id": set })).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    assert_eq!(body["status"], "success");
    assert_eq!(body["document_id"], agreement);
    assert_eq!(body["period_end"], "2024-09-30");
    let leverage = covenant(&body, "Consolidated Total Net Leverage Ratio");
    assert_eq!(leverage["kind"], "max_net_leverage", "{leverage}");
    // The step-down table gives 4.50 for the quarter ending September 30, 2024.
    assert_eq!(leverage["threshold"], 4.5);
    assert_eq!(leverage["schedule"].as_array().map(Vec::len), Some(2), "{leverage}");
    // (3,500 - min(800, 1,000)) / 2,200 thousands, cash netted up to the agreement's cap.
    assert!(close(&leverage["actual"], 2_700_000.0 / 2_200_000.0), "{leverage}");
    assert!(leverage["formula"].as_str().is_some_and(|f| f.contains("the agreement's definition")), "{leverage}");
    assert_eq!(leverage["status"], "pass");
    assert!(close(&leverage["headroom_pct"], (4.5 - 2_700_000.0 / 2_200_000.0) / 4.5), "{leverage}");
    let inputs = leverage["inputs"].to_string();
    assert!(inputs.contains("minus 9 months to 2023-09-30"), "the test period is the trailing twelve months: {inputs}");
    let coverage = covenant(&body, "Consolidated Interest Coverage Ratio");
    assert_eq!(coverage["kind"], "min_interest_coverage");
    assert!(close(&coverage["actual"], 2_200_000.0 / 300_000.0), "{coverage}");
    assert_eq!(body["summary"]["compliance"], "pass");

    // Stored and listed; someone else sees neither.
    let test_id = body["test_id"].as_str().expect("test id");
    let stored: Value = app.get(&format!("{path}/{test_id}"), Some(&analyst)).await.json().await.expect("json");
    assert_eq!(stored["covenants"], body["covenants"]);
    let listed: Value = app.get(&path, Some(&analyst)).await.json().await.expect("json");
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["covenant_tests"][0]["test_id"], test_id);
    assert_error(app.get(&format!("{path}/{test_id}"), Some(&other)).await, 404).await;
    let theirs: Value = app.get(&path, Some(&other)).await.json().await.expect("json");
    assert_eq!(theirs["total"], 0);

    // An amendment resets the maximum from its own date: 1.10 from September 1, 2024.
    create_document(app, &analyst, "Amendment No. 1", AMENDMENT, DEAL).await;
    let amended: Value = app
        .post(&path, Some(&analyst), &json!({ "statement_set_id": set, "document_id": agreement }))
        .await
        .json()
        .await
        .expect("json");
    let leverage = covenant(&amended, "Consolidated Total Net Leverage Ratio");
    assert_eq!(leverage["threshold"], 1.1, "{amended}");
    assert_eq!(leverage["status"], "breach");
    assert_eq!(amended["findings"][0]["severity"], "concern", "{amended}");
    assert_eq!(amended["summary"]["compliance"], "breach");
    // Tested before the amendment's date, the agreement's own level applies.
    let mut earlier = financials();
    earlier["periods"].as_array_mut().expect("periods").truncate(3);
    let before: Value = app
        .post(
            &path,
            Some(&analyst),
            &json!({ "financials": earlier, "document_id": agreement, "period_end": "2023-12-31" }),
        )
        .await
        .json()
        .await
        .expect("json");
    let leverage = covenant(&before, "Consolidated Total Net Leverage Ratio");
    assert_eq!(leverage["status"], "not_testable", "{before}");
    assert!(leverage["notes"].to_string().contains("first tested for the period ending 2024-06-30"), "{leverage}");

    // Errors: 4xx naming the field, and nothing stored.
    let neither = assert_error(app.post(&path, Some(&analyst), &json!({})).await, 400).await;
    assert_eq!(neither["detail"]["field"], "statement_set_id");
    let both = assert_error(
        app.post(&path, Some(&analyst), &json!({ "statement_set_id": set, "financials": financials() })).await,
        400,
    )
    .await;
    assert_eq!(both["detail"]["field"], "financials");
    let elsewhere = create_document(app, &analyst, "Another deal's agreement", AGREEMENT, 7).await;
    let wrong_deal = assert_error(
        app.post(&path, Some(&analyst), &json!({ "statement_set_id": set, "document_id": elsewhere })).await,
        400,
    )
    .await;
    assert_eq!(wrong_deal["detail"]["field"], "document_id");
    assert_error(app.post(&path, Some(&other), &json!({ "statement_set_id": set })).await, 404).await;
    let plain =
        create_document(app, &analyst, "A guarantee", "GUARANTEE\n\nThe Guarantor guarantees the Obligations.\n", DEAL)
            .await;
    let no_covenants = assert_error(
        app.post(&path, Some(&analyst), &json!({ "statement_set_id": set, "document_id": plain })).await,
        422,
    )
    .await;
    assert!(no_covenants["message"].as_str().is_some_and(|m| m.contains("no financial covenants")), "{no_covenants}");
    assert_error(
        app.post("/api/deals/zero/covenant-tests", Some(&analyst), &json!({ "statement_set_id": set })).await,
        400,
    )
    .await;
    let listed: Value = app.get(&path, Some(&analyst)).await.json().await.expect("json");
    assert_eq!(listed["total"], 3, "only the three tests that ran are stored");

    // A workflow launched from a chat session on the deal links the session to it.
    let launch = json!({
        "workflow_type": "research", "session_id": "northwind-monitoring", "deal_id": DEAL,
        "workflow_params": { "query": "Northwind Tools covenant headroom" }
    });
    let launched = app.post("/api/digitizer-chatbot/launch-workflow", Some(&analyst), &launch).await;
    assert!(launched.status().is_success(), "{}", launched.status());

    // The deal's workspace: everything linked to it that the caller may see.
    let workspace: Value = app.get(&format!("/api/deals/{DEAL}"), Some(&analyst)).await.json().await.expect("json");
    assert_eq!(workspace["documents"]["total"], 3, "{workspace}");
    let first = &workspace["documents"]["items"][2];
    assert_eq!((first["id"].as_i64(), first["kind"].as_str()), (Some(agreement), Some("document")), "{workspace}");
    assert_eq!(first["borrower"], "NORTHWIND TOOLS INC.");
    assert_eq!(first["agreement_date"], "2024-03-15");
    assert_eq!(first["review_state"], "draft");
    assert!(first["created_at"].is_string());
    assert_eq!(workspace["statement_sets"]["total"], 1);
    assert_eq!(workspace["covenant_tests"]["total"], 3);
    let mut statuses: Vec<&str> = workspace["covenant_tests"]["items"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["status"].as_str())
        .collect();
    statuses.sort_unstable();
    assert_eq!(statuses, ["breach", "incomplete", "pass"], "{workspace}");
    assert_eq!(workspace["research"]["total"], 1, "{workspace}");
    assert_eq!(workspace["chat_sessions"]["total"], 1, "{workspace}");
    assert_eq!(workspace["chat_sessions"]["items"][0]["id"], "northwind-monitoring");
    for kind in ["analyses", "people"] {
        assert_eq!(workspace[kind]["total"], 0, "{kind}");
    }
    assert_error(app.get(&format!("/api/deals/{DEAL}"), Some(&other)).await, 404).await;
    assert_error(app.get("/api/deals/999", Some(&analyst)).await, 404).await;

    // Chat: a test run on the deal's newest statements, answered with its figures.
    let chat = |message: &str, deal_id: Option<i64>| json!({ "message": message, "session_id": "northwind-monitoring", "deal_id": deal_id });
    let reply: Value = app
        .post(
            "/api/digitizer-chatbot/chat",
            Some(&analyst),
            &chat("test the covenants with the new statements", Some(DEAL)),
        )
        .await
        .json()
        .await
        .expect("json");
    let text = reply["response"].as_str().unwrap_or_default();
    assert!(
        text.contains("Consolidated Total Net Leverage Ratio: 1.23x against a maximum of 1.10x — breach"),
        "{reply}"
    );
    assert!(text.contains("/api/deals/42/covenant-tests/"), "{reply}");
    // The borrower's name finds its deals; two deals name Northwind, so the chat asks which.
    let reply: Value = app
        .post("/api/digitizer-chatbot/chat", Some(&analyst), &chat("is Northwind in compliance?", None))
        .await
        .json()
        .await
        .expect("json");
    assert!(reply["response"].as_str().is_some_and(|r| r.contains("appears in deals")), "{reply}");
    let reply: Value = app
        .post("/api/digitizer-chatbot/chat", Some(&analyst), &chat("covenant headroom on deal 42", None))
        .await
        .json()
        .await
        .expect("json");
    assert!(reply["response"].as_str().is_some_and(|r| r.starts_with("Covenant test of deal 42")), "{reply}");
    assert_eq!(reply["metadata"]["intent"], "covenant_test");

    // A covenant question sent into someone else's session is refused before any test runs.
    let theirs = json!({ "message": "hello", "session_id": "someone-elses-session" });
    assert!(app.post("/api/digitizer-chatbot/chat", Some(&other), &theirs).await.status().is_success());
    let tests_before: Value = app.get(&path, Some(&analyst)).await.json().await.expect("json");
    let intruding = json!({ "message": "test the covenants with the new statements", "session_id": "someone-elses-session", "deal_id": DEAL });
    assert_error(app.post("/api/digitizer-chatbot/chat", Some(&analyst), &intruding).await, 404).await;
    let tests_after: Value = app.get(&path, Some(&analyst)).await.json().await.expect("json");
    assert_eq!(tests_after["total"], tests_before["total"], "nothing ran for the refused turn");
}

/// An agreement whose covenants are on amounts: liquidity defined as cash alone, net worth, and a
/// yearly limit on capital expenditures.
const AMOUNTS_AGREEMENT: &str = "CREDIT AGREEMENT\n\nThis CREDIT AGREEMENT, dated as of March 15, 2024, among ACME PUMPS INC., a Delaware corporation (the \u{201c}Borrower\u{201d}), the Lenders party hereto and BIG BANK, N.A., as Administrative Agent.\n\nARTICLE I\nDEFINITIONS\n\n\u{201c}Liquidity\u{201d} means unrestricted cash and Cash Equivalents of the Borrower.\n\n\u{201c}Consolidated Net Worth\u{201d} means the total shareholders\u{2019} equity of the Borrower and its Subsidiaries.\n\nSection 2.01 Revolving Loans. Each Lender agrees to make revolving loans to the Borrower in an aggregate amount not exceeding $5,000,000.\n\nSection 7.11 Financial Covenants.\n\n(a) Minimum Liquidity. The Borrower shall not permit Liquidity, as of the last day of any fiscal quarter, to be less than $1,000,000.\n\n(b) Minimum Consolidated Net Worth. The Borrower shall maintain Consolidated Net Worth of not less than $3,000,000 at all times.\n\n(c) Capital Expenditures. The Borrower shall not make Capital Expenditures in any fiscal year in excess of $450,000.\n\nSection 7.12 Liens. The Borrower shall not create any Lien.\n\nSection 9.01 Governing Law. This Agreement shall be governed by the laws of the State of New York.\n";

async fn covenants_on_amounts_are_tested_in_their_currency(app: &TestApp) {
    let analyst = app.token_for("analyst").await;
    let deal = 43;
    create_document(app, &analyst, "Acme credit agreement", AMOUNTS_AGREEMENT, deal).await;
    let path = format!("/api/deals/{deal}/covenant-tests");
    let response =
        app.post(&path, Some(&analyst), &json!({ "financials": financials(), "period_end": "2023-12-31" })).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    // Cash 800,000 against a minimum of 1,000,000, liquidity being cash alone: a breach.
    let liquidity = covenant(&body, "Liquidity");
    assert_eq!((&liquidity["kind"], &liquidity["currency"]), (&json!("min_liquidity"), &json!("USD")), "{liquidity}");
    assert_eq!(liquidity["threshold"], 1_000_000.0);
    assert_eq!(liquidity["actual"], 800_000.0);
    assert_eq!(liquidity["status"], "breach");
    // Equity 4,000,000 against 3,000,000: a third of headroom.
    let net_worth = covenant(&body, "Consolidated Net Worth");
    assert_eq!(net_worth["kind"], "min_net_worth");
    assert_eq!(net_worth["status"], "pass");
    assert!(close(&net_worth["headroom_pct"], 1.0 / 3.0), "{net_worth}");
    assert!(net_worth["formula"].as_str().is_some_and(|f| f.contains("the agreement's definition")), "{net_worth}");
    // 500,000 spent in FY2023 against a limit of 450,000.
    let capex = covenant(&body, "Capital Expenditures");
    assert_eq!(
        (&capex["kind"], &capex["operator"], &capex["status"]),
        (&json!("max_capex"), &json!("max"), &json!("breach"))
    );
    assert_eq!(body["summary"]["compliance"], "breach");
    let findings = body["findings"].to_string();
    assert!(findings.contains("USD"), "levels said in their currency: {findings}");
    let listed: Value = app.get(&path, Some(&analyst)).await.json().await.expect("json");
    assert_eq!(listed["covenant_tests"][0]["covenants"][0]["currency"], "USD", "{listed}");
}

#[tokio::test]
async fn covenants_on_amounts_are_tested_on_the_memory_store() {
    let app = spawn_app_with(&[("RATE_LIMIT_PER_MINUTE", "1000")], |_| {}).await;
    covenants_on_amounts_are_tested_in_their_currency(&app).await;
}

#[tokio::test]
async fn covenants_on_amounts_are_tested_on_postgres() {
    let cluster = test_cluster::shared().await;
    let app = spawn_app_around(cluster.fresh_adapters().await, &[("RATE_LIMIT_PER_MINUTE", "1000")], |_| {}).await;
    covenants_on_amounts_are_tested_in_their_currency(&app).await;
}

#[tokio::test]
async fn covenants_are_tested_against_stored_statements_on_the_memory_store() {
    let app = spawn_app_with(&[("RATE_LIMIT_PER_MINUTE", "1000")], |_| {}).await;
    covenants_are_tested_with_the_agreements_own_definitions(&app).await;
}

#[tokio::test]
async fn covenants_are_tested_against_stored_statements_on_postgres() {
    let cluster = test_cluster::shared().await;
    let app = spawn_app_around(cluster.fresh_adapters().await, &[("RATE_LIMIT_PER_MINUTE", "1000")], |_| {}).await;
    covenants_are_tested_with_the_agreements_own_definitions(&app).await;
}
