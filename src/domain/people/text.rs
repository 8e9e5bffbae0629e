//! How the people workflow compares and cuts text: words counted, quotes compared in one
//! normalised form, statements cut at a word.

use regex::Regex;

use crate::domain::research::text::truncate_at_word;

pub(super) fn compile(source: &str) -> Regex {
    Regex::new(source).unwrap_or_else(|error| panic!("people pattern {source:?} must compile: {error}"))
}

pub(super) fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Lower case, single spaces, straight quotes: the form quotes are compared in.
pub(super) fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .replace(['‘', '’'], "'")
        .replace(['“', '”'], "\"")
}

/// `text` cut at a word to at most `max_chars` characters, with an ellipsis when cut.
pub(super) fn cut(text: &str, max_chars: usize) -> String {
    match truncate_at_word(text, max_chars) {
        whole if whole.len() == text.len() => text.to_owned(),
        prefix => format!("{prefix}…"),
    }
}
