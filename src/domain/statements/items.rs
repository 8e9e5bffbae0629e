//! The line items a supplied statement set carries: their names on the wire (the JSON field names,
//! fixed by the API contract), which of them every period must state, and the sign each takes.

use serde::Serialize;

/// One line item of a supplied period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatementItem {
    Revenue,
    OperatingIncome,
    DepreciationAmortization,
    Ebitda,
    InterestExpense,
    IncomeTax,
    NetIncome,
    Cash,
    CurrentAssets,
    TotalAssets,
    CurrentLiabilities,
    TotalLiabilities,
    TotalDebt,
    TotalEquity,
    RetainedEarnings,
    OperatingCashFlow,
    CapitalExpenditure,
    ScheduledPrincipal,
}

/// What kind of amount an item is: how it is measured over the period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// Accumulated over the period (income statement, cash flow): a year-to-date figure differs
    /// from the quarter's.
    Flow,
    /// Measured at the period end (balance sheet).
    Balance,
}

/// Which signs an item may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sign {
    /// Never below zero: a cost or outflow is stated as a positive number.
    NonNegative,
    /// Either sign (a loss, negative equity).
    Any,
}

impl StatementItem {
    pub const ALL: [StatementItem; 18] = [
        Self::Revenue,
        Self::OperatingIncome,
        Self::DepreciationAmortization,
        Self::Ebitda,
        Self::InterestExpense,
        Self::IncomeTax,
        Self::NetIncome,
        Self::Cash,
        Self::CurrentAssets,
        Self::TotalAssets,
        Self::CurrentLiabilities,
        Self::TotalLiabilities,
        Self::TotalDebt,
        Self::TotalEquity,
        Self::RetainedEarnings,
        Self::OperatingCashFlow,
        Self::CapitalExpenditure,
        Self::ScheduledPrincipal,
    ];

    /// The field name in the API's `financials.periods[]` objects.
    pub fn name(self) -> &'static str {
        match self {
            Self::Revenue => "revenue",
            Self::OperatingIncome => "operating_income",
            Self::DepreciationAmortization => "depreciation_amortization",
            Self::Ebitda => "ebitda",
            Self::InterestExpense => "interest_expense",
            Self::IncomeTax => "income_tax",
            Self::NetIncome => "net_income",
            Self::Cash => "cash",
            Self::CurrentAssets => "current_assets",
            Self::TotalAssets => "total_assets",
            Self::CurrentLiabilities => "current_liabilities",
            Self::TotalLiabilities => "total_liabilities",
            Self::TotalDebt => "total_debt",
            Self::TotalEquity => "total_equity",
            Self::RetainedEarnings => "retained_earnings",
            Self::OperatingCashFlow => "operating_cash_flow",
            Self::CapitalExpenditure => "capital_expenditure",
            Self::ScheduledPrincipal => "scheduled_principal",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|item| item.name() == name)
    }

    /// Whether every period must state it.
    pub fn required(self) -> bool {
        !matches!(
            self,
            Self::DepreciationAmortization
                | Self::Ebitda
                | Self::IncomeTax
                | Self::RetainedEarnings
                | Self::OperatingCashFlow
                | Self::CapitalExpenditure
                | Self::ScheduledPrincipal
        )
    }

    pub fn kind(self) -> ItemKind {
        match self {
            Self::Cash
            | Self::CurrentAssets
            | Self::TotalAssets
            | Self::CurrentLiabilities
            | Self::TotalLiabilities
            | Self::TotalDebt
            | Self::TotalEquity
            | Self::RetainedEarnings => ItemKind::Balance,
            _ => ItemKind::Flow,
        }
    }

    /// The signs the item may take. Costs and outflows (interest, capital expenditure, scheduled
    /// principal) are positive numbers; income tax may be a benefit; income, cash flow and equity
    /// may be negative.
    pub fn sign(self) -> Sign {
        match self {
            Self::Revenue
            | Self::DepreciationAmortization
            | Self::InterestExpense
            | Self::Cash
            | Self::CurrentAssets
            | Self::TotalAssets
            | Self::CurrentLiabilities
            | Self::TotalLiabilities
            | Self::TotalDebt
            | Self::CapitalExpenditure
            | Self::ScheduledPrincipal => Sign::NonNegative,
            Self::OperatingIncome
            | Self::Ebitda
            | Self::IncomeTax
            | Self::NetIncome
            | Self::TotalEquity
            | Self::RetainedEarnings
            | Self::OperatingCashFlow => Sign::Any,
        }
    }

    /// What the item means and its sign, for the API description.
    pub fn description(self) -> &'static str {
        match self {
            Self::Revenue => "net sales / total revenue over the period (>= 0)",
            Self::OperatingIncome => "operating income (EBIT) over the period; negative for an operating loss",
            Self::DepreciationAmortization => "depreciation and amortisation over the period (>= 0)",
            Self::Ebitda => {
                "EBITDA over the period as the borrower reports it; when absent, operating_income + depreciation_amortization"
            }
            Self::InterestExpense => "interest expense over the period, a positive cost (>= 0)",
            Self::IncomeTax => "income tax expense over the period; negative for a tax benefit",
            Self::NetIncome => "net income over the period; negative for a loss",
            Self::Cash => "cash and cash equivalents at the period end (>= 0)",
            Self::CurrentAssets => "current assets at the period end (>= 0)",
            Self::TotalAssets => "total assets at the period end (>= 0)",
            Self::CurrentLiabilities => "current liabilities at the period end (>= 0)",
            Self::TotalLiabilities => "total liabilities at the period end (>= 0)",
            Self::TotalDebt => "interest-bearing debt at the period end, current portion and leases included (>= 0)",
            Self::TotalEquity => {
                "shareholders' equity (book) at the period end; negative when liabilities exceed assets"
            }
            Self::RetainedEarnings => "retained earnings (accumulated deficit negative) at the period end",
            Self::OperatingCashFlow => "net cash from operating activities over the period",
            Self::CapitalExpenditure => {
                "purchases of property, plant and equipment over the period, a positive outflow (>= 0)"
            }
            Self::ScheduledPrincipal => "principal repayments scheduled over the next twelve months (>= 0)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_round_trips_through_its_wire_name() {
        for item in StatementItem::ALL {
            assert_eq!(StatementItem::from_name(item.name()), Some(item));
        }
        assert_eq!(StatementItem::from_name("sales"), None);
        assert_eq!(StatementItem::ALL.iter().filter(|i| i.required()).count(), 11);
    }
}
