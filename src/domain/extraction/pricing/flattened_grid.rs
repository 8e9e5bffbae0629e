//! Pricing grids whose table lost its layout in a plain-text copy: every cell on a line of its own
//! ("Pricing Level I / 0.000% / 0.700% / 0.050% / Pricing Level II / …"), or the cells of a row run
//! together ("IBaa3/BBB- or better2.00%1.00%IIBa1/BB+ or worse2.25%1.25%"). The figures still come
//! in rows of equal length, one row after each level's label, and the heading still names the
//! columns in order ("ABR Advances", "Eurodollar Advances", "Facility Fee"). A grid is read only
//! when the heading names exactly as many columns as every row has figures, one of them the
//! margin over the benchmark: a column the heading does not name ("Drawn Cost"), a heading that
//! names a column twice, or a figure that may have run into the digits of its label ("A/A21.25%")
//! leaves it unread.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use crate::domain::extraction::benchmarks::BenchmarkMatch;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::PricingGridLevel;
use crate::domain::extraction::numbers::parse_percent;
use crate::domain::extraction::text::{floor_boundary, pattern};

/// A grid read from a flattened table: where it is, its levels and the benchmark its heading names.
pub(super) struct FlatGrid {
    pub range: Range<usize>,
    pub levels: Vec<PricingGridLevel>,
    pub benchmark: Option<BenchmarkMatch>,
}

/// A figure of the grid, in percent.
static FIGURE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?:[0-9]{1,2}(?:\.[0-9]{1,4})?|\.[0-9]{1,4})[ \t]?%"));

/// The words of a heading that name a column, in the order the columns are laid out. Longer
/// phrases come first: "Non-Base Rate" is the benchmark's column, "Letter of Credit Fee" a fee
/// that is neither the margin nor the commitment fee.
static COLUMN_KEY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?P<fee>\b(?:facility|commitment|unused(?:[ \t\r\n]+commitment)?|ticking)[ \t\r\n]+fees?\b)|(?P<other>\b(?:letters?[ \t\r\n]+of[ \t\r\n]+credit|l/c)[ \t\r\n]+fees?\b)|(?P<spread>\bnon[ \t]*-?[ \t]*base[ \t\r\n]+rate\b|\beuro[ \t-]?dollar|\beurocurrency|\blibor?\b|\bsofr\b|\bterm[ \t\r\n]+benchmark\b|\brfr\b|\bcdor\b)|(?P<base>\b(?:alternate[ \t\r\n]+)?base[ \t\r\n]+rate\b|\babr\b|\bprime[ \t\r\n]+rate\b)",
    )
});

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Fee,
    Other,
    Spread,
    Base,
}

/// How far below its introduction a flattened grid may start, and how long it may run.
const MAX_HEADING: usize = 700;
const MAX_GRID: usize = 4_000;
/// The longest label of a level ("Level 4 Lower than A- by S&P/A3 by Moody's or unrated").
const MAX_LABEL: usize = 120;

/// The flattened grid that starts after `from` (the end of its introduction's line), if any.
pub(super) fn read(doc: &Document<'_>, from: usize) -> Option<FlatGrid> {
    let region = grid_region(doc.text, from)?;
    let text = doc.slice(region.clone());
    // Runs of figures with only white space between them: one run a row.
    let mut runs: Vec<Vec<Range<usize>>> = Vec::new();
    let mut last_end: Option<usize> = None;
    for figure in FIGURE.find_iter(text) {
        // "A/A21.25%": the label's last digit and the figure cannot be told apart.
        let run_in = text[..figure.start()].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric());
        if run_in && figure.as_str().split('.').next().is_some_and(|whole| whole.len() > 1) {
            return None;
        }
        let range = region.start + figure.start()..region.start + figure.end();
        match (last_end, runs.last_mut()) {
            (Some(end), Some(run)) if text[end..figure.start()].trim().is_empty() => run.push(range),
            _ => runs.push(vec![range]),
        }
        last_end = Some(figure.end());
    }
    let width = runs.first()?.len();
    if runs.len() < 2 || !(1..=6).contains(&width) || runs.iter().any(|run| run.len() != width) {
        return None;
    }
    let first_figure = runs.first()?.first()?.start;
    let last_figure = runs.last()?.last()?.end;
    if !doc.slice(last_figure..region.end).trim().is_empty() {
        return None;
    }
    let heading = region.start..first_figure;
    let keys: Vec<Key> = COLUMN_KEY.captures_iter(doc.slice(heading.clone())).filter_map(|c| key_of(&c)).collect();
    let [spread_column] =
        keys.iter().enumerate().filter(|(_, k)| **k == Key::Spread).map(|(i, _)| i).collect::<Vec<_>>()[..]
    else {
        return None;
    };
    if keys.len() != width {
        return None;
    }
    let mut labels = vec![first_label(doc, heading.clone())?];
    for pair in runs.windows(2) {
        let between = pair[0].last()?.end..pair[1].first()?.start;
        labels.push(label_in(doc, between)?);
    }
    let column = |run: &[Range<usize>], key: Key| -> Option<Range<usize>> {
        keys.iter().position(|k| *k == key).and_then(|i| run.get(i)).cloned()
    };
    let fraction = |cell: Option<Range<usize>>| -> Option<_> {
        let cell = cell?;
        let value: Decimal = parse_percent(doc.slice(cell.clone()))?;
        doc.sourced(cell, value)
    };
    let mut levels = Vec::new();
    for (run, label) in runs.iter().zip(labels) {
        let spread = fraction(run.get(spread_column).cloned())?;
        let name = doc.slice(label.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
        let names_level =
            ["level", "tier", "category", "pricing"].iter().any(|w| name.to_ascii_lowercase().contains(w));
        let label = doc.sourced(label, name);
        levels.push(PricingGridLevel {
            level: if names_level { label.clone() } else { None },
            condition: if names_level { None } else { label },
            spread: Some(spread),
            base_rate_spread: fraction(column(run, Key::Base)),
            commitment_fee: fraction(column(run, Key::Fee)),
        });
    }
    let benchmark = doc.benchmarks_in(heading).iter().find(|b| !b.base_rate).cloned();
    Some(FlatGrid { range: first_figure..last_figure, levels, benchmark })
}

fn key_of(captures: &regex::Captures<'_>) -> Option<Key> {
    [("fee", Key::Fee), ("other", Key::Other), ("spread", Key::Spread), ("base", Key::Base)]
        .into_iter()
        .find_map(|(name, key)| captures.name(name).map(|_| key))
}

/// The lines a flattened grid may occupy: its heading (blank lines allowed before the first
/// figure), then its rows, up to the first blank line or the next definition.
fn grid_region(text: &str, from: usize) -> Option<Range<usize>> {
    let end = floor_boundary(text, from.saturating_add(MAX_GRID));
    let mut seen_figure = false;
    let mut position = from;
    let mut region_end = from;
    for line in text.get(from..end)?.split_inclusive('\n') {
        let content = line.trim();
        let opens_definition = content.starts_with(['“', '"']) && position > from;
        if (content.is_empty() && seen_figure) || opens_definition {
            break;
        }
        if !seen_figure && FIGURE.is_match(line) {
            seen_figure = true;
        }
        if !seen_figure && position + line.len() - from > MAX_HEADING {
            return None;
        }
        position += line.len();
        region_end = position;
    }
    (seen_figure && region_end > from).then_some(from..region_end)
}

/// The first level's label: the last line of the heading, on which the first row begins.
fn first_label(doc: &Document<'_>, heading: Range<usize>) -> Option<Range<usize>> {
    let text = doc.slice(heading.clone()).trim_end();
    let line_start = text.rfind('\n').map_or(0, |i| i + 1);
    label_in(doc, heading.start + line_start..heading.start + text.len())
}

/// The label between two rows of figures: a short phrase, not a sentence.
fn label_in(doc: &Document<'_>, between: Range<usize>) -> Option<Range<usize>> {
    let text = doc.slice(between.clone());
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.len() > MAX_LABEL || trimmed.contains(". ") || trimmed.contains(';') {
        return None;
    }
    let start = between.start + (text.len() - text.trim_start().len());
    Some(start..start + trimmed.len())
}
