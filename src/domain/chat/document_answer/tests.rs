//! Answers read from each shape of agreement data: the extracted agreement (bare, wrapped, or a
//! document's latest version), the CDM contract-formation step, and anything else searched by key.

use super::*;
use serde_json::json;

/// An agreement as `POST /api/extract` serialises it (decimals as strings, dates ISO 8601).
fn agreement() -> Value {
    json!({
        "agreementName": "CREDIT AGREEMENT",
        "agreementDate": "2024-03-15",
        "legalAgreementIdentification": { "governingLaw": "USNY" },
        "parties": [
            { "name": "ACME INDUSTRIAL HOLDINGS, INC.", "roles": ["Borrower"], "partyId": "5493001KJTIIGC8Y1R12" },
            { "name": "FIRST NATIONAL BANK", "roles": ["AdministrativeAgent", "Lender"] },
            { "name": "SECOND STATE BANK", "roles": ["Lender"] },
            { "name": "ACME SUBSIDIARY LLC", "roles": ["Guarantor"] }
        ],
        "facilities": [
            {
                "name": "Term Loan B",
                "facilityType": "TermLoanB",
                "commitment": { "value": "250000000", "currency": "USD" },
                "floatingRateIndex": "USD-SOFR CME Term",
                "indexTenor": { "periodMultiplier": 3, "period": "M" },
                "spread": "0.0275",
                "floor": "0.005",
                "terminationDate": "2031-11-20"
            },
            {
                "name": "Revolving Credit Facility",
                "facilityType": "RevolvingCredit",
                "commitment": { "value": "100000000", "currency": "USD" },
                "optionalCurrencies": ["EUR", "GBP"],
                "floatingRateIndex": "USD-SOFR CME Term",
                "pricingGrid": [
                    { "level": "Level I", "condition": "< 2.00:1.00", "spread": "0.0175", "commitmentFee": "0.0025" },
                    { "level": "Level II", "condition": ">= 2.00:1.00", "spread": "0.02", "commitmentFee": "0.00375" }
                ],
                "commitmentFee": { "percentageOfMargin": "0.35" },
                "terminationDate": "2029-11-20"
            }
        ],
        "financialCovenants": [
            {
                "covenantType": "MaximumLeverageRatio",
                "metric": "Consolidated Total Net Leverage Ratio",
                "levels": [ { "threshold": "4.5", "period": "through June 30, 2025" }, { "threshold": "4.25" } ]
            },
            { "covenantType": "MinimumInterestCoverageRatio", "metric": "Interest Coverage Ratio", "levels": [ { "threshold": "3" } ] }
        ],
        "provenance": {}
    })
}

fn answer(field: AgreementField) -> DocumentAnswer {
    answer_from_agreement(field, &agreement())
}

#[test]
fn the_margin_is_given_in_percent_and_basis_points_with_its_paths() {
    let margin = answer(AgreementField::Margin);
    assert!(margin.found);
    assert!(margin.text.contains("Term Loan B: USD-SOFR CME Term + 2.75% (275 bps)."), "{}", margin.text);
    assert!(
        margin.text.contains("Level I (< 2.00:1.00): 1.75% (175 bps); Level II (>= 2.00:1.00): 2% (200 bps)"),
        "{}",
        margin.text
    );
    assert!(margin.cited_fields.contains(&"facilities[0].spread".to_owned()));
    assert!(margin.cited_fields.contains(&"facilities[1].pricingGrid[1].spread".to_owned()));
}

#[test]
fn parties_are_read_by_role() {
    let borrower = answer(AgreementField::Borrower);
    assert_eq!(borrower.text, "The borrower is ACME INDUSTRIAL HOLDINGS, INC. (LEI 5493001KJTIIGC8Y1R12).");
    assert_eq!(borrower.cited_fields, vec!["parties[0].name", "parties[0].roles"]);
    assert_eq!(
        answer(AgreementField::Lenders).text,
        "The lenders named are FIRST NATIONAL BANK and SECOND STATE BANK."
    );
    assert_eq!(answer(AgreementField::Agent).text, "The agent is FIRST NATIONAL BANK (administrative agent).");
    assert_eq!(answer(AgreementField::Guarantors).text, "Guarantors: ACME SUBSIDIARY LLC.");
    assert!(answer(AgreementField::Parties).text.contains("FIRST NATIONAL BANK (administrative agent, lender)"));
}

#[test]
fn amounts_dates_law_and_covenants_are_written_for_people() {
    assert_eq!(
        answer(AgreementField::FacilityAmount).text,
        "Term Loan B: USD 250 m. Revolving Credit Facility: USD 100 m. Total commitments: USD 350 m."
    );
    assert_eq!(answer(AgreementField::AgreementDate).text, "The agreement is dated 15 March 2024.");
    assert_eq!(answer(AgreementField::AgreementDate).cited_fields, vec!["agreementDate"]);
    let law = answer(AgreementField::GoverningLaw);
    assert_eq!(law.text, "The agreement is governed by New York law (USNY).");
    assert_eq!(law.cited_fields, vec!["legalAgreementIdentification.governingLaw"]);
    assert_eq!(
        answer(AgreementField::Maturity).text,
        "Term Loan B matures on 20 November 2031. Revolving Credit Facility matures on 20 November 2029."
    );
    assert_eq!(
        answer(AgreementField::Covenants).text,
        "Consolidated Total Net Leverage Ratio must not exceed 4.50:1.00 (through June 30, 2025), then 4.25:1.00. Interest Coverage Ratio must be at least 3.00:1.00."
    );
    let conditional = json!({ "financialCovenants": [ { "covenantType": "MaximumLeverageRatio",
        "metric": "Leverage Ratio", "levels": [ { "threshold": "0.60" },
        { "threshold": "0.65", "condition": "for four quarters in the event of a Major Acquisition" } ] } ] });
    assert_eq!(
        answer_from_agreement(AgreementField::Covenants, &conditional).text,
        "Leverage Ratio must not exceed 0.60:1.00; 0.65:1.00 instead (for four quarters in the event of a Major \
         Acquisition).",
        "a conditional level is not the next step of a schedule"
    );
    let on_amounts = json!({ "financialCovenants": [ { "covenantType": "MinimumLiquidity", "metric": "Liquidity",
        "currency": "USD", "levels": [ { "threshold": "25000000" } ] } ] });
    assert_eq!(
        answer_from_agreement(AgreementField::Covenants, &on_amounts).text,
        "Liquidity must be at least USD 25 m.",
        "a covenant on an amount states it in its currency, not as a ratio"
    );
    assert_eq!(answer(AgreementField::Floor).text, "Term Loan B: the benchmark is floored at 0.5% (50 bps).");
    assert_eq!(answer(AgreementField::FloatingRateIndex).cited_fields[1], "facilities[0].indexTenor");
    assert!(answer(AgreementField::Currency).text.contains("USD, also available in EUR and GBP"));
    assert!(answer(AgreementField::CommitmentFee).text.contains("35% of the applicable margin"));
}

#[test]
fn what_the_agreement_does_not_state_is_not_in_the_document() {
    let bare = json!({ "parties": [], "facilities": [] , "legalAgreementIdentification": {} });
    for field in
        [AgreementField::GoverningLaw, AgreementField::Margin, AgreementField::Covenants, AgreementField::Borrower]
    {
        let answer = answer_from_agreement(field, &bare);
        assert!(!answer.found);
        assert!(answer.text.starts_with("Not in the document"), "{}", answer.text);
        assert!(answer.cited_fields.is_empty());
    }
    assert!(!answer(AgreementField::EffectiveDate).found);
    assert!(!answer_from_agreement(AgreementField::Margin, &Value::Null).found);
}

#[test]
fn a_wrapped_agreement_is_cited_from_the_object_given() {
    let wrapped = json!({ "status": "success", "agreement": agreement(), "cdm_events": [] });
    let margin = answer_from_agreement(AgreementField::Margin, &wrapped);
    assert!(margin.cited_fields.contains(&"agreement.facilities[0].spread".to_owned()));
    let document = json!({ "document_id": 7, "versions": [
        { "version": 1, "agreement": { "agreementDate": "2023-01-01" } },
        { "version": 2, "agreement": agreement() }
    ]});
    let date = answer_from_agreement(AgreementField::AgreementDate, &document);
    assert_eq!(date.cited_fields, vec!["versions[1].agreement.agreementDate"]);
}

fn contract_formation_step() -> Value {
    json!({
        "proposedEvent": {
            "intent": "ContractFormation",
            "eventDate": "2024-03-15",
            "instruction": [{ "primitiveInstruction": {
                "execution": {
                    "product": { "economicTerms": {
                        "terminationDate": { "adjustableDate": { "unadjustedDate": "2031-11-20" } },
                        "payout": [{ "InterestRatePayout": {
                            "payerReceiver": { "payer": "Party1", "receiver": "Party2" },
                            "priceQuantity": { "quantitySchedule": { "value": 250000000, "unit": { "currency": { "@data": "USD" } } } }
                        } }]
                    } },
                    "priceQuantity": [
                        {
                            "price": [{ "value": 0.0275, "priceType": "InterestRate", "arithmeticOperator": "Add", "@key:scoped": "spread-1" }],
                            "observable": { "Index": { "InterestRateIndex": { "FloatingRateIndex": {
                                "floatingRateIndex": "USD-SOFR CME Term",
                                "indexTenor": { "periodMultiplier": 3, "period": "M" }
                            } } } }
                        },
                        { "price": [{ "value": 0.005, "priceType": "InterestRate", "arithmeticOperator": "Max" }] }
                    ],
                    "counterparty": [
                        { "role": "Party1", "partyReference": { "@ref:external": "party-borrower" } },
                        { "role": "Party2", "partyReference": { "@ref:external": "party-agent" } }
                    ],
                    "parties": [
                        { "@key:external": "party-agent", "partyId": [{ "identifier": { "@data": "FIRST NATIONAL BANK" } }], "name": { "@data": "FIRST NATIONAL BANK" } },
                        { "@key:external": "party-borrower", "partyId": [{ "identifier": { "@data": "5493001KJTIIGC8Y1R12" } }], "name": { "@data": "ACME INDUSTRIAL HOLDINGS, INC." } }
                    ]
                },
                "contractFormation": { "legalAgreement": [{
                    "agreementDate": "2024-03-15",
                    "legalAgreementIdentification": { "governingLaw": "GBEN", "agreementName": { "agreementType": "Other", "otherAgreement": "Credit Agreement" } }
                }] }
            } }]
        }
    })
}

#[test]
fn the_contract_formation_step_is_read_where_cdm_puts_each_term() {
    let step = contract_formation_step();
    let date = answer_from_agreement(AgreementField::AgreementDate, &step);
    assert_eq!(date.text, "The agreement is dated 15 March 2024.");
    assert_eq!(
        date.cited_fields,
        vec!["proposedEvent.instruction[0].primitiveInstruction.contractFormation.legalAgreement[0].agreementDate"]
    );
    assert_eq!(
        answer_from_agreement(AgreementField::GoverningLaw, &step).text,
        "The agreement is governed by English law (GBEN)."
    );
    let borrower = answer_from_agreement(AgreementField::Borrower, &step);
    assert!(borrower.text.contains("ACME INDUSTRIAL HOLDINGS, INC."), "{}", borrower.text);
    assert_eq!(
        borrower.cited_fields,
        vec!["proposedEvent.instruction[0].primitiveInstruction.execution.parties[1].name"]
    );
    assert!(
        answer_from_agreement(AgreementField::Agent, &step)
            .text
            .starts_with("FIRST NATIONAL BANK is CDM counterparty Party2")
    );
    assert_eq!(
        answer_from_agreement(AgreementField::Margin, &step).text,
        "The facility: USD-SOFR CME Term (3M) + 2.75% (275 bps)."
    );
    assert_eq!(
        answer_from_agreement(AgreementField::Floor, &step).text,
        "The facility: the benchmark is floored at 0.5% (50 bps)."
    );
    assert_eq!(answer_from_agreement(AgreementField::FacilityAmount, &step).text, "The facility: USD 250 m.");
    assert_eq!(
        answer_from_agreement(AgreementField::Maturity, &step).text,
        "The facility matures on 20 November 2031."
    );
    let covenants = answer_from_agreement(AgreementField::Covenants, &step);
    assert!(!covenants.found && covenants.text.starts_with("Not in the document"));
}

#[test]
fn a_step_inside_the_cdm_events_of_a_response_is_found() {
    let response =
        json!({ "cdm_events": [ { "proposedEvent": { "intent": "Other" }, "x": 1 }, contract_formation_step() ] });
    // The first event is not a contract formation (no instruction); the second is.
    let first_is_not = json!({ "cdm_events": [ { "other": true }, contract_formation_step() ] });
    let date = answer_from_agreement(AgreementField::AgreementDate, &first_is_not);
    assert!(date.cited_fields[0].starts_with("cdm_events[1].proposedEvent"), "{:?}", date.cited_fields);
    assert!(answer_from_agreement(AgreementField::GoverningLaw, &response).found);
}

#[test]
fn an_unknown_shape_is_searched_by_key() {
    let odd = json!({ "deal": { "terms": { "governing_law": "GBEN", "maturity_date": "2030-01-31" } } });
    let law = answer_from_agreement(AgreementField::GoverningLaw, &odd);
    assert_eq!(law.text, "The agreement is governed by English law (GBEN).");
    assert_eq!(law.cited_fields, vec!["deal.terms.governing_law"]);
    assert_eq!(answer_from_agreement(AgreementField::Maturity, &odd).text, "Maturity date: 31 January 2030.");
    assert!(!answer_from_agreement(AgreementField::Covenants, &odd).found);
}

#[test]
fn absurd_values_are_answered_without_panicking() {
    let odd = json!({ "facilities": [
        { "spread": "1e28", "floor": -5, "commitment": { "value": "79228162514264337593543950335", "currency": "USD" } },
        { "commitment": { "value": "79228162514264337593543950335", "currency": "USD" }, "terminationDate": "2031-13-40" },
        { "commitment": "lots", "spread": { "nested": true }, "pricingGrid": "none" }
    ], "parties": "nobody", "financialCovenants": [ {} ] });
    for field in [
        AgreementField::Margin,
        AgreementField::Floor,
        AgreementField::FacilityAmount,
        AgreementField::Maturity,
        AgreementField::Parties,
        AgreementField::Covenants,
        AgreementField::Currency,
    ] {
        let _ = answer_from_agreement(field, &odd);
    }
    assert_eq!(answer_from_agreement(AgreementField::Maturity, &odd).text, "Facility 2 matures on 2031-13-40.");
}
