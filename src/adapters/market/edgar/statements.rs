//! Statements from a `companyfacts` document ([`statements_from_facts`]): each fiscal year's and
//! fiscal quarter's lines from the facts [`FactTable`] picks, following the selection rules in
//! `facts.rs`, the derived lines (total liabilities, summed share classes), and one provenance
//! entry per line.

use time::Date;

use super::facts::{
    CompanyFactsDocument, Fact, FactTable, Kind, LIABILITIES_AND_EQUITY, LINES, SHARES_OUTSTANDING, STOCKHOLDERS_EQUITY,
};
use crate::domain::quant::quarterly::{QuarterSource, QuarterStatement, QuarterlyStatements};
use crate::domain::quant::statements::{CompanyFinancials, FiscalYearStatement, MAX_FISCAL_YEARS};
use crate::ports::financial_data::{
    CompanyStatements, FinancialDataError, LineProvenance, QuarterlyStatementsWithProvenance, ResolvedCompany,
    StatementLine, StatementsWithProvenance,
};

fn field_mut(year: &mut FiscalYearStatement, line: StatementLine) -> &mut Option<f64> {
    match line {
        StatementLine::Revenue => &mut year.revenue,
        StatementLine::GrossProfit => &mut year.gross_profit,
        StatementLine::OperatingIncome => &mut year.operating_income,
        StatementLine::NetIncome => &mut year.net_income,
        StatementLine::DepreciationAmortization => &mut year.depreciation_amortization,
        StatementLine::InterestExpense => &mut year.interest_expense,
        StatementLine::IncomeTax => &mut year.income_tax,
        StatementLine::TotalAssets => &mut year.total_assets,
        StatementLine::CurrentAssets => &mut year.current_assets,
        StatementLine::TotalLiabilities => &mut year.total_liabilities,
        StatementLine::CurrentLiabilities => &mut year.current_liabilities,
        StatementLine::LongTermDebtNoncurrent => &mut year.long_term_debt_noncurrent,
        StatementLine::LongTermDebtCurrent => &mut year.long_term_debt_current,
        StatementLine::LongTermDebt => &mut year.long_term_debt,
        StatementLine::ShortTermBorrowings => &mut year.short_term_borrowings,
        StatementLine::CommercialPaper => &mut year.commercial_paper,
        StatementLine::FinanceLeases => &mut year.finance_leases,
        StatementLine::Equity => &mut year.equity,
        StatementLine::Cash => &mut year.cash,
        StatementLine::ShortTermInvestments => &mut year.short_term_investments,
        StatementLine::RetainedEarnings => &mut year.retained_earnings,
        StatementLine::Receivables => &mut year.receivables,
        StatementLine::Inventory => &mut year.inventory,
        StatementLine::CashFromOperations => &mut year.cash_from_operations,
        StatementLine::CapitalExpenditure => &mut year.capital_expenditure,
        StatementLine::SharesOutstanding => &mut year.shares_outstanding,
    }
}

/// Sets lines of one statement and records their provenance.
struct Recorder<'a> {
    source_url: &'a str,
    provenance: Vec<LineProvenance>,
}

impl Recorder<'_> {
    /// `lines.<line> = value`, read from `fact` (or derived from it) over `period` (`None` start for
    /// an instant).
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        lines: &mut FiscalYearStatement,
        statement_end: Date,
        line: StatementLine,
        tag: String,
        value: f64,
        fact: &Fact,
        period: (Option<Date>, Date),
        derivation: Option<String>,
    ) {
        *field_mut(lines, line) = Some(value);
        self.provenance.push(LineProvenance {
            statement_end,
            line,
            tag,
            value,
            accession_number: fact.accn.clone(),
            form: fact.form.clone(),
            period_start: period.0,
            period_end: period.1,
            filed: fact.filed,
            source_url: self.source_url.to_owned(),
            derivation,
        });
    }

    /// `Liabilities`, when not reported, as `LiabilitiesAndStockholdersEquity − StockholdersEquity`
    /// of the instants `instant(tag)` gives.
    fn derive_liabilities<'f>(
        &mut self,
        lines: &mut FiscalYearStatement,
        statement_end: Date,
        instant: impl Fn(&str) -> Option<&'f Fact>,
    ) {
        if lines.total_liabilities.is_some() {
            return;
        }
        let (Some(total), Some(equity)) = (instant(LIABILITIES_AND_EQUITY), instant(STOCKHOLDERS_EQUITY)) else {
            return;
        };
        let derivation = format!(
            "Liabilities not reported: us-gaap:{LIABILITIES_AND_EQUITY} {} (accn {}) - us-gaap:{STOCKHOLDERS_EQUITY} {} (accn {})",
            total.val, total.accn, equity.val, equity.accn
        );
        self.record(
            lines,
            statement_end,
            StatementLine::TotalLiabilities,
            format!("us-gaap:{LIABILITIES_AND_EQUITY} - us-gaap:{STOCKHOLDERS_EQUITY}"),
            total.val - equity.val,
            total,
            (None, total.end),
            Some(derivation),
        );
    }
}

/// Normalises a `companyfacts` document into the latest `years` fiscal years (at most
/// [`MAX_FISCAL_YEARS`]) and the latest `quarters` fiscal quarters (at most [`MAX_QUARTERS`]; `0`
/// skips them) with provenance, following the selection rules in `facts.rs`. `source_url` is
/// recorded in every provenance entry.
///
/// # Errors
/// [`FinancialDataError::InvalidData`] naming `provider` when the document is not a companyfacts
/// document or belongs to another CIK; [`FinancialDataError::NoStatements`] when it holds no annual
/// (10-K) `us-gaap` facts at all.
///
/// [`MAX_QUARTERS`]: crate::domain::quant::quarterly::MAX_QUARTERS
pub fn statements_from_facts(
    json: &[u8],
    company: &ResolvedCompany,
    years: usize,
    quarters: usize,
    source_url: &str,
    provider: &'static str,
) -> Result<CompanyStatements, FinancialDataError> {
    let invalid = |reason: String| FinancialDataError::InvalidData { provider, reason };
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    let document: CompanyFactsDocument = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        invalid(format!("company facts of CIK {} are malformed at '{}': {}", company.padded_cik(), e.path(), e.inner()))
    })?;
    if let Some(cik) = document.cik.filter(|cik| *cik != company.cik) {
        return Err(invalid(format!("{source_url} holds the facts of CIK {cik}, not of CIK {}", company.cik)));
    }
    let table = FactTable::from_document(&document);
    let year_ends = table.fiscal_year_ends();
    if year_ends.is_empty() {
        return Err(FinancialDataError::NoStatements {
            provider,
            company: company.name.clone(),
            reason: format!("no annual (10-K) us-gaap facts for CIK {} in {source_url}", company.padded_cik()),
        });
    }
    let annual = annual_statements(&table, company, &year_ends, years, source_url);
    let quarterly = if quarters == 0 {
        QuarterlyStatementsWithProvenance::default()
    } else {
        quarterly_statements(&table, quarters, source_url)
    };
    Ok(CompanyStatements { annual, quarterly })
}

/// [`statements_from_facts`] without quarters.
///
/// # Errors
/// As [`statements_from_facts`].
pub fn annual_statements_from_facts(
    json: &[u8],
    company: &ResolvedCompany,
    years: usize,
    source_url: &str,
    provider: &'static str,
) -> Result<StatementsWithProvenance, FinancialDataError> {
    statements_from_facts(json, company, years, 0, source_url, provider).map(|statements| statements.annual)
}

fn annual_statements(
    table: &FactTable,
    company: &ResolvedCompany,
    year_ends: &[Date],
    years: usize,
    source_url: &str,
) -> StatementsWithProvenance {
    let mut recorder = Recorder { source_url, provenance: Vec::new() };
    let mut statements = Vec::new();
    for &year_end in year_ends.iter().take(years.min(MAX_FISCAL_YEARS)) {
        let mut year = FiscalYearStatement::empty(year_end);
        for &(line, kind, tags) in LINES {
            let found = tags.iter().find_map(|tag| table.pick(tag, kind, year_end).map(|fact| (tag, fact)));
            if let Some((tag, fact)) = found {
                let period = (fact.start, fact.end);
                recorder.record(&mut year, year_end, line, format!("us-gaap:{tag}"), fact.val, fact, period, None);
            }
        }
        recorder.derive_liabilities(&mut year, year_end, |tag| table.pick(tag, Kind::Instant, year_end));
        if let Some((shares, classes)) = table.shares_outstanding(year_end)
            && let Some(first) = classes.first()
        {
            let derivation = (classes.len() > 1).then(|| {
                let parts: Vec<String> = classes.iter().map(|fact| fact.val.to_string()).collect();
                format!("sum of {} share classes: {}", classes.len(), parts.join(" + "))
            });
            recorder.record(
                &mut year,
                year_end,
                StatementLine::SharesOutstanding,
                format!("dei:{SHARES_OUTSTANDING}"),
                shares,
                first,
                (None, first.end),
                derivation,
            );
        }
        statements.push(year);
    }
    StatementsWithProvenance {
        financials: CompanyFinancials::new(company.name.clone(), company.ticker.clone(), statements),
        provenance: recorder.provenance,
    }
}

fn quarterly_statements(table: &FactTable, quarters: usize, source_url: &str) -> QuarterlyStatementsWithProvenance {
    let (plans, left_out) = table.quarter_plans(quarters);
    let mut recorder = Recorder { source_url, provenance: Vec::new() };
    let mut statements = Vec::with_capacity(plans.len());
    for plan in &plans {
        let source =
            if plan.fourth.is_some() { QuarterSource::DerivedFourthQuarter } else { QuarterSource::QuarterlyReport };
        let mut quarter = QuarterStatement::empty(plan.start, plan.end, source);
        for &(line, kind, tags) in LINES {
            match kind {
                Kind::Flow => {
                    let found = tags.iter().find_map(|tag| {
                        let flow = match &plan.fourth {
                            Some(fourth) => table.fourth_quarter_flow(tag, fourth),
                            None => table.quarter_flow(tag, plan.start, plan.end),
                        };
                        flow.map(|flow| (tag, flow))
                    });
                    if let Some((tag, flow)) = found {
                        recorder.record(
                            &mut quarter.lines,
                            plan.end,
                            line,
                            format!("us-gaap:{tag}"),
                            flow.value,
                            flow.fact,
                            (Some(plan.start), plan.end),
                            flow.derivation,
                        );
                    }
                }
                Kind::Instant => {
                    let found = tags.iter().find_map(|tag| table.periodic_instant(tag, plan.end).map(|f| (tag, f)));
                    if let Some((tag, fact)) = found {
                        let period = (None, fact.end);
                        recorder.record(
                            &mut quarter.lines,
                            plan.end,
                            line,
                            format!("us-gaap:{tag}"),
                            fact.val,
                            fact,
                            period,
                            None,
                        );
                    }
                }
            }
        }
        recorder.derive_liabilities(&mut quarter.lines, plan.end, |tag| table.periodic_instant(tag, plan.end));
        statements.push(quarter);
    }
    QuarterlyStatementsWithProvenance {
        statements: QuarterlyStatements::new(statements),
        provenance: recorder.provenance,
        left_out,
    }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;
    use crate::adapters::market::edgar::PROVIDER;
    use crate::adapters::market::edgar::fixtures::{FACTS, company, ends, quarter};

    #[test]
    fn market_facts_of_another_company_are_invalid_data_and_without_annual_facts_no_statements() {
        let (_, apple_facts) = FACTS[0];
        let other = company(1900001, "Leverco", "LVRG");
        let error = annual_statements_from_facts(apple_facts.as_bytes(), &other, 5, "u", PROVIDER).expect_err("cik");
        assert!(matches!(&error, FinancialDataError::InvalidData { reason, .. } if reason.contains("CIK 320193")));

        let quarterly_only = r#"{"cik":1,"entityName":"Q","facts":{"us-gaap":{"Revenues":{"units":{"USD":[
            {"start":"2023-01-01","end":"2023-03-31","val":5,"accn":"a","form":"10-Q","filed":"2023-05-01"}]}}}}}"#;
        let error = annual_statements_from_facts(quarterly_only.as_bytes(), &company(1, "Q", "Q"), 5, "u", PROVIDER)
            .expect_err("no annual facts");
        assert!(matches!(error, FinancialDataError::NoStatements { .. }), "{error:?}");

        let broken = r#"{"cik":1,"facts":{"us-gaap":{"Revenues":{"units":{"USD":[{"end":"2023-03-31","val":"x"}]}}}}}"#;
        let error = annual_statements_from_facts(broken.as_bytes(), &company(1, "Q", "Q"), 5, "u", PROVIDER)
            .expect_err("malformed");
        assert!(
            matches!(&error, FinancialDataError::InvalidData { reason, .. } if reason.contains("Revenues")),
            "{error:?}"
        );
    }

    #[test]
    fn market_facts_outside_the_annual_window_are_ignored() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2022-01-01","end":"2023-12-31","val":1,"accn":"two-years","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":100,"accn":"a","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":999,"accn":"b","form":"8-K","filed":"2024-03-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":555,"accn":"c","form":"10-KT","filed":"2024-03-01"}]}},
            "Assets":{"units":{"USD":[
              {"end":"2023-12-31","val":50,"accn":"a","form":"10-K","filed":"2024-02-01"},
              {"end":"2023-09-30","val":40,"accn":"q","form":"10-Q","filed":"2023-11-01"}],
              "EUR":[{"end":"2023-12-31","val":7,"accn":"e","form":"10-K","filed":"2024-02-01"}]}}}}}"#;
        let result = annual_statements_from_facts(facts.as_bytes(), &company(1, "Q", "Q"), 5, "u", PROVIDER)
            .expect("statements");
        let [year] = result.financials.years() else { panic!("{:?}", result.financials) };
        assert_eq!((year.revenue, year.total_assets), (Some(100.0), Some(50.0)));
    }

    const ONE: fn() -> ResolvedCompany = || company(1, "Q", "Q");

    fn quarters_of(json: &str, quarters: usize) -> QuarterlyStatementsWithProvenance {
        statements_from_facts(json.as_bytes(), &ONE(), 6, quarters, "u", PROVIDER).expect("statements").quarterly
    }

    #[test]
    fn market_quarters_are_three_month_10q_flows_and_the_latest_filing_wins() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":1000,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2024-01-01","end":"2024-03-31","val":240,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"start":"2024-01-01","end":"2024-03-31","val":230,"accn":"q1a","form":"10-Q/A","filed":"2024-06-01"},
              {"start":"2024-04-01","end":"2024-06-30","val":250,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-01-01","end":"2024-06-30","val":490,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-04-16","end":"2024-06-30","val":1,"accn":"75-days","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-07-01","end":"2024-10-15","val":2,"accn":"106-days","form":"10-Q","filed":"2024-11-01"},
              {"start":"2024-07-01","end":"2024-09-30","val":3,"accn":"three-months-in-a-10-K","form":"10-K","filed":"2024-11-01"},
              {"start":"2024-07-01","end":"2024-09-30","val":4,"accn":"8k","form":"8-K","filed":"2024-11-01"}]}},
            "Assets":{"units":{"USD":[
              {"end":"2024-03-31","val":900,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"end":"2024-03-31","val":905,"accn":"q1a","form":"10-Q/A","filed":"2024-06-01"},
              {"end":"2024-06-30","val":910,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"end":"2024-06-30","val":999,"accn":"8k","form":"8-K","filed":"2024-09-01"}]}}}}}"#;

        let quarterly = quarters_of(facts, 8);

        assert_eq!(
            ends(&quarterly),
            vec![date!(2024 - 06 - 30), date!(2024 - 03 - 31)],
            "75 and 106 days are no quarter"
        );
        let q1 = quarter(&quarterly, date!(2024 - 03 - 31));
        assert_eq!((q1.period_start, q1.source), (date!(2024 - 01 - 01), QuarterSource::QuarterlyReport));
        assert_eq!((q1.lines.revenue, q1.lines.total_assets), (Some(230.0), Some(905.0)), "the 10-Q/A restates");
        let revenue = quarterly.provenance_of(q1.period_end, StatementLine::Revenue).expect("provenance");
        assert_eq!((revenue.accession_number.as_str(), revenue.form.as_str()), ("q1a", "10-Q/A"));
        assert_eq!((revenue.period_start, revenue.period_end), (Some(date!(2024 - 01 - 01)), date!(2024 - 03 - 31)));
        assert_eq!(revenue.derivation, None);
        let q2 = quarter(&quarterly, date!(2024 - 06 - 30));
        assert_eq!(q2.lines.revenue, Some(250.0), "the three-month fact, not the half year less Q1");
        assert_eq!(q2.lines.total_assets, Some(910.0), "an 8-K is not a periodic report");
        assert!(quarterly.left_out.is_empty(), "{:?}", quarterly.left_out);

        let annual = statements_from_facts(facts.as_bytes(), &ONE(), 6, 8, "u", PROVIDER).expect("statements").annual;
        assert_eq!(annual.financials.latest().and_then(|y| y.revenue), Some(1000.0), "annual figures are unchanged");
        assert_eq!(ends(&quarters_of(facts, 1)), vec![date!(2024 - 06 - 30)], "the latest `quarters`");
        assert!(quarters_of(facts, 0).statements.is_empty());
    }

    #[test]
    fn market_a_fourth_quarter_is_the_fiscal_year_less_three_reported_quarters_of_one_tag() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2022-01-01","end":"2022-12-31","val":900,"accn":"k22","form":"10-K","filed":"2023-02-01"},
              {"start":"2022-01-01","end":"2022-03-31","val":200,"accn":"q1-22","form":"10-Q","filed":"2022-05-01"},
              {"start":"2022-07-01","end":"2022-09-30","val":220,"accn":"q3-22","form":"10-Q","filed":"2022-11-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":1000,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-03-31","val":230,"accn":"q1","form":"10-Q","filed":"2023-05-01"},
              {"start":"2023-04-01","end":"2023-06-30","val":240,"accn":"q2","form":"10-Q","filed":"2023-08-01"},
              {"start":"2023-07-01","end":"2023-09-30","val":250,"accn":"q3","form":"10-Q","filed":"2023-11-01"}]}},
            "NetIncomeLoss":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":100,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2023-01-01","end":"2023-12-31","val":90,"accn":"k23a","form":"10-K/A","filed":"2024-04-01"},
              {"start":"2023-01-01","end":"2023-03-31","val":20,"accn":"q1","form":"10-Q","filed":"2023-05-01"},
              {"start":"2023-01-01","end":"2023-06-30","val":45,"accn":"q2","form":"10-Q","filed":"2023-08-01"},
              {"start":"2023-07-01","end":"2023-09-30","val":30,"accn":"q3","form":"10-Q","filed":"2023-11-01"}]}},
            "DepreciationDepletionAndAmortization":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-03-31","val":5,"accn":"q1","form":"10-Q","filed":"2023-05-01"},
              {"start":"2023-04-01","end":"2023-06-30","val":5,"accn":"q2","form":"10-Q","filed":"2023-08-01"},
              {"start":"2023-07-01","end":"2023-09-30","val":5,"accn":"q3","form":"10-Q","filed":"2023-11-01"}]}},
            "DepreciationAndAmortization":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":21,"accn":"k23","form":"10-K","filed":"2024-02-01"}]}},
            "Assets":{"units":{"USD":[
              {"end":"2023-12-31","val":700,"accn":"k23","form":"10-K","filed":"2024-02-01"}]}}}}}"#;

        let quarterly = quarters_of(facts, 8);

        let expected_ends = [(2023, 12, 31), (2023, 9, 30), (2023, 6, 30), (2023, 3, 31), (2022, 9, 30), (2022, 3, 31)]
            .map(|(y, m, d)| Date::from_calendar_date(y, time::Month::try_from(m).expect("month"), d).expect("date"));
        assert_eq!(ends(&quarterly), expected_ends.to_vec());
        let q4 = quarter(&quarterly, date!(2023 - 12 - 31));
        assert_eq!((q4.period_start, q4.source), (date!(2023 - 10 - 01), QuarterSource::DerivedFourthQuarter));
        assert_eq!(q4.lines.revenue, Some(1000.0 - 230.0 - 240.0 - 250.0));
        assert_eq!(
            q4.lines.net_income,
            Some(90.0 - 20.0 - (45.0 - 20.0) - 30.0),
            "the 10-K/A, and Q2 from year to date"
        );
        assert_eq!(q4.lines.depreciation_amortization, None, "no tag holds the year and all three quarters");
        assert_eq!(q4.lines.total_assets, Some(700.0), "the fiscal year's balance sheet");
        let revenue = quarterly.provenance_of(q4.period_end, StatementLine::Revenue).expect("provenance");
        assert_eq!((revenue.accession_number.as_str(), revenue.form.as_str()), ("k23", "10-K"));
        assert_eq!((revenue.period_start, revenue.period_end), (Some(date!(2023 - 10 - 01)), date!(2023 - 12 - 31)));
        let derivation = revenue.derivation.as_deref().expect("derivation");
        for part in
            ["fiscal year 2023-01-01 to 2023-12-31 1000", "Q1 230 (accn q1)", "Q2 240 (accn q2)", "Q3 250 (accn q3)"]
        {
            assert!(derivation.contains(part), "{part}: {derivation}");
        }
        let net_income = quarterly.provenance_of(q4.period_end, StatementLine::NetIncome).expect("provenance");
        assert_eq!(net_income.form, "10-K/A");

        let [note] = quarterly.left_out.as_slice() else { panic!("{:?}", quarterly.left_out) };
        assert!(
            note.contains("2022-01-01 to 2022-12-31") && note.contains("Q2 (a quarter starting 2022-04-01)"),
            "{note}"
        );
        assert!(!ends(&quarterly).contains(&date!(2022 - 12 - 31)), "no fourth quarter is estimated");
    }

    #[test]
    fn market_quarters_reported_only_year_to_date_are_the_difference_of_two_cumulations() {
        let facts = r#"{"cik":1,"facts":{"us-gaap":{
            "Revenues":{"units":{"USD":[
              {"start":"2023-01-01","end":"2023-12-31","val":1000,"accn":"k23","form":"10-K","filed":"2024-02-01"},
              {"start":"2024-01-01","end":"2024-03-31","val":230,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"start":"2024-04-01","end":"2024-06-30","val":240,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-07-01","end":"2024-09-30","val":250,"accn":"q3","form":"10-Q","filed":"2024-11-01"}]}},
            "NetCashProvidedByUsedInOperatingActivities":{"units":{"USD":[
              {"start":"2024-01-01","end":"2024-03-31","val":50,"accn":"q1","form":"10-Q","filed":"2024-05-01"},
              {"start":"2024-01-01","end":"2024-06-30","val":120,"accn":"q2","form":"10-Q","filed":"2024-08-01"},
              {"start":"2024-01-01","end":"2024-09-30","val":160,"accn":"q3","form":"10-Q","filed":"2024-11-01"}]}},
            "PaymentsToAcquirePropertyPlantAndEquipment":{"units":{"USD":[
              {"start":"2024-01-01","end":"2024-06-30","val":30,"accn":"q2","form":"10-Q","filed":"2024-08-01"}]}}}}}"#;

        let quarterly = quarters_of(facts, 8);

        let cfo = |end| quarter(&quarterly, end).lines.cash_from_operations;
        assert_eq!(cfo(date!(2024 - 03 - 31)), Some(50.0));
        assert_eq!(cfo(date!(2024 - 06 - 30)), Some(70.0));
        assert_eq!(cfo(date!(2024 - 09 - 30)), Some(40.0));
        let q3 = quarterly.provenance_of(date!(2024 - 09 - 30), StatementLine::CashFromOperations).expect("provenance");
        assert_eq!(q3.accession_number, "q3", "the quarter's own 10-Q");
        assert_eq!(
            q3.derivation.as_deref(),
            Some(
                "year to date 2024-01-01 to 2024-09-30 160 (accn q3) - year to date 2024-01-01 to 2024-06-30 120 (accn q2)"
            )
        );
        assert_eq!(
            quarter(&quarterly, date!(2024 - 06 - 30)).lines.capital_expenditure,
            None,
            "a half year without its first quarter gives no second quarter"
        );
    }
}
