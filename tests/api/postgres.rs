//! The PostgreSQL adapter against real servers: the repository contract, migrations, every TLS
//! mode as libpq means it, mutual TLS, the start-up checks, and `/health/database/ssl` reporting
//! what the server says, through an outage and back; and the chatbot and people flows over HTTP.

use std::sync::Arc;
use std::time::Duration;

use creditflow::adapters::postgres::migrations::migrate;
use creditflow::adapters::postgres::{ClientAuth, DatabaseTarget, PostgresStore};
use creditflow::config::{Config, DbTlsSettings};
use creditflow::domain::health::db_ssl::SslMode;
use creditflow::{Adapters, Application};
use serde_json::Value;

use crate::helpers::*;
use crate::store_contract;
use crate::test_cluster::{self, TestCluster};

/// A store over a fresh database with a pool of one connection: an operation that needs a second
/// connection while holding the first would wait for itself and fail the contract.
async fn store(cluster: &TestCluster) -> Arc<PostgresStore> {
    Arc::new(PostgresStore::open(&cluster.fresh_database().await, 1).await.expect("store opens"))
}

async fn connect_error(target: anyhow::Result<DatabaseTarget>) -> String {
    match target.expect("valid settings").connect().await {
        Ok(_) => panic!("the connection should have been refused"),
        Err(error) => error.to_string(),
    }
}

async fn server_ssl_view(target: &DatabaseTarget) -> (bool, Option<String>, Option<String>) {
    let client = target.connect().await.expect("connects");
    let row = client
        .query_one("SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()", &[])
        .await
        .expect("pg_stat_ssl");
    (row.get(0), row.get(1), row.get(2))
}

#[tokio::test]
async fn the_postgres_store_honours_the_repository_contract() {
    let cluster = test_cluster::shared().await;
    store_contract::users_are_unique_by_email_and_wallet(store(cluster).await).await;
    store_contract::refresh_tokens_are_single_use_and_revoked_by_family(store(cluster).await).await;
    store_contract::concurrent_consumption_of_one_refresh_token_has_one_winner(store(cluster).await).await;
    store_contract::nonces_are_single_use(store(cluster).await).await;
    store_contract::documents_are_versioned_reviewed_and_listed(store(cluster).await).await;
    store_contract::document_quotas_hold_under_concurrent_writes(store(cluster).await).await;
    store_contract::uploaded_files_are_kept_with_their_versions_and_count_against_the_quota(store(cluster).await).await;
    store_contract::the_current_agreements_of_a_deal_are_read_newest_first_per_owner(store(cluster).await).await;
    store_contract::analyses_move_forward_once_and_list_newest_first(store(cluster).await).await;
    store_contract::rate_limits_are_exact_under_concurrency_and_roll(store(cluster).await).await;
    store_contract::cached_responses_are_served_while_fresh(store(cluster).await).await;
    store_contract::the_corpus_search_finds_any_word_ranked_and_per_owner(store(cluster).await).await;
    store_contract::research_runs_are_claimed_once_leased_and_resumed(store(cluster).await).await;
    store_contract::chat_sessions_are_owned_and_append_in_order(store(cluster).await).await;
    store_contract::chat_sessions_are_listed_latest_activity_first_with_their_openings(store(cluster).await).await;
    store_contract::people_results_are_stored_found_and_listed(store(cluster).await).await;
    store_contract::statement_sets_are_kept_whole_and_the_latest_of_a_deal_found(store(cluster).await).await;
    let shared = store(cluster).await;
    store_contract::statement_sets_share_the_owners_quota_with_documents_and_deleting_gives_it_back(
        shared.clone(),
        shared,
    )
    .await;
    let shared = store(cluster).await;
    store_contract::a_deleted_document_goes_whole_leaves_its_audit_entry_and_gives_its_quota_back(
        shared.clone(),
        shared,
    )
    .await;
}

#[tokio::test]
async fn instances_migrating_at_once_apply_each_migration_once() {
    let target = test_cluster::shared().await.fresh_database().await;
    let runs = (0..4).map(|_| {
        let target = target.clone();
        tokio::spawn(async move { migrate(&mut target.connect().await.expect("connects")).await })
    });
    let mut applied = Vec::new();
    for run in runs {
        applied.extend(run.await.expect("join").expect("migration succeeds"));
    }
    let client = target.connect().await.expect("connects");
    let versions: Vec<i32> = client
        .query("SELECT version FROM schema_migrations ORDER BY version", &[])
        .await
        .expect("schema_migrations")
        .iter()
        .map(|row| row.get(0))
        .collect();
    applied.sort_unstable();
    assert_eq!(applied, versions, "every version applied by exactly one instance");
    assert!(migrate(&mut target.connect().await.expect("connects")).await.expect("idempotent").is_empty());
}

#[tokio::test]
async fn the_service_signs_in_and_rotates_tokens_on_postgres() {
    let cluster = test_cluster::shared().await;
    let app = spawn_app_around(cluster.fresh_adapters().await, &[], |_| {}).await;

    let token = app.token_for("analyst").await;
    let me = app.get("/api/auth/me", Some(&token)).await;
    assert_eq!(me.status(), 200);
    let login = app.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rotated =
        app.post("/api/auth/refresh", None, &serde_json::json!({ "refresh_token": refresh_token(&login) })).await;
    assert_eq!(rotated.status(), 200);
    let replayed =
        app.post("/api/auth/refresh", None, &serde_json::json!({ "refresh_token": refresh_token(&login) })).await;
    assert_error(replayed, 401).await;
}

#[tokio::test]
async fn verify_full_with_a_client_certificate_is_reported_exactly_as_pg_stat_ssl_says() {
    let cluster = test_cluster::shared().await;
    let target = cluster.fresh_database().await;
    let app = spawn_app_around(Adapters::on_postgres(&target, 2).await.expect("store"), &[], |_| {}).await;

    let response = app.get("/health/database/ssl", None).await;
    assert_eq!(response.status(), 200);
    let report: Value = response.json().await.expect("json");
    let (ssl, version, cipher) = server_ssl_view(&target).await;
    assert!(ssl);
    assert_eq!(report["status"], "healthy");
    assert_eq!(report["ssl_enabled"], true);
    assert_eq!(report["ssl_mode"], "verify-full");
    assert_eq!(report["certificate_validation"], "enabled");
    assert_eq!(report["client_certificate"], true);
    assert_eq!(report["ssl_version"].as_str(), version.as_deref());
    assert_eq!(report["ssl_version"], "TLSv1.3");
    assert_eq!(report["ssl_cipher"].as_str(), cipher.as_deref());
}

#[tokio::test]
async fn verify_full_refuses_a_certificate_for_another_host_and_verify_ca_accepts_it() {
    let cluster = test_cluster::shared().await;
    // The server certificate names `localhost` only; 127.0.0.1 is the same server under a name
    // the certificate does not carry.
    let error = connect_error(cluster.target("127.0.0.1", cluster.tls(SslMode::VerifyFull))).await;
    assert!(error.contains("certificate verify failed") && error.contains("name the host"), "{error}");

    let verify_ca = cluster.target("127.0.0.1", cluster.tls(SslMode::VerifyCa)).expect("target");
    assert!(server_ssl_view(&verify_ca).await.0);
    let verify_full = cluster.target("localhost", cluster.tls(SslMode::VerifyFull)).expect("target");
    assert!(server_ssl_view(&verify_full).await.0);

    // Without DB_SSL_MODE or sslmode, an external database is held to verify-full.
    let certs = &cluster.certs.ours;
    let path = |p: &std::path::Path| p.to_str().expect("utf-8 path").to_owned();
    let by_address = cluster.url("postgres").replace("@localhost:", "@127.0.0.1:");
    let unconfigured = Config::for_tests(&[
        ("STORE", "postgres"),
        ("DATABASE_URL", &by_address),
        ("DB_SSL_CA_CERT", &path(&certs.ca_cert)),
        ("DB_SSL_CLIENT_CERT", &path(&certs.client_cert)),
        ("DB_SSL_CLIENT_KEY", &path(&certs.client_key)),
    ])
    .expect("valid");
    let error = Adapters::from_config(&unconfigured).await.err().expect("host name checked by default").to_string();
    assert!(error.contains("certificate verify failed") && error.contains("name the host"), "{error}");
}

#[tokio::test]
async fn verify_ca_refuses_a_server_of_another_ca_and_require_encrypts_without_checking() {
    let cluster = test_cluster::shared().await;
    let foreign_ca =
        DbTlsSettings { ca_cert: Some(cluster.certs.foreign_ca_cert.clone()), ..cluster.tls(SslMode::VerifyCa) };
    let error = connect_error(cluster.target("localhost", foreign_ca.clone())).await;
    assert!(error.contains("certificate verify failed") && error.contains("DB_SSL_CA_CERT"), "{error}");

    let require = cluster.target("localhost", DbTlsSettings { mode: SslMode::Require, ..foreign_ca }).expect("target");
    let (ssl, version, _) = server_ssl_view(&require).await;
    assert!(ssl, "require encrypts");
    assert_eq!(version.as_deref(), Some("TLSv1.3"));
}

#[tokio::test]
async fn disable_against_a_tls_only_server_fails_with_a_clear_error() {
    let cluster = test_cluster::shared().await;
    let error = connect_error(cluster.target("localhost", cluster.tls(SslMode::Disable))).await;
    assert!(error.contains("no pg_hba.conf entry"), "{error}");
    assert!(error.contains("accepts only encrypted connections; DB_SSL_MODE=disable"), "{error}");
}

#[tokio::test]
async fn mutual_tls_admits_only_clients_with_a_certificate_of_the_ca() {
    let cluster = test_cluster::shared().await;
    let anonymous = DbTlsSettings { client_cert: None, client_key: None, ..cluster.tls(SslMode::VerifyFull) };
    let error = connect_error(cluster.target("localhost", anonymous)).await;
    assert!(error.contains("certificate"), "{error}");

    let foreign_client = DbTlsSettings {
        client_cert: Some(cluster.certs.foreign_client_cert.clone()),
        client_key: Some(cluster.certs.foreign_client_key.clone()),
        ..cluster.tls(SslMode::VerifyFull)
    };
    assert!(cluster.target("localhost", foreign_client).expect("target").connect().await.is_err());

    let (ssl, ..) =
        server_ssl_view(&cluster.target("localhost", cluster.tls(SslMode::VerifyFull)).expect("target")).await;
    assert!(ssl);
}

#[tokio::test]
async fn client_certificate_problems_stop_the_start_up_naming_the_variable() {
    let cluster = test_cluster::shared().await;
    let url = cluster.url("postgres");
    let certs = &cluster.certs;
    let ca = certs.ours.ca_cert.to_str().expect("utf-8 path");
    let cert = certs.ours.client_cert.to_str().expect("utf-8 path");

    let without_key = Config::for_tests(&[
        ("STORE", "postgres"),
        ("DATABASE_URL", &url),
        ("DB_SSL_MODE", "verify-full"),
        ("DB_SSL_CA_CERT", ca),
        ("DB_SSL_CLIENT_CERT", cert),
    ])
    .expect_err("a certificate without its key");
    assert_eq!(without_key.variable, "DB_SSL_CLIENT_KEY");

    let foreign_key = certs.foreign_client_key.to_str().expect("utf-8 path");
    let mismatched = Config::for_tests(&[
        ("STORE", "postgres"),
        ("DATABASE_URL", &url),
        ("DB_SSL_MODE", "verify-full"),
        ("DB_SSL_CA_CERT", ca),
        ("DB_SSL_CLIENT_CERT", cert),
        ("DB_SSL_CLIENT_KEY", foreign_key),
    ])
    .expect("the variables are individually valid");
    let error = Adapters::from_config(&mismatched).await.err().expect("a key of another certificate").to_string();
    assert!(error.starts_with("invalid DB_SSL_CLIENT_KEY") && error.contains("does not belong"), "{error}");

    let own_key = certs.ours.client_key.to_str().expect("utf-8 path");
    let matching = Config::for_tests(&[
        ("STORE", "postgres"),
        ("DATABASE_URL", &format!("{url}?sslmode=verify-full")),
        ("DB_SSL_CA_CERT", ca),
        ("DB_SSL_CLIENT_CERT", cert),
        ("DB_SSL_CLIENT_KEY", own_key),
    ])
    .expect("valid");
    let app = Application::build(matching).await.expect("the service starts on the configured database");
    assert_ne!(app.port(), 0);
}

#[tokio::test]
async fn a_server_without_tls_is_refused_when_tls_is_required_and_reported_when_allowed() {
    let plain = TestCluster::start(ClientAuth::PlainTrust).await;
    // A DATABASE_URL with no TLS setting at all means verify-full: plain text is refused.
    let unconfigured = Config::for_tests(&[("STORE", "postgres"), ("DATABASE_URL", &plain.url("postgres"))])
        .expect("a bare URL is a valid configuration");
    let error = Adapters::from_config(&unconfigured).await.err().expect("plain text refused by default").to_string();
    assert!(error.contains("DB_SSL_MODE=verify-full refuses a plain connection"), "{error}");
    let no_certs = DbTlsSettings { ca_cert: None, client_cert: None, client_key: None, ..plain.tls(SslMode::Prefer) };

    let required = DbTlsSettings { required: true, ..no_certs.clone() };
    let error = connect_error(plain.target("localhost", required)).await;
    assert!(error.contains("DB_SSL_REQUIRED=true refuses a plain connection"), "{error}");
    let error =
        connect_error(plain.target("localhost", DbTlsSettings { mode: SslMode::Require, ..no_certs.clone() })).await;
    assert!(error.contains("offers no TLS"), "{error}");

    // prefer falls back to plain text when the server offers no TLS, and the report says so.
    let prefer = plain.target("localhost", no_certs).expect("target");
    let app = spawn_app_around(Adapters::on_postgres(&prefer, 2).await.expect("store"), &[], |_| {}).await;
    let response = app.get("/health/database/ssl", None).await;
    assert_eq!(response.status(), 200);
    let report: Value = response.json().await.expect("json");
    assert_eq!((report["status"].as_str(), report["ssl_enabled"].as_bool()), (Some("healthy"), Some(false)));
    assert!(report["message"].as_str().is_some_and(|m| m.contains("not encrypted")), "{report}");
}

#[tokio::test]
async fn the_ssl_report_is_503_while_the_database_is_down_and_healthy_again_after_it_restarts() {
    let cluster = TestCluster::start(ClientAuth::Certificate).await;
    let target = cluster.fresh_database().await;
    let app = spawn_app_around(Adapters::on_postgres(&target, 2).await.expect("store"), &[], |_| {}).await;
    assert_eq!(app.get("/health/database/ssl", None).await.status(), 200);

    cluster.server.stop().await.expect("stop");
    let response = app.get("/health/database/ssl", None).await;
    assert_eq!(response.status(), 503);
    let report: Value = response.json().await.expect("json");
    assert_eq!(report["status"], "unhealthy");
    assert!(report["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(app.get("/health/ready", None).await.status(), 503);

    cluster.server.restart().await.expect("restart");
    let mut status = 0;
    for _ in 0..20 {
        status = app.get("/health/database/ssl", None).await.status().as_u16();
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(status, 200, "the pool reconnects by itself");
    assert_eq!(app.get("/health/ready", None).await.status(), 200);
}

#[tokio::test]
async fn instances_sharing_a_database_share_each_users_workflow_budget() {
    let cluster = test_cluster::shared().await;
    let target = cluster.fresh_database().await;
    let shared = || async {
        Adapters::on_postgres_with(&target, 4, creditflow::config::RateLimitStore::Postgres).await.expect("store")
    };
    let limit = [("RATE_LIMIT_PER_MINUTE", "4")];
    let first = spawn_app_around(shared().await, &limit, |_| {}).await;
    let second = spawn_app_around(shared().await, &limit, |_| {}).await;
    let token = first.token_for("analyst").await;
    let body = serde_json::json!({ "text": "CREDIT AGREEMENT dated as of March 15, 2024" });

    let mut statuses = Vec::new();
    for round in 0..6 {
        let app = if round % 2 == 0 { &first } else { &second };
        statuses.push(app.post("/api/extract", Some(&token), &body).await.status().as_u16());
    }

    assert_eq!(statuses, [200, 200, 200, 200, 429, 429], "one budget across both instances");
}

#[tokio::test]
async fn chat_turns_launches_and_people_results_are_kept_on_postgres() {
    let cluster = test_cluster::shared().await;
    // No web search: the people workflow consults only the caller's documents (none here).
    let app = spawn_app_around(cluster.fresh_adapters().await, &[], |adapters| adapters.web_search = Vec::new()).await;
    let token = app.token_for("analyst").await;

    let ipip: Vec<u8> = vec![3; 50];
    let params = serde_json::json!({ "person_name": "Jane Doe", "ipip_responses": ipip });
    let launched = crate::people::launch_people(&app, &token, params, Some(31)).await;
    let people_id = launched["workflow_result"]["people_id"].as_str().expect("people id").to_owned();
    assert_eq!(launched["workflow_result"]["psychometric_profile"]["traits"]["openness"]["score"], 50.0);
    assert_eq!(launched["workflow_result"]["research_summary"]["found"], false, "{launched}");

    let stored = app.get(&format!("/api/people/results/{people_id}"), Some(&token)).await;
    assert_eq!(stored.status(), 200);
    let stored: Value = stored.json().await.expect("json");
    assert_eq!(stored["psychometric_profile"], launched["workflow_result"]["psychometric_profile"]);
    let listed: Value = app.get("/api/people/results?deal_id=31", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 1, "{listed}");

    let session_id = app.chat_session(&token, "people-tests").await;
    for message in ["thanks", "what can you do?"] {
        let turn = serde_json::json!({ "message": message, "session_id": session_id });
        let reply = app.post("/api/digitizer-chatbot/chat", Some(&token), &turn).await;
        assert_eq!(reply.status(), 200);
        crate::cdm_events::record(&reply.json::<Value>().await.expect("json"));
    }
    let session: Value = app
        .get(&format!("/api/digitizer-chatbot/sessions/{session_id}"), Some(&token))
        .await
        .json()
        .await
        .expect("json");
    let messages = session["messages"].as_array().expect("messages");
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, ["assistant", "user", "assistant", "user", "assistant"], "{session}");
    assert_eq!(messages[0]["workflow_result"]["people_id"], people_id.as_str());
    assert_eq!(messages[3]["content"], "what can you do?");

    let stranger = app.token_for("analyst").await;
    let foreign = serde_json::json!({ "message": "thanks", "session_id": session_id });
    assert_error(app.post("/api/digitizer-chatbot/chat", Some(&stranger), &foreign).await, 404).await;
}

/// Migration 0017 fills `document_usage` from the documents already stored: the same figures the
/// writes themselves keep.
#[tokio::test]
async fn the_document_usage_backfill_counts_what_the_writes_count() {
    use creditflow::domain::auth::UserId;
    use creditflow::ports::documents::DocumentRepository;

    let target = test_cluster::shared().await.fresh_database().await;
    let store = PostgresStore::open(&target, 2).await.expect("store opens");
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let now = time::OffsetDateTime::now_utc();
    for (owner, text) in [(alice, "a".repeat(100)), (alice, "b".repeat(250)), (bob, "c".repeat(40))] {
        store.create(store_contract::new_document(owner, "Agreement", &text, "Acme Corp", now)).await.expect("create");
    }
    let client = target.connect().await.expect("connect");
    let usage = || async {
        let rows = client
            .query("SELECT owner_id, documents, bytes FROM document_usage ORDER BY owner_id", &[])
            .await
            .expect("usage");
        rows.iter()
            .map(|row| (row.get::<_, uuid::Uuid>(0), row.get::<_, i64>(1), row.get::<_, i64>(2)))
            .collect::<Vec<_>>()
    };
    let kept_by_the_writes = usage().await;
    assert_eq!(kept_by_the_writes.len(), 2);
    assert!(
        kept_by_the_writes
            .iter()
            .any(|&(owner, documents, bytes)| owner == alice.as_uuid() && documents == 2 && bytes == 350)
    );

    let migration = include_str!("../../src/adapters/postgres/migrations/0017_document_usage.sql");
    let backfill = &migration[migration.find("INSERT INTO").expect("the backfill")..];
    client.batch_execute("DELETE FROM document_usage").await.expect("emptied");
    client.batch_execute(backfill).await.expect("backfilled");
    assert_eq!(usage().await, kept_by_the_writes);
}

/// Migration 0019 counts the statement sets already stored in their owners' usage, each for the
/// bytes it then keeps in `stored_bytes`: deleting every set brings the usage back to nothing.
#[tokio::test]
async fn the_statement_set_backfill_counts_what_deleting_gives_back() {
    use creditflow::domain::auth::UserId;
    use creditflow::domain::documents::{Deletion, DocumentQuota};
    use creditflow::ports::statement_sets::StatementSetRepository;

    let target = test_cluster::shared().await.fresh_database().await;
    let store = PostgresStore::open(&target, 2).await.expect("store opens");
    let alice = UserId::new_random();
    let now = time::OffsetDateTime::now_utc();
    let sets = [
        store_contract::statement_set(alice, "Northwind GmbH", Some(3), now),
        store_contract::statement_set(alice, "Contoso", None, now),
    ];
    for set in &sets {
        store.create(set.clone(), DocumentQuota::UNLIMITED).await.expect("create");
    }
    let client = target.connect().await.expect("connect");
    // The database as it was before 0019: sets uncounted.
    client
        .batch_execute("UPDATE statement_sets SET stored_bytes = 0; DELETE FROM document_usage")
        .await
        .expect("reset");
    let migration = include_str!("../../src/adapters/postgres/migrations/0019_bounded_statement_sets.sql");
    let backfill = &migration[migration.find("UPDATE statement_sets").expect("backfill")
        ..migration.find("CREATE TABLE deletions").expect("then the trail")];
    client.batch_execute(backfill).await.expect("backfilled");
    let usage = || async {
        let row = client
            .query_one(
                "SELECT documents, statement_sets, bytes FROM document_usage WHERE owner_id = $1",
                &[&alice.as_uuid()],
            )
            .await
            .expect("usage");
        (row.get::<_, i64>(0), row.get::<_, i64>(1), row.get::<_, i64>(2))
    };
    let (documents, statement_sets, bytes) = usage().await;
    assert_eq!((documents, statement_sets), (0, 2));
    assert!(bytes > 0, "the sets' bytes are counted");

    for set in &sets {
        store.delete(set.id, Deletion { actor: alice, at: now }).await.expect("delete").expect("it was there");
    }
    assert_eq!(usage().await, (0, 0, 0));
}
