//! References and follow-ups resolve against the history; intents serialise with their API names;
//! no message makes the grammar panic. The documented phrasings are in the phrase table
//! (`phrase_table`).

use super::phrase_table::{company, document, market, person, research};
use super::*;
use CompanyAnalysisType::{Comprehensive, Financial, Risk};

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
