//! The character assessment on hand-written passages: which findings each kind of statement gives,
//! who the person is taken to be, and the score band.

use super::*;

fn assess(name: &str, passages: &[(&str, usize)]) -> CharacterAssessment {
    assess_character(name, passages)
}

fn categories(findings: &[Finding]) -> Vec<AdverseCategory> {
    findings.iter().map(|f| f.category).collect()
}

#[test]
fn no_mention_of_the_person_is_insufficient_evidence() {
    let result = assess("Jane Doe", &[("Acme Corp filed for Chapter 11 in 2020.", 0), ("Rates rose.", 1)]);
    assert_eq!(result.score_band(), ScoreBand::InsufficientEvidence);
    assert!(result.adverse_findings().is_empty());
    assert!(result.sources_mentioning_person().is_empty());
    assert!(result.requires_human_review());
    assert_eq!(result.notice(), CHARACTER_NOTICE);
    assert_eq!(result.dimension(), "character");
    assert!(result.reasons()[0].contains("None of the 2 passages mentions Jane Doe"));
}

#[test]
fn a_bare_mention_without_anything_relevant_is_insufficient_evidence() {
    let result = assess("Jane Doe", &[("Jane Doe attended the conference in Boston.", 0)]);
    assert_eq!(result.score_band(), ScoreBand::InsufficientEvidence);
    assert_eq!(result.sources_mentioning_person(), &[0]);
}

#[test]
fn a_conviction_for_fraud_is_weak_and_quoted() {
    let result = assess(
        "John Smith",
        &[("In 2015 John Smith was convicted of wire fraud and sentenced to three years. He later moved abroad.", 4)],
    );
    assert_eq!(result.score_band(), ScoreBand::Weak);
    assert_eq!(categories(result.adverse_findings()), vec![AdverseCategory::Fraud, AdverseCategory::Criminal]);
    let finding = &result.adverse_findings()[0];
    assert_eq!(finding.statement, "In 2015 John Smith was convicted of wire fraud and sentenced to three years.");
    assert_eq!(finding.source_index, 4);
}

#[test]
fn inflected_triggers_are_recognised() {
    let passages = [
        ("Smith was sued by a former partner in 2018.", 0),
        ("The SEC charged John Smith with misleading investors.", 1),
        ("John Smith's restaurant group filed for Chapter 11 protection in 2009.", 2),
        ("John Smith was added to the OFAC SDN list.", 3),
        ("John Smith was fined by the FCA for late reporting.", 4),
        ("A grand jury indicted John Smith.", 5),
    ];
    let result = assess("John Smith", &passages);
    let found: BTreeSet<AdverseCategory> = result.adverse_findings().iter().map(|f| f.category).collect();
    assert_eq!(
        found,
        BTreeSet::from([
            AdverseCategory::Litigation,
            AdverseCategory::RegulatoryAction,
            AdverseCategory::BankruptcyInsolvency,
            AdverseCategory::Sanctions,
            AdverseCategory::Criminal,
        ])
    );
    // "SEC charged … with" is regulatory, not criminal.
    assert!(!result.adverse_findings().iter().any(|f| f.source_index == 1 && f.category == AdverseCategory::Criminal));
    assert_eq!(result.score_band(), ScoreBand::Weak);
}

#[test]
fn negations_and_exonerations_are_mitigating_not_adverse() {
    let passages = [
        ("Jane Doe was cleared of all fraud allegations in 2019.", 0),
        ("A lawsuit against Jane Doe was dismissed in 2020.", 1),
        ("Doe was acquitted of the fraud charges.", 2),
        ("Searches found no record of bankruptcy for Jane Doe.", 3),
        ("Jane Doe has never been sued.", 4),
    ];
    let result = assess("Jane Doe", &passages);
    assert!(result.adverse_findings().is_empty(), "{:?}", result.adverse_findings());
    let mitigated: BTreeSet<usize> = result.mitigating_findings().iter().map(|f| f.source_index).collect();
    assert_eq!(mitigated, BTreeSet::from([0, 1, 2, 3, 4]));
    assert_eq!(result.score_band(), ScoreBand::Adequate);
    assert!(result.reasons().iter().any(|r| r.starts_with("Mitigating:")));
}

#[test]
fn being_dismissed_from_a_job_for_fraud_is_not_an_exoneration() {
    let result = assess("Jane Doe", &[("Jane Doe was dismissed by the bank for fraud.", 0)]);
    assert_eq!(categories(result.adverse_findings()), vec![AdverseCategory::Fraud]);
    assert_eq!(result.score_band(), ScoreBand::Weak);
}

#[test]
fn findings_about_other_people_are_not_attributed() {
    let passages = [
        ("John Smith testified against Bob Jones, who was convicted of fraud.", 0),
        ("Mary Major, a rival of Smith, was indicted in 2012.", 1),
        ("John Smith, chief executive of Acme Corp, which filed for bankruptcy in 2010, declined to comment.", 2),
    ];
    let result = assess("John Smith", &passages);
    assert!(result.adverse_findings().is_empty(), "{:?}", result.adverse_findings());
    assert_eq!(result.sources_mentioning_person(), &[0, 1, 2]);
}

#[test]
fn passages_about_someone_else_do_not_count_as_mentions() {
    let passages = [("Bob Jones was convicted of embezzlement.", 0), ("Jane Doe founded Acme Corp in 2001.", 1)];
    let result = assess("Jane Doe", &passages);
    assert!(result.adverse_findings().is_empty());
    assert_eq!(result.sources_mentioning_person(), &[1]);
}

#[test]
fn a_leading_pronoun_continues_the_person() {
    let result =
        assess("Jane Doe", &[("Jane Doe ran a hedge fund. She pleaded guilty to securities fraud in 2011.", 2)]);
    assert_eq!(categories(result.adverse_findings()), vec![AdverseCategory::Fraud, AdverseCategory::Criminal]);
    assert_eq!(result.adverse_findings()[0].statement, "She pleaded guilty to securities fraud in 2011.");
}

#[test]
fn corroborated_positive_signals_without_adverse_findings_are_strong() {
    let passages = [
        ("Jane Doe founded Widget Ltd in 2004 and led the company to profitability.", 0),
        ("Doe serves on the board of the regional hospital.", 1),
        ("In 2019 Jane Doe was awarded the Entrepreneur of the Year prize.", 2),
    ];
    let result = assess("Ms. Jane Doe", &passages);
    assert_eq!(result.score_band(), ScoreBand::Strong);
    let kinds: BTreeSet<PositiveKind> = result.positive_signals().iter().map(|p| p.kind).collect();
    assert!(kinds.contains(&PositiveKind::Founder) && kinds.contains(&PositiveKind::Governance));
    assert!(kinds.contains(&PositiveKind::Recognition) && kinds.contains(&PositiveKind::Leadership));
}

#[test]
fn positive_signals_from_a_single_source_are_only_adequate() {
    let result = assess("Jane Doe", &[("Jane Doe founded Widget Ltd and repaid its loans in full.", 0)]);
    assert_eq!(result.score_band(), ScoreBand::Adequate);
}

#[test]
fn a_single_litigation_finding_is_adequate_and_three_are_weak() {
    let one = assess("Jane Doe", &[("Jane Doe was named as a defendant in a contract dispute.", 0)]);
    assert_eq!(one.score_band(), ScoreBand::Adequate);
    let three = assess(
        "Jane Doe",
        &[
            ("Jane Doe was sued by a supplier in 2015.", 0),
            ("A landlord sued Jane Doe in 2017.", 1),
            ("Jane Doe faces a class action over fees.", 2),
        ],
    );
    assert_eq!(three.score_band(), ScoreBand::Weak);
}

#[test]
fn the_assessment_serialises_with_snake_case_names() {
    let result = assess("Jane Doe", &[("Jane Doe was fined by the SEC in 2014.", 0)]);
    let json = serde_json::to_value(&result).expect("serialises");
    assert_eq!(json["dimension"], "character");
    assert_eq!(json["score_band"], "adequate");
    assert_eq!(json["adverse_findings"][0]["category"], "regulatory_action");
    assert_eq!(json["requires_human_review"], true);
    assert_eq!(json["notice"], CHARACTER_NOTICE);
    assert!(CHARACTER_NOTICE.contains("ECOA") && CHARACTER_NOTICE.contains("GDPR Art. 22"));
    assert!(CHARACTER_NOTICE.contains("EU AI Act"));
}

#[test]
fn a_namesake_or_a_firm_with_the_surname_is_not_the_person() {
    let passages = [
        ("Smith & Wesson was sued over product defects.", 0),
        ("John Smith runs a bakery. His brother, Tom Smith, was jailed for tax fraud.", 1),
        ("Smith Holdings defaulted on its bonds.", 2),
    ];
    let result = assess("John Smith", &passages);
    assert!(result.adverse_findings().is_empty(), "{:?}", result.adverse_findings());
    assert_eq!(result.sources_mentioning_person(), &[1]);
    let titled = assess("John Smith", &[("CEO Smith was sanctioned by OFAC in 2022.", 0)]);
    assert_eq!(categories(titled.adverse_findings()), vec![AdverseCategory::Sanctions]);
}

#[test]
fn an_exoneration_clears_only_its_own_matter() {
    let result = assess(
        "John Smith",
        &[("John Smith was convicted of fraud in 2010 and an unrelated lawsuit was dismissed in 2012.", 0)],
    );
    assert_eq!(categories(result.adverse_findings()), vec![AdverseCategory::Fraud, AdverseCategory::Criminal]);
    assert_eq!(categories(result.mitigating_findings()), vec![AdverseCategory::Litigation]);
    let dropped =
        assess("John Smith", &[("John Smith was indicted in 2015, but the charges were dropped in 2016.", 0)]);
    assert!(dropped.adverse_findings().is_empty());
    assert_eq!(categories(dropped.mitigating_findings()), vec![AdverseCategory::Criminal]);
}

#[test]
fn not_only_is_not_a_negation() {
    let result = assess("Jane Doe", &[("Jane Doe was not only sued but also fined.", 0)]);
    assert_eq!(
        categories(result.adverse_findings()),
        vec![AdverseCategory::Litigation, AdverseCategory::RegulatoryAction]
    );
    assert_eq!(result.score_band(), ScoreBand::Weak);
}

proptest::proptest! {
    #[test]
    fn any_passages_are_assessed_without_panicking(
        name in "\\PC{0,30}",
        texts in proptest::collection::vec("\\PC{0,120}", 0..4),
    ) {
        let passages: Vec<(String, usize)> = texts.into_iter().enumerate().map(|(i, t)| (t, i)).collect();
        let result = assess_character(&name, &passages);
        proptest::prop_assert!(result.requires_human_review());
    }
}

#[test]
fn sentences_do_not_split_after_abbreviations_or_initials() {
    let text = "Dr. Jane A. Doe joined Acme Corp. in 2001. She left.";
    let parts: Vec<&str> = sentences(text).into_iter().map(|r| text[r].trim()).collect();
    assert_eq!(parts, vec!["Dr. Jane A. Doe joined Acme Corp. in 2001.", "She left."]);
}
