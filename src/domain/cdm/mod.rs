//! FINOS CDM 7 events: the one place in the service that knows CDM's Rune JSON.
//!
//! Every operation reports what it did as `cdm_events`, an array of `cdm.event.workflow.WorkflowStep`
//! objects that each validate on their own against the official model (finos-cdm 7.8.0, checked in CI
//! with `shared/tools/cdm-validate`). Two shapes exist:
//!
//! - [`observation_step`]: a step of a workflow run (an analysis started, research completed, a
//!   document moved on), a proposed `ObservationRecord` whose `workflowState` carries the
//!   [`EventKind`], a [`WorkflowStatus`], one human sentence and identifiers as name/value items;
//! - [`contract_formation_step`]: an extracted credit agreement as a proposed `ContractFormation`.
//!
//! Both share the envelope built from an [`EventContext`]. The module reads no clock and draws no
//! random numbers: event identifiers and timestamps come from the caller. CDM has no `null`: an
//! absent value is an absent attribute, and a value CDM would refuse is left out (the rules are on
//! each builder), because one refused value invalidates the whole event.

mod contract_formation;
mod envelope_check;
mod floating_rate_indices;
mod observation;
#[cfg(test)]
mod test_support;
mod vocabulary;

use std::fmt;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};
use uuid::Uuid;

pub use contract_formation::{
    CdmAmount, CdmFacility, CdmGap, CdmParty, CdmTenor, ContractFormation, TenorUnit, contract_formation_step,
};
pub use envelope_check::{EnvelopeViolation, check_envelope, check_envelopes, event_identifier};
pub use observation::{ObservationStep, observation_step};
pub use vocabulary::{cdm_floating_rate_index, cdm_governing_law, is_valid_lei};

/// Who issues the events and sends the messages; also the `partyName` of the workflow items.
const ISSUER: &str = "creditflow";
/// The CDM version the events are written for (and validated against).
const CDM_VERSION: &str = "7.8.0";
/// Scheme of `messageInformation.messageId`: the id of the HTTP request that caused the event.
const MESSAGE_ID_SCHEME: &str = "urn:creditflow:message-id";

/// What happened, as the `eventKind` item of a workflow-run step (the kinds of the design, CDM.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A quantitative credit analysis was started.
    QuantitativeAnalysisStarted,
    /// A quantitative credit analysis produced its result.
    QuantitativeAnalysisCompleted,
    /// A quantitative credit analysis failed.
    QuantitativeAnalysisFailed,
    /// A research job was queued.
    ResearchQueued,
    /// A research job produced its report.
    ResearchCompleted,
    /// A research job failed.
    ResearchFailed,
    /// Research on a person completed.
    PersonResearchCompleted,
    /// A workflow was launched.
    WorkflowLaunched,
    /// The chatbot answered a message.
    ChatbotInteraction,
    /// A credit agreement was extracted from a document.
    AgreementExtracted,
    /// A new version of a document was stored.
    DocumentVersionCreated,
    /// A document moved from one workflow state to another.
    DocumentWorkflowTransition,
    /// A deal's financial covenants were tested against the borrower's statements.
    CovenantTestCompleted,
}

impl EventKind {
    /// Every kind, in the order of the design document.
    pub const ALL: [EventKind; 13] = [
        EventKind::QuantitativeAnalysisStarted,
        EventKind::QuantitativeAnalysisCompleted,
        EventKind::QuantitativeAnalysisFailed,
        EventKind::ResearchQueued,
        EventKind::ResearchCompleted,
        EventKind::ResearchFailed,
        EventKind::PersonResearchCompleted,
        EventKind::WorkflowLaunched,
        EventKind::ChatbotInteraction,
        EventKind::AgreementExtracted,
        EventKind::DocumentVersionCreated,
        EventKind::DocumentWorkflowTransition,
        EventKind::CovenantTestCompleted,
    ];

    /// The `itemValue` of the `eventKind` item.
    pub fn as_str(&self) -> &'static str {
        match self {
            EventKind::QuantitativeAnalysisStarted => "QuantitativeAnalysisStarted",
            EventKind::QuantitativeAnalysisCompleted => "QuantitativeAnalysisCompleted",
            EventKind::QuantitativeAnalysisFailed => "QuantitativeAnalysisFailed",
            EventKind::ResearchQueued => "ResearchQueued",
            EventKind::ResearchCompleted => "ResearchCompleted",
            EventKind::ResearchFailed => "ResearchFailed",
            EventKind::PersonResearchCompleted => "PersonResearchCompleted",
            EventKind::WorkflowLaunched => "WorkflowLaunched",
            EventKind::ChatbotInteraction => "ChatbotInteraction",
            EventKind::AgreementExtracted => "AgreementExtracted",
            EventKind::DocumentVersionCreated => "DocumentVersionCreated",
            EventKind::DocumentWorkflowTransition => "DocumentWorkflowTransition",
            EventKind::CovenantTestCompleted => "CovenantTestCompleted",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a workflow run stands after the step (CDM `WorkflowStatusEnum`, the three values we use).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkflowStatus {
    /// Queued or started, not finished.
    Pending,
    /// Completed.
    Accepted,
    /// Failed.
    Rejected,
}

impl WorkflowStatus {
    /// The CDM enum value.
    pub fn as_str(&self) -> &'static str {
        match self {
            WorkflowStatus::Pending => "Pending",
            WorkflowStatus::Accepted => "Accepted",
            WorkflowStatus::Rejected => "Rejected",
        }
    }
}

impl fmt::Display for WorkflowStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The timestamp cannot be written as a CDM date-time.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("event timestamp {0} is outside the years 1 to 9999 that CDM date-times can hold")]
pub struct TimestampOutOfRange(pub OffsetDateTime);

/// What every event carries besides its content: who it is, when it was created and which request
/// caused it. The caller supplies all of it (from its clock and id generator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventContext {
    event_id: Uuid,
    timestamp: OffsetDateTime,
    /// The RFC 3339 form, made once so that rendering cannot fail.
    date_time: String,
    /// `YYYY-MM-DD` of the UTC timestamp: the event's `eventDate`.
    event_date: String,
    request_id: Option<String>,
}

impl EventContext {
    /// The context of event `event_id`, created at `timestamp` while serving request `request_id`.
    ///
    /// The timestamp is written in UTC. A blank `request_id` leaves `messageInformation` out (CDM
    /// requires its `messageId`).
    ///
    /// # Errors
    ///
    /// [`TimestampOutOfRange`] when the timestamp's UTC year is outside 1..=9999 (CDM dates are Python dates).
    pub fn new(
        event_id: Uuid,
        timestamp: OffsetDateTime,
        request_id: impl Into<String>,
    ) -> Result<Self, TimestampOutOfRange> {
        let utc = timestamp.checked_to_offset(UtcOffset::UTC).ok_or(TimestampOutOfRange(timestamp))?;
        let event_date = vocabulary::iso_date(utc.date()).ok_or(TimestampOutOfRange(timestamp))?;
        let date_time = utc.format(&Rfc3339).map_err(|_| TimestampOutOfRange(timestamp))?;
        let request_id = request_id.into();
        let request_id = (!request_id.trim().is_empty()).then(|| request_id.trim().to_owned());
        Ok(EventContext { event_id, timestamp: utc, date_time, event_date, request_id })
    }

    /// The event's identifier (`eventIdentifier[0].assignedIdentifier[0].identifier`).
    pub fn event_id(&self) -> Uuid {
        self.event_id
    }

    /// The creation time, in UTC.
    pub fn timestamp(&self) -> OffsetDateTime {
        self.timestamp
    }

    /// The `@key` of the event: the first 12 hex digits of the SHA-256 of its identifier, short and
    /// stable, and as unique as the identifier.
    pub fn key(&self) -> String {
        let digest = Sha256::digest(self.event_id.to_string().as_bytes());
        let mut key = hex::encode(digest);
        key.truncate(12);
        key
    }

    /// The event's `eventDate`.
    fn event_date(&self) -> &str {
        &self.event_date
    }

    /// The attributes every `WorkflowStep` carries; the caller adds the event and its state.
    fn envelope(&self) -> serde_json::Map<String, Value> {
        let mut envelope = serde_json::Map::new();
        envelope.insert("@model".into(), json!("cdm"));
        envelope.insert("@type".into(), json!("cdm.event.workflow.WorkflowStep"));
        envelope.insert("@version".into(), json!(CDM_VERSION));
        envelope.insert("@key".into(), json!(self.key()));
        envelope.insert(
            "timestamp".into(),
            json!([{ "dateTime": self.date_time, "qualification": "eventCreationDateTime" }]),
        );
        envelope.insert(
            "eventIdentifier".into(),
            json!([{
                "issuer": { "@data": ISSUER },
                "assignedIdentifier": [{ "identifier": { "@data": self.event_id.to_string() }, "version": 1 }],
            }]),
        );
        if let Some(request_id) = &self.request_id {
            envelope.insert(
                "messageInformation".into(),
                json!({
                    "messageId": { "@scheme": MESSAGE_ID_SCHEME, "@data": request_id },
                    "sentBy": { "@data": ISSUER },
                }),
            );
        }
        envelope.insert("action".into(), json!("New"));
        envelope
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn context() -> EventContext {
        EventContext::new(
            Uuid::from_u128(0x0196_0000_0000_7000_8000_0000_0000_0001),
            datetime!(2026-11-22 06:30:00.25 +01:30),
            "req-1",
        )
        .expect("timestamp in range")
    }

    #[test]
    fn every_event_kind_renders_as_its_design_name() {
        let names: Vec<&str> = EventKind::ALL.iter().map(EventKind::as_str).collect();
        assert_eq!(
            names,
            [
                "QuantitativeAnalysisStarted",
                "QuantitativeAnalysisCompleted",
                "QuantitativeAnalysisFailed",
                "ResearchQueued",
                "ResearchCompleted",
                "ResearchFailed",
                "PersonResearchCompleted",
                "WorkflowLaunched",
                "ChatbotInteraction",
                "AgreementExtracted",
                "DocumentVersionCreated",
                "DocumentWorkflowTransition",
                "CovenantTestCompleted",
            ]
        );
        assert_eq!(EventKind::ResearchQueued.to_string(), "ResearchQueued");
    }

    #[test]
    fn the_envelope_is_written_in_utc_with_the_utc_event_date() {
        let envelope = context().envelope();
        assert_eq!(envelope["timestamp"][0]["dateTime"], "2026-11-22T05:00:00.25Z");
        assert_eq!(context().event_date(), "2026-11-22");
        assert_eq!(
            envelope["eventIdentifier"][0]["assignedIdentifier"][0]["identifier"]["@data"],
            context().event_id().to_string()
        );
        assert_eq!(envelope["messageInformation"]["messageId"]["@data"], "req-1");
        assert_eq!(envelope["action"], "New");
    }

    #[test]
    fn the_key_is_a_short_stable_hash_of_the_event_identifier() {
        let key = context().key();
        assert_eq!(key.len(), 12);
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(key, context().key());
        let other = EventContext::new(Uuid::from_u128(2), context().timestamp(), "req-1").expect("in range");
        assert_ne!(other.key(), key);
    }

    #[test]
    fn a_blank_request_id_leaves_message_information_out() {
        let context = EventContext::new(Uuid::from_u128(3), datetime!(2026-01-01 0:00 UTC), "  ").expect("in range");
        assert!(!context.envelope().contains_key("messageInformation"));
    }

    #[test]
    fn a_timestamp_before_year_1_is_refused() {
        let year_zero = datetime!(0000-06-01 0:00 UTC);
        assert_eq!(EventContext::new(Uuid::from_u128(4), year_zero, "req"), Err(TimestampOutOfRange(year_zero)));
    }
}
