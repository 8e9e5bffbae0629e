//! Unit tests of the authentication use cases, driven through in-memory adapters, a manual clock
//! and mockall mocks where a test needs to observe or break a port.

use std::sync::Arc;

use k256::ecdsa::SigningKey;
use time::macros::datetime;

use super::*;
use crate::adapters::argon2_hasher::Argon2Hasher;
use crate::adapters::clock::ManualClock;
use crate::adapters::jwt::JwtIssuer;
use crate::adapters::memory::{MemoryRateLimiter, MemoryStore};
use crate::domain::ratelimit::RatePolicy;
use crate::ports::password::MockPasswordHasher;
use crate::ports::store::MockUserRepository;

const PASSWORD: &str = "a long enough password";

struct Harness {
    service: AuthService,
    clock: Arc<ManualClock>,
    store: Arc<MemoryStore>,
}

fn settings() -> AuthSettings {
    AuthSettings {
        issuer: "creditflow".into(),
        audience: "creditflow-api".into(),
        access_ttl: Duration::minutes(15),
        refresh_ttl: Duration::days(30),
        siwe_domain: "localhost:3000".into(),
        siwe_uri: "http://localhost:3000".into(),
        siwe_chain_ids: vec![1],
        siwe_nonce_ttl: Duration::minutes(5),
        siwe_clock_skew: Duration::seconds(30),
        wallet_default_role: Role::Analyst,
        sign_in_throttle: ThrottlePolicy {
            per_account_and_client: RatePolicy { limit: 3, window_ms: 15 * 60 * 1000 },
            per_client: RatePolicy { limit: 10, window_ms: 15 * 60 * 1000 },
            per_account: RatePolicy { limit: 12, window_ms: 15 * 60 * 1000 },
        },
    }
}

fn harness_with(users: Option<Arc<dyn UserRepository>>, hasher: Arc<dyn PasswordHasher>) -> Harness {
    let clock = Arc::new(ManualClock::starting_at(datetime!(2026-01-01 00:00 UTC)));
    let store = Arc::new(MemoryStore::new());
    let service = AuthService::new(
        AuthPorts {
            users: users.unwrap_or_else(|| store.clone()),
            refresh_tokens: store.clone(),
            nonces: store.clone(),
            tokens: Arc::new(JwtIssuer::hs256(&[42; 32], "creditflow", "creditflow-api")),
            hasher,
            login_attempts: Arc::new(MemoryRateLimiter::new()),
            clock: clock.clone(),
        },
        settings(),
    );
    Harness { service, clock, store }
}

impl Harness {
    /// Creates a password user with `role` and signs them in.
    async fn signed_in_user(&self, email: &str, role: Role) -> SignedIn {
        self.service.create_user(email, PASSWORD.into(), role).await.expect("create");
        self.login(email, PASSWORD).await.expect("login")
    }

    /// A password sign-in from the one client address these tests use unless they say otherwise.
    async fn login(&self, email: &str, password: &str) -> Result<SignedIn, AuthError> {
        self.login_from(email, password, "192.0.2.1", None).await
    }

    async fn login_from(
        &self,
        email: &str,
        password: &str,
        client: &str,
        device_token: Option<&str>,
    ) -> Result<SignedIn, AuthError> {
        let context = SignInContext { client: Some(client.to_owned()), device_token: device_token.map(str::to_owned) };
        self.service.login(email, password.to_owned(), context).await
    }
}

fn harness() -> Harness {
    harness_with(None, Arc::new(Argon2Hasher::fast_for_tests()))
}

#[tokio::test]
async fn an_unknown_email_still_costs_one_password_verification() {
    let mut hasher = MockPasswordHasher::new();
    hasher.expect_hash().times(1).returning(|_| Ok(PasswordHash::from_phc("$argon2id$dummy".into())));
    hasher.expect_verify().times(1).returning(|_, _, _| Ok(false));
    let h = harness_with(None, Arc::new(hasher));
    let error = h.login("nobody@example.com", PASSWORD).await.unwrap_err();
    assert!(matches!(error, AuthError::InvalidCredentials));
}

#[tokio::test]
async fn wrong_password_and_unknown_account_fail_identically() {
    let h = harness();
    h.service.create_user("a@example.com", PASSWORD.into(), Role::Analyst).await.expect("create");
    let wrong_password = h.login("a@example.com", "not the password").await.unwrap_err();
    let unknown = h.login("b@example.com", PASSWORD).await.unwrap_err();
    assert_eq!(wrong_password.to_string(), unknown.to_string());
}

#[tokio::test]
async fn failed_logins_are_throttled_until_the_window_rolls() {
    let h = harness();
    h.service.create_user("a@example.com", PASSWORD.into(), Role::Analyst).await.expect("create");
    for _ in 0..3 {
        assert!(matches!(h.login("a@example.com", "wrong password!").await, Err(AuthError::InvalidCredentials)));
    }
    // Even the right password is refused while the budget is spent: the guesser learns nothing.
    match h.login("a@example.com", PASSWORD).await {
        Err(AuthError::LoginThrottled { scope, retry_after_secs }) => {
            assert_eq!((scope, retry_after_secs), (ThrottleScope::AccountFromClient, 900));
        }
        other => panic!("expected throttling, got {other:?}"),
    }
    h.clock.advance(Duration::minutes(15));
    assert!(h.login("a@example.com", PASSWORD).await.is_ok());
}

#[tokio::test]
async fn a_success_gives_the_attempt_budget_back() {
    let h = harness();
    h.service.create_user("a@example.com", PASSWORD.into(), Role::Analyst).await.expect("create");
    // Eight failures in all: beyond the per-account-and-client budget (3), within the client's (10).
    for _ in 0..4 {
        for _ in 0..2 {
            assert!(h.login("a@example.com", "wrong password!").await.is_err());
        }
        h.login("a@example.com", PASSWORD).await.expect("owner signs in between failures");
    }
}

#[tokio::test]
async fn refresh_token_reuse_revokes_the_whole_family() {
    let h = harness();
    let first = h.signed_in_user("a@example.com", Role::Analyst).await;
    let second = h.service.refresh(&first.refresh_token).await.expect("rotate");
    assert!(matches!(h.service.refresh(&first.refresh_token).await, Err(AuthError::RefreshTokenReused)));
    // The rotated token, never used, died with its family.
    assert!(matches!(h.service.refresh(&second.refresh_token).await, Err(AuthError::RefreshTokenRevoked)));
}

#[tokio::test]
async fn another_sign_in_is_not_affected_by_a_revoked_family() {
    let h = harness();
    let laptop = h.signed_in_user("a@example.com", Role::Analyst).await;
    let phone = h.login("a@example.com", PASSWORD).await.expect("login");
    let caller = h.service.authenticate(&laptop.access_token).await.expect("principal");
    h.service.logout(caller, &laptop.refresh_token).await.expect("logout");
    assert!(h.service.refresh(&laptop.refresh_token).await.is_err());
    assert!(h.service.refresh(&phone.refresh_token).await.is_ok());
}

#[tokio::test]
async fn a_user_cannot_sign_out_someone_elses_session() {
    let h = harness();
    let alice = h.signed_in_user("a@example.com", Role::Analyst).await;
    let bob = h.signed_in_user("b@example.com", Role::Analyst).await;
    let bob_principal = h.service.authenticate(&bob.access_token).await.expect("principal");
    assert!(h.service.logout(bob_principal, &alice.refresh_token).await.is_err());
    assert!(h.service.refresh(&alice.refresh_token).await.is_ok());
}

#[tokio::test]
async fn access_tokens_expire_with_their_ttl() {
    let h = harness();
    let signed_in = h.signed_in_user("a@example.com", Role::Viewer).await;
    assert_eq!(h.service.authenticate(&signed_in.access_token).await.expect("valid").role, Role::Viewer);
    h.clock.advance(Duration::minutes(15));
    assert!(matches!(
        h.service.authenticate(&signed_in.access_token).await,
        Err(AuthError::InvalidToken(TokenError::Expired))
    ));
}

#[tokio::test]
async fn sign_out_ends_the_callers_access_tokens_at_once_and_refresh_carries_other_sign_ins() {
    let h = harness();
    let laptop = h.signed_in_user("a@example.com", Role::Analyst).await;
    let phone = h.login("a@example.com", PASSWORD).await.expect("login");
    let caller = h.service.authenticate(&laptop.access_token).await.expect("principal");
    h.service.logout(caller, &laptop.refresh_token).await.expect("logout");
    for token in [&laptop.access_token, &phone.access_token] {
        assert!(matches!(h.service.authenticate(token).await, Err(AuthError::InvalidToken(TokenError::Revoked))));
    }
    // The phone's sign-in goes on: its refresh token gives it a working access token.
    let renewed = h.service.refresh(&phone.refresh_token).await.expect("refresh");
    assert!(h.service.authenticate(&renewed.access_token).await.is_ok());
}

#[tokio::test]
async fn demotion_and_disabling_take_effect_on_the_next_request() {
    let h = harness();
    let admin = h.signed_in_user("root@example.com", Role::Admin).await;
    let admin = h.service.authenticate(&admin.access_token).await.expect("admin");
    let analyst = h.signed_in_user("a@example.com", Role::Analyst).await;
    let id = analyst.user.id;

    h.service.update_user(admin, id, UserChanges { role: Some(Role::Viewer), disabled: None }).await.expect("demote");
    assert!(matches!(
        h.service.authenticate(&analyst.access_token).await,
        Err(AuthError::InvalidToken(TokenError::Revoked))
    ));
    let viewer = h.login("a@example.com", PASSWORD).await.expect("login");
    assert_eq!(h.service.authenticate(&viewer.access_token).await.expect("principal").role, Role::Viewer);

    h.service.update_user(admin, id, UserChanges { role: None, disabled: Some(true) }).await.expect("disable");
    assert!(h.service.authenticate(&viewer.access_token).await.is_err());
    assert!(h.service.refresh(&viewer.refresh_token).await.is_err());
}

#[tokio::test]
async fn the_role_comes_from_the_store_not_from_the_token() {
    // A promotion needs no new token either; a stale role claim never grants more than the store says.
    let h = harness();
    let admin = h.signed_in_user("root@example.com", Role::Admin).await;
    let admin = h.service.authenticate(&admin.access_token).await.expect("admin");
    let viewer = h.signed_in_user("v@example.com", Role::Viewer).await;
    h.service
        .update_user(admin, viewer.user.id, UserChanges { role: Some(Role::Analyst), disabled: None })
        .await
        .expect("promote");
    assert_eq!(h.service.authenticate(&viewer.access_token).await.expect("principal").role, Role::Analyst);
}

#[tokio::test]
async fn an_owner_with_a_device_token_gets_in_while_others_guess_the_account() {
    let h = harness();
    let owner = h.signed_in_user("a@example.com", Role::Analyst).await;
    let device_token = owner.device_token.clone().expect("a password sign-in hands out a device token");
    // Guesses from many addresses spend the account's budget for every client without a device token.
    for n in 0..12 {
        let attacker = format!("203.0.113.{n}");
        assert!(matches!(
            h.login_from("a@example.com", "wrong password!", &attacker, None).await,
            Err(AuthError::InvalidCredentials)
        ));
    }
    assert!(matches!(
        h.login_from("a@example.com", PASSWORD, "198.51.100.7", None).await,
        Err(AuthError::LoginThrottled { scope: ThrottleScope::Account, .. })
    ));
    let signed_in = h.login_from("a@example.com", PASSWORD, "198.51.100.7", Some(&device_token)).await;
    assert!(signed_in.is_ok(), "{signed_in:?}");
    // Another account's device token does not count for this one.
    let other = h.signed_in_user("b@example.com", Role::Analyst).await;
    assert!(matches!(
        h.login_from("a@example.com", PASSWORD, "198.51.100.7", other.device_token.as_deref()).await,
        Err(AuthError::LoginThrottled { scope: ThrottleScope::Account, .. })
    ));
}

#[tokio::test]
async fn a_saturated_hasher_answers_busy_and_the_attempt_does_not_count() {
    let mut hasher = MockPasswordHasher::new();
    hasher.expect_hash().returning(|_| Ok(PasswordHash::from_phc("$argon2id$dummy".into())));
    hasher.expect_verify().returning(|_, _, _| Err(PasswordHashError::Busy));
    let h = harness_with(None, Arc::new(hasher));
    for _ in 0..10 {
        assert!(matches!(h.login("a@example.com", PASSWORD).await, Err(AuthError::Busy)));
    }
}

#[tokio::test]
async fn a_store_failure_is_unavailable_not_a_credentials_error() {
    let mut users = MockUserRepository::new();
    users.expect_find_by_email().returning(|_| Err(StoreError::Unavailable(anyhow::anyhow!("connection refused"))));
    let h = harness_with(Some(Arc::new(users)), Arc::new(Argon2Hasher::fast_for_tests()));
    assert!(matches!(h.login("a@example.com", PASSWORD).await, Err(AuthError::Unavailable(_))));
}

fn signer() -> SigningKey {
    SigningKey::from_slice(
        &hex::decode("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80").expect("hex"),
    )
    .expect("key")
}

const ADDRESS: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

#[tokio::test]
async fn a_signed_challenge_signs_the_wallet_in_once() {
    let h = harness();
    let challenge = h.service.wallet_challenge(ADDRESS).await.expect("challenge");
    let signature = ethereum::sign_message(&signer(), challenge.message.as_bytes());
    let signed_in = h.service.wallet_sign_in(ADDRESS, &signature, &challenge.message).await.expect("sign in");
    assert_eq!(signed_in.user.role, Role::Analyst);
    assert_eq!(signed_in.user.wallet_address.map(|a| a.to_checksum()).as_deref(), Some(ADDRESS));
    let replay = h.service.wallet_sign_in(ADDRESS, &signature, &challenge.message).await.unwrap_err();
    assert_eq!(replay.to_string(), "wallet sign-in failed: nonce has already been used");
    // A second sign-in with a new nonce finds the same user.
    let again = h.service.wallet_challenge(ADDRESS).await.expect("challenge");
    let signature = ethereum::sign_message(&signer(), again.message.as_bytes());
    let second = h.service.wallet_sign_in(ADDRESS, &signature, &again.message).await.expect("sign in");
    assert_eq!(second.user.id, signed_in.user.id);
    assert_eq!(h.store.list().await.expect("users").len(), 1);
}

#[tokio::test]
async fn a_challenge_expires_with_the_nonce_ttl() {
    let h = harness();
    let challenge = h.service.wallet_challenge(ADDRESS).await.expect("challenge");
    let signature = ethereum::sign_message(&signer(), challenge.message.as_bytes());
    h.clock.advance(Duration::minutes(5));
    let error = h.service.wallet_sign_in(ADDRESS, &signature, &challenge.message).await.unwrap_err();
    assert_eq!(error.to_string(), "wallet sign-in failed: message has expired ('Expiration Time')");
}

#[tokio::test]
async fn a_wrong_signature_does_not_spend_the_nonce() {
    let h = harness();
    let challenge = h.service.wallet_challenge(ADDRESS).await.expect("challenge");
    // Someone who saw the nonce signs the message with another key.
    let intruder = SigningKey::from_slice(&[7u8; 32]).expect("key");
    let forged = ethereum::sign_message(&intruder, challenge.message.as_bytes());
    let error = h.service.wallet_sign_in(ADDRESS, &forged, &challenge.message).await.unwrap_err();
    assert_eq!(error.to_string(), "wallet sign-in failed: signature was not made by wallet_address");
    let signature = ethereum::sign_message(&signer(), challenge.message.as_bytes());
    assert!(h.service.wallet_sign_in(ADDRESS, &signature, &challenge.message).await.is_ok());
}

#[tokio::test]
async fn a_message_for_another_domain_is_refused_before_its_nonce_is_spent() {
    let h = harness();
    let challenge = h.service.wallet_challenge(ADDRESS).await.expect("challenge");
    let forged = challenge.message.replacen("localhost:3000", "evil.example", 1);
    let signature = ethereum::sign_message(&signer(), forged.as_bytes());
    let error = h.service.wallet_sign_in(ADDRESS, &signature, &forged).await.unwrap_err();
    assert!(error.to_string().contains("domain 'evil.example'"), "{error}");
    // The genuine message still works: the nonce was not consumed by the forgery.
    let signature = ethereum::sign_message(&signer(), challenge.message.as_bytes());
    assert!(h.service.wallet_sign_in(ADDRESS, &signature, &challenge.message).await.is_ok());
}

#[test]
fn uri_authority_is_host_and_port() {
    assert_eq!(uri_authority("http://localhost:3000/login"), Some("localhost:3000"));
    assert_eq!(uri_authority("https://app.example.com?x=1"), Some("app.example.com"));
    assert_eq!(uri_authority("https://user@app.example.com/"), Some("app.example.com"));
    assert_eq!(uri_authority("not a uri"), None);
}
