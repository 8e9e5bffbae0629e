//! Extraction throughput: being written.
fn main() {}
