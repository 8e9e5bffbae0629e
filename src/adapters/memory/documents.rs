//! Documents in process memory. One lock per operation keeps every change atomic (the owner's
//! usage is counted in the shared [`MemoryStorageLedger`] under it); each document
//! keeps the counts of the words of its title, parties and current text for search: exact matching
//! for the list, Okapi BM25 for the research corpus.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::storage::MemoryStorageLedger;
use crate::domain::auth::UserId;
use crate::domain::documents::{
    CorpusDocument, CurrentAgreement, Deletion, DeletionRecord, Document, DocumentId, DocumentListing, DocumentPage,
    DocumentQuery, DocumentVersion, OriginalFile, OriginalInfo, ReviewEvent, StorageUsage, search_terms,
};
use crate::ports::documents::{DocumentChangeError, DocumentRepository, NewDocument, NewVersion};
use crate::ports::store::StoreError;

struct Stored {
    document: Document,
    /// How often each word occurs.
    words: HashMap<String, u32>,
    /// Words in all.
    length: u32,
}

impl Stored {
    fn new(document: Document) -> Self {
        let words = words_of(&document);
        let length = words.values().sum();
        Self { document, words, length }
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
            created_at: self.document.created_at,
            updated_at: self.document.updated_at,
        }
    }
}

fn words_of(document: &Document) -> HashMap<String, u32> {
    let mut texts = vec![document.title.as_str()];
    if let Some(current) = document.current_version() {
        texts.push(&current.text);
        texts.extend(current.extraction.summary.parties.iter().map(String::as_str));
        texts.extend(current.extraction.summary.borrower.as_deref());
    }
    let mut words = HashMap::new();
    for word in texts.into_iter().flat_map(search_terms) {
        *words.entry(word).or_insert(0) += 1;
    }
    words
}

/// Okapi BM25 (k1 = 1.2, b = 0.75) of each document against `terms`, over the documents given.
fn bm25_scores(documents: &[&Stored], terms: &[String]) -> Vec<f64> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let count = documents.len() as f64;
    let average_length = documents.iter().map(|d| f64::from(d.length)).sum::<f64>() / count.max(1.0);
    let idf: Vec<f64> = terms
        .iter()
        .map(|term| {
            let containing = documents.iter().filter(|d| d.words.contains_key(term)).count() as f64;
            ((count - containing + 0.5) / (containing + 0.5) + 1.0).ln()
        })
        .collect();
    documents
        .iter()
        .map(|document| {
            let length_norm = 1.0 - B + B * f64::from(document.length) / average_length.max(1.0);
            terms
                .iter()
                .zip(&idf)
                .map(|(term, idf)| {
                    let tf = f64::from(document.words.get(term).copied().unwrap_or(0));
                    idf * tf * (K1 + 1.0) / (tf + K1 * length_norm)
                })
                .sum()
        })
        .collect()
}

/// The order of listings: the most recent change first, then the newest document.
fn latest_change_first(a: &Document, b: &Document) -> Ordering {
    b.updated_at.cmp(&a.updated_at).then_with(|| b.id.cmp(&a.id))
}

#[derive(Default)]
struct State {
    documents: BTreeMap<DocumentId, Stored>,
    /// The uploaded files versions were read from.
    originals: HashMap<(DocumentId, i32), OriginalFile>,
    last_id: i64,
}

#[derive(Default)]
pub struct MemoryDocumentStore {
    state: Mutex<State>,
    /// The owners' usage (shared with the statement sets) and the audit trail of deletions.
    ledger: Arc<MemoryStorageLedger>,
}

impl MemoryDocumentStore {
    /// A store with a ledger of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store that counts its owners' usage, and records deletions, in `ledger`.
    pub fn sharing(ledger: Arc<MemoryStorageLedger>) -> Self {
        Self { state: Mutex::default(), ledger }
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
        let mut document = state.documents.get(&id).ok_or(DocumentChangeError::NotFound)?.document.clone();
        if Some(document.state) != event.from {
            return Err(DocumentChangeError::StateChanged { current: document.state });
        }
        if let Some(version) = &version {
            let write = StorageUsage::new_version(version.stored_bytes());
            self.ledger.admit(document.owner, version.quota, write).map_err(DocumentChangeError::QuotaExceeded)?;
        }
        if let Some(version) = version {
            let number = document.current_version().map_or(1, |v| v.version + 1);
            let (version, original) = into_version(version, number);
            document.versions.push(version);
            if let Some(original) = original {
                state.originals.insert((id, number), original);
            }
        }
        let stored = state.documents.get_mut(&id).ok_or(DocumentChangeError::NotFound)?;
        document.state = event.to;
        document.updated_at = event.at;
        document.history.push(event);
        *stored = Stored::new(document.clone());
        Ok(document)
    }
}

/// The version as listed, and the file it was read from, kept apart.
fn into_version(version: NewVersion, number: i32) -> (DocumentVersion, Option<OriginalFile>) {
    let listed = DocumentVersion {
        version: number,
        text: version.text,
        text_sha256: version.text_sha256,
        extraction: version.extraction,
        author: version.author,
        created_at: version.created_at,
        original: version.original.as_ref().map(OriginalFile::info),
        pages: version.pages,
    };
    (listed, version.original)
}

#[async_trait]
impl DocumentRepository for MemoryDocumentStore {
    async fn create(&self, new: NewDocument) -> Result<Document, DocumentChangeError> {
        let mut state = self.state();
        // The id is found before the quota counts the write: once admitted, the write is made.
        let id = state
            .last_id
            .checked_add(1)
            .and_then(DocumentId::new)
            .ok_or_else(|| StoreError::Unavailable(anyhow::anyhow!("id overflow")))?;
        let write = StorageUsage::new_document(new.first_version.stored_bytes());
        self.ledger.admit(new.owner, new.first_version.quota, write).map_err(DocumentChangeError::QuotaExceeded)?;
        state.last_id = id.get();
        let (first_version, original) = into_version(new.first_version, 1);
        let document = Document {
            id,
            owner: new.owner,
            title: new.title,
            deal_id: new.deal_id,
            created_at: new.created.at,
            updated_at: new.created.at,
            state: new.created.to,
            versions: vec![first_version],
            history: vec![new.created],
        };
        if let Some(original) = original {
            state.originals.insert((id, 1), original);
        }
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

    async fn delete(&self, id: DocumentId, deletion: Deletion) -> Result<Option<DeletionRecord>, StoreError> {
        let mut state = self.state();
        let Some(stored) = state.documents.remove(&id) else { return Ok(None) };
        state.originals.retain(|(document, _), _| *document != id);
        let entry = DeletionRecord::of_document(&stored.document, deletion);
        self.ledger.record_deletion(entry.clone());
        Ok(Some(entry))
    }

    async fn original(&self, id: DocumentId, version: i32) -> Result<Option<(OriginalInfo, bytes::Bytes)>, StoreError> {
        Ok(self.state().originals.get(&(id, version)).map(|original| (original.info(), original.bytes.clone())))
    }

    async fn list(&self, query: &DocumentQuery) -> Result<DocumentPage, StoreError> {
        let terms = query.search.as_deref().map(search_terms).unwrap_or_default();
        let state = self.state();
        let mut matching: Vec<&Stored> = state
            .documents
            .values()
            .filter(|stored| query.owner.is_none_or(|owner| stored.document.owner == owner))
            .filter(|stored| query.deal_id.is_none_or(|deal| stored.document.deal_id == Some(deal)))
            .filter(|stored| terms.iter().all(|term| stored.words.contains_key(term)))
            .collect();
        matching.sort_by(|a, b| latest_change_first(&a.document, &b.document));
        let total = matching.len() as u64;
        let offset = usize::try_from(query.offset()).unwrap_or(usize::MAX);
        let documents = matching.into_iter().skip(offset).take(query.limit as usize).map(Stored::listing).collect();
        Ok(DocumentPage { documents, total })
    }

    async fn current_agreements(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<Vec<CurrentAgreement>, StoreError> {
        let state = self.state();
        let mut matching: Vec<&Document> = state
            .documents
            .values()
            .map(|stored| &stored.document)
            .filter(|document| document.deal_id == Some(deal_id))
            .filter(|document| owner.is_none_or(|owner| document.owner == owner))
            .collect();
        matching.sort_by(|a, b| latest_change_first(a, b));
        Ok(matching
            .into_iter()
            .filter_map(|document| {
                document.current_version().map(|current| CurrentAgreement {
                    id: document.id,
                    title: document.title.clone(),
                    version: current.version,
                    agreement: current.extraction.agreement.clone(),
                })
            })
            .take(limit as usize)
            .collect())
    }

    async fn search_corpus(
        &self,
        owner: Option<UserId>,
        terms: &[String],
        limit: u32,
    ) -> Result<Vec<CorpusDocument>, StoreError> {
        let mut words: Vec<String> = terms.iter().flat_map(|term| search_terms(term)).collect();
        words.sort();
        words.dedup();
        let state = self.state();
        let visible: Vec<&Stored> = state
            .documents
            .values()
            .filter(|stored| owner.is_none_or(|owner| stored.document.owner == owner))
            .collect();
        let scores = bm25_scores(&visible, &words);
        let mut hits: Vec<(f64, &Stored)> = scores.into_iter().zip(visible).filter(|(score, _)| *score > 0.0).collect();
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.document.id.cmp(&a.1.document.id)));
        Ok(hits
            .into_iter()
            .take(limit as usize)
            .map(|(rank, stored)| CorpusDocument {
                id: stored.document.id,
                title: stored.document.title.clone(),
                deal_id: stored.document.deal_id,
                text: stored.document.current_version().map(|v| v.text.clone()).unwrap_or_default(),
                rank,
            })
            .collect())
    }
}
