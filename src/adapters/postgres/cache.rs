//! Provider responses cached in PostgreSQL, shared by every instance.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::store::{PostgresStore, unavailable};
use crate::ports::cache::ResponseCache;
use crate::ports::store::StoreError;

/// The most responses kept, all instances together: company facts are 30 KB to 1 MB, a year of
/// prices about 20 KB, so the table stays within a few hundred MB.
const MAX_ENTRIES: usize = 2_000;

#[async_trait]
impl ResponseCache for PostgresStore {
    async fn get(&self, key: &str, fresh_after: OffsetDateTime) -> Result<Option<Vec<u8>>, StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached("SELECT body FROM provider_cache WHERE key = $1 AND fetched_at > $2")
            .await
            .map_err(unavailable)?;
        let row = client.query_opt(&statement, &[&key, &fresh_after]).await.map_err(unavailable)?;
        Ok(row.map(|row| row.get::<_, Vec<u8>>(0)))
    }

    async fn put(&self, key: &str, body: Vec<u8>, at: OffsetDateTime) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(
                "INSERT INTO provider_cache (key, body, fetched_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (key) DO UPDATE SET body = EXCLUDED.body, fetched_at = EXCLUDED.fetched_at",
            )
            .await
            .map_err(unavailable)?;
        client.execute(&statement, &[&key, &body, &at]).await.map_err(unavailable)?;
        // Puts happen on cache misses only, so trimming here costs one indexed scan per fetch.
        let trim = client
            .prepare_cached(
                "DELETE FROM provider_cache WHERE key IN \
                 (SELECT key FROM provider_cache ORDER BY fetched_at DESC, key OFFSET $1)",
            )
            .await
            .map_err(unavailable)?;
        client.execute(&trim, &[&(MAX_ENTRIES as i64)]).await.map_err(unavailable)?;
        Ok(())
    }

    fn capacity(&self) -> usize {
        MAX_ENTRIES
    }
}
