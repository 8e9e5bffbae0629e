//! `/api/auth/*`: password and wallet sign-in, token rotation, sign-out, and the caller's profile.

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::client_addr::{ClientAddr, client_addr};
use super::dto::{
    LoginRequest, RefreshRequest, TokenResponse, UserResponse, WalletLoginRequest, WalletNonceRequest,
    WalletNonceResponse,
};
use super::error::{ApiError, ErrorBody, json_body};
use super::filters::{authenticated, authenticated_user, with_state};
use crate::domain::auth::{Principal, SignInContext, SignedIn, User};

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let limit = state.max_body_bytes;
    let login = warp::path!("api" / "auth" / "login")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(client_addr())
        .and(json_body::<LoginRequest>(limit))
        .then(login);
    let refresh = warp::path!("api" / "auth" / "refresh")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(json_body::<RefreshRequest>(limit))
        .then(refresh);
    let logout = warp::path!("api" / "auth" / "logout")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .and(json_body::<RefreshRequest>(limit))
        .then(logout);
    let wallet_nonce = warp::path!("api" / "auth" / "wallet" / "nonce")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(json_body::<WalletNonceRequest>(limit))
        .then(wallet_nonce);
    let wallet = warp::path!("api" / "auth" / "wallet")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(json_body::<WalletLoginRequest>(limit))
        .then(wallet_login);
    let me = warp::path!("api" / "auth" / "me").and(warp::get()).and(authenticated_user(state)).then(me);
    login
        .map(respond)
        .or(refresh.map(respond))
        .unify()
        .or(logout.map(respond))
        .unify()
        .or(wallet_nonce.map(respond))
        .unify()
        .or(wallet.map(respond))
        .unify()
        .or(me.map(respond))
        .unify()
        .boxed()
}

/// Turns a handler's result into a response.
pub fn respond(result: Result<impl Reply, ApiError>) -> Response {
    match result {
        Ok(reply) => reply.into_response(),
        Err(error) => error.into_response(),
    }
}

/// The token-pair answer of every sign-in; the access-log line of the request names the user.
fn token_reply(signed_in: SignedIn) -> impl Reply {
    tracing::Span::current().record("user_id", tracing::field::display(signed_in.user.id));
    warp::reply::json(&TokenResponse::from(signed_in))
}

/// POST /api/auth/login
#[utoipa::path(post, path = "/api/auth/login", tag = "auth", request_body = LoginRequest,
    description = "Signs in with e-mail and password. Wrong e-mail and wrong password give the same 401. \
                   Failures are budgeted per account and client address, per client address over all accounts, \
                   per account over all clients without a device token, and per device token; a spent budget \
                   answers 429 with Retry-After until the window rolls. A successful sign-in returns a \
                   `device_token`: sent with later sign-ins to the same account, it exempts this client from \
                   throttling caused by others. 503 with Retry-After when password checking is saturated.",
    responses(
        (status = 200, description = "Signed in", body = TokenResponse),
        (status = 401, description = "Invalid e-mail or password", body = ErrorBody),
        (status = 403, description = "Account disabled", body = ErrorBody),
        (status = 429, description = "Too many failed attempts (the message says which budget)", body = ErrorBody),
        (status = 503, description = "Too many sign-ins being checked at once; retry after Retry-After", body = ErrorBody),
    ))]
pub async fn login(
    state: Arc<AppState>,
    client: Option<ClientAddr>,
    body: LoginRequest,
) -> Result<impl Reply, ApiError> {
    let context = SignInContext { client: client.map(|c| c.throttle_key()), device_token: body.device_token };
    let signed_in = state.auth.login(&body.email, body.password, context).await?;
    Ok(token_reply(signed_in))
}

/// POST /api/auth/refresh
#[utoipa::path(post, path = "/api/auth/refresh", tag = "auth", request_body = RefreshRequest,
    description = "Exchanges a refresh token for a new pair. Each refresh token works once: presenting one that \
                   was already used revokes every token of that sign-in and answers 401.",
    responses(
        (status = 200, description = "A new token pair", body = TokenResponse),
        (status = 401, description = "Invalid, expired, revoked or reused refresh token", body = ErrorBody),
    ))]
pub async fn refresh(state: Arc<AppState>, body: RefreshRequest) -> Result<impl Reply, ApiError> {
    let signed_in = state.auth.refresh(&body.refresh_token).await?;
    Ok(token_reply(signed_in))
}

/// POST /api/auth/logout
#[utoipa::path(post, path = "/api/auth/logout", tag = "auth", request_body = RefreshRequest,
    description = "Revokes the refresh token's whole family (this sign-in and its rotations) and every access \
                   token issued to the caller so far; the caller's other sign-ins renew theirs with their refresh \
                   tokens.",
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, description = "Refresh token unknown or not the caller's", body = ErrorBody),
    ))]
pub async fn logout(state: Arc<AppState>, caller: Principal, body: RefreshRequest) -> Result<impl Reply, ApiError> {
    state.auth.logout(caller, &body.refresh_token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// POST /api/auth/wallet/nonce
#[utoipa::path(post, path = "/api/auth/wallet/nonce", tag = "auth", request_body = WalletNonceRequest,
    description = "Issues a single-use nonce for a wallet and a ready EIP-4361 (Sign-In with Ethereum) message \
                   around it. Sign the message with EIP-191 personal_sign and send it to POST /api/auth/wallet.",
    responses((status = 200, description = "A nonce and the message to sign", body = WalletNonceResponse)))]
pub async fn wallet_nonce(state: Arc<AppState>, body: WalletNonceRequest) -> Result<impl Reply, ApiError> {
    let challenge = state.auth.wallet_challenge(&body.wallet_address).await?;
    Ok(warp::reply::json(&WalletNonceResponse {
        nonce: challenge.nonce,
        message: challenge.message,
        expires_at: challenge.expires_at,
    }))
}

/// POST /api/auth/wallet
#[utoipa::path(post, path = "/api/auth/wallet", tag = "auth", request_body = WalletLoginRequest,
    description = "Signs in with an Ethereum wallet (EIP-4361 message, EIP-191 signature). Checks, in order: \
                   message format, domain, URI, version, chain id, address, issued-at / not-before / expiration, \
                   the signature, then the nonce (issued here, unused, unexpired, for this wallet: consumed only \
                   once the signature is valid). The first sign-in creates a user with the configured default \
                   role (`viewer` unless WALLET_DEFAULT_ROLE says otherwise).",
    responses(
        (status = 200, description = "Signed in; `user.wallet_address` is set", body = TokenResponse),
        (status = 401, description = "Verification failed; `message` says which check", body = ErrorBody),
    ))]
pub async fn wallet_login(state: Arc<AppState>, body: WalletLoginRequest) -> Result<impl Reply, ApiError> {
    let signed_in = state.auth.wallet_sign_in(&body.wallet_address, &body.signature, &body.message).await?;
    Ok(token_reply(signed_in))
}

/// GET /api/auth/me
#[utoipa::path(get, path = "/api/auth/me", tag = "auth",
    description = "The caller's own user record.",
    responses((status = 200, description = "The caller", body = UserResponse)))]
pub async fn me((_, user): (Principal, User)) -> Result<impl Reply, ApiError> {
    Ok(warp::reply::json(&UserResponse::from(&user)))
}
