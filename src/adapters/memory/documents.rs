//! Documents in process memory. One lock per operation keeps every change atomic; each document
//! keeps the set of words of its title, parties and current text for search.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use crate::domain::documents::{
    Document, DocumentId, DocumentListing, DocumentPage, DocumentQuery, DocumentVersion, ReviewEvent, search_terms,
};
use crate::ports::documents::{DocumentChangeError, DocumentRepository, NewDocument, NewVersion};
use crate::ports::store::StoreError;

struct Stored {
    document: Document,
    words: HashSet<String>,
}

impl Stored {
    fn new(document: Document) -> Self {
        let words = words_of(&document);
        Self { document, words }
    }

    fn listing(&self) -> DocumentListing {
        let current = self.document.current_version();
        DocumentListing {
            id: self.document.id,
            title: self.document.title.clone(),
            deal_id: self.document.deal_id,
            summary: current.map(|v| v.extraction.summary.clone()).unwrap_or_default(),
            current_version: current.map_or(0, |v| v.version),
            state: self.document.state,
            updated_at: self.document.updated_at,
        }
    }
}

fn words_of(document: &Document) -> HashSet<String> {
    let mut words: HashSet<String> = search_terms(&document.title).into_iter().collect();
    if let Some(current) = document.current_version() {
        words.extend(search_terms(&current.text));
        for party in &current.extraction.summary.parties {
            words.extend(search_terms(party));
        }
        if let Some(borrower) = &current.extraction.summary.borrower {
            words.extend(search_terms(borrower));
        }
    }
    words
}

#[derive(Default)]
struct State {
    documents: BTreeMap<DocumentId, Stored>,
    last_id: i64,
}

#[derive(Default)]
pub struct MemoryDocumentStore {
    state: Mutex<State>,
}

impl MemoryDocumentStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every operation replaces whole entries, so a poisoned lock still holds consistent data.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn change(
        &self,
        id: DocumentId,
        event: ReviewEvent,
        version: Option<NewVersion>,
    ) -> Result<Document, DocumentChangeError> {
        let mut state = self.state();
        let stored = state.documents.get_mut(&id).ok_or(DocumentChangeError::NotFound)?;
        let mut document = stored.document.clone();
        if Some(document.state) != event.from {
            return Err(DocumentChangeError::StateChanged { current: document.state });
        }
        if let Some(version) = version {
            let number = document.current_version().map_or(1, |v| v.version + 1);
            document.versions.push(into_version(version, number));
        }
        document.state = event.to;
        document.updated_at = event.at;
        document.history.push(event);
        *stored = Stored::new(document.clone());
        Ok(document)
    }
}

fn into_version(version: NewVersion, number: i32) -> DocumentVersion {
    DocumentVersion {
        version: number,
        text: version.text,
        text_sha256: version.text_sha256,
        extraction: version.extraction,
        author: version.author,
        created_at: version.created_at,
    }
}

#[async_trait]
impl DocumentRepository for MemoryDocumentStore {
    async fn create(&self, new: NewDocument) -> Result<Document, StoreError> {
        let mut state = self.state();
        state.last_id += 1;
        let id =
            DocumentId::new(state.last_id).ok_or_else(|| StoreError::Unavailable(anyhow::anyhow!("id overflow")))?;
        let document = Document {
            id,
            owner: new.owner,
            title: new.title,
            deal_id: new.deal_id,
            created_at: new.created.at,
            updated_at: new.created.at,
            state: new.created.to,
            versions: vec![into_version(new.first_version, 1)],
            history: vec![new.created],
        };
        state.documents.insert(id, Stored::new(document.clone()));
        Ok(document)
    }

    async fn find(&self, id: DocumentId) -> Result<Option<Document>, StoreError> {
        Ok(self.state().documents.get(&id).map(|stored| stored.document.clone()))
    }

    async fn add_version(
        &self,
        id: DocumentId,
        version: NewVersion,
        event: ReviewEvent,
    ) -> Result<Document, DocumentChangeError> {
        self.change(id, event, Some(version))
    }

    async fn record_review(&self, id: DocumentId, event: ReviewEvent) -> Result<Document, DocumentChangeError> {
        self.change(id, event, None)
    }

    async fn list(&self, query: &DocumentQuery) -> Result<DocumentPage, StoreError> {
        let terms = query.search.as_deref().map(search_terms).unwrap_or_default();
        let state = self.state();
        let mut matching: Vec<&Stored> = state
            .documents
            .values()
            .filter(|stored| query.owner.is_none_or(|owner| stored.document.owner == owner))
            .filter(|stored| query.deal_id.is_none_or(|deal| stored.document.deal_id == Some(deal)))
            .filter(|stored| terms.iter().all(|term| stored.words.contains(term)))
            .collect();
        matching.sort_by(|a, b| {
            b.document.updated_at.cmp(&a.document.updated_at).then_with(|| b.document.id.cmp(&a.document.id))
        });
        let total = matching.len() as u64;
        let offset = usize::try_from(query.offset()).unwrap_or(usize::MAX);
        let documents = matching.into_iter().skip(offset).take(query.limit as usize).map(Stored::listing).collect();
        Ok(DocumentPage { documents, total })
    }
}
