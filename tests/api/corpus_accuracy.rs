//! Extraction on the real-filing corpus (`tests/corpus/edgar`) may only get better: the number of
//! wrong values may not rise above, and the number of correct ones not fall below, what
//! `baseline.json` records. `cargo run --release --example extraction_accuracy` prints the detail.

use std::path::PathBuf;

use creditflow::evaluation::{Outcome, Totals, score_corpus};
use serde_json::Value;

#[test]
fn extraction_on_real_filings_never_gets_worse() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/edgar");
    let baseline: Value = serde_json::from_slice(&std::fs::read(dir.join("baseline.json")).expect("baseline")).unwrap();
    let scores = score_corpus(&dir).expect("the corpus is readable");
    assert!(scores.len() >= 20, "the corpus has {} scored files", scores.len());
    assert!(scores.iter().all(|s| s.unreadable.is_none()), "every corpus file is readable");
    let totals = Totals::of(&scores);
    let wrong: Vec<String> = scores
        .iter()
        .flat_map(|s| {
            s.fields.iter().filter(|f| f.outcome == Outcome::Wrong).map(move |f| format!("{} {}", s.id, f.field))
        })
        .collect();
    let max_wrong = baseline["max_wrong"].as_u64().unwrap() as usize;
    let min_correct = baseline["min_correct"].as_u64().unwrap() as usize;
    assert!(totals.wrong <= max_wrong, "{totals}; more wrong values than the baseline's {max_wrong}: {wrong:#?}");
    assert!(totals.correct >= min_correct, "{totals}; fewer correct values than the baseline's {min_correct}");
}
