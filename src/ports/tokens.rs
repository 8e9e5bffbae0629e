//! Signing and verifying tokens. The domain decides what goes into a token; the adapter owns the
//! format and the key.

use time::OffsetDateTime;

use crate::domain::auth::{TokenClaims, TokenError, TokenType};

#[cfg_attr(test, mockall::automock)]
pub trait TokenIssuer: Send + Sync + 'static {
    /// Signs `claims` into a token string.
    ///
    /// # Errors
    /// [`TokenError::Signing`] if the token cannot be produced.
    fn issue(&self, claims: &TokenClaims) -> Result<String, TokenError>;

    /// Verifies the signature (with the pinned algorithm and the one key the token names), issuer,
    /// audience, type and expiry at `now`, and returns the claims.
    ///
    /// # Errors
    /// [`TokenError::Expired`] when `exp` is not after `now`; [`TokenError::WrongType`] for a valid
    /// token of the other type; [`TokenError::Invalid`] for anything else (bad signature, algorithm,
    /// unknown or removed signing key, issuer, audience, malformed).
    fn verify(&self, token: &str, expected: TokenType, now: OffsetDateTime) -> Result<TokenClaims, TokenError>;
}
