//! Rating tables kept as data: the synthetic rating and default spread from EBIT interest coverage
//! (Damodaran), the S&P-style financial-risk profile from debt/EBITDA, and the one-year probability of
//! default by grade with log-linear notch interpolation and the Basel III PD floor (DOMAIN.md §1).
//!
//! The numbers are published tables that their owners refresh (Damodaran every January) and that
//! DOMAIN.md marks "(verify)": callers may build their own tables; `Default` gives the DOMAIN.md ones.

use std::fmt;

use serde::{Serialize, Serializer};

/// A letter grade on the Damodaran synthetic-rating scale (S&P symbols, best first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grade {
    Aaa,
    Aa,
    APlus,
    A,
    AMinus,
    Bbb,
    BbPlus,
    Bb,
    BPlus,
    B,
    BMinus,
    Ccc,
    Cc,
    C,
    D,
}

impl Grade {
    pub const ALL: [Grade; 15] = [
        Grade::Aaa,
        Grade::Aa,
        Grade::APlus,
        Grade::A,
        Grade::AMinus,
        Grade::Bbb,
        Grade::BbPlus,
        Grade::Bb,
        Grade::BPlus,
        Grade::B,
        Grade::BMinus,
        Grade::Ccc,
        Grade::Cc,
        Grade::C,
        Grade::D,
    ];

    /// The S&P symbol, e.g. `A-`, `BB+`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Grade::Aaa => "AAA",
            Grade::Aa => "AA",
            Grade::APlus => "A+",
            Grade::A => "A",
            Grade::AMinus => "A-",
            Grade::Bbb => "BBB",
            Grade::BbPlus => "BB+",
            Grade::Bb => "BB",
            Grade::BPlus => "B+",
            Grade::B => "B",
            Grade::BMinus => "B-",
            Grade::Ccc => "CCC",
            Grade::Cc => "CC",
            Grade::C => "C",
            Grade::D => "D",
        }
    }

    /// Position on the full S&P notch scale (AAA = 0, AA+ = 1, AA = 2, …, CCC = 17, CC = 20, C = 21,
    /// D = 22), used to interpolate PDs between anchor grades.
    pub fn notch(&self) -> u8 {
        match self {
            Grade::Aaa => 0,
            Grade::Aa => 2,
            Grade::APlus => 4,
            Grade::A => 5,
            Grade::AMinus => 6,
            Grade::Bbb => 8,
            Grade::BbPlus => 10,
            Grade::Bb => 11,
            Grade::BPlus => 13,
            Grade::B => 14,
            Grade::BMinus => 15,
            Grade::Ccc => 17,
            Grade::Cc => 20,
            Grade::C => 21,
            Grade::D => 22,
        }
    }

    /// BBB and better.
    pub fn is_investment_grade(&self) -> bool {
        *self <= Grade::Bbb
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Grade {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One row of the coverage table: coverage strictly above `coverage_above` (and not above the row
/// before) earns `grade` and its default `spread` over the risk-free rate (a fraction).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CoverageBand {
    pub coverage_above: f64,
    pub grade: Grade,
    pub spread: f64,
}

/// EBIT interest coverage → synthetic rating and default spread, rows ordered best grade first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CoverageRatingTable {
    pub bands: Vec<CoverageBand>,
}

impl Default for CoverageRatingTable {
    /// Damodaran's table for large non-financial firms as DOMAIN.md §1 quotes it (verify: the spreads
    /// are refreshed every January at pages.stern.nyu.edu/~adamodar, "ratings, spreads and coverage").
    fn default() -> Self {
        let band = |coverage_above, grade, spread| CoverageBand { coverage_above, grade, spread };
        Self {
            bands: vec![
                band(8.50, Grade::Aaa, 0.0045),
                band(6.50, Grade::Aa, 0.0060),
                band(5.50, Grade::APlus, 0.0077),
                band(4.25, Grade::A, 0.0085),
                band(3.00, Grade::AMinus, 0.0095),
                band(2.50, Grade::Bbb, 0.0120),
                band(2.25, Grade::BbPlus, 0.0155),
                band(2.00, Grade::Bb, 0.0183),
                band(1.75, Grade::BPlus, 0.0261),
                band(1.50, Grade::B, 0.0300),
                band(1.25, Grade::BMinus, 0.0442),
                band(0.80, Grade::Ccc, 0.0728),
                band(0.65, Grade::Cc, 0.1010),
                band(0.20, Grade::C, 0.1550),
                band(f64::NEG_INFINITY, Grade::D, 0.1900),
            ],
        }
    }
}

impl CoverageRatingTable {
    /// The first row (best grade first) whose lower bound the coverage exceeds; `None` for a
    /// non-finite coverage or a table without a catch-all last row.
    pub fn rate(&self, ebit_interest_coverage: f64) -> Option<CoverageBand> {
        if !ebit_interest_coverage.is_finite() {
            return None;
        }
        self.bands.iter().find(|band| ebit_interest_coverage > band.coverage_above).copied()
    }

    /// The default spread the table gives a grade (the row for that grade).
    pub fn spread_for(&self, grade: Grade) -> Option<f64> {
        self.bands.iter().find(|band| band.grade == grade).map(|band| band.spread)
    }
}

/// S&P-style financial-risk profile (Corporate Methodology, core ratio debt/EBITDA).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinancialRiskProfile {
    Minimal,
    Modest,
    Intermediate,
    Significant,
    Aggressive,
    HighlyLeveraged,
}

impl FinancialRiskProfile {
    pub fn as_str(&self) -> &'static str {
        match self {
            FinancialRiskProfile::Minimal => "minimal",
            FinancialRiskProfile::Modest => "modest",
            FinancialRiskProfile::Intermediate => "intermediate",
            FinancialRiskProfile::Significant => "significant",
            FinancialRiskProfile::Aggressive => "aggressive",
            FinancialRiskProfile::HighlyLeveraged => "highly_leveraged",
        }
    }
}

/// Debt/EBITDA upper bounds of each profile (verify; DOMAIN.md §1): below `minimal_below` minimal,
/// then up to and including each bound modest, intermediate, significant, aggressive; above
/// `aggressive_up_to` highly leveraged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RiskProfileTable {
    pub minimal_below: f64,
    pub modest_up_to: f64,
    pub intermediate_up_to: f64,
    pub significant_up_to: f64,
    pub aggressive_up_to: f64,
}

impl Default for RiskProfileTable {
    /// < 1.5 minimal, 1.5–2 modest, 2–3 intermediate, 3–4 significant, 4–5 aggressive, > 5 highly leveraged.
    fn default() -> Self {
        Self {
            minimal_below: 1.5,
            modest_up_to: 2.0,
            intermediate_up_to: 3.0,
            significant_up_to: 4.0,
            aggressive_up_to: 5.0,
        }
    }
}

impl RiskProfileTable {
    /// Profile for a debt/EBITDA multiple; `None` when it is not finite. A negative multiple (net cash
    /// on net-debt leverage) is minimal.
    pub fn classify(&self, debt_to_ebitda: f64) -> Option<FinancialRiskProfile> {
        if !debt_to_ebitda.is_finite() {
            return None;
        }
        Some(if debt_to_ebitda < self.minimal_below {
            FinancialRiskProfile::Minimal
        } else if debt_to_ebitda <= self.modest_up_to {
            FinancialRiskProfile::Modest
        } else if debt_to_ebitda <= self.intermediate_up_to {
            FinancialRiskProfile::Intermediate
        } else if debt_to_ebitda <= self.significant_up_to {
            FinancialRiskProfile::Significant
        } else if debt_to_ebitda <= self.aggressive_up_to {
            FinancialRiskProfile::Aggressive
        } else {
            FinancialRiskProfile::HighlyLeveraged
        })
    }
}

/// One-year probability of default by grade: anchor grades with long-run average default rates,
/// log-linear interpolation between anchors on the notch scale, and a regulatory floor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PdTable {
    /// (grade, one-year PD as a fraction), ordered best grade first.
    pub anchors: Vec<(Grade, f64)>,
    /// Floor applied to every non-defaulted grade (Basel III corporates: 0.05 %).
    pub floor: f64,
}

impl Default for PdTable {
    /// DOMAIN.md §1 (long-run averages, approximate, verify; in the spirit of S&P's annual global
    /// corporate default studies): AAA 0.00 %, AA 0.02 %, A 0.05 %, BBB 0.15 %, BB 0.6 %, B 3 %,
    /// CCC/C ≈ 26 %; D is default (100 %). Floor 0.05 % (Basel III, CRE32.4).
    fn default() -> Self {
        Self {
            anchors: vec![
                (Grade::Aaa, 0.0),
                (Grade::Aa, 0.0002),
                (Grade::A, 0.0005),
                (Grade::Bbb, 0.0015),
                (Grade::Bb, 0.006),
                (Grade::B, 0.03),
                (Grade::Ccc, 0.26),
                (Grade::Cc, 0.26),
                (Grade::C, 0.26),
                (Grade::D, 1.0),
            ],
            floor: 0.0005,
        }
    }
}

impl PdTable {
    /// The floored one-year PD for a grade. Between two anchors the PD is interpolated log-linearly in
    /// the notch distance: ln PD = ln PD_lo + (n − n_lo)/(n_hi − n_lo)·(ln PD_hi − ln PD_lo); an anchor
    /// PD of zero cannot be interpolated in logs, so it is replaced by the floor first. Grades beyond
    /// the anchors take the nearest anchor. Defaulted (D) is 1 and is not floored.
    pub fn pd(&self, grade: Grade) -> f64 {
        let floor = self.floor.max(f64::MIN_POSITIVE);
        let anchor = |value: f64| value.clamp(floor, 1.0);
        let notch = f64::from(grade.notch());
        let raw = if let Some((_, pd)) = self.anchors.iter().find(|(g, _)| *g == grade) {
            anchor(*pd)
        } else {
            let below = self.anchors.iter().filter(|(g, _)| g.notch() < grade.notch()).max_by_key(|(g, _)| g.notch());
            let above = self.anchors.iter().filter(|(g, _)| g.notch() > grade.notch()).min_by_key(|(g, _)| g.notch());
            match (below, above) {
                (Some((lo, pd_lo)), Some((hi, pd_hi))) => {
                    let (n_lo, n_hi) = (f64::from(lo.notch()), f64::from(hi.notch()));
                    let (pd_lo, pd_hi) = (anchor(*pd_lo), anchor(*pd_hi));
                    if pd_lo == pd_hi {
                        pd_lo
                    } else {
                        let weight = (notch - n_lo) / (n_hi - n_lo);
                        (pd_lo.ln() + weight * (pd_hi.ln() - pd_lo.ln())).exp()
                    }
                }
                (Some((_, pd)), None) | (None, Some((_, pd))) => anchor(*pd),
                (None, None) => floor,
            }
        };
        if grade == Grade::D { raw.min(1.0) } else { raw.max(floor).min(1.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_table_matches_every_domain_row_at_and_above_its_bounds() {
        let table = CoverageRatingTable::default();
        let rows = [
            (8.51, Grade::Aaa, 0.0045),
            (8.50, Grade::Aa, 0.0060),
            (6.50, Grade::APlus, 0.0077),
            (5.50, Grade::A, 0.0085),
            (4.25, Grade::AMinus, 0.0095),
            (3.00, Grade::Bbb, 0.0120),
            (2.50, Grade::BbPlus, 0.0155),
            (2.25, Grade::Bb, 0.0183),
            (2.00, Grade::BPlus, 0.0261),
            (1.75, Grade::B, 0.0300),
            (1.50, Grade::BMinus, 0.0442),
            (1.25, Grade::Ccc, 0.0728),
            (0.80, Grade::Cc, 0.1010),
            (0.65, Grade::C, 0.1550),
            (0.20, Grade::D, 0.1900),
            (-3.0, Grade::D, 0.1900),
        ];
        for (coverage, grade, spread) in rows {
            let band = table.rate(coverage).expect("the table has a catch-all row");
            assert_eq!((band.grade, band.spread), (grade, spread), "coverage {coverage}");
        }
        assert_eq!(table.rate(f64::INFINITY), None);
    }

    #[test]
    fn risk_profile_follows_the_domain_bounds() {
        let table = RiskProfileTable::default();
        let cases = [
            (-0.5, FinancialRiskProfile::Minimal),
            (1.49, FinancialRiskProfile::Minimal),
            (1.5, FinancialRiskProfile::Modest),
            (2.0, FinancialRiskProfile::Modest),
            (2.5, FinancialRiskProfile::Intermediate),
            (3.5, FinancialRiskProfile::Significant),
            (5.0, FinancialRiskProfile::Aggressive),
            (5.01, FinancialRiskProfile::HighlyLeveraged),
        ];
        for (leverage, profile) in cases {
            assert_eq!(table.classify(leverage), Some(profile), "leverage {leverage}");
        }
    }

    #[test]
    fn pd_for_anchor_grades_is_the_table_value_floored() {
        let table = PdTable::default();
        assert_eq!(table.pd(Grade::Aaa), 0.0005);
        assert_eq!(table.pd(Grade::Aa), 0.0005);
        assert_eq!(table.pd(Grade::A), 0.0005);
        assert_eq!(table.pd(Grade::Bbb), 0.0015);
        assert_eq!(table.pd(Grade::Bb), 0.006);
        assert_eq!(table.pd(Grade::B), 0.03);
        assert_eq!(table.pd(Grade::Ccc), 0.26);
        assert_eq!(table.pd(Grade::C), 0.26);
        assert_eq!(table.pd(Grade::D), 1.0);
    }

    #[test]
    fn pd_for_notched_grades_is_log_linear_between_anchors() {
        let table = PdTable::default();
        // A- is one notch of three from A (0.05 %) towards BBB (0.15 %): 0.0005 · 3^(1/3).
        assert!((table.pd(Grade::AMinus) - 0.0005 * 3f64.powf(1.0 / 3.0)).abs() < 1e-12);
        // BB+ is two notches of three from BBB (0.15 %) towards BB (0.6 %): 0.0015 · 4^(2/3).
        assert!((table.pd(Grade::BbPlus) - 0.0015 * 4f64.powf(2.0 / 3.0)).abs() < 1e-12);
        // B+ is two of three from BB (0.6 %) towards B (3 %): 0.006 · 5^(2/3).
        assert!((table.pd(Grade::BPlus) - 0.006 * 5f64.powf(2.0 / 3.0)).abs() < 1e-12);
        // B- is one of three from B (3 %) towards CCC (26 %).
        assert!((table.pd(Grade::BMinus) - 0.03 * (0.26f64 / 0.03).powf(1.0 / 3.0)).abs() < 1e-12);
        // A+ sits between AA and A, both at the floor after flooring.
        assert_eq!(table.pd(Grade::APlus), 0.0005);
    }

    #[test]
    fn pd_increases_weakly_down_the_scale() {
        let table = PdTable::default();
        for pair in Grade::ALL.windows(2) {
            assert!(table.pd(pair[0]) <= table.pd(pair[1]), "{} vs {}", pair[0], pair[1]);
        }
    }
}
