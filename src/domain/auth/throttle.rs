//! Sign-in throttling: how many password guesses an account, a client address and a known device
//! may cost before sign-in answers 429, and what a success gives back.
//!
//! Every attempt takes one slot of each budget that applies before its password is checked, so
//! concurrent guesses cannot overrun a budget; a success gives its slots back (or clears the
//! budget that only it could have spent). The budgets, each over the same rolling window:
//!
//! - **per client address**, across all accounts: one address guessing over many accounts
//!   (password spraying) runs out of it however few guesses each account gets;
//! - **per account and client address**: someone guessing one account locks out only themselves,
//!   not the owner signing in from elsewhere;
//! - **per account**, over every client without a device token: a larger budget that stops
//!   guessing spread over many addresses;
//! - **per device token**: a client that presents a device token issued to this account at an
//!   earlier successful sign-in is judged by that token's own budget alone, so an owner whose
//!   account is being guessed from elsewhere still gets in from a device they have used before
//!   (OWASP's "device cookie" scheme, with the token in the response body instead of a cookie).
//!
//! Besides the budgets, one client address may have at most [`CHECKS_IN_FLIGHT_PER_CLIENT`]
//! passwords being checked at once (in this process): password checks are the scarce resource (a
//! small pool of hashing threads with a bounded queue), and without this one address could keep
//! that queue full by itself and turn everyone else's sign-ins into 503s.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

use super::models::EmailAddress;
use crate::domain::ratelimit::{RateDecision, RatePolicy};
use crate::ports::rate_limit::{RateLimitError, RateLimiter};

/// Passwords of one client address that may be checked at the same time; a further attempt is
/// refused (429, retry in a second) without touching a budget. Four: a shared office address
/// signing several people in at once still gets through, and one address alone can never hold
/// the hashing queue (`PASSWORD_HASH_QUEUE`, 8 by default, plus a thread per core).
pub const CHECKS_IN_FLIGHT_PER_CLIENT: u32 = 4;

/// The budgets, each over the same window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrottlePolicy {
    /// Failures of one account from one client address, and from one device token.
    pub per_account_and_client: RatePolicy,
    /// Failures from one client address over all accounts.
    pub per_client: RatePolicy,
    /// Failures of one account from every client without a device token.
    pub per_account: RatePolicy,
}

/// Which budget ran out: the answer tells the person what to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThrottleScope {
    Client,
    AccountFromClient,
    Account,
    Device,
    /// Too many of this address's attempts are being checked right now.
    ClientConcurrency,
}

impl ThrottleScope {
    /// What the refused client is told.
    pub fn explanation(self) -> &'static str {
        match self {
            Self::Client => "too many failed sign-in attempts from this address; try again later",
            Self::AccountFromClient | Self::Account => {
                "too many failed sign-in attempts for this account; try again later, or sign in from a \
                 device that has signed in to it before (send its device_token)"
            }
            Self::Device => "too many failed sign-in attempts from this device; try again later",
            Self::ClientConcurrency => {
                "other sign-ins from this address are being checked right now; try again in a moment"
            }
        }
    }
}

/// Where an attempt comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignInOrigin<'a> {
    /// A client that presented a valid device token of the account it signs in to (its `jti`).
    KnownDevice(Uuid),
    /// Any other client, by its throttle key (its address, or `None` where none is known).
    Untrusted(Option<&'a str>),
}

/// An attempt refused before its password was checked.
#[derive(Debug, thiserror::Error)]
pub enum ThrottleError {
    #[error("{}", .scope.explanation())]
    Throttled { scope: ThrottleScope, retry_after_secs: i64 },
    #[error(transparent)]
    Store(#[from] RateLimitError),
}

/// What a success does to a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnSuccess {
    /// Gives back this attempt's slot: others' failures in the budget still count.
    Release,
    /// Clears the budget: only this client could have spent it, and it has now proved itself.
    Clear,
}

struct Budget {
    key: String,
    policy: RatePolicy,
    scope: ThrottleScope,
    on_success: OnSuccess,
}

/// The sign-in budgets over a rate-limit store.
pub struct SignInThrottle {
    limiter: Arc<dyn RateLimiter>,
    policy: ThrottlePolicy,
    in_flight: Arc<InFlight>,
}

/// The slots one attempt holds while its password is checked; say how it ended.
#[must_use = "an attempt ends as a success, a failure or given back"]
pub struct HeldAttempt<'a> {
    throttle: &'a SignInThrottle,
    held: Vec<(Budget, RateDecision)>,
    at_ms: i64,
    _checking: Option<Checking>,
}

/// Attempts being checked, by client address.
#[derive(Default)]
struct InFlight(Mutex<HashMap<String, u32>>);

/// One attempt being checked; counted until dropped.
struct Checking {
    in_flight: Arc<InFlight>,
    client: String,
}

impl InFlight {
    fn enter(self: &Arc<Self>, client: &str) -> Option<Checking> {
        let mut counts = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let count = counts.entry(client.to_owned()).or_insert(0);
        if *count >= CHECKS_IN_FLIGHT_PER_CLIENT {
            return None;
        }
        *count += 1;
        Some(Checking { in_flight: self.clone(), client: client.to_owned() })
    }
}

impl Drop for Checking {
    fn drop(&mut self) {
        let mut counts = self.in_flight.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(count) = counts.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.client);
            }
        }
    }
}

impl SignInThrottle {
    pub fn new(limiter: Arc<dyn RateLimiter>, policy: ThrottlePolicy) -> Self {
        Self { limiter, policy, in_flight: Arc::default() }
    }

    fn budgets(&self, account: &EmailAddress, origin: SignInOrigin<'_>) -> Vec<Budget> {
        let budget = |key: String, policy, scope, on_success| Budget { key, policy, scope, on_success };
        match origin {
            SignInOrigin::KnownDevice(device) => vec![budget(
                format!("login:device:{device}"),
                self.policy.per_account_and_client,
                ThrottleScope::Device,
                OnSuccess::Clear,
            )],
            SignInOrigin::Untrusted(client) => {
                let client = client.unwrap_or("unknown");
                vec![
                    budget(
                        format!("login:client:{client}"),
                        self.policy.per_client,
                        ThrottleScope::Client,
                        OnSuccess::Release,
                    ),
                    budget(
                        format!("login:account:{account}:client:{client}"),
                        self.policy.per_account_and_client,
                        ThrottleScope::AccountFromClient,
                        OnSuccess::Clear,
                    ),
                    budget(
                        format!("login:account:{account}"),
                        self.policy.per_account,
                        ThrottleScope::Account,
                        OnSuccess::Release,
                    ),
                ]
            }
        }
    }

    /// Takes a slot of every budget that applies to an attempt on `account` from `origin`, or
    /// refuses it (taking nothing) when one of them is spent or the address already has
    /// [`CHECKS_IN_FLIGHT_PER_CLIENT`] attempts being checked.
    ///
    /// # Errors
    /// [`ThrottleError::Throttled`] naming the spent budget; [`ThrottleError::Store`] when the
    /// rate-limit store cannot answer.
    pub async fn admit(
        &self,
        account: &EmailAddress,
        origin: SignInOrigin<'_>,
        now_ms: i64,
    ) -> Result<HeldAttempt<'_>, ThrottleError> {
        // Attempts without a known address are not capped here: they would all share one count.
        let checking = match origin {
            SignInOrigin::Untrusted(Some(client)) => Some(
                self.in_flight
                    .enter(client)
                    .ok_or(ThrottleError::Throttled { scope: ThrottleScope::ClientConcurrency, retry_after_secs: 1 })?,
            ),
            _ => None,
        };
        let mut attempt = HeldAttempt { throttle: self, held: Vec::new(), at_ms: now_ms, _checking: checking };
        for budget in self.budgets(account, origin) {
            let decision = match self.limiter.try_acquire(&budget.key, budget.policy, now_ms).await {
                Ok(decision) => decision,
                Err(error) => {
                    attempt.give_back().await;
                    return Err(error.into());
                }
            };
            if !decision.allowed {
                attempt.give_back().await;
                return Err(ThrottleError::Throttled {
                    scope: budget.scope,
                    retry_after_secs: decision.retry_after_secs(now_ms),
                });
            }
            attempt.held.push((budget, decision));
        }
        Ok(attempt)
    }
}

impl HeldAttempt<'_> {
    /// The password was wrong: the slots stay spent. A budget this failure used up is logged, as
    /// it is the sign of guessing (one address over many accounts is password spraying).
    pub fn failed(self) {
        for (budget, decision) in &self.held {
            if decision.remaining > 0 {
                continue;
            }
            match budget.scope {
                ThrottleScope::Client => tracing::warn!(
                    budget = %budget.key,
                    limit = budget.policy.limit,
                    "sign-in failures from one client address used up its budget: password spraying or guessing suspected"
                ),
                ThrottleScope::Account => tracing::warn!(
                    budget = %budget.key,
                    limit = budget.policy.limit,
                    "sign-in failures for one account from many addresses used up its budget: distributed guessing suspected"
                ),
                ThrottleScope::AccountFromClient | ThrottleScope::Device | ThrottleScope::ClientConcurrency => {
                    tracing::info!(
                        budget = %budget.key,
                        "sign-in failures used up a budget"
                    )
                }
            }
        }
    }

    /// The password was right: budgets only this client could have spent are cleared, the
    /// others get this attempt's slot back.
    ///
    /// # Errors
    /// When the rate-limit store cannot answer.
    pub async fn succeeded(self) -> Result<(), RateLimitError> {
        for (budget, _) in &self.held {
            match budget.on_success {
                OnSuccess::Release => self.throttle.limiter.release(&budget.key, self.at_ms).await?,
                OnSuccess::Clear => self.throttle.limiter.reset(&budget.key).await?,
            }
        }
        Ok(())
    }

    /// The password could not be checked (the hasher was saturated or failed): the attempt does
    /// not count. Best effort: a store failure here only leaves a slot spent until the window rolls.
    pub async fn give_back(self) {
        for (budget, _) in &self.held {
            if let Err(error) = self.throttle.limiter.release(&budget.key, self.at_ms).await {
                tracing::warn!(error = %error, "could not give back a sign-in slot");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::memory::MemoryRateLimiter;

    fn throttle() -> SignInThrottle {
        let window_ms = 15 * 60 * 1000;
        SignInThrottle::new(
            Arc::new(MemoryRateLimiter::new()),
            ThrottlePolicy {
                per_account_and_client: RatePolicy { limit: 3, window_ms },
                per_client: RatePolicy { limit: 5, window_ms },
                per_account: RatePolicy { limit: 8, window_ms },
            },
        )
    }

    fn email(raw: &str) -> EmailAddress {
        EmailAddress::new(raw).expect("valid")
    }

    async fn fail(
        throttle: &SignInThrottle,
        account: &str,
        origin: SignInOrigin<'_>,
        at: i64,
    ) -> Result<(), ThrottleScope> {
        match throttle.admit(&email(account), origin, at).await {
            Ok(attempt) => {
                attempt.failed();
                Ok(())
            }
            Err(ThrottleError::Throttled { scope, .. }) => Err(scope),
            Err(other) => panic!("{other}"),
        }
    }

    #[tokio::test]
    async fn one_address_spraying_many_accounts_runs_out_of_its_own_budget() {
        let throttle = throttle();
        let attacker = SignInOrigin::Untrusted(Some("203.0.113.9"));
        for n in 0..5 {
            assert_eq!(fail(&throttle, &format!("user{n}@example.com"), attacker, n).await, Ok(()));
        }
        assert_eq!(fail(&throttle, "user99@example.com", attacker, 10).await, Err(ThrottleScope::Client));
        // Another address is not affected.
        assert_eq!(
            fail(&throttle, "user99@example.com", SignInOrigin::Untrusted(Some("198.51.100.1")), 11).await,
            Ok(())
        );
    }

    #[tokio::test]
    async fn guessing_one_account_locks_out_the_guesser_not_the_owner_elsewhere() {
        let throttle = throttle();
        let attacker = SignInOrigin::Untrusted(Some("203.0.113.9"));
        for n in 0..3 {
            assert_eq!(fail(&throttle, "owner@example.com", attacker, n).await, Ok(()));
        }
        assert_eq!(fail(&throttle, "owner@example.com", attacker, 5).await, Err(ThrottleScope::AccountFromClient));
        let owner = throttle
            .admit(&email("owner@example.com"), SignInOrigin::Untrusted(Some("198.51.100.1")), 6)
            .await
            .expect("the owner's address still has its budget");
        owner.succeeded().await.expect("store");
    }

    #[tokio::test]
    async fn guessing_spread_over_many_addresses_hits_the_account_budget_but_not_a_known_device() {
        let throttle = throttle();
        for n in 0..8 {
            let address = format!("203.0.113.{n}");
            assert_eq!(fail(&throttle, "owner@example.com", SignInOrigin::Untrusted(Some(&address)), n).await, Ok(()));
        }
        let fresh = SignInOrigin::Untrusted(Some("192.0.2.77"));
        assert_eq!(fail(&throttle, "owner@example.com", fresh, 20).await, Err(ThrottleScope::Account));
        let device = SignInOrigin::KnownDevice(Uuid::new_v4());
        let attempt = throttle.admit(&email("owner@example.com"), device, 21).await.expect("known device gets in");
        attempt.succeeded().await.expect("store");
    }

    #[tokio::test]
    async fn a_device_token_has_its_own_small_budget() {
        let throttle = throttle();
        let device = SignInOrigin::KnownDevice(Uuid::new_v4());
        for n in 0..3 {
            assert_eq!(fail(&throttle, "owner@example.com", device, n).await, Ok(()));
        }
        assert_eq!(fail(&throttle, "owner@example.com", device, 4).await, Err(ThrottleScope::Device));
    }

    #[tokio::test]
    async fn successes_do_not_spend_the_address_budget_of_a_shared_office_address() {
        let throttle = throttle();
        let office = SignInOrigin::Untrusted(Some("192.0.2.10"));
        for n in 0..50 {
            let attempt = throttle.admit(&email(&format!("staff{n}@example.com")), office, n).await.expect("admitted");
            attempt.succeeded().await.expect("store");
        }
    }

    #[tokio::test]
    async fn one_address_has_a_bounded_number_of_checks_in_flight() {
        let throttle = throttle();
        let client = SignInOrigin::Untrusted(Some("192.0.2.10"));
        let mut checking = Vec::new();
        for n in 0..CHECKS_IN_FLIGHT_PER_CLIENT {
            checking.push(throttle.admit(&email(&format!("staff{n}@example.com")), client, 1).await.expect("admitted"));
        }
        match throttle.admit(&email("late@example.com"), client, 2).await {
            Err(ThrottleError::Throttled { scope: ThrottleScope::ClientConcurrency, retry_after_secs: 1 }) => {}
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("a fifth concurrent check from one address was admitted"),
        }
        // Other addresses and known devices are not affected.
        let other = SignInOrigin::Untrusted(Some("192.0.2.11"));
        throttle.admit(&email("late@example.com"), other, 3).await.expect("admitted").give_back().await;
        let device = SignInOrigin::KnownDevice(Uuid::new_v4());
        throttle.admit(&email("late@example.com"), device, 3).await.expect("admitted").give_back().await;
        // A finished check frees its place, however it ended.
        checking.pop().expect("held").succeeded().await.expect("store");
        throttle.admit(&email("late@example.com"), client, 4).await.expect("admitted").give_back().await;
    }

    #[tokio::test]
    async fn a_refused_attempt_takes_no_slot_and_a_given_back_one_does_not_count() {
        let throttle = throttle();
        let client = SignInOrigin::Untrusted(Some("192.0.2.10"));
        for n in 0..3 {
            assert_eq!(fail(&throttle, "a@example.com", client, n).await, Ok(()));
        }
        // The per-account-and-client budget refuses; the address budget must not have been spent by it.
        for n in 3..10 {
            assert_eq!(fail(&throttle, "a@example.com", client, n).await, Err(ThrottleScope::AccountFromClient));
        }
        assert_eq!(fail(&throttle, "b@example.com", client, 11).await, Ok(()));
        let attempt = throttle.admit(&email("b@example.com"), client, 12).await.expect("admitted");
        attempt.give_back().await;
        assert_eq!(fail(&throttle, "b@example.com", client, 13).await, Ok(()));
        // 3 + 2 failures from this address: its budget of 5 is now spent.
        assert_eq!(fail(&throttle, "c@example.com", client, 14).await, Err(ThrottleScope::Client));
    }
}
