//! Findings: the analyst-facing reading of a [`CreditAnalysis`] or [`LoanAssessment`] — one statement
//! per noteworthy figure, graded positive / info / watch / concern, each citing the metric, its value
//! and the threshold it was held to. The thresholds are data ([`FindingThresholds`]) with documented
//! defaults drawn from DOMAIN.md §1 (risk-profile bounds, Altman zones, Damodaran coverage bands).

use serde::Serialize;
use serde_json::{Value, json};

use super::credit::{AltmanZone, CreditAnalysis};
use super::display::{amount, multiple, percent, percent_change, score};
use super::labels;
use super::loan::{LoanAssessment, Recommendation};

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingCategory {
    Growth,
    Profitability,
    Leverage,
    Coverage,
    Liquidity,
    CashFlow,
    Solvency,
    Quality,
    MarketImpliedRisk,
    Rating,
    LoanStructure,
    Pricing,
    DataQuality,
}

/// How the finding bears on credit quality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Positive,
    Info,
    Watch,
    Concern,
}

/// The figure a finding rests on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evidence {
    pub metric: String,
    pub value: f64,
    pub threshold: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub category: FindingCategory,
    pub severity: Severity,
    pub statement: String,
    pub evidence: Evidence,
}

/// Thresholds of the findings. Defaults, with their source:
/// leverage (debt/EBITDA) concern > 4.0x (S&P "aggressive" and worse), watch > 3.0x ("significant"),
/// positive < 1.5x ("minimal"); EBIT interest coverage concern < 2.0x (Damodaran B+ and worse), watch
/// < 3.0x (below A−), positive > 8.5x (AAA band); current ratio concern < 1.0, watch < 1.2; debt/equity
/// watch > 2.0; FFO/debt concern < 12 %, positive > 60 % (S&P highly-leveraged / minimal core-ratio
/// bounds); Piotroski F positive ≥ 7, concern ≤ 3 (Piotroski 2000's high/low groups, widened); Merton
/// PD concern > 5 %, watch > 1 %; revenue decline watch below −10 %.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FindingThresholds {
    pub leverage_concern_above: f64,
    pub leverage_watch_above: f64,
    pub leverage_positive_below: f64,
    pub coverage_concern_below: f64,
    pub coverage_watch_below: f64,
    pub coverage_positive_above: f64,
    pub current_ratio_concern_below: f64,
    pub current_ratio_watch_below: f64,
    pub debt_to_equity_watch_above: f64,
    pub ffo_to_debt_concern_below: f64,
    pub ffo_to_debt_positive_above: f64,
    pub piotroski_positive_from: u8,
    pub piotroski_concern_up_to: u8,
    pub merton_pd_concern_above: f64,
    pub merton_pd_watch_above: f64,
    pub revenue_decline_watch_below: f64,
}

impl Default for FindingThresholds {
    fn default() -> Self {
        Self {
            leverage_concern_above: 4.0,
            leverage_watch_above: 3.0,
            leverage_positive_below: 1.5,
            coverage_concern_below: 2.0,
            coverage_watch_below: 3.0,
            coverage_positive_above: 8.5,
            current_ratio_concern_below: 1.0,
            current_ratio_watch_below: 1.2,
            debt_to_equity_watch_above: 2.0,
            ffo_to_debt_concern_below: 0.12,
            ffo_to_debt_positive_above: 0.60,
            piotroski_positive_from: 7,
            piotroski_concern_up_to: 3,
            merton_pd_concern_above: 0.05,
            merton_pd_watch_above: 0.01,
            revenue_decline_watch_below: -0.10,
        }
    }
}

fn finding(
    category: FindingCategory,
    severity: Severity,
    statement: String,
    metric: &str,
    value: f64,
    threshold: Option<f64>,
) -> Finding {
    Finding { category, severity, statement, evidence: Evidence { metric: metric.to_owned(), value, threshold } }
}

/// Findings from a stand-alone credit analysis, most severe first (stable within a severity).
/// `currency` is the statements', in which the amounts a finding cites are written.
pub fn credit_findings(analysis: &CreditAnalysis, t: &FindingThresholds, currency: Option<&str>) -> Vec<Finding> {
    use FindingCategory as C;
    use Severity as S;
    let mut out = Vec::new();

    if let Some(g) = analysis.value("revenue_growth") {
        let (severity, threshold) = if g < t.revenue_decline_watch_below {
            (S::Watch, Some(t.revenue_decline_watch_below))
        } else {
            (S::Info, None)
        };
        out.push(finding(
            C::Growth,
            severity,
            format!("Revenue changed {} on the prior year.", percent_change(g)),
            "revenue_growth",
            g,
            threshold,
        ));
    }
    if let Some(m) = analysis.value("net_margin").filter(|m| *m < 0.0) {
        out.push(finding(
            C::Profitability,
            S::Concern,
            format!("Net loss: net margin {}.", percent(m)),
            "net_margin",
            m,
            Some(0.0),
        ));
    }
    if let Some(l) = analysis.value("debt_to_ebitda") {
        let (severity, threshold, words) = if l > t.leverage_concern_above {
            (S::Concern, t.leverage_concern_above, "above")
        } else if l > t.leverage_watch_above {
            (S::Watch, t.leverage_watch_above, "above")
        } else if l < t.leverage_positive_below {
            (S::Positive, t.leverage_positive_below, "below")
        } else {
            (S::Info, t.leverage_watch_above, "within")
        };
        out.push(finding(
            C::Leverage,
            severity,
            format!("Debt / EBITDA {} is {words} {}.", multiple(l), multiple(threshold)),
            "debt_to_ebitda",
            l,
            Some(threshold),
        ));
    } else if let Some(e) = analysis.value("ebitda").filter(|e| *e <= 0.0) {
        out.push(finding(
            C::Leverage,
            S::Concern,
            format!("EBITDA is not positive ({}): leverage is unbounded.", amount(e, currency)),
            "ebitda",
            e,
            Some(0.0),
        ));
    }
    if let Some(c) = analysis.value("ebit_interest_coverage") {
        let (severity, threshold, words) = if c < t.coverage_concern_below {
            (S::Concern, t.coverage_concern_below, "below")
        } else if c < t.coverage_watch_below {
            (S::Watch, t.coverage_watch_below, "below")
        } else if c > t.coverage_positive_above {
            (S::Positive, t.coverage_positive_above, "above")
        } else {
            (S::Info, t.coverage_watch_below, "at least")
        };
        out.push(finding(
            C::Coverage,
            severity,
            format!("EBIT covers interest {}, {words} {}.", multiple(c), multiple(threshold)),
            "ebit_interest_coverage",
            c,
            Some(threshold),
        ));
    }
    if let Some(r) = analysis.value("current_ratio") {
        let (severity, threshold) = if r < t.current_ratio_concern_below {
            (S::Concern, Some(t.current_ratio_concern_below))
        } else if r < t.current_ratio_watch_below {
            (S::Watch, Some(t.current_ratio_watch_below))
        } else {
            (S::Info, None)
        };
        out.push(finding(
            C::Liquidity,
            severity,
            format!("Current ratio {}.", multiple(r)),
            "current_ratio",
            r,
            threshold,
        ));
    }
    if let Some(d) = analysis.value("debt_to_equity").filter(|d| *d > t.debt_to_equity_watch_above) {
        out.push(finding(
            C::Leverage,
            S::Watch,
            format!("Debt / equity {} exceeds {}.", multiple(d), multiple(t.debt_to_equity_watch_above)),
            "debt_to_equity",
            d,
            Some(t.debt_to_equity_watch_above),
        ));
    }
    if let Some(f) = analysis.value("ffo_to_debt") {
        let (severity, threshold) = if f < t.ffo_to_debt_concern_below {
            (S::Concern, Some(t.ffo_to_debt_concern_below))
        } else if f > t.ffo_to_debt_positive_above {
            (S::Positive, Some(t.ffo_to_debt_positive_above))
        } else {
            (S::Info, None)
        };
        out.push(finding(C::CashFlow, severity, format!("FFO / debt {}.", percent(f)), "ffo_to_debt", f, threshold));
    }
    if let Some(f) = analysis.value("free_cash_flow").filter(|f| *f < 0.0) {
        out.push(finding(
            C::CashFlow,
            S::Watch,
            format!("Free cash flow is negative: {}.", amount(f, currency)),
            "free_cash_flow",
            f,
            Some(0.0),
        ));
    }
    if let Some(z) = &analysis.altman {
        let (distress, safe) = z.variant.zone_bounds();
        let (severity, threshold, words) = match z.zone {
            AltmanZone::Distress => (S::Concern, distress, "distress zone"),
            AltmanZone::Grey => (S::Watch, safe, "grey zone"),
            AltmanZone::Safe => (S::Positive, safe, "safe zone"),
        };
        out.push(finding(
            C::Solvency,
            severity,
            format!("Altman {} score {}: {words}.", z.variant.name(), score(z.score)),
            "altman_z",
            z.score,
            Some(threshold),
        ));
    }
    if let Some(p) = &analysis.piotroski {
        let score = f64::from(p.score);
        let (severity, threshold) = if p.score >= t.piotroski_positive_from {
            (S::Positive, Some(f64::from(t.piotroski_positive_from)))
        } else if p.score <= t.piotroski_concern_up_to && p.evaluated >= 7 {
            (S::Concern, Some(f64::from(t.piotroski_concern_up_to)))
        } else {
            (S::Info, None)
        };
        out.push(finding(
            C::Quality,
            severity,
            format!("Piotroski F {}/9 ({} criteria evaluable).", p.score, p.evaluated),
            "piotroski_f",
            score,
            threshold,
        ));
    }
    if let Some(m) = &analysis.merton {
        let (severity, threshold) = if m.pd > t.merton_pd_concern_above {
            (S::Concern, Some(t.merton_pd_concern_above))
        } else if m.pd > t.merton_pd_watch_above {
            (S::Watch, Some(t.merton_pd_watch_above))
        } else {
            (S::Info, None)
        };
        out.push(finding(
            C::MarketImpliedRisk,
            severity,
            format!("Merton distance to default {} (PD {}).", score(m.distance_to_default), percent(m.pd)),
            "merton_pd",
            m.pd,
            threshold,
        ));
    }
    if let Some(r) = &analysis.rating {
        let severity = if r.grade.is_investment_grade() { S::Info } else { S::Watch };
        out.push(finding(
            C::Rating,
            severity,
            format!("Synthetic rating {} (spread {}, one-year PD {}).", r.grade, percent(r.spread), percent(r.pd)),
            "probability_of_default",
            r.pd,
            None,
        ));
    }
    if !analysis.missing_inputs.is_empty() {
        out.push(finding(
            C::DataQuality,
            S::Info,
            format!(
                "{} {} could not be computed: {}.",
                analysis.missing_inputs.len(),
                if analysis.missing_inputs.len() == 1 { "figure" } else { "figures" },
                analysis.missing_inputs.iter().map(|line| labels::in_prose(line)).collect::<Vec<_>>().join("; ")
            ),
            "missing_inputs",
            analysis.missing_inputs.len() as f64,
            None,
        ));
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
}

/// Findings from a loan assessment: the stand-alone credit findings, then one per decision reason,
/// most severe first. `currency` is the loan's, in which the borrower's statements are too.
pub fn loan_findings(assessment: &LoanAssessment, t: &FindingThresholds, currency: Option<&str>) -> Vec<Finding> {
    let mut out = credit_findings(&assessment.credit, t, currency);
    for reason in &assessment.reasons {
        let Some(value) = reason.value else { continue };
        let severity = match reason.outcome {
            Recommendation::Approve => Severity::Positive,
            Recommendation::ApproveWithConditions => Severity::Watch,
            Recommendation::Refer | Recommendation::Decline => Severity::Concern,
        };
        let category = if reason.metric == "raroc_minimum_spread" {
            FindingCategory::Pricing
        } else {
            FindingCategory::LoanStructure
        };
        out.push(finding(category, severity, reason.statement.clone(), &reason.metric, value, reason.threshold));
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
}

/// How the margins the deal's agreements set compare with the spread the bank needs (the grade's
/// spread, or the RAROC minimum when higher).
pub fn margin_findings(deal_terms: &[Value], indicative_spread: Option<f64>) -> Vec<Value> {
    let mut findings = Vec::new();
    for document in deal_terms {
        for facility in document["facilities"].as_array().into_iter().flatten() {
            // Decimals are exact strings in the agreement (2.75 % is "0.0275").
            let Some(margin) = facility["spread"].as_str().and_then(|s| s.parse::<f64>().ok()) else { continue };
            let name = facility["name"].as_str().unwrap_or("a facility");
            let (severity, comparison) = match indicative_spread {
                Some(required) if margin + 1e-9 < required => {
                    ("watch", format!("below the {} the grade and RAROC require", percent(required)))
                }
                Some(required) => {
                    ("info", format!("at or above the {} the grade and RAROC require", percent(required)))
                }
                None => ("info", "with no required spread to compare".to_owned()),
            };
            findings.push(json!({
                "category": "pricing",
                "severity": severity,
                "statement": format!(
                    "Document {} ({}) sets a margin of {} for {name}, {comparison}.",
                    document["document_id"],
                    document["title"].as_str().unwrap_or(""),
                    percent(margin)
                ),
                "evidence": { "metric": "contractual_margin", "value": margin, "threshold": indicative_spread },
            }));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::super::credit::analyse_credit;
    use super::super::credit::fixtures::{healthy, leveraged, loss_making};
    use super::super::loan::{LoanPolicy, LoanRequest, LoanType, Seniority, assess_loan};
    use super::*;

    fn find<'a>(findings: &'a [Finding], metric: &str) -> &'a Finding {
        findings.iter().find(|f| f.evidence.metric == metric).unwrap_or_else(|| panic!("no finding on {metric}"))
    }

    #[test]
    fn healthy_company_findings_are_positive_on_coverage_quality_and_solvency() {
        let findings = credit_findings(&analyse_credit(&healthy(), None), &FindingThresholds::default(), Some("USD"));
        assert_eq!(find(&findings, "ebit_interest_coverage").severity, Severity::Positive);
        assert_eq!(find(&findings, "piotroski_f").severity, Severity::Positive);
        assert_eq!(find(&findings, "altman_z").severity, Severity::Positive);
        assert_eq!(find(&findings, "debt_to_ebitda").severity, Severity::Info);
        assert!(findings.iter().all(|f| f.severity != Severity::Concern));
    }

    #[test]
    fn leveraged_company_raises_concerns_on_leverage_coverage_and_distress() {
        let findings = credit_findings(&analyse_credit(&leveraged(), None), &FindingThresholds::default(), Some("USD"));
        let leverage = find(&findings, "debt_to_ebitda");
        assert_eq!((leverage.severity, leverage.evidence.threshold), (Severity::Concern, Some(4.0)));
        assert!((leverage.evidence.value - 1000.0 / 150.0).abs() < 1e-12);
        assert_eq!(find(&findings, "ebit_interest_coverage").severity, Severity::Concern);
        assert_eq!(find(&findings, "altman_z").severity, Severity::Concern);
        assert_eq!(find(&findings, "ffo_to_debt").severity, Severity::Concern);
        assert_eq!(findings[0].severity, Severity::Concern);
    }

    #[test]
    fn net_loss_is_a_concern() {
        let findings =
            credit_findings(&analyse_credit(&loss_making(), None), &FindingThresholds::default(), Some("USD"));
        let loss = find(&findings, "net_margin");
        assert_eq!((loss.category, loss.severity), (FindingCategory::Profitability, Severity::Concern));
    }

    #[test]
    fn loan_findings_add_one_finding_per_decision_reason() {
        let request = LoanRequest::new(200.0, LoanType::TermLoan, Seniority::SeniorUnsecured).expect("valid");
        let assessment = assess_loan(&healthy(), request, &LoanPolicy::default());
        let findings = loan_findings(&assessment, &FindingThresholds::default(), Some("USD"));
        assert_eq!(find(&findings, "raroc_minimum_spread").severity, Severity::Watch);
        assert_eq!(find(&findings, "pro_forma_dscr").severity, Severity::Positive);
    }

    #[test]
    fn findings_serialise_with_snake_case_enums() {
        let f = finding(FindingCategory::CashFlow, Severity::Watch, "s".to_owned(), "m", 1.0, None);
        let json = serde_json::to_value(&f).expect("serialises");
        assert_eq!(json["category"], "cash_flow");
        assert_eq!(json["severity"], "watch");
        assert_eq!(json["evidence"]["metric"], "m");
    }
}
