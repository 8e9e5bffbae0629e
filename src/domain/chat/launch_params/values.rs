//! The value types of launch parameters. Each one both checks a value as it is deserialised and
//! describes itself as JSON Schema, from the same constants, so that what a language model is shown
//! and what a launch accepts cannot drift apart.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use crate::domain::quant::request::MAX_LOAN_AMOUNT;
use crate::domain::research::runs::MAX_ITERATIONS_RANGE;

/// Text that is not blank and at most `MAX` characters (as JSON Schema counts them: the text as
/// sent), kept trimmed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Text<const MAX: usize>(String);

impl<const MAX: usize> Text<MAX> {
    /// The text, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, trimmed.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// A character that does not count as content: Rust's white space (which the use cases trim) or the
/// byte-order mark. The schema's pattern [`CONTENT_PATTERN`] asks for one character outside exactly
/// this set, so a value the schema allows is never blank to a use case, and the other way round.
fn is_blank_char(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// "At least one character of content", in JSON Schema's (ECMAScript) regular expressions: `\s`
/// there is Unicode white space without NEXT LINE (U+0085) but with the byte-order mark (U+FEFF),
/// hence the U+0085 added.
pub const CONTENT_PATTERN: &str = "[^\\s\\u0085]";

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        if raw.chars().count() > MAX {
            return Err(de::Error::custom(format!("must be at most {MAX} characters")));
        }
        let trimmed = raw.trim_matches(is_blank_char);
        if trimmed.is_empty() {
            return Err(de::Error::custom("must not be blank"));
        }
        Ok(Self(trimmed.to_owned()))
    }
}

impl<const MAX: usize> JsonSchema for Text<MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Text{MAX}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "minLength": 1, "maxLength": MAX, "pattern": CONTENT_PATTERN })
    }
}

/// One line of text: as [`Text`], and without control characters (tabs and line breaks included),
/// as a company, role or place is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Line<const MAX: usize>(String);

impl<const MAX: usize> Line<MAX> {
    /// The text, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One or more characters none of which is a control character (Unicode Cc: U+0000–U+001F and
/// U+007F–U+009F, as Rust's `char::is_control`), at least one of them content ([`CONTENT_PATTERN`]).
pub const LINE_PATTERN: &str =
    "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$";

impl<'de, const MAX: usize> Deserialize<'de> for Line<MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Text(text) = Text::<MAX>::deserialize(deserializer)?;
        if text.chars().any(char::is_control) {
            return Err(de::Error::custom("must not contain control characters"));
        }
        Ok(Self(text))
    }
}

impl<const MAX: usize> JsonSchema for Line<MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Line{MAX}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "minLength": 1, "maxLength": MAX, "pattern": LINE_PATTERN })
    }
}

/// A loan amount in USD: more than 0 and at most [`MAX_LOAN_AMOUNT`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct LoanAmount(f64);

impl LoanAmount {
    pub fn get(self) -> f64 {
        self.0
    }
}

impl<'de> Deserialize<'de> for LoanAmount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let amount = f64::deserialize(deserializer)?;
        if !(amount.is_finite() && amount > 0.0) {
            return Err(de::Error::custom("must be a positive amount"));
        }
        if amount > MAX_LOAN_AMOUNT {
            return Err(de::Error::custom(format!("must be at most {MAX_LOAN_AMOUNT:.0} (USD 1 trillion)")));
        }
        Ok(Self(amount))
    }
}

impl JsonSchema for LoanAmount {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "LoanAmount".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "number", "exclusiveMinimum": 0, "maximum": MAX_LOAN_AMOUNT })
    }
}

/// How many research iterations at most: an integer in [`MAX_ITERATIONS_RANGE`]. `5.0` counts as
/// the integer 5, as JSON Schema's `integer` has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Iterations(u32);

impl Iterations {
    pub fn get(self) -> u32 {
        self.0
    }
}

impl<'de> Deserialize<'de> for Iterations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (low, high) = (*MAX_ITERATIONS_RANGE.start(), *MAX_ITERATIONS_RANGE.end());
        let number = serde_json::Number::deserialize(deserializer)?;
        let whole = match (number.as_i64(), number.as_f64()) {
            (Some(whole), _) => Some(whole),
            #[allow(clippy::cast_possible_truncation)] // only whole values within i64 reach the cast
            (None, Some(float)) if float.fract() == 0.0 && float.abs() < 9e15 => Some(float as i64),
            _ => None,
        };
        let Some(whole) = whole else { return Err(de::Error::custom("must be an integer")) };
        u32::try_from(whole)
            .ok()
            .filter(|n| MAX_ITERATIONS_RANGE.contains(n))
            .map(Self)
            .ok_or_else(|| de::Error::custom(format!("must be between {low} and {high}")))
    }
}

impl JsonSchema for Iterations {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Iterations".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "integer",
            "minimum": *MAX_ITERATIONS_RANGE.start(),
            "maximum": *MAX_ITERATIONS_RANGE.end(),
        })
    }
}

/// The currency of a loan application: loan applications are analysed in USD only, so this is the
/// one value; `usd` is read as `USD`. Any other code is refused with what to do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UsdOnly {
    #[serde(rename = "USD")]
    Usd,
}

impl<'de> Deserialize<'de> for UsdOnly {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        if code.trim().eq_ignore_ascii_case("USD") {
            Ok(Self::Usd)
        } else {
            Err(de::Error::custom(format!(
                "loan applications are analysed in USD; convert the {} amount to USD",
                code.trim()
            )))
        }
    }
}

impl JsonSchema for UsdOnly {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "UsdOnly".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": ["USD"] })
    }
}
