//! Filters shared by the resource modules: state injection, bearer authentication checked against
//! the access table, and the per-user rate limit with its `X-RateLimit-*` headers.

use std::sync::Arc;

use warp::filters::path::FullPath;
use warp::http::{HeaderValue, Method};
use warp::reply::{Reply, Response};
use warp::{Filter, Rejection};

use super::AppState;
use super::error::{ApiError, reject};
use crate::domain::auth::{Access, Operation, Principal, required_access};
use crate::domain::ratelimit::RateDecision;

/// Injects the shared state.
pub fn with_state(state: Arc<AppState>) -> impl Filter<Extract = (Arc<AppState>,), Error = std::convert::Infallible> + Clone {
    warp::any().map(move || state.clone())
}

/// The caller, from `Authorization: Bearer <access token>`, allowed by the access table for this
/// method and path; 401 (with `WWW-Authenticate`) or 403 otherwise.
pub fn authenticated(state: Arc<AppState>) -> impl Filter<Extract = (Principal,), Error = Rejection> + Clone {
    warp::method()
        .and(warp::path::full())
        .and(warp::header::optional::<String>("authorization"))
        .and_then(move |method: Method, path: FullPath, authorization: Option<String>| {
            let state = state.clone();
            async move { authorize(&state, &method, path.as_str(), authorization.as_deref()).map_err(reject) }
        })
}

fn authorize(state: &AppState, method: &Method, path: &str, authorization: Option<&str>) -> Result<Principal, ApiError> {
    let Some(header) = authorization else {
        return Err(ApiError::unauthorized("missing bearer token", false));
    };
    let token = header
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|token| !token.is_empty())
        .ok_or_else(|| ApiError::unauthorized("Authorization header must be 'Bearer <token>'", false))?;
    let principal = state
        .auth
        .authenticate(token)
        .map_err(|e| ApiError::unauthorized(e.to_string(), true))?;
    tracing::Span::current().record("user_id", tracing::field::display(principal.user_id));

    let operation = if method == Method::GET || method == Method::HEAD {
        Operation::Read
    } else {
        Operation::Write
    };
    match required_access(operation, path) {
        Access::AtLeast(role) if principal.role < role => Err(ApiError::forbidden(format!(
            "this operation needs the {role} role; you have {}",
            principal.role
        ))),
        _ => Ok(principal),
    }
}

/// The authenticated caller, after taking one slot of their per-user budget on the agent workflow
/// endpoints. Over budget: 429 with `Retry-After` and the `X-RateLimit-*` headers.
pub fn rate_limited(state: Arc<AppState>) -> impl Filter<Extract = (Principal, RateDecision), Error = Rejection> + Clone {
    authenticated(state.clone())
        .and_then(move |principal: Principal| {
            let state = state.clone();
            async move {
                let now_ms = state.clock.now_ms();
                let decision = state
                    .rate_limiter
                    .try_acquire(&format!("workflow:{}", principal.user_id), state.rate_policy, now_ms)
                    .await
                    .map_err(|e| reject(ApiError::internal(e.into())))?;
                if !decision.allowed {
                    let error = ApiError::too_many_requests(
                        format!("rate limit of {} requests per minute exceeded", decision.limit),
                        decision.retry_after_secs(now_ms),
                    );
                    return Err(reject(with_rate_limit_headers(error, decision)));
                }
                Ok((principal, decision))
            }
        })
        .untuple_one()
}

/// Adds `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds when
/// the next slot frees) to an error.
fn with_rate_limit_headers(error: ApiError, decision: RateDecision) -> ApiError {
    rate_limit_headers(decision)
        .into_iter()
        .fold(error, |error, (name, value)| error.with_header(warp::http::HeaderName::from_static(name), &value))
}

/// Adds the `X-RateLimit-*` headers to any reply of a rate-limited endpoint.
pub fn decorate_with_rate_limit(decision: RateDecision, reply: impl Reply) -> Response {
    let mut response = reply.into_response();
    for (name, value) in rate_limit_headers(decision) {
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

fn rate_limit_headers(decision: RateDecision) -> [(&'static str, String); 3] {
    [
        ("x-ratelimit-limit", decision.limit.to_string()),
        ("x-ratelimit-remaining", decision.remaining.to_string()),
        ("x-ratelimit-reset", decision.reset_at_secs().to_string()),
    ]
}
