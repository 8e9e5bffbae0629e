//! Composition: pick adapters from configuration, build the use cases, bind the listener, serve.

mod research_workers;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::adapters::argon2_hasher::Argon2Hasher;
use crate::adapters::clock::SystemClock;
use crate::adapters::fetch::{FetchSettings, HttpPageFetcher};
use crate::adapters::http::research::{FOLLOW_PACING, ResearchFeeds};
use crate::adapters::http::sse::OpenStreams;
use crate::adapters::http::{self, AppState, DatabaseHealth};
use crate::adapters::jwt::JwtIssuer;
use crate::adapters::llm::OpenAiCompatible;
use crate::adapters::market::{
    AlphaVantage, AlphaVantageSettings, CachedPrices, CsvMirrorPrices, EdgarClient, EdgarSettings, MirrorFinancialData,
    YahooChart, YahooSettings,
};
use crate::adapters::memory::{
    MemoryAnalysisStore, MemoryConversationStore, MemoryCovenantTestStore, MemoryDocumentStore, MemoryPeopleStore,
    MemoryRateLimiter, MemoryResearchStore, MemoryResponseCache, MemoryStatementSetStore, MemoryStorageLedger,
    MemoryStore, SingleInstance,
};
use crate::adapters::metrics::instrumented::Instrumented;
use crate::adapters::metrics::{PoolProbe, PoolStats, ResearchQueue, ServiceMetrics};
use crate::adapters::postgres::{
    self, CachedUsers, DatabaseTarget, EmbeddedPostgres, PostgresStore, UserChangeListener,
};
use crate::adapters::reader::WorkerReader;
use crate::adapters::search::search_providers_from_config;
use crate::adapters::secrets::load_or_create_jwt_secret;
use crate::config::{Config, HttpServerConfig, MarketDataConfig, RateLimitStore, StoreKind, UserCacheConfig};
use crate::domain::auth::service::AuthPorts;
use crate::domain::auth::{AuthService, AuthSettings, ThrottlePolicy};
use crate::domain::chat::launcher::WorkflowLauncher;
use crate::domain::chat::service::ChatService;
use crate::domain::deals::service::{DealService, DealStores};
use crate::domain::documents::{DocumentQuota, DocumentService};
use crate::domain::people::service::{PeopleService, PeopleSettings};
use crate::domain::quant::service::QuantService;
use crate::domain::ratelimit::RatePolicy;
use crate::domain::research::service::{ResearchService, ResearchSettings};
use crate::domain::statements::service::StatementSetService;
use crate::ports::analyses::AnalysisRepository;
use crate::ports::cache::ResponseCache;
use crate::ports::clock::Clock;
use crate::ports::conversations::ConversationRepository;
use crate::ports::covenant_tests::CovenantTestRepository;
use crate::ports::deletions::DeletionTrail;
use crate::ports::documents::DocumentRepository;
use crate::ports::financial_data::FinancialData;
use crate::ports::instances::InstanceRegistry;
use crate::ports::llm::LanguageModel;
use crate::ports::page_fetch::PageFetcher;
use crate::ports::password::PasswordHasher;
use crate::ports::people::PeopleRepository;
use crate::ports::price_history::PriceHistory;
use crate::ports::rate_limit::RateLimiter;
use crate::ports::research::ResearchRepository;
use crate::ports::statement_sets::StatementSetRepository;
use crate::ports::store::{RefreshTokenRepository, StoreHealth, UserRepository, WalletNonceRepository};
use crate::ports::web_search::WebSearch;
use research_workers::ResearchWorkers;

/// How often expired refresh-token records and nonces are purged.
const PURGE_INTERVAL: Duration = Duration::from_secs(600);

/// The adapters plugged into the ports. Tests replace any of them (mocks, a manual clock).
#[derive(Clone)]
pub struct Adapters {
    pub users: Arc<dyn UserRepository>,
    pub refresh_tokens: Arc<dyn RefreshTokenRepository>,
    pub nonces: Arc<dyn WalletNonceRepository>,
    pub store_health: Arc<dyn StoreHealth>,
    pub documents: Arc<dyn DocumentRepository>,
    pub analyses: Arc<dyn AnalysisRepository>,
    /// The research queue.
    pub research: Arc<dyn ResearchRepository>,
    /// Chatbot sessions and their messages.
    pub conversations: Arc<dyn ConversationRepository>,
    /// Finished people-workflow results.
    pub people: Arc<dyn PeopleRepository>,
    /// Supplied statement sets of private borrowers.
    pub statement_sets: Arc<dyn StatementSetRepository>,
    pub covenant_tests: Arc<dyn CovenantTestRepository>,
    /// The audit trail of deleted documents and statement sets (written by their repositories).
    pub deletions: Arc<dyn DeletionTrail>,
    /// Web search providers the research loop asks (none: only the stored documents).
    pub web_search: Vec<Arc<dyn WebSearch>>,
    /// Reads result pages; `None`: the research loop uses the providers' snippets.
    pub page_fetcher: Option<Arc<dyn PageFetcher>>,
    /// Provider responses kept for a while (SEC company facts).
    pub response_cache: Arc<dyn ResponseCache>,
    pub workflow_rate_limiter: Arc<dyn RateLimiter>,
    pub login_attempts: Arc<dyn RateLimiter>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub clock: Arc<dyn Clock>,
    /// Company financial statements; `None` until configured (in-memory test adapters).
    pub financial_data: Option<Arc<dyn FinancialData>>,
    /// Daily price histories; `None` until configured.
    pub prices: Option<Arc<dyn PriceHistory>>,
    /// The language model that proposes what the rules miss; `None`: deterministic rules only.
    pub llm: Option<Arc<dyn LanguageModel>>,
    /// The database whose TLS state `/health/database/ssl` reports; `None` without one.
    pub database: Option<DatabaseHealth>,
    /// The private cluster started for `STORE=embedded`, stopped when the service stops.
    pub embedded_cluster: Option<Arc<EmbeddedPostgres>>,
    /// Reads the database pool's state for the metrics; `None` without a database.
    pub pool_probe: Option<PoolProbe>,
    /// This instance's liveness, by which the others tell its unfinished work from abandoned work.
    pub instances: Arc<dyn InstanceRegistry>,
    /// The database that announces changes of `users` (so that they can be cached in process and
    /// dropped when changed by any instance); `None`: the users are in process already.
    pub user_changes: Option<DatabaseTarget>,
}

impl Adapters {
    /// Everything in process memory, with the production password hasher.
    pub fn in_memory() -> Self {
        // Documents and statement sets count in one quota per owner, and share one audit trail.
        let ledger = Arc::new(MemoryStorageLedger::new());
        let mut adapters = Self::around_store(
            Arc::new(MemoryStore::new()),
            Arc::new(MemoryDocumentStore::sharing(ledger.clone())),
            Arc::new(MemoryAnalysisStore::new()),
            Arc::new(MemoryResearchStore::new()),
            Arc::new(MemoryConversationStore::new()),
            Arc::new(MemoryPeopleStore::new()),
            Arc::new(MemoryResponseCache::new()),
        );
        adapters.statement_sets = Arc::new(MemoryStatementSetStore::sharing(ledger.clone()));
        adapters.deletions = ledger;
        adapters
    }

    /// The repositories of `store`, with in-process rate limiters, the production password hasher
    /// and the system clock.
    fn around_store<S>(
        store: Arc<S>,
        documents: Arc<dyn DocumentRepository>,
        analyses: Arc<dyn AnalysisRepository>,
        research: Arc<dyn ResearchRepository>,
        conversations: Arc<dyn ConversationRepository>,
        people: Arc<dyn PeopleRepository>,
        response_cache: Arc<dyn ResponseCache>,
    ) -> Self
    where
        S: UserRepository + RefreshTokenRepository + WalletNonceRepository + StoreHealth,
    {
        Self {
            users: store.clone(),
            refresh_tokens: store.clone(),
            nonces: store.clone(),
            store_health: store,
            documents,
            analyses,
            research,
            conversations,
            people,
            statement_sets: Arc::new(MemoryStatementSetStore::new()),
            covenant_tests: Arc::new(MemoryCovenantTestStore::new()),
            deletions: Arc::new(MemoryStorageLedger::new()),
            web_search: Vec::new(),
            page_fetcher: None,
            response_cache,
            workflow_rate_limiter: Arc::new(MemoryRateLimiter::new()),
            login_attempts: Arc::new(MemoryRateLimiter::new()),
            hasher: Arc::new(Argon2Hasher::recommended()),
            clock: Arc::new(SystemClock),
            financial_data: None,
            prices: None,
            llm: None,
            database: None,
            embedded_cluster: None,
            pool_probe: None,
            instances: Arc::new(SingleInstance),
            user_changes: None,
        }
    }

    /// Every repository in the PostgreSQL database `target` (migrated on the way), whose TLS
    /// state `/health/database/ssl` then reports.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn on_postgres(target: &DatabaseTarget, pool_size: usize) -> anyhow::Result<Self> {
        Self::on_postgres_with(target, pool_size, RateLimitStore::Memory).await
    }

    /// As [`Self::on_postgres`], with the rate-limit windows in process memory or, for several
    /// instances sharing one budget per user, in the database.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn on_postgres_with(
        target: &DatabaseTarget,
        pool_size: usize,
        rate_limits: RateLimitStore,
    ) -> anyhow::Result<Self> {
        let store = Arc::new(PostgresStore::open(target, pool_size).await?);
        let mut adapters = Self::around_store(
            store.clone(),
            store.clone(),
            store.clone(),
            store.clone(),
            store.clone(),
            store.clone(),
            store.clone(),
        );
        adapters.statement_sets = store.clone();
        adapters.covenant_tests = store.clone();
        adapters.deletions = store.clone();
        adapters.instances = store.clone();
        adapters.user_changes = Some(target.clone());
        if rate_limits == RateLimitStore::Postgres {
            adapters.workflow_rate_limiter = store.clone();
            adapters.login_attempts = store.clone();
        }
        let pool = store.pool().clone();
        adapters.pool_probe = Some(Arc::new(move || {
            let status = pool.status();
            PoolStats {
                max_size: status.max_size,
                open: status.size,
                in_use: status.size.saturating_sub(status.available),
                waiters: status.waiting,
            }
        }));
        adapters.database = Some(DatabaseHealth { inspector: store, expectation: target.expectation() });
        Ok(adapters)
    }

    /// The adapters the configuration asks for.
    ///
    /// # Errors
    /// When the database cannot be reached, migrated or (embedded) started.
    pub async fn from_config(config: &Config) -> anyhow::Result<Self> {
        let mut adapters = Self::store_from_config(config).await?;
        adapters.hasher = Arc::new(Argon2Hasher::recommended_with_queue(config.password_hash_queue));
        let (financial_data, prices) = market_data(&config.market_data, adapters.response_cache.clone())?;
        adapters.financial_data = Some(financial_data);
        adapters.prices = Some(prices);
        adapters.web_search = search_providers_from_config(&config.research)?;
        adapters.page_fetcher = Some(Arc::new(HttpPageFetcher::from_config(&config.research)?));
        let providers: Vec<&str> = adapters.web_search.iter().map(|provider| provider.name()).collect();
        tracing::info!(providers = providers.join(","), "research web search providers");
        adapters.llm = match &config.llm {
            Some(llm) => {
                let model = OpenAiCompatible::from_config(llm)?;
                tracing::info!(endpoint = model.endpoint(), model = %llm.model, "language model configured");
                Some(Arc::new(model))
            }
            None => {
                tracing::info!("no LLM_BASE_URL: extraction and narratives use the deterministic engine only");
                None
            }
        };
        Ok(adapters)
    }

    async fn store_from_config(config: &Config) -> anyhow::Result<Self> {
        match config.store {
            StoreKind::Memory => {
                tracing::warn!("STORE=memory: users and sessions live in this process only and are lost on restart");
                Ok(Self::in_memory())
            }
            StoreKind::Postgres => {
                let url = config.database.url.as_ref().context("DATABASE_URL is not set")?;
                let target = DatabaseTarget::from_config(url.expose(), &config.database)?;
                Self::on_postgres_with(&target, config.database.pool_size, config.rate_limit_store).await
            }
            StoreKind::Embedded => {
                if let Err(missing) = postgres::find_postgres_binaries() {
                    tracing::error!("{missing}");
                    tracing::warn!(
                        "FALLING BACK TO STORE=memory: users and sessions live in this process only and are LOST \
                         on restart; install PostgreSQL or set DATABASE_URL for a persistent store"
                    );
                    return Ok(Self::in_memory());
                }
                let (cluster, target) = postgres::start_embedded(config).await?;
                let cluster = Arc::new(cluster);
                let mut adapters =
                    match Self::on_postgres_with(&target, config.database.pool_size, config.rate_limit_store).await {
                        Ok(adapters) => adapters,
                        Err(error) => {
                            stop_cluster(&cluster).await;
                            return Err(error);
                        }
                    };
                adapters.embedded_cluster = Some(cluster);
                Ok(adapters)
            }
        }
    }
}

/// What is sent to SEC as `User-Agent`: `SEC_USER_AGENT`, or (warned) the application's name.
fn sec_user_agent(config: &MarketDataConfig) -> String {
    config.sec_user_agent.clone().unwrap_or_else(|| {
        tracing::warn!(
            "SEC_USER_AGENT is not set: SEC asks for the application name and a contact e-mail \
             (e.g. 'creditflow risk@bank.example') and may refuse requests without them"
        );
        format!("creditflow/{} (SEC_USER_AGENT not configured)", env!("CARGO_PKG_VERSION"))
    })
}

/// The fetcher of `POST /api/documents/import`: the page fetcher's guard, with EDGAR's
/// User-Agent and the upload's size limit.
fn filing_fetcher(config: &Config) -> Option<Arc<HttpPageFetcher>> {
    let settings = FetchSettings {
        timeout: config.reader.import_timeout,
        max_bytes: usize::try_from(config.reader.upload_max_bytes).unwrap_or(usize::MAX),
        max_redirects: 5,
        max_concurrent: 2,
        allow_private_networks: config.research.fetch_allow_private_networks,
        user_agent: sec_user_agent(&config.market_data),
    };
    HttpPageFetcher::new(&settings)
        .map_err(|error| tracing::warn!(error = format!("{error:#}"), "document imports are off"))
        .ok()
        .map(Arc::new)
}

/// The statements and price adapters `MARKET_DATA_DIR` / `SEC_*` / `YAHOO_*` / `ALPHAVANTAGE_*` ask for.
fn market_data(
    config: &MarketDataConfig,
    cache: Arc<dyn ResponseCache>,
) -> anyhow::Result<(Arc<dyn FinancialData>, Arc<dyn PriceHistory>)> {
    if let Some(dir) = &config.mirror_dir {
        tracing::info!(dir = %dir.display(), "market data from the local mirror (MARKET_DATA_DIR); no provider is called");
        return Ok((Arc::new(MirrorFinancialData::new(dir.clone())), Arc::new(CsvMirrorPrices::new(dir.clone()))));
    }
    let mut edgar = EdgarSettings::new(sec_user_agent(config));
    edgar.timeout = config.timeout;
    if let Some(url) = &config.sec_edgar_base_url {
        edgar.facts_base_url.clone_from(url);
    }
    if let Some(url) = &config.sec_tickers_url {
        edgar.tickers_url.clone_from(url);
    }
    let financial_data: Arc<dyn FinancialData> =
        Arc::new(EdgarClient::new(edgar)?.with_facts_cache(cache.clone(), config.sec_cache_ttl));
    let prices: Arc<dyn PriceHistory> = match &config.alphavantage_api_key {
        Some(key) => {
            let mut settings = AlphaVantageSettings::with_key(key.clone());
            settings.timeout = config.timeout;
            if let Some(url) = &config.alphavantage_url {
                settings.base_url.clone_from(url);
            }
            Arc::new(AlphaVantage::new(&settings)?)
        }
        None => {
            let mut settings = YahooSettings { timeout: config.timeout, ..YahooSettings::default() };
            if let Some(url) = &config.yahoo_chart_url {
                settings.chart_url.clone_from(url);
            }
            Arc::new(YahooChart::new(&settings)?)
        }
    };
    let prices: Arc<dyn PriceHistory> = if config.price_cache_ttl.is_zero() {
        prices
    } else {
        Arc::new(CachedPrices::new(prices, cache, config.price_cache_ttl))
    };
    Ok((financial_data, prices))
}

async fn stop_cluster(cluster: &EmbeddedPostgres) {
    if let Err(error) = cluster.stop().await {
        tracing::warn!(error = format!("{error:#}"), "could not stop the embedded PostgreSQL cluster");
    }
}

/// A built service with its listener bound; [`Application::run_until_stopped`] serves it.
pub struct Application {
    listener: TcpListener,
    /// `METRICS_ADDR`'s listener and what it exposes.
    metrics: Option<MetricsListener>,
    port: u16,
    routes: BoxedFilter<(Response,)>,
    state: Arc<AppState>,
    shutdown_timeout: Duration,
    http_settings: HttpServerConfig,
    research_workers: usize,
    instances: Arc<dyn InstanceRegistry>,
    /// `INSTANCE_STALE_AFTER`: an instance not heard from for this long has stopped.
    instance_stale_after: Duration,
    embedded_cluster: Option<Arc<EmbeddedPostgres>>,
    /// Keeps the user cache told of changes while the service runs; `None` without a cache.
    user_changes: Option<UserChangeListener>,
}

impl Application {
    /// Builds the service with the adapters the configuration names.
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        let adapters = Adapters::from_config(&config).await?;
        Self::build_with(config, adapters).await
    }

    /// Builds the service around the given adapters: binds the listener (port 0 picks a free
    /// port), resolves the signing secret, creates the configured administrator.
    pub async fn build_with(config: Config, adapters: Adapters) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(config.bind_addr)
            .await
            .with_context(|| format!("cannot listen on BIND_ADDR {}", config.bind_addr))?;
        let port = listener.local_addr()?.port();
        let metrics = match config.metrics_addr {
            Some(address) => {
                let listener = TcpListener::bind(address)
                    .await
                    .with_context(|| format!("cannot listen on METRICS_ADDR {address}"))?;
                let queue = ResearchQueue { runs: adapters.research.clone(), clock: adapters.clock.clone() };
                let metrics = Arc::new(ServiceMetrics::new(adapters.pool_probe.clone(), Some(queue)));
                Some(MetricsListener { listener, metrics })
            }
            None => None,
        };
        let adapters = match &metrics {
            Some(exposition) => instrumented(adapters, &exposition.metrics),
            None => adapters,
        };
        let (adapters, user_changes) = cache_users(adapters, config.user_cache);

        let current_secret = match &config.jwt_secret {
            Some(secret) => secret.clone(),
            None => load_or_create_jwt_secret(&config.data_dir)?,
        };
        let signing_keys = config.jwt_signing_keys(current_secret)?;
        // Key ids only (they are in every token's header anyway): what an operator checks during a
        // rotation.
        let previous_kids: Vec<&str> = signing_keys.previous().iter().map(|key| key.kid().as_str()).collect();
        tracing::info!(
            kid = %signing_keys.current().kid(),
            previous_kids = %previous_kids.join(","),
            "JWT signing key: the current one signs, previous ones are only accepted"
        );
        let tokens = Arc::new(JwtIssuer::new(&signing_keys, &config.jwt_issuer, &config.jwt_audience));
        let siwe_domain = config.siwe_domain.clone().unwrap_or_else(|| format!("localhost:{port}"));
        let settings = AuthSettings {
            issuer: config.jwt_issuer.clone(),
            audience: config.jwt_audience.clone(),
            access_ttl: to_time(config.access_token_ttl),
            refresh_ttl: to_time(config.refresh_token_ttl),
            siwe_uri: config.siwe_uri.clone().unwrap_or_else(|| format!("http://{siwe_domain}")),
            siwe_domain,
            siwe_chain_ids: config.siwe_chain_ids.clone(),
            siwe_nonce_ttl: to_time(config.siwe_nonce_ttl),
            siwe_clock_skew: time::Duration::seconds(30),
            wallet_default_role: config.wallet_default_role,
            sign_in_throttle: {
                let window_ms = config.login_failure_window.as_millis() as i64;
                ThrottlePolicy {
                    per_account_and_client: RatePolicy { limit: config.login_max_failures, window_ms },
                    per_client: RatePolicy { limit: config.login_max_failures_per_client, window_ms },
                    per_account: RatePolicy { limit: config.login_max_failures_per_account, window_ms },
                }
            },
        };
        let auth = AuthService::new(
            AuthPorts {
                users: adapters.users.clone(),
                refresh_tokens: adapters.refresh_tokens.clone(),
                nonces: adapters.nonces.clone(),
                tokens,
                hasher: adapters.hasher.clone(),
                login_attempts: adapters.login_attempts.clone(),
                clock: adapters.clock.clone(),
            },
            settings,
        );
        auth.warm_up().await.context("cannot prepare password verification")?;
        if let Some(admin) = &config.admin {
            let created = auth
                .ensure_admin(&admin.email, admin.password.expose().to_owned())
                .await
                .context("cannot create the ADMIN_EMAIL administrator")?;
            if created {
                tracing::info!(email = %admin.email, "created administrator from ADMIN_EMAIL");
            }
        }

        let mut state = use_cases(&config, &adapters, auth);
        state.metrics = metrics.as_ref().map(|exposition| exposition.metrics.clone());
        let state = Arc::new(state);
        Ok(Self {
            metrics,
            listener,
            port,
            routes: http::routes(state.clone()),
            state,
            shutdown_timeout: config.shutdown_timeout,
            http_settings: config.http.clone(),
            research_workers: config.research.workers,
            instances: adapters.instances,
            instance_stale_after: config.instance_stale_after,
            embedded_cluster: adapters.embedded_cluster,
            user_changes,
        })
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The port of the metrics listener, when `METRICS_ADDR` is set.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics.as_ref().and_then(|exposition| exposition.listener.local_addr().ok()).map(|address| address.port())
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `shutdown` resolves, then shuts down gracefully.
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
        tracing::info!(address = %self.listener.local_addr()?, "creditflow listening");
        let user_changes = self.user_changes.map(|listener| tokio::spawn(listener.run()));
        let state = self.state.clone();
        let maintenance = tokio::spawn(async move {
            let mut interval = tokio::time::interval(PURGE_INTERVAL);
            loop {
                interval.tick().await;
                match state.auth.purge_expired().await {
                    Ok((tokens, nonces)) => {
                        tracing::debug!(tokens, nonces, "purged expired sign-in state")
                    }
                    Err(error) => tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "purge failed"),
                }
            }
        });
        let liveness = tokio::spawn(keep_alive(
            self.instances.clone(),
            self.state.quant.clone(),
            self.state.clock.clone(),
            self.instance_stale_after,
        ));
        let mut workers = ResearchWorkers::start(
            self.state.research.clone(),
            self.state.research_wake.clone(),
            self.research_workers,
        );
        let (stop_metrics, metrics_stopped) = tokio::sync::oneshot::channel::<()>();
        let (metrics, exposition) = match self.metrics {
            Some(MetricsListener { listener, metrics }) => {
                let routes = http::exposition::routes(metrics.clone());
                let serving = http::server::serve(
                    listener,
                    routes,
                    self.http_settings.clone(),
                    async move {
                        let _ = metrics_stopped.await;
                    },
                    Duration::from_secs(1),
                    None,
                );
                (Some(metrics), Some(tokio::spawn(serving)))
            }
            None => (None, None),
        };
        http::server::serve(self.listener, self.routes, self.http_settings, shutdown, self.shutdown_timeout, metrics)
            .await;
        let _ = stop_metrics.send(());
        if let Some(exposition) = exposition {
            let _ = exposition.await;
        }
        workers.stop();
        maintenance.abort();
        liveness.abort();
        if let Some(listener) = user_changes {
            listener.abort();
        }
        // Gone at once, rather than when the heartbeat would go stale: what this instance left
        // unfinished (a stream cut short by the deadline) is ended by the others now.
        if let Err(error) = self.instances.retire().await {
            tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "could not deregister this instance");
        }
        if let Some(cluster) = &self.embedded_cluster {
            stop_cluster(cluster).await;
        }
        tracing::info!("creditflow stopped");
        Ok(())
    }
}

/// The metrics listener, bound at build time like the API's so a taken port fails the start.
struct MetricsListener {
    listener: TcpListener,
    metrics: Arc<ServiceMetrics>,
}

/// The adapters whose calls the metrics count, wrapped in their counting decorators.
fn instrumented(mut adapters: Adapters, metrics: &Arc<ServiceMetrics>) -> Adapters {
    fn wrap<T: ?Sized>(inner: Arc<T>, metrics: &Arc<ServiceMetrics>) -> Arc<Instrumented<T>> {
        Arc::new(Instrumented::new(inner, metrics.clone()))
    }
    adapters.analyses = wrap(adapters.analyses, metrics);
    adapters.research = wrap(adapters.research, metrics);
    adapters.people = wrap(adapters.people, metrics);
    adapters.llm = adapters.llm.map(|llm| wrap(llm, metrics) as Arc<dyn LanguageModel>);
    adapters.web_search =
        adapters.web_search.into_iter().map(|search| wrap(search, metrics) as Arc<dyn WebSearch>).collect();
    adapters.page_fetcher = adapters.page_fetcher.map(|fetcher| wrap(fetcher, metrics) as Arc<dyn PageFetcher>);
    adapters.financial_data = adapters.financial_data.map(|data| wrap(data, metrics) as Arc<dyn FinancialData>);
    adapters.prices = adapters.prices.map(|prices| wrap(prices, metrics) as Arc<dyn PriceHistory>);
    adapters
}

/// The users of a store shared with other instances behind an in-process cache, and the listener
/// of announced changes that keeps it fresh (started with the service: until it listens, the
/// cache reads through). A store in process, or `USER_CACHE_TTL=off`, is left as it is.
fn cache_users(mut adapters: Adapters, settings: Option<UserCacheConfig>) -> (Adapters, Option<UserChangeListener>) {
    let (Some(settings), Some(database)) = (settings, adapters.user_changes.clone()) else {
        return (adapters, None);
    };
    let cache = CachedUsers::new(adapters.users.clone(), adapters.clock.clone(), settings.ttl, settings.capacity);
    let listener = UserChangeListener::new(database, cache.control());
    adapters.users = Arc::new(cache);
    (adapters, Some(listener))
}

/// Heart-beats for this instance six times per `stale_after`, and after each heartbeat that the
/// store took, ends the analyses of instances that have stopped (this one just proved alive, so its
/// own view of who is stale can be trusted).
async fn keep_alive(
    instances: Arc<dyn InstanceRegistry>,
    quant: Arc<QuantService>,
    clock: Arc<dyn Clock>,
    stale_after: Duration,
) {
    // Configuration keeps `stale_after` at 2 s or more.
    let mut interval = tokio::time::interval(stale_after / 6);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if let Err(error) = instances.heartbeat(clock.now()).await {
            tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "instance heartbeat failed");
            continue;
        }
        // Each run ended is logged by the service, with its id.
        if let Err(error) = quant.end_abandoned(to_time(stale_after)).await {
            tracing::warn!(error = format!("{:#}", anyhow::Error::from(error)), "cannot end abandoned analyses");
        }
    }
}

fn to_time(duration: Duration) -> time::Duration {
    time::Duration::try_from(duration).unwrap_or(time::Duration::MAX)
}

async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT received"),
        () = terminate => tracing::info!("SIGTERM received"),
    }
}

/// Each owner's storage limits, over their documents and statement sets together.
fn storage_quota(config: &Config) -> DocumentQuota {
    DocumentQuota {
        max_documents: config.document_quota_count,
        max_statement_sets: config.statement_set_quota_count,
        max_bytes: config.document_quota_bytes,
    }
}

/// The use cases over the adapters, as the HTTP layer shares them.
pub(crate) fn use_cases(config: &Config, adapters: &Adapters, auth: AuthService) -> AppState {
    // One pool of readers for documents and statement spreadsheets: one cap, one fair turn.
    let readers = Arc::new(WorkerReader::from_config(&config.reader, config.extract_max_bytes));
    let documents = DocumentService::new(
        adapters.documents.clone(),
        adapters.analyses.clone(),
        adapters.clock.clone(),
        adapters.llm.clone(),
    )
    .with_quota(storage_quota(config))
    .with_reader(readers.clone());
    let documents = Arc::new(match filing_fetcher(config) {
        Some(fetcher) => documents.with_importer(fetcher, config.reader.edgar_archive.clone()),
        None => documents,
    });
    let statement_sets = Arc::new(
        StatementSetService::new(adapters.statement_sets.clone(), adapters.clock.clone())
            .with_quota(storage_quota(config)),
    );
    let deals = Arc::new(DealService::new(
        DealStores {
            documents: adapters.documents.clone(),
            statement_sets: adapters.statement_sets.clone(),
            covenant_tests: adapters.covenant_tests.clone(),
            analyses: adapters.analyses.clone(),
            research: adapters.research.clone(),
            people: adapters.people.clone(),
            conversations: adapters.conversations.clone(),
        },
        adapters.clock.clone(),
    ));
    let quant = Arc::new(
        QuantService::new(
            adapters.analyses.clone(),
            adapters.financial_data.clone(),
            adapters.prices.clone(),
            adapters.clock.clone(),
            config.market_data.benchmark.clone(),
        )
        .with_language_model(adapters.llm.clone())
        .with_documents(adapters.documents.clone())
        .with_statement_sets(statement_sets.clone()),
    );
    let research = Arc::new(
        ResearchService::new(
            adapters.research.clone(),
            adapters.documents.clone(),
            adapters.web_search.clone(),
            adapters.page_fetcher.clone(),
            adapters.clock.clone(),
            ResearchSettings { time_budget: config.research.time_budget, ..ResearchSettings::default() },
        )
        .with_language_model(adapters.llm.clone()),
    );
    let people = Arc::new(
        PeopleService::new(
            research.clone(),
            adapters.people.clone(),
            adapters.clock.clone(),
            PeopleSettings::default(),
        )
        .with_language_model(adapters.llm.clone()),
    );
    let research_wake = Arc::new(tokio::sync::Notify::new());
    let wake = research_wake.clone();
    let launcher = Arc::new(WorkflowLauncher::new(
        quant.clone(),
        research.clone(),
        people.clone(),
        Arc::new(move || wake.notify_one()),
        adapters.clock.clone(),
    ));
    let chat = Arc::new(
        ChatService::new(adapters.conversations.clone(), documents.clone(), launcher, adapters.clock.clone())
            .with_language_model(adapters.llm.clone())
            .with_deals(deals.clone()),
    );
    AppState {
        auth,
        documents,
        extract_max_bytes: config.extract_max_bytes,
        upload_max_bytes: config.reader.upload_max_bytes,
        quant,
        research,
        people,
        statement_sets,
        deals,
        deletions: adapters.deletions.clone(),
        sheets: readers,
        chat,
        research_wake,
        rate_limiter: adapters.workflow_rate_limiter.clone(),
        rate_policy: RatePolicy::per_minute(config.rate_limit_per_minute),
        document_write_policy: RatePolicy::per_minute(config.document_writes_per_minute),
        store_health: adapters.store_health.clone(),
        clock: adapters.clock.clone(),
        max_body_bytes: config.max_body_bytes,
        database: adapters.database.clone(),
        metrics: None,
        event_streams: OpenStreams::new(config.event_streams_per_user),
        research_feeds: ResearchFeeds::new(FOLLOW_PACING),
    }
}
