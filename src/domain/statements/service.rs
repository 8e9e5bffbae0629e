//! The statement-set use cases: store a borrower's checked statements (from JSON or a read
//! spreadsheet) under the owner's storage quota, read one back for its owner (and
//! administrators), and delete it.

use std::sync::Arc;

use serde_json::json;

use super::set::{FinancialsInput, StatementError, StatementSet, UncheckedPeriod, check, check_input};
use super::sheet::{Grid, SheetStatements, UnrecognisedRow, interpret};
use super::stored::{MAX_ASSUMPTIONS, MAX_UNRECOGNISED_ROWS, SetOrigin, StatementSetId, StatementSetRecord};
use crate::domain::auth::Principal;
use crate::domain::documents::{Deletion, DeletionRecord, DocumentQuota, QuotaExceeded};
use crate::domain::listing::listed_owner;
use crate::ports::clock::Clock;
use crate::ports::statement_sets::{StatementSetRepository, StatementSetWriteError};
use crate::ports::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum StatementSetError {
    /// A request value is wrong; `field` names it.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// A spreadsheet's period lacks a required item (`field` names it): the rows that were not
    /// read, those that look like the missing item first, so the analyst can find the row.
    #[error("{field}: {message}")]
    MissingItem { field: String, message: String, unrecognised: Vec<UnrecognisedRow> },
    /// The spreadsheet cannot be read as statements (no header row, contradictory units, …); the
    /// reason names the row, column or cell.
    #[error("{0}")]
    Unreadable(String),
    /// No set with this id that the caller may see.
    #[error("statement set not found")]
    NotFound,
    /// The set would take the owner beyond their storage quota; nothing was stored.
    #[error(transparent)]
    QuotaExceeded(QuotaExceeded),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<StatementError> for StatementSetError {
    fn from(error: StatementError) -> Self {
        StatementSetError::Validation { field: error.field, message: error.message }
    }
}

/// A spreadsheet as read, with what the form says about it.
pub struct SheetUpload<'a> {
    pub grid: &'a Grid,
    pub file_name: &'a str,
    /// `xlsx` or `csv`.
    pub format: &'static str,
    /// The form's `currency` part.
    pub currency: Option<&'a str>,
}

/// The sheet's periods checked as a set, in the currency the sheet states or the form gives.
fn check_sheet(sheet: &SheetStatements, form_currency: Option<&str>) -> Result<StatementSet, StatementSetError> {
    let currency = match (sheet.currency.as_deref(), form_currency.map(str::trim).filter(|c| !c.is_empty())) {
        (Some(stated), Some(given)) if !stated.eq_ignore_ascii_case(given) => {
            return Err(StatementSetError::Validation {
                field: "currency".into(),
                message: format!("the sheet states {stated} but the form says {given}"),
            });
        }
        (Some(stated), _) => stated.to_owned(),
        (None, Some(given)) => given.to_ascii_uppercase(),
        (None, None) => {
            return Err(StatementSetError::Validation {
                field: "currency".into(),
                message: "the sheet does not state its currency: send a currency part (USD, EUR, …)".into(),
            });
        }
    };
    let periods = sheet
        .periods
        .iter()
        .map(|period| {
            let column = period.values.first().map_or_else(String::new, |(_, _, cell)| {
                cell.cell.trim_end_matches(|c: char| c.is_ascii_digit()).to_owned()
            });
            UncheckedPeriod {
                label: format!("column {column} ({})", period.header),
                period_end: period.period_end,
                months: period.months,
                figures: period.values.iter().map(|(item, value, cell)| (*item, *value, cell.to_string())).collect(),
            }
        })
        .collect();
    check("file", &currency, sheet.unit, periods).map_err(|error| match error.missing {
        Some(missing) => {
            let mut unrecognised = sheet.unrecognised.clone();
            // Stable: the rows that look like the missing item first, each group in row order.
            unrecognised.sort_by_key(|row| row.not_used.as_ref().is_none_or(|n| n.resembles != missing));
            StatementSetError::MissingItem { field: error.field, message: error.message, unrecognised }
        }
        None => error.into(),
    })
}

/// The unread rows a set keeps: at most [`MAX_UNRECOGNISED_ROWS`], those that look like an item
/// (the likeliest to be a figure the analyst meant) before the others, listed in row order.
fn kept_unrecognised(rows: &[UnrecognisedRow]) -> Vec<serde_json::Value> {
    let mut kept: Vec<&UnrecognisedRow> = rows.iter().filter(|row| row.not_used.is_some()).collect();
    kept.extend(rows.iter().filter(|row| row.not_used.is_none()));
    kept.truncate(MAX_UNRECOGNISED_ROWS);
    kept.sort_by_key(|row| row.row);
    kept.into_iter().map(unrecognised_json).collect()
}

/// The assumptions a set keeps: at most [`MAX_ASSUMPTIONS`], the last saying how many more there were.
fn kept_assumptions(mut assumptions: Vec<String>) -> Vec<String> {
    if assumptions.len() > MAX_ASSUMPTIONS {
        let left_out = assumptions.len() - (MAX_ASSUMPTIONS - 1);
        assumptions.truncate(MAX_ASSUMPTIONS - 1);
        assumptions.push(format!("{left_out} more readings of this kind are not listed"));
    }
    assumptions
}

/// An unread row as the set keeps it: `{row, label}`, with `not_used_as` and `reason` when the
/// label looks like an item whose figure it is not.
fn unrecognised_json(row: &UnrecognisedRow) -> serde_json::Value {
    match &row.not_used {
        Some(not_used) => json!({
            "row": row.row,
            "label": row.label,
            "not_used_as": not_used.resembles.name(),
            "reason": not_used.reason,
        }),
        None => json!({ "row": row.row, "label": row.label }),
    }
}

/// Who the statements are of and which deal they belong to.
#[derive(Clone, Debug)]
pub struct SetSubject {
    pub borrower_name: String,
    pub deal_id: Option<i64>,
}

pub struct StatementSetService {
    sets: Arc<dyn StatementSetRepository>,
    clock: Arc<dyn Clock>,
    /// Each owner's storage limits, shared with their documents.
    quota: DocumentQuota,
}

impl StatementSetService {
    pub fn new(sets: Arc<dyn StatementSetRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { sets, clock, quota: DocumentQuota::UNLIMITED }
    }

    /// The same service holding each owner to `quota`.
    #[must_use]
    pub fn with_quota(mut self, quota: DocumentQuota) -> Self {
        self.quota = quota;
        self
    }

    /// Checks and stores a set typed as JSON.
    ///
    /// # Errors
    /// [`StatementSetError::Validation`] naming the period and field; nothing is stored then.
    pub async fn create_from_json(
        &self,
        caller: Principal,
        subject: SetSubject,
        financials: &FinancialsInput,
    ) -> Result<StatementSetRecord, StatementSetError> {
        let statements = check_input(financials)?;
        self.store(caller, subject, SetOrigin::json_body(), statements).await
    }

    /// Reads a spreadsheet's cells as statements, checks them as JSON is checked, and stores them
    /// with the rows read and not read. `currency` is the form's, for a sheet that does not say
    /// its own.
    ///
    /// # Errors
    /// [`StatementSetError::Unreadable`] for a layout that cannot be read;
    /// [`StatementSetError::MissingItem`] for a period without a required item;
    /// [`StatementSetError::Validation`] for figures that do not hold together or a currency
    /// missing or contradicted; nothing is stored then.
    pub async fn create_from_sheet(
        &self,
        caller: Principal,
        subject: SetSubject,
        upload: SheetUpload<'_>,
    ) -> Result<StatementSetRecord, StatementSetError> {
        let sheet =
            interpret(upload.grid, upload.file_name).map_err(|e| StatementSetError::Unreadable(e.to_string()))?;
        let statements = check_sheet(&sheet, upload.currency)?;
        let mut assumptions = sheet.assumptions.clone();
        if sheet.unit_source.is_none() {
            assumptions.push("no unit is stated (\"in thousands\", a units row): figures are read as units".into());
        }
        let origin = SetOrigin {
            format: upload.format.into(),
            file_name: Some(upload.file_name.to_owned()),
            recognised: sheet
                .recognised
                .iter()
                .map(|r| json!({ "row": r.row, "label": r.label, "item": r.item.name() }))
                .collect(),
            unrecognised: kept_unrecognised(&sheet.unrecognised).into(),
            unrecognised_count: Some(sheet.unrecognised.len() as u64),
            assumptions: kept_assumptions(assumptions),
        };
        self.store(caller, subject, origin, statements).await
    }

    /// Stores a set already checked (a spreadsheet read and checked by the caller of this use case).
    ///
    /// # Errors
    /// [`StatementSetError::Validation`] for the subject; [`StatementSetError::QuotaExceeded`]
    /// (nothing stored); [`StatementSetError::Store`].
    pub async fn store(
        &self,
        caller: Principal,
        subject: SetSubject,
        origin: SetOrigin,
        statements: StatementSet,
    ) -> Result<StatementSetRecord, StatementSetError> {
        let name = subject.borrower_name.trim();
        if name.is_empty() || name.chars().count() > 200 {
            return Err(StatementSetError::Validation {
                field: "borrower_name".into(),
                message: "must be 1-200 characters".into(),
            });
        }
        if subject.deal_id.is_some_and(|d| d < 1) {
            return Err(StatementSetError::Validation { field: "deal_id".into(), message: "must be positive".into() });
        }
        let record = StatementSetRecord {
            id: StatementSetId::new_random(),
            owner: caller.user_id,
            borrower_name: name.to_owned(),
            deal_id: subject.deal_id,
            origin,
            statements,
            created_at: self.clock.now(),
        };
        self.sets.create(record.clone(), self.quota).await.map_err(|error| match error {
            StatementSetWriteError::QuotaExceeded(exceeded) => StatementSetError::QuotaExceeded(exceeded),
            StatementSetWriteError::Store(error) => StatementSetError::Store(error),
        })?;
        Ok(record)
    }

    /// The newest set stored for `deal_id` that the caller may see.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot answer.
    pub async fn latest_for_deal(
        &self,
        caller: Principal,
        deal_id: i64,
    ) -> Result<Option<StatementSetRecord>, StoreError> {
        self.sets.latest_for_deal(deal_id, listed_owner(caller)).await
    }

    /// The set, when the caller may see it (its owner, administrators).
    ///
    /// # Errors
    /// [`StatementSetError::NotFound`] otherwise; [`StatementSetError::Store`].
    pub async fn get(&self, caller: Principal, id: StatementSetId) -> Result<StatementSetRecord, StatementSetError> {
        match self.sets.find(id).await? {
            Some(record) if caller.may_see_owned_by(record.owner) => Ok(record),
            _ => Err(StatementSetError::NotFound),
        }
    }

    /// Deletes the set, when the caller may see it (its owner, administrators): its entry stays in
    /// the audit trail and its owner's quota gets back what it took. Analyses that read it keep
    /// the periods they stored.
    ///
    /// # Errors
    /// [`StatementSetError::NotFound`] otherwise (also when someone deleted it meanwhile);
    /// [`StatementSetError::Store`].
    pub async fn delete(&self, caller: Principal, id: StatementSetId) -> Result<DeletionRecord, StatementSetError> {
        self.get(caller, id).await?;
        let deletion = Deletion { actor: caller.user_id, at: self.clock.now() };
        self.sets.delete(id, deletion).await?.ok_or(StatementSetError::NotFound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::statements::StatementItem;
    use crate::domain::statements::labels::NotUsed;

    fn unread(row: u32, looks_like_an_item: bool) -> UnrecognisedRow {
        UnrecognisedRow {
            row,
            label: format!("row {row}"),
            not_used: looks_like_an_item.then(|| NotUsed {
                resembles: StatementItem::InterestExpense,
                reason: "net of interest income".into(),
            }),
        }
    }

    #[test]
    fn a_set_keeps_at_most_two_hundred_unread_rows_those_like_an_item_first_in_row_order() {
        let rows: Vec<UnrecognisedRow> = (1..=250).map(|row| unread(row, row % 50 == 0)).collect();

        let kept = kept_unrecognised(&rows);

        assert_eq!(kept.len(), MAX_UNRECOGNISED_ROWS);
        let numbers: Vec<u64> = kept.iter().filter_map(|row| row["row"].as_u64()).collect();
        assert!(numbers.windows(2).all(|pair| pair[0] < pair[1]), "in row order: {numbers:?}");
        for like_an_item in [200, 250] {
            assert!(numbers.contains(&like_an_item), "row {like_an_item} looks like an item and is kept");
        }
        assert_eq!(kept.iter().filter(|row| row.get("not_used_as").is_some()).count(), 5);
    }

    #[test]
    fn a_set_keeps_at_most_two_hundred_assumptions_the_last_counting_the_rest() {
        let few: Vec<String> = (0..3).map(|i| format!("assumption {i}")).collect();
        assert_eq!(kept_assumptions(few.clone()), few);

        let many: Vec<String> = (0..250).map(|i| format!("assumption {i}")).collect();
        let kept = kept_assumptions(many);

        assert_eq!(kept.len(), MAX_ASSUMPTIONS);
        assert_eq!(kept[MAX_ASSUMPTIONS - 2], "assumption 198");
        assert_eq!(kept[MAX_ASSUMPTIONS - 1], "51 more readings of this kind are not listed");
    }
}
