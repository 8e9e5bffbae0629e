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

/// Which queue a password check waits in. The trusted lane has its own room, so a flood of
/// guesses filling the shared queue cannot keep out a sign-in from a device that has signed in
/// to the account before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashLane {
    /// Every check that has not proved anything yet.
    Shared,
    /// A check for a client that presented a valid device token of the account.
    Trusted,
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

    /// Whether `password` matches `hash`, checked in `lane`'s queue. A mismatch is `Ok(false)`,
    /// never an error.
    ///
    /// # Errors
    /// [`PasswordHashError::Busy`] when `lane`'s queue is full; [`PasswordHashError::Failed`]
    /// if `hash` cannot be parsed.
    async fn verify(&self, password: &Password, hash: &PasswordHash, lane: HashLane)
    -> Result<bool, PasswordHashError>;
}
