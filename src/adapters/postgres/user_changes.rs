//! The listener of announced user changes: one connection of its own (the pool's TLS settings,
//! named `creditflow user changes` in `pg_stat_activity`) subscribed with `LISTEN` to the channel
//! on which PostgreSQL announces, at commit, every changed user row (migration 0018), and which
//! drops those users from this instance's [`CachedUsers`](super::user_cache::CachedUsers).
//!
//! The cache serves copies only while this listener is subscribed: it is trusted once `LISTEN`
//! has answered, and distrusted (emptied, bypassed) as soon as the connection fails or stops
//! answering the ping sent every few seconds, which also catches a connection that died without
//! a word (a server host lost, a cut network). It reconnects with a growing, jittered delay.

use std::time::Duration;

use anyhow::anyhow;
use futures_util::StreamExt;
use rand::Rng;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_postgres::AsyncMessage;

use super::connection::{DatabaseTarget, DrivenConnection, describe_postgres_error};
use super::user_cache::UserCacheControl;
use crate::domain::auth::UserId;

/// The channel migration 0018's trigger announces on; the payload is the user's id, or `*` when
/// the whole table changed (`TRUNCATE`).
pub const USER_CHANGES_CHANNEL: &str = "creditflow_users";

/// How often the connection is asked to answer, and how long it may take: together the longest
/// a dead connection goes unnoticed, and so the longest stale copies may be served in that case.
const PING_INTERVAL: Duration = Duration::from_secs(5);
const PING_TIMEOUT: Duration = Duration::from_secs(5);
/// The delay before reconnecting doubles from the first to the last, plus up to a quarter of
/// jitter (so that instances restarted together do not reconnect in step).
const FIRST_RETRY: Duration = Duration::from_millis(250);
const LAST_RETRY: Duration = Duration::from_secs(10);

/// Keeps a [`CachedUsers`](super::user_cache::CachedUsers) told of changes made anywhere.
pub struct UserChangeListener {
    target: DatabaseTarget,
    cache: UserCacheControl,
}

/// What one announcement says.
#[derive(Debug, PartialEq, Eq)]
enum Announcement {
    User(UserId),
    All,
}

impl Announcement {
    /// The announcement of `payload`; one this release cannot read is taken as "everything
    /// changed", which is always safe.
    fn parse(payload: &str) -> Self {
        payload.parse::<UserId>().map_or(Self::All, Self::User)
    }
}

/// Aborts the task when dropped, so that the connection it drives closes with the listener.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl UserChangeListener {
    pub fn new(target: DatabaseTarget, cache: UserCacheControl) -> Self {
        Self { target, cache }
    }

    /// Listens until the future is dropped (the service aborts it when it stops), reconnecting
    /// whenever the connection is lost.
    pub async fn run(self) {
        let mut delay = FIRST_RETRY;
        loop {
            let mut subscribed = false;
            let error = self.listen(&mut subscribed).await;
            self.cache.distrust();
            if subscribed {
                delay = FIRST_RETRY;
                tracing::warn!(
                    error = format!("{error:#}"),
                    "stopped listening for user changes: users are read from the database until it is back"
                );
            } else {
                tracing::warn!(
                    error = format!("{error:#}"),
                    retry_in_ms = delay.as_millis() as u64,
                    "cannot listen for user changes: users are read from the database until it is back"
                );
            }
            let jitter = rand::rng().random_range(0..=delay.as_millis() as u64 / 4);
            tokio::time::sleep(delay + Duration::from_millis(jitter)).await;
            delay = (delay * 2).min(LAST_RETRY);
        }
    }

    /// One connection: subscribes, trusts the cache, then forwards announcements and pings until
    /// something fails; returns what failed.
    async fn listen(&self, subscribed: &mut bool) -> anyhow::Error {
        let (client, connection) = match self.target.connect_driven_by_caller("user changes").await {
            Ok(connected) => connected,
            Err(error) => return error,
        };
        // The driver must never wait for this loop (a burst of announcements would stall the
        // ping's answer behind it); this loop does constant work per announcement, so the
        // queue stays short.
        let (sender, mut announced) = mpsc::unbounded_channel();
        let mut driver = AbortOnDrop(tokio::spawn(drive(connection, sender)));
        let listen = format!("LISTEN {USER_CHANGES_CHANNEL}");
        match tokio::time::timeout(PING_TIMEOUT, client.batch_execute(&listen)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return anyhow!("LISTEN: {}", describe_postgres_error(&error)),
            Err(_) => return anyhow!("LISTEN was not answered within {} s", PING_TIMEOUT.as_secs()),
        }
        // From here on every committed change is announced to us; what changed before is in the
        // database, where the emptied cache reads it.
        self.cache.trust();
        *subscribed = true;
        tracing::info!(database = %self.target.redacted(), "listening for user changes: users are cached in memory");

        let mut ping = tokio::time::interval(PING_INTERVAL);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ping.tick().await;
        loop {
            tokio::select! {
                payload = announced.recv() => match payload {
                    Some(payload) => self.apply(&payload),
                    None => {
                        return match (&mut driver.0).await {
                            Ok(Ok(())) => anyhow!("the database closed the connection"),
                            Ok(Err(error)) => anyhow!(describe_postgres_error(&error)),
                            Err(error) => anyhow!("the connection's task ended: {error}"),
                        };
                    }
                },
                _ = ping.tick() => match tokio::time::timeout(PING_TIMEOUT, client.simple_query("")).await {
                    Ok(Ok(_)) => {}
                    Ok(Err(error)) => return anyhow!("ping: {}", describe_postgres_error(&error)),
                    Err(_) => return anyhow!("the database did not answer a ping within {} s", PING_TIMEOUT.as_secs()),
                },
            }
        }
    }

    fn apply(&self, payload: &str) {
        match Announcement::parse(payload) {
            Announcement::User(id) => self.cache.user_changed(id),
            Announcement::All => {
                if payload != "*" {
                    tracing::warn!(
                        payload_bytes = payload.len(),
                        "unreadable user change announced: all users dropped"
                    );
                }
                self.cache.all_changed();
            }
        }
    }
}

/// Reads the connection's messages, passing on the payloads announced on our channel, until the
/// connection ends (`Ok`) or fails, or the listener is gone.
async fn drive(
    mut connection: DrivenConnection,
    announced: mpsc::UnboundedSender<String>,
) -> Result<(), tokio_postgres::Error> {
    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
    while let Some(message) = messages.next().await {
        match message? {
            AsyncMessage::Notification(notification) if notification.channel() == USER_CHANGES_CHANNEL => {
                let passed_on = announced.send(notification.payload().to_owned());
                // The listener is gone: nothing to pass on to.
                if passed_on.is_err() {
                    return Ok(());
                }
            }
            AsyncMessage::Notice(notice) => {
                tracing::debug!(notice = notice.message(), "notice on the user-changes connection");
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_announcement_names_one_user_or_all_of_them() {
        let id = UserId::new_random();
        assert_eq!(Announcement::parse(&id.to_string()), Announcement::User(id));
        assert_eq!(Announcement::parse("*"), Announcement::All);
        assert_eq!(Announcement::parse("not an id"), Announcement::All, "what cannot be read drops everything");
    }
}
