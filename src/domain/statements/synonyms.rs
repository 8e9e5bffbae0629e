//! THE synonym table: the one documented list of the row labels a spreadsheet may give each line
//! item, and the normalisation a label goes through before it is looked up.
//!
//! A label is normalised ([`normalise_label`]: lower case, spaces collapsed, curly apostrophes made
//! straight, leading numbering such as `1.` or `a)` and trailing footnote marks such as `(1)` or
//! `*` and a trailing `:` dropped) and then looked up here, exactly. Nothing is guessed: a label
//! not in this table is listed back to the analyst as unrecognised. Adding a synonym means adding
//! a line here (the tests check that every entry is already normalised and that no label names
//! two items).
//!
//! Labels deliberately left out, and why:
//! - `adjusted ebitda` (and `ebitda (adjusted)`, `pro forma ebitda`): the borrower's adjustments
//!   are not EBITDA; reading them as EBITDA would overstate it. The analyst relabels the row if
//!   they mean to use it.
//! - `interest expense, net`, `net interest expense`, `finance costs, net`, `net finance costs`:
//!   net of interest income, so they understate the interest a borrower pays; coverage ratios
//!   would look better than they are.
//! - `income tax (expense) benefit`, `income tax benefit`: presented with the expense negative,
//!   the opposite of [`StatementItem::IncomeTax`]'s sign.
//! - `net loss`, `operating loss`, `loss from operations`: a loss stated as a positive number has
//!   the opposite sign of the item.
//! - `net worth`, `tangible net worth`, `net assets`: lenders often mean tangible net worth
//!   (equity less intangibles) by net worth, and a UK balance sheet states `net assets` beside
//!   `total equity`, which would read as one item twice.
//! - `accumulated deficit`: US sheets show it in parentheses (negative) but some state the
//!   deficit as a positive number; the sign cannot be told from the label, so it is not guessed.
//!   `retained earnings (accumulated deficit)` and `retained earnings (deficit)` are recognised:
//!   their figure is signed as retained earnings.
//! - `current portion of long-term debt`, `current maturities of long-term debt`, `principal due
//!   within one year`: balances at the period end (they include debt reclassified as current after
//!   a breach or due on demand), not the principal a repayment schedule calls for.
//! - `depreciation` alone, `amortisation` alone: half of the item.
//! - `cash generated from operations` (IFRS): before interest and tax paid, so not net cash from
//!   operating activities.
//! - `long-term debt`: leaves out the current portion, so it is not total debt; `net debt` is net
//!   of cash.

use super::StatementItem::{self, *};

/// Normalised row label → line item.
pub const SYNONYMS: &[(&str, StatementItem)] = &[
    // Income statement.
    ("revenue", Revenue),
    ("revenues", Revenue),
    ("total revenue", Revenue),
    ("total revenues", Revenue),
    ("net revenue", Revenue),
    ("net revenues", Revenue),
    ("total net revenue", Revenue),
    ("total net revenues", Revenue),
    ("net sales", Revenue),
    ("total net sales", Revenue),
    ("sales", Revenue),
    ("total sales", Revenue),
    ("turnover", Revenue),
    ("operating income", OperatingIncome),
    ("operating income (loss)", OperatingIncome),
    ("income from operations", OperatingIncome),
    ("income (loss) from operations", OperatingIncome),
    ("operating profit", OperatingIncome),
    ("operating profit (loss)", OperatingIncome),
    ("ebit", OperatingIncome),
    ("depreciation and amortization", DepreciationAmortization),
    ("depreciation and amortisation", DepreciationAmortization),
    ("depreciation & amortization", DepreciationAmortization),
    ("depreciation & amortisation", DepreciationAmortization),
    ("depreciation, depletion and amortization", DepreciationAmortization),
    ("depreciation, depletion and amortisation", DepreciationAmortization),
    ("d&a", DepreciationAmortization),
    ("ebitda", Ebitda),
    ("interest expense", InterestExpense),
    ("interest expenses", InterestExpense),
    ("interest", InterestExpense),
    // IFRS: interest on borrowings and leases, the interest a borrower pays.
    ("finance costs", InterestExpense),
    ("finance cost", InterestExpense),
    ("income tax expense", IncomeTax),
    ("income tax", IncomeTax),
    ("income taxes", IncomeTax),
    ("provision for income taxes", IncomeTax),
    ("provision for (benefit from) income taxes", IncomeTax),
    ("income tax provision", IncomeTax),
    ("income tax expense (benefit)", IncomeTax),
    ("tax", IncomeTax),
    ("taxation", IncomeTax),
    ("tax expense", IncomeTax),
    ("net income", NetIncome),
    ("net income (loss)", NetIncome),
    ("net income/(loss)", NetIncome),
    ("net profit", NetIncome),
    ("net profit (loss)", NetIncome),
    ("net earnings", NetIncome),
    ("net earnings (loss)", NetIncome),
    ("profit for the year", NetIncome),
    ("profit for the period", NetIncome),
    ("profit (loss) for the year", NetIncome),
    ("profit (loss) for the period", NetIncome),
    // Balance sheet.
    ("cash", Cash),
    ("cash and cash equivalents", Cash),
    ("cash & cash equivalents", Cash),
    ("cash and equivalents", Cash),
    ("cash & equivalents", Cash),
    ("cash at bank and in hand", Cash),
    ("total current assets", CurrentAssets),
    ("current assets", CurrentAssets),
    ("total assets", TotalAssets),
    ("total current liabilities", CurrentLiabilities),
    ("current liabilities", CurrentLiabilities),
    // UK Companies Act format: the total of the current liabilities.
    ("creditors: amounts falling due within one year", CurrentLiabilities),
    ("total liabilities", TotalLiabilities),
    ("total debt", TotalDebt),
    ("total borrowings", TotalDebt),
    ("borrowings", TotalDebt),
    ("debt", TotalDebt),
    ("gross debt", TotalDebt),
    ("interest-bearing debt", TotalDebt),
    ("interest bearing debt", TotalDebt),
    ("total financial debt", TotalDebt),
    ("financial debt", TotalDebt),
    ("total equity", TotalEquity),
    ("equity", TotalEquity),
    ("total shareholders' equity", TotalEquity),
    ("total stockholders' equity", TotalEquity),
    ("total shareholders' equity (deficit)", TotalEquity),
    ("total stockholders' equity (deficit)", TotalEquity),
    ("shareholders' equity", TotalEquity),
    ("stockholders' equity", TotalEquity),
    ("total shareholders' funds", TotalEquity),
    ("shareholders' funds", TotalEquity),
    ("retained earnings", RetainedEarnings),
    ("retained earnings (accumulated deficit)", RetainedEarnings),
    ("retained earnings (deficit)", RetainedEarnings),
    ("retained profits", RetainedEarnings),
    ("retained profit", RetainedEarnings),
    // UK: the reserve of accumulated profits under capital and reserves.
    ("profit and loss account", RetainedEarnings),
    // Cash flow statement.
    ("net cash from operating activities", OperatingCashFlow),
    ("net cash provided by operating activities", OperatingCashFlow),
    ("net cash provided by (used in) operating activities", OperatingCashFlow),
    ("net cash (used in) provided by operating activities", OperatingCashFlow),
    ("net cash generated from operating activities", OperatingCashFlow),
    ("net cash flow from operating activities", OperatingCashFlow),
    ("net cash inflow from operating activities", OperatingCashFlow),
    ("cash flow from operating activities", OperatingCashFlow),
    ("cash flows from operating activities", OperatingCashFlow),
    ("cash flow from operations", OperatingCashFlow),
    ("operating cash flow", OperatingCashFlow),
    ("capital expenditure", CapitalExpenditure),
    ("capital expenditures", CapitalExpenditure),
    ("capex", CapitalExpenditure),
    ("purchases of property, plant and equipment", CapitalExpenditure),
    ("purchase of property, plant and equipment", CapitalExpenditure),
    ("purchases of property and equipment", CapitalExpenditure),
    ("purchase of property and equipment", CapitalExpenditure),
    ("purchases of pp&e", CapitalExpenditure),
    ("purchase of pp&e", CapitalExpenditure),
    ("additions to property, plant and equipment", CapitalExpenditure),
    ("acquisition of property, plant and equipment", CapitalExpenditure),
    // Only a repayment schedule's figure: see the module docs for the balances left out.
    ("scheduled principal", ScheduledPrincipal),
    ("scheduled principal repayments", ScheduledPrincipal),
    ("scheduled principal payments", ScheduledPrincipal),
    ("scheduled debt repayments", ScheduledPrincipal),
    ("scheduled debt amortization", ScheduledPrincipal),
    ("scheduled debt amortisation", ScheduledPrincipal),
];

/// The line item a row label names, when the table has it.
pub fn lookup(label: &str) -> Option<StatementItem> {
    let normalised = normalise_label(label);
    SYNONYMS.iter().find(|(synonym, _)| *synonym == normalised).map(|&(_, item)| item)
}

/// A label as the table holds it: lower case, curly apostrophes straight, whitespace collapsed,
/// leading numbering (`1.`, `2)`, `a)`, `(b)`, `iv.`) and trailing footnote marks (`(1)`, `[2]`,
/// `*`, `†`) and a trailing `:` dropped.
pub fn normalise_label(label: &str) -> String {
    let lowered = label.to_lowercase().replace(['\u{2019}', '\u{2018}', '`'], "'");
    let mut text = lowered.split_whitespace().collect::<Vec<_>>().join(" ");
    loop {
        let before = text.len();
        text = strip_leading_numbering(&text).to_owned();
        text = strip_trailing_mark(&text).to_owned();
        if text.len() == before {
            return text;
        }
    }
}

/// `1. Revenue` → `Revenue`; a numbering is a short token ending `.` or `)` followed by a space.
fn strip_leading_numbering(text: &str) -> &str {
    let Some((first, rest)) = text.split_once(' ') else {
        return text;
    };
    let mark = first.trim_start_matches('(');
    let Some(body) = mark.strip_suffix('.').or_else(|| mark.strip_suffix(')')) else {
        return text;
    };
    let is_number = !body.is_empty() && body.len() <= 3 && body.chars().all(|c| c.is_ascii_digit());
    let is_letter = body.len() == 1 && body.chars().all(|c| c.is_ascii_lowercase());
    let is_roman = matches!(body, "i" | "ii" | "iii" | "iv" | "v" | "vi" | "vii" | "viii" | "ix" | "x");
    if is_number || is_letter || is_roman { rest.trim_start() } else { text }
}

/// `Revenue (1)` → `Revenue`, `EBITDA*` → `EBITDA`, `Net sales:` → `Net sales`.
fn strip_trailing_mark(text: &str) -> &str {
    let trimmed = text.trim_end_matches(['*', '†', '‡', ':', '¹', '²', '³']).trim_end();
    for (open, close) in [('(', ')'), ('[', ']')] {
        if let Some(inner) = trimmed.strip_suffix(close)
            && let Some(at) = inner.rfind(open)
        {
            let mark = &inner[at + 1..];
            if !mark.is_empty() && mark.len() <= 2 && mark.chars().all(|c| c.is_ascii_digit()) {
                return inner[..at].trim_end();
            }
        }
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn every_entry_is_already_normalised_and_names_one_item() {
        let mut seen: HashMap<&str, StatementItem> = HashMap::new();
        for &(label, item) in SYNONYMS {
            assert_eq!(normalise_label(label), label, "entry {label:?} is not normalised");
            if let Some(other) = seen.insert(label, item) {
                panic!("{label:?} names both {other:?} and {item:?}");
            }
        }
    }

    #[test]
    fn every_item_has_at_least_its_plain_name() {
        for item in StatementItem::ALL {
            assert!(SYNONYMS.iter().any(|&(_, i)| i == item), "{item:?} has no synonym");
        }
    }

    #[test]
    fn labels_are_found_through_numbering_footnotes_case_and_spacing() {
        assert_eq!(lookup("  Total   Revenues (1)"), Some(Revenue));
        assert_eq!(lookup("1. Net sales:"), Some(Revenue));
        assert_eq!(lookup("a) EBITDA*"), Some(Ebitda));
        assert_eq!(lookup("Total Shareholders’ Equity"), Some(TotalEquity));
        assert_eq!(lookup("Operating income (loss)"), Some(OperatingIncome));
        assert_eq!(lookup("Depreciation & Amortisation [2]"), Some(DepreciationAmortization));
        assert_eq!(lookup("Net income (loss)"), Some(NetIncome));
    }

    #[test]
    fn near_misses_are_not_guessed() {
        for label in ["Adjusted EBITDA", "Interest expense, net", "Net loss", "Net worth", "Accumulated deficit"] {
            assert_eq!(lookup(label), None, "{label}");
        }
        assert_eq!(lookup("Current portion of long-term debt"), None);
    }
}
