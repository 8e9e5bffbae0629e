//! The text read from a file, where its pages start, and why a file could not be read.

use super::MediaType;

/// A file read into the text extraction works on.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadDocument {
    pub text: String,
    /// Where pages start, as byte offsets into `text`, in order; empty for a file without pages.
    pub pages: PageMap,
    /// Pages (1-based) with no text layer: scanned images the service does not read (no OCR).
    pub pages_without_text: Vec<u32>,
}

/// Byte offsets where each page starts: page 1 at `starts[0]` (always 0), page 2 at `starts[1]`…
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct PageMap {
    starts: Vec<usize>,
}

impl PageMap {
    pub fn new(starts: Vec<usize>) -> Self {
        Self { starts }
    }

    pub fn starts(&self) -> &[usize] {
        &self.starts
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The page (1-based) holding byte `offset`, when the file had pages.
    pub fn page_of(&self, offset: usize) -> Option<u32> {
        if self.starts.is_empty() {
            return None;
        }
        let index = self.starts.partition_point(|&start| start <= offset);
        u32::try_from(index.max(1)).ok()
    }
}

impl ReadDocument {
    /// Joins pages read one by one, a blank line between them, keeping where each starts.
    /// Every page is trimmed of blank lines at its ends; `pages_without_text` lists the pages left
    /// with nothing to read.
    pub fn from_pages<I: IntoIterator<Item = String>>(pages: I) -> Self {
        let mut read = ReadDocument::default();
        let mut starts = Vec::new();
        for (index, page) in pages.into_iter().enumerate() {
            if !read.text.is_empty() {
                read.text.push_str("\n\n");
            }
            starts.push(read.text.len());
            let page = tidy(&page);
            if page.chars().filter(|c| c.is_alphanumeric()).count() < MIN_CHARACTERS_OF_A_TEXT_PAGE {
                read.pages_without_text.push(u32::try_from(index + 1).unwrap_or(u32::MAX));
            }
            read.text.push_str(&page);
        }
        read.pages = PageMap::new(starts);
        read
    }

    /// A text without pages.
    pub fn from_text(text: &str) -> Self {
        ReadDocument { text: tidy(text), ..Default::default() }
    }
}

/// Fewer letters and digits than this on a page means nothing but a page number or a scan's
/// stray marks: the page has no text layer to read.
const MIN_CHARACTERS_OF_A_TEXT_PAGE: usize = 20;

/// Trailing spaces removed, runs of more than one blank line made one, blank lines at the ends
/// dropped: the layout readers produce, with nothing but whitespace changed; and U+0000 dropped,
/// which is no character of a document's text (a binary file's padding, a PDF's broken font map)
/// and which PostgreSQL cannot store.
fn tidy(text: &str) -> String {
    if text.contains('\0') {
        return tidy(&text.replace('\0', ""));
    }
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

/// Why a file could not be read. Every one is the file's doing and answers 422, except
/// [`ReadError::Busy`] (try again) and [`ReadError::Failed`] (the service's fault).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ReadError {
    #[error("the {media_type} file is damaged or not a valid file of its type: {reason}")]
    Corrupt { media_type: String, reason: String },
    /// The parser panicked on the file: the file's doing, answered like a damaged file with a fixed
    /// reason. `panic` is the parser's own words (`called Option::unwrap() on a None value`), for
    /// the service's log only: it describes the parser, not the file, to whoever sent it.
    #[error("the {media_type} file is damaged or not a valid file of its type: the parser could not read it")]
    ParserPanicked { media_type: String, panic: String },
    #[error("the PDF is encrypted with a password; upload an unprotected copy")]
    Encrypted,
    #[error(
        "the PDF has no text layer on {} of its {total} pages (scanned images; the service does not read images): pages {}",
        pages.len(), list_pages(pages)
    )]
    ImageOnly { pages: Vec<u32>, total: u32 },
    #[error("the file expands to more than {limit_bytes} bytes when unpacked")]
    Expands { limit_bytes: u64 },
    #[error("the text read from the file is longer than {limit_bytes} bytes")]
    TextTooLong { limit_bytes: u64 },
    #[error("reading the file took longer than {seconds} s")]
    TimedOut { seconds: u64 },
    /// Found before the budget was spent: by the work the file asks for, or by how fast its
    /// first part was read.
    #[error("the file cannot be read within the {limit_seconds} s a file may take: {reason}")]
    TooCostly { limit_seconds: u64, reason: String },
    #[error("reading the file ran past the reader's memory limit of {limit_mib} MiB, or crashed the parser")]
    OutOfMemory { limit_mib: u64 },
    #[error("every document reader is busy; try again shortly")]
    Busy,
    #[error("the document reader failed: {0}")]
    Failed(String),
}

impl ReadError {
    pub fn corrupt(media_type: MediaType, reason: impl Into<String>) -> Self {
        ReadError::Corrupt { media_type: media_type.extension().to_ascii_uppercase(), reason: reason.into() }
    }
}

/// `1-3, 7` for pages 1, 2, 3 and 7.
fn list_pages(pages: &[u32]) -> String {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &page in pages {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == page => *end = page,
            _ => ranges.push((page, page)),
        }
    }
    ranges.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_characters_are_dropped_from_the_text_read() {
        assert_eq!(
            ReadDocument::from_text("Credit\0 Agreement\n\0\0\n\nSection 1\0").text,
            "Credit Agreement\n\nSection 1"
        );
        let read = ReadDocument::from_pages(vec!["\0page one\0".to_owned(), "page two".to_owned()]);
        assert_eq!(read.text, "page one\n\npage two");
        assert_eq!(read.pages.starts(), [0, 10]);
    }

    #[test]
    fn pages_are_joined_and_each_offset_knows_its_page() {
        let read = ReadDocument::from_pages(vec![
            "CREDIT AGREEMENT  \n\n\n\ndated as of May 1, 2024\n".to_owned(),
            "\nSection 1.01 Defined Terms.\n".to_owned(),
        ]);
        assert_eq!(read.text, "CREDIT AGREEMENT\n\ndated as of May 1, 2024\n\nSection 1.01 Defined Terms.");
        let section = read.text.find("Section").unwrap();
        assert_eq!(read.pages.page_of(0), Some(1));
        assert_eq!(read.pages.page_of(section - 1), Some(1));
        assert_eq!(read.pages.page_of(section), Some(2));
        assert_eq!(read.pages.page_of(read.text.len() + 10), Some(2));
        assert_eq!(ReadDocument::from_text("x").pages.page_of(0), None);
    }

    #[test]
    fn pages_with_no_words_are_listed() {
        let text = "The Borrower shall repay the Loans in full on the Maturity Date.".to_owned();
        let read = ReadDocument::from_pages(vec![text.clone(), " 2 ".to_owned(), String::new(), text]);
        assert_eq!(read.pages_without_text, vec![2, 3]);
        let error = ReadError::ImageOnly { pages: vec![1, 2, 3, 7], total: 7 };
        assert!(error.to_string().ends_with("pages 1-3, 7"), "{error}");
    }
}
