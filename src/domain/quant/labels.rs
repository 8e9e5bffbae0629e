//! What each figure is called where people read it. A metric's `name` is a stable snake_case key
//! (`debt_to_ebitda`) that clients match on; its label is how an analyst writes it ("Debt / EBITDA",
//! "EBIT interest coverage", "Revenue CAGR"), acronyms kept. The same table names the inputs of the
//! formulas and gives each one the unit its value is written in, so "where total_debt = …" can be
//! shown as "where Total debt = USD 111.1 bn".
//!
//! Every figure the analyses can produce is in [`known`]; the tests run the analyses and fail on a
//! metric or an input that is not, so a new metric cannot ship without its label.

use super::Unit;

/// The label and unit of the figure called `key`, when the table has it. A key ending in a date is
/// a quarter's line of a trailing-twelve-month sum (`revenue_2023-12-31`): "Revenue, quarter ended
/// 2023-12-31".
pub fn known(key: &str) -> Option<(String, Unit)> {
    if let Some((line, end)) = key.rsplit_once('_').filter(|(_, end)| is_iso_date(end)) {
        return table(line).map(|(label, unit)| (format!("{label}, quarter ended {end}"), unit));
    }
    table(key).map(|(label, unit)| (label.to_owned(), unit))
}

/// `YYYY-MM-DD`, as the quarters of a TTM sum name their end.
fn is_iso_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| if i == 4 || i == 7 { *b == b'-' } else { b.is_ascii_digit() })
}

fn table(key: &str) -> Option<(&'static str, Unit)> {
    use Unit::{Count, Currency, Fraction, Ratio, Score};
    Some(match key {
        // Statement lines and what is derived from them.
        "revenue" => ("Revenue", Currency),
        "prior_year_revenue" => ("Prior-year revenue", Currency),
        "oldest_revenue" => ("Oldest revenue", Currency),
        "gross_profit" => ("Gross profit", Currency),
        "operating_income" => ("Operating income", Currency),
        "ebit" => ("EBIT", Currency),
        "ebitda" => ("EBITDA", Currency),
        "depreciation_amortization" => ("Depreciation and amortisation", Currency),
        "net_income" => ("Net income", Currency),
        "interest_expense" => ("Interest expense", Currency),
        "income_tax" => ("Income tax", Currency),
        "total_assets" => ("Total assets", Currency),
        "current_assets" => ("Current assets", Currency),
        "quick_assets" => ("Quick assets", Currency),
        "total_liabilities" => ("Total liabilities", Currency),
        "current_liabilities" => ("Current liabilities", Currency),
        "working_capital" => ("Working capital", Currency),
        "retained_earnings" => ("Retained earnings", Currency),
        "equity" => ("Book equity", Currency),
        "equity_market_value" => ("Market capitalisation", Currency),
        "total_debt" => ("Total debt", Currency),
        "net_debt" => ("Net debt", Currency),
        "cash" => ("Cash and equivalents", Currency),
        "cash_from_operations" => ("Cash from operations", Currency),
        "capital_expenditure" => ("Capital expenditure", Currency),
        "free_cash_flow" => ("Free cash flow", Currency),
        "funds_from_operations" => ("FFO", Currency),
        "default_point" => ("Default point", Currency),
        "years" => ("Years", Count),
        // Growth, margins and returns.
        "revenue_growth" => ("Revenue growth", Fraction),
        "revenue_cagr" => ("Revenue CAGR", Fraction),
        "gross_margin" => ("Gross margin", Fraction),
        "ebit_margin" => ("EBIT margin", Fraction),
        "ebitda_margin" => ("EBITDA margin", Fraction),
        "net_margin" => ("Net margin", Fraction),
        "return_on_assets" => ("ROA", Fraction),
        // Leverage, coverage, liquidity, cash flow.
        "debt_to_ebitda" => ("Debt / EBITDA", Ratio),
        "net_debt_to_ebitda" => ("Net debt / EBITDA", Ratio),
        "ebitda_interest_coverage" => ("EBITDA interest coverage", Ratio),
        "ebit_interest_coverage" => ("EBIT interest coverage", Ratio),
        "current_ratio" => ("Current ratio", Ratio),
        "quick_ratio" => ("Quick ratio", Ratio),
        "debt_to_equity" => ("Debt / equity", Ratio),
        "ffo_to_debt" => ("FFO / debt", Fraction),
        "fcf_to_debt" => ("FCF / debt", Fraction),
        "cfo_to_debt" => ("CFO / debt", Fraction),
        // Scores, market-implied risk and the synthetic rating.
        "piotroski_f" => ("Piotroski F-score", Score),
        "criteria_evaluated" => ("Criteria evaluated", Count),
        "altman_z" => ("Altman Z-score", Score),
        "distance_to_default" => ("Merton distance to default", Score),
        "merton_pd" => ("Merton PD", Fraction),
        "equity_volatility" => ("Equity volatility", Fraction),
        "equity_return" => ("Equity return", Fraction),
        "synthetic_rating_spread" => ("Synthetic rating spread", Fraction),
        "probability_of_default" => ("One-year PD", Fraction),
        "grade_notch" => ("Grade notch", Count),
        "pd_floor" => ("PD floor", Fraction),
        // Trailing twelve months.
        "ttm_revenue" => ("TTM revenue", Currency),
        "ttm_ebitda" => ("TTM EBITDA", Currency),
        "ttm_net_income" => ("TTM net income", Currency),
        "ttm_debt_to_ebitda" => ("Debt / TTM EBITDA", Ratio),
        "ttm_net_debt_to_ebitda" => ("Net debt / TTM EBITDA", Ratio),
        // Market statistics. Prices are in the instrument's quote currency, which is not known
        // here: they are written as plain numbers.
        "period_return" => ("Period return", Fraction),
        "cagr" => ("CAGR", Fraction),
        "daily_volatility" => ("Daily volatility", Fraction),
        "annualised_volatility" => ("Annualised volatility", Fraction),
        "max_drawdown" => ("Maximum drawdown", Fraction),
        "beta" => ("Beta", Score),
        "benchmark_correlation" => ("Correlation with the benchmark", Score),
        "sharpe_ratio" => ("Sharpe ratio", Score),
        "sortino_ratio" => ("Sortino ratio", Score),
        "var_95" => ("1-day VaR (95%)", Fraction),
        "var_99" => ("1-day VaR (99%)", Fraction),
        "cvar_95" => ("1-day CVaR (95%)", Fraction),
        "cvar_99" => ("1-day CVaR (99%)", Fraction),
        "first_close" => ("First close", Score),
        "last_close" => ("Last close", Score),
        "peak_close" => ("Peak close", Score),
        "trough_close" => ("Trough close", Score),
        "prices" => ("Prices", Count),
        "returns" => ("Returns", Count),
        "aligned_returns" => ("Aligned returns", Count),
        "calendar_days" => ("Calendar days", Count),
        "peak_to_trough_calendar_days" => ("Peak to trough, calendar days", Count),
        "trading_days_per_year" => ("Trading days per year", Count),
        "mean_log_return" => ("Mean log return", Fraction),
        "covariance" => ("Covariance", Score),
        "benchmark_variance" => ("Benchmark variance", Score),
        "instrument_variance" => ("Instrument variance", Score),
        "risk_free_annual" => ("Risk-free rate, annual", Fraction),
        "risk_free_daily" => ("Risk-free rate, daily", Fraction),
        "mean_excess_return" => ("Mean excess return", Fraction),
        "stdev_excess_return" => ("Standard deviation of excess returns", Fraction),
        "downside_deviation" => ("Downside deviation", Fraction),
        "downside_observations" => ("Downside observations", Count),
        "confidence" => ("Confidence", Fraction),
        "k" => ("Tail rank k", Count),
        "quantile_return" => ("Quantile return", Fraction),
        "tail_observations" => ("Tail observations", Count),
        // Loan assessment, Basel capital and pricing.
        "commitment" => ("Commitment", Currency),
        "usage_factor" => ("Usage factor", Fraction),
        "drawn" => ("Drawn amount", Currency),
        "ead" => ("EAD", Currency),
        "lgd" => ("LGD", Fraction),
        "pd" => ("PD", Fraction),
        "maturity" => ("Effective maturity, years", Count),
        "base_rate" => ("Base rate", Fraction),
        "grade_spread" => ("Grade spread", Fraction),
        "assumed_rate" => ("Assumed interest rate", Fraction),
        "pro_forma_total_debt" => ("Pro-forma total debt", Currency),
        "pro_forma_interest_expense" => ("Pro-forma interest expense", Currency),
        "pro_forma_debt_to_ebitda" => ("Pro-forma debt / EBITDA", Ratio),
        "pro_forma_ebit_interest_coverage" => ("Pro-forma EBIT interest coverage", Ratio),
        "pro_forma_ebitda_interest_coverage" => ("Pro-forma EBITDA interest coverage", Ratio),
        "existing_scheduled_principal" => ("Existing scheduled principal", Currency),
        "new_scheduled_principal" => ("New scheduled principal", Currency),
        "pro_forma_dscr" => ("Pro-forma DSCR", Ratio),
        "dscr" => ("DSCR", Ratio),
        "pro_forma_pd" => ("Pro-forma PD", Fraction),
        "asset_correlation" => ("Asset correlation", Fraction),
        "capital_requirement" => ("Capital requirement K", Fraction),
        "risk_weight" => ("Risk weight", Fraction),
        "risk_weighted_assets" => ("RWA", Currency),
        "expected_loss" => ("Expected loss", Currency),
        "raroc_minimum_spread" => ("RAROC minimum spread", Fraction),
        "operating_cost" => ("Operating cost", Fraction),
        "hurdle_rate" => ("Hurdle rate", Fraction),
        "upfront_fees" => ("Upfront fees", Fraction),
        "tenor_years" => ("Tenor, years", Count),
        "contractual_margin" => ("Contractual margin", Fraction),
        _ => return None,
    })
}

/// How an analyst writes the figure called `key`: its label, or for a key the table does not have
/// (a result stored by an older version) the key in words with its acronyms kept.
pub fn label(key: &str) -> String {
    known(key).map_or_else(|| in_words(key), |(label, _)| label)
}

/// The unit the figure called `key` is written in; a plain number when the table does not have it.
pub fn unit(key: &str) -> Unit {
    known(key).map_or(Unit::Score, |(_, unit)| unit)
}

/// `text` with each figure's key in it written as its label: "ebit_interest_coverage: needs
/// total_debt, ebitda" → "EBIT interest coverage: needs Total debt, EBITDA". Only keys that cannot
/// be ordinary words are replaced — those with an underscore and acronyms — so "equity value"
/// stays as it is.
pub fn in_prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        match known(token).filter(|(label, _)| token.contains('_') || is_acronym(label)) {
            Some((label, _)) => out.push_str(&label),
            None => out.push_str(token),
        }
        token.clear();
    };
    for c in text.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

fn is_acronym(label: &str) -> bool {
    label.chars().all(|c| c.is_ascii_uppercase())
}

/// Acronyms an analyst writes in capitals.
const ACRONYMS: [&str; 17] = [
    "cagr", "cfo", "cvar", "dscr", "ead", "ebit", "ebitda", "fcf", "ffo", "lgd", "pd", "raroc", "roa", "roe", "rwa",
    "ttm", "var",
];

/// `pro_forma_ebitda_margin` → "Pro forma EBITDA margin".
fn in_words(key: &str) -> String {
    let words: Vec<String> = key
        .split('_')
        .filter(|word| !word.is_empty())
        .enumerate()
        .map(|(i, word)| {
            if ACRONYMS.contains(&word) {
                word.to_uppercase()
            } else if i == 0 {
                let mut chars = word.chars();
                chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
            } else {
                word.to_owned()
            }
        })
        .collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::credit::fixtures::{healthy, leveraged, loss_making, sparse};
    use super::super::credit::{MarketInputs, analyse_credit};
    use super::super::loan::{LoanPolicy, LoanRequest, LoanType, Seniority, assess_loan};
    use super::super::market::{PriceSeries, TimeRange, instrument_statistics};
    use super::super::quarterly::{QuarterSource, QuarterStatement, QuarterlyStatements, trailing_twelve_months};
    use super::super::{Metric, findings};
    use super::*;

    fn prices(symbol: &str, closes: &[f64]) -> PriceSeries {
        let start = time::macros::date!(2023 - 01 - 02);
        let dated = closes.iter().enumerate().map(|(i, close)| (start + time::Duration::days(i as i64), *close));
        PriceSeries::from_closes(symbol, dated).expect("series")
    }

    /// Results that are not numbers (a grade, a profile) but are explained in `missing_inputs` in
    /// the same way as a figure that could not be computed.
    const NOT_FIGURES: [&str; 2] = ["synthetic_rating", "financial_risk_profile"];

    /// Every metric the analyses produce, on statements and prices rich enough to compute all of
    /// them and on fixtures that leave some out; and the names of those they could not compute
    /// (every metric is either computed or explained), so that a metric no fixture computes is still
    /// named.
    fn every_metric() -> (Vec<Metric>, Vec<String>) {
        use time::macros::date;
        let market = MarketInputs { equity_market_value: 2000.0, equity_volatility: 0.3, equity_return: 0.08 };
        let (mut metrics, mut explained) = (Vec::new(), Vec::new());
        let named = |line: &String| line.split_once(':').map(|(name, _)| name.trim().to_owned());
        for company in [healthy(), leveraged(), loss_making(), sparse()] {
            let credit = analyse_credit(&company, Some(market));
            explained.extend(credit.missing_inputs.iter().filter_map(named));
            metrics.extend(credit.metrics);
            for loan_type in [LoanType::TermLoan, LoanType::Revolving, LoanType::Bridge, LoanType::Other] {
                let request = LoanRequest::new(200.0, loan_type, Seniority::SeniorUnsecured).expect("valid");
                let assessment = assess_loan(&company, request, &LoanPolicy::default());
                explained.extend(assessment.missing_inputs.iter().filter_map(named));
                metrics.extend(assessment.metrics);
            }
        }
        let quarter_dates = [
            (date!(2023 - 01 - 01), date!(2023 - 03 - 31)),
            (date!(2023 - 04 - 01), date!(2023 - 06 - 30)),
            (date!(2023 - 07 - 01), date!(2023 - 09 - 30)),
            (date!(2023 - 10 - 01), date!(2023 - 12 - 31)),
        ];
        let quarters: Vec<QuarterStatement> = quarter_dates
            .iter()
            .map(|&(start, end)| {
                let mut quarter = QuarterStatement::empty(start, end, QuarterSource::QuarterlyReport);
                quarter.lines.revenue = Some(100.0);
                quarter.lines.operating_income = Some(20.0);
                quarter.lines.depreciation_amortization = Some(5.0);
                quarter.lines.net_income = Some(10.0);
                quarter.lines.long_term_debt = Some(150.0);
                quarter.lines.cash = Some(30.0);
                quarter
            })
            .collect();
        let ttm = trailing_twelve_months(&QuarterlyStatements::new(quarters), None).expect("ttm");
        explained.extend(ttm.missing_inputs.iter().filter_map(named));
        metrics.extend(ttm.metrics);
        let zigzag: Vec<f64> = (0..60).map(|i| 100.0 + f64::from(i % 7) * 1.5 - f64::from(i % 3)).collect();
        let benchmark: Vec<f64> = (0..60).map(|i| 50.0 + f64::from(i % 5) - f64::from(i % 2) * 0.7).collect();
        let benchmark = prices("BENCH", &benchmark);
        for (series, benchmark) in [(prices("TEST", &zigzag), Some(&benchmark)), (prices("FLAT", &[10.0, 10.0]), None)]
        {
            let stats = instrument_statistics(&series, benchmark, TimeRange::ThreeMonths, 0.02).expect("stats");
            explained.extend(stats.omitted.iter().map(|omitted| omitted.name.clone()));
            metrics.extend(stats.metrics);
        }
        explained.retain(|name| !NOT_FIGURES.contains(&name.as_str()));
        (metrics, explained)
    }

    #[test]
    fn every_metric_the_analyses_produce_has_a_label_and_its_unit_agrees() {
        let (metrics, explained) = every_metric();
        let mut names: Vec<&str> = metrics.iter().map(|m| m.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert!(names.len() >= 67, "the analyses were run in full: {} metrics, {names:?}", names.len());
        for metric in &metrics {
            let (label, unit) =
                known(&metric.name).unwrap_or_else(|| panic!("metric {} has no label in labels::known", metric.name));
            assert_eq!(unit, metric.unit, "{}: the table's unit is the metric's", metric.name);
            assert_eq!(metric.label, label, "{}: the metric carries its label", metric.name);
            for input in &metric.inputs {
                assert!(known(&input.name).is_some(), "input {} of {} has no label", input.name, metric.name);
                assert_eq!((&input.label, input.unit), (&label_of(&input.name), unit_of(&input.name)));
            }
        }
        for name in &explained {
            assert!(known(name).is_some(), "{name}, explained as not computed, has no label in labels::known");
        }
    }

    fn unit_of(key: &str) -> Unit {
        known(key).map(|(_, unit)| unit).unwrap_or(Unit::Score)
    }

    fn label_of(key: &str) -> String {
        known(key).map(|(label, _)| label).unwrap_or_default()
    }

    #[test]
    fn every_metric_a_finding_or_a_loan_test_cites_has_a_label() {
        let request = LoanRequest::new(200.0, LoanType::TermLoan, Seniority::SeniorUnsecured).expect("valid");
        for company in [healthy(), leveraged(), loss_making()] {
            let assessment = assess_loan(&company, request, &LoanPolicy::default());
            let cited = findings::loan_findings(&assessment, &findings::FindingThresholds::default(), None);
            for key in cited
                .iter()
                .map(|f| f.evidence.metric.as_str())
                .chain(assessment.reasons.iter().map(|r| r.metric.as_str()))
                .chain(assessment.covenants.iter().map(|c| c.metric.as_str()))
                .filter(|key| *key != "missing_inputs")
            {
                assert!(known(key).is_some(), "{key} has no label");
            }
        }
    }

    #[test]
    fn labels_are_written_as_analysts_write_them() {
        assert_eq!(label("ebit"), "EBIT");
        assert_eq!(label("ebitda"), "EBITDA");
        assert_eq!(label("debt_to_ebitda"), "Debt / EBITDA");
        assert_eq!(label("revenue_cagr"), "Revenue CAGR");
        assert_eq!(label("ttm_revenue"), "TTM revenue");
        assert_eq!(label("pro_forma_dscr"), "Pro-forma DSCR");
        assert_eq!(label("risk_weighted_assets"), "RWA");
        assert_eq!(unit("total_debt"), Unit::Currency);
        assert_eq!(label("revenue_2023-12-31"), "Revenue, quarter ended 2023-12-31");
        assert_eq!(unit("ebitda_2023-12-31"), Unit::Currency);
        assert_eq!(label("revenue_2023-12"), "Revenue 2023-12", "not a date");
    }

    #[test]
    fn keys_in_a_sentence_are_written_as_labels_and_ordinary_words_are_left_alone() {
        assert_eq!(
            in_prose("ebit_interest_coverage: needs total_debt, ebitda not reported"),
            "EBIT interest coverage: needs Total debt, EBITDA not reported"
        );
        assert_eq!(
            in_prose("distance_to_default: equity value and volatility must be positive"),
            "Merton distance to default: equity value and volatility must be positive"
        );
        assert_eq!(in_prose("ttm_*: no quarterly statements"), "ttm_*: no quarterly statements");
        assert_eq!(in_prose(""), "");
    }

    #[test]
    fn a_key_the_table_does_not_have_is_put_in_words_with_its_acronyms() {
        assert_eq!(label("pro_forma_ebitda_margin"), "Pro forma EBITDA margin");
        assert_eq!(label("roe"), "ROE");
        assert_eq!(label("some__odd_key_"), "Some odd key");
        assert_eq!(label(""), "");
        assert_eq!(unit("unheard_of"), Unit::Score);
    }
}
