//! Documents over PostgreSQL: each change in one transaction that first locks the document row
//! (`FOR UPDATE`) and checks its state, so a version or review step is never recorded against a
//! state someone else has just left. Search is full-text (`simple` configuration, GIN index).

use anyhow::anyhow;
use async_trait::async_trait;
use deadpool_postgres::{GenericClient, Transaction};
use rust_decimal::Decimal;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::listing::Listing;
use super::storage::{Refused, admit_under_quota, record_deletion};
use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::documents::{
    AgreementSummary, CorpusDocument, CurrentAgreement, Deletion, DeletionRecord, Document, DocumentId,
    DocumentListing, DocumentPage, DocumentQuery, DocumentVersion, ExtractionRecord, Money, OriginalFile, OriginalInfo,
    ReviewEvent, ReviewState, StorageUsage, search_terms,
};
use crate::domain::intake::{MediaType, PageMap};
use crate::ports::documents::{DocumentChangeError, DocumentRepository, NewDocument, NewVersion};
use crate::ports::store::StoreError;

const VERSION_COLUMNS: &str = "version, text, text_sha256, extraction_status, agreement, report, borrower, \
     total_commitment, total_commitment_currency, governing_law, agreement_date, parties, author_id, created_at, \
     page_starts, original_media_type, original_size, original_sha256";
const SUMMARY_COLUMNS: &str = "v.borrower, v.total_commitment, v.total_commitment_currency, v.governing_law, \
     v.agreement_date, v.parties";

/// The words a document is found by: title, parties, borrower and the current text.
fn search_text(title: &str, version: &NewVersion) -> String {
    let summary = &version.extraction.summary;
    let mut text = String::with_capacity(title.len() + version.text.len() + 256);
    for part in std::iter::once(title)
        .chain(summary.parties.iter().map(String::as_str))
        .chain(summary.borrower.as_deref())
        .chain(std::iter::once(version.text.as_str()))
    {
        text.push_str(part);
        text.push('\n');
    }
    text
}

fn state_from(raw: &str) -> Result<ReviewState, StoreError> {
    raw.parse().map_err(|e: String| StoreError::Corrupt(anyhow!("unreadable review state in the database: {e}")))
}

fn document_id(raw: i64) -> Result<DocumentId, StoreError> {
    DocumentId::new(raw).ok_or_else(|| StoreError::Corrupt(anyhow!("unreadable document id {raw}")))
}

fn summary_from_row(row: &Row) -> Result<AgreementSummary, StoreError> {
    let amount: Option<Decimal> = column(row, "total_commitment")?;
    let currency: Option<String> = column(row, "total_commitment_currency")?;
    Ok(AgreementSummary {
        borrower: column(row, "borrower")?,
        total_commitment: amount.zip(currency).map(|(amount, currency)| Money { amount, currency }),
        governing_law: column(row, "governing_law")?,
        agreement_date: column(row, "agreement_date")?,
        parties: column(row, "parties")?,
    })
}

fn original_from_row(row: &Row) -> Result<Option<OriginalInfo>, StoreError> {
    let media_type: Option<String> = column(row, "original_media_type")?;
    let Some(media_type) = media_type else { return Ok(None) };
    let media_type = MediaType::from_mime(&media_type)
        .ok_or_else(|| StoreError::Corrupt(anyhow!("unreadable media type {media_type} in the database")))?;
    let size: i64 = column(row, "original_size")?;
    Ok(Some(OriginalInfo {
        media_type,
        size_bytes: u64::try_from(size).unwrap_or_default(),
        sha256: column(row, "original_sha256")?,
    }))
}

fn version_from_row(row: &Row) -> Result<DocumentVersion, StoreError> {
    let page_starts: Vec<i64> = column(row, "page_starts")?;
    Ok(DocumentVersion {
        original: original_from_row(row)?,
        pages: PageMap::new(page_starts.into_iter().map(|start| usize::try_from(start).unwrap_or_default()).collect()),
        version: column(row, "version")?,
        text: column(row, "text")?,
        text_sha256: column(row, "text_sha256")?,
        extraction: ExtractionRecord {
            status: column(row, "extraction_status")?,
            agreement: column(row, "agreement")?,
            report: column(row, "report")?,
            summary: summary_from_row(row)?,
        },
        author: UserId::from_uuid(column(row, "author_id")?),
        created_at: column(row, "created_at")?,
    })
}

fn review_from_row(row: &Row) -> Result<ReviewEvent, StoreError> {
    let from: Option<String> = column(row, "from_state")?;
    Ok(ReviewEvent {
        from: from.as_deref().map(state_from).transpose()?,
        to: state_from(&column::<String>(row, "to_state")?)?,
        action: column(row, "action")?,
        actor: UserId::from_uuid(column(row, "actor_id")?),
        at: column(row, "at")?,
        comment: column(row, "comment")?,
    })
}

async fn insert_version(
    tx: &Transaction<'_>,
    id: DocumentId,
    number: i32,
    version: &NewVersion,
) -> Result<(), StoreError> {
    let sql = format!(
        "INSERT INTO document_versions (document_id, {VERSION_COLUMNS}) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)"
    );
    let summary = &version.extraction.summary;
    let page_starts: Vec<i64> = version.pages.starts().iter().map(|&start| start as i64).collect();
    let original = version.original.as_ref().map(OriginalFile::info);
    let statement = tx.prepare_cached(&sql).await.map_err(unavailable)?;
    tx.execute(
        &statement,
        &[
            &id.get(),
            &number,
            &version.text,
            &version.text_sha256,
            &version.extraction.status,
            &version.extraction.agreement,
            &version.extraction.report,
            &summary.borrower,
            &summary.total_commitment.as_ref().map(|m| m.amount),
            &summary.total_commitment.as_ref().map(|m| m.currency.as_str()),
            &summary.governing_law,
            &summary.agreement_date,
            &summary.parties,
            &version.author.as_uuid(),
            &version.created_at,
            &page_starts,
            &original.as_ref().map(|o| o.media_type.mime()),
            &original.as_ref().map(|o| o.size_bytes as i64),
            &original.as_ref().map(|o| o.sha256.as_str()),
        ],
    )
    .await
    .map_err(unavailable)?;
    if let Some(original) = &version.original {
        let statement = tx
            .prepare_cached("INSERT INTO document_originals (document_id, version, content) VALUES ($1, $2, $3)")
            .await
            .map_err(unavailable)?;
        tx.execute(&statement, &[&id.get(), &number, &original.bytes.as_ref()]).await.map_err(unavailable)?;
    }
    Ok(())
}

async fn insert_review(tx: &Transaction<'_>, id: DocumentId, event: &ReviewEvent) -> Result<(), StoreError> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO document_reviews (document_id, from_state, to_state, action, actor_id, at, comment) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .await
        .map_err(unavailable)?;
    tx.execute(
        &statement,
        &[
            &id.get(),
            &event.from.map(|s| s.as_str()),
            &event.to.as_str(),
            &event.action,
            &event.actor.as_uuid(),
            &event.at,
            &event.comment,
        ],
    )
    .await
    .map_err(unavailable)?;
    Ok(())
}

/// The document with its versions and history, read through `client` (a pooled connection, or a
/// transaction that has locked it).
async fn read_document(client: &impl GenericClient, id: DocumentId) -> Result<Option<Document>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT id, owner_id, title, deal_id, state, created_at, updated_at FROM documents WHERE id = $1",
        )
        .await
        .map_err(unavailable)?;
    let Some(row) = client.query_opt(&statement, &[&id.get()]).await.map_err(unavailable)? else {
        return Ok(None);
    };
    let versions_sql =
        format!("SELECT {VERSION_COLUMNS} FROM document_versions WHERE document_id = $1 ORDER BY version");
    let versions = client.prepare_cached(&versions_sql).await.map_err(unavailable)?;
    let versions = client.query(&versions, &[&id.get()]).await.map_err(unavailable)?;
    let reviews = client
        .prepare_cached(
            "SELECT from_state, to_state, action, actor_id, at, comment FROM document_reviews \
             WHERE document_id = $1 ORDER BY seq",
        )
        .await
        .map_err(unavailable)?;
    let reviews = client.query(&reviews, &[&id.get()]).await.map_err(unavailable)?;
    Ok(Some(Document {
        id,
        owner: UserId::from_uuid(column(&row, "owner_id")?),
        title: column(&row, "title")?,
        deal_id: column(&row, "deal_id")?,
        created_at: column(&row, "created_at")?,
        updated_at: column(&row, "updated_at")?,
        state: state_from(&column::<String>(&row, "state")?)?,
        versions: versions.iter().map(version_from_row).collect::<Result<_, _>>()?,
        history: reviews.iter().map(review_from_row).collect::<Result<_, _>>()?,
    }))
}

impl PostgresStore {
    /// Locks the document and checks it is still in `event.from`; returns its title and version.
    async fn lock_for_change(
        tx: &Transaction<'_>,
        id: DocumentId,
        event: &ReviewEvent,
    ) -> Result<(String, i32, UserId), DocumentChangeError> {
        let statement = tx
            .prepare_cached("SELECT state, title, current_version, owner_id FROM documents WHERE id = $1 FOR UPDATE")
            .await
            .map_err(unavailable)?;
        let row = tx.query_opt(&statement, &[&id.get()]).await.map_err(unavailable)?;
        let row = row.ok_or(DocumentChangeError::NotFound)?;
        let current = state_from(&column::<String>(&row, "state")?)?;
        if Some(current) != event.from {
            return Err(DocumentChangeError::StateChanged { current });
        }
        Ok((column(&row, "title")?, column(&row, "current_version")?, UserId::from_uuid(column(&row, "owner_id")?)))
    }

    async fn change(
        &self,
        id: DocumentId,
        event: ReviewEvent,
        version: Option<NewVersion>,
    ) -> Result<Document, DocumentChangeError> {
        let mut client = self.connection().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let (title, current_version, owner) = Self::lock_for_change(&tx, id, &event).await?;
        if let Some(version) = &version {
            admit_under_quota(&tx, owner, version.quota, StorageUsage::new_version(version.stored_bytes())).await?;
        }
        insert_review(&tx, id, &event).await?;
        match &version {
            Some(version) => {
                let number = current_version + 1;
                insert_version(&tx, id, number, version).await?;
                let statement = tx
                    .prepare_cached(
                        "UPDATE documents SET state = $2, updated_at = $3, current_version = $4, \
                         search = strip(to_tsvector('simple', $5)) WHERE id = $1",
                    )
                    .await
                    .map_err(unavailable)?;
                let search = search_text(&title, version);
                tx.execute(&statement, &[&id.get(), &event.to.as_str(), &event.at, &number, &search])
                    .await
                    .map_err(unavailable)?;
            }
            None => {
                let statement = tx
                    .prepare_cached("UPDATE documents SET state = $2, updated_at = $3 WHERE id = $1")
                    .await
                    .map_err(unavailable)?;
                tx.execute(&statement, &[&id.get(), &event.to.as_str(), &event.at]).await.map_err(unavailable)?;
            }
        }
        tx.commit().await.map_err(unavailable)?;
        // Back to the pool before reading: with a pool of one, holding it would wait for ourselves.
        drop(client);
        self.find(id).await?.ok_or(DocumentChangeError::NotFound)
    }
}

#[async_trait]
impl DocumentRepository for PostgresStore {
    async fn create(&self, new: NewDocument) -> Result<Document, DocumentChangeError> {
        let mut client = self.connection().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let write = StorageUsage::new_document(new.first_version.stored_bytes());
        admit_under_quota(&tx, new.owner, new.first_version.quota, write).await?;
        let statement = tx
            .prepare_cached(
                "INSERT INTO documents (owner_id, title, deal_id, state, current_version, created_at, updated_at, search) \
                 VALUES ($1, $2, $3, $4, 1, $5, $5, strip(to_tsvector('simple', $6))) RETURNING id",
            )
            .await
            .map_err(unavailable)?;
        let search = search_text(&new.title, &new.first_version);
        let row = tx
            .query_one(
                &statement,
                &[&new.owner.as_uuid(), &new.title, &new.deal_id, &new.created.to.as_str(), &new.created.at, &search],
            )
            .await
            .map_err(unavailable)?;
        let id = document_id(column(&row, "id")?)?;
        insert_version(&tx, id, 1, &new.first_version).await?;
        insert_review(&tx, id, &new.created).await?;
        tx.commit().await.map_err(unavailable)?;
        // Back to the pool before reading: with a pool of one, holding it would wait for ourselves.
        drop(client);
        Ok(self
            .find(id)
            .await?
            .ok_or_else(|| StoreError::Unavailable(anyhow!("document {id} vanished after commit")))?)
    }

    async fn find(&self, id: DocumentId) -> Result<Option<Document>, StoreError> {
        let client = self.connection().await?;
        read_document(&client, id).await
    }

    async fn delete(&self, id: DocumentId, deletion: Deletion) -> Result<Option<DeletionRecord>, StoreError> {
        let mut client = self.connection().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // Locked first, as every change locks it: a version or review step under way finishes
        // before, and is in the audit entry, or waits and then finds no document.
        let lock = tx.prepare_cached("SELECT id FROM documents WHERE id = $1 FOR UPDATE").await.map_err(unavailable)?;
        if tx.query_opt(&lock, &[&id.get()]).await.map_err(unavailable)?.is_none() {
            return Ok(None);
        }
        let Some(document) = read_document(&tx, id).await? else { return Ok(None) };
        let entry = DeletionRecord::of_document(&document, deletion);
        // Versions, their files and the review history go with it (ON DELETE CASCADE).
        let delete = tx.prepare_cached("DELETE FROM documents WHERE id = $1").await.map_err(unavailable)?;
        tx.execute(&delete, &[&id.get()]).await.map_err(unavailable)?;
        record_deletion(&tx, &entry).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(Some(entry))
    }

    async fn add_version(
        &self,
        id: DocumentId,
        version: NewVersion,
        event: ReviewEvent,
    ) -> Result<Document, DocumentChangeError> {
        self.change(id, event, Some(version)).await
    }

    async fn record_review(&self, id: DocumentId, event: ReviewEvent) -> Result<Document, DocumentChangeError> {
        self.change(id, event, None).await
    }

    async fn original(&self, id: DocumentId, version: i32) -> Result<Option<(OriginalInfo, bytes::Bytes)>, StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(
                "SELECT v.original_media_type, v.original_size, v.original_sha256, o.content \
                 FROM document_versions v JOIN document_originals o USING (document_id, version) \
                 WHERE v.document_id = $1 AND v.version = $2",
            )
            .await
            .map_err(unavailable)?;
        let Some(row) = client.query_opt(&statement, &[&id.get(), &version]).await.map_err(unavailable)? else {
            return Ok(None);
        };
        let content: Vec<u8> = column(&row, "content")?;
        Ok(original_from_row(&row)?.map(|info| (info, bytes::Bytes::from(content))))
    }

    async fn list(&self, query: &DocumentQuery) -> Result<DocumentPage, StoreError> {
        let client = self.connection().await?;
        let owner = query.owner.map(|owner| owner.as_uuid());
        let (limit, offset) = (i64::from(query.limit), i64::try_from(query.offset()).unwrap_or(i64::MAX));
        let listing = Listing::new()
            .with("d.owner_id = $?", owner.as_ref().map(|o| o as &(dyn ToSql + Sync)))
            .with("d.deal_id = $?", query.deal_id.as_ref().map(|d| d as &(dyn ToSql + Sync)))
            .with("d.search @@ plainto_tsquery('simple', $?)", query.search.as_ref().map(|s| s as &(dyn ToSql + Sync)));
        let total = listing.count(&client, "documents d").await?;
        let filter = listing.filter();
        let (bounds, params) = listing.page(&limit, &offset);
        // The page is chosen on `documents` alone (top-N through the updated_at index); only its rows
        // are joined with their current version.
        let page_sql = format!(
            "WITH page AS (SELECT d.id, d.title, d.deal_id, d.current_version, d.state, d.created_at, d.updated_at \
             FROM documents d {filter} ORDER BY d.updated_at DESC, d.id DESC {bounds}) \
             SELECT d.*, {SUMMARY_COLUMNS} FROM page d \
             JOIN document_versions v ON v.document_id = d.id AND v.version = d.current_version \
             ORDER BY d.updated_at DESC, d.id DESC"
        );
        let page = client.prepare_cached(&page_sql).await.map_err(unavailable)?;
        let rows = client.query(&page, &params).await.map_err(unavailable)?;
        let documents = rows
            .iter()
            .map(|row| {
                Ok(DocumentListing {
                    id: document_id(column(row, "id")?)?,
                    title: column(row, "title")?,
                    deal_id: column(row, "deal_id")?,
                    summary: summary_from_row(row)?,
                    current_version: column(row, "current_version")?,
                    state: state_from(&column::<String>(row, "state")?)?,
                    created_at: column(row, "created_at")?,
                    updated_at: column(row, "updated_at")?,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(DocumentPage { documents, total })
    }

    async fn current_agreements(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<Vec<CurrentAgreement>, StoreError> {
        let client = self.connection().await?;
        let owner = owner.map(|owner| owner.as_uuid());
        let limit = i64::from(limit);
        let listing = Listing::new()
            .with("d.deal_id = $?", Some(&deal_id as &(dyn ToSql + Sync)))
            .with("d.owner_id = $?", owner.as_ref().map(|o| o as &(dyn ToSql + Sync)));
        let filter = listing.filter();
        let (bounds, params) = listing.page(&limit, &0);
        // One statement: only the current version's row is joined, and of it only the agreement, so
        // neither the texts nor the older versions are read.
        let statement = client
            .prepare_cached(&format!(
                "SELECT d.id, d.title, d.current_version, v.agreement FROM documents d \
                 JOIN document_versions v ON v.document_id = d.id AND v.version = d.current_version \
                 {filter} ORDER BY d.updated_at DESC, d.id DESC {bounds}"
            ))
            .await
            .map_err(unavailable)?;
        let rows = client.query(&statement, &params).await.map_err(unavailable)?;
        rows.iter()
            .map(|row| {
                Ok(CurrentAgreement {
                    id: document_id(column(row, "id")?)?,
                    title: column(row, "title")?,
                    version: column(row, "current_version")?,
                    agreement: column(row, "agreement")?,
                })
            })
            .collect()
    }

    async fn search_corpus(
        &self,
        owner: Option<UserId>,
        terms: &[String],
        limit: u32,
    ) -> Result<Vec<CorpusDocument>, StoreError> {
        let Some(any_of) = any_term_query(terms) else {
            return Ok(Vec::new());
        };
        let client = self.connection().await?;
        let owner = owner.map(|owner| owner.as_uuid());
        let limit = i64::from(limit);
        let listing = Listing::new()
            .with("d.search @@ to_tsquery('simple', $?)", Some(&any_of as &(dyn ToSql + Sync)))
            .with("d.owner_id = $?", owner.as_ref().map(|o| o as &(dyn ToSql + Sync)));
        let filter = listing.filter();
        let (bounds, params) = listing.page(&limit, &0);
        // `$1` is the query in both the filter and the rank.
        let statement = client
            .prepare_cached(&format!(
                "WITH hits AS (SELECT d.id, d.title, d.deal_id, d.current_version, \
                 ts_rank(d.search, to_tsquery('simple', $1))::float8 AS rank FROM documents d {filter} \
                 ORDER BY rank DESC, d.id DESC {bounds}) \
                 SELECT h.*, v.text FROM hits h \
                 JOIN document_versions v ON v.document_id = h.id AND v.version = h.current_version \
                 ORDER BY h.rank DESC, h.id DESC"
            ))
            .await
            .map_err(unavailable)?;
        let rows = client.query(&statement, &params).await.map_err(unavailable)?;
        rows.iter()
            .map(|row| {
                Ok(CorpusDocument {
                    id: document_id(column(row, "id")?)?,
                    title: column(row, "title")?,
                    deal_id: column(row, "deal_id")?,
                    text: column(row, "text")?,
                    rank: column(row, "rank")?,
                })
            })
            .collect()
    }
}

/// `a | b | c` over the distinct alphanumeric words of `terms`, safe to hand to `to_tsquery`
/// (no operators or quotes can get through); `None` when no word is left.
fn any_term_query(terms: &[String]) -> Option<String> {
    let mut words: Vec<String> = terms.iter().flat_map(|term| search_terms(term)).collect();
    words.sort();
    words.dedup();
    (!words.is_empty()).then(|| words.join(" | "))
}

impl From<Refused> for DocumentChangeError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::Quota(exceeded) => DocumentChangeError::QuotaExceeded(exceeded),
            Refused::Store(error) => DocumentChangeError::Store(error),
        }
    }
}
