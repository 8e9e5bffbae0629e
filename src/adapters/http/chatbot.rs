//! `/api/digitizer-chatbot/*`: a chat turn (which may launch a workflow), a direct workflow launch,
//! and the stored sessions: started, listed and read.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::{Reply, Response};

use super::AppState;
use super::auth::respond;
use super::error::{ApiError, ErrorBody, RawJson};
use super::filters::{authenticated, with_state, workflow_post};
use super::paging::{ListingParams, rfc3339};
use crate::domain::auth::Principal;
use crate::domain::chat::launch_params::LaunchError;
use crate::domain::chat::service::{ChatError, ChatTurn};
use crate::domain::chat::sessions::SessionSummary;
use crate::ports::conversations::ChatSession;

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let chat =
        workflow_post(&state, warp::path!("api" / "digitizer-chatbot" / "chat").boxed(), |s, c, r, b| async move {
            respond(chat(s, c, r, b).await)
        });
    let launch = workflow_post(
        &state,
        warp::path!("api" / "digitizer-chatbot" / "launch-workflow").boxed(),
        |s, c, r, b| async move { respond(launch_workflow(s, c, r, b).await) },
    );
    let start = workflow_post(
        &state,
        warp::path!("api" / "digitizer-chatbot" / "sessions").boxed(),
        |s, c, _r, _b| async move { respond(start_session(s, c).await) },
    );
    let list = warp::path!("api" / "digitizer-chatbot" / "sessions")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .then(list_sessions);
    let session = warp::path!("api" / "digitizer-chatbot" / "sessions" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state))
        .then(get_session);
    chat.or(launch).unify().or(start).unify().or(list.map(respond)).unify().or(session.map(respond)).unify().boxed()
}

impl From<LaunchError> for ApiError {
    fn from(error: LaunchError) -> Self {
        match error {
            LaunchError::Validation { field, message } => ApiError::invalid_field(&field, message),
            LaunchError::Quant(error) => ApiError::from(error),
            LaunchError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

impl From<ChatError> for ApiError {
    fn from(error: ChatError) -> Self {
        match error {
            ChatError::Validation { field, message } => ApiError::invalid_field(&field, message),
            ChatError::SessionNotFound => ApiError::not_found("session not found"),
            ChatError::DocumentNotFound => ApiError::not_found("document not found"),
            ChatError::Launch(error) => ApiError::from(error),
            ChatError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatRequestBody {
    /// 1–4000 characters; may ask for a workflow ("analyse Apple Inc") or about the document.
    pub message: String,
    /// 1–128 letters, digits, `-`, `_`, `.` or `:`: one of the caller's sessions (from `POST
    /// /api/digitizer-chatbot/sessions`, an earlier answer, or an id the client chose), or an id no
    /// session has yet, which the turn starts for the caller. Absent: the turn starts a new session
    /// under a generated id, which the answer carries. Another user's session is a 404 and is never
    /// written.
    pub session_id: Option<String>,
    /// Linked to any workflow the turn launches.
    pub deal_id: Option<i64>,
    /// A stored document the caller may read: its current agreement answers document questions.
    pub document_id: Option<i64>,
    /// Earlier messages `{role: user|assistant, content}`, oldest first; only the last 10 are used (a
    /// longer history is accepted). Absent: the session's stored messages are the history.
    #[schema(value_type = Option<Vec<Object>>)]
    pub conversation_history: Option<Value>,
    /// Extracted CDM data of the document (the `agreement` of `POST /api/extract`); takes precedence
    /// over the stored agreement of `document_id`.
    #[schema(value_type = Option<Object>)]
    pub document_context: Option<Value>,
}

#[derive(Serialize, ToSchema)]
pub struct ChatResponseBody {
    pub status: &'static str,
    /// The session the turn was stored in (generated when the request named none).
    pub session_id: String,
    pub response: String,
    /// `quant`, `research` or `people`, when the turn launched a workflow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow_launched: Option<&'static str>,
    /// As in the launch-workflow answer, when the turn launched a workflow.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub workflow_result: Option<Value>,
    #[schema(value_type = Vec<Object>)]
    pub cdm_events: Vec<Value>,
    /// `{engine: llm|deterministic, model?, fallback_reason? (why the grammar answered although a
    /// model is configured), model_error? (the model failed after it launched), intent?, history_messages_used,
    /// document?: {source, document_id, field?, cited_fields}, usage?: {prompt_tokens,
    /// completion_tokens, total_tokens, calls}, launch_error?, tool_errors?}`.
    #[schema(value_type = Object)]
    pub metadata: Value,
}

/// POST /api/digitizer-chatbot/chat
#[utoipa::path(post, path = "/api/digitizer-chatbot/chat", tag = "chatbot",
    request_body = ChatRequestBody,
    description = "One chat turn. A request to launch a workflow (\"analyse Apple Inc\", \"compare semiconductors and \
                   banks over 1Y\", \"research the impact of SOFR on leveraged loans\", \"look into Jane Doe\", \"assess \
                   a $5m term loan for Acme Corp\") launches it through the same use cases as launch-workflow and \
                   answers with `workflow_launched` and `workflow_result`; a question about the agreement in \
                   `document_context` or `document_id` is answered from its fields, cited in \
                   `metadata.document.cited_fields`. With `LLM_BASE_URL` set a language model answers and launches \
                   by tool calling (`metadata.engine: llm`, token usage in `metadata.usage`); without one — or when \
                   it fails before launching — the deterministic grammar does (`metadata.engine: deterministic`, \
                   `metadata.fallback_reason`). A launch that cannot run (unknown company, provider down) is \
                   explained in `response` and `metadata.launch_error`, with status 200. The user's message and the \
                   reply are stored in the session. Counts against the per-user workflow rate limit.",
    responses(
        (status = 200, description = "The reply", body = ChatResponseBody),
        (status = 400, description = "Blank message, malformed session id, history role other than user/assistant, invalid field", body = ErrorBody),
        (status = 404, description = "The session belongs to another user, or the document is not readable by the caller", body = ErrorBody),
    ))]
pub async fn chat(
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let body: ChatRequestBody = body.parse()?;
    let turn = ChatTurn::new(
        &body.message,
        body.session_id.as_deref(),
        body.deal_id,
        body.document_id,
        body.conversation_history.as_ref(),
        body.document_context.as_ref(),
    )?;
    let session_id = turn.session_id.clone();
    let reply = state.chat.chat(caller, turn, &request_id).await?;
    let metadata = &reply.metadata;
    let tokens = |key: &str| metadata["usage"][key].as_u64().unwrap_or(0);
    // Token usage goes to the log as well, for cost accounting per request.
    tracing::info!(
        engine = metadata["engine"].as_str().unwrap_or_default(),
        model = metadata["model"].as_str().unwrap_or_default(),
        prompt_tokens = tokens("prompt_tokens"),
        completion_tokens = tokens("completion_tokens"),
        workflow_launched = reply.workflow_launched.unwrap_or_default(),
        "chat turn answered"
    );
    Ok(warp::reply::json(&ChatResponseBody {
        status: "success",
        session_id,
        response: reply.response,
        workflow_launched: reply.workflow_launched,
        workflow_result: reply.workflow_result,
        cdm_events: reply.cdm_events,
        metadata: reply.metadata,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LaunchWorkflowRequest {
    /// `people`, `research` or `quant`.
    pub workflow_type: String,
    /// The session to record the launch in, as for a chat turn: one of the caller's, or an id no
    /// session has yet (the launch starts it); absent: a new session under a generated id (in the
    /// answer). Another user's session is a 404 and is never written.
    pub session_id: Option<String>,
    /// people: `person_name` (required), `context`, `company`, `role`, `location` (one line each, at
    /// most 120 characters: they tell the person apart from namesakes), `ipip_responses` (50 answers
    /// 1–5: an array in item order or an object keyed "1"…"50"). research: `query` (required), `max_iterations` (1–20).
    /// quant: `analysis_type` (required) `company` with `company_name` (required), `ticker`, `focus`
    /// (`comprehensive`, `financial`, `market`, `risk`); `market` with `query` (required), `time_range`
    /// (`1M`…`5Y`); `loan_application` with `borrower_name`, `loan_amount` (USD > 0; both required),
    /// `loan_type`, `currency` (`USD` only). Unknown parameters are refused.
    #[schema(value_type = Object)]
    pub workflow_params: Value,
    pub deal_id: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct LaunchWorkflowResponse {
    pub status: &'static str,
    /// The session the launch was recorded in.
    pub session_id: String,
    pub workflow_type: &'static str,
    pub message: String,
    /// quant: `{analysis_id, status, analysis_type, deal_id, result}`; research: `{research_id, status}`
    /// (queued); people: `{people_id, status, person_name, research_summary, psychometric_profile,
    /// credit_assessment, …}`.
    #[schema(value_type = Object)]
    pub workflow_result: Value,
    #[schema(value_type = Vec<Object>)]
    pub cdm_events: Vec<Value>,
}

/// POST /api/digitizer-chatbot/launch-workflow
#[utoipa::path(post, path = "/api/digitizer-chatbot/launch-workflow", tag = "chatbot",
    request_body = LaunchWorkflowRequest,
    description = "Launches a workflow with explicit parameters through the same use cases as the dedicated endpoints: \
                   a quantitative analysis runs to completion and is stored (as POST /api/quantitative-analysis/*); \
                   research is queued and completes in the background (poll /api/deep-research/results/{id}); the \
                   people workflow researches the person, scores IPIP-50 answers when given, assesses the character \
                   dimension, and stores the result (GET /api/people/results/{id}). The launch is recorded in the \
                   session. Counts against the per-user workflow rate limit.",
    responses(
        (status = 200, description = "Launched", body = LaunchWorkflowResponse),
        (status = 400, description = "Unknown workflow_type, missing or wrong workflow_params (named in `detail.field`, e.g. `workflow_params.company_name`), unknown company", body = ErrorBody),
        (status = 404, description = "The session belongs to another user", body = ErrorBody),
        (status = 502, description = "A market data provider failed", body = ErrorBody),
    ))]
pub async fn launch_workflow(
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let body: LaunchWorkflowRequest = body.parse()?;
    let (session_id, launch) = state
        .chat
        .launch(
            caller,
            body.session_id.as_deref(),
            &body.workflow_type,
            &body.workflow_params,
            body.deal_id,
            &request_id,
        )
        .await?;
    Ok(warp::reply::json(&LaunchWorkflowResponse {
        status: "success",
        session_id,
        workflow_type: launch.workflow_type,
        message: launch.message,
        workflow_result: launch.workflow_result,
        cdm_events: launch.cdm_events,
    }))
}

fn session_body(session: &ChatSession) -> Value {
    let messages: Vec<Value> = session
        .messages
        .iter()
        .map(|message| {
            json!({
                "role": message.role,
                "content": message.content,
                "workflow_launched": message.workflow_launched,
                "workflow_result": message.workflow_result,
                "at": rfc3339(message.at),
            })
        })
        .collect();
    json!({
        "status": "success",
        "session_id": session.id,
        "owner_id": session.owner.as_uuid(),
        "created_at": rfc3339(session.created_at),
        "updated_at": rfc3339(session.updated_at),
        "messages": messages,
    })
}

/// POST /api/digitizer-chatbot/sessions
#[utoipa::path(post, path = "/api/digitizer-chatbot/sessions", tag = "chatbot",
    description = "Starts an empty chat session owned by the caller, under an id the service generates (a random \
                   UUID): pass it as `session_id` to chat and launch-workflow. An addition to the interface \
                   specification for clients that want an id nobody can have taken first; clients may also name \
                   their own id in a chat turn or launch (an id no session has yet starts a session for the \
                   caller), or send none (a session is started under a generated id). Counts against the \
                   per-user workflow rate limit.",
    responses(
        (status = 201, description = "The new session: `{status, session_id, owner_id, created_at, updated_at, messages: []}`", body = Object),
    ))]
pub async fn start_session(state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let session = state.chat.start_session(caller).await?;
    Ok(warp::reply::with_status(warp::reply::json(&session_body(&session)), warp::http::StatusCode::CREATED))
}

/// GET /api/digitizer-chatbot/sessions/{session_id}
#[utoipa::path(get, path = "/api/digitizer-chatbot/sessions/{session_id}", tag = "chatbot",
    params(("session_id" = String, Path, description = "The session's id (generated by the service or chosen by the client that started it)")),
    description = "The session (`{status, session_id, owner_id, created_at, updated_at, messages}`) with its stored \
                   messages, oldest first: `{role, content, workflow_launched, workflow_result \
                   ({analysis_id|research_id|people_id, status}), at}`. Another user's (or unknown) session: 404, \
                   except for admins, who may read any session (and chat only in their own: `owner_id` says whose).",
    responses(
        (status = 200, description = "The session", body = Object),
        (status = 404, description = "No such session", body = ErrorBody),
    ))]
pub async fn get_session(session_id: String, state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let session = state.chat.session(caller, &session_id).await?;
    Ok(warp::reply::json(&session_body(&session)))
}

/// `?page=&limit=` of the session list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SessionListQuery {
    /// 1-based page, default 1.
    pub page: u32,
    /// Sessions per page, 1–200, default 50.
    pub limit: u32,
}

impl SessionListQuery {
    /// Reads the raw query string; the use case checks the ranges.
    ///
    /// # Errors
    /// A 400 naming the parameter that is not a whole number or not `page` or `limit`.
    fn parse(raw: &str) -> Result<Self, ApiError> {
        let params = ListingParams::parse_pages(raw)?;
        Ok(Self { page: params.page, limit: params.limit })
    }
}

/// One session of the list.
#[derive(Serialize, ToSchema)]
pub struct SessionListItem {
    pub session_id: String,
    /// Who started the session: the caller, except in an administrator's list.
    pub owner_id: uuid::Uuid,
    pub created_at: String,
    /// The last activity: when the last message was stored (the creation, for an empty session).
    /// The list is ordered by it, latest first.
    pub updated_at: String,
    /// Messages stored in the session, the user's and the assistant's.
    pub message_count: u64,
    /// The first user message on one line (whitespace runs as one space), at most 80 characters:
    /// a longer one is cut after a whole word and ends in "…". Null while the session holds no
    /// user message (empty, or only direct launches).
    pub title: Option<String>,
}

impl From<&SessionSummary> for SessionListItem {
    fn from(summary: &SessionSummary) -> Self {
        Self {
            session_id: summary.id.clone(),
            owner_id: summary.owner.as_uuid(),
            created_at: rfc3339(summary.created_at),
            updated_at: rfc3339(summary.updated_at),
            message_count: summary.message_count,
            title: summary.title(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SessionListResponse {
    pub status: &'static str,
    pub sessions: Vec<SessionListItem>,
    pub page: u32,
    pub limit: u32,
    /// Sessions on all pages.
    pub total: u64,
    pub total_pages: u64,
}

/// GET /api/digitizer-chatbot/sessions
#[utoipa::path(get, path = "/api/digitizer-chatbot/sessions", tag = "chatbot", params(SessionListQuery),
    description = "The caller's chat sessions (everyone's for admins, as every list of the API; admins may read any \
                   session but chat only in their own, and `owner_id` tells them apart), the most recently active \
                   first: by `updated_at` (the last message stored), then by `session_id`. Each with its message \
                   count and a `title` made from its first user message. Paged by offset: a session that becomes \
                   active while a client pages moves to the first page, so a later page may repeat a session \
                   already seen (never skip one): clients that load more pages drop repeated ids.",
    responses(
        (status = 200, description = "One page", body = SessionListResponse),
        (status = 400, description = "`page` below 1, `limit` outside 1-200, not a whole number, or an unknown parameter (`detail.field` names it)", body = ErrorBody),
    ))]
pub async fn list_sessions(state: Arc<AppState>, caller: Principal, query: String) -> Result<impl Reply, ApiError> {
    let query = SessionListQuery::parse(&query)?;
    let (sessions, total) = state.chat.sessions(caller, query.page, query.limit).await?;
    Ok(warp::reply::json(&SessionListResponse {
        status: "success",
        sessions: sessions.iter().map(SessionListItem::from).collect(),
        page: query.page,
        limit: query.limit,
        total,
        total_pages: total.div_ceil(u64::from(query.limit.max(1))),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_list_query_defaults_and_names_the_bad_parameter() {
        assert_eq!(SessionListQuery::parse("").expect("empty"), SessionListQuery { page: 1, limit: 50 });
        assert_eq!(SessionListQuery::parse("page=3&limit=20").expect("both"), SessionListQuery { page: 3, limit: 20 });
        let message = |raw: &str| SessionListQuery::parse(raw).expect_err(raw).message().to_owned();
        assert!(message("page=two").starts_with("invalid page: 'two' is not a whole number"));
        assert!(message("limit=-1").starts_with("invalid limit"));
        assert!(message("deal_id=7").starts_with("invalid deal_id: unknown parameter"), "sessions have no deal");
    }
}
