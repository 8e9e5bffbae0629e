//! The metrics listener's one route, `GET /metrics`: the Prometheus text exposition of
//! [`ServiceMetrics`]. It is served on `METRICS_ADDR` only, a listener of its own, so the API's
//! clients (and its load balancer) never reach it and scraping needs no token.

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::header::CONTENT_TYPE;
use warp::reply::{Reply, Response};

use super::error;
use crate::adapters::metrics::{self, ServiceMetrics};

pub fn routes(metrics: Arc<ServiceMetrics>) -> BoxedFilter<(Response,)> {
    warp::path!("metrics")
        .and(warp::get())
        .then(move || {
            let metrics = metrics.clone();
            async move {
                warp::reply::with_header(metrics.render().await, CONTENT_TYPE, metrics::CONTENT_TYPE).into_response()
            }
        })
        .recover(error::recover)
        .unify()
        .boxed()
}
