//! Lender commitment schedules that a plain-text copy flattened to one cell a line: "Lender" (or
//! "Name of Lender"), the other headings ("Commitment", "Applicable Percentage"), then each
//! lender's name line followed by as many figures as there are other headings, up to the total
//! ("Total / $440,000,000 / 100%"). The parties reader takes the lenders from its rows.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::document::Document;
use super::text::{contains_ci, lines_in, pattern};

/// A schedule cell that is a figure: an amount or a percentage.
pub(crate) static MONEY_CELL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^(?:US\$|\$|£|€|[A-Z]{3}[ \t]?)?[0-9][0-9,]*(?:\.[0-9]+)?[ \t]?%?$"));

/// The heading line of a flattened schedule's lender column.
static LENDER_HEADING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^[ \t]*(?:name[ \t]+of[ \t]+)?lenders?[ \t]*:?[ \t]*$"));

/// A heading of a schedule's figures: "Commitment", "Lender's Commitment (Cdn.$)", "Ratable Share".
static FIGURE_HEADING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:commitments?|percentage|allocations?|share|amount|pro[ \t]+rata)\b"));

/// The most figure columns, and the most rows, a flattened schedule is read for.
const MAX_FIGURE_COLUMNS: usize = 4;
const MAX_ROWS: usize = 60;

/// One row: its label (a lender's name, or "Total") and its figures.
pub(crate) struct FlatRow {
    pub label: Range<usize>,
    pub figures: Vec<Range<usize>>,
}

/// A flattened schedule: its lenders' rows, and where it ends (after its total row, if any).
pub(crate) struct FlatSchedule {
    pub rows: Vec<FlatRow>,
    pub end: usize,
}

/// The flattened schedule headed by the line `heading`, when every row has the same number of
/// figures as the heading has figure columns and at least two rows do.
pub(crate) fn flattened_schedule(doc: &Document<'_>, heading: Range<usize>) -> Option<FlatSchedule> {
    if !LENDER_HEADING.is_match(doc.slice(heading.clone())) {
        return None;
    }
    let mut lines = lines_in(doc.text, heading.end..doc.text.len()).filter_map(|line| trimmed(doc, line));
    let mut headings = Vec::new();
    let mut first_row = None;
    for line in lines.by_ref().take(MAX_FIGURE_COLUMNS + 1) {
        let text = doc.slice(line.clone());
        if FIGURE_HEADING.is_match(text) && !MONEY_CELL.is_match(text) {
            headings.push(line);
        } else {
            first_row = Some(line);
            break;
        }
    }
    let columns = headings.len();
    if !(1..=MAX_FIGURE_COLUMNS).contains(&columns) {
        return None;
    }
    let mut rows = Vec::new();
    let mut total = None;
    let mut next = first_row;
    while let Some(label) = next.take() {
        if MONEY_CELL.is_match(doc.slice(label.clone())) || rows.len() >= MAX_ROWS {
            break;
        }
        let figures: Vec<Range<usize>> = lines.by_ref().take(columns).collect();
        if figures.len() != columns || figures.iter().any(|f| !MONEY_CELL.is_match(doc.slice(f.clone()))) {
            break;
        }
        let row = FlatRow { label, figures };
        if contains_ci(doc.slice(row.label.clone()), "total") {
            total = Some(row);
            break;
        }
        rows.push(row);
        next = lines.next();
    }
    let end = total.as_ref().or(rows.last())?.figures.last()?.end;
    (rows.len() >= 2).then_some(FlatSchedule { rows, end })
}

/// The line's content without its surrounding white space, if any is left.
fn trimmed(doc: &Document<'_>, line: Range<usize>) -> Option<Range<usize>> {
    let text = doc.slice(line.clone());
    let content = text.trim();
    let start = line.start + (text.len() - text.trim_start().len());
    (!content.is_empty()).then_some(start..start + content.len())
}
