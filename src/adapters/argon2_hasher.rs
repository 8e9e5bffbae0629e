//! argon2id password hashing on a small, fixed pool of dedicated threads.
//!
//! Each hash needs its parameters' worth of memory (7 MiB here). Run on tokio's blocking pool
//! (up to 512 threads), a burst of sign-in attempts would hold hundreds of those at once and the
//! allocator keeps much of it afterwards (measured: 3.5 GiB after a burst of 64 concurrent failed
//! logins). A pool of one thread per core bounds the concurrency, and each worker reuses one
//! memory buffer for every hash (argon2's `hash_password_into_with_memory`): the allocator's
//! arenas kept growing to ~56 MiB per thread when every hash allocated its own 7 MiB. Memory is
//! therefore fixed at threads × m_cost.
//!
//! The queue in front of the pool is bounded: with an unbounded one, a flood of sign-in attempts
//! made every legitimate sign-in wait behind all of them (measured: 17 ms became 1.4 s). A full
//! queue answers [`PasswordHashError::Busy`] at once, which the API turns into 503 with
//! `Retry-After`; the wait of an admitted hash is bounded by queue length × hash time / threads.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash as PhcHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use async_trait::async_trait;

use crate::domain::auth::{Password, PasswordHash};
use crate::ports::password::{PasswordHashError, PasswordHasher};

/// Work for a pool thread, given that thread's reusable argon2 memory.
type Job = Box<dyn FnOnce(&mut Vec<Block>) + Send>;

/// Hashes that may wait for a thread (`PASSWORD_HASH_QUEUE`'s default): at ~17–30 ms a hash on two
/// threads, the last of them starts within about 70–120 ms, which is the most a flood can add to a
/// legitimate sign-in (measured: docs/BENCHMARKS.md, "Login flood").
pub const DEFAULT_QUEUE: usize = 8;

const SALT_LEN: usize = 16;
const OUTPUT_LEN: usize = 32;

/// argon2id with explicit parameters (stored in every PHC string, so changing them later still
/// verifies old hashes).
pub struct Argon2Hasher {
    params: Params,
    jobs: mpsc::SyncSender<Job>,
}

impl Argon2Hasher {
    /// One of OWASP's equivalent argon2id settings, the one with the smallest memory footprint:
    /// 7 MiB, 5 iterations, 1 lane.
    pub fn recommended() -> Self {
        Self::recommended_with_queue(DEFAULT_QUEUE)
    }

    /// [`Self::recommended`] with at most `queue` hashes waiting for a thread.
    pub fn recommended_with_queue(queue: usize) -> Self {
        Self::with_params(Params::new(7 * 1024, 5, 1, None).unwrap_or_default(), queue)
    }

    /// Minimal cost, for tests only: keeps the real algorithm while making hashing fast, with room
    /// for the bursts of concurrent sign-ins the tests make.
    pub fn fast_for_tests() -> Self {
        Self::with_params(Params::new(Params::MIN_M_COST.max(64), 1, 1, None).unwrap_or_default(), 64)
    }

    fn with_params(params: Params, queue: usize) -> Self {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self { params, jobs: spawn_workers(threads, queue) }
    }

    /// Runs `work` on the pool and waits for its result without blocking the executor.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, PasswordHashError> {
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |memory| {
            let _ = done.send(work(memory));
        });
        self.jobs.try_send(job).map_err(|error| match error {
            mpsc::TrySendError::Full(_) => PasswordHashError::Busy,
            mpsc::TrySendError::Disconnected(_) => failed("password hashing pool has stopped"),
        })?;
        result.await.map_err(|_| failed("password hashing job was dropped"))
    }
}

/// Starts `threads` workers sharing one queue of `queue` waiting jobs; they exit when the sender
/// is dropped.
fn spawn_workers(threads: usize, queue: usize) -> mpsc::SyncSender<Job> {
    let (sender, receiver) = mpsc::sync_channel::<Job>(queue);
    let receiver = Arc::new(Mutex::new(receiver));
    for index in 0..threads {
        let receiver = receiver.clone();
        let spawned = std::thread::Builder::new().name(format!("argon2-{index}")).spawn(move || {
            let mut memory = Vec::new();
            loop {
                let next = receiver.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).recv();
                match next {
                    Ok(job) => job(&mut memory),
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

/// argon2 of `password` into `out`, in the worker's reusable `memory` (grown when a stored hash
/// asks for more than the current parameters).
fn argon2_into(
    argon2: &Argon2<'_>,
    params: &Params,
    password: &Password,
    salt: &[u8],
    out: &mut [u8],
    memory: &mut Vec<Block>,
) -> Result<(), PasswordHashError> {
    let blocks = params.block_count();
    if memory.len() < blocks {
        memory.resize(blocks, Block::default());
    }
    argon2
        .hash_password_into_with_memory(password.expose().as_bytes(), salt, out, &mut memory[..blocks])
        .map_err(failed)
}

fn hash_in(params: &Params, password: &Password, memory: &mut Vec<Block>) -> Result<PasswordHash, PasswordHashError> {
    let salt_bytes: [u8; SALT_LEN] = rand::random();
    let mut out = [0u8; OUTPUT_LEN];
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    argon2_into(&argon2, params, password, &salt_bytes, &mut out, memory)?;
    let phc = PhcHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(params).map_err(failed)?,
        salt: Some(Salt::new(&salt_bytes).map_err(failed)?),
        hash: Some(Output::new(&out).map_err(failed)?),
    };
    Ok(PasswordHash::from_phc(phc.to_string()))
}

fn verify_in(password: &Password, stored: &PasswordHash, memory: &mut Vec<Block>) -> Result<bool, PasswordHashError> {
    let phc = PhcHash::new(stored.as_phc()).map_err(failed)?;
    let algorithm = Algorithm::try_from(phc.algorithm.as_str()).map_err(failed)?;
    let version = phc.version.map_or(Ok(Version::V0x13), Version::try_from).map_err(failed)?;
    let params = Params::try_from(&phc).map_err(failed)?;
    let (Some(salt), Some(expected)) = (&phc.salt, &phc.hash) else {
        return Err(failed("stored hash has no salt or output"));
    };
    let mut out = vec![0u8; expected.len()];
    let argon2 = Argon2::new(algorithm, version, params.clone());
    argon2_into(&argon2, &params, password, salt.as_ref(), &mut out, memory)?;
    // `Output` compares in constant time.
    Ok(Output::new(&out).map_err(failed)? == *expected)
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash(&self, password: &Password) -> Result<PasswordHash, PasswordHashError> {
        let params = self.params.clone();
        let password = password.clone();
        self.run(move |memory| hash_in(&params, &password, memory)).await?
    }

    async fn verify(&self, password: &Password, hash: &PasswordHash) -> Result<bool, PasswordHashError> {
        let password = password.clone();
        let hash = hash.clone();
        self.run(move |memory| verify_in(&password, &hash, memory)).await?
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
    async fn hashes_from_the_reference_implementation_verify() {
        // argon2's own PHC hashing (no reused memory) must agree with this adapter's.
        use argon2::password_hash::PasswordHasher as _;
        let params = Params::new(64, 2, 1, None).expect("params");
        let reference: PhcHash = Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
            .hash_password(b"correct horse battery staple")
            .expect("hash");
        let hasher = Argon2Hasher::fast_for_tests();
        let stored = PasswordHash::from_phc(reference.to_string());
        let right = Password::new("correct horse battery staple".into()).expect("valid");
        let wrong = Password::new("correct horse battery stable".into()).expect("valid");
        assert!(hasher.verify(&right, &stored).await.expect("verify"));
        assert!(!hasher.verify(&wrong, &stored).await.expect("verify"));

        // And the other way: this adapter's hashes verify with the reference implementation.
        use argon2::password_hash::PasswordVerifier as _;
        let ours = hasher.hash(&right).await.expect("hash");
        let parsed = PhcHash::new(ours.as_phc()).expect("phc");
        assert!(Argon2::default().verify_password(b"correct horse battery staple", &parsed).is_ok());
        assert!(Argon2::default().verify_password(b"correct horse battery stable", &parsed).is_err());
    }

    #[tokio::test]
    async fn a_full_queue_answers_busy_at_once_instead_of_waiting() {
        // The recommended cost (tens of ms a hash) with room for two waiting hashes: of 40
        // submitted at once, at most threads + 2 are admitted and the rest are refused at once.
        let hasher = Arc::new(Argon2Hasher::recommended_with_queue(2));
        let password = Password::new("correct horse battery staple".into()).expect("valid");
        let started = std::time::Instant::now();
        let jobs: Vec<_> = (0..40)
            .map(|_| {
                let hasher = hasher.clone();
                let password = password.clone();
                tokio::spawn(async move { hasher.hash(&password).await })
            })
            .collect();
        let mut busy = 0;
        let mut done = 0;
        for job in jobs {
            match job.await.expect("join") {
                Ok(_) => done += 1,
                Err(PasswordHashError::Busy) => busy += 1,
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert!(done >= 1 && done <= threads + 2, "{done} hashed");
        assert_eq!(busy + done, 40);
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        // Once drained, the pool accepts work again.
        assert!(hasher.hash(&password).await.is_ok());
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
