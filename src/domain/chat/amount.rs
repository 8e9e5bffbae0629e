//! Loan amounts as people type them in chat: "$5m", "2.5 million", "750k", "1.2bn", "$5,000,000",
//! "EUR 750k", "£300k", "$25mm", "40MM", "25mm GBP". The multiplier is applied in exact decimal
//! arithmetic, so "1.2bn" is exactly 1 200 000 000 and not 1 199 999 999.9999998.
//!
//! `mm` / `MM` is the finance shorthand for a million, and also millimetres ("5 mm of rain", "a
//! 40mm pipe"). An amount is therefore never read as money on its own shape: the grammar reads
//! [`AMOUNT`] only inside a loan pattern, where a lending verb ("lend", "extend", "borrow") or a
//! loan word ("loan", "facility", "revolver", "term loan", "ABL" …) stands beside it and a borrower
//! follows; without a currency it must also be at least 1,000 ("lend 500 to Bob" is no credit
//! request). "what do you think about a 40mm pipe for Contoso Ltd?" has neither and launches
//! nothing.

use std::str::FromStr;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use super::phrases::compile;

/// An amount as the grammar embeds it in larger patterns (no capture groups; case-insensitive
/// context expected). A currency before or after, digits with optional thousands separators and
/// decimals, and an optional multiplier: a word ("million", "bn") may follow a space, a letter
/// ("k", "m", "b") must follow the digits directly so that "5 months" is never five million.
pub(super) const AMOUNT: &str = r"(?:(?:us\$|[$€£¥])\s?|(?:usd|eur|gbp|chf|jpy|cad|aud)\s?)?\d+(?:,\d{3})*(?:\.\d+)?(?:\s?(?:thousand|million|mln|mio|billion|bn|mm|mn)\b|[kmb]\b)?(?:\s?(?:usd|eur|gbp|chf|jpy|cad|aud|dollars?|euros?|pounds?)\b)?";

/// An amount of money read from a message.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MoneyAmount {
    /// The amount in units of the currency.
    pub value: f64,
    /// ISO 4217 code, when the message states a currency.
    pub currency: Option<&'static str>,
}

static PARTS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?P<sym>us\$|[$€£¥])\s?|(?P<code>usd|eur|gbp|chf|jpy|cad|aud)\s?)?(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)(?:\s?(?P<mult>thousand|million|mln|mio|billion|bn|mm|mn|[kmb]))?(?:\s?(?P<after>usd|eur|gbp|chf|jpy|cad|aud|dollars?|euros?|pounds?))?$",
    )
});

/// Parses a whole amount expression (as matched by [`AMOUNT`]). `None` when it is not one, or when
/// it is zero: a loan of nothing is not a loan.
pub(super) fn parse_amount(text: &str) -> Option<MoneyAmount> {
    let captures = PARTS.captures(text.trim())?;
    let digits: String = captures.name("num")?.as_str().chars().filter(|c| *c != ',').collect();
    let number = Decimal::from_str(&digits).ok()?;
    let multiplier = match captures.name("mult").map(|m| m.as_str().to_ascii_lowercase()).as_deref() {
        None => Decimal::ONE,
        Some("k" | "thousand") => Decimal::from(1_000),
        Some("m" | "mm" | "mn" | "mln" | "mio" | "million") => Decimal::from(1_000_000),
        Some("b" | "bn" | "billion") => Decimal::from(1_000_000_000),
        Some(_) => return None,
    };
    let value = number.checked_mul(multiplier)?.to_f64()?;
    if !(value.is_finite() && value > 0.0) {
        return None;
    }
    let currency = captures
        .name("sym")
        .or_else(|| captures.name("code"))
        .or_else(|| captures.name("after"))
        .and_then(|m| currency_code(m.as_str()));
    Some(MoneyAmount { value, currency })
}

fn currency_code(marker: &str) -> Option<&'static str> {
    Some(match marker.to_ascii_lowercase().as_str() {
        "$" | "us$" | "usd" | "dollar" | "dollars" => "USD",
        "€" | "eur" | "euro" | "euros" => "EUR",
        "£" | "gbp" | "pound" | "pounds" => "GBP",
        "¥" | "jpy" => "JPY",
        "chf" => "CHF",
        "cad" => "CAD",
        "aud" => "AUD",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amount(text: &str) -> Option<(f64, Option<&'static str>)> {
        parse_amount(text).map(|m| (m.value, m.currency))
    }

    #[test]
    fn multipliers_scale_exactly() {
        assert_eq!(amount("$5m"), Some((5_000_000.0, Some("USD"))));
        assert_eq!(amount("2.5 million"), Some((2_500_000.0, None)));
        assert_eq!(amount("750k"), Some((750_000.0, None)));
        assert_eq!(amount("1.2bn"), Some((1_200_000_000.0, None)));
        assert_eq!(amount("$5,000,000"), Some((5_000_000.0, Some("USD"))));
        assert_eq!(amount("EUR 750k"), Some((750_000.0, Some("EUR"))));
        assert_eq!(amount("£300k"), Some((300_000.0, Some("GBP"))));
        assert_eq!(amount("3 billion dollars"), Some((3_000_000_000.0, Some("USD"))));
        assert_eq!(amount("40mm"), Some((40_000_000.0, None)));
        assert_eq!(amount("$25MM"), Some((25_000_000.0, Some("USD"))));
        assert_eq!(amount("€40 million"), Some((40_000_000.0, Some("EUR"))));
        assert_eq!(amount("250,000,000"), Some((250_000_000.0, None)));
        assert_eq!(amount("USD 10m"), Some((10_000_000.0, Some("USD"))));
        assert_eq!(amount("10 million euro"), Some((10_000_000.0, Some("EUR"))));
    }

    #[test]
    fn the_embedded_pattern_matches_what_the_parser_reads() {
        let whole = compile(&format!("(?i)^{AMOUNT}$"));
        for text in ["$5m", "2.5 million", "750k", "1.2bn", "$5,000,000", "EUR 750k", "£300k", "100 USD"] {
            assert!(whole.is_match(text), "{text}");
            assert!(parse_amount(text).is_some(), "{text}");
        }
    }

    #[test]
    fn zero_and_malformed_amounts_are_refused() {
        assert_eq!(amount("0"), None);
        assert_eq!(amount("$0m"), None);
        assert_eq!(amount("five million"), None);
        assert_eq!(amount("5,00"), None);
        assert_eq!(amount("5 months"), None);
    }
}
