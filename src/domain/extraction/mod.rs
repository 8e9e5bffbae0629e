//! Deterministic extraction of credit agreements: US syndicated credit agreements (Term SOFR, New
//! York law, "Administrative Agent"), LMA-style English-law facility agreements (SONIA, EURIBOR,
//! "Facility Agent", "Original Lenders"), amendments and restatements, and term sheets.
//!
//! [`extract_credit_agreement`] reads a text once into an index of its structure (definitions,
//! `Label:` lines, headings) and of every amount, percentage, date, ratio, facility reference and
//! benchmark in it; each extractor then looks values up in that index. Patterns are compiled once,
//! and the work is linear in the length of the text, however long: nothing is truncated.
//!
//! # Nothing is guessed
//!
//! - A field the text does not state is absent, and listed in [`Extraction::missing_fields`].
//! - Statements that disagree (two governing laws, words and figures that differ, two maturity
//!   dates for one facility) are reported in [`Extraction::warnings`], quoting both, and the
//!   value is withheld rather than chosen.
//! - A value stated for a facility prevails over one stated for all facilities: that is how the
//!   agreements themselves are drafted, not a choice between conflicting statements. (With a
//!   single facility both describe the same loans, so a disagreement is a conflict.)
//! - A value whose evidence fails when read as a lawyer reads it is withheld and reported in
//!   [`Extraction::warnings`]: a term read from a recital of fact or from the benchmark
//!   replacement provisions, a title total of several facilities, a name cut by a line or page
//!   break, a role phrase of another party or capacity (see `evidence`).
//! - A relative date ("the fifth anniversary of the Closing Date") is reported, not computed; an
//!   LEI with wrong check digits is reported, never used or repaired.
//! - Two readings are rules rather than statements, and are documented where they apply: `$` is
//!   US dollars (agreements define it so), and a facility whose pricing clauses name no benchmark
//!   takes the benchmark the agreement defines for its currency (Term SOFR before daily SOFR before LIBOR
//!   before prime for dollars, EURIBOR before €STR for euro, SONIA for sterling).
//!
//! # Provenance
//!
//! Every value is a [`Sourced`]: the normalised value, the byte span of the input it was read
//! from, and the exact quoted text (`&text[span] == quote`, by construction). The serialized
//! agreement carries values inline under CDM attribute names, and one `provenance` object mapping
//! the JSON pointer of each value to its `{start, end, quote}`:
//!
//! ```json
//! { "agreementDate": "2024-03-15",
//!   "facilities": [{ "spread": "0.0275", … }],
//!   "provenance": { "/agreementDate": {"start": 112, "end": 126, "quote": "March 15, 2024"},
//!                   "/facilities/0/spread": {"start": 9001, "end": 9006, "quote": "2.75%"} } }
//! ```
//!
//! Decimals (amounts, rates as fractions: 2.75% = `"0.0275"`, ratios) serialize as exact decimal
//! strings; dates as ISO 8601.
//!
//! # Status
//!
//! [`ExtractionStatus::Success`] when the required fields are all present and nothing conflicts:
//! title, agreement date, governing law, a borrower, at least one facility, and for each facility
//! its commitment, floating rate index, margin (flat or grid) and termination date (a letter of
//! credit facility bears fees, so it needs no index or margin). Otherwise
//! [`ExtractionStatus::PartialDataMissing`]. A text that is not a credit agreement at all (a lease,
//! a recipe) is [`ExtractionStatus::IrrelevantDocument`] and nothing is extracted from it.
//!
//! # Layout
//!
//! Dependencies run one way. `text` (spans, clauses, tables, the structure index) and
//! `number_words` are read by the finders of mentions (`numbers`, `dates`, `benchmarks`,
//! `facility_refs`, `lei`, `parts`); `document` scans a text once with them, and `provisions`
//! marks the provisions that do not state the document's own terms (recitals of fact, benchmark
//! replacement provisions), which the readers leave aside by `evidence`'s rules. `scope` says
//! which facilities each stated value is for; `pricing` and `facilities` read their candidates
//! through it, and `facilities` applies `pricing` to each facility it assembles. `classification`
//! decides whether the text is a credit agreement at all; `header`, `governing_law`, `parties`,
//! `amendments`, `covenants` and `sustainability` each read one part of the agreement from the
//! `document`; and [`extract_credit_agreement`] puts them together.

mod amendments;
mod benchmarks;
mod classification;
mod covenants;
mod currency;
mod dates;
mod document;
mod evidence;
mod facilities;
mod facility_refs;
mod governing_law;
mod header;
mod lei;
pub mod llm_proposals;
mod model;
mod number_words;
mod numbers;
mod parties;
mod parts;
mod pricing;
mod proposals;
mod provisions;
mod schedules;
mod scope;
mod sourced;
mod sustainability;
mod text;

#[cfg(test)]
mod tests;

use serde::Serialize;

pub use currency::CurrencyCode;
pub(crate) use dates::find_dates;
pub use dates::parse_date;
pub use lei::{Lei, LeiError};
pub use model::{
    AmendedTerm, AmendedTermCategory, Amendment, AmendmentType, CommitmentFee, CovenantLevel, CovenantType,
    CreditAgreement, DayCountFraction, Facility, FacilityType, FinancialCovenant, FloatingRateIndex, GoverningLaw,
    LegalAgreementIdentification, Party, PartyRole, Period, PeriodUnit, PricingGridLevel, StatedValue,
    SustainabilityLinked,
};
pub use number_words::parse_number_words;
pub use numbers::{Money, parse_decimal, parse_percent, parse_ratio};
pub use proposals::{ASSISTABLE_FIELDS, UnusableProposal};
pub use sourced::{Provenance, Sourced, SourcedValue, Span};
pub(crate) use text::{Definition, Structure, normalise_label, pattern};

use classification::Classification;
use document::{Document, Report};

/// The outcome of an extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractionStatus {
    /// Every required field was found and nothing conflicts.
    Success,
    /// A credit agreement, but a required field is missing or conflicted.
    PartialDataMissing,
    /// Not a credit agreement, amendment or term sheet.
    IrrelevantDocument,
}

/// What was extracted from a text, what it does not state, and what could not be used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Extraction {
    /// Overall outcome.
    pub status: ExtractionStatus,
    /// The agreement (empty for an irrelevant document).
    pub agreement: CreditAgreement,
    /// JSON pointers of recognised fields the text does not state (e.g. `/effectiveDate`,
    /// `/facilities/1/floor`, `/parties[role=Borrower]`).
    pub missing_fields: Vec<String>,
    /// Conflicts, dropped values and unreadable statements, each naming the field and quoting the
    /// text with its span.
    pub warnings: Vec<String>,
    /// The missing fields that keep the status at `partial_data_missing`.
    #[serde(skip)]
    required_missing: Vec<String>,
    /// Fields stated in conflicting ways (reported in `warnings`, never filled).
    #[serde(skip)]
    conflicted_fields: Vec<String>,
}

/// Extracts a credit agreement from `text`. Deterministic, never panics, and reads the whole
/// text whatever its length.
pub fn extract_credit_agreement(text: &str) -> Extraction {
    let mut doc = Document::scan(text);
    let reading = classification::read(&doc);
    if reading.classification == Classification::Irrelevant {
        return Extraction {
            status: ExtractionStatus::IrrelevantDocument,
            agreement: CreditAgreement::default(),
            missing_fields: Vec::new(),
            warnings: Vec::new(),
            required_missing: Vec::new(),
            conflicted_fields: Vec::new(),
        };
    }
    let mut report = Report::default();
    let agreement_name = header::title(&doc);
    let agreement_date = header::agreement_date(&doc, &mut report);
    let effective_date = header::effective_date(&doc, &mut report);
    let governing_law = governing_law::governing_law(&doc, &mut report);
    let mut amendment = header::amendment(&doc, agreement_name.as_ref(), reading.change, &mut report);
    let body = doc.parts.body.clone();
    doc.provisions.read_as(amendment.as_ref().map(|a| *a.amendment_type.value()), body);
    // Read once: an amendment reports its changes, and a replaced maturity is a facility's term.
    let changes = amendments::changes(&doc);
    let parties = parties::extract(&doc, &mut report);
    let facilities = facilities::extract(&doc, &changes, &mut report);
    if let Some(amendment) = &mut amendment {
        amendment.changes = changes;
    }
    let financial_covenants = covenants::extract(&doc);
    let sustainability_linked = sustainability::extract(&doc, &mut report);
    let mut agreement = CreditAgreement {
        agreement_name,
        agreement_date,
        effective_date,
        legal_agreement_identification: LegalAgreementIdentification { governing_law },
        parties,
        facilities,
        financial_covenants,
        sustainability_linked,
        amendment,
    };
    evidence::check(&doc, &mut agreement, &mut report);
    let missing = missing_fields(&agreement, &report);
    let status = if missing.required.is_empty() && report.conflicted_fields.is_empty() {
        ExtractionStatus::Success
    } else {
        ExtractionStatus::PartialDataMissing
    };
    Extraction {
        status,
        agreement,
        missing_fields: missing.all,
        warnings: report.warnings,
        required_missing: missing.required,
        conflicted_fields: report.conflicted_fields,
    }
}

struct Missing {
    all: Vec<String>,
    required: Vec<String>,
}

/// The recognised fields the agreement does not state. Conflicted fields are reported as
/// conflicts, not as missing.
fn missing_fields(agreement: &CreditAgreement, report: &Report) -> Missing {
    let mut missing = Missing { all: Vec::new(), required: Vec::new() };
    let mut note = |path: String, present: bool, required: bool| {
        if present || report.conflicted_fields.contains(&path) {
            return;
        }
        if required {
            missing.required.push(path.clone());
        }
        missing.all.push(path);
    };
    note("/agreementName".to_owned(), agreement.agreement_name.is_some(), true);
    note("/agreementDate".to_owned(), agreement.agreement_date.is_some(), true);
    note("/effectiveDate".to_owned(), agreement.effective_date.is_some(), false);
    note(
        "/legalAgreementIdentification/governingLaw".to_owned(),
        agreement.legal_agreement_identification.governing_law.is_some(),
        true,
    );
    note("/parties[role=Borrower]".to_owned(), parties::any_has_role(&agreement.parties, &[PartyRole::Borrower]), true);
    note(
        "/parties[role=AdministrativeAgent|FacilityAgent]".to_owned(),
        parties::any_has_role(&agreement.parties, &[PartyRole::AdministrativeAgent, PartyRole::FacilityAgent]),
        false,
    );
    note("/facilities".to_owned(), !agreement.facilities.is_empty(), true);
    note("/financialCovenants".to_owned(), !agreement.financial_covenants.is_empty(), false);
    for (i, facility) in agreement.facilities.iter().enumerate() {
        let base = format!("/facilities/{i}");
        let takes_commitment_fee = !matches!(
            facility.facility_type.as_ref().map(|t| *t.value()),
            Some(FacilityType::TermLoanA | FacilityType::TermLoanB | FacilityType::TermLoan)
        );
        note(format!("{base}/name"), facility.name.is_some(), false);
        note(format!("{base}/facilityType"), facility.facility_type.is_some(), false);
        // A letter of credit facility is priced by fees, not by a floating rate.
        let floating =
            !matches!(facility.facility_type.as_ref().map(|t| *t.value()), Some(FacilityType::LetterOfCredit));
        note(format!("{base}/commitment"), facility.commitment.is_some(), true);
        if floating {
            note(format!("{base}/floatingRateIndex"), facility.floating_rate_index.is_some(), true);
            let priced = facility.spread.is_some() || !facility.pricing_grid.is_empty();
            let spread_conflicted = report.conflicted_fields.iter().any(|f| f == &format!("{base}/pricingGrid"));
            note(format!("{base}/spread"), priced || spread_conflicted, true);
            note(format!("{base}/floor"), facility.floor.is_some(), false);
        }
        if takes_commitment_fee {
            let fee_in_grid = facility.pricing_grid.iter().any(|level| level.commitment_fee.is_some());
            note(format!("{base}/commitmentFee"), facility.commitment_fee.is_some() || fee_in_grid, false);
        }
        note(format!("{base}/paymentFrequency"), facility.payment_frequency.is_some(), false);
        note(format!("{base}/dayCountFraction"), facility.day_count_fraction.is_some(), false);
        note(format!("{base}/terminationDate"), facility.termination_date.is_some(), true);
    }
    missing
}
