//! Each documented phrasing of the chat grammar gets its intent; references and follow-ups resolve
//! against the history; intents serialise with their API names.

use super::*;
use CompanyAnalysisType::{Comprehensive, Financial, Risk};

fn company(name: &str, ticker: Option<&str>, analysis_type: CompanyAnalysisType) -> Intent {
    Intent::Quant(QuantRequest::Company {
        company_name: name.to_owned(),
        ticker: ticker.map(str::to_owned),
        analysis_type,
    })
}

fn market(query: &str, time_range: Option<TimeRange>) -> Intent {
    Intent::Quant(QuantRequest::Market { query: query.to_owned(), time_range })
}

fn loan(borrower: &str, amount: f64, loan_type: Option<LoanType>, currency: Option<&str>) -> Intent {
    Intent::Quant(QuantRequest::LoanApplication {
        borrower_name: borrower.to_owned(),
        loan_amount: amount,
        loan_type,
        currency: currency.map(str::to_owned),
    })
}

fn research(query: &str) -> Intent {
    Intent::Research { query: query.to_owned() }
}

fn person(name: &str, context: Option<&str>) -> Intent {
    Intent::People { person_name: name.to_owned(), context: context.map(str::to_owned) }
}

fn document(field: AgreementField) -> Intent {
    Intent::DocumentQuestion(field)
}

/// Phrasings read without history: (message, expected intent).
fn phrasings() -> Vec<(&'static str, Intent)> {
    use AgreementField as F;
    vec![
        // Company analyses.
        ("analyse Apple", company("Apple", None, Comprehensive)),
        ("analyze Apple Inc.", company("Apple Inc.", None, Comprehensive)),
        ("run a credit analysis on Microsoft (MSFT)", company("Microsoft", Some("MSFT"), Comprehensive)),
        ("how risky is MSFT?", company("MSFT", Some("MSFT"), Risk)),
        ("what are Tesla's margins", company("Tesla", None, Financial)),
        ("Can you please do a risk analysis of Boeing?", company("Boeing", None, Risk)),
        ("give me a financial analysis for Nvidia Corp", company("Nvidia Corp", None, Financial)),
        ("look into Acme Corp", company("Acme Corp", None, Comprehensive)),
        ("is Ford creditworthy?", company("Ford", None, Risk)),
        ("what's the credit risk of Intel?", company("Intel", None, Risk)),
        ("Hi! Please analyse Siemens AG", company("Siemens AG", None, Comprehensive)),
        ("review Tesla's balance sheet", company("Tesla", None, Financial)),
        ("analyse apple", company("apple", None, Comprehensive)),
        ("how leveraged is Carnival Corp?", company("Carnival Corp", None, Financial)),
        ("ok analyse Microsoft then", company("Microsoft", None, Comprehensive)),
        ("evaluate Ford for risk", company("Ford", None, Risk)),
        // Market analyses.
        ("compare semiconductors and banks over 1Y", market("semiconductors and banks", Some(TimeRange::OneYear))),
        ("how did AAPL vs MSFT do over the last 6 months", market("AAPL vs MSFT", Some(TimeRange::SixMonths))),
        ("market view on high yield", market("high yield", None)),
        (
            "give me a market outlook for European banks over the past year",
            market("European banks", Some(TimeRange::OneYear)),
        ),
        (
            "how has the energy sector performed over the last 3 months?",
            market("energy sector", Some(TimeRange::ThreeMonths)),
        ),
        ("compare Apple with Microsoft over 5 years", market("Apple with Microsoft", Some(TimeRange::FiveYears))),
        ("analyse the leveraged loan market", market("leveraged loan market", None)),
        ("compare gold and oil over 2 years", market("gold and oil over 2 years", None)),
        ("how has high yield performed this year?", market("high yield this year", None)),
        // Research.
        ("research the impact of SOFR on leveraged loans", research("the impact of SOFR on leveraged loans")),
        ("find out what happened to Silicon Valley Bank", research("what happened to Silicon Valley Bank")),
        ("dig into covenant-lite trends", research("covenant-lite trends")),
        ("can you do some research on private credit default rates?", research("private credit default rates")),
        ("look into the rise of payment-in-kind toggles", research("the rise of payment-in-kind toggles")),
        ("research: what drives CLO spreads", research("what drives CLO spreads")),
        // People.
        ("look into Jane Doe", person("Jane Doe", None)),
        ("background check on John Smith at Acme Corp", person("John Smith", Some("Acme Corp"))),
        ("who is Mary Major?", person("Mary Major", None)),
        (
            "run a background check on Dr. Ahmed Khan, CFO of Widget Ltd",
            person("Dr. Ahmed Khan", Some("CFO of Widget Ltd")),
        ),
        ("dig into Jane Doe's track record", person("Jane Doe", None)),
        // Loan applications.
        ("assess a $5m term loan for Acme Corp", loan("Acme Corp", 5_000_000.0, Some(LoanType::TermLoan), Some("USD"))),
        (
            "can we lend 2.5 million to Widget Ltd as a revolver?",
            loan("Widget Ltd", 2_500_000.0, Some(LoanType::Revolving), None),
        ),
        (
            "loan application: Beta LLC, EUR 750k bridge",
            loan("Beta LLC", 750_000.0, Some(LoanType::Bridge), Some("EUR")),
        ),
        (
            "evaluate a 1.2bn revolving credit facility for Gamma Holdings",
            loan("Gamma Holdings", 1_200_000_000.0, Some(LoanType::Revolving), None),
        ),
        (
            "Delta plc is requesting a $5,000,000 term loan",
            loan("Delta plc", 5_000_000.0, Some(LoanType::TermLoan), Some("USD")),
        ),
        ("underwrite a £300k loan to Epsilon Ltd", loan("Epsilon Ltd", 300_000.0, None, Some("GBP"))),
        ("should we lend $40mm to Zeta Corp?", loan("Zeta Corp", 40_000_000.0, None, Some("USD"))),
        ("Next plc is seeking a £20m revolver", loan("Next plc", 20_000_000.0, Some(LoanType::Revolving), Some("GBP"))),
        // Questions about the document.
        ("what is the margin?", document(F::Margin)),
        ("who is the borrower?", document(F::Borrower)),
        ("when does it mature?", document(F::Maturity)),
        ("what's the governing law", document(F::GoverningLaw)),
        ("what are the financial covenants?", document(F::Covenants)),
        ("is there a SOFR floor?", document(F::Floor)),
        ("how big is the facility?", document(F::FacilityAmount)),
        ("who are the lenders under the agreement?", document(F::Lenders)),
        ("can you explain the covenants?", document(F::Covenants)),
        ("what's the interest rate on the term loan", document(F::Margin)),
        // Nothing to launch.
        ("hello", Intent::None),
        ("thanks!", Intent::None),
        ("what can you do?", Intent::None),
        ("what is a covenant?", Intent::None),
        ("explain DSCR", Intent::None),
        ("should I analyse this later?", Intent::None),
        ("don't analyse Apple yet", Intent::None),
        ("I analysed Apple last week", Intent::None),
        ("how do I run a market analysis?", Intent::None),
        ("my manager asked me to look into Acme Corp", Intent::None),
        ("what is SOFR?", Intent::None),
        ("analyse this", Intent::None),
        ("who is the best lender for startups?", Intent::None),
        ("Good morning, how are you?", Intent::None),
        ("what does leverage mean?", Intent::None),
        ("look into it", Intent::None),
        ("who is Apple?", Intent::None),
        ("research", Intent::None),
        ("maybe research SOFR tomorrow", Intent::None),
        ("how risky is lending to startups?", Intent::None),
        ("how is Apple doing?", Intent::None),
        ("SOFR vs LIBOR", Intent::None),
        ("would it make sense to analyse Tesla?", Intent::None),
        ("what if we lent $5m to Acme Corp?", Intent::None),
        ("analyse it", Intent::None),
        ("and over 5Y?", Intent::None),
        ("how risky is High Yield?", Intent::None),
        ("can we lend 500 to Bob?", Intent::None),
        ("what's the date today?", Intent::None),
        ("I think Tesla is risky", Intent::None),
        ("Tesla's margins are thin", Intent::None),
    ]
}

#[test]
fn each_phrasing_gets_its_documented_intent() {
    let table = phrasings();
    let failures: Vec<String> = table
        .iter()
        .filter_map(|(message, expected)| {
            let actual = parse_intent(message, &[]);
            (actual != *expected).then(|| format!("{message:?}\n    expected {expected:?}\n    got      {actual:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} phrasings misread:\n{}", failures.len(), table.len(), failures.join("\n"));
    let launching_nothing = table.iter().filter(|(_, intent)| *intent == Intent::None).count();
    assert!(table.len() >= 45 && launching_nothing >= 10);
}

#[test]
fn analyse_it_resolves_to_the_company_a_user_turn_named() {
    let history = [
        HistoryTurn::user("What do you know about Apple Inc.?"),
        HistoryTurn::assistant("It designs consumer electronics and services."),
    ];
    assert_eq!(parse_intent("analyse it", &history), company("Apple Inc.", None, Comprehensive));
}

#[test]
fn how_risky_is_it_resolves_to_the_company_analysed_before() {
    let history = [
        HistoryTurn::user("run a credit analysis on Microsoft (MSFT)"),
        HistoryTurn::assistant("I have launched a comprehensive analysis; it will take a minute."),
    ];
    assert_eq!(parse_intent("how risky is it?", &history), company("Microsoft", Some("MSFT"), Risk));
    assert_eq!(parse_intent("what are its margins?", &history), company("Microsoft", Some("MSFT"), Financial));
}

#[test]
fn a_reference_follows_a_chain_of_references_back_to_the_name() {
    let history = [
        HistoryTurn::user("tell me about Boeing"),
        HistoryTurn::assistant("Boeing builds aircraft."),
        HistoryTurn::user("analyse it"),
        HistoryTurn::assistant("Launched."),
    ];
    assert_eq!(parse_intent("how risky is it?", &history[..2]), company("Boeing", None, Risk));
    // "analyse it" in the history names no company itself; the turn before it does.
    assert_eq!(parse_intent("how risky is it?", &history), company("Boeing", None, Risk));
}

#[test]
fn a_reference_is_not_resolved_across_a_change_of_subject() {
    let history = [
        HistoryTurn::user("analyse Apple"),
        HistoryTurn::assistant("Launched."),
        HistoryTurn::user("research the impact of SOFR on leveraged loans"),
        HistoryTurn::assistant("Researching."),
    ];
    assert_eq!(parse_intent("analyse it", &history), Intent::None);
}

#[test]
fn an_assistant_turn_naming_several_companies_makes_a_reference_ambiguous() {
    let history = [HistoryTurn::assistant("Apple Inc. (AAPL) and Microsoft Corp. (MSFT) both reported.")];
    assert_eq!(parse_intent("analyse it", &history), Intent::None);
    let history = [HistoryTurn::assistant("Apple Inc. (AAPL) reported strong results.")];
    assert_eq!(parse_intent("analyse it", &history), company("Apple Inc.", Some("AAPL"), Comprehensive));
}

#[test]
fn a_time_range_follow_up_repeats_the_last_market_request() {
    let history = [
        HistoryTurn::user("compare semiconductors and banks over 1Y"),
        HistoryTurn::assistant("Semiconductors outperformed."),
    ];
    let five_years = market("semiconductors and banks", Some(TimeRange::FiveYears));
    assert_eq!(parse_intent("and over 5Y?", &history), five_years);
    assert_eq!(
        parse_intent("what about the last 3 months?", &history),
        market("semiconductors and banks", Some(TimeRange::ThreeMonths))
    );

    let chained = [
        HistoryTurn::user("compare semiconductors and banks over 1Y"),
        HistoryTurn::assistant("Semiconductors outperformed."),
        HistoryTurn::user("and over 5Y?"),
        HistoryTurn::assistant("Over five years too."),
        HistoryTurn::user("thanks"),
    ];
    assert_eq!(parse_intent("and 1M?", &chained), market("semiconductors and banks", Some(TimeRange::OneMonth)));
}

#[test]
fn a_time_range_follow_up_after_a_company_request_launches_nothing() {
    let history = [HistoryTurn::user("analyse Apple"), HistoryTurn::assistant("Launched.")];
    assert_eq!(parse_intent("and over 5Y?", &history), Intent::None);
    let market_history = [HistoryTurn::user("market view on high yield")];
    assert_eq!(parse_intent("and over 2 years?", &market_history), Intent::None);
}

#[test]
fn only_the_last_ten_turns_are_considered() {
    let mut history = vec![HistoryTurn::user("analyse Apple")];
    history.extend((0..10).map(|i| HistoryTurn::assistant(format!("note {i}"))));
    assert_eq!(parse_intent("analyse it", &history), Intent::None);
    assert_eq!(parse_intent("analyse it", &history[..10]), company("Apple", None, Comprehensive));
}

#[test]
fn intents_serialise_with_snake_case_names_and_api_values() {
    let value = serde_json::to_value(company("Microsoft", Some("MSFT"), Risk)).expect("serialises");
    assert_eq!(
        value,
        serde_json::json!({"intent": "quant", "params": {"kind": "company", "company_name": "Microsoft", "ticker": "MSFT", "analysis_type": "risk"}})
    );
    let value = serde_json::to_value(market("high yield", Some(TimeRange::SixMonths))).expect("serialises");
    assert_eq!(value["params"]["time_range"], "6M");
    let value = serde_json::to_value(document(AgreementField::GoverningLaw)).expect("serialises");
    assert_eq!(value, serde_json::json!({"intent": "document_question", "params": "governing_law"}));
    assert_eq!(serde_json::to_value(Intent::None).expect("serialises"), serde_json::json!({"intent": "none"}));
}

proptest::proptest! {
    #[test]
    fn any_message_and_history_parse_without_panicking(
        message in "\\PC{0,80}",
        earlier in proptest::collection::vec("\\PC{0,60}", 0..4),
    ) {
        let history: Vec<HistoryTurn> = earlier.into_iter().map(HistoryTurn::user).collect();
        let _ = parse_intent(&message, &history);
    }

    #[test]
    fn any_message_with_request_words_parses_without_panicking(
        words in proptest::collection::vec(
            proptest::sample::select(vec![
                "analyse", "look into", "Acme Corp", "Jane Doe", "$5m", "over", "1Y", "the", "margin", "it",
                "compare", "and", "vs", "who is", "lend", "to", "as a", "revolver", "(MSFT)", "\u{a0}", "é", ",", "?",
            ]),
            0..10,
        ),
    ) {
        let _ = parse_intent(&words.join(" "), &[HistoryTurn::user(words.concat())]);
    }
}

#[test]
fn workflow_types_name_the_three_workflows() {
    assert_eq!(company("Apple", None, Comprehensive).workflow_type(), Some("quant"));
    assert_eq!(research("x y").workflow_type(), Some("research"));
    assert_eq!(person("Jane Doe", None).workflow_type(), Some("people"));
    assert_eq!(document(AgreementField::Margin).workflow_type(), None);
    assert_eq!(Intent::None.workflow_type(), None);
    assert_eq!(Role::parse("Assistant"), Some(Role::Assistant));
    assert_eq!(Role::parse("system"), None);
}
