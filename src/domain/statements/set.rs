//! A statement set: the periods of one borrower's statements with every figure's source, checked
//! once whichever way it arrived (JSON typed by the analyst, or a spreadsheet), and refused — never
//! repaired — when it does not hold together.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::Date;
use time::macros::format_description;

use super::items::{Sign, StatementItem};

/// Where a figure typed into the request says it came from.
pub const SUPPLIED_BY_CALLER: &str = "supplied by caller";

/// Most periods one set holds: five years of quarters and year-to-date periods beside the years.
pub const MAX_PERIODS: usize = 40;

/// The largest amount accepted after the unit is applied (10^15, a thousand trillion): beyond any
/// borrower's statements, so a larger figure is a unit error, and far from where `f64` loses cents.
const MAX_AMOUNT: f64 = 1e15;

/// How far total assets may stray from liabilities + equity before the balance sheet is refused:
/// 1 % of total assets covers rounding in statements presented in thousands or millions.
const BALANCE_TOLERANCE: f64 = 0.01;

/// The `financials` object of a request, as typed.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinancialsInput {
    /// ISO 4217 code of every amount (`USD`, `EUR`).
    pub currency: String,
    /// 1, 1000 or 1000000: what every amount is multiplied by. Default 1.
    #[serde(default)]
    pub unit: Option<f64>,
    pub periods: Vec<PeriodInput>,
}

/// One period of [`FinancialsInput`]; the line items are named as [`StatementItem::name`] says.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodInput {
    /// `YYYY-MM-DD`, the last day of the period.
    pub period_end: String,
    /// 12 for a fiscal year, 3 for a quarter, else the length of a year-to-date period.
    pub months: u32,
    pub revenue: Option<f64>,
    pub operating_income: Option<f64>,
    pub depreciation_amortization: Option<f64>,
    pub ebitda: Option<f64>,
    pub interest_expense: Option<f64>,
    pub income_tax: Option<f64>,
    pub net_income: Option<f64>,
    pub cash: Option<f64>,
    pub current_assets: Option<f64>,
    pub total_assets: Option<f64>,
    pub current_liabilities: Option<f64>,
    pub total_liabilities: Option<f64>,
    pub total_debt: Option<f64>,
    pub total_equity: Option<f64>,
    pub retained_earnings: Option<f64>,
    pub operating_cash_flow: Option<f64>,
    pub capital_expenditure: Option<f64>,
    pub scheduled_principal: Option<f64>,
}

impl PeriodInput {
    fn value(&self, item: StatementItem) -> Option<f64> {
        match item {
            StatementItem::Revenue => self.revenue,
            StatementItem::OperatingIncome => self.operating_income,
            StatementItem::DepreciationAmortization => self.depreciation_amortization,
            StatementItem::Ebitda => self.ebitda,
            StatementItem::InterestExpense => self.interest_expense,
            StatementItem::IncomeTax => self.income_tax,
            StatementItem::NetIncome => self.net_income,
            StatementItem::Cash => self.cash,
            StatementItem::CurrentAssets => self.current_assets,
            StatementItem::TotalAssets => self.total_assets,
            StatementItem::CurrentLiabilities => self.current_liabilities,
            StatementItem::TotalLiabilities => self.total_liabilities,
            StatementItem::TotalDebt => self.total_debt,
            StatementItem::TotalEquity => self.total_equity,
            StatementItem::RetainedEarnings => self.retained_earnings,
            StatementItem::OperatingCashFlow => self.operating_cash_flow,
            StatementItem::CapitalExpenditure => self.capital_expenditure,
            StatementItem::ScheduledPrincipal => self.scheduled_principal,
        }
    }
}

/// One figure, in units of the set's currency, with where it came from (`supplied by caller`, or
/// the spreadsheet cell `statements.xlsx!Sheet1!C14`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub value: f64,
    pub source: String,
}

/// One period of a checked set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementPeriod {
    #[serde(with = "iso_date")]
    pub period_end: Date,
    pub months: u32,
    pub figures: BTreeMap<StatementItem, Figure>,
}

impl StatementPeriod {
    pub fn value(&self, item: StatementItem) -> Option<f64> {
        self.figures.get(&item).map(|f| f.value)
    }

    /// "12 months to 2023-12-31".
    pub fn describe(&self) -> String {
        format!("{} months to {}", self.months, self.period_end)
    }
}

/// A checked statement set: newest period first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementSet {
    pub currency: String,
    pub periods: Vec<StatementPeriod>,
}

/// Why a set was refused: the field (with the period it is in) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct StatementError {
    /// `financials.periods[2].total_debt`, or a spreadsheet column.
    pub field: String,
    pub message: String,
    /// The required item the period lacks, when that is what is wrong: a spreadsheet's caller
    /// lists the rows it could not read beside it.
    pub missing: Option<StatementItem>,
}

/// A period before it is checked, from either intake: `label` names it in errors
/// (`financials.periods[2]`, `column C (Dec 31, 2023)`).
#[derive(Clone, Debug)]
pub struct UncheckedPeriod {
    pub label: String,
    pub period_end: Date,
    pub months: u32,
    /// Amounts before the unit is applied, with their sources.
    pub figures: Vec<(StatementItem, f64, String)>,
}

/// `YYYY-MM-DD` on the wire and in storage (time's own serde form is a `[year, ordinal]` pair).
mod iso_date {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::Date;
    use time::macros::format_description;

    pub fn serialize<S: Serializer>(date: &Date, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(date)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Date, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Date::parse(&raw, format_description!("[year]-[month]-[day]")).map_err(serde::de::Error::custom)
    }
}

fn error(field: impl Into<String>, message: impl Into<String>) -> StatementError {
    StatementError { field: field.into(), message: message.into(), missing: None }
}

/// Checks the `financials` of a request.
///
/// # Errors
/// [`StatementError`] naming the first field that is wrong.
pub fn check_input(input: &FinancialsInput) -> Result<StatementSet, StatementError> {
    let mut periods = Vec::with_capacity(input.periods.len());
    for (index, period) in input.periods.iter().enumerate() {
        let label = format!("financials.periods[{index}]");
        let period_end = Date::parse(period.period_end.trim(), format_description!("[year]-[month]-[day]"))
            .map_err(|_| error(format!("{label}.period_end"), "must be a date YYYY-MM-DD"))?;
        let figures = StatementItem::ALL
            .into_iter()
            .filter_map(|item| period.value(item).map(|value| (item, value, SUPPLIED_BY_CALLER.to_owned())))
            .collect();
        periods.push(UncheckedPeriod { label, period_end, months: period.months, figures });
    }
    check("financials", &input.currency, input.unit.unwrap_or(1.0), periods)
}

/// Checks a set from either intake: the currency, the unit, the periods' order and lengths, every
/// required item, signs, and that each balance sheet balances. Amounts are multiplied by `unit`.
///
/// # Errors
/// [`StatementError`] naming the first field that is wrong; `root` prefixes set-level fields.
pub fn check(
    root: &str,
    currency: &str,
    unit: f64,
    periods: Vec<UncheckedPeriod>,
) -> Result<StatementSet, StatementError> {
    let currency = currency.trim();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(error(format!("{root}.currency"), "must be an ISO 4217 code such as USD or EUR"));
    }
    if ![1.0, 1_000.0, 1_000_000.0].contains(&unit) {
        return Err(error(format!("{root}.unit"), "must be 1, 1000 or 1000000"));
    }
    if periods.is_empty() {
        return Err(error(format!("{root}.periods"), "must hold at least one period"));
    }
    if periods.len() > MAX_PERIODS {
        return Err(error(format!("{root}.periods"), format!("must hold at most {MAX_PERIODS} periods")));
    }
    check_order(&periods)?;
    let mut checked = Vec::with_capacity(periods.len());
    for period in periods {
        checked.push(check_period(period, unit)?);
    }
    if !checked.iter().any(|p| p.months == 12) {
        return Err(error(
            format!("{root}.periods"),
            "needs at least one twelve-month period (a fiscal year): quarters and year-to-date periods alone give no annual figures",
        ));
    }
    checked.sort_by_key(|p| std::cmp::Reverse((p.period_end, p.months)));
    Ok(StatementSet { currency: currency.to_owned(), periods: checked })
}

/// Periods come in date order, oldest or newest first, and no period (end and length) twice: a
/// set out of order is more likely a pasted column in the wrong place than a choice.
fn check_order(periods: &[UncheckedPeriod]) -> Result<(), StatementError> {
    for (index, period) in periods.iter().enumerate() {
        if !(1..=12).contains(&period.months) {
            return Err(error(
                format!("{}.months", period.label),
                "must be 1-12 (12 for a fiscal year, 3 for a quarter)",
            ));
        }
        if let Some(earlier) =
            periods[..index].iter().find(|p| p.period_end == period.period_end && p.months == period.months)
        {
            return Err(error(
                &period.label,
                format!("repeats the period of {} ({} months to {})", earlier.label, period.months, period.period_end),
            ));
        }
    }
    let ascending = periods.windows(2).all(|w| w[0].period_end <= w[1].period_end);
    let descending = periods.windows(2).all(|w| w[0].period_end >= w[1].period_end);
    if !(ascending || descending) {
        let ends: Vec<String> = periods.iter().map(|p| p.period_end.to_string()).collect();
        return Err(error(
            &periods[0].label,
            format!("periods must be in date order (oldest or newest first); they end {}", ends.join(", ")),
        ));
    }
    Ok(())
}

fn check_period(period: UncheckedPeriod, unit: f64) -> Result<StatementPeriod, StatementError> {
    let UncheckedPeriod { label, period_end, months, figures: raw } = period;
    let mut figures = BTreeMap::new();
    for (item, value, source) in raw {
        let field = format!("{label}.{}", item.name());
        let amount = value * unit;
        if !amount.is_finite() || amount.abs() > MAX_AMOUNT {
            return Err(error(field, format!("{value} is not a plausible amount (at most 10^15 after the unit)")));
        }
        if item.sign() == Sign::NonNegative && amount < 0.0 {
            return Err(error(
                field,
                format!("must not be negative ({}); state it as a positive number", item.description()),
            ));
        }
        if figures.insert(item, Figure { value: amount, source }).is_some() {
            return Err(error(field, "is stated twice"));
        }
    }
    if let Some(missing) = StatementItem::ALL.into_iter().find(|item| item.required() && !figures.contains_key(item)) {
        return Err(StatementError {
            field: format!("{label}.{}", missing.name()),
            message: format!("is required ({})", missing.description()),
            missing: Some(missing),
        });
    }
    let value = |item| figures.get(&item).map_or(0.0, |f: &Figure| f.value);
    let (assets, liabilities, equity) =
        (value(StatementItem::TotalAssets), value(StatementItem::TotalLiabilities), value(StatementItem::TotalEquity));
    let gap = assets - (liabilities + equity);
    if gap.abs() > BALANCE_TOLERANCE * assets.abs().max(1.0) {
        return Err(error(
            format!("{label}.total_assets"),
            format!(
                "the balance sheet at {period_end} does not balance: total_assets {assets} vs total_liabilities + total_equity {} (a difference of {gap}, more than 1% of total assets)",
                liabilities + equity
            ),
        ));
    }
    for (part, whole) in [
        (StatementItem::CurrentAssets, StatementItem::TotalAssets),
        (StatementItem::CurrentLiabilities, StatementItem::TotalLiabilities),
        (StatementItem::Cash, StatementItem::TotalAssets),
    ] {
        if value(part) > value(whole) * (1.0 + BALANCE_TOLERANCE) {
            return Err(error(
                format!("{label}.{}", part.name()),
                format!("{} is more than {} {}", value(part), whole.name(), value(whole)),
            ));
        }
    }
    Ok(StatementPeriod { period_end, months, figures })
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn year(end: &str) -> serde_json::Value {
        serde_json::json!({
            "period_end": end, "months": 12,
            "revenue": 1200.0, "operating_income": 150.0, "depreciation_amortization": 40.0,
            "interest_expense": 30.0, "income_tax": 25.0, "net_income": 90.0,
            "cash": 80.0, "current_assets": 400.0, "total_assets": 1000.0,
            "current_liabilities": 250.0, "total_liabilities": 600.0, "total_debt": 350.0,
            "total_equity": 400.0, "retained_earnings": 220.0
        })
    }

    fn input(periods: Vec<serde_json::Value>, unit: Option<f64>) -> FinancialsInput {
        serde_json::from_value(serde_json::json!({ "currency": "USD", "unit": unit, "periods": periods }))
            .expect("valid input")
    }

    #[test]
    fn a_set_is_checked_sorted_newest_first_and_scaled_by_its_unit() {
        let set = check_input(&input(vec![year("2022-12-31"), year("2023-12-31")], Some(1000.0))).expect("valid");
        assert_eq!(set.periods[0].period_end, date!(2023 - 12 - 31));
        assert_eq!(set.periods[0].value(StatementItem::Revenue), Some(1_200_000.0));
        assert_eq!(set.periods[0].figures[&StatementItem::Revenue].source, SUPPLIED_BY_CALLER);
        assert_eq!(set.periods[0].value(StatementItem::Ebitda), None);
    }

    #[test]
    fn a_balance_sheet_that_does_not_balance_is_refused_naming_the_period() {
        let mut unbalanced = year("2023-12-31");
        unbalanced["total_equity"] = serde_json::json!(380.0);
        let refused = check_input(&input(vec![year("2022-12-31"), unbalanced], None)).expect_err("refused");
        assert_eq!(refused.field, "financials.periods[1].total_assets");
        assert!(refused.message.contains("does not balance"), "{refused}");
        // Within 1 % is rounding.
        let mut rounded = year("2023-12-31");
        rounded["total_equity"] = serde_json::json!(395.0);
        assert!(check_input(&input(vec![rounded], None)).is_ok());
    }

    #[test]
    fn negative_revenue_or_debt_missing_items_and_bad_units_are_refused() {
        for (field, value, expected) in [
            ("revenue", serde_json::json!(-5.0), "financials.periods[0].revenue"),
            ("total_debt", serde_json::json!(-1.0), "financials.periods[0].total_debt"),
            ("cash", serde_json::Value::Null, "financials.periods[0].cash"),
        ] {
            let mut period = year("2023-12-31");
            period[field] = value;
            assert_eq!(check_input(&input(vec![period], None)).expect_err(field).field, expected);
        }
        assert_eq!(
            check_input(&input(vec![year("2023-12-31")], Some(100.0))).expect_err("unit").field,
            "financials.unit"
        );
        // A loss and negative equity are statements, not errors.
        let mut loss = year("2023-12-31");
        loss["net_income"] = serde_json::json!(-40.0);
        loss["total_equity"] = serde_json::json!(-50.0);
        loss["total_liabilities"] = serde_json::json!(1050.0);
        loss["current_liabilities"] = serde_json::json!(300.0);
        assert!(check_input(&input(vec![loss], None)).is_ok());
    }

    #[test]
    fn periods_out_of_order_or_repeated_are_refused() {
        let shuffled = vec![year("2022-12-31"), year("2023-12-31"), year("2021-12-31")];
        assert!(check_input(&input(shuffled, None)).expect_err("order").message.contains("date order"));
        let repeated = vec![year("2023-12-31"), year("2023-12-31")];
        assert!(check_input(&input(repeated, None)).expect_err("repeat").message.contains("repeats"));
        let mut quarter = year("2023-12-31");
        quarter["months"] = serde_json::json!(3);
        // A fiscal year and its fourth quarter end on the same day.
        assert!(check_input(&input(vec![year("2023-12-31"), quarter.clone()], None)).is_ok());
        assert!(check_input(&input(vec![quarter], None)).expect_err("no year").message.contains("twelve-month"));
    }

    #[test]
    fn an_unknown_field_or_a_bad_date_is_refused() {
        let mut period = year("2023-12-31");
        period["sales"] = serde_json::json!(1.0);
        let parsed: Result<FinancialsInput, _> =
            serde_json::from_value(serde_json::json!({ "currency": "USD", "periods": [period] }));
        assert!(parsed.is_err());
        let refused = check_input(&input(vec![year("31/12/2023")], None)).expect_err("date");
        assert_eq!(refused.field, "financials.periods[0].period_end");
    }
}
