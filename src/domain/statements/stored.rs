//! Statement sets as they are kept: one borrower's checked statements, owned by the analyst who
//! gave them (like documents), optionally tied to a deal, never changed after they are stored.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::analysis::periods_json;
use super::set::StatementSet;
use crate::domain::auth::UserId;
use crate::domain::documents::deletion::rfc3339;
use crate::domain::documents::{DeletedKind, Deletion, DeletionRecord, StorageUsage};

/// Unrecognised rows a set keeps (and returns); a sheet may have up to
/// [`super::sheet::MAX_ROWS`]. The count of all of them is kept beside.
pub const MAX_UNRECOGNISED_ROWS: usize = 200;

/// Assumptions a set keeps; beyond them, one more sentence says how many were left out.
pub const MAX_ASSUMPTIONS: usize = 200;

uuid_id! {
    /// Identifier of a stored statement set, as the API exposes it (`statement_set_id`).
    StatementSetId
}

/// How a set arrived.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetOrigin {
    /// `json`, `xlsx` or `csv`.
    pub format: String,
    /// The uploaded file's name, for a spreadsheet.
    pub file_name: Option<String>,
    /// The spreadsheet's rows read as line items, `[{row, label, item}]`.
    pub recognised: Value,
    /// The spreadsheet's rows with numbers whose label is not a known line item, `[{row, label}]`:
    /// at most [`MAX_UNRECOGNISED_ROWS`] of them.
    pub unrecognised: Value,
    /// How many rows were not recognised, kept or not; `None` for a set stored before the list was
    /// bounded, whose list is whole.
    #[serde(default)]
    pub unrecognised_count: Option<u64>,
    /// What the reader assumed (a period length from a bare date, a skipped TTM column).
    pub assumptions: Vec<String>,
}

impl SetOrigin {
    pub fn json_body() -> Self {
        Self {
            format: "json".into(),
            file_name: None,
            recognised: json!([]),
            unrecognised: json!([]),
            unrecognised_count: Some(0),
            assumptions: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct StatementSetRecord {
    pub id: StatementSetId,
    pub owner: UserId,
    pub borrower_name: String,
    pub deal_id: Option<i64>,
    pub origin: SetOrigin,
    pub statements: StatementSet,
    pub created_at: OffsetDateTime,
}

impl StatementSetRecord {
    /// The API's view: `{statement_set_id, borrower_name, deal_id, currency, periods, recognised,
    /// unrecognised, unrecognised_count, assumptions, format, file_name, created_at}`; amounts in
    /// units of the currency.
    pub fn json(&self) -> Value {
        json!({
            "statement_set_id": self.id.to_string(),
            "borrower_name": self.borrower_name,
            "deal_id": self.deal_id,
            "currency": self.statements.currency,
            "periods": periods_json(&self.statements),
            "recognised": self.origin.recognised,
            "unrecognised": self.origin.unrecognised,
            "unrecognised_count": self.origin.unrecognised_count.unwrap_or_else(|| {
                self.origin.unrecognised.as_array().map_or(0, |rows| rows.len() as u64)
            }),
            "assumptions": self.origin.assumptions,
            "format": self.origin.format,
            "file_name": self.origin.file_name,
            "created_at": self.created_at.format(&time::format_description::well_known::Rfc3339).ok(),
        })
    }

    /// What the set counts in its owner's storage quota: its JSON as stored (origin and
    /// statements) and the borrower's name.
    pub fn stored_bytes(&self) -> u64 {
        let json_bytes = |value: Result<Vec<u8>, serde_json::Error>| value.map_or(0, |bytes| bytes.len() as u64);
        self.borrower_name.len() as u64
            + json_bytes(serde_json::to_vec(&self.origin))
            + json_bytes(serde_json::to_vec(&self.statements))
    }

    /// The audit trail's entry for this set, deleted as `deletion` says, giving back `stored_bytes`
    /// (what the set was counted for when it was stored): who it was of, which periods, and a
    /// SHA-256 of the figures as stored, not the figures.
    pub fn deletion_record(&self, deletion: Deletion, stored_bytes: u64) -> DeletionRecord {
        use sha2::{Digest, Sha256};
        let statements = serde_json::to_vec(&self.statements).unwrap_or_default();
        let periods: Vec<Value> = self
            .statements
            .periods
            .iter()
            .map(|period| json!({ "period_end": period.period_end.to_string(), "months": period.months }))
            .collect();
        DeletionRecord {
            kind: DeletedKind::StatementSet,
            record_id: self.id.to_string(),
            owner: self.owner,
            deleted_by: deletion.actor,
            deleted_at: deletion.at,
            freed: StorageUsage::new_statement_set(stored_bytes),
            summary: json!({
                "borrower_name": self.borrower_name,
                "deal_id": self.deal_id,
                "format": self.origin.format,
                "file_name": self.origin.file_name,
                "currency": self.statements.currency,
                "periods": periods,
                "statements_sha256": hex::encode(Sha256::digest(&statements)),
                "created_at": rfc3339(self.created_at),
            }),
        }
    }
}
