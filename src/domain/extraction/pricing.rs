//! Pricing: benchmark, margin (flat or by pricing grid), floor, commitment fee, interest periods,
//! payment frequency and day count, each read as candidates scoped to facilities and resolved per
//! facility (see [`super::scope`]).

mod prose_grid;

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use super::benchmarks::{BenchmarkMatch, is_margin_term};
use super::currency::CurrencyCode;
use super::document::{Document, Report};
use super::facility_refs::FacilityKey;
use super::model::{
    CommitmentFee, DayCountFraction, Facility, FacilityType, FloatingRateIndex, Period, PricingGridLevel,
};
use super::numbers::{PercentMatch, parse_decimal, parse_percent};
use super::scope::{
    FacilityFrame, Scope, Scoped, applicable, applies_once_extended, covers, resolve, scope_at, scope_of,
};
use super::sourced::Sourced;
use super::text::{
    Table, after, any_word, before, capitalisable, clause_around, contains_any_ci, contains_ci, pattern,
    sentence_around, wrapped_table_after,
};
use prose_grid::LoanRate;

/// Every pricing statement, scoped to facilities.
#[derive(Debug, Default)]
pub(crate) struct PricingCandidates {
    pub spreads: Vec<Scoped<Sourced<Decimal>>>,
    pub base_spreads: Vec<Scoped<Sourced<Decimal>>>,
    pub indices: Vec<Scoped<Sourced<FloatingRateIndex>>>,
    pub grids: Vec<Scoped<Vec<PricingGridLevel>>>,
    pub floors: Vec<Scoped<Sourced<Decimal>>>,
    pub fees: Vec<Scoped<Sourced<CommitmentFee>>>,
    pub day_counts: Vec<Scoped<Sourced<DayCountFraction>>>,
    pub frequencies: Vec<Scoped<Sourced<Period>>>,
    pub interest_periods: Vec<Scoped<Sourced<Vec<Period>>>>,
    pub tenors: Vec<Scoped<Sourced<Period>>>,
    pub optional_currencies: Vec<Sourced<CurrencyCode>>,
}

/// What a stated percentage is, judged from the words around it in its clause.
#[derive(Clone, Debug)]
enum RateKind {
    /// A margin over this benchmark.
    Benchmark(BenchmarkMatch),
    /// A margin over the base rate / ABR.
    BaseRate,
    /// A commitment fee.
    Fee,
    /// A floor.
    Floor,
    /// A rate with no qualifier in its clause.
    Unqualified,
    /// A default rate, step, adjustment or superseded value: not a margin.
    Excluded,
}

/// Clause words that mark a percentage as something other than the margin itself.
static NOT_A_MARGIN: LazyLock<Regex> = LazyLock::new(|| any_word(NOT_A_MARGIN_WORDS));

const NOT_A_MARGIN_WORDS: &[&str] = &[
    "default",
    "overdue",
    "step-up",
    "step up",
    "sustainab",
    "kpi",
    "esg",
    "adjustment",
    "increased by",
    "increasing by",
    "increase by",
    "decreased by",
    "reduced by",
    "federal funds",
    "highest of",
    "greatest of",
    "credit spread",
    "plus 1%",
];

static BINDS_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:loans?[ \t\r\n]*)?(?:\+|plus|over|above)?[ \t\r\n]*(?:the[ \t\r\n]+)?(?:applicable[ \t\r\n]+)?(?:a[ \t\r\n]+)?(?:margin|spread|rate)?[ \t\r\n]*(?:of|:|=)?[ \t\r\n]*$",
    )
});

static BINDS_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:per[ \t\r\n]+annum[ \t\r\n]*)?,?[ \t\r\n]*(?:for|in[ \t\r\n]+the[ \t\r\n]+case[ \t\r\n]+of|with[ \t\r\n]+respect[ \t\r\n]+to|in[ \t\r\n]+respect[ \t\r\n]+of|on|above|over|in[ \t\r\n]+excess[ \t\r\n]+of)[ \t\r\n]+(?:the[ \t\r\n]+|any[ \t\r\n]+|each[ \t\r\n]+|all[ \t\r\n]+|applicable[ \t\r\n]+)*$",
    )
});

static FLOOR_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:\(|-)?[ \t]*(?:(?:term[ \t]+)?sofr[ \t]+|euribor[ \t]+|sonia[ \t]+|benchmark[ \t]+|index[ \t]+|interest[ \t]+rate[ \t]+)?floor\b",
    )
});

/// Classifies one stated percentage.
fn rate_kind(doc: &Document<'_>, pct: &PercentMatch) -> RateKind {
    let clause = clause_around(doc.text, pct.span.start);
    let in_clause = doc.percents_in(clause.clone());
    let previous_end = in_clause.iter().rev().find(|p| p.span.end <= pct.span.start).map(|p| p.span.end);
    let next_start = in_clause.iter().find(|p| p.span.start >= pct.span.end).map(|p| p.span.start);
    let before_range =
        clause.start.max(previous_end.unwrap_or(0)).max(pct.span.start.saturating_sub(100))..pct.span.start;
    let after_end = clause.end.min(next_start.unwrap_or(usize::MAX)).min(pct.span.end.saturating_add(100));
    let after_range = pct.span.end..after_end.max(pct.span.end);
    let before_text = doc.slice(before_range.clone()).to_ascii_lowercase();
    let after_text = doc.slice(after_range.clone());
    let before_trimmed = before_text.trim_end();
    if before_trimmed.ends_with("from") && after_text.trim_start().to_ascii_lowercase().starts_with("to ") {
        return RateKind::Excluded;
    }
    if ["floor of", "floor equal to", "floor rate of", "minimum of", "floor:"]
        .iter()
        .any(|w| before_trimmed.ends_with(w))
        || FLOOR_AFTER.is_match(after_text)
    {
        return RateKind::Floor;
    }
    if ["commitment fee", "unused fee", "undrawn", "ticking fee"].iter().any(|w| before_text.contains(w))
        || contains_ci(after_text.get(..after_text.len().min(60)).unwrap_or(after_text), "commitment fee")
    {
        return RateKind::Fee;
    }
    let lead_in = doc.slice(clause.start..pct.span.start);
    let trailing = after_text.get(..after_text.len().min(40)).unwrap_or(after_text);
    if super::text::matches_outside_date_names(&NOT_A_MARGIN, lead_in)
        || contains_any_ci(trailing, &["otherwise", "adjustment"])
    {
        return RateKind::Excluded;
    }
    if names_loans_of_another_rate(doc, clause.start..pct.span.start) {
        return RateKind::Excluded;
    }
    let mention_before = doc.benchmarks_in(before_range).last().cloned();
    let mention_after = doc.benchmarks_in(after_range).first().cloned();
    let binds_before =
        mention_before.as_ref().filter(|b| BINDS_BEFORE.is_match(doc.slice(b.span.end..pct.span.start))).cloned();
    let binds_after =
        mention_after.as_ref().filter(|b| BINDS_AFTER.is_match(doc.slice(pct.span.end..b.span.start))).cloned();
    let chosen = binds_before.or(binds_after).or_else(|| match (mention_before, mention_after) {
        (Some(b), Some(a)) => {
            if pct.span.start - b.span.end <= a.span.start.saturating_sub(pct.span.end) {
                Some(b)
            } else {
                Some(a)
            }
        }
        (b, a) => b.or(a),
    });
    match chosen {
        Some(mention) if mention.base_rate => RateKind::BaseRate,
        Some(mention) => RateKind::Benchmark(preferred_of_joined(doc, mention)),
        None => RateKind::Unqualified,
    }
}

/// "with respect to Term SOFR Loans and Daily Simple SOFR Loans, 0.75%": one margin stated for
/// loans of two benchmarks of one currency. The facility's index is then the one the agreement
/// prefers by the rule `default_index` documents (Term SOFR before daily SOFR, EURIBOR before
/// €STR), not whichever happens to stand nearer the figure.
fn preferred_of_joined(doc: &Document<'_>, mention: BenchmarkMatch) -> BenchmarkMatch {
    let mut best = mention.clone();
    let mut end = mention.span.start;
    for earlier in doc.benchmarks_in(before(doc.text, mention.span.start, 80)).iter().rev() {
        let joiner = doc.slice(earlier.span.end..end).to_ascii_lowercase();
        let only_joins = joiner
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/'))
            .all(|w| matches!(w, "" | "and" | "or" | "loans" | "loan" | "advances" | "borrowings"));
        if !only_joins || earlier.base_rate {
            break;
        }
        if let (Some(this), Some(that)) = (preference(earlier.index), preference(best.index))
            && this.0 == that.0
            && this.1 < that.1
        {
            best = earlier.clone();
        }
        end = earlier.span.start;
    }
    best
}

/// The currency and rank of an index among those the agreement may define for that currency.
fn preference(index: FloatingRateIndex) -> Option<(&'static str, u8)> {
    match index {
        FloatingRateIndex::UsdSofrCmeTerm => Some(("USD", 0)),
        FloatingRateIndex::UsdSofr => Some(("USD", 1)),
        FloatingRateIndex::EurEuribor => Some(("EUR", 0)),
        FloatingRateIndex::EurEuroStr => Some(("EUR", 1)),
        _ => None,
    }
}

/// Loans named by the rate they bear: "Index Rate Advances", "CD Rate Loans", "LIBO Rate Loans".
static RATE_LOANS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:[A-Z][A-Za-z\-]*[ \t\r\n]+){1,3}(?:Rate|RATE)[ \t\r\n]+(?:Loans?|LOANS?|Advances?|ADVANCES?|Borrowings?|BORROWINGS?)\b",
    )
});

/// Whether the last loans `range` names by their rate bear a rate that is not a recognised
/// benchmark: "(i) with respect to Index Rate Advances, 0% per annum" is the margin of another
/// rate (an agreement's own base rate, a CD rate, a fixed rate), not a margin over the benchmark.
/// Eurocurrency and Euro-Dollar loans bear the interbank offered rate whatever the agreement calls
/// it.
fn names_loans_of_another_rate(doc: &Document<'_>, range: Range<usize>) -> bool {
    let Some(last) = RATE_LOANS.find_iter(doc.slice(range.clone())).last() else { return false };
    let named = range.start + last.start()..range.start + last.end();
    doc.benchmarks_in(named.clone()).is_empty() && !contains_ci(doc.slice(named), "euro")
}

/// A set of text ranges with a membership test by binary search (overlapping ranges are merged).
struct Regions(Vec<Range<usize>>);

impl Regions {
    fn new(mut ranges: Vec<Range<usize>>) -> Self {
        ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
        for range in ranges {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        Self(merged)
    }

    fn contains(&self, pos: usize) -> bool {
        let index = self.0.partition_point(|r| r.start <= pos);
        index.checked_sub(1).and_then(|i| self.0.get(i)).is_some_and(|r| pos < r.end)
    }
}

/// The definitions of margins the loans bear. When the interest clauses add some margin terms to
/// a benchmark ("the Adjusted LIBOR Rate plus the Applicable Margin"), those are the loans'
/// margins, and another margin term the agreement defines ("Applicable Spread" on a facility fee)
/// prices something else.
fn loan_margin_definitions<'d>(doc: &'d Document<'_>) -> Vec<&'d super::text::Definition> {
    let defined: Vec<&super::text::Definition> = doc.structure.definitions_where(is_margin_term).collect();
    let added_to_benchmark = |definition: &&super::text::Definition| {
        let term = regex::escape(&definition.key).replace(' ', r"[ \t\r\n]+");
        let Ok(added) = Regex::new(&format!(r"(?i)(?:\bplus|\+)[ \t\r\n]+(?:the[ \t\r\n]+)?{term}\b")) else {
            return false;
        };
        added.find_iter(doc.text).any(|found| !doc.benchmarks_in(before(doc.text, found.start(), 120)).is_empty())
    };
    let added: Vec<&super::text::Definition> = defined.iter().copied().filter(added_to_benchmark).collect();
    if added.is_empty() { defined } else { added }
}

/// "The Applicable Borrowing Margin … shall be", as an amendment sets a margin defined in the
/// agreement it amends: the capitalised margin term as the subject of "shall be".
static MARGIN_STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b[Tt]he[ \t\r\n]+(?:[A-Z][A-Za-z-]*[ \t\r\n]+){0,3}(?:Margin|Spread|Applicable[ \t\r\n]+Rate)\b(?P<gap>(?:[^.;:]|\.[0-9]){0,160}?)\bshall[ \t\r\n]+be\b",
    )
});

/// The statements that set a margin term ("The Applicable Borrowing Margin, as of the Amendment
/// Effective Date …, shall be as follows: (i) … 1.125% per annum; (ii) …"), through the items of
/// a list the statement introduces. A statement about a fee's margin is not the loans'.
fn margin_statements(doc: &Document<'_>) -> Vec<Range<usize>> {
    let mut regions = Vec::new();
    for found in MARGIN_STATEMENT.captures_iter(doc.text) {
        let (Some(whole), Some(gap)) = (found.get(0), found.name("gap")) else { continue };
        if contains_ci(doc.slice(whole.start()..gap.start()), "fee") {
            continue;
        }
        let mut end = sentence_around(doc.text, whole.end()).end;
        for _ in 0..12 {
            let so_far = doc.slice(whole.start()..end).trim_end();
            if !(so_far.ends_with(':')
                || so_far.ends_with(';')
                || so_far.ends_with("; and")
                || so_far.ends_with("; or"))
            {
                break;
            }
            let Some(next) = doc.text.get(end..).and_then(|rest| rest.find(|c: char| !c.is_whitespace())) else {
                break;
            };
            let next_end = sentence_around(doc.text, end + next).end;
            if next_end <= end {
                break;
            }
            end = next_end;
        }
        regions.push(whole.start()..end);
    }
    regions
}

/// Labels whose value states the interest rate.
fn is_rate_label(name: &str) -> bool {
    matches!(
        name,
        "interest rate"
            | "interest rates"
            | "interest"
            | "pricing"
            | "margin"
            | "applicable margin"
            | "applicable rate"
            | "spread"
    ) || name.starts_with("interest rate")
}

/// Whether the text mentions any benchmark other than the base rate, which decides whether a
/// literal "Prime Rate" is the benchmark or the alternate base rate.
fn has_risk_free_benchmark(doc: &Document<'_>) -> bool {
    doc.benchmarks.iter().any(|b| b.index != FloatingRateIndex::UsdPrime)
}

/// Every pricing statement in the document.
pub(crate) fn candidates(doc: &Document<'_>) -> PricingCandidates {
    let mut out = PricingCandidates::default();
    let pricing_regions: Vec<Range<usize>> = loan_margin_definitions(doc)
        .into_iter()
        .map(|d| d.body.clone())
        .chain(doc.structure.labels_where(is_rate_label).map(|l| l.value.clone()))
        .chain(margin_statements(doc))
        .collect();
    let grid_tables = Regions::new(grids(doc, &pricing_regions, &mut out));
    let prime_is_benchmark = !has_risk_free_benchmark(doc);
    let margin_regions = Regions::new(pricing_regions);

    for pct in &doc.percents {
        if grid_tables.contains(pct.span.start) {
            continue;
        }
        let in_region = margin_regions.contains(pct.span.start);
        // Only figures in a margin definition or label, or next to a benchmark, can be margins.
        let near_benchmark = !doc.benchmarks_in(before(doc.text, pct.span.start, 80)).is_empty()
            || !doc.benchmarks_in(after(doc.text, pct.span.end, 80)).is_empty();
        if !in_region && !near_benchmark {
            continue;
        }
        if applies_once_extended(doc, pct.span.start) {
            continue;
        }
        let kind = rate_kind(doc, pct);
        let stated_as_margin = in_region || binds_to_benchmark_in_interest_sentence(doc, pct, &kind);
        if !stated_as_margin {
            continue;
        }
        let scope = scope_of(doc, pct.span.start);
        let Some(value) = doc.sourced(pct.span.clone(), pct.fraction) else { continue };
        match kind {
            RateKind::Benchmark(mention) if mention.index == FloatingRateIndex::UsdPrime && !prime_is_benchmark => {
                out.base_spreads.push(Scoped::with_scope(value, scope));
            }
            RateKind::Benchmark(mention) => {
                if let Some(index) = doc.sourced(mention.span.clone(), mention.index) {
                    out.indices.push(Scoped::with_scope(index, scope.clone()));
                }
                out.spreads.push(Scoped::with_scope(value, scope));
            }
            RateKind::Unqualified if in_region => out.spreads.push(Scoped::with_scope(value, scope)),
            RateKind::BaseRate => out.base_spreads.push(Scoped::with_scope(value, scope)),
            RateKind::Unqualified | RateKind::Fee | RateKind::Floor | RateKind::Excluded => {}
        }
    }
    floors(doc, &mut out);
    fees(doc, &grid_tables, &mut out);
    day_counts(doc, &mut out);
    frequencies(doc, &mut out);
    periods_and_tenors(doc, &mut out);
    optional_currencies(doc, &mut out);
    out
}

/// A percentage outside any margin definition counts as a margin only in the form "Term SOFR plus
/// 2.75%" or "2.25 per cent. per annum above SONIA", in a sentence about interest or margin.
fn binds_to_benchmark_in_interest_sentence(doc: &Document<'_>, pct: &PercentMatch, kind: &RateKind) -> bool {
    let RateKind::Benchmark(mention) = kind else { return false };
    let bound = if mention.span.end <= pct.span.start {
        let gap = doc.slice(mention.span.end..pct.span.start).to_ascii_lowercase();
        let gap = gap.trim();
        gap.ends_with('+') || gap.ends_with("plus") || gap.ends_with("margin of") || gap.ends_with("plus a margin of")
    } else {
        let gap = doc.slice(pct.span.end..mention.span.start).to_ascii_lowercase();
        gap.contains("above") || gap.contains("over") || gap.contains("in excess of")
    };
    if !bound {
        return false;
    }
    let sentence = doc.slice(sentence_around(doc.text, pct.span.start));
    // The definition of a rate ("Libor Option Rate" means 150 basis points over Libor) states the
    // interest rate itself.
    let defines_rate = doc.structure.definition_at(pct.span.start).is_some_and(|d| d.key.ends_with(" rate"));
    let about_interest =
        defines_rate || contains_any_ci(sentence, &["interest", "margin", "applicable rate", "pricing"]);
    let in_other_definition = doc.structure.definition_at(pct.span.start).is_some_and(|d| {
        let term = doc.slice(d.term.clone()).to_ascii_lowercase();
        ["base rate", "adjusted", "benchmark", "replacement", "floor", "sofr", "euribor", "sonia"]
            .iter()
            .any(|w| term.contains(w))
    });
    about_interest && !in_other_definition
}

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
fn grids(doc: &Document<'_>, pricing_regions: &[Range<usize>], out: &mut PricingCandidates) -> Vec<Range<usize>> {
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
        let context = doc.slice(super::text::floor_boundary(doc.text, context_start)..intro.end());
        // The table prices loans: the text before it speaks of margins or pricing, or of a rate
        // stated as a margin over a benchmark ("the Libor Option Rate means 150 basis points
        // over Libor … will be as follows").
        let priced = contains_any_ci(context, &["margin", "applicable rate", "pricing", "spread", "commitment fee"])
            || MARGIN_OVER_BENCHMARK.is_match(context);
        if !priced {
            continue;
        }
        let Some(line) = super::text::line_around(doc.text, intro.end(), 2000) else { continue };
        // A grid that replaces the margins once a sustainability target is met adjusts the
        // pricing; the margins in force are the other grid's.
        let sustainability = contains_ci(doc.slice(sentence_around(doc.text, intro.start())), "sustainab");
        let Some(table) = wrapped_table_after(doc.text, line.end, is_numeric_cell) else { continue };
        if sustainability {
            occupied.push(table.range.clone());
            continue;
        }
        let Some(levels_by_column) = grid_levels(doc, &table) else { continue };
        let table_scope = scope_of(doc, intro.start());
        if table_scope.keys.is_empty()
            && table_scope.except.is_empty()
            && names_several_facilities_before(doc, intro.start())
        {
            // "(a) For Term Loans, … (b) For all other Loans: … set forth below": the definition
            // prices facilities differently, and a grid whose own facility cannot be read is not
            // every facility's.
            occupied.push(table.range.clone());
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
        occupied.push(table.range.clone());
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

static FLOOR_OF: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\bfloor[ \t\r\n]+(?:of|equal[ \t\r\n]+to|rate[ \t\r\n]+of)[ \t\r\n]+(?:the[ \t]+)?")
});

static ZERO_FLOOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:less[ \t\r\n]+than|below)[ \t\r\n]+zero\b[^;]{0,240}?\bdeemed[ \t\r\n]+to[ \t\r\n]+be[ \t\r\n]+zero\b",
    )
});

fn floors(doc: &Document<'_>, out: &mut PricingCandidates) {
    let mut found: Vec<(Range<usize>, Decimal)> = Vec::new();
    let is_floor_term = |term: &str| {
        let lower = term;
        lower == "floor" || lower.ends_with(" floor")
    };
    for definition in doc.structure.definitions_where(is_floor_term) {
        found.extend(doc.percents_in(definition.body.clone()).iter().map(|p| (p.span.clone(), p.fraction)));
    }
    for label in doc.structure.labels_where(|name| name == "floor" || name.ends_with(" floor")) {
        found.extend(doc.percents_in(label.value.clone()).iter().take(1).map(|p| (p.span.clone(), p.fraction)));
    }
    for lead in FLOOR_OF.find_iter(doc.text) {
        if let Some(p) = doc.percents_in(after(doc.text, lead.end(), 24)).first()
            && doc.slice(lead.end()..p.span.start).trim().is_empty()
        {
            found.push((p.span.clone(), p.fraction));
        }
    }
    for pct in &doc.percents {
        let following = doc.slice(after(doc.text, pct.span.end, 40));
        if FLOOR_AFTER.is_match(following) {
            found.push((pct.span.clone(), pct.fraction));
        }
    }
    for zero in ZERO_FLOOR.find_iter(doc.text) {
        found.push((zero.range(), Decimal::ZERO));
    }
    found.sort_by_key(|(span, _)| (span.start, span.end));
    found.dedup_by(|a, b| a.0 == b.0);
    for (span, value) in found {
        let keys = scope_at(doc, span.start);
        if let Some(value) = doc.sourced(span, value) {
            out.floors.push(Scoped::new(value, keys));
        }
    }
}

static COMMITMENT_FEE: LazyLock<Regex> = LazyLock::new(|| {
    let phrases = ["commitment fee", "commitment fees", "unused fee", "unused line fee", "undrawn fee", "ticking fee"];
    let alternatives: Vec<String> = phrases.iter().map(|p| capitalisable(p)).collect();
    pattern(&format!(r"\b(?:{})\b", alternatives.join("|")))
});

static OF_MARGIN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:per[ \t\r\n]+annum[ \t\r\n]+)?of[ \t\r\n]+the[ \t\r\n]+(?:applicable[ \t\r\n]+)?margin\b",
    )
});

fn fees(doc: &Document<'_>, grid_tables: &Regions, out: &mut PricingCandidates) {
    let mut found: Vec<&PercentMatch> = Vec::new();
    let is_fee_term = |term: &str| {
        let lower = term;
        lower.contains("commitment fee") || lower.contains("unused fee") || lower.contains("ticking fee")
    };
    for definition in doc.structure.definitions_where(is_fee_term) {
        found.extend(doc.percents_in(definition.body.clone()).iter().take(1));
    }
    for label in doc.structure.labels_where(is_fee_term) {
        found.extend(doc.percents_in(label.value.clone()).iter().take(1));
    }
    for mention in COMMITMENT_FEE.find_iter(doc.text) {
        let clause = clause_around(doc.text, mention.start());
        // "a one-time commitment fee", "a fully-earned, non-refundable commitment fee … on the
        // Closing Date": paid once up front, not the rate on unused commitments.
        if contains_any_ci(doc.slice(clause.start..mention.end()), ONE_TIME_FEE) {
            continue;
        }
        let window = mention.end()..clause.end.min(mention.end().saturating_add(250)).max(mention.end());
        if let Some(p) = doc.percents_in(window).first() {
            found.push(p);
        }
    }
    found.sort_by_key(|p| p.span.start);
    found.dedup_by(|a, b| a.span == b.span);
    for pct in found {
        if grid_tables.contains(pct.span.start) {
            continue;
        }
        let lead = doc.slice(before(doc.text, pct.span.start, 24)).to_ascii_lowercase();
        if lead.trim_end().ends_with("from") || is_threshold_lead(&lead) {
            continue;
        }
        // "If an Event of Default shall have occurred …, the Commitment Fee Rate shall equal
        // 0.50%": the rate after a default, not the fee in force.
        let sentence = super::text::sentence_around(doc.text, pct.span.start);
        if contains_any_ci(
            doc.slice(sentence.start..pct.span.start),
            &["event of default", "default shall have occurred"],
        ) {
            continue;
        }
        let following = doc.slice(after(doc.text, pct.span.end, 60));
        let fee = if OF_MARGIN.is_match(following) {
            CommitmentFee::PercentageOfMargin(pct.fraction)
        } else {
            CommitmentFee::Rate(pct.fraction)
        };
        let keys = scope_at(doc, pct.span.start);
        if let Some(value) = doc.sourced(pct.span.clone(), fee) {
            out.fees.push(Scoped::new(value, keys));
        }
    }
}

/// Words that make a fee a one-time payment.
const ONE_TIME_FEE: &[&str] =
    &["one-time", "one time", "upfront", "up-front", "fully-earned", "fully earned", "non-refundable"];

/// Whether the words before a percentage make it a threshold the fee depends on ("> 35% of the
/// Maximum Revolver Amount", "usage less than 50%"), not the fee.
fn is_threshold_lead(lead: &str) -> bool {
    let lead = lead.trim_end();
    ['>', '<', '≥', '≤', '='].iter().any(|sign| lead.ends_with(*sign))
        || ["greater than", "less than", "more than", "at least", "exceeds", "exceed", "equal to or"]
            .iter()
            .any(|words| lead.ends_with(words))
}

static DAY_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?P<act>\b(?:actual|act)[ \t]*/[ \t]*(?P<act_base>360|365(?:[ \t]*\(?[ \t]*fixed[ \t]*\)?)?|366|actual))|(?P<thirty_e>\b30E[ \t]*/[ \t]*360\b)|(?P<thirty>\b30[ \t]*/[ \t]*360\b)|(?P<leap>\byear[ \t\r\n]+of[ \t\r\n]+365[ \t\r\n]+(?:days[ \t\r\n]+)?or[ \t\r\n]+366[ \t\r\n]+days\b)|(?P<year>\byear[ \t\r\n]+of[ \t\r\n]+(?P<year_days>360|365)[ \t\r\n]+days\b(?P<or_leap>[ \t\r\n]*(?:\(|,)?[ \t\r\n]*or[ \t\r\n]+(?:,[ \t]*)?(?:in[ \t\r\n]+the[ \t\r\n]+case[ \t\r\n]+of[ \t\r\n]+a[ \t\r\n]+leap[ \t\r\n]+year,?[ \t\r\n]+)?366[ \t\r\n]+days)?)|(?P<day_year>\b(?P<day_year_days>360|365)-day[ \t\r\n]+year\b)",
    )
});

/// Currencies a clause may restrict a statement to, by the words used for them.
const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("sterling", "GBP"),
    ("gbp", "GBP"),
    ("£", "GBP"),
    ("euro", "EUR"),
    ("€", "EUR"),
    ("dollar", "USD"),
    ("usd", "USD"),
    ("yen", "JPY"),
    ("swiss franc", "CHF"),
];

fn day_counts(doc: &Document<'_>, out: &mut PricingCandidates) {
    let mut previous_end = 0;
    for captures in DAY_COUNT.captures_iter(doc.text) {
        let Some(whole) = captures.get(0) else { continue };
        let value = if let Some(base) = captures.name("act_base") {
            let base = base.as_str().to_ascii_lowercase();
            if base.starts_with("360") {
                DayCountFraction::Act360
            } else if base.starts_with("365") {
                DayCountFraction::Act365Fixed
            } else {
                DayCountFraction::ActActIsda
            }
        } else if captures.name("thirty_e").is_some() {
            DayCountFraction::ThirtyE360
        } else if captures.name("thirty").is_some() {
            DayCountFraction::Thirty360
        } else if captures.name("leap").is_some() || captures.name("or_leap").is_some() {
            DayCountFraction::ActActIsda
        } else if let Some(days) = captures.name("year_days").or_else(|| captures.name("day_year_days")) {
            if days.as_str() == "360" { DayCountFraction::Act360 } else { DayCountFraction::Act365Fixed }
        } else {
            continue;
        };
        let clause = clause_around(doc.text, whole.start());
        let lead = clause.start.max(previous_end).max(whole.start().saturating_sub(200))..whole.start();
        previous_end = whole.end();
        let lead_text = doc.slice(lead.clone()).to_ascii_lowercase();
        if doc.benchmarks_in(lead.clone()).iter().any(|b| b.base_rate) || lead_text.contains("prime rate") {
            continue;
        }
        let currency = CURRENCY_WORDS
            .iter()
            .find(|(word, _)| lead_text.contains(word))
            .and_then(|(_, code)| CurrencyCode::new(code));
        let keys = facilities_named_in(doc, lead);
        if let Some(value) = doc.sourced(whole.range(), value) {
            out.day_counts.push(Scoped { value, keys, currency, except: Vec::new() });
        }
    }
}

fn facilities_named_in(doc: &Document<'_>, range: Range<usize>) -> Vec<FacilityKey> {
    let mut keys = Vec::new();
    for r in doc.refs_in(range) {
        if !keys.contains(&r.key) {
            keys.push(r.key);
        }
    }
    keys
}

static FREQUENCY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?P<quarterly>quarterly)|(?P<monthly>monthly)|(?P<semi>semi-?annually|semi-?annual|half-?yearly|six-?monthly)|(?P<annually>annually)|every[ \t]+(?P<months>one|three|six|twelve|1|3|6|12)[ \t]+months?)\b",
    )
});

fn frequencies(doc: &Document<'_>, out: &mut PricingCandidates) {
    for captures in FREQUENCY.captures_iter(doc.text) {
        let Some(whole) = captures.get(0) else { continue };
        let months = if captures.name("quarterly").is_some() {
            3
        } else if captures.name("monthly").is_some() {
            1
        } else if captures.name("semi").is_some() {
            6
        } else if captures.name("annually").is_some() {
            12
        } else {
            match captures.name("months").map(|m| m.as_str().to_ascii_lowercase()) {
                Some(n) => month_count(&n).unwrap_or(0),
                None => 0,
            }
        };
        if months == 0 {
            continue;
        }
        let clause = clause_around(doc.text, whole.start());
        let lead = doc.slice(clause.start..whole.start()).to_ascii_lowercase();
        let labelled =
            doc.structure.label_at(whole.start()).is_some_and(|l| l.key.clone().starts_with("interest payment"));
        // The interest must be what is payable at this frequency: no fee mentioned after the last
        // mention of interest, and not the base rate's payment dates.
        let about_interest = lead.rfind("interest").is_some_and(|i| !lead.get(i..).unwrap_or("").contains("fee"));
        let base_rate = doc.benchmarks_in(clause.start..whole.start()).iter().any(|b| b.base_rate);
        // "where the Interest Period exceeds three months, every three months": an intermediate
        // payment for long periods, not the payment frequency.
        let conditional = ["exceed", "longer than", "more than", "in excess"].iter().any(|w| lead.contains(w));
        if !(labelled || about_interest) || base_rate || conditional {
            continue;
        }
        let period = if months == 12 {
            Period { period_multiplier: 1, period: super::model::PeriodUnit::Year }
        } else {
            Period::months(months)
        };
        let keys = scope_at(doc, whole.start());
        if let Some(value) = doc.sourced(whole.range(), period) {
            out.frequencies.push(Scoped::new(value, keys));
        }
    }
}

fn month_count(word: &str) -> Option<u32> {
    match word {
        "one" | "1" => Some(1),
        "two" | "2" => Some(2),
        "three" | "3" => Some(3),
        "six" | "6" => Some(6),
        "twelve" | "12" => Some(12),
        _ => None,
    }
}

static INTEREST_PERIODS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\binterest[ \t\r\n]+periods?\b(?:[ \t\r\n]+of|[ \t]*:)[ \t\r\n]+(?P<list>(?:one|two|three|six|twelve|1|2|3|6|12)(?:[ \t\r\n]*(?:,|,?[ \t\r\n]+or|,?[ \t\r\n]+and)[ \t\r\n]+(?:one|two|three|six|twelve|1|2|3|6|12))*)[ \t\r\n]+months?\b",
    )
});

static TENOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?P<n>one|three|six|twelve|1|3|6|12)[- ]months?[ \t]+(?:term[ \t]+)?(?:SOFR|EURIBOR|SONIA|€STR|ESTR)\b",
    )
});

fn periods_and_tenors(doc: &Document<'_>, out: &mut PricingCandidates) {
    for captures in INTEREST_PERIODS.captures_iter(doc.text) {
        let (Some(whole), Some(list)) = (captures.get(0), captures.name("list")) else { continue };
        let periods: Vec<Period> = list
            .as_str()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter_map(|word| month_count(&word.to_ascii_lowercase()))
            .map(Period::months)
            .collect();
        // "Term SOFR for an Interest Period of one month plus 1.00%" inside the base rate is not
        // the borrower's choice of periods.
        let clause = doc.slice(clause_around(doc.text, whole.start()));
        let in_base_rate = doc
            .structure
            .definition_at(whole.start())
            .is_some_and(|d| contains_ci(doc.slice(d.term.clone()), "base rate"));
        if periods.is_empty() || in_base_rate || contains_any_ci(clause, &["highest of", "greatest of"]) {
            continue;
        }
        let keys = scope_at(doc, whole.start());
        if let Some(value) = doc.sourced(whole.range(), periods) {
            out.interest_periods.push(Scoped::new(value, keys));
        }
    }
    for captures in TENOR.captures_iter(doc.text) {
        let (Some(whole), Some(n)) = (captures.get(0), captures.name("n")) else { continue };
        let clause = doc.slice(clause_around(doc.text, whole.start()));
        if contains_any_ci(clause, &["base rate", "highest of", "greatest of"]) {
            continue;
        }
        let Some(months) = month_count(&n.as_str().to_ascii_lowercase()) else { continue };
        let keys = scope_at(doc, whole.start());
        if let Some(value) = doc.sourced(whole.range(), Period::months(months)) {
            out.tenors.push(Scoped::new(value, keys));
        }
    }
}

static CURRENCY_NAME: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:[A-Z]{3}\b|(?i:u\.s\.[ \t]+dollars?|us[ \t]+dollars?|dollars?|euros?|sterling|pounds[ \t]+sterling|yen|swiss[ \t]+francs?|canadian[ \t]+dollars?)\b)",
    )
});

fn optional_currencies(doc: &Document<'_>, out: &mut PricingCandidates) {
    let is_currency_term = |term: &str| {
        let lower = term;
        matches!(
            lower,
            "optional currency"
                | "optional currencies"
                | "alternative currency"
                | "alternative currencies"
                | "currencies"
                | "available currencies"
        )
    };
    let regions: Vec<Range<usize>> = doc
        .structure
        .definitions_where(is_currency_term)
        .map(|d| d.body.clone())
        .chain(doc.structure.labels_where(is_currency_term).map(|l| l.value.clone()))
        .collect();
    for region in regions {
        let first_sentence = sentence_around(doc.text, region.start);
        let limit = region.end.min(first_sentence.end.max(region.start));
        let text = doc.slice(region.start..limit);
        for found in CURRENCY_NAME.find_iter(text) {
            let stated = found.as_str();
            let code = if stated.len() == 3 && stated.bytes().all(|b| b.is_ascii_uppercase()) {
                CurrencyCode::new(stated)
            } else {
                CurrencyCode::from_words(stated)
            };
            let span = region.start + found.start()..region.start + found.end();
            if let Some(code) = code
                && let Some(value) = doc.sourced(span, code)
                && !out.optional_currencies.iter().any(|c| c.value() == &code)
            {
                out.optional_currencies.push(value);
            }
        }
    }
}

/// The index a facility uses when no statement names one for it: the benchmark the agreement
/// defines for the facility's currency (Term SOFR before daily SOFR before LIBOR before prime for
/// dollars: an agreement that names SOFR at all has replaced LIBOR with it;
/// EURIBOR before €STR for euro).
fn default_index(doc: &Document<'_>, currency: CurrencyCode) -> Option<Sourced<FloatingRateIndex>> {
    let preference: &[FloatingRateIndex] = match currency.as_str() {
        "USD" => &[
            FloatingRateIndex::UsdSofrCmeTerm,
            FloatingRateIndex::UsdSofr,
            FloatingRateIndex::UsdLibor,
            FloatingRateIndex::UsdPrime,
        ],
        "GBP" => &[FloatingRateIndex::GbpSonia, FloatingRateIndex::GbpLibor],
        "EUR" => &[FloatingRateIndex::EurEuribor, FloatingRateIndex::EurEuroStr, FloatingRateIndex::EurLibor],
        "CHF" => &[FloatingRateIndex::ChfSaron, FloatingRateIndex::ChfLibor],
        "JPY" => &[FloatingRateIndex::JpyTona, FloatingRateIndex::JpyLibor],
        "CAD" => &[FloatingRateIndex::CadCorra],
        _ => &[],
    };
    let risk_free = has_risk_free_benchmark(doc);
    for &index in preference {
        if index == FloatingRateIndex::UsdPrime && risk_free {
            continue;
        }
        if let Some(mention) = libor_for_currency(doc, index) {
            return doc.sourced(mention.span.clone(), index);
        }
        let mentions = || doc.benchmarks.iter().filter(|b| b.index == index && !b.base_rate);
        let defined = mentions().find(|b| {
            let lead = doc.slice(before(doc.text, b.span.start, 3));
            lead.ends_with('"') || lead.ends_with('“')
        });
        if let Some(mention) = defined.or_else(|| mentions().next()) {
            return doc.sourced(mention.span.clone(), index);
        }
    }
    None
}

/// Words that name a currency other than the dollar, for telling which currency a LIBOR mention
/// is quoted in.
const CURRENCY_MENTIONS: &[(&str, &[&str])] = &[
    ("GBP", &["sterling", "pound", "£", "gbp"]),
    ("EUR", &["euro", "€", "eur"]),
    ("CHF", &["swiss franc", "chf"]),
    ("JPY", &["yen", "¥", "jpy"]),
];

/// A LIBOR mention that is quoted in the currency of `index` when `index` is a non-dollar LIBOR:
/// a LIBOR mention whose surrounding words name that currency ("in relation to any Loan
/// denominated in Dollars or Sterling, the LIBOR Rate"). LIBOR was quoted per currency, and an
/// agreement that does not tie it to the facility's currency leaves the index unstated.
fn libor_for_currency<'d>(doc: &'d Document<'_>, index: FloatingRateIndex) -> Option<&'d BenchmarkMatch> {
    if !matches!(
        index,
        FloatingRateIndex::GbpLibor
            | FloatingRateIndex::EurLibor
            | FloatingRateIndex::ChfLibor
            | FloatingRateIndex::JpyLibor
    ) {
        return None;
    }
    let words = CURRENCY_MENTIONS.iter().find(|(code, _)| *code == index.currency())?.1;
    doc.benchmarks.iter().filter(|b| b.index == FloatingRateIndex::UsdLibor).find(|b| {
        let clause = clause_around(doc.text, b.span.start);
        let window = clause.start.max(b.span.start.saturating_sub(200))..clause.end.min(b.span.end + 200);
        contains_any_ci(doc.slice(window), words)
    })
}

/// Whether the text describes the facility with `key` as multicurrency.
pub(crate) fn is_multicurrency(doc: &Document<'_>, key: FacilityKey) -> bool {
    doc.facility_refs.iter().filter(|r| r.key == key).any(|r| {
        let lead = doc.slice(before(doc.text, r.span.start, 24));
        contains_ci(lead, "multicurrency") || contains_ci(lead, "multi-currency")
    })
}

/// Resolves every pricing field of one facility.
pub(crate) fn apply(
    doc: &Document<'_>,
    candidates: &PricingCandidates,
    facility: &mut Facility,
    frame: &FacilityFrame,
    frames: &[FacilityFrame],
    base: &str,
    report: &mut Report,
) {
    // A letter of credit facility bears fees, not interest: no floating-rate terms apply to it.
    if frame.facility_type != Some(FacilityType::LetterOfCredit) {
        apply_floating_rate(doc, candidates, facility, frame, frames, base, report);
    }
    // A funded term loan pays no commitment fee unless one is stated for it specifically.
    let fee_applies = frames.len() == 1
        || !matches!(
            frame.facility_type,
            Some(FacilityType::TermLoanA | FacilityType::TermLoanB | FacilityType::TermLoan)
        )
        || candidates.fees.iter().any(|c| c.keys.iter().any(|&k| covers(k, frame, frames)));
    if fee_applies {
        facility.commitment_fee = resolve(&format!("{base}/commitmentFee"), &candidates.fees, frame, frames, report);
    }
    facility.payment_frequency =
        resolve(&format!("{base}/paymentFrequency"), &candidates.frequencies, frame, frames, report);
    facility.day_count_fraction =
        resolve(&format!("{base}/dayCountFraction"), &candidates.day_counts, frame, frames, report);
    if frames.len() == 1 || is_multicurrency(doc, frame.key) {
        facility.optional_currencies =
            candidates.optional_currencies.iter().filter(|c| Some(*c.value()) != frame.currency).cloned().collect();
    }
}

/// The benchmark, margin, grid, floor and interest periods of a facility bearing a floating rate.
pub(crate) fn apply_floating_rate(
    doc: &Document<'_>,
    candidates: &PricingCandidates,
    facility: &mut Facility,
    frame: &FacilityFrame,
    frames: &[FacilityFrame],
    base: &str,
    report: &mut Report,
) {
    facility.spread = resolve(&format!("{base}/spread"), &candidates.spreads, frame, frames, report);
    facility.base_rate_spread =
        resolve(&format!("{base}/baseRateSpread"), &candidates.base_spreads, frame, frames, report);
    let field = format!("{base}/floatingRateIndex");
    let stated = resolve(&field, &candidates.indices, frame, frames, report).filter(|index| {
        // A benchmark of another currency is not this facility's: a sterling tranche is not
        // priced on dollar SOFR, whatever sentence mentions both.
        let foreign = frame.currency.is_some_and(|currency| currency.as_str() != index.value().currency());
        if foreign {
            report.dropped(&field, index.quote(), index.span().range(), "is a benchmark of another currency");
        }
        !foreign
    });
    facility.floating_rate_index = stated.or_else(|| frame.currency.and_then(|currency| default_index(doc, currency)));
    facility.pricing_grid = resolve_grid(&format!("{base}/pricingGrid"), candidates, frame, frames, report);
    facility.floor = resolve(&format!("{base}/floor"), &candidates.floors, frame, frames, report);
    facility.interest_periods =
        resolve(&format!("{base}/interestPeriods"), &candidates.interest_periods, frame, frames, report);
    facility.index_tenor = resolve(&format!("{base}/indexTenor"), &candidates.tenors, frame, frames, report);
}

/// The facility's pricing grid; two different grids for the same facility are a conflict.
fn resolve_grid(
    field: &str,
    candidates: &PricingCandidates,
    frame: &FacilityFrame,
    frames: &[FacilityFrame],
    report: &mut Report,
) -> Vec<PricingGridLevel> {
    let pool = applicable(&candidates.grids, frame, frames);
    let Some(first) = pool.first() else { return Vec::new() };
    let values = |grid: &[PricingGridLevel]| -> Vec<Option<Decimal>> {
        grid.iter().map(|level| level.spread.as_ref().map(|s| *s.value())).collect()
    };
    if let Some(other) = pool.iter().find(|g| values(g) != values(first))
        && let (Some(a), Some(b)) =
            (first.iter().find_map(|l| l.spread.as_ref()), other.iter().find_map(|l| l.spread.as_ref()))
    {
        report.conflict(field, a, b);
        return Vec::new();
    }
    (*first).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(raw: &str) -> Decimal {
        raw.parse().expect("test decimal")
    }

    fn pricing(text: &str) -> PricingCandidates {
        let doc = Document::scan(text);
        candidates(&doc)
    }

    #[test]
    fn an_amendment_setting_a_margin_term_through_a_list_states_the_margin() {
        let text = "(b) The Applicable Loan Margin, from the First Amendment Date until delivery of the certificate required by Section 6.02, shall be as follows:\n\n(i) for LIBOR Loans, 2.25% per annum;\n\n(ii) for Base Rate Loans, 1.25% per annum.\n\n(c) The Commitment Fee Margin shall be 0.40% per annum.\n";
        let found = pricing(text);
        let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
        assert_eq!(spreads, [dec("0.0225")]);
        let base: Vec<Decimal> = found.base_spreads.iter().map(|c| *c.value.value()).collect();
        assert_eq!(base, [dec("0.0125")]);
        // Raising the margin on default sets no margin.
        let default =
            "The Applicable Loan Margin shall be increased by 2.00% per annum while an Event of Default continues.\n";
        assert!(pricing(default).spreads.is_empty());
    }

    #[test]
    fn a_margin_until_the_first_adjustment_date_is_a_margin_but_a_spread_adjustment_is_not() {
        let text = "\"Applicable Margin\" means, until the first Adjustment Date, 2.00% per annum, and thereafter the rate the Leverage Ratio sets.\n\n\"Term SOFR Adjustment\" means 0.10% per annum.\n\nEach Loan bears interest at Term SOFR plus the Term SOFR Adjustment plus the Applicable Margin.\n";
        let spreads: Vec<Decimal> = pricing(text).spreads.iter().map(|c| *c.value.value()).collect();
        assert_eq!(spreads, [dec("0.02")]);
    }

    #[test]
    fn a_rate_defined_as_another_name_for_a_benchmark_is_that_benchmark() {
        let text = "\"Reference Rate\" means the Term SOFR Rate in effect from time to time; provided that it shall not be less than zero.\n\n\"Default Rate\" means the Reference Rate plus 2.00%.\n\n\"Loan Rate\" means a rate per annum equal to the Reference Rate plus 2.85%.\n\nEach Loan bears interest at the Loan Rate.\n";
        let found = pricing(text);
        let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
        assert_eq!(spreads, [dec("0.0285")]);
        assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
        // A rate defined as a benchmark plus a margin is not another name for the benchmark.
        let own_rate = "\"Loan Rate\" means the Term SOFR Rate plus 2.85%.\n\nInterest accrues at the Loan Rate plus 2.00% after a default.\n";
        let doc = Document::scan(own_rate);
        assert!(doc.benchmarks.iter().all(|b| !doc.slice(b.span.clone()).contains("Loan Rate")));
    }

    #[test]
    fn the_level_named_for_the_first_period_gives_the_margin_in_force() {
        let text = "\"Applicable Margin\" means, from the Effective Date until the first Pricing Date, the rate set out in Level II below, and thereafter the rate set out below opposite the Leverage Ratio:\n\nLevel | Leverage Ratio | SOFR Loans | Base Rate Loans\nI | > 3.00:1.00 | 2.50% | 1.50%\nII | <= 3.00:1.00 | 2.25% | 1.25%\n\nEach Loan bears interest at Term SOFR plus the Applicable Margin.\n";
        let found = pricing(text);
        assert_eq!(found.grids.len(), 1);
        let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
        assert_eq!(spreads, [dec("0.0225")]);
        // The highest level named for a failure to deliver financials is not the margin in force.
        let penalty = text.replace(
            "from the Effective Date until the first Pricing Date, the rate set out in Level II below, and thereafter",
            "if the Borrower fails to deliver financial statements, the rate set out in Level I below, and otherwise",
        );
        assert!(pricing(&penalty).spreads.is_empty());
    }

    #[test]
    fn the_margin_the_interest_clause_adds_to_the_benchmark_is_the_loans_margin() {
        let text = "\"Applicable Margin\" means 1.75%.\n\n\"Applicable Spread\" means 0.40% while the Facility Amount is below $50,000,000 and 0.30% thereafter.\n\nEach Loan shall bear interest at Term SOFR plus the Applicable Margin. The letter of credit fee is the Applicable Spread.\n";
        let spreads: Vec<Decimal> = pricing(text).spreads.iter().map(|c| *c.value.value()).collect();
        assert_eq!(spreads, [dec("0.0175")]);
        // Without an interest clause naming either, both definitions state margins.
        let undecided = text.replace("plus the Applicable Margin", "plus a margin");
        assert_eq!(pricing(&undecided).spreads.len(), 3);
    }

    #[test]
    fn margins_for_benchmark_and_base_rate_loans_are_told_apart() {
        let text = "\"Applicable Rate\" means, with respect to Term B Loans, (i) 3.00% per annum for Term SOFR Loans and (ii) 2.00% per annum for Base Rate Loans.\n";
        let found = pricing(text);
        assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.03")]);
        assert_eq!(found.base_spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.02")]);
        assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
    }

    #[test]
    fn a_term_sheet_rate_line_gives_index_spread_and_floor() {
        let text = "Interest Rate: Term SOFR + 4.00% per annum, subject to a Term SOFR floor of 1.00%.\n";
        let found = pricing(text);
        assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.04")]);
        assert_eq!(found.floors.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.01")]);
    }

    #[test]
    fn a_credit_spread_adjustment_is_not_a_margin() {
        let text = "\"Adjusted Term SOFR\" means Term SOFR plus 0.10% (the SOFR Adjustment). Each Loan bears interest at Adjusted Term SOFR plus the Applicable Rate.\n";
        assert!(pricing(text).spreads.is_empty());
    }

    #[test]
    fn every_level_of_a_pricing_grid_is_read() {
        let text = "\"Applicable Rate\" means, with respect to Revolving Loans, the percentage per annum set forth below:\n\nPricing Level | Consolidated Total Net Leverage Ratio | Term SOFR Loans | Base Rate Loans | Commitment Fee\nI | > 3.00:1.00 | 2.25% | 1.25% | 0.350%\nII | <= 3.00:1.00 but > 2.00:1.00 | 2.00% | 1.00% | 0.300%\nIII | <= 2.00:1.00 | 1.75% | 0.75% | 0.250%\n\nOther text.";
        let found = pricing(text);
        assert_eq!(found.grids.len(), 1);
        let grid = &found.grids[0];
        assert_eq!(grid.keys, [FacilityKey::Revolving]);
        let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(spreads, [dec("0.0225"), dec("0.02"), dec("0.0175")]);
        let second = &grid.value[1];
        assert_eq!(second.condition.as_ref().map(|c| c.quote()), Some("<= 3.00:1.00 but > 2.00:1.00"));
        assert_eq!(second.commitment_fee.as_ref().map(|c| *c.value()), Some(dec("0.003")));
        assert!(found.spreads.is_empty(), "grid figures are not flat margins");
    }

    #[test]
    fn day_counts_read_their_basis_and_currency_qualifier() {
        let text = "Interest accrues on the basis of the actual number of days elapsed and a year of 360 days or, in the case of a Loan denominated in sterling, a year of 365 days.";
        let found = pricing(text);
        let read: Vec<(DayCountFraction, Option<String>)> =
            found.day_counts.iter().map(|d| (*d.value.value(), d.currency.map(|c| c.to_string()))).collect();
        assert_eq!(read, [(DayCountFraction::Act360, None), (DayCountFraction::Act365Fixed, Some("GBP".to_owned()))]);
    }

    #[test]
    fn a_commitment_fee_may_be_a_share_of_the_margin() {
        let text = "The Company shall pay to the Agent a commitment fee computed at the rate of 35 per cent. of the applicable Margin on the unused Facility B Commitment.";
        let found = pricing(text);
        assert_eq!(found.fees.first().map(|f| *f.value.value()), Some(CommitmentFee::PercentageOfMargin(dec("0.35"))));
    }

    #[test]
    fn a_rate_defined_as_basis_points_over_libor_gives_its_margin_and_grid() {
        let text = "     \"Libor Option Rate\" means one hundred fifty (150) basis\npoints over Libor; provided that if the Borrower has achieved Net Income of the\nfollowing amounts, then the Libor Option Rate will be as follows:\n\n     Net Income                    Libor Option Rate\n\n     Below 0                       Prime Rate\n     0 - $ 2,000,000               175 basis points over Libor\n     $2,000,001 - $5,000,000       150 basis points over Libor\n     Greater than $5,000,000       125 basis points over Libor\n\n     \"Lien\" means any mortgage.\n";
        let found = pricing(text);
        assert_eq!(
            found.spreads.iter().map(|s| s.value.quote()).collect::<Vec<_>>(),
            ["one hundred fifty (150) basis\npoints"]
        );
        assert_eq!(found.spreads[0].value.value(), &dec("0.015"));
        assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdLibor));
        let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
        let spreads: Vec<Option<Decimal>> = grid.value.iter().map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(
            spreads,
            [None, Some(dec("0.0175")), Some(dec("0.015")), Some(dec("0.0125"))],
            "the prime row is a level"
        );
    }

    #[test]
    fn a_wrapped_header_and_wrapped_conditions_keep_every_row_of_the_grid() {
        let text = "the Applicable Margin for LIBO Rate Advances shall be adjusted to be as follows:\n\n     If Interest         If Fixed Charge\n     Coverage Ratio is   Coverage Ratio is        Then\n                                                  Applicable\n     for the period      for the period           Margin is\n\n     < 1.75 : 1          or   < 1.20 : 1          2.50%\n\n     > or = 1.75 : 1     and  > or = 1.20 : 1     2.25%\n     and < 2.50 : 1      and < 1.40 : 1\n\n     > or = 2.50 : 1     and > or = 1.40 : 1      2.00%\n\n     The adjustments set forth in this paragraph apply quarterly.\n";
        let found = pricing(text);
        let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
        let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(spreads, [dec("0.025"), dec("0.0225"), dec("0.02")]);
    }

    #[test]
    fn a_table_that_prices_nothing_is_not_a_grid() {
        let text = "the Borrower shall repay the Term Loans as follows:\n\n     Date                Amount\n\n     March 31, 2026      2.50%\n     June 30, 2026       2.50%\n";
        assert!(pricing(text).grids.is_empty());
    }

    #[test]
    fn a_margin_for_loans_of_another_rate_is_not_the_benchmark_margin() {
        for text in [
            "\"Applicable Margin\" shall mean (i) with respect to Index Rate Advances, 0% per annum and (ii) with respect to LIBO Rate Advances, 2.5% per annum.\n",
            "\"Applicable Margin\" means (a) for Fixed Rate Loans, 1.00% and (b) for Eurodollar Rate Loans, 2.5%.\n",
        ] {
            let found = pricing(text);
            assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.025")], "{text}");
        }
        let text = "\"Applicable Margin\" means (i) with respect to Eurocurrency Rate Loans, 2.00% per annum.\n";
        assert_eq!(pricing(text).spreads.len(), 1, "Eurocurrency loans bear the interbank rate");
    }

    #[test]
    fn one_margin_for_loans_of_two_benchmarks_takes_the_preferred_benchmark() {
        let text = "\u{201c}Applicable Rate\u{201d} means (a) with respect to Base Rate Loans, 0.00% per annum and (b) with respect to Term SOFR Loans and Daily Simple SOFR Loans, 0.75% per annum.";
        let found = pricing(text);
        assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
        let alone = "Loans bear interest at Daily Simple SOFR plus 1.25% per annum; Term SOFR is not available.";
        assert_eq!(pricing(alone).indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofr));
    }
    #[test]
    fn a_margin_that_applies_only_once_extended_is_not_the_margin() {
        let text = "\u{201c}Applicable Rate\u{201d} means 1.00% per annum for Term SOFR Loans; provided that, if the Maturity Date shall have been extended, then on and after the Original Maturity Date the Applicable Rate shall mean 1.25% per annum for Term SOFR Loans.\n";
        let found = pricing(text);
        assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.01")]);
    }

    #[test]
    fn a_grid_in_percentage_points_for_non_base_rate_loans_is_the_benchmark_margin() {
        let text = "\"Applicable Margin\" means the margin set forth in the following table:\n\nLevel | Leverage Ratio | Base Rate Loans | Non-Base Rate Loans\nI | > 3.00:1.00 | 0.75 percentage points | 1.75 percentage points\nII | < 3.00:1.00 | 0.50 percentage points | 1.50 percentage points\n\nOther text.";
        let found = pricing(text);
        let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
        let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(spreads, [dec("0.0175"), dec("0.015")]);
        let base: Vec<Decimal> =
            grid.value.iter().filter_map(|l| l.base_rate_spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(base, [dec("0.0075"), dec("0.005")]);
    }
    #[test]
    fn a_grid_of_unreadable_scope_in_a_definition_pricing_facilities_differently_is_not_used() {
        let text = "\"Applicable Margin\" means:\n\n(a) For Term Loans, 2.50% per annum for Term SOFR Loans; and\n\n(b) For Revolving Loans and all other Loans:\n\n     following delivery of the financial statements, the rate set forth below:\n\n     Leverage Ratio        Term SOFR Loans\n     > 3.00:1.00           2.25%\n     <= 3.00:1.00          2.00%\n\nOther text.";
        assert!(pricing(text).grids.is_empty());
    }
    #[test]
    fn a_grid_of_the_following_percentages_gives_the_libor_column_not_the_cd_column() {
        let text = "     \"APPLICABLE MARGIN\" means, at any time, the following\n     percentages determined by the rating of the Borrower:\n\n                         ABR       LIBOR     CD\n     RATING              MARGIN    MARGIN    MARGIN\n\n     BB or lower         .75%      2.0%      2.10%\n     BBB- or higher      0%        1.25%     1.35%\n\n     \"Bank\" means the lender.\n";
        let found = pricing(text);
        let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
        let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(spreads, [dec("0.02"), dec("0.0125")]);
        assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdLibor));
    }
    #[test]
    fn a_grid_laid_out_across_levels_takes_the_benchmark_loans_row() {
        let text = "\"Applicable Margin\" means the percentage per annum set forth below based upon the Status:\n\nLevel 1 Status | Level 2 Status | Level 3 Status\nEurodollar Loans | 0.500% | 0.625% | 0.800%\nCD Loans | 0.600% | 0.725% | 0.900%\nABR Loans | 0.000% | 0.000% | 0.100%\n\nNotwithstanding the foregoing, upon a Sustainability Notice the Applicable Margin shall be based on the following grid:\n\nLevel 1 Status | Level 2 Status | Level 3 Status\nEurodollar Loans | 0.490% | 0.615% | 0.790%\n\nOther text.";
        let found = pricing(text);
        let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
        let read: Vec<(Option<&str>, Option<Decimal>)> = grid
            .value
            .iter()
            .map(|l| (l.level.as_ref().map(|n| n.value().as_str()), l.spread.as_ref().map(|s| *s.value())))
            .collect();
        assert_eq!(
            read,
            [
                (Some("Level 1 Status"), Some(dec("0.005"))),
                (Some("Level 2 Status"), Some(dec("0.00625"))),
                (Some("Level 3 Status"), Some(dec("0.008")))
            ]
        );
        assert!(found.spreads.is_empty(), "{:?}", found.spreads);
    }

    #[test]
    fn a_grid_written_as_lists_per_loan_type_is_a_grid_and_not_competing_flat_margins() {
        let text = "     \"Applicable Margin\" shall mean:\n\n          (a) for Base Rate Loans, (i) 0.50% per annum if \
            the Leverage Ratio exceeds 3.0 to 1 and (ii) 0.25% per annum if the Leverage Ratio is 3.0 to 1 or less; \
            and\n\n          (b) for Eurodollar Rate Loans, (i) 1.75% per annum if the Leverage Ratio exceeds 3.0 to 1 \
            and (ii) 1.25% per annum if the Leverage Ratio is 3.0 to 1 or less.\n\n     \"Bank\" means the lender.\n";
        let found = pricing(text);
        let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
        let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(spreads, [dec("0.0175"), dec("0.0125")]);
        let base: Vec<Decimal> =
            grid.value.iter().filter_map(|l| l.base_rate_spread.as_ref().map(|s| *s.value())).collect();
        assert_eq!(base, [dec("0.005"), dec("0.0025")]);
        assert!(found.spreads.is_empty() && found.base_spreads.is_empty(), "{:?}", found.spreads);
        assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdLibor));
    }

    #[test]
    fn a_prose_grid_for_each_facility_is_scoped_to_the_facility_its_list_names() {
        let text = "\"Applicable Margin\" means (a) with respect to Term Loans, (i) 2.50% if the Leverage Ratio is \
            greater than 2.0 to 1 and (ii) 2.25% if the Leverage Ratio is 2.0 to 1 or less; and (b) with respect to \
            Revolving Loans, (i) 2.00% if the Leverage Ratio is greater than 2.0 to 1 and (ii) 1.75% if the \
            Leverage Ratio is 2.0 to 1 or less.\n";
        let found = pricing(text);
        let read: Vec<(Vec<FacilityKey>, usize)> =
            found.grids.iter().map(|g| (g.keys.clone(), g.value.len())).collect();
        assert_eq!(read, [(vec![FacilityKey::Term], 2), (vec![FacilityKey::Revolving], 2)]);
    }

    #[test]
    fn a_usage_threshold_in_a_fee_table_is_not_the_fee() {
        let text = "\"Unused Line Fee\" is payable quarterly at the rate in this table:\n\nLevel | Average Usage | Unused Line \
            Fee Rate\nI | > 40% of the Maximum Credit | 0.25%\nII | < 40% of the Maximum Credit | 0.375%\n";
        let doc = Document::scan(text);
        let mut found = PricingCandidates::default();
        fees(&doc, &Regions(Vec::new()), &mut found);
        assert!(found.fees.iter().all(|f| *f.value.value() != CommitmentFee::Rate(dec("0.4"))), "{:?}", found.fees);
    }

    #[test]
    fn a_one_time_commitment_fee_is_not_the_rate_on_unused_commitments() {
        let text = "The Borrower shall pay a one-time commitment fee in the amount of 0.25% of the Commitment on the \
            Closing Date.\n";
        let doc = Document::scan(text);
        let mut found = PricingCandidates::default();
        fees(&doc, &Regions(Vec::new()), &mut found);
        assert!(found.fees.is_empty(), "{:?}", found.fees);
    }

    #[test]
    fn a_fee_rate_that_applies_after_a_default_is_not_the_fee() {
        let text = "If an Event of Default shall have occurred and be continuing, the Commitment Fee Rate shall equal \
            0.75% per annum.\n";
        let doc = Document::scan(text);
        let mut found = PricingCandidates::default();
        fees(&doc, &Regions(Vec::new()), &mut found);
        assert!(found.fees.is_empty(), "{:?}", found.fees);
    }
}
