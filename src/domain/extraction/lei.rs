//! Legal Entity Identifiers (ISO 17442): 18 upper-case alphanumerics followed by two check digits
//! that make the whole code ≡ 1 (mod 97) under ISO 7064 MOD 97-10, letters counting A = 10 … Z = 35.
//! A code is taken exactly as written: never padded, trimmed of inner characters or upper-cased, so
//! a mistyped LEI is reported rather than repaired into someone else's.

use std::fmt;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Serialize, Serializer};

use super::sourced::sourced_value_via_serde;
use super::text::pattern;

/// A Legal Entity Identifier whose check digits are valid.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lei(String);

/// Why a stated LEI is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LeiError {
    /// An LEI has exactly 20 characters.
    #[error("an LEI has 20 characters, this has {0}")]
    Length(usize),
    /// Only `0-9` and `A-Z` may appear, and the last two are digits.
    #[error("an LEI holds only digits and upper-case letters and ends in two check digits")]
    Character,
    /// The check digits do not match (ISO 7064 MOD 97-10).
    #[error("the check digits do not match (ISO 7064 MOD 97-10)")]
    CheckDigits,
}

impl Lei {
    /// Validates `raw` as written.
    ///
    /// # Errors
    ///
    /// [`LeiError::Length`] unless 20 characters, [`LeiError::Character`] for anything but
    /// `0-9A-Z` or non-digit check characters, [`LeiError::CheckDigits`] when MOD 97-10 fails.
    pub fn parse(raw: &str) -> Result<Self, LeiError> {
        let length = raw.chars().count();
        if length != 20 {
            return Err(LeiError::Length(length));
        }
        let bytes = raw.as_bytes();
        let well_formed = bytes.iter().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
            && bytes.get(18..).is_some_and(|check| check.iter().all(u8::is_ascii_digit));
        if !well_formed {
            return Err(LeiError::Character);
        }
        if mod_97_10(bytes) != 1 {
            return Err(LeiError::CheckDigits);
        }
        Ok(Self(raw.to_owned()))
    }

    /// The 20-character code.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The remainder mod 97 of the number formed by replacing each letter with its two-digit value.
fn mod_97_10(code: &[u8]) -> u32 {
    code.iter().fold(0u32, |remainder, &b| {
        if b.is_ascii_digit() {
            (remainder * 10 + u32::from(b - b'0')) % 97
        } else {
            (remainder * 100 + u32::from(b - b'A') + 10) % 97
        }
    })
}

impl fmt::Display for Lei {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Lei {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

sourced_value_via_serde!(Lei);

/// A code the text labels as an LEI, valid or not.
#[derive(Clone, Debug)]
pub(crate) struct LeiMention {
    /// The whole mention ("LEI: 5493…").
    pub span: Range<usize>,
    /// The code alone.
    pub code: Range<usize>,
    pub parsed: Result<Lei, LeiError>,
}

static LEI_MENTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?:\bLEI\b|\bLegal[ \t]+Entity[ \t]+Identifier\b)(?:[ \t\r\n]+(?:[Cc]ode|[Nn]umber|[Nn]o\.))?[ \t\r\n]*(?:[:#–—-]|is)?[ \t\r\n]*(?P<code>[A-Za-z0-9]{4,40})\b",
    )
});

/// Every code the text labels as an LEI, in order.
pub(crate) fn find_lei_mentions(text: &str) -> Vec<LeiMention> {
    LEI_MENTION
        .captures_iter(text)
        .filter_map(|c| {
            let code = c.name("code")?;
            Some(LeiMention { span: c.get(0)?.range(), code: code.range(), parsed: Lei::parse(code.as_str()) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_leis_pass_the_iso_7064_check() {
        for code in ["5493001KJTIIGC8Y1R12", "7LTWFZYICNSX8D621K86", "7H6GLXDRUGQFU57RNE97", "HWUPKR0MPOU8FGXBT394"] {
            assert_eq!(Lei::parse(code).map(|l| l.to_string()), Ok(code.to_owned()));
        }
    }

    #[test]
    fn a_changed_character_breaks_the_check_digits() {
        assert_eq!(Lei::parse("5493001KJTIIGC8Y1R13"), Err(LeiError::CheckDigits));
        assert_eq!(Lei::parse("7LTWFZYICNSX8D621K68"), Err(LeiError::CheckDigits));
    }

    #[test]
    fn short_long_lower_case_and_symbol_codes_are_refused_not_repaired() {
        assert_eq!(Lei::parse("5493001KJTIIGC8Y1R1"), Err(LeiError::Length(19)));
        assert_eq!(Lei::parse("005493001KJTIIGC8Y1R12"), Err(LeiError::Length(22)));
        assert_eq!(Lei::parse("5493001kjtiigc8y1r12"), Err(LeiError::Character));
        assert_eq!(Lei::parse("5493001KJTIIGC8Y1RAB"), Err(LeiError::Character));
        assert_eq!(Lei::parse("5493001KJTIIGC8Y1R€2"), Err(LeiError::Character));
    }

    #[test]
    fn labelled_codes_are_found_whatever_their_validity() {
        let text = "Acme Inc. (LEI: 5493001KJTIIGC8Y1R12) and Beta LLC (LEI 12345)";
        let found = find_lei_mentions(text);
        assert_eq!(found.len(), 2);
        assert_eq!(&text[found[0].code.clone()], "5493001KJTIIGC8Y1R12");
        assert!(found[0].parsed.is_ok());
        assert_eq!(found[1].parsed, Err(LeiError::Length(5)));
    }
}
