//! Each owner's storage usage and the audit trail of deletions, in process memory: the ledger the
//! memory document and statement-set stores share, as the PostgreSQL stores share the
//! `document_usage` and `deletions` tables. A store takes the ledger's lock inside its own, never
//! the other way round, so a check and the write it admits are one step for that store.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use crate::domain::auth::UserId;
use crate::domain::documents::{DeletionRecord, DocumentQuota, QuotaExceeded, StorageUsage};
use crate::ports::deletions::DeletionTrail;
use crate::ports::store::StoreError;

#[derive(Default)]
struct Ledger {
    usage: HashMap<UserId, StorageUsage>,
    /// Oldest first.
    deletions: Vec<DeletionRecord>,
}

#[derive(Default)]
pub struct MemoryStorageLedger {
    ledger: Mutex<Ledger>,
}

impl MemoryStorageLedger {
    pub fn new() -> Self {
        Self::default()
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        // Every operation updates one owner's figures or appends one entry whole, so a poisoned lock
        // still holds consistent data.
        self.ledger.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts `write` in `owner`'s usage if `quota` has room for it. The caller makes the write
    /// while still holding its own store's lock, and makes it for sure once admitted.
    pub(super) fn admit(&self, owner: UserId, quota: DocumentQuota, write: StorageUsage) -> Result<(), QuotaExceeded> {
        let mut ledger = self.ledger();
        let usage = ledger.usage.entry(owner).or_default();
        quota.admit(*usage, write)?;
        *usage = usage.plus(write);
        Ok(())
    }

    /// Records a deletion the caller has just made (under its own lock): the entry is appended to
    /// the trail and what it freed is given back to its owner.
    pub(super) fn record_deletion(&self, entry: DeletionRecord) {
        let mut ledger = self.ledger();
        let usage = ledger.usage.entry(entry.owner).or_default();
        *usage = usage.minus(entry.freed);
        ledger.deletions.push(entry);
    }
}

#[async_trait]
impl DeletionTrail for MemoryStorageLedger {
    async fn list(&self, page: u32, limit: u32) -> Result<(Vec<DeletionRecord>, u64), StoreError> {
        let ledger = self.ledger();
        let skip = (page.saturating_sub(1) as usize).saturating_mul(limit as usize);
        let entries = ledger.deletions.iter().rev().skip(skip).take(limit as usize).cloned().collect();
        Ok((entries, ledger.deletions.len() as u64))
    }
}
