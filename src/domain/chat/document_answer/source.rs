//! Where the agreement's data sits in what the client sent ([`locate`]): an extracted agreement
//! (bare, under `agreement`, or a document's latest version), a CDM contract-formation step (bare,
//! in an array, or among `cdm_events`), or something else. And the JSON paths, relative to what
//! was sent, that answers cite ([`join`], [`at`]).

use serde_json::Value;

/// Where the agreement's data sits in what the client sent.
pub(super) enum Source<'a> {
    /// The extracted agreement object, at `path`.
    Agreement(&'a Value, String),
    /// A CDM `WorkflowStep` proposing the contract formation, at `path`.
    Step(&'a Value, String),
    /// Something else: searched by key.
    Other(&'a Value),
}

const AGREEMENT_KEYS: &[&str] =
    &["facilities", "parties", "legalAgreementIdentification", "agreementDate", "financialCovenants", "agreementName"];

/// The path of `key` in the object at `path` (the root when `path` is empty).
pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

/// The path of item `index` of the array at `path`.
pub(super) fn at(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

fn is_contract_formation_step(value: &Value) -> bool {
    value.get("proposedEvent").is_some_and(|event| {
        event.get("intent").and_then(Value::as_str) == Some("ContractFormation") || event.get("instruction").is_some()
    })
}

pub(super) fn locate(value: &Value) -> Source<'_> {
    match value {
        Value::Object(object) => {
            if object.contains_key("proposedEvent") {
                return Source::Step(value, String::new());
            }
            if AGREEMENT_KEYS.iter().any(|key| object.contains_key(*key)) {
                return Source::Agreement(value, String::new());
            }
            if let Some(agreement @ Value::Object(_)) = object.get("agreement") {
                return Source::Agreement(agreement, "agreement".to_owned());
            }
            if let Some(Value::Array(versions)) = object.get("versions") {
                let latest = versions
                    .iter()
                    .enumerate()
                    .filter(|(_, version)| version.get("agreement").is_some_and(Value::is_object))
                    .max_by_key(|(i, version)| (version.get("version").and_then(Value::as_i64).unwrap_or(0), *i));
                if let Some((i, version)) = latest {
                    return Source::Agreement(&version["agreement"], join(&at("versions", i), "agreement"));
                }
            }
            for key in ["cdm_events", "cdmEvents", "events"] {
                if let Some(Value::Array(events)) = object.get(key)
                    && let Some((i, step)) = events.iter().enumerate().find(|(_, e)| is_contract_formation_step(e))
                {
                    return Source::Step(step, at(key, i));
                }
            }
            for key in ["workflowStep", "workflow_step", "contract_formation", "contractFormation"] {
                if let Some(step) = object.get(key).filter(|step| is_contract_formation_step(step)) {
                    return Source::Step(step, key.to_owned());
                }
            }
            Source::Other(value)
        }
        Value::Array(items) => match items.iter().enumerate().find(|(_, item)| is_contract_formation_step(item)) {
            Some((i, step)) => Source::Step(step, format!("[{i}]")),
            None => Source::Other(value),
        },
        _ => Source::Other(value),
    }
}
