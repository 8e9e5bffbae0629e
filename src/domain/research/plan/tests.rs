//! Questions planned into sub-questions and queries, phrasing by phrasing.

use super::*;

fn texts(sub_questions: &[SubQuestion]) -> Vec<&str> {
    sub_questions.iter().map(SubQuestion::text).collect()
}

fn entity_texts(text: &str) -> Vec<String> {
    extract_entities(text).into_iter().map(|entity| entity.text).collect()
}

#[test]
fn an_impact_question_is_planned_into_the_question_and_four_facets() {
    let plan = plan_sub_questions("What is the impact of SOFR on leveraged loans?");
    assert_eq!(
        texts(&plan),
        vec![
            "What is the impact of SOFR on leveraged loans?",
            "What is SOFR?",
            "What are the risks of SOFR on leveraged loans?",
            "What figures and data describe SOFR on leveraged loans?",
            "What are the recent developments on SOFR on leveraged loans?",
        ]
    );
    assert_eq!(plan[0].facet(), Some(Facet::Impact));
    assert_eq!(plan[0].terms(), ["sofr", "leveraged", "loan"]);
    assert_eq!(plan[1].terms(), ["sofr"]);
    assert_eq!(plan[0].query_variants()[0], "SOFR leveraged loans impact");
    assert_eq!(plan[1].query_variants()[0], "what is SOFR");
}

#[test]
fn a_comparison_of_two_companies_is_not_split_on_and_and_asks_about_each_company() {
    let plan = plan_sub_questions("Compare Apple and Microsoft credit risk");
    assert_eq!(
        texts(&plan),
        vec![
            "Compare Apple and Microsoft credit risk",
            "What is the credit risk of Apple?",
            "What is the credit risk of Microsoft?",
            "What figures and data describe Apple and Microsoft credit risk?",
            "What are the recent developments on Apple and Microsoft credit risk?",
        ]
    );
    assert_eq!(plan[0].facet(), Some(Facet::Comparison));
    assert_eq!(plan[1].facet(), Some(Facet::Risks));
    assert_eq!(plan[1].terms(), ["apple", "credit"]);
    assert_eq!(plan[0].query_variants()[0], "Apple Microsoft credit risk comparison");
    assert_eq!(plan[1].query_variants()[0], "Apple credit risks");
}

#[test]
fn a_compound_person_question_is_split_and_its_pronoun_resolved() {
    let plan = plan_sub_questions("Who is Jane Doe and has she been involved in litigation?");
    assert_eq!(
        texts(&plan),
        vec![
            "Who is Jane Doe?",
            "Has Jane Doe been involved in litigation?",
            "What are the recent developments on Jane Doe?"
        ]
    );
    assert_eq!(plan[0].facet(), Some(Facet::Profile));
    assert_eq!(plan[1].terms(), ["jane", "doe", "litigation"]);
    assert_eq!(plan[1].query_variants()[0], "Jane Doe litigation");
    assert!(plan[1].query_variants().contains(&"\"Jane Doe\" litigation".to_owned()));
}

#[test]
fn a_second_clause_opening_with_a_question_word_is_its_own_sub_question() {
    let plan = plan_sub_questions("What is SOFR and how does it affect loan pricing?");
    assert_eq!(texts(&plan)[..2], ["What is SOFR?", "How does SOFR affect loan pricing?"]);
    assert_eq!(plan[1].facet(), Some(Facet::Impact));
}

#[test]
fn and_between_a_facet_word_and_its_topic_does_not_split() {
    let plan = plan_sub_questions("What are the risks and opportunities for regional banks and insurers?");
    assert_eq!(plan[0].text(), "What are the risks and opportunities for regional banks and insurers?");
}

#[test]
fn questions_split_on_question_marks_and_semicolons() {
    let plan = plan_sub_questions("Who owns Acme Corp? Summarise its debt; list its lenders");
    assert_eq!(texts(&plan)[..3], ["Who owns Acme Corp?", "Summarise Acme Corp's debt", "List Acme Corp's lenders"]);
}

#[test]
fn a_comparison_of_two_phrases_asks_what_each_side_is_and_is_not_split_on_and() {
    let plan = plan_sub_questions("What is the difference between a term loan and a revolving credit facility?");
    assert_eq!(
        texts(&plan)[..3],
        [
            "What is the difference between a term loan and a revolving credit facility?",
            "What is a term loan?",
            "What is a revolving credit facility?",
        ]
    );
    assert_eq!(plan[2].terms(), ["revolving", "credit", "facility"]);
}

#[test]
fn a_comparison_asks_about_each_named_side_with_the_other_entities_as_the_topic() {
    let plan = plan_sub_questions("EBITDA margin of $AAPL vs NASDAQ:MSFT");
    assert_eq!(texts(&plan)[1..3], ["What is the EBITDA margin of AAPL?", "What is the EBITDA margin of MSFT?"]);
}

#[test]
fn follow_up_facets_name_the_topic_runs_without_the_facet_words_between_them() {
    let plan = plan_sub_questions("How did the 2023 banking crisis affect regional banks?");
    assert_eq!(plan[1].text(), "What is the 2023 banking crisis?");
    assert_eq!(plan[2].text(), "What are the risks of the 2023 banking crisis and regional banks?");
    let quoted = plan_sub_questions("Explain \"cov-lite\" loans and their default rates");
    assert_eq!(texts(&quoted)[..2], ["Explain \"cov-lite\" loans", "Cov-lite's default rates"]);
    assert_eq!(quoted[2].text(), "What is the impact of \"cov-lite\" loans?");
}

#[test]
fn a_question_without_a_topic_has_no_sub_questions() {
    assert!(plan_sub_questions("What are the risks?").is_empty());
    assert!(plan_sub_questions("   ").is_empty());
}

#[test]
fn entities_are_names_acronyms_tickers_and_quoted_phrases() {
    let entities = extract_entities(
        "Has Bank of America's exposure to \"cov-lite\" deals, $AAPL or NASDAQ:MSFT and the SOFR curve changed?",
    );
    let described: Vec<(&str, EntityKind)> = entities.iter().map(|e| (e.text.as_str(), e.kind)).collect();
    assert_eq!(
        described,
        vec![
            ("Bank of America", EntityKind::Name),
            ("cov-lite", EntityKind::Quoted),
            ("AAPL", EntityKind::Ticker),
            ("MSFT", EntityKind::Ticker),
            ("SOFR", EntityKind::Acronym),
        ]
    );
}

#[test]
fn question_words_and_sentence_initial_facet_words_are_not_entities() {
    assert_eq!(entity_texts("Compare Apple and Microsoft"), vec!["Apple", "Microsoft"]);
    assert_eq!(entity_texts("Risks of Tesla bonds"), vec!["Tesla"]);
    assert_eq!(entity_texts("What is the outlook for the Federal Reserve?"), vec!["Federal Reserve"]);
    assert_eq!(entity_texts("Who is Jane Doe"), vec!["Jane Doe"]);
}

#[test]
fn planned_queries_never_repeat_and_run_out_when_variants_are_exhausted() {
    let mut plan = plan_sub_questions("What is SOFR?");
    plan.truncate(1);
    let mut issued: Vec<String> = Vec::new();
    loop {
        let queries = plan_queries(&mut plan, &issued, 4);
        if queries.is_empty() {
            break;
        }
        assert!(queries.len() <= QUERIES_PER_SUB_QUESTION_PER_ITERATION);
        for query in queries {
            assert!(!issued.iter().any(|seen| same_query(seen, &query)), "{query} repeated");
            issued.push(query);
        }
    }
    assert_eq!(issued, vec!["what is SOFR", "SOFR definition", "SOFR explained", "SOFR overview"]);
    assert_eq!(plan[0].attempts(), 4);
}

#[test]
fn the_least_searched_uncovered_sub_questions_are_planned_first_and_covered_ones_are_skipped() {
    let mut plan = plan_sub_questions("What is the impact of SOFR on leveraged loans?");
    let first = plan_queries(&mut plan, &[], 4);
    assert_eq!(
        first,
        vec![
            "SOFR leveraged loans impact",
            "what is SOFR",
            "SOFR leveraged loans risks",
            "SOFR leveraged loans statistics"
        ]
    );
    plan[0].mark_covered();
    let second = plan_queries(&mut plan, &first, 4);
    assert_eq!(second[0], "SOFR leveraged loans recent developments", "never searched yet, so first");
    assert!(!second.iter().any(|query| query.contains("impact")));
}

#[test]
fn facets_are_evidenced_by_their_words_numbers_or_years() {
    let evidence = |facet: Facet, text: &str| facet.is_evidenced_by(text, &tokenize(text));
    assert!(evidence(Facet::Risks, "Defaults among leveraged borrowers rose."));
    assert!(!evidence(Facet::Risks, "SOFR is published daily."));
    assert!(evidence(Facet::Figures, "Volumes reached 1.2 trillion."));
    assert!(evidence(Facet::Figures, "Issuance was 45 percent higher."));
    assert!(!evidence(Facet::Figures, "It started in 2018."), "a year alone is not a figure");
    assert!(evidence(Facet::Recent, "It started in 2018."));
    assert!(evidence(Facet::Definition, "SOFR is a broad measure of the cost of borrowing cash overnight."));
    assert!(evidence(Facet::Profile, "Jane Doe is the chief executive of Acme."));
}
