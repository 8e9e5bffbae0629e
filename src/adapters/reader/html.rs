//! HTML as EDGAR serves exhibits (upper-case tags, `&#146;` entities, windows-1252 bytes, tables
//! for layout, `<PAGE>` markers, SGML headers) read into lines: a paragraph or heading per line,
//! a table row per line with its non-empty cells separated by ` | `, so that a pricing grid is
//! still a grid.
//!
//! Only html5ever's tokenizer is used, not its tree builder: the tree builder checks the stack of
//! open elements at every tag, which is quadratic in nesting depth (200,000 nested `<div>`s hold a
//! core for minutes); the tokenizer is linear, and an unclosed `<td>`, `<tr>` or `<p>` is closed by
//! the next one here as a browser would.

use std::cell::{Cell, RefCell};

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, CharacterTokens, EndTag, StartTag, Tag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer,
    TokenizerOpts,
};

use super::layout::Layout;
use super::text::decode;
use crate::domain::intake::{ReadDocument, ReadError};

/// Reads an HTML file; `max_text_bytes` bounds the text it may produce.
///
/// # Errors
/// [`ReadError::TextTooLong`] past `max_text_bytes`.
pub fn read_html(bytes: &[u8], max_text_bytes: usize) -> Result<ReadDocument, ReadError> {
    let html = decode(bytes);
    let sink = Walker {
        out: RefCell::new(Layout::new(max_text_bytes)),
        struck: Cell::new(0),
        struck_by_style: RefCell::new(Vec::new()),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(&html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let lines = tokenizer.sink.out.into_inner();
    if lines.overflowed {
        return Err(ReadError::TextTooLong { limit_bytes: max_text_bytes as u64 });
    }
    Ok(ReadDocument::from_text(&lines.finish()))
}

/// Elements that end a line (outside a table) or a run of words (inside a cell).
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "hr",
    "blockquote",
    "center",
    "pre",
    "dl",
    "dt",
    "dd",
    "section",
    "article",
    "header",
    "footer",
    "address",
    "form",
    "caption",
    // EDGAR's SGML wrapper and page markers.
    "document",
    "type",
    "sequence",
    "filename",
    "description",
    "text",
    "page",
];

struct Walker {
    out: RefCell<Layout>,
    /// How many struck-through elements (`<strike>`, `<s>`, `<del>`) are open: a redline's
    /// deleted text, which the document as amended no longer says.
    struck: Cell<u32>,
    /// Elements struck through by their style (`<span style="text-decoration: line-through">`),
    /// outermost first: each one's tag name and how many elements of that name opened inside it
    /// are still open.
    struck_by_style: RefCell<Vec<(String, u32)>>,
}

impl Walker {
    fn in_struck_text(&self) -> bool {
        self.struck.get() > 0 || !self.struck_by_style.borrow().is_empty()
    }

    /// Follows the elements struck through by their style as tags open and close. A block's end
    /// ends the inline strikes inside it, closed or not: a filing's unclosed `<strike>` or
    /// `<font style="…line-through">` does not strike out the rest of the document.
    fn track_styled_strike(&self, tag: &Tag) {
        let name: &str = &tag.name;
        let mut stack = self.struck_by_style.borrow_mut();
        match tag.kind {
            StartTag => {
                if tag.self_closing || VOID.contains(&name) {
                    return;
                }
                if let Some((open, nested)) = stack.last_mut()
                    && open == name
                {
                    *nested += 1;
                }
                let struck = tag.attrs.iter().any(|attribute| {
                    // Most style values have no "through": found first by a fast search.
                    &*attribute.name.local == "style"
                        && (attribute.value.contains("hrough") || attribute.value.contains("HROUGH"))
                        && attribute.value.as_bytes().windows(12).any(|w| w.eq_ignore_ascii_case(b"line-through"))
                });
                if struck {
                    stack.push((name.to_owned(), 0));
                }
            }
            // Most end tags close nothing struck: nothing to follow.
            EndTag if self.struck.get() == 0 && stack.is_empty() => {}
            EndTag => {
                if BLOCKS.contains(&name) || matches!(name, "td" | "th" | "tr" | "table") {
                    self.struck.set(0);
                    while stack.last().is_some_and(|(open, _)| !BLOCKS.contains(&open.as_str()) && open != name) {
                        stack.pop();
                    }
                }
                if let Some((open, nested)) = stack.last_mut()
                    && open == name
                {
                    if *nested == 0 {
                        stack.pop();
                    } else {
                        *nested -= 1;
                    }
                }
            }
        }
    }
}

/// Elements that never have an end tag.
const VOID: &[&str] = &["br", "hr", "img", "input", "meta", "link", "col", "area", "base", "wbr", "source"];

impl TokenSink for Walker {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut out = self.out.borrow_mut();
        match token {
            CharacterTokens(text) if !self.in_struck_text() => out.characters(&text),
            TagToken(tag) => {
                self.track_styled_strike(&tag);
                let name: &str = &tag.name;
                match (tag.kind, name) {
                    (StartTag, "script" | "style") => {
                        out.skipping = true;
                        return TokenSinkResult::RawData(RawKind::ScriptData);
                    }
                    (StartTag, "title" | "textarea") => {
                        out.skipping = true;
                        return TokenSinkResult::RawData(RawKind::Rcdata);
                    }
                    (EndTag, "script" | "style" | "title" | "textarea") => out.skipping = false,
                    // Not `<s>`: EDGAR's SGML tables open a column with an `<S>` never closed.
                    (StartTag, "strike" | "del") if !tag.self_closing => self.struck.set(self.struck.get() + 1),
                    (EndTag, "strike" | "del") => self.struck.set(self.struck.get().saturating_sub(1)),
                    (StartTag, "tr") | (EndTag, "tr") => out.end_row(),
                    (StartTag, "table") | (EndTag, "table") => {
                        out.end_row();
                        out.block();
                    }
                    (_, "br") => out.line_break(),
                    (StartTag, "td" | "th") | (EndTag, "td" | "th") => out.end_cell(),
                    (StartTag, "pre") => {
                        out.block();
                        out.preformatted = true;
                    }
                    (EndTag, "pre") => {
                        out.block();
                        out.preformatted = false;
                    }
                    (_, name) if BLOCKS.contains(&name) => out.block(),
                    _ => {}
                }
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(html: &str) -> String {
        read_html(html.as_bytes(), 1 << 20).unwrap().text
    }

    #[test]
    fn text_a_redline_strikes_through_is_not_read() {
        let text = read(
            "<p>Maturity: <strike>May 1, 2024</strike><u>May 1, 2027</u>; margin <strike>1.25%</strike>1.50%; fee \
             <del>0.20%</del>0.25%.</p><p><span style=\"color: red; text-decoration: line-through\">CEDAR BANK, \
             <span>N.A.</span>,</span> BIRCH BANK, N.A.</p><p><font style=\"TEXT-DECORATION:LINE-THROUGH\">old<br>\
             words</font> new words</p>",
        );
        assert_eq!(text, "Maturity: May 1, 2027; margin 1.50%; fee 0.25%.\n\nBIRCH BANK, N.A.\n\nnew words");
    }

    #[test]
    fn a_strike_left_open_ends_with_its_block_and_an_sgml_column_tag_strikes_nothing() {
        let text = read(
            "<p>Old <strike>words <font style=\"text-decoration: line-through\">never closed</p><p>Kept text</p>\
             <TABLE><S>Amount<C>Rate</TABLE><p>After the table</p>",
        );
        assert_eq!(text, "Old\n\nKept text\n\nAmountRate\n\nAfter the table");
    }

    #[test]
    fn paragraphs_and_headings_are_lines_and_entities_are_decoded() {
        let html = "<HTML><HEAD><TITLE>ex10</TITLE><STYLE>p{x:y}</STYLE></HEAD><BODY>\
            <P ALIGN=\"CENTER\"><B>CREDIT   AGREEMENT</B></P><P>the Borrower&#146;s\n  obligations&nbsp;under</P>\
            <H2>ARTICLE I</H2>DEFINITIONS<BR>Section 1.01</BODY></HTML>";
        assert_eq!(
            read(html),
            "CREDIT AGREEMENT\n\nthe Borrower\u{2019}s obligations under\n\nARTICLE I\n\nDEFINITIONS\nSection 1.01"
        );
    }

    #[test]
    fn a_pricing_grid_keeps_one_row_per_line_with_signs_joined_to_their_numbers() {
        let html = "<TABLE><TR><TD>Pricing<BR>Level</TD><TD></TD><TD>Consolidated Leverage Ratio</TD>\
            <TD>&nbsp;</TD><TD>Term SOFR Loans</TD><TD>Base Rate Loans</TD></TR>\
            <TR><TD>I<TD><TD>&gt; 3.50:1.00<TD>2.50<TD>%<TD>1.50<TD>%\
            <TR><TD>II<TD>&lt; 3.50:1.00<TD>2.25<TD>%<TD>1.25<TD>%</TABLE><P>after";
        assert_eq!(
            read(html),
            "Pricing Level | Consolidated Leverage Ratio | Term SOFR Loans | Base Rate Loans\n\
             I | > 3.50:1.00 | 2.50% | 1.50%\nII | < 3.50:1.00 | 2.25% | 1.25%\n\nafter"
        );
    }

    #[test]
    fn a_commitment_schedule_joins_the_dollar_sign_to_its_amount() {
        let html = "<table><tr><td>Bank of America, N.A.</td><td>$</td><td>25,000,000</td></tr></table>";
        assert_eq!(read(html), "Bank of America, N.A. | $25,000,000");
    }

    #[test]
    fn windows_1252_bytes_and_edgar_headers_are_read() {
        let mut bytes = b"<DOCUMENT>\n<TYPE>EX-10.1\n<TEXT>\n<HTML><P>Lender\x92s Commitment</P></HTML>".to_vec();
        bytes.extend_from_slice(b"\n</TEXT>\n</DOCUMENT>");
        let text = read_html(&bytes, 1 << 20).unwrap().text;
        assert_eq!(text, "EX-10.1\n\nLender\u{2019}s Commitment");
    }

    #[test]
    fn zero_width_spaces_read_as_space_and_cells_holding_only_them_are_empty() {
        let html = "<p>Title:\u{200B}President</p><table><tr><td>\u{200B}</td><td>BAKER LLC</td>\
            <td>&#8203;</td></tr><tr><td>\u{FEFF}</td><td>\u{200B}</td></tr></table>";
        assert_eq!(read(html), "Title: President\n\nBAKER LLC");
    }

    #[test]
    fn preformatted_text_keeps_its_lines() {
        let html =
            "<html><body><pre>                CREDIT AGREEMENT\n\n  Section 1.  Definitions.\n</pre></body></html>";
        assert_eq!(read(html), "                CREDIT AGREEMENT\n\n  Section 1.  Definitions.");
    }

    #[test]
    fn deep_nesting_is_read_in_linear_time_and_long_output_is_refused() {
        let depth = 200_000;
        let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        assert_eq!(read(&html), "deep");
        let long = format!("<p>{}</p>", "word ".repeat(1000));
        assert_eq!(read_html(long.as_bytes(), 100), Err(ReadError::TextTooLong { limit_bytes: 100 }));
    }
}
