//! Sliding-window rate-limit policy: at most `limit` accepted events in any rolling window.
//!
//! The log keeps the timestamps of accepted events only, so a client hammering a full window does
//! not push its own reset further away. Times are Unix milliseconds supplied by the caller.

use std::collections::VecDeque;

/// How many events a window admits and how long the window is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatePolicy {
    pub limit: u32,
    pub window_ms: i64,
}

impl RatePolicy {
    pub fn per_minute(limit: u32) -> Self {
        Self { limit, window_ms: 60_000 }
    }
}

/// The outcome of one attempt, with what the `X-RateLimit-*` headers report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateDecision {
    pub allowed: bool,
    pub limit: u32,
    /// Events still admitted in the current window after this one.
    pub remaining: u32,
    /// Unix milliseconds when the next slot frees (now, when a slot is free).
    pub reset_at_ms: i64,
}

impl RateDecision {
    /// Unix seconds, rounded up so a client that waits until then finds the slot free.
    pub fn reset_at_secs(&self) -> i64 {
        self.reset_at_ms.div_euclid(1000) + i64::from(self.reset_at_ms.rem_euclid(1000) != 0)
    }

    /// Whole seconds until the next slot frees, at least 1 when refused.
    pub fn retry_after_secs(&self, now_ms: i64) -> i64 {
        let wait_ms = (self.reset_at_ms - now_ms).max(0);
        ((wait_ms + 999) / 1000).max(1)
    }
}

/// Timestamps of the accepted events of one key, oldest first.
#[derive(Clone, Debug, Default)]
pub struct SlidingWindowLog {
    accepted: VecDeque<i64>,
}

impl SlidingWindowLog {
    /// A log holding the accepted events `at_ms` (any order), as a shared store keeps them.
    pub fn from_events(events: impl IntoIterator<Item = i64>) -> Self {
        let mut accepted: Vec<i64> = events.into_iter().collect();
        accepted.sort_unstable();
        Self { accepted: accepted.into() }
    }

    /// The accepted events, oldest first.
    pub fn events(&self) -> impl Iterator<Item = i64> + '_ {
        self.accepted.iter().copied()
    }

    /// Admits the event at `now_ms` if the window has room, recording it.
    pub fn try_acquire(&mut self, policy: RatePolicy, now_ms: i64) -> RateDecision {
        self.forget_before(now_ms - policy.window_ms);
        let allowed = self.accepted.len() < policy.limit as usize;
        if allowed {
            self.accepted.push_back(now_ms);
        }
        self.decision(policy, now_ms, allowed)
    }

    /// The state at `now_ms` without recording anything.
    pub fn peek(&mut self, policy: RatePolicy, now_ms: i64) -> RateDecision {
        self.forget_before(now_ms - policy.window_ms);
        let allowed = self.accepted.len() < policy.limit as usize;
        self.decision(policy, now_ms, allowed)
    }

    /// Gives back the slot of one event accepted at `at_ms` (an attempt that turned out not to
    /// count, like a sign-in that succeeded). Returns whether such an event was in the log.
    pub fn release(&mut self, at_ms: i64) -> bool {
        match self.accepted.iter().rposition(|&t| t == at_ms) {
            Some(index) => self.accepted.remove(index).is_some(),
            None => false,
        }
    }

    /// True when nothing in the log can matter any more (the key can be dropped).
    pub fn is_idle(&mut self, policy: RatePolicy, now_ms: i64) -> bool {
        self.forget_before(now_ms - policy.window_ms);
        self.accepted.is_empty()
    }

    fn forget_before(&mut self, cutoff_ms: i64) {
        // An event exactly `window` old has left the window.
        while self.accepted.front().is_some_and(|&t| t <= cutoff_ms) {
            self.accepted.pop_front();
        }
    }

    fn decision(&self, policy: RatePolicy, now_ms: i64, allowed: bool) -> RateDecision {
        let used = self.accepted.len() as u32;
        let remaining = policy.limit.saturating_sub(used);
        let reset_at_ms = if remaining > 0 {
            now_ms
        } else {
            self.accepted.front().map_or(now_ms, |oldest| oldest + policy.window_ms)
        };
        RateDecision { allowed, limit: policy.limit, remaining, reset_at_ms }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: RatePolicy = RatePolicy { limit: 3, window_ms: 60_000 };

    #[test]
    fn admits_up_to_the_limit_then_refuses() {
        let mut log = SlidingWindowLog::default();
        let remaining: Vec<_> = (0..3).map(|i| log.try_acquire(POLICY, 1_000 + i).remaining).collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let refused = log.try_acquire(POLICY, 2_000);
        assert!(!refused.allowed);
        assert_eq!(refused.remaining, 0);
        assert_eq!(refused.reset_at_ms, 61_000, "the oldest accepted event leaves at 1 000 + 60 000");
        assert_eq!(refused.retry_after_secs(2_000), 59);
    }

    #[test]
    fn the_window_rolls_rather_than_resetting_at_a_boundary() {
        let mut log = SlidingWindowLog::default();
        log.try_acquire(POLICY, 0);
        log.try_acquire(POLICY, 30_000);
        log.try_acquire(POLICY, 59_000);
        assert!(!log.try_acquire(POLICY, 59_999).allowed);
        // At 60 000 the event from 0 has left; the other two are still inside.
        let at_boundary = log.try_acquire(POLICY, 60_000);
        assert!(at_boundary.allowed);
        assert_eq!(at_boundary.remaining, 0);
        assert!(!log.try_acquire(POLICY, 60_001).allowed);
    }

    #[test]
    fn refused_attempts_do_not_extend_the_wait() {
        let mut log = SlidingWindowLog::default();
        for t in 0..3 {
            log.try_acquire(POLICY, t);
        }
        for t in 1_000..1_100 {
            assert!(!log.try_acquire(POLICY, t).allowed);
        }
        assert!(log.try_acquire(POLICY, 60_000).allowed);
    }

    #[test]
    fn reset_is_now_while_slots_remain_and_rounds_up_to_whole_seconds() {
        let mut log = SlidingWindowLog::default();
        let first = log.try_acquire(POLICY, 1_500);
        assert_eq!(first.reset_at_ms, 1_500);
        assert_eq!(first.reset_at_secs(), 2);
    }

    #[test]
    fn peek_records_nothing() {
        let mut log = SlidingWindowLog::default();
        assert_eq!(log.peek(POLICY, 0).remaining, 3);
        assert_eq!(log.peek(POLICY, 0).remaining, 3);
        assert!(log.is_idle(POLICY, 0));
    }
}

/// Path prefixes of the agent workflow endpoints, whose POSTs share one per-user budget.
pub const WORKFLOW_POST_PREFIXES: &[&str] =
    &["/api/quantitative-analysis/", "/api/deep-research/", "/api/digitizer-chatbot/", "/api/deals/"];

/// The exact workflow paths outside those prefixes.
pub const WORKFLOW_POST_PATHS: &[&str] = &["/api/extract"];

/// Whether a request counts against the per-user workflow budget.
pub fn is_workflow_request(method: &str, path: &str) -> bool {
    method.eq_ignore_ascii_case("POST")
        && (WORKFLOW_POST_PATHS.contains(&path) || WORKFLOW_POST_PREFIXES.iter().any(|prefix| path.starts_with(prefix)))
}

#[cfg(test)]
mod workflow_tests {
    use super::is_workflow_request;

    #[test]
    fn workflow_posts_count_and_reads_do_not() {
        assert!(is_workflow_request("POST", "/api/quantitative-analysis/company"));
        assert!(is_workflow_request("POST", "/api/extract"));
        assert!(is_workflow_request("POST", "/api/digitizer-chatbot/chat"));
        assert!(is_workflow_request("POST", "/api/deals/42/covenant-tests"));
        assert!(!is_workflow_request("GET", "/api/deep-research/results/abc"));
        assert!(!is_workflow_request("POST", "/api/auth/login"));
        assert!(!is_workflow_request("POST", "/api/extraction"));
    }
}
