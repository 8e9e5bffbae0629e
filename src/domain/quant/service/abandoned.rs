//! Analyses whose instance stopped before they finished — killed, crashed, its host lost — ended
//! `failed` with the reason and a closing CDM event, by an instance that is alive, instead of
//! staying `running` for ever.

use uuid::Uuid;

use super::QuantService;
use crate::domain::cdm::{EventKind, ObservationStep, WorkflowStatus, event_identifier};
use crate::domain::quant::runs::AnalysisOutcome;
use crate::domain::quant::runs::AnalysisStatus;
use crate::ports::analyses::AnalysisChangeError;
use crate::ports::store::StoreError;

/// What an interrupted run's `error` says.
pub const INTERRUPTED: &str =
    "interrupted: the service instance running this analysis stopped before it finished; run it again";

/// Runs ended per sweep; the next sweep takes the rest.
const SWEEP_LIMIT: usize = 100;

impl QuantService {
    /// Ends the unfinished runs of instances not heard from within `stale_after` (and of stopped
    /// ones); returns how many this call ended. A run another instance ends first is skipped.
    ///
    /// # Errors
    /// When the store does not answer.
    pub async fn end_abandoned(&self, stale_after: time::Duration) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let mut ended = 0;
        for record in self.analyses.abandoned(now - stale_after, SWEEP_LIMIT).await? {
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
                    "Analysis interrupted: the service instance running it stopped".to_owned(),
                )
                .item("analysisId", id)
                .optional_item("dealId", record.deal_id),
            );
            let mut events = record.cdm_events;
            events.extend(closing);
            let outcome = AnalysisOutcome::Failed { error: INTERRUPTED.to_owned() };
            match self.analyses.finish(id, outcome, events, now).await {
                Ok(_) => {
                    ended += 1;
                    tracing::warn!(analysis_id = %id, "analysis interrupted by a stopped instance ended as failed");
                }
                Err(AnalysisChangeError::WrongState { .. } | AnalysisChangeError::NotFound) => {}
                Err(AnalysisChangeError::Store(error)) => return Err(error),
            }
        }
        Ok(ended)
    }
}
