//! The creditflow binary: configuration, logging, adapters, application, serve. Started as
//! `creditflow read-document …` it is the document reader's worker process instead, and as
//! `creditflow backup FILE` / `creditflow restore FILE` it backs up or restores the embedded cluster.

use std::process::ExitCode;

use creditflow::config::Config;
use creditflow::{Adapters, Application, telemetry};

fn main() -> ExitCode {
    if let Some(code) = creditflow::adapters::reader::worker::run_if_requested() {
        return code;
    }
    if let Some(code) = creditflow::adapters::postgres::backup::run_if_requested() {
        return code;
    }
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(serve()),
        Err(error) => {
            eprintln!("creditflow: cannot start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> ExitCode {
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("creditflow: configuration error: {error}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(config.log_format, &config.log_filter);
    match run(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = format!("{error:#}"), "creditflow failed to start");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: Config) -> anyhow::Result<()> {
    let adapters = Adapters::from_config(&config).await?;
    Application::build_with(config, adapters).await?.run_until_stopped().await
}
