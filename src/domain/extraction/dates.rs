//! Calendar dates as agreements write them: "March 15, 2024", "15 March 2024", "15th March,
//! 2024", "the 15th day of March, 2024", "the fifteenth day of March, 2024", "2024-03-15". Numeric day/month forms such as
//! "03/04/2024" are deliberately not read: US and English drafting disagree on their order, and
//! the engine does not guess.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use time::{Date, Month};

use super::number_words::parse_ordinal;
use super::text::{Located, pattern};

/// A stated calendar date.
#[derive(Clone, Debug)]
pub(crate) struct DateMatch {
    pub span: Range<usize>,
    pub date: Date,
}

impl Located for DateMatch {
    fn location(&self) -> Range<usize> {
        self.span.clone()
    }
}

const MONTH: &str = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";

static DATE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?i)\b(?P<m1>{MONTH})\.?[ \t\r\n\u{{a0}}]+(?P<d1>[0-9]{{1,2}})(?:st|nd|rd|th)?\b,?[ \t\r\n\u{{a0}}]+(?P<y1>[0-9]{{4}})\b|\b(?:the[ \t]+)?(?P<d2>[0-9]{{1,2}})(?:st|nd|rd|th)?(?:[ \t]+day)?(?:[ \t]+of)?[ \t\r\n\u{{a0}}]+(?P<m2>{MONTH})\b\.?,?[ \t\r\n\u{{a0}}]+(?P<y2>[0-9]{{4}})\b|\b(?P<y3>[0-9]{{4}})-(?P<mo3>[0-9]{{2}})-(?P<d3>[0-9]{{2}})\b"
    ))
});

/// "day of March, 2020" after a day spelt out as an ordinal ("the fifth day of March, 2020", "the
/// twenty-first day of …"): matched from "day" on, a literal the search skips to, and the ordinal
/// read back from there. One pattern with the thirty ordinals in front of it made every date
/// search of a document twice as slow.
static DAY_OF_MONTH: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?i)\bday[ \t\r\n\u{{a0}}]+of[ \t\r\n\u{{a0}}]+(?P<month>{MONTH})\b\.?,?[ \t\r\n\u{{a0}}]+(?P<year>[0-9]{{4}})\b"
    ))
});

/// Every valid calendar date stated in `text`, in order. Impossible dates ("February 30, 2024")
/// are not dates and are skipped.
pub(crate) fn find_dates(text: &str) -> Vec<DateMatch> {
    let mut found: Vec<DateMatch> = DATE
        .captures_iter(text)
        .filter_map(|c| Some(DateMatch { span: c.get(0)?.range(), date: date_from(&c)? }))
        .collect();
    let in_figures = found.len();
    found.extend(DAY_OF_MONTH.captures_iter(text).filter_map(|c| day_in_words(text, &c)));
    if found.len() > in_figures {
        found.sort_by_key(|d| d.span.start);
    }
    found
}

/// The date of a "day of March, 2020" match whose day is an ordinal in words just before it, one
/// word ("fifth", "twenty-first") or two ("twenty first"); a "the" before it is in the span. A day
/// in figures ("15th day of") is the main pattern's.
fn day_in_words(text: &str, captures: &Captures<'_>) -> Option<DateMatch> {
    let whole = captures.get(0)?;
    let before = text.get(..whole.start())?;
    let last = word_before(before, before.len())?;
    let two_words = word_before(before, last.start).and_then(|earlier| {
        let words = format!("{} {}", before.get(earlier.clone())?, before.get(last.clone())?);
        parse_ordinal(&words).map(|day| (earlier.start, day))
    });
    let (start, day) = two_words.or_else(|| parse_ordinal(before.get(last.clone())?).map(|day| (last.start, day)))?;
    let start = word_before(before, start)
        .filter(|the| before.get(the.clone()).is_some_and(|w| w.eq_ignore_ascii_case("the")))
        .map_or(start, |the| the.start);
    let year: i32 = captures.name("year")?.as_str().parse().ok()?;
    if !(1900..=2200).contains(&year) {
        return None;
    }
    let month = month_from_name(captures.name("month")?.as_str())?;
    let date = Date::from_calendar_date(year, month, u8::try_from(day).ok()?).ok()?;
    Some(DateMatch { span: start..whole.end(), date })
}

/// The word of letters and hyphens ending, after any whitespace, at `end` of `text`.
fn word_before(text: &str, end: usize) -> Option<Range<usize>> {
    let head = text.get(..end)?.trim_end();
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphabetic() || c == '-'))
        .map_or(0, |at| at + head.get(at..).and_then(|rest| rest.chars().next()).map_or(1, char::len_utf8));
    (start < head.len()).then_some(start..head.len())
}

/// Parses one date written in any of the supported forms.
pub fn parse_date(raw: &str) -> Option<Date> {
    let found = find_dates(raw);
    let first = found.first()?;
    (first.span.start == 0 && first.span.end == raw.trim_end().len()).then_some(first.date)
}

fn date_from(captures: &Captures<'_>) -> Option<Date> {
    let (year, month, day) = if let Some(year) = captures.name("y1") {
        (year.as_str(), month_from_name(captures.name("m1")?.as_str())?, captures.name("d1")?.as_str())
    } else if let Some(year) = captures.name("y2") {
        (year.as_str(), month_from_name(captures.name("m2")?.as_str())?, captures.name("d2")?.as_str())
    } else {
        let month: u8 = captures.name("mo3")?.as_str().parse().ok()?;
        (captures.name("y3")?.as_str(), Month::try_from(month).ok()?, captures.name("d3")?.as_str())
    };
    let year: i32 = year.parse().ok()?;
    let day: u8 = day.parse().ok()?;
    if !(1900..=2200).contains(&year) {
        return None;
    }
    Date::from_calendar_date(year, month, day).ok()
}

fn month_from_name(name: &str) -> Option<Month> {
    let lower = name.to_ascii_lowercase();
    let month = match lower.get(..3)? {
        "jan" => Month::January,
        "feb" => Month::February,
        "mar" => Month::March,
        "apr" => Month::April,
        "may" => Month::May,
        "jun" => Month::June,
        "jul" => Month::July,
        "aug" => Month::August,
        "sep" => Month::September,
        "oct" => Month::October,
        "nov" => Month::November,
        "dec" => Month::December,
        _ => return None,
    };
    Some(month)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd(year: i32, month: Month, day: u8) -> Date {
        Date::from_calendar_date(year, month, day).expect("valid test date")
    }

    #[test]
    fn us_english_and_iso_forms_all_read_the_same_date() {
        for raw in [
            "March 15, 2024",
            "MARCH 15, 2024",
            "Mar. 15, 2024",
            "15 March 2024",
            "15th March, 2024",
            "the 15th day of March, 2024",
            "the fifteenth day of March, 2024",
            "Fifteenth day of March 2024",
            "15 MARCH 2024",
            "2024-03-15",
        ] {
            assert_eq!(parse_date(raw), Some(ymd(2024, Month::March, 15)), "{raw}");
        }
        assert_eq!(parse_date("Sept. 30, 2025"), Some(ymd(2025, Month::September, 30)));
        assert_eq!(parse_date("twenty-first day of June, 2019"), Some(ymd(2019, Month::June, 21)));
        assert_eq!(parse_date("Thirty First day of\nJuly, 2019"), Some(ymd(2019, Month::July, 31)));
        assert_eq!(parse_date("first day of June, 1998"), Some(ymd(1998, Month::June, 1)));
    }

    #[test]
    fn impossible_or_ambiguous_dates_are_not_read() {
        assert_eq!(parse_date("February 30, 2024"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date("03/04/2024"), None);
        assert_eq!(parse_date("March 2024"), None);
        assert_eq!(parse_date("15 March 0024"), None);
        assert_eq!(parse_date("thirty-first day of June, 2019"), None);
        assert_eq!(parse_date("last day of June, 2019"), None);
        assert_eq!(parse_date("fifth of March, 2020"), None);
    }

    #[test]
    fn dates_are_found_inside_prose_with_their_spans() {
        let text = "dated as of March 15, 2024 and maturing 15 March 2029.";
        let found = find_dates(text);
        let quoted: Vec<&str> = found.iter().map(|d| &text[d.span.clone()]).collect();
        assert_eq!(quoted, ["March 15, 2024", "15 March 2029"]);
        let text = "made on the fifth day of March, 2020, effective the 15th day of March, 2020, until the same day of\nMarch 2021 or the twenty first day of June, 2025.";
        let found = find_dates(text);
        let quoted: Vec<&str> = found.iter().map(|d| &text[d.span.clone()]).collect();
        assert_eq!(
            quoted,
            ["the fifth day of March, 2020", "the 15th day of March, 2020", "the twenty first day of June, 2025"]
        );
        assert_eq!(found[2].date, ymd(2025, Month::June, 21));
    }
}
