//! The request and response bodies of a supervised connection: a request body that must arrive
//! by a deadline, and a response body that keeps its request in flight until it has been sent.

use std::future::Future as _;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;

use super::InFlight;

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
    timed_out: Arc<AtomicBool>,
}

impl TimedBody {
    pub fn new(inner: Incoming, timeout: Duration, timed_out: Arc<AtomicBool>) -> Self {
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
