//! Floors on the benchmark: a defined or labelled floor, "a floor of 0.50%", "2.00% (SOFR floor)",
//! and a rate below zero "deemed to be zero".

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use super::candidates::PricingCandidates;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::scope::{Scoped, scope_at};
use crate::domain::extraction::text::{after, pattern};

pub(super) static FLOOR_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:\(|-)?[ \t]*(?:(?:term[ \t]+)?sofr[ \t]+|euribor[ \t]+|sonia[ \t]+|benchmark[ \t]+|index[ \t]+|interest[ \t]+rate[ \t]+)?floor\b",
    )
});

static FLOOR_OF: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\bfloor[ \t\r\n]+(?:of|equal[ \t\r\n]+to|rate[ \t\r\n]+of)[ \t\r\n]+(?:the[ \t]+)?")
});

/// "would be less than zero, such rate shall be deemed to be zero", "shall be less than 0.50%, the
/// LIBO Rate shall be deemed to be 0.50%": the rate the benchmark may not go under, when the two
/// figures are the same.
static DEEMED_FLOOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:less[ \t\r\n]+than|below)[ \t\r\n]+(?P<below>zero\b|[0-9]{1,2}(?:\.[0-9]{1,4})?[ \t]?%)[^;]{0,240}?\bdeemed[ \t\r\n]+to[ \t\r\n]+be[ \t\r\n]+(?P<deemed>zero\b|[0-9]{1,2}(?:\.[0-9]{1,4})?[ \t]?%)",
    )
});

/// Words of a defined term for a rate that is no benchmark of the loans but a leg of the base rate
/// ("Federal Funds Effective Rate", "NYFRB Rate", "Prime Rate"), or the base rate itself ("ABR",
/// "Alternate Base Rate"): its floor is that rate's, not the benchmark's.
const BASE_RATE_LEGS: &[&str] = &["federal funds", "nyfrb", "overnight bank funding", "prime", "base rate"];

/// Whether a defined term names a leg of the base rate or the base rate (`BASE_RATE_LEGS`).
fn is_base_rate_term(key: &str) -> bool {
    BASE_RATE_LEGS.iter().any(|leg| key.contains(leg)) || key.split_whitespace().any(|word| word == "abr")
}

pub(super) fn floors(doc: &Document<'_>, out: &mut PricingCandidates) {
    let mut found: Vec<(Range<usize>, Decimal)> = Vec::new();
    let is_floor_term = |term: &str| {
        let lower = term;
        lower == "floor" || lower.ends_with(" floor")
    };
    for definition in doc.structure.definitions_where(is_floor_term) {
        found.extend(doc.percents_in(definition.body.clone()).iter().map(|p| (p.span.clone(), p.fraction)));
    }
    for label in doc.structure.labels_where(|name| name == "floor" || name.ends_with(" floor")) {
        found.extend(doc.percents_in(label.value.clone()).iter().take(1).map(|p| (p.span.clone(), p.fraction)));
    }
    for lead in FLOOR_OF.find_iter(doc.text) {
        if let Some(p) = doc.percents_in(after(doc.text, lead.end(), 24)).first()
            && doc.slice(lead.end()..p.span.start).trim().is_empty()
        {
            found.push((p.span.clone(), p.fraction));
        }
    }
    for pct in &doc.percents {
        let following = doc.slice(after(doc.text, pct.span.end, 40));
        if FLOOR_AFTER.is_match(following) {
            found.push((pct.span.clone(), pct.fraction));
        }
    }
    for deemed in DEEMED_FLOOR.captures_iter(doc.text) {
        let (Some(whole), Some(below), Some(floor)) = (deemed.get(0), deemed.name("below"), deemed.name("deemed"))
        else {
            continue;
        };
        let figure = |m: regex::Match<'_>| -> Option<Decimal> {
            if m.as_str().eq_ignore_ascii_case("zero") {
                return Some(Decimal::ZERO);
            }
            let digits = m.as_str().trim_end_matches('%').trim();
            digits.parse::<Decimal>().ok().map(|d| d / Decimal::ONE_HUNDRED)
        };
        let of_a_base_rate_leg = doc.structure.definition_at(whole.start()).is_some_and(|d| is_base_rate_term(&d.key));
        if let (Some(below), Some(value)) = (figure(below), figure(floor))
            && below == value
            && !of_a_base_rate_leg
        {
            found.push((whole.range(), value));
        }
    }
    found.sort_by_key(|(span, _)| (span.start, span.end));
    found.dedup_by(|a, b| a.0 == b.0);
    for (span, value) in found {
        let keys = scope_at(doc, span.start);
        if let Some(value) = doc.sourced(span, value) {
            out.floors.push(Scoped::new(value, keys));
        }
    }
}
