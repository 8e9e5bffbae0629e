//! Plain-language findings from market statistics: rankings across instruments and flags on
//! volatility, drawdown, risk-adjusted return, beta, tail risk and performance against the benchmark.
//! Every finding carries the metric values and the threshold it was judged against.

use std::cmp::Ordering;

use serde::Serialize;

use super::statistics::{InstrumentStatistics, metric_names as names};
use crate::domain::quant::display::{percent, score};

/// Annualised volatility above this is a concern (roughly twice a broad equity index's long-run level).
pub const HIGH_VOLATILITY: f64 = 0.40;
/// Annualised volatility above this (and up to [`HIGH_VOLATILITY`]) is worth watching.
pub const ELEVATED_VOLATILITY: f64 = 0.25;
/// A maximum drawdown at or below this (−30 %) is a concern.
pub const SEVERE_DRAWDOWN: f64 = -0.30;
/// A maximum drawdown at or below this (−15 %, and above [`SEVERE_DRAWDOWN`]) is worth watching.
pub const MATERIAL_DRAWDOWN: f64 = -0.15;
/// A Sharpe ratio at or above this is a positive finding.
pub const STRONG_SHARPE: f64 = 1.0;
/// A Sharpe ratio below this (the instrument earned less than the risk-free rate) is worth watching.
pub const NEGATIVE_SHARPE: f64 = 0.0;
/// A beta above this amplifies benchmark moves: worth watching.
pub const HIGH_BETA: f64 = 1.3;
/// A beta below this is defensive relative to the benchmark: informational.
pub const LOW_BETA: f64 = 0.7;
/// Out- or under-performing the benchmark's period return by more than this is reported.
pub const RELATIVE_PERFORMANCE_MARGIN: f64 = 0.05;
/// A 1-day historical 99 % VaR above this (a 5 % daily loss) is worth watching.
pub const HIGH_DAILY_VAR_99: f64 = 0.05;

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarketFindingCategory {
    /// Period return, alone or ranked.
    Return,
    /// Annualised volatility.
    Volatility,
    /// Sharpe ratio.
    RiskAdjustedReturn,
    /// Maximum drawdown.
    Drawdown,
    /// Historical VaR / CVaR.
    TailRisk,
    /// Beta against the benchmark.
    Beta,
    /// Period return compared with the benchmark's.
    RelativePerformance,
    /// Less price history than the requested window.
    DataCoverage,
}

/// How a finding bears on the instrument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarketSeverity {
    /// Favourable.
    Positive,
    /// Context, neither good nor bad.
    Info,
    /// Unfavourable enough to look at.
    Watch,
    /// Clearly unfavourable.
    Concern,
}

/// One metric value a finding rests on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MarketEvidence {
    pub symbol: String,
    /// Metric name from [`names`].
    pub metric: String,
    pub value: f64,
    /// The threshold or comparison value the metric was judged against, when there is one.
    pub threshold: Option<f64>,
}

/// A statement about one or more instruments, with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MarketFinding {
    pub category: MarketFindingCategory,
    pub severity: MarketSeverity,
    pub statement: String,
    pub evidence: Vec<MarketEvidence>,
}

/// Rankings across `stats` (when there are at least two instruments), then per-instrument flags
/// judged against the thresholds in this module, then comparisons with `benchmark` (skipped for the
/// benchmark itself when it also appears in `stats`). Metrics that were omitted produce no finding.
pub fn market_findings(stats: &[InstrumentStatistics], benchmark: Option<&InstrumentStatistics>) -> Vec<MarketFinding> {
    let mut findings = Vec::new();
    if stats.len() >= 2 {
        for ranking in &RANKINGS {
            if let Some(finding) = rank(stats, ranking) {
                findings.push(finding);
            }
        }
    }
    for one in stats {
        coverage_finding(one, &mut findings);
        threshold_findings(one, &mut findings);
        if let Some(benchmark) = benchmark.filter(|b| b.symbol != one.symbol) {
            benchmark_findings(one, benchmark, &mut findings);
        }
    }
    findings
}

struct Ranking {
    metric: &'static str,
    label: &'static str,
    category: MarketFindingCategory,
    higher_is_better: bool,
    as_percent: bool,
}

const RANKINGS: [Ranking; 4] = [
    Ranking {
        metric: names::PERIOD_RETURN,
        label: "period return",
        category: MarketFindingCategory::Return,
        higher_is_better: true,
        as_percent: true,
    },
    Ranking {
        metric: names::SHARPE_RATIO,
        label: "Sharpe ratio",
        category: MarketFindingCategory::RiskAdjustedReturn,
        higher_is_better: true,
        as_percent: false,
    },
    Ranking {
        metric: names::ANNUALISED_VOLATILITY,
        label: "annualised volatility (lowest first)",
        category: MarketFindingCategory::Volatility,
        higher_is_better: false,
        as_percent: true,
    },
    Ranking {
        metric: names::MAX_DRAWDOWN,
        label: "maximum drawdown (shallowest first)",
        category: MarketFindingCategory::Drawdown,
        higher_is_better: true,
        as_percent: true,
    },
];

/// Best first; ties keep the input order.
fn rank(stats: &[InstrumentStatistics], ranking: &Ranking) -> Option<MarketFinding> {
    let mut ranked: Vec<(&str, f64)> =
        stats.iter().filter_map(|s| s.value(ranking.metric).map(|v| (s.symbol.as_str(), v))).collect();
    if ranked.len() < 2 {
        return None;
    }
    ranked.sort_by(|a, b| {
        let order = a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal);
        if ranking.higher_is_better { order.reverse() } else { order }
    });
    let format = |v: f64| if ranking.as_percent { percent(v) } else { score(v) };
    let listed: Vec<String> = ranked.iter().map(|(symbol, v)| format!("{symbol} {}", format(*v))).collect();
    let mut statement = format!("Ranked by {}: {}.", ranking.label, listed.join(", "));
    let missing: Vec<&str> =
        stats.iter().filter(|s| s.value(ranking.metric).is_none()).map(|s| s.symbol.as_str()).collect();
    if !missing.is_empty() {
        statement.push_str(&format!(" Not computable for {}.", missing.join(", ")));
    }
    Some(MarketFinding {
        category: ranking.category,
        severity: MarketSeverity::Info,
        statement,
        evidence: ranked
            .iter()
            .map(|(symbol, value)| MarketEvidence {
                symbol: (*symbol).to_owned(),
                metric: ranking.metric.to_owned(),
                value: *value,
                threshold: None,
            })
            .collect(),
    })
}

fn coverage_finding(one: &InstrumentStatistics, findings: &mut Vec<MarketFinding>) {
    let window = &one.window;
    if !window.truncated {
        return;
    }
    findings.push(MarketFinding {
        category: MarketFindingCategory::DataCoverage,
        severity: MarketSeverity::Info,
        statement: format!(
            "{}: only {} prices ({} to {}) of the {} a {} window needs; statistics cover the shorter period.",
            one.symbol, window.prices, window.first_date, window.last_date, window.requested_prices, window.range
        ),
        evidence: vec![evidence(one, "prices", window.prices as f64, Some(window.requested_prices as f64))],
    });
}

fn threshold_findings(one: &InstrumentStatistics, findings: &mut Vec<MarketFinding>) {
    let symbol = &one.symbol;
    if let Some(vol) = one.value(names::ANNUALISED_VOLATILITY) {
        let flagged = if vol > HIGH_VOLATILITY {
            Some((MarketSeverity::Concern, HIGH_VOLATILITY, "high"))
        } else if vol > ELEVATED_VOLATILITY {
            Some((MarketSeverity::Watch, ELEVATED_VOLATILITY, "elevated"))
        } else {
            None
        };
        if let Some((severity, threshold, word)) = flagged {
            findings.push(MarketFinding {
                category: MarketFindingCategory::Volatility,
                severity,
                statement: format!(
                    "{symbol}: {word} annualised volatility of {} (above {}).",
                    percent(vol),
                    percent(threshold)
                ),
                evidence: vec![evidence(one, names::ANNUALISED_VOLATILITY, vol, Some(threshold))],
            });
        }
    }
    let drawdown = one.value(names::MAX_DRAWDOWN);
    if let Some(depth) = drawdown {
        let flagged = if depth <= SEVERE_DRAWDOWN {
            Some((MarketSeverity::Concern, SEVERE_DRAWDOWN, "severe"))
        } else if depth <= MATERIAL_DRAWDOWN {
            Some((MarketSeverity::Watch, MATERIAL_DRAWDOWN, "material"))
        } else {
            None
        };
        if let Some((severity, threshold, word)) = flagged {
            let dd = &one.max_drawdown;
            findings.push(MarketFinding {
                category: MarketFindingCategory::Drawdown,
                severity,
                statement: format!(
                    "{symbol}: {word} maximum drawdown of {} from {} on {} to {} on {} (threshold {}).",
                    percent(depth),
                    score(dd.peak_close),
                    dd.peak_date,
                    score(dd.trough_close),
                    dd.trough_date,
                    percent(threshold)
                ),
                evidence: vec![evidence(one, names::MAX_DRAWDOWN, depth, Some(threshold))],
            });
        }
    }
    if let Some(sharpe) = one.value(names::SHARPE_RATIO) {
        let flagged = if sharpe >= STRONG_SHARPE {
            Some((
                MarketSeverity::Positive,
                STRONG_SHARPE,
                format!("strong Sharpe ratio of {} (at least", score(sharpe)),
            ))
        } else if sharpe < NEGATIVE_SHARPE {
            Some((
                MarketSeverity::Watch,
                NEGATIVE_SHARPE,
                format!("negative Sharpe ratio of {}: returns below the risk-free rate (below", score(sharpe)),
            ))
        } else {
            None
        };
        if let Some((severity, threshold, text)) = flagged {
            findings.push(MarketFinding {
                category: MarketFindingCategory::RiskAdjustedReturn,
                severity,
                statement: format!("{symbol}: {text} {}).", score(threshold)),
                evidence: vec![evidence(one, names::SHARPE_RATIO, sharpe, Some(threshold))],
            });
        }
    }
    if let Some(var_99) = one.value(names::VAR_99).filter(|v| *v > HIGH_DAILY_VAR_99) {
        let cvar = one.value(names::CVAR_99);
        let mut statement =
            format!("{symbol}: 1-day historical 99% VaR of {} exceeds {}", percent(var_99), percent(HIGH_DAILY_VAR_99));
        let mut items = vec![evidence(one, names::VAR_99, var_99, Some(HIGH_DAILY_VAR_99))];
        if let Some(cvar) = cvar {
            statement.push_str(&format!("; the average loss beyond it (CVaR) is {}", percent(cvar)));
            items.push(evidence(one, names::CVAR_99, cvar, None));
        }
        statement.push('.');
        findings.push(MarketFinding {
            category: MarketFindingCategory::TailRisk,
            severity: MarketSeverity::Watch,
            statement,
            evidence: items,
        });
    }
}

fn benchmark_findings(one: &InstrumentStatistics, benchmark: &InstrumentStatistics, findings: &mut Vec<MarketFinding>) {
    let symbol = &one.symbol;
    let bench = &benchmark.symbol;
    if let Some(beta) = one.value(names::BETA) {
        let flagged = if beta > HIGH_BETA {
            Some((MarketSeverity::Watch, HIGH_BETA, "amplifies", "above"))
        } else if beta < LOW_BETA {
            Some((MarketSeverity::Info, LOW_BETA, "dampens", "below"))
        } else {
            None
        };
        if let Some((severity, threshold, verb, side)) = flagged {
            findings.push(MarketFinding {
                category: MarketFindingCategory::Beta,
                severity,
                statement: format!(
                    "{symbol}: beta of {} against {bench} ({side} {}) {verb} benchmark moves.",
                    score(beta),
                    score(threshold)
                ),
                evidence: vec![evidence(one, names::BETA, beta, Some(threshold))],
            });
        }
    }
    if let (Some(own), Some(theirs)) = (one.value(names::PERIOD_RETURN), benchmark.value(names::PERIOD_RETURN)) {
        let difference = own - theirs;
        let severity = if difference > RELATIVE_PERFORMANCE_MARGIN {
            Some((MarketSeverity::Positive, "outperformed"))
        } else if difference < -RELATIVE_PERFORMANCE_MARGIN {
            Some((MarketSeverity::Watch, "underperformed"))
        } else {
            None
        };
        if let Some((severity, verb)) = severity {
            findings.push(MarketFinding {
                category: MarketFindingCategory::RelativePerformance,
                severity,
                statement: format!(
                    "{symbol} {verb} {bench} by {:.1} percentage points over the window ({} vs {}; margin {}).",
                    difference.abs() * 100.0,
                    percent(own),
                    percent(theirs),
                    percent(RELATIVE_PERFORMANCE_MARGIN)
                ),
                evidence: vec![
                    evidence(one, names::PERIOD_RETURN, own, Some(theirs)),
                    evidence(benchmark, names::PERIOD_RETURN, theirs, None),
                ],
            });
        }
    }
}

fn evidence(one: &InstrumentStatistics, metric: &str, value: f64, threshold: Option<f64>) -> MarketEvidence {
    MarketEvidence { symbol: one.symbol.clone(), metric: metric.to_owned(), value, threshold }
}
