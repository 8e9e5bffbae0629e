//! The evidence checks: before a value is stated, its evidence is read the way a lawyer reads it,
//! and a value whose evidence fails is withheld, with the reason in [`super::Extraction::warnings`]
//! (`dropped: <field> "<quote>" at <start>..<end> <reason>` for a statement a reader leaves aside).
//! A wrong value costs more than a missing one: a reviewer fills a gap, but may well trust a value
//! that is wrong.
//!
//! The rules, each with its tests:
//!
//! 1. **Operative text.** A facility's terms come from the operative text, never from a recital
//!    of fact (what an existing agreement provides) nor from the benchmark replacement provisions
//!    (a rate that may replace the benchmark, unless the replacement is in force at signing).
//!    Which provisions those are is `provisions.rs`'s; the readers of facility terms leave their
//!    statements aside ([`leave_aside`]) before choosing among them, so that the operative
//!    statement of a term is used, and the benchmark a facility takes when no statement names one
//!    is chosen among the benchmarks in force (`pricing/index.rs`). An amendment that leaves the
//!    agreement in force is the exception: its recitals state that agreement's terms, which
//!    continue unless changed.
//! 2. **Title totals.** A total in the title or on the cover is a facility's commitment only when
//!    the agreement has one facility (`totals.rs`).

mod totals;

use super::document::{Document, Report};
use super::scope::Scoped;
use super::sourced::Sourced;
pub(crate) use totals::leave_aside_title_totals;

/// Rule 1 on a reader's candidates: drops those stated in a provision that does not state this
/// document's terms, reporting each under `field`. `statement` gives a candidate's quote and span.
pub(crate) fn leave_aside<C>(
    doc: &Document<'_>,
    field: &str,
    candidates: &mut Vec<C>,
    statement: impl Fn(&C) -> Option<(&str, std::ops::Range<usize>)>,
    report: &mut Report,
) {
    candidates.retain(|candidate| {
        let Some((quote, span)) = statement(candidate) else { return true };
        match doc.provisions.set_aside(span.clone()) {
            Some(set_aside) => {
                report.dropped(field, quote, span, set_aside.reason());
                false
            }
            None => true,
        }
    });
}

/// [`leave_aside`] for candidates scoped to facilities.
pub(crate) fn leave_aside_scoped<T>(
    doc: &Document<'_>,
    field: &str,
    candidates: &mut Vec<Scoped<Sourced<T>>>,
    report: &mut Report,
) {
    leave_aside(doc, field, candidates, |c| Some((c.value.quote(), c.value.span().range())), report);
}

#[cfg(test)]
mod tests;
