//! What the PostgreSQL adapter costs, on private clusters this benchmark starts itself:
//! opening one connection with `verify-full` + mutual TLS against a plain one, a pool checkout with
//! the indexed user read behind `GET /api/auth/me`, starting the embedded cluster cold (`initdb` and
//! start) and warm, and the document list over 10,000 stored documents (first page and full-text
//! search, with p50/p99 printed). Run: `cargo bench --bench postgres` (needs PostgreSQL's binaries);
//! `cargo bench --bench postgres -- documents` runs only the document list.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use creditflow::adapters::postgres::certs::ensure_tls_material;
use creditflow::adapters::postgres::{
    ClientAuth, DatabaseTarget, DbTimeouts, EmbeddedOptions, EmbeddedPostgres, PostgresStore, TlsMaterial,
    create_database_if_missing,
};
use creditflow::config::DbTlsSettings;
use creditflow::domain::auth::{EmailAddress, NewUser, PasswordHash, Role, UserId};
use creditflow::domain::documents::{
    AgreementSummary, DocumentQuery, DocumentQuota, ExtractionRecord, Money, ReviewEvent, ReviewState,
};
use creditflow::domain::health::db_ssl::SslMode;
use creditflow::domain::intake::PageMap;
use creditflow::ports::documents::{DocumentRepository, NewDocument, NewVersion};
use creditflow::ports::store::UserRepository;
use criterion::{Criterion, criterion_group, criterion_main};
use rust_decimal::Decimal;
use serde_json::json;
use time::OffsetDateTime;
use tokio::runtime::Runtime;

const ROLE: &str = "creditflow";
const TIMEOUTS: DbTimeouts = DbTimeouts { connect: Duration::from_secs(10), statement: Duration::from_secs(30) };

/// A directory the cluster user (`postgres`, when this runs as root) can reach; removed on drop.
struct BenchDir(PathBuf);

impl BenchDir {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("creditflow-bench-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&path).expect("bench directory");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Self(path)
    }
}

impl Drop for BenchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn options(data_dir: &Path, tls: Option<&TlsMaterial>, client_auth: ClientAuth) -> EmbeddedOptions {
    EmbeddedOptions {
        data_dir: data_dir.to_path_buf(),
        tls: tls.cloned(),
        superuser: ROLE.to_owned(),
        client_auth,
        port: None,
    }
}

fn target(server: &EmbeddedPostgres, tls: DbTlsSettings) -> DatabaseTarget {
    DatabaseTarget::new(&format!("postgres://{ROLE}@localhost:{}/postgres", server.port()), tls, TIMEOUTS)
        .expect("target")
}

fn verify_full(material: &TlsMaterial) -> DbTlsSettings {
    DbTlsSettings {
        mode: SslMode::VerifyFull,
        required: true,
        ca_cert: Some(material.ca_cert.clone()),
        client_cert: Some(material.client_cert.clone()),
        client_key: Some(material.client_key.clone()),
    }
}

fn connections_and_queries(c: &mut Criterion) {
    let runtime = Runtime::new().expect("runtime");
    let dir = BenchDir::new("connect");
    let material = ensure_tls_material(&dir.0.join("certs"), ROLE).expect("certificates");
    let (tls_server, plain_server) = runtime.block_on(async {
        let tls = EmbeddedPostgres::start(options(&dir.0.join("tls"), Some(&material), ClientAuth::Certificate));
        let plain = EmbeddedPostgres::start(options(&dir.0.join("plain"), None, ClientAuth::PlainTrust));
        (tls.await.expect("TLS cluster"), plain.await.expect("plain cluster"))
    });
    let tls_target = target(&tls_server, verify_full(&material));
    let plain_target = target(
        &plain_server,
        DbTlsSettings { mode: SslMode::Disable, required: false, ca_cert: None, client_cert: None, client_key: None },
    );

    let mut connect = c.benchmark_group("postgres/connect");
    connect.sample_size(50);
    connect.bench_function("verify_full_mutual_tls", |b| {
        b.to_async(&runtime).iter(|| async { tls_target.connect().await.expect("connects") });
    });
    connect.bench_function("plain", |b| {
        b.to_async(&runtime).iter(|| async { plain_target.connect().await.expect("connects") });
    });
    connect.finish();

    let (store, user_id) = runtime.block_on(async {
        create_database_if_missing(&tls_target, "bench").await.expect("database");
        let store = PostgresStore::open(&tls_target.with_database("bench"), 16).await.expect("store");
        let user = UserRepository::create(
            &store,
            NewUser {
                id: UserId::new_random(),
                email: Some(EmailAddress::new("bench@example.com").expect("email")),
                password_hash: Some(PasswordHash::from_phc("$argon2id$v=19$m=64,t=1,p=1$c2FsdA$aGFzaA".into())),
                role: Role::Analyst,
                wallet_address: None,
                created_at: OffsetDateTime::now_utc(),
            },
        )
        .await
        .expect("user");
        (store, user.id)
    });
    c.bench_function("postgres/pool/checkout_and_find_user_by_id", |b| {
        b.to_async(&runtime).iter(|| async { store.find_by_id(user_id).await.expect("found").expect("exists") });
    });
    drop(store);
    runtime.block_on(async {
        tls_server.stop().await.expect("stop");
        plain_server.stop().await.expect("stop");
    });
}

fn embedded_start(c: &mut Criterion) {
    let runtime = Runtime::new().expect("runtime");
    let dir = BenchDir::new("start");
    let material = ensure_tls_material(&dir.0.join("certs"), ROLE).expect("certificates");
    let mut group = c.benchmark_group("embedded");
    group.sample_size(10).measurement_time(Duration::from_secs(30));
    group.bench_function("cold_start_initdb_and_start", |b| {
        b.to_async(&runtime).iter_custom(|iterations| {
            let (dir, material) = (&dir, &material);
            async move {
                let mut measured = Duration::ZERO;
                for i in 0..iterations {
                    let data_dir = dir.0.join(format!("cold-{i}"));
                    let started = Instant::now();
                    let server = EmbeddedPostgres::start(options(&data_dir, Some(material), ClientAuth::Certificate))
                        .await
                        .expect("cold start");
                    measured += started.elapsed();
                    server.stop().await.expect("stop");
                    drop(server);
                    let _ = std::fs::remove_dir_all(&data_dir);
                }
                measured
            }
        });
    });
    let warm_dir = dir.0.join("warm");
    runtime.block_on(async {
        let server = EmbeddedPostgres::start(options(&warm_dir, Some(&material), ClientAuth::Certificate));
        server.await.expect("first start").stop().await.expect("stop");
    });
    group.bench_function("warm_start", |b| {
        b.to_async(&runtime).iter_custom(|iterations| {
            let (warm_dir, material) = (&warm_dir, &material);
            async move {
                let mut measured = Duration::ZERO;
                for _ in 0..iterations {
                    let started = Instant::now();
                    let server = EmbeddedPostgres::start(options(warm_dir, Some(material), ClientAuth::Certificate))
                        .await
                        .expect("warm start");
                    measured += started.elapsed();
                    server.stop().await.expect("stop");
                }
                measured
            }
        });
    });
    group.finish();
}

const SEEDED_DOCUMENTS: usize = 10_000;
const BORROWERS: [&str; 8] = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"];

fn seeded_version(i: usize, author: UserId) -> NewVersion {
    let borrower = format!("{} Holdings {i}", BORROWERS[i % BORROWERS.len()]);
    // ~2 KB of agreement-like text; every 100th document mentions a bridge facility.
    let facility = if i.is_multiple_of(100) { "bridge facility" } else { "term loan facility" };
    let text = format!(
        "CREDIT AGREEMENT dated as of March 15, 2024 among {borrower}, as the Borrower, the Lenders party \
         hereto and First National Bank, as Administrative Agent. The {facility} bears interest at Term SOFR \
         plus 2.75% per annum. {}",
        "The Borrower shall maintain a Consolidated Leverage Ratio not exceeding 4.50 to 1.00. ".repeat(20)
    );
    NewVersion {
        original: None,
        pages: PageMap::default(),
        quota: DocumentQuota::UNLIMITED,
        text_sha256: format!("{i:064}"),
        extraction: ExtractionRecord {
            status: "success".into(),
            agreement: json!({ "agreementName": "Credit Agreement" }),
            report: json!({ "status": "success" }),
            summary: AgreementSummary {
                borrower: Some(borrower.clone()),
                total_commitment: Some(Money { amount: Decimal::new(500_000_000, 0), currency: "USD".into() }),
                governing_law: Some("USNY".into()),
                agreement_date: Some(time::macros::date!(2024 - 03 - 15)),
                parties: vec![borrower, "First National Bank".into()],
            },
        },
        text,
        author,
        created_at: OffsetDateTime::now_utc(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// `GET /api/documents`' store query over 10,000 documents: the first page, and a full-text search.
fn document_list(c: &mut Criterion) {
    let runtime = Runtime::new().expect("runtime");
    let dir = BenchDir::new("documents");
    let material = ensure_tls_material(&dir.0.join("certs"), ROLE).expect("certificates");
    let server = runtime
        .block_on(EmbeddedPostgres::start(options(&dir.0.join("pg"), Some(&material), ClientAuth::Certificate)))
        .expect("cluster");
    let maintenance = target(&server, verify_full(&material));
    let store = runtime.block_on(async {
        create_database_if_missing(&maintenance, "documents").await.expect("database");
        PostgresStore::open(&maintenance.with_database("documents"), 16).await.expect("store")
    });
    let owner = UserId::new_random();
    let seeding = Instant::now();
    runtime.block_on(async {
        for i in 0..SEEDED_DOCUMENTS {
            let now = OffsetDateTime::now_utc();
            DocumentRepository::create(
                &store,
                NewDocument {
                    owner,
                    title: format!("{} facility {i}", BORROWERS[i % BORROWERS.len()]),
                    deal_id: Some(i as i64),
                    first_version: seeded_version(i, owner),
                    created: ReviewEvent {
                        from: None,
                        to: ReviewState::Draft,
                        action: "create".into(),
                        actor: owner,
                        at: now,
                        comment: None,
                    },
                },
            )
            .await
            .expect("seed");
        }
    });
    println!("seeded {SEEDED_DOCUMENTS} documents in {:?}", seeding.elapsed());

    let queries = [
        ("first_page", DocumentQuery { owner: Some(owner), search: None, deal_id: None, page: 1, limit: 50 }),
        (
            "search_bridge",
            DocumentQuery { owner: Some(owner), search: Some("bridge".into()), deal_id: None, page: 1, limit: 50 },
        ),
        (
            "search_globex",
            DocumentQuery { owner: Some(owner), search: Some("globex".into()), deal_id: None, page: 1, limit: 50 },
        ),
    ];
    for (name, query) in &queries {
        let page = runtime.block_on(DocumentRepository::list(&store, query)).expect("list");
        let mut latencies: Vec<Duration> = runtime.block_on(async {
            let mut latencies = Vec::with_capacity(2_000);
            for _ in 0..2_000 {
                let started = Instant::now();
                DocumentRepository::list(&store, query).await.expect("list");
                latencies.push(started.elapsed());
            }
            latencies
        });
        latencies.sort_unstable();
        println!(
            "documents/list/{name}: {} of {} matching; 2000 calls p50 {:?} p90 {:?} p99 {:?} max {:?}",
            page.documents.len(),
            page.total,
            percentile(&latencies, 0.50),
            percentile(&latencies, 0.90),
            percentile(&latencies, 0.99),
            latencies[latencies.len() - 1],
        );
        c.bench_function(&format!("documents/list/{name}"), |b| {
            b.to_async(&runtime).iter(|| async { DocumentRepository::list(&store, query).await.expect("list") });
        });
    }
    drop(store);
    runtime.block_on(server.stop()).expect("stop");
}

criterion_group!(benches, connections_and_queries, embedded_start, document_list);
criterion_main!(benches);
