//! Time ranges as people type them in chat ("over 1Y", "over the last 6 months", "past year", "last
//! quarter", "5Y"), and the windows a market analysis offers ([`TimeRange`]: 1M, 3M, 6M, 1Y, 5Y).
//!
//! A range the analysis does not offer never silently becomes another one:
//!
//! - **Year to date** ("YTD", "year to date", "this year") is read as 1Y, the shortest offered
//!   window that always covers it (1Y is 252 trading days, a whole year), and its words stay in the
//!   query ([`TimeRangeMention::Covering`]), so the analysis says which period was meant. No
//!   shorter window is honest: in December the year to date is eleven months.
//! - Anything else the analysis does not offer ("over 2 years", "over 18 months", "the last 2
//!   weeks", "this quarter", "this month") is still found, as [`TimeRangeMention::Unsupported`], so
//!   that the grammar keeps it in the words of the query instead of dropping it. Quarter and month
//!   to date are not read as 3M and 1M: a quarter can hold more than 63 trading days and a month
//!   more than 21.

use crate::domain::quant::market::TimeRange;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::compile;

/// A time range found in a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TimeRangeMention {
    /// One of the ranges the market analysis offers.
    Supported(TimeRange),
    /// A period the market analysis does not offer exactly, inside one it does: the year to date,
    /// covered by 1Y. Its words stay in the query.
    Covering(TimeRange),
    /// A range the market analysis does not offer ("2 years", "this quarter").
    Unsupported,
}

static TIME_PHRASE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:\b(?P<prep>over|for|across|in|during|within|from)\s+)?(?:\bthe\s+)?(?:\b(?P<last>last|past|previous|trailing|prior)\s+)?(?:\b(?P<n>\d{1,3}|one|two|three|four|five|six|twelve|a|an)(?P<sep>\s+|-)?)?(?P<unit>years?|yrs?|y|months?|mos?|m|quarters?|q|weeks?|days?)\b",
    )
});

static OTHER_TIME_PHRASE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:\b(?:over|for|across|in|during|within)\s+)?(?:\bthe\s+)?(?:\b(?P<half>(?:last|past)\s+)?half(?:\s+a|-a)?[\s-]year\b|\b(?P<ytd>ytd|year[\s-]to[\s-]date|this\s+year|so\s+far\s+this\s+year)\b|\b(?P<to_date>[qmw]td|(?:quarter|month|week)[\s-]to[\s-]date|this\s+(?:quarter|month|week))\b)",
    )
});

/// The first time range in `text` and where it is. Digits with a unit need a preposition or
/// "last/past" before them ("over 5 years") or the compact form ("5Y", "6M"), so that "5-year
/// treasuries" or "2 year notes" are not read as ranges.
pub(super) fn find_time_range(text: &str) -> Option<(TimeRangeMention, Range<usize>)> {
    let mut found: Option<(TimeRangeMention, Range<usize>)> = None;
    for captures in TIME_PHRASE.captures_iter(text) {
        let Some(whole) = captures.get(0) else { continue };
        let has_prep = captures.name("prep").is_some();
        let has_last = captures.name("last").is_some();
        let number = captures.name("n").map(|m| m.as_str().to_ascii_lowercase());
        let separator = captures.name("sep").map(|m| m.as_str());
        let unit = captures.name("unit").map(|m| m.as_str().to_ascii_lowercase()).unwrap_or_default();
        let single_letter_unit = unit.len() == 1;
        let compact = number.as_deref().is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
            && separator.is_none()
            && single_letter_unit;
        let adjectival = separator == Some("-");
        let valid = !adjectival
            && match &number {
                Some(_) => compact || (has_prep || has_last) && !single_letter_unit,
                None => has_last && !single_letter_unit,
            };
        if !valid {
            continue;
        }
        let count = match number.as_deref() {
            None | Some("a" | "an" | "one") => 1,
            Some("two") => 2,
            Some("three") => 3,
            Some("four") => 4,
            Some("five") => 5,
            Some("six") => 6,
            Some("twelve") => 12,
            Some(digits) => digits.parse::<u32>().unwrap_or(0),
        };
        let months = match unit.chars().next() {
            Some('y') => Some(count * 12),
            Some('q') => Some(count * 3),
            Some('m') => Some(count),
            _ => None,
        };
        let mention = match months.and_then(TimeRange::from_months) {
            Some(range) => TimeRangeMention::Supported(range),
            None => TimeRangeMention::Unsupported,
        };
        found = Some((mention, whole.range()));
        break;
    }
    if let Some(captures) = OTHER_TIME_PHRASE.captures(text)
        && let Some(whole) = captures.get(0)
        && found.as_ref().is_none_or(|(_, range)| whole.start() < range.start)
    {
        let mention = if captures.name("ytd").is_some() {
            TimeRangeMention::Covering(TimeRange::OneYear)
        } else if captures.name("to_date").is_some() {
            TimeRangeMention::Unsupported
        } else {
            TimeRangeMention::Supported(TimeRange::SixMonths)
        };
        found = Some((mention, whole.range()));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_year_to_date_is_covered_by_one_year_and_said_so() {
        let covered = Some(TimeRangeMention::Covering(TimeRange::OneYear));
        for text in ["YTD", "ytd", "year to date", "year-to-date", "performed this year"] {
            assert_eq!(find_time_range(text).map(|(mention, _)| mention), covered, "{text}");
        }
    }

    #[test]
    fn time_ranges_need_a_preposition_or_the_compact_form() {
        let range = |text: &str| find_time_range(text).map(|(mention, _)| mention);
        assert_eq!(range("over 1Y"), Some(TimeRangeMention::Supported(TimeRange::OneYear)));
        assert_eq!(range("over the last 6 months"), Some(TimeRangeMention::Supported(TimeRange::SixMonths)));
        assert_eq!(range("in the past year"), Some(TimeRangeMention::Supported(TimeRange::OneYear)));
        assert_eq!(range("last quarter"), Some(TimeRangeMention::Supported(TimeRange::ThreeMonths)));
        assert_eq!(range("over five years"), Some(TimeRangeMention::Supported(TimeRange::FiveYears)));
        assert_eq!(range("over the last half year"), Some(TimeRangeMention::Supported(TimeRange::SixMonths)));
        assert_eq!(range("over 2 years"), Some(TimeRangeMention::Unsupported));
        assert_eq!(range("over 18 months"), Some(TimeRangeMention::Unsupported));
        assert_eq!(range("over the last 2 weeks"), Some(TimeRangeMention::Unsupported));
        assert_eq!(range("this quarter"), Some(TimeRangeMention::Unsupported));
        assert_eq!(range("QTD"), Some(TimeRangeMention::Unsupported));
        assert_eq!(range("1y"), Some(TimeRangeMention::Supported(TimeRange::OneYear)));
        assert_eq!(range("past 12 months"), Some(TimeRangeMention::Supported(TimeRange::OneYear)));
        assert_eq!(range("last year"), Some(TimeRangeMention::Supported(TimeRange::OneYear)));
        assert_eq!(range("5-year treasuries"), None);
        assert_eq!(range("2 year notes"), None);
        assert_eq!(range("the market"), None);
    }
}
