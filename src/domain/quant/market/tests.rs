//! Tests of the market statistics: the DOMAIN.md §2 vector, hand-computed checks, alignment,
//! degenerate inputs, findings, and a property test that nothing is ever NaN or infinite.

use proptest::prelude::*;
use time::macros::date;
use time::{Date, Duration};

use super::*;
use crate::domain::quant::Metric;

const START: Date = date!(2024 - 01 - 01);

/// A series with one close per calendar day from [`START`].
fn daily(symbol: &str, closes: &[f64]) -> PriceSeries {
    dated(symbol, closes.iter().enumerate().map(|(i, &c)| (START + Duration::days(i as i64), c)))
}

fn dated(symbol: &str, closes: impl IntoIterator<Item = (Date, f64)>) -> PriceSeries {
    PriceSeries::from_closes(symbol, closes).expect("test series are valid")
}

fn stats(series: &PriceSeries, benchmark: Option<&PriceSeries>, risk_free: f64) -> InstrumentStatistics {
    instrument_statistics(series, benchmark, TimeRange::FiveYears, risk_free).expect("statistics")
}

fn metric<'a>(stats: &'a InstrumentStatistics, name: &str) -> &'a Metric {
    stats.metric(name).unwrap_or_else(|| panic!("metric {name} missing; omitted: {:?}", stats.omitted))
}

fn input(metric: &Metric, name: &str) -> f64 {
    metric.inputs.iter().find(|i| i.name == name).map(|i| i.value).unwrap_or_else(|| panic!("input {name}"))
}

fn assert_close(actual: f64, expected: f64, tolerance: f64) {
    assert!((actual - expected).abs() <= tolerance, "expected {expected}, got {actual} (tolerance {tolerance})");
}

fn assert_omitted(stats: &InstrumentStatistics, name: &str) {
    assert!(stats.metric(name).is_none(), "{name} should be omitted");
    assert!(stats.omitted.iter().any(|o| o.name == name && !o.reason.is_empty()), "{name} has no omission reason");
}

const VECTOR_PRICES: [f64; 8] = [100.0, 102.0, 101.0, 105.0, 103.0, 99.0, 104.0, 108.0];
const VECTOR_BENCHMARK: [f64; 8] = [50.0, 50.5, 50.2, 51.0, 50.8, 49.9, 51.2, 52.0];

#[test]
fn domain_vector_matches_to_six_decimals() {
    let series = daily("TEST", &VECTOR_PRICES);
    let benchmark = daily("BENCH", &VECTOR_BENCHMARK);
    let result = instrument_statistics(&series, Some(&benchmark), TimeRange::OneMonth, 0.0).expect("statistics");

    let returns = simple_returns(series.points());
    let expected = [0.02, -0.009804, 0.039604, -0.019048, -0.038835, 0.050505, 0.038462];
    assert_eq!(returns.len(), expected.len());
    for (r, e) in returns.iter().zip(expected) {
        assert_close(*r, e, 5e-7);
    }
    let m = |name| metric(&result, name).value;
    assert_close(m(metric_names::DAILY_VOLATILITY), 0.034015, 5e-7);
    assert_close(m(metric_names::ANNUALISED_VOLATILITY), 0.539978, 5e-7);
    assert_close(m(metric_names::MAX_DRAWDOWN), -0.057143, 5e-7);
    assert_close(m(metric_names::PERIOD_RETURN), 0.08, 5e-7);
    assert_close(m(metric_names::BETA), 2.199263, 5e-7);
    assert_close(m(metric_names::SHARPE_RATIO), 5.358364, 5e-7);
    assert_close(m(metric_names::VAR_95), 0.038835, 5e-7);
    assert_close(m(metric_names::CVAR_95), 0.038835, 5e-7);
    assert_eq!(input(metric(&result, metric_names::VAR_95), "k"), 1.0);

    let drawdown = &result.max_drawdown;
    assert_eq!((drawdown.peak_close, drawdown.trough_close), (105.0, 99.0));
    assert_eq!((drawdown.peak_date, drawdown.trough_date), (date!(2024 - 01 - 04), date!(2024 - 01 - 06)));
    assert_eq!(result.benchmark_symbol.as_deref(), Some("BENCH"));
}

#[test]
fn short_history_uses_what_is_there_and_reports_the_window() {
    let result = instrument_statistics(&daily("TEST", &VECTOR_PRICES), None, TimeRange::OneMonth, 0.0).unwrap();
    let window = &result.window;
    assert!(window.truncated);
    assert_eq!((window.requested_prices, window.prices, window.returns), (22, 8, 7));
    assert_eq!((window.first_date, window.last_date), (START, date!(2024 - 01 - 08)));
}

#[test]
fn long_history_uses_only_the_trailing_window() {
    let closes: Vec<f64> = (0..300).map(|i| 100.0 + i as f64).collect();
    let result = instrument_statistics(&daily("UP", &closes), None, TimeRange::OneYear, 0.0).unwrap();
    assert!(!result.window.truncated);
    assert_eq!((result.window.prices, result.window.returns), (253, 252));
    let period = metric(&result, metric_names::PERIOD_RETURN);
    assert_eq!(input(period, "first_close"), 147.0);
    assert_eq!(input(period, "last_close"), 399.0);
}

#[test]
fn cagr_uses_calendar_days_over_365_25() {
    // 2020-01-01 → 2024-01-01 is 1461 days = exactly 4 years of 365.25 days; 100 → 146.41 is 1.1⁴.
    let series =
        dated("X", [(date!(2020 - 01 - 01), 100.0), (date!(2022 - 01 - 03), 90.0), (date!(2024 - 01 - 01), 146.41)]);
    let cagr = metric(&stats(&series, None, 0.0), metric_names::CAGR).clone();
    assert_close(cagr.value, 0.10, 1e-12);
    assert_eq!(input(&cagr, "calendar_days"), 1461.0);
    assert_close(input(&cagr, "years"), 4.0, 1e-12);
}

#[test]
fn sortino_uses_downside_deviation_over_all_returns() {
    // Returns +10 %, −5 %, +10 %: mean 0.05, DD = √(0.05² / 3), Sortino = 0.05 / DD · √252 = √756.
    let series = daily("X", &[100.0, 110.0, 104.5, 114.95]);
    let sortino = metric(&stats(&series, None, 0.0), metric_names::SORTINO_RATIO).clone();
    assert_close(sortino.value, 756f64.sqrt(), 1e-9);
    assert_close(input(&sortino, "downside_deviation"), 0.05 / 3f64.sqrt(), 1e-12);
    assert_eq!(input(&sortino, "downside_observations"), 1.0);

    // r_f = 2.52 a year is 0.01 a day: excess +0.09, −0.06, +0.09, mean 0.04, DD = 0.06 / √3.
    let with_rf = stats(&series, None, 2.52);
    assert_close(
        metric(&with_rf, metric_names::SORTINO_RATIO).value,
        0.04 / (0.06 / 3f64.sqrt()) * 252f64.sqrt(),
        1e-9,
    );
    // Sharpe: excess mean 0.04; sample stdev of (0.09, −0.06, 0.09) from its deviations (0.05, −0.10, 0.05).
    let deviations = [0.05f64, -0.10, 0.05];
    let stdev = (deviations.iter().map(|d| d * d).sum::<f64>() / 2.0).sqrt();
    assert_close(metric(&with_rf, metric_names::SHARPE_RATIO).value, 0.04 / stdev * 252f64.sqrt(), 1e-9);
}

/// 150 returns: three losses (−8 %, −6 %, −4 %) and small distinct gains 0.001 + i·1e-5.
fn tail_series() -> PriceSeries {
    let mut closes = vec![100.0];
    for i in 0..150 {
        let r = match i {
            10 => -0.08,
            50 => -0.06,
            100 => -0.04,
            _ => 0.001 + i as f64 * 1e-5,
        };
        let last = closes[closes.len() - 1];
        closes.push(last * (1.0 + r));
    }
    daily("TAIL", &closes)
}

#[test]
fn var_99_and_cvar_99_use_the_nearest_rank() {
    let result = stats(&tail_series(), None, 0.0);
    // k = ⌈0.01 · 150⌉ = 2: the second-worst return, and the mean of the two worst.
    let var_99 = metric(&result, metric_names::VAR_99);
    assert_eq!(input(var_99, "k"), 2.0);
    assert_close(var_99.value, 0.06, 1e-12);
    assert_close(metric(&result, metric_names::CVAR_99).value, 0.07, 1e-12);
    // k = ⌈0.05 · 150⌉ = 8: the fifth-smallest gain (i = 4), so VaR is negative (a gain).
    let var_95 = metric(&result, metric_names::VAR_95);
    assert_eq!(input(var_95, "k"), 8.0);
    assert_close(var_95.value, -0.00104, 1e-12);
    let tail = [-0.08, -0.06, -0.04, 0.001, 0.00101, 0.00102, 0.00103, 0.00104];
    assert_close(metric(&result, metric_names::CVAR_95).value, -tail.iter().sum::<f64>() / 8.0, 1e-12);
}

#[test]
fn nearest_rank_is_exact_when_the_tail_is_a_whole_number() {
    // 0.05 · 20 = 1 exactly; floating point (1 − 0.95) · 20 would round up to 2.
    let closes: Vec<f64> = (0..21).map(|i| 100.0 + (i % 3) as f64).collect();
    let result = stats(&daily("X", &closes), None, 0.0);
    assert_eq!(input(metric(&result, metric_names::VAR_95), "k"), 1.0);
}

#[test]
fn cvar_includes_every_return_tied_with_the_quantile() {
    // Returns −10 %, −10 %, then gains: k = 1 but both tied losses are in the tail.
    let closes = [100.0, 90.0, 81.0, 82.0, 83.0];
    let cvar = metric(&stats(&daily("X", &closes), None, 0.0), metric_names::CVAR_95).clone();
    assert_eq!(input(&cvar, "tail_observations"), 2.0);
    assert_close(cvar.value, 0.1, 1e-12);
}

#[test]
fn beta_aligns_returns_on_shared_dates() {
    // The instrument is twice the benchmark on shared dates; each series also has days the other lacks
    // (with wild prices), which must not enter the aligned returns.
    let d = |day: i64| START + Duration::days(day);
    let benchmark = dated("B", [(d(0), 10.0), (d(1), 11.0), (d(2), 500.0), (d(3), 10.5), (d(5), 12.0), (d(6), 11.0)]);
    let instrument = dated("A", [(d(0), 20.0), (d(1), 22.0), (d(3), 21.0), (d(4), 1.0), (d(5), 24.0), (d(6), 22.0)]);
    let result = stats(&instrument, Some(&benchmark), 0.0);
    let beta = metric(&result, metric_names::BETA);
    assert_close(beta.value, 1.0, 1e-12);
    // Shared dates 0, 1, 3, 5, 6 → four aligned returns.
    assert_eq!(input(beta, "aligned_returns"), 4.0);
    assert_close(metric(&result, metric_names::BENCHMARK_CORRELATION).value, 1.0, 1e-12);
}

#[test]
fn one_price_is_an_error_and_two_prices_omit_dispersion_measures() {
    let error = instrument_statistics(&daily("X", &[100.0]), None, TimeRange::OneMonth, 0.0);
    assert_eq!(error, Err(MarketError::InsufficientPrices { symbol: "X".into(), available: 1, required: 2 }));
    let empty = PriceSeries::new("X", Vec::new()).unwrap();
    assert!(matches!(
        instrument_statistics(&empty, None, TimeRange::OneMonth, 0.0),
        Err(MarketError::InsufficientPrices { available: 0, .. })
    ));

    let two = stats(&daily("X", &[100.0, 95.0]), None, 0.0);
    for present in [metric_names::PERIOD_RETURN, metric_names::CAGR, metric_names::MAX_DRAWDOWN, metric_names::VAR_99] {
        metric(&two, present);
    }
    for name in [
        metric_names::DAILY_VOLATILITY,
        metric_names::ANNUALISED_VOLATILITY,
        metric_names::SHARPE_RATIO,
        metric_names::SORTINO_RATIO,
        metric_names::BETA,
    ] {
        assert_omitted(&two, name);
    }
}

#[test]
fn constant_prices_omit_ratios_instead_of_dividing_by_zero() {
    let flat = daily("FLAT", &[50.0; 10]);
    let result = stats(&flat, Some(&flat), 0.0);
    assert_eq!(metric(&result, metric_names::ANNUALISED_VOLATILITY).value, 0.0);
    assert_eq!(metric(&result, metric_names::MAX_DRAWDOWN).value, 0.0);
    assert_eq!(metric(&result, metric_names::VAR_95).value, 0.0);
    for name in [metric_names::SHARPE_RATIO, metric_names::SORTINO_RATIO, metric_names::BETA] {
        assert_omitted(&result, name);
    }
    // A moving instrument against a flat benchmark: beta undefined, the rest computed.
    let moving = stats(&daily("X", &VECTOR_PRICES), Some(&daily("FLAT", &[50.0; 8])), 0.0);
    assert_omitted(&moving, metric_names::BETA);
    metric(&moving, metric_names::SHARPE_RATIO);
}

#[test]
fn rising_prices_have_no_drawdown_and_no_downside_deviation() {
    let result = stats(&daily("UP", &[100.0, 101.0, 103.0, 106.0]), None, 0.0);
    assert_eq!(result.max_drawdown.depth, 0.0);
    assert_eq!(result.max_drawdown.peak_date, result.max_drawdown.trough_date);
    assert_omitted(&result, metric_names::SORTINO_RATIO);
}

#[test]
fn non_finite_risk_free_rate_is_rejected() {
    let series = daily("X", &VECTOR_PRICES);
    assert!(matches!(
        instrument_statistics(&series, None, TimeRange::OneMonth, f64::NAN),
        Err(MarketError::InvalidRiskFreeRate { .. })
    ));
}

#[test]
fn correlation_with_itself_is_one_and_with_its_negation_minus_one() {
    let series = daily("A", &VECTOR_PRICES);
    // Prices whose every return is the negation of A's.
    let mut negated = vec![100.0];
    for r in simple_returns(series.points()) {
        let last = negated[negated.len() - 1];
        negated.push(last * (1.0 - r));
    }
    let matrix =
        correlation_matrix(&[series.clone(), daily("NEG", &negated), series.clone()], TimeRange::OneMonth).unwrap();
    assert_eq!(matrix.symbols, vec!["A", "NEG", "A"]);
    assert_eq!(matrix.observations, 7);
    assert_close(matrix.values[0][2], 1.0, 1e-12);
    assert_close(matrix.values[0][1], -1.0, 1e-12);
    assert_eq!(matrix.values[1][0], matrix.values[0][1]);
    assert_eq!(matrix.values[1][1], 1.0);
}

#[test]
fn correlation_matches_the_domain_vector_and_aligns_dates() {
    let d = |day: i64| START + Duration::days(day);
    // Benchmark missing day 2 and carrying an extra day 9; instrument with an extra day 20.
    let a = dated("A", VECTOR_PRICES.iter().enumerate().map(|(i, &c)| (d(i as i64), c)).chain([(d(20), 1.0)]));
    let b = dated(
        "B",
        VECTOR_BENCHMARK
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 2)
            .map(|(i, &c)| (d(i as i64), c))
            .chain([(d(9), 7.0)]),
    );
    let matrix = correlation_matrix(&[a.clone(), b.clone()], TimeRange::OneYear).unwrap();
    assert_eq!(matrix.observations, 6);
    assert_eq!((matrix.first_date, matrix.last_date), (d(0), d(7)));
    // Same alignment as beta: the correlation equals the benchmark_correlation metric.
    let result = stats(&a, Some(&b), 0.0);
    assert_close(matrix.values[0][1], metric(&result, metric_names::BENCHMARK_CORRELATION).value, 1e-12);
    // The 1M window keeps only the last 22 shared dates; here all 7 are shared.
    assert_eq!(correlation_matrix(&[a, b], TimeRange::OneMonth).unwrap().observations, 6);
}

#[test]
fn correlation_omits_flat_series_and_rejects_too_little_overlap() {
    let matrix =
        correlation_matrix(&[daily("A", &VECTOR_PRICES), daily("FLAT", &[1.0; 8])], TimeRange::OneMonth).unwrap();
    assert_eq!(matrix.symbols, vec!["A"]);
    assert_eq!(matrix.values, vec![vec![1.0]]);
    assert_eq!(matrix.omitted[0].name, "FLAT");

    assert_eq!(correlation_matrix(&[], TimeRange::OneMonth), Err(MarketError::NoSeries));
    let late = dated("L", [(date!(2030 - 01 - 01), 1.0), (date!(2030 - 01 - 02), 2.0)]);
    assert!(matches!(
        correlation_matrix(&[daily("A", &VECTOR_PRICES), late], TimeRange::OneMonth),
        Err(MarketError::InsufficientOverlap { returns: 0, .. })
    ));
}

#[test]
fn correlation_window_is_the_last_shared_dates() {
    let closes: Vec<f64> = (0..100).map(|i| 100.0 + ((i * 7) % 11) as f64).collect();
    let other: Vec<f64> = (0..100).map(|i| 50.0 + ((i * 5) % 13) as f64).collect();
    let matrix = correlation_matrix(&[daily("A", &closes), daily("B", &other)], TimeRange::OneMonth).unwrap();
    assert_eq!(matrix.observations, 21);
    assert_eq!(matrix.first_date, START + Duration::days(78));
    assert_eq!(matrix.last_date, START + Duration::days(99));
}

#[test]
fn findings_rank_instruments_and_flag_thresholds() {
    let benchmark = stats(&daily("BENCH", &VECTOR_BENCHMARK), None, 0.0);
    let test = instrument_statistics(
        &daily("TEST", &VECTOR_PRICES),
        Some(&daily("BENCH", &VECTOR_BENCHMARK)),
        TimeRange::OneMonth,
        0.0,
    )
    .unwrap();
    let findings = market_findings(&[benchmark.clone(), test], Some(&benchmark));

    let ranking = findings.iter().find(|f| f.category == MarketFindingCategory::Return).expect("return ranking");
    assert_eq!(ranking.evidence.iter().map(|e| e.symbol.as_str()).collect::<Vec<_>>(), vec!["TEST", "BENCH"]);
    assert!(ranking.statement.starts_with("Ranked by period return: TEST 8.00%, BENCH 4.00%"), "{}", ranking.statement);

    let volatility = findings
        .iter()
        .find(|f| f.category == MarketFindingCategory::Volatility && f.severity == MarketSeverity::Concern)
        .expect("TEST's 54 % volatility is a concern");
    assert_eq!(volatility.evidence[0].threshold, Some(HIGH_VOLATILITY));

    let beta = findings.iter().find(|f| f.category == MarketFindingCategory::Beta).expect("beta 2.2 is high");
    assert_eq!((beta.severity, beta.evidence[0].symbol.as_str()), (MarketSeverity::Watch, "TEST"));
    // TEST returned 8 % against 4 %: within the 5-point margin, so no relative-performance finding.
    assert!(findings.iter().all(|f| f.category != MarketFindingCategory::RelativePerformance));
    // The benchmark is not compared with itself, and both windows were short.
    assert!(findings.iter().filter(|f| f.category == MarketFindingCategory::DataCoverage).count() == 2);
    assert!(findings.iter().all(|f| f.category != MarketFindingCategory::Beta || f.evidence[0].symbol != "BENCH"));

    let json = serde_json::to_value(&findings[0]).unwrap();
    assert_eq!(json["category"], "return");
    assert_eq!(json["severity"], "info");
}

#[test]
fn findings_report_outperformance_and_severe_drawdown() {
    let bench = stats(&daily("SPY", &[100.0, 100.5, 101.0, 100.8, 101.2]), None, 0.0);
    let crash = stats(&daily("CRASH", &[100.0, 80.0, 60.0, 65.0, 70.0]), None, 0.0);
    let rally = stats(&daily("RALLY", &[100.0, 103.0, 106.0, 104.0, 112.0]), None, 0.0);
    let findings = market_findings(&[crash, rally], Some(&bench));
    assert!(findings.iter().any(|f| f.category == MarketFindingCategory::Drawdown
        && f.severity == MarketSeverity::Concern
        && f.evidence[0].symbol == "CRASH"));
    assert!(findings.iter().any(|f| f.category == MarketFindingCategory::RelativePerformance
        && f.severity == MarketSeverity::Positive
        && f.evidence[0].symbol == "RALLY"));
    assert!(findings.iter().any(|f| f.category == MarketFindingCategory::RelativePerformance
        && f.severity == MarketSeverity::Watch
        && f.evidence[0].symbol == "CRASH"));
}

#[test]
fn statistics_serialise_with_iso_dates_and_wire_time_range() {
    let result = instrument_statistics(&daily("TEST", &VECTOR_PRICES), None, TimeRange::OneMonth, 0.0).unwrap();
    let json = serde_json::to_value(&result).unwrap();
    assert_eq!(json["window"]["range"], "1M");
    assert_eq!(json["window"]["first_date"], "2024-01-01");
    assert_eq!(json["max_drawdown"]["trough_date"], "2024-01-06");
    assert_eq!(json["metrics"][0]["unit"], "fraction");
}

fn all_finite(metrics: &[Metric]) -> bool {
    metrics.iter().all(|m| m.value.is_finite() && m.inputs.iter().all(|i| i.value.is_finite()))
}

proptest! {
    #[test]
    fn statistics_are_never_nan_or_infinite(
        closes in prop::collection::vec(1e-6f64..1e9, 0..300),
        bench in prop::collection::vec(1e-6f64..1e9, 0..300),
        gaps in prop::collection::vec(1i64..5, 300),
        range_index in 0usize..5,
        risk_free in -0.5f64..0.5,
    ) {
        let mut day = START;
        let mut points = Vec::with_capacity(closes.len());
        for (close, gap) in closes.iter().zip(&gaps) {
            points.push((day, *close));
            day += Duration::days(*gap);
        }
        let series = dated("P", points);
        let benchmark = daily("B", &bench);
        let range = TimeRange::ALL[range_index];
        match instrument_statistics(&series, Some(&benchmark), range, risk_free) {
            Ok(result) => {
                prop_assert!(all_finite(&result.metrics), "{:?}", result.metrics);
                prop_assert!(result.max_drawdown.depth.is_finite());
            }
            Err(MarketError::InsufficientPrices { available, .. }) => prop_assert!(available < 2),
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
        if let Ok(matrix) = correlation_matrix(&[series, benchmark], range) {
            prop_assert!(matrix.values.iter().flatten().all(|v| v.is_finite() && v.abs() <= 1.0));
        }
    }
}
