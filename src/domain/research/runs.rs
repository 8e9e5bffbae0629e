//! Stored research runs: who asked which question, how far the run got (`pending` → `running` →
//! `completed` | `failed`), the loop's saved state after every iteration, and the lease of the
//! worker running it. The loop itself lives in [`crate::domain::research`]; this is the durable
//! record that lets another worker — in this process or another instance — resume a run whose
//! worker died.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::auth::UserId;

/// Smallest and largest `max_iterations` a client may ask for, and the default.
pub const MAX_ITERATIONS_RANGE: std::ops::RangeInclusive<u32> = 1..=20;
pub const DEFAULT_MAX_ITERATIONS: u32 = 5;

/// How many times a run is claimed (its worker dying each time) before it is failed for good.
pub const MAX_ATTEMPTS: u32 = 3;

uuid_id! {
    /// Identifier of a research run, as the API exposes it.
    ResearchId
}

/// Identifies one worker (a task of one service instance) holding leases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WorkerId(Uuid);

impl WorkerId {
    pub fn new_random() -> Self {
        Self(Uuid::new_v4())
    }
    pub fn from_uuid(id: Uuid) -> Self {
        Self(id)
    }
    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

/// How far a run got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResearchStatus {
    /// Queued, not claimed yet.
    Pending,
    /// Claimed by a worker whose lease has not run out (or has, and awaits another worker).
    Running,
    /// Finished with an answer.
    Completed,
    /// Finished without one; `error` says why.
    Failed,
}

impl ResearchStatus {
    pub const ALL: &'static [ResearchStatus] = &[Self::Pending, Self::Running, Self::Completed, Self::Failed];

    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }

    pub fn is_final(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed)
    }
}

impl fmt::Display for ResearchStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ResearchStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| format!("unknown research status '{s}'"))
    }
}

/// One research run as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct ResearchRun {
    pub id: ResearchId,
    pub owner: UserId,
    /// The question as asked.
    pub query: String,
    pub deal_id: Option<i64>,
    pub max_iterations: u32,
    pub status: ResearchStatus,
    /// The loop's state as saved after the last finished iteration (`null` before the first).
    pub progress: Value,
    /// The final answer once completed.
    pub answer: Option<String>,
    /// Why it failed, in words fit for the client.
    pub error: Option<String>,
    /// The accepted step, then the completed or failed step.
    pub cdm_events: Vec<Value>,
    /// How many times a worker claimed it.
    pub attempts: u32,
    /// Research time spent so far, across attempts, in milliseconds.
    pub elapsed_ms: u64,
    pub created_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
}

impl ResearchRun {
    /// A run that has just been asked for.
    pub fn pending(
        owner: UserId,
        query: String,
        deal_id: Option<i64>,
        max_iterations: u32,
        created_at: OffsetDateTime,
    ) -> Self {
        Self {
            id: ResearchId::new_random(),
            owner,
            query,
            deal_id,
            max_iterations,
            status: ResearchStatus::Pending,
            progress: Value::Null,
            answer: None,
            error: None,
            cdm_events: Vec::new(),
            attempts: 0,
            elapsed_ms: 0,
            created_at,
            completed_at: None,
        }
    }
}

/// What a worker saves after an iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct ResearchProgress {
    pub progress: Value,
    pub elapsed_ms: u64,
}

/// How a run ends.
#[derive(Clone, Debug, PartialEq)]
pub enum ResearchOutcome {
    Completed { answer: String },
    Failed { error: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_names() {
        for status in ResearchStatus::ALL {
            assert_eq!(status.as_str().parse::<ResearchStatus>().as_ref(), Ok(status));
        }
        assert!("stuck".parse::<ResearchStatus>().is_err());
        assert!(ResearchStatus::Failed.is_final() && !ResearchStatus::Running.is_final());
    }

    #[test]
    fn a_new_run_is_pending_and_unclaimed() {
        let run = ResearchRun::pending(UserId::new_random(), "q".into(), None, 5, OffsetDateTime::UNIX_EPOCH);
        assert_eq!((run.status, run.attempts, run.elapsed_ms), (ResearchStatus::Pending, 0, 0));
        assert!(run.progress.is_null() && run.completed_at.is_none());
    }
}
