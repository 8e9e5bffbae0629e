//! Quarterly statements and the trailing-twelve-month (TTM) figures built from them.
//!
//! TTM is what an analyst reads between two annual reports: the flows (revenue, EBITDA, net income)
//! of the latest four consecutive fiscal quarters summed, and leverage as the debt at the latest
//! quarter end over TTM EBITDA. It is computed only when the latest quarter ends after the last
//! fiscal year end — otherwise the annual figures are already the latest twelve months — and it
//! never replaces an annual metric: TTM metrics carry their own names (`ttm_revenue`,
//! `ttm_debt_to_ebitda`). A quarter the provider could not give (a fourth quarter whose Q1–Q3 are
//! not all reported) breaks the run of consecutive quarters, and then no TTM figure is computed.

use serde::Serialize;
use time::Date;

use super::credit::MetricBook;
use super::statements::{FiscalYearStatement, finite};
use super::{Metric, Unit};

/// Most quarters a [`QuarterlyStatements`] keeps: two years.
pub const MAX_QUARTERS: usize = 8;

/// How quarters are read from filings, as stated in a result's `data.methodology`.
pub const QUARTERS_METHOD: &str = "Quarters: three-month (80-100 day) facts of 10-Q and 10-Q/A filings, latest filed first, with the annual tag fallbacks; a line a 10-Q reports only year to date is the difference of two year-to-date facts of one tag (six months - three months, nine - six); a fiscal fourth quarter is FY (10-K) - Q1 - Q2 - Q3 line by line within one tag, only when all are reported, otherwise it is left out and data.quarterly.left_out says so; balance-sheet lines are the 10-Q or 10-K instants at the quarter end.";

/// The method, as stated in a result's `data.methodology`.
pub const TTM_METHOD: &str = "Trailing twelve months (TTM): the latest four consecutive fiscal quarters (each starting the day after the previous one ends), only when the latest ends after the last fiscal year end; ttm_revenue, ttm_ebitda and ttm_net_income are the sums of the four quarters' figures (EBITDA per quarter = operating income + D&A, all four quarters required); ttm_debt_to_ebitda and ttm_net_debt_to_ebitda use total debt and cash at the latest quarter end. Annual metrics keep their fiscal-year meaning.";

/// How a quarter's flows were obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QuarterSource {
    /// From 10-Q filings: three-month facts, or the difference of two year-to-date facts.
    QuarterlyReport,
    /// A fiscal fourth quarter: the 10-K's fiscal year minus the first three quarters, line by line.
    DerivedFourthQuarter,
}

/// One fiscal quarter: flows over the quarter, balances at its end.
#[derive(Clone, Debug, PartialEq)]
pub struct QuarterStatement {
    /// First day of the quarter.
    pub period_start: Date,
    /// Last day of the quarter.
    pub period_end: Date,
    pub source: QuarterSource,
    /// The lines, with the sign conventions of a fiscal year; `lines.fiscal_year_end` is the quarter
    /// end, so the derived-line helpers ([`FiscalYearStatement::ebitda`], `total_debt`) apply as is.
    /// Shares outstanding are not read for quarters.
    pub lines: FiscalYearStatement,
}

impl QuarterStatement {
    /// A quarter with every line unreported, to be filled in field by field.
    pub fn empty(period_start: Date, period_end: Date, source: QuarterSource) -> Self {
        Self { period_start, period_end, source, lines: FiscalYearStatement::empty(period_end) }
    }

    /// Whether `earlier` is the quarter right before this one (it ends the day before this starts).
    pub fn follows(&self, earlier: &QuarterStatement) -> bool {
        earlier.period_end.next_day() == Some(self.period_start)
    }
}

/// A company's quarters: newest first, at most [`MAX_QUARTERS`], one per quarter end. Gaps are
/// possible (a quarter that could not be had is simply absent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuarterlyStatements {
    quarters: Vec<QuarterStatement>,
}

impl QuarterlyStatements {
    /// Orders the quarters newest first, keeps the first given for each quarter end, and keeps the
    /// latest [`MAX_QUARTERS`].
    pub fn new(mut quarters: Vec<QuarterStatement>) -> Self {
        quarters.sort_by_key(|q| std::cmp::Reverse(q.period_end));
        quarters.dedup_by(|later, earlier| later.period_end == earlier.period_end);
        quarters.truncate(MAX_QUARTERS);
        Self { quarters }
    }

    /// Newest first.
    pub fn quarters(&self) -> &[QuarterStatement] {
        &self.quarters
    }

    pub fn latest(&self) -> Option<&QuarterStatement> {
        self.quarters.first()
    }

    pub fn is_empty(&self) -> bool {
        self.quarters.is_empty()
    }
}

/// TTM figures over four consecutive quarters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrailingTwelveMonths {
    /// First day of the oldest of the four quarters.
    #[serde(serialize_with = "super::serialize_iso_date")]
    pub period_start: Date,
    /// Last day of the latest quarter.
    #[serde(serialize_with = "super::serialize_iso_date")]
    pub period_end: Date,
    /// The four quarter ends, newest first.
    #[serde(serialize_with = "super::serialize_iso_dates")]
    pub quarter_ends: Vec<Date>,
    pub metrics: Vec<Metric>,
    /// One line per TTM figure that could not be computed: `"<metric>: <why>"`.
    pub missing_inputs: Vec<String>,
}

impl TrailingTwelveMonths {
    pub fn value(&self, name: &str) -> Option<f64> {
        self.metrics.iter().find(|m| m.name == name).map(|m| m.value)
    }
}

/// The TTM figures of the latest four quarters.
///
/// # Errors
/// Why no TTM figure can be computed, as a sentence: fewer than four quarters, the latest not after
/// `last_fiscal_year_end`, or the four latest not consecutive.
pub fn trailing_twelve_months(
    statements: &QuarterlyStatements,
    last_fiscal_year_end: Option<Date>,
) -> Result<TrailingTwelveMonths, String> {
    let quarters = statements.quarters();
    let Some(latest) = quarters.first() else {
        return Err("no quarterly statements".to_owned());
    };
    if let Some(year_end) = last_fiscal_year_end.filter(|end| latest.period_end <= *end) {
        return Err(format!(
            "the latest quarter ends {} and no quarter ends after the fiscal year ended {year_end}: the annual figures are the latest twelve months",
            latest.period_end
        ));
    }
    let [q0, q1, q2, q3, ..] = quarters else {
        return Err(format!("needs four consecutive quarters; {} reported", quarters.len()));
    };
    let four = [q0, q1, q2, q3];
    if let Some(pair) = four.windows(2).find(|pair| !pair[0].follows(pair[1])) {
        return Err(format!(
            "the four latest quarters are not consecutive: nothing between the quarter ended {} and the one starting {}",
            pair[1].period_end, pair[0].period_start
        ));
    }
    let mut book = MetricBook::default();
    let sum =
        |book: &mut MetricBook, name: &str, line: &str, formula: &str, value: fn(&QuarterStatement) -> Option<f64>| {
            let names: Vec<String> = four.iter().map(|q| format!("{line}_{}", q.period_end)).collect();
            let inputs: Vec<(&str, Option<f64>)> =
                names.iter().map(String::as_str).zip(four.iter().map(|q| value(q))).collect();
            book.compute(name, Unit::Currency, formula, &inputs, |v| Ok(v.iter().sum()))
        };
    sum(&mut book, "ttm_revenue", "revenue", "sum of the four quarters' revenue", |q| finite(q.lines.revenue));
    let ebitda = sum(
        &mut book,
        "ttm_ebitda",
        "ebitda",
        "sum of the four quarters' EBITDA (operating income + depreciation_amortization)",
        |q| q.lines.ebitda(),
    );
    sum(&mut book, "ttm_net_income", "net_income", "sum of the four quarters' net income", |q| {
        finite(q.lines.net_income)
    });
    book.ratio(
        "ttm_debt_to_ebitda",
        Unit::Ratio,
        "total_debt at the latest quarter end / ttm_ebitda",
        ("total_debt", latest.lines.total_debt()),
        ("ttm_ebitda", ebitda),
    );
    book.ratio(
        "ttm_net_debt_to_ebitda",
        Unit::Ratio,
        "net_debt at the latest quarter end / ttm_ebitda",
        ("net_debt", latest.lines.net_debt()),
        ("ttm_ebitda", ebitda),
    );
    Ok(TrailingTwelveMonths {
        period_start: q3.period_start,
        period_end: latest.period_end,
        quarter_ends: four.iter().map(|q| q.period_end).collect(),
        metrics: book.metrics,
        missing_inputs: book.missing,
    })
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    /// A quarter `(start, end)` with revenue, EBIT, D&A and net income; debt and cash set on it.
    fn quarter(start: Date, end: Date, revenue: f64, ebit: f64, da: f64, net_income: f64) -> QuarterStatement {
        let mut q = QuarterStatement::empty(start, end, QuarterSource::QuarterlyReport);
        q.lines.revenue = Some(revenue);
        q.lines.operating_income = Some(ebit);
        q.lines.depreciation_amortization = Some(da);
        q.lines.net_income = Some(net_income);
        q
    }

    fn calendar_2023_and_2024_h1() -> Vec<QuarterStatement> {
        vec![
            quarter(date!(2023 - 01 - 01), date!(2023 - 03 - 31), 100.0, 10.0, 2.0, 5.0),
            quarter(date!(2023 - 04 - 01), date!(2023 - 06 - 30), 110.0, 11.0, 2.0, 6.0),
            quarter(date!(2023 - 07 - 01), date!(2023 - 09 - 30), 120.0, 12.0, 2.0, 7.0),
            quarter(date!(2023 - 10 - 01), date!(2023 - 12 - 31), 130.0, 13.0, 3.0, -8.0),
            quarter(date!(2024 - 01 - 01), date!(2024 - 03 - 31), 140.0, 14.0, 3.0, 9.0),
            {
                let mut q = quarter(date!(2024 - 04 - 01), date!(2024 - 06 - 30), 150.0, 15.0, 3.0, 10.0);
                q.lines.long_term_debt = Some(180.0);
                q.lines.short_term_borrowings = Some(20.0);
                q.lines.cash = Some(50.0);
                q
            },
        ]
    }

    #[test]
    fn quarterly_statements_sort_newest_first_dedup_and_keep_eight() {
        let mut quarters = Vec::new();
        let mut start = date!(2021 - 01 - 01);
        for _ in 0..10 {
            let end = start + time::Duration::days(90);
            quarters.push(QuarterStatement::empty(start, end, QuarterSource::QuarterlyReport));
            start = end.next_day().expect("day");
        }
        let duplicate = QuarterStatement::empty(
            quarters[9].period_start,
            quarters[9].period_end,
            QuarterSource::DerivedFourthQuarter,
        );
        quarters.push(duplicate);
        let statements = QuarterlyStatements::new(quarters.clone());
        assert_eq!(statements.quarters().len(), MAX_QUARTERS);
        assert_eq!(statements.latest().map(|q| q.period_end), Some(quarters[9].period_end));
        assert_eq!(statements.latest().map(|q| q.source), Some(QuarterSource::QuarterlyReport), "the first given wins");
        assert!(statements.quarters().windows(2).all(|w| w[0].period_end > w[1].period_end));
    }

    #[test]
    fn ttm_sums_the_latest_four_quarters_and_divides_debt_at_the_latest_quarter_end() {
        let statements = QuarterlyStatements::new(calendar_2023_and_2024_h1());

        let ttm = trailing_twelve_months(&statements, Some(date!(2023 - 12 - 31))).expect("ttm");

        assert_eq!((ttm.period_start, ttm.period_end), (date!(2023 - 07 - 01), date!(2024 - 06 - 30)));
        assert_eq!(ttm.value("ttm_revenue"), Some(120.0 + 130.0 + 140.0 + 150.0));
        assert_eq!(ttm.value("ttm_ebitda"), Some(14.0 + 16.0 + 17.0 + 18.0));
        assert_eq!(ttm.value("ttm_net_income"), Some(7.0 - 8.0 + 9.0 + 10.0));
        assert_eq!(ttm.value("ttm_debt_to_ebitda"), Some(200.0 / 65.0));
        assert_eq!(ttm.value("ttm_net_debt_to_ebitda"), Some(150.0 / 65.0));
        let revenue = ttm.metrics.iter().find(|m| m.name == "ttm_revenue").expect("metric");
        let names: Vec<&str> = revenue.inputs.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["revenue_2024-06-30", "revenue_2024-03-31", "revenue_2023-12-31", "revenue_2023-09-30"]);
    }

    #[test]
    fn ttm_is_not_computed_when_no_quarter_ends_after_the_fiscal_year() {
        let mut quarters = calendar_2023_and_2024_h1();
        quarters.truncate(4);
        let statements = QuarterlyStatements::new(quarters);

        let reason = trailing_twelve_months(&statements, Some(date!(2023 - 12 - 31))).expect_err("no newer quarter");

        assert!(reason.contains("2023-12-31"), "{reason}");
    }

    #[test]
    fn ttm_needs_four_consecutive_quarters() {
        let mut quarters = calendar_2023_and_2024_h1();
        quarters.remove(3);
        let gap = QuarterlyStatements::new(quarters);
        let reason = trailing_twelve_months(&gap, Some(date!(2023 - 12 - 31))).expect_err("gap");
        assert!(reason.contains("not consecutive") && reason.contains("2023-09-30"), "{reason}");

        let short = QuarterlyStatements::new(calendar_2023_and_2024_h1().split_off(3));
        let reason = trailing_twelve_months(&short, Some(date!(2023 - 12 - 31))).expect_err("three");
        assert!(reason.contains("four consecutive quarters; 3"), "{reason}");
        assert!(trailing_twelve_months(&QuarterlyStatements::default(), None).is_err());
    }

    #[test]
    fn ttm_leaves_out_what_a_quarter_does_not_report_and_leverage_on_non_positive_ebitda() {
        let mut quarters = calendar_2023_and_2024_h1();
        for q in &mut quarters {
            q.lines.operating_income = Some(-20.0);
        }
        quarters[2].lines.revenue = None;
        let statements = QuarterlyStatements::new(quarters);

        let ttm = trailing_twelve_months(&statements, Some(date!(2023 - 12 - 31))).expect("ttm");

        assert_eq!(ttm.value("ttm_revenue"), None);
        assert!(ttm.missing_inputs.iter().any(|m| m.starts_with("ttm_revenue: revenue_2023-09-30")), "{ttm:?}");
        assert!(ttm.value("ttm_ebitda").is_some_and(|e| e < 0.0));
        assert_eq!(ttm.value("ttm_debt_to_ebitda"), None, "leverage on negative EBITDA is meaningless");
        assert!(ttm.missing_inputs.iter().any(|m| m.starts_with("ttm_debt_to_ebitda: ttm_ebitda is not positive")));
    }
}
