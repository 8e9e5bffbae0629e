//! The media types a credit document may be uploaded as, and the check of a declared type
//! against the bytes.

use std::fmt;

/// A file format the service reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MediaType {
    Pdf,
    Html,
    Docx,
    Text,
}

/// The declared type and what the bytes are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the file was sent as {declared} but {found}")]
pub struct MediaMismatch {
    pub declared: MediaType,
    pub found: &'static str,
}

const DOCX_MIME: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/// How far into a file its kind is looked for: EDGAR files open with an SGML header of a few
/// hundred bytes before the markup.
const SNIFF_WINDOW: usize = 8 * 1024;

impl MediaType {
    pub const ALL: [MediaType; 4] = [MediaType::Pdf, MediaType::Html, MediaType::Docx, MediaType::Text];

    /// The canonical MIME type.
    pub fn mime(&self) -> &'static str {
        match self {
            MediaType::Pdf => "application/pdf",
            MediaType::Html => "text/html",
            MediaType::Docx => DOCX_MIME,
            MediaType::Text => "text/plain",
        }
    }

    /// The usual file extension, for downloads.
    pub fn extension(&self) -> &'static str {
        match self {
            MediaType::Pdf => "pdf",
            MediaType::Html => "htm",
            MediaType::Docx => "docx",
            MediaType::Text => "txt",
        }
    }

    /// The canonical MIME types of every accepted format, for error messages.
    pub fn accepted() -> Vec<&'static str> {
        Self::ALL.iter().map(MediaType::mime).collect()
    }

    /// Reads a `Content-Type` value (parameters such as `charset` ignored). `None` for a type that
    /// is not accepted.
    pub fn from_content_type(value: &str) -> Option<Self> {
        let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        match essence.as_str() {
            "application/pdf" => Some(MediaType::Pdf),
            "text/html" | "application/xhtml+xml" => Some(MediaType::Html),
            DOCX_MIME => Some(MediaType::Docx),
            "text/plain" => Some(MediaType::Text),
            _ => None,
        }
    }

    /// The type a file name's extension names (`.pdf`, `.htm`/`.html`, `.docx`, `.txt`).
    pub fn from_file_name(name: &str) -> Option<Self> {
        let (_, extension) = name.rsplit_once('.')?;
        match extension.to_ascii_lowercase().as_str() {
            "pdf" => Some(MediaType::Pdf),
            "htm" | "html" => Some(MediaType::Html),
            "docx" => Some(MediaType::Docx),
            "txt" => Some(MediaType::Text),
            _ => None,
        }
    }

    /// Parses the stored name ([`Self::mime`]).
    pub fn from_mime(mime: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.mime() == mime)
    }

    /// Checks that `bytes` are a file of this type, by what they are rather than what they are
    /// called: a file of one type sent as another is refused before any parser sees it.
    ///
    /// # Errors
    /// [`MediaMismatch`] saying what the bytes look like.
    pub fn check(self, bytes: &[u8]) -> Result<(), MediaMismatch> {
        let found = Sniffed::of(bytes);
        let fits = match self {
            MediaType::Pdf => found == Sniffed::Pdf,
            MediaType::Docx => found == Sniffed::Zip,
            MediaType::Html => found == Sniffed::Markup,
            MediaType::Text => found == Sniffed::Text,
        };
        if fits { Ok(()) } else { Err(MediaMismatch { declared: self, found: found.describe() }) }
    }
}

impl fmt::Display for MediaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mime())
    }
}

/// What the first bytes of a file say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sniffed {
    Pdf,
    Zip,
    Markup,
    Text,
    Binary,
    Empty,
}

impl Sniffed {
    fn of(bytes: &[u8]) -> Self {
        let head = &bytes[..bytes.len().min(SNIFF_WINDOW)];
        // A PDF may carry a few bytes of junk before its header; readers accept it within 1 KiB.
        if head[..head.len().min(1024)].windows(5).any(|w| w == b"%PDF-") {
            return Sniffed::Pdf;
        }
        if head.starts_with(b"PK\x03\x04") {
            return Sniffed::Zip;
        }
        if head.iter().all(u8::is_ascii_whitespace) {
            return Sniffed::Empty;
        }
        if looks_binary(head) {
            return Sniffed::Binary;
        }
        if has_html_markup(head) { Sniffed::Markup } else { Sniffed::Text }
    }

    fn describe(self) -> &'static str {
        match self {
            Sniffed::Pdf => "its bytes are a PDF",
            Sniffed::Zip => "its bytes are a ZIP package (such as a DOCX)",
            Sniffed::Markup => "its bytes are HTML markup",
            Sniffed::Text => "its bytes are plain text",
            Sniffed::Binary => "its bytes are binary data of no accepted type",
            Sniffed::Empty => "it is empty",
        }
    }
}

/// NUL bytes or other control characters that text does not contain. UTF-16 text (with a BOM)
/// counts as text.
fn looks_binary(head: &[u8]) -> bool {
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return false;
    }
    let controls = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C)).count();
    head.contains(&0) || controls * 100 > head.len()
}

/// Whether the head of a file holds the elements an HTML document is made of. Old EDGAR text
/// filings carry SGML tags of their own (`<PAGE>`, `<TYPE>`, `<S>`, `<C>`), which are not HTML.
fn has_html_markup(head: &[u8]) -> bool {
    let lower = head.to_ascii_lowercase();
    // An EDGAR text filing opens with its SGML envelope and lays tables out in `<TABLE>`,
    // `<CAPTION>`, `<S>`, `<C>` tags of its own; only an HTML document inside it is markup.
    let envelope = [b"<document>".as_slice(), b"<sec-document>", b"<sec-header>", b"<type>"];
    if envelope.iter().any(|opening| lower.trim_ascii_start().starts_with(opening)) {
        const HTML: [&[u8]; 3] = [b"<!doctype html", b"<html", b"<body"];
        return HTML.iter().any(|element| lower.windows(element.len()).any(|w| w == *element));
    }
    const ELEMENTS: [&[u8]; 9] =
        [b"<!doctype html", b"<html", b"<body", b"<head", b"<p>", b"<p ", b"<div", b"<table", b"<font"];
    ELEMENTS.iter().any(|element| lower.windows(element.len()).any(|w| w == *element))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_are_read_by_their_essence() {
        assert_eq!(MediaType::from_content_type("text/html; charset=windows-1252"), Some(MediaType::Html));
        assert_eq!(MediaType::from_content_type("Application/PDF"), Some(MediaType::Pdf));
        assert_eq!(MediaType::from_content_type(DOCX_MIME), Some(MediaType::Docx));
        assert_eq!(MediaType::from_content_type("image/png"), None);
        assert_eq!(MediaType::from_content_type("application/msword"), None);
    }

    #[test]
    fn each_type_is_recognised_by_its_bytes() {
        assert!(MediaType::Pdf.check(b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj").is_ok());
        assert!(MediaType::Docx.check(b"PK\x03\x04\x14\x00\x06\x00").is_ok());
        let edgar = b"<DOCUMENT>\n<TYPE>EX-10.1\n<TEXT>\n<HTML><BODY><P ALIGN=\"CENTER\">CREDIT AGREEMENT</P>";
        assert!(MediaType::Html.check(edgar).is_ok());
        let old_text = b"<DOCUMENT>\n<TYPE>EX-10\n<TEXT>\n<PAGE>\n                    CREDIT AGREEMENT\n";
        assert!(MediaType::Text.check(old_text).is_ok());
        assert!(MediaType::Text.check("Pr\u{e9}t \u{2014} \u{a3}10,000,000".as_bytes()).is_ok());
        assert!(MediaType::Text.check(b"CREDIT AGREEMENT dated as of March 1, 1996\x92s").is_ok(), "windows-1252");
    }

    #[test]
    fn a_file_sent_as_another_type_is_a_mismatch_that_says_what_it_is() {
        let pdf_as_docx = MediaType::Docx.check(b"%PDF-1.4 ...").unwrap_err();
        assert_eq!(pdf_as_docx.to_string(), format!("the file was sent as {DOCX_MIME} but its bytes are a PDF"));
        assert!(MediaType::Pdf.check(b"PK\x03\x04").is_err());
        assert!(MediaType::Html.check(b"CREDIT AGREEMENT\nplain words").is_err());
        assert!(MediaType::Text.check(b"<html><body>x</body></html>").is_err());
        assert!(MediaType::Text.check(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").is_err());
        assert!(MediaType::Text.check(b"   \n").is_err(), "empty");
    }

    #[test]
    fn an_edgar_text_filing_with_sgml_tables_is_text() {
        let filing = b"<DOCUMENT>\n<TYPE>EX-10.1\n<TEXT>\n<TABLE>\n<CAPTION>\n<S>    <C>\nCREDIT AGREEMENT\n</TABLE>\n";
        assert_eq!(MediaType::Text.check(filing), Ok(()));
        assert!(MediaType::Html.check(filing).is_err());
        let wrapped_html = b"<DOCUMENT>\n<TYPE>EX-10.1\n<TEXT>\n<HTML><BODY><P>CREDIT AGREEMENT</P></BODY></HTML>";
        assert_eq!(MediaType::Html.check(wrapped_html), Ok(()));
    }
}
