//! Plain text, and the decoding every text-bearing format shares: UTF-8 when the bytes are UTF-8
//! (a byte-order mark dropped), UTF-16 with a byte-order mark, otherwise windows-1252, the code
//! page of most older EDGAR filings (`0x92` is `’`), which decodes every byte.

use encoding_rs::{UTF_16BE, UTF_16LE, WINDOWS_1252};

use crate::domain::intake::{ReadDocument, ReadError};

/// Decodes the bytes of a text or HTML file.
pub fn decode(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return String::from_utf8_lossy(rest).into_owned();
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return UTF_16LE.decode_without_bom_handling(rest).0.into_owned();
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return UTF_16BE.decode_without_bom_handling(rest).0.into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => WINDOWS_1252.decode_without_bom_handling(bytes).0.into_owned(),
    }
}

/// Reads a text file. EDGAR text filings mark their printed pages with `<PAGE>` lines: they become
/// page breaks, so a quote can say its page.
///
/// # Errors
/// [`ReadError::TextTooLong`] past `max_text_bytes`.
pub fn read_text(bytes: &[u8], max_text_bytes: usize) -> Result<ReadDocument, ReadError> {
    let text = decode(bytes).replace("\r\n", "\n").replace(['\r', '\u{0c}'], "\n");
    if text.len() > max_text_bytes {
        return Err(ReadError::TextTooLong { limit_bytes: max_text_bytes as u64 });
    }
    let is_marker = |line: &str| line.trim().eq_ignore_ascii_case("<PAGE>");
    if !text.lines().any(is_marker) {
        return Ok(ReadDocument::from_text(&text));
    }
    let mut pages = vec![String::new()];
    for line in text.lines() {
        if is_marker(line) {
            pages.push(String::new());
        } else if let Some(page) = pages.last_mut() {
            page.push_str(line);
            page.push('\n');
        }
    }
    // Text before the first marker is a page only when it has words (the SGML header has few).
    let mut read = ReadDocument::from_pages(pages);
    // A short page of a text filing is a short page, not a scan.
    read.pages_without_text.clear();
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_windows_1252_and_utf16_are_decoded() {
        assert_eq!(decode("£10,000,000 – Lender’s".as_bytes()), "£10,000,000 – Lender’s");
        assert_eq!(decode(b"Lender\x92s \x93Commitment\x94"), "Lender’s “Commitment”");
        assert_eq!(decode(b"\xEF\xBB\xBFCREDIT"), "CREDIT");
        assert_eq!(decode(b"\xFF\xFEC\x00A\x00"), "CA");
    }

    #[test]
    fn edgar_page_markers_become_pages() {
        let filing = "CREDIT AGREEMENT dated as of June 30, 1995 among the parties hereto\r\n<PAGE>\r\n\
                      SECTION 1. DEFINITIONS. As used in this Agreement the terms below\r\n<PAGE>\r\n  2\r\n";
        let read = read_text(filing.as_bytes(), 1 << 20).unwrap();
        assert!(!read.text.contains("<PAGE>"));
        let section = read.text.find("SECTION 1").unwrap();
        assert_eq!(read.pages.page_of(section), Some(2));
        assert_eq!(read.pages.starts().len(), 3);
        assert!(read.pages_without_text.is_empty());
        assert_eq!(read_text(b"no pages here", 1 << 20).unwrap().pages.page_of(0), None);
        assert!(matches!(read_text(filing.as_bytes(), 10), Err(ReadError::TextTooLong { .. })));
    }
}
