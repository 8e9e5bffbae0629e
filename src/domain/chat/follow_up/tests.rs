//! Which messages are follow-ups, and answers written from a stored run that cite every figure and
//! state no number the run does not hold.

use serde_json::json;

use super::*;
use crate::domain::quant::narrative::{cited_numbers, uncited_numbers};

#[test]
fn follow_up_phrasings_are_recognised_and_other_messages_are_not() {
    use FollowUp::*;
    use MetricTopic as T;
    let cases: Vec<(&str, Option<FollowUp>)> = vec![
        ("what's its leverage?", Some(Metric(T::Leverage))),
        ("What is the leverage?", Some(Metric(T::Leverage))),
        ("and its debt to equity?", Some(Metric(T::Leverage))),
        ("how levered is it?", Some(Metric(T::Leverage))),
        ("what's the interest coverage", Some(Metric(T::Coverage))),
        ("and the DSCR?", Some(Metric(T::Coverage))),
        ("what's the PD?", Some(Metric(T::DefaultProbability))),
        ("what is its probability of default?", Some(Metric(T::DefaultProbability))),
        ("how liquid is it? what's the current ratio?", Some(Metric(T::Liquidity))),
        ("what are its margins", Some(Metric(T::Margins))),
        ("how volatile was it?", Some(Metric(T::Volatility))),
        ("what was the max drawdown?", Some(Metric(T::Drawdown))),
        ("how did it perform?", Some(Metric(T::Return))),
        ("what's the beta", Some(Metric(T::Beta))),
        ("and the Altman Z-score?", Some(Metric(T::Solvency))),
        ("why that rating?", Some(Rating)),
        ("what grade did it get?", Some(Rating)),
        ("why the recommendation?", Some(Rating)),
        ("what are the main risks?", Some(Risks)),
        ("any red flags in it?", Some(Risks)),
        ("how risky is it?", Some(Risks)),
        ("show me the sources", Some(Sources)),
        ("where do the numbers come from?", Some(Sources)),
        ("which filings did it use? the sources please", Some(Sources)),
        ("is it done?", Some(Status)),
        ("is the research finished yet?", Some(Status)),
        ("how is the research going?", Some(Status)),
        ("status?", Some(Status)),
        ("what did it find?", Some(Summary)),
        ("what's the answer?", Some(Summary)),
        ("summarise the results", Some(Summary)),
        ("compare it with Contoso", Some(Compare("Contoso".into()))),
        ("Compare it to MSFT.", Some(Compare("MSFT".into()))),
        ("how does it compare to Microsoft Corp?", Some(Compare("Microsoft Corp".into()))),
        ("and vs SOXX?", Some(Compare("SOXX".into()))),
        // Not follow-ups: another subject, a definition, a new request, small talk.
        ("what are Tesla's margins?", None),
        ("what is leverage?", None),
        ("what is a PD?", None),
        ("analyse Apple Inc", None),
        ("compare AAPL and MSFT", None),
        ("compare it", None),
        ("research the sources of SOFR", None),
        ("thanks!", None),
        ("I think the leverage is fine", None),
        ("the leverage", Some(Metric(T::Leverage))),
        ("look into the risks of leveraged loans", None),
    ];
    let mut failures = Vec::new();
    for (message, expected) in cases {
        let got = recognise_follow_up(message);
        if got != expected {
            failures.push(format!("{message:?}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn company_run() -> SessionRun {
    SessionRun {
        kind: "company".into(),
        id: "a1".into(),
        link: "/api/quantitative-analysis/results/a1".into(),
        status: "completed".into(),
        subject: "Apple Inc.".into(),
        ticker: Some("AAPL".into()),
        time_range: None,
        error: None,
        result: json!({
            "summary": "Apple Inc. (fiscal year ended 2023-09-30). Debt is 0.88x EBITDA.",
            "metrics": [
                { "name": "debt_to_ebitda", "label": "Debt / EBITDA", "value": 0.8829120966460022, "unit": "ratio",
                  "formula": "total_debt / ebitda", "currency": "USD",
                  "inputs": [{ "name": "total_debt", "label": "Total debt", "value": 111088000000.0, "unit": "currency" },
                             { "name": "ebitda", "label": "EBITDA", "value": 125820000000.0, "unit": "currency" }] },
                { "name": "debt_to_equity", "value": 1.7875325845589418, "unit": "ratio", "formula": "total_debt / equity (book)",
                  "inputs": [{ "name": "total_debt", "value": 111088000000.0 }, { "name": "equity", "value": 62146000000.0 }] },
                { "name": "ebit_interest_coverage", "value": 29.062039155860667, "unit": "ratio", "formula": "ebit / interest_expense",
                  "inputs": [{ "name": "ebit", "value": 114301000000.0 }, { "name": "interest_expense", "value": 3933000000.0 }] },
                { "name": "probability_of_default", "value": 0.0005, "unit": "fraction", "formula": "one-year PD for the synthetic grade", "inputs": [] },
            ],
            "findings": [
                { "category": "liquidity", "severity": "concern", "statement": "Current ratio 0.99x.",
                  "evidence": { "metric": "current_ratio", "value": 0.9880116717592976, "threshold": 1.0 } },
                { "category": "leverage", "severity": "positive", "statement": "Debt/EBITDA 0.88x is below 1.50x.",
                  "evidence": { "metric": "debt_to_ebitda", "value": 0.8829120966460022, "threshold": 1.5 } },
            ],
            "data": {
                "credit": { "rating": { "grade": "AAA", "pd": 0.0005, "spread": 0.0045, "ebit_interest_coverage": 29.062039155860667 } },
                "provenance": [
                    { "form": "10-K", "filed": "2023-11-03", "accession_number": "0000320193-23-000106",
                      "source_url": "https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json", "value": 383285000000.0 },
                    { "form": "10-K", "filed": "2023-11-03", "accession_number": "0000320193-23-000106",
                      "source_url": "https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json", "value": 96995000000.0 },
                ],
                "missing_inputs": [],
            },
        }),
    }
}

/// Every number of a stored value, numeric or written inside a string (dates, accession numbers).
fn stored_numbers(value: &serde_json::Value, out: &mut Vec<f64>) {
    match value {
        serde_json::Value::Number(n) => out.extend(n.as_f64()),
        serde_json::Value::String(text) => out.extend(cited_numbers(text)),
        serde_json::Value::Array(items) => items.iter().for_each(|item| stored_numbers(item, out)),
        serde_json::Value::Object(map) => map.values().for_each(|item| stored_numbers(item, out)),
        _ => {}
    }
}

fn text_of(reply: FollowUpReply) -> String {
    match reply {
        FollowUpReply::Answer { text, .. } => text,
        other => panic!("{other:?}"),
    }
}

#[test]
fn answers_cite_each_figure_with_its_formula_and_inputs_and_invent_no_number() {
    let run = company_run();
    let mut allowed = Vec::new();
    stored_numbers(&run.result, &mut allowed);
    allowed.extend(cited_numbers(&run.link));
    for follow_up in [
        FollowUp::Metric(MetricTopic::Leverage),
        FollowUp::Metric(MetricTopic::Coverage),
        FollowUp::Rating,
        FollowUp::Risks,
        FollowUp::Sources,
        FollowUp::Summary,
        FollowUp::Status,
    ] {
        let text = text_of(answer(&follow_up, std::slice::from_ref(&run)));
        assert!(
            uncited_numbers(&text, &allowed).is_empty(),
            "{follow_up:?} states {:?}: {text}",
            uncited_numbers(&text, &allowed)
        );
    }
    let leverage = text_of(answer(&FollowUp::Metric(MetricTopic::Leverage), std::slice::from_ref(&run)));
    assert!(
        leverage.contains(
            "Debt / EBITDA = 0.88× (formula: total_debt / ebitda; inputs: Total debt = USD 111.1 bn, EBITDA = USD 125.8 bn)"
        ),
        "{leverage}"
    );
    // A metric stored before labels were: named and written from its name and unit, no currency invented.
    assert!(
        leverage.contains("Debt / equity = 1.79× (formula: total_debt / equity (book); inputs: Total debt = 111.1 bn")
    );
    let rating = text_of(answer(&FollowUp::Rating, std::slice::from_ref(&run)));
    assert!(rating.contains("AAA") && rating.contains("EBIT interest coverage = 29.1×"), "{rating}");
    assert!(rating.contains("One-year PD = 0.05%"), "{rating}");
    let risks = text_of(answer(&FollowUp::Risks, std::slice::from_ref(&run)));
    assert!(
        risks.contains("[concern] Current ratio 0.99x. (Current ratio = 0.99×, threshold 1.00×)")
            && !risks.contains("below 1.50x"),
        "{risks}"
    );
    let sources = text_of(answer(&FollowUp::Sources, std::slice::from_ref(&run)));
    assert_eq!(sources.matches("0000320193-23-000106").count(), 1, "one line per filing: {sources}");
    assert!(sources.contains("https://data.sec.gov/"), "{sources}");
}

#[test]
fn a_figure_the_run_does_not_hold_is_said_to_be_missing_not_made_up() {
    let text = text_of(answer(&FollowUp::Metric(MetricTopic::Volatility), &[company_run()]));
    assert!(text.contains("has no volatility figure"), "{text}");
    assert!(cited_numbers(text.split("See").next().unwrap_or("")).is_empty(), "{text}");
}

#[test]
fn a_run_still_going_answers_with_its_progress() {
    let research = SessionRun {
        kind: "research".into(),
        id: "r1".into(),
        link: "/api/deep-research/results/r1".into(),
        status: "running".into(),
        subject: "SOFR and leveraged loans".into(),
        ticker: None,
        time_range: None,
        error: None,
        result: json!({ "max_iterations": 5, "statistics": { "iterations": 2, "sources_used": 7 },
                        "knowledge_items": [{}, {}, {}], "sources": [] }),
    };
    let text = text_of(answer(&FollowUp::Status, std::slice::from_ref(&research)));
    assert!(
        text.contains("is running: 2 of at most 5 iterations done, 7 sources read and 3 knowledge items"),
        "{text}"
    );
    let text = text_of(answer(&FollowUp::Summary, &[research]));
    assert!(text.contains("running"), "no answer before it is done: {text}");
}

#[test]
fn compare_launches_a_market_analysis_of_the_subject_and_the_other() {
    let reply = answer(&FollowUp::Compare("Contoso".into()), &[company_run()]);
    assert_eq!(
        reply,
        FollowUpReply::Compare { query: "AAPL vs Contoso".into(), time_range: None, run_id: "a1".into() }
    );
    let none = answer(&FollowUp::Compare("Contoso".into()), &[]);
    assert!(matches!(none, FollowUpReply::Answer { run_id: None, .. }));
}
