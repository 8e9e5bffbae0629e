//! Validated daily price series and the look-back windows market statistics are computed over.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};
use time::Date;

/// One daily observation: the trading date and the dividend- and split-adjusted close.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PricePoint {
    #[serde(serialize_with = "serialize_date")]
    pub date: Date,
    /// Adjusted close, in the instrument's quote currency. Always finite and > 0 inside a [`PriceSeries`].
    pub close: f64,
}

/// A symbol's daily adjusted closes, sorted ascending by date with unique dates and finite positive closes.
///
/// The fields are private so every series in the domain has passed [`PriceSeries::new`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PriceSeries {
    symbol: String,
    points: Vec<PricePoint>,
}

/// Why a price series was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PriceSeriesError {
    /// The symbol was empty or only whitespace.
    #[error("price series symbol is empty")]
    EmptySymbol,
    /// A close was NaN or infinite.
    #[error("{symbol}: close on {date} is not a finite number")]
    NonFiniteClose { symbol: String, date: Date },
    /// A close was zero or negative, which no adjusted close can be.
    #[error("{symbol}: close {close} on {date} is not positive")]
    NonPositiveClose { symbol: String, date: Date, close: f64 },
    /// The same date appeared twice with different closes, so neither can be trusted.
    #[error("{symbol}: {date} appears with two different closes ({first} and {second})")]
    ConflictingDuplicateDate { symbol: String, date: Date, first: f64, second: f64 },
}

impl PriceSeries {
    /// Builds a series from points in any order.
    ///
    /// Points are sorted ascending by date; a date repeated with an identical close is kept once.
    ///
    /// # Errors
    /// [`PriceSeriesError::EmptySymbol`] for a blank symbol, [`PriceSeriesError::NonFiniteClose`] /
    /// [`PriceSeriesError::NonPositiveClose`] for an unusable close, and
    /// [`PriceSeriesError::ConflictingDuplicateDate`] when one date carries two different closes.
    pub fn new(symbol: &str, mut points: Vec<PricePoint>) -> Result<Self, PriceSeriesError> {
        let symbol = symbol.trim();
        if symbol.is_empty() {
            return Err(PriceSeriesError::EmptySymbol);
        }
        for point in &points {
            if !point.close.is_finite() {
                return Err(PriceSeriesError::NonFiniteClose { symbol: symbol.to_owned(), date: point.date });
            }
            if point.close <= 0.0 {
                return Err(PriceSeriesError::NonPositiveClose {
                    symbol: symbol.to_owned(),
                    date: point.date,
                    close: point.close,
                });
            }
        }
        // Stable sort keeps the input order among equal dates, which the duplicate check reports.
        if !points.is_sorted_by(|a, b| a.date < b.date) {
            points.sort_by_key(|point| point.date);
        }
        if let Some(pair) =
            points.windows(2).find(|pair| pair[0].date == pair[1].date && pair[0].close != pair[1].close)
        {
            return Err(PriceSeriesError::ConflictingDuplicateDate {
                symbol: symbol.to_owned(),
                date: pair[0].date,
                first: pair[0].close,
                second: pair[1].close,
            });
        }
        points.dedup_by_key(|point| point.date);
        Ok(Self { symbol: symbol.to_owned(), points })
    }

    /// Builds a series from `(date, close)` pairs; see [`PriceSeries::new`].
    ///
    /// # Errors
    /// As [`PriceSeries::new`].
    pub fn from_closes(symbol: &str, closes: impl IntoIterator<Item = (Date, f64)>) -> Result<Self, PriceSeriesError> {
        Self::new(symbol, closes.into_iter().map(|(date, close)| PricePoint { date, close }).collect())
    }

    pub fn symbol(&self) -> &str {
        &self.symbol
    }

    /// The points, ascending by date.
    pub fn points(&self) -> &[PricePoint] {
        &self.points
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The trailing window of `range`: the last `range.trading_days() + 1` points (so that it yields
    /// `trading_days` returns), or every point when the series is shorter.
    pub fn window(&self, range: TimeRange) -> &[PricePoint] {
        let wanted = range.window_prices();
        &self.points[self.points.len().saturating_sub(wanted)..]
    }
}

/// A look-back period for market statistics, measured in trading days (252 per year).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum TimeRange {
    /// `1M`: 21 trading days.
    #[serde(rename = "1M")]
    OneMonth,
    /// `3M`: 63 trading days. The default.
    #[default]
    #[serde(rename = "3M")]
    ThreeMonths,
    /// `6M`: 126 trading days.
    #[serde(rename = "6M")]
    SixMonths,
    /// `1Y`: 252 trading days.
    #[serde(rename = "1Y")]
    OneYear,
    /// `5Y`: 1260 trading days.
    #[serde(rename = "5Y")]
    FiveYears,
}

impl TimeRange {
    /// Every range, shortest first.
    pub const ALL: [TimeRange; 5] =
        [TimeRange::OneMonth, TimeRange::ThreeMonths, TimeRange::SixMonths, TimeRange::OneYear, TimeRange::FiveYears];

    /// The range of exactly `months` months, when one is offered ("over the last 6 months").
    pub fn from_months(months: u32) -> Option<Self> {
        match months {
            1 => Some(Self::OneMonth),
            3 => Some(Self::ThreeMonths),
            6 => Some(Self::SixMonths),
            12 => Some(Self::OneYear),
            60 => Some(Self::FiveYears),
            _ => None,
        }
    }

    /// Number of daily returns in the window.
    pub const fn trading_days(self) -> usize {
        match self {
            TimeRange::OneMonth => 21,
            TimeRange::ThreeMonths => 63,
            TimeRange::SixMonths => 126,
            TimeRange::OneYear => 252,
            TimeRange::FiveYears => 1260,
        }
    }

    /// Number of prices needed for a full window: one more than the number of returns.
    pub const fn window_prices(self) -> usize {
        self.trading_days() + 1
    }

    /// The wire spelling: `1M`, `3M`, `6M`, `1Y`, `5Y`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TimeRange::OneMonth => "1M",
            TimeRange::ThreeMonths => "3M",
            TimeRange::SixMonths => "6M",
            TimeRange::OneYear => "1Y",
            TimeRange::FiveYears => "5Y",
        }
    }
}

impl fmt::Display for TimeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A time range string that is not one of `1M`, `3M`, `6M`, `1Y`, `5Y`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown time range {input:?}: expected one of 1M, 3M, 6M, 1Y, 5Y")]
pub struct TimeRangeParseError {
    pub input: String,
}

impl FromStr for TimeRange {
    type Err = TimeRangeParseError;

    /// Accepts `1M`, `3M`, `6M`, `1Y`, `5Y`, case-insensitive, surrounding whitespace ignored.
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let trimmed = input.trim();
        TimeRange::ALL
            .into_iter()
            .find(|range| range.as_str().eq_ignore_ascii_case(trimmed))
            .ok_or_else(|| TimeRangeParseError { input: input.to_owned() })
    }
}

/// Serialises a date as ISO 8601 `YYYY-MM-DD` whatever the serde format.
pub(crate) fn serialize_date<S: Serializer>(date: &Date, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(date)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn new_sorts_points_and_drops_identical_duplicates() {
        let series = PriceSeries::from_closes(
            " AAPL ",
            [(date!(2024 - 01 - 03), 2.0), (date!(2024 - 01 - 02), 1.0), (date!(2024 - 01 - 03), 2.0)],
        )
        .expect("valid series");
        assert_eq!(series.symbol(), "AAPL");
        assert_eq!(series.points().iter().map(|p| p.close).collect::<Vec<_>>(), vec![1.0, 2.0]);
    }

    #[test]
    fn new_rejects_conflicting_duplicates_and_bad_closes() {
        let d = date!(2024 - 01 - 02);
        assert!(matches!(
            PriceSeries::from_closes("X", [(d, 1.0), (d, 2.0)]),
            Err(PriceSeriesError::ConflictingDuplicateDate { .. })
        ));
        assert!(matches!(PriceSeries::from_closes("X", [(d, 0.0)]), Err(PriceSeriesError::NonPositiveClose { .. })));
        assert!(matches!(PriceSeries::from_closes("X", [(d, -1.0)]), Err(PriceSeriesError::NonPositiveClose { .. })));
        assert!(matches!(PriceSeries::from_closes("X", [(d, f64::NAN)]), Err(PriceSeriesError::NonFiniteClose { .. })));
        assert!(matches!(
            PriceSeries::from_closes("X", [(d, f64::INFINITY)]),
            Err(PriceSeriesError::NonFiniteClose { .. })
        ));
        assert_eq!(PriceSeries::from_closes("  ", [(d, 1.0)]), Err(PriceSeriesError::EmptySymbol));
    }

    #[test]
    fn time_range_parses_wire_spellings_and_knows_its_window() {
        assert_eq!("1m".parse::<TimeRange>(), Ok(TimeRange::OneMonth));
        assert_eq!(" 5Y ".parse::<TimeRange>(), Ok(TimeRange::FiveYears));
        assert!("2Y".parse::<TimeRange>().is_err());
        assert_eq!(TimeRange::default(), TimeRange::ThreeMonths);
        let days: Vec<usize> = TimeRange::ALL.iter().map(|r| r.trading_days()).collect();
        assert_eq!(days, vec![21, 63, 126, 252, 1260]);
        for range in TimeRange::ALL {
            assert_eq!(range.as_str().parse::<TimeRange>(), Ok(range));
        }
    }

    #[test]
    fn window_takes_the_last_n_plus_one_prices_or_all_when_short() {
        let start = date!(2024 - 01 - 01);
        let series =
            PriceSeries::from_closes("X", (0..30).map(|i| (start + time::Duration::days(i), 1.0 + i as f64))).unwrap();
        let window = series.window(TimeRange::OneMonth);
        assert_eq!(window.len(), 22);
        assert_eq!(window[0].close, 9.0);
        assert_eq!(series.window(TimeRange::ThreeMonths).len(), 30);
    }
}
