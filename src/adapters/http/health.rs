//! Probes: liveness and readiness, without a token.

use std::sync::Arc;
use std::time::Duration;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::dto::HealthResponse;
use super::filters::with_state;

/// A store that has not answered within this is not ready.
const READINESS_TIMEOUT: Duration = Duration::from_secs(2);

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let live = warp::path!("health" / "live").and(warp::get()).map(live);
    let ready = warp::path!("health" / "ready").and(warp::get()).and(with_state(state)).then(ready);
    live.or(ready).unify().boxed()
}

/// GET /health/live
#[utoipa::path(get, path = "/health/live", tag = "health",
    description = "200 while the process runs.",
    responses((status = 200, description = "Alive", body = HealthResponse)))]
pub fn live() -> Response {
    warp::reply::json(&HealthResponse { status: "ok" }).into_response()
}

/// GET /health/ready
#[utoipa::path(get, path = "/health/ready", tag = "health",
    description = "200 when the store answers within 2 s, 503 otherwise.",
    responses(
        (status = 200, description = "Ready", body = HealthResponse),
        (status = 503, description = "The store does not answer", body = super::error::ErrorBody),
    ))]
pub async fn ready(state: Arc<AppState>) -> Response {
    match tokio::time::timeout(READINESS_TIMEOUT, state.store_health.ping()).await {
        Ok(Ok(())) => warp::reply::json(&HealthResponse { status: "ok" }).into_response(),
        Ok(Err(error)) => {
            tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "readiness: store unavailable");
            not_ready("store unavailable")
        }
        Err(_) => {
            tracing::warn!("readiness: store did not answer within {READINESS_TIMEOUT:?}");
            not_ready("store did not answer in time")
        }
    }
}

fn not_ready(message: &str) -> Response {
    super::error::ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message).into_response()
}
