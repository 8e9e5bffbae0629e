//! The chatbot: the chat turn use case ([`service`]), the launcher that starts any workflow from
//! validated parameters ([`launcher`]), the deterministic understanding of a message — which
//! workflow (if any) it asks for and with which parameters ([`parse_intent`]) — and answers to
//! questions about the credit agreement under discussion, read straight from the extracted
//! agreement ([`answer_from_agreement`]).
//!
//! Nothing here calls a model. A launch is decided by a documented grammar (see [`intent`]), so the
//! same message always launches the same workflow, a misunderstanding can be reproduced in a test,
//! and a message that only talks about analysing something never launches anything. The grammar is
//! deliberately conservative: when in doubt it returns [`Intent::None`] and the chatbot answers in
//! words instead.

mod amount;
pub mod document_answer;
pub mod intent;
pub mod launcher;
mod phrases;
pub mod service;
mod time_range;

pub use document_answer::{AgreementField, DocumentAnswer, answer_from_agreement, recognise_document_question};
pub use intent::{
    CompanyAnalysisType, HISTORY_WINDOW, HistoryTurn, Intent, LoanType, QuantRequest, Role, parse_intent,
};
pub use time_range::TimeRange;
