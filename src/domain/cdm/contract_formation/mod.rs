//! An extracted credit agreement as a CDM proposed `ContractFormation`: each facility a trade (an
//! `execution` with one `InterestRatePayout`) formed under the credit agreement (`contractFormation`
//! with its `legalAgreement`).
//!
//! What CDM requires and the text may not state is described on [`ContractFormation`].

use std::fmt;

use rust_decimal::Decimal;
use serde_json::{Value, json};
use time::Date;

use super::vocabulary::{exact_json_number, iso_currency, iso_date};
use super::{EventContext, ISSUER, cdm_floating_rate_index, cdm_governing_law, is_valid_lei};

/// Scheme of a `partyId` that is the party's name, for parties without a (valid) LEI.
const PARTY_NAME_SCHEME: &str = "urn:creditflow:party-name";
/// `@key:external` of the borrower (counterparty `Party1`).
const BORROWER_KEY: &str = "party-borrower";
/// `@key:external` of the agent or sole lender (counterparty `Party2`).
const AGENT_KEY: &str = "party-agent";
/// The agreement type when the input names none: this module writes credit agreements.
const DEFAULT_AGREEMENT_NAME: &str = "Credit Agreement";

/// A party to the agreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdmParty {
    /// The legal name as the agreement states it.
    pub name: String,
    /// The ISO 17442 Legal Entity Identifier, when known.
    pub lei: Option<String>,
}

/// An amount of money.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdmAmount {
    /// The amount in units of the currency (250,000,000.00).
    pub value: Decimal,
    /// ISO 4217 code (`"USD"`).
    pub currency: String,
}

/// The unit of an index tenor (CDM `PeriodEnum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TenorUnit {
    /// `D`
    Day,
    /// `W`
    Week,
    /// `M`
    Month,
    /// `Y`
    Year,
}

impl TenorUnit {
    /// The unit of code `D`, `W`, `M` or `Y` (either case).
    pub fn from_code(code: char) -> Option<Self> {
        match code.to_ascii_uppercase() {
            'D' => Some(TenorUnit::Day),
            'W' => Some(TenorUnit::Week),
            'M' => Some(TenorUnit::Month),
            'Y' => Some(TenorUnit::Year),
            _ => None,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            TenorUnit::Day => "D",
            TenorUnit::Week => "W",
            TenorUnit::Month => "M",
            TenorUnit::Year => "Y",
        }
    }
}

/// The tenor of a floating-rate index: 3 months is `{ multiplier: 3, unit: Month }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CdmTenor {
    /// How many units (CDM `periodMultiplier`).
    pub multiplier: u32,
    /// Which unit (CDM `period`).
    pub unit: TenorUnit,
}

/// One facility (tranche) of the agreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdmFacility {
    /// How the agreement calls it ("Term Loan A"). CDM has no place for it; it names the facility in
    /// [`CdmGap`]s.
    pub name: String,
    /// The commitment.
    pub commitment: Option<CdmAmount>,
    /// CDM display name of the index ("USD-SOFR CME Term", "GBP-SONIA", "EUR-EURIBOR").
    pub floating_rate_index: Option<String>,
    /// The tenor of the index (3 months for "3-month Term SOFR").
    pub index_tenor: Option<CdmTenor>,
    /// The margin over the index, as a decimal: 2.75 % is 0.0275.
    pub spread: Option<Decimal>,
    /// The floor of the index, as a decimal.
    pub floor: Option<Decimal>,
    /// The rate of a fixed-rate facility, as a decimal; ignored when the facility is floating.
    pub fixed_rate: Option<Decimal>,
    /// Maturity.
    pub termination_date: Option<Date>,
}

/// An extracted credit agreement, as far as CDM can hold it. What CDM has no place for (lender
/// lists, arrangers, covenants, pricing grids, fees, provenance) does not belong here.
///
/// CDM is strict about what a formed contract must state, and the text of an agreement does not
/// always state it. Whatever CDM requires and the input lacks is left out, never made up; what was
/// left out and why is listed by [`ContractFormation::cdm_gaps`]. The rules follow the model, except
/// the checks of LEIs, currencies and rate magnitudes, which keep misread values out of the event:
///
/// - A trade (`execution`) needs two identified parties (borrower and agent or sole lender), a trade
///   date (the agreement date when no separate trade date is given), a trade identifier and at least
///   one facility that can be written. Without them the event has no instruction at all: CDM forms a
///   contract only from an execution (or from an existing trade, which an extraction does not have),
///   so the legal agreement is left out as well.
/// - A party is identified by its LEI when it passes the ISO 17442 check digits, otherwise by its
///   name (`partyId` with scheme `urn:creditflow:party-name`); CDM requires a `partyId`.
/// - A facility is written only with a commitment (CDM's `InterestRatePayout` requires its quantity),
///   in an ISO 4217 currency, not negative, and with an interest rate: floating when an index, a
///   spread or a floor is given, fixed when only a fixed rate is; otherwise the facility is left out.
/// - A floating-rate index is written only under its CDM name (see
///   [`cdm_floating_rate_index`](super::cdm_floating_rate_index)), its tenor only with the index.
///   Spreads, floors and fixed rates are decimals (2.75 % = 0.0275) and must lie within -1..=1; a
///   value outside is taken for a unit mistake (basis points, per cent) and left out.
/// - Two `InterestRatePayout`s in one product make CDM read a swap and require day-count fractions
///   and payment dates, so each facility is its own instruction (its own trade); the trades of an
///   agreement with several facilities are identified `<trade identifier>/<facility position>`. The
///   parties are defined (with `@key:external`) in the first trade and referred to everywhere else;
///   CDM requires the `parties` of every execution, so later trades repeat them without key.
/// - The legal agreement needs its agreement date (CDM forms contracts only with executed
///   agreements) and is then attached to every trade; the governing law is written only when it is a
///   CDM `GoverningLawEnum` jurisdiction.
/// - A floor is a price of its own `priceQuantity` (`arithmeticOperator` `Max`): CDM refuses a
///   second price beside the spread in the index's block.
/// - A floating rate whose index, spread and floor were all left out has no price, so its trade's
///   `priceQuantity` holds the commitment instead (CDM requires one).
/// - A blank agreement name is written "Credit Agreement"; a blank summary leaves the one election
///   CDM requires (`transactionAdditionalTerms`) empty. The event is dated by the trade date.
/// - CDM has no place for facility names; they only name facilities in [`CdmGap`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractFormation {
    /// Our identifier of the agreement (for example the document's), the trade identifier.
    pub trade_identifier: String,
    /// The trade date, when the text states one apart from the agreement date.
    pub trade_date: Option<Date>,
    /// The date of the agreement.
    pub agreement_date: Option<Date>,
    /// The agreement's name ("Credit Agreement", "Facilities Agreement"); blank means "Credit Agreement".
    pub agreement_name: String,
    /// A CDM `GoverningLawEnum` code ("USNY", "GBEN").
    pub governing_law: Option<String>,
    /// Counterparty `Party1`, payer of the interest.
    pub borrower: CdmParty,
    /// Counterparty `Party2`: the administrative agent, or the lender when there is only one.
    pub agent_or_lender: Option<CdmParty>,
    /// The facilities (tranches), in the order of the agreement.
    pub facilities: Vec<CdmFacility>,
    /// A free-text summary of the agreement (`creditAdditionalTerms`).
    pub summary: String,
}

/// Something of the agreement that the CDM event leaves out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CdmGap {
    /// No agent or lender: CDM trades and legal agreements have exactly two parties.
    MissingCounterparty,
    /// The party has neither a valid LEI nor a name.
    UnidentifiedParty { role: &'static str },
    /// The LEI fails the ISO 17442 check; the party is identified by its name instead.
    InvalidLei { party: String, lei: String },
    /// Neither a trade date nor an agreement date (in years 1..=9999).
    MissingTradeDate,
    /// The trade identifier is blank.
    MissingTradeIdentifier,
    /// No facility could be written (none given, or all left out).
    NoFacility,
    /// A facility is left out entirely.
    FacilityLeftOut { facility: String, reason: String },
    /// One attribute of a written facility is left out.
    FacilityAttributeLeftOut { facility: String, attribute: &'static str, value: String },
    /// No agreement date: CDM forms contracts only with executed (dated) agreements.
    MissingAgreementDate,
    /// The governing law is not a CDM `GoverningLawEnum` jurisdiction.
    UnknownGoverningLaw(String),
    /// Because of the gaps above the event carries no trade and no legal agreement.
    NoInstruction,
}

impl fmt::Display for CdmGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CdmGap::MissingCounterparty => f.write_str("no agent or lender: CDM needs two parties"),
            CdmGap::UnidentifiedParty { role } => write!(f, "the {role} has neither a valid LEI nor a name"),
            CdmGap::InvalidLei { party, lei } => {
                write!(f, "the LEI '{lei}' of {party} fails its check digits; the party is identified by name")
            }
            CdmGap::MissingTradeDate => f.write_str("neither a trade date nor an agreement date"),
            CdmGap::MissingTradeIdentifier => f.write_str("no trade identifier"),
            CdmGap::NoFacility => f.write_str("no facility with a commitment and an interest rate"),
            CdmGap::FacilityLeftOut { facility, reason } => write!(f, "facility '{facility}' left out: {reason}"),
            CdmGap::FacilityAttributeLeftOut { facility, attribute, value } => {
                write!(f, "{attribute} '{value}' of facility '{facility}' left out: CDM cannot hold it as given")
            }
            CdmGap::MissingAgreementDate => f.write_str("no agreement date: the legal agreement is left out"),
            CdmGap::UnknownGoverningLaw(law) => write!(f, "governing law '{law}' is not a CDM jurisdiction"),
            CdmGap::NoInstruction => f.write_str("the event carries neither the trades nor the legal agreement"),
        }
    }
}

impl ContractFormation {
    /// What [`contract_formation_step`] leaves out of this agreement, in the order of the input.
    pub fn cdm_gaps(&self) -> Vec<CdmGap> {
        Plan::of(self).gaps
    }
}

/// The `WorkflowStep` proposing the formation of `agreement`: a `proposedEvent` with intent
/// `ContractFormation`, dated by the trade date (the event's own date when there is none), with one
/// instruction per facility that can be written. The rules for what is left out are on
/// [`ContractFormation`]; [`ContractFormation::cdm_gaps`] lists what was.
pub fn contract_formation_step(context: &EventContext, agreement: &ContractFormation) -> Value {
    let plan = Plan::of(agreement);
    let event_date = plan.trade_date.clone().unwrap_or_else(|| context.event_date().to_owned());
    let mut proposed_event = serde_json::Map::new();
    proposed_event.insert("intent".into(), json!("ContractFormation"));
    proposed_event.insert("eventDate".into(), json!(event_date));
    let instructions = plan.instructions();
    if !instructions.is_empty() {
        proposed_event.insert("instruction".into(), Value::Array(instructions));
    }
    let mut event = context.envelope();
    event.insert("proposedEvent".into(), Value::Object(proposed_event));
    Value::Object(event)
}

/// What will be written, decided once for both the event and its gaps.
struct Plan {
    parties: Option<[PartyPlan; 2]>,
    trade_date: Option<String>,
    trade_identifier: Option<String>,
    /// More than one facility in the input: trade identifiers get the facility's position.
    several_facilities: bool,
    facilities: Vec<FacilityPlan>,
    legal_agreement: Option<LegalAgreementPlan>,
    gaps: Vec<CdmGap>,
}

struct PartyPlan {
    key: &'static str,
    party_id: PartyId,
    name: Option<String>,
}

/// How a party is identified in its `partyId` (CDM requires one).
enum PartyId {
    Lei(String),
    Name(String),
}

struct FacilityPlan {
    /// 1-based position in the input, stable whatever else is left out: scopes the keys.
    position: usize,
    commitment: Value,
    currency: String,
    rate: RatePlan,
    termination_date: Option<String>,
}

enum RatePlan {
    Floating { index: Option<&'static str>, tenor: Option<CdmTenor>, spread: Option<Value>, floor: Option<Value> },
    Fixed { rate: Value },
}

struct LegalAgreementPlan {
    agreement_date: String,
    governing_law: Option<&'static str>,
    name: String,
    summary: Option<String>,
}

/// Trims `text`; `None` when nothing is left.
fn non_blank(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// A rate as a JSON number when it is a plausible decimal rate (within -1..=1) that JSON holds exactly.
fn decimal_rate(rate: Decimal) -> Option<Value> {
    (rate.abs() <= Decimal::ONE).then(|| exact_json_number(rate)).flatten()
}

impl Plan {
    fn of(agreement: &ContractFormation) -> Plan {
        let mut gaps = Vec::new();

        let borrower = party_plan(&agreement.borrower, BORROWER_KEY, "borrower", &mut gaps);
        let agent = match &agreement.agent_or_lender {
            Some(party) => party_plan(party, AGENT_KEY, "agent or lender", &mut gaps),
            None => {
                gaps.push(CdmGap::MissingCounterparty);
                None
            }
        };
        let parties = borrower.zip(agent).map(|(borrower, agent)| [borrower, agent]);

        let trade_date =
            agreement.trade_date.and_then(iso_date).or_else(|| agreement.agreement_date.and_then(iso_date));
        if trade_date.is_none() {
            gaps.push(CdmGap::MissingTradeDate);
        }
        let trade_identifier = non_blank(&agreement.trade_identifier);
        if trade_identifier.is_none() {
            gaps.push(CdmGap::MissingTradeIdentifier);
        }

        let facilities: Vec<FacilityPlan> = agreement
            .facilities
            .iter()
            .enumerate()
            .filter_map(|(index, facility)| facility_plan(index + 1, facility, &mut gaps))
            .collect();
        if facilities.is_empty() {
            gaps.push(CdmGap::NoFacility);
        }

        let agreement_date = agreement.agreement_date.and_then(iso_date);
        if agreement_date.is_none() {
            gaps.push(CdmGap::MissingAgreementDate);
        }
        let governing_law = agreement.governing_law.as_deref().and_then(non_blank).and_then(|law| {
            let known = cdm_governing_law(&law);
            if known.is_none() {
                gaps.push(CdmGap::UnknownGoverningLaw(law));
            }
            known
        });
        let legal_agreement = agreement_date.map(|agreement_date| LegalAgreementPlan {
            agreement_date,
            governing_law,
            name: non_blank(&agreement.agreement_name).unwrap_or_else(|| DEFAULT_AGREEMENT_NAME.to_owned()),
            summary: non_blank(&agreement.summary),
        });

        let writable =
            parties.is_some() && trade_date.is_some() && trade_identifier.is_some() && !facilities.is_empty();
        if !writable {
            gaps.push(CdmGap::NoInstruction);
        }
        Plan {
            parties,
            trade_date,
            trade_identifier,
            several_facilities: agreement.facilities.len() > 1,
            facilities,
            legal_agreement,
            gaps,
        }
    }

    /// One instruction per facility, or none when a trade cannot be written.
    fn instructions(&self) -> Vec<Value> {
        let (Some(parties), Some(trade_date), Some(trade_identifier)) =
            (&self.parties, &self.trade_date, &self.trade_identifier)
        else {
            return Vec::new();
        };
        self.facilities
            .iter()
            .enumerate()
            .map(|(written, facility)| {
                // The first trade defines the parties' external keys; a key may be defined once.
                let define_keys = written == 0;
                let trade_identifier = if self.several_facilities {
                    format!("{trade_identifier}/{}", facility.position)
                } else {
                    trade_identifier.clone()
                };
                let mut primitive = serde_json::Map::new();
                primitive.insert(
                    "execution".into(),
                    execution(facility, parties, define_keys, trade_date, &trade_identifier),
                );
                if let Some(legal_agreement) = &self.legal_agreement {
                    primitive.insert(
                        "contractFormation".into(),
                        json!({ "legalAgreement": [legal_agreement.to_cdm(parties)] }),
                    );
                }
                json!({ "primitiveInstruction": primitive })
            })
            .collect()
    }
}

fn party_plan(party: &CdmParty, key: &'static str, role: &'static str, gaps: &mut Vec<CdmGap>) -> Option<PartyPlan> {
    let name = non_blank(&party.name);
    let lei = party.lei.as_deref().and_then(non_blank).and_then(|lei| {
        let upper = lei.to_ascii_uppercase();
        if is_valid_lei(&upper) {
            Some(upper)
        } else {
            gaps.push(CdmGap::InvalidLei { party: name.clone().unwrap_or_else(|| role.to_owned()), lei });
            None
        }
    });
    let party_id = match (lei, &name) {
        (Some(lei), _) => PartyId::Lei(lei),
        (None, Some(name)) => PartyId::Name(name.clone()),
        (None, None) => {
            gaps.push(CdmGap::UnidentifiedParty { role });
            return None;
        }
    };
    Some(PartyPlan { key, party_id, name })
}

fn facility_plan(position: usize, facility: &CdmFacility, gaps: &mut Vec<CdmGap>) -> Option<FacilityPlan> {
    let label = non_blank(&facility.name).unwrap_or_else(|| format!("facility {position}"));
    let left_out = |gaps: &mut Vec<CdmGap>, reason: String| {
        gaps.push(CdmGap::FacilityLeftOut { facility: label.clone(), reason });
        None
    };
    let attribute_left_out = |gaps: &mut Vec<CdmGap>, attribute: &'static str, value: String| {
        gaps.push(CdmGap::FacilityAttributeLeftOut { facility: label.clone(), attribute, value });
    };

    let Some(commitment) = &facility.commitment else {
        return left_out(gaps, "no commitment".to_owned());
    };
    let Some(currency) = iso_currency(&commitment.currency) else {
        return left_out(gaps, format!("'{}' is not an ISO 4217 currency", commitment.currency));
    };
    let amount = (!commitment.value.is_sign_negative()).then(|| exact_json_number(commitment.value)).flatten();
    let Some(amount) = amount else {
        return left_out(gaps, format!("the commitment {} cannot be written exactly", commitment.value));
    };

    let index_name = facility.floating_rate_index.as_deref().and_then(non_blank);
    let floating = index_name.is_some() || facility.spread.is_some() || facility.floor.is_some();
    let rate = if floating {
        let index = index_name.and_then(|name| {
            let known = cdm_floating_rate_index(&name);
            if known.is_none() {
                attribute_left_out(gaps, "floatingRateIndex", name);
            }
            known
        });
        let tenor = facility.index_tenor.filter(|tenor| {
            // The tenor describes the index; CDM allows a zero multiplier only in days.
            let usable = index.is_some() && (tenor.multiplier > 0 || tenor.unit == TenorUnit::Day);
            if !usable {
                attribute_left_out(gaps, "indexTenor", format!("{}{}", tenor.multiplier, tenor.unit.code()));
            }
            usable
        });
        let mut rate_value = |attribute: &'static str, rate: Option<Decimal>| {
            rate.and_then(|rate| {
                let value = decimal_rate(rate);
                if value.is_none() {
                    attribute_left_out(gaps, attribute, rate.to_string());
                }
                value
            })
        };
        let spread = rate_value("spread", facility.spread);
        let floor = rate_value("floor", facility.floor);
        if let Some(fixed_rate) = facility.fixed_rate {
            attribute_left_out(gaps, "fixedRate", fixed_rate.to_string());
        }
        RatePlan::Floating { index, tenor, spread, floor }
    } else if let Some(fixed_rate) = facility.fixed_rate {
        let Some(rate) = decimal_rate(fixed_rate) else {
            return left_out(gaps, format!("the fixed rate {fixed_rate} is not a decimal rate"));
        };
        RatePlan::Fixed { rate }
    } else {
        return left_out(gaps, "no interest rate (no index, spread, floor or fixed rate)".to_owned());
    };

    let termination_date = facility.termination_date.and_then(|date| {
        let written = iso_date(date);
        if written.is_none() {
            attribute_left_out(gaps, "terminationDate", date.to_string());
        }
        written
    });
    Some(FacilityPlan { position, commitment: amount, currency, rate, termination_date })
}

/// `Party1` (borrower) and `Party2` (agent or lender), by reference.
fn counterparties(parties: &[PartyPlan; 2]) -> Value {
    json!([
        { "role": "Party1", "partyReference": { "@ref:external": parties[0].key } },
        { "role": "Party2", "partyReference": { "@ref:external": parties[1].key } },
    ])
}

impl PartyPlan {
    fn to_cdm(&self, define_key: bool) -> Value {
        let party_id = match &self.party_id {
            PartyId::Lei(lei) => json!({ "identifier": { "@data": lei }, "identifierType": "LEI" }),
            PartyId::Name(name) => json!({ "identifier": { "@data": name, "@scheme": PARTY_NAME_SCHEME } }),
        };
        let mut party = serde_json::Map::new();
        if define_key {
            party.insert("@key:external".into(), json!(self.key));
        }
        party.insert("partyId".into(), json!([party_id]));
        if let Some(name) = &self.name {
            party.insert("name".into(), json!({ "@data": name }));
        }
        Value::Object(party)
    }
}

/// A price of a facility's rate: per unit of the commitment's currency, as CDM wants interest rates.
fn interest_rate_price(value: &Value, currency: &str, operator: Option<&str>, key: &str) -> Value {
    let mut price = serde_json::Map::new();
    price.insert("value".into(), value.clone());
    price.insert("unit".into(), json!({ "currency": { "@data": currency } }));
    price.insert("perUnitOf".into(), json!({ "currency": { "@data": currency } }));
    price.insert("priceType".into(), json!("InterestRate"));
    if let Some(operator) = operator {
        price.insert("arithmeticOperator".into(), json!(operator));
    }
    price.insert("@key:scoped".into(), json!(key));
    Value::Object(price)
}

impl FacilityPlan {
    /// The `InterestRatePayout`'s rate and the `priceQuantity` blocks its references point to.
    fn rate_and_prices(&self) -> (Value, Vec<Value>) {
        let n = self.position;
        let currency = self.currency.as_str();
        match &self.rate {
            RatePlan::Floating { index, tenor, spread, floor } => {
                let mut specification = serde_json::Map::new();
                let mut blocks = Vec::new();
                let mut index_block = serde_json::Map::new();
                if let Some(spread) = spread {
                    let key = format!("spread-{n}");
                    index_block
                        .insert("price".into(), json!([interest_rate_price(spread, currency, Some("Add"), &key)]));
                    specification.insert("spreadSchedule".into(), json!({ "price": { "@ref:scoped": key } }));
                }
                if let Some(index) = index {
                    let key = format!("index-{n}");
                    let mut floating_rate_index = serde_json::Map::new();
                    floating_rate_index.insert(
                        "identifier".into(),
                        json!([{ "identifier": { "@data": index }, "identifierType": "Other" }]),
                    );
                    floating_rate_index.insert("assetType".into(), json!("Other"));
                    floating_rate_index.insert("assetClass".into(), json!("InterestRate"));
                    floating_rate_index.insert("floatingRateIndex".into(), json!(index));
                    if let Some(tenor) = tenor {
                        floating_rate_index.insert(
                            "indexTenor".into(),
                            json!({ "periodMultiplier": tenor.multiplier, "period": tenor.unit.code() }),
                        );
                    }
                    index_block.insert(
                        "observable".into(),
                        json!({ "Index": { "InterestRateIndex": {
                            "FloatingRateIndex": floating_rate_index,
                            "@key:scoped": key,
                        } } }),
                    );
                    specification.insert("rateOption".into(), json!({ "@ref:scoped": key }));
                }
                if !index_block.is_empty() {
                    blocks.push(Value::Object(index_block));
                }
                if let Some(floor) = floor {
                    let key = format!("floor-{n}");
                    blocks.push(json!({ "price": [interest_rate_price(floor, currency, Some("Max"), &key)] }));
                    specification.insert("floorRateSchedule".into(), json!({ "price": { "@ref:scoped": key } }));
                }
                (json!({ "FloatingRateSpecification": specification }), blocks)
            }
            RatePlan::Fixed { rate } => {
                let key = format!("rate-{n}");
                let block = json!({ "price": [interest_rate_price(rate, currency, None, &key)] });
                (
                    json!({ "FixedRateSpecification": { "rateSchedule": { "price": { "@ref:scoped": key } } } }),
                    vec![block],
                )
            }
        }
    }

    fn quantity(&self) -> Value {
        json!({ "value": self.commitment, "unit": { "currency": { "@data": self.currency } } })
    }
}

fn execution(
    facility: &FacilityPlan,
    parties: &[PartyPlan; 2],
    define_keys: bool,
    trade_date: &str,
    trade_identifier: &str,
) -> Value {
    let (rate_specification, mut price_quantity) = facility.rate_and_prices();
    if price_quantity.is_empty() {
        // CDM requires one priceQuantity per execution; a floating rate of unknown index, spread
        // and floor has no price, so the block holds the commitment.
        price_quantity.push(json!({ "quantity": facility.quantity() }));
    }
    let payout = json!({ "InterestRatePayout": {
        "payerReceiver": { "payer": "Party1", "receiver": "Party2" },
        "priceQuantity": { "quantitySchedule": facility.quantity() },
        "rateSpecification": rate_specification,
    } });
    let mut economic_terms = serde_json::Map::new();
    if let Some(termination_date) = &facility.termination_date {
        economic_terms
            .insert("terminationDate".into(), json!({ "adjustableDate": { "unadjustedDate": termination_date } }));
    }
    economic_terms.insert("payout".into(), json!([payout]));
    json!({
        "product": { "economicTerms": economic_terms },
        "priceQuantity": price_quantity,
        "counterparty": counterparties(parties),
        "parties": [parties[0].to_cdm(define_keys), parties[1].to_cdm(define_keys)],
        "executionDetails": { "executionType": "OffFacility" },
        "tradeDate": { "@data": trade_date },
        "tradeIdentifier": [{
            "issuer": { "@data": ISSUER },
            "assignedIdentifier": [{ "identifier": { "@data": trade_identifier } }],
        }],
    })
}

impl LegalAgreementPlan {
    fn to_cdm(&self, parties: &[PartyPlan; 2]) -> Value {
        let mut identification = serde_json::Map::new();
        if let Some(governing_law) = self.governing_law {
            identification.insert("governingLaw".into(), json!(governing_law));
        }
        identification.insert("agreementName".into(), json!({ "agreementType": "Other", "otherAgreement": self.name }));
        // CDM requires exactly one election in the terms; without a summary it stays empty.
        let additional_terms = match &self.summary {
            Some(summary) => json!({ "creditAdditionalTerms": summary }),
            None => json!({}),
        };
        json!({
            "agreementDate": self.agreement_date,
            "legalAgreementIdentification": identification,
            "contractualParty": [{ "@ref:external": parties[0].key }, { "@ref:external": parties[1].key }],
            "agreementTerms": {
                "agreement": { "transactionAdditionalTerms": additional_terms },
                "counterparty": counterparties(parties),
            },
        })
    }
}

#[cfg(test)]
mod tests;
