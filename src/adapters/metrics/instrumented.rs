//! Decorators that count what passes through a port and hand every call on unchanged: finished
//! workflow runs (at the repository, where a run's end is stored, so runs launched by the API, the
//! chat and the research workers are all counted once), research leases, and calls to external
//! providers. Provider calls are counted at the port, so an answer from the service's response
//! cache counts as a (fast) call too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use time::OffsetDateTime;

use super::{LeaseEvent, ProviderOutcome, ServiceMetrics};
use crate::domain::listing::RunQuery;
use crate::domain::people::runs::{PeopleId, PeopleRecord};
use crate::domain::quant::market::{PriceSeries, TimeRange};
use crate::domain::quant::runs::{AnalysisId, AnalysisOutcome, AnalysisRecord};
use crate::domain::research::runs::{ResearchId, ResearchOutcome, ResearchProgress, ResearchRun, WorkerId};
use crate::ports::analyses::{AnalysisChangeError, AnalysisRepository};
use crate::ports::financial_data::{
    CompanyQuery, CompanyStatements, FinancialData, FinancialDataError, ResolvedCompany, StatementsWithProvenance,
};
use crate::ports::llm::{ChatRequest, ChatResponse, LanguageModel, LlmError};
use crate::ports::page_fetch::{FetchError, FetchedPage, PageFetcher};
use crate::ports::people::PeopleRepository;
use crate::ports::price_history::{PriceHistory, PriceHistoryError};
use crate::ports::research::{LeaseError, ResearchRepository};
use crate::ports::store::StoreError;
use crate::ports::web_search::{SearchError, SearchHit, WebSearch};

/// Wraps a port's adapter, counting into `metrics`.
pub struct Instrumented<T: ?Sized> {
    inner: Arc<T>,
    metrics: Arc<ServiceMetrics>,
}

impl<T: ?Sized> Instrumented<T> {
    pub fn new(inner: Arc<T>, metrics: Arc<ServiceMetrics>) -> Self {
        Self { inner, metrics }
    }

    /// Times `call` and counts it under `provider`; `failed` tells a provider failure from an answer.
    async fn provider_call<R, E>(
        &self,
        provider: &str,
        call: impl Future<Output = Result<R, E>>,
        failed: impl Fn(&E) -> bool,
    ) -> Result<R, E> {
        let started = Instant::now();
        let result = call.await;
        let outcome = match &result {
            Err(error) if failed(error) => ProviderOutcome::Failed,
            _ => ProviderOutcome::Answered,
        };
        self.metrics.observe_provider_call(provider, outcome, started.elapsed());
        result
    }

    fn lease_lost<R>(&self, result: &Result<R, LeaseError>) {
        if matches!(result, Err(LeaseError::Lost)) {
            self.metrics.observe_lease(LeaseEvent::Lost);
        }
    }
}

/// Submission to end; zero when the clock went backwards between them.
fn run_duration(created_at: OffsetDateTime, completed_at: Option<OffsetDateTime>) -> Duration {
    completed_at.map_or(Duration::ZERO, |end| Duration::try_from(end - created_at).unwrap_or(Duration::ZERO))
}

#[async_trait]
impl AnalysisRepository for Instrumented<dyn AnalysisRepository> {
    async fn create(&self, record: AnalysisRecord) -> Result<(), StoreError> {
        self.inner.create(record).await
    }

    async fn start(&self, id: AnalysisId) -> Result<(), AnalysisChangeError> {
        self.inner.start(id).await
    }

    async fn finish(
        &self,
        id: AnalysisId,
        outcome: AnalysisOutcome,
        cdm_events: Vec<Value>,
        at: OffsetDateTime,
    ) -> Result<AnalysisRecord, AnalysisChangeError> {
        let finished = self.inner.finish(id, outcome, cdm_events, at).await?;
        self.metrics.observe_run(
            finished.kind.as_str(),
            finished.status.as_str(),
            run_duration(finished.created_at, finished.completed_at),
        );
        Ok(finished)
    }

    async fn find(&self, id: AnalysisId) -> Result<Option<AnalysisRecord>, StoreError> {
        self.inner.find(id).await
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<AnalysisRecord>, u64), StoreError> {
        self.inner.list(query).await
    }

    async fn abandoned(&self, alive_since: OffsetDateTime, limit: usize) -> Result<Vec<AnalysisRecord>, StoreError> {
        self.inner.abandoned(alive_since, limit).await
    }

    async fn unfinished_here(&self, limit: usize) -> Result<Vec<AnalysisRecord>, StoreError> {
        self.inner.unfinished_here(limit).await
    }
}

#[async_trait]
impl ResearchRepository for Instrumented<dyn ResearchRepository> {
    async fn create(&self, run: ResearchRun) -> Result<(), StoreError> {
        self.inner.create(run).await
    }

    async fn claim(
        &self,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<Option<ResearchRun>, StoreError> {
        let claimed = self.inner.claim(worker, now, lease).await?;
        if let Some(run) = &claimed {
            self.metrics.observe_lease(LeaseEvent::Taken);
            // A claimable run that was claimed before is one whose worker let its lease run out.
            if run.attempts > 1 {
                self.metrics.observe_lease(LeaseEvent::Expired);
                if !run.progress.is_null() {
                    self.metrics.observe_lease(LeaseEvent::Resumed);
                }
            }
        }
        Ok(claimed)
    }

    async fn renew(
        &self,
        id: ResearchId,
        worker: WorkerId,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        let result = self.inner.renew(id, worker, now, lease).await;
        self.lease_lost(&result);
        result
    }

    async fn save_progress(
        &self,
        id: ResearchId,
        worker: WorkerId,
        progress: ResearchProgress,
        now: OffsetDateTime,
        lease: Duration,
    ) -> Result<(), LeaseError> {
        let result = self.inner.save_progress(id, worker, progress, now, lease).await;
        self.lease_lost(&result);
        result
    }

    async fn finish(
        &self,
        id: ResearchId,
        worker: WorkerId,
        outcome: ResearchOutcome,
        progress: ResearchProgress,
        closing_event: Value,
        at: OffsetDateTime,
    ) -> Result<ResearchRun, LeaseError> {
        let result = self.inner.finish(id, worker, outcome, progress, closing_event, at).await;
        self.lease_lost(&result);
        if let Ok(run) = &result {
            self.metrics.observe_run("research", run.status.as_str(), run_duration(run.created_at, run.completed_at));
        }
        result
    }

    async fn find(&self, id: ResearchId) -> Result<Option<ResearchRun>, StoreError> {
        self.inner.find(id).await
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<ResearchRun>, u64), StoreError> {
        self.inner.list(query).await
    }

    async fn queue_depth(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        self.inner.queue_depth(now).await
    }
}

#[async_trait]
impl PeopleRepository for Instrumented<dyn PeopleRepository> {
    /// A people run is stored once, when it has finished.
    async fn create(&self, record: PeopleRecord) -> Result<(), StoreError> {
        let duration = run_duration(record.created_at, Some(record.completed_at));
        self.inner.create(record).await?;
        self.metrics.observe_run("people", "completed", duration);
        Ok(())
    }

    async fn find(&self, id: PeopleId) -> Result<Option<PeopleRecord>, StoreError> {
        self.inner.find(id).await
    }

    async fn list(&self, query: &RunQuery) -> Result<(Vec<PeopleRecord>, u64), StoreError> {
        self.inner.list(query).await
    }
}

#[async_trait]
impl LanguageModel for Instrumented<dyn LanguageModel> {
    async fn complete(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        self.provider_call("llm", self.inner.complete(request), |_: &LlmError| true).await
    }

    fn model(&self) -> &str {
        self.inner.model()
    }
}

#[async_trait]
impl WebSearch for Instrumented<dyn WebSearch> {
    async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, SearchError> {
        self.provider_call(self.inner.name(), self.inner.search(query, limit), |_: &SearchError| true).await
    }

    fn name(&self) -> &str {
        self.inner.name()
    }
}

#[async_trait]
impl PageFetcher for Instrumented<dyn PageFetcher> {
    async fn fetch(&self, url: &str) -> Result<FetchedPage, FetchError> {
        // A refused address or media type is the service's own guard, not the site failing.
        let failed = |error: &FetchError| !matches!(error, FetchError::Blocked(_) | FetchError::Unsupported(_));
        self.provider_call("page_fetch", self.inner.fetch(url), failed).await
    }
}

#[async_trait]
impl FinancialData for Instrumented<dyn FinancialData> {
    async fn resolve(&self, query: &CompanyQuery) -> Result<ResolvedCompany, FinancialDataError> {
        self.provider_call("financial_data", self.inner.resolve(query), |e: &FinancialDataError| !e.is_client_error())
            .await
    }

    async fn statements(
        &self,
        company: &ResolvedCompany,
        years: usize,
        quarters: usize,
    ) -> Result<CompanyStatements, FinancialDataError> {
        let call = self.inner.statements(company, years, quarters);
        self.provider_call("financial_data", call, |e: &FinancialDataError| !e.is_client_error()).await
    }

    async fn annual_statements(
        &self,
        company: &ResolvedCompany,
        years: usize,
    ) -> Result<StatementsWithProvenance, FinancialDataError> {
        let call = self.inner.annual_statements(company, years);
        self.provider_call("financial_data", call, |e: &FinancialDataError| !e.is_client_error()).await
    }
}

#[async_trait]
impl PriceHistory for Instrumented<dyn PriceHistory> {
    async fn daily_closes(&self, symbol: &str, range: TimeRange) -> Result<PriceSeries, PriceHistoryError> {
        let call = self.inner.daily_closes(symbol, range);
        self.provider_call(self.inner.provider(), call, |e: &PriceHistoryError| !e.is_caller_error()).await
    }

    fn provider(&self) -> &'static str {
        self.inner.provider()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::memory::MemoryResearchStore;
    use crate::domain::auth::UserId;

    const NOW: OffsetDateTime = time::macros::datetime!(2026-11-27 12:00 UTC);

    #[tokio::test]
    async fn a_claim_after_an_expired_lease_counts_taken_expired_and_resumed() {
        let metrics = Arc::new(ServiceMetrics::new(None, None));
        let store: Arc<dyn ResearchRepository> = Arc::new(MemoryResearchStore::new());
        let store = Instrumented::new(store, metrics.clone());
        let run = ResearchRun::pending(UserId::new_random(), "q".into(), None, 3, NOW);
        store.create(run.clone()).await.expect("create");
        let lease = Duration::from_secs(30);
        let first = WorkerId::new_random();
        store.claim(first, NOW, lease).await.expect("claim").expect("run");
        let progress = ResearchProgress { progress: serde_json::json!({ "iterations": 1 }), elapsed_ms: 10 };
        store.save_progress(run.id, first, progress, NOW, lease).await.expect("saved");
        let later = NOW + time::Duration::minutes(5);
        store.claim(WorkerId::new_random(), later, lease).await.expect("claim").expect("expired run");
        let lost = ResearchProgress { progress: serde_json::json!({ "iterations": 2 }), elapsed_ms: 20 };
        assert!(store.save_progress(run.id, first, lost, later, lease).await.is_err());
        let text = metrics.render().await;
        for expected in [
            r#"creditflow_research_leases_total{event="taken"} 2"#,
            r#"creditflow_research_leases_total{event="expired"} 1"#,
            r#"creditflow_research_leases_total{event="resumed"} 1"#,
            r#"creditflow_research_leases_total{event="lost"} 1"#,
        ] {
            assert!(text.contains(expected), "{expected} missing from\n{text}");
        }
    }
}
