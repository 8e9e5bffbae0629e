//! A checked statement set as the credit analysis reads it: its fiscal years as a private
//! company's [`CompanyFinancials`], the trailing twelve months when the latest period is interim,
//! and the provenance of every figure.

use serde_json::{Value, json};

use super::items::StatementItem;
use super::set::{StatementPeriod, StatementSet};
use crate::domain::quant::Unit;
use crate::domain::quant::credit::MetricBook;
use crate::domain::quant::quarterly::TrailingTwelveMonths;
use crate::domain::quant::statements::{CompanyFinancials, FiscalYearStatement};

/// How the trailing twelve months of a supplied set are built, as stated in `data.methodology`.
pub const SUPPLIED_TTM_METHOD: &str = "Trailing twelve months of supplied statements: when the latest period is shorter than a year and ends after the last fiscal year, flows are the last fiscal year + the current year-to-date period - the same period a year earlier (or the sum of four consecutive quarters), and balances are those at the latest period end; EBITDA per period is the stated EBITDA, else operating income + depreciation_amortization.";

/// The fiscal years (twelve-month periods) of the set, as a private company's statements.
pub fn fiscal_years(name: &str, set: &StatementSet) -> CompanyFinancials {
    let years = set.periods.iter().filter(|p| p.months == 12).map(lines_of).collect();
    CompanyFinancials::new(name, None, years).of_private_company()
}

/// The quant statement lines of one period.
fn lines_of(period: &StatementPeriod) -> FiscalYearStatement {
    let mut lines = FiscalYearStatement::empty(period.period_end);
    let v = |item| period.value(item);
    lines.revenue = v(StatementItem::Revenue);
    lines.operating_income = v(StatementItem::OperatingIncome);
    lines.depreciation_amortization = v(StatementItem::DepreciationAmortization);
    lines.stated_ebitda = v(StatementItem::Ebitda);
    lines.interest_expense = v(StatementItem::InterestExpense);
    lines.income_tax = v(StatementItem::IncomeTax);
    lines.net_income = v(StatementItem::NetIncome);
    lines.cash = v(StatementItem::Cash);
    lines.current_assets = v(StatementItem::CurrentAssets);
    lines.total_assets = v(StatementItem::TotalAssets);
    lines.current_liabilities = v(StatementItem::CurrentLiabilities);
    lines.total_liabilities = v(StatementItem::TotalLiabilities);
    lines.stated_total_debt = v(StatementItem::TotalDebt);
    lines.equity = v(StatementItem::TotalEquity);
    lines.retained_earnings = v(StatementItem::RetainedEarnings);
    lines.cash_from_operations = v(StatementItem::OperatingCashFlow);
    lines.capital_expenditure = v(StatementItem::CapitalExpenditure);
    lines.scheduled_principal = v(StatementItem::ScheduledPrincipal);
    lines
}

/// Every figure of the set with its source, newest period first.
pub fn provenance(set: &StatementSet) -> Vec<Value> {
    set.periods
        .iter()
        .flat_map(|period| {
            period.figures.iter().map(move |(item, figure)| {
                json!({
                    "period_end": period.period_end.to_string(),
                    "months": period.months,
                    "line": item.name(),
                    "value": figure.value,
                    "source": figure.source,
                })
            })
        })
        .collect()
}

/// The periods of the set with their figures, newest first.
pub fn periods_json(set: &StatementSet) -> Vec<Value> {
    set.periods
        .iter()
        .map(|period| {
            let mut object = serde_json::Map::new();
            object.insert("period_end".into(), json!(period.period_end.to_string()));
            object.insert("months".into(), json!(period.months));
            for (item, figure) in &period.figures {
                object.insert(item.name().into(), json!(figure.value));
            }
            Value::Object(object)
        })
        .collect()
}

/// EBITDA of a period: stated, else operating income + D&A.
fn ebitda(period: &StatementPeriod) -> Option<f64> {
    period.value(StatementItem::Ebitda).or_else(|| {
        Some(period.value(StatementItem::OperatingIncome)? + period.value(StatementItem::DepreciationAmortization)?)
    })
}

/// How the twelve months were put together: each part with the sign it enters the sum with.
pub(crate) struct Composition<'s> {
    pub(crate) parts: Vec<(f64, &'s StatementPeriod)>,
    pub(crate) formula: &'static str,
}

impl Composition<'_> {
    /// Whether the twelve months are one fiscal year as reported, not composed from parts.
    pub(crate) fn is_fiscal_year(&self) -> bool {
        matches!(self.parts.as_slice(), [(sign, period)] if *sign > 0.0 && period.months == 12)
    }
}

/// The twelve months to `period_end` as the set can build them: the fiscal year ending then, or
/// the trailing twelve months composed as [`trailing_twelve_months`] composes them; `Err` says why
/// they cannot be built (no period ends then, a period a year earlier is missing).
pub(crate) fn twelve_months_to(set: &StatementSet, period_end: time::Date) -> Result<Composition<'_>, String> {
    if let Some(year) = set.periods.iter().find(|p| p.months == 12 && p.period_end == period_end) {
        return Ok(Composition { parts: vec![(1.0, year)], formula: "the fiscal year" });
    }
    let latest = set
        .periods
        .iter()
        .filter(|p| p.period_end == period_end)
        .max_by_key(|p| p.months)
        .ok_or_else(|| format!("no period of the statements ends on {period_end}"))?;
    compose(set, latest)
}

/// The trailing twelve months of the set, or why there are none (the latest period is a fiscal
/// year; the period a year earlier is missing; …). `None` when the set has no interim period.
pub fn trailing_twelve_months(set: &StatementSet) -> Option<Result<TrailingTwelveMonths, String>> {
    let latest = set.periods.first()?;
    if latest.months == 12 {
        return None;
    }
    Some(compose(set, latest).map(|composition| ttm_metrics(latest, &composition)))
}

fn compose<'s>(set: &'s StatementSet, latest: &'s StatementPeriod) -> Result<Composition<'s>, String> {
    let year = set.periods.iter().find(|p| p.months == 12 && p.period_end < latest.period_end);
    if let Some(year) = year
        && months_between(year.period_end, latest.period_end) == Some(latest.months)
    {
        // A year-to-date period of the fiscal year after `year`.
        let target = latest.period_end.replace_year(latest.period_end.year() - 1).ok();
        let prior = set.periods.iter().find(|p| {
            p.months == latest.months
                && target.is_some_and(|t| (p.period_end - t).whole_days().abs() <= 7)
                && p.period_end <= year.period_end
        });
        return match prior {
            Some(prior) => Ok(Composition {
                parts: vec![(1.0, year), (1.0, latest), (-1.0, prior)],
                formula: "fiscal year + year to date - same period a year earlier",
            }),
            None => Err(format!(
                "needs the {} months to about {} (the same period a year earlier) beside {}",
                latest.months,
                target.map_or_else(|| "a year earlier".to_owned(), |t| t.to_string()),
                latest.describe()
            )),
        };
    }
    if latest.months == 3 {
        let mut quarters = vec![latest];
        while quarters.len() < 4 {
            let last = quarters[quarters.len() - 1];
            let previous = set.periods.iter().find(|p| {
                p.months == 3
                    && months_between(p.period_end, last.period_end) == Some(3)
                    && p.period_end < last.period_end
            });
            match previous {
                Some(previous) => quarters.push(previous),
                None => {
                    return Err(format!(
                        "needs four consecutive quarters or the year-to-date period; no quarter ends three months before {}",
                        last.period_end
                    ));
                }
            }
        }
        return Ok(Composition {
            parts: quarters.into_iter().map(|q| (1.0, q)).collect(),
            formula: "sum of the four latest quarters",
        });
    }
    match year {
        Some(year) => Err(format!(
            "{} does not start after the fiscal year ended {}: neither a year-to-date period nor a quarter following it",
            latest.describe(),
            year.period_end
        )),
        None => Err(format!("no fiscal year ends before the latest period ({})", latest.describe())),
    }
}

/// Whole calendar months from `from` to `to` when both are month ends (or the same day of the
/// month), else `None`.
fn months_between(from: time::Date, to: time::Date) -> Option<u32> {
    let months = (to.year() - from.year()) * 12 + (i32::from(u8::from(to.month())) - i32::from(u8::from(from.month())));
    let month_end = |d: time::Date| d.next_day().is_none_or(|next| next.month() != d.month());
    let aligned = (month_end(from) && month_end(to)) || from.day() == to.day();
    u32::try_from(months).ok().filter(|_| aligned)
}

fn ttm_metrics(latest: &StatementPeriod, composition: &Composition<'_>) -> TrailingTwelveMonths {
    let mut book = MetricBook::default();
    let flow = |book: &mut MetricBook, name: &str, line: &str, value: fn(&StatementPeriod) -> Option<f64>| {
        let names: Vec<String> =
            composition.parts.iter().map(|(_, p)| format!("{line}_{}m_to_{}", p.months, p.period_end)).collect();
        let inputs: Vec<(&str, Option<f64>)> =
            names.iter().map(String::as_str).zip(composition.parts.iter().map(|(_, p)| value(p))).collect();
        let signs: Vec<f64> = composition.parts.iter().map(|(sign, _)| *sign).collect();
        let formula = format!("{line}: {}", composition.formula);
        book.compute(name, Unit::Currency, &formula, &inputs, |v| Ok(v.iter().zip(&signs).map(|(v, s)| v * s).sum()))
    };
    flow(&mut book, "ttm_revenue", "revenue", |p| p.value(StatementItem::Revenue));
    let ttm_ebitda = flow(&mut book, "ttm_ebitda", "ebitda", ebitda);
    flow(&mut book, "ttm_net_income", "net_income", |p| p.value(StatementItem::NetIncome));
    let ttm_interest =
        flow(&mut book, "ttm_interest_expense", "interest_expense", |p| p.value(StatementItem::InterestExpense));
    let debt = latest.value(StatementItem::TotalDebt);
    book.ratio(
        "ttm_debt_to_ebitda",
        Unit::Ratio,
        "total_debt at the latest period end / ttm_ebitda",
        ("total_debt", debt),
        ("ttm_ebitda", ttm_ebitda),
    );
    let net_debt = debt.zip(latest.value(StatementItem::Cash)).map(|(d, c)| d - c);
    book.ratio(
        "ttm_net_debt_to_ebitda",
        Unit::Ratio,
        "(total_debt - cash) at the latest period end / ttm_ebitda",
        ("net_debt", net_debt),
        ("ttm_ebitda", ttm_ebitda),
    );
    book.ratio(
        "ttm_ebitda_interest_coverage",
        Unit::Ratio,
        "ttm_ebitda / ttm_interest_expense",
        ("ttm_ebitda", ttm_ebitda),
        ("ttm_interest_expense", ttm_interest),
    );
    let first = composition.parts.iter().map(|(_, p)| p).min_by_key(|p| p.period_end);
    let period_start = latest
        .period_end
        .replace_year(latest.period_end.year() - 1)
        .ok()
        .and_then(|d| d.next_day())
        .or(first.map(|p| p.period_end))
        .unwrap_or(latest.period_end);
    TrailingTwelveMonths {
        period_start,
        period_end: latest.period_end,
        quarter_ends: composition.parts.iter().map(|(_, p)| p.period_end).collect(),
        metrics: book.metrics,
        missing_inputs: book.missing,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::date;

    use super::*;
    use crate::domain::quant::credit::{AltmanVariant, analyse_credit};
    use crate::domain::statements::set::{FinancialsInput, check_input};

    fn period(end: &str, months: u32, revenue: f64, ebit: f64, da: f64, net_income: f64) -> Value {
        json!({
            "period_end": end, "months": months,
            "revenue": revenue, "operating_income": ebit, "depreciation_amortization": da,
            "interest_expense": 10.0 * f64::from(months) / 12.0, "net_income": net_income,
            "cash": 50.0, "current_assets": 300.0, "total_assets": 1000.0,
            "current_liabilities": 200.0, "total_liabilities": 600.0, "total_debt": 400.0,
            "total_equity": 400.0, "retained_earnings": 150.0
        })
    }

    fn set(periods: Vec<Value>) -> StatementSet {
        let input: FinancialsInput =
            serde_json::from_value(json!({ "currency": "EUR", "periods": periods })).expect("input");
        check_input(&input).expect("valid")
    }

    #[test]
    fn ttm_is_the_year_plus_year_to_date_minus_the_same_period_a_year_earlier() {
        // FY2023 revenue 1,000; nine months to Sep 2024 810; nine months to Sep 2023 720:
        // TTM = 1,000 + 810 - 720 = 1,090. EBITDA: (100+20) + (90+15) - (80+15) = 130.
        let set = set(vec![
            period("2023-09-30", 9, 720.0, 80.0, 15.0, 50.0),
            period("2023-12-31", 12, 1000.0, 100.0, 20.0, 70.0),
            period("2024-09-30", 9, 810.0, 90.0, 15.0, 60.0),
        ]);
        let ttm = trailing_twelve_months(&set).expect("interim").expect("computed");
        assert_eq!(ttm.value("ttm_revenue"), Some(1090.0));
        assert_eq!(ttm.value("ttm_ebitda"), Some(130.0));
        assert_eq!(ttm.value("ttm_net_income"), Some(80.0));
        assert_eq!(ttm.value("ttm_debt_to_ebitda"), Some(400.0 / 130.0));
        assert_eq!(ttm.period_start, date!(2023 - 10 - 01));
        let revenue = ttm.metrics.iter().find(|m| m.name == "ttm_revenue").expect("metric");
        assert_eq!(revenue.inputs.len(), 3);
        assert!(revenue.formula.contains("fiscal year + year to date - same period a year earlier"));
    }

    #[test]
    fn ttm_of_quarters_is_their_sum_and_a_gap_is_said() {
        let quarters = vec![
            period("2023-12-31", 12, 1000.0, 100.0, 20.0, 70.0),
            period("2024-03-31", 3, 260.0, 26.0, 5.0, 15.0),
            period("2024-06-30", 3, 270.0, 27.0, 5.0, 16.0),
        ];
        // Two quarters after the year and no year-to-date figure: no TTM, and why.
        let reason = trailing_twelve_months(&set(quarters.clone())).expect("interim").expect_err("gap");
        assert!(reason.contains("three months before"), "{reason}");
        let mut four = quarters;
        four.insert(0, period("2023-09-30", 3, 250.0, 25.0, 5.0, 14.0));
        four.insert(1, period("2023-12-31", 3, 255.0, 25.0, 5.0, 14.0));
        // The fiscal year's fourth quarter ends with it; order the input by date.
        four.swap(1, 2);
        let ttm = trailing_twelve_months(&set(four)).expect("interim").expect("computed");
        assert_eq!(ttm.value("ttm_revenue"), Some(250.0 + 255.0 + 260.0 + 270.0));
    }

    #[test]
    fn a_set_ending_with_a_fiscal_year_has_no_ttm_and_a_private_firm_gets_z_prime() {
        let set = set(vec![
            period("2022-12-31", 12, 900.0, 90.0, 20.0, 60.0),
            period("2023-12-31", 12, 1000.0, 100.0, 20.0, 70.0),
        ]);
        assert!(trailing_twelve_months(&set).is_none());
        let company = fiscal_years("Private GmbH", &set);
        let analysis = analyse_credit(&company, None);
        let altman = analysis.altman.clone().expect("scored");
        assert_eq!(altman.variant, AltmanVariant::ZPrime);
        // Z' = 0.717*(100/1000) + 0.847*(150/1000) + 3.107*(100/1000) + 0.420*(400/600) + 0.998*(1000/1000)
        let expected = 0.717 * 0.1 + 0.847 * 0.15 + 3.107 * 0.1 + 0.420 * (400.0 / 600.0) + 0.998 * 1.0;
        assert!((altman.score - expected).abs() < 1e-12, "{} vs {expected}", altman.score);
        // The stated total debt is the debt.
        assert_eq!(analysis.value("debt_to_ebitda"), Some(400.0 / 120.0));
    }
}
