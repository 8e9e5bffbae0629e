//! The embedded PostgreSQL cluster launcher: a private cluster run from the machine's own
//! PostgreSQL binaries, reachable on 127.0.0.1 only, with TLS and (by default) client-certificate
//! authentication.
//!
//! Layout under `data_dir`: `pgdata/` (the cluster, created by `initdb` on first run) and
//! `postgres.log`. Whatever depends on this run — port, TLS files, `pg_hba.conf` — is rewritten on
//! every start, so the cluster follows the current configuration instead of remembering an old one.
//! PostgreSQL refuses to run as root: when this process is root the cluster runs as the `postgres`
//! system user, which then owns `data_dir` and must be able to reach it.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};

use super::certs::{TlsMaterial, write_atomically};

const REQUIRED_BINARIES: [&str; 3] = ["initdb", "pg_ctl", "postgres"];
const VERSIONED_INSTALLS: &str = "/usr/lib/postgresql";
/// The unprivileged account the cluster runs as when this process is root.
const CLUSTER_SYSTEM_USER: &str = "postgres";
const PG_CTL_TIMEOUT_SECS: &str = "60";
/// Per-run settings live in their own file, included from `postgresql.conf`, so rewriting them never
/// clobbers `postgresql.auto.conf` (ALTER SYSTEM) or hand edits.
const SETTINGS_FILE: &str = "creditflow.conf";
const INCLUDE_LINE: &str = "include = 'creditflow.conf'";
/// Ports picked automatically can be taken by someone else between probing and binding.
const PORT_ATTEMPTS: usize = 3;
/// How long the children of a crashed postmaster get to notice and exit.
const ORPHAN_GRACE: Duration = Duration::from_secs(10);

/// The PostgreSQL server binaries are not installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found on PATH or in /usr/lib/postgresql/*/bin: \
     install them with `apt-get install postgresql`"
)]
pub struct MissingPostgres;

/// The directory holding `initdb`, `pg_ctl` and `postgres`: the first found through PATH (symlinks
/// resolved, so `/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb` gives the latter), else
/// the highest version under `/usr/lib/postgresql/*/bin`.
///
/// # Errors
/// [`MissingPostgres`] when neither place has all three.
pub fn find_postgres_binaries() -> Result<PathBuf, MissingPostgres> {
    // PATH is the process's executable search path, read as a shell would; not service configuration.
    let search_path = std::env::var_os("PATH");
    find_binaries_in(search_path.as_deref(), Path::new(VERSIONED_INSTALLS)).ok_or(MissingPostgres)
}

fn find_binaries_in(search_path: Option<&OsStr>, versioned_installs: &Path) -> Option<PathBuf> {
    let on_path = search_path.into_iter().flat_map(std::env::split_paths).find_map(|dir| {
        // initdb locates `postgres` next to its own real path, so the resolved directory is the one
        // that has to hold all three.
        let initdb = fs::canonicalize(dir.join("initdb")).ok()?;
        let bin = initdb.parent()?.to_path_buf();
        has_all_binaries(&bin).then_some(bin)
    });
    on_path.or_else(|| highest_versioned_install(versioned_installs))
}

fn highest_versioned_install(root: &Path) -> Option<PathBuf> {
    fs::read_dir(root)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let version: Vec<u32> = name.split('.').map(|part| part.parse().ok()).collect::<Option<_>>()?;
            let bin = entry.path().join("bin");
            has_all_binaries(&bin).then_some((version, bin))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, bin)| bin)
}

fn has_all_binaries(dir: &Path) -> bool {
    REQUIRED_BINARIES.iter().all(|name| {
        fs::metadata(dir.join(name)).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}

/// A server that runs the cluster under a data directory now, as its `postmaster.pid` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningServer {
    pub pid: u32,
    /// `None` while the server is still writing its `postmaster.pid`.
    pub port: Option<u16>,
}

/// The server running the cluster under `data_dir` (an [`EmbeddedOptions::data_dir`]), whichever
/// process started it (the service, another command): `None` when there is no `postmaster.pid` or
/// the one there names a process that is gone or is not this cluster's postmaster.
pub fn running_server(data_dir: &Path) -> Option<RunningServer> {
    let pgdata = fs::canonicalize(data_dir).ok()?.join("pgdata");
    let text = fs::read_to_string(pgdata.join("postmaster.pid")).ok()?;
    let mut lines = text.lines();
    let pid = lines.next()?.trim().parse().ok()?;
    if !is_postmaster_of(pid, &pgdata) {
        return None;
    }
    // Line 4 of postmaster.pid is the port (PostgreSQL's LOCK_FILE_LINE_PORT).
    let port = lines.nth(2).and_then(|line| line.trim().parse().ok());
    Some(RunningServer { pid, port })
}

/// Whether `initdb` has created the cluster under `data_dir` (an [`EmbeddedOptions::data_dir`]).
pub fn is_initialized(data_dir: &Path) -> bool {
    data_dir.join("pgdata").join("PG_VERSION").is_file()
}

fn recorded_postmaster_pid(pgdata: &Path) -> Option<u32> {
    let text = fs::read_to_string(pgdata.join("postmaster.pid")).ok()?;
    text.lines().next()?.trim().parse().ok()
}

/// The postmaster works in its data directory, so its `/proc/<pid>/cwd` identifies it even when
/// the PID has been reused (a zombie or someone else's process has no such cwd).
fn is_postmaster_of(pid: u32, pgdata: &Path) -> bool {
    fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == pgdata)
}

/// How clients authenticate to the cluster (its `pg_hba.conf`, all on 127.0.0.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// `hostssl … cert`: TLS with a client certificate signed by the CA; its CN is the user.
    Certificate,
    /// `hostssl … trust`: TLS required, no client certificate.
    TlsTrust,
    /// `host … trust` with `ssl = off`: a server without TLS, for tests of that case.
    PlainTrust,
}

impl ClientAuth {
    fn hba_line(self) -> &'static str {
        match self {
            Self::Certificate => "hostssl all all 127.0.0.1/32 cert",
            Self::TlsTrust => "hostssl all all 127.0.0.1/32 trust",
            Self::PlainTrust => "host all all 127.0.0.1/32 trust",
        }
    }
}

/// What [`EmbeddedPostgres::start`] needs.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// Holds `pgdata/` and `postgres.log`; created when missing.
    pub data_dir: PathBuf,
    /// Server certificate, key and CA; `None` only with [`ClientAuth::PlainTrust`].
    pub tls: Option<TlsMaterial>,
    /// The role `initdb` creates; with [`ClientAuth::Certificate`], the client certificate's CN.
    pub superuser: String,
    pub client_auth: ClientAuth,
    /// `None`: a free port on 127.0.0.1, chosen at start.
    pub port: Option<u16>,
}

/// A running private cluster. Stop it with [`Self::stop`]; dropping it stops it too (immediately, as
/// a best effort) so a failing test does not leave servers behind.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    cluster: Cluster,
    port: u16,
    running: AtomicBool,
}

impl EmbeddedPostgres {
    /// Initializes the cluster on first use (skipped when `pgdata/PG_VERSION` exists), writes this
    /// run's settings and TLS files, recovers a stale `postmaster.pid`, and starts the server,
    /// waiting until it accepts connections.
    ///
    /// # Errors
    /// [`MissingPostgres`] (inside the `anyhow::Error`) without binaries; options that do not fit
    /// together; a data directory the cluster user cannot reach; and `initdb` or `pg_ctl` failures,
    /// with the end of the server log.
    pub async fn start(options: EmbeddedOptions) -> anyhow::Result<Self> {
        tokio::task::spawn_blocking(move || Self::start_blocking(options)).await.context("cluster start task")?
    }

    fn start_blocking(options: EmbeddedOptions) -> anyhow::Result<Self> {
        if options.superuser.is_empty() {
            bail!("the embedded cluster needs a superuser name");
        }
        if options.tls.is_none() && options.client_auth != ClientAuth::PlainTrust {
            bail!("client authentication {:?} needs TLS material (certificates)", options.client_auth);
        }
        let binaries = find_postgres_binaries()?;
        fs::create_dir_all(&options.data_dir)
            .with_context(|| format!("creating the data directory {}", options.data_dir.display()))?;
        let data_dir = fs::canonicalize(&options.data_dir)
            .with_context(|| format!("resolving the data directory {}", options.data_dir.display()))?;
        let run_as = if running_as_root()? { Some(SystemUser::lookup(CLUSTER_SYSTEM_USER)?) } else { None };
        if let Some(user) = &run_as {
            ensure_reachable(&data_dir, user)?;
            chown_tree(&data_dir, user)?;
        }
        let cluster = Cluster {
            binaries,
            pgdata: data_dir.join("pgdata"),
            log_file: data_dir.join("postgres.log"),
            data_dir,
            tls: options.tls,
            superuser: options.superuser,
            client_auth: options.client_auth,
            run_as,
        };
        cluster.init_if_needed()?;

        let port = match options.port {
            Some(port) => {
                cluster.launch(port)?;
                port
            }
            None => cluster.launch_on_free_port()?,
        };
        Ok(Self { cluster, port, running: AtomicBool::new(true) })
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The host name clients use: `localhost`, the name the server certificate carries (connecting
    /// to the bare IP would leave TLS without a host name to verify).
    pub fn host(&self) -> &str {
        "localhost"
    }

    /// Stops the server (`pg_ctl stop -m fast`: sessions are ended, no crash recovery at next
    /// start). Stopping a stopped cluster does nothing.
    ///
    /// # Errors
    /// When `pg_ctl stop` fails.
    pub async fn stop(&self) -> anyhow::Result<()> {
        let cluster = self.cluster.clone();
        tokio::task::spawn_blocking(move || cluster.stop("fast")).await.context("cluster stop task")??;
        self.running.store(false, Ordering::SeqCst);
        Ok(())
    }

    /// Stops the server if it runs and starts it again on the same port, so clients and pools
    /// holding the address reconnect to it.
    ///
    /// # Errors
    /// As [`Self::stop`] and [`Self::start`].
    pub async fn restart(&self) -> anyhow::Result<()> {
        self.stop().await?;
        let (cluster, port) = (self.cluster.clone(), self.port);
        tokio::task::spawn_blocking(move || cluster.launch(port)).await.context("cluster start task")??;
        self.running.store(true, Ordering::SeqCst);
        Ok(())
    }
}

impl Drop for EmbeddedPostgres {
    fn drop(&mut self) {
        if self.running.swap(false, Ordering::SeqCst)
            && let Err(error) = self.cluster.stop("immediate")
        {
            tracing::warn!(error = %format!("{error:#}"), "could not stop the embedded PostgreSQL cluster");
        }
    }
}

/// Everything about one cluster that does not change between its starts.
#[derive(Debug, Clone)]
struct Cluster {
    binaries: PathBuf,
    data_dir: PathBuf,
    pgdata: PathBuf,
    log_file: PathBuf,
    tls: Option<TlsMaterial>,
    superuser: String,
    client_auth: ClientAuth,
    /// `Some` when this process is root and the cluster runs as an unprivileged user.
    run_as: Option<SystemUser>,
}

/// The server could not bind its port (someone took an automatically chosen port first).
#[derive(Debug, thiserror::Error)]
#[error("port {port} on 127.0.0.1 is already in use: {log}")]
struct PortInUse {
    port: u16,
    log: String,
}

impl Cluster {
    fn init_if_needed(&self) -> anyhow::Result<()> {
        if self.pgdata.join("PG_VERSION").exists() {
            tracing::info!(pgdata = %self.pgdata.display(), "reusing the existing PostgreSQL cluster");
            return Ok(());
        }
        tracing::info!(pgdata = %self.pgdata.display(), superuser = %self.superuser, "initializing a PostgreSQL cluster (initdb)");
        let output = self
            .command("initdb")
            .arg("-D")
            .arg(&self.pgdata)
            .arg("-U")
            .arg(&self.superuser)
            // --locale=C: the machine's locale may be missing or not UTF-8 compatible, which would
            // make initdb fail; C also gives byte-order collation that does not change with glibc.
            .args(["--auth=trust", "-E", "UTF8", "--locale=C"])
            .output()
            .context("running initdb")?;
        if !output.status.success() {
            bail!("initdb failed ({}): {}", output.status, stderr_of(&output));
        }
        Ok(())
    }

    fn launch_on_free_port(&self) -> anyhow::Result<u16> {
        let mut attempt = 1;
        loop {
            let port = free_port()?;
            match self.launch(port) {
                Ok(()) => return Ok(port),
                Err(error) if attempt < PORT_ATTEMPTS && error.downcast_ref::<PortInUse>().is_some() => {
                    tracing::warn!(port, "port taken before PostgreSQL could bind it; trying another");
                    attempt += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }

    fn launch(&self, port: u16) -> anyhow::Result<()> {
        self.recover_pid_file()?;
        self.write_settings(port)?;
        let log_offset = fs::metadata(&self.log_file).map_or(0, |meta| meta.len());
        let output = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.pgdata)
            .arg("-l")
            .arg(&self.log_file)
            .args(["-w", "-t", PG_CTL_TIMEOUT_SECS, "start"])
            .output()
            .context("running pg_ctl start")?;
        if !output.status.success() {
            let log = self.log_since(log_offset);
            // A server that is still starting when pg_ctl gives up must not be left behind.
            let _ = self.stop("immediate");
            if log.contains("Address already in use") {
                return Err(PortInUse { port, log }.into());
            }
            bail!("pg_ctl start failed ({}): {}\nserver log:\n{log}", output.status, stderr_of(&output));
        }
        tracing::info!(
            port,
            client_auth = ?self.client_auth,
            tls = self.ssl_enabled(),
            pgdata = %self.pgdata.display(),
            log = %self.log_file.display(),
            "embedded PostgreSQL cluster started"
        );
        Ok(())
    }

    fn stop(&self, mode: &str) -> anyhow::Result<()> {
        let pid = self.recorded_postmaster_pid();
        if !pid.is_some_and(|pid| self.is_our_postmaster(pid)) {
            // Not running; a leftover postmaster.pid is dealt with at the next start.
            return Ok(());
        }
        let output = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.pgdata)
            .args(["-m", mode, "-w", "-t", PG_CTL_TIMEOUT_SECS, "stop"])
            .output()
            .context("running pg_ctl stop")?;
        if !output.status.success() {
            bail!("pg_ctl stop -m {mode} failed ({}): {}", output.status, stderr_of(&output));
        }
        tracing::info!(pgdata = %self.pgdata.display(), mode, "embedded PostgreSQL cluster stopped");
        Ok(())
    }

    fn ssl_enabled(&self) -> bool {
        self.client_auth != ClientAuth::PlainTrust
    }

    /// Writes `creditflow.conf` (port, listen address, TLS), `pg_hba.conf` and the TLS files.
    fn write_settings(&self, port: u16) -> anyhow::Result<()> {
        let mut settings = format!(
            "# Written by creditflow at every start of the embedded cluster: edits here are lost.\n\
             # Use ALTER SYSTEM (postgresql.auto.conf) for settings that should stay.\n\
             listen_addresses = '127.0.0.1'\n\
             port = {port}\n\
             # TCP only: no socket directory that the cluster user would have to be able to reach.\n\
             unix_socket_directories = ''\n"
        );
        let mut written = vec![self.pgdata.join(SETTINGS_FILE), self.pgdata.join("pg_hba.conf")];
        match (&self.tls, self.ssl_enabled()) {
            (Some(tls), true) => {
                // PostgreSQL refuses a key readable by others or owned by another user, and the
                // cluster user may not be able to read the certificate directory at all: it gets
                // its own copies inside the data directory.
                for (source, name, mode) in [
                    (&tls.server_cert, "server.crt", 0o600),
                    (&tls.server_key, "server.key", 0o600),
                    (&tls.ca_cert, "root.crt", 0o600),
                ] {
                    let bytes = fs::read(source).with_context(|| format!("reading {}", source.display()))?;
                    let target = self.pgdata.join(name);
                    write_atomically(&target, &bytes, mode)?;
                    written.push(target);
                }
                settings.push_str(
                    "ssl = on\n\
                     ssl_cert_file = 'server.crt'\n\
                     ssl_key_file = 'server.key'\n\
                     ssl_ca_file = 'root.crt'\n\
                     # Only our own clients connect, and all of them speak TLS 1.3.\n\
                     ssl_min_protocol_version = 'TLSv1.3'\n",
                );
            }
            (None, true) => bail!("client authentication {:?} needs TLS material", self.client_auth),
            (_, false) => settings.push_str("ssl = off\n"),
        }
        write_atomically(&self.pgdata.join(SETTINGS_FILE), settings.as_bytes(), 0o600)?;
        let hba = format!(
            "# Written by creditflow at every start of the embedded cluster: edits here are lost.\n\
             # TYPE DATABASE USER ADDRESS METHOD\n{}\n",
            self.client_auth.hba_line()
        );
        write_atomically(&self.pgdata.join("pg_hba.conf"), hba.as_bytes(), 0o600)?;
        self.include_settings_file()?;
        if let Some(user) = &self.run_as {
            for path in &written {
                chown_if_needed(path, user)?;
            }
        }
        Ok(())
    }

    fn include_settings_file(&self) -> anyhow::Result<()> {
        let conf = self.pgdata.join("postgresql.conf");
        let text = fs::read_to_string(&conf).with_context(|| format!("reading {}", conf.display()))?;
        if text.lines().any(|line| line.trim() == INCLUDE_LINE) {
            return Ok(());
        }
        // Appending keeps the file's owner (the cluster user) and whatever initdb wrote.
        let mut file =
            fs::OpenOptions::new().append(true).open(&conf).with_context(|| format!("opening {}", conf.display()))?;
        writeln!(file, "\n# creditflow: per-run settings (port, TLS), rewritten at every start.\n{INCLUDE_LINE}")
            .with_context(|| format!("appending to {}", conf.display()))?;
        Ok(())
    }

    /// A `postmaster.pid` whose process is gone (a crash, a killed container) or now belongs to an
    /// unrelated process (PID reuse) makes the server refuse to start; remove it, but only once no
    /// process of the old server still uses the data directory. A server from an earlier run that
    /// still serves this directory is stopped, so the new one starts with the current settings.
    fn recover_pid_file(&self) -> anyhow::Result<()> {
        let pid_file = self.pgdata.join("postmaster.pid");
        if !pid_file.exists() {
            return Ok(());
        }
        let pid = self.recorded_postmaster_pid();
        if let Some(pid) = pid
            && self.is_our_postmaster(pid)
        {
            tracing::warn!(pid, "a PostgreSQL server from an earlier run still serves this cluster; restarting it");
            return self.stop("fast");
        }
        let deadline = Instant::now() + ORPHAN_GRACE;
        loop {
            let orphans = processes_working_in(&self.pgdata);
            if orphans.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                bail!(
                    "processes {orphans:?} of a crashed PostgreSQL server still use {}; stop them before starting again",
                    self.pgdata.display()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        tracing::warn!(?pid, file = %pid_file.display(), "removing a stale postmaster.pid: the server it names is gone (its PID is free or reused)");
        match fs::remove_file(&pid_file) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("removing {}", pid_file.display()))
            }
            _ => Ok(()),
        }
    }

    fn recorded_postmaster_pid(&self) -> Option<u32> {
        recorded_postmaster_pid(&self.pgdata)
    }

    fn is_our_postmaster(&self, pid: u32) -> bool {
        is_postmaster_of(pid, &self.pgdata)
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(self.binaries.join(program));
        // A working directory the cluster user can enter; root's home may not be one.
        command.current_dir(&self.data_dir).stdin(Stdio::null()).env("LC_ALL", "C");
        if let Some(user) = &self.run_as {
            // std drops the supplementary groups as well when switching from root.
            command.uid(user.uid).gid(user.gid);
        }
        command
    }

    /// The server log written since `offset`, at most its last 4 KiB, for error messages.
    fn log_since(&self, offset: u64) -> String {
        let read = || -> io::Result<String> {
            let mut file = fs::File::open(&self.log_file)?;
            let len = file.metadata()?.len();
            file.seek(SeekFrom::Start(offset.max(len.saturating_sub(4096))))?;
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        };
        read().unwrap_or_else(|e| format!("({} unreadable: {e})", self.log_file.display()))
    }
}

/// What a failed tool said: its stderr, or its stdout when it wrote its complaint there.
fn stderr_of(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if stderr.is_empty() { String::from_utf8_lossy(&output.stdout).trim().to_owned() } else { stderr }
}

fn processes_working_in(dir: &Path) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .collect()
}

fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).context("finding a free port on 127.0.0.1")?;
    Ok(listener.local_addr().context("reading the probe socket's port")?.port())
}

/// The owner of `/proc/self` is this process's effective user: root detection without `unsafe`.
fn running_as_root() -> anyhow::Result<bool> {
    Ok(fs::metadata("/proc/self").context("reading /proc/self to learn the effective user")?.uid() == 0)
}

/// An account from `/etc/passwd` (and its groups from `/etc/group`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SystemUser {
    name: String,
    uid: u32,
    gid: u32,
    groups: Vec<u32>,
}

impl SystemUser {
    fn lookup(name: &str) -> anyhow::Result<Self> {
        let passwd = fs::read_to_string("/etc/passwd").context("reading /etc/passwd")?;
        let group = fs::read_to_string("/etc/group").unwrap_or_default();
        Self::from_files(name, &passwd, &group)
    }

    fn from_files(name: &str, passwd: &str, group: &str) -> anyhow::Result<Self> {
        let (uid, gid) = passwd
            .lines()
            .find_map(|line| {
                let fields: Vec<&str> = line.split(':').collect();
                match fields.as_slice() {
                    [user, _, uid, gid, ..] if *user == name => {
                        Some((uid.parse::<u32>().ok()?, gid.parse::<u32>().ok()?))
                    }
                    _ => None,
                }
            })
            .ok_or_else(|| {
                anyhow!(
                    "PostgreSQL refuses to run as root, and there is no `{name}` system user to run the embedded \
                     cluster as: install PostgreSQL (`apt-get install postgresql` creates it) or run creditflow \
                     as an unprivileged user"
                )
            })?;
        if uid == 0 {
            bail!("the `{name}` user has uid 0; PostgreSQL refuses to run as root");
        }
        let mut groups = vec![gid];
        groups.extend(group.lines().filter_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            match fields.as_slice() {
                [_, _, gid, members] if members.split(',').any(|member| member == name) => gid.parse::<u32>().ok(),
                _ => None,
            }
        }));
        Ok(Self { name: name.to_owned(), uid, gid, groups })
    }
}

/// Every directory above `data_dir` must let the cluster user through (execute permission), or the
/// server cannot reach its files: a checkout under a mode-0700 home directory is the usual case.
fn ensure_reachable(data_dir: &Path, user: &SystemUser) -> anyhow::Result<()> {
    for dir in data_dir.ancestors().skip(1) {
        let meta = fs::metadata(dir).with_context(|| format!("reading {}", dir.display()))?;
        // Unix checks exactly one class: owner, else group, else others.
        let search_bit = if meta.uid() == user.uid {
            0o100
        } else if user.groups.contains(&meta.gid()) {
            0o010
        } else {
            0o001
        };
        if meta.mode() & search_bit == 0 {
            bail!(
                "the embedded PostgreSQL cluster runs as the `{name}` user (PostgreSQL refuses to run as root), \
                 but {dir} (mode {mode:o}) does not let `{name}` reach {data_dir}: set DATA_DIR to a directory \
                 it can reach, such as /var/lib/creditflow or /tmp/creditflow",
                name = user.name,
                dir = dir.display(),
                mode = meta.mode() & 0o7777,
                data_dir = data_dir.display(),
            );
        }
    }
    Ok(())
}

/// Hands `root` and everything below it to `user`, without following symbolic links.
fn chown_tree(root: &Path, user: &SystemUser) -> anyhow::Result<()> {
    let meta = chown_if_needed(root, user)?;
    if meta.is_dir() {
        for entry in fs::read_dir(root).with_context(|| format!("listing {}", root.display()))? {
            chown_tree(&entry.with_context(|| format!("listing {}", root.display()))?.path(), user)?;
        }
    }
    Ok(())
}

fn chown_if_needed(path: &Path, user: &SystemUser) -> anyhow::Result<fs::Metadata> {
    let meta = fs::symlink_metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if meta.uid() != user.uid || meta.gid() != user.gid {
        std::os::unix::fs::lchown(path, Some(user.uid), Some(user.gid))
            .with_context(|| format!("giving {} to the `{}` user", path.display(), user.name))?;
    }
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use native_tls::{Certificate, Identity, TlsConnector};
    use postgres_native_tls::MakeTlsConnector;
    use tokio_postgres::config::SslMode;

    use super::*;
    use crate::adapters::postgres::certs::ensure_tls_material;
    use crate::adapters::postgres::certs::tests::TempDir;

    const ROLE: &str = "creditflow";
    const SSL_QUERY: &str = "SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()";

    fn options(dir: &TempDir, client_auth: ClientAuth, tls: Option<TlsMaterial>) -> EmbeddedOptions {
        EmbeddedOptions {
            data_dir: dir.path().join("postgres"),
            tls,
            superuser: ROLE.to_owned(),
            client_auth,
            port: None,
        }
    }

    fn config(pg: &EmbeddedPostgres, ssl_mode: SslMode) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::new();
        config
            .host(pg.host())
            .port(pg.port())
            .user(ROLE)
            .dbname("postgres")
            .ssl_mode(ssl_mode)
            .connect_timeout(Duration::from_secs(10));
        config
    }

    /// verify-full: only our CA, host name checked (native-tls does so by default), optionally
    /// presenting the client certificate.
    async fn connect_verify_full(
        pg: &EmbeddedPostgres,
        tls: &TlsMaterial,
        with_client_certificate: bool,
    ) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
        let ca = Certificate::from_pem(&fs::read(&tls.ca_cert).expect("ca.crt")).expect("CA parses");
        let mut builder = TlsConnector::builder();
        builder.add_root_certificate(ca).disable_built_in_roots(true);
        if with_client_certificate {
            let cert = fs::read(&tls.client_cert).expect("client.crt");
            let key = fs::read(&tls.client_key).expect("client.key");
            builder.identity(Identity::from_pkcs8(&cert, &key).expect("client identity"));
        }
        let connector = MakeTlsConnector::new(builder.build().expect("TLS connector"));
        let (client, connection) = config(pg, SslMode::Require).connect(connector).await?;
        tokio::spawn(connection);
        Ok(client)
    }

    async fn connect_plain(pg: &EmbeddedPostgres) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
        let (client, connection) = config(pg, SslMode::Disable).connect(tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        Ok(client)
    }

    fn describe(error: &tokio_postgres::Error) -> String {
        match error.as_db_error() {
            Some(db) => db.message().to_owned(),
            None => format!("{error}: {:?}", std::error::Error::source(error)),
        }
    }

    #[tokio::test]
    async fn certificate_cluster_speaks_tls13_to_verified_clients_and_refuses_clients_without_a_certificate() {
        let dir = TempDir::new("pg-cert");
        let tls = ensure_tls_material(&dir.path().join("certs"), ROLE).expect("certificates");
        let pg = EmbeddedPostgres::start(options(&dir, ClientAuth::Certificate, Some(tls.clone())))
            .await
            .expect("cluster starts");

        let client = connect_verify_full(&pg, &tls, true).await.map_err(|e| describe(&e)).expect("verify-full + mTLS");
        let row = client.query_one(SSL_QUERY, &[]).await.expect("pg_stat_ssl");
        assert!(row.get::<_, bool>("ssl"));
        assert_eq!(row.get::<_, Option<String>>("version").as_deref(), Some("TLSv1.3"));
        assert!(row.get::<_, Option<String>>("cipher").is_some_and(|cipher| cipher.starts_with("TLS_")));

        let refused = connect_verify_full(&pg, &tls, false).await.expect_err("no client certificate, no entry");
        assert!(describe(&refused).contains("certificate"), "{}", describe(&refused));

        let port = pg.port();
        pg.stop().await.expect("stop");
        assert!(connect_verify_full(&pg, &tls, true).await.is_err(), "stopped cluster answered");
        pg.restart().await.expect("start again");
        assert_eq!(pg.port(), port);
        let client = connect_verify_full(&pg, &tls, true).await.map_err(|e| describe(&e)).expect("after restart");
        assert!(client.query_one(SSL_QUERY, &[]).await.expect("query").get::<_, bool>("ssl"));
        pg.stop().await.expect("stop");
    }

    #[tokio::test]
    async fn plain_cluster_answers_without_tls_keeps_its_data_and_recovers_stale_pid_files() {
        let dir = TempDir::new("pg-plain");
        let options = options(&dir, ClientAuth::PlainTrust, None);
        assert!(!is_initialized(&options.data_dir) && running_server(&options.data_dir).is_none());
        let pg = EmbeddedPostgres::start(options.clone()).await.expect("first start");
        assert!(is_initialized(&options.data_dir));
        let running = running_server(&options.data_dir).expect("the started server is found");
        assert_eq!(running.port, Some(pg.port()));
        let client = connect_plain(&pg).await.map_err(|e| describe(&e)).expect("plain connection");
        assert!(!client.query_one(SSL_QUERY, &[]).await.expect("pg_stat_ssl").get::<_, bool>("ssl"));
        client.batch_execute("CREATE TABLE kept (id int); INSERT INTO kept VALUES (7)").await.expect("write");
        let tls = ensure_tls_material(&dir.path().join("certs"), ROLE).expect("certificates");
        assert!(connect_verify_full(&pg, &tls, true).await.is_err(), "a server with ssl = off accepted TLS");
        pg.stop().await.expect("stop");
        assert_eq!(running_server(&options.data_dir), None, "a stopped cluster was reported running");
        let pgdata = dir.path().join("postgres/pgdata");
        let initialized_at = fs::metadata(pgdata.join("PG_VERSION")).expect("PG_VERSION").modified().expect("mtime");

        // Second start: the cluster is reused, not initialized again.
        let pg = EmbeddedPostgres::start(options.clone()).await.expect("second start");
        let client = connect_plain(&pg).await.expect("reconnect");
        assert_eq!(client.query_one("SELECT id FROM kept", &[]).await.expect("kept").get::<_, i32>(0), 7);
        let reinitialized_at = fs::metadata(pgdata.join("PG_VERSION")).expect("PG_VERSION").modified().expect("mtime");
        assert_eq!(reinitialized_at, initialized_at);

        // A crash: the postmaster dies and leaves its postmaster.pid behind.
        let pid = fs::read_to_string(pgdata.join("postmaster.pid")).expect("pid file");
        let pid = pid.lines().next().expect("pid line").trim().to_owned();
        let killed = Command::new("kill").args(["-KILL", &pid]).status().expect("kill");
        assert!(killed.success());
        drop(client);
        drop(pg);
        assert!(pgdata.join("postmaster.pid").exists());
        assert_eq!(running_server(&options.data_dir), None, "a crashed server's pid file was believed");
        let pg = EmbeddedPostgres::start(options.clone()).await.expect("start after a crash");
        assert!(connect_plain(&pg).await.is_ok());
        pg.stop().await.expect("stop");

        // PID reuse: the recorded PID now belongs to a live process that is not a postmaster.
        fs::write(pgdata.join("postmaster.pid"), format!("{}\n{}\n", std::process::id(), pgdata.display()))
            .expect("write pid file");
        assert_eq!(running_server(&options.data_dir), None, "a reused PID was taken for the postmaster");
        let pg = EmbeddedPostgres::start(options).await.expect("start over a reused PID");
        assert!(connect_plain(&pg).await.is_ok());
        pg.stop().await.expect("stop");
    }

    #[test]
    fn binaries_are_found_through_path_symlinks_and_missing_ones_name_the_package() {
        let found = find_postgres_binaries().expect("PostgreSQL binaries are installed on this machine");
        assert!(has_all_binaries(&found), "{}", found.display());
        assert_eq!(fs::canonicalize(&found).expect("canonical"), found, "symlinks resolved");

        let empty = TempDir::new("pg-nobin");
        let missing = find_binaries_in(Some(empty.path().as_os_str()), &empty.path().join("none"));
        assert_eq!(missing, None);
        let message = MissingPostgres.to_string();
        assert!(message.contains("apt-get install postgresql") && !message.contains('\n'), "{message}");
    }

    #[tokio::test]
    async fn tls_authentication_without_certificates_is_refused_before_anything_runs() {
        let dir = TempDir::new("pg-notls");

        let error = EmbeddedPostgres::start(options(&dir, ClientAuth::Certificate, None)).await.expect_err("refused");

        assert!(error.to_string().contains("needs TLS material"), "{error}");
        assert!(!dir.path().join("postgres").exists());
    }

    #[test]
    fn a_parent_directory_the_cluster_user_cannot_traverse_is_reported() {
        let dir = TempDir::new("pg-reach");
        let private = dir.path().join("home");
        let data_dir = private.join("var/postgres");
        fs::create_dir_all(&data_dir).expect("dirs");
        fs::set_permissions(&private, fs::Permissions::from_mode(0o700)).expect("chmod");
        let stranger = SystemUser { name: "postgres".into(), uid: 4_000_001, gid: 4_000_001, groups: vec![4_000_001] };

        let error = ensure_reachable(&data_dir, &stranger).expect_err("0700 parent");

        let message = error.to_string();
        assert!(message.contains(&private.display().to_string()) && message.contains("DATA_DIR"), "{message}");
        fs::set_permissions(&private, fs::Permissions::from_mode(0o711)).expect("chmod");
        assert!(ensure_reachable(&data_dir, &stranger).is_ok());
    }

    #[test]
    fn system_users_are_read_from_passwd_and_group_lines() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\npostgres:x:101:104:PostgreSQL:/var/lib/postgresql:/bin/bash\n";
        let group = "ssl-cert:x:103:postgres\npostgres:x:104:\nother:x:9:alice,postgres,bob\n";

        let user = SystemUser::from_files("postgres", passwd, group).expect("postgres user");

        assert_eq!((user.uid, user.gid), (101, 104));
        assert_eq!(user.groups, vec![104, 103, 9]);
        assert!(SystemUser::from_files("nobody-here", passwd, group).is_err());
        assert!(SystemUser::from_files("root", passwd, group).is_err());
    }
}
