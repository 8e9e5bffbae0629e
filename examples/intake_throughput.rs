//! Throughput of the document-intake pipeline, in this process: each file read by the format
//! reader the worker runs (`adapters::reader::read_in_process`) and its text extracted
//! (`domain::extraction::extract_credit_agreement`), timed separately, `RUNS` times per file.
//!
//!     cargo run --release --example intake_throughput [-- [--runs N] [--pages] FILE...]
//!
//! Without files: every `.htm`, `.txt` and `.pdf` of `tests/corpus/edgar`, plus
//! `target/long/*.pdf` when present (`scripts/make-long-pdf.sh` writes it). Per file it prints the
//! median and the range of the runs: read ms, extraction ms, both together, input MB/s, text MB/s
//! and, for a PDF, pages/s. `--pages` also prints, for each PDF, the ten slowest pages of one
//! read (pdf-extract per page), to see what dominates. Times are wall clock; the machine's other
//! work counts in them, so compare medians and look at the range.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use creditflow::adapters::reader::{UNBOUNDED_READ, read_in_process};
use creditflow::domain::extraction::extract_credit_agreement;
use creditflow::domain::intake::MediaType;

struct Runs(Vec<Duration>);

impl Runs {
    fn sorted(&self) -> Vec<f64> {
        let mut ms: Vec<f64> = self.0.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        ms
    }

    fn median(&self) -> f64 {
        let ms = self.sorted();
        let n = ms.len();
        if n % 2 == 1 { ms[n / 2] } else { (ms[n / 2 - 1] + ms[n / 2]) / 2.0 }
    }

    fn range(&self) -> String {
        let ms = self.sorted();
        format!("{:.1}–{:.1}", ms[0], ms[ms.len() - 1])
    }
}

fn media_type(path: &Path) -> Option<MediaType> {
    match path.extension()?.to_str()? {
        "pdf" => Some(MediaType::Pdf),
        "htm" | "html" => Some(MediaType::Html),
        "txt" => Some(MediaType::Text),
        "docx" => Some(MediaType::Docx),
        _ => None,
    }
}

fn default_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [root.join("tests/corpus/edgar"), root.join("target/long")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut found: Vec<PathBuf> =
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| media_type(p).is_some()).collect();
        found.sort();
        files.extend(found);
    }
    files
}

fn mb_per_s(bytes: usize, ms: f64) -> f64 {
    bytes as f64 / 1e6 / (ms / 1e3)
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut runs = 7;
    let mut per_page = false;
    let mut files = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).expect("--runs N"),
            "--pages" => per_page = true,
            _ => files.push(PathBuf::from(arg)),
        }
    }
    if files.is_empty() {
        files = default_files();
    }
    println!(
        "{:<34} {:>8} {:>6} {:>9} {:>5} {:>17} {:>15} {:>17} {:>8} {:>8} {:>8}  extraction status",
        "file",
        "in KB",
        "pages",
        "text KB",
        "runs",
        "read ms (range)",
        "extract ms",
        "total ms (range)",
        "in MB/s",
        "text MB/s",
        "pages/s"
    );
    for path in &files {
        let Some(media) = media_type(path) else { continue };
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (mut read_t, mut extract_t, mut total_t) = (Runs(vec![]), Runs(vec![]), Runs(vec![]));
        let (mut pages, mut text_len, mut status) = (0, 0, String::new());
        for _ in 0..runs {
            let started = Instant::now();
            let read = match read_in_process(media, &bytes, usize::MAX, UNBOUNDED_READ) {
                Ok(read) => read,
                Err(e) => {
                    println!("{}: unreadable: {e}", path.display());
                    break;
                }
            };
            let read_done = Instant::now();
            let extraction = extract_credit_agreement(&read.text);
            let done = Instant::now();
            status = format!("{:?}", extraction.status);
            read_t.0.push(read_done - started);
            extract_t.0.push(done - read_done);
            total_t.0.push(done - started);
            pages = read.pages.starts().len();
            text_len = read.text.len();
        }
        if total_t.0.is_empty() {
            continue;
        }
        let total = total_t.median();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        println!(
            "{:<34} {:>8.1} {:>6} {:>9.1} {:>5} {:>17} {:>15} {:>17} {:>8.2} {:>8.2} {:>8}  {}",
            name,
            bytes.len() as f64 / 1024.0,
            if pages > 0 { pages.to_string() } else { "-".into() },
            text_len as f64 / 1024.0,
            runs,
            format!("{:.1} ({})", read_t.median(), read_t.range()),
            format!("{:.1} ({})", extract_t.median(), extract_t.range()),
            format!("{:.1} ({})", total, total_t.range()),
            mb_per_s(bytes.len(), total),
            mb_per_s(text_len, total),
            if media == MediaType::Pdf { format!("{:.0}", pages as f64 / (total / 1e3)) } else { "-".into() },
            status,
        );
        if per_page && media == MediaType::Pdf {
            slowest_pages(&bytes);
        }
    }
}

/// One read of a PDF with pdf-extract, page by page, timing each page: the ten slowest pages and
/// how the time splits between loading the file and the pages.
fn slowest_pages(bytes: &[u8]) {
    use pdf_extract::{Document, PlainTextOutput, output_doc_page};
    let started = Instant::now();
    let Ok(document) = Document::load_mem(bytes) else { return };
    let loaded = started.elapsed();
    let count = document.get_pages().len() as u32;
    let mut times = Vec::new();
    for number in 1..=count {
        let page_started = Instant::now();
        let mut text = String::new();
        let _ = output_doc_page(&document, &mut PlainTextOutput::new(&mut text), number);
        times.push((page_started.elapsed(), number, text.len()));
    }
    let pages_total: Duration = times.iter().map(|t| t.0).sum();
    times.sort_by_key(|t| std::cmp::Reverse(t.0));
    println!(
        "    load {:.1} ms, {} pages {:.1} ms (mean {:.2} ms/page); slowest: {}",
        loaded.as_secs_f64() * 1e3,
        count,
        pages_total.as_secs_f64() * 1e3,
        pages_total.as_secs_f64() * 1e3 / f64::from(count.max(1)),
        times
            .iter()
            .take(10)
            .map(|(t, n, len)| format!("p{n} {:.1} ms ({len} B)", t.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(", ")
    );
}
