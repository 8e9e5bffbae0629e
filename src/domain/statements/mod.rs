//! Financial statements supplied for a borrower (most bank borrowers file nothing with the SEC):
//! statement sets given as JSON or read from the analyst's spreadsheet, validated without silent
//! fixes, and turned into the fiscal years and trailing twelve months the credit analysis reads,
//! each figure keeping where it came from.

pub mod analysis;
pub mod items;
pub mod labels;
pub mod service;
pub mod set;
pub mod sheet;
pub mod stored;
pub mod synonyms;

pub use items::{ItemKind, Sign, StatementItem};
pub use set::{FinancialsInput, StatementError, StatementSet, check_input};
