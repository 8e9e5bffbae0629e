//! Okapi BM25 over a small in-memory set of token lists (an iteration's passages, the candidate
//! pages' titles and snippets, the sentences of the answer). Indexes are built per use and
//! dropped: nothing here is persisted.
//!
//! `idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))`, the non-negative variant Lucene uses, so
//! a term found in most documents never subtracts from a score; and
//! `score(d, q) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))`
//! with `k1 = 1.2`, `b = 0.75`, summed over the *distinct* query terms.

use std::collections::{HashMap, HashSet};

/// Term-frequency saturation.
pub const K1: f64 = 1.2;
/// Document-length normalisation.
pub const B: f64 = 0.75;

/// An index of documents, each a list of tokens (see [`super::text::tokenize`]).
#[derive(Clone, Debug)]
pub struct Bm25Index {
    term_frequencies: Vec<HashMap<String, u32>>,
    lengths: Vec<usize>,
    average_length: f64,
    document_frequency: HashMap<String, usize>,
}

impl Bm25Index {
    /// Indexes `documents`; document `i` is scored as `i`.
    pub fn new<D: AsRef<[String]>>(documents: &[D]) -> Self {
        let mut term_frequencies = Vec::with_capacity(documents.len());
        let mut lengths = Vec::with_capacity(documents.len());
        let mut document_frequency: HashMap<String, usize> = HashMap::new();
        for document in documents {
            let tokens = document.as_ref();
            let mut frequencies: HashMap<String, u32> = HashMap::new();
            for token in tokens {
                *frequencies.entry(token.clone()).or_default() += 1;
            }
            for term in frequencies.keys() {
                *document_frequency.entry(term.clone()).or_default() += 1;
            }
            term_frequencies.push(frequencies);
            lengths.push(tokens.len());
        }
        let total: usize = lengths.iter().sum();
        let average_length = if lengths.is_empty() { 0.0 } else { total as f64 / lengths.len() as f64 };
        Self { term_frequencies, lengths, average_length, document_frequency }
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The inverse document frequency of `term`; largest for a term no document contains.
    pub fn idf(&self, term: &str) -> f64 {
        let documents = self.len() as f64;
        let containing = self.document_frequency.get(term).copied().unwrap_or(0) as f64;
        (1.0 + (documents - containing + 0.5) / (containing + 0.5)).ln()
    }

    /// How much one occurrence pattern of `term` in `document` counts before the idf weight:
    /// `tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))`. 0 when absent, 1 for a single occurrence in a
    /// document of average length, approaching `k1 + 1` as occurrences grow.
    pub fn term_weight(&self, document: usize, term: &str) -> f64 {
        let Some(frequencies) = self.term_frequencies.get(document) else {
            return 0.0;
        };
        let tf = f64::from(frequencies.get(term).copied().unwrap_or(0));
        if tf == 0.0 {
            return 0.0;
        }
        let relative_length =
            if self.average_length > 0.0 { self.lengths[document] as f64 / self.average_length } else { 1.0 };
        tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * relative_length))
    }

    /// The BM25 score of `document` for the distinct terms of `query`.
    pub fn score(&self, document: usize, query: &[String]) -> f64 {
        distinct(query).map(|term| self.idf(term) * self.term_weight(document, term)).sum()
    }

    /// How completely `document` answers `terms`, in `0.0..=1.0`: the BM25 score with each term's
    /// contribution capped at its idf (so repeating one term cannot stand in for a missing one),
    /// divided by the sum of the terms' idfs. 1.0 when every term occurs at least once in a
    /// document no longer than average; 0.0 for no terms.
    pub fn coverage(&self, document: usize, terms: &[String]) -> f64 {
        let (found, possible) = distinct(terms).fold((0.0, 0.0), |(found, possible), term| {
            let idf = self.idf(term);
            (found + idf * self.term_weight(document, term).min(1.0), possible + idf)
        });
        if possible > 0.0 { found / possible } else { 0.0 }
    }

    /// The idf-weighted share of `terms` that occur in `document` at all, in `0.0..=1.0`: how
    /// completely it names them, whatever its length or repetitions. 0.0 for no terms.
    pub fn presence(&self, document: usize, terms: &[String]) -> f64 {
        let (found, possible) = distinct(terms).fold((0.0, 0.0), |(found, possible), term| {
            let idf = self.idf(term);
            let present = self.term_frequencies.get(document).is_some_and(|frequencies| frequencies.contains_key(term));
            (if present { found + idf } else { found }, possible + idf)
        });
        if possible > 0.0 { found / possible } else { 0.0 }
    }
}

fn distinct(terms: &[String]) -> impl Iterator<Item = &str> {
    let mut seen = HashSet::new();
    terms.iter().map(String::as_str).filter(move |term| seen.insert(*term))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| (*word).to_owned()).collect()
    }

    /// Three documents of lengths 2, 4 and 3 (avgdl = 3).
    fn index() -> Bm25Index {
        Bm25Index::new(&[
            tokens(&["sofr", "loan"]),
            tokens(&["sofr", "sofr", "rate", "libor"]),
            tokens(&["loan", "covenant", "rate"]),
        ])
    }

    #[test]
    fn idf_matches_the_hand_computed_values() {
        let index = index();
        // n = 2 of N = 3: ln(1 + 1.5/2.5) = ln 1.6
        assert!((index.idf("sofr") - 0.470_003_629_245_735_6).abs() < 1e-12);
        // n = 1: ln(1 + 2.5/1.5) = ln(8/3)
        assert!((index.idf("libor") - 0.980_829_253_011_726_3).abs() < 1e-12);
        // n = 0: ln(1 + 3.5/0.5) = ln 8, the largest
        assert!((index.idf("ebitda") - 8f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn scores_match_the_hand_computed_vector() {
        let index = index();
        let query = tokens(&["sofr", "libor"]);
        // d0: |d| = 2, norm = 0.25 + 0.75·2/3 = 0.75; sofr tf 1: 2.2/1.9 = 1.157894…; · ln 1.6
        // d1: |d| = 4, norm = 1.25; sofr tf 2: 4.4/3.5 = 1.257142… · ln 1.6; libor tf 1: 2.2/2.5 = 0.88 · ln(8/3)
        // d2: neither term
        let expected = [0.544_214_728_600_325_5, 1.453_991_447_987_815_5, 0.0];
        for (document, want) in expected.iter().enumerate() {
            let got = index.score(document, &query);
            assert!((got - want).abs() < 1e-12, "document {document}: {got} != {want}");
        }
        // d2 has average length, so each single occurrence weighs exactly its idf: 2 · ln 1.6
        assert!((index.score(2, &tokens(&["loan", "rate"])) - 0.940_007_258_491_471_3).abs() < 1e-12);
    }

    #[test]
    fn repeated_query_terms_count_once() {
        let index = index();
        assert_eq!(index.score(1, &tokens(&["libor", "libor"])), index.score(1, &tokens(&["libor"])));
    }

    #[test]
    fn coverage_is_one_when_every_term_occurs_in_an_average_document_and_drops_with_each_missing_term() {
        let index = index();
        assert!((index.coverage(2, &tokens(&["loan", "rate"])) - 1.0).abs() < 1e-12);
        let half = index.coverage(2, &tokens(&["loan", "sofr"]));
        assert!((half - 0.5).abs() < 1e-12, "equal idfs, one of two present: {half}");
        assert_eq!(index.coverage(2, &[]), 0.0);
    }

    #[test]
    fn coverage_caps_a_repeated_term_at_its_idf() {
        let index = index();
        // d1 has "sofr" twice (weight 1.257 > 1) but lacks "loan": the repetition cannot make up for it
        let coverage = index.coverage(1, &tokens(&["sofr", "loan"]));
        let expected = 0.470_003_629_245_735_6 * (4.4 / 3.5f64).min(1.0) / (2.0 * 0.470_003_629_245_735_6);
        assert!((coverage - expected).abs() < 1e-12 && coverage <= 0.5);
    }

    #[test]
    fn presence_ignores_length_and_repetition() {
        let index = index();
        assert!((index.presence(1, &tokens(&["sofr", "libor"])) - 1.0).abs() < 1e-12);
        let expected = 0.470_003_629_245_735_6 / (0.470_003_629_245_735_6 + 0.980_829_253_011_726_3);
        assert!((index.presence(0, &tokens(&["sofr", "libor"])) - expected).abs() < 1e-12);
    }

    #[test]
    fn an_empty_index_scores_nothing() {
        let index = Bm25Index::new::<Vec<String>>(&[]);
        assert!(index.is_empty());
        assert_eq!(index.score(0, &tokens(&["sofr"])), 0.0);
    }
}
