//! Values proposed from outside the rules (a language model) for fields the rules did not find.
//! A proposal arrives already located in the text (see `crate::domain::llm_proposals`); here it is
//! normalised by the same rules the engine uses — a date must read as a date, a governing law must
//! name a jurisdiction CDM knows — and only then adopted, with the provenance of the words it came
//! from. Fields stated in conflicting ways are never filled: a conflict is for a person to resolve.

use std::ops::Range;

use super::header::jurisdiction;
use super::{Extraction, ExtractionStatus, Sourced, parse_date};

/// The scalar facts a language model may be asked for when the rules miss them.
pub const ASSISTABLE_FIELDS: [&str; 4] =
    ["/agreementName", "/agreementDate", "/effectiveDate", "/legalAgreementIdentification/governingLaw"];

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
                let sourced = Sourced::new(text, span, date);
                if field == "/agreementDate" {
                    agreement.agreement_date = sourced;
                } else {
                    agreement.effective_date = sourced;
                }
            }
            _ => {
                let (law, _) =
                    jurisdiction(quote.trim()).ok_or_else(|| unusable("a jurisdiction of CDM's GoverningLawEnum"))?;
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
        let undated = complete.replacen("dated as of March 15, 2024", "", 1).replacen(
            "is entered into as of March 15, 2024,",
            "is entered into",
            1,
        ) + "\nThe signing took place 15 March 2024.\n";
        let mut extraction = extract_credit_agreement(&undated);
        assert_eq!(extraction.status, ExtractionStatus::PartialDataMissing);
        assert_eq!(extraction.required_missing, ["/agreementDate"]);

        extraction.adopt(&undated, "/agreementDate", span_of(&undated, "15 March 2024")).expect("adopted");

        assert_eq!(extraction.status, ExtractionStatus::Success);
        assert!(extraction.agreement.provenance().contains_key("/agreementDate"));
    }
}
