//! Text an analyst crafts to break the service: U+0000 (NUL), which PostgreSQL cannot store, in every
//! field that is stored or searched, answered with the same 400 naming the field on both stores; a
//! NUL that reaches the database anyway is the request's fault, never the outage's 503; and files
//! that make a parser panic, answered with a fixed reason, never the parser's words.

use std::sync::Arc;

use creditflow::adapters::http::error::ApiError;
use creditflow::adapters::postgres::PostgresStore;
use creditflow::domain::auth::UserId;
use creditflow::ports::conversations::{AppendError, ConversationRepository, StoredMessage};
use creditflow::ports::store::StoreError;
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::documents::AGREEMENT;
use crate::helpers::{FormPart, TestApp, assert_error, spawn_app, spawn_app_around};
use crate::test_cluster;

/// Asserts a 400 naming `field` as the one holding a character the database cannot store.
async fn refused_naming(response: reqwest::Response, field: &str) {
    let body = assert_error(response, 400).await;
    assert_eq!(body["detail"]["field"], field, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| m.contains("U+0000")), "{body}");
}

/// Every way a NUL could reach storage is refused, naming its field, and nothing is stored.
async fn nul_is_refused_in_every_stored_field(app: &TestApp) {
    let token = app.token_for("analyst").await;
    let session = app.chat_session(&token, "hostile").await;
    let people = |name: &str| {
        json!({ "workflow_type": "people", "session_id": session, "deal_id": 4,
                "workflow_params": { "person_name": name, "ipip_responses": vec![3; 50] } })
    };
    let requests = [
        ("/api/documents", json!({ "title": "Credit\0Agreement", "text": AGREEMENT }), "title"),
        ("/api/documents", json!({ "title": "Credit Agreement", "text": format!("{AGREEMENT}\0") }), "text"),
        ("/api/digitizer-chatbot/chat", json!({ "message": "thanks\0", "session_id": session }), "message"),
        ("/api/deep-research/query", json!({ "query": "Acme Corp\0 leverage" }), "query"),
        ("/api/digitizer-chatbot/launch-workflow", people("Jane\0Doe"), "workflow_params.person_name"),
        (
            "/api/financial-statements",
            json!({ "borrower_name": "Northwind\0Tools", "financials": crate::private_borrowers::financials() }),
            "borrower_name",
        ),
    ];
    for (path, body, field) in requests {
        refused_naming(app.post(path, Some(&token), &body).await, field).await;
    }

    let titled = [FormPart::file("agreement.txt", "text/plain", AGREEMENT.as_bytes()), FormPart::text("title", "A\0")];
    refused_naming(app.post_form("/api/documents", &token, &titled).await, "title").await;
    let sheet =
        std::fs::read(format!("{}/examples/statements/northwind.csv", env!("CARGO_MANIFEST_DIR"))).expect("csv");
    let named = [FormPart::file("northwind.csv", "text/csv", &sheet), FormPart::text("borrower_name", "Northwind\0")];
    refused_naming(app.post_form("/api/financial-statements", &token, &named).await, "borrower_name").await;
    refused_naming(app.get("/api/documents?search=credit%00", Some(&token)).await, "search").await;

    let listed: Value = app.get("/api/documents", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 0, "{listed}");
    let research: Value = app.get("/api/deep-research/results", Some(&token)).await.json().await.expect("json");
    assert_eq!(research["total"], 0, "{research}");
}

#[tokio::test]
async fn nul_is_refused_naming_the_field_on_the_memory_store() {
    nul_is_refused_in_every_stored_field(&spawn_app().await).await;
}

#[tokio::test]
async fn nul_is_refused_naming_the_field_on_postgres() {
    let adapters = test_cluster::shared().await.fresh_adapters().await;
    let app = spawn_app_around(adapters, &[], |adapters| adapters.web_search = Vec::new()).await;

    nul_is_refused_in_every_stored_field(&app).await;
}

#[tokio::test]
async fn a_nul_that_reaches_postgres_is_the_requests_fault_not_an_outage() {
    let target = test_cluster::shared().await.fresh_database().await;
    let store = Arc::new(PostgresStore::open(&target, 1).await.expect("store opens"));
    let now = OffsetDateTime::now_utc();
    let message = |content: &str, result: Option<Value>| StoredMessage {
        role: "user".into(),
        content: content.into(),
        workflow_launched: None,
        workflow_result: result,
        at: now,
    };

    let in_text = store.find("chat\0session").await.expect_err("a text parameter with NUL");
    let in_json = store
        .append("chat-session", UserId::new_random(), vec![message("hi", Some(json!({ "note": "a\0b" })))], now)
        .await
        .expect_err("JSON with NUL");
    let AppendError::Store(in_json) = in_json else { panic!("{in_json:?}") };

    for error in [in_text, in_json] {
        assert!(!matches!(error, StoreError::Unavailable(_)), "not the outage: {error:?}");
        let answer = ApiError::internal(error.into());
        assert_eq!(answer.status().as_u16(), 400, "{}", answer.message());
    }
    let session = store.find("chat-session").await.expect("the store still answers");
    assert!(session.is_none(), "nothing was written");
}

/// A one-page PDF whose font is of a type the PDF reader's library panics on (`Type3` without its
/// glyph procedures, `Type0` without descendant fonts).
fn pdf_with_font(font: &str) -> Vec<u8> {
    let content = "BT /F1 12 Tf 72 712 Td (Hello) Tj ET";
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_owned(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        font.to_owned(),
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (index, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", index + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    let trailer = format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1);
    pdf.extend_from_slice(trailer.as_bytes());
    pdf
}

#[tokio::test]
async fn a_file_that_panics_the_parser_is_refused_without_the_parsers_words() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;

    for (font, panic_text) in [
        ("<< /Type /Font /Subtype /Type3 >>", "explicit panic"),
        ("<< /Type /Font /Subtype /Type0 /BaseFont /X >>", "Descendant fonts required"),
    ] {
        let pdf = pdf_with_font(font);
        let parts = [FormPart::file("agreement.pdf", "application/pdf", &pdf)];

        let body = assert_error(app.post_form("/api/documents", &token, &parts).await, 422).await;

        assert_eq!(body["detail"]["reason"], "corrupt", "{body}");
        assert!(!body.to_string().contains(panic_text), "{panic_text:?} in {body}");
        assert!(body["message"].as_str().is_some_and(|m| m.contains("could not read it")), "{body}");
    }
    assert_eq!(app.get("/health/live", None).await.status(), 200);
}
