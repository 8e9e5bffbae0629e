//! The summary of an analysis: the deterministic narrator (plain sentences from the computed figures
//! only, written as [`display`] writes figures: USD 383.3 bn, 0.88×, 29.8%), and a language model's
//! rewrite, checked against the figures it was given: every number it cites must be one of them (as
//! written, rounded, at a scale such as "383.3 bn", or as a percentage of a fraction). A summary that
//! introduces a number of its own is refused and the deterministic narrator's text stands.

use serde_json::{Value, json};

use super::credit::CreditAnalysis;
use super::display::{amount, multiple, percent, score};
use super::loan::LoanAssessment;
use super::market::{InstrumentStatistics, TimeRange};
use super::quarterly::TrailingTwelveMonths;
use super::report::{stored_label, written_metric};
use super::request::LoanApplication;
use crate::ports::llm::{ChatMessage, ChatRequest, LanguageModel};

/// A number as written in a text: its value (with the scale word that follows it applied) and
/// half a unit of its last written digit at that scale, the most rounding can have moved it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cited {
    value: f64,
    rounding: f64,
}

/// Scale words that may follow a number, and what they multiply it by.
const SCALE_WORDS: [(&str, f64); 10] = [
    ("thousand", 1e3),
    ("million", 1e6),
    ("billion", 1e9),
    ("trillion", 1e12),
    ("k", 1e3),
    ("m", 1e6),
    ("mn", 1e6),
    ("bn", 1e9),
    ("tn", 1e12),
    ("trn", 1e12),
];

/// The scale word at the start of `rest` (after at most one space), ending at a word boundary.
fn scale_after(rest: &str) -> Option<f64> {
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    SCALE_WORDS.iter().find_map(|(word, factor)| {
        let head = rest.get(..word.len()).filter(|head| head.eq_ignore_ascii_case(word))?;
        let boundary = rest[head.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        boundary.then_some(*factor)
    })
}

fn cited(text: &str) -> Vec<Cited> {
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
                let decimals = digits.split_once('.').map_or(0, |(_, fraction)| fraction.len());
                let factor = scale_after(&text[i..]).unwrap_or(1.0);
                let rounding = 0.5 * 10f64.powi(-i32::try_from(decimals).unwrap_or(0)) * factor;
                let value = value * factor;
                numbers.push(Cited { value: if negative { -value } else { value }, rounding });
            }
        } else {
            i += 1;
        }
    }
    numbers
}

/// The numbers written in `text`: digits with an optional sign, thousands separators, decimals and
/// a scale word ("1,234.5", "-0.88", "29.06x", "6.9%", "USD 383.3 bn" → 1234.5, -0.88, 29.06, 6.9,
/// 383.3e9).
pub fn cited_numbers(text: &str) -> Vec<f64> {
    cited(text).into_iter().map(|number| number.value).collect()
}

/// Whether `cited` is one of `allowed`: equal within rounding to the precision it is written with
/// (two significant decimals at least, a unit of the last digit for a scaled amount), directly or
/// as a percentage of a fraction.
fn matches_a_figure(cited: Cited, allowed: &[f64]) -> bool {
    allowed.iter().any(|&value| {
        [value, value * 100.0].into_iter().any(|candidate| {
            let tolerance = (candidate.abs() * 0.005).max(0.051).max(cited.rounding * 1.000_001);
            (cited.value - candidate).abs() <= tolerance || (cited.value.abs() - candidate.abs()).abs() <= tolerance
        })
    })
}

/// The numbers of `summary` that are none of `allowed` (empty: the summary may be used). Small
/// integers up to 12 (counts like "three facilities", "12 months") and years 1900–2100 are allowed.
pub fn uncited_numbers(summary: &str, allowed: &[f64]) -> Vec<f64> {
    cited(summary)
        .into_iter()
        .filter(|n| {
            let small_count = n.value.fract() == 0.0 && (0.0..=12.0).contains(&n.value);
            let year = n.value.fract() == 0.0 && (1900.0..=2100.0).contains(&n.value);
            !(small_count || year || matches_a_figure(*n, allowed))
        })
        .map(|n| n.value)
        .collect()
}

const NARRATOR_INSTRUCTIONS: &str = "You write the executive summary of a credit analysis for a bank's credit \
    committee: three to five plain sentences. Use only the figures given, exactly or rounded, written as they are given \
    (amounts with their currency and scale, multiples with ×, percentages with %); introduce no other number, no \
    forecast and no recommendation that is not among them. Do not use lists or headings.";

pub fn narrate_market(
    stats: &[InstrumentStatistics],
    benchmark: Option<&InstrumentStatistics>,
    range: TimeRange,
) -> String {
    let mut sentences = Vec::new();
    for s in stats.iter().chain(benchmark) {
        let mut parts = Vec::new();
        if let Some(ret) = s.value("period_return") {
            parts.push(format!("returned {}", percent(ret)));
        }
        if let Some(vol) = s.value("annualised_volatility") {
            parts.push(format!("annualised volatility {}", percent(vol)));
        }
        if let Some(drawdown) = s.value("max_drawdown") {
            parts.push(format!("maximum drawdown {}", percent(drawdown)));
        }
        if !parts.is_empty() {
            sentences.push(format!("{} over {}: {}.", s.symbol, range.as_str(), parts.join(", ")));
        }
    }
    sentences.join(" ")
}

/// The loan's summary; `currency` is the loan amount's, in which the borrower's statements are too.
pub fn narrate_loan(name: &str, application: &LoanApplication, currency: &str, assessment: &LoanAssessment) -> String {
    let mut sentences = vec![format!(
        "{} applies for a {} of {}.",
        name,
        application.loan_type.as_str().replace('_', " "),
        amount(application.loan_amount, Some(currency))
    )];
    if let Some(metric) = assessment.metric("pro_forma_debt_to_ebitda") {
        sentences.push(format!("Pro-forma debt would be {} EBITDA.", multiple(metric.value)));
    }
    if let Some(metric) = assessment.metric("pro_forma_dscr") {
        sentences.push(format!("Pro-forma debt service coverage (DSCR) would be {}.", multiple(metric.value)));
    }
    if let (Some(grade), Some(pd)) = (assessment.grade, assessment.pd) {
        sentences.push(format!("The pro-forma grade is {grade} (one-year PD {}).", percent(pd)));
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
/// `(name, currency)`: the currency of the statements' amounts, when it is known (SEC filings are
/// in USD, supplied statements say theirs); without one amounts are written scaled, without a
/// currency.
pub fn narrate(
    (name, currency): (&str, Option<&str>),
    credit: Option<&CreditAnalysis>,
    ttm: Option<&TrailingTwelveMonths>,
    stock: Option<&InstrumentStatistics>,
    benchmark: &str,
) -> String {
    let mut sentences = Vec::new();
    let figure = |name: &str| credit.and_then(|c| c.value(name));
    let amount = |value: f64| amount(value, currency);
    if let Some(credit) = credit {
        if let Some(year) = credit.fiscal_year_end {
            sentences.push(format!("{name} (fiscal year ended {year})."));
        }
        if let Some(revenue) = figure("revenue") {
            sentences.push(format!("Revenue was {}.", amount(revenue)));
        }
        if let Some(leverage) = figure("debt_to_ebitda") {
            sentences.push(format!("Debt is {} EBITDA.", multiple(leverage)));
        }
        if let Some(coverage) = figure("ebit_interest_coverage") {
            sentences.push(format!("EBIT covers interest {}.", multiple(coverage)));
        }
        if let Some(rating) = &credit.rating {
            sentences.push(format!(
                "The synthetic rating from interest coverage is {} (one-year PD {}).",
                rating.grade,
                percent(rating.pd)
            ));
        }
        if let Some(ttm) = ttm {
            let mut parts = Vec::new();
            if let Some(revenue) = ttm.value("ttm_revenue") {
                parts.push(format!("revenue was {}", amount(revenue)));
            }
            if let Some(leverage) = ttm.value("ttm_debt_to_ebitda") {
                parts.push(format!("debt was {} EBITDA", multiple(leverage)));
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
            sentences.push(format!("Over the last year the share returned {}.", percent(ret)));
        }
        if let Some(vol) = stats.value("annualised_volatility") {
            sentences.push(format!("Annualised volatility is {}.", percent(vol)));
        }
        if let Some(beta) = stats.value("beta") {
            sentences.push(format!("Beta against {benchmark} is {}.", score(beta)));
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
                if let Some(value) = metric["value"].as_f64() {
                    let symbol = metric["symbol"].as_str().map(|s| format!("{s} ")).unwrap_or_default();
                    figures.push_str(&format!("- {symbol}{}: {}\n", stored_label(metric), written_metric(metric)));
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
    use time::macros::date;

    use super::super::credit::analyse_credit;
    use super::super::loan::{LoanPolicy, LoanRequest, LoanType, Seniority, assess_loan};
    use super::super::statements::{CompanyFinancials, FiscalYearStatement};
    use super::*;

    /// Apple's fiscal 2023 as its 10-K reports it (the SEC fixture CIK0000320193.json).
    fn apple_fiscal_2023() -> CompanyFinancials {
        let mut year = FiscalYearStatement::empty(date!(2023 - 09 - 30));
        year.revenue = Some(383_285_000_000.0);
        year.operating_income = Some(114_301_000_000.0);
        year.depreciation_amortization = Some(11_519_000_000.0);
        year.interest_expense = Some(3_933_000_000.0);
        year.net_income = Some(96_995_000_000.0);
        year.long_term_debt_noncurrent = Some(95_281_000_000.0);
        year.long_term_debt_current = Some(9_822_000_000.0);
        year.commercial_paper = Some(5_985_000_000.0);
        CompanyFinancials::new("Apple Inc.", Some("AAPL".to_owned()), vec![year])
    }

    #[test]
    fn a_summary_writes_amounts_with_their_currency_and_scale_and_ratios_with_their_unit() {
        let credit = analyse_credit(&apple_fiscal_2023(), None);
        let summary = narrate(("Apple Inc.", Some("USD")), Some(&credit), None, None, "SPY");
        assert!(summary.contains("Revenue was USD 383.3 bn."), "{summary}");
        assert!(summary.contains("Debt is 0.88× EBITDA."), "{summary}");
        assert!(summary.contains("EBIT covers interest 29.1×."), "{summary}");
        let bare_integers = summary.split(|c: char| !c.is_ascii_digit()).filter(|digits| digits.len() >= 9).count();
        assert_eq!(bare_integers, 0, "no amount is written as a bare integer: {summary}");
    }

    #[test]
    fn without_a_known_currency_amounts_are_scaled_and_no_currency_is_invented() {
        let credit = analyse_credit(&apple_fiscal_2023(), None);
        let summary = narrate(("Apple Inc.", None), Some(&credit), None, None, "SPY");
        assert!(summary.contains("Revenue was 383.3 bn."), "{summary}");
        assert!(!summary.contains("USD"), "{summary}");
    }

    #[test]
    fn a_loan_summary_writes_the_amount_with_its_currency() {
        let request = LoanRequest::new(250_000_000.0, LoanType::TermLoan, Seniority::SeniorUnsecured).expect("valid");
        let assessment = assess_loan(&apple_fiscal_2023(), request, &LoanPolicy::default());
        let application = LoanApplication {
            borrower_name: "Apple Inc.".to_owned(),
            loan_amount: 250_000_000.0,
            loan_type: LoanType::TermLoan,
            deal_id: None,
            financials: None,
            statement_set_id: None,
        };
        let summary = narrate_loan("Apple Inc.", &application, "USD", &assessment);
        assert!(summary.starts_with("Apple Inc. applies for a term loan of USD 250.0 m."), "{summary}");
        assert!(summary.contains("Pro-forma debt would be 0.88× EBITDA."), "{summary}");
    }

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
    fn a_scale_word_after_a_number_is_part_of_it() {
        assert_eq!(
            cited_numbers("Revenue was USD 383.3 bn, capex $1.2 billion, fees USD 750 k, cash -40.0 m."),
            [383.3e9, 1.2e9, 750e3, -40e6]
        );
        assert_eq!(
            cited_numbers("over 12 months, 3 mn"),
            [12.0, 3e6],
            "a word that only begins like a scale is not one"
        );
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

    #[test]
    fn an_amount_may_be_cited_at_a_scale_to_the_precision_it_is_written_with() {
        let allowed = [383_285_000_000.0, 1_249_000_000.0];
        assert!(uncited_numbers("Revenue was USD 383.3 bn, or $383 billion.", &allowed).is_empty());
        assert!(uncited_numbers("Free cash flow was USD 1.2 bn.", &allowed).is_empty(), "1.249 bn to one decimal");
        assert_eq!(uncited_numbers("Revenue will reach USD 420.0 bn.", &allowed), [420e9]);
        assert_eq!(uncited_numbers("Revenue was USD 383.3 m.", &allowed), [383.3e6], "the scale matters");
    }
}
