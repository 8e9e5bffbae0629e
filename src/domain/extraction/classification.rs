//! Is this text a credit agreement (or term sheet, or amendment of one) at all? A lease mentions
//! interest and a recipe mentions terms, so no single word decides: the text must show the
//! vocabulary of several distinct parts of a loan — an instrument, a borrower, a lender side,
//! pricing and commitments — and must not read mainly as another kind of contract.

use std::sync::LazyLock;

use regex::Regex;

use super::text::pattern;

/// The verdict on a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Classification {
    CreditAgreement,
    Irrelevant,
}

static SIGNALS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:credit\s+agreement|facility\s+agreement|facilities\s+agreement|loan\s+agreement|term\s+sheet|summary\s+of\s+(?:principal\s+)?terms|credit\s+facilit(?:y|ies)|revolving|term\s+loan|borrowers?|lenders?|administrative\s+agent|facility\s+agent|arrangers?|applicable\s+(?:rate|margin)|margin|sofr|sonia|euribor|€str|estr|prime\s+rate|commitment\s+fee|interest\s+rate|commitments?|aggregate\s+principal\s+amount|landlord|tenant|lessee|lessor|premises|tablespoons?|teaspoons?|preheat|oven|ingredients)\b",
    )
});

/// The group of loan vocabulary a signal belongs to, or `Other` for vocabulary of other kinds of
/// document.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Signal {
    Instrument,
    Borrower,
    LenderSide,
    Pricing,
    Commitment,
    Other,
}

fn signal_of(matched: &str) -> Signal {
    let lower = matched.to_ascii_lowercase();
    let word = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    match word.as_str() {
        w if w.starts_with("borrower") => Signal::Borrower,
        w if w.starts_with("lender") || w.starts_with("arranger") || w.ends_with("agent") => Signal::LenderSide,
        w if w.starts_with("commitment fee") => Signal::Pricing,
        w if w.starts_with("commitment") || w.starts_with("aggregate principal") => Signal::Commitment,
        "margin" | "sofr" | "sonia" | "euribor" | "€str" | "estr" | "prime rate" | "interest rate" => Signal::Pricing,
        w if w.starts_with("applicable") => Signal::Pricing,
        w if w.starts_with("landlord")
            || w.starts_with("tenant")
            || w.starts_with("lesse")
            || w.starts_with("premises")
            || w.starts_with("tablespoon")
            || w.starts_with("teaspoon")
            || w.starts_with("preheat")
            || w.starts_with("oven")
            || w.starts_with("ingredient") =>
        {
            Signal::Other
        }
        _ => Signal::Instrument,
    }
}

/// Classifies `text`. A credit agreement shows at least four of the five loan groups, including a
/// borrower, and its loan vocabulary outnumbers that of leases and recipes.
pub(crate) fn classify(text: &str) -> Classification {
    let mut groups = [false; 5];
    let mut loan_words = 0usize;
    let mut other_words = 0usize;
    for found in SIGNALS.find_iter(text) {
        let index = match signal_of(found.as_str()) {
            Signal::Instrument => 0,
            Signal::Borrower => 1,
            Signal::LenderSide => 2,
            Signal::Pricing => 3,
            Signal::Commitment => 4,
            Signal::Other => {
                other_words += 1;
                continue;
            }
        };
        if let Some(seen) = groups.get_mut(index) {
            *seen = true;
        }
        loan_words += 1;
    }
    let groups_seen = groups.iter().filter(|&&seen| seen).count();
    if groups_seen >= 4 && groups[1] && loan_words > other_words {
        Classification::CreditAgreement
    } else {
        Classification::Irrelevant
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_facility_description_is_a_credit_agreement() {
        let text = "CREDIT AGREEMENT among Acme Inc., as Borrower, the Lenders and Bank N.A., as Administrative Agent. \
                    The Revolving Commitments are $100,000,000. Applicable Rate: Term SOFR plus 2.00%.";
        assert_eq!(classify(text), Classification::CreditAgreement);
    }

    #[test]
    fn a_lease_that_mentions_interest_and_a_lender_is_not() {
        let text = "LEASE AGREEMENT between Landlord and Tenant. Tenant shall pay rent for the Premises; late \
                    payments bear interest at the prime rate. This Lease is subordinate to any mortgage held by a \
                    lender of Landlord. The Tenant shall keep the Premises insured.";
        assert_eq!(classify(text), Classification::Irrelevant);
    }

    #[test]
    fn empty_text_and_prose_are_irrelevant() {
        assert_eq!(classify(""), Classification::Irrelevant);
        assert_eq!(
            classify("Preheat the oven. Mix the ingredients with two tablespoons of sugar."),
            Classification::Irrelevant
        );
    }
}
