//! argon2id password hashing on a small, fixed pool of dedicated threads.
//!
//! Each hash needs its parameters' worth of memory (7 MiB here). Run on tokio's blocking pool
//! (up to 512 threads), a burst of sign-in attempts would hold hundreds of those at once and the
//! allocator keeps much of it afterwards (measured: 3.5 GiB after a burst of 64 concurrent failed
//! logins). A pool of one thread per core bounds both the memory and the number of allocator
//! arenas involved; excess attempts wait in the queue instead.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use argon2::password_hash::phc::PasswordHash as PhcHash;
use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;

use crate::domain::auth::{Password, PasswordHash};
use crate::ports::password::{PasswordHashError, PasswordHasher};

type Job = Box<dyn FnOnce() + Send>;

/// argon2id with explicit parameters (stored in every PHC string, so changing them later still
/// verifies old hashes).
pub struct Argon2Hasher {
    params: Params,
    jobs: mpsc::Sender<Job>,
}

impl Argon2Hasher {
    /// One of OWASP's equivalent argon2id settings, the one with the smallest memory footprint:
    /// 7 MiB, 5 iterations, 1 lane.
    pub fn recommended() -> Self {
        Self::with_params(Params::new(7 * 1024, 5, 1, None).unwrap_or_default())
    }

    /// Minimal cost, for tests only: keeps the real algorithm while making hashing fast.
    pub fn fast_for_tests() -> Self {
        Self::with_params(Params::new(Params::MIN_M_COST.max(64), 1, 1, None).unwrap_or_default())
    }

    fn with_params(params: Params) -> Self {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self { params, jobs: spawn_workers(threads) }
    }

    fn argon2(&self) -> Argon2<'static> {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, self.params.clone())
    }

    /// Runs `work` on the pool and waits for its result without blocking the executor.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, PasswordHashError> {
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = done.send(work());
        });
        self.jobs.send(job).map_err(|_| failed("password hashing pool has stopped"))?;
        result.await.map_err(|_| failed("password hashing job was dropped"))
    }
}

/// Starts `threads` workers sharing one queue; they exit when the sender is dropped.
fn spawn_workers(threads: usize) -> mpsc::Sender<Job> {
    let (sender, receiver) = mpsc::channel::<Job>();
    let receiver = Arc::new(Mutex::new(receiver));
    for index in 0..threads {
        let receiver = receiver.clone();
        let spawned = std::thread::Builder::new().name(format!("argon2-{index}")).spawn(move || {
            loop {
                let next = receiver.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).recv();
                match next {
                    Ok(job) => job(),
                    Err(_) => break,
                }
            }
        });
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot start a password hashing thread");
        }
    }
    sender
}

fn failed(error: impl std::fmt::Display) -> PasswordHashError {
    PasswordHashError::Failed(anyhow::anyhow!("{error}"))
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash(&self, password: &Password) -> Result<PasswordHash, PasswordHashError> {
        let argon2 = self.argon2();
        let password = password.clone();
        self.run(move || {
            let hash: PhcHash = argon2.hash_password(password.expose().as_bytes()).map_err(failed)?;
            Ok(PasswordHash::from_phc(hash.to_string()))
        })
        .await?
    }

    async fn verify(&self, password: &Password, hash: &PasswordHash) -> Result<bool, PasswordHashError> {
        let argon2 = self.argon2();
        let password = password.clone();
        let hash = hash.clone();
        self.run(move || {
            let parsed = PhcHash::new(hash.as_phc()).map_err(failed)?;
            Ok(argon2.verify_password(password.expose().as_bytes(), &parsed).is_ok())
        })
        .await?
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

    #[tokio::test]
    async fn the_recommended_setting_is_argon2id_7_mib_5_passes() {
        let hasher = Argon2Hasher::recommended();
        let password = Password::new("correct horse battery staple".into()).expect("valid");
        let hash = hasher.hash(&password).await.expect("hash");
        assert!(hash.as_phc().starts_with("$argon2id$v=19$m=7168,t=5,p=1$"), "{}", hash.as_phc());
    }

    #[tokio::test]
    async fn many_concurrent_hashes_all_complete_on_the_bounded_pool() {
        let hasher = Arc::new(Argon2Hasher::fast_for_tests());
        let password = Password::new("correct horse battery staple".into()).expect("valid");
        let jobs: Vec<_> = (0..32)
            .map(|_| {
                let hasher = hasher.clone();
                let password = password.clone();
                tokio::spawn(async move { hasher.hash(&password).await })
            })
            .collect();
        for job in jobs {
            assert!(job.await.expect("join").is_ok());
        }
    }
}
