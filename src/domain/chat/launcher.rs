//! Launching one of the three workflows — `quant`, `research`, `people` — from parameters
//! validated by [`launch_params`](super::launch_params) (whichever way the launch was asked for:
//! the launch endpoint, a language model's tool call, the chat grammar). [`WorkflowLauncher::launch`]
//! calls the very use cases the dedicated endpoints call: [`QuantService`], [`ResearchService`],
//! [`PeopleService`].

use std::sync::Arc;

use serde_json::{Value, json};
use uuid::Uuid;

use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::chat::follow_up::SessionRun;
use crate::domain::chat::launch_params::{LaunchError, QuantParams, WorkflowParams};
use crate::domain::people::request::PeopleError;
use crate::domain::people::service::PeopleService;
use crate::domain::quant::request::QuantError;
use crate::domain::quant::runs::AnalysisRecord;
use crate::domain::quant::service::{PreparedAnalysis, QuantService};
use crate::domain::research::service::{ResearchError, ResearchReport, ResearchService};
use crate::ports::clock::Clock;
use crate::ports::store::StoreError;

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
                let reference =
                    json!({ "research_id": run.id.to_string(), "status": run.status.as_str(), "deal_id": run.deal_id });
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
                let identity = &record.result["identity"];
                let ambiguous = identity["status"] == "ambiguous";
                Launch {
                    workflow_type: "people",
                    message: if let Some(question) = identity["message"].as_str().filter(|_| ambiguous) {
                        // Several people of that name and nothing to tell them apart: ask.
                        format!("{question} See /api/people/results/{}.", record.id)
                    } else if found {
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
                    reference: json!({ "people_id": record.id.to_string(), "status": "completed", "deal_id": record.deal_id }),
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

    /// A run launched from a session, read back for `caller` from the `workflow` and the identifiers
    /// the session kept (`reference`); `None` when it is gone or not the caller's to see.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be read.
    pub async fn stored_run(
        &self,
        caller: Principal,
        workflow: &str,
        reference: &Value,
    ) -> Result<Option<SessionRun>, StoreError> {
        let id = |key: &str| reference.get(key).and_then(Value::as_str).map(str::to_owned);
        match workflow {
            "quant" => {
                let Some(id) = id("analysis_id").and_then(|id| id.parse().ok()) else { return Ok(None) };
                match self.quant.get(caller, id).await {
                    Ok(record) => Ok(Some(analysis_run(record))),
                    Err(QuantError::Store(error)) => Err(error),
                    Err(_) => Ok(None),
                }
            }
            "research" => {
                let Some(id) = id("research_id").and_then(|id| id.parse().ok()) else { return Ok(None) };
                match self.research.get(caller, id).await {
                    Ok(run) => {
                        let report = ResearchReport::of(&run);
                        Ok(Some(SessionRun {
                            kind: "research".into(),
                            id: run.id.to_string(),
                            link: format!("/api/deep-research/results/{}", run.id),
                            status: run.status.as_str().into(),
                            subject: run.query.clone(),
                            ticker: None,
                            time_range: None,
                            error: run.error.clone(),
                            result: json!({
                                "answer": run.answer, "max_iterations": run.max_iterations,
                                "sources": report.sources, "knowledge_items": report.knowledge_items,
                                "statistics": report.statistics,
                            }),
                        }))
                    }
                    Err(ResearchError::Store(error)) => Err(error),
                    Err(_) => Ok(None),
                }
            }
            "people" => {
                let Some(id) = id("people_id").and_then(|id| id.parse().ok()) else { return Ok(None) };
                match self.people.get(caller, id).await {
                    Ok(record) => Ok(Some(SessionRun {
                        kind: "people".into(),
                        id: record.id.to_string(),
                        link: format!("/api/people/results/{}", record.id),
                        status: "completed".into(),
                        subject: record.person_name.clone(),
                        ticker: None,
                        time_range: None,
                        error: None,
                        result: record.result,
                    })),
                    Err(PeopleError::Store(error)) => Err(error),
                    Err(_) => Ok(None),
                }
            }
            _ => Ok(None),
        }
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

/// A stored analysis as a session run: its subject as the result names it (the resolved company),
/// else as requested.
fn analysis_run(record: AnalysisRecord) -> SessionRun {
    let result = record.result.clone().unwrap_or(Value::Null);
    let requested = |key: &str| record.request.get(key).and_then(Value::as_str).map(str::to_owned);
    let company = &result["data"]["company"];
    let subject = match record.kind.as_str() {
        "market" => requested("query"),
        "loan_application" => {
            result["data"]["borrower"]["name"].as_str().map(str::to_owned).or_else(|| requested("borrower_name"))
        }
        _ => company["name"].as_str().map(str::to_owned).or_else(|| requested("company_name")),
    };
    SessionRun {
        kind: record.kind.as_str().into(),
        id: record.id.to_string(),
        link: format!("/api/quantitative-analysis/results/{}", record.id),
        status: record.status.as_str().into(),
        subject: subject.unwrap_or_else(|| "the subject".to_owned()),
        ticker: company["ticker"].as_str().map(str::to_owned).or_else(|| requested("ticker")),
        time_range: requested("time_range"),
        error: record.error.clone(),
        result,
    }
}

fn quant_launch(record: AnalysisRecord) -> Launch {
    let summary = record.result.as_ref().and_then(|result| result["summary"].as_str()).unwrap_or_default();
    // The deal rides along so that a deal's workspace finds the sessions that launched its runs.
    let reference =
        json!({ "analysis_id": record.id.to_string(), "status": record.status.as_str(), "deal_id": record.deal_id });
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
