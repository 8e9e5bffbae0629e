//! The covenant-test use cases: run a test of a deal's agreement against the borrower's statements,
//! and read stored tests back for their owner (and administrators).
//!
//! The agreement is the document named, or else the deal's most recently changed document whose
//! extraction states financial covenants; amendments linked to the same deal that restate a
//! covenant apply from their own dates. The statements are a stored set or a `financials` object,
//! tested at `period_end` or their latest period. Nothing is stored unless the whole test ran.

use std::sync::Arc;

use serde_json::{Value, json};
use time::Date;
use time::macros::format_description;
use uuid::Uuid;

use super::covenant_test::{self, AgreementCovenant, CovenantToTest, covenants_of};
use super::definitions;
use super::schedule::StatedLevel;
use super::stored::{CovenantTestId, CovenantTestRecord};
use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::documents::{CurrentAgreement, DocumentId};
use crate::domain::extraction::{Structure, normalise_label, parse_date};
use crate::domain::listing::listed_owner;
use crate::domain::statements::set::{FinancialsInput, StatementSet, check_input};
use crate::domain::statements::stored::StatementSetId;
use crate::ports::clock::Clock;
use crate::ports::covenant_tests::CovenantTestRepository;
use crate::ports::documents::DocumentRepository;
use crate::ports::statement_sets::StatementSetRepository;
use crate::ports::store::StoreError;

/// Most of a deal's documents read to find its agreement and amendments.
const DEAL_DOCUMENTS: u32 = 100;
/// Most stored tests listed per deal.
pub const LISTED_TESTS: u32 = 100;

#[derive(Debug, thiserror::Error)]
pub enum DealError {
    /// A request value is wrong; `field` names it.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// The agreement states no financial covenant to test.
    #[error("{0}")]
    NoCovenants(String),
    /// Something named that the caller may not see, or that does not exist: `what` says which.
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid(field: &str, message: impl Into<String>) -> DealError {
    DealError::Validation { field: field.to_owned(), message: message.into() }
}

/// A covenant test request, as the API takes it.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CovenantTestRequest {
    pub document_id: Option<i64>,
    pub statement_set_id: Option<String>,
    pub financials: Option<FinancialsInput>,
    pub period_end: Option<String>,
}

pub struct DealService {
    documents: Arc<dyn DocumentRepository>,
    statement_sets: Arc<dyn StatementSetRepository>,
    tests: Arc<dyn CovenantTestRepository>,
    clock: Arc<dyn Clock>,
}

impl DealService {
    pub fn new(
        documents: Arc<dyn DocumentRepository>,
        statement_sets: Arc<dyn StatementSetRepository>,
        tests: Arc<dyn CovenantTestRepository>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { documents, statement_sets, tests, clock }
    }

    /// Runs and stores a covenant test of deal `deal_id`.
    ///
    /// # Errors
    /// [`DealError::Validation`] (no statements, both kinds, a bad date, a document of another
    /// deal), [`DealError::NotFound`] (a document or set the caller may not see),
    /// [`DealError::NoCovenants`], [`DealError::Store`]; nothing is stored on any error.
    pub async fn run_test(
        &self,
        caller: Principal,
        deal_id: i64,
        request: CovenantTestRequest,
        request_id: &str,
    ) -> Result<CovenantTestRecord, DealError> {
        if deal_id <= 0 {
            return Err(invalid("deal_id", "must be a positive integer"));
        }
        let period_end = request
            .period_end
            .as_deref()
            .map(|raw| {
                Date::parse(raw.trim(), format_description!("[year]-[month]-[day]"))
                    .map_err(|_| invalid("period_end", "must be a date YYYY-MM-DD"))
            })
            .transpose()?;
        let (statements, statement_set_id) = self.statements(caller, &request).await?;
        let period_end = match period_end {
            Some(date) => date,
            None => statements
                .periods
                .first()
                .map(|p| p.period_end)
                .ok_or_else(|| invalid("financials.periods", "must hold at least one period"))?,
        };
        let document_id = request
            .document_id
            .map(|id| DocumentId::new(id).ok_or_else(|| invalid("document_id", "must be a positive integer")))
            .transpose()?;
        let owner = listed_owner(caller);
        let deal_documents = self.documents.current_agreements(deal_id, owner, DEAL_DOCUMENTS).await?;
        let agreement = match document_id {
            Some(id) => {
                let document = self
                    .documents
                    .find(id)
                    .await?
                    .filter(|d| caller.may_see_owned_by(d.owner))
                    .ok_or(DealError::NotFound("document"))?;
                if document.deal_id != Some(deal_id) {
                    return Err(invalid(
                        "document_id",
                        format!("document {} is not linked to deal {deal_id}", id.get()),
                    ));
                }
                let version = document.current_version().ok_or(DealError::NotFound("document"))?;
                Agreement {
                    id,
                    title: document.title.clone(),
                    version: version.version,
                    agreement: version.extraction.agreement.clone(),
                    text: version.text.clone(),
                }
            }
            None => {
                let current = deal_documents
                    .iter()
                    .find(|d| d.agreement.get("amendment").is_none() && !covenants_of(&d.agreement).is_empty())
                    .ok_or_else(|| {
                        DealError::NoCovenants(format!(
                            "no document of deal {deal_id} that you may see states financial covenants"
                        ))
                    })?;
                let document = self.documents.find(current.id).await?.ok_or(DealError::NotFound("document"))?;
                let version = document.current_version().ok_or(DealError::NotFound("document"))?;
                Agreement {
                    id: current.id,
                    title: document.title.clone(),
                    version: version.version,
                    agreement: version.extraction.agreement.clone(),
                    text: version.text.clone(),
                }
            }
        };
        let covenants = covenants_of(&agreement.agreement);
        if covenants.is_empty() {
            return Err(DealError::NoCovenants(format!(
                "document {} (\"{}\") states no financial covenants to test",
                agreement.id.get(),
                agreement.title
            )));
        }
        let structure = Structure::scan(&agreement.text);
        let amendments = amendments_of(&deal_documents, agreement.id, &agreement.agreement);
        let to_test: Vec<CovenantToTest> = covenants
            .into_iter()
            .map(|covenant| {
                let definition = definitions::read(&agreement.text, &structure, &covenant.name);
                let restated = restated_levels(&amendments, &covenant);
                CovenantToTest { covenant, definition, restated }
            })
            .collect();
        let outcome = covenant_test::run(&to_test, &statements, period_end);
        let id = CovenantTestId::new_random();
        let now = self.clock.now();
        let step = ObservationStep::new(
            EventKind::CovenantTestCompleted,
            WorkflowStatus::Accepted,
            format!(
                "Covenants of document {} tested for the period ending {period_end}: {} pass, {} breach, {} not testable",
                agreement.id.get(),
                outcome.summary.pass,
                outcome.summary.breach,
                outcome.summary.not_testable
            ),
        )
        .item("covenantTestId", id)
        .item("dealId", deal_id)
        .item("documentId", agreement.id.get())
        .item("documentVersion", agreement.version)
        .item("periodEnd", period_end)
        .item("compliance", outcome.summary.compliance);
        let events: Vec<Value> = EventContext::new(Uuid::new_v4(), now, request_id)
            .ok()
            .map(|context| cdm::observation_step(&context, &step))
            .into_iter()
            .collect();
        let body = json!({
            "status": "success",
            "test_id": id.to_string(),
            "deal_id": deal_id,
            "document_id": agreement.id.get(),
            "document_title": agreement.title,
            "document_version": agreement.version,
            "statement_set_id": statement_set_id.map(|s| s.to_string()),
            "period_end": period_end.to_string(),
            "test_period": outcome.test_period,
            "currency": outcome.currency,
            "amendments_applied": amendments.iter().map(|a| json!({"document_id": a.id.get(), "from": a.from.to_string()})).collect::<Vec<_>>(),
            "covenants": outcome.covenants,
            "summary": outcome.summary,
            "findings": outcome.findings,
            "created_at": now.format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
            "cdm_events": events,
        });
        let record = CovenantTestRecord {
            id,
            owner: caller.user_id,
            deal_id,
            document_id: agreement.id,
            document_version: agreement.version,
            statement_set_id,
            period_end,
            compliance: outcome.summary.compliance.to_owned(),
            created_at: now,
            body,
        };
        self.tests.create(record.clone()).await?;
        Ok(record)
    }

    /// The stored test, if the caller may see it and it belongs to `deal_id`.
    ///
    /// # Errors
    /// [`DealError::NotFound`] otherwise; [`DealError::Store`].
    pub async fn get_test(
        &self,
        caller: Principal,
        deal_id: i64,
        id: CovenantTestId,
    ) -> Result<CovenantTestRecord, DealError> {
        self.tests
            .find(id)
            .await?
            .filter(|t| t.deal_id == deal_id && caller.may_see_owned_by(t.owner))
            .ok_or(DealError::NotFound("covenant test"))
    }

    /// The deal's stored tests the caller may see, newest first, with their count.
    ///
    /// # Errors
    /// [`DealError::Store`].
    pub async fn list_tests(
        &self,
        caller: Principal,
        deal_id: i64,
    ) -> Result<(Vec<CovenantTestRecord>, u64), DealError> {
        Ok(self.tests.list_for_deal(deal_id, listed_owner(caller), LISTED_TESTS).await?)
    }

    async fn statements(
        &self,
        caller: Principal,
        request: &CovenantTestRequest,
    ) -> Result<(StatementSet, Option<StatementSetId>), DealError> {
        match (&request.statement_set_id, &request.financials) {
            (Some(_), Some(_)) => Err(invalid("financials", "give statement_set_id or financials, not both")),
            (None, None) => {
                Err(invalid("statement_set_id", "give statement_set_id (a stored statement set) or financials"))
            }
            (Some(raw), None) => {
                let id: StatementSetId =
                    raw.trim().parse().map_err(|_| invalid("statement_set_id", "must be a statement set id (UUID)"))?;
                let record = self
                    .statement_sets
                    .find(id)
                    .await?
                    .filter(|s| caller.may_see_owned_by(s.owner))
                    .ok_or(DealError::NotFound("statement set"))?;
                Ok((record.statements, Some(id)))
            }
            (None, Some(financials)) => {
                let set = check_input(financials).map_err(|e| invalid(&e.field, e.message))?;
                Ok((set, None))
            }
        }
    }
}

struct Agreement {
    id: DocumentId,
    title: String,
    version: i32,
    agreement: Value,
    text: String,
}

/// An amendment of the deal's agreement, from the date it takes effect.
struct AmendmentInForce {
    id: DocumentId,
    from: Date,
    covenants: Vec<AgreementCovenant>,
}

/// The deal's amendments that restate covenants, dated after the agreement, oldest first.
fn amendments_of(
    deal_documents: &[CurrentAgreement],
    agreement_id: DocumentId,
    agreement: &Value,
) -> Vec<AmendmentInForce> {
    let date_of = |a: &Value, key: &str| a[key].as_str().and_then(parse_date);
    let signed = date_of(agreement, "agreementDate");
    let mut amendments: Vec<AmendmentInForce> = deal_documents
        .iter()
        .filter(|d| d.id != agreement_id && d.agreement.get("amendment").is_some())
        .filter_map(|d| {
            let from = date_of(&d.agreement, "effectiveDate").or_else(|| date_of(&d.agreement, "agreementDate"))?;
            let covenants = covenants_of(&d.agreement);
            (signed.is_none_or(|s| from > s) && !covenants.is_empty()).then_some(AmendmentInForce {
                id: d.id,
                from,
                covenants,
            })
        })
        .collect();
    amendments.sort_by_key(|a| a.from);
    amendments
}

/// The levels amendments restate for `covenant`: the amendment's covenant of the same type and name
/// (or the same type, when the amendment states only one of it).
fn restated_levels(amendments: &[AmendmentInForce], covenant: &AgreementCovenant) -> Vec<(Date, Vec<StatedLevel>)> {
    let name = normalise_label(&covenant.name);
    amendments
        .iter()
        .filter_map(|amendment| {
            let same_type: Vec<&AgreementCovenant> =
                amendment.covenants.iter().filter(|c| c.covenant_type == covenant.covenant_type).collect();
            let restated = same_type
                .iter()
                .find(|c| normalise_label(&c.name) == name)
                .or_else(|| if same_type.len() == 1 { same_type.first() } else { None })?;
            Some((amendment.from, restated.levels.clone()))
        })
        .collect()
}
