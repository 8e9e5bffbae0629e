//! The evidence rules on short agreements written for them: each states a value in a way a
//! careless reader takes for the document's own term, and the extraction must withhold it (or
//! read the term from the provision that states it).

use crate::domain::extraction::{Extraction, FloatingRateIndex, PartyRole, extract_credit_agreement};

fn index_of(extraction: &Extraction, facility: usize) -> Option<FloatingRateIndex> {
    extraction.agreement.facilities.get(facility)?.floating_rate_index.as_ref().map(|i| *i.value())
}

fn warned(extraction: &Extraction, words: &str) -> bool {
    extraction.warnings.iter().any(|w| w.contains(words))
}

/// A 2020-style agreement: the loans bear the Eurodollar Rate; Term SOFR appears only in the
/// provisions that say what may replace LIBOR.
const LIBOR_WITH_FALLBACK: &str = "CREDIT AGREEMENT\n\n\
This CREDIT AGREEMENT is dated as of June 8, 2020, among HARBOR TOOLS, INC., a Delaware corporation (the \
\"Borrower\"), the Lenders party hereto and QUAY BANK, N.A., as Administrative Agent.\n\n\
\"Eurodollar Rate\" means the London interbank offered rate for dollar deposits for the Interest Period.\n\n\
\"Applicable Rate\" means 1.375% per annum.\n\n\
\"Term SOFR\" means the forward-looking term rate based on SOFR that the Relevant Governmental Body recommends.\n\n\
\"Successor Rate\" means Term SOFR plus any spread adjustment the Administrative Agent selects.\n\n\
\"Commitments\" means $90,000,000.\n\n\
\"Maturity Date\" means June 8, 2025.\n\n\
Section 2.07. Interest. Each Loan bears interest at the Eurodollar Rate plus the Applicable Rate.\n\n\
Section 3.04. Changed Circumstances. If the Eurodollar Rate can no longer be determined, the Administrative Agent \
and the Borrower may amend this Agreement to replace it with an alternate benchmark rate, which may be Term SOFR.\n\n\
Section 9.10. Governing Law. This Agreement is governed by the law of the State of New York.\n";

#[test]
fn a_libor_agreement_whose_fallback_provisions_name_term_sofr_bears_libor() {
    let extraction = extract_credit_agreement(LIBOR_WITH_FALLBACK);
    assert_eq!(index_of(&extraction, 0), Some(FloatingRateIndex::UsdLibor), "{:?}", extraction.agreement.facilities);
}

#[test]
fn a_libor_agreement_that_defines_sofr_terms_only_for_a_replacement_bears_libor() {
    // The risk-free terms are defined in the definitions section, outside any replacement
    // section, and no interest provision uses them; one definition is qualified before its
    // "means" ("with respect to any day").
    let text = "CREDIT AGREEMENT\n\n\
This CREDIT AGREEMENT is dated as of July 9, 2020, among LANTERN FOODS, INC., a Delaware corporation (the \
\"Borrower\"), the Lenders party hereto and DOCK BANK, N.A., as Administrative Agent.\n\n\
\u{201c}Benchmark Replacement\u{201d} means an alternate rate (which may be a SOFR-Linked Rate) chosen by the Administrative Agent.\n\n\
\u{201c}Commitments\u{201d} means $75,000,000.\n\n\
\u{201c}Interbank Rate\u{201d} means, for any Interest Period, the London interbank offered rate for dollar deposits.\n\n\
\u{201c}Maturity Date\u{201d} means July 9, 2025.\n\n\
\u{201c}SOFR\u{201d} with respect to any day means the secured overnight financing rate published for that day.\n\n\
\u{201c}SOFR-Linked Rate\u{201d} means SOFR or Term SOFR.\n\n\
\u{201c}Term SOFR\u{201d} means the forward-looking term rate based on SOFR.\n\n\
Section 2.06. Interest. Each Advance bears interest for each Interest Period at the rate the Administrative Agent \
determines under Schedule 2, which is not part of this extract.\n\n\
Section 9.09. Governing Law. This Agreement is governed by the law of the State of New York.\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(index_of(&extraction, 0), Some(FloatingRateIndex::UsdLibor), "{:?}", extraction.agreement.facilities);
}

#[test]
fn a_libor_agreement_whose_successor_may_be_a_sofr_based_rate_bears_libor() {
    let text = "CREDIT AGREEMENT\n\n\
This CREDIT AGREEMENT is entered into as of June 1, 2019, among ORCHARD MILLS CORP., a Delaware corporation (the \
\"Borrower\"), the Lenders party hereto and HEMLOCK BANK, N.A., as Administrative Agent.\n\n\
\"Applicable Rate\" means 1.125% per annum.\n\n\
\"Eurodollar Rate\" means, for any Interest Period, the London Interbank Offered Rate for dollar deposits.\n\n\
\"Aggregate Commitments\" means $150,000,000.\n\n\
2.08 Interest. Each Eurodollar Rate Loan bears interest at the Eurodollar Rate plus the Applicable Rate.\n\n\
3.03 Inability to Determine Rates. If (i) adequate means do not exist for ascertaining LIBOR or (ii) its \
administrator announces that it will cease, the Administrative Agent and the Borrower may amend this Agreement to \
replace LIBOR with (x) one or more SOFR-Based Rates or (y) another alternate benchmark rate (a \"LIBOR Successor \
Rate\").\n\n\
\"SOFR-Based Rate\" means SOFR or Term SOFR.\n\n\
\"Term SOFR\" means the forward-looking term rate based on SOFR recommended by the Relevant Governmental Body.\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(index_of(&extraction, 0), Some(FloatingRateIndex::UsdLibor), "{:?}", extraction.agreement.facilities);
}

#[test]
fn a_margin_stated_for_a_replacement_benchmark_is_not_the_loans_margin() {
    let text = LIBOR_WITH_FALLBACK.replace(
        "Section 9.10.",
        "Section 3.05. Benchmark Transition. After a Benchmark Transition Event, each Loan shall bear interest \
         at Term SOFR plus 1.50% per annum.\n\nSection 9.10.",
    );
    let extraction = extract_credit_agreement(&text);
    let facility = &extraction.agreement.facilities[0];
    assert_eq!(facility.spread.as_ref().map(|s| s.value().to_string()).as_deref(), Some("0.01375"));
    assert_eq!(index_of(&extraction, 0), Some(FloatingRateIndex::UsdLibor));
    assert!(warned(&extraction, "\"1.50%\""), "{:?}", extraction.warnings);
}

/// An amendment and restatement whose recital describes the facility it replaces.
const RESTATEMENT: &str = "AMENDED AND RESTATED LOAN AGREEMENT\n\n\
This AMENDED AND RESTATED LOAN AGREEMENT is dated as of April 4, 2022, among BIRCH MILLS, LLC, an Ohio limited \
liability company (the \"Borrower\"), the Lenders party hereto and ELM BANK, N.A., as Administrative Agent.\n\n\
WHEREAS, the Borrower, certain lenders and the Administrative Agent are parties to a Loan Agreement dated as of \
March 1, 2017 (the \"Prior Agreement\"), under which a revolving credit facility of $60,000,000 bearing interest at \
LIBOR plus 2.25% per annum matures on March 1, 2022;\n\n\
WHEREAS, the Borrower has asked the Lenders to amend and restate the Prior Agreement, and they are willing to do so;\n\n\
NOW, THEREFORE, the parties agree that the Prior Agreement is amended and restated as follows:\n\n\
\"Revolving Commitments\" means the commitments of the Lenders to make Revolving Loans, in the aggregate amount of \
$85,000,000.\n\n\
\"Revolving Maturity Date\" means the fifth anniversary of the Restatement Date.\n\n\
\"Applicable Margin\" means, for Term SOFR Loans, 1.85% per annum.\n\n\
Section 2.06. Interest. Each Term SOFR Loan bears interest at Term SOFR plus the Applicable Margin.\n\n\
Section 9.12. Governing Law. This Agreement is governed by the law of the State of Ohio.\n";

#[test]
fn a_restatement_takes_no_term_from_its_recital_of_the_agreement_it_replaces() {
    let extraction = extract_credit_agreement(RESTATEMENT);
    let facility = &extraction.agreement.facilities[0];
    assert_eq!(facility.commitment.as_ref().map(|c| c.value().value.to_string()).as_deref(), Some("85000000"));
    assert_eq!(facility.termination_date, None, "the old maturity is the replaced agreement's");
    assert_eq!(index_of(&extraction, 0), Some(FloatingRateIndex::UsdSofrCmeTerm));
    assert_eq!(facility.spread.as_ref().map(|s| s.value().to_string()).as_deref(), Some("0.0185"));
    assert!(warned(&extraction, "\"March 1, 2022\" at"), "{:?}", extraction.warnings);
    assert!(warned(&extraction, "is in a recital of fact"), "{:?}", extraction.warnings);
}

#[test]
fn a_restatement_takes_no_benchmark_from_its_recital_of_the_agreement_it_replaces() {
    let text = RESTATEMENT
        .replace("\"Applicable Margin\" means, for Term SOFR Loans, 1.85% per annum.", "\"Applicable Margin\" means 1.85% per annum.")
        .replace(
            "Each Term SOFR Loan bears interest at Term SOFR plus the Applicable Margin.",
            "Each Loan bears interest at the Reference Rate plus the Applicable Margin.\n\n\"Reference Rate\" means the \
             rate the Administrative Agent posts for each Interest Period.",
        );
    let extraction = extract_credit_agreement(&text);
    assert_eq!(index_of(&extraction, 0), None, "LIBOR is the replaced agreement's benchmark");
}

#[test]
fn an_amendment_that_leaves_the_agreement_in_force_keeps_the_terms_its_recital_states() {
    let text = "FIRST AMENDMENT TO LOAN AGREEMENT\n\n\
This FIRST AMENDMENT TO LOAN AGREEMENT is dated as of May 9, 2023, between CEDAR FOODS, INC., a Texas corporation \
(the \"Borrower\"), and PINE BANK, N.A. (the \"Lender\").\n\n\
RECITALS\n\n\
A. The Borrower and the Lender are parties to a Loan Agreement dated as of May 9, 2021 (the \"Loan Agreement\"), \
under which the Lender made a term loan of $4,500,000 (the \"Loan Amount\") to the Borrower.\n\n\
B. The Borrower has asked the Lender to waive a covenant.\n\n\
NOW, THEREFORE, the parties agree as follows:\n\n\
1. The Lender waives the covenant in Section 6.2 of the Loan Agreement for the quarter ended March 31, 2023.\n\n\
2. This Amendment is governed by the law of the State of Texas.\n";
    let extraction = extract_credit_agreement(text);
    let commitment = extraction.agreement.facilities.first().and_then(|f| f.commitment.as_ref());
    assert_eq!(
        commitment.map(|c| c.value().value.to_string()).as_deref(),
        Some("4500000"),
        "{:?}",
        extraction.warnings
    );
}

/// A bank loan whose rate is set by a separate note; a schedule lists the borrower's bonds already
/// outstanding, priced on a benchmark.
const LOAN_WITH_DEBT_SCHEDULE: &str = "TERM LOAN AGREEMENT\n\n\
This TERM LOAN AGREEMENT is dated as of August 14, 2023, between MAPLE HOLDINGS, INC., a Georgia corporation (the \
\"Borrower\"), and ASH NATIONAL BANK (the \"Lender\").\n\n\
1. The Loan. The Lender agrees to make a term loan to the Borrower in the amount of $7,000,000 (the \"Loan\"), \
repayable with interest as the promissory note of even date provides.\n\n\
2. Indebtedness. The Borrower shall not incur Indebtedness other than the Loan and the debt listed in Schedule 4.\n\n\
3. Governing Law. This Agreement is governed by the law of the State of Georgia.\n\n\
SCHEDULE 4\n\n\
OUTSTANDING NOTES OF THE BORROWER\n\n\
In 2020 the Borrower sold $18,000,000 of its subordinated notes due 2030. Since March 1, 2025 they bear interest \
at Term SOFR plus 3.15% per annum, payable quarterly.\n";

#[test]
fn the_terms_of_debt_listed_in_a_schedule_of_outstanding_notes_are_not_the_loan_s() {
    let extraction = extract_credit_agreement(LOAN_WITH_DEBT_SCHEDULE);
    let facility = extraction.agreement.facilities.first();
    assert_eq!(index_of(&extraction, 0), None, "{:?}", extraction.agreement.facilities);
    assert_eq!(facility.and_then(|f| f.spread.as_ref()), None, "3.15% is the margin of the outstanding notes");
    assert_eq!(commitment_of(&extraction, 0).as_deref(), Some("7000000"), "the loan's own amount stays");
    assert!(warned(&extraction, "is in an attachment describing other debt"), "{:?}", extraction.warnings);
}

/// A bank loan whose rate is set by a separate note; its body says what the borrower's other debt
/// bears and when that debt matures.
const LOAN_NAMING_OTHER_DEBT: &str = "TERM LOAN AGREEMENT\n\n\
This TERM LOAN AGREEMENT is dated as of May 2, 2024, between BIRCH FOODS, INC., a Georgia corporation (the \
\"Borrower\"), and ALDER NATIONAL BANK (the \"Lender\").\n\n\
1. The Loan. The Lender agrees to make a term loan to the Borrower in the amount of $6,000,000 (the \"Loan\"), \
repayable with interest as the promissory note of even date provides.\n\n\
2. Other Obligations. The Borrower's existing subordinated notes bear interest at Term SOFR plus 4.25% per annum \
and mature on March 31, 2031.\n\n\
3. Governing Law. This Agreement is governed by the law of the State of Georgia.\n";

#[test]
fn the_terms_a_sentence_gives_the_borrower_s_other_debt_are_not_the_loan_s() {
    let extraction = extract_credit_agreement(LOAN_NAMING_OTHER_DEBT);
    let facility = extraction.agreement.facilities.first();
    assert_eq!(index_of(&extraction, 0), None, "{:?}", extraction.agreement.facilities);
    assert_eq!(facility.and_then(|f| f.spread.as_ref()), None, "4.25% is the margin of the existing notes");
    assert_eq!(facility.and_then(|f| f.termination_date.as_ref()), None, "2031 is when the notes mature");
    assert_eq!(commitment_of(&extraction, 0).as_deref(), Some("6000000"), "the loan's own amount stays");
    assert!(warned(&extraction, "is in a provision about other debt"), "{:?}", extraction.warnings);
}

fn commitment_of(extraction: &Extraction, facility: usize) -> Option<String> {
    let facility = extraction.agreement.facilities.get(facility)?;
    facility.commitment.as_ref().map(|c| c.value().value.to_string())
}

/// A cover page whose total covers a revolver and a term loan together.
fn two_facility_agreement(revolving_amount: &str) -> String {
    format!(
        "$250,000,000 REVOLVING CREDIT AND TERM LOAN AGREEMENT\n\n\
This REVOLVING CREDIT AND TERM LOAN AGREEMENT is dated as of July 7, 2021, among ASPEN GEAR CORP., a Nevada \
corporation (the \"Borrower\"), the Lenders party hereto and LARCH BANK, N.A., as Administrative Agent.\n\n\
{revolving_amount}\
\"Term Loan Commitment\" means $75,000,000.\n\n\
Section 2.01. Revolving Loans. Each Lender agrees to make Revolving Loans to the Borrower.\n\n\
Section 2.02. Term Loans. Each Lender agrees to make a Term Loan to the Borrower on the Closing Date.\n\n\
Section 9.09. Governing Law. This Agreement is governed by the law of the State of New York.\n"
    )
}

#[test]
fn a_title_total_over_a_revolver_and_a_term_loan_is_no_one_facility_s_commitment() {
    let extraction = extract_credit_agreement(&two_facility_agreement(""));
    let revolver = extraction
        .agreement
        .facilities
        .iter()
        .position(|f| f.name.as_ref().is_some_and(|n| n.value().contains("Revolving")));
    let revolver = revolver.expect("a revolving facility");
    assert_eq!(commitment_of(&extraction, revolver), None, "{:?}", extraction.agreement.facilities);
    assert!(warned(&extraction, "\"$250,000,000\" at 0..12 is the total in the title"), "{:?}", extraction.warnings);

    let extraction =
        extract_credit_agreement(&two_facility_agreement("\"Revolving Commitment\" means $175,000,000.\n\n"));
    let amounts: Vec<Option<String>> = (0..2).map(|i| commitment_of(&extraction, i)).collect();
    assert!(amounts.contains(&Some("175000000".to_owned())), "the revolver's own amount is used: {amounts:?}");
    assert!(amounts.contains(&Some("75000000".to_owned())), "{amounts:?}");
}

#[test]
fn a_title_total_of_an_agreement_with_one_facility_is_its_commitment() {
    let text = "$40,000,000 REVOLVING CREDIT AGREEMENT\n\n\
This REVOLVING CREDIT AGREEMENT is dated as of July 7, 2021, between ASPEN GEAR CORP., a Nevada corporation (the \
\"Borrower\"), and LARCH BANK, N.A. (the \"Lender\").\n\n\
Section 2.01. Revolving Loans. The Lender agrees to make Revolving Loans to the Borrower.\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(commitment_of(&extraction, 0).as_deref(), Some("40000000"), "{:?}", extraction.warnings);
}

#[test]
fn a_title_total_of_two_facilities_is_not_the_commitment_of_the_one_found() {
    let text = "SUMMARY OF TERMS\n\n$120,000,000 Revolving Credit and Term Loan Facilities\n\n\
Borrower: Aspen Gear Corp.\n\n\
Revolving Facility: Revolving loans available until July 7, 2026.\n\n\
Interest Rate: Term SOFR plus 2.25% per annum.\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(commitment_of(&extraction, 0), None, "{:?}", extraction.agreement.facilities);
    assert!(warned(&extraction, "title that names several facilities"), "{:?}", extraction.warnings);
}

fn roles_of(extraction: &Extraction, name: &str) -> Vec<PartyRole> {
    let party = extraction.agreement.parties.iter().find(|p| p.name.value() == name);
    party.map(|p| p.roles.iter().map(|r| *r.value()).collect()).unwrap_or_default()
}

#[test]
fn a_role_first_read_from_a_class_phrase_stands_by_the_partys_own_statement_elsewhere() {
    let text = "CREDIT AGREEMENT dated as of May 1, 2024 among Northwind Tools Inc., a Delaware corporation (the \
\"Borrower\"), First Harbor Bank, N.A., as Administrative Agent, and the Lenders party hereto.\n\n\
Section 1. Loans. The Lenders shall make loans.\n\n\
IN WITNESS WHEREOF, the parties have signed this Agreement as of the date first written above.\n\n\
NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\n\
FIRST HARBOR BANK, N.A., as Administrative Agent and a Lender\nBy: /s/ Tom Ray\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(
        roles_of(&extraction, "First Harbor Bank, N.A."),
        [PartyRole::AdministrativeAgent, PartyRole::Lender],
        "{:?}",
        extraction.warnings
    );
    assert!(!warned(&extraction, "withheld: /parties[role=Lender]"), "{:?}", extraction.warnings);
    // Without its own statement the class phrase alone gives no role, and says why.
    let unsigned = text.replace(" and a Lender", "");
    let extraction = extract_credit_agreement(&unsigned);
    assert_eq!(roles_of(&extraction, "First Harbor Bank, N.A."), [PartyRole::AdministrativeAgent]);
    assert!(warned(&extraction, "names a class of parties"), "{:?}", extraction.warnings);
}

fn agents(extraction: &Extraction) -> Vec<String> {
    let agents = extraction.agreement.parties.iter().filter(|p| p.has_role(PartyRole::AdministrativeAgent));
    agents.map(|p| p.name.value().clone()).collect()
}

#[test]
fn a_name_whose_first_word_ends_the_line_above_is_not_a_party_when_the_document_prints_it_whole() {
    let text = "TERM SHEET\n\nBorrower: Hazel Farms, Inc.\n\nFacility: $12,000,000 term loan facility.\n\n\
WELLS\nFARGO BANK, N.A.\nas Administrative Agent\n\nInterest Rate: Term SOFR plus 3.00% per annum.\n\n\
Notices to the agent: Wells Fargo Bank, N.A., Agency Services.\n";
    let extraction = extract_credit_agreement(text);
    assert!(agents(&extraction).is_empty(), "{:?}", extraction.agreement.parties);
    assert!(
        warned(&extraction, "withheld: /parties[role=AdministrativeAgent] \"FARGO BANK, N.A.\""),
        "{:?}",
        extraction.warnings
    );
    assert!(
        warned(&extraction, "is the end of a longer name, whose first words \"WELLS\""),
        "{:?}",
        extraction.warnings
    );
}

#[test]
fn a_name_whose_first_word_stands_alone_on_the_line_above_is_not_a_party() {
    let text = "TERM SHEET\n\nBorrower: Hazel Farms, Inc.\n\nFacility: $12,000,000 term loan facility.\n\n\
JPMORGAN\nCHASE BANK, N.A.\nas Administrative Agent\n\nInterest Rate: Term SOFR plus 3.00% per annum.\n";
    let extraction = extract_credit_agreement(text);
    assert!(agents(&extraction).is_empty(), "{:?}", extraction.agreement.parties);
    let text = text.replace("JPMORGAN\n", "CITIBANK\n");
    assert_eq!(agents(&extract_credit_agreement(&text)), ["CHASE BANK, N.A."], "a one-word bank name is a name");
}

#[test]
fn a_name_cut_by_a_page_break_is_not_a_party() {
    let text = "TERM SHEET\n\nBorrower: Hazel Farms, Inc.\n\nFacility: $12,000,000 term loan facility.\n\n\
WELLS\n\n                    - 3 -\n\nFARGO BANK, N.A.\nas Administrative Agent\n\n\
Interest Rate: Term SOFR plus 3.00% per annum.\n";
    let extraction = extract_credit_agreement(text);
    assert!(agents(&extraction).is_empty(), "{:?}", extraction.agreement.parties);
}

#[test]
fn names_listed_one_a_line_are_not_read_as_one_cut_name() {
    let text = "TERM SHEET\n\nBorrower: Hazel Farms, Inc.\n\nFacility: $12,000,000 term loan facility.\n\n\
QUARRY CAPITAL GROUP\nFARGO BANK, N.A.\nas Administrative Agent\n\nInterest Rate: Term SOFR plus 3.00% per annum.\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(agents(&extraction), ["FARGO BANK, N.A."], "{:?}", extraction.warnings);
}

#[test]
fn a_name_misprinted_on_its_signature_page_is_withheld() {
    let text = "CREDIT AGREEMENT\n\nThis CREDIT AGREEMENT is dated as of March 3, 2021, among HOLLY PRESS, INC., a Delaware \
corporation (the \"Borrower\"), the Lenders party hereto and YEW BANK, N.A., as Administrative Agent.\n\n\
Section 9.10. Governing Law. This Agreement is governed by the law of the State of New York.\n\n\
IN WITNESS WHEREOF, the parties have signed this Agreement.\n\n\
LARCHMONTT TRUST COMPANY, as a Lender\nBy: /s/ Jo Park\nName: Jo Park\n\n\
SCHEDULE 2.01\n\nLender                              Commitment\nLarchmont Trust Company            $10,000,000\n";
    let extraction = extract_credit_agreement(text);
    assert!(roles_of(&extraction, "LARCHMONTT TRUST COMPANY").is_empty(), "{:?}", extraction.agreement.parties);
    assert!(warned(&extraction, "is misprinted"), "{:?}", extraction.warnings);
    let spelt = extract_credit_agreement(&text.replace("LARCHMONTT", "LARCHMONT"));
    let lender =
        spelt.agreement.parties.iter().find(|p| p.name.value().eq_ignore_ascii_case("Larchmont Trust Company"));
    assert!(lender.is_some_and(|p| p.has_role(PartyRole::Lender)), "{:?}", spelt.agreement.parties);
}

/// A cover of party blocks joined by "- and -", two arrangers named without a legal form, and
/// signature pages that print the names again.
fn unmarked_cover(second: &str, listed: &str, pages: &str) -> String {
    format!(
        "CREDIT AGREEMENT\nmade as of May 4, 2021\namong\n\nBIRCHWOOD POWER LTD.,\nas Borrower,\n- and -\n\
         MAPLE TRUST BANK,\nas Administrative Agent and as Lender,\n- and -\nCEDAR CAPITAL MARKETS,\n\
         as Co-Lead Arranger\n- and -\n{second},\nas Co-Lead Arranger\n\nPINE BANK, N.A.,\n{listed},\nOAK BANK, N.A.,\n\
         as Co-Documentation Agents\n\n\
         This CREDIT AGREEMENT is made as of May 4, 2021 among BIRCHWOOD POWER LTD. (the \"Borrower\"), the Lenders \
         and MAPLE TRUST BANK, as administrative agent.\n\nSection 9.10. Governing Law. This Agreement is governed \
         by the law of the State of New York.\n\nIN WITNESS WHEREOF, the parties have signed this Agreement.\n\n{pages}"
    )
}

#[test]
fn a_cover_name_without_a_legal_form_holds_its_role_when_the_document_prints_it_again() {
    let signed = "KESTREL FINANCIAL, as Lender\nBy: /s/ Jo Park\nName: Jo Park\n";
    let extraction = extract_credit_agreement(&unmarked_cover("KESTREL FINANCIAL", "KESTREL FINANCIAL", signed));
    assert_eq!(
        roles_of(&extraction, "KESTREL FINANCIAL"),
        [PartyRole::Arranger, PartyRole::DocumentationAgent],
        "{:?}",
        extraction.warnings
    );
    assert_eq!(roles_of(&extraction, "CEDAR CAPITAL MARKETS"), [PartyRole::Arranger]);
    // Printed only on the cover, it may be a heading or a fragment: not read.
    let extraction = extract_credit_agreement(&unmarked_cover("KESTREL FINANCIAL", "HERON BANK, N.A.", ""));
    assert!(roles_of(&extraction, "KESTREL FINANCIAL").is_empty(), "{:?}", extraction.agreement.parties);
    // One word, or words of a class, are no such name even if printed again.
    for second in ["KESTREL", "EACH LENDER", "THE OTHER LENDERS"] {
        let extraction = extract_credit_agreement(&unmarked_cover(second, second, &format!("{second}\n")));
        assert!(roles_of(&extraction, second).is_empty(), "{second}: {:?}", extraction.agreement.parties);
        assert_eq!(roles_of(&extraction, "CEDAR CAPITAL MARKETS"), [PartyRole::Arranger], "{second}");
    }
}

#[test]
fn a_role_phrase_belongs_to_the_name_stated_just_before_it() {
    let text = "COMMITMENT LETTER\n\nFacility: $20,000,000 revolving credit facility.\n\nBorrower: Alder Holdings, Inc.\n\n\
PINE BANK, N.A., as co-documentation agent, and CEDAR BANK, N.A. (the \"Agent\") will arrange the facility.\n\n\
Interest Rate: Term SOFR plus 2.00% per annum.\n";
    let extraction = extract_credit_agreement(text);
    assert!(!agents(&extraction).contains(&"PINE BANK, N.A.".to_owned()), "{:?}", extraction.agreement.parties);
    assert!(warned(&extraction, "which belongs to \"CEDAR BANK, N.A.\""), "{:?}", extraction.warnings);
}

#[test]
fn the_borrower_is_never_an_agent_or_a_lender_of_its_own_facility() {
    let text = "LOAN AGREEMENT\n\nThis LOAN AGREEMENT is dated as of March 3, 2021, among HOLLY PRESS, INC., a Delaware \
corporation, as a borrower and as agent for the other Borrowers (in such capacity, the \"Borrower Agent\"), the \
Lenders party hereto and YEW BANK, N.A., as Administrative Agent.\n\n\
\"Borrower\" means Holly Press, Inc. and each Subsidiary that joins this Agreement as a borrower.\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(roles_of(&extraction, "HOLLY PRESS, INC."), [PartyRole::Borrower], "{:?}", extraction.warnings);
    assert_eq!(agents(&extraction), ["YEW BANK, N.A."]);
    assert!(warned(&extraction, "is the borrower, which is never an agent"), "{:?}", extraction.warnings);
}

#[test]
fn a_class_of_parties_after_a_role_list_is_no_role_of_the_name_before_it() {
    let text = "CREDIT AGREEMENT\n\nThis CREDIT AGREEMENT is dated as of March 3, 2021, among HOLLY PRESS, INC., a Delaware \
corporation (the \"Borrower\"), YEW BANK, N.A., as Issuing Bank, and the Lenders party hereto.\n";
    let extraction = extract_credit_agreement(text);
    assert_eq!(roles_of(&extraction, "YEW BANK, N.A."), [PartyRole::IssuingBank], "{:?}", extraction.warnings);
    assert!(warned(&extraction, "which names a class of parties"), "{:?}", extraction.warnings);
}

#[test]
fn an_agent_for_the_borrowers_is_not_the_lenders_administrative_agent() {
    let text = "CREDIT AGREEMENT\n\nThis CREDIT AGREEMENT is dated as of March 3, 2021, among HOLLY PRESS, INC. and ELM \
PRESS, INC. (together, the \"Borrowers\"), ASH SERVICES LLC, as agent for the Borrowers, and the Lenders party \
hereto.\n";
    let extraction = extract_credit_agreement(text);
    assert!(agents(&extraction).is_empty(), "{:?}", extraction.agreement.parties);
    assert!(warned(&extraction, "an agent for others than the lenders"), "{:?}", extraction.warnings);
}

#[test]
fn the_agent_or_representative_of_a_class_of_parties_is_not_one_of_them() {
    let opening = "CREDIT AGREEMENT\n\nThis CREDIT AGREEMENT is dated as of March 3, 2021, among BIRCH SOLAR \
HOLDINGS LLC, a Delaware limited liability company (the \"Borrower\"), the Lenders from time to time party hereto, ";
    for capacity in ["Lender Agent", "Lenders' Agent", "Lender Representative"] {
        let text = format!("{opening}MAPLE BANK, N.A., as {capacity}, and YEW BANK, N.A., as Administrative Agent.\n");
        let extraction = extract_credit_agreement(&text);
        assert!(roles_of(&extraction, "MAPLE BANK, N.A.").is_empty(), "{capacity}: {:?}", extraction.agreement.parties);
        assert!(warned(&extraction, "the first word of another capacity"), "{capacity}: {:?}", extraction.warnings);
        assert_eq!(agents(&extraction), ["YEW BANK, N.A."]);
    }
    let text = format!(
        "{opening}MAPLE BANK, N.A., as a Lender and Lender Agent, and YEW BANK, N.A., as Administrative Agent.\n"
    );
    assert_eq!(
        roles_of(&extract_credit_agreement(&text), "MAPLE BANK, N.A."),
        [PartyRole::Lender],
        "its own lender role"
    );
}

#[test]
fn the_originator_that_lends_to_its_customers_is_not_a_lender_of_the_warehouse_facility() {
    let opening = "LOAN AND SECURITY AGREEMENT\n\nThis LOAN AND SECURITY AGREEMENT is dated as of June 1, 2023, among \
OSPREY FUNDING I, LLC, a Delaware limited liability company (the \"Borrower\"), ";
    for capacity in [
        "as originator and as the lender of record on the Receivables",
        "as servicer and as lender under the Consumer Loan Contracts",
        "as servicer and as a lender to the Obligors under the Contracts",
    ] {
        let text = format!(
            "{opening}OSPREY CREDIT, INC., {capacity}, the Lenders party hereto, and YEW BANK, N.A., as Administrative \
Agent and as a Lender.\n"
        );
        let extraction = extract_credit_agreement(&text);
        assert!(
            !roles_of(&extraction, "OSPREY CREDIT, INC.").contains(&PartyRole::Lender),
            "{capacity}: {:?}",
            extraction.agreement.parties
        );
        assert!(
            warned(&extraction, "a lender of the assets the borrower pledges"),
            "{capacity}: {:?}",
            extraction.warnings
        );
        assert!(
            roles_of(&extraction, "YEW BANK, N.A.").contains(&PartyRole::Lender),
            "{:?}",
            extraction.agreement.parties
        );
    }
    let this_facility = format!(
        "{opening}OSPREY CREDIT, INC., as a lender under the Receivables Loan Agreement, and YEW BANK, N.A., as \
Administrative Agent.\n"
    );
    assert!(roles_of(&extract_credit_agreement(&this_facility), "OSPREY CREDIT, INC.").contains(&PartyRole::Lender));
}

#[test]
fn an_agent_for_one_group_of_lenders_is_not_the_administrative_agent() {
    let opening = "CREDIT AGREEMENT\n\nThis CREDIT AGREEMENT is dated as of March 3, 2021, among BIRCH SOLAR \
HOLDINGS LLC, a Delaware limited liability company (the \"Borrower\"), the Lenders from time to time party hereto, ";
    for principal in ["the Lenders in its Lender Group", "the Conduit Lenders"] {
        let text = format!(
            "{opening}MAPLE BANK, N.A., as agent for {principal}, and YEW BANK, N.A., as Administrative Agent.\n"
        );
        let extraction = extract_credit_agreement(&text);
        assert_eq!(agents(&extraction), ["YEW BANK, N.A."], "{principal}: {:?}", extraction.agreement.parties);
        assert!(warned(&extraction, "an agent for some of the lenders only"), "{:?}", extraction.warnings);
    }
}

#[test]
fn a_co_agent_or_deputy_agent_is_never_the_administrative_agent() {
    use crate::domain::extraction::document::Document;
    use crate::domain::extraction::model::Party;
    use crate::domain::extraction::sourced::Sourced;

    // No reader states these phrases as the administrative agent today; the rule holds for any
    // that comes to (a signature-page reader, a wider role pattern).
    for (phrase, role_words) in [
        ("as Co-Agent", "Agent"),
        ("as Co-Administrative Agent", "Administrative Agent"),
        ("as deputy agent", "agent"),
        ("as Documentation\n   Agent", "Agent"),
    ] {
        let text = format!("CREDIT AGREEMENT dated as of May 1, 2022 among ALDER INC. and FIR BANK, N.A., {phrase}.");
        let doc = Document::scan(&text);
        let name = text.find("FIR BANK, N.A.").expect("present");
        let role = text.rfind(role_words).expect("present");
        let party = Party {
            party_id: None,
            name: Sourced::new(&text, name..name + 14, "FIR BANK, N.A.".to_owned()).expect("a slice"),
            roles: vec![
                Sourced::new(&text, role..role + role_words.len(), PartyRole::AdministrativeAgent).expect("a slice"),
            ],
        };
        let objection = super::roles::objection(&doc, &party, &party.roles[0]);
        assert!(objection.as_deref().is_some_and(|o| o.contains("another capacity")), "{phrase}: {objection:?}");
    }
}

#[test]
fn a_commitment_stated_as_nothing_sizes_no_facility() {
    // An amended term loan whose commitments have been drawn: "the Commitments are $0" says they
    // ended, not that the facility is worth nothing.
    let text = "SECOND AMENDMENT TO TERM LOAN AGREEMENT\n\n\
This SECOND AMENDMENT is dated as of November 2, 2020, among ACME MINERALS INC., a Delaware corporation (the \
\"Borrower\"), the Lenders party hereto and QUAY BANK, N.A., as Administrative Agent.\n\n\
\"Commitment\": as to any Lender, its obligation to make a Term Loan on the Closing Date. As of the Second \
Amendment Effective Date, the Commitments are $0.\n\n\
Section 9.10. Governing Law. This Agreement is governed by the law of the State of New York.\n";
    let extraction = extract_credit_agreement(text);
    let stated: Vec<String> = extraction
        .agreement
        .facilities
        .iter()
        .filter_map(|f| f.commitment.as_ref().map(|c| c.value().value.to_string()))
        .collect();
    assert!(stated.is_empty(), "{stated:?}");
}

/// An amendment whose background recital sizes the revolver and prices its loans as the amended
/// agreement did, and whose operative text then changes both.
const AMENDMENT_CHANGING_SIZE_AND_MARGIN: &str = "SECOND AMENDMENT TO CREDIT AGREEMENT\n\n\
This SECOND AMENDMENT TO CREDIT AGREEMENT is dated as of June 2, 2024, among OAKRIDGE TOOLS, INC., an Ohio \
corporation (the \"Borrower\"), the Lenders party hereto and BIRCH BANK, N.A., as administrative agent (the \
\"Administrative Agent\").\n\n\
RECITALS\n\n\
A. The Borrower, the Lenders and the Administrative Agent are parties to a Credit Agreement dated as of June 2, \
2020 (the \"Credit Agreement\"), under which the Lenders provide a revolving credit facility of $60,000,000, whose \
loans bear interest at Term SOFR plus 2.40% per annum.\n\n\
B. The Borrower has asked the Lenders to enlarge the facility and lower its margin.\n\n\
NOW, THEREFORE, the parties agree as follows:\n\n\
1. The Aggregate Revolving Commitments are hereby increased from $60,000,000 to $75,000,000.\n\n\
2. The definition of \"Applicable Margin\" in Section 1.01 of the Credit Agreement is amended by replacing \
\"2.40%\" with \"2.15%\".\n\n\
3. This Amendment is governed by the law of the State of Ohio.\n";

#[test]
fn an_amendment_s_recital_of_a_commitment_it_increases_does_not_size_the_facility() {
    let extraction = extract_credit_agreement(AMENDMENT_CHANGING_SIZE_AND_MARGIN);
    assert_ne!(commitment_of(&extraction, 0).as_deref(), Some("60000000"), "{:?}", extraction.agreement.facilities);
    assert!(warned(&extraction, "is a value this document replaces"), "{:?}", extraction.warnings);
}

fn spreads_of(extraction: &crate::domain::extraction::Extraction) -> Vec<String> {
    extraction.agreement.facilities.iter().filter_map(|f| f.spread.as_ref().map(|s| s.value().to_string())).collect()
}

#[test]
fn an_amendment_s_recital_of_a_margin_it_replaces_does_not_price_the_loans() {
    let extraction = extract_credit_agreement(AMENDMENT_CHANGING_SIZE_AND_MARGIN);
    let spreads = spreads_of(&extraction);
    assert!(!spreads.iter().any(|s| s == "0.024"), "{spreads:?}");
}

/// An amendment that extends the revolver's maturity and, in passing, says that the term loans
/// keep the pricing the amended agreement gives them.
const AMENDMENT_MENTIONING_UNCHANGED_TERM_LOANS: &str = "AMENDMENT NO. 1 TO CREDIT AGREEMENT\n\n\
This AMENDMENT NO. 1 TO CREDIT AGREEMENT is dated as of April 4, 2024, among ELMWOOD PAPER CO., a Maine \
corporation (the \"Borrower\"), the Lenders party hereto and SPRUCE BANK, N.A., as administrative agent.\n\n\
RECITALS\n\n\
A. The Borrower, the Lenders and the administrative agent are parties to a Credit Agreement dated as of April 4, \
2021 (the \"Credit Agreement\").\n\n\
B. The Borrower has asked the Lenders to extend the Revolving Credit Maturity Date.\n\n\
NOW, THEREFORE, the parties agree as follows:\n\n\
1. The definition of \"Revolving Credit Maturity Date\" in Section 1.01 of the Credit Agreement is amended by \
deleting the date \"April 4, 2026\" and substituting the date \"April 4, 2028\" therefor.\n\n\
2. Nothing herein shall modify the Term Loans, which continue to bear interest at Term SOFR plus 2.85% per annum \
and to mature on April 4, 2027.\n\n\
3. This Amendment is governed by the law of the State of New York.\n";

#[test]
fn terms_an_amendment_says_it_leaves_unchanged_are_not_stated_as_its_own() {
    let extraction = extract_credit_agreement(AMENDMENT_MENTIONING_UNCHANGED_TERM_LOANS);
    let spreads = spreads_of(&extraction);
    assert!(!spreads.iter().any(|s| s == "0.0285"), "{spreads:?}");
    assert!(warned(&extraction, "leaves as they were"), "{:?}", extraction.warnings);
}

#[test]
fn an_amendment_s_new_revolver_maturity_is_not_the_term_loans_maturity() {
    let extraction = extract_credit_agreement(AMENDMENT_MENTIONING_UNCHANGED_TERM_LOANS);
    let dated: Vec<(Option<String>, String)> = extraction
        .agreement
        .facilities
        .iter()
        .filter_map(|f| {
            let date = f.termination_date.as_ref()?.value().to_string();
            Some((f.facility_type.as_ref().map(|t| t.value().to_string()), date))
        })
        .collect();
    assert!(
        !dated.iter().any(|(kind, date)| kind.as_deref() != Some("RevolvingCredit") && date == "2028-04-04"),
        "{dated:?}"
    );
}

#[test]
fn a_capacity_each_of_a_list_of_signers_holds_belongs_to_every_name_of_the_list() {
    let text = "CREDIT AGREEMENT\n\nThis CREDIT AGREEMENT is dated as of May 1, 2024, among ALDER HOLDINGS, INC., a Delaware \
corporation (the \"Borrower\"), the Guarantors party hereto, the Lenders party hereto and CEDAR BANK, N.A., as \
Administrative Agent.\n\nSection 2.01. Loans. The Lenders shall make revolving loans to the Borrower.\n\n\
IN WITNESS WHEREOF, the parties have signed this Agreement as of the date first written above.\n\n\
ALDER HOLDINGS, INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n\n\
ALDER MILLS LLC,\nALDER FREIGHT, INC., and\nALDER STORES CORP.,\neach as a Guarantor\nBy: /s/ Ann Lee\nName: Ann Lee\n";
    let extraction = extract_credit_agreement(text);
    let guarantors: Vec<&str> = extraction
        .agreement
        .parties
        .iter()
        .filter(|p| p.has_role(PartyRole::Guarantor))
        .map(|p| p.name.value().as_str())
        .collect();
    assert_eq!(
        guarantors,
        ["ALDER MILLS LLC", "ALDER FREIGHT, INC.", "ALDER STORES CORP."],
        "{:?}",
        extraction.warnings
    );
}
