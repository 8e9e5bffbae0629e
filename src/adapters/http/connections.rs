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
//! the global cap, is closed to make room; only when every connection is busy is the new one
//! refused. A flood of idle or half-open connections therefore displaces itself, and a health
//! probe or a sign-in still gets a connection.
//!
//! The request path only stores atomics: the supervisor is not woken per request. It sleeps to
//! its deadline, but never longer than the shorter of the header-read and idle timeouts, and
//! recomputes on waking, so a deadline set by a request starting or ending while it sleeps is
//! still met (it is at least that far away); only a
//! supervisor parked on an in-flight request is woken when that request ends. (Waking it on every
//! request state change cost ~10% of the throughput of a cheap authenticated GET.)

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

use super::client_addr::{ClientAddr, is_trusted_proxy};
use crate::config::HttpServerConfig;

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
}

/// Why the supervisor closed a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    HeaderRead,
    Idle,
}

impl ConnectionRegistry {
    pub fn new(settings: HttpServerConfig) -> Arc<Self> {
        Arc::new(Self { settings, epoch: Instant::now(), state: Mutex::new(RegistryState::default()) })
    }

    pub fn settings(&self) -> &HttpServerConfig {
        &self.settings
    }

    /// Admits a connection from `peer`, closing the oldest idle connection that stands in its way
    /// at a cap; `None` when every connection in the way is busy.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<Admitted> {
        let client = (!is_trusted_proxy(&self.settings.trusted_proxies, peer)).then(|| ClientAddr(peer).network());
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(client) = client
            && state.per_client.get(&client).copied().unwrap_or(0) >= self.settings.max_connections_per_client
            && !state.evict_oldest_idle(|open| open.client == Some(client))
        {
            tracing::debug!(%peer, "connection refused: every connection of this client is busy");
            return None;
        }
        if state.open.len() >= self.settings.max_connections && !state.evict_oldest_idle(|_| true) {
            tracing::warn!(%peer, limit = self.settings.max_connections, "connection refused: every connection is busy");
            return None;
        }
        let activity = Arc::new(Activity::new(self.epoch));
        let id = state.next_id;
        state.next_id += 1;
        state.open.insert(id, OpenConnection { client, activity: activity.clone() });
        if let Some(client) = client {
            *state.per_client.entry(client).or_insert(0) += 1;
        }
        Some(Admitted { registry: self.clone(), id, activity })
    }

    /// Open connections (all, and from `peer`'s address).
    #[cfg(test)]
    fn open_connections(&self, peer: IpAddr) -> (usize, usize) {
        let state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (state.open.len(), state.per_client.get(&ClientAddr(peer).network()).copied().unwrap_or(0))
    }
}

impl RegistryState {
    /// Closes the least recently active idle connection among those `eligible`.
    fn evict_oldest_idle(&mut self, eligible: impl Fn(&OpenConnection) -> bool) -> bool {
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
            open.activity.evicted.notify_one();
        }
        true
    }

    fn remove(&mut self, id: u64) -> Option<OpenConnection> {
        let open = self.open.remove(&id)?;
        if let Some(client) = open.client
            && let Some(count) = self.per_client.get_mut(&client)
        {
            *count -= 1;
            if *count == 0 {
                self.per_client.remove(&client);
            }
        }
        Some(open)
    }
}

/// A connection's place in the registry; dropping it frees the place.
pub struct Admitted {
    registry: Arc<ConnectionRegistry>,
    id: u64,
    pub activity: Arc<Activity>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.registry.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(self.id);
    }
}

impl Admitted {
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
        }
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

/// The connection's socket, reporting received bytes to its [`Activity`].
pub struct MonitoredIo<T> {
    inner: T,
    activity: Arc<Activity>,
}

impl<T> MonitoredIo<T> {
    pub fn new(inner: T, activity: Arc<Activity>) -> Self {
        Self { inner, activity }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for MonitoredIo<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.received();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for MonitoredIo<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// Error of a request body that did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body was not received within {0:?}")]
pub struct BodyTimedOut(pub Duration);

/// A request body that must arrive by a deadline; past it, reading fails and `timed_out` is set
/// so the server can answer 408 whatever the handler made of the failure.
pub struct TimedBody {
    inner: Incoming,
    timeout: Duration,
    deadline: Instant,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    timed_out: Arc<std::sync::atomic::AtomicBool>,
}

impl TimedBody {
    pub fn new(inner: Incoming, timeout: Duration, timed_out: Arc<std::sync::atomic::AtomicBool>) -> Self {
        Self { inner, timeout, deadline: Instant::now() + timeout, timer: None, timed_out }
    }
}

impl Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|result| result.map_err(Into::into)));
        }
        // Only a body that keeps the reader waiting pays for a timer.
        let deadline = self.deadline;
        let timer = self.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline.into())));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.timed_out.store(true, Ordering::Release);
                Poll::Ready(Some(Err(Box::new(BodyTimedOut(self.timeout)))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that keeps its request in flight until it has been sent or dropped.
pub struct TrackedBody<B> {
    inner: B,
    _in_flight: InFlight,
}

impl<B> TrackedBody<B> {
    pub fn new(inner: B, in_flight: InFlight) -> Self {
        Self { inner, _in_flight: in_flight }
    }
}

impl<B: Body + Unpin> Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(max: usize, per_client: usize) -> Arc<ConnectionRegistry> {
        ConnectionRegistry::new(HttpServerConfig {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: max,
            max_connections_per_client: per_client,
            trusted_proxies: vec!["10.0.0.1/32".parse().expect("net")],
        })
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn a_client_at_its_cap_displaces_its_own_oldest_idle_connection() {
        let registry = registry(100, 2);
        let first = registry.admit(ip("192.0.2.1")).expect("first");
        let second = registry.admit(ip("192.0.2.1")).expect("second");
        let _busy = second.activity.request_started();
        let third = registry.admit(ip("192.0.2.1")).expect("the idle first one makes room");
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (2, 2));
        // Now both are busy: the next one is refused, while another client still gets in.
        let _busy_too = third.activity.request_started();
        assert!(registry.admit(ip("192.0.2.1")).is_none());
        assert!(registry.admit(ip("198.51.100.1")).is_some());
        drop(first);
        assert_eq!(registry.open_connections(ip("192.0.2.1")).1, 2, "an evicted connection is counted once");
    }

    #[test]
    fn at_the_global_cap_the_least_recently_active_idle_connection_goes() {
        let registry = registry(2, 10);
        let a = registry.admit(ip("192.0.2.1")).expect("a");
        std::thread::sleep(Duration::from_millis(3));
        let b = registry.admit(ip("192.0.2.2")).expect("b");
        let c = registry.admit(ip("192.0.2.3")).expect("c displaces a");
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (2, 0));
        let (_b_busy, _c_busy) = (b.activity.request_started(), c.activity.request_started());
        assert!(registry.admit(ip("192.0.2.4")).is_none(), "all busy: refused");
        drop(a);
        assert_eq!(registry.open_connections(ip("192.0.2.4")).0, 2);
    }

    #[test]
    fn ipv6_clients_are_capped_by_their_64_and_proxies_are_not_capped() {
        let registry = registry(100, 1);
        let _one = registry.admit(ip("2001:db8:1:2::1")).expect("one");
        let other = registry.admit(ip("2001:db8:1:2::99")).expect("displaces the idle one of the same /64");
        let _busy = other.activity.request_started();
        assert!(registry.admit(ip("2001:db8:1:2::5")).is_none());
        let proxied: Vec<_> = (0..5).map(|_| registry.admit(ip("10.0.0.1")).expect("a proxy is not capped")).collect();
        assert_eq!(proxied.len(), 5);
    }

    #[test]
    fn the_deadline_follows_what_the_connection_is_doing() {
        let registry = registry(10, 10);
        let admitted = registry.admit(ip("192.0.2.1")).expect("admitted");
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
