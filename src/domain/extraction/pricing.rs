//! Pricing: benchmark, margin (flat or by pricing grid), floor, commitment fee, interest periods,
//! payment frequency and day count, each read as candidates scoped to facilities and resolved per
//! facility (see [`super::scope`]).
//!
//! Each kind of statement has its reader: flat margins (`margins`), grids in tables and in prose
//! (`grids`, `flattened_grid`, `prose_grid`), floors, fees, interest conventions and optional currencies; the
//! benchmark a facility takes when no statement names one is `index`'s.

mod candidates;
mod conventions;
mod currencies;
mod fees;
mod fixed;
mod flattened_grid;
mod floors;
mod grids;
mod index;
mod margins;
mod prose_grid;
#[cfg(test)]
mod tests;

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use super::document::{Document, Report, quoted};
use super::model::{Facility, FacilityType, PricingGridLevel};
use super::scope::{FacilityFrame, applicable, covers, resolve};
use super::sourced::Sourced;
use super::text::{Regions, any_word, pattern};
pub(crate) use candidates::PricingCandidates;
use conventions::{day_counts, frequencies, periods_and_tenors};
use currencies::{is_multicurrency, optional_currencies};
use fees::fees;
use fixed::fixed_rates;
use floors::floors;
use index::default_index;

/// Clause words before a rate or benchmark that make it the measure of a rate other than the
/// loans' own: the rate on overdue sums or after a default, or a minimum the loans' (fixed) rate
/// may not go under. Neither a margin (`margins.rs`) nor the loans' index (`index.rs`): a bank's
/// loan at a fixed rate that names SOFR only there is not a SOFR loan.
static ANOTHER_RATE: LazyLock<Regex> = LazyLock::new(|| {
    any_word(&[
        "default",
        "overdue",
        "not paid when due",
        "not paid in full when due",
        "unpaid when due",
        "past due",
        "after maturity",
        "never be less than",
        "no event be less than",
    ])
});

/// Loans of an export-credit sub-line ("Ex-Im Advances", "EXIM Loans"), which a bank prices apart
/// from the rest of its line (often on SOFR where the line is on prime).
static SUB_LINE_LOANS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:ex-?im|export-import)[ \t\r\n]+(?:[a-z]+[ \t\r\n]+){0,2}?(?:advances?|loans?|credit[ \t\r\n]+extensions?|sub-?lines?|sub-?facility)\b",
    )
});

/// Words right before a sub-line's loans that leave them out: "(other than Ex-Im Advances)".
static LEAVES_OUT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:other[ \t\r\n]+than|except(?:[ \t\r\n]+for)?|excluding|excluded)[ \t\r\n(]*$"));

/// Whether `lead_in`, the words of a clause before a rate or benchmark, makes the clause about the
/// loans of a sub-line (`SUB_LINE_LOANS`) that it does not leave out: such a rate is the
/// sub-line's, not the facility's, and neither its benchmark nor its margin is the line's.
fn names_sub_line(lead_in: &str) -> bool {
    SUB_LINE_LOANS.find_iter(lead_in).any(|found| !LEAVES_OUT.is_match(&lead_in[..found.start()]))
}

/// Every pricing statement in the document.
pub(crate) fn candidates(doc: &Document<'_>) -> PricingCandidates {
    let mut out = PricingCandidates::default();
    let pricing_regions = margins::pricing_regions(doc);
    let grid_tables = Regions::new(grids::read(doc, &pricing_regions, &mut out));
    margins::flat_margins(doc, &Regions::new(pricing_regions), &grid_tables, &mut out);
    floors(doc, &mut out);
    fees(doc, &grid_tables, &mut out);
    day_counts(doc, &mut out);
    frequencies(doc, &mut out);
    periods_and_tenors(doc, &mut out);
    optional_currencies(doc, &mut out);
    fixed_rates(doc, &mut out);
    out
}

/// Resolves every pricing field of one facility.
pub(crate) fn apply(
    doc: &Document<'_>,
    candidates: &PricingCandidates,
    facility: &mut Facility,
    frame: &FacilityFrame,
    frames: &[FacilityFrame],
    base: &str,
    report: &mut Report,
) {
    // A letter of credit facility bears fees, not interest: no floating-rate terms apply to it.
    if frame.facility_type != Some(FacilityType::LetterOfCredit) {
        apply_floating_rate(doc, candidates, facility, frame, frames, base, report);
    }
    // A funded term loan pays no commitment fee unless one is stated for it specifically.
    let fee_applies = frames.len() == 1
        || !matches!(
            frame.facility_type,
            Some(FacilityType::TermLoanA | FacilityType::TermLoanB | FacilityType::TermLoan)
        )
        || candidates.fees.iter().any(|c| c.keys.iter().any(|&k| covers(k, frame, frames)));
    if fee_applies {
        facility.commitment_fee = resolve(&format!("{base}/commitmentFee"), &candidates.fees, frame, frames, report);
    }
    facility.payment_frequency =
        resolve(&format!("{base}/paymentFrequency"), &candidates.frequencies, frame, frames, report);
    facility.day_count_fraction =
        resolve(&format!("{base}/dayCountFraction"), &candidates.day_counts, frame, frames, report);
    if frames.len() == 1 || is_multicurrency(doc, frame.key) {
        facility.optional_currencies =
            candidates.optional_currencies.iter().filter(|c| Some(*c.value()) != frame.currency).cloned().collect();
    }
}

/// The benchmark, margin, grid, floor and interest periods of a facility bearing a floating rate.
pub(crate) fn apply_floating_rate(
    doc: &Document<'_>,
    candidates: &PricingCandidates,
    facility: &mut Facility,
    frame: &FacilityFrame,
    frames: &[FacilityFrame],
    base: &str,
    report: &mut Report,
) {
    facility.spread = resolve(&format!("{base}/spread"), &candidates.spreads, frame, frames, report);
    facility.base_rate_spread =
        resolve(&format!("{base}/baseRateSpread"), &candidates.base_spreads, frame, frames, report);
    let field = format!("{base}/floatingRateIndex");
    let stated = resolve(&field, &candidates.indices, frame, frames, report).filter(|index| {
        // A benchmark of another currency is not this facility's: a sterling tranche is not
        // priced on dollar SOFR, whatever sentence mentions both.
        let foreign = frame.currency.is_some_and(|currency| currency.as_str() != index.value().currency());
        if foreign {
            report.dropped(&field, index.quote(), index.span().range(), "is a benchmark of another currency");
        }
        !foreign
    });
    // A facility without a stated amount has no currency of its own; a dollar benchmark may say it.
    // Nor one whose amount is withheld; the currency its loans are available in may say it.
    let currency =
        frame.currency.or_else(|| index::dollars_by_benchmark(doc)).or_else(|| index::currency_of_availability(doc));
    facility.floating_rate_index = stated.or_else(|| currency.and_then(|currency| default_index(doc, currency)));
    facility.pricing_grid = resolve_grid(&format!("{base}/pricingGrid"), candidates, frame, frames, report);
    facility.floor = resolve(&format!("{base}/floor"), &candidates.floors, frame, frames, report);
    facility.interest_periods =
        resolve(&format!("{base}/interestPeriods"), &candidates.interest_periods, frame, frames, report);
    facility.index_tenor = resolve(&format!("{base}/indexTenor"), &candidates.tenors, frame, frames, report);
    if let Some(fixed) = applicable(&candidates.fixed_rates, frame, frames).first() {
        withhold_floating_terms(facility, fixed, base, report);
    }
}

/// Loans stated to bear a fixed rate have no floating index, margin or floor: a benchmark the
/// agreement names elsewhere measures another rate (after a default, on overdue sums, a minimum,
/// a fallback, a hedge), so each floating term read for them is withheld with the fixed rate's
/// sentence as the reason.
fn withhold_floating_terms(facility: &mut Facility, fixed: &Sourced<Decimal>, base: &str, report: &mut Report) {
    let reason =
        format!("is not the loans' rate: they bear a fixed rate, {}", quoted(fixed.quote(), fixed.span().range()));
    let mut withhold = |field: &str, stated: Option<(&str, Range<usize>)>| {
        if let Some((quote, span)) = stated {
            report.dropped(&format!("{base}/{field}"), quote, span, &reason);
        }
    };
    withhold("floatingRateIndex", facility.floating_rate_index.take().as_ref().map(evidence));
    withhold("spread", facility.spread.take().as_ref().map(evidence));
    withhold("baseRateSpread", facility.base_rate_spread.take().as_ref().map(evidence));
    withhold("floor", facility.floor.take().as_ref().map(evidence));
}

/// The quote and span of a stated value, as a warning shows them.
fn evidence<T>(stated: &Sourced<T>) -> (&str, Range<usize>) {
    (stated.quote(), stated.span().range())
}

/// The facility's pricing grid; two different grids for the same facility are a conflict.
fn resolve_grid(
    field: &str,
    candidates: &PricingCandidates,
    frame: &FacilityFrame,
    frames: &[FacilityFrame],
    report: &mut Report,
) -> Vec<PricingGridLevel> {
    let pool = applicable(&candidates.grids, frame, frames);
    let Some(first) = pool.first() else { return Vec::new() };
    let values = |grid: &[PricingGridLevel]| -> Vec<Option<Decimal>> {
        grid.iter().map(|level| level.spread.as_ref().map(|s| *s.value())).collect()
    };
    if let Some(other) = pool.iter().find(|g| values(g) != values(first))
        && let (Some(a), Some(b)) =
            (first.iter().find_map(|l| l.spread.as_ref()), other.iter().find_map(|l| l.spread.as_ref()))
    {
        report.conflict(field, a, b);
        return Vec::new();
    }
    (*first).clone()
}
