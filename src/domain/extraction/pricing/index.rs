//! Which benchmark a facility's margin is over: the preferred one when a margin is stated for loans
//! of two ("Term SOFR Loans and Daily Simple SOFR Loans"), and, when no statement names one, the
//! benchmark the agreement defines for the facility's currency. Only benchmarks in force count: one
//! named only by the benchmark replacement provisions (see `provisions.rs`) is a rate that may
//! come, not one the loans bear; so is one named only for another rate or instrument (a default
//! rate, a minimum, a swap, a letter of credit fee, refinanced debt) or only in its own definition.

use std::sync::LazyLock;

use regex::Regex;

use crate::domain::extraction::benchmarks::{BenchmarkMatch, find_benchmarks};
use crate::domain::extraction::currency::CurrencyCode;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::FloatingRateIndex;
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{
    after, before, clause_around, contains_any_ci, contains_ci, matches_outside_date_names, pattern, sentence_around,
};

/// "with respect to Term SOFR Loans and Daily Simple SOFR Loans, 0.75%": one margin stated for
/// loans of two benchmarks of one currency. The facility's index is then the one the agreement
/// prefers by the rule `default_index` documents (Term SOFR before daily SOFR, EURIBOR before
/// €STR), not whichever happens to stand nearer the figure.
pub(super) fn preferred_of_joined(doc: &Document<'_>, mention: BenchmarkMatch) -> BenchmarkMatch {
    let mention = rate_of_named_loans(doc, mention);
    let mut best = mention.clone();
    let mut end = mention.span.start;
    for earlier in doc.benchmarks_in(before(doc.text, mention.span.start, 80)).iter().rev() {
        let joiner = doc.slice(earlier.span.end..end).to_ascii_lowercase();
        let only_joins = joiner
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/'))
            .all(|w| matches!(w, "" | "and" | "or" | "loans" | "loan" | "advances" | "borrowings"));
        if !only_joins || earlier.base_rate {
            break;
        }
        if let (Some(this), Some(that)) = (preference(earlier.index), preference(best.index))
            && this.0 == that.0
            && this.1 < that.1
        {
            best = earlier.clone();
        }
        end = earlier.span.start;
    }
    best
}

/// The words after a bare "SOFR" that make it the name of loans ("SOFR Loans", "SOFR Term Loans",
/// "SOFR Revolving Borrowing").
static NAMED_LOANS_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"^[ \t]+(?:(?:Term|Revolving|Credit|TERM|REVOLVING)[ \t]+)?(?:Loans?|LOANS?|Advances?|Borrowings?)\b")
});

/// "SOFR Term Loans, 4.50%": loans named by a bare "SOFR" bear the rate the agreement's definition
/// of those loans names ("“SOFR Term Loan” means a Term Loan that bears interest at a rate based on
/// Adjusted Term SOFR"), when it names one benchmark; the name's own word does not say whether it
/// is the term rate or the daily one.
fn rate_of_named_loans(doc: &Document<'_>, mention: BenchmarkMatch) -> BenchmarkMatch {
    if mention.index != FloatingRateIndex::UsdSofr || !doc.slice(mention.span.clone()).eq_ignore_ascii_case("sofr") {
        return mention;
    }
    let Some(name) = NAMED_LOANS_AFTER.find(doc.slice(after(doc.text, mention.span.end, 40))) else {
        return mention;
    };
    let named = doc.slice(mention.span.start..mention.span.end + name.end()).to_lowercase();
    let named = named.split_whitespace().collect::<Vec<_>>().join(" ");
    let singular = named.trim_end_matches('s');
    let defined = doc.structure.definitions_where(|key| key == named || key == singular).next();
    let Some(definition) = defined else { return mention };
    let borne: Vec<BenchmarkMatch> =
        doc.benchmarks_in(definition.body.clone()).iter().filter(|b| !b.base_rate).cloned().collect();
    match borne.first() {
        Some(first) if borne.iter().all(|b| b.index == first.index) => first.clone(),
        _ => mention,
    }
}

/// The currency and rank of an index among those the agreement may define for that currency.
fn preference(index: FloatingRateIndex) -> Option<(&'static str, u8)> {
    match index {
        FloatingRateIndex::UsdSofrCmeTerm => Some(("USD", 0)),
        FloatingRateIndex::UsdSofr => Some(("USD", 1)),
        FloatingRateIndex::EurEuribor => Some(("EUR", 0)),
        FloatingRateIndex::EurEuroStr => Some(("EUR", 1)),
        _ => None,
    }
}

/// Whether the loans may bear a benchmark other than the prime rate, which decides whether a
/// literal "Prime Rate" is the benchmark or the alternate base rate. A bank's loan at the prime
/// rate that names SOFR for its hedge, a letter of credit fee or the rate after a default is still
/// a prime rate loan.
pub(super) fn has_risk_free_benchmark(doc: &Document<'_>) -> bool {
    bears_risk_free(&loans_benchmarks(doc))
}

/// Whether any of the loans' benchmarks is other than the prime rate.
fn bears_risk_free(loans: &[&BenchmarkMatch]) -> bool {
    loans.iter().any(|b| b.index != FloatingRateIndex::UsdPrime)
}

/// The benchmark mentions that may name what the loans bear: those in force (see `in_force`)
/// that measure neither another rate (`names_another_rate`) nor another instrument's
/// (`names_another_instrument`), of the benchmarks the agreement uses outside their own
/// definitions. A benchmark only defined ("Term SOFR" means …) and otherwise named only for a
/// default rate or a swap is not one the loans bear.
fn loans_benchmarks<'d>(doc: &'d Document<'_>) -> Vec<&'d BenchmarkMatch> {
    let usable: Vec<&BenchmarkMatch> = in_force(doc)
        .filter(|b| !names_another_rate(doc, b) && !names_another_instrument(doc, b))
        .filter(|b| !part_of_the_prime_rate(doc, b))
        .collect();
    let used = |index: FloatingRateIndex| usable.iter().any(|b| b.index == index && !in_own_definition(doc, b));
    usable.iter().copied().filter(|b| used(b.index)).collect()
}

/// Whether `mention` stands in the definition of a term that names the same benchmark ("Term
/// SOFR" means the forward-looking term rate based on SOFR …): a definition says what the rate is,
/// not that the loans bear it.
fn in_own_definition(doc: &Document<'_>, mention: &BenchmarkMatch) -> bool {
    doc.structure.definition_at(mention.span.start).is_some_and(|definition| {
        find_benchmarks(doc.slice(definition.term.clone())).iter().any(|named| named.index == mention.index)
    }) || {
        // The definition whose term starts last at or before the mention is the only one whose
        // term can hold it (definitions are in text order).
        let definitions = &doc.structure.definitions;
        let after = definitions.partition_point(|d| d.term.start <= mention.span.start);
        after.checked_sub(1).and_then(|i| definitions.get(i)).is_some_and(|d| mention.span.end <= d.term.end)
    }
}

/// Whether `mention` stands in the definition of the prime rate: a bank's "Prime Rate" means the
/// greatest of the rate it publishes, the federal funds rate plus 0.50% and Term SOFR plus 1.00%.
/// Such a mention is one leg of the prime rate, and tells nothing of which benchmark the loans
/// bear. (The legs of an alternate "Base Rate" are read where that rate is, as the base rate.)
fn part_of_the_prime_rate(doc: &Document<'_>, mention: &BenchmarkMatch) -> bool {
    mention.index != FloatingRateIndex::UsdPrime
        && doc.structure.definition_at(mention.span.start).is_some_and(|definition| {
            find_benchmarks(doc.slice(definition.term.clone()))
                .iter()
                .any(|named| named.index == FloatingRateIndex::UsdPrime && !named.base_rate)
        })
}

/// Clause words before a benchmark that make it the measure of another instrument than the loans:
/// a swap or hedge, a fee (on letters of credit, unused amounts), the lender's cost of funds. Debt
/// that exists before the agreement or that it refinances is set aside with its statements
/// (`provisions.rs`, other debt), so its benchmark is not in force.
static ANOTHER_INSTRUMENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:swaps?|hedg[a-z]*|letters?[ \t\r\n]+of[ \t\r\n]+credit|cost[ \t\r\n]+of[ \t\r\n]+funds|fees?)\b")
});

/// Whether the clause that names `mention` names it for another instrument (`ANOTHER_INSTRUMENT`)
/// or for the loans of a sub-line priced apart (`names_sub_line`).
fn names_another_instrument(doc: &Document<'_>, mention: &BenchmarkMatch) -> bool {
    let clause = clause_around(doc.text, mention.span.start);
    let lead_in = doc.slice(clause.start..mention.span.start);
    matches_outside_date_names(&ANOTHER_INSTRUMENT, lead_in)
        || super::names_sub_line(lead_in)
        || SWAP_AFTER.is_match(doc.slice(after(doc.text, mention.span.end, 24)))
}

/// "a spread to 5-year SOFR swaps", "the SOFR swap rate": a benchmark named as the leg of a swap
/// is the measure of that swap (a rate quoted for comparison), not of the loans.
static SWAP_AFTER: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)^[ \t\r\n]+(?:[a-z]+[ \t\r\n]+)?swaps?\b"));

/// The benchmark mentions in the provisions that state this document's terms: a rate named only
/// as one that may replace the benchmark ("Term SOFR" in a LIBOR agreement's successor-rate
/// provisions), or by a recital of what an existing agreement provided, is not a rate the loans
/// bear.
fn in_force<'d>(doc: &'d Document<'_>) -> impl Iterator<Item = &'d BenchmarkMatch> {
    doc.benchmarks.iter().filter(|b| doc.provisions.set_aside(b.span.clone()).is_none())
}

/// The index a facility uses when no statement names one for it: the benchmark in force the
/// agreement defines for the facility's currency (Term SOFR before daily SOFR before LIBOR before
/// prime for dollars: an agreement that names SOFR outside its replacement provisions has replaced
/// LIBOR with it; EURIBOR before €STR for euro).
pub(super) fn default_index(doc: &Document<'_>, currency: CurrencyCode) -> Option<Sourced<FloatingRateIndex>> {
    let preference: &[FloatingRateIndex] = match currency.as_str() {
        "USD" => &[
            FloatingRateIndex::UsdSofrCmeTerm,
            FloatingRateIndex::UsdSofr,
            FloatingRateIndex::UsdLibor,
            FloatingRateIndex::UsdPrime,
        ],
        "GBP" => &[FloatingRateIndex::GbpSonia, FloatingRateIndex::GbpLibor],
        "EUR" => &[FloatingRateIndex::EurEuribor, FloatingRateIndex::EurEuroStr, FloatingRateIndex::EurLibor],
        "CHF" => &[FloatingRateIndex::ChfSaron, FloatingRateIndex::ChfLibor],
        "JPY" => &[FloatingRateIndex::JpyTona, FloatingRateIndex::JpyLibor],
        "CAD" => &[FloatingRateIndex::CadCorra],
        _ => &[],
    };
    let loans = loans_benchmarks(doc);
    let risk_free = bears_risk_free(&loans);
    for &index in preference {
        if index == FloatingRateIndex::UsdPrime && (risk_free || only_legs_of_the_base_rate(doc, &loans)) {
            continue;
        }
        if let Some(mention) = libor_for_currency(doc, index) {
            return doc.sourced(mention.span.clone(), index);
        }
        let mentions = || loans.iter().filter(|b| b.index == index && !b.base_rate);
        let defined = mentions().find(|b| {
            let lead = doc.slice(before(doc.text, b.span.start, 3));
            lead.ends_with('"') || lead.ends_with('“')
        });
        if let Some(mention) = defined.or_else(|| mentions().next()) {
            return doc.sourced(mention.span.clone(), index);
        }
    }
    None
}

/// Whether every prime rate the loans' benchmarks name is one leg of the alternate base rate's
/// definition ("Base Rate" means the greatest of (a) the Prime Rate, …): the loans fall back on
/// the base rate when their benchmark is unavailable, so those legs do not make them prime rate
/// loans.
fn only_legs_of_the_base_rate(doc: &Document<'_>, loans: &[&BenchmarkMatch]) -> bool {
    let mut primes = loans.iter().filter(|b| b.index == FloatingRateIndex::UsdPrime && !b.base_rate).peekable();
    primes.peek().is_some()
        && primes.all(|b| {
            let in_definition = doc.structure.definition_at(b.span.start).is_some_and(|definition| {
                find_benchmarks(doc.slice(definition.term.clone())).iter().any(|named| named.base_rate)
            });
            // A definition given inside another's paragraph ("… the Base Rate plus 1.75%. "Base
            // Rate" means the greatest of (a) the Prime Rate, …") is found by its own sentence.
            let lead = doc.slice(sentence_around(doc.text, b.span.start).start..b.span.start);
            let defined_in_sentence = BASE_RATE_MEANS.is_match(lead);
            in_definition || defined_in_sentence
        })
}

/// A sentence that defines the base rate: `"Base Rate" means`, `"Alternate Base Rate" shall mean`.
static BASE_RATE_MEANS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r#"^[ \t\r\n]*["“](?:Alternate[ \t]+)?Base[ \t]+Rate["”][ \t\r\n]+(?:means|shall[ \t\r\n]+mean|is)\b"#)
});

/// Whether the clause that names `mention` names it as the measure of another rate (see
/// `ANOTHER_RATE`): such a mention does not tell which benchmark the loans bear.
fn names_another_rate(doc: &Document<'_>, mention: &BenchmarkMatch) -> bool {
    let clause = clause_around(doc.text, mention.span.start);
    let lead_in = doc.slice(clause.start..mention.span.start);
    matches_outside_date_names(&super::ANOTHER_RATE, lead_in) || LOWER_BOUND.is_match(lead_in)
}

/// "In no event shall the rate on the Advances be less than Daily Simple SOFR plus 1.00%": a
/// benchmark right after "less than" or "lower than" is a minimum of the loans' rate, not its
/// measure.
static LOWER_BOUND: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:less|lower)[ \t\r\n]+than[ \t\r\n]+(?:the[ \t\r\n]+)?$"));

/// Words that name a currency other than the dollar, for telling which currency a LIBOR mention
/// is quoted in.
const CURRENCY_MENTIONS: &[(&str, &[&str])] = &[
    ("GBP", &["sterling", "pound", "£", "gbp"]),
    ("EUR", &["euro", "€", "eur"]),
    ("CHF", &["swiss franc", "chf"]),
    ("JPY", &["yen", "¥", "jpy"]),
];

/// A LIBOR mention that is quoted in the currency of `index` when `index` is a non-dollar LIBOR:
/// a LIBOR mention whose surrounding words name that currency ("in relation to any Loan
/// denominated in Dollars or Sterling, the LIBOR Rate"). LIBOR was quoted per currency, and an
/// agreement that does not tie it to the facility's currency leaves the index unstated.
fn libor_for_currency<'d>(doc: &'d Document<'_>, index: FloatingRateIndex) -> Option<&'d BenchmarkMatch> {
    if !matches!(
        index,
        FloatingRateIndex::GbpLibor
            | FloatingRateIndex::EurLibor
            | FloatingRateIndex::ChfLibor
            | FloatingRateIndex::JpyLibor
    ) {
        return None;
    }
    let words = CURRENCY_MENTIONS.iter().find(|(code, _)| *code == index.currency())?.1;
    let quoted_in_currency = in_force(doc).filter(|b| b.index == FloatingRateIndex::UsdLibor).find(|b| {
        let clause = clause_around(doc.text, b.span.start);
        let window = clause.start.max(b.span.start.saturating_sub(200))..clause.end.min(b.span.end + 200);
        contains_any_ci(doc.slice(window), words)
    });
    quoted_in_currency.or_else(|| {
        // Loans drawn only in that currency and priced on LIBOR alone bear that currency's LIBOR.
        if currency_of_availability(doc).is_none_or(|currency| currency.as_str() != index.currency()) {
            return None;
        }
        let priced: Vec<&BenchmarkMatch> = loans_benchmarks(doc).into_iter().filter(|b| !b.base_rate).collect();
        let libor_only = priced.iter().all(|b| b.index == FloatingRateIndex::UsdLibor);
        priced.first().copied().filter(|_| libor_only)
    })
}

/// "available to be utilised in Sterling", "available only in euro", "available in Dollars": the
/// currency a statement of the operative text says the facilities' loans are drawn in, with any
/// other currency it names beside it ("in Sterling or in Dollars").
static AVAILABLE_IN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bavailable[ \t\r\n]+(?:to[ \t\r\n]+be[ \t\r\n]+(?:utili[sz]ed|drawn|borrowed)[ \t\r\n]+)?(?:only[ \t\r\n]+)?in[ \t\r\n]+(?P<currency>(?:pounds[ \t\r\n]+)?sterling|euros?|yen|swiss[ \t\r\n]+francs?|(?:u\.?s\.?[ \t\r\n]+)?dollars?)\b(?P<another>[ \t\r\n]*(?:,|or|and|and/or)[ \t\r\n]+(?:in[ \t\r\n]+)?(?:[a-z.]+[ \t\r\n]+)?(?:sterling|euros?|yen|francs?|dollars?|currenc))?",
    )
});

/// The one currency other than the dollar that every statement of the operative text on where the
/// loans are available names ("the Lenders make available … a term loan facility … available to
/// be utilised in Sterling"): the currency of a facility whose amount is not read. `None` when no
/// statement names one, when two name different currencies, or when one names dollars (a dollar
/// facility's currency is read from its benchmark, see `dollars_by_benchmark`).
pub(super) fn currency_of_availability(doc: &Document<'_>) -> Option<CurrencyCode> {
    let mut found: Option<CurrencyCode> = None;
    for captures in AVAILABLE_IN.captures_iter(doc.slice(doc.parts.body.clone())) {
        // "in Sterling or in Dollars", "in euro and any Optional Currency": not one currency.
        if captures.name("another").is_some() {
            return None;
        }
        let code = CurrencyCode::from_words(&captures["currency"])?;
        if code.as_str() == "USD" || found.is_some_and(|seen| seen != code) {
            return None;
        }
        found = Some(code);
    }
    found
}

/// Words that name a currency other than the dollar, or that let the loans be drawn in one:
/// "Alternative Currency", "Canadian Dollars", "Sterling". Whole words, so "Eurodollar" is none.
static OTHER_CURRENCY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:sterling|pounds?|euros?|yen|swiss[ \t\r\n]+francs?|canadian|australian|(?:alternat(?:e|ive)|foreign|optional|other|agreed)[ \t\r\n]+currenc(?:y|ies)|GBP|EUR|JPY|CHF|CAD|AUD)\b|[£€¥]|\bC\$",
    )
});

/// The dollar, for a facility whose amount the document does not state (an amendment that leaves
/// the commitments as they were), when the loans' benchmark itself names dollars: a "Eurodollar"
/// rate is the rate for dollar deposits, and SOFR is a dollar rate. Nothing in the text may name
/// another currency, since a multicurrency agreement's dollar benchmark is not every loan's.
pub(super) fn dollars_by_benchmark(doc: &Document<'_>) -> Option<CurrencyCode> {
    let loans = loans_benchmarks(doc);
    let dollars_only = |b: &&BenchmarkMatch| match b.index {
        FloatingRateIndex::UsdSofrCmeTerm | FloatingRateIndex::UsdSofr => true,
        FloatingRateIndex::UsdLibor => contains_ci(doc.slice(b.span.clone()), "eurodollar"),
        _ => false,
    };
    let priced = loans.iter().filter(|b| !b.base_rate && b.index != FloatingRateIndex::UsdPrime);
    let mut priced = priced.peekable();
    let named = priced.peek().is_some() && loans.iter().any(dollars_only);
    (named && priced.all(|b| b.index.currency() == "USD") && !OTHER_CURRENCY.is_match(doc.text))
        .then(|| CurrencyCode::new("USD"))
        .flatten()
}
