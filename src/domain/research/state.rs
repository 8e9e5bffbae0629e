//! The research loop as a state machine the driver steps through, one iteration at a time:
//!
//! ```text
//! new ─▶ ┌ queries_for_iteration ─▶ record_search (per query × provider)
//!        │ record_internal_document / record_corpus_error (when the driver consults the store)
//!        │ pages_to_fetch ─▶ record_page (per candidate; a failed fetch falls back to the snippet)
//!        └ finish_iteration ─▶ (persist) ─▶ again unless is_finished ─▶ answer
//! ```
//!
//! Everything the driver learns goes in through `record_*`; everything it must do next comes out
//! of `queries_for_iteration` and `pages_to_fetch`. The state holds no clock (times are passed
//! in) and round-trips through serde, so a run resumes from its last saved iteration. A driver
//! whose time budget runs out mid-iteration calls `finish_iteration` before `answer`, so that the
//! pages it has already read count.
//!
//! Evidence rules (constants below):
//! - A passage is *evidence* for a sub-question when its BM25 coverage of the sub-question's terms
//!   ([`Bm25Index::coverage`], each term's contribution capped at its idf, divided by the idfs'
//!   sum) is at least [`EVIDENCE_THRESHOLD`] and it speaks to the sub-question's facet (a risk
//!   word for "risks", a number for "figures", …).
//! - The sub-question is *covered* when an evidence passage reaches [`COVERAGE_THRESHOLD`]: every
//!   term present at least once in a passage of about average length, or the rarer terms present
//!   and only a common one missing. It is then searched no further.
//! - A search hit whose page cannot be read (or reads as empty) contributes its snippet instead,
//!   when the snippet has at least [`MIN_SNIPPET_CHARS`] characters; the hit is still a cited web
//!   source, and the knowledge item quotes the snippet.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::answer::compose_answer;
use super::bm25::Bm25Index;
use super::facets::Facet;
use super::knowledge::{KnowledgeItem, Source, SourceOrigin, add_item};
use super::plan::{SubQuestion, plan_queries, plan_sub_questions, same_query};
use super::text::{PASSAGE_MAX_CHARS, char_count, split_passages, tokenize, truncate_at_word};
use super::urls::canonical_url;
use crate::ports::page_fetch::{FetchError, FetchedPage};
use crate::ports::web_search::SearchHit;

/// `max_iterations` is capped here, which bounds everything that grows per iteration.
pub const MAX_ITERATIONS: u32 = 20;
/// Queries planned per iteration.
pub const MAX_QUERIES_PER_ITERATION: usize = 4;
/// Search hits kept as candidate pages; further hits are ignored until pages are taken.
pub const MAX_CANDIDATES: usize = 200;
/// Passages read from one page or document.
pub const MAX_PASSAGES_PER_SOURCE: usize = 60;
/// Passages pooled in one iteration.
pub const MAX_POOL_PASSAGES: usize = 600;
/// Knowledge items added in one iteration.
pub const MAX_ITEMS_PER_ITERATION: usize = 10;
/// Knowledge items added for one sub-question in one iteration.
pub const MAX_ITEMS_PER_SUB_QUESTION: usize = 2;
/// A knowledge item's content is cut (at a word) to this many characters.
pub const MAX_ITEM_CONTENT_CHARS: usize = 1200;
/// A snippet shorter than this is not used as evidence.
pub const MIN_SNIPPET_CHARS: usize = 40;
/// Coverage from which a passage is evidence for a sub-question.
pub const EVIDENCE_THRESHOLD: f64 = 0.5;
/// Coverage from which a passage answers a sub-question.
pub const COVERAGE_THRESHOLD: f64 = 0.75;
/// Provider errors kept in full; later ones are only counted.
pub const MAX_PROVIDER_ERRORS: usize = 100;
const MAX_ERROR_MESSAGE_CHARS: usize = 300;
/// The provider name of the user's own stored documents.
pub const INTERNAL_PROVIDER: &str = "internal";

/// Which step a provider failed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorStage {
    Search,
    Fetch,
    /// Searching the user's stored documents.
    Corpus,
}

/// A provider failure; the run goes on without it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderError {
    pub provider: String,
    pub stage: ErrorStage,
    pub message: String,
    /// The iteration it happened in, from 1.
    pub iteration: u32,
}

/// A search hit not read yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageCandidate {
    url: String,
    canonical_url: String,
    title: String,
    snippet: String,
    provider: String,
    published_at: Option<String>,
}

impl PageCandidate {
    /// The URL to fetch, as the provider gave it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its [`canonical_url`], the key for deduplication.
    pub fn canonical_url(&self) -> &str {
        &self.canonical_url
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn snippet(&self) -> &str {
        &self.snippet
    }

    /// The search provider that found it.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    pub fn published_at(&self) -> Option<&str> {
        self.published_at.as_deref()
    }
}

/// A passage read in the current iteration, attributed to `sources[source]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct PooledPassage {
    source: usize,
    text: String,
}

/// Counters for the run's `statistics`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Statistics {
    /// Sources consulted (pages read, snippets used, stored documents).
    pub sources_used: usize,
    pub web_sources: usize,
    pub internal_sources: usize,
    pub iterations: u32,
    /// Queries issued.
    pub queries: usize,
    /// Pages fetched successfully.
    pub pages_fetched: u32,
    pub sub_questions: usize,
    pub sub_questions_covered: usize,
    /// All provider errors, including those beyond the [`MAX_PROVIDER_ERRORS`] kept in the list.
    pub provider_error_count: u32,
    pub provider_errors: Vec<ProviderError>,
}

/// A research run between (and during) iterations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResearchState {
    question: String,
    max_iterations: u32,
    sub_questions: Vec<SubQuestion>,
    iterations_done: u32,
    /// Every query handed to the driver (pending ones included), never repeated.
    queries_issued: Vec<String>,
    pending_queries: Vec<String>,
    candidates: Vec<PageCandidate>,
    /// Canonical URLs of pages taken for fetching (and of their final URLs).
    visited: BTreeSet<String>,
    sources: Vec<Source>,
    knowledge_items: Vec<KnowledgeItem>,
    /// This iteration's passages; empty between iterations.
    pool: Vec<PooledPassage>,
    pages_fetched: u32,
    provider_errors: Vec<ProviderError>,
    provider_error_count: u32,
}

impl ResearchState {
    /// A run on `question` of at most `max_iterations` (capped at [`MAX_ITERATIONS`]) iterations,
    /// with its sub-questions planned and the first iteration's queries ready.
    pub fn new(question: &str, max_iterations: u32) -> Self {
        let question = question.trim().to_owned();
        let max_iterations = max_iterations.min(MAX_ITERATIONS);
        let mut sub_questions = plan_sub_questions(&question);
        let pending_queries = if max_iterations > 0 {
            plan_queries(&mut sub_questions, &[], MAX_QUERIES_PER_ITERATION)
        } else {
            Vec::new()
        };
        Self {
            question,
            max_iterations,
            sub_questions,
            iterations_done: 0,
            queries_issued: pending_queries.clone(),
            pending_queries,
            candidates: Vec::new(),
            visited: BTreeSet::new(),
            sources: Vec::new(),
            knowledge_items: Vec::new(),
            pool: Vec::new(),
            pages_fetched: 0,
            provider_errors: Vec::new(),
            provider_error_count: 0,
        }
    }

    pub fn question(&self) -> &str {
        &self.question
    }

    pub fn max_iterations(&self) -> u32 {
        self.max_iterations
    }

    pub fn iterations_done(&self) -> u32 {
        self.iterations_done
    }

    pub fn sub_questions(&self) -> &[SubQuestion] {
        &self.sub_questions
    }

    /// Every query issued so far, in order.
    pub fn queries_issued(&self) -> &[String] {
        &self.queries_issued
    }

    /// Search hits waiting to be read.
    pub fn candidates(&self) -> &[PageCandidate] {
        &self.candidates
    }

    pub fn provider_errors(&self) -> &[ProviderError] {
        &self.provider_errors
    }

    /// Whether the loop should stop: the iteration budget is spent, every sub-question is covered
    /// (trivially so when the question had none), or there is nothing left to search or read.
    pub fn is_finished(&self) -> bool {
        self.iterations_done >= self.max_iterations
            || self.sub_questions.iter().all(SubQuestion::is_covered)
            || (self.pending_queries.is_empty() && self.candidates.is_empty())
    }

    /// The queries to issue in this iteration (at most [`MAX_QUERIES_PER_ITERATION`]), each to
    /// every search provider.
    pub fn queries_for_iteration(&self) -> Vec<String> {
        self.pending_queries.clone()
    }

    /// Records one provider's answer to `query`. An error is kept as a provider error (stage
    /// `search`); hits become candidate pages, skipping URLs that are not http(s), already
    /// candidates or already visited (compared by canonical URL).
    pub fn record_search(&mut self, provider: &str, query: &str, outcome: Result<Vec<SearchHit>, String>) {
        if !self.queries_issued.iter().any(|issued| same_query(issued, query)) {
            self.queries_issued.push(query.to_owned());
        }
        let hits = match outcome {
            Ok(hits) => hits,
            Err(message) => {
                self.push_error(provider, ErrorStage::Search, &message);
                return;
            }
        };
        for hit in hits {
            if self.candidates.len() >= MAX_CANDIDATES {
                break;
            }
            let Some(canonical) = canonical_url(&hit.url) else {
                continue;
            };
            if self.visited.contains(&canonical) || self.candidates.iter().any(|c| c.canonical_url == canonical) {
                continue;
            }
            let provider = if hit.provider.trim().is_empty() { provider.to_owned() } else { hit.provider };
            self.candidates.push(PageCandidate {
                url: hit.url,
                canonical_url: canonical,
                title: hit.title.trim().to_owned(),
                snippet: hit.snippet.trim().to_owned(),
                provider,
                published_at: hit.published_at,
            });
        }
    }

    /// Takes the best `limit` candidates to read: ranked by BM25 of their title and snippet
    /// against the question and the open sub-questions' terms (ties in the order found). They are
    /// marked visited, so neither they nor any URL with the same canonical form is returned again.
    pub fn pages_to_fetch(&mut self, limit: usize) -> Vec<PageCandidate> {
        let query = self.open_terms();
        let documents: Vec<Vec<String>> =
            self.candidates.iter().map(|c| tokenize(&format!("{} {}", c.title, c.snippet))).collect();
        let index = Bm25Index::new(&documents);
        let mut ranked: Vec<(usize, f64)> = (0..documents.len()).map(|i| (i, index.score(i, &query))).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut candidates: Vec<Option<PageCandidate>> =
            std::mem::take(&mut self.candidates).into_iter().map(Some).collect();
        let mut chosen = Vec::new();
        for (rank, (i, _)) in ranked.into_iter().enumerate() {
            let Some(candidate) = candidates[i].take() else { continue };
            if rank < limit {
                self.visited.insert(candidate.canonical_url.clone());
                chosen.push(candidate);
            } else {
                self.candidates.push(candidate);
            }
        }
        chosen
    }

    /// Records the outcome of reading `candidate`. A page's passages join this iteration's pool,
    /// attributed to a new source (its final URL, its title or else the hit's, the hit's
    /// provider); a page whose final URL is already a source adds nothing. A failure is kept as a
    /// provider error (stage `fetch`, the candidate's provider) and the snippet is used instead
    /// (see [`Self::record_snippet_only`]), as it is for a page with no readable text.
    pub fn record_page(
        &mut self,
        candidate: &PageCandidate,
        outcome: Result<FetchedPage, FetchError>,
        retrieved_at: OffsetDateTime,
    ) {
        self.visited.insert(candidate.canonical_url.clone());
        let page = match outcome {
            Ok(page) => page,
            Err(error) => {
                self.push_error(&candidate.provider, ErrorStage::Fetch, &format!("{}: {error}", candidate.url));
                self.record_snippet_only(candidate, retrieved_at);
                return;
            }
        };
        self.pages_fetched += 1;
        let (url, canonical) = match canonical_url(&page.final_url) {
            Some(canonical) => (page.final_url.clone(), canonical),
            None => (candidate.url.clone(), candidate.canonical_url.clone()),
        };
        self.visited.insert(canonical.clone());
        if self.has_web_source(&canonical) {
            return;
        }
        let passages = split_passages(&page.text);
        if passages.is_empty() {
            self.record_snippet_only(candidate, retrieved_at);
            return;
        }
        let title = page
            .title
            .as_deref()
            .map(str::trim)
            .filter(|title| !title.is_empty())
            .or(Some(candidate.title.as_str()).filter(|title| !title.is_empty()))
            .unwrap_or(&url)
            .to_owned();
        let source = self.add_source(url, title, candidate.provider.clone(), retrieved_at, SourceOrigin::Web);
        self.pool_passages(source, passages);
    }

    /// Uses `candidate`'s search snippet as the evidence from its page, cited as the page (a web
    /// source with the hit's URL, title and provider), without fetching it: for pages that could
    /// not be read, or that the driver had no time to read. The candidate is marked visited. Returns
    /// whether the snippet was used: not when it is shorter than [`MIN_SNIPPET_CHARS`] or the page
    /// is already a source.
    pub fn record_snippet_only(&mut self, candidate: &PageCandidate, retrieved_at: OffsetDateTime) -> bool {
        self.visited.insert(candidate.canonical_url.clone());
        let snippet = candidate.snippet.trim();
        if char_count(snippet) < MIN_SNIPPET_CHARS || self.has_web_source(&candidate.canonical_url) {
            return false;
        }
        let title = if candidate.title.is_empty() { candidate.url.clone() } else { candidate.title.clone() };
        let source =
            self.add_source(candidate.url.clone(), title, candidate.provider.clone(), retrieved_at, SourceOrigin::Web);
        self.pool_passages(source, vec![truncate_at_word(snippet, PASSAGE_MAX_CHARS)]);
        true
    }

    /// Records one of the user's stored documents (found by the store's full-text search) as a
    /// source: url `/api/documents/{id}`, provider `internal`, origin internal. Its passages join
    /// this iteration's pool. A document already recorded is skipped.
    pub fn record_internal_document(
        &mut self,
        document_id: i64,
        title: &str,
        text: &str,
        retrieved_at: OffsetDateTime,
    ) {
        let url = format!("/api/documents/{document_id}");
        if self.sources.iter().any(|source| source.url() == url) {
            return;
        }
        let title = match title.trim() {
            "" => format!("Document {document_id}"),
            title => title.to_owned(),
        };
        let source = self.add_source(url, title, INTERNAL_PROVIDER.to_owned(), retrieved_at, SourceOrigin::Internal);
        self.pool_passages(source, split_passages(text));
    }

    /// This iteration's pooled passages as `(text, source index)`, in the order they were read; the
    /// index is 0-based into [`Self::sources`] (citation `[n]` is index `n − 1`). Passages live only
    /// within an iteration: a driver that wants them reads them after the `record_*` calls and before
    /// [`Self::finish_iteration`], which empties the pool (between iterations this yields nothing).
    pub fn pooled_passages(&self) -> impl Iterator<Item = (&str, usize)> {
        self.pool.iter().map(|passage| (passage.text.as_str(), passage.source))
    }

    /// Records that searching the stored documents failed (provider `internal`, stage `corpus`).
    pub fn record_corpus_error(&mut self, message: &str) {
        self.push_error(INTERNAL_PROVIDER, ErrorStage::Corpus, message);
    }

    /// Ends the iteration: for each open sub-question (definitions last), ranks the pooled passages (BM25 coverage of
    /// its terms, then BM25 score), turns the best evidence into knowledge items (at most
    /// [`MAX_ITEMS_PER_SUB_QUESTION`] new ones each, [`MAX_ITEMS_PER_ITERATION`] in all; content
    /// already known is not repeated — the new source is added to the existing item when it
    /// quotes the same text), and marks it covered when its best evidence reaches
    /// [`COVERAGE_THRESHOLD`]. Then counts the iteration, plans the next queries for what is still
    /// uncovered, and empties the pool.
    pub fn finish_iteration(&mut self) {
        let pool = std::mem::take(&mut self.pool);
        self.harvest(&pool);
        self.iterations_done = self.iterations_done.saturating_add(1);
        self.pending_queries = if self.iterations_done < self.max_iterations {
            plan_queries(&mut self.sub_questions, &self.queries_issued, MAX_QUERIES_PER_ITERATION)
        } else {
            Vec::new()
        };
        self.queries_issued.extend(self.pending_queries.iter().cloned());
    }

    fn harvest(&mut self, pool: &[PooledPassage]) {
        if pool.is_empty() {
            return;
        }
        let tokens: Vec<Vec<String>> = pool.iter().map(|passage| tokenize(&passage.text)).collect();
        let index = Bm25Index::new(&tokens);
        let mut items_added = 0;
        // Definitions last: "X is a …" is in many passages, and a passage answering a more
        // specific sub-question should be gathered (and titled) for that one.
        let mut order: Vec<usize> = (0..self.sub_questions.len()).collect();
        order.sort_by_key(|&s| (matches!(self.sub_questions[s].facet(), Some(Facet::Definition | Facet::Profile)), s));
        for s in order {
            if self.sub_questions[s].is_covered() {
                continue;
            }
            let sub = &self.sub_questions[s];
            let mut evidence: Vec<(usize, f64, f64)> = (0..pool.len())
                .filter_map(|p| {
                    let coverage = index.coverage(p, sub.terms());
                    let relevant =
                        coverage >= EVIDENCE_THRESHOLD && sub.facet_is_evidenced_by(&pool[p].text, &tokens[p]);
                    relevant.then(|| (p, coverage, index.score(p, sub.terms())))
                })
                .collect();
            evidence.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(&b.0)));
            let title = sub.text().to_owned();
            let mut added_for_sub = 0;
            let mut covered = false;
            for (p, coverage, _) in evidence {
                if added_for_sub >= MAX_ITEMS_PER_SUB_QUESTION || items_added >= MAX_ITEMS_PER_ITERATION {
                    break;
                }
                let added = self.add_knowledge_item(&title, &pool[p]);
                if added {
                    added_for_sub += 1;
                    items_added += 1;
                }
                covered |= coverage >= COVERAGE_THRESHOLD;
            }
            if covered {
                self.sub_questions[s].mark_covered();
            }
        }
    }

    /// Adds `passage` as a knowledge item titled `title` (see [`add_item`]); returns whether a
    /// new item was made.
    fn add_knowledge_item(&mut self, title: &str, passage: &PooledPassage) -> bool {
        let content = truncate_at_word(&passage.text, MAX_ITEM_CONTENT_CHARS).to_owned();
        let citation = self.sources[passage.source].citation();
        add_item(&mut self.knowledge_items, title, content, citation)
    }

    /// The extractive answer: for each sub-question its best-supported sentences from the
    /// knowledge items, each followed by `[n]` markers indexing [`Self::sources`]; the
    /// sub-questions nothing answered, named plainly; and which sources are web pages and which
    /// internal documents.
    pub fn answer(&self) -> String {
        compose_answer(&self.question, &self.sub_questions, &self.knowledge_items, &self.sources)
    }

    pub fn knowledge_items(&self) -> &[KnowledgeItem] {
        &self.knowledge_items
    }

    /// The consulted sources, numbered from 1 in this order.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Whether any page, snippet or stored document was consulted. When not, the run has no basis
    /// for an answer and the driver fails it.
    pub fn has_consulted_any_source(&self) -> bool {
        !self.sources.is_empty()
    }

    pub fn statistics(&self) -> Statistics {
        let internal_sources = self.sources.iter().filter(|source| source.origin() == SourceOrigin::Internal).count();
        Statistics {
            sources_used: self.sources.len(),
            web_sources: self.sources.len() - internal_sources,
            internal_sources,
            iterations: self.iterations_done,
            queries: self.queries_issued.len(),
            pages_fetched: self.pages_fetched,
            sub_questions: self.sub_questions.len(),
            sub_questions_covered: self.sub_questions.iter().filter(|sub| sub.is_covered()).count(),
            provider_error_count: self.provider_error_count,
            provider_errors: self.provider_errors.clone(),
        }
    }

    /// The question's terms and those of the open sub-questions, without repeats.
    fn open_terms(&self) -> Vec<String> {
        let mut terms = tokenize(&self.question);
        for sub in self.sub_questions.iter().filter(|sub| !sub.is_covered()) {
            terms.extend(sub.terms().iter().cloned());
        }
        let mut seen = BTreeSet::new();
        terms.retain(|term| seen.insert(term.clone()));
        terms
    }

    fn has_web_source(&self, canonical: &str) -> bool {
        self.sources.iter().any(|source| {
            source.origin() == SourceOrigin::Web && canonical_url(source.url()).is_some_and(|url| url == canonical)
        })
    }

    fn add_source(
        &mut self,
        url: String,
        title: String,
        provider: String,
        retrieved_at: OffsetDateTime,
        origin: SourceOrigin,
    ) -> usize {
        self.sources.push(Source::new(url, title, provider, retrieved_at, origin));
        self.sources.len() - 1
    }

    fn pool_passages(&mut self, source: usize, passages: Vec<&str>) {
        for passage in passages.into_iter().take(MAX_PASSAGES_PER_SOURCE) {
            if self.pool.len() >= MAX_POOL_PASSAGES {
                break;
            }
            self.pool.push(PooledPassage { source, text: passage.to_owned() });
        }
    }

    fn push_error(&mut self, provider: &str, stage: ErrorStage, message: &str) {
        self.provider_error_count = self.provider_error_count.saturating_add(1);
        if self.provider_errors.len() < MAX_PROVIDER_ERRORS {
            self.provider_errors.push(ProviderError {
                provider: provider.to_owned(),
                stage,
                message: truncate_at_word(message, MAX_ERROR_MESSAGE_CHARS).to_owned(),
                iteration: self.iterations_done + 1,
            });
        }
    }
}

#[cfg(test)]
mod pooled_passages_tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn pooled_passages_name_their_source_until_the_iteration_ends() {
        let mut state = ResearchState::new("Who is Jane Doe?", 2);
        let at = datetime!(2025-03-01 12:00 UTC);
        state.record_internal_document(7, "Memo", "Jane Doe founded Widget Ltd in 2004.", at);
        state.record_internal_document(9, "Note", "Widget Ltd repaid its loans in 2010.", at);
        let pooled: Vec<(&str, usize)> = state.pooled_passages().collect();
        assert_eq!(
            pooled,
            vec![("Jane Doe founded Widget Ltd in 2004.", 0), ("Widget Ltd repaid its loans in 2010.", 1)]
        );
        assert_eq!(state.sources()[1].url(), "/api/documents/9");
        state.finish_iteration();
        assert_eq!(state.pooled_passages().count(), 0);
    }
}
