//! In-memory adapters: the store for `STORE=memory` and tests, and the single-instance rate
//! limiter. State lives in this process only and is lost on restart.

mod analyses;
mod cache;
mod conversations;
mod covenant_tests;
mod documents;
mod instances;
mod people;
mod rate_limit;
mod research;
mod statement_sets;
mod storage;
mod store;

pub use analyses::MemoryAnalysisStore;
pub use cache::MemoryResponseCache;
pub use conversations::MemoryConversationStore;
pub use covenant_tests::MemoryCovenantTestStore;
pub use documents::MemoryDocumentStore;
pub use instances::SingleInstance;
pub use people::MemoryPeopleStore;
pub use rate_limit::MemoryRateLimiter;
pub use research::MemoryResearchStore;
pub use statement_sets::MemoryStatementSetStore;
pub use storage::MemoryStorageLedger;
pub use store::MemoryStore;

use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::auth::UserId;

/// What a listing needs of a stored workflow run (analysis, research run, people result) or of a
/// deal's record (statement set, covenant test).
struct RunKey {
    owner: UserId,
    deal_id: Option<i64>,
    created_at: OffsetDateTime,
    id: Uuid,
}

/// One page of `runs` owned by `owner` (any for `None`) in deal `deal_id` (any for `None`), newest
/// first with ties by id as PostgreSQL orders them, and how many match in all.
fn page_of_runs<'a, T: Clone + 'a>(
    runs: impl Iterator<Item = &'a T>,
    key: impl Fn(&T) -> RunKey,
    (owner, deal_id): (Option<UserId>, Option<i64>),
    (offset, limit): (u64, u32),
) -> (Vec<T>, u64) {
    let mut matching: Vec<(RunKey, &T)> = runs
        .map(|run| (key(run), run))
        .filter(|(key, _)| owner.is_none_or(|owner| key.owner == owner))
        .filter(|(key, _)| deal_id.is_none_or(|deal| key.deal_id == Some(deal)))
        .collect();
    matching.sort_by_key(|(key, _)| std::cmp::Reverse((key.created_at, key.id)));
    let total = matching.len() as u64;
    let offset = usize::try_from(offset).unwrap_or(usize::MAX);
    let page = matching.into_iter().skip(offset).take(limit as usize).map(|(_, run)| run.clone()).collect();
    (page, total)
}
