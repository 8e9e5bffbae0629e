//! Reading an uploaded file (PDF, HTML, DOCX, text) into the text extraction works on, and a
//! statements spreadsheet (XLSX, CSV) into its cells. The parsers of untrusted files are adapters,
//! and an adapter is expected to bound the time and the memory a file may take.

use async_trait::async_trait;
use bytes::Bytes;

use crate::domain::auth::UserId;
use crate::domain::intake::{MediaType, ReadDocument, ReadError};
use crate::domain::statements::sheet::{Grid, SheetFormat};

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait DocumentReader: Send + Sync + 'static {
    /// Reads `bytes`, already checked to be a file of `media_type`, for `reader`: the readers are
    /// shared fairly among the users who send files.
    ///
    /// # Errors
    /// A [`ReadError`] saying what is wrong with the file ([`ReadError::TooCostly`] for one that
    /// cannot be read within the read budget), [`ReadError::Busy`] when no reader came free in
    /// time, [`ReadError::Failed`] when the reader itself broke.
    async fn read(&self, reader: UserId, media_type: MediaType, bytes: Bytes) -> Result<ReadDocument, ReadError>;
}

/// Reading an uploaded spreadsheet of financial statements into its cells. The parsers are as
/// untrusted as the documents' and bounded the same way, in the same readers.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait SheetReader: Send + Sync + 'static {
    /// Reads `bytes`, a spreadsheet of `format`, for `reader`, in their turn among users.
    ///
    /// # Errors
    /// As [`DocumentReader::read`]: [`ReadError::Corrupt`], [`ReadError::Expands`] and the limits'
    /// errors for the file, [`ReadError::Busy`], [`ReadError::Failed`].
    async fn read_sheet(&self, reader: UserId, format: SheetFormat, bytes: Bytes) -> Result<Grid, ReadError>;
}
