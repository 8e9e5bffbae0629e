//! Pure business logic: no HTTP framework, database driver, HTTP client, environment or wall clock.
//! Everything the domain needs from the outside world arrives through the traits in [`crate::ports`].

pub mod analyses;
pub mod auth;
pub mod cdm;
pub mod chat;
pub mod chat_service;
pub mod db_ssl;
pub mod documents;
pub mod extraction;
pub mod llm_proposals;
pub mod people;
pub mod people_runs;
pub mod people_service;
pub mod quant;
pub mod ratelimit;
pub mod research;
pub mod research_runs;
pub mod research_service;
pub mod workflows;
