//! The figures a follow-up may ask for, by the words analysts use, and the stored metrics that
//! answer each, most telling first. A topic is answered by every one of its metrics the run has.

use std::sync::LazyLock;

use regex::Regex;

/// A figure asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MetricTopic {
    Leverage,
    Coverage,
    Liquidity,
    DefaultProbability,
    Margins,
    Revenue,
    Debt,
    CashFlow,
    Volatility,
    Return,
    Drawdown,
    Beta,
    Sharpe,
    Solvency,
    Capital,
}

/// (topic, the words that name it, the metrics that answer it).
const TOPICS: [(MetricTopic, &str, &[&str]); 15] = [
    (
        MetricTopic::Leverage,
        r"leverage[d]?|debt[ -]to[ -](?:ebitda|equity)|debt/ebitda|net debt/ebitda|gearing|how levered",
        &["pro_forma_debt_to_ebitda", "debt_to_ebitda", "net_debt_to_ebitda", "ttm_debt_to_ebitda", "debt_to_equity"],
    ),
    (
        MetricTopic::Coverage,
        r"(?:interest |debt service )?coverage|dscr|icr|times interest earned",
        &["pro_forma_dscr", "ebit_interest_coverage", "ebitda_interest_coverage"],
    ),
    (MetricTopic::Liquidity, r"liquidity|current ratio|quick ratio|acid test", &["current_ratio", "quick_ratio"]),
    (
        MetricTopic::DefaultProbability,
        r"\bpd\b|probability of default|default (?:risk|probability)|chance of default|distance to default",
        &["pro_forma_pd", "probability_of_default", "merton_pd", "distance_to_default"],
    ),
    (
        MetricTopic::Margins,
        r"margins?|profitab(?:le|ility)|return on assets|\broa\b",
        &["ebitda_margin", "ebit_margin", "net_margin", "gross_margin", "return_on_assets"],
    ),
    (
        MetricTopic::Revenue,
        r"revenues?|sales|top line|growth",
        &["revenue", "revenue_growth", "revenue_cagr", "ttm_revenue"],
    ),
    (MetricTopic::Debt, r"\bdebt\b|borrowings|indebted", &["total_debt", "net_debt", "pro_forma_total_debt"]),
    (
        MetricTopic::CashFlow,
        r"cash ?flows?|\bfcf\b|\bffo\b|funds from operations|cash from operations",
        &["free_cash_flow", "cash_from_operations", "funds_from_operations", "ffo_to_debt", "fcf_to_debt"],
    ),
    (
        MetricTopic::Volatility,
        r"volatil(?:e|ity)|\bvol\b|how risky was the (?:stock|share)",
        &["annualised_volatility"],
    ),
    (
        MetricTopic::Return,
        r"\breturns?\b|perform(?:ed|ance|s)?|how (?:did|has) (?:it|the stock|the share) (?:do|done)|\bcagr\b",
        &["period_return", "cagr"],
    ),
    (MetricTopic::Drawdown, r"drawdowns?|peak to trough|worst fall", &["max_drawdown"]),
    (MetricTopic::Beta, r"\bbeta\b|correlat(?:ion|ed)", &["beta", "correlation"]),
    (MetricTopic::Sharpe, r"sharpe|risk[- ]adjusted", &["sharpe_ratio"]),
    (MetricTopic::Solvency, r"altman|z[- ]score|piotroski|f[- ]score|solven(?:t|cy)", &["altman_z", "piotroski_f"]),
    (
        MetricTopic::Capital,
        r"capital (?:requirement|charge)|risk[- ]weight|\brwa\b|expected loss|\braroc\b|\blgd\b",
        &["capital_requirement", "risk_weighted_assets", "expected_loss", "raroc_minimum_spread", "lgd"],
    ),
];

static PATTERNS: LazyLock<Vec<(MetricTopic, Regex)>> = LazyLock::new(|| {
    TOPICS
        .iter()
        .map(|(topic, words, _)| {
            let pattern = format!(r"(?i)\b(?:{words})");
            (*topic, Regex::new(&pattern).unwrap_or_else(|error| panic!("topic {topic:?}: {error}")))
        })
        .collect()
});

impl MetricTopic {
    /// The first topic named in `message`, in the order of the table.
    pub fn named_in(message: &str) -> Option<Self> {
        PATTERNS.iter().find(|(_, pattern)| pattern.is_match(message)).map(|(topic, _)| *topic)
    }

    /// The metrics that answer it, most telling first.
    pub fn metrics(self) -> &'static [&'static str] {
        TOPICS.iter().find(|(topic, _, _)| *topic == self).map_or(&[], |(_, _, metrics)| metrics)
    }

    /// The topic in words.
    pub fn words(self) -> &'static str {
        match self {
            Self::Leverage => "leverage",
            Self::Coverage => "coverage",
            Self::Liquidity => "liquidity",
            Self::DefaultProbability => "probability of default",
            Self::Margins => "margins",
            Self::Revenue => "revenue",
            Self::Debt => "debt",
            Self::CashFlow => "cash flow",
            Self::Volatility => "volatility",
            Self::Return => "return",
            Self::Drawdown => "drawdown",
            Self::Beta => "beta",
            Self::Sharpe => "Sharpe ratio",
            Self::Solvency => "solvency scores",
            Self::Capital => "capital",
        }
    }
}
