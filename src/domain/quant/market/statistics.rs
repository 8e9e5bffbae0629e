//! Return, risk and risk-adjusted statistics of one price series (optionally against a benchmark), and
//! the correlation matrix across several series. Definitions follow DOMAIN.md §2; each one is restated
//! in the [`Metric::formula`] it produces, and anything that cannot be computed is listed in
//! [`InstrumentStatistics::omitted`] with its reason instead of being returned as NaN or infinity.
//!
//! The computation is linear in the window length apart from one sort of the window's returns (for
//! the historical VaR), and allocates one vector of returns per instrument.

use serde::Serialize;
use time::Date;

use super::series::{PricePoint, PriceSeries, TimeRange, serialize_date};
use crate::domain::quant::{Metric, Unit};

/// Trading days per year, the annualisation factor A for volatility, Sharpe and Sortino.
pub const TRADING_DAYS_PER_YEAR: f64 = 252.0;
/// Calendar days per year used by the CAGR: `years = calendar days between first and last price / 365.25`.
pub const CALENDAR_DAYS_PER_YEAR: f64 = 365.25;
/// Fewest prices in a window for any statistic: two prices make one return.
pub const MIN_WINDOW_PRICES: usize = 2;
/// Fewest returns for a sample standard deviation, covariance or correlation (n − 1 ≥ 1).
pub const MIN_RETURNS_FOR_DISPERSION: usize = 2;
/// A daily standard deviation below this is treated as zero: ratios that divide by it are omitted
/// rather than reported as the astronomically large numbers that rounding noise would produce.
pub const MIN_DISPERSION: f64 = 1e-12;
/// The confidence levels, in percent, at which historical VaR and CVaR are reported.
pub const VAR_CONFIDENCE_LEVELS_PCT: [u32; 2] = [95, 99];

/// Stable names of the metrics [`instrument_statistics`] produces.
pub mod metric_names {
    pub const PERIOD_RETURN: &str = "period_return";
    pub const CAGR: &str = "cagr";
    pub const DAILY_VOLATILITY: &str = "daily_volatility";
    pub const ANNUALISED_VOLATILITY: &str = "annualised_volatility";
    pub const MAX_DRAWDOWN: &str = "max_drawdown";
    pub const BETA: &str = "beta";
    pub const BENCHMARK_CORRELATION: &str = "benchmark_correlation";
    pub const SHARPE_RATIO: &str = "sharpe_ratio";
    pub const SORTINO_RATIO: &str = "sortino_ratio";
    pub const VAR_95: &str = "var_95";
    pub const VAR_99: &str = "var_99";
    pub const CVAR_95: &str = "cvar_95";
    pub const CVAR_99: &str = "cvar_99";
}
use metric_names as names;

/// Why market statistics could not be computed at all.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MarketError {
    /// The window holds fewer than [`MIN_WINDOW_PRICES`] prices, so there is not a single return.
    #[error("{symbol}: {available} price(s) available, at least {required} needed")]
    InsufficientPrices { symbol: String, available: usize, required: usize },
    /// The annual risk-free rate was NaN or infinite.
    #[error("risk-free rate {value} is not a finite number")]
    InvalidRiskFreeRate { value: f64 },
    /// [`correlation_matrix`] was given no series.
    #[error("no price series to correlate")]
    NoSeries,
    /// The series share too few dates to correlate their returns.
    #[error("the series share {returns} aligned return(s), at least {required} needed")]
    InsufficientOverlap { returns: usize, required: usize },
}

/// The prices a result was actually computed from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObservationWindow {
    pub range: TimeRange,
    /// Prices a full window holds: `range.trading_days() + 1`.
    pub requested_prices: usize,
    /// Prices used: the requested number, or all there are when the history is shorter.
    pub prices: usize,
    /// Daily returns used: `prices − 1`.
    pub returns: usize,
    #[serde(serialize_with = "serialize_date")]
    pub first_date: Date,
    #[serde(serialize_with = "serialize_date")]
    pub last_date: Date,
    /// True when the history was shorter than the requested window.
    pub truncated: bool,
}

/// The deepest peak-to-trough fall inside the window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drawdown {
    /// `trough_close / peak_close − 1`: zero or negative. Zero (with peak = trough = the first price)
    /// when the price never fell below an earlier high.
    pub depth: f64,
    #[serde(serialize_with = "serialize_date")]
    pub peak_date: Date,
    pub peak_close: f64,
    #[serde(serialize_with = "serialize_date")]
    pub trough_date: Date,
    pub trough_close: f64,
}

/// A metric that was not computed, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OmittedMetric {
    pub name: String,
    pub reason: String,
}

/// Every statistic of one instrument over one window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstrumentStatistics {
    pub symbol: String,
    /// The benchmark beta and correlation were measured against, when one was supplied.
    pub benchmark_symbol: Option<String>,
    pub window: ObservationWindow,
    /// Computed figures, named by [`metric_names`].
    pub metrics: Vec<Metric>,
    /// Figures that could not be computed from this window, with the reason.
    pub omitted: Vec<OmittedMetric>,
    /// Dates and prices behind the `max_drawdown` metric.
    pub max_drawdown: Drawdown,
}

impl InstrumentStatistics {
    /// The metric called `name`, if it was computed.
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|metric| metric.name == name)
    }

    /// The value of the metric called `name`, if it was computed.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.metric(name).map(|metric| metric.value)
    }
}

/// Computes the statistics of `series` over the trailing window of `range`.
///
/// Window: the last `range.trading_days() + 1` prices, or every price when the history is shorter
/// (then `window.truncated` is set and `window.prices` says how many were used). Definitions, with
/// r_t = P_t / P_(t−1) − 1 (simple) and ℓ_t = ln(P_t / P_(t−1)) (log), n = number of returns, A = 252:
/// - `period_return` = P_last / P_first − 1;
/// - `cagr` = (P_last / P_first)^(1/years) − 1 with years = calendar days between the first and last
///   date / 365.25 (calendar time, so a window with weekends and holidays annualises correctly);
/// - `daily_volatility` = sample stdev (n − 1) of ℓ; `annualised_volatility` = that × √A;
/// - `max_drawdown` = min_t (P_t / max_(s≤t) P_s − 1), with its dates in [`InstrumentStatistics::max_drawdown`];
/// - `beta` = Cov(r_a, r_m) / Var(r_m) and `benchmark_correlation` (Pearson) on date-aligned returns:
///   the two series are inner-joined on date inside the window and returns are taken between
///   consecutive shared dates, so both returns of a pair span the same interval;
/// - `sharpe_ratio` = mean(r − r_f,d) / stdev(r − r_f,d) × √A, r_f,d = `risk_free_annual` / 252, simple returns;
/// - `sortino_ratio` = mean(r − r_f,d) / DD × √A, with the downside deviation
///   DD = √(Σ_t min(0, r_t − r_f,d)² / n) taken over all n returns (target = r_f,d);
/// - `var_95`/`var_99` = −r_(k) and `cvar_95`/`cvar_99` = −mean(r_t | r_t ≤ r_(k)), 1-day historical, where
///   r_(1) ≤ … ≤ r_(n) are the sorted simple returns and k = ⌈(1 − α)·n⌉ (nearest rank, at least 1).
///   Both are losses as positive fractions; they are negative when even the tail return is a gain.
///
/// Degenerate inputs omit the affected metric with a reason: fewer than two returns for dispersion
/// measures, a zero standard deviation (below [`MIN_DISPERSION`]) for ratios, no benchmark or fewer than
/// two aligned returns for beta, and any value that overflows.
///
/// # Errors
/// [`MarketError::InsufficientPrices`] when the window has fewer than [`MIN_WINDOW_PRICES`] prices;
/// [`MarketError::InvalidRiskFreeRate`] when `risk_free_annual` is not finite.
pub fn instrument_statistics(
    series: &PriceSeries,
    benchmark: Option<&PriceSeries>,
    range: TimeRange,
    risk_free_annual: f64,
) -> Result<InstrumentStatistics, MarketError> {
    if !risk_free_annual.is_finite() {
        return Err(MarketError::InvalidRiskFreeRate { value: risk_free_annual });
    }
    let window = series.window(range);
    let (Some((first, rest)), Some(last)) = (window.split_first(), window.last()) else {
        return Err(insufficient(series, window.len()));
    };
    if window.len() < MIN_WINDOW_PRICES {
        return Err(insufficient(series, window.len()));
    }
    let observation_window = ObservationWindow {
        range,
        requested_prices: range.window_prices(),
        prices: window.len(),
        returns: window.len() - 1,
        first_date: first.date,
        last_date: last.date,
        truncated: window.len() < range.window_prices(),
    };
    let mut out = MetricCollector::default();

    push_return_metrics(&mut out, first, last, window.len());
    push_volatility_metrics(&mut out, window);
    let drawdown = max_drawdown(*first, rest);
    push_drawdown_metric(&mut out, &drawdown, window.len());
    match benchmark {
        Some(benchmark) => push_benchmark_metrics(&mut out, window, benchmark),
        None => {
            for name in [names::BETA, names::BENCHMARK_CORRELATION] {
                out.omit(name, "no benchmark series was supplied");
            }
        }
    }
    let mut returns = simple_returns(window);
    push_risk_adjusted_metrics(&mut out, &returns, risk_free_annual);
    push_tail_metrics(&mut out, &mut returns);

    Ok(InstrumentStatistics {
        symbol: series.symbol().to_owned(),
        benchmark_symbol: benchmark.map(|b| b.symbol().to_owned()),
        window: observation_window,
        metrics: out.metrics,
        omitted: out.omitted,
        max_drawdown: drawdown,
    })
}

/// Simple returns r_t = P_t / P_(t−1) − 1 of consecutive points (one fewer than the points).
pub fn simple_returns(points: &[PricePoint]) -> Vec<f64> {
    points.windows(2).map(|pair| pair[1].close / pair[0].close - 1.0).collect()
}

/// Log returns ℓ_t = ln(P_t / P_(t−1)) of consecutive points (one fewer than the points).
pub fn log_returns(points: &[PricePoint]) -> Vec<f64> {
    points.windows(2).map(|pair| (pair[1].close / pair[0].close).ln()).collect()
}

fn insufficient(series: &PriceSeries, available: usize) -> MarketError {
    MarketError::InsufficientPrices { symbol: series.symbol().to_owned(), available, required: MIN_WINDOW_PRICES }
}

fn push_return_metrics(out: &mut MetricCollector, first: &PricePoint, last: &PricePoint, prices: usize) {
    let growth = last.close / first.close;
    out.push(
        names::PERIOD_RETURN,
        growth - 1.0,
        Unit::Fraction,
        "P_last / P_first − 1",
        &[("first_close", first.close), ("last_close", last.close), ("prices", prices as f64)],
    );
    let calendar_days = (last.date - first.date).whole_days();
    if calendar_days < 1 {
        out.omit(names::CAGR, "the window spans less than one calendar day");
        return;
    }
    let years = calendar_days as f64 / CALENDAR_DAYS_PER_YEAR;
    out.push(
        names::CAGR,
        (growth.ln() / years).exp() - 1.0,
        Unit::Fraction,
        "(P_last / P_first)^(1 / years) − 1, years = calendar days / 365.25",
        &[
            ("first_close", first.close),
            ("last_close", last.close),
            ("calendar_days", calendar_days as f64),
            ("years", years),
        ],
    );
}

fn push_volatility_metrics(out: &mut MetricCollector, window: &[PricePoint]) {
    let mut log_returns = RunningMoments::default();
    for pair in window.windows(2) {
        log_returns.add((pair[1].close / pair[0].close).ln());
    }
    let Some(daily) = log_returns.sample_stdev() else {
        let reason = "a sample standard deviation needs at least two returns";
        out.omit(names::DAILY_VOLATILITY, reason);
        out.omit(names::ANNUALISED_VOLATILITY, reason);
        return;
    };
    out.push(
        names::DAILY_VOLATILITY,
        daily,
        Unit::Fraction,
        "sample stdev (n − 1) of ℓ_t = ln(P_t / P_(t−1))",
        &[("returns", log_returns.count as f64), ("mean_log_return", log_returns.mean)],
    );
    out.push(
        names::ANNUALISED_VOLATILITY,
        daily * TRADING_DAYS_PER_YEAR.sqrt(),
        Unit::Fraction,
        "daily_volatility × √252",
        &[("daily_volatility", daily), ("trading_days_per_year", TRADING_DAYS_PER_YEAR)],
    );
}

/// One pass keeping the running high: the deepest fall below it, first occurrence on ties.
fn max_drawdown(start: PricePoint, rest: &[PricePoint]) -> Drawdown {
    let mut peak = start;
    let mut worst = (0.0, start, start);
    for &point in rest {
        if point.close > peak.close {
            peak = point;
        }
        let depth = point.close / peak.close - 1.0;
        if depth < worst.0 {
            worst = (depth, peak, point);
        }
    }
    let (depth, peak, trough) = worst;
    Drawdown {
        depth,
        peak_date: peak.date,
        peak_close: peak.close,
        trough_date: trough.date,
        trough_close: trough.close,
    }
}

fn push_drawdown_metric(out: &mut MetricCollector, drawdown: &Drawdown, prices: usize) {
    out.push(
        names::MAX_DRAWDOWN,
        drawdown.depth,
        Unit::Fraction,
        "min_t(P_t / max_(s≤t) P_s − 1)",
        &[
            ("peak_close", drawdown.peak_close),
            ("trough_close", drawdown.trough_close),
            ("peak_to_trough_calendar_days", (drawdown.trough_date - drawdown.peak_date).whole_days() as f64),
            ("prices", prices as f64),
        ],
    );
}

fn push_benchmark_metrics(out: &mut MetricCollector, window: &[PricePoint], benchmark: &PriceSeries) {
    let moments = aligned_co_moments(window, benchmark.points());
    let n = moments.count as f64;
    if moments.count < MIN_RETURNS_FOR_DISPERSION {
        let reason = format!(
            "{} aligned return(s) with benchmark {} (returns between consecutive shared dates); at least {} needed",
            moments.count,
            benchmark.symbol(),
            MIN_RETURNS_FOR_DISPERSION
        );
        out.omit(names::BETA, reason.clone());
        out.omit(names::BENCHMARK_CORRELATION, reason);
        return;
    }
    let denominator = n - 1.0;
    let covariance = moments.co_moment / denominator;
    let benchmark_variance = moments.y.m2 / denominator;
    let instrument_variance = moments.x.m2 / denominator;
    if benchmark_variance.sqrt() < MIN_DISPERSION {
        let reason = format!("benchmark {} returns have zero variance in the window", benchmark.symbol());
        out.omit(names::BETA, reason.clone());
        out.omit(names::BENCHMARK_CORRELATION, reason);
        return;
    }
    out.push(
        names::BETA,
        covariance / benchmark_variance,
        Unit::Score,
        "Cov(r_a, r_m) / Var(r_m), sample (n − 1), simple returns between consecutive dates both series share",
        &[("aligned_returns", n), ("covariance", covariance), ("benchmark_variance", benchmark_variance)],
    );
    if instrument_variance.sqrt() < MIN_DISPERSION {
        out.omit(names::BENCHMARK_CORRELATION, "instrument returns have zero variance in the window");
        return;
    }
    let correlation = (covariance / (instrument_variance.sqrt() * benchmark_variance.sqrt())).clamp(-1.0, 1.0);
    out.push(
        names::BENCHMARK_CORRELATION,
        correlation,
        Unit::Score,
        "Cov(r_a, r_m) / (σ_a · σ_m), Pearson, on the same aligned returns as beta",
        &[
            ("aligned_returns", n),
            ("covariance", covariance),
            ("instrument_variance", instrument_variance),
            ("benchmark_variance", benchmark_variance),
        ],
    );
}

/// Merge-joins the window with the benchmark on date and accumulates the co-moments of the returns
/// between consecutive shared dates, without allocating.
fn aligned_co_moments(window: &[PricePoint], benchmark: &[PricePoint]) -> RunningCoMoments {
    let mut moments = RunningCoMoments::default();
    let Some(first) = window.first() else {
        return moments;
    };
    let mut j = benchmark.partition_point(|point| point.date < first.date);
    let mut previous: Option<(f64, f64)> = None;
    for point in window {
        while j < benchmark.len() && benchmark[j].date < point.date {
            j += 1;
        }
        let Some(matching) = benchmark.get(j).filter(|b| b.date == point.date) else {
            continue;
        };
        if let Some((previous_close, previous_benchmark)) = previous {
            moments.add(point.close / previous_close - 1.0, matching.close / previous_benchmark - 1.0);
        }
        previous = Some((point.close, matching.close));
    }
    moments
}

fn push_risk_adjusted_metrics(out: &mut MetricCollector, returns: &[f64], risk_free_annual: f64) {
    if returns.len() < MIN_RETURNS_FOR_DISPERSION {
        let reason = "a sample standard deviation needs at least two returns";
        out.omit(names::SHARPE_RATIO, reason);
        out.omit(names::SORTINO_RATIO, reason);
        return;
    }
    let risk_free_daily = risk_free_annual / TRADING_DAYS_PER_YEAR;
    let mut excess = RunningMoments::default();
    let mut downside_sum_sq = 0.0;
    let mut downside_observations = 0usize;
    for &r in returns {
        let e = r - risk_free_daily;
        excess.add(e);
        if e < 0.0 {
            downside_sum_sq += e * e;
            downside_observations += 1;
        }
    }
    let n = returns.len() as f64;
    let annualiser = TRADING_DAYS_PER_YEAR.sqrt();
    match excess.sample_stdev() {
        Some(stdev) if stdev >= MIN_DISPERSION => out.push(
            names::SHARPE_RATIO,
            excess.mean / stdev * annualiser,
            Unit::Score,
            "mean(r − r_f,d) / stdev(r − r_f,d) × √252, r_f,d = r_f / 252, simple returns, sample stdev (n − 1)",
            &[
                ("returns", n),
                ("risk_free_annual", risk_free_annual),
                ("risk_free_daily", risk_free_daily),
                ("mean_excess_return", excess.mean),
                ("stdev_excess_return", stdev),
            ],
        ),
        _ => out.omit(names::SHARPE_RATIO, "excess returns have zero standard deviation"),
    }
    let downside_deviation = (downside_sum_sq / n).sqrt();
    if downside_deviation < MIN_DISPERSION {
        out.omit(names::SORTINO_RATIO, "no return fell below the daily risk-free rate, so downside deviation is zero");
        return;
    }
    out.push(
        names::SORTINO_RATIO,
        excess.mean / downside_deviation * annualiser,
        Unit::Score,
        "mean(r − r_f,d) / DD × √252, DD = √(Σ min(0, r − r_f,d)² / n) over all n returns, r_f,d = r_f / 252",
        &[
            ("returns", n),
            ("risk_free_daily", risk_free_daily),
            ("mean_excess_return", excess.mean),
            ("downside_deviation", downside_deviation),
            ("downside_observations", downside_observations as f64),
        ],
    );
}

/// Sorts `returns` in place and reports historical VaR and CVaR at each level of
/// [`VAR_CONFIDENCE_LEVELS_PCT`].
fn push_tail_metrics(out: &mut MetricCollector, returns: &mut [f64]) {
    returns.sort_unstable_by(f64::total_cmp);
    let n = returns.len();
    for level in VAR_CONFIDENCE_LEVELS_PCT {
        let (var_name, cvar_name) = match level {
            95 => (names::VAR_95, names::CVAR_95),
            _ => (names::VAR_99, names::CVAR_99),
        };
        let Some(k) = nearest_rank(level, n) else {
            out.omit(var_name, "no returns in the window");
            out.omit(cvar_name, "no returns in the window");
            continue;
        };
        let quantile = returns[k - 1];
        // Ties at the quantile belong to the tail too: CVaR = −mean(r | r ≤ r_(k)).
        let tail_len = returns.partition_point(|&r| r <= quantile);
        let tail_mean = returns[..tail_len].iter().sum::<f64>() / tail_len as f64;
        let inputs = [
            ("returns", n as f64),
            ("confidence", f64::from(level) / 100.0),
            ("k", k as f64),
            ("quantile_return", quantile),
            ("tail_observations", tail_len as f64),
        ];
        out.push(
            var_name,
            -quantile,
            Unit::Fraction,
            "−r_(k), 1-day historical, sorted simple returns r_(1) ≤ … ≤ r_(n), k = ⌈(1 − α)·n⌉ (nearest rank)",
            &inputs[..4],
        );
        out.push(
            cvar_name,
            -tail_mean,
            Unit::Fraction,
            "−mean(r_t | r_t ≤ r_(k)), 1-day historical, k = ⌈(1 − α)·n⌉ (nearest rank)",
            &inputs,
        );
    }
}

/// k = ⌈(100 − level)·n / 100⌉, at least 1, in integer arithmetic so that e.g. 0.05 · 20 is exactly 1.
/// `None` when there are no observations.
fn nearest_rank(level_pct: u32, n: usize) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let tail_pct = 100usize.saturating_sub(level_pct as usize);
    Some((tail_pct * n).div_ceil(100).clamp(1, n))
}

/// Pearson correlations of date-aligned simple returns across several series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CorrelationMatrix {
    /// Row and column order of `values`.
    pub symbols: Vec<String>,
    /// `values[i][j]` = correlation of `symbols[i]` with `symbols[j]`; symmetric, 1 on the diagonal.
    pub values: Vec<Vec<f64>>,
    /// Number of aligned returns each correlation is computed from.
    pub observations: usize,
    /// First and last shared date of the window.
    #[serde(serialize_with = "serialize_date")]
    pub first_date: Date,
    #[serde(serialize_with = "serialize_date")]
    pub last_date: Date,
    /// Series left out of the matrix (zero variance in the window), with the reason.
    pub omitted: Vec<OmittedMetric>,
}

/// Correlates the simple returns of `series` over the trailing window of `range`.
///
/// Alignment: the series are inner-joined on date (only dates every series has), the window is the
/// last `range.trading_days() + 1` of those shared dates (fewer if fewer are shared), and returns are
/// taken between consecutive shared dates, so every correlation uses the same intervals and the
/// matrix is a proper (positive semi-definite) correlation matrix. Pearson: ρ = Σ dx·dy / √(Σ dx² · Σ dy²)
/// on deviations from the mean. A series whose returns have zero variance has no correlation; it is
/// left out of `symbols` and listed in `omitted`.
///
/// # Errors
/// [`MarketError::NoSeries`] for an empty slice; [`MarketError::InsufficientOverlap`] when the series
/// share fewer than three dates (two returns).
pub fn correlation_matrix(series: &[PriceSeries], range: TimeRange) -> Result<CorrelationMatrix, MarketError> {
    if series.is_empty() {
        return Err(MarketError::NoSeries);
    }
    let (dates, closes) = shared_trailing_closes(series, range.window_prices());
    let returns_count = dates.len().saturating_sub(1);
    let (Some(&first_date), Some(&last_date)) = (dates.first(), dates.last()) else {
        return Err(MarketError::InsufficientOverlap { returns: 0, required: MIN_RETURNS_FOR_DISPERSION });
    };
    if returns_count < MIN_RETURNS_FOR_DISPERSION {
        return Err(MarketError::InsufficientOverlap { returns: returns_count, required: MIN_RETURNS_FOR_DISPERSION });
    }

    let mut symbols = Vec::with_capacity(series.len());
    let mut deviations: Vec<Vec<f64>> = Vec::with_capacity(series.len());
    let mut norms = Vec::with_capacity(series.len());
    let mut omitted = Vec::new();
    for (one, prices) in series.iter().zip(&closes) {
        let mut returns: Vec<f64> = prices.windows(2).map(|pair| pair[1] / pair[0] - 1.0).collect();
        let mean = returns.iter().sum::<f64>() / returns_count as f64;
        let mut sum_sq = 0.0;
        for r in &mut returns {
            *r -= mean;
            sum_sq += *r * *r;
        }
        let norm = sum_sq.sqrt();
        if norm / ((returns_count - 1) as f64).sqrt() < MIN_DISPERSION {
            omitted.push(OmittedMetric {
                name: one.symbol().to_owned(),
                reason: "returns have zero variance in the window".to_owned(),
            });
            continue;
        }
        symbols.push(one.symbol().to_owned());
        deviations.push(returns);
        norms.push(norm);
    }

    let k = symbols.len();
    let mut values = vec![vec![1.0; k]; k];
    for i in 0..k {
        for j in (i + 1)..k {
            let dot: f64 = deviations[i].iter().zip(&deviations[j]).map(|(x, y)| x * y).sum();
            let rho = (dot / (norms[i] * norms[j])).clamp(-1.0, 1.0);
            values[i][j] = rho;
            values[j][i] = rho;
        }
    }
    Ok(CorrelationMatrix { symbols, values, observations: returns_count, first_date, last_date, omitted })
}

/// Walks all series backwards from their ends, collecting closes on dates every series has, until
/// `wanted` shared dates are found. Returns the dates ascending and, per series, its closes on them.
fn shared_trailing_closes(series: &[PriceSeries], wanted: usize) -> (Vec<Date>, Vec<Vec<f64>>) {
    let mut cursors: Vec<usize> = series.iter().map(PriceSeries::len).collect();
    let mut dates = Vec::with_capacity(wanted);
    let mut closes: Vec<Vec<f64>> = series.iter().map(|_| Vec::with_capacity(wanted)).collect();
    'search: while dates.len() < wanted {
        // The latest date not yet passed in every series: the candidate for the next shared date.
        let mut candidate: Option<Date> = None;
        for (one, &cursor) in series.iter().zip(&cursors) {
            let Some(point) = cursor.checked_sub(1).and_then(|i| one.points().get(i)) else {
                break 'search;
            };
            candidate = Some(candidate.map_or(point.date, |c: Date| c.min(point.date)));
        }
        let Some(candidate) = candidate else {
            break;
        };
        let mut all_match = true;
        for (one, cursor) in series.iter().zip(cursors.iter_mut()) {
            // Skip this series' dates after the candidate: some other series lacks them.
            while *cursor > 0 && one.points()[*cursor - 1].date > candidate {
                *cursor -= 1;
            }
            if *cursor == 0 || one.points()[*cursor - 1].date != candidate {
                all_match = false;
            }
        }
        if all_match {
            dates.push(candidate);
            for ((one, cursor), out) in series.iter().zip(cursors.iter_mut()).zip(closes.iter_mut()) {
                out.push(one.points()[*cursor - 1].close);
                *cursor -= 1;
            }
        }
    }
    dates.reverse();
    for one in &mut closes {
        one.reverse();
    }
    (dates, closes)
}

/// Welford's running mean and sum of squared deviations.
#[derive(Clone, Copy, Debug, Default)]
struct RunningMoments {
    count: usize,
    mean: f64,
    m2: f64,
}

impl RunningMoments {
    fn add(&mut self, x: f64) {
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// Sample standard deviation (n − 1); `None` below two observations.
    fn sample_stdev(&self) -> Option<f64> {
        (self.count >= MIN_RETURNS_FOR_DISPERSION).then(|| (self.m2 / (self.count - 1) as f64).sqrt())
    }
}

/// Welford's running moments of two variables and their co-moment Σ (x − x̄)(y − ȳ).
#[derive(Clone, Copy, Debug, Default)]
struct RunningCoMoments {
    count: usize,
    x: RunningMoments,
    y: RunningMoments,
    co_moment: f64,
}

impl RunningCoMoments {
    fn add(&mut self, x: f64, y: f64) {
        self.count += 1;
        let dx = x - self.x.mean;
        self.x.add(x);
        self.y.add(y);
        self.co_moment += dx * (y - self.y.mean);
    }
}

/// Collects metrics, turning any non-finite value or input into an omission.
#[derive(Default)]
struct MetricCollector {
    metrics: Vec<Metric>,
    omitted: Vec<OmittedMetric>,
}

impl MetricCollector {
    fn push(&mut self, name: &str, value: f64, unit: Unit, formula: &str, inputs: &[(&str, f64)]) {
        if value.is_finite() && inputs.iter().all(|(_, input)| input.is_finite()) {
            self.metrics.push(Metric::new(name, value, unit, formula, inputs));
        } else {
            self.omit(name, "the value is not a finite number (overflow or underflow of the inputs)");
        }
    }

    fn omit(&mut self, name: &str, reason: impl Into<String>) {
        self.omitted.push(OmittedMetric { name: name.to_owned(), reason: reason.into() });
    }
}
