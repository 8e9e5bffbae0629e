//! Documents: the text of a credit agreement in numbered versions, each kept with what extraction
//! found in it, and the review workflow that takes a document from draft to published. Who may move
//! the workflow, and where to, is decided here ([`ReviewState::apply`]); storing it is a port's job.

pub mod amends;
pub mod archive;
pub mod deletion;
pub mod error;
pub mod quota;
pub mod service;
pub mod upload;

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use time::{Date, OffsetDateTime};

use super::auth::{Role, UserId};

pub use deletion::{DeletedKind, Deletion, DeletionRecord};
pub use error::DocumentError;
pub use quota::{DocumentQuota, QuotaExceeded, QuotaKind, StorageUsage};
pub use service::{AnalysedText, DocumentChange, DocumentService, ExtractedAgreement, analyse_source, analyse_text};
pub use upload::{OriginalFile, OriginalInfo, SourceFile};

/// Identifier of a document: a positive integer, as the API exposes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocumentId(i64);

impl DocumentId {
    /// `None` for zero and negative numbers, which no document has.
    pub fn new(id: i64) -> Option<Self> {
        (id > 0).then_some(Self(id))
    }
    pub fn get(&self) -> i64 {
        self.0
    }
}

impl fmt::Display for DocumentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Where a document is in its review.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReviewState {
    Draft,
    Submitted,
    Approved,
    Rejected,
    Published,
    Archived,
}

/// What a reviewer does to a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReviewAction {
    Submit,
    Approve,
    Reject,
    Publish,
    Archive,
}

/// Why a review action was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    /// The caller's role may not take this action at all.
    #[error("{action} needs the {required} role")]
    Forbidden { action: ReviewAction, required: Role },
    /// The action does not lead anywhere from the current state.
    #[error("a document in state {from} cannot be {action}ed", action = action.past_tense_stem())]
    Invalid { from: ReviewState, action: ReviewAction },
}

impl ReviewAction {
    pub const ALL: [ReviewAction; 5] = [
        ReviewAction::Submit,
        ReviewAction::Approve,
        ReviewAction::Reject,
        ReviewAction::Publish,
        ReviewAction::Archive,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            ReviewAction::Submit => "submit",
            ReviewAction::Approve => "approve",
            ReviewAction::Reject => "reject",
            ReviewAction::Publish => "publish",
            ReviewAction::Archive => "archive",
        }
    }

    /// Analysts submit their documents for review; only administrators decide on them.
    pub fn required_role(&self) -> Role {
        match self {
            ReviewAction::Submit => Role::Analyst,
            ReviewAction::Approve | ReviewAction::Reject | ReviewAction::Publish | ReviewAction::Archive => Role::Admin,
        }
    }

    fn past_tense_stem(&self) -> &'static str {
        match self {
            ReviewAction::Submit => "submitt",
            ReviewAction::Approve => "approv",
            ReviewAction::Reject => "reject",
            ReviewAction::Publish => "publish",
            ReviewAction::Archive => "archiv",
        }
    }
}

impl fmt::Display for ReviewAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ReviewAction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|a| a.as_str() == s).ok_or_else(|| format!("unknown review action '{s}'"))
    }
}

impl ReviewState {
    pub const ALL: [ReviewState; 6] = [
        ReviewState::Draft,
        ReviewState::Submitted,
        ReviewState::Approved,
        ReviewState::Rejected,
        ReviewState::Published,
        ReviewState::Archived,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            ReviewState::Draft => "draft",
            ReviewState::Submitted => "submitted",
            ReviewState::Approved => "approved",
            ReviewState::Rejected => "rejected",
            ReviewState::Published => "published",
            ReviewState::Archived => "archived",
        }
    }

    /// The state `action` by someone with `role` leads to.
    ///
    /// Draft or rejected → submitted → approved or rejected; approved → published; anything but
    /// archived → archived. The role is checked first, so a caller learns they may not act before
    /// learning about the document's state.
    ///
    /// # Errors
    /// [`TransitionError::Forbidden`] when `role` is too low; [`TransitionError::Invalid`] when the
    /// action does not apply to this state.
    pub fn apply(self, action: ReviewAction, role: Role) -> Result<ReviewState, TransitionError> {
        let required = action.required_role();
        if role < required {
            return Err(TransitionError::Forbidden { action, required });
        }
        use ReviewAction as A;
        use ReviewState as S;
        match (self, action) {
            (S::Draft | S::Rejected, A::Submit) => Ok(S::Submitted),
            (S::Submitted, A::Approve) => Ok(S::Approved),
            (S::Submitted, A::Reject) => Ok(S::Rejected),
            (S::Approved, A::Publish) => Ok(S::Published),
            (from, A::Archive) if from != S::Archived => Ok(S::Archived),
            (from, action) => Err(TransitionError::Invalid { from, action }),
        }
    }

    /// Whether a new version may be added: archived documents are frozen.
    pub fn accepts_new_versions(&self) -> bool {
        *self != ReviewState::Archived
    }
}

impl fmt::Display for ReviewState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ReviewState {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|a| a.as_str() == s).ok_or_else(|| format!("unknown review state '{s}'"))
    }
}

/// An amount of money in one currency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Money {
    pub amount: Decimal,
    /// ISO 4217 code.
    pub currency: String,
}

/// The headline facts of a version's agreement, kept beside it for listing and search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgreementSummary {
    pub borrower: Option<String>,
    /// The sum of the facilities' commitments when they share one currency; `None` otherwise
    /// (amounts in different currencies are not added up).
    pub total_commitment: Option<Money>,
    /// `GoverningLawEnum` code (USNY, GBEN, …).
    pub governing_law: Option<String>,
    pub agreement_date: Option<Date>,
    /// Every party's name, for search.
    pub parties: Vec<String>,
}

/// What extraction produced for one version, as it was returned to the client.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtractionRecord {
    /// `success`, `partial_data_missing` or `irrelevant_document`.
    pub status: String,
    /// The CDM-named agreement object.
    pub agreement: serde_json::Value,
    /// `{status, missing_fields, warnings, provenance}`.
    pub report: serde_json::Value,
    pub summary: AgreementSummary,
}

/// One version of a document's text.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentVersion {
    /// 1 for the original, then 2, 3, …
    pub version: i32,
    pub text: String,
    /// SHA-256 of the text, hex.
    pub text_sha256: String,
    pub extraction: ExtractionRecord,
    pub author: UserId,
    pub created_at: OffsetDateTime,
    /// The file the text was read from, when it was uploaded as a file.
    pub original: Option<OriginalInfo>,
    /// Where the text's pages start (PDFs and paged text filings); empty otherwise.
    pub pages: crate::domain::intake::PageMap,
}

impl DocumentVersion {
    /// What the version takes of its owner's storage: its text and its original file.
    pub fn stored_bytes(&self) -> u64 {
        self.text.len() as u64 + self.original.as_ref().map_or(0, |o| o.size_bytes)
    }
}

/// One recorded step of the review workflow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewEvent {
    /// `None` for the creation of the document.
    pub from: Option<ReviewState>,
    pub to: ReviewState,
    /// `create`, `new_version`, or a [`ReviewAction`].
    pub action: String,
    pub actor: UserId,
    pub at: OffsetDateTime,
    pub comment: Option<String>,
}

/// A stored document with every version and its review history.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub id: DocumentId,
    pub owner: UserId,
    pub title: String,
    pub deal_id: Option<i64>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub state: ReviewState,
    /// Oldest first; the last one is current.
    pub versions: Vec<DocumentVersion>,
    /// Oldest first.
    pub history: Vec<ReviewEvent>,
}

impl Document {
    pub fn current_version(&self) -> Option<&DocumentVersion> {
        self.versions.last()
    }
}

/// A row of the document list: the current version's headline facts.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentListing {
    pub id: DocumentId,
    pub title: String,
    pub deal_id: Option<i64>,
    pub summary: AgreementSummary,
    pub current_version: i32,
    pub state: ReviewState,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// One page of documents, newest change first.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentQuery {
    /// `None`: every owner's documents (administrators).
    pub owner: Option<UserId>,
    /// Words that must all occur in the title, a party, the borrower or the current text.
    pub search: Option<String>,
    /// Only documents linked to this deal.
    pub deal_id: Option<i64>,
    /// 1-based.
    pub page: u32,
    pub limit: u32,
}

impl DocumentQuery {
    pub const DEFAULT_LIMIT: u32 = 50;
    pub const MAX_LIMIT: u32 = 200;

    pub fn offset(&self) -> u64 {
        u64::from(self.page.saturating_sub(1)) * u64::from(self.limit)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DocumentPage {
    pub documents: Vec<DocumentListing>,
    /// Matching documents on all pages.
    pub total: u64,
}

/// A stored document found by relevance to a set of words, with its current text: what the research
/// loop reads from the user's own documents.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusDocument {
    pub id: DocumentId,
    pub title: String,
    pub deal_id: Option<i64>,
    /// The current version's text.
    pub text: String,
    /// The store's relevance score (higher is better; only comparable within one answer).
    pub rank: f64,
}

/// The agreement extracted from a document's current version, with nothing else of the document
/// (no text, no older versions): what a loan application reads of the agreements of its deal.
#[derive(Clone, Debug, PartialEq)]
pub struct CurrentAgreement {
    pub id: DocumentId,
    pub title: String,
    /// The number of the current version.
    pub version: i32,
    /// The CDM-named agreement object extracted from that version ([`ExtractionRecord::agreement`]).
    pub agreement: serde_json::Value,
}

/// Lower-cased words of `text`, for the memory store's search (PostgreSQL uses full-text search).
pub fn search_terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_goes_from_draft_through_review_to_published() {
        let submitted = ReviewState::Draft.apply(ReviewAction::Submit, Role::Analyst).expect("submit");
        assert_eq!(submitted, ReviewState::Submitted);
        let approved = submitted.apply(ReviewAction::Approve, Role::Admin).expect("approve");
        assert_eq!(approved.apply(ReviewAction::Publish, Role::Admin), Ok(ReviewState::Published));
        let rejected = submitted.apply(ReviewAction::Reject, Role::Admin).expect("reject");
        assert_eq!(rejected.apply(ReviewAction::Submit, Role::Analyst), Ok(ReviewState::Submitted));
    }

    #[test]
    fn analysts_submit_and_only_admins_decide() {
        for action in [ReviewAction::Approve, ReviewAction::Reject, ReviewAction::Publish, ReviewAction::Archive] {
            assert_eq!(
                ReviewState::Submitted.apply(action, Role::Analyst),
                Err(TransitionError::Forbidden { action, required: Role::Admin })
            );
        }
        assert!(matches!(
            ReviewState::Draft.apply(ReviewAction::Submit, Role::Viewer),
            Err(TransitionError::Forbidden { .. })
        ));
        assert_eq!(ReviewState::Draft.apply(ReviewAction::Submit, Role::Admin), Ok(ReviewState::Submitted));
    }

    #[test]
    fn actions_that_lead_nowhere_are_invalid() {
        let invalid = [
            (ReviewState::Draft, ReviewAction::Approve),
            (ReviewState::Draft, ReviewAction::Publish),
            (ReviewState::Submitted, ReviewAction::Submit),
            (ReviewState::Approved, ReviewAction::Reject),
            (ReviewState::Published, ReviewAction::Submit),
            (ReviewState::Archived, ReviewAction::Archive),
            (ReviewState::Archived, ReviewAction::Submit),
        ];
        for (from, action) in invalid {
            assert_eq!(
                from.apply(action, Role::Admin),
                Err(TransitionError::Invalid { from, action }),
                "{from} {action}"
            );
        }
        let message = TransitionError::Invalid { from: ReviewState::Draft, action: ReviewAction::Approve }.to_string();
        assert_eq!(message, "a document in state draft cannot be approved");
    }

    #[test]
    fn everything_but_an_archived_document_can_be_archived_and_archived_ones_take_no_versions() {
        for from in ReviewState::ALL.into_iter().filter(|s| *s != ReviewState::Archived) {
            assert_eq!(from.apply(ReviewAction::Archive, Role::Admin), Ok(ReviewState::Archived));
            assert!(from.accepts_new_versions());
        }
        assert!(!ReviewState::Archived.accepts_new_versions());
    }

    #[test]
    fn names_round_trip_and_ids_are_positive() {
        for state in ReviewState::ALL {
            assert_eq!(state.as_str().parse::<ReviewState>(), Ok(state));
        }
        for action in ReviewAction::ALL {
            assert_eq!(action.as_str().parse::<ReviewAction>(), Ok(action));
        }
        assert!("rewind".parse::<ReviewAction>().is_err());
        assert_eq!(DocumentId::new(0), None);
        assert_eq!(DocumentId::new(7).map(|id| id.get()), Some(7));
    }

    #[test]
    fn search_terms_are_lower_cased_words() {
        assert_eq!(search_terms("Acme Corp., SOFR-based Term Loan"), ["acme", "corp", "sofr", "based", "term", "loan"]);
    }
}
