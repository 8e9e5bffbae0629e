//! Paged listings: a `WHERE` clause made of only the conditions in use — so each combination gets a
//! plan on its own index, where a generic `$1 IS NULL OR …` plan would scan and sort every row —
//! with the total count and the `LIMIT`/`OFFSET` bind parameters; and the lookups every table of
//! workflow runs shares ([`RunTable`]).

use deadpool_postgres::Object;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::store::{column, unavailable};
use crate::ports::store::StoreError;

/// The conditions and parameters of one listing query.
pub(super) struct Listing<'a> {
    conditions: Vec<String>,
    params: Vec<&'a (dyn ToSql + Sync)>,
}

impl<'a> Listing<'a> {
    pub(super) fn new() -> Self {
        Self { conditions: Vec::new(), params: Vec::new() }
    }

    /// Adds `condition`, whose `$?` stands for the bind parameter of `value`.
    pub(super) fn with(mut self, condition: &str, value: Option<&'a (dyn ToSql + Sync)>) -> Self {
        if let Some(value) = value {
            self.params.push(value);
            self.conditions.push(condition.replace("$?", &format!("${}", self.params.len())));
        }
        self
    }

    /// `WHERE …`, or nothing.
    pub(super) fn filter(&self) -> String {
        if self.conditions.is_empty() { String::new() } else { format!("WHERE {}", self.conditions.join(" AND ")) }
    }

    /// How many rows of `from` (a table with its alias) match.
    pub(super) async fn count(&self, client: &Object, from: &str) -> Result<u64, StoreError> {
        let statement = client
            .prepare_cached(&format!("SELECT count(*) FROM {from} {}", self.filter()))
            .await
            .map_err(unavailable)?;
        let total: i64 = column(&client.query_one(&statement, &self.params).await.map_err(unavailable)?, "count")?;
        Ok(u64::try_from(total).unwrap_or(0))
    }

    /// Adds the page's bounds; returns `LIMIT $n OFFSET $m` and every parameter of the query.
    pub(super) fn page(mut self, limit: &'a i64, offset: &'a i64) -> (String, Vec<&'a (dyn ToSql + Sync)>) {
        self.params.push(limit);
        self.params.push(offset);
        let bounds = format!("LIMIT ${} OFFSET ${}", self.params.len() - 1, self.params.len());
        (bounds, self.params)
    }
}

/// A table of workflow runs (analyses, research runs, people results) or of a deal's records
/// (statement sets, covenant tests): a uuid `id`, an `owner_id`,
/// an optional `deal_id` and `created_at`; rows are read as `columns` and mapped by `map`.
pub(super) struct RunTable<T> {
    pub(super) name: &'static str,
    pub(super) columns: &'static str,
    pub(super) map: fn(&Row) -> Result<T, StoreError>,
}

impl<T> RunTable<T> {
    /// The run with this id.
    pub(super) async fn find(&self, client: &Object, id: Uuid) -> Result<Option<T>, StoreError> {
        let statement = client
            .prepare_cached(&format!("SELECT {} FROM {} WHERE id = $1", self.columns, self.name))
            .await
            .map_err(unavailable)?;
        client.query_opt(&statement, &[&id]).await.map_err(unavailable)?.as_ref().map(self.map).transpose()
    }

    /// One page of the runs of `owner` (everyone's for `None`) and of `deal_id` (any for `None`),
    /// newest first (ties by id), and how many match in all.
    pub(super) async fn page(
        &self,
        client: &Object,
        owner: Option<Uuid>,
        deal_id: Option<i64>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<T>, u64), StoreError> {
        let (limit, offset) = (i64::from(limit), i64::try_from(offset).unwrap_or(i64::MAX));
        let listing = Listing::new()
            .with("owner_id = $?", owner.as_ref().map(|o| o as &(dyn ToSql + Sync)))
            .with("deal_id = $?", deal_id.as_ref().map(|d| d as &(dyn ToSql + Sync)));
        let total = listing.count(client, self.name).await?;
        let filter = listing.filter();
        let (bounds, params) = listing.page(&limit, &offset);
        let page = client
            .prepare_cached(&format!(
                "SELECT {} FROM {} {filter} ORDER BY created_at DESC, id DESC {bounds}",
                self.columns, self.name
            ))
            .await
            .map_err(unavailable)?;
        let rows = client.query(&page, &params).await.map_err(unavailable)?;
        let runs = rows.iter().map(self.map).collect::<Result<Vec<_>, _>>()?;
        Ok((runs, total))
    }
}
