//! Quantitative credit analysis: pure computations over normalised financial statements and price
//! series. Every number leaves here as a [`Metric`] that names its formula and the inputs it was
//! computed from, so a result can be traced back to the statements and prices it rests on.
//!
//! - [`request`]: what the analyses are asked for, and the use case's errors.
//! - [`service`]: the use case — the run's lifecycle, and one file per kind (company, market, loan).
//! - [`statements`], [`quarterly`]: normalised fiscal years and quarters, trailing twelve months.
//! - [`credit`], [`rating`], [`basel`], [`loan`], [`market`]: the computations.
//! - [`findings`]: what the figures mean, against stated thresholds.
//! - [`narrative`]: the deterministic summary, and the check of a model-written one.
//! - [`display`]: how a figure is written in prose (USD 383.3 bn, 0.88×, 29.8%).
//! - [`labels`]: how each metric and input is called where people read it (EBITDA, Debt / EBITDA).
//! - [`report`]: the JSON shapes a stored result writes its statements and provenance in.
//! - [`runs`]: the stored runs.

pub mod basel;
pub mod credit;
pub mod display;
pub mod findings;
pub mod labels;
pub mod loan;
pub mod market;
pub mod narrative;
pub mod quarterly;
pub mod rating;
pub mod report;
pub mod request;
pub mod runs;
pub mod service;
pub mod statements;

use serde::{Deserialize, Serialize, Serializer};
use time::Date;

/// What a metric's value measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// An amount in the statements' currency.
    Currency,
    /// A multiple such as 3.2 (times, x).
    Ratio,
    /// A fraction: 0.05 is 5 %.
    Fraction,
    /// A number on the metric's own scale, not a multiple of anything: a score (Altman Z,
    /// Piotroski F, distance to default), a coefficient (beta, correlation) or a risk-adjusted
    /// return (Sharpe, Sortino).
    Score,
    /// A count of days, years, observations.
    Count,
}

/// One named input of a metric, with its value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricInput {
    /// Stable snake_case name, e.g. `total_debt`.
    pub name: String,
    /// How an analyst writes it, e.g. "Total debt" ([`labels`]).
    pub label: String,
    pub value: f64,
    /// What the value measures, so that it is written as an amount, a multiple or a percentage.
    pub unit: Unit,
}

/// A computed figure with everything needed to check it by hand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metric {
    /// Stable snake_case name, e.g. `debt_to_ebitda`.
    pub name: String,
    /// How an analyst writes it, e.g. "Debt / EBITDA" ([`labels`]).
    pub label: String,
    pub value: f64,
    pub unit: Unit,
    /// The formula in words and symbols, e.g. `total_debt / ebitda`.
    pub formula: String,
    /// The values the formula was applied to.
    pub inputs: Vec<MetricInput>,
}

impl Metric {
    pub fn new(name: &str, value: f64, unit: Unit, formula: &str, inputs: &[(&str, f64)]) -> Self {
        Self {
            name: name.to_owned(),
            label: labels::label(name),
            value,
            unit,
            formula: formula.to_owned(),
            inputs: inputs
                .iter()
                .map(|(name, value)| MetricInput {
                    name: (*name).to_owned(),
                    label: labels::label(name),
                    value: *value,
                    unit: labels::unit(name),
                })
                .collect(),
        }
    }
}

/// Serialises a date as ISO 8601 `YYYY-MM-DD` (time's own serde form is a `[year, ordinal]` pair).
pub(crate) fn serialize_iso_date<S: Serializer>(date: &Date, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(date)
}

/// [`serialize_iso_date`] for an optional date (`null` when absent).
pub(crate) fn serialize_optional_iso_date<S: Serializer>(
    date: &Option<Date>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match date {
        Some(date) => serializer.collect_str(date),
        None => serializer.serialize_none(),
    }
}

/// [`serialize_iso_date`] for a list of dates.
pub(crate) fn serialize_iso_dates<S: Serializer>(dates: &[Date], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(dates.iter().map(ToString::to_string))
}
