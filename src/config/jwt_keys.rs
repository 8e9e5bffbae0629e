//! The JWT signing keys (`JWT_SECRET`, `JWT_KID`, `JWT_PREVIOUS_KEYS`): the current key signs new
//! tokens, previous keys are still accepted until the tokens they signed expire, and each key is
//! named by the key id (`kid`) a token carries in its header, so verification picks one key by
//! name instead of trying them all.

use sha2::{Digest, Sha256};

use super::{ConfigError, Secret, invalid};

/// Shortest HMAC secret accepted: as long as the SHA-256 output (RFC 7518 §3.2).
pub const MIN_SECRET_BYTES: usize = 32;

/// What a key id may be made of; errors quote this rule, never the value (which might be a secret
/// pasted into the wrong place).
const KEY_ID_RULE: &str = "1 to 64 ASCII letters, digits, '.', '_' or '-'";

/// A key id: the `kid` a token's header names. 1 to 64 ASCII letters, digits, `.`, `_`, `-`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyId(String);

impl KeyId {
    /// `None` when `raw` breaks the rule.
    pub fn new(raw: &str) -> Option<Self> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        ((1..=64).contains(&raw.len()) && raw.chars().all(allowed)).then(|| Self(raw.to_owned()))
    }

    /// The id a secret gets when none is configured: the first 8 bytes of its SHA-256, in hex
    /// (`printf %s "$JWT_SECRET" | sha256sum | cut -c1-16`). Every instance with the same secret
    /// derives the same id, across restarts; it reveals nothing that helps recover the secret.
    pub fn derived_from(secret: &[u8]) -> Self {
        Self(hex::encode(&Sha256::digest(secret)[..8]))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One HMAC key and its id. `Debug` shows the id, never the secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigningKey {
    kid: KeyId,
    secret: Secret,
}

impl SigningKey {
    /// `None` when the secret is shorter than [`MIN_SECRET_BYTES`].
    pub fn new(kid: KeyId, secret: Secret) -> Option<Self> {
        (secret.expose().len() >= MIN_SECRET_BYTES).then_some(Self { kid, secret })
    }

    /// The key with its derived id (see [`KeyId::derived_from`]); `None` for a short secret.
    pub fn with_derived_id(secret: Secret) -> Option<Self> {
        Self::new(KeyId::derived_from(secret.expose().as_bytes()), secret)
    }

    pub fn kid(&self) -> &KeyId {
        &self.kid
    }

    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    /// Whether the id is the one derived from the secret: true of a `JWT_SECRET` (or the generated
    /// secret) configured without `JWT_KID`, as every key was before key ids existed.
    pub fn has_derived_id(&self) -> bool {
        self.kid == KeyId::derived_from(self.secret.expose().as_bytes())
    }
}

/// The keys tokens are signed and verified with: one current key, and previous keys accepted on
/// verification only. Key ids are unique.
#[derive(Clone, Debug)]
pub struct SigningKeys {
    current: SigningKey,
    previous: Vec<SigningKey>,
}

impl SigningKeys {
    /// # Errors
    /// A [`ConfigError`] on `JWT_PREVIOUS_KEYS` naming the entry (by position) that has the
    /// current key's id. Previous keys are unique among themselves by construction
    /// ([`parse_previous_keys`]).
    pub fn new(current: SigningKey, previous: Vec<SigningKey>) -> Result<Self, ConfigError> {
        if let Some(position) = previous.iter().position(|key| key.kid == current.kid) {
            return Err(invalid(
                "JWT_PREVIOUS_KEYS",
                format!(
                    "entry {} has the current key's id (JWT_KID, or the id derived from the current secret); \
                     a key is either current or previous",
                    position + 1
                ),
            ));
        }
        Ok(Self { current, previous })
    }

    pub fn current(&self) -> &SigningKey {
        &self.current
    }

    pub fn previous(&self) -> &[SigningKey] {
        &self.previous
    }
}

/// `JWT_SECRET`: at least [`MIN_SECRET_BYTES`]; the error never echoes the value.
pub(super) fn current_secret(raw: Option<String>) -> Result<Option<Secret>, ConfigError> {
    match raw {
        Some(secret) if secret.len() < MIN_SECRET_BYTES => {
            Err(invalid("JWT_SECRET", "must be at least 32 bytes (e.g. `openssl rand -hex 32`)"))
        }
        other => Ok(other.map(Secret::new)),
    }
}

/// `JWT_KID`: the error quotes the rule, not the value.
pub(super) fn current_kid(raw: Option<String>) -> Result<Option<KeyId>, ConfigError> {
    raw.map(|raw| KeyId::new(&raw).ok_or_else(|| invalid("JWT_KID", format!("must be {KEY_ID_RULE}")))).transpose()
}

/// `JWT_PREVIOUS_KEYS`: comma-separated `kid=secret` entries (the first `=` separates them; a
/// secret may hold `=` but not `,`), each secret at least [`MIN_SECRET_BYTES`], ids unique. Errors
/// name entries by position and never quote a value.
pub(super) fn parse_previous_keys(raw: Option<String>) -> Result<Vec<SigningKey>, ConfigError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    let mut keys: Vec<SigningKey> = Vec::new();
    for (index, entry) in raw.split(',').map(str::trim).filter(|entry| !entry.is_empty()).enumerate() {
        let position = index + 1;
        let entry_error = |message: String| invalid("JWT_PREVIOUS_KEYS", format!("entry {position}: {message}"));
        let (kid, secret) = entry
            .split_once('=')
            .ok_or_else(|| entry_error("is not `kid=secret` (comma-separated entries)".to_owned()))?;
        let kid = KeyId::new(kid.trim()).ok_or_else(|| entry_error(format!("the key id must be {KEY_ID_RULE}")))?;
        if let Some(earlier) = keys.iter().position(|key| key.kid == kid) {
            return Err(invalid(
                "JWT_PREVIOUS_KEYS",
                format!("entries {} and {position} have the same key id", earlier + 1),
            ));
        }
        let key = SigningKey::new(kid, Secret::new(secret.trim()))
            .ok_or_else(|| entry_error(format!("the secret must be at least {MIN_SECRET_BYTES} bytes")))?;
        keys.push(key);
    }
    Ok(keys)
}

impl super::Config {
    /// The signing keys: `current_secret` (`JWT_SECRET`, or the secret generated into `DATA_DIR`)
    /// under `JWT_KID` or its derived id, and `JWT_PREVIOUS_KEYS`.
    ///
    /// # Errors
    /// [`ConfigError`] when the current key's id is also a previous key's, or (for a secret not
    /// read by this module) when the secret is too short.
    pub fn jwt_signing_keys(&self, current_secret: Secret) -> Result<SigningKeys, ConfigError> {
        signing_keys(current_secret, self.jwt_kid.clone(), self.jwt_previous_keys.clone())
    }
}

pub(super) fn signing_keys(
    current_secret: Secret,
    kid: Option<KeyId>,
    previous: Vec<SigningKey>,
) -> Result<SigningKeys, ConfigError> {
    let too_short = || invalid("JWT_SECRET", format!("must be at least {MIN_SECRET_BYTES} bytes"));
    let current = match kid {
        Some(kid) => SigningKey::new(kid, current_secret),
        None => SigningKey::with_derived_id(current_secret),
    }
    .ok_or_else(too_short)?;
    SigningKeys::new(current, previous)
}
