//! The phrase table: how analysts phrase requests, one row per phrasing, each with the intent the
//! grammar must read from it. It is test data, kept as Rust (a `#[cfg(test)]` module) rather than
//! as a data file so that every expected intent is a typed value the compiler checks, and a row
//! reads exactly as the request it describes: `row("analyse company Northwind Industrial",
//! company("Northwind Industrial", None, Comprehensive))`.
//!
//! [`established`] holds the phrasings the grammar was first written for; [`from_the_issue`] those
//! added when it learned how analysts phrase requests (verbs and nouns, framing words, tickers and
//! legal suffixes, amounts, time ranges, several entities), and the ones that must launch nothing.
//! [`every_row_gets_its_intent`] reads every row and reports all misread rows at once.
//! [`analyst_prose`] holds the prose of issue 34 (loan proposals asking for an opinion, diligence
//! on a person with a title and company), read by [`analyst_prose_gets_its_intent`].

use super::*;
use CompanyAnalysisType::{Comprehensive, Financial, Market, Risk};

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

/// A phrasing read after the user said `history` (each turn answered "Done.").
fn after(history: &'static [&'static str], message: &'static str, expected: Intent) -> Row {
    Row { history, message, expected }
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
        row("how has high yield performed this year?", market("high yield this year", Some(TimeRange::OneYear))),
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
    let established = established();
    let new = from_the_issue();
    let (new_rows, launching_nothing) = (new.len(), new.iter().filter(|row| row.expected == Intent::None).count());
    let table: Vec<Row> = established.into_iter().chain(new).collect();
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
    assert!(new_rows >= 60 && launching_nothing >= 15, "{new_rows} new rows, {launching_nothing} launching nothing");
}

/// How analysts phrase requests (the chat-grammar issue), by group, and what must launch nothing.
fn from_the_issue() -> Vec<Row> {
    use LoanType::{Bridge, Other, Revolving, TermLoan};
    use TimeRange::{FiveYears, OneMonth, OneYear, SixMonths, ThreeMonths};
    vec![
        // Verbs and nouns.
        row("analyse Northwind Industrial", company("Northwind Industrial", None, Comprehensive)),
        row("analyze Contoso Ltd", company("Contoso Ltd", None, Comprehensive)),
        row("run a credit analysis on Fabrikam Inc", company("Fabrikam Inc", None, Comprehensive)),
        row("run a credit risk analysis on Contoso", company("Contoso", None, Risk)),
        row("what's the PD of Contoso?", company("Contoso", None, Risk)),
        row(
            "what is the probability of default of Northwind Industrial Corp?",
            company("Northwind Industrial Corp", None, Risk),
        ),
        row("what's Fabrikam's PD", company("Fabrikam", None, Risk)),
        row("PD for Tesla?", company("Tesla", None, Risk)),
        row("estimate the probability of default for Acme Corp", company("Acme Corp", None, Risk)),
        row("calculate the PD of MSFT", company("MSFT", Some("MSFT"), Risk)),
        row("due diligence on Fabrikam Inc", company("Fabrikam Inc", None, Comprehensive)),
        row("do due diligence on Contoso Ltd", company("Contoso Ltd", None, Comprehensive)),
        row(
            "run due diligence on the company Northwind Industrial",
            company("Northwind Industrial", None, Comprehensive),
        ),
        row("look into Siemens AG", company("Siemens AG", None, Comprehensive)),
        row("look into the company Northwind Industrial", company("Northwind Industrial", None, Comprehensive)),
        row("please look into ticker NVDA", company("NVDA", Some("NVDA"), Comprehensive)),
        row("I want the PD of Contoso", company("Contoso", None, Risk)),
        row("check the PD of Fabrikam Inc", company("Fabrikam Inc", None, Risk)),
        // Framing words are never part of the name.
        row("analyze company Northwind Industrial", company("Northwind Industrial", None, Comprehensive)),
        row("analyse the company Contoso", company("Contoso", None, Comprehensive)),
        row("analyse the firm Fabrikam Inc", company("Fabrikam Inc", None, Comprehensive)),
        row("analyze a company called Northwind Industrial", company("Northwind Industrial", None, Comprehensive)),
        row("analyze ticker MSFT", company("MSFT", Some("MSFT"), Comprehensive)),
        row("analyse the ticker AAPL", company("AAPL", Some("AAPL"), Comprehensive)),
        row("analyze ticker msft", company("MSFT", Some("MSFT"), Comprehensive)),
        row("analyse Microsoft, ticker MSFT", company("Microsoft", Some("MSFT"), Comprehensive)),
        row("analyse Contoso Ltd with ticker CTSO", company("Contoso Ltd", Some("CTSO"), Comprehensive)),
        row("look into symbol F", company("F", Some("F"), Comprehensive)),
        row("analyse Northwind Industrial (ticker NWI)", company("Northwind Industrial", Some("NWI"), Comprehensive)),
        row("run a risk analysis on the company Northwind Industrial", company("Northwind Industrial", None, Risk)),
        row("how risky is the firm Contoso Ltd?", company("Contoso Ltd", None, Risk)),
        row("what's the PD of the company Fabrikam?", company("Fabrikam", None, Risk)),
        row("analyse shares of Contoso", company("Contoso", None, Market)),
        row("analyse the stock of Tesla", company("Tesla", None, Market)),
        row("analyze Tesla's stock", company("Tesla", None, Market)),
        row("analyse Tesla stock", company("Tesla", None, Market)),
        row("review the shares of Fabrikam Inc", company("Fabrikam Inc", None, Market)),
        // Tickers and legal suffixes.
        row("analyse NVDA", company("NVDA", Some("NVDA"), Comprehensive)),
        row("analyse $TSLA", company("TSLA", Some("TSLA"), Comprehensive)),
        row("analyse BRK.B", company("BRK.B", Some("BRK.B"), Comprehensive)),
        row("analyse Apple (NASDAQ: AAPL)", company("Apple", Some("AAPL"), Comprehensive)),
        row("how risky is Contoso GmbH?", company("Contoso GmbH", None, Risk)),
        row("analyse Banco Santander SA", company("Banco Santander SA", None, Comprehensive)),
        row("analyse ING Groep NV", company("ING Groep NV", None, Comprehensive)),
        row("look into Rolls-Royce Holdings plc", company("Rolls-Royce Holdings plc", None, Comprehensive)),
        row("is Contoso Corp. likely to default?", company("Contoso Corp.", None, Risk)),
        row("look into Fabrikam LLC", company("Fabrikam LLC", None, Comprehensive)),
        // Amounts and loan types.
        row("assess a $25mm term loan for Contoso Ltd", loan("Contoso Ltd", 25_000_000.0, Some(TermLoan), Some("USD"))),
        row(
            "underwrite a €40 million revolver for Siemens AG",
            loan("Siemens AG", 40_000_000.0, Some(Revolving), Some("EUR")),
        ),
        row("evaluate a 1.2bn bridge loan for Fabrikam Inc", loan("Fabrikam Inc", 1_200_000_000.0, Some(Bridge), None)),
        row(
            "lend 250,000,000 to Northwind Industrial Corp",
            loan("Northwind Industrial Corp", 250_000_000.0, None, None),
        ),
        row(
            "price a $25MM term loan B for Contoso Ltd",
            loan("Contoso Ltd", 25_000_000.0, Some(TermLoan), Some("USD")),
        ),
        row(
            "can we extend USD 10m to Fabrikam Inc as a revolver?",
            loan("Fabrikam Inc", 10_000_000.0, Some(Revolving), Some("USD")),
        ),
        row("underwrite a £5m bridge facility for Next plc", loan("Next plc", 5_000_000.0, Some(Bridge), Some("GBP"))),
        row(
            "Contoso Ltd is seeking a $25mm revolving credit facility",
            loan("Contoso Ltd", 25_000_000.0, Some(Revolving), Some("USD")),
        ),
        row(
            "loan application: Northwind Industrial Corp, €40 million term loan",
            loan("Northwind Industrial Corp", 40_000_000.0, Some(TermLoan), Some("EUR")),
        ),
        row(
            "assess a 10 million euro ABL for Fabrikam Inc",
            loan("Fabrikam Inc", 10_000_000.0, Some(Other), Some("EUR")),
        ),
        row(
            "analyse a $25mm delayed draw term loan for Contoso Ltd",
            loan("Contoso Ltd", 25_000_000.0, Some(TermLoan), Some("USD")),
        ),
        row(
            "lend $5m to the company Northwind Industrial",
            loan("Northwind Industrial", 5_000_000.0, None, Some("USD")),
        ),
        // Time ranges.
        row("how has the banking sector performed over the last 6 months?", market("banking sector", Some(SixMonths))),
        row("how have semiconductors performed YTD?", market("semiconductors YTD", Some(OneYear))),
        row("market view on high yield year to date", market("high yield year to date", Some(OneYear))),
        row("compare AAPL and MSFT over 1y", market("AAPL and MSFT", Some(OneYear))),
        row("market view on European banks for the past 12 months", market("European banks", Some(OneYear))),
        row("compare gold and oil over the last year", market("gold and oil", Some(OneYear))),
        row("how did high yield do last year?", market("high yield", Some(OneYear))),
        row("how has tech done over the past quarter?", market("tech", Some(ThreeMonths))),
        row("how has the S&P 500 performed over the past 5 years?", market("S&P 500", Some(FiveYears))),
        row("how has high yield performed in the last month?", market("high yield", Some(OneMonth))),
        row(
            "how has the energy sector performed over the last 2 weeks?",
            market("energy sector over the last 2 weeks", None),
        ),
        row("compare gold and oil over 18 months", market("gold and oil over 18 months", None)),
        row("how has the market performed this quarter?", market("market this quarter", None)),
        row("analyse Apple over 2 years", market("Apple over 2 years", None)),
        row("how did stocks do year to date?", market("stocks year to date", Some(OneYear))),
        row("analyse Tesla stock over 1Y", market("Tesla stock", Some(OneYear))),
        after(
            &["compare semiconductors and banks over 1Y"],
            "and YTD?",
            market("semiconductors and banks YTD", Some(OneYear)),
        ),
        after(
            &["compare semiconductors and banks over 1Y"],
            "what about the past 12 months?",
            market("semiconductors and banks", Some(OneYear)),
        ),
        // Several entities.
        row("Contoso vs Fabrikam", market("Contoso vs Fabrikam", None)),
        row("AAPL vs. MSFT", market("AAPL vs. MSFT", None)),
        row("Apple versus Microsoft", market("Apple versus Microsoft", None)),
        row("Apple vs Microsoft vs Alphabet", market("Apple vs Microsoft vs Alphabet", None)),
        row("compare Apple, Microsoft and Alphabet", market("Apple, Microsoft and Alphabet", None)),
        row("compare NVDA, AMD and INTC over 1Y", market("NVDA, AMD and INTC", Some(OneYear))),
        row("compare Contoso Ltd with Fabrikam Inc", market("Contoso Ltd with Fabrikam Inc", None)),
        row("analyse Apple vs Microsoft", market("Apple vs Microsoft", None)),
        row("Tesla versus Ford over the last 6 months", market("Tesla versus Ford", Some(SixMonths))),
        row("analyse Apple vs Microsoft over 1Y", market("Apple vs Microsoft", Some(OneYear))),
        row("analyse Contoso, Fabrikam and Northwind", market("Contoso, Fabrikam and Northwind", None)),
        row("analyse Contoso, Inc.", company("Contoso, Inc.", None, Comprehensive)),
        // Nothing to launch.
        row("what's the PD?", Intent::None),
        row("what is a PD?", Intent::None),
        row("what does PD stand for?", Intent::None),
        row("how is PD calculated?", Intent::None),
        row("explain probability of default", Intent::None),
        row("what is the PD of a company?", Intent::None),
        row("what's the PD of them?", Intent::None),
        row("compare them", Intent::None),
        row("compare it with Microsoft", Intent::None),
        row("compare", Intent::None),
        row("I analysed Apple last week", Intent::None),
        row("we ran a credit analysis on Contoso Ltd last month", Intent::None),
        row("I analyzed company Northwind Industrial yesterday", Intent::None),
        row("did you analyse Contoso Ltd?", Intent::None),
        row("should I look into Acme later?", Intent::None),
        row("maybe look into Northwind Industrial next week", Intent::None),
        row("don't lend $25mm to Contoso Ltd", Intent::None),
        row("what if Contoso Ltd defaults?", Intent::None),
        row("do you think Tesla will default?", Intent::None),
        row("analyse the company", Intent::None),
        row("analyze ticker", Intent::None),
        row("due diligence on it", Intent::None),
        row("the company Northwind Industrial", Intent::None),
        row("fixed vs floating", Intent::None),
        row("stocks vs bonds", Intent::None),
        row("analyse YTD", Intent::None),
        row("tell me about due diligence", Intent::None),
        row("lend $0 to Contoso Ltd", Intent::None),
        row("what was the PD of Contoso Ltd last year?", Intent::None),
        row("Q1 vs Q2", Intent::None),
        row("Plan A vs Plan B", Intent::None),
        row("analyse shares", Intent::None),
        row("analyse $25mm", Intent::None),
        row("due diligence on the deal", Intent::None),
        row("who is Northwind Industrial?", Intent::None),
    ]
}

/// Analyst prose the grammar learned later (issue 34): a loan proposal with a request for an
/// opinion, amounts in mm / MM / m / bn with or without a currency; diligence or background on a
/// person given with a title and company. And what must still launch nothing, or something else.
fn analyst_prose() -> Vec<Row> {
    use LoanType::{Bridge, Other, Revolving, TermLoan};
    vec![
        // A loan proposal and a request for an opinion: what the message states, nothing else
        // (the analysis takes no purpose or term, so "to refinance …" and "over 5 years" are read past).
        row(
            "We're looking at a $25mm term loan for Acme Corp to refinance their revolver — thoughts?",
            loan("Acme Corp", 25_000_000.0, Some(TermLoan), Some("USD")),
        ),
        row("Would you lend 40MM to Contoso Ltd over 5 years?", loan("Contoso Ltd", 40_000_000.0, None, None)),
        row("what do you think about a 1.5bn facility for Globex?", loan("Globex", 1_500_000_000.0, None, None)),
        row(
            "Thoughts on a €30m revolver for Initech GmbH?",
            loan("Initech GmbH", 30_000_000.0, Some(Revolving), Some("EUR")),
        ),
        row(
            "How would you view a 15m bridge loan to Umbrella Corp?",
            loan("Umbrella Corp", 15_000_000.0, Some(Bridge), None),
        ),
        row(
            "Acme Corp wants to borrow $12mm to fund an acquisition",
            loan("Acme Corp", 12_000_000.0, None, Some("USD")),
        ),
        row(
            "we are considering a USD 75mm term loan B for Stark Industries",
            loan("Stark Industries", 75_000_000.0, Some(TermLoan), Some("USD")),
        ),
        row("Any view on lending 8m to Hooli Inc for 3 years?", loan("Hooli Inc", 8_000_000.0, None, None)),
        row(
            "We have a request for a 60MM ABL from Cyberdyne Systems - what's your read?",
            loan("Cyberdyne Systems", 60_000_000.0, Some(Other), None),
        ),
        row(
            "Proposed $300m term loan to Soylent Corp, 7-year tenor: your view?",
            loan("Soylent Corp", 300_000_000.0, Some(TermLoan), Some("USD")),
        ),
        row(
            "Would you be comfortable lending EUR 45m to Vandelay Industries?",
            loan("Vandelay Industries", 45_000_000.0, None, Some("EUR")),
        ),
        row(
            "Would you do a 20 million dollar revolver for Globex Corporation?",
            loan("Globex Corporation", 20_000_000.0, Some(Revolving), Some("USD")),
        ),
        row(
            "a 25mm GBP term loan for Next plc — thoughts?",
            loan("Next plc", 25_000_000.0, Some(TermLoan), Some("GBP")),
        ),
        row(
            "Delta plc is requesting a $5,000,000 term loan to refinance its notes",
            loan("Delta plc", 5_000_000.0, Some(TermLoan), Some("USD")),
        ),
        // Diligence or background on a person given with a title and a company.
        row("Can you do some background on Jane Doe, CFO of Initech?", person("Jane Doe", Some("CFO of Initech"))),
        row("diligence on John Smith (CEO, Acme Corp)", person("John Smith", Some("CEO, Acme Corp"))),
        row(
            "I need a background check on Maria Garcia, the treasurer at Globex Corporation",
            person("Maria Garcia", Some("the treasurer at Globex Corporation")),
        ),
        row(
            "Please run diligence on Priya Patel, chief financial officer of Hooli Inc",
            person("Priya Patel", Some("chief financial officer of Hooli Inc")),
        ),
        row(
            "Could you pull background on Tom Becker, managing director at Stark Industries?",
            person("Tom Becker", Some("managing director at Stark Industries")),
        ),
        row("Get me some background on Ana Souza from Umbrella Corp", person("Ana Souza", Some("Umbrella Corp"))),
        row("Background on Chen Wei (founder, Pied Piper)", person("Chen Wei", Some("founder, Pied Piper"))),
        row(
            "can you run KYC on Fatima Zahra, founder of Atlas Logistics?",
            person("Fatima Zahra", Some("founder of Atlas Logistics")),
        ),
        row(
            "do some diligence on Liam O'Neil, CEO of Vandelay Industries",
            person("Liam O'Neil", Some("CEO of Vandelay Industries")),
        ),
        row(
            "background info on Sarah Connor (COO at Cyberdyne Systems)",
            person("Sarah Connor", Some("COO at Cyberdyne Systems")),
        ),
        // Something else: diligence on a company is a company analysis.
        row("diligence on Fabrikam Inc", company("Fabrikam Inc", None, Comprehensive)),
        // Nothing to launch: "mm" is money only beside a lending word, an opinion on no loan is
        // an opinion, a title is not a request, and the refusals still hold.
        row("5 mm of rain", Intent::None),
        row("the bolt is 5 mm too short", Intent::None),
        row("we had 25mm of rain at the Acme Corp site - thoughts?", Intent::None),
        row("what do you think about a 40mm pipe for Contoso Ltd?", Intent::None),
        row("the CFO said revenue grew", Intent::None),
        row("who is the CEO of Acme?", Intent::None),
        row("Jane Doe, CFO of Initech, said revenue grew", Intent::None),
        row("the CFO of Initech wants a $5m loan", Intent::None),
        row("background on the deal", Intent::None),
        row("background on John", Intent::None),
        row("diligence on it", Intent::None),
        row("what do you think about Acme Corp?", Intent::None),
        row("thoughts on the $25mm term loan?", Intent::None),
        row("We looked at a $25mm term loan for Acme Corp last year", Intent::None),
        row("what do you think about a 1.5bn facility for Globex next week?", Intent::None),
        row("don't lend 40MM to Contoso Ltd over 5 years", Intent::None),
        row("what do you think of lending $10m to them?", Intent::None),
    ]
}

#[test]
fn analyst_prose_gets_its_intent() {
    let table = analyst_prose();
    let failures: Vec<String> = table
        .iter()
        .filter_map(|row| {
            let actual = parse_intent(row.message, &[]);
            (actual != row.expected)
                .then(|| format!("{:?}\n    expected {:?}\n    got      {actual:?}", row.message, row.expected))
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} phrasings misread:\n{}", failures.len(), table.len(), failures.join("\n"));
    let count = |kind: fn(&Intent) -> bool| table.iter().filter(|row| kind(&row.expected)).count();
    let loans = count(|intent| matches!(intent, Intent::Quant(QuantRequest::LoanApplication { .. })));
    let people = count(|intent| matches!(intent, Intent::People { .. }));
    let nothing = count(|intent| *intent == Intent::None);
    assert!(
        loans >= 10 && people >= 10 && nothing >= 10,
        "{loans} loans, {people} people, {nothing} launching nothing"
    );
}

/// A message that [`parse_intent_without_history`] reads alone gets that intent after any of the
/// table's histories (and a few more that name companies, markets, people and topics).
#[test]
fn an_intent_read_without_history_is_the_same_after_any_history() {
    let table: Vec<Row> = established().into_iter().chain(from_the_issue()).collect();
    let mut histories: Vec<Vec<HistoryTurn>> = table
        .iter()
        .filter(|row| !row.history.is_empty())
        .map(|row| {
            row.history.iter().flat_map(|turn| [HistoryTurn::user(*turn), HistoryTurn::assistant("Done.")]).collect()
        })
        .collect();
    histories.push(vec![HistoryTurn::assistant("Apple Inc. (AAPL) has debt of 0.88x EBITDA.")]);
    histories
        .push(vec![HistoryTurn::user("look into Jane Doe"), HistoryTurn::user("how has high yield done over 1Y?")]);
    let mut failures = Vec::new();
    for row in &table {
        let Some(alone) = parse_intent_without_history(row.message) else { continue };
        for history in &histories {
            let after = parse_intent(row.message, history);
            if after != alone {
                failures.push(format!("{:?}: alone {alone:?}, after {history:?} {after:?}", row.message));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for reference in ["analyse it", "how risky is it?", "and over 5Y?", "what about the last 3 months?"] {
        assert_eq!(parse_intent_without_history(reference), None, "{reference} needs the history");
    }
    assert_eq!(parse_intent_without_history("thanks, that is helpful"), Some(Intent::None));
}
