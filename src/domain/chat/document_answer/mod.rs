//! Questions about the credit agreement under discussion ("what is the margin?", "who is the
//! borrower?", "when does it mature?"), recognised by [`recognise_document_question`] and answered
//! by [`answer_from_agreement`] straight from the extracted data, with the JSON paths of every value
//! used, so the answer can be checked against the document and nothing is made up.
//!
//! The data may arrive in three shapes, all handled:
//!
//! - the `agreement` object of `POST /api/extract` and of a document version (CDM attribute names:
//!   `agreementDate`, `legalAgreementIdentification.governingLaw`, `parties[]` with `name` and
//!   `roles`, `facilities[]` with `commitment {value, currency}`, `floatingRateIndex`,
//!   `indexTenor`, `spread`, `baseRateSpread`, `pricingGrid[]`, `floor`, `commitmentFee`,
//!   `terminationDate`, `financialCovenants[]`), bare or wrapped (`{agreement: …}`, a document with
//!   `versions[]`, whose latest version is read);
//! - the CDM `WorkflowStep` proposing the `ContractFormation` (bare, in an array, or in a
//!   `cdm_events` array): its `legalAgreement` (`agreementDate`, `governingLaw`), its executions'
//!   parties (`Party1` the borrower, `Party2` the agent or sole lender), quantities, prices (spread
//!   `Add`, floor `Max`), index and `terminationDate`. Covenants, fees and guarantors have no place
//!   in that event, so they are reported as not in the document;
//! - anything else: the first value under a telling key (`agreementDate`, `governingLaw`,
//!   `terminationDate`, `spread`, …) anywhere in the object.
//!
//! Rates are fractions in the data (0.0275) and are written "2.75% (275 bps)"; dates are ISO 8601
//! and written "15 March 2024"; amounts get thousands separators.

mod agreement;
mod question;
mod source;
mod values;

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;

use agreement::answer_agreement;
pub use question::recognise_document_question;
use source::{Source, at, join, locate};
use values::{
    and_list, decimal_of, format_date, format_governing_law, format_money, format_period, format_rate, text_of,
};

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

// ---- the CDM contract-formation step -----------------------------------------------------------

struct Trade<'a> {
    execution: Option<&'a Value>,
    execution_path: String,
    legal_agreement: Option<(&'a Value, String)>,
}

fn trades<'a>(step: &'a Value, base: &str) -> Vec<Trade<'a>> {
    let event_path = join(base, "proposedEvent");
    let instructions_path = join(&event_path, "instruction");
    let Some(instructions) = step.get("proposedEvent").and_then(|e| e.get("instruction")).and_then(Value::as_array)
    else {
        return Vec::new();
    };
    instructions
        .iter()
        .enumerate()
        .map(|(i, instruction)| {
            let primitive_path = join(&at(&instructions_path, i), "primitiveInstruction");
            let primitive = instruction.get("primitiveInstruction");
            let execution = primitive.and_then(|p| p.get("execution"));
            let legal_agreement = primitive
                .and_then(|p| p.get("contractFormation"))
                .and_then(|c| c.get("legalAgreement"))
                .and_then(|l| l.get(0))
                .map(|l| (l, at(&join(&join(&primitive_path, "contractFormation"), "legalAgreement"), 0)));
            Trade { execution, execution_path: join(&primitive_path, "execution"), legal_agreement }
        })
        .collect()
}

/// The party playing `role` (Party1, Party2) in an execution, with its path.
fn counterparty(execution: &Value, execution_path: &str, role: &str) -> Option<(String, String)> {
    let parties = execution.get("parties").and_then(Value::as_array)?;
    let reference = execution
        .get("counterparty")
        .and_then(Value::as_array)
        .and_then(|list| list.iter().find(|c| c.get("role").and_then(Value::as_str) == Some(role)))
        .and_then(|c| c.get("partyReference"))
        .and_then(|r| r.get("@ref:external").or_else(|| r.get("globalReference")))
        .and_then(Value::as_str);
    let position = reference
        .and_then(|key| parties.iter().position(|p| p.get("@key:external").and_then(Value::as_str) == Some(key)))
        .or(match role {
            "Party1" => Some(0),
            "Party2" => Some(1),
            _ => None,
        })?;
    let party = parties.get(position)?;
    let path = at(&join(execution_path, "parties"), position);
    let name = party.get("name").and_then(text_of).map(|name| (name, join(&path, "name"))).or_else(|| {
        party
            .get("partyId")
            .and_then(|ids| ids.get(0))
            .and_then(|id| id.get("identifier"))
            .and_then(text_of)
            .map(|id| (id, join(&path, "partyId")))
    })?;
    Some(name)
}

/// Every price of an execution whose `arithmeticOperator` is `operator` (`Add`: spread, `Max`:
/// floor), with its path.
fn prices(execution: &Value, execution_path: &str, operator: &str) -> Vec<(Decimal, String)> {
    let Some(blocks) = execution.get("priceQuantity").and_then(Value::as_array) else { return Vec::new() };
    let mut found = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        let Some(prices) = block.get("price").and_then(Value::as_array) else { continue };
        for (k, price) in prices.iter().enumerate() {
            if price.get("arithmeticOperator").and_then(Value::as_str) == Some(operator)
                && let Some(value) = price.get("value").and_then(decimal_of)
            {
                let path = join(&at(&join(&at(&join(execution_path, "priceQuantity"), j), "price"), k), "value");
                found.push((value, path));
            }
        }
    }
    found
}

fn quantity(execution: &Value, execution_path: &str) -> Option<(String, String)> {
    let schedule = execution
        .get("product")?
        .get("economicTerms")?
        .get("payout")?
        .get(0)?
        .get("InterestRatePayout")?
        .get("priceQuantity")?
        .get("quantitySchedule")?;
    let path =
        join(execution_path, "product.economicTerms.payout[0].InterestRatePayout.priceQuantity.quantitySchedule");
    Some((format_money(schedule)?, path))
}

fn step_index(execution: &Value, execution_path: &str) -> Option<(String, String)> {
    let blocks = execution.get("priceQuantity").and_then(Value::as_array)?;
    blocks.iter().enumerate().find_map(|(j, block)| {
        let index = block.get("observable")?.get("Index")?.get("InterestRateIndex")?.get("FloatingRateIndex")?;
        let name = index.get("floatingRateIndex").and_then(text_of)?;
        let tenor = index.get("indexTenor").and_then(format_period);
        let path = join(
            &at(&join(execution_path, "priceQuantity"), j),
            "observable.Index.InterestRateIndex.FloatingRateIndex.floatingRateIndex",
        );
        Some((tenor.map_or(name.clone(), |tenor| format!("{name} ({tenor})")), path))
    })
}

fn answer_step(field: AgreementField, step: &Value, base: &str) -> DocumentAnswer {
    let trades = trades(step, base);
    let executions: Vec<(usize, &Value, &str)> = trades
        .iter()
        .enumerate()
        .filter_map(|(i, trade)| trade.execution.map(|e| (i, e, trade.execution_path.as_str())))
        .collect();
    let label = |i: usize| if executions.len() > 1 { format!("Facility {}", i + 1) } else { "The facility".to_owned() };
    let legal_agreement = trades.iter().find_map(|trade| trade.legal_agreement.as_ref());
    let not_in_event = |what: &str| {
        DocumentAnswer::absent_because(format!(
            "Not in the document: the CDM contract formation does not carry {what}, and no extracted agreement was given."
        ))
    };
    match field {
        AgreementField::AgreementDate => match legal_agreement {
            Some((agreement, path)) => match agreement.get("agreementDate").and_then(text_of) {
                Some(date) => DocumentAnswer::found(
                    format!("The agreement is dated {}.", format_date(&date)),
                    vec![join(path, "agreementDate")],
                ),
                None => DocumentAnswer::absent(field),
            },
            None => DocumentAnswer::absent(field),
        },
        AgreementField::GoverningLaw => {
            let law = legal_agreement.and_then(|(agreement, path)| {
                let code = agreement.get("legalAgreementIdentification")?.get("governingLaw").and_then(text_of)?;
                Some((code, join(path, "legalAgreementIdentification.governingLaw")))
            });
            match law {
                Some((code, path)) => DocumentAnswer::found(format_governing_law(&code), vec![path]),
                None => DocumentAnswer::absent(field),
            }
        }
        AgreementField::Borrower => match executions.first().and_then(|(_, e, p)| counterparty(e, p, "Party1")) {
            Some((name, path)) => DocumentAnswer::found(
                format!("The borrower (CDM counterparty Party1, the payer of interest) is {name}."),
                vec![path],
            ),
            None => DocumentAnswer::absent(field),
        },
        AgreementField::Agent | AgreementField::Lenders => {
            match executions.first().and_then(|(_, e, p)| counterparty(e, p, "Party2")) {
                Some((name, path)) => DocumentAnswer::found(
                    format!(
                        "{name} is CDM counterparty Party2, the agent or sole lender; the contract formation does not list individual lenders."
                    ),
                    vec![path],
                ),
                None => DocumentAnswer::absent(field),
            }
        }
        AgreementField::Parties => {
            let Some((_, execution, path)) = executions.first() else { return DocumentAnswer::absent(field) };
            let named: Vec<(String, String, &str)> = [("Party1", "borrower"), ("Party2", "agent or lender")]
                .into_iter()
                .filter_map(|(role, words)| counterparty(execution, path, role).map(|(n, p)| (n, p, words)))
                .collect();
            if named.is_empty() {
                return DocumentAnswer::absent(field);
            }
            let described: Vec<String> = named.iter().map(|(name, _, words)| format!("{name} ({words})")).collect();
            let cited = named.into_iter().map(|(_, path, _)| path).collect();
            DocumentAnswer::found(format!("The parties are {}.", and_list(&described)), cited)
        }
        AgreementField::FacilityAmount | AgreementField::Currency => {
            let mut sentences = Vec::new();
            let mut cited = Vec::new();
            for (i, execution, path) in &executions {
                if let Some((amount, path)) = quantity(execution, path) {
                    sentences.push(format!("{}: {amount}.", label(*i)));
                    cited.push(path);
                }
            }
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Margin | AgreementField::Floor => {
            let operator = if field == AgreementField::Margin { "Add" } else { "Max" };
            let mut sentences = Vec::new();
            let mut cited = Vec::new();
            for (i, execution, path) in &executions {
                for (rate, rate_path) in prices(execution, path, operator) {
                    let sentence = if field == AgreementField::Margin {
                        let index = step_index(execution, path);
                        let over = index.as_ref().map_or("the benchmark".to_owned(), |(name, _)| name.clone());
                        if let Some((_, index_path)) = index {
                            cited.push(index_path);
                        }
                        format!("{}: {over} + {}.", label(*i), format_rate(rate))
                    } else {
                        format!("{}: the benchmark is floored at {}.", label(*i), format_rate(rate))
                    };
                    sentences.push(sentence);
                    cited.push(rate_path);
                }
            }
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::FloatingRateIndex => {
            let mut sentences = Vec::new();
            let mut cited = Vec::new();
            for (i, execution, path) in &executions {
                if let Some((index, index_path)) = step_index(execution, path) {
                    sentences.push(format!("{}: {index}.", label(*i)));
                    cited.push(index_path);
                }
            }
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Maturity => {
            let mut sentences = Vec::new();
            let mut cited = Vec::new();
            for (i, execution, path) in &executions {
                let date = execution
                    .get("product")
                    .and_then(|p| p.get("economicTerms"))
                    .and_then(|t| t.get("terminationDate"))
                    .and_then(|d| d.get("adjustableDate").and_then(|a| a.get("unadjustedDate")).or(Some(d)))
                    .and_then(text_of);
                if let Some(date) = date {
                    sentences.push(format!("{} matures on {}.", label(*i), format_date(&date)));
                    cited.push(join(path, "product.economicTerms.terminationDate"));
                }
            }
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Covenants => not_in_event("financial covenants"),
        AgreementField::CommitmentFee => not_in_event("fees"),
        AgreementField::Guarantors => not_in_event("guarantors"),
        AgreementField::EffectiveDate => not_in_event("an effective date"),
    }
}

// ---- anything else -----------------------------------------------------------------------------

/// Keys that hold the field in shapes this module does not know, most telling first.
fn telling_keys(field: AgreementField) -> &'static [&'static str] {
    match field {
        AgreementField::AgreementDate => &["agreementDate", "agreement_date"],
        AgreementField::EffectiveDate => &["effectiveDate", "effective_date"],
        AgreementField::GoverningLaw => &["governingLaw", "governing_law"],
        AgreementField::Maturity => &["terminationDate", "maturityDate", "termination_date", "maturity_date"],
        AgreementField::FloatingRateIndex => &["floatingRateIndex", "floating_rate_index"],
        AgreementField::Margin => &["spread", "margin"],
        AgreementField::Floor => &["floor"],
        AgreementField::Currency => &["currency"],
        AgreementField::Borrower => &["borrower", "borrowerName", "borrower_name"],
        AgreementField::FacilityAmount => &["totalCommitment", "total_commitment", "commitment", "facilityAmount"],
        AgreementField::CommitmentFee => &["commitmentFee", "commitment_fee"],
        AgreementField::Lenders
        | AgreementField::Agent
        | AgreementField::Guarantors
        | AgreementField::Parties
        | AgreementField::Covenants => &[],
    }
}

/// The first value under `key` in a depth-first walk (objects in key order, arrays in order).
fn find_key<'a>(value: &'a Value, key: &str, path: &str, depth: usize) -> Option<(&'a Value, String)> {
    if depth > 16 {
        return None;
    }
    match value {
        Value::Object(object) => {
            if let Some(found) = object.get(key).filter(|v| !v.is_null()) {
                return Some((found, join(path, key)));
            }
            object.iter().find_map(|(k, v)| find_key(v, key, &join(path, k), depth + 1))
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(i, v)| find_key(v, key, &at(path, i), depth + 1)),
        _ => None,
    }
}

fn answer_by_key(field: AgreementField, value: &Value) -> DocumentAnswer {
    let found = telling_keys(field).iter().find_map(|key| find_key(value, key, "", 0));
    let Some((found, path)) = found else { return DocumentAnswer::absent(field) };
    let text = match field {
        AgreementField::AgreementDate | AgreementField::EffectiveDate | AgreementField::Maturity => {
            let date = found.get("adjustableDate").and_then(|a| a.get("unadjustedDate")).unwrap_or(found);
            text_of(date).map(|d| format!("{}: {}.", capitalise(field.description()), format_date(&d)))
        }
        AgreementField::GoverningLaw => text_of(found).map(|code| format_governing_law(&code)),
        AgreementField::Margin | AgreementField::Floor => {
            decimal_of(found).map(|rate| format!("{}: {}.", capitalise(field.description()), format_rate(rate)))
        }
        AgreementField::FacilityAmount => {
            format_money(found).map(|amount| format!("{}: {amount}.", capitalise(field.description())))
        }
        _ => text_of(found).map(|text| format!("{}: {text}.", capitalise(field.description()))),
    };
    match text {
        Some(text) => DocumentAnswer::found(text, vec![path]),
        None => DocumentAnswer::absent(field),
    }
}

fn capitalise(text: &str) -> String {
    let trimmed = text.strip_prefix("the ").or_else(|| text.strip_prefix("a ")).unwrap_or(text);
    let mut chars = trimmed.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
