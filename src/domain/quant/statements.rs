//! Normalised annual financial statements — the input of every credit computation — and the derived
//! lines (total debt, net debt, EBITDA, FCF, FFO) whose definition varies between analysts, so each
//! helper states the variant it implements (DOMAIN.md §1 definitions, §3 line list).
//!
//! Every line is an `Option<f64>`: a provider that does not report a line leaves it `None`, and the
//! computations that need it report the gap instead of guessing a zero.

use time::Date;

/// Most fiscal years a [`CompanyFinancials`] keeps: the latest and up to five prior.
pub const MAX_FISCAL_YEARS: usize = 6;

/// One fiscal year of statements, in the statements' currency (shares in units).
///
/// Amounts carry the sign the filer reports: interest expense, income tax and capital expenditure are
/// positive numbers for a cost or an outflow (SEC `InterestExpense`, `IncomeTaxExpenseBenefit`,
/// `PaymentsToAcquirePropertyPlantAndEquipment`).
#[derive(Clone, Debug, PartialEq)]
pub struct FiscalYearStatement {
    /// Last day of the fiscal year.
    pub fiscal_year_end: Date,
    pub revenue: Option<f64>,
    /// Gross profit, when the filer reports it.
    pub gross_profit: Option<f64>,
    /// Operating income, used as EBIT.
    pub operating_income: Option<f64>,
    pub net_income: Option<f64>,
    pub depreciation_amortization: Option<f64>,
    pub interest_expense: Option<f64>,
    pub income_tax: Option<f64>,
    pub total_assets: Option<f64>,
    pub current_assets: Option<f64>,
    pub total_liabilities: Option<f64>,
    pub current_liabilities: Option<f64>,
    /// Long-term debt, non-current portion (`LongTermDebtNoncurrent`).
    pub long_term_debt_noncurrent: Option<f64>,
    /// Long-term debt due within a year (`LongTermDebtCurrent`).
    pub long_term_debt_current: Option<f64>,
    /// Long-term debt in total, current portion included (`LongTermDebt`).
    pub long_term_debt: Option<f64>,
    pub short_term_borrowings: Option<f64>,
    pub commercial_paper: Option<f64>,
    pub finance_leases: Option<f64>,
    /// Shareholders' equity (book).
    pub equity: Option<f64>,
    /// Cash and cash equivalents.
    pub cash: Option<f64>,
    /// Short-term (marketable) investments; only the quick ratio uses them.
    pub short_term_investments: Option<f64>,
    pub retained_earnings: Option<f64>,
    pub receivables: Option<f64>,
    pub inventory: Option<f64>,
    /// Net cash provided by operating activities.
    pub cash_from_operations: Option<f64>,
    /// Payments for property, plant and equipment (a positive outflow; the sign is ignored).
    pub capital_expenditure: Option<f64>,
    pub shares_outstanding: Option<f64>,
    /// Total debt as the borrower states it (supplied statements), used instead of the sum of the
    /// debt lines.
    pub stated_total_debt: Option<f64>,
    /// EBITDA as the borrower states it (supplied statements), used instead of operating income +
    /// D&A.
    pub stated_ebitda: Option<f64>,
    /// Principal repayments scheduled over the next twelve months (supplied statements).
    pub scheduled_principal: Option<f64>,
}

impl FiscalYearStatement {
    /// A year with every line unreported, to be filled in field by field.
    pub fn empty(fiscal_year_end: Date) -> Self {
        Self {
            fiscal_year_end,
            revenue: None,
            gross_profit: None,
            operating_income: None,
            net_income: None,
            depreciation_amortization: None,
            interest_expense: None,
            income_tax: None,
            total_assets: None,
            current_assets: None,
            total_liabilities: None,
            current_liabilities: None,
            long_term_debt_noncurrent: None,
            long_term_debt_current: None,
            long_term_debt: None,
            short_term_borrowings: None,
            commercial_paper: None,
            finance_leases: None,
            equity: None,
            cash: None,
            short_term_investments: None,
            retained_earnings: None,
            receivables: None,
            inventory: None,
            cash_from_operations: None,
            capital_expenditure: None,
            shares_outstanding: None,
            stated_total_debt: None,
            stated_ebitda: None,
            scheduled_principal: None,
        }
    }

    /// EBIT, taken as reported operating income.
    pub fn ebit(&self) -> Option<f64> {
        finite(self.operating_income)
    }

    /// Long-term debt including its current portion: non-current + current when both are reported,
    /// else the reported total (`LongTermDebt`), else whichever single portion is reported.
    pub fn long_term_debt_total(&self) -> Option<f64> {
        match (finite(self.long_term_debt_noncurrent), finite(self.long_term_debt_current), finite(self.long_term_debt))
        {
            (Some(noncurrent), Some(current), _) => Some(noncurrent + current),
            (_, _, Some(total)) => Some(total),
            (Some(noncurrent), None, None) => Some(noncurrent),
            (None, Some(current), None) => Some(current),
            (None, None, None) => None,
        }
    }

    /// Total debt: the borrower's stated total when it states one; otherwise (DOMAIN.md §1) long-term debt incl. current portion ([`Self::long_term_debt_total`])
    /// plus short-term borrowings, commercial paper and finance leases, summing whatever is reported;
    /// `None` only when none of these lines is reported.
    pub fn total_debt(&self) -> Option<f64> {
        if let Some(stated) = finite(self.stated_total_debt) {
            return Some(stated);
        }
        sum_reported(&[
            self.long_term_debt_total(),
            finite(self.short_term_borrowings),
            finite(self.commercial_paper),
            finite(self.finance_leases),
        ])
    }

    /// Debt due within a year for the Merton model: current portion of long-term debt + short-term
    /// borrowings + commercial paper (Bharath–Shumway's "debt in current liabilities").
    pub fn current_debt(&self) -> Option<f64> {
        sum_reported(&[
            finite(self.long_term_debt_current),
            finite(self.short_term_borrowings),
            finite(self.commercial_paper),
        ])
    }

    /// Long-term debt excluding the current portion: the non-current line when reported, else the
    /// reported total minus the current portion (when that is reported), else the total.
    pub fn long_term_debt_excluding_current(&self) -> Option<f64> {
        match (finite(self.long_term_debt_noncurrent), finite(self.long_term_debt), finite(self.long_term_debt_current))
        {
            (Some(noncurrent), _, _) => Some(noncurrent),
            (None, Some(total), Some(current)) => Some(total - current),
            (None, Some(total), None) => Some(total),
            (None, None, _) => None,
        }
    }

    /// Net debt = total debt − cash and equivalents; `None` when either is unreported.
    pub fn net_debt(&self) -> Option<f64> {
        Some(self.total_debt()? - finite(self.cash)?)
    }

    /// EBITDA: the borrower's stated EBITDA when it states one; otherwise operating income (EBIT) +
    /// depreciation & amortisation, `None` when either is missing
    /// (EBIT alone would understate it).
    pub fn ebitda(&self) -> Option<f64> {
        if let Some(stated) = finite(self.stated_ebitda) {
            return Some(stated);
        }
        Some(self.ebit()? + finite(self.depreciation_amortization)?)
    }

    /// Free cash flow = cash from operations − |capital expenditure|.
    pub fn free_cash_flow(&self) -> Option<f64> {
        Some(finite(self.cash_from_operations)? - finite(self.capital_expenditure)?.abs())
    }

    /// Funds from operations ≈ EBITDA − interest expense − income tax expense: the income-statement
    /// charges stand in for cash interest and cash taxes, which SEC facts do not reliably carry.
    pub fn funds_from_operations(&self) -> Option<f64> {
        Some(self.ebitda()? - finite(self.interest_expense)? - finite(self.income_tax)?)
    }

    /// Total liabilities as reported, else total assets − equity (the balance-sheet identity).
    pub fn total_liabilities_or_derived(&self) -> Option<f64> {
        finite(self.total_liabilities).or_else(|| Some(finite(self.total_assets)? - finite(self.equity)?))
    }

    /// Working capital = current assets − current liabilities.
    pub fn working_capital(&self) -> Option<f64> {
        Some(finite(self.current_assets)? - finite(self.current_liabilities)?)
    }
}

/// A company's annual statements: newest first, at most [`MAX_FISCAL_YEARS`], one per fiscal year end.
#[derive(Clone, Debug, PartialEq)]
pub struct CompanyFinancials {
    name: String,
    ticker: Option<String>,
    years: Vec<FiscalYearStatement>,
    ownership: Ownership,
}

/// Whether a company's shares are listed, which decides the Altman model: a private firm's score
/// rests on book equity (Z′) because there is no market value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    Listed,
    Private,
}

impl CompanyFinancials {
    /// Orders the years newest first, keeps the first statement given for each fiscal year end, and
    /// keeps the latest [`MAX_FISCAL_YEARS`].
    pub fn new(name: impl Into<String>, ticker: Option<String>, mut years: Vec<FiscalYearStatement>) -> Self {
        // Stable sort so that, among duplicates, the one given first survives the dedup.
        years.sort_by_key(|y| std::cmp::Reverse(y.fiscal_year_end));
        years.dedup_by(|later, earlier| later.fiscal_year_end == earlier.fiscal_year_end);
        years.truncate(MAX_FISCAL_YEARS);
        Self { name: name.into(), ticker, years, ownership: Ownership::Listed }
    }

    /// The same statements, of a private company.
    #[must_use]
    pub fn of_private_company(mut self) -> Self {
        self.ownership = Ownership::Private;
        self
    }

    pub fn ownership(&self) -> Ownership {
        self.ownership
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn ticker(&self) -> Option<&str> {
        self.ticker.as_deref()
    }

    /// Newest first.
    pub fn years(&self) -> &[FiscalYearStatement] {
        &self.years
    }

    /// The latest fiscal year, if any.
    pub fn latest(&self) -> Option<&FiscalYearStatement> {
        self.years.first()
    }

    /// The year before the latest, if reported.
    pub fn prior(&self) -> Option<&FiscalYearStatement> {
        self.years.get(1)
    }
}

/// The value when it is reported and finite: a NaN or infinity from a provider counts as unreported.
pub(crate) fn finite(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite())
}

fn sum_reported(parts: &[Option<f64>]) -> Option<f64> {
    parts.iter().flatten().copied().reduce(|a, b| a + b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn total_debt_sums_both_long_term_portions_and_short_term_lines() {
        let mut year = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        year.long_term_debt_noncurrent = Some(800.0);
        year.long_term_debt_current = Some(100.0);
        year.long_term_debt = Some(900.0);
        year.short_term_borrowings = Some(50.0);
        year.commercial_paper = Some(25.0);
        year.finance_leases = Some(10.0);
        year.cash = Some(200.0);
        assert_eq!(year.total_debt(), Some(800.0 + 100.0 + 50.0 + 25.0 + 10.0));
        assert_eq!(year.net_debt(), Some(985.0 - 200.0));
        assert_eq!(year.current_debt(), Some(100.0 + 50.0 + 25.0));
        assert_eq!(year.long_term_debt_excluding_current(), Some(800.0));
    }

    #[test]
    fn total_debt_falls_back_to_the_reported_long_term_total() {
        let mut year = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        year.long_term_debt = Some(900.0);
        year.long_term_debt_current = Some(100.0);
        assert_eq!(year.total_debt(), Some(900.0));
        assert_eq!(year.long_term_debt_excluding_current(), Some(800.0));
    }

    #[test]
    fn total_debt_is_none_when_no_debt_line_is_reported() {
        let year = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        assert_eq!(year.total_debt(), None);
        assert_eq!(year.net_debt(), None);
    }

    #[test]
    fn ebitda_fcf_and_ffo_follow_the_stated_definitions() {
        let mut year = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        year.operating_income = Some(300.0);
        year.depreciation_amortization = Some(50.0);
        year.interest_expense = Some(40.0);
        year.income_tax = Some(60.0);
        year.cash_from_operations = Some(280.0);
        year.capital_expenditure = Some(-90.0);
        assert_eq!(year.ebitda(), Some(350.0));
        assert_eq!(year.free_cash_flow(), Some(190.0));
        assert_eq!(year.funds_from_operations(), Some(350.0 - 40.0 - 60.0));
    }

    #[test]
    fn non_finite_lines_count_as_unreported() {
        let mut year = FiscalYearStatement::empty(date!(2023 - 12 - 31));
        year.operating_income = Some(f64::NAN);
        year.depreciation_amortization = Some(1.0);
        assert_eq!(year.ebitda(), None);
    }

    #[test]
    fn company_financials_sorts_newest_first_dedups_and_keeps_six_years() {
        let years = (2015..=2023)
            .map(|y| {
                FiscalYearStatement::empty(Date::from_calendar_date(y, time::Month::December, 31).expect("valid date"))
            })
            .chain(std::iter::once(FiscalYearStatement::empty(date!(2023 - 12 - 31))))
            .collect();
        let company = CompanyFinancials::new("Acme", None, years);
        let ends: Vec<i32> = company.years().iter().map(|y| y.fiscal_year_end.year()).collect();
        assert_eq!(ends, vec![2023, 2022, 2021, 2020, 2019, 2018]);
    }
}
