//! Credit analysis of a company from its normalised annual statements (and, when known, its equity
//! market value and volatility): growth, margins, leverage, coverage, liquidity, cash flow, Altman Z,
//! Piotroski F, Merton distance to default, the synthetic rating and the financial-risk profile
//! (DOMAIN.md §1).
//!
//! Every figure is a [`Metric`] naming its formula and inputs. A figure whose inputs are unreported, or
//! whose denominator is zero or meaningless (leverage on negative EBITDA), is left out and explained in
//! [`CreditAnalysis::missing_inputs`]; no NaN or infinity ever leaves this module.

use serde::Serialize;
use time::Date;

use super::basel::normal_cdf;
use super::display::percent;
use super::rating::{CoverageRatingTable, FinancialRiskProfile, Grade, PdTable, RiskProfileTable};
use super::statements::{CompanyFinancials, FiscalYearStatement, Ownership, finite};
use super::{Metric, Unit};

/// What the equity market says about the company, for Altman's Z (1968) and the Merton model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MarketInputs {
    /// Market capitalisation, in the statements' currency.
    pub equity_market_value: f64,
    /// Annualised volatility of equity returns σ_E (0.30 is 30 %).
    pub equity_volatility: f64,
    /// Annualised equity return μ over the past year, used as the asset drift (Bharath–Shumway).
    pub equity_return: f64,
}

/// The rating tables an analysis uses; `Default` gives DOMAIN.md's.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CreditTables {
    pub coverage: CoverageRatingTable,
    pub risk_profile: RiskProfileTable,
    pub pd: PdTable,
}

/// Which Altman model was applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AltmanVariant {
    /// Z (Altman 1968), public manufacturers, market value of equity.
    Z,
    /// Z′ (Altman 1983), private firms, book equity.
    ZPrime,
    /// Z″ (Altman 1995), non-manufacturers and emerging markets, book equity, no sales term.
    ZDoublePrime,
}

impl AltmanVariant {
    /// Zone bounds (distress below, safe above), DOMAIN.md §1.
    pub fn zone_bounds(&self) -> (f64, f64) {
        match self {
            AltmanVariant::Z => (1.81, 2.99),
            AltmanVariant::ZPrime => (1.23, 2.90),
            AltmanVariant::ZDoublePrime => (1.10, 2.60),
        }
    }

    /// How the variant is written: Z, Z' or Z''.
    pub fn name(&self) -> &'static str {
        match self {
            AltmanVariant::Z => "Z",
            AltmanVariant::ZPrime => "Z'",
            AltmanVariant::ZDoublePrime => "Z''",
        }
    }

    pub fn formula(&self) -> &'static str {
        match self {
            AltmanVariant::Z => "1.2*X1 + 1.4*X2 + 3.3*X3 + 0.6*X4(market equity/TL) + 1.0*X5",
            AltmanVariant::ZPrime => "0.717*X1 + 0.847*X2 + 3.107*X3 + 0.420*X4(book equity/TL) + 0.998*X5",
            AltmanVariant::ZDoublePrime => "6.56*X1 + 3.26*X2 + 6.72*X3 + 1.05*X4(book equity/TL)",
        }
    }
}

/// Altman's zones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AltmanZone {
    Safe,
    Grey,
    Distress,
}

/// An Altman score with the model it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AltmanZ {
    pub variant: AltmanVariant,
    pub score: f64,
    pub zone: AltmanZone,
}

/// Piotroski's F score: the number of the nine criteria met; a criterion whose inputs are unreported is
/// `None` and counts as not met, so `evaluated` says how many could be judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PiotroskiF {
    pub score: u8,
    pub evaluated: u8,
    pub criteria: Vec<(String, Option<bool>)>,
}

/// Naive Merton distance to default (Bharath & Shumway 2008) and its PD = N(−DD), horizon one year.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Merton {
    pub distance_to_default: f64,
    pub pd: f64,
}

/// Synthetic rating from EBIT interest coverage (Damodaran) and the grade's one-year PD.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SyntheticRating {
    pub grade: Grade,
    /// Default spread over the risk-free rate, a fraction.
    pub spread: f64,
    /// The coverage the grade was read from; `None` when the company reports no interest expense.
    pub ebit_interest_coverage: Option<f64>,
    /// One-year PD for the grade, floored (see [`PdTable::pd`]).
    pub pd: f64,
}

/// Everything [`analyse_credit`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CreditAnalysis {
    pub company: String,
    pub ticker: Option<String>,
    /// End of the fiscal year the figures describe (the latest reported).
    #[serde(serialize_with = "super::serialize_optional_iso_date")]
    pub fiscal_year_end: Option<Date>,
    pub metrics: Vec<Metric>,
    pub altman: Option<AltmanZ>,
    pub piotroski: Option<PiotroskiF>,
    pub merton: Option<Merton>,
    pub rating: Option<SyntheticRating>,
    pub risk_profile: Option<FinancialRiskProfile>,
    /// The definitions and model variants used, in words.
    pub methodology: Vec<String>,
    /// One line per figure that could not be computed: `"<metric>: <why>"`.
    pub missing_inputs: Vec<String>,
}

impl CreditAnalysis {
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }

    pub fn value(&self, name: &str) -> Option<f64> {
        self.metric(name).map(|m| m.value)
    }
}

/// The definitions every analysis states in its methodology.
const DEFINITIONS: [&str; 6] = [
    "EBIT = operating income; EBITDA = EBIT + depreciation & amortisation (both required).",
    "Total debt = long-term debt incl. current portion (non-current + current when both reported, else LongTermDebt) + short-term borrowings + commercial paper + finance leases, summing what is reported; net debt = total debt - cash and equivalents.",
    "FCF = cash from operations - |capital expenditure|; FFO = EBITDA - interest expense - income tax expense (income-statement charges as proxies for cash interest and cash taxes).",
    "Ratios use the latest fiscal year; growth compares it with the prior fiscal year; CAGR runs from the oldest year with revenue reported.",
    "Quick ratio = (cash + short-term investments + receivables) / current liabilities, counting unreported components as absent; needs cash or receivables.",
    "Leverage ratios need EBITDA > 0, coverage ratios interest expense > 0, debt/equity book equity > 0, */debt ratios total debt > 0.",
];

/// Analyses the latest fiscal year (with the prior years for growth and Piotroski) using DOMAIN.md's
/// tables. See [`analyse_credit_with`].
pub fn analyse_credit(company: &CompanyFinancials, market: Option<MarketInputs>) -> CreditAnalysis {
    analyse_credit_with(company, market, &CreditTables::default())
}

/// Analyses the latest fiscal year with the given rating tables.
///
/// Altman variant rule: Z (1968) when a positive market value of equity is given (and revenue is
/// reported); Z′ (private firms, book equity) for a private company's statements with revenue;
/// otherwise Z″ — the service analyses listed companies of every sector, and Z″ is the variant that
/// needs neither a market price nor the manufacturing-specific sales/assets term.
pub fn analyse_credit_with(
    company: &CompanyFinancials,
    market: Option<MarketInputs>,
    tables: &CreditTables,
) -> CreditAnalysis {
    let mut analysis = CreditAnalysis {
        company: company.name().to_owned(),
        ticker: company.ticker().map(str::to_owned),
        fiscal_year_end: company.latest().map(|y| y.fiscal_year_end),
        metrics: Vec::new(),
        altman: None,
        piotroski: None,
        merton: None,
        rating: None,
        risk_profile: None,
        methodology: DEFINITIONS.iter().map(|s| (*s).to_owned()).collect(),
        missing_inputs: Vec::new(),
    };
    let Some(latest) = company.latest() else {
        analysis.missing_inputs.push("all metrics: no fiscal year reported".to_owned());
        return analysis;
    };
    let market = market.filter(|m| {
        m.equity_market_value.is_finite() && m.equity_volatility.is_finite() && m.equity_return.is_finite()
    });
    let mut book = MetricBook::default();
    statement_metrics(&mut book, company, latest);
    analysis.altman = altman_for(&mut book, latest, market, company.ownership(), &mut analysis.methodology);
    analysis.piotroski = company.prior().map(|prior| piotroski(latest, prior, company.years().get(2)));
    match &analysis.piotroski {
        Some(f) => {
            book.push(
                "piotroski_f",
                Unit::Score,
                "count of the nine Piotroski criteria met",
                &[("criteria_evaluated", f64::from(f.evaluated))],
                f64::from(f.score),
            );
            analysis.methodology.push(
                "Piotroski F (2000): nine binary criteria, latest vs prior year; ROA and CFO scaled by year-end total assets, long-term debt (non-current) by average total assets when the opening balance is reported; an unjudgeable criterion counts as not met.".to_owned(),
            );
        }
        None => book.missing.push("piotroski_f: needs a prior fiscal year".to_owned()),
    }
    analysis.merton = match market {
        Some(market) => merton(&mut book, latest, market),
        None => {
            book.missing.push("distance_to_default: needs equity market value, volatility and return".to_owned());
            None
        }
    };
    if analysis.merton.is_some() {
        analysis.methodology.push(
            "Merton distance to default, naive Bharath-Shumway (2008): F = current debt + 0.5*long-term debt, sigma_D = 0.05 + 0.25*sigma_E, T = 1, mu = past-year equity return, PD = N(-DD).".to_owned(),
        );
    }
    analysis.rating = synthetic_rating(&mut book, latest, tables, &mut analysis.methodology);
    analysis.risk_profile = risk_profile(&mut book, latest, tables, &mut analysis.methodology);
    analysis.metrics = book.metrics;
    analysis.missing_inputs = book.missing;
    analysis
}

/// Collects metrics and the reasons others could not be computed.
#[derive(Default)]
pub(crate) struct MetricBook {
    pub(crate) metrics: Vec<Metric>,
    pub(crate) missing: Vec<String>,
}

impl MetricBook {
    /// Records `compute(inputs)` as a metric when every input is reported and the result is finite;
    /// otherwise records why not. `compute` returns `Err(reason)` for a meaningless denominator.
    pub(crate) fn compute(
        &mut self,
        name: &str,
        unit: Unit,
        formula: &str,
        inputs: &[(&str, Option<f64>)],
        compute: impl FnOnce(&[f64]) -> Result<f64, String>,
    ) -> Option<f64> {
        let absent: Vec<&str> = inputs.iter().filter(|(_, v)| finite(*v).is_none()).map(|(n, _)| *n).collect();
        if !absent.is_empty() {
            self.missing.push(format!("{name}: {} not reported", absent.join(", ")));
            return None;
        }
        let values: Vec<f64> = inputs.iter().filter_map(|(_, v)| *v).collect();
        match compute(&values) {
            Ok(value) if value.is_finite() => {
                let named: Vec<(&str, f64)> = inputs.iter().map(|(n, _)| *n).zip(values.iter().copied()).collect();
                self.metrics.push(Metric::new(name, value, unit, formula, &named));
                Some(value)
            }
            Ok(_) => {
                self.missing.push(format!("{name}: not a finite number"));
                None
            }
            Err(reason) => {
                self.missing.push(format!("{name}: {reason}"));
                None
            }
        }
    }

    /// `numerator / denominator`, requiring a strictly positive denominator.
    pub(crate) fn ratio(
        &mut self,
        name: &str,
        unit: Unit,
        formula: &str,
        numerator: (&str, Option<f64>),
        denominator: (&str, Option<f64>),
    ) -> Option<f64> {
        let denominator_name = denominator.0;
        self.compute(name, unit, formula, &[numerator, denominator], |v| {
            if v[1] > 0.0 { Ok(v[0] / v[1]) } else { Err(format!("{denominator_name} is not positive")) }
        })
    }

    /// A value known to be finite, with its inputs.
    pub(crate) fn push(&mut self, name: &str, unit: Unit, formula: &str, inputs: &[(&str, f64)], value: f64) {
        if value.is_finite() && inputs.iter().all(|(_, v)| v.is_finite()) {
            self.metrics.push(Metric::new(name, value, unit, formula, inputs));
        } else {
            self.missing.push(format!("{name}: not a finite number"));
        }
    }
}

fn statement_metrics(book: &mut MetricBook, company: &CompanyFinancials, y: &FiscalYearStatement) {
    let revenue = finite(y.revenue);
    let ebit = y.ebit();
    let ebitda = y.ebitda();
    let debt = y.total_debt();
    let cash = finite(y.cash);
    let interest = finite(y.interest_expense);

    book.compute("revenue", Unit::Currency, "revenue", &[("revenue", revenue)], |v| Ok(v[0]));
    let prior_revenue = company.prior().and_then(|p| finite(p.revenue));
    if company.prior().is_some() {
        book.compute(
            "revenue_growth",
            Unit::Fraction,
            "revenue / prior_year_revenue - 1",
            &[("revenue", revenue), ("prior_year_revenue", prior_revenue)],
            |v| if v[1] > 0.0 { Ok(v[0] / v[1] - 1.0) } else { Err("prior_year_revenue is not positive".to_owned()) },
        );
    } else {
        book.missing.push("revenue_growth: needs a prior fiscal year".to_owned());
    }
    revenue_cagr(book, company, y);

    book.ratio(
        "gross_margin",
        Unit::Fraction,
        "gross_profit / revenue",
        ("gross_profit", finite(y.gross_profit)),
        ("revenue", revenue),
    );
    book.compute("ebit", Unit::Currency, "operating income", &[("operating_income", ebit)], |v| Ok(v[0]));
    book.ratio("ebit_margin", Unit::Fraction, "ebit / revenue", ("ebit", ebit), ("revenue", revenue));
    book.compute(
        "ebitda",
        Unit::Currency,
        "ebit + depreciation_amortization",
        &[("ebit", ebit), ("depreciation_amortization", finite(y.depreciation_amortization))],
        |v| Ok(v[0] + v[1]),
    );
    book.ratio("ebitda_margin", Unit::Fraction, "ebitda / revenue", ("ebitda", ebitda), ("revenue", revenue));
    book.compute("net_income", Unit::Currency, "net income", &[("net_income", finite(y.net_income))], |v| Ok(v[0]));
    book.ratio(
        "net_margin",
        Unit::Fraction,
        "net_income / revenue",
        ("net_income", finite(y.net_income)),
        ("revenue", revenue),
    );
    book.ratio(
        "return_on_assets",
        Unit::Fraction,
        "net_income / total_assets (year end)",
        ("net_income", finite(y.net_income)),
        ("total_assets", finite(y.total_assets)),
    );

    book.compute(
        "total_debt",
        Unit::Currency,
        "long_term_debt (incl. current) + short_term_borrowings + commercial_paper + finance_leases",
        &[("total_debt", debt)],
        |v| Ok(v[0]),
    );
    book.compute("cash", Unit::Currency, "cash and cash equivalents", &[("cash", cash)], |v| Ok(v[0]));
    book.compute("net_debt", Unit::Currency, "total_debt - cash", &[("total_debt", debt), ("cash", cash)], |v| {
        Ok(v[0] - v[1])
    });
    book.ratio("debt_to_ebitda", Unit::Ratio, "total_debt / ebitda", ("total_debt", debt), ("ebitda", ebitda));
    book.ratio("net_debt_to_ebitda", Unit::Ratio, "net_debt / ebitda", ("net_debt", y.net_debt()), ("ebitda", ebitda));
    book.ratio(
        "ebitda_interest_coverage",
        Unit::Ratio,
        "ebitda / interest_expense",
        ("ebitda", ebitda),
        ("interest_expense", interest),
    );
    book.ratio(
        "ebit_interest_coverage",
        Unit::Ratio,
        "ebit / interest_expense",
        ("ebit", ebit),
        ("interest_expense", interest),
    );

    book.ratio(
        "current_ratio",
        Unit::Ratio,
        "current_assets / current_liabilities",
        ("current_assets", finite(y.current_assets)),
        ("current_liabilities", finite(y.current_liabilities)),
    );
    let quick_assets = match (cash, finite(y.receivables)) {
        (None, None) => None,
        (c, r) => Some(c.unwrap_or(0.0) + finite(y.short_term_investments).unwrap_or(0.0) + r.unwrap_or(0.0)),
    };
    book.ratio(
        "quick_ratio",
        Unit::Ratio,
        "(cash + short_term_investments + receivables) / current_liabilities",
        ("quick_assets", quick_assets),
        ("current_liabilities", finite(y.current_liabilities)),
    );
    book.ratio(
        "debt_to_equity",
        Unit::Ratio,
        "total_debt / equity (book)",
        ("total_debt", debt),
        ("equity", finite(y.equity)),
    );

    let cfo = finite(y.cash_from_operations);
    book.compute(
        "cash_from_operations",
        Unit::Currency,
        "net cash from operating activities",
        &[("cash_from_operations", cfo)],
        |v| Ok(v[0]),
    );
    book.compute(
        "free_cash_flow",
        Unit::Currency,
        "cash_from_operations - |capital_expenditure|",
        &[("cash_from_operations", cfo), ("capital_expenditure", finite(y.capital_expenditure))],
        |v| Ok(v[0] - v[1].abs()),
    );
    book.compute(
        "funds_from_operations",
        Unit::Currency,
        "ebitda - interest_expense - income_tax",
        &[("ebitda", ebitda), ("interest_expense", interest), ("income_tax", finite(y.income_tax))],
        |v| Ok(v[0] - v[1] - v[2]),
    );
    book.ratio(
        "ffo_to_debt",
        Unit::Fraction,
        "funds_from_operations / total_debt",
        ("funds_from_operations", y.funds_from_operations()),
        ("total_debt", debt),
    );
    book.ratio(
        "fcf_to_debt",
        Unit::Fraction,
        "free_cash_flow / total_debt",
        ("free_cash_flow", y.free_cash_flow()),
        ("total_debt", debt),
    );
    book.ratio(
        "cfo_to_debt",
        Unit::Fraction,
        "cash_from_operations / total_debt",
        ("cash_from_operations", cfo),
        ("total_debt", debt),
    );
}

/// Compound annual revenue growth from the oldest year with positive revenue to the latest, over the
/// difference in fiscal-year numbers; only when that spans at least two years.
fn revenue_cagr(book: &mut MetricBook, company: &CompanyFinancials, latest: &FiscalYearStatement) {
    let oldest = company.years().iter().skip(2).rev().find(|y| finite(y.revenue).is_some_and(|r| r > 0.0));
    let Some(oldest) = oldest else {
        book.missing.push("revenue_cagr: needs revenue for at least three fiscal years".to_owned());
        return;
    };
    let span = f64::from(latest.fiscal_year_end.year() - oldest.fiscal_year_end.year());
    book.compute(
        "revenue_cagr",
        Unit::Fraction,
        "(revenue / oldest_revenue)^(1 / years) - 1",
        &[("revenue", finite(latest.revenue)), ("oldest_revenue", finite(oldest.revenue)), ("years", Some(span))],
        |v| {
            if v[2] < 1.0 {
                Err("fiscal years overlap".to_owned())
            } else if v[0] <= 0.0 {
                Err("latest revenue is not positive".to_owned())
            } else {
                Ok((v[0] / v[1]).powf(1.0 / v[2]) - 1.0)
            }
        },
    );
}

/// The inputs of Altman's X ratios for one year.
struct AltmanInputs {
    working_capital: f64,
    retained_earnings: f64,
    ebit: f64,
    total_assets: f64,
    total_liabilities: f64,
    book_equity: f64,
    sales: Option<f64>,
}

/// Altman score of `variant` for one year. `market_equity` is required for [`AltmanVariant::Z`], sales
/// for Z and Z′. `Err` lists what is missing or unusable.
pub fn altman(y: &FiscalYearStatement, variant: AltmanVariant, market_equity: Option<f64>) -> Result<AltmanZ, String> {
    let inputs = altman_inputs(y)?;
    altman_score(&inputs, variant, market_equity)
}

fn altman_inputs(y: &FiscalYearStatement) -> Result<AltmanInputs, String> {
    let required = [
        ("working_capital", y.working_capital()),
        ("retained_earnings", finite(y.retained_earnings)),
        ("ebit", y.ebit()),
        ("total_assets", finite(y.total_assets)),
        ("total_liabilities", y.total_liabilities_or_derived()),
        ("equity", finite(y.equity)),
    ];
    let absent: Vec<&str> = required.iter().filter(|(_, v)| v.is_none()).map(|(n, _)| *n).collect();
    if !absent.is_empty() {
        return Err(format!("{} not reported", absent.join(", ")));
    }
    let [wc, re, ebit, ta, tl, eq] = required.map(|(_, v)| v.unwrap_or_default());
    if ta <= 0.0 || tl <= 0.0 {
        return Err("total assets and total liabilities must be positive".to_owned());
    }
    Ok(AltmanInputs {
        working_capital: wc,
        retained_earnings: re,
        ebit,
        total_assets: ta,
        total_liabilities: tl,
        book_equity: eq,
        sales: finite(y.revenue),
    })
}

fn altman_score(i: &AltmanInputs, variant: AltmanVariant, market_equity: Option<f64>) -> Result<AltmanZ, String> {
    let x1 = i.working_capital / i.total_assets;
    let x2 = i.retained_earnings / i.total_assets;
    let x3 = i.ebit / i.total_assets;
    let x4_book = i.book_equity / i.total_liabilities;
    let x5 = || i.sales.map(|s| s / i.total_assets).ok_or_else(|| "revenue not reported".to_owned());
    let score = match variant {
        AltmanVariant::Z => {
            let market =
                market_equity.filter(|e| e.is_finite() && *e > 0.0).ok_or("market value of equity not known")?;
            1.2 * x1 + 1.4 * x2 + 3.3 * x3 + 0.6 * (market / i.total_liabilities) + 1.0 * x5()?
        }
        AltmanVariant::ZPrime => 0.717 * x1 + 0.847 * x2 + 3.107 * x3 + 0.420 * x4_book + 0.998 * x5()?,
        AltmanVariant::ZDoublePrime => 6.56 * x1 + 3.26 * x2 + 6.72 * x3 + 1.05 * x4_book,
    };
    if !score.is_finite() {
        return Err("not a finite number".to_owned());
    }
    let (distress_below, safe_above) = variant.zone_bounds();
    let zone = if score > safe_above {
        AltmanZone::Safe
    } else if score < distress_below {
        AltmanZone::Distress
    } else {
        AltmanZone::Grey
    };
    Ok(AltmanZ { variant, score, zone })
}

fn altman_for(
    book: &mut MetricBook,
    y: &FiscalYearStatement,
    market: Option<MarketInputs>,
    ownership: Ownership,
    methodology: &mut Vec<String>,
) -> Option<AltmanZ> {
    let inputs = match altman_inputs(y) {
        Ok(inputs) => inputs,
        Err(reason) => {
            book.missing.push(format!("altman_z: {reason}"));
            return None;
        }
    };
    let market_equity = market.map(|m| m.equity_market_value).filter(|e| *e > 0.0);
    let (result, rule) = match (market_equity, inputs.sales) {
        (None, Some(_)) if ownership == Ownership::Private => (
            altman_score(&inputs, AltmanVariant::ZPrime, None),
            "Altman Z' (1983, private firms, book equity): the borrower's shares are not listed, so there is no market value of equity.",
        ),
        (Some(_), Some(_)) => (
            altman_score(&inputs, AltmanVariant::Z, market_equity),
            "Altman Z (1968): market value of equity is known and revenue is reported.",
        ),
        (Some(_), None) => (
            altman_score(&inputs, AltmanVariant::ZDoublePrime, None),
            "Altman Z'' (1995, non-manufacturers): revenue not reported, so the 1968 model cannot be used.",
        ),
        (None, _) => (
            altman_score(&inputs, AltmanVariant::ZDoublePrime, None),
            "Altman Z'' (1995, non-manufacturers, book equity): no market value of equity given.",
        ),
    };
    match result {
        Ok(z) => {
            let mut inputs_used = vec![
                ("working_capital", inputs.working_capital),
                ("retained_earnings", inputs.retained_earnings),
                ("ebit", inputs.ebit),
                ("total_assets", inputs.total_assets),
                ("total_liabilities", inputs.total_liabilities),
            ];
            match (z.variant, market_equity, inputs.sales) {
                (AltmanVariant::Z, Some(e), Some(s)) => {
                    inputs_used.push(("equity_market_value", e));
                    inputs_used.push(("revenue", s));
                }
                (AltmanVariant::ZPrime, _, Some(s)) => {
                    inputs_used.push(("equity", inputs.book_equity));
                    inputs_used.push(("revenue", s));
                }
                _ => inputs_used.push(("equity", inputs.book_equity)),
            }
            book.push("altman_z", Unit::Score, z.variant.formula(), &inputs_used, z.score);
            let (distress, safe) = z.variant.zone_bounds();
            methodology.push(format!("{rule} Zones: > {safe} safe, < {distress} distress, grey between."));
            if finite(y.total_liabilities).is_none() {
                methodology.push("Total liabilities derived as total assets - equity.".to_owned());
            }
            Some(z)
        }
        Err(reason) => {
            book.missing.push(format!("altman_z: {reason}"));
            None
        }
    }
}

/// Piotroski's nine criteria, latest year `t` against prior year `p`; `p2` (the year before the prior)
/// supplies the opening assets for the prior year's average.
fn piotroski(t: &FiscalYearStatement, p: &FiscalYearStatement, p2: Option<&FiscalYearStatement>) -> PiotroskiF {
    let div = |a: Option<f64>, b: Option<f64>| match (finite(a), finite(b)) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let average = |closing: Option<f64>, opening: Option<f64>| match (finite(closing), finite(opening)) {
        (Some(c), Some(o)) => Some((c + o) / 2.0),
        (Some(c), None) => Some(c),
        _ => None,
    };
    let roa_t = div(t.net_income, t.total_assets);
    let roa_p = div(p.net_income, p.total_assets);
    let cfo_ta_t = div(t.cash_from_operations, t.total_assets);
    let ltd = |y: &FiscalYearStatement| y.long_term_debt_excluding_current();
    let lev_t = div(ltd(t), average(t.total_assets, p.total_assets));
    let lev_p = div(ltd(p), average(p.total_assets, p2.and_then(|y| y.total_assets)));
    let cr = |y: &FiscalYearStatement| div(y.current_assets, y.current_liabilities);
    let gm = |y: &FiscalYearStatement| div(y.gross_profit, y.revenue);
    let turnover = |y: &FiscalYearStatement| div(y.revenue, y.total_assets);
    let both = |a: Option<f64>, b: Option<f64>, test: fn(f64, f64) -> bool| Some(test(a?, b?));
    let criteria: Vec<(String, Option<bool>)> = vec![
        ("roa_positive", roa_t.map(|r| r > 0.0)),
        ("cfo_positive", finite(t.cash_from_operations).map(|c| c > 0.0)),
        ("roa_improved", both(roa_t, roa_p, |a, b| a > b)),
        ("cfo_exceeds_net_income_accruals", both(cfo_ta_t, roa_t, |a, b| a > b)),
        ("long_term_leverage_fell", both(lev_t, lev_p, |a, b| a < b)),
        ("current_ratio_improved", both(cr(t), cr(p), |a, b| a > b)),
        ("no_new_common_equity", both(finite(t.shares_outstanding), finite(p.shares_outstanding), |a, b| a <= b)),
        ("gross_margin_improved", both(gm(t), gm(p), |a, b| a > b)),
        ("asset_turnover_improved", both(turnover(t), turnover(p), |a, b| a > b)),
    ]
    .into_iter()
    .map(|(name, passed)| (name.to_owned(), passed))
    .collect();
    let score = criteria.iter().filter(|(_, passed)| *passed == Some(true)).count();
    let evaluated = criteria.iter().filter(|(_, passed)| passed.is_some()).count();
    PiotroskiF { score: u8::try_from(score).unwrap_or(9), evaluated: u8::try_from(evaluated).unwrap_or(9), criteria }
}

fn merton(book: &mut MetricBook, y: &FiscalYearStatement, market: MarketInputs) -> Option<Merton> {
    let current = y.current_debt();
    let long_term = y.long_term_debt_excluding_current();
    let default_point = match (current, long_term) {
        (None, None) => None,
        (c, l) => Some(c.unwrap_or(0.0) + 0.5 * l.unwrap_or(0.0)),
    };
    let dd = book.compute(
        "distance_to_default",
        Unit::Score,
        "[ln(V/F) + (mu - sigma_V^2/2)*T] / (sigma_V*sqrt(T)), V = E + F, F = current_debt + 0.5*long_term_debt, sigma_V = (E/V)*sigma_E + (F/V)*(0.05 + 0.25*sigma_E), T = 1",
        &[
            ("equity_market_value", Some(market.equity_market_value)),
            ("equity_volatility", Some(market.equity_volatility)),
            ("equity_return", Some(market.equity_return)),
            ("default_point", default_point),
        ],
        |v| {
            let (e, sigma_e, mu, f) = (v[0], v[1], v[2], v[3]);
            if e <= 0.0 || sigma_e <= 0.0 {
                return Err("equity value and volatility must be positive".to_owned());
            }
            if f <= 0.0 {
                return Err("no debt: the default point is zero".to_owned());
            }
            let value = e + f;
            let sigma_v = (e / value) * sigma_e + (f / value) * (0.05 + 0.25 * sigma_e);
            Ok(((value / f).ln() + (mu - sigma_v * sigma_v / 2.0)) / sigma_v)
        },
    )?;
    let pd = normal_cdf(-dd);
    book.push("merton_pd", Unit::Fraction, "N(-distance_to_default)", &[("distance_to_default", dd)], pd);
    Some(Merton { distance_to_default: dd, pd })
}

fn synthetic_rating(
    book: &mut MetricBook,
    y: &FiscalYearStatement,
    tables: &CreditTables,
    methodology: &mut Vec<String>,
) -> Option<SyntheticRating> {
    let coverage = book.metrics.iter().find(|m| m.name == "ebit_interest_coverage").map(|m| m.value);
    let no_interest = finite(y.interest_expense).is_some_and(|i| i <= 0.0) && y.ebit().is_some_and(|e| e > 0.0);
    let (band, basis) = match coverage {
        Some(c) => (tables.coverage.rate(c)?, "EBIT interest coverage"),
        None if no_interest => (*tables.coverage.bands.first()?, "no interest expense with positive EBIT: best grade"),
        None => {
            book.missing.push("synthetic_rating: needs ebit_interest_coverage".to_owned());
            return None;
        }
    };
    let pd = tables.pd.pd(band.grade);
    let inputs: Vec<(&str, f64)> = coverage.map(|c| vec![("ebit_interest_coverage", c)]).unwrap_or_default();
    book.push(
        "synthetic_rating_spread",
        Unit::Fraction,
        "coverage table spread for the synthetic grade",
        &inputs,
        band.spread,
    );
    book.push(
        "probability_of_default",
        Unit::Fraction,
        "one-year PD for the synthetic grade, log-linear between anchor grades, floored",
        &[("grade_notch", f64::from(band.grade.notch())), ("pd_floor", tables.pd.floor)],
        pd,
    );
    methodology.push(format!(
        "Synthetic rating {} from {basis} (Damodaran coverage table, large non-financial firms); one-year PD from the grade table with log-linear notch interpolation and a {} floor.",
        band.grade,
        percent(tables.pd.floor)
    ));
    Some(SyntheticRating { grade: band.grade, spread: band.spread, ebit_interest_coverage: coverage, pd })
}

fn risk_profile(
    book: &mut MetricBook,
    y: &FiscalYearStatement,
    tables: &CreditTables,
    methodology: &mut Vec<String>,
) -> Option<FinancialRiskProfile> {
    let leverage = book.metrics.iter().find(|m| m.name == "debt_to_ebitda").map(|m| m.value);
    let profile = match leverage {
        Some(l) => tables.risk_profile.classify(l),
        None if y.ebitda().is_some_and(|e| e <= 0.0) && y.total_debt().is_some_and(|d| d > 0.0) => {
            methodology
                .push("Financial-risk profile: debt with EBITDA <= 0 is treated as highly leveraged.".to_owned());
            Some(FinancialRiskProfile::HighlyLeveraged)
        }
        None => None,
    };
    match profile {
        Some(p) => methodology
            .push(format!("Financial-risk profile {} from debt/EBITDA (S&P-style bounds, verify).", p.as_str())),
        None => book.missing.push("financial_risk_profile: needs debt_to_ebitda".to_owned()),
    }
    profile
}

/// Statements shared by the quant tests: round numbers so expected values can be worked by hand.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::super::statements::{CompanyFinancials, FiscalYearStatement};
    use time::macros::date;

    /// Debt 400 (LTD 300 + 50 current + 50 short-term), EBITDA 250, EBIT 200, interest 20.
    pub(crate) fn healthy() -> CompanyFinancials {
        let mut y = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        y.revenue = Some(1000.0);
        y.gross_profit = Some(400.0);
        y.operating_income = Some(200.0);
        y.net_income = Some(140.0);
        y.depreciation_amortization = Some(50.0);
        y.interest_expense = Some(20.0);
        y.income_tax = Some(40.0);
        y.total_assets = Some(1200.0);
        y.current_assets = Some(500.0);
        y.total_liabilities = Some(600.0);
        y.current_liabilities = Some(250.0);
        y.long_term_debt_noncurrent = Some(300.0);
        y.long_term_debt_current = Some(50.0);
        y.short_term_borrowings = Some(50.0);
        y.equity = Some(600.0);
        y.cash = Some(150.0);
        y.retained_earnings = Some(400.0);
        y.receivables = Some(150.0);
        y.inventory = Some(100.0);
        y.cash_from_operations = Some(220.0);
        y.capital_expenditure = Some(80.0);
        y.shares_outstanding = Some(100.0);

        let mut p = FiscalYearStatement::empty(date!(2022 - 12 - 31));
        p.revenue = Some(900.0);
        p.gross_profit = Some(342.0);
        p.operating_income = Some(170.0);
        p.net_income = Some(110.0);
        p.depreciation_amortization = Some(45.0);
        p.interest_expense = Some(22.0);
        p.income_tax = Some(35.0);
        p.total_assets = Some(1150.0);
        p.current_assets = Some(450.0);
        p.total_liabilities = Some(600.0);
        p.current_liabilities = Some(260.0);
        p.long_term_debt_noncurrent = Some(330.0);
        p.long_term_debt_current = Some(40.0);
        p.short_term_borrowings = Some(50.0);
        p.equity = Some(550.0);
        p.cash = Some(120.0);
        p.retained_earnings = Some(330.0);
        p.receivables = Some(140.0);
        p.inventory = Some(95.0);
        p.cash_from_operations = Some(190.0);
        p.capital_expenditure = Some(70.0);
        p.shares_outstanding = Some(102.0);

        let mut p2 = FiscalYearStatement::empty(date!(2020 - 12 - 31));
        p2.revenue = Some(810.0);
        CompanyFinancials::new("Healthy Co", Some("HLTH".to_owned()), vec![p, y, p2])
    }

    /// Debt 1000 (LongTermDebt 900 + short-term 100), EBITDA 150, EBIT 100, interest 60.
    pub(crate) fn leveraged() -> CompanyFinancials {
        let mut y = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        y.revenue = Some(1000.0);
        y.operating_income = Some(100.0);
        y.net_income = Some(20.0);
        y.depreciation_amortization = Some(50.0);
        y.interest_expense = Some(60.0);
        y.income_tax = Some(10.0);
        y.total_assets = Some(1300.0);
        y.current_assets = Some(300.0);
        y.total_liabilities = Some(1150.0);
        y.current_liabilities = Some(350.0);
        y.long_term_debt = Some(900.0);
        y.short_term_borrowings = Some(100.0);
        y.equity = Some(150.0);
        y.cash = Some(50.0);
        y.retained_earnings = Some(-50.0);
        y.receivables = Some(120.0);
        y.cash_from_operations = Some(80.0);
        y.capital_expenditure = Some(60.0);
        CompanyFinancials::new("Leveraged Co", None, vec![y])
    }

    /// Operating loss: EBIT −30, EBITDA 10, net income −50, interest 25, debt 300.
    pub(crate) fn loss_making() -> CompanyFinancials {
        let mut y = FiscalYearStatement::empty(date!(2023 - 06 - 30));
        y.revenue = Some(500.0);
        y.operating_income = Some(-30.0);
        y.net_income = Some(-50.0);
        y.depreciation_amortization = Some(40.0);
        y.interest_expense = Some(25.0);
        y.income_tax = Some(0.0);
        y.total_assets = Some(800.0);
        y.current_assets = Some(200.0);
        y.current_liabilities = Some(220.0);
        y.long_term_debt_noncurrent = Some(300.0);
        y.equity = Some(250.0);
        y.cash = Some(40.0);
        y.retained_earnings = Some(-120.0);
        y.cash_from_operations = Some(-10.0);
        y.capital_expenditure = Some(30.0);
        CompanyFinancials::new("Loss Co", None, vec![y])
    }

    /// Only revenue, operating income and total assets are reported.
    pub(crate) fn sparse() -> CompanyFinancials {
        let mut y = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        y.revenue = Some(300.0);
        y.operating_income = Some(30.0);
        y.total_assets = Some(600.0);
        CompanyFinancials::new("Sparse Co", None, vec![y])
    }
}

#[cfg(test)]
mod tests;
