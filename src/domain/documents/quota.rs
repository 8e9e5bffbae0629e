//! How much one user may keep in storage: a number of documents, a number of statement sets, and
//! a number of bytes over all of them (every version's text and uploaded file, every set as
//! stored). A write that would go beyond any limit is refused whole; the store checks and writes
//! under one lock per owner, so concurrent uploads cannot both slip under a limit only one of them
//! fits. A deletion gives its record's share back.

/// The limits of one owner's storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentQuota {
    pub max_documents: u64,
    pub max_statement_sets: u64,
    /// Bytes over every version of every document the owner has (text and uploaded file) and
    /// every statement set (as stored).
    pub max_bytes: u64,
}

impl DocumentQuota {
    /// Large enough never to bind: for stores written by trusted code (tests, imports).
    pub const UNLIMITED: Self = Self { max_documents: u64::MAX, max_statement_sets: u64::MAX, max_bytes: u64::MAX };
}

/// What an owner keeps, or what one write adds to it (or one deletion gives back).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StorageUsage {
    pub documents: u64,
    pub statement_sets: u64,
    pub bytes: u64,
}

impl StorageUsage {
    /// What a new document with its first version of `bytes` adds.
    pub fn new_document(bytes: u64) -> Self {
        Self { documents: 1, statement_sets: 0, bytes }
    }

    /// What another version of `bytes` adds to a document already counted.
    pub fn new_version(bytes: u64) -> Self {
        Self { documents: 0, statement_sets: 0, bytes }
    }

    /// What a statement set of `bytes` adds.
    pub fn new_statement_set(bytes: u64) -> Self {
        Self { documents: 0, statement_sets: 1, bytes }
    }

    /// This usage with `write` added (saturating: a ledger cannot wrap around).
    #[must_use]
    pub fn plus(self, write: Self) -> Self {
        Self {
            documents: self.documents.saturating_add(write.documents),
            statement_sets: self.statement_sets.saturating_add(write.statement_sets),
            bytes: self.bytes.saturating_add(write.bytes),
        }
    }

    /// This usage with `freed` given back (never below zero).
    #[must_use]
    pub fn minus(self, freed: Self) -> Self {
        Self {
            documents: self.documents.saturating_sub(freed.documents),
            statement_sets: self.statement_sets.saturating_sub(freed.statement_sets),
            bytes: self.bytes.saturating_sub(freed.bytes),
        }
    }
}

/// Which limit a write would break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaKind {
    Documents,
    StatementSets,
    Bytes,
}

impl QuotaKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Documents => "documents",
            Self::StatementSets => "statement_sets",
            Self::Bytes => "bytes",
        }
    }
}

/// A write refused by the quota; nothing was stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("storage quota exceeded: {used} of {limit} {} in use, this write needs {requested} more", .kind.as_str())]
pub struct QuotaExceeded {
    pub kind: QuotaKind,
    pub limit: u64,
    pub used: u64,
    pub requested: u64,
}

impl DocumentQuota {
    /// Whether `usage` has room for `write`.
    ///
    /// # Errors
    /// [`QuotaExceeded`] naming the first limit the write would break (documents, statement sets,
    /// bytes).
    pub fn admit(&self, usage: StorageUsage, write: StorageUsage) -> Result<(), QuotaExceeded> {
        let limits = [
            (QuotaKind::Documents, self.max_documents, usage.documents, write.documents),
            (QuotaKind::StatementSets, self.max_statement_sets, usage.statement_sets, write.statement_sets),
            (QuotaKind::Bytes, self.max_bytes, usage.bytes, write.bytes),
        ];
        for (kind, limit, used, requested) in limits {
            if requested > 0 && used.saturating_add(requested) > limit {
                return Err(QuotaExceeded { kind, limit, used, requested });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUOTA: DocumentQuota = DocumentQuota { max_documents: 2, max_statement_sets: 1, max_bytes: 100 };

    fn usage(documents: u64, statement_sets: u64, bytes: u64) -> StorageUsage {
        StorageUsage { documents, statement_sets, bytes }
    }

    #[test]
    fn a_write_that_fits_exactly_is_admitted() {
        assert_eq!(QUOTA.admit(usage(1, 0, 60), StorageUsage::new_document(40)), Ok(()));
        assert_eq!(QUOTA.admit(usage(2, 0, 60), StorageUsage::new_version(40)), Ok(()));
        assert_eq!(QUOTA.admit(usage(2, 0, 60), StorageUsage::new_statement_set(40)), Ok(()));
    }

    #[test]
    fn the_first_limit_broken_is_named_with_its_figures() {
        let count = QUOTA.admit(usage(2, 0, 0), StorageUsage::new_document(1)).unwrap_err();
        assert_eq!((count.kind, count.limit, count.used, count.requested), (QuotaKind::Documents, 2, 2, 1));
        let bytes = QUOTA.admit(usage(1, 0, 60), StorageUsage::new_version(41)).unwrap_err();
        assert_eq!((bytes.kind, bytes.limit, bytes.used, bytes.requested), (QuotaKind::Bytes, 100, 60, 41));
        assert!(bytes.to_string().contains("60 of 100 bytes"), "{bytes}");
    }

    #[test]
    fn statement_sets_have_their_own_count_and_share_the_bytes() {
        let sets = QUOTA.admit(usage(0, 1, 0), StorageUsage::new_statement_set(1)).unwrap_err();
        assert_eq!((sets.kind, sets.limit, sets.used), (QuotaKind::StatementSets, 1, 1));
        assert!(sets.to_string().contains("1 of 1 statement_sets"), "{sets}");
        // A full count of documents does not stop a set, but the documents' bytes do.
        assert_eq!(QUOTA.admit(usage(2, 0, 50), StorageUsage::new_statement_set(50)), Ok(()));
        let bytes = QUOTA.admit(usage(2, 0, 90), StorageUsage::new_statement_set(11)).unwrap_err();
        assert_eq!(bytes.kind, QuotaKind::Bytes);
    }

    #[test]
    fn a_deletion_gives_back_what_its_write_added() {
        let before = usage(1, 1, 70);
        let write = StorageUsage::new_statement_set(30);
        assert_eq!(before.plus(write).minus(write), before);
        assert_eq!(usage(0, 0, 5).minus(StorageUsage::new_document(9)), usage(0, 0, 0), "never below zero");
    }

    #[test]
    fn unlimited_never_binds() {
        let usage = usage(u64::MAX - 1, u64::MAX - 1, u64::MAX - 1);
        assert_eq!(DocumentQuota::UNLIMITED.admit(usage, StorageUsage::new_document(1)), Ok(()));
        assert_eq!(DocumentQuota::UNLIMITED.admit(usage, StorageUsage::new_statement_set(1)), Ok(()));
    }
}
