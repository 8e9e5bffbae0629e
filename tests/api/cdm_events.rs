//! Keeps the CDM events the API returns: [`record`] checks their envelope and writes each to
//! `$CDM_EVENTS_DIR` (default `target/cdm-events` in the crate), where `.ci/run` validates them all
//! with the official CDM model once the tests are done.

use std::path::PathBuf;

use creditflow::domain::cdm::{check_envelopes, event_identifier};
use serde_json::Value;
use uuid::Uuid;

/// Where the events go: `$CDM_EVENTS_DIR`, or `target/cdm-events` in the crate.
fn events_dir() -> PathBuf {
    std::env::var_os("CDM_EVENTS_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/cdm-events")))
}

/// Writes every event of `events` (a `cdm_events` array, or a response body holding one) to
/// `<events dir>/<event uuid>.json`, creating the folder.
///
/// Panics, failing the test, when `events` holds no such array, when an envelope is malformed
/// (see [`check_envelopes`]) or when an event identifier is not a uuid.
pub fn record(events: &Value) {
    let events = match events {
        Value::Array(events) => events,
        Value::Object(body) => match body.get("cdm_events") {
            Some(Value::Array(events)) => events,
            _ => panic!("expected a cdm_events array, got {events}"),
        },
        _ => panic!("expected a cdm_events array, got {events}"),
    };
    if let Err(violation) = check_envelopes(events) {
        panic!("malformed CDM event: {violation}");
    }
    let dir = events_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|error| panic!("cannot create {}: {error}", dir.display()));
    for event in events {
        let identifier = event_identifier(event).unwrap_or_default();
        let event_id: Uuid =
            identifier.parse().unwrap_or_else(|_| panic!("the CDM event identifier '{identifier}' is not a uuid"));
        let path = dir.join(format!("{event_id}.json"));
        let json = serde_json::to_string_pretty(event).unwrap_or_else(|error| panic!("cannot serialise: {error}"));
        std::fs::write(&path, json).unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
    }
}
