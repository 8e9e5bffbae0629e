//! The scanned document every extractor reads: the text, its structure, and every amount,
//! percentage, date, ratio, facility reference and benchmark found in it, each list in text order.
//! Scanning once and looking values up by binary search keeps extraction linear in the text.

use std::ops::Range;

use super::benchmarks::{BenchmarkMatch, find_benchmarks, with_aliases};
use super::dates::{DateMatch, find_dates};
use super::facility_refs::{FacilityRef, find_facility_refs};
use super::lei::{LeiMention, find_lei_mentions};
use super::numbers::{MoneyMatch, PercentMatch, RatioMatch, find_money, find_percents, find_ratios};
use super::parts::Parts;
use super::provisions::Provisions;
use super::sourced::Sourced;
use super::text::{Located, Structure, slice, within};

/// The text and everything found in it.
pub(crate) struct Document<'t> {
    pub text: &'t str,
    pub structure: Structure,
    pub parts: Parts,
    /// The provisions that do not state the document's own facility terms.
    pub provisions: Provisions,
    pub money: Vec<MoneyMatch>,
    pub percents: Vec<PercentMatch>,
    pub dates: Vec<DateMatch>,
    pub ratios: Vec<RatioMatch>,
    pub facility_refs: Vec<FacilityRef>,
    pub benchmarks: Vec<BenchmarkMatch>,
    pub leis: Vec<LeiMention>,
}

impl<'t> Document<'t> {
    pub(crate) fn scan(text: &'t str) -> Self {
        let structure = Structure::scan(text);
        let benchmarks = with_aliases(text, &structure, find_benchmarks(text));
        let provisions = Provisions::find(text, &structure, &benchmarks);
        Self {
            text,
            structure,
            parts: Parts::find(text),
            provisions,
            money: find_money(text),
            percents: find_percents(text),
            dates: find_dates(text),
            ratios: find_ratios(text),
            facility_refs: find_facility_refs(text),
            benchmarks,
            leis: find_lei_mentions(text),
        }
    }

    /// `text[range]`, or `""` for an invalid range.
    pub(crate) fn slice(&self, range: Range<usize>) -> &'t str {
        slice(self.text, range)
    }

    /// A value sourced from `range` of this document.
    pub(crate) fn sourced<T>(&self, range: Range<usize>, value: T) -> Option<Sourced<T>> {
        Sourced::new(self.text, range, value)
    }

    pub(crate) fn percents_in(&self, range: Range<usize>) -> &[PercentMatch] {
        within(&self.percents, range)
    }

    pub(crate) fn dates_in(&self, range: Range<usize>) -> &[DateMatch] {
        within(&self.dates, range)
    }

    pub(crate) fn ratios_in(&self, range: Range<usize>) -> &[RatioMatch] {
        within(&self.ratios, range)
    }

    pub(crate) fn refs_in(&self, range: Range<usize>) -> &[FacilityRef] {
        within(&self.facility_refs, range)
    }

    pub(crate) fn benchmarks_in(&self, range: Range<usize>) -> &[BenchmarkMatch] {
        within(&self.benchmarks, range)
    }
}

/// Warnings collected while extracting: conflicts, dropped values, statements that could not be
/// read. A conflict also withholds the value, so it counts against the status.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub warnings: Vec<String>,
    pub conflicted_fields: Vec<String>,
}

/// Quotes in warnings are cut to this many characters to keep them readable.
const QUOTE_LIMIT: usize = 160;

impl Report {
    /// Two statements of `field` disagree; neither is used.
    pub(crate) fn conflict<T>(&mut self, field: &str, first: &Sourced<T>, second: &Sourced<T>) {
        self.warnings.push(format!(
            "conflict: {field} is stated as {} and as {}; the value is withheld",
            quoted(first.quote(), first.span().range()),
            quoted(second.quote(), second.span().range()),
        ));
        self.conflicted_fields.push(field.to_owned());
    }

    /// A statement of `field` was found but not used, for `reason`.
    pub(crate) fn dropped(&mut self, field: &str, quote: &str, span: Range<usize>, reason: &str) {
        self.warnings.push(format!("dropped: {field} {} {reason}", quoted(quote, span)));
    }
}

/// `"quote" at start..end`, with long quotes shortened.
pub(crate) fn quoted(quote: &str, span: Range<usize>) -> String {
    let mut shown: String = quote.chars().take(QUOTE_LIMIT).collect();
    if shown.len() < quote.len() {
        shown.push('…');
    }
    let shown = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("\"{shown}\" at {}..{}", span.start, span.end)
}

/// Sorts candidates by position and keeps the value if every statement agrees; on disagreement
/// reports a conflict between the first two differing statements and keeps nothing.
pub(crate) fn agree<T: PartialEq>(
    field: &str,
    mut candidates: Vec<Sourced<T>>,
    report: &mut Report,
) -> Option<Sourced<T>> {
    candidates.sort_by_key(|c| c.span().start);
    let mut iter = candidates.into_iter();
    let first = iter.next()?;
    for other in iter {
        if other.value() != first.value() {
            report.conflict(field, &first, &other);
            return None;
        }
    }
    Some(first)
}

impl Located for Range<usize> {
    fn location(&self) -> Range<usize> {
        self.clone()
    }
}
