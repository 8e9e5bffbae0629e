//! The PostgreSQL adapter: TLS exactly as libpq means it, a deadpool pool, embedded migrations,
//! the repositories, users cached in process and kept fresh by `LISTEN`, the SSL inspector, the
//! embedded TLS cluster launcher with its certificates, and the `backup` / `restore` commands of
//! that cluster.

pub mod analyses;
pub mod backup;
pub mod cache;
pub mod certs;
pub mod connection;
pub mod conversations;
pub mod covenant_tests;
pub mod documents;
pub mod embedded;
pub mod instances;
mod listing;
pub mod migrations;
pub mod people;
pub mod rate_limit;
pub mod research;
pub mod statement_sets;
mod storage;
pub mod store;
pub mod user_cache;
pub mod user_changes;

use std::path::PathBuf;

use anyhow::{Context, anyhow};

pub use certs::TlsMaterial;
pub use connection::{DatabaseTarget, DbTimeouts};
pub use embedded::{ClientAuth, EmbeddedOptions, EmbeddedPostgres, MissingPostgres, find_postgres_binaries};
pub use store::PostgresStore;
pub use user_cache::{CachedUsers, UserCacheControl};
pub use user_changes::UserChangeListener;

use crate::config::{Config, DbTlsSettings};
use crate::domain::health::db_ssl::SslMode;

/// The role the embedded cluster is created with; its client certificate carries this name.
pub const EMBEDDED_ROLE: &str = "creditflow";
/// The database the service uses in the embedded cluster.
pub const EMBEDDED_DATABASE: &str = "creditflow";

/// Where the embedded cluster lives: `DATA_DIR/postgres` (its `pgdata/` and `postgres.log`).
pub fn embedded_data_dir(config: &Config) -> PathBuf {
    config.data_dir.join("postgres")
}

/// Starts the private cluster under `DATA_DIR/postgres` with certificates from
/// `DB_SSL_AUTO_CERT_DIR`, and returns it with the target the service connects to: `verify-full`
/// against the local CA, authenticated by the client certificate.
///
/// # Errors
/// [`MissingPostgres`] without PostgreSQL binaries; certificate, `initdb` or start failures.
pub async fn start_embedded(config: &Config) -> anyhow::Result<(EmbeddedPostgres, DatabaseTarget)> {
    let cert_dir = config.database.auto_cert_dir.clone();
    let tls = tokio::task::spawn_blocking(move || certs::ensure_tls_material(&cert_dir, EMBEDDED_ROLE))
        .await
        .context("certificate task")?
        .context("preparing the embedded cluster's certificates (DB_SSL_AUTO_CERT_DIR)")?;
    let cluster = EmbeddedPostgres::start(EmbeddedOptions {
        data_dir: embedded_data_dir(config),
        tls: Some(tls.clone()),
        superuser: EMBEDDED_ROLE.to_owned(),
        client_auth: ClientAuth::Certificate,
        port: None,
    })
    .await?;
    let settings = DbTlsSettings {
        mode: SslMode::VerifyFull,
        required: config.database.ssl_required,
        ca_cert: Some(tls.ca_cert),
        client_cert: Some(tls.client_cert),
        client_key: Some(tls.client_key),
    };
    let maintenance = DatabaseTarget::new(
        &format!("postgres://{EMBEDDED_ROLE}@{}:{}/postgres", cluster.host(), cluster.port()),
        settings,
        DbTimeouts::from_config(&config.database),
    )?;
    create_database_if_missing(&maintenance, EMBEDDED_DATABASE).await?;
    Ok((cluster, maintenance.with_database(EMBEDDED_DATABASE)))
}

/// Creates database `name` (a plain identifier) through `maintenance` unless it exists.
///
/// # Errors
/// When the server cannot be reached or refuses.
pub async fn create_database_if_missing(maintenance: &DatabaseTarget, name: &str) -> anyhow::Result<()> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(anyhow!("database name {name:?} must be letters, digits and underscores"));
    }
    let client = maintenance.connect().await?;
    let exists = client
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await
        .map_err(|e| anyhow!("looking for database {name}: {}", connection::describe_postgres_error(&e)))?;
    if exists.is_none() {
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .map_err(|e| anyhow!("creating database {name}: {}", connection::describe_postgres_error(&e)))?;
        tracing::info!(database = name, "created database");
    }
    Ok(())
}
