//! `POST /api/quantitative-analysis/company` (JSON and Server-Sent Events) and the stored results,
//! over the local-mirror market-data adapters with SEC-format fixtures and generated prices.

use std::path::PathBuf;
use std::sync::Arc;

use creditflow::adapters::market::{CsvMirrorPrices, MirrorFinancialData};
use serde_json::{Value, json};

use crate::cdm_events;
use crate::helpers::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/adapters/market/fixtures");

/// A mirror directory: the fixtures' ticker list and company facts, and ~300 weekdays of prices
/// for AAPL and SPY that follow a deterministic wave.
struct Mirror {
    dir: PathBuf,
    aapl: Vec<f64>,
}

impl Mirror {
    fn new(with_facts: bool) -> Self {
        let dir = std::env::temp_dir().join(format!("creditflow-quant-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(dir.join("companyfacts")).expect("dirs");
        std::fs::create_dir_all(dir.join("prices")).expect("dirs");
        std::fs::copy(format!("{FIXTURES}/company_tickers.json"), dir.join("company_tickers.json")).expect("tickers");
        if with_facts {
            for entry in std::fs::read_dir(format!("{FIXTURES}/companyfacts")).expect("facts") {
                let path = entry.expect("entry").path();
                std::fs::copy(&path, dir.join("companyfacts").join(path.file_name().expect("name"))).expect("copy");
            }
        }
        let aapl = write_prices(&dir, "AAPL", 0.0008, 0.015);
        write_prices(&dir, "SPY", 0.0004, 0.009);
        Self { dir, aapl }
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn write_prices(dir: &std::path::Path, symbol: &str, drift: f64, amplitude: f64) -> Vec<f64> {
    let mut day = time::macros::date!(2024 - 01 - 01);
    let (mut close, mut closes, mut csv) = (100.0, Vec::new(), String::from("Date,Close\n"));
    for i in 0..420 {
        day = day.next_day().expect("date");
        if matches!(day.weekday(), time::Weekday::Saturday | time::Weekday::Sunday) {
            continue;
        }
        close *= 1.0 + drift + amplitude * (f64::from(i) * 0.7).sin();
        closes.push(close);
        csv.push_str(&format!("{day},{close:.6}\n"));
    }
    std::fs::write(dir.join("prices").join(format!("{symbol}.csv")), csv).expect("prices");
    // What the CSV holds, read back at its printed precision.
    closes.iter().map(|c| format!("{c:.6}").parse().expect("f64")).collect()
}

async fn app_on(mirror: &Mirror) -> TestApp {
    let dir = mirror.dir.clone();
    spawn_app_with(&[], move |adapters| {
        adapters.financial_data = Some(Arc::new(MirrorFinancialData::new(dir.clone())));
        adapters.prices = Some(Arc::new(CsvMirrorPrices::new(dir)));
    })
    .await
}

/// `{category, severity: positive|info|watch|concern, statement, evidence: {metric, value, …}}`.
fn assert_findings_have_one_shape(result: &Value) {
    let findings = result["findings"].as_array().expect("findings");
    assert!(!findings.is_empty(), "{result}");
    for finding in findings {
        assert!(
            ["positive", "info", "watch", "concern"].contains(&finding["severity"].as_str().unwrap_or("")),
            "{finding}"
        );
        assert!(finding["statement"].is_string() && finding["category"].is_string(), "{finding}");
        assert!(finding["evidence"]["metric"].is_string() && finding["evidence"]["value"].is_number(), "{finding}");
    }
}

fn metric<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["metrics"].as_array().expect("metrics").iter().find(|m| m["name"] == name).unwrap_or(&Value::Null)
}

#[tokio::test]
async fn a_company_analysis_is_computed_traced_stored_and_retrievable() {
    let mirror = Mirror::new(true);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;

    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "apple", "ticker": "AAPL", "deal_id": 7 }),
        )
        .await;

    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("x-ratelimit-remaining"));
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    let result = &body["result"];
    assert!(result["summary"].as_str().is_some_and(|s| s.contains("Apple Inc.")), "{}", result["summary"]);

    // Every metric names its formula and inputs; leverage is debt over EBITDA of those inputs.
    let leverage = metric(result, "debt_to_ebitda");
    let inputs: Vec<f64> =
        leverage["inputs"].as_array().expect("inputs").iter().filter_map(|i| i["value"].as_f64()).collect();
    assert_eq!(inputs.len(), 2, "{leverage}");
    assert!((leverage["value"].as_f64().expect("value") - inputs[0] / inputs[1]).abs() < 1e-9, "{leverage}");
    assert!(leverage["formula"].as_str().is_some_and(|f| !f.is_empty()));

    // The one-year return, computed here from the generated closes (253 prices: the last 252 returns).
    let window = &mirror.aapl[mirror.aapl.len() - 253..];
    let expected_return = window[window.len() - 1] / window[0] - 1.0;
    let period_return = metric(result, "period_return")["value"].as_f64().expect("period_return");
    assert!((period_return - expected_return).abs() < 1e-9, "{period_return} vs {expected_return}");
    assert!(metric(result, "beta")["value"].as_f64().is_some());

    assert_findings_have_one_shape(result);
    let provenance = result["data"]["provenance"].as_array().expect("provenance");
    assert!(
        provenance
            .iter()
            .any(|p| p["tag"].as_str().is_some_and(|t| t.starts_with("us-gaap:")) && p["accession_number"].is_string())
    );
    let events = body["cdm_events"].as_array().expect("events");
    assert_eq!(events.len(), 2, "started and completed");

    let id = body["analysis_id"].as_str().expect("id");
    let stored: Value =
        app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!((stored["status"].as_str(), stored["analysis_type"].as_str()), (Some("completed"), Some("company")));
    assert!(stored["completed_at"].is_string());
    assert_eq!(stored["result"]["metrics"], result["metrics"]);
    let stranger = app.token_for("analyst").await;
    assert_error(app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(&stranger)).await, 404).await;
    let listed: Value =
        app.get("/api/quantitative-analysis/results?deal_id=7", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 1);
}

#[tokio::test]
async fn unknown_and_ambiguous_companies_are_400_and_nothing_is_stored() {
    let mirror = Mirror::new(true);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;

    let unknown = app
        .post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Zyxwv Nothing Holdings" }))
        .await;
    let unknown = assert_error(unknown, 400).await;
    assert_eq!(unknown["detail"]["field"], "company_name");
    let ambiguous =
        app.post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Acme" })).await;
    let ambiguous = assert_error(ambiguous, 400).await;
    assert!(ambiguous["detail"]["candidates"].as_array().is_some_and(|c| c.len() >= 2), "{ambiguous}");

    let listed: Value = app.get("/api/quantitative-analysis/results", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 0);
}

#[tokio::test]
async fn a_missing_filing_fails_the_stored_run_with_a_502_naming_the_provider() {
    let mirror = Mirror::new(false);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;

    let response =
        app.post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Apple Inc." })).await;

    let error = assert_error(response, 502).await;
    assert!(error["detail"]["provider"].as_str().is_some_and(|p| p.contains("SEC")), "{error}");
    let id = error["detail"]["analysis_id"].as_str().expect("the failed run's id");
    let stored: Value =
        app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(stored["status"], "failed");
    assert!(stored["error"].is_string() && stored.get("completed_at").is_none());
    cdm_events::record(&stored);
}

#[tokio::test]
async fn bad_company_requests_are_400_naming_the_field() {
    let mirror = Mirror::new(true);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;
    for (body, field) in [
        (json!({ "company_name": "Apple", "analysis_type": "astrology" }), "analysis_type"),
        (json!({ "ticker": "AAPL" }), "company_name"),
        (json!({ "company_name": "  " }), "company_name"),
        (json!({ "company_name": "Apple", "stream": "yes" }), "stream"),
        (json!({ "company_name": "Apple", "deal_id": -3 }), "deal_id"),
    ] {
        let error = assert_error(app.post("/api/quantitative-analysis/company", Some(&token), &body).await, 400).await;
        assert_eq!(error["detail"]["field"], field, "{body}");
    }
    let viewer = app.token_for("viewer").await;
    assert_error(
        app.post("/api/quantitative-analysis/company", Some(&viewer), &json!({ "company_name": "Apple" })).await,
        403,
    )
    .await;
}

/// `(event, id, data)` of each event in a `text/event-stream` body.
fn parse_sse(text: &str) -> Vec<(String, String, Value)> {
    text.split("\n\n")
        .filter_map(|block| {
            let field = |name: &str| block.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_owned());
            Some((field("event:")?, field("id:")?, serde_json::from_str(&field("data:")?).ok()?))
        })
        .collect()
}

#[tokio::test]
async fn the_stream_reports_started_progress_and_completed_in_order() {
    let mirror = Mirror::new(true);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;

    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "Apple Inc.", "ticker": "AAPL", "stream": true }),
        )
        .await;

    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().is_ok_and(|ct| ct.starts_with("text/event-stream")));
    assert!(response.headers().contains_key("x-ratelimit-limit"));
    let events = parse_sse(&response.text().await.expect("body"));
    let kinds: Vec<&str> = events.iter().map(|(kind, _, _)| kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"started"));
    assert_eq!(kinds.last(), Some(&"completed"));
    assert!(kinds[1..kinds.len() - 1].iter().all(|k| *k == "progress") && kinds.len() >= 5, "{kinds:?}");
    let ids: Vec<usize> = events.iter().map(|(_, id, _)| id.parse().expect("numeric id")).collect();
    assert_eq!(ids, (0..events.len()).collect::<Vec<_>>());
    let percents: Vec<f64> = events
        .iter()
        .filter(|(k, _, _)| k == "progress")
        .filter_map(|(_, _, d)| d["data"]["progress"].as_f64())
        .collect();
    assert!(percents.windows(2).all(|w| w[0] < w[1]), "strictly increasing: {percents:?}");
    for (kind, _, payload) in &events {
        assert_eq!(payload["type"], kind.as_str());
    }
    let completed = &events[events.len() - 1].2["data"];
    let id = completed["analysis_id"].as_str().expect("id");
    assert_eq!(events[0].2["data"]["analysis_id"], id);
    assert!(completed["result"]["summary"].is_string());
    cdm_events::record(completed);
    let stored: Value =
        app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(stored["status"], "completed");
}

#[tokio::test]
async fn a_market_analysis_compares_the_named_instruments_with_the_benchmark() {
    let mirror = Mirror::new(true);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;

    for query in ["$AAPL", "how has Apple done"] {
        let response = app
            .post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": query, "time_range": "6M" }))
            .await;
        assert_eq!(response.status(), 200, "{query}");
        assert!(response.headers().contains_key("x-ratelimit-remaining"));
        let body: Value = response.json().await.expect("json");
        cdm_events::record(&body);
        let result = &body["result"];
        assert_eq!(result["data"]["instruments"][0]["symbol"], "AAPL", "{query}");
        let aapl_return = result["metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .find(|m| m["symbol"] == "AAPL" && m["name"] == "period_return")
            .and_then(|m| m["value"].as_f64())
            .expect("AAPL return");
        let window = &mirror.aapl[mirror.aapl.len() - 127..];
        assert!((aapl_return - (window[126] / window[0] - 1.0)).abs() < 1e-9);
        assert_eq!(result["data"]["correlation"]["symbols"], json!(["AAPL", "SPY"]));
        assert_findings_have_one_shape(result);
    }

    let unknown =
        app.post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "semiconductors" })).await;
    let unknown = assert_error(unknown, 400).await;
    assert!(unknown["message"].as_str().is_some_and(|m| m.contains("SOXX")), "{unknown}");
    let bad_range = app
        .post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "AAPL", "time_range": "2W" }))
        .await;
    assert_eq!(assert_error(bad_range, 400).await["detail"]["field"], "time_range");
    let nothing = app.post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "  " })).await;
    assert_eq!(assert_error(nothing, 400).await["detail"]["field"], "query");
}

#[tokio::test]
async fn a_loan_application_is_graded_priced_and_recommended() {
    let mirror = Mirror::new(true);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;

    let response = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Apple Inc.", "loan_amount": 1_000_000_000.0, "loan_type": "revolving", "deal_id": 9 }),
        )
        .await;

    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    let loan = &body["result"]["data"]["loan"];
    assert!(
        ["approve", "approve_with_conditions", "refer", "decline"]
            .contains(&loan["recommendation"].as_str().unwrap_or("")),
        "{loan}"
    );
    assert_eq!(loan["loan_type"], "revolving");
    let leverage =
        body["result"]["metrics"].as_array().expect("metrics").iter().find(|m| m["name"] == "pro_forma_debt_to_ebitda");
    assert!(leverage.is_some_and(|m| m["inputs"].as_array().is_some_and(|i| !i.is_empty())));
    let completed = body["cdm_events"].as_array().and_then(|e| e.last()).expect("completed event").to_string();
    assert!(completed.contains("recommendation"), "the decision is in the CDM event");

    for (request, field) in [
        (json!({ "borrower_name": "Apple Inc.", "loan_amount": 0 }), "loan_amount"),
        (json!({ "borrower_name": "Apple Inc.", "loan_amount": 5e6, "loan_type": "mortgage" }), "loan_type"),
        (json!({ "borrower_name": "Apple Inc." }), "loan_amount"),
        (json!({ "loan_amount": 5e6 }), "borrower_name"),
    ] {
        let error =
            assert_error(app.post("/api/quantitative-analysis/loan-application", Some(&token), &request).await, 400)
                .await;
        assert_eq!(error["detail"]["field"], field, "{request}");
    }
    let unknown = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Zyxwv Nothing", "loan_amount": 5e6 }),
        )
        .await;
    assert_error(unknown, 400).await;
}

async fn app_with_narrator(mirror: &Mirror, llm: &crate::fake_llm::FakeLlm) -> TestApp {
    let dir = mirror.dir.clone();
    let model = creditflow::adapters::llm::OpenAiCompatible::new(
        &llm.base_url,
        "fake-model",
        None,
        std::time::Duration::from_secs(5),
    )
    .expect("adapter");
    spawn_app_with(&[], move |adapters| {
        adapters.financial_data = Some(Arc::new(MirrorFinancialData::new(dir.clone())));
        adapters.prices = Some(Arc::new(CsvMirrorPrices::new(dir)));
        adapters.llm = Some(Arc::new(model));
    })
    .await
}

#[tokio::test]
async fn a_language_model_writes_the_summary_only_from_the_computed_figures() {
    let mirror = Mirror::new(true);
    // The only figure it cites is the leverage, rounded from the computed value.
    let faithful = crate::fake_llm::FakeLlm::answering_text("Apple Inc. carries little debt at 0.88x EBITDA.").await;
    let app = app_with_narrator(&mirror, &faithful).await;
    let token = app.token_for("analyst").await;
    let body: Value = app
        .post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Apple", "ticker": "AAPL" }))
        .await
        .json()
        .await
        .expect("json");
    let leverage = metric(&body["result"], "debt_to_ebitda")["value"].as_f64().expect("leverage");
    assert!((leverage - 0.88).abs() < 0.005, "the fixture's leverage rounds to 0.88: {leverage}");
    assert_eq!(body["result"]["summary"], "Apple Inc. carries little debt at 0.88x EBITDA.");
    assert_eq!(body["result"]["data"]["narrative"]["source"], "llm");
    let prompt = faithful.requests()[0]["messages"][1]["content"].as_str().unwrap_or_default().to_owned();
    assert!(prompt.contains("debt_to_ebitda"), "the model receives the computed figures");

    let inventive = crate::fake_llm::FakeLlm::answering_text("Apple Inc. will grow revenue by 14.2% next year.").await;
    let app = app_with_narrator(&mirror, &inventive).await;
    let token = app.token_for("analyst").await;
    let body: Value = app
        .post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Apple", "ticker": "AAPL" }))
        .await
        .json()
        .await
        .expect("json");
    let narrative = &body["result"]["data"]["narrative"];
    assert_eq!(narrative["source"], "deterministic", "{narrative}");
    assert_eq!(narrative["uncited_numbers"], json!([14.2]));
    assert!(body["result"]["summary"].as_str().is_some_and(|s| s.contains("Debt is") && !s.contains("14.2")));
}

/// A local stand-in for SEC EDGAR serving the fixtures, counting company-facts requests.
async fn fake_edgar() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use warp::Filter;
    let facts_requests = Arc::new(AtomicUsize::new(0));
    let counter = facts_requests.clone();
    let tickers = warp::path!("files" / "company_tickers.json")
        .map(|| std::fs::read_to_string(format!("{FIXTURES}/company_tickers.json")).expect("tickers"));
    let facts = warp::path!("api" / "xbrl" / "companyfacts" / String).map(move |file: String| {
        counter.fetch_add(1, Ordering::SeqCst);
        match std::fs::read_to_string(format!("{FIXTURES}/companyfacts/{file}")) {
            Ok(body) => warp::reply::with_status(body, warp::http::StatusCode::OK),
            Err(_) => warp::reply::with_status(String::new(), warp::http::StatusCode::NOT_FOUND),
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(warp::serve(tickers.or(facts)).incoming(listener).run());
    (format!("http://{address}"), facts_requests)
}

#[tokio::test]
async fn sec_company_facts_are_fetched_over_http_once_and_then_served_from_the_cache() {
    use creditflow::adapters::market::{EdgarClient, EdgarSettings};
    use creditflow::adapters::memory::MemoryResponseCache;
    let (base, facts_requests) = fake_edgar().await;
    let mut settings = EdgarSettings::new("creditflow tests test@example.com");
    settings.tickers_url = format!("{base}/files/company_tickers.json");
    settings.facts_base_url = format!("{base}/api/xbrl/companyfacts");
    let edgar = EdgarClient::new(settings)
        .expect("client")
        .with_facts_cache(Arc::new(MemoryResponseCache::new()), std::time::Duration::from_secs(3600));
    let app = spawn_app_with(&[], move |adapters| adapters.financial_data = Some(Arc::new(edgar))).await;
    let token = app.token_for("analyst").await;

    for _ in 0..2 {
        let response = app
            .post(
                "/api/quantitative-analysis/company",
                Some(&token),
                &json!({ "company_name": "Apple Inc.", "analysis_type": "financial" }),
            )
            .await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("json");
        let provenance = body["result"]["data"]["provenance"].as_array().expect("provenance");
        assert!(provenance.iter().all(|p| p["source_url"].as_str().is_some_and(|u| u.starts_with(&base))));
    }

    assert_eq!(facts_requests.load(std::sync::atomic::Ordering::SeqCst), 1, "the second analysis reads the cache");
}

#[tokio::test]
async fn a_loan_application_is_read_against_the_agreements_of_its_deal() {
    let mirror = Mirror::new(true);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;
    let created: Value = app
        .post(
            "/api/documents",
            Some(&token),
            &json!({ "title": "Apple revolver", "text": crate::documents::AGREEMENT, "deal_id": 31 }),
        )
        .await
        .json()
        .await
        .expect("json");
    let document_id = created["document"]["document_id"].as_i64().expect("document id");

    let body: Value = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Apple Inc.", "loan_amount": 5e8, "deal_id": 31 }),
        )
        .await
        .json()
        .await
        .expect("json");

    let terms = &body["result"]["data"]["loan"]["deal_terms"];
    assert_eq!(terms[0]["document_id"], document_id, "{terms}");
    assert_eq!(terms[0]["facilities"][0]["spread"], "0.0275");
    let pricing: Vec<&Value> = body["result"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["evidence"]["metric"] == "contractual_margin")
        .collect();
    assert_eq!(pricing.len(), 1, "{pricing:?}");
    assert_eq!(pricing[0]["evidence"]["metric"], "contractual_margin");
    assert!(pricing[0]["statement"].as_str().is_some_and(|s| s.contains("2.75%")));

    let other_deal: Value = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Apple Inc.", "loan_amount": 5e8, "deal_id": 32 }),
        )
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(other_deal["result"]["data"]["loan"]["deal_terms"], json!([]));
}
