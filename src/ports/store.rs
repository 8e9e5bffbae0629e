//! Repositories: the persistent state of the service. Each is a small role trait so an adapter
//! (memory, PostgreSQL) implements them side by side and a use case asks only for what it needs.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::auth::ethereum::EthAddress;
use crate::domain::auth::sessions::{NonceConsumption, RefreshConsumption, RefreshTokenRecord, TokenHash, WalletNonce};
use crate::domain::auth::{EmailAddress, NewUser, User, UserChanges, UserId};

/// A store failure that is not the caller's fault. Its text is logged, never shown to clients.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store did not answer (down, unreachable, out of connections): retrying may work.
    #[error("store unavailable")]
    Unavailable(#[source] anyhow::Error),
    /// The store answered with a row the domain cannot read (edited by hand, or written by a newer
    /// release): retrying will not help.
    #[error("stored data unreadable")]
    Corrupt(#[source] anyhow::Error),
    /// The store refused a value it cannot hold (text with U+0000 on PostgreSQL): the request's
    /// doing, and retrying the same value will fail the same way. Nothing was written.
    #[error("a value the store cannot hold")]
    Unstorable(#[source] anyhow::Error),
}

impl StoreError {
    /// What went wrong, whichever the kind.
    pub fn into_cause(self) -> anyhow::Error {
        match self {
            Self::Unavailable(cause) | Self::Corrupt(cause) | Self::Unstorable(cause) => cause,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CreateUserError {
    /// A user with this e-mail address exists.
    #[error("a user with this e-mail address already exists")]
    DuplicateEmail,
    /// A user with this wallet address exists.
    #[error("a user with this wallet address already exists")]
    DuplicateWallet,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait UserRepository: Send + Sync + 'static {
    /// Stores a new user.
    ///
    /// # Errors
    /// [`CreateUserError::DuplicateEmail`] / [`CreateUserError::DuplicateWallet`] when the unique
    /// e-mail or wallet address is taken (nothing is stored); [`CreateUserError::Store`] otherwise.
    async fn create(&self, user: NewUser) -> Result<User, CreateUserError>;

    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; an absent user is `Ok(None)`.
    async fn find_by_id(&self, id: UserId) -> Result<Option<User>, StoreError>;

    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; an absent user is `Ok(None)`.
    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<User>, StoreError>;

    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; an absent user is `Ok(None)`.
    async fn find_by_wallet(&self, address: &EthAddress) -> Result<Option<User>, StoreError>;

    /// Applies `changes` and returns the updated user, or `None` when there is no such user.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn update(&self, id: UserId, changes: UserChanges) -> Result<Option<User>, StoreError>;

    /// Moves the user's token version on, so every access token issued before stops working at
    /// once (sign-out, disabling, demotion). Returns whether the user exists.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn revoke_access_tokens(&self, id: UserId) -> Result<bool, StoreError>;

    /// All users, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list(&self) -> Result<Vec<User>, StoreError>;
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait RefreshTokenRepository: Send + Sync + 'static {
    /// Records a newly issued refresh token.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn insert(&self, record: RefreshTokenRecord) -> Result<(), StoreError>;

    /// Atomically marks the token used if it is fresh, and reports what it was. Of two concurrent
    /// calls with the same hash exactly one sees [`RefreshConsumption::Fresh`].
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn consume(&self, token_hash: &TokenHash, now: OffsetDateTime) -> Result<RefreshConsumption, StoreError>;

    /// The record of a token, used or not.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; unknown is `Ok(None)`.
    async fn find(&self, token_hash: &TokenHash) -> Result<Option<RefreshTokenRecord>, StoreError>;

    /// Revokes every token of the family; returns how many were newly revoked.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn revoke_family(&self, family_id: Uuid, now: OffsetDateTime) -> Result<u64, StoreError>;

    /// Revokes every token of every family of `user_id`; returns how many were newly revoked.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn revoke_user(&self, user_id: UserId, now: OffsetDateTime) -> Result<u64, StoreError>;

    /// Deletes records that expired before `now`; returns how many.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn purge_expired(&self, now: OffsetDateTime) -> Result<u64, StoreError>;
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait WalletNonceRepository: Send + Sync + 'static {
    /// Records a newly issued nonce.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn insert(&self, nonce: WalletNonce) -> Result<(), StoreError>;

    /// Atomically spends the nonce and reports what it was; of concurrent calls with one nonce,
    /// exactly one sees [`NonceConsumption::Fresh`]. Expiry is the caller's decision.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn consume(&self, nonce: &str) -> Result<NonceConsumption, StoreError>;

    /// Deletes nonces that expired before `now`; returns how many.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn purge_expired(&self, now: OffsetDateTime) -> Result<u64, StoreError>;
}

/// Liveness of the store, for `GET /health/ready`.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait StoreHealth: Send + Sync + 'static {
    /// # Errors
    /// [`StoreError::Unavailable`] when the store does not answer.
    async fn ping(&self) -> Result<(), StoreError>;
}
