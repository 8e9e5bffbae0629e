//! Prometheus metrics: one registry per [`crate::Application`] (so two instances in one test process
//! count apart), filled by the HTTP server loop, by decorators around the ports whose calls are
//! measured ([`instrumented`]: workflow runs, the research queue's leases, external providers), and
//! at scrape time from the database pool and the research queue. Rendered in the Prometheus text
//! format (0.0.4) on a listener of its own (`METRICS_ADDR`); with no `METRICS_ADDR` nothing is kept.
//!
//! Labels are always from small fixed sets: the route is the OpenAPI template of the path
//! (`/api/documents/{id}`), never the raw path, and a path the API does not know is `unmatched`.

pub mod instrumented;

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::prometheus_text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use warp::http::Method;

use crate::ports::clock::Clock;
use crate::ports::research::ResearchRepository;

/// The `Content-Type` of [`ServiceMetrics::render`].
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Longest wait for the research queue's depth at scrape time: a scrape during a database outage
/// answers at once, without that gauge, instead of hanging.
const QUEUE_DEPTH_TIMEOUT: Duration = Duration::from_secs(1);

/// Request latency buckets, in seconds: 0.5 ms to 10 s.
const REQUEST_BUCKETS: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
/// Workflow run and provider call buckets, in seconds: 10 ms to 10 minutes.
const RUN_BUCKETS: [f64; 13] = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 180.0, 600.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    kind: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LeaseLabels {
    event: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProviderLabels {
    provider: String,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProviderNameLabel {
    provider: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BudgetLabel {
    budget: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    version: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn request_histogram() -> Histogram {
    Histogram::new(REQUEST_BUCKETS)
}

fn run_histogram() -> Histogram {
    Histogram::new(RUN_BUCKETS)
}

/// What happened to a research lease, as counted by `creditflow_research_leases_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseEvent {
    /// A worker of this instance claimed a run.
    Taken,
    /// The claimed run had been claimed before and its lease had run out (its worker stopped).
    Expired,
    /// An expired run with saved progress: it goes on from its last saved iteration.
    Resumed,
    /// A worker of this instance found its lease taken over by another worker.
    Lost,
}

impl LeaseEvent {
    fn as_str(self) -> &'static str {
        match self {
            Self::Taken => "taken",
            Self::Expired => "expired",
            Self::Resumed => "resumed",
            Self::Lost => "lost",
        }
    }
}

/// Whether a provider gave an answer. A provider that answers "no such company" or "unknown
/// symbol" has answered; `Failed` is a provider that could not (unreachable, timed out, rate
/// limited, an unusable answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderOutcome {
    Answered,
    Failed,
}

/// The database pool, as read at scrape time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    pub max_size: usize,
    pub open: usize,
    pub in_use: usize,
    pub waiters: usize,
}

/// Reads the pool's state when scraped.
pub type PoolProbe = Arc<dyn Fn() -> PoolStats + Send + Sync>;

/// The research queue whose depth is read when scraped, at the service's time.
pub struct ResearchQueue {
    pub runs: Arc<dyn ResearchRepository>,
    pub clock: Arc<dyn Clock>,
}

/// The service's metrics.
pub struct ServiceMetrics {
    registry: Registry,
    /// The research queue's depth, encoded only when the store answered in time.
    queue_registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_duration: HistogramFamily<RequestLabels>,
    runs: Family<RunLabels, Counter>,
    run_duration: HistogramFamily<RunLabels>,
    leases: Family<LeaseLabels, Counter>,
    queue_depth: Gauge,
    provider_calls: Family<ProviderLabels, Counter>,
    provider_duration: HistogramFamily<ProviderNameLabel>,
    rate_limit_rejections: Family<BudgetLabel, Counter>,
    pool_max: Gauge,
    pool_open: Gauge,
    pool_in_use: Gauge,
    pool_waiters: Gauge,
    pool: Option<PoolProbe>,
    research: Option<ResearchQueue>,
}

impl std::fmt::Debug for ServiceMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceMetrics").finish_non_exhaustive()
    }
}

impl ServiceMetrics {
    /// Registers every metric; `pool` and `research` are read at scrape time (`None`: no database,
    /// so no pool gauges; no queue-depth gauge).
    pub fn new(pool: Option<PoolProbe>, research: Option<ResearchQueue>) -> Self {
        let mut registry = Registry::with_prefix("creditflow");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("http_requests", "HTTP requests by method, route template and status", requests.clone());
        let request_duration: HistogramFamily<RequestLabels> = Family::new_with_constructor(request_histogram);
        registry.register(
            "http_request_duration_seconds",
            "Time from the request's head to its response's head, by method, route template and status",
            request_duration.clone(),
        );
        let runs = Family::<RunLabels, Counter>::default();
        registry.register("workflow_runs", "Finished workflow runs by kind and outcome", runs.clone());
        let run_duration: HistogramFamily<RunLabels> = Family::new_with_constructor(run_histogram);
        registry.register(
            "workflow_run_duration_seconds",
            "Time from a run's submission to its end, by kind and outcome",
            run_duration.clone(),
        );
        let leases = Family::<LeaseLabels, Counter>::default();
        registry.register(
            "research_leases",
            "Research queue leases of this instance's workers: taken, expired (taken over from a stopped worker), \
             resumed (expired with saved progress) and lost",
            leases.clone(),
        );
        let queue_depth = Gauge::default();
        let provider_calls = Family::<ProviderLabels, Counter>::default();
        registry.register(
            "provider_calls",
            "Calls to external providers by provider and outcome (answered, or failed: unreachable, timed out, \
             rate limited, unusable)",
            provider_calls.clone(),
        );
        let provider_duration: HistogramFamily<ProviderNameLabel> = Family::new_with_constructor(run_histogram);
        registry.register(
            "provider_call_duration_seconds",
            "Duration of calls to external providers, retries included",
            provider_duration.clone(),
        );
        let rate_limit_rejections = Family::<BudgetLabel, Counter>::default();
        registry.register(
            "rate_limit_rejections",
            "Requests refused with 429 by a per-user budget",
            rate_limit_rejections.clone(),
        );
        let build_info = Family::<BuildLabels, Gauge>::default();
        build_info.get_or_create(&BuildLabels { version: env!("CARGO_PKG_VERSION") }).set(1);
        registry.register("build_info", "The running build; always 1", build_info);
        let (pool_max, pool_open, pool_in_use, pool_waiters) =
            (Gauge::default(), Gauge::default(), Gauge::default(), Gauge::default());
        if pool.is_some() {
            registry.register("db_pool_max_connections", "Largest size of the database pool", pool_max.clone());
            registry.register("db_pool_open_connections", "Connections the pool holds", pool_open.clone());
            registry.register("db_pool_in_use_connections", "Connections lent out", pool_in_use.clone());
            registry.register("db_pool_waiters", "Requests waiting for a connection", pool_waiters.clone());
        }
        let mut queue_registry = Registry::with_prefix("creditflow");
        queue_registry.register("research_queue_depth", "Research runs waiting for a worker", queue_depth.clone());
        Self {
            registry,
            queue_registry,
            requests,
            request_duration,
            runs,
            run_duration,
            leases,
            queue_depth,
            provider_calls,
            provider_duration,
            rate_limit_rejections,
            pool_max,
            pool_open,
            pool_in_use,
            pool_waiters,
            pool,
            research,
        }
    }

    /// One answered request. `route` is a template or `unmatched`.
    pub fn observe_request(&self, method: &Method, route: &'static str, status: u16, elapsed: Duration) {
        let labels = RequestLabels { method: method_label(method), route, status };
        self.requests.get_or_create(&labels).inc();
        self.request_duration.get_or_create(&labels).observe(elapsed.as_secs_f64());
    }

    /// One finished workflow run.
    pub fn observe_run(&self, kind: &'static str, outcome: &'static str, duration: Duration) {
        let labels = RunLabels { kind, outcome };
        self.runs.get_or_create(&labels).inc();
        self.run_duration.get_or_create(&labels).observe(duration.as_secs_f64());
    }

    pub fn observe_lease(&self, event: LeaseEvent) {
        self.leases.get_or_create(&LeaseLabels { event: event.as_str() }).inc();
    }

    pub fn observe_provider_call(&self, provider: &str, outcome: ProviderOutcome, elapsed: Duration) {
        let outcome = match outcome {
            ProviderOutcome::Answered => "answered",
            ProviderOutcome::Failed => "failed",
        };
        self.provider_calls.get_or_create(&ProviderLabels { provider: provider.to_owned(), outcome }).inc();
        self.provider_duration
            .get_or_create(&ProviderNameLabel { provider: provider.to_owned() })
            .observe(elapsed.as_secs_f64());
    }

    /// One request refused by the per-user budget `budget` (`workflow`, `document-write`).
    pub fn observe_rate_limit_rejection(&self, budget: &'static str) {
        self.rate_limit_rejections.get_or_create(&BudgetLabel { budget }).inc();
    }

    /// The exposition: the scrape-time gauges read first (the queue depth within a second, left out
    /// when the store does not answer).
    pub async fn render(&self) -> String {
        if let Some(probe) = &self.pool {
            let stats = probe();
            self.pool_max.set(gauge_value(stats.max_size));
            self.pool_open.set(gauge_value(stats.open));
            self.pool_in_use.set(gauge_value(stats.in_use));
            self.pool_waiters.set(gauge_value(stats.waiters));
        }
        let queue_known = match &self.research {
            Some(queue) => {
                match tokio::time::timeout(QUEUE_DEPTH_TIMEOUT, queue.runs.queue_depth(queue.clock.now())).await {
                    Ok(Ok(depth)) => {
                        self.queue_depth.set(i64::try_from(depth).unwrap_or(i64::MAX));
                        true
                    }
                    _ => false,
                }
            }
            None => false,
        };
        let mut text = String::with_capacity(16 * 1024);
        let mut encoded = encode(&mut text, &self.registry);
        if queue_known {
            encoded = encoded.and_then(|()| encode(&mut text, &self.queue_registry));
        }
        if let Err(error) = encoded {
            tracing::error!(%error, "cannot encode the metrics");
        }
        text
    }
}

fn gauge_value(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> ServiceMetrics {
        ServiceMetrics::new(None, None)
    }

    fn render(metrics: &ServiceMetrics) -> String {
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(metrics.render())
    }

    #[test]
    fn a_request_is_counted_under_its_route_template_and_status() {
        let metrics = metrics();
        metrics.observe_request(&Method::GET, "/api/documents/{id}", 200, Duration::from_millis(3));
        metrics.observe_request(&Method::GET, "/api/documents/{id}", 200, Duration::from_millis(30));
        let text = render(&metrics);
        assert!(
            text.contains(r#"creditflow_http_requests_total{method="GET",route="/api/documents/{id}",status="200"} 2"#),
            "{text}"
        );
        assert!(
            text.contains(
                r#"creditflow_http_request_duration_seconds_bucket{method="GET",route="/api/documents/{id}",status="200",le="0.005"} 1"#
            ),
            "{text}"
        );
        assert!(text.contains("# TYPE creditflow_http_request_duration_seconds histogram"), "{text}");
    }

    #[test]
    fn an_unknown_method_is_other_not_its_name() {
        let metrics = metrics();
        let method = Method::from_bytes(b"BREW").expect("method");
        metrics.observe_request(&method, "unmatched", 404, Duration::from_millis(1));
        assert!(render(&metrics).contains(r#"method="other",route="unmatched",status="404""#));
    }

    #[test]
    fn build_info_runs_and_providers_are_rendered() {
        let metrics = metrics();
        metrics.observe_run("market", "completed", Duration::from_secs(2));
        metrics.observe_lease(LeaseEvent::Resumed);
        metrics.observe_provider_call("yahoo", ProviderOutcome::Failed, Duration::from_millis(200));
        metrics.observe_rate_limit_rejection("workflow");
        let text = render(&metrics);
        let build = format!(r#"creditflow_build_info{{version="{}"}} 1"#, env!("CARGO_PKG_VERSION"));
        for expected in [
            build.as_str(),
            r#"creditflow_workflow_runs_total{kind="market",outcome="completed"} 1"#,
            r#"creditflow_research_leases_total{event="resumed"} 1"#,
            r#"creditflow_provider_calls_total{provider="yahoo",outcome="failed"} 1"#,
            r#"creditflow_rate_limit_rejections_total{budget="workflow"} 1"#,
        ] {
            assert!(text.contains(expected), "{expected} missing from\n{text}");
        }
        assert!(!text.contains("db_pool"), "no pool gauges without a database");
    }

    #[test]
    fn pool_gauges_are_read_at_scrape_time() {
        let probe: PoolProbe = Arc::new(|| PoolStats { max_size: 16, open: 5, in_use: 2, waiters: 1 });
        let text = render(&ServiceMetrics::new(Some(probe), None));
        for expected in [
            "creditflow_db_pool_max_connections 16",
            "creditflow_db_pool_open_connections 5",
            "creditflow_db_pool_in_use_connections 2",
            "creditflow_db_pool_waiters 1",
        ] {
            assert!(text.contains(expected), "{expected} missing from\n{text}");
        }
    }
}
