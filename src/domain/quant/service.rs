//! The company-analysis use case: resolve the company, fetch its statements and prices through the
//! market-data ports, compute, narrate, and store the run with its CDM events — reporting each
//! real stage as progress for the streaming endpoint. Nothing is invented: a figure the data does
//! not support is left out and said to be missing.

use std::sync::Arc;

use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use super::credit::{CreditAnalysis, MarketInputs, analyse_credit};
use super::findings::loan_findings;
use super::findings::{FindingThresholds, credit_findings};
use super::loan::{LoanPolicy, LoanRequest, LoanType, Seniority, assess_loan};
use super::market::{
    InstrumentStatistics, MarketFinding, PriceSeries, TimeRange, correlation_matrix, instrument_statistics,
    market_findings, parse_market_query,
};
use super::narrative::{cited_numbers, uncited_numbers};
use super::quarterly::{QUARTERS_METHOD, QuarterStatement, TTM_METHOD, TrailingTwelveMonths, trailing_twelve_months};
use super::statements::{CompanyFinancials, FiscalYearStatement};
use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::listing::{RunQuery, listed_owner};
use crate::domain::quant::runs::{AnalysisId, AnalysisKind, AnalysisOutcome, AnalysisRecord};
use crate::domain::statements::analysis::{self as supplied, SUPPLIED_TTM_METHOD};
use crate::domain::statements::service::{StatementSetError, StatementSetService};
use crate::domain::statements::stored::{StatementSetId, StatementSetRecord};
use crate::domain::statements::{FinancialsInput, StatementError, StatementSet, check_input};
use crate::ports::analyses::{AnalysisChangeError, AnalysisRepository};
use crate::ports::clock::Clock;
use crate::ports::documents::DocumentRepository;
use crate::ports::financial_data::{
    CompanyQuery, CompanyStatements, FinancialData, FinancialDataError, LineProvenance,
    QuarterlyStatementsWithProvenance, ResolvedCompany, StatementsWithProvenance,
};
use crate::ports::llm::{ChatMessage, ChatRequest, LanguageModel};
use crate::ports::price_history::{PriceHistory, PriceHistoryError};
use crate::ports::store::StoreError;

const NARRATOR_INSTRUCTIONS: &str = "You write the executive summary of a credit analysis for a bank's credit \
    committee: three to five plain sentences. Use only the figures given, exactly or rounded; introduce no other \
    number, no forecast and no recommendation that is not among them. Do not use lists or headings.";

/// Sharpe and Sortino are reported in excess of a zero rate (stated in their formulas and in the
/// market methodology).
const RISK_FREE_RATE: f64 = 0.0;

/// Fiscal years of statements an analysis reads: the latest and up to five prior.
const STATEMENT_YEARS: usize = 6;
/// Fiscal quarters a company analysis reads: two years, for the trailing twelve months and the
/// same quarters a year earlier.
const STATEMENT_QUARTERS: usize = 8;
/// The price window of a company analysis.
const PRICE_RANGE: TimeRange = TimeRange::OneYear;
/// The agreements of a deal a loan application reads: its most recently changed documents.
const DEAL_AGREEMENTS: u32 = 20;

/// Which sections a company analysis computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    fn needs_statements(self) -> bool {
        self != Self::Market
    }
    fn needs_prices(self) -> bool {
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
const MAX_INSTRUMENTS: usize = 10;

/// One stage of a run, for the streaming endpoint.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    Started { analysis_id: AnalysisId, message: String },
    Step { step: &'static str, percent: u8, message: String },
}

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

/// Reports one stage of a run: step name, percent complete, message.
type Step<'a> = dyn Fn(&'static str, u8, String) + Send + Sync + 'a;

/// What the shared run steps need to know about one analysis.
struct Run {
    caller: Principal,
    kind: AnalysisKind,
    body: Value,
    deal_id: Option<i64>,
    /// "company analysis of Apple Inc.", for messages and events.
    subject: String,
    analysis_type: String,
}

/// A run that has begun: its id, its `started` event, and what it is about.
struct Started {
    id: AnalysisId,
    event_id: Uuid,
    event: Option<Value>,
    run: Run,
    request_id: String,
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// A validated request whose company is resolved: nothing is stored before this point.
pub struct PreparedCompany {
    caller: Principal,
    request: CompanyRequest,
    subject: Subject,
}

/// Whose statements an analysis reads: a company's SEC filings, or the statements the caller
/// supplied for a private borrower.
pub enum Subject {
    Listed(ResolvedCompany),
    Private { name: String, statements: StatementSet },
}

impl Subject {
    fn name(&self) -> &str {
        match self {
            Subject::Listed(company) => &company.name,
            Subject::Private { name, .. } => name,
        }
    }

    fn json(&self) -> Value {
        match self {
            Subject::Listed(company) => {
                json!({ "name": company.name, "cik": company.cik, "ticker": company.ticker, "statements_source": "SEC EDGAR" })
            }
            Subject::Private { name, statements } => json!({
                "name": name, "cik": null, "ticker": null,
                "statements_source": "supplied", "currency": statements.currency,
            }),
        }
    }
}

/// What the market-based measures need and a private borrower does not have.
const NO_LISTED_SHARES: &str = "market-based measures (Merton distance to default, the 1968 market-value Altman Z, price statistics): omitted, the borrower's shares are not listed (statements supplied by the caller)";

/// A validated market request with its price series fetched: nothing is stored before this point.
pub struct PreparedMarket {
    caller: Principal,
    request: MarketRequest,
    instruments: Vec<PriceSeries>,
    benchmark: Option<PriceSeries>,
    /// How each instrument was found in the query (ticker, sector phrase, company name).
    resolution: Vec<Value>,
}

/// A validated loan application with the borrower's statements: nothing is stored before this point.
pub struct PreparedLoan {
    caller: Principal,
    application: LoanApplication,
    /// Facility terms of the agreements stored for the application's deal.
    deal_terms: Vec<Value>,
    subject: Subject,
    financials: CompanyFinancials,
    /// Where every statement figure came from.
    provenance: Vec<Value>,
}

/// Any prepared analysis, ready to run.
pub enum PreparedAnalysis {
    Company(PreparedCompany),
    Market(PreparedMarket),
    Loan(PreparedLoan),
}

pub struct QuantService {
    /// Supplied statement sets an analysis may name, and a deal's latest for its loan application.
    statement_sets: Option<Arc<StatementSetService>>,
    /// Documents whose extracted agreements a loan application on the same deal is read against.
    documents: Option<Arc<dyn DocumentRepository>>,
    /// Writes the summary from the computed figures when configured; checked, with the
    /// deterministic narrator as the fallback.
    llm: Option<Arc<dyn LanguageModel>>,
    analyses: Arc<dyn AnalysisRepository>,
    financial: Option<Arc<dyn FinancialData>>,
    prices: Option<Arc<dyn PriceHistory>>,
    clock: Arc<dyn Clock>,
    benchmark: String,
}

impl QuantService {
    pub fn new(
        analyses: Arc<dyn AnalysisRepository>,
        financial: Option<Arc<dyn FinancialData>>,
        prices: Option<Arc<dyn PriceHistory>>,
        clock: Arc<dyn Clock>,
        benchmark: String,
    ) -> Self {
        Self { statement_sets: None, documents: None, llm: None, analyses, financial, prices, clock, benchmark }
    }

    /// The same service reading stored statement sets.
    #[must_use]
    pub fn with_statement_sets(mut self, sets: Arc<StatementSetService>) -> Self {
        self.statement_sets = Some(sets);
        self
    }

    /// The stored set `id` when the caller may use it (their own; any for administrators).
    async fn statement_set(&self, caller: Principal, id: StatementSetId) -> Result<StatementSetRecord, QuantError> {
        let unusable = || QuantError::Validation {
            field: "statement_set_id",
            message: "no statement set with this id that you may use".into(),
        };
        let Some(sets) = &self.statement_sets else { return Err(unusable()) };
        sets.get(caller, id).await.map_err(|error| match error {
            StatementSetError::Store(error) => QuantError::Store(error),
            _ => unusable(),
        })
    }

    /// The newest statement set stored for the deal that the caller may use.
    async fn deal_statement_set(
        &self,
        caller: Principal,
        deal_id: i64,
    ) -> Result<Option<StatementSetRecord>, QuantError> {
        match &self.statement_sets {
            Some(sets) => Ok(sets.latest_for_deal(caller, deal_id).await?),
            None => Ok(None),
        }
    }

    /// The same service reading the agreements stored for a loan application's deal.
    #[must_use]
    pub fn with_documents(mut self, documents: Arc<dyn DocumentRepository>) -> Self {
        self.documents = Some(documents);
        self
    }

    /// The facility terms of the agreements stored for `deal_id` that the caller may see (their
    /// own documents; all for administrators): `[{document_id, title, version, facilities:[…]}]`.
    async fn deal_terms(&self, caller: Principal, deal_id: i64) -> Result<Vec<Value>, QuantError> {
        let Some(documents) = &self.documents else { return Ok(Vec::new()) };
        let owner = listed_owner(caller);
        let mut terms = Vec::new();
        for current in documents.current_agreements(deal_id, owner, DEAL_AGREEMENTS).await? {
            let facilities: Vec<Value> = current.agreement["facilities"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| {
                    json!({
                        "name": f["name"],
                        "commitment": f["commitment"],
                        "floatingRateIndex": f["floatingRateIndex"],
                        "spread": f["spread"],
                        "floor": f["floor"],
                        "terminationDate": f["terminationDate"],
                    })
                })
                .collect();
            terms.push(json!({
                "document_id": current.id.get(),
                "title": current.title,
                "version": current.version,
                "facilities": facilities,
            }));
        }
        Ok(terms)
    }

    /// The same service with a language model writing the summaries.
    #[must_use]
    pub fn with_language_model(mut self, llm: Option<Arc<dyn LanguageModel>>) -> Self {
        self.llm = llm;
        self
    }

    /// Lets the language model rewrite the summary from the figures alone; keeps its text only when
    /// every number in it is one of the figures, and says in `data.narrative` which text is used.
    async fn narrate_with_model(&self, mut result: Value) -> Value {
        let deterministic = result["summary"].as_str().unwrap_or_default().to_owned();
        let narrative = match &self.llm {
            None => json!({ "source": "deterministic", "reason": "no language model is configured (LLM_BASE_URL)" }),
            Some(llm) => {
                let mut allowed: Vec<f64> = cited_numbers(&deterministic);
                let mut figures = String::new();
                for metric in result["metrics"].as_array().into_iter().flatten() {
                    if let (Some(name), Some(value)) = (metric["name"].as_str(), metric["value"].as_f64()) {
                        let symbol = metric["symbol"].as_str().map(|s| format!("{s} ")).unwrap_or_default();
                        figures.push_str(&format!(
                            "- {symbol}{name} = {value} ({})\n",
                            metric["unit"].as_str().unwrap_or("")
                        ));
                        allowed.push(value);
                    }
                    for input in metric["inputs"].as_array().into_iter().flatten() {
                        allowed.extend(input["value"].as_f64());
                    }
                }
                let request = ChatRequest::new(vec![
                    ChatMessage::system(NARRATOR_INSTRUCTIONS),
                    ChatMessage::user(format!("Figures:\n{figures}\nDraft summary:\n{deterministic}")),
                ])
                .with_temperature(0.2)
                .with_max_tokens(400);
                match llm.complete(request).await {
                    Ok(response) => {
                        let text = response.content.unwrap_or_default().trim().to_owned();
                        let uncited = uncited_numbers(&text, &allowed);
                        if text.is_empty() {
                            json!({ "source": "deterministic", "model": llm.model(), "reason": "the model returned no text" })
                        } else if uncited.is_empty() {
                            result["summary"] = json!(text);
                            json!({ "source": "llm", "model": llm.model() })
                        } else {
                            json!({
                                "source": "deterministic",
                                "model": llm.model(),
                                "reason": "the model's summary cited numbers that are not among the figures",
                                "uncited_numbers": uncited,
                            })
                        }
                    }
                    Err(error) => {
                        json!({ "source": "deterministic", "model": llm.model(), "reason": error.to_string() })
                    }
                }
            }
        };
        if let Some(data) = result.get_mut("data").and_then(Value::as_object_mut) {
            data.insert("narrative".into(), narrative);
        }
        result
    }

    /// Validates the request and resolves the company.
    ///
    /// # Errors
    /// [`QuantError::Validation`], [`QuantError::UnknownCompany`], [`QuantError::NotConfigured`],
    /// [`QuantError::ProviderUnavailable`] — and nothing is stored.
    pub async fn prepare_company(
        &self,
        caller: Principal,
        request: CompanyRequest,
    ) -> Result<PreparedCompany, QuantError> {
        let name = request.company_name.trim();
        if name.is_empty() || name.chars().count() > 200 {
            return Err(QuantError::Validation { field: "company_name", message: "must be 1-200 characters".into() });
        }
        validate_deal_id(request.deal_id)?;
        if request.financials.is_some() && request.statement_set_id.is_some() {
            return Err(QuantError::Validation {
                field: "statement_set_id",
                message: "give financials or a statement_set_id, not both".into(),
            });
        }
        let supplied = match (&request.financials, request.statement_set_id) {
            (Some(financials), _) => Some(check_input(financials)?),
            (None, Some(id)) => Some(self.statement_set(caller, id).await?.statements),
            (None, None) => None,
        };
        if let Some(statements) = supplied {
            if request.analysis_type == CompanyAnalysisType::Market {
                return Err(QuantError::Validation {
                    field: "analysis_type",
                    message: "a market analysis reads share prices; supplied financials describe a borrower without listed shares".into(),
                });
            }
            if request.ticker.as_ref().is_some_and(|t| !t.trim().is_empty()) {
                return Err(QuantError::Validation {
                    field: "ticker",
                    message: "give either a ticker (the company's SEC filings are read) or financials (the statements supplied are read), not both".into(),
                });
            }
            let subject = Subject::Private { name: name.to_owned(), statements };
            return Ok(PreparedCompany { caller, request, subject });
        }
        let financial = self.financial.as_ref().ok_or(QuantError::NotConfigured)?;
        let query = CompanyQuery::new(name, request.ticker.clone().filter(|t| !t.trim().is_empty()));
        let company = financial.resolve(&query).await.map_err(|error| match error {
            FinancialDataError::UnknownCompany { .. } => {
                QuantError::UnknownCompany { message: error.to_string(), candidates: Vec::new() }
            }
            FinancialDataError::Ambiguous { candidates, .. } => QuantError::UnknownCompany {
                message: format!("'{}' matches several companies: name one, or give its ticker", query.describe()),
                candidates,
            },
            other => unavailable(statements_failure(&other)),
        })?;
        Ok(PreparedCompany { caller, request, subject: Subject::Listed(company) })
    }

    /// Stores the run, computes it (reporting progress), and stores its outcome.
    ///
    /// # Errors
    /// [`QuantError::ProviderUnavailable`] (the run is stored as failed), [`QuantError::Store`].
    pub async fn run_company(
        &self,
        prepared: PreparedCompany,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<AnalysisRecord, QuantError> {
        let PreparedCompany { caller, request, subject } = prepared;
        let supplied_periods = match &subject {
            Subject::Private { statements, .. } => Some(supplied::periods_json(statements)),
            Subject::Listed(_) => None,
        };
        let body = json!({
            "company_name": request.company_name,
            "ticker": request.ticker,
            "analysis_type": request.analysis_type.as_str(),
            "deal_id": request.deal_id,
            "financials": supplied_periods,
        });
        let run = Run {
            caller,
            kind: AnalysisKind::Company,
            body,
            deal_id: request.deal_id,
            subject: format!("company analysis of {}", subject.name()),
            analysis_type: request.analysis_type.as_str().to_owned(),
        };
        let started = self.begin(run, request_id, progress).await?;
        let step = |step, percent, message: String| progress(Progress::Step { step, percent, message });
        let computed = self.compute(&subject, request.analysis_type, &step).await;
        self.end(started, computed, &step).await
    }

    /// Stores the run as `pending`, reports `started`, moves it to `running`.
    async fn begin(
        &self,
        run: Run,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<Started, QuantError> {
        let record =
            AnalysisRecord::pending(run.caller.user_id, run.kind, run.body.clone(), run.deal_id, self.clock.now());
        let id = record.id;
        let event_id = Uuid::new_v4();
        self.analyses.create(record).await?;
        progress(Progress::Started { analysis_id: id, message: format!("{} started", run.subject) });
        self.analyses.start(id).await?;
        let event = self.event(
            event_id,
            request_id,
            None,
            ObservationStep::new(
                EventKind::QuantitativeAnalysisStarted,
                WorkflowStatus::Pending,
                capitalised(&format!("{} started", run.subject)),
            )
            .item("analysisId", id)
            .item("analysisType", &run.analysis_type)
            .optional_item("dealId", run.deal_id),
        );
        Ok(Started { id, event_id, event, run, request_id: request_id.to_owned() })
    }

    /// Stores `completed` (or `failed`) with the CDM events of the whole run.
    async fn end(
        &self,
        started: Started,
        computed: Result<Value, (String, String)>,
        step: &Step<'_>,
    ) -> Result<AnalysisRecord, QuantError> {
        let Started { id, event_id, event, run, request_id } = started;
        let (subject, analysis_type, deal_id) = (&run.subject, &run.analysis_type, run.deal_id);
        let mut events = vec![event];
        let finished_event = Uuid::new_v4();
        let computed = match computed {
            Ok(result) => Ok(self.narrate_with_model(result).await),
            Err(error) => Err(error),
        };
        match computed {
            Ok(result) => {
                let text = |pointer: &str| result.pointer(pointer).and_then(Value::as_str).map(str::to_owned);
                let number = |pointer: &str| result.pointer(pointer).and_then(Value::as_f64);
                events.push(
                    self.event(
                        finished_event,
                        &request_id,
                        Some(event_id),
                        ObservationStep::new(
                            EventKind::QuantitativeAnalysisCompleted,
                            WorkflowStatus::Accepted,
                            capitalised(&format!("{subject} completed")),
                        )
                        .item("analysisId", id)
                        .item("analysisType", analysis_type)
                        .optional_item("dealId", deal_id)
                        .optional_item(
                            "creditGrade",
                            text("/data/credit/rating/grade").or_else(|| text("/data/loan/grade")),
                        )
                        .optional_item(
                            "probabilityOfDefault",
                            number("/data/credit/rating/pd").or_else(|| number("/data/loan/pd")),
                        )
                        .optional_item("recommendation", text("/data/loan/recommendation")),
                    ),
                );
                step("store", 100, "analysis stored".into());
                let events = events.into_iter().flatten().collect();
                Ok(self.analyses.finish(id, AnalysisOutcome::Completed { result }, events, self.clock.now()).await?)
            }
            Err((provider, reason)) => {
                events.push(
                    self.event(
                        finished_event,
                        &request_id,
                        Some(event_id),
                        ObservationStep::new(
                            EventKind::QuantitativeAnalysisFailed,
                            WorkflowStatus::Rejected,
                            capitalised(&format!("{subject} failed: {provider} unavailable")),
                        )
                        .item("analysisId", id)
                        .optional_item("dealId", deal_id),
                    ),
                );
                let events = events.into_iter().flatten().collect();
                let error = format!("{provider} unavailable: {reason}");
                self.analyses.finish(id, AnalysisOutcome::Failed { error }, events, self.clock.now()).await?;
                Err(QuantError::ProviderUnavailable { provider, reason, analysis_id: Some(id) })
            }
        }
    }

    /// Runs any prepared analysis.
    ///
    /// # Errors
    /// As the kind's own run.
    pub async fn run_prepared(
        &self,
        prepared: PreparedAnalysis,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<AnalysisRecord, QuantError> {
        match prepared {
            PreparedAnalysis::Company(prepared) => self.run_company(prepared, request_id, progress).await,
            PreparedAnalysis::Market(prepared) => self.run_market(prepared, request_id, progress).await,
            PreparedAnalysis::Loan(prepared) => self.run_loan(prepared, request_id, progress).await,
        }
    }

    /// Finds the instruments of the query (tickers, sector and market phrases through the ETF
    /// table, else a company name) and fetches their prices and the benchmark's.
    ///
    /// # Errors
    /// [`QuantError::Validation`] (no instrument, unknown symbol), [`QuantError::UnknownCompany`],
    /// [`QuantError::ProviderUnavailable`], [`QuantError::NotConfigured`] — and nothing is stored.
    pub async fn prepare_market(
        &self,
        caller: Principal,
        request: MarketRequest,
    ) -> Result<PreparedMarket, QuantError> {
        let query = request.query.trim();
        if query.is_empty() || query.chars().count() > 500 {
            return Err(QuantError::Validation { field: "query", message: "must be 1-500 characters".into() });
        }
        validate_deal_id(request.deal_id)?;
        let prices = self.prices.as_ref().ok_or(QuantError::NotConfigured)?;
        let parsed = parse_market_query(query);
        let mut resolution: Vec<Value> =
            parsed.tickers.iter().map(|t| json!({ "symbol": t, "found_as": "ticker" })).collect();
        resolution.extend(parsed.sectors.iter().map(|s| {
            json!({ "symbol": s.etf, "found_as": "sector", "phrase": s.matched_text, "description": s.description })
        }));
        let mut symbols = parsed.symbols();
        if symbols.is_empty() && !parsed.remaining_words.is_empty() {
            // A company name: the remaining words together, else each capitalised word on its own
            // ("how has Apple done" → "Apple"); the first that names exactly one company wins.
            let financial = self.financial.as_ref().ok_or(QuantError::NotConfigured)?;
            let whole = parsed.remaining_words.join(" ");
            let names = std::iter::once(whole).chain(
                parsed.remaining_words.iter().filter(|w| w.chars().next().is_some_and(char::is_uppercase)).cloned(),
            );
            for name in names {
                match financial.resolve(&CompanyQuery::new(name, None)).await {
                    Ok(company) => {
                        let Some(ticker) = company.ticker.clone() else {
                            return Err(QuantError::Validation {
                                field: "query",
                                message: format!("{} has no listed ticker", company.name),
                            });
                        };
                        resolution.push(json!({ "symbol": ticker, "found_as": "company", "company": company.name, "cik": company.cik }));
                        symbols.push(ticker);
                        break;
                    }
                    Err(FinancialDataError::UnknownCompany { .. }) => continue,
                    Err(FinancialDataError::Ambiguous { candidates, query }) => {
                        return Err(QuantError::UnknownCompany {
                            message: format!("'{query}' matches several companies: name one, or give its ticker"),
                            candidates,
                        });
                    }
                    Err(other) => return Err(unavailable(statements_failure(&other))),
                }
            }
        }
        if symbols.is_empty() {
            return Err(QuantError::Validation {
                field: "query",
                message: "names no ticker (AAPL, $MSFT), sector (semiconductors, high yield) or company".into(),
            });
        }
        if symbols.len() > MAX_INSTRUMENTS {
            return Err(QuantError::Validation {
                field: "query",
                message: format!("names {} instruments; at most {MAX_INSTRUMENTS} are compared", symbols.len()),
            });
        }
        // All series at once (a remote provider's latency is paid once, not per symbol); failures are
        // then reported in the query's order, the benchmark's last.
        let fetches = symbols
            .iter()
            .chain(std::iter::once(&self.benchmark))
            .map(|symbol| closes_if_known(prices.as_ref(), symbol, request.time_range));
        let mut fetched = futures_util::future::join_all(fetches).await.into_iter();
        let mut instruments = Vec::with_capacity(symbols.len());
        for (symbol, series) in symbols.iter().zip(fetched.by_ref()) {
            instruments.push(series.map_err(unavailable)?.ok_or_else(|| QuantError::Validation {
                field: "query",
                message: format!("{symbol} has no price history at {}", prices.provider()),
            })?);
        }
        let benchmark = fetched.next().transpose().map_err(unavailable)?.flatten();
        Ok(PreparedMarket { caller, request, instruments, benchmark, resolution })
    }

    async fn run_market(
        &self,
        prepared: PreparedMarket,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<AnalysisRecord, QuantError> {
        let PreparedMarket { caller, request, instruments, benchmark, resolution } = prepared;
        let symbols: Vec<String> = instruments.iter().map(|s| s.symbol().to_owned()).collect();
        let run = Run {
            caller,
            kind: AnalysisKind::Market,
            body: json!({ "query": request.query, "time_range": request.time_range.as_str(), "deal_id": request.deal_id }),
            deal_id: request.deal_id,
            subject: format!("market analysis of {}", symbols.join(", ")),
            analysis_type: "market".into(),
        };
        let started = self.begin(run, request_id, progress).await?;
        let step = |step, percent, message: String| progress(Progress::Step { step, percent, message });
        step("compute", 50, format!("computing statistics over {}", request.time_range.as_str()));
        let range = request.time_range;
        let benchmark_stats =
            benchmark.as_ref().and_then(|b| instrument_statistics(b, None, range, RISK_FREE_RATE).ok());
        let mut missing = Vec::new();
        let stats: Vec<InstrumentStatistics> = instruments
            .iter()
            .filter_map(|series| {
                instrument_statistics(series, benchmark.as_ref(), range, RISK_FREE_RATE)
                    .map_err(|e| missing.push(format!("{}: {e}", series.symbol())))
                    .ok()
            })
            .collect();
        let mut all_series = instruments.clone();
        all_series.extend(benchmark.iter().cloned());
        let correlations =
            correlation_matrix(&all_series, range).map_err(|e| missing.push(format!("correlation: {e}"))).ok();
        step("rate", 75, "ranking and comparing".into());
        let findings: Vec<Value> = market_findings(&stats, benchmark_stats.as_ref()).iter().map(finding_json).collect();
        step("narrate", 90, "writing the summary".into());
        let summary = narrate_market(&stats, benchmark_stats.as_ref(), range);
        let metrics: Vec<Value> = stats
            .iter()
            .chain(benchmark_stats.iter())
            .flat_map(|s| {
                s.metrics.iter().filter_map(|m| {
                    let mut value = serde_json::to_value(m).ok()?;
                    value.as_object_mut()?.insert("symbol".into(), json!(s.symbol));
                    Some(value)
                })
            })
            .collect();
        let result = json!({
            "summary": summary,
            "findings": findings,
            "metrics": metrics,
            "data": {
                "query": request.query,
                "time_range": range.as_str(),
                "instruments": resolution,
                "benchmark": self.benchmark,
                "statistics": stats,
                "benchmark_statistics": benchmark_stats,
                "correlation": correlations,
                "missing_inputs": missing,
                "methodology": [
                    "Windows in trading days: 1M 21, 3M 63, 6M 126, 1Y 252, 5Y 1260; annualisation 252.",
                    "Volatility: sample standard deviation of log returns x sqrt(252).",
                    "Beta and correlation on simple returns between dates both series have.",
                    "Historical VaR/CVaR: nearest rank k = ceil((1-alpha) n); Sharpe and Sortino over a zero rate.",
                ],
            },
        });
        self.end(started, Ok(result), &step).await
    }

    /// Validates the application, resolves the borrower and reads its statements.
    ///
    /// # Errors
    /// [`QuantError::Validation`] (amount, name, no public financials), [`QuantError::UnknownCompany`],
    /// [`QuantError::ProviderUnavailable`], [`QuantError::NotConfigured`] — and nothing is stored.
    pub async fn prepare_loan(
        &self,
        caller: Principal,
        application: LoanApplication,
    ) -> Result<PreparedLoan, QuantError> {
        if !(application.loan_amount.is_finite() && application.loan_amount > 0.0) {
            return Err(QuantError::Validation { field: "loan_amount", message: "must be a positive amount".into() });
        }
        if application.loan_amount > MAX_LOAN_AMOUNT {
            return Err(QuantError::Validation {
                field: "loan_amount",
                message: format!("must be at most {MAX_LOAN_AMOUNT:.0} (USD 1 trillion)"),
            });
        }
        let subject = self
            .prepare_company(
                caller,
                CompanyRequest {
                    company_name: application.borrower_name.clone(),
                    ticker: None,
                    analysis_type: CompanyAnalysisType::Financial,
                    deal_id: application.deal_id,
                    financials: application.financials.clone(),
                    statement_set_id: application.statement_set_id,
                },
            )
            .await
            .map(|prepared| prepared.subject)
            .map_err(|error| match error {
                QuantError::Validation { field: "company_name", message } => {
                    QuantError::Validation { field: "borrower_name", message }
                }
                other => other,
            });
        let resolved = match subject {
            Ok(Subject::Listed(company)) => self.listed_annual_statements(&company).await.map(|statements| {
                let provenance = provenance_json(&statements);
                (Subject::Listed(company), statements.financials, provenance)
            }),
            Ok(Subject::Private { name, statements }) => Ok(private_parts(name, statements)),
            Err(error) => Err(error),
        };
        // A borrower without filings is read from the statement set stored for the deal, if any.
        let (subject, financials, provenance) = match resolved {
            Ok(parts) => parts,
            Err(
                error @ (QuantError::UnknownCompany { .. }
                | QuantError::NoPublicStatements { .. }
                | QuantError::NotConfigured),
            ) => {
                let stored = match application.deal_id {
                    Some(deal_id) => self.deal_statement_set(caller, deal_id).await?,
                    None => None,
                };
                match stored {
                    Some(record) => private_parts(application.borrower_name.trim().to_owned(), record.statements),
                    None => return Err(error),
                }
            }
            Err(error) => return Err(error),
        };
        if let Subject::Private { statements, .. } = &subject
            && statements.currency != "USD"
        {
            return Err(QuantError::Validation {
                field: "financials",
                message: format!(
                    "currency must be USD, the loan amount's currency: pro-forma leverage adds the loan to the statements' debt (given {})",
                    statements.currency
                ),
            });
        }
        let deal_terms = match application.deal_id {
            Some(deal_id) => self.deal_terms(caller, deal_id).await?,
            None => Vec::new(),
        };
        Ok(PreparedLoan { caller, application, deal_terms, subject, financials, provenance })
    }

    /// A listed borrower's annual statements, refused when it files none.
    async fn listed_annual_statements(
        &self,
        company: &ResolvedCompany,
    ) -> Result<StatementsWithProvenance, QuantError> {
        let financial = self.financial.as_ref().ok_or(QuantError::NotConfigured)?;
        let statements = financial.annual_statements(company, STATEMENT_YEARS).await.map_err(|error| match error {
            FinancialDataError::NoStatements { company, reason, .. } => QuantError::NoPublicStatements {
                message: format!(
                    "{company} has no public annual financial statements ({reason}): supply the borrower's statements as financials"
                ),
            },
            other => unavailable(statements_failure(&other)),
        })?;
        if statements.financials.years().is_empty() {
            return Err(QuantError::NoPublicStatements {
                message: format!(
                    "{} has no public annual financial statements: supply the borrower's statements as financials",
                    company.name
                ),
            });
        }
        Ok(statements)
    }

    async fn run_loan(
        &self,
        prepared: PreparedLoan,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<AnalysisRecord, QuantError> {
        let PreparedLoan { caller, application, deal_terms, subject, financials, provenance } = prepared;
        let run = Run {
            caller,
            kind: AnalysisKind::LoanApplication,
            body: json!({
                "borrower_name": application.borrower_name,
                "loan_amount": application.loan_amount,
                "loan_type": application.loan_type.as_str(),
                "deal_id": application.deal_id,
                "financials": match &subject {
                    Subject::Private { statements, .. } => Some(supplied::periods_json(statements)),
                    Subject::Listed(_) => None,
                },
            }),
            deal_id: application.deal_id,
            subject: format!("loan application of {}", subject.name()),
            analysis_type: "loan_application".into(),
        };
        let started = self.begin(run, request_id, progress).await?;
        let step = |step, percent, message: String| progress(Progress::Step { step, percent, message });
        step("compute", 50, "pro-forma ratios, grade, capital and price".into());
        let computed = LoanRequest::new(application.loan_amount, application.loan_type, Seniority::SeniorUnsecured)
            .map(|request| assess_loan(&financials, request, &LoanPolicy::default()))
            .map_err(|e| ("loan assessment".to_owned(), e.to_string()));
        let computed = computed.map(|assessment| {
            step("rate", 75, "recommendation and findings".into());
            let mut findings: Vec<Value> = loan_findings(&assessment, &FindingThresholds::default())
                .iter()
                .filter_map(|f| serde_json::to_value(f).ok())
                .collect();
            // The spread the bank needs: the grade's, or the RAROC minimum when that is higher.
            let required_spread = assessment
                .price
                .as_ref()
                .map(|p| p.raroc_minimum_spread.map_or(p.grade_spread, |r| r.max(p.grade_spread)));
            findings.extend(margin_findings(&deal_terms, required_spread));
            step("narrate", 90, "writing the summary".into());
            let summary = narrate_loan(subject.name(), &application, &assessment);
            let mut missing_inputs = assessment.missing_inputs.clone();
            if matches!(subject, Subject::Private { .. }) {
                missing_inputs.push(NO_LISTED_SHARES.to_owned());
            }
            json!({
                "summary": summary,
                "findings": findings,
                "metrics": assessment.metrics,
                "data": {
                    "borrower": subject.json(),
                    "loan": {
                        "amount": application.loan_amount,
                        "currency": "USD",
                        "loan_type": application.loan_type.as_str(),
                        "seniority": "senior_unsecured",
                        "grade": assessment.grade.map(|g| g.to_string()),
                        "pd": assessment.pd,
                        "recommendation": serde_json::to_value(assessment.recommendation).ok(),
                        "assessment": assessment,
                        "deal_terms": deal_terms,
                    },
                    "statements": financials.years().iter().map(statement_json).collect::<Vec<_>>(),
                    "provenance": provenance,
                    "methodology": assessment.methodology,
                    "missing_inputs": missing_inputs,
                },
            })
        });
        self.end(started, computed, &step).await
    }

    /// The run, if the caller may see it (its owner and administrators).
    ///
    /// # Errors
    /// [`QuantError::NotFound`] otherwise; [`QuantError::Store`].
    pub async fn get(&self, caller: Principal, id: AnalysisId) -> Result<AnalysisRecord, QuantError> {
        self.analyses.find(id).await?.filter(|record| caller.may_see_owned_by(record.owner)).ok_or(QuantError::NotFound)
    }

    /// One page of the caller's runs (everyone's for administrators), newest first.
    ///
    /// # Errors
    /// [`QuantError::Validation`] for a page below 1 or a limit outside 1–200; [`QuantError::Store`].
    pub async fn list(
        &self,
        caller: Principal,
        deal_id: Option<i64>,
        page: u32,
        limit: u32,
    ) -> Result<(Vec<AnalysisRecord>, u64), QuantError> {
        let query = RunQuery::for_caller(caller, deal_id, page, limit)
            .map_err(|e| QuantError::Validation { field: e.field, message: e.message.into() })?;
        Ok(self.analyses.list(&query).await?)
    }

    fn event(&self, id: Uuid, request_id: &str, previous: Option<Uuid>, step: ObservationStep) -> Option<Value> {
        let context = EventContext::new(id, self.clock.now(), request_id)
            .or_else(|_| EventContext::new(id, OffsetDateTime::UNIX_EPOCH, request_id))
            .ok()?;
        let step = match previous {
            Some(previous) => step.previous(previous),
            None => step,
        };
        Some(cdm::observation_step(&context, &step))
    }

    /// The analysis itself; `Err((provider, reason))` when a provider fails.
    async fn compute(
        &self,
        subject: &Subject,
        analysis_type: CompanyAnalysisType,
        step: &Step<'_>,
    ) -> Result<Value, (String, String)> {
        let mut missing = Vec::new();
        let gathered = match subject {
            Subject::Listed(company) => self.gather_listed(company, analysis_type, &mut missing, step).await?,
            Subject::Private { name, statements } => {
                step("read_statements", 20, format!("reading the statements supplied for {name}"));
                missing.push(NO_LISTED_SHARES.to_owned());
                Gathered {
                    financials: Some(supplied::fiscal_years(name, statements)),
                    provenance: Some(supplied::provenance(statements)),
                    supplied_periods: Some(supplied::periods_json(statements)),
                    quarterly: None,
                    ttm: supplied::trailing_twelve_months(statements),
                    ttm_method: &[SUPPLIED_TTM_METHOD],
                    stock: None,
                    benchmark: None,
                }
            }
        };
        let Gathered { financials, provenance, supplied_periods, quarterly, ttm, ttm_method, stock, benchmark } =
            gathered;
        step("compute", 70, "computing ratios and market statistics".into());
        let benchmark_stats =
            benchmark.as_ref().and_then(|b| instrument_statistics(b, None, PRICE_RANGE, RISK_FREE_RATE).ok());
        let stock_stats = stock.as_ref().and_then(|s| {
            instrument_statistics(s, benchmark.as_ref(), PRICE_RANGE, RISK_FREE_RATE)
                .map_err(|e| missing.push(format!("market statistics: {e}")))
                .ok()
        });
        let credit = financials.as_ref().map(|f| {
            let market = stock_stats.as_ref().and_then(|stats| market_inputs(f.latest(), stock.as_ref(), stats));
            analyse_credit(f, market)
        });
        step("rate", 85, "rating and findings".into());
        let thresholds = FindingThresholds::default();
        let mut findings: Vec<Value> = credit
            .as_ref()
            .map(|c| credit_findings(c, &thresholds).iter().filter_map(|f| serde_json::to_value(f).ok()).collect())
            .unwrap_or_default();
        if let Some(stats) = &stock_stats {
            findings.extend(
                market_findings(std::slice::from_ref(stats), benchmark_stats.as_ref()).iter().map(finding_json),
            );
        }
        step("narrate", 95, "writing the summary".into());
        let computed_ttm = ttm.as_ref().and_then(|t| t.as_ref().ok());
        let currency = match subject {
            Subject::Private { statements, .. } => Some(statements.currency.as_str()),
            Subject::Listed(_) => None,
        };
        let summary =
            narrate((subject.name(), currency), credit.as_ref(), computed_ttm, stock_stats.as_ref(), &self.benchmark);
        let mut metrics: Vec<Value> = Vec::new();
        if let Some(credit) = &credit {
            metrics.extend(credit.metrics.iter().filter_map(|m| serde_json::to_value(m).ok()));
        }
        if let Some(ttm) = computed_ttm {
            metrics.extend(ttm.metrics.iter().filter_map(|m| serde_json::to_value(m).ok()));
        }
        if let Some(stats) = &stock_stats {
            metrics.extend(stats.metrics.iter().filter_map(|m| serde_json::to_value(m).ok()));
        }
        let mut methodology = credit.as_ref().map(|c| c.methodology.clone()).unwrap_or_default();
        let mut missing_inputs = credit.as_ref().map(|c| c.missing_inputs.clone()).unwrap_or_default();
        match &ttm {
            Some(Ok(ttm)) => {
                methodology.extend(ttm_method.iter().map(|m| (*m).to_owned()));
                missing_inputs.extend(ttm.missing_inputs.iter().cloned());
            }
            Some(Err(reason)) => {
                // The quarters were still read the way the first method says.
                methodology.extend(ttm_method.iter().take(1).map(|m| (*m).to_owned()));
                missing_inputs.push(format!("ttm_*: {reason}"));
            }
            None => {}
        }
        missing_inputs.extend(missing);
        Ok(json!({
            "summary": summary,
            "findings": findings,
            "metrics": metrics,
            "data": {
                "company": subject.json(),
                "analysis_type": analysis_type.as_str(),
                "statements": financials.as_ref().map(|f| f.years().iter().map(statement_json).collect::<Vec<_>>()),
                "supplied_periods": supplied_periods,
                "provenance": provenance,
                "quarterly": quarterly,
                "ttm": ttm.as_ref().map(|t| match t {
                    Ok(ttm) => json!(ttm),
                    Err(reason) => json!({ "computed": false, "reason": reason }),
                }),
                "credit": credit,
                "price_statistics": { "instrument": stock_stats, "benchmark": benchmark_stats },
                "methodology": methodology,
                "missing_inputs": missing_inputs,
            },
        }))
    }

    /// A listed company's statements (annual and quarterly, with TTM) and prices, as the analysis
    /// type needs them.
    async fn gather_listed(
        &self,
        company: &ResolvedCompany,
        analysis_type: CompanyAnalysisType,
        missing: &mut Vec<String>,
        step: &Step<'_>,
    ) -> Result<Gathered, (String, String)> {
        let fetched = if analysis_type.needs_statements() {
            step("fetch_statements", 20, format!("reading {}'s annual and quarterly statements", company.name));
            let financial =
                self.financial.as_ref().ok_or_else(|| ("market data".to_owned(), "not configured".to_owned()))?;
            let statements = financial
                .statements(company, STATEMENT_YEARS, STATEMENT_QUARTERS)
                .await
                .map_err(|e| statements_failure(&e))?;
            Some(statements)
        } else {
            None
        };
        let (annual, quarterly) = match fetched {
            Some(CompanyStatements { annual, quarterly }) => (Some(annual), Some(quarterly)),
            None => (None, None),
        };
        let (stock, benchmark) = if analysis_type.needs_prices() {
            step("fetch_prices", 45, "reading daily prices".into());
            self.fetch_prices(company, missing).await?
        } else {
            (None, None)
        };
        let ttm = quarterly.as_ref().map(|q| {
            let last_year_end = annual.as_ref().and_then(|s| s.financials.latest()).map(|y| y.fiscal_year_end);
            trailing_twelve_months(&q.statements, last_year_end)
        });
        Ok(Gathered {
            provenance: annual.as_ref().map(provenance_json),
            financials: annual.map(|a| a.financials),
            supplied_periods: None,
            quarterly: quarterly.as_ref().map(quarterly_json),
            ttm,
            ttm_method: &[QUARTERS_METHOD, TTM_METHOD],
            stock,
            benchmark,
        })
    }

    async fn fetch_prices(
        &self,
        company: &ResolvedCompany,
        missing: &mut Vec<String>,
    ) -> Result<(Option<PriceSeries>, Option<PriceSeries>), (String, String)> {
        let Some(prices) = &self.prices else {
            missing.push("prices: no price source is configured".into());
            return Ok((None, None));
        };
        let Some(ticker) = &company.ticker else {
            missing.push("prices: the company has no listed ticker".into());
            return Ok((None, None));
        };
        // A symbol the provider does not know leaves the market section out; it is not a failure.
        // Both series are fetched at once; the stock's failure is reported first.
        let (stock, benchmark) = futures_util::future::join(
            closes_if_known(prices.as_ref(), ticker, PRICE_RANGE),
            closes_if_known(prices.as_ref(), &self.benchmark, PRICE_RANGE),
        )
        .await;
        let (stock, benchmark) = (stock?, benchmark?);
        if stock.is_none() {
            missing.push(format!("prices: {} has no price history at {}", ticker, prices.provider()));
        }
        if benchmark.is_none() {
            missing.push(format!("prices: benchmark {} has no price history", self.benchmark));
        }
        Ok((stock, benchmark))
    }
}

/// A private borrower's subject, fiscal years and provenance.
fn private_parts(name: String, statements: StatementSet) -> (Subject, CompanyFinancials, Vec<Value>) {
    let financials = supplied::fiscal_years(&name, &statements);
    let provenance = supplied::provenance(&statements);
    (Subject::Private { name, statements }, financials, provenance)
}

/// The statements and prices an analysis computes from, whoever supplied them.
struct Gathered {
    financials: Option<CompanyFinancials>,
    /// Where each statement figure came from.
    provenance: Option<Vec<Value>>,
    /// The periods the caller supplied, as given (scaled by their unit).
    supplied_periods: Option<Vec<Value>>,
    quarterly: Option<Value>,
    ttm: Option<Result<TrailingTwelveMonths, String>>,
    /// How the quarters and the trailing twelve months were read.
    ttm_method: &'static [&'static str],
    stock: Option<PriceSeries>,
    benchmark: Option<PriceSeries>,
}

/// A provider that failed, and why: what a run stores and the 502 names.
type ProviderFailure = (String, String);

fn statements_failure(error: &FinancialDataError) -> ProviderFailure {
    match error {
        FinancialDataError::Unavailable { provider, reason }
        | FinancialDataError::InvalidData { provider, reason }
        | FinancialDataError::NoStatements { provider, reason, .. } => ((*provider).to_owned(), reason.clone()),
        other => ("SEC EDGAR".to_owned(), other.to_string()),
    }
}

/// A provider failure before any run was stored.
fn unavailable((provider, reason): ProviderFailure) -> QuantError {
    QuantError::ProviderUnavailable { provider, reason, analysis_id: None }
}

/// The closes of `symbol`, `None` when the provider does not know it.
async fn closes_if_known(
    prices: &dyn PriceHistory,
    symbol: &str,
    range: TimeRange,
) -> Result<Option<PriceSeries>, ProviderFailure> {
    match prices.daily_closes(symbol, range).await {
        Ok(series) => Ok(Some(series)),
        Err(PriceHistoryError::UnknownSymbol { .. } | PriceHistoryError::InvalidSymbol { .. }) => Ok(None),
        Err(error) => Err((prices.provider().to_owned(), error.to_string())),
    }
}

fn validate_deal_id(deal_id: Option<i64>) -> Result<(), QuantError> {
    if deal_id.is_some_and(|id| id <= 0) {
        return Err(QuantError::Validation { field: "deal_id", message: "must be a positive integer".into() });
    }
    Ok(())
}

/// Market capitalisation (last close × shares outstanding), volatility and return, for Merton.
fn market_inputs(
    latest: Option<&FiscalYearStatement>,
    stock: Option<&PriceSeries>,
    stats: &InstrumentStatistics,
) -> Option<MarketInputs> {
    let shares = latest?.shares_outstanding?;
    let last_close = stock?.points().last()?.close;
    Some(MarketInputs {
        equity_market_value: shares * last_close,
        equity_volatility: stats.value("annualised_volatility")?,
        equity_return: stats.value("period_return")?,
    })
}

fn statement_json(year: &FiscalYearStatement) -> Value {
    let mut value = lines_json(year);
    if let Some(object) = value.as_object_mut() {
        object.insert("fiscal_year_end".into(), json!(year.fiscal_year_end.to_string()));
    }
    value
}

/// A quarter's period, how it was obtained, and its lines as [`statement_json`] has them.
fn quarter_json(quarter: &QuarterStatement) -> Value {
    let mut value = lines_json(&quarter.lines);
    if let Some(object) = value.as_object_mut() {
        object.insert("period_start".into(), json!(quarter.period_start.to_string()));
        object.insert("period_end".into(), json!(quarter.period_end.to_string()));
        object.insert("source".into(), json!(quarter.source));
    }
    value
}

fn quarterly_json(quarterly: &QuarterlyStatementsWithProvenance) -> Value {
    json!({
        "quarters": quarterly.statements.quarters().iter().map(quarter_json).collect::<Vec<_>>(),
        "provenance": quarterly.provenance.iter().map(|p| line_provenance_json("quarter_end", p)).collect::<Vec<_>>(),
        "left_out": quarterly.left_out,
    })
}

/// The lines of a fiscal year or a quarter, with total debt.
fn lines_json(year: &FiscalYearStatement) -> Value {
    json!({
        "revenue": year.revenue,
        "gross_profit": year.gross_profit,
        "operating_income": year.operating_income,
        "net_income": year.net_income,
        "depreciation_amortization": year.depreciation_amortization,
        "interest_expense": year.interest_expense,
        "income_tax": year.income_tax,
        "total_assets": year.total_assets,
        "current_assets": year.current_assets,
        "total_liabilities": year.total_liabilities,
        "current_liabilities": year.current_liabilities,
        "total_debt": year.total_debt(),
        "equity": year.equity,
        "cash": year.cash,
        "cash_from_operations": year.cash_from_operations,
        "capital_expenditure": year.capital_expenditure,
        "shares_outstanding": year.shares_outstanding,
    })
}

fn provenance_json(statements: &StatementsWithProvenance) -> Vec<Value> {
    statements.provenance.iter().map(|p| line_provenance_json("fiscal_year_end", p)).collect()
}

/// One provenance entry; `statement_key` names the statement's end (`fiscal_year_end`, `quarter_end`).
fn line_provenance_json(statement_key: &str, p: &LineProvenance) -> Value {
    json!({
        statement_key: p.statement_end.to_string(),
        "line": p.line.as_str(),
        "tag": p.tag,
        "value": p.value,
        "accession_number": p.accession_number,
        "form": p.form,
        "period_start": p.period_start.map(|d| d.to_string()),
        "period_end": p.period_end.to_string(),
        "filed": p.filed.to_string(),
        "source_url": p.source_url,
        "derivation": p.derivation,
    })
}

/// How the margins the deal's agreements set compare with the spread the bank needs (the grade's
/// spread, or the RAROC minimum when higher).
fn margin_findings(deal_terms: &[Value], indicative_spread: Option<f64>) -> Vec<Value> {
    let mut findings = Vec::new();
    for document in deal_terms {
        for facility in document["facilities"].as_array().into_iter().flatten() {
            // Decimals are exact strings in the agreement (2.75 % is "0.0275").
            let Some(margin) = facility["spread"].as_str().and_then(|s| s.parse::<f64>().ok()) else { continue };
            let name = facility["name"].as_str().unwrap_or("a facility");
            let (severity, comparison) = match indicative_spread {
                Some(required) if margin + 1e-9 < required => {
                    ("watch", format!("below the {:.2}% the grade and RAROC require", required * 100.0))
                }
                Some(required) => {
                    ("info", format!("at or above the {:.2}% the grade and RAROC require", required * 100.0))
                }
                None => ("info", "with no required spread to compare".to_owned()),
            };
            findings.push(json!({
                "category": "pricing",
                "severity": severity,
                "statement": format!(
                    "Document {} ({}) sets a margin of {:.2}% for {name}, {comparison}.",
                    document["document_id"],
                    document["title"].as_str().unwrap_or(""),
                    margin * 100.0
                ),
                "evidence": { "metric": "contractual_margin", "value": margin, "threshold": indicative_spread },
            }));
        }
    }
    findings
}

/// A market finding in the shape of every finding — `{category, severity, statement, evidence:
/// {metric, value, threshold?, symbol}}` — with all the figures of a ranking under `compared`.
fn finding_json(finding: &MarketFinding) -> Value {
    let mut value = json!({
        "category": finding.category,
        "severity": finding.severity,
        "statement": finding.statement,
        "evidence": finding.evidence.first(),
    });
    if finding.evidence.len() > 1 {
        value["compared"] = json!(finding.evidence);
    }
    value
}

fn narrate_market(
    stats: &[InstrumentStatistics],
    benchmark: Option<&InstrumentStatistics>,
    range: TimeRange,
) -> String {
    let mut sentences = Vec::new();
    for s in stats.iter().chain(benchmark) {
        let mut parts = Vec::new();
        if let Some(ret) = s.value("period_return") {
            parts.push(format!("returned {:.1}%", ret * 100.0));
        }
        if let Some(vol) = s.value("annualised_volatility") {
            parts.push(format!("annualised volatility {:.1}%", vol * 100.0));
        }
        if let Some(drawdown) = s.value("max_drawdown") {
            parts.push(format!("maximum drawdown {:.1}%", drawdown * 100.0));
        }
        if !parts.is_empty() {
            sentences.push(format!("{} over {}: {}.", s.symbol, range.as_str(), parts.join(", ")));
        }
    }
    sentences.join(" ")
}

fn narrate_loan(name: &str, application: &LoanApplication, assessment: &super::loan::LoanAssessment) -> String {
    let mut sentences = vec![format!(
        "{} applies for a {} of USD {:.0}.",
        name,
        application.loan_type.as_str().replace('_', " "),
        application.loan_amount
    )];
    if let Some(metric) = assessment.metric("pro_forma_debt_to_ebitda") {
        sentences.push(format!("Pro-forma debt would be {:.2}x EBITDA.", metric.value));
    }
    if let Some(metric) = assessment.metric("pro_forma_dscr") {
        sentences.push(format!("Pro-forma debt service coverage would be {:.2}x.", metric.value));
    }
    if let (Some(grade), Some(pd)) = (assessment.grade, assessment.pd) {
        sentences.push(format!("The pro-forma grade is {grade} (one-year PD {:.2}%).", pd * 100.0));
    }
    let recommendation = serde_json::to_value(assessment.recommendation)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    sentences.push(format!("Recommendation: {}.", recommendation.replace('_', " ")));
    sentences.join(" ")
}

/// The deterministic narrator: the key figures and what they mean, in plain sentences, using only
/// the computed numbers.
/// `(name, currency)`: the currency is named for supplied statements, which may be in any.
fn narrate(
    (name, currency): (&str, Option<&str>),
    credit: Option<&CreditAnalysis>,
    ttm: Option<&TrailingTwelveMonths>,
    stock: Option<&InstrumentStatistics>,
    benchmark: &str,
) -> String {
    let mut sentences = Vec::new();
    let figure = |name: &str| credit.and_then(|c| c.value(name));
    let amount = |value: f64| currency.map_or_else(|| format!("{value:.0}"), |c| format!("{c} {value:.0}"));
    if let Some(credit) = credit {
        if let Some(year) = credit.fiscal_year_end {
            sentences.push(format!("{name} (fiscal year ended {year})."));
        }
        if let Some(revenue) = figure("revenue") {
            sentences.push(format!("Revenue was {}.", amount(revenue)));
        }
        if let Some(leverage) = figure("debt_to_ebitda") {
            sentences.push(format!("Debt is {leverage:.2}x EBITDA."));
        }
        if let Some(coverage) = figure("ebit_interest_coverage") {
            sentences.push(format!("EBIT covers interest {coverage:.2}x."));
        }
        if let Some(rating) = &credit.rating {
            sentences.push(format!(
                "The synthetic rating from interest coverage is {} (one-year PD {:.2}%).",
                rating.grade,
                rating.pd * 100.0
            ));
        }
        if let Some(ttm) = ttm {
            let mut parts = Vec::new();
            if let Some(revenue) = ttm.value("ttm_revenue") {
                parts.push(format!("revenue was {}", amount(revenue)));
            }
            if let Some(leverage) = ttm.value("ttm_debt_to_ebitda") {
                parts.push(format!("debt was {leverage:.2}x EBITDA"));
            }
            if !parts.is_empty() {
                sentences.push(format!("Over the twelve months to {}, {}.", ttm.period_end, parts.join(" and ")));
            }
        }
    } else {
        sentences.push(format!("{name}: market view only."));
    }
    if let Some(stats) = stock {
        if let Some(ret) = stats.value("period_return") {
            sentences.push(format!("Over the last year the share returned {:.1}%.", ret * 100.0));
        }
        if let Some(vol) = stats.value("annualised_volatility") {
            sentences.push(format!("Annualised volatility is {:.1}%.", vol * 100.0));
        }
        if let Some(beta) = stats.value("beta") {
            sentences.push(format!("Beta against {benchmark} is {beta:.2}."));
        }
    }
    sentences.join(" ")
}
