//! Adapters: the only code that knows warp, the password-hashing and JWT libraries, the system
//! clock and storage. `main.rs` picks them from configuration.

pub mod argon2_hasher;
pub mod clock;
#[cfg(test)]
pub(crate) mod fake_provider;
pub mod fetch;
pub mod http;
pub mod jwt;
pub mod llm;
pub mod market;
pub mod memory;
pub mod metrics;
pub mod postgres;
pub mod reader;
pub mod retry;
pub mod search;
pub mod secrets;
