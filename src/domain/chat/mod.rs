//! The chatbot: one turn of a conversation, answered by a language model with tools or by a
//! deterministic grammar, that may launch a workflow or answer a question about the credit agreement
//! under discussion. One idea per module:
//!
//! - [`service`]: the use case — a chat turn, a direct launch, the stored sessions — and its two
//!   engines (language model, grammar);
//! - [`sessions`]: the list of stored sessions — whose a caller sees, in which order, under which
//!   title;
//! - [`launch_params`]: what a launch takes, one type per kind, read the same way from the launch
//!   endpoint, a model's tool call and the grammar, and the JSON Schema of each tool generated from it;
//! - [`launcher`]: starts any workflow (quant, research, people) from validated parameters;
//! - [`intent`]: what a message asks for ([`Intent`], read against earlier [`HistoryTurn`]s) and the
//!   grammar that decides it ([`parse_intent`]);
//! - [`document_answer`]: which agreement term a question asks about
//!   ([`recognise_document_question`]) and its answer, read straight from the extracted agreement
//!   ([`answer_from_agreement`]);
//! - the phrase vocabulary the grammar is built from: `phrases` (normalising, framing, telling
//!   companies, people and topics apart), and on top of it `amount` (loan amounts as typed),
//!   `time_range` (time ranges as typed, read into the market windows of `quant::market::TimeRange`) and `mentions` (the
//!   companies an earlier turn mentioned).
//!
//! A module imports only modules listed after it (and `amount`, `time_range` and `mentions` read
//! `phrases`), so the imports run one way, with no circle.
//!
//! The grammar calls no model. A launch is decided by a documented grammar (see [`intent`]), so the
//! same message always launches the same workflow, a misunderstanding can be reproduced in a test,
//! and a message that only talks about analysing something never launches anything. The grammar is
//! deliberately conservative: when in doubt it returns [`Intent::None`] and the chatbot answers in
//! words instead.

mod amount;
pub mod covenant_question;
pub mod document_answer;
pub mod follow_up;
pub mod intent;
pub mod launch_params;
pub mod launcher;
mod mentions;
mod phrases;
pub mod service;
pub mod sessions;
mod time_range;

pub use document_answer::{AgreementField, DocumentAnswer, answer_from_agreement, recognise_document_question};
pub use intent::{HISTORY_WINDOW, HistoryTurn, Intent, QuantRequest, Role, parse_intent, parse_intent_without_history};
