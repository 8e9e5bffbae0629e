//! creditflow: an HTTP API for credit-finance agent workflows, built as ports and adapters.
//!
//! [`domain`] decides, [`ports`] say what it needs, [`adapters`] talk to the world, and
//! [`startup`] wires them into an [`Application`] that serves HTTP.

#![forbid(unsafe_code)]

pub mod adapters;
pub mod config;
pub mod domain;
pub mod evaluation;
pub mod ports;
pub mod startup;
pub mod telemetry;

pub use startup::{Adapters, Application};
