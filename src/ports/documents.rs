//! Storage of documents, their versions and their review history. Every change is atomic: a
//! document is stored with its first version or not at all, and a version or a review step is only
//! recorded while the document is still in the state the caller decided on.

use async_trait::async_trait;

use crate::domain::auth::UserId;
use crate::domain::documents::{
    CorpusDocument, CurrentAgreement, Deletion, DeletionRecord, Document, DocumentId, DocumentPage, DocumentQuery,
    DocumentQuota, ExtractionRecord, OriginalFile, OriginalInfo, QuotaExceeded, ReviewEvent, ReviewState,
};
use crate::domain::intake::PageMap;
use crate::ports::store::StoreError;

/// A version about to be stored; the store numbers it.
#[derive(Clone, Debug)]
pub struct NewVersion {
    /// The document owner's storage limits, which the store checks as it writes.
    pub quota: DocumentQuota,
    pub text: String,
    pub text_sha256: String,
    pub extraction: ExtractionRecord,
    pub author: UserId,
    pub created_at: time::OffsetDateTime,
    /// The uploaded file the text was read from; `None` for text sent as text.
    pub original: Option<OriginalFile>,
    /// Where the text's pages start; empty for a text without pages.
    pub pages: PageMap,
}

impl NewVersion {
    /// What the version adds to its owner's storage: its text and its original file.
    pub fn stored_bytes(&self) -> u64 {
        self.text.len() as u64 + self.original.as_ref().map_or(0, |o| o.bytes.len() as u64)
    }
}

/// A document about to be stored with its first version; the store assigns its id.
#[derive(Clone, Debug)]
pub struct NewDocument {
    pub owner: UserId,
    pub title: String,
    pub deal_id: Option<i64>,
    pub first_version: NewVersion,
    /// The `create` entry of the review history (to `draft`).
    pub created: ReviewEvent,
}

#[derive(Debug, thiserror::Error)]
pub enum DocumentChangeError {
    /// There is no document with this id.
    #[error("no such document")]
    NotFound,
    /// Someone moved the document to another state since the caller read it; nothing was changed.
    #[error("the document is now {current}")]
    StateChanged { current: ReviewState },
    /// The version would take the owner beyond their quota; nothing was stored.
    #[error(transparent)]
    QuotaExceeded(QuotaExceeded),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait DocumentRepository: Send + Sync + 'static {
    /// Stores the document as version 1 in state `draft`, with its `create` history entry, if the
    /// owner's quota (of the first version) has room for one more document and its text.
    ///
    /// # Errors
    /// [`DocumentChangeError::QuotaExceeded`]; [`DocumentChangeError::Store`] when the store cannot
    /// answer. Either way nothing is stored.
    async fn create(&self, document: NewDocument) -> Result<Document, DocumentChangeError>;

    /// The document with all versions and its history.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; an unknown id is `Ok(None)`.
    async fn find(&self, id: DocumentId) -> Result<Option<Document>, StoreError>;

    /// Adds the next version and records `event` (its `to` becomes the state), provided the
    /// document is still in `event.from` and its owner's quota has room for the text.
    ///
    /// # Errors
    /// [`DocumentChangeError::NotFound`], [`DocumentChangeError::StateChanged`],
    /// [`DocumentChangeError::QuotaExceeded`] (nothing stored), or [`DocumentChangeError::Store`].
    async fn add_version(
        &self,
        id: DocumentId,
        version: NewVersion,
        event: ReviewEvent,
    ) -> Result<Document, DocumentChangeError>;

    /// Records a review step, provided the document is still in `event.from`.
    ///
    /// # Errors
    /// As [`Self::add_version`].
    async fn record_review(&self, id: DocumentId, event: ReviewEvent) -> Result<Document, DocumentChangeError>;

    /// Deletes the document with its versions, uploaded files and review history, writes its entry
    /// in the audit trail ([`DeletionRecord::of_document`] of the document as it is at that moment)
    /// and gives its owner's quota back what it took, all in one change.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; then nothing changed. An unknown
    /// id is `Ok(None)`.
    async fn delete(&self, id: DocumentId, deletion: Deletion) -> Result<Option<DeletionRecord>, StoreError>;

    /// The file version `version` of document `id` was read from, with its bytes; `None` for an
    /// unknown document or version, or a version whose text was sent as text.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn original(&self, id: DocumentId, version: i32) -> Result<Option<(OriginalInfo, bytes::Bytes)>, StoreError>;

    /// One page of listings, most recently updated first, with the total count.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn list(&self, query: &DocumentQuery) -> Result<DocumentPage, StoreError>;

    /// Up to `limit` documents linked to `deal_id` of `owner` (`None`: everyone's), most recently
    /// changed first as [`Self::list`] orders them, each with its current version's number and
    /// extracted agreement only: reading a deal's terms must not load every text and version.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer; a deal without documents is `Ok` and
    /// empty.
    async fn current_agreements(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<Vec<CurrentAgreement>, StoreError>;

    /// Up to `limit` documents of `owner` (`None`: everyone's) matching ANY of `terms` in the title,
    /// parties, borrower or current text, most relevant first, with their current text.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn search_corpus(
        &self,
        owner: Option<UserId>,
        terms: &[String],
        limit: u32,
    ) -> Result<Vec<CorpusDocument>, StoreError>;
}
