//! Flat margins: which stated percentages are the loans' margin over a benchmark or over the base
//! rate, judged from the words around each (a default rate, a step, a fee or a floor is not), and
//! where margins are stated: margin definitions, rate labels, and the statements by which an
//! amendment sets a margin term.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::candidates::PricingCandidates;
use super::floors::FLOOR_AFTER;
use super::index::{has_risk_free_benchmark, preferred_of_joined};
use crate::domain::extraction::amendments::fused_with_other_figures;
use crate::domain::extraction::benchmarks::{BenchmarkMatch, is_margin_term};
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::FloatingRateIndex;
use crate::domain::extraction::numbers::PercentMatch;
use crate::domain::extraction::provisions::uses_of_term;
use crate::domain::extraction::scope::{Scoped, applies_once_extended, scope_of};
use crate::domain::extraction::text::{
    Definition, Regions, after, any_word, before, clause_around, contains_any_ci, contains_ci, last_word,
    matches_outside_date_names, pattern, sentence_around,
};

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

/// Besides the words of another rate (`super::ANOTHER_RATE`: a default rate, the rate on overdue
/// sums, a minimum the rate may not go under).
const NOT_A_MARGIN_WORDS: &[&str] = &[
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

/// The words before a rate that add it to the margin: "… the Applicable Margin plus", "margin +".
static MARGIN_PLUS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:margin|spread)[ \t\r\n]*(?:plus|\+)[ \t\r\n]*(?:an[ \t\r\n]+additional[ \t\r\n]*)?$")
});

/// The definition of an adjusted benchmark in its clause's lead-in: `"Adjusted Term SOFR" means
/// Term SOFR plus 0.10%`, whether or not the definition is found as one (an amendment quotes the
/// definitions it adds, so their own quotation marks are doubled).
static DEFINES_ADJUSTED_BENCHMARK: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r#"(?i)\badjusted(?:[ \t\r\n]+[a-z]+){1,3}[ \t\r\n]*["”]*[ \t\r\n]*(?:means|shall[ \t\r\n]+mean)\b"#)
});

/// The words after a rate that add the margin on top of it: "Term SOFR plus 0.10% plus the
/// Applicable Margin", "Adjusted Term SOFR (Term SOFR plus 0.10%) plus the Applicable Rate". A rate
/// the margin is added to adjusts the benchmark (a credit spread adjustment); it is not the margin.
static PLUS_MARGIN_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*\)?[ \t\r\n]*(?:per[ \t\r\n]+annum[ \t\r\n]*)?\)?,?[ \t\r\n]*(?:plus|\+)[ \t\r\n]+(?:the[ \t\r\n]+)?(?:applicable[ \t\r\n]+(?:margin|spread|rate)|margin|spread)\b",
    )
});

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

/// A margin that applies only during a period the agreement names ("During the Covenant Relief
/// Period, the Applicable Margin shall be 2.75%"): a temporary rate, not the facility's margin.
/// A margin in force until a first pricing date is the margin at signing, and stays.
static FOR_A_NAMED_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:[Dd]uring|DURING)[ \t\r\n]+(?:the|any|such|each|THE|ANY)[ \t\r\n]+(?:[A-Z][A-Za-z\-]*[ \t\r\n]+){1,4}(?:Period|PERIOD)\b",
    )
});

/// "(i) prior to the First Amendment Date, 2.95% per annum": the words before a rate that limit it
/// to the time before a named date.
static BEFORE_A_NAMED_DATE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:prior[ \t\r\n]+to|before)[ \t\r\n]+the[ \t\r\n]+(?P<date>(?:[a-z0-9-]+[ \t\r\n]+){0,3}date)[ \t\r\n]*,?[ \t\r\n]*$",
    )
});

/// Whether the rate at `pct` is one that applied only before a named date, when its sentence
/// names that date again before a later rate ("(i) prior to the First Amendment Date, 2.95% per
/// annum, and (ii) on or after the First Amendment Date, 2.20% per annum"): the earlier rate is
/// superseded by the one stated from the date on. `before_text` is the lower-case lead before the
/// rate.
fn superseded_on_a_named_date(doc: &Document<'_>, pct: &PercentMatch, before_text: &str) -> bool {
    let Some(date) = BEFORE_A_NAMED_DATE.captures(before_text).and_then(|c| c.name("date")) else { return false };
    let date = date.as_str().split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = sentence_around(doc.text, pct.span.start);
    let rest = doc.slice(pct.span.end..sentence.end).to_ascii_lowercase();
    let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    let later_rate = doc.percents_in(pct.span.end..sentence.end).iter().any(|p| p.span.start > pct.span.end);
    later_rate && rest.contains(&format!("the {date}"))
}

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
    // "provided that the interest rate shall not be less than 6.00% per annum": a minimum of the
    // whole rate, neither the margin nor a floor of the benchmark.
    if ["less than", "lower than"].iter().any(|w| before_trimmed.ends_with(w)) {
        return RateKind::Excluded;
    }
    // "the Credit Default Swap Spread less 1.00% per annum": a figure taken off a rate is no
    // margin over it.
    if matches!(last_word(before_trimmed), "less" | "minus") || before_trimmed.ends_with(" reduced by") {
        return RateKind::Excluded;
    }
    // "the Prime Rate plus the Applicable Margin plus 2%": a rate added on top of the margin is an
    // increment (the rate on overdue amounts, a step-up), never the margin itself.
    if MARGIN_PLUS.is_match(before_trimmed) || PLUS_MARGIN_AFTER.is_match(after_text) {
        return RateKind::Excluded;
    }
    let lead_in = doc.slice(clause.start..pct.span.start);
    let trailing = after_text.get(..after_text.len().min(40)).unwrap_or(after_text);
    if DEFINES_ADJUSTED_BENCHMARK.is_match(lead_in) {
        return RateKind::Excluded;
    }
    if matches_outside_date_names(&NOT_A_MARGIN, lead_in)
        || matches_outside_date_names(&super::ANOTHER_RATE, lead_in)
        || contains_any_ci(trailing, &["otherwise", "adjustment"])
    {
        return RateKind::Excluded;
    }
    if names_loans_of_another_rate(doc, clause.start..pct.span.start) || super::names_sub_line(lead_in) {
        return RateKind::Excluded;
    }
    // "“Default Rate” means … the interest rate applicable to such Loan, plus 2.00%": every figure
    // in the definition of another rate (a default or overdue rate) is that rate's.
    if doc.structure.definition_at(pct.span.start).is_some_and(|d| super::ANOTHER_RATE.is_match(&d.key)) {
        return RateKind::Excluded;
    }
    let sentence_lead = doc.slice(sentence_around(doc.text, pct.span.start).start..pct.span.start);
    if FOR_A_NAMED_PERIOD.is_match(sentence_lead) {
        return RateKind::Excluded;
    }
    if superseded_on_a_named_date(doc, pct, &before_text) {
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
pub(super) fn names_loans_of_another_rate(doc: &Document<'_>, range: Range<usize>) -> bool {
    let Some(last) = RATE_LOANS.find_iter(doc.slice(range.clone())).last() else { return false };
    let named = range.start + last.start()..range.start + last.end();
    doc.benchmarks_in(named.clone()).is_empty() && !contains_ci(doc.slice(named), "euro")
}

/// Where the loans' margins are stated: the definitions of the margins the loans bear, rate
/// labels, and the statements that set a margin term.
pub(super) fn pricing_regions(doc: &Document<'_>) -> Vec<Range<usize>> {
    loan_margin_definitions(doc)
        .into_iter()
        .map(|d| d.body.clone())
        .chain(doc.structure.labels_where(is_rate_label).map(|l| l.value.clone()))
        .chain(margin_statements(doc))
        .collect()
}

/// The definitions of margins the loans bear. When the interest clauses add some margin terms to
/// a benchmark ("the Adjusted LIBOR Rate plus the Applicable Margin"), those are the loans'
/// margins, and another margin term the agreement defines ("Applicable Spread" on a facility fee)
/// prices something else.
fn loan_margin_definitions<'d>(doc: &'d Document<'_>) -> Vec<&'d Definition> {
    let defined: Vec<&Definition> = doc.structure.definitions_where(is_margin_term).collect();
    // Where each term is printed after the words that say how the loans bear it.
    let uses_after = |definition: &Definition, lead: &Regex| -> Vec<Range<usize>> {
        let Some(uses) = uses_of_term(doc.slice(definition.term.clone())) else { return Vec::new() };
        uses.find_iter(doc.text)
            .filter(|found| lead.is_match(doc.slice(before(doc.text, found.start(), 60))))
            .map(|found| found.range())
            .collect()
    };
    let added_to_benchmark = |definition: &&Definition| {
        uses_after(definition, &PLUS_BEFORE)
            .iter()
            .any(|found| !doc.benchmarks_in(before(doc.text, found.start, 120)).is_empty())
    };
    let added: Vec<&Definition> = defined.iter().copied().filter(added_to_benchmark).collect();
    if !added.is_empty() {
        return added;
    }
    // "All Loans … shall bear interest … at a rate per annum equal to the Applicable Rate": a term
    // the loans bear whole, in a sentence about interest that names no benchmark (outside the
    // term's own definition), is their (fixed) interest rate, not a margin over anything.
    let borne_whole = |definition: &&Definition| {
        uses_after(definition, &RATE_EQUAL_TO_BEFORE).iter().any(|found| {
            let sentence = sentence_around(doc.text, found.start);
            let rest = doc.text.get(found.end..).unwrap_or_default().trim_start();
            (rest.is_empty() || rest.starts_with(['.', ';', ',']))
                && !definition.body.contains(&found.start)
                && contains_ci(doc.slice(sentence.clone()), "interest")
                && doc.benchmarks_in(sentence).is_empty()
        })
    };
    defined.into_iter().filter(|d| !borne_whole(d)).collect()
}

/// "plus the", "+": the words before a margin term added to a benchmark.
static PLUS_BEFORE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)(?:\bplus|\+)[ \t\r\n]+(?:the[ \t\r\n]+)?$"));

/// "a rate per annum equal to the": the words before a term the loans bear whole.
static RATE_EQUAL_TO_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\brate[ \t\r\n]+per[ \t\r\n]+annum[ \t\r\n]+equal[ \t\r\n]+to[ \t\r\n]+(?:the[ \t\r\n]+)?$")
});

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

/// The flat margins: each percentage outside the grids that is stated as a margin, in a margin
/// definition, label or statement (`margin_regions`), or bound to a benchmark in a sentence about
/// interest.
pub(super) fn flat_margins(
    doc: &Document<'_>,
    margin_regions: &Regions,
    grid_tables: &Regions,
    out: &mut PricingCandidates,
) {
    let prime_is_benchmark = !has_risk_free_benchmark(doc);
    for pct in &doc.percents {
        if grid_tables.contains(pct.span.start) {
            continue;
        }
        // "3.753.25%": a marked-up copy fused the deleted and the inserted rates.
        if fused_with_other_figures(doc.text, pct.span.clone()) {
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
