//! The pricing statements of a document, each a candidate scoped to the facilities it is stated
//! for: what every pricing reader adds to, and what a facility's pricing is resolved from.

use rust_decimal::Decimal;

use crate::domain::extraction::currency::CurrencyCode;
use crate::domain::extraction::document::{Document, Report};
use crate::domain::extraction::evidence::{leave_aside, leave_aside_scoped};
use crate::domain::extraction::model::{CommitmentFee, DayCountFraction, FloatingRateIndex, Period, PricingGridLevel};
use crate::domain::extraction::scope::Scoped;
use crate::domain::extraction::sourced::Sourced;

/// Every pricing statement, scoped to facilities.
#[derive(Debug, Default)]
pub(crate) struct PricingCandidates {
    pub spreads: Vec<Scoped<Sourced<Decimal>>>,
    pub base_spreads: Vec<Scoped<Sourced<Decimal>>>,
    pub indices: Vec<Scoped<Sourced<FloatingRateIndex>>>,
    pub grids: Vec<Scoped<Vec<PricingGridLevel>>>,
    pub floors: Vec<Scoped<Sourced<Decimal>>>,
    pub fees: Vec<Scoped<Sourced<CommitmentFee>>>,
    pub day_counts: Vec<Scoped<Sourced<DayCountFraction>>>,
    pub frequencies: Vec<Scoped<Sourced<Period>>>,
    pub interest_periods: Vec<Scoped<Sourced<Vec<Period>>>>,
    pub tenors: Vec<Scoped<Sourced<Period>>>,
    pub optional_currencies: Vec<Sourced<CurrencyCode>>,
    /// Statements that the loans bear a fixed rate, each quoting its sentence (see `fixed.rs`).
    pub fixed_rates: Vec<Scoped<Sourced<Decimal>>>,
}

impl PricingCandidates {
    /// Drops the statements made in provisions that do not state the document's own terms (a
    /// recital of fact, the benchmark replacement provisions), reporting each.
    pub(crate) fn leave_aside_other_provisions(&mut self, doc: &Document<'_>, report: &mut Report) {
        leave_aside_scoped(doc, "/facilities/*/spread", &mut self.spreads, report);
        leave_aside_scoped(doc, "/facilities/*/baseRateSpread", &mut self.base_spreads, report);
        leave_aside_scoped(doc, "/facilities/*/floatingRateIndex", &mut self.indices, report);
        leave_aside_scoped(doc, "/facilities/*/floor", &mut self.floors, report);
        leave_aside_scoped(doc, "/facilities/*/commitmentFee", &mut self.fees, report);
        leave_aside_scoped(doc, "/facilities/*/dayCountFraction", &mut self.day_counts, report);
        leave_aside_scoped(doc, "/facilities/*/paymentFrequency", &mut self.frequencies, report);
        leave_aside_scoped(doc, "/facilities/*/interestPeriods", &mut self.interest_periods, report);
        leave_aside_scoped(doc, "/facilities/*/indexTenor", &mut self.tenors, report);
        // A fixed rate recited from another agreement withholds nothing here, so setting it aside
        // is not worth a warning of its own.
        leave_aside_scoped(doc, "/facilities/*/fixedRate", &mut self.fixed_rates, &mut Report::default());
        leave_aside(
            doc,
            "/facilities/*/pricingGrid",
            &mut self.grids,
            |grid| {
                let first =
                    grid.value.iter().find_map(|level| level.spread.as_ref().or(level.commitment_fee.as_ref()))?;
                Some((first.quote(), first.span().range()))
            },
            report,
        );
        leave_aside(
            doc,
            "/facilities/*/optionalCurrencies",
            &mut self.optional_currencies,
            |c| Some((c.quote(), c.span().range())),
            report,
        );
    }
}
