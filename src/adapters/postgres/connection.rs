//! Reaching PostgreSQL: the connection string without libpq's TLS parameters (tokio-postgres knows
//! only `disable`/`prefer`/`require` and refuses `verify-*`), a native-tls connector that gives each
//! `DB_SSL_MODE` libpq's meaning, start-up checks of the certificate files, and the pool.
//!
//! | mode        | tokio-postgres | connector                                  |
//! |-------------|----------------|--------------------------------------------|
//! | disable     | disable        | (unused)                                   |
//! | prefer      | prefer         | accepts any certificate                    |
//! | require     | require        | accepts any certificate                    |
//! | verify-ca   | require        | CA checked, host name not                  |
//! | verify-full | require        | CA and host name checked (nothing relaxed) |
//!
//! `DB_SSL_REQUIRED=true` turns `prefer` into `require`, so a server without TLS is refused instead
//! of silently answering in plain text.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use native_tls::{Certificate, Identity, TlsConnector};
use postgres_native_tls::MakeTlsConnector;
use tokio_postgres::config::{Host, SslMode as WireSslMode};

use super::certs::check_key_pair;
use crate::config::{DatabaseConfig, DbTlsSettings};
use crate::domain::health::db_ssl::{DbSslExpectation, SslMode};

/// A connection over this module's TLS, as [`DatabaseTarget::connect_driven_by_caller`] hands it out.
pub(super) type DrivenConnection =
    tokio_postgres::Connection<tokio_postgres::Socket, postgres_native_tls::TlsStream<tokio_postgres::Socket>>;

/// How long a request waits for a pooled connection before the store reports itself unavailable.
const POOL_WAIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Time limits of the database connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DbTimeouts {
    /// Opening one connection: TCP, TLS handshake and authentication.
    pub connect: Duration,
    /// The server-side `statement_timeout` of every session.
    pub statement: Duration,
}

impl DbTimeouts {
    pub fn from_config(database: &DatabaseConfig) -> Self {
        Self { connect: database.connect_timeout, statement: database.statement_timeout }
    }
}

/// A validated way to open connections to one database: parsed settings, TLS connector, and a
/// printable name without the password.
#[derive(Clone)]
pub struct DatabaseTarget {
    config: tokio_postgres::Config,
    tls: DbTlsSettings,
    connector: MakeTlsConnector,
    timeouts: DbTimeouts,
}

impl fmt::Debug for DatabaseTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseTarget").field("database", &self.redacted()).field("tls", &self.tls).finish()
    }
}

impl DatabaseTarget {
    /// The external database of `DATABASE_URL` with the `DB_SSL_*` settings. `DB_SSL_*` variables
    /// win over the libpq parameters `sslmode`, `sslrootcert`, `sslcert`, `sslkey` in the URL, which
    /// are honoured otherwise. Unlike libpq (`prefer`), the mode defaults to `verify-full`: a bank's
    /// database is not to be trusted on an unchecked certificate or reached in plain text unless
    /// someone chose that, and a weaker mode chosen is logged as a warning at start-up.
    ///
    /// # Errors
    /// A connection string that does not parse, an unknown `sslmode`, certificate files that cannot
    /// be read or do not fit together: each message names the variable.
    pub fn from_config(url: &str, database: &DatabaseConfig) -> anyhow::Result<Self> {
        let (rest, url_tls) = split_tls_parameters(url)?;
        let url_mode = url_tls
            .mode
            .map(|raw| raw.parse::<SslMode>().map_err(|e| anyhow!("invalid DATABASE_URL: sslmode: {e}")))
            .transpose()?;
        let tls = DbTlsSettings {
            mode: database.ssl_mode.or(url_mode).unwrap_or(SslMode::VerifyFull),
            required: database.ssl_required,
            ca_cert: database.ca_cert.clone().or(url_tls.root_cert),
            client_cert: database.client_cert.clone().or(url_tls.client_cert),
            client_key: database.client_key.clone().or(url_tls.client_key),
        };
        if let Some(weakness) = tls.mode.weakness(tls.required) {
            tracing::warn!(ssl_mode = %tls.mode, "DB_SSL_MODE={} was chosen: {weakness}", tls.mode);
        }
        Self::new(&rest, tls, DbTimeouts::from_config(database))
    }

    /// A target from a connection string without libpq TLS parameters and explicit TLS settings.
    ///
    /// # Errors
    /// As [`Self::from_config`].
    pub fn new(connection_string: &str, tls: DbTlsSettings, timeouts: DbTimeouts) -> anyhow::Result<Self> {
        let mut config = tokio_postgres::Config::from_str(connection_string)
            .map_err(|e| anyhow!("invalid DATABASE_URL: not a PostgreSQL connection string: {e}"))?;
        if tls.required && tls.mode == SslMode::Disable {
            bail!("invalid DB_SSL_REQUIRED: is true but the SSL mode is disable, which never encrypts");
        }
        match (&tls.client_cert, &tls.client_key) {
            (Some(_), None) => bail!("invalid DB_SSL_CLIENT_KEY: must be set when DB_SSL_CLIENT_CERT is set"),
            (None, Some(_)) => bail!("invalid DB_SSL_CLIENT_CERT: must be set when DB_SSL_CLIENT_KEY is set"),
            _ => {}
        }
        if tls.mode == SslMode::VerifyFull && !config.get_hosts().iter().any(|host| matches!(host, Host::Tcp(_))) {
            bail!("invalid DATABASE_URL: DB_SSL_MODE=verify-full needs a host name to verify the certificate against");
        }
        config.ssl_mode(match tls.mode {
            SslMode::Disable => WireSslMode::Disable,
            SslMode::Prefer if !tls.required => WireSslMode::Prefer,
            _ => WireSslMode::Require,
        });
        config.connect_timeout(timeouts.connect);
        if config.get_application_name().is_none() {
            config.application_name("creditflow");
        }
        let statement_timeout = format!("-c statement_timeout={}", timeouts.statement.as_millis());
        let options = match config.get_options() {
            Some(existing) if !existing.trim().is_empty() => format!("{existing} {statement_timeout}"),
            _ => statement_timeout,
        };
        config.options(options);
        let connector = tls_connector(&tls)?;
        Ok(Self { config, tls, connector, timeouts })
    }

    /// The same server and credentials, another database.
    #[must_use]
    pub fn with_database(&self, name: &str) -> Self {
        let mut target = self.clone();
        target.config.dbname(name);
        target
    }

    /// `postgres://user@host:port/db`: never the password.
    pub fn redacted(&self) -> String {
        let hosts: Vec<String> = self
            .config
            .get_hosts()
            .iter()
            .zip(self.config.get_ports().iter().chain(std::iter::repeat(&5432)))
            .map(|(host, port)| match host {
                Host::Tcp(name) => format!("{name}:{port}"),
                Host::Unix(path) => format!("{}:{port}", path.display()),
            })
            .collect();
        format!(
            "postgres://{}@{}/{}",
            self.config.get_user().unwrap_or(""),
            hosts.join(","),
            self.config.get_dbname().unwrap_or("")
        )
    }

    pub fn tls(&self) -> &DbTlsSettings {
        &self.tls
    }

    pub fn database_name(&self) -> Option<&str> {
        self.config.get_dbname()
    }

    /// What `/health/database/ssl` holds the live connection to.
    pub fn expectation(&self) -> DbSslExpectation {
        DbSslExpectation { mode: self.tls.mode, required: self.tls.required }
    }

    /// Opens one connection outside the pool (start-up work, tests, measurements).
    ///
    /// # Errors
    /// When the server cannot be reached, refuses the TLS settings or the credentials; the message
    /// says which, in words a person configuring the service can act on.
    pub async fn connect(&self) -> anyhow::Result<tokio_postgres::Client> {
        let (client, connection) =
            self.config.connect(self.connector.clone()).await.map_err(|error| self.explain(&error))?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(error = %error, "database connection closed with an error");
            }
        });
        Ok(client)
    }

    /// Opens one connection outside the pool whose messages the caller drives itself
    /// ([`tokio_postgres::Connection::poll_message`]): notifications arrive there. It is named
    /// `<application name> <role>` in `pg_stat_activity` (e.g. `creditflow user changes`).
    ///
    /// # Errors
    /// As [`Self::connect`].
    pub(super) async fn connect_driven_by_caller(
        &self,
        role: &str,
    ) -> anyhow::Result<(tokio_postgres::Client, DrivenConnection)> {
        let mut config = self.config.clone();
        let name = format!("{} {role}", config.get_application_name().unwrap_or("creditflow"));
        config.application_name(&name);
        config.connect(self.connector.clone()).await.map_err(|error| self.explain(&error))
    }

    /// A pool of at most `size` connections, opened lazily and recycled after a cheap check (a
    /// closed connection, e.g. after a server restart, is replaced by a new one).
    ///
    /// # Errors
    /// When the pool cannot be built (never for valid sizes).
    pub fn pool(&self, size: usize) -> anyhow::Result<Pool> {
        let manager = Manager::from_config(
            self.config.clone(),
            self.connector.clone(),
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        Pool::builder(manager)
            .max_size(size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT_TIMEOUT))
            .create_timeout(Some(self.timeouts.connect))
            .recycle_timeout(Some(self.timeouts.connect))
            .build()
            .context("building the database connection pool")
    }

    /// A connection failure as one line: the server's own message when it sent one, and what the
    /// settings have to do with it.
    pub fn explain(&self, error: &tokio_postgres::Error) -> anyhow::Error {
        let cause = describe_postgres_error(error);
        let mode = self.tls.mode;
        let hint = if cause.contains("does not support TLS") {
            if self.tls.required && mode == SslMode::Prefer {
                " (the server offers no TLS and DB_SSL_REQUIRED=true refuses a plain connection)".to_owned()
            } else {
                format!(" (the server offers no TLS and DB_SSL_MODE={mode} refuses a plain connection)")
            }
        } else if cause.contains("no pg_hba.conf entry") && cause.contains("no encryption") {
            format!(" (the server accepts only encrypted connections; DB_SSL_MODE={mode} sends none)")
        } else if mode.verifies_certificate() && cause.contains("certificate verify failed") {
            let host = if mode == SslMode::VerifyFull { " and name the host connected to" } else { "" };
            format!(" (the server certificate must chain to DB_SSL_CA_CERT{host})")
        } else {
            String::new()
        };
        anyhow!("cannot connect to {} with DB_SSL_MODE={mode}: {cause}{hint}", self.redacted())
    }
}

/// The text of a driver error with its causes (tokio-postgres's own Display is often just "db error").
pub fn describe_postgres_error(error: &tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_owned(),
        };
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// libpq's TLS parameters found in a connection string.
#[derive(Debug, Default, PartialEq, Eq)]
struct UrlTlsParameters {
    mode: Option<String>,
    root_cert: Option<PathBuf>,
    client_cert: Option<PathBuf>,
    client_key: Option<PathBuf>,
}

impl UrlTlsParameters {
    /// Takes `key=value` if it is one of ours; `false` leaves it to tokio-postgres.
    fn take(&mut self, key: &str, value: String) -> bool {
        match key {
            "sslmode" => self.mode = Some(value),
            "sslrootcert" => self.root_cert = Some(PathBuf::from(value)),
            "sslcert" => self.client_cert = Some(PathBuf::from(value)),
            "sslkey" => self.client_key = Some(PathBuf::from(value)),
            _ => return false,
        }
        true
    }
}

/// Removes libpq's TLS parameters from a URL (`postgres://…?sslmode=…`) or a key/value string
/// (`host=… sslmode=…`), returning what is left and what was removed.
fn split_tls_parameters(connection: &str) -> anyhow::Result<(String, UrlTlsParameters)> {
    let mut tls = UrlTlsParameters::default();
    let connection = connection.trim();
    if connection.starts_with("postgres://") || connection.starts_with("postgresql://") {
        let Some((base, query)) = connection.split_once('?') else {
            return Ok((connection.to_owned(), tls));
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_encoding::percent_decode_str(value)
                .decode_utf8()
                .map_err(|_| anyhow!("invalid DATABASE_URL: parameter {key} is not UTF-8"))?;
            if !tls.take(key, value.into_owned()) {
                kept.push(pair);
            }
        }
        let rest = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
        return Ok((rest, tls));
    }
    let mut kept = Vec::new();
    for token in key_value_tokens(connection)? {
        let (key, value) = token.split_once('=').map(|(k, v)| (k.trim(), v.trim())).unwrap_or((token.as_str(), ""));
        if !tls.take(key, unquote(value)) {
            kept.push(token.clone());
        }
    }
    Ok((kept.join(" "), tls))
}

/// Splits `key=value key='quoted value'` on the spaces outside quotes, keeping each token's text.
fn key_value_tokens(connection: &str) -> anyhow::Result<Vec<String>> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut escaped) = (false, false);
    for c in connection.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '\'' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                // `key = value` is allowed by libpq: glue the parts around a lone `=` together.
                if !current.is_empty() && !current.ends_with('=') {
                    tokens.push(std::mem::take(&mut current));
                }
                continue;
            }
            '=' if !quoted && current.is_empty() => {
                if let Some(previous) = tokens.pop() {
                    current = previous;
                }
            }
            _ => {}
        }
        current.push(c);
    }
    if quoted {
        bail!("invalid DATABASE_URL: unterminated quote");
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    Ok(tokens)
}

fn unquote(value: &str) -> String {
    let inner = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')).unwrap_or(value);
    let mut out = String::with_capacity(inner.len());
    let mut escaped = false;
    for c in inner.chars() {
        if c == '\\' && !escaped {
            escaped = true;
            continue;
        }
        escaped = false;
        out.push(c);
    }
    out
}

fn tls_connector(tls: &DbTlsSettings) -> anyhow::Result<MakeTlsConnector> {
    let mut builder = TlsConnector::builder();
    builder.min_protocol_version(Some(native_tls::Protocol::Tlsv12));
    match tls.mode {
        SslMode::Disable | SslMode::Prefer | SslMode::Require => {
            // libpq's prefer/require encrypt without checking who answers.
            builder.danger_accept_invalid_certs(true);
        }
        SslMode::VerifyCa => {
            builder.danger_accept_invalid_hostnames(true);
        }
        SslMode::VerifyFull => {}
    }
    if tls.mode.verifies_certificate()
        && let Some(ca) = &tls.ca_cert
    {
        for certificate in read_ca_bundle(ca)? {
            builder.add_root_certificate(certificate);
        }
        // Only the configured CA vouches for the server, as libpq's sslrootcert means.
        builder.disable_built_in_roots(true);
    }
    if let (Some(cert), Some(key)) = (&tls.client_cert, &tls.client_key) {
        builder.identity(client_identity(cert, key)?);
    }
    let connector = builder.build().context("building the database TLS connector")?;
    Ok(MakeTlsConnector::new(connector))
}

fn read_file(variable: &str, path: &Path) -> anyhow::Result<Vec<u8>> {
    fs::read(path).map_err(|e| anyhow!("invalid {variable}: cannot read {}: {e}", path.display()))
}

fn read_ca_bundle(path: &Path) -> anyhow::Result<Vec<Certificate>> {
    let bytes = read_file("DB_SSL_CA_CERT", path)?;
    let mut certificates = Vec::new();
    for pem in x509_parser::pem::Pem::iter_from_buffer(&bytes) {
        let pem = pem.map_err(|e| anyhow!("invalid DB_SSL_CA_CERT: {} is not PEM: {e}", path.display()))?;
        if pem.label == "CERTIFICATE" {
            certificates.push(
                Certificate::from_der(&pem.contents)
                    .map_err(|e| anyhow!("invalid DB_SSL_CA_CERT: {}: {e}", path.display()))?,
            );
        }
    }
    if certificates.is_empty() {
        bail!("invalid DB_SSL_CA_CERT: {} holds no PEM certificate", path.display());
    }
    Ok(certificates)
}

/// The client certificate and its key for mutual TLS, checked to belong together.
fn client_identity(cert_path: &Path, key_path: &Path) -> anyhow::Result<Identity> {
    let cert = read_file("DB_SSL_CLIENT_CERT", cert_path)?;
    let key = read_file("DB_SSL_CLIENT_KEY", key_path)?;
    let (cert_text, key_text) = (String::from_utf8_lossy(&cert), String::from_utf8_lossy(&key));
    match x509_parser::pem::parse_x509_pem(&cert) {
        Ok((_, pem)) if pem.label == "CERTIFICATE" => {}
        _ => bail!("invalid DB_SSL_CLIENT_CERT: {} is not a PEM certificate", cert_path.display()),
    }
    check_key_pair(&cert_text, &key_text).map_err(|e| {
        anyhow!(
            "invalid DB_SSL_CLIENT_KEY: {} does not fit DB_SSL_CLIENT_CERT {}: {e}",
            key_path.display(),
            cert_path.display()
        )
    })?;
    Identity::from_pkcs8(&cert, &key)
        .map_err(|e| anyhow!("invalid DB_SSL_CLIENT_KEY: {} is not a PKCS#8 PEM key: {e}", key_path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls(mode: SslMode) -> DbTlsSettings {
        DbTlsSettings { mode, required: false, ca_cert: None, client_cert: None, client_key: None }
    }

    const TIMEOUTS: DbTimeouts = DbTimeouts { connect: Duration::from_secs(5), statement: Duration::from_secs(30) };

    #[test]
    fn libpq_tls_parameters_are_taken_out_of_urls() {
        let (rest, found) = split_tls_parameters(
            "postgres://app:pw@db.internal:6432/credit?sslmode=verify-full&application_name=x&sslrootcert=%2Fetc%2Fca.pem",
        )
        .expect("splits");
        assert_eq!(rest, "postgres://app:pw@db.internal:6432/credit?application_name=x");
        assert_eq!(found.mode.as_deref(), Some("verify-full"));
        assert_eq!(found.root_cert, Some(PathBuf::from("/etc/ca.pem")));

        let (rest, found) = split_tls_parameters("postgresql://app@db/credit?sslmode=require").expect("splits");
        assert_eq!(rest, "postgresql://app@db/credit");
        assert_eq!(found.mode.as_deref(), Some("require"));
    }

    #[test]
    fn libpq_tls_parameters_are_taken_out_of_key_value_strings() {
        let (rest, found) = split_tls_parameters(
            "host=db.internal user=app sslmode = verify-ca sslcert='/etc/my certs/c.pem' password='a b\\'c'",
        )
        .expect("splits");
        assert_eq!(rest, "host=db.internal user=app password='a b\\'c'");
        assert_eq!(found.mode.as_deref(), Some("verify-ca"));
        assert_eq!(found.client_cert, Some(PathBuf::from("/etc/my certs/c.pem")));
        assert!(split_tls_parameters("host='open").is_err());
    }

    #[test]
    fn verify_modes_parse_where_tokio_postgres_alone_would_refuse_them() {
        assert!(tokio_postgres::Config::from_str("postgres://app@db/credit?sslmode=verify-full").is_err());
        let database =
            crate::config::Config::for_tests(&[("DATABASE_URL", "postgres://app@db/x")]).expect("config").database;
        let target = DatabaseTarget::from_config("postgres://app:pw@db.internal/credit?sslmode=verify-full", &database)
            .expect("target");
        assert_eq!(target.tls().mode, SslMode::VerifyFull);
        assert_eq!(target.redacted(), "postgres://app@db.internal:5432/credit");
        assert!(!format!("{target:?}").contains("pw"));
    }

    #[test]
    fn the_environment_wins_over_the_url_and_verify_full_is_the_default() {
        let mut database = crate::config::Config::for_tests(&[]).expect("config").database;
        let target = DatabaseTarget::from_config("postgres://app@db/credit", &database).expect("target");
        assert_eq!(target.tls().mode, SslMode::VerifyFull);
        assert_eq!(target.config.get_ssl_mode(), WireSslMode::Require, "never a plain-text fallback by default");
        let target = DatabaseTarget::from_config("postgres://app@db/credit?sslmode=prefer", &database).expect("target");
        assert_eq!(target.tls().mode, SslMode::Prefer, "a weaker mode only when asked for");
        database.ssl_mode = Some(SslMode::Require);
        let target =
            DatabaseTarget::from_config("postgres://app@db/credit?sslmode=disable", &database).expect("target");
        assert_eq!(target.tls().mode, SslMode::Require);
        database.ssl_mode = None;
        let error = DatabaseTarget::from_config("postgres://app@db/credit?sslmode=verify_full", &database)
            .expect_err("unknown mode");
        assert!(error.to_string().contains("sslmode"), "{error}");
    }

    #[test]
    fn inconsistent_settings_name_the_variable() {
        let required_plain = DbTlsSettings { required: true, ..tls(SslMode::Disable) };
        let error = DatabaseTarget::new("postgres://app@db/x", required_plain, TIMEOUTS).expect_err("refused");
        assert!(error.to_string().starts_with("invalid DB_SSL_REQUIRED"), "{error}");

        let missing = DbTlsSettings { client_cert: Some("/nonexistent/c.pem".into()), ..tls(SslMode::Require) };
        let error = DatabaseTarget::new("postgres://app@db/x", missing.clone(), TIMEOUTS).expect_err("no key");
        assert!(error.to_string().starts_with("invalid DB_SSL_CLIENT_KEY"), "{error}");
        let unreadable = DbTlsSettings { client_key: Some("/nonexistent/k.pem".into()), ..missing };
        let error = DatabaseTarget::new("postgres://app@db/x", unreadable, TIMEOUTS).expect_err("unreadable");
        assert!(error.to_string().starts_with("invalid DB_SSL_CLIENT_CERT: cannot read /nonexistent/c.pem"), "{error}");

        let no_host = DatabaseTarget::new("host=/run/postgresql user=app", tls(SslMode::VerifyFull), TIMEOUTS);
        assert!(no_host.expect_err("socket").to_string().contains("needs a host name"));
        let error =
            DatabaseTarget::new("postgres://app@db:notaport/x", tls(SslMode::Require), TIMEOUTS).expect_err("bad port");
        assert!(error.to_string().starts_with("invalid DATABASE_URL"), "{error}");
    }

    #[test]
    fn the_statement_timeout_is_added_to_existing_options() {
        let target = DatabaseTarget::new(
            "postgres://app@db/x?options=-c%20search_path%3Dcredit",
            tls(SslMode::Prefer),
            TIMEOUTS,
        )
        .expect("target");
        assert_eq!(target.config.get_options(), Some("-c search_path=credit -c statement_timeout=30000"));
        assert_eq!(target.config.get_ssl_mode(), WireSslMode::Prefer);
        let required = DbTlsSettings { required: true, ..tls(SslMode::Prefer) };
        let target = DatabaseTarget::new("postgres://app@db/x", required, TIMEOUTS).expect("target");
        assert_eq!(target.config.get_ssl_mode(), WireSslMode::Require, "no plain fallback when TLS is required");
    }
}
