//! Byte ranges of the text that never split a character: boundaries, windows before and after a
//! position, lines, and the binary-search lookup of located items that keeps scanning linear.

use std::ops::Range;

/// The largest `char` boundary at or below `index` (clamped to the text).
pub(crate) fn floor_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest `char` boundary at or above `index` (clamped to the text).
pub(crate) fn ceil_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// `text[range]`, or `""` when the range is not a valid slice.
pub(crate) fn slice(text: &str, range: Range<usize>) -> &str {
    text.get(range).unwrap_or("")
}

/// The range with surrounding whitespace removed.
pub(crate) fn trim_range(text: &str, range: Range<usize>) -> Range<usize> {
    let piece = slice(text, range.clone());
    let start = range.start + (piece.len() - piece.trim_start().len());
    let end = start + piece.trim().len();
    start..end.max(start)
}

/// The range with surrounding whitespace and the given trailing punctuation removed.
pub(crate) fn trim_range_and(text: &str, range: Range<usize>, trailing: &[char]) -> Range<usize> {
    let trimmed = trim_range(text, range);
    let piece = slice(text, trimmed.clone());
    let kept = piece.trim_end_matches(|c: char| c.is_whitespace() || trailing.contains(&c));
    trimmed.start..trimmed.start + kept.len()
}

/// The word `lead` ends with, letters only, after any trailing space ("“would " gives "would",
/// "by\n" gives "by"); empty when it ends with anything but a letter ("2(b)").
pub(crate) fn last_word(lead: &str) -> &str {
    lead.trim_end().rsplit(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("")
}

/// Up to `max` bytes of text before `pos`, as an absolute range.
pub(crate) fn before(text: &str, pos: usize, max: usize) -> Range<usize> {
    let pos = floor_boundary(text, pos);
    ceil_boundary(text, pos.saturating_sub(max))..pos
}

/// Up to `max` bytes of text after `pos`, as an absolute range.
pub(crate) fn after(text: &str, pos: usize, max: usize) -> Range<usize> {
    let pos = ceil_boundary(text, pos);
    pos..floor_boundary(text, pos.saturating_add(max))
}

/// The line containing `pos`, if it is at most `max` bytes long on either side of `pos`. Bounded
/// so that looking up the lines of many positions stays linear.
pub(crate) fn line_around(text: &str, pos: usize, max: usize) -> Option<Range<usize>> {
    let back = before(text, pos, max);
    let start = match slice(text, back.clone()).rfind('\n') {
        Some(i) => back.start + i + 1,
        None if back.start == 0 => 0,
        None => return None,
    };
    let ahead = after(text, pos, max);
    let end = match slice(text, ahead.clone()).find('\n') {
        Some(i) => ahead.start + i,
        None if ahead.end == text.len() => text.len(),
        None => return None,
    };
    let end = if slice(text, start..end).ends_with('\r') { end - 1 } else { end };
    Some(start..end.max(start))
}

/// The lines of `range`, without their line terminators.
pub(crate) fn lines_in(text: &str, range: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let base = range.start;
    slice(text, range).split('\n').scan(base, |offset, line| {
        let start = *offset;
        *offset += line.len() + 1;
        let end = start + line.trim_end_matches('\r').len();
        Some(start..end)
    })
}

/// Items with a byte range, kept sorted by start so ranges can be looked up by binary search.
pub(crate) trait Located {
    fn location(&self) -> Range<usize>;
}

/// The items of a start-sorted slice that lie entirely within `range`.
pub(crate) fn within<T: Located>(items: &[T], range: Range<usize>) -> &[T] {
    let first = items.partition_point(|item| item.location().start < range.start);
    let rest = items.get(first..).unwrap_or(&[]);
    let count = rest.partition_point(|item| item.location().start < range.end);
    let candidates = rest.get(..count).unwrap_or(&[]);
    let fitting = candidates.iter().take_while(|item| item.location().end <= range.end).count();
    // Items are sorted by start, not end: an item that overruns the range ends the run, which only
    // happens for the last candidate since located items never overlap.
    candidates.get(..fitting).unwrap_or(&[])
}

/// A set of text ranges with a membership test by binary search (overlapping ranges are merged).
pub(crate) struct Regions(Vec<Range<usize>>);

impl Regions {
    pub(crate) fn new(mut ranges: Vec<Range<usize>>) -> Self {
        ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
        for range in ranges {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        Self(merged)
    }

    pub(crate) fn contains(&self, pos: usize) -> bool {
        let index = self.0.partition_point(|r| r.start <= pos);
        index.checked_sub(1).and_then(|i| self.0.get(i)).is_some_and(|r| pos < r.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_never_split_a_character() {
        let text = "€€€€";
        let window = before(text, 7, 4);
        assert!(text.get(window.clone()).is_some(), "{window:?}");
        let window = after(text, 1, 4);
        assert!(text.get(window).is_some());
    }

    #[test]
    fn a_line_is_found_only_when_short_enough() {
        let text = "first\nsecond line\nthird";
        assert_eq!(line_around(text, 9, 50).map(|r| &text[r]), Some("second line"));
        assert_eq!(line_around(text, 9, 3), None);
    }

    #[test]
    fn the_last_word_is_the_letters_a_lead_ends_with() {
        assert_eq!(last_word("the ratio \u{201c}would "), "would");
        assert_eq!(last_word("as amended by\n"), "by");
        assert_eq!(last_word("in Section 2(b)"), "");
        assert_eq!(last_word(""), "");
    }
}
