//! What can go wrong in a document use case, one variant per answer the caller gets (the HTTP
//! adapter maps each to its status). Uploads and the service both report through it.

use super::quota::QuotaExceeded;
use crate::domain::intake::ReadError;
use crate::ports::documents::DocumentChangeError;
use crate::ports::page_fetch::FetchError;
use crate::ports::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// A request value is missing or wrong; `field` names it.
    #[error("{field}: {message}")]
    Validation { field: &'static str, message: String },
    /// The text is longer than the configured maximum.
    #[error("text is {actual} bytes; at most {max} are accepted")]
    TooLarge { actual: usize, max: usize },
    /// No such document, or not the caller's.
    #[error("document not found")]
    NotFound,
    /// The caller's role may not take this action.
    #[error("{0}")]
    Forbidden(String),
    /// The action does not apply to the document's current state.
    #[error("{0}")]
    Conflict(String),
    /// The write would take the owner beyond their storage quota; nothing was stored.
    #[error(transparent)]
    QuotaExceeded(QuotaExceeded),
    /// A file of a type the service does not read, or whose bytes are not of its declared type.
    #[error("{message}")]
    UnsupportedMediaType { message: String },
    /// The file could not be read (damaged, encrypted, a scan, past a limit), or the reader failed.
    #[error(transparent)]
    Unreadable(ReadError),
    /// The filing to import could not be fetched.
    #[error("the filing could not be fetched: {0}")]
    Import(FetchError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DocumentChangeError> for DocumentError {
    fn from(error: DocumentChangeError) -> Self {
        match error {
            DocumentChangeError::NotFound => DocumentError::NotFound,
            DocumentChangeError::StateChanged { current } => {
                DocumentError::Conflict(format!("the document was moved to {current} meanwhile; reload and retry"))
            }
            DocumentChangeError::QuotaExceeded(exceeded) => DocumentError::QuotaExceeded(exceeded),
            DocumentChangeError::Store(error) => DocumentError::Store(error),
        }
    }
}
