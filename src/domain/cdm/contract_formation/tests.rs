//! Agreements turned into ContractFormation steps: the shapes CDM requires, checked value by value.

use super::*;
use crate::domain::cdm::check_envelope;
use crate::domain::cdm::test_support::{context, record};
use std::str::FromStr;
use time::macros::date;

const BORROWER_LEI: &str = "5493001KJTIIGC8Y1R12";
const AGENT_LEI: &str = "7LTWFZYICNSX8D621K86";

fn decimal(text: &str) -> Decimal {
    Decimal::from_str(text).expect("test decimal")
}

fn amount(value: &str, currency: &str) -> Option<CdmAmount> {
    Some(CdmAmount { value: decimal(value), currency: currency.to_owned() })
}

fn term_loan() -> CdmFacility {
    CdmFacility {
        name: "Term Loan B".into(),
        commitment: amount("250000000.00", "USD"),
        floating_rate_index: Some("USD-SOFR CME Term".into()),
        index_tenor: Some(CdmTenor { multiplier: 3, unit: TenorUnit::Month }),
        spread: Some(decimal("0.0275")),
        floor: None,
        fixed_rate: None,
        termination_date: Some(date!(2031 - 11 - 20)),
    }
}

fn bare_facility(name: &str) -> CdmFacility {
    CdmFacility {
        name: name.into(),
        commitment: None,
        floating_rate_index: None,
        index_tenor: None,
        spread: None,
        floor: None,
        fixed_rate: None,
        termination_date: None,
    }
}

fn full_agreement() -> ContractFormation {
    ContractFormation {
        trade_identifier: "CA-2026-0001".into(),
        trade_date: Some(date!(2026 - 11 - 20)),
        agreement_date: Some(date!(2026 - 11 - 20)),
        agreement_name: "Credit Agreement".into(),
        governing_law: Some("USNY".into()),
        borrower: CdmParty { name: "Acme Borrower Inc.".into(), lei: Some(BORROWER_LEI.into()) },
        agent_or_lender: Some(CdmParty { name: "Example Bank N.A.".into(), lei: Some(AGENT_LEI.into()) }),
        facilities: vec![term_loan()],
        summary: "Senior secured term loan facility".into(),
    }
}

fn instructions(event: &Value) -> &[Value] {
    event["proposedEvent"]["instruction"].as_array().map(Vec::as_slice).unwrap_or_default()
}

fn execution_of(instruction: &Value) -> &Value {
    &instruction["primitiveInstruction"]["execution"]
}

fn payout_of(instruction: &Value) -> &Value {
    &execution_of(instruction)["product"]["economicTerms"]["payout"][0]["InterestRatePayout"]
}

/// Builds, checks and records the event; returns it for further assertions.
fn formed(seed: u128, agreement: &ContractFormation) -> Value {
    let event = contract_formation_step(&context(seed), agreement);
    assert_eq!(check_envelope(&event), Ok(()));
    record(&event);
    event
}

#[test]
fn a_full_agreement_is_written_like_the_reference_example() {
    let agreement = full_agreement();
    let event = formed(0xcf_0001, &agreement);

    assert_eq!(agreement.cdm_gaps(), []);
    assert_eq!(event["proposedEvent"]["intent"], "ContractFormation");
    assert_eq!(event["proposedEvent"]["eventDate"], "2026-11-20");
    let instructions = instructions(&event);
    assert_eq!(instructions.len(), 1);
    let execution = execution_of(&instructions[0]);
    assert_eq!(execution["parties"][0]["@key:external"], "party-borrower");
    assert_eq!(
        execution["parties"][0]["partyId"][0],
        json!({ "identifier": { "@data": BORROWER_LEI }, "identifierType": "LEI" })
    );
    assert_eq!(execution["tradeIdentifier"][0]["assignedIdentifier"][0]["identifier"]["@data"], "CA-2026-0001");
    assert_eq!(
        execution["product"]["economicTerms"]["terminationDate"]["adjustableDate"]["unadjustedDate"],
        "2031-11-20"
    );
    let payout = payout_of(&instructions[0]);
    assert_eq!(payout["priceQuantity"]["quantitySchedule"]["value"], json!(250_000_000));
    assert_eq!(
        payout["rateSpecification"]["FloatingRateSpecification"]["rateOption"],
        json!({ "@ref:scoped": "index-1" })
    );
    let spread = &execution["priceQuantity"][0]["price"][0];
    assert_eq!((spread["value"].to_string(), &spread["arithmeticOperator"]), ("0.0275".to_owned(), &json!("Add")));
    let index = &execution["priceQuantity"][0]["observable"]["Index"]["InterestRateIndex"]["FloatingRateIndex"];
    assert_eq!(index["indexTenor"], json!({ "periodMultiplier": 3, "period": "M" }));
    let legal_agreement = &instructions[0]["primitiveInstruction"]["contractFormation"]["legalAgreement"][0];
    assert_eq!(legal_agreement["legalAgreementIdentification"]["governingLaw"], "USNY");
    assert_eq!(
        legal_agreement["agreementTerms"]["agreement"]["transactionAdditionalTerms"]["creditAdditionalTerms"],
        "Senior secured term loan facility"
    );
}

#[test]
fn a_minimal_agreement_keeps_what_it_states_and_omits_the_rest() {
    let agreement = ContractFormation {
        trade_identifier: "doc-17".into(),
        trade_date: None,
        agreement_date: Some(date!(2025 - 03 - 14)),
        agreement_name: " ".into(),
        governing_law: None,
        borrower: CdmParty { name: "Small Borrower Ltd".into(), lei: None },
        agent_or_lender: Some(CdmParty { name: "Lender Bank plc".into(), lei: None }),
        facilities: vec![CdmFacility {
            commitment: amount("5000000", "gbp"),
            spread: Some(decimal("0.035")),
            ..bare_facility("Revolving Facility")
        }],
        summary: String::new(),
    };
    let event = formed(0xcf_0002, &agreement);

    assert_eq!(agreement.cdm_gaps(), []);
    let instruction = &instructions(&event)[0];
    let execution = execution_of(instruction);
    assert_eq!(execution["tradeDate"]["@data"], "2025-03-14", "the agreement date stands in for the trade date");
    assert!(execution["product"]["economicTerms"].get("terminationDate").is_none());
    assert_eq!(payout_of(instruction)["priceQuantity"]["quantitySchedule"]["unit"]["currency"]["@data"], "GBP");
    let specification = &payout_of(instruction)["rateSpecification"]["FloatingRateSpecification"];
    assert!(specification.get("rateOption").is_none());
    assert_eq!(specification["spreadSchedule"]["price"], json!({ "@ref:scoped": "spread-1" }));
    let legal_agreement = &instruction["primitiveInstruction"]["contractFormation"]["legalAgreement"][0];
    assert_eq!(legal_agreement["legalAgreementIdentification"]["agreementName"]["otherAgreement"], "Credit Agreement");
    assert!(legal_agreement["legalAgreementIdentification"].get("governingLaw").is_none());
    assert_eq!(legal_agreement["agreementTerms"]["agreement"]["transactionAdditionalTerms"], json!({}));
}

#[test]
fn two_facilities_in_two_currencies_are_two_trades_sharing_the_parties() {
    let agreement = ContractFormation {
        facilities: vec![
            term_loan(),
            CdmFacility {
                commitment: amount("100000000.5", "EUR"),
                floating_rate_index: Some("EUR-EURIBOR".into()),
                index_tenor: Some(CdmTenor { multiplier: 6, unit: TenorUnit::Month }),
                spread: Some(decimal("0.03")),
                termination_date: Some(date!(2030 - 06 - 30)),
                ..bare_facility("Euro Term Facility")
            },
        ],
        ..full_agreement()
    };
    let event = formed(0xcf_0003, &agreement);

    assert_eq!(agreement.cdm_gaps(), []);
    let instructions = instructions(&event);
    assert_eq!(instructions.len(), 2);
    let identifiers: Vec<&Value> =
        instructions
            .iter()
            .map(|instruction| {
                &execution_of(instruction)["tradeIdentifier"][0]["assignedIdentifier"][0]["identifier"]["@data"]
            })
            .collect();
    assert_eq!(identifiers, [&json!("CA-2026-0001/1"), &json!("CA-2026-0001/2")]);
    let second = execution_of(&instructions[1]);
    assert!(second["parties"][0].get("@key:external").is_none(), "the first trade defines the keys");
    assert_eq!(second["counterparty"][0]["partyReference"], json!({ "@ref:external": "party-borrower" }));
    assert_eq!(second["priceQuantity"][0]["price"][0]["@key:scoped"], "spread-2");
    assert_eq!(second["priceQuantity"][0]["price"][0]["unit"]["currency"]["@data"], "EUR");
    assert_eq!(payout_of(&instructions[1])["priceQuantity"]["quantitySchedule"]["value"].to_string(), "100000000.5");
    assert!(
        instructions.iter().all(|instruction| instruction["primitiveInstruction"].get("contractFormation").is_some())
    );
}

#[test]
fn parties_without_lei_are_identified_by_name() {
    let agreement = ContractFormation {
        borrower: CdmParty { name: "Acme Borrower Inc.".into(), lei: None },
        agent_or_lender: Some(CdmParty { name: "Example Bank N.A.".into(), lei: Some("  ".into()) }),
        ..full_agreement()
    };
    let event = formed(0xcf_0004, &agreement);

    assert_eq!(agreement.cdm_gaps(), []);
    let parties = &execution_of(&instructions(&event)[0])["parties"];
    assert_eq!(
        parties[1]["partyId"],
        json!([{ "identifier": { "@data": "Example Bank N.A.", "@scheme": "urn:creditflow:party-name" } }])
    );
    assert_eq!(parties[1]["name"]["@data"], "Example Bank N.A.");
}

#[test]
fn a_misread_lei_is_not_published_and_the_party_falls_back_to_its_name() {
    let agreement = ContractFormation {
        borrower: CdmParty { name: "Acme Borrower Inc.".into(), lei: Some("5493001KJTIIGC8Y1R13".into()) },
        ..full_agreement()
    };
    let event = formed(0xcf_0005, &agreement);

    assert_eq!(
        agreement.cdm_gaps(),
        [CdmGap::InvalidLei { party: "Acme Borrower Inc.".into(), lei: "5493001KJTIIGC8Y1R13".into() }]
    );
    assert_eq!(
        execution_of(&instructions(&event)[0])["parties"][0]["partyId"][0]["identifier"]["@data"],
        "Acme Borrower Inc."
    );
}

#[test]
fn a_floor_is_its_own_price_referenced_by_the_floor_schedule() {
    let agreement = ContractFormation {
        facilities: vec![CdmFacility { floor: Some(decimal("0.005")), ..term_loan() }],
        ..full_agreement()
    };
    let event = formed(0xcf_0006, &agreement);

    let instruction = &instructions(&event)[0];
    let specification = &payout_of(instruction)["rateSpecification"]["FloatingRateSpecification"];
    assert_eq!(specification["floorRateSchedule"]["price"], json!({ "@ref:scoped": "floor-1" }));
    let floor = &execution_of(instruction)["priceQuantity"][1]["price"][0];
    assert_eq!((floor["value"].to_string(), &floor["arithmeticOperator"]), ("0.005".to_owned(), &json!("Max")));
    assert_eq!(execution_of(instruction)["priceQuantity"][0]["price"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_zero_floor_is_a_floor() {
    let agreement = ContractFormation {
        facilities: vec![CdmFacility { floor: Some(Decimal::ZERO), ..term_loan() }],
        ..full_agreement()
    };
    let event = formed(0xcf_0007, &agreement);
    assert_eq!(execution_of(&instructions(&event)[0])["priceQuantity"][1]["price"][0]["value"], json!(0));
}

#[test]
fn without_a_floating_rate_a_fixed_facility_is_written_and_one_without_any_rate_is_left_out() {
    let agreement = ContractFormation {
        facilities: vec![
            CdmFacility {
                commitment: amount("75000000", "USD"),
                fixed_rate: Some(decimal("0.0625")),
                termination_date: Some(date!(2029 - 12 - 31)),
                ..bare_facility("Fixed Rate Notes")
            },
            CdmFacility { commitment: amount("10000000", "USD"), ..bare_facility("Letter of Credit Facility") },
        ],
        ..full_agreement()
    };
    let event = formed(0xcf_0008, &agreement);

    assert_eq!(
        agreement.cdm_gaps(),
        [CdmGap::FacilityLeftOut {
            facility: "Letter of Credit Facility".into(),
            reason: "no interest rate (no index, spread, floor or fixed rate)".into(),
        }]
    );
    let instructions = instructions(&event);
    assert_eq!(instructions.len(), 1);
    assert_eq!(
        payout_of(&instructions[0])["rateSpecification"],
        json!({ "FixedRateSpecification": { "rateSchedule": { "price": { "@ref:scoped": "rate-1" } } } })
    );
    let rate = &execution_of(&instructions[0])["priceQuantity"][0]["price"][0];
    assert_eq!(rate["value"].to_string(), "0.0625");
    assert!(rate.get("arithmeticOperator").is_none());
}

#[test]
fn a_floating_facility_of_unknown_index_keeps_its_commitment() {
    let agreement = ContractFormation {
        facilities: vec![CdmFacility {
            commitment: amount("20000000", "SGD"),
            floating_rate_index: Some("SORA".into()),
            index_tenor: Some(CdmTenor { multiplier: 3, unit: TenorUnit::Month }),
            ..bare_facility("SGD Facility")
        }],
        governing_law: Some("SG".into()),
        ..full_agreement()
    };
    let event = formed(0xcf_0009, &agreement);

    assert_eq!(
        agreement.cdm_gaps(),
        [
            CdmGap::FacilityAttributeLeftOut {
                facility: "SGD Facility".into(),
                attribute: "floatingRateIndex",
                value: "SORA".into()
            },
            CdmGap::FacilityAttributeLeftOut {
                facility: "SGD Facility".into(),
                attribute: "indexTenor",
                value: "3M".into()
            },
            CdmGap::UnknownGoverningLaw("SG".into()),
        ]
    );
    let execution = execution_of(&instructions(&event)[0]);
    assert_eq!(execution["priceQuantity"][0]["quantity"]["value"], json!(20_000_000));
}

#[test]
fn a_spread_given_in_basis_points_is_left_out_rather_than_misread() {
    let agreement = ContractFormation {
        facilities: vec![CdmFacility { spread: Some(decimal("275")), ..term_loan() }],
        ..full_agreement()
    };
    let event = formed(0xcf_000a, &agreement);

    assert_eq!(
        agreement.cdm_gaps(),
        [CdmGap::FacilityAttributeLeftOut { facility: "Term Loan B".into(), attribute: "spread", value: "275".into() }]
    );
    let specification = &payout_of(&instructions(&event)[0])["rateSpecification"]["FloatingRateSpecification"];
    assert!(specification.get("spreadSchedule").is_none());
    assert!(specification.get("rateOption").is_some());
}

#[test]
fn without_an_agreement_date_the_trade_is_written_without_a_legal_agreement() {
    let agreement = ContractFormation { agreement_date: None, ..full_agreement() };
    let event = formed(0xcf_000b, &agreement);

    assert_eq!(agreement.cdm_gaps(), [CdmGap::MissingAgreementDate]);
    let instruction = &instructions(&event)[0];
    assert!(instruction["primitiveInstruction"].get("contractFormation").is_none());
    assert_eq!(execution_of(instruction)["tradeDate"]["@data"], "2026-11-20");
}

#[test]
fn facilities_without_commitment_or_in_a_bad_currency_are_left_out() {
    let agreement = ContractFormation {
        facilities: vec![
            CdmFacility { commitment: None, ..term_loan() },
            CdmFacility { commitment: amount("1000", "US$"), ..term_loan() },
            CdmFacility { commitment: amount("-1000", "USD"), ..term_loan() },
            term_loan(),
        ],
        ..full_agreement()
    };
    let event = formed(0xcf_000c, &agreement);

    assert_eq!(agreement.cdm_gaps().len(), 3);
    let instructions = instructions(&event);
    assert_eq!(instructions.len(), 1);
    let execution = execution_of(&instructions[0]);
    assert_eq!(execution["tradeIdentifier"][0]["assignedIdentifier"][0]["identifier"]["@data"], "CA-2026-0001/4");
    assert_eq!(execution["parties"][0]["@key:external"], "party-borrower", "the first written trade defines the keys");
}

#[test]
fn an_agreement_with_one_party_and_no_facility_has_no_instruction() {
    let agreement =
        ContractFormation { trade_date: None, agent_or_lender: None, facilities: Vec::new(), ..full_agreement() };
    let event = formed(0xcf_000d, &agreement);

    assert_eq!(agreement.cdm_gaps(), [CdmGap::MissingCounterparty, CdmGap::NoFacility, CdmGap::NoInstruction]);
    assert!(event["proposedEvent"].get("instruction").is_none());
    assert_eq!(event["proposedEvent"]["eventDate"], "2026-11-20");
}

#[test]
fn an_agreement_without_any_date_or_identity_is_dated_by_the_event() {
    let agreement = ContractFormation {
        trade_identifier: "  ".into(),
        trade_date: None,
        agreement_date: None,
        borrower: CdmParty { name: String::new(), lei: None },
        ..full_agreement()
    };
    let event = formed(0xcf_000e, &agreement);

    assert_eq!(
        agreement.cdm_gaps(),
        [
            CdmGap::UnidentifiedParty { role: "borrower" },
            CdmGap::MissingTradeDate,
            CdmGap::MissingTradeIdentifier,
            CdmGap::MissingAgreementDate,
            CdmGap::NoInstruction,
        ]
    );
    assert_eq!(event["proposedEvent"]["eventDate"], "2026-11-22");
    assert!(agreement.cdm_gaps().iter().all(|gap| !gap.to_string().is_empty()));
}
