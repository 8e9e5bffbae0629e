//! Domain compute time of a company analysis: six fiscal years of statements, eight quarters and
//! five years of daily prices (plus the benchmark's), through the credit analytics, the
//! trailing-twelve-month figures, the market statistics, the correlation matrix and both sets of
//! findings — everything but fetching and storing.
//! Run: `cargo bench --bench quant`.

use creditflow::domain::quant::credit::{MarketInputs, analyse_credit};
use creditflow::domain::quant::findings::{FindingThresholds, credit_findings};
use creditflow::domain::quant::market::{
    PricePoint, PriceSeries, TimeRange, correlation_matrix, instrument_statistics, market_findings,
};
use creditflow::domain::quant::quarterly::{
    QuarterSource, QuarterStatement, QuarterlyStatements, trailing_twelve_months,
};
use creditflow::domain::quant::statements::{CompanyFinancials, FiscalYearStatement};
use criterion::{Criterion, criterion_group, criterion_main};
use time::{Date, Duration, Month};

fn statements() -> CompanyFinancials {
    let years = (0..6)
        .map(|i| {
            let end = Date::from_calendar_date(2024 - i, Month::December, 31).expect("date");
            let scale = 1.0 - 0.05 * f64::from(i);
            let mut year = FiscalYearStatement::empty(end);
            year.revenue = Some(50_000.0 * scale);
            year.gross_profit = Some(20_000.0 * scale);
            year.operating_income = Some(8_000.0 * scale);
            year.net_income = Some(5_000.0 * scale);
            year.depreciation_amortization = Some(2_000.0 * scale);
            year.interest_expense = Some(900.0);
            year.income_tax = Some(1_500.0 * scale);
            year.total_assets = Some(80_000.0 * scale);
            year.current_assets = Some(25_000.0 * scale);
            year.total_liabilities = Some(45_000.0 * scale);
            year.current_liabilities = Some(15_000.0 * scale);
            year.long_term_debt_noncurrent = Some(18_000.0);
            year.long_term_debt_current = Some(2_000.0);
            year.short_term_borrowings = Some(1_000.0);
            year.equity = Some(35_000.0 * scale);
            year.cash = Some(6_000.0 * scale);
            year.retained_earnings = Some(20_000.0 * scale);
            year.receivables = Some(7_000.0 * scale);
            year.inventory = Some(5_000.0 * scale);
            year.cash_from_operations = Some(9_000.0 * scale);
            year.capital_expenditure = Some(3_000.0 * scale);
            year.shares_outstanding = Some(1_000.0);
            year
        })
        .collect();
    CompanyFinancials::new("Bench Industries", Some("BNCH".into()), years)
}

/// Eight calendar quarters after the latest fiscal year (2024), so the TTM runs over the last four.
fn quarters() -> QuarterlyStatements {
    let mut start = Date::from_calendar_date(2023, Month::July, 1).expect("date");
    let mut quarters = Vec::new();
    for i in 0..8 {
        let end = start.replace_month(start.month().nth_next(2)).expect("month");
        let end = end.replace_day(time::util::days_in_month(end.month(), end.year())).expect("day");
        let mut quarter = QuarterStatement::empty(start, end, QuarterSource::QuarterlyReport);
        let scale = 1.0 + 0.01 * f64::from(i);
        quarter.lines.revenue = Some(12_500.0 * scale);
        quarter.lines.operating_income = Some(2_000.0 * scale);
        quarter.lines.depreciation_amortization = Some(500.0);
        quarter.lines.net_income = Some(1_250.0 * scale);
        quarter.lines.long_term_debt = Some(20_000.0);
        quarter.lines.cash = Some(6_000.0);
        quarters.push(quarter);
        start = end.next_day().expect("date");
    }
    QuarterlyStatements::new(quarters)
}

/// ~5 years of weekday closes following a deterministic wave, so every statistic has data.
fn prices(symbol: &str, drift: f64, amplitude: f64) -> PriceSeries {
    let start = Date::from_calendar_date(2020, Month::January, 1).expect("date");
    let mut points = Vec::new();
    let mut day = start;
    let mut close = 100.0;
    for i in 0..1_830 {
        day += Duration::days(1);
        if matches!(day.weekday(), time::Weekday::Saturday | time::Weekday::Sunday) {
            continue;
        }
        close *= 1.0 + drift + amplitude * ((f64::from(i) * 0.37).sin() + 0.5 * (f64::from(i) * 1.13).cos());
        points.push(PricePoint { date: day, close });
    }
    PriceSeries::new(symbol, points).expect("valid series")
}

fn company_analysis(c: &mut Criterion) {
    let company = statements();
    let quarters = quarters();
    let (stock, benchmark) = (prices("BNCH", 0.0004, 0.012), prices("SPY", 0.0003, 0.008));
    let thresholds = FindingThresholds::default();
    c.bench_function("quant/company_analysis_6y_statements_5y_prices", |b| {
        b.iter(|| {
            let stock_stats =
                instrument_statistics(&stock, Some(&benchmark), TimeRange::FiveYears, 0.04).expect("stats");
            let benchmark_stats = instrument_statistics(&benchmark, None, TimeRange::FiveYears, 0.04).expect("stats");
            let market = MarketInputs {
                equity_market_value: stock.points().last().map_or(0.0, |p| p.close) * 1_000.0,
                equity_volatility: stock_stats.value("annualised_volatility").unwrap_or(0.3),
                equity_return: stock_stats.value("cagr").unwrap_or(0.0),
            };
            let credit = analyse_credit(&company, Some(market));
            let ttm = trailing_twelve_months(&quarters, credit.fiscal_year_end).expect("ttm");
            let correlations =
                correlation_matrix(&[stock.clone(), benchmark.clone()], TimeRange::FiveYears).expect("matrix");
            let findings = credit_findings(&credit, &thresholds, Some("USD"));
            let market_findings = market_findings(std::slice::from_ref(&stock_stats), Some(&benchmark_stats));
            (credit.metrics.len(), ttm.metrics.len(), correlations.observations, findings.len(), market_findings.len())
        });
    });
}

criterion_group!(benches, company_analysis);
criterion_main!(benches);
