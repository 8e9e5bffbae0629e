//! CPU cost of the authentication hot paths, measured in-process with criterion.
//!
//! - `token/verify_access`: `JwtIssuer::verify` of an HS256 access token shaped like the ones
//!   the service issues (UUID subject and `jti`, role, issuer, audience, 24 h expiry). This is
//!   the per-request cost of every authenticated endpoint before any handler work.
//! - `siwe/parse`, `siwe/recover_signer`, `siwe/parse_and_recover`: parsing the DOMAIN.md §5
//!   EIP-4361 message (`SiweMessage::from_str`) and recovering the secp256k1 signer of its
//!   EIP-191 hash (`ethereum::recover_signer`), separately and together. The last one is the CPU
//!   cost of `POST /api/auth/wallet` without the nonce store and token issuing.
//! - `wallet_sign_in/full`: the whole `AuthService::wallet_sign_in` use case over the in-memory
//!   adapters (parse, checks, nonce consumption, signer recovery, user lookup, issuing an access
//!   and a refresh token, storing the refresh record). Each iteration needs a fresh nonce, so the
//!   challenge is requested and signed in the (unmeasured) setup of `iter_batched`.
//!
//! Run with `CARGO_TARGET_DIR=/tmp/bench-target cargo bench --bench auth`; see
//! `docs/BENCHMARKS.md` for results and targets.

use std::hint::black_box;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use k256::ecdsa::SigningKey;
use time::OffsetDateTime;
use uuid::Uuid;

use creditflow::Adapters;
use creditflow::adapters::jwt::JwtIssuer;
use creditflow::domain::auth::ethereum::{self, EthAddress};
use creditflow::domain::auth::service::AuthPorts;
use creditflow::domain::auth::siwe::SiweMessage;
use creditflow::domain::auth::{AuthService, AuthSettings, Role, ThrottlePolicy, TokenClaims, TokenType};
use creditflow::domain::ratelimit::RatePolicy;
use creditflow::ports::tokens::TokenIssuer;

const JWT_SECRET: &[u8] = b"bench-secret-0123456789abcdef-0123456789";
const ISSUER: &str = "creditflow";
const AUDIENCE: &str = "creditflow-api";

/// DOMAIN.md §5 SIWE test vector.
const SIWE_KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SIWE_ADDRESS: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const SIWE_MESSAGE: &str = "localhost:3000 wants you to sign in with your Ethereum account:
0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266

Sign in to the credit workflow service.

URI: http://localhost:3000/login
Version: 1
Chain ID: 1
Nonce: 32891756abcDEF12
Issued At: 2025-01-01T00:00:00.000Z
Expiration Time: 2025-01-01T00:10:00.000Z";
const SIWE_SIGNATURE: &str = "0xbf1cd4933ece17742808e6f95f7bb63d5020f689eecdbc0553df36265a4ba76776c35b6e330610e522a0e23ca7518a9e4be11415fbef6c0524f8a29b8a1d70c61b";

fn signing_key() -> SigningKey {
    let bytes = hex::decode(SIWE_KEY).expect("hex key");
    SigningKey::from_slice(&bytes).expect("valid secp256k1 key")
}

fn token_verification(c: &mut Criterion) {
    let issuer = JwtIssuer::hs256(JWT_SECRET, ISSUER, AUDIENCE);
    let now = OffsetDateTime::now_utc();
    let claims = TokenClaims {
        sub: Uuid::now_v7().to_string(),
        role: Role::Analyst,
        typ: TokenType::Access,
        jti: Uuid::new_v4(),
        iat: now.unix_timestamp(),
        nbf: Some(now.unix_timestamp()),
        exp: (now + time::Duration::minutes(15)).unix_timestamp(),
        iss: ISSUER.to_owned(),
        aud: AUDIENCE.to_owned(),
        fam: None,
        ver: Some(0),
    };
    let token = issuer.issue(&claims).expect("issue");
    assert_eq!(issuer.verify(&token, TokenType::Access, now), Ok(claims), "the benchmark token must verify");

    let mut group = c.benchmark_group("token");
    group.bench_function("verify_access", |b| {
        b.iter(|| issuer.verify(black_box(&token), TokenType::Access, black_box(now)).expect("valid token"))
    });
    group.finish();
}

fn siwe_verification(c: &mut Criterion) {
    let signature = ethereum::sign_message(&signing_key(), SIWE_MESSAGE.as_bytes());
    assert_eq!(signature, SIWE_SIGNATURE, "DOMAIN.md §5 signature vector");
    let address = EthAddress::parse(SIWE_ADDRESS).expect("address");
    assert_eq!(ethereum::recover_signer(SIWE_MESSAGE.as_bytes(), &signature), Ok(address));

    let mut group = c.benchmark_group("siwe");
    group
        .bench_function("parse", |b| b.iter(|| SiweMessage::from_str(black_box(SIWE_MESSAGE)).expect("valid message")));
    group.bench_function("recover_signer", |b| {
        b.iter(|| {
            ethereum::recover_signer(black_box(SIWE_MESSAGE.as_bytes()), black_box(&signature))
                .expect("valid signature")
        })
    });
    group.bench_function("parse_and_recover", |b| {
        b.iter(|| {
            let message = black_box(SIWE_MESSAGE);
            let parsed = SiweMessage::from_str(message).expect("valid message");
            let signer = ethereum::recover_signer(message.as_bytes(), black_box(&signature)).expect("valid signature");
            assert_eq!(signer, parsed.address);
            signer
        })
    });
    group.finish();
}

fn wallet_service() -> AuthService {
    let adapters = Adapters::in_memory();
    AuthService::new(
        AuthPorts {
            users: adapters.users,
            refresh_tokens: adapters.refresh_tokens,
            nonces: adapters.nonces,
            tokens: Arc::new(JwtIssuer::hs256(JWT_SECRET, ISSUER, AUDIENCE)),
            hasher: adapters.hasher,
            login_attempts: adapters.login_attempts,
            clock: adapters.clock,
        },
        AuthSettings {
            issuer: ISSUER.to_owned(),
            audience: AUDIENCE.to_owned(),
            access_ttl: time::Duration::hours(24),
            refresh_ttl: time::Duration::days(30),
            siwe_domain: "localhost:3000".to_owned(),
            siwe_uri: "http://localhost:3000/login".to_owned(),
            siwe_chain_ids: vec![1],
            siwe_nonce_ttl: time::Duration::minutes(5),
            siwe_clock_skew: time::Duration::seconds(30),
            wallet_default_role: Role::Viewer,
            sign_in_throttle: ThrottlePolicy {
                per_account_and_client: RatePolicy { limit: 5, window_ms: 15 * 60 * 1000 },
                per_client: RatePolicy { limit: 20, window_ms: 15 * 60 * 1000 },
                per_account: RatePolicy { limit: 50, window_ms: 15 * 60 * 1000 },
            },
        },
    )
}

fn wallet_sign_in(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let auth = wallet_service();
    let key = signing_key();
    // A signed challenge, as a wallet would send it back: not part of the measurement.
    let challenge = || {
        let challenge = runtime.block_on(auth.wallet_challenge(SIWE_ADDRESS)).expect("challenge");
        let signature = ethereum::sign_message(&key, challenge.message.as_bytes());
        (challenge.message, signature)
    };
    // The first sign-in creates the wallet's user; the measured ones find it.
    let (message, signature) = challenge();
    runtime.block_on(auth.wallet_sign_in(SIWE_ADDRESS, &signature, &message)).expect("first wallet sign-in");

    let mut group = c.benchmark_group("wallet_sign_in");
    group.bench_function("full", |b| {
        b.iter_batched(
            challenge,
            |(message, signature)| {
                runtime.block_on(auth.wallet_sign_in(SIWE_ADDRESS, &signature, &message)).expect("wallet sign-in")
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5));
    targets = token_verification, siwe_verification, wallet_sign_in
}
criterion_main!(benches);
