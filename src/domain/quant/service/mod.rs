//! The quantitative-analysis use case: validate and resolve first (nothing is stored for bad input),
//! then store the run, fetch its data through the market-data ports, compute, narrate, and store
//! its outcome with its CDM events — reporting each real stage as progress for the streaming
//! endpoint. Nothing is invented: a figure the data does not support is left out and said to be
//! missing.
//!
//! This file holds the service and the run's lifecycle (begin, end, get, list); each kind of
//! analysis prepares and computes in its own file: `company.rs`, `market.rs`, `loan.rs`.

mod abandoned;
mod company;
mod loan;
mod market;

use std::sync::Arc;

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use abandoned::{ExecutingRun, RunsInFlight};
pub use company::{PreparedCompany, Subject};
pub use loan::PreparedLoan;
pub use market::PreparedMarket;

use super::market::{PriceSeries, TimeRange};
use super::narrative::narrate_with_model;
use super::request::QuantError;
use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::listing::RunQuery;
use crate::domain::quant::runs::{AnalysisId, AnalysisKind, AnalysisOutcome, AnalysisRecord};
use crate::domain::statements::service::StatementSetService;
use crate::ports::analyses::AnalysisRepository;
use crate::ports::clock::Clock;
use crate::ports::documents::DocumentRepository;
use crate::ports::financial_data::{FinancialData, FinancialDataError};
use crate::ports::llm::LanguageModel;
use crate::ports::price_history::{PriceHistory, PriceHistoryError};

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

/// One stage of a run, for the streaming endpoint.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    Started { analysis_id: AnalysisId, message: String },
    Step { step: &'static str, percent: u8, message: String },
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
    /// Held until the outcome is stored: while it is, the run is this instance's to end.
    executing: ExecutingRun,
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
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
    /// The runs this process is executing; any other unfinished run it stored was interrupted.
    in_flight: RunsInFlight,
}

impl QuantService {
    pub fn new(
        analyses: Arc<dyn AnalysisRepository>,
        financial: Option<Arc<dyn FinancialData>>,
        prices: Option<Arc<dyn PriceHistory>>,
        clock: Arc<dyn Clock>,
        benchmark: String,
    ) -> Self {
        Self {
            statement_sets: None,
            documents: None,
            llm: None,
            analyses,
            financial,
            prices,
            clock,
            benchmark,
            in_flight: RunsInFlight::default(),
        }
    }

    /// The same service reading stored statement sets.
    #[must_use]
    pub fn with_statement_sets(mut self, sets: Arc<StatementSetService>) -> Self {
        self.statement_sets = Some(sets);
        self
    }

    /// The same service reading the agreements stored for a loan application's deal.
    #[must_use]
    pub fn with_documents(mut self, documents: Arc<dyn DocumentRepository>) -> Self {
        self.documents = Some(documents);
        self
    }

    /// The same service with a language model writing the summaries.
    #[must_use]
    pub fn with_language_model(mut self, llm: Option<Arc<dyn LanguageModel>>) -> Self {
        self.llm = llm;
        self
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
        // Entered before the run is stored, so no sweep can see it stored and not executing.
        let executing = self.in_flight.enter(id);
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
        Ok(Started { id, event_id, event, run, request_id: request_id.to_owned(), executing })
    }

    /// Stores `completed` (or `failed`) with the CDM events of the whole run.
    async fn end(
        &self,
        started: Started,
        computed: Result<Value, (String, String)>,
        step: &Step<'_>,
    ) -> Result<AnalysisRecord, QuantError> {
        // `_executing` lives to the end of this function: the run leaves the in-flight set only once
        // its outcome is stored (or could not be).
        let Started { id, event_id, event, run, request_id, executing: _executing } = started;
        let (subject, analysis_type, deal_id) = (&run.subject, &run.analysis_type, run.deal_id);
        let mut events = vec![event];
        let finished_event = Uuid::new_v4();
        let computed = match computed {
            Ok(result) => Ok(narrate_with_model(self.llm.as_deref(), result).await),
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
