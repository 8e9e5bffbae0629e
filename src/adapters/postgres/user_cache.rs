//! Users cached in process in front of the PostgreSQL store, so that an authenticated request
//! (which reads its user to check the token version, the disabled flag and the role) costs no
//! database round trip.
//!
//! A cached copy is dropped at once when the user changes:
//! - on this instance, by every write that goes through [`CachedUsers`] (whatever its outcome: a
//!   write that failed after its commit may still have happened);
//! - on every instance, by the announcement of the change that PostgreSQL sends at commit
//!   (migration 0018, received by [`super::user_changes`]).
//!
//! Copies are served only while those announcements are being received: until the listener has
//! subscribed, and from the moment it loses its connection until it has subscribed again, every
//! read goes to the store and the cache is emptied (what changed meanwhile was not announced
//! to it). A short time to live bounds the staleness should an announcement be lost anyway.
//!
//! Reads that raced with a change cannot put back what the change replaced: every drop moves a
//! generation on, and a copy read before the move is not kept. Only users that exist are kept
//! (an absence is never cached), and only [`UserRepository::find_by_id`] fills the cache, which
//! the service calls after a token's signature has been verified, so forged tokens cannot grow
//! it; it also holds at most `capacity` users.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;

use crate::domain::auth::ethereum::EthAddress;
use crate::domain::auth::{EmailAddress, NewUser, User, UserChanges, UserId};
use crate::ports::clock::Clock;
use crate::ports::store::{CreateUserError, StoreError, UserRepository};

/// A [`UserRepository`] that answers [`UserRepository::find_by_id`] from memory while it can
/// trust its copies, and passes everything else to the store.
pub struct CachedUsers {
    store: Arc<dyn UserRepository>,
    clock: Arc<dyn Clock>,
    ttl_ms: i64,
    capacity: usize,
    cache: Arc<Shared>,
}

/// The handle by which the listener of announced changes tells the cache what it knows.
#[derive(Clone)]
pub struct UserCacheControl(Arc<Shared>);

struct Shared(Mutex<Entries>);

struct Entries {
    users: HashMap<UserId, Cached>,
    /// Moves on at every drop; a copy read under an older generation is not kept.
    generation: u64,
    /// Whether changes are being announced to this instance, so that copies may be served.
    trusted: bool,
}

struct Cached {
    user: Arc<User>,
    /// When the store was asked (before its answer: the copy is no newer than that).
    read_at_ms: i64,
}

impl Shared {
    fn entries(&self) -> MutexGuard<'_, Entries> {
        // Every critical section leaves the map consistent (single inserts, removals, clears),
        // so a lock poisoned by a panic elsewhere is still safe to use.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn drop_user(&self, id: UserId) {
        let mut entries = self.entries();
        entries.users.remove(&id);
        entries.generation += 1;
    }

    fn drop_all(&self, trusted: bool) {
        let mut entries = self.entries();
        entries.users.clear();
        entries.generation += 1;
        entries.trusted = trusted;
    }
}

impl CachedUsers {
    /// A cache in front of `store` that keeps a user at most `ttl` (by `clock`) and at most
    /// `capacity` users. It serves nothing until [`UserCacheControl::trust`] is called.
    pub fn new(store: Arc<dyn UserRepository>, clock: Arc<dyn Clock>, ttl: Duration, capacity: usize) -> Self {
        let cache = Shared(Mutex::new(Entries { users: HashMap::new(), generation: 0, trusted: false }));
        Self {
            store,
            clock,
            ttl_ms: i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX),
            capacity: capacity.max(1),
            cache: Arc::new(cache),
        }
    }

    /// The handle the listener of announced changes drives this cache with.
    pub fn control(&self) -> UserCacheControl {
        UserCacheControl(self.cache.clone())
    }

    /// The cached copy of `id` if it may be served, or the generation to fill it under;
    /// `Err(())` when copies may not be served at all.
    fn lookup(&self, id: UserId, now_ms: i64) -> Result<Result<User, u64>, ()> {
        let mut entries = self.cache.entries();
        if !entries.trusted {
            return Err(());
        }
        let fresh = match entries.users.get(&id) {
            // A clock that went back makes the age negative: not trusted either.
            Some(cached) => (0..self.ttl_ms).contains(&(now_ms - cached.read_at_ms)).then(|| cached.user.clone()),
            None => return Ok(Err(entries.generation)),
        };
        match fresh {
            Some(user) => {
                drop(entries);
                Ok(Ok(User::clone(&user)))
            }
            None => {
                entries.users.remove(&id);
                Ok(Err(entries.generation))
            }
        }
    }

    /// Keeps `user`, read at `read_at_ms` under `generation`, unless something was dropped since.
    fn fill(&self, user: &User, generation: u64, read_at_ms: i64) {
        let mut entries = self.cache.entries();
        if !entries.trusted || entries.generation != generation {
            return;
        }
        if entries.users.len() >= self.capacity && !entries.users.contains_key(&user.id) {
            // Any one goes: the users an instance serves are few, so this only happens under
            // unusual load, and then one re-read is the whole cost.
            if let Some(evicted) = entries.users.keys().next().copied() {
                entries.users.remove(&evicted);
            }
        }
        entries.users.insert(user.id, Cached { user: Arc::new(user.clone()), read_at_ms });
    }
}

impl UserCacheControl {
    /// Changes are announced from now on (the listener has subscribed): empty the cache, since
    /// what changed before was not announced to it, and serve copies from now on.
    pub fn trust(&self) {
        self.0.drop_all(true);
    }

    /// Changes may go unannounced (the listener is not subscribed): empty the cache and read the
    /// store until [`Self::trust`].
    pub fn distrust(&self) {
        self.0.drop_all(false);
    }

    /// User `id` changed.
    pub fn user_changed(&self, id: UserId) {
        self.0.drop_user(id);
    }

    /// Users changed in ways the announcement does not name one by one.
    pub fn all_changed(&self) {
        let trusted = self.0.entries().trusted;
        self.0.drop_all(trusted);
    }

    /// Whether copies are being served (changes are announced to this instance).
    pub fn is_trusted(&self) -> bool {
        self.0.entries().trusted
    }
}

#[async_trait]
impl UserRepository for CachedUsers {
    async fn create(&self, user: NewUser) -> Result<User, CreateUserError> {
        let id = user.id;
        let created = self.store.create(user).await;
        self.cache.drop_user(id);
        created
    }

    async fn find_by_id(&self, id: UserId) -> Result<Option<User>, StoreError> {
        let now_ms = self.clock.now_ms();
        let generation = match self.lookup(id, now_ms) {
            Ok(Ok(user)) => return Ok(Some(user)),
            Ok(Err(generation)) => generation,
            Err(()) => return self.store.find_by_id(id).await,
        };
        let user = self.store.find_by_id(id).await?;
        if let Some(user) = &user {
            self.fill(user, generation, now_ms);
        }
        Ok(user)
    }

    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<User>, StoreError> {
        self.store.find_by_email(email).await
    }

    async fn find_by_wallet(&self, address: &EthAddress) -> Result<Option<User>, StoreError> {
        self.store.find_by_wallet(address).await
    }

    async fn update(&self, id: UserId, changes: UserChanges) -> Result<Option<User>, StoreError> {
        let updated = self.store.update(id, changes).await;
        self.cache.drop_user(id);
        updated
    }

    async fn revoke_access_tokens(&self, id: UserId) -> Result<bool, StoreError> {
        let revoked = self.store.revoke_access_tokens(id).await;
        self.cache.drop_user(id);
        revoked
    }

    async fn list(&self) -> Result<Vec<User>, StoreError> {
        self.store.list().await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use time::OffsetDateTime;
    use time::macros::datetime;

    use super::*;
    use crate::adapters::clock::ManualClock;
    use crate::adapters::memory::MemoryStore;
    use crate::domain::auth::Role;

    const TTL: Duration = Duration::from_secs(10);

    /// The memory store, counting the reads by id that reach it; once `hold` is set, its next read
    /// by id waits for the test to let it finish, so that a change can be made while that read is
    /// on its way.
    #[derive(Default)]
    struct CountingStore {
        store: MemoryStore,
        reads_by_id: AtomicUsize,
        hold: std::sync::atomic::AtomicBool,
        reading: tokio::sync::Notify,
        finish: tokio::sync::Notify,
    }

    #[async_trait]
    impl UserRepository for CountingStore {
        async fn create(&self, user: NewUser) -> Result<User, CreateUserError> {
            self.store.create(user).await
        }
        async fn find_by_id(&self, id: UserId) -> Result<Option<User>, StoreError> {
            self.reads_by_id.fetch_add(1, Ordering::SeqCst);
            let read = self.store.find_by_id(id).await;
            if self.hold.swap(false, Ordering::SeqCst) {
                self.reading.notify_one();
                self.finish.notified().await;
            }
            read
        }
        async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<User>, StoreError> {
            self.store.find_by_email(email).await
        }
        async fn find_by_wallet(&self, address: &EthAddress) -> Result<Option<User>, StoreError> {
            self.store.find_by_wallet(address).await
        }
        async fn update(&self, id: UserId, changes: UserChanges) -> Result<Option<User>, StoreError> {
            self.store.update(id, changes).await
        }
        async fn revoke_access_tokens(&self, id: UserId) -> Result<bool, StoreError> {
            self.store.revoke_access_tokens(id).await
        }
        async fn list(&self) -> Result<Vec<User>, StoreError> {
            self.store.list().await
        }
    }

    impl CountingStore {
        fn reads(&self) -> usize {
            self.reads_by_id.load(Ordering::SeqCst)
        }
    }

    const START: OffsetDateTime = datetime!(2026-06-01 12:00 UTC);

    struct Fixture {
        store: Arc<CountingStore>,
        clock: Arc<ManualClock>,
        cache: CachedUsers,
    }

    fn fixture(capacity: usize) -> Fixture {
        let store = Arc::new(CountingStore::default());
        let clock = Arc::new(ManualClock::starting_at(START));
        let cache = CachedUsers::new(store.clone(), clock.clone(), TTL, capacity);
        Fixture { store, clock, cache }
    }

    async fn user(fixture: &Fixture) -> User {
        let email = EmailAddress::new(&format!("{}@example.com", UserId::new_random())).expect("email");
        let user = NewUser {
            id: UserId::new_random(),
            email: Some(email),
            password_hash: None,
            role: Role::Admin,
            wallet_address: None,
            created_at: START,
        };
        fixture.store.create(user).await.expect("created")
    }

    async fn read(fixture: &Fixture, id: UserId) -> User {
        fixture.cache.find_by_id(id).await.expect("read").expect("exists")
    }

    #[tokio::test]
    async fn a_trusted_cache_reads_a_user_from_the_store_once_within_the_ttl_and_again_after() {
        let fixture = fixture(100);
        fixture.cache.control().trust();
        let user = user(&fixture).await;

        assert_eq!(read(&fixture, user.id).await, user);
        fixture.clock.advance(time::Duration::seconds(9));
        assert_eq!(read(&fixture, user.id).await, user);
        assert_eq!(fixture.store.reads(), 1, "the second read is served from memory");

        fixture.clock.advance(time::Duration::seconds(1));
        assert_eq!(read(&fixture, user.id).await, user);
        assert_eq!(fixture.store.reads(), 2, "a copy as old as the TTL is read again");
    }

    #[tokio::test]
    async fn a_copy_is_not_served_after_the_clock_went_back() {
        let fixture = fixture(100);
        fixture.cache.control().trust();
        let user = user(&fixture).await;
        read(&fixture, user.id).await;
        fixture.clock.advance(time::Duration::seconds(-1));
        read(&fixture, user.id).await;
        assert_eq!(fixture.store.reads(), 2);
    }

    #[tokio::test]
    async fn sign_out_disabling_and_demotion_through_the_cache_are_seen_by_the_next_read() {
        let fixture = fixture(100);
        fixture.cache.control().trust();
        let user = user(&fixture).await;
        read(&fixture, user.id).await;

        assert!(fixture.cache.revoke_access_tokens(user.id).await.expect("revoked"));
        assert_eq!(read(&fixture, user.id).await.token_version, user.token_version + 1);
        fixture.cache.update(user.id, UserChanges { role: None, disabled: Some(true) }).await.expect("updated");
        assert!(read(&fixture, user.id).await.disabled);
        fixture.cache.update(user.id, UserChanges { role: Some(Role::Viewer), disabled: None }).await.expect("updated");
        assert_eq!(read(&fixture, user.id).await.role, Role::Viewer);
        assert_eq!(fixture.store.reads(), 4, "each write dropped the copy");
        read(&fixture, user.id).await;
        assert_eq!(fixture.store.reads(), 4, "and the next read kept the new one");
    }

    #[tokio::test]
    async fn an_announced_change_drops_that_user_only() {
        let fixture = fixture(100);
        let control = fixture.cache.control();
        control.trust();
        let (changed, unchanged) = (user(&fixture).await, user(&fixture).await);
        read(&fixture, changed.id).await;
        read(&fixture, unchanged.id).await;
        // Another instance signs the user out: the store changes behind this cache's back.
        fixture.store.revoke_access_tokens(changed.id).await.expect("revoked");
        assert_eq!(read(&fixture, changed.id).await.token_version, changed.token_version, "not announced yet");

        control.user_changed(changed.id);
        assert_eq!(read(&fixture, changed.id).await.token_version, changed.token_version + 1);
        read(&fixture, unchanged.id).await;
        assert_eq!(fixture.store.reads(), 3, "the other user's copy was kept");

        control.all_changed();
        read(&fixture, unchanged.id).await;
        assert_eq!(fixture.store.reads(), 4);
    }

    #[tokio::test]
    async fn nothing_is_served_or_kept_until_the_listener_subscribes_nor_while_it_is_down() {
        let fixture = fixture(100);
        let control = fixture.cache.control();
        let user = user(&fixture).await;
        read(&fixture, user.id).await;
        read(&fixture, user.id).await;
        assert_eq!(fixture.store.reads(), 2, "not subscribed yet: every read goes to the store");

        control.trust();
        read(&fixture, user.id).await;
        read(&fixture, user.id).await;
        assert_eq!(fixture.store.reads(), 3);

        control.distrust();
        assert!(!control.is_trusted());
        // Changed while nobody listened: the change is never announced to this cache.
        fixture.store.update(user.id, UserChanges { role: None, disabled: Some(true) }).await.expect("updated");
        assert!(read(&fixture, user.id).await.disabled, "the store is read while the listener is down");
        assert!(read(&fixture, user.id).await.disabled);
        assert_eq!(fixture.store.reads(), 5);

        control.trust();
        assert!(read(&fixture, user.id).await.disabled, "after subscribing again, no copy from before");
        assert_eq!(fixture.store.reads(), 6);
    }

    #[tokio::test]
    async fn a_read_that_raced_with_a_change_does_not_put_the_old_copy_back() {
        let store = Arc::new(CountingStore::default());
        store.hold.store(true, Ordering::SeqCst);
        let clock = Arc::new(ManualClock::starting_at(START));
        let cache = Arc::new(CachedUsers::new(store.clone(), clock, TTL, 100));
        cache.control().trust();
        let new_user = NewUser {
            id: UserId::new_random(),
            email: None,
            password_hash: None,
            role: Role::Analyst,
            wallet_address: None,
            created_at: START,
        };
        let user = store.store.create(new_user).await.expect("created");

        let racing = tokio::spawn({
            let cache = cache.clone();
            async move { cache.find_by_id(user.id).await }
        });
        store.reading.notified().await;
        // The old row has been read; now the user signs out elsewhere and it is announced.
        store.store.revoke_access_tokens(user.id).await.expect("revoked");
        cache.control().user_changed(user.id);
        store.finish.notify_one();
        let raced = racing.await.expect("joined").expect("read").expect("exists");
        assert_eq!(raced.token_version, user.token_version, "the racing read answers what it read");

        let after = cache.find_by_id(user.id).await.expect("read").expect("exists");
        assert_eq!(after.token_version, user.token_version + 1, "the old copy was not kept");
    }

    #[tokio::test]
    async fn the_cache_holds_at_most_its_capacity_and_never_an_absence() {
        let fixture = fixture(2);
        fixture.cache.control().trust();
        let users = [user(&fixture).await, user(&fixture).await, user(&fixture).await];
        for user in &users {
            read(&fixture, user.id).await;
        }
        assert_eq!(fixture.cache.cache.entries().users.len(), 2);

        let unknown = UserId::new_random();
        assert_eq!(fixture.cache.find_by_id(unknown).await.expect("read"), None);
        assert_eq!(fixture.cache.find_by_id(unknown).await.expect("read"), None);
        assert!(!fixture.cache.cache.entries().users.contains_key(&unknown));
        assert_eq!(fixture.store.reads(), 5, "an unknown id is asked of the store every time");
    }
}
