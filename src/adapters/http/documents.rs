//! `POST /api/extract` and `/api/documents/*`: credit-agreement extraction, documents with their
//! versions, the review workflow, and listing with search.

use std::sync::Arc;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::auth::respond;
use super::error::{ApiError, ErrorBody, RawJson, raw_json_body};
use super::filters::{
    authenticated, decorate_with_rate_limit, document_writes_limited, rate_limited, request_id, with_state,
};
use super::paging::rfc3339;
use super::unstorable::refuse_unstorable;
use super::uploads::{body_limit, is_multipart, parse_upload_form};
use crate::domain::auth::Principal;
use crate::domain::documents::amends::AmendedAgreement;
use crate::domain::documents::service::LINKED_RUNS_LIMIT;
use crate::domain::documents::{
    AgreementSummary, AnalysedText, Document, DocumentChange, DocumentError, DocumentId, DocumentListing,
    DocumentQuery, DocumentVersion, ExtractionRecord, OriginalFile, QuotaExceeded, ReviewAction, ReviewEvent,
    analyse_source, analyse_text,
};
use crate::domain::intake::{MediaType, ReadError};
use crate::domain::people::runs::PeopleRecord;
use crate::domain::quant::runs::AnalysisRecord;
use crate::domain::ratelimit::RateDecision;
use crate::domain::research::runs::ResearchRun;
use crate::ports::page_fetch::FetchError;

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    // JSON escaping can make a text longer on the wire; the text itself is measured after parsing.
    let json_limit = (state.extract_max_bytes as u64).saturating_mul(2).saturating_add(64 * 1024);
    let limit = body_limit(json_limit, state.upload_max_bytes);
    let extract = warp::path!("api" / "extract")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(rate_limited(state.clone()))
        .and(request_id())
        .and(raw_json_body(limit))
        .then(extract_route);
    let documents = warp::path!("api" / "documents");
    let create = documents
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(document_writes_limited(state.clone()))
        .and(request_id())
        .and(raw_json_body(limit))
        .then(|state, caller, decision, request_id, body| async move {
            decorate_with_rate_limit(decision, respond(create_document(state, caller, request_id, body).await))
        });
    let import = warp::path!("api" / "documents" / "import")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(document_writes_limited(state.clone()))
        .and(request_id())
        .and(raw_json_body(state.max_body_bytes))
        .then(|state, caller, decision, request_id, body| async move {
            decorate_with_rate_limit(decision, respond(import_document(state, caller, request_id, body).await))
        });
    let list = documents
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .then(list_documents);
    let get = warp::path!("api" / "documents" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(get_document);
    let add_version = warp::path!("api" / "documents" / String / "versions")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(document_writes_limited(state.clone()))
        .and(request_id())
        .and(raw_json_body(limit))
        .then(|id, state, caller, decision, request_id, body| async move {
            decorate_with_rate_limit(decision, respond(add_version(id, state, caller, request_id, body).await))
        });
    let original = warp::path!("api" / "documents" / String / "versions" / String / "original")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(download_original);
    let delete = warp::path!("api" / "documents" / String)
        .and(warp::delete())
        .and(with_state(state.clone()))
        .and(document_writes_limited(state.clone()))
        .then(|id, state, caller, decision| async move {
            decorate_with_rate_limit(decision, respond(delete_document(id, state, caller).await))
        });
    let review = warp::path!("api" / "documents" / String / "workflow")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(document_writes_limited(state.clone()))
        .and(request_id())
        .and(raw_json_body(state.max_body_bytes))
        .then(|id, state, caller, decision, request_id, body| async move {
            decorate_with_rate_limit(decision, respond(review_document(id, state, caller, request_id, body).await))
        });
    extract
        .or(create)
        .unify()
        .or(import)
        .unify()
        .or(list.map(respond))
        .unify()
        .or(get.map(respond))
        .unify()
        .or(add_version)
        .unify()
        .or(review)
        .unify()
        .or(original.map(respond))
        .unify()
        .or(delete)
        .unify()
        .boxed()
}

/// 403 for a write beyond the owner's storage quota (documents and statement sets alike), with
/// the figures in `detail`: `{quota, limit, used, requested}`.
pub(super) fn quota_exceeded(exceeded: QuotaExceeded) -> ApiError {
    ApiError::forbidden(exceeded.to_string()).with_detail(serde_json::json!({
        "quota": exceeded.kind.as_str(),
        "limit": exceeded.limit,
        "used": exceeded.used,
        "requested": exceeded.requested,
    }))
}

/// The whole answer to an import the archive did not deliver.
const IMPORT_FAILED: &str = "the filing could not be fetched from the EDGAR archive; check the URL or retry later";

impl From<DocumentError> for ApiError {
    fn from(error: DocumentError) -> Self {
        let message = error.to_string();
        match error {
            DocumentError::Validation { field, message } => ApiError::invalid_field(field, message),
            DocumentError::TooLarge { max, .. } => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, message)
                .with_detail(serde_json::json!({ "field": "text", "max_bytes": max })),
            DocumentError::NotFound => ApiError::not_found(message),
            DocumentError::QuotaExceeded(exceeded) => quota_exceeded(exceeded),
            DocumentError::Forbidden(_) => ApiError::forbidden(message),
            DocumentError::Conflict(_) => ApiError::new(StatusCode::CONFLICT, message),
            DocumentError::Store(error) => ApiError::internal(error.into()),
            DocumentError::UnsupportedMediaType { .. } => ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, message)
                .with_detail(serde_json::json!({ "accepted": MediaType::accepted() })),
            DocumentError::Import(FetchError::TooLarge { limit_bytes }) => {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, message)
                    .with_detail(serde_json::json!({ "field": "url", "max_bytes": limit_bytes }))
            }
            DocumentError::Import(FetchError::Unsupported(_)) => {
                ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, message)
                    .with_detail(serde_json::json!({ "accepted": MediaType::accepted() }))
            }
            // Whatever went wrong on the way (a redirect out of the archive, DNS, a connection, a
            // status), the client learns only that the archive did not deliver: the cause is logged.
            DocumentError::Import(cause) => {
                ApiError::bad_gateway(IMPORT_FAILED, cause.into()).with_detail(serde_json::json!({ "field": "url" }))
            }
            DocumentError::Unreadable(ReadError::Busy) => ApiError::service_unavailable(message, 5),
            DocumentError::Unreadable(ReadError::Failed(reason)) => ApiError::internal(anyhow::anyhow!(reason)),
            DocumentError::Unreadable(error) => {
                let mut detail = serde_json::json!({ "field": "file", "reason": unreadable_reason(&error) });
                if let ReadError::ImageOnly { pages, total } = &error {
                    detail["pages_without_text"] = serde_json::json!(pages);
                    detail["pages"] = serde_json::json!(total);
                }
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message).with_detail(detail)
            }
        }
    }
}

/// A word for what is wrong with a file, for clients to branch on.
fn unreadable_reason(error: &ReadError) -> &'static str {
    match error {
        ReadError::Corrupt { .. } | ReadError::ParserPanicked { .. } => "corrupt",
        ReadError::Encrypted => "encrypted",
        ReadError::ImageOnly { .. } => "image_only",
        ReadError::Expands { .. } => "expands_too_far",
        ReadError::TextTooLong { .. } => "text_too_long",
        ReadError::TimedOut { .. } => "timed_out",
        ReadError::TooCostly { .. } => "too_costly",
        ReadError::OutOfMemory { .. } => "reader_limit",
        ReadError::Busy | ReadError::Failed(_) => "unavailable",
    }
}

/// Reads a file `caller` sent and extracts its text, off the async workers like [`analyse`].
async fn analyse_file(state: &AppState, caller: Principal, file: OriginalFile) -> Result<AnalysedText, ApiError> {
    let source = state.documents.read_upload(caller, file).await?;
    let max = state.extract_max_bytes;
    let analysed = tokio::task::spawn_blocking(move || analyse_source(source, max))
        .await
        .map_err(|e| ApiError::internal(anyhow::anyhow!("extraction task failed: {e}")))??;
    Ok(state.documents.assist(analysed).await)
}

/// Extraction is CPU work proportional to the text: it runs on the blocking pool, not on the
/// workers that serve other requests.
async fn analyse(state: &AppState, text: String) -> Result<AnalysedText, ApiError> {
    let max = state.extract_max_bytes;
    let analysed = tokio::task::spawn_blocking(move || analyse_text(text, max))
        .await
        .map_err(|e| ApiError::internal(anyhow::anyhow!("extraction task failed: {e}")))??;
    Ok(state.documents.assist(analysed).await)
}

/// The document after a change, with the CDM events recording it.
fn change_reply(change: DocumentChange, status: StatusCode) -> impl Reply {
    let body = DocumentChangeResponse {
        status: "success",
        document: DocumentBody::from(&change.document),
        cdm_events: change.cdm_events,
    };
    warp::reply::with_status(warp::reply::json(&body), status)
}

fn parse_document_id(raw: &str) -> Result<DocumentId, ApiError> {
    // Unknown and malformed ids answer alike: there is no such document.
    raw.parse::<i64>().ok().and_then(DocumentId::new).ok_or_else(|| ApiError::not_found("document not found"))
}

async fn extract_route(
    state: Arc<AppState>,
    caller: Principal,
    decision: RateDecision,
    request_id: String,
    body: RawJson,
) -> Response {
    decorate_with_rate_limit(decision, respond(extract(state, caller, request_id, body).await))
}

/// POST /api/extract
#[utoipa::path(post, path = "/api/extract", tag = "documents",
    request_body(content((ExtractRequest = "application/json"), (FileForm = "multipart/form-data"))),
    description = "Extracts a credit agreement from text, with the provenance of every value, without storing it. \
                   Counts against the per-user workflow rate limit. The text may be at most EXTRACT_MAX_BYTES \
                   (default 5 MiB; 413 above).",
    responses(
        (status = 200, description = "Extracted", body = ExtractResponse),
        (status = 413, description = "Text too long", body = ErrorBody),
    ))]
pub async fn extract(
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let analysed = if is_multipart(&body) {
        let form = parse_upload_form(body, state.upload_max_bytes).await?;
        analyse_file(&state, caller, form.file).await?
    } else {
        let request: ExtractRequest = body.parse()?;
        analyse(&state, request.text).await?
    };
    let extracted = state.documents.extracted(analysed, &request_id);
    Ok(warp::reply::json(&ExtractResponse {
        status: "success",
        agreement: extracted.record.agreement.clone(),
        extraction: extracted.record.report.clone(),
        cdm_events: extracted.cdm_events,
    }))
}

/// POST /api/documents
#[utoipa::path(post, path = "/api/documents", tag = "documents",
    request_body(content((CreateDocumentRequest = "application/json"), (DocumentForm = "multipart/form-data"))),
    description = "Extracts and stores a document as version 1, in review state `draft`.",
    responses(
        (status = 201, description = "Stored", body = DocumentChangeResponse),
        (status = 413, description = "Text too long", body = ErrorBody),
    ))]
pub async fn create_document(
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let (title, deal_id, analysed) = if is_multipart(&body) {
        let form = parse_upload_form(body, state.upload_max_bytes).await?;
        // Without a title part the file's name (without its extension) is the title.
        let title = form.title.clone().or_else(|| {
            form.file_name.as_deref().map(|name| name.rsplit_once('.').map_or(name, |(stem, _)| stem).to_owned())
        });
        let title = title.filter(|t| !t.trim().is_empty()).ok_or_else(|| {
            ApiError::invalid_field("title", "must not be empty (send a title part, or a file with a name)")
        })?;
        (title, form.deal_id, analyse_file(&state, caller, form.file).await?)
    } else {
        let request: CreateDocumentRequest = body.parse()?;
        if request.title.trim().is_empty() {
            return Err(ApiError::invalid_field("title", "must not be empty"));
        }
        (request.title, request.deal_id, analyse(&state, request.text).await?)
    };
    let change = state.documents.create(caller, &title, deal_id, analysed, &request_id).await?;
    Ok(change_reply(change, StatusCode::CREATED))
}

/// POST /api/documents/import
#[utoipa::path(post, path = "/api/documents/import", tag = "documents", request_body = ImportDocumentRequest,
    description = "Fetches a filing from SEC EDGAR's archive (EDGAR_ARCHIVE_URL; other URLs are refused) and stores \
                   it as an upload of the same file would be: the original kept, its text extracted. The URL is \
                   parsed first and must have the archive's scheme, host and port and a normalised path in its \
                   folder; encoded dots, slashes, backslashes and percent signs are refused. Every redirect must \
                   pass the same rule. The fetch goes through the page fetcher's guard (public addresses only) \
                   with SEC's User-Agent (SEC_USER_AGENT), UPLOAD_MAX_BYTES and IMPORT_TIMEOUT.",
    responses(
        (status = 201, description = "Stored", body = DocumentChangeResponse),
        (status = 400, description = "Not an EDGAR archive URL", body = ErrorBody),
        (status = 413, description = "Filing larger than UPLOAD_MAX_BYTES", body = ErrorBody),
        (status = 415, description = "Not a document format", body = ErrorBody),
        (status = 422, description = "Unreadable file", body = ErrorBody),
        (status = 502, description = "EDGAR unreachable, refused, or redirected out of the archive (the cause is logged, not sent)", body = ErrorBody),
    ))]
pub async fn import_document(
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let request: ImportDocumentRequest = body.parse()?;
    if let Some(deal_id) = request.deal_id
        && deal_id <= 0
    {
        return Err(ApiError::invalid_field("deal_id", "must be a positive integer"));
    }
    let (file, file_name) = state.documents.fetch_filing(&request.url).await?;
    let title = request.title.filter(|t| !t.trim().is_empty()).unwrap_or(file_name);
    let analysed = analyse_file(&state, caller, file).await?;
    let change = state.documents.create(caller, &title, request.deal_id, analysed, &request_id).await?;
    Ok(change_reply(change, StatusCode::CREATED))
}

/// POST /api/documents/{document_id}/versions
#[utoipa::path(post, path = "/api/documents/{document_id}/versions", tag = "documents",
    request_body(content((AddVersionRequest = "application/json"), (FileForm = "multipart/form-data"))),
    params(("document_id" = i64, Path, description = "Document id")),
    description = "Adds the next version and makes it current. A document under review returns to `draft`; an \
                   archived one takes no versions (409).",
    responses(
        (status = 201, description = "Stored", body = DocumentChangeResponse),
        (status = 404, description = "No such document", body = ErrorBody),
        (status = 409, description = "Archived, or changed meanwhile", body = ErrorBody),
    ))]
pub async fn add_version(
    raw_id: String,
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let id = parse_document_id(&raw_id)?;
    let analysed = if is_multipart(&body) {
        let form = parse_upload_form(body, state.upload_max_bytes).await?;
        analyse_file(&state, caller, form.file).await?
    } else {
        let request: AddVersionRequest = body.parse()?;
        analyse(&state, request.text).await?
    };
    let change = state.documents.add_version(caller, id, analysed, &request_id).await?;
    Ok(change_reply(change, StatusCode::CREATED))
}

/// POST /api/documents/{document_id}/workflow
#[utoipa::path(post, path = "/api/documents/{document_id}/workflow", tag = "documents",
    request_body = ReviewRequest,
    params(("document_id" = i64, Path, description = "Document id")),
    description = "Moves the review: `submit` (analyst or admin) draft|rejected → submitted; `approve`/`reject` \
                   (admin) submitted → approved|rejected; `publish` (admin) approved → published; `archive` \
                   (admin) any → archived. Wrong role: 403; an action that does not apply: 409.",
    responses(
        (status = 200, description = "Moved", body = DocumentChangeResponse),
        (status = 404, description = "No such document", body = ErrorBody),
        (status = 409, description = "Not possible from the current state", body = ErrorBody),
    ))]
pub async fn review_document(
    raw_id: String,
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let id = parse_document_id(&raw_id)?;
    let request: ReviewRequest = body.parse()?;
    let change = state.documents.review(caller, id, request.action.into(), request.comment, &request_id).await?;
    Ok(change_reply(change, StatusCode::OK))
}

/// GET /api/documents
#[utoipa::path(get, path = "/api/documents", tag = "documents", params(ListQuery),
    description = "The caller's documents (all documents for admins), most recently updated first. `search` \
                   keeps documents whose title, parties, borrower or current text contain every word.",
    responses(
        (status = 200, description = "One page", body = DocumentListResponse),
        (status = 400, description = "Invalid page or limit", body = ErrorBody),
    ))]
pub async fn list_documents(state: Arc<AppState>, caller: Principal, query: String) -> Result<impl Reply, ApiError> {
    let query = ListQuery::parse(&query)?;
    let page = query.page.unwrap_or(1);
    let limit = query.limit.unwrap_or(DocumentQuery::DEFAULT_LIMIT);
    let found = state.documents.list(caller, page, limit, query.search).await?;
    let total_pages = found.total.div_ceil(u64::from(limit));
    Ok(warp::reply::json(&DocumentListResponse {
        status: "success",
        documents: found.documents.iter().map(DocumentListItem::from).collect(),
        page,
        limit,
        total: found.total,
        total_pages,
    }))
}

/// GET /api/documents/{document_id}
#[utoipa::path(get, path = "/api/documents/{document_id}", tag = "documents",
    params(("document_id" = i64, Path, description = "Document id")),
    description = "The document with every version (text, agreement, extraction report), its review workflow \
                   and the workflow data linked to it. Someone else's document answers 404.",
    responses(
        (status = 200, description = "The document", body = DocumentResponse),
        (status = 404, description = "No such document", body = ErrorBody),
    ))]
pub async fn get_document(raw_id: String, state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let id = parse_document_id(&raw_id)?;
    let document = state.documents.get(caller, id).await?;
    let analyses = state.documents.linked_analyses(caller, &document).await?;
    let mut body = DocumentBody::from(&document);
    body.workflow_data.analyses = analyses.iter().map(linked_analysis).collect();
    if let Some(deal_id) = document.deal_id {
        let (runs, _) = state.research.list(caller, Some(deal_id), 1, LINKED_RUNS_LIMIT).await?;
        body.workflow_data.research = runs.iter().map(linked_research).collect();
        let (people, _) = state.people.list(caller, Some(deal_id), 1, LINKED_RUNS_LIMIT).await?;
        body.workflow_data.people = people.iter().map(linked_person).collect();
    }
    let amended = state.documents.amended_agreement(caller, &document).await?;
    body.workflow_data.amended_agreement = amended.as_ref().map(AmendedAgreementBody::from);
    Ok(warp::reply::json(&DocumentResponse { status: "success", document: body }))
}

/// DELETE /api/documents/{document_id}
#[utoipa::path(delete, path = "/api/documents/{document_id}", tag = "documents",
    params(("document_id" = i64, Path, description = "Document id")),
    description = "Deletes the document with every version, uploaded file and review step (the owner or an \
                   administrator). What it was stays in the audit trail (`GET /api/admin/deletions`: title, \
                   deal, each version's SHA-256 and size, the review history, who deleted it and when), not \
                   its text; its owner's storage quota gets back what it took. Analyses of its deal keep the \
                   terms they stored. Counts in the document-write budget. Unknown or someone else's: 404.",
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such document", body = ErrorBody),
        (status = 429, description = "Document-write budget exhausted", body = ErrorBody),
    ))]
pub async fn delete_document(raw_id: String, state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let id = parse_document_id(&raw_id)?;
    state.documents.delete(caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// GET /api/documents/{document_id}/versions/{version}/original
#[utoipa::path(get, path = "/api/documents/{document_id}/versions/{version}/original", tag = "documents",
    params(("document_id" = i64, Path, description = "Document id"), ("version" = i32, Path, description = "Version number")),
    description = "The file a version was read from, byte for byte as uploaded, with its media type; \
                   `X-Content-SHA256` carries its SHA-256. Always sent as an attachment (never rendered by a \
                   browser). 404 for a version sent as text.",
    responses(
        (status = 200, description = "The file", content_type = "application/octet-stream"),
        (status = 404, description = "No such document, version or file", body = ErrorBody),
    ))]
pub async fn download_original(
    raw_id: String,
    raw_version: String,
    state: Arc<AppState>,
    caller: Principal,
) -> Result<impl Reply, ApiError> {
    let id = parse_document_id(&raw_id)?;
    let version = raw_version
        .parse::<i32>()
        .ok()
        .filter(|v| *v >= 1)
        .ok_or_else(|| ApiError::not_found("document version not found"))?;
    let (info, bytes) = state.documents.original(caller, id, version).await?;
    let mut response = Response::new(bytes.into());
    let headers = response.headers_mut();
    let file_name = format!("document-{id}-v{version}.{}", info.media_type.extension());
    for (name, value) in [
        ("content-type", info.media_type.mime().to_owned()),
        ("content-disposition", format!("attachment; filename=\"{file_name}\"")),
        ("x-content-sha256", info.sha256),
        // An uploaded HTML file is never run as a page of this origin, even if opened directly.
        ("content-security-policy", "sandbox".to_owned()),
    ] {
        if let Ok(value) = warp::http::HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    Ok(response)
}

/// A quantitative analysis as listed beside a document.
fn linked_analysis(record: &AnalysisRecord) -> Value {
    serde_json::json!({
        "analysis_id": record.id.to_string(),
        "analysis_type": record.kind.as_str(),
        "status": record.status.as_str(),
        "created_at": rfc3339(record.created_at),
        "completed_at": record.completed_at.map(rfc3339),
    })
}

/// A people-workflow result as listed beside a document.
fn linked_person(record: &PeopleRecord) -> Value {
    serde_json::json!({
        "people_id": record.id.to_string(),
        "person_name": record.person_name,
        "status": "completed",
        "score_band": record.result["credit_assessment"]["score_band"],
        "created_at": rfc3339(record.created_at),
    })
}

/// A research run as listed beside a document.
fn linked_research(run: &ResearchRun) -> Value {
    serde_json::json!({
        "research_id": run.id.to_string(),
        "query": run.query,
        "status": run.status.as_str(),
        "created_at": rfc3339(run.created_at),
        "completed_at": run.completed_at.map(rfc3339),
    })
}

// ---- bodies ------------------------------------------------------------------------------------

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractRequest {
    /// The document text (UTF-8), at most EXTRACT_MAX_BYTES.
    pub text: String,
}

#[derive(Serialize, ToSchema)]
pub struct ExtractResponse {
    #[schema(example = "success")]
    pub status: &'static str,
    /// The credit agreement, with CDM attribute names where CDM has them.
    #[schema(value_type = Object)]
    pub agreement: Value,
    /// `{status: success|partial_data_missing|irrelevant_document, missing_fields, warnings, provenance}`;
    /// `provenance` maps the JSON pointer of every value in `agreement` to `{start, end, quote}` (byte
    /// offsets into the text).
    #[schema(value_type = Object)]
    pub extraction: Value,
    /// CDM 7 WorkflowSteps: the extraction, then the contract formation.
    #[schema(value_type = Vec<Object>)]
    pub cdm_events: Vec<Value>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateDocumentRequest {
    /// 1–500 characters.
    pub title: String,
    pub text: String,
    /// Links the document to a deal.
    pub deal_id: Option<i64>,
}

/// A file upload: one `file` part of type `application/pdf`, `text/html`, `text/plain` or
/// `application/vnd.openxmlformats-officedocument.wordprocessingml.document` (at most
/// UPLOAD_MAX_BYTES; the type is checked against the bytes).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct FileForm {
    #[schema(content_media_type = "application/octet-stream", value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// A document upload: the `file` part, and optional `title` (default: the file's name) and
/// `deal_id` parts.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct DocumentForm {
    #[schema(content_media_type = "application/octet-stream", value_type = String, format = Binary)]
    pub file: Vec<u8>,
    pub title: Option<String>,
    pub deal_id: Option<i64>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportDocumentRequest {
    /// A filing in SEC EDGAR's archive, e.g.
    /// `https://www.sec.gov/Archives/edgar/data/1018724/000119312523000849/d429499dex101.htm`.
    pub url: String,
    /// Defaults to the file name of the URL.
    pub title: Option<String>,
    pub deal_id: Option<i64>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddVersionRequest {
    pub text: String,
}

#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ApiReviewAction {
    Submit,
    Approve,
    Reject,
    Publish,
    Archive,
}

impl From<ApiReviewAction> for ReviewAction {
    fn from(action: ApiReviewAction) -> Self {
        match action {
            ApiReviewAction::Submit => ReviewAction::Submit,
            ApiReviewAction::Approve => ReviewAction::Approve,
            ApiReviewAction::Reject => ReviewAction::Reject,
            ApiReviewAction::Publish => ReviewAction::Publish,
            ApiReviewAction::Archive => ReviewAction::Archive,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewRequest {
    pub action: ApiReviewAction,
    /// At most 2,000 characters.
    pub comment: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// 1-based page, default 1.
    pub page: Option<u32>,
    /// Documents per page, 1–200, default 50.
    pub limit: Option<u32>,
    /// Words that must all occur in the title, parties, borrower or text.
    pub search: Option<String>,
}

impl ListQuery {
    /// Parses the query string, naming the parameter that is wrong.
    fn parse(raw: &str) -> Result<Self, ApiError> {
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(raw).map_err(|e| ApiError::invalid_field("query", e.to_string()))?;
        let mut query = ListQuery { page: None, limit: None, search: None };
        for (name, value) in pairs {
            let number = |field: &str| {
                value
                    .parse::<u32>()
                    .map_err(|_| ApiError::invalid_field(field, format!("'{value}' is not a whole number")))
            };
            match name.as_str() {
                "page" => query.page = Some(number("page")?),
                "limit" => query.limit = Some(number("limit")?),
                "search" => {
                    refuse_unstorable("search", &value)?;
                    query.search = Some(value);
                }
                other => {
                    return Err(ApiError::invalid_field(other, "unknown parameter: expected page, limit or search"));
                }
            }
        }
        Ok(query)
    }
}

#[derive(Serialize, ToSchema)]
pub struct MoneyBody {
    /// Decimal amount as a string, exact.
    #[schema(value_type = String, example = "500000000")]
    pub amount: Decimal,
    #[schema(example = "USD")]
    pub currency: String,
}

#[derive(Serialize, ToSchema)]
pub struct DocumentListItem {
    pub document_id: i64,
    pub title: String,
    pub deal_id: Option<i64>,
    pub borrower: Option<String>,
    /// The facilities' commitments added up when they share one currency; null otherwise.
    pub total_commitment: Option<MoneyBody>,
    /// GoverningLawEnum code.
    pub governing_law: Option<String>,
    /// YYYY-MM-DD.
    pub agreement_date: Option<String>,
    pub current_version: i32,
    pub workflow_state: String,
    pub updated_at: String,
}

fn summary_fields(summary: &AgreementSummary) -> (Option<String>, Option<MoneyBody>, Option<String>, Option<String>) {
    (
        summary.borrower.clone(),
        summary.total_commitment.as_ref().map(|m| MoneyBody { amount: m.amount, currency: m.currency.clone() }),
        summary.governing_law.clone(),
        summary.agreement_date.map(|d| d.to_string()),
    )
}

impl From<&DocumentListing> for DocumentListItem {
    fn from(listing: &DocumentListing) -> Self {
        let (borrower, total_commitment, governing_law, agreement_date) = summary_fields(&listing.summary);
        Self {
            document_id: listing.id.get(),
            title: listing.title.clone(),
            deal_id: listing.deal_id,
            borrower,
            total_commitment,
            governing_law,
            agreement_date,
            current_version: listing.current_version,
            workflow_state: listing.state.to_string(),
            updated_at: rfc3339(listing.updated_at),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DocumentListResponse {
    pub status: &'static str,
    pub documents: Vec<DocumentListItem>,
    pub page: u32,
    pub limit: u32,
    /// Matching documents on all pages.
    pub total: u64,
    pub total_pages: u64,
}

#[derive(Serialize, ToSchema)]
pub struct VersionBody {
    pub version: i32,
    pub text: String,
    pub text_sha256: String,
    pub author_id: String,
    pub created_at: String,
    #[schema(value_type = Object)]
    pub agreement: Value,
    /// The extraction report: status, missing_fields, warnings, provenance (each quote with its
    /// `page` when the file had pages) and, for an uploaded file, `source`.
    #[schema(value_type = Object)]
    pub extraction: Value,
    /// The uploaded file this version was read from (`media_type`, `size_bytes`, `sha256`), to be
    /// downloaded at `/api/documents/{id}/versions/{version}/original`; null for text sent as text.
    #[schema(value_type = Option<Object>)]
    pub original: Option<Value>,
    /// Byte offsets in `text` where each page starts (PDFs, paged text filings); empty otherwise.
    pub page_starts: Vec<usize>,
}

impl From<&DocumentVersion> for VersionBody {
    fn from(version: &DocumentVersion) -> Self {
        let ExtractionRecord { agreement, report, .. } = &version.extraction;
        Self {
            version: version.version,
            text: version.text.clone(),
            text_sha256: version.text_sha256.clone(),
            author_id: version.author.to_string(),
            created_at: rfc3339(version.created_at),
            agreement: agreement.clone(),
            extraction: report.clone(),
            original: version.original.as_ref().map(|o| o.to_json()),
            page_starts: version.pages.starts().to_vec(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct ReviewEventBody {
    /// Null for the creation.
    pub from: Option<String>,
    pub to: String,
    /// `create`, `new_version`, `submit`, `approve`, `reject`, `publish`, `archive`.
    pub action: String,
    pub actor_id: String,
    pub at: String,
    pub comment: Option<String>,
}

impl From<&ReviewEvent> for ReviewEventBody {
    fn from(event: &ReviewEvent) -> Self {
        Self {
            from: event.from.map(|s| s.to_string()),
            to: event.to.to_string(),
            action: event.action.clone(),
            actor_id: event.actor.to_string(),
            at: rfc3339(event.at),
            comment: event.comment.clone(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct WorkflowBody {
    pub state: String,
    pub history: Vec<ReviewEventBody>,
}

/// Agent workflow runs linked to the document's deal that the caller may see. `analyses` lists the
/// quantitative analyses, `research` the research runs and `people` the people-workflow results with
/// the same `deal_id`. For an amendment, `amended_agreement` is the document of the deal that it
/// amends (the one dated as the amendment says the amended agreement is) with what the amendment
/// changes in it.
#[derive(Serialize, ToSchema)]
pub struct WorkflowDataBody {
    #[schema(value_type = Vec<Object>)]
    pub analyses: Vec<Value>,
    #[schema(value_type = Vec<Object>)]
    pub research: Vec<Value>,
    #[schema(value_type = Vec<Object>)]
    pub people: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amended_agreement: Option<AmendedAgreementBody>,
}

/// The agreement an amendment amends and the changes, term by term.
#[derive(Serialize, ToSchema)]
pub struct AmendedAgreementBody {
    pub document_id: i64,
    pub title: String,
    /// The version of the amended agreement compared (its current one).
    pub version: i32,
    /// ISO 8601.
    pub agreement_date: String,
    pub changes: Vec<TermChangeBody>,
}

/// One term an amendment changes.
#[derive(Serialize, ToSchema)]
pub struct TermChangeBody {
    /// JSON pointer of the term in the amended agreement's extraction (`/facilities/0/terminationDate`),
    /// when it is one of its facility terms.
    pub field: Option<String>,
    /// The term as the amendment names it.
    pub term: Option<String>,
    /// The value before, in the agreement's form (ISO date, `{value, currency}`, decimal fraction);
    /// null when neither document states it.
    #[schema(value_type = Object)]
    pub before: Value,
    #[schema(value_type = Object)]
    pub after: Value,
    /// `stated` (the amendment says it replaces the value) or `terms_as_amended` (the amendment
    /// document states the term, e.g. in an attached conformed copy, and it differs).
    pub source: &'static str,
}

impl From<&AmendedAgreement> for AmendedAgreementBody {
    fn from(amended: &AmendedAgreement) -> Self {
        Self {
            document_id: amended.document_id.get(),
            title: amended.title.clone(),
            version: amended.version,
            agreement_date: amended.agreement_date.to_string(),
            changes: amended
                .changes
                .iter()
                .map(|c| TermChangeBody {
                    field: c.field.clone(),
                    term: c.term.clone(),
                    before: c.before.clone(),
                    after: c.after.clone(),
                    source: c.source.as_str(),
                })
                .collect(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DocumentBody {
    pub document_id: i64,
    pub title: String,
    pub deal_id: Option<i64>,
    pub owner_id: String,
    pub borrower: Option<String>,
    pub total_commitment: Option<MoneyBody>,
    pub governing_law: Option<String>,
    pub agreement_date: Option<String>,
    pub current_version: i32,
    pub workflow_state: String,
    pub created_at: String,
    pub updated_at: String,
    /// Oldest first; the last is current.
    pub versions: Vec<VersionBody>,
    pub workflow: WorkflowBody,
    pub workflow_data: WorkflowDataBody,
}

impl From<&Document> for DocumentBody {
    fn from(document: &Document) -> Self {
        let current = document.current_version();
        let summary = current.map(|v| v.extraction.summary.clone()).unwrap_or_default();
        let (borrower, total_commitment, governing_law, agreement_date) = summary_fields(&summary);
        Self {
            document_id: document.id.get(),
            title: document.title.clone(),
            deal_id: document.deal_id,
            owner_id: document.owner.to_string(),
            borrower,
            total_commitment,
            governing_law,
            agreement_date,
            current_version: current.map_or(0, |v| v.version),
            workflow_state: document.state.to_string(),
            created_at: rfc3339(document.created_at),
            updated_at: rfc3339(document.updated_at),
            versions: document.versions.iter().map(VersionBody::from).collect(),
            workflow: WorkflowBody {
                state: document.state.to_string(),
                history: document.history.iter().map(ReviewEventBody::from).collect(),
            },
            workflow_data: WorkflowDataBody {
                analyses: Vec::new(),
                research: Vec::new(),
                people: Vec::new(),
                amended_agreement: None,
            },
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DocumentResponse {
    pub status: &'static str,
    pub document: DocumentBody,
}

#[derive(Serialize, ToSchema)]
pub struct DocumentChangeResponse {
    pub status: &'static str,
    pub document: DocumentBody,
    #[schema(value_type = Vec<Object>)]
    pub cdm_events: Vec<Value>,
}
