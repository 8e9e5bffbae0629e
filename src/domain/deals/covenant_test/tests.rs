use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::json;
use time::macros::date;

use super::*;
use crate::domain::deals::definitions::{self, CashNetting};
use crate::domain::extraction::Structure;
use crate::domain::statements::set::Figure;

fn period(end: Date, months: u32, figures: &[(StatementItem, f64)]) -> StatementPeriod {
    StatementPeriod {
        period_end: end,
        months,
        figures: figures
            .iter()
            .map(|(item, value)| (*item, Figure { value: *value, source: format!("sheet!{}", item.name()) }))
            .collect::<BTreeMap<_, _>>(),
    }
}

use StatementItem::{
    CapitalExpenditure, Cash, DepreciationAmortization, Ebitda, IncomeTax, InterestExpense, OperatingIncome,
    ScheduledPrincipal, TotalDebt, TotalEquity,
};

/// FY2024 and the half years to June 2024 and 2025: TTM EBITDA to June 2025 = 100 + 60 - 50 = 110.
fn statements() -> StatementSet {
    StatementSet {
        currency: "USD".to_owned(),
        periods: vec![
            period(
                date!(2025 - 06 - 30),
                6,
                &[(Ebitda, 60.0), (InterestExpense, 11.0), (TotalDebt, 520.0), (Cash, 80.0)],
            ),
            period(
                date!(2024 - 12 - 31),
                12,
                &[
                    (OperatingIncome, 80.0),
                    (DepreciationAmortization, 20.0),
                    (InterestExpense, 20.0),
                    (TotalDebt, 500.0),
                    (Cash, 70.0),
                ],
            ),
            period(
                date!(2024 - 06 - 30),
                6,
                &[(Ebitda, 50.0), (InterestExpense, 9.0), (TotalDebt, 480.0), (Cash, 60.0)],
            ),
        ],
    }
}

fn level(threshold: f64, period: Option<&str>) -> StatedLevel {
    StatedLevel { threshold, period: period.map(str::to_owned), condition: None, quote: format!("{threshold:.2}:1.00") }
}

fn covenant(kind: &str, name: &str, levels: Vec<StatedLevel>, definition: RatioDefinition) -> CovenantToTest {
    CovenantToTest {
        covenant: AgreementCovenant { name: name.to_owned(), covenant_type: kind.to_owned(), levels, currency: None },
        definition,
        restated: Vec::new(),
    }
}

fn net_of_cash(cap: Option<f64>) -> RatioDefinition {
    RatioDefinition {
        net_of_cash: Some(CashNetting { cap, cap_is_lower_bound: false, quote: "minus cash".to_owned() }),
        debt_scope: Some(DebtScope::Total),
        earnings: Some(Earnings::Ebitda),
        ..RatioDefinition::default()
    }
}

#[test]
fn net_leverage_deducts_cash_up_to_the_cap_over_the_trailing_twelve_months() {
    let test =
        covenant("MaximumLeverageRatio", "Total Net Leverage Ratio", vec![level(4.5, None)], net_of_cash(Some(50.0)));
    let outcome = run(&[test], &statements(), date!(2025 - 06 - 30));
    let result = &outcome.covenants[0];
    assert_eq!(result.kind, CovenantKind::MaxNetLeverage);
    // (520 - min(80, 50)) / 110 = 4.2727…
    let actual = result.actual.expect("actual");
    assert!((actual - 470.0 / 110.0).abs() < 1e-9, "{actual}");
    assert_eq!(result.status, Status::Pass);
    assert!((result.headroom_pct.expect("headroom") - (4.5 - actual) / 4.5).abs() < 1e-12);
    let cushion = result.ebitda_cushion.as_ref().expect("cushion");
    assert!((cushion.breakeven - 470.0 / 4.5).abs() < 1e-9);
    assert_eq!(outcome.test_period.as_deref(), Some("fiscal year + year to date - same period a year earlier"));
    let ebitda = result.inputs.iter().find(|i| i.name == "ebitda_test_period").expect("ebitda input");
    assert!(ebitda.source.contains("minus 6 months to 2024-06-30"), "{}", ebitda.source);
    // Within 10 % of the level: a finding to watch.
    assert_eq!(outcome.findings.len(), 1);
    assert_eq!(outcome.findings[0].severity, Severity::Watch);
    assert_eq!(outcome.summary.compliance, "pass");
}

#[test]
fn the_level_in_force_is_the_one_the_step_down_gives_the_test_date() {
    let levels = vec![
        level(5.0, Some("June 30, 2024 through March 31, 2025")),
        level(4.0, Some("June 30, 2025 and each fiscal quarter thereafter")),
    ];
    let test = covenant("MaximumLeverageRatio", "Total Leverage Ratio", levels, RatioDefinition::default());
    let june = run(std::slice::from_ref(&test), &statements(), date!(2025 - 06 - 30));
    // 520 / 110 = 4.73 > 4.00: breached, and a breach is the highest finding.
    assert_eq!(june.covenants[0].threshold, Some(4.0));
    assert_eq!(june.covenants[0].status, Status::Breach);
    assert_eq!(june.findings[0].severity, Severity::Concern);
    assert_eq!(june.summary.compliance, "breach");
    assert!(june.covenants[0].formula.contains("market standard"), "{}", june.covenants[0].formula);
    let december = run(&[test], &statements(), date!(2024 - 12 - 31));
    // FY2024: 500 / 100 = 5.00 against 5.00: met exactly.
    assert_eq!(december.covenants[0].threshold, Some(5.0));
    assert_eq!(december.covenants[0].status, Status::Pass);
    assert_eq!(december.covenants[0].headroom_pct, Some(0.0));
}

#[test]
fn an_amendment_resets_a_level_from_its_own_date_only() {
    let mut test =
        covenant("MaximumLeverageRatio", "Total Leverage Ratio", vec![level(4.0, None)], RatioDefinition::default());
    test.restated = vec![(date!(2025 - 03 - 15), vec![level(5.0, None)])];
    let after = run(std::slice::from_ref(&test), &statements(), date!(2025 - 06 - 30));
    assert_eq!(after.covenants[0].threshold, Some(5.0));
    assert_eq!(after.covenants[0].status, Status::Pass);
    let before = run(&[test], &statements(), date!(2024 - 12 - 31));
    assert_eq!(before.covenants[0].threshold, Some(4.0));
}

#[test]
fn a_covenant_missing_an_input_is_not_testable_and_names_it() {
    let test = covenant(
        "MinimumFixedChargeCoverageRatio",
        "Fixed Charge Coverage Ratio",
        vec![level(1.25, None)],
        RatioDefinition::default(),
    );
    let outcome = run(&[test], &statements(), date!(2024 - 12 - 31));
    let result = &outcome.covenants[0];
    assert_eq!(result.status, Status::NotTestable);
    assert_eq!(result.actual, None);
    assert!(result.missing_inputs.iter().any(|m| m.starts_with("capital_expenditure")), "{:?}", result.missing_inputs);
    assert!(result.missing_inputs.iter().any(|m| m.starts_with("scheduled_principal")), "{:?}", result.missing_inputs);
    assert_eq!(outcome.summary.compliance, "incomplete");
}

#[test]
fn a_fixed_charge_coverage_is_computed_as_the_agreement_defines_it() {
    // FY2024 with capex 45, tax 10, interest 20, principal 30: EBITDA 100.
    let mut set = statements_with_equity();
    for period in &mut set.periods {
        if period.months == 12 {
            period.figures.insert(IncomeTax, Figure { value: 10.0, source: "sheet!B12".to_owned() });
            period.figures.insert(ScheduledPrincipal, Figure { value: 30.0, source: "sheet!B40".to_owned() });
        }
    }
    let read = |text: &str| definitions::read(text, &Structure::scan(text), "Fixed Charge Coverage Ratio");
    let fccr = |definition| {
        covenant("MinimumFixedChargeCoverageRatio", "Fixed Charge Coverage Ratio", vec![level(1.25, None)], definition)
    };
    // No capital expenditure in the agreement's ratio: (100 - 10) / (20 + 30) = 1.80, where the
    // market standard would deduct capex too: (100 - 45 - 10) / 50 = 0.90, a breach that is not one.
    let own = read(
        "\"Fixed Charge Coverage Ratio\" means the ratio of (a) EBITDA less income taxes paid to (b) the sum of Interest Expense and scheduled principal payments.\n",
    );
    let result = &run(&[fccr(own)], &set, date!(2024 - 12 - 31)).covenants[0];
    assert_eq!((result.status, result.actual), (Status::Pass, Some(1.8)), "{result:?}");
    assert!(result.formula.contains("the agreement's definition"), "{}", result.formula);
    let standard = &run(&[fccr(RatioDefinition::default())], &set, date!(2024 - 12 - 31)).covenants[0];
    assert_eq!((standard.status, standard.actual), (Status::Breach, Some(0.9)));
    // Unfinanced capex deducted in full gives 0.90 < 1.25: not known to be a breach.
    let unfinanced = read(
        "\"Fixed Charge Coverage Ratio\" means the ratio of (a) EBITDA minus Unfinanced Capital Expenditures minus taxes to (b) Interest Expense plus scheduled principal payments.\n",
    );
    let result = &run(&[fccr(unfinanced)], &set, date!(2024 - 12 - 31)).covenants[0];
    assert_eq!((result.status, result.actual), (Status::NotTestable, None));
    assert!(result.missing_inputs[0].starts_with("financed_capital_expenditure"));
    // Rent among the charges: the statements carry none.
    let rent =
        read("\"Fixed Charge Coverage Ratio\" means EBITDA divided by the sum of Interest Expense and rent expense.\n");
    let result = &run(&[fccr(rent)], &set, date!(2024 - 12 - 31)).covenants[0];
    assert_eq!(result.status, Status::NotTestable);
    assert!(result.missing_inputs[0].starts_with("rent_expense"));
}

#[test]
fn secured_leverage_is_not_testable_on_statements_that_carry_total_debt_only() {
    let definition = RatioDefinition { debt_scope: Some(DebtScope::Secured), ..RatioDefinition::default() };
    let test = covenant("MaximumLeverageRatio", "Senior Secured Leverage Ratio", vec![level(3.0, None)], definition);
    let result = &run(&[test], &statements(), date!(2024 - 12 - 31)).covenants[0];
    assert_eq!(result.status, Status::NotTestable);
    assert!(result.missing_inputs[0].starts_with("secured_debt"));
}

#[test]
fn leverage_on_capitalization_or_below_one_is_never_computed_as_debt_to_earnings() {
    let text = "\"Leverage Ratio\" means Consolidated Debt divided by Total Capitalization.\n";
    let definition = definitions::read(text, &Structure::scan(text), "Leverage Ratio");
    let on_capital = covenant("MaximumLeverageRatio", "Leverage Ratio", vec![level(0.65, None)], definition);
    let undefined = covenant(
        "MaximumLeverageRatio",
        "Total Indebtedness Ratio",
        vec![level(0.60, None)],
        RatioDefinition::default(),
    );
    let outcome = run(&[on_capital, undefined], &statements(), date!(2024 - 12 - 31));
    for result in &outcome.covenants {
        assert_eq!((result.status, result.actual), (Status::NotTestable, None), "{result:?}");
    }
    assert!(outcome.covenants[0].missing_inputs[0].starts_with("Total Capitalization"));
    assert!(outcome.findings.is_empty(), "no breach is claimed: {:?}", outcome.findings);
}

#[test]
fn interest_coverage_is_earnings_over_interest_with_its_cushion() {
    let test = covenant(
        "MinimumInterestCoverageRatio",
        "Interest Coverage Ratio",
        vec![level(3.0, None)],
        RatioDefinition::default(),
    );
    let result = &run(&[test], &statements(), date!(2024 - 12 - 31)).covenants[0];
    assert_eq!(result.actual, Some(5.0));
    assert_eq!(result.status, Status::Pass);
    let cushion = result.ebitda_cushion.as_ref().expect("cushion");
    assert_eq!((cushion.breakeven, cushion.amount), (60.0, 40.0));
}

#[test]
fn a_test_date_without_statements_says_so() {
    let test = covenant("MaximumLeverageRatio", "Leverage Ratio", vec![level(4.0, None)], RatioDefinition::default());
    let result = &run(&[test], &statements(), date!(2025 - 09 - 30)).covenants[0];
    assert_eq!(result.status, Status::NotTestable);
    assert!(
        result.notes.iter().any(|n| n.contains("no period of the statements ends on 2025-09-30")),
        "{:?}",
        result.notes
    );
}

#[test]
fn stored_agreement_covenants_are_read_with_their_quotes() {
    let agreement = json!({
        "financialCovenants": [{
            "covenantType": "MaximumLeverageRatio",
            "metric": "Consolidated Total Net Leverage Ratio",
            "levels": [{"threshold": "4.50", "period": "June 30, 2024 through March 31, 2025"}, {"threshold": 4.0}]
        }],
        "provenance": {"/financialCovenants/0/levels/0/threshold": {"start": 1, "end": 10, "quote": "4.50:1.00"}}
    });
    let read = covenants_of(&agreement);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].levels[0].threshold, 4.5);
    assert_eq!(read[0].levels[0].quote, "4.50:1.00");
    assert_eq!(read[0].levels[1].threshold, 4.0);
}

#[test]
fn a_definition_read_from_the_agreement_changes_the_actual() {
    let text = "\"Consolidated Net Leverage Ratio\" means the ratio of Consolidated Debt minus unrestricted cash not to exceed $50 to Consolidated EBITDA for the four consecutive fiscal quarters then ended.\n";
    let definition = definitions::read(text, &Structure::scan(text), "Consolidated Net Leverage Ratio");
    let test = covenant("MaximumLeverageRatio", "Consolidated Net Leverage Ratio", vec![level(5.0, None)], definition);
    let result = &run(&[test], &statements(), date!(2024 - 12 - 31)).covenants[0];
    assert_eq!(result.actual, Some(4.5), "(500 - 50) / 100: {:?}", result.formula);
    assert!(result.formula.contains("the agreement's definition"));
}

/// A covenant on an amount in `currency`.
fn on_amount(kind: &str, name: &str, threshold: f64, currency: &str, definition: RatioDefinition) -> CovenantToTest {
    let mut test = covenant(kind, name, vec![level(threshold, None)], definition);
    test.covenant.currency = Some(currency.to_owned());
    test
}

/// FY2024 with equity and capital expenditure, besides the figures of [`statements`].
fn statements_with_equity() -> StatementSet {
    let mut set = statements();
    for period in &mut set.periods {
        if period.months == 12 {
            period.figures.insert(TotalEquity, Figure { value: 300.0, source: "sheet!B20".to_owned() });
            period.figures.insert(CapitalExpenditure, Figure { value: 45.0, source: "sheet!B31".to_owned() });
        }
    }
    set
}

#[test]
fn net_worth_is_total_equity_and_capital_expenditure_the_fiscal_years_spend() {
    let tests = [
        on_amount("MinimumNetWorth", "Consolidated Net Worth", 250.0, "USD", RatioDefinition::default()),
        on_amount("MaximumCapitalExpenditures", "Capital Expenditures", 40.0, "USD", RatioDefinition::default()),
    ];
    let outcome = run(&tests, &statements_with_equity(), date!(2024 - 12 - 31));
    let [net_worth, capex] = [&outcome.covenants[0], &outcome.covenants[1]];
    assert_eq!((net_worth.kind, net_worth.operator), (CovenantKind::MinNetWorth, Operator::Min));
    assert_eq!((net_worth.actual, net_worth.status), (Some(300.0), Status::Pass));
    assert!((net_worth.headroom_pct.expect("headroom") - 0.2).abs() < 1e-12);
    assert_eq!(net_worth.inputs[0].name, "total_equity");
    assert!(net_worth.inputs[0].source.contains("sheet!B20"));
    assert_eq!(net_worth.currency.as_deref(), Some("USD"));
    assert_eq!(net_worth.ebitda_cushion, None);
    // 45 spent against a limit of 40: breached, and said in the currency, not as a multiple.
    assert_eq!((capex.kind, capex.operator, capex.status), (CovenantKind::MaxCapex, Operator::Max, Status::Breach));
    assert_eq!(outcome.findings[0].severity, Severity::Concern);
    assert!(outcome.findings[0].statement.contains("USD"), "{}", outcome.findings[0].statement);
    assert!(!outcome.findings[0].statement.contains('×'), "{}", outcome.findings[0].statement);
}

#[test]
fn capital_expenditure_limits_are_tested_on_a_fiscal_year_only() {
    let test = on_amount("MaximumCapitalExpenditures", "Capital Expenditures", 40.0, "USD", RatioDefinition::default());
    let result = &run(&[test], &statements_with_equity(), date!(2025 - 06 - 30)).covenants[0];
    assert_eq!(result.status, Status::NotTestable);
    assert!(result.missing_inputs[0].contains("not a fiscal year end"), "{:?}", result.missing_inputs);
}

#[test]
fn liquidity_on_cash_alone_is_a_lower_bound_unless_the_agreement_counts_cash_only() {
    // Cash 70 at FY2024. Liquidity counting undrawn commitments too: 70 meets 60 whatever is undrawn…
    let met = on_amount("MinimumLiquidity", "Liquidity", 60.0, "USD", RatioDefinition::default());
    let result = &run(&[met], &statements(), date!(2024 - 12 - 31)).covenants[0];
    assert_eq!((result.status, result.actual), (Status::Pass, Some(70.0)));
    assert!(result.formula.contains("lower bound"), "{}", result.formula);
    // … but 70 below 100 says nothing: the undrawn commitments may make up the difference.
    let short = on_amount("MinimumLiquidity", "Liquidity", 100.0, "USD", RatioDefinition::default());
    let result = &run(&[short], &statements(), date!(2024 - 12 - 31)).covenants[0];
    assert_eq!((result.status, result.actual, result.headroom_pct), (Status::NotTestable, None, None));
    assert!(result.missing_inputs[0].starts_with("undrawn_commitments"), "{:?}", result.missing_inputs);
    // When the agreement's liquidity is cash alone, 70 below 100 is a breach.
    let cash_only = RatioDefinition { counts_availability: Some(false), ..RatioDefinition::default() };
    let strict = on_amount("MinimumLiquidity", "Liquidity", 100.0, "USD", cash_only);
    let result = &run(&[strict], &statements(), date!(2024 - 12 - 31)).covenants[0];
    assert_eq!((result.status, result.actual), (Status::Breach, Some(70.0)));
}

#[test]
fn tangible_net_worth_and_levels_in_another_currency_are_not_testable() {
    let tangible = on_amount("MinimumTangibleNetWorth", "Tangible Net Worth", 100.0, "USD", RatioDefinition::default());
    let in_euros = on_amount("MinimumNetWorth", "Net Worth", 100.0, "EUR", RatioDefinition::default());
    let outcome = run(&[tangible, in_euros], &statements_with_equity(), date!(2024 - 12 - 31));
    assert!(outcome.covenants.iter().all(|c| c.status == Status::NotTestable));
    assert!(outcome.covenants[0].missing_inputs[0].starts_with("intangible_assets"));
    assert!(outcome.covenants[1].missing_inputs[0].contains("EUR"), "{:?}", outcome.covenants[1].missing_inputs);
}

#[test]
fn stored_amount_covenants_keep_their_currency() {
    let agreement = json!({
        "financialCovenants": [{
            "covenantType": "MinimumLiquidity", "metric": "Liquidity", "currency": "USD",
            "levels": [{"threshold": "25000000"}]
        }]
    });
    let read = covenants_of(&agreement);
    assert_eq!(read[0].currency.as_deref(), Some("USD"));
    assert!(read[0].on_amounts());
}

proptest! {
    /// Whatever the figures and level of a covenant on an amount, `status` and `headroom_pct` agree.
    #[test]
    fn status_and_headroom_agree_for_amounts(
        cash in -1e6f64..1e9,
        equity in -1e9f64..1e9,
        capex in 0f64..1e9,
        threshold in 1f64..1e9,
        which in 0usize..3,
        cash_only in any::<bool>(),
    ) {
        let set = StatementSet {
            currency: "USD".to_owned(),
            periods: vec![period(date!(2024 - 12 - 31), 12, &[(Cash, cash), (TotalEquity, equity), (CapitalExpenditure, capex)])],
        };
        let kind = ["MinimumLiquidity", "MinimumNetWorth", "MaximumCapitalExpenditures"][which];
        let definition = RatioDefinition { counts_availability: Some(!cash_only), ..RatioDefinition::default() };
        let result = &run(&[on_amount(kind, "Measure", threshold, "USD", definition)], &set, date!(2024 - 12 - 31)).covenants[0];
        match (result.actual, result.headroom_pct) {
            (Some(_), Some(headroom)) => prop_assert_eq!(result.status == Status::Pass, headroom >= 0.0),
            (None, None) => prop_assert_eq!(result.status, Status::NotTestable),
            other => prop_assert!(false, "actual and headroom disagree: {:?}", other),
        }
    }
}

proptest! {
    /// Whatever the figures and level, `status` and `headroom_pct` agree.
    #[test]
    fn status_and_headroom_always_agree(
        debt in -1e9f64..1e10,
        cash in 0f64..1e9,
        ebitda in -1e9f64..1e9,
        interest in -1e6f64..1e8,
        threshold in 0.01f64..20.0,
        maximum in any::<bool>(),
    ) {
        let set = StatementSet {
            currency: "USD".to_owned(),
            periods: vec![period(date!(2024 - 12 - 31), 12, &[(Ebitda, ebitda), (InterestExpense, interest), (TotalDebt, debt), (Cash, cash), (CapitalExpenditure, 1.0), (IncomeTax, 1.0), (ScheduledPrincipal, 1.0)])],
        };
        let kind = if maximum { "MaximumLeverageRatio" } else { "MinimumInterestCoverageRatio" };
        let test = covenant(kind, "Ratio", vec![level(threshold, None)], net_of_cash(Some(cash / 2.0)));
        let result = &run(&[test], &set, date!(2024 - 12 - 31)).covenants[0];
        match (result.actual, result.headroom_pct) {
            (Some(_), Some(headroom)) => prop_assert_eq!(result.status == Status::Pass, headroom >= 0.0),
            (None, None) => prop_assert!(result.status != Status::Pass || !maximum),
            other => prop_assert!(false, "actual and headroom disagree: {:?}", other),
        }
        if result.status == Status::NotTestable {
            prop_assert!(result.headroom_pct.is_none());
        }
    }
}
