//! PDF, page by page, with `pdf-extract` (chosen by measurement: docs/INTAKE-CRATES.md). It keeps
//! a table row on one line (cells apart by runs of spaces, read here as ` | `), paragraph starts,
//! and the text of every page apart, which is what lets every quote say its page.
//!
//! A PDF that needs a password is refused; one openable with the empty password (common for
//! "no copying" restrictions) is read. Pages are read one by one up to the count the page tree
//! declares: a page that fails is an error naming it, never a document silently cut short.
//! Parsing untrusted PDFs can exhaust memory or panic deep inside the parser: this runs in the
//! reader's worker process (see [`super::worker`]), which is killed at its limits.
//!
//! A page's cost is the content-stream operations it runs, and pdf-extract runs them again on
//! every page that shares a stream (and every time a page draws a form): 4,999 pages sharing one
//! stream made a 788 KB file take 30 s, holding a reader all that time (found by an outside review). Before reading,
//! [`ReadCost`] counts the operations each page asks for, each stream decoded once, and a file
//! that asks for more than the budget allows is refused ([`ReadError::TooCostly`]); while reading,
//! a file whose first pages show it will not finish in time is refused then, not at the limit.
//!
//! pdf-extract 0.12 misreads the glyph widths of composite (CID) fonts given as ranges
//! (`c_first c_last w` in `/W`): those glyphs get the font's default width, so the gap it sees
//! before the next glyph is wrong and it writes spaces inside words (`U tah`, `EX ECU TED`, every
//! letter of a Chromium-printed monospace text apart) or glues words. [`cid_widths_listed`]
//! rewrites every such range as the list form it does read before any page is read.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use pdf_extract::content::Content;
use pdf_extract::{
    ColorSpace, Dictionary, Document, MediaBox, Object, ObjectId, OutputDev, OutputError, Path, PathOp, Transform,
    output_doc_page,
};

use super::page_layout::{Line, PRINTED, Word, write_lines};
use crate::domain::intake::{MediaType, ReadDocument, ReadError};

/// More pages than any credit agreement with its exhibits; beyond it a file is refused.
pub const MAX_PAGES: usize = 5_000;

/// Content-stream operations pdf-extract runs in a second in the reader's worker: measured on
/// this service's release build on a loaded 2-vCPU machine (docs/BENCHMARKS.md, "Security
/// floods") at 370,000–640,000 for pages of text lines and 810,000 for a real 600,000-operation
/// agreement.
pub const OPERATIONS_PER_SECOND: u64 = 500_000;

/// The share of the budget the operations a file asks for may take by the estimate: the rest is
/// for loading the file and the per-page work not counted (fonts, glyphs). A file the estimate
/// lets through that still reads slower is caught by its progress ([`PROJECTION_AFTER`]).
const BUDGET_SHARE: f64 = 0.75;

/// How much of the budget is spent reading before the pages read so far are taken to tell how
/// long the rest will take.
const PROJECTION_AFTER: f64 = 0.1;

/// Reads a PDF within `budget`.
///
/// # Errors
/// [`ReadError::Encrypted`], [`ReadError::Corrupt`], [`ReadError::TextTooLong`],
/// [`ReadError::TooCostly`] when the file asks for more work than the budget allows, or its first
/// pages show that it cannot finish within it.
pub fn read_pdf(bytes: &[u8], max_text_bytes: usize, budget: Duration) -> Result<ReadDocument, ReadError> {
    let started = Instant::now();
    let corrupt = |reason: String| ReadError::corrupt(MediaType::Pdf, reason);
    let mut document = Document::load_mem(bytes).map_err(|e| corrupt(e.to_string()))?;
    if document.is_encrypted() && document.decrypt("").is_err() {
        return Err(ReadError::Encrypted);
    }
    cid_widths_listed(&mut document);
    let count = document.get_pages().len();
    if count == 0 {
        return Err(corrupt("it has no pages".into()));
    }
    if count > MAX_PAGES {
        return Err(corrupt(format!("it has {count} pages; at most {MAX_PAGES} are read")));
    }
    let too_costly = |reason: String| ReadError::TooCostly { limit_seconds: budget.as_secs(), reason };
    let operations = ReadCost::new(&document).of_document();
    let affordable = (OPERATIONS_PER_SECOND as f64 * budget.as_secs_f64() * BUDGET_SHARE) as u64;
    if operations > affordable {
        return Err(too_costly(format!(
            "its {count} pages run {operations} content-stream operations (shared streams counted on every page \
             that runs them), more than the {affordable} that can be read in that time"
        )));
    }
    let mut pages = Vec::with_capacity(count);
    let mut total = 0;
    let reading = Instant::now();
    for number in 1..=count as u32 {
        let mut page = PageText::default();
        output_doc_page(&document, &mut page, number)
            .map_err(|e| corrupt(format!("page {number} cannot be read: {e}")))?;
        let mut text = String::new();
        write_lines(&page.lines(), PRINTED, &mut text);
        let page = text;
        total += page.len();
        if total > max_text_bytes {
            return Err(ReadError::TextTooLong { limit_bytes: max_text_bytes as u64 });
        }
        pages.push(page);
        let read = pages.len() as u32;
        if started.elapsed() >= budget.mul_f64(PROJECTION_AFTER) && (read as usize) < count {
            let projected =
                reading.elapsed().mul_f64(f64::from(u32::try_from(count).unwrap_or(u32::MAX)) / f64::from(read));
            if reading.duration_since(started) + projected > budget {
                return Err(too_costly(format!(
                    "its first {read} of {count} pages took {:.1} s to read",
                    reading.elapsed().as_secs_f64()
                )));
            }
        }
    }
    Ok(ReadDocument::from_pages(pages))
}

/// The content-stream operations reading a document runs: every page's streams, and the forms
/// they draw (`Do`), each stream decoded once and its count reused wherever it is run again.
struct ReadCost<'a> {
    document: &'a Document,
    /// Operations a stream runs, the forms it draws included.
    streams: HashMap<ObjectId, u64>,
    /// Streams being counted: a form that draws itself is counted once (pdf-extract would recurse
    /// until its stack ran out; the worker's end, not this estimate's).
    counting: HashSet<ObjectId>,
}

impl<'a> ReadCost<'a> {
    fn new(document: &'a Document) -> Self {
        Self { document, streams: HashMap::new(), counting: HashSet::new() }
    }

    fn of_document(&mut self) -> u64 {
        let pages = self.document.get_pages();
        pages.values().fold(0_u64, |total, &page| total.saturating_add(self.of_page(page)))
    }

    fn of_page(&mut self, page: ObjectId) -> u64 {
        let resources = self.inherited_resources(page);
        let streams = self.document.get_page_contents(page);
        // A page with no operations still costs one: pdf-extract looks its page up every time.
        streams.into_iter().fold(1_u64, |total, stream| total.saturating_add(self.of_stream(stream, resources)))
    }

    /// The page's `Resources`, or the nearest ancestor's, as pdf-extract looks them up.
    fn inherited_resources(&self, page: ObjectId) -> Option<&'a Dictionary> {
        let mut node = self.document.get_dictionary(page).ok()?;
        // The page tree's depth is bounded by pdf-extract's own walk; a cycle is cut here.
        for _ in 0..64 {
            if let Some(resources) = self.dictionary(node.get(b"Resources").ok()) {
                return Some(resources);
            }
            let parent = node.get(b"Parent").and_then(Object::as_reference).ok()?;
            node = self.document.get_dictionary(parent).ok()?;
        }
        None
    }

    fn dictionary(&self, object: Option<&'a Object>) -> Option<&'a Dictionary> {
        let (_, object) = self.document.dereference(object?).ok()?;
        object.as_dict().ok()
    }

    fn of_stream(&mut self, id: ObjectId, resources: Option<&'a Dictionary>) -> u64 {
        if let Some(&cost) = self.streams.get(&id) {
            return cost;
        }
        if !self.counting.insert(id) {
            return 0;
        }
        let Ok(stream) = self.document.get_object(id).and_then(Object::as_stream) else {
            return 0;
        };
        // Decoded as pdf-extract decodes it (an undecodable filter leaves the raw bytes).
        let data = stream.decompressed_content().unwrap_or_else(|_| stream.content.clone());
        let operations = Content::decode(&data).map(|content| content.operations).unwrap_or_default();
        let resources = self.dictionary(stream.dict.get(b"Resources").ok()).or(resources);
        let xobjects = resources.and_then(|resources| self.dictionary(resources.get(b"XObject").ok()));
        let mut cost = operations.len() as u64;
        for operation in operations.iter().filter(|operation| operation.operator == "Do") {
            let form = operation
                .operands
                .first()
                .and_then(|name| name.as_name().ok())
                .and_then(|name| xobjects?.get(name).and_then(Object::as_reference).ok());
            if let Some(form) = form {
                cost = cost.saturating_add(self.of_stream(form, resources));
            }
        }
        self.counting.remove(&id);
        self.streams.insert(id, cost);
        cost
    }
}

/// A gap this many times the font size between two glyphs of a line separates two table cells
/// (or other columns), as [`PRINTED`] reads gaps.
const CELL_GAP: f64 = PRINTED.cell_gap;

/// One page's text from pdf-extract's glyphs, laid out by [`write_lines`]: the glyphs are read
/// into runs as pdf-extract's own `PlainTextOutput` reads them into lines (a run ends where a
/// text-showing operator starts half a line or more above or below the last glyph; a space is
/// where the text jumps right by more than a tenth of the font size, or a space glyph), and the
/// runs are put on lines by their baselines. Space glyphs after the first word of a run and such
/// jumps together make one space, not one each (justified text came out `the  entry  by`); a gap
/// of [`CELL_GAP`] font sizes or more between two glyphs starts a word even with no space glyph
/// (a browser prints a table row cell by cell, with none between the cells). Glyphs are put on
/// lines by position, not by the order they are drawn in: a browser draws each wrapped cell's
/// lines before the next cell's first.
#[derive(Default)]
struct PageText {
    runs: Vec<Run>,
    started: bool,
    /// A text-showing operator began: gaps are looked at on its first glyph, as pdf-extract does.
    word_start: bool,
    last_x_end: f64,
    last_y: f64,
    /// Where the last glyph other than a space ended, when the current run has one.
    ink_end: Option<f64>,
    space_due: bool,
    /// Where each glyph other than a space was put: to take out the glyphs a line strikes through.
    glyphs: Vec<Glyph>,
    /// Thin filled rectangles drawn on the page (left, right, bottom, top, in page space): rules,
    /// underlines and the lines that strike text through.
    bars: Vec<[f64; 4]>,
}

/// A glyph's place: the word it was added to (run and word index, bytes of the word's text) and
/// its horizontal middle, baseline and size.
struct Glyph {
    run: usize,
    word: usize,
    bytes: std::ops::Range<usize>,
    x_mid: f64,
    y: f64,
    size: f64,
}

/// A bar at most this many font sizes thick whose middle is this far above a glyph's baseline
/// strikes it through (a browser prints `<strike>` a third of the size above the baseline; an
/// underline is below the baseline, a table rule between lines).
const STRIKE_THICKNESS: f64 = 0.15;
const STRIKE_ABOVE_BASELINE: std::ops::RangeInclusive<f64> = 0.15..=0.5;

/// Glyphs drawn one after the other on one baseline: its words, and the spaces before the first.
struct Run {
    y: f64,
    indent: usize,
    words: Vec<Word>,
}

/// Baselines closer than this many font sizes are one line.
const SAME_BASELINE: f64 = 0.35;

impl PageText {
    fn new_run(&mut self, y: f64) {
        self.runs.push(Run { y, indent: 0, words: Vec::new() });
        self.ink_end = None;
        self.space_due = false;
    }

    /// Takes out the glyphs struck through: a redline's deleted text, which the document as
    /// amended no longer says.
    fn drop_struck_glyphs(&mut self) {
        if self.bars.is_empty() {
            return;
        }
        // Bars by the height of their middle, so that each glyph looks only at those in the band
        // a strike through it can be drawn in (a page of table rules holds hundreds of bars).
        let middle = |[_, _, bottom, top]: &[f64; 4]| (bottom + top) / 2.0;
        self.bars.sort_by(|a, b| middle(a).total_cmp(&middle(b)));
        let bars = &self.bars;
        let struck = |glyph: &Glyph| {
            let ends = [STRIKE_ABOVE_BASELINE.start(), STRIKE_ABOVE_BASELINE.end()].map(|k| glyph.y + k * glyph.size);
            // A little wider than the band: the exact test below decides.
            let slack = 0.01 * glyph.size.abs();
            let (low, high) = (ends[0].min(ends[1]) - slack, ends[0].max(ends[1]) + slack);
            let first = bars.partition_point(|bar| middle(bar) < low);
            bars[first..].iter().take_while(|bar| middle(bar) <= high).any(|bar @ &[left, right, bottom, top]| {
                (left..=right).contains(&glyph.x_mid)
                    && top - bottom <= STRIKE_THICKNESS * glyph.size
                    && STRIKE_ABOVE_BASELINE.contains(&((middle(bar) - glyph.y) / glyph.size))
            })
        };
        let mut cut: Vec<(usize, usize, std::ops::Range<usize>)> =
            self.glyphs.iter().filter(|g| struck(g)).map(|g| (g.run, g.word, g.bytes.clone())).collect();
        // Last bytes first, so that the earlier ranges of a word stay where they were.
        cut.sort_by_key(|(run, word, bytes)| std::cmp::Reverse((*run, *word, bytes.start)));
        for (run, word, bytes) in cut {
            if let Some(word) = self.runs.get_mut(run).and_then(|r| r.words.get_mut(word))
                && word.text.get(bytes.clone()).is_some()
            {
                word.text.replace_range(bytes, "");
            }
        }
        // A word struck out whole leaves no gap: the words around it keep the spacing they had
        // with it (a gap that wide would read as a new table cell).
        for run in &mut self.runs {
            let mut kept: Vec<Word> = Vec::with_capacity(run.words.len());
            let mut pending_x0: Option<f64> = None;
            for mut word in run.words.drain(..) {
                if word.text.is_empty() {
                    match kept.last_mut() {
                        Some(previous) => previous.x1 = previous.x1.max(word.x1),
                        None => pending_x0 = Some(pending_x0.map_or(word.x0, |x0: f64| x0.min(word.x0))),
                    }
                    continue;
                }
                if let Some(x0) = pending_x0.take() {
                    word.x0 = word.x0.min(x0);
                }
                kept.push(word);
            }
            run.words = kept;
        }
    }

    /// The page's lines, top to bottom, each run's words after those of the runs left of it.
    fn lines(mut self) -> Vec<Line> {
        self.drop_struck_glyphs();
        self.runs.retain(|run| !run.words.is_empty());
        // Down the page (PDF's y grows upwards); the drawn order kept among runs of one baseline.
        self.runs.sort_by(|a, b| b.y.total_cmp(&a.y));
        let mut lines: Vec<(f64, f64, Vec<Run>)> = Vec::new();
        for run in self.runs {
            let size = run.words[0].size;
            match lines.last_mut() {
                Some((y, line_size, runs)) if (*y - run.y).abs() <= SAME_BASELINE * line_size.max(size) => {
                    runs.push(run)
                }
                _ => lines.push((run.y, size, vec![run])),
            }
        }
        lines.into_iter().map(|(y, _, runs)| line_of_runs(-y, runs)).collect()
    }
}

/// One line from the runs on its baseline, left to right: a run that starts where the one
/// before it ends (a word drawn by two operators) continues its last word.
fn line_of_runs(y: f64, mut runs: Vec<Run>) -> Line {
    runs.sort_by(|a, b| a.words[0].x0.total_cmp(&b.words[0].x0));
    let indent = runs.first().map_or(0, |run| run.indent);
    let mut words: Vec<Word> = Vec::new();
    for run in runs {
        let mut run_words = run.words.into_iter();
        let Some(first) = run_words.next() else { continue };
        match words.last_mut() {
            Some(last) if (first.x0 - last.x1).abs() <= 0.1 * first.size => {
                last.text.push_str(&first.text);
                last.x1 = first.x1;
            }
            _ => words.push(first),
        }
        words.extend(run_words);
    }
    Line { y, indent, words }
}

impl OutputDev for PageText {
    fn begin_page(&mut self, _: u32, _: &MediaBox, _: Option<(f64, f64, f64, f64)>) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        glyph: &str,
    ) -> Result<(), OutputError> {
        let (x, y) = (trm.m31, trm.m32);
        let size = font_size * (trm.m11 * trm.m22 - trm.m12 * trm.m21).abs().sqrt();
        if !self.started {
            self.new_run(y);
        } else if self.word_start {
            if (y - self.last_y).abs() > size * 0.5 {
                self.new_run(y);
            } else if x > self.last_x_end + size * 0.1 {
                self.space_due = true;
            }
        }
        let end = x + width * size;
        let run_index = self.runs.len().saturating_sub(1);
        if let Some(run) = self.runs.last_mut() {
            if glyph.chars().all(char::is_whitespace) {
                match self.ink_end {
                    // Indentation: kept as it was printed.
                    None => run.indent += glyph.chars().count(),
                    Some(_) => self.space_due = true,
                }
            } else {
                match (run.words.last_mut(), self.ink_end) {
                    (Some(word), Some(ink_end)) if !self.space_due && x - ink_end < CELL_GAP * size => {
                        word.text.push_str(glyph);
                        word.x1 = end;
                    }
                    _ => run.words.push(Word { x0: x, x1: end, size, text: glyph.to_owned() }),
                }
                let word_len = run.words.last().map_or(0, |w| w.text.len());
                self.glyphs.push(Glyph {
                    run: run_index,
                    word: run.words.len().saturating_sub(1),
                    bytes: word_len.saturating_sub(glyph.len())..word_len,
                    x_mid: (x + end) / 2.0,
                    y,
                    size,
                });
                self.ink_end = Some(end);
                self.space_due = false;
            }
        }
        self.started = true;
        self.word_start = false;
        self.last_y = y;
        self.last_x_end = end;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.word_start = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn fill(&mut self, ctm: &Transform, _: &ColorSpace, _: &[f64], path: &Path) -> Result<(), OutputError> {
        for op in &path.ops {
            if let PathOp::Rect(x, y, width, height) = *op {
                let corners = [(x, y), (x + width, y + height)]
                    .map(|(px, py)| (px * ctm.m11 + py * ctm.m21 + ctm.m31, px * ctm.m12 + py * ctm.m22 + ctm.m32));
                let [(x0, y0), (x1, y1)] = corners;
                let bar = [x0.min(x1), x0.max(x1), y0.min(y1), y0.max(y1)];
                // A bar is long and thin; a filled box (a cell's shading) is not one.
                if bar[1] - bar[0] > 4.0 * (bar[3] - bar[2]) {
                    self.bars.push(bar);
                }
            }
        }
        Ok(())
    }
}

/// Glyph widths a font's `/W` may expand to; past them a hostile file's remaining widths are
/// dropped (pdf-extract then uses the font's default width).
const MAX_LISTED_WIDTHS: usize = 1 << 16;

/// Rewrites the `/W` array of every CID font (ISO 32000-1 §9.7.4.3: `c [w1 w2 …]` gives widths
/// from CID `c` on, `c_first c_last w` one width for a range) into the first form only, the one
/// pdf-extract reads correctly. A malformed array is cut at the first entry that fits neither form
/// (pdf-extract would index past its end and panic).
fn cid_widths_listed(document: &mut Document) {
    let fonts: Vec<_> = document
        .objects
        .iter()
        .filter_map(|(&id, object)| {
            let dict = object.as_dict().ok()?;
            let subtype = dict.get(b"Subtype").and_then(Object::as_name).ok()?;
            (subtype == b"CIDFontType2" || subtype == b"CIDFontType0").then_some(id)
        })
        .collect();
    for id in fonts {
        let Some(widths) = document
            .get_object(id)
            .and_then(Object::as_dict)
            .and_then(|font| font.get(b"W"))
            .and_then(|w| document.dereference(w))
            .and_then(|(_, w)| w.as_array())
            .ok()
            .map(|w| listed_widths(document, w))
        else {
            continue;
        };
        if let Ok(font) = document.get_object_mut(id).and_then(Object::as_dict_mut) {
            font.set("W", Object::Array(widths));
        }
    }
}

fn listed_widths(document: &Document, entries: &[Object]) -> Vec<Object> {
    let resolve = |object: &Object| document.dereference(object).map(|(_, o)| o.clone()).ok();
    let number = |object: &Object| match resolve(object)? {
        Object::Integer(n) => Some(n as f64),
        Object::Real(r) => Some(f64::from(r)),
        _ => None,
    };
    let mut out = Vec::new();
    let mut expanded = 0;
    let mut i = 0;
    while i + 1 < entries.len() {
        let Some(first) = number(&entries[i]).filter(|c| *c >= 0.0).map(|c| c as i64) else { break };
        if let Some(Object::Array(list)) = resolve(&entries[i + 1]) {
            let list: Option<Vec<Object>> = list.iter().map(|w| number(w).map(|w| Object::Real(w as f32))).collect();
            let Some(list) = list else { break };
            expanded += list.len();
            out.extend([Object::Integer(first), Object::Array(list)]);
            i += 2;
            continue;
        }
        let (Some(last), Some(width)) = (entries.get(i + 1).and_then(number), entries.get(i + 2).and_then(number))
        else {
            break;
        };
        let count = (last as i64).saturating_sub(first).saturating_add(1);
        if count <= 0 {
            i += 3;
            continue;
        }
        expanded = expanded.saturating_add(count as usize);
        if expanded > MAX_LISTED_WIDTHS {
            break;
        }
        out.extend([Object::Integer(first), Object::Array(vec![Object::Real(width as f32); count as usize])]);
        i += 3;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::reader::UNBOUNDED_READ;

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/tests/fixtures/intake/{name}", env!("CARGO_MANIFEST_DIR"))).expect(name)
    }

    /// `redline.pdf` is `redline.htm` printed by headless Chromium (`chromium --headless
    /// --no-pdf-header-footer --print-to-pdf=redline.pdf redline.htm`): struck-through words
    /// (drawn as a thin bar across the glyphs), an underline and a bordered table.
    #[test]
    fn text_a_printed_redline_strikes_through_is_not_read_and_underlined_text_is() {
        let read = read_pdf(&fixture("redline.pdf"), 1 << 20, UNBOUNDED_READ).unwrap();
        assert!(read.text.contains("\"Maturity Date\" means November 20, 2023."), "{}", read.text);
        assert!(read.text.contains("BIRCH BANK, N.A.,\nas Syndication Agent"), "{}", read.text);
        assert!(read.text.contains("Level I 1.50%") && read.text.contains("Level II 1.75%"), "{}", read.text);
        assert!(read.text.contains("Text underlined and stays readable."), "{}", read.text);
        for struck in ["March 18", "CEDAR", "1.25%", "struck by style"] {
            assert!(!read.text.contains(struck), "{struck}: {}", read.text);
        }
    }

    #[test]
    fn a_printed_agreement_is_read_page_by_page_with_its_grid_rows_whole() {
        let read = read_pdf(&fixture("agreement.pdf"), 1 << 20, UNBOUNDED_READ).unwrap();
        assert_eq!(read.pages.starts().len(), 3);
        assert!(read.pages_without_text.is_empty());
        // Printed by Chromium cell by cell, with no space glyph between the cells.
        let row = read.text.lines().find(|line| line.contains("> 3.00:1.00")).unwrap();
        assert_eq!(row, "I | > 3.00:1.00 | 2.25% | 1.25%");
        assert!(read.text.contains("(the “Borrower”)"));
        let law = read.text.find("GOVERNED BY").unwrap();
        assert_eq!(read.pages.page_of(law), Some(3));
    }

    #[test]
    fn a_printed_grid_and_commitment_schedule_whose_cells_wrap_read_row_by_row_like_their_html() {
        // wrapped-grid.pdf is wrapped-grid.htm printed by headless Chromium: the pricing grid's
        // conditions and headers and the schedule's lender names wrap onto two to four lines.
        let pdf = read_pdf(&fixture("wrapped-grid.pdf"), 1 << 20, UNBOUNDED_READ).unwrap().text;
        let html = super::super::read_html(&fixture("wrapped-grid.htm"), 1 << 20).unwrap().text;
        let rows = |text: &str| text.lines().filter(|line| line.contains(" | ")).map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(rows(&pdf), rows(&html));
        assert_eq!(rows(&pdf).len(), 10);
        assert!(
            pdf.contains("II | Greater than or equal to 1.50:1.00 but less than 2.25:1.00 | 1.625% | 0.625% | 0.200%")
        );
        // The prose around the tables stays as printed, a line per printed line.
        assert!(pdf.contains("Administrative Agent:\n\nPricing Level | "));
        assert!(pdf.contains("shall\nbecome effective"));
    }

    /// Draws `text` from `x` on baseline `y` in 10-point type, each glyph 5 points wide, as one
    /// text-showing operator.
    fn draw(page: &mut PageText, x: f64, y: f64, text: &str) {
        page.begin_word().unwrap();
        for (i, c) in text.chars().enumerate() {
            let at = Transform::create_translation(x + 5.0 * i as f64, y);
            page.output_character(&at, 0.5, 0.0, 10.0, &c.to_string()).unwrap();
        }
        page.end_word().unwrap();
    }

    #[test]
    fn glyphs_drawn_cell_by_cell_are_put_on_lines_by_their_baselines() {
        // A browser draws the first cell with its wrapped line, then the next cells back up on
        // the first baseline, and the last word of a line in two operators.
        let mut page = PageText::default();
        draw(&mut page, 50.0, 700.0, "II");
        draw(&mut page, 100.0, 700.0, "Greater than");
        draw(&mut page, 100.0, 688.0, "3.00:1.00");
        draw(&mut page, 250.0, 700.0, "1.62");
        draw(&mut page, 270.0, 700.0, "5%");
        let lines = page.lines();
        let texts: Vec<Vec<&str>> = lines.iter().map(|l| l.words.iter().map(|w| w.text.as_str()).collect()).collect();
        assert_eq!(texts, [vec!["II", "Greater", "than", "1.625%"], vec!["3.00:1.00"]]);
        let mut text = String::new();
        write_lines(&lines, PRINTED, &mut text);
        assert_eq!(text, "II | Greater than 3.00:1.00 | 1.625%\n");
    }

    #[test]
    fn an_encrypted_a_truncated_and_an_image_only_pdf_are_told_apart() {
        assert_eq!(read_pdf(&fixture("encrypted.pdf"), 1 << 20, UNBOUNDED_READ), Err(ReadError::Encrypted));
        let whole = fixture("agreement.pdf");
        assert!(matches!(read_pdf(&whole[..whole.len() / 2], 1 << 20, UNBOUNDED_READ), Err(ReadError::Corrupt { .. })));
        assert_eq!(
            read_pdf(&fixture("image-only.pdf"), 1 << 20, UNBOUNDED_READ).unwrap().pages_without_text,
            vec![1, 2]
        );
        assert!(matches!(read_pdf(&whole, 100, UNBOUNDED_READ), Err(ReadError::TextTooLong { .. })));
    }

    #[test]
    fn cid_width_ranges_become_lists_and_a_malformed_array_is_cut() {
        let document = Document::with_version("1.7");
        let (int, real) = (Object::Integer, Object::Real);
        let w = [int(0), Object::Array(vec![int(365)]), int(11), int(12), real(333.0), int(56), int(58), int(722)];
        assert_eq!(
            listed_widths(&document, &w),
            vec![
                int(0),
                Object::Array(vec![real(365.0)]),
                int(11),
                Object::Array(vec![real(333.0); 2]),
                int(56),
                Object::Array(vec![real(722.0); 3]),
            ]
        );
        assert_eq!(listed_widths(&document, &[int(3), int(17)]), vec![]);
        assert_eq!(listed_widths(&document, &[int(3), int(1 << 40), int(500)]), vec![]);
    }

    #[test]
    fn glyphs_whose_widths_are_given_as_ranges_are_not_letter_spaced() {
        // Chromium prints monospace text with one range for every glyph (`/W [0 93 600]`, `/DW 0`)
        // and proportional text with some (`56 60 722`: U to Y): read as the default width,
        // every letter of the first stood apart, and `Utah` read `U tah`.
        let mono = read_pdf(&fixture("monospace.pdf"), 1 << 20, UNBOUNDED_READ).unwrap();
        assert!(mono.text.contains("CREDIT AGREEMENT"), "{}", &mono.text[..200]);
        assert!(mono.text.contains("Dated as of August 17, 2005"));
        let corpus = |name: &str| {
            std::fs::read(format!("{}/tests/corpus/edgar/{name}", env!("CARGO_MANIFEST_DIR"))).expect(name)
        };
        let tronco = read_pdf(&corpus("tronco-2023-amend1.pdf"), 1 << 20, UNBOUNDED_READ).unwrap().text;
        // Justified: a space glyph and a jump right make one space.
        assert!(tronco.contains("Inc., a Utah corporation or its") && tronco.contains("EXECUTED AS OF"), "{tronco}");
    }

    #[test]
    fn what_is_not_a_pdf_is_corrupt() {
        assert!(matches!(read_pdf(b"%PDF-1.4\nnot really", 1 << 20, UNBOUNDED_READ), Err(ReadError::Corrupt { .. })));
    }

    /// A PDF of `pages` pages that all run one content stream: `lines` lines of text, each line
    /// `repeat` copies of a sentence.
    fn shared_stream_pdf(pages: usize, lines: usize, repeat: usize) -> Vec<u8> {
        use pdf_extract::{Stream, dictionary};
        let mut document = Document::with_version("1.5");
        let tree = document.new_object_id();
        let font = document.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier" });
        let mut content = String::new();
        for line in 0..lines {
            let y = 720 - (line % 60) * 10;
            let text = "The Borrower shall repay the Loans. ".repeat(repeat);
            content.push_str(&format!("BT /F1 10 Tf 72 {y} Td ({text}) Tj ET\n"));
        }
        let stream = document.add_object(Stream::new(dictionary! {}, content.into_bytes()));
        let kids: Vec<Object> = (0..pages)
            .map(|_| {
                let page = dictionary! {
                    "Type" => "Page",
                    "Parent" => tree,
                    "Contents" => stream,
                    "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                };
                Object::Reference(document.add_object(page))
            })
            .collect();
        let resources = dictionary! { "Font" => dictionary! { "F1" => font } };
        let count = i64::try_from(pages).unwrap();
        document.objects.insert(
            tree,
            Object::Dictionary(
                dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources },
            ),
        );
        let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => tree });
        document.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        document.save_to(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_pdf_of_thousands_of_pages_sharing_one_content_stream_is_refused_before_its_pages_are_read() {
        // The review's file: 4,999 pages, one stream. Here 1,000 operations a page and a budget of
        // 4 s, for 5 million operations against the 2 million that fit: refused on the estimate,
        // before a page is read. The reason shows which check refused it; the wall clock is not
        // asserted, as a loaded test machine would make that assertion fail, not the reader.
        let pdf = shared_stream_pdf(4_999, 200, 1);
        assert!(pdf.len() < 1_000_000, "{} bytes", pdf.len());
        let error = read_pdf(&pdf, usize::MAX, Duration::from_secs(4)).unwrap_err();
        let ReadError::TooCostly { limit_seconds: 4, reason } = &error else { panic!("{error:?}") };
        assert!(reason.starts_with("its 4999 pages run 5003999 content-stream operations"), "{reason}");
    }

    #[test]
    fn a_pdf_whose_first_pages_show_it_cannot_finish_in_time_is_refused_then() {
        // Few operations (one line a page), many glyphs: the estimate lets it through, the pages
        // read in the first tenth of the budget do not.
        // Refused early means refused with most pages unread (a slower machine reads fewer before
        // the projection, so this holds under load where a wall-clock bound would not).
        let pdf = shared_stream_pdf(2_000, 1, 500);
        assert!(ReadCost::new(&Document::load_mem(&pdf).unwrap()).of_document() < 20_000);
        let error = read_pdf(&pdf, usize::MAX, Duration::from_secs(4)).unwrap_err();
        let ReadError::TooCostly { reason, .. } = &error else { panic!("{error:?}") };
        let read: usize = reason
            .strip_prefix("its first ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|number| number.parse().ok())
            .unwrap_or_else(|| panic!("{reason}"));
        assert!(reason.contains(" of 2000 pages took "), "{reason}");
        assert!(read < 1_000, "{reason}");
    }

    #[test]
    fn a_long_real_agreement_is_well_within_the_estimate() {
        let corpus = format!("{}/tests/corpus/edgar/amazon-2023-tla.pdf", env!("CARGO_MANIFEST_DIR"));
        let document = Document::load_mem(&std::fs::read(corpus).unwrap()).unwrap();
        let operations = ReadCost::new(&document).of_document();
        let affordable_in_30_s = (OPERATIONS_PER_SECOND as f64 * 30.0 * BUDGET_SHARE) as u64;
        assert!(operations * 10 < affordable_in_30_s, "{operations} operations");
    }
}
