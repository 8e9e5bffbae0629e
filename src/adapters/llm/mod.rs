//! Language-model adapters implementing [`crate::ports::llm::LanguageModel`]: one client for every
//! server that speaks the OpenAI chat-completions protocol (OpenAI, Ollama's `/v1`, vLLM, the
//! llama.cpp server).

pub mod openai;

pub use crate::adapters::retry::RetryPolicy;
pub use openai::{DEFAULT_RETRY, OpenAiCompatible};
