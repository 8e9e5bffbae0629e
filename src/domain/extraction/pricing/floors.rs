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

static ZERO_FLOOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:less[ \t\r\n]+than|below)[ \t\r\n]+zero\b[^;]{0,240}?\bdeemed[ \t\r\n]+to[ \t\r\n]+be[ \t\r\n]+zero\b",
    )
});

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
    for zero in ZERO_FLOOR.find_iter(doc.text) {
        found.push((zero.range(), Decimal::ZERO));
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
