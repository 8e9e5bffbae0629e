//! Values proposed from outside the rules (a language model) for fields the rules did not find.
//! A proposal arrives already located in the text (see `crate::domain::extraction::llm_proposals`); here it is
//! normalised by the same rules the engine uses — a date must read as a date, a governing law must
//! name a jurisdiction CDM knows — and held to what the rules know of the document's structure:
//! a proposed borrower must be a party the preamble names as a borrower, a proposed date must be
//! this document's own (not the date of an instrument it refers to, nor a maturity), and a proposed
//! governing law must come from the clause that governs this document. Only then is it adopted,
//! with the provenance of the words it came from. Fields stated in conflicting ways are never
//! filled: a conflict is for a person to resolve.

use std::ops::Range;

use std::sync::LazyLock;

use regex::Regex;

use super::document::Document;
use super::governing_law::{jurisdiction, states_own_governing_law};
use super::model::{Party, PartyRole};
use super::parties::names::is_role_word_name;
use super::parties::roles::{ONE_ROLE, roles_of};
use super::text::{before, pattern, sentence_around};
use super::{Extraction, ExtractionStatus, Sourced, parse_date};

/// The scalar facts a language model may be asked for when the rules miss them.
pub const ASSISTABLE_FIELDS: [&str; 5] =
    ["/agreementName", "/agreementDate", "/effectiveDate", "/legalAgreementIdentification/governingLaw", BORROWER];

/// The missing-field pointer of the borrower.
const BORROWER: &str = "/parties[role=Borrower]";

/// Why a located proposal could not be adopted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnusableProposal {
    #[error("{0} is not a field that proposals may fill")]
    NotAssistable(String),
    #[error("{0} is already stated in the text (or stated in conflicting ways)")]
    NotMissing(String),
    #[error("the span is not a slice of the text")]
    BadSpan,
    #[error("'{quote}' does not read as {expected}")]
    NotNormalisable { quote: String, expected: &'static str },
    #[error("'{quote}' is not adopted: {reason}")]
    NotThisDocuments { quote: String, reason: &'static str },
}

impl Extraction {
    /// The missing fields a language model may propose values for.
    pub fn assistable_missing_fields(&self) -> Vec<&'static str> {
        ASSISTABLE_FIELDS.into_iter().filter(|field| self.missing_fields.iter().any(|m| m == field)).collect()
    }

    /// Adopts the value stated at `text[span]` for `field`, normalised as the rules would; the
    /// field leaves `missing_fields`, and the status becomes `success` when nothing required is
    /// missing any more and nothing conflicts.
    ///
    /// # Errors
    /// [`UnusableProposal`] when the field may not be filled or the words do not normalise.
    pub fn adopt(&mut self, text: &str, field: &str, span: Range<usize>) -> Result<(), UnusableProposal> {
        if !ASSISTABLE_FIELDS.contains(&field) {
            return Err(UnusableProposal::NotAssistable(field.to_owned()));
        }
        if !self.missing_fields.iter().any(|m| m == field) || self.conflicted_fields.iter().any(|c| c == field) {
            return Err(UnusableProposal::NotMissing(field.to_owned()));
        }
        let quote = text.get(span.clone()).ok_or(UnusableProposal::BadSpan)?;
        let unusable = |expected| UnusableProposal::NotNormalisable { quote: quote.to_owned(), expected };
        let refused = |reason| UnusableProposal::NotThisDocuments { quote: quote.to_owned(), reason };
        let doc = Document::scan(text);
        let agreement = &mut self.agreement;
        match field {
            "/agreementName" => {
                let name = quote.split_whitespace().collect::<Vec<_>>().join(" ");
                if name.is_empty() {
                    return Err(unusable("a title"));
                }
                agreement.agreement_name = Sourced::new(text, span, name);
            }
            "/agreementDate" | "/effectiveDate" => {
                let date = parse_date(quote.trim()).ok_or_else(|| unusable("a calendar date"))?;
                let amended_date = agreement.amendment.as_ref().and_then(|a| a.amended_agreement_date.as_ref());
                if amended_date.is_some_and(|amended| *amended.value() == date) {
                    return Err(refused("it is the date of the agreement being amended"));
                }
                own_date_check(&doc, span.clone()).map_err(refused)?;
                let sourced = Sourced::new(text, span, date);
                if field == "/agreementDate" {
                    agreement.agreement_date = sourced;
                } else {
                    agreement.effective_date = sourced;
                }
            }
            BORROWER => {
                let party = preamble_borrower(&doc, span).map_err(refused)?;
                let key = |name: &str| name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
                if agreement.parties.iter().any(|p| key(p.name.value()) == key(party.name.value())) {
                    return Err(refused("the rules read this party in another role"));
                }
                agreement.parties.push(party);
            }
            _ => {
                let (law, _) =
                    jurisdiction(quote.trim()).ok_or_else(|| unusable("a jurisdiction of CDM's GoverningLawEnum"))?;
                if !states_own_governing_law(&doc, span.clone()) {
                    return Err(refused("it is not in the clause that governs this document"));
                }
                agreement.legal_agreement_identification.governing_law = Sourced::new(text, span, law);
            }
        }
        self.missing_fields.retain(|m| m != field);
        self.required_missing.retain(|m| m != field);
        if self.status == ExtractionStatus::PartialDataMissing
            && self.required_missing.is_empty()
            && self.conflicted_fields.is_empty()
        {
            self.status = ExtractionStatus::Success;
        }
        Ok(())
    }
}

/// Words that date the document they stand in: "dated as of", "made and entered into", "executed
/// on", "Date:", "effective as of", "closing".
static DATING_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:dated|as[ \t\r\n]+of|made|entered[ \t\r\n]+into|executed|signed|signing|date|effective|effectiveness|closing)\b",
    )
});

/// A date given to another instrument: "the Existing Credit Agreement dated as of", "that certain
/// Promissory Note … dated", unless the instrument is this one ("This Amendment, dated …").
static INSTRUMENT_DATED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?P<determiner>this|that[ \t\r\n]+certain|the|a|an|such|each|said)[ \t\r\n]+(?:[\w&'’.\-]+[ \t\r\n]+){0,8}?(?:agreement|note|indenture|guaranty|guarantee|lease|amendment|instrument)s?\b[^;]{0,200}?\bdated[ \t\r\n]+(?:as[ \t\r\n]+of[ \t\r\n]+)?(?:the[ \t\r\n]+)?$",
    )
});

/// Words that make a date a deadline rather than the document's date.
static DEADLINE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:matur\w*|terminat\w*|expir\w*|repa\w*|payable|due|until|through|ending|before|after|prior[ \t\r\n]+to|no[ \t\r\n]+later[ \t\r\n]+than|extended[ \t\r\n]+to)\b",
    )
});

/// How far before a proposed date its dating words may stand.
const DATING_REACH: usize = 120;
/// How far before a proposed date deadline words make it a deadline.
const DEADLINE_REACH: usize = 40;

/// Whether the date stated at `span` is the document's own: in its own text (not an attachment),
/// introduced by dating words, and neither another instrument's date nor a deadline.
fn own_date_check(doc: &Document<'_>, span: Range<usize>) -> Result<(), &'static str> {
    if doc.parts.preamble.is_some() && !doc.parts.in_body(span.start) {
        return Err("it is stated in an attachment, not in this document");
    }
    let sentence = sentence_around(doc.text, span.start);
    let lead = doc.slice(before(doc.text, span.start, DATING_REACH).start.max(sentence.start)..span.start);
    if let Some(found) = INSTRUMENT_DATED.captures(lead)
        && found.name("determiner").is_some_and(|d| !d.as_str().eq_ignore_ascii_case("this"))
    {
        return Err("it is the date of another instrument the document refers to");
    }
    let near = &lead[super::text::floor_boundary(lead, lead.len().saturating_sub(DEADLINE_REACH))..];
    if DEADLINE_WORDS.is_match(near) {
        return Err("it is a deadline (a maturity, termination or payment date), not the document's date");
    }
    if !DATING_WORDS.is_match(lead) {
        return Err("no words before it say that it dates this document");
    }
    Ok(())
}

/// How far after a proposed borrower's name its role may be stated.
const ROLE_REACH: usize = 300;

/// The party named at `span`, when the preamble (or a `Borrower:` label) names it as a borrower:
/// the first role stated after the name, before the next party, is a borrower.
fn preamble_borrower(doc: &Document<'_>, span: Range<usize>) -> Result<Party, &'static str> {
    let name = doc.slice(span.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
    let opens_with_capital = name.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
    if !opens_with_capital || is_role_word_name(&name) {
        return Err("it does not read as a party's name");
    }
    let labelled = doc
        .structure
        .labels_where(|label| label == "borrower" || label == "borrowers")
        .find(|label| label.value.start <= span.start && span.end <= label.value.end);
    if let Some(label) = labelled {
        let role = doc.sourced(label.name.clone(), PartyRole::Borrower).ok_or("the label cannot be quoted")?;
        let name = doc.sourced(span, name).ok_or("the name cannot be quoted")?;
        return Ok(Party { party_id: None, name, roles: vec![role] });
    }
    let preamble = doc.parts.preamble.clone().ok_or("the document has no preamble that names its parties")?;
    if !(preamble.start <= span.start && span.end <= preamble.end) {
        return Err("it is not a party named in the preamble");
    }
    let reach = super::text::floor_boundary(doc.text, span.end.saturating_add(ROLE_REACH)).min(preamble.end);
    let after = doc.slice(span.end..reach);
    let stop = after.find(';').into_iter().chain(after.find("\n\n")).min().unwrap_or(after.len());
    let role = ONE_ROLE.find(&after[..stop]).ok_or("the preamble states no role for it")?;
    if roles_of(role.as_str(), false) != [PartyRole::Borrower] {
        return Err("the preamble names it in another role");
    }
    let role_span = span.end + role.start()..span.end + role.end();
    let (Some(name), Some(role)) = (doc.sourced(span, name), doc.sourced(role_span, PartyRole::Borrower)) else {
        return Err("the name cannot be quoted");
    };
    Ok(Party { party_id: None, name, roles: vec![role] })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::extraction::extract_credit_agreement;

    const UNDATED: &str = "CREDIT AGREEMENT among ACME HOLDINGS, INC., as the Borrower, and FIRST BANK, N.A., as \
        Administrative Agent. The Lenders agree to make a term loan in an aggregate principal amount of \
        $100,000,000 bearing interest at Term SOFR plus 2.50% per annum, maturing on June 30, 2030. Signed in the \
        spring of the year, on 1 April 2024. This Agreement is subject to the laws of the State of New York.";

    fn span_of(text: &str, words: &str) -> Range<usize> {
        let start = text.find(words).expect("words in text");
        start..start + words.len()
    }

    /// An amendment that states its own date, its law and the amended agreement's date only in ways
    /// the rules do not read, next to dates and a law that belong to other things.
    const AMENDMENT: &str = "FIRST AMENDMENT TO CREDIT AGREEMENT\n\nThis FIRST AMENDMENT TO CREDIT AGREEMENT is \
        entered into among ACME HOLDINGS, INC., a Delaware corporation, as the Borrower, and FIRST BANK, N.A., as \
        Administrative Agent.\n\nReference is made to the Credit Agreement dated as of May 1, 2020 among the \
        Borrower, the Lenders and the Administrative Agent, and to the Pledge Agreement dated April 9, 2021 \
        made by the Borrower. The Revolving Loans shall mature on June 30, 2027. \
        Each Note shall be governed by the laws of the State of Texas.\n\nThe parties executed this Amendment on \
        2 March 2024. This Amendment shall be subject to New York law.\n";

    #[test]
    fn a_proposed_date_must_be_the_documents_own() {
        let mut extraction = extract_credit_agreement(AMENDMENT);
        assert!(extraction.assistable_missing_fields().contains(&"/agreementDate"), "{:?}", extraction.missing_fields);
        for (words, reason) in [
            ("May 1, 2020", "the agreement being amended"),
            ("April 9, 2021", "another instrument"),
            ("June 30, 2027", "a deadline"),
        ] {
            let refused = extraction.adopt(AMENDMENT, "/agreementDate", span_of(AMENDMENT, words));
            assert!(
                matches!(&refused, Err(UnusableProposal::NotThisDocuments { reason: why, .. }) if why.contains(reason)),
                "{words}: {refused:?}"
            );
        }
        extraction.adopt(AMENDMENT, "/agreementDate", span_of(AMENDMENT, "2 March 2024")).expect("its own date");
        assert_eq!(
            extraction.agreement.agreement_date.as_ref().map(|d| d.value().to_string()).as_deref(),
            Some("2024-03-02")
        );
    }

    #[test]
    fn a_proposed_law_must_govern_this_document() {
        let mut extraction = extract_credit_agreement(AMENDMENT);
        let field = "/legalAgreementIdentification/governingLaw";
        assert!(extraction.assistable_missing_fields().contains(&field), "{:?}", extraction.missing_fields);
        let refused = extraction.adopt(AMENDMENT, field, span_of(AMENDMENT, "Texas"));
        assert!(matches!(refused, Err(UnusableProposal::NotThisDocuments { .. })), "{refused:?}");
        let refused = extraction.adopt(AMENDMENT, field, span_of(AMENDMENT, "Delaware"));
        assert!(matches!(refused, Err(UnusableProposal::NotThisDocuments { .. })), "{refused:?}");
        extraction.adopt(AMENDMENT, field, span_of(AMENDMENT, "New York")).expect("the amendment's own law");
        let law = extraction.agreement.legal_agreement_identification.governing_law.as_ref().expect("adopted");
        assert_eq!(law.quote(), "New York");
    }

    #[test]
    fn a_proposed_borrower_must_be_named_as_one_in_the_preamble() {
        let doc = Document::scan(AMENDMENT);
        let borrower = preamble_borrower(&doc, span_of(AMENDMENT, "ACME HOLDINGS, INC.")).expect("the borrower");
        assert_eq!(borrower.name.value(), "ACME HOLDINGS, INC.");
        assert_eq!(borrower.roles[0].quote(), "Borrower");
        let agent = preamble_borrower(&doc, span_of(AMENDMENT, "FIRST BANK, N.A."));
        assert_eq!(agent.map(|p| p.name.value().clone()), Err("the preamble names it in another role"));
        let outside = preamble_borrower(&doc, span_of(AMENDMENT, "Revolving Loans"));
        assert_eq!(outside.map(|p| p.name.value().clone()), Err("it is not a party named in the preamble"));
        let role_words = preamble_borrower(&doc, span_of(AMENDMENT, "Administrative Agent"));
        assert_eq!(role_words.map(|p| p.name.value().clone()), Err("it does not read as a party's name"));

        let lending = "LOAN AGREEMENT\n\nThis LOAN AGREEMENT is made by MAPLE CAPITAL LLC, as lender to the Borrower \
            named below, and OAK FARMS LLC.\n";
        let doc = Document::scan(lending);
        let lender = preamble_borrower(&doc, span_of(lending, "MAPLE CAPITAL LLC"));
        assert_eq!(lender.map(|p| p.name.value().clone()), Err("the preamble names it in another role"));
    }

    #[test]
    fn a_term_sheet_borrower_label_names_the_borrower() {
        let sheet = "SUMMARY OF TERMS\nBorrower: Birch Logistics Ltd.\nFacility: Revolving credit facility\n";
        let doc = Document::scan(sheet);
        let borrower = preamble_borrower(&doc, span_of(sheet, "Birch Logistics Ltd.")).expect("labelled");
        assert_eq!(borrower.roles[0].quote(), "Borrower");
    }

    #[test]
    fn a_located_date_is_adopted_with_its_provenance() {
        let mut extraction = extract_credit_agreement(UNDATED);
        assert!(extraction.assistable_missing_fields().contains(&"/agreementDate"), "{:?}", extraction.missing_fields);

        let span = span_of(UNDATED, "1 April 2024");
        extraction.adopt(UNDATED, "/agreementDate", span.clone()).expect("a date");

        let date = extraction.agreement.agreement_date.as_ref().expect("adopted");
        assert_eq!(date.value().to_string(), "2024-04-01");
        assert_eq!(date.quote(), &UNDATED[span]);
        assert!(!extraction.missing_fields.iter().any(|m| m == "/agreementDate"));
    }

    #[test]
    fn words_that_do_not_normalise_or_fields_not_missing_are_refused() {
        let mut extraction = extract_credit_agreement(UNDATED);
        let refused = extraction.adopt(UNDATED, "/agreementDate", span_of(UNDATED, "spring of the year"));
        assert!(matches!(refused, Err(UnusableProposal::NotNormalisable { .. })), "{refused:?}");
        let refused = extraction.adopt(UNDATED, "/parties/0/name", span_of(UNDATED, "ACME HOLDINGS, INC."));
        assert_eq!(refused, Err(UnusableProposal::NotAssistable("/parties/0/name".into())));
        assert_eq!(extraction.adopt(UNDATED, "/agreementDate", 0..UNDATED.len() + 1), Err(UnusableProposal::BadSpan));
        if extraction.agreement.legal_agreement_identification.governing_law.is_some() {
            let refused =
                extraction.adopt(UNDATED, "/legalAgreementIdentification/governingLaw", span_of(UNDATED, "New York"));
            assert!(matches!(refused, Err(UnusableProposal::NotMissing(_))));
        }
    }

    #[test]
    fn filling_the_last_required_field_makes_the_extraction_a_success() {
        // The US syndicated corpus text extracts completely; without its date line, only the date is
        // missing. A signature-page date is then proposed.
        let complete = include_str!("corpus/us_syndicated_term_sofr.txt");
        let undated = complete
            .replacen("dated as of March 15, 2024", "", 1)
            .replacen("is entered into as of March 15, 2024,", "is entered into", 1)
            .replacen("IN WITNESS WHEREOF", "The signing took place 15 March 2024.\n\nIN WITNESS WHEREOF", 1);
        let mut extraction = extract_credit_agreement(&undated);
        assert_eq!(extraction.status, ExtractionStatus::PartialDataMissing);
        assert_eq!(extraction.required_missing, ["/agreementDate"]);

        extraction.adopt(&undated, "/agreementDate", span_of(&undated, "15 March 2024")).expect("adopted");

        assert_eq!(extraction.status, ExtractionStatus::Success);
        assert!(extraction.agreement.provenance().contains_key("/agreementDate"));
    }
}
