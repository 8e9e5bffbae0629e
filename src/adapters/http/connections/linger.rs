//! The lingering close: the end of a connection the server closes first.
//!
//! When the server closes a connection first, after answering (a 413 or 411 before the body was
//! read, a 408, hyper's own 431, a refusal, any `Connection: close`), the client may still be
//! sending: Python `requests`, Java's `HttpURLConnection` and many SDKs write the whole request
//! before reading. Closing a socket with unread data makes the kernel send a reset, and the client
//! sees `ECONNRESET` or a broken pipe instead of the answer. So, like nginx's `lingering_close`
//! and Apache's lingering close, the server shuts down its write side (the client reads the answer
//! and then the end of the stream) and reads and discards what still arrives ([`Held::linger`])
//! until the client closes its side, stays silent for [`LINGER_READ_GAP`], has sent
//! `HTTP_LINGER_MAX_BYTES` (64 MiB) or `HTTP_LINGER_TIME` (5 s) has passed. nginx keeps reading for
//! up to 30 s (5 s between reads), Apache for 30 s (2 s between reads); 5 s drains the largest
//! body a client is likely to send past a limit (tens of MB) on a good link, and keeps the time a
//! connection is held after its answer short. A client still sending past those bounds gets the
//! reset: it is not one this server can serve.
//!
//! A lingering connection keeps its place under both caps (it holds a socket like any other), as
//! an idle one: at a cap it can be closed to make room like any idle connection, so lingering never
//! lets a client hold more than its cap. A refused connection lingers within the refusal budget.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::sync::oneshot;

use super::{Activity, Held};

/// How long a lingering close waits for the client's next bytes before closing: a client that has
/// sent everything and read the answer closes its side well within it (Apache waits 2 s too).
pub const LINGER_READ_GAP: Duration = Duration::from_secs(2);
/// What a lingering close reads at a time (allocated only while lingering).
const LINGER_BUFFER_BYTES: usize = 16 * 1024;

/// How a lingering close ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LingerEnd {
    /// The client closed its side: everything it sent was read.
    ClientClosed,
    /// Nothing arrived for [`LINGER_READ_GAP`].
    Quiet,
    /// The client sent more than `HTTP_LINGER_MAX_BYTES`.
    TooMuch,
    /// `HTTP_LINGER_TIME` passed.
    TimeUp,
    /// The registry closed the connection to make room.
    Evicted,
    /// The socket failed (the client reset it).
    Failed,
}

impl Held {
    /// The lingering close (see the module doc): shuts down the write side of `socket`, whose
    /// answer has been written, then reads and discards what the client still sends, within
    /// `HTTP_LINGER_TIME` and `HTTP_LINGER_MAX_BYTES`, until the client closes its side, pauses
    /// for [`LINGER_READ_GAP`], or the registry needs the place. Returns how it ended and how
    /// many bytes were discarded; the caller then drops the socket.
    pub async fn linger<S: AsyncRead + AsyncWrite + Unpin>(&self, mut socket: S) -> (LingerEnd, u64) {
        let settings = &self.registry.settings;
        // hyper has usually shut it down already (a second shutdown is harmless), but not after
        // answering a malformed request itself (400, 431).
        if socket.shutdown().await.is_err() {
            return (LingerEnd::Failed, 0);
        }
        let deadline = Instant::now() + settings.linger_time;
        let evicted = self.activity.evicted.notified();
        tokio::pin!(evicted);
        let mut buffer = vec![0_u8; LINGER_BUFFER_BYTES];
        let mut discarded = 0_u64;
        loop {
            let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) else {
                return (LingerEnd::TimeUp, discarded);
            };
            let read = tokio::select! {
                () = &mut evicted => return (LingerEnd::Evicted, discarded),
                read = tokio::time::timeout(left.min(LINGER_READ_GAP), socket.read(&mut buffer)) => read,
            };
            match read {
                Err(_) if left <= LINGER_READ_GAP => return (LingerEnd::TimeUp, discarded),
                Err(_) => return (LingerEnd::Quiet, discarded),
                Ok(Ok(0)) => return (LingerEnd::ClientClosed, discarded),
                Ok(Ok(read)) => {
                    discarded = discarded.saturating_add(read as u64);
                    if discarded >= settings.linger_max_bytes {
                        return (LingerEnd::TooMuch, discarded);
                    }
                }
                Ok(Err(_)) => return (LingerEnd::Failed, discarded),
            }
        }
    }
}

/// The connection's socket, reporting received bytes to its [`Activity`]. hyper owns it and drops
/// it when the connection ends; it then hands the socket back ([`ReturnedSocket`]) instead of
/// closing it, so that the server can linger.
pub struct MonitoredIo<T> {
    /// `None` only once handed back, in `drop`.
    socket: Option<T>,
    activity: Arc<Activity>,
    /// The client closed its side or the socket failed: there is nothing to linger for.
    client_done: bool,
    hand_back: Option<oneshot::Sender<ReturnedSocket<T>>>,
}

/// A connection's socket, handed back when hyper is done with it.
pub struct ReturnedSocket<T> {
    pub socket: T,
    /// The client closed its side (or the socket failed) before the server closed its own.
    pub client_done: bool,
}

impl<T> MonitoredIo<T> {
    /// Wraps `socket`; the receiver gets it back when hyper drops it.
    pub fn new(socket: T, activity: Arc<Activity>) -> (Self, oneshot::Receiver<ReturnedSocket<T>>) {
        let (hand_back, returned) = oneshot::channel();
        (Self { socket: Some(socket), activity, client_done: false, hand_back: Some(hand_back) }, returned)
    }

    fn socket(&mut self) -> io::Result<Pin<&mut T>>
    where
        T: Unpin,
    {
        self.socket.as_mut().map(Pin::new).ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))
    }

    /// Notes a failed or ended read or write: the client is gone or done sending.
    fn observe<R>(&mut self, polled: &Poll<io::Result<R>>) {
        if matches!(polled, Poll::Ready(Err(_))) {
            self.client_done = true;
        }
    }
}

impl<T> Drop for MonitoredIo<T> {
    fn drop(&mut self) {
        if let (Some(socket), Some(hand_back)) = (self.socket.take(), self.hand_back.take()) {
            // When nobody waits for it (the connection's task is gone), the socket just closes.
            let _ = hand_back.send(ReturnedSocket { socket, client_done: self.client_done });
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for MonitoredIo<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = match self.socket() {
            Ok(socket) => socket.poll_read(cx, buf),
            Err(error) => Poll::Ready(Err(error)),
        };
        if matches!(polled, Poll::Ready(Ok(()))) {
            if buf.filled().len() > before {
                self.activity.received();
            } else if buf.remaining() > 0 {
                // Nothing read into room for something: the end of the client's stream.
                self.client_done = true;
            }
        }
        self.observe(&polled);
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for MonitoredIo<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let polled = self.socket().map_or_else(|error| Poll::Ready(Err(error)), |socket| socket.poll_write(cx, buf));
        self.observe(&polled);
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = self.socket().map_or_else(|error| Poll::Ready(Err(error)), |socket| socket.poll_flush(cx));
        self.observe(&polled);
        polled
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = self.socket().map_or_else(|error| Poll::Ready(Err(error)), |socket| socket.poll_shutdown(cx));
        self.observe(&polled);
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled =
            self.socket().map_or_else(|error| Poll::Ready(Err(error)), |socket| socket.poll_write_vectored(cx, bufs));
        self.observe(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.socket.as_ref().is_some_and(AsyncWrite::is_write_vectored)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::LingerEnd;
    use crate::adapters::http::connections::tests::{ip, lingering_registry, registry, serve_one_request, served};

    #[tokio::test]
    async fn a_lingering_close_reads_what_the_client_still_sends_until_it_closes() {
        let registry = registry(10, 10);
        let held = served(registry.admit(ip("192.0.2.1"))).expect("room");
        let (server, mut client) = tokio::io::duplex(4096);
        let client = tokio::spawn(async move {
            client.write_all(&[b'x'; 100_000]).await.expect("the whole body is taken");
            let mut rest = Vec::new();
            client.read_to_end(&mut rest).await.expect("then the end of the server's stream");
        });
        assert_eq!(held.linger(server).await, (LingerEnd::ClientClosed, 100_000));
        client.await.expect("client");
    }

    #[tokio::test]
    async fn a_lingering_close_stops_at_its_byte_and_time_bounds() {
        let registry = lingering_registry(10, 10, Duration::from_millis(300));
        let held = served(registry.admit(ip("192.0.2.1"))).expect("room");
        let (server, mut client) = tokio::io::duplex(4096);
        let flood = tokio::spawn(async move { while client.write_all(&[b'x'; 4096]).await.is_ok() {} });
        let (end, discarded) = held.linger(server).await;
        assert_eq!(end, LingerEnd::TooMuch);
        assert!((1024 * 1024..1024 * 1024 + 4096).contains(&discarded), "{discarded}");
        flood.await.expect("flood");

        let (server, mut client) = tokio::io::duplex(4096);
        let trickle = tokio::spawn(async move {
            while client.write_all(b"x").await.is_ok() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        let started = Instant::now();
        let (end, _) = held.linger(server).await;
        assert_eq!(end, LingerEnd::TimeUp);
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        trickle.await.expect("trickle");
    }

    #[tokio::test]
    async fn a_lingering_connection_keeps_its_place_until_the_place_is_needed() {
        let registry = registry(10, 1);
        let held = served(registry.admit(ip("192.0.2.1"))).expect("room");
        serve_one_request(&held);
        let (server, _silent_client) = tokio::io::duplex(4096);
        let newcomer = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert_eq!(registry.open_connections(ip("192.0.2.1")), (1, 1), "counted while it lingers");
            served(registry.admit(ip("192.0.2.1"))).expect("the lingering connection makes room")
        };
        let ((end, _), _newcomer) = tokio::join!(held.linger(server), newcomer);
        assert_eq!(end, LingerEnd::Evicted);
        assert_eq!(registry.open_connections(ip("192.0.2.1")), (1, 1));
    }
}
