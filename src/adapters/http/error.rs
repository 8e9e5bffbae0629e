//! The one HTTP error type and the one `recover`: every non-2xx response of the service is JSON
//! `{"status":"error","message":…,"detail":…}`. Internal causes are logged once (inside the request
//! span, so with its request id) and never sent to the client.

use std::convert::Infallible;

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use utoipa::ToSchema;
use warp::http::StatusCode;
use warp::http::header::{HeaderName, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE};
use warp::reply::{Reply, Response};
use warp::{Filter, Rejection};

use super::unstorable::{REASON as UNSTORABLE, Unstorable, refuse_unstorable_json};
use crate::domain::auth::AuthError;
use crate::ports::rate_limit::RateLimitError;
use crate::ports::store::StoreError;

/// What a client is told to wait while the database does not answer: the pool reconnects on the
/// next request after the database is back.
const STORE_RETRY_AFTER_SECS: i64 = 2;

/// The error body of every non-2xx response.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"status": "error", "message": "invalid request body", "detail": {"field": "email", "reason": "missing field `email`"}}))]
pub struct ErrorBody {
    /// Always `error`.
    pub status: &'static str,
    /// What went wrong, for a person.
    pub message: String,
    /// Machine-readable specifics (e.g. the offending `field`), when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

/// An error answer. Each constructor names its status.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    detail: Option<Value>,
    headers: Vec<(HeaderName, HeaderValue)>,
    /// Logged, never sent.
    cause: Option<anyhow::Error>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), detail: None, headers: Vec::new(), cause: None }
    }

    /// 400: the request is invalid; `field` names the offending input.
    pub fn invalid_field(field: &str, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self::new(StatusCode::BAD_REQUEST, format!("invalid {field}: {reason}"))
            .with_detail(json!({ "field": field, "reason": reason }))
    }

    /// 401 with `WWW-Authenticate: Bearer`, for requests to protected routes.
    pub fn unauthorized(message: impl Into<String>, token_presented: bool) -> Self {
        let challenge = if token_presented {
            r#"Bearer realm="creditflow", error="invalid_token""#
        } else {
            r#"Bearer realm="creditflow""#
        };
        Self::new(StatusCode::UNAUTHORIZED, message).with_header(WWW_AUTHENTICATE, challenge)
    }

    /// 403: authenticated but not allowed.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 429 with `Retry-After`.
    pub fn too_many_requests(message: impl Into<String>, retry_after_secs: i64) -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, message)
            .with_header(RETRY_AFTER, &retry_after_secs.max(1).to_string())
            .with_detail(json!({ "retry_after_seconds": retry_after_secs.max(1) }))
    }

    /// 503 with `Retry-After`: a bounded resource is saturated; the request did nothing.
    pub fn service_unavailable(message: impl Into<String>, retry_after_secs: i64) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, message)
            .with_header(RETRY_AFTER, &retry_after_secs.max(1).to_string())
            .with_detail(json!({ "retry_after_seconds": retry_after_secs.max(1) }))
    }

    /// 500: the cause is logged; the client learns only that it was not its fault. When the cause
    /// is the database not answering (a [`StoreError::Unavailable`] or [`RateLimitError`] anywhere
    /// in its chain), 503 with `Retry-After` instead: the outage is temporary. A row the store
    /// cannot read ([`StoreError::Corrupt`]) stays a 500: retrying will not help. Each store write is one
    /// statement or one transaction, so no record is half-written; a request that writes more than
    /// once (an analysis stored, then started) may have made its first write.
    ///
    /// A value the store refused to hold ([`StoreError::Unstorable`]: text with U+0000 that reached
    /// the database without passing an input check) is a 400: the request's doing, never reported
    /// as the database's outage.
    pub fn internal(cause: anyhow::Error) -> Self {
        let store_down = cause.chain().any(|error| {
            matches!(error.downcast_ref::<StoreError>(), Some(StoreError::Unavailable(_)))
                || error.is::<RateLimitError>()
        });
        let unstorable =
            cause.chain().any(|error| matches!(error.downcast_ref::<StoreError>(), Some(StoreError::Unstorable(_))));
        let error = if unstorable {
            Self::new(StatusCode::BAD_REQUEST, "the request holds text the database cannot store (U+0000, NUL)")
                .with_detail(json!({ "reason": "unstorable_text" }))
        } else if store_down {
            Self::service_unavailable("the database is not answering; retry shortly", STORE_RETRY_AFTER_SECS)
        } else {
            Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error")
        };
        Self { cause: Some(cause), ..error }
    }

    /// 502: a service this one depends on failed; `cause` is logged, never sent (it can name
    /// internal hosts, addresses and resolvers).
    pub fn bad_gateway(message: impl Into<String>, cause: anyhow::Error) -> Self {
        Self { cause: Some(cause), ..Self::new(StatusCode::BAD_GATEWAY, message) }
    }

    pub fn with_detail(mut self, detail: Value) -> Self {
        self.detail = Some(detail);
        self
    }

    pub fn with_header(mut self, name: HeaderName, value: &str) -> Self {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.headers.push((name, value));
        }
        self
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl Reply for ApiError {
    fn into_response(self) -> Response {
        if let Some(cause) = &self.cause {
            // `{:#}` prints the whole cause chain on one line.
            tracing::error!(status = self.status.as_u16(), error = format!("{cause:#}"), "request failed");
        }
        let body = ErrorBody { status: "error", message: self.message, detail: self.detail };
        let mut response = warp::reply::with_status(warp::reply::json(&body), self.status).into_response();
        for (name, value) in self.headers {
            response.headers_mut().insert(name, value);
        }
        response
    }
}

/// Carries an [`ApiError`] through warp's rejection machinery (for filters, which cannot return
/// replies); [`recover`] turns it back into its response.
#[derive(Debug)]
pub struct Rejected(pub ApiError);

impl warp::reject::Reject for Rejected {}

pub fn reject(mut error: ApiError) -> Rejection {
    // The rejection is cloned into the response later; log the cause now, once.
    if let Some(cause) = error.cause.take() {
        tracing::error!(status = error.status.as_u16(), error = format!("{cause:#}"), "request failed");
    }
    warp::reject::custom(Rejected(error))
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        let message = error.to_string();
        match error {
            AuthError::Validation { field, message } => ApiError::invalid_field(field, message),
            AuthError::InvalidCredentials => ApiError::new(StatusCode::UNAUTHORIZED, message),
            AuthError::LoginThrottled { retry_after_secs, .. } => {
                ApiError::too_many_requests(message, retry_after_secs)
            }
            AuthError::Busy => ApiError::service_unavailable(message, 1),
            AuthError::AccountDisabled => ApiError::forbidden(message),
            AuthError::InvalidToken(_)
            | AuthError::RefreshTokenReused
            | AuthError::RefreshTokenRevoked
            | AuthError::RefreshTokenUnknown
            | AuthError::UserNotFound
            | AuthError::Wallet(_) => ApiError::new(StatusCode::UNAUTHORIZED, message),
            AuthError::NoSuchUser => ApiError::not_found(message),
            AuthError::DuplicateEmail => {
                ApiError::new(StatusCode::CONFLICT, message).with_detail(json!({ "field": "email" }))
            }
            AuthError::Unavailable(cause) => ApiError::internal(cause),
        }
    }
}

/// Turns every rejection into the JSON error shape.
pub async fn recover(rejection: Rejection) -> Result<Response, Infallible> {
    use warp::reject::{
        InvalidHeader, InvalidQuery, LengthRequired, MethodNotAllowed, MissingHeader, PayloadTooLarge,
        UnsupportedMediaType,
    };

    let error = if let Some(Rejected(error)) = rejection.find::<Rejected>() {
        ApiError {
            status: error.status,
            message: error.message.clone(),
            detail: error.detail.clone(),
            headers: error.headers.clone(),
            cause: None,
        }
    } else if rejection.is_not_found() {
        ApiError::not_found("no such resource")
    // A body refusal comes before "method not allowed": when a path serves several methods, warp
    // keeps the rejection of every route it tried, and a POST refused for its body is a POST the
    // path accepts.
    } else if rejection.find::<PayloadTooLarge>().is_some() {
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "request body is too large")
    } else if rejection.find::<LengthRequired>().is_some() {
        ApiError::new(StatusCode::LENGTH_REQUIRED, "a Content-Length header is required")
    } else if rejection.find::<UnsupportedMediaType>().is_some() {
        ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "request body must be application/json")
    } else if rejection.find::<MethodNotAllowed>().is_some() {
        ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method not allowed for this resource")
    } else if let Some(missing) = rejection.find::<MissingHeader>() {
        ApiError::new(StatusCode::BAD_REQUEST, format!("missing header {}", missing.name()))
    } else if let Some(invalid) = rejection.find::<InvalidHeader>() {
        ApiError::new(StatusCode::BAD_REQUEST, format!("invalid header {}", invalid.name()))
    } else if let Some(invalid) = rejection.find::<InvalidQuery>() {
        ApiError::new(StatusCode::BAD_REQUEST, format!("invalid query string: {invalid}"))
    } else {
        ApiError::internal(anyhow::anyhow!("unhandled rejection: {rejection:?}"))
    };
    Ok(error.into_response())
}

/// A request body accepted by size, to be parsed as JSON inside a handler (so that its errors
/// are replies that other wrappers, like the rate-limit headers, still decorate).
pub struct RawJson {
    pub(super) content_type: Option<String>,
    pub(super) bytes: Bytes,
}

/// Takes the raw body, refusing (413) bodies above `limit` bytes.
pub fn raw_json_body(limit: u64) -> impl Filter<Extract = (RawJson,), Error = Rejection> + Clone {
    warp::header::optional::<String>("content-type")
        .and(warp::body::content_length_limit(limit))
        .and(warp::body::bytes())
        .map(|content_type, bytes| RawJson { content_type, bytes })
}

/// Takes and parses a JSON body of type `T`; every failure is a JSON 4xx naming the problem.
pub fn json_body<T: DeserializeOwned + Send>(limit: u64) -> impl Filter<Extract = (T,), Error = Rejection> + Clone {
    raw_json_body(limit).and_then(|raw: RawJson| async move { raw.parse::<T>().map_err(reject) })
}

impl RawJson {
    /// Checks the content type (415) and parses (400 naming the field and the reason).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        let is_json = self.content_type.as_deref().is_some_and(|ct| {
            let essence = ct.split(';').next().unwrap_or_default().trim();
            essence.eq_ignore_ascii_case("application/json")
        });
        if !is_json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "request body must be sent with Content-Type: application/json",
            ));
        }
        parse_json(&self.bytes)
    }
}

impl From<Unstorable> for ApiError {
    fn from(unstorable: Unstorable) -> Self {
        ApiError::invalid_field(&unstorable.field, UNSTORABLE)
    }
}

fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    refuse_unstorable_json(bytes)?;
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let inner = error.inner();
        if inner.classify() != serde_json::error::Category::Data {
            return syntax_error(inner);
        }
        let reason = inner.to_string();
        // serde reports a missing field at its parent's path, naming it in the message.
        let path = error.path().to_string();
        let field = missing_field_name(&reason)
            .map(|name| if path == "." { name.to_owned() } else { format!("{path}.{name}") })
            .unwrap_or(path);
        let reason = reason.split(" at line ").next().unwrap_or(&reason).to_owned();
        ApiError::new(StatusCode::BAD_REQUEST, format!("invalid request body: {field}: {reason}"))
            .with_detail(json!({ "field": field, "reason": reason }))
    })?;
    deserializer.end().map_err(|e| syntax_error(&e))?;
    Ok(value)
}

fn syntax_error(error: &serde_json::Error) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "request body is not valid JSON")
        .with_detail(json!({ "line": error.line(), "column": error.column(), "reason": error.to_string() }))
}

fn missing_field_name(reason: &str) -> Option<&str> {
    reason.strip_prefix("missing field `")?.split('`').next()
}

#[cfg(test)]
mod unstorable_tests {
    use super::*;

    #[test]
    fn an_unstorable_field_is_a_400_naming_it_and_the_character() {
        let error = ApiError::from(Unstorable { field: "messages[1].content".to_owned() });
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(error.message().starts_with("invalid messages[1].content:"), "{}", error.message());
        assert!(error.message().contains("U+0000"), "{}", error.message());
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Body {
        email: String,
        nested: Option<Nested>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Nested {
        kind: Kind,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Term,
    }

    fn field_of(body: &str) -> Value {
        let error = parse_json::<Body>(body.as_bytes()).unwrap_err();
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        error.detail.expect("detail")
    }

    #[test]
    fn a_missing_field_is_named() {
        assert_eq!(field_of("{}")["field"], "email");
        assert_eq!(field_of(r#"{"email":"a","nested":{}}"#)["field"], "nested.kind");
    }

    #[test]
    fn a_wrong_type_or_unknown_variant_is_named() {
        assert_eq!(field_of(r#"{"email":5}"#)["field"], "email");
        assert_eq!(field_of(r#"{"email":"a","nested":{"kind":"other"}}"#)["field"], "nested.kind");
    }

    #[test]
    fn malformed_json_and_trailing_garbage_are_syntax_errors() {
        assert!(field_of(r#"{"email":"#).get("line").is_some());
        assert!(field_of(r#"{"email":"a"} x"#).get("line").is_some());
    }

    /// A path with a GET route and a POST route that limits its body, as the API's collections are.
    fn get_and_limited_post() -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
        let get = warp::get().map(|| warp::reply().into_response());
        let post = warp::post()
            .and(warp::body::content_length_limit(16))
            .and(warp::body::bytes())
            .map(|_: Bytes| warp::reply().into_response());
        warp::path("things").and(get.or(post).unify()).recover(recover).unify()
    }

    #[tokio::test]
    async fn an_oversized_or_unsized_body_is_413_or_411_not_405() {
        let routes = get_and_limited_post();
        let oversized = warp::test::request()
            .method("POST")
            .path("/things")
            .header("expect", "100-continue")
            .body(vec![b'x'; 64])
            .reply(&routes)
            .await;
        assert_eq!(oversized.status(), StatusCode::PAYLOAD_TOO_LARGE);
        let chunked = warp::test::request()
            .method("POST")
            .path("/things")
            .header("transfer-encoding", "chunked")
            .header("expect", "100-continue")
            .reply(&routes)
            .await;
        assert_eq!(chunked.status(), StatusCode::LENGTH_REQUIRED);
        let wrong_method = warp::test::request().method("DELETE").path("/things").reply(&routes).await;
        assert_eq!(wrong_method.status(), StatusCode::METHOD_NOT_ALLOWED);
    }
}
