//! Answers from the extracted agreement object (the `agreement` of `POST /api/extract` and of a
//! document version): parties by role, and per facility its commitment, margin (flat or by pricing
//! grid), benchmark, floor, commitment fee, maturity and currencies; the agreement's dates,
//! governing law and financial covenants.
//!
//! The object uses CDM attribute names: `agreementDate`, `legalAgreementIdentification.governingLaw`,
//! `parties[]` with `name` and `roles`, `facilities[]` with `commitment {value, currency}`,
//! `floatingRateIndex`, `indexTenor`, `spread`, `baseRateSpread`, `pricingGrid[]`, `floor`,
//! `commitmentFee`, `terminationDate`, and `financialCovenants[]`.

use rust_decimal::Decimal;
use serde_json::Value;

use super::source::{at, join};
use super::values::{
    and_list, decimal_of, format_amount, format_date, format_governing_law, format_money, format_period, format_rate,
    format_ratio, role_words, text_of,
};
use super::{AgreementField, DocumentAnswer, answer_from_sentences, sentences_per};
use crate::domain::quant::display::stated_amount;

struct PartyRef {
    name: String,
    roles: Vec<String>,
    lei: Option<String>,
    path: String,
}

fn parties(agreement: &Value, base: &str) -> Vec<PartyRef> {
    let Some(list) = agreement.get("parties").and_then(Value::as_array) else { return Vec::new() };
    let list_path = join(base, "parties");
    list.iter()
        .enumerate()
        .filter_map(|(i, party)| {
            let name = party.get("name").and_then(text_of)?;
            let roles = party
                .get("roles")
                .and_then(Value::as_array)
                .map(|roles| roles.iter().filter_map(text_of).collect())
                .unwrap_or_default();
            let lei = party.get("partyId").and_then(text_of);
            Some(PartyRef { name, roles, lei, path: at(&list_path, i) })
        })
        .collect()
}

fn parties_in(all: &[PartyRef], roles: &[&str]) -> Vec<(String, Vec<String>, String)> {
    all.iter()
        .filter_map(|party| {
            let matched: Vec<String> =
                party.roles.iter().filter(|role| roles.contains(&role.as_str())).map(|role| role_words(role)).collect();
            (!matched.is_empty()).then(|| (party.name.clone(), matched, party.path.clone()))
        })
        .collect()
}

fn cite_parties(found: &[(String, Vec<String>, String)]) -> Vec<String> {
    found.iter().flat_map(|(_, _, path)| [join(path, "name"), join(path, "roles")]).collect()
}

struct FacilityRef<'a> {
    value: &'a Value,
    label: String,
    path: String,
}

fn facilities<'a>(agreement: &'a Value, base: &str) -> Vec<FacilityRef<'a>> {
    let Some(list) = agreement.get("facilities").and_then(Value::as_array) else { return Vec::new() };
    let list_path = join(base, "facilities");
    list.iter()
        .enumerate()
        .map(|(i, facility)| {
            let label = facility
                .get("name")
                .and_then(text_of)
                .or_else(|| facility.get("facilityType").and_then(text_of).map(|t| role_words(&t)))
                .unwrap_or_else(|| format!("Facility {}", i + 1));
            FacilityRef { value: facility, label, path: at(&list_path, i) }
        })
        .collect()
}

/// A facility's pricing grid read for one rate (`spread`, `commitmentFee`): "by pricing grid:
/// Level I (< 2.00:1.00): 1.75% (175 bps); …", each level with its condition when `with_conditions`.
/// The path of every rate read is added to `paths`; `None` when no level states the rate.
fn pricing_grid(
    facility: &FacilityRef<'_>,
    rate_key: &str,
    with_conditions: bool,
    paths: &mut Vec<String>,
) -> Option<String> {
    let grid = facility.value.get("pricingGrid").and_then(Value::as_array)?;
    let grid_path = join(&facility.path, "pricingGrid");
    let levels: Vec<String> = grid
        .iter()
        .enumerate()
        .filter_map(|(j, level)| {
            let rate = level.get(rate_key).and_then(decimal_of)?;
            paths.push(join(&at(&grid_path, j), rate_key));
            let name = level.get("level").and_then(text_of).unwrap_or_else(|| format!("level {}", j + 1));
            let condition = if with_conditions { level.get("condition").and_then(text_of) } else { None };
            Some(match condition {
                Some(condition) => format!("{name} ({condition}): {}", format_rate(rate)),
                None => format!("{name}: {}", format_rate(rate)),
            })
        })
        .collect();
    (!levels.is_empty()).then(|| format!("by pricing grid: {}", levels.join("; ")))
}

pub(super) fn answer_agreement(field: AgreementField, agreement: &Value, base: &str) -> DocumentAnswer {
    let facilities = facilities(agreement, base);
    match field {
        AgreementField::Borrower => {
            let all = parties(agreement, base);
            let borrowers = parties_in(&all, &["Borrower"]);
            if borrowers.is_empty() {
                return DocumentAnswer::absent(field);
            }
            let names: Vec<String> = borrowers
                .iter()
                .map(|(name, _, path)| match all.iter().find(|p| &p.path == path).and_then(|p| p.lei.as_deref()) {
                    Some(lei) => format!("{name} (LEI {lei})"),
                    None => name.clone(),
                })
                .collect();
            let text = if names.len() == 1 {
                format!("The borrower is {}.", names[0])
            } else {
                format!("The borrowers are {}.", and_list(&names))
            };
            DocumentAnswer::found(text, cite_parties(&borrowers))
        }
        AgreementField::Lenders => {
            let all = parties(agreement, base);
            let lenders = parties_in(&all, &["Lender"]);
            if lenders.is_empty() {
                let agents = parties_in(&all, &["AdministrativeAgent", "FacilityAgent"]);
                return match agents.first() {
                    Some((agent, roles, _)) => DocumentAnswer::absent_because(format!(
                        "Not in the document: the agreement does not name the lenders individually; {agent} acts as {} for them.",
                        roles.join(" and ")
                    )),
                    None => DocumentAnswer::absent(field),
                };
            }
            let names: Vec<String> = lenders.iter().map(|(name, _, _)| name.clone()).collect();
            let text = if names.len() == 1 {
                format!("The lender named is {}.", names[0])
            } else {
                format!("The lenders named are {}.", and_list(&names))
            };
            DocumentAnswer::found(text, cite_parties(&lenders))
        }
        AgreementField::Agent => {
            let all = parties(agreement, base);
            let agents = parties_in(
                &all,
                &["AdministrativeAgent", "FacilityAgent", "CollateralAgent", "SyndicationAgent", "DocumentationAgent"],
            );
            if agents.is_empty() {
                return DocumentAnswer::absent(field);
            }
            let described: Vec<String> =
                agents.iter().map(|(name, roles, _)| format!("{name} ({})", roles.join(", "))).collect();
            let text = match described.as_slice() {
                [only] => format!("The agent is {only}."),
                _ => format!("The agents are {}.", and_list(&described)),
            };
            DocumentAnswer::found(text, cite_parties(&agents))
        }
        AgreementField::Guarantors => {
            let all = parties(agreement, base);
            let guarantors = parties_in(&all, &["Guarantor"]);
            if guarantors.is_empty() {
                return DocumentAnswer::absent(field);
            }
            let names: Vec<String> = guarantors.iter().map(|(name, _, _)| name.clone()).collect();
            DocumentAnswer::found(format!("Guarantors: {}.", and_list(&names)), cite_parties(&guarantors))
        }
        AgreementField::Parties => {
            let all = parties(agreement, base);
            if all.is_empty() {
                return DocumentAnswer::absent(field);
            }
            let described: Vec<String> = all
                .iter()
                .map(|p| {
                    let roles: Vec<String> = p.roles.iter().map(|r| role_words(r)).collect();
                    if roles.is_empty() { p.name.clone() } else { format!("{} ({})", p.name, roles.join(", ")) }
                })
                .collect();
            let cited = all.iter().flat_map(|p| [join(&p.path, "name"), join(&p.path, "roles")]).collect();
            DocumentAnswer::found(format!("The parties are {}.", and_list(&described)), cited)
        }
        AgreementField::FacilityAmount => {
            let mut totals: Vec<(String, Decimal)> = Vec::new();
            let (sentences, cited) = sentences_per(&facilities, |f| {
                let commitment = f.value.get("commitment")?;
                let text = format_money(commitment)?;
                Some((format!("{}: {text}.", f.label), vec![join(&f.path, "commitment")]))
            });
            for facility in &facilities {
                let Some(commitment) = facility.value.get("commitment") else { continue };
                let (Some(amount), Some(currency)) =
                    (commitment.get("value").and_then(decimal_of), commitment.get("currency").and_then(text_of))
                else {
                    continue;
                };
                match totals.iter_mut().find(|(c, _)| *c == currency) {
                    Some((_, total)) => *total = total.checked_add(amount).unwrap_or(Decimal::MAX),
                    None => totals.push((currency, amount)),
                }
            }
            let mut sentences = sentences;
            if sentences.len() > 1 && totals.len() == 1 {
                let (currency, total) = &totals[0];
                sentences.push(format!("Total commitments: {currency} {}.", format_amount(*total)));
            }
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Margin => {
            let (mut sentences, mut cited) = sentences_per(&facilities, |f| {
                let mut parts = Vec::new();
                let mut paths = Vec::new();
                let index = f.value.get("floatingRateIndex").and_then(text_of);
                if let Some(spread) = f.value.get("spread").and_then(decimal_of) {
                    let over = index.clone().unwrap_or_else(|| "the benchmark".to_owned());
                    parts.push(format!("{over} + {}", format_rate(spread)));
                    paths.push(join(&f.path, "spread"));
                    if index.is_some() {
                        paths.push(join(&f.path, "floatingRateIndex"));
                    }
                }
                if let Some(spread) = f.value.get("baseRateSpread").and_then(decimal_of) {
                    parts.push(format!("base rate + {}", format_rate(spread)));
                    paths.push(join(&f.path, "baseRateSpread"));
                }
                if let Some(grid) = pricing_grid(f, "spread", true, &mut paths) {
                    parts.push(grid);
                }
                (!parts.is_empty()).then(|| (format!("{}: {}.", f.label, parts.join("; ")), paths))
            });
            let adjustment = agreement.get("sustainabilityLinked").and_then(|s| s.get("marginAdjustment"));
            if let Some(rate) = adjustment.and_then(decimal_of) {
                sentences.push(format!("Sustainability-linked margin adjustment: {}.", format_rate(rate)));
                cited.push(join(&join(base, "sustainabilityLinked"), "marginAdjustment"));
            }
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::FloatingRateIndex => {
            let (sentences, cited) = sentences_per(&facilities, |f| {
                let index = f.value.get("floatingRateIndex").and_then(text_of)?;
                let mut paths = vec![join(&f.path, "floatingRateIndex")];
                let tenor = f.value.get("indexTenor").and_then(format_period);
                if tenor.is_some() {
                    paths.push(join(&f.path, "indexTenor"));
                }
                let sentence = match tenor {
                    Some(tenor) => format!("{}: {index} ({tenor}).", f.label),
                    None => format!("{}: {index}.", f.label),
                };
                Some((sentence, paths))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Floor => {
            let (sentences, cited) = sentences_per(&facilities, |f| {
                let floor = f.value.get("floor").and_then(decimal_of)?;
                Some((
                    format!("{}: the benchmark is floored at {}.", f.label, format_rate(floor)),
                    vec![join(&f.path, "floor")],
                ))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::CommitmentFee => {
            let (sentences, cited) = sentences_per(&facilities, |f| {
                let mut parts = Vec::new();
                let mut paths = Vec::new();
                if let Some(fee) = f.value.get("commitmentFee") {
                    if let Some(rate) = fee.get("rate").and_then(decimal_of) {
                        parts.push(format!("{} per annum on undrawn commitments", format_rate(rate)));
                    } else if let Some(share) = fee.get("percentageOfMargin").and_then(decimal_of) {
                        let percent = share.checked_mul(Decimal::ONE_HUNDRED).unwrap_or(share).normalize();
                        parts.push(format!("{percent}% of the applicable margin on undrawn commitments"));
                    }
                    if !parts.is_empty() {
                        paths.push(join(&f.path, "commitmentFee"));
                    }
                }
                if let Some(grid) = pricing_grid(f, "commitmentFee", false, &mut paths) {
                    parts.push(grid);
                }
                (!parts.is_empty()).then(|| (format!("{}: {}.", f.label, parts.join("; ")), paths))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Maturity => {
            let (sentences, cited) = sentences_per(&facilities, |f| {
                let date = f.value.get("terminationDate").and_then(text_of)?;
                Some((
                    format!("{} matures on {}.", f.label, format_date(&date)),
                    vec![join(&f.path, "terminationDate")],
                ))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::AgreementDate => match agreement.get("agreementDate").and_then(text_of) {
            Some(date) => DocumentAnswer::found(
                format!("The agreement is dated {}.", format_date(&date)),
                vec![join(base, "agreementDate")],
            ),
            None => DocumentAnswer::absent(field),
        },
        AgreementField::EffectiveDate => match agreement.get("effectiveDate").and_then(text_of) {
            Some(date) => DocumentAnswer::found(
                format!("The effective date is {}.", format_date(&date)),
                vec![join(base, "effectiveDate")],
            ),
            None => DocumentAnswer::absent(field),
        },
        AgreementField::GoverningLaw => {
            let law = agreement.get("legalAgreementIdentification").and_then(|id| id.get("governingLaw"));
            match law.and_then(text_of) {
                Some(code) => DocumentAnswer::found(
                    format_governing_law(&code),
                    vec![join(&join(base, "legalAgreementIdentification"), "governingLaw")],
                ),
                None => DocumentAnswer::absent(field),
            }
        }
        AgreementField::Currency => {
            let (sentences, cited) = sentences_per(&facilities, |f| {
                let currency = f.value.get("commitment").and_then(|c| c.get("currency")).and_then(text_of)?;
                let mut paths = vec![join(&join(&f.path, "commitment"), "currency")];
                let optional: Vec<String> = f
                    .value
                    .get("optionalCurrencies")
                    .and_then(Value::as_array)
                    .map(|list| list.iter().filter_map(text_of).collect())
                    .unwrap_or_default();
                let sentence = if optional.is_empty() {
                    format!("{}: {currency}.", f.label)
                } else {
                    paths.push(join(&f.path, "optionalCurrencies"));
                    format!("{}: {currency}, also available in {}.", f.label, and_list(&optional))
                };
                Some((sentence, paths))
            });
            answer_from_sentences(field, sentences, cited)
        }
        AgreementField::Covenants => {
            let Some(covenants) = agreement.get("financialCovenants").and_then(Value::as_array) else {
                return DocumentAnswer::absent(field);
            };
            let list_path = join(base, "financialCovenants");
            let mut sentences = Vec::new();
            let mut cited = Vec::new();
            for (i, covenant) in covenants.iter().enumerate() {
                let kind = covenant.get("covenantType").and_then(text_of).unwrap_or_default();
                let Some(metric) =
                    covenant.get("metric").and_then(text_of).or_else(|| (!kind.is_empty()).then(|| role_words(&kind)))
                else {
                    continue;
                };
                let test = if kind.starts_with("Maximum") { "must not exceed" } else { "must be at least" };
                // Levels in force one after another read as a schedule; a level that applies only
                // when something happens is said with its condition, never as a next step.
                let (mut levels, mut conditional) = (Vec::new(), Vec::new());
                for level in covenant.get("levels").and_then(Value::as_array).into_iter().flatten() {
                    // A covenant on an amount states its levels in its currency; a ratio as "4.50:1.00".
                    let currency = covenant.get("currency").and_then(text_of);
                    let figure = |value: Decimal| match &currency {
                        Some(code) => stated_amount(value, Some(code)),
                        None => format_ratio(value),
                    };
                    let Some(threshold) = level.get("threshold").and_then(decimal_of).map(figure) else {
                        continue;
                    };
                    match (level.get("condition").and_then(text_of), level.get("period").and_then(text_of)) {
                        (Some(condition), _) => conditional.push(format!("{threshold} instead ({condition})")),
                        (None, Some(period)) => levels.push(format!("{threshold} ({period})")),
                        (None, None) => levels.push(threshold),
                    }
                }
                if levels.is_empty() && conditional.is_empty() {
                    sentences.push(format!("{metric} covenant (level not stated)."));
                } else if levels.is_empty() {
                    sentences.push(format!("{metric} {test} {}.", conditional.join("; or ")));
                } else if conditional.is_empty() {
                    sentences.push(format!("{metric} {test} {}.", levels.join(", then ")));
                } else {
                    sentences.push(format!("{metric} {test} {}; {}.", levels.join(", then "), conditional.join("; ")));
                }
                cited.push(at(&list_path, i));
            }
            answer_from_sentences(field, sentences, cited)
        }
    }
}
