//! Answers to follow-ups, written from a stored run only: each figure with its label, formula and
//! inputs, each statement with its source. Nothing is computed here beyond writing the stored values
//! as analysts read them (USD 111.1 bn, 0.88×, 0.05%, see [`crate::domain::quant::display`]), so an
//! answer never states a number the stored result does not hold.

use serde_json::Value;

use super::{FollowUp, MetricTopic};
use crate::domain::quant::display::{figure, percent};
use crate::domain::quant::labels;
use crate::domain::quant::report::{stored_label, written_inputs, written_metric};

/// Sources listed at most in one answer.
const MAX_SOURCES: usize = 8;
/// Findings listed at most in one answer.
const MAX_FINDINGS: usize = 6;

/// A run the session launched, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRun {
    /// `company`, `market`, `loan_application`, `research` or `people`.
    pub kind: String,
    pub id: String,
    /// Where the client reads it (`/api/quantitative-analysis/results/{id}`, …).
    pub link: String,
    /// `pending`, `running`, `completed` or `failed`.
    pub status: String,
    /// The company, borrower, market query, research question or person.
    pub subject: String,
    /// The company's ticker, when a company analysis knows it.
    pub ticker: Option<String>,
    /// A market analysis's window.
    pub time_range: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// quant: `{summary, findings, metrics, data}`; research: the run as the API shows it
    /// (`answer`, `sources`, `knowledge_items`, `statistics`); people: the people result.
    pub result: Value,
}

impl SessionRun {
    /// The workflow it belongs to: `quant` (company, market, loan application), `research` or `people`.
    fn workflow(&self) -> &'static str {
        match self.kind.as_str() {
            "research" => "research",
            "people" => "people",
            _ => "quant",
        }
    }

    fn is_quant(&self) -> bool {
        self.workflow() == "quant"
    }

    fn finished(&self) -> bool {
        self.status == "completed"
    }

    fn described(&self) -> String {
        match self.kind.as_str() {
            "company" => format!("the company analysis of {}", self.subject),
            "market" => format!("the market analysis of {}", self.subject),
            "loan_application" => format!("the loan application of {}", self.subject),
            "research" => format!("the research on \"{}\"", self.subject),
            _ => format!("the people research on {}", self.subject),
        }
    }
}

/// What a follow-up gets.
#[derive(Clone, Debug, PartialEq)]
pub enum FollowUpReply {
    /// Words for the user, from run `run_id`.
    Answer { text: String, run_id: Option<String> },
    /// A market analysis comparing the run's subject with another.
    Compare { query: String, time_range: Option<String>, run_id: String },
}

fn reply(text: String, run: &SessionRun) -> FollowUpReply {
    FollowUpReply::Answer { text, run_id: Some(run.id.clone()) }
}

/// The answer to `follow_up` from `runs` (the session's runs, newest first).
pub fn answer(follow_up: &FollowUp, runs: &[SessionRun]) -> FollowUpReply {
    let newest = runs.first();
    let newest_quant = runs.iter().find(|run| run.is_quant());
    let nothing = |what: &str| FollowUpReply::Answer {
        text: format!(
            "None of the analyses launched in this session {what}. Launch one first, e.g. \"analyse Apple Inc\"."
        ),
        run_id: None,
    };
    match follow_up {
        FollowUp::Status => newest.map_or_else(|| nothing("is there to report on"), |run| reply(status(run), run)),
        FollowUp::Summary => newest.map_or_else(|| nothing("has a result yet"), |run| reply(summary(run), run)),
        FollowUp::Sources => newest.map_or_else(|| nothing("has sources yet"), |run| reply(sources(run), run)),
        FollowUp::Metric(topic) => match newest_quant {
            Some(run) => reply(unfinished(run).unwrap_or_else(|| metric(run, *topic)), run),
            None => nothing(&format!("has {} figures", topic.words())),
        },
        FollowUp::Rating => match newest_quant.or(newest) {
            Some(run) => reply(unfinished(run).unwrap_or_else(|| rating(run)), run),
            None => nothing("has a rating"),
        },
        FollowUp::Risks => match newest_quant.or(newest) {
            Some(run) => reply(unfinished(run).unwrap_or_else(|| risks(run)), run),
            None => nothing("has findings"),
        },
        FollowUp::Compare(other) => match newest_quant {
            Some(run) => {
                let subject = match run.kind.as_str() {
                    "company" => run.ticker.clone().unwrap_or_else(|| run.subject.clone()),
                    _ => run.subject.clone(),
                };
                FollowUpReply::Compare {
                    query: format!("{subject} vs {other}"),
                    time_range: run.time_range.clone(),
                    run_id: run.id.clone(),
                }
            }
            None => nothing("is a company or market analysis to compare"),
        },
    }
}

/// What to say instead of figures when the run has none yet (or failed).
fn unfinished(run: &SessionRun) -> Option<String> {
    (!run.finished()).then(|| status(run))
}

fn status(run: &SessionRun) -> String {
    let what = run.described();
    match run.status.as_str() {
        "completed" => format!("{} is completed; see {}.", capitalised(&what), run.link),
        "failed" => format!(
            "{} failed: {}. See {}.",
            capitalised(&what),
            run.error.as_deref().unwrap_or("no reason was recorded"),
            run.link
        ),
        status if run.kind == "research" => {
            let statistics = &run.result["statistics"];
            let count = |key: &str| statistics[key].as_u64().unwrap_or(0);
            let items = run.result["knowledge_items"].as_array().map_or(0, Vec::len);
            let max = run.result["max_iterations"].as_u64().unwrap_or(0);
            format!(
                "{} is {status}: {} of at most {max} iterations done, {} sources read and {items} knowledge items so far. \
                 Follow it at {}.",
                capitalised(&what),
                count("iterations"),
                count("sources_used"),
                run.link
            )
        }
        status => format!("{} is {status}; follow it at {}.", capitalised(&what), run.link),
    }
}

fn summary(run: &SessionRun) -> String {
    if let Some(text) = unfinished(run) {
        return text;
    }
    let what = capitalised(&run.described());
    match run.workflow() {
        "research" => {
            let answer = run.result["answer"].as_str().unwrap_or("no answer was recorded");
            format!("{what} answers: {answer}\n\n{}", research_sources(&run.result["sources"]))
        }
        "people" => {
            let text = run.result["research_summary"]["text"].as_str().unwrap_or("no summary was recorded");
            format!("{what}: {text}")
        }
        _ => {
            format!("{what}: {} See {}.", run.result["summary"].as_str().unwrap_or("no summary was recorded"), run.link)
        }
    }
}

fn metric(run: &SessionRun, topic: MetricTopic) -> String {
    let metrics = run.result["metrics"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut lines = Vec::new();
    for name in topic.metrics() {
        for found in metrics.iter().filter(|m| m["name"] == *name) {
            lines.push(cited_metric(found));
        }
    }
    let what = run.described();
    if lines.is_empty() {
        let missing = missing_inputs(run);
        return format!(
            "{} has no {} figure{}. See {}.",
            capitalised(&what),
            topic.words(),
            if missing.is_empty() { String::new() } else { format!(" ({missing})") },
            run.link
        );
    }
    format!("From {what} ({}):\n{}", run.link, bullets(&lines))
}

/// "Debt / EBITDA = 0.88× (formula: total_debt / ebitda; inputs: Total debt = USD 111.1 bn, …)".
fn cited_metric(metric: &Value) -> String {
    let symbol = metric["symbol"].as_str().map(|symbol| format!("{symbol} ")).unwrap_or_default();
    let label = stored_label(metric);
    let value = written_metric(metric);
    let formula = metric["formula"].as_str().unwrap_or("");
    let inputs = written_inputs(metric);
    if inputs.is_empty() {
        format!("{symbol}{label} = {value} (formula: {formula})")
    } else {
        format!("{symbol}{label} = {value} (formula: {formula}; inputs: {inputs})")
    }
}

/// A value a finding or a decision cites, written in the unit of the figure it is about.
fn written_evidence(metric: &str, value: Option<f64>, currency: Option<&str>) -> String {
    value.map_or_else(|| "none".to_owned(), |value| figure(value, labels::unit(metric), currency))
}

/// The currency of a run's amounts, as its metrics record it.
fn run_currency(run: &SessionRun) -> Option<&str> {
    run.result["metrics"].as_array().into_iter().flatten().find_map(|metric| metric["currency"].as_str())
}

fn rating(run: &SessionRun) -> String {
    let what = run.described();
    let data = &run.result["data"];
    match run.kind.as_str() {
        "company" => {
            let rating = &data["credit"]["rating"];
            let Some(grade) = rating["grade"].as_str() else {
                let missing = missing_inputs(run);
                return format!(
                    "{} has no synthetic rating{}. See {}.",
                    capitalised(&what),
                    if missing.is_empty() { String::new() } else { format!(": {missing}") },
                    run.link
                );
            };
            let metrics = run.result["metrics"].as_array().map(Vec::as_slice).unwrap_or_default();
            let named = |name: &str| metrics.iter().find(|m| m["name"] == name).map(cited_metric);
            let mut lines = vec![format!(
                "The synthetic rating is {grade}, read from EBIT interest coverage on the coverage table: {}",
                named("ebit_interest_coverage").unwrap_or_else(|| "the coverage figure is not stored".to_owned())
            )];
            lines.extend(named("probability_of_default").map(|line| format!("For that grade: {line}")));
            lines.extend(named("synthetic_rating_spread").map(|line| format!("Spread: {line}")));
            format!("From {what} ({}):\n{}", run.link, bullets(&lines))
        }
        "loan_application" => {
            let loan = &data["loan"];
            let recommendation = loan["recommendation"].as_str().unwrap_or("none recorded").replace('_', " ");
            let mut lines = vec![format!(
                "Recommendation: {recommendation}; grade {} with a one-year PD of {}.",
                loan["grade"].as_str().unwrap_or("not computed"),
                loan["pd"].as_f64().map_or_else(|| "not computed".to_owned(), percent)
            )];
            let currency = run_currency(run);
            for reason in loan["assessment"]["reasons"].as_array().into_iter().flatten() {
                let metric = reason["metric"].as_str().unwrap_or("?");
                lines.push(format!(
                    "{} ({} = {}, threshold {}: {})",
                    reason["statement"].as_str().unwrap_or(""),
                    labels::label(metric),
                    written_evidence(metric, reason["value"].as_f64(), currency),
                    written_evidence(metric, reason["threshold"].as_f64(), currency),
                    reason["outcome"].as_str().unwrap_or("?").replace('_', " ")
                ));
            }
            format!("From {what} ({}):\n{}", run.link, bullets(&lines))
        }
        "people" => {
            let assessment = &run.result["credit_assessment"];
            let band = assessment["score_band"].as_str().unwrap_or("not assessed");
            let reasons: Vec<String> = assessment["reasons"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            format!(
                "{} has the character band {band}, for human review.{}",
                capitalised(&what),
                if reasons.is_empty() { String::new() } else { format!("\n{}", bullets(&reasons)) }
            )
        }
        _ => format!(
            "{} gives no rating; ask for its returns, volatility or drawdown instead. See {}.",
            capitalised(&what),
            run.link
        ),
    }
}

fn risks(run: &SessionRun) -> String {
    let what = run.described();
    if run.workflow() == "people" {
        let findings: Vec<String> = run.result["credit_assessment"]["adverse_findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|finding| {
                format!(
                    "{} (source: {})",
                    finding["statement"].as_str().unwrap_or(""),
                    finding["url"].as_str().unwrap_or("not recorded")
                )
            })
            .collect();
        return if findings.is_empty() {
            format!("{} found no adverse information.", capitalised(&what))
        } else {
            format!("Adverse findings of {what}:\n{}", bullets(&findings))
        };
    }
    if run.workflow() != "quant" {
        return format!("{} has no risk findings; ask for its answer or its sources.", capitalised(&what));
    }
    let findings = run.result["findings"].as_array().map(Vec::as_slice).unwrap_or_default();
    let currency = run_currency(run);
    let mut lines: Vec<String> = Vec::new();
    for severity in ["concern", "watch"] {
        for finding in findings.iter().filter(|f| f["severity"] == severity) {
            if lines.len() < MAX_FINDINGS {
                lines.push(cited_finding(finding, currency));
            }
        }
    }
    if lines.is_empty() {
        return format!(
            "{} raised no finding of concern or to watch. See {} for all its findings.",
            capitalised(&what),
            run.link
        );
    }
    format!("The main risks found by {what} ({}):\n{}", run.link, bullets(&lines))
}

/// "[concern] Current ratio 0.99×. (Current ratio = 0.99×, threshold 1.00×)".
fn cited_finding(finding: &Value, currency: Option<&str>) -> String {
    let evidence = &finding["evidence"];
    let metric = evidence["metric"].as_str().unwrap_or("?");
    let threshold = evidence["threshold"]
        .as_f64()
        .map(|t| format!(", threshold {}", written_evidence(metric, Some(t), currency)))
        .unwrap_or_default();
    format!(
        "[{}] {} ({} = {}{threshold})",
        finding["severity"].as_str().unwrap_or("?"),
        finding["statement"].as_str().unwrap_or(""),
        labels::label(metric),
        written_evidence(metric, evidence["value"].as_f64(), currency)
    )
}

fn sources(run: &SessionRun) -> String {
    let what = run.described();
    match run.workflow() {
        "research" => format!("Sources of {what}:\n{}", research_sources(&run.result["sources"])),
        "people" => format!("Sources of {what}:\n{}", research_sources(&run.result["research_summary"]["sources"])),
        _ if run.kind == "market" => {
            let symbols: Vec<&str> = run.result["data"]["instruments"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|instrument| instrument["symbol"].as_str())
                .collect();
            let benchmark = run.result["data"]["benchmark"].as_str().unwrap_or("none");
            format!(
                "{} reads daily closing prices of {} (benchmark {benchmark}) from the price provider; each figure's \
                 inputs (first and last close, peak and trough) are stored with it at {}.",
                capitalised(&what),
                symbols.join(", "),
                run.link
            )
        }
        _ => {
            let mut filings: Vec<String> = Vec::new();
            for entry in run.result["data"]["provenance"].as_array().into_iter().flatten() {
                let line = filing(entry);
                if !filings.contains(&line) {
                    filings.push(line);
                }
            }
            if filings.is_empty() {
                return format!("{} records no source document. See {}.", capitalised(&what), run.link);
            }
            let more = filings.len().saturating_sub(MAX_SOURCES);
            filings.truncate(MAX_SOURCES);
            let tail = if more > 0 { format!("\n(and {more} more at {})", run.link) } else { String::new() };
            format!("The statements of {what} come from:\n{}{tail}", bullets(&filings))
        }
    }
}

/// "10-K filed 2023-11-03, accession 0000320193-23-000106: <url>", or the supplied statements.
fn filing(entry: &Value) -> String {
    let text = |key: &str| entry[key].as_str().unwrap_or("").to_owned();
    if entry["accession_number"].is_string() {
        format!(
            "{} filed {}, accession {}: {}",
            text("form"),
            text("filed"),
            text("accession_number"),
            text("source_url")
        )
    } else {
        let source = ["source", "source_url", "origin"].iter().map(|key| text(key)).find(|value| !value.is_empty());
        format!(
            "statements supplied with the request ({})",
            source.unwrap_or_else(|| "no document recorded".to_owned())
        )
    }
}

fn research_sources(sources: &Value) -> String {
    let lines: Vec<String> = sources
        .as_array()
        .into_iter()
        .flatten()
        .take(MAX_SOURCES)
        .enumerate()
        .map(|(i, source)| {
            let title = source["title"].as_str().filter(|t| !t.is_empty()).unwrap_or("untitled");
            format!("[{}] {title}: {}", i + 1, source["url"].as_str().unwrap_or("no URL recorded"))
        })
        .collect();
    if lines.is_empty() { "No source was recorded.".to_owned() } else { lines.join("\n") }
}

fn missing_inputs(run: &SessionRun) -> String {
    let data = &run.result["data"];
    let reasons: Vec<String> = data["missing_inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.as_str().or_else(|| entry["reason"].as_str()))
        .take(3)
        .map(labels::in_prose)
        .collect();
    reasons.join("; ")
}

fn bullets(lines: &[String]) -> String {
    lines.iter().map(|line| format!("- {line}")).collect::<Vec<_>>().join("\n")
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}
