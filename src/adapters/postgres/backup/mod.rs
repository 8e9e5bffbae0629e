//! `creditflow backup FILE` and `creditflow restore FILE`: the embedded cluster's database as a
//! `pg_dump` custom-format archive, with the configuration the service reads (`DATA_DIR`,
//! `DB_SSL_AUTO_CERT_DIR`, `.env`).
//!
//! - **Backup** works with the service running or stopped. A running cluster is found through its
//!   `postmaster.pid` (the port) and reached as the service reaches it (`verify-full`, the client
//!   certificate); `pg_dump` reads one snapshot, so the archive is consistent while the service
//!   writes. A stopped cluster is started for the dump and stopped again. The archive goes to a
//!   temporary file beside FILE, mode 0600, is read back whole by `pg_restore`, and only then
//!   replaces FILE (rename): FILE is never a partial archive.
//! - **Restore** refuses while the cluster runs: the service would be writing to the database being
//!   replaced. It starts the cluster (created when DATA_DIR is new), restores into a new database in
//!   one transaction, and only once that has succeeded swaps it with the service's database by two
//!   renames in one transaction; the replaced database is then dropped. Until the swap the old data
//!   is untouched, and a failure anywhere before it leaves exactly the old data.
//! - **Not in the archive**: the token signing secret (`DATA_DIR/jwt-secret` or `JWT_SECRET`), which
//!   is kept with the other secrets, and the TLS certificates, which are reissued when missing.
//! - `STORE=postgres` is refused: an external database is backed up with its own tooling.
//!
//! Exit codes: 0 done, 1 failed or refused (one line on stderr), 2 usage or configuration error.

mod archive;

use std::ffi::OsString;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};

use self::archive::{ArchiveTools, ClusterAccess};
use super::connection::describe_postgres_error;
use super::embedded::{self, EmbeddedPostgres};
use super::{DatabaseTarget, EMBEDDED_DATABASE, EMBEDDED_ROLE, TlsMaterial, embedded_data_dir, start_embedded};
use crate::config::{Config, StoreKind};

/// `creditflow backup FILE`.
pub const BACKUP_COMMAND: &str = "backup";
/// `creditflow restore FILE`.
pub const RESTORE_COMMAND: &str = "restore";
/// The database a restore fills before it becomes the service's.
const RESTORING_DATABASE: &str = "creditflow_restoring";
/// The service's database between the swap and its removal.
const REPLACED_DATABASE: &str = "creditflow_replaced";
const USAGE_ERROR: u8 = 2;

/// What `creditflow backup` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupReport {
    pub file: PathBuf,
    pub bytes: u64,
    pub tables_with_data: usize,
    /// The service (or something else) was running the cluster; otherwise it was started for the
    /// dump and stopped again.
    pub cluster_was_running: bool,
}

/// What `creditflow restore` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    pub data_dir: PathBuf,
    pub tables_with_data: usize,
    /// Said after a restore that succeeded but left something behind.
    pub warning: Option<String>,
}

/// `Some(exit code)` when the process was started as `creditflow backup …` or `creditflow restore
/// …` (and has done it), `None` when it is the service.
pub fn run_if_requested() -> Option<ExitCode> {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let command = match args.first().and_then(|arg| arg.to_str()) {
        Some(name @ (BACKUP_COMMAND | RESTORE_COMMAND)) => name,
        _ => return None,
    };
    let file = match &args[1..] {
        [file] if !file.to_string_lossy().starts_with('-') => PathBuf::from(file),
        _ => {
            eprintln!("usage: creditflow {command} FILE   (see README, Backups)");
            return Some(ExitCode::from(USAGE_ERROR));
        }
    };
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("creditflow {command}: configuration error: {error}");
            return Some(ExitCode::from(USAGE_ERROR));
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("creditflow {command}: cannot start the async runtime: {error}");
            return Some(ExitCode::FAILURE);
        }
    };
    let outcome = runtime.block_on(async {
        if command == BACKUP_COMMAND {
            backup(&config, &file).await.map(|report| describe_backup(&report))
        } else {
            restore(&config, &file).await.map(|report| {
                if let Some(warning) = &report.warning {
                    eprintln!("creditflow {command}: warning: {warning}");
                }
                describe_restore(&report, &file)
            })
        }
    });
    Some(match outcome {
        Ok(done) => {
            println!("creditflow {command}: {done}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("creditflow {command}: {}", one_line(&format!("{error:#}")));
            ExitCode::FAILURE
        }
    })
}

fn describe_backup(report: &BackupReport) -> String {
    let how = if report.cluster_was_running {
        "from the running cluster"
    } else {
        "the cluster was started for it and stopped again"
    };
    format!(
        "wrote {} ({} bytes, {} tables with data; {how}). The token signing secret is not in it: keep a copy of \
         DATA_DIR/jwt-secret (or JWT_SECRET) with your secrets",
        report.file.display(),
        report.bytes,
        report.tables_with_data
    )
}

fn describe_restore(report: &RestoreReport, file: &Path) -> String {
    format!(
        "{} now holds the data of {} ({} tables with data); start the service. The token signing secret is not \
         in a backup: unless this DATA_DIR's jwt-secret (or JWT_SECRET) is the backed-up service's, everyone signs \
         in again",
        report.data_dir.display(),
        file.display(),
        report.tables_with_data
    )
}

/// Writes the embedded cluster's database to `file` (see the module documentation).
///
/// # Errors
/// Another store than the embedded cluster; no cluster under `DATA_DIR`; the cluster cannot be
/// reached or started; `pg_dump` fails; the archive does not read back whole. `file` is then
/// unchanged.
pub async fn backup(config: &Config, file: &Path) -> anyhow::Result<BackupReport> {
    let data_dir = embedded_cluster_dir(config)?;
    if !embedded::is_initialized(&data_dir) {
        bail!("there is no embedded cluster under {} (DATA_DIR): nothing to back up", data_dir.display());
    }
    let tools = ArchiveTools::locate()?;
    let file = std::path::absolute(file).with_context(|| format!("resolving {}", file.display()))?;
    let staged = StagedFile::create(&file)?;
    let out = staged.handle()?;
    let cluster_was_running = match embedded::running_server(&data_dir) {
        Some(server) => {
            let port = server.port.context("the embedded cluster is starting up; try again in a moment")?;
            let tls = TlsMaterial::in_dir(&config.database.auto_cert_dir);
            for path in [&tls.ca_cert, &tls.client_cert, &tls.client_key] {
                if !path.is_file() {
                    bail!(
                        "{} is missing: DB_SSL_AUTO_CERT_DIR must be the certificate directory of the running service",
                        path.display()
                    );
                }
            }
            tools.dump(&ClusterAccess { port, role: EMBEDDED_ROLE, tls }, EMBEDDED_DATABASE, out).await?;
            true
        }
        None => {
            let (cluster, _) = start_embedded(config).await?;
            let access = access_to(&cluster, config);
            let dumped = tools.dump(&access, EMBEDDED_DATABASE, out).await;
            stop_after(&cluster, dumped).await?;
            false
        }
    };
    let contents = tools.check(staged.path()).await.context("the archive pg_dump wrote does not read back")?;
    let bytes = staged.commit()?;
    Ok(BackupReport { file, bytes, tables_with_data: contents.tables_with_data, cluster_was_running })
}

/// Replaces the embedded cluster's database by the archive `file` (see the module
/// documentation); creates the cluster when `DATA_DIR` has none.
///
/// # Errors
/// Another store than the embedded cluster; a running cluster; a file that is not a whole
/// creditflow archive; a cluster that cannot start; a `pg_restore` or swap failure. The data
/// that was there stays as it was.
pub async fn restore(config: &Config, file: &Path) -> anyhow::Result<RestoreReport> {
    let data_dir = embedded_cluster_dir(config)?;
    if let Some(server) = embedded::running_server(&data_dir) {
        bail!(
            "the embedded cluster under {} is running (PostgreSQL pid {}): stop the creditflow service that uses this \
             DATA_DIR, then restore; nothing was changed",
            data_dir.display(),
            server.pid
        );
    }
    let tools = ArchiveTools::locate()?;
    let file = std::path::absolute(file).with_context(|| format!("resolving {}", file.display()))?;
    let contents = tools
        .check(&file)
        .await
        .with_context(|| format!("{} cannot be restored; nothing was changed", file.display()))?;
    let (cluster, target) = start_embedded(config).await?;
    let replaced = replace_database(&tools, &access_to(&cluster, config), &target, &file).await;
    let warning = stop_after(&cluster, replaced).await?;
    Ok(RestoreReport { data_dir, tables_with_data: contents.tables_with_data, warning })
}

/// Restores into [`RESTORING_DATABASE`], then makes it the service's database. Returns a warning
/// when the replaced database could not be dropped.
async fn replace_database(
    tools: &ArchiveTools,
    access: &ClusterAccess,
    target: &DatabaseTarget,
    file: &Path,
) -> anyhow::Result<Option<String>> {
    let client = target.with_database("postgres").connect().await?;
    let execute = |sql: String| execute(&client, sql);
    // Dropping and renaming databases of any size must not meet DB_STATEMENT_TIMEOUT.
    execute("SET statement_timeout = 0".to_owned()).await?;
    // Left by a restore that was interrupted: never the service's database.
    for leftover in [RESTORING_DATABASE, REPLACED_DATABASE] {
        execute(format!("DROP DATABASE IF EXISTS {leftover}")).await?;
    }
    execute(format!("CREATE DATABASE {RESTORING_DATABASE} TEMPLATE template0 ENCODING 'UTF8'")).await?;
    if let Err(error) = tools.restore(access, RESTORING_DATABASE, file).await {
        let _ = execute(format!("DROP DATABASE IF EXISTS {RESTORING_DATABASE}")).await;
        return Err(error.context("the restore failed and was rolled back; the data that was there is unchanged"));
    }
    // Renames are transactional (CREATE and DROP DATABASE are not): the service's database is
    // the old one or the restored one, never neither.
    let swapped = execute(format!(
        "BEGIN; ALTER DATABASE {EMBEDDED_DATABASE} RENAME TO {REPLACED_DATABASE}; \
         ALTER DATABASE {RESTORING_DATABASE} RENAME TO {EMBEDDED_DATABASE}; COMMIT"
    ))
    .await;
    if let Err(error) = swapped {
        let _ = execute("ROLLBACK".to_owned()).await;
        let _ = execute(format!("DROP DATABASE IF EXISTS {RESTORING_DATABASE}")).await;
        return Err(error.context("swapping the restored database in failed; the data that was there is unchanged"));
    }
    Ok(execute(format!("DROP DATABASE {REPLACED_DATABASE}")).await.err().map(|error| {
        format!(
            "the restore is complete, but the replaced data is still in database {REPLACED_DATABASE} (the next restore \
             removes it): {error:#}"
        )
    }))
}

async fn execute(client: &tokio_postgres::Client, sql: String) -> anyhow::Result<()> {
    client.batch_execute(&sql).await.map_err(|error| anyhow!("{sql}: {}", describe_postgres_error(&error)))
}

/// The store must be the embedded cluster; its directory under `DATA_DIR`.
fn embedded_cluster_dir(config: &Config) -> anyhow::Result<PathBuf> {
    match config.store {
        StoreKind::Embedded => Ok(embedded_data_dir(config)),
        StoreKind::Postgres => bail!(
            "STORE=postgres: the database at DATABASE_URL is not the service's own cluster; back it up with that \
             database's own tooling (pg_dump, snapshots, point-in-time recovery)"
        ),
        StoreKind::Memory => {
            bail!("STORE=memory keeps everything in the service's process: there is nothing to back up or restore")
        }
    }
}

fn access_to(cluster: &EmbeddedPostgres, config: &Config) -> ClusterAccess {
    ClusterAccess {
        port: cluster.port(),
        role: EMBEDDED_ROLE,
        tls: TlsMaterial::in_dir(&config.database.auto_cert_dir),
    }
}

/// Stops a cluster this command started, whatever `outcome` is; a failed stop matters only when
/// the work itself succeeded.
async fn stop_after<T>(cluster: &EmbeddedPostgres, outcome: anyhow::Result<T>) -> anyhow::Result<T> {
    let stopped = cluster.stop().await;
    let value = outcome?;
    stopped.context("stopping the embedded cluster again")?;
    Ok(value)
}

/// The error chain of a failure on one line (a tool's or the server log's line breaks included).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The backup being written: a mode-0600 file beside its destination, removed unless committed.
struct StagedFile {
    path: PathBuf,
    destination: PathBuf,
    committed: bool,
}

impl StagedFile {
    fn create(destination: &Path) -> anyhow::Result<Self> {
        let name =
            destination.file_name().with_context(|| format!("{} does not name a file", destination.display()))?;
        let path = destination.with_file_name(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
        // A leftover of this process id is an earlier run's: never someone else's file to keep.
        match fs::remove_file(&path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => {
                return Err(error).with_context(|| format!("removing the leftover {}", path.display()));
            }
            _ => {}
        }
        let file = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path).with_context(|| {
            format!("creating {} (the backup's directory must exist and be writable)", path.display())
        })?;
        let staged = Self { path, destination: destination.to_path_buf(), committed: false };
        // The mode above is filtered by the umask: a backup is readable by its owner only.
        file.set_permissions(fs::Permissions::from_mode(0o600))
            .with_context(|| format!("restricting {} to its owner", staged.path.display()))?;
        Ok(staged)
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn handle(&self) -> anyhow::Result<File> {
        fs::OpenOptions::new().write(true).open(&self.path).with_context(|| format!("opening {}", self.path.display()))
    }

    /// Flushes the archive to disk and renames it over the destination; returns its size.
    fn commit(mut self) -> anyhow::Result<u64> {
        let file = File::open(&self.path).with_context(|| format!("opening {}", self.path.display()))?;
        file.sync_all().with_context(|| format!("flushing {}", self.path.display()))?;
        let bytes = file.metadata().with_context(|| format!("reading {}", self.path.display()))?.len();
        fs::rename(&self.path, &self.destination)
            .with_context(|| format!("renaming {} to {}", self.path.display(), self.destination.display()))?;
        self.committed = true;
        // The rename is durable once the directory is.
        if let Some(dir) = self.destination.parent() {
            File::open(dir).and_then(|dir| dir.sync_all()).with_context(|| format!("flushing {}", dir.display()))?;
        }
        Ok(bytes)
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::postgres::certs::tests::TempDir;

    #[test]
    fn a_staged_backup_is_private_and_replaces_its_destination_only_when_committed() {
        let dir = TempDir::new("backup-staged");
        let destination = dir.path().join("creditflow.dump");
        fs::write(&destination, b"the previous backup").expect("previous backup");

        let staged = StagedFile::create(&destination).expect("staged");
        fs::write(staged.path(), b"half an archive").expect("write");
        assert_eq!(fs::metadata(staged.path()).expect("staged file").permissions().mode() & 0o777, 0o600);
        let abandoned = staged.path().to_path_buf();
        drop(staged);
        assert!(!abandoned.exists(), "an abandoned staging file stays behind");
        assert_eq!(fs::read(&destination).expect("destination"), b"the previous backup");

        let staged = StagedFile::create(&destination).expect("staged");
        fs::write(staged.path(), b"a whole archive").expect("write");
        assert_eq!(staged.commit().expect("committed"), 15);
        assert_eq!(fs::read(&destination).expect("destination"), b"a whole archive");
        assert_eq!(fs::metadata(&destination).expect("destination").permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 1, "only the backup is left");
    }

    #[test]
    fn only_the_embedded_cluster_is_backed_up_here() {
        let external =
            Config::for_tests(&[("STORE", "postgres"), ("DATABASE_URL", "postgres://u:secret@db.example/x")])
                .expect("config");
        let refused = embedded_cluster_dir(&external).expect_err("external database").to_string();
        assert!(refused.contains("own tooling") && !refused.contains("secret"), "{refused}");
        let memory = Config::for_tests(&[("STORE", "memory")]).expect("config");
        assert!(embedded_cluster_dir(&memory).expect_err("memory").to_string().contains("nothing to back up"));
        let embedded = Config::for_tests(&[("STORE", "embedded"), ("DATA_DIR", "/srv/creditflow")]).expect("config");
        assert_eq!(embedded_cluster_dir(&embedded).expect("embedded"), Path::new("/srv/creditflow/postgres"));
    }

    #[test]
    fn a_failure_is_reported_on_one_line() {
        let chained = "pg_ctl start failed (exit status: 1): could not start\nserver log:\n  FATAL: lock file exists\n";
        assert_eq!(
            one_line(chained),
            "pg_ctl start failed (exit status: 1): could not start server log: FATAL: lock file exists"
        );
    }
}
