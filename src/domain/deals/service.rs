//! The covenant-test use cases: run a test of a deal's agreement against the borrower's statements,
//! and read stored tests back for their owner (and administrators).
//!
//! The agreement is the document named, or else the deal's most recently changed document whose
//! extraction states financial covenants; amendments linked to the same deal that restate a
//! covenant apply from their own dates. The statements are a stored set or a `financials` object,
//! tested at `period_end` or their latest period. Nothing is stored unless the whole test ran.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use super::covenant_test::{self, AgreementCovenant, CovenantToTest, covenants_of};
use super::definitions::{self, RatioDefinition};
use super::schedule::StatedLevel;
use super::stored::{CovenantTestId, CovenantTestRecord};
use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::chat::sessions::SessionQuery;
use crate::domain::documents::DocumentQuery;
use crate::domain::documents::{CurrentAgreement, DocumentId};
use crate::domain::extraction::{Structure, normalise_label, parse_date};
use crate::domain::listing::RunQuery;
use crate::domain::listing::listed_owner;
use crate::domain::statements::set::{FinancialsInput, StatementSet, check_input};
use crate::domain::statements::stored::StatementSetId;
use crate::ports::analyses::AnalysisRepository;
use crate::ports::clock::Clock;
use crate::ports::conversations::ConversationRepository;
use crate::ports::covenant_tests::CovenantTestRepository;
use crate::ports::documents::DocumentRepository;
use crate::ports::people::PeopleRepository;
use crate::ports::research::ResearchRepository;
use crate::ports::statement_sets::StatementSetRepository;
use crate::ports::store::StoreError;

/// Most of a deal's documents read to find its agreement and amendments.
const DEAL_DOCUMENTS: u32 = 100;
/// Most stored tests listed per deal.
pub const LISTED_TESTS: u32 = 100;
/// Most records of each kind a deal's workspace lists.
pub const WORKSPACE_ITEMS: u32 = 100;

#[derive(Debug, thiserror::Error)]
pub enum DealError {
    /// A request value is wrong; `field` names it.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// The agreement states no financial covenant to test.
    #[error("{0}")]
    NoCovenants(String),
    /// The deal has no statement set the caller may use (a test asked for without naming one).
    #[error("no statement set is stored for the deal")]
    NoStatements,
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

/// Every store a deal's records live in.
pub struct DealStores {
    pub documents: Arc<dyn DocumentRepository>,
    pub statement_sets: Arc<dyn StatementSetRepository>,
    pub covenant_tests: Arc<dyn CovenantTestRepository>,
    pub analyses: Arc<dyn AnalysisRepository>,
    pub research: Arc<dyn ResearchRepository>,
    pub people: Arc<dyn PeopleRepository>,
    pub conversations: Arc<dyn ConversationRepository>,
}

pub struct DealService {
    documents: Arc<dyn DocumentRepository>,
    statement_sets: Arc<dyn StatementSetRepository>,
    tests: Arc<dyn CovenantTestRepository>,
    analyses: Arc<dyn AnalysisRepository>,
    research: Arc<dyn ResearchRepository>,
    people: Arc<dyn PeopleRepository>,
    conversations: Arc<dyn ConversationRepository>,
    clock: Arc<dyn Clock>,
    /// Definitions read per agreement version ([`Self::definitions`]).
    definitions: Mutex<HashMap<(DocumentId, i32), Definitions>>,
}

impl DealService {
    pub fn new(stores: DealStores, clock: Arc<dyn Clock>) -> Self {
        Self {
            documents: stores.documents,
            statement_sets: stores.statement_sets,
            tests: stores.covenant_tests,
            analyses: stores.analyses,
            research: stores.research,
            people: stores.people,
            conversations: stores.conversations,
            clock,
            definitions: Mutex::new(HashMap::new()),
        }
    }

    /// Everything linked to the deal that the caller may see: per kind, the latest
    /// [`WORKSPACE_ITEMS`] with their id, kind, status and `created_at`, and how many there are.
    ///
    /// # Errors
    /// [`DealError::NotFound`] when the caller may see nothing linked to the deal;
    /// [`DealError::Store`].
    pub async fn workspace(&self, caller: Principal, deal_id: i64) -> Result<Value, DealError> {
        if deal_id <= 0 {
            return Err(invalid("deal_id", "must be a positive integer"));
        }
        let owner = listed_owner(caller);
        let runs = RunQuery { owner, deal_id: Some(deal_id), page: 1, limit: WORKSPACE_ITEMS };
        // The seven listings are independent: read them at once, not one after another.
        let document_query =
            DocumentQuery { owner, search: None, deal_id: Some(deal_id), page: 1, limit: WORKSPACE_ITEMS };
        let session_query = SessionQuery { owner, deal_id: Some(deal_id), page: 1, limit: WORKSPACE_ITEMS };
        let (documents, analyses, research, people, sets, tests, sessions) = futures_util::join!(
            self.documents.list(&document_query),
            self.analyses.list(&runs),
            self.research.list(&runs),
            self.people.list(&runs),
            self.statement_sets.list_for_deal(deal_id, owner, WORKSPACE_ITEMS),
            self.tests.list_for_deal(deal_id, owner, WORKSPACE_ITEMS),
            self.conversations.list(&session_query),
        );
        let documents = documents?;
        let (analyses, analyses_total) = analyses?;
        let (research, research_total) = research?;
        let (people, people_total) = people?;
        let (sets, sets_total) = sets?;
        let (tests, tests_total) = tests?;
        let (sessions, sessions_total) = sessions?;
        let everything = documents.total
            + analyses_total
            + research_total
            + people_total
            + sets_total
            + tests_total
            + sessions_total;
        if everything == 0 {
            return Err(DealError::NotFound("deal"));
        }
        let at = |t: OffsetDateTime| t.format(&Rfc3339).unwrap_or_default();
        let kind = |total: u64, items: Vec<Value>| json!({ "total": total, "items": items });
        Ok(json!({
            "status": "success",
            "deal_id": deal_id,
            "documents": kind(documents.total, documents.documents.iter().map(|d| json!({
                "id": d.id.get(),
                "kind": "document",
                "status": d.state.as_str(),
                "created_at": at(d.created_at),
                "updated_at": at(d.updated_at),
                "title": d.title,
                "borrower": d.summary.borrower,
                "agreement_date": d.summary.agreement_date.map(|date| date.to_string()),
                "total_commitment": d.summary.total_commitment.as_ref().map(|m| json!({"amount": m.amount.to_string(), "currency": m.currency})),
                "current_version": d.current_version,
                "review_state": d.state.as_str(),
            })).collect()),
            "analyses": kind(analyses_total, analyses.iter().map(|a| json!({
                "id": a.id.to_string(),
                "kind": a.kind.as_str(),
                "status": a.status.as_str(),
                "created_at": at(a.created_at),
            })).collect()),
            "research": kind(research_total, research.iter().map(|r| json!({
                "id": r.id.to_string(),
                "kind": "research",
                "status": r.status.as_str(),
                "created_at": at(r.created_at),
                "query": r.query,
            })).collect()),
            "people": kind(people_total, people.iter().map(|p| json!({
                "id": p.id.to_string(),
                "kind": "people",
                "status": p.result.get("status").cloned().unwrap_or_else(|| json!("completed")),
                "created_at": at(p.created_at),
                "person_name": p.person_name,
            })).collect()),
            "statement_sets": kind(sets_total, sets.iter().map(|s| json!({
                "id": s.id.to_string(),
                "kind": "statement_set",
                "status": "stored",
                "created_at": at(s.created_at),
                "borrower_name": s.borrower_name,
                "currency": s.statements.currency,
                "latest_period_end": s.statements.periods.first().map(|p| p.period_end.to_string()),
            })).collect()),
            "covenant_tests": kind(tests_total, tests.iter().map(|t| json!({
                "id": t.id.to_string(),
                "kind": "covenant_test",
                "status": t.compliance,
                "created_at": at(t.created_at),
                "document_id": t.document_id.get(),
                "period_end": t.period_end.to_string(),
            })).collect()),
            "chat_sessions": kind(sessions_total, sessions.iter().map(|s| json!({
                "id": s.id,
                "kind": "chat_session",
                "status": "open",
                "created_at": at(s.created_at),
                "updated_at": at(s.updated_at),
                "title": s.title(),
                "message_count": s.message_count,
            })).collect()),
        }))
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
        let current = match document_id {
            // A document of the deal that the caller may see is in the deal's listing; any other is
            // unknown to the caller (404) or of another deal (400).
            Some(id) => match deal_documents.iter().find(|d| d.id == id) {
                Some(current) => current,
                None => {
                    let document = self
                        .documents
                        .find(id)
                        .await?
                        .filter(|d| caller.may_see_owned_by(d.owner))
                        .ok_or(DealError::NotFound("document"))?;
                    return Err(invalid(
                        "document_id",
                        match document.deal_id {
                            Some(other) if other != deal_id => {
                                format!("document {} is linked to deal {other}, not to deal {deal_id}", id.get())
                            }
                            _ => format!("document {} is not linked to deal {deal_id}", id.get()),
                        },
                    ));
                }
            },
            None => deal_documents
                .iter()
                .find(|d| d.agreement.get("amendment").is_none() && !covenants_of(&d.agreement).is_empty())
                .ok_or_else(|| {
                    DealError::NoCovenants(format!(
                        "no document of deal {deal_id} that you may see states financial covenants"
                    ))
                })?,
        };
        let covenants = covenants_of(&current.agreement);
        if covenants.is_empty() {
            return Err(DealError::NoCovenants(format!(
                "document {} (\"{}\") states no financial covenants to test",
                current.id.get(),
                current.title
            )));
        }
        let definitions = self.definitions(current, &covenants).await?;
        let amendments = amendments_of(&deal_documents, current.id, &current.agreement);
        let to_test: Vec<CovenantToTest> = covenants
            .into_iter()
            .map(|covenant| {
                let definition = definitions.get(&covenant.name).cloned().unwrap_or_default();
                let restated = restated_levels(&amendments, &covenant);
                CovenantToTest { covenant, definition, restated }
            })
            .collect();
        let agreement = Agreement { id: current.id, title: current.title.clone(), version: current.version };
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

    /// The latest stored test of the deal that the caller may see.
    ///
    /// # Errors
    /// [`DealError::Store`].
    pub async fn latest_test(&self, caller: Principal, deal_id: i64) -> Result<Option<CovenantTestRecord>, DealError> {
        Ok(self.tests.list_for_deal(deal_id, listed_owner(caller), 1).await?.0.into_iter().next())
    }

    /// Runs a test of the deal on the newest statement set stored for it that the caller may use.
    ///
    /// # Errors
    /// [`DealError::NoStatements`] when the deal has none; else as [`Self::run_test`].
    pub async fn test_with_newest_statements(
        &self,
        caller: Principal,
        deal_id: i64,
        request_id: &str,
    ) -> Result<CovenantTestRecord, DealError> {
        let set =
            self.statement_sets.latest_for_deal(deal_id, listed_owner(caller)).await?.ok_or(DealError::NoStatements)?;
        let request = CovenantTestRequest {
            document_id: None,
            statement_set_id: Some(set.id.to_string()),
            financials: None,
            period_end: None,
        };
        self.run_test(caller, deal_id, request, request_id).await
    }

    /// The deals of the caller's documents that name `borrower` (title, parties or text), most
    /// recently changed first, each once.
    ///
    /// # Errors
    /// [`DealError::Store`].
    pub async fn deals_of_borrower(&self, caller: Principal, borrower: &str) -> Result<Vec<i64>, DealError> {
        let query = DocumentQuery {
            owner: listed_owner(caller),
            search: Some(borrower.to_owned()),
            deal_id: None,
            page: 1,
            limit: 20,
        };
        let mut deals = Vec::new();
        for document in self.documents.list(&query).await?.documents {
            if let Some(deal) = document.deal_id.filter(|d| !deals.contains(d)) {
                deals.push(deal);
            }
        }
        Ok(deals)
    }

    /// How the agreement defines each covenant: read from the version's text once, then kept
    /// (a version's text never changes), so a test reads the text only the first time.
    async fn definitions(
        &self,
        current: &CurrentAgreement,
        covenants: &[AgreementCovenant],
    ) -> Result<Definitions, DealError> {
        let key = (current.id, current.version);
        if let Some(found) = self.cached_definitions().get(&key) {
            return Ok(found.clone());
        }
        let document = self.documents.find(current.id).await?.ok_or(DealError::NotFound("document"))?;
        let text = document
            .versions
            .iter()
            .find(|v| v.version == current.version)
            .map(|v| v.text.as_str())
            .ok_or(DealError::NotFound("document"))?;
        let structure = Structure::scan(text);
        let read: Definitions = Arc::new(
            covenants
                .iter()
                .map(|c| {
                    let definition = if c.on_amounts() {
                        definitions::read_amount(text, &structure, &c.name)
                    } else {
                        definitions::read(text, &structure, &c.name)
                    };
                    (c.name.clone(), definition)
                })
                .collect(),
        );
        let mut cache = self.cached_definitions();
        if cache.len() >= CACHED_VERSIONS {
            cache.clear();
        }
        cache.insert(key, read.clone());
        Ok(read)
    }

    fn cached_definitions(&self) -> std::sync::MutexGuard<'_, HashMap<(DocumentId, i32), Definitions>> {
        // Entries are inserted whole, so a poisoned lock still holds consistent data.
        self.definitions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
}

/// The definitions of each covenant of one version of an agreement, by the covenant's name.
type Definitions = Arc<HashMap<String, RatioDefinition>>;

/// Most agreement versions whose definitions are kept; beyond it the cache starts again.
const CACHED_VERSIONS: usize = 256;

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
