//! Interest conventions: the day count, how often interest is paid, the interest periods the
//! borrower may choose and the benchmark's tenor.

use std::sync::LazyLock;

use regex::Regex;

use super::candidates::PricingCandidates;
use crate::domain::extraction::currency::CurrencyCode;
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::{DayCountFraction, Period, PeriodUnit};
use crate::domain::extraction::scope::{Scoped, facilities_named_in, scope_at};
use crate::domain::extraction::text::{
    any_word, clause_around, contains_any_ci, contains_ci, pattern, sentence_around,
};

static DAY_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?P<act>\b(?:actual|act)[ \t]*/[ \t]*(?P<act_base>360|365(?:[ \t]*\(?[ \t]*fixed[ \t]*\)?)?|366|actual))|(?P<thirty_e>\b30E[ \t]*/[ \t]*360\b)|(?P<thirty>\b30[ \t]*/[ \t]*360\b)|(?P<leap>\byear[ \t\r\n]+of[ \t\r\n]+365[ \t\r\n]+(?:days[ \t\r\n]+)?or[ \t\r\n]+366[ \t\r\n]+days\b)|(?P<year>\byear[ \t\r\n]+of[ \t\r\n]+(?P<year_days>360|365)[ \t\r\n]+days\b(?P<or_leap>[ \t\r\n]*(?:\(|,)?[ \t\r\n]*or[ \t\r\n]+(?:,[ \t]*)?(?:in[ \t\r\n]+the[ \t\r\n]+case[ \t\r\n]+of[ \t\r\n]+a[ \t\r\n]+leap[ \t\r\n]+year,?[ \t\r\n]+)?366[ \t\r\n]+days)?)|(?P<day_year>\b(?P<day_year_days>360|365)-day[ \t\r\n]+year\b)",
    )
});

/// Currencies a clause may restrict a statement to, by the words used for them.
const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("sterling", "GBP"),
    ("gbp", "GBP"),
    ("£", "GBP"),
    ("euro", "EUR"),
    ("€", "EUR"),
    ("dollar", "USD"),
    ("usd", "USD"),
    ("yen", "JPY"),
    ("swiss franc", "CHF"),
];

pub(super) fn day_counts(doc: &Document<'_>, out: &mut PricingCandidates) {
    let mut previous_end = 0;
    for captures in DAY_COUNT.captures_iter(doc.text) {
        let Some(whole) = captures.get(0) else { continue };
        let value = if let Some(base) = captures.name("act_base") {
            let base = base.as_str().to_ascii_lowercase();
            if base.starts_with("360") {
                DayCountFraction::Act360
            } else if base.starts_with("365") {
                DayCountFraction::Act365Fixed
            } else {
                DayCountFraction::ActActIsda
            }
        } else if captures.name("thirty_e").is_some() {
            DayCountFraction::ThirtyE360
        } else if captures.name("thirty").is_some() {
            DayCountFraction::Thirty360
        } else if captures.name("leap").is_some() || captures.name("or_leap").is_some() {
            DayCountFraction::ActActIsda
        } else if let Some(days) = captures.name("year_days").or_else(|| captures.name("day_year_days")) {
            if days.as_str() == "360" { DayCountFraction::Act360 } else { DayCountFraction::Act365Fixed }
        } else {
            continue;
        };
        let clause = clause_around(doc.text, whole.start());
        let lead = clause.start.max(previous_end).max(whole.start().saturating_sub(200))..whole.start();
        previous_end = whole.end();
        let lead_text = doc.slice(lead.clone()).to_ascii_lowercase();
        if doc.benchmarks_in(lead.clone()).iter().any(|b| b.base_rate) || lead_text.contains("prime rate") {
            continue;
        }
        let currency = CURRENCY_WORDS
            .iter()
            .find(|(word, _)| lead_text.contains(word))
            .and_then(|(_, code)| CurrencyCode::new(code));
        let keys = facilities_named_in(doc, lead);
        if let Some(value) = doc.sourced(whole.range(), value) {
            out.day_counts.push(Scoped { value, keys, currency, except: Vec::new() });
        }
    }
}

static FREQUENCY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?P<quarterly>quarterly)|(?P<monthly>monthly)|(?P<semi>semi-?annually|semi-?annual|half-?yearly|six-?monthly)|(?P<annually>annually)|every[ \t]+(?P<months>one|three|six|twelve|1|3|6|12)[ \t]+months?)\b",
    )
});

pub(super) fn frequencies(doc: &Document<'_>, out: &mut PricingCandidates) {
    for captures in FREQUENCY.captures_iter(doc.text) {
        let Some(whole) = captures.get(0) else { continue };
        let months = if captures.name("quarterly").is_some() {
            3
        } else if captures.name("monthly").is_some() {
            1
        } else if captures.name("semi").is_some() {
            6
        } else if captures.name("annually").is_some() {
            12
        } else {
            match captures.name("months").map(|m| m.as_str().to_ascii_lowercase()) {
                Some(n) => month_count(&n).unwrap_or(0),
                None => 0,
            }
        };
        if months == 0 {
            continue;
        }
        let clause = clause_around(doc.text, whole.start());
        let lead = doc.slice(clause.start..whole.start()).to_ascii_lowercase();
        let labelled =
            doc.structure.label_at(whole.start()).is_some_and(|l| l.key.clone().starts_with("interest payment"));
        // The interest must be what is payable at this frequency: no fee mentioned after the last
        // mention of interest, and not the base rate's payment dates.
        let about_interest = lead.rfind("interest").is_some_and(|i| !lead.get(i..).unwrap_or("").contains("fee"));
        let base_rate = doc.benchmarks_in(clause.start..whole.start()).iter().any(|b| b.base_rate);
        // "where the Interest Period exceeds three months, every three months": an intermediate
        // payment for long periods, not the payment frequency.
        let conditional = ["exceed", "longer than", "more than", "in excess"].iter().any(|w| lead.contains(w));
        if !(labelled || about_interest) || base_rate || conditional {
            continue;
        }
        let period = if months == 12 {
            Period { period_multiplier: 1, period: PeriodUnit::Year }
        } else {
            Period::months(months)
        };
        let keys = scope_at(doc, whole.start());
        if let Some(value) = doc.sourced(whole.range(), period) {
            out.frequencies.push(Scoped::new(value, keys));
        }
    }
}

fn month_count(word: &str) -> Option<u32> {
    match word {
        "one" | "1" => Some(1),
        "two" | "2" => Some(2),
        "three" | "3" => Some(3),
        "six" | "6" => Some(6),
        "twelve" | "12" => Some(12),
        _ => None,
    }
}

static INTEREST_PERIODS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\binterest[ \t\r\n]+periods?\b(?:[ \t\r\n]+of|[ \t]*:)[ \t\r\n]+(?P<list>(?:one|two|three|six|twelve|1|2|3|6|12)(?:[ \t\r\n]*(?:,|,?[ \t\r\n]+or|,?[ \t\r\n]+and)[ \t\r\n]+(?:one|two|three|six|twelve|1|2|3|6|12))*)[ \t\r\n]+months?\b",
    )
});

/// Words by which a sentence offers the borrower a choice of interest periods.
static CHOOSES: LazyLock<Regex> = LazyLock::new(|| any_word(&["select", "elect", "choose", "chosen", "option"]));

/// Words by which a sentence names the period that applies when the borrower has not chosen, or
/// limits its choice for a while.
static FALLS_BACK: LazyLock<Regex> =
    LazyLock::new(|| any_word(&["fails to", "failure to", "deemed", "automatic", "only", "not specify", "does not"]));

static TENOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?P<n>one|three|six|twelve|1|3|6|12)[- ]months?[ \t]+(?:term[ \t]+)?(?:SOFR|EURIBOR|SONIA|€STR|ESTR)\b",
    )
});

pub(super) fn periods_and_tenors(doc: &Document<'_>, out: &mut PricingCandidates) {
    for captures in INTEREST_PERIODS.captures_iter(doc.text) {
        let (Some(whole), Some(list)) = (captures.get(0), captures.name("list")) else { continue };
        let periods: Vec<Period> = list
            .as_str()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter_map(|word| month_count(&word.to_ascii_lowercase()))
            .map(Period::months)
            .collect();
        // "Term SOFR for an Interest Period of one month plus 1.00%" inside the base rate is not
        // the borrower's choice of periods.
        let clause = doc.slice(clause_around(doc.text, whole.start()));
        let in_base_rate = doc
            .structure
            .definition_at(whole.start())
            .is_some_and(|d| contains_ci(doc.slice(d.term.clone()), "base rate"));
        if periods.is_empty() || in_base_rate || contains_any_ci(clause, &["highest of", "greatest of"]) {
            continue;
        }
        // One period named where the borrower chooses none, or as the period it is deemed to
        // have chosen ("… shall be continued as Term SOFR Loans with an Interest Period of one
        // month", "the rate for Interest Periods of one month"): a fallback or a reference for
        // another rate, not the periods the loans may have.
        let sentence = doc.slice(sentence_around(doc.text, whole.start()));
        if periods.len() == 1 && (!CHOOSES.is_match(sentence) || FALLS_BACK.is_match(sentence)) {
            continue;
        }
        let keys = scope_at(doc, whole.start());
        if let Some(value) = doc.sourced(whole.range(), periods) {
            out.interest_periods.push(Scoped::new(value, keys));
        }
    }
    for captures in TENOR.captures_iter(doc.text) {
        let (Some(whole), Some(n)) = (captures.get(0), captures.name("n")) else { continue };
        let clause = doc.slice(clause_around(doc.text, whole.start()));
        // "interpolating between SOFR and the one month Term SOFR Rate for the term of such Money
        // Market Loan": tenors a rate is interpolated between are not the index tenor the loans bear.
        if contains_any_ci(clause, &["base rate", "highest of", "greatest of", "interpolat"]) {
            continue;
        }
        let Some(months) = month_count(&n.as_str().to_ascii_lowercase()) else { continue };
        let keys = scope_at(doc, whole.start());
        if let Some(value) = doc.sourced(whole.range(), Period::months(months)) {
            out.tenors.push(Scoped::new(value, keys));
        }
    }
}
