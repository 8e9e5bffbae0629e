//! Extraction on the real-filing corpus may only get better, on each of its parts — the
//! development part (`tests/corpus/edgar`), which rules are written against, and the held-out part
//! (`tests/corpus/heldout`), which is only ever measured — and in each file format: no wrong value
//! beyond, and no fewer correct ones than, what the part's `baseline.json` records.
//! `cargo run --release --example extraction_accuracy` prints the detail.

use std::path::PathBuf;

use creditflow::evaluation::{CORPUS_PARTS, Outcome, Totals, score_corpus};
use serde_json::Value;

#[test]
fn extraction_on_real_filings_never_gets_worse() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    for (part, folder) in CORPUS_PARTS {
        let dir = root.join(folder);
        // The held-out part exists once scripts/corpus-split.py has drawn it; from then on it is
        // measured here like the development part.
        if part == "held-out" && !dir.is_dir() {
            continue;
        }
        let baseline: Value =
            serde_json::from_slice(&std::fs::read(dir.join("baseline.json")).expect("baseline")).expect("json");
        let scores = score_corpus(&dir).expect("the corpus is readable");
        assert!(scores.len() >= 20, "the {part} part has {} scored files", scores.len());
        assert!(scores.iter().all(|s| s.unreadable.is_none()), "every {part} file is readable");
        let wrong: Vec<String> = scores
            .iter()
            .flat_map(|s| {
                s.fields
                    .iter()
                    .filter(|f| f.outcome == Outcome::Wrong)
                    // A held-out value is never shown, even in a failure: the part is measured, not read.
                    .map(move |f| match part {
                        "held-out" => format!("{} ({}) {}", s.id, s.media_type.extension(), f.field),
                        _ => format!("{} ({}) {}: {}", s.id, s.media_type.extension(), f.field, f.found),
                    })
            })
            .collect();
        let max_wrong = baseline["max_wrong"].as_u64().expect("max_wrong") as usize;
        let totals = Totals::of(&scores);
        if totals.wrong > max_wrong {
            failures.push(format!("{part}: {totals}; more wrong values than the baseline's {max_wrong}: {wrong:#?}"));
        }
        let minimums = baseline["min_correct"].as_object().expect("min_correct per format");
        for (format, minimum) in minimums {
            let minimum = minimum.as_u64().expect("a count") as usize;
            let totals = if format == "all" {
                totals
            } else {
                Totals::of(scores.iter().filter(|s| s.media_type.extension() == format))
            };
            if totals.correct < minimum {
                failures.push(format!("{part} {format}: {totals}; fewer correct values than the baseline's {minimum}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
