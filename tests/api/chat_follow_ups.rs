//! Follow-up conversations over the runs a chat session launched, with and without a language model
//! and on both stores: figures cited to their metric, the rating and its basis, the risks, the
//! sources, a run's progress, "compare it with Y"; and never a number the stored result lacks.

use std::time::Duration;

use creditflow::domain::quant::narrative::{cited_numbers, uncited_numbers};
use serde_json::Value;

use crate::chatbot::{app_with_model, offline_app, postgres_app_with_market_data, say};
use crate::fake_llm::{FakeLlm, Scripted};
use crate::helpers::*;

/// Every number of a stored value, numeric or written inside a string (dates, accession numbers).
fn stored_numbers(value: &Value, out: &mut Vec<f64>) {
    match value {
        Value::Number(n) => out.extend(n.as_f64()),
        Value::String(text) => out.extend(cited_numbers(text)),
        Value::Array(items) => items.iter().for_each(|item| stored_numbers(item, out)),
        Value::Object(map) => map.values().for_each(|item| stored_numbers(item, out)),
        _ => {}
    }
}

/// Fails when `response` states a number that is not in `stored`.
fn assert_only_stored_numbers(response: &str, stored: &Value) {
    let mut allowed = Vec::new();
    stored_numbers(stored, &mut allowed);
    let invented = uncited_numbers(response, &allowed);
    assert!(invented.is_empty(), "numbers not in the stored result {invented:?}: {response}");
}

async fn stored_analysis(app: &TestApp, token: &str, id: &str) -> Value {
    app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(token)).await.json().await.expect("json")
}

/// A company analysis, then questions about it: each answered from the stored run.
async fn follow_ups_over_a_company_analysis(app: &TestApp, token: &str, session: &str) {
    let launched = say(app, token, session, "analyse Apple (AAPL)").await;
    assert_eq!(launched["workflow_launched"], "quant", "{launched}");
    let id = launched["workflow_result"]["analysis_id"].as_str().expect("analysis_id").to_owned();
    let stored = stored_analysis(app, token, &id).await;

    let leverage = say(app, token, session, "what's its leverage?").await;
    let text = leverage["response"].as_str().expect("response");
    assert!(leverage.get("workflow_launched").is_none(), "a follow-up launches nothing: {leverage}");
    assert_eq!(leverage["metadata"]["intent"], "follow_up", "{leverage}");
    assert_eq!(leverage["metadata"]["follow_up"]["run_id"], id.as_str());
    assert!(text.contains("Debt / EBITDA = ") && text.contains("formula: total_debt / ebitda"), "{text}");
    assert!(text.contains(&format!("/api/quantitative-analysis/results/{id}")), "{text}");
    assert_only_stored_numbers(text, &stored);

    let rating = say(app, token, session, "why that rating?").await;
    let text = rating["response"].as_str().expect("response");
    let grade = stored["result"]["data"]["credit"]["rating"]["grade"].as_str().expect("a grade");
    assert!(text.contains(grade) && text.contains("EBIT interest coverage = "), "{text}");
    assert_only_stored_numbers(text, &stored);

    let risks = say(app, token, session, "what are the main risks?").await;
    let text = risks["response"].as_str().expect("response");
    let concern = stored["result"]["findings"]
        .as_array()
        .and_then(|findings| findings.iter().find(|f| f["severity"] == "concern"))
        .and_then(|f| f["statement"].as_str())
        .expect("a finding of concern in the sample");
    assert!(text.contains(concern), "{text}");
    assert_only_stored_numbers(text, &stored);

    let sources = say(app, token, session, "show me the sources").await;
    let text = sources["response"].as_str().expect("response");
    let accession = stored["result"]["data"]["provenance"][0]["accession_number"].as_str().expect("accession");
    assert!(text.contains(accession) && text.contains("10-K"), "{text}");
    assert_only_stored_numbers(text, &stored);

    let compared = say(app, token, session, "compare it with SOXX").await;
    assert_eq!(compared["workflow_launched"], "quant", "{compared}");
    assert_eq!(compared["workflow_result"]["analysis_type"], "market", "{compared}");
    assert_eq!(compared["metadata"]["workflow_params"]["query"], "AAPL vs SOXX", "{compared}");

    // The newest run is now the market comparison: "its volatility" reads it.
    let volatility = say(app, token, session, "how volatile was it?").await;
    let text = volatility["response"].as_str().expect("response");
    let market_id = compared["workflow_result"]["analysis_id"].as_str().expect("analysis_id");
    assert!(text.contains("AAPL Annualised volatility = ") && text.contains("SOXX Annualised volatility = "), "{text}");
    assert_only_stored_numbers(text, &stored_analysis(app, token, market_id).await);
}

#[tokio::test]
async fn without_a_model_follow_ups_are_answered_from_the_stored_analysis() {
    let (app, _web) = offline_app().await;
    let token = app.token_for("analyst").await;
    let session = "follow-ups";
    follow_ups_over_a_company_analysis(&app, &token, session).await;
}

#[tokio::test]
async fn on_postgres_follow_ups_read_the_sessions_runs_back() {
    let app = postgres_app_with_market_data().await;
    let token = app.token_for("analyst").await;
    let session = "pg-follow-ups";
    follow_ups_over_a_company_analysis(&app, &token, session).await;
}

#[tokio::test]
async fn with_a_model_a_follow_up_is_answered_from_the_stored_run_not_by_the_model() {
    let llm = FakeLlm::scripted(vec![
        Scripted::tool_call(
            "launch_company_analysis",
            &serde_json::json!({ "company_name": "Apple", "ticker": "AAPL" }),
        ),
        Scripted::text("I analysed Apple; its debt is 7.5x EBITDA."),
    ])
    .await;
    let app = app_with_model(&llm, Duration::from_secs(5)).await;
    let token = app.token_for("analyst").await;
    let session = "llm-follow-ups";

    let launched = say(&app, &token, session, "please analyse Apple").await;
    assert_eq!(launched["workflow_launched"], "quant", "{launched}");
    let asked = llm.requests().len();
    let id = launched["workflow_result"]["analysis_id"].as_str().expect("analysis_id").to_owned();

    let leverage = say(&app, &token, session, "what's its leverage?").await;
    let text = leverage["response"].as_str().expect("response");
    assert_eq!(llm.requests().len(), asked, "the model is not asked: it could state a figure of its own");
    assert!(!text.contains("7.5"), "{text}");
    assert!(text.contains("Debt / EBITDA = "), "{text}");
    assert_only_stored_numbers(text, &stored_analysis(&app, &token, &id).await);
}

#[tokio::test]
async fn a_model_reads_a_run_through_its_tool_and_a_figure_it_adds_is_refused() {
    let read =
        || Scripted::tool_call("read_session_run", &serde_json::json!({ "question": "figure", "topic": "leverage" }));
    let llm = FakeLlm::scripted(vec![
        Scripted::tool_call(
            "launch_company_analysis",
            &serde_json::json!({ "company_name": "Apple", "ticker": "AAPL" }),
        ),
        // The analysis asks the model for its summary (checked against its own figures).
        Scripted::text("Apple Inc. was analysed."),
        Scripted::text("I analysed Apple."),
        read(),
        Scripted::text("Debt is 0.88x EBITDA, far below the 7.5x a lender would worry about."),
        read(),
        Scripted::text("Debt is 0.88x EBITDA."),
    ])
    .await;
    let app = app_with_model(&llm, Duration::from_secs(5)).await;
    let token = app.token_for("analyst").await;
    let session = "llm-run-tool";
    let launched = say(&app, &token, session, "please analyse Apple").await;
    let id = launched["workflow_result"]["analysis_id"].as_str().expect("analysis_id").to_owned();
    let stored = stored_analysis(&app, &token, &id).await;

    // Not a phrasing the follow-up grammar knows: the model answers, through the tool.
    let invented = say(&app, &token, session, "how stretched is the balance sheet?").await;
    assert_eq!(invented["metadata"]["engine"], "llm", "{invented}");
    assert_eq!(invented["metadata"]["numbers_refused"], serde_json::json!([7.5]), "{invented}");
    let text = invented["response"].as_str().expect("response");
    assert!(text.contains("Debt / EBITDA = ") && !text.contains("7.5"), "the tool's answer stands: {text}");
    assert_only_stored_numbers(text, &stored);

    let kept = say(&app, &token, session, "how stretched is the balance sheet, briefly?").await;
    assert_eq!(kept["response"], "Debt is 0.88x EBITDA.", "{kept}");
    assert!(kept["metadata"].get("numbers_refused").is_none(), "{kept}");
}

#[tokio::test]
async fn a_research_run_answers_with_its_progress_then_its_answer_and_sources() {
    let (app, _web) = offline_app().await;
    let token = app.token_for("analyst").await;
    let session = "research-follow-ups";

    let launched = say(&app, &token, session, "research Jane Doe's record as a fund manager").await;
    assert_eq!(launched["workflow_launched"], "research", "{launched}");
    let id = launched["workflow_result"]["research_id"].as_str().expect("research_id").to_owned();

    let status = say(&app, &token, session, "is it done?").await;
    let text = status["response"].as_str().expect("response");
    assert!(text.contains(&format!("/api/deep-research/results/{id}")), "{text}");
    assert_eq!(status["metadata"]["follow_up"]["question"], "status", "{status}");

    let run = crate::research::wait_for_research(&app, &token, &id).await;
    assert_eq!(run["status"], "completed", "{run}");
    assert!(run["sources"].as_array().is_some_and(|sources| !sources.is_empty()), "{run}");
    let sources = say(&app, &token, session, "show me the sources").await;
    let text = sources["response"].as_str().expect("response");
    for source in run["sources"].as_array().into_iter().flatten().take(3) {
        let url = source["url"].as_str().expect("url");
        assert!(text.contains(url), "{url} missing: {text}");
    }
    let found = say(&app, &token, session, "what did it find?").await;
    let text = found["response"].as_str().expect("response");
    let answer = run["answer"].as_str().expect("an answer");
    assert!(text.contains(answer.split_whitespace().take(6).collect::<Vec<_>>().join(" ").as_str()), "{text}");
    assert_only_stored_numbers(text, &run);
}

#[tokio::test]
async fn with_nothing_launched_a_follow_up_is_left_to_the_grammar() {
    let (app, _web) = offline_app().await;
    let token = app.token_for("analyst").await;
    let session = "nothing-yet";
    let reply = say(&app, &token, session, "what's its leverage?").await;
    assert_ne!(reply["metadata"]["intent"], "follow_up", "{reply}");
    assert!(reply.get("workflow_launched").is_none(), "an unresolved 'its' launches nothing: {reply}");
}
