//! The commitment fee on unused commitments: a rate, or a share of the margin ("35 per cent. of the
//! applicable Margin"); not a one-time fee, a threshold it depends on, or the rate after a default.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use super::candidates::PricingCandidates;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::CommitmentFee;
use crate::domain::extraction::numbers::PercentMatch;
use crate::domain::extraction::scope::{Scoped, scope_at};
use crate::domain::extraction::text::{
    Regions, after, before, capitalisable, clause_around, contains_any_ci, floor_boundary, pattern, sentence_around,
    slice,
};

static COMMITMENT_FEE: LazyLock<Regex> = LazyLock::new(|| {
    let phrases = ["commitment fee", "commitment fees", "unused fee", "unused line fee", "undrawn fee", "ticking fee"];
    let alternatives: Vec<String> = phrases.iter().map(|p| capitalisable(p)).collect();
    // "Non-use Fee", "unused facility fee", "Unused Revolving Line Facility Fee": a fee named for
    // the commitment left unused, whatever words of the facility it names in between.
    let unused = ["unused", "non-use", "non-usage", "unutilized", "unutilised"].map(capitalisable).join("|");
    let facility = ["line", "facility", "revolving", "credit", "commitment", "revolver"].map(capitalisable).join("|");
    let fee = capitalisable("fee");
    // "a utilization fee on the average unborrowed Available Commitment": whatever its name, a
    // fee charged on the commitment left unused.
    let on_unused = r"\bfee[ \t\r\n]+on[ \t\r\n]+the[ \t\r\n]+(?:(?:daily|average|aggregate|actual)[ \t\r\n]+)*(?:unused|unborrowed|undrawn|unutili[sz]ed)\b";
    pattern(&format!(
        r"\b(?:{})\b|\b(?:{unused})(?:[ \t\r\n]+(?:{facility}))+[ \t\r\n]+{fee}s?\b|\b(?:non-use|Non-[Uu]se|NON-USE|Non-[Uu]sage|[Nn]on-[Uu]tili[sz]ation|NON-UTILI[SZ]ATION)[ \t\r\n]+{fee}s?\b|{on_unused}",
        alternatives.join("|")
    ))
});

static OF_MARGIN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:per[ \t\r\n]+annum[ \t\r\n]+)?of[ \t\r\n]+the[ \t\r\n]+(?:applicable[ \t\r\n]+)?margin\b",
    )
});

pub(super) fn fees(doc: &Document<'_>, grid_tables: &Regions, out: &mut PricingCandidates) {
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
        let mut window = mention.end()..clause.end.min(mention.end().saturating_add(250)).max(mention.end());
        // "2.4 Unused Line Fee. Borrower shall pay Bank a fee equal to …": a heading names the fee
        // and the sentence after it states it.
        if let Some(next) = sentence_after_heading(doc.text, clause.clone(), mention.range()) {
            if contains_any_ci(doc.slice(next.clone()), ONE_TIME_FEE) {
                continue;
            }
            window = next.start..next.end.min(next.start.saturating_add(250));
        }
        if let Some(p) = doc.percents_in(window).first() {
            found.push(p);
        }
    }
    found.sort_by_key(|p| p.span.start);
    found.dedup_by(|a, b| a.span == b.span);
    for pct in found {
        if grid_tables.contains(pct.span.start) || opens_a_run_of_rates(doc, pct) {
            continue;
        }
        let lead = doc.slice(before(doc.text, pct.span.start, 24)).to_ascii_lowercase();
        if lead.trim_end().ends_with("from") || is_threshold_lead(&lead) {
            continue;
        }
        // "If an Event of Default shall have occurred …, the Commitment Fee Rate shall equal
        // 0.50%": the rate after a default, not the fee in force.
        let sentence = sentence_around(doc.text, pct.span.start);
        if contains_any_ci(
            doc.slice(sentence.start..pct.span.start),
            &["event of default", "default shall have occurred"],
        ) {
            continue;
        }
        let following = doc.slice(after(doc.text, pct.span.end, 60));
        let fee = if OF_MARGIN.is_match(following) {
            CommitmentFee::PercentageOfMargin(pct.fraction)
        } else if pct.fraction >= PROPORTION {
            // "for purposes of determining the Non-use Fee, 100% of the face amount of the Letters
            // of Credit shall be deemed used": a share of an amount, not a rate per annum.
            continue;
        } else {
            CommitmentFee::Rate(pct.fraction)
        };
        let keys = scope_at(doc, pct.span.start);
        if let Some(value) = doc.sourced(pct.span.clone(), fee) {
            out.fees.push(Scoped::new(value, keys));
        }
    }
}

/// From what figure a percentage near a fee is a share of an amount ("100% of the face amount"),
/// not a fee rate: fees on unused commitments are fractions of one per cent a year.
const PROPORTION: Decimal = Decimal::from_parts(10, 0, 0, false, 2);

/// How far after a fee's figure two more rates make it one cell of a grid.
const GRID_RUN: usize = 100;

/// Whether two more rates follow the figure closely ("Level I 0.20% 1.25% 0.25% II 0.30% …", a
/// pricing grid whose columns a text copy ran together, which a sentence only refers to): the
/// figure is the fee of one level, not the fee.
fn opens_a_run_of_rates(doc: &Document<'_>, pct: &PercentMatch) -> bool {
    doc.percents_in(pct.span.end..floor_boundary(doc.text, pct.span.end.saturating_add(GRID_RUN))).len() >= 2
}

/// The sentence after a heading that is only a fee's name ("2.4 Unused Line Fee." or "(c) Unused
/// Line Fee:", the whole `clause` before its closing stop), when the heading's line
/// goes on with it. A sentence that ends with the name ("… shall pay the Unused Line Fee.") is no
/// heading.
fn sentence_after_heading(text: &str, clause: Range<usize>, name: Range<usize>) -> Option<Range<usize>> {
    let clause_end = clause.end;
    let rest = slice(text, name.end..clause_end.max(name.end));
    let number = slice(text, clause.start..name.start.max(clause.start)).trim();
    let numbered =
        number.trim_start_matches(|c: char| c.is_ascii_digit() || "().".contains(c) || c.is_ascii_lowercase());
    if !rest.trim().is_empty() || !numbered.is_empty() || number.len() > 12 {
        return None;
    }
    let tail = slice(text, clause_end..floor_boundary(text, clause_end.saturating_add(4)));
    let closer = tail.len() - tail.trim_start_matches(['.', ':']).len();
    if closer == 0 {
        return None;
    }
    let gap = tail[closer..].len() - tail[closer..].trim_start_matches([' ', '\t']).len();
    let start = clause_end + closer + gap;
    // The sentence goes on on the heading's line, not under it as a paragraph of its own.
    if gap == 0 || slice(text, start..floor_boundary(text, start + 1)).trim().is_empty() {
        return None;
    }
    Some(start..sentence_around(text, start).end)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(raw: &str) -> Decimal {
        raw.parse().expect("test decimal")
    }

    /// The fees read from `text`, outside any pricing grid.
    fn fee_rates(text: &str) -> Vec<CommitmentFee> {
        let doc = Document::scan(text);
        let mut found = PricingCandidates::default();
        fees(&doc, &Regions::new(Vec::new()), &mut found);
        found.fees.iter().map(|f| *f.value.value()).collect()
    }

    #[test]
    fn a_usage_threshold_in_a_fee_table_is_not_the_fee() {
        let text = "\"Unused Line Fee\" is payable quarterly at the rate in this table:\n\nLevel | Average Usage | Unused Line \
            Fee Rate\nI | > 40% of the Maximum Credit | 0.25%\nII | < 40% of the Maximum Credit | 0.375%\n";
        let found = fee_rates(text);
        assert!(found.iter().all(|f| *f != CommitmentFee::Rate(dec("0.4"))), "{found:?}");
    }

    #[test]
    fn a_one_time_commitment_fee_is_not_the_rate_on_unused_commitments() {
        let text = "The Borrower shall pay a one-time commitment fee in the amount of 0.25% of the Commitment on the \
            Closing Date.\n";
        assert!(fee_rates(text).is_empty(), "{:?}", fee_rates(text));
    }

    #[test]
    fn the_first_cell_of_a_grid_run_together_is_not_the_fee_but_a_stated_rate_is() {
        let grid = "The \"Commitment Fee Rate\" is the rate in the column headed \"Commitment Fee\" below:\n\nLevel \
            Commitment Fee SOFR Margin\nI 0.15% 1.00% II 0.20% 1.25% III 0.25% 1.50%\n";
        assert!(fee_rates(grid).is_empty(), "{:?}", fee_rates(grid));
        let stated = "The Borrower shall pay a commitment fee of 0.15% per annum on the daily unused Commitments, \
            payable quarterly in arrears.\n";
        assert_eq!(fee_rates(stated), [CommitmentFee::Rate(dec("0.0015"))]);
    }

    #[test]
    fn a_heading_naming_the_fee_is_stated_by_the_sentence_after_it() {
        let text = "2.4 Unused Line Fee. Borrower shall pay Bank a fee equal to one-quarter of one percent (0.25%) \
            per annum of the average unused portion of the Revolving Line.\n";
        assert_eq!(fee_rates(text), [CommitmentFee::Rate(dec("0.0025"))]);
        let lettered = text.replace("2.4 Unused Line Fee.", "(c) Unused Line Fee:");
        assert_eq!(fee_rates(&lettered), [CommitmentFee::Rate(dec("0.0025"))]);
        // A sentence that ends with the fee's name is no heading: the next sentence is another matter.
        let sentence =
            "Borrower shall pay the Unused Line Fee. Advances bear interest at 0.75% above the Prime Rate.\n";
        assert!(fee_rates(sentence).is_empty(), "{:?}", fee_rates(sentence));
        // Nor is a heading whose fee is paid once.
        let once = text.replace("shall pay Bank a fee", "shall pay Bank a fully earned, non-refundable fee");
        assert!(fee_rates(&once).is_empty(), "{:?}", fee_rates(&once));
    }

    #[test]
    fn a_fee_named_for_the_unused_commitment_is_a_commitment_fee() {
        let non_use = "The Borrower shall pay (a) an unused facility fee (the \"Non-use Fee\") payable to the Agent \
            for the Lenders, subject to Section 2.9, equal to one-half of one percent (0.5%) per annum on the average \
            unused daily balance of the Revolving Commitments.\n";
        assert_eq!(fee_rates(non_use), [CommitmentFee::Rate(dec("0.005"))]);
        let long_name = "The Borrower shall pay to the Bank a fee (the \"Unused Revolving Line Facility\nFee\") in an \
            amount equal to twenty-hundredths of one percent (0.20%) per annum of the average unused portion of the \
            Revolving Line.\n";
        assert_eq!(fee_rates(long_name), [CommitmentFee::Rate(dec("0.002"))]);
        let share = "For purposes of determining the Non-use Fee, 100% of the face amount of the Letters of Credit \
            shall be deemed to be used.\n";
        assert!(fee_rates(share).is_empty(), "{:?}", fee_rates(share));
        let flat = "The Borrower shall pay a Non-Usage Fee on the Maturity Date of $25,000.00 less the interest \
            accrued.\n";
        assert!(fee_rates(flat).is_empty(), "{:?}", fee_rates(flat));
    }

    #[test]
    fn a_fee_on_the_unused_commitment_is_a_commitment_fee_whatever_its_name() {
        let text = "(a) Commitment Fee. The Borrower shall pay to the Agent a one-time commitment fee of 3/8 of 1% of \
            the Commitment on the Closing Date.\n\n(b) Standby Fee. The Borrower shall pay to the Agent a standby fee \
            on the average undrawn Commitment at a rate of 1/4 of 1% per annum, payable quarterly.\n";
        assert_eq!(fee_rates(text), [CommitmentFee::Rate(dec("0.0025"))]);
        let non_utilization = "The Borrower shall pay to the Agent a non-utilization fee equal to 0.50% per annum of \
            the daily unused Commitments.\n";
        assert_eq!(fee_rates(non_utilization), [CommitmentFee::Rate(dec("0.005"))]);
        let whole = "The Borrower shall pay a facility fee on the aggregate Commitments, used or unused, of 0.10%.\n";
        assert!(fee_rates(whole).is_empty(), "{:?}", fee_rates(whole));
    }

    #[test]
    fn a_fee_rate_that_applies_after_a_default_is_not_the_fee() {
        let text = "If an Event of Default shall have occurred and be continuing, the Commitment Fee Rate shall equal \
            0.75% per annum.\n";
        assert!(fee_rates(text).is_empty(), "{:?}", fee_rates(text));
    }
}
