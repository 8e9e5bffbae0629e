//! The console's files over HTTP: the page at `/` and its assets under `/console/`, each with the
//! strict Content-Security-Policy, `X-Frame-Options`, its content type and an ETag that answers 304;
//! unknown assets are the API's 404 JSON; the routes need no token and take no rate-limit budget;
//! the metrics count them under two templates. What the page does is driven in a browser in
//! `browser.rs`.

use crate::helpers::*;

const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                      connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

#[tokio::test]
async fn the_page_is_served_at_the_root_with_a_strict_policy() {
    let app = spawn_app().await;
    let response = app.get("/", None).await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(&response, "content-security-policy"), POLICY);
    assert_eq!(header(&response, "x-frame-options"), "DENY");
    assert_eq!(header(&response, "x-content-type-options"), "nosniff");
    assert_eq!(header(&response, "cache-control"), "no-cache");
    assert!(header(&response, "etag").starts_with('"'));
    assert!(response.headers().get("x-ratelimit-limit").is_none(), "the console is outside the rate limit");
    let page = response.text().await.expect("text");
    assert!(page.contains(r#"<script type="module" src="/console/js/app.js"></script>"#), "{page}");
    assert!(!page.contains("<script>") && !page.contains("style="), "nothing inline: the policy forbids it");
}

#[tokio::test]
async fn assets_have_their_types_and_an_unchanged_one_is_304() {
    let app = spawn_app().await;
    for (path, content_type) in [
        ("/console/js/app.js", "text/javascript; charset=utf-8"),
        ("/console/js/screens/document_detail.js", "text/javascript; charset=utf-8"),
        ("/console/console.css", "text/css; charset=utf-8"),
        ("/console/icon.svg", "image/svg+xml"),
    ] {
        let response = app.get(path, None).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(&response, "content-type"), content_type, "{path}");
        assert_eq!(header(&response, "content-security-policy"), POLICY, "{path}");
        let etag = header(&response, "etag").to_owned();
        let again = app.client.get(format!("{}{path}", app.address)).header("if-none-match", &etag).send().await;
        let again = again.expect("sent");
        assert_eq!(again.status(), 304, "{path}");
        assert_eq!(header(&again, "etag"), etag);
        assert!(again.bytes().await.expect("body").is_empty());
    }
    let stale = app.client.get(format!("{}/console/js/app.js", app.address)).header("if-none-match", "\"old\"");
    assert_eq!(stale.send().await.expect("sent").status(), 200, "a changed file is sent again");
}

#[tokio::test]
async fn an_unknown_asset_or_a_write_is_answered_as_the_api_answers() {
    let app = spawn_app().await;
    assert_error(app.get("/console/nothing.js", None).await, 404).await;
    assert_error(app.get("/console/index.html", None).await, 404).await;
    assert_error(app.get("/console/%2e%2e/Cargo.toml", None).await, 404).await;
    assert_error(app.get("/no-such-page", None).await, 404).await;
    let write = app.post("/", None, &serde_json::json!({})).await;
    assert_eq!(header(&write, "allow"), "GET, HEAD");
    assert_error(write, 405).await;
    let head = app.request(reqwest::Method::HEAD, "/console/console.css", None, None).await;
    assert_eq!(head.status(), 200);
}

#[tokio::test]
async fn the_console_costs_no_budget_even_when_the_budget_is_spent() {
    let app = spawn_app_with(&[("RATE_LIMIT_PER_MINUTE", "1")], |_| {}).await;
    let token = app.token_for("analyst").await;
    // An invalid body still takes its slot: the budget is spent without queueing anything.
    let invalid = serde_json::json!({});
    assert_error(app.post("/api/deep-research/query", Some(&token), &invalid).await, 400).await;
    assert_error(app.post("/api/deep-research/query", Some(&token), &invalid).await, 429).await;
    for _ in 0..20 {
        let response = app.request(reqwest::Method::GET, "/console/js/api.js", Some(&token), None).await;
        assert_eq!(response.status(), 200);
    }
}

#[tokio::test]
async fn console_requests_are_counted_under_two_templates() {
    let app = spawn_app_with(&[("METRICS_ADDR", "127.0.0.1:0")], |_| {}).await;
    assert_eq!(app.get("/", None).await.status(), 200);
    assert_eq!(app.get("/console/js/app.js", None).await.status(), 200);
    assert_eq!(app.get("/console/js/render.js", None).await.status(), 200);
    assert_eq!(app.get("/console/missing.js", None).await.status(), 404);
    let address = app.metrics_address.as_ref().expect("metrics listener");
    let text = app.client.get(format!("{address}/metrics")).send().await.expect("scrape").text().await.expect("text");
    let count =
        |series: &str| text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse::<f64>().ok());
    assert_eq!(count(r#"creditflow_http_requests_total{method="GET",route="/",status="200"}"#), Some(1.0), "{text}");
    assert_eq!(
        count(r#"creditflow_http_requests_total{method="GET",route="/console/{asset}",status="200"}"#),
        Some(2.0),
        "{text}"
    );
    assert_eq!(count(r#"creditflow_http_requests_total{method="GET",route="unmatched",status="404"}"#), Some(1.0));
    assert!(!text.contains("app.js") && !text.contains("missing.js"), "raw paths never become labels");
}
