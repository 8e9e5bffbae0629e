//! The value rules CDM enforces on single attributes (code lists, date ranges, numbers), checked here
//! so that a value CDM would refuse is left out of an event instead of making the whole event invalid.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::Value;
use time::Date;

use super::floating_rate_indices::FLOATING_RATE_INDEX_NAMES;

/// The jurisdictions of CDM's `GoverningLawEnum`. The enum's two other values
/// (`AsSpecifiedInMasterAgreement`, `RelatedMasterAgreement`) are not laws a credit agreement states.
const GOVERNING_LAW_CODES: [&str; 20] = [
    "BE", "CAAB", "CABC", "CAMN", "CAON", "CAQC", "DE", "FR", "GBEN", "GBGY", "GBIM", "GBJY", "GBSC", "IE", "JP", "LU",
    "USCA", "USDE", "USIL", "USNY",
];

/// The CDM spelling of a floating-rate index (`FloatingRateIndexEnum` display name, such as
/// `"USD-SOFR CME Term"`), or `None` when CDM does not know the index.
///
/// The exact name wins; otherwise a case-insensitive match is accepted when it is unambiguous
/// (`"usd-sofr"` gives `"USD-SOFR"`). No other normalisation is attempted: `"SOFR"` or
/// `"Term SOFR"` are not CDM names and give `None`.
pub fn cdm_floating_rate_index(name: &str) -> Option<&'static str> {
    let name = name.trim();
    if let Ok(position) = FLOATING_RATE_INDEX_NAMES.binary_search(&name) {
        return Some(FLOATING_RATE_INDEX_NAMES[position]);
    }
    let mut matches = FLOATING_RATE_INDEX_NAMES.iter().filter(|known| known.eq_ignore_ascii_case(name));
    match (matches.next(), matches.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// The CDM `GoverningLawEnum` code for `code` (`"USNY"`, `"GBEN"`, …, case-insensitive), or `None` when
/// CDM has no such jurisdiction (CDM 7.8 lists 20; Singapore or Hong Kong law, for example, are absent).
pub fn cdm_governing_law(code: &str) -> Option<&'static str> {
    let code = code.trim();
    GOVERNING_LAW_CODES.iter().copied().find(|known| known.eq_ignore_ascii_case(code))
}

/// Whether `lei` is a well-formed ISO 17442 Legal Entity Identifier: 20 upper-case letters or digits
/// whose ISO 7064 MOD 97-10 check (letters as 10..35) leaves 1. A misread LEI would name another
/// entity, so one that fails the check is not published as an LEI.
pub fn is_valid_lei(lei: &str) -> bool {
    if lei.len() != 20 || !lei.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()) {
        return false;
    }
    let remainder = lei.chars().filter_map(|c| c.to_digit(36)).fold(0u32, |remainder, value| {
        // Letters stand for two decimal digits, digits for one.
        let shift = if value >= 10 { 100 } else { 10 };
        (remainder * shift + value) % 97
    });
    remainder == 1
}

/// The ISO 4217 form of `code` (three letters, upper-cased), or `None` when it cannot be a currency
/// code. CDM itself accepts any string here, so this is the only check a currency gets.
pub(super) fn iso_currency(code: &str) -> Option<String> {
    let code = code.trim();
    (code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic())).then(|| code.to_ascii_uppercase())
}

/// `YYYY-MM-DD`, or `None` for a year the model's dates cannot hold (Python `date`: 1 to 9999).
pub(super) fn iso_date(date: Date) -> Option<String> {
    let year = date.year();
    (1..=9999).contains(&year).then(|| format!("{year:04}-{:02}-{:02}", u8::from(date.month()), date.day()))
}

/// `value` as a JSON number that reads back as exactly `value`, or `None` when no such number exists
/// without `serde_json`'s arbitrary precision (more than about 15 significant digits).
///
/// CDM amounts and rates are JSON numbers (`"value": 0.0275`), not the strings `rust_decimal`
/// serialises to.
pub(super) fn exact_json_number(value: Decimal) -> Option<Value> {
    let value = value.normalize();
    if value.scale() == 0
        && let Some(integer) = value.to_i64()
    {
        return Some(Value::from(integer));
    }
    let float = value.to_f64()?;
    // Rust prints the shortest decimal that reads back as the same float, never in exponent form.
    let round_trip: Decimal = float.to_string().parse().ok()?;
    if round_trip != value {
        return None;
    }
    serde_json::Number::from_f64(float).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;
    use std::str::FromStr;
    use time::macros::date;

    fn decimal(text: &str) -> Decimal {
        Decimal::from_str(text).expect("test decimal")
    }

    #[test]
    fn the_index_list_is_sorted_so_binary_search_finds_every_name() {
        assert!(FLOATING_RATE_INDEX_NAMES.windows(2).all(|pair| pair[0] < pair[1]));
        for name in FLOATING_RATE_INDEX_NAMES {
            assert_eq!(cdm_floating_rate_index(name), Some(name));
        }
    }

    #[test]
    fn index_names_match_exactly_or_case_insensitively_when_unambiguous() {
        assert_eq!(cdm_floating_rate_index(" USD-SOFR CME Term "), Some("USD-SOFR CME Term"));
        assert_eq!(cdm_floating_rate_index("gbp-sonia"), Some("GBP-SONIA"));
        assert_eq!(cdm_floating_rate_index("EUR-EONIA-Average"), Some("EUR-EONIA-Average"));
        // Two CDM names differ only by case: a guess between them would be an invention.
        assert_eq!(cdm_floating_rate_index("eur-eonia-average"), None);
        assert_eq!(cdm_floating_rate_index("SOFR"), None);
    }

    #[test]
    fn governing_law_accepts_cdm_jurisdictions_only() {
        assert_eq!(cdm_governing_law("usny"), Some("USNY"));
        assert_eq!(cdm_governing_law("GBEN"), Some("GBEN"));
        assert_eq!(cdm_governing_law("SG"), None);
        assert_eq!(cdm_governing_law("RelatedMasterAgreement"), None);
    }

    #[test]
    fn an_lei_must_pass_its_check_digits() {
        assert!(is_valid_lei("5493001KJTIIGC8Y1R12"));
        assert!(is_valid_lei("7LTWFZYICNSX8D621K86"));
        assert!(!is_valid_lei("5493001KJTIIGC8Y1R13"), "wrong check digits");
        assert!(!is_valid_lei("5493001kjtiigc8y1r12"), "lower case");
        assert!(!is_valid_lei("5493001KJTIIGC8Y1R1"), "19 characters");
    }

    #[test]
    fn currencies_are_three_letters_upper_cased() {
        assert_eq!(iso_currency(" usd").as_deref(), Some("USD"));
        assert_eq!(iso_currency("US$"), None);
        assert_eq!(iso_currency("EURO"), None);
    }

    #[test]
    fn dates_outside_the_models_range_are_refused() {
        assert_eq!(iso_date(date!(2031 - 11 - 20)).as_deref(), Some("2031-11-20"));
        assert_eq!(iso_date(date!(0000 - 01 - 01)), None);
    }

    #[test]
    fn decimals_become_exact_json_numbers() {
        assert_eq!(exact_json_number(decimal("250000000.00")), Some(Value::from(250_000_000)));
        assert_eq!(exact_json_number(decimal("0.0275")).map(|n| n.to_string()).as_deref(), Some("0.0275"));
        assert_eq!(exact_json_number(decimal("-0.001")).map(|n| n.to_string()).as_deref(), Some("-0.001"));
        assert_eq!(exact_json_number(decimal("0")), Some(Value::from(0)));
        assert_eq!(exact_json_number(decimal("1234567890.123456789")), None);
    }
}
