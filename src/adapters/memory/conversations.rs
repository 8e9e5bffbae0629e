//! Chatbot sessions in process memory. One lock per operation makes an append all or nothing and
//! keeps each call's messages together, as PostgreSQL's row lock does.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::auth::UserId;
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
}
