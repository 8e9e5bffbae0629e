//! Loans that bear a fixed rate: "Advances bear interest at a fixed rate of 6.50% per annum". Such
//! loans have no floating index and no margin over one, whatever benchmark the agreement names
//! elsewhere: a bank's loan at a fixed rate names the prime rate or SOFR for the rate after a
//! default, on overdue sums, as a minimum, a fallback or a hedge, and none of those is the loans'.

use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use super::candidates::PricingCandidates;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::scope::{Scoped, scope_of};
use crate::domain::extraction::text::{contains_any_ci, pattern, sentence_around};

/// "at a fixed rate", "a fixed rate of", "fixed per annum rate", "fixed interest rate", "6.25% per
/// annum, fixed": a fixed rate in lower case words. "Fixed Rate" capitalised is a defined term (a
/// swap's fixed leg, an option some loans may elect) and says nothing by itself.
static FIXED_RATE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\bfixed[ \t\r\n]+(?:per[ \t\r\n]+annum[ \t\r\n]+|interest[ \t\r\n]+)?rate\b|\bper[ \t\r\n]+annum,?[ \t\r\n]+fixed\b|%,?[ \t\r\n]+fixed\b",
    )
});

/// Where a proviso to the rate begins.
static PROVISO: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bprovided(?:,)?[ \t\r\n]+(?:further[ \t\r\n]+|however[ \t\r\n,]+)?that\b"));

/// The words by which a sentence says loans carry interest.
const BEARS_INTEREST: &[&str] = &["bear interest", "bears interest", "accrue interest", "accrues interest"];

/// Reads each statement that loans bear interest at a fixed rate: a sentence that says loans bear
/// or accrue interest, calls the rate fixed, states it as a percentage and names no benchmark (an
/// option between "a fixed rate" and "the Prime Rate plus 1%", or a rate fixed "at Term SOFR plus
/// 2%" for an interest period, is a floating rate; a benchmark in a proviso after the fixed rate only
/// bounds it). Each is scoped to the facilities its sentence
/// names.
pub(super) fn fixed_rates(doc: &Document<'_>, out: &mut PricingCandidates) {
    let mut last_sentence_end = 0;
    for found in FIXED_RATE.find_iter(doc.text) {
        let sentence = sentence_around(doc.text, found.start());
        if sentence.end <= last_sentence_end {
            continue;
        }
        let words = doc.slice(sentence.clone());
        // "…; provided that the rate shall at no time be lower than Term SOFR plus 1.50%": a
        // proviso's benchmark bounds the fixed rate, it is no option of a floating one.
        let proviso =
            PROVISO.find(doc.slice(found.end()..sentence.end)).map_or(sentence.end, |p| found.end() + p.start());
        if !contains_any_ci(words, BEARS_INTEREST) || !doc.benchmarks_in(sentence.start..proviso).is_empty() {
            continue;
        }
        let Some(rate) = doc.percents_in(sentence.clone()).first() else { continue };
        let Some(value) = doc.sourced::<Decimal>(sentence.start..sentence.end, rate.fraction) else { continue };
        last_sentence_end = sentence.end;
        out.fixed_rates.push(Scoped::with_scope(value, scope_of(doc, found.start())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(text: &str) -> Vec<Decimal> {
        let doc = Document::scan(text);
        let mut out = PricingCandidates::default();
        fixed_rates(&doc, &mut out);
        out.fixed_rates.iter().map(|c| *c.value.value()).collect()
    }

    #[test]
    fn advances_bearing_interest_at_a_fixed_rate_state_it() {
        let found =
            fixed("2.2 Interest. The Advances bear interest at a fixed rate of six percent (6.00%) per annum.\n");
        assert_eq!(found, [Decimal::new(6, 2)]);
        assert_eq!(fixed("Each Advance accrues interest at 5.75% per annum, fixed.\n"), [Decimal::new(575, 4)]);
    }

    #[test]
    fn a_choice_between_a_fixed_and_a_floating_rate_is_no_fixed_rate() {
        assert!(fixed("Advances bear interest, at Borrower's option, at a fixed rate of 6.00% or at the Prime Rate plus 1.00%.\n").is_empty());
        let until_a_date = "Until May 1, 2025, Advances bear interest at a fixed rate of 6.00% per annum; thereafter Advances bear interest at the Prime Rate plus 0.50%.\n";
        assert!(fixed(until_a_date).is_empty());
    }

    #[test]
    fn a_benchmark_in_a_proviso_bounding_the_fixed_rate_leaves_it_fixed() {
        let text = "Advances bear interest at a fixed rate of 7.25% per annum; provided that the rate shall at no time be lower than Term SOFR plus 1.50%.\n";
        assert_eq!(fixed(text), [Decimal::new(725, 4)]);
    }

    #[test]
    fn a_capitalised_fixed_rate_or_a_swaps_fixed_leg_is_no_statement_about_the_loans() {
        assert!(fixed("Fixed Rate Loans bear interest at the Fixed Rate plus 2.00%.\n").is_empty());
        assert!(fixed("Under the Swap Agreement the Borrower pays a fixed rate of 4.10% per annum.\n").is_empty());
    }
}
