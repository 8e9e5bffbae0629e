//! Fact selection: which XBRL facts of a `companyfacts` document are read, and which one a fiscal
//! year's or a fiscal quarter's line takes ([`FactTable`]).
//!
//! # Period selection (DOMAIN.md §3)
//! `fy`/`fp` describe the filing, not the period, so they are ignored. Only facts from forms `10-K`
//! and `10-K/A` count (an amendment restates the original and, being filed later, wins); `10-KT`
//! transition reports, 10-Q, 8-K and foreign-filer forms are ignored. Only `USD` amounts (and
//! `shares` for the share count) are read.
//! - Fiscal years are the end dates of annual flows (duration 350–380 days) of the income and
//!   cash-flow lines; the newest `years` are kept.
//! - Flows (income statement, cash flow) are the annual-duration facts ending on the fiscal year end;
//!   instants (balance sheet) the facts without `start` dated on it. When several filings report the
//!   same period (a 10-K repeats the prior years as comparatives), the latest `filed` wins, so
//!   restatements replace original values.
//! - Tag fallbacks are tried in DOMAIN.md order **per fiscal year** (filers switch concepts over
//!   time, e.g. `SalesRevenueNet` before 2018): the first tag with a value for that year is used.
//! - `Liabilities`, when absent, is derived as `LiabilitiesAndStockholdersEquity − StockholdersEquity`
//!   (both instants on the fiscal year end) and the provenance says so. With non-controlling
//!   interests this overstates liabilities by the NCI, as DOMAIN.md's formula does.
//! - Shares outstanding are `dei:EntityCommonStockSharesOutstanding` from the cover page of the 10-K:
//!   the cover date falls after the fiscal year end, so the fact dated within 200 days after it
//!   (latest filed) is used; several values of the same filing and date (share classes) are summed.
//! - Lines the DOMAIN.md list does not name but the statements hold: gross profit (`GrossProfit`),
//!   short-term investments (`ShortTermInvestments` | `MarketableSecuritiesCurrent`) and finance
//!   leases (`FinanceLeaseLiability`).
//!
//! # Quarters
//! The same lines, tags, fallbacks and "latest filed wins" rule, over fiscal quarters:
//! - Quarters are the periods of three-month flows (duration 80–100 days) reported in forms `10-Q`
//!   and `10-Q/A`. A quarter's flow is that three-month fact; when the filer reports the line only
//!   year to date (cash-flow lines and often D&A are), it is the difference of two 10-Q year-to-date
//!   facts of the same tag and start, one ending on the quarter end and one the day before the
//!   quarter starts (six months − three months, nine − six). Provenance records the derivation.
//! - No 10-Q covers a fiscal fourth quarter, and three-month facts in a 10-K are not read. A fourth
//!   quarter is derived, line by line and within one tag, as FY − Q1 − Q2 − Q3, only when the 10-K's
//!   fiscal year and all of Q1, Q2 and Q3 are there: Q1 starting on the fiscal year's first day, each
//!   quarter starting the day after the previous one ends, and the remainder 80–100 days long.
//!   Otherwise the fourth quarter is left out and [`QuarterlyStatementsWithProvenance::left_out`]
//!   says why; no fourth quarter is ever estimated.
//! - Balance-sheet lines are the instants dated on the quarter end from any 10-Q or 10-K (a fourth
//!   quarter's balance sheet is the fiscal year's), latest filed first.
//! - Shares outstanding are not read for quarters.
//!
//! [`QuarterlyStatementsWithProvenance::left_out`]: crate::ports::financial_data::QuarterlyStatementsWithProvenance::left_out

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Deserialize;
use time::Date;
use time::macros::format_description;

use crate::domain::quant::quarterly::MAX_QUARTERS;
use crate::ports::financial_data::StatementLine;

#[derive(Deserialize)]
pub(super) struct CompanyFactsDocument {
    #[serde(default)]
    pub(super) cik: Option<u64>,
    #[serde(default)]
    facts: HashMap<String, HashMap<String, Concept>>,
}

#[derive(Deserialize)]
struct Concept {
    #[serde(default)]
    units: HashMap<String, Vec<RawFact>>,
}

#[derive(Deserialize)]
struct RawFact {
    #[serde(default)]
    start: Option<String>,
    end: String,
    val: f64,
    accn: String,
    #[serde(default)]
    form: String,
    filed: String,
}

/// A fact with its dates parsed.
#[derive(Clone, Debug)]
pub(super) struct Fact {
    pub(super) start: Option<Date>,
    pub(super) end: Date,
    pub(super) val: f64,
    pub(super) accn: String,
    pub(super) form: String,
    pub(super) filed: Date,
}

impl Fact {
    fn from_raw(raw: &RawFact) -> Option<Self> {
        let start = match raw.start.as_deref() {
            Some(text) => Some(parse_date(text)?),
            None => None,
        };
        Some(Self {
            start,
            end: parse_date(&raw.end)?,
            val: raw.val,
            accn: raw.accn.clone(),
            form: raw.form.clone(),
            filed: parse_date(&raw.filed)?,
        })
        .filter(|fact| fact.val.is_finite())
    }

    fn is_annual_filing(&self) -> bool {
        matches!(self.form.as_str(), "10-K" | "10-K/A")
    }

    fn is_quarterly_filing(&self) -> bool {
        matches!(self.form.as_str(), "10-Q" | "10-Q/A")
    }

    /// Days from the first to the last day of a flow's period (a 91-day quarter is 90); `None` for
    /// an instant.
    fn duration_days(&self) -> Option<i64> {
        self.start.map(|start| (self.end - start).whole_days())
    }

    fn is_annual_flow(&self) -> bool {
        self.is_annual_filing() && self.duration_days().is_some_and(|days| ANNUAL_DAYS.contains(&days))
    }

    fn is_annual_instant(&self) -> bool {
        self.is_annual_filing() && self.start.is_none()
    }

    /// A three-month flow of a 10-Q.
    fn is_quarter_flow(&self) -> bool {
        self.is_quarterly_filing() && self.duration_days().is_some_and(|days| QUARTER_DAYS.contains(&days))
    }

    /// A balance-sheet fact of a 10-K or a 10-Q.
    fn is_periodic_instant(&self) -> bool {
        (self.is_annual_filing() || self.is_quarterly_filing()) && self.start.is_none()
    }

    /// Whether `self` was filed after `other` (the accession number breaks ties), so it wins.
    fn supersedes(&self, other: &Fact) -> bool {
        (self.filed, &self.accn) > (other.filed, &other.accn)
    }
}

/// Duration of an annual flow, in days from first to last day.
const ANNUAL_DAYS: std::ops::RangeInclusive<i64> = 350..=380;
/// Duration of a quarterly flow, in days from first to last day (13 weeks is 90, 14 weeks 97).
const QUARTER_DAYS: std::ops::RangeInclusive<i64> = 80..=100;

/// The latest-filed of `facts`.
fn latest_filed<'a>(facts: impl Iterator<Item = &'a Fact>) -> Option<&'a Fact> {
    facts.reduce(|best, fact| if fact.supersedes(best) { fact } else { best })
}

/// For each period end, the start most facts give (ties: the later start); `facts` are flows.
fn periods<'a>(facts: impl Iterator<Item = &'a Fact>) -> BTreeMap<Date, Date> {
    let mut starts: BTreeMap<Date, HashMap<Date, usize>> = BTreeMap::new();
    for fact in facts {
        if let Some(start) = fact.start {
            *starts.entry(fact.end).or_default().entry(start).or_default() += 1;
        }
    }
    starts
        .into_iter()
        .filter_map(|(end, counts)| {
            counts.into_iter().max_by_key(|(start, count)| (*count, *start)).map(|(start, _)| (end, start))
        })
        .collect()
}

fn parse_date(text: &str) -> Option<Date> {
    Date::parse(text.trim(), format_description!("[year]-[month]-[day]")).ok()
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Flow,
    Instant,
}

/// Each line, whether it is a flow or an instant, and its `us-gaap` tags in fallback order
/// (DOMAIN.md §3). Shares outstanding (dei) and the liabilities derivation are handled apart.
pub(super) const LINES: &[(StatementLine, Kind, &[&str])] = &[
    (
        StatementLine::Revenue,
        Kind::Flow,
        &["Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax", "SalesRevenueNet"],
    ),
    (StatementLine::GrossProfit, Kind::Flow, &["GrossProfit"]),
    (StatementLine::OperatingIncome, Kind::Flow, &["OperatingIncomeLoss"]),
    (StatementLine::NetIncome, Kind::Flow, &["NetIncomeLoss"]),
    (
        StatementLine::DepreciationAmortization,
        Kind::Flow,
        &["DepreciationDepletionAndAmortization", "DepreciationAndAmortization"],
    ),
    (StatementLine::InterestExpense, Kind::Flow, &["InterestExpense", "InterestExpenseNonoperating"]),
    (StatementLine::IncomeTax, Kind::Flow, &["IncomeTaxExpenseBenefit"]),
    (StatementLine::CashFromOperations, Kind::Flow, &["NetCashProvidedByUsedInOperatingActivities"]),
    (StatementLine::CapitalExpenditure, Kind::Flow, &["PaymentsToAcquirePropertyPlantAndEquipment"]),
    (StatementLine::TotalAssets, Kind::Instant, &["Assets"]),
    (StatementLine::CurrentAssets, Kind::Instant, &["AssetsCurrent"]),
    (StatementLine::TotalLiabilities, Kind::Instant, &["Liabilities"]),
    (StatementLine::CurrentLiabilities, Kind::Instant, &["LiabilitiesCurrent"]),
    (StatementLine::LongTermDebtNoncurrent, Kind::Instant, &["LongTermDebtNoncurrent"]),
    (StatementLine::LongTermDebtCurrent, Kind::Instant, &["LongTermDebtCurrent"]),
    (StatementLine::LongTermDebt, Kind::Instant, &["LongTermDebt"]),
    (StatementLine::ShortTermBorrowings, Kind::Instant, &["ShortTermBorrowings"]),
    (StatementLine::CommercialPaper, Kind::Instant, &["CommercialPaper"]),
    (StatementLine::FinanceLeases, Kind::Instant, &["FinanceLeaseLiability"]),
    (StatementLine::Equity, Kind::Instant, &["StockholdersEquity"]),
    (StatementLine::Cash, Kind::Instant, &["CashAndCashEquivalentsAtCarryingValue"]),
    (StatementLine::ShortTermInvestments, Kind::Instant, &["ShortTermInvestments", "MarketableSecuritiesCurrent"]),
    (StatementLine::RetainedEarnings, Kind::Instant, &["RetainedEarningsAccumulatedDeficit"]),
    (StatementLine::Receivables, Kind::Instant, &["AccountsReceivableNetCurrent"]),
    (StatementLine::Inventory, Kind::Instant, &["InventoryNet"]),
];

pub(super) const LIABILITIES_AND_EQUITY: &str = "LiabilitiesAndStockholdersEquity";
pub(super) const STOCKHOLDERS_EQUITY: &str = "StockholdersEquity";
pub(super) const SHARES_OUTSTANDING: &str = "EntityCommonStockSharesOutstanding";
/// How long after the fiscal year end the 10-K cover page's share count may be dated.
const SHARES_COVER_WINDOW_DAYS: i64 = 200;

/// The facts of one document, by taxonomy and tag, in one unit.
pub(super) struct FactTable {
    gaap: HashMap<String, Vec<Fact>>,
    shares: Vec<Fact>,
}

impl FactTable {
    pub(super) fn from_document(document: &CompanyFactsDocument) -> Self {
        let facts_in = |taxonomy: &str, tag: &str, unit: &str| -> Vec<Fact> {
            document
                .facts
                .get(taxonomy)
                .and_then(|concepts| concepts.get(tag))
                .and_then(|concept| concept.units.get(unit))
                .map(|raw| raw.iter().filter_map(Fact::from_raw).collect())
                .unwrap_or_default()
        };
        let wanted = LINES
            .iter()
            .flat_map(|(_, _, tags)| tags.iter().copied())
            .chain([LIABILITIES_AND_EQUITY, STOCKHOLDERS_EQUITY]);
        let gaap = wanted.map(|tag| (tag.to_owned(), facts_in("us-gaap", tag, "USD"))).collect();
        Self { gaap, shares: facts_in("dei", SHARES_OUTSTANDING, "shares") }
    }

    fn tag(&self, tag: &str) -> &[Fact] {
        self.gaap.get(tag).map_or(&[], Vec::as_slice)
    }

    /// Fiscal year ends: end dates of annual flows of the flow lines, newest first.
    pub(super) fn fiscal_year_ends(&self) -> Vec<Date> {
        let ends: BTreeSet<Date> =
            self.flow_facts().filter(|fact| fact.is_annual_flow()).map(|fact| fact.end).collect();
        ends.into_iter().rev().collect()
    }

    /// The latest-filed fact of `tag` for the fiscal year ending `year_end`.
    pub(super) fn pick(&self, tag: &str, kind: Kind, year_end: Date) -> Option<&Fact> {
        let is_annual = |fact: &Fact| match kind {
            Kind::Flow => fact.is_annual_flow(),
            Kind::Instant => fact.is_annual_instant(),
        };
        latest_filed(self.tag(tag).iter().filter(|fact| fact.end == year_end && is_annual(fact)))
    }

    /// The 10-K cover-page share count for the fiscal year ending `year_end`: the facts of the latest
    /// filing dated within the window after it, summed over share classes.
    pub(super) fn shares_outstanding(&self, year_end: Date) -> Option<(f64, Vec<&Fact>)> {
        let in_window = |fact: &&Fact| {
            let days = (fact.end - year_end).whole_days();
            fact.is_annual_instant() && (0..=SHARES_COVER_WINDOW_DAYS).contains(&days)
        };
        let chosen = latest_filed(self.shares.iter().filter(in_window))?;
        let classes: Vec<&Fact> =
            self.shares.iter().filter(in_window).filter(|f| f.accn == chosen.accn && f.end == chosen.end).collect();
        Some((classes.iter().map(|fact| fact.val).sum(), classes))
    }

    /// Every fact of the flow lines' tags.
    fn flow_facts(&self) -> impl Iterator<Item = &Fact> {
        LINES
            .iter()
            .filter(|(_, kind, _)| *kind == Kind::Flow)
            .flat_map(|(_, _, tags)| tags.iter())
            .flat_map(|tag| self.tag(tag).iter())
    }

    /// Fiscal years as `end → start`, from the annual flows of the flow lines.
    fn fiscal_year_periods(&self) -> BTreeMap<Date, Date> {
        periods(self.flow_facts().filter(|fact| fact.is_annual_flow()))
    }

    /// Quarters reported in 10-Qs as `end → start`, from the three-month flows of the flow lines.
    fn quarter_periods(&self) -> BTreeMap<Date, Date> {
        periods(self.flow_facts().filter(|fact| fact.is_quarter_flow()))
    }

    /// The latest-filed annual fact of `tag` for exactly the fiscal year `start..=end`.
    fn fiscal_year_flow(&self, tag: &str, start: Date, end: Date) -> Option<&Fact> {
        latest_filed(self.tag(tag).iter().filter(|f| f.is_annual_flow() && f.start == Some(start) && f.end == end))
    }

    /// The latest-filed 10-Q fact of `tag` for exactly the period `start..=end`.
    fn quarterly_report_flow(&self, tag: &str, start: Date, end: Date) -> Option<&Fact> {
        latest_filed(self.tag(tag).iter().filter(|f| f.is_quarterly_filing() && f.start == Some(start) && f.end == end))
    }

    /// `tag` over the 10-Q quarter `start..=end`: the three-month fact, else the difference of two
    /// year-to-date facts with the same start, ending on `end` and on the day before `start`.
    pub(super) fn quarter_flow(&self, tag: &str, start: Date, end: Date) -> Option<QuarterFlow<'_>> {
        if let Some(fact) = self.quarterly_report_flow(tag, start, end) {
            return Some(QuarterFlow {
                value: fact.val,
                fact,
                derivation: None,
                citation: format!("{} (accn {})", fact.val, fact.accn),
            });
        }
        let before = start.previous_day()?;
        let year_starts: BTreeSet<Date> = self
            .tag(tag)
            .iter()
            .filter(|f| f.is_quarterly_filing() && f.end == end)
            .filter_map(|f| f.start)
            .filter(|year_start| *year_start < start)
            .collect();
        // The latest common start is the fiscal year's (an older one would be a longer cumulation).
        year_starts.iter().rev().find_map(|&year_start| {
            let longer = self.quarterly_report_flow(tag, year_start, end)?;
            let shorter = self.quarterly_report_flow(tag, year_start, before)?;
            let value = longer.val - shorter.val;
            let derivation = format!(
                "year to date {year_start} to {end} {} (accn {}) - year to date {year_start} to {before} {} (accn {})",
                longer.val, longer.accn, shorter.val, shorter.accn
            );
            Some(QuarterFlow {
                value,
                fact: longer,
                citation: format!("{value} ({derivation})"),
                derivation: Some(derivation),
            })
        })
    }

    /// `tag` over a derived fourth quarter: FY − Q1 − Q2 − Q3, all four of this tag.
    pub(super) fn fourth_quarter_flow(&self, tag: &str, fourth: &FourthQuarter) -> Option<QuarterFlow<'_>> {
        let year = self.fiscal_year_flow(tag, fourth.year_start, fourth.year_end)?;
        let mut first_three = Vec::with_capacity(3);
        for &(start, end) in &fourth.first_three {
            first_three.push(self.quarter_flow(tag, start, end)?);
        }
        let value = year.val - first_three.iter().map(|q| q.value).sum::<f64>();
        let quarters: Vec<String> =
            first_three.iter().enumerate().map(|(i, q)| format!(" - Q{} {}", i + 1, q.citation)).collect();
        let derivation = format!(
            "fourth quarter = fiscal year {} to {} {} ({} accn {}){}",
            fourth.year_start,
            fourth.year_end,
            year.val,
            year.form,
            year.accn,
            quarters.concat()
        );
        Some(QuarterFlow { value, fact: year, citation: value.to_string(), derivation: Some(derivation) })
    }

    /// The latest-filed balance-sheet fact of `tag` dated `end`, from a 10-K or a 10-Q.
    pub(super) fn periodic_instant(&self, tag: &str, end: Date) -> Option<&Fact> {
        latest_filed(self.tag(tag).iter().filter(|f| f.is_periodic_instant() && f.end == end))
    }

    /// The quarters to report, newest first (at most `limit`), and the fiscal fourth quarters left
    /// out, each with its reason.
    pub(super) fn quarter_plans(&self, limit: usize) -> (Vec<QuarterPlan>, Vec<String>) {
        let reported = self.quarter_periods();
        let by_start: BTreeMap<Date, Date> = reported.iter().map(|(&end, &start)| (start, end)).collect();
        let mut plans: Vec<QuarterPlan> =
            reported.iter().map(|(&end, &start)| QuarterPlan { start, end, fourth: None }).collect();
        let mut left_out: Vec<(Date, String)> = Vec::new();
        for (&year_end, &year_start) in &self.fiscal_year_periods() {
            if reported.contains_key(&year_end) {
                continue;
            }
            match FourthQuarter::of(&by_start, year_start, year_end) {
                Ok(fourth) => plans.push(QuarterPlan { start: fourth.start, end: year_end, fourth: Some(fourth) }),
                Err(reason) => left_out.push((
                    year_end,
                    format!(
                        "the fourth quarter of the fiscal year {year_start} to {year_end} is left out: {reason};                          it is derived only as FY - Q1 - Q2 - Q3 when all are reported"
                    ),
                )),
            }
        }
        plans.sort_by_key(|plan| std::cmp::Reverse(plan.end));
        plans.truncate(limit.min(MAX_QUARTERS));
        let Some(oldest) = plans.last().map(|plan| plan.end) else {
            return (plans, vec!["no quarterly (10-Q) facts of three-month periods are reported".to_owned()]);
        };
        let notes = left_out.into_iter().rev().filter(|(end, _)| *end > oldest).map(|(_, note)| note).collect();
        (plans, notes)
    }
}

/// One quarter's value of a flow line, with the fact it rests on.
pub(super) struct QuarterFlow<'a> {
    pub(super) value: f64,
    /// The reported fact, or the one a derivation starts from (the longer year-to-date figure, the
    /// fiscal year).
    pub(super) fact: &'a Fact,
    pub(super) derivation: Option<String>,
    /// The value with its source, as a fourth-quarter derivation cites it.
    citation: String,
}

/// A quarter to fill in.
pub(super) struct QuarterPlan {
    pub(super) start: Date,
    pub(super) end: Date,
    /// Set for a fiscal fourth quarter, derived from its fiscal year and first three quarters.
    pub(super) fourth: Option<FourthQuarter>,
}

/// A fiscal fourth quarter and what it is derived from.
pub(super) struct FourthQuarter {
    year_start: Date,
    year_end: Date,
    /// Q1, Q2 and Q3 as `(start, end)`.
    first_three: [(Date, Date); 3],
    /// The day after Q3 ends.
    start: Date,
}

impl FourthQuarter {
    /// The fourth quarter of the fiscal year `year_start..=year_end`, when the 10-Q quarters
    /// (`by_start`: start → end) hold its Q1 (starting on `year_start`), Q2 and Q3, each starting
    /// the day after the previous one ends, and what remains is 80–100 days long.
    fn of(by_start: &BTreeMap<Date, Date>, year_start: Date, year_end: Date) -> Result<Self, String> {
        let mut first_three = [(year_start, year_start); 3];
        let mut next_start = year_start;
        for (index, slot) in first_three.iter_mut().enumerate() {
            let number = index + 1;
            let end = *by_start
                .get(&next_start)
                .ok_or_else(|| format!("no 10-Q reports its Q{number} (a quarter starting {next_start})"))?;
            *slot = (next_start, end);
            next_start = end.next_day().ok_or_else(|| format!("Q{number} ends on the last representable day"))?;
        }
        let remaining = (year_end - next_start).whole_days();
        if !QUARTER_DAYS.contains(&remaining) {
            return Err(format!(
                "its first three quarters end {}, leaving {} days, not a quarter",
                first_three[2].1,
                remaining + 1
            ));
        }
        Ok(Self { year_start, year_end, first_three, start: next_start })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn market_a_fourth_quarter_needs_q1_from_the_first_day_and_a_quarter_length_remainder() {
        let day = |y, m: u8, d| Date::from_calendar_date(y, time::Month::try_from(m).expect("month"), d).expect("date");
        let quarters =
            |list: &[(Date, Date)]| list.iter().map(|&(start, end)| (start, end)).collect::<BTreeMap<_, _>>();
        let tiled = quarters(&[
            (day(2023, 1, 1), day(2023, 3, 31)),
            (day(2023, 4, 1), day(2023, 6, 30)),
            (day(2023, 7, 1), day(2023, 9, 30)),
        ]);
        let fourth = FourthQuarter::of(&tiled, day(2023, 1, 1), day(2023, 12, 31)).expect("fourth");
        assert_eq!(fourth.start, day(2023, 10, 1));

        let error = FourthQuarter::of(&tiled, day(2023, 1, 1), day(2024, 1, 31)).err().expect("too long");
        assert!(error.contains("leaving 123 days"), "{error}");
        let error = FourthQuarter::of(&tiled, day(2022, 12, 25), day(2023, 12, 24)).err().expect("other start");
        assert!(error.contains("Q1 (a quarter starting 2022-12-25)"), "{error}");
        let gap = quarters(&[(day(2023, 1, 1), day(2023, 3, 31)), (day(2023, 4, 2), day(2023, 6, 30))]);
        let error = FourthQuarter::of(&gap, day(2023, 1, 1), day(2023, 12, 31)).err().expect("gap");
        assert!(error.contains("Q2 (a quarter starting 2023-04-01)"), "{error}");
    }
}
