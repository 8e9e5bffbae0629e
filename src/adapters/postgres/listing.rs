//! Paged listings: a `WHERE` clause made of only the conditions in use — so each combination gets a
//! plan on its own index, where a generic `$1 IS NULL OR …` plan would scan and sort every row —
//! with the total count and the `LIMIT`/`OFFSET` bind parameters.

use deadpool_postgres::Object;
use tokio_postgres::types::ToSql;

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
