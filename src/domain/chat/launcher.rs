//! Launching one of the three workflows — `quant`, `research`, `people` — from a loosely typed
//! request: the `workflow_params` of `POST /api/digitizer-chatbot/launch-workflow`, the arguments of
//! a language model's tool call, or the chat grammar's [`Intent`]. All three go through
//! [`parse_workflow_params`] (one validation, errors naming the field as
//! `workflow_params.<name>`) and [`WorkflowLauncher::launch`], which calls the very use cases the
//! dedicated endpoints call: [`QuantService`], [`ResearchService`], [`PeopleService`].
//!
//! # Parameters
//!
//! | `workflow_type` | `workflow_params` |
//! |---|---|
//! | `people` | `person_name` (required), `context`, `ipip_responses` (50 answers 1–5, as an array in item order or an object keyed `"1"`…`"50"`) |
//! | `research` | `query` (required), `max_iterations` (1–20, default 5) |
//! | `quant` | `analysis_type` (required): `company` with `company_name` (required), `ticker`, `focus` (`comprehensive` (default), `financial`, `market`, `risk`); `market` with `query` (required), `time_range` (`1M`, `3M` (default), `6M`, `1Y`, `5Y`); `loan_application` with `borrower_name`, `loan_amount` (> 0, USD; both required), `loan_type` (`term_loan` (default), `revolving`, `bridge`, `other`), `currency` (only `USD`) |
//!
//! Unknown parameters are refused (a misspelt optional parameter would otherwise be silently
//! ignored); `deal_id` is the request's, not a parameter.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::chat::{Intent, QuantRequest};
use crate::domain::people::request::{PeopleError, PeopleRequest};
use crate::domain::people::service::PeopleService;
use crate::domain::quant::loan::LoanType;
use crate::domain::quant::market::TimeRange;
use crate::domain::quant::request::{CompanyAnalysisType, CompanyRequest, LoanApplication, MarketRequest, QuantError};
use crate::domain::quant::runs::AnalysisRecord;
use crate::domain::quant::service::{PreparedAnalysis, QuantService};
use crate::domain::research::service::{ResearchError, ResearchRequest, ResearchService};
use crate::ports::clock::Clock;
use crate::ports::store::StoreError;

/// The workflow types, as the API spells them.
pub const WORKFLOW_TYPES: [&str; 3] = ["people", "research", "quant"];

/// The kinds of quantitative analysis a `quant` launch may ask for.
pub const QUANT_ANALYSIS_TYPES: [&str; 3] = ["company", "market", "loan_application"];

const COMPANY_FOCUS: [(&str, CompanyAnalysisType); 4] = [
    ("comprehensive", CompanyAnalysisType::Comprehensive),
    ("financial", CompanyAnalysisType::Financial),
    ("market", CompanyAnalysisType::Market),
    ("risk", CompanyAnalysisType::Risk),
];

const LOAN_TYPES: [(&str, LoanType); 4] = [
    ("term_loan", LoanType::TermLoan),
    ("revolving", LoanType::Revolving),
    ("bridge", LoanType::Bridge),
    ("other", LoanType::Other),
];

/// Why a launch did not happen. Validation errors name the field as the API spells it.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A request value is wrong: `workflow_type`, `deal_id` or `workflow_params.<name>`.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// The quantitative analysis could not run (unknown company, provider down, not configured).
    #[error(transparent)]
    Quant(QuantError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl LaunchError {
    fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Validation { field: field.into(), message: message.into() }
    }

    fn param(name: &str, message: impl Into<String>) -> Self {
        Self::invalid(format!("workflow_params.{name}"), message)
    }

    /// A use case's validation error, its field placed where the launch request has it.
    fn from_field(field: &str, message: String) -> Self {
        if field == "deal_id" { Self::invalid(field, message) } else { Self::param(field, message) }
    }
}

impl From<QuantError> for LaunchError {
    fn from(error: QuantError) -> Self {
        match error {
            QuantError::Validation { field, message } => Self::from_field(field, message),
            QuantError::Store(error) => Self::Store(error),
            other => Self::Quant(other),
        }
    }
}

impl From<ResearchError> for LaunchError {
    fn from(error: ResearchError) -> Self {
        match error {
            ResearchError::Validation { field, message } => Self::from_field(field, message),
            ResearchError::NotFound => Self::Store(StoreError::Unavailable(anyhow::anyhow!("research run vanished"))),
            ResearchError::Store(error) => Self::Store(error),
        }
    }
}

impl From<PeopleError> for LaunchError {
    fn from(error: PeopleError) -> Self {
        match error {
            PeopleError::Validation { field, message } => Self::from_field(field, message),
            PeopleError::NotFound => Self::Store(StoreError::Unavailable(anyhow::anyhow!("people result vanished"))),
            PeopleError::Store(error) => Self::Store(error),
        }
    }
}

/// A validated quantitative analysis request.
#[derive(Clone, Debug)]
pub enum QuantParams {
    Company(CompanyRequest),
    Market(MarketRequest),
    LoanApplication(LoanApplication),
}

/// A validated launch request.
#[derive(Clone, Debug)]
pub enum WorkflowParams {
    People(PeopleRequest),
    Research(ResearchRequest),
    Quant(QuantParams),
}

/// Validates `params` for `workflow_type` (see the [module documentation](self)).
///
/// # Errors
/// [`LaunchError::Validation`] naming the first wrong field.
pub fn parse_workflow_params(
    workflow_type: &str,
    params: &Value,
    deal_id: Option<i64>,
) -> Result<WorkflowParams, LaunchError> {
    if deal_id.is_some_and(|id| id <= 0) {
        return Err(LaunchError::invalid("deal_id", "must be a positive integer"));
    }
    let Some(params) = params.as_object() else {
        return Err(LaunchError::invalid("workflow_params", "must be an object"));
    };
    let params = Params(params);
    match workflow_type {
        "people" => {
            params.only(&["person_name", "context", "ipip_responses"])?;
            let person_name = params.required_text("person_name")?;
            let context = params.optional_text("context")?;
            let request = PeopleRequest::new(
                person_name,
                context,
                deal_id,
                params.0.get("ipip_responses").filter(|v| !v.is_null()),
            )?;
            Ok(WorkflowParams::People(request))
        }
        "research" => {
            params.only(&["query", "max_iterations"])?;
            let query = params.required_text("query")?;
            let max_iterations = params.optional_integer("max_iterations")?;
            Ok(WorkflowParams::Research(ResearchRequest::new(query, deal_id, max_iterations)?))
        }
        "quant" => parse_quant(&params, deal_id).map(WorkflowParams::Quant),
        other => Err(LaunchError::invalid(
            "workflow_type",
            format!("'{other}' is not a workflow type; expected one of {}", WORKFLOW_TYPES.join(", ")),
        )),
    }
}

fn parse_quant(params: &Params<'_>, deal_id: Option<i64>) -> Result<QuantParams, LaunchError> {
    let analysis_type = params.required_text("analysis_type")?;
    match analysis_type {
        "company" => {
            params.only(&["analysis_type", "company_name", "ticker", "focus"])?;
            let focus = params.optional_choice("focus", &COMPANY_FOCUS)?.unwrap_or(CompanyAnalysisType::Comprehensive);
            Ok(QuantParams::Company(CompanyRequest {
                company_name: params.required_text("company_name")?.to_owned(),
                ticker: params.optional_text("ticker")?.map(str::to_owned),
                analysis_type: focus,
                deal_id,
                // A chat launch names the company; statements are given through the API.
                financials: None,
                statement_set_id: None,
            }))
        }
        "market" => {
            params.only(&["analysis_type", "query", "time_range"])?;
            let ranges = TimeRange::ALL.map(|range| (range.as_str(), range));
            Ok(QuantParams::Market(MarketRequest {
                query: params.required_text("query")?.to_owned(),
                time_range: params.optional_choice("time_range", &ranges)?.unwrap_or_default(),
                deal_id,
            }))
        }
        "loan_application" => {
            params.only(&["analysis_type", "borrower_name", "loan_amount", "loan_type", "currency"])?;
            if let Some(currency) = params.optional_text("currency")?
                && !currency.eq_ignore_ascii_case("USD")
            {
                return Err(LaunchError::param(
                    "currency",
                    format!("loan applications are analysed in USD; convert the {currency} amount to USD"),
                ));
            }
            Ok(QuantParams::LoanApplication(LoanApplication {
                borrower_name: params.required_text("borrower_name")?.to_owned(),
                loan_amount: params.required_number("loan_amount")?,
                loan_type: params.optional_choice("loan_type", &LOAN_TYPES)?.unwrap_or(LoanType::TermLoan),
                deal_id,
                financials: None,
                statement_set_id: None,
            }))
        }
        other => Err(LaunchError::param(
            "analysis_type",
            format!("'{other}' is not an analysis type; expected one of {}", QUANT_ANALYSIS_TYPES.join(", ")),
        )),
    }
}

/// Typed access to the fields of a `workflow_params` object, with errors naming the field.
struct Params<'a>(&'a Map<String, Value>);

impl<'a> Params<'a> {
    /// Refuses any field not in `allowed`.
    fn only(&self, allowed: &[&str]) -> Result<(), LaunchError> {
        match self.0.keys().find(|key| !allowed.contains(&key.as_str())) {
            Some(unknown) => {
                Err(LaunchError::param(unknown, format!("is not a parameter here; expected {}", allowed.join(", "))))
            }
            None => Ok(()),
        }
    }

    fn present(&self, name: &str) -> Option<&'a Value> {
        self.0.get(name).filter(|value| !value.is_null())
    }

    fn required_text(&self, name: &str) -> Result<&'a str, LaunchError> {
        self.optional_text(name)?.ok_or_else(|| LaunchError::param(name, "is required"))
    }

    /// A string that is not blank; `None` when absent or null.
    fn optional_text(&self, name: &str) -> Result<Option<&'a str>, LaunchError> {
        match self.present(name) {
            None => Ok(None),
            Some(Value::String(text)) if text.trim().is_empty() => Err(LaunchError::param(name, "must not be blank")),
            Some(Value::String(text)) => Ok(Some(text.trim())),
            Some(_) => Err(LaunchError::param(name, "must be a string")),
        }
    }

    fn required_number(&self, name: &str) -> Result<f64, LaunchError> {
        match self.present(name) {
            None => Err(LaunchError::param(name, "is required")),
            Some(value) => value.as_f64().ok_or_else(|| LaunchError::param(name, "must be a number")),
        }
    }

    fn optional_integer(&self, name: &str) -> Result<Option<i64>, LaunchError> {
        match self.present(name) {
            None => Ok(None),
            Some(value) => value.as_i64().map(Some).ok_or_else(|| LaunchError::param(name, "must be an integer")),
        }
    }

    fn optional_choice<T: Copy>(&self, name: &str, choices: &[(&str, T)]) -> Result<Option<T>, LaunchError> {
        let Some(raw) = self.optional_text(name)? else { return Ok(None) };
        match choices.iter().find(|(spelling, _)| *spelling == raw) {
            Some((_, value)) => Ok(Some(*value)),
            None => {
                let expected: Vec<&str> = choices.iter().map(|(spelling, _)| *spelling).collect();
                Err(LaunchError::param(name, format!("'{raw}' is not one of {}", expected.join(", "))))
            }
        }
    }
}

/// The `workflow_params` the chat grammar's `intent` stands for, or `None` when it launches nothing.
/// A loan amount in another currency is passed on with its currency, so that the launch refuses it
/// with the reason instead of analysing EUR as USD.
pub fn intent_params(intent: &Intent) -> Option<(&'static str, Value)> {
    let params = match intent {
        Intent::People { person_name, context } => json!({ "person_name": person_name, "context": context }),
        Intent::Research { query } => json!({ "query": query }),
        Intent::Quant(QuantRequest::Company { company_name, ticker, analysis_type }) => json!({
            "analysis_type": "company", "company_name": company_name, "ticker": ticker, "focus": analysis_type.as_str(),
        }),
        Intent::Quant(QuantRequest::Market { query, time_range }) => json!({
            "analysis_type": "market", "query": query, "time_range": time_range.map(|range| range.as_str()),
        }),
        Intent::Quant(QuantRequest::LoanApplication { borrower_name, loan_amount, loan_type, currency }) => json!({
            "analysis_type": "loan_application", "borrower_name": borrower_name, "loan_amount": loan_amount,
            "loan_type": loan_type.map(|loan_type| loan_type.as_str()), "currency": currency,
        }),
        Intent::DocumentQuestion(_) | Intent::None => return None,
    };
    Some((intent.workflow_type()?, params))
}

/// A launched workflow.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub workflow_type: &'static str,
    /// One or two sentences for the user: what was launched and its headline result or status.
    pub message: String,
    /// quant: `{analysis_id, status, analysis_type, result}`; research: `{research_id, status}`;
    /// people: the people result (`{people_id, status, research_summary, psychometric_profile,
    /// credit_assessment, …}`).
    pub workflow_result: Value,
    /// The workflow's own steps, then a `WorkflowLaunched` step linked to the last of them.
    pub cdm_events: Vec<Value>,
    /// What a chat session keeps of the launch: the identifier and status.
    pub reference: Value,
}

/// Launches workflows through the use cases of the dedicated endpoints.
pub struct WorkflowLauncher {
    quant: Arc<QuantService>,
    research: Arc<ResearchService>,
    people: Arc<PeopleService>,
    /// Tells the research workers a run is waiting (they also poll, so a missed signal only delays).
    research_queued: Arc<dyn Fn() + Send + Sync>,
    clock: Arc<dyn Clock>,
}

impl WorkflowLauncher {
    pub fn new(
        quant: Arc<QuantService>,
        research: Arc<ResearchService>,
        people: Arc<PeopleService>,
        research_queued: Arc<dyn Fn() + Send + Sync>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { quant, research, people, research_queued, clock }
    }

    /// Runs (quant, people) or queues (research) the workflow for `caller`, from chat session
    /// `session_id`.
    ///
    /// # Errors
    /// [`LaunchError::Validation`] and [`LaunchError::Quant`] before anything is stored;
    /// [`LaunchError::Quant`] with a provider failure after the analysis was stored as failed;
    /// [`LaunchError::Store`].
    pub async fn launch(
        &self,
        caller: Principal,
        session_id: &str,
        params: WorkflowParams,
        request_id: &str,
    ) -> Result<Launch, LaunchError> {
        let mut launch = match params {
            WorkflowParams::Quant(params) => self.launch_quant(caller, params, request_id).await?,
            WorkflowParams::Research(request) => {
                let run = self.research.submit(caller, request, request_id).await?;
                (self.research_queued)();
                let reference = json!({ "research_id": run.id.to_string(), "status": run.status.as_str() });
                Launch {
                    workflow_type: "research",
                    message: format!(
                        "Research on \"{}\" is queued (at most {} iterations); follow it at /api/deep-research/results/{}.",
                        run.query, run.max_iterations, run.id
                    ),
                    workflow_result: reference.clone(),
                    cdm_events: run.cdm_events,
                    reference,
                }
            }
            WorkflowParams::People(request) => {
                let record =
                    self.people.run(caller, request.with_session(Some(session_id.to_owned())), request_id).await?;
                let band = record.result["credit_assessment"]["score_band"].as_str().unwrap_or("unknown");
                let found = record.result["research_summary"]["found"].as_bool().unwrap_or(false);
                Launch {
                    workflow_type: "people",
                    message: if found {
                        format!(
                            "People research on {} is complete: character band {band}, for human review; see /api/people/results/{}.",
                            record.person_name, record.id
                        )
                    } else {
                        format!(
                            "People research on {} is complete: no reliable information was found; see /api/people/results/{}.",
                            record.person_name, record.id
                        )
                    },
                    workflow_result: record.result,
                    cdm_events: record.cdm_events,
                    reference: json!({ "people_id": record.id.to_string(), "status": "completed" }),
                }
            }
        };
        if let Some(event) = self.launched_event(&launch, session_id, request_id) {
            launch.cdm_events.push(event);
        }
        Ok(launch)
    }

    async fn launch_quant(
        &self,
        caller: Principal,
        params: QuantParams,
        request_id: &str,
    ) -> Result<Launch, LaunchError> {
        let prepared = match params {
            QuantParams::Company(request) => {
                PreparedAnalysis::Company(self.quant.prepare_company(caller, request).await?)
            }
            QuantParams::Market(request) => PreparedAnalysis::Market(self.quant.prepare_market(caller, request).await?),
            QuantParams::LoanApplication(application) => {
                PreparedAnalysis::Loan(self.quant.prepare_loan(caller, application).await?)
            }
        };
        let record = self.quant.run_prepared(prepared, request_id, &|_| {}).await?;
        Ok(quant_launch(record))
    }

    fn launched_event(&self, launch: &Launch, session_id: &str, request_id: &str) -> Option<Value> {
        let previous = launch.cdm_events.last().and_then(cdm::event_identifier).and_then(|id| Uuid::parse_str(id).ok());
        let mut step = ObservationStep::new(
            EventKind::WorkflowLaunched,
            WorkflowStatus::Accepted,
            format!("The {} workflow was launched from a chatbot session", launch.workflow_type),
        )
        .item("workflowType", launch.workflow_type)
        .item("sessionId", session_id);
        for (key, item) in [("analysis_id", "analysisId"), ("research_id", "researchId"), ("people_id", "peopleId")] {
            step = step.optional_item(item, launch.reference.get(key).and_then(Value::as_str));
        }
        step = step.optional_item("dealId", launch.workflow_result.get("deal_id").and_then(Value::as_i64));
        if let Some(previous) = previous {
            step = step.previous(previous);
        }
        let context = EventContext::new(Uuid::new_v4(), self.clock.now(), request_id).ok()?;
        Some(cdm::observation_step(&context, &step))
    }
}

fn quant_launch(record: AnalysisRecord) -> Launch {
    let summary = record.result.as_ref().and_then(|result| result["summary"].as_str()).unwrap_or_default();
    let reference = json!({ "analysis_id": record.id.to_string(), "status": record.status.as_str() });
    let message = format!("The {} analysis is {}. {summary}", record.kind.as_str(), record.status.as_str());
    Launch {
        workflow_type: "quant",
        message: message.trim().to_owned(),
        workflow_result: json!({
            "analysis_id": record.id.to_string(),
            "status": record.status.as_str(),
            "analysis_type": record.kind.as_str(),
            "deal_id": record.deal_id,
            "result": record.result,
        }),
        cdm_events: record.cdm_events,
        reference,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::chat::parse_intent;

    fn field_of(workflow_type: &str, params: Value) -> String {
        match parse_workflow_params(workflow_type, &params, None) {
            Err(LaunchError::Validation { field, .. }) => field,
            other => panic!("{workflow_type} {params}: expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn every_workflow_type_names_its_missing_or_wrong_parameters() {
        let cases = [
            ("people", json!({}), "workflow_params.person_name"),
            ("people", json!({ "person_name": "  " }), "workflow_params.person_name"),
            ("people", json!({ "person_name": 7 }), "workflow_params.person_name"),
            (
                "people",
                json!({ "person_name": "Jane Doe", "ipip_responses": [1, 2] }),
                "workflow_params.ipip_responses",
            ),
            ("people", json!({ "person_name": "Jane Doe", "age": 40 }), "workflow_params.age"),
            ("research", json!({}), "workflow_params.query"),
            ("research", json!({ "query": "SOFR", "max_iterations": 50 }), "workflow_params.max_iterations"),
            ("research", json!({ "query": "SOFR", "max_iterations": "5" }), "workflow_params.max_iterations"),
            ("quant", json!({}), "workflow_params.analysis_type"),
            ("quant", json!({ "analysis_type": "portfolio" }), "workflow_params.analysis_type"),
            ("quant", json!({ "analysis_type": "company" }), "workflow_params.company_name"),
            (
                "quant",
                json!({ "analysis_type": "company", "company_name": "Apple", "focus": "vibes" }),
                "workflow_params.focus",
            ),
            (
                "quant",
                json!({ "analysis_type": "company", "company_name": "Apple", "query": "x" }),
                "workflow_params.query",
            ),
            ("quant", json!({ "analysis_type": "market" }), "workflow_params.query"),
            (
                "quant",
                json!({ "analysis_type": "market", "query": "banks", "time_range": "2W" }),
                "workflow_params.time_range",
            ),
            (
                "quant",
                json!({ "analysis_type": "loan_application", "borrower_name": "Acme" }),
                "workflow_params.loan_amount",
            ),
            (
                "quant",
                json!({ "analysis_type": "loan_application", "borrower_name": "Acme", "loan_amount": "5m" }),
                "workflow_params.loan_amount",
            ),
            (
                "quant",
                json!({ "analysis_type": "loan_application", "borrower_name": "Acme", "loan_amount": 5e6, "currency": "EUR" }),
                "workflow_params.currency",
            ),
            ("payroll", json!({}), "workflow_type"),
        ];
        for (workflow_type, params, field) in cases {
            assert_eq!(field_of(workflow_type, params.clone()), field, "{workflow_type} {params}");
        }
        assert!(matches!(
            parse_workflow_params("research", &json!("SOFR"), None),
            Err(LaunchError::Validation { field, .. }) if field == "workflow_params"
        ));
        assert!(matches!(
            parse_workflow_params("research", &json!({ "query": "SOFR" }), Some(0)),
            Err(LaunchError::Validation { field, .. }) if field == "deal_id"
        ));
    }

    #[test]
    fn valid_parameters_become_the_dedicated_endpoints_requests() {
        let company = parse_workflow_params(
            "quant",
            &json!({ "analysis_type": "company", "company_name": " Apple Inc ", "ticker": "AAPL", "focus": "risk" }),
            Some(7),
        );
        let Ok(WorkflowParams::Quant(QuantParams::Company(request))) = company else { panic!("{company:?}") };
        assert_eq!((request.company_name.as_str(), request.ticker.as_deref()), ("Apple Inc", Some("AAPL")));
        assert_eq!((request.analysis_type, request.deal_id), (CompanyAnalysisType::Risk, Some(7)));

        let market = parse_workflow_params("quant", &json!({ "analysis_type": "market", "query": "banks" }), None);
        let Ok(WorkflowParams::Quant(QuantParams::Market(request))) = market else { panic!("{market:?}") };
        assert_eq!((request.query.as_str(), request.time_range), ("banks", TimeRange::ThreeMonths));

        let loan = parse_workflow_params(
            "quant",
            &json!({ "analysis_type": "loan_application", "borrower_name": "Acme Corp", "loan_amount": 5_000_000,
                     "loan_type": "revolving", "currency": "usd" }),
            None,
        );
        let Ok(WorkflowParams::Quant(QuantParams::LoanApplication(application))) = loan else { panic!("{loan:?}") };
        assert_eq!((application.loan_amount, application.loan_type), (5_000_000.0, LoanType::Revolving));

        let research = parse_workflow_params("research", &json!({ "query": "SOFR", "max_iterations": 3 }), None);
        let Ok(WorkflowParams::Research(request)) = research else { panic!("{research:?}") };
        assert_eq!(request.max_iterations, 3);

        let people = parse_workflow_params("people", &json!({ "person_name": "Jane Doe", "context": null }), None);
        let Ok(WorkflowParams::People(request)) = people else { panic!("{people:?}") };
        assert_eq!((request.person_name.as_str(), request.context.as_deref()), ("Jane Doe", None));
    }

    #[test]
    fn the_chat_grammars_intents_pass_the_launch_validation() {
        for (message, workflow_type) in [
            ("analyse Apple Inc", "quant"),
            ("compare semiconductors and banks over 1Y", "quant"),
            ("assess a $5m term loan for Acme Corp", "quant"),
            ("research the impact of SOFR on leveraged loans", "research"),
            ("look into Jane Doe", "people"),
        ] {
            let intent = parse_intent(message, &[]);
            let (kind, params) = intent_params(&intent).expect("a launch");
            assert_eq!(kind, workflow_type, "{message}");
            let parsed = parse_workflow_params(kind, &params, None).expect(message);
            let parsed_type = match parsed {
                WorkflowParams::People(_) => "people",
                WorkflowParams::Research(_) => "research",
                WorkflowParams::Quant(_) => "quant",
            };
            assert_eq!(parsed_type, workflow_type, "{message}");
        }
        let euro = parse_intent("assess a EUR 750k term loan for Acme Corp", &[]);
        let (kind, params) = intent_params(&euro).expect("a launch");
        assert_eq!(field_of(kind, params), "workflow_params.currency", "EUR is refused, not analysed as USD");
        assert!(intent_params(&parse_intent("thanks!", &[])).is_none());
    }
}
