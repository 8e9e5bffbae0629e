//! The pricing statements of a document, each a candidate scoped to the facilities it is stated
//! for: what every pricing reader adds to, and what a facility's pricing is resolved from.

use rust_decimal::Decimal;

use crate::domain::extraction::currency::CurrencyCode;
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
}
