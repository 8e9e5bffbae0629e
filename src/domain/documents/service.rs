//! The document use cases: extracting an agreement from text, storing documents and their
//! versions, moving their review, and reading them back — each returning the CDM events that
//! record what happened. Extraction itself is CPU work on the caller's text ([`analyse_text`]); the
//! HTTP adapter runs it off the async workers and hands the result in.

use std::sync::Arc;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use uuid::Uuid;

use super::amends::{self, AmendedAgreement};
use super::archive::FilingArchive;
use super::deletion::{Deletion, DeletionRecord};
use super::error::DocumentError;
use super::quota::DocumentQuota;
use super::upload::{OriginalFile, OriginalInfo, SourceFile, TextSource, read_upload};
use super::{
    AgreementSummary, Document, DocumentId, DocumentPage, DocumentQuery, ExtractionRecord, Money, ReviewAction,
    ReviewEvent, ReviewState, TransitionError,
};
use crate::domain::auth::Principal;
use crate::domain::cdm::{
    self, CdmAmount, CdmFacility, CdmParty, CdmTenor, ContractFormation, EventContext, EventKind, ObservationStep,
    TenorUnit, WorkflowStatus,
};
use crate::domain::extraction::llm_proposals::{
    chunk_by_sections, locate_quote, proposal_schema, proposals_from_answer, review_proposals_in,
};
use crate::domain::extraction::{
    CreditAgreement, Extraction, ExtractionStatus, Facility, Party, PartyRole, PeriodUnit, extract_credit_agreement,
};
use crate::domain::intake::{MediaType, PageMap, ReadError};
use crate::domain::listing::{RunQuery, check_page, listed_owner};
use crate::domain::quant::runs::AnalysisRecord;
use crate::ports::analyses::AnalysisRepository;
use crate::ports::clock::Clock;
use crate::ports::documents::{DocumentRepository, NewDocument, NewVersion};
use crate::ports::llm::{ChatMessage, ChatRequest, LanguageModel, ResponseSchema};
use crate::ports::page_fetch::{FetchError, FileFetcher};
use crate::ports::reader::DocumentReader;

/// Longest accepted document title, in characters.
pub const MAX_TITLE_CHARS: usize = 500;
/// Most linked workflow runs shown with a document, per kind.
pub const LINKED_RUNS_LIMIT: u32 = 50;
/// Longest accepted review comment, in characters.
pub const MAX_COMMENT_CHARS: usize = 2_000;

/// A text with what extraction found in it.
#[derive(Clone, Debug)]
pub struct AnalysedText {
    pub text: String,
    pub text_sha256: String,
    extraction: Extraction,
    assistance: LlmAssistance,
    /// The uploaded file the text was read from; `None` for text sent as text.
    source: Option<TextSource>,
}

impl AnalysedText {
    /// What is stored and returned: the agreement, and the report with provenance and LLM use.
    pub fn record(&self) -> ExtractionRecord {
        let mut record = extraction_record(&self.extraction);
        if let Some(report) = record.report.as_object_mut() {
            report.insert("llm".to_owned(), self.assistance.report());
        }
        if let Some(source) = &self.source {
            source.annotate(&mut record.agreement, &mut record.report);
        }
        record
    }

    /// The CDM contract-formation input, when the text is a credit agreement with a borrower.
    fn contract_formation(&self) -> Option<ContractFormation> {
        (self.extraction.status != ExtractionStatus::IrrelevantDocument)
            .then(|| contract_formation(&self.extraction.agreement))
            .flatten()
    }
}

/// Whether, and how, a language model helped with the fields the rules missed.
#[derive(Clone, Debug, Default)]
enum LlmAssistance {
    /// No `LLM_BASE_URL`: the rules alone.
    #[default]
    NotConfigured,
    /// Nothing a model may propose is missing (or the text is not an agreement).
    NotNeeded,
    Used {
        model: String,
        fields_asked: Vec<String>,
        chunks_read: usize,
        adopted: Vec<Value>,
        dropped: Vec<Value>,
        errors: Vec<String>,
        tokens: u64,
    },
}

impl LlmAssistance {
    fn report(&self) -> Value {
        match self {
            LlmAssistance::NotConfigured => {
                json!({ "used": false, "reason": "no language model is configured (LLM_BASE_URL): deterministic rules only" })
            }
            LlmAssistance::NotNeeded => {
                json!({ "used": false, "reason": "the rules found every field a language model may propose" })
            }
            LlmAssistance::Used { model, fields_asked, chunks_read, adopted, dropped, errors, tokens } => json!({
                "used": true,
                "model": model,
                "fields_asked": fields_asked,
                "chunks_read": chunks_read,
                "adopted": adopted,
                "dropped": dropped,
                "errors": errors,
                "total_tokens": tokens,
            }),
        }
    }
}

/// Validates `text` (not blank, at most `max_bytes`) and extracts the agreement from it.
///
/// # Errors
/// [`DocumentError::Validation`] for blank text, [`DocumentError::TooLarge`] beyond `max_bytes`.
pub fn analyse_text(text: String, max_bytes: usize) -> Result<AnalysedText, DocumentError> {
    if text.len() > max_bytes {
        return Err(DocumentError::TooLarge { actual: text.len(), max: max_bytes });
    }
    if text.trim().is_empty() {
        return Err(DocumentError::Validation { field: "text", message: "must not be empty".into() });
    }
    let extraction = extract_credit_agreement(&text);
    let text_sha256 = hex::encode(Sha256::digest(text.as_bytes()));
    Ok(AnalysedText { text, text_sha256, extraction, assistance: LlmAssistance::NotConfigured, source: None })
}

/// [`analyse_text`] on the text read from an uploaded file, keeping the file and its pages.
///
/// # Errors
/// As [`analyse_text`].
pub fn analyse_source(source: SourceFile, max_bytes: usize) -> Result<AnalysedText, DocumentError> {
    let SourceFile { original, read } = source;
    let mut analysed = analyse_text(read.text, max_bytes)?;
    analysed.source = Some(TextSource { original, pages: read.pages, pages_without_text: read.pages_without_text });
    Ok(analysed)
}

/// Chunks sent to a language model: about 4,000 tokens of agreement text each.
const LLM_CHUNK_BYTES: usize = 16 * 1024;

const PROPOSAL_INSTRUCTIONS: &str = "You read an excerpt of a credit agreement. For each requested field, give \
    the value exactly as it is written in the excerpt and, as the quote, the exact words of the excerpt that state \
    it, copied character for character. Answer null for a field the excerpt does not state. Never infer, convert, \
    translate or compute a value.";

/// Asks `llm` for the fields the rules missed, chunk by chunk at section boundaries, and adopts
/// only values whose quote is found in the text and that normalise; the rest is reported.
async fn propose_missing_fields(llm: &dyn LanguageModel, analysed: &mut AnalysedText) -> LlmAssistance {
    let mut remaining = analysed.extraction.assistable_missing_fields();
    if analysed.extraction.status == ExtractionStatus::IrrelevantDocument || remaining.is_empty() {
        return LlmAssistance::NotNeeded;
    }
    let fields_asked = remaining.iter().map(|f| (*f).to_owned()).collect();
    let (mut adopted, mut dropped, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    let (mut chunks_read, mut tokens) = (0, 0u64);
    for chunk in chunk_by_sections(&analysed.text, LLM_CHUNK_BYTES) {
        if remaining.is_empty() {
            break;
        }
        let excerpt = &analysed.text[chunk.clone()];
        let request = ChatRequest::new(vec![
            ChatMessage::system(PROPOSAL_INSTRUCTIONS),
            ChatMessage::user(format!("Fields: {}\n\nExcerpt:\n{excerpt}", remaining.join(", "))),
        ])
        .with_response_schema(ResponseSchema::new("credit_agreement_fields", proposal_schema(&remaining)))
        .with_temperature(0.0);
        let response = match llm.complete(request).await {
            Ok(response) => response,
            Err(error) => {
                // An unreachable or failing model ends the assistance; the rules' result stands.
                errors.push(error.to_string());
                break;
            }
        };
        chunks_read += 1;
        tokens += u64::from(response.usage.total_tokens);
        let proposals = match response.json_content() {
            Ok(answer) => proposals_from_answer(&answer).map_err(|e| e.to_string()),
            Err(error) => Err(error.to_string()),
        };
        let proposals = match proposals {
            Ok(proposals) => proposals,
            Err(error) => {
                errors.push(format!("unusable answer for bytes {}..{}: {error}", chunk.start, chunk.end));
                continue;
            }
        };
        let review = review_proposals_in(&analysed.text, chunk, proposals);
        for rejected in review.rejected {
            dropped.push(
                json!({ "field": rejected.field, "value": rejected.value, "reason": rejected.reason.to_string() }),
            );
        }
        for accepted in review.accepted {
            // The value's own words inside the located quote, so provenance points at the value.
            let span = locate_quote(&accepted.quote, &accepted.value)
                .map_or(accepted.span(), |inner| accepted.start + inner.start..accepted.start + inner.end);
            match analysed.extraction.adopt(&analysed.text, &accepted.field, span.clone()) {
                Ok(()) => {
                    remaining.retain(|field| *field != accepted.field);
                    adopted.push(json!({
                        "field": accepted.field,
                        "start": span.start,
                        "end": span.end,
                        "quote": &analysed.text[span],
                    }));
                }
                Err(reason) => dropped.push(json!({
                    "field": accepted.field,
                    "value": accepted.value,
                    "reason": reason.to_string(),
                })),
            }
        }
    }
    LlmAssistance::Used { model: llm.model().to_owned(), fields_asked, chunks_read, adopted, dropped, errors, tokens }
}

fn status_name(status: ExtractionStatus) -> &'static str {
    match status {
        ExtractionStatus::Success => "success",
        ExtractionStatus::PartialDataMissing => "partial_data_missing",
        ExtractionStatus::IrrelevantDocument => "irrelevant_document",
    }
}

fn extraction_record(extraction: &Extraction) -> ExtractionRecord {
    let agreement = serde_json::to_value(&extraction.agreement).unwrap_or_else(|_| json!({}));
    let report = json!({
        "status": status_name(extraction.status),
        "missing_fields": extraction.missing_fields,
        "warnings": extraction.warnings,
        "provenance": extraction.agreement.provenance(),
    });
    ExtractionRecord {
        status: status_name(extraction.status).to_owned(),
        agreement,
        report,
        summary: summarise(&extraction.agreement),
    }
}

fn has_role(party: &Party, role: PartyRole) -> bool {
    party.roles.iter().any(|r| *r.value() == role)
}

fn summarise(agreement: &CreditAgreement) -> AgreementSummary {
    let commitments: Vec<Money> = agreement
        .facilities
        .iter()
        .filter_map(|f| f.commitment.as_ref())
        .map(|c| Money { amount: c.value().value, currency: c.value().currency.as_str().to_owned() })
        .collect();
    // Amounts in different currencies are not added up.
    let total_commitment = commitments.first().and_then(|first| {
        commitments
            .iter()
            .all(|m| m.currency == first.currency)
            .then(|| Money { amount: commitments.iter().map(|m| m.amount).sum(), currency: first.currency.clone() })
    });
    AgreementSummary {
        borrower: agreement.parties.iter().find(|p| has_role(p, PartyRole::Borrower)).map(|p| p.name.value().clone()),
        total_commitment,
        governing_law: agreement.legal_agreement_identification.governing_law.as_ref().map(|l| l.value().to_string()),
        agreement_date: agreement.agreement_date.as_ref().map(|d| *d.value()),
        parties: agreement.parties.iter().map(|p| p.name.value().clone()).collect(),
    }
}

fn cdm_party(party: &Party) -> CdmParty {
    CdmParty { name: party.name.value().clone(), lei: party.party_id.as_ref().map(|lei| lei.value().to_string()) }
}

fn cdm_facility(facility: &Facility) -> CdmFacility {
    CdmFacility {
        name: facility.name.as_ref().map(|name| name.value().clone()).unwrap_or_default(),
        commitment: facility
            .commitment
            .as_ref()
            .map(|c| CdmAmount { value: c.value().value, currency: c.value().currency.as_str().to_owned() }),
        floating_rate_index: facility.floating_rate_index.as_ref().map(|i| i.value().as_str().to_owned()),
        index_tenor: facility.index_tenor.as_ref().map(|t| CdmTenor {
            multiplier: t.value().period_multiplier,
            unit: match t.value().period {
                PeriodUnit::Day => TenorUnit::Day,
                PeriodUnit::Week => TenorUnit::Week,
                PeriodUnit::Month => TenorUnit::Month,
                PeriodUnit::Year => TenorUnit::Year,
            },
        }),
        spread: facility.spread.as_ref().map(|s| *s.value()),
        floor: facility.floor.as_ref().map(|f| *f.value()),
        fixed_rate: None,
        termination_date: facility.termination_date.as_ref().map(|d| *d.value()),
    }
}

/// The CDM view of an agreement: borrower as first counterparty, the agent (or else the first
/// lender) as second. `None` without a borrower: CDM cannot form a contract without one.
fn contract_formation(agreement: &CreditAgreement) -> Option<ContractFormation> {
    let borrower = agreement.parties.iter().find(|p| has_role(p, PartyRole::Borrower))?;
    let agent = agreement
        .parties
        .iter()
        .find(|p| has_role(p, PartyRole::AdministrativeAgent) || has_role(p, PartyRole::FacilityAgent))
        .or_else(|| agreement.parties.iter().find(|p| has_role(p, PartyRole::Lender)));
    let summary = summarise(agreement);
    let mut description = format!(
        "{} for {} with {} facilit{}",
        agreement.agreement_name.as_ref().map_or("Credit agreement", |n| n.value().as_str()),
        borrower.name.value(),
        agreement.facilities.len(),
        if agreement.facilities.len() == 1 { "y" } else { "ies" }
    );
    if let Some(total) = &summary.total_commitment {
        description.push_str(&format!(" totalling {} {}", total.currency, total.amount));
    }
    description.push('.');
    Some(ContractFormation {
        trade_identifier: String::new(),
        trade_date: agreement.effective_date.as_ref().map(|d| *d.value()),
        agreement_date: agreement.agreement_date.as_ref().map(|d| *d.value()),
        agreement_name: "Credit Agreement".to_owned(),
        governing_law: summary.governing_law,
        borrower: cdm_party(borrower),
        agent_or_lender: agent.map(cdm_party),
        facilities: agreement.facilities.iter().map(cdm_facility).collect(),
        summary: description,
    })
}

/// Builds the CDM events of one operation: each step linked to the one before it.
struct EventTrail<'a> {
    clock: &'a dyn Clock,
    request_id: &'a str,
    events: Vec<Value>,
    previous: Option<Uuid>,
}

impl<'a> EventTrail<'a> {
    fn new(clock: &'a dyn Clock, request_id: &'a str) -> Self {
        Self { clock, request_id, events: Vec::new(), previous: None }
    }

    /// A fresh event identity at the service's time. CDM accepts years 1–9999; a clock outside
    /// that is broken, and the Unix epoch stands in for it rather than losing the event.
    fn context(&self) -> Option<(Uuid, EventContext)> {
        let id = Uuid::new_v4();
        let context = EventContext::new(id, self.clock.now(), self.request_id)
            .or_else(|_| EventContext::new(id, OffsetDateTime::UNIX_EPOCH, self.request_id))
            .ok()?;
        Some((id, context))
    }

    fn observe(&mut self, step: ObservationStep) {
        let step = match self.previous {
            Some(previous) => step.previous(previous),
            None => step,
        };
        let Some((id, context)) = self.context() else { return };
        self.events.push(cdm::observation_step(&context, &step));
        self.previous = Some(id);
    }

    fn contract_formation(&mut self, formation: Option<&ContractFormation>, trade_identifier: String) {
        let (Some(formation), Some((id, context))) = (formation, self.context()) else { return };
        let formation = ContractFormation { trade_identifier, ..formation.clone() };
        self.events.push(cdm::contract_formation_step(&context, &formation));
        self.previous = Some(id);
    }
}

/// The result of `POST /api/extract`.
pub struct ExtractedAgreement {
    pub record: ExtractionRecord,
    pub cdm_events: Vec<Value>,
}

/// A document after a change, with the events that record it.
pub struct DocumentChange {
    pub document: Document,
    pub cdm_events: Vec<Value>,
}

pub struct DocumentService {
    documents: Arc<dyn DocumentRepository>,
    analyses: Arc<dyn AnalysisRepository>,
    clock: Arc<dyn Clock>,
    /// Proposes values for fields the rules missed; `None`: rules only.
    llm: Option<Arc<dyn LanguageModel>>,
    /// Each owner's storage limits.
    quota: DocumentQuota,
    /// Reads uploaded files; `None`: only text is accepted.
    reader: Option<Arc<dyn DocumentReader>>,
    /// Fetches filings to import, and the archive they may come from.
    importer: Option<(Arc<dyn FileFetcher>, FilingArchive)>,
}

impl DocumentService {
    pub fn new(
        documents: Arc<dyn DocumentRepository>,
        analyses: Arc<dyn AnalysisRepository>,
        clock: Arc<dyn Clock>,
        llm: Option<Arc<dyn LanguageModel>>,
    ) -> Self {
        Self { documents, analyses, clock, llm, quota: DocumentQuota::UNLIMITED, reader: None, importer: None }
    }

    /// Accepts uploaded files, read by `reader`.
    pub fn with_reader(mut self, reader: Arc<dyn DocumentReader>) -> Self {
        self.reader = Some(reader);
        self
    }

    /// Imports filings with `fetcher`, from files in `archive` only (SEC EDGAR's archive).
    pub fn with_importer(mut self, fetcher: Arc<dyn FileFetcher>, archive: FilingArchive) -> Self {
        self.importer = Some((fetcher, archive));
        self
    }

    /// Fetches a filing from the archive as the file to store, with the name its URL gives it.
    ///
    /// # Errors
    /// [`DocumentError::Validation`] for a URL outside the archive; [`DocumentError::Import`] when
    /// it cannot be fetched (a redirect out of the archive included); [`DocumentError::UnsupportedMediaType`]
    /// when it is not a document.
    pub async fn fetch_filing(&self, url: &str) -> Result<(OriginalFile, String), DocumentError> {
        let Some((fetcher, archive)) = &self.importer else {
            return Err(DocumentError::Import(FetchError::Unreachable("imports are not configured".into())));
        };
        let url = archive
            .admit(url)
            .map_err(|outside| DocumentError::Validation { field: "url", message: outside.to_string() })?;
        let fetched = fetcher.fetch_file(&url, archive).await.map_err(DocumentError::Import)?;
        let file_name =
            url.path_segments().and_then(|mut segments| segments.next_back()).unwrap_or_default().to_owned();
        let media_type = MediaType::from_content_type(&fetched.content_type)
            .or_else(|| MediaType::from_file_name(&file_name))
            .ok_or_else(|| DocumentError::UnsupportedMediaType {
                message: format!("the filing is served as {} and its name does not say a type", fetched.content_type),
            })?;
        Ok((OriginalFile::new(media_type, fetched.bytes), file_name))
    }

    /// Checks a file `caller` sent against its declared type and reads its text.
    ///
    /// # Errors
    /// See [`read_upload`]; [`DocumentError::Unreadable`] when no reader is configured.
    pub async fn read_upload(&self, caller: Principal, original: OriginalFile) -> Result<SourceFile, DocumentError> {
        let Some(reader) = &self.reader else {
            return Err(DocumentError::Unreadable(ReadError::Failed("no document reader is configured".into())));
        };
        read_upload(reader.as_ref(), caller.user_id, original).await
    }

    /// The file version `version` of a document the caller may see was read from.
    ///
    /// # Errors
    /// [`DocumentError::NotFound`] for a document the caller may not see, an unknown version, or a
    /// version sent as text; [`DocumentError::Store`].
    pub async fn original(
        &self,
        caller: Principal,
        id: DocumentId,
        version: i32,
    ) -> Result<(OriginalInfo, bytes::Bytes), DocumentError> {
        self.visible(caller, id).await?;
        self.documents.original(id, version).await?.ok_or(DocumentError::NotFound)
    }

    /// The same service holding each owner to `quota`.
    #[must_use]
    pub fn with_quota(mut self, quota: DocumentQuota) -> Self {
        self.quota = quota;
        self
    }

    /// Lets the language model, when one is configured, propose the fields the rules missed.
    pub async fn assist(&self, mut analysed: AnalysedText) -> AnalysedText {
        analysed.assistance = match &self.llm {
            None => LlmAssistance::NotConfigured,
            Some(llm) => propose_missing_fields(llm.as_ref(), &mut analysed).await,
        };
        analysed
    }

    /// The events of an extraction that is not stored: what was found, and the agreement in CDM.
    pub fn extracted(&self, analysed: AnalysedText, request_id: &str) -> ExtractedAgreement {
        let record = analysed.record();
        let mut trail = EventTrail::new(self.clock.as_ref(), request_id);
        trail.observe(
            ObservationStep::new(EventKind::AgreementExtracted, WorkflowStatus::Accepted, extraction_comment(&record))
                .item("extractionStatus", &record.status)
                .item("textSha256", &analysed.text_sha256),
        );
        let trade = format!("extraction-{}", analysed.text_sha256.get(..16).unwrap_or_default());
        trail.contract_formation(analysed.contract_formation().as_ref(), trade);
        ExtractedAgreement { record, cdm_events: trail.events }
    }

    /// Stores a new document (version 1, review state draft).
    ///
    /// # Errors
    /// [`DocumentError::Validation`] for a blank or overlong title or a non-positive deal id;
    /// [`DocumentError::Store`] when it cannot be stored (then nothing is).
    pub async fn create(
        &self,
        caller: Principal,
        title: &str,
        deal_id: Option<i64>,
        analysed: AnalysedText,
        request_id: &str,
    ) -> Result<DocumentChange, DocumentError> {
        let title = validate_title(title)?;
        if deal_id.is_some_and(|id| id <= 0) {
            return Err(DocumentError::Validation { field: "deal_id", message: "must be a positive integer".into() });
        }
        let now = self.clock.now();
        let formation = analysed.contract_formation();
        let document = self
            .documents
            .create(NewDocument {
                owner: caller.user_id,
                title,
                deal_id,
                first_version: new_version(analysed, caller, now, self.quota),
                created: ReviewEvent {
                    from: None,
                    to: ReviewState::Draft,
                    action: "create".into(),
                    actor: caller.user_id,
                    at: now,
                    comment: None,
                },
            })
            .await?;
        let cdm_events = self.version_events(&document, formation.as_ref(), request_id);
        Ok(DocumentChange { document, cdm_events })
    }

    /// Adds the next version and makes it current; a document under review goes back to draft.
    ///
    /// # Errors
    /// [`DocumentError::NotFound`] (also for someone else's document), [`DocumentError::Conflict`]
    /// for an archived document or a concurrent change, [`DocumentError::Store`].
    pub async fn add_version(
        &self,
        caller: Principal,
        id: DocumentId,
        analysed: AnalysedText,
        request_id: &str,
    ) -> Result<DocumentChange, DocumentError> {
        let current = self.visible(caller, id).await?;
        if !current.state.accepts_new_versions() {
            return Err(DocumentError::Conflict(format!(
                "a document in state {} takes no new versions",
                current.state
            )));
        }
        let now = self.clock.now();
        let formation = analysed.contract_formation();
        let event = ReviewEvent {
            from: Some(current.state),
            to: ReviewState::Draft,
            action: "new_version".into(),
            actor: caller.user_id,
            at: now,
            comment: None,
        };
        let document = self.documents.add_version(id, new_version(analysed, caller, now, self.quota), event).await?;
        let cdm_events = self.version_events(&document, formation.as_ref(), request_id);
        Ok(DocumentChange { document, cdm_events })
    }

    /// Moves the document's review.
    ///
    /// # Errors
    /// [`DocumentError::NotFound`], [`DocumentError::Forbidden`] for a role that may not take the
    /// action, [`DocumentError::Conflict`] for an action that does not apply to the current state,
    /// [`DocumentError::Validation`] for an overlong comment, [`DocumentError::Store`].
    pub async fn review(
        &self,
        caller: Principal,
        id: DocumentId,
        action: ReviewAction,
        comment: Option<String>,
        request_id: &str,
    ) -> Result<DocumentChange, DocumentError> {
        let comment = comment.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
        if comment.as_ref().is_some_and(|c| c.chars().count() > MAX_COMMENT_CHARS) {
            return Err(DocumentError::Validation {
                field: "comment",
                message: format!("must be at most {MAX_COMMENT_CHARS} characters"),
            });
        }
        let current = self.visible(caller, id).await?;
        let to = current.state.apply(action, caller.role).map_err(|error| match error {
            TransitionError::Forbidden { .. } => DocumentError::Forbidden(error.to_string()),
            TransitionError::Invalid { .. } => DocumentError::Conflict(error.to_string()),
        })?;
        let event = ReviewEvent {
            from: Some(current.state),
            to,
            action: action.as_str().to_owned(),
            actor: caller.user_id,
            at: self.clock.now(),
            comment,
        };
        let document = self.documents.record_review(id, event).await?;
        let mut trail = EventTrail::new(self.clock.as_ref(), request_id);
        trail.observe(
            ObservationStep::new(
                EventKind::DocumentWorkflowTransition,
                WorkflowStatus::Accepted,
                format!("Document {id} moved from {} to {to} ({action})", current.state),
            )
            .item("documentId", id)
            .item("action", action)
            .item("fromState", current.state)
            .item("toState", to)
            .optional_item("dealId", document.deal_id),
        );
        Ok(DocumentChange { document, cdm_events: trail.events })
    }

    /// Deletes the document, when the caller may see it (its owner, administrators), with its
    /// versions, files and review history: its entry stays in the audit trail, its owner's quota
    /// gets back what it took, and analyses of its deal keep the terms they stored.
    ///
    /// # Errors
    /// [`DocumentError::NotFound`] otherwise (also when someone deleted it meanwhile);
    /// [`DocumentError::Store`].
    pub async fn delete(&self, caller: Principal, id: DocumentId) -> Result<DeletionRecord, DocumentError> {
        self.visible(caller, id).await?;
        let deletion = Deletion { actor: caller.user_id, at: self.clock.now() };
        self.documents.delete(id, deletion).await?.ok_or(DocumentError::NotFound)
    }

    /// The document, if the caller may see it (its owner and administrators).
    ///
    /// # Errors
    /// [`DocumentError::NotFound`] otherwise; [`DocumentError::Store`].
    pub async fn get(&self, caller: Principal, id: DocumentId) -> Result<Document, DocumentError> {
        self.visible(caller, id).await
    }

    /// The analyses linked to the document through its deal that the caller may see (their own;
    /// all for administrators), newest first, at most [`LINKED_RUNS_LIMIT`].
    ///
    /// # Errors
    /// [`DocumentError::Store`].
    pub async fn linked_analyses(
        &self,
        caller: Principal,
        document: &Document,
    ) -> Result<Vec<AnalysisRecord>, DocumentError> {
        let Some(deal_id) = document.deal_id else { return Ok(Vec::new()) };
        let owner = listed_owner(caller);
        let query = RunQuery { owner, deal_id: Some(deal_id), page: 1, limit: LINKED_RUNS_LIMIT };
        Ok(self.analyses.list(&query).await?.0)
    }

    /// The agreement `document` amends, when `document` is an amendment linked to a deal and
    /// exactly one other document of that deal the caller may see is dated as the amendment says
    /// the amended agreement is (amendments of it are passed over), with what the amendment
    /// changes in it. `None` otherwise: an agreement that cannot be told apart is not guessed.
    ///
    /// # Errors
    /// [`DocumentError::Store`].
    pub async fn amended_agreement(
        &self,
        caller: Principal,
        document: &Document,
    ) -> Result<Option<AmendedAgreement>, DocumentError> {
        let Some(current) = document.current_version() else { return Ok(None) };
        let (Some(deal_id), Some(date)) =
            (document.deal_id, amends::amended_agreement_date(&current.extraction.agreement))
        else {
            return Ok(None);
        };
        let Some(date) = crate::domain::extraction::parse_date(date) else { return Ok(None) };
        let query =
            DocumentQuery { owner: listed_owner(caller), search: None, deal_id: Some(deal_id), page: 1, limit: 200 };
        let mut candidates = Vec::new();
        for listing in self.documents.list(&query).await?.documents {
            if listing.id == document.id || listing.summary.agreement_date != Some(date) {
                continue;
            }
            let Some(found) = self.documents.find(listing.id).await? else { continue };
            let amends_another = found.current_version().is_some_and(|v| {
                v.extraction.agreement.pointer("/amendment/amendmentType").and_then(Value::as_str) == Some("Amendment")
            });
            if !amends_another {
                candidates.push(found);
            }
        }
        let Ok([amended]) = <[Document; 1]>::try_from(candidates) else { return Ok(None) };
        let Some(version) = amended.current_version() else { return Ok(None) };
        Ok(Some(AmendedAgreement {
            document_id: amended.id,
            title: amended.title.clone(),
            version: version.version,
            agreement_date: date,
            changes: amends::changes(&version.extraction.agreement, &current.extraction.agreement),
        }))
    }

    /// One page of the documents the caller may see.
    ///
    /// # Errors
    /// [`DocumentError::Validation`] for a page below 1 or a limit outside 1–200;
    /// [`DocumentError::Store`].
    pub async fn list(
        &self,
        caller: Principal,
        page: u32,
        limit: u32,
        search: Option<String>,
    ) -> Result<DocumentPage, DocumentError> {
        check_page(page, limit).map_err(|e| DocumentError::Validation { field: e.field, message: e.message.into() })?;
        // A search without any word matches everything, as no search does.
        let search = search.filter(|s| !super::search_terms(s).is_empty());
        let owner = listed_owner(caller);
        Ok(self.documents.list(&DocumentQuery { owner, search, deal_id: None, page, limit }).await?)
    }

    async fn visible(&self, caller: Principal, id: DocumentId) -> Result<Document, DocumentError> {
        match self.documents.find(id).await? {
            Some(document) if caller.may_see_owned_by(document.owner) => Ok(document),
            _ => Err(DocumentError::NotFound),
        }
    }

    fn version_events(
        &self,
        document: &Document,
        formation: Option<&ContractFormation>,
        request_id: &str,
    ) -> Vec<Value> {
        let Some(version) = document.current_version() else { return Vec::new() };
        let mut trail = EventTrail::new(self.clock.as_ref(), request_id);
        trail.observe(
            ObservationStep::new(
                EventKind::DocumentVersionCreated,
                WorkflowStatus::Accepted,
                format!(
                    "Version {} of document {} stored; {}",
                    version.version,
                    document.id,
                    extraction_comment(&version.extraction)
                ),
            )
            .item("documentId", document.id)
            .item("documentVersion", version.version)
            .item("extractionStatus", &version.extraction.status)
            .optional_item("dealId", document.deal_id),
        );
        trail.contract_formation(formation, format!("document-{}-v{}", document.id, version.version));
        trail.events
    }
}

fn extraction_comment(record: &ExtractionRecord) -> String {
    match record.status.as_str() {
        "success" => "the credit agreement was extracted completely".to_owned(),
        "partial_data_missing" => "the credit agreement was extracted; some fields are not stated".to_owned(),
        _ => "the text is not a credit agreement".to_owned(),
    }
}

fn new_version(analysed: AnalysedText, caller: Principal, now: OffsetDateTime, quota: DocumentQuota) -> NewVersion {
    let extraction = analysed.record();
    let (original, pages) = match analysed.source {
        Some(source) => (Some(source.original), source.pages),
        None => (None, PageMap::default()),
    };
    NewVersion {
        quota,
        text: analysed.text,
        text_sha256: analysed.text_sha256,
        extraction,
        author: caller.user_id,
        created_at: now,
        original,
        pages,
    }
}

fn validate_title(title: &str) -> Result<String, DocumentError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(DocumentError::Validation { field: "title", message: "must not be empty".into() });
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(DocumentError::Validation {
            field: "title",
            message: format!("must be at most {MAX_TITLE_CHARS} characters"),
        });
    }
    Ok(title.to_owned())
}
