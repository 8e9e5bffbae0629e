//! Filters shared by the resource modules: state injection, bearer authentication checked against
//! the access table, and the per-user rate limit with its `X-RateLimit-*` headers.

use std::sync::Arc;

use warp::filters::BoxedFilter;
use warp::filters::path::FullPath;
use warp::http::{HeaderValue, Method};
use warp::reply::{Reply, Response};
use warp::{Filter, Rejection};

use super::AppState;
use super::error::{ApiError, RawJson, raw_json_body, reject};
use crate::domain::auth::{Access, AuthError, Operation, Principal, User, required_access};
use crate::domain::ratelimit::{RateDecision, RatePolicy};

/// Injects the shared state.
pub fn with_state(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Arc<AppState>,), Error = std::convert::Infallible> + Clone {
    warp::any().map(move || state.clone())
}

/// The request's id (set by the server loop on every request), for the CDM events' message id.
pub fn request_id() -> impl Filter<Extract = (String,), Error = Rejection> + Clone {
    warp::header::optional::<String>("x-request-id").map(|id: Option<String>| id.unwrap_or_default())
}

/// `POST <path>` of a workflow: authenticated, one slot of the caller's workflow budget (whose
/// `X-RateLimit-*` headers every answer carries, streams included), the request id, and the raw
/// JSON body, handed to `handler`.
pub fn workflow_post<F, Fut>(state: &Arc<AppState>, path: BoxedFilter<()>, handler: F) -> BoxedFilter<(Response,)>
where
    F: Fn(Arc<AppState>, Principal, String, RawJson) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Response> + Send + 'static,
{
    path.and(warp::post())
        .and(with_state(state.clone()))
        .and(rate_limited(state.clone()))
        .and(request_id())
        .and(raw_json_body(state.max_body_bytes))
        .then(move |state, caller, decision: RateDecision, request_id, body| {
            let handler = handler.clone();
            async move { decorate_with_rate_limit(decision, handler(state, caller, request_id, body).await) }
        })
        .boxed()
}

/// The caller, from `Authorization: Bearer <access token>`, allowed by the access table for this
/// method and path; 401 (with `WWW-Authenticate`) or 403 otherwise.
pub fn authenticated(state: Arc<AppState>) -> impl Filter<Extract = (Principal,), Error = Rejection> + Clone {
    authenticated_user(state).map(|(principal, _): (Principal, User)| principal)
}

/// As [`authenticated`], with the stored user the check read.
pub fn authenticated_user(
    state: Arc<AppState>,
) -> impl Filter<Extract = ((Principal, User),), Error = Rejection> + Clone {
    warp::method().and(warp::path::full()).and(warp::header::optional::<String>("authorization")).and_then(
        move |method: Method, path: FullPath, authorization: Option<String>| {
            let state = state.clone();
            async move { authorize(&state, &method, path.as_str(), authorization.as_deref()).await.map_err(reject) }
        },
    )
}

async fn authorize(
    state: &AppState,
    method: &Method,
    path: &str,
    authorization: Option<&str>,
) -> Result<(Principal, User), ApiError> {
    let Some(header) = authorization else {
        return Err(ApiError::unauthorized("missing bearer token", false));
    };
    let token = header
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|token| !token.is_empty())
        .ok_or_else(|| ApiError::unauthorized("Authorization header must be 'Bearer <token>'", false))?;
    let (principal, user) = state.auth.authenticate_user(token).await.map_err(|error| match error {
        AuthError::Unavailable(cause) => ApiError::internal(cause),
        AuthError::AccountDisabled => ApiError::forbidden(error.to_string()),
        other => ApiError::unauthorized(other.to_string(), true),
    })?;
    tracing::Span::current().record("user_id", tracing::field::display(principal.user_id));

    let operation = if method == Method::GET || method == Method::HEAD { Operation::Read } else { Operation::Write };
    match required_access(operation, path) {
        Access::AtLeast(role) if principal.role < role => {
            Err(ApiError::forbidden(format!("this operation needs the {role} role; you have {}", principal.role)))
        }
        _ => Ok((principal, user)),
    }
}

/// The authenticated caller, after taking one slot of their per-user budget on the agent workflow
/// endpoints. Over budget: 429 with `Retry-After` and the `X-RateLimit-*` headers.
pub fn rate_limited(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Principal, RateDecision), Error = Rejection> + Clone {
    limited_by(state, "workflow", |state| state.rate_policy)
}

/// The caller, as [`authenticated`], within their budget of document writes (separate from the
/// workflow budget); 429 with the rate-limit headers beyond it.
pub fn document_writes_limited(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Principal, RateDecision), Error = Rejection> + Clone {
    limited_by(state, "document-write", |state| state.document_write_policy)
}

/// The caller, within the budget `policy` keyed `budget:{user id}`.
fn limited_by(
    state: Arc<AppState>,
    budget: &'static str,
    policy: fn(&AppState) -> RatePolicy,
) -> impl Filter<Extract = (Principal, RateDecision), Error = Rejection> + Clone {
    authenticated(state.clone())
        .and_then(move |principal: Principal| {
            let state = state.clone();
            async move {
                let now_ms = state.clock.now_ms();
                let decision = state
                    .rate_limiter
                    .try_acquire(&format!("{budget}:{}", principal.user_id), policy(&state), now_ms)
                    .await
                    .map_err(|e| reject(ApiError::internal(e.into())))?;
                if !decision.allowed {
                    if let Some(metrics) = &state.metrics {
                        metrics.observe_rate_limit_rejection(budget);
                    }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use warp::Filter;
    use warp::http::StatusCode;

    use super::*;
    use crate::adapters::argon2_hasher::Argon2Hasher;
    use crate::adapters::clock::SystemClock;
    use crate::adapters::jwt::JwtIssuer;
    use crate::adapters::memory::{MemoryRateLimiter, MemoryStore};
    use crate::domain::auth::service::AuthPorts;
    use crate::domain::auth::{AuthService, AuthSettings, Role};
    use crate::domain::ratelimit::RatePolicy;

    const LIMIT: u32 = 60;

    type TestResponse = warp::http::Response<bytes::Bytes>;

    fn state() -> Arc<AppState> {
        let store = Arc::new(MemoryStore::new());
        let auth = AuthService::new(
            AuthPorts {
                users: store.clone(),
                refresh_tokens: store.clone(),
                nonces: store.clone(),
                tokens: Arc::new(JwtIssuer::hs256(&[7; 32], "creditflow", "creditflow-api")),
                hasher: Arc::new(Argon2Hasher::fast_for_tests()),
                login_attempts: Arc::new(MemoryRateLimiter::new()),
                clock: Arc::new(SystemClock),
            },
            AuthSettings {
                issuer: "creditflow".into(),
                audience: "creditflow-api".into(),
                access_ttl: time::Duration::hours(1),
                refresh_ttl: time::Duration::days(1),
                siwe_domain: "localhost".into(),
                siwe_uri: "http://localhost".into(),
                siwe_chain_ids: vec![1],
                siwe_nonce_ttl: time::Duration::minutes(5),
                siwe_clock_skew: time::Duration::seconds(30),
                wallet_default_role: Role::Analyst,
                sign_in_throttle: crate::domain::auth::ThrottlePolicy {
                    per_account_and_client: RatePolicy::per_minute(5),
                    per_client: RatePolicy::per_minute(20),
                    per_account: RatePolicy::per_minute(50),
                },
            },
        );
        let config = crate::config::Config::for_tests(&[]).expect("test configuration");
        let mut state = crate::startup::use_cases(&config, &crate::startup::Adapters::in_memory(), auth);
        state.rate_policy = RatePolicy::per_minute(LIMIT);
        state.store_health = store;
        state.max_body_bytes = 1024;
        state.extract_max_bytes = 1024;
        Arc::new(state)
    }

    async fn token(state: &AppState, email: &str) -> String {
        state.auth.create_user(email, "a long enough password".into(), Role::Analyst).await.expect("create");
        let signed_in = state
            .auth
            .login(email, "a long enough password".into(), crate::domain::auth::SignInContext::default())
            .await
            .expect("login");
        format!("Bearer {}", signed_in.access_token)
    }

    /// A stand-in workflow endpoint: the filter under test in front of a trivial handler.
    fn workflow_route(
        state: Arc<AppState>,
    ) -> impl Filter<Extract = (Response,), Error = std::convert::Infallible> + Clone {
        warp::path!("api" / "quantitative-analysis" / "company")
            .and(warp::post())
            .and(rate_limited(state))
            .map(|_principal, decision| decorate_with_rate_limit(decision, warp::reply::json(&"done")))
            .recover(super::super::error::recover)
            .unify()
    }

    async fn call(
        route: &(impl Filter<Extract = (Response,), Error = std::convert::Infallible> + Clone + 'static),
        bearer: &str,
    ) -> TestResponse {
        warp::test::request()
            .method("POST")
            .path("/api/quantitative-analysis/company")
            .header("authorization", bearer)
            .reply(route)
            .await
    }

    fn header(response: &TestResponse, name: &str) -> String {
        response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
    }

    #[tokio::test]
    async fn sixty_requests_pass_then_429_with_headers_and_retry_after() {
        let state = state();
        let bearer = token(&state, "a@example.com").await;
        let route = workflow_route(state);
        for i in 0..LIMIT {
            let response = call(&route, &bearer).await;
            assert_eq!(response.status(), StatusCode::OK);
            assert_eq!(header(&response, "x-ratelimit-limit"), "60");
            assert_eq!(header(&response, "x-ratelimit-remaining"), (LIMIT - i - 1).to_string());
            assert!(header(&response, "x-ratelimit-reset").parse::<i64>().is_ok());
        }
        let refused = call(&route, &bearer).await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(header(&refused, "x-ratelimit-remaining"), "0");
        let retry_after: i64 = header(&refused, "retry-after").parse().expect("Retry-After");
        assert!((1..=60).contains(&retry_after));
        let reset: i64 = header(&refused, "x-ratelimit-reset").parse().expect("reset");
        assert!(reset > time::OffsetDateTime::now_utc().unix_timestamp());
        let body: serde_json::Value = serde_json::from_slice(refused.body()).expect("json");
        assert_eq!(body["status"], "error");
    }

    #[tokio::test]
    async fn of_200_concurrent_requests_by_one_user_exactly_60_succeed() {
        let state = state();
        let bearer = token(&state, "b@example.com").await;
        let route = workflow_route(state);
        let requests = (0..200).map(|_| {
            let route = route.clone();
            let bearer = bearer.clone();
            tokio::spawn(async move { call(&route, &bearer).await.status() })
        });
        let mut ok = 0;
        let mut limited = 0;
        for request in requests {
            match request.await.expect("join") {
                StatusCode::OK => ok += 1,
                StatusCode::TOO_MANY_REQUESTS => limited += 1,
                other => panic!("unexpected {other}"),
            }
        }
        assert_eq!((ok, limited), (60, 140));
    }

    #[tokio::test]
    async fn each_user_has_a_separate_budget() {
        let state = state();
        let first = token(&state, "c@example.com").await;
        let second = token(&state, "d@example.com").await;
        let route = workflow_route(state);
        for _ in 0..LIMIT {
            call(&route, &first).await;
        }
        assert_eq!(call(&route, &first).await.status(), StatusCode::TOO_MANY_REQUESTS);
        let other = call(&route, &second).await;
        assert_eq!(other.status(), StatusCode::OK);
        assert_eq!(header(&other, "x-ratelimit-remaining"), "59");
    }

    #[tokio::test]
    async fn an_unauthenticated_request_is_401_and_takes_no_budget() {
        let state = state();
        let route = workflow_route(state);
        let response = call(&route, "Bearer not-a-token").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert!(header(&response, "www-authenticate").starts_with("Bearer"));
    }
}
