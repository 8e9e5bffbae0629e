//! Answers from the CDM `WorkflowStep` proposing the `ContractFormation`: the legal agreement's
//! date and governing law, and per execution its parties (`Party1` the borrower, `Party2` the agent
//! or sole lender), quantity, prices (spread `Add`, floor `Max`), index and termination date.
//! Covenants, fees, guarantors and an effective date have no place in that event, so they are
//! reported as not in the document.

use rust_decimal::Decimal;
use serde_json::Value;

use super::source::{at, join};
use super::values::{
    and_list, decimal_of, format_date, format_governing_law, format_money, format_period, format_rate, text_of,
};
use super::{AgreementField, DocumentAnswer, answer_from_sentences, sentences_per};

struct Trade<'a> {
    execution: Option<&'a Value>,
    execution_path: String,
    legal_agreement: Option<(&'a Value, String)>,
}

fn trades<'a>(step: &'a Value, base: &str) -> Vec<Trade<'a>> {
    let event_path = join(base, "proposedEvent");
    let instructions_path = join(&event_path, "instruction");
    let Some(instructions) = step.get("proposedEvent").and_then(|e| e.get("instruction")).and_then(Value::as_array)
    else {
        return Vec::new();
    };
    instructions
        .iter()
        .enumerate()
        .map(|(i, instruction)| {
            let primitive_path = join(&at(&instructions_path, i), "primitiveInstruction");
            let primitive = instruction.get("primitiveInstruction");
            let execution = primitive.and_then(|p| p.get("execution"));
            let legal_agreement = primitive
                .and_then(|p| p.get("contractFormation"))
                .and_then(|c| c.get("legalAgreement"))
                .and_then(|l| l.get(0))
                .map(|l| (l, at(&join(&join(&primitive_path, "contractFormation"), "legalAgreement"), 0)));
            Trade { execution, execution_path: join(&primitive_path, "execution"), legal_agreement }
        })
        .collect()
}

/// The party playing `role` (Party1, Party2) in an execution, with its path.
fn counterparty(execution: &Value, execution_path: &str, role: &str) -> Option<(String, String)> {
    let parties = execution.get("parties").and_then(Value::as_array)?;
    let reference = execution
        .get("counterparty")
        .and_then(Value::as_array)
        .and_then(|list| list.iter().find(|c| c.get("role").and_then(Value::as_str) == Some(role)))
        .and_then(|c| c.get("partyReference"))
        .and_then(|r| r.get("@ref:external").or_else(|| r.get("globalReference")))
        .and_then(Value::as_str);
    let position = reference
        .and_then(|key| parties.iter().position(|p| p.get("@key:external").and_then(Value::as_str) == Some(key)))
        .or(match role {
            "Party1" => Some(0),
            "Party2" => Some(1),
            _ => None,
        })?;
    let party = parties.get(position)?;
    let path = at(&join(execution_path, "parties"), position);
    let name = party.get("name").and_then(text_of).map(|name| (name, join(&path, "name"))).or_else(|| {
        party
            .get("partyId")
            .and_then(|ids| ids.get(0))
            .and_then(|id| id.get("identifier"))
            .and_then(text_of)
            .map(|id| (id, join(&path, "partyId")))
    })?;
    Some(name)
}

/// Every price of an execution whose `arithmeticOperator` is `operator` (`Add`: spread, `Max`:
/// floor), with its path.
fn prices(execution: &Value, execution_path: &str, operator: &str) -> Vec<(Decimal, String)> {
    let Some(blocks) = execution.get("priceQuantity").and_then(Value::as_array) else { return Vec::new() };
    let mut found = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        let Some(prices) = block.get("price").and_then(Value::as_array) else { continue };
        for (k, price) in prices.iter().enumerate() {
            if price.get("arithmeticOperator").and_then(Value::as_str) == Some(operator)
                && let Some(value) = price.get("value").and_then(decimal_of)
            {
                let path = join(&at(&join(&at(&join(execution_path, "priceQuantity"), j), "price"), k), "value");
                found.push((value, path));
            }
        }
    }
    found
}

fn quantity(execution: &Value, execution_path: &str) -> Option<(String, String)> {
    let schedule = execution
        .get("product")?
        .get("economicTerms")?
        .get("payout")?
        .get(0)?
        .get("InterestRatePayout")?
        .get("priceQuantity")?
        .get("quantitySchedule")?;
    let path =
        join(execution_path, "product.economicTerms.payout[0].InterestRatePayout.priceQuantity.quantitySchedule");
    Some((format_money(schedule)?, path))
}

fn step_index(execution: &Value, execution_path: &str) -> Option<(String, String)> {
    let blocks = execution.get("priceQuantity").and_then(Value::as_array)?;
    blocks.iter().enumerate().find_map(|(j, block)| {
        let index = block.get("observable")?.get("Index")?.get("InterestRateIndex")?.get("FloatingRateIndex")?;
        let name = index.get("floatingRateIndex").and_then(text_of)?;
        let tenor = index.get("indexTenor").and_then(format_period);
        let path = join(
            &at(&join(execution_path, "priceQuantity"), j),
            "observable.Index.InterestRateIndex.FloatingRateIndex.floatingRateIndex",
        );
        Some((tenor.map_or(name.clone(), |tenor| format!("{name} ({tenor})")), path))
    })
}

pub(super) fn answer_step(field: AgreementField, step: &Value, base: &str) -> DocumentAnswer {
    let trades = trades(step, base);
    let executions: Vec<(usize, &Value, &str)> = trades
        .iter()
        .enumerate()
        .filter_map(|(i, trade)| trade.execution.map(|e| (i, e, trade.execution_path.as_str())))
        .collect();
    let label = |i: usize| if executions.len() > 1 { format!("Facility {}", i + 1) } else { "The facility".to_owned() };
    let legal_agreement = trades.iter().find_map(|trade| trade.legal_agreement.as_ref());
    let not_in_event = |what: &str| {
        DocumentAnswer::absent_because(format!(
            "Not in the document: the CDM contract formation does not carry {what}, and no extracted agreement was given."
        ))
    };
    match field {
        AgreementField::AgreementDate => match legal_agreement {
            Some((agreement, path)) => match agreement.get("agreementDate").and_then(text_of) {
                Some(date) => DocumentAnswer::found(
                    format!("The agreement is dated {}.", format_date(&date)),
                    vec![join(path, "agreementDate")],
                ),
                None => DocumentAnswer::absent(field),
            },
            None => DocumentAnswer::absent(field),
        },
        AgreementField::GoverningLaw => {
            let law = legal_agreement.and_then(|(agreement, path)| {
                let code = agreement.get("legalAgreementIdentification")?.get("governingLaw").and_then(text_of)?;
                Some((code, join(path, "legalAgreementIdentification.governingLaw")))
            });
            match law {
                Some((code, path)) => DocumentAnswer::found(format_governing_law(&code), vec![path]),
                None => DocumentAnswer::absent(field),
            }
        }
        AgreementField::Borrower => match executions.first().and_then(|(_, e, p)| counterparty(e, p, "Party1")) {
            Some((name, path)) => DocumentAnswer::found(
                format!("The borrower (CDM counterparty Party1, the payer of interest) is {name}."),
                vec![path],
            ),
            None => DocumentAnswer::absent(field),
        },
        AgreementField::Agent | AgreementField::Lenders => {
            match executions.first().and_then(|(_, e, p)| counterparty(e, p, "Party2")) {
                Some((name, path)) => DocumentAnswer::found(
                    format!(
                        "{name} is CDM counterparty Party2, the agent or sole lender; the contract formation does not list individual lenders."
                    ),
                    vec![path],
                ),
                None => DocumentAnswer::absent(field),
            }
        }
        AgreementField::Parties => {
            let Some((_, execution, path)) = executions.first() else { return DocumentAnswer::absent(field) };
            let named: Vec<(String, String, &str)> = [("Party1", "borrower"), ("Party2", "agent or lender")]
                .into_iter()
                .filter_map(|(role, words)| counterparty(execution, path, role).map(|(n, p)| (n, p, words)))
                .collect();
            if named.is_empty() {
                return DocumentAnswer::absent(field);
            }
            let described: Vec<String> = named.iter().map(|(name, _, words)| format!("{name} ({words})")).collect();
            let cited = named.into_iter().map(|(_, path, _)| path).collect();
            DocumentAnswer::found(format!("The parties are {}.", and_list(&described)), cited)
        }
        AgreementField::FacilityAmount | AgreementField::Currency => {
            let (sentences, cited) = sentences_per(&executions, |(i, execution, path)| {
                let (amount, path) = quantity(execution, path)?;
                Some((format!("{}: {amount}.", label(*i)), vec![path]))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Margin | AgreementField::Floor => {
            let operator = if field == AgreementField::Margin { "Add" } else { "Max" };
            let mut sentences = Vec::new();
            let mut cited = Vec::new();
            for (i, execution, path) in &executions {
                for (rate, rate_path) in prices(execution, path, operator) {
                    let sentence = if field == AgreementField::Margin {
                        let index = step_index(execution, path);
                        let over = index.as_ref().map_or("the benchmark".to_owned(), |(name, _)| name.clone());
                        if let Some((_, index_path)) = index {
                            cited.push(index_path);
                        }
                        format!("{}: {over} + {}.", label(*i), format_rate(rate))
                    } else {
                        format!("{}: the benchmark is floored at {}.", label(*i), format_rate(rate))
                    };
                    sentences.push(sentence);
                    cited.push(rate_path);
                }
            }
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::FloatingRateIndex => {
            let (sentences, cited) = sentences_per(&executions, |(i, execution, path)| {
                let (index, index_path) = step_index(execution, path)?;
                Some((format!("{}: {index}.", label(*i)), vec![index_path]))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Maturity => {
            let (sentences, cited) = sentences_per(&executions, |(i, execution, path)| {
                let date = execution
                    .get("product")
                    .and_then(|p| p.get("economicTerms"))
                    .and_then(|t| t.get("terminationDate"))
                    .and_then(|d| d.get("adjustableDate").and_then(|a| a.get("unadjustedDate")).or(Some(d)))
                    .and_then(text_of)?;
                Some((
                    format!("{} matures on {}.", label(*i), format_date(&date)),
                    vec![join(path, "product.economicTerms.terminationDate")],
                ))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Covenants => not_in_event("financial covenants"),
        AgreementField::CommitmentFee => not_in_event("fees"),
        AgreementField::Guarantors => not_in_event("guarantors"),
        AgreementField::EffectiveDate => not_in_event("an effective date"),
    }
}
