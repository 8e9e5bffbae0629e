//! Uploading credit agreements as files: PDF, EDGAR HTML, DOCX and text through
//! `multipart/form-data`, the original kept and downloadable, and every hostile or mislabelled file
//! refused with the reason and nothing stored.

use serde_json::Value;

use crate::helpers::{FormPart, TestApp, assert_error, spawn_app, spawn_app_with};

const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/intake/{name}", env!("CARGO_MANIFEST_DIR"))).expect(name)
}

async fn document_count(app: &TestApp, token: &str) -> u64 {
    let listed: Value = app.get("/api/documents", Some(token)).await.json().await.expect("json");
    listed["total"].as_u64().expect("total")
}

#[tokio::test]
async fn a_pdf_is_extracted_with_the_page_of_every_quote() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let pdf = fixture("agreement.pdf");
    let response =
        app.post_form("/api/extract", &token, &[FormPart::file("agreement.pdf", "application/pdf", &pdf)]).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    let source = &body["extraction"]["source"];
    assert_eq!((source["media_type"].as_str(), source["pages"].as_u64()), (Some("application/pdf"), Some(3)));
    assert_eq!(source["size_bytes"].as_u64(), Some(pdf.len() as u64));
    assert_eq!(body["agreement"]["agreementDate"], "2024-03-15");
    let provenance = body["extraction"]["provenance"].as_object().expect("provenance");
    let law = provenance.iter().find(|(pointer, _)| pointer.contains("governingLaw")).expect("governing law");
    assert_eq!(law.1["page"], 3, "{law:?}");
    assert!(provenance.values().all(|entry| entry["page"].as_u64().is_some_and(|p| (1..=3).contains(&p))));
}

#[tokio::test]
async fn each_format_is_stored_with_its_original_which_downloads_byte_for_byte() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let files = [
        ("agreement.pdf", "application/pdf"),
        ("agreement.htm", "text/html; charset=windows-1252"),
        ("agreement.docx", DOCX),
    ];
    for (name, content_type) in files {
        let bytes = fixture(name);
        let parts = [FormPart::file(name, content_type, &bytes), FormPart::text("deal_id", "77")];
        let response = app.post_form("/api/documents", &token, &parts).await;
        assert_eq!(response.status(), 201, "{name}");
        let body: Value = response.json().await.expect("json");
        let document = &body["document"];
        assert_eq!(document["title"], "agreement", "the file name is the title");
        assert_eq!(document["deal_id"], 77);
        let version = &document["versions"][0];
        assert_eq!(version["original"]["size_bytes"].as_u64(), Some(bytes.len() as u64), "{name}");
        assert!(version["text"].as_str().unwrap().contains("1.75%"), "{name}: the grid is read");
        let agreement = &version["agreement"];
        assert_eq!(agreement["agreementDate"], "2024-03-15", "{name}");

        let id = document["document_id"].as_i64().expect("id");
        let download = app.get(&format!("/api/documents/{id}/versions/1/original"), Some(&token)).await;
        assert_eq!(download.status(), 200);
        let header = |h: &str| download.headers().get(h).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        assert_eq!(header("content-type"), content_type.split(';').next().unwrap());
        assert!(header("content-disposition").starts_with("attachment;"));
        assert_eq!(header("x-content-sha256"), version["original"]["sha256"].as_str().unwrap());
        assert_eq!(header("content-security-policy"), "sandbox");
        assert_eq!(download.bytes().await.expect("bytes").as_ref(), bytes.as_slice(), "{name}");
    }
    // A version sent as text has no original; another user sees no file at all.
    let text = app
        .post("/api/documents", Some(&token), &serde_json::json!({"title": "t", "text": "CREDIT AGREEMENT text"}))
        .await;
    let id = text.json::<Value>().await.expect("json")["document"]["document_id"].as_i64().expect("id");
    assert_error(app.get(&format!("/api/documents/{id}/versions/1/original"), Some(&token)).await, 404).await;
    let stranger = app.token_for("analyst").await;
    assert_error(app.get("/api/documents/1/versions/1/original", Some(&stranger)).await, 404).await;
}

#[tokio::test]
async fn a_file_whose_bytes_are_not_its_declared_type_or_of_no_accepted_type_is_415() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let pdf = fixture("agreement.pdf");
    let lying = app.post_form("/api/documents", &token, &[FormPart::file("agreement.docx", DOCX, &pdf)]).await;
    let body = assert_error(lying, 415).await;
    assert!(body["message"].as_str().unwrap().contains("its bytes are a PDF"), "{body}");
    assert_eq!(body["detail"]["accepted"].as_array().map(Vec::len), Some(4));
    let image = app.post_form("/api/extract", &token, &[FormPart::file("scan.png", "image/png", b"\x89PNG")]).await;
    assert_error(image, 415).await;
    assert_eq!(document_count(&app, &token).await, 0);
}

#[tokio::test]
async fn hostile_and_unreadable_files_are_422_with_the_reason_and_nothing_is_stored() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let whole = fixture("agreement.pdf");
    let cases: [(&str, &str, Vec<u8>, &str); 4] = [
        ("encrypted.pdf", "application/pdf", fixture("encrypted.pdf"), "encrypted"),
        ("truncated.pdf", "application/pdf", whole[..whole.len() / 2].to_vec(), "corrupt"),
        ("scan.pdf", "application/pdf", fixture("image-only.pdf"), "image_only"),
        ("bomb.docx", DOCX, fixture("bomb.docx"), "expands_too_far"),
    ];
    for (name, content_type, bytes, reason) in cases {
        let response = app.post_form("/api/documents", &token, &[FormPart::file(name, content_type, &bytes)]).await;
        let body = assert_error(response, 422).await;
        assert_eq!(body["detail"]["reason"], reason, "{name}: {body}");
        if reason == "image_only" {
            assert_eq!(body["detail"]["pages_without_text"], serde_json::json!([1, 2]));
        }
    }
    assert_eq!(document_count(&app, &token).await, 0);
}

#[tokio::test]
async fn a_file_over_the_upload_limit_is_413() {
    let app = spawn_app_with(&[("UPLOAD_MAX_BYTES", "10000")], |_| {}).await;
    let token = app.token_for("analyst").await;
    let pdf = fixture("agreement.pdf");
    let response = app.post_form("/api/extract", &token, &[FormPart::file("a.pdf", "application/pdf", &pdf)]).await;
    assert_eq!(response.status(), 413);
}

/// A worker that never answers, or dies, stands for a file that makes a parser loop or blow its
/// memory: the request ends at the limit with 422, and the service goes on.
#[tokio::test]
async fn a_reader_that_hangs_or_dies_is_a_422_and_the_service_goes_on() {
    let dir = std::env::temp_dir().join(format!("creditflow-worker-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let write_script = |name: &str, body: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
        let mut permissions = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&path, permissions).expect("chmod");
        path.display().to_string()
    };
    let hanging = write_script("hang.sh", "exec sleep 30");
    let dying = write_script("die.sh", "kill -9 $$");
    for (worker, reason) in [(hanging, "timed_out"), (dying, "reader_limit")] {
        let app = spawn_app_with(&[("READER_WORKER", &worker), ("READER_TIMEOUT", "1s")], |_| {}).await;
        let token = app.token_for("analyst").await;
        let text = b"CREDIT AGREEMENT dated as of March 1, 2024";
        let started = std::time::Instant::now();
        let response = app.post_form("/api/extract", &token, &[FormPart::file("a.txt", "text/plain", text)]).await;
        let body = assert_error(response, 422).await;
        assert_eq!(body["detail"]["reason"], reason, "{body}");
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        assert_eq!(app.get("/health/live", None).await.status(), 200);
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A stand-in for EDGAR's archive: serves the fixture agreement as an exhibit and records the
/// User-Agent each request carried.
async fn fake_edgar() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use warp::Filter;
    let agents = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = agents.clone();
    let html = fixture("agreement.htm");
    let routes = warp::path!("Archives" / "edgar" / "data" / String / String / String)
        .and(warp::header::optional::<String>("user-agent"))
        .map(move |_cik: String, _accession: String, file: String, agent: Option<String>| {
            seen.lock().unwrap().push(agent.unwrap_or_default());
            let (status, content_type, body) = match file.as_str() {
                "ex10-1.htm" => (200, "text/html; charset=windows-1252", html.clone()),
                "scan.png" => (200, "image/png", b"\x89PNG".to_vec()),
                _ => (404, "text/html", b"<html>Not Found</html>".to_vec()),
            };
            warp::http::Response::builder().status(status).header("content-type", content_type).body(body).unwrap()
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(warp::serve(routes).incoming(listener).run());
    (format!("http://{address}/Archives/edgar/data/"), agents)
}

#[tokio::test]
async fn a_filing_is_imported_from_the_edgar_archive_with_secs_user_agent() {
    let (archive, agents) = fake_edgar().await;
    let app = spawn_app_with(
        &[
            ("EDGAR_ARCHIVE_URL", &archive),
            ("FETCH_ALLOW_PRIVATE_NETWORKS", "true"),
            ("SEC_USER_AGENT", "creditflow-tests risk@bank.example"),
        ],
        |_| {},
    )
    .await;
    let token = app.token_for("analyst").await;
    let url = format!("{archive}1018724/000119312523000849/ex10-1.htm");
    let response =
        app.post("/api/documents/import", Some(&token), &serde_json::json!({ "url": url, "deal_id": 9 })).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    let document = &body["document"];
    assert_eq!((document["title"].as_str(), document["deal_id"].as_i64()), (Some("ex10-1.htm"), Some(9)));
    assert_eq!(document["versions"][0]["original"]["media_type"], "text/html");
    assert_eq!(document["versions"][0]["agreement"]["agreementDate"], "2024-03-15");
    assert_eq!(agents.lock().unwrap().as_slice(), ["creditflow-tests risk@bank.example"]);

    let elsewhere = serde_json::json!({ "url": "https://example.com/Archives/edgar/data/1/2/ex.htm" });
    assert_error(app.post("/api/documents/import", Some(&token), &elsewhere).await, 400).await;
    let missing = serde_json::json!({ "url": format!("{archive}1/2/gone.htm") });
    assert_error(app.post("/api/documents/import", Some(&token), &missing).await, 502).await;
    let image = serde_json::json!({ "url": format!("{archive}1/2/scan.png") });
    assert_error(app.post("/api/documents/import", Some(&token), &image).await, 415).await;
    assert_eq!(document_count(&app, &token).await, 1);
}
