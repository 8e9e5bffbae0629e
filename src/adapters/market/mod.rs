//! Market-data adapters: company financial statements from SEC EDGAR ([`EdgarClient`]) or from a
//! local mirror of SEC's bulk files ([`MirrorFinancialData`]), both implementing
//! [`crate::ports::financial_data::FinancialData`]; daily price histories from Yahoo's chart API,
//! Alpha Vantage or a local CSV mirror ([`prices`]), implementing
//! [`crate::ports::price_history::PriceHistory`].

pub mod edgar;
pub mod mirror;
pub mod prices;

pub use edgar::{EdgarClient, EdgarSettings};
pub use mirror::MirrorFinancialData;
pub use prices::{AlphaVantage, AlphaVantageSettings, CachedPrices, CsvMirrorPrices, YahooChart, YahooSettings};
