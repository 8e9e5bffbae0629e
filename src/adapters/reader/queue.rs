//! Who reads next: a fair queue in front of the document readers.
//!
//! A file can legitimately take most of the read budget, and a plain semaphore hands the readers
//! out first come, first served: one analyst sending a few slow files in a row held every reader,
//! and everyone else's uploads waited behind them (in an outside review, two 30-second PDFs, four
//! requests a minute, kept every other user's upload at 503). Here a user has at most `per_user`
//! files being read at once; their other files wait, and a free reader goes to the users with files waiting
//! in turn (round robin over users, first come first served within a user), so another user's
//! file is read as soon as any reader frees up, whatever one user has queued.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::oneshot;

/// Readers handed out fairly among users (`K` is who asks: a user id).
pub struct FairQueue<K: Eq + Hash + Copy> {
    state: Mutex<Slots<K>>,
    total: usize,
    per_user: usize,
}

struct Slots<K: Eq + Hash + Copy> {
    /// Readers taken.
    running: usize,
    /// Readers taken, by user.
    running_by_user: HashMap<K, usize>,
    /// Each waiting user's waiters, oldest first.
    waiting: HashMap<K, VecDeque<oneshot::Sender<Permit<K>>>>,
    /// Users with waiters, in the order they are served.
    turn: VecDeque<K>,
}

/// One reader, held while a file is read; dropping it frees the reader for the next in turn.
pub struct Permit<K: Eq + Hash + Copy> {
    queue: Arc<FairQueue<K>>,
    user: K,
    /// False for a permit that was never handed out (its waiter had gone): nothing to free.
    held: bool,
}

impl<K: Eq + Hash + Copy> FairQueue<K> {
    /// `total` readers, at most `per_user` of them to one user at once (both at least 1).
    pub fn new(total: usize, per_user: usize) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(Slots {
                running: 0,
                running_by_user: HashMap::new(),
                waiting: HashMap::new(),
                turn: VecDeque::new(),
            }),
            total: total.max(1),
            per_user: per_user.max(1),
        })
    }

    /// A reader for `user`, when one comes to them within `wait`.
    pub async fn acquire(self: &Arc<Self>, user: K, wait: Duration) -> Option<Permit<K>> {
        let (sender, receiver) = oneshot::channel();
        {
            let mut slots = self.slots();
            let queue = slots.waiting.entry(user).or_default();
            if queue.is_empty() {
                slots.turn.push_back(user);
            }
            slots.waiting.entry(user).or_default().push_back(sender);
            self.hand_out(&mut slots);
        }
        // A permit sent just as the wait ends is dropped with the receiver, which frees it.
        tokio::time::timeout(wait, receiver).await.ok()?.ok()
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Slots<K>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives free readers to waiting users in turn, skipping users at their own cap (they keep
    /// their place) and waiters that have stopped waiting.
    fn hand_out(self: &Arc<Self>, slots: &mut Slots<K>) {
        let mut passed = 0;
        while slots.running < self.total && passed < slots.turn.len() {
            let Some(user) = slots.turn.pop_front() else { break };
            if slots.running_by_user.get(&user).copied().unwrap_or(0) >= self.per_user {
                slots.turn.push_back(user);
                passed += 1;
                continue;
            }
            let Some(waiters) = slots.waiting.get_mut(&user) else { continue };
            let mut served = false;
            while let Some(waiter) = waiters.pop_front() {
                let permit = Permit { queue: Arc::clone(self), user, held: true };
                match waiter.send(permit) {
                    Ok(()) => {
                        served = true;
                        break;
                    }
                    // The waiter stopped waiting: the permit comes back unused.
                    Err(mut unused) => unused.held = false,
                }
            }
            if waiters.is_empty() {
                slots.waiting.remove(&user);
            } else {
                slots.turn.push_back(user);
            }
            if served {
                slots.running += 1;
                *slots.running_by_user.entry(user).or_default() += 1;
                passed = 0;
            }
        }
    }

    fn release(self: &Arc<Self>, user: K) {
        let mut slots = self.slots();
        slots.running = slots.running.saturating_sub(1);
        if let Some(count) = slots.running_by_user.get_mut(&user) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                slots.running_by_user.remove(&user);
            }
        }
        self.hand_out(&mut slots);
    }
}

impl<K: Eq + Hash + Copy> Drop for Permit<K> {
    fn drop(&mut self) {
        if self.held {
            self.queue.release(self.user);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_millis(200);

    #[tokio::test]
    async fn a_user_at_their_cap_waits_while_another_user_is_served() {
        let queue = FairQueue::new(2, 1);
        let first = queue.acquire('a', WAIT).await.expect("a free reader");
        assert!(queue.acquire('a', WAIT).await.is_none(), "a second file of the same user waits");
        assert!(queue.acquire('b', WAIT).await.is_some(), "another user takes the other reader");
        drop(first);
        assert!(queue.acquire('a', WAIT).await.is_some());
    }

    #[tokio::test]
    async fn a_freed_reader_goes_to_the_next_user_in_turn_not_to_the_user_with_the_most_files_queued() {
        let queue = FairQueue::new(1, 1);
        let running = queue.acquire('a', WAIT).await.expect("a free reader");
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for user in ['a', 'a', 'a', 'b'] {
            let (queue, order) = (queue.clone(), order.clone());
            waiting.push(tokio::spawn(async move {
                let permit = queue.acquire(user, Duration::from_secs(5)).await.expect("served in time");
                order.lock().unwrap().push(user);
                tokio::time::sleep(Duration::from_millis(10)).await;
                drop(permit);
            }));
            // Queued in this order.
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        drop(running);
        for task in waiting {
            task.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec!['a', 'b', 'a', 'a']);
    }

    #[tokio::test]
    async fn a_waiter_that_gave_up_does_not_keep_a_reader() {
        let queue = FairQueue::new(1, 2);
        let running = queue.acquire('a', WAIT).await.expect("a free reader");
        assert!(queue.acquire('b', Duration::from_millis(20)).await.is_none());
        drop(running);
        assert!(queue.acquire('c', WAIT).await.is_some(), "the reader went to no one who left");
    }

    #[tokio::test]
    async fn the_per_user_cap_is_configurable() {
        let queue = FairQueue::new(3, 2);
        let _one = queue.acquire('a', WAIT).await.expect("first");
        let _two = queue.acquire('a', WAIT).await.expect("second, within a cap of two");
        assert!(queue.acquire('a', WAIT).await.is_none());
    }
}
