//! `POST /api/documents/import` against an analyst who tries to leave EDGAR's archive: encoded dot
//! segments and separators, redirects to other hosts or other folders of the archive's host; and
//! failures upstream answered with one fixed 502 whose cause stays in the log.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use warp::Filter;
use warp::http::Response;

use crate::helpers::{TestApp, assert_error, spawn_app_with};

/// The body of every 502 an import answers.
const IMPORT_FAILED: &str = "the filing could not be fetched from the EDGAR archive; check the URL or retry later";

/// A web server that records the path of every request it gets.
struct FakeHost {
    origin: String,
    paths: Arc<Mutex<Vec<String>>>,
}

impl FakeHost {
    /// Serves `answer(path)` as (status, content type, `Location`, body).
    async fn start(
        answer: impl Fn(&str) -> (u16, &'static str, Option<String>, String) + Clone + Send + Sync + 'static,
    ) -> Self {
        let paths = Arc::new(Mutex::new(Vec::new()));
        let seen = paths.clone();
        let routes = warp::path::full().map(move |path: warp::path::FullPath| {
            seen.lock().unwrap().push(path.as_str().to_owned());
            let (status, content_type, location, body) = answer(path.as_str());
            let mut response = Response::builder().status(status).header("content-type", content_type);
            if let Some(location) = location {
                response = response.header("location", location);
            }
            response.body(body).unwrap()
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let origin = format!("http://{}", listener.local_addr().expect("address"));
        tokio::spawn(warp::serve(routes).incoming(listener).run());
        Self { origin, paths }
    }

    fn paths(&self) -> Vec<String> {
        self.paths.lock().unwrap().clone()
    }
}

/// EDGAR's archive at `/Archives/edgar/data/` of a host that also serves a page outside it
/// (`/secret.htm`), and redirects: inside the archive, to another host, and out of the folder.
async fn fake_archive(other_host: &str) -> FakeHost {
    let filing = std::fs::read_to_string(format!("{}/tests/fixtures/intake/agreement.htm", env!("CARGO_MANIFEST_DIR")))
        .expect("fixture");
    let elsewhere = format!("{other_host}/Archives/edgar/data/1/2/ex10-1.htm");
    FakeHost::start(move |path| match path {
        "/Archives/edgar/data/1/2/ex10-1.htm" => (200, "text/html", None, filing.clone()),
        "/secret.htm" => (200, "text/html", None, "<html><body>internal page outside the archive</body></html>".into()),
        "/Archives/edgar/data/1/2/renamed.htm" => (301, "text/html", Some("ex10-1.htm".into()), String::new()),
        "/Archives/edgar/data/1/2/moved.htm" => (302, "text/html", Some(elsewhere.clone()), String::new()),
        "/Archives/edgar/data/1/2/climb.htm" => (302, "text/html", Some("/secret.htm".into()), String::new()),
        "/Archives/edgar/data/1/2/encoded.htm" => {
            (302, "text/html", Some("%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.htm".into()), String::new())
        }
        _ => (404, "text/html", None, "<html>Not Found</html>".into()),
    })
    .await
}

async fn importing_from(archive: &str) -> TestApp {
    spawn_app_with(&[("EDGAR_ARCHIVE_URL", archive), ("FETCH_ALLOW_PRIVATE_NETWORKS", "true")], |_| {}).await
}

async fn import(app: &TestApp, token: &str, url: &str) -> reqwest::Response {
    app.post("/api/documents/import", Some(token), &json!({ "url": url })).await
}

async fn document_count(app: &TestApp, token: &str) -> u64 {
    let listed: Value = app.get("/api/documents", Some(token)).await.json().await.expect("json");
    listed["total"].as_u64().expect("total")
}

#[tokio::test]
async fn encoded_dot_segments_and_separators_cannot_lead_an_import_out_of_the_archive() {
    let other = FakeHost::start(|_| (200, "text/html", None, "<html>other host</html>".into())).await;
    let edgar = fake_archive(&other.origin).await;
    let archive = format!("{}/Archives/edgar/data/", edgar.origin);
    let app = importing_from(&archive).await;
    let token = app.token_for("analyst").await;

    for escape in [
        format!("{archive}%2e%2e/%2e%2e/%2e%2e/secret.htm"),
        format!("{archive}%2E%2E/%2E%2E/%2E%2E/secret.htm"),
        format!("{archive}.%2e/.%2e/.%2e/secret.htm"),
        format!("{archive}..%2f..%2f..%2fsecret.htm"),
        format!("{archive}..%5c..%5c..%5csecret.htm"),
        format!("{archive}..\\..\\..\\secret.htm"),
        format!("{archive}../../../secret.htm"),
        format!("{}/secret.htm", edgar.origin),
    ] {
        let body = assert_error(import(&app, &token, &escape).await, 400).await;

        assert_eq!(body["detail"]["field"], "url", "{escape}: {body}");
    }
    assert!(edgar.paths().is_empty(), "nothing was fetched: {:?}", edgar.paths());
    assert_eq!(document_count(&app, &token).await, 0);
}

#[tokio::test]
async fn every_redirect_of_an_import_must_stay_in_the_archive() {
    let other = FakeHost::start(|_| (200, "text/html", None, "<html>other host</html>".into())).await;
    let edgar = fake_archive(&other.origin).await;
    let archive = format!("{}/Archives/edgar/data/", edgar.origin);
    let app = importing_from(&archive).await;
    let token = app.token_for("analyst").await;

    for leaving in ["moved.htm", "climb.htm", "encoded.htm"] {
        let body = assert_error(import(&app, &token, &format!("{archive}1/2/{leaving}")).await, 502).await;

        assert_eq!(body["message"], IMPORT_FAILED, "{leaving}: {body}");
    }
    assert!(other.paths().is_empty(), "the other host was never asked: {:?}", other.paths());
    assert!(!edgar.paths().contains(&"/secret.htm".to_owned()), "{:?}", edgar.paths());

    let renamed = import(&app, &token, &format!("{archive}1/2/renamed.htm")).await;
    assert_eq!(renamed.status(), 201, "a redirect inside the archive is followed");
    assert_eq!(edgar.paths().last().map(String::as_str), Some("/Archives/edgar/data/1/2/ex10-1.htm"));
    assert_eq!(document_count(&app, &token).await, 1);
}

#[tokio::test]
async fn an_archive_that_does_not_deliver_is_a_fixed_502_without_its_cause() {
    let unused = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let closed_port = unused.local_addr().expect("address").port();
    drop(unused);
    let unreachable = importing_from(&format!("http://127.0.0.1:{closed_port}/Archives/edgar/data/")).await;
    let token = unreachable.token_for("analyst").await;

    let url = format!("http://127.0.0.1:{closed_port}/Archives/edgar/data/1/2/ex10-1.htm");
    let body = assert_error(import(&unreachable, &token, &url).await, 502).await;

    assert_eq!(body["message"], IMPORT_FAILED, "{body}");
    let text = body.to_string().to_lowercase();
    for cause in ["127.0.0.1", "refused", "connect", "error sending", "tcp", "dns"] {
        assert!(!text.contains(cause), "{cause:?} in {body}");
    }

    let other = FakeHost::start(|_| (200, "text/html", None, String::new())).await;
    let edgar = fake_archive(&other.origin).await;
    let app = importing_from(&format!("{}/Archives/edgar/data/", edgar.origin)).await;
    let token = app.token_for("analyst").await;
    let missing = format!("{}/Archives/edgar/data/1/2/gone.htm", edgar.origin);
    let body = assert_error(import(&app, &token, &missing).await, 502).await;
    assert_eq!(body["message"], IMPORT_FAILED, "{body}");
}
