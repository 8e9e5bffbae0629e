//! Word documents (DOCX): the ZIP package is opened with `zip`, `word/document.xml` is inflated
//! up to a cap (a zip bomb is refused when it passes the cap, never inflated whole; a size that
//! lies in the ZIP headers is caught by `zip` itself), and the XML is walked with `quick-xml`:
//! paragraphs, tables (rows and cells, in document order), tabs and breaks. Deleted text of
//! tracked changes and field codes are not text, nor the fallback copy Word saves of a text box.
//!
//! A paragraph in a preformatted style (what Word and LibreOffice make of a typed filing's
//! `<pre>`: a paragraph per typed line) keeps its spaces, and follows the line above it without a
//! blank line, as the typed text did: its tables are aligned by spaces alone.

use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesRef, Event};

use super::layout::Layout;
use crate::domain::intake::{MediaType, ReadDocument, ReadError};

/// The most `word/document.xml` may inflate to: far above any credit agreement (a 400-page one is
/// about 6 MiB of XML) and far below what would hurt.
pub const MAX_DOCUMENT_XML_BYTES: u64 = 128 * 1024 * 1024;

/// Reads a DOCX file.
///
/// # Errors
/// [`ReadError::Corrupt`] for a file that is not a readable Word package, [`ReadError::Expands`]
/// for one that inflates past [`MAX_DOCUMENT_XML_BYTES`], [`ReadError::TextTooLong`].
pub fn read_docx(bytes: &[u8], max_text_bytes: usize) -> Result<ReadDocument, ReadError> {
    read_docx_within(bytes, max_text_bytes, MAX_DOCUMENT_XML_BYTES)
}

fn read_docx_within(bytes: &[u8], max_text_bytes: usize, max_xml_bytes: u64) -> Result<ReadDocument, ReadError> {
    let corrupt = |reason: String| ReadError::corrupt(MediaType::Docx, reason);
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| corrupt(e.to_string()))?;
    let entry = archive
        .by_name("word/document.xml")
        .map_err(|_| corrupt("it is a ZIP package without word/document.xml, so not a Word document".into()))?;
    let mut xml = Vec::new();
    entry
        .take(max_xml_bytes + 1)
        .read_to_end(&mut xml)
        .map_err(|e| corrupt(format!("word/document.xml cannot be inflated: {e}")))?;
    if xml.len() as u64 > max_xml_bytes {
        return Err(ReadError::Expands { limit_bytes: max_xml_bytes });
    }
    let xml = String::from_utf8(xml).map_err(|_| corrupt("word/document.xml is not UTF-8".into()))?;
    let text = walk(&xml, max_text_bytes).map_err(|e| corrupt(format!("word/document.xml: {e}")))?;
    text.map(|text| ReadDocument::from_text(&text))
}

/// The document's text in the common layout, or `Err` for XML that does not parse.
fn walk(xml: &str, max_text_bytes: usize) -> Result<Result<String, ReadError>, quick_xml::Error> {
    let mut reader = Reader::from_str(xml);
    let mut out = Layout::new(max_text_bytes);
    // Inside <w:t>: its characters are text. Inside <w:delText>/<w:instrText>: they are not.
    let mut in_text = false;
    // Depth inside <mc:Fallback>: Word saves a text box (or other newer content) twice, as
    // <mc:Choice> for readers that know it and as <mc:Fallback> (VML) for those that do not; the
    // fallback is the same text again.
    let mut in_fallback = 0usize;
    // Typed lines end without a blank line after them; the block after the last one is set
    // apart from it.
    let mut after_typed_lines = false;
    // The run's properties strike it through: a redline's deleted text, which the document as
    // amended no longer says.
    let mut run_struck = false;
    loop {
        let event = reader.read_event()?;
        match &event {
            Event::Start(tag) if tag.local_name().as_ref() == "Fallback" => {
                in_fallback += 1;
                continue;
            }
            Event::End(tag) if tag.local_name().as_ref() == "Fallback" => {
                in_fallback = in_fallback.saturating_sub(1);
                continue;
            }
            Event::Eof => break,
            _ if in_fallback > 0 => continue,
            _ => {}
        }
        match event {
            Event::Start(tag) => match tag.local_name().as_ref() {
                "t" => in_text = true,
                "r" => run_struck = false,
                "tr" => out.end_row(),
                "tc" => out.end_cell(),
                "tbl" if std::mem::take(&mut after_typed_lines) => out.blank_line_before(),
                _ => {}
            },
            Event::Empty(tag) => match tag.local_name().as_ref() {
                "pStyle" if !out.in_table() => {
                    out.preformatted = tag
                        .attributes()
                        .flatten()
                        .any(|a| a.key.local_name().as_ref() == "val" && is_preformatted_style(&a.value));
                }
                "strike" | "dstrike" => {
                    run_struck = !tag.attributes().flatten().any(|a| {
                        a.key.local_name().as_ref() == "val" && matches!(a.value.as_ref(), "false" | "0" | "off")
                    })
                }
                "tab" if !run_struck => out.characters(" "),
                "br" | "cr" => out.line_break(),
                _ => {}
            },
            Event::End(tag) => match tag.local_name().as_ref() {
                "t" => in_text = false,
                "r" => run_struck = false,
                "p" if out.preformatted => {
                    // A typed line: an empty one is the blank line between blocks.
                    out.preformatted_line_end();
                    out.preformatted = false;
                    after_typed_lines = true;
                }
                "p" => {
                    if std::mem::take(&mut after_typed_lines) {
                        out.blank_line_before();
                    }
                    out.block();
                }
                "tc" => out.end_cell(),
                "tr" => out.end_row(),
                "tbl" => {
                    out.end_row();
                    out.block();
                }
                _ => {}
            },
            Event::Text(text) if in_text && !run_struck => out.characters(&text.xml10_content()),
            Event::CData(text) if in_text && !run_struck => out.characters(&text.into_inner()),
            Event::GeneralRef(reference) if in_text && !run_struck => out.characters(&resolve(&reference)),
            Event::Eof => break,
            _ => {}
        }
        if out.overflowed {
            return Ok(Err(ReadError::TextTooLong { limit_bytes: max_text_bytes as u64 }));
        }
    }
    Ok(Ok(out.finish()))
}

/// The styles Word ("HTML Preformatted", saved as `HTMLPreformatted`) and LibreOffice
/// ("Preformatted Text") give the lines of an HTML `<pre>`.
fn is_preformatted_style(name: &str) -> bool {
    matches!(name, "HTMLPreformatted" | "PreformattedText" | "Preformatted Text" | "HTML Preformatted")
}

/// `&amp;` and the other entities XML predefines, and character references.
fn resolve(reference: &BytesRef<'_>) -> String {
    if let Ok(Some(c)) = reference.resolve_char_ref() {
        return c.to_string();
    }
    match &**reference {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        _ => "",
    }
    .to_owned()
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write as _;

    use zip::write::SimpleFileOptions;

    use super::*;

    /// A minimal Word package around `body` (the children of `<w:body>`).
    pub(crate) fn docx(body: &str) -> Vec<u8> {
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\
             <w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\" \
             xmlns:mc=\"http://schemas.openxmlformats.org/markup-compatibility/2006\" \
             xmlns:wps=\"http://schemas.microsoft.com/office/word/2010/wordprocessingShape\" \
             xmlns:v=\"urn:schemas-microsoft-com:vml\"><w:body>{body}</w:body></w:document>"
        );
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("[Content_Types].xml", options).unwrap();
        zip.write_all(b"<Types/>").unwrap();
        zip.start_file("word/document.xml", options).unwrap();
        zip.write_all(xml.as_bytes()).unwrap();
        zip.finish().unwrap().into_inner()
    }

    fn paragraph(text: &str) -> String {
        format!("<w:p><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>")
    }

    #[test]
    fn paragraphs_and_tables_are_read_in_document_order() {
        let cell = |t: &str| format!("<w:tc>{}</w:tc>", paragraph(t));
        let body = format!(
            "{}<w:tbl><w:tr>{}{}{}</w:tr><w:tr>{}{}{}</w:tr></w:tbl>{}",
            paragraph("“Applicable Margin” means:"),
            cell("Level"),
            cell("Leverage"),
            cell("Term SOFR"),
            cell("I"),
            cell("&gt; 3.50:1.00"),
            cell("2.50%"),
            "<w:p><w:r><w:t>AT&amp;T</w:t><w:tab/><w:t>Capital</w:t></w:r><w:r><w:delText>gone</w:delText></w:r></w:p>"
        );
        let text = read_docx(&docx(&body), 1 << 20).unwrap().text;
        assert_eq!(
            text,
            "“Applicable Margin” means:\n\nLevel | Leverage | Term SOFR\nI | > 3.50:1.00 | 2.50%\n\nAT&T Capital"
        );
    }

    #[test]
    fn typed_lines_in_a_preformatted_style_keep_their_spaces_and_follow_each_other() {
        // As LibreOffice saves a filing's <pre>: a paragraph per typed line, the indentation in
        // a run of its own; an empty paragraph is the typed blank line.
        let typed = |style: &str, runs: &[&str]| {
            let runs: String =
                runs.iter().map(|r| format!("<w:r><w:t xml:space=\"preserve\">{r}</w:t></w:r>")).collect();
            format!("<w:p><w:pPr><w:pStyle w:val=\"{style}\"/></w:pPr>{runs}</w:p>")
        };
        let body = [
            typed("PreformattedText", &["         ", "Level      Ratio          Margin"]),
            typed("PreformattedText", &["         ", "I          &lt; 2.00:1       1.25%"]),
            typed("PreformattedText", &[]),
            typed("HTMLPreformatted", &["  ", "(a)  Section  2.1"]),
            typed("BodyText", &["Signed   in   New York."]),
        ]
        .concat();
        let text = read_docx(&docx(&body), 1 << 20).unwrap().text;
        assert_eq!(
            text,
            "         Level      Ratio          Margin\n         I          < 2.00:1       1.25%\n\n  (a)  Section  2.1\n\nSigned in New York."
        );
    }

    #[test]
    fn runs_a_redline_strikes_through_are_not_read() {
        let run = |props: &str, text: &str| {
            format!("<w:r><w:rPr>{props}</w:rPr><w:t xml:space=\"preserve\">{text}</w:t></w:r>")
        };
        let body = format!(
            "<w:p>{}{}{}{}{}</w:p>",
            run("", "Maturity: "),
            run("<w:strike/>", "May 1, 2024"),
            run("<w:u w:val=\"single\"/>", "May 1, 2027"),
            run("<w:dstrike w:val=\"true\"/>", " and 2028"),
            run("<w:strike w:val=\"false\"/>", "; margin 1.50%"),
        );
        let read = read_docx(&docx(&body), 1 << 20).unwrap();
        assert_eq!(read.text, "Maturity: May 1, 2027; margin 1.50%");
    }

    #[test]
    fn a_text_box_saved_with_its_fallback_is_read_once() {
        // As Word (and LibreOffice) save a text box: the drawing for readers that know it, and
        // the same text again as VML for those that do not.
        let text_box = |inner: &str| format!("<w:txbxContent>{}</w:txbxContent>", paragraph(inner));
        let body = format!(
            "<w:p><w:r><w:t xml:space=\"preserve\">Loan and Security Agreement </w:t></w:r><w:r>\
             <mc:AlternateContent><mc:Choice Requires=\"wps\"><w:drawing><wps:txbx>{}</wps:txbx></w:drawing></mc:Choice>\
             <mc:Fallback><w:pict><v:rect><v:textbox>{}</v:textbox></v:rect></w:pict></mc:Fallback></mc:AlternateContent>\
             </w:r></w:p>{}",
            text_box("Page 7"),
            text_box("Page 7"),
            paragraph("SECTION 2. LOANS")
        );
        let text = read_docx(&docx(&body), 1 << 20).unwrap().text;
        assert_eq!(text.matches("Page 7").count(), 1, "{text}");
        assert!(text.ends_with("SECTION 2. LOANS"), "{text}");
    }

    #[test]
    fn a_word_file_and_a_zip_bomb_made_outside_the_tests() {
        let dir = format!("{}/tests/fixtures/intake", env!("CARGO_MANIFEST_DIR"));
        let text = read_docx(&std::fs::read(format!("{dir}/agreement.docx")).unwrap(), 1 << 20).unwrap().text;
        assert!(text.contains("\nI | > 3.00:1.00 | 2.25% | 1.25%\n"), "{text}");
        let bomb = std::fs::read(format!("{dir}/bomb.docx")).unwrap();
        assert_eq!(read_docx(&bomb, usize::MAX), Err(ReadError::Expands { limit_bytes: MAX_DOCUMENT_XML_BYTES }));
    }

    #[test]
    fn a_zip_without_a_document_a_broken_zip_and_a_bomb_are_refused() {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        zip.start_file("other.xml", SimpleFileOptions::default()).unwrap();
        zip.write_all(b"<x/>").unwrap();
        let not_word = zip.finish().unwrap().into_inner();
        assert!(matches!(read_docx(&not_word, 1 << 20), Err(ReadError::Corrupt { .. })));

        let whole = docx(&paragraph("CREDIT AGREEMENT"));
        assert!(matches!(read_docx(&whole[..whole.len() / 2], 1 << 20), Err(ReadError::Corrupt { .. })));

        // 8 MiB of one repeated paragraph deflates to a few KB; with a 1 MiB cap it is refused
        // having inflated no more than the cap (the real cap is larger, the rule the same).
        let bomb = docx(&paragraph(&"A".repeat(1000)).repeat(8 * 1024));
        assert!(bomb.len() < 100 * 1024, "bomb is {} bytes", bomb.len());
        assert_eq!(read_docx_within(&bomb, usize::MAX, 1 << 20), Err(ReadError::Expands { limit_bytes: 1 << 20 }));
    }
}
