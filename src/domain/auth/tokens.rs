//! Token claims and the rules a token must satisfy. Signing and signature checks live behind the
//! [`crate::ports::tokens::TokenIssuer`] port.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::models::Role;

/// How far ahead of the verifier's clock a token's `iat` or `nbf` may be: instances sharing one
/// signing key may disagree by a few seconds, never by minutes.
pub const MAX_CLOCK_SKEW_SECS: i64 = 60;

/// Whether a token grants access to the API, only the right to renew, or only marks a device
/// that has signed in to an account before (see [`crate::domain::auth::throttle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenType {
    Access,
    Refresh,
    Device,
}

/// The claims of every token kind. `fam` (the refresh-token family, i.e. one sign-in and everything
/// rotated from it) is present on refresh tokens only; `ver` (the user's token version when the
/// token was issued) on access tokens, which stop working once the version moves on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenClaims {
    pub sub: String,
    pub role: Role,
    pub typ: TokenType,
    pub jti: Uuid,
    pub iat: i64,
    /// Not valid before; issued equal to `iat`. Optional only so tokens issued before it was
    /// added still verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    pub exp: i64,
    pub iss: String,
    pub aud: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fam: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ver: Option<i64>,
}

/// Why a token was refused. The message is safe to show to the client.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("token has expired")]
    Expired,
    #[error("token is not valid yet")]
    NotYetValid,
    /// Signed out, disabled or demoted since the token was issued.
    #[error("token has been revoked; sign in again or refresh")]
    Revoked,
    #[error("token is not a {expected:?} token")]
    WrongType { expected: TokenType },
    #[error("token is invalid: {0}")]
    Invalid(&'static str),
    #[error("token could not be signed")]
    Signing,
}
