//! Connection supervision: which connections the server holds, for how long, and how many.
//!
//! A hostile client must not be able to hold the service with connections that cost it nothing:
//! a header sent a byte at a time (slowloris), a body trickled, a connection opened and left
//! silent, or thousands of them. Each connection is admitted against a global cap and a cap per
//! client address, and watched by a deadline that depends on what it is doing:
//!
//! - waiting for a request's headers (from its opening, or from the first byte after a response):
//!   the header-read timeout;
//! - between requests with nothing received: the idle timeout;
//! - with a request in flight (its handler running or its response streaming): no deadline here;
//!   the body-read timeout bounds reading the request body ([`TimedBody`]).
//!
//! At a cap, the oldest idle connection (no request in flight) of that client, or of anyone for
//! the global cap, is displaced to make room (closed, or refused: below); only when every
//! connection is busy is the new one refused. A flood of idle or half-open connections therefore
//! displaces itself, and a health probe or a sign-in still gets a connection.
//!
//! A refused connection is not just closed: its request is read (within the header-read timeout)
//! and answered `503` with `Retry-After`, so the client learns to wait instead of seeing a reset.
//! The same goes for a connection displaced while its request may be on its way: one waiting for
//! its request for less than [`DISPLACEMENT_GRACE`] may have it in its socket buffer, not yet read
//! (a burst of connections is admitted faster than their requests are parsed), and closing it
//! would reset the client; it is refused instead. Idle keep-alive connections, and connections
//! that have waited longer for their request (slow or silent ones), are closed.
//!
//! Refusals have their own budget, outside the caps (the caps are full by definition): at most
//! `HTTP_MAX_CONNECTIONS_PER_CLIENT` per client and an eighth of `HTTP_MAX_CONNECTIONS` in all.
//! Past it a connection is closed at once, as before: a client that opens connections faster than
//! it is answered holds at most twice its cap, and the service at most 9/8 of its own.
//!
//! When the server closes a connection first, after answering, it lingers: see [`linger`].
//!
//! The request path only stores atomics: the supervisor is not woken per request. It sleeps to
//! its deadline, but never longer than the shorter of the header-read and idle timeouts, and
//! recomputes on waking, so a deadline set by a request starting or ending while it sleeps is
//! still met (it is at least that far away); only a
//! supervisor parked on an in-flight request is woken when that request ends. (Waking it on every
//! request state change cost ~10% of the throughput of a cheap authenticated GET.)

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::client_addr::{ClientAddr, is_trusted_proxy};
use crate::config::HttpServerConfig;

mod bodies;
mod linger;

pub use bodies::{BodyTimedOut, TimedBody, TrackedBody};
pub use linger::{LingerEnd, MonitoredIo, ReturnedSocket};

/// How long after its opening (or its request's first byte) a connection is taken to possibly
/// carry a request it has not read yet: parsing a request head that has arrived takes
/// milliseconds even on a loaded server.
pub const DISPLACEMENT_GRACE: Duration = Duration::from_secs(1);

/// The open connections and the limits they are held to.
pub struct ConnectionRegistry {
    settings: HttpServerConfig,
    epoch: Instant,
    state: Mutex<RegistryState>,
}

#[derive(Default)]
struct RegistryState {
    next_id: u64,
    open: HashMap<u64, OpenConnection>,
    per_client: HashMap<IpAddr, usize>,
    /// Connections being refused (answered 503, then closed): their client (`None` for a trusted
    /// proxy) by id, and how many per client.
    refusing: HashMap<u64, Option<IpAddr>>,
    refusing_per_client: HashMap<IpAddr, usize>,
}

struct OpenConnection {
    /// `None` for a trusted proxy, which carries many clients and is not capped per client.
    client: Option<IpAddr>,
    activity: Arc<Activity>,
}

/// What one connection is doing, shared by its I/O, its requests and its supervisor. Times are
/// milliseconds since the registry's epoch, plus one, so that 0 means "none".
pub struct Activity {
    epoch: Instant,
    opened_ms: u64,
    in_flight: AtomicUsize,
    requests: AtomicU64,
    head_started_ms: AtomicU64,
    last_done_ms: AtomicU64,
    /// The supervisor is parked on an in-flight request and waits for [`Self::request_ended`].
    supervisor_parked: AtomicBool,
    /// The request the supervisor was parked on has ended.
    request_ended: Notify,
    /// The registry closed this connection to make room.
    evicted: Notify,
    /// The cap it was refused at (see [`Cap::code`]); 0 while it is served.
    refused_at: AtomicU8,
}

/// Why the supervisor closed a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    HeaderRead,
    Idle,
}

/// The cap a refused connection met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    /// `HTTP_MAX_CONNECTIONS_PER_CLIENT`.
    Client,
    /// `HTTP_MAX_CONNECTIONS`.
    Server,
}

impl Cap {
    fn code(self) -> u8 {
        match self {
            Cap::Client => 1,
            Cap::Server => 2,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Cap::Client),
            2 => Some(Cap::Server),
            _ => None,
        }
    }
}

impl ConnectionRegistry {
    pub fn new(settings: HttpServerConfig) -> Arc<Self> {
        Arc::new(Self { settings, epoch: Instant::now(), state: Mutex::new(RegistryState::default()) })
    }

    pub fn settings(&self) -> &HttpServerConfig {
        &self.settings
    }

    /// Admits a connection from `peer`, displacing the oldest idle connection that stands in its
    /// way at a cap. When every connection in the way is busy, the connection is admitted as a
    /// refusal ([`Activity::refusal`]) within the refusal budget; `None` when that is spent too.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<Held> {
        let settings = &self.settings;
        let client = (!is_trusted_proxy(&settings.trusted_proxies, peer)).then(|| ClientAddr(peer).network());
        let now_ms = stamp(self.epoch);
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let full = if let Some(client) = client
            && state.per_client.get(&client).copied().unwrap_or(0) >= settings.max_connections_per_client
            && !state.displace_oldest_idle(|open| open.client == Some(client), Cap::Client, now_ms, settings)
        {
            tracing::debug!(%peer, "connection refused: every connection of this client is busy");
            Some(Cap::Client)
        } else if state.open.len() >= settings.max_connections
            && !state.displace_oldest_idle(|_| true, Cap::Server, now_ms, settings)
        {
            tracing::warn!(%peer, limit = settings.max_connections, "connection refused: every connection is busy");
            Some(Cap::Server)
        } else {
            None
        };
        let id = state.next_id;
        state.next_id += 1;
        let activity = match full {
            None => {
                let activity = Arc::new(Activity::new(self.epoch));
                state.open.insert(id, OpenConnection { client, activity: activity.clone() });
                if let Some(client) = client {
                    *state.per_client.entry(client).or_insert(0) += 1;
                }
                activity
            }
            Some(cap) => {
                if !state.start_refusal(id, client, settings) {
                    tracing::debug!(%peer, "refusal budget spent: connection closed at once");
                    return None;
                }
                let activity = Arc::new(Activity::new(self.epoch));
                activity.refuse(cap);
                activity
            }
        };
        Some(Held { registry: self.clone(), id, activity })
    }

    /// Open connections (all, and from `peer`'s address).
    #[cfg(test)]
    fn open_connections(&self, peer: IpAddr) -> (usize, usize) {
        let state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (state.open.len(), state.per_client.get(&ClientAddr(peer).network()).copied().unwrap_or(0))
    }

    /// Connections being refused (all, and from `peer`'s address).
    #[cfg(test)]
    fn refusals(&self, peer: IpAddr) -> (usize, usize) {
        let state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (state.refusing.len(), state.refusing_per_client.get(&ClientAddr(peer).network()).copied().unwrap_or(0))
    }
}

impl RegistryState {
    /// Makes room by displacing the least recently active idle connection among those
    /// `eligible`: refused at `cap` when its request may be on its way and the refusal budget has
    /// room, closed otherwise. `false` when every eligible connection is busy.
    fn displace_oldest_idle(
        &mut self,
        eligible: impl Fn(&OpenConnection) -> bool,
        cap: Cap,
        now_ms: u64,
        settings: &HttpServerConfig,
    ) -> bool {
        let oldest = self
            .open
            .iter()
            .filter(|(_, open)| eligible(open) && open.activity.is_idle())
            .min_by_key(|(_, open)| open.activity.last_seen_ms())
            .map(|(id, _)| *id);
        let Some(id) = oldest else {
            return false;
        };
        if let Some(open) = self.remove(id) {
            if open.activity.may_have_an_unread_request(now_ms) && self.start_refusal(id, open.client, settings) {
                open.activity.refuse(cap);
            } else {
                open.activity.evicted.notify_one();
            }
        }
        true
    }

    /// Frees connection `id`'s place, wherever it is.
    fn release(&mut self, id: u64) {
        if self.remove(id).is_none()
            && let Some(client) = self.refusing.remove(&id)
            && let Some(client) = client
        {
            count_down(&mut self.refusing_per_client, client);
        }
    }

    fn remove(&mut self, id: u64) -> Option<OpenConnection> {
        let open = self.open.remove(&id)?;
        if let Some(client) = open.client {
            count_down(&mut self.per_client, client);
        }
        Some(open)
    }

    /// Takes a place in the refusal budget for connection `id`: an eighth of the global cap in
    /// all (at least one), the per-client cap per client.
    fn start_refusal(&mut self, id: u64, client: Option<IpAddr>, settings: &HttpServerConfig) -> bool {
        if self.refusing.len() >= settings.max_connections.div_ceil(8) {
            return false;
        }
        if let Some(client) = client {
            let count = self.refusing_per_client.entry(client).or_insert(0);
            if *count >= settings.max_connections_per_client {
                return false;
            }
            *count += 1;
        }
        self.refusing.insert(id, client);
        true
    }
}

fn count_down(counts: &mut HashMap<IpAddr, usize>, client: IpAddr) {
    if let Some(count) = counts.get_mut(&client) {
        *count -= 1;
        if *count == 0 {
            counts.remove(&client);
        }
    }
}

/// A connection's place in the registry: under the caps, or in the refusal budget. Dropping it
/// frees the place.
pub struct Held {
    registry: Arc<ConnectionRegistry>,
    id: u64,
    pub activity: Arc<Activity>,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.registry.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).release(self.id);
    }
}

impl Held {
    /// Resolves when the connection should be closed: a deadline passed with no request in
    /// flight, or the registry evicted it.
    pub async fn expired(&self) -> Expiry {
        let settings = &self.registry.settings;
        let activity = &self.activity;
        loop {
            let Some((deadline, expiry)) = activity.deadline(settings) else {
                let ended = activity.request_ended.notified();
                tokio::pin!(ended);
                ended.as_mut().enable();
                // SeqCst on both sides: either the ending request sees the flag and notifies, or
                // this re-check sees the request gone.
                activity.supervisor_parked.store(true, Ordering::SeqCst);
                if activity.deadline(settings).is_none() {
                    tokio::select! {
                        () = ended => {}
                        () = activity.evicted.notified() => return Expiry::Idle,
                    }
                }
                activity.supervisor_parked.store(false, Ordering::SeqCst);
                continue;
            };
            let now = Instant::now();
            if deadline <= now {
                return expiry;
            }
            // A request may start or end while this sleeps, setting a deadline at least the shorter
            // timeout away: waking at least that often catches every new deadline in time,
            // without a wake-up per request.
            let wake = deadline.min(now + settings.header_read_timeout.min(settings.idle_timeout));
            tokio::select! {
                () = activity.evicted.notified() => return Expiry::Idle,
                () = tokio::time::sleep_until(wake.into()) => {}
            }
        }
    }
}

impl Activity {
    fn new(epoch: Instant) -> Self {
        let opened_ms = stamp(epoch);
        Self {
            epoch,
            opened_ms,
            in_flight: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
            head_started_ms: AtomicU64::new(0),
            last_done_ms: AtomicU64::new(0),
            supervisor_parked: AtomicBool::new(false),
            request_ended: Notify::new(),
            evicted: Notify::new(),
            refused_at: AtomicU8::new(0),
        }
    }

    /// The cap this connection was refused at: each of its requests is to be answered 503.
    pub fn refusal(&self) -> Option<Cap> {
        Cap::from_code(self.refused_at.load(Ordering::Acquire))
    }

    fn refuse(&self, cap: Cap) {
        self.refused_at.store(cap.code(), Ordering::Release);
    }

    /// Waiting for a request (its first, or one whose bytes have started to arrive) for less than
    /// [`DISPLACEMENT_GRACE`] at `now_ms`: the request may be in the socket buffer, not yet read.
    fn may_have_an_unread_request(&self, now_ms: u64) -> bool {
        let waiting_for_a_request =
            self.requests.load(Ordering::Acquire) == 0 || self.head_started_ms.load(Ordering::Acquire) != 0;
        waiting_for_a_request && u128::from(now_ms.saturating_sub(self.last_seen_ms())) < DISPLACEMENT_GRACE.as_millis()
    }

    fn is_idle(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
    }

    fn last_seen_ms(&self) -> u64 {
        self.opened_ms.max(self.last_done_ms.load(Ordering::Relaxed)).max(self.head_started_ms.load(Ordering::Relaxed))
    }

    /// When the connection expires if nothing changes, and why; `None` while a request is in flight.
    fn deadline(&self, settings: &HttpServerConfig) -> Option<(Instant, Expiry)> {
        if !self.is_idle() {
            return None;
        }
        let at = |ms: u64, after: Duration| self.epoch + Duration::from_millis(ms - 1) + after;
        let head_started = self.head_started_ms.load(Ordering::Acquire);
        Some(if head_started != 0 {
            (at(head_started, settings.header_read_timeout), Expiry::HeaderRead)
        } else if self.requests.load(Ordering::Acquire) == 0 {
            (at(self.opened_ms, settings.header_read_timeout), Expiry::HeaderRead)
        } else {
            (at(self.last_done_ms.load(Ordering::Acquire), settings.idle_timeout), Expiry::Idle)
        })
    }

    /// Bytes arrived: when no request is in flight, they start the next request's headers.
    fn received(&self) {
        if self.is_idle() && self.head_started_ms.load(Ordering::Relaxed) == 0 {
            self.head_started_ms.store(stamp(self.epoch), Ordering::Release);
        }
    }

    /// A request's headers were read; the returned guard ends the request when its response has
    /// been sent (or abandoned).
    pub fn request_started(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.head_started_ms.store(0, Ordering::Release);
        InFlight(self.clone())
    }
}

fn stamp(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX - 1) + 1
}

/// A request in flight on its connection, until dropped (with its response body).
pub struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.last_done_ms.store(stamp(self.0.epoch), Ordering::Release);
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        if self.0.supervisor_parked.load(Ordering::SeqCst) {
            self.0.request_ended.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn registry(max: usize, per_client: usize) -> Arc<ConnectionRegistry> {
        lingering_registry(max, per_client, Duration::from_secs(5))
    }

    pub(super) fn lingering_registry(max: usize, per_client: usize, linger_time: Duration) -> Arc<ConnectionRegistry> {
        ConnectionRegistry::new(HttpServerConfig {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: max,
            max_connections_per_client: per_client,
            linger_time,
            linger_max_bytes: 1024 * 1024,
            trusted_proxies: vec!["10.0.0.1/32".parse().expect("net")],
            http2_cleartext: false,
        })
    }

    pub(super) fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    /// The connection's place when it is to be served, not refused.
    pub(super) fn served(held: Option<Held>) -> Option<Held> {
        held.filter(|held| held.activity.refusal().is_none())
    }

    fn refused_at(held: &Option<Held>) -> Option<Cap> {
        held.as_ref().and_then(|held| held.activity.refusal())
    }

    /// Has the connection answer a request; it then waits for the next with nothing received.
    pub(super) fn serve_one_request(held: &Held) {
        drop(held.activity.request_started());
    }

    #[test]
    fn a_client_at_its_cap_displaces_its_own_oldest_idle_connection() {
        let registry = registry(100, 2);
        let first = served(registry.admit(ip("192.0.2.1"))).expect("first");
        serve_one_request(&first);
        let second = served(registry.admit(ip("192.0.2.1"))).expect("second");
        let _busy = second.activity.request_started();
        let third = served(registry.admit(ip("192.0.2.1"))).expect("the idle first one makes room");
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (2, 2));
        assert_eq!((first.activity.refusal(), registry.refusals(ip("192.0.2.1"))), (None, (0, 0)), "closed");
        // Now both are busy: the next one is refused, while another client still gets in.
        let _busy_too = third.activity.request_started();
        assert_eq!(refused_at(&registry.admit(ip("192.0.2.1"))), Some(Cap::Client));
        assert!(served(registry.admit(ip("198.51.100.1"))).is_some());
        drop(first);
        assert_eq!(registry.open_connections(ip("192.0.2.1")).1, 2, "a displaced connection is counted once");
    }

    #[test]
    fn a_displaced_connection_whose_request_may_be_on_its_way_is_refused_instead_of_closed() {
        let registry = registry(100, 1);
        let fresh = served(registry.admit(ip("192.0.2.1"))).expect("fresh");
        let newcomer = served(registry.admit(ip("192.0.2.1"))).expect("the fresh one makes room");
        assert_eq!(fresh.activity.refusal(), Some(Cap::Client), "its request, if it comes, is answered 503");
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (1, 1));
        assert_eq!(registry.refusals(ip("192.0.2.1")), (1, 1));
        drop(fresh);
        assert_eq!(registry.refusals(ip("192.0.2.1")), (0, 0));
        drop(newcomer);
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (0, 0));
    }

    #[test]
    fn a_request_may_be_unread_only_on_a_connection_waiting_for_one_for_less_than_the_grace() {
        let registry = registry(10, 10);
        let held = served(registry.admit(ip("192.0.2.1"))).expect("room");
        let later = |ms: u64| stamp(registry.epoch) + ms;
        let past_the_grace = u64::try_from(DISPLACEMENT_GRACE.as_millis()).expect("ms") + 10;
        assert!(held.activity.may_have_an_unread_request(later(0)), "just opened");
        assert!(!held.activity.may_have_an_unread_request(later(past_the_grace)), "silent for longer");
        serve_one_request(&held);
        assert!(!held.activity.may_have_an_unread_request(later(0)), "between requests, nothing received");
        held.activity.received();
        assert!(held.activity.may_have_an_unread_request(later(0)), "its next request is arriving");
        assert!(!held.activity.may_have_an_unread_request(later(past_the_grace)), "a head this slow is not");
    }

    #[test]
    fn at_the_global_cap_the_least_recently_active_idle_connection_goes() {
        let registry = registry(2, 10);
        let a = served(registry.admit(ip("192.0.2.1"))).expect("a");
        serve_one_request(&a);
        std::thread::sleep(Duration::from_millis(3));
        let b = served(registry.admit(ip("192.0.2.2"))).expect("b");
        serve_one_request(&b);
        let c = served(registry.admit(ip("192.0.2.3"))).expect("c displaces a");
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (2, 0));
        let (_b_busy, _c_busy) = (b.activity.request_started(), c.activity.request_started());
        assert_eq!(refused_at(&registry.admit(ip("192.0.2.4"))), Some(Cap::Server), "all busy: refused");
        drop(a);
        assert_eq!(registry.open_connections(ip("192.0.2.4")).0, 2);
    }

    #[test]
    fn ipv6_clients_are_capped_by_their_64_and_proxies_are_not_capped() {
        let registry = registry(100, 1);
        let _one = served(registry.admit(ip("2001:db8:1:2::1"))).expect("one");
        let other = served(registry.admit(ip("2001:db8:1:2::99"))).expect("displaces the idle one of the same /64");
        let _busy = other.activity.request_started();
        assert!(served(registry.admit(ip("2001:db8:1:2::5"))).is_none());
        let proxied: Vec<_> =
            (0..5).map(|_| served(registry.admit(ip("10.0.0.1"))).expect("a proxy is not capped")).collect();
        assert_eq!(proxied.len(), 5);
    }

    #[test]
    fn refusals_have_a_budget_of_their_own_per_client_and_in_all() {
        // A global cap of 16: two refusals at once in all; a client cap of 1: one per client.
        let registry = registry(16, 1);
        let busy: Vec<_> = ["192.0.2.1", "192.0.2.2", "192.0.2.3"]
            .map(|client| served(registry.admit(ip(client))).expect("room"))
            .into_iter()
            .map(|held| (held.activity.request_started(), held))
            .collect();
        let first = registry.admit(ip("192.0.2.1"));
        assert_eq!(refused_at(&first), Some(Cap::Client));
        assert!(registry.admit(ip("192.0.2.1")).is_none(), "one refusal at a time for this client");
        let second = registry.admit(ip("192.0.2.2"));
        assert_eq!(refused_at(&second), Some(Cap::Client));
        assert!(registry.admit(ip("192.0.2.3")).is_none(), "two refusals at a time in all");
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (3, 1), "refusals take no place under the caps");
        assert_eq!(registry.refusals(ip("192.0.2.1")), (2, 1));
        drop(first);
        assert_eq!(refused_at(&registry.admit(ip("192.0.2.3"))), Some(Cap::Client));
        drop(busy);
    }

    #[test]
    fn a_connection_over_the_global_cap_is_refused_for_the_server_cap() {
        let registry = registry(1, 10);
        let held = served(registry.admit(ip("192.0.2.1"))).expect("room");
        let _busy = held.activity.request_started();
        assert_eq!(refused_at(&registry.admit(ip("192.0.2.2"))), Some(Cap::Server));
    }

    #[test]
    fn the_deadline_follows_what_the_connection_is_doing() {
        let registry = registry(10, 10);
        let admitted = served(registry.admit(ip("192.0.2.1"))).expect("admitted");
        let settings = registry.settings();
        let (_, why) = admitted.activity.deadline(settings).expect("waiting for headers");
        assert_eq!(why, Expiry::HeaderRead);
        let in_flight = admitted.activity.request_started();
        assert!(admitted.activity.deadline(settings).is_none(), "no deadline while a request runs");
        admitted.activity.received();
        assert!(admitted.activity.deadline(settings).is_none(), "body bytes are not a new request");
        drop(in_flight);
        let (due, why) = admitted.activity.deadline(settings).expect("between requests");
        assert_eq!(why, Expiry::Idle);
        assert!(due > Instant::now() + Duration::from_secs(50));
        admitted.activity.received();
        let (due, why) = admitted.activity.deadline(settings).expect("next headers");
        assert_eq!(why, Expiry::HeaderRead);
        assert!(due < Instant::now() + Duration::from_secs(11));
    }
}
