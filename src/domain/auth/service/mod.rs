//! The authentication use cases: password and wallet sign-in, token rotation, sign-out, and user
//! administration. Driven entirely through ports, so every rule here is unit-testable.

use std::sync::Arc;

use rand::Rng;
use rand::distr::Alphanumeric;
use time::{Duration, OffsetDateTime};
use tokio::sync::OnceCell;
use uuid::Uuid;

use super::ethereum::{self, EthAddress};
use super::models::{EmailAddress, NewUser, Password, PasswordHash, Principal, Role, User, UserChanges, UserId};
use super::sessions::{NonceConsumption, RefreshConsumption, RefreshTokenRecord, TokenHash, WalletNonce};
use super::siwe::SiweMessage;
use super::throttle::{SignInOrigin, SignInThrottle, ThrottleError, ThrottlePolicy, ThrottleScope};
use super::tokens::{TokenClaims, TokenError, TokenType};
use crate::ports::clock::Clock;
use crate::ports::password::{HashLane, PasswordHashError, PasswordHasher};
use crate::ports::rate_limit::RateLimiter;
use crate::ports::store::{CreateUserError, RefreshTokenRepository, StoreError, UserRepository, WalletNonceRepository};
use crate::ports::tokens::TokenIssuer;

/// Settings of the authentication use cases, resolved from configuration at start-up.
#[derive(Clone, Debug)]
pub struct AuthSettings {
    pub issuer: String,
    pub audience: String,
    pub access_ttl: Duration,
    pub refresh_ttl: Duration,
    /// The `domain` a SIWE message must name (host and port of this service as clients see it).
    pub siwe_domain: String,
    /// The `uri` put into the messages this service composes.
    pub siwe_uri: String,
    pub siwe_chain_ids: Vec<u64>,
    pub siwe_nonce_ttl: Duration,
    /// How far in the future a message's `Issued At` may be (clock skew between wallet and server).
    pub siwe_clock_skew: Duration,
    pub wallet_default_role: Role,
    /// Failed-sign-in budgets (per account and address, per address, per account, per device);
    /// when one is spent, sign-in answers 429 until the window rolls.
    pub sign_in_throttle: ThrottlePolicy,
}

/// How long a device token marks a client as one that has signed in to its account before.
pub const DEVICE_TOKEN_TTL: Duration = Duration::days(180);

/// The ports the authentication use cases need.
#[derive(Clone)]
pub struct AuthPorts {
    pub users: Arc<dyn UserRepository>,
    pub refresh_tokens: Arc<dyn RefreshTokenRepository>,
    pub nonces: Arc<dyn WalletNonceRepository>,
    pub tokens: Arc<dyn TokenIssuer>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub login_attempts: Arc<dyn RateLimiter>,
    pub clock: Arc<dyn Clock>,
}

/// A successful sign-in or rotation: a new token pair and the user it is for.
#[derive(Clone, Debug)]
pub struct SignedIn {
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
    pub refresh_expires_in: i64,
    /// Issued at password sign-in: presented at later sign-ins of this account, it exempts this
    /// client from throttling caused by others (see [`super::throttle`]).
    pub device_token: Option<String>,
    pub user: User,
}

/// What the service knows of where a password sign-in comes from.
#[derive(Clone, Debug, Default)]
pub struct SignInContext {
    /// The client's throttle key (its address, an IPv6 /64), when known.
    pub client: Option<String>,
    /// A device token from an earlier sign-in, when the client sent one.
    pub device_token: Option<String>,
}

/// A nonce handed to a wallet, with a ready EIP-4361 message around it.
#[derive(Clone, Debug)]
pub struct WalletChallenge {
    pub nonce: String,
    pub message: String,
    pub expires_at: OffsetDateTime,
}

/// Why an authentication use case failed. Messages are safe to show to clients; the sources of
/// `Unavailable` are logged, never shown.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("{message}")]
    Validation { field: &'static str, message: String },
    /// Same message whether the e-mail or the password was wrong.
    #[error("invalid e-mail or password")]
    InvalidCredentials,
    #[error("{}", .scope.explanation())]
    LoginThrottled { scope: ThrottleScope, retry_after_secs: i64 },
    /// Password hashing is saturated; the attempt was not counted.
    #[error("too many sign-ins are being checked right now; try again in a moment")]
    Busy,
    #[error("this account is disabled")]
    AccountDisabled,
    #[error("{0}")]
    InvalidToken(#[from] TokenError),
    #[error("refresh token was already used; every session of this sign-in has been revoked")]
    RefreshTokenReused,
    #[error("refresh token has been revoked")]
    RefreshTokenRevoked,
    #[error("refresh token is not recognised")]
    RefreshTokenUnknown,
    #[error("wallet sign-in failed: {0}")]
    Wallet(String),
    #[error("a user with this e-mail address already exists")]
    DuplicateEmail,
    /// The user a token was issued to no longer exists.
    #[error("user not found")]
    UserNotFound,
    /// An administrator named a user that does not exist.
    #[error("no such user")]
    NoSuchUser,
    #[error("service temporarily unavailable")]
    Unavailable(#[source] anyhow::Error),
}

impl From<StoreError> for AuthError {
    fn from(error: StoreError) -> Self {
        AuthError::Unavailable(error.into())
    }
}

impl From<PasswordHashError> for AuthError {
    fn from(error: PasswordHashError) -> Self {
        match error {
            PasswordHashError::Busy => AuthError::Busy,
            failed @ PasswordHashError::Failed(_) => AuthError::Unavailable(failed.into()),
        }
    }
}

impl From<ThrottleError> for AuthError {
    fn from(error: ThrottleError) -> Self {
        match error {
            ThrottleError::Throttled { scope, retry_after_secs } => {
                AuthError::LoginThrottled { scope, retry_after_secs }
            }
            ThrottleError::Store(cause) => AuthError::Unavailable(cause.into()),
        }
    }
}

fn wallet_error(message: impl Into<String>) -> AuthError {
    AuthError::Wallet(message.into())
}

const NONCE_LENGTH: usize = 17;

pub struct AuthService {
    ports: AuthPorts,
    settings: AuthSettings,
    throttle: SignInThrottle,
    /// Hash verified when the account does not exist, so both failures take the same time.
    dummy_hash: OnceCell<PasswordHash>,
}

impl AuthService {
    pub fn new(ports: AuthPorts, settings: AuthSettings) -> Self {
        let throttle = SignInThrottle::new(ports.login_attempts.clone(), settings.sign_in_throttle);
        Self { ports, settings, throttle, dummy_hash: OnceCell::new() }
    }

    pub fn settings(&self) -> &AuthSettings {
        &self.settings
    }

    fn now(&self) -> OffsetDateTime {
        self.ports.clock.now()
    }

    /// Signs in with e-mail and password. Throttled per account, client address and device
    /// before the password is checked ([`super::throttle`]); the check itself waits in the
    /// hasher's bounded queue or is refused as [`AuthError::Busy`].
    pub async fn login(&self, email: &str, password: String, context: SignInContext) -> Result<SignedIn, AuthError> {
        let email =
            EmailAddress::new(email).map_err(|e| AuthError::Validation { field: "email", message: e.to_string() })?;
        let password = Password::candidate(password)
            .map_err(|e| AuthError::Validation { field: "password", message: e.to_string() })?;

        let user = self.ports.users.find_by_email(&email).await?;
        let origin = match self.known_device(context.device_token.as_deref(), user.as_ref()) {
            Some(device) => SignInOrigin::KnownDevice(device),
            None => SignInOrigin::Untrusted(context.client.as_deref()),
        };
        let attempt = self.throttle.admit(&email, origin, self.ports.clock.now_ms()).await?;
        let lane = match origin {
            SignInOrigin::KnownDevice(_) => HashLane::Trusted,
            SignInOrigin::Untrusted(_) => HashLane::Shared,
        };

        let stored_hash = match user.as_ref().and_then(|u| u.password_hash.clone()) {
            Some(hash) => hash,
            None => match self.dummy_hash().await {
                Ok(hash) => hash.clone(),
                Err(error) => {
                    attempt.give_back().await;
                    return Err(error);
                }
            },
        };
        let matches = match self.ports.hasher.verify(&password, &stored_hash, lane).await {
            Ok(matches) => matches,
            Err(error) => {
                attempt.give_back().await;
                return Err(error.into());
            }
        };
        let user = match user {
            Some(user) if matches && user.password_hash.is_some() => user,
            _ => {
                attempt.failed();
                return Err(AuthError::InvalidCredentials);
            }
        };
        attempt.succeeded().await.map_err(|e| AuthError::Unavailable(e.into()))?;
        if user.disabled {
            return Err(AuthError::AccountDisabled);
        }
        let device_token = self.issue_device_token(&user)?;
        let mut signed_in = self.start_session(user, None).await?;
        signed_in.device_token = Some(device_token);
        Ok(signed_in)
    }

    /// The id of a device token that was issued to `user` and is still valid; anything else
    /// (absent, expired, forged, another account's) leaves the client untrusted, never an error.
    fn known_device(&self, device_token: Option<&str>, user: Option<&User>) -> Option<Uuid> {
        let (token, user) = (device_token?, user?);
        let claims = self.ports.tokens.verify(token, TokenType::Device, self.now()).ok()?;
        (claims.sub == user.id.to_string()).then_some(claims.jti)
    }

    fn issue_device_token(&self, user: &User) -> Result<String, AuthError> {
        let now = self.now();
        Ok(self.ports.tokens.issue(&TokenClaims {
            sub: user.id.to_string(),
            role: user.role,
            typ: TokenType::Device,
            jti: Uuid::new_v4(),
            iat: now.unix_timestamp(),
            nbf: Some(now.unix_timestamp()),
            exp: (now + DEVICE_TOKEN_TTL).unix_timestamp(),
            iss: self.settings.issuer.clone(),
            aud: self.settings.audience.clone(),
            fam: None,
            ver: None,
        })?)
    }

    async fn dummy_hash(&self) -> Result<&PasswordHash, AuthError> {
        self.dummy_hash
            .get_or_try_init(|| async {
                let random: String = rand::rng().sample_iter(&Alphanumeric).take(32).map(char::from).collect();
                let password = Password::candidate(random).map_err(|e| AuthError::Unavailable(e.into()))?;
                Ok::<_, AuthError>(self.ports.hasher.hash(&password).await?)
            })
            .await
    }

    /// Prepares what the first login would otherwise compute (the dummy hash), so that the first
    /// failed login for an unknown account is not slower than the others.
    pub async fn warm_up(&self) -> Result<(), AuthError> {
        self.dummy_hash().await.map(|_| ())
    }

    /// Issues a token pair; `family` continues a rotation, `None` starts a new sign-in.
    async fn start_session(&self, user: User, family: Option<Uuid>) -> Result<SignedIn, AuthError> {
        let now = self.now();
        let issued_at = now.unix_timestamp();
        let family_id = family.unwrap_or_else(Uuid::new_v4);
        let claims = |typ: TokenType, ttl: Duration, fam: Option<Uuid>, ver: Option<i64>| TokenClaims {
            sub: user.id.to_string(),
            role: user.role,
            typ,
            jti: Uuid::new_v4(),
            iat: issued_at,
            nbf: Some(issued_at),
            exp: (now + ttl).unix_timestamp(),
            iss: self.settings.issuer.clone(),
            aud: self.settings.audience.clone(),
            fam,
            ver,
        };
        let access_claims = claims(TokenType::Access, self.settings.access_ttl, None, Some(user.token_version));
        let refresh_claims = claims(TokenType::Refresh, self.settings.refresh_ttl, Some(family_id), None);
        let access_token = self.ports.tokens.issue(&access_claims)?;
        let refresh_token = self.ports.tokens.issue(&refresh_claims)?;
        self.ports
            .refresh_tokens
            .insert(RefreshTokenRecord {
                token_hash: TokenHash::of(&refresh_token),
                jti: refresh_claims.jti,
                family_id,
                user_id: user.id,
                issued_at: now,
                expires_at: now + self.settings.refresh_ttl,
                used_at: None,
                revoked_at: None,
            })
            .await?;
        Ok(SignedIn {
            access_token,
            refresh_token,
            expires_in: self.settings.access_ttl.whole_seconds(),
            refresh_expires_in: self.settings.refresh_ttl.whole_seconds(),
            device_token: None,
            user,
        })
    }

    /// Exchanges a refresh token for a new pair. Each refresh token works once; presenting a used
    /// one revokes its whole family.
    pub async fn refresh(&self, refresh_token: &str) -> Result<SignedIn, AuthError> {
        let now = self.now();
        let claims = self.ports.tokens.verify(refresh_token, TokenType::Refresh, now)?;
        let record = match self.ports.refresh_tokens.consume(&TokenHash::of(refresh_token), now).await? {
            RefreshConsumption::Fresh(record) => record,
            RefreshConsumption::AlreadyUsed(record) => {
                let revoked = self.ports.refresh_tokens.revoke_family(record.family_id, now).await?;
                tracing::warn!(
                    user_id = %record.user_id,
                    family_id = %record.family_id,
                    revoked,
                    "refresh token reuse detected; family revoked"
                );
                return Err(AuthError::RefreshTokenReused);
            }
            RefreshConsumption::Revoked(_) => return Err(AuthError::RefreshTokenRevoked),
            RefreshConsumption::Unknown => return Err(AuthError::RefreshTokenUnknown),
        };
        if claims.fam != Some(record.family_id) || claims.sub != record.user_id.to_string() {
            return Err(AuthError::RefreshTokenUnknown);
        }
        let user = self.ports.users.find_by_id(record.user_id).await?;
        match user {
            Some(user) if !user.disabled => self.start_session(user, Some(record.family_id)).await,
            Some(_) => {
                self.ports.refresh_tokens.revoke_family(record.family_id, now).await?;
                Err(AuthError::AccountDisabled)
            }
            None => {
                self.ports.refresh_tokens.revoke_family(record.family_id, now).await?;
                Err(AuthError::UserNotFound)
            }
        }
    }

    /// Revokes the family of `refresh_token`, which must belong to the caller, and every access
    /// token of the caller issued so far (other sign-ins renew theirs with their refresh tokens).
    pub async fn logout(&self, caller: Principal, refresh_token: &str) -> Result<(), AuthError> {
        let now = self.now();
        // An expired refresh token can still name the family to close.
        let claims = match self.ports.tokens.verify(refresh_token, TokenType::Refresh, now) {
            Ok(claims) => Some(claims),
            Err(TokenError::Expired) => None,
            Err(other) => return Err(other.into()),
        };
        let record = self
            .ports
            .refresh_tokens
            .find(&TokenHash::of(refresh_token))
            .await?
            .ok_or(AuthError::RefreshTokenUnknown)?;
        let belongs_to_caller =
            record.user_id == caller.user_id && claims.is_none_or(|c| c.sub == caller.user_id.to_string());
        if !belongs_to_caller {
            return Err(AuthError::RefreshTokenUnknown);
        }
        self.ports.refresh_tokens.revoke_family(record.family_id, now).await?;
        self.ports.users.revoke_access_tokens(caller.user_id).await?;
        Ok(())
    }

    /// The caller of a request bearing `access_token`: the signature and claims, then the user as
    /// stored now, so that sign-out, disabling and demotion take effect at once. The role is the
    /// stored one, not the one written into the token.
    pub async fn authenticate(&self, access_token: &str) -> Result<Principal, AuthError> {
        Ok(self.authenticate_user(access_token).await?.0)
    }

    /// As [`Self::authenticate`], with the stored user it read (so that a handler that shows the
    /// user does not read it again).
    ///
    /// # Errors
    /// As [`Self::authenticate`].
    pub async fn authenticate_user(&self, access_token: &str) -> Result<(Principal, User), AuthError> {
        let claims = self.ports.tokens.verify(access_token, TokenType::Access, self.now())?;
        let user_id = claims
            .sub
            .parse::<UserId>()
            .map_err(|_| AuthError::InvalidToken(TokenError::Invalid("subject is not a user id")))?;
        let user = self.ports.users.find_by_id(user_id).await?.ok_or(AuthError::InvalidToken(TokenError::Revoked))?;
        if user.disabled {
            return Err(AuthError::AccountDisabled);
        }
        if claims.ver != Some(user.token_version) {
            return Err(AuthError::InvalidToken(TokenError::Revoked));
        }
        Ok((Principal { user_id, role: user.role }, user))
    }

    /// Creates a password user (administration).
    pub async fn create_user(&self, email: &str, password: String, role: Role) -> Result<User, AuthError> {
        let email =
            EmailAddress::new(email).map_err(|e| AuthError::Validation { field: "email", message: e.to_string() })?;
        let password =
            Password::new(password).map_err(|e| AuthError::Validation { field: "password", message: e.to_string() })?;
        let password_hash = self.ports.hasher.hash(&password).await?;
        let new_user = NewUser {
            id: UserId::new_random(),
            email: Some(email),
            password_hash: Some(password_hash),
            role,
            wallet_address: None,
            created_at: self.now(),
        };
        self.ports.users.create(new_user).await.map_err(|e| match e {
            CreateUserError::DuplicateEmail => AuthError::DuplicateEmail,
            CreateUserError::DuplicateWallet => AuthError::Wallet("wallet address already registered".into()),
            CreateUserError::Store(e) => e.into(),
        })
    }

    /// Changes a user's role or disabled flag (administration). Disabling or demoting revokes the
    /// user's refresh and access tokens, so the change takes effect at once.
    /// Administrators cannot disable or demote themselves, so the last one cannot lock everyone out.
    pub async fn update_user(&self, caller: Principal, id: UserId, changes: UserChanges) -> Result<User, AuthError> {
        if changes == UserChanges::default() {
            return Err(AuthError::Validation {
                field: "role",
                message: "give at least one of role or disabled".into(),
            });
        }
        let demotes_or_disables = changes.disabled == Some(true) || changes.role.is_some_and(|r| r < Role::Admin);
        if id == caller.user_id && demotes_or_disables {
            return Err(AuthError::Validation {
                field: if changes.disabled == Some(true) { "disabled" } else { "role" },
                message: "administrators cannot disable or demote themselves".into(),
            });
        }
        let before = self.ports.users.find_by_id(id).await?.ok_or(AuthError::NoSuchUser)?;
        let user = self.ports.users.update(id, changes).await?.ok_or(AuthError::NoSuchUser)?;
        if (user.disabled && !before.disabled) || user.role < before.role {
            self.ports.users.revoke_access_tokens(id).await?;
            let revoked = self.ports.refresh_tokens.revoke_user(id, self.now()).await?;
            tracing::info!(user_id = %id, revoked, "refresh tokens revoked after a role or status change");
        }
        Ok(user)
    }

    /// All users (administration).
    pub async fn list_users(&self) -> Result<Vec<User>, AuthError> {
        Ok(self.ports.users.list().await?)
    }

    /// Creates the configured administrator unless that e-mail already has an account.
    /// Returns whether it was created.
    pub async fn ensure_admin(&self, email: &str, password: String) -> Result<bool, AuthError> {
        match self.create_user(email, password, Role::Admin).await {
            Ok(_) => Ok(true),
            Err(AuthError::DuplicateEmail) => Ok(false),
            Err(other) => Err(other),
        }
    }

    /// Issues a single-use nonce for `wallet_address` and a ready SIWE message around it.
    pub async fn wallet_challenge(&self, wallet_address: &str) -> Result<WalletChallenge, AuthError> {
        let address = EthAddress::parse(wallet_address)
            .map_err(|e| AuthError::Validation { field: "wallet_address", message: e.to_string() })?;
        let now = self.now();
        let issued_at = now.replace_nanosecond(now.millisecond() as u32 * 1_000_000).unwrap_or(now);
        let expires_at = issued_at + self.settings.siwe_nonce_ttl;
        let nonce: String = rand::rng().sample_iter(&Alphanumeric).take(NONCE_LENGTH).map(char::from).collect();
        self.ports
            .nonces
            .insert(WalletNonce { nonce: nonce.clone(), wallet_address: address, issued_at, expires_at })
            .await?;
        let chain_id = self.settings.siwe_chain_ids.first().copied().unwrap_or(1);
        let message = SiweMessage {
            domain: self.settings.siwe_domain.clone(),
            address,
            statement: Some("Sign in to creditflow.".to_owned()),
            uri: self.settings.siwe_uri.clone(),
            version: "1".to_owned(),
            chain_id,
            nonce: nonce.clone(),
            issued_at,
            expiration_time: Some(expires_at),
            not_before: None,
            request_id: None,
            resources: Vec::new(),
        };
        Ok(WalletChallenge { nonce, message: message.to_message_string(), expires_at })
    }

    /// Verifies an EIP-4361 message and its EIP-191 signature, then signs the wallet in (creating
    /// its user on first sign-in). Checks run in a fixed order and the first failure is reported.
    pub async fn wallet_sign_in(
        &self,
        wallet_address: &str,
        signature: &str,
        message: &str,
    ) -> Result<SignedIn, AuthError> {
        let claimed = EthAddress::parse(wallet_address).map_err(|e| wallet_error(format!("wallet_address: {e}")))?;
        let siwe: SiweMessage = message.parse().map_err(|e| wallet_error(format!("{e}")))?;
        if siwe.domain != self.settings.siwe_domain {
            return Err(wallet_error(format!(
                "message domain '{}' does not match '{}'",
                siwe.domain, self.settings.siwe_domain
            )));
        }
        if uri_authority(&siwe.uri) != Some(self.settings.siwe_domain.as_str()) {
            return Err(wallet_error(format!("message URI '{}' is not on '{}'", siwe.uri, self.settings.siwe_domain)));
        }
        if siwe.version != "1" {
            return Err(wallet_error(format!("unsupported message version '{}'", siwe.version)));
        }
        if !self.settings.siwe_chain_ids.contains(&siwe.chain_id) {
            return Err(wallet_error(format!("chain id {} is not accepted", siwe.chain_id)));
        }
        if siwe.address != claimed {
            return Err(wallet_error("message address does not match wallet_address"));
        }

        let now = self.now();
        if siwe.issued_at > now + self.settings.siwe_clock_skew {
            return Err(wallet_error("message 'Issued At' is in the future"));
        }
        if siwe.not_before.is_some_and(|t| t > now + self.settings.siwe_clock_skew) {
            return Err(wallet_error("message is not valid yet ('Not Before')"));
        }
        if siwe.expiration_time.is_some_and(|t| t <= now) {
            return Err(wallet_error("message has expired ('Expiration Time')"));
        }
        // The signature before the nonce: a nonce is spent only by its wallet's own signature, so
        // someone who merely sees it (in a log, over a shoulder) cannot burn it.
        let signer = ethereum::recover_signer(message.as_bytes(), signature)
            .map_err(|e| wallet_error(format!("signature: {e}")))?;
        if signer != claimed {
            return Err(wallet_error("signature was not made by wallet_address"));
        }
        let nonce = match self.ports.nonces.consume(&siwe.nonce).await? {
            NonceConsumption::Fresh(nonce) => nonce,
            NonceConsumption::AlreadyUsed => {
                return Err(wallet_error("nonce has already been used"));
            }
            NonceConsumption::Unknown => {
                return Err(wallet_error("nonce was not issued by this service"));
            }
        };
        if nonce.expires_at <= now {
            return Err(wallet_error("nonce has expired"));
        }
        if nonce.wallet_address != claimed {
            return Err(wallet_error("nonce was issued for a different wallet address"));
        }

        let user = self.wallet_user(claimed, now).await?;
        if user.disabled {
            return Err(AuthError::AccountDisabled);
        }
        self.start_session(user, None).await
    }

    async fn wallet_user(&self, address: EthAddress, now: OffsetDateTime) -> Result<User, AuthError> {
        if let Some(user) = self.ports.users.find_by_wallet(&address).await? {
            return Ok(user);
        }
        let new_user = NewUser {
            id: UserId::new_random(),
            email: None,
            password_hash: None,
            role: self.settings.wallet_default_role,
            wallet_address: Some(address),
            created_at: now,
        };
        match self.ports.users.create(new_user).await {
            Ok(user) => Ok(user),
            // A concurrent first sign-in of the same wallet created it a moment ago.
            Err(CreateUserError::DuplicateWallet) => self
                .ports
                .users
                .find_by_wallet(&address)
                .await?
                .ok_or_else(|| AuthError::Unavailable(anyhow::anyhow!("wallet user vanished after duplicate"))),
            Err(CreateUserError::DuplicateEmail) => Err(AuthError::DuplicateEmail),
            Err(CreateUserError::Store(e)) => Err(e.into()),
        }
    }

    /// Deletes expired refresh-token records and nonces.
    pub async fn purge_expired(&self) -> Result<(u64, u64), AuthError> {
        let now = self.now();
        let tokens = self.ports.refresh_tokens.purge_expired(now).await?;
        let nonces = self.ports.nonces.purge_expired(now).await?;
        Ok((tokens, nonces))
    }
}

/// `host[:port]` of an absolute URI, e.g. `localhost:3000` for `http://localhost:3000/login`.
fn uri_authority(uri: &str) -> Option<&str> {
    let (_scheme, rest) = uri.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    // Drop any user-info: only the host and port identify the relying party.
    Some(authority.rsplit_once('@').map_or(authority, |(_, host)| host))
}

#[cfg(test)]
mod tests;
