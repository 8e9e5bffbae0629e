//! Users cached in process on PostgreSQL: two instances on one database, each serving the users it
//! has read from memory (with a time to live far longer than the tests), and a sign-out, disabling
//! or demotion on one refused by the other at once, because the database announces the change;
//! a listener cut off serves nothing until it listens again; and the user repository's contract
//! through the cache.

use std::sync::Arc;
use std::time::{Duration, Instant};

use creditflow::Adapters;
use creditflow::adapters::clock::SystemClock;
use creditflow::adapters::memory::MemoryStore;
use creditflow::adapters::postgres::{CachedUsers, PostgresStore, UserChangeListener};
use creditflow::domain::health::db_ssl::SslMode;
use creditflow::ports::store::UserRepository;
use reqwest::Method;
use serde_json::{Value, json};
use tokio_postgres::Client;
use uuid::Uuid;

use crate::helpers::*;
use crate::store_contract;
use crate::test_cluster;

/// Far longer than any test: a change seen within [`AT_ONCE`] was announced, not expired.
const LONG_TTL: [(&str, &str); 1] = [("USER_CACHE_TTL", "1h")];
/// What "at once" means here: an announcement's way through the database and the listener, with
/// room for a loaded test machine; far below the time to live.
const AT_ONCE: Duration = Duration::from_secs(2);

/// Two instances of the service on one fresh database, and a connection to it.
async fn two_instances() -> (TestApp, TestApp, Client) {
    let target = test_cluster::shared().await.fresh_database().await;
    let first = spawn_app_around(Adapters::on_postgres(&target, 4).await.expect("store"), &LONG_TTL, |_| {}).await;
    let second = spawn_app_around(Adapters::on_postgres(&target, 4).await.expect("store"), &LONG_TTL, |_| {}).await;
    let db = target.connect().await.expect("connects");
    (first, second, db)
}

/// A user with `role` created and signed in on `app`: their id and the sign-in's token response.
async fn signed_in_user(app: &TestApp, role: &str) -> (Uuid, Value) {
    let session = app.sign_in(&app.create_user(role).await, PASSWORD).await;
    let id = session["user"]["id"].as_str().and_then(|id| id.parse().ok()).expect("user id");
    (id, session)
}

/// Sets user `id`'s disabled flag; `announced: false` writes it with the announcing trigger off,
/// as a replica would, so that no instance hears of it.
async fn set_disabled(db: &mut Client, id: Uuid, disabled: bool, announced: bool) {
    let transaction = db.transaction().await.expect("begin");
    if !announced {
        transaction.batch_execute("SET LOCAL session_replication_role = replica").await.expect("triggers off");
    }
    let updated =
        transaction.execute("UPDATE users SET disabled = $2 WHERE id = $1", &[&id, &disabled]).await.expect("update");
    assert_eq!(updated, 1);
    transaction.commit().await.expect("commit");
}

async fn me(app: &TestApp, token: &str) -> u16 {
    app.get("/api/auth/me", Some(token)).await.status().as_u16()
}

/// Waits until `app` answers `token` from its cached copy of user `id`, so that what follows
/// proves the cache right rather than passing by reading the store. The probe disables the user
/// unannounced: an instance that reads the store refuses the token, one that serves its copy
/// does not. The user is then enabled again: unannounced when the copy was served (it is right
/// again), announced otherwise, so that a copy of the disabled user read meanwhile is dropped.
async fn wait_until_served_from_cache(app: &TestApp, token: &str, db: &mut Client, id: Uuid) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let before = me(app, token).await;
        set_disabled(db, id, true, false).await;
        let while_disabled = me(app, token).await;
        let served_from_cache = (before, while_disabled) == (200, 200);
        set_disabled(db, id, false, !served_from_cache).await;
        if served_from_cache {
            return;
        }
        assert!(Instant::now() < deadline, "the instance never served its cached copy: is it listening?");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Asks `app` about `token` until it answers `status`, and asserts that came within [`AT_ONCE`].
async fn refused_at_once(app: &TestApp, token: &str, status: u16) {
    let started = Instant::now();
    loop {
        let answered = me(app, token).await;
        if answered == status {
            return;
        }
        assert_eq!(answered, 200, "only the cached answer or the refusal are expected");
        assert!(started.elapsed() < AT_ONCE, "still answered 200 after {:?}", started.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_sign_out_on_one_instance_refuses_the_token_on_another_at_once() {
    let (first, second, mut db) = two_instances().await;
    let (id, session) = signed_in_user(&first, "analyst").await;
    let token = access_token(&session);
    wait_until_served_from_cache(&second, &token, &mut db, id).await;

    let logout =
        first.post("/api/auth/logout", Some(&token), &json!({ "refresh_token": refresh_token(&session) })).await;
    assert_eq!(logout.status(), 204);

    refused_at_once(&second, &token, 401).await;
}

#[tokio::test]
async fn disabling_on_one_instance_refuses_the_token_on_another_at_once() {
    let (first, second, mut db) = two_instances().await;
    let (id, session) = signed_in_user(&first, "analyst").await;
    let token = access_token(&session);
    wait_until_served_from_cache(&second, &token, &mut db, id).await;

    let admin = first.admin_token().await;
    let path = format!("/api/admin/users/{id}");
    let disabled = first.request(Method::PATCH, &path, Some(&admin), Some(&json!({ "disabled": true }))).await;
    assert_eq!(disabled.status(), 200);

    refused_at_once(&second, &token, 403).await;
}

#[tokio::test]
async fn a_demotion_on_one_instance_refuses_the_token_on_another_at_once() {
    let (first, second, mut db) = two_instances().await;
    let (id, session) = signed_in_user(&first, "admin").await;
    let token = access_token(&session);
    wait_until_served_from_cache(&second, &token, &mut db, id).await;

    let admin = first.admin_token().await;
    let path = format!("/api/admin/users/{id}");
    let demoted = first.request(Method::PATCH, &path, Some(&admin), Some(&json!({ "role": "viewer" }))).await;
    assert_eq!(demoted.status(), 200);

    refused_at_once(&second, &token, 401).await;
    let again = second.sign_in(session["user"]["email"].as_str().expect("email"), PASSWORD).await;
    assert_eq!(again["user"]["role"], "viewer");
    let me: Value = second.get("/api/auth/me", Some(&access_token(&again))).await.json().await.expect("json");
    assert_eq!(me["role"], "viewer", "{me}");
}

#[tokio::test]
async fn while_the_listener_is_cut_off_nothing_is_served_from_the_cache_and_it_listens_again() {
    let (first, second, mut db) = two_instances().await;
    let (id, session) = signed_in_user(&first, "analyst").await;
    let token = access_token(&session);
    wait_until_served_from_cache(&second, &token, &mut db, id).await;

    // The listeners lose their connections and cannot open new ones (the pools keep theirs);
    // then the user is disabled unannounced, which an instance sees only by reading the store.
    let database: String = db.query_one("SELECT current_database()", &[]).await.expect("name").get(0);
    let cluster = test_cluster::shared().await;
    let maintenance = cluster.target("localhost", cluster.tls(SslMode::VerifyFull)).expect("target");
    let maintenance = maintenance.connect().await.expect("connects");
    maintenance.batch_execute(&format!("ALTER DATABASE {database} ALLOW_CONNECTIONS false")).await.expect("closed");
    let cut = db
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND application_name = 'creditflow user changes'",
            &[],
        )
        .await
        .expect("terminate");
    assert_eq!(cut, 2, "one listener per instance");
    set_disabled(&mut db, id, true, false).await;
    refused_at_once(&second, &token, 403).await;
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(me(&second, &token).await, 403, "read from the store while the listener is down");
    }

    // The listener reconnects on its own, and the instance serves from its cache again.
    maintenance.batch_execute(&format!("ALTER DATABASE {database} ALLOW_CONNECTIONS true")).await.expect("open");
    set_disabled(&mut db, id, false, true).await;
    wait_until_served_from_cache(&second, &token, &mut db, id).await;
}

#[tokio::test]
async fn the_user_contract_holds_through_the_cache_on_both_stores() {
    let memory = CachedUsers::new(Arc::new(MemoryStore::new()), Arc::new(SystemClock), Duration::from_secs(3600), 100);
    memory.control().trust();
    store_contract::users_are_unique_by_email_and_wallet(Arc::new(memory)).await;

    let target = test_cluster::shared().await.fresh_database().await;
    let store = Arc::new(PostgresStore::open(&target, 1).await.expect("store opens"));
    let cached = CachedUsers::new(store, Arc::new(SystemClock), Duration::from_secs(3600), 100);
    let control = cached.control();
    let listener = tokio::spawn(UserChangeListener::new(target, cached.control()).run());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !control.is_trusted() {
        assert!(Instant::now() < deadline, "the listener did not subscribe");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cached: Arc<dyn UserRepository> = Arc::new(cached);
    store_contract::users_are_unique_by_email_and_wallet(cached).await;
    listener.abort();
}
