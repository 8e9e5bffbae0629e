//! The creditflow binary: configuration, logging, adapters, application, serve.

use std::process::ExitCode;

use creditflow::config::Config;
use creditflow::{Adapters, Application, telemetry};

#[tokio::main]
async fn main() -> ExitCode {
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
