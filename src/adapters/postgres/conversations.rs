//! Chatbot sessions over PostgreSQL. An append is one transaction that creates the session if it is
//! new and then locks its row (`FOR UPDATE`): concurrent appends to one session queue behind each
//! other, so each numbers its messages after the previous one's and a call's messages stay together.

use async_trait::async_trait;
use time::OffsetDateTime;
use tokio_postgres::Row;

use super::store::{PostgresStore, column, unavailable};
use crate::domain::auth::UserId;
use crate::ports::conversations::{AppendError, ChatSession, ConversationRepository, StoredMessage};
use crate::ports::store::StoreError;

fn message_from_row(row: &Row) -> Result<StoredMessage, StoreError> {
    Ok(StoredMessage {
        role: column(row, "role")?,
        content: column(row, "content")?,
        workflow_launched: column(row, "workflow_launched")?,
        workflow_result: column(row, "workflow_result")?,
        at: column(row, "created_at")?,
    })
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
        let mut client = self.connection().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let create = tx
            .prepare_cached(
                "INSERT INTO chat_sessions (id, owner_id, created_at, updated_at) VALUES ($1, $2, $3, $3) \
                 ON CONFLICT (id) DO NOTHING",
            )
            .await
            .map_err(unavailable)?;
        tx.execute(&create, &[&session_id, &owner.as_uuid(), &at]).await.map_err(unavailable)?;
        let lock = tx
            .prepare_cached("SELECT owner_id FROM chat_sessions WHERE id = $1 FOR UPDATE")
            .await
            .map_err(unavailable)?;
        let row = tx.query_one(&lock, &[&session_id]).await.map_err(unavailable)?;
        if UserId::from_uuid(column(&row, "owner_id")?) != owner {
            // Dropping the transaction rolls it back; the other user's session is untouched.
            return Err(AppendError::OwnedByAnother);
        }
        let last = tx
            .prepare_cached("SELECT coalesce(max(seq), 0) AS last FROM chat_messages WHERE session_id = $1")
            .await
            .map_err(unavailable)?;
        let mut seq: i32 = column(&tx.query_one(&last, &[&session_id]).await.map_err(unavailable)?, "last")?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO chat_messages \
                 (session_id, seq, role, content, workflow_launched, workflow_result, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .await
            .map_err(unavailable)?;
        for message in &messages {
            seq += 1;
            tx.execute(
                &insert,
                &[
                    &session_id,
                    &seq,
                    &message.role,
                    &message.content,
                    &message.workflow_launched,
                    &message.workflow_result,
                    &message.at,
                ],
            )
            .await
            .map_err(unavailable)?;
        }
        let touch =
            tx.prepare_cached("UPDATE chat_sessions SET updated_at = $2 WHERE id = $1").await.map_err(unavailable)?;
        tx.execute(&touch, &[&session_id, &at]).await.map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(())
    }

    async fn find(&self, session_id: &str) -> Result<Option<ChatSession>, StoreError> {
        let client = self.connection().await?;
        let session = client
            .prepare_cached("SELECT id, owner_id, created_at, updated_at FROM chat_sessions WHERE id = $1")
            .await
            .map_err(unavailable)?;
        let Some(row) = client.query_opt(&session, &[&session_id]).await.map_err(unavailable)? else {
            return Ok(None);
        };
        let messages = client
            .prepare_cached(
                "SELECT role, content, workflow_launched, workflow_result, created_at FROM chat_messages \
                 WHERE session_id = $1 ORDER BY seq",
            )
            .await
            .map_err(unavailable)?;
        let rows = client.query(&messages, &[&session_id]).await.map_err(unavailable)?;
        Ok(Some(ChatSession {
            id: column(&row, "id")?,
            owner: UserId::from_uuid(column(&row, "owner_id")?),
            messages: rows.iter().map(message_from_row).collect::<Result<Vec<_>, _>>()?,
            created_at: column(&row, "created_at")?,
            updated_at: column(&row, "updated_at")?,
        }))
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
