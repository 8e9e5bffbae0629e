//! Floors on the benchmark: a defined or labelled floor, "a floor of 0.50%", "2.00% (SOFR floor)",
//! a rate below zero "deemed to be zero", a benchmark that "shall in no event be less than zero",
//! and a benchmark defined as "the greater of (a) 0.50% and (b) the rate …".

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use super::candidates::PricingCandidates;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::scope::{Scoped, scope_at};
use crate::domain::extraction::text::{Definition, after, before, pattern};

pub(super) static FLOOR_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:\(|-)?[ \t]*(?:(?:term[ \t]+)?sofr[ \t]+|euribor[ \t]+|sonia[ \t]+|benchmark[ \t]+|index[ \t]+|interest[ \t]+rate[ \t]+)?floor\b",
    )
});

static FLOOR_OF: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\bfloor[ \t\r\n]+(?:of|equal[ \t\r\n]+to|rate[ \t\r\n]+of)[ \t\r\n]+(?:the[ \t]+)?")
});

/// "would be less than zero, such rate shall be deemed to be zero", "shall be less than 0.50%, the
/// LIBO Rate shall be deemed to be 0.50%", "… less than zero, such rate shall be deemed zero": the
/// rate the benchmark may not go under, when the two figures are the same.
static DEEMED_FLOOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:less[ \t\r\n]+than|below)[ \t\r\n]+(?P<below>zero\b|[0-9]{1,2}(?:\.[0-9]{1,4})?[ \t]?%)[^;]{0,240}?\bdeemed[ \t\r\n]+(?:to[ \t\r\n]+be[ \t\r\n]+)?(?:equal[ \t\r\n]+to[ \t\r\n]+)?(?P<deemed>zero\b|[0-9]{1,2}(?:\.[0-9]{1,4})?[ \t]?%)",
    )
});

/// "in no event shall the Index Rate be less than 0.50%", "the Eurocurrency Rate shall in no event
/// be less than zero", "… shall at no time be less than 0.00%": a bound on the rate named before
/// or inside (its subject).
static NEVER_BELOW: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:in[ \t\r\n]+no[ \t\r\n]+(?:event|case)|at[ \t\r\n]+no[ \t\r\n]+time)[ \t\r\n]+(?:shall|will)[ \t\r\n]+(?P<subject>[^,;.()]{1,80}?)[ \t\r\n]+be|(?P<before>shall|will)[ \t\r\n]+(?:in[ \t\r\n]+no[ \t\r\n]+(?:event|case)|at[ \t\r\n]+no[ \t\r\n]+time)[ \t\r\n]+be)[ \t\r\n]+less[ \t\r\n]+than[ \t\r\n]+(?P<figure>zero\b|(?:(?:zero|one|two|three|four|five|half|quarters?|eighths?|of|and|a|percent|per|cent)[ \t\r\n\-]+){1,8}\([ \t]*[0-9]{1,2}(?:\.[0-9]{1,4})?[ \t]?%[ \t]*\)|[0-9]{1,2}(?:\.[0-9]{1,4})?[ \t]?%)",
    )
});

/// "the greater of (a) …": the opening of a choice between two rates.
static GREATER_OF: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bthe[ \t\r\n]+greater[ \t\r\n]+of[ \t\r\n]+\((?:a|i|x|1)\)[ \t\r\n]*"));

/// ", and (b) ", " or (ii) ": where the second choice of "the greater of" starts.
static SECOND_CHOICE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)[ \t\r\n,]+(?:and|or)[ \t\r\n]+\((?:b|ii|y|2)\)[ \t\r\n]*"));

/// Words a bare figure may be written in ("one half of one percent (0.50%)", "0.75% per annum").
const FIGURE_WORDS: &[&str] = &[
    "one",
    "two",
    "three",
    "four",
    "five",
    "half",
    "quarter",
    "quarters",
    "eighth",
    "eighths",
    "of",
    "a",
    "an",
    "percent",
    "per",
    "cent",
    "annum",
    "zero",
    "fifty",
    "seventy",
    "twenty",
    "basis",
    "points",
    "and",
    "hundredths",
    "tenths",
];

/// Words of a defined term for a rate that is no benchmark of the loans but a leg of the base rate
/// ("Federal Funds Effective Rate", "NYFRB Rate", "Prime Rate"), or the base rate itself ("ABR",
/// "Alternate Base Rate"): its floor is that rate's, not the benchmark's.
const BASE_RATE_LEGS: &[&str] = &["federal funds", "nyfrb", "overnight bank funding", "prime", "base rate"];

/// Whether a defined term names a leg of the base rate or the base rate (`BASE_RATE_LEGS`).
fn is_base_rate_term(key: &str) -> bool {
    BASE_RATE_LEGS.iter().any(|leg| key.contains(leg)) || key.split_whitespace().any(|word| word == "abr")
}

pub(super) fn floors(doc: &Document<'_>, out: &mut PricingCandidates) {
    let mut found: Vec<(Range<usize>, Decimal)> = Vec::new();
    let is_floor_term = |term: &str| {
        let lower = term;
        lower == "floor" || lower.ends_with(" floor")
    };
    for definition in doc.structure.definitions_where(is_floor_term) {
        if used_only_by_replacement(doc, definition) {
            continue;
        }
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
    for deemed in DEEMED_FLOOR.captures_iter(doc.text) {
        let (Some(whole), Some(below), Some(floor)) = (deemed.get(0), deemed.name("below"), deemed.name("deemed"))
        else {
            continue;
        };
        let figure = |m: regex::Match<'_>| figure_at(doc, m);
        let of_a_base_rate_leg = doc.structure.definition_at(whole.start()).is_some_and(|d| is_base_rate_term(&d.key));
        if let (Some(below), Some(value)) = (figure(below), figure(floor))
            && below == value
            && !of_a_base_rate_leg
        {
            found.push((whole.range(), value));
        }
    }
    found.extend(never_below(doc));
    found.extend(greater_of_a_figure(doc));
    found.sort_by_key(|(span, _)| (span.start, span.end));
    found.dedup_by(|a, b| a.0 == b.0);
    for (span, value) in found {
        let keys = scope_at(doc, span.start);
        if let Some(value) = doc.sourced(span, value) {
            out.floors.push(Scoped::new(value, keys));
        }
    }
}

/// The figure a bound is written as: "zero", or a percentage, in figures after its words ("one
/// percent (1.00%)": the figure in brackets, the last, is the one read).
fn figure_at(doc: &Document<'_>, m: regex::Match<'_>) -> Option<Decimal> {
    if m.as_str().eq_ignore_ascii_case("zero") {
        return Some(Decimal::ZERO);
    }
    doc.percents_in(m.range()).last().map(|p| p.fraction)
}

/// Whether a rate named in `range` is a benchmark the loans may bear (not the base rate, one of
/// its legs, or a replacement benchmark).
fn names_the_benchmark(doc: &Document<'_>, range: Range<usize>) -> bool {
    let words = doc.slice(range.clone()).to_lowercase();
    !is_base_rate_term(&words)
        && !words.contains("replacement")
        && !words.contains("successor")
        && doc.benchmarks_in(range).iter().any(|b| !b.base_rate)
}

/// Whether a definition defines a benchmark the loans may bear: a rate named as one, or defined by
/// one ("“Eurocurrency Rate” means … the London interbank offered rate …"), that is not the base
/// rate, a margin, a default or all-in interest rate, a replacement or a floor.
fn defines_a_benchmark(doc: &Document<'_>, definition: &Definition) -> bool {
    let key = definition.key.as_str();
    !is_base_rate_term(key)
        && !["margin", "applicable", "default", "interest", "replacement", "successor", "floor"]
            .iter()
            .any(|w| key.contains(w))
        && (names_the_benchmark(doc, definition.term.clone())
            || BENCHMARK_WORDS.iter().any(|w| key.contains(w))
            || doc.benchmarks_in(definition.body.clone()).iter().any(|b| !b.base_rate))
}

/// Words of a defined term that name an interbank or overnight benchmark ("Eurocurrency Rate",
/// "Euro-Dollar Rate", "Adjusted LIBO Rate").
const BENCHMARK_WORDS: &[&str] = &[
    "eurocurrency",
    "eurodollar",
    "euro-dollar",
    "libo",
    "euribor",
    "sofr",
    "sonia",
    "cdor",
    "tibor",
    "bbsy",
    "hibor",
];

/// "in no event shall the Index Rate be less than 0.50%", "the Eurocurrency Rate shall in no event
/// be less than zero": a floor when the rate so bounded is the benchmark.
fn never_below(doc: &Document<'_>) -> Vec<(Range<usize>, Decimal)> {
    let mut found = Vec::new();
    for bound in NEVER_BELOW.captures_iter(doc.text) {
        let (Some(whole), Some(figure)) = (bound.get(0), bound.name("figure")) else { continue };
        let definition = doc.structure.definition_at(whole.start());
        if definition.is_some_and(|d| is_base_rate_term(&d.key)) {
            continue;
        }
        let of_the_benchmark = match (bound.name("subject"), bound.name("before")) {
            (Some(subject), _) => names_the_benchmark(doc, subject.range()),
            // "the Eurocurrency Rate shall in no event …": the rate named just before, or the rate
            // the definition it is in defines.
            (None, Some(verb)) => {
                let lead = before(doc.text, verb.start(), 80);
                let named = doc.benchmarks_in(lead.clone()).last().filter(|named| {
                    doc.slice(named.span.end..verb.start()).trim().is_empty()
                        && names_the_benchmark(doc, named.span.clone())
                });
                named.is_some()
                    || definition.is_some_and(|d| {
                        doc.slice(lead).trim_end().ends_with(doc.slice(d.term.clone())) && defines_a_benchmark(doc, d)
                    })
            }
            _ => false,
        };
        if of_the_benchmark && let Some(value) = figure_at(doc, figure) {
            found.push((whole.start()..figure.end(), value));
        }
    }
    found
}

/// "“Eurodollar Rate” means the greater of (a) one half of one percent (0.50%) and (b) the rate …",
/// "“LIBOR” means the greater of (a) the London interbank offered rate … or (b) 0.75%": one choice
/// is a bare figure, the other the benchmark (named there, or the rate the definition defines).
/// The figure is the benchmark's floor; a choice with a margin ("Term SOFR plus 2.50%") makes the
/// figure a floor on the whole rate, not on the benchmark, and the base rate's floors are its own.
fn greater_of_a_figure(doc: &Document<'_>) -> Vec<(Range<usize>, Decimal)> {
    let mut found = Vec::new();
    for opening in GREATER_OF.find_iter(doc.text) {
        let definition = doc.structure.definition_at(opening.start());
        if definition.is_some_and(|d| is_base_rate_term(&d.key)) {
            continue;
        }
        let window = after(doc.text, opening.end(), 900);
        let Some(second) = SECOND_CHOICE.find(doc.slice(window.clone())) else { continue };
        let first = opening.end()..window.start + second.start();
        let second_start = window.start + second.end();
        let rest = doc.slice(after(doc.text, second_start, 300));
        let end = choice_end(rest);
        let second = second_start..second_start + end;
        let defines_the_benchmark = definition.is_some_and(|d| defines_a_benchmark(doc, d));
        let (figure, value, other) = match (bare_figure(doc, first.clone()), bare_figure(doc, second.clone())) {
            (Some(value), None) => (first, value, second),
            (None, Some(value)) => (second, value, first),
            _ => continue,
        };
        let other_words = doc.slice(other.clone()).to_lowercase();
        if is_base_rate_term(&other_words) || ["margin", "spread", " plus "].iter().any(|w| other_words.contains(w)) {
            continue;
        }
        if defines_the_benchmark || names_the_benchmark(doc, other) {
            found.push((opening.start()..figure.end, value));
        }
    }
    found
}

/// Where a choice of "the greater of" ends in `rest`: at the first ";", at a full stop (not a
/// decimal point), or at a closing bracket of no opened one.
fn choice_end(rest: &str) -> usize {
    let mut depth = 0usize;
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => return i,
            b')' => depth -= 1,
            b';' => return i,
            b'.' if !bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => return i,
            _ => {}
        }
    }
    rest.len()
}

/// The figure a choice is, when it is nothing but a figure ("0.75%", "zero", "one half of one
/// percent (0.50%) per annum").
fn bare_figure(doc: &Document<'_>, range: Range<usize>) -> Option<Decimal> {
    let words = doc.slice(range.clone()).trim();
    if words.eq_ignore_ascii_case("zero") {
        return Some(Decimal::ZERO);
    }
    let [percent] = doc.percents_in(range.clone()) else { return None };
    let mut rest = String::new();
    rest.push_str(doc.slice(range.start..percent.span.start));
    rest.push(' ');
    rest.push_str(doc.slice(percent.span.end..range.end));
    let rest = rest.replace(['(', ')', ',', '-'], " ").to_lowercase();
    rest.split_whitespace().all(|word| FIGURE_WORDS.contains(&word)).then_some(percent.fraction)
}

/// Whether a defined floor ("“Floor” means 0.15% per annum") is used only by the benchmark
/// replacement provisions: then it is the floor of a rate that may replace the benchmark.
fn used_only_by_replacement(doc: &Document<'_>, definition: &Definition) -> bool {
    // "7th Floor", "Floor 12": a storey in an address, not the term.
    let storey = |u: Range<usize>| {
        doc.slice(before(doc.text, u.start, 6)).bytes().any(|b| b.is_ascii_digit())
            || doc.slice(after(doc.text, u.end, 3)).trim_start().starts_with(|c: char| c.is_ascii_digit())
    };
    doc.provisions.only_replacements_use(doc.text, definition, storey)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floor_values(text: &str) -> Vec<Decimal> {
        let doc = Document::scan(text);
        let mut found = PricingCandidates::default();
        floors(&doc, &mut found);
        found.floors.iter().map(|f| *f.value.value()).collect()
    }

    fn dec(raw: &str) -> Decimal {
        raw.parse().expect("test decimal")
    }

    #[test]
    fn a_benchmark_defined_as_the_greater_of_a_figure_and_the_rate_is_floored_at_the_figure() {
        let words = "\"Eurodollar Rate\" means, for any Interest Period, the greater of (a) one half of one percent \
            (0.50%) and (b) the rate per annum at which the Agent is offered dollar deposits for that period.\n";
        assert_eq!(floor_values(words), [dec("0.005")]);
        let last = "\"LIBOR\" means the greater of (a) the London interbank offered rate for one month deposits, as \
            published on the first Business Day of each month, or (b) 0.75%.\n";
        assert_eq!(floor_values(last), [dec("0.0075")]);
        let whole_rate = "\"Interest Rate\" means the greater of (a) Term SOFR plus 2.50% and (b) 4.00% per annum.\n";
        assert!(floor_values(whole_rate).is_empty(), "a floor on the rate with its margin is not the benchmark's");
        let base = "\"Base Rate\" means the greater of (a) the Prime Rate and (b) 1.00%.\n";
        assert!(floor_values(base).is_empty(), "the base rate's floor is its own");
    }

    #[test]
    fn a_benchmark_that_is_never_less_than_a_figure_is_floored_there() {
        let after = "\"Cost of Funds Rate\" means the Lender's cost of funding the Loans. Notwithstanding the \
            foregoing, the Cost of Funds Rate shall in no event be less than zero.\n";
        assert!(floor_values(after).is_empty(), "a rate no benchmark defines: {:?}", floor_values(after));
        let named = "\"Eurocurrency Rate\" means the rate on the screen page for the Interest Period. \
            Notwithstanding the foregoing, the Eurocurrency Rate shall in no event be less than zero.\nEach \
            Eurocurrency Loan bears interest at the Eurocurrency Rate plus the Applicable Margin.\n";
        assert_eq!(floor_values(named), [Decimal::ZERO]);
        let own = "\"Eurocurrency Rate\" means the London interbank offered rate on the screen page. Notwithstanding \
            the foregoing, the Eurocurrency Rate shall in no event be less than zero.\nEach Eurocurrency Loan bears \
            interest at the Eurocurrency Rate plus the Applicable Margin.\n";
        assert_eq!(floor_values(own), [Decimal::ZERO]);
        let inside = "\"Index Rate\" means the Term SOFR Rate as in effect from time to time; provided, in no case will \
            the Index Rate be less than 0.50% per annum.\n";
        assert_eq!(floor_values(inside), [dec("0.005")]);
        let at_no_time = "\"Term SOFR\" means the CME term SOFR reference rate for the Interest Period; provided that \
            Term SOFR shall at no time be less than 0.00%.\nEach Loan bears interest at Term SOFR plus the Spread.\n";
        assert_eq!(floor_values(at_no_time), [Decimal::ZERO]);
        // The figure in words, then in brackets.
        let in_words = "Each Advance bears interest at Term SOFR plus 2.25%; provided that Term SOFR shall at no time \
            be less than one-half of one percent (0.50%).\n\"Term SOFR\" means the CME term SOFR reference rate.\n";
        assert_eq!(floor_values(in_words), [dec("0.005")]);
        let one = in_words.replace("one-half of one percent (0.50%)", "one percent ( 1.00%)");
        assert_eq!(floor_values(&one), [dec("0.01")]);
        let margin = "Notwithstanding the foregoing, in no event shall the Applicable Margin be less than zero.\n";
        assert!(floor_values(margin).is_empty(), "{:?}", floor_values(margin));
        let base = "\"Base Rate\" means the highest of the Prime Rate and the Federal Funds Rate plus 1/2 of 1%; \
            provided that the Base Rate shall in no case be less than zero.\n";
        assert!(floor_values(base).is_empty(), "{:?}", floor_values(base));
    }

    #[test]
    fn a_rate_below_zero_deemed_zero_without_to_be_is_floored_at_zero() {
        let text = "(d) if the Eurocurrency Rate shall be less than zero, such rate shall be deemed zero for purposes \
            of this Agreement.\n";
        assert_eq!(floor_values(text), [Decimal::ZERO]);
    }

    #[test]
    fn a_defined_floor_only_a_replacement_benchmark_uses_is_not_the_benchmarks() {
        let replacement_only = "\"Benchmark Replacement\" means the sum of Daily Simple SOFR and the adjustment. \
            Notwithstanding the foregoing, in no event shall any Benchmark Replacement be less than the Floor.\n\
            \"Daily Simple SOFR\" means SOFR for the day five Business Days earlier.\n\"Floor\" means 15 basis points \
            (0.15%) per annum.\nNotices to the Agent: 2 Main Street, 7th Floor, Springfield; copies to Floor 12, Tower B.\n";
        assert!(!floor_values(replacement_only).contains(&dec("0.0015")), "{:?}", floor_values(replacement_only));
        let in_force = "\"Adjusted Term SOFR\" means Term SOFR plus 0.10%; provided that if Adjusted Term SOFR would be \
            less than the Floor, it shall be deemed to be the Floor.\n\"Floor\" means a rate of 0.25% per annum.\nEach \
            Term SOFR Loan bears interest at Adjusted Term SOFR plus the Applicable Margin.\n";
        assert_eq!(floor_values(in_force), [dec("0.0025")]);
    }
}
