//! The extracted credit agreement. Attribute names follow FINOS CDM where CDM has them
//! (`agreementDate`, `legalAgreementIdentification.governingLaw`, `partyId`, `floatingRateIndex`,
//! `spread`, `terminationDate`, `dayCountFraction` …), so a CDM-literate reader needs no glossary;
//! what CDM has no place for (roles beyond borrower and lender, pricing grids, covenants,
//! sustainability terms) sits beside them under descriptive names.

use std::collections::BTreeMap;
use std::fmt;

use rust_decimal::Decimal;
use serde::{Serialize, Serializer};
use time::Date;

use super::currency::CurrencyCode;
use super::lei::Lei;
use super::numbers::Money;
use super::sourced::{Provenance, Sourced, SourcedValue, sourced_value_via_serde};

/// Declares a closed set of values serialized as fixed strings (CDM enum names where CDM has them).
macro_rules! named_values {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            /// Every value, in declaration order.
            #[allow(dead_code)]
            pub const ALL: &'static [Self] = &[$(Self::$variant,)*];

            /// The serialized name.
            pub fn as_str(&self) -> &'static str {
                match self { $(Self::$variant => $text,)* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        sourced_value_via_serde!($name);
    };
}

named_values! {
    /// The governing law: CDM `GoverningLawEnum` codes where CDM has one (`USNY`, `GBEN`, `CAON` …);
    /// other US states as `US` + postal code (`USAZ`, `USOH`) and other countries by ISO 3166 code
    /// (`NL`, `SG`), the way CDM writes the codes it has.
    pub enum GoverningLaw {
        /// Belgian law.
        Be => "BE",
        /// Alberta law.
        Caab => "CAAB",
        /// British Columbia law.
        Cabc => "CABC",
        /// Manitoba law.
        Camn => "CAMN",
        /// Ontario law.
        Caon => "CAON",
        /// Quebec law.
        Caqc => "CAQC",
        /// German law.
        De => "DE",
        /// French law.
        Fr => "FR",
        /// English law (England and Wales).
        Gben => "GBEN",
        /// Guernsey law.
        Gbgy => "GBGY",
        /// Isle of Man law.
        Gbim => "GBIM",
        /// Jersey law.
        Gbjy => "GBJY",
        /// Scots law.
        Gbsc => "GBSC",
        /// Irish law.
        Ie => "IE",
        /// Japanese law.
        Jp => "JP",
        /// Luxembourg law.
        Lu => "LU",
        /// Alabama law.
        Usal => "USAL",
        /// Alaska law.
        Usak => "USAK",
        /// Arizona law.
        Usaz => "USAZ",
        /// Arkansas law.
        Usar => "USAR",
        /// California law.
        Usca => "USCA",
        /// Colorado law.
        Usco => "USCO",
        /// Connecticut law.
        Usct => "USCT",
        /// Delaware law.
        Usde => "USDE",
        /// District of Columbia law.
        Usdc => "USDC",
        /// Florida law.
        Usfl => "USFL",
        /// Georgia law.
        Usga => "USGA",
        /// Hawaii law.
        Ushi => "USHI",
        /// Idaho law.
        Usid => "USID",
        /// Illinois law.
        Usil => "USIL",
        /// Indiana law.
        Usin => "USIN",
        /// Iowa law.
        Usia => "USIA",
        /// Kansas law.
        Usks => "USKS",
        /// Kentucky law.
        Usky => "USKY",
        /// Louisiana law.
        Usla => "USLA",
        /// Maine law.
        Usme => "USME",
        /// Maryland law.
        Usmd => "USMD",
        /// Massachusetts law.
        Usma => "USMA",
        /// Michigan law.
        Usmi => "USMI",
        /// Minnesota law.
        Usmn => "USMN",
        /// Mississippi law.
        Usms => "USMS",
        /// Missouri law.
        Usmo => "USMO",
        /// Montana law.
        Usmt => "USMT",
        /// Nebraska law.
        Usne => "USNE",
        /// Nevada law.
        Usnv => "USNV",
        /// New Hampshire law.
        Usnh => "USNH",
        /// New Jersey law.
        Usnj => "USNJ",
        /// New Mexico law.
        Usnm => "USNM",
        /// New York law.
        Usny => "USNY",
        /// North Carolina law.
        Usnc => "USNC",
        /// North Dakota law.
        Usnd => "USND",
        /// Ohio law.
        Usoh => "USOH",
        /// Oklahoma law.
        Usok => "USOK",
        /// Oregon law.
        Usor => "USOR",
        /// Pennsylvania law.
        Uspa => "USPA",
        /// Rhode Island law.
        Usri => "USRI",
        /// South Carolina law.
        Ussc => "USSC",
        /// South Dakota law.
        Ussd => "USSD",
        /// Tennessee law.
        Ustn => "USTN",
        /// Texas law.
        Ustx => "USTX",
        /// Utah law.
        Usut => "USUT",
        /// Vermont law.
        Usvt => "USVT",
        /// Virginia law.
        Usva => "USVA",
        /// Washington law.
        Uswa => "USWA",
        /// West Virginia law.
        Uswv => "USWV",
        /// Wisconsin law.
        Uswi => "USWI",
        /// Wyoming law.
        Uswy => "USWY",
        /// Law of Australia.
        Au => "AU",
        /// Law of Austria.
        At => "AT",
        /// Law of Bermuda.
        Bm => "BM",
        /// Law of Brazil.
        Br => "BR",
        /// Law of the British Virgin Islands.
        Vg => "VG",
        /// Law of the Cayman Islands.
        Ky => "KY",
        /// Law of China.
        Cn => "CN",
        /// Law of Denmark.
        Dk => "DK",
        /// Law of Finland.
        Fi => "FI",
        /// Law of Hong Kong.
        Hk => "HK",
        /// Law of India.
        In => "IN",
        /// Law of Italy.
        It => "IT",
        /// Law of Mexico.
        Mx => "MX",
        /// Law of the Netherlands.
        Nl => "NL",
        /// Law of New Zealand.
        Nz => "NZ",
        /// Law of Norway.
        No => "NO",
        /// Law of Singapore.
        Sg => "SG",
        /// Law of South Africa.
        Za => "ZA",
        /// Law of Spain.
        Es => "ES",
        /// Law of Sweden.
        Se => "SE",
        /// Law of Switzerland.
        Ch => "CH",
    }
}

named_values! {
    /// The capacity in which a party signs. `Borrower`, `Guarantor` and `Lender` are CDM
    /// `PartyRoleEnum` values; CDM has no agency or arranging roles, so those are named after the
    /// agreement's own terms.
    pub enum PartyRole {
        /// Borrows under a facility.
        Borrower => "Borrower",
        /// Guarantees the borrowers' obligations.
        Guarantor => "Guarantor",
        /// Agent of the lenders in a US-style syndicate.
        AdministrativeAgent => "AdministrativeAgent",
        /// Agent of the finance parties in an LMA-style syndicate.
        FacilityAgent => "FacilityAgent",
        /// Holds the collateral for the secured parties.
        CollateralAgent => "CollateralAgent",
        /// Syndication agent (a title role).
        SyndicationAgent => "SyndicationAgent",
        /// Documentation agent (a title role).
        DocumentationAgent => "DocumentationAgent",
        /// Arranges the facilities (lead, mandated lead, joint lead arranger).
        Arranger => "Arranger",
        /// Runs the syndication book.
        Bookrunner => "Bookrunner",
        /// Lends under a facility.
        Lender => "Lender",
        /// Issues letters of credit (L/C Issuer, Issuing Bank).
        IssuingBank => "IssuingBank",
        /// Makes swing line loans.
        SwinglineLender => "SwinglineLender",
        /// Coordinates the sustainability-linked features.
        SustainabilityCoordinator => "SustainabilityCoordinator",
    }
}

named_values! {
    /// The kind of facility.
    pub enum FacilityType {
        /// Term loan A (amortising, bank-held).
        TermLoanA => "TermLoanA",
        /// Term loan B (institutional).
        TermLoanB => "TermLoanB",
        /// Any other term loan.
        TermLoan => "TermLoan",
        /// Revolving credit facility.
        RevolvingCredit => "RevolvingCredit",
        /// Delayed-draw term loan.
        DelayedDrawTermLoan => "DelayedDrawTermLoan",
        /// Bridge facility.
        Bridge => "Bridge",
        /// Standalone letter of credit facility.
        LetterOfCredit => "LetterOfCredit",
    }
}

named_values! {
    /// CDM floating rate index display names.
    pub enum FloatingRateIndex {
        /// CME Term SOFR.
        UsdSofrCmeTerm => "USD-SOFR CME Term",
        /// SOFR (daily simple or compounded in arrears).
        UsdSofr => "USD-SOFR",
        /// US dollar LIBOR ("LIBOR", "LIBO Rate", "Eurodollar Rate", "London Interbank Offered
        /// Rate"), the benchmark of most agreements before 2022.
        UsdLibor => "USD-LIBOR",
        /// US prime / base rate.
        UsdPrime => "USD-Prime",
        /// SONIA.
        GbpSonia => "GBP-SONIA",
        /// Sterling LIBOR: LIBOR quoted for sterling deposits, before SONIA replaced it.
        GbpLibor => "GBP-LIBOR",
        /// Euro LIBOR (most euro loans used EURIBOR instead).
        EurLibor => "EUR-LIBOR",
        /// Swiss franc LIBOR, before SARON.
        ChfLibor => "CHF-LIBOR",
        /// Yen LIBOR, before TONA.
        JpyLibor => "JPY-LIBOR",
        /// EURIBOR.
        EurEuribor => "EUR-EURIBOR",
        /// Euro short-term rate.
        EurEuroStr => "EUR-EuroSTR",
        /// SARON.
        ChfSaron => "CHF-SARON",
        /// TONA.
        JpyTona => "JPY-TONA",
        /// CORRA.
        CadCorra => "CAD-CORRA",
    }
}

impl FloatingRateIndex {
    /// The currency the index is quoted for.
    pub fn currency(&self) -> &'static str {
        match self {
            Self::UsdSofrCmeTerm | Self::UsdSofr | Self::UsdLibor | Self::UsdPrime => "USD",
            Self::GbpSonia | Self::GbpLibor => "GBP",
            Self::EurEuribor | Self::EurEuroStr | Self::EurLibor => "EUR",
            Self::ChfSaron | Self::ChfLibor => "CHF",
            Self::JpyTona | Self::JpyLibor => "JPY",
            Self::CadCorra => "CAD",
        }
    }
}

named_values! {
    /// CDM `DayCountFractionEnum` display names.
    pub enum DayCountFraction {
        /// Actual days over 360.
        Act360 => "ACT/360",
        /// Actual days over a fixed 365.
        Act365Fixed => "ACT/365.FIXED",
        /// Actual days over 365 or 366 in a leap year.
        ActActIsda => "ACT/ACT.ISDA",
        /// 30/360 (bond basis).
        Thirty360 => "30/360",
        /// 30E/360 (Eurobond basis).
        ThirtyE360 => "30E/360",
    }
}

named_values! {
    /// The covenant a financial ratio is tested against.
    pub enum CovenantType {
        /// A leverage ratio must not exceed the level.
        MaximumLeverageRatio => "MaximumLeverageRatio",
        /// Interest cover must not fall below the level.
        MinimumInterestCoverageRatio => "MinimumInterestCoverageRatio",
        /// Fixed charge cover must not fall below the level.
        MinimumFixedChargeCoverageRatio => "MinimumFixedChargeCoverageRatio",
        /// Debt service cover must not fall below the level.
        MinimumDebtServiceCoverageRatio => "MinimumDebtServiceCoverageRatio",
        /// Liquidity (cash, and availability where the agreement counts it) must not fall below
        /// an amount.
        MinimumLiquidity => "MinimumLiquidity",
        /// Net worth (shareholders' equity) must not fall below an amount.
        MinimumNetWorth => "MinimumNetWorth",
        /// Tangible net worth (equity less intangible assets) must not fall below an amount.
        MinimumTangibleNetWorth => "MinimumTangibleNetWorth",
        /// Capital expenditures over a period must not exceed an amount.
        MaximumCapitalExpenditures => "MaximumCapitalExpenditures",
    }
}

named_values! {
    /// What kind of amending document this is.
    pub enum AmendmentType {
        /// Amends an existing agreement.
        Amendment => "Amendment",
        /// Amends and restates an existing agreement in full.
        AmendmentAndRestatement => "AmendmentAndRestatement",
    }
}

named_values! {
    /// CDM `PeriodEnum`.
    pub enum PeriodUnit {
        /// Days.
        Day => "D",
        /// Weeks.
        Week => "W",
        /// Months.
        Month => "M",
        /// Years.
        Year => "Y",
    }
}

/// A CDM `Period`: `{periodMultiplier, period}`, e.g. 3M.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Period {
    /// How many units.
    pub period_multiplier: u32,
    /// The unit.
    pub period: PeriodUnit,
}

impl Period {
    /// `n` months.
    pub fn months(n: u32) -> Self {
        Self { period_multiplier: n, period: PeriodUnit::Month }
    }
}

/// How the commitment fee on undrawn amounts is stated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CommitmentFee {
    /// A rate per annum, as a fraction.
    Rate(Decimal),
    /// A fraction of the applicable margin (LMA: "35 per cent. of the applicable Margin").
    PercentageOfMargin(Decimal),
}

sourced_value_via_serde!(Period, Vec<Period>, CommitmentFee);

/// CDM `LegalAgreementIdentification`, reduced to what a credit agreement states.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LegalAgreementIdentification {
    /// CDM `GoverningLawEnum` code; the provenance quotes the stated law.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub governing_law: Option<Sourced<GoverningLaw>>,
}

/// A party and the capacities it signs in.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Party {
    /// The LEI, only when stated with valid check digits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub party_id: Option<Sourced<Lei>>,
    /// The name as first stated.
    pub name: Sourced<String>,
    /// Every capacity stated for the party, each with where it was stated.
    pub roles: Vec<Sourced<PartyRole>>,
}

impl Party {
    /// Whether the party is stated to act in `role`.
    pub fn has_role(&self, role: PartyRole) -> bool {
        self.roles.iter().any(|r| *r.value() == role)
    }
}

/// One row of a pricing grid: the margin (and fees) that apply while a condition holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PricingGridLevel {
    /// The level's name, when the grid names it ("Level I", "Category 2").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<Sourced<String>>,
    /// When the level applies ("≥ 3.00:1.00 but < 3.50:1.00", "BBB+/Baa1").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Sourced<String>>,
    /// Margin over the floating rate index, as a fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Sourced<Decimal>>,
    /// Margin over the base rate / prime rate, as a fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_rate_spread: Option<Sourced<Decimal>>,
    /// Commitment fee rate at this level, as a fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment_fee: Option<Sourced<Decimal>>,
}

/// One credit facility.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Facility {
    /// The facility's name as the agreement calls it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Sourced<String>>,
    /// Term loan A/B, revolving, delayed draw, bridge, letter of credit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facility_type: Option<Sourced<FacilityType>>,
    /// The total commitment: CDM `{value, currency}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment: Option<Sourced<Money>>,
    /// Further currencies the facility may be drawn in (multicurrency facilities).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub optional_currencies: Vec<Sourced<CurrencyCode>>,
    /// The benchmark, by CDM display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floating_rate_index: Option<Sourced<FloatingRateIndex>>,
    /// The benchmark tenor, when one is fixed ("three-month EURIBOR").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_tenor: Option<Sourced<Period>>,
    /// The interest periods the borrower may select ("one, three or six Months").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interest_periods: Option<Sourced<Vec<Period>>>,
    /// A flat margin over the index, as a fraction (2.75% = 0.0275).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Sourced<Decimal>>,
    /// A flat margin over the base rate / prime rate, as a fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_rate_spread: Option<Sourced<Decimal>>,
    /// Every level of a pricing grid or margin ratchet, in the order stated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pricing_grid: Vec<PricingGridLevel>,
    /// The floor on the index, as a fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floor: Option<Sourced<Decimal>>,
    /// The fee on undrawn commitments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment_fee: Option<Sourced<CommitmentFee>>,
    /// How often interest is paid, when a fixed frequency is stated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment_frequency: Option<Sourced<Period>>,
    /// CDM `DayCountFractionEnum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day_count_fraction: Option<Sourced<DayCountFraction>>,
    /// Final maturity: CDM `terminationDate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_date: Option<Sourced<Date>>,
}

/// One level of a financial covenant.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CovenantLevel {
    /// The ratio's first term: 4.50 for "4.50:1.00"; for a covenant on an amount, the amount in
    /// units of the covenant's `currency`.
    pub threshold: Sourced<Decimal>,
    /// The test period the level applies to, when the covenant steps ("June 30, 2025 and
    /// thereafter").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<Sourced<String>>,
    /// What must happen for the level to apply, when the agreement makes it conditional ("in the
    /// event that … has incurred Indebtedness in connection with Major Acquisitions", "following
    /// the Delayed Draw Funding Date").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Sourced<String>>,
}

/// A maintenance covenant on a financial ratio.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinancialCovenant {
    /// What is tested and in which direction.
    pub covenant_type: Sourced<CovenantType>,
    /// The ratio as the agreement names it ("Consolidated Total Net Leverage Ratio").
    pub metric: Sourced<String>,
    /// The levels, in the order stated.
    pub levels: Vec<CovenantLevel>,
    /// The currency of the levels when they are amounts (liquidity, net worth, capital
    /// expenditures); absent for ratios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<Sourced<CurrencyCode>>,
}

/// Sustainability-linked loan features.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SustainabilityLinked {
    /// The statement that makes the loan sustainability-linked.
    pub designation: Sourced<String>,
    /// The margin step up or down tied to the targets, as a fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin_adjustment: Option<Sourced<Decimal>>,
    /// The key performance indicators, as named.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kpis: Vec<Sourced<String>>,
}

/// What an amending document amends.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Amendment {
    /// Amendment, or amendment and restatement.
    pub amendment_type: Sourced<AmendmentType>,
    /// The date of the agreement being amended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amended_agreement_date: Option<Sourced<Date>>,
    /// The terms the amendment states it changes, in the order stated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<AmendedTerm>,
}

named_values! {
    /// What an amended term is, read from its name.
    pub enum AmendedTermCategory {
        /// A maturity, termination or expiry date.
        MaturityDate => "MaturityDate",
        /// A commitment or facility amount.
        Commitment => "Commitment",
        /// A margin, spread or applicable rate.
        Margin => "Margin",
        /// A fee rate.
        Fee => "Fee",
        /// Any other date, amount or rate.
        Other => "Other",
    }
}

/// A value an amendment changes: a date, an amount or a rate.
#[derive(Clone, Debug, PartialEq)]
pub enum StatedValue {
    Date(Date),
    Money(Money),
    /// A percentage as a fraction (2.25% is 0.0225).
    Rate(Decimal),
}

impl SourcedValue for StatedValue {
    fn serialize_value<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            StatedValue::Date(date) => date.serialize_value(serializer),
            StatedValue::Money(money) => money.serialize_value(serializer),
            StatedValue::Rate(rate) => rate.serialize_value(serializer),
        }
    }
}

/// One change an amendment states: the term, its value before (when the amendment says it) and
/// after.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AmendedTerm {
    /// The term as the amendment names it ("Maturity Date", "Section 2.1(a)").
    pub term: Sourced<String>,
    /// What kind of term it is.
    pub category: AmendedTermCategory,
    /// The value replaced, when the amendment states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Sourced<StatedValue>>,
    /// The value as amended.
    pub after: Sourced<StatedValue>,
}

/// The credit agreement as extracted. Serialized with CDM attribute names and a `provenance`
/// map from JSON pointer (`/facilities/0/spread`) to the span and quote of every value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CreditAgreement {
    /// The title ("CREDIT AGREEMENT", "AMENDMENT NO. 2 TO CREDIT AGREEMENT").
    pub agreement_name: Option<Sourced<String>>,
    /// The date the agreement is dated.
    pub agreement_date: Option<Sourced<Date>>,
    /// The stated effective, closing or amendment effective date.
    pub effective_date: Option<Sourced<Date>>,
    /// Governing law.
    pub legal_agreement_identification: LegalAgreementIdentification,
    /// Named parties, in order of first statement.
    pub parties: Vec<Party>,
    /// Facilities, in order of first commitment statement.
    pub facilities: Vec<Facility>,
    /// Financial maintenance covenants.
    pub financial_covenants: Vec<FinancialCovenant>,
    /// Sustainability-linked features, when the agreement has them.
    pub sustainability_linked: Option<SustainabilityLinked>,
    /// Present when the document amends another agreement.
    pub amendment: Option<Amendment>,
}

impl CreditAgreement {
    /// Where every value was read from, keyed by the JSON pointer of the value in the serialized
    /// agreement.
    pub fn provenance(&self) -> BTreeMap<String, Provenance> {
        let mut map = ProvenanceMap::default();
        map.optional("/agreementName", &self.agreement_name);
        map.optional("/agreementDate", &self.agreement_date);
        map.optional("/effectiveDate", &self.effective_date);
        map.optional("/legalAgreementIdentification/governingLaw", &self.legal_agreement_identification.governing_law);
        for (i, party) in self.parties.iter().enumerate() {
            let base = format!("/parties/{i}");
            map.optional(&format!("{base}/partyId"), &party.party_id);
            map.add(&format!("{base}/name"), &party.name);
            map.each(&format!("{base}/roles"), &party.roles);
        }
        for (i, facility) in self.facilities.iter().enumerate() {
            let base = format!("/facilities/{i}");
            map.optional(&format!("{base}/name"), &facility.name);
            map.optional(&format!("{base}/facilityType"), &facility.facility_type);
            map.optional(&format!("{base}/commitment"), &facility.commitment);
            map.each(&format!("{base}/optionalCurrencies"), &facility.optional_currencies);
            map.optional(&format!("{base}/floatingRateIndex"), &facility.floating_rate_index);
            map.optional(&format!("{base}/indexTenor"), &facility.index_tenor);
            map.optional(&format!("{base}/interestPeriods"), &facility.interest_periods);
            map.optional(&format!("{base}/spread"), &facility.spread);
            map.optional(&format!("{base}/baseRateSpread"), &facility.base_rate_spread);
            for (j, level) in facility.pricing_grid.iter().enumerate() {
                let row = format!("{base}/pricingGrid/{j}");
                map.optional(&format!("{row}/level"), &level.level);
                map.optional(&format!("{row}/condition"), &level.condition);
                map.optional(&format!("{row}/spread"), &level.spread);
                map.optional(&format!("{row}/baseRateSpread"), &level.base_rate_spread);
                map.optional(&format!("{row}/commitmentFee"), &level.commitment_fee);
            }
            map.optional(&format!("{base}/floor"), &facility.floor);
            map.optional(&format!("{base}/commitmentFee"), &facility.commitment_fee);
            map.optional(&format!("{base}/paymentFrequency"), &facility.payment_frequency);
            map.optional(&format!("{base}/dayCountFraction"), &facility.day_count_fraction);
            map.optional(&format!("{base}/terminationDate"), &facility.termination_date);
        }
        for (i, covenant) in self.financial_covenants.iter().enumerate() {
            let base = format!("/financialCovenants/{i}");
            map.add(&format!("{base}/covenantType"), &covenant.covenant_type);
            map.add(&format!("{base}/metric"), &covenant.metric);
            map.optional(&format!("{base}/currency"), &covenant.currency);
            for (j, level) in covenant.levels.iter().enumerate() {
                map.add(&format!("{base}/levels/{j}/threshold"), &level.threshold);
                map.optional(&format!("{base}/levels/{j}/period"), &level.period);
                map.optional(&format!("{base}/levels/{j}/condition"), &level.condition);
            }
        }
        if let Some(sustainability) = &self.sustainability_linked {
            map.add("/sustainabilityLinked/designation", &sustainability.designation);
            map.optional("/sustainabilityLinked/marginAdjustment", &sustainability.margin_adjustment);
            map.each("/sustainabilityLinked/kpis", &sustainability.kpis);
        }
        if let Some(amendment) = &self.amendment {
            map.add("/amendment/amendmentType", &amendment.amendment_type);
            map.optional("/amendment/amendedAgreementDate", &amendment.amended_agreement_date);
            for (i, change) in amendment.changes.iter().enumerate() {
                let base = format!("/amendment/changes/{i}");
                map.add(&format!("{base}/term"), &change.term);
                map.optional(&format!("{base}/before"), &change.before);
                map.add(&format!("{base}/after"), &change.after);
            }
        }
        map.0
    }
}

#[derive(Default)]
struct ProvenanceMap(BTreeMap<String, Provenance>);

impl ProvenanceMap {
    fn add<T>(&mut self, path: &str, value: &Sourced<T>) {
        self.0.insert(path.to_owned(), value.provenance());
    }

    fn optional<T>(&mut self, path: &str, value: &Option<Sourced<T>>) {
        if let Some(value) = value {
            self.add(path, value);
        }
    }

    fn each<T>(&mut self, path: &str, values: &[Sourced<T>]) {
        for (i, value) in values.iter().enumerate() {
            self.add(&format!("{path}/{i}"), value);
        }
    }
}

impl Serialize for CreditAgreement {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            agreement_name: Option<&'a Sourced<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            agreement_date: Option<&'a Sourced<Date>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            effective_date: Option<&'a Sourced<Date>>,
            legal_agreement_identification: &'a LegalAgreementIdentification,
            parties: &'a [Party],
            facilities: &'a [Facility],
            financial_covenants: &'a [FinancialCovenant],
            #[serde(skip_serializing_if = "Option::is_none")]
            sustainability_linked: Option<&'a SustainabilityLinked>,
            #[serde(skip_serializing_if = "Option::is_none")]
            amendment: Option<&'a Amendment>,
            provenance: BTreeMap<String, Provenance>,
        }
        Wire {
            agreement_name: self.agreement_name.as_ref(),
            agreement_date: self.agreement_date.as_ref(),
            effective_date: self.effective_date.as_ref(),
            legal_agreement_identification: &self.legal_agreement_identification,
            parties: &self.parties,
            facilities: &self.facilities,
            financial_covenants: &self.financial_covenants,
            sustainability_linked: self.sustainability_linked.as_ref(),
            amendment: self.amendment.as_ref(),
            provenance: self.provenance(),
        }
        .serialize(serializer)
    }
}
