//! Hostile connections: slow headers, trickled bodies, idle and half-open connections, floods
//! from one client, forwarded addresses, and the headers every response carries; and the other
//! side of it: a client that sends its whole request before reading still reads the early answer
//! (413, 503 at a cap) instead of a reset. Raw TCP on loopback, with timeouts of a second or two so
//! each test stays short.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::*;

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://")).await.expect("connect")
}

/// Reads until the server closes the connection; how long that took, or `None` if it was still
/// open after `limit`. Whatever the server sent before closing is returned too.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<(Duration, String)> {
    let started = Instant::now();
    let mut received = Vec::new();
    let mut buffer = [0_u8; 4096];
    loop {
        let remaining = limit.checked_sub(started.elapsed())?;
        match tokio::time::timeout(remaining, stream.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some((started.elapsed(), String::from_utf8_lossy(&received).into_owned())),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
        }
    }
}

/// Writes all of `request` before reading anything, as Python `requests`, Java's
/// `HttpURLConnection` and many SDKs do, then reads the answer until the server closes.
async fn send_whole_request_then_read(stream: &mut TcpStream, request: &[u8]) -> String {
    stream.write_all(request).await.expect("the server takes the whole request without resetting the connection");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the server closes the connection after answering")
        .expect("the answer is read to its end, not cut off by a reset");
    String::from_utf8_lossy(&answer).into_owned()
}

/// A request in flight on its own connection: its headers announce a body that is never sent.
async fn busy_connection(app: &TestApp) -> TcpStream {
    let mut stream = connect(app).await;
    stream.write_all(b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n").await.expect("write");
    stream
}

fn header<'a>(answer: &'a str, name: &str) -> Option<&'a str> {
    let head = answer.split("\r\n\r\n").next()?;
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

#[tokio::test]
async fn a_silent_connection_is_closed_within_the_header_timeout() {
    let app = spawn_app_with(&[("HTTP_HEADER_READ_TIMEOUT", "1s")], |_| {}).await;
    let mut silent = connect(&app).await;
    let (took, _) = closed_within(&mut silent, Duration::from_secs(4)).await.expect("closed");
    assert!(took >= Duration::from_millis(900), "not before the timeout: {took:?}");
}

#[tokio::test]
async fn a_header_sent_a_byte_at_a_time_is_cut_off_at_the_header_timeout() {
    let app = spawn_app_with(&[("HTTP_HEADER_READ_TIMEOUT", "1s")], |_| {}).await;
    let mut slow = connect(&app).await;
    let started = Instant::now();
    slow.write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\n").await.expect("write");
    // Keep trickling header lines, never finishing the head, for up to 5 s.
    let mut cut_off = None;
    while started.elapsed() < Duration::from_secs(5) {
        if slow.write_all(b"X-Slow: a\r\n").await.is_err() {
            cut_off = Some(started.elapsed());
            break;
        }
        if let Some((_, _)) = closed_within(&mut slow, Duration::from_millis(200)).await {
            cut_off = Some(started.elapsed());
            break;
        }
    }
    let took = cut_off.expect("the slow header was cut off");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_within_the_idle_timeout() {
    let app = spawn_app_with(&[("HTTP_HEADER_READ_TIMEOUT", "5s"), ("HTTP_IDLE_TIMEOUT", "1s")], |_| {}).await;
    let mut stream = connect(&app).await;
    stream.write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("write");
    let (took, received) = closed_within(&mut stream, Duration::from_secs(4)).await.expect("closed when idle");
    assert!(received.starts_with("HTTP/1.1 200"), "{received}");
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn a_trickled_body_is_answered_408_at_the_body_timeout() {
    let app = spawn_app_with(&[("HTTP_BODY_READ_TIMEOUT", "1s")], |_| {}).await;
    let mut stream = connect(&app).await;
    stream
        .write_all(b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":")
        .await
        .expect("write");
    let (took, received) = closed_within(&mut stream, Duration::from_secs(4)).await.expect("answered and closed");
    assert!(received.starts_with("HTTP/1.1 408"), "{received}");
    assert!(received.contains(r#""status":"error""#), "{received}");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn a_flood_of_half_open_connections_from_one_client_displaces_itself() {
    let app = spawn_app_with(&[("HTTP_MAX_CONNECTIONS_PER_CLIENT", "8")], |_| {}).await;
    let mut flood = Vec::new();
    for _ in 0..60 {
        let mut stream = connect(&app).await;
        stream.write_all(b"G").await.expect("one byte");
        flood.push(stream);
    }
    // The same client's real request still gets through at once.
    let started = Instant::now();
    assert_eq!(app.get("/health/live", None).await.status(), 200);
    assert!(started.elapsed() < Duration::from_secs(1));
    let mut closed = 0;
    for stream in &mut flood {
        if closed_within(stream, Duration::from_millis(20)).await.is_some() {
            closed += 1;
        }
    }
    // At most 8 served, and 8 displaced so soon after opening that their request might have been
    // on its way: those wait for it, to answer it 503, until the header timeout.
    assert!(closed >= 44, "at most 16 of the flood stay open, {closed} of 60 closed");
}

#[tokio::test]
async fn at_the_global_cap_with_every_connection_busy_a_new_one_is_answered_503() {
    let app = spawn_app_with(
        &[("HTTP_MAX_CONNECTIONS", "3"), ("HTTP_BODY_READ_TIMEOUT", "3s"), ("HTTP_HEADER_READ_TIMEOUT", "3s")],
        |_| {},
    )
    .await;
    // Three requests in flight, each waiting for a body that does not come.
    let mut busy = Vec::new();
    for _ in 0..3 {
        busy.push(busy_connection(&app).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut refused = connect(&app).await;
    let started = Instant::now();
    let answer = send_whole_request_then_read(&mut refused, b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert_eq!(header(&answer, "retry-after"), Some("1"), "{answer}");
    assert!(started.elapsed() < Duration::from_millis(500), "answered at once: {:?}", started.elapsed());
    // Once the busy requests end (408), there is room again.
    for stream in &mut busy {
        closed_within(stream, Duration::from_secs(5)).await.expect("busy request ends at the body timeout");
    }
    assert_eq!(app.get("/health/live", None).await.status(), 200);
}

#[tokio::test]
async fn a_client_that_sends_a_whole_oversized_body_before_reading_gets_the_413() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    // Twice the route's limit (25 MiB and a bit, for a file upload): more than the socket buffers
    // hold, so the server must read it for the client to finish writing.
    const BODY_BYTES: usize = 50_000_000;
    let mut request = format!(
        "POST /api/documents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {BODY_BYTES}\r\n\r\n"
    )
    .into_bytes();
    request.resize(request.len() + BODY_BYTES, b' ');

    let mut stream = connect(&app).await;
    let answer = send_whole_request_then_read(&mut stream, &request).await;

    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert_eq!(header(&answer, "connection"), Some("close"), "{answer}");
    assert!(answer.ends_with(r#"{"status":"error","message":"request body is too large"}"#), "{answer}");
}

#[tokio::test]
async fn a_client_that_sends_an_oversized_header_block_before_reading_gets_the_431() {
    let app = spawn_app().await;
    // 4 MB of header lines: past the 64 KiB a request head may take, and past the socket buffers.
    let mut request = b"GET /health/live HTTP/1.1\r\nHost: x\r\n".to_vec();
    for n in 0..40_000 {
        request.extend_from_slice(format!("X-Padding-{n:05}: {}\r\n", "a".repeat(80)).as_bytes());
    }
    request.extend_from_slice(b"\r\n");

    let mut stream = connect(&app).await;
    let answer = send_whole_request_then_read(&mut stream, &request).await;

    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
}

#[tokio::test]
async fn a_client_over_its_connection_cap_that_sends_a_whole_request_before_reading_gets_503() {
    let app = spawn_app_with(
        &[
            ("HTTP_MAX_CONNECTIONS_PER_CLIENT", "2"),
            ("HTTP_BODY_READ_TIMEOUT", "2s"),
            ("HTTP_HEADER_READ_TIMEOUT", "2s"),
        ],
        |_| {},
    )
    .await;
    let mut busy = vec![busy_connection(&app).await, busy_connection(&app).await];
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A sign-in with a body bigger than the socket buffers: unread, it would reset the connection.
    const BODY_BYTES: usize = 8 * 1024 * 1024;
    let mut request = format!(
        "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {BODY_BYTES}\r\n\r\n"
    )
    .into_bytes();
    request.resize(request.len() + BODY_BYTES, b' ');

    let mut over_the_cap = connect(&app).await;
    let answer = send_whole_request_then_read(&mut over_the_cap, &request).await;

    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert_eq!(header(&answer, "retry-after"), Some("1"), "{answer}");
    assert_eq!(header(&answer, "connection"), Some("close"), "{answer}");
    assert_eq!(header(&answer, "cache-control"), Some("no-store"), "{answer}");
    let body: serde_json::Value =
        serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap_or_default()).expect("a JSON error body");
    assert_eq!(body["status"], "error");
    assert_eq!(body["detail"]["retry_after_seconds"], 1);
    // The busy connections were left alone.
    for stream in &mut busy {
        let (_, received) = closed_within(stream, Duration::from_secs(5)).await.expect("ends at the body timeout");
        assert!(received.starts_with("HTTP/1.1 408"), "{received}");
    }
}

#[tokio::test]
async fn a_burst_of_requests_from_one_client_past_its_cap_is_answered_not_reset() {
    let app = spawn_app_with(&[("HTTP_MAX_CONNECTIONS_PER_CLIENT", "8")], |_| {}).await;
    let body = br#"{"email":"burst@example.com","password":"not the password"}"#;
    let head = format!(
        "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    // Twice the cap, all connected before any request is read (as when a burst is accepted faster
    // than requests are parsed): the last eight displace the first eight, whose requests follow.
    let mut burst = Vec::new();
    for _ in 0..16 {
        burst.push(connect(&app).await);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    for stream in &mut burst {
        stream.write_all(head.as_bytes()).await.expect("head");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;

    let mut statuses = Vec::new();
    for stream in &mut burst {
        stream.write_all(body).await.expect("a connection that sent its request is not reset");
        let mut answer = vec![0_u8; 12];
        tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut answer))
            .await
            .expect("answered in time")
            .expect("answered, not reset or closed");
        statuses.push(String::from_utf8_lossy(&answer[9..12]).into_owned());
    }

    let refused = statuses.iter().filter(|status| *status == "503").count();
    let signed_in = statuses.iter().filter(|status| *status == "401" || *status == "429").count();
    assert_eq!((signed_in, refused), (8, 8), "{statuses:?}");
}

#[tokio::test]
async fn refusals_beyond_a_clients_refusal_budget_are_closed_at_once() {
    let app =
        spawn_app_with(&[("HTTP_MAX_CONNECTIONS_PER_CLIENT", "1"), ("HTTP_HEADER_READ_TIMEOUT", "2s")], |_| {}).await;
    let _busy = busy_connection(&app).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Over the cap and silent: it waits for its request (to answer it 503), holding the client's
    // one place for refusals.
    let mut waiting = connect(&app).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut turned_away = connect(&app).await;

    let (took, received) = closed_within(&mut turned_away, Duration::from_secs(1)).await.expect("closed at once");
    assert!(received.is_empty() && took < Duration::from_millis(500), "{took:?} {received}");
    assert!(closed_within(&mut waiting, Duration::from_millis(500)).await.is_none(), "still waiting for its request");
    let answer = send_whole_request_then_read(&mut waiting, b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let app = spawn_app_with(&[("TRUSTED_PROXIES", "127.0.0.1")], |_| {}).await;
    for response in [app.get("/health/live", None).await, app.get("/api/auth/me", None).await] {
        let headers = response.headers();
        assert_eq!(headers["cache-control"], "no-store");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(headers["referrer-policy"], "no-referrer");
        assert!(!headers.contains_key("strict-transport-security"), "plain HTTP gets no HSTS");
    }
    let over_tls = app
        .client
        .get(format!("{}/health/live", app.address))
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .expect("request");
    assert_eq!(over_tls.headers()["strict-transport-security"], "max-age=31536000");
}

#[tokio::test]
async fn forwarded_headers_are_ignored_from_an_untrusted_peer() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(format!("{}/health/live", app.address))
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .expect("request");
    assert!(!response.headers().contains_key("strict-transport-security"));
    // Sign-in failures claimed to come from different addresses all count against the peer.
    let app = spawn_app_with(&[("LOGIN_MAX_FAILURES_PER_CLIENT", "2")], |_| {}).await;
    for n in 0..2 {
        assert_eq!(login_as(&app, &format!("203.0.113.{n}"), &format!("u{n}@example.com")).await, 401);
    }
    assert_eq!(login_as(&app, "203.0.113.99", "u9@example.com").await, 429);
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_sign_in_budget() {
    let app =
        spawn_app_with(&[("TRUSTED_PROXIES", "127.0.0.0/8"), ("LOGIN_MAX_FAILURES_PER_CLIENT", "2")], |_| {}).await;
    for n in 0..2 {
        assert_eq!(login_as(&app, "203.0.113.1", &format!("u{n}@example.com")).await, 401);
    }
    assert_eq!(login_as(&app, "203.0.113.1", "u9@example.com").await, 429);
    // A client's own claim to the left of the proxy's entry is not believed.
    assert_eq!(login_as(&app, "198.51.100.1, 203.0.113.1", "u8@example.com").await, 429);
    assert_eq!(login_as(&app, "203.0.113.2", "u9@example.com").await, 401);
}

async fn login_as(app: &TestApp, forwarded_for: &str, email: &str) -> u16 {
    app.client
        .post(format!("{}/api/auth/login", app.address))
        .header("x-forwarded-for", forwarded_for)
        .json(&json!({ "email": email, "password": "a wrong password" }))
        .send()
        .await
        .expect("request")
        .status()
        .as_u16()
}
