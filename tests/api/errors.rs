//! Every rejection kind answers with the JSON error shape and the right status.

use std::sync::Arc;

use async_trait::async_trait;
use creditflow::domain::auth::ethereum::EthAddress;
use creditflow::domain::auth::{EmailAddress, NewUser, User, UserChanges, UserId};
use creditflow::ports::store::{CreateUserError, StoreError, UserRepository};
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn an_unknown_path_is_404_json() {
    let app = spawn_app().await;
    assert_error(app.get("/api/does-not-exist", None).await, 404).await;
    // `/` is the console's page (tests/api/console.rs); any other unknown path is the JSON 404.
    assert_error(app.get("/no-such-page", None).await, 404).await;
}

#[tokio::test]
async fn a_wrong_method_is_405_json() {
    let app = spawn_app().await;
    let response = app.request(reqwest::Method::DELETE, "/api/auth/login", None, None).await;
    assert_eq!(response.headers()["allow"], "POST");
    assert_error(response, 405).await;
    let get = app.get("/api/admin/users", None).await;
    assert_eq!(get.status(), 401, "a documented method is routed, not 405");
    let trace = app.request(reqwest::Method::PATCH, "/health/live", None, None).await;
    assert_eq!(trace.headers()["allow"], "GET");
    assert_error(trace, 405).await;
}

#[tokio::test]
async fn malformed_json_is_400_json() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(format!("{}/api/auth/login", app.address))
        .header("content-type", "application/json")
        .body(r#"{"email": "a@example.com", "password": "#)
        .send()
        .await
        .expect("sent");
    let body = assert_error(response, 400).await;
    assert!(body["detail"]["line"].is_number());
}

#[tokio::test]
async fn a_missing_field_or_wrong_type_is_400_naming_the_field() {
    let app = spawn_app().await;
    let missing =
        assert_error(app.post("/api/auth/login", None, &json!({ "email": "a@example.com" })).await, 400).await;
    assert_eq!(missing["detail"]["field"], "password");
    let wrong_type =
        assert_error(app.post("/api/auth/login", None, &json!({ "email": 7, "password": "x" })).await, 400).await;
    assert_eq!(wrong_type["detail"]["field"], "email");
    let not_an_object = assert_error(app.post("/api/auth/refresh", None, &json!([1, 2])).await, 400).await;
    assert!(not_an_object["message"].as_str().expect("message").contains("invalid request body"));
}

#[tokio::test]
async fn an_unknown_enum_value_is_400_naming_the_field() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let response = app
        .post(
            "/api/admin/users",
            Some(&admin),
            &json!({ "email": "a@example.com", "password": PASSWORD, "role": "superuser" }),
        )
        .await;
    let body = assert_error(response, 400).await;
    assert_eq!(body["detail"]["field"], "role");
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_json() {
    let app = spawn_app_with(&[("MAX_BODY_BYTES", "1024")], |_| {}).await;
    let response =
        app.post("/api/auth/login", None, &json!({ "email": "a@example.com", "password": "x".repeat(4096) })).await;
    assert_error(response, 413).await;
}

#[tokio::test]
async fn a_wrong_content_type_is_415_json() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(format!("{}/api/auth/login", app.address))
        .header("content-type", "text/plain")
        .body(r#"{"email":"a@example.com","password":"x"}"#)
        .send()
        .await
        .expect("sent");
    assert_error(response, 415).await;
}

mockall::mock! {
    pub FailingUsers {}
    #[async_trait]
    impl UserRepository for FailingUsers {
        async fn create(&self, user: NewUser) -> Result<User, CreateUserError>;
        async fn find_by_id(&self, id: UserId) -> Result<Option<User>, StoreError>;
        async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<User>, StoreError>;
        async fn find_by_wallet(&self, address: &EthAddress) -> Result<Option<User>, StoreError>;
        async fn update(&self, id: UserId, changes: UserChanges) -> Result<Option<User>, StoreError>;
        async fn revoke_access_tokens(&self, id: UserId) -> Result<bool, StoreError>;
        async fn list(&self) -> Result<Vec<User>, StoreError>;
    }
}

#[tokio::test]
async fn a_store_failure_is_503_json_without_internal_detail() {
    let mut users = MockFailingUsers::new();
    // The administrator bootstrap runs against the real store; no admin is configured here.
    users.expect_find_by_email().returning(|_| {
        Err(StoreError::Unavailable(anyhow::anyhow!(
            "FATAL: password authentication failed for user creditflow at db.internal:5432"
        )))
    });
    let app = spawn_app_with(&[("ADMIN_EMAIL", ""), ("ADMIN_PASSWORD", "")], |adapters| {
        adapters.users = Arc::new(users);
    })
    .await;
    let response = app.login("a@example.com", "whatever password").await;
    assert_eq!(response.headers()["retry-after"], "2");
    let body = assert_error(response, 503).await;
    assert_eq!(body["message"], "the database is not answering; retry shortly");
    assert_eq!(body["detail"], serde_json::json!({ "retry_after_seconds": 2 }));
    assert!(!body.to_string().contains("db.internal"));
}
