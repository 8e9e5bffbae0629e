//! `/api/quantitative-analysis/*`: the company analysis (JSON or Server-Sent Events) and the stored
//! results.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::statements::ApiFinancials;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::auth::respond;
use super::error::{ApiError, ErrorBody, RawJson};
use super::filters::{authenticated, with_state, workflow_post};
use super::paging::{ListingParams, rfc3339};
use crate::domain::auth::Principal;
use crate::domain::quant::loan::LoanType;
use crate::domain::quant::market::TimeRange;
use crate::domain::quant::request::{CompanyAnalysisType, CompanyRequest, LoanApplication, MarketRequest, QuantError};
use crate::domain::quant::runs::{AnalysisId, AnalysisRecord, AnalysisStatus};
use crate::domain::quant::service::{PreparedAnalysis, Progress};

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let company = workflow_post(&state, warp::path!("api" / "quantitative-analysis" / "company").boxed(), company);
    let market = workflow_post(&state, warp::path!("api" / "quantitative-analysis" / "market").boxed(), market);
    let loan = workflow_post(
        &state,
        warp::path!("api" / "quantitative-analysis" / "loan-application").boxed(),
        loan_application,
    );
    let result = warp::path!("api" / "quantitative-analysis" / "results" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(get_result);
    let list = warp::path!("api" / "quantitative-analysis" / "results")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state))
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .then(list_results);
    company.or(market).unify().or(loan).unify().or(result.map(respond)).unify().or(list.map(respond)).unify().boxed()
}

impl From<QuantError> for ApiError {
    fn from(error: QuantError) -> Self {
        let message = error.to_string();
        match error {
            QuantError::Validation { field, message } => ApiError::invalid_field(field, message),
            QuantError::UnknownCompany { candidates, .. } => ApiError::new(StatusCode::BAD_REQUEST, message).with_detail(json!({
                "field": "company_name",
                "candidates": candidates.iter().map(|c| json!({ "name": c.name, "ticker": c.ticker, "cik": c.cik })).collect::<Vec<_>>(),
            })),
            QuantError::ProviderUnavailable { provider, analysis_id, .. } => {
                ApiError::new(StatusCode::BAD_GATEWAY, format!("market data provider {provider} is unavailable"))
                    .with_detail(json!({ "provider": provider, "analysis_id": analysis_id.map(|id| id.to_string()) }))
            }
            QuantError::NotConfigured => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message),
            QuantError::NotFound => ApiError::not_found(message),
            QuantError::Statements(error) => ApiError::invalid_field(&error.field, error.message),
            QuantError::NoPublicStatements { message } => ApiError::invalid_field("borrower_name", message),
            QuantError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

// The wire enums deserialise through a string so that a value of the wrong type (a number, a
// list) is reported as invalid *for its field*, like any other type error: serde_json reports a
// non-string enum as a JSON syntax error, without a path.

#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum ApiCompanyAnalysisType {
    Comprehensive,
    Financial,
    Market,
    Risk,
}

impl TryFrom<String> for ApiCompanyAnalysisType {
    type Error = String;
    fn try_from(raw: String) -> Result<Self, String> {
        variant(
            &raw,
            &[
                ("comprehensive", Self::Comprehensive),
                ("financial", Self::Financial),
                ("market", Self::Market),
                ("risk", Self::Risk),
            ],
        )
    }
}

/// The variant spelled `raw`, or serde's "unknown variant" message listing the spellings.
fn variant<T: Copy>(raw: &str, variants: &[(&str, T)]) -> Result<T, String> {
    variants.iter().find(|(name, _)| *name == raw).map(|(_, value)| *value).ok_or_else(|| {
        let expected: Vec<String> = variants.iter().map(|(name, _)| format!("`{name}`")).collect();
        format!("unknown variant `{raw}`, expected one of {}", expected.join(", "))
    })
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CompanyAnalysisRequest {
    pub company_name: String,
    /// Stock ticker; optional when `company_name` identifies the company.
    pub ticker: Option<String>,
    /// Default `comprehensive`.
    pub analysis_type: Option<ApiCompanyAnalysisType>,
    pub deal_id: Option<i64>,
    /// The company's own statements, for a company without SEC filings: the analysis reads these
    /// and needs no EDGAR match (not with `ticker`, not for `analysis_type: market`).
    pub financials: Option<ApiFinancials>,
    /// A stored statement set (`POST /api/financial-statements`) instead of `financials`.
    pub statement_set_id: Option<String>,
    /// `true`: progress as Server-Sent Events.
    #[serde(default)]
    pub stream: bool,
}

#[derive(Serialize, ToSchema)]
pub struct AnalysisCreated {
    pub status: &'static str,
    pub analysis_id: String,
    #[schema(value_type = AnalysisResult)]
    pub result: Value,
    #[schema(value_type = Vec<Object>)]
    pub cdm_events: Vec<Value>,
}

/// What an analysis found. The domain writes it as JSON; this type documents its shape.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AnalysisResult {
    /// Plain sentences for a credit committee, with figures as analysts write them: amounts with
    /// their currency and scale (`USD 383.3 bn`, `EUR 12.5 m`, `USD 750,000`), multiples with `×`
    /// (`0.88×`), percentages with `%` (`29.8%`). The exact values are in `metrics` and `data`.
    pub summary: String,
    /// `{category, severity (positive, info, watch, concern), statement, evidence: {metric, value,
    /// threshold}}`; `evidence.metric` is a metric `name`.
    #[schema(value_type = Vec<Object>)]
    pub findings: Vec<Value>,
    pub metrics: Vec<AnalysisMetric>,
    /// Statements, provenance, methodology, missing inputs and the analysis's own details.
    #[schema(value_type = Object)]
    pub data: Value,
}

/// A computed figure with what it was computed from.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AnalysisMetric {
    /// Stable snake_case key to match on; it does not change with wording.
    #[schema(example = "debt_to_ebitda")]
    pub name: String,
    /// How an analyst writes the metric, acronyms kept: show this, not `name`.
    #[schema(example = "Debt / EBITDA")]
    pub label: String,
    /// The exact value, unrounded, in `unit`.
    #[schema(example = 0.8829)]
    pub value: f64,
    pub unit: MetricUnit,
    /// The formula over the inputs' names.
    #[schema(example = "total_debt / ebitda")]
    pub formula: String,
    pub inputs: Vec<AnalysisMetricInput>,
    /// ISO 4217 code of the metric's amounts (its value when `unit` is `currency`, and its inputs that
    /// are amounts), when known: absent for market price statistics.
    #[schema(example = "USD")]
    pub currency: Option<String>,
    /// The instrument, for a market analysis's metrics.
    pub symbol: Option<String>,
}

/// One input of a metric's formula.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AnalysisMetricInput {
    #[schema(example = "total_debt")]
    pub name: String,
    #[schema(example = "Total debt")]
    pub label: String,
    #[schema(example = 111088000000.0)]
    pub value: f64,
    pub unit: MetricUnit,
}

/// What a value measures: `currency` an amount, `ratio` a multiple (3.2×), `fraction` a share
/// (0.05 is 5%), `score` a number on its own scale (Altman Z, beta, Sharpe), `count` days, years,
/// observations.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "snake_case")]
pub enum MetricUnit {
    Currency,
    Ratio,
    Fraction,
    Score,
    Count,
}

/// POST /api/quantitative-analysis/company
#[utoipa::path(post, path = "/api/quantitative-analysis/company", tag = "quantitative-analysis",
    request_body = CompanyAnalysisRequest,
    description = "Analyses a company from its SEC filings and daily prices, or a private company from the `financials` \
                   supplied (Altman Z' on book equity; market-based measures listed in `data.missing_inputs`; trailing \
                   twelve months when the latest period is interim): ratios, Altman Z, Piotroski F, synthetic \
                   rating and PD, Merton distance to default, market statistics; the latest eight quarters and, when \
                   four consecutive quarters end after the last fiscal year, trailing-twelve-month revenue, EBITDA, \
                   net income and leverage (`ttm_*` metrics). With `stream: true` the answer is \
                   `text/event-stream`: `started`, `progress` (increasing percent), then `completed` or `error`; \
                   an open stream counts against the caller's `EVENT_STREAMS_PER_USER` (8; 429 beyond, and \
                   nothing runs). Counts against the per-user workflow rate limit.",
    responses(
        (status = 200, description = "Completed and stored", body = AnalysisCreated),
        (status = 400, description = "Unknown or ambiguous company (with candidates), invalid field", body = ErrorBody),
        (status = 502, description = "A data provider failed (the run is stored as failed)", body = ErrorBody),
    ))]
pub async fn company(state: Arc<AppState>, caller: Principal, request_id: String, body: RawJson) -> Response {
    let request: CompanyAnalysisRequest = match body.parse() {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    let stream = request.stream;
    let request = CompanyRequest {
        company_name: request.company_name,
        ticker: request.ticker,
        analysis_type: match request.analysis_type.unwrap_or(ApiCompanyAnalysisType::Comprehensive) {
            ApiCompanyAnalysisType::Comprehensive => CompanyAnalysisType::Comprehensive,
            ApiCompanyAnalysisType::Financial => CompanyAnalysisType::Financial,
            ApiCompanyAnalysisType::Market => CompanyAnalysisType::Market,
            ApiCompanyAnalysisType::Risk => CompanyAnalysisType::Risk,
        },
        deal_id: request.deal_id,
        financials: request.financials.map(|f| f.0),
        statement_set_id: match request.statement_set_id.as_deref().map(str::parse).transpose() {
            Ok(id) => id,
            Err(_) => return ApiError::invalid_field("statement_set_id", "must be a UUID").into_response(),
        },
    };
    let prepared = state.quant.prepare_company(caller, request).await.map(PreparedAnalysis::Company);
    analysis_response(state, caller, stream, prepared, request_id).await
}

#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(try_from = "String")]
pub enum ApiTimeRange {
    #[serde(rename = "1M")]
    OneMonth,
    #[serde(rename = "3M")]
    ThreeMonths,
    #[serde(rename = "6M")]
    SixMonths,
    #[serde(rename = "1Y")]
    OneYear,
    #[serde(rename = "5Y")]
    FiveYears,
}

impl TryFrom<String> for ApiTimeRange {
    type Error = String;
    fn try_from(raw: String) -> Result<Self, String> {
        variant(
            &raw,
            &[
                ("1M", Self::OneMonth),
                ("3M", Self::ThreeMonths),
                ("6M", Self::SixMonths),
                ("1Y", Self::OneYear),
                ("5Y", Self::FiveYears),
            ],
        )
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarketAnalysisRequest {
    /// Tickers (`AAPL`, `$MSFT`, "AAPL vs MSFT"), sectors or markets ("semiconductors", "high yield"), or a company name.
    pub query: String,
    /// Default `3M`.
    pub time_range: Option<ApiTimeRange>,
    pub deal_id: Option<i64>,
    #[serde(default)]
    pub stream: bool,
}

#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum ApiLoanType {
    TermLoan,
    Revolving,
    Bridge,
    Other,
}

impl TryFrom<String> for ApiLoanType {
    type Error = String;
    fn try_from(raw: String) -> Result<Self, String> {
        variant(
            &raw,
            &[
                ("term_loan", Self::TermLoan),
                ("revolving", Self::Revolving),
                ("bridge", Self::Bridge),
                ("other", Self::Other),
            ],
        )
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoanApplicationRequest {
    pub borrower_name: String,
    /// In USD, above zero.
    pub loan_amount: f64,
    /// Default `term_loan`.
    pub loan_type: Option<ApiLoanType>,
    pub deal_id: Option<i64>,
    /// The borrower's own statements in USD, for a borrower without SEC filings.
    pub financials: Option<ApiFinancials>,
    /// A stored statement set (`POST /api/financial-statements`) instead of `financials`. Without
    /// either, a borrower without filings is read from the newest set stored for `deal_id`.
    pub statement_set_id: Option<String>,
    #[serde(default)]
    pub stream: bool,
}

/// POST /api/quantitative-analysis/market
#[utoipa::path(post, path = "/api/quantitative-analysis/market", tag = "quantitative-analysis",
    request_body = MarketAnalysisRequest,
    description = "Compares the instruments a query names (tickers, sectors and markets through the ETF table, or a company) \
                   with the benchmark over `time_range`: return, CAGR, volatility, drawdown, beta, Sharpe, Sortino, \
                   VaR/CVaR 95/99, correlation matrix. `stream: true` as for the company analysis.",
    responses(
        (status = 200, description = "Completed and stored", body = AnalysisCreated),
        (status = 400, description = "No known instrument in the query, invalid field", body = ErrorBody),
        (status = 502, description = "The price provider failed", body = ErrorBody),
    ))]
pub async fn market(state: Arc<AppState>, caller: Principal, request_id: String, body: RawJson) -> Response {
    let request: MarketAnalysisRequest = match body.parse() {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    let time_range = match request.time_range.unwrap_or(ApiTimeRange::ThreeMonths) {
        ApiTimeRange::OneMonth => TimeRange::OneMonth,
        ApiTimeRange::ThreeMonths => TimeRange::ThreeMonths,
        ApiTimeRange::SixMonths => TimeRange::SixMonths,
        ApiTimeRange::OneYear => TimeRange::OneYear,
        ApiTimeRange::FiveYears => TimeRange::FiveYears,
    };
    let market = MarketRequest { query: request.query, time_range, deal_id: request.deal_id };
    let prepared = state.quant.prepare_market(caller, market).await.map(PreparedAnalysis::Market);
    analysis_response(state, caller, request.stream, prepared, request_id).await
}

/// POST /api/quantitative-analysis/loan-application
#[utoipa::path(post, path = "/api/quantitative-analysis/loan-application", tag = "quantitative-analysis",
    request_body = LoanApplicationRequest,
    description = "Assesses a loan to a company with public financials, or to a private borrower from the `financials` \
                   supplied (USD): pro-forma leverage, coverage and DSCR, grade \
                   and PD, LGD, EAD, Basel IRB capital and RWA, expected loss, indicative price and RAROC minimum \
                   spread, a recommendation (approve, approve_with_conditions, refer, decline) with its reasons and \
                   suggested covenants. `stream: true` as for the company analysis.",
    responses(
        (status = 200, description = "Completed and stored", body = AnalysisCreated),
        (status = 400, description = "Unknown borrower or one without public financials, invalid field", body = ErrorBody),
        (status = 502, description = "The statements provider failed", body = ErrorBody),
    ))]
pub async fn loan_application(state: Arc<AppState>, caller: Principal, request_id: String, body: RawJson) -> Response {
    let request: LoanApplicationRequest = match body.parse() {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    let loan_type = match request.loan_type.unwrap_or(ApiLoanType::TermLoan) {
        ApiLoanType::TermLoan => LoanType::TermLoan,
        ApiLoanType::Revolving => LoanType::Revolving,
        ApiLoanType::Bridge => LoanType::Bridge,
        ApiLoanType::Other => LoanType::Other,
    };
    let application = LoanApplication {
        borrower_name: request.borrower_name,
        loan_amount: request.loan_amount,
        loan_type,
        deal_id: request.deal_id,
        financials: request.financials.map(|f| f.0),
        statement_set_id: match request.statement_set_id.as_deref().map(str::parse).transpose() {
            Ok(id) => id,
            Err(_) => return ApiError::invalid_field("statement_set_id", "must be a UUID").into_response(),
        },
    };
    let prepared = state.quant.prepare_loan(caller, application).await.map(PreparedAnalysis::Loan);
    analysis_response(state, caller, request.stream, prepared, request_id).await
}

/// Runs a prepared analysis and answers with its result, or streams its progress as Server-Sent
/// Events (`started`, `progress`…, then `completed` or `error`, each with `event:` and a sequential
/// `id:`), within the caller's cap on open event streams (429 beyond, and nothing is run).
async fn analysis_response(
    state: Arc<AppState>,
    caller: Principal,
    stream: bool,
    prepared: Result<PreparedAnalysis, QuantError>,
    request_id: String,
) -> Response {
    let prepared = match prepared {
        Ok(prepared) => prepared,
        Err(error) => return ApiError::from(error).into_response(),
    };
    // Either way the run belongs to its own task: a client that disconnects does not stop it, and
    // its outcome is stored either way.
    if !stream {
        let run = tokio::spawn(async move { state.quant.run_prepared(prepared, &request_id, &|_| {}).await });
        return match run.await {
            Ok(Ok(record)) => created(&record).into_response(),
            Ok(Err(error)) => ApiError::from(error).into_response(),
            Err(panicked) => {
                ApiError::internal(anyhow::anyhow!("the analysis task ended abnormally: {panicked}")).into_response()
            }
        };
    }
    let place = match state.event_streams.take(caller.user_id) {
        Ok(place) => place,
        Err(refused) => return refused.into_response(),
    };
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<super::sse::Frame>();
    tokio::spawn(async move {
        let progress_sender = sender.clone();
        let report = move |progress: Progress| {
            let event = match progress {
                Progress::Started { analysis_id, message } => {
                    ("started", json!({ "analysis_id": analysis_id.to_string(), "message": message }))
                }
                Progress::Step { step, percent, message } => {
                    ("progress", json!({ "step": step, "progress": percent, "message": message }))
                }
            };
            let _ = progress_sender.send(event);
        };
        let last = match state.quant.run_prepared(prepared, &request_id, &report).await {
            Ok(record) => (
                "completed",
                json!({ "analysis_id": record.id.to_string(), "result": record.result, "cdm_events": record.cdm_events }),
            ),
            Err(error) => {
                let error = ApiError::from(error);
                ("error", json!({ "status": "error", "message": error.message(), "code": error.status().as_u16() }))
            }
        };
        let _ = sender.send(last);
    });
    super::sse::reply(receiver, place)
}

fn created(record: &AnalysisRecord) -> impl Reply + use<> {
    warp::reply::json(&AnalysisCreated {
        status: "success",
        analysis_id: record.id.to_string(),
        result: record.result.clone().unwrap_or(Value::Null),
        cdm_events: record.cdm_events.clone(),
    })
}

fn stored(record: &AnalysisRecord) -> Value {
    let mut body = json!({
        "analysis_id": record.id.to_string(),
        "status": record.status.as_str(),
        "analysis_type": record.kind.as_str(),
        "deal_id": record.deal_id,
        "request": record.request,
        "result": record.result,
        "cdm_events": record.cdm_events,
        "created_at": rfc3339(record.created_at),
    });
    if let Some(object) = body.as_object_mut() {
        if let Some(completed_at) = record.completed_at.filter(|_| record.status == AnalysisStatus::Completed) {
            object.insert("completed_at".into(), json!(rfc3339(completed_at)));
        }
        if let Some(error) = &record.error {
            object.insert("error".into(), json!(error));
        }
    }
    body
}

/// GET /api/quantitative-analysis/results/{analysis_id}
#[utoipa::path(get, path = "/api/quantitative-analysis/results/{analysis_id}", tag = "quantitative-analysis",
    params(("analysis_id" = String, Path, description = "As returned by an analysis endpoint")),
    description = "A stored analysis: `status` (`pending`, `running`, `completed`, `failed`), `analysis_type`, `result`, \
                   `cdm_events`, `created_at`, `completed_at` when completed, `error` when failed. Unknown or someone \
                   else's: 404.",
    responses(
        (status = 200, description = "The analysis", body = Object),
        (status = 404, description = "No such analysis", body = ErrorBody),
    ))]
pub async fn get_result(raw_id: String, state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let id: AnalysisId = raw_id.parse().map_err(|_| ApiError::not_found("analysis not found"))?;
    let record = state.quant.get(caller, id).await?;
    Ok(warp::reply::json(&stored(&record)))
}

/// GET /api/quantitative-analysis/results
#[utoipa::path(get, path = "/api/quantitative-analysis/results", tag = "quantitative-analysis",
    params(
        ("deal_id" = Option<i64>, Query, description = "Only analyses linked to this deal"),
        ("page" = Option<u32>, Query, description = "1-based, default 1"),
        ("limit" = Option<u32>, Query, description = "1-200, default 50"),
    ),
    description = "The caller's analyses (everyone's for admins), newest first.",
    responses((status = 200, description = "One page", body = Object), (status = 400, description = "Invalid query", body = ErrorBody)))]
pub async fn list_results(state: Arc<AppState>, caller: Principal, query: String) -> Result<impl Reply, ApiError> {
    let params = ListingParams::parse(&query)?;
    let (records, total) = state.quant.list(caller, params.deal_id, params.page, params.limit).await?;
    Ok(warp::reply::json(&params.page_body("analyses", records.iter().map(stored).collect(), total)))
}
