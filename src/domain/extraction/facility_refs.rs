//! How an agreement refers to its facilities: "Term A Loans", "the Revolving Credit Facility",
//! LMA's "Facility B", a tranche named by its currency or jurisdiction ("Sterling Term Loans").
//! Found once, when the document is scanned; a stated value is scoped to facilities through these
//! references (see `scope.rs`).

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::currency::CurrencyCode;
use super::model::FacilityType;
use super::text::{Located, pattern};

/// A facility as the text refers to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum FacilityKey {
    /// "Term Loan A", "Term B Loans", "Tranche C": the letter.
    TermLetter(u8),
    /// "Term Loans", "Term Facility" without a letter.
    Term,
    /// "Revolving Credit Facility", "Revolving Loans".
    Revolving,
    /// "Delayed Draw Term Loans".
    DelayedDraw,
    /// "Bridge Facility".
    Bridge,
    /// "Letter of Credit Facility".
    LetterOfCredit,
    /// LMA "Facility A": the letter; its type comes from its description.
    Lettered(u8),
    /// "U.S. Term Loans", "Sterling Term Commitments": a term tranche named by its currency or
    /// jurisdiction, one of several.
    QualifiedTerm(Qualifier),
    /// "Dollar Revolving Loans", "Canadian Revolving Facility", "Multicurrency Revolving
    /// Commitments".
    QualifiedRevolving(Qualifier),
    /// "Term B-2 Loans" where the text also names "Term B-1 Loans": the letter and the number of
    /// one of several tranches under that letter (see `separate_numbered_tranches`).
    NumberedTranche(u8, u8),
}

/// The word that tells tranches of the same kind apart: a currency or a jurisdiction, written
/// as a capitalised defined term ("Euro Revolving Loans"). A lower-case "multicurrency revolving
/// credit facility" describes a facility; it does not name a tranche.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Qualifier {
    Us,
    Uk,
    Dollar,
    Sterling,
    Euro,
    Yen,
    Canadian,
    Australian,
    European,
    Multicurrency,
    AlternativeCurrency,
    Domestic,
    Foreign,
}

/// Each qualifier with its spellings, title case first (the upper-case form is derived).
const QUALIFIERS: &[(Qualifier, &[&str])] = &[
    (Qualifier::Us, &["U.S.", "US"]),
    (Qualifier::Uk, &["U.K.", "UK"]),
    (Qualifier::Dollar, &["Dollar", "U.S. Dollar", "US Dollar"]),
    (Qualifier::Sterling, &["Sterling"]),
    (Qualifier::Euro, &["Euro"]),
    (Qualifier::Yen, &["Yen"]),
    (Qualifier::Canadian, &["Canadian"]),
    (Qualifier::Australian, &["Australian"]),
    (Qualifier::European, &["European"]),
    (Qualifier::Multicurrency, &["Multicurrency", "Multi-Currency", "Multi-currency"]),
    (Qualifier::AlternativeCurrency, &["Alternative Currency", "Alternate Currency", "Foreign Currency"]),
    (Qualifier::Domestic, &["Domestic"]),
    (Qualifier::Foreign, &["Foreign"]),
];

impl Qualifier {
    fn from_words(words: &str) -> Option<Self> {
        let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
        QUALIFIERS
            .iter()
            .find(|(_, spellings)| spellings.iter().any(|s| s.eq_ignore_ascii_case(&words)))
            .map(|(qualifier, _)| *qualifier)
    }

    /// The currency a qualifier names, when it names one ("Sterling"), not a jurisdiction
    /// ("U.S.") or a choice of currencies ("Multicurrency").
    pub(crate) fn currency(self) -> Option<CurrencyCode> {
        let code = match self {
            Self::Dollar => "USD",
            Self::Sterling => "GBP",
            Self::Euro => "EUR",
            Self::Yen => "JPY",
            _ => return None,
        };
        CurrencyCode::new(code)
    }
}

/// The qualifier alternatives of the reference pattern: each spelling in title and upper case,
/// longest first so that "U.S. Dollar" wins over "U.S.".
fn qualifier_pattern() -> String {
    let mut spellings: Vec<String> = QUALIFIERS
        .iter()
        .flat_map(|(_, spellings)| spellings.iter())
        .flat_map(|s| [s.to_string(), s.to_uppercase()])
        .collect();
    spellings.sort_by_key(|s| std::cmp::Reverse(s.len()));
    spellings.dedup();
    spellings.iter().map(|s| regex::escape(s).replace(' ', r"[ \t\r\n]+")).collect::<Vec<_>>().join("|")
}

impl FacilityKey {
    /// The qualifier of a tranche named by its currency or jurisdiction.
    pub(crate) fn qualifier(&self) -> Option<Qualifier> {
        match self {
            Self::QualifiedTerm(q) | Self::QualifiedRevolving(q) => Some(*q),
            _ => None,
        }
    }

    /// The type a reference of this kind states by itself.
    pub(crate) fn stated_type(&self) -> Option<FacilityType> {
        match self {
            Self::TermLetter(b'A') | Self::NumberedTranche(b'A', _) => Some(FacilityType::TermLoanA),
            Self::TermLetter(b'B') | Self::NumberedTranche(b'B', _) => Some(FacilityType::TermLoanB),
            Self::TermLetter(_) | Self::NumberedTranche(..) | Self::Term => Some(FacilityType::TermLoan),
            Self::Revolving => Some(FacilityType::RevolvingCredit),
            Self::DelayedDraw => Some(FacilityType::DelayedDrawTermLoan),
            Self::Bridge => Some(FacilityType::Bridge),
            Self::LetterOfCredit => Some(FacilityType::LetterOfCredit),
            Self::QualifiedTerm(_) => Some(FacilityType::TermLoan),
            Self::QualifiedRevolving(_) => Some(FacilityType::RevolvingCredit),
            Self::Lettered(_) => None,
        }
    }
}

/// A reference to a facility in the text.
#[derive(Clone, Debug)]
pub(crate) struct FacilityRef {
    pub span: Range<usize>,
    pub key: FacilityKey,
}

impl Located for FacilityRef {
    fn location(&self) -> Range<usize> {
        self.span.clone()
    }
}

static FACILITY_REF: LazyLock<Regex> = LazyLock::new(|| {
    // A qualified tranche is tried first: a match starting at its qualifier starts earlier than
    // the plain reference inside it. Its words are capitalised, as defined terms are.
    let qualified = format!(
        r"(?P<q>\b(?:{q}))[ \t\r\n]+(?:(?P<qrev>(?:Revolving|REVOLVING)(?:[ \t\r\n]+(?:Credit|CREDIT))?(?:[ \t\r\n]+(?:Facility|FACILITY|Loans?|LOANS?|Commitments?|COMMITMENTS?|Exposure|EXPOSURE))?)|(?P<qterm>(?:Term|TERM)(?:[ \t\r\n]+(?:Loan|LOAN))?[ \t\r\n]+(?:Facility|FACILITY|Facilities|Loans?|LOANS?|Commitments?|COMMITMENTS?)))\b",
        q = qualifier_pattern()
    );
    pattern(
        &(qualified
            + "|"
            + r"(?P<dd>\b(?i:delayed[ -]draw)(?:[ \t]+(?i:term))?(?:[ \t]+(?i:loan))?(?:[ \t]+(?i:facility|loans|commitments?))?\b|\bDDTL\b)|(?P<tl>\b(?i:term[ \t]+loan|term)[ \t]+(?P<tl_letter>[A-F])\b(?:[ \t]+(?i:term[ \t]+)?(?i:loans?|facility|commitments?)\b)?|\b(?i:tranche)[ \t]+(?P<tt_letter>[A-F])[ \t]+(?i:term)(?:[ \t]+(?i:loans?|facility|commitments?))?\b)|(?P<rev>\b(?i:revolving)(?:[ \t]+(?i:credit))?(?:[ \t]+(?i:facility|loans?|commitments?|exposure))?\b|\b(?i:revolver)\b|\bRCF\b)|(?P<bridge>\b(?i:bridge)(?:[ \t]+(?i:term))?[ \t]+(?i:loans?|facility|commitments?)\b)|(?P<lc>\b(?i:letter[ \t]+of[ \t]+credit|l/c)[ \t]+(?i:facility)\b)|(?P<let>\b(?i:facility)[ \t]+(?P<let_letter>[A-F])\b(?:[ \t]+(?i:loans?|commitments?)\b)?)|(?P<term>\b(?i:term)(?:[ \t]+(?i:loan))?[ \t]+(?i:facility|facilities)\b|\b(?i:term)[ \t]+(?i:loans?)\b)"),
    )
});

/// Every facility reference in `text`, in order. A qualifier tells tranches apart only when the
/// text names two tranches of the kind that way ("Dollar Revolving" and "Euro Revolving"); the one
/// "Multicurrency Revolving Facility" of an agreement is its revolving facility.
pub(crate) fn find_facility_refs(text: &str) -> Vec<FacilityRef> {
    let mut refs: Vec<FacilityRef> = FACILITY_REF
        .captures_iter(text)
        .filter(|c| c.get(0).is_some_and(|whole| !negated(text, whole.start())))
        .filter_map(|c| Some(FacilityRef { span: c.get(0)?.range(), key: key_of(&c)? }))
        .collect();
    let distinct = |term: bool| {
        let mut found: Vec<Qualifier> = refs
            .iter()
            .filter(|r| matches!(r.key, FacilityKey::QualifiedTerm(_)) == term)
            .filter_map(|r| r.key.qualifier())
            .collect();
        found.sort();
        found.dedup();
        found.len()
    };
    let (fold_terms, fold_revolving) = (distinct(true) < 2, distinct(false) < 2);
    for r in &mut refs {
        match r.key {
            FacilityKey::QualifiedTerm(_) if fold_terms => r.key = FacilityKey::Term,
            FacilityKey::QualifiedRevolving(_) if fold_revolving => r.key = FacilityKey::Revolving,
            _ => {}
        }
    }
    separate_numbered_tranches(text, &mut refs);
    refs
}

/// An amendment that refinances "Term B-1 Loans" with "Term B-2 Loans" (or adds "Term A-2" beside
/// "Term A-1") names two tranches under one letter. Read as the letter alone, both would be one
/// facility holding the amounts, margins and dates of either, the old tranche's as well as the new
/// one's. So when the same letter is written with two numbers, each numbered reference gets a key
/// of its own; references to the letter alone keep the letter's.
fn separate_numbered_tranches(text: &str, refs: &mut [FacilityRef]) {
    let numbered: Vec<Option<(u8, u8)>> = refs
        .iter()
        .map(|r| match r.key {
            FacilityKey::TermLetter(letter) => sub_tranche_number(text, r.span.end).map(|n| (letter, n)),
            _ => None,
        })
        .collect();
    let shares_letter_with_another_number = |(letter, number): (u8, u8)| {
        numbered.iter().flatten().any(|&(other_letter, other)| other_letter == letter && other != number)
    };
    for (r, numbered) in refs.iter_mut().zip(&numbered) {
        if let Some((letter, number)) = numbered.filter(|&n| shares_letter_with_another_number(n)) {
            r.key = FacilityKey::NumberedTranche(letter, number);
        }
    }
}

/// The number after a tranche's letter ("B-2", "A–1", "B2"), read right where the letter's
/// reference ends.
fn sub_tranche_number(text: &str, letter_end: usize) -> Option<u8> {
    let rest = text.get(letter_end..)?;
    let rest = rest.strip_prefix('-').or_else(|| rest.strip_prefix('\u{2013}')).unwrap_or(rest);
    let digit = *rest.as_bytes().first()?;
    let single = !rest.as_bytes().get(1).is_some_and(u8::is_ascii_digit);
    (digit.is_ascii_digit() && single).then(|| digit - b'0')
}

/// Whether the words at `start` are negated by a "non-" before them: a "non-revolving line of
/// credit" is not a revolving facility.
fn negated(text: &str, start: usize) -> bool {
    let before = text.get(start.saturating_sub(4)..start).unwrap_or_default();
    before.len() == 4 && {
        let lower = before.to_ascii_lowercase();
        lower == "non-" || lower == "non " || lower.ends_with("non")
    }
}

fn key_of(captures: &Captures<'_>) -> Option<FacilityKey> {
    let letter = |name: &str| captures.name(name).and_then(|m| m.as_str().bytes().next());
    if let Some(qualifier) = captures.name("q") {
        let qualifier = Qualifier::from_words(qualifier.as_str())?;
        return if captures.name("qrev").is_some() {
            Some(FacilityKey::QualifiedRevolving(qualifier))
        } else {
            Some(FacilityKey::QualifiedTerm(qualifier))
        };
    }
    if captures.name("dd").is_some() {
        Some(FacilityKey::DelayedDraw)
    } else if captures.name("tl").is_some() {
        letter("tl_letter").or_else(|| letter("tt_letter")).map(FacilityKey::TermLetter)
    } else if captures.name("rev").is_some() {
        Some(FacilityKey::Revolving)
    } else if captures.name("bridge").is_some() {
        Some(FacilityKey::Bridge)
    } else if captures.name("lc").is_some() {
        Some(FacilityKey::LetterOfCredit)
    } else if captures.name("let").is_some() {
        letter("let_letter").map(FacilityKey::Lettered)
    } else if captures.name("term").is_some() {
        Some(FacilityKey::Term)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<(String, FacilityKey)> {
        find_facility_refs(text).into_iter().map(|r| (text[r.span].to_owned(), r.key)).collect()
    }

    #[test]
    fn facility_references_are_recognised_in_us_and_lma_styles() {
        let found = keys(
            "Term A Loans, the TERM LOAN B FACILITY, Revolving Credit Commitments, Delayed Draw Term Loans, Facility A Loan, a term loan facility and the Bridge Facility",
        );
        let expected = [
            ("Term A Loans", FacilityKey::TermLetter(b'A')),
            ("TERM LOAN B FACILITY", FacilityKey::TermLetter(b'B')),
            ("Revolving Credit Commitments", FacilityKey::Revolving),
            ("Delayed Draw Term Loans", FacilityKey::DelayedDraw),
            ("Facility A Loan", FacilityKey::Lettered(b'A')),
            ("term loan facility", FacilityKey::Term),
            ("Bridge Facility", FacilityKey::Bridge),
        ];
        let expected: Vec<(String, FacilityKey)> = expected.iter().map(|(t, k)| ((*t).to_owned(), *k)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_non_revolving_line_is_no_reference_to_a_revolving_facility() {
        let found = keys(
            "a non-revolving line of credit, a Non Revolving Loan, a nonrevolving facility and the Revolving Loans",
        );
        assert_eq!(found, [("Revolving Loans".to_owned(), FacilityKey::Revolving)]);
    }

    #[test]
    fn tranches_named_by_a_capitalised_currency_or_jurisdiction_are_their_own_references() {
        let found = keys(
            "U.S. Term Loans, Sterling Term Commitments, the Dollar Revolving Facility, EURO REVOLVING LOANS, Multicurrency\nRevolving Credit Commitments and a multicurrency revolving facility",
        );
        let expected = [
            ("U.S. Term Loans", FacilityKey::QualifiedTerm(Qualifier::Us)),
            ("Sterling Term Commitments", FacilityKey::QualifiedTerm(Qualifier::Sterling)),
            ("Dollar Revolving Facility", FacilityKey::QualifiedRevolving(Qualifier::Dollar)),
            ("EURO REVOLVING LOANS", FacilityKey::QualifiedRevolving(Qualifier::Euro)),
            ("Multicurrency\nRevolving Credit Commitments", FacilityKey::QualifiedRevolving(Qualifier::Multicurrency)),
            // Lower case describes a facility rather than naming a tranche.
            ("revolving facility", FacilityKey::Revolving),
        ];
        let expected: Vec<(String, FacilityKey)> = expected.iter().map(|(t, k)| ((*t).to_owned(), *k)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_tranche_is_a_term_loan_only_when_the_text_calls_it_one() {
        // Tranches of one revolver ("Tranche A Commitments" in dollars, "Tranche B Loans" in other
        // currencies too) are not term loans A and B: stating them so would count the credit twice.
        let found =
            keys("its Tranche A Commitment, the Tranche B Loans, Tranche A Letters of Credit and Tranche C Term Loans");
        let expected = [("Tranche C Term Loans".to_owned(), FacilityKey::TermLetter(b'C'))];
        assert_eq!(found, expected);
    }

    #[test]
    fn tranches_numbered_under_one_letter_are_not_that_letters_facility() {
        // Term B-1 repaid by Term B-2 are two tranches: neither is "the Term B facility" alone.
        let found = keys("the Term B-1 Loans are repaid with the Term Loan B-2 Commitments and the Term B Loans");
        let found: Vec<FacilityKey> = found.into_iter().map(|(_, key)| key).collect();
        let expected = [
            FacilityKey::NumberedTranche(b'B', 1),
            FacilityKey::NumberedTranche(b'B', 2),
            FacilityKey::TermLetter(b'B'),
        ];
        assert_eq!(found, expected);
    }

    #[test]
    fn a_single_numbered_tranche_still_refers_to_its_letter() {
        let found = keys("the Term A-1 Loans and the Term B Loans");
        let letters: Vec<FacilityKey> = found.into_iter().map(|(_, key)| key).collect();
        assert_eq!(letters, [FacilityKey::TermLetter(b'A'), FacilityKey::TermLetter(b'B')]);
    }

    #[test]
    fn benchmarks_and_agents_are_not_facility_references() {
        assert!(keys("Term SOFR, Term Benchmark, the Facility Agent, the Facility Office, a Facility Fee").is_empty());
    }
}
