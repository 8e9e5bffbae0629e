//! Password hashing, kept behind a port because it is deliberately slow (it runs off the async
//! executor) and so tests can tune its cost.

use async_trait::async_trait;

use crate::domain::auth::{Password, PasswordHash};

#[derive(Debug, thiserror::Error)]
pub enum PasswordHashError {
    /// The stored hash is not a valid PHC string, or the hasher failed.
    #[error("password hashing failed")]
    Failed(#[source] anyhow::Error),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync + 'static {
    /// Hashes a password with a fresh random salt.
    ///
    /// # Errors
    /// [`PasswordHashError::Failed`] if the hasher itself fails.
    async fn hash(&self, password: &Password) -> Result<PasswordHash, PasswordHashError>;

    /// Whether `password` matches `hash`. A mismatch is `Ok(false)`, never an error.
    ///
    /// # Errors
    /// [`PasswordHashError::Failed`] if `hash` cannot be parsed.
    async fn verify(&self, password: &Password, hash: &PasswordHash) -> Result<bool, PasswordHashError>;
}
