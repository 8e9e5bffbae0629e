//! The identity rule on sentences written the way news, biographies, court reports and press
//! releases write them: what a request's context says, which evidence fits, which is set aside as a
//! namesake's, and when the name alone is ambiguous.

use super::describe::{Mode, describe};
use super::*;

fn identity(company: Option<&str>, role: Option<&str>, location: Option<&str>) -> PersonIdentity {
    PersonIdentity::new(company, role, location).expect("valid")
}

fn read(context: &str) -> (Option<String>, Option<String>, Option<String>) {
    let read = PersonIdentity::from_context(context);
    (read.company, read.role, read.location)
}

fn some(text: &str) -> Option<String> {
    Some(text.to_owned())
}

fn sort(identity: &PersonIdentity, passages: &[(&str, usize)]) -> IdentitySorting {
    sort_evidence("Jane Doe", identity, passages)
}

fn kept_text(sorting: &IdentitySorting) -> String {
    sorting.kept.iter().map(|(text, _)| text.as_str()).collect::<Vec<_>>().join(" | ")
}

const CFO_OF_ACME: &str = "Jane Doe, chief financial officer of Acme Corp, said the company refinanced its term loan \
    in March. She has led the finance team since 2018.";
const PROFESSOR_CONVICTED: &str = "Jane Doe, a professor of history at Ohio State University, was convicted of fraud \
    on Tuesday for falsifying grant reports. She was sentenced to two years.";

#[test]
fn company_role_and_location_are_read_from_a_context() {
    assert_eq!(read("CFO of Widget Ltd"), (some("Widget Ltd"), some("CFO"), None));
    assert_eq!(read("Acme Corp, London"), (some("Acme Corp"), None, some("London")));
    assert_eq!(read("partner at Smith & Co in Boston"), (some("Smith & Co"), some("partner"), some("Boston")));
    assert_eq!(read("fund manager"), (None, some("fund manager"), None));
    assert_eq!(read("Acme Corp"), (some("Acme Corp"), None, None));
    assert_eq!(
        read("the former chief executive of Widget Holdings"),
        (some("Widget Holdings"), some("chief executive"), None)
    );
    assert_eq!(read("Acme Corp's treasurer, Chicago"), (some("Acme Corp"), some("treasurer"), some("Chicago")));
    assert_eq!(read("based in London"), (None, None, some("London")));
    assert_eq!(read("London-based investor"), (None, some("investor"), some("London")));
    assert_eq!(read("owner of a bakery in Leeds"), (None, some("owner"), some("Leeds")));
}

#[test]
fn structured_fields_win_over_the_context_and_are_validated() {
    let given = identity(Some("  Acme   Corp "), None, Some(""));
    let merged = given.clone().or(PersonIdentity::from_context("CFO of Widget Ltd, Boston"));
    assert_eq!((merged.company(), merged.role(), merged.location()), (Some("Acme Corp"), Some("CFO"), Some("Boston")));
    let long = "x".repeat(MAX_IDENTITY_FIELD_CHARS + 1);
    for (company, role, location, field) in [
        (Some(long.as_str()), None, None, "company"),
        (None, Some(long.as_str()), None, "role"),
        (None, None, Some("Bos\u{7}ton"), "location"),
    ] {
        match PersonIdentity::new(company, role, location) {
            Err(IdentityFieldError { field: got, .. }) => assert_eq!(got, field),
            other => panic!("{field}: {other:?}"),
        }
    }
}

#[test]
fn descriptions_are_read_next_to_the_name_in_several_styles() {
    let mention = |sentence: &str| {
        let matcher = PersonMatcher::new("Jane Doe").expect("matcher");
        let described = describe_mention(sentence, &matcher.spans(sentence));
        (described.company, described.role, described.location, described.affiliation)
    };
    // News apposition.
    assert_eq!(
        mention("Jane Doe, a professor of history at Ohio State University, was arrested on Monday."),
        (some("Ohio State University"), some("professor"), None, None)
    );
    // Press release title before the name.
    assert_eq!(
        mention("Acme Corp Chief Financial Officer Jane Doe said the results beat guidance."),
        (some("Acme Corp"), some("Chief Financial Officer"), None, None)
    );
    // Court report: age and home town.
    assert_eq!(
        mention("Jane Doe, 52, of Columbus, Ohio, pleaded guilty to wire fraud."),
        (None, None, some("Columbus, Ohio"), None)
    );
    // Biography: copula and employer.
    assert_eq!(
        mention("Jane Doe is a partner at Smith & Co in Boston, where she advises lenders."),
        (some("Smith & Co"), some("partner"), some("Boston"), None)
    );
    // Parenthesis, as in a deal announcement.
    assert_eq!(
        mention("The loan was signed by Jane Doe (CFO, Acme Corp) on Friday."),
        (some("Acme Corp"), some("CFO"), None, None)
    );
    // A verb with an employer.
    assert_eq!(mention("In 2015 Jane Doe joined Widget Ltd as treasurer."), (some("Widget Ltd"), None, None, None));
    // A title whose first word may be a town or a firm.
    assert_eq!(mention("Dayton attorney Jane Doe filed the motion."), (None, some("attorney"), None, some("Dayton")));
    // Someone else's description is not hers.
    assert_eq!(mention("Jane Doe sued Bob Roe, CFO of Widget Ltd, in 2020."), (None, None, None, None));
    assert_eq!(mention("Jane Doe was convicted of fraud in 2019."), (None, None, None, None));
    // "actor" inside "contractor" is no role.
    assert_eq!(mention("The contractor Jane Doe hired was paid late."), (None, None, None, None));
    assert_eq!(describe("convicted of fraud", Mode::Text), Description::default());
}

#[test]
fn a_namesakes_conviction_is_set_aside_and_listed_while_fitting_evidence_stays() {
    let acme_cfo = identity(Some("Acme Corp"), Some("CFO"), None);

    let sorting = sort(&acme_cfo, &[(CFO_OF_ACME, 1), (PROFESSOR_CONVICTED, 2)]);

    assert_eq!(sorting.status, IdentityStatus::Matched);
    assert_eq!(sorting.kept, vec![(CFO_OF_ACME.to_owned(), 1)], "the professor's page is not passed on");
    assert_eq!(sorting.set_aside.len(), 1, "{:?}", sorting.set_aside);
    let aside = &sorting.set_aside[0];
    assert_eq!(aside.source, 2);
    assert!(aside.quote.contains("convicted of fraud") && aside.quote.contains("sentenced"), "{}", aside.quote);
    assert!(
        aside.reason.contains("Ohio State University") && aside.reason.contains("not Acme Corp"),
        "{}",
        aside.reason
    );
    assert!(aside.reason.contains("is a professor, not a CFO"), "{}", aside.reason);
    assert_eq!(aside.described_as.role(), Some("professor"));
    assert_eq!(sorting.fitting_sources, BTreeSet::from([1]));
    assert_eq!((sorting.source_match(1), sorting.source_match(2)), (Some("fits"), Some("set_aside")));
}

#[test]
fn evidence_that_names_the_person_without_contradicting_the_identity_stays() {
    let acme_cfo = identity(Some("Acme Corp"), Some("CFO"), None);
    let bare = "Court records show that Jane Doe was sued by a landlord in 2021 over unpaid rent.";
    let press = "Former Acme Corp finance director Jane Doe was convicted of wire fraud in 2019.";

    let sorting = sort(&acme_cfo, &[(bare, 1), (press, 2)]);

    assert_eq!(sorting.status, IdentityStatus::Matched);
    assert!(sorting.set_aside.is_empty(), "{:?}", sorting.set_aside);
    assert_eq!(sorting.kept.len(), 2);
    assert_eq!((sorting.source_match(1), sorting.source_match(2)), (Some("not_contradicted"), Some("fits")));
}

#[test]
fn within_a_fitting_source_a_namesakes_sentences_are_set_aside_with_their_pronouns() {
    let text = "Jane Doe, CFO of Acme Corp, signed the facility agreement. She said the refinancing closed on time. \
                A different Jane Doe, a surgeon in Denver, was charged with insurance fraud. She denies the charges. \
                The facility matures in 2029.";
    let sorting = sort(&identity(Some("Acme Corp"), None, None), &[(text, 4)]);

    assert_eq!(sorting.status, IdentityStatus::Matched);
    let kept = kept_text(&sorting);
    assert!(kept.contains("signed the facility agreement") && kept.contains("closed on time"), "{kept}");
    assert!(kept.contains("matures in 2029"), "{kept}");
    assert!(!kept.contains("insurance fraud") && !kept.contains("denies"), "{kept}");
    let aside = &sorting.set_aside;
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(aside[0].quote.contains("insurance fraud") && aside[0].quote.contains("She denies"), "{}", aside[0].quote);
    assert_eq!(aside[0].described_as.location(), Some("Denver"));
}

#[test]
fn a_different_location_or_field_alone_sets_a_source_aside() {
    let boston_lawyer = identity(None, Some("lawyer"), Some("Boston"));
    let court = "Jane Doe, 45, of Columbus, Ohio, was sentenced on Friday for embezzling church funds.";
    let sports = "Jane Doe, the Boston marathon coach, was arrested after a crash.";
    let fits = "Boston attorney Jane Doe won the appeal for her client.";

    let sorting = sort(&boston_lawyer, &[(court, 1), (sports, 2), (fits, 3)]);

    let aside: Vec<usize> = sorting.set_aside.iter().map(|s| s.source).collect();
    assert_eq!(aside, vec![1, 2], "{:?}", sorting.set_aside);
    assert!(
        sorting.set_aside[0].reason.contains("is in Columbus, Ohio, not Boston"),
        "{}",
        sorting.set_aside[0].reason
    );
    assert!(sorting.set_aside[1].reason.contains("is a coach, not a lawyer"), "{}", sorting.set_aside[1].reason);
    assert_eq!(sorting.status, IdentityStatus::Matched);
    assert_eq!(sorting.kept.iter().map(|(_, n)| *n).collect::<Vec<_>>(), vec![3]);
}

#[test]
fn business_roles_do_not_contradict_each_other_and_a_matching_company_outweighs_a_role() {
    let acme_cfo = identity(Some("Acme"), Some("chief financial officer"), None);
    let promoted = "Jane Doe, the chief executive of Acme Corporation, announced a buyback.";
    let founder = "Jane Doe, a founder and director, spoke at the lenders' dinner.";

    let sorting = sort(&acme_cfo, &[(promoted, 1), (founder, 2)]);

    assert!(sorting.set_aside.is_empty(), "{:?}", sorting.set_aside);
    assert_eq!(sorting.status, IdentityStatus::Matched);
    assert_eq!(sorting.fitting_sources, BTreeSet::from([1]));
}

#[test]
fn a_former_employer_reads_as_a_different_person_and_says_so() {
    let sorting = sort(
        &identity(Some("Acme Corp"), None, None),
        &[("Jane Doe, former CFO of Widget Ltd, was fined by the FCA in 2016.", 1)],
    );

    assert_eq!(sorting.status, IdentityStatus::NotFound);
    assert!(sorting.kept.is_empty());
    let reason = &sorting.set_aside[0].reason;
    assert!(
        reason.contains("works at Widget Ltd, not Acme Corp") && reason.contains("described as former"),
        "{reason}"
    );
}

#[test]
fn with_no_identity_several_people_of_the_name_are_ambiguous_and_nothing_is_kept() {
    let sorting = sort(&PersonIdentity::default(), &[(CFO_OF_ACME, 1), (PROFESSOR_CONVICTED, 2), ("Rates rose.", 3)]);

    assert_eq!(sorting.status, IdentityStatus::Ambiguous);
    assert!(sorting.kept.is_empty());
    assert!(sorting.set_aside.is_empty());
    let described: Vec<(Option<&str>, Option<&str>, Vec<usize>)> = sorting
        .candidates
        .iter()
        .map(|c| (c.described_as.company(), c.described_as.role(), c.sources.iter().copied().collect()))
        .collect();
    assert_eq!(
        described,
        vec![
            (Some("Acme Corp"), Some("chief financial officer"), vec![1]),
            (Some("Ohio State University"), Some("professor"), vec![2]),
        ]
    );
    let message = sorting.message("Jane Doe");
    assert!(
        message.contains("2 different people named Jane Doe") && message.contains("Which one do you mean?"),
        "{message}"
    );
    assert!(message.contains("chief financial officer at Acme Corp [sources 1]"), "{message}");
    assert_eq!(sorting.source_match(2), Some("ambiguous"));
}

#[test]
fn one_person_described_by_many_sources_is_not_ambiguous() {
    let bio = "Jane Doe is the CFO of Acme Corp. She joined in 2018 from a rival lender.";
    let news = "Acme CFO Jane Doe said margins would improve.";
    let bare = "Jane Doe declined to comment.";

    let sorting = sort(&PersonIdentity::default(), &[(bio, 1), (news, 2), (bare, 3)]);

    assert_eq!(sorting.status, IdentityStatus::NameOnly);
    assert_eq!(sorting.candidates.len(), 1);
    assert_eq!(sorting.kept.len(), 3);
    assert!(sorting.message("Jane Doe").contains("by name only"));
}

#[test]
fn a_role_shared_by_two_companies_is_ambiguous_until_a_company_tells_them_apart() {
    let widget_cfo = "Jane Doe, CFO of Widget Ltd, resigned after an audit found accounting irregularities.";
    let role_only = sort(&identity(None, Some("CFO"), None), &[(CFO_OF_ACME, 1), (widget_cfo, 2)]);
    assert_eq!(role_only.status, IdentityStatus::Ambiguous);
    assert!(role_only.kept.is_empty());

    let with_company = sort(&identity(Some("Acme Corp"), Some("CFO"), None), &[(CFO_OF_ACME, 1), (widget_cfo, 2)]);
    assert_eq!(with_company.status, IdentityStatus::Matched);
    assert_eq!(with_company.set_aside.iter().map(|s| s.source).collect::<Vec<_>>(), vec![2]);
}

#[test]
fn a_description_that_only_the_companys_sources_contradict_is_a_namesake() {
    // The identity gives only the company; a source placing a Jane Doe in another field, with no
    // company, is told apart by what the company's sources say about her.
    let surgeon = "Jane Doe, a surgeon in Denver, lost her licence after a malpractice verdict.";
    let sorting = sort(&identity(Some("Acme Corp"), None, None), &[(CFO_OF_ACME, 1), (surgeon, 2)]);

    assert_eq!(sorting.status, IdentityStatus::Matched);
    assert_eq!(sorting.set_aside.len(), 1, "{:?}", sorting.set_aside);
    assert!(
        sorting.set_aside[0].reason.contains("unlike the sources that name Acme Corp"),
        "{}",
        sorting.set_aside[0].reason
    );
    assert!(!kept_text(&sorting).contains("malpractice"));
}

#[test]
fn nothing_naming_the_person_is_not_found() {
    let sorting = sort(&identity(Some("Acme Corp"), None, None), &[("Rates rose again this quarter.", 1)]);
    assert_eq!(sorting.status, IdentityStatus::NotFound);
    assert_eq!(sorting.kept.len(), 1, "passages that name nobody are passed on unchanged");
    assert!(sorting.message("Jane Doe").starts_with("No source names Jane Doe (Acme Corp)"));
    let json = sorting.to_json("Jane Doe", |n| Some(format!("https://example.com/{n}")));
    assert_eq!(json["status"], "not_found");
    assert_eq!(json["company"], "Acme Corp");
    assert_eq!(json["set_aside"], json!([]));
}
