//! This instance's row in `service_instances`: written at start and every heartbeat, removed when
//! the instance stops.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::store::{PostgresStore, unavailable};
use crate::ports::instances::InstanceRegistry;
use crate::ports::store::StoreError;

#[async_trait]
impl InstanceRegistry for PostgresStore {
    async fn heartbeat(&self, now: OffsetDateTime) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(
                "INSERT INTO service_instances (id, started_at, heartbeat_at) VALUES ($1, $2, $2) \
                 ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at",
            )
            .await
            .map_err(unavailable)?;
        client.execute(&statement, &[&self.instance(), &now]).await.map_err(unavailable)?;
        Ok(())
    }

    async fn retire(&self) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let statement =
            client.prepare_cached("DELETE FROM service_instances WHERE id = $1").await.map_err(unavailable)?;
        client.execute(&statement, &[&self.instance()]).await.map_err(unavailable)?;
        Ok(())
    }
}
