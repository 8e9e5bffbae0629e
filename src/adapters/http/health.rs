//! Probes: liveness and readiness, without a token.

use std::sync::Arc;
use std::time::Duration;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::dto::{DbSslReportResponse, HealthResponse};
use super::filters::with_state;
use crate::domain::health::db_ssl::{DbSslProbeFailure, DbSslStatus, assess_db_ssl, report_without_database};

/// A store that has not answered within this is not ready.
const READINESS_TIMEOUT: Duration = Duration::from_secs(2);

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let live = warp::path!("health" / "live").and(warp::get()).map(live);
    let ready = warp::path!("health" / "ready").and(warp::get()).and(with_state(state.clone())).then(ready);
    let database_ssl =
        warp::path!("health" / "database" / "ssl").and(warp::get()).and(with_state(state)).then(database_ssl);
    live.or(ready).unify().or(database_ssl).unify().boxed()
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

/// GET /health/database/ssl
#[utoipa::path(get, path = "/health/database/ssl", tag = "health",
    description = "The TLS state of the live pooled database connection as the server reports it \
                   (`pg_stat_ssl`). 200 when healthy (or `not_applicable` without a database); 503 with \
                   `status: unhealthy` when the database does not answer within 2 s or TLS is required but \
                   not in use.",
    responses(
        (status = 200, description = "Healthy, or no database configured", body = DbSslReportResponse),
        (status = 503, description = "Unhealthy", body = DbSslReportResponse),
    ))]
pub async fn database_ssl(state: Arc<AppState>) -> Response {
    let report = match &state.database {
        None => report_without_database(),
        Some(database) => {
            let probe = match tokio::time::timeout(READINESS_TIMEOUT, database.inspector.inspect()).await {
                Ok(Ok(observation)) => Ok(observation),
                Ok(Err(error)) => {
                    tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "database SSL probe failed");
                    Err(DbSslProbeFailure::Unavailable)
                }
                Err(_) => Err(DbSslProbeFailure::TimedOut { seconds: READINESS_TIMEOUT.as_secs() }),
            };
            assess_db_ssl(database.expectation, probe)
        }
    };
    let status = if report.status == DbSslStatus::Unhealthy { StatusCode::SERVICE_UNAVAILABLE } else { StatusCode::OK };
    warp::reply::with_status(warp::reply::json(&DbSslReportResponse::from(report)), status).into_response()
}
