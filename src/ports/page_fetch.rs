//! Reading web pages for the research loop: fetch a URL and return its readable text. The adapter
//! enforces the safety limits (schemes, redirects, size, time, and the SSRF guard that refuses
//! private addresses after DNS resolution); the domain only sees text or a reason.

use async_trait::async_trait;
use url::Url;

use crate::domain::documents::archive::FilingArchive;

/// A fetched page as readable text.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchedPage {
    /// The URL that was asked for.
    pub requested_url: String,
    /// The URL the content came from, after redirects.
    pub final_url: String,
    /// The page's `<title>`, when it has one.
    pub title: Option<String>,
    /// Readable text: HTML converted to text (scripts, styles and markup removed), plain text as is.
    pub text: String,
    /// The response's media type without parameters (`text/html`, `text/plain`).
    pub content_type: String,
}

/// Why a page could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FetchError {
    /// Refused before (or while) connecting: not http/https, a private, loopback, link-local or
    /// metadata address (also when a redirect leads there), or too many redirects.
    #[error("refused: {0}")]
    Blocked(String),
    /// The body is larger than the configured cap.
    #[error("page larger than {limit_bytes} bytes")]
    TooLarge { limit_bytes: usize },
    /// No complete answer within the per-request timeout.
    #[error("timed out")]
    Timeout,
    /// Connection refused or reset, DNS or TLS failure.
    #[error("unreachable: {0}")]
    Unreachable(String),
    /// The server answered a non-success status.
    #[error("answered {0}")]
    Status(u16),
    /// A media type that is not text (PDF, images, …).
    #[error("unsupported content type {0}")]
    Unsupported(String),
}

/// A file fetched as it is served, for importing a document.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchedFile {
    /// The URL the file came from, after redirects.
    pub final_url: String,
    /// The response's media type without parameters (`application/pdf`, `text/html`, …).
    pub content_type: String,
    pub bytes: bytes::Bytes,
}

/// Fetches a file (a filing to import) byte for byte, under the same guard as pages.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait FileFetcher: Send + Sync + 'static {
    /// Fetches `url` (which `archive` admitted) as it is served, following only redirects that
    /// [`FilingArchive::follow`] admits.
    ///
    /// # Errors
    /// A [`FetchError`]: [`FetchError::Blocked`] for a redirect out of `archive`;
    /// [`FetchError::Unsupported`] for a media type that is not a document.
    async fn fetch_file(&self, url: &Url, archive: &FilingArchive) -> Result<FetchedFile, FetchError>;
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait PageFetcher: Send + Sync + 'static {
    /// Fetches `url` and converts it to text. Adapters bound how many fetches run at once, so
    /// callers may issue many concurrently.
    ///
    /// # Errors
    /// A [`FetchError`] saying why the page could not be read.
    async fn fetch(&self, url: &str) -> Result<FetchedPage, FetchError>;
}
