//! Reading an uploaded file (PDF, HTML, DOCX, text) into the text extraction works on. The
//! parsers of untrusted files are adapters, and an adapter is expected to bound the time and the
//! memory a file may take.

use async_trait::async_trait;
use bytes::Bytes;

use crate::domain::intake::{MediaType, ReadDocument, ReadError};

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait DocumentReader: Send + Sync + 'static {
    /// Reads `bytes`, already checked to be a file of `media_type`.
    ///
    /// # Errors
    /// A [`ReadError`] saying what is wrong with the file, [`ReadError::Busy`] when every reader is
    /// taken, [`ReadError::Failed`] when the reader itself broke.
    async fn read(&self, media_type: MediaType, bytes: Bytes) -> Result<ReadDocument, ReadError>;
}
