//! JWT tokens with `jsonwebtoken`: HS256, the algorithm pinned on verification (no `none`, no
//! switching to another algorithm), issuer and audience checked, expiry, `nbf` and `iat` checked
//! against the service's clock, and the token type checked so access, refresh and device tokens
//! never stand in for each other.

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use time::OffsetDateTime;

use crate::domain::auth::tokens::MAX_CLOCK_SKEW_SECS;
use crate::domain::auth::{TokenClaims, TokenError, TokenType};
use crate::ports::tokens::TokenIssuer;

/// Signs and verifies HS256 tokens with one shared secret.
pub struct JwtIssuer {
    encoding: EncodingKey,
    decoding: DecodingKey,
    header: Header,
    validation: Validation,
}

impl JwtIssuer {
    /// `secret` must be at least 32 bytes (configuration enforces it).
    pub fn hs256(secret: &[u8], issuer: &str, audience: &str) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        // Expiry, `nbf` and `iat` are checked against the service clock in `verify`: expiry with
        // no leeway (the tokens are issued and checked by the same service), the start of validity
        // with a small skew for instances whose clocks differ slightly.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.leeway = 0;
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            header: Header::new(Algorithm::HS256),
            validation,
        }
    }
}

impl TokenIssuer for JwtIssuer {
    fn issue(&self, claims: &TokenClaims) -> Result<String, TokenError> {
        jsonwebtoken::encode(&self.header, claims, &self.encoding).map_err(|_| TokenError::Signing)
    }

    fn verify(&self, token: &str, expected: TokenType, now: OffsetDateTime) -> Result<TokenClaims, TokenError> {
        let data = jsonwebtoken::decode::<TokenClaims>(token, &self.decoding, &self.validation).map_err(|e| {
            TokenError::Invalid(match e.kind() {
                ErrorKind::InvalidSignature => "signature does not match",
                ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => "algorithm not allowed",
                ErrorKind::InvalidIssuer => "wrong issuer",
                ErrorKind::InvalidAudience => "wrong audience",
                ErrorKind::MissingRequiredClaim(_) => "a required claim is missing",
                ErrorKind::Json(_) => "claims are malformed",
                _ => "malformed token",
            })
        })?;
        let claims = data.claims;
        if claims.typ != expected {
            return Err(TokenError::WrongType { expected });
        }
        let now = now.unix_timestamp();
        if claims.exp <= now {
            return Err(TokenError::Expired);
        }
        let latest_start = now + MAX_CLOCK_SKEW_SECS;
        if claims.iat > latest_start {
            return Err(TokenError::Invalid("issued in the future"));
        }
        if claims.nbf.is_some_and(|nbf| nbf > latest_start) {
            return Err(TokenError::NotYetValid);
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::auth::Role;
    use uuid::Uuid;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn issuer() -> JwtIssuer {
        JwtIssuer::hs256(SECRET, "creditflow", "creditflow-api")
    }

    fn claims(typ: TokenType, exp: i64) -> TokenClaims {
        TokenClaims {
            sub: Uuid::new_v4().to_string(),
            role: Role::Analyst,
            typ,
            jti: Uuid::new_v4(),
            iat: 1_700_000_000,
            nbf: Some(1_700_000_000),
            exp,
            iss: "creditflow".into(),
            aud: "creditflow-api".into(),
            fam: None,
            ver: Some(0),
        }
    }

    fn at(unix: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(unix).expect("valid time")
    }

    #[test]
    fn an_issued_token_verifies_to_its_claims() {
        let claims = claims(TokenType::Access, 1_700_000_900);
        let token = issuer().issue(&claims).expect("issue");
        assert_eq!(issuer().verify(&token, TokenType::Access, at(1_700_000_100)), Ok(claims));
    }

    #[test]
    fn expiry_is_exact() {
        let token = issuer().issue(&claims(TokenType::Access, 1_700_000_900)).expect("issue");
        assert!(issuer().verify(&token, TokenType::Access, at(1_700_000_899)).is_ok());
        assert_eq!(issuer().verify(&token, TokenType::Access, at(1_700_000_900)), Err(TokenError::Expired));
    }

    #[test]
    fn a_token_whose_not_before_is_ahead_of_the_clock_skew_is_refused() {
        let mut claims = claims(TokenType::Access, 1_700_000_900);
        claims.nbf = Some(1_700_000_500);
        let token = issuer().issue(&claims).expect("issue");
        let skew = MAX_CLOCK_SKEW_SECS;
        assert!(issuer().verify(&token, TokenType::Access, at(1_700_000_500 - skew)).is_ok());
        assert_eq!(
            issuer().verify(&token, TokenType::Access, at(1_700_000_500 - skew - 1)),
            Err(TokenError::NotYetValid)
        );
    }

    #[test]
    fn a_token_issued_in_the_future_is_refused() {
        // Ten years ahead, as a forged or mis-clocked issuer would write it.
        let mut claims = claims(TokenType::Access, 2_100_000_000);
        claims.iat = 2_015_000_000;
        claims.nbf = None;
        let token = issuer().issue(&claims).expect("issue");
        assert_eq!(
            issuer().verify(&token, TokenType::Access, at(1_700_000_100)),
            Err(TokenError::Invalid("issued in the future"))
        );
        // Within the skew it is accepted.
        claims.iat = 1_700_000_100 + MAX_CLOCK_SKEW_SECS;
        let token = issuer().issue(&claims).expect("issue");
        assert!(issuer().verify(&token, TokenType::Access, at(1_700_000_100)).is_ok());
    }

    #[test]
    fn the_other_token_type_is_refused() {
        let refresh = issuer().issue(&claims(TokenType::Refresh, 1_700_000_900)).expect("issue");
        assert_eq!(
            issuer().verify(&refresh, TokenType::Access, at(1_700_000_100)),
            Err(TokenError::WrongType { expected: TokenType::Access })
        );
        let device = issuer().issue(&claims(TokenType::Device, 1_700_000_900)).expect("issue");
        assert_eq!(
            issuer().verify(&device, TokenType::Access, at(1_700_000_100)),
            Err(TokenError::WrongType { expected: TokenType::Access })
        );
    }

    #[test]
    fn another_issuer_audience_or_key_is_refused() {
        let token = issuer().issue(&claims(TokenType::Access, 1_700_000_900)).expect("issue");
        let now = at(1_700_000_100);
        let other_issuer = JwtIssuer::hs256(SECRET, "someone-else", "creditflow-api");
        let other_audience = JwtIssuer::hs256(SECRET, "creditflow", "other-api");
        let other_key = JwtIssuer::hs256(b"ffffffffffffffffffffffffffffffff", "creditflow", "creditflow-api");
        assert_eq!(other_issuer.verify(&token, TokenType::Access, now), Err(TokenError::Invalid("wrong issuer")));
        assert_eq!(other_audience.verify(&token, TokenType::Access, now), Err(TokenError::Invalid("wrong audience")));
        assert_eq!(
            other_key.verify(&token, TokenType::Access, now),
            Err(TokenError::Invalid("signature does not match"))
        );
    }

    #[test]
    fn unsigned_and_other_algorithm_tokens_are_refused() {
        use base64::Engine as _;
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let body = b64(&serde_json::to_vec(&claims(TokenType::Access, 1_700_000_900)).expect("json"));
        let now = at(1_700_000_100);
        let none = format!("{}.{}.", b64(br#"{"alg":"none","typ":"JWT"}"#), body);
        assert!(matches!(issuer().verify(&none, TokenType::Access, now), Err(TokenError::Invalid(_))));
        let hs512 = jsonwebtoken::encode(
            &Header::new(Algorithm::HS512),
            &claims(TokenType::Access, 1_700_000_900),
            &EncodingKey::from_secret(SECRET),
        )
        .expect("encode");
        assert_eq!(issuer().verify(&hs512, TokenType::Access, now), Err(TokenError::Invalid("algorithm not allowed")));
    }
}
