//! `TestApp`: the service on a free port with in-memory adapters, a manual clock, a fast password
//! hasher and typed request helpers. `TEST_LOG=1` shows the service's logs.

use std::sync::{Arc, LazyLock};

use creditflow::adapters::argon2_hasher::Argon2Hasher;
use creditflow::adapters::clock::ManualClock;
use creditflow::config::Config;
use creditflow::{Adapters, Application, telemetry};
use reqwest::{Method, Response};
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::oneshot;

pub const JWT_SECRET: &str = "integration-test-secret-of-at-least-32-bytes";
pub const ADMIN_EMAIL: &str = "admin@example.com";
pub const ADMIN_PASSWORD: &str = "admin password for tests";
pub const PASSWORD: &str = "a long enough password";

static TRACING: LazyLock<()> = LazyLock::new(|| {
    if std::env::var("TEST_LOG").is_ok() {
        telemetry::init(creditflow::config::LogFormat::Pretty, "debug");
    }
});

/// `TEST_LOG=1` shows the service's logs.
pub fn init_test_logging() {
    LazyLock::force(&TRACING);
}

pub struct TestApp {
    pub address: String,
    /// `http://127.0.0.1:<port>` of the metrics listener, when `METRICS_ADDR` was set.
    pub metrics_address: Option<String>,
    pub client: reqwest::Client,
    pub clock: Arc<ManualClock>,
    /// Chat sessions the service generated, by the name a test gave them, per token.
    chat_sessions: tokio::sync::Mutex<std::collections::HashMap<(String, String), String>>,
    _shutdown: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<anyhow::Result<()>>,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[], |_| {}).await
}

/// Spawns the app with extra configuration and a chance to replace adapters (mocks).
pub async fn spawn_app_with(overrides: &[(&str, &str)], customise: impl FnOnce(&mut Adapters)) -> TestApp {
    spawn_app_around(Adapters::in_memory(), overrides, customise).await
}

/// Spawns the app around the repositories of `adapters` (e.g. a PostgreSQL store).
pub async fn spawn_app_around(
    mut adapters: Adapters,
    overrides: &[(&str, &str)],
    customise: impl FnOnce(&mut Adapters),
) -> TestApp {
    init_test_logging();
    let mut vars = vec![
        ("JWT_SECRET", JWT_SECRET),
        ("ADMIN_EMAIL", ADMIN_EMAIL),
        ("ADMIN_PASSWORD", ADMIN_PASSWORD),
        ("SIWE_DOMAIN", "localhost:3000"),
        // Uploaded files are read by the service's own binary, started as a worker process.
        ("READER_WORKER", env!("CARGO_BIN_EXE_creditflow")),
    ];
    vars.extend_from_slice(overrides);
    let config = Config::for_tests(&vars).expect("test configuration is valid");
    let clock = Arc::new(ManualClock::starting_at(OffsetDateTime::now_utc()));
    adapters.hasher = Arc::new(Argon2Hasher::fast_for_tests());
    adapters.clock = clock.clone();
    customise(&mut adapters);
    let app = Application::build_with(config, adapters).await.expect("app builds");
    let port = app.port();
    let metrics_address = app.metrics_port().map(|port| format!("http://127.0.0.1:{port}"));
    let (shutdown, stopped) = oneshot::channel();
    let server = tokio::spawn(app.run_until(async {
        let _ = stopped.await;
    }));
    TestApp {
        address: format!("http://127.0.0.1:{port}"),
        metrics_address,
        client: reqwest::Client::new(),
        clock,
        chat_sessions: tokio::sync::Mutex::default(),
        _shutdown: shutdown,
        server,
    }
}

impl TestApp {
    /// Shuts the service down and waits until it has stopped, and with it the embedded cluster it
    /// may have started.
    pub async fn stop(self) {
        let TestApp { client, _shutdown: shutdown, server, .. } = self;
        drop(client);
        drop(shutdown);
        server.await.expect("the service task").expect("the service stops cleanly");
    }

    /// The id of the caller's chat session a test calls `name`: started on first use with
    /// `POST /api/digitizer-chatbot/sessions` (session ids are the service's to choose).
    pub async fn chat_session(&self, token: &str, name: &str) -> String {
        let mut sessions = self.chat_sessions.lock().await;
        if let Some(id) = sessions.get(&(token.to_owned(), name.to_owned())) {
            return id.clone();
        }
        let response = self.post("/api/digitizer-chatbot/sessions", Some(token), &json!({})).await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.expect("json");
        let id = body["session_id"].as_str().expect("session_id").to_owned();
        sessions.insert((token.to_owned(), name.to_owned()), id.clone());
        id
    }

    pub async fn request(&self, method: Method, path: &str, token: Option<&str>, body: Option<&Value>) -> Response {
        let mut request = self.client.request(method, format!("{}{}", self.address, path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        request.send().await.expect("request sent")
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Response {
        self.request(Method::POST, path, token, Some(body)).await
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Response {
        self.request(Method::GET, path, token, None).await
    }

    /// POSTs a `multipart/form-data` body: `file` parts as (name, file name, content type, bytes),
    /// text parts with neither file name nor content type.
    pub async fn post_form(&self, path: &str, token: &str, parts: &[FormPart<'_>]) -> Response {
        const BOUNDARY: &str = "creditflow-test-boundary-7d1f";
        let mut body = Vec::new();
        for part in parts {
            body.extend_from_slice(
                format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{}\"", part.name).as_bytes(),
            );
            if let Some(file_name) = part.file_name {
                body.extend_from_slice(format!("; filename=\"{file_name}\"").as_bytes());
            }
            body.extend_from_slice(b"\r\n");
            if let Some(content_type) = part.content_type {
                body.extend_from_slice(format!("Content-Type: {content_type}\r\n").as_bytes());
            }
            body.extend_from_slice(b"\r\n");
            body.extend_from_slice(part.bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
        self.client
            .post(format!("{}{}", self.address, path))
            .bearer_auth(token)
            .header("content-type", format!("multipart/form-data; boundary={BOUNDARY}"))
            .body(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn login(&self, email: &str, password: &str) -> Response {
        self.post("/api/auth/login", None, &json!({ "email": email, "password": password })).await
    }

    /// Signs in and returns the token response body.
    pub async fn sign_in(&self, email: &str, password: &str) -> Value {
        let response = self.login(email, password).await;
        assert_eq!(response.status(), 200, "sign-in of {email} failed");
        response.json().await.expect("json")
    }

    pub async fn admin_token(&self) -> String {
        access_token(&self.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await)
    }

    /// Creates a password user with `role` through the admin API; returns the e-mail.
    pub async fn create_user(&self, role: &str) -> String {
        let email = format!("{role}-{}@example.com", uuid::Uuid::new_v4().simple());
        let admin = self.admin_token().await;
        let created = self
            .post("/api/admin/users", Some(&admin), &json!({ "email": email, "password": PASSWORD, "role": role }))
            .await;
        assert_eq!(created.status(), 201);
        email
    }

    /// Creates a user with `role` through the admin API and returns their access token.
    pub async fn token_for(&self, role: &str) -> String {
        let email = self.create_user(role).await;
        access_token(&self.sign_in(&email, PASSWORD).await)
    }
}

pub fn access_token(body: &Value) -> String {
    body["access_token"].as_str().expect("access_token").to_owned()
}

pub fn refresh_token(body: &Value) -> String {
    body["refresh_token"].as_str().expect("refresh_token").to_owned()
}

/// One part of a form for [`TestApp::post_form`].
pub struct FormPart<'a> {
    pub name: &'a str,
    pub file_name: Option<&'a str>,
    pub content_type: Option<&'a str>,
    pub bytes: &'a [u8],
}

impl<'a> FormPart<'a> {
    pub fn file(file_name: &'a str, content_type: &'a str, bytes: &'a [u8]) -> Self {
        Self { name: "file", file_name: Some(file_name), content_type: Some(content_type), bytes }
    }

    pub fn text(name: &'a str, value: &'a str) -> Self {
        Self { name, file_name: None, content_type: None, bytes: value.as_bytes() }
    }
}

/// Asserts the spec's error shape and returns the body.
pub async fn assert_error(response: Response, status: u16) -> Value {
    assert_eq!(response.status(), status, "unexpected status");
    assert!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("application/json")),
        "error body must be JSON"
    );
    let body: Value = response.json().await.expect("json error body");
    assert_eq!(body["status"], "error");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "message: {body}");
    body
}

impl TestApp {
    pub fn clock_now(&self) -> OffsetDateTime {
        use creditflow::ports::clock::Clock as _;
        self.clock.now()
    }
}
