//! One store poller per followed run, shared by all its followers.
//!
//! A run is followed by reading it from the store again and again (every instance writes there, so
//! it is followed whichever instance's worker runs it). Each stream used to read on its own twice a
//! second: a thousand streams on one run were two thousand reads a second of the same row, and they
//! held the database pool from everyone else. Now the first follower of a run starts a poller, the
//! others join it, and all see what it last read through a `watch` channel (a follower that falls
//! behind skips to the latest reading, which is all a progress stream needs).
//!
//! The poller reads at [`Pacing::first`] after a change and waits twice as long after each reading
//! that changed nothing, up to [`Pacing::longest`], so a run stuck in a long step costs few reads.
//! It stops after the last reading ([`Reading::is_last`]: the run ended, or could not be read), or
//! when its last follower has gone.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

/// How often a poller reads.
#[derive(Clone, Copy, Debug)]
pub struct Pacing {
    /// The wait after a reading that changed something (and before the first poll).
    pub first: Duration,
    /// The longest wait, reached by doubling while nothing changes.
    pub longest: Duration,
}

impl Pacing {
    fn after(self, waited: Duration, changed: bool) -> Duration {
        if changed { self.first } else { waited.saturating_mul(2).min(self.longest) }
    }
}

/// What a poller reads: compared with the previous reading to tell a change.
pub trait Reading: Clone + PartialEq + Send + Sync + 'static {
    /// Nothing will change after this reading: the poller stops.
    fn is_last(&self) -> bool;
}

/// The runs followed now, each with its poller's channel.
pub struct Feeds<K, R> {
    pacing: Pacing,
    polled: Mutex<HashMap<K, watch::Sender<R>>>,
}

impl<K, R> Feeds<K, R>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
    R: Reading,
{
    pub fn new(pacing: Pacing) -> Arc<Self> {
        Arc::new(Self { pacing, polled: Mutex::new(HashMap::new()) })
    }

    /// Follows `key`: joins its poller, or starts one whose first reading is `fresh` (what the caller
    /// has just read) and which reads with `read` from then on. The receiver holds the latest
    /// reading; the poller is told the follower left when it is dropped.
    pub fn follow<F, Fut>(self: &Arc<Self>, key: K, fresh: R, read: F) -> watch::Receiver<R>
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
    {
        let mut polled = self.polled.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(poller) = polled.get(&key) {
            return poller.subscribe();
        }
        let last = fresh.is_last();
        let (sender, receiver) = watch::channel(fresh);
        if !last {
            polled.insert(key.clone(), sender.clone());
            tokio::spawn(self.clone().poll(key, sender, read));
        }
        receiver
    }

    /// Runs being polled now.
    #[cfg(test)]
    fn polled(&self) -> usize {
        self.polled.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    async fn poll<F, Fut>(self: Arc<Self>, key: K, sender: watch::Sender<R>, mut read: F)
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
    {
        let mut wait = self.pacing.first;
        loop {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = sender.closed() => {
                    if self.retire(&key, &sender, false) {
                        return;
                    }
                    // Someone joined as the last one left: keep polling for them.
                    continue;
                }
            }
            let reading = read().await;
            let last = reading.is_last();
            let changed = sender.send_if_modified(|current| {
                let changed = *current != reading;
                if changed {
                    *current = reading;
                }
                changed
            });
            if last {
                self.retire(&key, &sender, true);
                return;
            }
            wait = self.pacing.after(wait, changed);
        }
    }

    /// Removes `key`'s poller when it is `done`, or has no follower left. Under the same lock as
    /// [`Self::follow`], so a follower either joined before (and is counted, or sees the last
    /// reading) or starts a poller of its own after.
    fn retire(&self, key: &K, sender: &watch::Sender<R>, done: bool) -> bool {
        let mut polled = self.polled.lock().unwrap_or_else(PoisonError::into_inner);
        if done || sender.receiver_count() == 0 {
            polled.remove(key);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    /// A run's progress; 100 is the end.
    #[derive(Clone, Debug, PartialEq)]
    struct Percent(u32);

    impl Reading for Percent {
        fn is_last(&self) -> bool {
            self.0 >= 100
        }
    }

    /// A store that answers `value` and counts its reads.
    #[derive(Clone, Default)]
    struct Store {
        value: Arc<AtomicU32>,
        reads: Arc<AtomicU32>,
    }

    impl Store {
        fn reader(&self) -> impl FnMut() -> std::future::Ready<Percent> + Send + 'static {
            let store = self.clone();
            move || {
                store.reads.fetch_add(1, Ordering::SeqCst);
                std::future::ready(Percent(store.value.load(Ordering::SeqCst)))
            }
        }

        fn reads(&self) -> u32 {
            self.reads.load(Ordering::SeqCst)
        }
    }

    const STEADY: Pacing = Pacing { first: Duration::from_millis(20), longest: Duration::from_millis(20) };

    #[tokio::test]
    async fn followers_of_one_run_share_one_poller() {
        let feeds = Feeds::new(STEADY);
        let store = Store::default();
        let followers: Vec<_> = (0..50).map(|_| feeds.follow("run", Percent(0), store.reader())).collect();
        tokio::time::sleep(Duration::from_millis(300)).await;
        // One poller: ~15 reads in 300 ms; fifty would have made ~750.
        assert!((5..=20).contains(&store.reads()), "{} reads", store.reads());
        assert_eq!(feeds.polled(), 1);
        drop(followers);
    }

    #[tokio::test]
    async fn every_follower_sees_the_change_the_poller_read() {
        let feeds = Feeds::new(STEADY);
        let store = Store::default();
        let mut first = feeds.follow("run", Percent(0), store.reader());
        let mut second = feeds.follow("run", Percent(0), store.reader());
        store.value.store(40, Ordering::SeqCst);
        for follower in [&mut first, &mut second] {
            tokio::time::timeout(Duration::from_secs(1), follower.changed()).await.expect("in time").expect("open");
            assert_eq!(*follower.borrow(), Percent(40));
        }
    }

    #[tokio::test]
    async fn polling_slows_down_while_nothing_changes_and_speeds_up_on_a_change() {
        let feeds = Feeds::new(Pacing { first: Duration::from_millis(10), longest: Duration::from_millis(160) });
        let store = Store::default();
        let mut follower = feeds.follow("run", Percent(0), store.reader());
        tokio::time::sleep(Duration::from_millis(700)).await;
        // Waits of 10, 20, 40, 80, 160, 160, 160 ms: 7 reads, where a steady 10 ms would be 70.
        let unchanged = store.reads();
        assert!((4..=10).contains(&unchanged), "{unchanged} reads");
        store.value.store(50, Ordering::SeqCst);
        tokio::time::timeout(Duration::from_secs(1), follower.changed()).await.expect("in time").expect("open");
        let at_the_change = store.reads();
        tokio::time::sleep(Duration::from_millis(100)).await;
        // Back to 10 ms after the change: reads 10, 30 and 70 ms after it, where 160 ms would allow one.
        assert!(store.reads() >= at_the_change + 2, "{} reads after the change", store.reads() - at_the_change);
    }

    #[tokio::test]
    async fn the_poller_stops_when_its_last_follower_leaves() {
        let feeds = Feeds::new(STEADY);
        let store = Store::default();
        let first = feeds.follow("run", Percent(0), store.reader());
        let second = feeds.follow("run", Percent(0), store.reader());
        drop(first);
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(feeds.polled(), 1, "one follower is still there");
        drop(second);
        tokio::time::sleep(Duration::from_millis(60)).await;
        let reads = store.reads();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!((feeds.polled(), store.reads()), (0, reads), "no one follows: no more reads");
    }

    #[tokio::test]
    async fn the_poller_stops_at_the_last_reading_which_its_followers_still_receive() {
        let feeds = Feeds::new(STEADY);
        let store = Store::default();
        let mut follower = feeds.follow("run", Percent(10), store.reader());
        store.value.store(100, Ordering::SeqCst);
        tokio::time::timeout(Duration::from_secs(1), follower.changed()).await.expect("in time").expect("unseen");
        assert_eq!(*follower.borrow_and_update(), Percent(100));
        assert_eq!(feeds.polled(), 0);
        assert!(follower.changed().await.is_err(), "nothing more comes");
        // A run already ended needs no poller.
        let late = feeds.follow("run", Percent(100), store.reader());
        assert_eq!((late.borrow().clone(), feeds.polled()), (Percent(100), 0));
    }
}
