//! The one integration-test binary: real HTTP against a `TestApp` bound to port 0.

mod admin;
mod auth;
mod backup;
mod cdm_events;
mod chat_follow_ups;
mod chatbot;
mod connections;
mod corpus_accuracy;
mod documents;
mod errors;
mod fake_llm;
mod health;
mod helpers;
mod openapi;
mod people;
mod postgres;
mod private_borrowers;
mod quant;
mod research;
mod startup;
mod store_contract;
mod test_cluster;
mod uploads;
mod wallet;
