//! Benchmark rates as agreements name them (Term SOFR, SONIA, EURIBOR, LIBOR and its "Eurodollar
//! Rate", the prime or base rate), and the terms an agreement defines as other names for one
//! ("Index Rate" means the Term SOFR Rate). Found once, when the document is scanned; pricing
//! reads the mentions to tell what a margin is added to.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::model::FloatingRateIndex;
use super::text::{Located, contains_any_ci, pattern};

/// A mention of a benchmark rate.
#[derive(Clone, Debug)]
pub(crate) struct BenchmarkMatch {
    pub span: Range<usize>,
    pub index: FloatingRateIndex,
    /// "Base Rate", "ABR", "Alternate Base Rate" rather than a literal "Prime Rate".
    pub base_rate: bool,
}

impl Located for BenchmarkMatch {
    fn location(&self) -> Range<usize> {
        self.span.clone()
    }
}

static BENCHMARK: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?P<term_sofr>\b(?i:term)[ \t\r\n]+SOFR\b)|(?P<sofr>\b(?:(?i:daily[ \t\r\n]+simple|compounded)[ \t\r\n]+)?SOFR\b)|(?P<sonia>\bSONIA\b)|(?P<euribor>\bEURIBOR\b)|(?P<estr>€STR|\bESTR\b|\b(?i:euro[ \t]+short[- ]term[ \t]+rate)\b)|(?P<libor>\b(?:LIBOR|Libor)\b|\bLIBO[ \t]+(?:Rate|RATE)\b|\b(?i:london[ \t]+interbank[ \t]+offered[ \t]+rate)\b|\b(?:Eurodollar|EURODOLLAR)[ \t\r\n]+(?:Rate|RATE|Loans?|LOANS?|Advances?|ADVANCES?|Borrowings?|BORROWINGS?|Margin|MARGIN)\b)|(?P<prime>\b(?i:prime[ \t]+rate)\b)|(?P<base>\b(?:Alternate[ \t]+Base[ \t]+Rate|Base[ \t]+Rate|ABR)\b)|(?P<saron>\bSARON\b)|(?P<tona>\bTONAR?\b)|(?P<corra>\bCORRA\b)",
    )
});

/// Each capture group of [`BENCHMARK`] with the index it names and whether it is the base rate
/// ("Base Rate", "ABR") rather than a literal "Prime Rate".
const BENCHMARK_GROUPS: &[(&str, FloatingRateIndex, bool)] = &[
    ("term_sofr", FloatingRateIndex::UsdSofrCmeTerm, false),
    ("sofr", FloatingRateIndex::UsdSofr, false),
    ("sonia", FloatingRateIndex::GbpSonia, false),
    ("euribor", FloatingRateIndex::EurEuribor, false),
    ("estr", FloatingRateIndex::EurEuroStr, false),
    ("libor", FloatingRateIndex::UsdLibor, false),
    ("prime", FloatingRateIndex::UsdPrime, false),
    ("base", FloatingRateIndex::UsdPrime, true),
    ("saron", FloatingRateIndex::ChfSaron, false),
    ("tona", FloatingRateIndex::JpyTona, false),
    ("corra", FloatingRateIndex::CadCorra, false),
];

/// Every benchmark mention in `text`, in order.
pub(crate) fn find_benchmarks(text: &str) -> Vec<BenchmarkMatch> {
    BENCHMARK
        .captures_iter(text)
        .filter_map(|c| {
            let span = c.get(0)?.range();
            // The pattern is an alternation of these groups, so exactly one of them matched.
            let (index, base_rate) = BENCHMARK_GROUPS
                .iter()
                .find(|(group, _, _)| c.name(group).is_some())
                .map_or((FloatingRateIndex::CadCorra, false), |&(_, index, base_rate)| (index, base_rate));
            Some(BenchmarkMatch { span, index, base_rate })
        })
        .collect()
}

/// `mentions` with the mentions of terms an agreement defines as another name for a benchmark
/// ("Index Rate" means the Term SOFR Rate as in effect from time to time), so that "the Index
/// Rate plus 3.35%" reads as a margin over Term SOFR. A rate defined as a benchmark plus something
/// ("Interest Rate" means Term SOFR plus 2.50%) is a rate of its own, not another name.
pub(crate) fn with_aliases(
    text: &str,
    structure: &super::text::Structure,
    mut mentions: Vec<BenchmarkMatch>,
) -> Vec<BenchmarkMatch> {
    let mut aliases = Vec::new();
    // "Index" alone is how a bank's form names the benchmark ("Index" means the prime rate
    // published in The Wall Street Journal).
    // "Benchmark" alone is what a SOFR-era form prices by ("Benchmark" means, initially, Term
    // SOFR): the benchmark in force until a replacement, which is named elsewhere.
    let names_a_rate =
        |key: &str| (key.ends_with(" rate") || key == "index" || key == "benchmark") && !is_margin_term(key);
    for definition in structure.definitions_where(names_a_rate) {
        let key = definition.key.as_str();
        if ["interest", "default", "applicable", "overdue", "floor"].iter().any(|w| key.contains(w)) {
            continue;
        }
        let term = super::text::slice(text, definition.term.clone());
        if !find_benchmarks(term).is_empty() {
            continue;
        }
        let opening_end = super::text::floor_boundary(text, definition.body.end.min(definition.body.start + 400));
        let opening = super::text::slice(text, definition.body.start..opening_end);
        let sentence_end = opening.find(['.', ';']).unwrap_or(opening.len());
        let first_clause = &opening[..sentence_end];
        let Some(target) = ALIAS_OF.captures(first_clause).and_then(|c| c.name("target")) else { continue };
        let Some(target) = find_benchmarks(target.as_str()).into_iter().next().filter(|b| b.span.start == 0) else {
            continue;
        };
        if contains_any_ci(
            first_clause,
            &["plus", "+", "margin", "spread", "above", "highest", "greatest", "greater of"],
        ) {
            continue;
        }
        let Ok(uses) = Regex::new(&format!(r"\b{}\b", regex::escape(term).replace(' ', r"[ \t\r\n]+"))) else {
            continue;
        };
        // "Benchmark Replacement", "Benchmark Transition Event": other terms the word opens.
        let opens_other_term = |end: usize| {
            let rest = super::text::slice(text, end..super::text::floor_boundary(text, (end + 3).min(text.len())));
            rest.starts_with(' ') && rest[1..].starts_with(|c: char| c.is_ascii_uppercase())
        };
        let uses = uses.find_iter(text).filter(|found| key != "benchmark" || !opens_other_term(found.end()));
        aliases.extend(uses.map(|found| BenchmarkMatch {
            span: found.range(),
            index: target.index,
            base_rate: target.base_rate,
        }));
    }
    mentions.retain(|mention| !leg_of_the_base_rate(text, structure, mention));
    term_sofr_names(text, &mut mentions);
    if aliases.is_empty() {
        return mentions;
    }
    mentions.extend(aliases);
    mentions.sort_by_key(|m| (m.span.start, std::cmp::Reverse(m.span.end)));
    // Keep the mentions disjoint: the first of overlapping ones stands.
    let mut disjoint: Vec<BenchmarkMatch> = Vec::with_capacity(mentions.len());
    for mention in mentions {
        if disjoint.last().is_none_or(|last| last.span.end <= mention.span.start) {
            disjoint.push(mention);
        }
    }
    disjoint
}

/// Whether `mention` is a leg of the base rate: a benchmark other than the prime rate named in the
/// definition of a term that is the base rate and nothing else ("Base Rate" means the greatest of
/// the prime rate, the federal funds rate plus 0.50% and Daily Simple SOFR plus 1.00%). The loans
/// bear that benchmark only where the agreement names it outside the definition; a bank loan at
/// the base rate whose base rate compares SOFR bears no SOFR.
fn leg_of_the_base_rate(text: &str, structure: &super::text::Structure, mention: &BenchmarkMatch) -> bool {
    mention.index != FloatingRateIndex::UsdPrime
        && structure.definition_at(mention.span.start).is_some_and(|definition| {
            let named = find_benchmarks(super::text::slice(text, definition.term.clone()));
            !named.is_empty() && named.iter().all(|b| b.base_rate)
        })
}

/// "SOFR" opening the name of loans or of their margin: "SOFR Advances", "SOFR Loans", "SOFR
/// Margin".
static SOFR_NAME_WORD_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]+(?:Rate[ \t]+)?(?:Margin|MARGIN|Spread|Advances?|ADVANCES?|Loans?|LOANS?|Borrowings?|BORROWINGS?)\b",
    )
});

/// The daily forms of SOFR: "Daily Simple SOFR", "Compounded SOFR", a "Daily SOFR" or a "SOFR
/// Average".
static DAILY_SOFR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:daily[ \t\r\n]+simple|compounded|daily)[ \t\r\n]+SOFR\b|\bSOFR[ \t\r\n]+averages?\b")
});

/// A bare "SOFR" that names the loans or their margin ("SOFR Advances bear interest at Term SOFR
/// plus the SOFR Margin") in a document whose only SOFR is the term rate: the loans so named bear
/// Term SOFR. Where the document names a daily SOFR anywhere, the name does not tell which.
fn term_sofr_names(text: &str, mentions: &mut [BenchmarkMatch]) {
    let names_term_sofr = || mentions.iter().any(|m| m.index == FloatingRateIndex::UsdSofrCmeTerm);
    if !names_term_sofr() || DAILY_SOFR.is_match(text) {
        return;
    }
    for mention in mentions.iter_mut() {
        let bare = super::text::slice(text, mention.span.clone()) == "SOFR";
        let after =
            super::text::slice(text, mention.span.end..super::text::floor_boundary(text, mention.span.end + 40));
        if mention.index == FloatingRateIndex::UsdSofr && bare && SOFR_NAME_WORD_AFTER.is_match(after) {
            mention.index = FloatingRateIndex::UsdSofrCmeTerm;
        }
    }
}

/// The opening of a definition that names a benchmark as the term's meaning: "means the Term
/// SOFR Rate", "means, for any day, LIBOR".
static ALIAS_OF: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n,:]*(?:(?:with[ \t\r\n]+respect[ \t\r\n]+to|for)[ \t\r\n]+any[ \t\r\n]+(?:day|period|loan)[ \t\r\n]*,[ \t\r\n]*)?(?:initially[ \t\r\n]*,?[ \t\r\n]*)?(?:the[ \t\r\n]+)?(?P<target>[A-Za-z€ ]{3,40})",
    )
});

/// Defined terms that state the margin over a benchmark ("Applicable Margin", "Applicable Rate"):
/// never another name for the benchmark, however their names end. Pricing reads the margins from
/// their definitions.
pub(crate) fn is_margin_term(term: &str) -> bool {
    let lower = term;
    (lower.ends_with("applicable rate")
        || lower.ends_with("applicable margin")
        || lower.ends_with("applicable spread")
        || lower == "margin"
        || lower == "spread"
        || lower.ends_with(" margin"))
        && !lower.contains("fee")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_benchmark_compared_in_the_base_rate_definition_is_a_leg_and_not_a_mention() {
        let text = "\"Base Rate\" means, for any day, the greatest of (a) the prime rate of Kestrel Bank, (b) the Federal Funds Rate plus 0.50% and (c) Daily Simple SOFR plus 1.00%.\n\n\"Daily Simple SOFR\" means the secured overnight financing rate.\n\nLoans bear interest at the Base Rate plus 1.25%.\n";
        let structure = crate::domain::extraction::text::Structure::scan(text);
        let mentions = with_aliases(text, &structure, find_benchmarks(text));
        let leg = text.find("Daily Simple SOFR plus").expect("leg");
        assert!(mentions.iter().all(|m| m.span.start != leg), "the leg is no mention");
        // The prime leg stays (pricing reads it as the base rate's), and so do the benchmark's
        // own definition and every mention outside the base rate's.
        assert!(mentions.iter().any(|m| m.index == FloatingRateIndex::UsdPrime && !m.base_rate));
        let defined = text.find("Daily Simple SOFR\" means").expect("definition");
        assert!(mentions.iter().any(|m| m.span.start == defined));
        // A term that names another benchmark beside the base rate is not the base rate's.
        let other = text.replace("\"Base Rate\" means", "\"Base Rate SOFR Day\" means");
        let structure = crate::domain::extraction::text::Structure::scan(&other);
        let mentions = with_aliases(&other, &structure, find_benchmarks(&other));
        let leg = other.find("Daily Simple SOFR plus").expect("leg");
        assert!(mentions.iter().any(|m| m.span.start == leg));
    }

    #[test]
    fn sofr_naming_the_loans_of_an_agreement_whose_only_sofr_is_the_term_rate_is_term_sofr() {
        let text = "SOFR Advances bear interest at Term SOFR plus the SOFR Margin.\n\n\"SOFR\" means the secured overnight financing rate.\n";
        let indices = |text: &str| {
            let structure = crate::domain::extraction::text::Structure::scan(text);
            with_aliases(text, &structure, find_benchmarks(text)).iter().map(|m| m.index).collect::<Vec<_>>()
        };
        use FloatingRateIndex::{UsdSofr, UsdSofrCmeTerm};
        // The names of the loans and of their margin; the rate's own definition stays SOFR.
        assert_eq!(indices(text), [UsdSofrCmeTerm, UsdSofrCmeTerm, UsdSofrCmeTerm, UsdSofr]);
        // Beside a daily SOFR the name says nothing of which.
        let daily = format!("{text}Base Rate Advances bear the Daily Simple SOFR.\n");
        assert_eq!(indices(&daily)[..3], [UsdSofr, UsdSofrCmeTerm, UsdSofr]);
        // Without the term rate named, SOFR is SOFR.
        assert_eq!(indices("SOFR Advances bear SOFR plus the SOFR Margin."), [UsdSofr; 3]);
    }

    #[test]
    fn libor_era_benchmarks_are_usd_libor() {
        for text in ["the LIBO Rate", "LIBOR", "the Eurodollar Rate", "the London Interbank Offered Rate"] {
            let found = find_benchmarks(text);
            assert_eq!(found.first().map(|b| b.index), Some(FloatingRateIndex::UsdLibor), "{text}");
        }
    }

    #[test]
    fn libor_in_mixed_case_is_libor() {
        assert_eq!(
            find_benchmarks("150 basis points over Libor").first().map(|b| b.index),
            Some(FloatingRateIndex::UsdLibor)
        );
        assert!(find_benchmarks("a library of libors").is_empty());
    }

    #[test]
    fn daily_simple_sofr_broken_over_a_line_is_one_benchmark() {
        let found = find_benchmarks("Term SOFR Loans and Daily\nSimple SOFR Loans");
        let read: Vec<FloatingRateIndex> = found.iter().map(|b| b.index).collect();
        assert_eq!(read, [FloatingRateIndex::UsdSofrCmeTerm, FloatingRateIndex::UsdSofr]);
        assert_eq!(found.last().map(|b| b.span.start), Some(20));
    }

    #[test]
    fn eurodollar_loans_bear_libor() {
        let found = find_benchmarks("with respect to Eurodollar Loans and EURODOLLAR\nADVANCES");
        assert_eq!(found.iter().map(|b| b.index).collect::<Vec<_>>(), [FloatingRateIndex::UsdLibor; 2]);
        assert!(find_benchmarks("the Eurodollar Reserve Percentage and a Eurodollar Lending Office").is_empty());
    }
}
