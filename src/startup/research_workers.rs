//! The research workers of this instance: tasks that claim queued runs from the store, run them
//! through [`ResearchService::execute`] while renewing the lease, and wait for new work (woken at
//! once by a submission here, or by polling for work submitted to another instance). Stopping the
//! workers abandons their runs to the lease: another worker — here after a restart, or in another
//! instance — resumes them from their last saved iteration.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::domain::research::runs::WorkerId;
use crate::domain::research::service::{ResearchService, WorkOutcome};
use crate::ports::research::LeaseError;

/// How often an idle worker looks for runs submitted through another instance.
const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// Running worker tasks; dropping the pool stops them.
pub struct ResearchWorkers {
    tasks: Vec<JoinHandle<()>>,
}

impl ResearchWorkers {
    /// Starts `count` workers (none for 0: this instance only queues runs).
    pub fn start(service: Arc<ResearchService>, wake: Arc<Notify>, count: usize) -> Self {
        let tasks =
            (0..count).map(|_| tokio::spawn(work(service.clone(), wake.clone(), WorkerId::new_random()))).collect();
        Self { tasks }
    }

    /// Stops every worker now; their runs resume elsewhere once their leases run out.
    pub fn stop(&mut self) {
        for task in self.tasks.drain(..) {
            task.abort();
        }
    }
}

impl Drop for ResearchWorkers {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn work(service: Arc<ResearchService>, wake: Arc<Notify>, worker: WorkerId) {
    loop {
        match service.claim(worker).await {
            Ok(Some(run)) => {
                let id = run.id;
                tracing::info!(research_id = %id, attempt = run.attempts, "research run claimed");
                tokio::select! {
                    outcome = service.execute(run, worker) => match outcome {
                        Ok(WorkOutcome::Finished(id)) => tracing::info!(research_id = %id, "research run finished"),
                        Ok(WorkOutcome::LeaseLost(id)) => {
                            tracing::warn!(research_id = %id, "research run taken over by another worker")
                        }
                        Err(error) => tracing::warn!(
                            research_id = %id,
                            error = format!("{:#}", anyhow::Error::from(error)),
                            "research run interrupted by the store; it resumes when its lease runs out"
                        ),
                    },
                    () = keep_lease(&service, id, worker) => {
                        tracing::warn!(research_id = %id, "lease on the research run lost; stopped working on it");
                    }
                }
            }
            Ok(None) => {
                tokio::select! {
                    () = wake.notified() => {}
                    () = tokio::time::sleep(POLL_INTERVAL) => {}
                }
            }
            Err(error) => {
                tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "cannot claim research runs");
                tokio::time::sleep(POLL_INTERVAL).await;
            }
        }
    }
}

/// Renews the lease three times per lease period; returns only when the lease is lost.
async fn keep_lease(service: &ResearchService, id: crate::domain::research::runs::ResearchId, worker: WorkerId) {
    let period = service.settings().lease / 3;
    loop {
        tokio::time::sleep(period).await;
        match service.renew(id, worker).await {
            Ok(()) => {}
            Err(LeaseError::Lost) => return,
            Err(LeaseError::Store(error)) => {
                tracing::warn!(research_id = %id, error = format!("{:#}", anyhow::Error::from(error)), "cannot renew lease");
            }
        }
    }
}
