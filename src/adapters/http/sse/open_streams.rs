//! The cap on event streams one user holds open at once (`EVENT_STREAMS_PER_USER`).
//!
//! An open stream costs the service for as long as the client keeps it: a task, a place on a
//! connection, and the reads that follow its run. Without a cap one user held thousands of them,
//! and their reads took every database connection from everyone else. A stream takes a
//! [`StreamPlace`] before it starts (and before it reads anything), and gives it back when its
//! answer ends or its client goes; beyond the cap the request is answered 429 at once.
//!
//! The count is kept per instance: behind a load balancer a user may hold the cap on each.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::json;

use crate::adapters::http::error::ApiError;
use crate::domain::auth::UserId;

/// What a user refused at the cap is told to wait: a place is free as soon as one of their streams
/// ends, which a client that means to follow something new can make happen by closing one.
const RETRY_AFTER_SECS: i64 = 5;

/// Open event streams per user, and the cap.
pub struct OpenStreams {
    per_user: usize,
    open: Mutex<HashMap<UserId, usize>>,
}

/// One open stream's place under its user's cap, given back when dropped.
pub struct StreamPlace {
    streams: Arc<OpenStreams>,
    user: UserId,
}

impl OpenStreams {
    /// At most `per_user` open streams per user.
    pub fn new(per_user: usize) -> Arc<Self> {
        Arc::new(Self { per_user, open: Mutex::new(HashMap::new()) })
    }

    /// Takes a place for one more stream of `user`.
    ///
    /// # Errors
    /// 429 with `Retry-After`, in the error shape, when `user` already holds the cap.
    pub fn take(self: &Arc<Self>, user: UserId) -> Result<StreamPlace, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.entry(user).or_insert(0);
        if *held >= self.per_user {
            tracing::debug!(%user, limit = self.per_user, "event stream refused: the user holds the cap");
            return Err(ApiError::too_many_requests(
                format!(
                    "at most {} event streams may be open at once; close one, or read the result instead",
                    self.per_user
                ),
                RETRY_AFTER_SECS,
            )
            .with_detail(json!({ "limit": self.per_user, "open": *held })));
        }
        *held += 1;
        Ok(StreamPlace { streams: self.clone(), user })
    }

    /// Streams `user` holds open now.
    #[cfg(test)]
    fn held_by(&self, user: UserId) -> usize {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).get(&user).copied().unwrap_or(0)
    }
}

impl Drop for StreamPlace {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = open.get_mut(&self.user) {
            *held -= 1;
            if *held == 0 {
                open.remove(&self.user);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_at_the_cap_is_refused_until_one_of_their_streams_ends() {
        let streams = OpenStreams::new(2);
        let user = UserId::new_random();
        let first = streams.take(user).expect("first");
        let _second = streams.take(user).expect("second");
        let refused = streams.take(user).err().expect("the third is over the cap");
        assert_eq!(refused.status().as_u16(), 429);
        drop(first);
        assert!(streams.take(user).is_ok(), "an ended stream gives its place back");
    }

    #[test]
    fn one_user_at_the_cap_does_not_hold_another_back() {
        let streams = OpenStreams::new(1);
        let (flooder, other) = (UserId::new_random(), UserId::new_random());
        let _held = streams.take(flooder).expect("room");
        assert!(streams.take(flooder).is_err());
        let _theirs = streams.take(other).expect("another user has a cap of their own");
        assert_eq!((streams.held_by(flooder), streams.held_by(other)), (1, 1));
    }

    #[test]
    fn a_user_whose_streams_all_ended_is_forgotten() {
        let streams = OpenStreams::new(3);
        let user = UserId::new_random();
        drop(streams.take(user).expect("room"));
        assert!(streams.open.lock().expect("lock").is_empty());
    }
}
