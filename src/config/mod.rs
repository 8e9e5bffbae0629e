//! Typed configuration, read from the environment (and `.env` when present) once at start-up.
//! This is the only module that reads the environment. Every value is validated here; an invalid
//! one stops the process with a single line naming the variable and what it accepts.

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::domain::auth::{EmailAddress, Password, Role};
use crate::domain::documents::archive::FilingArchive;
use crate::domain::health::db_ssl::SslMode;

mod jwt_keys;
pub use jwt_keys::{KeyId, MIN_SECRET_BYTES, SigningKey, SigningKeys};

/// A secret value: usable, never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where the service keeps its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// In process memory: for development and tests; lost on restart.
    Memory,
    /// An external PostgreSQL named by `DATABASE_URL`.
    Postgres,
    /// A private PostgreSQL cluster the service starts itself from the machine's binaries.
    Embedded,
}

/// Where market data comes from: SEC EDGAR and Yahoo (or Alpha Vantage with a key) by default, or
/// a local mirror directory for air-gapped deployments and the demo.
#[derive(Clone, Debug)]
pub struct MarketDataConfig {
    /// `MARKET_DATA_DIR`: `company_tickers.json`, `companyfacts/CIK##########.json` and
    /// `prices/SYMBOL.csv`; when set, no provider is called.
    pub mirror_dir: Option<PathBuf>,
    /// `SEC_USER_AGENT`: the application and a contact e-mail, as SEC asks.
    pub sec_user_agent: Option<String>,
    /// `SEC_EDGAR_BASE_URL`, `SEC_TICKERS_URL`, `YAHOO_CHART_URL`, `ALPHAVANTAGE_URL`: `None` keeps
    /// the provider's public address.
    pub sec_edgar_base_url: Option<String>,
    pub sec_tickers_url: Option<String>,
    pub yahoo_chart_url: Option<String>,
    pub alphavantage_url: Option<String>,
    /// `ALPHAVANTAGE_API_KEY`: prices from Alpha Vantage instead of Yahoo.
    pub alphavantage_api_key: Option<Secret>,
    /// `MARKET_BENCHMARK`: the symbol betas and relative performance are measured against.
    pub benchmark: String,
    /// `MARKET_DATA_TIMEOUT`: limit on one provider request.
    pub timeout: Duration,
    /// `SEC_CACHE_TTL`: how long fetched company facts are reused.
    pub sec_cache_ttl: Duration,
    /// `PRICE_CACHE_TTL`: how long a fetched price series is reused (0: not at all).
    pub price_cache_ttl: Duration,
}

/// Where the rolling windows of the rate limits live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateLimitStore {
    /// This process: exact for one instance.
    Memory,
    /// The PostgreSQL store: one budget per user across every instance.
    Postgres,
}

/// Log line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Pretty,
    Json,
}

/// TLS settings of the database connection (`DB_SSL_*`), with libpq's meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbTlsSettings {
    pub mode: SslMode,
    /// Refuse any connection that is not encrypted (a `prefer` fallback to plain included).
    pub required: bool,
    pub ca_cert: Option<PathBuf>,
    pub client_cert: Option<PathBuf>,
    pub client_key: Option<PathBuf>,
}

/// The database connection settings.
#[derive(Clone, Debug)]
pub struct DatabaseConfig {
    /// `postgres://user:password@host:port/db?…`; `None` with the embedded cluster.
    pub url: Option<Secret>,
    /// `None`: `verify-full`, for an external database and the embedded cluster alike.
    pub ssl_mode: Option<SslMode>,
    pub ssl_required: bool,
    pub ca_cert: Option<PathBuf>,
    pub client_cert: Option<PathBuf>,
    pub client_key: Option<PathBuf>,
    /// Where generated certificates go (`DB_SSL_AUTO_CERT_DIR`).
    pub auto_cert_dir: PathBuf,
    pub pool_size: usize,
    /// How long opening one connection (TCP + TLS + authentication) may take.
    pub connect_timeout: Duration,
    /// Server-side limit on one statement (`statement_timeout`).
    pub statement_timeout: Duration,
}

impl DatabaseConfig {
    /// The TLS settings, with the SSL mode defaulted to `default_mode` when not configured.
    pub fn tls(&self, default_mode: SslMode) -> DbTlsSettings {
        DbTlsSettings {
            mode: self.ssl_mode.unwrap_or(default_mode),
            required: self.ssl_required,
            ca_cert: self.ca_cert.clone(),
            client_cert: self.client_cert.clone(),
            client_key: self.client_key.clone(),
        }
    }
}

/// The OpenAI-compatible chat-completions endpoint (`LLM_*`); absent: the service runs without a
/// language model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlmConfig {
    /// `http(s)://host[:port]/path` up to, not including, `/chat/completions`
    /// (`https://api.openai.com/v1`, `http://localhost:11434/v1` for Ollama).
    pub base_url: String,
    /// The model requests ask for (`gpt-4o-mini`, `llama3.1:8b`, …).
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set; local servers need none.
    pub api_key: Option<Secret>,
    /// Limit on one HTTP request (connect, send, whole answer); retries get a fresh one each.
    pub timeout: Duration,
}

/// A web-search provider the research loop may ask (`SEARCH_PROVIDERS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SearchProviderKind {
    /// Wikipedia's keyless search API.
    Wikipedia,
    /// A SearXNG metasearch instance with JSON output enabled (`SEARXNG_URL`).
    Searxng,
    /// Tavily's search API (`TAVILY_API_KEY`).
    Tavily,
    /// Brave's web-search API (`BRAVE_API_KEY`).
    Brave,
}

impl SearchProviderKind {
    /// Every provider, in the order the default list asks them.
    pub const ALL: [Self; 4] = [Self::Wikipedia, Self::Searxng, Self::Tavily, Self::Brave];

    /// The name used in `SEARCH_PROVIDERS`, in search hits and in error statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Wikipedia => "wikipedia",
            Self::Searxng => "searxng",
            Self::Tavily => "tavily",
            Self::Brave => "brave",
        }
    }
}

/// Web research: which search providers are asked, how pages are read, how many research jobs
/// this instance runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResearchConfig {
    /// `SEARCH_PROVIDERS`: comma-separated `wikipedia`, `searxng`, `tavily`, `brave`, asked in this
    /// order. Unset: `wikipedia` (keyless) plus every provider that is configured: `searxng` when
    /// `SEARXNG_URL` is set, `tavily` when `TAVILY_API_KEY` is, `brave` when `BRAVE_API_KEY` is.
    /// Listing a provider without its URL or key is a configuration error.
    pub providers: Vec<SearchProviderKind>,
    /// `WIKIPEDIA_API_URL`: the MediaWiki API (`None`: `https://en.wikipedia.org/w/api.php`); result
    /// links are `/wiki/<Title>` on the same host.
    pub wikipedia_api_url: Option<String>,
    /// `SEARXNG_URL`: the SearXNG instance's base URL (`http://localhost:8888`); `/search` is appended.
    pub searxng_url: Option<String>,
    /// `TAVILY_API_KEY`: sent as `Authorization: Bearer …`; never logged.
    pub tavily_api_key: Option<Secret>,
    /// `TAVILY_URL`: the search endpoint (`None`: `https://api.tavily.com/search`).
    pub tavily_url: Option<String>,
    /// `BRAVE_API_KEY`: sent as `X-Subscription-Token`; never logged.
    pub brave_api_key: Option<Secret>,
    /// `BRAVE_URL`: the web-search endpoint (`None`: `https://api.search.brave.com/res/v1/web/search`).
    pub brave_url: Option<String>,
    /// `SEARCH_TIMEOUT` (default `10s`): limit on one search request; retries get a fresh one.
    pub search_timeout: Duration,
    /// `FETCH_TIMEOUT` (default `10s`): limit on reading one page, redirects included.
    pub fetch_timeout: Duration,
    /// `FETCH_MAX_BYTES` (default 2 MiB): largest page body read; larger pages are refused.
    pub fetch_max_bytes: usize,
    /// `FETCH_MAX_REDIRECTS` (default 5, 0 allowed): redirects followed for one page.
    pub fetch_max_redirects: usize,
    /// `FETCH_MAX_CONCURRENT` (default 8): pages read at once by this instance.
    pub fetch_max_concurrent: usize,
    /// `FETCH_ALLOW_PRIVATE_NETWORKS` (default `false`): `true` lets page fetches reach loopback,
    /// private, link-local and other non-public addresses (an intranet deployment, tests).
    pub fetch_allow_private_networks: bool,
    /// `RESEARCH_WORKERS` (default 4): research jobs this instance runs at once; 0 runs none (an
    /// API-only instance).
    pub workers: usize,
    /// `RESEARCH_TIME_BUDGET` (default `2m`): longest one research job may run.
    pub time_budget: Duration,
}

/// How the HTTP server treats connections: timeouts, caps, and which peers are proxies whose
/// `X-Forwarded-For` is believed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpServerConfig {
    /// `HTTP_HEADER_READ_TIMEOUT` (default `10s`): a request's headers must arrive within this,
    /// counted from the connection's opening or from the first byte after the previous response.
    pub header_read_timeout: Duration,
    /// `HTTP_BODY_READ_TIMEOUT` (default `30s`): a request's body must arrive within this of its
    /// headers (408 otherwise).
    pub body_read_timeout: Duration,
    /// `HTTP_IDLE_TIMEOUT` (default `60s`): a keep-alive connection with no request for this long
    /// is closed.
    pub idle_timeout: Duration,
    /// `HTTP_MAX_CONNECTIONS` (default 4096): open connections; beyond, the oldest idle one is
    /// closed to make room, or the new one is refused when none is idle.
    pub max_connections: usize,
    /// `HTTP_MAX_CONNECTIONS_PER_CLIENT` (default 128): open connections from one client address
    /// (IPv6: one /64); trusted proxies are exempt.
    pub max_connections_per_client: usize,
    /// `HTTP_LINGER_TIME` (default `5s`): after the server answers and closes first (413, 411,
    /// 408, 431, 503 at a connection cap, or any response with `Connection: close`), how long it
    /// keeps reading and discarding what the client still sends, so that a client that writes its
    /// whole request before reading gets the answer instead of a reset.
    pub linger_time: Duration,
    /// `HTTP_LINGER_MAX_BYTES` (default 64 MiB): the most a lingering close reads before giving up.
    pub linger_max_bytes: u64,
    /// `TRUSTED_PROXIES` (default none): comma-separated addresses or CIDR networks of reverse
    /// proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// `HTTP2_CLEARTEXT` (default `false`): whether the listener also speaks HTTP/2 without TLS
    /// (prior knowledge). Off, a client can open only as many requests at once as it has
    /// connections, which the per-client cap counts; on, each connection carries up to 64.
    pub http2_cleartext: bool,
}

/// Users kept in process by a PostgreSQL store, so that an authenticated request reads no row;
/// changes are announced by the database and drop the copies at once on every instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserCacheConfig {
    /// `USER_CACHE_TTL` (default `10s`; `off` or `0`: no cache): the longest a copy is served,
    /// should the announcement of a change be lost.
    pub ttl: Duration,
    /// `USER_CACHE_CAPACITY` (default 10000): users kept at most.
    pub capacity: usize,
}

/// The administrator created at start-up when absent.
#[derive(Clone, Debug)]
pub struct AdminBootstrap {
    pub email: String,
    pub password: Secret,
}

/// Every setting of the service.
#[derive(Clone, Debug)]
pub struct Config {
    pub bind_addr: SocketAddr,
    /// `METRICS_ADDR`: where `GET /metrics` (Prometheus text) is served, on a listener of its own;
    /// `None` (the default): no metrics are kept or served.
    pub metrics_addr: Option<SocketAddr>,
    pub data_dir: PathBuf,
    pub store: StoreKind,
    pub database: DatabaseConfig,
    /// `JWT_SECRET`, the current signing key; `None`: generate one and keep it in
    /// `DATA_DIR/jwt-secret`.
    pub jwt_secret: Option<Secret>,
    /// `JWT_KID`: the current key's id; `None`: derived from its secret ([`KeyId::derived_from`]).
    pub jwt_kid: Option<KeyId>,
    /// `JWT_PREVIOUS_KEYS`: keys still accepted on verification, never used to sign.
    pub jwt_previous_keys: Vec<SigningKey>,
    pub jwt_issuer: String,
    pub jwt_audience: String,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub admin: Option<AdminBootstrap>,
    /// `None`: `localhost:<bound port>`.
    pub siwe_domain: Option<String>,
    /// `None`: `http://<siwe domain>`.
    pub siwe_uri: Option<String>,
    pub siwe_chain_ids: Vec<u64>,
    pub siwe_nonce_ttl: Duration,
    pub wallet_default_role: Role,
    pub rate_limit_per_minute: u32,
    pub rate_limit_store: RateLimitStore,
    /// `None` (`USER_CACHE_TTL=off`): every authenticated request reads its user from the store.
    /// Without effect on `STORE=memory`, which is itself in process.
    pub user_cache: Option<UserCacheConfig>,
    pub market_data: MarketDataConfig,
    /// `LOGIN_MAX_FAILURES`: failed sign-ins of one account from one client address (or one device
    /// token) per window.
    pub login_max_failures: u32,
    /// `LOGIN_MAX_FAILURES_PER_CLIENT`: failed sign-ins from one client address over all accounts.
    pub login_max_failures_per_client: u32,
    /// `LOGIN_MAX_FAILURES_PER_ACCOUNT`: failed sign-ins of one account from all clients without a
    /// device token.
    pub login_max_failures_per_account: u32,
    pub login_failure_window: Duration,
    /// `PASSWORD_HASH_QUEUE`: password checks that may wait for a hashing thread; beyond, 503.
    pub password_hash_queue: usize,
    pub max_body_bytes: u64,
    /// `DOCUMENT_QUOTA_COUNT`: documents one user may keep.
    pub document_quota_count: u64,
    /// `DOCUMENT_QUOTA_BYTES`: bytes one user may keep over all versions of their documents (text
    /// and uploaded files) and all their statement sets.
    pub document_quota_bytes: u64,
    /// `STATEMENT_SET_QUOTA_COUNT`: statement sets one user may keep.
    pub statement_set_quota_count: u64,
    /// `DOCUMENT_WRITES_PER_MINUTE`: document creations, new versions and review steps per user
    /// per rolling minute.
    pub document_writes_per_minute: u32,
    /// Longest document text accepted by extraction and the document endpoints.
    pub extract_max_bytes: usize,
    /// Uploaded files and how they are read (`UPLOAD_MAX_BYTES`, `READER_*`).
    pub reader: ReaderConfig,
    /// `None`: no language model configured (`LLM_BASE_URL` unset).
    pub llm: Option<LlmConfig>,
    /// Web search, page fetching and the research workers (`SEARCH_*`, `FETCH_*`, `RESEARCH_*`).
    pub research: ResearchConfig,
    pub shutdown_timeout: Duration,
    /// `INSTANCE_STALE_AFTER`: an instance of the service not heard from for this long has stopped,
    /// and its unfinished analyses are ended `failed` by a live one.
    pub instance_stale_after: Duration,
    /// Connection timeouts and caps (`HTTP_*`, `TRUSTED_PROXIES`).
    pub http: HttpServerConfig,
    /// `EVENT_STREAMS_PER_USER` (default 8): Server-Sent Event streams one user may hold open at
    /// once on this instance; beyond, 429.
    pub event_streams_per_user: usize,
    pub log_format: LogFormat,
    pub log_filter: String,
}

/// An invalid setting: which variable, and what it accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {variable}: {message}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub message: String,
}

impl Config {
    /// Reads `.env` (if present, without overriding variables already set) and the environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        match dotenvy::dotenv() {
            Ok(_) => {}
            Err(e) if e.not_found() => {}
            Err(e) => {
                return Err(ConfigError { variable: ".env", message: format!("cannot be read: {e}") });
            }
        }
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Builds the configuration from any variable source (tests pass a map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let vars = Vars { lookup: &lookup };
        let admin = match (vars.get("ADMIN_EMAIL"), vars.get("ADMIN_PASSWORD")) {
            (None, None) => None,
            (Some(email), Some(password)) => {
                EmailAddress::new(&email).map_err(|e| invalid("ADMIN_EMAIL", e.to_string()))?;
                Password::new(password.clone()).map_err(|e| invalid("ADMIN_PASSWORD", e.to_string()))?;
                Some(AdminBootstrap { email, password: Secret::new(password) })
            }
            (Some(_), None) => {
                return Err(invalid("ADMIN_PASSWORD", "must be set when ADMIN_EMAIL is set"));
            }
            (None, Some(_)) => {
                return Err(invalid("ADMIN_EMAIL", "must be set when ADMIN_PASSWORD is set"));
            }
        };
        let jwt_secret = jwt_keys::current_secret(vars.get("JWT_SECRET"))?;
        let jwt_kid = jwt_keys::current_kid(vars.get("JWT_KID"))?;
        let jwt_previous_keys = jwt_keys::parse_previous_keys(vars.get("JWT_PREVIOUS_KEYS"))?;
        if let Some(secret) = &jwt_secret {
            // The whole key set is checked now; with a generated secret, when it is read at start-up.
            jwt_keys::signing_keys(secret.clone(), jwt_kid.clone(), jwt_previous_keys.clone())?;
        }
        let database = DatabaseConfig {
            url: vars.get("DATABASE_URL").map(Secret::new),
            ssl_mode: vars
                .get("DB_SSL_MODE")
                .map(|raw| raw.parse::<SslMode>().map_err(|e| invalid("DB_SSL_MODE", e.to_string())))
                .transpose()?,
            ssl_required: vars.boolean_or("DB_SSL_REQUIRED", false)?,
            ca_cert: vars.get("DB_SSL_CA_CERT").map(PathBuf::from),
            client_cert: vars.get("DB_SSL_CLIENT_CERT").map(PathBuf::from),
            client_key: vars.get("DB_SSL_CLIENT_KEY").map(PathBuf::from),
            auto_cert_dir: vars.get("DB_SSL_AUTO_CERT_DIR").map_or_else(|| PathBuf::from("./certs"), PathBuf::from),
            pool_size: vars.positive_or("DB_POOL_SIZE", 16)? as usize,
            connect_timeout: vars.duration_or("DB_CONNECT_TIMEOUT", Duration::from_secs(5))?,
            statement_timeout: vars.duration_or("DB_STATEMENT_TIMEOUT", Duration::from_secs(30))?,
        };
        if database.ssl_required && database.ssl_mode == Some(SslMode::Disable) {
            return Err(invalid("DB_SSL_REQUIRED", "is true but DB_SSL_MODE=disable never encrypts"));
        }
        match (&database.client_cert, &database.client_key) {
            (Some(_), None) => return Err(invalid("DB_SSL_CLIENT_KEY", "must be set when DB_SSL_CLIENT_CERT is set")),
            (None, Some(_)) => return Err(invalid("DB_SSL_CLIENT_CERT", "must be set when DB_SSL_CLIENT_KEY is set")),
            _ => {}
        }
        let default_store = if database.url.is_some() { StoreKind::Postgres } else { StoreKind::Embedded };
        let store = vars.choice(
            "STORE",
            &[("memory", StoreKind::Memory), ("postgres", StoreKind::Postgres), ("embedded", StoreKind::Embedded)],
            default_store,
        )?;
        let rate_limit_store = vars.choice(
            "RATE_LIMIT_STORE",
            &[("memory", RateLimitStore::Memory), ("postgres", RateLimitStore::Postgres)],
            RateLimitStore::Memory,
        )?;
        if rate_limit_store == RateLimitStore::Postgres && store == StoreKind::Memory {
            return Err(invalid("RATE_LIMIT_STORE", "is postgres but STORE=memory has no database"));
        }
        match (store, &database.url) {
            (StoreKind::Postgres, None) => {
                return Err(invalid("DATABASE_URL", "must be set when STORE=postgres (postgres://user@host:5432/db)"));
            }
            (StoreKind::Embedded, Some(_)) => {
                return Err(invalid(
                    "STORE",
                    "is embedded (a private cluster) but DATABASE_URL names an external database: unset one of them",
                ));
            }
            _ => {}
        }
        Ok(Config {
            database,
            bind_addr: vars.parse_or(
                "BIND_ADDR",
                "127.0.0.1:8080".parse().expect("literal"),
                "a socket address like 127.0.0.1:8080",
            )?,
            metrics_addr: vars.optional_parse("METRICS_ADDR", "a socket address like 127.0.0.1:9090")?,
            data_dir: vars.get("DATA_DIR").map_or_else(|| PathBuf::from("./var"), PathBuf::from),
            store,
            jwt_secret,
            jwt_kid,
            jwt_previous_keys,
            jwt_issuer: vars.non_empty_or("JWT_ISSUER", "creditflow")?,
            jwt_audience: vars.non_empty_or("JWT_AUDIENCE", "creditflow-api")?,
            access_token_ttl: vars.duration_or("ACCESS_TOKEN_TTL", Duration::from_secs(15 * 60))?,
            refresh_token_ttl: vars.duration_or("REFRESH_TOKEN_TTL", Duration::from_secs(30 * 24 * 3600))?,
            admin,
            siwe_domain: vars.get("SIWE_DOMAIN"),
            siwe_uri: vars.get("SIWE_URI"),
            siwe_chain_ids: vars.chain_ids("SIWE_CHAIN_IDS")?,
            siwe_nonce_ttl: vars.duration_or("SIWE_NONCE_TTL", Duration::from_secs(300))?,
            wallet_default_role: vars.choice(
                "WALLET_DEFAULT_ROLE",
                &[("viewer", Role::Viewer), ("analyst", Role::Analyst), ("admin", Role::Admin)],
                Role::Viewer,
            )?,
            rate_limit_per_minute: vars.positive_or("RATE_LIMIT_PER_MINUTE", 60)?,
            rate_limit_store,
            user_cache: vars.user_cache()?,
            market_data: MarketDataConfig {
                mirror_dir: vars.get("MARKET_DATA_DIR").map(PathBuf::from),
                sec_user_agent: vars.get("SEC_USER_AGENT"),
                sec_edgar_base_url: vars.get("SEC_EDGAR_BASE_URL"),
                sec_tickers_url: vars.get("SEC_TICKERS_URL"),
                yahoo_chart_url: vars.get("YAHOO_CHART_URL"),
                alphavantage_url: vars.get("ALPHAVANTAGE_URL"),
                alphavantage_api_key: vars.get("ALPHAVANTAGE_API_KEY").map(Secret::new),
                benchmark: vars.non_empty_or("MARKET_BENCHMARK", "SPY")?.to_ascii_uppercase(),
                timeout: vars.duration_or("MARKET_DATA_TIMEOUT", Duration::from_secs(20))?,
                sec_cache_ttl: vars.duration_or("SEC_CACHE_TTL", Duration::from_secs(24 * 3600))?,
                // "off" (or 0) keeps no price series at all.
                price_cache_ttl: match vars.get("PRICE_CACHE_TTL").as_deref().map(str::trim) {
                    Some("off" | "0") => Duration::ZERO,
                    _ => vars.duration_or("PRICE_CACHE_TTL", Duration::from_secs(15 * 60))?,
                },
            },
            login_max_failures: vars.positive_or("LOGIN_MAX_FAILURES", 5)?,
            login_max_failures_per_client: vars.positive_or("LOGIN_MAX_FAILURES_PER_CLIENT", 20)?,
            login_max_failures_per_account: vars.positive_or("LOGIN_MAX_FAILURES_PER_ACCOUNT", 50)?,
            password_hash_queue: vars.positive_or("PASSWORD_HASH_QUEUE", 8)? as usize,
            login_failure_window: vars.duration_or("LOGIN_FAILURE_WINDOW", Duration::from_secs(15 * 60))?,
            max_body_bytes: u64::from(vars.positive_or("MAX_BODY_BYTES", 2 * 1024 * 1024)?),
            document_quota_count: u64::from(vars.positive_or("DOCUMENT_QUOTA_COUNT", 1000)?),
            document_quota_bytes: vars.parse_or("DOCUMENT_QUOTA_BYTES", 1 << 30, "a number of bytes")?,
            statement_set_quota_count: u64::from(vars.positive_or("STATEMENT_SET_QUOTA_COUNT", 1000)?),
            document_writes_per_minute: vars.positive_or("DOCUMENT_WRITES_PER_MINUTE", 30)?,
            extract_max_bytes: vars.positive_or("EXTRACT_MAX_BYTES", 5 * 1024 * 1024)? as usize,
            reader: ReaderConfig {
                upload_max_bytes: u64::from(vars.positive_or("UPLOAD_MAX_BYTES", 25 * 1024 * 1024)?),
                timeout: vars.duration_or("READER_TIMEOUT", Duration::from_secs(30))?,
                memory_mib: u64::from(vars.positive_or("READER_MEMORY_MIB", 1024)?),
                concurrency: vars.positive_or("READER_CONCURRENCY", 2)? as usize,
                per_user: vars.positive_or("READER_PER_USER", 1)? as usize,
                worker: vars.get("READER_WORKER").map(PathBuf::from),
                edgar_archive: match vars.get("EDGAR_ARCHIVE_URL") {
                    None => FilingArchive::sec_edgar(),
                    Some(raw) => FilingArchive::new(&raw).map_err(|reason| invalid("EDGAR_ARCHIVE_URL", reason))?,
                },
                import_timeout: vars.duration_or("IMPORT_TIMEOUT", Duration::from_secs(60))?,
            },
            llm: vars.llm()?,
            research: vars.research()?,
            shutdown_timeout: vars.duration_or("SHUTDOWN_TIMEOUT", Duration::from_secs(30))?,
            instance_stale_after: match vars.duration_or("INSTANCE_STALE_AFTER", Duration::from_secs(30))? {
                // Shorter than a heartbeat's round trip would end live instances' runs.
                short if short < Duration::from_secs(2) => {
                    return Err(invalid("INSTANCE_STALE_AFTER", "must be at least 2s"));
                }
                stale_after => stale_after,
            },
            http: vars.http_server()?,
            event_streams_per_user: vars.positive_or("EVENT_STREAMS_PER_USER", 8)? as usize,
            log_format: vars.choice(
                "LOG_FORMAT",
                &[("pretty", LogFormat::Pretty), ("json", LogFormat::Json)],
                LogFormat::Pretty,
            )?,
            log_filter: vars.log_filter("RUST_LOG")?,
        })
    }

    /// Configuration for tests: in-memory store, fixed secret, everything else default.
    pub fn for_tests(overrides: &[(&str, &str)]) -> Result<Self, ConfigError> {
        let mut vars: HashMap<String, String> = HashMap::from([
            ("BIND_ADDR".to_owned(), "127.0.0.1:0".to_owned()),
            ("STORE".to_owned(), "memory".to_owned()),
            ("JWT_SECRET".to_owned(), "test-secret-test-secret-test-secret!".to_owned()),
        ]);
        vars.extend(overrides.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        Self::from_lookup(|name| vars.get(name).cloned())
    }
}

fn invalid(variable: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError { variable, message: message.into() }
}

/// Uploaded files, and the worker processes that read them.
#[derive(Clone, Debug)]
pub struct ReaderConfig {
    /// `UPLOAD_MAX_BYTES`: the largest file accepted (default 25 MiB); larger is 413.
    pub upload_max_bytes: u64,
    /// `READER_TIMEOUT`: how long one file may take to read (default 30 s); longer is 422.
    pub timeout: Duration,
    /// `READER_MEMORY_MIB`: the address space a reader process may use (default 1024).
    pub memory_mib: u64,
    /// `READER_CONCURRENCY`: files (documents and statement spreadsheets) read at once (default
    /// 2); more wait briefly, then 503.
    pub concurrency: usize,
    /// `READER_PER_USER`: files of one user read at once (default 1); their others wait in turn
    /// behind other users' files.
    pub per_user: usize,
    /// `READER_WORKER`: the executable started to read a file; default: this binary.
    pub worker: Option<PathBuf>,
    /// `EDGAR_ARCHIVE_URL`: the only place `POST /api/documents/import` fetches from, redirects
    /// included (default `https://www.sec.gov/Archives/edgar/data/`).
    pub edgar_archive: FilingArchive,
    /// `IMPORT_TIMEOUT`: how long fetching one filing may take (default 60 s).
    pub import_timeout: Duration,
}

/// Parses `90s`, `15m`, `24h`, `30d` (a positive whole number and one unit).
pub fn parse_duration(raw: &str) -> Option<Duration> {
    let raw = raw.trim();
    let split = raw.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = raw.split_at(split);
    let number: u64 = number.parse().ok().filter(|n| *n > 0)?;
    let unit_secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    number.checked_mul(unit_secs).map(Duration::from_secs)
}

/// `SEARCH_PROVIDERS`: names separated by commas, case-insensitive, each kept once in the order given.
fn search_providers(raw: &str) -> Result<Vec<SearchProviderKind>, ConfigError> {
    let mut providers = Vec::new();
    for name in raw.split(',').map(str::trim).filter(|name| !name.is_empty()) {
        let provider =
            SearchProviderKind::ALL.into_iter().find(|kind| kind.as_str().eq_ignore_ascii_case(name)).ok_or_else(
                || invalid("SEARCH_PROVIDERS", format!("'{name}' is not one of: wikipedia, searxng, tavily, brave")),
            )?;
        if !providers.contains(&provider) {
            providers.push(provider);
        }
    }
    if providers.is_empty() {
        return Err(invalid("SEARCH_PROVIDERS", "must name at least one of: wikipedia, searxng, tavily, brave"));
    }
    Ok(providers)
}

struct Vars<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
}

impl Vars<'_> {
    /// The value, treating empty as unset (so `FOO=` in `.env` means "default").
    fn get(&self, name: &str) -> Option<String> {
        (self.lookup)(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
    }

    fn parse_or<T: FromStr>(&self, name: &'static str, default: T, expected: &str) -> Result<T, ConfigError> {
        Ok(self.optional_parse(name, expected)?.unwrap_or(default))
    }

    fn optional_parse<T: FromStr>(&self, name: &'static str, expected: &str) -> Result<Option<T>, ConfigError> {
        self.get(name)
            .map(|raw| raw.parse().map_err(|_| invalid(name, format!("'{raw}' is not {expected}"))))
            .transpose()
    }

    fn non_empty_or(&self, name: &'static str, default: &str) -> Result<String, ConfigError> {
        Ok(self.get(name).unwrap_or_else(|| default.to_owned()))
    }

    fn positive_or(&self, name: &'static str, default: u32) -> Result<u32, ConfigError> {
        let value: u32 = self.parse_or(name, default, "a positive whole number")?;
        if value == 0 {
            return Err(invalid(name, "must be a positive whole number"));
        }
        Ok(value)
    }

    fn duration_or(&self, name: &'static str, default: Duration) -> Result<Duration, ConfigError> {
        match self.get(name) {
            None => Ok(default),
            Some(raw) => parse_duration(&raw).ok_or_else(|| {
                invalid(name, format!("'{raw}' is not a duration: use a number and a unit, like 90s, 15m, 24h or 30d"))
            }),
        }
    }

    fn choice<T: Copy>(&self, name: &'static str, allowed: &[(&str, T)], default: T) -> Result<T, ConfigError> {
        let Some(raw) = self.get(name) else {
            return Ok(default);
        };
        allowed.iter().find(|(label, _)| label.eq_ignore_ascii_case(&raw)).map(|(_, value)| *value).ok_or_else(|| {
            let labels: Vec<_> = allowed.iter().map(|(label, _)| *label).collect();
            invalid(name, format!("'{raw}' is not one of: {}", labels.join(", ")))
        })
    }

    fn boolean_or(&self, name: &'static str, default: bool) -> Result<bool, ConfigError> {
        match self.get(name).map(|raw| raw.to_ascii_lowercase()) {
            None => Ok(default),
            Some(raw) => match raw.as_str() {
                "true" | "1" | "yes" | "on" => Ok(true),
                "false" | "0" | "no" | "off" => Ok(false),
                _ => Err(invalid(name, format!("'{raw}' is not a boolean: use true or false"))),
            },
        }
    }

    fn user_cache(&self) -> Result<Option<UserCacheConfig>, ConfigError> {
        let ttl = match self.get("USER_CACHE_TTL").as_deref().map(str::trim) {
            Some("off" | "0") => return Ok(None),
            _ => self.duration_or("USER_CACHE_TTL", Duration::from_secs(10))?,
        };
        Ok(Some(UserCacheConfig { ttl, capacity: self.positive_or("USER_CACHE_CAPACITY", 10_000)? as usize }))
    }

    fn log_filter(&self, name: &'static str) -> Result<String, ConfigError> {
        let filter = self.get(name).unwrap_or_else(|| "info".to_owned());
        tracing_subscriber::EnvFilter::try_new(&filter).map_err(|e| {
            invalid(name, format!("'{filter}' is not a log filter like info or creditflow=debug,warn: {e}"))
        })?;
        Ok(filter)
    }

    fn llm(&self) -> Result<Option<LlmConfig>, ConfigError> {
        let timeout = self.duration_or("LLM_TIMEOUT", Duration::from_secs(60))?;
        let model = self.get("LLM_MODEL");
        let api_key = self.get("LLM_API_KEY").map(Secret::new);
        let Some(base_url) = self.get("LLM_BASE_URL") else {
            if model.is_some() || api_key.is_some() {
                return Err(invalid(
                    "LLM_BASE_URL",
                    "must be set when LLM_MODEL or LLM_API_KEY is set (e.g. http://localhost:11434/v1)",
                ));
            }
            return Ok(None);
        };
        let uri: http::Uri = base_url.parse().map_err(|_| {
            invalid("LLM_BASE_URL", format!("'{base_url}' is not a URL like https://api.openai.com/v1"))
        })?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none_or(str::is_empty) {
            return Err(invalid(
                "LLM_BASE_URL",
                format!("'{base_url}' is not an http(s) URL like http://localhost:11434/v1"),
            ));
        }
        if uri.authority().is_some_and(|authority| authority.as_str().contains('@')) {
            return Err(invalid("LLM_BASE_URL", "must not contain credentials: put the key in LLM_API_KEY"));
        }
        let model = model.ok_or_else(|| {
            invalid("LLM_MODEL", "must be set when LLM_BASE_URL is set (e.g. gpt-4o-mini, llama3.1:8b)")
        })?;
        Ok(Some(LlmConfig { base_url, model, api_key, timeout }))
    }

    /// A whole number, zero allowed.
    fn whole_number_or(&self, name: &'static str, default: u32) -> Result<u32, ConfigError> {
        self.parse_or(name, default, "a whole number (0 or more)")
    }

    /// An optional http(s) URL without credentials. The value is not echoed when it may hold a
    /// password.
    fn http_url(&self, name: &'static str) -> Result<Option<String>, ConfigError> {
        let Some(raw) = self.get(name) else {
            return Ok(None);
        };
        let shown = if raw.contains('@') { "the value" } else { raw.as_str() };
        let uri: http::Uri =
            raw.parse().map_err(|_| invalid(name, format!("'{shown}' is not a URL like http://localhost:8888")))?;
        if uri.authority().is_some_and(|authority| authority.as_str().contains('@')) {
            return Err(invalid(name, "must not contain credentials"));
        }
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none_or(str::is_empty) {
            return Err(invalid(name, format!("'{shown}' is not an http(s) URL like http://localhost:8888")));
        }
        Ok(Some(raw))
    }

    fn research(&self) -> Result<ResearchConfig, ConfigError> {
        let searxng_url = self.http_url("SEARXNG_URL")?;
        let tavily_api_key = self.get("TAVILY_API_KEY").map(Secret::new);
        let brave_api_key = self.get("BRAVE_API_KEY").map(Secret::new);
        let providers = match self.get("SEARCH_PROVIDERS") {
            Some(raw) => search_providers(&raw)?,
            None => SearchProviderKind::ALL
                .into_iter()
                .filter(|provider| match provider {
                    SearchProviderKind::Wikipedia => true,
                    SearchProviderKind::Searxng => searxng_url.is_some(),
                    SearchProviderKind::Tavily => tavily_api_key.is_some(),
                    SearchProviderKind::Brave => brave_api_key.is_some(),
                })
                .collect(),
        };
        for provider in &providers {
            let missing = match provider {
                SearchProviderKind::Wikipedia => None,
                SearchProviderKind::Searxng => searxng_url
                    .is_none()
                    .then_some(("SEARXNG_URL", "the instance's address, like http://localhost:8888")),
                SearchProviderKind::Tavily => tavily_api_key.is_none().then_some(("TAVILY_API_KEY", "the API key")),
                SearchProviderKind::Brave => brave_api_key.is_none().then_some(("BRAVE_API_KEY", "the API key")),
            };
            if let Some((variable, what)) = missing {
                return Err(invalid(
                    variable,
                    format!("must be set ({what}) when SEARCH_PROVIDERS lists {}", provider.as_str()),
                ));
            }
        }
        Ok(ResearchConfig {
            providers,
            wikipedia_api_url: self.http_url("WIKIPEDIA_API_URL")?,
            searxng_url,
            tavily_api_key,
            tavily_url: self.http_url("TAVILY_URL")?,
            brave_api_key,
            brave_url: self.http_url("BRAVE_URL")?,
            search_timeout: self.duration_or("SEARCH_TIMEOUT", Duration::from_secs(10))?,
            fetch_timeout: self.duration_or("FETCH_TIMEOUT", Duration::from_secs(10))?,
            fetch_max_bytes: self.positive_or("FETCH_MAX_BYTES", 2 * 1024 * 1024)? as usize,
            fetch_max_redirects: self.whole_number_or("FETCH_MAX_REDIRECTS", 5)? as usize,
            fetch_max_concurrent: self.positive_or("FETCH_MAX_CONCURRENT", 8)? as usize,
            fetch_allow_private_networks: self.boolean_or("FETCH_ALLOW_PRIVATE_NETWORKS", false)?,
            workers: self.whole_number_or("RESEARCH_WORKERS", 4)? as usize,
            time_budget: self.duration_or("RESEARCH_TIME_BUDGET", Duration::from_secs(120))?,
        })
    }

    fn http_server(&self) -> Result<HttpServerConfig, ConfigError> {
        let trusted_proxies = match self.get("TRUSTED_PROXIES") {
            None => Vec::new(),
            Some(raw) => raw
                .split(',')
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(|entry| {
                    entry
                        .parse::<ipnet::IpNet>()
                        .or_else(|_| entry.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                        .map_err(|_| {
                            invalid(
                                "TRUSTED_PROXIES",
                                format!("'{entry}' is not an IP address or a CIDR network like 10.0.0.0/8"),
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(HttpServerConfig {
            header_read_timeout: self.duration_or("HTTP_HEADER_READ_TIMEOUT", Duration::from_secs(10))?,
            body_read_timeout: self.duration_or("HTTP_BODY_READ_TIMEOUT", Duration::from_secs(30))?,
            idle_timeout: self.duration_or("HTTP_IDLE_TIMEOUT", Duration::from_secs(60))?,
            max_connections: self.positive_or("HTTP_MAX_CONNECTIONS", 4096)? as usize,
            max_connections_per_client: self.positive_or("HTTP_MAX_CONNECTIONS_PER_CLIENT", 128)? as usize,
            linger_time: self.duration_or("HTTP_LINGER_TIME", Duration::from_secs(5))?,
            linger_max_bytes: u64::from(self.positive_or("HTTP_LINGER_MAX_BYTES", 64 * 1024 * 1024)?),
            trusted_proxies,
            http2_cleartext: self.boolean_or("HTTP2_CLEARTEXT", false)?,
        })
    }

    fn chain_ids(&self, name: &'static str) -> Result<Vec<u64>, ConfigError> {
        let Some(raw) = self.get(name) else {
            return Ok(vec![1]);
        };
        raw.split(',')
            .map(|id| {
                id.trim().parse::<u64>().ok().filter(|id| *id > 0).ok_or_else(|| {
                    invalid(name, format!("'{raw}' is not a comma-separated list of chain ids like 1,137"))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
