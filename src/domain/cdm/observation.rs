//! Workflow-run steps (analyses, research, launches, chat, document workflow): a proposed
//! `ObservationRecord` whose `workflowState` says what happened in CDM's customised-workflow items.

use std::fmt;

use serde_json::{Value, json};
use uuid::Uuid;

use super::{EventContext, EventKind, ISSUER, WorkflowStatus};

/// The item naming the [`EventKind`].
const EVENT_KIND_ITEM: &str = "eventKind";
/// The item linking a step to the step before it in the same run. A `previousWorkflowStep` reference
/// would have to resolve inside this event, which does not contain the previous one.
const PREVIOUS_EVENT_ITEM: &str = "previousEventIdentifier";

/// One step of a workflow run, built up before it is written as CDM:
///
/// ```
/// # use creditflow::domain::cdm::{EventKind, ObservationStep, WorkflowStatus};
/// # let previous_event = uuid::Uuid::nil();
/// let step = ObservationStep::new(EventKind::AgreementExtracted, WorkflowStatus::Accepted, "Credit agreement extracted")
///     .item("documentId", 42)
///     .previous(previous_event);
/// ```
///
/// Items carry identifiers and headline results as strings, never secrets or whole documents.
/// CDM has no nulls and requires a value for every item, so an item whose name or value is blank is
/// left out, and so are items named `eventKind` or `previousEventIdentifier`, which the step writes
/// itself from its kind and [`ObservationStep::previous`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservationStep {
    kind: EventKind,
    status: WorkflowStatus,
    comment: String,
    items: Vec<(String, String)>,
    previous_event: Option<Uuid>,
}

impl ObservationStep {
    /// A step of `kind` that leaves the run in `status`; `comment` is one human sentence saying what
    /// happened (left out when blank).
    pub fn new(kind: EventKind, status: WorkflowStatus, comment: impl Into<String>) -> Self {
        ObservationStep {
            kind,
            status,
            comment: comment.into().trim().to_owned(),
            items: Vec::new(),
            previous_event: None,
        }
    }

    /// Adds the item `name` = `value` (its `Display` form), unless either is blank or `name` is one
    /// the step writes itself.
    pub fn item(mut self, name: &str, value: impl fmt::Display) -> Self {
        let name = name.trim();
        let value = value.to_string();
        let value = value.trim();
        let reserved = name == EVENT_KIND_ITEM || name == PREVIOUS_EVENT_ITEM;
        if !name.is_empty() && !value.is_empty() && !reserved {
            self.items.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    /// Adds the item when there is a value; see [`ObservationStep::item`].
    pub fn optional_item(self, name: &str, value: Option<impl fmt::Display>) -> Self {
        match value {
            Some(value) => self.item(name, value),
            None => self,
        }
    }

    /// Links the step to the previous step of the same run (`previousEventIdentifier` item).
    pub fn previous(mut self, previous_event: Uuid) -> Self {
        self.previous_event = Some(previous_event);
        self
    }

    /// What happened.
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// Where the run stands after the step.
    pub fn status(&self) -> WorkflowStatus {
        self.status
    }

    /// The items as they will be written, after the `eventKind` and `previousEventIdentifier` items.
    pub fn items(&self) -> &[(String, String)] {
        &self.items
    }
}

/// The `WorkflowStep` for `step`: `proposedEvent` `{intent: ObservationRecord, eventDate}` and a
/// `workflowState` with the status, the comment and the items of party `creditflow`, `eventKind`
/// first and `previousEventIdentifier` second.
pub fn observation_step(context: &EventContext, step: &ObservationStep) -> Value {
    let mut items = vec![json!({ "itemName": EVENT_KIND_ITEM, "itemValue": step.kind.as_str() })];
    if let Some(previous_event) = step.previous_event {
        items.push(json!({ "itemName": PREVIOUS_EVENT_ITEM, "itemValue": previous_event.to_string() }));
    }
    items.extend(step.items.iter().map(|(name, value)| json!({ "itemName": name, "itemValue": value })));

    let mut workflow_state = serde_json::Map::new();
    workflow_state.insert("workflowStatus".into(), json!(step.status.as_str()));
    if !step.comment.is_empty() {
        workflow_state.insert("comment".into(), json!(step.comment));
    }
    workflow_state
        .insert("partyCustomisedWorkflow".into(), json!([{ "partyName": ISSUER, "customisedWorkflow": items }]));

    let mut event = context.envelope();
    event.insert("proposedEvent".into(), json!({ "intent": "ObservationRecord", "eventDate": context.event_date() }));
    event.insert("workflowState".into(), Value::Object(workflow_state));
    Value::Object(event)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::cdm::check_envelope;
    use crate::domain::cdm::test_support::{context, record};

    fn items_of(event: &Value) -> Vec<(String, String)> {
        event["workflowState"]["partyCustomisedWorkflow"][0]["customisedWorkflow"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|item| {
                        (
                            item["itemName"].as_str().unwrap_or_default().to_owned(),
                            item["itemValue"].as_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn pair(name: &str, value: &str) -> (String, String) {
        (name.to_owned(), value.to_owned())
    }

    #[test]
    fn every_event_kind_makes_a_valid_observation_step() {
        for (position, kind) in EventKind::ALL.into_iter().enumerate() {
            let status = match position % 3 {
                0 => WorkflowStatus::Pending,
                1 => WorkflowStatus::Accepted,
                _ => WorkflowStatus::Rejected,
            };
            let step = ObservationStep::new(kind, status, format!("{kind} recorded by the unit tests"))
                .item("dealId", "deal-7")
                .item("iterations", 3)
                .previous(Uuid::from_u128(0xfeed));
            let event = observation_step(&context(0x0b5e_0000 + position as u128), &step);

            assert_eq!(check_envelope(&event), Ok(()));
            assert_eq!(event["proposedEvent"]["intent"], "ObservationRecord");
            assert_eq!(event["workflowState"]["workflowStatus"], status.as_str());
            assert_eq!(items_of(&event)[0], pair("eventKind", kind.as_str()));
            record(&event);
        }
    }

    #[test]
    fn the_previous_step_is_an_item_not_a_reference() {
        let previous = Uuid::from_u128(0xabc);
        let step = ObservationStep::new(EventKind::ResearchCompleted, WorkflowStatus::Accepted, "Research completed")
            .item("researchId", "r-1")
            .previous(previous);
        let event = observation_step(&context(0x0b5e_1000), &step);

        assert!(event.get("previousWorkflowStep").is_none());
        assert_eq!(
            items_of(&event),
            [
                pair("eventKind", "ResearchCompleted"),
                pair("previousEventIdentifier", &previous.to_string()),
                pair("researchId", "r-1"),
            ]
        );
        record(&event);
    }

    #[test]
    fn blank_and_reserved_items_are_left_out() {
        let step = ObservationStep::new(EventKind::ChatbotInteraction, WorkflowStatus::Accepted, "  ")
            .item("sessionId", " s-9 ")
            .item("recommendation", "   ")
            .item(" ", "orphan value")
            .item("eventKind", "SomethingElse")
            .item("previousEventIdentifier", "not-a-link")
            .optional_item("creditGrade", None::<&str>)
            .optional_item("probabilityOfDefault", Some("0.012"));
        let event = observation_step(&context(0x0b5e_2000), &step);

        assert_eq!(
            items_of(&event),
            [pair("eventKind", "ChatbotInteraction"), pair("sessionId", "s-9"), pair("probabilityOfDefault", "0.012")]
        );
        assert!(event["workflowState"].get("comment").is_none(), "a blank comment is left out, not null");
        record(&event);
    }

    #[test]
    fn the_event_date_is_the_date_of_the_timestamp() {
        let step = ObservationStep::new(EventKind::WorkflowLaunched, WorkflowStatus::Pending, "Workflow launched");
        let event = observation_step(&context(0x0b5e_3000), &step);
        assert_eq!(event["proposedEvent"]["eventDate"], "2026-11-22");
        assert_eq!(event["timestamp"][0]["dateTime"], "2026-11-22T05:00:00Z");
    }
}
