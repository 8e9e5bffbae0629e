//! The calendar's names as free text writes them, shared by the readers of text (the chat grammar,
//! the people workflow's reading of descriptions, spreadsheet headers): months and weekdays, lower
//! case.

/// The months, January first.
pub const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The days of the week, Monday first.
pub const WEEKDAY_NAMES: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// Whether `word` (lower case) names a month or a day of the week.
pub fn is_month_or_weekday(word: &str) -> bool {
    MONTH_NAMES.contains(&word) || WEEKDAY_NAMES.contains(&word)
}
