//! An amendment read against the agreement it amends: when a document of the same deal is the
//! agreement the amendment names (its date is the amendment's amended-agreement date), what the
//! amendment changes in it, term by term, with the value before and after.
//!
//! Two sources, both from stored extractions: the changes the amendment states (a replaced date,
//! amount or rate), placed on the facility of the amended agreement that holds the replaced value;
//! and the terms the amendment document itself states for its facilities (an attached conformed
//! copy, or a restatement), compared with the amended agreement's facility of the same type. A
//! term stated on one side only is not a change: nothing is inferred from silence.

use serde_json::Value;
use time::Date;

use super::DocumentId;

/// Where a change was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeSource {
    /// The amendment states the change ("… is deleted and replaced with …").
    Stated,
    /// The amendment document states the term as amended (a conformed copy or a restatement) and
    /// it differs from the amended agreement's.
    TermsAsAmended,
}

impl ChangeSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeSource::Stated => "stated",
            ChangeSource::TermsAsAmended => "terms_as_amended",
        }
    }
}

/// One term the amendment changes.
#[derive(Clone, Debug, PartialEq)]
pub struct TermChange {
    /// JSON pointer of the term in the amended agreement (`/facilities/0/terminationDate`), when
    /// the term is one of its facility terms.
    pub field: Option<String>,
    /// The term as the amendment names it, when it names one.
    pub term: Option<String>,
    /// The value before (the amendment's statement, else the amended agreement's), in the
    /// agreement's serialised form; `Null` when neither says.
    pub before: Value,
    /// The value as amended.
    pub after: Value,
    pub source: ChangeSource,
}

/// The agreement an amendment amends, found among its deal's documents, and the changes.
#[derive(Clone, Debug, PartialEq)]
pub struct AmendedAgreement {
    pub document_id: DocumentId,
    pub title: String,
    /// The version of the amended agreement compared (its current one).
    pub version: i32,
    pub agreement_date: Date,
    pub changes: Vec<TermChange>,
}

/// The facility terms compared, with the change category that names each.
const FACILITY_TERMS: [(&str, &str); 4] = [
    ("terminationDate", "MaturityDate"),
    ("commitment", "Commitment"),
    ("spread", "Margin"),
    ("floatingRateIndex", ""),
];

/// The amended-agreement date an amendment's extracted agreement names, as stored (ISO date).
pub fn amended_agreement_date(agreement: &Value) -> Option<&str> {
    agreement.pointer("/amendment/amendedAgreementDate")?.as_str()
}

/// What `amendment` (an extracted agreement) changes in `amended` (the extracted agreement it
/// amends).
pub fn changes(amended: &Value, amendment: &Value) -> Vec<TermChange> {
    let empty = Vec::new();
    let facilities = amended["facilities"].as_array().unwrap_or(&empty);
    let mut found: Vec<TermChange> = Vec::new();
    for change in amendment.pointer("/amendment/changes").and_then(Value::as_array).unwrap_or(&empty) {
        let category = change["category"].as_str().unwrap_or_default();
        let before = change.get("before").cloned().unwrap_or(Value::Null);
        let after = change["after"].clone();
        let term = change["term"].as_str().map(str::to_owned);
        let key = FACILITY_TERMS.iter().find(|(_, c)| *c == category).map(|(key, _)| *key);
        let Some(key) = key else {
            found.push(TermChange { field: None, term, before, after, source: ChangeSource::Stated });
            continue;
        };
        // The facility that holds the replaced value; without a stated value, the only facility.
        let holders: Vec<usize> = if before.is_null() {
            if facilities.len() == 1 { vec![0] } else { Vec::new() }
        } else {
            (0..facilities.len()).filter(|&i| same_value(&facilities[i][key], &before)).collect()
        };
        if holders.is_empty() {
            found.push(TermChange { field: None, term, before, after, source: ChangeSource::Stated });
            continue;
        }
        for i in holders {
            let before = if before.is_null() { facilities[i][key].clone() } else { before.clone() };
            found.push(TermChange {
                field: Some(format!("/facilities/{i}/{key}")),
                term: term.clone(),
                before,
                after: after.clone(),
                source: ChangeSource::Stated,
            });
        }
    }
    let restated = amendment["facilities"].as_array().unwrap_or(&empty);
    for (i, facility) in facilities.iter().enumerate() {
        let Some(as_amended) = counterpart(facilities, i, restated) else { continue };
        for (key, _) in FACILITY_TERMS {
            let (before, after) = (&facility[key], &as_amended[key]);
            let field = format!("/facilities/{i}/{key}");
            let already = found.iter().any(|c| c.field.as_deref() == Some(field.as_str()));
            if before.is_null() || after.is_null() || same_value(before, after) || already {
                continue;
            }
            found.push(TermChange {
                field: Some(field),
                term: None,
                before: before.clone(),
                after: after.clone(),
                source: ChangeSource::TermsAsAmended,
            });
        }
    }
    found
}

/// The amendment's facility that is the amended agreement's facility `i`: the one of the same type
/// in the same position among facilities of that type; with no types stated, the one in the same
/// position when both documents have as many facilities.
fn counterpart<'a>(facilities: &[Value], i: usize, restated: &'a [Value]) -> Option<&'a Value> {
    let kind = facilities[i]["facilityType"].as_str();
    match kind {
        Some(kind) => {
            let nth = facilities[..i].iter().filter(|f| f["facilityType"].as_str() == Some(kind)).count();
            let same_kind = |f: &&Value| f["facilityType"].as_str() == Some(kind);
            let ours = facilities.iter().filter(same_kind).count();
            let theirs: Vec<&Value> = restated.iter().filter(same_kind).collect();
            // A type held by a different number of facilities on each side cannot be paired.
            (ours == theirs.len()).then(|| theirs.get(nth).copied()).flatten()
        }
        None => (facilities.len() == restated.len()).then(|| restated.get(i)).flatten(),
    }
}

/// Two serialised values that state the same thing: equal JSON, or equal amounts of one currency,
/// or equal decimals written differently.
fn same_value(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    let decimal = |v: &Value| v.as_str().and_then(|s| s.parse::<rust_decimal::Decimal>().ok());
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.get("currency") == y.get("currency")
                && decimal(x.get("value").unwrap_or(&Value::Null)).is_some()
                && decimal(x.get("value").unwrap_or(&Value::Null)) == decimal(y.get("value").unwrap_or(&Value::Null))
        }
        _ => decimal(a).is_some() && decimal(a) == decimal(b),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn agreement() -> Value {
        json!({
            "agreementDate": "2021-06-30",
            "facilities": [
                { "facilityType": "RevolvingCredit", "commitment": { "value": "250000000", "currency": "USD" },
                  "spread": "0.0175", "floatingRateIndex": "USD-LIBOR", "terminationDate": "2026-06-30" },
                { "facilityType": "TermLoan", "commitment": { "value": "100000000", "currency": "USD" },
                  "spread": "0.02", "terminationDate": "2026-06-30" },
            ]
        })
    }

    #[test]
    fn a_stated_change_lands_on_each_facility_that_holds_the_replaced_value() {
        let amendment = json!({ "amendment": { "amendedAgreementDate": "2021-06-30", "changes": [
            { "term": "Maturity Date", "category": "MaturityDate", "before": "2026-06-30", "after": "2028-06-30" },
            { "term": "Swing Line Sublimit", "category": "Other",
              "before": { "value": "10000000", "currency": "USD" }, "after": { "value": "15000000", "currency": "USD" } },
        ]}});
        let found = changes(&agreement(), &amendment);
        let fields: Vec<Option<&str>> = found.iter().map(|c| c.field.as_deref()).collect();
        assert_eq!(fields, [Some("/facilities/0/terminationDate"), Some("/facilities/1/terminationDate"), None]);
        assert!(found.iter().all(|c| c.source == ChangeSource::Stated));
        assert_eq!(found[2].term.as_deref(), Some("Swing Line Sublimit"));
    }

    #[test]
    fn a_change_without_its_old_value_takes_it_from_the_amended_agreement_only_when_unambiguous() {
        let amendment = json!({ "amendment": { "changes": [
            { "term": "Commitment", "category": "Commitment", "after": { "value": "300000000", "currency": "USD" } },
        ]}});
        let two_facilities = changes(&agreement(), &amendment);
        assert_eq!((two_facilities[0].field.as_deref(), &two_facilities[0].before), (None, &Value::Null));

        let mut one = agreement();
        one["facilities"].as_array_mut().unwrap().truncate(1);
        let found = changes(&one, &amendment);
        assert_eq!(found[0].field.as_deref(), Some("/facilities/0/commitment"));
        assert_eq!(found[0].before, json!({ "value": "250000000", "currency": "USD" }));
    }

    #[test]
    fn terms_as_amended_are_compared_facility_by_facility_and_silence_is_no_change() {
        let amendment = json!({
            "amendment": { "amendedAgreementDate": "2021-06-30" },
            "facilities": [
                { "facilityType": "TermLoan", "spread": "0.0200", "terminationDate": "2027-06-30" },
                { "facilityType": "RevolvingCredit", "commitment": { "value": "300000000.00", "currency": "USD" },
                  "spread": "0.0150", "floatingRateIndex": "USD-SOFR CME Term" },
            ]
        });
        let found: Vec<(String, Value, Value)> =
            changes(&agreement(), &amendment).into_iter().map(|c| (c.field.unwrap(), c.before, c.after)).collect();
        assert_eq!(
            found,
            [
                (
                    "/facilities/0/commitment".to_owned(),
                    json!({ "value": "250000000", "currency": "USD" }),
                    json!({ "value": "300000000.00", "currency": "USD" })
                ),
                ("/facilities/0/spread".to_owned(), json!("0.0175"), json!("0.0150")),
                ("/facilities/0/floatingRateIndex".to_owned(), json!("USD-LIBOR"), json!("USD-SOFR CME Term")),
                ("/facilities/1/terminationDate".to_owned(), json!("2026-06-30"), json!("2027-06-30")),
            ]
        );
    }
}
