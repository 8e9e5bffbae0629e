//! Chatbot sessions: the messages of each session, owned by the user who started it. A session id
//! is chosen by the client; the first message stored under it makes the caller its owner, and
//! nobody else can read or extend it.

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;

use crate::domain::auth::UserId;
use crate::ports::store::StoreError;

/// One stored message of a session.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredMessage {
    /// `user` or `assistant`.
    pub role: String,
    pub content: String,
    /// `quant`, `research` or `people` when this assistant turn launched a workflow.
    pub workflow_launched: Option<String>,
    /// The launched workflow's identifiers and status (`{analysis_id|research_id|people_id, status}`).
    pub workflow_result: Option<Value>,
    pub at: OffsetDateTime,
}

/// A session with its messages, oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatSession {
    pub id: String,
    pub owner: UserId,
    pub messages: Vec<StoredMessage>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    /// The session exists and belongs to another user; nothing was stored.
    #[error("the session belongs to another user")]
    OwnedByAnother,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait ConversationRepository: Send + Sync + 'static {
    /// Appends `messages` (in order) to session `session_id`, creating it owned by `owner` when it does
    /// not exist yet. All or nothing; concurrent appends to one session keep each call's messages
    /// together and in order.
    ///
    /// # Errors
    /// [`AppendError::OwnedByAnother`]; [`AppendError::Store`] when the store cannot answer.
    async fn append(
        &self,
        session_id: &str,
        owner: UserId,
        messages: Vec<StoredMessage>,
        at: OffsetDateTime,
    ) -> Result<(), AppendError>;

    /// The session with all its messages; unknown is `Ok(None)`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn find(&self, session_id: &str) -> Result<Option<ChatSession>, StoreError>;

    /// The session with only its last `limit` messages (oldest first; none for 0): what a chat turn
    /// needs, read without loading a long session. Unknown is `Ok(None)`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the store cannot answer.
    async fn recent(&self, session_id: &str, limit: usize) -> Result<Option<ChatSession>, StoreError>;
}
