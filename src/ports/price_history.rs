//! Daily adjusted closing prices for one instrument: what market statistics need from a price
//! provider (Yahoo chart, Alpha Vantage, a local CSV mirror; see [`crate::adapters::market::prices`]).
//!
//! Adapters never invent data: a price the provider did not send is missing from the series, and a
//! provider that cannot answer is an error naming it, never an empty or made-up series.

use async_trait::async_trait;

use crate::domain::quant::market::{PriceSeries, TimeRange};

/// Longest accepted symbol, in characters.
pub const MAX_SYMBOL_LEN: usize = 10;

/// Prices kept beyond a range's window (`range.window_prices()`), so that series of two instruments
/// with a few differing holidays still align over the whole window.
pub const ALIGNMENT_SLACK_PRICES: usize = 10;

/// Why a price history could not be fetched. Texts never contain an API key.
///
/// HTTP mapping for callers: [`InvalidSymbol`](Self::InvalidSymbol) and
/// [`UnknownSymbol`](Self::UnknownSymbol) are the caller's fault (400);
/// [`Unavailable`](Self::Unavailable) and [`InvalidData`](Self::InvalidData) are the provider's
/// (502), see [`PriceHistoryError::is_caller_error`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PriceHistoryError {
    /// The symbol is not 1–10 characters of `A–Z 0–9 . - ^ =` (after trimming and upper-casing).
    /// Returned before any request is made.
    #[error("invalid symbol {symbol:?}: expected 1-10 characters of A-Z, 0-9, '.', '-', '^', '='")]
    InvalidSymbol { symbol: String },
    /// The provider does not know the symbol (Yahoo `Not Found`, Alpha Vantage `Error Message`, no
    /// file in the mirror).
    #[error("unknown symbol {symbol}")]
    UnknownSymbol { symbol: String },
    /// The provider could not give an answer: unreachable, timed out, 429/5xx after the adapter's
    /// retries, an HTML page (bot challenge, error page) instead of data, a rate-limit or premium
    /// notice (Alpha Vantage `Note` / `Information`), a rejected API key, an unreadable mirror.
    #[error("price provider {provider} unavailable: {reason}")]
    Unavailable { provider: &'static str, reason: String },
    /// The provider answered, but not with a usable price series: unparsable JSON or CSV (the reason
    /// names the file and line), mismatched arrays, no prices at all, a non-positive close.
    #[error("price provider {provider} sent unusable data: {reason}")]
    InvalidData { provider: &'static str, reason: String },
}

impl PriceHistoryError {
    /// Whether the request was at fault (bad or unknown symbol: 400) rather than the provider (502).
    pub fn is_caller_error(&self) -> bool {
        matches!(self, Self::InvalidSymbol { .. } | Self::UnknownSymbol { .. })
    }

    /// The provider named by the error, for the provider-side variants.
    pub fn provider(&self) -> Option<&'static str> {
        match self {
            Self::Unavailable { provider, .. } | Self::InvalidData { provider, .. } => Some(provider),
            Self::InvalidSymbol { .. } | Self::UnknownSymbol { .. } => None,
        }
    }
}

/// Checks and normalises a ticker symbol: trimmed, upper-cased, 1–[`MAX_SYMBOL_LEN`] characters of
/// `A–Z 0–9 . - ^ =` (`BRK-B`, `^GSPC`, `EURUSD=X`, `RDS.A`).
///
/// # Errors
/// [`PriceHistoryError::InvalidSymbol`] otherwise, with the input cut to 32 characters.
pub fn normalize_symbol(raw: &str) -> Result<String, PriceHistoryError> {
    let symbol = raw.trim().to_ascii_uppercase();
    let valid = !symbol.is_empty()
        && symbol.len() <= MAX_SYMBOL_LEN
        && symbol.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, '.' | '-' | '^' | '='));
    if valid { Ok(symbol) } else { Err(PriceHistoryError::InvalidSymbol { symbol: raw.chars().take(32).collect() }) }
}

/// The trailing part of `series` that a caller of [`PriceHistory::daily_closes`] for `range` gets:
/// the last `range.window_prices() + ALIGNMENT_SLACK_PRICES` points (all of them when fewer).
pub fn trailing_for_range(series: PriceSeries, range: TimeRange) -> PriceSeries {
    let keep = range.window_prices() + ALIGNMENT_SLACK_PRICES;
    if series.len() <= keep {
        return series;
    }
    let start = series.len() - keep;
    let points = series.points()[start..].to_vec();
    // The points come from a valid series, so this cannot fail; fall back to the full series anyway.
    PriceSeries::new(series.symbol(), points).unwrap_or(series)
}

/// A source of daily adjusted closes.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait PriceHistory: Send + Sync + 'static {
    /// The daily adjusted closes of `symbol` (normalised by [`normalize_symbol`]) ending at the
    /// latest available trading day, ascending by date: the last `range.window_prices()` prices plus
    /// up to [`ALIGNMENT_SLACK_PRICES`] more, or every price the provider has when its history is
    /// shorter. Callers take [`PriceSeries::window`]. Days the provider left empty are absent.
    ///
    /// # Errors
    /// - [`PriceHistoryError::InvalidSymbol`]: a malformed symbol; no request is made.
    /// - [`PriceHistoryError::UnknownSymbol`]: the provider does not know the symbol.
    /// - [`PriceHistoryError::Unavailable`]: the provider is unreachable, too slow, failing (429/5xx
    ///   after retries), answers an HTML page, is rate-limited or refuses the key.
    /// - [`PriceHistoryError::InvalidData`]: the answer is not a usable price series, including one
    ///   with no price at all.
    async fn daily_closes(&self, symbol: &str, range: TimeRange) -> Result<PriceSeries, PriceHistoryError>;

    /// The provider's short name, for provenance and error messages (`yahoo`, `alpha-vantage`,
    /// `local-mirror`).
    fn provider(&self) -> &'static str;
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn symbols_are_trimmed_upper_cased_and_checked() {
        for (raw, expected) in [(" aapl ", "AAPL"), ("BRK-B", "BRK-B"), ("^gspc", "^GSPC"), ("EURUSD=X", "EURUSD=X")] {
            assert_eq!(normalize_symbol(raw).as_deref(), Ok(expected));
        }
        for bad in ["", "  ", "AAPL MSFT", "../etc", "A/B", "TOOLONGSYMBOL", "ÄPFEL", "A;B"] {
            assert!(matches!(normalize_symbol(bad), Err(PriceHistoryError::InvalidSymbol { .. })), "{bad}");
        }
    }

    #[test]
    fn errors_say_whose_fault_and_which_provider() {
        assert!(PriceHistoryError::UnknownSymbol { symbol: "X".into() }.is_caller_error());
        let unavailable = PriceHistoryError::Unavailable { provider: "yahoo", reason: "HTTP 500".into() };
        assert!(!unavailable.is_caller_error());
        assert_eq!(unavailable.provider(), Some("yahoo"));
        assert!(unavailable.to_string().contains("yahoo"));
    }

    #[test]
    fn trailing_keeps_the_window_plus_slack() {
        let start = date!(2020 - 01 - 01);
        let series = PriceSeries::from_closes("X", (0..100).map(|i| (start + time::Duration::days(i), 1.0 + i as f64)))
            .expect("series");
        let trailing = trailing_for_range(series.clone(), TimeRange::OneMonth);
        assert_eq!(trailing.len(), 22 + ALIGNMENT_SLACK_PRICES);
        assert_eq!(trailing.points().last(), series.points().last());
        assert_eq!(trailing_for_range(series.clone(), TimeRange::OneYear), series);
    }
}
