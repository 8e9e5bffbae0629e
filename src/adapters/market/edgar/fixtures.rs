//! SEC files and helpers the EDGAR and mirror adapters' tests share: a `company_tickers.json` and
//! the company-facts files of four companies (Apple, and made-up filers that exercise restatements,
//! tag fallbacks and losses).

use time::Date;

use crate::domain::quant::quarterly::QuarterStatement;
use crate::ports::financial_data::{QuarterlyStatementsWithProvenance, ResolvedCompany};

pub(crate) const TICKERS_JSON: &str = include_str!("../fixtures/company_tickers.json");
pub(crate) const FACTS: &[(&str, &str)] = &[
    ("CIK0000320193.json", include_str!("../fixtures/companyfacts/CIK0000320193.json")),
    ("CIK0001900001.json", include_str!("../fixtures/companyfacts/CIK0001900001.json")),
    ("CIK0001900002.json", include_str!("../fixtures/companyfacts/CIK0001900002.json")),
    ("CIK0001900003.json", include_str!("../fixtures/companyfacts/CIK0001900003.json")),
];

pub(crate) fn apple() -> ResolvedCompany {
    ResolvedCompany { cik: 320193, name: "Apple Inc.".to_owned(), ticker: Some("AAPL".to_owned()) }
}

pub(crate) fn company(cik: u64, name: &str, ticker: &str) -> ResolvedCompany {
    ResolvedCompany { cik, name: name.to_owned(), ticker: Some(ticker.to_owned()) }
}

pub(crate) fn ends(quarterly: &QuarterlyStatementsWithProvenance) -> Vec<Date> {
    quarterly.statements.quarters().iter().map(|q| q.period_end).collect()
}

pub(crate) fn quarter(quarterly: &QuarterlyStatementsWithProvenance, end: Date) -> &QuarterStatement {
    quarterly.statements.quarters().iter().find(|q| q.period_end == end).unwrap_or_else(|| panic!("no quarter {end}"))
}
