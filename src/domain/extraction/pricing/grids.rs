//! Pricing grids: the levels of a margin ratchet laid out as a table (a column per facility or
//! per loan type, or levels across) or written as prose lists (see [`super::prose_grid`]), with
//! the benchmark their headings name and the level in force until the first adjustment.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use super::candidates::PricingCandidates;
use super::flattened_grid;
use super::index::preferred_of_joined;
use super::margins::names_loans_of_another_rate;
use super::prose_grid::{self, LoanRate};
use crate::domain::extraction::benchmarks::BenchmarkMatch;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::facility_refs::FacilityKey;
use crate::domain::extraction::model::{FloatingRateIndex, PricingGridLevel};
use crate::domain::extraction::numbers::{parse_decimal, parse_percent};
use crate::domain::extraction::scope::{Scope, Scoped, facilities_named_in, scope_at, scope_of};
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{
    Table, before, capitalisable, contains_any_ci, contains_ci, floor_boundary, line_around, pattern, sentence_around,
    wrapped_table_after,
};

static GRID_INTRO: LazyLock<Regex> = LazyLock::new(|| {
    let phrases = [
        "set out below",
        "set forth below",
        "the following table",
        "the following grid",
        "the following pricing",
        "the following percentages",
        "table below",
        "pricing grid",
        "margin ratchet",
        "column opposite",
        "as follows",
    ];
    let alternatives: Vec<String> = phrases.iter().map(|p| capitalisable(p)).collect();
    pattern(&format!(r"\b(?:{})\b", alternatives.join("|")))
});

/// A margin stated over a benchmark: "150 basis points over Libor", "1.25% above the LIBO Rate".
static MARGIN_OVER_BENCHMARK: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?:%|per[ \t]?cent|percent|basis[ \t\r\n]+points?)[ \t\r\n]+(?:per[ \t\r\n]+annum[ \t\r\n]+)?(?:over|above|in[ \t\r\n]+excess[ \t\r\n]+of)[ \t\r\n]+(?:the[ \t\r\n]+)?(?:libor|libo[ \t\r\n]+rate|eurodollar[ \t\r\n]+rate|london[ \t\r\n]+interbank)",
    )
});

/// The role of a pricing-grid column, from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Level,
    Condition,
    Spread,
    BaseRate,
    Fee,
    Ignored,
}

fn column_role(header: &str) -> Column {
    let lower = header.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if any(&["commitment fee", "unused", "facility fee", "ticking"]) {
        Column::Fee
    } else if any(&["letter of credit fee", "l/c fee"]) && !any(&["sofr", "benchmark", "eurocurrency", "margin"]) {
        Column::Ignored
    } else if lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == "cd") || any(&["certificate of deposit"]) {
        // The margin over a CD rate, which is not a floating-rate benchmark.
        Column::Ignored
    } else if any(&["base rate", "abr", "prime"]) && !names_non_base_rate(&lower) {
        Column::BaseRate
    } else if any(&[
        "sofr",
        "benchmark",
        "eurocurrency",
        "euribor",
        "sonia",
        "margin",
        "applicable rate",
        "spread",
        "rfr",
        "libor",
        "term rate",
        "facility",
    ]) || names_non_base_rate(&lower)
    {
        Column::Spread
    } else if any(&["level", "tier", "category", "pricing"]) {
        Column::Level
    } else if any(&[
        "ratio", "leverage", "rating", "coverage", "s&p", "moody", "fitch", "debt", "cover", "income", "ebitda",
    ]) {
        Column::Condition
    } else {
        Column::Ignored
    }
}

/// "Non-Base Rate Loans" (also printed "Non -Base Rate", "Non- Base Rate") are the loans that do
/// not bear the base rate: those bearing the benchmark.
fn names_non_base_rate(lower_header: &str) -> bool {
    let squeezed: String = lower_header.chars().filter(|c| !c.is_whitespace() && *c != '-').collect();
    squeezed.contains("nonbaserate")
}

static NUMERIC_CELL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^(?:[0-9]{1,4}(?:\.[0-9]{1,6})?|\.[0-9]{1,6})[ \t]?[¼½¾⅛⅜⅝⅞]?[ \t]*(?:%|per[ \t]?cent\.?|percent|percentage[ \t]+points?|bps|basis[ \t]+points?)?(?:[ \t]+per[ \t]+annum)?(?P<over>[ \t]+(?:over|above|plus)[ \t]+(?:the[ \t]+)?[A-Za-z][A-Za-z .\-]{0,30})?$",
    )
});

fn is_numeric_cell(cell: &str) -> bool {
    NUMERIC_CELL.is_match(cell.trim())
}

/// The fraction a grid cell states; a bare number takes its unit from the column header. A cell
/// may name the rate it is added to ("175 basis points over Libor"), which the header also names.
fn cell_fraction(cell: &str, header_in_bps: bool) -> Option<Decimal> {
    let mut trimmed = cell.trim();
    if let Some(over) = NUMERIC_CELL.captures(trimmed).and_then(|c| c.name("over")) {
        trimmed = trimmed.get(..over.start()).unwrap_or(trimmed).trim_end();
    }
    if let Some(explicit) = parse_percent(trimmed.trim_end_matches(" per annum")) {
        return Some(explicit);
    }
    let number = parse_decimal(trimmed)?;
    let divisor = if header_in_bps { Decimal::from(10_000) } else { Decimal::ONE_HUNDRED };
    number.checked_div(divisor).map(|d| d.normalize())
}

/// Finds the pricing grids, tables and lists written as prose (see [`prose_grid`]), adds them (and
/// the benchmarks their headers name) to `out`, and returns the ranges they occupy so their
/// figures are not read again as flat margins.
pub(super) fn read(
    doc: &Document<'_>,
    pricing_regions: &[Range<usize>],
    out: &mut PricingCandidates,
) -> Vec<Range<usize>> {
    let mut occupied: Vec<Range<usize>> = Vec::new();
    for intro in GRID_INTRO.find_iter(doc.text) {
        if occupied.last().is_some_and(|r| intro.start() < r.end) {
            continue;
        }
        let context_start = doc
            .structure
            .definition_at(intro.start())
            .map_or(intro.start().saturating_sub(800), |d| d.term.start)
            .max(intro.start().saturating_sub(1200));
        let context = doc.slice(floor_boundary(doc.text, context_start)..intro.end());
        // The table prices loans: the text before it speaks of margins or pricing, or of a rate
        // stated as a margin over a benchmark ("the Libor Option Rate means 150 basis points
        // over Libor … will be as follows").
        let priced = contains_any_ci(context, &["margin", "applicable rate", "pricing", "spread", "commitment fee"])
            || MARGIN_OVER_BENCHMARK.is_match(context);
        if !priced {
            continue;
        }
        let Some(line) = line_around(doc.text, intro.end(), 2000) else { continue };
        // A grid that replaces the margins once a sustainability target is met adjusts the
        // pricing; the margins in force are the other grid's.
        let sustainability = contains_ci(doc.slice(sentence_around(doc.text, intro.start())), "sustainab");
        let table = wrapped_table_after(doc.text, line.end, is_numeric_cell);
        if sustainability {
            occupied.extend(table.map(|t| t.range));
            continue;
        }
        // A table read as one, else the same grid flattened by a plain-text copy.
        let read_as_table = table.as_ref().and_then(|t| Some((t.range.clone(), grid_levels(doc, t)?)));
        let Some((table_range, levels_by_column)) = read_as_table.or_else(|| {
            flattened_grid::read(doc, line.end)
                .map(|grid| (grid.range, vec![(Vec::new(), grid.levels, grid.benchmark)]))
        }) else {
            continue;
        };
        let table_scope = scope_of(doc, intro.start());
        if table_scope.keys.is_empty()
            && table_scope.except.is_empty()
            && names_several_facilities_before(doc, intro.start())
        {
            // "(a) For Term Loans, … (b) For all other Loans: … set forth below": the definition
            // prices facilities differently, and a grid whose own facility cannot be read is not
            // every facility's.
            occupied.push(table_range);
            continue;
        }
        let initial = initial_level(doc, intro.start());
        for (column_keys, levels, benchmark) in levels_by_column {
            let scope = if column_keys.is_empty() {
                table_scope.clone()
            } else {
                Scope { keys: column_keys, except: Vec::new() }
            };
            if let Some(mention) = benchmark
                && let Some(index) = doc.sourced(mention.span.clone(), mention.index)
            {
                out.indices.push(Scoped::with_scope(index, scope.clone()));
            }
            // "as of the Closing Date and until the first Adjustment Date, the applicable
            // percentage specified in Tier I below": the margin in force is that level's.
            if let Some(level) = initial.as_deref().and_then(|name| levels.iter().find(|l| same_level(l, name))) {
                if let Some(spread) = &level.spread {
                    out.spreads.push(Scoped::with_scope(spread.clone(), scope.clone()));
                }
                if let Some(spread) = &level.base_rate_spread {
                    out.base_spreads.push(Scoped::with_scope(spread.clone(), scope.clone()));
                }
            }
            out.grids.push(Scoped::with_scope(levels, scope));
        }
        occupied.push(table_range);
    }
    let tables = occupied.clone();
    for grid in prose_grid::read(doc, pricing_regions, |range| loans_priced_by(doc, range)) {
        if tables.iter().any(|table| table.start < grid.range.end && grid.range.start < table.end) {
            continue;
        }
        let scope = scope_at(doc, grid.range.start);
        if scope.is_empty() && names_several_facilities_before(doc, grid.range.start) {
            occupied.push(grid.range);
            continue;
        }
        let header_keys: Vec<Vec<FacilityKey>> =
            grid.columns.iter().map(|column| facilities_named_in(doc, column.header.clone())).collect();
        // "(a) for Term Loans, (i) … (b) for all other Loans, (i) …": once one list names its
        // facility, a list that names none prices facilities this reading cannot tell.
        let some_named = header_keys.iter().any(|keys| !keys.is_empty());
        for (column, keys) in grid.columns.into_iter().zip(header_keys) {
            if keys.is_empty() && some_named {
                continue;
            }
            let keys = if keys.is_empty() { scope.clone() } else { keys };
            if let Some(index) = column.index {
                out.indices.push(Scoped::new(index, keys.clone()));
            }
            out.grids.push(Scoped::new(column.levels, keys));
        }
        occupied.push(grid.range);
    }
    occupied
}

/// "the applicable percentage specified in Tier I below", "shall be set at Level II".
static NAMED_LEVEL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:specified|set[ \t\r\n]+forth|set[ \t\r\n]+out|shown|indicated|set|determined)[ \t\r\n]+(?:in|at|for|by|opposite)[ \t\r\n]+(?:the[ \t\r\n]+)?(?:row[ \t\r\n]+(?:for|of)[ \t\r\n]+)?(?:pricing[ \t\r\n]+)?(?:tier|level|category)[ \t\r\n]+(?P<name>[ivx]+|[0-9]+|[a-f])\b",
    )
});

/// The grid level in force from the start, when the definition introducing a grid at `intro`
/// names it for the first period ("as of the Closing Date and through … the first Adjustment
/// Date, the applicable percentage specified in Tier I below").
fn initial_level(doc: &Document<'_>, intro: usize) -> Option<String> {
    let definition = doc.structure.definition_at(intro)?;
    let lead = doc.slice(definition.body.start..intro);
    let found = NAMED_LEVEL.captures_iter(lead).next()?;
    let named = found.get(0)?;
    let sentence = doc.slice(sentence_around(doc.text, definition.body.start + named.start()));
    let first_period =
        contains_any_ci(sentence, &["closing date", "effective date", "until", "prior to", "through", "initially"]);
    let other_use = contains_any_ci(sentence, &["highest", "lowest", "default", "fail"]);
    (first_period && !other_use).then(|| found["name"].to_ascii_uppercase())
}

/// Whether a grid level is the one named `name` ("I" names "Tier I", "Level I" and "I").
fn same_level(level: &PricingGridLevel, name: &str) -> bool {
    level.level.as_ref().is_some_and(|l| {
        let label = l.value().trim().to_ascii_uppercase();
        label == name || label.rsplit(' ').next() == Some(name)
    })
}

/// What the loans named in `range` bear, for the lists of a prose grid: "with respect to
/// Eurodollar Loans" (the benchmark: Eurodollar and Eurocurrency loans bear the interbank rate
/// whatever the agreement calls it), "for Base Rate Loans", "for Fixed CD Rate Loans" (another
/// rate). Words naming both the base rate and the benchmark do not say which.
fn loans_priced_by(doc: &Document<'_>, range: Range<usize>) -> LoanRate {
    let text = doc.slice(range.clone());
    let lower = text.to_ascii_lowercase();
    let cd_rate = lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == "cd")
        || lower.contains("certificate of deposit");
    if cd_rate {
        return LoanRate::Other;
    }
    let mentions = doc.benchmarks_in(range.clone());
    let benchmark = mentions.iter().find(|b| !b.base_rate && b.index != FloatingRateIndex::UsdPrime);
    let index = |mention: &BenchmarkMatch| {
        let mention = preferred_of_joined(doc, mention.clone());
        doc.sourced(mention.span.clone(), mention.index)
    };
    if names_non_base_rate(&lower) {
        return LoanRate::Benchmark(benchmark.and_then(index));
    }
    let base_rate = mentions.iter().any(|b| b.base_rate || b.index == FloatingRateIndex::UsdPrime);
    match (base_rate, benchmark) {
        (true, Some(_)) => LoanRate::Other,
        (true, None) => LoanRate::BaseRate,
        (false, Some(mention)) => LoanRate::Benchmark(index(mention)),
        (false, None) if names_loans_of_another_rate(doc, range) => LoanRate::Other,
        (false, None) if lower.contains("euro") => LoanRate::Benchmark(None),
        (false, None) => LoanRate::Unstated,
    }
}

/// Whether the definition containing `pos` names two or more different facilities before it.
fn names_several_facilities_before(doc: &Document<'_>, pos: usize) -> bool {
    let Some(definition) = doc.structure.definition_at(pos) else { return false };
    let refs = doc.refs_in(definition.body.start..pos);
    refs.iter().any(|r| r.key != refs[0].key)
}

type GridColumn = (Vec<FacilityKey>, Vec<PricingGridLevel>, Option<BenchmarkMatch>);

/// The levels of a pricing grid, one list per margin column (LMA ratchets give each facility its
/// own column). `None` when the table has no margin column.
fn grid_levels(doc: &Document<'_>, table: &Table) -> Option<Vec<GridColumn>> {
    let header = table.header.as_ref()?;
    let column_texts: Vec<String> = header.iter().map(|cell| column_heading(doc, cell, &table.header_above)).collect();
    let roles: Vec<Column> = column_texts.iter().map(|text| column_role(text)).collect();
    let in_bps: Vec<bool> = column_texts.iter().map(|text| contains_any_ci(text, &["bps", "basis point"])).collect();
    let spread_columns: Vec<usize> =
        roles.iter().enumerate().filter(|(_, r)| **r == Column::Spread).map(|(i, _)| i).collect();
    if spread_columns.is_empty() {
        return levels_across(doc, table, &roles).map(|levels| vec![(Vec::new(), levels, None)]);
    }
    let mut columns = Vec::new();
    for &spread_column in &spread_columns {
        let header_cell = header.get(spread_column)?;
        let keys: Vec<_> = doc.refs_in(header_cell.clone()).iter().map(|r| r.key).collect();
        // The benchmark may be named on a line of a wrapped heading above ("LIBOR / MARGIN").
        let benchmark = heading_cells(doc, header_cell, &table.header_above)
            .into_iter()
            .find_map(|cell| doc.benchmarks_in(cell).iter().find(|b| !b.base_rate).cloned());
        let mut levels = Vec::new();
        for row in &table.rows {
            let cells = align(doc, row, &roles);
            let cell_for = |role: Column| {
                cells.iter().find(|(r, _, _)| *r == role).map(|(_, cell, column)| (cell.clone(), *column))
            };
            let spread = cells.iter().find(|(_, _, column)| *column == spread_column).and_then(|(_, cell, _)| {
                sourced_fraction(doc, cell, in_bps.get(spread_column).copied().unwrap_or(false))
            });
            // A level may apply another rate instead of a margin ("Below 0 | Prime Rate"): it is a
            // level of the grid, with no margin over the benchmark.
            let names_rate = || {
                cells.iter().find(|(_, _, column)| *column == spread_column).is_some_and(|(_, cell, _)| {
                    !doc.benchmarks_in(cell.clone()).is_empty() && doc.percents_in(cell.clone()).is_empty()
                })
            };
            if spread.is_none() && !names_rate() {
                continue;
            }
            let text_cell = |role: Column| {
                cell_for(role).and_then(|(cell, _)| {
                    let text = doc.slice(cell.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
                    doc.sourced(cell, text)
                })
            };
            let fraction_cell = |role: Column| {
                cell_for(role).and_then(|(cell, column)| {
                    sourced_fraction(doc, &cell, in_bps.get(column).copied().unwrap_or(false))
                })
            };
            levels.push(PricingGridLevel {
                level: text_cell(Column::Level),
                condition: text_cell(Column::Condition),
                spread,
                base_rate_spread: fraction_cell(Column::BaseRate),
                commitment_fee: fraction_cell(Column::Fee),
            });
        }
        if levels.iter().filter(|level| level.spread.is_some()).count() >= 2 {
            columns.push((keys, levels, benchmark));
        }
    }
    (!columns.is_empty()).then_some(columns)
}

/// The levels of a grid laid out across: the header names the levels ("Level I Status | Level II
/// Status"), and each row gives one kind of loan its margin at every level ("Eurodollar Loans |
/// 0.500% | 0.625%"). The margin row is the one loan kind that bears neither the base rate nor
/// another rate (a CD rate) nor a fee; with none or several such rows, there is no reading.
fn levels_across(doc: &Document<'_>, table: &Table, roles: &[Column]) -> Option<Vec<PricingGridLevel>> {
    let header = table.header.as_ref()?;
    if header.len() < 2 || !roles.iter().all(|role| *role == Column::Level) {
        return None;
    }
    let margin_rows: Vec<&Vec<Range<usize>>> = table
        .rows
        .iter()
        .filter(|row| {
            let Some(label) = row.first() else { return false };
            let label = doc.slice(label.clone());
            let role = column_role(label);
            let cd_rate = label.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w.eq_ignore_ascii_case("cd"));
            !is_numeric_cell(label)
                && !matches!(role, Column::BaseRate | Column::Fee)
                && !cd_rate
                && !contains_ci(label, "fee")
                && row.iter().skip(1).all(|cell| is_numeric_cell(doc.slice(cell.clone())))
        })
        .collect();
    let [row] = margin_rows.as_slice() else { return None };
    let figures = row.get(1..)?;
    if figures.len() != header.len() {
        return None;
    }
    let levels: Vec<PricingGridLevel> = header
        .iter()
        .zip(figures)
        .map(|(level, figure)| {
            let name = doc.slice(level.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
            PricingGridLevel {
                level: doc.sourced(level.clone(), name),
                condition: None,
                spread: sourced_fraction(doc, figure, false),
                base_rate_spread: None,
                commitment_fee: None,
            }
        })
        .collect();
    (levels.iter().filter(|level| level.spread.is_some()).count() >= 2).then_some(levels)
}

/// A column's heading: its cell in the header's last line, after the cells above it in a header
/// wrapped over several lines (those that overlap it horizontally).
fn column_heading(doc: &Document<'_>, cell: &Range<usize>, above: &[Vec<Range<usize>>]) -> String {
    heading_cells(doc, cell, above).into_iter().map(|range| doc.slice(range)).collect::<Vec<_>>().join(" ")
}

/// The cells that make up a column's heading, top line first: see [`column_heading`].
fn heading_cells(doc: &Document<'_>, cell: &Range<usize>, above: &[Vec<Range<usize>>]) -> Vec<Range<usize>> {
    let column = |range: &Range<usize>| {
        let back = before(doc.text, range.start, 400);
        let line_start = doc.slice(back.clone()).rfind('\n').map_or(back.start, |i| back.start + i + 1);
        let from = range.start - line_start;
        from..from + range.len()
    };
    let own = column(cell);
    let mut cells: Vec<Range<usize>> = Vec::new();
    for line in above {
        for other in line {
            let theirs = column(other);
            if theirs.start < own.end && own.start < theirs.end {
                cells.push(other.clone());
            }
        }
    }
    cells.push(cell.clone());
    cells
}

fn sourced_fraction(doc: &Document<'_>, cell: &Range<usize>, in_bps: bool) -> Option<Sourced<Decimal>> {
    let fraction = cell_fraction(doc.slice(cell.clone()), in_bps)?;
    doc.sourced(cell.clone(), fraction)
}

/// Gives each cell of a row its column role. Rows with as many cells as the header align by
/// position; otherwise figures fill the figure columns and text fills the text columns, in order.
fn align(doc: &Document<'_>, row: &[Range<usize>], roles: &[Column]) -> Vec<(Column, Range<usize>, usize)> {
    if row.len() == roles.len() {
        return row.iter().zip(roles).enumerate().map(|(i, (cell, role))| (*role, cell.clone(), i)).collect();
    }
    let figure_columns: Vec<usize> = roles
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Column::Spread | Column::BaseRate | Column::Fee))
        .map(|(i, _)| i)
        .collect();
    let text_columns: Vec<usize> = roles
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Column::Level | Column::Condition))
        .map(|(i, _)| i)
        .collect();
    let (mut figures, mut texts) = (figure_columns.into_iter(), text_columns.into_iter());
    let mut aligned = Vec::new();
    for cell in row {
        let column = if is_numeric_cell(doc.slice(cell.clone())) { figures.next() } else { texts.next() };
        if let Some(column) = column
            && let Some(role) = roles.get(column)
        {
            aligned.push((*role, cell.clone(), column));
        }
    }
    aligned
}
