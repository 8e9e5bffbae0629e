//! Facilities read end to end, and the commitment and maturity candidates they are resolved from.

use rust_decimal::Decimal;

use super::commitments::commitment_candidates;
use super::kinds::reborrowing;
use super::maturities::maturity_candidates;
use super::*;
use crate::domain::extraction::amendments::changes;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::numbers::Money;
use crate::domain::extraction::scope::Scoped;
use crate::domain::extraction::sourced::Sourced;

#[test]
fn a_date_named_after_a_reduction_does_not_make_an_amount_a_reduction() {
    let (defining, passing) = commitment_quotes(
        "On the Step-Down Date the Bank shall make a term loan (the \"Term Loan\") in the amount of $15,000,000. Each reduction of the Term Loan shall be in the amount of $1,000,000.",
    );
    let found: Vec<String> = defining.into_iter().chain(passing).collect();
    assert_eq!(found, ["$15,000,000"]);
    let (defining, passing) = commitment_quotes(
        "On the Reduction Date the Bank shall make a term loan (the \"Term Loan\") in the amount of $15,000,000.",
    );
    assert_eq!(defining.into_iter().chain(passing).collect::<Vec<_>>(), ["$15,000,000"]);
}

/// The quotes of the maturity candidates `text` states.
fn maturity_quotes(text: &str) -> Vec<String> {
    let doc = Document::scan(text);
    let candidates = maturity_candidates(&doc, &changes(&doc), &mut Report::default());
    candidates.iter().map(|c| c.value.quote().to_owned()).collect()
}

#[test]
fn a_value_belongs_to_the_facility_named_in_its_own_clause() {
    let text = "\"Termination Date\" means: (a) in relation to Facility A, 15 March 2029; and (b) in relation to Facility B, 15 March 2028.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = maturity_candidates(&doc, &changes(&doc), &mut report);
    let scoped: Vec<(&str, Vec<FacilityKey>)> = found.iter().map(|c| (c.value.quote(), c.keys.clone())).collect();
    assert_eq!(
        scoped,
        [("15 March 2029", vec![FacilityKey::Lettered(b'A')]), ("15 March 2028", vec![FacilityKey::Lettered(b'B')])]
    );
}

#[test]
fn a_maturity_defined_by_reference_to_a_schedule_is_read_from_the_schedule() {
    let text = "\"Final Maturity Date\" means the date stated in item 4 of the Key Terms Schedule.\n\nKEY TERMS SCHEDULE\n\n3. Borrower: Ridge Foods LLC 4. Final Maturity Date: March 15, 2027 5. Commitment: $20,000,000\n";
    let quotes = maturity_quotes(text);
    assert_eq!(quotes, ["March 15, 2027"]);
}

#[test]
fn a_determination_date_is_no_termination_date() {
    let text = "\"Interest Determination Date\" means, for the first Interest Period, June 3, 2024.\n\n\"Termination Date\" means June 3, 2029.\n";
    assert_eq!(maturity_quotes(text), ["June 3, 2029"]);
}

#[test]
fn a_relative_maturity_counted_from_a_defined_calendar_date_is_computed_and_says_so() {
    let text = "\"Revolving Maturity Date\" means the date that is three (3) years after the Funding Date.\n\n\"Funding Date\" means November 15, 2021.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = maturity_candidates(&doc, &changes(&doc), &mut report);
    let stated: Vec<(String, &str)> = found.iter().map(|c| (c.value.value().to_string(), c.value.quote())).collect();
    assert_eq!(stated, [("2024-11-15".to_owned(), "three (3) years after the Funding Date")]);
    assert!(report.warnings[0].starts_with("computed:") && report.warnings[0].contains("November 15, 2021"));
    let anniversary = "\"Maturity Date\" means the seventh anniversary of the Effective Date.\n\n\"Effective Date\" means March 2, 2020.\n";
    assert_eq!(maturity_quotes(anniversary), ["the seventh anniversary of the Effective Date"]);
    // Named in the preamble, right after its date.
    let preamble = "This LOAN AGREEMENT is dated as of April 7, 2021 (the \"Effective Date\") between Rho LLC and Sigma Bank.\n\n\"Effective Date\" is defined in the preamble.\n\n\"Maturity Date\" means the date thirty-six (36) months after the Effective Date.\n";
    let doc = Document::scan(preamble);
    let found = maturity_candidates(&doc, &changes(&doc), &mut Report::default());
    let dates: Vec<String> = found.iter().map(|c| c.value.value().to_string()).collect();
    assert_eq!(dates, ["2024-04-07"]);
}

#[test]
fn a_relative_maturity_is_not_computed_from_an_event_or_when_something_may_move_it() {
    let event = "\"Maturity Date\" means the fifth anniversary of the Closing Date.\n\n\"Closing Date\" means the date on which the conditions in Section 4.1 are satisfied, which was June 1, 2022.\n";
    let earlier = "\"Maturity Date\" means the earlier of the fifth anniversary of the Closing Date and the date the Loans are accelerated.\n\n\"Closing Date\" means June 1, 2022.\n";
    let business_day = "\"Maturity Date\" means the fifth anniversary of the Closing Date or, if such day is not a Business Day, the next Business Day.\n\n\"Closing Date\" means June 1, 2022.\n";
    let leap_day = "\"Maturity Date\" means the first anniversary of the Closing Date.\n\n\"Closing Date\" means February 29, 2024.\n";
    for text in [event, earlier, business_day, leap_day] {
        let doc = Document::scan(text);
        let mut report = Report::default();
        assert!(maturity_candidates(&doc, &changes(&doc), &mut report).is_empty(), "{text}");
        assert!(report.warnings.iter().any(|w| w.contains("not computed")), "{:?}", report.warnings);
    }
}

#[test]
fn a_relative_maturity_is_reported_not_computed() {
    let text = "\"Maturity Date\" means the fifth anniversary of the Closing Date.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    assert!(maturity_candidates(&doc, &changes(&doc), &mut report).is_empty());
    assert!(report.warnings[0].contains("fifth anniversary"), "{:?}", report.warnings);
}

#[test]
fn commitments_are_read_from_lead_ins_and_type_phrases_but_not_from_baskets() {
    let text = "the Lenders agree to make (a) Term A Loans in an aggregate principal amount of Five Hundred Million Dollars ($500,000,000) and (b) a $250,000,000 revolving credit facility. Indebtedness in an aggregate principal amount not to exceed $50,000,000.";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = commitment_candidates(&doc, &mut report);
    let scoped: Vec<(&str, Vec<FacilityKey>)> = found.all().map(|c| (c.value.quote(), c.keys.clone())).collect();
    assert_eq!(
        scoped,
        [
            ("Five Hundred Million Dollars ($500,000,000)", vec![FacilityKey::TermLetter(b'A')]),
            ("$250,000,000", vec![FacilityKey::Revolving]),
        ]
    );
}

fn commitment_quotes(text: &str) -> (Vec<String>, Vec<String>) {
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = commitment_candidates(&doc, &mut report);
    let quotes = |list: &[Scoped<Sourced<Money>>]| list.iter().map(|c| c.value.quote().to_owned()).collect();
    (quotes(&found.defining), quotes(&found.passing))
}

fn only_facility(text: &str) -> Facility {
    let doc = Document::scan(text);
    let mut report = Report::default();
    let mut found = extract(&doc, &changes(&doc), &mut report);
    assert_eq!(found.len(), 1, "{found:?} {:?}", report.warnings);
    found.remove(0)
}

#[test]
fn the_defined_commitment_prevails_over_amounts_that_cap_some_loans() {
    let text = "\"Maximum Revolving Credit Commitment\" shall mean an amount equal to $75,000,000 on the Closing Date.\n\nThe Agent may fund Revolving Credit Advances in an aggregate amount not to exceed $5,000,000 without notice to the Lenders.\n";
    let (defining, passing) = commitment_quotes(text);
    assert_eq!(defining, ["$75,000,000"]);
    assert_eq!(passing, ["$5,000,000"]);
    let facility = only_facility(text);
    assert_eq!(facility.commitment.map(|c| c.value().value), Some("75000000".parse().expect("decimal")));
}

#[test]
fn an_amount_of_loans_the_text_names_as_existing_debt_is_no_commitment() {
    let text = "Current debt: $60M of senior secured term loans maturing in 2024 at Oak Finance LLC (the \"Existing \
        Oak Loans\"). Proposed: the Lenders will make term loans of $65,000,000 (the \"New Term Loans\").";
    let (defining, passing) = commitment_quotes(text);
    assert!(!defining.iter().chain(&passing).any(|q| q == "$60M"), "{defining:?} {passing:?}");
    assert!(defining.iter().chain(&passing).any(|q| q == "$65,000,000"), "the new loans' amount stays");
}

#[test]
fn amounts_of_other_things_are_not_commitments() {
    for text in [
        "goodwill associated with the Acquisition, in an amount not to exceed $35,000,000, shall be added back.",
        "the transferor Bank shall pay an administrative fee for processing such assignment in the amount of $2,500.",
        "The Bank's commitment to issue Letters of Credit up to a maximum aggregate face amount not exceeding Three Million Dollars ($3,000,000).",
        "the Borrower may reduce the Revolving Credit Commitment, in increments of $5,000,000.",
        "such that the resulting Total Revolving Loan Commitment is $150,000,000.",
        "time deposits in dollars having a maturity comparable to the related Interest Period and in an amount of $100,000.",
    ] {
        assert_eq!(commitment_quotes(text), (Vec::<String>::new(), Vec::<String>::new()), "{text}");
    }
}

#[test]
fn a_notes_principal_sum_and_its_loan_limit_state_the_commitment() {
    let (_, passing) = commitment_quotes(
        "promises to pay to the order of the Bank the principal sum of Twenty Five Million Dollars ($25,000,000.00) or so much thereof as may be advanced.\n\nThe Revolving Loans shall not exceed at any one time outstanding Twenty-Five Million Dollars ($25,000,000) minus the face amount of all outstanding Letters of Credit.\n",
    );
    assert_eq!(passing, ["Twenty Five Million Dollars ($25,000,000.00)", "Twenty-Five Million Dollars ($25,000,000)"]);
}

#[test]
fn commitments_are_defined_with_means_or_totalled_at_the_foot_of_the_signatures() {
    assert_eq!(
        commitment_quotes("\u{201c}Commitment\u{201d} means $500,000,000 or such lesser amount.\n").0,
        ["$500,000,000"]
    );
    assert_eq!(commitment_quotes("By: ______\n\n$500,000,000\nTotal Commitments\n").0, ["$500,000,000"]);
    assert!(commitment_quotes("$500,000,000\nTotal Assets\n").0.is_empty());
    assert_eq!(
        commitment_quotes("\"Commitment\" shall mean the several obligations of the Banks to advance funds in the aggregate sum of up to $100,000,000 to the Borrower.\n").0,
        ["$100,000,000"]
    );
}

#[test]
fn a_figure_below_the_lenders_amounts_that_adds_them_up_is_the_total_commitment() {
    let pages = "By: /s/ A. Signer\n\n$60,000,000     NORTH RIVER BANK, as a Lender\n\nBy: /s/ B. Signer\n\n$40,000,000     SOUTH BAY TRUST COMPANY, as a Lender\n\nBy: /s/ C. Signer\n\n---------------\n";
    assert_eq!(commitment_quotes(&format!("{pages}$100,000,000.00\n")).0, ["$100,000,000.00"]);
    // A figure that is not their sum is some other figure.
    assert!(commitment_quotes(&format!("{pages}$90,000,000\n")).0.is_empty());
}

#[test]
fn the_total_row_of_a_flattened_schedule_is_the_commitment_in_its_headings_currency() {
    let schedule = |heading: &str, total: &str| {
        format!(
            "SCHEDULE 1\nLender\n{heading}\nApplicable Percentage\nCedar Bank, N.A.\n$60,000,000\n60%\nBirch Bank PLC\n$40,000,000\n40%\n{total}\n$100,000,000\n100%\n"
        )
    };
    let defining = |text: &str| {
        let doc = Document::scan(text);
        let found = commitment_candidates(&doc, &mut Report::default());
        found
            .defining
            .iter()
            .map(|c| (c.value.quote().to_owned(), c.value.value().currency.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(defining(&schedule("Commitment", "Total")), [("$100,000,000".to_owned(), "USD".to_owned())]);
    assert_eq!(
        defining(&schedule("Lender's Commitment (Cdn.$)", "Total:")),
        [("$100,000,000".to_owned(), "CAD".to_owned())]
    );
    // A currency note nobody can read, or a figure in another currency than the heading's, says
    // nothing sure about the amount.
    assert!(defining(&schedule("Commitment (in local currency)", "TOTAL")).is_empty());
    assert!(defining(&schedule("Commitment (EUR)", "Total").replace("$100,000,000", "£100,000,000")).is_empty());
    // Without a total row, a lender's figure is no facility's size.
    assert!(defining(&schedule("Commitment", "Elm Bank")).is_empty());
}

#[test]
fn an_amount_in_passing_in_the_definition_of_something_else_is_not_a_commitment() {
    let text = "\"Working Capital\" means current assets less current liabilities, including all Revolving Loans outstanding but excluding up to $2,500,000 of deferred revenue.\n\n\"Revolving Credit Note\" means the note evidencing the Revolving Loans in the principal amount of $30,000,000.\n";
    let (defining, passing) = commitment_quotes(text);
    let found: Vec<String> = defining.into_iter().chain(passing).collect();
    assert_eq!(found, ["$30,000,000"]);
}

#[test]
fn a_cap_on_what_is_outstanding_makes_an_unnamed_facility_revolving() {
    let lends = "Each Lender agrees to make Loans to the Borrower from time to time before the Termination Date in an aggregate principal amount not to exceed at any time outstanding its Commitment.";
    let doc = Document::scan(lends);
    assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
    // A basket capped on what is outstanding says nothing about the loans.
    let basket =
        "The Borrower may from time to time incur Indebtedness not to exceed $5,000,000 at any time outstanding.";
    assert_eq!(reborrowing(&Document::scan(basket)), None);
}

#[test]
fn an_amount_named_as_the_loan_amount_is_the_commitment() {
    let text = "the Company issued to Harbor Investments, LLC that certain Promissory Note dated May 1, 2021 in the amount of $750,000.00 (the \u{201c}Loan Amount\u{201d}), and paid a fee of $5,000.00 (the \u{201c}Fee\u{201d}).\n";
    assert_eq!(commitment_quotes(text).0, ["$750,000.00"]);
    // The sum the document names as the loan itself.
    let sum = "On the Closing Date the Lender shall lend to the Borrower the sum of Four Million Dollars (US$4,000,000) (the \"Loan\").\n";
    assert_eq!(commitment_quotes(sum).0, ["Four Million Dollars (US$4,000,000)"]);
}

#[test]
fn an_amendment_substitutes_the_commitment_it_replaces() {
    let text = "(a) Section 2.1(a) shall be amended by deleting \"$150,000,000\" immediately following the words \"the Total Revolving Loan Commitment is\" and substituting \"$300,000,000\" therefor.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = commitment_candidates(&doc, &mut report);
    let read: Vec<(&str, Vec<FacilityKey>)> = found.all().map(|c| (c.value.quote(), c.keys.clone())).collect();
    assert_eq!(read, [("$300,000,000", vec![FacilityKey::Revolving])]);
    let text = "Section 2.14 shall be amended by deleting \"$20,000,000\" immediately following the words \"all Letters of Credit would exceed\" and substituting \"$200,000,000\" therefor.\n";
    assert_eq!(commitment_quotes(text), (Vec::<String>::new(), Vec::<String>::new()));
}

#[test]
fn a_facility_amount_defined_as_at_any_date_is_the_facility_s_size() {
    let (defining, passing) =
        commitment_quotes("\u{201c}Maximum Facility Amount\u{201d} means, at any date, $90,000,000.\n");
    assert_eq!(defining.into_iter().chain(passing).collect::<Vec<_>>(), ["$90,000,000"]);
}

#[test]
fn a_heading_or_a_subject_that_denies_reborrowing_makes_a_term_loan() {
    for text in [
        "(b) One Draw; No Re-Borrowing of Advances. The Lender shall advance the Loan on the Funding Date only.",
        "Once repaid, no portion of the Advances may be re-borrowed.",
        "No amount of the Loan that is prepaid shall be reborrowed.",
    ] {
        assert_eq!(reborrowing(&Document::scan(text)).map(|t| *t.value()), Some(FacilityType::TermLoan), "{text}");
    }
    // A "no" that denies something else leaves the reborrowing allowed.
    let allowed = "No consent of the Lenders is needed, and amounts repaid may be reborrowed.";
    assert_eq!(reborrowing(&Document::scan(allowed)).map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
}

#[test]
fn reborrowing_makes_a_facility_revolving_and_forbidding_it_a_term_loan() {
    for text in [
        "The principal balance hereof may be borrowed, repaid and borrowed again.",
        "the Borrower may borrow, prepay Loans and reborrow at any time prior to the Termination Date.",
        "the several obligations of the Banks to lend and relend to the Borrower.",
    ] {
        let doc = Document::scan(text);
        assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::RevolvingCredit), "{text}");
    }
    let doc = Document::scan("Term Loans repaid or prepaid shall not be reborrowed.");
    assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::TermLoan));
    let mixed = "Amounts repaid may not be reborrowed. Lenders may reborrow nothing.";
    assert!(reborrowing(&Document::scan(mixed)).is_none(), "{mixed}");
    let doc = Document::scan(
        "the notice states whether the Advance is to be repaid and not reborrowed; Advances may be reborrowed.",
    );
    assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
}

#[test]
fn a_single_unnamed_loan_that_may_not_be_reborrowed_is_a_term_loan() {
    let text = "Each Lender agrees to make a loan to the Borrower in a single drawing in an amount not exceeding its Commitment. Amounts repaid in respect of the Loans may not be reborrowed.\n\n\"Maturity Date\" means March 1, 2027.\n";
    assert_eq!(only_facility(text).facility_type.map(|t| *t.value()), Some(FacilityType::TermLoan));
}

#[test]
fn a_maturity_that_applies_only_once_extended_is_not_the_maturity() {
    let text = "\"Maturity Date\" means June 30, 2027; provided that if the Maturity Date has been extended under Section 2.15, then the Maturity Date shall mean June 30, 2028.\n";
    let found = maturity_quotes(text);
    assert_eq!(found, ["June 30, 2027"]);
}

#[test]
fn an_amendments_operative_change_of_maturity_prevails_over_the_maturity_it_recites() {
    let text = "WHEREAS, the Note has a maturity date of June 30, 2023 (the \"Maturity Date\"); and\n\nWHEREAS, the parties wish to extend the Maturity Date from June 30, 2023 to September 30, 2023 (the \"Amended Maturity Date\").\n\n1. The Maturity Date of the Note is hereby amended to be the Amended Maturity Date.\n";
    let found = maturity_quotes(text);
    assert_eq!(found, ["September 30, 2023"]);
    let text = "The Note matures on May 1, 2022.\n\n1. The Maturity Date of the Note is amended and extended to August 1, 2022.\n";
    let found = maturity_quotes(text);
    assert_eq!(found, ["August 1, 2022"]);
}

#[test]
fn a_maturity_defined_in_passing_takes_the_date_of_its_sentence() {
    let text = "The entire principal balance shall be due and payable on November 30, 1998, or such earlier date on which it becomes due on acceleration (the \"Maturity Date\").\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let candidates = maturity_candidates(&doc, &changes(&doc), &mut report);
    let found: Vec<&str> = candidates.iter().map(|c| c.value.quote()).collect();
    assert_eq!(found, ["November 30, 1998"]);
    for text in [
        "The Loans made after December 1, 1998 shall be repaid on demand (the \"Maturity Date\").\n",
        "payable on March 1, 1998 or on June 1, 1998 (the \"Maturity Date\").\n",
        "payable on November 30, 1998 (the \"Closing Date\").\n",
    ] {
        let doc = Document::scan(text);
        assert!(maturity_candidates(&doc, &changes(&doc), &mut report).is_empty(), "{text}");
    }
}

#[test]
fn the_end_of_the_commitments_is_the_maturity_of_a_revolver_only() {
    let revolver = "\"Revolving Credit Commitment\" means $10,000,000.\n\n\"Commitment Termination Date\" shall mean the earliest of (i) January 1, 1999 and (ii) the date of acceleration.\n";
    assert_eq!(
        only_facility(revolver).termination_date.map(|d| d.quote().to_owned()),
        Some("January 1, 1999".to_owned())
    );
    let term = "The Term Loans shall bear interest.\n\n\"Commitment Termination Date\" shall mean January 1, 1999.\n\n\"Total Commitments\" means $10,000,000.\n";
    let doc = Document::scan(term);
    let mut report = Report::default();
    let found = extract(&doc, &changes(&doc), &mut report);
    assert!(found.iter().all(|f| f.termination_date.is_none()), "{found:?}");
}

#[test]
fn loans_only_to_reimburse_drawings_are_priced_beside_the_letter_of_credit_facility() {
    let text = "Each Lender agrees to make revolving loans (\"LOANS\") requested by Borrower solely for the purpose of satisfying Borrower's Reimbursement Obligations. \"COMMITMENT\" means the sum of each Lender's Commitment Amount. As of the Closing Date, the amount of the Commitment is $40,000,000. The Loans shall bear interest at a rate equal to LIBOR plus two and one-half percent (2.50%) per annum.\n\n\"MATURITY DATE\" means October 6, 2008.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = extract(&doc, &changes(&doc), &mut report);
    let [letters, loans] = found.as_slice() else { panic!("{found:?}") };
    assert_eq!(letters.facility_type.as_ref().map(|t| *t.value()), Some(FacilityType::LetterOfCredit));
    assert_eq!(letters.commitment.as_ref().map(|c| c.value().value), Some(Decimal::from(40_000_000)));
    assert!(letters.spread.is_none(), "letters of credit bear fees, not interest");
    assert_eq!(loans.facility_type.as_ref().map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
    assert!(loans.commitment.is_none(), "the loans draw on the letters' commitment");
    assert_eq!(loans.spread.as_ref().map(|s| *s.value()), Some(Decimal::new(25, 3)));
    assert_eq!(loans.termination_date.as_ref().map(|d| d.quote()), Some("October 6, 2008"));
    let text = "Each Lender agrees to make revolving loans, which may be used to reimburse drawings under Letters of Credit. \"Commitment\" means $40,000,000.\n";
    assert_eq!(only_facility(text).facility_type.map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
}

#[test]
fn an_amendment_replacing_the_date_in_the_maturity_definition_states_the_new_maturity() {
    let text = "(iii) The date \"June 24, 1996\" in the definition of \"Maturity Date\" is deleted and replaced with the date \"December 31, 1998\".\n(iv) The date \"May 1, 1996\" in the definition of \"Closing Date\" is deleted and replaced with the date \"June 1, 1996\".\n";
    let found = maturity_quotes(text);
    assert_eq!(found, ["December 31, 1998"]);
}

#[test]
fn an_amendment_restating_only_the_maturity_still_describes_the_facility() {
    let text = "AMENDMENT NO. 1\n\n\"Maturity Date\" means December 31, 1998.\n";
    let facility = only_facility(text);
    assert_eq!(facility.termination_date.map(|d| d.quote().to_owned()), Some("December 31, 1998".to_owned()));
    assert!(facility.commitment.is_none());
    let doc = Document::scan("A letter about the weather.\n");
    let mut report = Report::default();
    assert!(extract(&doc, &changes(&doc), &mut report).is_empty());
}

#[test]
fn the_amount_of_another_defined_amount_is_not_the_facility_size() {
    let text = "\u{201c}Canadian Maximum Revolver Amount\u{201d} means $50,000,000, decreased by reductions in the Canadian Revolver Commitments.\n\n\u{201c}Revolver Commitments\u{201d} means $500,000,000.\n";
    let facility = only_facility(text);
    assert_eq!(facility.commitment.map(|c| c.quote().to_owned()), Some("$500,000,000".to_owned()));
    let text = "\u{201c}Canadian Maximum Revolver Amount\u{201d} means $50,000,000.\n\n\u{201c}Maximum Revolver Amount\u{201d} means $400,000,000, decreased by reductions in the Revolver Commitments and increased by the amount of any Increase.\n";
    assert_eq!(only_facility(text).commitment.map(|c| c.quote().to_owned()), Some("$400,000,000".to_owned()));
    let only_the_sublimit = "\u{201c}Canadian Revolver Sublimit\u{201d} means $50,000,000 of revolving loans.\n";
    let doc = Document::scan(only_the_sublimit);
    let found = extract(&doc, &changes(&doc), &mut Report::default());
    assert!(found.iter().all(|f| f.commitment.is_none()), "{found:?}");
}

#[test]
fn a_date_named_by_the_term_right_after_it_is_the_terms_whatever_precedes_it() {
    let text = "\"Revolving Credit Commitment\" means $10,000,000.\n\nThe Bank agrees to make Revolving Credit \
        Loans from time to time on and after the date hereof but prior to March 31, 2030 (the \"Maturity \
        Date\") in amounts selected by the Borrower.\n";
    assert_eq!(only_facility(text).termination_date.map(|d| d.quote().to_owned()), Some("March 31, 2030".to_owned()));
}

/// A bank's single loan that may not be reborrowed, whose text also mentions, in passing, a
/// revolving line the bank might one day consider.
const SINGLE_LOAN_MENTIONING_A_LINE: &str = "LOAN AGREEMENT\n\n\
This LOAN AGREEMENT is made as of March 8, 2021, between WILLOW FARMS, LLC, an Iowa limited liability company \
(the \"Borrower\"), and PRAIRIE STATE BANK (the \"Lender\").\n\n\
1. The Loan. The Lender agrees to make one loan to the Borrower on the Closing Date in the principal amount of \
$2,400,000 (the \"Loan\"). Principal repaid may not be reborrowed.\n\n\
2. Repayment. The Borrower shall repay the Loan in monthly installments, the balance falling due on March 8, 2031.\n\n\
3. Further Credit. Nothing herein obliges the Lender to open a revolving line of credit for the Borrower.\n\n\
4. Governing Law. This Agreement is governed by the law of the State of Iowa.\n";

#[test]
fn a_single_loan_that_may_not_be_reborrowed_is_no_revolver_for_a_line_mentioned_in_passing() {
    let extraction = crate::domain::extraction::extract_credit_agreement(SINGLE_LOAN_MENTIONING_A_LINE);
    let types: Vec<FacilityType> =
        extraction.agreement.facilities.iter().filter_map(|f| f.facility_type.as_ref().map(|t| *t.value())).collect();
    assert!(!types.contains(&FacilityType::RevolvingCredit), "{types:?}");
}

#[test]
fn a_single_loan_that_may_not_be_reborrowed_is_a_term_loan() {
    let extraction = crate::domain::extraction::extract_credit_agreement(SINGLE_LOAN_MENTIONING_A_LINE);
    let facility = extraction.agreement.facilities.first();
    assert_eq!(facility.and_then(|f| f.facility_type.as_ref()).map(|t| *t.value()), Some(FacilityType::TermLoan));
    assert_eq!(
        facility.and_then(|f| f.commitment.as_ref()).map(|c| c.value().value.to_string()).as_deref(),
        Some("2400000")
    );
}

#[test]
fn an_amount_followed_by_and_a_term_loan_is_not_the_term_loan_s() {
    let text = "LOAN AGREEMENT\n\n\
This LOAN AGREEMENT is made as of July 1, 2022, between ASPEN TOOLING, INC., a Utah corporation (the \
\"Borrower\"), and CANYON BANK (the \"Lender\").\n\n\
1. Credit. The Lender agrees to make available to the Borrower a revolving line of credit in the maximum \
principal amount of $5,000,000 and a term loan in the principal amount of $2,000,000. Amounts repaid under the \
revolving line of credit may be reborrowed.\n\n\
2. Governing Law. This Agreement is governed by the law of the State of Utah.\n";
    let extraction = crate::domain::extraction::extract_credit_agreement(text);
    let sized: Vec<(Option<FacilityType>, String)> = extraction
        .agreement
        .facilities
        .iter()
        .filter_map(|f| {
            Some((f.facility_type.as_ref().map(|t| *t.value()), f.commitment.as_ref()?.value().value.to_string()))
        })
        .collect();
    assert!(!sized.contains(&(Some(FacilityType::TermLoan), "5000000".to_string())), "{sized:?}");
    assert!(sized.contains(&(Some(FacilityType::TermLoan), "2000000".to_string())), "{sized:?}");
}

/// A bank's single loan of a stated amount whose text names a kind of facility only where it
/// speaks of other debt.
fn single_loan_naming_other_debt(elsewhere: &str) -> String {
    format!(
        "LOAN AGREEMENT\n\n\
This LOAN AGREEMENT is made as of May 4, 2022, between HERON OPTICS, INC., a Nevada corporation (the \
\"Borrower\"), and LAKESIDE BANK (the \"Lender\").\n\n\
1. The Loan. The Lender agrees to make a loan to the Borrower on the Closing Date in the principal amount of \
$3,250,000 (the \"Loan\").\n\n\
2. Repayment. The Borrower shall repay the Loan in forty equal monthly installments.\n\n\
3. Other Debt. {elsewhere}\n\n\
4. Governing Law. This Agreement is governed by the law of the State of Nevada.\n"
    )
}

#[test]
fn a_kind_named_only_for_other_debt_is_not_the_kind_of_the_single_loan() {
    let elsewhere = [
        "The proceeds of the Loan shall first repay the Revolving Loans outstanding under the Existing Credit Agreement.",
        "The Borrower shall incur no Indebtedness except the Loan and a letter of credit facility with another bank.",
        "The Borrower shall not enter into any bridge loan without the consent of the Lender.",
        "A default under the Revolving Loan Agreement between the Borrower and the Lender is an Event of Default.",
    ];
    for sentence in elsewhere {
        let text = single_loan_naming_other_debt(sentence);
        let facility = only_facility(&text);
        assert_eq!(facility.facility_type.map(|t| *t.value()), None, "{sentence}");
        assert_eq!(facility.commitment.map(|c| c.quote().to_owned()), Some("$3,250,000".to_owned()), "{sentence}");
    }
}

#[test]
fn a_kind_named_in_the_heading_of_the_undertaking_to_lend_is_the_single_facility_s() {
    let text = "LOAN AGREEMENT\n\n2.01 Revolving Loans. The Bank agrees to make loans to the Borrower from time to \
time, which may be borrowed, repaid and reborrowed, in an aggregate amount outstanding not to exceed the \
Commitment.\n\n\"Commitment\" means $5,000,000.\n";
    let facility = only_facility(text);
    assert_eq!(
        facility.facility_type.map(|t| (*t.value(), t.quote().to_owned())),
        Some((FacilityType::RevolvingCredit, "Revolving Loans".to_owned()))
    );
}

#[test]
fn an_amount_whose_figures_a_break_cuts_short_is_no_commitment() {
    for cut in ["$7,500,\n000", "$7,500,-\n000", "$7,500, 000", "$7, 500,000", "$7,50\n0,000", "$7\nmillion"] {
        let text = format!(
            "The Bank agrees to make a term loan (the \"Term Loan\") to the Borrower in the principal amount of {cut} on the Closing Date.\n"
        );
        let (defining, passing) = commitment_quotes(&text);
        assert!(defining.is_empty() && passing.is_empty(), "{cut:?}: {defining:?} {passing:?}");
    }
    let whole = "The Bank agrees to make a term loan (the \"Term Loan\") to the Borrower in the principal amount of $7,500,000 on the Closing Date.\n";
    let (defining, passing) = commitment_quotes(whole);
    assert_eq!([defining, passing].concat(), ["$7,500,000"]);
}

/// A schedule of the lenders' commitments whose last row is their total.
const COMMITMENT_SCHEDULE: &str = "Each Lender agrees to make revolving loans (the \"Revolving Loans\") from time to time up to its Revolving Commitment.\n\nSCHEDULE 2.01\n\n";

#[test]
fn the_last_lenders_amount_above_the_total_row_is_not_the_total() {
    let rows = "Lender                 Revolving Commitment\nOak Bank               $12,000,000\nPine Bank              $8,000,000\nTotal Commitments      $20,000,000\n";
    let (defining, _) = commitment_quotes(&format!("{COMMITMENT_SCHEDULE}{rows}"));
    assert!(!defining.contains(&"$8,000,000".to_owned()), "{defining:?}");
    let cells =
        "Lender\nRevolving Commitment\nOak Bank\n$12,000,000\nPine Bank\n$8,000,000\nTotal Commitments\n$20,000,000\n";
    let (defining, _) = commitment_quotes(&format!("{COMMITMENT_SCHEDULE}{cells}"));
    assert!(!defining.contains(&"$8,000,000".to_owned()), "{defining:?}");
    // The label after the total, as signature pages put it, still names the amount before it.
    let footer = "$12,000,000     Oak Bank\n$8,000,000      Pine Bank\n$20,000,000     Total Commitments\n";
    let (defining, _) = commitment_quotes(&format!("{COMMITMENT_SCHEDULE}{footer}"));
    assert!(defining.contains(&"$20,000,000".to_owned()), "{defining:?}");
}

#[test]
fn a_facility_named_only_as_other_debt_is_not_one_the_agreement_makes_available() {
    let lending = "1. Term Loan. The Bank agrees to make a term loan to the Borrower on the Closing Date of $4,000,000 (the \"Term Loan\").\n\n";
    let other_debt = [
        "2. Use of Proceeds. The proceeds shall first pay off the revolving credit facility of Delta Bank in the amount of $6,500,000.\n",
        "6. Indebtedness. The Borrower shall have no Indebtedness except (a) the Term Loan and (b) a revolving credit facility for working capital not to exceed $1,000,000.\n",
    ];
    for other in other_debt {
        let text = format!("{lending}{other}");
        let facility = only_facility(&text);
        assert_eq!(facility.commitment.map(|c| c.quote().to_owned()), Some("$4,000,000".to_owned()), "{other}");
    }
    // Two facilities the agreement does lend under are both kept.
    let both = format!(
        "{lending}2. Revolving Loans. The Bank agrees to make revolving loans to the Borrower from time to time in an aggregate amount not to exceed $1,000,000 (the \"Revolving Commitment\").\n"
    );
    let doc = Document::scan(&both);
    let found = extract(&doc, &changes(&doc), &mut Report::default());
    let commitments: Vec<String> =
        found.iter().filter_map(|f| f.commitment.as_ref().map(|c| c.quote().to_owned())).collect();
    assert_eq!(commitments, ["$4,000,000", "$1,000,000"]);
}

#[test]
fn the_maturity_of_equipment_or_growth_capital_advances_is_not_the_revolving_lines() {
    let text = "\"Revolving Line\" is an aggregate principal amount of up to $4,000,000.\n\"Revolving Line Maturity Date\" is June 30, 2025.\n\"Equipment Maturity Date\" is June 30, 2027.\n\"Growth Capital Maturity Date\" is December 31, 2026.\n";
    assert_eq!(maturity_quotes(text), ["June 30, 2025"]);
}

#[test]
fn an_amount_of_loans_converted_into_another_class_is_the_size_of_neither() {
    let text = "Each Converting Lender agrees that its Revolving Loans in the amount of $120,000,000 shall be converted into Term A Loans on the Amendment Effective Date. Initial Term Loans of $300,000,000 will be exchanged for Refinancing Term Loans. On that date $200,000,000 of the Revolving Commitments shall be converted to Term A Commitments.\n";
    let (defining, passing) = commitment_quotes(text);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
}

#[test]
fn amounts_of_two_numbered_tranches_under_one_letter_make_no_term_b_facility() {
    let text = "The Term Loan B-2 Commitments aggregate $725,000,000. The Term Loan B-1 Commitments of $700,000,000 have been fully funded.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = extract(&doc, &changes(&doc), &mut report);
    let term_b = |f: &&Facility| f.facility_type.as_ref().is_some_and(|t| *t.value() == FacilityType::TermLoanB);
    assert!(!found.iter().any(|f| term_b(&f) && f.commitment.is_some()), "{found:?}");
}

#[test]
fn the_amount_of_the_extended_or_the_non_extended_class_is_not_the_facilitys() {
    let text = "Each Lender listed on Annex I agrees to extend the maturity of its Revolving Commitment. The aggregate Extended Revolving Commitments are $850,000,000. Term Loans of Non-Extending Term Lenders in an aggregate principal amount of $60,000,000 shall mature on the existing date.\n";
    let (defining, passing) = commitment_quotes(text);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
}

#[test]
fn an_amount_the_amendment_says_has_ended_is_no_facilitys_but_one_that_may_end_still_is() {
    let ended = "The Delayed Draw Term Commitments of $300,000,000 terminated undrawn on the Amendment Effective Date. The Term B-1 Loans in an aggregate principal amount of $700,000,000 shall be repaid in full. The Revolving Commitments of $50,000,000 of each Non-Consenting Lender are hereby permanently terminated.\n";
    let (defining, passing) = commitment_quotes(ended);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
    let may_end = "The Revolving Commitments of $500,000,000, as such Commitments may be reduced or terminated pursuant to Section 2.08.\n";
    let (defining, passing) = commitment_quotes(may_end);
    assert_eq!([defining, passing].concat(), ["$500,000,000"]);
}

#[test]
fn an_amount_stated_as_a_part_of_a_facility_is_not_its_size() {
    let text = "The FILO Lenders agree to provide FILO Loans in an aggregate amount of $75,000,000 as a separate tranche of the Revolving Credit Facility. The Borrower may designate a $50,000,000 portion of the Revolving Commitments for Letters of Credit.\n";
    let (defining, passing) = commitment_quotes(text);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
}

#[test]
fn the_amount_the_aggregate_commitments_are_increased_to_is_their_size_but_one_lenders_is_not() {
    let aggregate = "Effective as of the Amendment Effective Date, the aggregate Revolving Commitments are increased from $750,000,000 to $1,000,000,000.\n";
    let (defining, passing) = commitment_quotes(aggregate);
    assert_eq!([defining, passing].concat(), ["$1,000,000,000"]);
    let one_lender = "The Revolving Commitment of Atlas Savings Bank is increased from $50,000,000 to $75,000,000.\n";
    let (defining, passing) = commitment_quotes(one_lender);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
}

#[test]
fn a_warehouse_facility_limit_is_its_size_but_the_limit_of_one_class_of_advances_is_not() {
    let text = "\u{201c}Facility Limit\u{201d} means $275,000,000, as that amount may be reduced under Section 2.4.\n\n\
        Each Committed Lender shall make Advances to the Borrower so long as the outstanding Advances do not exceed the \
        lesser of the Facility Limit and the Borrowing Base.\n";
    assert_eq!(only_facility(text).commitment.map(|c| c.quote().to_owned()), Some("$275,000,000".to_owned()));
    let one_class = "\u{201c}Class B Facility Limit\u{201d} means $40,000,000.\n\nEach Committed Lender shall make \
        Advances to the Borrower so long as the outstanding Advances do not exceed the Borrowing Base.\n";
    let doc = Document::scan(one_class);
    let found = extract(&doc, &changes(&doc), &mut Report::default());
    assert!(found.iter().all(|f| f.commitment.is_none()), "{found:?}");
    // A limit stated per class of advances gives each class's amount, neither the facility's.
    let per_class = "\u{201c}Facility Limit\u{201d} means $220,000,000 for Class A Advances and $45,000,000 for \
        Class B Advances.\n\nEach Committed Lender shall make Advances to the Borrower so long as the outstanding \
        Advances do not exceed the Facility Limit.\n";
    let doc = Document::scan(per_class);
    let found = extract(&doc, &changes(&doc), &mut Report::default());
    assert!(found.iter().all(|f| f.commitment.is_none()), "{found:?}");
}

#[test]
fn an_agreement_titled_revolving_lends_revolving_advances_unless_it_forbids_reborrowing() {
    let agreement = |title: &str, repayment: &str| {
        format!(
            "{title}\n\nDated as of June 1, 2024\n\n\u{201c}Facility Limit\u{201d} means $180,000,000.\n\nThe Committed \
             Lenders shall make Advances to the Borrower prior to the Commitment Termination Date so long as the \
             Advances outstanding do not exceed the Facility Limit. {repayment}\n"
        )
    };
    let kind = |text: &str| only_facility(text).facility_type.map(|t| *t.value());
    let revolving = agreement("MASTER REVOLVING LOAN AGREEMENT", "");
    assert_eq!(kind(&revolving), Some(FacilityType::RevolvingCredit));
    let not_again = agreement("MASTER REVOLVING LOAN AGREEMENT", "Advances repaid may not be reborrowed.");
    assert_eq!(kind(&not_again), Some(FacilityType::TermLoan));
    // An amendment is titled by the agreement it changes, and says nothing of the loans it adds.
    let amendment = agreement("FIRST AMENDMENT TO REVOLVING LOAN AGREEMENT", "");
    assert_eq!(kind(&amendment), None);
    assert_eq!(kind(&agreement("LOAN AGREEMENT", "")), None);
}

#[test]
fn the_end_of_a_warehouse_revolving_period_is_not_its_maturity_when_a_final_maturity_date_follows() {
    let text = "MASTER REVOLVING LOAN AGREEMENT\n\n\u{201c}Commitment Termination Date\u{201d} means June 1, 2027.\n\n\
        \u{201c}Final Maturity Date\u{201d} means the date twenty-four months after the Commitment Termination Date.\n\n\
        \u{201c}Facility Limit\u{201d} means $180,000,000.\n\nThe Committed Lenders shall make Advances to the Borrower \
        prior to the Commitment Termination Date so long as the Advances outstanding do not exceed the Facility Limit.\n";
    let facility = only_facility(text);
    assert_eq!(facility.facility_type.map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
    // The maturity is the final one, counted from the end of the revolving period.
    let maturity = facility.termination_date.map(|d| d.quote().to_owned());
    assert_eq!(maturity.as_deref(), Some("twenty-four months after the Commitment Termination Date"));
}

#[test]
fn a_line_defined_by_its_size_states_the_commitment_and_outweighs_its_sublimit() {
    let text = "2.1 Revolving Line. Borrower may request Advances up to the Revolving Line. As part of the Revolving Line, Borrower may request Equipment Advances in an aggregate amount not to exceed $1,500,000 (the \"Equipment Line\").\n\n\"Revolving Line\" is Nine Million Dollars ($9,000,000).\n";
    let (defining, passing) = commitment_quotes(text);
    assert_eq!(defining, ["Nine Million Dollars ($9,000,000)"]);
    assert!(passing.is_empty(), "{passing:?}");
    // A line whose first amount is a tranche's states no size in its definition.
    let tranche =
        "\"Revolving Line\" means (a) the first tranche of $3,000,000 and (b) after the Audit Date, $6,000,000.\n";
    assert!(commitment_quotes(tranche).0.is_empty());
}

#[test]
fn a_cap_stated_as_the_lesser_of_an_amount_and_the_borrowing_base_is_the_commitment() {
    let text = "Borrower may borrow, repay and reborrow revolving loans (each a \"Revolving Loan\") in an aggregate principal amount outstanding not to exceed the lesser of (i) $6,500,000 and (ii) the Borrowing Base.\n";
    let (defining, passing) = commitment_quotes(text);
    assert_eq!(defining.into_iter().chain(passing).collect::<Vec<_>>(), ["$6,500,000"]);
}

#[test]
fn the_amount_of_one_numbered_tranche_is_not_the_facility_s() {
    let text = "(a) On the Closing Date the Lender shall make a term loan in the principal amount of $4,000,000 (the \"Tranche 1 Term Loan\"). (b) Once the Revenue Milestone is met, the Lender shall make a term loan in the principal amount of $4,000,000 (the \"Tranche 2 Term Loan\").\n";
    let (defining, passing) = commitment_quotes(text);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
    // A single tranche so named, with no other numbered, is the loan.
    let single = "On the Closing Date the Lender shall make a term loan in the principal amount of $4,000,000 (the \"Tranche 1 Term Loan\").\n";
    assert_eq!(commitment_quotes(single).0, ["$4,000,000"]);
}

#[test]
fn a_line_the_borrower_may_request_advances_under_is_a_facility_beside_a_term_loan() {
    let text = "2.1 Revolving Line.\n(a) Borrower may request Advances in an amount not to exceed the Revolving Line.\n2.2 Term Loan.\n(a) Bank shall make a term loan in the original principal amount of $2,000,000 (the \"Term Loan\").\n\n\"Revolving Line\" is $3,000,000.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = extract(&doc, &changes(&doc), &mut report);
    let amounts: Vec<String> =
        found.iter().filter_map(|f| f.commitment.as_ref().map(|c| c.quote().to_owned())).collect();
    assert_eq!(found.len(), 2, "{:?}", report.warnings);
    assert!(amounts.contains(&"$3,000,000".to_owned()) && amounts.contains(&"$2,000,000".to_owned()), "{amounts:?}");
}

#[test]
fn a_consent_to_extend_a_maturity_term_in_an_amendment_is_the_new_maturity_but_an_option_is_not() {
    let consent = "AMENDMENT NO. 2 TO CREDIT AGREEMENT\n\nSection 3. Extension. Each Lender signing below agrees to extend the Termination Date with respect to its Commitment for one year, expiring March 9, 2031.\n";
    assert_eq!(maturity_quotes(consent), ["March 9, 2031"]);
    let option = "AMENDMENT NO. 2 TO CREDIT AGREEMENT\n\nSection 3. Extension. If a Lender agrees to extend the Termination Date with respect to its Commitment, expiring March 9, 2031, it shall notify the Agent.\n";
    assert!(maturity_quotes(option).is_empty());
    let elective = "Section 2.19. Any Lender that elects to participate agrees to extend the Termination Date until March 9, 2031.\n";
    assert!(maturity_quotes(elective).is_empty());
}

/// The types of the facilities `text` makes available.
fn facility_types(text: &str) -> Vec<Option<FacilityType>> {
    let doc = Document::scan(text);
    let found = extract(&doc, &changes(&doc), &mut Report::default());
    found.iter().map(|f| f.facility_type.as_ref().map(|t| *t.value())).collect()
}

#[test]
fn an_amended_facility_with_bid_loans_or_a_364_day_agreement_revolves_unless_term_loans_are_named() {
    let bid = "AMENDMENT NO. 1. Each Lender so indicating agrees to extend the Termination Date with respect to its Commitment, expiring May 1, 2030. The Eurodollar Rate for each Committed Advance and each Bid Advance is unchanged.\n";
    assert_eq!(facility_types(bid), [Some(FacilityType::RevolvingCredit)]);
    let yearly = "AMENDMENT NO. 1. The parties are party to a 364-Day Credit Agreement dated as of May 2, 2023. Each Lender so indicating agrees to extend the Termination Date with respect to its Commitment, expiring May 1, 2025.\n";
    assert_eq!(facility_types(yearly), [Some(FacilityType::RevolvingCredit)]);
    let term = "AMENDMENT NO. 1. The parties are party to a 364-Day Credit Agreement providing for a term loan dated as of May 2, 2023. The Lenders hereby extend the Termination Date to May 1, 2025.\n";
    assert!(!facility_types(term).contains(&Some(FacilityType::RevolvingCredit)));
    let bridge = "AMENDMENT NO. 1. The parties are party to a 364-Day Credit Agreement dated as of May 2, 2023 for the bridge financing. The Lenders hereby extend the Termination Date to May 1, 2025.\n";
    assert_eq!(facility_types(bridge), [None]);
}

#[test]
fn an_amount_fused_with_another_by_a_lost_markup_is_no_commitment_but_a_whole_one_is() {
    // A marked-up copy read as flat text: the struck "$90,000,000" runs into the inserted figure.
    let fused = "\"Revolving Commitments\" means the commitments of the Revolving Lenders. The aggregate amount of \
        the Revolving Commitments on the Amendment No. 4 Effective Date is $90,000,000120,000,000.\n";
    let (defining, passing) = commitment_quotes(fused);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
    let whole = "\"Revolving Commitments\" means the commitments of the Revolving Lenders. The aggregate amount of \
        the Revolving Commitments on the Amendment No. 4 Effective Date is $120,000,000.\n";
    let (defining, passing) = commitment_quotes(whole);
    assert_eq!([defining, passing].concat(), ["$120,000,000"]);
}

#[test]
fn an_amount_in_the_definition_of_a_lettered_tranche_is_that_tranche_s_not_a_generic_term_loan_s() {
    let text = "\"Revolving Facility\" means the revolving credit facility in an aggregate principal amount of \
        $80,000,000.\n\n\"Term A Loans\" means the term loans advanced on the Closing Date in an aggregate principal \
        amount of $260,000,000.\n\n\"Applicable Margin\" means (a) for Term A Loans, 2.10% per annum and (b) for \
        Revolving Loans, 1.90% per annum, in each case for Term SOFR Loans.\n";
    let doc = Document::scan(text);
    let mut report = Report::default();
    let found = extract(&doc, &changes(&doc), &mut report);
    assert_eq!(found.len(), 2, "{found:?}");
    let term = found.iter().find(|f| f.facility_type.as_ref().is_some_and(|t| *t.value() == FacilityType::TermLoanA));
    let term = term.expect("the Term A facility");
    assert_eq!(term.commitment.as_ref().map(|c| c.quote().to_owned()), Some("$260,000,000".to_owned()));
    assert_eq!(term.spread.as_ref().map(|s| *s.value()), Some(Decimal::new(21, 3)));
    // Explained by another kind of facility, the defined term does not take the amount over.
    let other_kind = "\"Term A Loans\" means the revolving loans advanced on the Closing Date in an aggregate \
        principal amount of $260,000,000.\n";
    let doc = Document::scan(other_kind);
    let found = commitment_candidates(&doc, &mut Report::default());
    let keys: Vec<FacilityKey> = found.all().flat_map(|c| c.keys.clone()).collect();
    assert!(!keys.contains(&FacilityKey::TermLetter(b'A')), "{keys:?}");
}

#[test]
fn two_amounts_side_by_side_in_a_sentence_are_no_commitment_but_columns_of_a_row_are_left_to_the_schedule() {
    // A marked-up copy read as flat text: the struck amount and the inserted one, a space apart.
    let pair = "\"Aggregate Revolving Commitments\" means the Revolving Commitments of all the Lenders. The amount of \
        the Aggregate Revolving Commitments on the Amendment No. 2 Effective Date is $140,000,000 $185,000,000.\n";
    let (defining, passing) = commitment_quotes(pair);
    assert!(defining.is_empty() && passing.is_empty(), "{defining:?} {passing:?}");
    let row = "Juniper Trust Company   $40,000,000   $20,000,000\n";
    let doc = Document::scan(row);
    assert_eq!(doc.money.len(), 2);
    assert!(!super::commitments::side_by_side_in_prose(&doc, &doc.money[0]));
    assert!(!super::commitments::side_by_side_in_prose(&doc, &doc.money[1]));
}

#[test]
fn a_lender_row_after_a_lower_case_legal_form_is_no_pair_of_marked_up_amounts() {
    let row = "Thornbury Bank plc £35,000,000 £15,000,000\n";
    let doc = Document::scan(row);
    assert_eq!(doc.money.len(), 2);
    assert!(!super::commitments::side_by_side_in_prose(&doc, &doc.money[0]));
}
