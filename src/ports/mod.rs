//! What the domain needs from the outside world, as object-safe traits held as `Arc<dyn Port>`.
//! Adapters in [`crate::adapters`] implement them; each method documents the error an adapter
//! must return when.

pub mod analyses;
pub mod cache;
pub mod clock;
pub mod conversations;
pub mod covenant_tests;
pub mod db_ssl;
pub mod deletions;
pub mod documents;
pub mod financial_data;
pub mod instances;
pub mod llm;
pub mod page_fetch;
pub mod password;
pub mod people;
pub mod price_history;
pub mod rate_limit;
pub mod reader;
pub mod research;
pub mod statement_sets;
pub mod store;
pub mod tokens;
pub mod web_search;
