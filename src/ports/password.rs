//! Password hashing, kept behind a port because it is deliberately slow (it runs off the async
//! executor) and so tests can tune its cost.

use async_trait::async_trait;

use crate::domain::auth::{Password, PasswordHash};

#[derive(Debug, thiserror::Error)]
pub enum PasswordHashError {
    /// The stored hash is not a valid PHC string, or the hasher failed.
    #[error("password hashing failed")]
    Failed(#[source] anyhow::Error),
    /// Every hashing slot is taken: refused at once rather than queued behind a flood.
    #[error("password hashing is saturated")]
    Busy,
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync + 'static {
    /// Hashes a password with a fresh random salt.
    ///
    /// # Errors
    /// [`PasswordHashError::Busy`] when the hasher's queue is full; [`PasswordHashError::Failed`]
    /// if the hasher itself fails.
    async fn hash(&self, password: &Password) -> Result<PasswordHash, PasswordHashError>;

    /// Whether `password` matches `hash`. A mismatch is `Ok(false)`, never an error.
    ///
    /// # Errors
    /// [`PasswordHashError::Busy`] when the hasher's queue is full; [`PasswordHashError::Failed`]
    /// if `hash` cannot be parsed.
    async fn verify(&self, password: &Password, hash: &PasswordHash) -> Result<bool, PasswordHashError>;
}
