//! The chatbot use case: one turn of a conversation (`POST /api/digitizer-chatbot/chat`), a direct
//! launch (`POST /api/digitizer-chatbot/launch-workflow`) and the stored sessions.
//!
//! A turn is answered by one of two engines, and the reply's `metadata.engine` says which:
//!
//! - **`llm`** (in `llm_engine`), when a language model is configured: the model sees
//!   instructions, the last [`HISTORY_WINDOW`] messages and the user's message, and may call one
//!   tool per kind of launch ([`LaunchKind`]: company, market, loan application, research, people),
//!   each with the JSON Schema of the type that reads its calls, and, when a document is in
//!   context, the read-only `lookup_agreement_field`. Nothing else can be called. Tool arguments go
//!   through the same validation as a launch request ([`parse_workflow_params`]); broken or invalid
//!   arguments are answered to the model as a tool error (it may correct them, a bounded number of
//!   times), and at most one workflow is launched per turn. User text, history and document values reach the model as data (user
//!   turns and tool results), never as instructions.
//! - **`deterministic`**, when no model is configured — or when the model fails (unreachable,
//!   rate-limited, no usable answer) before it launched anything; then `metadata.fallback_reason`
//!   says why. The grammar of [`crate::domain::chat::intent`] decides the launch; agreement
//!   questions are answered from the document's fields; anything else gets a fixed description of
//!   what the engine understands, never an invented answer.
//!
//! Sessions belong to the user whose turn created them: another user's session id is "not found"
//! for reading, chatting and launching alike, and is never written. A turn or launch that names no
//! session starts one under a server-generated id; one that names an id no session has yet starts
//! the session under that id, owned by the caller (clients written to the interface contract choose
//! their own ids, and the contract has no call to create one). When a turn carries no
//! `conversation_history`, the session's own stored messages are the history.

mod follow_ups;
mod llm_engine;

use std::sync::Arc;

use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::chat::covenant_question::{CovenantQuestion, describe_test, recognise_covenant_question};
use crate::domain::chat::follow_up::recognise_follow_up;
use crate::domain::chat::launch_params::{
    LaunchError, LaunchKind, as_workflow_params, intent_launch, parse_workflow_params,
};
use crate::domain::chat::launcher::{Launch, WorkflowLauncher};
use crate::domain::chat::sessions::{SessionQuery, SessionSummary};
use crate::domain::chat::{
    AgreementField, HISTORY_WINDOW, HistoryTurn, Intent, Role, answer_from_agreement, parse_intent,
    parse_intent_without_history,
};
use crate::domain::deals::service::{DealError, DealService};
use crate::domain::documents::{DocumentError, DocumentId, DocumentService};
use crate::domain::quant::request::QuantError;
use crate::ports::clock::Clock;
use crate::ports::conversations::{AppendError, ChatSession, ConversationRepository, StoredMessage};
use crate::ports::llm::LanguageModel;
use crate::ports::store::StoreError;
use follow_ups::LAUNCHES_LOOKBACK_MESSAGES;

/// Longest message accepted, in characters.
pub const MAX_MESSAGE_CHARS: usize = 4_000;
/// Longest session id accepted, in characters.
pub const MAX_SESSION_ID_CHARS: usize = 128;

const HELP: &str = "I did not find a workflow to launch or a question about the agreement in that message. \
    I answer by a fixed grammar (no language model is involved), and understand requests such as \
    \"analyse Apple Inc\", \"how risky is MSFT?\", \"compare semiconductors and banks over 1Y\", \
    \"research the impact of SOFR on leveraged loans\", \"look into Jane Doe\", \
    \"assess a $5m term loan for Acme Corp\", and questions about the agreement in context such as \
    \"what is the margin?\" or \"who is the borrower?\".";

#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// A request value is wrong; `field` names it as the API spells it.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// No session with this id that the caller may use.
    #[error("session not found")]
    SessionNotFound,
    /// No document with this id that the caller may read.
    #[error("document not found")]
    DocumentNotFound,
    /// A direct launch did not happen (validation, unknown company, provider failure).
    #[error(transparent)]
    Launch(LaunchError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A store failure while reading a deal, as the chat reports it.
fn deal_store_error(error: DealError) -> ChatError {
    match error {
        DealError::Store(error) => ChatError::Store(error),
        other => ChatError::invalid("deal_id", other.to_string()),
    }
}

impl ChatError {
    fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Validation { field: field.into(), message: message.into() }
    }
}

impl From<LaunchError> for ChatError {
    fn from(error: LaunchError) -> Self {
        match error {
            LaunchError::Store(error) => Self::Store(error),
            other => Self::Launch(other),
        }
    }
}

impl From<AppendError> for ChatError {
    fn from(error: AppendError) -> Self {
        match error {
            AppendError::OwnedByAnother | AppendError::NotFound => Self::SessionNotFound,
            AppendError::Store(error) => Self::Store(error),
        }
    }
}

/// Checks a client-chosen session id: 1–128 letters, digits, `-`, `_`, `.` or `:`.
///
/// # Errors
/// [`ChatError::Validation`] naming `session_id`.
pub fn validate_session_id(raw: &str) -> Result<String, ChatError> {
    let id = raw.trim();
    if id.is_empty() || id.chars().count() > MAX_SESSION_ID_CHARS {
        return Err(ChatError::invalid("session_id", format!("must be 1-{MAX_SESSION_ID_CHARS} characters")));
    }
    if !id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':')) {
        return Err(ChatError::invalid("session_id", "may hold only letters, digits, '-', '_', '.' and ':'"));
    }
    Ok(id.to_owned())
}

/// The session a request names (validated), or a new server-generated id when it names none;
/// `true` when the id was generated. A named id may still be new: the first turn or launch under it
/// starts the session for its caller (see [`ChatService::chat`]).
///
/// # Errors
/// [`ChatError::Validation`] naming `session_id`.
pub fn session_or_new(session_id: Option<&str>) -> Result<(String, bool), ChatError> {
    match session_id {
        Some(raw) => Ok((validate_session_id(raw)?, false)),
        None => Ok((new_session_id(), true)),
    }
}

/// A fresh session id: random, so it cannot be guessed or taken first.
pub fn new_session_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// One validated chat turn.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatTurn {
    pub message: String,
    /// The session the turn belongs to: the caller's existing one, an id the client chose for a new
    /// one, or a fresh server-generated id.
    pub session_id: String,
    /// The turn starts the session: its id was generated for it, or (found out when the session is
    /// read) no session has the id the client chose.
    pub starts_session: bool,
    pub deal_id: Option<i64>,
    pub document_id: Option<DocumentId>,
    /// The last [`HISTORY_WINDOW`] messages the client sent, oldest first; `None` when it sent none.
    pub history: Option<Vec<HistoryTurn>>,
    /// Extracted CDM data of the document under discussion.
    pub document_context: Option<Value>,
}

impl ChatTurn {
    /// Validates a turn. A history longer than [`HISTORY_WINDOW`] is accepted and cut to its last
    /// messages; its roles must be `user` or `assistant`.
    ///
    /// # Errors
    /// [`ChatError::Validation`] naming the field (`conversation_history[3].role`, …).
    pub fn new(
        message: &str,
        session_id: Option<&str>,
        deal_id: Option<i64>,
        document_id: Option<i64>,
        conversation_history: Option<&Value>,
        document_context: Option<&Value>,
    ) -> Result<Self, ChatError> {
        let message = message.trim();
        if message.is_empty() {
            return Err(ChatError::invalid("message", "must not be blank"));
        }
        if message.chars().count() > MAX_MESSAGE_CHARS {
            return Err(ChatError::invalid("message", format!("must be at most {MAX_MESSAGE_CHARS} characters")));
        }
        let (session_id, starts_session) = session_or_new(session_id)?;
        if deal_id.is_some_and(|id| id <= 0) {
            return Err(ChatError::invalid("deal_id", "must be a positive integer"));
        }
        let document_id = match document_id {
            None => None,
            Some(id) => Some(
                DocumentId::new(id).ok_or_else(|| ChatError::invalid("document_id", "must be a positive integer"))?,
            ),
        };
        let history = conversation_history.filter(|value| !value.is_null()).map(parse_history).transpose()?;
        let document_context = match document_context.filter(|value| !value.is_null()) {
            None => None,
            Some(value @ (Value::Object(_) | Value::Array(_))) => Some(value.clone()),
            Some(_) => return Err(ChatError::invalid("document_context", "must be an object (extracted CDM data)")),
        };
        Ok(Self {
            message: message.to_owned(),
            session_id,
            starts_session,
            deal_id,
            document_id,
            history,
            document_context,
        })
    }
}

fn parse_history(value: &Value) -> Result<Vec<HistoryTurn>, ChatError> {
    let Some(entries) = value.as_array() else {
        return Err(ChatError::invalid("conversation_history", "must be an array of {role, content}"));
    };
    let mut turns = Vec::with_capacity(entries.len().min(HISTORY_WINDOW));
    for (i, entry) in entries.iter().enumerate() {
        let field = |name: &str| format!("conversation_history[{i}].{name}");
        let role = entry.get("role").and_then(Value::as_str).and_then(Role::parse);
        let Some(role) = role else {
            return Err(ChatError::invalid(field("role"), "must be \"user\" or \"assistant\""));
        };
        let Some(content) = entry.get("content").and_then(Value::as_str) else {
            return Err(ChatError::invalid(field("content"), "must be a string"));
        };
        if i + HISTORY_WINDOW >= entries.len() {
            turns.push(HistoryTurn { role, content: content.to_owned() });
        }
    }
    Ok(turns)
}

/// The answer to a turn.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatReply {
    pub response: String,
    /// `quant`, `research` or `people` when the turn launched a workflow.
    pub workflow_launched: Option<&'static str>,
    pub workflow_result: Option<Value>,
    /// The launched workflow's steps and `WorkflowLaunched`, then the `ChatbotInteraction` step.
    pub cdm_events: Vec<Value>,
    /// `{engine, model?, fallback_reason?, model_error?, intent?, history_messages_used, document?,
    /// usage?, launch_error?, tool_errors?}`.
    pub metadata: Value,
}

/// The agreement a turn may ask about.
struct DocumentInContext {
    agreement: Value,
    /// `document_context` or `document_id`.
    source: &'static str,
    document_id: Option<DocumentId>,
}

/// What an engine made of a turn.
#[derive(Default)]
struct Answer {
    response: String,
    launch: Option<Launch>,
    metadata: Map<String, Value>,
}

pub struct ChatService {
    conversations: Arc<dyn ConversationRepository>,
    documents: Arc<DocumentService>,
    launcher: Arc<WorkflowLauncher>,
    llm: Option<Arc<dyn LanguageModel>>,
    /// Answers covenant questions; `None`: they get the help text.
    deals: Option<Arc<DealService>>,
    clock: Arc<dyn Clock>,
}

impl ChatService {
    pub fn new(
        conversations: Arc<dyn ConversationRepository>,
        documents: Arc<DocumentService>,
        launcher: Arc<WorkflowLauncher>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { conversations, documents, launcher, llm: None, deals: None, clock }
    }

    /// The same service answering covenant questions from the deals' covenant tests.
    #[must_use]
    pub fn with_deals(mut self, deals: Arc<DealService>) -> Self {
        self.deals = Some(deals);
        self
    }

    /// The same service answering with a language model (tool calling) when one is configured.
    #[must_use]
    pub fn with_language_model(mut self, llm: Option<Arc<dyn LanguageModel>>) -> Self {
        self.llm = llm;
        self
    }

    /// The session, if the caller may read it (its owner and administrators).
    ///
    /// # Errors
    /// [`ChatError::SessionNotFound`] otherwise (a malformed id included); [`ChatError::Store`].
    pub async fn session(&self, caller: Principal, session_id: &str) -> Result<ChatSession, ChatError> {
        let session_id = validate_session_id(session_id).map_err(|_| ChatError::SessionNotFound)?;
        match self.conversations.find(&session_id).await? {
            Some(session) if caller.may_see_owned_by(session.owner) => Ok(session),
            _ => Err(ChatError::SessionNotFound),
        }
    }

    /// One page of the sessions the caller lists — their own; everyone's for administrators, who
    /// may read any session — the most recently active first, and how many there are in all.
    ///
    /// # Errors
    /// [`ChatError::Validation`] naming `page` or `limit` when out of bounds; [`ChatError::Store`].
    pub async fn sessions(
        &self,
        caller: Principal,
        page: u32,
        limit: u32,
    ) -> Result<(Vec<SessionSummary>, u64), ChatError> {
        let query =
            SessionQuery::for_caller(caller, page, limit).map_err(|e| ChatError::invalid(e.field, e.message))?;
        Ok(self.conversations.list(&query).await?)
    }

    /// Starts an empty session owned by the caller, under a server-generated id.
    ///
    /// # Errors
    /// [`ChatError::Store`].
    pub async fn start_session(&self, caller: Principal) -> Result<ChatSession, ChatError> {
        let now = self.clock.now();
        let session = ChatSession {
            id: new_session_id(),
            owner: caller.user_id,
            messages: Vec::new(),
            created_at: now,
            updated_at: now,
        };
        self.conversations.create(&session.id, session.owner, session.created_at).await?;
        Ok(session)
    }

    /// Launches `workflow_type` with `params` from the caller's session `session_id` (a new one
    /// when `None`, or when no session has the id yet) and records the launch in the session; the
    /// session's id and the launch.
    ///
    /// # Errors
    /// [`ChatError::Validation`] (session id), [`ChatError::Launch`] (parameters, unknown company,
    /// provider failure), [`ChatError::SessionNotFound`] for another user's session,
    /// [`ChatError::Store`].
    pub async fn launch(
        &self,
        caller: Principal,
        session_id: Option<&str>,
        workflow_type: &str,
        params: &Value,
        deal_id: Option<i64>,
        request_id: &str,
    ) -> Result<(String, Launch), ChatError> {
        let (session_id, starts_session) = session_or_new(session_id)?;
        let params = parse_workflow_params(workflow_type, params, deal_id)?;
        self.usable_session(caller, &session_id, starts_session, 0).await?;
        let launch = self.launcher.launch(caller, &session_id, params, request_id).await?;
        let now = self.clock.now();
        let record = reply_message(&launch.message, Some(&launch), now);
        self.conversations.append(&session_id, caller.user_id, vec![record], now).await?;
        Ok((session_id, launch))
    }

    /// Answers one turn, launching a workflow when the message asks for one, and stores the user's
    /// message and the reply in the session.
    ///
    /// # Errors
    /// [`ChatError::SessionNotFound`], [`ChatError::DocumentNotFound`], [`ChatError::Store`]. A launch
    /// that fails is part of the answer (`metadata.launch_error`), not an error.
    pub async fn chat(&self, caller: Principal, mut turn: ChatTurn, request_id: &str) -> Result<ChatReply, ChatError> {
        // A covenant question is answered from stored tests whatever the engine: its figures must be
        // the test's, never a model's.
        if let (Some(deals), Some(question)) = (&self.deals, recognise_covenant_question(&turn.message)) {
            // The session is checked before anything runs: a test run for a turn that is then
            // refused would be stored for nothing.
            self.usable_session(caller, &turn.session_id, turn.starts_session, 0).await?;
            let answer = self.answer_covenant_question(deals, caller, &turn, &question, request_id).await?;
            return self.finish_turn(caller, &turn, answer, None, request_id).await;
        }
        if let Some(intent) = self.answerable_without_the_session(&turn) {
            // Nothing is read before answering (a document can only be in context as sent): the
            // append checks that the session is the caller's.
            let document = self.document_in_context(caller, &turn).await?;
            let mut answer = self.answer_intent(caller, &turn, intent, document.as_ref(), request_id).await?;
            let used = turn.history.as_ref().map_or(0, Vec::len);
            answer.metadata.insert("history_messages_used".into(), json!(used));
            return self.finish_turn(caller, &turn, answer, document.as_ref(), request_id).await;
        }
        // A follow-up reads enough messages to find the session's launches; otherwise stored messages
        // are read only when the client sent no history, and only the last few.
        let follow_up = recognise_follow_up(&turn.message).filter(|_| !turn.starts_session);
        let stored_needed = match (&follow_up, &turn.history) {
            (Some(_), _) => LAUNCHES_LOOKBACK_MESSAGES,
            (None, Some(_)) => 0,
            (None, None) => HISTORY_WINDOW,
        };
        let session = self.usable_session(caller, &turn.session_id, turn.starts_session, stored_needed).await?;
        // A client's own id that no session has yet: this turn starts the session.
        turn.starts_session |= session.is_none();
        let stored;
        let history: &[HistoryTurn] = match &turn.history {
            Some(history) => history,
            None => {
                stored = stored_history(session.as_ref());
                &stored
            }
        };
        let document = self.document_in_context(caller, &turn).await?;
        let follow_up = match (&follow_up, &session) {
            (Some(question), Some(session)) => {
                self.answer_follow_up(caller, &turn, question, session, document.as_ref(), request_id).await?
            }
            _ => None,
        };
        let mut answer = match (follow_up, &self.llm) {
            (Some(answer), _) => answer,
            (None, Some(llm)) => {
                self.answer_with_model(llm.as_ref(), caller, &turn, history, document.as_ref(), request_id).await?
            }
            (None, None) => self.answer_by_grammar(caller, &turn, history, document.as_ref(), request_id).await?,
        };
        answer.metadata.insert("history_messages_used".into(), json!(history.len()));
        self.finish_turn(caller, &turn, answer, document.as_ref(), request_id).await
    }

    /// The grammar's intent when the turn can be answered without reading its session first: no
    /// model (it reads the history), a session that exists already, no stored document to fetch, no
    /// follow-up about the session's runs, and a message that launches nothing and does not refer
    /// back (or refers back to the history the client sent). A launch always reads the session
    /// first, so that nothing runs from a session that is not the caller's.
    fn answerable_without_the_session(&self, turn: &ChatTurn) -> Option<Intent> {
        if self.llm.is_some() || turn.starts_session || turn.document_id.is_some() {
            return None;
        }
        if recognise_follow_up(&turn.message).is_some() {
            return None;
        }
        let intent = match &turn.history {
            Some(history) => parse_intent(&turn.message, history),
            None => parse_intent_without_history(&turn.message)?,
        };
        intent.workflow_type().is_none().then_some(intent)
    }

    /// Records the answered turn and writes the reply: the document's metadata, the stored
    /// messages, the `ChatbotInteraction` step.
    async fn finish_turn(
        &self,
        caller: Principal,
        turn: &ChatTurn,
        mut answer: Answer,
        document: Option<&DocumentInContext>,
        request_id: &str,
    ) -> Result<ChatReply, ChatError> {
        if let Some(document) = document {
            let entry = answer.metadata.entry("document").or_insert_with(|| json!({}));
            if let Some(entry) = entry.as_object_mut() {
                entry.insert("source".into(), json!(document.source));
                entry.insert("document_id".into(), json!(document.document_id.map(|id| id.get())));
            }
        }
        self.store_turn(caller, turn, &answer).await?;
        let interaction = self.interaction_event(turn, &answer, request_id);
        let Answer { response, launch, metadata } = answer;
        let (workflow_launched, workflow_result, mut cdm_events) = match launch {
            Some(launch) => (Some(launch.workflow_type), Some(launch.workflow_result), launch.cdm_events),
            None => (None, None, Vec::new()),
        };
        cdm_events.extend(interaction);
        Ok(ChatReply { response, workflow_launched, workflow_result, cdm_events, metadata: Value::Object(metadata) })
    }

    /// The caller's session with its last `messages` messages; `None` for a session this request
    /// starts (a fresh server-generated id, or a client's id that no session has yet: the append
    /// that records the request creates it for the caller, or finds it taken meanwhile and writes
    /// nothing).
    ///
    /// # Errors
    /// [`ChatError::SessionNotFound`] for another user's session; [`ChatError::Store`].
    async fn usable_session(
        &self,
        caller: Principal,
        session_id: &str,
        starts_session: bool,
        messages: usize,
    ) -> Result<Option<ChatSession>, ChatError> {
        if starts_session {
            return Ok(None);
        }
        match self.conversations.recent(session_id, messages).await? {
            Some(session) if session.owner == caller.user_id => Ok(Some(session)),
            Some(_) => Err(ChatError::SessionNotFound),
            None => Ok(None),
        }
    }

    async fn document_in_context(
        &self,
        caller: Principal,
        turn: &ChatTurn,
    ) -> Result<Option<DocumentInContext>, ChatError> {
        let stored = match turn.document_id {
            None => None,
            Some(id) => match self.documents.get(caller, id).await {
                Ok(document) => Some((id, document)),
                Err(DocumentError::NotFound) => return Err(ChatError::DocumentNotFound),
                Err(DocumentError::Store(error)) => return Err(ChatError::Store(error)),
                Err(other) => return Err(ChatError::Store(StoreError::Unavailable(anyhow::anyhow!("{other}")))),
            },
        };
        Ok(match (&turn.document_context, stored) {
            (Some(context), stored) => Some(DocumentInContext {
                agreement: context.clone(),
                source: "document_context",
                document_id: stored.map(|(id, _)| id),
            }),
            (None, Some((id, document))) => document.current_version().map(|version| DocumentInContext {
                agreement: version.extraction.agreement.clone(),
                source: "document_id",
                document_id: Some(id),
            }),
            (None, None) => None,
        })
    }

    /// The answer to a covenant question: the deal's latest test, or a test run now on its newest
    /// statements (when asked to, or when the deal has none yet).
    async fn answer_covenant_question(
        &self,
        deals: &DealService,
        caller: Principal,
        turn: &ChatTurn,
        question: &CovenantQuestion,
        request_id: &str,
    ) -> Result<Answer, ChatError> {
        let mut answer = Answer::default();
        answer.metadata.insert("engine".into(), json!("deterministic"));
        answer.metadata.insert("intent".into(), json!("covenant_test"));
        let deal = match (question.deal_id.or(turn.deal_id), &question.borrower) {
            (Some(deal), _) => Ok(deal),
            (None, Some(borrower)) => {
                match deals.deals_of_borrower(caller, borrower).await.map_err(deal_store_error)?.as_slice() {
                    [only] => Ok(*only),
                    [] => Err(format!(
                        "None of your documents linked to a deal names {borrower}. Name the deal (\"covenant headroom on deal 42\") or send deal_id."
                    )),
                    several => Err(format!(
                        "{borrower} appears in deals {}: which one? Ask again naming it (\"covenant headroom on deal {}\").",
                        several.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
                        several[0]
                    )),
                }
            }
            (None, None) => {
                Err("Which deal? Name it (\"covenant headroom on deal 42\"), name the borrower, or send deal_id."
                    .to_owned())
            }
        };
        let deal = match deal {
            Ok(deal) => deal,
            Err(text) => {
                answer.response = text;
                return Ok(answer);
            }
        };
        answer.metadata.insert("deal_id".into(), json!(deal));
        let latest =
            if question.run { None } else { deals.latest_test(caller, deal).await.map_err(deal_store_error)? };
        let test = match latest {
            Some(test) => Ok(test),
            None => deals.test_with_newest_statements(caller, deal, request_id).await,
        };
        match test {
            Ok(test) => {
                answer.response = describe_test(&test.body);
                answer.metadata.insert("covenant_test_id".into(), json!(test.id.to_string()));
            }
            Err(DealError::Store(error)) => return Err(ChatError::Store(error)),
            Err(DealError::NoStatements) => {
                answer.response = format!(
                    "Deal {deal} has no statement set to test the covenants with: store the borrower's statements with POST /api/financial-statements (deal_id {deal}) and ask again."
                );
            }
            Err(other) => answer.response = format!("The covenants of deal {deal} cannot be tested: {other}."),
        }
        Ok(answer)
    }

    // ---- the deterministic engine ------------------------------------------------------------

    async fn answer_by_grammar(
        &self,
        caller: Principal,
        turn: &ChatTurn,
        history: &[HistoryTurn],
        document: Option<&DocumentInContext>,
        request_id: &str,
    ) -> Result<Answer, ChatError> {
        let intent = parse_intent(&turn.message, history);
        self.answer_intent(caller, turn, intent, document, request_id).await
    }

    /// The deterministic engine's answer to `intent`: a launch, a document answer, or the help text.
    async fn answer_intent(
        &self,
        caller: Principal,
        turn: &ChatTurn,
        intent: Intent,
        document: Option<&DocumentInContext>,
        request_id: &str,
    ) -> Result<Answer, ChatError> {
        let mut answer = Answer::default();
        answer.metadata.insert("engine".into(), json!("deterministic"));
        answer.metadata.insert("intent".into(), json!(intent_name(&intent)));
        match &intent {
            Intent::DocumentQuestion(field) => {
                let (text, cited) = document_answer(*field, document);
                answer.response = text;
                answer.metadata.insert("document".into(), json!({ "field": field.as_str(), "cited_fields": cited }));
            }
            Intent::None => answer.response = HELP.to_owned(),
            _ => {
                if let Some((kind, arguments)) = intent_launch(&intent) {
                    self.launch_into(&mut answer, caller, turn, kind, &arguments, request_id).await?;
                }
            }
        }
        Ok(answer)
    }

    /// Launches `kind` with `arguments` as the answer to the turn: the launch's message and the launch,
    /// or the words of a refusal and its `launch_error`; `metadata.workflow_params` either way.
    async fn launch_into(
        &self,
        answer: &mut Answer,
        caller: Principal,
        turn: &ChatTurn,
        kind: LaunchKind,
        arguments: &Value,
        request_id: &str,
    ) -> Result<(), ChatError> {
        answer.metadata.insert("workflow_params".into(), as_workflow_params(kind, arguments));
        match self.try_launch(caller, turn, kind, arguments, request_id).await? {
            Ok(launch) => {
                answer.response = launch.message.clone();
                answer.launch = Some(launch);
            }
            Err((text, detail)) => {
                answer.response = text;
                answer.metadata.insert("launch_error".into(), detail);
            }
        }
        Ok(())
    }

    /// Launches, turning a refused launch into words for the user and a `launch_error` detail.
    async fn try_launch(
        &self,
        caller: Principal,
        turn: &ChatTurn,
        kind: LaunchKind,
        arguments: &Value,
        request_id: &str,
    ) -> Result<Result<Launch, (String, Value)>, ChatError> {
        let launched = match kind.parse(arguments, turn.deal_id) {
            Ok(params) => self.launcher.launch(caller, &turn.session_id, params, request_id).await,
            Err(error) => Err(error),
        };
        match launched {
            Ok(launch) => Ok(Ok(launch)),
            Err(LaunchError::Store(error)) => Err(ChatError::Store(error)),
            Err(error) => Ok(Err(launch_refusal(kind.workflow_type(), &error))),
        }
    }

    // ---- recording ----------------------------------------------------------------------------

    async fn store_turn(&self, caller: Principal, turn: &ChatTurn, answer: &Answer) -> Result<(), ChatError> {
        let now = self.clock.now();
        // Built again only on the rare path that needs a second append, so the usual turn copies
        // no message.
        let messages = || {
            let user = StoredMessage {
                role: Role::User.as_str().to_owned(),
                content: turn.message.clone(),
                workflow_launched: None,
                workflow_result: None,
                at: now,
            };
            vec![user, reply_message(&answer.response, answer.launch.as_ref(), now)]
        };
        if turn.starts_session {
            self.conversations.append(&turn.session_id, caller.user_id, messages(), now).await?;
            return Ok(());
        }
        // A turn that skipped reading its session learns here whether the session is the caller's.
        match self.conversations.append_existing(&turn.session_id, caller.user_id, messages(), now).await {
            // Not one of the caller's: either a client's id that no session has yet, which this turn
            // starts, or another user's session, which `append` refuses without writing.
            Err(AppendError::NotFound) => {
                self.conversations.append(&turn.session_id, caller.user_id, messages(), now).await?
            }
            other => other?,
        }
        Ok(())
    }

    /// The turn's `ChatbotInteraction` step, linked to the last step of the workflow it launched.
    fn interaction_event(&self, turn: &ChatTurn, answer: &Answer, request_id: &str) -> Option<Value> {
        let previous = answer.launch.as_ref().and_then(|launch| launch.cdm_events.last());
        let engine = answer.metadata.get("engine").and_then(Value::as_str).unwrap_or("deterministic");
        let launched = answer.launch.as_ref().map(|launch| launch.workflow_type);
        let comment = match launched {
            Some(workflow) => format!("Chat turn answered by the {engine} engine; it launched the {workflow} workflow"),
            None => format!("Chat turn answered by the {engine} engine"),
        };
        let usage = answer.metadata.get("usage");
        let tokens = |key: &str| usage.and_then(|usage| usage.get(key)).and_then(Value::as_u64);
        let mut step = ObservationStep::new(EventKind::ChatbotInteraction, WorkflowStatus::Accepted, comment)
            .item("sessionId", &turn.session_id)
            .item("engine", engine)
            .optional_item("intent", answer.metadata.get("intent").and_then(Value::as_str))
            .optional_item("workflowType", launched)
            .optional_item("dealId", turn.deal_id)
            .optional_item("documentId", turn.document_id.map(|id| id.get()))
            .optional_item("model", answer.metadata.get("model").and_then(Value::as_str))
            .optional_item("promptTokens", tokens("prompt_tokens"))
            .optional_item("completionTokens", tokens("completion_tokens"))
            .optional_item("totalTokens", tokens("total_tokens"));
        if let Some(previous) = previous.and_then(cdm::event_identifier).and_then(|id| Uuid::parse_str(id).ok()) {
            step = step.previous(previous);
        }
        let context = EventContext::new(Uuid::new_v4(), self.clock.now(), request_id).ok()?;
        Some(cdm::observation_step(&context, &step))
    }
}

/// The answer to a question about `field`, and the fields it cites.
fn document_answer(field: AgreementField, document: Option<&DocumentInContext>) -> (String, Vec<String>) {
    match document {
        Some(document) => {
            let answer = answer_from_agreement(field, &document.agreement);
            (answer.text, answer.cited_fields)
        }
        None => (
            format!(
                "That is a question about {} of an agreement, but no document is in context: send the extracted \
                 agreement as document_context, or a document_id of a document you may read.",
                field.description()
            ),
            Vec::new(),
        ),
    }
}

/// Words for the user when a launch was refused, and the `launch_error` detail.
fn launch_refusal(workflow_type: &str, error: &LaunchError) -> (String, Value) {
    let (text, status) = match error {
        LaunchError::Validation { field, message } => {
            (format!("I could not launch the {workflow_type} workflow: {field} {message}."), 400)
        }
        LaunchError::Quant(QuantError::UnknownCompany { message, candidates }) => {
            let names: Vec<String> = candidates
                .iter()
                .take(5)
                .map(|c| match &c.ticker {
                    Some(ticker) => format!("{} ({ticker})", c.name),
                    None => c.name.clone(),
                })
                .collect();
            let suffix = if names.is_empty() { String::new() } else { format!(" Did you mean: {}?", names.join(", ")) };
            (format!("I could not launch the analysis: {message}.{suffix}"), 400)
        }
        LaunchError::Quant(QuantError::ProviderUnavailable { provider, .. }) => {
            (format!("The analysis could not run: the market data provider {provider} is unavailable."), 502)
        }
        LaunchError::Quant(QuantError::NotConfigured) => {
            ("The analysis could not run: no market-data source is configured on this service.".to_owned(), 503)
        }
        other => (format!("I could not launch the {workflow_type} workflow: {other}."), 500),
    };
    let field = match error {
        LaunchError::Validation { field, .. } => Some(field.clone()),
        _ => None,
    };
    (text.clone(), json!({ "workflow_type": workflow_type, "status": status, "message": text, "field": field }))
}

/// The assistant's message as a session keeps it: its text and, when it launched a workflow, the
/// workflow and its identifiers.
fn reply_message(content: &str, launch: Option<&Launch>, at: OffsetDateTime) -> StoredMessage {
    StoredMessage {
        role: Role::Assistant.as_str().to_owned(),
        content: content.to_owned(),
        workflow_launched: launch.map(|launch| launch.workflow_type.to_owned()),
        workflow_result: launch.map(|launch| launch.reference.clone()),
        at,
    }
}

fn intent_name(intent: &Intent) -> &'static str {
    match intent {
        Intent::DocumentQuestion(_) => "document_question",
        launching => launching.workflow_type().unwrap_or("none"),
    }
}

/// The last [`HISTORY_WINDOW`] stored messages of the session, as history.
fn stored_history(session: Option<&ChatSession>) -> Vec<HistoryTurn> {
    let Some(session) = session else { return Vec::new() };
    let turns: Vec<HistoryTurn> = session
        .messages
        .iter()
        .filter_map(|message| {
            Role::parse(&message.role).map(|role| HistoryTurn { role, content: message.content.clone() })
        })
        .collect();
    turns[turns.len().saturating_sub(HISTORY_WINDOW)..].to_vec()
}
