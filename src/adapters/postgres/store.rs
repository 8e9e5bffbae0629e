//! The repositories over PostgreSQL. Every statement is prepared once per connection
//! (`prepare_cached`); driver errors become the ports' errors here, and only here: a unique
//! violation on a named constraint is the domain's `Duplicate…`, anything else is `Unavailable`.

use std::time::Duration;

use anyhow::anyhow;
use async_trait::async_trait;
use deadpool_postgres::{Object, Pool, PoolError};
use time::OffsetDateTime;
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::connection::{DatabaseTarget, describe_postgres_error};
use super::migrations::migrate;
use crate::domain::auth::ethereum::EthAddress;
use crate::domain::auth::sessions::{NonceConsumption, RefreshConsumption, RefreshTokenRecord, TokenHash, WalletNonce};
use crate::domain::auth::{EmailAddress, NewUser, PasswordHash, Role, User, UserChanges, UserId};
use crate::domain::health::db_ssl::DbSslObservation;
use crate::ports::db_ssl::{DbSslError, DbSslInspector};
use crate::ports::store::{
    CreateUserError, RefreshTokenRepository, StoreError, StoreHealth, UserRepository, WalletNonceRepository,
};

const USER_COLUMNS: &str = "id, email, password_hash, role, wallet_address, created_at, disabled, token_version";
const TOKEN_COLUMNS: &str = "token_hash, jti, family_id, user_id, issued_at, expires_at, used_at, revoked_at";
const SSL_QUERY: &str = "SELECT ssl, version, cipher, bits, client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()";

/// Longest a request waits for a database connection, queueing and connecting included, so that
/// with the database gone an endpoint answers 503 within 3 s (a dropped wait gives its slot back).
const ACQUIRE_DEADLINE: Duration = Duration::from_secs(2);

/// Every repository of the service, over one connection pool.
pub struct PostgresStore {
    pool: Pool,
    /// This store's instance of the service, written on the analyses it runs and heart-beaten in
    /// `service_instances` (see [`crate::ports::instances`]).
    instance: Uuid,
}

impl PostgresStore {
    /// Connects once (so a wrong address, TLS setting or credential is reported at start-up, in
    /// words), applies the migrations, and builds the pool of `pool_size` connections.
    ///
    /// # Errors
    /// When the database cannot be reached or a migration fails.
    pub async fn open(target: &DatabaseTarget, pool_size: usize) -> anyhow::Result<Self> {
        let mut client = target.connect().await?;
        let row = client
            .query_one(SSL_QUERY, &[])
            .await
            .map_err(|e| anyhow!("reading pg_stat_ssl: {}", describe_postgres_error(&e)))?;
        let observation = observation_from_row(&row).map_err(|e| anyhow!("reading pg_stat_ssl: {e:#}"))?;
        tracing::info!(
            database = %target.redacted(),
            ssl_mode = %target.tls().mode,
            tls = observation.ssl,
            tls_version = observation.version.as_deref().unwrap_or("-"),
            cipher = observation.cipher.as_deref().unwrap_or("-"),
            client_certificate = observation.client_dn.is_some(),
            "connected to PostgreSQL"
        );
        migrate(&mut client).await?;
        Ok(Self { pool: target.pool(pool_size)?, instance: Uuid::new_v4() })
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    pub(super) fn instance(&self) -> Uuid {
        self.instance
    }

    /// A pooled connection, within [`ACQUIRE_DEADLINE`] whatever the pool's own timeouts: a
    /// request during an outage is answered, not held.
    pub(super) async fn connection(&self) -> Result<Object, StoreError> {
        match tokio::time::timeout(ACQUIRE_DEADLINE, self.pool.get()).await {
            Ok(result) => result.map_err(|e| StoreError::Unavailable(pool_error(e))),
            Err(_) => Err(StoreError::Unavailable(anyhow!(
                "no database connection within {} s (the database is down, unreachable or saturated)",
                ACQUIRE_DEADLINE.as_secs()
            ))),
        }
    }

    async fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, StoreError> {
        let client = self.connection().await?;
        let statement = client.prepare_cached(sql).await.map_err(unavailable)?;
        client.query(&statement, params).await.map_err(unavailable)
    }

    async fn query_opt(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<Row>, StoreError> {
        let client = self.connection().await?;
        let statement = client.prepare_cached(sql).await.map_err(unavailable)?;
        client.query_opt(&statement, params).await.map_err(unavailable)
    }

    async fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, StoreError> {
        let client = self.connection().await?;
        let statement = client.prepare_cached(sql).await.map_err(unavailable)?;
        client.execute(&statement, params).await.map_err(unavailable)
    }

    async fn find_user(&self, filter: &str, param: &(dyn ToSql + Sync)) -> Result<Option<User>, StoreError> {
        let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE {filter} = $1");
        self.query_opt(&sql, &[param]).await?.as_ref().map(user_from_row).transpose()
    }

    async fn find_token(&self, token_hash: &TokenHash) -> Result<Option<RefreshTokenRecord>, StoreError> {
        let sql = format!("SELECT {TOKEN_COLUMNS} FROM refresh_tokens WHERE token_hash = $1");
        self.query_opt(&sql, &[&token_hash.as_hex()]).await?.as_ref().map(token_from_row).transpose()
    }
}

fn pool_error(error: PoolError) -> anyhow::Error {
    match error {
        PoolError::Backend(e) => anyhow!("opening a database connection: {}", describe_postgres_error(&e)),
        other => anyhow!("database connection pool: {other}"),
    }
}

/// A driver error as the ports see it: [`StoreError::Unavailable`], except a value the database
/// refused to hold (`22021` invalid byte sequence, `22P05` untranslatable character: U+0000 in text
/// or JSON), which is [`StoreError::Unstorable`], the request's doing and not an outage.
pub(super) fn unavailable(error: tokio_postgres::Error) -> StoreError {
    let unstorable = error.code().is_some_and(|code| {
        *code == SqlState::CHARACTER_NOT_IN_REPERTOIRE || *code == SqlState::UNTRANSLATABLE_CHARACTER
    });
    let cause = anyhow!(describe_postgres_error(&error));
    if unstorable { StoreError::Unstorable(cause) } else { StoreError::Unavailable(cause) }
}

/// A row the domain refuses (edited by hand, or written by a newer release).
pub(super) fn corrupt(what: &str, error: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(anyhow!("unreadable {what} in the database: {error}"))
}

pub(super) fn column<'a, T: tokio_postgres::types::FromSql<'a>>(row: &'a Row, name: &str) -> Result<T, StoreError> {
    row.try_get(name).map_err(|e| corrupt(name, e))
}

fn address_from_bytes(bytes: &[u8]) -> Result<EthAddress, StoreError> {
    <[u8; 20]>::try_from(bytes).map(EthAddress::from_bytes).map_err(|_| corrupt("wallet_address", "not 20 bytes"))
}

fn user_from_row(row: &Row) -> Result<User, StoreError> {
    let email: Option<String> = column(row, "email")?;
    let role: String = column(row, "role")?;
    let wallet: Option<Vec<u8>> = column(row, "wallet_address")?;
    Ok(User {
        id: UserId::from_uuid(column(row, "id")?),
        email: email.map(|e| EmailAddress::stored(&e).map_err(|error| corrupt("email", error))).transpose()?,
        password_hash: column::<Option<String>>(row, "password_hash")?.map(PasswordHash::from_phc),
        role: role.parse::<Role>().map_err(|e| corrupt("role", e))?,
        wallet_address: wallet.as_deref().map(address_from_bytes).transpose()?,
        created_at: column(row, "created_at")?,
        disabled: column(row, "disabled")?,
        token_version: column(row, "token_version")?,
    })
}

fn token_from_row(row: &Row) -> Result<RefreshTokenRecord, StoreError> {
    Ok(RefreshTokenRecord {
        token_hash: TokenHash::from_hex(column(row, "token_hash")?),
        jti: column(row, "jti")?,
        family_id: column(row, "family_id")?,
        user_id: UserId::from_uuid(column(row, "user_id")?),
        issued_at: column(row, "issued_at")?,
        expires_at: column(row, "expires_at")?,
        used_at: column(row, "used_at")?,
        revoked_at: column(row, "revoked_at")?,
    })
}

fn nonce_from_row(row: &Row) -> Result<WalletNonce, StoreError> {
    Ok(WalletNonce {
        nonce: column(row, "nonce")?,
        wallet_address: address_from_bytes(&column::<Vec<u8>>(row, "wallet_address")?)?,
        issued_at: column(row, "issued_at")?,
        expires_at: column(row, "expires_at")?,
    })
}

fn observation_from_row(row: &Row) -> Result<DbSslObservation, StoreError> {
    Ok(DbSslObservation {
        ssl: column(row, "ssl")?,
        version: column(row, "version")?,
        cipher: column(row, "cipher")?,
        bits: column(row, "bits")?,
        client_dn: column::<Option<String>>(row, "client_dn")?.filter(|dn| !dn.is_empty()),
    })
}

#[async_trait]
impl UserRepository for PostgresStore {
    async fn create(&self, user: NewUser) -> Result<User, CreateUserError> {
        let sql = format!(
            "INSERT INTO users (id, email, password_hash, role, wallet_address, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING {USER_COLUMNS}"
        );
        let client = self.connection().await?;
        let statement = client.prepare_cached(&sql).await.map_err(unavailable)?;
        let row = client
            .query_one(
                &statement,
                &[
                    &user.id.as_uuid(),
                    &user.email.as_ref().map(EmailAddress::as_str),
                    &user.password_hash.as_ref().map(PasswordHash::as_phc),
                    &user.role.as_str(),
                    &user.wallet_address.as_ref().map(|a| a.as_bytes().as_slice()),
                    &user.created_at,
                ],
            )
            .await
            .map_err(|error| {
                let constraint = error
                    .as_db_error()
                    .filter(|db| *db.code() == SqlState::UNIQUE_VIOLATION)
                    .and_then(|db| db.constraint());
                match constraint {
                    Some("users_email_key") => CreateUserError::DuplicateEmail,
                    Some("users_wallet_address_key") => CreateUserError::DuplicateWallet,
                    _ => CreateUserError::Store(unavailable(error)),
                }
            })?;
        Ok(user_from_row(&row)?)
    }

    async fn find_by_id(&self, id: UserId) -> Result<Option<User>, StoreError> {
        self.find_user("id", &id.as_uuid()).await
    }

    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<User>, StoreError> {
        self.find_user("email", &email.as_str()).await
    }

    async fn find_by_wallet(&self, address: &EthAddress) -> Result<Option<User>, StoreError> {
        self.find_user("wallet_address", &address.as_bytes().as_slice()).await
    }

    async fn update(&self, id: UserId, changes: UserChanges) -> Result<Option<User>, StoreError> {
        let sql = format!(
            "UPDATE users SET role = COALESCE($2, role), disabled = COALESCE($3, disabled) \
             WHERE id = $1 RETURNING {USER_COLUMNS}"
        );
        let role = changes.role.map(|role| role.as_str());
        self.query_opt(&sql, &[&id.as_uuid(), &role, &changes.disabled]).await?.as_ref().map(user_from_row).transpose()
    }

    async fn revoke_access_tokens(&self, id: UserId) -> Result<bool, StoreError> {
        let updated =
            self.execute("UPDATE users SET token_version = token_version + 1 WHERE id = $1", &[&id.as_uuid()]).await?;
        Ok(updated == 1)
    }

    async fn list(&self) -> Result<Vec<User>, StoreError> {
        let sql = format!("SELECT {USER_COLUMNS} FROM users ORDER BY seq");
        self.query(&sql, &[]).await?.iter().map(user_from_row).collect()
    }
}

#[async_trait]
impl RefreshTokenRepository for PostgresStore {
    async fn insert(&self, record: RefreshTokenRecord) -> Result<(), StoreError> {
        let sql = format!("INSERT INTO refresh_tokens ({TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)");
        self.execute(
            &sql,
            &[
                &record.token_hash.as_hex(),
                &record.jti,
                &record.family_id,
                &record.user_id.as_uuid(),
                &record.issued_at,
                &record.expires_at,
                &record.used_at,
                &record.revoked_at,
            ],
        )
        .await
        .map(drop)
    }

    async fn consume(&self, token_hash: &TokenHash, now: OffsetDateTime) -> Result<RefreshConsumption, StoreError> {
        // The conditional UPDATE is the atomic step: of concurrent callers exactly one matches the
        // row; the others wait for its lock, re-check the condition and match nothing.
        let sql = format!(
            "UPDATE refresh_tokens SET used_at = $2 \
             WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL RETURNING {TOKEN_COLUMNS}"
        );
        if let Some(row) = self.query_opt(&sql, &[&token_hash.as_hex(), &now]).await? {
            return Ok(RefreshConsumption::Fresh(token_from_row(&row)?));
        }
        Ok(match self.find_token(token_hash).await? {
            None => RefreshConsumption::Unknown,
            Some(record) if record.revoked_at.is_some() => RefreshConsumption::Revoked(record),
            Some(record) => RefreshConsumption::AlreadyUsed(record),
        })
    }

    async fn find(&self, token_hash: &TokenHash) -> Result<Option<RefreshTokenRecord>, StoreError> {
        self.find_token(token_hash).await
    }

    async fn revoke_family(&self, family_id: Uuid, now: OffsetDateTime) -> Result<u64, StoreError> {
        let sql = "UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL";
        self.execute(sql, &[&family_id, &now]).await
    }

    async fn revoke_user(&self, user_id: UserId, now: OffsetDateTime) -> Result<u64, StoreError> {
        let sql = "UPDATE refresh_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL";
        self.execute(sql, &[&user_id.as_uuid(), &now]).await
    }

    async fn purge_expired(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        self.execute("DELETE FROM refresh_tokens WHERE expires_at <= $1", &[&now]).await
    }
}

#[async_trait]
impl WalletNonceRepository for PostgresStore {
    async fn insert(&self, nonce: WalletNonce) -> Result<(), StoreError> {
        let sql = "INSERT INTO wallet_nonces (nonce, wallet_address, issued_at, expires_at) VALUES ($1, $2, $3, $4)";
        let address = nonce.wallet_address.as_bytes().as_slice();
        self.execute(sql, &[&nonce.nonce, &address, &nonce.issued_at, &nonce.expires_at]).await.map(drop)
    }

    async fn consume(&self, nonce: &str) -> Result<NonceConsumption, StoreError> {
        let sql = "UPDATE wallet_nonces SET used = true WHERE nonce = $1 AND NOT used \
                   RETURNING nonce, wallet_address, issued_at, expires_at";
        if let Some(row) = self.query_opt(sql, &[&nonce]).await? {
            return Ok(NonceConsumption::Fresh(nonce_from_row(&row)?));
        }
        let known = self.query_opt("SELECT 1 FROM wallet_nonces WHERE nonce = $1", &[&nonce]).await?;
        Ok(if known.is_some() { NonceConsumption::AlreadyUsed } else { NonceConsumption::Unknown })
    }

    async fn purge_expired(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        self.execute("DELETE FROM wallet_nonces WHERE expires_at <= $1", &[&now]).await
    }
}

#[async_trait]
impl StoreHealth for PostgresStore {
    async fn ping(&self) -> Result<(), StoreError> {
        self.query("SELECT 1", &[]).await.map(drop)
    }
}

#[async_trait]
impl DbSslInspector for PostgresStore {
    async fn inspect(&self) -> Result<DbSslObservation, DbSslError> {
        let row = self.query_opt(SSL_QUERY, &[]).await.map_err(|e| DbSslError::Unavailable(e.into_cause()))?;
        let row = row.ok_or_else(|| DbSslError::Unavailable(anyhow!("pg_stat_ssl has no row for this connection")))?;
        observation_from_row(&row).map_err(|e| DbSslError::Unavailable(e.into_cause()))
    }
}
