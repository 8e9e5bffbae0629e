//! A page's text from words with positions (a PDF's glyphs, a text file's character columns),
//! written in the layout every reader writes ([`super::layout`]): prose lines as printed, and a
//! table as one line per row with its cells ` | `-separated, however many printed lines a row's
//! cells wrap onto.
//!
//! A PDF has no table structure, only glyphs where the cells were. A line whose words stand apart
//! by a gap much wider than a space ([`Geometry::cell_gap`]) is a table row; the lines near it
//! whose words each lie within one of its columns (a cell that wraps onto further lines) belong to
//! the same table, and a line that crosses the columns (prose) ends it. Which printed lines make
//! one row is read from the spacing when the table's rows are set further apart than the lines of
//! a cell, and otherwise from the first column: a row starts at a line with text in it, and a line
//! without continues the row above (a cell wrapped under its first line) or, above the first
//! such line, the header (cells aligned to their bottom). Justified prose never has such gaps and
//! stays as printed.

use std::ops::Range;

use super::layout::add_cell;

/// A word: ink between spaces, with where it starts and ends and the size of its font.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Word {
    pub x0: f64,
    pub x1: f64,
    pub size: f64,
    pub text: String,
}

/// A printed line: its words left to right, where its baseline is (increasing down the page), and
/// the spaces it is indented by.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Line {
    pub y: f64,
    pub indent: usize,
    pub words: Vec<Word>,
}

impl Line {
    /// The size of the line's type, from its first word.
    fn size(&self) -> f64 {
        self.words.first().map_or(1.0, |w| w.size)
    }

    fn x0(&self) -> f64 {
        self.words.first().map_or(0.0, |w| w.x0)
    }

    fn x1(&self) -> f64 {
        self.words.iter().map(|w| w.x1).fold(f64::MIN, f64::max)
    }
}

/// How far apart things must be, in sizes of the type, to mean what they mean.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    /// Between two words of a line: two cells (columns), not words of a sentence.
    pub cell_gap: f64,
    /// Between two baselines: a blank line (a new paragraph or block) between them.
    pub blank_gap: f64,
    /// Between two baselines: too far for the lower line to belong to the table above.
    pub table_gap: f64,
    /// Between two baselines: a header's line above the next (a cell aligned to its bottom).
    pub wrap_gap: f64,
    /// More space than between the lines of a cell by this much: the next row of a table whose
    /// rows are set apart.
    pub row_gap: f64,
}

/// The layout a browser or word processor prints: a table's lines are at most two lines apart.
pub(super) const PRINTED: Geometry =
    Geometry { cell_gap: 2.0, blank_gap: 1.5, table_gap: 2.6, wrap_gap: 1.3, row_gap: 0.12 };

/// Writes the lines (top to bottom) as text, a line per line and a row per table row.
pub(super) fn write_lines(lines: &[Line], geometry: Geometry, out: &mut String) {
    let cells: Vec<Vec<Range<usize>>> = lines.iter().map(|line| cells_of(line, geometry)).collect();
    let mut tables = tables(lines, &cells, geometry).into_iter().peekable();
    let mut i = 0;
    while i < lines.len() {
        let block = match tables.next_if(|table| table.start == i) {
            Some(table) => table,
            None => i..i + 1,
        };
        if i > 0 && lines[i].y - lines[i - 1].y > geometry.blank_gap * lines[i].size() {
            out.push('\n');
        }
        if block.len() == 1 {
            write_line(&lines[i], &cells[i], out);
        } else {
            write_table(&lines[block.clone()], &cells[block.clone()], geometry, out);
        }
        i = block.end;
    }
}

/// The tables among the lines: each from the lines of its header above its first row line to
/// the last line within its columns below.
fn tables(lines: &[Line], cells: &[Vec<Range<usize>>], geometry: Geometry) -> Vec<Range<usize>> {
    let mut tables = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if cells[i].len() < 2 {
            i += 1;
            continue;
        }
        let floor = tables.last().map_or(0, |t: &Range<usize>| t.end);
        let start = header_above(lines, cells, i, floor, geometry);
        let table = table_from(lines, cells, start, i, geometry);
        i = table.end;
        tables.push(table);
    }
    tables
}

/// One line as printed: its indentation, its words, and ` | ` between cells.
fn write_line(line: &Line, cells: &[Range<usize>], out: &mut String) {
    out.extend(std::iter::repeat_n(' ', line.indent));
    for (n, cell) in cells.iter().enumerate() {
        if n > 0 {
            out.push_str(" | ");
        }
        push_words(&line.words[cell.clone()], out);
    }
    out.push('\n');
}

fn push_words(words: &[Word], out: &mut String) {
    for (n, word) in words.iter().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(&word.text);
    }
}

/// The line's cells: runs of words split where the gap before a word is a cell gap.
fn cells_of(line: &Line, geometry: Geometry) -> Vec<Range<usize>> {
    let mut cells = Vec::new();
    let mut start = 0;
    for (i, pair) in line.words.windows(2).enumerate() {
        if pair[1].x0 - pair[0].x1 >= geometry.cell_gap * pair[1].size {
            cells.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < line.words.len() {
        cells.push(start..line.words.len());
    }
    cells
}

/// The table whose first row line is `row`, starting at `start` (lines of its header above).
fn table_from(
    lines: &[Line],
    cells: &[Vec<Range<usize>>],
    start: usize,
    row: usize,
    geometry: Geometry,
) -> Range<usize> {
    let mut columns = Columns::default();
    for k in start..=row {
        columns.add(&lines[k], &cells[k]);
    }
    let mut end = row + 1;
    while end < lines.len() {
        let (above, line) = (&lines[end - 1], &lines[end]);
        if line.y - above.y > geometry.table_gap * line.size().max(above.size()) {
            break;
        }
        if cells[end].len() >= 2 {
            if !columns.fits_row(line, &cells[end]) {
                break;
            }
            columns.add(line, &cells[end]);
        } else if !columns.holds(line) {
            break;
        }
        end += 1;
    }
    start..end
}

/// The first of the lines just above row line `row` that are lines of a header whose other
/// lines are on `row` (cells aligned to their bottom): each within one of the row's columns and a
/// line apart, and not the end of a paragraph (a paragraph's last line is a line below the one
/// before it; a table is set apart from the paragraph before it).
fn header_above(lines: &[Line], cells: &[Vec<Range<usize>>], row: usize, floor: usize, geometry: Geometry) -> usize {
    let mut columns = Columns::default();
    columns.add(&lines[row], &cells[row]);
    let near = |k: usize| lines[k + 1].y - lines[k].y <= geometry.wrap_gap * lines[k].size().max(lines[k + 1].size());
    let mut start = row;
    while start > floor && near(start - 1) && cells[start - 1].len() < 2 && columns.holds(&lines[start - 1]) {
        start -= 1;
    }
    if start < row && start > floor && near(start - 1) { row } else { start }
}

/// The columns of a table: the spans its row lines' cells cover, merged where they overlap.
#[derive(Default)]
struct Columns {
    spans: Vec<(f64, f64)>,
}

impl Columns {
    fn add(&mut self, line: &Line, cells: &[Range<usize>]) {
        if cells.len() < 2 {
            return;
        }
        for cell in cells {
            let words = &line.words[cell.clone()];
            let (x0, x1) = (words[0].x0, words.iter().map(|w| w.x1).fold(f64::MIN, f64::max));
            self.spans.push((x0, x1));
        }
        self.spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut merged: Vec<(f64, f64)> = Vec::with_capacity(self.spans.len());
        for &(x0, x1) in &self.spans {
            match merged.last_mut() {
                Some(last) if x0 <= last.1 => last.1 = last.1.max(x1),
                _ => merged.push((x0, x1)),
            }
        }
        self.spans = merged;
    }

    /// Whether a row line's cells line up with the columns: none spans two (a numbered
    /// paragraph's first line after a table has its number apart, and its text across them).
    fn fits_row(&self, line: &Line, cells: &[Range<usize>]) -> bool {
        cells.iter().all(|cell| {
            let words = &line.words[cell.clone()];
            let (x0, x1) = (words[0].x0, words.iter().map(|w| w.x1).fold(f64::MIN, f64::max));
            self.spans.iter().filter(|(a, b)| x0 < *b && x1 > *a).count() <= 1
        })
    }

    /// Whether a line lies within the columns: it overlaps one of them (and no other), or lies
    /// between two. A cell's line may be wider than the column's rows (a centred header).
    fn holds(&self, line: &Line) -> bool {
        let (Some(first), Some(last)) = (self.spans.first(), self.spans.last()) else { return false };
        let (x0, x1) = (line.x0(), line.x1());
        match self.spans.iter().filter(|(a, b)| x0 < *b && x1 > *a).count() {
            1 => true,
            0 => x0 > first.1 && x1 < last.0,
            _ => false,
        }
    }
}

/// Writes a table: its columns found from its row lines, each line's words put in the column
/// they are under, and the lines of each row joined cell by cell.
/// Returns whether a row had more than one line.
fn write_table(lines: &[Line], cells: &[Vec<Range<usize>>], geometry: Geometry, out: &mut String) -> bool {
    let Some(spans) = column_spans(lines, cells) else {
        for (line, cells) in lines.iter().zip(cells) {
            write_line(line, cells, out);
        }
        return false;
    };
    let placed: Vec<Vec<(usize, &[Word])>> =
        lines.iter().zip(cells).map(|(line, cells)| place(line, cells, &spans)).collect();
    let columns_of = |k: usize| {
        let mut columns: Vec<usize> = placed[k].iter().map(|(column, _)| *column).collect();
        columns.dedup();
        columns
    };
    let starts = row_starts(lines, geometry, &columns_of);
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(lines.len());
        let mut texts = vec![String::new(); spans.len()];
        for line in &placed[start..end] {
            for (column, words) in line {
                let text = &mut texts[*column];
                if !text.is_empty() {
                    text.push(' ');
                }
                push_words(words, text);
            }
        }
        let mut row = Vec::with_capacity(texts.len());
        for text in &texts {
            add_cell(&mut row, text);
        }
        out.push_str(&row.join(" | "));
        out.push('\n');
    }
    starts.len() < lines.len()
}

/// The tables among the lines that have `min_columns` columns or more and a row printed on more
/// than one line, each with its lines and its rows written a row per line.
pub(super) fn wrapped_tables(lines: &[Line], geometry: Geometry, min_columns: usize) -> Vec<(Range<usize>, String)> {
    let cells: Vec<Vec<Range<usize>>> = lines.iter().map(|line| cells_of(line, geometry)).collect();
    tables(lines, &cells, geometry)
        .into_iter()
        .filter(|table| {
            column_spans(&lines[table.clone()], &cells[table.clone()]).is_some_and(|s| s.len() >= min_columns)
        })
        .filter_map(|table| {
            let mut text = String::new();
            write_table(&lines[table.clone()], &cells[table.clone()], geometry, &mut text).then_some((table, text))
        })
        .collect()
}

/// The table's columns, from the row lines with the most common number of cells (the most of
/// them on a tie): the span of their n-th cells is the n-th column. `None` when those spans
/// overlap (lines that only look like rows of one table).
fn column_spans(lines: &[Line], cells: &[Vec<Range<usize>>]) -> Option<Vec<(f64, f64)>> {
    let counts: Vec<usize> = cells.iter().map(Vec::len).filter(|&n| n >= 2).collect();
    let count = counts.iter().copied().max_by_key(|&n| (counts.iter().filter(|&&m| m == n).count(), n))?;
    let mut spans = vec![(f64::MAX, f64::MIN); count];
    for (line, cells) in lines.iter().zip(cells).filter(|(_, cells)| cells.len() == count) {
        for (span, cell) in spans.iter_mut().zip(cells) {
            let words = &line.words[cell.clone()];
            span.0 = span.0.min(words[0].x0);
            span.1 = span.1.max(words.iter().map(|w| w.x1).fold(f64::MIN, f64::max));
        }
    }
    if !spans.windows(2).all(|pair| pair[0].1 < pair[1].0) {
        return None;
    }
    let lines: Vec<&Line> = lines.iter().collect();
    Some(spans.into_iter().flat_map(|span| split_at_gutters(span, &lines)).collect())
}

/// A column split where a narrower gap than a cell gap runs down all the table's lines, with
/// words on both sides in two lines or more: a label column printed close to the figures beside
/// it.
fn split_at_gutters(span: (f64, f64), rows: &[&Line]) -> Vec<(f64, f64)> {
    let mut inked: Vec<(f64, f64, f64)> = rows
        .iter()
        .flat_map(|line| line.words.iter())
        .filter(|w| w.x0 >= span.0 && w.x1 <= span.1)
        .map(|w| (w.x0, w.x1, w.size))
        .collect();
    inked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut spans = vec![span];
    let mut reach = span.0;
    for &(x0, x1, size) in &inked {
        // Counted only at a gap wide enough: counting at every word is quadratic in the
        // table's words.
        let both_sides = || {
            rows.iter()
                .filter(|line| {
                    let within = |w: &&Word| w.x0 >= span.0 && w.x1 <= span.1;
                    line.words.iter().filter(within).any(|w| w.x1 <= reach)
                        && line.words.iter().filter(within).any(|w| w.x0 >= x0)
                })
                .count()
        };
        if reach > span.0 && x0 - reach >= GUTTER * size && both_sides() >= 2 {
            if let Some(last) = spans.last_mut() {
                last.1 = reach;
            }
            spans.push((x0, span.1));
        }
        reach = reach.max(x1);
    }
    spans
}

/// A gap down a column at least this many sizes of type wide separates two columns.
const GUTTER: f64 = 0.6;

/// A line's words by column: a cell goes to the column it overlaps, or the nearest; a cell that
/// spans several columns (a header cell set apart from its neighbour by less than a cell gap) is
/// split between them word by word.
fn place<'a>(line: &'a Line, cells: &[Range<usize>], spans: &[(f64, f64)]) -> Vec<(usize, &'a [Word])> {
    let mut placed: Vec<(usize, &'a [Word])> = Vec::new();
    let mut put = |column: usize, words: &'a [Word]| placed.push((column, words));
    for cell in cells {
        let words = &line.words[cell.clone()];
        let (x0, x1) = (words[0].x0, words.iter().map(|w| w.x1).fold(f64::MIN, f64::max));
        let overlapped: Vec<usize> = (0..spans.len()).filter(|&c| x0 < spans[c].1 && x1 > spans[c].0).collect();
        if overlapped.len() <= 1 {
            put(overlapped.first().copied().unwrap_or_else(|| nearest(spans, x0, x1)), words);
            continue;
        }
        let mut from = 0;
        for k in 1..=words.len() {
            let column = |w: &Word| nearest(spans, w.x0, w.x1);
            if k == words.len() || column(&words[k]) != column(&words[from]) {
                put(column(&words[from]), &words[from..k]);
                from = k;
            }
        }
    }
    placed
}

/// The column whose span contains the middle of `x0..x1`, or the one nearest to it.
fn nearest(spans: &[(f64, f64)], x0: f64, x1: f64) -> usize {
    let middle = (x0 + x1) / 2.0;
    let distance = |&(a, b): &(f64, f64)| if middle < a { a - middle } else { (middle - b).max(0.0) };
    (0..spans.len()).min_by(|&a, &b| distance(&spans[a]).total_cmp(&distance(&spans[b]))).unwrap_or(0)
}

/// The first line of each row. Lines closer together than a line of type (cells aligned to their
/// middle print a one-line cell between the lines of a two-line one) are one row. A gap wider
/// than the lines of a cell in the same type starts a row. When the rows are set apart like that
/// (at least two gaps say so, and more than twice as many as the lines with text in the first
/// column without such a gap), nothing else does; otherwise a line with text in the first column starts
/// a row once the row has had such a line, unless it has text in no other column and the row
/// has (the first cell wrapping onto a second line).
fn row_starts(lines: &[Line], geometry: Geometry, columns_of: &dyn Fn(usize) -> Vec<usize>) -> Vec<usize> {
    let pair_size = |k: usize| lines[k].size().max(lines[k - 1].size());
    let gap = |k: usize| (lines[k].y - lines[k - 1].y) / pair_size(k);
    let same_line = 0.8;
    // The lines of a cell in each size of type: the tightest gap between lines of that size
    // (a table has few sizes, so each is found once).
    let mut tightest_by_size: Vec<(f64, f64)> = Vec::new();
    for k in 1..lines.len() {
        let (size, g) = (pair_size(k), gap(k));
        match tightest_by_size.iter_mut().find(|(s, _)| (size - s).abs() <= 0.05 * s) {
            Some((_, tightest)) if g >= same_line => *tightest = tightest.min(g),
            Some(_) => {}
            None => tightest_by_size.push((size, if g >= same_line { g } else { f64::MAX })),
        }
    }
    let tightest =
        |size: f64| tightest_by_size.iter().find(|(s, _)| (size - s).abs() <= 0.05 * s).map_or(f64::MAX, |(_, t)| *t);
    let loose = |k: usize| gap(k) >= same_line && gap(k) > tightest(pair_size(k)) + geometry.row_gap;
    let in_first_column = |k: usize| columns_of(k).contains(&0);
    let set_apart = (1..lines.len()).filter(|&k| loose(k)).count();
    let first_column_only =
        (1..lines.len()).filter(|&k| !loose(k) && gap(k) >= same_line && in_first_column(k)).count();
    let by_spacing = set_apart >= 2 && set_apart > 2 * first_column_only;
    let mut starts = vec![0];
    let mut row_columns = columns_of(0);
    for k in 1..lines.len() {
        let columns = columns_of(k);
        let new_row = if gap(k) < same_line {
            false
        } else if loose(k) || by_spacing {
            loose(k)
        } else {
            let wrapped_first_cell = columns == [0] && row_columns.iter().any(|&c| c != 0);
            in_first_column(k) && row_columns.contains(&0) && !wrapped_first_cell
        };
        if new_row {
            starts.push(k);
            row_columns.clear();
        }
        row_columns.extend(columns);
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of words at `y`, each `(x0, text)`, 10-point type with 5 points per character.
    fn line(y: f64, words: &[(f64, &str)]) -> Line {
        let words = words
            .iter()
            .flat_map(|&(x, text)| {
                let mut x = x;
                text.split(' ')
                    .map(|word| {
                        let w =
                            Word { x0: x, x1: x + 5.0 * word.chars().count() as f64, size: 10.0, text: word.into() };
                        x = w.x1 + 2.5;
                        w
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        Line { y, indent: 0, words }
    }

    fn written(lines: &[Line]) -> String {
        let mut out = String::new();
        write_lines(lines, PRINTED, &mut out);
        out
    }

    #[test]
    fn a_grid_whose_rows_are_set_apart_joins_each_rows_wrapped_cells() {
        // Cells aligned to their top; 12 points between the lines of a cell, 16 between rows.
        let lines = [
            line(0.0, &[(50.0, "Level"), (100.0, "Leverage Ratio"), (250.0, "Term SOFR"), (330.0, "Base Rate")]),
            line(12.0, &[(250.0, "Margin"), (330.0, "Margin")]),
            line(28.0, &[(50.0, "I"), (100.0, "Less than 1.50:1.00"), (250.0, "1.375%"), (330.0, "0.375%")]),
            line(44.0, &[(50.0, "II"), (100.0, "Greater than or"), (250.0, "1.625%"), (330.0, "0.625%")]),
            line(56.0, &[(100.0, "equal to 1.50:1.00")]),
            line(68.0, &[(100.0, "but less than 2.25")]),
            line(84.0, &[(50.0, "III"), (100.0, "2.25:1.00 or more"), (250.0, "1.875%"), (330.0, "0.875%")]),
        ];
        assert_eq!(
            written(&lines),
            "Level | Leverage Ratio | Term SOFR Margin | Base Rate Margin\n\
             I | Less than 1.50:1.00 | 1.375% | 0.375%\n\
             II | Greater than or equal to 1.50:1.00 but less than 2.25 | 1.625% | 0.625%\n\
             III | 2.25:1.00 or more | 1.875% | 0.875%\n"
        );
    }

    #[test]
    fn rows_a_line_apart_start_at_the_first_column_and_a_bottom_aligned_header_is_one_row() {
        // No space between rows: the header's cells are aligned to their bottom, the rows' to
        // their top, and the first cell of a row wraps once.
        let lines = [
            line(0.0, &[(250.0, "Applicable")]),
            line(12.0, &[(50.0, "Level"), (100.0, "Average Usage"), (250.0, "Fee Rate")]),
            line(24.0, &[(50.0, "I"), (100.0, "Less than 35% of the"), (250.0, "0.250%")]),
            line(36.0, &[(100.0, "Maximum Amount")]),
            line(48.0, &[(50.0, "II"), (100.0, "35% or more"), (250.0, "0.375%")]),
            line(90.0, &[(50.0, "Lender"), (250.0, "Commitment")]),
            line(102.0, &[(50.0, "Bank with a long"), (250.0, "$60,000,000")]),
            line(114.0, &[(50.0, "name")]),
            line(126.0, &[(50.0, "Total"), (250.0, "$60,000,000")]),
        ];
        assert_eq!(
            written(&lines),
            "Level | Average Usage | Applicable Fee Rate\n\
             I | Less than 35% of the Maximum Amount | 0.250%\n\
             II | 35% or more | 0.375%\n\n\
             Lender | Commitment\nBank with a long name | $60,000,000\nTotal | $60,000,000\n"
        );
    }

    #[test]
    fn a_one_line_cell_printed_between_the_lines_of_a_two_line_cell_is_in_their_row() {
        // Cells aligned to their middle: the one-line cells sit half a line below the first line.
        let lines = [
            line(0.0, &[(100.0, "Greater than 2.00:1.00")]),
            line(6.0, &[(50.0, "II"), (250.0, "1.50%")]),
            line(12.0, &[(100.0, "but less than 3.00:1.00")]),
            line(28.0, &[(50.0, "III"), (100.0, "3.00:1.00 or more"), (250.0, "1.75%")]),
        ];
        assert_eq!(
            written(&lines),
            "II | Greater than 2.00:1.00 but less than 3.00:1.00 | 1.50%\nIII | 3.00:1.00 or more | 1.75%\n"
        );
    }

    #[test]
    fn prose_stays_as_printed_around_a_table_and_a_numbered_paragraph() {
        let lines = [
            line(0.0, &[(30.0, "the Applicable Rate set forth below, based upon the ratio as follows:")]),
            line(24.0, &[(50.0, "I"), (100.0, "Less than 1.50:1.00"), (250.0, "1.375%")]),
            line(36.0, &[(50.0, "II"), (100.0, "1.50:1.00 or more"), (250.0, "1.625%")]),
            line(60.0, &[(30.0, "(f)"), (80.0, "Fixed Charge Coverage Ratio. Permit, for any Test Period, the")]),
            line(72.0, &[(30.0, "ratio of Total Adjusted EBITDA to Total Debt Service to be less than")]),
            line(84.0, &[(30.0, "1.50 to 1.00.")]),
        ];
        assert_eq!(
            written(&lines),
            "the Applicable Rate set forth below, based upon the ratio as follows:\n\n\
             I | Less than 1.50:1.00 | 1.375%\nII | 1.50:1.00 or more | 1.625%\n\n\
             (f) | Fixed Charge Coverage Ratio. Permit, for any Test Period, the\n\
             ratio of Total Adjusted EBITDA to Total Debt Service to be less than\n1.50 to 1.00.\n"
        );
    }

    #[test]
    fn levels_across_with_a_label_column_close_to_its_figures() {
        let lines = [
            line(0.0, &[(270.0, "Level I"), (330.0, "Level II")]),
            line(12.0, &[(270.0, "Status"), (330.0, "Status")]),
            line(33.0, &[(30.0, "Term Benchmark Loans and Money"), (266.0, "0.700%"), (330.0, "0.725%")]),
            line(45.0, &[(30.0, "Market Loans")]),
            line(57.0, &[(30.0, "ABR Loans"), (266.0, "0.000%"), (330.0, "0.050%")]),
        ];
        assert_eq!(
            written(&lines),
            "Level I Status | Level II Status\nTerm Benchmark Loans and Money Market Loans | 0.700% | 0.725%\nABR Loans | 0.000% | 0.050%\n"
        );
    }
}
