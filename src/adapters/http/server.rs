//! The HTTP server loop: hyper connections serving the warp routes, a request id on every
//! request and response, one access-log line per request, and graceful shutdown (stop accepting,
//! let in-flight requests finish within a deadline).

use std::convert::Infallible;
use std::future::Future;
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower_service::Service as _;
use tracing::Instrument as _;
use warp::filters::BoxedFilter;
use warp::http::header::ALLOW;
use warp::http::{HeaderValue, Request, StatusCode};
use warp::reply::Response;

const REQUEST_ID_HEADER: &str = "x-request-id";

/// Accepts connections on `listener` until `shutdown` resolves, then waits up to `grace` for open
/// connections to finish their requests.
pub async fn serve(
    listener: TcpListener,
    routes: BoxedFilter<(Response,)>,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(error) => {
                    // Usually EMFILE: back off instead of spinning.
                    tracing::error!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let warp_service = warp::service(routes.clone());
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let mut warp_service = warp_service.clone();
            handle(request, move |request| warp_service.call(request))
        });
        let connection = auto::Builder::new(TokioExecutor::new())
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(error = %error, "connection closed with an error");
            }
        });
    }
    drop(listener);
    tracing::info!(grace_seconds = grace.as_secs(), "shutting down: no new connections, finishing in-flight requests");
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("connections still open after the shutdown deadline; closing them");
    }
}

/// Wraps one request: assigns its id, runs it inside a span carrying that id (so every log line
/// of the request has it), sets the id on the response and writes the access-log line.
async fn handle<F, Fut>(mut request: Request<Incoming>, call: F) -> Result<Response, Infallible>
where
    F: FnOnce(Request<Incoming>) -> Fut,
    Fut: Future<Output = Result<Response, Infallible>>,
{
    let request_id = incoming_request_id(&request).unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let header_value = HeaderValue::from_str(&request_id).unwrap_or_else(|_| HeaderValue::from_static("invalid"));
    request.headers_mut().insert(REQUEST_ID_HEADER, header_value.clone());
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        method = %request.method(),
        path = %request.uri().path(),
        user_id = tracing::field::Empty,
    );
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    async move {
        let mut response = call(request).await?;
        response.headers_mut().insert(REQUEST_ID_HEADER, header_value);
        if response.status() == StatusCode::METHOD_NOT_ALLOWED
            && let Some(allowed) = super::openapi::allowed_methods(&path)
        {
            response.headers_mut().insert(ALLOW, HeaderValue::from_static(allowed));
        }
        tracing::info!(
            status = response.status().as_u16(),
            latency_us = started.elapsed().as_micros() as u64,
            "request completed"
        );
        Ok(response)
    }
    .instrument(span)
    .await
}

/// A client-supplied id is echoed when it is short and made of safe characters; anything else
/// is replaced, so ids cannot inject into logs.
fn incoming_request_id<B>(request: &Request<B>) -> Option<String> {
    let raw = request.headers().get(REQUEST_ID_HEADER)?.to_str().ok()?;
    let valid = !raw.is_empty()
        && raw.len() <= 128
        && raw.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    valid.then(|| raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_header(value: &str) -> Request<()> {
        Request::builder().header(REQUEST_ID_HEADER, value).body(()).expect("request")
    }

    #[test]
    fn a_safe_incoming_request_id_is_kept() {
        assert_eq!(incoming_request_id(&with_header("abc-123_x.y:z")), Some("abc-123_x.y:z".into()));
    }

    #[test]
    fn an_unsafe_or_oversized_request_id_is_replaced() {
        assert_eq!(incoming_request_id(&with_header("a b")), None);
        assert_eq!(incoming_request_id(&with_header("line\"break")), None);
        assert_eq!(incoming_request_id(&with_header(&"a".repeat(129))), None);
        assert_eq!(incoming_request_id(&Request::builder().body(()).expect("request")), None);
    }
}
