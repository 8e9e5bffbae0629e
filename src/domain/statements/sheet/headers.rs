//! Reading a column header as a period: the period end it names ("Dec 31, 2023", "31/12/2023",
//! "2023-12-31", "Sep-24"; or a fiscal label, "FY2023", "Q1 2024", "H1 2024", "9M 2024", resolved
//! with the fiscal year end), how many months it covers when its words say ("Three months
//! ended", "Year ended", "Q3", "H1"), and whether it is a trailing twelve months.

use std::sync::LazyLock;

use regex::Regex;
use time::{Date, Month};

use crate::domain::calendar::MONTH_NAMES;

/// What a header cell says about its column.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HeaderReading {
    /// A fiscal period ending at `end`; `months` when the header's words state the length;
    /// `fiscal_label` when the end was worked out from a label ("FY2023", "Q1 2024") and the
    /// fiscal year end.
    Period { end: Date, months: Option<u32>, fiscal_label: bool },
    /// A trailing (last) twelve months: twelve months, but not a fiscal period.
    TrailingTwelveMonths,
}

fn pattern(source: &str) -> Regex {
    Regex::new(source).unwrap_or_else(|e| panic!("pattern {source}: {e}"))
}

static TRAILING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b(?:ltm|ttm|trailing (?:twelve|12) months|last (?:twelve|12) months)\b"));
static NINE_MONTHS: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(?:nine|9)[ -]months?\b|\b9 ?m\b|\b9 mos\b"));
static SIX_MONTHS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"\b(?:six|6)[ -]months?\b|\b6 ?m\b|\b6 mos\b|\bhalf[ -]year|\bh[12]\b|\b[12]h|\bsemi-?annual")
});
static THREE_MONTHS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b(?:three|3)[ -]months?\b|\b3 ?m\b|\b3 mos\b|\bquarter|\bq[1-4]\b|\b[1-4]q"));
static TWELVE_MONTHS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:twelve|12)[ -]months?\b|\b12 ?m\b|\byears? end(?:ed|ing)\b|\bfy|\bfiscal\b|\bannual\b|\bfull[ -]year\b",
    )
});

/// The period length the header's words state.
pub(super) fn months_from_words(lower: &str) -> Option<u32> {
    if NINE_MONTHS.is_match(lower) {
        Some(9)
    } else if SIX_MONTHS.is_match(lower) {
        Some(6)
    } else if THREE_MONTHS.is_match(lower) {
        Some(3)
    } else if TWELVE_MONTHS.is_match(lower) {
        Some(12)
    } else {
        None
    }
}

/// Whether the words say a trailing twelve months ("LTM Sep-24", "TTM").
pub(super) fn is_trailing(lower: &str) -> bool {
    TRAILING.is_match(lower)
}

/// Reads a header text (already lower case); `None` when it names no period.
pub(super) fn read_header_text(lower: &str, fiscal_year_end: Month) -> Option<HeaderReading> {
    if is_trailing(lower) {
        return Some(HeaderReading::TrailingTwelveMonths);
    }
    let months = months_from_words(lower);
    if let Some(end) = find_date(lower) {
        return Some(HeaderReading::Period { end, months, fiscal_label: false });
    }
    let (months_into_year, months) = fiscal_label(lower)?;
    let end = fiscal_period_end(fiscal_year(lower)?, fiscal_year_end, months_into_year)?;
    Some(HeaderReading::Period { end, months: Some(months), fiscal_label: true })
}

static QUARTER: LazyLock<Regex> = LazyLock::new(|| pattern(r"\bq([1-4])\b|\b([1-4])q"));
static HALF: LazyLock<Regex> = LazyLock::new(|| pattern(r"\bh([12])\b|\b([12])h"));
static YEAR_TO_DATE: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b([69]) ?m\b"));
static FISCAL_YEAR: LazyLock<Regex> = LazyLock::new(|| pattern(r"\bfy|\bfiscal\b|\bfinancial year\b"));
/// "2023" or "2023A" (actual) alone; "2024E"/"2024F"/"2024B" are estimates, not read.
static BARE_YEAR: LazyLock<Regex> = LazyLock::new(|| pattern(r"^\s*(?:19|20)[0-9]{2}\s*a?\s*$"));

/// How many months into the fiscal year the labelled period ends, and its length.
fn fiscal_label(lower: &str) -> Option<(u32, u32)> {
    let number = |captures: regex::Captures<'_>| {
        captures.iter().skip(1).flatten().next().and_then(|m| m.as_str().parse::<u32>().ok())
    };
    if let Some(quarter) = QUARTER.captures(lower).and_then(number) {
        return Some((3 * quarter, 3));
    }
    if let Some(half) = HALF.captures(lower).and_then(number) {
        return Some((6 * half, 6));
    }
    if let Some(months) = YEAR_TO_DATE.captures(lower).and_then(number) {
        return Some((months, months));
    }
    (FISCAL_YEAR.is_match(lower) || BARE_YEAR.is_match(lower)).then_some((12, 12))
}

static FOUR_DIGIT_YEAR: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?:^|[^0-9])((?:19|20)[0-9]{2})(?:[^0-9]|$)"));
static TWO_DIGIT_YEAR: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?:fy|'|q[1-4]|[1-4]q|h[12]|[12]h|[69]m)\s*-?\s*([0-9]{2})(?:[^0-9]|$)"));

/// The fiscal year a label names: "FY2023", "Q1 2024", "FY24", "Q1'24", "1Q24".
fn fiscal_year(lower: &str) -> Option<i32> {
    if let Some(captures) = FOUR_DIGIT_YEAR.captures(lower) {
        return captures[1].parse().ok();
    }
    let captures = TWO_DIGIT_YEAR.captures(lower)?;
    captures[1].parse::<i32>().ok().map(|yy| 2000 + yy)
}

/// The end of the period `months_into_year` months into fiscal year `fiscal_year` (named, as
/// usual, by the calendar year it ends in), the fiscal year ending with `fiscal_year_end`.
pub(super) fn fiscal_period_end(fiscal_year: i32, fiscal_year_end: Month, months_into_year: u32) -> Option<Date> {
    let month = i32::from(u8::from(fiscal_year_end)) + i32::try_from(months_into_year).ok()?;
    let (year, month) = if month > 12 { (fiscal_year, month - 12) } else { (fiscal_year - 1, month) };
    month_end(year, Month::try_from(u8::try_from(month).ok()?).ok()?)
}

pub(super) fn month_end(year: i32, month: Month) -> Option<Date> {
    Date::from_calendar_date(year, month, month.length(year)).ok()
}

/// A month name or its abbreviation ("dec", "sept", "december").
pub(super) fn month_named(word: &str) -> Option<Month> {
    if word == "sept" {
        return Some(Month::September);
    }
    if word.len() < 3 {
        return None;
    }
    let index = MONTH_NAMES.iter().position(|name| name.starts_with(word))?;
    Month::try_from(u8::try_from(index + 1).ok()?).ok()
}

static ISO_DATE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?:^|[^0-9])([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[^0-9]|$)"));
static NUMERIC_DATE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?:^|[^0-9])([0-9]{1,2})[/.]([0-9]{1,2})[/.]([0-9]{4}|[0-9]{2})(?:[^0-9]|$)"));
static DAY_MONTH_YEAR: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b([0-9]{1,2})(?:st|nd|rd|th)?[ -]([a-z]+)\.?,?[ -]([0-9]{4}|[0-9]{2})\b"));
static MONTH_DAY_YEAR: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b([a-z]+)\.? ([0-9]{1,2})(?:st|nd|rd|th)?,? ([0-9]{4})\b"));
/// "Dec 2023", "Sep-24", "Dec '23": a month's end. A two-digit year needs `-` or `'`, so that
/// "December 31" is not read as December 2031.
static MONTH_YEAR: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b([a-z]+)\.?(?: ([0-9]{4})|(?:-|\s?')([0-9]{2}))\b"));

/// The first date a header text names (lower case).
pub(super) fn find_date(lower: &str) -> Option<Date> {
    iso_date(lower)
        .or_else(|| numeric_date(lower))
        .or_else(|| named_date(&DAY_MONTH_YEAR, lower, 2, 1, 3))
        .or_else(|| named_date(&MONTH_DAY_YEAR, lower, 1, 2, 3))
        .or_else(|| month_year(lower))
}

fn iso_date(lower: &str) -> Option<Date> {
    ISO_DATE.captures_iter(lower).find_map(|c| date(c[1].parse().ok()?, c[2].parse().ok()?, c[3].parse().ok()?))
}

/// "31/12/2023" or "12/31/2023": the order is told by the number over 12; when both are 12 or
/// less, by which reading is a month end (period ends are); otherwise not read.
fn numeric_date(lower: &str) -> Option<Date> {
    NUMERIC_DATE.captures_iter(lower).find_map(|c| {
        let (a, b): (u8, u8) = (c[1].parse().ok()?, c[2].parse().ok()?);
        let year = full_year(&c[3])?;
        let day_first = date(year, b, a);
        let month_first = date(year, a, b);
        match (day_first, month_first) {
            (Some(d), None) | (None, Some(d)) => Some(d),
            (Some(d), Some(m)) => match (is_month_end(d), is_month_end(m)) {
                (true, false) => Some(d),
                (false, true) => Some(m),
                _ => None,
            },
            (None, None) => None,
        }
    })
}

fn named_date(re: &Regex, lower: &str, month_at: usize, day_at: usize, year_at: usize) -> Option<Date> {
    re.captures_iter(lower).find_map(|c| {
        let month = month_named(&c[month_at])?;
        Date::from_calendar_date(full_year(&c[year_at])?, month, c[day_at].parse().ok()?).ok()
    })
}

fn month_year(lower: &str) -> Option<Date> {
    MONTH_YEAR.captures_iter(lower).find_map(|c| {
        let month = month_named(&c[1])?;
        let year = c.get(2).or_else(|| c.get(3)).and_then(|m| full_year(m.as_str()))?;
        month_end(year, month)
    })
}

fn full_year(text: &str) -> Option<i32> {
    let year: i32 = text.parse().ok()?;
    Some(if text.len() == 2 { 2000 + year } else { year })
}

fn date(year: i32, month: u8, day: u8) -> Option<Date> {
    Date::from_calendar_date(year, Month::try_from(month).ok()?, day).ok()
}

fn is_month_end(date: Date) -> bool {
    date.day() == date.month().length(date.year())
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn period(text: &str, fiscal_year_end: Month) -> Option<(Date, Option<u32>)> {
        match read_header_text(&text.to_lowercase(), fiscal_year_end)? {
            HeaderReading::Period { end, months, .. } => Some((end, months)),
            HeaderReading::TrailingTwelveMonths => None,
        }
    }

    #[test]
    fn dates_in_the_usual_spellings_are_read() {
        let december = Month::December;
        for text in [
            "Dec 31, 2023",
            "December 31 2023",
            "31/12/2023",
            "12/31/2023",
            "2023-12-31",
            "31 Dec 2023",
            "Dec-23",
            "Dec 2023",
        ] {
            assert_eq!(period(text, december), Some((date!(2023 - 12 - 31), None)), "{text}");
        }
        assert_eq!(period("Three months ended March 31, 2024", december), Some((date!(2024 - 03 - 31), Some(3))));
        assert_eq!(period("Nine months ended September 30, 2024", december), Some((date!(2024 - 09 - 30), Some(9))));
        assert_eq!(period("Year ended December 31, 2023", december), Some((date!(2023 - 12 - 31), Some(12))));
        assert_eq!(period("Twelve months ended June 30, 2024", december), Some((date!(2024 - 06 - 30), Some(12))));
        assert_eq!(period("01/02/2023", december), None, "neither reading is a month end");
    }

    #[test]
    fn fiscal_labels_are_resolved_with_the_fiscal_year_end() {
        assert_eq!(period("FY2023", Month::December), Some((date!(2023 - 12 - 31), Some(12))));
        assert_eq!(period("FY 2023", Month::June), Some((date!(2023 - 06 - 30), Some(12))));
        assert_eq!(period("Fiscal 2023", Month::December), Some((date!(2023 - 12 - 31), Some(12))));
        assert_eq!(period("Q1 2024", Month::December), Some((date!(2024 - 03 - 31), Some(3))));
        assert_eq!(period("Q1 FY2024", Month::June), Some((date!(2023 - 09 - 30), Some(3))));
        assert_eq!(period("H1 2024", Month::December), Some((date!(2024 - 06 - 30), Some(6))));
        assert_eq!(period("6M 2024", Month::December), Some((date!(2024 - 06 - 30), Some(6))));
        assert_eq!(period("9M 2024", Month::December), Some((date!(2024 - 09 - 30), Some(9))));
        assert_eq!(period("2023A", Month::December), Some((date!(2023 - 12 - 31), Some(12))));
        assert_eq!(period("2024E", Month::December), None, "an estimate is not a period");
        assert_eq!(period("Fiscal year end", Month::December), None);
    }

    #[test]
    fn trailing_twelve_months_are_told_apart() {
        for text in ["LTM Sep-24", "TTM", "Last twelve months ended June 30, 2024"] {
            assert_eq!(
                read_header_text(&text.to_lowercase(), Month::December),
                Some(HeaderReading::TrailingTwelveMonths)
            );
        }
    }
}
