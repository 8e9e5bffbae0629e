//! Chatbot sessions over PostgreSQL. An append is one statement that creates the session or locks
//! its row while counting the new messages, then inserts them numbered: concurrent appends to one
//! session queue behind each other, so each numbers its messages after the previous one's and a
//! call's messages stay together. A chat turn reads only the last messages it needs.
//!
//! A list of sessions is read without an index in its order, on purpose: migration 0015 dropped
//! the one on `updated_at` so that the update every turn makes stays in place (a heap-only
//! update), and any index holding `updated_at` would undo that. A user's sessions are found by
//! `owner_id` and sorted (they are few: a page of a user with 200 sessions takes 3 ms); an
//! administrator's list of everyone's sessions sorts the whole table, which counting it for the
//! total reads anyway (90 ms for the page and 30 ms for the count at 200,000 sessions: linear in
//! the table). The message count is the session's counter (`last_seq`: messages are numbered from
//! 1 and never removed), and the first user message is looked up, cut short, for the page's
//! sessions only (one probe of the primary key each).

use async_trait::async_trait;
use time::OffsetDateTime;
use tokio_postgres::types::ToSql;

use super::listing::Listing;
use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::domain::chat::Role;
use crate::domain::chat::sessions::{OPENING_CHARS, SessionQuery, SessionSummary};
use crate::ports::conversations::{AppendError, ChatSession, ConversationRepository, StoredMessage};
use crate::ports::store::StoreError;

/// Inserts the messages `$5`… numbered after the counter the `session` CTE returns (its
/// `last_seq` after adding the `$4` new messages); no `session` row, nothing inserted.
macro_rules! insert_numbered_messages {
    () => {
        "INSERT INTO chat_messages (session_id, seq, role, content, workflow_launched, workflow_result, created_at) \
         SELECT $1, (session.last_seq - $4 + m.ord)::integer, m.role, m.content, m.workflow_launched, \
                m.workflow_result, m.created_at \
           FROM session, unnest($5::text[], $6::text[], $7::text[], $8::jsonb[], $9::timestamptz[]) \
                WITH ORDINALITY AS m(role, content, workflow_launched, workflow_result, created_at, ord)"
    };
}

/// Creates the session or, when it is the owner's, counts the new messages in it — locking its row,
/// so concurrent appends to one session take turns and number their messages one after the
/// other — then inserts the messages numbered from the counter. Another owner's session matches no
/// row, so nothing is inserted. One statement: one round trip, atomic without a transaction block.
const APPEND: &str = concat!(
    "WITH session AS ( \
       INSERT INTO chat_sessions AS s (id, owner_id, created_at, updated_at, last_seq) \
       VALUES ($1, $2, $3, $3, $4) \
       ON CONFLICT (id) DO UPDATE SET updated_at = EXCLUDED.updated_at, last_seq = s.last_seq + EXCLUDED.last_seq \
       WHERE s.owner_id = EXCLUDED.owner_id \
       RETURNING s.last_seq) ",
    insert_numbered_messages!()
);

/// As [`APPEND`], for a session that must exist already and be the owner's: the update locks and
/// counts, and a missing or foreign session matches no row, so nothing is inserted.
const APPEND_EXISTING: &str = concat!(
    "WITH session AS ( \
       UPDATE chat_sessions SET updated_at = $3, last_seq = last_seq + $4 \
        WHERE id = $1 AND owner_id = $2 \
       RETURNING last_seq) ",
    insert_numbered_messages!()
);

/// The session and its last `$2` messages, newest first (a session without messages, or asked for
/// none, is one row with null message columns).
const RECENT: &str = "SELECT s.id, s.owner_id, s.created_at, s.updated_at, \
            m.role, m.content, m.workflow_launched, m.workflow_result, m.created_at AS message_at \
       FROM chat_sessions s \
       LEFT JOIN LATERAL (SELECT * FROM chat_messages WHERE session_id = s.id ORDER BY seq DESC LIMIT $2) m ON true \
      WHERE s.id = $1 \
      ORDER BY m.seq DESC";

/// One page of sessions — `filter` and `bounds` as [`Listing`] writes them — with the start of each
/// one's first user message: its first `$<chars>` characters, of the first message in role
/// `$<role>`. Ties are ordered by the id's bytes (`COLLATE "C"`), as the contract says, whatever
/// the database's collation.
fn page_statement(filter: &str, bounds: &str, role: usize, chars: usize) -> String {
    format!(
        "SELECT s.id, s.owner_id, s.created_at, s.updated_at, s.last_seq, o.opening \
           FROM (SELECT id, owner_id, created_at, updated_at, last_seq FROM chat_sessions {filter} \
                  ORDER BY updated_at DESC, id COLLATE \"C\" DESC {bounds}) s \
           LEFT JOIN LATERAL (SELECT left(m.content, ${chars}) AS opening FROM chat_messages m \
                               WHERE m.session_id = s.id AND m.role = ${role} \
                               ORDER BY m.seq LIMIT 1) o ON true \
          ORDER BY s.updated_at DESC, s.id COLLATE \"C\" DESC"
    )
}

#[async_trait]
impl ConversationRepository for PostgresStore {
    async fn append(
        &self,
        session_id: &str,
        owner: UserId,
        messages: Vec<StoredMessage>,
        at: OffsetDateTime,
    ) -> Result<(), AppendError> {
        if messages.is_empty() {
            return match self.recent(session_id, 0).await? {
                Some(session) if session.owner != owner => Err(AppendError::OwnedByAnother),
                _ => Ok(()),
            };
        }
        if self.insert_messages(APPEND, session_id, owner, &messages, at).await? == 0 {
            return Err(AppendError::OwnedByAnother);
        }
        Ok(())
    }

    async fn append_existing(
        &self,
        session_id: &str,
        owner: UserId,
        messages: Vec<StoredMessage>,
        at: OffsetDateTime,
    ) -> Result<(), AppendError> {
        if messages.is_empty() {
            return match self.recent(session_id, 0).await? {
                Some(session) if session.owner == owner => Ok(()),
                _ => Err(AppendError::NotFound),
            };
        }
        if self.insert_messages(APPEND_EXISTING, session_id, owner, &messages, at).await? == 0 {
            return Err(AppendError::NotFound);
        }
        Ok(())
    }

    async fn create(&self, session_id: &str, owner: UserId, at: OffsetDateTime) -> Result<(), StoreError> {
        let client = self.connection().await?;
        client
            .execute(
                "INSERT INTO chat_sessions (id, owner_id, created_at, updated_at) VALUES ($1, $2, $3, $3) \
                 ON CONFLICT (id) DO NOTHING",
                &[&session_id, &owner.as_uuid(), &at],
            )
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn find(&self, session_id: &str) -> Result<Option<ChatSession>, StoreError> {
        self.recent(session_id, usize::MAX).await
    }

    async fn recent(&self, session_id: &str, limit: usize) -> Result<Option<ChatSession>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let client = self.connection().await?;
        let recent = client.prepare_cached(RECENT).await.map_err(unavailable)?;
        let rows = client.query(&recent, &[&session_id, &limit]).await.map_err(unavailable)?;
        let Some(first) = rows.first() else { return Ok(None) };
        let mut messages = Vec::with_capacity(rows.len());
        for row in rows.iter().rev() {
            if let Some(role) = column::<Option<String>>(row, "role")? {
                messages.push(StoredMessage {
                    role,
                    content: column(row, "content")?,
                    workflow_launched: column(row, "workflow_launched")?,
                    workflow_result: column(row, "workflow_result")?,
                    at: column(row, "message_at")?,
                });
            }
        }
        Ok(Some(ChatSession {
            id: column(first, "id")?,
            owner: UserId::from_uuid(column(first, "owner_id")?),
            messages,
            created_at: column(first, "created_at")?,
            updated_at: column(first, "updated_at")?,
        }))
    }

    async fn list(&self, query: &SessionQuery) -> Result<(Vec<SessionSummary>, u64), StoreError> {
        let owner = query.owner.map(|owner| owner.as_uuid());
        let (limit, offset) = (i64::from(query.limit), i64::try_from(query.offset()).unwrap_or(i64::MAX));
        let (role, chars) = (Role::User.as_str(), i32::try_from(OPENING_CHARS).unwrap_or(i32::MAX));
        let client = self.connection().await?;
        let listing = Listing::new().with("owner_id = $?", owner.as_ref().map(|o| o as &(dyn ToSql + Sync))).with(
            "EXISTS (SELECT 1 FROM chat_messages m WHERE m.session_id = chat_sessions.id \
                 AND jsonb_typeof(m.workflow_result -> 'deal_id') = 'number' \
                 AND (m.workflow_result ->> 'deal_id')::numeric = $?::bigint)",
            query.deal_id.as_ref().map(|d| d as &(dyn ToSql + Sync)),
        );
        let total = listing.count(&client, "chat_sessions").await?;
        let filter = listing.filter();
        let (bounds, mut params) = listing.page(&limit, &offset);
        params.push(&role);
        params.push(&chars);
        let statement = client
            .prepare_cached(&page_statement(&filter, &bounds, params.len() - 1, params.len()))
            .await
            .map_err(unavailable)?;
        let rows = client.query(&statement, &params).await.map_err(unavailable)?;
        let sessions = rows
            .iter()
            .map(|row| {
                Ok(SessionSummary {
                    id: column(row, "id")?,
                    owner: UserId::from_uuid(column(row, "owner_id")?),
                    created_at: column(row, "created_at")?,
                    updated_at: column(row, "updated_at")?,
                    message_count: u64::try_from(column::<i32>(row, "last_seq")?).unwrap_or(0),
                    opening: column(row, "opening")?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok((sessions, total))
    }
}

impl PostgresStore {
    /// Runs `statement` ([`APPEND`] or [`APPEND_EXISTING`]) for `messages`; the rows inserted.
    async fn insert_messages(
        &self,
        statement: &str,
        session_id: &str,
        owner: UserId,
        messages: &[StoredMessage],
        at: OffsetDateTime,
    ) -> Result<u64, StoreError> {
        let count = i32::try_from(messages.len())
            .map_err(|_| StoreError::Unavailable(anyhow::anyhow!("too many messages in one append")))?;
        let roles: Vec<&str> = messages.iter().map(|m| m.role.as_str()).collect();
        let contents: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        let launched: Vec<Option<&str>> = messages.iter().map(|m| m.workflow_launched.as_deref()).collect();
        let results: Vec<Option<&serde_json::Value>> = messages.iter().map(|m| m.workflow_result.as_ref()).collect();
        let times: Vec<OffsetDateTime> = messages.iter().map(|m| m.at).collect();
        let client = self.connection().await?;
        let prepared = client.prepare_cached(statement).await.map_err(unavailable)?;
        client
            .execute(
                &prepared,
                &[&session_id, &owner.as_uuid(), &at, &count, &roles, &contents, &launched, &results, &times],
            )
            .await
            .map_err(unavailable)
    }
}

#[cfg(test)]
mod tests {
    use crate::domain::chat::intent::Role;

    #[test]
    fn both_roles_are_allowed_by_the_table() {
        let sql = include_str!("migrations/0007_chat_sessions.sql");
        for role in [Role::User, Role::Assistant] {
            assert!(sql.contains(&format!("'{}'", role.as_str())), "{role:?}");
        }
    }
}
