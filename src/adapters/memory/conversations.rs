//! Chatbot sessions in process memory. One lock per operation makes an append all or nothing and
//! keeps each call's messages together, as PostgreSQL's row lock does.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::auth::UserId;
use crate::domain::chat::Role;
use crate::domain::chat::sessions::{OPENING_CHARS, SessionQuery, SessionSummary};
use crate::ports::conversations::{AppendError, ChatSession, ConversationRepository, StoredMessage};
use crate::ports::store::StoreError;

#[derive(Default)]
pub struct MemoryConversationStore {
    sessions: Mutex<HashMap<String, ChatSession>>,
}

impl MemoryConversationStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn sessions(&self) -> MutexGuard<'_, HashMap<String, ChatSession>> {
        // Every operation leaves whole sessions behind, so a poisoned lock still holds consistent data.
        self.sessions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl ConversationRepository for MemoryConversationStore {
    async fn append(
        &self,
        session_id: &str,
        owner: UserId,
        messages: Vec<StoredMessage>,
        at: OffsetDateTime,
    ) -> Result<(), AppendError> {
        let mut sessions = self.sessions();
        let session = sessions.entry(session_id.to_owned()).or_insert_with(|| ChatSession {
            id: session_id.to_owned(),
            owner,
            messages: Vec::new(),
            created_at: at,
            updated_at: at,
        });
        if session.owner != owner {
            return Err(AppendError::OwnedByAnother);
        }
        session.messages.extend(messages);
        session.updated_at = at;
        Ok(())
    }

    async fn append_existing(
        &self,
        session_id: &str,
        owner: UserId,
        messages: Vec<StoredMessage>,
        at: OffsetDateTime,
    ) -> Result<(), AppendError> {
        let mut sessions = self.sessions();
        let Some(session) = sessions.get_mut(session_id).filter(|session| session.owner == owner) else {
            return Err(AppendError::NotFound);
        };
        session.messages.extend(messages);
        session.updated_at = at;
        Ok(())
    }

    async fn create(&self, session_id: &str, owner: UserId, at: OffsetDateTime) -> Result<(), StoreError> {
        self.sessions().entry(session_id.to_owned()).or_insert_with(|| ChatSession {
            id: session_id.to_owned(),
            owner,
            messages: Vec::new(),
            created_at: at,
            updated_at: at,
        });
        Ok(())
    }

    async fn find(&self, session_id: &str) -> Result<Option<ChatSession>, StoreError> {
        Ok(self.sessions().get(session_id).cloned())
    }

    async fn recent(&self, session_id: &str, limit: usize) -> Result<Option<ChatSession>, StoreError> {
        let sessions = self.sessions();
        let Some(session) = sessions.get(session_id) else { return Ok(None) };
        let messages = &session.messages[session.messages.len().saturating_sub(limit)..];
        Ok(Some(ChatSession {
            id: session.id.clone(),
            owner: session.owner,
            messages: messages.to_vec(),
            created_at: session.created_at,
            updated_at: session.updated_at,
        }))
    }

    async fn list(&self, query: &SessionQuery) -> Result<(Vec<SessionSummary>, u64), StoreError> {
        let sessions = self.sessions();
        let mut matching: Vec<&ChatSession> = sessions
            .values()
            .filter(|session| query.owner.is_none_or(|owner| session.owner == owner))
            .filter(|session| query.deal_id.is_none_or(|deal| launched_on_deal(session, deal)))
            .collect();
        // As PostgreSQL orders them: the latest activity first, ties by id in byte order.
        matching.sort_by(|a, b| (b.updated_at, &b.id).cmp(&(a.updated_at, &a.id)));
        let total = matching.len() as u64;
        let offset = usize::try_from(query.offset()).unwrap_or(usize::MAX);
        let page = matching.into_iter().skip(offset).take(query.limit as usize).map(summary).collect();
        Ok((page, total))
    }
}

/// Whether a launch of the session names the deal in its stored result (as PostgreSQL reads it).
fn launched_on_deal(session: &ChatSession, deal_id: i64) -> bool {
    session.messages.iter().any(|m| {
        m.workflow_result.as_ref().and_then(|r| r.get("deal_id")).and_then(serde_json::Value::as_i64) == Some(deal_id)
    })
}

fn summary(session: &ChatSession) -> SessionSummary {
    let opening = session.messages.iter().find(|message| message.role == Role::User.as_str());
    SessionSummary {
        id: session.id.clone(),
        owner: session.owner,
        created_at: session.created_at,
        updated_at: session.updated_at,
        message_count: session.messages.len() as u64,
        opening: opening.map(|message| message.content.chars().take(OPENING_CHARS).collect()),
    }
}
