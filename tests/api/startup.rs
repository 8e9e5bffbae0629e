//! Adapters picked from configuration at start-up.

use creditflow::Adapters;
use creditflow::config::Config;
use creditflow::ports::financial_data::{CompanyQuery, FinancialDataError};

#[tokio::test]
async fn a_market_data_mirror_replaces_the_providers() {
    let dir = std::env::temp_dir().join(format!("creditflow-mirror-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("company_tickers.json"),
        r#"{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."}}"#,
    )
    .expect("tickers");
    let config = Config::for_tests(&[("MARKET_DATA_DIR", dir.to_str().expect("utf-8"))]).expect("config");

    let adapters = Adapters::from_config(&config).await.expect("adapters");

    let financial = adapters.financial_data.expect("statements adapter");
    let apple = financial.resolve(&CompanyQuery::new("apple", None)).await.expect("resolved from the mirror");
    assert_eq!(apple.cik, 320193);
    let missing = financial.annual_statements(&apple, 5).await.expect_err("no companyfacts file in the mirror");
    assert!(matches!(missing, FinancialDataError::InvalidData { .. }), "{missing:?}");
    assert_eq!(adapters.prices.expect("prices adapter").provider(), "local-mirror");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[tokio::test]
async fn a_malformed_provider_url_stops_the_start_up_naming_the_variable() {
    let config = Config::for_tests(&[("YAHOO_CHART_URL", "ftp://prices.example")]).expect("config");
    let error = Adapters::from_config(&config).await.err().expect("refused").to_string();
    assert!(error.contains("YAHOO_CHART_URL"), "{error}");
    let config = Config::for_tests(&[("SEC_TICKERS_URL", "not a url")]).expect("config");
    let error = Adapters::from_config(&config).await.err().expect("refused").to_string();
    assert!(error.contains("SEC_TICKERS_URL"), "{error}");
}
