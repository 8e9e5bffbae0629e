//! Row labels taken from published statements (10-K and 10-Q filings, IFRS annual reports, and
//! two data vendors' layouts of filed statements that analysts paste), each with what it must
//! read as. The collection was split before the reading rules were written: the rules come from
//! [`DEVELOPMENT`]; [`HELD_OUT`] (every sixth label) measures them.

use super::*;
use Expect::*;
use StatementItem::*;

/// What a published label must read as.
#[derive(Clone, Copy, Debug)]
enum Expect {
    Read(StatementItem),
    /// Not read as any item (why, for the reader of this table).
    NotRead(&'static str),
}

/// The labels the reading rules were written from.
const DEVELOPMENT: &[(&str, Expect)] = &[
    // Nature's Sunshine Products 10-K 2011, quarterly operations.
    ("Net sales revenue", Read(Revenue)),
    ("Operating income (loss)", Read(OperatingIncome)),
    ("Income (loss) before income taxes", NotRead("pre-tax")),
    ("Tax provision (benefit)", Read(IncomeTax)),
    ("Net income (loss)", Read(NetIncome)),
    ("Gross profit", NotRead("a margin, not an item")),
    ("Selling, general and administrative", NotRead("a cost line")),
    ("Other income (expense)", NotRead("not an item")),
    // CIK 57725 10-K fiscal 2013, quarterly results.
    ("Net sales", Read(Revenue)),
    ("Less: Net income (loss) attributable to noncontrolling interest", NotRead("the NCI share")),
    ("Earnings per common share (1)", NotRead("per share")),
    // Mueller Industries 10-Q Q1 2010, statement of operations.
    ("Cost of goods sold", NotRead("a cost line")),
    ("Depreciation and amortization", Read(DepreciationAmortization)),
    ("Interest expense", Read(InterestExpense)),
    ("Other income, net", NotRead("not an item")),
    ("Consolidated net income (loss)", Read(NetIncome)),
    ("Less net (income) loss attributable to noncontrolling interest", NotRead("the NCI share")),
    ("Net income (loss) attributable to the Company", NotRead("after NCI")),
    // Mueller Industries 10-Q Q1 2010, balance sheet.
    ("Cash and cash equivalents", Read(Cash)),
    ("Accounts receivable, net", NotRead("an asset line")),
    ("Property, plant, and equipment, net", NotRead("an asset line")),
    ("Current portion of long-term debt", NotRead("a balance, not scheduled principal")),
    ("Total current liabilities", Read(CurrentLiabilities)),
    ("Long-term debt, less current portion", NotRead("leaves out the current portion")),
    // SBM Offshore annual report 2020, consolidated income statement.
    ("Revenue from contracts with customers", NotRead("IFRS 15 part of total revenue")),
    ("Total revenue", Read(Revenue)),
    ("Gross margin", NotRead("a margin, not an item")),
    ("Operating profit/(loss) (EBIT)", Read(OperatingIncome)),
    ("Financial expenses", NotRead("may include exchange and derivative losses")),
    ("Net financing costs", NotRead("net of financial income")),
    ("Profit/(loss)", NotRead("bare profit is ambiguous")),
    ("Attributable to shareholders of the parent company", NotRead("a share of profit")),
    // Inchcape five-year record 2020, consolidated income statement.
    ("Operating profit before exceptional items", NotRead("adjusted")),
    ("Operating (loss) / profit", Read(OperatingIncome)),
    ("(Loss) / profit before finance and tax", NotRead("before the share of joint ventures is split out")),
    ("(Loss) / profit before tax", NotRead("pre-tax")),
    ("(Loss) / profit after tax", Read(NetIncome)),
    ("(Loss) / profit for the year", Read(NetIncome)),
    // Inchcape five-year record 2020, statement of financial position.
    ("Net (debt) / funds", NotRead("net of cash")),
    ("Net assets", NotRead("beside total equity")),
    ("Total equity", Read(TotalEquity)),
    // International Personal Finance 2020, consolidated income statement.
    ("Finance costs", Read(InterestExpense)),
    ("(Loss)/profit before taxation", NotRead("pre-tax")),
    ("Total tax (expense)/income", NotRead("expense shown negative")),
    ("(Loss)/profit after taxation attributable to owners of the Company", NotRead("after NCI")),
    // Exxaro 2020, group statement of comprehensive income.
    ("Operating expenses (note 8)", NotRead("a cost line")),
    ("Net operating profit", NotRead("after impairments, beside operating profit")),
    ("Operating profit", Read(OperatingIncome)),
    ("Finance income (note 10)", NotRead("income, not interest expense")),
    ("Finance costs (note 10)", Read(InterestExpense)),
    ("Profit for the year from discontinued operations (note 6)", NotRead("discontinued operations only")),
    ("Other comprehensive loss, net of tax", NotRead("not profit or loss")),
    ("Profit for the year", Read(NetIncome)),
    // Grant Thornton IFRS example consolidated financial statements 2023, statement of profit or loss.
    ("Employee benefits expense", NotRead("a cost line")),
    // Grant Thornton IFRS example consolidated financial statements 2023.
    ("Depreciation, amortisation and impairment of non-financial assets", NotRead("includes impairment")),
    // United Utilities annual report 2019, statement of cash flows.
    ("Cash generated from operations", NotRead("before interest and tax")),
    ("Interest paid", NotRead("cash paid, not the expense")),
    ("Tax paid", NotRead("cash paid, not the expense")),
    ("Net cash generated from operating activities", Read(OperatingCashFlow)),
    ("Purchase of property, plant and equipment", Read(CapitalExpenditure)),
    ("Proceeds from borrowings", NotRead("a financing flow")),
    ("Repayment of borrowings", NotRead("a financing flow")),
    ("Cash and cash equivalents at end of the year", NotRead("may be net of overdrafts")),
    // Alliander annual report 2024, consolidated cash flow statement.
    ("Profit after tax", Read(NetIncome)),
    ("Depreciation, amortisation and impairment", NotRead("includes impairment")),
    ("Cash flow from operating activities", Read(OperatingCashFlow)),
    ("Investments in property, plant and equipment", Read(CapitalExpenditure)),
    ("Long-term debt redeemed", NotRead("a financing flow")),
    // Lenzing annual report 2024, consolidated statement of cash flows.
    ("Net profit/loss after tax", Read(NetIncome)),
    ("Gross cash flow", NotRead("before working capital")),
    // PGE Kogeneracja annual report 2024, statement of cash flows.
    ("Net cash from operating activities", Read(OperatingCashFlow)),
    ("Purchases of intangible assets and property, plant and equipment", NotRead("includes intangibles")),
    // Amazon.com 10-K 2016, consolidated statements of cash flows.
    ("Net cash provided by (used in) operating activities", Read(OperatingCashFlow)),
    (
        "Purchases of property and equipment, including internal-use software and website development, net",
        NotRead("net of proceeds and incentives"),
    ),
    ("Repayments of long-term debt and other", NotRead("a financing flow")),
    // CoreCivic 10-K 2019, consolidated statements of operations.
    ("OPERATING INCOME", Read(OperatingIncome)),
    ("Interest expense, net", NotRead("net of interest income")),
    ("INCOME BEFORE INCOME TAXES", NotRead("pre-tax")),
    ("NET INCOME", Read(NetIncome)),
    ("General and administrative", NotRead("a cost line")),
    // CIK 1101215 10-K 2011, quarterly results of operations.
    ("Income from continuing operations", NotRead("continuing operations only")),
    ("Loss from discontinued operations", NotRead("discontinued operations")),
    ("Income from continuing operations before income taxes", NotRead("pre-tax, continuing operations")),
    // Diamond Offshore 10-K 2011, unaudited quarterly financial data.
    ("Operating income (a)", Read(OperatingIncome)),
    ("Income before income tax expense", NotRead("pre-tax")),
    // CIK 892537 10-K 2012, quarterly financial information.
    ("Income from operations before income taxes", NotRead("pre-tax, not operating income")),
    // CIK 1001385 10-K 2013, long-term debt note.
    ("Total long-term debt", NotRead("current portion included here, excluded elsewhere")),
    // Align Technology 10-K 2000, balance sheet.
    ("Total stockholders' deficit", NotRead("sign of a deficit cannot be told")),
    ("Accumulated deficit", NotRead("sign cannot be told")),
    // Align Technology 10-K 2000, statement of operations.
    ("Total revenues", Read(Revenue)),
    // US issuer 10-K 2020 balance sheet (Variable Funding Notes), quoted on bartleby.
    ("Current maturities of long-term debt", NotRead("a balance, not scheduled principal")),
    ("Long-term debt, net of current maturities", NotRead("leaves out the current portion")),
    ("Lease liabilities, net of current portion", NotRead("part of lease liabilities")),
    ("Restricted cash", NotRead("not cash available to the borrower")),
    // Intel 10-K 1999, consolidated statements of cash flows.
    ("Additions to property, plant, and equipment", Read(CapitalExpenditure)),
    // H&E Equipment Services investor site, annual income statement.
    ("Interest Expense - Non-Operating", Read(InterestExpense)),
    ("Interest Expense, Net Non-Operating", NotRead("data-vendor layout")),
    ("Income Tax – Total", Read(IncomeTax)),
    ("Net Income Before Taxes", NotRead("pre-tax")),
    ("Net Income Before Extraordinary Items", NotRead("before extraordinary items")),
    // Brown & Brown income statement on fiscal.ai.
    ("Depreciation & Amortization Expenses", Read(DepreciationAmortization)),
    ("Income Before Provision for Income Taxes", NotRead("pre-tax")),
    ("Consolidated Net Income", Read(NetIncome)),
    ("Net Income Attributable to Common Shareholders", NotRead("after NCI and preferred dividends")),
    // National Grid annual report 2012/13, consolidated income statement.
    ("Total operating profit", Read(OperatingIncome)),
    ("Total taxation", Read(IncomeTax)),
    ("Profit before tax", NotRead("pre-tax")),
    ("Equity shareholders of the parent", NotRead("a share of profit")),
    // Dutch construction group annual report 2002, consolidated profit and loss account.
    ("Turnover", Read(Revenue)),
    ("Operating result", Read(OperatingIncome)),
    ("Net result", Read(NetIncome)),
    // Dutch construction group annual report 2002, consolidated balance sheet.
    ("Bank loans", NotRead("part of debt")),
    ("Shareholders equity", Read(TotalEquity)),
    // French IFRS group 2016, consolidated income statement.
    ("NET SALES", Read(Revenue)),
    ("CURRENT OPERATING PROFIT", NotRead("before non-recurring items")),
    ("Net income from continuing operations", NotRead("continuing operations only")),
    ("Net income attributable to equity holders of the parent company", NotRead("after NCI")),
    // NHK Spring 2018, consolidated balance sheet.
    ("Cash and bank deposits", NotRead("may include time deposits")),
    ("Short-term borrowings", NotRead("part of debt")),
    // Terumo 2013, consolidated balance sheet.
    ("Bonds payable", NotRead("part of debt")),
    // Sunright 2020, consolidated statement of comprehensive income.
    ("Profit/(loss), net of tax", Read(NetIncome)),
    ("Income tax credit/(expense)", NotRead("expense shown negative")),
    ("Depreciation of property, plant and equipment", NotRead("half of D&A")),
    // CIK 1650696 10-K 2022, quarterly results of operations.
    ("Sales, net", Read(Revenue)),
    ("Income tax benefit (expense)", NotRead("expense shown negative")),
    // CIK 1362190 10-Q 2022, statements of operations.
    ("Net loss", NotRead("opposite sign")),
    ("Net loss available to common stockholders", NotRead("after preferred dividends, opposite sign")),
    // CIK 1551306 10-K 2019, unaudited quarterly results.
    ("(Loss) income from operations", Read(OperatingIncome)),
    // CIK 1731289 10-K 2020, quarterly financial information.
    ("Interest income (expense), net", NotRead("net of interest income")),
    // CIK 1253176 10-K 2019, selected quarterly data.
    ("Benefit for income taxes", NotRead("benefit shown positive")),
    // CIK 1124140 10-K 2018, quarterly statement of operations.
    ("Loss from operations", NotRead("opposite sign")),
    // Citigroup quarterly earnings 2024.
    ("Total revenues, net of interest expense", NotRead("bank revenue net of interest expense")),
    // XBRL label for LongTermDebtAndFinanceLeaseObligations in a public 10-K parser fixture.
    ("Total debt, including current portion", Read(TotalDebt)),
    // Apple 10-K 2023, consolidated statements of operations.
    ("Total net sales", Read(Revenue)),
    ("Income before provision for income taxes", NotRead("pre-tax")),
    // Apple 10-K 2023, consolidated statements of cash flows.
    ("Payments for acquisition of property, plant and equipment", Read(CapitalExpenditure)),
    // Apple 10-K 2023, consolidated balance sheets.
    ("Total shareholders' equity", Read(TotalEquity)),
    // Microsoft 10-K 2025, cash flows statements.
    ("Net cash from operations", Read(OperatingCashFlow)),
    ("Additions to property and equipment", Read(CapitalExpenditure)),
];

/// Every sixth label of the collection, set aside before the rules were written and measured once
/// they were: see [`held_out_labels_are_never_read_as_a_wrong_item`].
const HELD_OUT: &[(&str, Expect)] = &[
    // Nature's Sunshine Products 10-K 2011, quarterly operations.
    ("Basic and diluted net income (loss) per common share", NotRead("per share")),
    // CIK 57725 10-K fiscal 2013, quarterly results.
    ("Income tax expense", Read(IncomeTax)),
    // Mueller Industries 10-Q Q1 2010, statement of operations.
    ("Income tax (expense) benefit", NotRead("expense shown negative")),
    // Mueller Industries 10-Q Q1 2010, balance sheet.
    ("Total current assets", Read(CurrentAssets)),
    // SBM Offshore annual report 2020, consolidated income statement.
    ("Interest revenue from finance lease calculated using the effective interest method", NotRead("part of revenue")),
    ("Profit/(loss) before income tax", NotRead("pre-tax")),
    // Inchcape five-year record 2020, consolidated income statement.
    ("Net finance costs before exceptional items", NotRead("not an item")),
    // Inchcape five-year record 2020, statement of financial position.
    ("Equity attributable to owners of the parent", NotRead("excludes NCI")),
    // Exxaro 2020, group statement of comprehensive income.
    ("Revenue (note 7)", Read(Revenue)),
    ("Profit for the year from continuing operations", NotRead("continuing operations only")),
    // Grant Thornton IFRS example consolidated financial statements 2023, statement of profit or loss.
    ("Other income", NotRead("not an item")),
    // United Utilities annual report 2019, statement of cash flows.
    ("Purchase of intangible assets", NotRead("not property, plant and equipment")),
    // Alliander annual report 2024, consolidated cash flow statement.
    ("Cash flow from operations", NotRead("before interest and tax paid")),
    // Lenzing annual report 2024, consolidated statement of cash flows.
    (
        "Acquisition of intangible assets, property, plant and equipment and biological assets",
        NotRead("includes intangibles"),
    ),
    // CoreCivic 10-K 2019, consolidated statements of operations.
    ("REVENUES", Read(Revenue)),
    // CIK 1101215 10-K 2013, quarterly results of operations.
    ("Provision for income taxes", Read(IncomeTax)),
    // Diamond Offshore 10-K 2011, unaudited quarterly financial data.
    ("Net income (b)", Read(NetIncome)),
    // Align Technology 10-K 2000, balance sheet.
    ("Additional paid-in capital", NotRead("part of equity")),
    // Intel 10-K 1999, consolidated statements of cash flows.
    ("Net cash provided by operating activities", Read(OperatingCashFlow)),
    // H&E Equipment Services investor site, annual income statement.
    ("Cost of Revenue, Total", NotRead("a cost line")),
    // National Grid annual report 2012/13, consolidated income statement.
    ("Total finance costs", Read(InterestExpense)),
    // Dutch construction group annual report 2002, consolidated profit and loss account.
    ("Result before taxation", NotRead("pre-tax")),
    // French IFRS group 2016, consolidated income statement.
    ("TOTAL OPERATING PROFIT", Read(OperatingIncome)),
    // Terumo 2013, consolidated balance sheet.
    ("Total Assets", Read(TotalAssets)),
    // CIK 1362190 10-Q 2022, statements of operations.
    ("Operating loss", NotRead("opposite sign")),
    // CIK 1253176 10-K 2019, selected quarterly data.
    ("Net loss before income taxes", NotRead("pre-tax, opposite sign")),
    // Apple 10-K 2023, consolidated statements of cash flows.
    ("Cash generated by operating activities", Read(OperatingCashFlow)),
];

/// Held-out labels the rules do not read although they name an item: withheld, never wrong.
/// Measured once the rules were written: 25 of 27 right, this one withheld, and one read as a
/// wrong item (`Cash flow from operations`, an IFRS subtotal the synonym table had read as
/// operating cash flow since before these rules; it is refused now).
const KNOWN_MISSES: &[&str] = &["Cash generated by operating activities"];

/// How a label reads against what it must read as.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Right,
    /// An item the label names is withheld.
    Withheld,
    /// Read as an item it is not: a wrong figure in the analysis.
    Wrong(LabelReading),
}

fn outcome(label: &str, expect: Expect) -> Outcome {
    match (expect, read_label(label)) {
        (Read(item), LabelReading::Item(read)) if read == item => Outcome::Right,
        (Read(_), LabelReading::Item(read)) => Outcome::Wrong(LabelReading::Item(read)),
        (Read(_), _) => Outcome::Withheld,
        (NotRead(_), LabelReading::Item(read)) => Outcome::Wrong(LabelReading::Item(read)),
        (NotRead(_), _) => Outcome::Right,
    }
}

#[test]
fn the_collection_holds_over_a_hundred_distinct_labels() {
    let mut labels: Vec<&str> = DEVELOPMENT.iter().chain(HELD_OUT).map(|(label, _)| *label).collect();
    labels.sort_unstable();
    let before = labels.len();
    labels.dedup();
    assert_eq!(labels.len(), before, "a label is in the collection twice");
    assert!(labels.len() >= 100 && HELD_OUT.len() >= 25, "{} labels, {} held out", labels.len(), HELD_OUT.len());
}

#[test]
fn every_development_label_reads_as_published() {
    let failures: Vec<String> = DEVELOPMENT
        .iter()
        .filter_map(|&(label, expect)| match outcome(label, expect) {
            Outcome::Right => None,
            other => {
                let expected = match expect {
                    Read(item) => item.name().to_owned(),
                    NotRead(why) => format!("not read ({why})"),
                };
                Some(format!("{label:?}: expected {expected}, got {other:?} ({:?})", read_label(label)))
            }
        })
        .collect();
    assert!(failures.is_empty(), "{} of {}:\n{}", failures.len(), DEVELOPMENT.len(), failures.join("\n"));
}

#[test]
fn held_out_labels_are_never_read_as_a_wrong_item() {
    let mut withheld = Vec::new();
    for &(label, expect) in HELD_OUT {
        match outcome(label, expect) {
            Outcome::Right => {}
            Outcome::Withheld => withheld.push(label),
            Outcome::Wrong(reading) => panic!("held-out {label:?} must read {expect:?}, read {reading:?}"),
        }
    }
    assert_eq!(withheld, KNOWN_MISSES, "the held-out misses changed: update KNOWN_MISSES and the report");
}
