//! argon2id password hashing, run on the blocking thread pool so a burst of logins cannot stall
//! the async executor.

use argon2::password_hash::phc::PasswordHash as PhcHash;
use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;

use crate::domain::auth::{Password, PasswordHash};
use crate::ports::password::{PasswordHashError, PasswordHasher};

/// argon2id with explicit parameters (stored in every PHC string, so changing them later still
/// verifies old hashes).
#[derive(Clone, Debug)]
pub struct Argon2Hasher {
    params: Params,
}

impl Argon2Hasher {
    /// OWASP's recommended argon2id setting: 19 MiB, 2 iterations, 1 lane.
    pub fn recommended() -> Self {
        Self::with_params(Params::new(19 * 1024, 2, 1, None).unwrap_or_default())
    }

    /// Minimal cost, for tests only: keeps the real algorithm while making hashing fast.
    pub fn fast_for_tests() -> Self {
        Self::with_params(Params::new(Params::MIN_M_COST.max(64), 1, 1, None).unwrap_or_default())
    }

    fn with_params(params: Params) -> Self {
        Self { params }
    }

    fn argon2(&self) -> Argon2<'static> {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, self.params.clone())
    }
}

fn failed(error: impl std::fmt::Display) -> PasswordHashError {
    PasswordHashError::Failed(anyhow::anyhow!("{error}"))
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash(&self, password: &Password) -> Result<PasswordHash, PasswordHashError> {
        let argon2 = self.argon2();
        let password = password.clone();
        tokio::task::spawn_blocking(move || {
            let hash: PhcHash = argon2.hash_password(password.expose().as_bytes()).map_err(failed)?;
            Ok(PasswordHash::from_phc(hash.to_string()))
        })
        .await
        .map_err(failed)?
    }

    async fn verify(&self, password: &Password, hash: &PasswordHash) -> Result<bool, PasswordHashError> {
        let argon2 = self.argon2();
        let password = password.clone();
        let hash = hash.clone();
        tokio::task::spawn_blocking(move || {
            let parsed = PhcHash::new(hash.as_phc()).map_err(failed)?;
            Ok(argon2.verify_password(password.expose().as_bytes(), &parsed).is_ok())
        })
        .await
        .map_err(failed)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_its_password_and_no_other() {
        let hasher = Argon2Hasher::fast_for_tests();
        let password = Password::new("correct horse battery staple".into()).expect("valid");
        let hash = hasher.hash(&password).await.expect("hash");
        assert!(hash.as_phc().starts_with("$argon2id$"));
        assert!(hasher.verify(&password, &hash).await.expect("verify"));
        let wrong = Password::candidate("correct horse battery stable".into()).expect("valid");
        assert!(!hasher.verify(&wrong, &hash).await.expect("verify"));
    }

    #[tokio::test]
    async fn a_corrupt_stored_hash_is_an_error_not_a_match() {
        let hasher = Argon2Hasher::fast_for_tests();
        let password = Password::new("correct horse battery staple".into()).expect("valid");
        let corrupt = PasswordHash::from_phc("not-a-phc-string".into());
        assert!(hasher.verify(&password, &corrupt).await.is_err());
    }
}
