//! The statement-set use cases: store a borrower's checked statements (from JSON or a read
//! spreadsheet), and read one back for its owner (and administrators).

use std::sync::Arc;

use super::set::{FinancialsInput, StatementError, StatementSet, check_input};
use super::stored::{SetOrigin, StatementSetId, StatementSetRecord};
use crate::domain::auth::Principal;
use crate::ports::clock::Clock;
use crate::ports::statement_sets::StatementSetRepository;
use crate::ports::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum StatementSetError {
    /// A request value is wrong; `field` names it.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// No set with this id that the caller may see.
    #[error("statement set not found")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<StatementError> for StatementSetError {
    fn from(error: StatementError) -> Self {
        StatementSetError::Validation { field: error.field, message: error.message }
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
}

impl StatementSetService {
    pub fn new(sets: Arc<dyn StatementSetRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { sets, clock }
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

    /// Stores a set already checked (a spreadsheet read and checked by the caller of this use case).
    ///
    /// # Errors
    /// [`StatementSetError::Validation`] for the subject; [`StatementSetError::Store`].
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
        self.sets.create(record.clone()).await?;
        Ok(record)
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
}
