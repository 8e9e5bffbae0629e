//! `creditflow backup` and `creditflow restore`, run as the real binary against the service's own
//! embedded cluster: what was written through the API reads back through the API after a restore
//! into a new DATA_DIR or over the existing one; an archive that is damaged, truncated or fails
//! half-way through its restore changes nothing; a restore is refused while the service runs.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use creditflow::Adapters;
use creditflow::adapters::postgres::embedded::running_server;
use creditflow::adapters::postgres::{DatabaseTarget, DbTimeouts, TlsMaterial};
use creditflow::config::{Config, DbTlsSettings};
use creditflow::domain::health::db_ssl::SslMode;
use serde_json::{Value, json};

use crate::documents::AGREEMENT;
use crate::helpers::*;
use crate::test_cluster::clean_up_after_the_tests;

const ANALYST: &str = "backed-up-analyst@example.com";

/// Where one service keeps its files: `var/` (DATA_DIR) and `certs/` (DB_SSL_AUTO_CERT_DIR), in a
/// directory the `postgres` user can reach when the tests run as root, removed after the tests.
struct ServiceHome {
    root: PathBuf,
    data_dir: String,
    cert_dir: String,
}

impl ServiceHome {
    fn new(label: &str) -> Self {
        let root = std::env::temp_dir().join(format!("creditflow-backup-{label}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&root).expect("service home");
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        clean_up_after_the_tests(&root.join("var/postgres/pgdata"), &root);
        let path = |name: &str| root.join(name).to_str().expect("utf-8 temp dir").to_owned();
        Self { data_dir: path("var"), cert_dir: path("certs"), root }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn vars(&self) -> [(&str, &str); 4] {
        [
            ("STORE", "embedded"),
            ("DATA_DIR", &self.data_dir),
            ("DB_SSL_AUTO_CERT_DIR", &self.cert_dir),
            ("DB_POOL_SIZE", "4"),
        ]
    }

    fn cluster_is_running(&self) -> bool {
        running_server(&Path::new(&self.data_dir).join("postgres")).is_some()
    }

    /// The service on its embedded cluster, and the cluster's port.
    async fn start_service(&self) -> (TestApp, u16) {
        let config = Config::for_tests(&self.vars()).expect("configuration");
        let adapters = Adapters::from_config(&config).await.expect("the service starts its embedded cluster");
        let port = adapters.embedded_cluster.as_ref().expect("the embedded cluster runs (PostgreSQL installed)").port();
        (spawn_app_around(adapters, &self.vars(), |_| {}).await, port)
    }

    /// `creditflow COMMAND FILE` with this home's configuration and nothing else of the test's
    /// environment; run from the home, so no developer's `.env` is read.
    async fn creditflow(&self, command: &str, file: &Path) -> Output {
        let mut process = tokio::process::Command::new(env!("CARGO_BIN_EXE_creditflow"));
        process.arg(command).arg(file).env_clear().current_dir(&self.root);
        if let Some(path) = std::env::var_os("PATH") {
            process.env("PATH", path);
        }
        for (name, value) in self.vars() {
            process.env(name, value);
        }
        process.output().await.expect("creditflow runs")
    }

    /// A direct connection to a database of the running cluster, as the service makes it.
    async fn connect(&self, port: u16, database: &str) -> tokio_postgres::Client {
        let tls = TlsMaterial::in_dir(Path::new(&self.cert_dir));
        let settings = DbTlsSettings {
            mode: SslMode::VerifyFull,
            required: true,
            ca_cert: Some(tls.ca_cert),
            client_cert: Some(tls.client_cert),
            client_key: Some(tls.client_key),
        };
        let timeouts = DbTimeouts { connect: Duration::from_secs(10), statement: Duration::from_secs(30) };
        let url = format!("postgres://creditflow@localhost:{port}/{database}");
        DatabaseTarget::new(&url, settings, timeouts).expect("target").connect().await.expect("connects")
    }
}

/// The command's one line on stdout, after asserting it succeeded.
fn succeeded(output: &Output) -> String {
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "failed ({}): {stderr}", output.status);
    stdout.trim().to_owned()
}

/// The command's reason on stderr, after asserting it failed with exit code 1 and one line.
fn failed(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    assert_eq!(output.status.code(), Some(1), "stdout: {}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(stderr.lines().count(), 1, "the reason is one line: {stderr}");
    stderr
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("backup file").permissions().mode() & 0o777
}

/// The administrator creates the analyst whose document a backup must carry.
async fn create_analyst(app: &TestApp) {
    let admin = app.admin_token().await;
    let body = json!({ "email": ANALYST, "password": PASSWORD, "role": "analyst" });
    assert_eq!(app.post("/api/admin/users", Some(&admin), &body).await.status(), 201);
}

async fn create_document(app: &TestApp, title: &str) -> i64 {
    let token = access_token(&app.sign_in(ANALYST, PASSWORD).await);
    let response =
        app.post("/api/documents", Some(&token), &json!({ "title": title, "text": AGREEMENT, "deal_id": 7 })).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    body["document"]["document_id"].as_i64().expect("document id")
}

/// The document's title as the analyst reads it, `None` when it is not there.
async fn document_title(app: &TestApp, id: i64) -> Option<String> {
    let token = access_token(&app.sign_in(ANALYST, PASSWORD).await);
    let response = app.get(&format!("/api/documents/{id}"), Some(&token)).await;
    if response.status() == 404 {
        return None;
    }
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    body["document"]["title"].as_str().map(str::to_owned)
}

#[tokio::test]
async fn a_backup_taken_while_the_service_runs_restores_into_a_new_data_dir_and_reads_back_through_the_api() {
    let (old_home, new_home) = (ServiceHome::new("old"), ServiceHome::new("new"));
    let (app, _) = old_home.start_service().await;
    create_analyst(&app).await;
    let document = create_document(&app, "Acme term loan").await;
    let backup = old_home.file("acme.dump");

    let refused = failed(&old_home.creditflow("restore", &backup).await);
    assert!(refused.contains("is running") && refused.contains("nothing was changed"), "{refused}");
    let written = succeeded(&old_home.creditflow("backup", &backup).await);
    app.stop().await;

    assert!(written.contains("from the running cluster") && written.contains("jwt-secret"), "{written}");
    assert_eq!(mode(&backup), 0o600, "a backup is readable by its owner only");
    let names: Vec<String> = std::fs::read_dir(&old_home.root)
        .expect("home")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|name| name.contains(".tmp-")), "a staging file was left: {names:?}");

    let restored = succeeded(&new_home.creditflow("restore", &backup).await);
    assert!(restored.contains(&new_home.data_dir), "{restored}");
    assert!(!new_home.cluster_is_running(), "the restore left its cluster running");
    let (app, _) = new_home.start_service().await;
    assert_eq!(document_title(&app, document).await.as_deref(), Some("Acme term loan"));
    app.stop().await;
}

#[tokio::test]
async fn a_restore_that_fails_changes_nothing_and_one_that_succeeds_replaces_the_data_with_the_backups() {
    let home = ServiceHome::new("same");
    let (app, port) = home.start_service().await;
    create_analyst(&app).await;
    let kept = create_document(&app, "In every backup").await;
    // An archive that reads back whole but cannot be restored: pg_dump keeps a materialized view as
    // its query, and pg_restore's final refresh divides by the zero inserted after it was created.
    let database = home.connect(port, "creditflow").await;
    database
        .batch_execute(
            "CREATE TABLE divisors (d int); INSERT INTO divisors VALUES (1); \
             CREATE MATERIALIZED VIEW quotients AS SELECT 1 / d AS q FROM divisors; INSERT INTO divisors VALUES (0)",
        )
        .await
        .expect("an unrestorable view");
    let unrestorable = home.file("unrestorable.dump");
    succeeded(&home.creditflow("backup", &unrestorable).await);
    database.batch_execute("DROP MATERIALIZED VIEW quotients; DROP TABLE divisors").await.expect("drop the view");
    drop(database);
    app.stop().await;

    let backup = home.file("good.dump");
    let written = succeeded(&home.creditflow("backup", &backup).await);
    assert!(written.contains("started for it and stopped again"), "{written}");
    assert!(!home.cluster_is_running(), "the backup left the cluster it started running");
    let (app, _) = home.start_service().await;
    let later = create_document(&app, "Written after the backup").await;
    app.stop().await;

    let garbage = home.file("garbage.dump");
    std::fs::write(&garbage, b"PGDMP, or so it says\n").expect("garbage");
    let refused = failed(&home.creditflow("restore", &garbage).await);
    assert!(refused.contains("not a pg_dump archive") && refused.contains("nothing was changed"), "{refused}");
    let bytes = std::fs::read(&backup).expect("backup");
    let truncated = home.file("truncated.dump");
    std::fs::write(&truncated, &bytes[..bytes.len() - 64]).expect("truncated copy");
    let refused = failed(&home.creditflow("restore", &truncated).await);
    assert!(refused.contains("incomplete or damaged") && refused.contains("nothing was changed"), "{refused}");
    let refused = failed(&home.creditflow("restore", &unrestorable).await);
    assert!(refused.contains("division by zero") && refused.contains("unchanged"), "{refused}");
    assert!(!home.cluster_is_running(), "the failed restore left its cluster running");

    let (app, port) = home.start_service().await;
    assert_eq!(document_title(&app, kept).await.as_deref(), Some("In every backup"));
    assert_eq!(document_title(&app, later).await.as_deref(), Some("Written after the backup"));
    let databases: Vec<String> = home
        .connect(port, "postgres")
        .await
        .query("SELECT datname FROM pg_database ORDER BY datname", &[])
        .await
        .expect("databases")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(databases, ["creditflow", "postgres", "template0", "template1"], "a failed restore left a database");
    app.stop().await;

    succeeded(&home.creditflow("restore", &backup).await);
    let (app, _) = home.start_service().await;
    assert_eq!(document_title(&app, kept).await.as_deref(), Some("In every backup"));
    assert_eq!(document_title(&app, later).await, None, "the restore kept what the backup does not have");
    app.stop().await;
}
