//! Plain-text tables: the cells of a line, a table after its introduction (with the wrapped
//! headers and rows of 1990s filings), and the EDGAR markup and page furniture that are not text.

use std::ops::Range;

use super::spans::{floor_boundary, lines_in, slice, trim_range};

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

#[cfg(test)]
mod tests {
    use super::*;

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
