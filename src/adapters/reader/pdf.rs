//! PDF, page by page, with `pdf-extract` (chosen by measurement: docs/INTAKE-CRATES.md). It keeps
//! a table row on one line (cells apart by runs of spaces, read here as ` | `), paragraph starts,
//! and the text of every page apart, which is what lets every quote say its page.
//!
//! A PDF that needs a password is refused; one openable with the empty password (common for
//! "no copying" restrictions) is read. Pages are read one by one up to the count the page tree
//! declares: a page that fails is an error naming it, never a document silently cut short.
//! Parsing untrusted PDFs can exhaust memory or panic deep inside the parser: this runs in the
//! reader's worker process (see [`super::worker`]), which is killed at its limits.

use pdf_extract::{Document, PlainTextOutput, output_doc_page};

use crate::domain::intake::{MediaType, ReadDocument, ReadError};

/// More pages than any credit agreement with its exhibits; beyond it a file is refused.
pub const MAX_PAGES: usize = 5_000;

/// Reads a PDF.
///
/// # Errors
/// [`ReadError::Encrypted`], [`ReadError::Corrupt`], [`ReadError::TextTooLong`].
pub fn read_pdf(bytes: &[u8], max_text_bytes: usize) -> Result<ReadDocument, ReadError> {
    let corrupt = |reason: String| ReadError::corrupt(MediaType::Pdf, reason);
    let mut document = Document::load_mem(bytes).map_err(|e| corrupt(e.to_string()))?;
    if document.is_encrypted() && document.decrypt("").is_err() {
        return Err(ReadError::Encrypted);
    }
    let count = document.get_pages().len();
    if count == 0 {
        return Err(corrupt("it has no pages".into()));
    }
    if count > MAX_PAGES {
        return Err(corrupt(format!("it has {count} pages; at most {MAX_PAGES} are read")));
    }
    let mut pages = Vec::with_capacity(count);
    let mut total = 0;
    for number in 1..=count as u32 {
        let mut page = String::new();
        output_doc_page(&document, &mut PlainTextOutput::new(&mut page), number)
            .map_err(|e| corrupt(format!("page {number} cannot be read: {e}")))?;
        let page = cells_apart(&page);
        total += page.len();
        if total > max_text_bytes {
            return Err(ReadError::TextTooLong { limit_bytes: max_text_bytes as u64 });
        }
        pages.push(page);
    }
    Ok(ReadDocument::from_pages(pages))
}

/// `pdf-extract` puts runs of spaces between the cells of a table row; written as ` | ` the row
/// reads as the other formats' rows do. Leading indentation stays.
fn cells_apart(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for line in page.lines() {
        let indent = line.len() - line.trim_start().len();
        out.push_str(&line[..indent]);
        let cells: Vec<&str> = line[indent..].split("   ").map(str::trim).filter(|c| !c.is_empty()).collect();
        out.push_str(&cells.join(" | "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_gaps_are_cells_and_indentation_stays() {
        assert_eq!(
            cells_apart("I    > 3.50:1.00    2.50%    1.50%\n  Section 2.01 Loans.  The"),
            "I | > 3.50:1.00 | 2.50% | 1.50%\n  Section 2.01 Loans.  The\n"
        );
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/tests/fixtures/intake/{name}", env!("CARGO_MANIFEST_DIR"))).expect(name)
    }

    #[test]
    fn a_printed_agreement_is_read_page_by_page_with_its_grid_rows_whole() {
        let read = read_pdf(&fixture("agreement.pdf"), 1 << 20).unwrap();
        assert_eq!(read.pages.starts().len(), 3);
        assert!(read.pages_without_text.is_empty());
        let row = read.text.lines().find(|line| line.contains("> 3.00:1.00")).unwrap();
        assert!(row.starts_with("I ") && row.contains("2.25%") && row.ends_with("1.25%"), "{row}");
        assert!(read.text.contains("(the “Borrower”)"));
        let law = read.text.find("GOVERNED BY").unwrap();
        assert_eq!(read.pages.page_of(law), Some(3));
    }

    #[test]
    fn an_encrypted_a_truncated_and_an_image_only_pdf_are_told_apart() {
        assert_eq!(read_pdf(&fixture("encrypted.pdf"), 1 << 20), Err(ReadError::Encrypted));
        let whole = fixture("agreement.pdf");
        assert!(matches!(read_pdf(&whole[..whole.len() / 2], 1 << 20), Err(ReadError::Corrupt { .. })));
        assert_eq!(read_pdf(&fixture("image-only.pdf"), 1 << 20).unwrap().pages_without_text, vec![1, 2]);
        assert!(matches!(read_pdf(&whole, 100), Err(ReadError::TextTooLong { .. })));
    }

    #[test]
    fn what_is_not_a_pdf_is_corrupt() {
        assert!(matches!(read_pdf(b"%PDF-1.4\nnot really", 1 << 20), Err(ReadError::Corrupt { .. })));
    }
}
