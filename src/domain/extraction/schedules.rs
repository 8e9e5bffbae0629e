//! Lender commitment schedules that a plain-text copy flattened to one cell a line: "Lender" (or
//! "Name of Lender"), the other headings ("Commitment", "Applicable Percentage"), then each
//! lender's name line followed by as many figures as there are other headings, up to the total
//! ("Total / $440,000,000 / 100%"). The parties reader takes the lenders from its rows; the
//! commitments reader takes its total, in the currency its heading names.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::currency::CurrencyCode;
use super::document::Document;
use super::text::{contains_ci, lines_in, pattern};

/// A schedule cell that is a figure: an amount or a percentage.
pub(crate) static MONEY_CELL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^(?:US\$|\$|£|€|[A-Z]{3}[ \t]?)?[0-9][0-9,]*(?:\.[0-9]+)?[ \t]?%?$"));

/// The heading line of a flattened schedule's lender column.
static LENDER_HEADING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^[ \t]*(?:name[ \t]+of[ \t]+)?lenders?[ \t]*:?[ \t]*$"));

/// The same heading, found anywhere in a text.
static LENDER_HEADING_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?im)^[ \t]*(?:name[ \t]+of[ \t]+)?lenders?[ \t]*:?[ \t]*$"));

/// A parenthesised note of a column's currency: "(Cdn.$)", "(US$)", "(in C$)", "(EUR)".
static HEADING_CURRENCY: LazyLock<Regex> = LazyLock::new(|| pattern(r"\((?:in[ \t]+)?([^()]{1,30})\)"));

/// A heading of a schedule's figures: "Commitment", "Lender's Commitment (Cdn.$)", "Ratable Share".
static FIGURE_HEADING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:commitments?|percentage|allocations?|share|amount|pro[ \t]+rata)\b"));

/// The most figure columns, and the most rows, a flattened schedule is read for.
const MAX_FIGURE_COLUMNS: usize = 4;
const MAX_ROWS: usize = 60;

/// A flattened schedule: the name line of each lender's row, and where it ends (after its total
/// row, if any).
pub(crate) struct FlatSchedule {
    pub lenders: Vec<Range<usize>>,
    pub end: usize,
    /// The total row's amount, when the schedule has one column of amounts and a total row.
    pub total: Option<Range<usize>>,
    /// The currency the headings name for the amounts: `None` when they name none,
    /// `Some(None)` when they note one that cannot be read ("(in local currency)").
    pub heading_currency: Option<Option<CurrencyCode>>,
}

/// The flattened schedule headed by the line `heading`, when every row has the same number of
/// figures as the heading has figure columns and at least two rows do.
pub(crate) fn flattened_schedule(doc: &Document<'_>, heading: Range<usize>) -> Option<FlatSchedule> {
    if !LENDER_HEADING.is_match(doc.slice(heading.clone())) {
        return None;
    }
    let is_figure = |line: &Range<usize>| MONEY_CELL.is_match(doc.slice(line.clone()));
    let mut lines = lines_in(doc.text, heading.end..doc.text.len()).filter_map(|line| trimmed(doc, line));
    let mut columns = 0;
    let mut heading_currency = None;
    let mut next = None;
    for line in lines.by_ref().take(MAX_FIGURE_COLUMNS + 1) {
        if FIGURE_HEADING.is_match(doc.slice(line.clone())) && !is_figure(&line) {
            columns += 1;
            if let Some(noted) = HEADING_CURRENCY.captures(doc.slice(line.clone())).and_then(|n| currency_noted(&n[1]))
            {
                heading_currency = Some(noted);
            }
        } else {
            next = Some(line);
            break;
        }
    }
    if !(1..=MAX_FIGURE_COLUMNS).contains(&columns) {
        return None;
    }
    let mut lenders = Vec::new();
    let mut end = None;
    let mut total = None;
    while let Some(label) = next.take() {
        if is_figure(&label) || lenders.len() >= MAX_ROWS {
            break;
        }
        let figures: Vec<Range<usize>> = lines.by_ref().take(columns).collect();
        if figures.len() != columns || !figures.iter().all(is_figure) {
            break;
        }
        end = figures.last().map(|figure| figure.end);
        if contains_ci(doc.slice(label.clone()), "total") {
            let mut amounts = figures.into_iter().filter(|figure| !doc.slice(figure.clone()).ends_with('%'));
            total = amounts.next().filter(|_| amounts.next().is_none());
            break;
        }
        lenders.push(label);
        next = lines.next();
    }
    (lenders.len() >= 2).then_some(FlatSchedule { lenders, end: end?, total, heading_currency })
}

/// The heading of a schedule's lender column that names the lenders' class: "Name of Original
/// Lender", "Name of Initial Term Lender".
static NAMED_LENDER_HEADING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^[ \t]*name[ \t]+of[ \t]+(?:[a-z]+[ \t]+){0,2}?lenders?[ \t]*:?[ \t]*$"));

/// Cells of a row printed on one line, set apart by two spaces or more, or a tab.
static CELL_GAP: LazyLock<Regex> = LazyLock::new(|| pattern(r"[ \t]*\t[ \t]*| {2,}"));

/// How many lines of column headings a row schedule's heading may be followed by.
const MAX_HEADING_LINES: usize = 14;

/// The figures that open a line of cells ("730,745,438      351,840,397      N/A": two), or
/// `None` when its first cell is no figure.
fn leading_figures(line: &str) -> Option<usize> {
    let count = CELL_GAP.split(line.trim()).take_while(|cell| MONEY_CELL.is_match(cell)).count();
    (count > 0).then_some(count)
}

/// A schedule whose rows a text copy printed as two lines each: the lender's name, then its
/// figures on one line ("Name of Original Lender" / headings wrapped over lines / "Cedar Bank
/// PLC" / "  730,745,438      351,840,397      N/A"). Its headings must name commitments, every
/// row must open with as many figures, and at least two rows must follow one another; a total row
/// ends it. Only the lenders are read from it (no total, no currency).
pub(crate) fn row_schedule(doc: &Document<'_>, heading: Range<usize>) -> Option<FlatSchedule> {
    if !NAMED_LENDER_HEADING.is_match(doc.slice(heading.clone())) {
        return None;
    }
    let lines: Vec<Range<usize>> = lines_in(doc.text, heading.end..doc.text.len())
        .filter_map(|line| trimmed(doc, line))
        .take(MAX_HEADING_LINES + 2 * MAX_ROWS + 2)
        .collect();
    let figures_at = |i: usize| lines.get(i).and_then(|line| leading_figures(doc.slice(line.clone())));
    let is_name = |i: usize| {
        lines.get(i).is_some_and(|line| figures_at(i).is_none() && !MONEY_CELL.is_match(doc.slice(line.clone())))
    };
    let first = (0..MAX_HEADING_LINES).find(|&i| is_name(i) && figures_at(i + 1).is_some())?;
    let headings = lines.get(..first)?;
    if !headings.iter().any(|line| FIGURE_HEADING.is_match(doc.slice(line.clone()))) {
        return None;
    }
    let columns = figures_at(first + 1)?;
    let mut lenders = Vec::new();
    let mut end = None;
    let mut i = first;
    while is_name(i) && figures_at(i + 1) == Some(columns) && lenders.len() < MAX_ROWS {
        let (label, figures) = (lines[i].clone(), lines[i + 1].clone());
        end = Some(figures.end);
        if contains_ci(doc.slice(label.clone()), "total") {
            break;
        }
        lenders.push(label);
        i += 2;
    }
    (lenders.len() >= 2).then_some(FlatSchedule { lenders, end: end?, total: None, heading_currency: None })
}

/// Every flattened schedule of the text, in text order.
pub(crate) fn flattened_schedules(doc: &Document<'_>) -> Vec<FlatSchedule> {
    let mut schedules: Vec<FlatSchedule> = Vec::new();
    for heading in LENDER_HEADING_LINE.find_iter(doc.text) {
        if schedules.last().is_some_and(|last| heading.start() < last.end) {
            continue;
        }
        schedules.extend(flattened_schedule(doc, heading.range()));
    }
    schedules
}

/// The currency a heading's parenthesised note names: `None` when the note is about something
/// else ("(as of the Closing Date)"), `Some(None)` when it is about a currency that cannot be read
/// ("(in local currency)"). "Cdn.$" and "C$" are Canadian dollars, "US$" and "U.S. $" American
/// ones; an ISO code or words ("Canadian Dollars") name their own.
fn currency_noted(note: &str) -> Option<Option<CurrencyCode>> {
    let compact: String = note.chars().filter(|c| !c.is_whitespace() && *c != '.').collect();
    let upper = compact.to_ascii_uppercase();
    let code = match upper.as_str() {
        // Spellings of column notes that are not currency symbols elsewhere in a text.
        "CDN$" | "CDN" | "CAN$" => CurrencyCode::new("CAD"),
        "US" => CurrencyCode::new("USD"),
        code if code.len() == 3 && code.chars().all(|c| c.is_ascii_uppercase()) => CurrencyCode::new(code),
        _ => CurrencyCode::from_symbol(&compact).or_else(|| CurrencyCode::from_words(note)),
    };
    let about_currency = code.is_some()
        || note.contains(['$', '£', '€', '¥'])
        || contains_ci(note, "currenc")
        || (compact.len() == 3 && compact.chars().all(|c| c.is_ascii_uppercase()));
    about_currency.then_some(code)
}

/// The line's content without its surrounding white space, if any is left.
fn trimmed(doc: &Document<'_>, line: Range<usize>) -> Option<Range<usize>> {
    let text = doc.slice(line.clone());
    let content = text.trim();
    let start = line.start + (text.len() - text.trim_start().len());
    (!content.is_empty()).then_some(start..start + content.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenders(text: &str) -> Vec<&str> {
        let doc = Document::scan(text);
        let heading = text.find("Name of").expect("a heading");
        let line = heading..heading + text[heading..].find('\n').unwrap_or(text.len() - heading);
        row_schedule(&doc, line).map(|s| s.lenders.into_iter().map(|r| &text[r]).collect()).unwrap_or_default()
    }

    #[test]
    fn a_schedule_printed_a_name_line_and_a_figures_line_a_row_names_its_lenders() {
        let text = "SCHEDULE 3\n\nName of Original Term Lender\n   Facility A\nCommitment (\u{a3})      Facility B\nCommitment (\u{a3})      Tax reference\n\nQuince Bank PLC\n     40,000,000        10,000,000      N/A\nLarch Capital S.A.\n     20,000,000        5,000,000      12/L/3456/DTTP\nTotal\n     60,000,000        15,000,000\n\nSIGNATORIES\n";
        assert_eq!(lenders(text), ["Quince Bank PLC", "Larch Capital S.A."]);
        // One row is no schedule; nor are headings that name no commitment.
        let one = "Name of Original Lender\nCommitment\n\nQuince Bank PLC\n     40,000,000\n\nSIGNATORIES\n";
        assert!(lenders(one).is_empty());
        let no_commitment = "Name of Original Lender\nAddress\n\nQuince Bank PLC\n     40,000,000\nLarch Capital S.A.\n     20,000,000\n";
        assert!(lenders(no_commitment).is_empty());
        // Rows must agree on their figures.
        let ragged = "Name of Original Lender\nCommitment\nQuince Bank PLC\n  40,000,000    10,000,000\nLarch Capital S.A.\n  20,000,000\nBirch Bank PLC\n  5,000,000\n";
        assert!(lenders(ragged).is_empty());
    }
}
