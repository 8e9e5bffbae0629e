//! What kind of facility each is and what it is called: the type its references state, an LMA
//! facility's type from its description, a revolving facility known only by its loans being
//! reborrowed, letters of credit whose loans only reimburse drawings, and whether a kind the text
//! names is the kind it lends.

use std::sync::LazyLock;

use regex::Regex;

use crate::domain::extraction::document::Document;
use crate::domain::extraction::facility_refs::{FacilityKey, FacilityRef};
use crate::domain::extraction::header;
use crate::domain::extraction::model::FacilityType;
use crate::domain::extraction::sourced::Sourced;
use std::ops::Range;

use crate::domain::extraction::text::{before, clause_around, contains_ci, pattern, sentence_around};

/// The type of a lettered LMA facility: the type named in the same clause as an early reference
/// to it ("(a) a sterling term loan facility … the Total Facility A Commitments").
pub(super) fn lettered_type(doc: &Document<'_>, letter: u8) -> Option<Sourced<FacilityType>> {
    let references = doc.facility_refs.iter().filter(|r| r.key == FacilityKey::Lettered(letter)).take(20);
    for reference in references {
        let clause = clause_around(doc.text, reference.span.start);
        let typed = doc
            .refs_in(clause)
            .iter()
            .filter(|r| !matches!(r.key, FacilityKey::Lettered(_)))
            .min_by_key(|r| r.span.start.abs_diff(reference.span.start));
        if let Some(typed) = typed
            && let Some(facility_type) = typed.key.stated_type()
        {
            return doc.sourced(typed.span.clone(), facility_type);
        }
    }
    None
}

/// The facility's name: its first reference ending in "Facility", else in "Loans", else its
/// shortest reference. A lettered LMA facility is named by its letter ("Facility A").
pub(super) fn facility_name(doc: &Document<'_>, key: FacilityKey) -> Option<Sourced<String>> {
    let refs: Vec<&FacilityRef> = doc.facility_refs.iter().filter(|r| r.key == key).collect();
    let ending =
        |suffix: &str| refs.iter().find(|r| doc.slice(r.span.clone()).to_ascii_lowercase().ends_with(suffix)).copied();
    let shortest = || refs.iter().min_by_key(|r| (r.span.len(), r.span.start)).copied();
    let chosen = if matches!(key, FacilityKey::Lettered(_)) {
        shortest()
    } else {
        ending("facility").or_else(|| ending("loans")).or_else(shortest)
    }?;
    let name = doc.slice(chosen.span.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
    doc.sourced(chosen.span.clone(), name)
}

/// Loans "requested solely for the purpose of satisfying Borrower's Reimbursement Obligations",
/// "made solely to reimburse drawings under Letters of Credit".
static REIMBURSEMENT_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bsolely[ \t\r\n]+(?:for[ \t\r\n]+the[ \t\r\n]+purposes?[ \t\r\n]+of[ \t\r\n]+|to[ \t\r\n]+)(?:satisfy(?:ing)?|reimburs(?:e|ing)|pay(?:ing)?|fund(?:ing)?)\b[^.;]{0,60}?\b(?:reimbursement[ \t\r\n]+obligations?|drawings?|letters?[ \t\r\n]+of[ \t\r\n]+credit)\b",
    )
});

/// The letter of credit type of a facility whose revolving loans serve only to reimburse letter
/// of credit drawings, with the words that say so: the loans are named in the same sentence.
pub(super) fn reimbursement_loans(doc: &Document<'_>) -> Option<Sourced<FacilityType>> {
    REIMBURSEMENT_ONLY.find_iter(doc.text).find_map(|found| {
        let sentence = sentence_around(doc.text, found.start());
        let names_loans = doc.refs_in(sentence.start..found.start()).iter().any(|r| r.key == FacilityKey::Revolving);
        names_loans.then(|| doc.sourced(found.range(), FacilityType::LetterOfCredit)).flatten()
    })
}

/// "may borrow, repay and reborrow", "may be borrowed, repaid and borrowed again", "to lend and
/// relend": what makes a facility revolving, whatever it is called. "may not be reborrowed" says the opposite.
static REBORROW: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bre-?(?:borrow|lend)(?:ed|ing|s)?\b|\bborrowed[ \t\r\n]+again\b"));

/// "no portion of the Loans may be", "no amount repaid may be": a subject that denies what the
/// verb after it allows (the lead before a reborrowing word, lower case with single spaces).
static NOTHING_MAY_BE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"\bno (?:portion|part|amount|sums?|loans?|advances?)\b[^.;,]{0,60}\b(?:may|shall|can) be$")
});

/// The type of a facility the text describes only by whether its loans may be reborrowed, with
/// the words that say so: revolving when they may be; a term loan when every mention forbids it
/// ("Amounts borrowed and repaid may not be reborrowed"), since reborrowing is what distinguishes a
/// revolving facility from a term loan. Mentions that disagree settle nothing.
pub(super) fn reborrowing(doc: &Document<'_>) -> Option<Sourced<FacilityType>> {
    let mut allowed = None;
    let mut forbidden = None;
    for found in REBORROW.find_iter(doc.text) {
        let lead = doc.slice(before(doc.text, found.start(), 80)).to_ascii_lowercase();
        let lead = lead.split_whitespace().collect::<Vec<_>>().join(" ");
        // "may not be reborrowed" forbids it; "is to be repaid and not reborrowed" in a notice
        // only describes one borrowing. So do a heading's "No Re-Borrowing" and a negated subject
        // ("no portion of the Loans may be re-borrowed").
        let denied =
            ["may not be", "shall not be", "cannot be", "may not", "not be re-"].iter().any(|w| lead.ends_with(w))
                || lead == "no"
                || lead.ends_with(" no")
                || NOTHING_MAY_BE.is_match(&lead);
        let slot = if denied { &mut forbidden } else { &mut allowed };
        slot.get_or_insert(found.range());
    }
    // "to make Loans … from time to time … not to exceed at any time outstanding its
    // Commitment": a limit on what is outstanding, not on what is lent, lets repaid loans be lent
    // again.
    if allowed.is_none() {
        allowed = OUTSTANDING_CAP.find_iter(doc.text).map(|found| found.range()).find(|found| {
            let sentence = doc.slice(sentence_around(doc.text, found.start));
            contains_ci(sentence, "from time to time") && LENDS.is_match(sentence)
        });
    }
    match (allowed, forbidden) {
        (Some(span), None) => doc.sourced(span, FacilityType::RevolvingCredit),
        (None, Some(span)) => doc.sourced(span, FacilityType::TermLoan),
        _ => None,
    }
}

/// The revolving type of an agreement whose own title says it is one ("Master Revolving Loan
/// Agreement", "Revolving Credit Agreement"), with the title's words: the parties name the
/// instrument by what it lends. An amendment, waiver or consent to such an agreement is titled by
/// the agreement it changes, and may add loans of another kind, so its title says nothing of them.
pub(super) fn titled_revolving(doc: &Document<'_>) -> Option<Sourced<FacilityType>> {
    let title = header::title(doc)?;
    let words = title.value().to_ascii_lowercase();
    let revolving = words.contains("revolving") && words.trim_end().ends_with("agreement");
    // Whole words: "Intermediate" holds "term" but is no term loan.
    let changes_another = words
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|word| ["amendment", "waiver", "consent", "term", "supplement", "joinder", "assumption"].contains(&word));
    (revolving && !changes_another).then(|| doc.sourced(title.span().range(), FacilityType::RevolvingCredit)).flatten()
}

/// Loans the lenders bid for under the commitments ("Bid Advances", "Competitive Bid Loans", a
/// "Notice of Bid Borrowing"): an option only a revolving facility offers, since a bid loan is
/// drawn, repaid and bid for again within the commitments. Defined terms, so capitalised.
static BID_LOANS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:Competitive[ \t\r\n]+)?Bid[ \t\r\n]+(?:Advances?|Loans?|Borrowings?)\b|\bCompetitive[ \t\r\n]+(?:Advances?|Loans?|Borrowings?)\b",
    )
});

/// A 364-day agreement named by its title, as an amendment names the agreement it amends ("a
/// 364-Day Credit Agreement dated as of …"): such a facility is a revolving line renewed each year.
/// A 364-day term loan or bridge agreement says so in its title.
static DAY_364_AGREEMENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b364[ \t\r\n]*-?[ \t\r\n]*day[ \t\r\n]+(?:revolving[ \t\r\n]+)?credit[ \t\r\n]+agreement\b")
});

/// The revolving type of a facility the text names no kind of, from the two marks of a revolving
/// line an amendment keeps when it restates nothing of the facility: loans the lenders bid for
/// ([`BID_LOANS`]) and a 364-day credit agreement ([`DAY_364_AGREEMENT`]). Either is withheld
/// when the text also speaks of term loans or a bridge, which may be what it lends.
pub(super) fn revolving_by_its_marks(doc: &Document<'_>) -> Option<Sourced<FacilityType>> {
    let other_kind = ["term loan", "bridge"].iter().any(|w| contains_ci(doc.text, w));
    if other_kind {
        return None;
    }
    let found = BID_LOANS.find(doc.text).or_else(|| DAY_364_AGREEMENT.find(doc.text))?;
    doc.sourced(found.range(), FacilityType::RevolvingCredit)
}

/// A cap on the amount outstanding at any time.
static OUTSTANDING_CAP: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bat[ \t\r\n]+any[ \t\r\n]+(?:one[ \t\r\n]+)?time[ \t\r\n]+outstanding\b|\boutstanding[ \t\r\n]+at[ \t\r\n]+any[ \t\r\n]+(?:one[ \t\r\n]+)?time\b",
    )
});

/// An undertaking to lend: "agrees to make Loans", "to make advances", "will lend"; or, as a bank's
/// loan and security agreement says it, the borrower's right to draw: "Borrower may request
/// Advances", "may borrow, repay and reborrow".
static LENDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:make|makes|making)[ \t\r\n]+(?:[a-z]+[ \t\r\n]+){0,3}?(?:loans?|advances?|revolving)\b|\b(?:lend|advance)[ \t\r\n]+to\b|\bmay[ \t\r\n]+request[ \t\r\n]+(?:(?:an?|one[ \t\r\n]+or[ \t\r\n]+more)[ \t\r\n]+)?(?:[a-z\-]+[ \t\r\n]+){0,2}?(?:advances?|loans?|credit[ \t\r\n]+extensions?)\b|\bmay[ \t\r\n]+borrow,?[ \t\r\n]+(?:and[ \t\r\n]+)?repay\b",
    )
});

/// Whether the text names a facility of `key`'s kind where it lends: in the sentence of an
/// undertaking to lend ("agrees to make revolving loans") or of one of the `amounts` the facility
/// is stated as, or in the heading of such a sentence ("2.01 Revolving Loans. The Bank agrees to
/// make loans …"). A kind named only elsewhere is some other debt: the loans the proceeds repay,
/// the lines a covenant permits from other lenders, another agreement a default refers to.
pub(super) fn named_where_it_lends(doc: &Document<'_>, key: FacilityKey, amounts: &[Range<usize>]) -> bool {
    let lends_in = |sentence: Range<usize>| {
        let words = doc.slice(sentence.clone());
        LENDS.is_match(words)
            || PROVIDES.is_match(words)
            || amounts.iter().any(|amount| sentence.contains(&amount.start))
    };
    doc.facility_refs.iter().filter(|r| r.key == key).any(|reference| {
        let sentence = sentence_around(doc.text, reference.span.start);
        let heading = doc.slice(sentence.clone()).split_whitespace().count() <= HEADING_WORDS;
        LENT.is_match(doc.slice(before(doc.text, reference.span.start, 30)))
            || lends_in(sentence.clone())
            || (heading && lends_in(sentence_around(doc.text, (sentence.end + 1).min(doc.text.len()))))
    })
}

/// An undertaking to make a facility available: "the Lenders have agreed to provide a revolving
/// credit facility", "establishes a line of credit", "shall extend credit … in the form of (a)
/// Revolving Credit Commitments". "provided that" is no such undertaking.
static PROVIDES: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:provide|provides|providing|establish|establishes|establishing|make[ \t\r\n]+available|makes[ \t\r\n]+available|made[ \t\r\n]+available|extend(?:s|ing)?[ \t\r\n]+credit)\b",
    )
});

/// A verb of lending right before the facility it lends ("to make U.S. Revolving Loans", "to
/// extend a Term Loan"), whatever the facility's name holds.
static LENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:make|makes|making|lend|lends|extend|extends)[ \t\r\n]+(?:(?:a|an|the|its|such)[ \t\r\n]+)?$")
});

/// The most words a section heading ("Section 2.01 Revolving Credit Loans.") has.
const HEADING_WORDS: usize = 8;
