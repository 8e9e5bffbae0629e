//! User administration and role enforcement.

use serde_json::{Value, json};

use crate::helpers::*;

#[tokio::test]
async fn an_admin_creates_and_lists_users() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let created = app
        .post(
            "/api/admin/users",
            Some(&admin),
            &json!({ "email": "Ana@Example.com", "password": PASSWORD, "role": "analyst" }),
        )
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.expect("json");
    assert_eq!(created["email"], "ana@example.com");
    assert_eq!(created["role"], "analyst");
    assert_eq!(created["disabled"], false);
    assert!(created.get("password").is_none() && created.get("password_hash").is_none());

    let list: Value = app.get("/api/admin/users", Some(&admin)).await.json().await.expect("json");
    assert_eq!(list["total"], 2);
    let emails: Vec<_> = list["users"].as_array().expect("users").iter().map(|u| u["email"].clone()).collect();
    assert!(emails.contains(&json!("ana@example.com")));

    let signed_in = app.sign_in("ana@example.com", PASSWORD).await;
    assert_eq!(signed_in["user"]["role"], "analyst");
}

#[tokio::test]
async fn a_duplicate_email_is_409_and_a_short_password_is_400_naming_the_field() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let duplicate = app
        .post(
            "/api/admin/users",
            Some(&admin),
            &json!({ "email": ADMIN_EMAIL, "password": PASSWORD, "role": "viewer" }),
        )
        .await;
    assert_error(duplicate, 409).await;
    let short = app
        .post(
            "/api/admin/users",
            Some(&admin),
            &json!({ "email": "x@example.com", "password": "too short", "role": "viewer" }),
        )
        .await;
    let body = assert_error(short, 400).await;
    assert_eq!(body["detail"]["field"], "password");
    let unknown_role = app
        .post(
            "/api/admin/users",
            Some(&admin),
            &json!({ "email": "x@example.com", "password": PASSWORD, "role": "root" }),
        )
        .await;
    let body = assert_error(unknown_role, 400).await;
    assert_eq!(body["detail"]["field"], "role");
}

#[tokio::test]
async fn viewers_and_analysts_get_403_on_admin_routes() {
    let app = spawn_app().await;
    for role in ["viewer", "analyst"] {
        let token = app.token_for(role).await;
        let post = app
            .post(
                "/api/admin/users",
                Some(&token),
                &json!({ "email": "y@example.com", "password": PASSWORD, "role": "admin" }),
            )
            .await;
        let body = assert_error(post, 403).await;
        assert!(body["message"].as_str().expect("message").contains("admin role"));
        assert_error(app.get("/api/admin/users", Some(&token)).await, 403).await;
        // Reading their own profile is allowed.
        assert_eq!(app.get("/api/auth/me", Some(&token)).await.status(), 200);
    }
}

#[tokio::test]
async fn a_viewer_may_sign_out() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    app.post(
        "/api/admin/users",
        Some(&admin),
        &json!({ "email": "v@example.com", "password": PASSWORD, "role": "viewer" }),
    )
    .await;
    let session = app.sign_in("v@example.com", PASSWORD).await;
    let logout = app
        .post("/api/auth/logout", Some(&access_token(&session)), &json!({ "refresh_token": refresh_token(&session) }))
        .await;
    assert_eq!(logout.status(), 204);
}

async fn create(app: &TestApp, admin: &str, email: &str, role: &str) -> Value {
    let created =
        app.post("/api/admin/users", Some(admin), &json!({ "email": email, "password": PASSWORD, "role": role })).await;
    assert_eq!(created.status(), 201);
    created.json().await.expect("json")
}

async fn patch(app: &TestApp, token: &str, id: &str, body: Value) -> reqwest::Response {
    app.request(reqwest::Method::PATCH, &format!("/api/admin/users/{id}"), Some(token), Some(&body)).await
}

#[tokio::test]
async fn disabling_a_user_stops_sign_in_and_refresh() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let user = create(&app, &admin, "d@example.com", "analyst").await;
    let session = app.sign_in("d@example.com", PASSWORD).await;

    let disabled = patch(&app, &admin, user["id"].as_str().expect("id"), json!({ "disabled": true })).await;
    assert_eq!(disabled.status(), 200);
    let disabled: Value = disabled.json().await.expect("json");
    assert_eq!(disabled["disabled"], true);
    // The access token issued before stops at once.
    let body = assert_error(app.get("/api/auth/me", Some(&access_token(&session))).await, 403).await;
    assert!(body["message"].as_str().is_some_and(|m| m.contains("disabled")), "{body}");

    assert_error(app.login("d@example.com", PASSWORD).await, 403).await;
    let refresh = app.post("/api/auth/refresh", None, &json!({ "refresh_token": refresh_token(&session) })).await;
    assert_error(refresh, 401).await;

    patch(&app, &admin, user["id"].as_str().expect("id"), json!({ "disabled": false })).await;
    assert_eq!(app.login("d@example.com", PASSWORD).await.status(), 200);
}

#[tokio::test]
async fn a_role_change_applies_at_once_and_a_demotion_ends_the_old_tokens() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let user = create(&app, &admin, "r@example.com", "viewer").await;
    let id = user["id"].as_str().expect("id");
    let viewer_token = access_token(&app.sign_in("r@example.com", PASSWORD).await);
    assert_eq!(app.get("/api/admin/users", Some(&viewer_token)).await.status(), 403);
    let promoted = patch(&app, &admin, id, json!({ "role": "admin" })).await;
    assert_eq!(promoted.status(), 200);
    // The role is read from the account on every request, not from the token.
    assert_eq!(app.get("/api/admin/users", Some(&viewer_token)).await.status(), 200);
    let demoted = patch(&app, &admin, id, json!({ "role": "viewer" })).await;
    assert_eq!(demoted.status(), 200);
    assert_eq!(app.get("/api/admin/users", Some(&viewer_token)).await.status(), 401, "a demotion revokes tokens");
    let token = access_token(&app.sign_in("r@example.com", PASSWORD).await);
    assert_eq!(app.get("/api/admin/users", Some(&token)).await.status(), 403);
}

#[tokio::test]
async fn administrators_cannot_lock_themselves_out() {
    let app = spawn_app().await;
    let session = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let admin = access_token(&session);
    let own_id = session["user"]["id"].as_str().expect("id").to_owned();
    let body = assert_error(patch(&app, &admin, &own_id, json!({ "disabled": true })).await, 400).await;
    assert_eq!(body["detail"]["field"], "disabled");
    let body = assert_error(patch(&app, &admin, &own_id, json!({ "role": "viewer" })).await, 400).await;
    assert_eq!(body["detail"]["field"], "role");
    assert_error(patch(&app, &admin, &own_id, json!({})).await, 400).await;
}

#[tokio::test]
async fn an_unknown_or_malformed_user_id_is_404() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let unknown = uuid::Uuid::new_v4().to_string();
    assert_error(patch(&app, &admin, &unknown, json!({ "disabled": true })).await, 404).await;
    assert_error(patch(&app, &admin, "not-a-uuid", json!({ "disabled": true })).await, 404).await;
    let analyst = app.token_for("analyst").await;
    assert_error(patch(&app, &analyst, &unknown, json!({ "disabled": true })).await, 403).await;
}
