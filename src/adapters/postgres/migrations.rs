//! Versioned schema migrations, embedded in the binary and applied at start-up in one transaction
//! under an advisory lock: several instances starting at once apply each migration exactly once,
//! and a failed migration leaves nothing behind. A migration already applied is never edited (its
//! checksum is kept and compared); changes go into a new file.

use std::collections::BTreeMap;

use anyhow::{Context, anyhow, bail};
use sha2::{Digest, Sha256};
use tokio_postgres::Client;

use super::connection::describe_postgres_error;

struct Migration {
    version: i32,
    name: &'static str,
    sql: &'static str,
}

impl Migration {
    fn checksum(&self) -> String {
        hex::encode(Sha256::digest(self.sql.as_bytes()))
    }
}

/// In version order; later issues append (analyses, research runs, documents, chat sessions, people results).
const MIGRATIONS: &[Migration] = &[
    Migration { version: 1, name: "auth", sql: include_str!("migrations/0001_auth.sql") },
    Migration { version: 2, name: "documents", sql: include_str!("migrations/0002_documents.sql") },
    Migration { version: 3, name: "analyses", sql: include_str!("migrations/0003_analyses.sql") },
    Migration { version: 4, name: "rate_limits", sql: include_str!("migrations/0004_rate_limits.sql") },
    Migration { version: 5, name: "provider_cache", sql: include_str!("migrations/0005_provider_cache.sql") },
    Migration { version: 6, name: "research_runs", sql: include_str!("migrations/0006_research_runs.sql") },
    Migration { version: 7, name: "chat_sessions", sql: include_str!("migrations/0007_chat_sessions.sql") },
    Migration { version: 8, name: "people_results", sql: include_str!("migrations/0008_people_results.sql") },
    Migration {
        version: 9,
        name: "chat_session_counter",
        sql: include_str!("migrations/0009_chat_session_counter.sql"),
    },
    Migration { version: 10, name: "token_version", sql: include_str!("migrations/0010_token_version.sql") },
    Migration { version: 11, name: "document_originals", sql: include_str!("migrations/0011_document_originals.sql") },
    Migration { version: 12, name: "statement_sets", sql: include_str!("migrations/0012_statement_sets.sql") },
    Migration { version: 13, name: "provider_cache_age", sql: include_str!("migrations/0013_provider_cache_age.sql") },
    Migration { version: 14, name: "people_identity", sql: include_str!("migrations/0014_people_identity.sql") },
    Migration {
        version: 15,
        name: "chat_session_updates_in_place",
        sql: include_str!("migrations/0015_chat_session_updates_in_place.sql"),
    },
    Migration { version: 16, name: "service_instances", sql: include_str!("migrations/0016_service_instances.sql") },
    Migration { version: 17, name: "document_usage", sql: include_str!("migrations/0017_document_usage.sql") },
    Migration {
        version: 18,
        name: "user_change_announcements",
        sql: include_str!("migrations/0018_user_change_announcements.sql"),
    },
    Migration {
        version: 19,
        name: "bounded_statement_sets",
        sql: include_str!("migrations/0019_bounded_statement_sets.sql"),
    },
    Migration { version: 20, name: "covenant_tests", sql: include_str!("migrations/0020_covenant_tests.sql") },
];

/// Identifies creditflow's migration lock among the database's advisory locks ("creditfl").
const MIGRATION_LOCK_ID: i64 = 0x6372_6564_6974_666c;

/// Applies the migrations this database lacks; returns the versions applied now.
///
/// # Errors
/// When the database cannot be reached, a migration fails (everything is rolled back), an applied
/// migration differs from the one in this binary, or the database was migrated by a newer release.
pub async fn migrate(client: &mut Client) -> anyhow::Result<Vec<i32>> {
    let db =
        |context: &'static str| move |e: tokio_postgres::Error| anyhow!("{context}: {}", describe_postgres_error(&e));
    let transaction = client.transaction().await.map_err(db("starting the migration transaction"))?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK_ID])
        .await
        .map_err(db("taking the migration lock"))?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                 version    integer PRIMARY KEY,
                 name       text NOT NULL,
                 checksum   text NOT NULL,
                 applied_at timestamptz NOT NULL DEFAULT now()
             )",
        )
        .await
        .map_err(db("creating schema_migrations"))?;
    let applied: BTreeMap<i32, String> = transaction
        .query("SELECT version, checksum FROM schema_migrations", &[])
        .await
        .map_err(db("reading schema_migrations"))?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let known = MIGRATIONS.last().map_or(0, |m| m.version);
    if let Some((&newest, _)) = applied.last_key_value()
        && newest > known
    {
        bail!(
            "the database schema is at version {newest}, newer than this release knows ({known}): upgrade creditflow"
        );
    }
    let mut applied_now = Vec::new();
    for migration in MIGRATIONS {
        let checksum = migration.checksum();
        match applied.get(&migration.version) {
            Some(recorded) if *recorded == checksum => continue,
            Some(_) => bail!(
                "migration {} ({}) differs from the one applied to this database: add a new migration instead",
                migration.version,
                migration.name
            ),
            None => {}
        }
        transaction.batch_execute(migration.sql).await.map_err(|e| {
            anyhow!("migration {} ({}) failed: {}", migration.version, migration.name, describe_postgres_error(&e))
        })?;
        transaction
            .execute(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                &[&migration.version, &migration.name, &checksum],
            )
            .await
            .map_err(db("recording a migration"))?;
        applied_now.push(migration.version);
    }
    transaction.commit().await.context("committing the migrations")?;
    if !applied_now.is_empty() {
        tracing::info!(versions = ?applied_now, "applied database migrations");
    }
    Ok(applied_now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_in_order_without_gaps() {
        for (index, migration) in MIGRATIONS.iter().enumerate() {
            assert_eq!(migration.version, index as i32 + 1, "{}", migration.name);
            assert!(!migration.sql.trim().is_empty());
        }
    }
}
