//! In-memory adapters: the store for `STORE=memory` and tests, and the single-instance rate
//! limiter. State lives in this process only and is lost on restart.

mod analyses;
mod cache;
mod conversations;
mod documents;
mod people;
mod rate_limit;
mod research;
mod store;

pub use analyses::MemoryAnalysisStore;
pub use cache::MemoryResponseCache;
pub use conversations::MemoryConversationStore;
pub use documents::MemoryDocumentStore;
pub use people::MemoryPeopleStore;
pub use rate_limit::MemoryRateLimiter;
pub use research::MemoryResearchStore;
pub use store::MemoryStore;
