//! Time, so that expiry and windows are deterministic under test.

use time::OffsetDateTime;

/// The current time.
#[cfg_attr(test, mockall::automock)]
pub trait Clock: Send + Sync + 'static {
    /// Now, in UTC.
    fn now(&self) -> OffsetDateTime;

    /// Now, in Unix milliseconds.
    fn now_ms(&self) -> i64 {
        (self.now().unix_timestamp_nanos() / 1_000_000) as i64
    }
}
