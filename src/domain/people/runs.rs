//! Stored people-workflow results: who asked about which person, in which deal, and what the
//! workflow found (research summary, psychometric profile, character assessment). A result is
//! written once, complete, when the workflow has finished; it is never updated.

use serde_json::Value;
use time::OffsetDateTime;

use crate::domain::auth::UserId;

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
    /// What the caller said about them (company, role), if anything.
    pub context: Option<String>,
    pub deal_id: Option<i64>,
    /// The chatbot session that launched it, if any.
    pub session_id: Option<String>,
    /// `{people_id, status, person_name, context, deal_id, session_id, research_summary (with its
    /// sources and statistics), psychometric_profile, credit_assessment}` as the API returns it.
    pub result: Value,
    /// The `PersonResearchCompleted` step.
    pub cdm_events: Vec<Value>,
    pub created_at: OffsetDateTime,
    pub completed_at: OffsetDateTime,
}

/// Which results to list, newest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeopleQuery {
    /// `None`: every owner's.
    pub owner: Option<UserId>,
    pub deal_id: Option<i64>,
    /// 1-based.
    pub page: u32,
    pub limit: u32,
}

impl PeopleQuery {
    pub fn offset(&self) -> u64 {
        u64::from(self.page.saturating_sub(1)) * u64::from(self.limit)
    }
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

    #[test]
    fn people_query_offsets_count_whole_pages() {
        let query = PeopleQuery { owner: None, deal_id: None, page: 3, limit: 20 };
        assert_eq!(query.offset(), 40);
    }
}
