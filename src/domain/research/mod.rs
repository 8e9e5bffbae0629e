//! Iterative web research, as pure logic: plan → search → read → extract → reflect, repeated
//! until the question's sub-questions are covered, the iteration budget is spent or nothing is
//! left to ask. The async driver ([`service`]) calls the search and fetch ports, feeds every outcome
//! into a [`ResearchState`], persists it as JSON between iterations, and ends with
//! [`ResearchState::answer`] (or an LLM-written answer that passes [`citations_are_valid`]).
//!
//! - [`plan`]: the question → sub-questions, entities and queries, without an LLM.
//! - [`facets`]: what aspect a sub-question asks about, and what evidence speaks to it.
//! - [`state`]: the state machine; what counts as evidence and as coverage.
//! - [`knowledge`]: the consulted sources and the knowledge items quoted from them.
//! - [`answer`]: the extractive answer with `[n]` citations, and the citation check.
//! - [`bm25`], [`text`], [`urls`]: ranking, tokens and passages, canonical URLs.
//! - [`service`], [`runs`]: the use case (queued and inline runs) and the stored runs.
//!
//! Nothing here performs I/O or reads the clock: retrieval times are passed in. Memory is bounded:
//! passages live only within an iteration, and the state's lists are capped (see the constants in
//! [`state`]).

pub mod answer;
pub mod bm25;
pub mod facets;
pub mod knowledge;
pub mod plan;
pub mod runs;
pub mod service;
pub mod state;
pub mod text;
pub mod urls;

pub use answer::citations_are_valid;
pub use facets::Facet;
pub use knowledge::{KnowledgeItem, Source, SourceCitation, SourceOrigin};
pub use plan::{Entity, EntityKind, SubQuestion, extract_entities, plan_sub_questions};
pub use state::{ErrorStage, PageCandidate, ProviderError, ResearchState, Statistics};
pub use urls::canonical_url;

#[cfg(test)]
mod tests;
