//! What the PostgreSQL adapter costs, on private clusters this benchmark starts itself:
//! opening one connection with `verify-full` + mutual TLS against a plain one, a pool checkout with
//! the indexed user read behind `GET /api/auth/me`, and starting the embedded cluster cold (`initdb`
//! + start) and warm. Run: `cargo bench --bench postgres` (needs the PostgreSQL server binaries).

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
use creditflow::domain::db_ssl::SslMode;
use creditflow::ports::store::UserRepository;
use criterion::{Criterion, criterion_group, criterion_main};
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
        let user = store
            .create(NewUser {
                id: UserId::new_random(),
                email: Some(EmailAddress::new("bench@example.com").expect("email")),
                password_hash: Some(PasswordHash::from_phc("$argon2id$v=19$m=64,t=1,p=1$c2FsdA$aGFzaA".into())),
                role: Role::Analyst,
                wallet_address: None,
                created_at: OffsetDateTime::now_utc(),
            })
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

criterion_group!(benches, connections_and_queries, embedded_start);
criterion_main!(benches);
