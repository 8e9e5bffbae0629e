//! Regulatory capital for a corporate exposure under the Basel IRB approach (Basel II ¶272, Basel
//! framework CRE31), the standard normal distribution functions it needs, and the risk-based minimum
//! spread (RAROC) that prices the capital (DOMAIN.md §1).

use serde::Serialize;

/// Standard normal cumulative distribution N(x).
///
/// Hart's (1968) double-precision rational approximation in the form published by G. West, "Better
/// approximations to cumulative normal functions" (Wilmott, 2005): absolute error below 1e-14 over
/// the whole line, with a continued fraction for |x| ≥ 7.07 and exact 0/1 beyond |x| > 37.
pub fn normal_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let z = x.abs();
    let tail = if z > 37.0 {
        0.0
    } else {
        let e = (-z * z / 2.0).exp();
        if z < 7.071_067_811_865_47 {
            let numerator = horner(
                &[
                    3.526_249_659_989_11e-2,
                    0.700_383_064_443_688,
                    6.373_962_203_531_65,
                    33.912_866_078_383,
                    112.079_291_497_871,
                    221.213_596_169_931,
                    220.206_867_912_376,
                ],
                z,
            );
            let denominator = horner(
                &[
                    8.838_834_764_831_84e-2,
                    1.755_667_163_182_64,
                    16.064_177_579_207,
                    86.780_732_202_946_1,
                    296.564_248_779_674,
                    637.333_633_378_831,
                    793.826_512_519_948,
                    440.413_735_824_752,
                ],
                z,
            );
            e * numerator / denominator
        } else {
            let fraction = z + 1.0 / (z + 2.0 / (z + 3.0 / (z + 4.0 / (z + 0.65))));
            e / fraction / 2.506_628_274_631
        }
    };
    if x > 0.0 { 1.0 - tail } else { tail }
}

/// Polynomial with coefficients highest power first, evaluated by Horner's rule.
fn horner(coefficients: &[f64], x: f64) -> f64 {
    coefficients.iter().fold(0.0, |acc, c| acc * x + c)
}

/// Inverse of the standard normal CDF, G(p), for 0 < p < 1; `None` outside that open interval.
///
/// P. J. Acklam's rational approximation (relative error 1.15e-9) followed by one Halley step on
/// [`normal_cdf`], which brings it to about machine precision.
pub fn inverse_normal_cdf(p: f64) -> Option<f64> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    const P_LOW: f64 = 0.02425;

    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < P_LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    };
    // Halley refinement: e = N(x) − p, u = e·√(2π)·exp(x²/2).
    let e = normal_cdf(x) - p;
    let u = e * (2.0 * std::f64::consts::PI).sqrt() * (x * x / 2.0).exp();
    let refined = x - u / (1.0 + x * u / 2.0);
    Some(if refined.is_finite() { refined } else { x })
}

/// Capital and loss figures for one exposure under the IRB corporate formula.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct IrbCapital {
    /// PD used (a fraction; already floored by the caller).
    pub pd: f64,
    pub lgd: f64,
    pub ead: f64,
    /// Effective maturity M in years.
    pub maturity: f64,
    /// Asset correlation R.
    pub correlation: f64,
    /// Maturity adjustment b.
    pub maturity_adjustment: f64,
    /// Capital requirement K per unit of EAD.
    pub capital_requirement: f64,
    /// 12.5·K, the risk weight as a fraction (0.9232 is 92.32 %).
    pub risk_weight: f64,
    /// RWA = 12.5·K·EAD.
    pub risk_weighted_assets: f64,
    /// EL = PD·LGD·EAD.
    pub expected_loss: f64,
}

/// Basel IRB capital for a non-defaulted corporate exposure (Basel II ¶272; CRE31.4–31.5), without the
/// 1.06 scaling factor and without the SME firm-size adjustment:
///
/// ```text
/// R = 0.12·(1 − e^(−50·PD))/(1 − e^(−50)) + 0.24·[1 − (1 − e^(−50·PD))/(1 − e^(−50))]
/// b = (0.11852 − 0.05478·ln PD)²
/// K = [LGD·N((1 − R)^−0.5·G(PD) + (R/(1 − R))^0.5·G(0.999)) − PD·LGD] · (1 − 1.5·b)^−1 · (1 + (M − 2.5)·b)
/// RWA = 12.5·K·EAD ;  EL = PD·LGD·EAD
/// ```
///
/// A defaulted exposure (PD = 1) gets K = 0 and EL = LGD·EAD: the LGD is taken as the best estimate of
/// loss, so CRE31.3's max(0, LGD − EL_BE) is zero. The PD floor is the caller's job (the Basel test
/// vectors go below it). `None` when PD is outside (0, 1], LGD outside [0, 1], EAD negative, M not
/// positive, or any input is not finite.
pub fn irb_corporate_capital(pd: f64, lgd: f64, ead: f64, maturity: f64) -> Option<IrbCapital> {
    let valid = pd.is_finite()
        && lgd.is_finite()
        && ead.is_finite()
        && maturity.is_finite()
        && pd > 0.0
        && pd <= 1.0
        && (0.0..=1.0).contains(&lgd)
        && ead >= 0.0
        && maturity > 0.0;
    if !valid {
        return None;
    }
    if pd >= 1.0 {
        return Some(IrbCapital {
            pd,
            lgd,
            ead,
            maturity,
            correlation: 0.0,
            maturity_adjustment: 0.0,
            capital_requirement: 0.0,
            risk_weight: 0.0,
            risk_weighted_assets: 0.0,
            expected_loss: lgd * ead,
        });
    }
    let weight = (1.0 - (-50.0 * pd).exp()) / (1.0 - (-50.0f64).exp());
    let correlation = 0.12 * weight + 0.24 * (1.0 - weight);
    let maturity_adjustment = (0.11852 - 0.05478 * pd.ln()).powi(2);
    let conditional_pd = normal_cdf(
        (1.0 - correlation).powf(-0.5) * inverse_normal_cdf(pd)?
            + (correlation / (1.0 - correlation)).sqrt() * inverse_normal_cdf(0.999)?,
    );
    let capital_requirement = (lgd * conditional_pd - pd * lgd) / (1.0 - 1.5 * maturity_adjustment)
        * (1.0 + (maturity - 2.5) * maturity_adjustment);
    let capital_requirement = capital_requirement.max(0.0);
    let risk_weight = 12.5 * capital_requirement;
    Some(IrbCapital {
        pd,
        lgd,
        ead,
        maturity,
        correlation,
        maturity_adjustment,
        capital_requirement,
        risk_weight,
        risk_weighted_assets: risk_weight * ead,
        expected_loss: pd * lgd * ead,
    })
}

/// Parameters of the risk-based minimum spread. The defaults are illustrative bank-internal figures,
/// not regulation: set them from the bank's cost and capital policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RarocParameters {
    /// Annual operating cost as a fraction of EAD. Default 0.50 %.
    pub operating_cost: f64,
    /// Required return on equity capital (hurdle rate). Default 12 %.
    pub hurdle_rate: f64,
    /// Up-front fees as a fraction of EAD, spread over the tenor. Default 0.
    pub upfront_fees: f64,
}

impl Default for RarocParameters {
    fn default() -> Self {
        Self { operating_cost: 0.005, hurdle_rate: 0.12, upfront_fees: 0.0 }
    }
}

/// Minimum annual spread over the funding rate for the loan to earn the hurdle on its capital
/// (DOMAIN.md §1): spread ≥ EL + operating cost + K·(hurdle − r_f) − fees/tenor, with EL = PD·LGD per
/// unit of EAD and K per unit of EAD. The capital is assumed invested at the risk-free rate r_f, hence
/// only the excess hurdle is charged. `None` for a non-positive tenor or non-finite inputs.
pub fn raroc_minimum_spread(
    pd: f64,
    lgd: f64,
    capital_requirement: f64,
    risk_free_rate: f64,
    tenor_years: f64,
    parameters: &RarocParameters,
) -> Option<f64> {
    if tenor_years.is_nan() || tenor_years <= 0.0 {
        return None;
    }
    let spread = pd * lgd + parameters.operating_cost + capital_requirement * (parameters.hurdle_rate - risk_free_rate)
        - parameters.upfront_fees / tenor_years;
    spread.is_finite().then_some(spread)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn risk_weight_percent(pd: f64, lgd: f64) -> f64 {
        irb_corporate_capital(pd, lgd, 1.0, 2.5).expect("valid inputs").risk_weight * 100.0
    }

    fn round2(x: f64) -> f64 {
        (x * 100.0).round() / 100.0
    }

    #[test]
    fn irb_risk_weights_match_every_domain_vector_at_lgd_45_percent_and_maturity_2_5() {
        let vectors = [
            (0.0003, 14.44),
            (0.001, 29.65),
            (0.005, 69.61),
            (0.01, 92.32),
            (0.02, 114.85),
            (0.05, 149.85),
            (0.10, 193.09),
            (0.20, 238.23),
        ];
        for (pd, expected) in vectors {
            assert_eq!(round2(risk_weight_percent(pd, 0.45)), expected, "PD {pd}");
        }
    }

    #[test]
    fn irb_risk_weight_at_lgd_40_percent_and_pd_1_percent_is_82_06() {
        assert_eq!(round2(risk_weight_percent(0.01, 0.40)), 82.06);
    }

    #[test]
    fn rwa_and_expected_loss_scale_with_ead() {
        let capital = irb_corporate_capital(0.01, 0.45, 1_000_000.0, 2.5).expect("valid inputs");
        assert!((capital.risk_weighted_assets - 12.5 * capital.capital_requirement * 1_000_000.0).abs() < 1e-6);
        assert!((capital.expected_loss - 0.01 * 0.45 * 1_000_000.0).abs() < 1e-9);
    }

    #[test]
    fn defaulted_exposure_has_no_unexpected_loss_capital() {
        let capital = irb_corporate_capital(1.0, 0.45, 100.0, 2.5).expect("valid inputs");
        assert_eq!(capital.capital_requirement, 0.0);
        assert_eq!(capital.expected_loss, 45.0);
    }

    #[test]
    fn irb_rejects_out_of_range_inputs() {
        assert!(irb_corporate_capital(0.0, 0.45, 1.0, 2.5).is_none());
        assert!(irb_corporate_capital(0.01, 1.2, 1.0, 2.5).is_none());
        assert!(irb_corporate_capital(f64::NAN, 0.45, 1.0, 2.5).is_none());
        assert!(irb_corporate_capital(0.01, 0.45, 1.0, 0.0).is_none());
    }

    #[test]
    fn normal_cdf_matches_reference_values() {
        // References: Python math.erfc, N(x) = erfc(−x/√2)/2.
        let cases = [
            (0.0, 0.5),
            (1.0, 0.841_344_746_068_542_9),
            (-1.96, 0.024_997_895_148_220_435),
            (3.0, 0.998_650_101_968_369_9),
            (-5.0, 2.866_515_718_791_939e-7),
            (-8.0, 6.220_960_574_271_819e-16),
        ];
        for (x, expected) in cases {
            let got = normal_cdf(x);
            assert!((got - expected).abs() <= 1e-14_f64.max(expected * 1e-12), "N({x}) = {got}, want {expected}");
        }
        assert_eq!(normal_cdf(40.0), 1.0);
        assert_eq!(normal_cdf(-40.0), 0.0);
    }

    #[test]
    fn inverse_normal_cdf_matches_known_quantiles() {
        // References: Python statistics.NormalDist().inv_cdf (Wichura AS241).
        let cases = [
            (0.5, 0.0),
            (0.999, 3.090_232_306_167_813),
            (0.975, 1.959_963_984_540_053_6),
            (0.01, -2.326_347_874_040_840_8),
            (1e-10, -6.361_340_902_404_056),
            (0.0003, -3.431_614_403_623_269_6),
        ];
        for (p, expected) in cases {
            let got = inverse_normal_cdf(p).expect("p in (0, 1)");
            assert!((got - expected).abs() < 1e-9, "G({p}) = {got}, want {expected}");
        }
        assert_eq!(inverse_normal_cdf(0.0), None);
        assert_eq!(inverse_normal_cdf(1.0), None);
        assert_eq!(inverse_normal_cdf(f64::NAN), None);
    }

    #[test]
    fn raroc_minimum_spread_adds_el_cost_and_excess_capital_return_less_amortised_fees() {
        let parameters = RarocParameters { operating_cost: 0.005, hurdle_rate: 0.12, upfront_fees: 0.01 };
        let spread = raroc_minimum_spread(0.01, 0.45, 0.08, 0.04, 5.0, &parameters).expect("valid");
        let by_hand = 0.01 * 0.45 + 0.005 + 0.08 * (0.12 - 0.04) - 0.01 / 5.0;
        assert!((spread - by_hand).abs() < 1e-15);
        assert_eq!(raroc_minimum_spread(0.01, 0.45, 0.08, 0.04, 0.0, &parameters), None);
    }
}
