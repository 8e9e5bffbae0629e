//! Text plumbing shared by the extractors: pattern compilation, `char`-boundary-safe windows,
//! clause boundaries, table rows, and the one-pass index of definitions, labels and headings.
//!
//! Everything here works on byte offsets into the original text, never on a normalised copy, so
//! that every span the extractors produce quotes the input exactly.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::number_words::is_number_word;

/// Compiles one of the engine's constant patterns. `\b` is rewritten to the ASCII word boundary:
/// the Unicode one makes the regex crate leave its DFA on non-ASCII input (curly quotes are in
/// every agreement), which would cost an order of magnitude in throughput.
pub(crate) fn pattern(source: &str) -> Regex {
    let ascii_boundaries = source.replace(r"\b", r"(?-u:\b)");
    Regex::new(&ascii_boundaries).unwrap_or_else(|error| panic!("extraction pattern {source:?} must compile: {error}"))
}

/// The largest `char` boundary at or below `index` (clamped to the text).
pub(crate) fn floor_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest `char` boundary at or above `index` (clamped to the text).
pub(crate) fn ceil_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// `text[range]`, or `""` when the range is not a valid slice.
pub(crate) fn slice(text: &str, range: Range<usize>) -> &str {
    text.get(range).unwrap_or("")
}

/// The range with surrounding whitespace removed.
pub(crate) fn trim_range(text: &str, range: Range<usize>) -> Range<usize> {
    let piece = slice(text, range.clone());
    let start = range.start + (piece.len() - piece.trim_start().len());
    let end = start + piece.trim().len();
    start..end.max(start)
}

/// The range with surrounding whitespace and the given trailing punctuation removed.
pub(crate) fn trim_range_and(text: &str, range: Range<usize>, trailing: &[char]) -> Range<usize> {
    let trimmed = trim_range(text, range);
    let piece = slice(text, trimmed.clone());
    let kept = piece.trim_end_matches(|c: char| c.is_whitespace() || trailing.contains(&c));
    trimmed.start..trimmed.start + kept.len()
}

/// Up to `max` bytes of text before `pos`, as an absolute range.
pub(crate) fn before(text: &str, pos: usize, max: usize) -> Range<usize> {
    let pos = floor_boundary(text, pos);
    ceil_boundary(text, pos.saturating_sub(max))..pos
}

/// Up to `max` bytes of text after `pos`, as an absolute range.
pub(crate) fn after(text: &str, pos: usize, max: usize) -> Range<usize> {
    let pos = ceil_boundary(text, pos);
    pos..floor_boundary(text, pos.saturating_add(max))
}

/// The line containing `pos`, if it is at most `max` bytes long on either side of `pos`. Bounded
/// so that looking up the lines of many positions stays linear.
pub(crate) fn line_around(text: &str, pos: usize, max: usize) -> Option<Range<usize>> {
    let back = before(text, pos, max);
    let start = match slice(text, back.clone()).rfind('\n') {
        Some(i) => back.start + i + 1,
        None if back.start == 0 => 0,
        None => return None,
    };
    let ahead = after(text, pos, max);
    let end = match slice(text, ahead.clone()).find('\n') {
        Some(i) => ahead.start + i,
        None if ahead.end == text.len() => text.len(),
        None => return None,
    };
    let end = if slice(text, start..end).ends_with('\r') { end - 1 } else { end };
    Some(start..end.max(start))
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

/// The cells of one table line: split on `|`, tabs, or runs of two or more spaces, each cell
/// trimmed and given as an absolute range.
pub(crate) fn table_cells(text: &str, line: Range<usize>) -> Vec<Range<usize>> {
    let content = slice(text, line.clone());
    let bytes = content.as_bytes();
    let piped = content.contains('|');
    let mut cells = Vec::new();
    let mut cell_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let separator_len = match bytes.get(i).copied() {
            Some(b'|') if piped => 1,
            Some(b'\t') if !piped => 1,
            Some(b' ') if !piped && bytes.get(i + 1) == Some(&b' ') => {
                let mut k = i;
                while bytes.get(k) == Some(&b' ') {
                    k += 1;
                }
                k - i
            }
            _ => 0,
        };
        if separator_len > 0 {
            push_cell(text, line.start + cell_start..line.start + i, &mut cells);
            i += separator_len;
            cell_start = i;
        } else {
            i += 1;
        }
    }
    push_cell(text, line.start + cell_start..line.end, &mut cells);
    cells
}

fn push_cell(text: &str, range: Range<usize>, cells: &mut Vec<Range<usize>>) {
    let trimmed = trim_range(text, range);
    if !trimmed.is_empty() {
        cells.push(trimmed);
    }
}

/// A plain-text table: an optional header row and the data rows, each a list of cell ranges.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub header: Option<Vec<Range<usize>>>,
    /// Lines of a header wrapped over several lines, above `header` (its last line), top first.
    pub header_above: Vec<Vec<Range<usize>>>,
    pub rows: Vec<Vec<Range<usize>>>,
    /// From the first row to the end of the last.
    pub range: Range<usize>,
}

/// How far after its introduction a table is looked for, and how long it may run.
const MAX_TABLE: usize = 5000;
/// Prose lines tolerated between a table's introduction and its first row.
const MAX_LEAD_LINES: usize = 6;
/// The most rows a table is read for.
const MAX_ROWS: usize = 40;

/// The table starting after `start`: rows are lines of two or more cells; a row with no value cell
/// (per `is_value`) before any data row is the header. Prose before the table is skipped, and the
/// table ends at the first prose line or the second consecutive blank line after it starts.
pub(crate) fn table_after(text: &str, start: usize, is_value: impl Fn(&str) -> bool) -> Option<Table> {
    read_table(text, start, &is_value, false)
}

/// Like [`table_after`], for tables typed the way 1990s filings type them: a header wrapped over
/// consecutive lines ("Then / Applicable / Margin is"), a row whose condition wraps onto the next
/// line ("> or = 1.75 : 1 … 2.25%" then "and < 2.50 : 1"), and a first row, set off from the header
/// by a blank line, that states no figure ("Below 0  Prime Rate"). Such a row is kept; a wrapped
/// continuation line is part of the row above it and is not a row of its own.
pub(crate) fn wrapped_table_after(text: &str, start: usize, is_value: impl Fn(&str) -> bool) -> Option<Table> {
    read_table(text, start, &is_value, true)
}

fn read_table(text: &str, start: usize, is_value: &dyn Fn(&str) -> bool, wrapped: bool) -> Option<Table> {
    let end = floor_boundary(text, start.saturating_add(MAX_TABLE));
    let mut header: Option<Vec<Range<usize>>> = None;
    let mut header_above: Vec<Vec<Range<usize>>> = Vec::new();
    let mut rows: Vec<Vec<Range<usize>>> = Vec::new();
    let mut first: Option<usize> = None;
    let mut last = start;
    let mut blank_run = 0;
    let mut lead_lines = 0;
    // Whether the previous line was part of the table (a header or row line), with no blank
    // line since.
    let mut previous_in_table = false;
    for line in lines_in(text, start..end) {
        let content = slice(text, line.clone());
        if content.trim().is_empty() {
            blank_run += 1;
            previous_in_table = false;
            if blank_run > 1 && first.is_some() {
                break;
            }
            continue;
        }
        blank_run = 0;
        if content.trim().chars().all(|c| matches!(c, '-' | '=' | '|' | '+' | '_' | ' ' | '\t' | ':'))
            || is_edgar_markup(content)
        {
            continue;
        }
        let cells = table_cells(text, line.clone());
        if wrapped && cells.len() == 1 && previous_in_table {
            // One cell of a wrapped header, or of a row wrapped onto the next line.
            if rows.is_empty() {
                if let Some(above) = header.take() {
                    header_above.push(above);
                }
                header = Some(cells);
            }
            last = line.end;
            continue;
        }
        if cells.len() < 2 {
            if first.is_some() {
                break;
            }
            lead_lines += 1;
            if lead_lines > MAX_LEAD_LINES {
                return None;
            }
            continue;
        }
        let has_value = cells.iter().any(|cell| is_value(slice(text, cell.clone())));
        let has_data = rows.iter().any(|row| row.iter().any(|cell| is_value(slice(text, cell.clone()))));
        if has_value {
            rows.push(cells);
        } else if wrapped && previous_in_table && !rows.is_empty() {
            // The row above wraps onto this line.
        } else if wrapped && header.is_some() && !has_data && !previous_in_table {
            rows.push(cells);
        } else if rows.is_empty() {
            if wrapped
                && previous_in_table
                && let Some(above) = header.take()
            {
                header_above.push(above);
            } else {
                header_above.clear();
            }
            header = Some(cells);
        } else {
            break;
        }
        previous_in_table = true;
        first.get_or_insert(line.start);
        last = line.end;
        if rows.len() >= MAX_ROWS {
            break;
        }
    }
    let first = first?;
    let any_value = rows.iter().any(|row| row.iter().any(|cell| is_value(slice(text, cell.clone()))));
    any_value.then_some(Table { header, header_above, rows, range: first..last })
}

/// EDGAR's plain-text filings mark up tables and page breaks with SGML tags on lines of their own
/// (`<TABLE>`, `<CAPTION>`, the column markers `<S>  <C>  <C>`, `<PAGE>  8`): layout, not content.
fn is_edgar_markup(line: &str) -> bool {
    let mut tokens = line.split_whitespace().peekable();
    let Some(first) = tokens.peek().copied() else { return false };
    let tag = |token: &str| {
        matches!(
            token.to_ascii_uppercase().as_str(),
            "<TABLE>" | "</TABLE>" | "<CAPTION>" | "</CAPTION>" | "<S>" | "<C>"
        )
    };
    if first.eq_ignore_ascii_case("<PAGE>") {
        return line.split_whitespace().skip(1).all(|t| t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }
    tokens.all(tag)
}

/// Whether a line is page furniture of a plain-text filing rather than text: blank, a page number
/// ("3", "- 3 -"), or EDGAR's page tag (`<PAGE>  8`).
pub(crate) fn is_page_furniture(line: &str) -> bool {
    let trimmed = line.trim();
    let page_number = trimmed.trim_matches(['-', ' ']);
    trimmed.is_empty()
        || is_edgar_markup(trimmed)
        || (!page_number.is_empty() && page_number.len() <= 4 && page_number.bytes().all(|b| b.is_ascii_digit()))
}

/// The lines of `range`, without their line terminators.
pub(crate) fn lines_in(text: &str, range: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let base = range.start;
    slice(text, range).split('\n').scan(base, |offset, line| {
        let start = *offset;
        *offset += line.len() + 1;
        let end = start + line.trim_end_matches('\r').len();
        Some(start..end)
    })
}

/// A defined term and the body that defines it: `"Maturity Date" means March 15, 2029.`
#[derive(Clone, Debug)]
pub(crate) struct Definition {
    /// The term without its quotes.
    pub term: Range<usize>,
    /// The term in lower case with single spaces, for matching.
    pub key: String,
    /// From after `means` to the next definition or heading.
    pub body: Range<usize>,
}

/// A `Label: value` line of a term sheet; the value runs on to continuation lines.
#[derive(Clone, Debug)]
pub(crate) struct Label {
    /// The label without its colon.
    pub name: Range<usize>,
    /// The name in lower case with single spaces, for matching.
    pub key: String,
    /// The value, trimmed.
    pub value: Range<usize>,
}

/// A line opening a definition: `"Maturity Date" means …`, and the form an amendment restates a
/// definition in, the term in single quotes inside the double quotes that open the restated text
/// (`"'Final Maturity Date' means …"`).
static DEFINITION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"^[ \t]*(?:\([a-z0-9]{1,4}\)[ \t]*(?:\|[ \t]*)?)?["“](?:['‘](?P<restated>[^'’"”]{1,120})['’]|(?P<term>[^"”]{1,120})["”])[ \t]*(?:\([^)]{0,80}\)[ \t]*)?(?:(?:means|shall mean|has the meaning)\b[ \t]*:?|:[ \t])"#,
    )
});

static HEADING_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:ARTICLE\b|Article[ \t]+[0-9IVXL]+\b|SECTION[ \t]+[0-9]|Section[ \t]+[0-9]+\.[0-9]+|SCHEDULE\b|Schedule[ \t]+[0-9]+[ \t]*$|[0-9]{1,2}\.[ \t]+[A-Z])",
    )
});

/// Where a definition line opens a definition, found while scanning.
struct DefinitionStart {
    /// The start of the line.
    line: usize,
    term: Range<usize>,
    /// Just after `means`.
    body: usize,
    /// Restated inside an amendment's quotes (`"'Term' means …"`).
    restated: bool,
}

/// The longest a definition body may run when no later definition or heading ends it.
const MAX_DEFINITION: usize = 6000;
/// The longest a label value may run onto continuation lines.
const MAX_LABEL: usize = 1500;

/// The one-pass index of a document's structure: definitions, labels and top-level headings,
/// in text order.
#[derive(Debug)]
pub(crate) struct Structure {
    pub definitions: Vec<Definition>,
    pub labels: Vec<Label>,
    pub headings: Vec<usize>,
}

impl Structure {
    /// Reads the text line by line. Only lines whose first character could open a definition, a
    /// heading or a label are matched against the (line-anchored) patterns, which keeps the pass
    /// close to the speed of finding the line ends.
    pub(crate) fn scan(text: &str) -> Self {
        let mut headings = Vec::new();
        let mut definition_starts: Vec<DefinitionStart> = Vec::new();
        let mut label_lines: Vec<(Range<usize>, Range<usize>, usize)> = Vec::new();
        for line in lines_in(text, 0..text.len()) {
            let content = slice(text, line.clone());
            let indent = content.len() - content.trim_start_matches([' ', '\t']).len();
            let Some(first) = content.as_bytes().get(indent).copied() else { continue };
            if matches!(first, b'"' | b'(' | 0xE2)
                && let Some(c) = DEFINITION_LINE.captures(content)
                && let Some(whole) = c.get(0)
                && let Some((term, restated)) =
                    c.name("term").map(|t| (t, false)).or_else(|| c.name("restated").map(|t| (t, true)))
            {
                definition_starts.push(DefinitionStart {
                    line: line.start,
                    term: line.start + term.start()..line.start + term.end(),
                    body: line.start + whole.end(),
                    restated,
                });
                continue;
            }
            if (first.is_ascii_digit() || matches!(first, b'A' | b'S')) && HEADING_LINE.is_match(content) {
                headings.push(line.start + indent);
            }
            if first.is_ascii_uppercase()
                && let Some((name, value_start)) = label_parts(content, indent)
            {
                label_lines.push((
                    line.clone(),
                    line.start + name.start..line.start + name.end,
                    line.start + value_start,
                ));
            }
        }
        let mut definitions = Vec::with_capacity(definition_starts.len());
        for (index, start) in definition_starts.iter().enumerate() {
            let body_start = start.body;
            let next_definition = definition_starts.get(index + 1).map_or(text.len(), |next| next.line);
            let next_heading = next_after(&headings, body_start).unwrap_or(text.len());
            let mut end = next_definition.min(next_heading).min(body_start.saturating_add(MAX_DEFINITION));
            end = floor_boundary(text, end).max(body_start);
            if start.restated {
                // The restated text ends where the double quotes opened before the term close;
                // what follows is the amendment's own text ("… 0% per annum." (b) Section 2.1 …).
                if let Some(close) = slice(text, body_start..end).find(['"', '”']) {
                    end = body_start + close;
                }
            }
            let key = normalise_label(slice(text, start.term.clone()));
            definitions.push(Definition { term: start.term.clone(), key, body: trim_range(text, body_start..end) });
        }
        let mut labels = Vec::with_capacity(label_lines.len());
        for (index, (line, name, value_start)) in label_lines.iter().enumerate() {
            let next_label = label_lines.get(index + 1).map_or(text.len(), |(next, _, _)| next.start);
            let limit = floor_boundary(text, value_start.saturating_add(MAX_LABEL)).max(line.end);
            let blank_line = slice(text, line.end..limit).find("\n\n").map_or(limit, |i| line.end + i);
            let end = next_label.min(blank_line).min(limit);
            let end = floor_boundary(text, end).max(*value_start);
            let key = normalise_label(slice(text, name.clone()));
            labels.push(Label { name: name.clone(), key, value: trim_range(text, *value_start..end) });
        }
        Self { definitions, labels, headings }
    }

    /// The definition whose body contains `pos`.
    pub(crate) fn definition_at(&self, pos: usize) -> Option<&Definition> {
        let index = self.definitions.partition_point(|d| d.body.start <= pos);
        let candidate = self.definitions.get(index.checked_sub(1)?)?;
        (candidate.body.start <= pos && pos < candidate.body.end).then_some(candidate)
    }

    /// The label whose value contains `pos`.
    pub(crate) fn label_at(&self, pos: usize) -> Option<&Label> {
        let index = self.labels.partition_point(|l| l.value.start <= pos);
        let candidate = self.labels.get(index.checked_sub(1)?)?;
        (candidate.value.start <= pos && pos < candidate.value.end).then_some(candidate)
    }

    /// Definitions whose normalised term (lower case, single spaces) satisfies `accept`.
    pub(crate) fn definitions_where<'s>(
        &'s self,
        accept: impl Fn(&str) -> bool + 's,
    ) -> impl Iterator<Item = &'s Definition> + 's {
        self.definitions.iter().filter(move |d| accept(&d.key))
    }

    /// Labels whose normalised name (lower case, single spaces) satisfies `accept`.
    pub(crate) fn labels_where<'s>(
        &'s self,
        accept: impl Fn(&str) -> bool + 's,
    ) -> impl Iterator<Item = &'s Label> + 's {
        self.labels.iter().filter(move |l| accept(&l.key))
    }

    /// The first heading after `pos`.
    pub(crate) fn next_heading_after(&self, pos: usize) -> Option<usize> {
        next_after(&self.headings, pos)
    }
}

/// `Label: value` on one line: the label's range and where the value starts, both relative to the
/// line. A label is 2 to 60 characters of words and simple punctuation starting with a capital.
fn label_parts(line: &str, indent: usize) -> Option<(Range<usize>, usize)> {
    let head = line.get(indent..line.len().min(indent + 64))?;
    let colon = head.find(':')?;
    let name = head.get(..colon)?.trim_end_matches([' ', '\t']);
    let well_formed = name.len() >= 2
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || " /&'’().,-".contains(c));
    if !well_formed {
        return None;
    }
    let after_colon = indent + colon + 1;
    let rest = line.get(after_colon..)?;
    let value_offset = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest.trim().is_empty() {
        return None;
    }
    Some((indent..indent + name.len(), after_colon + value_offset))
}

fn next_after(sorted: &[usize], pos: usize) -> Option<usize> {
    let index = sorted.partition_point(|&p| p <= pos);
    sorted.get(index).copied()
}

/// A label name in lower case with single spaces, for matching.
pub(crate) fn normalise_label(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Items with a byte range, kept sorted by start so ranges can be looked up by binary search.
pub(crate) trait Located {
    fn location(&self) -> Range<usize>;
}

/// The items of a start-sorted slice that lie entirely within `range`.
pub(crate) fn within<T: Located>(items: &[T], range: Range<usize>) -> &[T] {
    let first = items.partition_point(|item| item.location().start < range.start);
    let rest = items.get(first..).unwrap_or(&[]);
    let count = rest.partition_point(|item| item.location().start < range.end);
    let candidates = rest.get(..count).unwrap_or(&[]);
    let fitting = candidates.iter().take_while(|item| item.location().end <= range.end).count();
    // Items are sorted by start, not end: an item that overruns the range ends the run, which only
    // happens for the last candidate since located items never overlap.
    candidates.get(..fitting).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
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
    fn windows_never_split_a_character() {
        let text = "€€€€";
        let window = before(text, 7, 4);
        assert!(text.get(window.clone()).is_some(), "{window:?}");
        let window = after(text, 1, 4);
        assert!(text.get(window).is_some());
    }

    #[test]
    fn table_cells_split_on_pipes_tabs_and_wide_spaces() {
        let text = "Level I  |  > 3.50:1.00 | 2.25%";
        let cells: Vec<&str> = table_cells(text, 0..text.len()).into_iter().map(|r| &text[r]).collect();
        assert_eq!(cells, ["Level I", "> 3.50:1.00", "2.25%"]);
        let text = "Level II     >= 3.00:1.00     2.00%";
        let cells: Vec<&str> = table_cells(text, 0..text.len()).into_iter().map(|r| &text[r]).collect();
        assert_eq!(cells, ["Level II", ">= 3.00:1.00", "2.00%"]);
    }

    #[test]
    fn definitions_run_to_the_next_definition() {
        let text = "\"Floor\" means 0.00%.\n\n\"Maturity Date\" means March 15, 2029.\n";
        let structure = Structure::scan(text);
        let bodies: Vec<&str> = structure.definitions.iter().map(|d| &text[d.body.clone()]).collect();
        assert_eq!(bodies, ["0.00%.", "March 15, 2029."]);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Floor", "Maturity Date"]);
    }

    #[test]
    fn a_term_followed_by_a_colon_is_defined_as_in_some_us_forms() {
        let text = "\u{201c}Applicable Margin\u{201d}: with respect to each Loan, 1.00%.\n\n\u{201c}Maturity Date\u{201d}: (i) March 1, 2027 or (ii) such later date.\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Applicable Margin", "Maturity Date"]);
        assert!(text[structure.definitions[1].body.clone()].starts_with("(i) March 1, 2027"));
    }

    #[test]
    fn an_amendment_restating_a_definition_in_nested_quotes_defines_the_term() {
        let text = "(c) \"Termination Date\" shall be amended to read as follows:\n\n     \"'Termination Date' shall mean \
            June 30, 2001; provided that the Borrower may request an extension.\"\n\n(d) Section 2.4 is amended by \
            deleting \"May 1, 1999\".\n\n     \u{201c}\u{2018}Revolving Margin\u{2019} means 0.50%.\u{201d}\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Termination Date", "Revolving Margin"]);
        assert_eq!(
            &text[structure.definitions[0].body.clone()],
            "June 30, 2001; provided that the Borrower may request an extension.",
            "the restated text ends with its closing quote, not with the amendment's next instruction"
        );
        assert_eq!(&text[structure.definitions[1].body.clone()], "0.50%.");
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
    fn a_definition_in_a_lettered_table_row_is_a_definition() {
        let text = "(d) | \u{201c}Issue Date\u{201d} shall mean June 1, 2023.\n(e) | \u{201c}Maturity Date\u{201d} shall mean June 1, 2025.\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Issue Date", "Maturity Date"]);
    }

    #[test]
    fn capitalisable_phrases_match_the_three_usual_casings_only() {
        let re = pattern(&capitalisable("commitment fee"));
        for text in ["commitment fee", "Commitment Fee", "COMMITMENT FEE", "Commitment\n  fee"] {
            assert!(re.is_match(text), "{text}");
        }
        assert!(!re.is_match("cOMMITMENT fEE"));
    }

    #[test]
    fn a_line_is_found_only_when_short_enough() {
        let text = "first\nsecond line\nthird";
        assert_eq!(line_around(text, 9, 50).map(|r| &text[r]), Some("second line"));
        assert_eq!(line_around(text, 9, 3), None);
    }

    #[test]
    fn labels_carry_their_continuation_lines() {
        let text = "Borrower: Zenith Logistics Corp.\nFacility: A senior secured\n  bridge facility.\n\nOther text";
        let structure = Structure::scan(text);
        let values: Vec<&str> = structure.labels.iter().map(|l| &text[l.value.clone()]).collect();
        assert_eq!(values, ["Zenith Logistics Corp.", "A senior secured\n  bridge facility."]);
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

    #[test]
    fn words_of_a_phrase_match_across_a_line_break() {
        let re = any_word(&["in excess of"]);
        assert!(re.is_match("an amount in\n     excess of $1,000,000"));
        assert!(!re.is_match("an amount inexcess of"));
    }

    #[test]
    fn a_wrapped_table_joins_its_header_lines_and_skips_wrapped_rows() {
        let text = "Ratio          Then\n               Margin is\n\nBelow 0        Prime Rate\n< 1.75         2.50%\n> 1.75         2.25%\nand < 2.50     and more\n\n> 2.50         2.00%\n\nProse follows here.\n";
        let is_value = |cell: &str| cell.ends_with('%');
        let table = wrapped_table_after(text, 0, is_value).expect("table");
        assert_eq!(table.header_above.len(), 1);
        let firsts: Vec<&str> = table.rows.iter().map(|row| &text[row[0].clone()]).collect();
        assert_eq!(firsts, ["Below 0", "< 1.75", "> 1.75", "> 2.50"]);
        assert!(table_after(text, 0, is_value).is_none(), "the plain reading stops at the wrapped header");
    }
    #[test]
    fn edgar_table_markup_and_page_breaks_are_not_rows() {
        let text = "the margin set forth below opposite the rating\n<PAGE>   12\n\nof the Borrower:\n\n<TABLE>\n<CAPTION>\n                                        APPLICABLE\n     RATING                             MARGIN\n     ------                             ------\n<S>  <C>                                <C>\n     A or above                         1.00%\n     BBB                                1.25%\n</TABLE>\n\nProse follows here.\n";
        let is_value = |cell: &str| cell.ends_with('%');
        let table = wrapped_table_after(text, 0, is_value).expect("table");
        let header: Vec<&str> = table.header.iter().flatten().map(|cell| &text[cell.clone()]).collect();
        assert_eq!(header, ["RATING", "MARGIN"]);
        let firsts: Vec<&str> = table.rows.iter().map(|row| &text[row[0].clone()]).collect();
        assert_eq!(firsts, ["A or above", "BBB"]);
    }
}
