//! Deals on the wire: `/api/deals/{deal_id}`, the deal's workspace (everything linked to it), and
//! `/api/deals/{deal_id}/covenant-tests` — run a covenant test of the deal's agreement against the
//! borrower's statements, list the deal's tests, read one back.

use std::sync::Arc;

use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::auth::respond;
use super::error::{ApiError, ErrorBody, RawJson, raw_json_body};
use super::filters::{authenticated, decorate_with_rate_limit, rate_limited, request_id, with_state};
use crate::domain::auth::Principal;
use crate::domain::deals::service::{CovenantTestRequest, DealError};
use crate::domain::deals::stored::{CovenantTestId, CovenantTestRecord};

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let run = warp::path!("api" / "deals" / String / "covenant-tests")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(rate_limited(state.clone()))
        .and(request_id())
        .and(raw_json_body(state.max_body_bytes))
        .then(|deal_id, state, caller, decision, request_id: String, body| async move {
            decorate_with_rate_limit(
                decision,
                respond(run_covenant_test(deal_id, state, caller, request_id, body).await),
            )
        });
    let list = warp::path!("api" / "deals" / String / "covenant-tests")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(|deal_id, state, caller| async move { respond(list_covenant_tests(deal_id, state, caller).await) });
    let get = warp::path!("api" / "deals" / String / "covenant-tests" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(|deal_id, test_id, state, caller| async move {
            respond(get_covenant_test(deal_id, test_id, state, caller).await)
        });
    let workspace = warp::path!("api" / "deals" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state))
        .then(|deal_id, state, caller| async move { respond(get_deal(deal_id, state, caller).await) });
    run.or(list).unify().or(get).unify().or(workspace).unify().boxed()
}

/// GET /api/deals/{deal_id}
#[utoipa::path(get, path = "/api/deals/{deal_id}", tag = "deals",
    params(("deal_id" = i64, Path, description = "The deal")),
    description = "The deal's workspace: everything linked to the deal that you may see (yours; all for \
                   administrators), per kind — `documents` (title, borrower, agreement date, total commitment, current \
                   version, review state), `analyses`, `research`, `people`, `statement_sets`, `covenant_tests`, \
                   `chat_sessions` (sessions that launched a workflow on the deal) — each item with its `id`, `kind`, \
                   `status` and `created_at`, the latest 100 per kind with `total`. 404 when you may see nothing \
                   linked to the deal.",
    responses(
        (status = 200, description = "{status, deal_id, documents: {total, items}, analyses, research, people, statement_sets, covenant_tests, chat_sessions}", body = Object),
        (status = 400, description = "A deal id that is not a positive integer", body = ErrorBody),
        (status = 404, description = "Nothing linked to the deal that you may see", body = ErrorBody),
    ))]
pub async fn get_deal(raw_deal_id: String, state: Arc<AppState>, caller: Principal) -> Result<impl Reply, ApiError> {
    let deal_id = deal_id(&raw_deal_id)?;
    Ok(warp::reply::json(&state.deals.workspace(caller, deal_id).await?))
}

impl From<DealError> for ApiError {
    fn from(error: DealError) -> Self {
        match error {
            DealError::Validation { field, message } => ApiError::invalid_field(&field, message),
            DealError::NoCovenants(message) => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message.clone())
                .with_detail(json!({ "reason": "no_financial_covenants", "message": message })),
            DealError::NotFound(what) => ApiError::not_found(format!("{what} not found")),
            error @ DealError::NoStatements => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, error.to_string())
                .with_detail(json!({ "reason": "no_statement_set" })),
            DealError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

/// A deal id from the path: a positive integer, else 400.
fn deal_id(raw: &str) -> Result<i64, ApiError> {
    raw.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| ApiError::invalid_field("deal_id", "must be a positive integer"))
}

/// POST /api/deals/{deal_id}/covenant-tests
#[utoipa::path(post, path = "/api/deals/{deal_id}/covenant-tests", tag = "deals",
    params(("deal_id" = i64, Path, description = "The deal whose agreement is tested")),
    request_body(content = Object, description = "`{document_id?, statement_set_id? | financials?, period_end?}`: the \
        agreement (default: the deal's most recently changed document whose extraction states financial covenants), \
        the statements (a stored set, or `financials` as the analyses take them) and the test date (default: the \
        statements' latest period)."),
    description = "Tests the agreement's financial covenants against the borrower's statements for one test period \
                   (the fiscal year ending then, or the trailing twelve months built from interim periods), with the \
                   agreement's own definitions where it states them (cash netting and its cap, total vs senior vs \
                   secured debt, EBITDA add-backs, the test period) and the market-standard ones otherwise, each \
                   covenant's `formula` saying which. Each covenant: `name`, `kind`, `operator`, `threshold` in force \
                   with its `quote` and the step-down `schedule`, `actual` with `formula` and `inputs` (each with its \
                   source), `status` (pass, breach, not_testable), `headroom_pct`, `ebitda_cushion`, `missing_inputs`; \
                   a covenant on an amount (`min_liquidity`, `min_net_worth`, `max_capex`) has `currency`, the unit of \
                   its `threshold` and `actual` (ratios have none). \
                   Amendments of the deal that restate a covenant apply from their own dates. Stored and listed.",
    responses(
        (status = 201, description = "Tested and stored: {status, test_id, deal_id, document_id, document_version, period_end, covenants, summary, findings, cdm_events}", body = Object),
        (status = 400, description = "Neither or both of statement_set_id and financials, a bad date, statements that do not hold together, a document of another deal", body = ErrorBody),
        (status = 404, description = "A document or statement set you may not see", body = ErrorBody),
        (status = 422, description = "The agreement states no financial covenants", body = ErrorBody),
    ))]
pub async fn run_covenant_test(
    raw_deal_id: String,
    state: Arc<AppState>,
    caller: Principal,
    request_id: String,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    let deal_id = deal_id(&raw_deal_id)?;
    let request: CovenantTestRequest = body.parse()?;
    let record = state.deals.run_test(caller, deal_id, request, &request_id).await?;
    Ok(warp::reply::with_status(warp::reply::json(&record.body), StatusCode::CREATED))
}

/// One row of a deal's test list.
fn listed(record: &CovenantTestRecord) -> serde_json::Value {
    json!({
        "test_id": record.id.to_string(),
        "deal_id": record.deal_id,
        "document_id": record.document_id.get(),
        "document_version": record.document_version,
        "statement_set_id": record.statement_set_id.map(|s| s.to_string()),
        "period_end": record.period_end.to_string(),
        "compliance": record.compliance,
        "summary": record.body["summary"],
        // Enough of each covenant to draw its history against its schedule without reading every test.
        "covenants": record.body["covenants"].as_array().map(|covenants| covenants.iter().map(|c| json!({
            "name": c["name"],
            "kind": c["kind"],
            "operator": c["operator"],
            "currency": c.get("currency"),
            "threshold": c["threshold"],
            "actual": c["actual"],
            "status": c["status"],
            "headroom_pct": c["headroom_pct"],
        })).collect::<Vec<_>>()),
        "created_at": record.body["created_at"],
    })
}

/// GET /api/deals/{deal_id}/covenant-tests
#[utoipa::path(get, path = "/api/deals/{deal_id}/covenant-tests", tag = "deals",
    params(("deal_id" = i64, Path, description = "The deal")),
    description = "The deal's covenant tests you may see (yours; all for administrators), newest first: the latest 100 \
                   with `total`, each with its covenants' threshold, actual, status and headroom (their history).",
    responses(
        (status = 200, description = "{deal_id, total, covenant_tests: [{test_id, period_end, compliance, summary, …}]}", body = Object),
        (status = 400, description = "A deal id that is not a positive integer", body = ErrorBody),
    ))]
pub async fn list_covenant_tests(
    raw_deal_id: String,
    state: Arc<AppState>,
    caller: Principal,
) -> Result<impl Reply, ApiError> {
    let deal_id = deal_id(&raw_deal_id)?;
    let (tests, total) = state.deals.list_tests(caller, deal_id).await?;
    Ok(warp::reply::json(&json!({
        "deal_id": deal_id,
        "total": total,
        "covenant_tests": tests.iter().map(listed).collect::<Vec<_>>(),
    })))
}

/// GET /api/deals/{deal_id}/covenant-tests/{test_id}
#[utoipa::path(get, path = "/api/deals/{deal_id}/covenant-tests/{test_id}", tag = "deals",
    params(("deal_id" = i64, Path, description = "The deal"), ("test_id" = String, Path, description = "As returned when the test ran")),
    description = "A stored covenant test, as it was answered. Unknown, of another deal, or someone else's: 404.",
    responses(
        (status = 200, description = "The test", body = Object),
        (status = 404, description = "No such test", body = ErrorBody),
    ))]
pub async fn get_covenant_test(
    raw_deal_id: String,
    raw_test_id: String,
    state: Arc<AppState>,
    caller: Principal,
) -> Result<impl Reply, ApiError> {
    let deal_id = deal_id(&raw_deal_id)?;
    let id: CovenantTestId = raw_test_id.parse().map_err(|_| ApiError::not_found("covenant test not found"))?;
    let record = state.deals.get_test(caller, deal_id, id).await?;
    Ok(warp::reply::json(&record.body))
}
