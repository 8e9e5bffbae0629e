//! Clause and sentence boundaries: semicolons, blank lines, sentence ends (not abbreviations,
//! initials or decimals) and list enumerators (not a figure restating number words, "thirty (30)").

use std::ops::Range;

use super::spans::{ceil_boundary, floor_boundary};
use crate::domain::extraction::number_words::is_number_word;

/// How far the clause scanner looks in each direction; a clause longer than this is cut.
const MAX_CLAUSE: usize = 700;

/// Abbreviations whose final period does not end a sentence in agreements.
const ABBREVIATIONS: &[&str] = &[
    "inc", "co", "corp", "ltd", "no", "nos", "cent", "sec", "etc", "al", "approx", "jan", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec", "st", "mr", "ms", "dr", "vs", "assoc", "intl", "bros", "pty",
];

/// The clause around `pos`: the text between the nearest boundaries on either side. Boundaries are
/// semicolons, blank lines, sentence ends and list enumerators such as `(a)` or `(ii)`; a clause is
/// the unit within which a facility reference scopes a stated value ("(b) in relation to Facility
/// B, 15 March 2028;").
pub(crate) fn clause_around(text: &str, pos: usize) -> Range<usize> {
    clause_start(text, pos)..clause_end(text, pos)
}

/// Start of the clause containing `pos`.
pub(crate) fn clause_start(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    let pos = floor_boundary(text, pos);
    let limit = pos.saturating_sub(MAX_CLAUSE);
    let mut i = pos;
    while i > limit {
        let at = i - 1;
        match bytes.get(at).copied() {
            Some(b';') => return i,
            Some(b'\n') if previous_line_is_blank(bytes, at) => return i,
            Some(b'(') if is_enumerator(bytes, at) => return at,
            Some(b'.') if is_sentence_end(bytes, at) => return i,
            _ => {}
        }
        i -= 1;
    }
    ceil_boundary(text, limit)
}

/// End of the clause containing `pos`.
pub(crate) fn clause_end(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    let pos = ceil_boundary(text, pos);
    let limit = pos.saturating_add(MAX_CLAUSE).min(bytes.len());
    let mut i = pos;
    while i < limit {
        match bytes.get(i).copied() {
            Some(b';') => return i,
            Some(b'\n') if next_line_is_blank(bytes, i) => return i,
            Some(b'(') if i > pos && is_enumerator(bytes, i) => return i,
            Some(b'.') if is_sentence_end(bytes, i) => return i,
            _ => {}
        }
        i += 1;
    }
    floor_boundary(text, limit)
}

/// The sentence containing `pos`: like [`clause_around`] but only sentence ends and blank lines
/// separate.
pub(crate) fn sentence_around(text: &str, pos: usize) -> Range<usize> {
    let bytes = text.as_bytes();
    let pos = floor_boundary(text, pos);
    let low = pos.saturating_sub(MAX_CLAUSE * 2);
    let mut start = ceil_boundary(text, low);
    let mut i = pos;
    while i > low {
        let at = i - 1;
        match bytes.get(at).copied() {
            Some(b'\n') if previous_line_is_blank(bytes, at) => {
                start = i;
                break;
            }
            Some(b'.') if is_sentence_end(bytes, at) => {
                start = i;
                break;
            }
            _ => {}
        }
        i -= 1;
    }
    let high = pos.saturating_add(MAX_CLAUSE * 2).min(bytes.len());
    let mut end = floor_boundary(text, high);
    let mut j = pos;
    while j < high {
        match bytes.get(j).copied() {
            Some(b'\n') if next_line_is_blank(bytes, j) => {
                end = j;
                break;
            }
            Some(b'.') if is_sentence_end(bytes, j) => {
                end = j + 1;
                break;
            }
            _ => {}
        }
        j += 1;
    }
    start..end.max(start)
}

/// The end of the sentence running on from `pos`: just past the first period that ends a
/// sentence, at most `max` bytes on. Unlike [`sentence_around`], blank lines do not end it: the
/// items of a list written as prose are often set apart by blank lines and page breaks.
pub(crate) fn sentence_end_after(text: &str, pos: usize, max: usize) -> usize {
    let bytes = text.as_bytes();
    let pos = ceil_boundary(text, pos);
    let limit = floor_boundary(text, pos.saturating_add(max));
    (pos..limit).find(|&i| is_sentence_end(bytes, i)).map_or(limit, |i| i + 1)
}

/// The start of the sentence containing `pos`: just after the last period before it that ends a
/// sentence, at most `max` bytes back. Blank lines do not end it, as for [`sentence_end_after`].
pub(crate) fn sentence_start_before(text: &str, pos: usize, max: usize) -> usize {
    let bytes = text.as_bytes();
    let pos = floor_boundary(text, pos);
    let low = ceil_boundary(text, pos.saturating_sub(max));
    (low..pos).rev().find(|&i| is_sentence_end(bytes, i)).map_or(low, |i| i + 1)
}

/// `bytes[at]` is a newline and the line before it holds only whitespace.
fn previous_line_is_blank(bytes: &[u8], at: usize) -> bool {
    let mut k = at;
    while k > 0 {
        k -= 1;
        match bytes.get(k).copied() {
            Some(b'\n') => return true,
            Some(b' ' | b'\t' | b'\r') => {}
            _ => return false,
        }
    }
    false
}

/// `bytes[at]` is a newline and the line after it holds only whitespace.
fn next_line_is_blank(bytes: &[u8], at: usize) -> bool {
    let mut k = at + 1;
    while let Some(&b) = bytes.get(k) {
        match b {
            b'\n' => return true,
            b' ' | b'\t' | b'\r' => k += 1,
            _ => return false,
        }
    }
    false
}

/// `bytes[at]` opens a list enumerator: `(a)`, `(ii)`, `(12)`, preceded by whitespace or the start
/// and followed by whitespace.
fn is_enumerator(bytes: &[u8], at: usize) -> bool {
    let preceded_by_space = at == 0 || bytes.get(at - 1).is_some_and(|b| b.is_ascii_whitespace());
    if !preceded_by_space {
        return false;
    }
    let mut k = at + 1;
    let mut len = 0;
    while let Some(&b) = bytes.get(k) {
        if b.is_ascii_lowercase() || b.is_ascii_digit() {
            len += 1;
            k += 1;
        } else {
            break;
        }
    }
    let closed = (1..=4).contains(&len)
        && bytes.get(k) == Some(&b')')
        && bytes.get(k + 1).is_none_or(|b| b.is_ascii_whitespace());
    closed && !restates_number_words(bytes, at, k)
}

/// Whether `(digits)` between `open` and `close` restates the number in words before it ("thirty
/// (30) days", "one hundred fifty (150) basis points"): a figure, not a list enumerator.
fn restates_number_words(bytes: &[u8], open: usize, close: usize) -> bool {
    if !bytes.get(open + 1..close).is_some_and(|inner| inner.iter().all(u8::is_ascii_digit)) {
        return false;
    }
    let mut end = open;
    while end > 0 && bytes.get(end - 1).is_some_and(|b| b.is_ascii_whitespace()) {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && bytes.get(start - 1).is_some_and(u8::is_ascii_alphabetic) {
        start -= 1;
    }
    let word = std::str::from_utf8(bytes.get(start..end).unwrap_or(&[])).unwrap_or("").to_ascii_lowercase();
    is_number_word(&word)
}

/// `bytes[at]` is a period that ends a sentence: followed by whitespace and not closing an
/// abbreviation, an initial (`N.A.`) or a decimal number.
fn is_sentence_end(bytes: &[u8], at: usize) -> bool {
    if bytes.get(at) != Some(&b'.') {
        return false;
    }
    match bytes.get(at + 1) {
        None => return true,
        Some(b) if b.is_ascii_whitespace() => {}
        Some(b'"' | b')') => {}
        _ => return false,
    }
    let mut k = at;
    while k > 0 && bytes.get(k - 1).is_some_and(|b| b.is_ascii_alphabetic()) {
        k -= 1;
    }
    let word = bytes.get(k..at).unwrap_or(&[]);
    if word.len() == 1 {
        return false;
    }
    let lower: Vec<u8> = word.iter().map(u8::to_ascii_lowercase).collect();
    !ABBREVIATIONS.iter().any(|abbreviation| abbreviation.as_bytes() == lower.as_slice())
}

/// The top-level parentheticals of `text`, in order, each from its `(` to just past its `)`. An
/// unclosed parenthesis runs to the end of its line.
pub(crate) fn parentheticals(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut open = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    open = i;
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    found.push(open..i + 1);
                }
            }
            _ => {}
        }
    }
    if depth > 0 {
        let end = text.get(open..).and_then(|rest| rest.find('\n')).map_or(text.len(), |i| open + i);
        found.push(open..end);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::tables::is_page_furniture;
    use super::*;

    #[test]
    fn clauses_end_at_semicolons_enumerators_and_sentence_ends_but_not_abbreviations() {
        let text =
            "(a) in relation to Facility A, 15 March 2029; and (b) in relation to Facility B, Acme Inc. pays. Next";
        let pos = text.find("15 March").expect("present");
        assert_eq!(&text[clause_around(text, pos)], "(a) in relation to Facility A, 15 March 2029");
        let pos = text.find("Acme").expect("present");
        assert_eq!(&text[clause_around(text, pos)], "(b) in relation to Facility B, Acme Inc. pays");
    }

    #[test]
    fn a_sentence_read_for_a_list_runs_over_blank_lines_and_page_breaks() {
        let text = "Recitals end here. The margin shall be:\n\n(i) 1.00% if it is low;\n\n  7\n<PAGE>\n\n(ii) 2.00% if \
            it is high. Next sentence.";
        let pos = text.find("(ii)").expect("present");
        let start = sentence_start_before(text, pos, 500);
        let end = sentence_end_after(text, pos, 500);
        assert_eq!(
            &text[start..end],
            " The margin shall be:\n\n(i) 1.00% if it is low;\n\n  7\n<PAGE>\n\n(ii) 2.00% if it is high."
        );
        assert!(is_page_furniture("  7") && is_page_furniture("<PAGE>") && is_page_furniture("   - 12 -"));
        assert!(!is_page_furniture("(ii) 2.00%"));
    }

    #[test]
    fn a_figure_restating_number_words_is_not_an_enumerator() {
        let text = "means one hundred fifty (150) basis points over Libor; (b) next";
        let pos = text.find("over").expect("present");
        assert_eq!(&text[clause_around(text, pos)], "means one hundred fifty (150) basis points over Libor");
        let text = "the following: (2) a list item";
        let pos = text.find("list").expect("present");
        assert_eq!(&text[clause_around(text, pos)], "(2) a list item");
    }
}
