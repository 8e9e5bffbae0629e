//! Stored people-workflow results: who asked about which person, in which deal, and what the
//! workflow found (research summary, psychometric profile, character assessment). A result is
//! written once, complete, when the workflow has finished; it is never updated.

use serde_json::Value;
use time::OffsetDateTime;

use crate::domain::auth::UserId;
use crate::domain::people::identity::PersonIdentity;

uuid_id! {
    /// Identifier of a people-workflow result, as the API exposes it (`people_id`).
    PeopleId
}

/// One finished people-workflow run as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PeopleRecord {
    pub id: PeopleId,
    pub owner: UserId,
    /// The person as the caller named them.
    pub person_name: String,
    /// What the caller said about them in free text, if anything.
    pub context: Option<String>,
    /// The company, role and location the caller gave as fields.
    pub identity: PersonIdentity,
    pub deal_id: Option<i64>,
    /// The chatbot session that launched it, if any.
    pub session_id: Option<String>,
    /// `{people_id, status, person_name, context, company, role, location, deal_id, session_id,
    /// identity (status, candidates, set_aside, message), research_summary (with its sources and
    /// statistics), psychometric_profile, credit_assessment}` as the API returns it.
    pub result: Value,
    /// The `PersonResearchCompleted` step.
    pub cdm_events: Vec<Value>,
    pub created_at: OffsetDateTime,
    pub completed_at: OffsetDateTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_ids_round_trip_through_text() {
        let id = PeopleId::new_random();
        assert_eq!(id.to_string().parse::<PeopleId>().expect("parses"), id);
        assert!("not-a-uuid".parse::<PeopleId>().is_err());
    }
}
