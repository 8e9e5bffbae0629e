//! Covenant questions in chat: "is Northwind in compliance?", "covenant headroom on deal 42",
//! "test the covenants with the new statements". They are answered from the deal's latest stored
//! covenant test, or by running one on the deal's newest statement set (always, when the message
//! asks for a test), never by a language model: the figures come from the stored test.
//!
//! The deal is the one the message names ("deal 42", "deal #42"), else the turn's `deal_id`, else
//! the deal of the borrower the message names ("is Northwind in compliance?"), found among the
//! caller's documents. A message that names no deal this can find is answered with how to name one.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::domain::quant::display::amount;

/// What a covenant question asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CovenantQuestion {
    /// Run a test now (on the newest statements) rather than read the latest.
    pub run: bool,
    /// The deal the message names.
    pub deal_id: Option<i64>,
    /// The borrower the message names, when it names no deal.
    pub borrower: Option<String>,
}

static COVENANT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:covenants?|compliance|compliant|headroom|breach(?:es|ed|ing)?|in\s+default\s+of)\b")
        .expect("pattern")
});
/// A definition or how-to question is not a question about a deal.
static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:what\s+(?:is|are|does)\s+(?:a|an)\b|what\s+does\b|define\b|explain\b|how\s+(?:do|does|is|are|to)\b)")
        .expect("pattern")
});
static ASKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bin\s+compliance\b|\bcompliant\b|\bcovenant\s+(?:headroom|status|compliance|test(?:s|ing)?|position|cushion)\b|\bheadroom\b|\bbreach(?:es|ed|ing)?\s+(?:of\s+)?(?:its|any|the|a|their)?\s*(?:financial\s+)?covenants?\b|\b(?:test|run|check|re-?test|re-?run|recompute)\s+(?:the\s+|its\s+|their\s+|a\s+)?(?:financial\s+)?covenants?\b")
        .expect("pattern")
});
static RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:test|run|check|re-?test|re-?run|recompute)\s+(?:the\s+|its\s+|their\s+|a\s+)?(?:financial\s+)?covenants?(?:\s+tests?)?\b|\brun\s+(?:a\s+)?covenant\s+tests?\b|\b(?:new|latest|updated|newest)\s+(?:financial\s+)?statements\b")
        .expect("pattern")
});
static DEAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bdeal\s*(?:#|no\.?\s*|number\s+|id\s+)?(\d{1,18})\b").expect("pattern"));
/// "is Northwind in compliance", "is Northwind Tools compliant", "headroom for/of/on Northwind".
static BORROWER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:is|are|was|has|have)\s+(?P<a>.+?)\s+(?:in\s+compliance|compliant|in\s+breach|breached|breaching)\b|\b(?:for|of|on)\s+(?P<b>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,4})\s*[?.!]*\s*$")
        .expect("pattern")
});

/// The covenant question `message` asks, if it asks one.
pub fn recognise_covenant_question(message: &str) -> Option<CovenantQuestion> {
    if !COVENANT_WORDS.is_match(message) || DEFINITION.is_match(message) || !ASKS.is_match(message) {
        return None;
    }
    let deal_id = DEAL.captures(message).and_then(|c| c.get(1)?.as_str().parse::<i64>().ok()).filter(|id| *id > 0);
    let borrower = if deal_id.is_some() {
        None
    } else {
        BORROWER.captures(message).and_then(|c| {
            let name = c.name("a").or_else(|| c.name("b"))?.as_str().trim();
            let name = name.trim_start_matches("the ").trim();
            let generic = ["it", "they", "we", "the borrower", "the company", "this deal", "the deal", "deal"];
            (!name.is_empty() && !generic.contains(&name.to_ascii_lowercase().as_str())).then(|| name.to_owned())
        })
    };
    Some(CovenantQuestion { run: RUN.is_match(message), deal_id, borrower })
}

/// The chat answer to a stored covenant test (the API body of the test).
pub fn describe_test(test: &Value) -> String {
    let deal = test["deal_id"].as_i64().unwrap_or_default();
    let period = test["period_end"].as_str().unwrap_or("?");
    let title = test["document_title"].as_str().map(|t| format!(" (\"{t}\")")).unwrap_or_default();
    let mut lines = vec![format!(
        "Covenant test of deal {deal}, document {}{title}, for the period ending {period}: {}.",
        test["document_id"],
        match test["summary"]["compliance"].as_str() {
            Some("pass") => "every covenant tested passes",
            Some("breach") => "a covenant is breached",
            _ => "not every covenant could be tested",
        }
    )];
    for covenant in test["covenants"].as_array().into_iter().flatten() {
        let name = covenant["name"].as_str().unwrap_or("covenant");
        let limit = if covenant["operator"] == "max" { "maximum" } else { "minimum" };
        let line = match (covenant["status"].as_str(), covenant["actual"].as_f64(), covenant["threshold"].as_f64()) {
            (Some(status @ ("pass" | "breach")), Some(actual), Some(threshold)) => {
                let headroom = covenant["headroom_pct"]
                    .as_f64()
                    .map(|h| format!(", headroom {:.1}%", h * 100.0))
                    .unwrap_or_default();
                let figure = |value: f64| match covenant["currency"].as_str() {
                    Some(currency) => amount(value, Some(currency)),
                    None => format!("{value:.2}x"),
                };
                format!("- {name}: {} against a {limit} of {} — {status}{headroom}", figure(actual), figure(threshold))
            }
            (Some(status), _, _) if status != "not_testable" => {
                format!(
                    "- {name}: {status} ({})",
                    covenant["notes"].as_array().and_then(|n| n.last()).and_then(Value::as_str).unwrap_or("")
                )
            }
            _ => {
                let missing: Vec<&str> =
                    covenant["missing_inputs"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                let why = if missing.is_empty() {
                    covenant["notes"].as_array().and_then(|n| n.last()).and_then(Value::as_str).unwrap_or("").to_owned()
                } else {
                    format!("missing {}", missing.join(", "))
                };
                format!("- {name}: not testable ({why})")
            }
        };
        lines.push(line);
    }
    if let Some(id) = test["test_id"].as_str() {
        lines.push(format!("The whole calculation, with every input's source: /api/deals/{deal}/covenant-tests/{id}."));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asks(message: &str) -> Option<CovenantQuestion> {
        recognise_covenant_question(message)
    }

    #[test]
    fn analysts_phrasings_are_covenant_questions() {
        assert_eq!(
            asks("is Northwind in compliance?"),
            Some(CovenantQuestion { run: false, deal_id: None, borrower: Some("Northwind".to_owned()) })
        );
        assert_eq!(
            asks("covenant headroom on deal 42"),
            Some(CovenantQuestion { run: false, deal_id: Some(42), borrower: None })
        );
        assert_eq!(
            asks("test the covenants with the new statements"),
            Some(CovenantQuestion { run: true, deal_id: None, borrower: None })
        );
        assert_eq!(
            asks("Is Northwind Tools compliant with its covenants?"),
            Some(CovenantQuestion { run: false, deal_id: None, borrower: Some("Northwind Tools".to_owned()) })
        );
        assert!(asks("has deal #7 breached its financial covenants?").is_some_and(|q| q.deal_id == Some(7)));
    }

    #[test]
    fn questions_about_the_agreement_and_definitions_are_not() {
        for message in [
            "what are the covenants?",
            "what is a covenant?",
            "explain covenant headroom",
            "analyse Apple",
            "what is the leverage covenant in the agreement?",
            "how is compliance measured?",
        ] {
            assert_eq!(asks(message), None, "{message}");
        }
    }
}
