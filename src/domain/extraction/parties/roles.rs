//! Roles as agreements state them: "as Administrative Agent", "Joint Lead Arrangers and Joint
//! Bookrunners", a defined term or label that is a role ("Borrower"). Read by the preamble, cover,
//! term-sheet and definition readers alike, and by the checks on proposed parties (`proposals.rs`).

use std::sync::LazyLock;

use regex::Regex;

use crate::domain::extraction::model::PartyRole;
use crate::domain::extraction::text::pattern;

const ROLE: &str = r"(?:(?:joint|sole)(?:[ \t]+|[ \t]*\r?\n[ \t]*)|co-[ \t]*)?(?:mandated(?:[ \t]+|[ \t]*\r?\n[ \t]*))?(?:lead(?:[ \t]+|[ \t]*\r?\n[ \t]*))?arrangers?(?:[ \t\r\n]+and[ \t\r\n]+(?:(?:joint|sole)(?:[ \t]+|[ \t]*\r?\n[ \t]*)|co-[ \t]*)?book(?:[ \t]?|[ \t]*\r?\n[ \t]*)(?:runners?|managers?))?|(?:(?:joint|sole)(?:[ \t]+|[ \t]*\r?\n[ \t]*)|co-[ \t]*)?book(?:[ \t]?|[ \t]*\r?\n[ \t]*)(?:runners?|managers?)|(?:lead(?:[ \t]+|[ \t]*\r?\n[ \t]*))?administrative(?:[ \t]+|[ \t]*\r?\n[ \t]*)agent|facility(?:[ \t]+|[ \t]*\r?\n[ \t]*)agent|collateral(?:[ \t]+|[ \t]*\r?\n[ \t]*)agent|security(?:[ \t]+|[ \t]*\r?\n[ \t]*)(?:agent|trustee)|(?:co-[ \t]*|lead(?:[ \t]+|[ \t]*\r?\n[ \t]*))?syndication(?:[ \t]+|[ \t]*\r?\n[ \t]*)agents?|(?:co-[ \t]*)?documentation(?:[ \t]+|[ \t]*\r?\n[ \t]*)agents?|sustainability(?:[ \t]+|[ \t]*\r?\n[ \t]*)(?:coordinator|structuring(?:[ \t]+|[ \t]*\r?\n[ \t]*)agent|agent)|agent(?:[ \t\r\n]+of[ \t\r\n]+the[ \t\r\n]+other[ \t\r\n]+finance[ \t\r\n]+parties)?|swing(?:[ \t]?line|(?:[ \t]+|[ \t]*\r?\n[ \t]*)loan)(?:[ \t]+|[ \t]*\r?\n[ \t]*)lenders?|(?:l/c|lc)(?:[ \t]+|[ \t]*\r?\n[ \t]*)issuers?|(?:(?:l/c|lc|letter(?:[ \t]+|[ \t]*\r?\n[ \t]*)of(?:[ \t]+|[ \t]*\r?\n[ \t]*)credit)(?:[ \t]+|[ \t]*\r?\n[ \t]*))?issuing(?:[ \t]+|[ \t]*\r?\n[ \t]*)(?:banks?|lenders?)|letter(?:[ \t]+|[ \t]*\r?\n[ \t]*)of(?:[ \t]+|[ \t]*\r?\n[ \t]*)credit(?:[ \t]+|[ \t]*\r?\n[ \t]*)issuers?|(?:original(?:[ \t]+|[ \t]*\r?\n[ \t]*)|initial(?:[ \t]+|[ \t]*\r?\n[ \t]*))?lenders?|(?:(?:parent|original|designated|u\.s\.|us|uk|canadian|foreign|co-)[ \t]*)?borrowers?|(?:(?:parent|original|subsidiary)(?:[ \t]+|[ \t]*\r?\n[ \t]*))?guarantors?";

pub(crate) static ROLE_LIST: LazyLock<Regex> = LazyLock::new(|| {
    // "as Administrative Agent (as defined below), Collateral Agent (as defined below) and …": a
    // reference to the role's definition may follow each role.
    let defined = r"(?:[ \t\r\n]*\(as[ \t\r\n]+(?:defined[ \t\r\n]+(?:below|herein|hereinafter)|hereinafter[ \t\r\n]+defined)\))?";
    pattern(&format!(
        r"(?i)\bas[ \t\r\n]+(?:the[ \t\r\n]+|an?[ \t\r\n]+)?(?:{ROLE})\b{defined}(?:(?:[ \t]*,[ \t]*\r?\n?[ \t]*(?:and[ \t]+)?|[ \t]*\r?\n?[ \t]*and[ \t\r\n]+)(?:the[ \t\r\n]+|an?[ \t\r\n]+)?(?:{ROLE})\b{defined})*"
    ))
});

pub(crate) static ONE_ROLE: LazyLock<Regex> = LazyLock::new(|| pattern(&format!(r"(?i)\b(?:{ROLE})\b")));

/// One role of a caption's capacity, opening the text it is matched against: "as a Guarantor",
/// "a Guarantor", "Issuing Lender" (after "as Holdings and").
pub(crate) static CAPACITY_ROLE: LazyLock<Regex> =
    LazyLock::new(|| pattern(&format!(r"(?i)^(?:as[ \t\r\n]+)?(?:(?:the|an?)[ \t\r\n]+)?(?:{ROLE})\b")));

/// A capacity a loan party signs in that is none of the roles we state: "Grantor", "Pledgor",
/// "Debtor", "Obligor", "Holdings", "a Loan Party", "a Credit Party", and a bare "Issuer" (of
/// letters of credit beside "a Lender", of securities elsewhere: not read). Beside a role in a caption
/// ("as a Guarantor and Grantor", "as Holdings and a Guarantor") it gives nothing and takes nothing
/// away; alone it is no role.
pub(crate) static OTHER_LOAN_PARTY_CAPACITY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^(?:as[ \t\r\n]+)?(?:(?:the|an?)[ \t\r\n]+)?(?:grantors?|pledgors?|debtors?|obligors?|holdings|issuers?|(?:loan|credit)[ \t\r\n]+part(?:y|ies))\b",
    )
});

/// Words that, right after a role, make the phrase another capacity: the agent, representative or
/// administrator of that class of parties ("Lender Agent", "Lenders' Agent", "Borrower
/// Representative") or a group of them ("Lender Group"). Whoever holds it is not of the class.
static ANOTHER_CAPACITY_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^(?:['’]s?)?[ \t]+(?:agents?|representatives?|administrators?|groups?|trustees?|servicers?|managers?)\b",
    )
});

/// The words in `following`, the text right after a role word, that turn it into another
/// capacity ("… Agent", "…'s Representative"): "as Lender Agent" does not make anyone a lender.
pub(crate) fn another_capacity_after(following: &str) -> Option<&str> {
    ANOTHER_CAPACITY_AFTER.find(following).map(|m| m.as_str())
}

/// Words that, right after "lender", make it the lender of the assets a finance company pledges
/// rather than of this facility: "as the lender of record on the Receivables", "as lender under
/// the Consumer Loan Contracts", "lender to the Obligors". A warehouse borrower's originator lends
/// to its customers; the facility's lenders lend to the borrower.
static LENDER_OF_THE_ASSETS_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]+(?:of[ \t\r\n]+record\b|(?:on|under|to|of)[ \t\r\n]+(?:the[ \t\r\n]+|each[ \t\r\n]+|its[ \t\r\n]+|any[ \t\r\n]+|all[ \t\r\n]+|such[ \t\r\n]+)?(?:[A-Za-z-]+[ \t\r\n]+){0,3}(?:receivables?|contracts?|consumers?|obligors?|customers?|pool[ \t\r\n]+assets?)\b)",
    )
});

/// Words after the assets that make them the name of an agreement ("lender under the Receivables
/// Loan Agreement" may well be this facility's).
static NAMES_AN_AGREEMENT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^[ \t\r\n]+(?:loan|credit|purchase|financing|funding|facility|agreement|note)"));

/// The words in `following`, the text right after a lender role, that make it the lender of the
/// pledged assets (see `LENDER_OF_THE_ASSETS_AFTER`).
pub(crate) fn lender_of_the_assets_after(following: &str) -> Option<&str> {
    let found = LENDER_OF_THE_ASSETS_AFTER.find(following)?;
    let rest = following.get(found.end()..).unwrap_or_default();
    (!NAMES_AN_AGREEMENT.is_match(rest)).then_some(found.as_str())
}

/// The roles a role phrase states ("Joint Lead Arrangers and Joint Bookrunners" states two).
pub(crate) fn roles_of(phrase: &str, lma_style: bool) -> Vec<PartyRole> {
    // "Joint Book Runners" is written in two words as often as in one.
    let lower = phrase
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
        .replace("book runner", "bookrunner")
        // "Joint Book Managers" run the books as bookrunners do.
        .replace("book manager", "bookrunner");
    let mut roles = Vec::new();
    if lower.contains("arranger") {
        roles.push(PartyRole::Arranger);
    }
    if lower.contains("bookrunner") {
        roles.push(PartyRole::Bookrunner);
    }
    if !roles.is_empty() {
        return roles;
    }
    let role = if lower.contains("administrative agent") {
        PartyRole::AdministrativeAgent
    } else if lower.contains("facility agent") || lower.contains("other finance parties") {
        PartyRole::FacilityAgent
    } else if lower.contains("collateral agent")
        || lower.contains("security agent")
        || lower.contains("security trustee")
    {
        PartyRole::CollateralAgent
    } else if lower.contains("syndication agent") {
        PartyRole::SyndicationAgent
    } else if lower.contains("documentation agent") {
        PartyRole::DocumentationAgent
    } else if lower.contains("sustainability") {
        PartyRole::SustainabilityCoordinator
    } else if lower.contains("swing") {
        PartyRole::SwinglineLender
    } else if lower.contains("issuer") || lower.contains("issuing") {
        PartyRole::IssuingBank
    } else if lower.contains("lender") || is_bank_term(&lower) {
        PartyRole::Lender
    } else if lower.contains("borrower") {
        PartyRole::Borrower
    } else if lower.contains("guarantor") {
        PartyRole::Guarantor
    } else if lower.ends_with("agent") {
        if lma_style { PartyRole::FacilityAgent } else { PartyRole::AdministrativeAgent }
    } else {
        return roles;
    };
    vec![role]
}

/// Whether a role phrase stands for several parties ("Joint Lead Arrangers", "Original Lenders").
pub(crate) fn is_plural(phrase: &str) -> bool {
    let lower = phrase.to_ascii_lowercase();
    // "Issuing Banks": the bare "banks" of a name is no role word, the issuers' is.
    let words: Vec<&str> = lower.split_whitespace().collect();
    if words.windows(2).any(|pair| pair == ["issuing", "banks"]) {
        return true;
    }
    lower.split(|c: char| !c.is_ascii_alphabetic()).any(|word| {
        matches!(
            word,
            "arrangers"
                | "bookrunners"
                | "runners"
                | "managers"
                | "lenders"
                | "guarantors"
                | "borrowers"
                | "joint"
                | "agents"
                | "issuers"
        )
    })
}

/// Whether a defined term or label is a role and nothing else ("Borrower", "Joint Lead Arrangers").
pub(crate) fn is_role_term(term: &str) -> bool {
    ONE_ROLE.find(term).is_some_and(|m| m.range() == (0..term.len())) || is_bank_term(term)
}

/// Whether a defined term is the bare "Bank" or "Banks" a bilateral loan agreement (or a 1990s
/// syndicated one) calls its lenders by: `FIRST BANK (the "Bank")`. Only the bare word: an "Account
/// Bank" or "Depositary Bank" lends nothing, and the word inside a name ("FIRST BANK") is a name.
fn is_bank_term(term: &str) -> bool {
    let words: Vec<&str> = term.split_whitespace().collect();
    matches!(words.as_slice(), [word] if word.eq_ignore_ascii_case("bank") || word.eq_ignore_ascii_case("banks"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stated(phrase: &str) -> Vec<PartyRole> {
        let found = ROLE_LIST.find(phrase).map(|m| m.as_str().to_owned()).unwrap_or_default();
        ONE_ROLE.find_iter(&found).flat_map(|one| roles_of(one.as_str(), false)).collect()
    }

    #[test]
    fn an_issuer_of_letters_of_credit_is_read_in_its_short_and_long_spellings() {
        for phrase in [
            "as Agent and LC Issuer",
            "as an LC Issuer",
            "as L/C Issuing Bank",
            "as Letter of Credit Issuing Lender",
            "as the LC Issuing Bank",
        ] {
            assert!(stated(phrase).contains(&PartyRole::IssuingBank), "{phrase}: {:?}", stated(phrase));
        }
        // An issuer of something else is no issuer of the facility's letters of credit.
        for phrase in ["as Issuer", "as Note Issuer", "as LC Beneficiary"] {
            assert!(!stated(phrase).contains(&PartyRole::IssuingBank), "{phrase}: {:?}", stated(phrase));
        }
    }

    #[test]
    fn issuers_and_swing_line_lenders_are_read_in_the_plural_and_stand_for_several() {
        for phrase in ["as L/C Issuers", "as Issuing Banks", "as Letter of Credit Issuers", "as Issuing Lenders"] {
            assert!(stated(phrase).contains(&PartyRole::IssuingBank), "{phrase}: {:?}", stated(phrase));
            assert!(is_plural(phrase), "{phrase}");
        }
        assert!(stated("as Swing Line Lenders").contains(&PartyRole::SwinglineLender));
        // A name's own "Banks" is no plural role word.
        assert!(!is_plural("as Agent for the Harbor Banks"));
        assert!(!is_plural("as Issuing Bank"));
    }

    #[test]
    fn a_lead_syndication_agent_is_a_syndication_agent() {
        assert_eq!(stated("(as Lead Syndication Agent);"), [PartyRole::SyndicationAgent]);
        assert_eq!(stated("as the Collateral Agent and Lead Syndication Agent").len(), 2);
        // "Lead" before other words is not taken for it.
        assert!(!stated("as Lead Arranger").contains(&PartyRole::SyndicationAgent));
    }

    #[test]
    fn a_loan_party_s_other_capacities_are_known_but_are_no_role() {
        for capacity in ["as Grantor", "a Pledgor", "as Holdings", "as a Loan Party", "Credit Parties"] {
            assert!(OTHER_LOAN_PARTY_CAPACITY.is_match(capacity), "{capacity}");
            assert!(!CAPACITY_ROLE.is_match(capacity), "{capacity}");
        }
        assert!(CAPACITY_ROLE.is_match("a Guarantor"));
    }

    #[test]
    fn a_swing_loan_lender_is_the_swing_line_lender_and_a_bare_issuer_is_another_capacity() {
        for phrase in ["as Swing Loan Lender", "as the Swing Loan Lender", "as Swingline Lender"] {
            assert_eq!(stated(phrase), vec![PartyRole::SwinglineLender], "{phrase}");
        }
        // "a Lender and an Issuer": the issuer beside the lender is known, and gives no role of its own.
        for capacity in ["an Issuer", "as Issuer", "Issuers"] {
            assert!(OTHER_LOAN_PARTY_CAPACITY.is_match(capacity), "{capacity}");
            assert!(!CAPACITY_ROLE.is_match(capacity), "{capacity}");
        }
    }
}
