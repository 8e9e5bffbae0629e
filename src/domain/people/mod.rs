//! The people workflow: research a named person and report a cited summary, a Big Five profile and
//! the character C of credit.
//!
//! - [`request`]: the validated request (name, context, company, role, location, deal, IPIP-50
//!   answers) and the errors.
//! - [`identity`]: who the person is (name plus company, role, location, given or read from the
//!   context), and the rule that sets evidence about a namesake aside or finds the name ambiguous.
//! - [`service`]: the use case — research, then the evidence sorted by identity, then summary,
//!   profile and assessment from what is about the person, stored in one write.
//! - [`summary`]: which sentences are about the person, and the cited research summary.
//! - [`own_words`]: quotations attributed to the person by name, the only basis of a text estimate.
//! - [`profile`]: the psychometric profile — IPIP-50 scores, a checked text estimate, or unavailable.
//! - [`ipip`]: scoring the IPIP-50 inventory the person answered.
//! - [`character`]: the character C (track record, litigation, integrity) from evidence passages.
//! - [`runs`]: the stored results.
//!
//! Creditworthiness assessment of natural persons is high-risk under the EU AI Act and subject to
//! adverse-action and automated-decision rules (ECOA / Regulation B, GDPR Art. 22). So everything
//! here carries its evidence and its confidence, a text estimate of personality is kept only where a
//! quote found verbatim in the person's own words backs it (and at low confidence), and the character
//! assessment always requires human review and says it is an adjunct, never the sole basis of a
//! decision.

pub mod character;
pub mod identity;
pub mod ipip;
pub mod own_words;
pub mod profile;
pub mod request;
pub mod runs;
pub mod service;
pub mod summary;
mod text;

pub use character::{
    AdverseCategory, CHARACTER_NOTICE, CharacterAssessment, Finding, PositiveKind, PositiveSignal, ScoreBand,
    assess_character,
};
pub use ipip::{
    BigFiveScores, IPIP50_INSTRUMENT, IPIP50_KEY, IpipError, IpipItem, IpipScale, Keying, TraitScore, score_ipip50,
    score_ipip50_items,
};
