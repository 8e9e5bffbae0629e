//! One covenant test: the agreement's financial covenants, as extracted, tested against a borrower's
//! statements for one test period, computed with the agreement's own definitions where it states
//! them and the market-standard ones otherwise (each covenant's `formula` says which).
//!
//! Every actual is traceable: its formula, and each input with the statement line, period and
//! source it came from. A covenant is `not_testable` — never estimated — when the statements lack
//! a line it needs (`missing_inputs` names it), when its definition counts something the statements
//! do not carry (secured or senior debt, rent), or when the schedule does not say which level is in
//! force. Flows are over the test period: the fiscal year ending on the test date, or the trailing
//! twelve months built as the analyses build them; balances are at the test date.
//!
//! `status` and `headroom_pct` always agree: with an actual, `pass` exactly when the headroom is
//! not negative. Without one, a maximum leverage covenant on earnings that are not positive is a
//! breach (no leverage level can be met), and coverage with no interest or fixed charges is a pass.

use serde::Serialize;
use serde_json::Value;
use time::Date;

use super::definitions::{CARRIED_ADDBACKS, CoverageTerms, DebtScope, Earnings, RatioDefinition};
use super::schedule::{self, InForce, StatedLevel, Step};
use crate::domain::quant::display::{amount, multiple, percent};
use crate::domain::quant::findings::Severity;
use crate::domain::statements::analysis::{Composition, twelve_months_to};
use crate::domain::statements::items::StatementItem;
use crate::domain::statements::set::{StatementPeriod, StatementSet};

/// Headroom under which a passing covenant is a finding.
pub const TIGHT_HEADROOM: f64 = 0.10;

/// A covenant as the stored extraction states it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgreementCovenant {
    /// The ratio as the agreement names it.
    pub name: String,
    /// The extraction's covenant type (`MaximumLeverageRatio`, …).
    pub covenant_type: String,
    pub levels: Vec<StatedLevel>,
    /// The currency of the levels when they are amounts (liquidity, net worth, capital
    /// expenditures); `None` for ratios.
    pub currency: Option<String>,
}

impl AgreementCovenant {
    /// Whether the levels are amounts of money rather than ratios.
    pub fn on_amounts(&self) -> bool {
        self.currency.is_some()
    }
}

/// The financial covenants of a stored agreement (its CDM-named JSON), with the quote of each level.
pub fn covenants_of(agreement: &Value) -> Vec<AgreementCovenant> {
    let provenance = &agreement["provenance"];
    let quote = |pointer: String| provenance[pointer]["quote"].as_str().map(str::to_owned);
    let Some(covenants) = agreement["financialCovenants"].as_array() else { return Vec::new() };
    covenants
        .iter()
        .enumerate()
        .filter_map(|(i, covenant)| {
            let levels = covenant["levels"]
                .as_array()?
                .iter()
                .enumerate()
                .filter_map(|(j, level)| {
                    let threshold = number(&level["threshold"])?;
                    let text = |key: &str| level[key].as_str().map(str::to_owned);
                    Some(StatedLevel {
                        threshold,
                        period: text("period"),
                        condition: text("condition"),
                        quote: quote(format!("/financialCovenants/{i}/levels/{j}/threshold"))
                            .unwrap_or_else(|| format!("{threshold}")),
                    })
                })
                .collect();
            Some(AgreementCovenant {
                name: covenant["metric"].as_str()?.to_owned(),
                covenant_type: covenant["covenantType"].as_str()?.to_owned(),
                levels,
                currency: covenant["currency"].as_str().map(str::to_owned),
            })
        })
        .collect()
}

/// A decimal as stored: a string ("4.50") or a number.
fn number(value: &Value) -> Option<f64> {
    value.as_f64().or_else(|| value.as_str()?.trim().parse().ok()).filter(|v: &f64| v.is_finite())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CovenantKind {
    MaxLeverage,
    MaxNetLeverage,
    MinInterestCoverage,
    MinFixedChargeCoverage,
    MinLiquidity,
    MinNetWorth,
    MaxCapex,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    Max,
    Min,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Breach,
    NotTestable,
}

/// One input of an actual, with where it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Input {
    /// The statement line (`total_debt`), or a derived figure (`ttm_ebitda`).
    pub name: String,
    pub value: f64,
    /// The period and source of every figure it is made of.
    pub source: String,
}

/// How far earnings may fall before the covenant is breached.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EbitdaCushion {
    /// The earnings at which the covenant would be exactly met.
    pub breakeven: f64,
    /// Actual earnings minus the breakeven.
    pub amount: f64,
    /// `amount` as a fraction of actual earnings.
    pub pct: f64,
}

/// One covenant tested.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CovenantResult {
    pub name: String,
    pub kind: CovenantKind,
    pub operator: Operator,
    /// The currency of `threshold` and `actual` when the covenant is on an amount (liquidity, net
    /// worth, capital expenditures); absent for ratios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// The level in force at the test date.
    pub threshold: Option<f64>,
    /// The agreement's words for that level.
    pub quote: Option<String>,
    /// Every level with the dates it covers, when the covenant steps.
    pub schedule: Vec<Step>,
    pub actual: Option<f64>,
    pub formula: String,
    pub inputs: Vec<Input>,
    pub status: Status,
    pub headroom_pct: Option<f64>,
    pub ebitda_cushion: Option<EbitdaCushion>,
    pub missing_inputs: Vec<String>,
    /// How the agreement defines the ratio, as read.
    pub definition: RatioDefinition,
    /// What the reader should know: a conditional level not applied, add-backs not carried, why
    /// the covenant is not testable.
    pub notes: Vec<String>,
}

/// A finding of a test: a breach, or headroom under [`TIGHT_HEADROOM`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CovenantFinding {
    pub severity: Severity,
    pub covenant: String,
    pub statement: String,
}

/// Counts of the results.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TestSummary {
    pub tested: usize,
    pub pass: usize,
    pub breach: usize,
    pub not_testable: usize,
    /// `breach` when any covenant is breached, `pass` when every one tested passes, else
    /// `incomplete`.
    pub compliance: &'static str,
}

/// What a test found, for one test date.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CovenantTestOutcome {
    #[serde(serialize_with = "iso_date")]
    pub period_end: Date,
    /// How the test period's flows were built ("the fiscal year", "sum of the four latest quarters").
    pub test_period: Option<String>,
    pub currency: String,
    pub covenants: Vec<CovenantResult>,
    pub summary: TestSummary,
    pub findings: Vec<CovenantFinding>,
}

fn iso_date<S: serde::Serializer>(date: &Date, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(date)
}

/// One covenant to test: as stated, with how the agreement defines it and the levels amendments
/// restated (added after the agreement's own, from the amendment's date).
#[derive(Clone, Debug)]
pub struct CovenantToTest {
    pub covenant: AgreementCovenant,
    pub definition: RatioDefinition,
    pub restated: Vec<(Date, Vec<StatedLevel>)>,
}

/// Tests every covenant on the statements' period ending `period_end`.
pub fn run(covenants: &[CovenantToTest], set: &StatementSet, period_end: Date) -> CovenantTestOutcome {
    let period = twelve_months_to(set, period_end);
    let balances = set.periods.iter().filter(|p| p.period_end == period_end).max_by_key(|p| p.months);
    let figures = match (&period, balances) {
        (Ok(composition), Some(balances)) => Ok(Figures { composition, balances }),
        (Err(why), _) => Err(why.clone()),
        (_, None) => Err(format!("no period of the statements ends on {period_end}")),
    };
    let covenants: Vec<CovenantResult> =
        covenants.iter().map(|c| test_one(c, figures.as_ref(), period_end, &set.currency)).collect();
    let findings = findings(&covenants, &set.currency);
    let count = |status| covenants.iter().filter(|c| c.status == status).count();
    let (pass, breach, not_testable) = (count(Status::Pass), count(Status::Breach), count(Status::NotTestable));
    let compliance = if breach > 0 {
        "breach"
    } else if not_testable == 0 && pass > 0 {
        "pass"
    } else {
        "incomplete"
    };
    CovenantTestOutcome {
        period_end,
        test_period: period.as_ref().ok().map(|c| c.formula.to_owned()),
        currency: set.currency.clone(),
        summary: TestSummary { tested: covenants.len(), pass, breach, not_testable, compliance },
        covenants,
        findings,
    }
}

/// The figures of one test period.
struct Figures<'s> {
    composition: &'s Composition<'s>,
    balances: &'s StatementPeriod,
}

impl Figures<'_> {
    /// A flow over the test period, with the source of each part; `Err` names what is missing.
    fn flow(&self, name: &str, value: impl Fn(&StatementPeriod) -> Option<(f64, String)>) -> Result<Input, String> {
        let mut total = 0.0;
        let mut sources = Vec::new();
        for (sign, part) in &self.composition.parts {
            let (figure, source) = value(part).ok_or_else(|| format!("{name} for {}", part.describe()))?;
            total += sign * figure;
            let op = if *sign < 0.0 { "minus " } else { "" };
            sources.push(format!("{op}{} ({source})", part.describe()));
        }
        Ok(Input { name: format!("{name}_test_period"), value: total, source: sources.join(", ") })
    }

    fn item(&self, item: StatementItem) -> Result<Input, String> {
        self.flow(item.name(), |p| p.figures.get(&item).map(|f| (f.value, f.source.clone())))
    }

    /// EBITDA: stated, else operating income + depreciation and amortization.
    fn ebitda(&self) -> Result<Input, String> {
        self.flow("ebitda", |p| {
            if let Some(stated) = p.figures.get(&StatementItem::Ebitda) {
                return Some((stated.value, stated.source.clone()));
            }
            let income = p.figures.get(&StatementItem::OperatingIncome)?;
            let da = p.figures.get(&StatementItem::DepreciationAmortization)?;
            Some((
                income.value + da.value,
                format!("operating_income {} + depreciation_amortization {}", income.source, da.source),
            ))
        })
        .map_err(|_| "ebitda (or operating_income and depreciation_amortization)".to_owned())
    }

    fn balance(&self, item: StatementItem) -> Result<Input, String> {
        let figure = self
            .balances
            .figures
            .get(&item)
            .ok_or_else(|| format!("{} at {}", item.name(), self.balances.period_end))?;
        Ok(Input {
            name: item.name().to_owned(),
            value: figure.value,
            source: format!("at {} ({})", self.balances.period_end, figure.source),
        })
    }
}

fn kind_of(covenant: &AgreementCovenant, definition: &RatioDefinition) -> (CovenantKind, Operator) {
    match covenant.covenant_type.as_str() {
        "MaximumLeverageRatio" if definition.net_of_cash.is_some() => (CovenantKind::MaxNetLeverage, Operator::Max),
        "MaximumLeverageRatio" => (CovenantKind::MaxLeverage, Operator::Max),
        "MinimumInterestCoverageRatio" => (CovenantKind::MinInterestCoverage, Operator::Min),
        "MinimumFixedChargeCoverageRatio" => (CovenantKind::MinFixedChargeCoverage, Operator::Min),
        "MinimumLiquidity" => (CovenantKind::MinLiquidity, Operator::Min),
        "MinimumNetWorth" | "MinimumTangibleNetWorth" => (CovenantKind::MinNetWorth, Operator::Min),
        "MaximumCapitalExpenditures" => (CovenantKind::MaxCapex, Operator::Max),
        name if name.starts_with("Maximum") => (CovenantKind::Other, Operator::Max),
        _ => (CovenantKind::Other, Operator::Min),
    }
}

/// What a ratio divides, once its inputs are read.
struct Ratio {
    numerator: f64,
    denominator: f64,
    /// Earnings in the ratio and how the breakeven follows from them: leverage divides by
    /// earnings, coverage has them (less fixed deductions) on top.
    earnings: f64,
    earnings_deductions: f64,
    formula: String,
    inputs: Vec<Input>,
    notes: Vec<String>,
    /// The ratio can only be higher than computed (a deduction made in full that the agreement
    /// makes in part): a minimum it meets is met; one it misses is not known to be missed.
    lower_bound: bool,
}

fn test_one(
    to_test: &CovenantToTest,
    figures: Result<&Figures<'_>, &String>,
    period_end: Date,
    currency: &str,
) -> CovenantResult {
    let CovenantToTest { covenant, definition, restated } = to_test;
    let (kind, operator) = kind_of(covenant, definition);
    let mut levels = schedule::read(&covenant.levels);
    for (from, restated_levels) in restated {
        let mut steps = schedule::read(restated_levels);
        for step in &mut steps.steps {
            // A level an amendment restates counts from the amendment, never before it.
            step.from = Some(step.from.map_or(*from, |f| f.max(*from)));
        }
        levels.steps.extend(steps.steps);
        levels.unread.extend(steps.unread);
        levels.conditional.extend(steps.conditional);
    }
    let level_text = |value: f64| level_text(value, covenant.currency.as_deref());
    let mut result = CovenantResult {
        name: covenant.name.clone(),
        kind,
        operator,
        currency: covenant.currency.clone(),
        threshold: None,
        quote: None,
        schedule: levels.steps.clone(),
        actual: None,
        formula: String::new(),
        inputs: Vec::new(),
        status: Status::NotTestable,
        headroom_pct: None,
        ebitda_cushion: None,
        missing_inputs: Vec::new(),
        definition: definition.clone(),
        notes: levels
            .conditional
            .iter()
            .map(|(threshold, condition)| {
                format!(
                    "a level of {} applies {condition}: not applied, the statements cannot show it",
                    level_text(*threshold)
                )
            })
            .collect(),
    };
    let step = match levels.in_force(period_end) {
        InForce::Level(step) => step.clone(),
        InForce::NotYetTested { first_test } => {
            result.notes.push(format!("first tested for the period ending {first_test}"));
            return result;
        }
        InForce::Unread(words) => {
            result.notes.push(format!("the schedule's words \"{words}\" could not be read into dates"));
            return result;
        }
        InForce::NotStated => {
            result.notes.push(format!("the agreement states no level for the period ending {period_end}"));
            return result;
        }
    };
    result.threshold = Some(step.threshold);
    result.quote = Some(step.quote.clone());
    let figures = match figures {
        Ok(figures) => figures,
        Err(why) => {
            result.notes.push(format!("the test period cannot be built: {why}"));
            return result;
        }
    };
    if covenant.on_amounts() {
        match measure_amount(covenant, definition, figures, currency) {
            Ok(measure) => judge_amount(&mut result, measure, step.threshold),
            Err(missing) => result.missing_inputs = missing,
        }
        return result;
    }
    let ratio = match kind {
        CovenantKind::MaxLeverage | CovenantKind::MaxNetLeverage => {
            leverage(figures, definition, currency, step.threshold)
        }
        CovenantKind::MinInterestCoverage => interest_coverage(figures, definition),
        CovenantKind::MinFixedChargeCoverage => coverage(figures, definition, true),
        _ if covenant.covenant_type == "MinimumDebtServiceCoverageRatio" => coverage(figures, definition, false),
        _ => Err(vec![format!("{} is not a ratio tested here", covenant.covenant_type)]),
    };
    let ratio = match ratio {
        Ok(ratio) => ratio,
        Err(missing) => {
            result.missing_inputs = missing;
            return result;
        }
    };
    judge(&mut result, ratio, step.threshold);
    result
}

/// Sets actual, status, headroom and cushion from the read ratio.
fn judge(result: &mut CovenantResult, ratio: Ratio, threshold: f64) {
    result.formula = ratio.formula;
    result.inputs = ratio.inputs;
    result.notes.extend(ratio.notes);
    let lower_bound = ratio.lower_bound;
    if !(threshold.is_finite() && threshold > 0.0) {
        result.notes.push("the level is not a positive ratio".to_owned());
        return;
    }
    match result.operator {
        Operator::Max => {
            if ratio.denominator <= 0.0 {
                result.status = Status::Breach;
                result
                    .notes
                    .push("earnings are not positive over the test period: no leverage level can be met".to_owned());
                return;
            }
            let actual = ratio.numerator / ratio.denominator;
            result.actual = Some(actual);
            result.headroom_pct = Some((threshold - actual) / threshold);
            result.status = if actual <= threshold { Status::Pass } else { Status::Breach };
            let breakeven = ratio.numerator / threshold;
            result.ebitda_cushion = cushion(ratio.earnings, breakeven);
        }
        Operator::Min => {
            if ratio.denominator <= 0.0 {
                if ratio.numerator > 0.0 {
                    result.status = Status::Pass;
                    result.notes.push("no charges over the test period: the coverage is unbounded".to_owned());
                } else {
                    result.status = Status::Breach;
                    result.notes.push("neither earnings nor charges are positive".to_owned());
                }
                return;
            }
            let actual = ratio.numerator / ratio.denominator;
            if lower_bound && actual < threshold {
                result.missing_inputs.push(
                    "financed_capital_expenditure (the ratio with all capital expenditure deducted is below the minimum)"
                        .to_owned(),
                );
                return;
            }
            result.actual = Some(actual);
            result.headroom_pct = Some((actual - threshold) / threshold);
            result.status = if actual >= threshold { Status::Pass } else { Status::Breach };
            let breakeven = threshold * ratio.denominator + ratio.earnings_deductions;
            result.ebitda_cushion = cushion(ratio.earnings, breakeven);
        }
    }
}

fn cushion(earnings: f64, breakeven: f64) -> Option<EbitdaCushion> {
    (earnings > 0.0 && breakeven.is_finite()).then(|| EbitdaCushion {
        breakeven,
        amount: earnings - breakeven,
        pct: (earnings - breakeven) / earnings,
    })
}

/// Collects each input or the name of what is missing.
fn gather(reads: Vec<Result<Input, String>>) -> Result<Vec<Input>, Vec<String>> {
    let missing: Vec<String> = reads.iter().filter_map(|r| r.as_ref().err().cloned()).collect();
    if missing.is_empty() { Ok(reads.into_iter().flatten().collect()) } else { Err(missing) }
}

/// The earnings measure the definition names, over the test period.
fn earnings(figures: &Figures<'_>, definition: &RatioDefinition) -> Result<(Input, Vec<String>), String> {
    match definition.earnings {
        Some(Earnings::Ebitdar) => Err("rent_expense (the ratio is on EBITDAR)".to_owned()),
        Some(Earnings::Ebit) => figures.item(StatementItem::OperatingIncome).map(|i| (i, Vec::new())),
        _ => figures.ebitda().map(|input| {
            let not_carried: Vec<&str> =
                definition.ebitda_addbacks.iter().map(String::as_str).filter(|a| !CARRIED_ADDBACKS.contains(a)).collect();
            let notes = if not_carried.is_empty() {
                Vec::new()
            } else {
                vec![format!(
                    "the agreement's EBITDA also adds back {}; the statements carry none of these, so EBITDA is as stated or operating income + D&A",
                    not_carried.join(", ")
                )]
            };
            (input, notes)
        }),
    }
}

fn leverage(
    figures: &Figures<'_>,
    definition: &RatioDefinition,
    currency: &str,
    threshold: f64,
) -> Result<Ratio, Vec<String>> {
    if let Some(base) = &definition.divides_by {
        return Err(vec![format!("{base} (the agreement's leverage divides debt by it, not by earnings)")]);
    }
    // A maximum below 1.00 is a ratio of debt to assets or capital, not a multiple of earnings:
    // without a definition that says what it divides by, it is not computed as one.
    if threshold < 1.0 && definition.earnings.is_none() {
        return Err(vec![
            "the ratio's base (a maximum below 1.00 is not debt to earnings, and the agreement's definition was not read)"
                .to_owned(),
        ]);
    }
    match definition.debt_scope {
        Some(DebtScope::Secured) => return Err(vec!["secured_debt (the statements carry total debt only)".to_owned()]),
        Some(DebtScope::Senior) => return Err(vec!["senior_debt (the statements carry total debt only)".to_owned()]),
        _ => {}
    }
    let earnings = earnings(figures, definition);
    let cash = definition.net_of_cash.as_ref().map(|_| figures.balance(StatementItem::Cash));
    let mut reads = vec![
        figures.balance(StatementItem::TotalDebt),
        earnings.as_ref().map(|(i, _)| i.clone()).map_err(Clone::clone),
    ];
    reads.extend(cash);
    let mut inputs = gather(reads)?;
    let (_, mut notes) = earnings.map_err(|missing| vec![missing])?;
    let debt = inputs[0].value;
    let earnings_value = inputs[1].value;
    let earnings_name = match definition.earnings {
        Some(Earnings::Ebit) => "EBIT",
        _ => "EBITDA",
    };
    let (numerator, formula) = match (&definition.net_of_cash, inputs.get(2)) {
        (Some(netting), Some(cash)) => {
            let deducted = netting.cap.map_or(cash.value, |cap| cash.value.min(cap)).max(0.0);
            if let Some(cap) = netting.cap {
                if netting.cap_is_lower_bound {
                    notes.push(format!(
                        "cash deducted up to {}, the stated amount of a \"greater of\" cap: the true cap may be higher, which could only lower the ratio",
                        amount(cap, Some(currency))
                    ));
                }
                inputs.push(Input {
                    name: "cash_deducted".to_owned(),
                    value: deducted,
                    source: format!("min(cash, the agreement's cap of {})", amount(cap, Some(currency))),
                });
                (
                    debt - deducted,
                    format!(
                        "(total_debt - min(cash, {})) / {earnings_name} over the test period (the agreement's definition)",
                        amount(cap, Some(currency))
                    ),
                )
            } else {
                (
                    debt - deducted,
                    format!(
                        "(total_debt - cash) / {earnings_name} over the test period (the agreement's definition: cash netted without a stated cap)"
                    ),
                )
            }
        }
        _ if definition.read.is_empty() => (
            debt,
            format!(
                "total_debt / {earnings_name} over the test period (market standard: the agreement's definition was not found)"
            ),
        ),
        _ => (debt, format!("total_debt / {earnings_name} over the test period (the agreement's definition)")),
    };
    Ok(Ratio {
        numerator,
        denominator: earnings_value,
        earnings: earnings_value,
        earnings_deductions: 0.0,
        formula,
        inputs,
        notes,
        lower_bound: false,
    })
}

fn interest_coverage(figures: &Figures<'_>, definition: &RatioDefinition) -> Result<Ratio, Vec<String>> {
    let earnings = earnings(figures, definition);
    let reads = vec![
        earnings.as_ref().map(|(i, _)| i.clone()).map_err(Clone::clone),
        figures.item(StatementItem::InterestExpense),
    ];
    let inputs = gather(reads)?;
    let (_, notes) = earnings.map_err(|missing| vec![missing])?;
    let label = if definition.earnings == Some(Earnings::Ebit) { "EBIT" } else { "EBITDA" };
    let basis = if definition.read.is_empty() { "market standard" } else { "the agreement's definition" };
    Ok(Ratio {
        numerator: inputs[0].value,
        denominator: inputs[1].value,
        earnings: inputs[0].value,
        earnings_deductions: 0.0,
        formula: format!("{label} / interest_expense over the test period ({basis})"),
        inputs,
        notes,
        lower_bound: false,
    })
}

/// A fixed-charge or debt-service coverage: as the agreement's definition reads it when its terms
/// were read ([`CoverageTerms`]), else the market standard (`fixed_charges` says whether capital
/// expenditure is deducted). Charges or deductions the statements do not carry (rent,
/// distributions) make it not testable; a deduction of unfinanced capital expenditure is made with
/// all of it, which can only lower the ratio, so a breach found that way is not claimed.
fn coverage(figures: &Figures<'_>, definition: &RatioDefinition, fixed_charges: bool) -> Result<Ratio, Vec<String>> {
    let market = CoverageTerms {
        deducts_capex: fixed_charges,
        deducts_taxes: true,
        charges_interest: true,
        charges_principal: true,
        ..CoverageTerms::default()
    };
    let (terms, basis) = match &definition.coverage {
        Some(terms) => (terms.clone(), "the agreement's definition"),
        None => (market, "market standard"),
    };
    let mut missing = Vec::new();
    if terms.charges_rent {
        missing.push("rent_expense (the agreement's charges count rent)".to_owned());
    }
    if terms.charges_distributions || terms.deducts_distributions {
        missing.push("distributions (the agreement's ratio counts dividends or other distributions)".to_owned());
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut reads = vec![figures.ebitda()];
    let mut numerator = vec!["EBITDA"];
    let mut denominator = Vec::new();
    if terms.deducts_capex {
        reads.push(figures.item(StatementItem::CapitalExpenditure));
        numerator.push("capital_expenditure");
    }
    if terms.deducts_taxes {
        reads.push(figures.item(StatementItem::IncomeTax));
        numerator.push("income_tax");
    }
    if terms.charges_interest {
        reads.push(figures.item(StatementItem::InterestExpense));
        denominator.push("interest_expense");
    }
    if terms.charges_principal {
        reads.push(figures.balance(StatementItem::ScheduledPrincipal));
        denominator.push("scheduled_principal");
    }
    let inputs = gather(reads)?;
    let value = |name: &str| {
        inputs.iter().find(|i| i.name == name || i.name == format!("{name}_test_period")).map_or(0.0, |i| i.value)
    };
    let ebitda = value("ebitda");
    let deductions = value("capital_expenditure") + value("income_tax").max(0.0);
    let charges = value("interest_expense") + value("scheduled_principal");
    let mut notes = Vec::new();
    if terms.capex_unfinanced {
        notes.push("the agreement deducts only unfinanced capital expenditure; all of it is deducted here, which can only lower the ratio".to_owned());
    }
    if terms.charges_principal {
        notes.push("scheduled principal as the statements carry it: due over the next twelve months".to_owned());
    }
    Ok(Ratio {
        numerator: ebitda - deductions,
        denominator: charges,
        earnings: ebitda,
        earnings_deductions: deductions,
        formula: format!("({}) / ({}) over the test period ({basis})", numerator.join(" - "), denominator.join(" + ")),
        inputs,
        notes,
        lower_bound: terms.capex_unfinanced,
    })
}

/// A level or actual as read: an amount in its currency, or a multiple.
fn level_text(value: f64, currency: Option<&str>) -> String {
    match currency {
        Some(code) => amount(value, Some(code)),
        None => multiple(value),
    }
}

/// What an amount covenant measures, once its inputs are read.
struct Measure {
    actual: f64,
    formula: String,
    inputs: Vec<Input>,
    notes: Vec<String>,
    /// The actual counts only part of what the agreement's measure counts (liquidity without the
    /// undrawn commitments): it can only be higher, so a minimum it meets is met, and one it misses
    /// is not known to be missed.
    lower_bound: bool,
}

/// Reads an amount covenant's measure from the statements: liquidity as cash (and, where the
/// agreement counts them, undrawn commitments, which statements do not carry), net worth as total
/// equity, capital expenditures over a fiscal year.
fn measure_amount(
    covenant: &AgreementCovenant,
    definition: &RatioDefinition,
    figures: &Figures<'_>,
    currency: &str,
) -> Result<Measure, Vec<String>> {
    if let Some(stated) = covenant.currency.as_deref().filter(|code| *code != currency) {
        return Err(vec![format!(
            "statements in {stated} (the covenant's levels are in {stated}; the statements are in {currency})"
        )]);
    }
    let basis = if definition.read.is_empty() {
        "market standard: the agreement's definition was not found"
    } else {
        "the agreement's definition"
    };
    match covenant.covenant_type.as_str() {
        "MinimumLiquidity" => {
            let cash = figures.balance(StatementItem::Cash).map_err(|missing| vec![missing])?;
            // Unless the agreement's definition counts cash alone, liquidity also counts undrawn
            // commitments, which the statements do not carry.
            let cash_only = definition.counts_availability == Some(false);
            let (formula, notes) = if cash_only {
                (format!("cash at the test date ({basis}: cash and cash equivalents)"), Vec::new())
            } else {
                (
                    format!("cash at the test date, a lower bound of liquidity ({basis}: cash plus undrawn commitments)"),
                    vec!["liquidity also counts availability under the commitments, which the statements do not carry: cash alone is a lower bound".to_owned()],
                )
            };
            Ok(Measure { actual: cash.value, formula, inputs: vec![cash], notes, lower_bound: !cash_only })
        }
        "MinimumNetWorth" if definition.deducts_intangibles != Some(true) => {
            let equity = figures.balance(StatementItem::TotalEquity).map_err(|missing| vec![missing])?;
            Ok(Measure {
                actual: equity.value,
                formula: format!("total_equity at the test date ({basis}: shareholders' equity)"),
                inputs: vec![equity],
                notes: Vec::new(),
                lower_bound: false,
            })
        }
        "MinimumNetWorth" | "MinimumTangibleNetWorth" => Err(vec![
            "intangible_assets (tangible net worth deducts goodwill and other intangibles; the statements do not carry them)"
                .to_owned(),
        ]),
        "MaximumCapitalExpenditures" => {
            if !figures.composition.is_fiscal_year() {
                return Err(vec![format!(
                    "capital_expenditure for a fiscal year (the limit is per fiscal year; the period ending {} is not a fiscal year end)",
                    figures.balances.period_end
                )]);
            }
            let capex = figures.item(StatementItem::CapitalExpenditure).map_err(|missing| vec![missing])?;
            Ok(Measure {
                actual: capex.value,
                formula: format!("capital_expenditure over the fiscal year ({basis})"),
                inputs: vec![capex],
                notes: Vec::new(),
                lower_bound: false,
            })
        }
        other => Err(vec![format!("{other} is not a measure tested here")]),
    }
}

/// Sets actual, status and headroom from an amount measure.
fn judge_amount(result: &mut CovenantResult, measure: Measure, threshold: f64) {
    result.formula = measure.formula;
    result.inputs = measure.inputs;
    result.notes.extend(measure.notes);
    if !(threshold.is_finite() && threshold > 0.0) {
        result.notes.push("the level is not a positive amount".to_owned());
        return;
    }
    let actual = measure.actual;
    let headroom = match result.operator {
        Operator::Max => (threshold - actual) / threshold,
        Operator::Min => (actual - threshold) / threshold,
    };
    if measure.lower_bound && headroom < 0.0 {
        // A lower bound below a minimum says nothing: the part not carried may make it up.
        result.missing_inputs.push("undrawn_commitments (cash alone is below the minimum)".to_owned());
        return;
    }
    result.actual = Some(actual);
    result.headroom_pct = Some(headroom);
    result.status = if headroom >= 0.0 { Status::Pass } else { Status::Breach };
}

fn findings(results: &[CovenantResult], currency: &str) -> Vec<CovenantFinding> {
    let mut findings = Vec::new();
    for result in results {
        let figure = |value: f64| level_text(value, result.currency.as_deref());
        let threshold = result.threshold.map(figure).unwrap_or_default();
        let limit = if result.operator == Operator::Max { "maximum" } else { "minimum" };
        match (result.status, result.actual, result.headroom_pct) {
            (Status::Breach, actual, _) => findings.push(CovenantFinding {
                severity: Severity::Concern,
                covenant: result.name.clone(),
                statement: match actual {
                    Some(actual) => {
                        format!("{} is breached: {} against a {limit} of {threshold}", result.name, figure(actual))
                    }
                    None => {
                        format!("{} is breached: {}", result.name, result.notes.last().cloned().unwrap_or_default())
                    }
                },
            }),
            (Status::Pass, Some(actual), Some(headroom)) if headroom < TIGHT_HEADROOM => {
                let cushion = result
                    .ebitda_cushion
                    .as_ref()
                    .map(|c| {
                        format!(
                            "; EBITDA may fall by {} ({}) before a breach",
                            amount(c.amount, Some(currency)),
                            percent(c.pct)
                        )
                    })
                    .unwrap_or_default();
                findings.push(CovenantFinding {
                    severity: Severity::Watch,
                    covenant: result.name.clone(),
                    statement: format!(
                        "{} passes with {} headroom: {} against a {limit} of {threshold}{cushion}",
                        result.name,
                        percent(headroom),
                        figure(actual)
                    ),
                });
            }
            _ => {}
        }
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    findings
}

#[cfg(test)]
mod tests;
