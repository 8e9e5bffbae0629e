//! Numbers written in English words, as agreements write amounts out before their figures ("Two
//! Hundred Fifty Million Dollars ($250,000,000)", "thirty (30) days"): reading them, and telling
//! a number word from any other. Amounts and percentages (`numbers.rs`) read them, and so does
//! the clause scanner (`text`), which must not take the "(30)" of "thirty (30)" for an enumerator.

use std::str::FromStr;

use rust_decimal::Decimal;

/// Parses an amount written in English words ("Two Hundred Fifty Million", "Seventy-Five
/// Million", "One Billion Two Hundred Fifty Million"). `None` when any word is not a number word
/// or the amount overflows.
pub fn parse_number_words(words: &str) -> Option<Decimal> {
    let mut total: u128 = 0;
    let mut current: u128 = 0;
    let mut seen_number = false;
    let mut last_scale: Option<u128> = None;
    for token in words.split(|c: char| c.is_whitespace() || c == '-').filter(|t| !t.is_empty()) {
        let lower = token.to_ascii_lowercase();
        if lower == "and" {
            continue;
        }
        if let Some(value) = small_number(&lower) {
            current = current.checked_add(value)?;
        } else if lower == "hundred" {
            current = current.max(1).checked_mul(100)?;
        } else if let Some(scale) = scale_word(&lower) {
            // A scale must scale a number, and scales must fall: "Billion Billion" and "Million
            // Two Billion" are not amounts.
            if current == 0 || last_scale.is_some_and(|last| scale >= last) {
                return None;
            }
            last_scale = Some(scale);
            total = total.checked_add(current.checked_mul(scale)?)?;
            current = 0;
        } else {
            return None;
        }
        seen_number = true;
    }
    if !seen_number {
        return None;
    }
    let value = total.checked_add(current)?;
    Decimal::from_str(&value.to_string()).ok()
}

/// The number an ordinal names: in words, "first" to "ninety-ninth" ("twenty-first" and "twenty
/// first" alike), or in figures ("5th", "21st").
pub(crate) fn parse_ordinal(word: &str) -> Option<u32> {
    const UNITS: [&str; 19] = [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
    ];
    const TENS: [&str; 8] =
        ["twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth"];
    let lower = word.to_ascii_lowercase();
    let unit = |w: &str| UNITS.iter().position(|o| *o == w).and_then(|p| u32::try_from(p + 1).ok());
    if let Some(value) = unit(&lower) {
        return Some(value);
    }
    if let Some(position) = TENS.iter().position(|t| *t == lower) {
        return u32::try_from((position + 2) * 10).ok();
    }
    if let Some((tens, rest)) = lower.split_once(['-', ' ']) {
        let tens = u32::try_from(small_number(tens.trim()).filter(|t| (20..100).contains(t) && t % 10 == 0)?).ok()?;
        return Some(tens + unit(rest.trim()).filter(|u| *u < 10)?);
    }
    let digits = lower.strip_suffix("st").or_else(|| lower.strip_suffix("nd")).or_else(|| lower.strip_suffix("rd"));
    digits.or_else(|| lower.strip_suffix("th"))?.parse().ok()
}

/// Whether a lower-case word is one that numbers are written in ("thirty", "hundred", "million").
pub(crate) fn is_number_word(word: &str) -> bool {
    small_number(word).is_some() || word == "hundred" || scale_word(word).is_some()
}

fn small_number(word: &str) -> Option<u128> {
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
    if let Some(index) = UNITS.iter().position(|&u| u == word) {
        return u128::try_from(index).ok();
    }
    let index = TENS.iter().position(|&t| t == word)?;
    u128::try_from(index).ok().map(|i| (i + 2) * 10)
}

fn scale_word(word: &str) -> Option<u128> {
    match word {
        "thousand" => Some(1_000),
        "million" => Some(1_000_000),
        "billion" => Some(1_000_000_000),
        "trillion" => Some(1_000_000_000_000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(raw: &str) -> Decimal {
        raw.parse().expect("test decimal")
    }

    #[test]
    fn number_words_parse_with_hyphens_and_conjunctions() {
        assert_eq!(parse_number_words("Two Hundred Fifty Million"), Some(dec("250000000")));
        assert_eq!(parse_number_words("Seven Hundred and Fifty Million"), Some(dec("750000000")));
        assert_eq!(parse_number_words("Seventy-Five Million"), Some(dec("75000000")));
        assert_eq!(parse_number_words("One Billion Two Hundred Fifty Million"), Some(dec("1250000000")));
        assert_eq!(parse_number_words("Hundred Thousand"), Some(dec("100000")));
        assert_eq!(parse_number_words("Five Hundred Lemons"), None);
        assert_eq!(parse_number_words("and"), None);
    }

    #[test]
    fn ordinals_in_words_and_figures_name_their_number() {
        for (word, number) in [
            ("first", 1),
            ("Twelfth", 12),
            ("nineteenth", 19),
            ("twentieth", 20),
            ("twenty-first", 21),
            ("Thirty First", 31),
            ("ninety-ninth", 99),
            ("21st", 21),
            ("5th", 5),
        ] {
            assert_eq!(parse_ordinal(word), Some(number), "{word}");
        }
        for word in ["twenty", "tenth-first", "twenty-tenth", "one-first", "last", "twenty-"] {
            assert_eq!(parse_ordinal(word), None, "{word}");
        }
    }
}
