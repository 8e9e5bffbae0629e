//! Password sign-in, token rotation, sign-out and token validation over HTTP.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use base64::Engine as _;
use creditflow::domain::auth::{Password, PasswordHash};
use creditflow::ports::password::{HashLane, PasswordHashError, PasswordHasher};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use time::Duration;

use crate::helpers::*;

#[tokio::test]
async fn login_returns_a_bearer_pair_and_the_user() {
    let app = spawn_app().await;
    let body = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(body["token_type"], "Bearer");
    // The spec's example is 24 hours; access tokens are short-lived by default (issue 18) and
    // refresh rotation carries the session.
    assert_eq!(body["expires_in"], 15 * 60, "access tokens live 15 minutes by default");
    assert_eq!(body["refresh_expires_in"], 30 * 86_400);
    assert_eq!(body["user"]["email"], ADMIN_EMAIL);
    assert_eq!(body["user"]["role"], "admin");
    let me: Value = app.get("/api/auth/me", Some(&access_token(&body))).await.json().await.expect("json");
    assert_eq!(me["email"], ADMIN_EMAIL);
    assert_eq!(me["id"], body["user"]["id"]);
}

#[tokio::test]
async fn login_normalises_the_email() {
    let app = spawn_app().await;
    assert_eq!(app.login("  ADMIN@Example.com ", ADMIN_PASSWORD).await.status(), 200);
}

#[tokio::test]
async fn wrong_password_and_unknown_email_get_the_same_401() {
    let app = spawn_app().await;
    let wrong_password = assert_error(app.login(ADMIN_EMAIL, "not the admin password").await, 401).await;
    let unknown_email = assert_error(app.login("nobody@example.com", ADMIN_PASSWORD).await, 401).await;
    assert_eq!(wrong_password, unknown_email);
}

#[tokio::test]
async fn repeated_failures_are_throttled_with_retry_after_and_then_released() {
    let app = spawn_app_with(&[("LOGIN_MAX_FAILURES", "3"), ("LOGIN_FAILURE_WINDOW", "10m")], |_| {}).await;
    for _ in 0..3 {
        assert_error(app.login(ADMIN_EMAIL, "wrong password!!").await, 401).await;
    }
    let throttled = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let retry_after: i64 = throttled.headers()["retry-after"].to_str().expect("ascii").parse().expect("seconds");
    assert_eq!(retry_after, 600);
    assert_error(throttled, 429).await;
    // Other accounts are unaffected.
    assert_error(app.login("other@example.com", "wrong password!!").await, 401).await;
    app.clock.advance(Duration::minutes(10));
    assert_eq!(app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await.status(), 200);
}

#[tokio::test]
async fn refresh_rotates_and_reuse_revokes_the_whole_family() {
    let app = spawn_app().await;
    let first = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rotated = app.post("/api/auth/refresh", None, &json!({ "refresh_token": refresh_token(&first) })).await;
    assert_eq!(rotated.status(), 200);
    let rotated: Value = rotated.json().await.expect("json");
    assert_ne!(refresh_token(&rotated), refresh_token(&first));
    assert_eq!(rotated["token_type"], "Bearer");
    assert_eq!(app.get("/api/auth/me", Some(&access_token(&rotated))).await.status(), 200);

    let reuse = app.post("/api/auth/refresh", None, &json!({ "refresh_token": refresh_token(&first) })).await;
    let body = assert_error(reuse, 401).await;
    assert!(body["message"].as_str().expect("message").contains("already used"));
    let descendant = app.post("/api/auth/refresh", None, &json!({ "refresh_token": refresh_token(&rotated) })).await;
    assert_error(descendant, 401).await;
}

#[tokio::test]
async fn logout_revokes_the_family() {
    let app = spawn_app().await;
    let session = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let logout = app
        .post("/api/auth/logout", Some(&access_token(&session)), &json!({ "refresh_token": refresh_token(&session) }))
        .await;
    assert_eq!(logout.status(), 204);
    let refresh = app.post("/api/auth/refresh", None, &json!({ "refresh_token": refresh_token(&session) })).await;
    assert_error(refresh, 401).await;
    // The access token ends with the sign-out, not when it would have expired.
    let body = assert_error(app.get("/api/auth/me", Some(&access_token(&session))).await, 401).await;
    assert!(body["message"].as_str().is_some_and(|m| m.contains("revoked")), "{body}");
}

#[tokio::test]
async fn an_owner_whose_account_is_being_guessed_still_signs_in_from_a_known_device() {
    let app = spawn_app_with(&[("LOGIN_MAX_FAILURES", "3"), ("LOGIN_FAILURE_WINDOW", "10m")], |_| {}).await;
    let earlier = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let device_token = earlier["device_token"].as_str().expect("a password sign-in issues a device token").to_owned();
    for _ in 0..3 {
        assert_error(app.login(ADMIN_EMAIL, "someone else's guess").await, 401).await;
    }
    let body = assert_error(app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await, 429).await;
    assert!(body["message"].as_str().is_some_and(|m| m.contains("device_token")), "{body}");
    let from_known_device = app
        .post(
            "/api/auth/login",
            None,
            &json!({ "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "device_token": device_token }),
        )
        .await;
    assert_eq!(from_known_device.status(), 200);
    // A device token is bound to its account: it opens no other account's budget.
    let elsewhere = app
        .post(
            "/api/auth/login",
            None,
            &json!({ "email": "x@example.com", "password": "guess guess", "device_token": device_token }),
        )
        .await;
    assert_error(elsewhere, 401).await;
}

#[tokio::test]
async fn one_guess_sprayed_over_many_accounts_is_throttled_per_client() {
    let app = spawn_app_with(&[("LOGIN_MAX_FAILURES_PER_CLIENT", "4")], |_| {}).await;
    for n in 0..4 {
        assert_error(app.login(&format!("user{n}@example.com"), "Winter2026!!").await, 401).await;
    }
    let response = app.login("user9@example.com", "Winter2026!!").await;
    assert!(response.headers().contains_key("retry-after"));
    let body = assert_error(response, 429).await;
    assert!(body["message"].as_str().is_some_and(|m| m.contains("from this address")), "{body}");
}

#[tokio::test]
async fn tokens_not_yet_valid_or_issued_in_the_future_are_refused() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let claims = claims_of(&token);
    let now = claims["iat"].as_i64().expect("iat");
    let mut not_yet_valid = claims.clone();
    not_yet_valid["nbf"] = json!(now + 3600);
    let mut from_the_future = claims.clone();
    from_the_future["iat"] = json!(now + 10 * 365 * 86_400);
    from_the_future["exp"] = json!(now + 10 * 365 * 86_400 + 900);
    for (name, claims) in [("nbf ahead", not_yet_valid), ("iat ahead", from_the_future)] {
        let forged = sign(Header::new(Algorithm::HS256), &claims, JWT_SECRET);
        assert_eq!(app.get("/api/auth/me", Some(&forged)).await.status(), 401, "{name} must be refused");
    }
    // Within the allowed clock skew, a slightly early nbf is accepted.
    let mut skewed = claims.clone();
    skewed["nbf"] = json!(now + 30);
    assert_eq!(
        app.get("/api/auth/me", Some(&sign(Header::new(Algorithm::HS256), &skewed, JWT_SECRET))).await.status(),
        200
    );
}

#[tokio::test]
async fn a_refresh_token_is_not_an_access_token_and_vice_versa() {
    let app = spawn_app().await;
    let session = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_error(app.get("/api/auth/me", Some(&refresh_token(&session))).await, 401).await;
    let refresh_with_access =
        app.post("/api/auth/refresh", None, &json!({ "refresh_token": access_token(&session) })).await;
    assert_error(refresh_with_access, 401).await;
}

#[tokio::test]
async fn an_expired_access_token_is_refused() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    app.clock.advance(Duration::hours(24));
    let body = assert_error(app.get("/api/auth/me", Some(&token)).await, 401).await;
    assert_eq!(body["message"], "token has expired");
}

fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("payload");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("base64");
    serde_json::from_slice(&bytes).expect("claims")
}

fn sign(header: Header, claims: &Value, secret: &str) -> String {
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(secret.as_bytes())).expect("encode")
}

#[tokio::test]
async fn access_tokens_carry_the_documented_claims() {
    let app = spawn_app().await;
    let claims = claims_of(&app.admin_token().await);
    for claim in ["sub", "role", "typ", "jti", "iat", "exp", "iss", "aud"] {
        assert!(claims.get(claim).is_some(), "missing claim {claim}");
    }
    assert_eq!(claims["typ"], "access");
    assert_eq!(claims["iss"], "creditflow");
    assert_eq!(claims["aud"], "creditflow-api");
}

#[tokio::test]
async fn tampered_unsigned_and_foreign_tokens_are_refused() {
    let app = spawn_app().await;
    let token = app.admin_token().await;
    let claims = claims_of(&token);

    let mut tampered_claims = claims.clone();
    tampered_claims["role"] = json!("admin");
    tampered_claims["sub"] = json!(uuid::Uuid::new_v4().to_string());
    let (header, _, signature) = {
        let mut parts = token.split('.');
        (parts.next().expect("h"), parts.next(), parts.next().expect("s"))
    };
    let forged_payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(tampered_claims.to_string());
    let tampered = format!("{header}.{forged_payload}.{signature}");

    let unsigned = format!(
        "{}.{}.",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let mut wrong_issuer = claims.clone();
    wrong_issuer["iss"] = json!("someone-else");
    let mut wrong_audience = claims.clone();
    wrong_audience["aud"] = json!("another-api");
    let candidates = [
        ("tampered", tampered),
        ("alg none", unsigned),
        ("wrong issuer", sign(Header::new(Algorithm::HS256), &wrong_issuer, JWT_SECRET)),
        ("wrong audience", sign(Header::new(Algorithm::HS256), &wrong_audience, JWT_SECRET)),
        ("other key", sign(Header::new(Algorithm::HS256), &claims, "a-different-secret-of-32-bytes-or-more")),
        ("other algorithm", sign(Header::new(Algorithm::HS384), &claims, JWT_SECRET)),
        ("garbage", "not.a.token".to_owned()),
    ];
    for (name, candidate) in candidates {
        let response = app.get("/api/auth/me", Some(&candidate)).await;
        assert_eq!(response.status(), 401, "{name} must be refused");
        assert!(response.headers().contains_key("www-authenticate"), "{name}: WWW-Authenticate");
    }
    // The genuine token still works.
    assert_eq!(app.get("/api/auth/me", Some(&token)).await.status(), 200);
}

#[tokio::test]
async fn a_missing_or_malformed_authorization_header_is_401_with_a_bearer_challenge() {
    let app = spawn_app().await;
    let missing = app.get("/api/auth/me", None).await;
    assert!(missing.headers()["www-authenticate"].to_str().expect("ascii").starts_with("Bearer"));
    assert_error(missing, 401).await;
    let basic = app
        .client
        .get(format!("{}/api/auth/me", app.address))
        .header("authorization", "Basic YWxhZGRpbjpvcGVuc2VzYW1l")
        .send()
        .await
        .expect("sent");
    assert_error(basic, 401).await;
}

/// Hashes as the tests' hasher does, but once `saturated` is set answers every password check of
/// the shared lane as a queue full of someone else's guesses would.
struct SaturatedHasher {
    inner: Arc<dyn PasswordHasher>,
    saturated: Arc<AtomicBool>,
}

#[async_trait::async_trait]
impl PasswordHasher for SaturatedHasher {
    async fn hash(&self, password: &Password) -> Result<PasswordHash, PasswordHashError> {
        self.inner.hash(password).await
    }

    async fn verify(
        &self,
        password: &Password,
        hash: &PasswordHash,
        lane: HashLane,
    ) -> Result<bool, PasswordHashError> {
        if lane == HashLane::Shared && self.saturated.load(Ordering::SeqCst) {
            return Err(PasswordHashError::Busy);
        }
        self.inner.verify(password, hash, lane).await
    }
}

#[tokio::test]
async fn a_saturated_password_hasher_answers_503_with_retry_after_and_costs_no_attempt_but_a_known_device_gets_in() {
    let saturated = Arc::new(AtomicBool::new(false));
    let flag = saturated.clone();
    let app = spawn_app_with(&[("LOGIN_MAX_FAILURES", "2")], move |adapters| {
        adapters.hasher = Arc::new(SaturatedHasher { inner: adapters.hasher.clone(), saturated: flag });
    })
    .await;
    let earlier = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let device_token = earlier["device_token"].as_str().expect("device token").to_owned();
    saturated.store(true, Ordering::SeqCst);
    // Three refusals with a budget of two: a refused check is not counted as a failure.
    for _ in 0..3 {
        let response = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
        assert!(response.headers().contains_key("retry-after"), "503 says when to come back");
        let body = assert_error(response, 503).await;
        assert!(body["message"].as_str().is_some_and(|m| m.contains("try again in a moment")), "{body}");
        assert_eq!(body["detail"]["retry_after_seconds"], 1);
    }
    // The owner's device waits in its own lane.
    let response = app
        .post(
            "/api/auth/login",
            None,
            &json!({ "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "device_token": device_token }),
        )
        .await;
    assert_eq!(response.status(), 200);
}
