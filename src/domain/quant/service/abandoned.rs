//! Analyses whose execution stopped before they finished, ended `failed` with the reason and a
//! closing CDM event instead of staying `running` for ever:
//! - those of another instance that stopped — killed, crashed, its host lost — ended by an
//!   instance that is alive;
//! - this instance's own, whose execution ended without storing an outcome: the request was
//!   cancelled mid-run (its future dropped), or the store failed between storing the run and
//!   storing its outcome. This instance tells them from the runs it is still executing by the set
//!   of runs in flight, which a run enters before it is stored and leaves once its outcome is.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use time::OffsetDateTime;
use uuid::Uuid;

use super::QuantService;
use crate::domain::cdm::{EventKind, ObservationStep, WorkflowStatus, event_identifier};
use crate::domain::quant::runs::{AnalysisId, AnalysisOutcome, AnalysisRecord, AnalysisStatus};
use crate::ports::analyses::AnalysisChangeError;
use crate::ports::store::StoreError;

/// What the `error` of a run interrupted by its instance stopping says.
pub const INTERRUPTED: &str =
    "interrupted: the service instance running this analysis stopped before it finished; run it again";

/// What the `error` of a run this instance stopped executing without an outcome says.
pub const INTERRUPTED_HERE: &str = "interrupted: this analysis stopped before it finished (its request was \
                                    cancelled, or the store failed before the outcome was saved); run it again";

/// Runs ended per sweep and kind; the next sweep takes the rest.
const SWEEP_LIMIT: usize = 100;

/// The runs this process is executing.
#[derive(Clone, Default)]
pub(super) struct RunsInFlight(Arc<Mutex<HashSet<AnalysisId>>>);

/// A run in flight; leaves the set when dropped, however its execution ended.
pub(super) struct ExecutingRun {
    id: AnalysisId,
    runs: RunsInFlight,
}

impl RunsInFlight {
    pub(super) fn enter(&self, id: AnalysisId) -> ExecutingRun {
        self.lock().insert(id);
        ExecutingRun { id, runs: self.clone() }
    }

    fn contains(&self, id: AnalysisId) -> bool {
        self.lock().contains(&id)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<AnalysisId>> {
        // The set holds ids only: a panic elsewhere cannot leave it half-changed.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for ExecutingRun {
    fn drop(&mut self) {
        self.runs.lock().remove(&self.id);
    }
}

impl QuantService {
    /// Ends the unfinished runs of instances not heard from within `stale_after` (and of stopped
    /// ones), then this instance's own runs that it no longer executes; returns how many this call
    /// ended. A run ended first by another instance, or finished meanwhile, is skipped.
    ///
    /// # Errors
    /// When the store does not answer.
    pub async fn end_abandoned(&self, stale_after: time::Duration) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let mut ended = 0;
        for record in self.analyses.abandoned(now - stale_after, SWEEP_LIMIT).await? {
            ended += usize::from(self.end_interrupted(record, INTERRUPTED, now).await?);
        }
        // The store is read before the set: a run listed here and absent from the set has left it,
        // so its execution is over; if it stored its outcome meanwhile, `finish` refuses the change.
        for record in self.analyses.unfinished_here(SWEEP_LIMIT).await? {
            if !self.in_flight.contains(record.id) {
                ended += usize::from(self.end_interrupted(record, INTERRUPTED_HERE, now).await?);
            }
        }
        Ok(ended)
    }

    /// Ends one unfinished run `failed` with `reason`; `false` when it was no longer unfinished.
    async fn end_interrupted(
        &self,
        record: AnalysisRecord,
        reason: &str,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        let id = record.id;
        if record.status == AnalysisStatus::Pending {
            match self.analyses.start(id).await {
                Ok(()) | Err(AnalysisChangeError::WrongState { .. } | AnalysisChangeError::NotFound) => {}
                Err(AnalysisChangeError::Store(error)) => return Err(error),
            }
        }
        let previous = record.cdm_events.last().and_then(event_identifier).and_then(|id| id.parse::<Uuid>().ok());
        let closing = self.event(
            Uuid::new_v4(),
            "",
            previous,
            ObservationStep::new(
                EventKind::QuantitativeAnalysisFailed,
                WorkflowStatus::Rejected,
                "Analysis interrupted before it finished".to_owned(),
            )
            .item("analysisId", id)
            .optional_item("dealId", record.deal_id),
        );
        let mut events = record.cdm_events;
        events.extend(closing);
        let outcome = AnalysisOutcome::Failed { error: reason.to_owned() };
        match self.analyses.finish(id, outcome, events, now).await {
            Ok(_) => {
                tracing::warn!(analysis_id = %id, reason, "interrupted analysis ended as failed");
                Ok(true)
            }
            Err(AnalysisChangeError::WrongState { .. } | AnalysisChangeError::NotFound) => Ok(false),
            Err(AnalysisChangeError::Store(error)) => Err(error),
        }
    }
}
