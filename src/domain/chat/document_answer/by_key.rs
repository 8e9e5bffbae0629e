//! Answers from data of a shape this module does not know: the first value under a telling key
//! (`agreementDate`, `governingLaw`, `terminationDate`, `spread`, …) anywhere in the object, cited
//! by its path.

use serde_json::Value;

use super::source::{at, join};
use super::values::{decimal_of, format_date, format_governing_law, format_money, format_rate, text_of};
use super::{AgreementField, DocumentAnswer};

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

pub(super) fn answer_by_key(field: AgreementField, value: &Value) -> DocumentAnswer {
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
