//! Token claims and the rules a token must satisfy. Signing and signature checks live behind the
//! [`crate::ports::tokens::TokenIssuer`] port.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::models::Role;

/// Whether a token grants access to the API or only the right to renew.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenType {
    Access,
    Refresh,
}

/// The claims of both token kinds. `fam` (the refresh-token family, i.e. one sign-in and everything
/// rotated from it) is present on refresh tokens only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenClaims {
    pub sub: String,
    pub role: Role,
    pub typ: TokenType,
    pub jti: Uuid,
    pub iat: i64,
    pub exp: i64,
    pub iss: String,
    pub aud: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fam: Option<Uuid>,
}

/// Why a token was refused. The message is safe to show to the client.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("token has expired")]
    Expired,
    #[error("token is not a {expected:?} token")]
    WrongType { expected: TokenType },
    #[error("token is invalid: {0}")]
    Invalid(&'static str),
    #[error("token could not be signed")]
    Signing,
}
