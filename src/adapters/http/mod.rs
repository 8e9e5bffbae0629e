//! The warp HTTP adapter: one module per resource, each returning a boxed filter; one error type;
//! one JSON `recover`; the server loop that adds request ids, access logs and graceful shutdown.

pub mod admin;
pub mod auth;
pub mod chatbot;
pub mod client_addr;
pub mod connections;
pub mod console;
pub mod deals;
pub mod documents;
pub mod dto;
pub mod error;
pub mod exposition;
pub mod filters;
pub mod health;
pub mod openapi;
pub mod paging;
pub mod people;
pub mod quant;
pub mod research;
pub mod server;
pub mod sse;
pub mod statements;
pub mod unstorable;
pub mod uploads;

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::adapters::metrics::ServiceMetrics;
use crate::domain::auth::AuthService;
use crate::domain::chat::service::ChatService;
use crate::domain::documents::DocumentService;
use crate::domain::health::db_ssl::DbSslExpectation;
use crate::domain::people::service::PeopleService;
use crate::domain::quant::service::QuantService;
use crate::domain::ratelimit::RatePolicy;
use crate::domain::research::service::ResearchService;
use crate::domain::statements::service::StatementSetService;
use crate::ports::clock::Clock;
use crate::ports::db_ssl::DbSslInspector;
use crate::ports::deletions::DeletionTrail;
use crate::ports::rate_limit::RateLimiter;
use crate::ports::reader::SheetReader;
use crate::ports::store::StoreHealth;

/// What the handlers share: the use cases and the few ports the HTTP layer uses itself.
pub struct AppState {
    pub auth: AuthService,
    pub documents: Arc<DocumentService>,
    pub quant: Arc<QuantService>,
    pub research: Arc<ResearchService>,
    pub people: Arc<PeopleService>,
    /// Supplied statement sets of private borrowers.
    pub statement_sets: Arc<StatementSetService>,
    /// Covenant tests of a deal's agreement against its borrower's statements.
    pub deals: Arc<crate::domain::deals::service::DealService>,
    /// The audit trail of deleted documents and statement sets, read by administrators.
    pub deletions: Arc<dyn DeletionTrail>,
    /// Reads statement spreadsheets (the document readers, shared with uploads).
    pub sheets: Arc<dyn SheetReader>,
    /// Chat turns, workflow launches and sessions.
    pub chat: Arc<ChatService>,
    /// Wakes an idle research worker of this instance when a run is queued.
    pub research_wake: Arc<tokio::sync::Notify>,
    /// Longest text accepted for extraction and documents (`EXTRACT_MAX_BYTES`).
    pub extract_max_bytes: usize,
    /// Largest file accepted by the upload endpoints (`UPLOAD_MAX_BYTES`).
    pub upload_max_bytes: u64,
    pub rate_limiter: Arc<dyn RateLimiter>,
    pub rate_policy: RatePolicy,
    /// Each user's budget of document writes (`DOCUMENT_WRITES_PER_MINUTE`).
    pub document_write_policy: RatePolicy,
    pub store_health: Arc<dyn StoreHealth>,
    pub clock: Arc<dyn Clock>,
    pub max_body_bytes: u64,
    /// `None` with the in-memory store.
    pub database: Option<DatabaseHealth>,
    /// `None`: metrics are off (no `METRICS_ADDR`).
    pub metrics: Option<Arc<ServiceMetrics>>,
    /// Each user's open event streams, under `EVENT_STREAMS_PER_USER`.
    pub event_streams: Arc<sse::OpenStreams>,
    /// The research runs followed as events, one store poller each.
    pub research_feeds: Arc<research::ResearchFeeds>,
}

/// What `/health/database/ssl` inspects, and what the configuration expects of it.
#[derive(Clone)]
pub struct DatabaseHealth {
    pub inspector: Arc<dyn DbSslInspector>,
    pub expectation: DbSslExpectation,
}

/// Every route of the service, with rejections turned into JSON errors.
pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    health::routes(state.clone())
        .or(openapi::routes())
        .unify()
        .or(console::routes())
        .unify()
        .or(auth::routes(state.clone()))
        .unify()
        .or(admin::routes(state.clone()))
        .unify()
        .or(documents::routes(state.clone()))
        .unify()
        .or(quant::routes(state.clone()))
        .unify()
        .or(research::routes(state.clone()))
        .unify()
        .or(people::routes(state.clone()))
        .unify()
        .or(statements::routes(state.clone()))
        .unify()
        .or(deals::routes(state.clone()))
        .unify()
        .or(chatbot::routes(state))
        .unify()
        .recover(error::recover)
        .unify()
        .boxed()
}
