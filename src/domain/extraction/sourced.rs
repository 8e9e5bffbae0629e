//! Values with provenance. Every value the engine extracts is a [`Sourced`]: the value, the byte
//! span of the input it was read from, and the quoted text of that span. The quote is cut from the
//! input by the constructor, so `&text[span] == quote` holds by construction.

use std::ops::Range;

use rust_decimal::Decimal;
use serde::{Serialize, Serializer};
use time::Date;

/// A half-open byte range `start..end` into the extracted text. Both ends are `char` boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    /// First byte of the quoted text.
    pub start: usize,
    /// One past the last byte of the quoted text.
    pub end: usize,
}

impl Span {
    /// The span of `range`.
    pub fn from_range(range: Range<usize>) -> Self {
        Self { start: range.start, end: range.end }
    }

    /// The span as a range, for slicing the text it came from.
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// An extracted value together with where it was stated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sourced<T> {
    value: T,
    span: Span,
    quote: String,
}

impl<T> Sourced<T> {
    /// The value read from `text[range]`. `None` when the range is not a slice of `text` on
    /// `char` boundaries, so a `Sourced` always quotes its source exactly.
    pub fn new(text: &str, range: Range<usize>, value: T) -> Option<Self> {
        let quote = text.get(range.clone())?.to_owned();
        Some(Self { value, span: Span::from_range(range), quote })
    }

    /// The normalised value.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// Where in the input the value was stated.
    pub fn span(&self) -> Span {
        self.span
    }

    /// The stated text, exactly as it appears in the input.
    pub fn quote(&self) -> &str {
        &self.quote
    }

    /// The same provenance with a value derived from this one.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Sourced<U> {
        Sourced { value: f(self.value), span: self.span, quote: self.quote }
    }

    /// The provenance of this value, as it appears in the serialized `provenance` map.
    pub fn provenance(&self) -> Provenance {
        Provenance { start: self.span.start, end: self.span.end, quote: self.quote.clone() }
    }
}

/// How a value is written in the serialized agreement. Exists because `time::Date`'s own serde
/// form is a tuple, while the agreement wants ISO 8601 dates as CDM does.
pub trait SourcedValue {
    /// Serialize the bare value.
    fn serialize_value<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// Implements [`SourcedValue`] for types whose serde form is already the form the agreement
/// wants: the value serializes as itself.
macro_rules! sourced_value_via_serde {
    ($($ty:ty),* $(,)?) => {
        $(impl $crate::domain::extraction::sourced::SourcedValue for $ty {
            fn serialize_value<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(self, serializer)
            }
        })*
    };
}
pub(super) use sourced_value_via_serde;

sourced_value_via_serde!(String, Decimal, bool);

impl SourcedValue for Date {
    fn serialize_value<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (year, month, day) = (self.year(), u8::from(self.month()), self.day());
        serializer.collect_str(&format_args!("{year:04}-{month:02}-{day:02}"))
    }
}

impl<T: SourcedValue> Serialize for Sourced<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize_value(serializer)
    }
}

/// Where one value of the agreement was read from: an entry of the agreement's `provenance` map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// First byte of the quoted text.
    pub start: usize,
    /// One past the last byte of the quoted text.
    pub end: usize,
    /// The text at `start..end`.
    pub quote: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sourced_value_quotes_exactly_the_span_it_was_read_from() {
        let text = "dated as of March 15, 2024";
        let sourced = Sourced::new(text, 12..26, "x".to_owned()).expect("valid span");
        assert_eq!(sourced.quote(), "March 15, 2024");
        assert_eq!(&text[sourced.span().range()], sourced.quote());
    }

    #[test]
    fn a_span_that_splits_a_character_is_refused() {
        assert!(Sourced::new("€500", 1..4, ()).is_none());
        assert!(Sourced::new("abc", 2..9, ()).is_none());
    }

    #[test]
    fn dates_serialize_as_iso_8601() {
        let date = Date::from_calendar_date(2024, time::Month::March, 5).expect("valid date");
        let sourced = Sourced::new("5 March 2024", 0..12, date).expect("valid span");
        assert_eq!(serde_json::to_string(&sourced).expect("serializes"), "\"2024-03-05\"");
    }
}
