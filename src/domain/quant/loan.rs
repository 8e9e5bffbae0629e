//! Assessment of a loan application against the borrower's latest statements: pro-forma leverage,
//! interest coverage and DSCR with the new debt, the synthetic grade and PD that coverage implies, LGD,
//! EAD, Basel IRB capital, RWA and expected loss, an indicative price with its RAROC floor, and a
//! recommendation with reasons and suggested covenants (DOMAIN.md §1).
//!
//! Every assumption (amortisation, rate, revolver usage, LGD, thresholds) lives in [`LoanPolicy`], whose
//! `Default` documents illustrative values a credit committee is expected to replace.

use serde::Serialize;

use super::basel::{IrbCapital, RarocParameters, irb_corporate_capital, raroc_minimum_spread};
use super::credit::{CreditAnalysis, CreditTables, MetricBook, analyse_credit_with};
use super::display::{multiple, percent};
use super::labels;
use super::rating::Grade;
use super::statements::{CompanyFinancials, finite};
use super::{Metric, Unit};

/// The facility asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoanType {
    TermLoan,
    Revolving,
    Bridge,
    Other,
}

impl LoanType {
    pub fn as_str(&self) -> &'static str {
        match self {
            LoanType::TermLoan => "term_loan",
            LoanType::Revolving => "revolving",
            LoanType::Bridge => "bridge",
            LoanType::Other => "other",
        }
    }
}

/// Rank of the claim in insolvency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Seniority {
    SeniorSecured,
    SeniorUnsecured,
    Subordinated,
}

/// Why a loan request was refused before any analysis.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum LoanRequestError {
    #[error("the loan amount must be a positive, finite number")]
    InvalidAmount,
}

/// A loan application: commitment amount (statements' currency), facility type and seniority.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LoanRequest {
    amount: f64,
    loan_type: LoanType,
    seniority: Seniority,
}

impl LoanRequest {
    /// # Errors
    /// [`LoanRequestError::InvalidAmount`] for a zero, negative or non-finite amount.
    pub fn new(amount: f64, loan_type: LoanType, seniority: Seniority) -> Result<Self, LoanRequestError> {
        if amount.is_finite() && amount > 0.0 {
            Ok(Self { amount, loan_type, seniority })
        } else {
            Err(LoanRequestError::InvalidAmount)
        }
    }

    pub fn amount(&self) -> f64 {
        self.amount
    }
    pub fn loan_type(&self) -> LoanType {
        self.loan_type
    }
    pub fn seniority(&self) -> Seniority {
        self.seniority
    }
}

/// How a facility type is modelled.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LoanTypeAssumptions {
    /// Straight-line amortisation period: scheduled principal per year = drawn / years. `None` is a
    /// bullet (no scheduled principal in the DSCR).
    pub amortisation_years: Option<f64>,
    /// Tenor in years; also the Basel effective maturity M, clamped to 1–5 years.
    pub tenor_years: f64,
    /// Share of the commitment assumed drawn: EAD = commitment × usage factor, and the drawn amount
    /// is what adds to debt and interest.
    pub usage_factor: f64,
    /// LGD for this facility type instead of the seniority table (e.g. a bridge's).
    pub lgd_override: Option<f64>,
}

/// LGD by seniority. Defaults: Basel II foundation IRB — 45 % senior unsecured, 75 % subordinated
/// (¶287–288); senior secured 35 % (the F-IRB floor for receivables / real-estate collateral, ¶295;
/// verify against the collateral actually taken).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LgdTable {
    pub senior_secured: f64,
    pub senior_unsecured: f64,
    pub subordinated: f64,
}

impl Default for LgdTable {
    fn default() -> Self {
        Self { senior_secured: 0.35, senior_unsecured: 0.45, subordinated: 0.75 }
    }
}

impl LgdTable {
    pub fn lgd(&self, seniority: Seniority) -> f64 {
        match seniority {
            Seniority::SeniorSecured => self.senior_secured,
            Seniority::SeniorUnsecured => self.senior_unsecured,
            Seniority::Subordinated => self.subordinated,
        }
    }
}

/// Thresholds of the recommendation and of the suggested covenants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DecisionThresholds {
    /// Pro-forma debt/EBITDA at or below which leverage supports an approval. Default 3.0x.
    pub approve_max_leverage: f64,
    /// Above this, refer to committee. Default 4.5x.
    pub refer_max_leverage: f64,
    /// Above this, decline. Default 6.0x.
    pub decline_max_leverage: f64,
    /// Pro-forma DSCR at or above which cash flow supports an approval. Default 1.50x.
    pub approve_min_dscr: f64,
    /// Below this, refer (the common 1.20–1.25x bank floor, DOMAIN.md §1, verify). Default 1.25x.
    pub refer_min_dscr: f64,
    /// Below this, decline: cash flow does not service the debt. Default 1.00x.
    pub decline_min_dscr: f64,
    /// PD at or above which to decline. Default 20 % (the CCC/C range).
    pub decline_min_pd: f64,
    /// Headroom added to pro-forma leverage for the maximum-leverage covenant. Default 0.5x.
    pub covenant_leverage_headroom: f64,
    /// Cushion below pro-forma DSCR for the minimum-DSCR covenant (0.20 = 20 % below). Default 20 %.
    pub covenant_dscr_cushion: f64,
    /// Lowest minimum-DSCR covenant suggested. Default 1.20x.
    pub covenant_dscr_floor: f64,
}

impl Default for DecisionThresholds {
    fn default() -> Self {
        Self {
            approve_max_leverage: 3.0,
            refer_max_leverage: 4.5,
            decline_max_leverage: 6.0,
            approve_min_dscr: 1.5,
            refer_min_dscr: 1.25,
            decline_min_dscr: 1.0,
            decline_min_pd: 0.20,
            covenant_leverage_headroom: 0.5,
            covenant_dscr_cushion: 0.20,
            covenant_dscr_floor: 1.20,
        }
    }
}

/// The lender's assumptions and thresholds. Defaults are illustrative, documented per field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoanPolicy {
    /// Reference rate (e.g. SOFR or a swap rate) and the RAROC risk-free rate. Default 4 %.
    pub base_rate: f64,
    /// Default: 5-year straight-line amortisation, 5-year tenor, fully drawn.
    pub term_loan: LoanTypeAssumptions,
    /// Default: interest only, 3-year tenor, 75 % usage (the Basel F-IRB CCF for committed lines).
    pub revolving: LoanTypeAssumptions,
    /// Default: bullet (repaid from take-out financing, not cash flow), 1-year tenor, fully drawn.
    pub bridge: LoanTypeAssumptions,
    /// Default: 7-year straight-line amortisation, 5-year tenor, fully drawn.
    pub other: LoanTypeAssumptions,
    pub lgd: LgdTable,
    pub raroc: RarocParameters,
    pub tables: CreditTables,
    pub thresholds: DecisionThresholds,
}

impl Default for LoanPolicy {
    fn default() -> Self {
        let assume = |amortisation_years, tenor_years, usage_factor| LoanTypeAssumptions {
            amortisation_years,
            tenor_years,
            usage_factor,
            lgd_override: None,
        };
        Self {
            base_rate: 0.04,
            term_loan: assume(Some(5.0), 5.0, 1.0),
            revolving: assume(None, 3.0, 0.75),
            bridge: assume(None, 1.0, 1.0),
            other: assume(Some(7.0), 5.0, 1.0),
            lgd: LgdTable::default(),
            raroc: RarocParameters::default(),
            tables: CreditTables::default(),
            thresholds: DecisionThresholds::default(),
        }
    }
}

impl LoanPolicy {
    pub fn assumptions(&self, loan_type: LoanType) -> LoanTypeAssumptions {
        match loan_type {
            LoanType::TermLoan => self.term_loan,
            LoanType::Revolving => self.revolving,
            LoanType::Bridge => self.bridge,
            LoanType::Other => self.other,
        }
    }
}

/// What the lender should do, worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recommendation {
    Approve,
    ApproveWithConditions,
    Refer,
    Decline,
}

/// One test behind the recommendation: the metric, its value, the threshold it was held to, and the
/// outcome the test alone would give.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionReason {
    /// The metric's stable name.
    pub metric: String,
    /// How an analyst writes the metric ([`labels`]).
    pub label: String,
    /// What the value and the threshold measure.
    pub unit: Unit,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    pub outcome: Recommendation,
    pub statement: String,
}

/// Whether a covenant caps or floors its metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CovenantKind {
    Maximum,
    Minimum,
}

/// A suggested financial covenant, with how it was derived.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Covenant {
    /// The metric's stable name.
    pub metric: String,
    /// How an analyst writes the metric ([`labels`]).
    pub label: String,
    pub kind: CovenantKind,
    pub threshold: f64,
    pub basis: String,
}

/// Indicative pricing: all-in rate = base rate + the grade's spread, beside the RAROC minimum spread.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct IndicativePrice {
    pub base_rate: f64,
    pub grade_spread: f64,
    pub all_in_rate: f64,
    pub raroc_minimum_spread: Option<f64>,
    /// The grade spread is at least the RAROC minimum.
    pub spread_covers_raroc: Option<bool>,
}

/// Everything [`assess_loan`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoanAssessment {
    pub request: LoanRequest,
    pub assumptions: LoanTypeAssumptions,
    /// Stand-alone analysis of the borrower before the new loan.
    pub credit: CreditAnalysis,
    /// Pro-forma and risk figures (`pro_forma_*`, `ead`, `lgd`, `capital_requirement`, …).
    pub metrics: Vec<Metric>,
    /// Grade from pro-forma EBIT interest coverage.
    pub grade: Option<Grade>,
    pub pd: Option<f64>,
    pub lgd: f64,
    pub ead: f64,
    pub capital: Option<IrbCapital>,
    pub price: Option<IndicativePrice>,
    pub recommendation: Recommendation,
    pub reasons: Vec<DecisionReason>,
    pub covenants: Vec<Covenant>,
    pub methodology: Vec<String>,
    pub missing_inputs: Vec<String>,
}

impl LoanAssessment {
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }

    pub fn value(&self, name: &str) -> Option<f64> {
        self.metric(name).map(|m| m.value)
    }
}

/// Assesses `request` for `company` under `policy`.
///
/// Pro-forma figures add the drawn amount (commitment × usage factor) to total debt and its interest at
/// the assumed rate (base rate + the coverage-table spread of the pro-forma grade, found by iterating
/// grade → rate → coverage → grade until the grade is stable). DSCR = (EBITDA − max(income tax, 0)) /
/// (existing interest + new interest + current portion of existing long-term debt + scheduled principal
/// of the new loan); maintenance capex is not deducted. Unreported existing debt or interest is taken
/// as zero and said so in `missing_inputs`.
pub fn assess_loan(company: &CompanyFinancials, request: LoanRequest, policy: &LoanPolicy) -> LoanAssessment {
    let credit = analyse_credit_with(company, None, &policy.tables);
    let assumptions = policy.assumptions(request.loan_type);
    let usage = if assumptions.usage_factor.is_finite() { assumptions.usage_factor.clamp(0.0, 1.0) } else { 1.0 };
    let ead = request.amount * usage;
    let drawn = ead;
    let lgd = assumptions.lgd_override.unwrap_or_else(|| policy.lgd.lgd(request.seniority));
    let maturity = if assumptions.tenor_years.is_finite() { assumptions.tenor_years.clamp(1.0, 5.0) } else { 1.0 };

    let mut book = MetricBook::default();
    let mut methodology = vec![
        format!(
            "Facility {}: EAD = commitment x usage factor {usage}; drawn amount = EAD; {}; tenor {} years (Basel M = {maturity}).",
            request.loan_type.as_str(),
            match assumptions.amortisation_years {
                Some(years) => format!("straight-line amortisation over {years} years"),
                None => "bullet repayment (no scheduled principal)".to_owned(),
            },
            assumptions.tenor_years
        ),
        "Assumed rate = base rate + coverage-table spread of the pro-forma grade (iterated to a stable grade).".to_owned(),
        "Pro-forma DSCR = (EBITDA - max(income tax, 0)) / (interest + new interest + existing scheduled principal + new scheduled principal), the existing principal being the borrower's stated scheduled_principal, else the current portion of long-term debt; maintenance capex not deducted.".to_owned(),
        "Basel IRB corporate formula (CRE31) with the PD floor, no 1.06 scaling, no SME adjustment; EL = PD x LGD x EAD.".to_owned(),
    ];
    book.push(
        "ead",
        Unit::Currency,
        "commitment * usage_factor",
        &[("commitment", request.amount), ("usage_factor", usage)],
        ead,
    );
    book.push("lgd", Unit::Fraction, "LGD table by seniority (or loan-type override)", &[], lgd);

    let latest = company.latest();
    let existing_debt = latest.and_then(|y| y.total_debt());
    let existing_interest = latest.and_then(|y| finite(y.interest_expense));
    if latest.is_some() && existing_debt.is_none() {
        book.missing.push("total_debt: not reported, existing debt taken as zero".to_owned());
    }
    if latest.is_some() && existing_interest.is_none() {
        book.missing.push("interest_expense: not reported, existing interest taken as zero".to_owned());
    }
    let existing_debt = existing_debt.unwrap_or(0.0);
    let existing_interest = existing_interest.unwrap_or(0.0);
    let ebit = latest.and_then(|y| y.ebit());
    let ebitda = latest.and_then(|y| y.ebitda());

    // Grade ↔ rate fixed point: start from the stand-alone grade (BBB when there is none).
    let mut grade = credit.rating.map(|r| r.grade).unwrap_or(Grade::Bbb);
    let mut spread = policy.tables.coverage.spread_for(grade).unwrap_or(0.0);
    let mut pro_forma_grade = None;
    if let Some(ebit) = ebit {
        for _ in 0..Grade::ALL.len() {
            let interest = existing_interest + drawn * (policy.base_rate + spread);
            let Some(band) = (interest > 0.0).then(|| policy.tables.coverage.rate(ebit / interest)).flatten() else {
                break;
            };
            pro_forma_grade = Some(band.grade);
            if band.grade == grade {
                break;
            }
            grade = band.grade;
            spread = band.spread;
        }
    }
    let assumed_rate = policy.base_rate + spread;
    let new_interest = drawn * assumed_rate;
    let pro_forma_interest = existing_interest + new_interest;
    let pro_forma_debt = existing_debt + drawn;
    book.push(
        "assumed_rate",
        Unit::Fraction,
        "base_rate + grade_spread",
        &[("base_rate", policy.base_rate), ("grade_spread", spread)],
        assumed_rate,
    );
    book.push(
        "pro_forma_total_debt",
        Unit::Currency,
        "total_debt + drawn",
        &[("total_debt", existing_debt), ("drawn", drawn)],
        pro_forma_debt,
    );
    book.push(
        "pro_forma_interest_expense",
        Unit::Currency,
        "interest_expense + drawn * assumed_rate",
        &[("interest_expense", existing_interest), ("drawn", drawn), ("assumed_rate", assumed_rate)],
        pro_forma_interest,
    );
    let leverage = book.ratio(
        "pro_forma_debt_to_ebitda",
        Unit::Ratio,
        "pro_forma_total_debt / ebitda",
        ("pro_forma_total_debt", Some(pro_forma_debt)),
        ("ebitda", ebitda),
    );
    let ebit_coverage = book.ratio(
        "pro_forma_ebit_interest_coverage",
        Unit::Ratio,
        "ebit / pro_forma_interest_expense",
        ("ebit", ebit),
        ("pro_forma_interest_expense", Some(pro_forma_interest)),
    );
    book.ratio(
        "pro_forma_ebitda_interest_coverage",
        Unit::Ratio,
        "ebitda / pro_forma_interest_expense",
        ("ebitda", ebitda),
        ("pro_forma_interest_expense", Some(pro_forma_interest)),
    );
    let new_principal = assumptions.amortisation_years.filter(|y| *y > 0.0).map_or(0.0, |years| drawn / years);
    // The borrower's own schedule when it states one; else the current portion of long-term debt,
    // which is what falls due within the year.
    let existing_principal =
        latest.and_then(|y| finite(y.scheduled_principal).or(finite(y.long_term_debt_current))).unwrap_or(0.0);
    let income_tax = latest.and_then(|y| finite(y.income_tax));
    let dscr = book.compute(
        "pro_forma_dscr",
        Unit::Ratio,
        "(ebitda - max(income_tax, 0)) / (pro_forma_interest_expense + existing_scheduled_principal + new_scheduled_principal)",
        &[
            ("ebitda", ebitda),
            ("income_tax", income_tax),
            ("pro_forma_interest_expense", Some(pro_forma_interest)),
            ("existing_scheduled_principal", Some(existing_principal)),
            ("new_scheduled_principal", Some(new_principal)),
        ],
        |v| {
            let service = v[2] + v[3] + v[4];
            if service > 0.0 { Ok((v[0] - v[1].max(0.0)) / service) } else { Err("no debt service".to_owned()) }
        },
    );

    let grade = pro_forma_grade;
    let pd = grade.map(|g| policy.tables.pd.pd(g));
    let capital = pd.and_then(|pd| irb_corporate_capital(pd, lgd, ead, maturity));
    if let (Some(g), Some(pd)) = (grade, pd) {
        book.push(
            "pro_forma_pd",
            Unit::Fraction,
            "one-year PD of the pro-forma grade, floored",
            &[("grade_notch", f64::from(g.notch())), ("pd_floor", policy.tables.pd.floor)],
            pd,
        );
    } else {
        book.missing.push("pro_forma_pd: needs a pro-forma grade (EBIT and interest)".to_owned());
    }
    if let Some(c) = &capital {
        let basel_inputs = [("pd", c.pd), ("lgd", c.lgd), ("maturity", c.maturity)];
        book.push(
            "asset_correlation",
            Unit::Fraction,
            "0.12*w + 0.24*(1 - w), w = (1 - e^(-50 PD))/(1 - e^(-50))",
            &[("pd", c.pd)],
            c.correlation,
        );
        book.push(
            "capital_requirement",
            Unit::Fraction,
            "IRB K per unit of EAD (CRE31.4)",
            &basel_inputs,
            c.capital_requirement,
        );
        book.push(
            "risk_weight",
            Unit::Fraction,
            "12.5 * K",
            &[("capital_requirement", c.capital_requirement)],
            c.risk_weight,
        );
        book.push(
            "risk_weighted_assets",
            Unit::Currency,
            "12.5 * K * EAD",
            &[("capital_requirement", c.capital_requirement), ("ead", c.ead)],
            c.risk_weighted_assets,
        );
        book.push(
            "expected_loss",
            Unit::Currency,
            "PD * LGD * EAD",
            &[("pd", c.pd), ("lgd", c.lgd), ("ead", c.ead)],
            c.expected_loss,
        );
    }
    let raroc = match (pd, &capital) {
        (Some(pd), Some(c)) => raroc_minimum_spread(
            pd,
            lgd,
            c.capital_requirement,
            policy.base_rate,
            assumptions.tenor_years,
            &policy.raroc,
        ),
        _ => None,
    };
    if let (Some(min), Some(pd), Some(c)) = (raroc, pd, &capital) {
        book.push(
            "raroc_minimum_spread",
            Unit::Fraction,
            "PD*LGD + operating_cost + K*(hurdle - base_rate) - upfront_fees/tenor",
            &[
                ("pd", pd),
                ("lgd", lgd),
                ("operating_cost", policy.raroc.operating_cost),
                ("capital_requirement", c.capital_requirement),
                ("hurdle_rate", policy.raroc.hurdle_rate),
                ("base_rate", policy.base_rate),
                ("upfront_fees", policy.raroc.upfront_fees),
                ("tenor_years", assumptions.tenor_years),
            ],
            min,
        );
    }
    let price = grade.and_then(|g| policy.tables.coverage.spread_for(g)).map(|grade_spread| IndicativePrice {
        base_rate: policy.base_rate,
        grade_spread,
        all_in_rate: policy.base_rate + grade_spread,
        raroc_minimum_spread: raroc,
        spread_covers_raroc: raroc.map(|min| grade_spread >= min),
    });

    let t = &policy.thresholds;
    let mut reasons = Vec::new();
    reasons.push(leverage_reason(leverage, ebitda, t));
    reasons.push(dscr_reason(dscr, t));
    reasons.push(grade_reason(grade, pd, ebit_coverage, t));
    if let Some(p) = &price {
        reasons.push(pricing_reason(p));
    }
    let recommendation = reasons.iter().map(|r| r.outcome).max().unwrap_or(Recommendation::Refer);
    let covenants = suggest_covenants(leverage, dscr, t);

    let mut missing_inputs = credit.missing_inputs.clone();
    missing_inputs.extend(book.missing);
    methodology.extend(credit.methodology.iter().cloned());
    LoanAssessment {
        request,
        assumptions,
        credit,
        metrics: book.metrics,
        grade,
        pd,
        lgd,
        ead,
        capital,
        price,
        recommendation,
        reasons,
        covenants,
        methodology,
        missing_inputs,
    }
}

fn reason(
    metric: &str,
    value: Option<f64>,
    threshold: Option<f64>,
    outcome: Recommendation,
    statement: String,
) -> DecisionReason {
    DecisionReason {
        metric: metric.to_owned(),
        label: labels::label(metric),
        unit: labels::unit(metric),
        value,
        threshold,
        outcome,
        statement,
    }
}

fn leverage_reason(leverage: Option<f64>, ebitda: Option<f64>, t: &DecisionThresholds) -> DecisionReason {
    const METRIC: &str = "pro_forma_debt_to_ebitda";
    match leverage {
        None if ebitda.is_some_and(|e| e <= 0.0) => reason(
            "ebitda",
            ebitda,
            Some(0.0),
            Recommendation::Decline,
            "EBITDA is not positive: the business does not generate cash to service debt.".to_owned(),
        ),
        None => reason(
            METRIC,
            None,
            None,
            Recommendation::Refer,
            "Pro-forma leverage cannot be computed: EBITDA not reported.".to_owned(),
        ),
        Some(l) if l > t.decline_max_leverage => reason(
            METRIC,
            Some(l),
            Some(t.decline_max_leverage),
            Recommendation::Decline,
            format!(
                "Pro-forma debt / EBITDA {} exceeds the {} decline threshold.",
                multiple(l),
                multiple(t.decline_max_leverage)
            ),
        ),
        Some(l) if l > t.refer_max_leverage => reason(
            METRIC,
            Some(l),
            Some(t.refer_max_leverage),
            Recommendation::Refer,
            format!(
                "Pro-forma debt / EBITDA {} exceeds {}: committee decision.",
                multiple(l),
                multiple(t.refer_max_leverage)
            ),
        ),
        Some(l) if l > t.approve_max_leverage => reason(
            METRIC,
            Some(l),
            Some(t.approve_max_leverage),
            Recommendation::ApproveWithConditions,
            format!(
                "Pro-forma debt / EBITDA {} exceeds {}: a leverage covenant is needed.",
                multiple(l),
                multiple(t.approve_max_leverage)
            ),
        ),
        Some(l) => reason(
            METRIC,
            Some(l),
            Some(t.approve_max_leverage),
            Recommendation::Approve,
            format!("Pro-forma debt / EBITDA {} is within {}.", multiple(l), multiple(t.approve_max_leverage)),
        ),
    }
}

fn dscr_reason(dscr: Option<f64>, t: &DecisionThresholds) -> DecisionReason {
    const METRIC: &str = "pro_forma_dscr";
    match dscr {
        None => reason(
            METRIC,
            None,
            None,
            Recommendation::Refer,
            "Pro-forma DSCR cannot be computed: EBITDA or income tax not reported.".to_owned(),
        ),
        Some(d) if d < t.decline_min_dscr => reason(
            METRIC,
            Some(d),
            Some(t.decline_min_dscr),
            Recommendation::Decline,
            format!(
                "Pro-forma DSCR {} is below {}: cash flow does not cover debt service.",
                multiple(d),
                multiple(t.decline_min_dscr)
            ),
        ),
        Some(d) if d < t.refer_min_dscr => reason(
            METRIC,
            Some(d),
            Some(t.refer_min_dscr),
            Recommendation::Refer,
            format!(
                "Pro-forma DSCR {} is below the {} floor: committee decision.",
                multiple(d),
                multiple(t.refer_min_dscr)
            ),
        ),
        Some(d) if d < t.approve_min_dscr => reason(
            METRIC,
            Some(d),
            Some(t.approve_min_dscr),
            Recommendation::ApproveWithConditions,
            format!(
                "Pro-forma DSCR {} is below {}: a minimum-DSCR covenant is needed.",
                multiple(d),
                multiple(t.approve_min_dscr)
            ),
        ),
        Some(d) => reason(
            METRIC,
            Some(d),
            Some(t.approve_min_dscr),
            Recommendation::Approve,
            format!("Pro-forma DSCR {} is at least {}.", multiple(d), multiple(t.approve_min_dscr)),
        ),
    }
}

fn grade_reason(
    grade: Option<Grade>,
    pd: Option<f64>,
    coverage: Option<f64>,
    t: &DecisionThresholds,
) -> DecisionReason {
    const METRIC: &str = "pro_forma_pd";
    match (grade, pd) {
        (Some(g), Some(pd)) if pd >= t.decline_min_pd => reason(
            METRIC,
            Some(pd),
            Some(t.decline_min_pd),
            Recommendation::Decline,
            format!(
                "Pro-forma grade {g} (PD {}) is at or beyond the {} PD limit.",
                percent(pd),
                percent(t.decline_min_pd)
            ),
        ),
        (Some(g), Some(pd)) if !g.is_investment_grade() => reason(
            METRIC,
            Some(pd),
            Some(t.decline_min_pd),
            Recommendation::ApproveWithConditions,
            format!(
                "Pro-forma grade {g} (EBIT coverage {}, PD {}) is below investment grade.",
                coverage.map_or("n/a".to_owned(), multiple),
                percent(pd)
            ),
        ),
        (Some(g), Some(pd)) => reason(
            METRIC,
            Some(pd),
            Some(t.decline_min_pd),
            Recommendation::Approve,
            format!("Pro-forma grade {g} (PD {}) is investment grade.", percent(pd)),
        ),
        _ => reason(METRIC, None, None, Recommendation::Refer, "No pro-forma grade: EBIT not reported.".to_owned()),
    }
}

fn pricing_reason(price: &IndicativePrice) -> DecisionReason {
    const METRIC: &str = "raroc_minimum_spread";
    match price.raroc_minimum_spread {
        Some(min) if price.grade_spread < min => reason(
            METRIC,
            Some(price.grade_spread),
            Some(min),
            Recommendation::ApproveWithConditions,
            format!(
                "The grade spread {} is below the RAROC minimum {}: price at the RAROC minimum or better.",
                percent(price.grade_spread),
                percent(min)
            ),
        ),
        Some(min) => reason(
            METRIC,
            Some(price.grade_spread),
            Some(min),
            Recommendation::Approve,
            format!("The grade spread {} covers the RAROC minimum {}.", percent(price.grade_spread), percent(min)),
        ),
        None => reason(METRIC, None, None, Recommendation::Approve, "RAROC minimum spread not computed.".to_owned()),
    }
}

/// Maximum leverage = pro-forma leverage + headroom, rounded up to 0.25x; minimum DSCR = pro-forma DSCR
/// less the cushion, rounded down to 0.05x, never below the floor.
fn suggest_covenants(leverage: Option<f64>, dscr: Option<f64>, t: &DecisionThresholds) -> Vec<Covenant> {
    let mut covenants = Vec::new();
    if let Some(l) = leverage.filter(|l| *l >= 0.0) {
        covenants.push(Covenant {
            metric: "debt_to_ebitda".to_owned(),
            label: labels::label("debt_to_ebitda"),
            kind: CovenantKind::Maximum,
            threshold: ((l + t.covenant_leverage_headroom) * 4.0).ceil() / 4.0,
            basis: format!(
                "pro-forma {} + {} headroom, rounded up to {}",
                multiple(l),
                multiple(t.covenant_leverage_headroom),
                multiple(0.25)
            ),
        });
    }
    if let Some(d) = dscr {
        let cushioned = (d * (1.0 - t.covenant_dscr_cushion) * 20.0).floor() / 20.0;
        covenants.push(Covenant {
            metric: "dscr".to_owned(),
            label: labels::label("dscr"),
            kind: CovenantKind::Minimum,
            threshold: cushioned.max(t.covenant_dscr_floor),
            basis: format!(
                "pro-forma {} less {} cushion, rounded down to {}, floor {}",
                multiple(d),
                percent(t.covenant_dscr_cushion),
                multiple(0.05),
                multiple(t.covenant_dscr_floor)
            ),
        });
    }
    covenants
}

#[cfg(test)]
mod tests {
    use super::super::credit::fixtures::{healthy, leveraged, loss_making, sparse};
    use super::*;

    fn close(actual: Option<f64>, expected: f64) {
        let actual = actual.expect("metric present");
        assert!((actual - expected).abs() < 1e-9, "got {actual}, want {expected}");
    }

    fn term_loan(amount: f64) -> LoanRequest {
        LoanRequest::new(amount, LoanType::TermLoan, Seniority::SeniorUnsecured).expect("valid amount")
    }

    #[test]
    fn loan_request_rejects_non_positive_and_non_finite_amounts() {
        for amount in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                LoanRequest::new(amount, LoanType::Other, Seniority::Subordinated),
                Err(LoanRequestError::InvalidAmount)
            );
        }
    }

    #[test]
    fn term_loan_to_a_healthy_company_has_hand_computed_pro_forma_figures() {
        let a = assess_loan(&healthy(), term_loan(200.0), &LoanPolicy::default());
        // Stand-alone AAA (0.45 %): interest 20 + 200 × 4.45 % = 28.9, EBIT cover 200/28.9 = 6.92 → AA;
        // at AA (0.60 %): 20 + 200 × 4.6 % = 29.2, cover 6.85 → AA again, stable.
        assert_eq!(a.grade, Some(Grade::Aa));
        close(a.value("assumed_rate"), 0.04 + 0.006);
        close(a.value("pro_forma_interest_expense"), 20.0 + 200.0 * 0.046);
        close(a.value("pro_forma_total_debt"), 400.0 + 200.0);
        close(a.value("pro_forma_debt_to_ebitda"), 600.0 / 250.0);
        close(a.value("pro_forma_ebit_interest_coverage"), 200.0 / 29.2);
        close(a.value("pro_forma_ebitda_interest_coverage"), 250.0 / 29.2);
        // (EBITDA 250 − tax 40) / (interest 29.2 + current LTD 50 + 200/5 amortisation).
        close(a.value("pro_forma_dscr"), (250.0 - 40.0) / (29.2 + 50.0 + 40.0));
        assert_eq!(a.pd, Some(0.0005));
        assert_eq!((a.lgd, a.ead), (0.45, 200.0));
        let capital = a.capital.expect("capital computed");
        assert_eq!(capital.maturity, 5.0);
        // K from Python (statistics.NormalDist) for PD 0.05 %, LGD 45 %, M 5.
        assert!((capital.capital_requirement - 0.026_965_930_554_582_95).abs() < 1e-9);
        assert!((capital.risk_weighted_assets - 12.5 * capital.capital_requirement * 200.0).abs() < 1e-9);
        assert!((capital.expected_loss - 0.0005 * 0.45 * 200.0).abs() < 1e-12);
        let price = a.price.expect("priced");
        assert_eq!(price.all_in_rate, 0.04 + 0.006);
        let raroc = 0.0005 * 0.45 + 0.005 + capital.capital_requirement * (0.12 - 0.04);
        assert!((price.raroc_minimum_spread.expect("raroc") - raroc).abs() < 1e-12);
        assert_eq!(price.spread_covers_raroc, Some(false));
    }

    #[test]
    fn healthy_term_loan_is_approved_with_a_pricing_condition_and_covenants() {
        let a = assess_loan(&healthy(), term_loan(200.0), &LoanPolicy::default());
        assert_eq!(a.recommendation, Recommendation::ApproveWithConditions);
        let conditions: Vec<&str> = a
            .reasons
            .iter()
            .filter(|r| r.outcome == Recommendation::ApproveWithConditions)
            .map(|r| r.metric.as_str())
            .collect();
        assert_eq!(conditions, vec!["raroc_minimum_spread"]);
        // Max leverage: 2.4 + 0.5 = 2.9, rounded up to 3.00. Min DSCR: 1.7617 × 0.8 = 1.409 → 1.40.
        let max_leverage = a.covenants.iter().find(|c| c.metric == "debt_to_ebitda").expect("leverage covenant");
        assert_eq!((max_leverage.kind, max_leverage.threshold), (CovenantKind::Maximum, 3.0));
        let min_dscr = a.covenants.iter().find(|c| c.metric == "dscr").expect("dscr covenant");
        assert_eq!((min_dscr.kind, min_dscr.threshold), (CovenantKind::Minimum, 1.40));
        assert_eq!((max_leverage.label.as_str(), min_dscr.label.as_str()), ("Debt / EBITDA", "DSCR"));
        assert_eq!(min_dscr.basis, "pro-forma 1.76× less 20.0% cushion, rounded down to 0.05×, floor 1.20×");
        let pricing = a.reasons.iter().find(|r| r.metric == "raroc_minimum_spread").expect("pricing reason");
        assert_eq!((pricing.label.as_str(), pricing.unit), ("RAROC minimum spread", Unit::Fraction));
    }

    #[test]
    fn revolver_exposure_is_commitment_times_usage_factor_with_interest_only_service() {
        let a = assess_loan(
            &healthy(),
            LoanRequest::new(400.0, LoanType::Revolving, Seniority::SeniorSecured).expect("valid"),
            &LoanPolicy::default(),
        );
        assert_eq!(a.ead, 400.0 * 0.75);
        assert_eq!(a.lgd, 0.35);
        assert_eq!(a.capital.expect("capital").maturity, 3.0);
        let interest = a.value("pro_forma_interest_expense").expect("interest");
        // No scheduled principal on the revolver; the existing current LTD of 50 stays.
        close(a.value("pro_forma_dscr"), (250.0 - 40.0) / (interest + 50.0));
    }

    #[test]
    fn large_loan_to_a_leveraged_company_is_declined_for_leverage() {
        let a = assess_loan(&leveraged(), term_loan(500.0), &LoanPolicy::default());
        close(a.value("pro_forma_debt_to_ebitda"), (1000.0 + 500.0) / 150.0);
        assert_eq!(a.recommendation, Recommendation::Decline);
        let leverage = a.reasons.iter().find(|r| r.metric == "pro_forma_debt_to_ebitda").expect("leverage reason");
        assert_eq!((leverage.outcome, leverage.threshold), (Recommendation::Decline, Some(6.0)));
    }

    #[test]
    fn loss_making_company_is_declined_and_its_default_grade_carries_no_ul_capital() {
        let a = assess_loan(&loss_making(), term_loan(50.0), &LoanPolicy::default());
        assert_eq!(a.recommendation, Recommendation::Decline);
        assert_eq!(a.grade, Some(Grade::D));
        let capital = a.capital.expect("capital");
        assert_eq!(capital.capital_requirement, 0.0);
        assert_eq!(capital.expected_loss, 0.45 * 50.0);
    }

    #[test]
    fn missing_ebitda_and_interest_leads_to_refer_with_the_gaps_listed() {
        let a = assess_loan(&sparse(), term_loan(100.0), &LoanPolicy::default());
        assert_eq!(a.recommendation, Recommendation::Refer);
        assert!(a.missing_inputs.iter().any(|m| m.starts_with("interest_expense: not reported")));
        assert!(a.missing_inputs.iter().any(|m| m.starts_with("pro_forma_debt_to_ebitda")));
        assert!(a.metrics.iter().all(|m| m.value.is_finite()));
    }
}
