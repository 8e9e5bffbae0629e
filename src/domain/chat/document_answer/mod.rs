//! Questions about the credit agreement under discussion ("what is the margin?", "who is the
//! borrower?", "when does it mature?"), recognised by [`recognise_document_question`] and answered
//! by [`answer_from_agreement`] straight from the extracted data, with the JSON paths of every value
//! used, so the answer can be checked against the document and nothing is made up.
//!
//! This module holds what can be asked ([`AgreementField`]), what is answered ([`DocumentAnswer`])
//! and [`answer_from_agreement`], which hands the question to the reader of the data's shape:
//!
//! - `question`: which term a chat message asks about;
//! - `source`: where the agreement's data sits in what the client sent, and the JSON paths that
//!   answers cite;
//! - `agreement`: the `agreement` object of `POST /api/extract` and of a document version, bare or
//!   wrapped (`{agreement: …}`, a document with `versions[]`, whose latest version is read);
//! - `cdm_step`: the CDM `WorkflowStep` proposing the `ContractFormation` (bare, in an array, or in
//!   a `cdm_events` array);
//! - `by_key`: anything else, searched for the first value under a telling key;
//! - `values`: scalars read from the data and written for people — rates "2.75% (275 bps)", dates
//!   "15 March 2024", amounts with thousands separators.

mod agreement;
mod by_key;
mod cdm_step;
mod question;
mod source;
mod values;

use serde::Serialize;
use serde_json::Value;

use agreement::answer_agreement;
use by_key::answer_by_key;
use cdm_step::answer_step;
pub use question::recognise_document_question;
use source::{Source, locate};

/// A term of a credit agreement that a chat question can ask about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgreementField {
    /// The borrower(s).
    Borrower,
    /// The lenders.
    Lenders,
    /// The administrative, facility or collateral agent.
    Agent,
    /// The guarantors.
    Guarantors,
    /// Every party and its roles.
    Parties,
    /// The commitments, per facility and in total.
    FacilityAmount,
    /// The margin (spread) over the benchmark, flat or by pricing grid.
    Margin,
    /// The benchmark (floating rate index) and its tenor.
    FloatingRateIndex,
    /// The floor on the benchmark.
    Floor,
    /// The fee on undrawn commitments.
    CommitmentFee,
    /// Final maturity (termination date).
    Maturity,
    /// The date of the agreement.
    AgreementDate,
    /// The effective or closing date.
    EffectiveDate,
    /// The governing law.
    GoverningLaw,
    /// The currencies of the facilities.
    Currency,
    /// The financial covenants.
    Covenants,
}

impl AgreementField {
    /// Every field, in the order above.
    pub const ALL: [AgreementField; 16] = [
        Self::Borrower,
        Self::Lenders,
        Self::Agent,
        Self::Guarantors,
        Self::Parties,
        Self::FacilityAmount,
        Self::Margin,
        Self::FloatingRateIndex,
        Self::Floor,
        Self::CommitmentFee,
        Self::Maturity,
        Self::AgreementDate,
        Self::EffectiveDate,
        Self::GoverningLaw,
        Self::Currency,
        Self::Covenants,
    ];

    /// The field whose API value is `raw`.
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|field| field.as_str() == raw)
    }

    /// The API value.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Borrower => "borrower",
            Self::Lenders => "lenders",
            Self::Agent => "agent",
            Self::Guarantors => "guarantors",
            Self::Parties => "parties",
            Self::FacilityAmount => "facility_amount",
            Self::Margin => "margin",
            Self::FloatingRateIndex => "floating_rate_index",
            Self::Floor => "floor",
            Self::CommitmentFee => "commitment_fee",
            Self::Maturity => "maturity",
            Self::AgreementDate => "agreement_date",
            Self::EffectiveDate => "effective_date",
            Self::GoverningLaw => "governing_law",
            Self::Currency => "currency",
            Self::Covenants => "covenants",
        }
    }

    /// The term in words, as used in answers ("the governing law").
    pub fn description(&self) -> &'static str {
        match self {
            Self::Borrower => "the borrower",
            Self::Lenders => "the lenders",
            Self::Agent => "an agent",
            Self::Guarantors => "any guarantor",
            Self::Parties => "the parties",
            Self::FacilityAmount => "the facility amount",
            Self::Margin => "the margin",
            Self::FloatingRateIndex => "the benchmark rate",
            Self::Floor => "a floor",
            Self::CommitmentFee => "a commitment fee",
            Self::Maturity => "the maturity date",
            Self::AgreementDate => "the agreement date",
            Self::EffectiveDate => "the effective date",
            Self::GoverningLaw => "the governing law",
            Self::Currency => "the currency",
            Self::Covenants => "any financial covenant",
        }
    }
}

/// An answer read from the agreement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DocumentAnswer {
    /// The answer in words.
    pub text: String,
    /// The JSON paths of the values used (`facilities[0].spread`), relative to the object given.
    pub cited_fields: Vec<String>,
    /// Whether the document states what was asked.
    pub found: bool,
}

impl DocumentAnswer {
    fn found(text: String, cited_fields: Vec<String>) -> Self {
        Self { text, cited_fields, found: true }
    }

    fn absent(field: AgreementField) -> Self {
        Self {
            text: format!("Not in the document: the agreement does not state {}.", field.description()),
            cited_fields: Vec::new(),
            found: false,
        }
    }

    fn absent_because(text: String) -> Self {
        Self { text, cited_fields: Vec::new(), found: false }
    }
}

/// The answer made of `sentences` (one per facility, say), or "not in the document" when there are
/// none.
fn answer_from_sentences(field: AgreementField, sentences: Vec<String>, cited: Vec<String>) -> DocumentAnswer {
    if sentences.is_empty() { DocumentAnswer::absent(field) } else { DocumentAnswer::found(sentences.join(" "), cited) }
}

/// One sentence per item (a facility, an execution) that states the term, and the paths read.
fn sentences_per<T>(items: &[T], describe: impl Fn(&T) -> Option<(String, Vec<String>)>) -> (Vec<String>, Vec<String>) {
    let mut sentences = Vec::new();
    let mut cited = Vec::new();
    for item in items {
        if let Some((sentence, paths)) = describe(item) {
            sentences.push(sentence);
            cited.extend(paths);
        }
    }
    (sentences, cited)
}

// ---- answering ---------------------------------------------------------------------------------

/// Answers a question about `field` from the agreement data the client holds (see the module
/// documentation for the shapes read). The answer cites the JSON path of every value it uses, and
/// says "not in the document" when the data does not state the term.
pub fn answer_from_agreement(field: AgreementField, agreement: &Value) -> DocumentAnswer {
    match locate(agreement) {
        Source::Agreement(value, path) => answer_agreement(field, value, &path),
        Source::Step(step, path) => answer_step(field, step, &path),
        Source::Other(value) => answer_by_key(field, value),
    }
}

#[cfg(test)]
mod tests;
