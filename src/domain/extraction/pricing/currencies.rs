//! The optional currencies a multicurrency facility may be drawn in, as its definition or label
//! lists them.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::candidates::PricingCandidates;
use crate::domain::extraction::currency::CurrencyCode;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::facility_refs::FacilityKey;
use crate::domain::extraction::text::{before, contains_ci, pattern, sentence_around};

static CURRENCY_NAME: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:[A-Z]{3}\b|(?i:u\.s\.[ \t]+dollars?|us[ \t]+dollars?|dollars?|euros?|sterling|pounds[ \t]+sterling|yen|swiss[ \t]+francs?|canadian[ \t]+dollars?)\b)",
    )
});

pub(super) fn optional_currencies(doc: &Document<'_>, out: &mut PricingCandidates) {
    let is_currency_term = |term: &str| {
        let lower = term;
        matches!(
            lower,
            "optional currency"
                | "optional currencies"
                | "alternative currency"
                | "alternative currencies"
                | "currencies"
                | "available currencies"
        )
    };
    let regions: Vec<Range<usize>> = doc
        .structure
        .definitions_where(is_currency_term)
        .map(|d| d.body.clone())
        .chain(doc.structure.labels_where(is_currency_term).map(|l| l.value.clone()))
        .collect();
    for region in regions {
        let first_sentence = sentence_around(doc.text, region.start);
        let limit = region.end.min(first_sentence.end.max(region.start));
        let text = doc.slice(region.start..limit);
        for found in CURRENCY_NAME.find_iter(text) {
            let stated = found.as_str();
            let code = if stated.len() == 3 && stated.bytes().all(|b| b.is_ascii_uppercase()) {
                CurrencyCode::new(stated)
            } else {
                CurrencyCode::from_words(stated)
            };
            let span = region.start + found.start()..region.start + found.end();
            if let Some(code) = code
                && let Some(value) = doc.sourced(span, code)
                && !out.optional_currencies.iter().any(|c| c.value() == &code)
            {
                out.optional_currencies.push(value);
            }
        }
    }
}

/// Whether the text describes the facility with `key` as multicurrency.
pub(super) fn is_multicurrency(doc: &Document<'_>, key: FacilityKey) -> bool {
    doc.facility_refs.iter().filter(|r| r.key == key).any(|r| {
        let lead = doc.slice(before(doc.text, r.span.start, 24));
        contains_ci(lead, "multicurrency") || contains_ci(lead, "multi-currency")
    })
}
