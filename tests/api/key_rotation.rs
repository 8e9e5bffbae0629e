//! Rotating the JWT signing key over HTTP: instances over one store, configured as the README's
//! procedure says, keep everyone signed in across a rotation; a removed key's tokens get 401.

use base64::Engine as _;
use creditflow::Adapters;
use creditflow::config::KeyId;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::helpers::*;

const KEY_A: &str = "key-a-secret-key-a-secret-key-a-secret";
const KEY_B: &str = "key-b-secret-key-b-secret-key-b-secret";
const KID_B: &str = "2025-06";

fn kid_of(token: &str) -> Option<String> {
    jsonwebtoken::decode_header(token).expect("a JWT header").kid
}

/// Key A as it was deployed before any rotation: `JWT_SECRET` alone, under its derived id.
fn kid_a() -> String {
    KeyId::derived_from(KEY_A.as_bytes()).to_string()
}

async fn refresh(app: &TestApp, body: &Value) -> reqwest::Response {
    app.post("/api/auth/refresh", None, &json!({ "refresh_token": refresh_token(body) })).await
}

#[tokio::test]
async fn after_a_rotation_tokens_of_the_previous_key_still_work_and_new_ones_name_the_new_key() {
    let store = Adapters::in_memory();
    let before = spawn_app_around(store.clone(), &[("JWT_SECRET", KEY_A)], |_| {}).await;
    let session = before.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(kid_of(&access_token(&session)), Some(kid_a()));

    let previous = format!("{}={KEY_A}", kid_a());
    let rotated =
        spawn_app_around(store, &[("JWT_SECRET", KEY_B), ("JWT_KID", KID_B), ("JWT_PREVIOUS_KEYS", &previous)], |_| {})
            .await;

    let me = rotated.get("/api/auth/me", Some(&access_token(&session))).await;
    assert_eq!(me.status(), 200, "the access token of key A still works");
    let renewed = refresh(&rotated, &session).await;
    assert_eq!(renewed.status(), 200, "the refresh token of key A still works");
    let renewed: Value = renewed.json().await.expect("json");
    assert_eq!(kid_of(&access_token(&renewed)).as_deref(), Some(KID_B));
    assert_eq!(kid_of(&refresh_token(&renewed)).as_deref(), Some(KID_B));
    assert_eq!(rotated.get("/api/auth/me", Some(&access_token(&renewed))).await.status(), 200);
    let fresh = rotated.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(kid_of(&access_token(&fresh)).as_deref(), Some(KID_B));
}

#[tokio::test]
async fn once_the_previous_key_is_removed_its_tokens_get_401() {
    let store = Adapters::in_memory();
    let before = spawn_app_around(store.clone(), &[("JWT_SECRET", KEY_A)], |_| {}).await;
    let session = before.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let after = spawn_app_around(store, &[("JWT_SECRET", KEY_B), ("JWT_KID", KID_B)], |_| {}).await;

    let body = assert_error(after.get("/api/auth/me", Some(&access_token(&session))).await, 401).await;
    assert!(body["message"].as_str().expect("message").contains("unknown signing key"), "{body}");
    let body = assert_error(refresh(&after, &session).await, 401).await;
    assert!(body["message"].as_str().expect("message").contains("unknown signing key"), "{body}");
    // Signing in again is all it takes.
    let fresh = after.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(after.get("/api/auth/me", Some(&access_token(&fresh))).await.status(), 200);
}

#[tokio::test]
async fn while_instances_roll_over_each_accepts_the_others_tokens() {
    // Phase 1 left every instance accepting key B; phase 2 restarts them one at a time with B
    // current, so for a while one signs with A and the other with B behind the same balancer.
    let store = Adapters::in_memory();
    let not_yet_restarted = spawn_app_around(
        store.clone(),
        &[("JWT_SECRET", KEY_A), ("JWT_PREVIOUS_KEYS", &format!("{KID_B}={KEY_B}"))],
        |_| {},
    )
    .await;
    let restarted = spawn_app_around(
        store,
        &[("JWT_SECRET", KEY_B), ("JWT_KID", KID_B), ("JWT_PREVIOUS_KEYS", &format!("{}={KEY_A}", kid_a()))],
        |_| {},
    )
    .await;

    let signed_with_a = not_yet_restarted.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let signed_with_b = restarted.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(kid_of(&access_token(&signed_with_a)), Some(kid_a()));
    assert_eq!(kid_of(&access_token(&signed_with_b)).as_deref(), Some(KID_B));
    assert_eq!(restarted.get("/api/auth/me", Some(&access_token(&signed_with_a))).await.status(), 200);
    assert_eq!(not_yet_restarted.get("/api/auth/me", Some(&access_token(&signed_with_b))).await.status(), 200);
    assert_eq!(refresh(&not_yet_restarted, &signed_with_b).await.status(), 200);
    assert_eq!(refresh(&restarted, &signed_with_a).await.status(), 200);
}

#[tokio::test]
async fn an_access_token_from_before_key_ids_still_works_after_upgrading_with_the_same_secret() {
    let app = spawn_app_with(&[("JWT_SECRET", KEY_A)], |_| {}).await;
    let session = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let legacy = without_kid(&access_token(&session), KEY_A);
    assert_eq!(kid_of(&legacy), None);
    assert_eq!(app.get("/api/auth/me", Some(&legacy)).await.status(), 200);

    // The same secret under an explicit id is a key introduced after key ids: it signed no such token.
    let explicit = spawn_app_with(&[("JWT_SECRET", KEY_A), ("JWT_KID", "2024-01")], |_| {}).await;
    let body = assert_error(explicit.get("/api/auth/me", Some(&legacy)).await, 401).await;
    assert!(body["message"].as_str().expect("message").contains("no signing key id"), "{body}");
}

/// The token's claims signed as versions before key ids signed them: HS256, no `kid`.
fn without_kid(token: &str, secret: &str) -> String {
    let payload = token.split('.').nth(1).expect("three parts");
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("base64url payload"),
    )
    .expect("JSON claims");
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &EncodingKey::from_secret(secret.as_bytes()))
        .expect("encode")
}
