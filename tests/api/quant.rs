//! The three quantitative analyses (JSON and Server-Sent Events, read by a spec-following SSE
//! client) and the stored results: over the local-mirror adapters with SEC-format fixtures and
//! generated prices, and over the SEC EDGAR, Yahoo and Alpha Vantage adapters talking HTTP to local
//! fake providers (failures, timeouts, five years of daily prices). Expected figures are computed
//! here from the fixtures and the generated series, by other formulas where one exists (TTM as the
//! fiscal year plus this year's quarters less last year's).

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

/// A fresh mirror (with or without company facts), an app over it and an analyst's token.
async fn analyst_on_mirror(with_facts: bool) -> (Mirror, TestApp, String) {
    let mirror = Mirror::new(with_facts);
    let app = app_on(&mirror).await;
    let token = app.token_for("analyst").await;
    (mirror, app, token)
}

/// `GET /api/quantitative-analysis/results/{id}` as JSON.
async fn stored_analysis(app: &TestApp, token: &str, id: &str) -> Value {
    app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(token)).await.json().await.expect("json")
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
    let (mirror, app, token) = analyst_on_mirror(true).await;

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
    let stored = stored_analysis(&app, &token, id).await;
    assert_eq!((stored["status"].as_str(), stored["analysis_type"].as_str()), (Some("completed"), Some("company")));
    assert!(stored["completed_at"].is_string());
    assert_eq!(stored["result"]["metrics"], result["metrics"]);
    let stranger = app.token_for("analyst").await;
    assert_error(app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(&stranger)).await, 404).await;
    let listed: Value =
        app.get("/api/quantitative-analysis/results?deal_id=7", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 1);
}

/// Runs of nine or more digits in `text`: amounts written for machines, not for people.
fn bare_long_integers(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_ascii_digit()).filter(|digits| digits.len() >= 9).collect()
}

#[tokio::test]
async fn a_company_analysis_writes_its_figures_as_an_analyst_reads_them_and_keeps_the_raw_values() {
    let (_mirror, app, token) = analyst_on_mirror(true).await;

    let body: Value = app
        .post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "apple", "ticker": "AAPL" }))
        .await
        .json()
        .await
        .expect("json");
    let result = &body["result"];

    // Apple's fiscal 2023 revenue, 383,285,000,000 in the 10-K: in words with its currency and scale.
    let summary = result["summary"].as_str().expect("summary");
    assert!(summary.contains("Revenue was USD 383.3 bn."), "{summary}");
    assert!(bare_long_integers(summary).is_empty(), "{summary}");
    for finding in result["findings"].as_array().expect("findings") {
        let statement = finding["statement"].as_str().unwrap_or_default();
        assert!(bare_long_integers(statement).is_empty(), "{statement}");
    }
    // Each metric keeps its key and raw value, with the label an analyst writes beside them.
    let revenue = metric(result, "revenue");
    assert_eq!((revenue["value"].as_f64(), revenue["currency"].as_str()), (Some(383_285_000_000.0), Some("USD")));
    for (name, label) in [
        ("revenue", "Revenue"),
        ("ebit", "EBIT"),
        ("ebitda", "EBITDA"),
        ("debt_to_ebitda", "Debt / EBITDA"),
        ("ebit_interest_coverage", "EBIT interest coverage"),
        ("revenue_cagr", "Revenue CAGR"),
        ("period_return", "Period return"),
    ] {
        assert_eq!(metric(result, name)["label"], label, "{}", metric(result, name));
    }
    for metric in result["metrics"].as_array().expect("metrics") {
        assert!(metric["label"].as_str().is_some_and(|l| !l.is_empty() && !l.contains('_')), "{metric}");
        for input in metric["inputs"].as_array().expect("inputs") {
            assert!(input["label"].as_str().is_some_and(|l| !l.contains('_')), "{metric}");
            assert!(input["unit"].is_string(), "{metric}");
        }
    }
    let leverage = metric(result, "debt_to_ebitda");
    assert_eq!(leverage["inputs"][0]["label"], "Total debt", "{leverage}");
    assert!(metric(result, "beta").get("currency").is_none(), "price statistics have no amounts");

    // The OpenAPI document says so.
    let document: Value = app.get("/openapi.json", None).await.json().await.expect("json");
    let label = &document["components"]["schemas"]["AnalysisMetric"]["properties"]["label"];
    assert!(label["description"].as_str().is_some_and(|d| d.contains("analyst")), "{label}");
}

#[tokio::test]
async fn unknown_and_ambiguous_companies_are_400_and_nothing_is_stored() {
    let (_mirror, app, token) = analyst_on_mirror(true).await;

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
    let (_mirror, app, token) = analyst_on_mirror(false).await;

    let response =
        app.post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Apple Inc." })).await;

    let error = assert_error(response, 502).await;
    assert!(error["detail"]["provider"].as_str().is_some_and(|p| p.contains("SEC")), "{error}");
    let id = error["detail"]["analysis_id"].as_str().expect("the failed run's id");
    let stored = stored_analysis(&app, &token, id).await;
    assert_eq!(stored["status"], "failed");
    assert!(stored["error"].is_string() && stored.get("completed_at").is_none());
    cdm_events::record(&stored);
}

#[tokio::test]
async fn bad_company_requests_are_400_naming_the_field() {
    let (_mirror, app, token) = analyst_on_mirror(true).await;
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

/// One dispatched Server-Sent Event: its type, the last event id when it was dispatched, its data
/// parsed as JSON.
#[derive(Debug)]
pub(crate) struct SseEvent {
    pub(crate) event: String,
    pub(crate) id: String,
    pub(crate) data: Value,
}

/// A client-side `text/event-stream` parser following the WHATWG HTML "event stream
/// interpretation": bytes arrive in arbitrary chunks; lines end with CRLF, LF or CR; `:` lines are
/// comments (keep-alives); `field: value` loses one leading space; `data` lines accumulate with LF;
/// a blank line dispatches (nothing when no data); `id` persists across events; an event left
/// incomplete when the stream ends is discarded.
#[derive(Default)]
pub(crate) struct SseClient {
    line: Vec<u8>,
    after_cr: bool,
    started: bool,
    event_type: String,
    data: String,
    last_event_id: String,
    comments: usize,
    pub(crate) dispatched: Vec<SseEvent>,
}

impl SseClient {
    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_complete(&line);
                }
                _ => {
                    self.after_cr = false;
                    self.line.push(byte);
                }
            }
        }
    }

    fn line_complete(&mut self, raw: &[u8]) {
        let mut line = String::from_utf8(raw.to_vec()).expect("event streams are UTF-8");
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_owned();
            }
        }
        if line.is_empty() {
            self.dispatch();
            return;
        }
        if line.starts_with(':') {
            self.comments += 1;
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => self.event_type = value.to_owned(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => self.last_event_id = value.to_owned(),
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        let event_type = std::mem::take(&mut self.event_type);
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        let event = if event_type.is_empty() { "message".to_owned() } else { event_type };
        let data = serde_json::from_str(&data).unwrap_or_else(|e| panic!("event data is JSON ({e}): {data}"));
        self.dispatched.push(SseEvent { event, id: self.last_event_id.clone(), data });
    }

    /// Reads `response` chunk by chunk as it arrives, until the server ends the stream.
    pub(crate) async fn read_all(mut response: reqwest::Response) -> Self {
        let mut client = Self::default();
        while let Some(chunk) = response.chunk().await.expect("stream chunk") {
            client.feed(&chunk);
        }
        client
    }
}

#[test]
fn the_sse_client_follows_the_event_stream_rules() {
    let mut client = SseClient::default();
    for chunk in [
        "\u{feff}: keep-alive\r\nevent: progress\r",
        "\nid: 1\ndata: {\"a\":\n",
        "data:1}\r\r",
        "data: {}\n\nid: 2\ndata: {\"b\":2}",
    ] {
        client.feed(chunk.as_bytes());
    }

    let [first, second] = client.dispatched.as_slice() else { panic!("{:?}", client.dispatched) };
    assert_eq!((first.event.as_str(), first.id.as_str()), ("progress", "1"));
    assert_eq!(first.data, json!({ "a": 1 }), "data lines join with LF, one leading space dropped");
    assert_eq!((second.event.as_str(), second.id.as_str()), ("message", "1"), "type resets, id persists");
    assert_eq!(second.data, json!({}));
    assert_eq!(client.comments, 1);
    // The last event has no blank line after it: discarded at the end of the stream.
}

/// The stream's events, checked against the spec's shape: `started` first with the analysis id,
/// `progress` events with strictly increasing percent, `completed` (or `error`) last; `event:` is
/// the payload's `type`, `id:` counts from 0.
fn assert_stream_shape(events: &[SseEvent], last: &str) {
    let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"started"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&last), "{kinds:?}");
    assert!(kinds[1..kinds.len() - 1].iter().all(|k| *k == "progress"), "{kinds:?}");
    let ids: Vec<String> = events.iter().map(|e| e.id.clone()).collect();
    assert_eq!(ids, (0..events.len()).map(|i| i.to_string()).collect::<Vec<_>>());
    for event in events {
        assert_eq!(event.data["type"], event.event.as_str(), "{event:?}");
    }
    let percents: Vec<f64> = events
        .iter()
        .filter(|e| e.event == "progress")
        .map(|e| e.data["data"]["progress"].as_f64().expect("percent"))
        .collect();
    assert!(percents.windows(2).all(|w| w[0] < w[1]), "strictly increasing: {percents:?}");
    for event in events.iter().filter(|e| e.event == "progress") {
        assert!(event.data["data"]["step"].is_string() && event.data["data"]["message"].is_string(), "{event:?}");
    }
    assert!(events[0].data["data"]["analysis_id"].is_string() && events[0].data["data"]["message"].is_string());
}

#[tokio::test]
async fn the_stream_reports_started_progress_and_completed_in_order() {
    let (_mirror, app, token) = analyst_on_mirror(true).await;

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
    let events = SseClient::read_all(response).await.dispatched;
    assert_stream_shape(&events, "completed");
    let steps: Vec<&str> = events.iter().filter_map(|e| e.data["data"]["step"].as_str()).collect();
    assert_eq!(steps, ["fetch_statements", "fetch_prices", "compute", "rate", "narrate", "store"]);
    let completed = &events[events.len() - 1].data["data"];
    let id = completed["analysis_id"].as_str().expect("id");
    assert_eq!(events[0].data["data"]["analysis_id"], id);
    assert!(completed["result"]["summary"].is_string());
    cdm_events::record(completed);
    let stored = stored_analysis(&app, &token, id).await;
    assert_eq!(stored["status"], "completed");
    assert_eq!(stored["result"], completed["result"]);
}

#[tokio::test]
async fn a_market_analysis_compares_the_named_instruments_with_the_benchmark() {
    let (mirror, app, token) = analyst_on_mirror(true).await;

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
        let aapl_return = symbol_metric(result, "AAPL", "period_return");
        let window = &mirror.aapl[mirror.aapl.len() - 127..];
        assert!((aapl_return - (window[126] / window[0] - 1.0)).abs() < 1e-9);
        // The closes behind the figures are in the result: AAPL's are the mirror's window, and the
        // maximum drawdown recomputed from them is the one stated.
        let prices = result["data"]["prices"].as_array().expect("prices");
        assert_eq!(prices.iter().map(|p| p["symbol"].as_str()).collect::<Vec<_>>(), [Some("AAPL"), Some("SPY")]);
        let closes: Vec<f64> = prices[0]["closes"]
            .as_array()
            .expect("closes")
            .iter()
            .map(|pair| pair[1].as_f64().expect("close"))
            .collect();
        assert_eq!(closes, window, "{query}");
        assert!(prices[0]["closes"][0][0].as_str().is_some_and(|d| d.len() == 10), "[date, close]");
        let deepest = closes
            .iter()
            .scan(f64::MIN, |peak, &close| {
                *peak = peak.max(close);
                Some(close / *peak - 1.0)
            })
            .fold(0.0_f64, f64::min);
        assert!((deepest - symbol_metric(result, "AAPL", "max_drawdown")).abs() < 1e-12, "{query}");
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
    let (_mirror, app, token) = analyst_on_mirror(true).await;

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
    let leverage = metric(&body["result"], "pro_forma_debt_to_ebitda");
    assert!(leverage["inputs"].as_array().is_some_and(|i| !i.is_empty()), "{leverage}");
    let completed = body["cdm_events"].as_array().and_then(|e| e.last()).expect("completed event").to_string();
    assert!(completed.contains("recommendation"), "the decision is in the CDM event");

    for (request, field) in [
        (json!({ "borrower_name": "Apple Inc.", "loan_amount": 0 }), "loan_amount"),
        (json!({ "borrower_name": "Apple Inc.", "loan_amount": 1e300 }), "loan_amount"),
        (json!({ "borrower_name": "Apple Inc.", "loan_amount": 1.000_000_1e12 }), "loan_amount"),
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
    assert!(
        prompt.contains("- Debt / EBITDA: 0.88×") && prompt.contains("- Revenue: USD 383.3 bn"),
        "the model receives the computed figures, written as they are to be written: {prompt}"
    );

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
    let (_mirror, app, token) = analyst_on_mirror(true).await;
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

// ---- quarters and trailing twelve months ----

/// The value of the fixture fact `us-gaap:<tag>` of `cik` for `start..=end` (an instant when `start` is
/// `None`), from the latest filing that reports it.
fn fixture_fact(cik: &str, tag: &str, start: Option<&str>, end: &str) -> f64 {
    let path = format!("{FIXTURES}/companyfacts/CIK{cik}.json");
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json");
    document["facts"]["us-gaap"][tag]["units"]["USD"]
        .as_array()
        .expect("facts")
        .iter()
        .filter(|f| f["end"] == end && f["start"].as_str() == start)
        .max_by_key(|f| f["filed"].as_str().unwrap_or_default().to_owned())
        .and_then(|f| f["val"].as_f64())
        .unwrap_or_else(|| panic!("no {tag} {start:?}..{end} in {path}"))
}

fn metric_value(result: &Value, name: &str) -> f64 {
    metric(result, name)["value"].as_f64().unwrap_or_else(|| panic!("no metric {name}: {}", result["metrics"]))
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!((actual - expected).abs() <= 1e-9 * expected.abs().max(1.0), "{what}: {actual} vs {expected}");
}

#[tokio::test]
async fn a_company_analysis_reports_trailing_twelve_months_from_the_latest_quarters() {
    let (_mirror, app, token) = analyst_on_mirror(true).await;
    let analyse = |name: &'static str| {
        let (app, token) = (&app, &token);
        async move {
            let response = app
                .post(
                    "/api/quantitative-analysis/company",
                    Some(token),
                    &json!({ "company_name": name, "analysis_type": "financial" }),
                )
                .await;
            assert_eq!(response.status(), 200, "{name}");
            let body: Value = response.json().await.expect("json");
            body["result"].clone()
        }
    };

    let apple = analyse("Apple Inc.").await;

    // TTM to 2023-12-30, computed the other way round: the fiscal year, plus this year's first
    // quarter, less last year's.
    const APPLE: &str = "0000320193";
    let (fy, q1_fy23, q1_fy24) =
        ((Some("2022-09-25"), "2023-09-30"), (Some("2022-09-25"), "2022-12-31"), (Some("2023-10-01"), "2023-12-30"));
    let ttm = |tag: &str| {
        fixture_fact(APPLE, tag, fy.0, fy.1) - fixture_fact(APPLE, tag, q1_fy23.0, q1_fy23.1)
            + fixture_fact(APPLE, tag, q1_fy24.0, q1_fy24.1)
    };
    let revenue = ttm("RevenueFromContractWithCustomerExcludingAssessedTax");
    let ebitda = ttm("OperatingIncomeLoss") + ttm("DepreciationDepletionAndAmortization");
    let debt: f64 = ["LongTermDebtNoncurrent", "LongTermDebtCurrent", "CommercialPaper"]
        .iter()
        .map(|tag| fixture_fact(APPLE, tag, None, "2023-12-30"))
        .sum();
    assert_close(metric_value(&apple, "ttm_revenue"), revenue, "ttm_revenue");
    assert_close(metric_value(&apple, "ttm_ebitda"), ebitda, "ttm_ebitda");
    assert_close(metric_value(&apple, "ttm_net_income"), ttm("NetIncomeLoss"), "ttm_net_income");
    assert_close(metric_value(&apple, "ttm_debt_to_ebitda"), debt / ebitda, "ttm_debt_to_ebitda");
    // The annual leverage keeps its fiscal-year meaning.
    let fy_debt: f64 = ["LongTermDebtNoncurrent", "LongTermDebtCurrent", "CommercialPaper"]
        .iter()
        .map(|tag| fixture_fact(APPLE, tag, None, "2023-09-30"))
        .sum();
    let fy_ebitda = fixture_fact(APPLE, "OperatingIncomeLoss", fy.0, fy.1)
        + fixture_fact(APPLE, "DepreciationDepletionAndAmortization", fy.0, fy.1);
    assert_close(metric_value(&apple, "debt_to_ebitda"), fy_debt / fy_ebitda, "debt_to_ebitda");

    let data = &apple["data"];
    assert_eq!(data["ttm"]["period_end"], "2023-12-30");
    assert_eq!(data["ttm"]["quarter_ends"], json!(["2023-12-30", "2023-09-30", "2023-07-01", "2023-04-01"]));
    let quarters = data["quarterly"]["quarters"].as_array().expect("quarters");
    assert_eq!(quarters.len(), 5);
    assert_eq!(quarters[1]["source"], "derived_fourth_quarter");
    let provenance = data["quarterly"]["provenance"].as_array().expect("quarterly provenance");
    let q4_revenue = provenance
        .iter()
        .find(|p| p["quarter_end"] == "2023-09-30" && p["line"] == "revenue")
        .expect("provenance of the derived fourth quarter");
    assert_eq!(q4_revenue["accession_number"], "0000320193-23-000106");
    assert!(q4_revenue["derivation"].as_str().is_some_and(|d| d.starts_with("fourth quarter = fiscal year")));
    let methodology = data["methodology"].as_array().expect("methodology");
    assert!(methodology.iter().any(|m| m.as_str().is_some_and(|m| m.starts_with("Trailing twelve months"))));

    let leverco = analyse("Leverco Holdings").await;
    const LEVERCO: &str = "0001900001";
    let half = |year: &str| fixture_fact(LEVERCO, "Revenues", Some(&format!("{year}-01-01")), &format!("{year}-06-30"));
    let revenue = fixture_fact(LEVERCO, "Revenues", Some("2023-01-01"), "2023-12-31") + half("2024") - half("2023");
    assert_close(metric_value(&leverco, "ttm_revenue"), revenue, "Leverco ttm_revenue");
    let quarter = |start: &str, end: &str| fixture_fact(LEVERCO, "NetIncomeLoss", Some(start), end);
    let net_income = fixture_fact(LEVERCO, "NetIncomeLoss", Some("2023-01-01"), "2023-12-31")
        - quarter("2023-01-01", "2023-03-31")
        - quarter("2023-04-01", "2023-06-30")
        + quarter("2024-01-01", "2024-03-31")
        + quarter("2024-04-01", "2024-06-30");
    assert_close(metric_value(&leverco, "ttm_net_income"), net_income, "Leverco ttm_net_income (the 10-K/A year)");
    assert!(net_income < 0.0, "a trailing net loss in the fixture");

    let fallback = analyse("Fallback Widgets").await;
    assert!(metric(&fallback, "ttm_revenue").is_null(), "no TTM across a missing fourth quarter");
    assert_eq!(fallback["data"]["ttm"]["computed"], false);
    assert!(fallback["data"]["ttm"]["reason"].as_str().is_some_and(|r| r.contains("not consecutive")));
    let left_out = fallback["data"]["quarterly"]["left_out"].as_array().expect("left_out");
    assert!(
        left_out.iter().any(|n| n.as_str().is_some_and(|n| n.contains("2022-07-01 to 2023-06-30"))),
        "{left_out:?}"
    );
    let missing = fallback["data"]["missing_inputs"].as_array().expect("missing_inputs");
    assert!(missing.iter().any(|m| m.as_str().is_some_and(|m| m.starts_with("ttm_*:"))), "{missing:?}");
}

// ---- fake providers over HTTP ----

/// ~5.2 years of weekday closes (1,350) from 2020-01-01 following a deterministic wave.
fn five_year_series(drift: f64, amplitude: f64, phase: f64) -> Vec<(time::Date, f64)> {
    let mut day = time::macros::date!(2020 - 01 - 01);
    let (mut close, mut series) = (100.0, Vec::new());
    let mut i = 0.0_f64;
    while series.len() < 1_350 {
        day = day.next_day().expect("date");
        if matches!(day.weekday(), time::Weekday::Saturday | time::Weekday::Sunday) {
            continue;
        }
        i += 1.0;
        close *= 1.0 + drift + amplitude * ((i * 0.37 + phase).sin() + 0.5 * (i * 1.13).cos());
        series.push((day, close));
    }
    series
}

/// What a fake provider does to each request.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Behaviour {
    Serve,
    /// Answer this status with an HTML error page.
    Fail(u16),
    /// Serve after this long.
    Slow(std::time::Duration),
}

/// Local stand-ins for SEC EDGAR (`company_tickers.json`, `companyfacts`, from the fixtures), Yahoo's
/// chart API and Alpha Vantage (from generated series), each with a switchable behaviour.
struct FakeProviders {
    base: String,
    behaviour: Arc<std::sync::Mutex<std::collections::HashMap<&'static str, Behaviour>>>,
    requests: Arc<std::sync::Mutex<Vec<String>>>,
    series: Arc<std::collections::HashMap<String, Vec<(time::Date, f64)>>>,
}

impl FakeProviders {
    async fn start() -> Self {
        use warp::Filter;
        let series: Arc<std::collections::HashMap<String, Vec<(time::Date, f64)>>> = Arc::new(
            [("AAPL", five_year_series(0.0006, 0.011, 0.0)), ("SPY", five_year_series(0.0003, 0.007, 0.4))]
                .into_iter()
                .map(|(symbol, series)| (symbol.to_owned(), series))
                .collect(),
        );
        let behaviour = Arc::new(std::sync::Mutex::new(std::collections::HashMap::new()));
        let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (state, log, prices) = (behaviour.clone(), requests.clone(), series.clone());
        let route = warp::path::full().and(warp::query::raw().or(warp::any().map(String::new)).unify()).then(
            move |path: warp::path::FullPath, query: String| {
                let (state, log, prices) = (state.clone(), log.clone(), prices.clone());
                async move {
                    let path = path.as_str().to_owned();
                    log.lock().expect("log").push(format!("{path}?{query}"));
                    let provider = if path.starts_with("/v8/finance/chart/") {
                        "yahoo"
                    } else if path == "/query" {
                        "alphavantage"
                    } else {
                        "sec"
                    };
                    let behaviour = state.lock().expect("state").get(provider).copied().unwrap_or(Behaviour::Serve);
                    match behaviour {
                        Behaviour::Fail(status) => {
                            return warp::http::Response::builder()
                                .status(status)
                                .header("content-type", "text/html")
                                .body("<html>upstream error</html>".to_owned())
                                .expect("response");
                        }
                        Behaviour::Slow(delay) => tokio::time::sleep(delay).await,
                        Behaviour::Serve => {}
                    }
                    let (status, body) = match provider {
                        "yahoo" => yahoo_chart(&prices, path.trim_start_matches("/v8/finance/chart/")),
                        "alphavantage" => alpha_vantage_daily(&prices, &query),
                        _ => sec_file(&path),
                    };
                    warp::http::Response::builder()
                        .status(status)
                        .header("content-type", "application/json")
                        .body(body)
                        .expect("response")
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(warp::serve(route).incoming(listener).run());
        Self { base: format!("http://{address}"), behaviour, requests, series }
    }

    fn set(&self, provider: &'static str, behaviour: Behaviour) {
        self.behaviour.lock().expect("state").insert(provider, behaviour);
    }

    fn requests_to(&self, prefix: &str) -> usize {
        self.requests.lock().expect("log").iter().filter(|r| r.starts_with(prefix)).count()
    }

    fn closes(&self, symbol: &str) -> Vec<f64> {
        self.series[symbol].iter().map(|(_, close)| *close).collect()
    }

    fn edgar(&self, timeout: std::time::Duration) -> creditflow::adapters::market::EdgarClient {
        use creditflow::adapters::market::{EdgarClient, EdgarSettings};
        EdgarClient::new(EdgarSettings {
            tickers_url: format!("{}/files/company_tickers.json", self.base),
            facts_base_url: format!("{}/api/xbrl/companyfacts", self.base),
            timeout,
            max_requests_per_second: 1000,
            retry_base_delay: std::time::Duration::from_millis(2),
            ..EdgarSettings::new("creditflow tests test@example.com")
        })
        .expect("edgar")
    }

    fn fast_retries() -> creditflow::adapters::market::prices::RetryPolicy {
        creditflow::adapters::market::prices::RetryPolicy {
            max_attempts: 3,
            base_delay: std::time::Duration::from_millis(2),
            max_delay: std::time::Duration::from_millis(5),
        }
    }

    fn yahoo(&self, timeout: std::time::Duration) -> creditflow::adapters::market::YahooChart {
        use creditflow::adapters::market::{YahooChart, YahooSettings};
        let settings =
            YahooSettings { chart_url: format!("{}/v8/finance/chart", self.base), timeout, ..YahooSettings::default() };
        YahooChart::new(&settings).expect("yahoo").with_retry_policy(Self::fast_retries())
    }

    fn alpha_vantage(&self) -> creditflow::adapters::market::AlphaVantage {
        use creditflow::adapters::market::{AlphaVantage, AlphaVantageSettings};
        let mut settings = AlphaVantageSettings::with_key(creditflow::config::Secret::new("av-test-key".to_owned()));
        settings.base_url = format!("{}/query", self.base);
        AlphaVantage::new(&settings).expect("alpha vantage").with_retry_policy(Self::fast_retries())
    }

    /// The service with EDGAR and Yahoo (or Alpha Vantage) pointed at this server, 2 s timeouts.
    async fn app(&self, alpha_vantage: bool) -> TestApp {
        self.app_with_timeout(alpha_vantage, std::time::Duration::from_secs(2)).await
    }

    async fn app_with_timeout(&self, alpha_vantage: bool, timeout: std::time::Duration) -> TestApp {
        let edgar = self.edgar(timeout);
        let prices: Arc<dyn creditflow::ports::price_history::PriceHistory> =
            if alpha_vantage { Arc::new(self.alpha_vantage()) } else { Arc::new(self.yahoo(timeout)) };
        spawn_app_with(&[], move |adapters| {
            adapters.financial_data = Some(Arc::new(edgar));
            adapters.prices = Some(prices);
        })
        .await
    }
}

/// Fresh fake providers, the service pointed at them (Alpha Vantage or Yahoo for prices) and an
/// analyst's token.
async fn analyst_on_providers(alpha_vantage: bool) -> (FakeProviders, TestApp, String) {
    let providers = FakeProviders::start().await;
    let app = providers.app(alpha_vantage).await;
    let token = app.token_for("analyst").await;
    (providers, app, token)
}

fn sec_file(path: &str) -> (u16, String) {
    let file = if path == "/files/company_tickers.json" {
        Some(format!("{FIXTURES}/company_tickers.json"))
    } else {
        path.strip_prefix("/api/xbrl/companyfacts/").map(|name| format!("{FIXTURES}/companyfacts/{name}"))
    };
    match file.and_then(|file| std::fs::read_to_string(file).ok()) {
        Some(body) => (200, body),
        None => (404, r#"{"message":"Not Found"}"#.to_owned()),
    }
}

/// Yahoo's chart JSON for `symbol`: sessions at 14:30 UTC (09:30 New York), adjusted and raw closes.
fn yahoo_chart(series: &std::collections::HashMap<String, Vec<(time::Date, f64)>>, symbol: &str) -> (u16, String) {
    let Some(points) = series.get(symbol) else {
        let body = r#"{"chart":{"result":null,"error":{"code":"Not Found","description":"No data found, symbol may be delisted"}}}"#;
        return (404, body.to_owned());
    };
    let timestamps: Vec<i64> =
        points.iter().map(|(day, _)| day.with_hms(14, 30, 0).expect("time").assume_utc().unix_timestamp()).collect();
    let closes: Vec<f64> = points.iter().map(|(_, close)| *close).collect();
    let body = json!({ "chart": { "result": [{
        "meta": { "currency": "USD", "symbol": symbol, "gmtoffset": -18000, "timezone": "EST", "exchangeTimezoneName": "America/New_York" },
        "timestamp": timestamps,
        "indicators": { "quote": [{ "close": closes }], "adjclose": [{ "adjclose": closes }] },
    }], "error": null } });
    (200, body.to_string())
}

/// Alpha Vantage's `TIME_SERIES_DAILY_ADJUSTED` answer; its `Error Message` (with HTTP 200) for an
/// unknown symbol.
fn alpha_vantage_daily(
    series: &std::collections::HashMap<String, Vec<(time::Date, f64)>>,
    query: &str,
) -> (u16, String) {
    let symbol = query.split('&').find_map(|pair| pair.strip_prefix("symbol=")).unwrap_or_default();
    let Some(points) = series.get(symbol) else {
        return (
            200,
            json!({ "Error Message": "Invalid API call. Please retry or visit the documentation." }).to_string(),
        );
    };
    let days: serde_json::Map<String, Value> = points
        .iter()
        .map(|(day, close)| {
            (day.to_string(), json!({ "4. close": format!("{close}"), "5. adjusted close": format!("{close}") }))
        })
        .collect();
    (200, json!({ "Meta Data": { "2. Symbol": symbol }, "Time Series (Daily)": days }).to_string())
}

/// Period return, annualised volatility of log returns (sample, ×√252) and maximum drawdown of the
/// last `returns + 1` closes.
fn window_statistics(closes: &[f64], returns: usize) -> (f64, f64, f64) {
    let window = &closes[closes.len() - returns - 1..];
    let logs: Vec<f64> = window.windows(2).map(|w| (w[1] / w[0]).ln()).collect();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    let variance = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (logs.len() - 1) as f64;
    let mut peak = f64::MIN;
    let mut drawdown = 0.0_f64;
    for &close in window {
        peak = peak.max(close);
        drawdown = drawdown.min(close / peak - 1.0);
    }
    (window[returns] / window[0] - 1.0, variance.sqrt() * 252f64.sqrt(), drawdown)
}

fn symbol_metric(result: &Value, symbol: &str, name: &str) -> f64 {
    result["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .find(|m| m["symbol"] == symbol && m["name"] == name)
        .and_then(|m| m["value"].as_f64())
        .unwrap_or_else(|| panic!("no {symbol} {name}"))
}

#[tokio::test]
async fn all_three_analyses_run_against_fake_edgar_and_yahoo_servers() {
    let (providers, app, token) = analyst_on_providers(false).await;

    let company: Value = app
        .post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "apple", "ticker": "AAPL" }))
        .await
        .json()
        .await
        .expect("json");
    let result = &company["result"];
    let provenance = result["data"]["provenance"].as_array().expect("provenance");
    assert!(provenance.iter().all(|p| p["source_url"].as_str().is_some_and(|u| u.starts_with(&providers.base))));
    let (one_year_return, one_year_volatility, _) = window_statistics(&providers.closes("AAPL"), 252);
    assert_close(metric_value(result, "period_return"), one_year_return, "1Y return");
    assert_close(metric_value(result, "annualised_volatility"), one_year_volatility, "1Y volatility");
    assert!(metric_value(result, "ttm_revenue") > 0.0);
    cdm_events::record(&company);

    // Five years of daily prices: the 5Y window is the last 1,260 returns.
    let market = app
        .post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "AAPL", "time_range": "5Y" }))
        .await;
    assert_eq!(market.status(), 200);
    let market: Value = market.json().await.expect("json");
    let result = &market["result"];
    for symbol in ["AAPL", "SPY"] {
        let (period_return, volatility, drawdown) = window_statistics(&providers.closes(symbol), 1_260);
        assert_close(symbol_metric(result, symbol, "period_return"), period_return, "5Y return");
        assert_close(symbol_metric(result, symbol, "annualised_volatility"), volatility, "5Y volatility");
        assert_close(symbol_metric(result, symbol, "max_drawdown"), drawdown, "5Y drawdown");
    }
    // Beta on simple returns of the same dates (both series share every date here).
    let simple = |symbol: &str| -> Vec<f64> {
        let closes = providers.closes(symbol);
        closes[closes.len() - 1_261..].windows(2).map(|w| w[1] / w[0] - 1.0).collect()
    };
    let (stock, benchmark) = (simple("AAPL"), simple("SPY"));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (ms, mb) = (mean(&stock), mean(&benchmark));
    let covariance: f64 = stock.iter().zip(&benchmark).map(|(s, b)| (s - ms) * (b - mb)).sum();
    let variance: f64 = benchmark.iter().map(|b| (b - mb).powi(2)).sum();
    assert!((symbol_metric(result, "AAPL", "beta") - covariance / variance).abs() < 1e-9);
    cdm_events::record(&market);

    let loan = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Leverco Holdings", "loan_amount": 250_000_000.0, "loan_type": "term_loan" }),
        )
        .await;
    assert_eq!(loan.status(), 200);
    let loan: Value = loan.json().await.expect("json");
    assert_eq!(loan["result"]["data"]["loan"]["recommendation"], "decline", "7x levered before the new debt");
    cdm_events::record(&loan);

    assert_eq!(providers.requests_to("/files/company_tickers.json"), 1, "the ticker list is fetched once");
    assert!(providers.requests_to("/v8/finance/chart/AAPL") >= 2);
}

#[tokio::test]
async fn alpha_vantage_serves_the_prices_when_it_is_configured() {
    let (providers, app, token) = analyst_on_providers(true).await;

    let response = app
        .post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "$AAPL", "time_range": "1Y" }))
        .await;

    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    let (period_return, volatility, drawdown) = window_statistics(&providers.closes("AAPL"), 252);
    assert_close(symbol_metric(&body["result"], "AAPL", "period_return"), period_return, "return");
    assert_close(symbol_metric(&body["result"], "AAPL", "annualised_volatility"), volatility, "volatility");
    assert_close(symbol_metric(&body["result"], "AAPL", "max_drawdown"), drawdown, "drawdown");
    assert!(providers.requests_to("/query?function=TIME_SERIES_DAILY_ADJUSTED&symbol=AAPL") >= 1);
    assert_eq!(providers.requests_to("/v8/finance/chart"), 0, "Yahoo is not asked");

    let unknown = app.post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "$ZZZZ" })).await;
    let unknown = assert_error(unknown, 400).await;
    assert!(unknown["message"].as_str().is_some_and(|m| m.contains("ZZZZ")), "{unknown}");
}

#[tokio::test]
async fn leveraged_loss_making_and_fallback_companies_get_independently_checked_figures() {
    let (_providers, app, token) = analyst_on_providers(false).await;
    let analyse = |name: &'static str| {
        let (app, token) = (&app, &token);
        async move {
            let response =
                app.post("/api/quantitative-analysis/company", Some(token), &json!({ "company_name": name })).await;
            assert_eq!(response.status(), 200, "{name}");
            response.json::<Value>().await.expect("json")["result"].clone()
        }
    };
    let concern_on = |result: &Value, metric: &str| {
        result["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["severity"] == "concern" && f["evidence"]["metric"] == metric)
    };

    // Leverco, FY2023: long-term debt 2,600 (current portion included) + short-term borrowings 200,
    // over EBITDA 250 + 150 (millions).
    let leverco = analyse("Leverco Holdings").await;
    let debt = fixture_fact("0001900001", "LongTermDebt", None, "2023-12-31")
        + fixture_fact("0001900001", "ShortTermBorrowings", None, "2023-12-31");
    let ebitda = fixture_fact("0001900001", "OperatingIncomeLoss", Some("2023-01-01"), "2023-12-31")
        + fixture_fact("0001900001", "DepreciationDepletionAndAmortization", Some("2023-01-01"), "2023-12-31");
    assert_close(metric_value(&leverco, "debt_to_ebitda"), debt / ebitda, "Leverco leverage");
    assert_close(debt / ebitda, 7.0, "the fixture is 7x levered");
    assert!(concern_on(&leverco, "debt_to_ebitda"), "{}", leverco["findings"]);
    let interest = fixture_fact("0001900001", "InterestExpense", Some("2023-01-01"), "2023-12-31");
    assert_close(metric_value(&leverco, "ebitda_interest_coverage"), ebitda / interest, "Leverco coverage");
    assert!(
        leverco["data"]["missing_inputs"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m.as_str().is_some_and(|m| m.contains("LVRG has no price history"))))
    );

    // Lossmaker: a net loss, and no D&A, so no EBITDA and no leverage.
    let lossmaker = analyse("Lossmaker Therapeutics").await;
    let loss = fixture_fact("0001900003", "NetIncomeLoss", Some("2023-01-01"), "2023-12-31");
    assert_close(metric_value(&lossmaker, "net_income"), loss, "net loss");
    assert!(loss < 0.0);
    assert!(concern_on(&lossmaker, "net_income") || concern_on(&lossmaker, "net_margin"), "{}", lossmaker["findings"]);
    assert!(metric(&lossmaker, "debt_to_ebitda").is_null() && metric(&lossmaker, "ebitda").is_null());
    let ebit = fixture_fact("0001900003", "OperatingIncomeLoss", Some("2023-01-01"), "2023-12-31");
    let revenue = fixture_fact("0001900003", "Revenues", Some("2023-01-01"), "2023-12-31");
    assert_close(metric_value(&lossmaker, "ebit_margin"), ebit / revenue, "operating loss margin");

    // Fallback Widgets: revenue under RevenueFromContractWithCustomerExcludingAssessedTax, interest under
    // InterestExpenseNonoperating, liabilities derived from the balance-sheet identity.
    let fallback = analyse("Fallback Widgets").await;
    let ebit = fixture_fact("0001900002", "OperatingIncomeLoss", Some("2022-07-01"), "2023-06-30");
    let interest = fixture_fact("0001900002", "InterestExpenseNonoperating", Some("2022-07-01"), "2023-06-30");
    assert_close(metric_value(&fallback, "ebit_interest_coverage"), ebit / interest, "coverage via the fallback tag");
    let provenance = fallback["data"]["provenance"].as_array().expect("provenance");
    let liabilities = provenance
        .iter()
        .find(|p| p["fiscal_year_end"] == "2023-06-30" && p["line"] == "total_liabilities")
        .expect("derived liabilities");
    let expected = fixture_fact("0001900002", "LiabilitiesAndStockholdersEquity", None, "2023-06-30")
        - fixture_fact("0001900002", "StockholdersEquity", None, "2023-06-30");
    assert_close(liabilities["value"].as_f64().expect("value"), expected, "derived liabilities");
    assert!(liabilities["derivation"].is_string());
}

#[tokio::test]
async fn provider_5xx_answers_are_502s_naming_the_provider() {
    let (providers, app, token) = analyst_on_providers(false).await;

    // SEC fails while the company is being resolved: nothing is stored.
    providers.set("sec", Behaviour::Fail(500));
    let error = assert_error(
        app.post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Apple Inc." })).await,
        502,
    )
    .await;
    assert_eq!(error["detail"]["provider"], "SEC EDGAR", "{error}");
    assert_eq!(error["detail"]["analysis_id"], Value::Null);
    assert_eq!(providers.requests_to("/files/company_tickers.json"), 3, "three attempts");
    let loan = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Apple Inc.", "loan_amount": 1e6 }),
        )
        .await;
    assert_eq!(assert_error(loan, 502).await["detail"]["provider"], "SEC EDGAR");
    let listed: Value = app.get("/api/quantitative-analysis/results", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 0);

    // SEC answers, Yahoo fails during the run: the run is stored as failed.
    providers.set("sec", Behaviour::Serve);
    providers.set("yahoo", Behaviour::Fail(503));
    let error = assert_error(
        app.post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Apple Inc." })).await,
        502,
    )
    .await;
    assert_eq!(error["detail"]["provider"], "yahoo", "{error}");
    let id = error["detail"]["analysis_id"].as_str().expect("the failed run");
    let stored = stored_analysis(&app, &token, id).await;
    assert_eq!(stored["status"], "failed");
    assert!(stored["error"].as_str().is_some_and(|e| e.contains("yahoo")), "{stored}");
    cdm_events::record(&stored);

    let market = app.post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "AAPL" })).await;
    assert_eq!(assert_error(market, 502).await["detail"]["provider"], "yahoo");
}

#[tokio::test]
async fn slow_providers_time_out_as_502s() {
    let providers = FakeProviders::start().await;
    let app = providers.app_with_timeout(false, std::time::Duration::from_millis(300)).await;
    let token = app.token_for("analyst").await;

    providers.set("sec", Behaviour::Slow(std::time::Duration::from_secs(3)));
    let started = std::time::Instant::now();
    let error = assert_error(
        app.post("/api/quantitative-analysis/company", Some(&token), &json!({ "company_name": "Apple Inc." })).await,
        502,
    )
    .await;
    assert_eq!(error["detail"]["provider"], "SEC EDGAR");
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "a timeout is not waited out nor retried");

    providers.set("sec", Behaviour::Serve);
    providers.set("yahoo", Behaviour::Slow(std::time::Duration::from_secs(3)));
    let market = app.post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "AAPL" })).await;
    let error = assert_error(market, 502).await;
    assert_eq!(error["detail"]["provider"], "yahoo");
}

#[tokio::test]
async fn every_bad_enum_amount_and_type_is_a_400_naming_the_field() {
    let (providers, app, token) = analyst_on_providers(false).await;
    let cases = [
        ("company", json!({ "company_name": "Apple", "analysis_type": "astrology" }), "analysis_type"),
        ("company", json!({ "company_name": "Apple", "analysis_type": "Financial" }), "analysis_type"),
        ("company", json!({ "company_name": 42 }), "company_name"),
        ("company", json!({ "company_name": "Apple", "ticker": 7 }), "ticker"),
        ("company", json!({ "company_name": "Apple", "deal_id": "seven" }), "deal_id"),
        ("company", json!({ "company_name": "Apple", "deal_id": 0 }), "deal_id"),
        ("company", json!({ "company_name": "Apple", "stream": 1 }), "stream"),
        ("company", json!({ "company_name": "Apple", "colour": "red" }), "colour"),
        ("market", json!({ "query": "AAPL", "time_range": "2W" }), "time_range"),
        ("market", json!({ "query": "AAPL", "time_range": "1y" }), "time_range"),
        ("market", json!({ "query": "AAPL", "time_range": 3 }), "time_range"),
        ("market", json!({ "query": ["AAPL"] }), "query"),
        ("market", json!({ "time_range": "1M" }), "query"),
        ("market", json!({ "query": "AAPL", "deal_id": -1 }), "deal_id"),
        ("loan-application", json!({ "borrower_name": "Apple Inc.", "loan_amount": 0 }), "loan_amount"),
        ("loan-application", json!({ "borrower_name": "Apple Inc.", "loan_amount": -5e6 }), "loan_amount"),
        ("loan-application", json!({ "borrower_name": "Apple Inc.", "loan_amount": "5000000" }), "loan_amount"),
        ("loan-application", json!({ "borrower_name": "Apple Inc.", "loan_amount": null }), "loan_amount"),
        (
            "loan-application",
            json!({ "borrower_name": "Apple Inc.", "loan_amount": 5e6, "loan_type": "mortgage" }),
            "loan_type",
        ),
        (
            "loan-application",
            json!({ "borrower_name": "Apple Inc.", "loan_amount": 5e6, "loan_type": "TERM_LOAN" }),
            "loan_type",
        ),
        ("loan-application", json!({ "borrower_name": ["Apple"], "loan_amount": 5e6 }), "borrower_name"),
        ("loan-application", json!({ "borrower_name": "Apple Inc.", "loan_amount": 5e6, "deal_id": 1.5 }), "deal_id"),
    ];
    for (endpoint, body, field) in cases {
        let response = app.post(&format!("/api/quantitative-analysis/{endpoint}"), Some(&token), &body).await;
        let error = assert_error(response, 400).await;
        assert_eq!(error["detail"]["field"], field, "{endpoint} {body}: {error}");
    }
    let not_json = app
        .client
        .post(format!("{}/api/quantitative-analysis/company", app.address))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("{\"company_name\":")
        .send()
        .await
        .expect("request");
    assert_error(not_json, 400).await;
    let listed: Value = app.get("/api/quantitative-analysis/results", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 0, "no rejected request is stored");
    assert_eq!(providers.requests_to("/api/xbrl"), 0, "nor reaches a provider");
}

#[tokio::test]
async fn all_three_streams_parse_as_server_sent_events_with_rate_limit_headers() {
    let (providers, app, token) = analyst_on_providers(false).await;
    let requests = [
        ("company", json!({ "company_name": "Apple Inc.", "ticker": "AAPL", "stream": true })),
        ("market", json!({ "query": "AAPL vs SPY", "time_range": "1Y", "stream": true })),
        (
            "loan-application",
            json!({ "borrower_name": "Apple Inc.", "loan_amount": 1e9, "loan_type": "revolving", "stream": true }),
        ),
    ];
    let mut remaining = Vec::new();
    for (endpoint, body) in requests {
        let response = app.post(&format!("/api/quantitative-analysis/{endpoint}"), Some(&token), &body).await;
        assert_eq!(response.status(), 200, "{endpoint}");
        assert!(response.headers()["content-type"].to_str().is_ok_and(|ct| ct.starts_with("text/event-stream")));
        for header in ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"] {
            assert!(response.headers().contains_key(header), "{endpoint}: {header}");
        }
        remaining
            .push(response.headers()["x-ratelimit-remaining"].to_str().expect("header").parse::<u64>().expect("n"));
        let events = SseClient::read_all(response).await.dispatched;
        assert_stream_shape(&events, "completed");
        let completed = &events[events.len() - 1].data["data"];
        assert!(completed["result"]["metrics"].as_array().is_some_and(|m| !m.is_empty()), "{endpoint}");
        cdm_events::record(completed);
    }
    assert!(remaining.windows(2).all(|w| w[1] < w[0]), "each stream spends one request: {remaining:?}");

    // A provider failing during the run ends the stream with an `error` event in the error shape.
    providers.set("yahoo", Behaviour::Fail(500));
    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "Apple Inc.", "ticker": "AAPL", "stream": true }),
        )
        .await;
    let events = SseClient::read_all(response).await.dispatched;
    assert_stream_shape(&events, "error");
    let error = &events[events.len() - 1].data["data"];
    assert_eq!((error["status"].as_str(), error["code"].as_u64()), (Some("error"), Some(502)), "{error}");
    assert!(error["message"].as_str().is_some_and(|m| m.contains("yahoo")), "{error}");
}

#[tokio::test]
async fn a_stream_whose_client_disconnects_still_completes_and_is_stored() {
    let (providers, app, token) = analyst_on_providers(false).await;
    providers.set("yahoo", Behaviour::Slow(std::time::Duration::from_millis(600)));

    let mut response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "Apple Inc.", "ticker": "AAPL", "stream": true }),
        )
        .await;
    let mut client = SseClient::default();
    while client.dispatched.is_empty() {
        client.feed(&response.chunk().await.expect("chunk").expect("the started event"));
    }
    let id = client.dispatched[0].data["data"]["analysis_id"].as_str().expect("id").to_owned();
    drop(response);

    let mut status = Value::Null;
    for _ in 0..100 {
        let stored = stored_analysis(&app, &token, &id).await;
        status = stored["status"].clone();
        if status == "completed" {
            assert!(stored["result"]["metrics"].as_array().is_some_and(|m| !m.is_empty()));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(status, "completed", "the run outlives its client");
}

#[tokio::test]
async fn price_series_are_fetched_at_once_not_one_after_another() {
    let (providers, app, token) = analyst_on_providers(false).await;
    let delay = std::time::Duration::from_millis(400);
    providers.set("yahoo", Behaviour::Slow(delay));

    let started = std::time::Instant::now();
    let response = app
        .post("/api/quantitative-analysis/market", Some(&token), &json!({ "query": "AAPL", "time_range": "1Y" }))
        .await;

    assert_eq!(response.status(), 200);
    let elapsed = started.elapsed();
    assert_eq!(providers.requests_to("/v8/finance/chart/"), 2, "AAPL and the benchmark");
    assert!(elapsed < delay * 2 - std::time::Duration::from_millis(100), "{elapsed:?}: the two waits overlap");
}

#[tokio::test]
async fn a_borrower_without_public_financials_is_a_400_naming_it() {
    let (providers, app, token) = analyst_on_providers(false).await;

    // SEC knows the company (it is in company_tickers.json) but has no XBRL company facts for it.
    let response = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "No XBRL Shell Co", "loan_amount": 5e6 }),
        )
        .await;

    let error = assert_error(response, 400).await;
    assert_eq!(error["detail"]["field"], "borrower_name");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("No XBRL Shell Co") && message.contains("no public annual financial statements"),
        "{error}"
    );
    assert_eq!(providers.requests_to("/api/xbrl/companyfacts/CIK0001900005.json"), 1);
    let listed: Value = app.get("/api/quantitative-analysis/results", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 0, "nothing is stored");
}
