//! How a stored analysis writes its statements, their provenance and its market findings as JSON.

use serde_json::{Value, json};

use crate::domain::quant::market::MarketFinding;
use crate::domain::quant::quarterly::QuarterStatement;
use crate::domain::quant::statements::FiscalYearStatement;
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
