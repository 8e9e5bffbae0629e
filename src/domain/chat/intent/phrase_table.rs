//! The phrase table: how analysts phrase requests, one row per phrasing, each with the intent the
//! grammar must read from it. It is test data, kept as Rust (a `#[cfg(test)]` module) rather than
//! as a data file so that every expected intent is a typed value the compiler checks, and a row
//! reads exactly as the request it describes: `row("analyse company Northwind Industrial",
//! company("Northwind Industrial", None, Comprehensive))`.
//!
//! [`established`] holds the phrasings the grammar was first written for.
//! [`every_row_gets_its_intent`] reads every row and reports all misread rows at once.

use super::*;
use CompanyAnalysisType::{Comprehensive, Financial, Risk};

/// One phrasing: the message, the user turns said before it (oldest first), the intent it asks for.
pub(super) struct Row {
    history: &'static [&'static str],
    message: &'static str,
    expected: Intent,
}

/// A phrasing read without history.
fn row(message: &'static str, expected: Intent) -> Row {
    Row { history: &[], message, expected }
}

pub(super) fn company(name: &str, ticker: Option<&str>, analysis_type: CompanyAnalysisType) -> Intent {
    Intent::Quant(QuantRequest::Company {
        company_name: name.to_owned(),
        ticker: ticker.map(str::to_owned),
        analysis_type,
    })
}

pub(super) fn market(query: &str, time_range: Option<TimeRange>) -> Intent {
    Intent::Quant(QuantRequest::Market { query: query.to_owned(), time_range })
}

pub(super) fn loan(borrower: &str, amount: f64, loan_type: Option<LoanType>, currency: Option<&str>) -> Intent {
    Intent::Quant(QuantRequest::LoanApplication {
        borrower_name: borrower.to_owned(),
        loan_amount: amount,
        loan_type,
        currency: currency.map(str::to_owned),
    })
}

pub(super) fn research(query: &str) -> Intent {
    Intent::Research { query: query.to_owned() }
}

pub(super) fn person(name: &str, context: Option<&str>) -> Intent {
    Intent::People { person_name: name.to_owned(), context: context.map(str::to_owned) }
}

pub(super) fn document(field: AgreementField) -> Intent {
    Intent::DocumentQuestion(field)
}

/// The phrasings the grammar was first written for.
fn established() -> Vec<Row> {
    use AgreementField as F;
    vec![
        // Company analyses.
        row("analyse Apple", company("Apple", None, Comprehensive)),
        row("analyze Apple Inc.", company("Apple Inc.", None, Comprehensive)),
        row("run a credit analysis on Microsoft (MSFT)", company("Microsoft", Some("MSFT"), Comprehensive)),
        row("how risky is MSFT?", company("MSFT", Some("MSFT"), Risk)),
        row("what are Tesla's margins", company("Tesla", None, Financial)),
        row("Can you please do a risk analysis of Boeing?", company("Boeing", None, Risk)),
        row("give me a financial analysis for Nvidia Corp", company("Nvidia Corp", None, Financial)),
        row("look into Acme Corp", company("Acme Corp", None, Comprehensive)),
        row("is Ford creditworthy?", company("Ford", None, Risk)),
        row("what's the credit risk of Intel?", company("Intel", None, Risk)),
        row("Hi! Please analyse Siemens AG", company("Siemens AG", None, Comprehensive)),
        row("review Tesla's balance sheet", company("Tesla", None, Financial)),
        row("analyse apple", company("apple", None, Comprehensive)),
        row("how leveraged is Carnival Corp?", company("Carnival Corp", None, Financial)),
        row("ok analyse Microsoft then", company("Microsoft", None, Comprehensive)),
        row("evaluate Ford for risk", company("Ford", None, Risk)),
        // Market analyses.
        row("compare semiconductors and banks over 1Y", market("semiconductors and banks", Some(TimeRange::OneYear))),
        row("how did AAPL vs MSFT do over the last 6 months", market("AAPL vs MSFT", Some(TimeRange::SixMonths))),
        row("market view on high yield", market("high yield", None)),
        row(
            "give me a market outlook for European banks over the past year",
            market("European banks", Some(TimeRange::OneYear)),
        ),
        row(
            "how has the energy sector performed over the last 3 months?",
            market("energy sector", Some(TimeRange::ThreeMonths)),
        ),
        row("compare Apple with Microsoft over 5 years", market("Apple with Microsoft", Some(TimeRange::FiveYears))),
        row("analyse the leveraged loan market", market("leveraged loan market", None)),
        row("compare gold and oil over 2 years", market("gold and oil over 2 years", None)),
        row("how has high yield performed this year?", market("high yield this year", None)),
        // Research.
        row("research the impact of SOFR on leveraged loans", research("the impact of SOFR on leveraged loans")),
        row("find out what happened to Silicon Valley Bank", research("what happened to Silicon Valley Bank")),
        row("dig into covenant-lite trends", research("covenant-lite trends")),
        row("can you do some research on private credit default rates?", research("private credit default rates")),
        row("look into the rise of payment-in-kind toggles", research("the rise of payment-in-kind toggles")),
        row("research: what drives CLO spreads", research("what drives CLO spreads")),
        // People.
        row("look into Jane Doe", person("Jane Doe", None)),
        row("background check on John Smith at Acme Corp", person("John Smith", Some("Acme Corp"))),
        row("who is Mary Major?", person("Mary Major", None)),
        row(
            "run a background check on Dr. Ahmed Khan, CFO of Widget Ltd",
            person("Dr. Ahmed Khan", Some("CFO of Widget Ltd")),
        ),
        row("dig into Jane Doe's track record", person("Jane Doe", None)),
        // Loan applications.
        row(
            "assess a $5m term loan for Acme Corp",
            loan("Acme Corp", 5_000_000.0, Some(LoanType::TermLoan), Some("USD")),
        ),
        row(
            "can we lend 2.5 million to Widget Ltd as a revolver?",
            loan("Widget Ltd", 2_500_000.0, Some(LoanType::Revolving), None),
        ),
        row(
            "loan application: Beta LLC, EUR 750k bridge",
            loan("Beta LLC", 750_000.0, Some(LoanType::Bridge), Some("EUR")),
        ),
        row(
            "evaluate a 1.2bn revolving credit facility for Gamma Holdings",
            loan("Gamma Holdings", 1_200_000_000.0, Some(LoanType::Revolving), None),
        ),
        row(
            "Delta plc is requesting a $5,000,000 term loan",
            loan("Delta plc", 5_000_000.0, Some(LoanType::TermLoan), Some("USD")),
        ),
        row("underwrite a £300k loan to Epsilon Ltd", loan("Epsilon Ltd", 300_000.0, None, Some("GBP"))),
        row("should we lend $40mm to Zeta Corp?", loan("Zeta Corp", 40_000_000.0, None, Some("USD"))),
        row(
            "Next plc is seeking a £20m revolver",
            loan("Next plc", 20_000_000.0, Some(LoanType::Revolving), Some("GBP")),
        ),
        // Questions about the document.
        row("what is the margin?", document(F::Margin)),
        row("who is the borrower?", document(F::Borrower)),
        row("when does it mature?", document(F::Maturity)),
        row("what's the governing law", document(F::GoverningLaw)),
        row("what are the financial covenants?", document(F::Covenants)),
        row("is there a SOFR floor?", document(F::Floor)),
        row("how big is the facility?", document(F::FacilityAmount)),
        row("who are the lenders under the agreement?", document(F::Lenders)),
        row("can you explain the covenants?", document(F::Covenants)),
        row("what's the interest rate on the term loan", document(F::Margin)),
        // Nothing to launch.
        row("hello", Intent::None),
        row("thanks!", Intent::None),
        row("what can you do?", Intent::None),
        row("what is a covenant?", Intent::None),
        row("explain DSCR", Intent::None),
        row("should I analyse this later?", Intent::None),
        row("don't analyse Apple yet", Intent::None),
        row("I analysed Apple last week", Intent::None),
        row("how do I run a market analysis?", Intent::None),
        row("my manager asked me to look into Acme Corp", Intent::None),
        row("what is SOFR?", Intent::None),
        row("analyse this", Intent::None),
        row("who is the best lender for startups?", Intent::None),
        row("Good morning, how are you?", Intent::None),
        row("what does leverage mean?", Intent::None),
        row("look into it", Intent::None),
        row("who is Apple?", Intent::None),
        row("research", Intent::None),
        row("maybe research SOFR tomorrow", Intent::None),
        row("how risky is lending to startups?", Intent::None),
        row("how is Apple doing?", Intent::None),
        row("SOFR vs LIBOR", Intent::None),
        row("would it make sense to analyse Tesla?", Intent::None),
        row("what if we lent $5m to Acme Corp?", Intent::None),
        row("analyse it", Intent::None),
        row("and over 5Y?", Intent::None),
        row("how risky is High Yield?", Intent::None),
        row("can we lend 500 to Bob?", Intent::None),
        row("what's the date today?", Intent::None),
        row("I think Tesla is risky", Intent::None),
        row("Tesla's margins are thin", Intent::None),
    ]
}

#[test]
fn every_row_gets_its_intent() {
    let table = established();
    let failures: Vec<String> = table
        .iter()
        .filter_map(|row| {
            let history: Vec<HistoryTurn> = row
                .history
                .iter()
                .flat_map(|turn| [HistoryTurn::user(*turn), HistoryTurn::assistant("Done.")])
                .collect();
            let actual = parse_intent(row.message, &history);
            let said_before = if row.history.is_empty() { String::new() } else { format!(" after {:?}", row.history) };
            (actual != row.expected).then(|| {
                format!("{:?}{said_before}\n    expected {:?}\n    got      {actual:?}", row.message, row.expected)
            })
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} phrasings misread:\n{}", failures.len(), table.len(), failures.join("\n"));
    let launching_nothing = table.iter().filter(|row| row.expected == Intent::None).count();
    assert!(table.len() >= 45 && launching_nothing >= 10);
}
