//! Throwaway PostgreSQL clusters, started with the service's own embedded launcher: one shared TLS
//! cluster per test binary (client-certificate authentication, a database per test), and private
//! clusters for tests that stop their server or need one without TLS.
//!
//! Statics are never dropped, so a watchdog process stops each cluster and removes its files once
//! the test binary has exited, whatever way it exits.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use creditflow::Adapters;
use creditflow::adapters::postgres::certs::{CertificateAuthority, LeafKind};
use creditflow::adapters::postgres::{
    ClientAuth, DatabaseTarget, DbTimeouts, EmbeddedOptions, EmbeddedPostgres, TlsMaterial, create_database_if_missing,
};
use creditflow::config::DbTlsSettings;
use creditflow::domain::health::db_ssl::SslMode;
use tokio::sync::OnceCell;

/// The role the clusters are created with (the client certificates' common name).
pub const ROLE: &str = "creditflow";

const TIMEOUTS: DbTimeouts =
    DbTimeouts { connect: std::time::Duration::from_secs(10), statement: std::time::Duration::from_secs(30) };

/// Certificates for the test clusters: a CA whose server certificate names `localhost` only (so
/// `127.0.0.1` is a host name mismatch), a client certificate for [`ROLE`], and a foreign CA with
/// its own client pair that the clusters do not trust.
#[derive(Debug, Clone)]
pub struct TestCerts {
    pub ours: TlsMaterial,
    pub foreign_ca_cert: PathBuf,
    pub foreign_client_cert: PathBuf,
    pub foreign_client_key: PathBuf,
}

impl TestCerts {
    fn create(dir: &Path) -> Self {
        let ca = CertificateAuthority::load_or_create(dir).expect("test CA");
        let ours = TlsMaterial {
            ca_cert: ca.cert_path().to_path_buf(),
            server_cert: dir.join("server.crt"),
            server_key: dir.join("server.key"),
            client_cert: dir.join("client.crt"),
            client_key: dir.join("client.key"),
        };
        ca.ensure_leaf(LeafKind::Server { hosts: vec!["localhost".into()] }, &ours.server_cert, &ours.server_key)
            .expect("server certificate");
        ca.ensure_leaf(LeafKind::Client { common_name: ROLE.into() }, &ours.client_cert, &ours.client_key)
            .expect("client certificate");
        let foreign_dir = dir.join("foreign");
        let foreign = CertificateAuthority::load_or_create(&foreign_dir).expect("foreign CA");
        let (foreign_client_cert, foreign_client_key) =
            (foreign_dir.join("client.crt"), foreign_dir.join("client.key"));
        foreign
            .ensure_leaf(LeafKind::Client { common_name: ROLE.into() }, &foreign_client_cert, &foreign_client_key)
            .expect("foreign client certificate");
        Self { ours, foreign_ca_cert: foreign.cert_path().to_path_buf(), foreign_client_cert, foreign_client_key }
    }
}

pub struct TestCluster {
    pub server: EmbeddedPostgres,
    pub certs: TestCerts,
}

static SHARED: OnceCell<TestCluster> = OnceCell::const_new();
static NEXT_DIR: AtomicUsize = AtomicUsize::new(0);

/// The shared TLS cluster (`hostssl … cert`: TLS and a client certificate required).
pub async fn shared() -> &'static TestCluster {
    SHARED.get_or_init(|| TestCluster::start(ClientAuth::Certificate)).await
}

impl TestCluster {
    /// A new cluster of its own, stopped when dropped (or, at the latest, when the tests exit).
    pub async fn start(client_auth: ClientAuth) -> Self {
        crate::helpers::init_test_logging();
        let dir = std::env::temp_dir().join(format!(
            "creditflow-tests-{}-{}",
            std::process::id(),
            NEXT_DIR.fetch_add(1, Ordering::SeqCst)
        ));
        // The cluster runs as the `postgres` user when the tests run as root: it must reach its files.
        std::fs::create_dir_all(&dir).expect("cluster directory");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let certs = TestCerts::create(&dir.join("certs"));
        let data_dir = dir.join("postgres");
        clean_up_after_the_tests(&data_dir.join("pgdata"), &dir);
        let server = EmbeddedPostgres::start(EmbeddedOptions {
            data_dir,
            tls: (client_auth != ClientAuth::PlainTrust).then(|| certs.ours.clone()),
            superuser: ROLE.to_owned(),
            client_auth,
            port: None,
        })
        .await
        .expect("test cluster starts");
        Self { server, certs }
    }

    /// `verify-full` with our CA and client certificate: what the service uses in production.
    pub fn tls(&self, mode: SslMode) -> DbTlsSettings {
        DbTlsSettings {
            mode,
            required: false,
            ca_cert: Some(self.certs.ours.ca_cert.clone()),
            client_cert: Some(self.certs.ours.client_cert.clone()),
            client_key: Some(self.certs.ours.client_key.clone()),
        }
    }

    /// The `postgres` database at `host`, with `tls`.
    pub fn target(&self, host: &str, tls: DbTlsSettings) -> anyhow::Result<DatabaseTarget> {
        DatabaseTarget::new(&format!("postgres://{ROLE}@{host}:{}/postgres", self.server.port()), tls, TIMEOUTS)
    }

    /// `postgres://creditflow@localhost:port/postgres?…` for `DATABASE_URL`.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://{ROLE}@localhost:{}/{database}", self.server.port())
    }

    /// A new, empty database for one test, reached with `verify-full` and the client certificate.
    pub async fn fresh_database(&self) -> DatabaseTarget {
        self.fresh_database_named().await.1
    }

    /// As [`Self::fresh_database`], with the database's name (for a service started as a process).
    pub async fn fresh_database_named(&self) -> (String, DatabaseTarget) {
        let maintenance = self.target("localhost", self.tls(SslMode::VerifyFull)).expect("target");
        let name = format!("test_{}", uuid::Uuid::new_v4().simple());
        create_database_if_missing(&maintenance, &name).await.expect("test database");
        let target = maintenance.with_database(&name);
        (name, target)
    }

    /// The variables that point a service process at `database` of this cluster, as the tests
    /// reach it: `verify-full` with the client certificate.
    pub fn service_vars(&self, database: &str) -> Vec<(&'static str, String)> {
        let path = |path: &Path| path.display().to_string();
        vec![
            ("STORE", "postgres".to_owned()),
            ("DATABASE_URL", self.url(database)),
            ("DB_SSL_MODE", "verify-full".to_owned()),
            ("DB_SSL_CA_CERT", path(&self.certs.ours.ca_cert)),
            ("DB_SSL_CLIENT_CERT", path(&self.certs.ours.client_cert)),
            ("DB_SSL_CLIENT_KEY", path(&self.certs.ours.client_key)),
        ]
    }

    /// The service's adapters over a fresh database of this cluster.
    pub async fn fresh_adapters(&self) -> Adapters {
        Adapters::on_postgres(&self.fresh_database().await, 4).await.expect("store opens")
    }
}

/// Starts a shell that waits for this test process to end, then stops the cluster (SIGQUIT is
/// PostgreSQL's immediate shutdown) and removes `dir`.
pub fn clean_up_after_the_tests(pgdata: &Path, dir: &Path) {
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; \
         postmaster=$(head -n 1 '{pgdata}/postmaster.pid' 2>/dev/null) && kill -QUIT \"$postmaster\" 2>/dev/null; \
         sleep 2; rm -rf '{dir}'",
        pid = std::process::id(),
        pgdata = pgdata.display(),
        dir = dir.display(),
    );
    after_the_tests(&script);
}

/// Runs `script` in a shell of its own, detached from this process's output; `script` starts by
/// waiting for this test process to end (`while kill -0 $PID …`) and then cleans up after it.
#[expect(clippy::zombie_processes, reason = "the watchdog outlives this process on purpose; it exits after it")]
pub fn after_the_tests(script: &str) {
    Command::new("sh")
        .args(["-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("watchdog starts");
}
