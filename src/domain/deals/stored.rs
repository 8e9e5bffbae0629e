//! Covenant tests as they are kept: what was tested (the deal, the agreement's version, the
//! statement set and test date), by whom, and the whole answer given, never changed afterwards.

use serde_json::Value;
use time::{Date, OffsetDateTime};

use crate::domain::auth::UserId;
use crate::domain::documents::DocumentId;

uuid_id! {
    /// Identifier of a stored covenant test, as the API exposes it (`test_id`).
    CovenantTestId
}

#[derive(Clone, Debug, PartialEq)]
pub struct CovenantTestRecord {
    pub id: CovenantTestId,
    pub owner: UserId,
    pub deal_id: i64,
    pub document_id: DocumentId,
    pub document_version: i32,
    /// The stored set tested; `None` when the statements came with the request.
    pub statement_set_id: Option<crate::domain::statements::stored::StatementSetId>,
    pub period_end: Date,
    /// `pass`, `breach` or `incomplete`.
    pub compliance: String,
    pub created_at: OffsetDateTime,
    /// The answer as given (`{status, test_id, deal_id, …, covenants, summary, findings, cdm_events}`).
    pub body: Value,
}
