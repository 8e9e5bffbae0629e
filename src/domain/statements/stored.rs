//! Statement sets as they are kept: one borrower's checked statements, owned by the analyst who
//! gave them (like documents), optionally tied to a deal, never changed after they are stored.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::analysis::periods_json;
use super::set::StatementSet;
use crate::domain::auth::UserId;

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
}
