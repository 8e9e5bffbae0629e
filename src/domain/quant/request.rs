//! What the quantitative analyses are asked for, and the errors of the analysis use case.

use crate::domain::quant::loan::LoanType;
use crate::domain::quant::market::TimeRange;
use crate::domain::quant::runs::AnalysisId;
use crate::domain::statements::stored::StatementSetId;
use crate::domain::statements::{FinancialsInput, StatementError};
use crate::ports::analyses::AnalysisChangeError;
use crate::ports::financial_data::ResolvedCompany;
use crate::ports::store::StoreError;

/// Which sections a company analysis computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompanyAnalysisType {
    /// Statements, market statistics and credit risk.
    Comprehensive,
    /// Statements only.
    Financial,
    /// Market statistics only.
    Market,
    /// Credit risk from statements and, when available, the market (Merton).
    Risk,
}

impl CompanyAnalysisType {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Comprehensive => "comprehensive",
            Self::Financial => "financial",
            Self::Market => "market",
            Self::Risk => "risk",
        }
    }
    pub(super) fn needs_statements(self) -> bool {
        self != Self::Market
    }
    pub(super) fn needs_prices(self) -> bool {
        self != Self::Financial
    }
}

/// A company analysis as asked for.
#[derive(Clone, Debug)]
pub struct CompanyRequest {
    pub company_name: String,
    pub ticker: Option<String>,
    pub analysis_type: CompanyAnalysisType,
    pub deal_id: Option<i64>,
    /// The borrower's own statements: the analysis then reads these instead of SEC filings.
    pub financials: Option<FinancialsInput>,
    /// A stored statement set of the caller's, instead of `financials`.
    pub statement_set_id: Option<StatementSetId>,
}

/// A market analysis as asked for.
#[derive(Clone, Debug)]
pub struct MarketRequest {
    pub query: String,
    pub time_range: TimeRange,
    pub deal_id: Option<i64>,
}

/// The largest loan amount accepted (USD 1 trillion): beyond any single credit facility ever
/// arranged, so a larger figure is a typing or unit error, and it keeps every derived figure far
/// from the range where floating point loses whole dollars.
pub const MAX_LOAN_AMOUNT: f64 = 1e12;

/// Longest company (or borrower) name accepted, in characters.
pub const MAX_COMPANY_NAME_CHARS: usize = 200;

/// Longest market query accepted, in characters.
pub const MAX_MARKET_QUERY_CHARS: usize = 500;

/// A loan application as submitted.
#[derive(Clone, Debug)]
pub struct LoanApplication {
    pub borrower_name: String,
    /// In USD.
    pub loan_amount: f64,
    pub loan_type: LoanType,
    pub deal_id: Option<i64>,
    /// The borrower's own statements (in USD, the loan's currency), for a borrower without filings.
    pub financials: Option<FinancialsInput>,
    /// A stored statement set of the caller's, instead of `financials`.
    pub statement_set_id: Option<StatementSetId>,
}

/// Most instruments one market analysis compares.
pub const MAX_INSTRUMENTS: usize = 10;

#[derive(Debug, thiserror::Error)]
pub enum QuantError {
    /// A request value is wrong; `field` names it.
    #[error("{field}: {message}")]
    Validation { field: &'static str, message: String },
    /// No company matches (with candidates when several do).
    #[error("{message}")]
    UnknownCompany { message: String, candidates: Vec<ResolvedCompany> },
    /// A data provider failed; the run is stored as failed when it had started.
    #[error("{provider} unavailable: {reason}")]
    ProviderUnavailable { provider: String, reason: String, analysis_id: Option<AnalysisId> },
    /// No market-data source is configured.
    #[error("no market-data source is configured")]
    NotConfigured,
    #[error("analysis not found")]
    NotFound,
    /// The borrower files no annual statements with the SEC (and none were supplied).
    #[error("{message}")]
    NoPublicStatements { message: String },
    /// Supplied statements that do not hold together; the error names the period and field.
    #[error(transparent)]
    Statements(#[from] StatementError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<AnalysisChangeError> for QuantError {
    fn from(error: AnalysisChangeError) -> Self {
        match error {
            AnalysisChangeError::NotFound => QuantError::NotFound,
            AnalysisChangeError::WrongState { current } => {
                QuantError::Store(StoreError::Unavailable(anyhow::anyhow!("analysis already {current}")))
            }
            AnalysisChangeError::Store(error) => QuantError::Store(error),
        }
    }
}

pub(super) fn validate_deal_id(deal_id: Option<i64>) -> Result<(), QuantError> {
    if deal_id.is_some_and(|id| id <= 0) {
        return Err(QuantError::Validation { field: "deal_id", message: "must be a positive integer".into() });
    }
    Ok(())
}
