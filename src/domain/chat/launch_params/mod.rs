//! What a workflow launch takes: one parameter type per kind of launch ([`LaunchKind`]), used by
//! all three ways a launch is asked for —
//!
//! - a language model's tool call: one tool per kind, whose JSON Schema is generated from the very
//!   type that reads the call ([`LaunchKind::tool_schema`]), so the model is shown exactly what the
//!   service accepts;
//! - `POST /api/digitizer-chatbot/launch-workflow`: `workflow_type` and `workflow_params` (for
//!   `quant`, `analysis_type` picks the kind) — [`parse_workflow_params`];
//! - the chat grammar's [`Intent`] — [`intent_launch`].
//!
//! Every way ends in [`LaunchKind::parse`]: one validation, errors naming the field as
//! `workflow_params.<name>`, unknown parameters refused (a misspelt optional parameter would otherwise
//! be silently ignored).
//!
//! # Parameters
//!
//! | kind (tool) | `workflow_type` / `analysis_type` | parameters |
//! |---|---|---|
//! | company analysis (`launch_company_analysis`) | `quant` / `company` | `company_name` (required, 1–200 characters), `ticker`, `focus` (`comprehensive` (default), `financial`, `market`, `risk`) |
//! | market analysis (`launch_market_analysis`) | `quant` / `market` | `query` (required, 1–500 characters), `time_range` (`1M`, `3M` (default), `6M`, `1Y`, `5Y`) |
//! | loan application (`launch_loan_application`) | `quant` / `loan_application` | `borrower_name` (required), `loan_amount` (required, > 0, at most 1e12, USD), `loan_type` (`term_loan` (default), `revolving`, `bridge`, `other`), `currency` (only `USD`) |
//! | research (`launch_research`) | `research` | `query` (required, 1–2,000 characters), `max_iterations` (1–20, default 5) |
//! | people (`launch_people_workflow`) | `people` | `person_name` (required, 1–200 characters), `context` (at most 300 characters), `company`, `role`, `location` (one line each, at most 120 characters: they tell the person apart from namesakes); through the endpoint only, `ipip_responses` (50 answers 1–5, as an array in item order or an object keyed `"1"`…`"50"`): a model is never offered questionnaire answers to fill in |
//!
//! Text is trimmed, and must hold a character that is not white space. `deal_id` is the request's,
//! not a parameter.

mod values;

use schemars::{JsonSchema, SchemaGenerator, generate::SchemaSettings};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::domain::chat::{Intent, QuantRequest};
use crate::domain::people::identity::MAX_IDENTITY_FIELD_CHARS;
use crate::domain::people::request::{MAX_CONTEXT_CHARS, MAX_PERSON_NAME_CHARS, PeopleError, PeopleRequest};
use crate::domain::quant::loan::LoanType;
use crate::domain::quant::market::TimeRange;
use crate::domain::quant::request::{
    CompanyAnalysisType, CompanyRequest, LoanApplication, MAX_COMPANY_NAME_CHARS, MAX_MARKET_QUERY_CHARS,
    MarketRequest, QuantError,
};
use crate::domain::research::service::{MAX_QUERY_CHARS, ResearchError, ResearchRequest};
use crate::ports::store::StoreError;
pub use values::{Iterations, Line, LoanAmount, Text, UsdOnly};

/// The workflow types, as the API spells them.
pub const WORKFLOW_TYPES: [&str; 3] = ["people", "research", "quant"];

/// The kinds of quantitative analysis a `quant` launch may ask for.
pub const QUANT_ANALYSIS_TYPES: [&str; 3] = ["company", "market", "loan_application"];

/// Longest ticker accepted, in characters (the longest listed tickers have six or seven, with a
/// class suffix).
pub const MAX_TICKER_CHARS: usize = 12;

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

/// A company analysis, as a tool call or the `workflow_params` of a `company` quant launch.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompanyAnalysisParams {
    /// The company's name as the user gave it, without framing words ("Apple Inc", not "the company Apple Inc").
    pub company_name: Text<MAX_COMPANY_NAME_CHARS>,
    /// The exchange ticker, only when the user gave one.
    #[serde(default)]
    pub ticker: Option<Text<MAX_TICKER_CHARS>>,
    /// Which sections to compute: statements (financial), share-price statistics (market), credit
    /// risk (risk), or all of them (comprehensive, the default).
    #[serde(default)]
    pub focus: Option<CompanyAnalysisType>,
}

/// A market analysis, as a tool call or the `workflow_params` of a `market` quant launch.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarketAnalysisParams {
    /// What to analyse or compare: tickers, sectors, markets or companies ("AAPL vs MSFT", "semiconductors and banks").
    pub query: Text<MAX_MARKET_QUERY_CHARS>,
    /// The look-back window (default 3M).
    #[serde(default)]
    pub time_range: Option<TimeRange>,
}

/// A loan application, as a tool call or the `workflow_params` of a `loan_application` quant launch.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoanApplicationParams {
    /// The borrower as the user named it.
    pub borrower_name: Text<MAX_COMPANY_NAME_CHARS>,
    /// The amount asked for, in USD (convert any other currency first, and say so).
    pub loan_amount: LoanAmount,
    /// The kind of facility (default term_loan).
    #[serde(default)]
    pub loan_type: Option<LoanType>,
    /// The amount's currency: only USD is analysed.
    #[serde(default)]
    pub currency: Option<UsdOnly>,
}

/// Iterative web research, as a tool call or the `workflow_params` of a `research` launch.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResearchParams {
    /// The research question.
    pub query: Text<MAX_QUERY_CHARS>,
    /// Search-and-read rounds at most (default 5).
    #[serde(default)]
    pub max_iterations: Option<Iterations>,
}

/// The people workflow, as a tool call or (with `ipip_responses`) the `workflow_params` of a
/// `people` launch.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PeopleParams {
    /// The person's name as the user gave it.
    pub person_name: Text<MAX_PERSON_NAME_CHARS>,
    /// What the user said about them, in their words ("CFO of Acme Corp, London").
    #[serde(default)]
    pub context: Option<Text<MAX_CONTEXT_CHARS>>,
    /// The company they work for, when the user stated it: tells them apart from namesakes.
    #[serde(default)]
    pub company: Option<Line<MAX_IDENTITY_FIELD_CHARS>>,
    /// Their role or title, when the user stated it.
    #[serde(default)]
    pub role: Option<Line<MAX_IDENTITY_FIELD_CHARS>>,
    /// Where they are based, when the user stated it.
    #[serde(default)]
    pub location: Option<Line<MAX_IDENTITY_FIELD_CHARS>>,
}

/// One kind of launch, and the tool a language model calls for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaunchKind {
    CompanyAnalysis,
    MarketAnalysis,
    LoanApplication,
    Research,
    People,
}

impl LaunchKind {
    /// Every kind, in the order the tools are offered.
    pub const ALL: [Self; 5] =
        [Self::CompanyAnalysis, Self::MarketAnalysis, Self::LoanApplication, Self::Research, Self::People];

    /// The tool's name.
    pub fn tool_name(self) -> &'static str {
        match self {
            Self::CompanyAnalysis => "launch_company_analysis",
            Self::MarketAnalysis => "launch_market_analysis",
            Self::LoanApplication => "launch_loan_application",
            Self::Research => "launch_research",
            Self::People => "launch_people_workflow",
        }
    }

    /// The kind whose tool is named `name`.
    pub fn from_tool_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.tool_name() == name)
    }

    /// The tool's description, as the model reads it.
    pub fn tool_description(self) -> &'static str {
        match self {
            Self::CompanyAnalysis => {
                "Analyse one company's credit from its SEC filings and share prices: statements, ratios, \
                 market statistics and probability of default."
            }
            Self::MarketAnalysis => {
                "Analyse or compare markets, sectors, tickers or listed companies over a look-back window."
            }
            Self::LoanApplication => {
                "Assess a loan application: the borrower's statements with the loan added, a recommendation \
                 and covenants. The amount is in USD."
            }
            Self::Research => "Queue iterative web research on a question; it completes in the background.",
            Self::People => "Research a named person and assess the character dimension of credit from public sources.",
        }
    }

    /// The workflow it launches, as the API spells it: `quant`, `research` or `people`.
    pub fn workflow_type(self) -> &'static str {
        match self {
            Self::CompanyAnalysis | Self::MarketAnalysis | Self::LoanApplication => "quant",
            Self::Research => "research",
            Self::People => "people",
        }
    }

    /// The JSON Schema of the tool's arguments, generated from the type that reads them: required
    /// fields, types, enumerations, bounds, and `additionalProperties: false`.
    pub fn tool_schema(self) -> Value {
        match self {
            Self::CompanyAnalysis => schema_of::<CompanyAnalysisParams>(),
            Self::MarketAnalysis => schema_of::<MarketAnalysisParams>(),
            Self::LoanApplication => schema_of::<LoanApplicationParams>(),
            Self::Research => schema_of::<ResearchParams>(),
            Self::People => schema_of::<PeopleParams>(),
        }
    }

    /// Reads and validates the arguments of a launch of this kind, for deal `deal_id`.
    ///
    /// # Errors
    /// [`LaunchError::Validation`] naming the first wrong field as `workflow_params.<name>`.
    pub fn parse(self, params: &Value, deal_id: Option<i64>) -> Result<WorkflowParams, LaunchError> {
        self.parse_with(params, deal_id, None)
    }

    fn parse_with(
        self,
        params: &Value,
        deal_id: Option<i64>,
        ipip_responses: Option<&Value>,
    ) -> Result<WorkflowParams, LaunchError> {
        request_object(params, deal_id)?;
        Ok(match self {
            Self::CompanyAnalysis => {
                let params: CompanyAnalysisParams = read(params)?;
                WorkflowParams::Quant(QuantParams::Company(CompanyRequest {
                    company_name: params.company_name.into_string(),
                    ticker: params.ticker.map(Text::into_string),
                    analysis_type: params.focus.unwrap_or(CompanyAnalysisType::Comprehensive),
                    deal_id,
                    // A chat launch names the company; statements are given through the API.
                    financials: None,
                    statement_set_id: None,
                }))
            }
            Self::MarketAnalysis => {
                let params: MarketAnalysisParams = read(params)?;
                WorkflowParams::Quant(QuantParams::Market(MarketRequest {
                    query: params.query.into_string(),
                    time_range: params.time_range.unwrap_or_default(),
                    deal_id,
                }))
            }
            Self::LoanApplication => {
                let params: LoanApplicationParams = read(params)?;
                WorkflowParams::Quant(QuantParams::LoanApplication(LoanApplication {
                    borrower_name: params.borrower_name.into_string(),
                    loan_amount: params.loan_amount.get(),
                    loan_type: params.loan_type.unwrap_or(LoanType::TermLoan),
                    deal_id,
                    financials: None,
                    statement_set_id: None,
                }))
            }
            Self::Research => {
                let params: ResearchParams = read(params)?;
                let iterations = params.max_iterations.map(|n| i64::from(n.get()));
                WorkflowParams::Research(ResearchRequest::new(params.query.as_str(), deal_id, iterations)?)
            }
            Self::People => {
                let params: PeopleParams = read(params)?;
                let request = PeopleRequest::new(
                    params.person_name.as_str(),
                    params.context.as_ref().map(Text::as_str),
                    deal_id,
                    ipip_responses,
                )?
                .with_identity(
                    params.company.as_ref().map(Line::as_str),
                    params.role.as_ref().map(Line::as_str),
                    params.location.as_ref().map(Line::as_str),
                )?;
                WorkflowParams::People(request)
            }
        })
    }
}

/// The JSON Schema of `T`, inline (no `$ref`), without the meta-schema, title and type
/// documentation a tool's parameters do not carry (the tool has its own description).
pub fn schema_of<T: JsonSchema>() -> Value {
    let generator = SchemaGenerator::new(SchemaSettings::draft2020_12().with(|settings| {
        settings.inline_subschemas = true;
        settings.meta_schema = None;
    }));
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("title");
        object.remove("description");
    }
    schema
}

/// The parameters as an object, once the deal id is known to be valid.
fn request_object(params: &Value, deal_id: Option<i64>) -> Result<&Map<String, Value>, LaunchError> {
    if deal_id.is_some_and(|id| id <= 0) {
        return Err(LaunchError::invalid("deal_id", "must be a positive integer"));
    }
    params.as_object().ok_or_else(|| LaunchError::invalid("workflow_params", "must be an object"))
}

/// Deserialises `params` into `T`, a refusal naming the field.
fn read<T: DeserializeOwned>(params: &Value) -> Result<T, LaunchError> {
    serde_path_to_error::deserialize(params).map_err(|error| {
        let path = error.path().to_string();
        let message = error.inner().to_string();
        // serde names a missing or unknown field in its message, at the object's own path.
        if let Some(field) = quoted_after(&message, "missing field `") {
            return LaunchError::param(field, "is required");
        }
        if let Some(field) = quoted_after(&message, "unknown field `") {
            let expected = message.split_once("expected ").map_or("", |(_, rest)| rest).replace('`', "");
            return LaunchError::param(field, format!("is not a parameter here; expected {expected}"));
        }
        LaunchError::param(&path, message)
    })
}

fn quoted_after<'a>(message: &'a str, opening: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(opening)?;
    rest.split_once('`').map(|(field, _)| field)
}

/// Validates `params` for `workflow_type` as the launch endpoint receives them (see the [module
/// documentation](self)).
///
/// # Errors
/// [`LaunchError::Validation`] naming the first wrong field.
pub fn parse_workflow_params(
    workflow_type: &str,
    params: &Value,
    deal_id: Option<i64>,
) -> Result<WorkflowParams, LaunchError> {
    let mut rest = request_object(params, deal_id)?.clone();
    match workflow_type {
        "people" => {
            let ipip_responses = rest.remove("ipip_responses").filter(|value| !value.is_null());
            LaunchKind::People.parse_with(&Value::Object(rest), deal_id, ipip_responses.as_ref())
        }
        "research" => LaunchKind::Research.parse(params, deal_id),
        "quant" => {
            let kind = match rest.remove("analysis_type") {
                None | Some(Value::Null) => return Err(LaunchError::param("analysis_type", "is required")),
                Some(Value::String(analysis_type)) => match analysis_type.trim() {
                    "company" => LaunchKind::CompanyAnalysis,
                    "market" => LaunchKind::MarketAnalysis,
                    "loan_application" => LaunchKind::LoanApplication,
                    other => {
                        return Err(LaunchError::param(
                            "analysis_type",
                            format!(
                                "'{other}' is not an analysis type; expected one of {}",
                                QUANT_ANALYSIS_TYPES.join(", ")
                            ),
                        ));
                    }
                },
                Some(_) => return Err(LaunchError::param("analysis_type", "must be a string")),
            };
            kind.parse(&Value::Object(rest), deal_id)
        }
        other => Err(LaunchError::invalid(
            "workflow_type",
            format!("'{other}' is not a workflow type; expected one of {}", WORKFLOW_TYPES.join(", ")),
        )),
    }
}

/// The launch the chat grammar's `intent` stands for — its kind and arguments, read by
/// [`LaunchKind::parse`] like any other launch — or `None` when it launches nothing. A loan amount
/// in another currency is passed on with its currency, so that the launch refuses it with the
/// reason instead of analysing EUR as USD.
pub fn intent_launch(intent: &Intent) -> Option<(LaunchKind, Value)> {
    let launch = match intent {
        Intent::People { person_name, context } => {
            (LaunchKind::People, json!({ "person_name": person_name, "context": context }))
        }
        Intent::Research { query } => (LaunchKind::Research, json!({ "query": query })),
        Intent::Quant(QuantRequest::Company { company_name, ticker, analysis_type }) => (
            LaunchKind::CompanyAnalysis,
            json!({ "company_name": company_name, "ticker": ticker, "focus": analysis_type }),
        ),
        Intent::Quant(QuantRequest::Market { query, time_range }) => {
            (LaunchKind::MarketAnalysis, json!({ "query": query, "time_range": time_range }))
        }
        Intent::Quant(QuantRequest::LoanApplication { borrower_name, loan_amount, loan_type, currency }) => (
            LaunchKind::LoanApplication,
            json!({
                "borrower_name": borrower_name, "loan_amount": loan_amount, "loan_type": loan_type, "currency": currency,
            }),
        ),
        Intent::DocumentQuestion(_) | Intent::None => return None,
    };
    Some(launch)
}

/// The arguments as the launch endpoint's `workflow_params` spell them (`analysis_type` added for a
/// quant launch), for the reply's metadata.
pub fn as_workflow_params(kind: LaunchKind, arguments: &Value) -> Value {
    let analysis_type = match kind {
        LaunchKind::CompanyAnalysis => "company",
        LaunchKind::MarketAnalysis => "market",
        LaunchKind::LoanApplication => "loan_application",
        LaunchKind::Research | LaunchKind::People => return arguments.clone(),
    };
    let mut params = arguments.as_object().cloned().unwrap_or_else(Map::new);
    params.insert("analysis_type".into(), json!(analysis_type));
    Value::Object(params)
}

#[cfg(test)]
mod schema_strategy;
#[cfg(test)]
mod tests;
