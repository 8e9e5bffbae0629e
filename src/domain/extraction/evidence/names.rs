//! Rule 3: a party's name is whole. A name cut where a line or page breaks inside it ("WELLS" at
//! the end of one line, "FARGO BANK, N.A., as Administrative Agent" on the next) is the end of a
//! longer name, and its roles belong to a party this reading does not name. The stated name is
//! the end of a longer one when the words just before it continue it:
//!
//! - on its own line (the reader stopped short);
//! - across a page break — blank lines around a page number, an EDGAR page tag or a running head
//!   that the document repeats on its pages: a page break does not end a name;
//! - across one line break, when the line above holds only the name's first word, or the
//!   document prints the longer name whole somewhere else (cover pages list names one per line,
//!   so a longer line above may be another name);
//!
//! or when, anywhere else, the document prints the stated name with more of it before it on
//! the same line ("WELLS FARGO BANK, N.A." on the signature pages). Words that cannot continue a
//! name stop the reading: punctuation, list words ("and", "among"), role and class words
//! ("Agent", "Lenders", "AGREEMENT", "PARTY HERETO"), signatories' titles, a line that ends with a
//! whole name, a table row, a paragraph break, and words printed in another case ("Treasurer"
//! does not continue "BANK OF AMERICA, N.A.").
//!
//! A name is also not stated as printed when one of its words appears only there while the
//! document prints it elsewhere with a doubled letter undone ("SUISSSE" / "Suisse"): a misprint.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;

use crate::domain::extraction::document::Document;
use crate::domain::extraction::parties::names::{NAME, STOP_WORDS, continues_a_name, is_role_word_name};
use crate::domain::extraction::text::{is_page_furniture, lines_in, slice};

/// A running head or foot repeats on every page; this many times marks one.
const RUNNING_HEAD_REPEATS: usize = 3;
/// Running heads are short lines.
const MAX_RUNNING_HEAD: usize = 80;
/// How many words before a name are read for more of it.
const MAX_LEADING_WORDS: usize = 4;
/// How many lines a page break may take (blank lines, page numbers, tags, running heads).
const MAX_BREAK_LINES: usize = 8;
/// How many other places a name is looked up in.
const MAX_OTHER_MENTIONS: usize = 200;

/// How a document is printed: the short lines it repeats on its pages (running heads and feet,
/// which a page break puts between the words of a name), and its text in lower case, for finding
/// where it prints a name. A line of list or role words ("and" between the names of a cover
/// page) is not a running head.
pub(super) struct Printing<'t> {
    running_heads: HashMap<&'t str, usize>,
    lower: String,
    /// Where the text prints each word (run of ASCII letters and digits), in lower case, in text
    /// order: found once, when a name is first checked, instead of a search of the whole text for
    /// each word of each name (its count is a misprint check's) and for each name a party is
    /// stated under (its places are where that name may be printed).
    words: OnceCell<HashMap<String, Vec<usize>>>,
}

impl<'t> Printing<'t> {
    pub(super) fn of(text: &'t str) -> Self {
        let mut counts: HashMap<&'t str, usize> = HashMap::new();
        for line in lines_in(text, 0..text.len()) {
            let content = slice(text, line).trim();
            if !content.is_empty() && content.len() <= MAX_RUNNING_HEAD {
                *counts.entry(content).or_default() += 1;
            }
        }
        counts.retain(|line, count| {
            *count >= RUNNING_HEAD_REPEATS
                && !is_role_word_name(line)
                && !STOP_WORDS.iter().any(|w| w.eq_ignore_ascii_case(line))
        });
        // ASCII lower case keeps every byte offset.
        Self { running_heads: counts, lower: text.to_ascii_lowercase(), words: OnceCell::new() }
    }

    fn is_running_head(&self, line: &str) -> bool {
        self.running_heads.contains_key(line.trim())
    }

    /// Where the text prints `words` with single spaces between them, ignoring ASCII case, from
    /// the start of a word.
    fn prints<'s>(&'s self, words: &str) -> impl Iterator<Item = Range<usize>> + 's {
        let needle = words.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase();
        let first_word_len = needle.bytes().take_while(u8::is_ascii_alphanumeric).count();
        let starts: Vec<usize> = if needle.is_empty() {
            Vec::new()
        } else if first_word_len == 0 || first_word_len == needle.len() {
            // A needle of one word may be the start of a longer printed word: search the text.
            let bytes = self.lower.as_bytes();
            self.lower
                .match_indices(&needle)
                .map(|(i, _)| i)
                .filter(|&i| i == 0 || bytes.get(i - 1).is_some_and(|b| !b.is_ascii_alphanumeric()))
                .collect()
        } else {
            // The needle's first word ends where the needle goes on, so it is printed whole
            // there: only the places of that word can start it. Matches do not overlap, as a
            // search of the text finds them.
            let mut starts = Vec::new();
            let mut free_from = 0;
            for &at in self.word_places().get(&needle[..first_word_len]).map_or(&[][..], Vec::as_slice) {
                if at >= free_from && self.lower.get(at..).is_some_and(|rest| rest.starts_with(&needle)) {
                    starts.push(at);
                    free_from = at + needle.len();
                }
            }
            starts
        };
        let len = needle.len();
        starts.into_iter().map(move |start| start..start + len)
    }
}

impl Printing<'_> {
    /// How many times, up to `limit`, the text prints `word` (ASCII letters and digits) as a whole
    /// word, ignoring ASCII case.
    fn word_count(&self, word: &str, limit: usize) -> usize {
        self.word_places().get(word.to_ascii_lowercase().as_str()).map_or(0, |places| places.len().min(limit))
    }

    /// Where the text prints each word, in lower case (see [`Printing::words`]).
    fn word_places(&self) -> &HashMap<String, Vec<usize>> {
        self.words.get_or_init(|| {
            let mut words: HashMap<String, Vec<usize>> = HashMap::new();
            let bytes = self.lower.as_bytes();
            let mut start = None;
            for (at, byte) in bytes.iter().enumerate().chain(std::iter::once((bytes.len(), &b' '))) {
                match (byte.is_ascii_alphanumeric(), start) {
                    (true, None) => start = Some(at),
                    (false, Some(from)) => {
                        start = None;
                        let printed = self.lower.get(from..at).unwrap_or_default();
                        match words.get_mut(printed) {
                            Some(places) => places.push(from),
                            None => {
                                words.insert(printed.to_owned(), vec![from]);
                            }
                        }
                    }
                    _ => {}
                }
            }
            words
        })
    }
}

/// The shortest word a misprint is looked for in: short words ("AG", "N.A.") repeat too often by
/// chance to tell a misprint.
const MIN_MISPRINTED_WORD: usize = 5;

/// A word of the stated name that the document prints only there, while it prints the same word
/// with one doubled letter undone elsewhere ("SUISSSE" once, "Suisse" in the schedules): the name
/// is misprinted where it is stated, and the party it names is not that name. Returns the word as
/// stated and as printed elsewhere.
pub(super) fn misprinted_word(printing: &Printing<'_>, name: &str) -> Option<(String, String)> {
    for word in name.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| w.len() >= MIN_MISPRINTED_WORD) {
        if printing.word_count(word, 2) != 1 {
            continue;
        }
        let chars: Vec<char> = word.chars().collect();
        for i in 1..chars.len() {
            if !chars[i].eq_ignore_ascii_case(&chars[i - 1]) {
                continue;
            }
            let undone: String = chars.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| *c).collect();
            if printing.word_count(&undone, 1) == 1 {
                return Some((word.to_owned(), undone));
            }
        }
    }
    None
}

/// What separates a name from the words before it that continue it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gap {
    Space,
    LineBreak,
    PageBreak,
}

/// Where the words that continue a name start and end, and what separates them from it.
struct Continuation {
    words: Range<usize>,
    gap: Gap,
    longer: String,
}

/// The first words of the longer name the name stated at `span` is the end of, when the
/// document shows one.
pub(super) fn longer_name(doc: &Document<'_>, printing: &Printing<'_>, span: Range<usize>) -> Option<Range<usize>> {
    if let Some(found) = continuation(doc, printing, span.clone()) {
        let shown = match found.gap {
            Gap::Space | Gap::PageBreak => true,
            Gap::LineBreak => lone_first_word(doc, &found.words) || printing.prints(&found.longer).next().is_some(),
        };
        if shown {
            return Some(found.words);
        }
    }
    printing
        .prints(doc.slice(span.clone()))
        .take(MAX_OTHER_MENTIONS)
        .filter(|mention| mention.start != span.start)
        .filter_map(|mention| continuation(doc, printing, mention))
        .find(|found| found.gap == Gap::Space)
        .map(|found| found.words)
}

/// Whether `words` are one word alone on their line ("WELLS" above "FARGO BANK, N.A."): the
/// first word of a name wrapped onto the next line, since a name of one word is a bank's own
/// ("CITIBANK", "RABOBANK") and those are not read as continuing.
fn lone_first_word(doc: &Document<'_>, words: &Range<usize>) -> bool {
    let word = doc.slice(words.clone());
    let line_start = doc.slice(0..words.start).rfind('\n').map_or(0, |i| i + 1);
    let alone = doc.slice(line_start..words.start).trim().is_empty() && !word.contains(char::is_whitespace);
    alone && !word.to_ascii_lowercase().ends_with("bank")
}

/// The capitalised words just before `name` that, with it, make one longer name.
fn continuation(doc: &Document<'_>, printing: &Printing<'_>, name: Range<usize>) -> Option<Continuation> {
    let (lead, gap) = leading_words(doc, printing, name.start);
    let stated = doc.slice(name);
    for first in 0..lead.len() {
        let words: Vec<&str> = lead[first..].iter().map(|w| doc.slice(w.clone())).collect();
        // A name is printed in one style: "WELLS" continues "FARGO BANK, N.A.", "Treasurer"
        // does not continue "BANK OF AMERICA, N.A.".
        if words.iter().any(|w| is_upper_case(w) != is_upper_case(stated)) {
            continue;
        }
        let longer = format!("{} {stated}", words.join(" "));
        let prefix_len = longer.len() - stated.len();
        if NAME.find(&longer).is_some_and(|m| m.start() == 0 && m.end() > prefix_len) {
            let words = lead[first].start..lead[lead.len() - 1].end;
            return Some(Continuation { words, gap, longer });
        }
    }
    None
}

/// Up to [`MAX_LEADING_WORDS`] name-like words before `pos`, in text order, and what separates
/// them from it: words on its line, or at the end of the line before (see [`line_above`]).
fn leading_words(doc: &Document<'_>, printing: &Printing<'_>, pos: usize) -> (Vec<Range<usize>>, Gap) {
    let mut words = Vec::new();
    let mut end = pos;
    let mut gap = Gap::Space;
    while words.len() < MAX_LEADING_WORDS {
        let trimmed = doc.slice(0..end).trim_end_matches([' ', '\t']);
        if trimmed.ends_with(['\n', '\r']) {
            // A name is cut by one break at most, and only between its words.
            if gap != Gap::Space || !words.is_empty() {
                break;
            }
            let Some((line, crossed)) = line_above(doc, printing, trimmed.len()) else { break };
            gap = crossed;
            end = line.end;
            continue;
        }
        let word_start = trimmed.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = doc.slice(word_start..trimmed.len());
        if word.is_empty() || !continues_a_name(word) {
            break;
        }
        words.push(word_start..trimmed.len());
        if word_start == 0 {
            break;
        }
        end = word_start;
    }
    words.reverse();
    (words, gap)
}

/// The line a name at the start of a line may continue from, given where that line starts: the
/// line just above (a wrapped line), or the last line before a page break. `None` when a
/// paragraph break, a table row or a whole name ends what comes before.
fn line_above(doc: &Document<'_>, printing: &Printing<'_>, line_start: usize) -> Option<(Range<usize>, Gap)> {
    let mut end = line_start;
    let mut blank = false;
    let mut page_break = false;
    for _ in 0..MAX_BREAK_LINES {
        let all = doc.slice(0..end);
        let before = all.trim_end_matches(['\n', '\r']);
        blank |= all.get(before.len()..).is_some_and(|breaks| breaks.matches('\n').count() > 1);
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = doc.slice(start..before.len());
        if line.trim().is_empty() {
            blank = true;
        } else if is_page_furniture(line) || printing.is_running_head(line) {
            page_break = true;
        } else {
            let gap = if page_break { Gap::PageBreak } else { Gap::LineBreak };
            let ends_name = line.contains('|') || line.contains('\t') || ends_with_a_name(line);
            // A paragraph break ends the name unless a page break made it.
            let continues = !blank || page_break;
            return (continues && !ends_name).then_some((start..before.len(), gap));
        }
        if start == 0 {
            return None;
        }
        end = start;
    }
    None
}

/// Whether the letters of `text` are all upper case.
fn is_upper_case(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase)
}

/// Whether `line` ends with a whole name.
fn ends_with_a_name(line: &str) -> bool {
    let line = line.trim_end();
    NAME.find_iter(line).any(|m| m.end() == line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every place, from the start of a word, the text prints `needle` ignoring case, without
    /// overlaps: what `prints` finds, by a plain search of the whole text.
    fn searched(text: &str, needle: &str) -> Vec<Range<usize>> {
        let lower = text.to_ascii_lowercase();
        let bytes = lower.as_bytes();
        lower
            .match_indices(&needle.to_ascii_lowercase())
            .map(|(i, _)| i)
            .filter(|&i| i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            .map(|i| i..i + needle.len())
            .collect()
    }

    #[test]
    fn a_name_is_found_where_the_text_prints_it_and_nowhere_else() {
        let text = "Bank of Ohio, N.A. signs. BANK OF OHIO, N.A., as Agent; the Banks of Ohio; SUPERBANK of Ohio; \
            bank of bank of bank of Ohio; Bank of Ohio";
        for needle in ["Bank of Ohio", "BANK OF OHIO, N.A.", "bank of bank of", "Banks", "Bank", "of Ohio", ", N.A."] {
            let found: Vec<Range<usize>> = Printing::of(text).prints(needle).collect();
            assert_eq!(found, searched(text, needle), "{needle}");
        }
        let found: Vec<Range<usize>> = Printing::of(text).prints("Bank   of\nOhio").collect();
        assert_eq!(found, searched(text, "Bank of Ohio"), "spaces and line breaks in a name are one space");
        assert_eq!(Printing::of(text).prints("bank of bank of").count(), 1, "matches do not overlap");
    }
}
