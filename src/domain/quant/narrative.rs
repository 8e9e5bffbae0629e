//! The summary of an analysis: the deterministic narrator (plain sentences from the computed figures
//! only), and a language model's rewrite, checked against the figures it was given: every number it
//! cites must be one of them (as written, rounded, or as a percentage of a fraction). A summary that
//! introduces a number of its own is refused and the deterministic narrator's text stands.

use serde_json::{Value, json};

use super::credit::CreditAnalysis;
use super::loan::LoanAssessment;
use super::market::{InstrumentStatistics, TimeRange};
use super::quarterly::TrailingTwelveMonths;
use super::request::LoanApplication;
use crate::ports::llm::{ChatMessage, ChatRequest, LanguageModel};

/// The numbers written in `text`: digits with an optional sign, thousands separators and decimals
/// ("1,234.5", "-0.88", "29.06x", "6.9%" → 1234.5, -0.88, 29.06, 6.9).
pub fn cited_numbers(text: &str) -> Vec<f64> {
    let bytes = text.as_bytes();
    let mut numbers = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let negative = i > 0 && bytes[i - 1] == b'-' && (i < 2 || !bytes[i - 2].is_ascii_alphanumeric());
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || ((bytes[i] == b',' || bytes[i] == b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            let digits: String = text[start..i].chars().filter(|c| *c != ',').collect();
            if let Ok(value) = digits.parse::<f64>() {
                numbers.push(if negative { -value } else { value });
            }
        } else {
            i += 1;
        }
    }
    numbers
}

/// Whether `cited` is one of `allowed`: equal within rounding to the precision it is written with
/// (two significant decimals at least), directly or as a percentage of a fraction.
fn matches_a_figure(cited: f64, allowed: &[f64]) -> bool {
    allowed.iter().any(|&value| {
        [value, value * 100.0].into_iter().any(|candidate| {
            let tolerance = (candidate.abs() * 0.005).max(0.051);
            (cited - candidate).abs() <= tolerance || (cited.abs() - candidate.abs()).abs() <= tolerance
        })
    })
}

/// The numbers of `summary` that are none of `allowed` (empty: the summary may be used). Small
/// integers up to 12 (counts like "three facilities", "12 months") and years 1900–2100 are allowed.
pub fn uncited_numbers(summary: &str, allowed: &[f64]) -> Vec<f64> {
    cited_numbers(summary)
        .into_iter()
        .filter(|n| {
            let small_count = n.fract() == 0.0 && (0.0..=12.0).contains(n);
            let year = n.fract() == 0.0 && (1900.0..=2100.0).contains(n);
            !(small_count || year || matches_a_figure(*n, allowed))
        })
        .collect()
}

const NARRATOR_INSTRUCTIONS: &str = "You write the executive summary of a credit analysis for a bank's credit \
    committee: three to five plain sentences. Use only the figures given, exactly or rounded; introduce no other \
    number, no forecast and no recommendation that is not among them. Do not use lists or headings.";

pub fn narrate_market(
    stats: &[InstrumentStatistics],
    benchmark: Option<&InstrumentStatistics>,
    range: TimeRange,
) -> String {
    let mut sentences = Vec::new();
    for s in stats.iter().chain(benchmark) {
        let mut parts = Vec::new();
        if let Some(ret) = s.value("period_return") {
            parts.push(format!("returned {:.1}%", ret * 100.0));
        }
        if let Some(vol) = s.value("annualised_volatility") {
            parts.push(format!("annualised volatility {:.1}%", vol * 100.0));
        }
        if let Some(drawdown) = s.value("max_drawdown") {
            parts.push(format!("maximum drawdown {:.1}%", drawdown * 100.0));
        }
        if !parts.is_empty() {
            sentences.push(format!("{} over {}: {}.", s.symbol, range.as_str(), parts.join(", ")));
        }
    }
    sentences.join(" ")
}

pub fn narrate_loan(name: &str, application: &LoanApplication, assessment: &LoanAssessment) -> String {
    let mut sentences = vec![format!(
        "{} applies for a {} of USD {:.0}.",
        name,
        application.loan_type.as_str().replace('_', " "),
        application.loan_amount
    )];
    if let Some(metric) = assessment.metric("pro_forma_debt_to_ebitda") {
        sentences.push(format!("Pro-forma debt would be {:.2}x EBITDA.", metric.value));
    }
    if let Some(metric) = assessment.metric("pro_forma_dscr") {
        sentences.push(format!("Pro-forma debt service coverage would be {:.2}x.", metric.value));
    }
    if let (Some(grade), Some(pd)) = (assessment.grade, assessment.pd) {
        sentences.push(format!("The pro-forma grade is {grade} (one-year PD {:.2}%).", pd * 100.0));
    }
    let recommendation = serde_json::to_value(assessment.recommendation)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    sentences.push(format!("Recommendation: {}.", recommendation.replace('_', " ")));
    sentences.join(" ")
}

/// The deterministic narrator: the key figures and what they mean, in plain sentences, using only
/// the computed numbers.
/// `(name, currency)`: the currency is named for supplied statements, which may be in any.
pub fn narrate(
    (name, currency): (&str, Option<&str>),
    credit: Option<&CreditAnalysis>,
    ttm: Option<&TrailingTwelveMonths>,
    stock: Option<&InstrumentStatistics>,
    benchmark: &str,
) -> String {
    let mut sentences = Vec::new();
    let figure = |name: &str| credit.and_then(|c| c.value(name));
    let amount = |value: f64| currency.map_or_else(|| format!("{value:.0}"), |c| format!("{c} {value:.0}"));
    if let Some(credit) = credit {
        if let Some(year) = credit.fiscal_year_end {
            sentences.push(format!("{name} (fiscal year ended {year})."));
        }
        if let Some(revenue) = figure("revenue") {
            sentences.push(format!("Revenue was {}.", amount(revenue)));
        }
        if let Some(leverage) = figure("debt_to_ebitda") {
            sentences.push(format!("Debt is {leverage:.2}x EBITDA."));
        }
        if let Some(coverage) = figure("ebit_interest_coverage") {
            sentences.push(format!("EBIT covers interest {coverage:.2}x."));
        }
        if let Some(rating) = &credit.rating {
            sentences.push(format!(
                "The synthetic rating from interest coverage is {} (one-year PD {:.2}%).",
                rating.grade,
                rating.pd * 100.0
            ));
        }
        if let Some(ttm) = ttm {
            let mut parts = Vec::new();
            if let Some(revenue) = ttm.value("ttm_revenue") {
                parts.push(format!("revenue was {}", amount(revenue)));
            }
            if let Some(leverage) = ttm.value("ttm_debt_to_ebitda") {
                parts.push(format!("debt was {leverage:.2}x EBITDA"));
            }
            if !parts.is_empty() {
                sentences.push(format!("Over the twelve months to {}, {}.", ttm.period_end, parts.join(" and ")));
            }
        }
    } else {
        sentences.push(format!("{name}: market view only."));
    }
    if let Some(stats) = stock {
        if let Some(ret) = stats.value("period_return") {
            sentences.push(format!("Over the last year the share returned {:.1}%.", ret * 100.0));
        }
        if let Some(vol) = stats.value("annualised_volatility") {
            sentences.push(format!("Annualised volatility is {:.1}%.", vol * 100.0));
        }
        if let Some(beta) = stats.value("beta") {
            sentences.push(format!("Beta against {benchmark} is {beta:.2}."));
        }
    }
    sentences.join(" ")
}

/// Lets the language model rewrite the summary from the figures alone; keeps its text only when
/// every number in it is one of the figures, and says in `data.narrative` which text is used.
pub async fn narrate_with_model(llm: Option<&dyn LanguageModel>, mut result: Value) -> Value {
    let deterministic = result["summary"].as_str().unwrap_or_default().to_owned();
    let narrative = match llm {
        None => json!({ "source": "deterministic", "reason": "no language model is configured (LLM_BASE_URL)" }),
        Some(llm) => {
            let mut allowed: Vec<f64> = cited_numbers(&deterministic);
            let mut figures = String::new();
            for metric in result["metrics"].as_array().into_iter().flatten() {
                if let (Some(name), Some(value)) = (metric["name"].as_str(), metric["value"].as_f64()) {
                    let symbol = metric["symbol"].as_str().map(|s| format!("{s} ")).unwrap_or_default();
                    figures
                        .push_str(&format!("- {symbol}{name} = {value} ({})\n", metric["unit"].as_str().unwrap_or("")));
                    allowed.push(value);
                }
                for input in metric["inputs"].as_array().into_iter().flatten() {
                    allowed.extend(input["value"].as_f64());
                }
            }
            let request = ChatRequest::new(vec![
                ChatMessage::system(NARRATOR_INSTRUCTIONS),
                ChatMessage::user(format!("Figures:\n{figures}\nDraft summary:\n{deterministic}")),
            ])
            .with_temperature(0.2)
            .with_max_tokens(400);
            match llm.complete(request).await {
                Ok(response) => {
                    let text = response.content.unwrap_or_default().trim().to_owned();
                    let uncited = uncited_numbers(&text, &allowed);
                    if text.is_empty() {
                        json!({ "source": "deterministic", "model": llm.model(), "reason": "the model returned no text" })
                    } else if uncited.is_empty() {
                        result["summary"] = json!(text);
                        json!({ "source": "llm", "model": llm.model() })
                    } else {
                        json!({
                            "source": "deterministic",
                            "model": llm.model(),
                            "reason": "the model's summary cited numbers that are not among the figures",
                            "uncited_numbers": uncited,
                        })
                    }
                }
                Err(error) => {
                    json!({ "source": "deterministic", "model": llm.model(), "reason": error.to_string() })
                }
            }
        }
    };
    if let Some(data) = result.get_mut("data").and_then(Value::as_object_mut) {
        data.insert("narrative".into(), narrative);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_as_written() {
        assert_eq!(
            cited_numbers("Debt is 0.88x EBITDA; revenue 383,285,000,000; return -6.9%."),
            [0.88, 383_285_000_000.0, -6.9]
        );
        assert_eq!(cited_numbers("no figures here"), Vec::<f64>::new());
        assert_eq!(cited_numbers("B-2 grade, 1.5."), [2.0, 1.5]);
    }

    #[test]
    fn figures_may_be_rounded_or_given_as_percentages_but_not_invented() {
        let allowed = [0.8812, 29.0641, 0.069_31, 383_285_000_000.0];
        assert!(
            uncited_numbers("Leverage 0.88x, coverage 29.1x, return 6.9%, revenue 383,285,000,000.", &allowed)
                .is_empty()
        );
        assert_eq!(uncited_numbers("Leverage 0.88x and a margin of 45.2%.", &allowed), [45.2]);
        assert!(uncited_numbers("Fiscal 2023, three facilities, 12 months.", &allowed).is_empty());
    }
}
