//! Plain text, and the decoding every text-bearing format shares: UTF-8 when the bytes are UTF-8
//! (a byte-order mark dropped), UTF-16 with a byte-order mark, otherwise windows-1252, the code
//! page of most older EDGAR filings (`0x92` is `’`), which decodes every byte.

use std::ops::Range;

use encoding_rs::{UTF_16BE, UTF_16LE, WINDOWS_1252};

use super::page_layout::{Geometry, Line, Word, wrapped_tables};

use crate::domain::intake::{ReadDocument, ReadError};

/// Decodes the bytes of a text or HTML file.
pub fn decode(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return String::from_utf8_lossy(rest).into_owned();
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return UTF_16LE.decode_without_bom_handling(rest).0.into_owned();
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return UTF_16BE.decode_without_bom_handling(rest).0.into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => WINDOWS_1252.decode_without_bom_handling(bytes).0.into_owned(),
    }
}

/// Reads a text file. EDGAR text filings mark their printed pages with `<PAGE>` lines: they become
/// page breaks, so a quote can say its page.
///
/// # Errors
/// [`ReadError::TextTooLong`] past `max_text_bytes`.
pub fn read_text(bytes: &[u8], max_text_bytes: usize) -> Result<ReadDocument, ReadError> {
    let text = decode(bytes).replace("\r\n", "\n").replace(['\r', '\u{0c}'], "\n");
    let text = wrapped_rows_joined(text);
    if text.len() > max_text_bytes {
        return Err(ReadError::TextTooLong { limit_bytes: max_text_bytes as u64 });
    }
    let is_marker = |line: &str| line.trim().eq_ignore_ascii_case("<PAGE>");
    if !text.lines().any(is_marker) {
        return Ok(ReadDocument::from_text(&text));
    }
    let mut pages = vec![String::new()];
    for line in text.lines() {
        if is_marker(line) {
            pages.push(String::new());
        } else if let Some(page) = pages.last_mut() {
            page.push_str(line);
            page.push('\n');
        }
    }
    // Text before the first marker is a page only when it has words (the SGML header has few).
    let mut read = ReadDocument::from_pages(pages);
    // A short page of a text filing is a short page, not a scan.
    read.pages_without_text.clear();
    Ok(read)
}

/// A typed table as [`wrapped_tables`] reads it: a character is one unit of width and a line one
/// of height, so two spaces between words are a cell gap and a blank line sets rows apart.
const TYPED: Geometry = Geometry { cell_gap: 2.0, blank_gap: 1.5, table_gap: 2.0, wrap_gap: 1.0, row_gap: 0.5 };

/// Fewer columns than this are a numbered paragraph's hanging indent (`(a)   The Borrower …`), not
/// a table: its lines stay as typed.
const MIN_TYPED_COLUMNS: usize = 3;

/// The text with each typed table of figures whose rows wrap (`II      Greater than or equal
/// 1.50%` then `        to 2.00:1.00`) written a row per line, cells ` | `-separated as the other
/// readers write them; every other line as typed. A table is looked for between EDGAR's markup
/// and rule lines (`<TABLE>`, `<S>  <C>`, `-----   -----`), which stay.
///
/// Most of a filing is prose and has no such table: its lines are only looked at, and the text is
/// returned as it came when no table was rewritten (a copy per line cost more than the search).
fn wrapped_rows_joined(text: String) -> String {
    let typed: Vec<&str> = text.split('\n').collect();
    let three_cells: Vec<bool> = typed.iter().map(|line| has_three_cells(line)).collect();
    // Where each line starts in the text, and which lines' bytes are replaced by which rows.
    let offsets: Vec<usize> =
        typed.iter().scan(0, |at, line| Some(std::mem::replace(at, *at + line.len() + 1))).collect();
    let mut rewritten: Vec<(Range<usize>, String)> = Vec::new();
    let mut start = 0;
    while start < typed.len() {
        let end = (start..typed.len()).find(|&k| is_rule_or_markup(typed[k])).unwrap_or(typed.len());
        // Only the lines around one of three cells or more can be in such a table: the rest is
        // left as typed without being measured.
        let mut k = start;
        while k < end {
            let Some(first) = (k..end).find(|&j| three_cells[j]) else { break };
            let from = first.saturating_sub(TYPED_REACH).max(k);
            let mut to = first + 1;
            while to < end && three_cells[to..(to + TYPED_REACH).min(end)].contains(&true) {
                to += 1;
            }
            let to = (to + TYPED_REACH).min(end);
            for (lines, rows) in joined_tables(&typed[from..to]) {
                let (first_line, last_line) = (from + lines.start, from + lines.end - 1);
                let bytes = offsets[first_line]..offsets[last_line] + typed[last_line].len();
                rewritten.push((bytes, rows));
            }
            k = to;
        }
        start = end + 1;
    }
    if rewritten.is_empty() {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (bytes, rows) in &rewritten {
        out.push_str(&text[copied..bytes.start]);
        out.push_str(rows.trim_end_matches('\n'));
        copied = bytes.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// How many lines a typed table's header may run above, or a wrapped cell below, its lines of
/// three cells.
const TYPED_REACH: usize = 4;

/// Whether a typed line has three cells or more: two runs of two spaces or more between words.
fn has_three_cells(line: &str) -> bool {
    let trimmed = line.trim();
    // Three cells need two gaps of two spaces: a line of prose has fewer, and is answered by a
    // look at its bytes rather than a split.
    if trimmed.as_bytes().windows(2).filter(|pair| pair == b"  ").nth(1).is_none() {
        return false;
    }
    trimmed.split("  ").filter(|part| !part.trim().is_empty()).nth(2).is_some()
}

/// The wrapped tables of figures among lines with no markup or rules among them: each as the
/// lines it was typed on (from the first of them to the last, blank lines between included) and
/// its rows, a row per line.
fn joined_tables(typed: &[&str]) -> Vec<(Range<usize>, String)> {
    let (numbers, lines): (Vec<usize>, Vec<Line>) =
        typed.iter().enumerate().filter(|(_, t)| !t.trim().is_empty()).map(|(k, t)| (k, typed_line(k, t))).unzip();
    wrapped_tables(&lines, TYPED, MIN_TYPED_COLUMNS)
        .into_iter()
        .filter(|(_, rows)| is_table_of_figures(rows))
        .map(|(range, rows)| (numbers[range.start]..numbers[range.end - 1] + 1, rows))
        .collect()
}

/// Whether joined rows are a table of figures (a grid, a schedule of commitments): two rows or
/// more with a figure after their first cell, and no cell as long as a line of prose. Typed
/// prose has runs of spaces too (justified lines, two spaces after a sentence, a signature block
/// beside a column of amounts), and only a table is worth rewriting.
fn is_table_of_figures(rows: &str) -> bool {
    let is_figure = |cell: &str| {
        let cell = cell.trim_start_matches(['$', '(', '<', '>', '=', ' ']);
        cell.starts_with(|c: char| c.is_ascii_digit() || c == '.') && cell.len() <= 20
    };
    let with_figures = rows.lines().filter(|row| row.split(" | ").skip(1).any(is_figure)).count();
    with_figures >= 2 && rows.lines().all(|row| row.split(" | ").all(|cell| cell.len() <= MAX_TYPED_CELL))
}

/// Longer than this, a cell of a typed table is prose run together by the reading.
const MAX_TYPED_CELL: usize = 80;

/// A typed line's words, each at the column it starts in (a tab moves to the next multiple of 8).
fn typed_line(number: usize, typed: &str) -> Line {
    let mut words: Vec<Word> = Vec::new();
    let mut column = 0usize;
    // The word being read: where its text starts, and its column.
    let mut word: Option<(usize, usize)> = None;
    let push = |words: &mut Vec<Word>, (from, x0): (usize, usize), to: usize, x1: usize| {
        words.push(Word { x0: x0 as f64, x1: x1 as f64, size: 1.0, text: typed[from..to].to_owned() });
    };
    for (at, c) in typed.char_indices() {
        if c.is_whitespace() {
            if let Some(started) = word.take() {
                push(&mut words, started, at, column);
            }
            column = if c == '\t' { (column / 8 + 1) * 8 } else { column + 1 };
            continue;
        }
        word.get_or_insert((at, column));
        column += 1;
    }
    if let Some(started) = word {
        push(&mut words, started, typed.len(), column);
    }
    let indent = words.first().map_or(0, |w| w.x0 as usize);
    Line { y: number as f64, indent, words }
}

/// EDGAR's table and page markup (`<TABLE>`, `<S>  <C>`, `<PAGE>`) and rules (`-----   ----`,
/// `=====`): layout, kept as typed, which no table row is joined across.
fn is_rule_or_markup(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty()
        && (trimmed.chars().all(|c| matches!(c, '-' | '=' | '_' | ' ' | '\t'))
            || trimmed.split_whitespace().all(|token| token.starts_with('<') && token.ends_with('>'))
            || trimmed.as_bytes().get(..6).is_some_and(|start| start.eq_ignore_ascii_case(b"<PAGE>")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_windows_1252_and_utf16_are_decoded() {
        assert_eq!(decode("£10,000,000 – Lender’s".as_bytes()), "£10,000,000 – Lender’s");
        assert_eq!(decode(b"Lender\x92s \x93Commitment\x94"), "Lender’s “Commitment”");
        assert_eq!(decode(b"\xEF\xBB\xBFCREDIT"), "CREDIT");
        assert_eq!(decode(b"\xFF\xFEC\x00A\x00"), "CA");
    }

    #[test]
    fn a_typed_grid_whose_rows_wrap_is_written_a_row_per_line_and_prose_stays_as_typed() {
        let filing = "the Applicable Margin shall be as follows:  the margin\n\
                      \n\
                      <TABLE>\n\
                      <S>           <C>                       <C>          <C>\n\
                      \x20             Leverage                  Eurodollar   Commitment\n\
                      Level         Ratio                     Margin       Fee\n\
                      -----         --------                  ----------   ----------\n\
                      I             Less than 2.00 to 1.00    1.25%        .25%\n\
                      II            Greater than or equal     1.50%        .30%\n\
                      \x20             to 2.00 to 1.00\n\
                      III           3.00 to 1.00 or more      1.75%        .375%\n\
                      </TABLE>\n\
                      \n\
                      (a)   The Borrower shall pay to each Lender a fee\n\
                      \x20     on the average daily unused amount.\n";
        let read = read_text(filing.as_bytes(), 1 << 20).unwrap().text;
        assert_eq!(
            read,
            "the Applicable Margin shall be as follows:  the margin\n\n\
             <TABLE>\n\
             <S>           <C>                       <C>          <C>\n\
             \x20             Leverage                  Eurodollar   Commitment\n\
             Level         Ratio                     Margin       Fee\n\
             -----         --------                  ----------   ----------\n\
             I | Less than 2.00 to 1.00 | 1.25% | .25%\n\
             II | Greater than or equal to 2.00 to 1.00 | 1.50% | .30%\n\
             III | 3.00 to 1.00 or more | 1.75% | .375%\n\
             </TABLE>\n\n\
             (a)   The Borrower shall pay to each Lender a fee\n      on the average daily unused amount."
        );
    }

    #[test]
    fn edgar_page_markers_become_pages() {
        let filing = "CREDIT AGREEMENT dated as of June 30, 1995 among the parties hereto\r\n<PAGE>\r\n\
                      SECTION 1. DEFINITIONS. As used in this Agreement the terms below\r\n<PAGE>\r\n  2\r\n";
        let read = read_text(filing.as_bytes(), 1 << 20).unwrap();
        assert!(!read.text.contains("<PAGE>"));
        let section = read.text.find("SECTION 1").unwrap();
        assert_eq!(read.pages.page_of(section), Some(2));
        assert_eq!(read.pages.starts().len(), 3);
        assert!(read.pages_without_text.is_empty());
        assert_eq!(read_text(b"no pages here", 1 << 20).unwrap().pages.page_of(0), None);
        assert!(matches!(read_text(filing.as_bytes(), 10), Err(ReadError::TextTooLong { .. })));
    }
}
