//! Extraction accuracy on the real-filing corpus: per document and file format, and per field,
//! how many labelled values are correct, wrong, withheld or missing, and every wrong value.
//!
//!     cargo run --release --example extraction_accuracy [-- [--details] CORPUS_DIR]
//!
//! CORPUS_DIR defaults to `tests/corpus/edgar`; `--details` also lists every withheld and missing
//! value. Exits 1 when any value is wrong.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use creditflow::evaluation::{Outcome, Totals, score_corpus};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let details = args.iter().any(|a| a == "--details");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/edgar"));
    let started = std::time::Instant::now();
    let scores = match score_corpus(&dir) {
        Ok(scores) => scores,
        Err(error) => {
            eprintln!("cannot score {}: {error:#}", dir.display());
            return ExitCode::from(2);
        }
    };
    println!("{:<28} {:<10} {:>7} {:>5} {:>8} {:>7}", "document", "format", "correct", "WRONG", "withheld", "missing");
    for score in &scores {
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
    for score in &scores {
        for wrong in score.fields.iter().filter(|f| listed.contains(&f.outcome)) {
            println!(
                "  {:?} {} ({}): {} expected {} found {:?}",
                wrong.outcome,
                score.id,
                score.media_type.extension(),
                wrong.field,
                wrong.expected,
                wrong.found
            );
        }
    }
    for format in ["htm", "txt", "pdf"] {
        let totals = Totals::of(scores.iter().filter(|s| s.media_type.extension() == format));
        if totals.labelled() > 0 {
            println!("{format}: {totals}");
        }
    }
    let totals = Totals::of(&scores);
    println!("all: {totals}  ({} files, {:.1} s)", scores.len(), started.elapsed().as_secs_f64());
    if totals.wrong > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
