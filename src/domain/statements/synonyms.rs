//! THE synonym table: the one documented list of the row labels a spreadsheet may give each line
//! item, the labels that look like an item but are deliberately not read as it (each with the
//! reason the analyst is told), and the normalisation a label goes through before it is looked up.
//!
//! A label is normalised ([`normalise_label`]: lower case, spaces collapsed, apostrophes dropped,
//! `&` between words read as `and`, a serial comma before `and` dropped, hyphens between words
//! read as spaces, spaces around `/` and dashes made uniform, leading numbering such as `1.` or
//! `a)` and trailing footnote marks such as `(1)`, `(a)`, `(note 7)` or `*` and a trailing `:`
//! dropped) and then read by [`super::labels`], which looks it up here exactly first and then
//! reads the qualifiers people put around these labels (`Operating income (EBIT)`, `Revenue, net`,
//! `Income tax – Total`). Nothing is guessed: a label that is neither here nor one of these
//! labels with a qualifier known to leave the figure unchanged is listed back to the analyst as
//! unrecognised. Adding a synonym means adding a line here (the tests check that every entry is
//! already normalised and that no label names two items).
//!
//! Labels deliberately not read, and why (in this product a withheld figure is better than a
//! wrong one; each of these is listed back with its reason, so the analyst can relabel the row
//! when they mean it):
//! - `adjusted ebitda` (and `ebitda (adjusted)`, `pro forma ebitda`, `underlying operating
//!   profit`, `operating profit before exceptional items`, French `current operating profit`):
//!   the borrower's adjustments are not the reported item; reading them would overstate it.
//! - `interest expense, net`, `net interest expense`, `finance costs, net`, `net finance costs`:
//!   net of interest income, so they understate the interest a borrower pays; coverage ratios
//!   would look better than they are. The design has no honest item for a net interest figure,
//!   so the row is refused with that reason rather than read as something it is not.
//! - Tax labels that present the benefit as the positive figure (`income tax (expense)
//!   benefit`, `income tax benefit`, `benefit for income taxes`, `income tax credit/(expense)`,
//!   `total tax (expense)/income`): the opposite of [`StatementItem::IncomeTax`]'s sign. The
//!   word in parentheses is the one shown negative, so `tax provision (benefit)` is read.
//! - `net loss`, `operating loss`, `loss from operations`, `loss for the year`: a loss stated as
//!   a positive number has the opposite sign of the item. `net income (loss)`, `operating
//!   (loss)/profit`, `(loss) income from operations` are read: their figure is signed as income.
//! - `net worth`, `tangible net worth`, `net assets`: lenders often mean tangible net worth
//!   (equity less intangibles) by net worth, and a UK balance sheet states `net assets` beside
//!   `total equity`, which would read as one item twice.
//! - `accumulated deficit`, `total stockholders' deficit`: US sheets show a deficit in
//!   parentheses (negative) but some state it as a positive number; the sign cannot be told
//!   from the label, so it is not guessed. `retained earnings (accumulated deficit)`, `retained
//!   earnings (deficit)` and `total stockholders' equity (deficit)` are read: their figure is
//!   signed as the item.
//! - `current portion of long-term debt`, `current maturities of long-term debt`, `principal due
//!   within one year`: balances at the period end (they include debt reclassified as current after
//!   a breach or due on demand), not the principal a repayment schedule calls for.
//! - `depreciation` alone, `amortisation` alone, `depreciation of property, plant and equipment`:
//!   half of the item; `depreciation, amortisation and impairment`: more than the item (an
//!   impairment is not a recurring charge EBITDA adds back).
//! - `cash generated from operations`, `cash flow from operations` (IFRS subtotals): before
//!   interest and tax paid, so not net cash from operating activities (a US sheet may mean the
//!   total by the second; withheld rather than risk the larger figure); `net cash from
//!   operations` is the total and is read.
//! - `revenue from contracts with customers` (IFRS 15): one part of revenue when a company also
//!   has lease, interest or other revenue, which the total includes.
//! - `long-term debt`, `total long-term debt`, `long-term debt, less current portion`,
//!   `short-term borrowings`: one part of the debt, not total debt; `net debt` is net of cash.
//! - A figure that is a share or a part of the item: `… attributable to owners of the parent`
//!   (or to the company, to common shareholders: after non-controlling interests or preferred
//!   dividends), `… from continuing operations`, `… before income taxes`, `… excluding …`,
//!   `… net of …`; `revenue, net` and `sales, net` are read (net of returns and discounts is
//!   what revenue means), `revenue, net of interest expense` is not.

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
    ("net sales revenue", Revenue),
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
    // Dutch and German English: "bedrijfsresultaat", "Betriebsergebnis".
    ("operating result", OperatingIncome),
    ("ebit", OperatingIncome),
    ("depreciation and amortization", DepreciationAmortization),
    ("depreciation and amortisation", DepreciationAmortization),
    ("depreciation and amortization expense", DepreciationAmortization),
    ("depreciation and amortisation expense", DepreciationAmortization),
    ("depreciation and amortization expenses", DepreciationAmortization),
    ("depreciation and amortisation expenses", DepreciationAmortization),
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
    ("tax provision", IncomeTax),
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
    ("net result", NetIncome),
    ("profit for the year", NetIncome),
    ("profit for the period", NetIncome),
    ("profit (loss) for the year", NetIncome),
    ("profit (loss) for the period", NetIncome),
    // IFRS bottom lines before the split between owners and non-controlling interests.
    ("profit after tax", NetIncome),
    ("profit after taxation", NetIncome),
    ("net profit after tax", NetIncome),
    ("profit, net of tax", NetIncome),
    // Balance sheet.
    ("cash", Cash),
    ("cash and cash equivalents", Cash),
    ("cash and equivalents", Cash),
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
    ("interest bearing debt", TotalDebt),
    ("total financial debt", TotalDebt),
    ("financial debt", TotalDebt),
    ("total equity", TotalEquity),
    ("equity", TotalEquity),
    ("total shareholders equity", TotalEquity),
    ("total stockholders equity", TotalEquity),
    ("total shareholders equity (deficit)", TotalEquity),
    ("total stockholders equity (deficit)", TotalEquity),
    ("shareholders equity", TotalEquity),
    ("stockholders equity", TotalEquity),
    ("total shareholders funds", TotalEquity),
    ("shareholders funds", TotalEquity),
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
    ("net cash from operations", OperatingCashFlow),
    ("cash flow from operating activities", OperatingCashFlow),
    ("cash flows from operating activities", OperatingCashFlow),
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
    ("additions to property and equipment", CapitalExpenditure),
    ("acquisition of property, plant and equipment", CapitalExpenditure),
    ("payments for acquisition of property, plant and equipment", CapitalExpenditure),
    ("payments for property, plant and equipment", CapitalExpenditure),
    ("investments in property, plant and equipment", CapitalExpenditure),
    // Only a repayment schedule's figure: see the module docs for the balances left out.
    ("scheduled principal", ScheduledPrincipal),
    ("scheduled principal repayments", ScheduledPrincipal),
    ("scheduled principal payments", ScheduledPrincipal),
    ("scheduled debt repayments", ScheduledPrincipal),
    ("scheduled debt amortization", ScheduledPrincipal),
    ("scheduled debt amortisation", ScheduledPrincipal),
];

/// Why a figure net of interest income is not interest expense.
pub const NET_OF_INTEREST_INCOME: &str = "net of interest income, so it understates the interest the borrower pays and coverage would look better than it is; give interest expense before interest income";

/// Why a deficit label is not read.
const DEFICIT_SIGN: &str =
    "a deficit is shown negative in some sheets and positive in others, so its sign cannot be told from the label";

/// Why a balance due within a year is not the scheduled principal.
const CURRENT_DEBT_BALANCE: &str = "a balance at the period end (it includes debt reclassified as current after a breach or due on demand), not the principal a repayment schedule calls for";

/// Why one part of the debt is not total debt.
pub const PART_OF_DEBT: &str =
    "one part of the debt (the current portion is left out or is all there is), not total debt";

/// Normalised labels that look like an item but whose figure is not it: the item they resemble
/// and why they are not read as it. [`super::labels`] reads the same refusals through the
/// qualifiers around them (`Total long-term debt`, `Long-term debt, less current portion`).
pub const NOT_USED: &[(&str, StatementItem, &str)] = &[
    (
        "net worth",
        TotalEquity,
        "lenders often mean tangible net worth (equity less intangible assets) by it; give total equity",
    ),
    ("tangible net worth", TotalEquity, "equity less intangible assets, not total equity"),
    (
        "net assets",
        TotalEquity,
        "a UK balance sheet states it beside total equity, which would read one item twice; give total equity",
    ),
    ("accumulated deficit", RetainedEarnings, DEFICIT_SIGN),
    ("total stockholders deficit", TotalEquity, DEFICIT_SIGN),
    ("total shareholders deficit", TotalEquity, DEFICIT_SIGN),
    ("stockholders deficit", TotalEquity, DEFICIT_SIGN),
    ("shareholders deficit", TotalEquity, DEFICIT_SIGN),
    ("total deficit", TotalEquity, DEFICIT_SIGN),
    ("current portion of long term debt", ScheduledPrincipal, CURRENT_DEBT_BALANCE),
    ("current maturities of long term debt", ScheduledPrincipal, CURRENT_DEBT_BALANCE),
    ("current portion of borrowings", ScheduledPrincipal, CURRENT_DEBT_BALANCE),
    ("principal due within one year", ScheduledPrincipal, CURRENT_DEBT_BALANCE),
    ("long term debt", TotalDebt, PART_OF_DEBT),
    ("long term borrowings", TotalDebt, PART_OF_DEBT),
    ("net debt", TotalDebt, "net of cash, not the debt owed"),
    ("net financing costs", InterestExpense, NET_OF_INTEREST_INCOME),
    (
        "cash generated from operations",
        OperatingCashFlow,
        "an IFRS subtotal before interest and tax paid, not net cash from operating activities",
    ),
    (
        "cash generated by operations",
        OperatingCashFlow,
        "an IFRS subtotal before interest and tax paid, not net cash from operating activities",
    ),
    // Found by the held-out labels (Alliander 2024): it was read as operating cash flow before.
    (
        "cash flow from operations",
        OperatingCashFlow,
        "in IFRS statements a subtotal before interest and tax paid, not net cash from operating activities",
    ),
    (
        "revenue from contracts with customers",
        Revenue,
        "IFRS 15 revenue is one part of revenue when the company also has lease, interest or other revenue, which the total includes; give total revenue",
    ),
];

/// The line item a normalised label names, when the table has it exactly.
pub fn synonym(normalised: &str) -> Option<StatementItem> {
    SYNONYMS.iter().find(|(synonym, _)| *synonym == normalised).map(|&(_, item)| item)
}

/// The item a normalised label resembles and why it is not read as it, when the table says so.
pub fn not_used(normalised: &str) -> Option<(StatementItem, &'static str)> {
    NOT_USED.iter().find(|(label, ..)| *label == normalised).map(|&(_, item, reason)| (item, reason))
}

/// A label as the tables hold it: lower case, apostrophes dropped, whitespace collapsed, ` & `
/// read as ` and `, a serial comma before `and` dropped, hyphens between words read as spaces,
/// spaces around `/` dropped and dashes between words made ` - `; leading numbering (`1.`, `2)`,
/// `a)`, `(b)`, `iv.`) and trailing footnote marks (`(1)`, `[2]`, `(a)`, `(note 7)`, `*`, `†`)
/// and a trailing `:` dropped.
pub fn normalise_label(label: &str) -> String {
    let lowered = label.to_lowercase().replace(['\u{2019}', '\u{2018}', '`', '\''], "");
    let words = lowered.split_whitespace().collect::<Vec<_>>().join(" ");
    let uniform = words
        .replace(" & ", " and ")
        .replace(", and ", " and ")
        .replace(" – ", " - ")
        .replace(" — ", " - ")
        .replace(" / ", "/")
        .replace("/ ", "/")
        .replace(" /", "/");
    let mut text = spaced_hyphens(&uniform);
    loop {
        let before = text.len();
        text = strip_leading_numbering(&text).to_owned();
        text = strip_trailing_mark(&text).to_owned();
        if text.len() == before {
            return text;
        }
    }
}

/// `long-term` → `long term`: a hyphen between two letters joins words, and people write the
/// same label with and without it. `pp&e`, `d&a` and a dash between spaces are left alone.
fn spaced_hyphens(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(at, &c)| {
            let between_letters =
                at > 0 && chars.get(at + 1).is_some_and(|next| next.is_alphabetic()) && chars[at - 1].is_alphabetic();
            if matches!(c, '-' | '‐' | '‑') && between_letters { ' ' } else { c }
        })
        .collect()
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

/// `Revenue (1)` → `Revenue`, `Operating income (a)` → `Operating income`, `Revenue (note 7)` →
/// `Revenue`, `EBITDA*` → `EBITDA`, `Net sales:` → `Net sales`.
fn strip_trailing_mark(text: &str) -> &str {
    let trimmed = text.trim_end_matches(['*', '†', '‡', ':', '¹', '²', '³']).trim_end();
    for (open, close) in [('(', ')'), ('[', ']')] {
        if let Some(inner) = trimmed.strip_suffix(close)
            && let Some(at) = inner.rfind(open)
            && at > 0
            && is_footnote_mark(&inner[at + 1..])
        {
            return inner[..at].trim_end();
        }
    }
    trimmed
}

/// `1`, `12`, `a`, `note 7`, `notes 12 and 20`, `see note 4`: a reference, not a qualifier.
fn is_footnote_mark(mark: &str) -> bool {
    let digits = !mark.is_empty() && mark.len() <= 2 && mark.chars().all(|c| c.is_ascii_digit());
    let letter = mark.len() == 1 && mark.chars().all(|c| c.is_ascii_lowercase());
    let note = ["note ", "notes ", "see note ", "see notes "].iter().any(|prefix| {
        mark.strip_prefix(prefix).is_some_and(|refs| {
            refs.len() <= 20
                && refs.chars().any(|c| c.is_ascii_digit())
                && refs.split([' ', ',', '.']).all(|word| {
                    word.is_empty()
                        || word == "and"
                        || word.chars().all(|c| c.is_ascii_alphanumeric()) && word.len() <= 4
                })
        })
    });
    digits || letter || note
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
        for &(label, item, reason) in NOT_USED {
            assert_eq!(normalise_label(label), label, "refusal {label:?} is not normalised");
            assert!(!reason.is_empty(), "{label:?} is refused without a reason");
            if let Some(other) = seen.insert(label, item) {
                panic!("{label:?} is both read as {other:?} and refused");
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
    fn labels_are_normalised_through_numbering_footnotes_punctuation_and_spacing() {
        for (written, normalised) in [
            ("  Total   Revenues (1)", "total revenues"),
            ("1. Net sales:", "net sales"),
            ("a) EBITDA*", "ebitda"),
            ("Total Shareholders’ Equity", "total shareholders equity"),
            ("Depreciation & Amortisation [2]", "depreciation and amortisation"),
            ("Operating income (a)", "operating income"),
            ("Revenue (note 7)", "revenue"),
            ("Borrowings (notes 12 and 20)", "borrowings"),
            ("Additions to property, plant, and equipment", "additions to property, plant and equipment"),
            ("Long-term debt", "long term debt"),
            ("Operating (loss) / profit", "operating (loss)/profit"),
            ("Income Tax – Total", "income tax - total"),
            ("Purchases of PP&E", "purchases of pp&e"),
            ("(1)", "(1)"),
        ] {
            assert_eq!(normalise_label(written), normalised, "{written}");
        }
    }

    #[test]
    fn a_qualifier_in_parentheses_is_not_taken_for_a_footnote() {
        assert_eq!(normalise_label("Operating income (EBIT)"), "operating income (ebit)");
        assert_eq!(normalise_label("Revenue (Europe)"), "revenue (europe)");
        assert_eq!(normalise_label("Net income (loss)"), "net income (loss)");
    }
}
