//! Follow-up questions about the runs the session launched (see
//! [`follow_up`](crate::domain::chat::follow_up)), answered before either engine is asked: from the
//! stored results only, so that no model can put a figure of its own into the answer. A question
//! about the agreement in context stays a document question.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{Answer, ChatError, ChatService, ChatTurn, DocumentInContext};
use crate::domain::auth::Principal;
use crate::domain::chat::follow_up::{FollowUp, FollowUpReply, SessionRun, answer as answer_from_runs};
use crate::domain::chat::launch_params::LaunchKind;
use crate::domain::chat::recognise_document_question;
use crate::ports::conversations::ChatSession;

/// Stored messages searched for the session's launches, newest first: a turn whose message is a
/// follow-up reads this many instead of the history window.
pub(super) const LAUNCHES_LOOKBACK_MESSAGES: usize = 200;
/// Runs read back at most for one follow-up: the newest few are the ones referred to.
const RUNS_READ: usize = 3;

impl ChatService {
    /// The answer to `question` about the runs of `session` (read with its last
    /// [`LAUNCHES_LOOKBACK_MESSAGES`] messages); `None` when the session launched nothing yet or the
    /// question is about the agreement in context (the engines answer it then).
    pub(super) async fn answer_follow_up(
        &self,
        caller: Principal,
        turn: &ChatTurn,
        question: &FollowUp,
        session: &ChatSession,
        document: Option<&DocumentInContext>,
        request_id: &str,
    ) -> Result<Option<Answer>, ChatError> {
        if document.is_some() && recognise_document_question(&turn.message).is_some() {
            return Ok(None);
        }
        let runs = self.session_runs(caller, session).await?;
        if runs.is_empty() {
            return Ok(None);
        }
        let mut answer = Answer::default();
        answer.metadata.insert("engine".into(), json!("deterministic"));
        answer.metadata.insert("intent".into(), json!("follow_up"));
        match answer_from_runs(question, &runs) {
            FollowUpReply::Answer { text, run_id } => {
                answer.response = text;
                answer.metadata.insert("follow_up".into(), json!({ "question": kind(question), "run_id": run_id }));
            }
            FollowUpReply::Compare { query, time_range, run_id } => {
                let arguments = json!({ "query": query, "time_range": time_range });
                answer.metadata.insert("follow_up".into(), json!({ "question": "compare", "run_id": run_id }));
                self.launch_into(&mut answer, caller, turn, LaunchKind::MarketAnalysis, &arguments, request_id).await?;
            }
        }
        Ok(Some(answer))
    }

    /// The runs the session `session_id` launched that the caller may see, newest first: for a
    /// model's `read_session_run`, which has only the history window at hand.
    pub(super) async fn runs_of_session(
        &self,
        caller: Principal,
        session_id: &str,
    ) -> Result<Vec<SessionRun>, ChatError> {
        match self.conversations.recent(session_id, LAUNCHES_LOOKBACK_MESSAGES).await? {
            Some(session) => self.session_runs(caller, &session).await,
            None => Ok(Vec::new()),
        }
    }

    /// The runs `session`'s messages launched that the caller may see, newest first (at most
    /// [`RUNS_READ`]).
    async fn session_runs(&self, caller: Principal, session: &ChatSession) -> Result<Vec<SessionRun>, ChatError> {
        let mut seen = BTreeSet::new();
        let mut runs = Vec::new();
        for message in session.messages.iter().rev() {
            let (Some(workflow), Some(reference)) = (&message.workflow_launched, &message.workflow_result) else {
                continue;
            };
            if runs.len() == RUNS_READ {
                break;
            }
            if !seen.insert(reference.to_string()) {
                continue;
            }
            if let Some(run) = self.launcher.stored_run(caller, workflow, reference).await? {
                runs.push(run);
            }
        }
        Ok(runs)
    }
}

/// The follow-up's name in `metadata.follow_up.question`.
fn kind(question: &FollowUp) -> Value {
    json!(match question {
        FollowUp::Metric(topic) => topic.words(),
        FollowUp::Rating => "rating",
        FollowUp::Risks => "risks",
        FollowUp::Sources => "sources",
        FollowUp::Status => "status",
        FollowUp::Summary => "summary",
        FollowUp::Compare(_) => "compare",
    })
}
