//! How much one user may keep in the document store: a number of documents and a number of bytes
//! of text over all their versions. A write that would go beyond either is refused whole; the
//! store checks and writes under one lock per owner, so concurrent uploads cannot both slip
//! under a limit only one of them fits.

/// The limits of one owner's storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentQuota {
    pub max_documents: u64,
    /// Bytes of text (UTF-8) over every version of every document the owner has.
    pub max_bytes: u64,
}

impl DocumentQuota {
    /// Large enough never to bind: for stores written by trusted code (tests, imports).
    pub const UNLIMITED: Self = Self { max_documents: u64::MAX, max_bytes: u64::MAX };
}

/// What an owner keeps now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StorageUsage {
    pub documents: u64,
    pub bytes: u64,
}

/// Which limit a write would break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaKind {
    Documents,
    Bytes,
}

impl QuotaKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Documents => "documents",
            Self::Bytes => "bytes",
        }
    }
}

/// A write refused by the quota; nothing was stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("document storage quota exceeded: {used} of {limit} {} in use, this write needs {requested} more", .kind.as_str())]
pub struct QuotaExceeded {
    pub kind: QuotaKind,
    pub limit: u64,
    pub used: u64,
    pub requested: u64,
}

impl DocumentQuota {
    /// Whether `usage` has room for a write of `bytes` (and one more document when `new_document`).
    ///
    /// # Errors
    /// [`QuotaExceeded`] naming the first limit the write would break.
    pub fn admit(&self, usage: StorageUsage, new_document: bool, bytes: u64) -> Result<(), QuotaExceeded> {
        if new_document && usage.documents.saturating_add(1) > self.max_documents {
            return Err(QuotaExceeded {
                kind: QuotaKind::Documents,
                limit: self.max_documents,
                used: usage.documents,
                requested: 1,
            });
        }
        if usage.bytes.saturating_add(bytes) > self.max_bytes {
            return Err(QuotaExceeded {
                kind: QuotaKind::Bytes,
                limit: self.max_bytes,
                used: usage.bytes,
                requested: bytes,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUOTA: DocumentQuota = DocumentQuota { max_documents: 2, max_bytes: 100 };

    #[test]
    fn a_write_that_fits_exactly_is_admitted() {
        assert_eq!(QUOTA.admit(StorageUsage { documents: 1, bytes: 60 }, true, 40), Ok(()));
        assert_eq!(QUOTA.admit(StorageUsage { documents: 2, bytes: 60 }, false, 40), Ok(()));
    }

    #[test]
    fn the_first_limit_broken_is_named_with_its_figures() {
        let count = QUOTA.admit(StorageUsage { documents: 2, bytes: 0 }, true, 1).unwrap_err();
        assert_eq!((count.kind, count.limit, count.used, count.requested), (QuotaKind::Documents, 2, 2, 1));
        let bytes = QUOTA.admit(StorageUsage { documents: 1, bytes: 60 }, false, 41).unwrap_err();
        assert_eq!((bytes.kind, bytes.limit, bytes.used, bytes.requested), (QuotaKind::Bytes, 100, 60, 41));
        assert!(bytes.to_string().contains("60 of 100 bytes"), "{bytes}");
    }

    #[test]
    fn unlimited_never_binds() {
        let usage = StorageUsage { documents: u64::MAX - 1, bytes: u64::MAX - 1 };
        assert_eq!(DocumentQuota::UNLIMITED.admit(usage, true, 1), Ok(()));
    }
}
