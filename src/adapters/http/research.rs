//! `/api/deep-research/*`: queue a research run, read it back while it runs and once it is done,
//! follow it as events, list the caller's runs.

mod feed;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
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
use crate::domain::auth::{Principal, Role};
use crate::domain::research::runs::{ResearchId, ResearchRun, ResearchStatus};
use crate::domain::research::service::{ResearchError, ResearchReport, ResearchRequest};
pub use feed::{Feeds, Pacing, Reading};

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let query =
        workflow_post(&state, warp::path!("api" / "deep-research" / "query").boxed(), |s, c, r, b| async move {
            respond(submit(s, c, r, b).await)
        });
    let result = warp::path!("api" / "deep-research" / "results" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(get_result);
    let events = warp::path!("api" / "deep-research" / "results" / String / "events")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(follow);
    let list = list_route(state);
    query
        .or(result.map(respond))
        .unify()
        .or(events.map(|reply: Result<Response, ApiError>| reply.unwrap_or_else(|error| error.into_response())))
        .unify()
        .or(list.map(respond))
        .unify()
        .boxed()
}

fn list_route(state: Arc<AppState>) -> BoxedFilter<(Result<impl Reply, ApiError>,)> {
    warp::path!("api" / "deep-research" / "results")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state))
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .then(list_results)
        .boxed()
}

impl From<ResearchError> for ApiError {
    fn from(error: ResearchError) -> Self {
        match error {
            ResearchError::Validation { field, message } => ApiError::invalid_field(field, message),
            ResearchError::NotFound => ApiError::not_found("research not found"),
            ResearchError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResearchQueryRequest {
    /// The research question (1–2000 characters).
    pub query: String,
    /// Links the run to a deal: it then appears in the workflow data of the deal's documents.
    pub deal_id: Option<i64>,
    /// 1–20, default 5.
    pub max_iterations: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct ResearchQueued {
    pub status: &'static str,
    pub research_id: String,
    pub message: String,
    /// The `ResearchQueued` WorkflowStep.
    #[schema(value_type = Vec<Object>)]
    pub cdm_events: Vec<Value>,
}

/// POST /api/deep-research/query
#[utoipa::path(post, path = "/api/deep-research/query", tag = "research",
    request_body = ResearchQueryRequest,
    description = "Queues an iterative research run (search → read → extract → reflect, up to `max_iterations`) and \
                   answers at once with 202 and the `research_id`; workers run it in the background. Poll \
                   `GET /api/deep-research/results/{research_id}`. Web search providers (`SEARCH_PROVIDERS`) and the \
                   caller's own stored documents are consulted. Counts against the per-user workflow rate limit.",
    responses(
        (status = 202, description = "Queued", body = ResearchQueued),
        (status = 400, description = "Blank or overlong query, max_iterations outside 1–20, unknown field", body = ErrorBody),
    ))]
pub async fn submit(
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let body: ResearchQueryRequest = body.parse()?;
    let request = ResearchRequest::new(&body.query, body.deal_id, body.max_iterations)?;
    let run = state.research.submit(caller, request, &request_id).await?;
    state.research_wake.notify_one();
    let queued = ResearchQueued {
        status: "success",
        research_id: run.id.to_string(),
        message: format!(
            "Research queued (at most {} iterations); poll /api/deep-research/results/{}",
            run.max_iterations, run.id
        ),
        cdm_events: run.cdm_events,
    };
    Ok(warp::reply::with_status(warp::reply::json(&queued), StatusCode::ACCEPTED))
}

/// The run as the API shows it: what it has gathered so far while pending or running.
pub fn research_body(run: &ResearchRun) -> Value {
    let report = ResearchReport::of(run);
    let mut body = json!({
        "research_id": run.id.to_string(),
        "status": run.status.as_str(),
        "query": run.query,
        "deal_id": run.deal_id,
        "max_iterations": run.max_iterations,
        "answer": run.answer,
        "answer_method": report.answer_method,
        "knowledge_items": report.knowledge_items,
        "sources": report.sources,
        "statistics": report.statistics,
        "queries": report.queries,
        "attempts": run.attempts,
        "cdm_events": run.cdm_events,
        "created_at": rfc3339(run.created_at),
    });
    if let Some(object) = body.as_object_mut() {
        if let Some(completed_at) = run.completed_at.filter(|_| run.status == ResearchStatus::Completed) {
            object.insert("completed_at".into(), json!(rfc3339(completed_at)));
        }
        if let Some(error) = &run.error {
            object.insert("error".into(), json!(error));
        }
    }
    body
}

/// GET /api/deep-research/results/{research_id}
#[utoipa::path(get, path = "/api/deep-research/results/{research_id}", tag = "research",
    params(("research_id" = String, Path, description = "As returned by POST /api/deep-research/query")),
    description = "A research run: `status` (`pending`, `running`, `completed`, `failed`), `query`, `answer` (null until \
                   completed; citations `[n]` refer to `sources[n-1]`), `answer_method`, `knowledge_items` \
                   (`{title, content, sources:[{url, title, provider, retrieved_at}]}`), `sources` (with `origin` \
                   `web` or `internal`), `statistics` (`sources_used`, `iterations`, `time_taken_seconds`, `queries`, \
                   `pages_fetched`, `provider_errors` — a list of `{provider, stage, message, iteration}` — and \
                   counts), `cdm_events`, `created_at`, `completed_at` when completed, `error` when failed. While \
                   pending or running: the fields gathered so far. Unknown or someone else's: 404.",
    responses(
        (status = 200, description = "The run", body = Object),
        (status = 404, description = "No such research run", body = ErrorBody),
    ))]
pub async fn get_result(raw_id: String, state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let id: ResearchId = raw_id.parse().map_err(|_| ApiError::not_found("research not found"))?;
    let run = state.research.get(caller, id).await?;
    Ok(warp::reply::json(&research_body(&run)))
}

/// GET /api/deep-research/results
#[utoipa::path(get, path = "/api/deep-research/results", tag = "research",
    params(
        ("deal_id" = Option<i64>, Query, description = "Only runs linked to this deal"),
        ("page" = Option<u32>, Query, description = "1-based, default 1"),
        ("limit" = Option<u32>, Query, description = "1-200, default 50"),
    ),
    description = "The caller's research runs (everyone's for admins), newest first, each as in GET …/results/{id}.",
    responses((status = 200, description = "One page", body = Object), (status = 400, description = "Invalid query", body = ErrorBody)))]
pub async fn list_results(state: Arc<AppState>, caller: Principal, query: String) -> Result<impl Reply, ApiError> {
    let params = ListingParams::parse(&query)?;
    let (runs, total) = state.research.list(caller, params.deal_id, params.page, params.limit).await?;
    Ok(warp::reply::json(&params.page_body("research", runs.iter().map(research_body).collect(), total)))
}

/// How often a followed run is read again from the store (which every instance writes to, so a
/// run is followed whichever instance's worker runs it): twice a second after a change, and half
/// as often after each reading that changed nothing, down to once every 3 s.
pub const FOLLOW_PACING: Pacing = Pacing { first: Duration::from_millis(500), longest: Duration::from_secs(3) };
/// How long one stream follows a run; then it ends with `timeout`, and the client reconnects or
/// reads the result.
const FOLLOW_AT_MOST: Duration = Duration::from_secs(600);

/// The followed runs of this instance, each read by one poller for all its streams.
pub type ResearchFeeds = Feeds<ResearchId, RunReading>;

/// What the followers of a run are shown of one reading of it (shared: hence the `Arc`s).
#[derive(Clone, PartialEq)]
pub enum RunReading {
    /// The run's progress, and when it has ended its last event (`completed` or `failed`, with the
    /// whole run).
    Run { progress: Arc<Value>, ended: Option<(&'static str, Arc<Value>)> },
    /// The run could not be read: the `error` event, and the streams end.
    Unreadable(Arc<Value>),
}

impl Reading for RunReading {
    fn is_last(&self) -> bool {
        !matches!(self, RunReading::Run { ended: None, .. })
    }
}

impl RunReading {
    fn of(run: &ResearchRun) -> Self {
        let body = research_body(run);
        let progress = Arc::new(progress_of(&body));
        let ended = match run.status {
            ResearchStatus::Completed | ResearchStatus::Failed => Some((run.status.as_str(), Arc::new(body))),
            ResearchStatus::Pending | ResearchStatus::Running => None,
        };
        RunReading::Run { progress, ended }
    }

    fn unreadable(error: ResearchError) -> Self {
        let error = ApiError::from(error);
        RunReading::Unreadable(Arc::new(
            json!({ "status": "error", "message": error.message(), "code": error.status().as_u16() }),
        ))
    }
}

/// What a follower is told changed: status and how far the loop has got.
fn progress_of(body: &Value) -> Value {
    json!({
        "research_id": body["research_id"],
        "status": body["status"],
        "iterations": body["statistics"]["iterations"],
        "max_iterations": body["max_iterations"],
        "knowledge_items": body["knowledge_items"].as_array().map_or(0, Vec::len),
        "sources": body["sources"].as_array().map_or(0, Vec::len),
        "attempts": body["attempts"],
    })
}

/// GET /api/deep-research/results/{research_id}/events
#[utoipa::path(get, path = "/api/deep-research/results/{research_id}/events", tag = "research",
    params(("research_id" = String, Path, description = "As returned by POST /api/deep-research/query")),
    description = "Follows a research run as Server-Sent Events (`text/event-stream`), each `{type, data}` with \
                   `event:` and a sequential `id:`: `progress` when the run's status or progress changes (`status`, \
                   `iterations`, `max_iterations`, `knowledge_items` and `sources` counts, `attempts`; the first at \
                   once), then `completed` or `failed` with the whole run as in GET …/results/{research_id}, and \
                   the stream ends. The run is read from the store (so it is followed whichever instance runs it) \
                   twice a second after a change, less often while nothing changes (at least every 3 s), once for \
                   all the streams that follow it. After 10 minutes the stream ends with `timeout`: reconnect or \
                   read the result. A user may hold `EVENT_STREAMS_PER_USER` (8) event streams open at once: one \
                   more is 429 with `Retry-After`. Unknown or someone else's run: 404 in the error shape, before \
                   any event.",
    responses(
        (status = 200, description = "The run's events", content_type = "text/event-stream", body = String),
        (status = 404, description = "No such research run", body = ErrorBody),
        (status = 429, description = "The caller already holds as many open event streams as allowed", body = ErrorBody),
    ))]
pub async fn follow(raw_id: String, state: Arc<AppState>, caller: Principal) -> Result<Response, ApiError> {
    let id: ResearchId = raw_id.parse().map_err(|_| ApiError::not_found("research not found"))?;
    // The place first: a request over the cap costs no read.
    let place = state.event_streams.take(caller.user_id)?;
    let first = state.research.get(caller, id).await?;
    // The poller reads as the run's owner: every follower was checked to see the run as it joined.
    let owner = Principal { user_id: first.owner, role: Role::Viewer };
    let research = state.research.clone();
    let mut feed = state.research_feeds.follow(id, RunReading::of(&first), move || {
        let research = research.clone();
        async move { research.get(owner, id).await.map_or_else(RunReading::unreadable, |run| RunReading::of(&run)) }
    });
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<super::sse::Frame>();
    // The follower is a task of its own, which stops when the client goes (its events can no longer
    // be sent), when the run ends, or after `FOLLOW_AT_MOST`.
    tokio::spawn(async move {
        let deadline = tokio::time::sleep(FOLLOW_AT_MOST);
        tokio::pin!(deadline);
        let mut sent: Option<Arc<Value>> = None;
        loop {
            let reading = feed.borrow_and_update().clone();
            match reading {
                RunReading::Run { progress, ended } => {
                    if sent.as_ref() != Some(&progress) {
                        if sender.send(("progress", Value::clone(&progress))).is_err() {
                            return;
                        }
                        sent = Some(progress);
                    }
                    if let Some((kind, body)) = ended {
                        let _ = sender.send((kind, Value::clone(&body)));
                        return;
                    }
                }
                RunReading::Unreadable(error) => {
                    let _ = sender.send(("error", Value::clone(&error)));
                    return;
                }
            }
            tokio::select! {
                changed = feed.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
                () = sender.closed() => return,
                () = &mut deadline => {
                    let data = json!({ "message": "followed for 10 minutes; reconnect or read the result" });
                    let _ = sender.send(("timeout", data));
                    return;
                }
            }
        }
    });
    Ok(super::sse::reply(receiver, place))
}
