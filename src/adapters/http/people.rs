//! `/api/people/*`: run the people workflow (`POST /api/people/research`, also launched through the
//! chatbot) and read its stored results (`GET /api/people/results*`).

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
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
use crate::domain::people::request::{PeopleError, PeopleRequest};
use crate::domain::people::runs::{PeopleId, PeopleRecord};

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let research = workflow_post(&state, warp::path!("api" / "people" / "research").boxed(), |s, c, r, b| async move {
        respond(run(s, c, r, b).await)
    });
    let result = warp::path!("api" / "people" / "results" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(get_result);
    let list = warp::path!("api" / "people" / "results")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state))
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .then(list_results);
    research.or(result.map(respond)).unify().or(list.map(respond)).unify().boxed()
}

impl From<PeopleError> for ApiError {
    fn from(error: PeopleError) -> Self {
        match error {
            PeopleError::Validation { field, message } => ApiError::invalid_field(field, message),
            PeopleError::NotFound => ApiError::not_found("people result not found"),
            PeopleError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PeopleResearchRequest {
    /// The person's name (1–200 characters).
    pub person_name: String,
    /// Free text about them (at most 300 characters), read best-effort for company, role and
    /// location ("CFO of Widget Ltd", "Acme Corp, London", "partner at Smith & Co in Boston").
    pub context: Option<String>,
    /// Their company (at most 120 characters); wins over a company read from `context`.
    pub company: Option<String>,
    /// Their role (at most 120 characters), e.g. "CFO"; wins over `context`.
    pub role: Option<String>,
    /// Where they are (at most 120 characters), e.g. "London"; wins over `context`.
    pub location: Option<String>,
    /// Links the result to a deal.
    pub deal_id: Option<i64>,
    /// The IPIP-50 answers the person gave: 50 integers 1–5 in item order, or `{"1": 4, …}`.
    #[schema(value_type = Option<Object>)]
    pub ipip_responses: Option<Value>,
}

/// POST /api/people/research
#[utoipa::path(post, path = "/api/people/research", tag = "people",
    request_body = PeopleResearchRequest,
    description = "Researches a person and answers, once stored, with the result (as `GET /api/people/results/{id}`) \
                   and a `message`. The person is identified by `person_name` plus `company`, `role` and `location` \
                   (each optional; when absent, read best-effort from `context`). Evidence about a different person of \
                   the same name (another company, a role of another field, another place) feeds neither the summary \
                   nor the character assessment: it is listed in `identity.set_aside` (`[{source, url, quote, reason, \
                   described_as: {company, role, location}}]`). `identity.status` is `matched`, `not_found`, \
                   `name_only` (nothing given to tell namesakes apart, one person described) or `ambiguous` (the \
                   sources describe several people of that name: `identity.candidates` `[{company, role, location, \
                   sources, urls}]`, nothing assessed, and `message` asks which one is meant). Counts against the \
                   per-user workflow rate limit.",
    responses(
        (status = 201, description = "The stored result with `message`", body = Object),
        (status = 400, description = "Blank or overlong name, overlong context, company, role or location, deal_id not positive, IPIP answers not 50 of 1–5, unknown field", body = ErrorBody),
    ))]
pub async fn run(
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let body: PeopleResearchRequest = body.parse()?;
    let request =
        PeopleRequest::new(&body.person_name, body.context.as_deref(), body.deal_id, body.ipip_responses.as_ref())?
            .with_identity(body.company.as_deref(), body.role.as_deref(), body.location.as_deref())?;
    let record = state.people.run(caller, request, &request_id).await?;
    let mut reply = people_body(&record);
    if let Some(object) = reply.as_object_mut() {
        object.insert("message".into(), json!(run_message(&record)));
    }
    Ok(warp::reply::with_status(warp::reply::json(&reply), StatusCode::CREATED))
}

/// When the name is ambiguous, the question which person is meant; otherwise the band and how the
/// sources were matched.
fn run_message(record: &PeopleRecord) -> String {
    let identity = &record.result["identity"];
    let matching = identity["message"].as_str().unwrap_or_default();
    if identity["status"] == "ambiguous" {
        return matching.to_owned();
    }
    let band = record.result["credit_assessment"]["score_band"].as_str().unwrap_or("unknown");
    if record.result["research_summary"]["found"] == true {
        format!(
            "People research on {} is complete: character band {band}, for human review. {matching}",
            record.person_name
        )
    } else {
        format!("People research on {} is complete: no reliable information was found. {matching}", record.person_name)
    }
}

/// The stored result as the API shows it: the workflow's result with its identifiers and times.
pub fn people_body(record: &PeopleRecord) -> Value {
    let mut body = record.result.clone();
    if let Some(object) = body.as_object_mut() {
        object.insert("people_id".into(), json!(record.id.to_string()));
        object.insert("status".into(), json!("completed"));
        object.insert("person_name".into(), json!(record.person_name));
        object.insert("context".into(), json!(record.context));
        object.insert("company".into(), json!(record.identity.company()));
        object.insert("role".into(), json!(record.identity.role()));
        object.insert("location".into(), json!(record.identity.location()));
        object.insert("deal_id".into(), json!(record.deal_id));
        object.insert("session_id".into(), json!(record.session_id));
        object.insert("cdm_events".into(), json!(record.cdm_events));
        object.insert("created_at".into(), json!(rfc3339(record.created_at)));
        object.insert("completed_at".into(), json!(rfc3339(record.completed_at)));
    }
    body
}

/// GET /api/people/results/{people_id}
#[utoipa::path(get, path = "/api/people/results/{people_id}", tag = "people",
    params(("people_id" = String, Path, description = "As returned in a people launch's workflow_result")),
    description = "A people-workflow result: `person_name`, `context`, `company`, `role`, `location` as asked; \
                   `identity` (`{status: matched|not_found|name_only|ambiguous, company, role, location (those matched \
                   against, given or read from the context), message, candidates: [{company, role, location, sources, \
                   urls}], set_aside: [{source, url, quote, reason, described_as}]}`: evidence about a namesake is \
                   listed there and used nowhere else); `research_summary` (`{text, found, sources, …}`: what the sources say about \
                   the person with `[n]` citations, or \"No reliable information found …\"), `psychometric_profile` \
                   (`method` `ipip50`, `llm_text_estimate` or `unavailable`; each Big Five trait with `score` 0–100 or \
                   null, `confidence`, `evidence`), `credit_assessment` (character: `score_band`, `reasons`, cited \
                   adverse findings, positive signals, `requires_human_review: true`, `notice`), `cdm_events`, \
                   `created_at`, `completed_at`. Unknown or someone else's: 404.",
    responses(
        (status = 200, description = "The result", body = Object),
        (status = 404, description = "No such result", body = super::error::ErrorBody),
    ))]
pub async fn get_result(raw_id: String, state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let id: PeopleId = raw_id.parse().map_err(|_| ApiError::not_found("people result not found"))?;
    let record = state.people.get(caller, id).await?;
    Ok(warp::reply::json(&people_body(&record)))
}

/// GET /api/people/results
#[utoipa::path(get, path = "/api/people/results", tag = "people",
    params(
        ("deal_id" = Option<i64>, Query, description = "Only results linked to this deal"),
        ("page" = Option<u32>, Query, description = "1-based, default 1"),
        ("limit" = Option<u32>, Query, description = "1-200, default 50"),
    ),
    description = "The caller's people-workflow results (everyone's for admins), newest first.",
    responses((status = 200, description = "One page", body = Object), (status = 400, description = "Invalid query", body = super::error::ErrorBody)))]
pub async fn list_results(state: Arc<AppState>, caller: Principal, query: String) -> Result<impl Reply, ApiError> {
    let params = ListingParams::parse(&query)?;
    let (records, total) = state.people.list(caller, params.deal_id, params.page, params.limit).await?;
    Ok(warp::reply::json(&params.page_body("people", records.iter().map(people_body).collect(), total)))
}
