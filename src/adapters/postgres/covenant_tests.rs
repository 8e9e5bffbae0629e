//! Covenant tests over PostgreSQL: one `INSERT` per test, read by id, a deal's tests by an index on
//! (deal, time).

use async_trait::async_trait;
use tokio_postgres::Row;

use super::listing::RunTable;
use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::deals::stored::{CovenantTestId, CovenantTestRecord};
use crate::domain::documents::DocumentId;
use crate::domain::statements::stored::StatementSetId;
use crate::ports::covenant_tests::CovenantTestRepository;
use crate::ports::store::StoreError;

const COLUMNS: &str =
    "id, owner_id, deal_id, document_id, document_version, statement_set_id, period_end, compliance, created_at, body";

fn record_from_row(row: &Row) -> Result<CovenantTestRecord, StoreError> {
    let document_id: i64 = column(row, "document_id")?;
    Ok(CovenantTestRecord {
        id: CovenantTestId::from_uuid(column(row, "id")?),
        owner: UserId::from_uuid(column(row, "owner_id")?),
        deal_id: column(row, "deal_id")?,
        document_id: DocumentId::new(document_id)
            .ok_or_else(|| StoreError::Corrupt(anyhow::anyhow!("covenant test with document id {document_id}")))?,
        document_version: column(row, "document_version")?,
        statement_set_id: column::<Option<uuid::Uuid>>(row, "statement_set_id")?.map(StatementSetId::from_uuid),
        period_end: column(row, "period_end")?,
        compliance: column(row, "compliance")?,
        created_at: column(row, "created_at")?,
        body: column(row, "body")?,
    })
}

/// The table as a deal's listing reads it.
const TESTS: RunTable<CovenantTestRecord> = RunTable { name: "covenant_tests", columns: COLUMNS, map: record_from_row };

#[async_trait]
impl CovenantTestRepository for PostgresStore {
    async fn create(&self, record: CovenantTestRecord) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let statement = client
            .prepare_cached(&format!(
                "INSERT INTO covenant_tests ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
            ))
            .await
            .map_err(unavailable)?;
        client
            .execute(
                &statement,
                &[
                    &record.id.as_uuid(),
                    &record.owner.as_uuid(),
                    &record.deal_id,
                    &record.document_id.get(),
                    &record.document_version,
                    &record.statement_set_id.map(|s| s.as_uuid()),
                    &record.period_end,
                    &record.compliance,
                    &record.created_at,
                    &record.body,
                ],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn find(&self, id: CovenantTestId) -> Result<Option<CovenantTestRecord>, StoreError> {
        let client = self.connection().await?;
        TESTS.find(&client, id.as_uuid()).await
    }

    async fn list_for_deal(
        &self,
        deal_id: i64,
        owner: Option<UserId>,
        limit: u32,
    ) -> Result<(Vec<CovenantTestRecord>, u64), StoreError> {
        let client = self.connection().await?;
        TESTS.page(&client, owner.map(|o| o.as_uuid()), Some(deal_id), limit, 0).await
    }
}
