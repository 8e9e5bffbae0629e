//! Which benchmark a facility's margin is over: the preferred one when a margin is stated for loans
//! of two ("Term SOFR Loans and Daily Simple SOFR Loans"), and, when no statement names one, the
//! benchmark the agreement defines for the facility's currency. Only benchmarks in force count: one
//! named only by the benchmark replacement provisions (see `provisions.rs`) is a rate that may
//! come, not one the loans bear.

use crate::domain::extraction::benchmarks::BenchmarkMatch;
use crate::domain::extraction::currency::CurrencyCode;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::FloatingRateIndex;
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{before, clause_around, contains_any_ci, matches_outside_date_names};

/// "with respect to Term SOFR Loans and Daily Simple SOFR Loans, 0.75%": one margin stated for
/// loans of two benchmarks of one currency. The facility's index is then the one the agreement
/// prefers by the rule `default_index` documents (Term SOFR before daily SOFR, EURIBOR before
/// €STR), not whichever happens to stand nearer the figure.
pub(super) fn preferred_of_joined(doc: &Document<'_>, mention: BenchmarkMatch) -> BenchmarkMatch {
    let mut best = mention.clone();
    let mut end = mention.span.start;
    for earlier in doc.benchmarks_in(before(doc.text, mention.span.start, 80)).iter().rev() {
        let joiner = doc.slice(earlier.span.end..end).to_ascii_lowercase();
        let only_joins = joiner
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/'))
            .all(|w| matches!(w, "" | "and" | "or" | "loans" | "loan" | "advances" | "borrowings"));
        if !only_joins || earlier.base_rate {
            break;
        }
        if let (Some(this), Some(that)) = (preference(earlier.index), preference(best.index))
            && this.0 == that.0
            && this.1 < that.1
        {
            best = earlier.clone();
        }
        end = earlier.span.start;
    }
    best
}

/// The currency and rank of an index among those the agreement may define for that currency.
fn preference(index: FloatingRateIndex) -> Option<(&'static str, u8)> {
    match index {
        FloatingRateIndex::UsdSofrCmeTerm => Some(("USD", 0)),
        FloatingRateIndex::UsdSofr => Some(("USD", 1)),
        FloatingRateIndex::EurEuribor => Some(("EUR", 0)),
        FloatingRateIndex::EurEuroStr => Some(("EUR", 1)),
        _ => None,
    }
}

/// Whether the text mentions any benchmark other than the base rate, which decides whether a
/// literal "Prime Rate" is the benchmark or the alternate base rate.
pub(super) fn has_risk_free_benchmark(doc: &Document<'_>) -> bool {
    in_force(doc).any(|b| b.index != FloatingRateIndex::UsdPrime)
}

/// The benchmark mentions in the provisions that state this document's terms: a rate named only
/// as one that may replace the benchmark ("Term SOFR" in a LIBOR agreement's successor-rate
/// provisions), or by a recital of what an existing agreement provided, is not a rate the loans
/// bear.
fn in_force<'d>(doc: &'d Document<'_>) -> impl Iterator<Item = &'d BenchmarkMatch> {
    doc.benchmarks.iter().filter(|b| doc.provisions.set_aside(b.span.clone()).is_none())
}

/// The index a facility uses when no statement names one for it: the benchmark in force the
/// agreement defines for the facility's currency (Term SOFR before daily SOFR before LIBOR before
/// prime for dollars: an agreement that names SOFR outside its replacement provisions has replaced
/// LIBOR with it; EURIBOR before €STR for euro).
pub(super) fn default_index(doc: &Document<'_>, currency: CurrencyCode) -> Option<Sourced<FloatingRateIndex>> {
    let preference: &[FloatingRateIndex] = match currency.as_str() {
        "USD" => &[
            FloatingRateIndex::UsdSofrCmeTerm,
            FloatingRateIndex::UsdSofr,
            FloatingRateIndex::UsdLibor,
            FloatingRateIndex::UsdPrime,
        ],
        "GBP" => &[FloatingRateIndex::GbpSonia, FloatingRateIndex::GbpLibor],
        "EUR" => &[FloatingRateIndex::EurEuribor, FloatingRateIndex::EurEuroStr, FloatingRateIndex::EurLibor],
        "CHF" => &[FloatingRateIndex::ChfSaron, FloatingRateIndex::ChfLibor],
        "JPY" => &[FloatingRateIndex::JpyTona, FloatingRateIndex::JpyLibor],
        "CAD" => &[FloatingRateIndex::CadCorra],
        _ => &[],
    };
    let risk_free = has_risk_free_benchmark(doc);
    for &index in preference {
        if index == FloatingRateIndex::UsdPrime && risk_free {
            continue;
        }
        if let Some(mention) = libor_for_currency(doc, index) {
            return doc.sourced(mention.span.clone(), index);
        }
        let mentions = || in_force(doc).filter(|b| b.index == index && !b.base_rate && !names_another_rate(doc, b));
        let defined = mentions().find(|b| {
            let lead = doc.slice(before(doc.text, b.span.start, 3));
            lead.ends_with('"') || lead.ends_with('“')
        });
        if let Some(mention) = defined.or_else(|| mentions().next()) {
            return doc.sourced(mention.span.clone(), index);
        }
    }
    None
}

/// Whether the clause that names `mention` names it as the measure of another rate (see
/// `ANOTHER_RATE`): such a mention does not tell which benchmark the loans bear.
fn names_another_rate(doc: &Document<'_>, mention: &BenchmarkMatch) -> bool {
    let clause = clause_around(doc.text, mention.span.start);
    matches_outside_date_names(&super::ANOTHER_RATE, doc.slice(clause.start..mention.span.start))
}

/// Words that name a currency other than the dollar, for telling which currency a LIBOR mention
/// is quoted in.
const CURRENCY_MENTIONS: &[(&str, &[&str])] = &[
    ("GBP", &["sterling", "pound", "£", "gbp"]),
    ("EUR", &["euro", "€", "eur"]),
    ("CHF", &["swiss franc", "chf"]),
    ("JPY", &["yen", "¥", "jpy"]),
];

/// A LIBOR mention that is quoted in the currency of `index` when `index` is a non-dollar LIBOR:
/// a LIBOR mention whose surrounding words name that currency ("in relation to any Loan
/// denominated in Dollars or Sterling, the LIBOR Rate"). LIBOR was quoted per currency, and an
/// agreement that does not tie it to the facility's currency leaves the index unstated.
fn libor_for_currency<'d>(doc: &'d Document<'_>, index: FloatingRateIndex) -> Option<&'d BenchmarkMatch> {
    if !matches!(
        index,
        FloatingRateIndex::GbpLibor
            | FloatingRateIndex::EurLibor
            | FloatingRateIndex::ChfLibor
            | FloatingRateIndex::JpyLibor
    ) {
        return None;
    }
    let words = CURRENCY_MENTIONS.iter().find(|(code, _)| *code == index.currency())?.1;
    in_force(doc).filter(|b| b.index == FloatingRateIndex::UsdLibor).find(|b| {
        let clause = clause_around(doc.text, b.span.start);
        let window = clause.start.max(b.span.start.saturating_sub(200))..clause.end.min(b.span.end + 200);
        contains_any_ci(doc.slice(window), words)
    })
}
