//! Deals: what an agreement's parties and an analyst's work have in common — the deal id every
//! document, statement set and run may carry — and the covenant monitoring that joins them: the
//! agreement's financial covenants tested against the borrower's statements.
//!
//! [`schedule`] reads a covenant's step-downs into dates, [`definitions`] reads how the agreement
//! defines each ratio, and [`covenant_test`] computes one test; all three are pure.

pub mod covenant_test;
pub mod definitions;
pub mod schedule;
pub mod service;
pub mod stored;
