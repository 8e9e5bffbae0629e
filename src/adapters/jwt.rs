//! JWT tokens with `jsonwebtoken`: HS256, the algorithm pinned on verification (no `none`, no
//! switching to another algorithm), issuer and audience checked, expiry, `nbf` and `iat` checked
//! against the service's clock, and the token type checked so access, refresh and device tokens
//! never stand in for each other.
//!
//! Keys rotate: new tokens are signed with the current key and name it in their `kid` header;
//! verification picks the one key that `kid` names (current or previous) and refuses an unknown
//! one, so no token is ever tried against several keys. A token without `kid` was issued before
//! key ids existed, by the `JWT_SECRET` of the time; it is verified with the current key only
//! while that key has the id derived from its secret (no `JWT_KID`), that is while the key of the
//! upgrade is still current, and refused otherwise.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use time::OffsetDateTime;

use crate::config::{KeyId, SigningKeys};
use crate::domain::auth::tokens::MAX_CLOCK_SKEW_SECS;
use crate::domain::auth::{TokenClaims, TokenError, TokenType};
use crate::ports::tokens::TokenIssuer;

/// Signs HS256 tokens with the current key and verifies them with the key their `kid` names.
pub struct JwtIssuer {
    encoding: EncodingKey,
    /// HS256, with the current key's `kid`.
    header: Header,
    /// Every accepted key by id, the current one included.
    decoding: HashMap<String, DecodingKey>,
    /// The key for tokens without `kid`: the current key when its id is the derived one.
    unlabelled: Option<DecodingKey>,
    validation: Validation,
    /// Tokens whose key, signature, issuer and audience were verified, with their claims: every
    /// request of a session carries the same access token, and a token seen before skips the
    /// header and claims parsing and the HMAC. Keyed by the whole token, so only the very bytes
    /// that were verified hit; the type and time checks run on every use; only verified tokens
    /// enter, so a flood of forged ones cannot fill it. Cleared when full.
    verified: Mutex<HashMap<Box<str>, TokenClaims>>,
}

/// Verified tokens kept at most (about 0.5 KiB each).
const VERIFIED_CAPACITY: usize = 4096;

impl JwtIssuer {
    /// Signs with `keys.current()`, accepts it and `keys.previous()`.
    pub fn new(keys: &SigningKeys, issuer: &str, audience: &str) -> Self {
        let current = keys.current();
        let previous = keys.previous().iter().map(|key| (key.kid().as_str(), key.secret().expose().as_bytes()));
        Self::with_keys(
            (current.kid().as_str(), current.secret().expose().as_bytes()),
            current.has_derived_id(),
            previous,
            issuer,
            audience,
        )
    }

    /// One key under its derived id (tests, benchmarks). `secret` must be at least 32 bytes
    /// (configuration enforces it for the service).
    pub fn hs256(secret: &[u8], issuer: &str, audience: &str) -> Self {
        let kid = KeyId::derived_from(secret);
        Self::with_keys((kid.as_str(), secret), true, std::iter::empty(), issuer, audience)
    }

    fn with_keys<'a>(
        (current_kid, current_secret): (&str, &[u8]),
        current_signed_unlabelled: bool,
        previous: impl Iterator<Item = (&'a str, &'a [u8])>,
        issuer: &str,
        audience: &str,
    ) -> Self {
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
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(current_kid.to_owned());
        let current = DecodingKey::from_secret(current_secret);
        let mut decoding: HashMap<String, DecodingKey> =
            previous.map(|(kid, secret)| (kid.to_owned(), DecodingKey::from_secret(secret))).collect();
        decoding.insert(current_kid.to_owned(), current.clone());
        Self {
            encoding: EncodingKey::from_secret(current_secret),
            header,
            decoding,
            unlabelled: current_signed_unlabelled.then_some(current),
            validation,
            verified: Mutex::new(HashMap::new()),
        }
    }

    /// The one key `token` may be verified with, chosen by its header; never a search.
    fn key_for(&self, token: &str) -> Result<&DecodingKey, TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Invalid("malformed token"))?;
        if header.alg != Algorithm::HS256 {
            return Err(TokenError::Invalid("algorithm not allowed"));
        }
        match header.kid.as_deref() {
            Some(kid) => self.decoding.get(kid).ok_or(TokenError::Invalid("unknown signing key")),
            None => self.unlabelled.as_ref().ok_or(TokenError::Invalid("no signing key id")),
        }
    }
}

/// Key ids only: secrets never reach a log line.
impl fmt::Debug for JwtIssuer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut accepted: Vec<&str> = self.decoding.keys().map(String::as_str).collect();
        accepted.sort_unstable();
        f.debug_struct("JwtIssuer")
            .field("current_kid", &self.header.kid)
            .field("accepted_kids", &accepted)
            .field("accepts_tokens_without_kid", &self.unlabelled.is_some())
            .finish_non_exhaustive()
    }
}

impl TokenIssuer for JwtIssuer {
    fn issue(&self, claims: &TokenClaims) -> Result<String, TokenError> {
        jsonwebtoken::encode(&self.header, claims, &self.encoding).map_err(|_| TokenError::Signing)
    }

    fn verify(&self, token: &str, expected: TokenType, now: OffsetDateTime) -> Result<TokenClaims, TokenError> {
        // The lookup's guard ends with this statement: decoding and inserting take the lock again.
        let remembered = self.verified().get(token).cloned();
        let claims = match remembered {
            Some(claims) => claims,
            None => {
                let claims = self.decode_verified(token)?;
                let mut verified = self.verified();
                if verified.len() >= VERIFIED_CAPACITY {
                    verified.clear();
                }
                verified.insert(token.into(), claims.clone());
                claims
            }
        };
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

impl JwtIssuer {
    fn verified(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, TokenClaims>> {
        // The map holds no invariant a panicking holder could break.
        self.verified.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The claims of `token` once its key, signature, issuer and audience check out.
    fn decode_verified(&self, token: &str) -> Result<TokenClaims, TokenError> {
        let key = self.key_for(token)?;
        let data = jsonwebtoken::decode::<TokenClaims>(token, key, &self.validation).map_err(|e| {
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
        Ok(data.claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Secret, SigningKey};
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
    fn a_remembered_token_is_still_checked_for_type_and_time_and_only_its_exact_bytes_hit() {
        let issuer = issuer();
        let token = issuer.issue(&claims(TokenType::Access, 1_700_000_900)).expect("issue");
        assert!(issuer.verify(&token, TokenType::Access, at(1_700_000_100)).is_ok());
        assert!(issuer.verify(&token, TokenType::Access, at(1_700_000_100)).is_ok(), "remembered");
        assert_eq!(issuer.verify(&token, TokenType::Access, at(1_700_000_900)), Err(TokenError::Expired));
        assert_eq!(
            issuer.verify(&token, TokenType::Refresh, at(1_700_000_100)),
            Err(TokenError::WrongType { expected: TokenType::Refresh })
        );
        let mut tampered = token.clone();
        let last = tampered.pop().expect("a character");
        tampered.push(if last == 'A' { 'B' } else { 'A' });
        assert!(issuer.verify(&tampered, TokenType::Access, at(1_700_000_100)).is_err());
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
        // Another key under the id this token names: the signature decides.
        let other_key_same_id =
            rotated((KeyId::derived_from(SECRET).as_str(), "ffffffffffffffffffffffffffffffff"), &[]);
        assert_eq!(other_issuer.verify(&token, TokenType::Access, now), Err(TokenError::Invalid("wrong issuer")));
        assert_eq!(other_audience.verify(&token, TokenType::Access, now), Err(TokenError::Invalid("wrong audience")));
        assert_eq!(other_key.verify(&token, TokenType::Access, now), Err(TokenError::Invalid("unknown signing key")));
        assert_eq!(
            other_key_same_id.verify(&token, TokenType::Access, now),
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

    const OLD: &str = "old-secret-old-secret-old-secret-0";
    const NEW: &str = "new-secret-new-secret-new-secret-1";

    fn rotated(current: (&str, &str), previous: &[(&str, &str)]) -> JwtIssuer {
        let key = |(kid, secret): (&str, &str)| {
            SigningKey::new(KeyId::new(kid).expect("kid"), Secret::new(secret)).expect("long enough")
        };
        let keys = SigningKeys::new(key(current), previous.iter().copied().map(key).collect()).expect("unique ids");
        JwtIssuer::new(&keys, "creditflow", "creditflow-api")
    }

    fn kid_of(token: &str) -> Option<String> {
        jsonwebtoken::decode_header(token).expect("header").kid
    }

    /// A token as versions before key ids signed it: no `kid` in the header.
    fn unlabelled(claims: &TokenClaims, secret: &str) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(secret.as_bytes()))
            .expect("encode")
    }

    #[test]
    fn an_issued_token_names_the_current_key() {
        let token = rotated(("2025-06", NEW), &[("2024-01", OLD)])
            .issue(&claims(TokenType::Access, 1_700_000_900))
            .expect("issue");
        assert_eq!(kid_of(&token).as_deref(), Some("2025-06"));
        let plain = issuer().issue(&claims(TokenType::Access, 1_700_000_900)).expect("issue");
        assert_eq!(kid_of(&plain), Some(KeyId::derived_from(SECRET).as_str().to_owned()));
    }

    #[test]
    fn a_token_of_a_previous_key_verifies_until_it_expires() {
        let claims = claims(TokenType::Refresh, 1_700_000_900);
        let before = rotated(("2024-01", OLD), &[]).issue(&claims).expect("issue");
        let after = rotated(("2025-06", NEW), &[("2024-01", OLD)]);
        assert_eq!(after.verify(&before, TokenType::Refresh, at(1_700_000_100)), Ok(claims));
        assert_eq!(after.verify(&before, TokenType::Refresh, at(1_700_000_900)), Err(TokenError::Expired));
    }

    #[test]
    fn a_token_signed_by_the_next_key_verifies_where_that_key_is_only_accepted() {
        // Phase 1 of a rotation: every instance accepts the new key before any signs with it.
        let claims = claims(TokenType::Access, 1_700_000_900);
        let from_a_rotated_instance = rotated(("2025-06", NEW), &[("2024-01", OLD)]).issue(&claims).expect("issue");
        let not_yet_rotated = rotated(("2024-01", OLD), &[("2025-06", NEW)]);
        assert_eq!(not_yet_rotated.verify(&from_a_rotated_instance, TokenType::Access, at(1_700_000_100)), Ok(claims));
    }

    #[test]
    fn a_token_of_a_removed_key_is_refused_as_unknown() {
        let token = rotated(("2024-01", OLD), &[]).issue(&claims(TokenType::Access, 1_700_000_900)).expect("issue");
        let removed = rotated(("2025-06", NEW), &[]);
        assert_eq!(
            removed.verify(&token, TokenType::Access, at(1_700_000_100)),
            Err(TokenError::Invalid("unknown signing key"))
        );
    }

    #[test]
    fn a_token_naming_a_previous_key_but_signed_with_another_secret_is_refused() {
        // The current secret under the previous key's name: the named key decides, and it fails.
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("2024-01".into());
        let forged = jsonwebtoken::encode(
            &header,
            &claims(TokenType::Access, 1_700_000_900),
            &EncodingKey::from_secret(NEW.as_bytes()),
        )
        .expect("encode");
        assert_eq!(
            rotated(("2025-06", NEW), &[("2024-01", OLD)]).verify(&forged, TokenType::Access, at(1_700_000_100)),
            Err(TokenError::Invalid("signature does not match"))
        );
    }

    #[test]
    fn a_token_without_kid_verifies_while_the_upgraded_key_is_current_under_its_derived_id() {
        let claims = claims(TokenType::Refresh, 1_700_000_900);
        let before_upgrade = unlabelled(&claims, OLD);
        let upgraded = rotated((KeyId::derived_from(OLD.as_bytes()).as_str(), OLD), &[]);
        assert_eq!(upgraded.verify(&before_upgrade, TokenType::Refresh, at(1_700_000_100)), Ok(claims));
    }

    #[test]
    fn a_token_without_kid_is_refused_by_a_key_with_an_explicit_id() {
        let before_upgrade = unlabelled(&claims(TokenType::Access, 1_700_000_900), OLD);
        assert_eq!(
            rotated(("2024-01", OLD), &[]).verify(&before_upgrade, TokenType::Access, at(1_700_000_100)),
            Err(TokenError::Invalid("no signing key id"))
        );
    }

    #[test]
    fn after_a_rotation_a_token_without_kid_is_checked_against_the_current_key_only() {
        // The old key is still accepted under its derived id, but a token without `kid` is never
        // tried against it: only the current key (derived id too) is, and its signature fails.
        let old_kid = KeyId::derived_from(OLD.as_bytes());
        let new_kid = KeyId::derived_from(NEW.as_bytes());
        let before_upgrade = unlabelled(&claims(TokenType::Access, 1_700_000_900), OLD);
        let rotated = rotated((new_kid.as_str(), NEW), &[(old_kid.as_str(), OLD)]);
        assert_eq!(
            rotated.verify(&before_upgrade, TokenType::Access, at(1_700_000_100)),
            Err(TokenError::Invalid("signature does not match"))
        );
    }

    #[test]
    fn the_algorithm_stays_pinned_whatever_key_the_token_names() {
        let now = at(1_700_000_100);
        let issuer = rotated(("2025-06", NEW), &[("2024-01", OLD)]);
        for (kid, secret) in [(Some("2025-06"), NEW), (Some("2024-01"), OLD), (None, NEW)] {
            for algorithm in [Algorithm::HS384, Algorithm::HS512] {
                let mut header = Header::new(algorithm);
                header.kid = kid.map(str::to_owned);
                let token = jsonwebtoken::encode(
                    &header,
                    &claims(TokenType::Access, 1_700_000_900),
                    &EncodingKey::from_secret(secret.as_bytes()),
                )
                .expect("encode");
                assert_eq!(
                    issuer.verify(&token, TokenType::Access, now),
                    Err(TokenError::Invalid("algorithm not allowed")),
                    "{algorithm:?} {kid:?}"
                );
            }
        }
    }

    #[test]
    fn debug_output_names_key_ids_never_secrets() {
        let shown = format!("{:?}", rotated(("2025-06", NEW), &[("2024-01", OLD)]));
        assert!(shown.contains("2025-06") && shown.contains("2024-01"), "{shown}");
        assert!(!shown.contains(NEW) && !shown.contains(OLD), "{shown}");
        assert!(!shown.contains("new-secret") && !shown.contains("old-secret"), "{shown}");
    }
}
