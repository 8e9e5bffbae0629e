//! Server-side state of sign-ins: refresh-token families (for rotation and reuse detection) and
//! single-use wallet nonces.

use std::fmt;

use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use uuid::Uuid;

use super::ethereum::EthAddress;
use super::models::UserId;

/// SHA-256 of a refresh token: the store never holds a usable token.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TokenHash(String);

impl TokenHash {
    pub fn of(token: &str) -> Self {
        Self(hex::encode(Sha256::digest(token.as_bytes())))
    }
    pub fn from_hex(hex: String) -> Self {
        Self(hex)
    }
    pub fn as_hex(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A prefix identifies the record in logs without being a usable lookup key.
        write!(f, "TokenHash({}…)", &self.0[..self.0.len().min(8)])
    }
}

/// One issued refresh token. A family is one sign-in and every token rotated from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshTokenRecord {
    pub token_hash: TokenHash,
    pub jti: Uuid,
    pub family_id: Uuid,
    pub user_id: UserId,
    pub issued_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
    pub used_at: Option<OffsetDateTime>,
    pub revoked_at: Option<OffsetDateTime>,
}

/// What happened when a refresh token was presented for rotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefreshConsumption {
    /// First use: the record is now marked used.
    Fresh(RefreshTokenRecord),
    /// Presented before: a sign of theft; the caller revokes the family.
    AlreadyUsed(RefreshTokenRecord),
    /// Its family was revoked (logout or earlier reuse).
    Revoked(RefreshTokenRecord),
    /// Not issued by this service (or already purged).
    Unknown,
}

/// A nonce handed out for Sign-In with Ethereum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalletNonce {
    pub nonce: String,
    pub wallet_address: EthAddress,
    pub issued_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
}

/// What happened when a nonce was presented.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NonceConsumption {
    /// First use: it is now spent.
    Fresh(WalletNonce),
    /// Spent before: a replay.
    AlreadyUsed,
    /// Never issued here (or purged after expiry).
    Unknown,
}
