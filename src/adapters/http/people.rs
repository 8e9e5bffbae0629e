//! `/api/people/results*`: the stored results of the people workflow (launched through the chatbot).

use std::sync::Arc;

use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::{Reply, Response};

use super::AppState;
use super::auth::respond;
use super::error::ApiError;
use super::filters::{authenticated, with_state};
use super::paging::{ListingParams, rfc3339};
use crate::domain::auth::Principal;
use crate::domain::people::request::PeopleError;
use crate::domain::people::runs::{PeopleId, PeopleRecord};

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
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
    result.map(respond).or(list.map(respond)).unify().boxed()
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

/// The stored result as the API shows it: the workflow's result with its identifiers and times.
pub fn people_body(record: &PeopleRecord) -> Value {
    let mut body = record.result.clone();
    if let Some(object) = body.as_object_mut() {
        object.insert("people_id".into(), json!(record.id.to_string()));
        object.insert("status".into(), json!("completed"));
        object.insert("person_name".into(), json!(record.person_name));
        object.insert("context".into(), json!(record.context));
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
    description = "A people-workflow result: `research_summary` (`{text, found, sources, …}`: what the sources say about \
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
