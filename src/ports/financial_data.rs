//! Company financial statements from a data provider: resolve a company by ticker or name, then fetch
//! its normalised annual and quarterly statements with the provenance of every number (which XBRL
//! tag, which filing, which period), so an analysis can show where each input came from. The SEC
//! EDGAR and local-mirror adapters live in [`crate::adapters::market`].
//!
//! Nothing is invented: a line the filer did not report stays `None` in the statements and has no
//! provenance entry; a quarter that cannot be had from reported facts is left out and
//! [`QuarterlyStatementsWithProvenance::left_out`] says why.

use async_trait::async_trait;
use time::Date;

use crate::domain::quant::quarterly::QuarterlyStatements;
use crate::domain::quant::statements::CompanyFinancials;

/// The currency of every amount the provider's statements hold: SEC company facts are filed in US
/// dollars, and the adapters read only their `USD` units.
pub const STATEMENTS_CURRENCY: &str = "USD";

/// What the caller knows about the company: a name (or a ticker typed as a name) and, optionally, a
/// ticker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompanyQuery {
    pub name: String,
    pub ticker: Option<String>,
}

impl CompanyQuery {
    pub fn new(name: impl Into<String>, ticker: Option<String>) -> Self {
        Self { name: name.into(), ticker }
    }

    /// The query as people typed it, for error messages: `Apple (AAPL)`, `Apple`, `AAPL`.
    pub fn describe(&self) -> String {
        let name = self.name.trim();
        match self.ticker.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            Some(ticker) if name.is_empty() => ticker.to_owned(),
            Some(ticker) => format!("{name} ({ticker})"),
            None => name.to_owned(),
        }
    }
}

/// A company the provider knows, identified by its SEC Central Index Key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedCompany {
    pub cik: u64,
    /// The name as the provider spells it (`Apple Inc.`).
    pub name: String,
    /// The provider's primary ticker for the company, if it has one.
    pub ticker: Option<String>,
}

impl ResolvedCompany {
    /// The CIK zero-padded to ten digits, as in SEC file names (`0000320193`).
    pub fn padded_cik(&self) -> String {
        format!("{:010}", self.cik)
    }
}

/// A line of [`crate::domain::quant::statements::FiscalYearStatement`] (the lines of a quarter are
/// the same), named as its field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatementLine {
    Revenue,
    GrossProfit,
    OperatingIncome,
    NetIncome,
    DepreciationAmortization,
    InterestExpense,
    IncomeTax,
    TotalAssets,
    CurrentAssets,
    TotalLiabilities,
    CurrentLiabilities,
    LongTermDebtNoncurrent,
    LongTermDebtCurrent,
    LongTermDebt,
    ShortTermBorrowings,
    CommercialPaper,
    FinanceLeases,
    Equity,
    Cash,
    ShortTermInvestments,
    RetainedEarnings,
    Receivables,
    Inventory,
    CashFromOperations,
    CapitalExpenditure,
    SharesOutstanding,
}

impl StatementLine {
    /// The field name (`total_liabilities`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Revenue => "revenue",
            Self::GrossProfit => "gross_profit",
            Self::OperatingIncome => "operating_income",
            Self::NetIncome => "net_income",
            Self::DepreciationAmortization => "depreciation_amortization",
            Self::InterestExpense => "interest_expense",
            Self::IncomeTax => "income_tax",
            Self::TotalAssets => "total_assets",
            Self::CurrentAssets => "current_assets",
            Self::TotalLiabilities => "total_liabilities",
            Self::CurrentLiabilities => "current_liabilities",
            Self::LongTermDebtNoncurrent => "long_term_debt_noncurrent",
            Self::LongTermDebtCurrent => "long_term_debt_current",
            Self::LongTermDebt => "long_term_debt",
            Self::ShortTermBorrowings => "short_term_borrowings",
            Self::CommercialPaper => "commercial_paper",
            Self::FinanceLeases => "finance_leases",
            Self::Equity => "equity",
            Self::Cash => "cash",
            Self::ShortTermInvestments => "short_term_investments",
            Self::RetainedEarnings => "retained_earnings",
            Self::Receivables => "receivables",
            Self::Inventory => "inventory",
            Self::CashFromOperations => "cash_from_operations",
            Self::CapitalExpenditure => "capital_expenditure",
            Self::SharesOutstanding => "shares_outstanding",
        }
    }
}

/// Where one number of the statements came from.
#[derive(Clone, Debug, PartialEq)]
pub struct LineProvenance {
    /// The last day of the statement the number belongs to: the fiscal year end for annual
    /// statements, the quarter end for quarterly ones.
    pub statement_end: Date,
    pub line: StatementLine,
    /// The XBRL concept used, with its taxonomy (`us-gaap:Revenues`, `dei:EntityCommonStockSharesOutstanding`).
    /// For a derived value, the formula (`us-gaap:LiabilitiesAndStockholdersEquity - us-gaap:StockholdersEquity`).
    pub tag: String,
    pub value: f64,
    /// Accession number of the filing that reported the fact (`0000320193-23-000106`).
    pub accession_number: String,
    /// The filing's form (`10-K`, `10-K/A`, `10-Q`, `10-Q/A`).
    pub form: String,
    /// First day of the period the value covers for flows (for a derived quarter, the quarter's
    /// first day); `None` for balance-sheet instants.
    pub period_start: Option<Date>,
    /// Last day of the period the value covers, or the instant.
    pub period_end: Date,
    /// When the filing was filed.
    pub filed: Date,
    /// Where the facts were read (the `companyfacts` URL, or the mirror file as a `file://` URL).
    pub source_url: String,
    /// How a value that is not a single reported fact was obtained (derivation, sum of share
    /// classes, difference of year-to-date figures, fourth quarter from the fiscal year), with the
    /// inputs and their accession numbers; `None` for a fact taken as reported. For a derived value
    /// `accession_number`, `form` and `filed` are those of the fact the derivation starts from
    /// (the longer year-to-date figure, the fiscal year).
    pub derivation: Option<String>,
}

/// Annual statements and the provenance of each reported line.
#[derive(Clone, Debug, PartialEq)]
pub struct StatementsWithProvenance {
    pub financials: CompanyFinancials,
    /// One entry per (fiscal year, line) that has a value, newest year first.
    pub provenance: Vec<LineProvenance>,
}

impl StatementsWithProvenance {
    /// The provenance of `line` in the fiscal year ending `fiscal_year_end`, if that line has a value.
    pub fn provenance_of(&self, fiscal_year_end: Date, line: StatementLine) -> Option<&LineProvenance> {
        self.provenance.iter().find(|p| p.statement_end == fiscal_year_end && p.line == line)
    }
}

/// Quarterly statements, the provenance of each reported line, and the quarters that could not be
/// had.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuarterlyStatementsWithProvenance {
    pub statements: QuarterlyStatements,
    /// One entry per (quarter, line) that has a value, newest quarter first.
    pub provenance: Vec<LineProvenance>,
    /// Quarters left out of the window because reported facts do not give them (a fourth quarter
    /// whose Q1–Q3 are not all reported, a company without 10-Q facts), one sentence each.
    pub left_out: Vec<String>,
}

impl QuarterlyStatementsWithProvenance {
    /// The provenance of `line` in the quarter ending `quarter_end`, if that line has a value.
    pub fn provenance_of(&self, quarter_end: Date, line: StatementLine) -> Option<&LineProvenance> {
        self.provenance.iter().find(|p| p.statement_end == quarter_end && p.line == line)
    }
}

/// A company's annual and quarterly statements, read from one copy of the provider's data.
#[derive(Clone, Debug, PartialEq)]
pub struct CompanyStatements {
    pub annual: StatementsWithProvenance,
    pub quarterly: QuarterlyStatementsWithProvenance,
}

/// Most candidates an [`FinancialDataError::Ambiguous`] lists.
pub const MAX_CANDIDATES: usize = 10;

/// Why company data could not be had. `provider` names the source (`SEC EDGAR`, `SEC local mirror`).
#[derive(Debug, thiserror::Error)]
pub enum FinancialDataError {
    /// No company matches the query (an HTTP 400 naming the query).
    #[error("unknown company: no company matches '{query}'")]
    UnknownCompany { query: String },
    /// Several companies match the query and none exactly (an HTTP 400 listing them); at most
    /// [`MAX_CANDIDATES`], best first.
    #[error("ambiguous company '{query}': {} candidates", candidates.len())]
    Ambiguous { query: String, candidates: Vec<ResolvedCompany> },
    /// The provider could not be reached, timed out, or kept failing after the adapter's retries
    /// (an HTTP 502 naming the provider). Transient.
    #[error("{provider} unavailable: {reason}")]
    Unavailable { provider: &'static str, reason: String },
    /// The provider answered, but not with usable data: a malformed document, a missing mirror file
    /// (an HTTP 502 naming the provider). Not transient.
    #[error("{provider} returned unusable data: {reason}")]
    InvalidData { provider: &'static str, reason: String },
    /// The provider knows the company but has no annual statements for it: SEC has no XBRL company
    /// facts for it, or they hold no 10-K. The company has no public financials — the caller's
    /// problem where statements are required (a loan application: an HTTP 400 naming the borrower).
    #[error("{provider} has no annual financial statements for {company}: {reason}")]
    NoStatements { provider: &'static str, company: String, reason: String },
}

impl FinancialDataError {
    /// Whether the caller's query is at fault (unknown or ambiguous company, a company without public
    /// financials) rather than the provider.
    pub fn is_client_error(&self) -> bool {
        matches!(self, Self::UnknownCompany { .. } | Self::Ambiguous { .. } | Self::NoStatements { .. })
    }
}

/// A source of company financial statements.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait FinancialData: Send + Sync + 'static {
    /// The company the query designates: an exact ticker match first (the query's ticker, then its
    /// name taken as a ticker), then an exact name match ignoring case, punctuation and legal suffixes,
    /// then the single company whose name contains the query's words.
    ///
    /// # Errors
    /// - [`FinancialDataError::UnknownCompany`] when nothing matches;
    /// - [`FinancialDataError::Ambiguous`] when several companies match and none exactly;
    /// - [`FinancialDataError::Unavailable`] when the company list cannot be fetched;
    /// - [`FinancialDataError::InvalidData`] when the company list is malformed or missing.
    async fn resolve(&self, query: &CompanyQuery) -> Result<ResolvedCompany, FinancialDataError>;

    /// The company's latest `years` fiscal years of annual (10-K) statements and its latest
    /// `quarters` fiscal quarters (10-Q, and fourth quarters derived from the 10-K), both newest
    /// first (at most [`crate::domain::quant::statements::MAX_FISCAL_YEARS`] years and
    /// [`crate::domain::quant::quarterly::MAX_QUARTERS`] quarters), with provenance, from one read
    /// of the provider's data. `quarters == 0` skips the quarterly normalisation.
    ///
    /// # Errors
    /// - [`FinancialDataError::Unavailable`] when the provider cannot be reached or keeps failing;
    /// - [`FinancialDataError::InvalidData`] when its answer is malformed;
    /// - [`FinancialDataError::NoStatements`] when the company has no annual facts at all (no XBRL
    ///   data, no 10-K). A company without quarterly facts is not an error: its quarterly
    ///   statements are empty and say so.
    async fn statements(
        &self,
        company: &ResolvedCompany,
        years: usize,
        quarters: usize,
    ) -> Result<CompanyStatements, FinancialDataError>;

    /// The company's latest `years` fiscal years of annual statements: [`Self::statements`] without
    /// quarters.
    ///
    /// # Errors
    /// As [`Self::statements`].
    async fn annual_statements(
        &self,
        company: &ResolvedCompany,
        years: usize,
    ) -> Result<StatementsWithProvenance, FinancialDataError> {
        Ok(self.statements(company, years, 0).await?.annual)
    }
}
