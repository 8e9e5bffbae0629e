//! Corpus tests: agreements in the styles the engine is for, each with the fields it must yield,
//! plus a generated agreement over 1 MB and property tests on arbitrary input. Every extraction
//! here also checks that each provenance entry quotes the source exactly and names a value that
//! exists in the serialized agreement.

use proptest::prelude::*;
use rust_decimal::Decimal;
use time::{Date, Month};

use super::*;

const US_SYNDICATED: &str = include_str!("corpus/us_syndicated_term_sofr.txt");
const LMA_SONIA: &str = include_str!("corpus/lma_sonia_facilities.txt");
const LMA_MULTICURRENCY: &str = include_str!("corpus/lma_euribor_multicurrency_sll.txt");
const AMENDMENT: &str = include_str!("corpus/amendment_no_2_repricing.txt");
const AMENDED_AND_RESTATED: &str = include_str!("corpus/amended_restated_ratings_grid.txt");
const TERM_SHEET_BRIDGE: &str = include_str!("corpus/term_sheet_bridge.txt");
const TERM_SHEET_PRIME: &str = include_str!("corpus/term_sheet_prime_bilateral.txt");
const CONFLICTING: &str = include_str!("corpus/conflicting_statements.txt");
const LEASE: &str = include_str!("corpus/lease_not_a_credit_agreement.txt");
const RECIPE: &str = include_str!("corpus/recipe_not_a_credit_agreement.txt");

const CORPUS: [&str; 10] = [
    US_SYNDICATED,
    LMA_SONIA,
    LMA_MULTICURRENCY,
    AMENDMENT,
    AMENDED_AND_RESTATED,
    TERM_SHEET_BRIDGE,
    TERM_SHEET_PRIME,
    CONFLICTING,
    LEASE,
    RECIPE,
];

/// Extracts and checks the provenance invariants every extraction must satisfy.
fn extract_checked(text: &str) -> Extraction {
    let extraction = extract_credit_agreement(text);
    assert_provenance_quotes_the_source(text, &extraction);
    extraction
}

fn assert_provenance_quotes_the_source(text: &str, extraction: &Extraction) {
    let json = serde_json::to_value(extraction).expect("an extraction serializes");
    let provenance = extraction.agreement.provenance();
    for (pointer, entry) in &provenance {
        assert_eq!(text.get(entry.start..entry.end), Some(entry.quote.as_str()), "provenance of {pointer}");
        assert!(json["agreement"].pointer(pointer).is_some(), "{pointer} is not a value of the serialized agreement");
    }
    let serialized_provenance = json["agreement"]["provenance"].as_object().map_or(0, |p| p.len());
    assert_eq!(serialized_provenance, provenance.len());
}

fn dec(raw: &str) -> Decimal {
    raw.parse().expect("test decimal")
}

fn ymd(year: i32, month: Month, day: u8) -> Date {
    Date::from_calendar_date(year, month, day).expect("test date")
}

fn value<T: Clone>(sourced: &Option<Sourced<T>>) -> Option<T> {
    sourced.as_ref().map(|s| s.value().clone())
}

fn quote<T>(sourced: &Option<Sourced<T>>) -> Option<&str> {
    sourced.as_ref().map(|s| s.quote())
}

fn party<'a>(agreement: &'a CreditAgreement, name: &str) -> &'a Party {
    agreement.parties.iter().find(|p| p.name.value() == name).unwrap_or_else(|| {
        panic!("no party {name:?} in {:?}", agreement.parties.iter().map(|p| p.name.value()).collect::<Vec<_>>())
    })
}

fn roles(party: &Party) -> Vec<PartyRole> {
    party.roles.iter().map(|r| *r.value()).collect()
}

fn lei(party: &Party) -> Option<String> {
    party.party_id.as_ref().map(|id| id.value().to_string())
}

fn commitment(facility: &Facility) -> Option<(Decimal, String)> {
    facility.commitment.as_ref().map(|c| (c.value().value, c.value().currency.to_string()))
}

fn grid_spreads(facility: &Facility) -> Vec<Decimal> {
    facility.pricing_grid.iter().filter_map(|level| level.spread.as_ref().map(|s| *s.value())).collect()
}

fn months(periods: &[u32]) -> Vec<Period> {
    periods.iter().map(|&n| Period::months(n)).collect()
}

// US syndicated credit agreement (Term SOFR, New York law, pricing grid, step-down covenant).

#[test]
fn a_us_syndicated_agreement_is_extracted_completely() {
    let extraction = extract_checked(US_SYNDICATED);
    assert_eq!(extraction.status, ExtractionStatus::Success, "{:?}", extraction.missing_fields);
    assert!(extraction.warnings.is_empty(), "{:?}", extraction.warnings);
    assert_eq!(
        extraction.missing_fields,
        ["/facilities/0/paymentFrequency", "/facilities/1/paymentFrequency", "/facilities/2/paymentFrequency"]
    );
    let agreement = &extraction.agreement;
    assert_eq!(value(&agreement.agreement_name).as_deref(), Some("CREDIT AGREEMENT"));
    assert_eq!(value(&agreement.agreement_date), Some(ymd(2024, Month::March, 15)));
    assert_eq!(value(&agreement.effective_date), Some(ymd(2024, Month::March, 15)));
    let law = &agreement.legal_agreement_identification.governing_law;
    assert_eq!(value(law), Some(GoverningLaw::Usny));
    assert_eq!(quote(law), Some("GOVERNED BY, AND CONSTRUED IN ACCORDANCE WITH, THE LAW OF THE STATE OF NEW YORK"));
    assert!(agreement.amendment.is_none() && agreement.sustainability_linked.is_none());
}

#[test]
fn us_parties_carry_their_roles_and_valid_leis() {
    let agreement = extract_checked(US_SYNDICATED).agreement;
    let names: Vec<&str> = agreement.parties.iter().map(|p| p.name.value().as_str()).collect();
    assert_eq!(
        names,
        [
            "ACME HOLDINGS, INC.",
            "JPMORGAN CHASE BANK, N.A.",
            "BOFA SECURITIES, INC.",
            "BANK OF AMERICA, N.A.",
            "Wells Fargo Bank, National Association"
        ]
    );
    let borrower = party(&agreement, "ACME HOLDINGS, INC.");
    assert_eq!(roles(borrower), [PartyRole::Borrower]);
    assert_eq!(lei(borrower).as_deref(), Some("5493ACMEHOLDINGS0037"));
    let agent = party(&agreement, "JPMORGAN CHASE BANK, N.A.");
    assert_eq!(
        roles(agent),
        [
            PartyRole::AdministrativeAgent,
            PartyRole::SwinglineLender,
            PartyRole::IssuingBank,
            PartyRole::Arranger,
            PartyRole::Bookrunner,
            PartyRole::Lender
        ]
    );
    assert_eq!(lei(agent).as_deref(), Some("7H6GLXDRUGQFU57RNE97"));
    assert_eq!(roles(party(&agreement, "BOFA SECURITIES, INC.")), [PartyRole::Arranger, PartyRole::Bookrunner]);
    let syndication_agent = party(&agreement, "BANK OF AMERICA, N.A.");
    assert_eq!(roles(syndication_agent), [PartyRole::SyndicationAgent, PartyRole::Lender]);
    assert_eq!(lei(syndication_agent).as_deref(), Some("B4TYDEB6GKMZO031MB27"));
    assert_eq!(roles(party(&agreement, "Wells Fargo Bank, National Association")), [PartyRole::Lender]);
}

#[test]
fn us_facilities_have_words_and_figures_commitments_grid_and_fixed_term_b_pricing() {
    let agreement = extract_checked(US_SYNDICATED).agreement;
    let [term_a, term_b, revolver] = agreement.facilities.as_slice() else {
        panic!("three facilities expected: {:?}", agreement.facilities)
    };
    assert_eq!(value(&term_a.facility_type), Some(FacilityType::TermLoanA));
    assert_eq!(value(&term_a.name).as_deref(), Some("Term A Loans"));
    assert_eq!(commitment(term_a), Some((dec("500000000"), "USD".to_owned())));
    assert_eq!(quote(&term_a.commitment), Some("Five Hundred Million Dollars ($500,000,000)"));
    assert_eq!(value(&term_b.facility_type), Some(FacilityType::TermLoanB));
    assert_eq!(commitment(term_b), Some((dec("300000000"), "USD".to_owned())));
    assert_eq!(value(&revolver.facility_type), Some(FacilityType::RevolvingCredit));
    assert_eq!(commitment(revolver), Some((dec("250000000"), "USD".to_owned())));

    for facility in [term_a, term_b, revolver] {
        assert_eq!(value(&facility.floating_rate_index), Some(FloatingRateIndex::UsdSofrCmeTerm));
        assert_eq!(value(&facility.day_count_fraction), Some(DayCountFraction::Act360));
        assert_eq!(value(&facility.interest_periods), Some(months(&[1, 3, 6])));
    }
    let levels = [dec("0.0225"), dec("0.02"), dec("0.0175"), dec("0.015")];
    assert_eq!(grid_spreads(term_a), levels);
    assert_eq!(grid_spreads(revolver), levels);
    let first = &revolver.pricing_grid[0];
    assert_eq!(value(&first.level).as_deref(), Some("Level I"));
    assert_eq!(value(&first.condition).as_deref(), Some(">= 3.50:1.00"));
    assert_eq!(value(&first.base_rate_spread), Some(dec("0.0125")));
    assert_eq!(value(&first.commitment_fee), Some(dec("0.0035")));
    assert_eq!(quote(&first.commitment_fee), Some("0.350%"));

    assert!(term_b.pricing_grid.is_empty());
    assert_eq!(value(&term_b.spread), Some(dec("0.0275")));
    assert_eq!(value(&term_b.base_rate_spread), Some(dec("0.0175")));
    assert_eq!(value(&term_b.floor), Some(dec("0.005")));
    assert_eq!(value(&term_a.floor), Some(Decimal::ZERO));
    assert_eq!(value(&term_a.termination_date), Some(ymd(2029, Month::March, 15)));
    assert_eq!(value(&term_b.termination_date), Some(ymd(2031, Month::March, 15)));
    assert_eq!(value(&revolver.termination_date), Some(ymd(2029, Month::March, 15)));
}

#[test]
fn us_covenants_keep_every_step_down_level_with_its_period() {
    let agreement = extract_checked(US_SYNDICATED).agreement;
    let [leverage, coverage] = agreement.financial_covenants.as_slice() else {
        panic!("two covenants expected: {:?}", agreement.financial_covenants)
    };
    assert_eq!(*leverage.covenant_type.value(), CovenantType::MaximumLeverageRatio);
    assert_eq!(leverage.metric.value(), "Consolidated Total Net Leverage Ratio");
    let levels: Vec<(Decimal, Option<String>)> =
        leverage.levels.iter().map(|l| (*l.threshold.value(), value(&l.period))).collect();
    assert_eq!(
        levels,
        [
            (dec("4.50"), Some("June 30, 2024 through March 31, 2025".to_owned())),
            (dec("4.25"), Some("June 30, 2025 through March 31, 2026".to_owned())),
            (dec("4.00"), Some("June 30, 2026 and thereafter".to_owned())),
        ]
    );
    assert_eq!(*coverage.covenant_type.value(), CovenantType::MinimumInterestCoverageRatio);
    assert_eq!(coverage.levels[0].threshold.quote(), "3.00 to 1.00");
}

// LMA English-law facilities agreement (SONIA, lettered facilities, margin ratchet).

#[test]
fn an_lma_sterling_agreement_reads_lettered_facilities_and_the_margin_ratchet() {
    let extraction = extract_checked(LMA_SONIA);
    assert_eq!(extraction.status, ExtractionStatus::Success, "{:?}", extraction.missing_fields);
    assert!(extraction.warnings.is_empty(), "{:?}", extraction.warnings);
    let agreement = &extraction.agreement;
    assert_eq!(value(&agreement.agreement_name).as_deref(), Some("FACILITIES AGREEMENT"));
    assert_eq!(value(&agreement.agreement_date), Some(ymd(2024, Month::March, 15)));
    assert_eq!(value(&agreement.legal_agreement_identification.governing_law), Some(GoverningLaw::Gben));
    assert_eq!(quote(&agreement.legal_agreement_identification.governing_law), Some("governed by English law"));

    let [facility_a, facility_b] = agreement.facilities.as_slice() else { panic!("two facilities expected") };
    assert_eq!(value(&facility_a.name).as_deref(), Some("Facility A"));
    assert_eq!(value(&facility_a.facility_type), Some(FacilityType::TermLoan));
    assert_eq!(value(&facility_b.facility_type), Some(FacilityType::RevolvingCredit));
    assert_eq!(commitment(facility_a), Some((dec("200000000"), "GBP".to_owned())));
    assert_eq!(commitment(facility_b), Some((dec("150000000"), "GBP".to_owned())));
    assert_eq!(quote(&facility_a.commitment), Some("£200,000,000"));
    assert_eq!(value(&facility_a.spread), Some(dec("0.0225")));
    assert_eq!(quote(&facility_a.spread), Some("2.25 per cent."));
    assert_eq!(value(&facility_b.spread), Some(dec("0.02")));
    assert_eq!(grid_spreads(facility_a), [dec("0.0225"), dec("0.02"), dec("0.0175"), dec("0.015")]);
    assert_eq!(grid_spreads(facility_b), [dec("0.02"), dec("0.0175"), dec("0.015"), dec("0.0125")]);
    assert_eq!(value(&facility_a.pricing_grid[0].condition).as_deref(), Some("Greater than 3.00:1"));
    for facility in [facility_a, facility_b] {
        assert_eq!(value(&facility.floating_rate_index), Some(FloatingRateIndex::GbpSonia));
        assert_eq!(value(&facility.day_count_fraction), Some(DayCountFraction::Act365Fixed));
        assert_eq!(value(&facility.floor), Some(Decimal::ZERO));
        assert_eq!(value(&facility.interest_periods), Some(months(&[1, 3, 6])));
    }
    assert_eq!(value(&facility_a.termination_date), Some(ymd(2029, Month::March, 15)));
    assert_eq!(value(&facility_b.termination_date), Some(ymd(2028, Month::March, 15)));
    assert_eq!(value(&facility_b.commitment_fee), Some(CommitmentFee::PercentageOfMargin(dec("0.35"))));
    assert!(facility_a.commitment_fee.is_none(), "a term facility has no commitment fee unless stated for it");
}

#[test]
fn lma_parties_come_from_the_numbered_party_list_and_the_lender_schedule() {
    let agreement = extract_checked(LMA_SONIA).agreement;
    let company = party(&agreement, "BRITANNIA FOODS PLC");
    assert_eq!(roles(company), [PartyRole::Borrower, PartyRole::Guarantor]);
    assert_eq!(lei(company).as_deref(), Some("549300BRITFOODS00020"));
    assert_eq!(agreement.parties[0].name.value(), "BRITANNIA FOODS PLC", "borrowers come first");
    assert_eq!(roles(party(&agreement, "BARCLAYS BANK PLC")), [PartyRole::Arranger, PartyRole::Lender]);
    assert_eq!(lei(party(&agreement, "HSBC BANK PLC")).as_deref(), Some("MP6I5ZYZBEU3UXPYFY54"));
    let agent = party(&agreement, "LLOYDS BANK PLC");
    assert_eq!(roles(agent), [PartyRole::FacilityAgent]);
    assert_eq!(lei(agent).as_deref(), Some("H7FNTJ4851HG0EXQ1Z70"));
    assert_eq!(roles(party(&agreement, "NatWest Markets Plc")), [PartyRole::Lender]);
}

#[test]
fn lma_financial_covenants_are_leverage_and_interest_cover() {
    let agreement = extract_checked(LMA_SONIA).agreement;
    let read: Vec<(CovenantType, String, Decimal, Option<String>)> = agreement
        .financial_covenants
        .iter()
        .flat_map(|c| {
            c.levels.iter().map(move |l| {
                (*c.covenant_type.value(), c.metric.value().clone(), *l.threshold.value(), value(&l.period))
            })
        })
        .collect();
    assert_eq!(
        read,
        [
            (CovenantType::MaximumLeverageRatio, "Leverage".to_owned(), dec("3.5"), None),
            (CovenantType::MinimumInterestCoverageRatio, "Interest Cover".to_owned(), dec("4"), None),
        ]
    );
}

// LMA multicurrency sustainability-linked revolving facility (EURIBOR, optional currencies).

#[test]
fn a_multicurrency_sustainability_linked_facility_keeps_its_currencies_and_targets() {
    let extraction = extract_checked(LMA_MULTICURRENCY);
    assert_eq!(extraction.status, ExtractionStatus::Success, "{:?}", extraction.missing_fields);
    assert!(extraction.warnings.is_empty(), "{:?}", extraction.warnings);
    let agreement = &extraction.agreement;
    assert_eq!(
        value(&agreement.agreement_name).as_deref(),
        Some("SUSTAINABILITY-LINKED MULTICURRENCY REVOLVING FACILITY AGREEMENT")
    );
    assert_eq!(value(&agreement.agreement_date), Some(ymd(2024, Month::May, 2)));
    let [facility] = agreement.facilities.as_slice() else { panic!("one facility expected") };
    assert_eq!(value(&facility.facility_type), Some(FacilityType::RevolvingCredit));
    assert_eq!(commitment(facility), Some((dec("750000000"), "EUR".to_owned())));
    assert_eq!(quote(&facility.commitment), Some("EUR 750,000,000"));
    let optional: Vec<String> = facility.optional_currencies.iter().map(|c| c.value().to_string()).collect();
    assert_eq!(optional, ["USD", "GBP"]);
    assert_eq!(value(&facility.floating_rate_index), Some(FloatingRateIndex::EurEuribor));
    assert_eq!(value(&facility.spread), Some(dec("0.0085")));
    assert_eq!(value(&facility.floor), Some(Decimal::ZERO));
    assert_eq!(
        value(&facility.day_count_fraction),
        Some(DayCountFraction::Act360),
        "sterling's 365 is not the euro basis"
    );
    assert_eq!(value(&facility.termination_date), Some(ymd(2029, Month::May, 2)));
    assert_eq!(value(&facility.commitment_fee), Some(CommitmentFee::PercentageOfMargin(dec("0.35"))));

    let sustainability = agreement.sustainability_linked.as_ref().expect("sustainability-linked");
    assert_eq!(value(&sustainability.margin_adjustment), Some(dec("0.00025")));
    let kpis: Vec<&str> = sustainability.kpis.iter().map(|k| k.value().as_str()).collect();
    assert_eq!(
        kpis,
        [
            "Scope 1 and 2 greenhouse gas emissions intensity (tCO2e per MWh generated)",
            "Installed renewable generation capacity (GW)",
            "Lost time injury frequency rate"
        ]
    );
    let coordinator = party(agreement, "ING BANK N.V.");
    assert!(
        coordinator.has_role(PartyRole::FacilityAgent) && coordinator.has_role(PartyRole::SustainabilityCoordinator)
    );
    assert_eq!(lei(coordinator).as_deref(), Some("3TK20IVIUJ8J3ZU0QE75"));
    assert_eq!(roles(party(agreement, "NORDWIND ENERGIE N.V.")), [PartyRole::Borrower]);
    assert!(party(agreement, "BNP PARIBAS SA").has_role(PartyRole::Arranger));
}

// Amendment of a US agreement (repricing, maturity extension).

#[test]
fn an_amendment_states_its_own_date_and_what_it_amends() {
    let extraction = extract_checked(AMENDMENT);
    assert_eq!(extraction.status, ExtractionStatus::Success, "{:?}", extraction.missing_fields);
    assert!(extraction.warnings.is_empty(), "{:?}", extraction.warnings);
    let agreement = &extraction.agreement;
    assert_eq!(value(&agreement.agreement_name).as_deref(), Some("AMENDMENT NO. 2 TO CREDIT AGREEMENT"));
    assert_eq!(value(&agreement.agreement_date), Some(ymd(2024, Month::June, 3)));
    assert_eq!(value(&agreement.effective_date), Some(ymd(2024, Month::June, 3)));
    let amendment = agreement.amendment.as_ref().expect("an amendment");
    assert_eq!(*amendment.amendment_type.value(), AmendmentType::Amendment);
    assert_eq!(value(&amendment.amended_agreement_date), Some(ymd(2021, Month::March, 15)));

    let [term_b] = agreement.facilities.as_slice() else { panic!("one facility expected") };
    assert_eq!(value(&term_b.facility_type), Some(FacilityType::TermLoanB));
    assert_eq!(commitment(term_b), Some((dec("450000000"), "USD".to_owned())));
    assert_eq!(value(&term_b.spread), Some(dec("0.03")), "the superseded 3.50% is not the margin");
    assert_eq!(value(&term_b.base_rate_spread), Some(dec("0.02")));
    assert_eq!(value(&term_b.floor), Some(dec("0.005")));
    assert_eq!(value(&term_b.termination_date), Some(ymd(2031, Month::June, 3)));
    assert_eq!(lei(party(agreement, "CITIBANK, N.A.")).as_deref(), Some("E57ODZWZ7FF32TWEFA76"));
    assert_eq!(roles(party(agreement, "HARBOR POINT LOGISTICS, LLC")), [PartyRole::Borrower]);
}

// Amended and restated agreement (ratings grid in basis points, delayed draw, L/C facility).

#[test]
fn an_amended_and_restated_agreement_reads_a_ratings_grid_in_basis_points() {
    let extraction = extract_checked(AMENDED_AND_RESTATED);
    assert_eq!(extraction.status, ExtractionStatus::Success, "{:?}", extraction.missing_fields);
    let agreement = &extraction.agreement;
    assert_eq!(value(&agreement.agreement_date), Some(ymd(2023, Month::September, 15)));
    assert_eq!(quote(&agreement.agreement_date), Some("the 15th day of September, 2023"));
    assert_eq!(value(&agreement.effective_date), Some(ymd(2023, Month::September, 15)));
    assert_eq!(value(&agreement.legal_agreement_identification.governing_law), Some(GoverningLaw::Usde));
    let amendment = agreement.amendment.as_ref().expect("a restatement");
    assert_eq!(*amendment.amendment_type.value(), AmendmentType::AmendmentAndRestatement);
    assert_eq!(value(&amendment.amended_agreement_date), Some(ymd(2019, Month::July, 1)));

    let [revolver, delayed_draw, letters_of_credit] = agreement.facilities.as_slice() else {
        panic!("three facilities expected")
    };
    assert_eq!(commitment(revolver), Some((dec("400000000"), "USD".to_owned())));
    assert_eq!(value(&delayed_draw.facility_type), Some(FacilityType::DelayedDrawTermLoan));
    assert_eq!(commitment(delayed_draw), Some((dec("150000000"), "USD".to_owned())));
    assert_eq!(value(&letters_of_credit.facility_type), Some(FacilityType::LetterOfCredit));
    assert_eq!(commitment(letters_of_credit), Some((dec("50000000"), "USD".to_owned())));
    let levels = [dec("0.00875"), dec("0.01"), dec("0.01125"), dec("0.01375"), dec("0.01625")];
    assert_eq!(grid_spreads(revolver), levels);
    assert_eq!(grid_spreads(delayed_draw), levels);
    assert!(letters_of_credit.pricing_grid.is_empty() && letters_of_credit.floating_rate_index.is_none());
    let second = &revolver.pricing_grid[1];
    assert_eq!(value(&second.level).as_deref(), Some("Category 2"));
    assert_eq!(value(&second.condition).as_deref(), Some("BBB+/Baa1"));
    assert_eq!(value(&second.commitment_fee), Some(dec("0.00125")));
    assert_eq!(quote(&second.spread), Some("100.0"));
    assert_eq!(value(&delayed_draw.commitment_fee), Some(CommitmentFee::Rate(dec("0.0025"))));
    for facility in [revolver, delayed_draw, letters_of_credit] {
        assert_eq!(value(&facility.termination_date), Some(ymd(2028, Month::September, 15)));
        assert_eq!(value(&facility.payment_frequency), Some(Period::months(3)));
    }
    let borrowers: Vec<&str> =
        agreement.parties.iter().filter(|p| p.has_role(PartyRole::Borrower)).map(|p| p.name.value().as_str()).collect();
    assert_eq!(borrowers, ["CASCADE MEDICAL SYSTEMS, INC.", "CASCADE MEDICAL SYSTEMS UK LIMITED"]);
    assert_eq!(roles(party(agreement, "U.S. BANK NATIONAL ASSOCIATION")), [PartyRole::DocumentationAgent]);
}

// Term sheets.

#[test]
fn an_amendment_restating_the_maturity_definition_states_the_maturity_not_the_notice_deadline() {
    let text = "          AMENDMENT NO. 2, dated as of May 9, 1996, to the Credit Agreement dated as of July 1, 1994,\n\
        among GADGET CORP., a Delaware corporation (the \"Borrower\"), and SECOND BANK, as agent.\n\n     \
        (a) \"Maturity Date\" shall be amended to read as follows:\n\n     \"'Maturity Date' means March 31, 2001; \
        provided that the Borrower may extend the Maturity Date by notice given not later than\n     December 31, \
        1999.\"\n\n     (b) The Banks agree to make revolving loans which the Borrower may borrow, repay and \
        reborrow.\n\n     This Amendment shall be governed by the laws of the State of New York.\n";
    let extraction = extract_checked(text);
    let [facility] = extraction.agreement.facilities.as_slice() else { panic!("one facility") };
    assert_eq!(value(&facility.termination_date), Some(ymd(2001, Month::March, 31)), "{:?}", extraction.warnings);
}

#[test]
fn an_amendment_restating_a_margin_grid_as_a_prose_list_gives_the_grid_and_its_maturity() {
    let text = "          AMENDMENT NO. 3, dated as of March 4, 1997 (\"Amendment\"), to the\nCredit Agreement dated as \
        of June 1, 1995, among\nWIDGET HOLDINGS INC., a Delaware corporation (the \"Borrower\"), the banks\nparty \
        thereto and FIRST NATIONAL BANK, as agent (the \"Agent\").\n\n     1. Amendments. The Credit Agreement is \
        amended as follows:\n\n     (a) \"Applicable Margin\" shall be amended to read as follows:\n\n     \
        \"'Applicable Margin' shall mean (i) with respect to Base Rate Loans,\n     0% per annum and (ii) with respect \
        to Eurodollar Loans, if the Funded\n     Debt Ratio is (x) greater than 3.25 to 1.0, 1.50% per annum, (y)\n     \
        greater than 2.50 to 1.0 but not greater than 3.25 to 1.0, 1.25% per\n     annum and (z) not greater than \
        2.50 to 1.0, 1.00% per annum.\"\n\n     (b) \"Termination Date\" shall be amended to read as follows:\n\n     \
        \"'Termination Date' means June 30, 2001; provided that the Borrower\n     may request, no later than March \
        31, 2000, that the Termination Date\n     be extended for one year.\"\n\n     (c) The Banks agree to make \
        revolving loans which the Borrower may borrow, repay and reborrow.\n\n     2. Governing Law. This Amendment \
        shall be governed by the laws of the State of New York.\n";
    let extraction = extract_checked(text);
    let [facility] = extraction.agreement.facilities.as_slice() else { panic!("one facility") };
    assert_eq!(grid_spreads(facility), [dec("0.015"), dec("0.0125"), dec("0.01")]);
    assert_eq!(
        facility
            .pricing_grid
            .iter()
            .filter_map(|l| l.condition.as_ref().map(|c| c.value().as_str()))
            .collect::<Vec<_>>(),
        [
            "greater than 3.25 to 1.0",
            "greater than 2.50 to 1.0 but not greater than 3.25 to 1.0",
            "not greater than 2.50 to 1.0"
        ]
    );
    assert_eq!(facility.spread, None, "the grid's figures are not a flat margin");
    assert_eq!(value(&facility.floating_rate_index), Some(FloatingRateIndex::UsdLibor));
    assert_eq!(value(&facility.termination_date), Some(ymd(2001, Month::June, 30)), "{:?}", extraction.warnings);
    assert!(extraction.warnings.is_empty(), "{:?}", extraction.warnings);
}

#[test]
fn a_bridge_term_sheet_reads_labels_and_reports_its_relative_maturity() {
    let extraction = extract_checked(TERM_SHEET_BRIDGE);
    assert_eq!(extraction.status, ExtractionStatus::PartialDataMissing);
    assert_eq!(extraction.missing_fields, ["/effectiveDate", "/facilities/0/terminationDate"]);
    assert_eq!(extraction.warnings.len(), 1);
    assert!(extraction.warnings[0].contains("364 days after the Closing Date"), "{:?}", extraction.warnings);
    let agreement = &extraction.agreement;
    assert_eq!(value(&agreement.agreement_name).as_deref(), Some("SUMMARY OF PRINCIPAL TERMS AND CONDITIONS"));
    assert_eq!(value(&agreement.agreement_date), Some(ymd(2024, Month::April, 8)));
    assert_eq!(value(&agreement.legal_agreement_identification.governing_law), Some(GoverningLaw::Usny));
    let [bridge] = agreement.facilities.as_slice() else { panic!("one facility expected") };
    assert_eq!(value(&bridge.facility_type), Some(FacilityType::Bridge));
    assert_eq!(commitment(bridge), Some((dec("150000000"), "USD".to_owned())));
    assert_eq!(value(&bridge.spread), Some(dec("0.04")), "the 0.50% step-up is not the margin");
    assert_eq!(value(&bridge.floor), Some(dec("0.01")));
    assert_eq!(value(&bridge.floating_rate_index), Some(FloatingRateIndex::UsdSofrCmeTerm));
    assert_eq!(value(&bridge.payment_frequency), Some(Period::months(3)));
    assert_eq!(value(&bridge.day_count_fraction), Some(DayCountFraction::Act360));
    assert_eq!(value(&bridge.commitment_fee), Some(CommitmentFee::Rate(dec("0.005"))));
    assert_eq!(value(&bridge.interest_periods), Some(months(&[1, 3, 6])));
    let borrower = party(agreement, "Zenith Logistics Corp.");
    assert_eq!(lei(borrower).as_deref(), Some("549300ZENITHLOG00075"));
    assert_eq!(
        roles(party(agreement, "Goldman Sachs Bank USA")),
        [PartyRole::AdministrativeAgent, PartyRole::Arranger]
    );
    assert_eq!(agreement.financial_covenants[0].levels[0].threshold.quote(), "5.00x");
}

#[test]
fn a_prime_based_bilateral_term_sheet_uses_the_prime_rate_and_rejects_a_bad_lei() {
    let extraction = extract_checked(TERM_SHEET_PRIME);
    assert_eq!(extraction.status, ExtractionStatus::Success, "{:?}", extraction.missing_fields);
    assert_eq!(extraction.warnings.len(), 1);
    assert!(extraction.warnings[0].contains("549300VALERIANTX0036"), "{:?}", extraction.warnings);
    let agreement = &extraction.agreement;
    assert_eq!(value(&agreement.legal_agreement_identification.governing_law), Some(GoverningLaw::Usca));
    let borrower = party(agreement, "Valerian Tech Holdings LLC");
    assert!(borrower.party_id.is_none(), "an LEI with wrong check digits is never a party id");
    assert_eq!(roles(party(agreement, "Pacific Western Bank")), [PartyRole::Lender]);
    let [line] = agreement.facilities.as_slice() else { panic!("one facility expected") };
    assert_eq!(value(&line.facility_type), Some(FacilityType::RevolvingCredit));
    assert_eq!(commitment(line), Some((dec("25000000"), "USD".to_owned())));
    assert_eq!(value(&line.floating_rate_index), Some(FloatingRateIndex::UsdPrime));
    assert_eq!(value(&line.spread), Some(dec("0.005")));
    assert_eq!(
        value(&line.payment_frequency),
        Some(Period::months(1)),
        "the fee's quarterly payment is not interest's"
    );
    assert_eq!(value(&line.commitment_fee), Some(CommitmentFee::Rate(dec("0.0025"))));
    assert_eq!(value(&line.termination_date), Some(ymd(2026, Month::December, 31)));
    assert_eq!(*agreement.financial_covenants[0].covenant_type.value(), CovenantType::MinimumFixedChargeCoverageRatio);
}

// Conflicts.

#[test]
fn conflicting_statements_are_reported_with_both_quotes_and_withheld() {
    let extraction = extract_checked(CONFLICTING);
    assert_eq!(extraction.status, ExtractionStatus::PartialDataMissing);
    let agreement = &extraction.agreement;
    assert!(agreement.legal_agreement_identification.governing_law.is_none());
    let [term] = agreement.facilities.as_slice() else { panic!("one facility expected") };
    assert!(term.termination_date.is_none());
    assert_eq!(
        commitment(term),
        Some((dec("75000000"), "USD".to_owned())),
        "the consistent statement stands; the inconsistent words-and-figures one is not used"
    );
    assert_eq!(value(&term.spread), Some(dec("0.0275")));
    assert_eq!(quote(&term.spread), Some("2¾ per cent."));
    let warnings = extraction.warnings.join("\n");
    for expected in [
        "\"governed by, and construed in accordance with, the law of the State of New York\"",
        "\"governed by the laws of the State of Delaware\"",
        "\"Seventy-Five Million Dollars\"",
        "\"$57,000,000\"",
        "\"January 10, 2030\"",
        "\"January 10, 2031\"",
        "\"HUX2X73FUCYHUVH1BK79\"",
    ] {
        assert!(warnings.contains(expected), "{expected} not in {warnings}");
    }
    assert!(!extraction.missing_fields.contains(&"/legalAgreementIdentification/governingLaw".to_owned()));
}

// Not credit agreements.

#[test]
fn a_lease_and_a_recipe_are_irrelevant_documents() {
    for text in [LEASE, RECIPE] {
        let extraction = extract_checked(text);
        assert_eq!(extraction.status, ExtractionStatus::IrrelevantDocument);
        assert_eq!(extraction.agreement, CreditAgreement::default());
        assert!(extraction.missing_fields.is_empty() && extraction.warnings.is_empty());
    }
}

#[test]
fn the_serialized_shape_uses_cdm_names_and_values_inline() {
    let extraction = extract_checked(AMENDMENT);
    let json = serde_json::to_value(&extraction).expect("serializes");
    assert_eq!(json["status"], "success");
    let agreement = &json["agreement"];
    assert_eq!(agreement["agreementDate"], "2024-06-03");
    assert_eq!(agreement["legalAgreementIdentification"]["governingLaw"], "USNY");
    assert_eq!(agreement["facilities"][0]["commitment"], serde_json::json!({"value": "450000000", "currency": "USD"}));
    assert_eq!(agreement["facilities"][0]["floatingRateIndex"], "USD-SOFR CME Term");
    assert_eq!(agreement["facilities"][0]["spread"], "0.03");
    assert_eq!(agreement["facilities"][0]["terminationDate"], "2031-06-03");
    assert_eq!(agreement["parties"][0]["partyId"], "549300HARBORPOINT051");
    assert_eq!(agreement["provenance"]["/facilities/0/spread"]["quote"], "3.00%");
}

// Long documents.

/// Realistic operative boilerplate: representations, undertakings and events of default that
/// state no economic term, repeated to make an agreement of over 1 MB.
const BOILERPLATE: &str = include_str!("corpus/boilerplate_sections.txt");

/// The US agreement with boilerplate articles inserted before Article VII until it exceeds 1 MB.
fn agreement_over_one_megabyte() -> String {
    let split = US_SYNDICATED.find("                                     ARTICLE VII").expect("Article VII heading");
    let (head, tail) = US_SYNDICATED.split_at(split);
    let repeats = (1_050_000 / BOILERPLATE.len()) + 1;
    let mut text = String::with_capacity(US_SYNDICATED.len() + repeats * BOILERPLATE.len());
    text.push_str(head);
    for _ in 0..repeats {
        text.push('\n');
        text.push_str(BOILERPLATE);
    }
    text.push('\n');
    text.push_str(tail);
    text
}

/// The agreement as serialized, without the provenance (whose offsets differ between texts).
fn agreement_without_provenance(extraction: &Extraction) -> serde_json::Value {
    let mut json = serde_json::to_value(&extraction.agreement).expect("serializes");
    if let Some(object) = json.as_object_mut() {
        object.remove("provenance");
    }
    json
}

#[test]
fn an_agreement_over_one_megabyte_is_read_completely_with_the_same_result() {
    let long = agreement_over_one_megabyte();
    assert!(long.len() > 1_000_000, "{} bytes", long.len());
    let short = extract_checked(US_SYNDICATED);
    let extraction = extract_checked(&long);
    assert_eq!(extraction.status, short.status);
    assert_eq!(extraction.missing_fields, short.missing_fields);
    assert_eq!(extraction.warnings, short.warnings);
    assert_eq!(agreement_without_provenance(&extraction), agreement_without_provenance(&short));
    // Statements after the boilerplate (covenants, governing law, signatures, schedules) prove that
    // nothing was cut.
    let law = extraction.agreement.legal_agreement_identification.governing_law.as_ref().expect("governing law");
    assert!(law.span().start > 1_000_000);
}

/// `text` with every prose line longer than 100 characters wrapped at 88, as PDF-to-text output
/// is. Table rows (cells split by `|` or runs of spaces) are left alone.
fn hard_wrapped(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 40);
    for line in text.split('\n') {
        if line.len() <= 100 || line.contains('|') || line.trim().contains("   ") {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut width = 0;
        for word in line.split(' ') {
            if width > 0 && width + 1 + word.len() > 88 {
                out.push('\n');
                width = 0;
            } else if width > 0 {
                out.push(' ');
                width += 1;
            }
            out.push_str(word);
            width += word.len();
        }
        out.push('\n');
    }
    out
}

#[test]
fn a_hard_wrapped_agreement_yields_the_same_agreement() {
    for text in CORPUS {
        let wrapped = hard_wrapped(text);
        let original = extract_checked(text);
        let extraction = extract_checked(&wrapped);
        assert_eq!(extraction.status, original.status);
        assert_eq!(extraction.missing_fields, original.missing_fields);
        assert_eq!(agreement_without_provenance(&extraction), agreement_without_provenance(&original));
    }
}

// Properties.

fn assert_sound(text: &str) {
    let extraction = extract_credit_agreement(text);
    assert_provenance_quotes_the_source(text, &extraction);
}

/// Pieces of the corpus cut at arbitrary `char` boundaries.
fn corpus_fragment() -> impl Strategy<Value = String> {
    (0..CORPUS.len(), any::<prop::sample::Index>(), 0usize..3000).prop_map(|(document, start, length)| {
        let text = CORPUS[document];
        let start = super::text::floor_boundary(text, start.index(text.len().max(1)));
        let end = super::text::floor_boundary(text, start.saturating_add(length));
        text.get(start..end.max(start)).unwrap_or("").to_owned()
    })
}

/// Tokens that stress the parsers: unbalanced brackets and quotes, huge numbers, currency and
/// percent signs without figures, enumerators, table separators, control characters.
fn noise() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("(a) ".to_owned()),
        Just("(the \"".to_owned()),
        Just("“".to_owned()),
        Just("$".to_owned()),
        Just("€".to_owned()),
        Just(" per cent.".to_owned()),
        Just(" basis points".to_owned()),
        Just(":1.00".to_owned()),
        Just(" | ".to_owned()),
        Just("\n\n".to_owned()),
        Just("\u{0}\r\t".to_owned()),
        Just("LEI: ".to_owned()),
        Just(" Billion Million Hundred ".to_owned()),
        Just("Term Loan A ".to_owned()),
        Just("\"Margin\" means ".to_owned()),
        Just("Borrower: ".to_owned()),
        "[0-9,.]{1,60}",
        "[A-Z0-9]{0,25}",
        "\\PC{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn extraction_never_panics_on_arbitrary_strings(text in any::<String>()) {
        assert_sound(&text);
    }

    #[test]
    fn extraction_never_panics_on_arbitrary_unicode(text in "\\PC{0,600}") {
        assert_sound(&text);
    }

    #[test]
    fn extraction_never_panics_on_agreement_fragments_mixed_with_noise(
        pieces in prop::collection::vec(prop_oneof![corpus_fragment(), noise()], 0..40)
    ) {
        assert_sound(&pieces.concat());
    }

    #[test]
    fn huge_and_malformed_figures_never_panic(
        digits in "[0-9]{1,80}",
        prefix in prop_oneof![Just("$"), Just("USD "), Just("£"), Just("")],
        suffix in prop_oneof![Just(""), Just(" billion"), Just("%"), Just(" basis points"), Just(":1.00"), Just(")")],
    ) {
        let text = format!("CREDIT AGREEMENT among Acme Inc., as Borrower, and Bank N.A., as Administrative Agent. The Term A Loans in an aggregate principal amount of Five Hundred Million Dollars ({prefix}{digits}{suffix} and \"Applicable Margin\" means {digits}{suffix}. Commitments. SOFR.");
        assert_sound(&text);
    }
}

/// Tranches told apart by currency or jurisdiction, in an agreement whose margin definition
/// prices one tranche and then "all Loans other than" it, and whose sizes are written with the
/// symbols EDGAR's plain-text filings spelled out.
const TRANCHES: &str = r#"REVOLVING CREDIT AND TERM LOAN AGREEMENT dated as of March 3, 2004 among NORTHWIND HOLDINGS INC., a Delaware corporation (the "Parent Borrower"), the lenders party hereto and FIRST HARBOUR BANK, N.A., as administrative agent (in such capacity, the "Administrative Agent").

ARTICLE I

DEFINITIONS

    "Applicable Margin" means:

    (a) for Sterling Term Loans, 2.25% per annum; and

    (b) for all Loans other than Sterling Term Loans:

        (i) until the first Pricing Date, 1.50% per annum; and

        (ii) from the first Pricing Date, the percentage per annum set forth below opposite the Total Leverage Ratio:

Pricing Level     Total Leverage Ratio          Eurocurrency Margin     Base Rate Margin
I                 > 3.00:1.00                   1.75%                   0.75%
II                <= 3.00:1.00                  1.50%                   0.50%
III               <= 2.00:1.00                  1.25%                   0.25%

    "Canadian Revolving Commitment" means, for each Lender, its commitment to make Canadian Revolving Loans, and "Canadian Revolving Commitments" means the commitments of all Lenders, the aggregate amount of which on the Effective Date is C$25,000,000.

    "Eurocurrency Rate" means, for a Loan denominated in Dollars or in Sterling, the LIBOR offered for deposits in that currency for the Interest Period.

    "Sterling Term Commitment" means, for each Lender, its commitment to make a Sterling Term Loan, and "Sterling Term Commitments" means the commitments of all Lenders, the aggregate amount of which on the Effective Date is (pound)40,000,000, and "Sterling Term-A Commitments" means the first (pound)10,000,000 of them.

    "U.S. Revolving Commitment" means, for each Lender, its commitment to make U.S. Revolving Loans, and "U.S. Revolving Commitments" means the commitments of all Lenders, the aggregate amount of which on the Effective Date is $150,000,000.

This Agreement shall be governed by the law of the State of New York.
"#;

#[test]
fn tranches_named_by_currency_or_jurisdiction_are_separate_facilities() {
    let extraction = extract_checked(TRANCHES);
    let facilities = &extraction.agreement.facilities;
    let by_name = |name: &str| {
        facilities
            .iter()
            .find(|f| f.name.as_ref().is_some_and(|n| n.value().contains(name)))
            .unwrap_or_else(|| panic!("no {name} facility in {facilities:#?}"))
    };
    assert_eq!(facilities.len(), 3, "{facilities:#?}");

    let sterling = by_name("Sterling Term");
    assert_eq!(sterling.facility_type.as_ref().map(|t| *t.value()), Some(FacilityType::TermLoan));
    let size = sterling.commitment.as_ref().map(|c| (c.value().value, c.value().currency.to_string()));
    assert_eq!(size, Some((dec("40000000"), "GBP".to_owned())), "the sub-tranche's (pound)10,000,000 is not its size");
    assert_eq!(sterling.spread.as_ref().map(|s| *s.value()), Some(dec("0.0225")));
    assert!(sterling.pricing_grid.is_empty(), "the grid prices all Loans other than Sterling Term Loans");
    assert_eq!(sterling.floating_rate_index.as_ref().map(|i| *i.value()), Some(FloatingRateIndex::GbpLibor));

    let us = by_name("U.S. Revolving");
    assert_eq!(us.commitment.as_ref().map(|c| c.value().value), Some(dec("150000000")));
    assert_eq!(us.spread.as_ref().map(|s| *s.value()), Some(dec("0.015")), "{:?}", extraction.warnings);
    assert_eq!(us.pricing_grid.len(), 3);
    assert_eq!(us.floating_rate_index.as_ref().map(|i| *i.value()), Some(FloatingRateIndex::UsdLibor));

    let canadian = by_name("Canadian Revolving");
    assert_eq!(canadian.commitment.as_ref().map(|c| c.value().currency.to_string()).as_deref(), Some("CAD"));
    assert_eq!(canadian.pricing_grid.len(), 3);
    // LIBOR is tied to dollars and sterling only; no Canadian benchmark is stated.
    assert_eq!(canadian.floating_rate_index, None);
}

#[test]
fn loans_available_only_in_sterling_and_priced_on_libor_alone_bear_sterling_libor() {
    let text = "THIS AGREEMENT is made on 4 May 2021:\n\n(1)\n\nFINCH HOLDINGS LIMITED (the \u{201c}Borrower\u{201d});\n\n(2)\n\nROOK BANK PLC as agent of the other Finance Parties (the \u{201c}Agent\u{201d}).\n\n1.\n\nTHE FACILITIES\n\n(a) the Lenders make available to the Borrower a term loan facility in an aggregate amount equal to the Total Facility A Commitments (the \u{201c}Facility A\u{201d}) available to be utilised in Sterling; and\n\n(b) the Lenders make available to the Borrower a term loan facility in an aggregate amount equal to the Total Facility B Commitments (the \u{201c}Facility B\u{201d}) available to be utilised in Sterling.\n\n2.\n\nINTEREST\n\nThe rate of interest on each Loan for its Interest Period is the aggregate of the Margin and LIBOR for that Interest Period.\n\n\u{201c}Margin\u{201d} means 2.75 per cent. per annum.\n\n\u{201c}Total Facility A Commitments\u{201d} means \u{a3}40,000,000.\n\n\u{201c}Total Facility B Commitments\u{201d} means \u{a3}10,000,000.\n\n3.\n\nGOVERNING LAW\n\nThis Agreement is governed by English law.\n";
    let indices = |text: &str| {
        extract_credit_agreement(text)
            .agreement
            .facilities
            .iter()
            .map(|f| value(&f.floating_rate_index))
            .collect::<Vec<_>>()
    };
    let found = indices(text);
    assert!(!found.is_empty() && found.iter().all(|i| *i == Some(FloatingRateIndex::GbpLibor)), "{found:?}");
    // Loans also available in dollars leave LIBOR's currency unsaid.
    let both = text.replacen("available to be utilised in Sterling;", "available to be utilised in Dollars;", 1);
    assert!(!indices(&both).contains(&Some(FloatingRateIndex::GbpLibor)), "{:?}", indices(&both));
    let either =
        text.replace("available to be utilised in Sterling", "available to be utilised in Sterling or in Dollars");
    assert!(!indices(&either).contains(&Some(FloatingRateIndex::GbpLibor)), "{:?}", indices(&either));
}
