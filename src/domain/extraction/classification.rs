//! Is this text a credit document (a credit or loan agreement, a promissory note, a term sheet,
//! or an amendment, waiver or extension of one) at all?
//!
//! A lawyer reads the title first: "SUBORDINATION AGREEMENT" is not a credit agreement however
//! much it speaks of loans, "AMENDMENT #4 TO CONVERTIBLE PROMISSORY NOTE" is a credit document
//! however few loan words its two paragraphs use, and "SEVENTH AMENDED AND RESTATED CREDIT
//! AGREEMENT" is one even when it calls its borrower "the Company" and its lenders "the Banks".
//! So the heading (the short lines before the preamble and the preamble's naming words) decides
//! when it names a kind of document; a change (amendment, waiver, extension, consent) is a credit
//! document when what it changes is one. Only a text whose heading names no kind of document is
//! judged by its vocabulary: it must show several distinct parts of a loan — an instrument, a
//! borrower, a lender side, pricing and commitments — and must not read mainly as another kind of
//! contract (a lease mentions interest and a recipe mentions terms).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::document::Document;
use super::text::{floor_boundary, lines_in, pattern, slice, trim_range};

/// The verdict on a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Classification {
    CreditAgreement,
    Irrelevant,
}

/// The verdict, and where the heading names the document a change of another ("AMENDMENT #4",
/// "AGREEMENT AND WAIVER", "EXTENSION AGREEMENT").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reading {
    pub classification: Classification,
    pub change: Option<Range<usize>>,
}

/// Whitespace inside a title, which may wrap across lines.
const SP: &str = r"[ \t\r\n]+";

/// A credit instrument named as such: credit, loan and facility agreements (with the words their
/// titles combine: "Revolving Credit and Term Loan Agreement", "Loan and Security Agreement",
/// "Credit and Guaranty Agreement"), promissory and other notes, term sheets.
static CREDIT_INSTRUMENT: LazyLock<Regex> = LazyLock::new(|| {
    let joined = r"(?:and|credit|loan|loans|term|revolving|security|guaranty|guarantee|facility|facilities|multicurrency|syndicated|senior|secured|subordinated|bridge)";
    pattern(&format!(
        r"(?i)\b(?:(?:credit|loan|facility|facilities|revolving|bridge|term{SP}loan)(?:{SP}{joined}){{0,4}}{SP}agreement|promissory{SP}notes?|(?:convertible|secured|unsecured|subordinated|term|revolving|grid|demand|bridge|credit|installment){SP}(?:[a-z0-9%\-]+{SP}){{0,3}}?notes?|term{SP}sheet|summary{SP}of{SP}(?:principal{SP}|indicative{SP})?terms)\b"
    ))
});

/// A change to another document.
static CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?i)\b(?:amendment|waiver|consent|forbearance|extension{SP}agreement|modification{SP}agreement|supplement|ratification)\b"
    ))
});

/// Contracts of other kinds, which credit documents often sit beside: a subordination or
/// intercreditor agreement speaks of loans but lends nothing, nor does a guarantee of a credit
/// agreement's obligations ("PARENT GUARANTEE"), and a restructuring's support or
/// exchange agreement describes the new debt in a term sheet it attaches, but is not it.
static OTHER_CONTRACT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?i)\b(?:subordination(?:{SP}and{SP}intercreditor)?{SP}agreement|intercreditor{SP}agreement|(?:(?:parent|subsidiary|holdings|continuing|unconditional|absolute|corporate|limited|payment|completion){SP})?guarant(?:y|ee)(?:{SP}and{SP}(?:collateral|security))?(?:{SP}agreement)?|(?:pledge{SP}and{SP})?security{SP}agreement|pledge{SP}agreement|collateral{SP}agreement|(?:sub)?lease(?:{SP}agreement)?|indenture|(?:securities|stock|share|asset|membership{SP}interest|unit|equity){SP}purchase{SP}agreement|purchase{SP}and{SP}sale{SP}agreement|agreement{SP}and{SP}plan{SP}of{SP}merger|merger{SP}agreement|employment{SP}agreement|warrant(?:{SP}agreement)?|registration{SP}rights{SP}agreement|escrow{SP}agreement|license{SP}agreement|consulting{SP}agreement|settlement{SP}agreement|separation{SP}agreement|voting{SP}agreement|lock-up{SP}agreement|support(?:{SP}and{SP}[a-z\-]+)?{SP}agreement|exchange{SP}agreement|control{SP}agreement)\b"
    ))
});

/// A note's operative words: "FOR VALUE RECEIVED, X … hereby promises to pay".
static PROMISES_TO_PAY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\bfor[ \t\r\n]+value[ \t\r\n]+received\b[^.]{0,400}?\bpromises?[ \t\r\n]+to[ \t\r\n]+pay\b")
});

/// Where a table of contents or the articles begin.
static CONTENTS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^(?:table[ \t]+of[ \t]+contents|contents|index|article[ \t]+(?:1|i|one)\b|section[ \t]+1\.0?1\b)|\.{5}",
    )
});

/// How much of the opening is read for the heading when there is no preamble.
const OPENING: usize = 3000;
/// The most heading lines read (a cover page lists agents; a table of contents follows).
const HEADING_LINES: usize = 40;
/// A heading line is short; longer lines are prose.
const HEADING_LINE: usize = 150;
/// How much of the preamble names the document ("This Subordination Agreement (this …").
const PREAMBLE_NAMING: usize = 300;
/// How far after "AMENDMENT NO. 4" its title says what it amends ("TO PROMISSORY NOTE").
const CHANGED_OBJECT: usize = 80;

/// What the heading names first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    Credit,
    Change,
    Other,
}

/// Reads what the scanned document is.
pub(crate) fn read(doc: &Document<'_>) -> Reading {
    let heading = heading(doc);
    let classification = classify(doc, &heading.text);
    let change = match first_named(&heading.text) {
        Some((Named::Change, range)) if classification == Classification::CreditAgreement => heading.in_document(range),
        _ => None,
    };
    Reading { classification, change }
}

fn classify(doc: &Document<'_>, heading: &str) -> Classification {
    match first_named(heading) {
        Some((Named::Credit, _)) => Classification::CreditAgreement,
        Some((Named::Other, _)) => Classification::Irrelevant,
        Some((Named::Change, change)) => {
            // "… TO LEASE", "… TO PROMISSORY NOTE": the words just after the change say what it
            // changes; otherwise the recitals do.
            let after = slice(heading, change.end..floor_boundary(heading, change.end + CHANGED_OBJECT));
            match first_named(after) {
                Some((Named::Credit, _)) => Classification::CreditAgreement,
                Some((Named::Other, _)) => Classification::Irrelevant,
                _ => {
                    let opening = doc.slice(doc.parts.opening(doc.text));
                    if CREDIT_INSTRUMENT.is_match(opening) || vocabulary(opening) == Classification::CreditAgreement {
                        Classification::CreditAgreement
                    } else {
                        Classification::Irrelevant
                    }
                }
            }
        }
        None => {
            let opening = slice(doc.text, 0..floor_boundary(doc.text, OPENING));
            if PROMISES_TO_PAY.is_match(opening) { Classification::CreditAgreement } else { vocabulary(doc.text) }
        }
    }
}

/// The heading's text, and where each of its pieces is in the document.
struct Heading {
    text: String,
    /// `(start in text, start in the document)` of each piece, in order.
    pieces: Vec<(usize, usize)>,
}

impl Heading {
    fn push(&mut self, piece: &str, at: usize) {
        self.pieces.push((self.text.len(), at));
        self.text.push_str(piece);
        self.text.push('\n');
    }

    /// The document range of a range of the heading's text.
    fn in_document(&self, range: Range<usize>) -> Option<Range<usize>> {
        let locate = |pos: usize| {
            let index = self.pieces.partition_point(|&(start, _)| start <= pos).checked_sub(1)?;
            self.pieces.get(index).map(|&(start, at)| at + (pos - start))
        };
        let start = locate(range.start)?;
        let end = locate(range.end.saturating_sub(1))? + 1;
        (start < end).then_some(start..end)
    }
}

/// The heading: the short lines before the preamble (or, without one, of the opening) and the
/// preamble's first words.
fn heading(doc: &Document<'_>) -> Heading {
    let region = match &doc.parts.preamble {
        Some(_) => doc.parts.front.clone(),
        None => 0..floor_boundary(doc.text, OPENING),
    };
    let mut heading = Heading { text: String::new(), pieces: Vec::new() };
    let lines = lines_in(doc.text, region)
        .map(|line| trim_range(doc.text, line))
        // A table of contents lists the exhibits' titles ("Form of Security Agreement"), not this
        // document's.
        .take_while(|line| !CONTENTS.is_match(slice(doc.text, line.clone())))
        .filter(|line| !line.is_empty() && line.len() <= HEADING_LINE)
        .take(HEADING_LINES);
    for line in lines {
        heading.push(slice(doc.text, line.clone()), line.start);
    }
    if let Some(preamble) = &doc.parts.preamble {
        let end = floor_boundary(doc.text, preamble.start.saturating_add(PREAMBLE_NAMING)).min(preamble.end);
        heading.push(naming_words(slice(doc.text, preamble.start..end)), preamble.start);
    }
    heading
}

/// The words of a preamble that name the document: up to the first parenthesis or verb.
fn naming_words(preamble: &str) -> &str {
    let end = ["(", " dated", " is ", " made", " entered", ","]
        .iter()
        .filter_map(|stop| preamble.find(stop))
        .min()
        .unwrap_or(preamble.len());
    preamble.get(..end).unwrap_or(preamble)
}

/// The kind of document named first in `text`, with where its name is.
fn first_named(text: &str) -> Option<(Named, Range<usize>)> {
    [(&*CREDIT_INSTRUMENT, Named::Credit), (&*CHANGE, Named::Change), (&*OTHER_CONTRACT, Named::Other)]
        .into_iter()
        .filter_map(|(regex, named)| regex.find(text).map(|m| (named, m.range())))
        // Leftmost wins; at one position, the longer name.
        .min_by_key(|(_, range)| (range.start, usize::MAX - range.end))
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

/// Judges `text` by its vocabulary alone. A credit agreement shows at least four of the five loan groups, including a
/// borrower, and its loan vocabulary outnumbers that of leases and recipes.
fn vocabulary(text: &str) -> Classification {
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

    fn classify(text: &str) -> Classification {
        read(&Document::scan(text)).classification
    }

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

    #[test]
    fn the_heading_names_the_kind_of_document_before_any_vocabulary_counts() {
        let subordination = "EXHIBIT 10.4\n\nSUBORDINATION AGREEMENT\n\nThis Subordination Agreement (this \"Agreement\") is made as of May 1, 2021, between Northbank LLC, as lender under the Senior Loan Agreement (\"Senior Lender\"), and Jane Roe (\"Creditor\"). The Borrower has obtained loans; the Lender's Commitments bear interest at the prime rate plus a margin.";
        assert_eq!(classify(subordination), Classification::Irrelevant);
        let restated = "SIXTH AMENDED AND RESTATED\nCREDIT AGREEMENT\n\nDated as of March 3, 1999\n\nSIXTH AMENDED AND RESTATED CREDIT AGREEMENT dated as of March 3, 1999 among WIDGET HOLDINGS, INC., a Delaware corporation (the \"COMPANY\"), and the banks party hereto (the \"BANKS\").";
        assert_eq!(classify(restated), Classification::CreditAgreement);
        let term_loan = "TERM LOAN AGREEMENT\n\nThis Term Loan Agreement is entered into as of June 1, 2015 between Alpha Corp. and Beta Bank.";
        assert_eq!(classify(term_loan), Classification::CreditAgreement);
    }

    #[test]
    fn a_guarantee_of_a_credit_agreement_is_not_one_even_when_its_opening_is_printed_in_short_lines() {
        // As a PDF prints a preamble: lines short enough to read as a cover's, one of them naming
        // the credit agreement guaranteed.
        let guarantee = "Exhibit 10.4\n\nSUBSIDIARY GUARANTY\n\nSUBSIDIARY GUARANTY, dated as of May 3, 2022, made by Xi Holdings LLC in favor of\nOmicron Bank, N.A., as Administrative Agent for the Lenders party to the Second Amended and Restated Credit\nAgreement, dated as of April 1, 2021, among Pi Corp., the Lenders and the Administrative Agent.\n\nWHEREAS, the Lenders have agreed to make Revolving Loans of up to $300,000,000 bearing interest at Term SOFR plus 1.25%;";
        assert_eq!(classify(guarantee), Classification::Irrelevant);
        let credit_with_guaranty = "CREDIT AGREEMENT AND GUARANTY\n\ndated as of May 3, 2022 among Pi Corp., as Borrower, Xi Holdings LLC, as Guarantor, and Omicron Bank, N.A., as Lender.";
        assert_eq!(classify(credit_with_guaranty), Classification::CreditAgreement);
    }

    #[test]
    fn a_support_or_exchange_agreement_with_a_term_sheet_of_new_loans_is_not_a_credit_agreement() {
        let support = "TRANSACTION SUPPORT AND EXCHANGE AGREEMENT\n\nThis Transaction Support and Exchange Agreement (this \"Agreement\"), dated as of March 9, 2021, is by and among Mu Holdings, Inc. (the \"Company\") and the holders of its term loans signatory hereto.\n\nEXHIBIT A\n\nTerm Sheet\n\nThe Borrower will borrow new term loans of $75,000,000 from the Lenders. Interest: Term SOFR plus 6.00%, with a 1.00% floor. The Commitments terminate at the Maturity Date.";
        assert_eq!(classify(support), Classification::Irrelevant);
        let exchange = "NOTE EXCHANGE AGREEMENT\n\nThis Note Exchange Agreement is made as of June 2, 2022 between Nu Corp., as issuer, and the Lenders under its Credit Agreement, who will exchange their Term Loans for notes bearing interest at Term SOFR plus 4.00%.";
        assert_eq!(classify(exchange), Classification::Irrelevant);
    }

    #[test]
    fn a_change_is_a_credit_document_when_what_it_changes_is_one() {
        let note_amendment = "Exhibit 10.3\n\nAmendment #2\nto\nSecured Promissory Note\n\nThis AMENDMENT (this \"Amendment\") is entered into by and between Company and Holder, effective as of March 1, 2020.";
        let reading = read(&Document::scan(note_amendment));
        assert_eq!(reading.classification, Classification::CreditAgreement);
        let change = reading.change.expect("the change words are located");
        assert_eq!(&note_amendment[change], "Amendment");
        let waiver = "CONSENT AND WAIVER\n\nThis CONSENT AND WAIVER (this \"Waiver\"), dated as of July 2, 2021, is entered into by and among Gamma, Inc. (the \"Company\") and the holders signatory hereto.\n\nRECITALS\n\nA. The holders purchased the Company's 9% Senior Secured Notes due 2024 (the \"Notes\").";
        assert_eq!(classify(waiver), Classification::CreditAgreement);
        let lease_amendment = "FIRST AMENDMENT TO LEASE\n\nThis First Amendment to Lease is made as of April 4, 2019 by and between Delta LLC (\"Landlord\") and Epsilon Inc. (\"Tenant\"). Landlord's lender has consented to the loan terms.";
        assert_eq!(classify(lease_amendment), Classification::Irrelevant);
        let unrelated_consent = "CONSENT\n\nThis Consent is given as of May 5, 2020 by and between Zeta Corp. and Eta Corp. concerning the assignment of a supply contract.";
        assert_eq!(classify(unrelated_consent), Classification::Irrelevant);
    }

    #[test]
    fn exhibits_listed_in_a_table_of_contents_do_not_name_the_document() {
        let text = "MASTER FINANCING ARRANGEMENT\n\nTABLE OF CONTENTS\n\nExhibit A Form of Security Agreement\nExhibit B Form of Guaranty Agreement\n\nThis Master Financing Arrangement is made as of May 1, 2020 between Theta Inc., as Borrower, and Iota Bank, N.A., as Lender and Administrative Agent. The Commitments are $50,000,000; the Applicable Margin is 2.00% over Term SOFR.";
        assert_eq!(classify(text), Classification::CreditAgreement);
    }

    #[test]
    fn a_note_without_a_title_line_is_read_by_its_promise_to_pay() {
        let text = "$250,000 | Chicago, Illinois\n\nFOR VALUE RECEIVED, the undersigned, Kappa LLC (\"Maker\"), hereby promises to pay to the order of Lambda Bank (\"Payee\") the principal sum of $250,000.";
        assert_eq!(classify(text), Classification::CreditAgreement);
    }
}
