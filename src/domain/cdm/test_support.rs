//! Test helpers: deterministic event contexts, and [`record`], which writes every event the unit
//! tests build into the folder that CI validates with the official CDM model (`.ci/run`).

use std::path::PathBuf;

use serde_json::Value;
use sha2::{Digest, Sha256};
use time::macros::datetime;
use uuid::Uuid;

use super::{EventContext, event_identifier};

/// A context whose event uuid is derived from `seed` (a random-looking v4 uuid, the same on every
/// run), created at 2026-11-22 05:00 UTC. Tests that record events use distinct seeds.
pub(crate) fn context(seed: u128) -> EventContext {
    let digest = Sha256::digest(seed.to_be_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    let event_id = uuid::Builder::from_random_bytes(bytes).into_uuid();
    EventContext::new(event_id, datetime!(2026-11-22 05:00 UTC), format!("req-{seed:x}"))
        .expect("the test timestamp is in range")
}

/// Where events are written: `$CDM_EVENTS_DIR` as it was when the tests were built (`.ci/run`
/// exports it before building; the domain reads no environment at run time), or
/// `target/cdm-events` in the crate.
fn events_dir() -> PathBuf {
    option_env!("CDM_EVENTS_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/cdm-events")), PathBuf::from)
}

/// Writes `event` to `<events dir>/<event uuid>.json` for `cdm-validate`.
pub(crate) fn record(event: &Value) {
    let event_id = event_identifier(event).expect("a recorded CDM event has an event identifier");
    let event_id: Uuid = event_id.parse().expect("the event identifier is a uuid");
    let dir = events_dir();
    std::fs::create_dir_all(&dir).expect("create the CDM events folder");
    let json = serde_json::to_string_pretty(event).expect("serialise the CDM event");
    std::fs::write(dir.join(format!("{event_id}.json")), json).expect("write the CDM event");
}

/// The same uuid is derived from the same seed, and different seeds give different uuids.
#[test]
fn contexts_are_deterministic_per_seed() {
    assert_eq!(context(7).event_id(), context(7).event_id());
    assert_ne!(context(7).event_id(), context(8).event_id());
    assert_eq!(context(7).event_id().get_version_num(), 4);
}
