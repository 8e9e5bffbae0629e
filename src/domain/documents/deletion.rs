//! What is kept of a deleted document or statement set: an entry of the audit trail saying what
//! it was (title or borrower, deal, fingerprints of every text, file and figure, the review
//! history), whose it was, who deleted it and when, and what it gave back to its owner's quota.
//! The content itself goes, so that deleting frees the storage it took; the fingerprints still
//! prove which text or figures a decision was made on.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::quota::StorageUsage;
use super::{Document, ReviewEvent};
use crate::domain::auth::UserId;

/// Who deletes, and when: given by the use case, written by the store with what it deletes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deletion {
    pub actor: UserId,
    pub at: OffsetDateTime,
}

/// What kind of record was deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeletedKind {
    Document,
    StatementSet,
}

impl DeletedKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Document => "document",
            Self::StatementSet => "statement_set",
        }
    }

    /// The kind named by [`Self::as_str`].
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "document" => Some(Self::Document),
            "statement_set" => Some(Self::StatementSet),
            _ => None,
        }
    }
}

/// One entry of the audit trail of deletions; written once, in the same change as the deletion.
#[derive(Clone, Debug, PartialEq)]
pub struct DeletionRecord {
    pub kind: DeletedKind,
    /// The id the API knew the record by (a document number, a statement set UUID).
    pub record_id: String,
    pub owner: UserId,
    pub deleted_by: UserId,
    pub deleted_at: OffsetDateTime,
    /// What the owner's quota got back.
    pub freed: StorageUsage,
    /// What the record was, without its content (see the module documentation).
    pub summary: Value,
}

impl DeletionRecord {
    /// The entry for `document`, deleted as `deletion` says.
    pub fn of_document(document: &Document, deletion: Deletion) -> Self {
        let bytes = document.versions.iter().map(super::DocumentVersion::stored_bytes).sum();
        let versions: Vec<Value> = document
            .versions
            .iter()
            .map(|version| {
                json!({
                    "version": version.version,
                    "text_sha256": version.text_sha256,
                    "text_bytes": version.text.len(),
                    "original": version.original.as_ref().map(super::OriginalInfo::to_json),
                    "author": version.author.to_string(),
                    "created_at": rfc3339(version.created_at),
                })
            })
            .collect();
        Self {
            kind: DeletedKind::Document,
            record_id: document.id.to_string(),
            owner: document.owner,
            deleted_by: deletion.actor,
            deleted_at: deletion.at,
            freed: StorageUsage::new_document(bytes),
            summary: json!({
                "title": document.title,
                "deal_id": document.deal_id,
                "state": document.state.as_str(),
                "created_at": rfc3339(document.created_at),
                "updated_at": rfc3339(document.updated_at),
                "versions": versions,
                "history": document.history.iter().map(review_json).collect::<Vec<_>>(),
            }),
        }
    }

    /// The API's view: `{kind, id, owner, deleted_by, deleted_at, freed: {documents,
    /// statement_sets, bytes}, summary}`.
    pub fn json(&self) -> Value {
        json!({
            "kind": self.kind.as_str(),
            "id": self.record_id,
            "owner": self.owner.to_string(),
            "deleted_by": self.deleted_by.to_string(),
            "deleted_at": rfc3339(self.deleted_at),
            "freed": {
                "documents": self.freed.documents,
                "statement_sets": self.freed.statement_sets,
                "bytes": self.freed.bytes,
            },
            "summary": self.summary,
        })
    }
}

fn review_json(event: &ReviewEvent) -> Value {
    json!({
        "from": event.from.map(|state| state.as_str()),
        "to": event.to.as_str(),
        "action": event.action,
        "actor": event.actor.to_string(),
        "at": rfc3339(event.at),
        "comment": event.comment,
    })
}

pub(crate) fn rfc3339(at: OffsetDateTime) -> Option<String> {
    at.format(&Rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::documents::{DocumentId, ReviewState};

    #[test]
    fn a_deleted_documents_entry_keeps_fingerprints_and_history_but_not_the_text() {
        let (owner, admin) = (UserId::new_random(), UserId::new_random());
        let at = OffsetDateTime::UNIX_EPOCH;
        let secret_text = "The Borrower shall repay the Loans in full on the Maturity Date.";
        let document = Document {
            id: DocumentId::new(7).expect("id"),
            owner,
            title: "Facility agreement".into(),
            deal_id: Some(3),
            created_at: at,
            updated_at: at,
            state: ReviewState::Submitted,
            versions: vec![crate::domain::documents::DocumentVersion {
                version: 1,
                text: secret_text.into(),
                text_sha256: "ab".repeat(32),
                extraction: crate::domain::documents::ExtractionRecord {
                    status: "success".into(),
                    agreement: json!({}),
                    report: json!({}),
                    summary: Default::default(),
                },
                author: owner,
                created_at: at,
                original: None,
                pages: Default::default(),
            }],
            history: vec![ReviewEvent {
                from: Some(ReviewState::Draft),
                to: ReviewState::Submitted,
                action: "submit".into(),
                actor: owner,
                at,
                comment: Some("ready".into()),
            }],
        };

        let entry = DeletionRecord::of_document(&document, Deletion { actor: admin, at });

        assert_eq!(
            (entry.kind, entry.record_id.as_str(), entry.owner, entry.deleted_by),
            (DeletedKind::Document, "7", owner, admin)
        );
        assert_eq!(entry.freed, StorageUsage::new_document(secret_text.len() as u64));
        let shown = entry.json().to_string();
        assert!(!shown.contains("Maturity Date"), "the text itself is not kept: {shown}");
        assert_eq!(entry.summary["versions"][0]["text_sha256"], "ab".repeat(32));
        assert_eq!(entry.summary["history"][0]["action"], "submit");
        assert_eq!(DeletedKind::parse(entry.kind.as_str()), Some(entry.kind));
    }
}
