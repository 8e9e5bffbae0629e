//! Configuration read from a given environment: defaults, every variable's accepted values, and the
//! one-line error naming the variable.

use super::*;

fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    Config::from_lookup(|name| vars.get(name).cloned())
}

#[test]
fn defaults_match_the_documentation() {
    let config = config(&[]).expect("defaults are valid");
    assert_eq!(config.bind_addr, "127.0.0.1:8080".parse().expect("addr"));
    assert_eq!(config.data_dir, PathBuf::from("./var"));
    assert_eq!(config.metrics_addr, None);
    assert_eq!(config.instance_stale_after, Duration::from_secs(30));
    assert_eq!(config.store, StoreKind::Embedded);
    assert!(config.jwt_secret.is_none());
    assert!(config.jwt_kid.is_none() && config.jwt_previous_keys.is_empty());
    assert_eq!(config.jwt_issuer, "creditflow");
    assert_eq!(config.access_token_ttl, Duration::from_secs(15 * 60));
    assert_eq!(config.refresh_token_ttl, Duration::from_secs(30 * 86_400));
    assert_eq!(config.siwe_chain_ids, vec![1]);
    assert_eq!(config.siwe_nonce_ttl, Duration::from_secs(300));
    assert_eq!(config.wallet_default_role, Role::Viewer);
    assert_eq!(
        (config.login_max_failures, config.login_max_failures_per_client, config.login_max_failures_per_account),
        (5, 20, 50)
    );
    assert_eq!(config.password_hash_queue, 8);
    assert_eq!(
        (config.document_quota_count, config.document_quota_bytes, config.document_writes_per_minute),
        (1000, 1 << 30, 30)
    );
    assert_eq!(config.statement_set_quota_count, 1000);
    assert_eq!(
        config.http,
        HttpServerConfig {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 4096,
            max_connections_per_client: 128,
            linger_time: Duration::from_secs(5),
            linger_max_bytes: 64 * 1024 * 1024,
            trusted_proxies: Vec::new(),
            http2_cleartext: false,
        }
    );
    assert_eq!(config.event_streams_per_user, 8);
    assert_eq!(config.rate_limit_per_minute, 60);
    assert_eq!(config.log_format, LogFormat::Pretty);
}

#[test]
fn durations_accept_seconds_minutes_hours_and_days() {
    assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("15m"), Some(Duration::from_secs(900)));
    assert_eq!(parse_duration("24h"), Some(Duration::from_secs(86_400)));
    assert_eq!(parse_duration("30d"), Some(Duration::from_secs(2_592_000)));
    for bad in ["", "15", "m", "0s", "1.5h", "-5m", "10 m", "10w", "99999999999999999999d"] {
        assert_eq!(parse_duration(bad), None, "{bad:?}");
    }
}

#[test]
fn an_invalid_value_names_the_variable_and_the_allowed_values() {
    let error = config(&[("LOG_FORMAT", "xml")]).unwrap_err();
    assert_eq!(error.to_string(), "invalid LOG_FORMAT: 'xml' is not one of: pretty, json");
    let error = config(&[("ACCESS_TOKEN_TTL", "forever")]).unwrap_err();
    assert_eq!(error.variable, "ACCESS_TOKEN_TTL");
    assert!(error.message.contains("90s, 15m, 24h or 30d"));
    assert_eq!(config(&[("STORE", "cassandra")]).unwrap_err().variable, "STORE");
    assert_eq!(config(&[("RATE_LIMIT_PER_MINUTE", "0")]).unwrap_err().variable, "RATE_LIMIT_PER_MINUTE");
    assert_eq!(config(&[("SIWE_CHAIN_IDS", "1,x")]).unwrap_err().variable, "SIWE_CHAIN_IDS");
    assert_eq!(config(&[("BIND_ADDR", "localhost")]).unwrap_err().variable, "BIND_ADDR");
    assert_eq!(config(&[("METRICS_ADDR", "9090")]).unwrap_err().variable, "METRICS_ADDR");
    assert_eq!(config(&[("INSTANCE_STALE_AFTER", "1s")]).unwrap_err().variable, "INSTANCE_STALE_AFTER");
    let metrics = config(&[("METRICS_ADDR", "127.0.0.1:9090")]).expect("valid").metrics_addr;
    assert_eq!(metrics, Some("127.0.0.1:9090".parse().expect("addr")));
    assert_eq!(config(&[("TRUSTED_PROXIES", "10.0.0.0/8, proxy")]).unwrap_err().variable, "TRUSTED_PROXIES");
    let proxies = config(&[("TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1,::1")]).expect("valid").http.trusted_proxies;
    assert_eq!(proxies.len(), 3);
    assert!(proxies[1].contains(&"192.0.2.1".parse::<std::net::IpAddr>().expect("ip")));
}

#[test]
fn the_event_stream_cap_and_cleartext_http2_are_read_and_checked() {
    let chosen = config(&[("EVENT_STREAMS_PER_USER", "3"), ("HTTP2_CLEARTEXT", "true")]).expect("valid");
    assert_eq!((chosen.event_streams_per_user, chosen.http.http2_cleartext), (3, true));
    assert_eq!(config(&[("EVENT_STREAMS_PER_USER", "0")]).unwrap_err().variable, "EVENT_STREAMS_PER_USER");
    assert_eq!(config(&[("HTTP2_CLEARTEXT", "h2c")]).unwrap_err().variable, "HTTP2_CLEARTEXT");
}

#[test]
fn a_short_jwt_secret_is_refused_without_echoing_it() {
    let error = config(&[("JWT_SECRET", "hunter2hunter2")]).unwrap_err();
    assert_eq!(error.variable, "JWT_SECRET");
    assert!(!error.to_string().contains("hunter2"));
}

const CURRENT: &str = "current-secret-current-secret-current";
const OLDER: &str = "older-secret-older-secret-older-secret";
const OLDEST: &str = "oldest=secret=with=equals=signs=in=it";

fn kids(keys: &SigningKeys) -> (String, Vec<String>) {
    (keys.current().kid().to_string(), keys.previous().iter().map(|key| key.kid().to_string()).collect())
}

#[test]
fn a_jwt_secret_alone_is_the_current_key_under_an_id_derived_from_it() {
    let config = config(&[("JWT_SECRET", "test-secret-test-secret-test-secret!")]).expect("valid");
    assert_eq!((config.jwt_kid.clone(), config.jwt_previous_keys.len()), (None, 0));
    let keys = config.jwt_signing_keys(config.jwt_secret.clone().expect("secret")).expect("keys");
    // `printf %s "$JWT_SECRET" | sha256sum | cut -c1-16`: fixed, so upgrades and every instance agree.
    assert_eq!(kids(&keys), ("815e0d02f46d62a1".to_owned(), vec![]));
    assert!(keys.current().has_derived_id());
}

#[test]
fn jwt_kid_names_the_current_key_and_previous_keys_are_kid_secret_pairs() {
    let previous = format!(" 2024-01={OLDER} , 2023.07_b = {OLDEST} ,");
    let config =
        config(&[("JWT_SECRET", CURRENT), ("JWT_KID", "2025-06"), ("JWT_PREVIOUS_KEYS", &previous)]).expect("valid");
    let keys = config.jwt_signing_keys(Secret::new(CURRENT)).expect("keys");
    assert_eq!(kids(&keys), ("2025-06".to_owned(), vec!["2024-01".to_owned(), "2023.07_b".to_owned()]));
    assert!(!keys.current().has_derived_id());
    // The first `=` ends the id: the rest, `=` included, is the secret.
    assert_eq!(keys.previous()[0].secret().expose(), OLDER);
    assert_eq!(keys.previous()[1].secret().expose(), OLDEST);
}

#[test]
fn invalid_previous_keys_are_refused_by_entry_without_echoing_a_secret() {
    let short = "short-secret-xyz";
    // A base64 secret listed without its id: the text before its first `=` is not an id.
    let bare = "dGhpcyBpcyBhIGJhc2U2NCBzZWNyZXQ+b2YgMzIgYnl0ZXM/w==";
    let cases = [
        (format!("2024-01={OLDER},{bare}"), "entry 2: the key id must be"),
        (format!("2024-01={OLDER},{OLDER}"), "entry 2: is not `kid=secret`"),
        (format!("2024-01={short}"), "entry 1: the secret must be at least 32 bytes"),
        (format!("2024 01={OLDER}"), "entry 1: the key id must be"),
        (format!("{}={OLDER}", "k".repeat(65)), "entry 1: the key id must be"),
        (format!("2024-01={OLDER},2023-07={OLDEST},2024-01={OLDEST}"), "entries 1 and 3 have the same key id"),
        (format!("2024-01={OLDER},2025-06={OLDEST}"), "entry 2 has the current key's id"),
    ];
    for (raw, expected) in cases {
        let error =
            config(&[("JWT_SECRET", CURRENT), ("JWT_KID", "2025-06"), ("JWT_PREVIOUS_KEYS", &raw)]).unwrap_err();
        let shown = error.to_string();
        assert_eq!(error.variable, "JWT_PREVIOUS_KEYS", "{raw}: {shown}");
        assert!(shown.contains(expected), "{raw}: {shown}");
        for secret in [CURRENT, OLDER, OLDEST, short, bare, "dGhpcyBp", "oldest", "older-secret", "short-secret"] {
            assert!(!shown.contains(secret), "{raw}: {shown}");
        }
    }
}

#[test]
fn a_previous_key_may_not_take_the_id_derived_from_the_current_secret() {
    let derived = KeyId::derived_from(CURRENT.as_bytes());
    let error = config(&[("JWT_SECRET", CURRENT), ("JWT_PREVIOUS_KEYS", &format!("{derived}={OLDER}"))]).unwrap_err();
    assert_eq!(error.variable, "JWT_PREVIOUS_KEYS");
    assert!(error.message.contains("entry 1 has the current key's id"), "{error}");
}

#[test]
fn an_invalid_jwt_kid_is_refused_without_echoing_it() {
    // A secret pasted into the wrong variable must not reach the log.
    let error = config(&[("JWT_SECRET", CURRENT), ("JWT_KID", &format!("{OLDER}/{OLDER}"))]).unwrap_err();
    assert_eq!(error.variable, "JWT_KID");
    assert!(!error.to_string().contains("older-secret"), "{error}");
}

#[test]
fn with_a_generated_secret_the_key_set_is_checked_when_the_secret_is_read() {
    let config = config(&[("JWT_KID", "2025-06"), ("JWT_PREVIOUS_KEYS", &format!("2025-06={OLDER}"))])
        .expect("no JWT_SECRET: the current key is not known yet");
    let error = config.jwt_signing_keys(Secret::new(CURRENT)).unwrap_err();
    assert_eq!(error.variable, "JWT_PREVIOUS_KEYS");
}

#[test]
fn admin_bootstrap_needs_both_variables_and_a_policy_conforming_password() {
    assert_eq!(config(&[("ADMIN_EMAIL", "root@example.com")]).unwrap_err().variable, "ADMIN_PASSWORD");
    let short = config(&[("ADMIN_EMAIL", "root@example.com"), ("ADMIN_PASSWORD", "short")]).unwrap_err();
    assert_eq!(short.variable, "ADMIN_PASSWORD");
    assert!(!short.to_string().contains("short'"));
    let ok =
        config(&[("ADMIN_EMAIL", "root@example.com"), ("ADMIN_PASSWORD", "a long enough password")]).expect("valid");
    assert!(ok.admin.is_some());
}

#[test]
fn secrets_are_redacted_in_debug_output() {
    let config = config(&[
        ("JWT_SECRET", "super-secret-value-that-is-long-enough"),
        ("JWT_PREVIOUS_KEYS", "2024-01=previous-secret-value-that-is-long-enough"),
        ("ADMIN_EMAIL", "root@example.com"),
        ("ADMIN_PASSWORD", "a long enough password"),
    ])
    .expect("valid");
    let debug = format!("{config:?}");
    assert!(!debug.contains("super-secret"));
    assert!(!debug.contains("previous-secret"));
    assert!(debug.contains("2024-01"), "key ids are shown");
    assert!(!debug.contains("long enough password"));
    assert!(debug.contains("[redacted]"));
}

#[test]
fn database_tls_settings_are_validated_together() {
    let defaults = config(&[]).expect("defaults");
    assert_eq!(defaults.database.ssl_mode, None);
    assert_eq!(defaults.database.pool_size, 16);
    assert_eq!(defaults.database.tls(SslMode::Prefer).mode, SslMode::Prefer);
    let error = config_error(&[("DB_SSL_REQUIRED", "true"), ("DB_SSL_MODE", "disable")]);
    assert_eq!(error.variable, "DB_SSL_REQUIRED");
    assert_eq!(config_error(&[("DB_SSL_MODE", "verify_full")]).variable, "DB_SSL_MODE");
    assert_eq!(config_error(&[("DB_SSL_REQUIRED", "maybe")]).variable, "DB_SSL_REQUIRED");
    assert_eq!(config_error(&[("DB_SSL_CLIENT_CERT", "/c.pem")]).variable, "DB_SSL_CLIENT_KEY");
    assert_eq!(config_error(&[("DB_SSL_CLIENT_KEY", "/k.pem")]).variable, "DB_SSL_CLIENT_CERT");
    let full = config(&[("DB_SSL_MODE", "verify-full"), ("DB_SSL_REQUIRED", "yes")]).expect("valid");
    assert_eq!(full.database.tls(SslMode::Prefer).mode, SslMode::VerifyFull);
    assert!(full.database.ssl_required);
}

#[test]
fn market_data_defaults_to_the_public_providers_and_keeps_the_key_secret() {
    let defaults = config(&[]).expect("valid").market_data;
    assert_eq!((defaults.benchmark.as_str(), defaults.timeout), ("SPY", Duration::from_secs(20)));
    assert!(defaults.mirror_dir.is_none() && defaults.alphavantage_api_key.is_none());
    let keyed = config(&[("ALPHAVANTAGE_API_KEY", "av-secret-key"), ("MARKET_BENCHMARK", "qqq")]).expect("valid");
    assert_eq!(keyed.market_data.benchmark, "QQQ");
    assert!(!format!("{keyed:?}").contains("av-secret-key"));
    assert_eq!(config_error(&[("MARKET_DATA_TIMEOUT", "soon")]).variable, "MARKET_DATA_TIMEOUT");
    assert_eq!(defaults.price_cache_ttl, Duration::from_secs(15 * 60));
    let off = config(&[("PRICE_CACHE_TTL", "off")]).expect("valid").market_data;
    assert_eq!(off.price_cache_ttl, Duration::ZERO);
    assert_eq!(config_error(&[("PRICE_CACHE_TTL", "a while")]).variable, "PRICE_CACHE_TTL");
}

#[test]
fn users_are_cached_ten_seconds_unless_turned_off() {
    let defaults = config(&[]).expect("valid").user_cache;
    assert_eq!(defaults, Some(UserCacheConfig { ttl: Duration::from_secs(10), capacity: 10_000 }));
    let longer = config(&[("USER_CACHE_TTL", "1h"), ("USER_CACHE_CAPACITY", "50")]).expect("valid").user_cache;
    assert_eq!(longer, Some(UserCacheConfig { ttl: Duration::from_secs(3600), capacity: 50 }));
    assert_eq!(config(&[("USER_CACHE_TTL", "off")]).expect("valid").user_cache, None);
    assert_eq!(config(&[("USER_CACHE_TTL", "0")]).expect("valid").user_cache, None);
    assert_eq!(config_error(&[("USER_CACHE_TTL", "soon")]).variable, "USER_CACHE_TTL");
    assert_eq!(config_error(&[("USER_CACHE_CAPACITY", "0")]).variable, "USER_CACHE_CAPACITY");
}

#[test]
fn shared_rate_limits_need_a_database() {
    assert_eq!(config(&[]).expect("valid").rate_limit_store, RateLimitStore::Memory);
    assert_eq!(config(&[("RATE_LIMIT_STORE", "postgres")]).expect("valid").rate_limit_store, RateLimitStore::Postgres);
    let error = config_error(&[("RATE_LIMIT_STORE", "postgres"), ("STORE", "memory")]);
    assert_eq!(error.variable, "RATE_LIMIT_STORE");
    assert_eq!(config_error(&[("RATE_LIMIT_STORE", "redis")]).variable, "RATE_LIMIT_STORE");
}

#[test]
fn the_store_follows_database_url_unless_chosen() {
    assert_eq!(config(&[]).expect("valid").store, StoreKind::Embedded);
    let external = config(&[("DATABASE_URL", "postgres://app@db.internal/app")]).expect("valid");
    assert_eq!(external.store, StoreKind::Postgres);
    assert_eq!(config(&[("STORE", "memory")]).expect("valid").store, StoreKind::Memory);
    assert_eq!(config_error(&[("STORE", "postgres")]).variable, "DATABASE_URL");
    let both = config_error(&[("STORE", "embedded"), ("DATABASE_URL", "postgres://app@db/app")]);
    assert_eq!(both.variable, "STORE");
    assert_eq!(config(&[]).expect("valid").database.connect_timeout, Duration::from_secs(5));
    assert_eq!(config_error(&[("DB_STATEMENT_TIMEOUT", "soon")]).variable, "DB_STATEMENT_TIMEOUT");
}

#[test]
fn the_database_url_is_a_secret() {
    let with_url = config(&[("DATABASE_URL", "postgres://app:s3cr3t@db.internal/app")]).expect("valid");
    assert!(!format!("{with_url:?}").contains("s3cr3t"));
}

fn config_error(vars: &[(&str, &str)]) -> ConfigError {
    config(vars).expect_err("invalid configuration")
}

#[test]
fn llm_is_off_unless_a_base_url_is_set() {
    let config = config(&[]).expect("defaults");
    assert_eq!(config.llm, None);
    let error = config_error(&[("LLM_MODEL", "llama3.1:8b")]);
    assert_eq!(error.variable, "LLM_BASE_URL");
    assert_eq!(config_error(&[("LLM_API_KEY", "sk-x")]).variable, "LLM_BASE_URL");
}

#[test]
fn llm_settings_default_to_a_keyless_sixty_second_client() {
    let llm = config(&[("LLM_BASE_URL", "http://localhost:11434/v1/"), ("LLM_MODEL", "llama3.1:8b")])
        .expect("valid")
        .llm
        .expect("configured");
    assert_eq!(llm.base_url, "http://localhost:11434/v1/");
    assert_eq!(llm.model, "llama3.1:8b");
    assert_eq!(llm.api_key, None);
    assert_eq!(llm.timeout, Duration::from_secs(60));
    let tuned = config(&[
        ("LLM_BASE_URL", "https://api.openai.com/v1"),
        ("LLM_MODEL", "gpt-4o-mini"),
        ("LLM_API_KEY", "sk-test"),
        ("LLM_TIMEOUT", "2m"),
    ])
    .expect("valid")
    .llm
    .expect("configured");
    assert_eq!(tuned.api_key.as_ref().map(Secret::expose), Some("sk-test"));
    assert_eq!(tuned.timeout, Duration::from_secs(120));
}

#[test]
fn llm_settings_are_validated_with_the_variable_named() {
    let missing_model = config_error(&[("LLM_BASE_URL", "http://localhost:11434/v1")]);
    assert_eq!(missing_model.variable, "LLM_MODEL");
    assert!(missing_model.to_string().contains("LLM_BASE_URL"));
    for bad in ["localhost:11434", "ftp://models.internal/v1", "http://", "not a url"] {
        let error = config_error(&[("LLM_BASE_URL", bad), ("LLM_MODEL", "m")]);
        assert_eq!(error.variable, "LLM_BASE_URL", "{bad}");
    }
    let with_credentials = config_error(&[("LLM_BASE_URL", "https://user:pw@llm.internal/v1"), ("LLM_MODEL", "m")]);
    assert_eq!(with_credentials.variable, "LLM_BASE_URL");
    assert!(!with_credentials.to_string().contains("pw"));
    assert_eq!(config_error(&[("LLM_TIMEOUT", "1 minute")]).variable, "LLM_TIMEOUT");
}

#[test]
fn the_llm_api_key_is_redacted_in_debug_output() {
    let config = config(&[
        ("LLM_BASE_URL", "https://api.openai.com/v1"),
        ("LLM_MODEL", "gpt-4o-mini"),
        ("LLM_API_KEY", "sk-live-very-secret-key"),
    ])
    .expect("valid");
    let debug = format!("{config:?}");
    assert!(!debug.contains("very-secret"));
    assert!(debug.contains("gpt-4o-mini"));
}

#[test]
fn research_defaults_to_keyless_wikipedia_and_conservative_fetch_limits() {
    let research = config(&[]).expect("valid").research;
    assert_eq!(research.providers, vec![SearchProviderKind::Wikipedia]);
    assert_eq!((research.wikipedia_api_url, research.searxng_url), (None, None));
    assert_eq!((research.tavily_api_key, research.brave_api_key), (None, None));
    assert_eq!(research.search_timeout, Duration::from_secs(10));
    assert_eq!(research.fetch_timeout, Duration::from_secs(10));
    assert_eq!(research.fetch_max_bytes, 2 * 1024 * 1024);
    assert_eq!(research.fetch_max_redirects, 5);
    assert_eq!(research.fetch_max_concurrent, 8);
    assert!(!research.fetch_allow_private_networks);
    assert_eq!(research.workers, 4);
    assert_eq!(research.time_budget, Duration::from_secs(120));
}

#[test]
fn configured_search_providers_join_wikipedia_unless_the_list_is_given() {
    let all = config(&[
        ("BRAVE_API_KEY", "brave-key"),
        ("SEARXNG_URL", "http://localhost:8888"),
        ("TAVILY_API_KEY", "tvly-key"),
    ])
    .expect("valid")
    .research;
    assert_eq!(
        all.providers,
        vec![
            SearchProviderKind::Wikipedia,
            SearchProviderKind::Searxng,
            SearchProviderKind::Tavily,
            SearchProviderKind::Brave
        ]
    );
    let chosen = config(&[("SEARCH_PROVIDERS", " Brave, wikipedia,brave "), ("BRAVE_API_KEY", "brave-key")])
        .expect("valid")
        .research;
    assert_eq!(chosen.providers, vec![SearchProviderKind::Brave, SearchProviderKind::Wikipedia]);
    assert_eq!(chosen.brave_api_key.as_ref().map(Secret::expose), Some("brave-key"));
}

#[test]
fn a_listed_search_provider_needs_its_key_or_address() {
    let unknown = config_error(&[("SEARCH_PROVIDERS", "wikipedia,google")]);
    assert_eq!(unknown.variable, "SEARCH_PROVIDERS");
    assert!(unknown.message.contains("'google'"), "{unknown}");
    assert_eq!(config_error(&[("SEARCH_PROVIDERS", ",")]).variable, "SEARCH_PROVIDERS");
    assert_eq!(config_error(&[("SEARCH_PROVIDERS", "searxng")]).variable, "SEARXNG_URL");
    assert_eq!(config_error(&[("SEARCH_PROVIDERS", "tavily")]).variable, "TAVILY_API_KEY");
    let brave = config_error(&[("SEARCH_PROVIDERS", "wikipedia,brave")]);
    assert_eq!(brave.variable, "BRAVE_API_KEY");
    assert!(brave.message.contains("brave"), "{brave}");
}

#[test]
fn research_urls_and_limits_are_validated_with_the_variable_named() {
    for variable in ["WIKIPEDIA_API_URL", "SEARXNG_URL", "TAVILY_URL", "BRAVE_URL"] {
        assert_eq!(config_error(&[(variable, "ftp://search.internal")]).variable, variable);
        assert_eq!(config_error(&[(variable, "search.internal/api")]).variable, variable);
        for with_password in ["https://user:pw-secret@search.internal", "ftp://user:pw-secret@search.internal"] {
            let error = config_error(&[(variable, with_password)]);
            assert_eq!(error.variable, variable);
            assert!(!error.to_string().contains("pw-secret"), "{error}");
        }
    }
    assert_eq!(config_error(&[("FETCH_MAX_BYTES", "0")]).variable, "FETCH_MAX_BYTES");
    assert_eq!(config_error(&[("FETCH_MAX_CONCURRENT", "0")]).variable, "FETCH_MAX_CONCURRENT");
    assert_eq!(config_error(&[("FETCH_MAX_REDIRECTS", "-1")]).variable, "FETCH_MAX_REDIRECTS");
    assert_eq!(config_error(&[("FETCH_ALLOW_PRIVATE_NETWORKS", "sometimes")]).variable, "FETCH_ALLOW_PRIVATE_NETWORKS");
    assert_eq!(config_error(&[("SEARCH_TIMEOUT", "10")]).variable, "SEARCH_TIMEOUT");
    assert_eq!(config_error(&[("RESEARCH_TIME_BUDGET", "soon")]).variable, "RESEARCH_TIME_BUDGET");
    let tuned = config(&[
        ("WIKIPEDIA_API_URL", "http://127.0.0.1:9000/w/api.php"),
        ("SEARXNG_URL", "https://search.internal/searx?contact=ops@bank.example"),
        ("FETCH_MAX_REDIRECTS", "0"),
        ("FETCH_ALLOW_PRIVATE_NETWORKS", "true"),
        ("RESEARCH_WORKERS", "0"),
        ("SEARCH_TIMEOUT", "3s"),
        ("RESEARCH_TIME_BUDGET", "5m"),
    ])
    .expect("valid")
    .research;
    assert_eq!(tuned.wikipedia_api_url.as_deref(), Some("http://127.0.0.1:9000/w/api.php"));
    assert_eq!(tuned.providers, vec![SearchProviderKind::Wikipedia, SearchProviderKind::Searxng]);
    assert_eq!((tuned.fetch_max_redirects, tuned.workers), (0, 0));
    assert!(tuned.fetch_allow_private_networks);
    assert_eq!((tuned.search_timeout, tuned.time_budget), (Duration::from_secs(3), Duration::from_secs(300)));
}

#[test]
fn search_api_keys_are_redacted_in_debug_output() {
    let config =
        config(&[("TAVILY_API_KEY", "tvly-very-secret"), ("BRAVE_API_KEY", "brave-very-secret")]).expect("valid");
    let debug = format!("{config:?}");
    assert!(!debug.contains("very-secret"), "{debug}");
}

#[test]
fn chain_ids_are_a_comma_separated_list() {
    assert_eq!(config(&[("SIWE_CHAIN_IDS", "1, 137,8453")]).expect("valid").siwe_chain_ids, vec![1, 137, 8453]);
}

#[test]
fn the_edgar_archive_is_an_http_folder_checked_at_start_up() {
    assert_eq!(config(&[]).expect("defaults").reader.edgar_archive, FilingArchive::sec_edgar());
    let mirror =
        config(&[("EDGAR_ARCHIVE_URL", "http://edgar-mirror.internal:8080/Archives/edgar/data")]).expect("valid");
    assert_eq!(mirror.reader.edgar_archive.to_string(), "http://edgar-mirror.internal:8080/Archives/edgar/data/");
    for invalid in ["www.sec.gov/Archives/", "https://user:pw@www.sec.gov/Archives/", "https://www.sec.gov/%2e%2e/"] {
        assert_eq!(config_error(&[("EDGAR_ARCHIVE_URL", invalid)]).variable, "EDGAR_ARCHIVE_URL", "{invalid}");
    }
}
