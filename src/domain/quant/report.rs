//! How a stored analysis writes its metrics, statements, their provenance and its market findings
//! as JSON, and how a stored metric is read back into words.

use serde_json::{Value, json};

use crate::domain::quant::display::figure;
use crate::domain::quant::labels;
use crate::domain::quant::market::MarketFinding;
use crate::domain::quant::quarterly::QuarterStatement;
use crate::domain::quant::statements::FiscalYearStatement;
use crate::domain::quant::{Metric, Unit};
use crate::ports::financial_data::{LineProvenance, QuarterlyStatementsWithProvenance, StatementsWithProvenance};

pub fn statement_json(year: &FiscalYearStatement) -> Value {
    let mut value = lines_json(year);
    if let Some(object) = value.as_object_mut() {
        object.insert("fiscal_year_end".into(), json!(year.fiscal_year_end.to_string()));
    }
    value
}

/// A quarter's period, how it was obtained, and its lines as [`statement_json`] has them.
pub fn quarter_json(quarter: &QuarterStatement) -> Value {
    let mut value = lines_json(&quarter.lines);
    if let Some(object) = value.as_object_mut() {
        object.insert("period_start".into(), json!(quarter.period_start.to_string()));
        object.insert("period_end".into(), json!(quarter.period_end.to_string()));
        object.insert("source".into(), json!(quarter.source));
    }
    value
}

pub fn quarterly_json(quarterly: &QuarterlyStatementsWithProvenance) -> Value {
    json!({
        "quarters": quarterly.statements.quarters().iter().map(quarter_json).collect::<Vec<_>>(),
        "provenance": quarterly.provenance.iter().map(|p| line_provenance_json("quarter_end", p)).collect::<Vec<_>>(),
        "left_out": quarterly.left_out,
    })
}

/// The lines of a fiscal year or a quarter, with total debt.
pub fn lines_json(year: &FiscalYearStatement) -> Value {
    json!({
        "revenue": year.revenue,
        "gross_profit": year.gross_profit,
        "operating_income": year.operating_income,
        "net_income": year.net_income,
        "depreciation_amortization": year.depreciation_amortization,
        "interest_expense": year.interest_expense,
        "income_tax": year.income_tax,
        "total_assets": year.total_assets,
        "current_assets": year.current_assets,
        "total_liabilities": year.total_liabilities,
        "current_liabilities": year.current_liabilities,
        "total_debt": year.total_debt(),
        "equity": year.equity,
        "cash": year.cash,
        "cash_from_operations": year.cash_from_operations,
        "capital_expenditure": year.capital_expenditure,
        "shares_outstanding": year.shares_outstanding,
    })
}

pub fn provenance_json(statements: &StatementsWithProvenance) -> Vec<Value> {
    statements.provenance.iter().map(|p| line_provenance_json("fiscal_year_end", p)).collect()
}

/// One provenance entry; `statement_key` names the statement's end (`fiscal_year_end`, `quarter_end`).
pub fn line_provenance_json(statement_key: &str, p: &LineProvenance) -> Value {
    json!({
        statement_key: p.statement_end.to_string(),
        "line": p.line.as_str(),
        "tag": p.tag,
        "value": p.value,
        "accession_number": p.accession_number,
        "form": p.form,
        "period_start": p.period_start.map(|d| d.to_string()),
        "period_end": p.period_end.to_string(),
        "filed": p.filed.to_string(),
        "source_url": p.source_url,
        "derivation": p.derivation,
    })
}

/// A market finding in the shape of every finding — `{category, severity, statement, evidence:
/// {metric, value, threshold?, symbol}}` — with all the figures of a ranking under `compared`.
pub fn finding_json(finding: &MarketFinding) -> Value {
    let mut value = json!({
        "category": finding.category,
        "severity": finding.severity,
        "statement": finding.statement,
        "evidence": finding.evidence.first(),
    });
    if finding.evidence.len() > 1 {
        value["compared"] = json!(finding.evidence);
    }
    value
}

/// A metric as a result lists it: its own fields (`name`, `label`, `value`, `unit`, `formula`,
/// `inputs`), `currency` — the currency of its amounts, its value when the unit is `currency` and
/// its inputs that are amounts — when it is known, and `symbol`, the instrument of a market metric.
pub fn metric_json(metric: &Metric, currency: Option<&str>, symbol: Option<&str>) -> Value {
    let mut value = json!(metric);
    if let Some(object) = value.as_object_mut() {
        if let Some(currency) = currency {
            object.insert("currency".into(), json!(currency));
        }
        if let Some(symbol) = symbol {
            object.insert("symbol".into(), json!(symbol));
        }
    }
    value
}

/// The label of a stored metric or input: the one stored with it, else (a result stored before
/// labels were) the one [`labels`] gives its name.
pub fn stored_label(figure: &Value) -> String {
    match figure["label"].as_str() {
        Some(label) if !label.is_empty() => label.to_owned(),
        _ => labels::label(figure["name"].as_str().unwrap_or_default()),
    }
}

/// The unit of a stored metric or input, or the one [`labels`] gives its name.
fn stored_unit(figure: &Value) -> Unit {
    serde_json::from_value(figure["unit"].clone())
        .unwrap_or_else(|_| labels::unit(figure["name"].as_str().unwrap_or_default()))
}

/// A stored metric's value in words: "USD 383.3 bn", "0.88×", "29.8%"; "not computed" without one.
pub fn written_metric(metric: &Value) -> String {
    written_figure(metric, metric["currency"].as_str())
}

/// A stored metric's inputs in words: "Total debt = USD 111.1 bn, EBITDA = USD 125.8 bn".
pub fn written_inputs(metric: &Value) -> String {
    let currency = metric["currency"].as_str();
    metric["inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|input| format!("{} = {}", stored_label(input), written_figure(input, currency)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn written_figure(stored: &Value, currency: Option<&str>) -> String {
    stored["value"].as_f64().map_or_else(|| "not computed".to_owned(), |v| figure(v, stored_unit(stored), currency))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_is_listed_with_its_label_currency_and_symbol_and_read_back_in_words() {
        let leverage = Metric::new(
            "debt_to_ebitda",
            0.8829,
            Unit::Ratio,
            "total_debt / ebitda",
            &[("total_debt", 111_088_000_000.0), ("ebitda", 125_820_000_000.0)],
        );
        let stored = metric_json(&leverage, Some("USD"), None);
        assert_eq!(
            (stored["name"].as_str(), stored["label"].as_str()),
            (Some("debt_to_ebitda"), Some("Debt / EBITDA"))
        );
        assert_eq!(stored["value"], 0.8829, "the raw value is kept");
        assert_eq!(stored["currency"], "USD");
        assert_eq!(stored["inputs"][0]["label"], "Total debt");
        assert_eq!(stored["inputs"][0]["unit"], "currency");
        assert!(stored.get("symbol").is_none());
        assert_eq!(written_metric(&stored), "0.88×");
        assert_eq!(written_inputs(&stored), "Total debt = USD 111.1 bn, EBITDA = USD 125.8 bn");
    }

    #[test]
    fn a_metric_stored_before_labels_is_read_with_the_labels_of_its_names() {
        let stored = json!({
            "name": "revenue", "value": 383_285_000_000.0, "unit": "currency",
            "inputs": [{ "name": "revenue", "value": 383_285_000_000.0 }],
        });
        assert_eq!(stored_label(&stored), "Revenue");
        assert_eq!(written_metric(&stored), "383.3 bn", "no currency is invented");
        assert_eq!(written_inputs(&stored), "Revenue = 383.3 bn");
        assert_eq!(written_metric(&json!({ "name": "beta" })), "not computed");
    }
}
