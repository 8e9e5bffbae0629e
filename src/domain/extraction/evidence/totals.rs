//! Rule 2: a total in the title or on the cover ("$300,000,000 REVOLVING CREDIT AND TERM LOAN
//! AGREEMENT", "This $300,000,000 Credit Agreement is dated …") sizes the whole agreement. It is a
//! facility's commitment only when the agreement has one facility; when it has several, or the
//! title itself names several ("Credit Facilities"), the total is no one facility's.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::domain::extraction::document::{Document, Report};
use crate::domain::extraction::header;
use crate::domain::extraction::scope::Scoped;
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{floor_boundary, lines_in, pattern};

/// How far into a document without a preamble its title may stand.
const TITLE_REACH: usize = 2000;
/// How many lines below a total on a line of its own the title it heads may run.
const TITLE_LINES: usize = 3;

/// The words after an amount that make it the total in a title: capitalised words ending in
/// "Agreement" or "Facilities" ("$300,000,000 REVOLVING CREDIT AND TERM LOAN AGREEMENT").
static TITLE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:(?:[A-Z][A-Za-z/-]*|and|AND|of|OF)[ \t\r\n]+){0,8}?(?:AGREEMENT|Agreement|FACILITIES|Facilities)\b",
    )
});

/// The plural that names several facilities at once: "Senior Secured Credit Facilities".
static FACILITIES: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(?:Facilities|FACILITIES|facilities)\b"));

/// The title block: everything before the preamble (cover page, title, contents), or — without a
/// preamble — the opening lines down to the title.
fn title_block(doc: &Document<'_>) -> Range<usize> {
    match &doc.parts.preamble {
        Some(_) => doc.parts.front.clone(),
        None => header::title(doc)
            .map(|title| title.span().end)
            .filter(|&end| end <= TITLE_REACH)
            .map_or(0..0, |end| 0..end),
    }
}

/// Whether an amount at `span` is a total in a title: in the title block, or heading a title in
/// the document's opening ("This $300,000,000 Revolving Credit and Term Loan Agreement is …").
fn is_title_total(doc: &Document<'_>, block: &Range<usize>, span: &Range<usize>) -> bool {
    let following = span.end..floor_boundary(doc.text, span.end.saturating_add(200));
    block.contains(&span.start)
        || (doc.parts.opening(doc.text).contains(&span.start) && TITLE_AFTER.is_match(doc.slice(following)))
}

/// The title a total at `total` heads: the rest of its line, or — for a total on a line of its
/// own, as cover pages print it — the next lines.
fn titled(doc: &Document<'_>, total: Range<usize>) -> Range<usize> {
    let line_end = doc.slice(total.end..doc.text.len()).find('\n').map_or(doc.text.len(), |i| total.end + i);
    if !doc.slice(total.end..line_end).trim().is_empty() {
        return total.start..line_end;
    }
    let limit = floor_boundary(doc.text, line_end.saturating_add(600));
    let end = lines_in(doc.text, line_end..limit)
        .filter(|line| !doc.slice(line.clone()).trim().is_empty())
        .take(TITLE_LINES)
        .last()
        .map_or(line_end, |line| line.end);
    total.start..end
}

/// Whether the title a total heads names several facilities: two kinds of facility ("REVOLVING
/// CREDIT AND TERM LOAN AGREEMENT") or "Facilities".
fn names_several_facilities(doc: &Document<'_>, total: Range<usize>) -> bool {
    let title = titled(doc, total);
    let mut keys: Vec<_> = doc.refs_in(title.clone()).iter().map(|r| r.key).collect();
    keys.sort();
    keys.dedup();
    keys.len() > 1 || FACILITIES.is_match(doc.slice(title))
}

/// Drops the commitment candidates that are a total in a title, when `facilities` (how many
/// facilities the agreement is found to have) are several or the title names several.
pub(crate) fn leave_aside_title_totals<T>(
    doc: &Document<'_>,
    facilities: usize,
    candidates: &mut Vec<Scoped<Sourced<T>>>,
    report: &mut Report,
) {
    let block = title_block(doc);
    candidates.retain(|candidate| {
        let span = candidate.value.span().range();
        if !is_title_total(doc, &block, &span) {
            return true;
        }
        let reason = if facilities > 1 {
            "is the total in the title of an agreement with several facilities, not one facility's commitment"
        } else if names_several_facilities(doc, span.clone()) {
            "is the total in a title that names several facilities, not one facility's commitment"
        } else {
            return true;
        };
        report.dropped("/facilities/*/commitment", candidate.value.quote(), span, reason);
        false
    });
}
