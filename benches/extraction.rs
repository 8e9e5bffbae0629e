//! Throughput of the deterministic credit-agreement extraction engine
//! (`domain::extraction::extract_credit_agreement`), in-process with criterion.
//!
//! - `extraction/50KB` and `extraction/1MB`: the corpus US syndicated credit agreement (Term SOFR
//!   pricing grid, three facilities, step-down covenants, lender schedule) with realistic operative
//!   boilerplate (representations, undertakings, events of default) inserted before its negative
//!   covenants until the text reaches the size. Facts stated after the boilerplate (covenants,
//!   governing law, signatures, schedules) must still be found, so the whole text is read.
//!
//! Throughput is reported in bytes of input (criterion `Throughput::Bytes`). Targets: at least
//! 20 MB/s, and a 1 MB agreement in at most 100 ms.
//!
//! Run with `CARGO_TARGET_DIR=/tmp/bench-target cargo bench --bench extraction`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use creditflow::domain::extraction::{ExtractionStatus, extract_credit_agreement};

const AGREEMENT: &str = include_str!("../src/domain/extraction/corpus/us_syndicated_term_sofr.txt");
const BOILERPLATE: &str = include_str!("../src/domain/extraction/corpus/boilerplate_sections.txt");
const ARTICLE_VII: &str = "                                     ARTICLE VII";

/// The agreement grown with boilerplate sections to at least `bytes`.
fn agreement_of_at_least(bytes: usize) -> String {
    let split = AGREEMENT.find(ARTICLE_VII).expect("the corpus agreement has an Article VII heading");
    let (head, tail) = AGREEMENT.split_at(split);
    let mut text = String::with_capacity(bytes + AGREEMENT.len() + BOILERPLATE.len());
    text.push_str(head);
    while text.len() + tail.len() < bytes {
        text.push('\n');
        text.push_str(BOILERPLATE);
    }
    text.push('\n');
    text.push_str(tail);
    text
}

fn extraction(c: &mut Criterion) {
    let mut group = c.benchmark_group("extraction");
    for (name, bytes) in [("50KB", 50 * 1024), ("1MB", 1024 * 1024)] {
        let text = agreement_of_at_least(bytes);
        assert_eq!(extract_credit_agreement(&text).status, ExtractionStatus::Success, "the benchmark text extracts");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| extract_credit_agreement(black_box(&text))));
    }
    group.finish();
}

criterion_group!(benches, extraction);
criterion_main!(benches);
