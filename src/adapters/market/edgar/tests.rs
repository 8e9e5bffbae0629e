//! The adapter against a fake SEC: resolution, statements and quarters as fetched, the User-Agent,
//! failures, retries and the request rate.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use time::Date;
use time::macros::date;

use super::fixtures::{FACTS, TICKERS_JSON, apple, company, ends, quarter};
use super::*;
use crate::adapters::fake_provider::{Answer, FakeProvider, Received, refused_url};
use crate::domain::quant::quarterly::QuarterSource;
use crate::ports::financial_data::StatementLine;

const USER_AGENT: &str = "creditflow-tests credit-team@example.com";
const TICKERS_PATH: &str = "/files/company_tickers.json";
const FACTS_PREFIX: &str = "/api/xbrl/companyfacts/";

fn query(name: &str) -> CompanyQuery {
    CompanyQuery::new(name, None)
}

/// How the fake SEC misbehaves.
#[derive(Clone, Copy, Default)]
struct Conditions {
    /// Every request answers 500.
    always_fail: bool,
    /// Waited before a file is served.
    delay: Duration,
}

/// A local SEC: `company_tickers.json` and the company-facts fixtures, with scripted failures.
struct FakeSec {
    addr: SocketAddr,
    provider: FakeProvider,
    conditions: Arc<StdMutex<Conditions>>,
}

/// SEC's error page, with a `Retry-After` in seconds when given.
fn sec_error(status: u16, retry_after: Option<&str>) -> Answer {
    let answer = Answer::json(status, "<html>Service Unavailable</html>");
    match retry_after {
        Some(seconds) => answer.header("retry-after", seconds),
        None => answer,
    }
}

/// The fixture SEC serves at `path`, or its 404.
fn sec_file(path: &str) -> Answer {
    let body = if path == TICKERS_PATH {
        Some(TICKERS_JSON)
    } else {
        path.strip_prefix(FACTS_PREFIX)
            .and_then(|file| FACTS.iter().find(|(name, _)| *name == file))
            .map(|(_, body)| *body)
    };
    match body {
        Some(body) => Answer::json(200, body),
        None => Answer::json(404, "{\"message\":\"Not Found\"}"),
    }
}

impl FakeSec {
    async fn start() -> Self {
        let conditions = Arc::new(StdMutex::new(Conditions::default()));
        let current = Arc::clone(&conditions);
        let provider = FakeProvider::answering(move |request| {
            let Conditions { always_fail, delay } = *current.lock().expect("conditions");
            if always_fail { sec_error(500, None) } else { sec_file(&request.path).delayed(delay) }
        })
        .await;
        Self { addr: provider.addr(), provider, conditions }
    }

    fn settings(&self) -> EdgarSettings {
        EdgarSettings {
            tickers_url: format!("http://{}{TICKERS_PATH}", self.addr),
            facts_base_url: format!("http://{}{}", self.addr, FACTS_PREFIX),
            timeout: Duration::from_secs(5),
            max_requests_per_second: 1000,
            retry_base_delay: Duration::from_millis(5),
            ..EdgarSettings::new(USER_AGENT)
        }
    }

    fn client(&self) -> EdgarClient {
        EdgarClient::new(self.settings()).expect("client")
    }

    fn fail_next(&self, status: u16, retry_after: Option<&str>) {
        self.provider.answer_next(sec_error(status, retry_after));
    }

    fn always_fail(&self) {
        self.conditions.lock().expect("conditions").always_fail = true;
    }

    fn delay(&self, delay: Duration) {
        self.conditions.lock().expect("conditions").delay = delay;
    }

    fn received(&self) -> Vec<Received> {
        self.provider.received()
    }
}

fn assert_unavailable(error: &FinancialDataError) {
    assert!(matches!(error, FinancialDataError::Unavailable { provider: "SEC EDGAR", .. }), "{error:?}");
    assert!(error.to_string().contains("SEC EDGAR"), "{error}");
}

// ---- resolution ----

#[tokio::test]
async fn market_edgar_resolves_a_ticker_and_sends_the_user_agent() {
    let sec = FakeSec::start().await;

    let company = sec.client().resolve(&CompanyQuery::new("", Some("aapl".to_owned()))).await.expect("apple");

    assert_eq!(company, apple());
    let received = sec.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].path, TICKERS_PATH);
    assert_eq!(received[0].header("user-agent"), Some(USER_AGENT));
}

#[tokio::test]
async fn market_edgar_resolves_names_ignoring_case_punctuation_and_legal_suffixes() {
    let sec = FakeSec::start().await;
    let client = sec.client();

    let apple_by_name = client.resolve(&query("apple")).await.expect("apple");
    assert_eq!(apple_by_name.name, "Apple Inc.", "the exact name beats Apple Hospitality REIT");
    assert_eq!(client.resolve(&query("LEVERCO HOLDINGS")).await.expect("leverco").cik, 1900001);
    assert_eq!(client.resolve(&query("Fallback Widgets Inc")).await.expect("fallback").cik, 1900002);
    assert_eq!(client.resolve(&query("lossmaker")).await.expect("prefix").cik, 1900003);
    assert_eq!(client.resolve(&query("AAPL")).await.expect("name as ticker").cik, 320193);
    let berkshire = client.resolve(&CompanyQuery::new("x", Some("brk.b".to_owned()))).await.expect("brk");
    assert_eq!((berkshire.cik, berkshire.ticker.as_deref()), (1067983, Some("BRK-B")));
    let alphabet = client.resolve(&query("alphabet")).await.expect("one company, two share classes");
    assert_eq!((alphabet.cik, alphabet.ticker.as_deref()), (1652044, Some("GOOGL")));
    let wrong_ticker = CompanyQuery::new("Apple Inc.", Some("ZZZZ".to_owned()));
    assert_eq!(client.resolve(&wrong_ticker).await.expect("name after unknown ticker").cik, 320193);

    let tickers_fetches = sec.received().iter().filter(|r| r.path == TICKERS_PATH).count();
    assert_eq!(tickers_fetches, 1, "the ticker list is fetched once and cached");
}

#[tokio::test]
async fn market_edgar_ambiguous_names_return_the_candidates() {
    let sec = FakeSec::start().await;

    let error = sec.client().resolve(&query("Acme")).await.expect_err("ambiguous");

    let FinancialDataError::Ambiguous { query, candidates } = &error else { panic!("{error:?}") };
    assert_eq!(query, "Acme");
    let names: Vec<&str> = candidates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["ACME UNITED CORP", "Acme Capital Holdings Inc /DE/"]);
    assert!(error.is_client_error());
}

#[tokio::test]
async fn market_edgar_unknown_companies_are_named_in_the_error() {
    let sec = FakeSec::start().await;
    let client = sec.client();

    let error = client.resolve(&query("Nonexistent Widgets")).await.expect_err("unknown");
    assert!(
        matches!(&error, FinancialDataError::UnknownCompany { query } if query == "Nonexistent Widgets"),
        "{error:?}"
    );
    assert!(error.to_string().contains("Nonexistent Widgets"));
    assert!(matches!(client.resolve(&query("  ")).await, Err(FinancialDataError::UnknownCompany { .. })));
    assert!(matches!(client.resolve(&query("Inc.")).await, Err(FinancialDataError::UnknownCompany { .. })));
}

// ---- statements ----

#[tokio::test]
async fn market_edgar_healthy_company_statements_and_provenance() {
    let sec = FakeSec::start().await;
    let client = sec.client();

    let result = client.annual_statements(&apple(), 6).await.expect("statements");

    let financials = &result.financials;
    assert_eq!((financials.name(), financials.ticker()), ("Apple Inc.", Some("AAPL")));
    let ends: Vec<Date> = financials.years().iter().map(|y| y.fiscal_year_end).collect();
    assert_eq!(ends, vec![date!(2023 - 09 - 30), date!(2022 - 09 - 24), date!(2021 - 09 - 25)]);
    let fy23 = &financials.years()[0];
    assert_eq!(fy23.revenue, Some(383_285_000_000.0), "the 10-Q quarter is ignored");
    assert_eq!(fy23.operating_income, Some(114_301_000_000.0));
    assert_eq!(fy23.net_income, Some(96_995_000_000.0));
    assert_eq!(fy23.depreciation_amortization, Some(11_519_000_000.0));
    assert_eq!(fy23.interest_expense, Some(3_933_000_000.0));
    assert_eq!(fy23.total_assets, Some(352_583_000_000.0));
    assert_eq!(fy23.total_liabilities, Some(290_437_000_000.0));
    assert_eq!(fy23.equity, Some(62_146_000_000.0));
    assert_eq!(fy23.total_debt(), Some(95_281_000_000.0 + 9_822_000_000.0 + 5_985_000_000.0));
    assert_eq!(fy23.retained_earnings, Some(-214_000_000.0));
    assert_eq!(fy23.capital_expenditure, Some(10_959_000_000.0));
    assert_eq!(fy23.shares_outstanding, Some(15_552_752_000.0), "the 10-K cover, not the later 10-Q");
    assert_eq!(fy23.long_term_debt, None, "an unreported line stays None");
    let fy22 = &financials.years()[1];
    assert_eq!(fy22.revenue, Some(394_328_000_000.0));
    assert_eq!(fy22.equity, Some(50_672_000_000.0));
    assert_eq!(fy22.shares_outstanding, Some(15_943_425_000.0));
    let fy21 = &financials.years()[2];
    assert_eq!((fy21.revenue, fy21.net_income), (Some(365_817_000_000.0), Some(94_680_000_000.0)));
    assert_eq!(fy21.total_assets, None, "only the comparatives a 10-K reports");

    let revenue = result.provenance_of(date!(2023 - 09 - 30), StatementLine::Revenue).expect("provenance");
    assert_eq!(revenue.tag, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax");
    assert_eq!(revenue.value, 383_285_000_000.0);
    assert_eq!(revenue.accession_number, "0000320193-23-000106");
    assert_eq!(revenue.form, "10-K");
    assert_eq!(revenue.period_start, Some(date!(2022 - 09 - 25)));
    assert_eq!(revenue.period_end, date!(2023 - 09 - 30));
    assert_eq!(revenue.filed, date!(2023 - 11 - 03));
    assert_eq!(revenue.source_url, format!("http://{}{}CIK0000320193.json", sec.addr, FACTS_PREFIX));
    assert_eq!(revenue.derivation, None);
    let fy22_revenue = result.provenance_of(date!(2022 - 09 - 24), StatementLine::Revenue).expect("fy22");
    assert_eq!(fy22_revenue.accession_number, "0000320193-23-000106", "the later comparative wins");
    let assets = result.provenance_of(date!(2023 - 09 - 30), StatementLine::TotalAssets).expect("assets");
    assert_eq!((assets.tag.as_str(), assets.period_start), ("us-gaap:Assets", None));
    let shares = result.provenance_of(date!(2023 - 09 - 30), StatementLine::SharesOutstanding).expect("shares");
    assert_eq!(
        (shares.tag.as_str(), shares.period_end),
        ("dei:EntityCommonStockSharesOutstanding", date!(2023 - 10 - 20))
    );
    assert_eq!(fy21.equity, Some(63_090_000_000.0), "the opening equity of the 2022 10-K");
    assert_eq!(result.provenance.len(), 21 + 21 + 3, "one entry per reported line and year");
    let received = sec.received();
    assert_eq!(received.last().map(|r| r.header("user-agent")), Some(Some(USER_AGENT)));
}

#[tokio::test]
async fn market_edgar_leveraged_company_takes_restatements_and_amendments() {
    let sec = FakeSec::start().await;

    let result = sec
        .client()
        .annual_statements(&company(1900001, "Leverco Holdings Corp.", "LVRG"), 5)
        .await
        .expect("statements");

    let fy23 = result.financials.latest().expect("fy23");
    assert_eq!(fy23.fiscal_year_end, date!(2023 - 12 - 31));
    assert_eq!(fy23.revenue, Some(2_000_000_000.0));
    assert_eq!(fy23.net_income, Some(8_000_000.0), "the 10-K/A amends the 10-K");
    assert_eq!(fy23.total_debt(), Some(2_600_000_000.0 + 200_000_000.0));
    assert_eq!(fy23.ebitda(), Some(400_000_000.0));
    let leverage = fy23.total_debt().zip(fy23.ebitda()).map(|(debt, ebitda)| debt / ebitda);
    assert_eq!(leverage, Some(7.0));
    let net_income = result.provenance_of(fy23.fiscal_year_end, StatementLine::NetIncome).expect("ni");
    assert_eq!((net_income.form.as_str(), net_income.accession_number.as_str()), ("10-K/A", "0001900001-24-000011"));
    let fy22 = result.financials.prior().expect("fy22");
    assert_eq!(fy22.revenue, Some(1_880_000_000.0), "the restated comparative replaces the original");
    assert_eq!(fy22.net_income, Some(-5_000_000.0));
    let restated = result.provenance_of(fy22.fiscal_year_end, StatementLine::Revenue).expect("restated");
    assert_eq!((restated.accession_number.as_str(), restated.filed), ("0001900001-24-000003", date!(2024 - 02 - 27)));
}

#[tokio::test]
async fn market_edgar_missing_tags_use_the_fallbacks_and_the_liabilities_derivation() {
    let sec = FakeSec::start().await;

    let result = sec
        .client()
        .annual_statements(&company(1900002, "Fallback Widgets, Inc.", "FBWG"), 5)
        .await
        .expect("statements");

    let [fy23, fy22] = result.financials.years() else { panic!("two years: {:?}", result.financials) };
    assert_eq!(fy23.fiscal_year_end, date!(2023 - 06 - 30));
    assert_eq!(fy23.revenue, Some(540_000_000.0));
    assert_eq!(fy22.revenue, Some(500_000_000.0));
    let tag = |end, line| result.provenance_of(end, line).map(|p| p.tag.clone());
    assert_eq!(
        tag(fy23.fiscal_year_end, StatementLine::Revenue).as_deref(),
        Some("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")
    );
    assert_eq!(tag(fy22.fiscal_year_end, StatementLine::Revenue).as_deref(), Some("us-gaap:SalesRevenueNet"));
    assert_eq!(fy23.depreciation_amortization, Some(22_000_000.0));
    assert_eq!(
        tag(fy23.fiscal_year_end, StatementLine::DepreciationAmortization).as_deref(),
        Some("us-gaap:DepreciationAndAmortization")
    );
    assert_eq!(fy23.interest_expense, Some(4_500_000.0));
    assert_eq!(
        tag(fy23.fiscal_year_end, StatementLine::InterestExpense).as_deref(),
        Some("us-gaap:InterestExpenseNonoperating")
    );

    assert_eq!(fy23.total_liabilities, Some(760_000_000.0 - 445_000_000.0));
    assert_eq!(fy22.total_liabilities, Some(700_000_000.0 - 400_000_000.0));
    let derived =
        result.provenance_of(fy23.fiscal_year_end, StatementLine::TotalLiabilities).expect("derived liabilities");
    assert_eq!(derived.tag, "us-gaap:LiabilitiesAndStockholdersEquity - us-gaap:StockholdersEquity");
    let derivation = derived.derivation.as_deref().expect("derivation recorded");
    assert!(derivation.contains("760000000") && derivation.contains("445000000"), "{derivation}");

    assert_eq!(fy23.shares_outstanding, Some(34_500_000.0), "two share classes summed");
    let shares = result.provenance_of(fy23.fiscal_year_end, StatementLine::SharesOutstanding).expect("shares");
    assert!(shares.derivation.as_deref().is_some_and(|d| d.contains("2 share classes")), "{shares:?}");
    assert_eq!(fy22.shares_outstanding, Some(30_000_000.0));
}

#[tokio::test]
async fn market_edgar_net_loss_is_kept_negative() {
    let sec = FakeSec::start().await;

    let result = sec
        .client()
        .annual_statements(&company(1900003, "Lossmaker Therapeutics, Inc.", "LOSS"), 5)
        .await
        .expect("statements");

    let [fy23] = result.financials.years() else { panic!("one year: {:?}", result.financials) };
    assert_eq!(fy23.net_income, Some(-150_000_000.0));
    assert_eq!(fy23.ebit(), Some(-140_000_000.0));
    assert_eq!(fy23.cash_from_operations, Some(-120_000_000.0));
    assert_eq!(fy23.retained_earnings, Some(-900_000_000.0));
    assert_eq!(fy23.income_tax, Some(0.0));
    assert_eq!(fy23.depreciation_amortization, None);
    assert_eq!(fy23.ebitda(), None, "no D&A reported, none invented");
    assert_eq!(fy23.shares_outstanding, None);
}

#[tokio::test]
async fn market_edgar_years_limits_the_fiscal_years_newest_first() {
    let sec = FakeSec::start().await;

    let result = sec.client().annual_statements(&apple(), 1).await.expect("statements");

    let ends: Vec<Date> = result.financials.years().iter().map(|y| y.fiscal_year_end).collect();
    assert_eq!(ends, vec![date!(2023 - 09 - 30)]);
    assert!(result.provenance.iter().all(|p| p.statement_end == date!(2023 - 09 - 30)));
}

#[tokio::test]
async fn market_edgar_company_without_facts_has_no_statements() {
    let sec = FakeSec::start().await;

    let error =
        sec.client().annual_statements(&company(1900005, "No XBRL Shell Co", "NOXB"), 5).await.expect_err("404");

    assert!(
        matches!(&error, FinancialDataError::NoStatements { provider: "SEC EDGAR", company, reason }
            if company == "No XBRL Shell Co" && reason.contains("CIK 0001900005")),
        "{error:?}"
    );
    assert!(error.is_client_error());
    assert_eq!(sec.received().len(), 1, "a 404 is not retried");
}

// ---- failures, retries, rate limit ----

#[tokio::test]
async fn market_edgar_retries_a_503_then_succeeds() {
    let sec = FakeSec::start().await;
    sec.fail_next(503, None);
    sec.fail_next(429, Some("0"));

    let result = sec.client().annual_statements(&apple(), 2).await.expect("statements after retries");

    assert_eq!(result.financials.years().len(), 2);
    assert_eq!(sec.received().len(), 3);
}

#[tokio::test]
async fn market_edgar_persistent_500_is_unavailable_naming_the_provider() {
    let sec = FakeSec::start().await;
    sec.always_fail();
    let client = sec.client();

    let error = client.annual_statements(&apple(), 2).await.expect_err("unavailable");
    assert_unavailable(&error);
    assert!(error.to_string().contains("500"), "{error}");
    assert_eq!(sec.received().len(), 3, "three attempts");

    let error = client.resolve(&query("apple")).await.expect_err("unavailable");
    assert_unavailable(&error);
}

#[tokio::test]
async fn market_edgar_timeout_is_unavailable() {
    let sec = FakeSec::start().await;
    sec.delay(Duration::from_secs(3));
    let client =
        EdgarClient::new(EdgarSettings { timeout: Duration::from_millis(200), ..sec.settings() }).expect("client");
    let started = std::time::Instant::now();

    let error = client.annual_statements(&apple(), 2).await.expect_err("timeout");

    assert_unavailable(&error);
    assert!(started.elapsed() < Duration::from_secs(3), "not waiting for the slow answer");
    assert_eq!(sec.received().len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn market_edgar_connection_refused_is_unavailable_after_retries() {
    let refused = refused_url("");
    let client = EdgarClient::new(EdgarSettings {
        tickers_url: format!("{refused}/files/company_tickers.json"),
        facts_base_url: format!("{refused}/api/xbrl/companyfacts"),
        retry_base_delay: Duration::from_millis(1),
        ..EdgarSettings::new(USER_AGENT)
    })
    .expect("client");

    let error = client.resolve(&query("apple")).await.expect_err("refused");

    assert_unavailable(&error);
    assert!(error.to_string().contains("3 attempts"), "{error}");
}

#[tokio::test]
async fn market_edgar_respects_the_request_rate_across_calls() {
    let sec = FakeSec::start().await;
    let client = EdgarClient::new(EdgarSettings { max_requests_per_second: 10, ..sec.settings() }).expect("client");
    let started = std::time::Instant::now();

    let lossmaker = company(1900003, "Lossmaker", "LOSS");
    let calls = (0..12).map(|_| client.annual_statements(&lossmaker, 1));
    let results = futures_util::future::join_all(calls).await;

    assert!(results.iter().all(Result::is_ok));
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(1050), "12 requests at 10/s take at least 1.1 s: {elapsed:?}");
}

#[test]
fn market_edgar_settings_are_validated() {
    let settings = EdgarSettings::new(USER_AGENT);
    assert_eq!(settings.max_requests_per_second, 10);
    assert!(EdgarClient::new(settings.clone()).is_ok());
    assert!(EdgarClient::new(EdgarSettings { user_agent: " ".to_owned(), ..settings.clone() }).is_err());
    assert!(EdgarClient::new(EdgarSettings { max_requests_per_second: 0, ..settings.clone() }).is_err());
    assert!(EdgarClient::new(EdgarSettings { tickers_url: "ftp://x/y".to_owned(), ..settings.clone() }).is_err());
    assert!(EdgarClient::new(EdgarSettings { facts_base_url: "not a url".to_owned(), ..settings }).is_err());
}

// ---- quarters ----

#[tokio::test]
async fn market_edgar_healthy_company_quarters_with_a_derived_fourth_quarter() {
    let sec = FakeSec::start().await;

    let statements = sec.client().statements(&apple(), 6, 8).await.expect("statements");

    let quarterly = &statements.quarterly;
    let expected: Vec<Date> = vec![
        date!(2023 - 12 - 30),
        date!(2023 - 09 - 30),
        date!(2023 - 07 - 01),
        date!(2023 - 04 - 01),
        date!(2022 - 12 - 31),
    ];
    assert_eq!(ends(quarterly), expected);
    let q4 = quarter(quarterly, date!(2023 - 09 - 30));
    assert_eq!((q4.period_start, q4.source), (date!(2023 - 07 - 02), QuarterSource::DerivedFourthQuarter));
    let billions = |v: f64| v * 1e6;
    assert_eq!(q4.lines.revenue, Some(billions(383_285.0 - 117_154.0 - 94_836.0 - 81_797.0)));
    assert_eq!(q4.lines.depreciation_amortization, Some(billions(11_519.0 - 8_866.0)), "FY less nine months");
    assert_eq!(q4.lines.equity, Some(billions(62_146.0)));
    let q2 = quarter(quarterly, date!(2023 - 04 - 01));
    assert_eq!(q2.lines.depreciation_amortization, Some(billions(5_814.0 - 2_916.0)));
    assert_eq!(q2.lines.revenue, Some(billions(94_836.0)));
    let latest = quarter(quarterly, date!(2023 - 12 - 30));
    assert_eq!(latest.lines.revenue, Some(119_575_000_000.0));
    assert_eq!(latest.lines.interest_expense, None, "not reported that quarter, not invented");
    assert_eq!(latest.lines.total_debt(), Some(billions(95_088.0 + 10_954.0 + 1_998.0)));
    let q1_revenue =
        quarterly.provenance_of(date!(2022 - 12 - 31), StatementLine::Revenue).expect("provenance of Q1 FY2023");
    assert_eq!(q1_revenue.accession_number, "0000320193-24-000006", "the later comparative wins");
    assert_eq!(q1_revenue.source_url, format!("http://{}{}CIK0000320193.json", sec.addr, FACTS_PREFIX));
    assert!(quarterly.left_out.is_empty(), "{:?}", quarterly.left_out);
    assert_eq!(statements.annual.financials.latest().and_then(|y| y.revenue), Some(383_285_000_000.0));
    assert_eq!(sec.received().len(), 1, "annual and quarterly statements from one fetch");
}

#[tokio::test]
async fn market_edgar_leveraged_company_quarters_take_the_amended_10q_and_10k() {
    let sec = FakeSec::start().await;

    let statements =
        sec.client().statements(&company(1900001, "Leverco Holdings Corp.", "LVRG"), 6, 8).await.expect("statements");

    let quarterly = &statements.quarterly;
    let q1 = quarter(quarterly, date!(2024 - 03 - 31));
    assert_eq!(q1.lines.revenue, Some(476_000_000.0), "the 10-Q/A restates the 10-Q");
    let revenue = quarterly.provenance_of(q1.period_end, StatementLine::Revenue).expect("provenance");
    assert_eq!((revenue.form.as_str(), revenue.accession_number.as_str()), ("10-Q/A", "0001900001-24-000025"));
    let q4 = quarter(quarterly, date!(2023 - 12 - 31));
    assert_eq!(q4.lines.net_income, Some(2_000_000.0), "8 (10-K/A) - 1 - 2 - 3, in millions");
    let net_income = quarterly.provenance_of(q4.period_end, StatementLine::NetIncome).expect("provenance");
    assert_eq!(net_income.form, "10-K/A");
    assert_eq!(ends(quarterly).len(), 6);
}

#[tokio::test]
async fn market_edgar_missing_second_quarter_leaves_the_fourth_out_and_says_so() {
    let sec = FakeSec::start().await;

    let statements =
        sec.client().statements(&company(1900002, "Fallback Widgets, Inc.", "FBWG"), 6, 8).await.expect("statements");

    let quarterly = &statements.quarterly;
    let expected: Vec<Date> =
        vec![date!(2023 - 12 - 31), date!(2023 - 09 - 30), date!(2023 - 03 - 31), date!(2022 - 09 - 30)];
    assert_eq!(ends(quarterly), expected);
    let [note] = quarterly.left_out.as_slice() else { panic!("{:?}", quarterly.left_out) };
    assert!(note.contains("2022-07-01 to 2023-06-30") && note.contains("Q2"), "{note}");
    let tag = |end, line| quarterly.provenance_of(end, line).map(|p| p.tag.clone());
    assert_eq!(tag(date!(2022 - 09 - 30), StatementLine::Revenue).as_deref(), Some("us-gaap:SalesRevenueNet"));
    assert_eq!(
        tag(date!(2023 - 12 - 31), StatementLine::Revenue).as_deref(),
        Some("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")
    );
    assert_eq!(
        tag(date!(2023 - 12 - 31), StatementLine::InterestExpense).as_deref(),
        Some("us-gaap:InterestExpenseNonoperating")
    );
    let latest = quarter(quarterly, date!(2023 - 12 - 31));
    assert_eq!(latest.lines.total_liabilities, Some(785_000_000.0 - 465_000_000.0), "derived at the quarter end");
}

#[tokio::test]
async fn market_edgar_company_without_10q_facts_has_no_quarters_and_says_so() {
    let sec = FakeSec::start().await;

    let statements = sec
        .client()
        .statements(&company(1900003, "Lossmaker Therapeutics, Inc.", "LOSS"), 6, 8)
        .await
        .expect("statements");

    assert!(statements.quarterly.statements.is_empty());
    assert_eq!(
        statements.quarterly.left_out,
        vec!["no quarterly (10-Q) facts of three-month periods are reported".to_owned()]
    );
    assert_eq!(statements.annual.financials.years().len(), 1);
}
