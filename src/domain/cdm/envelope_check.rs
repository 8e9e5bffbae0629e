//! The invariants of the `cdm_events` envelope that tests can check without the CDM model:
//! a `WorkflowStep` with a `@key`, an event identifier unique in its array, exactly one event, no
//! nulls and no `@key:external` defined twice. The full model check is `cdm-validate`, run in CI.

use std::collections::HashSet;

use serde_json::Value;

/// Why a value is not a well-formed event of `cdm_events`.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum EnvelopeViolation {
    /// The event is not a JSON object.
    #[error("a CDM event must be a JSON object")]
    NotAnObject,
    /// `@model` / `@type` do not say `cdm` / `cdm.event.workflow.WorkflowStep`.
    #[error("a CDM event must be a cdm.event.workflow.WorkflowStep of @model cdm")]
    NotAWorkflowStep,
    /// No non-empty `@key`.
    #[error("the CDM event has no @key")]
    MissingKey,
    /// No `eventIdentifier[0].assignedIdentifier[0].identifier`.
    #[error("the CDM event has no event identifier")]
    MissingEventIdentifier,
    /// Not exactly one of `proposedEvent`, `businessEvent`, `counterpartyPositionBusinessEvent` (CDM's
    /// choice rule).
    #[error("the CDM event {event_id} must carry exactly one of proposedEvent and businessEvent, it has {count}")]
    NotExactlyOneEvent { event_id: String, count: usize },
    /// An explicit `null`: Rune JSON leaves absent attributes out.
    #[error("the CDM event {event_id} has a null at {path}")]
    NullValue { event_id: String, path: String },
    /// A `@key:external` defined twice in one event: a party is repeated with `@ref:external`.
    #[error("the CDM event {event_id} defines @key:external {key} more than once")]
    DuplicateExternalKey { event_id: String, key: String },
    /// Two events of one array share an event identifier.
    #[error("two CDM events have the event identifier {0}")]
    DuplicateEventIdentifier(String),
    /// Two events of one array share a `@key`.
    #[error("two CDM events have the @key {0}")]
    DuplicateKey(String),
}

/// The event's identifier (`eventIdentifier[0].assignedIdentifier[0].identifier`), which is also its
/// uuid for events written by this module.
pub fn event_identifier(event: &Value) -> Option<&str> {
    event
        .pointer("/eventIdentifier/0/assignedIdentifier/0/identifier/@data")
        .or_else(|| event.pointer("/eventIdentifier/0/assignedIdentifier/0/identifier"))
        .and_then(Value::as_str)
        .filter(|identifier| !identifier.is_empty())
}

/// Checks one event's envelope.
///
/// # Errors
///
/// The first [`EnvelopeViolation`] found (never the array-level duplicates).
pub fn check_envelope(event: &Value) -> Result<(), EnvelopeViolation> {
    let object = event.as_object().ok_or(EnvelopeViolation::NotAnObject)?;
    if object.get("@model").and_then(Value::as_str) != Some("cdm")
        || object.get("@type").and_then(Value::as_str) != Some("cdm.event.workflow.WorkflowStep")
    {
        return Err(EnvelopeViolation::NotAWorkflowStep);
    }
    if object.get("@key").and_then(Value::as_str).is_none_or(str::is_empty) {
        return Err(EnvelopeViolation::MissingKey);
    }
    let event_id = event_identifier(event).ok_or(EnvelopeViolation::MissingEventIdentifier)?.to_owned();
    let count = ["proposedEvent", "businessEvent", "counterpartyPositionBusinessEvent"]
        .into_iter()
        .filter(|choice| object.contains_key(*choice))
        .count();
    if count != 1 {
        return Err(EnvelopeViolation::NotExactlyOneEvent { event_id, count });
    }
    if let Some(path) = first_null(event, String::new()) {
        return Err(EnvelopeViolation::NullValue { event_id, path });
    }
    let mut external_keys = HashSet::new();
    if let Some(key) = first_repeated_external_key(event, &mut external_keys) {
        return Err(EnvelopeViolation::DuplicateExternalKey { event_id, key });
    }
    Ok(())
}

/// Checks every event's envelope, and that no two events share an identifier or a `@key`.
///
/// # Errors
///
/// The first [`EnvelopeViolation`] found.
pub fn check_envelopes(events: &[Value]) -> Result<(), EnvelopeViolation> {
    let mut identifiers = HashSet::new();
    let mut keys = HashSet::new();
    for event in events {
        check_envelope(event)?;
        if let Some(identifier) = event_identifier(event)
            && !identifiers.insert(identifier)
        {
            return Err(EnvelopeViolation::DuplicateEventIdentifier(identifier.to_owned()));
        }
        if let Some(key) = event.get("@key").and_then(Value::as_str)
            && !keys.insert(key)
        {
            return Err(EnvelopeViolation::DuplicateKey(key.to_owned()));
        }
    }
    Ok(())
}

/// The JSON-pointer path of the first `null` in `value`.
fn first_null(value: &Value, path: String) -> Option<String> {
    match value {
        Value::Null => Some(if path.is_empty() { "/".to_owned() } else { path }),
        Value::Array(items) => {
            items.iter().enumerate().find_map(|(index, item)| first_null(item, format!("{path}/{index}")))
        }
        Value::Object(members) => {
            members.iter().find_map(|(name, member)| first_null(member, format!("{path}/{name}")))
        }
        _ => None,
    }
}

/// The first `@key:external` value seen a second time in `value`.
fn first_repeated_external_key<'a>(value: &'a Value, seen: &mut HashSet<&'a str>) -> Option<String> {
    match value {
        Value::Array(items) => items.iter().find_map(|item| first_repeated_external_key(item, seen)),
        Value::Object(members) => {
            if let Some(key) = members.get("@key:external").and_then(Value::as_str)
                && !seen.insert(key)
            {
                return Some(key.to_owned());
            }
            members.values().find_map(|member| first_repeated_external_key(member, seen))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::cdm::test_support::context;
    use crate::domain::cdm::{EventKind, ObservationStep, WorkflowStatus, observation_step};
    use serde_json::json;

    fn event(seed: u128) -> Value {
        let step = ObservationStep::new(EventKind::ResearchQueued, WorkflowStatus::Pending, "Research queued");
        observation_step(&context(seed), &step)
    }

    #[test]
    fn events_written_by_the_module_pass() {
        assert_eq!(check_envelopes(&[event(1), event(2)]), Ok(()));
        assert_eq!(event_identifier(&event(1)), Some(context(1).event_id().to_string().as_str()));
    }

    #[test]
    fn the_same_event_twice_in_one_array_is_refused() {
        let id = context(1).event_id().to_string();
        assert_eq!(check_envelopes(&[event(1), event(1)]), Err(EnvelopeViolation::DuplicateEventIdentifier(id)));
    }

    #[test]
    fn an_event_without_key_or_with_two_events_is_refused() {
        let mut without_key = event(1);
        if let Some(object) = without_key.as_object_mut() {
            object.remove("@key");
        }
        assert_eq!(check_envelope(&without_key), Err(EnvelopeViolation::MissingKey));

        let mut two_events = event(1);
        two_events["businessEvent"] = json!({ "intent": "ContractFormation" });
        assert!(matches!(check_envelope(&two_events), Err(EnvelopeViolation::NotExactlyOneEvent { count: 2, .. })));

        let mut no_event = event(1);
        if let Some(object) = no_event.as_object_mut() {
            object.remove("proposedEvent");
        }
        assert!(matches!(check_envelope(&no_event), Err(EnvelopeViolation::NotExactlyOneEvent { count: 0, .. })));
    }

    #[test]
    fn nulls_and_repeated_external_keys_are_refused() {
        let mut with_null = event(1);
        with_null["workflowState"]["comment"] = Value::Null;
        assert!(matches!(
            check_envelope(&with_null),
            Err(EnvelopeViolation::NullValue { path, .. }) if path == "/workflowState/comment"
        ));

        let mut copied_party = event(1);
        copied_party["party"] = json!([{ "@key:external": "party-borrower" }, { "@key:external": "party-borrower" }]);
        assert!(matches!(
            check_envelope(&copied_party),
            Err(EnvelopeViolation::DuplicateExternalKey { key, .. }) if key == "party-borrower"
        ));
    }

    #[test]
    fn something_else_than_a_workflow_step_is_refused() {
        assert_eq!(check_envelope(&json!([])), Err(EnvelopeViolation::NotAnObject));
        assert_eq!(
            check_envelope(&json!({ "@type": "cdm.event.common.BusinessEvent" })),
            Err(EnvelopeViolation::NotAWorkflowStep)
        );
    }
}
