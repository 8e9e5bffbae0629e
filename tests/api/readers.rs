//! The document readers under attack, as an outside review attacked them: one analyst's slow files do not hold up another
//! user's upload, a PDF that asks for more work than the read budget is refused at once, and
//! statement spreadsheets are read in the same bounded worker processes.

use std::time::{Duration, Instant};

use crate::helpers::{FormPart, assert_error, spawn_app, spawn_app_with};

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// An executable worker script in a fresh directory (removed by the caller with `dir`).
fn worker_script(body: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("creditflow-readers-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("worker.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
    let mut permissions = std::fs::metadata(&path).expect("script").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).expect("chmod");
    (dir, path.display().to_string())
}

/// The review's attack, scaled to what the test can send: one user keeps slow files in flight
/// (here: files the worker takes 20 s over), and another user uploads a plain file. Before, the
/// slow files held both readers and the other user got 503 after waiting 10 s.
#[tokio::test]
async fn another_users_upload_is_read_while_one_user_keeps_slow_files_in_flight() {
    let real_worker = env!("CARGO_BIN_EXE_creditflow");
    let (dir, worker) = worker_script(&format!(
        "input=$(mktemp)\ncat > \"$input\"\nif grep -q SLOW \"$input\"; then sleep 20; fi\nexec 3< \"$input\"\nrm -f \"$input\"\nexec {real_worker} \"$@\" <&3"
    ));
    let app = spawn_app_with(&[("READER_WORKER", &worker)], |_| {}).await;
    let (attacker, other) = (app.token_for("analyst").await, app.token_for("analyst").await);
    let slow = b"SLOW CREDIT AGREEMENT dated as of March 1, 2024".as_slice();
    let plain = b"CREDIT AGREEMENT dated as of March 1, 2024, among Borrower Co. and the Lenders".as_slice();

    let slow_part = [FormPart::file("slow.txt", "text/plain", slow)];
    let flood = futures_util::future::join_all((0..3).map(|_| app.post_form("/api/extract", &attacker, &slow_part)));
    let other_upload = async {
        // The slow files are in flight first.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let started = Instant::now();
        let response = app.post_form("/api/extract", &other, &[FormPart::file("a.txt", "text/plain", plain)]).await;
        (response, started.elapsed())
    };
    tokio::select! {
        _ = flood => panic!("the slow files were read before the other user's file"),
        (response, waited) = other_upload => {
            assert_eq!(response.status(), 200, "{:?}", response.text().await);
            assert!(waited < Duration::from_secs(5), "the other user's file waited {waited:?}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A PDF of `pages` pages that all run one content stream of `lines` lines of text.
fn shared_stream_pdf(pages: usize, lines: usize) -> Vec<u8> {
    use pdf_extract::{Document, Object, Stream, dictionary};
    let mut document = Document::with_version("1.5");
    let tree = document.new_object_id();
    let font = document.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier" });
    let content: String = (0..lines)
        .map(|line| {
            format!("BT /F1 10 Tf 72 {} Td (Section {line}. The Borrower shall repay.) Tj ET\n", 720 - line % 60 * 10)
        })
        .collect();
    let stream = document.add_object(Stream::new(dictionary! {}, content.into_bytes()));
    let kids: Vec<Object> = (0..pages)
        .map(|_| {
            let page = dictionary! {
                "Type" => "Page",
                "Parent" => tree,
                "Contents" => stream,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            };
            Object::Reference(document.add_object(page))
        })
        .collect();
    let resources = dictionary! { "Font" => dictionary! { "F1" => font } };
    let count = i64::try_from(pages).expect("pages");
    document.objects.insert(
        tree,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources },
        ),
    );
    let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => tree });
    document.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).expect("pdf");
    bytes
}

#[tokio::test]
async fn a_pdf_of_thousands_of_pages_sharing_one_content_stream_is_422_too_costly_without_spending_the_budget() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    // 4,999 pages of 5,000 operations each: 25 million, where a 30 s budget affords 15 million.
    let pdf = shared_stream_pdf(4_999, 1_000);
    assert!(pdf.len() < 1_000_000, "{} bytes", pdf.len());
    let started = Instant::now();
    let response =
        app.post_form("/api/documents", &token, &[FormPart::file("long.pdf", "application/pdf", &pdf)]).await;
    let body = assert_error(response, 422).await;
    assert_eq!(body["detail"]["reason"], "too_costly", "{body}");
    assert!(body["message"].as_str().unwrap_or_default().contains("content-stream operations"), "{body}");
    assert!(started.elapsed() < Duration::from_secs(15), "answered after {:?}", started.elapsed());
}

/// A workbook package whose shared-string table has no `uniqueCount` and more strings than are
/// read: 5 MB of `<si/>` deflated to a few KB (the review's file held 13 million in 64 MiB).
fn shared_strings_bomb() -> Vec<u8> {
    use std::io::Write as _;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("xl/sharedStrings.xml", options).expect("part");
    zip.write_all(b"<?xml version=\"1.0\"?><sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">")
        .expect("write");
    zip.write_all(&b"<si/>".repeat(1_000_001)).expect("write");
    zip.write_all(b"</sst>").expect("write");
    zip.finish().expect("zip").into_inner()
}

#[tokio::test]
async fn a_shared_strings_bomb_without_a_unique_count_is_refused_by_count() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let bomb = shared_strings_bomb();
    assert!(bomb.len() < 100 * 1024, "{} bytes", bomb.len());
    let parts = [FormPart::file("bomb.xlsx", XLSX, &bomb), FormPart::text("borrower_name", "Bomb Co")];
    let body = assert_error(app.post_form("/api/financial-statements", &token, &parts).await, 422).await;
    let reason = body["detail"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("holds more than 1000000 strings"), "{body}");
}

/// Statement spreadsheets go through the document readers' worker, with its limits: a worker
/// that hangs is ended at `READER_TIMEOUT`, and one that dies is the file's 422, not the service's.
#[tokio::test]
async fn a_statements_spreadsheet_is_read_in_the_readers_worker_within_its_limits() {
    let csv = b"Line item,FY2023\nRevenue,1200\n".as_slice();
    for (body, said) in [("exec sleep 30", "took longer than 1 s"), ("kill -9 $$", "memory limit")] {
        let (dir, worker) = worker_script(body);
        let app = spawn_app_with(&[("READER_WORKER", &worker), ("READER_TIMEOUT", "1s")], |_| {}).await;
        let token = app.token_for("analyst").await;
        let parts = [FormPart::file("n.csv", "text/csv", csv), FormPart::text("borrower_name", "N")];
        let started = Instant::now();
        let body = assert_error(app.post_form("/api/financial-statements", &token, &parts).await, 422).await;
        assert!(body["message"].as_str().unwrap_or_default().contains(said), "{body}");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(app.get("/health/live", None).await.status(), 200);
        let _ = std::fs::remove_dir_all(dir);
    }
}
