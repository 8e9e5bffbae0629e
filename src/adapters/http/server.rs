//! The HTTP server loop: hyper connections serving the warp routes under the connection limits
//! of [`super::connections`], the client's address and a request id on every request, security
//! headers and the request id on every response, one access-log line per request, and graceful
//! shutdown (stop accepting, let in-flight requests finish within a deadline). With metrics on, each
//! request is counted under its route template.
//!
//! A connection refused at a cap (or displaced while its request may have been on its way) is
//! served too, by the same code, with every request answered 503 `Connection: close`. A connection the server closes first (that answer, a 413, 411 or 408
//! before the body was read, hyper's own 400 or 431) ends with a lingering close, so that a
//! client still sending reads its answer rather than a reset ([`super::connections`] says why and
//! within which bounds).

use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower_service::Service as _;
use tracing::Instrument as _;
use warp::filters::BoxedFilter;
use warp::http::header::{
    ALLOW, CACHE_CONTROL, CONNECTION, REFERRER_POLICY, STRICT_TRANSPORT_SECURITY, X_CONTENT_TYPE_OPTIONS,
};
use warp::http::{HeaderMap, HeaderValue, Request, StatusCode};
use warp::reply::{Reply as _, Response};

use super::client_addr::{ClientAddr, forwarded_over_tls};
use super::connections::{Activity, Cap, ConnectionRegistry, MonitoredIo, TimedBody, TrackedBody};
use super::error::ApiError;
use crate::adapters::metrics::ServiceMetrics;
use crate::config::HttpServerConfig;

const REQUEST_ID_HEADER: &str = "x-request-id";
/// Largest read buffer of an HTTP/1 connection: bounds what a request head may occupy (bodies
/// stream through it), and so the memory a flood of connections can pin.
const MAX_READ_BUFFER: usize = 64 * 1024;
/// Streams one HTTP/2 connection may run at once.
const MAX_CONCURRENT_STREAMS: u32 = 64;
/// What a client refused at a connection cap is told to wait: busy connections end within
/// milliseconds to seconds, and an idle one makes room at once.
const REFUSAL_RETRY_AFTER_SECS: i64 = 1;

/// Accepts connections on `listener` until `shutdown` resolves, then waits up to `grace` for open
/// connections to finish their requests.
pub async fn serve(
    listener: TcpListener,
    routes: BoxedFilter<(Response,)>,
    settings: HttpServerConfig,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
    metrics: Option<Arc<ServiceMetrics>>,
) {
    let registry = ConnectionRegistry::new(settings);
    let builder = connection_builder(&registry);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
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
        // No room, not even to refuse it: dropping the stream closes it at once.
        let Some(held) = registry.admit(peer.ip()) else {
            continue;
        };
        let connection = Arc::new(ConnectionContext {
            peer: peer.ip(),
            activity: held.activity.clone(),
            registry: registry.clone(),
            metrics: metrics.clone(),
        });
        let warp_service = warp::service(routes.clone());
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let mut warp_service = warp_service.clone();
            let connection = connection.clone();
            // Refused at admission, or displaced since while its request was on its way.
            let refused = connection.activity.refusal();
            async move {
                handle(request, &connection, move |request| async move {
                    match refused {
                        Some(cap) => Ok(connection_refused(cap)),
                        None => warp_service.call(request).await,
                    }
                })
                .await
            }
        });
        let (io, mut socket_back) = MonitoredIo::new(stream, held.activity.clone());
        let connection = builder.serve_connection(TokioIo::new(io), service).into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let hyper_closed = tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!(error = %error, "connection closed with an error");
                    }
                    true
                }
                expiry = held.expired() => {
                    tracing::debug!(?expiry, "connection closed by the server");
                    // Nothing was answered: a silent, slow or displaced connection just closes.
                    false
                }
            };
            // hyper ended the connection after answering, and has handed its socket back: the
            // server closes first unless the client already has.
            if hyper_closed
                && let Ok(returned) = socket_back.try_recv()
                && !returned.client_done
            {
                let (end, discarded) = held.linger(returned.socket).await;
                tracing::debug!(?end, discarded, "lingering close ended");
            }
        });
    }
    drop(listener);
    tracing::info!(grace_seconds = grace.as_secs(), "shutting down: no new connections, finishing in-flight requests");
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("connections still open after the shutdown deadline; closing them");
    }
}

/// HTTP/1.1, and HTTP/2 with prior knowledge only when `HTTP2_CLEARTEXT` says so: HTTP/2 runs up to
/// [`MAX_CONCURRENT_STREAMS`] requests on one connection, which the per-client connection cap does
/// not see, so by default the HTTP/2 preface is read as a malformed HTTP/1 request and the connection
/// is closed. (No upgrades: no route switches protocols, and hyper-util forces the version only on
/// connections served without them.)
fn connection_builder(registry: &ConnectionRegistry) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    if !registry.settings().http2_cleartext {
        builder = builder.http1_only();
    }
    // Header and idle deadlines are the registry's (they also cover the protocol-detection read,
    // which hyper's own header timer does not).
    builder.http1().timer(TokioTimer::new()).header_read_timeout(None).max_buf_size(MAX_READ_BUFFER);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(MAX_CONCURRENT_STREAMS)
        .max_header_list_size(u32::try_from(MAX_READ_BUFFER).unwrap_or(u32::MAX))
        .keep_alive_interval(registry.settings().idle_timeout);
    builder
}

/// What a request needs to know about its connection.
struct ConnectionContext {
    peer: IpAddr,
    activity: Arc<Activity>,
    registry: Arc<ConnectionRegistry>,
    /// `None`: metrics are off.
    metrics: Option<Arc<ServiceMetrics>>,
}

/// Wraps one request: resolves its client address, bounds the time its body may take, assigns
/// its id, runs it inside a span carrying that id (so every log line of the request has it), sets
/// the id and the security headers on the response and writes the access-log line.
async fn handle<F, Fut>(
    request: Request<Incoming>,
    connection: &ConnectionContext,
    call: F,
) -> Result<warp::http::Response<TrackedBody<ResponseBody>>, Infallible>
where
    F: FnOnce(Request<TimedBody>) -> Fut,
    Fut: Future<Output = Result<Response, Infallible>>,
{
    let in_flight = connection.activity.request_started();
    let settings = connection.registry.settings();
    let trusted = &settings.trusted_proxies;
    let client = ClientAddr::resolve(connection.peer, header_values(request.headers(), "x-forwarded-for"), trusted);
    let over_tls = forwarded_over_tls(connection.peer, header_values(request.headers(), "x-forwarded-proto"), trusted);
    let body_timed_out = Arc::new(AtomicBool::new(false));
    let mut request = request.map(|body| TimedBody::new(body, settings.body_read_timeout, body_timed_out.clone()));
    request.extensions_mut().insert(client);

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
    let method = request.method().clone();
    let metrics = connection.metrics.clone();
    let started = Instant::now();
    async move {
        let mut response = call(request).await?;
        if body_timed_out.load(Ordering::Acquire) {
            response = ApiError::new(StatusCode::REQUEST_TIMEOUT, "the request body was not received in time")
                .with_detail(serde_json::json!({ "timeout_seconds": settings.body_read_timeout.as_secs() }))
                .into_response();
        }
        if refuses_the_body(response.status()) {
            response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
        }
        let headers = response.headers_mut();
        headers.insert(REQUEST_ID_HEADER, header_value);
        set_security_headers(headers, over_tls);
        if response.status() == StatusCode::METHOD_NOT_ALLOWED
            && let Some(allowed) =
                super::openapi::allowed_methods(&path).or_else(|| super::console::allowed_methods(&path))
        {
            response.headers_mut().insert(ALLOW, HeaderValue::from_static(allowed));
        }
        let elapsed = started.elapsed();
        if let Some(metrics) = &metrics {
            let route = super::openapi::route_template(&path)
                .or_else(|| super::console::route_template(&path))
                .unwrap_or("unmatched");
            metrics.observe_request(&method, route, response.status().as_u16(), elapsed);
        }
        tracing::info!(
            status = response.status().as_u16(),
            latency_us = elapsed.as_micros() as u64,
            "request completed"
        );
        Ok(response.map(|body| TrackedBody::new(body, in_flight)))
    }
    .instrument(span)
    .await
}

/// Answers about the request body itself (too slow, of no stated length, too large): the rest of
/// that body is not read, so the connection cannot carry another request, and the client is told.
fn refuses_the_body(status: StatusCode) -> bool {
    matches!(status, StatusCode::REQUEST_TIMEOUT | StatusCode::LENGTH_REQUIRED | StatusCode::PAYLOAD_TOO_LARGE)
}

/// The answer on a connection refused at `cap`: 503, retry in a second, and the connection closes.
fn connection_refused(cap: Cap) -> Response {
    let message = match cap {
        Cap::Client => "too many open connections from this address; retry shortly",
        Cap::Server => "the server is at its connection limit; retry shortly",
    };
    let mut response = ApiError::service_unavailable(message, REFUSAL_RETRY_AFTER_SECS).into_response();
    response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The body type of warp's responses.
type ResponseBody = <Response as ResponseParts>::Body;

trait ResponseParts {
    type Body;
}

impl<B> ResponseParts for warp::http::Response<B> {
    type Body = B;
}

fn header_values<'a>(headers: &'a HeaderMap, name: &str) -> impl DoubleEndedIterator<Item = &'a str> {
    headers.get_all(name).iter().filter_map(|value| value.to_str().ok())
}

/// Responses are not to be cached (they carry account data), sniffed into another type, or
/// leak the page in a Referer; over TLS, browsers are told to keep to it.
fn set_security_headers(headers: &mut HeaderMap, over_tls: bool) {
    if !headers.contains_key(CACHE_CONTROL) {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if over_tls {
        headers.insert(STRICT_TRANSPORT_SECURITY, HeaderValue::from_static("max-age=31536000"));
    }
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
