//! Market statistics for the quantitative-analysis domain: validated price series, return and risk
//! statistics per instrument (period return, CAGR, volatility, drawdown, beta, Sharpe, Sortino,
//! historical VaR/CVaR), correlations across instruments, resolution of a free-text market query to
//! tickers and sector ETFs, and findings that rank and flag the results.
//!
//! Everything here is a pure function of its arguments: prices arrive already fetched, the risk-free
//! rate and benchmark are passed in. Definitions follow DOMAIN.md §2 and are restated in each
//! [`Metric`](super::Metric)'s formula.

mod findings;
mod query;
mod series;
mod statistics;
#[cfg(test)]
mod tests;

pub use findings::{
    ELEVATED_VOLATILITY, HIGH_BETA, HIGH_DAILY_VAR_99, HIGH_VOLATILITY, LOW_BETA, MATERIAL_DRAWDOWN, MarketEvidence,
    MarketFinding, MarketFindingCategory, MarketSeverity, NEGATIVE_SHARPE, RELATIVE_PERFORMANCE_MARGIN,
    SEVERE_DRAWDOWN, STRONG_SHARPE, market_findings,
};
pub use query::{MarketQuery, SECTOR_ETFS, STOP_WORDS, SectorEtf, SectorMatch, parse_market_query};
pub use series::{PricePoint, PriceSeries, PriceSeriesError, TimeRange, TimeRangeParseError};
pub use statistics::{
    CALENDAR_DAYS_PER_YEAR, CorrelationMatrix, Drawdown, InstrumentStatistics, MIN_DISPERSION,
    MIN_RETURNS_FOR_DISPERSION, MIN_WINDOW_PRICES, MarketError, ObservationWindow, OmittedMetric,
    TRADING_DAYS_PER_YEAR, VAR_CONFIDENCE_LEVELS_PCT, correlation_matrix, instrument_statistics, log_returns,
    metric_names, simple_returns,
};
