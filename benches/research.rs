//! The research loop against a slow fake web (issue 6, "Measure"): wall time of one 5-iteration
//! run, throughput of 20 runs executed at once, and memory per run.
//!
//! The real [`ResearchService`] is driven with the real adapters — [`SearxngSearch`] and
//! [`HttpPageFetcher`] (private networks allowed) — over the in-memory stores and the system
//! clock. The fake web is a warp server on 127.0.0.1:0, on its own thread and runtime, that
//! answers every SearXNG search (`GET /search?q=…&format=json`) and every page after
//! [`LATENCY`]. Each search returns [`RESULTS_PER_QUERY`] hits whose URLs are unique to the query
//! (`/pages/<hash of q>-<i>`), so every iteration has new pages to read; pages are 5–10 KB of HTML
//! about the company that never mention covenants or waivers, so no sub-question is ever covered
//! and every run does all its [`ITERATIONS`] iterations (asserted from the stored progress).
//!
//! Not criterion: a `harness = false` benchmark whose `main` prints a table, because one sample is
//! a whole run of about a second whose floor is the fake web's latency, not CPU time.
//!
//! Run: `cargo bench --bench research`.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use creditflow::adapters::clock::SystemClock;
use creditflow::adapters::fetch::{FetchSettings, HttpPageFetcher};
use creditflow::adapters::memory::{MemoryDocumentStore, MemoryResearchStore};
use creditflow::adapters::search::{SearxngSearch, SearxngSettings};
use creditflow::domain::auth::{Principal, Role, UserId};
use creditflow::domain::research::runs::{ResearchRun, ResearchStatus, WorkerId};
use creditflow::domain::research::service::{
    ResearchReport, ResearchRequest, ResearchService, ResearchSettings, WorkOutcome,
};
use creditflow::ports::page_fetch::PageFetcher;
use creditflow::ports::web_search::WebSearch;
use serde_json::{Value, json};
use warp::Filter;

/// Added to every search and every page the fake web serves.
const LATENCY: Duration = Duration::from_millis(100);
const QUESTION: &str = "What covenant waivers did Zorblax Quantum negotiate and what did they cost?";
const ITERATIONS: u32 = 5;
const RESULTS_PER_QUERY: usize = 5;
/// Timed single runs (after one untimed warm-up run).
const SINGLE_RUNS: usize = 7;
const CONCURRENT_RUNS: usize = 20;
/// `FETCH_MAX_CONCURRENT`'s default, a wider bound, and one above the 120 pages 20 runs read per
/// iteration (nothing queues).
const FETCH_BOUNDS: [usize; 3] = [8, 64, 128];
/// The fake web's thread, named so that its CPU time can be told apart from the service's.
const FAKE_WEB_THREAD: &str = "fake-web";
/// `getconf CLK_TCK` on Linux: the unit of CPU times in `/proc/*/stat`.
const CLOCK_TICKS_PER_SECOND: u64 = 100;

/// Sentences the pages are made of: about the company, never about covenants, waivers or what
/// anything cost, so the question is never settled.
const SENTENCES: &[&str] = &[
    "Zorblax Quantum builds cryogenic control electronics for superconducting processors.",
    "The company opened a second laboratory near the river where its engineers test dilution refrigerators.",
    "Its founders met while working on microwave packaging for research instruments.",
    "Zorblax Quantum hired several firmware engineers to rewrite the pulse scheduler.",
    "Customers in universities use the control racks to calibrate qubits overnight.",
    "The firm publishes application notes on wiring, shielding and thermal anchoring.",
    "A partnership with a fabrication foundry gives Zorblax Quantum access to custom chips.",
    "The engineering team prefers modular racks that can be serviced without warming the fridge.",
    "Zorblax Quantum presented a poster on crosstalk suppression at a physics conference.",
    "Analysts describe the market for quantum control hardware as small but growing.",
    "The product roadmap mentions faster readout chains and lower-noise amplifiers.",
    "Staff rotate between the assembly floor and the customer support desk.",
    "The company blog explains how it characterises coaxial lines at low temperature.",
    "Zorblax Quantum sponsors a student competition on error-correcting codes.",
    "Its chief scientist gave a talk about scaling control systems to many qubits.",
    "Visitors to the laboratory see rows of gold-plated sample holders.",
];

/// What the fake web served, and the most pages it served at once.
#[derive(Default)]
struct Traffic {
    searches: AtomicUsize,
    pages: AtomicUsize,
    pages_in_flight: AtomicUsize,
    peak_pages_in_flight: AtomicUsize,
}

impl Traffic {
    fn reset_peak(&self) {
        self.peak_pages_in_flight.store(0, Ordering::SeqCst);
    }
}

fn hash_of(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// A page of 5–10 KB of HTML, the same every time for the same name.
fn page_html(name: &str) -> String {
    let seed = hash_of(name);
    let target = 5_000 + usize::try_from(seed % 5_000).unwrap_or(0);
    let mut body = String::with_capacity(target + 1_000);
    let mut n = usize::try_from(seed % 1_000).unwrap_or(0);
    while body.len() < target {
        body.push_str("<p>");
        for _ in 0..4 {
            body.push_str(SENTENCES[n % SENTENCES.len()]);
            body.push(' ');
            n = n.wrapping_mul(7).wrapping_add(3);
        }
        body.push_str("</p>\n");
    }
    format!(
        "<!doctype html><html><head><title>Zorblax Quantum notes {name}</title>\
         <script>var analytics = {{ page: \"{name}\" }};</script></head>\
         <body><nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav><article>\n{body}</article></body></html>"
    )
}

/// Starts the fake web on its own thread (a current-thread runtime), returning its base URL.
fn start_fake_web(traffic: Arc<Traffic>) -> String {
    let (address_tx, address_rx) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::Builder::new()
        .name(FAKE_WEB_THREAD.to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("fake web runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
                let address = listener.local_addr().expect("address");
                let base = format!("http://{address}");
                let search_traffic = traffic.clone();
                let search = warp::path!("search").and(warp::query::<HashMap<String, String>>()).then(
                    move |query: HashMap<String, String>| {
                        let traffic = search_traffic.clone();
                        let base = base.clone();
                        async move {
                            traffic.searches.fetch_add(1, Ordering::SeqCst);
                            tokio::time::sleep(LATENCY).await;
                            let q = query.get("q").cloned().unwrap_or_default();
                            let key = format!("{:016x}", hash_of(&q));
                            let results: Vec<Value> = (0..RESULTS_PER_QUERY)
                                .map(|i| {
                                    json!({
                                        "url": format!("{base}/pages/{key}-{i}"),
                                        "title": format!("Zorblax Quantum notes {key}-{i}"),
                                        "content": SENTENCES[(i + key.len()) % SENTENCES.len()],
                                        "engine": "fake",
                                        "score": 1.0,
                                    })
                                })
                                .collect();
                            warp::reply::json(
                                &json!({ "query": q, "number_of_results": results.len(), "results": results }),
                            )
                        }
                    },
                );
                let page_traffic = traffic.clone();
                let pages = warp::path!("pages" / String).then(move |name: String| {
                    let traffic = page_traffic.clone();
                    async move {
                        traffic.pages.fetch_add(1, Ordering::SeqCst);
                        let now = traffic.pages_in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        traffic.peak_pages_in_flight.fetch_max(now, Ordering::SeqCst);
                        tokio::time::sleep(LATENCY).await;
                        let html = page_html(&name);
                        traffic.pages_in_flight.fetch_sub(1, Ordering::SeqCst);
                        warp::reply::html(html)
                    }
                });
                address_tx.send(address).expect("address sent");
                warp::serve(search.or(pages)).incoming(listener).run().await;
            });
        })
        .expect("fake web thread");
    let address = address_rx.recv().expect("fake web started");
    format!("http://{address}")
}

/// A service on fresh in-memory stores whose fetcher runs at most `max_concurrent` fetches.
fn service(base: &str, max_concurrent: usize) -> Arc<ResearchService> {
    let search: Arc<dyn WebSearch> = Arc::new(SearxngSearch::new(&SearxngSettings::new(base)).expect("searxng"));
    let fetcher: Arc<dyn PageFetcher> = Arc::new(
        HttpPageFetcher::new(&FetchSettings {
            max_concurrent,
            allow_private_networks: true,
            ..FetchSettings::default()
        })
        .expect("fetcher"),
    );
    let settings = ResearchSettings { time_budget: Duration::from_secs(3_600), ..ResearchSettings::default() };
    Arc::new(ResearchService::new(
        Arc::new(MemoryResearchStore::new()),
        Arc::new(MemoryDocumentStore::new()),
        vec![search],
        Some(fetcher),
        Arc::new(SystemClock),
        settings,
    ))
}

/// What a finished run's stored progress says.
struct RunFacts {
    queries: u64,
    pages_fetched: u64,
    sources: u64,
    sub_questions: u64,
    sub_questions_covered: u64,
    knowledge_items: usize,
    progress_bytes: usize,
    /// The progress JSON's top-level fields, largest first, with their sizes.
    progress_parts: Vec<(String, usize)>,
    answer_bytes: usize,
    events_bytes: usize,
}

/// Checks that `run` completed all its iterations without a provider error, and reads its figures.
fn facts(run: &ResearchRun) -> RunFacts {
    assert_eq!(run.status, ResearchStatus::Completed, "{:?}", run.error);
    let report = ResearchReport::of(run);
    let statistics = &report.statistics;
    let number = |key: &str| statistics[key].as_u64().unwrap_or_else(|| panic!("statistics.{key}: {statistics}"));
    assert_eq!(number("iterations"), u64::from(ITERATIONS), "every run does all its iterations: {statistics}");
    assert_eq!(number("provider_error_count"), 0, "{statistics}");
    RunFacts {
        queries: number("queries"),
        pages_fetched: number("pages_fetched"),
        sources: number("sources_used"),
        sub_questions: number("sub_questions"),
        sub_questions_covered: number("sub_questions_covered"),
        knowledge_items: report.knowledge_items.as_array().map_or(0, Vec::len),
        progress_bytes: serde_json::to_vec(&run.progress).expect("progress").len(),
        progress_parts: progress_parts(&run.progress),
        answer_bytes: run.answer.as_ref().map_or(0, String::len),
        events_bytes: serde_json::to_vec(&run.cdm_events).expect("events").len(),
    }
}

fn progress_parts(progress: &Value) -> Vec<(String, usize)> {
    let mut parts: Vec<(String, usize)> = progress
        .as_object()
        .map(|object| {
            object
                .iter()
                .map(|(key, value)| {
                    let count = value.as_array().map_or(String::new(), |items| format!(" ({})", items.len()));
                    (format!("{key}{count}"), serde_json::to_vec(value).expect("field").len())
                })
                .collect()
        })
        .unwrap_or_default();
    parts.sort_by_key(|part| std::cmp::Reverse(part.1));
    parts
}

fn request() -> ResearchRequest {
    ResearchRequest::new(QUESTION, None, Some(i64::from(ITERATIONS))).expect("request")
}

/// Submits, claims and executes one run; returns its wall time and the stored run.
async fn one_run(service: &ResearchService, caller: Principal) -> (Duration, ResearchRun) {
    let started = Instant::now();
    let run = service.submit(caller, request(), "bench").await.expect("submit");
    let worker = WorkerId::new_random();
    let claimed = service.claim(worker).await.expect("claim").expect("a pending run");
    assert_eq!(claimed.id, run.id);
    let outcome = service.execute(claimed, worker).await.expect("execute");
    let elapsed = started.elapsed();
    assert_eq!(outcome, WorkOutcome::Finished(run.id));
    (elapsed, service.get(caller, run.id).await.expect("stored run"))
}

/// Resident set size of this process, in KiB.
fn vm_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// User + system CPU time in a `/proc/…/stat` line.
fn cpu_of_stat(stat: &str) -> Duration {
    // The command name is in parentheses and may hold spaces; after it come field 3 (state) and on,
    // so utime and stime (fields 14 and 15) are the 12th and 13th.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|value| value.parse::<u64>().ok()).unwrap_or(0);
    let ticks = field(11) + field(12);
    Duration::from_millis(ticks * 1_000 / CLOCK_TICKS_PER_SECOND)
}

/// CPU time used so far by the whole process and by the fake web's thread.
fn cpu_times() -> (Duration, Duration) {
    let process = cpu_of_stat(&std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat"));
    let mut fake_web = Duration::ZERO;
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task").flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() == FAKE_WEB_THREAD {
            fake_web += cpu_of_stat(&std::fs::read_to_string(task.path().join("stat")).unwrap_or_default());
        }
    }
    (process, fake_web)
}

/// CPU time used since `since` by everything but the fake web, and by the fake web.
fn cpu_since(since: (Duration, Duration)) -> (Duration, Duration) {
    let (process, fake_web) = cpu_times();
    let fake_web = fake_web.saturating_sub(since.1);
    (process.saturating_sub(since.0).saturating_sub(fake_web), fake_web)
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

fn median(sorted: &[Duration]) -> Duration {
    let n = sorted.len();
    if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2 }
}

#[allow(clippy::cast_precision_loss)]
fn kib_to_mib(kib: i64) -> f64 {
    kib as f64 / 1024.0
}

struct Batch {
    total: Duration,
    service_cpu: Duration,
    fake_web_cpu: Duration,
    per_run: Vec<Duration>,
    rss_before_kib: u64,
    rss_after_kib: u64,
    peak_pages_in_flight: usize,
}

/// Submits [`CONCURRENT_RUNS`] runs, then starts as many tasks, each claiming and executing one.
async fn concurrent_batch(service: Arc<ResearchService>, caller: Principal, traffic: &Traffic) -> Batch {
    let rss_before_kib = vm_rss_kib();
    let mut ids = Vec::new();
    for _ in 0..CONCURRENT_RUNS {
        ids.push(service.submit(caller, request(), "bench").await.expect("submit").id);
    }
    traffic.reset_peak();
    let cpu_before = cpu_times();
    let started = Instant::now();
    let tasks: Vec<_> = (0..CONCURRENT_RUNS)
        .map(|_| {
            let service = service.clone();
            tokio::spawn(async move {
                let worker = WorkerId::new_random();
                let run = service.claim(worker).await.expect("claim").expect("a pending run");
                let id = run.id;
                assert_eq!(service.execute(run, worker).await.expect("execute"), WorkOutcome::Finished(id));
                started.elapsed()
            })
        })
        .collect();
    let mut per_run = Vec::new();
    for task in tasks {
        per_run.push(task.await.expect("task"));
    }
    let total = started.elapsed();
    let (service_cpu, fake_web_cpu) = cpu_since(cpu_before);
    let rss_after_kib = vm_rss_kib();
    for id in ids {
        facts(&service.get(caller, id).await.expect("stored run"));
    }
    per_run.sort();
    Batch {
        total,
        service_cpu,
        fake_web_cpu,
        per_run,
        rss_before_kib,
        rss_after_kib,
        peak_pages_in_flight: traffic.peak_pages_in_flight.load(Ordering::SeqCst),
    }
}

fn main() {
    let traffic = Arc::new(Traffic::default());
    let base = start_fake_web(traffic.clone());
    // The service's own kind of runtime: multi-threaded, one worker per core.
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let caller = Principal { user_id: UserId::new_random(), role: Role::Analyst };
    let latency_ms = ms(LATENCY);
    println!(
        "research loop: {ITERATIONS} iterations, fake web latency {latency_ms:.0} ms per search and per page, \
         {} worker threads",
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get)
    );

    // 1. One run at a time.
    let single = service(&base, FETCH_BOUNDS[0]);
    let (warm_up, _) = runtime.block_on(one_run(&single, caller));
    let mut times = Vec::new();
    let mut last = None;
    let cpu_before = cpu_times();
    for _ in 0..SINGLE_RUNS {
        let searches = traffic.searches.load(Ordering::SeqCst);
        let pages = traffic.pages.load(Ordering::SeqCst);
        let (elapsed, run) = runtime.block_on(one_run(&single, caller));
        let run_facts = facts(&run);
        assert_eq!(traffic.searches.load(Ordering::SeqCst) - searches, usize::try_from(run_facts.queries).unwrap());
        assert_eq!(traffic.pages.load(Ordering::SeqCst) - pages, usize::try_from(run_facts.pages_fetched).unwrap());
        times.push(elapsed);
        last = Some(run_facts);
    }
    let (single_cpu, single_web_cpu) = cpu_since(cpu_before);
    let single_cpu = single_cpu / u32::try_from(SINGLE_RUNS).unwrap();
    let single_web_cpu = single_web_cpu / u32::try_from(SINGLE_RUNS).unwrap();
    times.sort();
    let run = last.expect("a run");
    let serial = LATENCY * u32::try_from(run.queries + run.pages_fetched).unwrap();
    let floor = LATENCY * 2 * ITERATIONS;
    println!();
    println!("1. one run, submit → claim → execute ({SINGLE_RUNS} runs after a warm-up of {:.0} ms)", ms(warm_up));
    println!("   | median | min | max | target | latency floor (iterations × (search + fetch)) | serial sum avoided |");
    println!(
        "   | {:.0} ms | {:.0} ms | {:.0} ms | ≤ 2000 ms | {:.0} ms | {:.0} ms ({} queries + {} pages × {latency_ms:.0} ms) |",
        ms(median(&times)),
        ms(times[0]),
        ms(times[times.len() - 1]),
        ms(floor),
        ms(serial),
        run.queries,
        run.pages_fetched,
    );
    println!("   all runs: {:?}", times.iter().map(|t| format!("{:.0}", ms(*t))).collect::<Vec<_>>());
    println!(
        "   each run: {} queries, {} pages fetched, {} sources, {} knowledge items, {}/{} sub-questions covered; \
         service CPU {:.0} ms per run (process minus the fake web's thread), fake web CPU {:.0} ms",
        run.queries,
        run.pages_fetched,
        run.sources,
        run.knowledge_items,
        run.sub_questions_covered,
        run.sub_questions,
        ms(single_cpu),
        ms(single_web_cpu),
    );

    // 2. Twenty runs at once, with the default fetch bound and a wide one.
    println!();
    println!("2. {CONCURRENT_RUNS} runs executed concurrently ({CONCURRENT_RUNS} tasks, each claims and executes one)");
    println!(
        "   | FETCH_MAX_CONCURRENT | total wall time | runs/s | per-run finish median / max | peak pages in flight | \
         service CPU (per run) | fake web CPU | VmRSS before → after | growth / run |"
    );
    for bound in FETCH_BOUNDS {
        let batch = runtime.block_on(concurrent_batch(service(&base, bound), caller, &traffic));
        let growth_kib = i64::try_from(batch.rss_after_kib).unwrap() - i64::try_from(batch.rss_before_kib).unwrap();
        #[allow(clippy::cast_precision_loss)]
        let runs_per_second = CONCURRENT_RUNS as f64 / batch.total.as_secs_f64();
        println!(
            "   | {bound} | {:.0} ms | {runs_per_second:.1} | {:.0} / {:.0} ms | {} | {:.0} ms ({:.0} ms) | {:.0} ms | \
             {:.1} → {:.1} MiB | {:.0} KiB |",
            ms(batch.total),
            ms(median(&batch.per_run)),
            ms(batch.per_run[batch.per_run.len() - 1]),
            batch.peak_pages_in_flight,
            ms(batch.service_cpu),
            ms(batch.service_cpu / u32::try_from(CONCURRENT_RUNS).unwrap()),
            ms(batch.fake_web_cpu),
            kib_to_mib(i64::try_from(batch.rss_before_kib).unwrap()),
            kib_to_mib(i64::try_from(batch.rss_after_kib).unwrap()),
            growth_kib / i64::try_from(CONCURRENT_RUNS).unwrap(),
        );
    }

    // 3. What the store keeps per finished run.
    println!();
    println!("3. stored per finished run");
    println!(
        "   | progress JSON | answer | CDM events JSON |\n   | {} B | {} B | {} B |",
        run.progress_bytes, run.answer_bytes, run.events_bytes
    );
    let parts: Vec<String> = run.progress_parts.iter().map(|(key, bytes)| format!("{key} {bytes} B")).collect();
    println!("   progress JSON by field: {}", parts.join(", "));
}
