//! Inspecting the TLS state of the live database connection, as the server sees it.

use async_trait::async_trait;

use crate::domain::health::db_ssl::DbSslObservation;

#[derive(Debug, thiserror::Error)]
pub enum DbSslError {
    /// The database could not be reached or did not answer the query.
    #[error("database unavailable")]
    Unavailable(#[source] anyhow::Error),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait DbSslInspector: Send + Sync + 'static {
    /// The `pg_stat_ssl` row of a pooled connection (`WHERE pid = pg_backend_pid()`).
    ///
    /// # Errors
    /// [`DbSslError::Unavailable`] when no connection can be had or the query fails. The caller
    /// bounds the time it waits.
    async fn inspect(&self) -> Result<DbSslObservation, DbSslError>;
}
