//! Login flood: what a flood of password guesses does to a legitimate sign-in.
//!
//! Usage: `login_flood BASE_URL EMAIL PASSWORD [FLOOD_REQUESTS] [CONCURRENCY]`, against a
//! service started with `TRUSTED_PROXIES=127.0.0.1` so `X-Forwarded-For` can stand for distinct
//! clients on loopback (scripts/login-flood.sh does the set-up). Three phases:
//!
//! 1. baseline: the owner signs in 20 times in a row from their own address (and keeps the
//!    device token the service hands out);
//! 2. one-address flood: `FLOOD_REQUESTS` logins with random e-mails from one address,
//!    `CONCURRENCY` at a time, while the owner keeps signing in from their device (with its
//!    device token) and from a new device (without one), each from its own address;
//! 3. distributed flood: the same, but every guess from a different address.
//!
//! For each phase it prints the owner's sign-in latencies (p50, p99, max) and statuses, and the
//! flood's statuses (401 wrong password, 429 throttled, 503 hashing queue full).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::Semaphore;

struct Target {
    client: reqwest::Client,
    base: String,
}

impl Target {
    /// One sign-in as `forwarded_for`, with `device_token` when given; its status, how long it
    /// took, and the device token of a success.
    async fn login(
        &self,
        email: &str,
        password: &str,
        forwarded_for: &str,
        device_token: Option<&str>,
    ) -> (u16, Duration, Option<String>) {
        let started = Instant::now();
        let response = self
            .client
            .post(format!("{}/api/auth/login", self.base))
            .header("x-forwarded-for", forwarded_for)
            .json(&json!({ "email": email, "password": password, "device_token": device_token }))
            .send()
            .await;
        let Ok(response) = response else {
            return (0, started.elapsed(), None);
        };
        let status = response.status().as_u16();
        let body: serde_json::Value = response.json().await.unwrap_or_default();
        let issued = body["device_token"].as_str().map(str::to_owned);
        (status, started.elapsed(), issued)
    }
}

fn summary(label: &str, mut latencies: Vec<Duration>, statuses: &BTreeMap<u16, usize>) {
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    if latencies.is_empty() {
        println!("{label}: no samples; statuses {statuses:?}");
        return;
    }
    println!(
        "{label}: n={} p50={:.1} ms p99={:.1} ms max={:.1} ms statuses {statuses:?}",
        latencies.len(),
        ms(at(0.5)),
        ms(at(0.99)),
        ms(at(1.0)),
    );
}

/// Signs the owner in every 50 ms from `address` (with `device_token` when given) until `stop`;
/// latencies and statuses.
async fn owner_signs_in(
    target: Arc<Target>,
    credentials: (String, String),
    address: &'static str,
    device_token: Option<String>,
    stop: Arc<AtomicBool>,
) -> (Vec<Duration>, BTreeMap<u16, usize>) {
    let (email, password) = credentials;
    let mut latencies = Vec::new();
    let mut statuses = BTreeMap::new();
    while !stop.load(Ordering::Relaxed) {
        let (status, took, _) = target.login(&email, &password, address, device_token.as_deref()).await;
        latencies.push(took);
        *statuses.entry(status).or_insert(0) += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (latencies, statuses)
}

async fn flood(target: &Arc<Target>, requests: usize, concurrency: usize, distributed: bool) -> BTreeMap<u16, usize> {
    let permits = Arc::new(Semaphore::new(concurrency));
    let mut tasks = Vec::with_capacity(requests);
    for n in 0..requests {
        let permit = permits.clone().acquire_owned().await.expect("semaphore open");
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = permit;
            let address = if distributed {
                format!("10.{}.{}.{}", n / 65_536 % 256, n / 256 % 256, n % 256)
            } else {
                "203.0.113.9".to_owned()
            };
            let email = format!("guess-{}@example.com", uuid::Uuid::new_v4().simple());
            target.login(&email, "Winter2026!guess", &address, None).await.0
        }));
    }
    let mut statuses = BTreeMap::new();
    for task in tasks {
        *statuses.entry(task.await.expect("flood task")).or_insert(0) += 1;
    }
    statuses
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, base, email, password, rest @ ..] = args.as_slice() else {
        eprintln!("usage: login_flood BASE_URL EMAIL PASSWORD [FLOOD_REQUESTS] [CONCURRENCY]");
        std::process::exit(2);
    };
    let requests: usize = rest.first().map_or(600, |v| v.parse().expect("FLOOD_REQUESTS is a number"));
    let concurrency: usize = rest.get(1).map_or(150, |v| v.parse().expect("CONCURRENCY is a number"));
    let client = reqwest::Client::builder().pool_max_idle_per_host(concurrency).build().expect("client");
    let target = Arc::new(Target { client, base: base.trim_end_matches('/').to_owned() });

    let mut latencies = Vec::new();
    let mut statuses = BTreeMap::new();
    let mut device_token = None;
    for _ in 0..20 {
        let (status, took, issued) = target.login(email, password, "198.51.100.7", None).await;
        latencies.push(took);
        *statuses.entry(status).or_insert(0) += 1;
        device_token = issued.or(device_token);
    }
    summary("baseline owner sign-in", latencies, &statuses);

    for (label, distributed) in [("one-address flood", false), ("distributed flood", true)] {
        let stop = Arc::new(AtomicBool::new(false));
        let credentials = (email.clone(), password.clone());
        let known = tokio::spawn(owner_signs_in(
            target.clone(),
            credentials.clone(),
            "198.51.100.7",
            device_token.clone(),
            stop.clone(),
        ));
        let new = tokio::spawn(owner_signs_in(target.clone(), credentials, "198.51.100.8", None, stop.clone()));
        let started = Instant::now();
        let flooded = flood(&target, requests, concurrency, distributed).await;
        let took = started.elapsed();
        stop.store(true, Ordering::Relaxed);
        println!(
            "{label}: {requests} guesses, {concurrency} at a time, in {:.2} s: statuses {flooded:?}",
            took.as_secs_f64()
        );
        let (latencies, statuses) = known.await.expect("owner task");
        summary(&format!("  owner from their device (device token) during the {label}"), latencies, &statuses);
        let (latencies, statuses) = new.await.expect("owner task");
        summary(&format!("  owner from a new device during the {label}"), latencies, &statuses);
    }
}
