//! Reading what a sheet says about its amounts: the unit they are stated in ("in thousands",
//! "$000s", "€m", "USD '000", a units row with 1 / 1000 / 1000000) and the currency (an ISO code
//! or a symbol in the same words, or a currency row).

use std::sync::LazyLock;

use regex::Regex;

fn pattern(source: &str) -> Regex {
    Regex::new(source).unwrap_or_else(|e| panic!("pattern {source}: {e}"))
}

static THOUSANDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\bin thousands\b|\bthousands of\b|\(thousands\)|\b000s\b|['’]000\b|[$€£]\s?000\b|\b(?:usd|eur|gbp|chf) ?000\b|\(000\)|\bin k\b|[$€£]k\b|\b(?:usd|eur|gbp|chf) ?k\b|\bk(?:usd|eur|gbp|chf)\b|\bteur\b|\btsd\b",
    )
});
static MILLIONS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\bin millions\b|\bmillions of\b|\(millions\)|[$€£]\s?(?:mm?|mn|mln)\b|\b(?:usd|eur|gbp|chf) ?(?:mm?|mn|mln)\b|\bm(?:usd|eur|gbp|chf)\b|\bin mn\b|\bin mln\b|\(m\)|\(mn\)",
    )
});
static ONES: LazyLock<Regex> = LazyLock::new(|| pattern(r"\bin units\b|\bin ones\b"));

/// The unit a text states (lower case), when it states one: the earliest statement in the text.
pub(in crate::domain::statements) fn unit_in_words(lower: &str) -> Option<f64> {
    [(&THOUSANDS, 1_000.0), (&MILLIONS, 1_000_000.0), (&ONES, 1.0)]
        .into_iter()
        .filter_map(|(re, unit)| re.find(lower).map(|m| (m.start(), unit)))
        .min_by_key(|&(at, _)| at)
        .map(|(_, unit)| unit)
}

/// The value of a units row: a number (1, 1000, 1000000) or words ("thousands", "000", "m").
pub(super) fn unit_value(lower: &str) -> Option<f64> {
    let compact: String = lower.chars().filter(|c| !matches!(c, ',' | ' ' | '\'' | '’')).collect();
    match compact.as_str() {
        "1" | "1.0" | "one" | "ones" | "units" | "unit" => Some(1.0),
        "1000" | "1000.0" | "000" | "000s" | "k" | "thousand" | "thousands" => Some(1_000.0),
        "1000000" | "1000000.0" | "m" | "mm" | "mn" | "mln" | "million" | "millions" => Some(1_000_000.0),
        _ => unit_in_words(lower),
    }
}

static ISO_CODE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"\b(usd|eur|gbp|chf|jpy|cad|aud|nzd|sek|nok|dkk|pln|czk|huf|sgd|hkd|cny|inr|brl|mxn|zar)\b")
});

/// The currency a text names (lower case): an ISO code, or a symbol (`US$`/`$` → USD, `C$` → CAD,
/// `A$` → AUD, `€` → EUR, `£` → GBP).
pub(super) fn currency_in_words(lower: &str) -> Option<String> {
    if let Some(captures) = ISO_CODE.captures(lower) {
        return Some(captures[1].to_ascii_uppercase());
    }
    let code = if lower.contains("c$") || lower.contains("ca$") {
        "CAD"
    } else if lower.contains("a$") || lower.contains("au$") {
        "AUD"
    } else if lower.contains('$') || lower.contains("us dollars") || lower.contains("u.s. dollars") {
        "USD"
    } else if lower.contains('€') || lower.contains("euro") {
        "EUR"
    } else if lower.contains('£') || lower.contains("sterling") {
        "GBP"
    } else {
        return None;
    };
    Some(code.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_statements_in_the_usual_words() {
        for text in ["(in thousands of dollars)", "$000s", "USD '000", "Amounts in thousands", "€000", "EUR k"] {
            assert_eq!(unit_in_words(&text.to_lowercase()), Some(1_000.0), "{text}");
        }
        for text in ["in millions", "€m", "USD m", "($ in millions)", "£mn"] {
            assert_eq!(unit_in_words(&text.to_lowercase()), Some(1_000_000.0), "{text}");
        }
        assert_eq!(unit_in_words("revenue"), None);
        assert_eq!(unit_in_words("a $5m one-off charge"), None);
        assert_eq!(unit_value("1,000"), Some(1_000.0));
        assert_eq!(unit_value("millions"), Some(1_000_000.0));
        assert_eq!(unit_value("dozens"), None);
    }

    #[test]
    fn currencies_from_codes_and_symbols() {
        assert_eq!(currency_in_words("usd '000").as_deref(), Some("USD"));
        assert_eq!(currency_in_words("(in thousands of dollars, $)").as_deref(), Some("USD"));
        assert_eq!(currency_in_words("€m").as_deref(), Some("EUR"));
        assert_eq!(currency_in_words("£000").as_deref(), Some("GBP"));
        assert_eq!(currency_in_words("in thousands"), None);
    }
}
