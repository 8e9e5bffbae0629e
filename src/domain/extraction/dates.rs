//! Calendar dates as agreements write them: "March 15, 2024", "15 March 2024", "15th March,
//! 2024", "the 15th day of March, 2024", "2024-03-15". Numeric day/month forms such as
//! "03/04/2024" are deliberately not read: US and English drafting disagree on their order, and
//! the engine does not guess.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use time::{Date, Month};

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

/// Every valid calendar date stated in `text`, in order. Impossible dates ("February 30, 2024")
/// are not dates and are skipped.
pub(crate) fn find_dates(text: &str) -> Vec<DateMatch> {
    DATE.captures_iter(text).filter_map(|c| Some(DateMatch { span: c.get(0)?.range(), date: date_from(&c)? })).collect()
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
            "15 MARCH 2024",
            "2024-03-15",
        ] {
            assert_eq!(parse_date(raw), Some(ymd(2024, Month::March, 15)), "{raw}");
        }
        assert_eq!(parse_date("Sept. 30, 2025"), Some(ymd(2025, Month::September, 30)));
    }

    #[test]
    fn impossible_or_ambiguous_dates_are_not_read() {
        assert_eq!(parse_date("February 30, 2024"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date("03/04/2024"), None);
        assert_eq!(parse_date("March 2024"), None);
        assert_eq!(parse_date("15 March 0024"), None);
    }

    #[test]
    fn dates_are_found_inside_prose_with_their_spans() {
        let text = "dated as of March 15, 2024 and maturing 15 March 2029.";
        let found = find_dates(text);
        let quoted: Vec<&str> = found.iter().map(|d| &text[d.span.clone()]).collect();
        assert_eq!(quoted, ["March 15, 2024", "15 March 2029"]);
    }
}
