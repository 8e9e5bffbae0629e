//! Uploaded files: the checks an upload passes before its text is extracted (its declared type
//! against its bytes, a text layer to read), the original bytes kept beside the text they gave,
//! and the page every quote of the extraction came from.

use bytes::Bytes;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::error::DocumentError;
use crate::domain::auth::UserId;
use crate::domain::intake::{MediaType, PageMap, ReadDocument, ReadError};
use crate::ports::reader::DocumentReader;

/// A file as uploaded: what was declared of it and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriginalFile {
    pub media_type: MediaType,
    pub bytes: Bytes,
    /// SHA-256 of the bytes, hex.
    pub sha256: String,
}

impl OriginalFile {
    pub fn new(media_type: MediaType, bytes: Bytes) -> Self {
        let sha256 = hex::encode(Sha256::digest(&bytes));
        Self { media_type, bytes, sha256 }
    }

    pub fn info(&self) -> OriginalInfo {
        OriginalInfo { media_type: self.media_type, size_bytes: self.bytes.len() as u64, sha256: self.sha256.clone() }
    }
}

/// What is listed of a stored original: its type, size and hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriginalInfo {
    pub media_type: MediaType,
    pub size_bytes: u64,
    pub sha256: String,
}

impl OriginalInfo {
    pub fn to_json(&self) -> Value {
        json!({ "media_type": self.media_type.mime(), "size_bytes": self.size_bytes, "sha256": self.sha256 })
    }
}

/// A file and the text read from it.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub original: OriginalFile,
    pub read: ReadDocument,
}

/// Checks `original` and reads it with `reader`, in `caller`'s turn.
///
/// # Errors
/// [`DocumentError::UnsupportedMediaType`] when the bytes are not what was declared;
/// [`DocumentError::Unreadable`] when the file cannot be read, or is a scan: a PDF where more than
/// half the pages, or all of them, have no text layer is refused naming them (the service does no
/// OCR; a few such pages, e.g. a scanned signature page, are listed with the extraction instead).
pub async fn read_upload(
    reader: &dyn DocumentReader,
    caller: UserId,
    original: OriginalFile,
) -> Result<SourceFile, DocumentError> {
    original
        .media_type
        .check(&original.bytes)
        .map_err(|mismatch| DocumentError::UnsupportedMediaType { message: mismatch.to_string() })?;
    let read =
        reader.read(caller, original.media_type, original.bytes.clone()).await.map_err(DocumentError::Unreadable)?;
    let pages = read.pages.starts().len();
    let blank = read.pages_without_text.len();
    if pages > 0 && (blank == pages || blank * 2 > pages) {
        return Err(DocumentError::Unreadable(ReadError::ImageOnly {
            pages: read.pages_without_text,
            total: u32::try_from(pages).unwrap_or(u32::MAX),
        }));
    }
    if read.text.trim().is_empty() {
        return Err(DocumentError::Validation { field: "file", message: "the file holds no text".into() });
    }
    Ok(SourceFile { original, read })
}

/// Where a version's text came from, as recorded with its extraction.
#[derive(Clone, Debug)]
pub struct TextSource {
    pub original: OriginalFile,
    pub pages: PageMap,
    pub pages_without_text: Vec<u32>,
}

impl TextSource {
    /// Adds `page` to every `{start, end, quote}` of a provenance map, and a `source` entry to
    /// the report: the file's type, size, hash and pages.
    pub fn annotate(&self, agreement: &mut Value, report: &mut Value) {
        for provenance in [agreement.get_mut("provenance"), report.get_mut("provenance")].into_iter().flatten() {
            self.add_pages(provenance);
        }
        if let Some(report) = report.as_object_mut() {
            let mut source = self.original.info().to_json();
            source["pages"] = json!(self.pages.starts().len());
            source["pages_without_text"] = json!(self.pages_without_text);
            report.insert("source".to_owned(), source);
        }
    }

    fn add_pages(&self, provenance: &mut Value) {
        if self.pages.is_empty() {
            return;
        }
        let Some(entries) = provenance.as_object_mut() else { return };
        for entry in entries.values_mut() {
            let page = entry.get("start").and_then(Value::as_u64).and_then(|start| self.pages.page_of(start as usize));
            if let (Some(page), Some(entry)) = (page, entry.as_object_mut()) {
                entry.insert("page".to_owned(), json!(page));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::ports::reader::MockDocumentReader;

    fn reader_returning(result: Result<ReadDocument, ReadError>) -> Arc<MockDocumentReader> {
        let mut reader = MockDocumentReader::new();
        reader.expect_read().returning(move |_, _, _| result.clone());
        Arc::new(reader)
    }

    fn pdf() -> OriginalFile {
        OriginalFile::new(MediaType::Pdf, Bytes::from_static(b"%PDF-1.7 ..."))
    }

    fn pages(texts: &[&str]) -> ReadDocument {
        ReadDocument::from_pages(texts.iter().map(|t| (*t).to_owned()))
    }

    const WORDS: &str = "The Borrower shall repay the Revolving Loans on the Maturity Date.";

    #[tokio::test]
    async fn a_declared_type_that_the_bytes_contradict_never_reaches_the_reader() {
        let mut reader = MockDocumentReader::new();
        reader.expect_read().never();
        let docx_bytes = OriginalFile::new(MediaType::Docx, Bytes::from_static(b"%PDF-1.7"));
        let error = read_upload(&reader, UserId::new_random(), docx_bytes).await.unwrap_err();
        assert!(matches!(error, DocumentError::UnsupportedMediaType { .. }), "{error}");
    }

    #[tokio::test]
    async fn a_scan_is_refused_naming_its_pages_and_a_scanned_signature_page_is_not() {
        let scan = reader_returning(Ok(pages(&["", " 2 ", WORDS])));
        let error = read_upload(scan.as_ref(), UserId::new_random(), pdf()).await.unwrap_err();
        assert!(
            matches!(&error, DocumentError::Unreadable(ReadError::ImageOnly { pages, total: 3 }) if pages == &[1, 2])
        );

        let signed = reader_returning(Ok(pages(&[WORDS, WORDS, ""])));
        let source = read_upload(signed.as_ref(), UserId::new_random(), pdf()).await.unwrap();
        assert_eq!(source.read.pages_without_text, vec![3]);
    }

    #[tokio::test]
    async fn what_the_reader_refuses_is_reported_as_is() {
        let encrypted = reader_returning(Err(ReadError::Encrypted));
        let error = read_upload(encrypted.as_ref(), UserId::new_random(), pdf()).await.unwrap_err();
        assert!(matches!(error, DocumentError::Unreadable(ReadError::Encrypted)));
    }

    #[test]
    fn every_quote_gets_its_page_and_the_report_its_source() {
        let read = pages(&[WORDS, "Section 9.09. Governing Law. New York."]);
        let law = read.text.find("New York").unwrap();
        let source = TextSource { original: pdf(), pages: read.pages.clone(), pages_without_text: vec![] };
        let mut agreement =
            json!({"provenance": {"/governingLaw": {"start": law, "end": law + 8, "quote": "New York"}}});
        let mut report = json!({"provenance": {"/borrower": {"start": 4, "end": 12, "quote": "Borrower"}}});
        source.annotate(&mut agreement, &mut report);
        assert_eq!(agreement["provenance"]["/governingLaw"]["page"], 2);
        assert_eq!(report["provenance"]["/borrower"]["page"], 1);
        assert_eq!(report["source"]["media_type"], "application/pdf");
        assert_eq!(report["source"]["pages"], 2);
        assert_eq!(report["source"]["size_bytes"], 12);
    }
}
