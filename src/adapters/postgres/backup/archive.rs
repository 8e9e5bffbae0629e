//! The archive of a backup: `pg_dump --format=custom` into a file, the check that a file is a whole
//! creditflow archive, and `pg_restore` into a database. The tools are the `pg_dump` and
//! `pg_restore` beside the cluster's own server binaries (an archive is read by the version that
//! wrote it or a newer one), and they reach the cluster through a libpq environment built here:
//! nothing of the caller's environment, and no connection string on a command line.

use std::fs::{self, File};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use anyhow::{Context, bail};
use tokio::process::Command;

use crate::adapters::postgres::TlsMaterial;
use crate::adapters::postgres::embedded::find_postgres_binaries;

/// The table every creditflow database has from its first migration: an archive without it is
/// some other database's.
const SCHEMA_TABLE: &str = "schema_migrations";
/// How long the tools may take to connect (TCP, TLS and the certificate check).
const CONNECT_TIMEOUT_SECS: &str = "10";

/// How the tools reach the cluster: as the service does, `verify-full` against the local CA on
/// `localhost`, authenticated by the client certificate.
#[derive(Debug, Clone)]
pub(super) struct ClusterAccess {
    pub port: u16,
    pub role: &'static str,
    pub tls: TlsMaterial,
}

/// What an archive's table of contents lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ArchiveContents {
    /// Entries of the table of contents (tables, their data, indexes, constraints, …).
    pub entries: usize,
    /// Tables whose rows the archive holds.
    pub tables_with_data: usize,
}

impl ArchiveContents {
    /// Reads `pg_restore --list` output; `None` when the creditflow schema table is not in it.
    fn from_listing(listing: &str) -> Option<Self> {
        let entries: Vec<Vec<&str>> = listing
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with(';'))
            .map(|line| line.split_whitespace().collect())
            .collect();
        // An entry reads `<id>; <catalog oid> <oid> <kind…> <schema> <name> <owner>`.
        let names_schema_table = |words: &Vec<&str>| words.windows(3).any(|w| w == ["TABLE", "public", SCHEMA_TABLE]);
        if !entries.iter().any(names_schema_table) {
            return None;
        }
        let tables_with_data = entries.iter().filter(|words| words.windows(2).any(|w| w == ["TABLE", "DATA"])).count();
        Some(Self { entries: entries.len(), tables_with_data })
    }
}

/// The `pg_dump` and `pg_restore` of the cluster's PostgreSQL installation.
#[derive(Debug, Clone)]
pub(super) struct ArchiveTools {
    bin: PathBuf,
}

impl ArchiveTools {
    /// The tools beside `initdb`, `pg_ctl` and `postgres` (see [`find_postgres_binaries`]).
    ///
    /// # Errors
    /// Without PostgreSQL server binaries, or when that directory lacks `pg_dump` or `pg_restore`.
    pub fn locate() -> anyhow::Result<Self> {
        let bin = find_postgres_binaries()?;
        for tool in ["pg_dump", "pg_restore"] {
            let executable =
                fs::metadata(bin.join(tool)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
            if !executable {
                bail!(
                    "{tool} is not in {} beside the PostgreSQL server binaries the embedded cluster runs from: \
                     install that version's client tools",
                    bin.display()
                );
            }
        }
        Ok(Self { bin })
    }

    /// Writes `database` as a custom-format archive (compressed, restorable table by table) to `out`.
    ///
    /// # Errors
    /// When `pg_dump` cannot connect or fails; the message is its own error line.
    pub async fn dump(&self, access: &ClusterAccess, database: &str, out: File) -> anyhow::Result<()> {
        let child = self
            .command("pg_dump", Some(access))
            .args(["--format=custom", "--no-password"])
            .arg(format!("--dbname={database}"))
            .stdout(Stdio::from(out))
            .stderr(Stdio::piped())
            .spawn()
            .context("starting pg_dump")?;
        let output = child.wait_with_output().await.context("waiting for pg_dump")?;
        succeeded("pg_dump", &output)
    }

    /// Checks that `file` is a whole creditflow archive: its table of contents must read and list
    /// the schema table, and then every entry must read to its end. `--list` alone reads only the
    /// table of contents at the start of the file, so a truncated archive would pass it.
    ///
    /// # Errors
    /// A file that is not an archive, is another database's, or is truncated or damaged.
    pub async fn check(&self, file: &Path) -> anyhow::Result<ArchiveContents> {
        File::open(file).context("it cannot be read")?;
        let listing =
            self.command("pg_restore", None).arg("--list").arg(file).output().await.context("running pg_restore")?;
        succeeded("pg_restore --list", &listing).context("it is not a pg_dump archive")?;
        let contents = ArchiveContents::from_listing(&String::from_utf8_lossy(&listing.stdout))
            .with_context(|| format!("it holds no {SCHEMA_TABLE} table: it is not a creditflow backup"))?;
        let read = self
            .command("pg_restore", None)
            .args(["--file", "/dev/null"])
            .arg(file)
            .output()
            .await
            .context("running pg_restore")?;
        succeeded("pg_restore", &read).context("it is incomplete or damaged")?;
        Ok(contents)
    }

    /// Restores `file` into the existing, empty `database` in one transaction: it is all there or,
    /// at the first error, none of it. Ownership and grants are left out, so the restoring role owns
    /// everything, whatever roles the source cluster had.
    ///
    /// # Errors
    /// When `pg_restore` cannot connect or any statement fails; the message is its error line.
    pub async fn restore(&self, access: &ClusterAccess, database: &str, file: &Path) -> anyhow::Result<()> {
        let output = self
            .command("pg_restore", Some(access))
            .args(["--exit-on-error", "--single-transaction", "--no-owner", "--no-privileges", "--no-password"])
            .arg(format!("--dbname={database}"))
            .arg(file)
            .output()
            .await
            .context("running pg_restore")?;
        succeeded("pg_restore", &output)
    }

    fn command(&self, tool: &str, access: Option<&ClusterAccess>) -> Command {
        let mut command = Command::new(self.bin.join(tool));
        // Only what is set here reaches the tool: no PGSERVICE, PGOPTIONS or PGDATABASE of the
        // caller's environment can send it elsewhere.
        command.env_clear().env("LC_ALL", "C").stdin(Stdio::null()).kill_on_drop(true);
        if let Some(access) = access {
            command
                // The name the server certificate carries, checked by verify-full; the address saves
                // a lookup that could also answer ::1, where the cluster does not listen.
                .env("PGHOST", "localhost")
                .env("PGHOSTADDR", "127.0.0.1")
                .env("PGPORT", access.port.to_string())
                .env("PGUSER", access.role)
                .env("PGSSLMODE", "verify-full")
                .env("PGSSLROOTCERT", &access.tls.ca_cert)
                .env("PGSSLCERT", &access.tls.client_cert)
                .env("PGSSLKEY", &access.tls.client_key)
                .env("PGCONNECT_TIMEOUT", CONNECT_TIMEOUT_SECS)
                .env("PGAPPNAME", "creditflow-backup");
        }
        command
    }
}

fn succeeded(tool: &str, output: &Output) -> anyhow::Result<()> {
    if output.status.success() {
        return Ok(());
    }
    bail!("{tool} failed ({}): {}", output.status, complaint(&String::from_utf8_lossy(&output.stderr)))
}

/// What a PostgreSQL tool said went wrong, on one line: its `error:` lines (without the
/// `Command was:` and detail lines that follow them), or everything it said when none is marked.
fn complaint(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    let errors: Vec<&str> = lines.iter().copied().filter(|line| line.contains("error:")).collect();
    let chosen = if errors.is_empty() { lines } else { errors };
    if chosen.is_empty() { "(it said nothing)".to_owned() } else { chosen.join("; ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_with_the_schema_table_is_counted_and_one_without_is_refused() {
        let listing = ";\n; Archive created at 2025-01-01 10:00:00 UTC\n;     dbname: creditflow\n;\n\
                       214; 1259 16385 TABLE public schema_migrations creditflow\n\
                       215; 1259 16388 TABLE public users creditflow\n\
                       3347; 0 16385 TABLE DATA public schema_migrations creditflow\n\
                       3348; 0 16388 TABLE DATA public users creditflow\n\
                       3200; 2606 16400 CONSTRAINT public users users_pkey creditflow\n";

        let contents = ArchiveContents::from_listing(listing).expect("a creditflow archive");

        assert_eq!(contents, ArchiveContents { entries: 5, tables_with_data: 2 });
        let other = "214; 1259 16385 TABLE public orders shop\n3347; 0 16385 TABLE DATA public orders shop\n";
        assert_eq!(ArchiveContents::from_listing(other), None);
        let data_only = "3347; 0 16385 TABLE DATA public schema_migrations creditflow\n";
        assert_eq!(ArchiveContents::from_listing(data_only), None, "the table itself must be in the archive");
    }

    #[test]
    fn a_tool_complaint_is_its_error_lines_on_one_line() {
        let restore = "pg_restore: error: could not execute query: ERROR:  division by zero\n\
                       Command was: REFRESH MATERIALIZED VIEW public.mv;\n\n";
        assert_eq!(complaint(restore), "pg_restore: error: could not execute query: ERROR:  division by zero");
        let unmarked = "connection to server failed\n  FATAL: no pg_hba.conf entry\n";
        assert_eq!(complaint(unmarked), "connection to server failed; FATAL: no pg_hba.conf entry");
        assert_eq!(complaint(""), "(it said nothing)");
    }
}
