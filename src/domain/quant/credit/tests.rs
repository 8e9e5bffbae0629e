//! The credit analysis on round-number statements whose expected values are worked by hand.

use super::super::rating::{FinancialRiskProfile, Grade};
use super::super::statements::FiscalYearStatement;
use super::fixtures::{healthy, leveraged, loss_making, sparse};
use super::*;
use proptest::prelude::*;
use time::macros::date;

fn close(actual: Option<f64>, expected: f64) {
    let actual = actual.expect("metric present");
    assert!((actual - expected).abs() < 1e-9, "got {actual}, want {expected}");
}

#[test]
fn healthy_company_metrics_match_hand_arithmetic() {
    let a = analyse_credit(&healthy(), None);
    close(a.value("revenue"), 1000.0);
    close(a.value("revenue_growth"), 1000.0 / 900.0 - 1.0);
    // 2020 → 2023 is three fiscal years.
    close(a.value("revenue_cagr"), (1000.0f64 / 810.0).powf(1.0 / 3.0) - 1.0);
    close(a.value("gross_margin"), 400.0 / 1000.0);
    close(a.value("ebit_margin"), 200.0 / 1000.0);
    close(a.value("ebitda"), 200.0 + 50.0);
    close(a.value("ebitda_margin"), 250.0 / 1000.0);
    close(a.value("net_margin"), 140.0 / 1000.0);
    close(a.value("return_on_assets"), 140.0 / 1200.0);
    close(a.value("total_debt"), 300.0 + 50.0 + 50.0);
    close(a.value("net_debt"), 400.0 - 150.0);
    close(a.value("debt_to_ebitda"), 400.0 / 250.0);
    close(a.value("net_debt_to_ebitda"), 250.0 / 250.0);
    close(a.value("ebitda_interest_coverage"), 250.0 / 20.0);
    close(a.value("ebit_interest_coverage"), 200.0 / 20.0);
    close(a.value("current_ratio"), 500.0 / 250.0);
    close(a.value("quick_ratio"), (150.0 + 150.0) / 250.0);
    close(a.value("debt_to_equity"), 400.0 / 600.0);
    close(a.value("free_cash_flow"), 220.0 - 80.0);
    close(a.value("funds_from_operations"), 250.0 - 20.0 - 40.0);
    close(a.value("ffo_to_debt"), 190.0 / 400.0);
    close(a.value("fcf_to_debt"), 140.0 / 400.0);
    close(a.value("cfo_to_debt"), 220.0 / 400.0);
}

#[test]
fn healthy_company_without_market_data_uses_altman_z_double_prime() {
    let a = analyse_credit(&healthy(), None);
    let z = a.altman.expect("altman computed");
    assert_eq!(z.variant, AltmanVariant::ZDoublePrime);
    let by_hand = 6.56 * (250.0 / 1200.0) + 3.26 * (400.0 / 1200.0) + 6.72 * (200.0 / 1200.0) + 1.05 * (600.0 / 600.0);
    assert!((z.score - by_hand).abs() < 1e-12);
    assert_eq!(z.zone, AltmanZone::Safe);
    assert!(a.methodology.iter().any(|m| m.contains("Z''")));
    assert!(a.merton.is_none());
    assert!(a.missing_inputs.iter().any(|m| m.starts_with("distance_to_default")));
}

#[test]
fn healthy_company_with_market_value_uses_altman_z_1968() {
    let market = MarketInputs { equity_market_value: 2000.0, equity_volatility: 0.3, equity_return: 0.1 };
    let a = analyse_credit(&healthy(), Some(market));
    let z = a.altman.expect("altman computed");
    assert_eq!(z.variant, AltmanVariant::Z);
    let by_hand = 1.2 * (250.0 / 1200.0)
        + 1.4 * (400.0 / 1200.0)
        + 3.3 * (200.0 / 1200.0)
        + 0.6 * (2000.0 / 600.0)
        + 1.0 * (1000.0 / 1200.0);
    assert!((z.score - by_hand).abs() < 1e-12);
    assert_eq!(z.zone, AltmanZone::Safe);
}

#[test]
fn healthy_company_is_rated_aaa_with_a_modest_risk_profile() {
    let a = analyse_credit(&healthy(), None);
    let rating = a.rating.expect("rated");
    // EBIT coverage 200 / 20 = 10 > 8.5.
    assert_eq!(rating.grade, Grade::Aaa);
    assert_eq!(rating.spread, 0.0045);
    assert_eq!(rating.pd, 0.0005);
    // Debt/EBITDA 1.6 is in 1.5–2.
    assert_eq!(a.risk_profile, Some(FinancialRiskProfile::Modest));
}

#[test]
fn healthy_company_meets_all_nine_piotroski_criteria() {
    let a = analyse_credit(&healthy(), None);
    let f = a.piotroski.clone().expect("two years");
    // ROA 140/1200 > 110/1150; CFO/TA 220/1200 > ROA; LTD/avg TA 300/1175 < 330/1150; current ratio
    // 2.0 > 450/260; shares 100 ≤ 102; gross margin 0.40 > 0.38; turnover 1000/1200 > 900/1150.
    assert_eq!((f.score, f.evaluated), (9, 9));
    close(a.value("piotroski_f"), 9.0);
}

#[test]
fn leveraged_company_metrics_match_hand_arithmetic() {
    let a = analyse_credit(&leveraged(), None);
    close(a.value("total_debt"), 900.0 + 100.0);
    close(a.value("debt_to_ebitda"), 1000.0 / 150.0);
    close(a.value("net_debt_to_ebitda"), (1000.0 - 50.0) / 150.0);
    close(a.value("ebit_interest_coverage"), 100.0 / 60.0);
    close(a.value("ebitda_interest_coverage"), 150.0 / 60.0);
    close(a.value("debt_to_equity"), 1000.0 / 150.0);
    close(a.value("ffo_to_debt"), (150.0 - 60.0 - 10.0) / 1000.0);
    let rating = a.rating.expect("rated");
    // Coverage 1.667 is in (1.50, 1.75]: B, 3.00 %, PD 3 %.
    assert_eq!((rating.grade, rating.spread, rating.pd), (Grade::B, 0.03, 0.03));
    assert_eq!(a.risk_profile, Some(FinancialRiskProfile::HighlyLeveraged));
    let z = a.altman.expect("altman computed");
    let by_hand = 6.56 * (-50.0 / 1300.0) + 3.26 * (-50.0 / 1300.0) + 6.72 * (100.0 / 1300.0) + 1.05 * (150.0 / 1150.0);
    assert!((z.score - by_hand).abs() < 1e-12);
    assert_eq!(z.zone, AltmanZone::Distress);
    assert!(a.piotroski.is_none());
}

#[test]
fn merton_distance_to_default_follows_bharath_shumway() {
    let market = MarketInputs { equity_market_value: 300.0, equity_volatility: 0.6, equity_return: -0.2 };
    let a = analyse_credit(&leveraged(), Some(market));
    let m = a.merton.expect("merton computed");
    // F = short-term 100 + 0.5 × 900 = 550; V = 850; σ_D = 0.05 + 0.25 × 0.6 = 0.2.
    let sigma_v = (300.0 / 850.0) * 0.6 + (550.0 / 850.0) * 0.2;
    let dd = ((850.0f64 / 550.0).ln() + (-0.2 - sigma_v * sigma_v / 2.0)) / sigma_v;
    assert!((m.distance_to_default - dd).abs() < 1e-12);
    assert!((m.distance_to_default - 0.519_137_145_978_877_7).abs() < 1e-9);
    // N(−0.519137…) from Python's statistics.NormalDist.
    assert!((m.pd - 0.301_832_553_144_938_3).abs() < 1e-12);
}

#[test]
fn company_with_missing_lines_lists_what_is_missing_and_computes_the_rest() {
    let a = analyse_credit(&sparse(), None);
    close(a.value("ebit_margin"), 30.0 / 300.0);
    assert!(a.value("ebitda").is_none());
    assert!(a.value("debt_to_ebitda").is_none());
    assert!(a.rating.is_none());
    assert!(a.altman.is_none());
    assert!(a.risk_profile.is_none());
    for expected in [
        "ebitda: depreciation_amortization not reported",
        "debt_to_ebitda: total_debt, ebitda not reported",
        "ebit_interest_coverage: interest_expense not reported",
        "revenue_growth: needs a prior fiscal year",
        "synthetic_rating: needs ebit_interest_coverage",
    ] {
        assert!(a.missing_inputs.iter().any(|m| m == expected), "missing {expected:?} in {:?}", a.missing_inputs);
    }
}

#[test]
fn loss_making_company_gets_a_d_grade_and_negative_margins() {
    let a = analyse_credit(&loss_making(), None);
    close(a.value("net_margin"), -50.0 / 500.0);
    close(a.value("ebitda"), -30.0 + 40.0);
    close(a.value("debt_to_ebitda"), 300.0 / 10.0);
    close(a.value("ebit_interest_coverage"), -30.0 / 25.0);
    close(a.value("free_cash_flow"), -10.0 - 30.0);
    close(a.value("total_debt"), 300.0);
    let rating = a.rating.expect("rated");
    assert_eq!((rating.grade, rating.pd), (Grade::D, 1.0));
    assert_eq!(a.risk_profile, Some(FinancialRiskProfile::HighlyLeveraged));
    // Total liabilities are derived as 800 − 250 = 550.
    let z = a.altman.expect("altman computed");
    let by_hand = 6.56 * (-20.0 / 800.0) + 3.26 * (-120.0 / 800.0) + 6.72 * (-30.0 / 800.0) + 1.05 * (250.0 / 550.0);
    assert!((z.score - by_hand).abs() < 1e-12);
}

#[test]
fn negative_ebitda_leaves_leverage_out_and_counts_as_highly_leveraged() {
    let mut years = loss_making().years().to_vec();
    years[0].operating_income = Some(-60.0);
    let a = analyse_credit(&CompanyFinancials::new("Burn Co", None, years), None);
    close(a.value("ebitda"), -60.0 + 40.0);
    assert!(a.value("debt_to_ebitda").is_none());
    assert!(a.missing_inputs.iter().any(|m| m == "debt_to_ebitda: ebitda is not positive"));
    assert_eq!(a.risk_profile, Some(FinancialRiskProfile::HighlyLeveraged));
}

#[test]
fn company_without_statements_yields_an_empty_analysis() {
    let a = analyse_credit(&CompanyFinancials::new("Empty", None, Vec::new()), None);
    assert!(a.metrics.is_empty());
    assert_eq!(a.missing_inputs, vec!["all metrics: no fiscal year reported".to_owned()]);
}

fn line() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        Just(Some(0.0)),
        Just(Some(f64::NAN)),
        Just(Some(f64::INFINITY)),
        (-1e12f64..1e12).prop_map(Some),
        (-10.0f64..10.0).prop_map(Some),
    ]
}

fn year(end: Date) -> impl Strategy<Value = FiscalYearStatement> {
    (proptest::collection::vec(line(), 26), Just(end)).prop_map(|(v, end)| {
        let mut y = FiscalYearStatement::empty(end);
        let fields: [&mut Option<f64>; 26] = [
            &mut y.revenue,
            &mut y.gross_profit,
            &mut y.operating_income,
            &mut y.net_income,
            &mut y.depreciation_amortization,
            &mut y.interest_expense,
            &mut y.income_tax,
            &mut y.total_assets,
            &mut y.current_assets,
            &mut y.total_liabilities,
            &mut y.current_liabilities,
            &mut y.long_term_debt_noncurrent,
            &mut y.long_term_debt_current,
            &mut y.long_term_debt,
            &mut y.short_term_borrowings,
            &mut y.commercial_paper,
            &mut y.finance_leases,
            &mut y.equity,
            &mut y.cash,
            &mut y.short_term_investments,
            &mut y.retained_earnings,
            &mut y.receivables,
            &mut y.inventory,
            &mut y.cash_from_operations,
            &mut y.capital_expenditure,
            &mut y.shares_outstanding,
        ];
        for (field, value) in fields.into_iter().zip(v) {
            *field = value;
        }
        y
    })
}

pub(crate) fn company() -> impl Strategy<Value = CompanyFinancials> {
    (year(date!(2023 - 12 - 31)), year(date!(2022 - 12 - 31)), year(date!(2021 - 12 - 31)))
        .prop_map(|(a, b, c)| CompanyFinancials::new("Random", None, vec![a, b, c]))
}

fn market() -> impl Strategy<Value = Option<MarketInputs>> {
    prop_oneof![
        Just(None),
        (-1e9f64..1e12, -1.0f64..3.0, -1.0f64..2.0).prop_map(|(e, s, r)| Some(MarketInputs {
            equity_market_value: e,
            equity_volatility: s,
            equity_return: r
        })),
    ]
}

proptest! {
    #[test]
    fn no_metric_is_ever_nan_or_infinite(company in company(), market in market()) {
        let a = analyse_credit(&company, market);
        for m in &a.metrics {
            prop_assert!(m.value.is_finite(), "{} = {}", m.name, m.value);
            for input in &m.inputs {
                prop_assert!(input.value.is_finite(), "{} input {} = {}", m.name, input.name, input.value);
            }
        }
        if let Some(z) = &a.altman { prop_assert!(z.score.is_finite()); }
        if let Some(m) = &a.merton { prop_assert!(m.distance_to_default.is_finite() && (0.0..=1.0).contains(&m.pd)); }
        if let Some(r) = &a.rating { prop_assert!((0.0..=1.0).contains(&r.pd)); }
    }
}
