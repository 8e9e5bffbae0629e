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
//! Checks for clients with a device token of the account wait in a lane of their own, taken
//! first by the workers, so a flood that fills the shared queue does not keep the owner out.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash as PhcHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use async_trait::async_trait;

use crate::domain::auth::{Password, PasswordHash};
use crate::ports::password::{HashLane, PasswordHashError, PasswordHasher};

/// Work for a pool thread, given that thread's reusable argon2 memory.
type Job = Box<dyn FnOnce(&mut Vec<Block>) + Send>;

/// Hashes that may wait for a thread in each lane (`PASSWORD_HASH_QUEUE`'s default): at ~17–30 ms a hash on two
/// threads, the last of them starts within about 70–120 ms, which is the most a flood can add to a
/// legitimate sign-in (measured: docs/BENCHMARKS.md, "Login flood").
pub const DEFAULT_QUEUE: usize = 8;

const SALT_LEN: usize = 16;
const OUTPUT_LEN: usize = 32;

/// argon2id with explicit parameters (stored in every PHC string, so changing them later still
/// verifies old hashes).
pub struct Argon2Hasher {
    params: Params,
    pool: Arc<Pool>,
}

impl Argon2Hasher {
    /// One of OWASP's equivalent argon2id settings, the one with the smallest memory footprint:
    /// 7 MiB, 5 iterations, 1 lane.
    pub fn recommended() -> Self {
        Self::recommended_with_queue(DEFAULT_QUEUE)
    }

    /// [`Self::recommended`] with at most `queue` hashes waiting for a thread in each lane.
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
        Self { params, pool: Pool::start(threads, queue) }
    }

    /// Runs `work` on the pool and waits for its result without blocking the executor.
    async fn run<T: Send + 'static>(
        &self,
        lane: HashLane,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, PasswordHashError> {
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |memory| {
            let _ = done.send(work(memory));
        });
        self.pool.submit(lane, job)?;
        result.await.map_err(|_| failed("password hashing job was dropped"))
    }
}

impl Drop for Argon2Hasher {
    fn drop(&mut self) {
        self.pool.close();
    }
}

/// The jobs waiting for a thread, one bounded queue per lane.
#[derive(Default)]
struct Lanes {
    shared: VecDeque<Job>,
    trusted: VecDeque<Job>,
    closed: bool,
}

/// A fixed set of worker threads over two bounded lanes; the trusted lane is served first.
struct Pool {
    lanes: Mutex<Lanes>,
    work_waiting: Condvar,
    capacity: usize,
}

impl Pool {
    /// Starts `threads` workers, each lane holding at most `capacity` waiting jobs; the workers
    /// exit once the pool is closed and drained.
    fn start(threads: usize, capacity: usize) -> Arc<Self> {
        let pool = Arc::new(Self { lanes: Mutex::default(), work_waiting: Condvar::new(), capacity });
        for index in 0..threads {
            let worker = pool.clone();
            let spawned = std::thread::Builder::new().name(format!("argon2-{index}")).spawn(move || {
                let mut memory = Vec::new();
                while let Some(job) = worker.next_job() {
                    job(&mut memory);
                }
            });
            if let Err(error) = spawned {
                tracing::error!(%error, "cannot start a password hashing thread");
            }
        }
        pool
    }

    fn lock(&self) -> MutexGuard<'_, Lanes> {
        self.lanes.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn submit(&self, lane: HashLane, job: Job) -> Result<(), PasswordHashError> {
        let mut lanes = self.lock();
        if lanes.closed {
            return Err(failed("password hashing pool has stopped"));
        }
        let queue = match lane {
            HashLane::Shared => &mut lanes.shared,
            HashLane::Trusted => &mut lanes.trusted,
        };
        if queue.len() >= self.capacity {
            return Err(PasswordHashError::Busy);
        }
        queue.push_back(job);
        drop(lanes);
        self.work_waiting.notify_one();
        Ok(())
    }

    /// The next job, trusted lane first; `None` once closed and drained.
    fn next_job(&self) -> Option<Job> {
        let mut lanes = self.lock();
        loop {
            if let Some(job) = lanes.trusted.pop_front().or_else(|| lanes.shared.pop_front()) {
                return Some(job);
            }
            if lanes.closed {
                return None;
            }
            lanes = self.work_waiting.wait(lanes).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    fn close(&self) {
        self.lock().closed = true;
        self.work_waiting.notify_all();
    }
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
        self.run(HashLane::Shared, move |memory| hash_in(&params, &password, memory)).await?
    }

    async fn verify(
        &self,
        password: &Password,
        hash: &PasswordHash,
        lane: HashLane,
    ) -> Result<bool, PasswordHashError> {
        let password = password.clone();
        let hash = hash.clone();
        self.run(lane, move |memory| verify_in(&password, &hash, memory)).await?
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
        assert!(hasher.verify(&password, &hash, HashLane::Shared).await.expect("verify"));
        let wrong = Password::candidate("correct horse battery stable".into()).expect("valid");
        assert!(!hasher.verify(&wrong, &hash, HashLane::Shared).await.expect("verify"));
    }

    #[tokio::test]
    async fn a_corrupt_stored_hash_is_an_error_not_a_match() {
        let hasher = Argon2Hasher::fast_for_tests();
        let password = Password::new("correct horse battery staple".into()).expect("valid");
        let corrupt = PasswordHash::from_phc("not-a-phc-string".into());
        assert!(hasher.verify(&password, &corrupt, HashLane::Shared).await.is_err());
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
        assert!(hasher.verify(&right, &stored, HashLane::Trusted).await.expect("verify"));
        assert!(!hasher.verify(&wrong, &stored, HashLane::Shared).await.expect("verify"));

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
    async fn a_trusted_check_is_admitted_while_the_shared_queue_is_full() {
        let hasher = Arc::new(Argon2Hasher::recommended_with_queue(2));
        let password = Password::new("correct horse battery staple".into()).expect("valid");
        let stored = hasher.hash(&password).await.expect("hash");
        let flood: Vec<_> = (0..40)
            .map(|_| {
                let (hasher, password, stored) = (hasher.clone(), password.clone(), stored.clone());
                tokio::spawn(async move { hasher.verify(&password, &stored, HashLane::Shared).await })
            })
            .collect();
        tokio::task::yield_now().await;
        let owner = hasher.verify(&password, &stored, HashLane::Trusted).await;
        assert!(owner.expect("the trusted lane has room"));
        let busy = futures_util::future::join_all(flood)
            .await
            .into_iter()
            .filter(|result| matches!(result, Ok(Err(PasswordHashError::Busy))))
            .count();
        assert!(busy > 0, "the flood should have filled the shared queue");
    }

    #[test]
    fn workers_take_the_trusted_lane_first() {
        let pool = Pool::start(1, 4);
        let order = Arc::new(Mutex::new(Vec::new()));
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let (started, worker_busy) = std::sync::mpsc::channel::<()>();
        pool.submit(
            HashLane::Shared,
            Box::new(move |_| {
                let _ = started.send(());
                let _ = blocked.recv();
            }),
        )
        .expect("admitted");
        worker_busy.recv().expect("the only worker holds the first job");
        for (lane, name) in
            [(HashLane::Shared, "shared-1"), (HashLane::Shared, "shared-2"), (HashLane::Trusted, "trusted")]
        {
            let order = order.clone();
            pool.submit(lane, Box::new(move |_| order.lock().expect("order").push(name))).expect("admitted");
        }
        let (done, finished) = std::sync::mpsc::channel::<()>();
        pool.submit(
            HashLane::Shared,
            Box::new(move |_| {
                let _ = done.send(());
            }),
        )
        .expect("admitted");
        release.send(()).expect("worker waiting");
        finished.recv().expect("all jobs ran");
        assert_eq!(*order.lock().expect("order"), ["trusted", "shared-1", "shared-2"]);
        pool.close();
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
