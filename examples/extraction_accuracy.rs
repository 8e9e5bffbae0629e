//! Extraction accuracy on the real-filing corpus: per document and file format, and per field,
//! how many labelled values are correct, wrong, withheld or missing, and every wrong value; then
//! the totals of each part of the corpus (development, held-out) per format.
//!
//!     cargo run --release --example extraction_accuracy [-- [--details] [--measure-only] [CORPUS_DIR]]
//!
//! Without CORPUS_DIR, both parts ([`CORPUS_PARTS`]); the held-out part's documents are listed by
//! id only, with their counts, never their values: it is measured, not read. `--measure-only` treats
//! CORPUS_DIR the same way (for documents waiting for the draw, or an older build measuring the
//! held-out part). `--details` also lists every withheld and missing value (of a readable part).
//! Exits 1 when any value is wrong.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use creditflow::evaluation::{CORPUS_PARTS, DocumentScore, Outcome, Totals, score_corpus};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let details = args.iter().any(|a| a == "--details");
    let measure_only = args.iter().any(|a| a == "--measure-only");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let parts: Vec<(&str, PathBuf, bool)> = match args.iter().find(|a| !a.starts_with("--")) {
        Some(dir) => vec![("corpus", PathBuf::from(dir), !measure_only)],
        None => CORPUS_PARTS.iter().map(|(part, dir)| (*part, root.join(dir), *part != "held-out")).collect(),
    };
    let started = std::time::Instant::now();
    let mut summaries = Vec::new();
    for (part, dir, readable) in &parts {
        if !dir.is_dir() {
            println!("== {part}: not drawn yet ({} does not exist; scripts/corpus-split.py draws it)\n", dir.display());
            continue;
        }
        let scores = match score_corpus(dir) {
            Ok(scores) => scores,
            Err(error) => {
                eprintln!("cannot score {}: {error:#}", dir.display());
                return ExitCode::from(2);
            }
        };
        println!("== {part} ({})\n", dir.display());
        print_part(&scores, details && *readable, *readable);
        summaries.push((*part, scores));
    }
    println!();
    let mut any_wrong = false;
    for (part, scores) in &summaries {
        for format in ["htm", "txt", "pdf", "docx"] {
            let totals = Totals::of(scores.iter().filter(|s| s.media_type.extension() == format));
            if totals.labelled() > 0 {
                println!("{part} {format}: {totals}");
            }
        }
        let totals = Totals::of(scores);
        any_wrong |= totals.wrong > 0;
        println!("{part} all: {totals}  ({} files)", scores.len());
    }
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    if any_wrong { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// One part's tables: per document and format, per field, and its wrong values — whose expected
/// and found values are shown only for a part that may be read (`readable`).
fn print_part(scores: &[DocumentScore], details: bool, readable: bool) {
    println!("{:<28} {:<10} {:>7} {:>5} {:>8} {:>7}", "document", "format", "correct", "WRONG", "withheld", "missing");
    for score in scores {
        println!(
            "{:<28} {:<10} {:>7} {:>5} {:>8} {:>7}{}",
            score.id,
            score.media_type.extension(),
            score.count(Outcome::Correct),
            score.count(Outcome::Wrong),
            score.count(Outcome::Withheld),
            score.count(Outcome::Missing),
            score.unreadable.as_deref().map(|e| format!("  unreadable: {e}")).unwrap_or_default(),
        );
    }
    let mut by_field: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for scored in scores.iter().flat_map(|s| &s.fields) {
        // "facilities/0/margin" counts as margin; "changes/1" and "covenants/+0" as changes and covenants.
        let segments: Vec<&str> = scored.field.split('/').collect();
        let field = match segments.as_slice() {
            [list @ ("changes" | "covenants"), ..] => (*list).to_owned(),
            _ => segments.last().copied().unwrap_or_default().to_owned(),
        };
        by_field.entry(field).or_default()[scored.outcome as usize] += 1;
    }
    println!("\n{:<28} {:>7} {:>5} {:>8} {:>7}", "field", "correct", "WRONG", "withheld", "missing");
    for (field, [correct, wrong, withheld, missing]) in &by_field {
        println!("{field:<28} {correct:>7} {wrong:>5} {withheld:>8} {missing:>7}");
    }
    let listed: &[Outcome] =
        if details { &[Outcome::Withheld, Outcome::Missing, Outcome::Wrong] } else { &[Outcome::Wrong] };
    println!("\n{} values:", if details { "withheld, missing and wrong" } else { "wrong" });
    for score in scores {
        for wrong in score.fields.iter().filter(|f| listed.contains(&f.outcome)) {
            if readable {
                println!(
                    "  {:?} {} ({}): {} expected {} found {:?}",
                    wrong.outcome,
                    score.id,
                    score.media_type.extension(),
                    wrong.field,
                    wrong.expected,
                    wrong.found
                );
            } else {
                println!("  {:?} {} ({}): {}", wrong.outcome, score.id, score.media_type.extension(), wrong.field);
            }
        }
    }
    println!();
}
