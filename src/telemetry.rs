//! Logging: one subscriber for the process, human-readable or JSON lines.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber. `filter` uses `RUST_LOG` syntax. Safe to call more than once
/// (later calls do nothing), which tests rely on.
pub fn init(format: LogFormat, filter: &str) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Json => builder.json().with_current_span(true).with_span_list(false).try_init(),
        LogFormat::Pretty => builder.compact().try_init(),
    };
}
