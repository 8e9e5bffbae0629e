//! The people workflow: its use case ([`service`]: research summary, profile, assessment), its
//! stored results ([`runs`]), and its pure core — scoring the IPIP-50 personality inventory a
//! person answered ([`ipip`]) and reading the "character" C of credit (track record, litigation,
//! integrity) from evidence passages about them ([`character`]).
//!
//! Creditworthiness assessment of natural persons is high-risk under the EU AI Act and subject to
//! adverse-action and automated-decision rules (ECOA / Regulation B, GDPR Art. 22). So everything
//! here carries its evidence and its confidence, personality is measured only by the instrument the
//! person answered (text-based estimates are someone else's job and report "unavailable" rather
//! than guess), and the character assessment always requires human review and says it is an
//! adjunct, never the sole basis of a decision.

pub mod character;
pub mod ipip;
pub mod runs;
pub mod service;

pub use character::{
    AdverseCategory, CHARACTER_NOTICE, CharacterAssessment, Finding, PositiveKind, PositiveSignal, ScoreBand,
    assess_character,
};
pub use ipip::{
    BigFiveScores, IPIP50_INSTRUMENT, IPIP50_KEY, IpipError, IpipItem, IpipScale, Keying, TraitScore, score_ipip50,
    score_ipip50_items,
};
