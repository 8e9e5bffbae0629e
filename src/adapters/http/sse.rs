//! Server-Sent Events answers: what a task sends on a channel, as `event:`/`id:`/`data:` frames
//! whose data is `{type, data}`, with keep-alive comments between them. The stream ends when the
//! task drops its sender; the task learns that the client left when sending fails. Each stream
//! holds a place under its user's cap ([`OpenStreams`]) for as long as it is open.

mod open_streams;

pub use open_streams::{OpenStreams, StreamPlace};

use std::convert::Infallible;
use std::time::Duration;

use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;
use warp::reply::{Reply as _, Response};

/// A comment this often keeps proxies from closing a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One event: its type (`event:` and the data's `type`) and its data.
pub type Frame = (&'static str, Value);

/// The answer that streams what arrives on `receiver`, numbered from 0 in `id:`. It keeps `place`
/// until the stream ends or the client goes (hyper then drops the body, and with it the place).
pub fn reply(mut receiver: UnboundedReceiver<Frame>, place: StreamPlace) -> Response {
    let frames = futures_util::stream::poll_fn(move |context| {
        let _held = &place;
        receiver.poll_recv(context)
    });
    let events = frames.enumerate().map(|(sequence, (kind, data))| {
        let payload = json!({ "type": kind, "data": data }).to_string();
        Ok::<_, Infallible>(warp::sse::Event::default().event(kind).id(sequence.to_string()).data(payload))
    });
    warp::sse::reply(warp::sse::keep_alive().interval(KEEP_ALIVE).stream(events)).into_response()
}
