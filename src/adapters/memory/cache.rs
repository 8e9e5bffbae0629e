//! Provider responses cached in process memory, at most [`MAX_ENTRIES`] (the oldest go first).

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::ports::cache::ResponseCache;
use crate::ports::store::StoreError;

/// Bounds the memory a long-running process spends on cached filings (a few hundred KB each).
const MAX_ENTRIES: usize = 256;

#[derive(Default)]
pub struct MemoryResponseCache {
    entries: Mutex<HashMap<String, (OffsetDateTime, Vec<u8>)>>,
}

impl MemoryResponseCache {
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl ResponseCache for MemoryResponseCache {
    async fn get(&self, key: &str, fresh_after: OffsetDateTime) -> Result<Option<Vec<u8>>, StoreError> {
        let entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(entries.get(key).filter(|(at, _)| *at > fresh_after).map(|(_, body)| body.clone()))
    }

    async fn put(&self, key: &str, body: Vec<u8>, at: OffsetDateTime) -> Result<(), StoreError> {
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if entries.len() >= MAX_ENTRIES
            && !entries.contains_key(key)
            && let Some(oldest) = entries.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone())
        {
            entries.remove(&oldest);
        }
        entries.insert(key.to_owned(), (at, body));
        Ok(())
    }

    fn capacity(&self) -> usize {
        MAX_ENTRIES
    }
}
