//! A covenant's step-down schedule: which stated level is in force on a test date.
//!
//! The extraction keeps each level with the words that say when it applies — a step-down table's
//! first cell ("June 30, 2024 through March 31, 2025", "September 30, 2025 and each fiscal quarter
//! thereafter") or the prose after it ("for the fiscal quarters ending on or before December 31,
//! 2025", "thereafter") — and, separately, the words that make it conditional ("commencing with the
//! fiscal quarter ending March 31, 2025", "following the consummation of a Material Acquisition").
//! Those words are read here into date ranges. A level whose words cannot be read into dates is
//! never guessed into place: a test date that only such a level could cover is not testable, and
//! says which words could not be read. A conditional level is applied only when its condition is a
//! start date ("commencing with …"); an event ("a Material Acquisition") is something statements
//! cannot show, so that level is listed, not applied.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;
use time::Date;

use crate::domain::extraction::pattern;

/// One level of a covenant as the agreement states it.
#[derive(Clone, Debug, PartialEq)]
pub struct StatedLevel {
    pub threshold: f64,
    /// The words that say when the level applies.
    pub period: Option<String>,
    /// The words that make it conditional.
    pub condition: Option<String>,
    /// The agreement's words for the level ("4.50:1.00").
    pub quote: String,
}

/// One step of a read schedule: the level in force for test dates from `from` to `to` (both
/// inclusive; `None` is open).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    #[serde(serialize_with = "iso_date_opt")]
    pub from: Option<Date>,
    #[serde(serialize_with = "iso_date_opt")]
    pub to: Option<Date>,
    pub threshold: f64,
    /// The agreement's words for the level and when it applies.
    pub quote: String,
}

fn iso_date_opt<S: serde::Serializer>(date: &Option<Date>, serializer: S) -> Result<S::Ok, S::Error> {
    match date {
        Some(date) => serializer.collect_str(date),
        None => serializer.serialize_none(),
    }
}

/// A covenant's levels read into steps, with what could not be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schedule {
    pub steps: Vec<Step>,
    /// Levels whose period could not be read into dates: their words.
    pub unread: Vec<String>,
    /// Levels that apply only on an event the statements cannot show: their condition.
    pub conditional: Vec<(f64, String)>,
}

/// The level in force on a test date, or why none can be named.
#[derive(Clone, Debug, PartialEq)]
pub enum InForce<'s> {
    Level(&'s Step),
    /// The first step starts after the test date: the covenant is not tested yet.
    NotYetTested {
        first_test: Date,
    },
    /// No step covers the date and some level's words could not be read.
    Unread(String),
    /// No step covers the date (a table of single test dates that does not list it).
    NotStated,
}

static AND_THEREAFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:and|or)[ \t\r\n]+(?:each|every|any|all)?[ \t\r\n]*(?:(?:fiscal|calendar)[ \t\r\n]+)?(?:quarters?|periods?|test[ \t\r\n]+periods?|dates?|months?)?[ \t\r\n]*(?:ending[ \t\r\n]+)?thereafter\b|\bthereafter\b",
    )
});
static STARTS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:commencing|beginning|starting|effective)(?:[ \t\r\n]+(?:with|on|as[ \t\r\n]+of))?\b|\bon[ \t\r\n]+(?:and|or)[ \t\r\n]+after\b|\bfrom[ \t\r\n]+and[ \t\r\n]+after\b",
    )
});
static STRICTLY_AFTER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:after|following|subsequent[ \t\r\n]+to)\b"));
static ENDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:on[ \t\r\n]+or[ \t\r\n]+(?:before|prior[ \t\r\n]+to)|through|thru|until|up[ \t\r\n]+to[ \t\r\n]+and[ \t\r\n]+including|to[ \t\r\n]+and[ \t\r\n]+including)\b",
    )
});
static STRICTLY_BEFORE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(?:before|prior[ \t\r\n]+to)\b"));
static CLOSING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)^[ \t]*(?:from[ \t]+)?(?:the[ \t]+)?(?:closing|effective|restatement)[ \t]+date\b|^[ \t]*closing\b")
});

/// Reads the levels into steps, in the order stated. "Thereafter" without a date starts the day
/// after the step before it ends.
pub fn read(levels: &[StatedLevel]) -> Schedule {
    let mut schedule = Schedule::default();
    let unconditional: Vec<&StatedLevel> = levels.iter().filter(|l| l.condition.is_none()).collect();
    for level in levels {
        let quote = match (&level.period, &level.condition) {
            (Some(period), _) => format!("{} — {}", level.quote, period),
            (None, Some(condition)) => format!("{} — {}", level.quote, condition),
            (None, None) => level.quote.clone(),
        };
        let previous_end = schedule.steps.last().and_then(|s| s.to);
        match (&level.period, &level.condition) {
            (Some(period), None) => match range(period, previous_end) {
                Some((from, to)) => schedule.steps.push(Step { from, to, threshold: level.threshold, quote }),
                None => schedule.unread.push(period.clone()),
            },
            (None, Some(condition)) => match start_date(condition) {
                Some(from) => {
                    schedule.steps.push(Step { from: Some(from), to: None, threshold: level.threshold, quote })
                }
                None => schedule.conditional.push((level.threshold, condition.clone())),
            },
            (Some(period), Some(condition)) => match (range(period, previous_end), start_date(condition)) {
                (Some((from, to)), Some(start)) => schedule.steps.push(Step {
                    from: Some(from.map_or(start, |f| f.max(start))),
                    to,
                    threshold: level.threshold,
                    quote,
                }),
                _ => schedule.conditional.push((level.threshold, condition.clone())),
            },
            // A single level without a period applies throughout; several without periods are a
            // schedule whose order alone cannot say which is in force.
            (None, None) if unconditional.len() == 1 => {
                schedule.steps.push(Step { from: None, to: None, threshold: level.threshold, quote })
            }
            (None, None) => schedule.unread.push(level.quote.clone()),
        }
    }
    schedule
}

impl Schedule {
    /// The step in force on `date`; when several cover it (a level restated by an amendment is
    /// added last), the last stated wins.
    pub fn in_force(&self, date: Date) -> InForce<'_> {
        if let Some(step) =
            self.steps.iter().rev().find(|s| s.from.is_none_or(|f| f <= date) && s.to.is_none_or(|t| date <= t))
        {
            return InForce::Level(step);
        }
        if let Some(first) = self.steps.iter().filter_map(|s| s.from).min()
            && date < first
            && self.steps.iter().all(|s| s.from.is_some())
        {
            return InForce::NotYetTested { first_test: first };
        }
        match self.unread.first() {
            Some(words) => InForce::Unread(words.clone()),
            None => InForce::NotStated,
        }
    }
}

/// The dates a period's words cover: `(from, to)`, `None` for an open end; `None` when the words
/// hold no date this can place.
fn range(words: &str, previous_end: Option<Date>) -> Option<(Option<Date>, Option<Date>)> {
    let dates = crate::domain::extraction::find_dates(words);
    let thereafter = AND_THEREAFTER.is_match(words);
    match dates.as_slice() {
        [] if thereafter => Some((previous_end.and_then(Date::next_day), None)),
        [] => None,
        [only] => {
            let before = &words[..only.span.start];
            let date = only.date;
            if CLOSING.is_match(before) || ENDS.is_match(before) {
                Some((None, Some(date)))
            } else if STRICTLY_BEFORE.is_match(before) {
                Some((None, date.previous_day()))
            } else if thereafter || STARTS.is_match(before) {
                Some((Some(date), None))
            } else if STRICTLY_AFTER.is_match(before) {
                Some((date.next_day(), None))
            } else {
                // A row of a table of test dates: the level is for the period ending that day.
                Some((Some(date), Some(date)))
            }
        }
        [first, second] => {
            let between = &words[first.span.end..second.span.start];
            let joined = ENDS.is_match(between)
                || between.trim().trim_matches(['-', '–', '—', ',']).trim().eq_ignore_ascii_case("to")
                || between.trim().trim_matches(['-', '–', '—']).is_empty()
                || between.to_ascii_lowercase().contains(" and ");
            (joined && first.date <= second.date).then_some((Some(first.date), Some(second.date)))
        }
        _ => None,
    }
}

/// The start date a condition states ("Commencing with the fiscal quarter ending March 31, 2025"),
/// or `None` for an event.
fn start_date(condition: &str) -> Option<Date> {
    let dates = crate::domain::extraction::find_dates(condition);
    let [only] = dates.as_slice() else { return None };
    let before = &condition[..only.span.start];
    if STARTS.is_match(before) && !STRICTLY_AFTER.is_match(before) { Some(only.date) } else { None }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn level(threshold: f64, period: Option<&str>, condition: Option<&str>) -> StatedLevel {
        StatedLevel {
            threshold,
            period: period.map(str::to_owned),
            condition: condition.map(str::to_owned),
            quote: format!("{threshold:.2}:1.00"),
        }
    }

    fn threshold_on(schedule: &Schedule, date: Date) -> Option<f64> {
        match schedule.in_force(date) {
            InForce::Level(step) => Some(step.threshold),
            _ => None,
        }
    }

    #[test]
    fn a_step_down_table_gives_each_test_date_its_level() {
        let schedule = read(&[
            level(4.5, Some("June 30, 2024 through March 31, 2025"), None),
            level(4.25, Some("June 30, 2025"), None),
            level(4.0, Some("September 30, 2025 and each fiscal quarter ending thereafter"), None),
        ]);
        assert!(schedule.unread.is_empty(), "{schedule:?}");
        assert_eq!(threshold_on(&schedule, date!(2024 - 12 - 31)), Some(4.5));
        assert_eq!(threshold_on(&schedule, date!(2025 - 06 - 30)), Some(4.25));
        assert_eq!(threshold_on(&schedule, date!(2027 - 03 - 31)), Some(4.0));
        assert_eq!(
            schedule.in_force(date!(2024 - 03 - 31)),
            InForce::NotYetTested { first_test: date!(2024 - 06 - 30) }
        );
    }

    #[test]
    fn prose_on_or_before_then_thereafter_steps_down_the_day_after() {
        let schedule = read(&[
            level(5.25, Some("for the fiscal quarters ending on or before December 31, 2025"), None),
            level(4.75, Some("thereafter"), None),
        ]);
        assert_eq!(threshold_on(&schedule, date!(2025 - 12 - 31)), Some(5.25));
        assert_eq!(threshold_on(&schedule, date!(2026 - 03 - 31)), Some(4.75));
    }

    #[test]
    fn a_covenant_that_begins_at_a_later_test_date_is_not_tested_before_it() {
        let schedule = read(&[level(2.5, None, Some("Commencing with the fiscal quarter ending March 31, 2026"))]);
        assert_eq!(
            schedule.in_force(date!(2025 - 12 - 31)),
            InForce::NotYetTested { first_test: date!(2026 - 03 - 31) }
        );
        assert_eq!(threshold_on(&schedule, date!(2026 - 06 - 30)), Some(2.5));
    }

    #[test]
    fn a_level_on_an_event_is_listed_never_applied() {
        let schedule = read(&[
            level(4.0, None, None),
            level(4.5, None, Some("for the four fiscal quarters following the consummation of a Material Acquisition")),
        ]);
        assert_eq!(threshold_on(&schedule, date!(2025 - 06 - 30)), Some(4.0));
        assert_eq!(schedule.conditional.len(), 1);
    }

    #[test]
    fn words_without_a_date_are_never_guessed_into_place() {
        let schedule = read(&[level(4.5, Some("Fiscal Year 2025"), None), level(4.0, Some("Fiscal Year 2026"), None)]);
        assert!(schedule.steps.is_empty());
        assert_eq!(schedule.in_force(date!(2025 - 06 - 30)), InForce::Unread("Fiscal Year 2025".to_owned()));
        // Two levels without periods: which one is in force cannot be told.
        let two = read(&[level(4.5, None, None), level(4.0, None, None)]);
        assert!(matches!(two.in_force(date!(2025 - 06 - 30)), InForce::Unread(_)));
    }

    #[test]
    fn closing_through_a_date_and_before_a_date_end_where_they_say() {
        let schedule = read(&[
            level(1.2, Some("Closing through June 30, 2026"), None),
            level(1.3, Some("July 1, 2026 and thereafter"), None),
        ]);
        assert_eq!(threshold_on(&schedule, date!(2026 - 06 - 30)), Some(1.2));
        assert_eq!(threshold_on(&schedule, date!(2026 - 09 - 30)), Some(1.3));
        let before = read(&[level(3.0, Some("any fiscal quarter ending prior to March 31, 2025"), None)]);
        assert_eq!(threshold_on(&before, date!(2025 - 03 - 30)), Some(3.0));
        assert_eq!(threshold_on(&before, date!(2025 - 03 - 31)), None);
    }
}
