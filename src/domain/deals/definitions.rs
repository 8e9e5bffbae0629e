//! The agreement's own definitions of a covenant ratio, read from its text: whether debt is net of
//! cash and up to which cap, whether it counts all debt or only senior or secured debt, what the
//! earnings measure is and which add-backs EBITDA allows, and the test period.
//!
//! Only what the definitions state plainly is read. The ratio's definition (`"Consolidated Total
//! Net Leverage Ratio" means …`) is found by its name, and the definitions it refers to (`"Consolidated
//! Funded Indebtedness"`, `"Consolidated EBITDA"`) one level down. Anything not found is left to the
//! market-standard reading, which the covenant test says it used. A cash cap is read only as a
//! stated amount ("not to exceed $50,000,000"); "the greater of $X and …" is read as X, the smallest
//! cap the words allow, which can only make the ratio look worse than it is — never better.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::domain::extraction::{Definition, Structure, normalise_label, pattern};

/// Which debt the ratio counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DebtScope {
    Total,
    Senior,
    Secured,
}

/// The earnings measure a ratio divides by (leverage) or into (coverage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Earnings {
    Ebitda,
    Ebit,
    /// EBITDA before rent: statements here carry no rent line.
    Ebitdar,
}

/// Cash deducted from debt.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CashNetting {
    /// The most cash that may be deducted, when the agreement caps it at a stated amount.
    pub cap: Option<f64>,
    /// The cap is the smaller branch of a "greater of": the true cap may be higher.
    pub cap_is_lower_bound: bool,
    pub quote: String,
}

/// What a fixed-charge or debt-service coverage ratio's definition deducts from earnings and
/// counts as charges, read from the ratio's definition (split at "to (b)" or "divided by") and the
/// definition its charges refer to ("Fixed Charges" means …).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CoverageTerms {
    pub deducts_capex: bool,
    /// Only capital expenditures not financed by debt are deducted: the statements' total capital
    /// expenditure overstates the deduction.
    pub capex_unfinanced: bool,
    pub deducts_taxes: bool,
    pub deducts_distributions: bool,
    pub charges_interest: bool,
    pub charges_principal: bool,
    pub charges_rent: bool,
    pub charges_distributions: bool,
}

/// One definition read, with its words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DefinitionRead {
    pub term: String,
    pub quote: String,
}

/// How the agreement defines one ratio; `None` fields were not stated in a form read here.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RatioDefinition {
    pub net_of_cash: Option<CashNetting>,
    pub debt_scope: Option<DebtScope>,
    pub earnings: Option<Earnings>,
    /// Add-backs the EBITDA definition names, in plain words ("non-cash charges").
    pub ebitda_addbacks: Vec<String>,
    /// Months of the test period ("four consecutive fiscal quarters" is 12).
    pub test_period_months: Option<u32>,
    /// What a leverage ratio divides debt by when that is not earnings ("Total Capitalization",
    /// "Gross Asset Value"), as the definition names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divides_by: Option<String>,
    /// For a fixed-charge or debt-service coverage ratio: its terms, when its definition splits into
    /// earnings and charges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<CoverageTerms>,
    /// For liquidity: whether it counts availability under the commitments besides cash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_availability: Option<bool>,
    /// For net worth: whether it deducts goodwill and other intangible assets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deducts_intangibles: Option<bool>,
    /// Every definition read, in the order read.
    pub read: Vec<DefinitionRead>,
}

/// How much of a definition is quoted.
const QUOTE_CHARS: usize = 400;
/// How much of a definition is read: a ratio's definition is a sentence or two; EBITDA's runs long.
const BODY_CHARS: usize = 6_000;

static NET_OF_CASH: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:minus|less|net[ \t\r\n]+of|reduced[ \t\r\n]+by|after[ \t\r\n]+deducting|deducting)\b[^.;]{0,200}?\bcash\b",
    )
});
static CASH_CAP: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:not[ \t\r\n]+to[ \t\r\n]+exceed|not[ \t\r\n]+in[ \t\r\n]+excess[ \t\r\n]+of|up[ \t\r\n]+to|no[ \t\r\n]+more[ \t\r\n]+than|not[ \t\r\n]+(?:greater|more)[ \t\r\n]+than|(?:a|the)[ \t\r\n]+maximum[ \t\r\n]+(?:aggregate[ \t\r\n]+)?(?:amount[ \t\r\n]+)?of|capped[ \t\r\n]+at)[ \t\r\n]+(?P<greater>the[ \t\r\n]+greater[ \t\r\n]+of[ \t\r\n]+(?:\([a-z0-9]+\)[ \t\r\n]+)?)?(?:U\.S\.[ \t]*)?\$[ \t]?(?P<amount>[0-9][0-9,]*(?:\.[0-9]+)?)(?:[ \t\r\n]+(?P<scale>million|billion))?",
    )
});
/// A base other than earnings that a leverage ratio may divide debt by.
static NON_EARNINGS_BASE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:gross|total)[ \t\r\n]+asset[ \t\r\n]+value|asset[ \t\r\n]+value|total[ \t\r\n]+assets|(?:total[ \t\r\n]+)?capitali[sz]ation|total[ \t\r\n]+capital|(?:tangible[ \t\r\n]+)?net[ \t\r\n]+worth|(?:share|stock)holders[’']?[ \t\r\n]+equity)\b",
    )
});
/// An earnings measure named in a ratio's definition.
static EARNINGS_WORDS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:ebitda[a-z]*|ebit|earnings|cash[ \t\r\n]+flow|net[ \t\r\n]+income)\b"));
/// Where a ratio's definition turns from what is divided to what it is divided by.
static DIVIDED_BY: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bto[ \t\r\n]*\([ \t]*(?:b|ii|y|2)[ \t]*\)|\bdivided[ \t\r\n]+by\b"));
static CAPEX: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\bcapital[ \t\r\n]+expenditures?\b"));
static UNFINANCED: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:unfinanced|non-?financed|not[ \t\r\n]+financed)\b"));
static TAXES: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\btax(?:es)?\b"));
static DISTRIBUTIONS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:dividends?|distributions?|restricted[ \t\r\n]+payments?)\b"));
static INTEREST: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\binterest\b"));
static PRINCIPAL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:principal|scheduled[ \t\r\n]+(?:payments|repayments|amortization)|debt[ \t\r\n]+service)\b")
});
static RENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:rent(?:al)?s?|(?:operating[ \t\r\n]+)?lease[ \t\r\n]+(?:payments|expense|obligations))\b")
});
static SECURED: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(?:secured|first[ \t\r\n-]+lien)\b"));
static SENIOR: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\bsenior\b"));
static FOUR_QUARTERS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:four|4)[ \t\r\n]+(?:\(4\)[ \t\r\n]+)?(?:consecutive[ \t\r\n]+)?(?:full[ \t\r\n]+)?fiscal[ \t\r\n]+quarters?\b|\b(?:twelve|12)[ \t\r\n]+(?:\(12\)[ \t\r\n]+)?(?:consecutive[ \t\r\n]+)?(?:calendar[ \t\r\n]+|fiscal[ \t\r\n]+)?months?\b|\btrailing[ \t\r\n]+twelve\b",
    )
});

/// Add-backs named in EBITDA definitions, as `(pattern, plain words)`.
static ADDBACKS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"(?i)\binterest[ \t\r\n]+expense\b", "interest expense"),
        (r"(?i)\b(?:income[ \t\r\n]+)?tax(?:es)?\b", "income taxes"),
        (r"(?i)\bdepreciation\b", "depreciation"),
        (r"(?i)\bamortization\b", "amortization"),
        (r"(?i)\bnon-?[ \t]?cash[ \t\r\n]+(?:charges?|expenses?|losses?|items?)\b", "non-cash charges"),
        (r"(?i)\b(?:stock|equity|share)[- \t\r\n]*based[ \t\r\n]+compensation\b", "equity-based compensation"),
        (r"(?i)\brestructuring\b", "restructuring charges"),
        (r"(?i)\b(?:extraordinary|non-?recurring|unusual)\b", "extraordinary, unusual or non-recurring items"),
        (r"(?i)\btransaction[ \t\r\n]+(?:costs|expenses|fees)\b", "transaction costs"),
        (r"(?i)\b(?:cost[ \t\r\n]+savings|synergies)\b", "pro forma cost savings and synergies"),
    ]
    .into_iter()
    .map(|(source, words)| (pattern(source), words))
    .collect()
});

/// The add-backs the statements here carry: EBITDA is stated, or operating income + D&A, which is
/// net income with interest, taxes, depreciation and amortization added back.
pub const CARRIED_ADDBACKS: [&str; 4] = ["interest expense", "income taxes", "depreciation", "amortization"];

/// Reads the definition of `metric` (as the agreement names the ratio) from `text`, with
/// `structure` the text's definitions index.
pub(crate) fn read(text: &str, structure: &Structure, metric: &str) -> RatioDefinition {
    let mut found = RatioDefinition::default();
    let name = normalise_label(metric);
    if SECURED.is_match(&name) {
        found.debt_scope = Some(DebtScope::Secured);
    } else if SENIOR.is_match(&name) {
        found.debt_scope = Some(DebtScope::Senior);
    }
    let Some(ratio) = find(structure, &name) else { return found };
    let body = body(text, ratio);
    found.read.push(quoted(text, ratio));
    // A ratio of debt to asset value or capitalization, with no earnings in its definition, is
    // not a multiple of earnings.
    let own_words = &body[..floor_char_boundary(body, QUOTE_CHARS.min(body.len()))];
    if !EARNINGS_WORDS.is_match(own_words)
        && let Some(base) = NON_EARNINGS_BASE.find(own_words)
    {
        found.divides_by = Some(base.as_str().split_whitespace().collect::<Vec<_>>().join(" "));
    }
    // The definitions the ratio's definition refers to, each once, in the order they appear.
    let words = normalise_label(body);
    let mut referred: Vec<(usize, &Definition)> = structure
        .definitions
        .iter()
        .filter(|d| d.key != ratio.key && d.key.len() > 3)
        .filter_map(|d| find_word(&words, &d.key).map(|at| (at, d)))
        .collect();
    referred.sort_by_key(|(at, _)| *at);
    let debt = referred.iter().map(|(_, d)| *d).find(|d| d.key.contains("debt") || d.key.contains("indebtedness"));
    let earnings = referred.iter().map(|(_, d)| *d).find(|d| d.key.contains("ebit"));
    let period = referred.iter().map(|(_, d)| *d).find(|d| d.key.contains("period"));

    let netting_text = [Some(body), debt.map(|d| self::body(text, d))];
    for candidate in netting_text.into_iter().flatten() {
        if let Some(netting) = NET_OF_CASH.find(candidate) {
            let clause_end =
                candidate[netting.end()..].find([';', '\n']).map_or(candidate.len(), |i| netting.end() + i);
            let clause = &candidate[netting.start()..clause_end.min(netting.start() + 600)];
            found.net_of_cash = Some(cash_netting(clause));
            break;
        }
    }
    if let Some(debt) = debt {
        found.read.push(quoted(text, debt));
        let debt_words = normalise_label(&text[debt.term.clone()]);
        if found.debt_scope.is_none() && SECURED.is_match(&debt_words) {
            found.debt_scope = Some(DebtScope::Secured);
        } else if found.debt_scope.is_none() && SENIOR.is_match(&debt_words) {
            found.debt_scope = Some(DebtScope::Senior);
        }
    }
    found.debt_scope.get_or_insert(DebtScope::Total);
    let earnings_words = earnings.map_or(body.to_ascii_lowercase(), |d| d.key.clone());
    found.earnings = if earnings_words.contains("ebitdar") {
        Some(Earnings::Ebitdar)
    } else if earnings_words.contains("ebitda") {
        Some(Earnings::Ebitda)
    } else if earnings_words.contains("ebit") {
        Some(Earnings::Ebit)
    } else {
        None
    };
    if let Some(earnings) = earnings {
        found.read.push(quoted(text, earnings));
        let definition = self::body(text, earnings);
        found.ebitda_addbacks = ADDBACKS
            .iter()
            .filter(|(pattern, _)| pattern.is_match(definition))
            .map(|(_, words)| (*words).to_owned())
            .collect();
    }
    let name_words = normalise_label(metric);
    if name_words.contains("fixed charge") || name_words.contains("debt service") {
        found.coverage = coverage_terms(text, structure, body);
    }
    let period_text = period.map(|d| self::body(text, d)).unwrap_or(body);
    if FOUR_QUARTERS.is_match(period_text) || FOUR_QUARTERS.is_match(body) {
        found.test_period_months = Some(12);
        if let Some(period) = period {
            found.read.push(quoted(text, period));
        }
    }
    found
}

static AVAILABILITY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:availability|excess[ \t\r\n]+availability|unused[ \t\r\n]+(?:portion[ \t\r\n]+of[ \t\r\n]+the[ \t\r\n]+)?(?:revolving[ \t\r\n]+)?commitments?|undrawn|available[ \t\r\n]+to[ \t\r\n]+be[ \t\r\n]+borrowed|amount[ \t\r\n]+available)\b",
    )
});
static INTANGIBLES: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(?:intangible|goodwill)"));
static CASH: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\bcash\b"));

/// Reads the definition of a measure an amount covenant tests (`"Liquidity" means …`, `"Consolidated
/// Net Worth" means …`): whether liquidity counts availability besides cash, and whether net worth
/// deducts intangibles. What is not stated stays `None`.
pub(crate) fn read_amount(text: &str, structure: &Structure, measure: &str) -> RatioDefinition {
    let mut found = RatioDefinition::default();
    let Some(definition) = find(structure, &normalise_label(measure)) else { return found };
    let body = body(text, definition);
    found.read.push(quoted(text, definition));
    if AVAILABILITY.is_match(body) {
        found.counts_availability = Some(true);
    } else if CASH.is_match(body) {
        found.counts_availability = Some(false);
    }
    found.deducts_intangibles = Some(INTANGIBLES.is_match(body));
    found
}

/// The terms of a coverage ratio whose definition `body` splits into earnings and charges; the
/// charges' own definition ("Fixed Charges", "Debt Service") is read when the charges name one.
fn coverage_terms(text: &str, structure: &Structure, body: &str) -> Option<CoverageTerms> {
    // The ratio's own sentence: up to the end of its first paragraph.
    let own = body.split("\n\n").next().unwrap_or(body);
    let split = DIVIDED_BY.find(own)?;
    let (earnings, charges) = (&own[..split.start()], &own[split.end()..]);
    let charges_words = normalise_label(charges);
    let mut charges_text = charges.to_owned();
    if let Some(defined) = structure
        .definitions
        .iter()
        .filter(|d| d.key.contains("charges") || d.key.contains("debt service"))
        .find(|d| find_word(&charges_words, &d.key).is_some())
    {
        charges_text.push(' ');
        charges_text.push_str(self::body(text, defined).split("\n\n").next().unwrap_or(""));
    }
    let terms = CoverageTerms {
        deducts_capex: CAPEX.is_match(earnings),
        capex_unfinanced: UNFINANCED.is_match(earnings),
        deducts_taxes: TAXES.is_match(earnings),
        deducts_distributions: DISTRIBUTIONS.is_match(earnings),
        charges_interest: INTEREST.is_match(&charges_text),
        charges_principal: PRINCIPAL.is_match(&charges_text),
        charges_rent: RENT.is_match(&charges_text),
        charges_distributions: DISTRIBUTIONS.is_match(&charges_text),
    };
    // Charges that name neither interest nor principal were not read.
    (terms.charges_interest || terms.charges_principal).then_some(terms)
}

/// The definition of the ratio named `name` (normalised): the exact term, else the term without
/// "consolidated" (agreements name the covenant "Total Leverage Ratio" and define "Consolidated
/// Total Leverage Ratio", or the other way round).
fn find<'s>(structure: &'s Structure, name: &str) -> Option<&'s Definition> {
    let bare = |key: &str| key.replace("consolidated ", "").replace("maximum ", "").replace("minimum ", "");
    let wanted = bare(name);
    structure
        .definitions
        .iter()
        .find(|d| d.key == name)
        .or_else(|| structure.definitions.iter().find(|d| bare(&d.key) == wanted))
}

fn body<'t>(text: &'t str, definition: &Definition) -> &'t str {
    let range: Range<usize> = definition.body.clone();
    let end = floor_char_boundary(text, range.end.min(range.start + BODY_CHARS));
    &text[range.start..end.max(range.start)]
}

fn quoted(text: &str, definition: &Definition) -> DefinitionRead {
    let body = body(text, definition);
    let end = floor_char_boundary(body, QUOTE_CHARS.min(body.len()));
    // The body starts right after "means": a comma or colon there is the sentence's, not the quote's.
    let quote = body[..end].trim_start_matches([',', ':', ';']).split_whitespace().collect::<Vec<_>>().join(" ");
    DefinitionRead { term: text[definition.term.clone()].to_owned(), quote }
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// Where `term` first appears in `words` as whole words (both lower case with single spaces).
fn find_word(words: &str, term: &str) -> Option<usize> {
    let alphanumeric = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    words.match_indices(term).map(|(at, _)| at).find(|&at| {
        !alphanumeric(words[..at].chars().next_back()) && !alphanumeric(words[at + term.len()..].chars().next())
    })
}

fn cash_netting(clause: &str) -> CashNetting {
    let quote = clause.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(cap) = CASH_CAP.captures(clause) else {
        return CashNetting { cap: None, cap_is_lower_bound: false, quote };
    };
    let amount = cap.name("amount").and_then(|a| a.as_str().replace(',', "").parse::<f64>().ok());
    let scale = match cap.name("scale").map(|s| s.as_str().to_ascii_lowercase()) {
        Some(s) if s == "million" => 1e6,
        Some(s) if s == "billion" => 1e9,
        _ => 1.0,
    };
    CashNetting { cap: amount.map(|a| a * scale), cap_is_lower_bound: cap.name("greater").is_some(), quote }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_from(text: &str, metric: &str) -> RatioDefinition {
        read(text, &Structure::scan(text), metric)
    }

    const AGREEMENT: &str = "\"Consolidated EBITDA\" means, for any period, Consolidated Net Income plus, without duplication, (a) Consolidated Interest Expense, (b) provision for income taxes, (c) depreciation and amortization expense, (d) non-cash charges and (e) restructuring charges.\n\n\"Consolidated Funded Indebtedness\" means all Indebtedness for borrowed money of the Borrower and its Subsidiaries.\n\n\"Consolidated Total Net Leverage Ratio\" means, as of any date of determination, the ratio of (a) Consolidated Funded Indebtedness as of such date minus unrestricted cash and Cash Equivalents of the Loan Parties in an aggregate amount not to exceed $50,000,000 to (b) Consolidated EBITDA for the period of the four consecutive fiscal quarters most recently ended.\n\n\"Consolidated Senior Secured Leverage Ratio\" means the ratio of Consolidated Senior Secured Debt to Consolidated EBITDA.\n\n\"Consolidated Senior Secured Debt\" means Consolidated Funded Indebtedness secured by a Lien.\n";

    #[test]
    fn a_net_leverage_definition_gives_its_cash_cap_add_backs_and_test_period() {
        let found = read_from(AGREEMENT, "Consolidated Total Net Leverage Ratio");
        let netting = found.net_of_cash.expect("net of cash");
        assert_eq!(netting.cap, Some(50_000_000.0));
        assert!(!netting.cap_is_lower_bound);
        assert_eq!(found.debt_scope, Some(DebtScope::Total));
        assert_eq!(found.earnings, Some(Earnings::Ebitda));
        assert_eq!(found.test_period_months, Some(12));
        assert!(found.ebitda_addbacks.contains(&"non-cash charges".to_owned()), "{:?}", found.ebitda_addbacks);
        assert!(found.ebitda_addbacks.contains(&"restructuring charges".to_owned()));
        let terms: Vec<&str> = found.read.iter().map(|r| r.term.as_str()).collect();
        assert_eq!(
            terms,
            ["Consolidated Total Net Leverage Ratio", "Consolidated Funded Indebtedness", "Consolidated EBITDA"]
        );
    }

    #[test]
    fn a_covenant_named_without_consolidated_finds_the_consolidated_definition() {
        let found = read_from(AGREEMENT, "Total Net Leverage Ratio");
        assert_eq!(found.net_of_cash.and_then(|n| n.cap), Some(50_000_000.0));
    }

    #[test]
    fn secured_debt_is_read_from_the_name_or_the_debt_definition() {
        let found = read_from(AGREEMENT, "Consolidated Senior Secured Leverage Ratio");
        assert_eq!(found.debt_scope, Some(DebtScope::Secured));
        assert!(found.net_of_cash.is_none());
    }

    #[test]
    fn the_greater_of_two_caps_is_read_as_its_stated_amount_and_marked() {
        let text = "\"Net Leverage Ratio\" means the ratio of Total Debt less Unrestricted Cash up to the greater of $25 million and 10% of EBITDA to EBITDA.\n";
        let netting = read_from(text, "Net Leverage Ratio").net_of_cash.expect("netting");
        assert_eq!(netting.cap, Some(25_000_000.0));
        assert!(netting.cap_is_lower_bound);
    }

    #[test]
    fn a_leverage_ratio_of_debt_to_capitalization_says_what_it_divides_by() {
        let text = "\"Leverage Ratio\" means the ratio of Consolidated Debt divided by Total Capitalization.\n\n\"Total Capitalization\" means Tangible Net Worth plus Consolidated Debt.\n";
        assert_eq!(read_from(text, "Leverage Ratio").divides_by.as_deref(), Some("Total Capitalization"));
        assert_eq!(read_from(AGREEMENT, "Consolidated Total Net Leverage Ratio").divides_by, None);
    }

    #[test]
    fn a_fixed_charge_ratio_says_what_it_deducts_and_what_its_charges_count() {
        let text = "\"Fixed Charge Coverage Ratio\" means the ratio of (a) Consolidated EBITDA minus Unfinanced Capital Expenditures minus cash taxes paid to (b) Fixed Charges, for the four fiscal quarters then ended.\n\n\"Fixed Charges\" means the sum of cash Interest Expense and scheduled principal payments of Indebtedness.\n";
        let terms = read_from(text, "Fixed Charge Coverage Ratio").coverage.expect("terms");
        assert_eq!(
            terms,
            CoverageTerms {
                deducts_capex: true,
                capex_unfinanced: true,
                deducts_taxes: true,
                charges_interest: true,
                charges_principal: true,
                ..CoverageTerms::default()
            }
        );
        let simple = "\"Debt Service Coverage Ratio\" means EBITDA divided by the sum of interest expense and rent payable under operating leases.\n";
        let terms = read_from(simple, "Debt Service Coverage Ratio").coverage.expect("terms");
        assert!(
            !terms.deducts_capex && !terms.deducts_taxes && terms.charges_interest && terms.charges_rent,
            "{terms:?}"
        );
        let unsplit = "\"Fixed Charge Coverage Ratio\" has the meaning given in the Guaranty.\n";
        assert_eq!(read_from(unsplit, "Fixed Charge Coverage Ratio").coverage, None);
    }

    #[test]
    fn liquidity_counts_availability_only_when_its_definition_says_so() {
        let both =
            "\"Liquidity\" means the sum of unrestricted cash of the Borrower and the unused Revolving Commitments.\n";
        assert_eq!(read_amount(both, &Structure::scan(both), "Liquidity").counts_availability, Some(true));
        let cash = "\"Liquidity\" means unrestricted cash and Cash Equivalents of the Loan Parties.\n";
        assert_eq!(read_amount(cash, &Structure::scan(cash), "Minimum Liquidity").counts_availability, Some(false));
        let none = "\"Borrower\" means Acme.\n";
        let found = read_amount(none, &Structure::scan(none), "Liquidity");
        assert_eq!((found.counts_availability, found.read.len()), (None, 0));
        let tangible =
            "\"Consolidated Net Worth\" means shareholders' equity less goodwill and other intangible assets.\n";
        assert_eq!(
            read_amount(tangible, &Structure::scan(tangible), "Consolidated Net Worth").deducts_intangibles,
            Some(true)
        );
    }

    #[test]
    fn a_ratio_not_defined_is_left_to_the_standard_reading() {
        let found = read_from("\"Borrower\" means Acme.\n", "Total Leverage Ratio");
        assert_eq!(found, RatioDefinition { debt_scope: None, ..RatioDefinition::default() });
    }
}
