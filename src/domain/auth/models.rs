//! Users, roles and the validated values they are made of. Constructors reject bad input, so a
//! value of these types is valid by construction.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::ethereum::EthAddress;

uuid_id! {
    /// Identifier of a user.
    #[derive(Serialize, Deserialize)]
    #[serde(transparent)]
    UserId
}

/// Roles, ordered by what they may do: a higher role may do everything a lower one may.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// May read.
    Viewer,
    /// May also run workflows, chat and extract.
    Analyst,
    /// May do everything, including user administration.
    Admin,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Analyst, Role::Admin];

    pub fn as_str(&self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Analyst => "analyst",
            Role::Admin => "admin",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown role '{0}': expected viewer, analyst or admin")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL.into_iter().find(|role| role.as_str() == s).ok_or_else(|| UnknownRole(s.to_owned()))
    }
}

/// A normalised e-mail address: trimmed, NFKC (so full-width and other compatibility forms become
/// the letters they stand for), lower-cased. One account per address a person would read as the
/// same: characters that are invisible, or that look like ASCII letters without being them (the
/// Cyrillic `а` of `pаypal`), are refused rather than allowed to become a look-alike account.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EmailAddress(String);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EmailAddressError {
    #[error("e-mail address is empty")]
    Empty,
    #[error("e-mail address is longer than 254 characters")]
    TooLong,
    #[error("e-mail address must look like name@example.com")]
    Malformed,
    #[error("e-mail address contains an invisible or unusual character (U+{0:04X})")]
    InvisibleCharacter(u32),
    #[error(
        "e-mail address contains '{0}', which looks like a different letter; type it with the letters it looks like"
    )]
    Confusable(char),
    #[error("e-mail address mixes alphabets (e.g. Latin and Cyrillic) within one part")]
    MixedScripts,
}

impl EmailAddress {
    /// An address given by a person: normalised, checked, look-alikes refused.
    pub fn new(raw: &str) -> Result<Self, EmailAddressError> {
        let address = Self::well_formed(raw)?;
        let (local, domain) = address.0.split_once('@').ok_or(EmailAddressError::Malformed)?;
        refuse_look_alikes(local)?;
        domain.split('.').try_for_each(refuse_look_alikes)?;
        Ok(address)
    }

    /// An address read back from the store: normalised and checked for shape, but not refused for
    /// look-alike characters, so an account created under earlier rules stays readable and listable.
    pub fn stored(raw: &str) -> Result<Self, EmailAddressError> {
        Self::well_formed(raw)
    }

    fn well_formed(raw: &str) -> Result<Self, EmailAddressError> {
        use unicode_normalization::UnicodeNormalization as _;
        let normalised: String = raw.trim().nfkc().collect::<String>().to_lowercase().nfc().collect();
        if normalised.is_empty() {
            return Err(EmailAddressError::Empty);
        }
        if normalised.chars().count() > 254 {
            return Err(EmailAddressError::TooLong);
        }
        let (local, domain) = normalised.split_once('@').ok_or(EmailAddressError::Malformed)?;
        let well_formed = !local.is_empty()
            && local.chars().count() <= 64
            && !domain.contains('@')
            && domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
            && !normalised.chars().any(|c| c.is_whitespace() || c.is_control());
        if !well_formed {
            return Err(EmailAddressError::Malformed);
        }
        Ok(Self(normalised))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Refuses a part of an address (the local part, or one domain label) that a reader could take
/// for another. ASCII is taken as it is. Otherwise every character must be one Unicode's general
/// security profile allows in identifiers (no invisible, format or symbol characters); the part
/// must be written in one script (`pаypal` with a Cyrillic `а` is not); and the part as a whole
/// must not read as an ASCII string (`аррӏе`, all Cyrillic, is `apple` to the eye: UTS #39
/// confusable skeleton). `иван` or `müller` are none of these and stay accepted.
fn refuse_look_alikes(part: &str) -> Result<(), EmailAddressError> {
    use unicode_security::{GeneralSecurityProfile as _, MixedScript as _};
    if part.is_ascii() {
        return Ok(());
    }
    if let Some(c) = part.chars().find(|c| !c.is_ascii() && !c.identifier_allowed()) {
        return Err(EmailAddressError::InvisibleCharacter(u32::from(c)));
    }
    if !part.is_single_script() {
        return Err(EmailAddressError::MixedScripts);
    }
    if unicode_security::skeleton(part).all(|c| c.is_ascii()) {
        let first_foreign = part.chars().find(|c| !c.is_ascii()).unwrap_or('?');
        return Err(EmailAddressError::Confusable(first_foreign));
    }
    Ok(())
}

/// A plaintext password that meets the policy. Never printed.
#[derive(Clone)]
pub struct Password(String);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PasswordError {
    #[error("password must be at least {min} characters long")]
    TooShort { min: usize },
    #[error("password must be at most {max} bytes long")]
    TooLong { max: usize },
}

impl Password {
    pub const MIN_CHARS: usize = 12;
    /// Bounds the work a single login can cause in the password hasher.
    pub const MAX_BYTES: usize = 1024;

    /// A new password chosen by a user: the policy applies.
    pub fn new(raw: String) -> Result<Self, PasswordError> {
        if raw.chars().count() < Self::MIN_CHARS {
            return Err(PasswordError::TooShort { min: Self::MIN_CHARS });
        }
        Self::candidate(raw)
    }

    /// A password presented at login: only the size bound applies, so a policy change never
    /// locks out users whose older passwords are shorter.
    pub fn candidate(raw: String) -> Result<Self, PasswordError> {
        if raw.len() > Self::MAX_BYTES {
            return Err(PasswordError::TooLong { max: Self::MAX_BYTES });
        }
        Ok(Self(raw))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password([redacted])")
    }
}

/// A PHC-format password hash (argon2id). Not secret, but never shown to clients.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(String);

impl PasswordHash {
    pub fn from_phc(phc: String) -> Self {
        Self(phc)
    }
    pub fn as_phc(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordHash([redacted])")
    }
}

/// A stored user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub email: Option<EmailAddress>,
    pub password_hash: Option<PasswordHash>,
    pub role: Role,
    pub wallet_address: Option<EthAddress>,
    pub created_at: OffsetDateTime,
    pub disabled: bool,
    /// Moves on at sign-out, disabling and demotion; access tokens carry the version they were
    /// issued under and stop working once it has moved on.
    pub token_version: i64,
}

/// An administrator's change to a user; `None` leaves a field as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UserChanges {
    pub role: Option<Role>,
    pub disabled: Option<bool>,
}

/// What the store needs to create a user; ids and timestamps are chosen by the service.
#[derive(Clone, Debug)]
pub struct NewUser {
    pub id: UserId,
    pub email: Option<EmailAddress>,
    pub password_hash: Option<PasswordHash>,
    pub role: Role,
    pub wallet_address: Option<EthAddress>,
    pub created_at: OffsetDateTime,
}

impl NewUser {
    pub fn into_user(self) -> User {
        User {
            id: self.id,
            email: self.email,
            password_hash: self.password_hash,
            role: self.role,
            wallet_address: self.wallet_address,
            created_at: self.created_at,
            disabled: false,
            token_version: 0,
        }
    }
}

/// The authenticated caller of a request, taken from a verified access token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Principal {
    pub user_id: UserId,
    pub role: Role,
}

impl Principal {
    /// Whether this caller may see a resource owned by `owner` (admins see everything).
    pub fn may_see_owned_by(&self, owner: UserId) -> bool {
        self.role == Role::Admin || self.user_id == owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_is_trimmed_and_lower_cased() {
        let email = EmailAddress::new("  Alice.Smith@Example.COM ").expect("valid");
        assert_eq!(email.as_str(), "alice.smith@example.com");
    }

    #[test]
    fn malformed_emails_are_rejected() {
        for raw in ["", "alice", "alice@", "@example.com", "a@b", "a@@b.com", "a b@c.com", "a@.com", "a@b..com"] {
            assert!(EmailAddress::new(raw).is_err(), "{raw:?} should be rejected");
        }
    }

    #[test]
    fn compatibility_forms_normalise_to_the_letters_they_stand_for() {
        // Full-width letters and the full-width at sign (NFKC), upper case.
        let email = EmailAddress::new("ＡＬＩＣＥ＠example.com").expect("valid");
        assert_eq!(email.as_str(), "alice@example.com");
        // A decomposed é and a precomposed one are one address.
        let decomposed = EmailAddress::new("jose\u{301}@example.com").expect("valid");
        let precomposed = EmailAddress::new("josé@example.com").expect("valid");
        assert_eq!(decomposed, precomposed);
    }

    #[test]
    fn invisible_characters_are_refused() {
        for raw in [
            "ali\u{200B}ce@example.com",
            "alice\u{200D}@example.com",
            "alice@exa\u{2060}mple.com",
            "\u{FEFF}alice@example.com",
            "alice\u{202E}@example.com",
            "al\u{00AD}ice@example.com",
        ] {
            assert!(
                matches!(EmailAddress::new(raw), Err(EmailAddressError::InvisibleCharacter(_))),
                "{raw:?} should be refused"
            );
        }
    }

    #[test]
    fn latin_addresses_with_a_foreign_look_alike_letter_are_refused() {
        // Cyrillic а (U+0430), е (U+0435); Greek ο (U+03BF), each among Latin letters.
        for raw in
            ["p\u{430}ypal@example.com", "alic\u{435}@example.com", "alice@ex\u{430}mple.com", "b\u{3BF}b@example.com"]
        {
            assert_eq!(EmailAddress::new(raw), Err(EmailAddressError::MixedScripts), "{raw:?}");
        }
    }

    #[test]
    fn a_part_written_wholly_in_look_alike_letters_is_refused() {
        // "аррӏе" in Cyrillic reads as "apple"; "раураӏ" likewise as "paypal" in a domain label.
        for raw in
            ["\u{430}\u{440}\u{440}\u{4CF}\u{435}@example.com", "alice@\u{440}\u{430}\u{443}\u{440}\u{430}\u{4CF}.com"]
        {
            assert!(matches!(EmailAddress::new(raw), Err(EmailAddressError::Confusable(_))), "{raw:?}");
        }
    }

    #[test]
    fn other_alphabets_are_accepted_when_unambiguous() {
        for raw in ["müller@beispiel.de", "josé@example.com", "用户@例子.公司", "иван@пример.рф"] {
            assert!(EmailAddress::new(raw).is_ok(), "{raw:?} should be accepted: {:?}", EmailAddress::new(raw));
        }
    }

    #[test]
    fn passwords_shorter_than_twelve_characters_are_rejected() {
        assert_eq!(Password::new("elevenchars".into()).unwrap_err(), PasswordError::TooShort { min: 12 });
        assert!(Password::new("twelve chars".into()).is_ok());
        // Characters, not bytes: twelve multi-byte characters pass.
        assert!(Password::new("ééééééééééé€".into()).is_ok());
    }

    #[test]
    fn password_debug_output_never_contains_the_password() {
        let password = Password::new("correct horse battery".into()).expect("valid");
        assert!(!format!("{password:?}").contains("horse"));
    }

    #[test]
    fn roles_are_ordered_viewer_analyst_admin() {
        assert!(Role::Viewer < Role::Analyst && Role::Analyst < Role::Admin);
        assert_eq!("analyst".parse::<Role>(), Ok(Role::Analyst));
        assert!("root".parse::<Role>().is_err());
    }

    #[test]
    fn only_owners_and_admins_see_owned_resources() {
        let owner = UserId::new_random();
        let other = UserId::new_random();
        let analyst = Principal { user_id: other, role: Role::Analyst };
        let admin = Principal { user_id: other, role: Role::Admin };
        assert!(!analyst.may_see_owned_by(owner));
        assert!(admin.may_see_owned_by(owner));
        assert!(Principal { user_id: owner, role: Role::Viewer }.may_see_owned_by(owner));
    }
}
