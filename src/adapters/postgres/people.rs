//! Finished people-workflow results over PostgreSQL: one `INSERT` per result, read by id, and
//! listed newest first through the shared paged listing.

use anyhow::anyhow;
use async_trait::async_trait;
use serde_json::Value;
use tokio_postgres::Row;

use super::listing::RunTable;
use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::listing::RunQuery;
use crate::domain::people::identity::PersonIdentity;
use crate::domain::people::runs::{PeopleId, PeopleRecord};
use crate::ports::people::PeopleRepository;
use crate::ports::store::StoreError;

const COLUMNS: &str = "id, owner_id, person_name, context, deal_id, session_id, result, cdm_events, created_at, \
                       completed_at, company, role, location";

const TABLE: RunTable<PeopleRecord> = RunTable { name: "people_results", columns: COLUMNS, map: record_from_row };

fn record_from_row(row: &Row) -> Result<PeopleRecord, StoreError> {
    let events: Value = column(row, "cdm_events")?;
    let (company, role, location): (Option<String>, Option<String>, Option<String>) =
        (column(row, "company")?, column(row, "role")?, column(row, "location")?);
    let identity = PersonIdentity::new(company.as_deref(), role.as_deref(), location.as_deref())
        .map_err(|error| StoreError::Corrupt(anyhow!("unreadable person identity in the database: {error}")))?;
    Ok(PeopleRecord {
        id: PeopleId::from_uuid(column(row, "id")?),
        owner: UserId::from_uuid(column(row, "owner_id")?),
        person_name: column(row, "person_name")?,
        context: column(row, "context")?,
        identity,
        deal_id: column(row, "deal_id")?,
        session_id: column(row, "session_id")?,
        result: column(row, "result")?,
        cdm_events: match events {
            Value::Array(events) => events,
            _ => return Err(StoreError::Corrupt(anyhow!("unreadable cdm_events in the database: not an array"))),
        },
        created_at: column(row, "created_at")?,
        completed_at: column(row, "completed_at")?,
    })
}

#[async_trait]
impl PeopleRepository for PostgresStore {
    async fn create(&self, record: PeopleRecord) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(&format!(
                "INSERT INTO people_results ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
            ))
            .await
            .map_err(unavailable)?;
        let events = Value::Array(record.cdm_events);
        client
            .execute(
                &statement,
                &[
                    &record.id.as_uuid(),
                    &record.owner.as_uuid(),
                    &record.person_name,
                    &record.context,
                    &record.deal_id,
                    &record.session_id,
                    &record.result,
                    &events,
                    &record.created_at,
                    &record.completed_at,
                    &record.identity.company(),
                    &record.identity.role(),
                    &record.identity.location(),
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn find(&self, id: PeopleId) -> Result<Option<PeopleRecord>, StoreError> {
        TABLE.find(&self.connection().await?, id.as_uuid()).await
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<PeopleRecord>, u64), StoreError> {
        let owner = query.owner.map(|owner| owner.as_uuid());
        TABLE.page(&self.connection().await?, owner, query.deal_id, query.limit, query.offset()).await
    }
}
