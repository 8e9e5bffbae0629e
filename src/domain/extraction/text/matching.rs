//! Finding words: the engine's compiled patterns, phrases that wrap across lines or come in the
//! usual casings, and case-insensitive search.

use regex::Regex;

/// Compiles one of the engine's constant patterns. `\b` is rewritten to the ASCII word boundary:
/// the Unicode one makes the regex crate leave its DFA on non-ASCII input (curly quotes are in
/// every agreement), which would cost an order of magnitude in throughput.
pub(crate) fn pattern(source: &str) -> Regex {
    let ascii_boundaries = source.replace(r"\b", r"(?-u:\b)");
    Regex::new(&ascii_boundaries).unwrap_or_else(|error| panic!("extraction pattern {source:?} must compile: {error}"))
}

/// A case-insensitive pattern matching any of `words` literally, except that a space matches any
/// run of spaces and line breaks (a phrase wraps across lines in hard-wrapped filings): one regex
/// scan instead of a substring search per word.
pub(crate) fn any_word(words: &[&str]) -> Regex {
    let alternatives: Vec<String> =
        words.iter().map(|w| w.split(' ').map(regex::escape).collect::<Vec<_>>().join(r"[ \t\r\n]+")).collect();
    pattern(&format!("(?i:{})", alternatives.join("|")))
}

/// Whether `words` finds a match in `text` that is not the first word of a date's name: "On the
/// Reduction Date" and "until the first Adjustment Date" say when, not that a figure is a
/// reduction or an adjustment.
pub(crate) fn matches_outside_date_names(words: &Regex, text: &str) -> bool {
    words.find_iter(text).any(|found| {
        let rest = &text[found.end()..];
        let word_end = found.end() + rest.find(|c: char| !c.is_alphabetic()).unwrap_or(rest.len());
        !text[word_end..].starts_with(" Date")
    })
}

/// A pattern for a phrase whose words may be capitalised or upper case ("commitment fee",
/// "Commitment Fee", "COMMITMENT FEE"), written without `(?i)` so the regex crate can still find
/// it with a literal prefilter.
pub(crate) fn capitalisable(phrase: &str) -> String {
    let words: Vec<String> = phrase
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) if first.is_ascii_alphabetic() => {
                    let rest: String = chars.collect();
                    format!(
                        "(?:[{}{}]{}|{})",
                        first.to_ascii_uppercase(),
                        first.to_ascii_lowercase(),
                        regex::escape(&rest),
                        regex::escape(&word.to_uppercase())
                    )
                }
                _ => regex::escape(word),
            }
        })
        .collect();
    words.join(r"[ \t\r\n]+")
}

/// Whether `haystack` contains `needle`, ignoring ASCII case. `needle` must be lower case.
pub(crate) fn contains_ci(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if n.is_empty() {
        return true;
    }
    h.windows(n.len()).any(|window| window.eq_ignore_ascii_case(n))
}

/// Whether `haystack` contains any of the lower-case `needles`, ignoring ASCII case.
pub(crate) fn contains_any_ci(haystack: &str, needles: &[&str]) -> bool {
    needles.iter().any(|needle| contains_ci(haystack, needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capitalisable_phrases_match_the_three_usual_casings_only() {
        let re = pattern(&capitalisable("commitment fee"));
        for text in ["commitment fee", "Commitment Fee", "COMMITMENT FEE", "Commitment\n  fee"] {
            assert!(re.is_match(text), "{text}");
        }
        assert!(!re.is_match("cOMMITMENT fEE"));
    }

    #[test]
    fn words_of_a_phrase_match_across_a_line_break() {
        let re = any_word(&["in excess of"]);
        assert!(re.is_match("an amount in\n     excess of $1,000,000"));
        assert!(!re.is_match("an amount inexcess of"));
    }
}
