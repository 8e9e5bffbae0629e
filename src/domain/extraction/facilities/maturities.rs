//! Final maturities: the dates a maturity definition or label states (or the schedule it refers
//! to), a date defined in passing, what an amendment extends or replaces the maturity to, and for
//! revolving facilities the date the commitments end; not a date that applies only once the
//! borrower extends. A maturity stated relatively ("the fifth anniversary of the Closing Date",
//! "the date two (2) years after the Effective Date") is computed only when the date it counts
//! from is defined as one calendar date, and nothing (an "earlier of", a business-day rule) may
//! move it; the computation is reported with both quotes. Otherwise it is reported, not computed.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::prelude::ToPrimitive;
use time::Date;

use crate::domain::extraction::dates::DateMatch;
use crate::domain::extraction::document::{Document, Report, quoted};
use crate::domain::extraction::model::{AmendedTerm, AmendedTermCategory, StatedValue};
use crate::domain::extraction::number_words::{parse_number_words, parse_ordinal};
use crate::domain::extraction::scope::{Scoped, applies_once_extended, scope_at, unique_keys};
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{
    INLINE_TERM, after, before, contains_any_ci, floor_boundary, normalise_label, pattern, sentence_around,
};

/// The dates stated right after `term` and a colon anywhere in the text, as a schedule of key
/// terms states them ("6. Scheduled Maturity Date: December 28, 2025").
fn stated_after_its_name<'d>(doc: &'d Document<'_>, term: &str) -> Vec<&'d DateMatch> {
    let name = regex::escape(term.trim()).replace(' ', r"[ \t\r\n]+");
    let Ok(keyed) = Regex::new(&format!(r"(?i)\b{name}[ \t]*:[ \t\r\n]*")) else { return Vec::new() };
    keyed
        .find_iter(doc.text)
        .filter_map(|found| {
            doc.dates_in(found.end()..doc.text.len().min(found.end() + 40))
                .first()
                .filter(|d| d.span.start == found.end())
        })
        .collect()
}

/// Definition terms and labels that state a final maturity.
fn is_maturity_term(term: &str) -> bool {
    let lower = term;
    // Whole words: an "Interest Rate Determination Date" is no termination date.
    let ends_with_words = |words: &str| {
        lower.strip_suffix(words).is_some_and(|rest| rest.is_empty() || rest.ends_with(|c: char| !c.is_alphanumeric()))
    };
    let names_maturity = ends_with_words("maturity date")
        || ends_with_words("termination date")
        || matches!(lower, "maturity" | "final maturity" | "tenor" | "term");
    names_maturity
        && !["commitment", "availability", "notice", "extended", "incremental"].iter().any(|w| lower.contains(w))
        && !UNREAD_ADVANCES.iter().any(|w| lower.contains(w))
}

/// Kinds of advances a venture lender's agreement grants beside its revolving line or term loan
/// ("Equipment Advances", "Growth Capital Advances") that are read as no facility: the date their
/// own maturity term ("Equipment Maturity Date") states is theirs, and would otherwise apply to
/// every facility and conflict with the revolving line's.
const UNREAD_ADVANCES: &[&str] = &["equipment", "growth capital", "capital expenditure", "capex"];

/// Dates that, from the words just before them, are not the date a definition sets: "after",
/// "following" or "prior to" a date, a document "dated" one, a deadline ("written notice no later
/// than January 15, 1999" to extend the maturity).
fn is_reference_date(doc: &Document<'_>, start: usize) -> bool {
    let lead = doc.slice(before(doc.text, start, 24));
    // "from June 30, 2023 to September 30, 2023": the date a change runs to is not a reference.
    let lower = lead.trim_end().to_ascii_lowercase();
    if lower.ends_with(" to") && !lower.ends_with("prior to") {
        return false;
    }
    contains_any_ci(lead, &["after", "following", "from", "dated", "prior to", "later than", "earlier than"])
}

/// The operative words of an amendment that changes the maturity: "the Maturity Date of the Note
/// is amended and extended to", "the Maturity Date is hereby amended to be".
static MATURITY_AMENDED_TO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bmaturity[ \t\r\n]+date\b[^.;]{0,60}?\b(?:is|shall[ \t\r\n]+be)[ \t\r\n]+(?:hereby[ \t\r\n]+)?(?:amended[ \t\r\n]+and[ \t\r\n]+extended|extended|amended)[ \t\r\n]+(?:to[ \t\r\n]+be|to|until)[ \t\r\n]+",
    )
});

/// The operative words of a consent to a later maturity, right before the term it extends:
/// "Each Lender so indicating … agrees to extend the", "the Lenders hereby extend the". A lender
/// that "may" or "elects to" extend, or one that "agrees to extend" only once asked, states an
/// option; so does a conditional ("if … agrees to extend"), which the sentence test rules out.
static CONSENTS_TO_EXTEND: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:agrees?[ \t\r\n]+to|hereby)[ \t\r\n]+extends?[ \t\r\n]+(?:the[ \t\r\n]+)?$"));

/// Whether the term at `term_start` is extended by the parties' present consent (see
/// [`CONSENTS_TO_EXTEND`]), not by a lender's choice the sentence makes conditional or optional.
fn consents_to_extend(doc: &Document<'_>, term_start: usize) -> bool {
    if !CONSENTS_TO_EXTEND.is_match(doc.slice(before(doc.text, term_start, 40))) {
        return false;
    }
    let lead = doc.slice(sentence_around(doc.text, term_start).start..term_start).to_ascii_lowercase();
    let words: Vec<&str> = lead.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    !words.iter().any(|w| matches!(*w, "if" | "may" | "elects" | "elect" | "whether" | "unless"))
}

static MATURES_ON: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:matures?|maturing|repaid[ \t\r\n]+in[ \t\r\n]+full)[ \t\r\n]+on[ \t\r\n]+"));

/// Whether a defined term names the date the commitments end: "Commitment Termination Date",
/// "Commitment Expiry Date".
fn is_commitment_end_term(term: &str) -> bool {
    ["commitment termination date", "commitment expiry date", "commitment expiration date"]
        .iter()
        .any(|end| term.ends_with(end))
        && !["availability", "incremental", "delayed", "term loan"].iter().any(|w| term.contains(w))
}

/// The dates the commitments end. For a revolving or letter of credit facility that is its final
/// maturity: nothing can be borrowed or issued after it, and the loans fall due with it. For a term
/// loan it is only the end of the period in which the loan may be drawn, so these dates are used
/// only when every facility revolves.
pub(super) fn commitment_end_candidates(doc: &Document<'_>) -> Vec<Scoped<Sourced<Date>>> {
    let mut candidates = Vec::new();
    for definition in doc.structure.definitions_where(is_commitment_end_term) {
        for date in doc.dates_in(definition.body.clone()).iter().filter(|d| !is_reference_date(doc, d.span.start)) {
            candidates.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
        }
    }
    candidates.retain(|c| !applies_once_extended(doc, c.value.span().start));
    candidates
}

/// Every statement of a final maturity date, with the facilities it is for. A maturity stated
/// relatively ("the fifth anniversary of the Closing Date") is computed when it safely can be
/// ([`relative_maturity`]), and otherwise reported, not computed.
pub(super) fn maturity_candidates(
    doc: &Document<'_>,
    changes: &[AmendedTerm],
    report: &mut Report,
) -> Vec<Scoped<Sourced<Date>>> {
    let mut candidates = Vec::new();
    let mut regions: Vec<Range<usize>> = doc
        .structure
        .definitions_where(is_maturity_term)
        .map(|d| d.body.clone())
        .chain(doc.structure.labels_where(is_maturity_term).map(|l| l.value.clone()))
        .collect();
    regions.sort_by_key(|r| r.start);
    for region in regions {
        let mut dates: Vec<_> =
            doc.dates_in(region.clone()).iter().filter(|d| !is_reference_date(doc, d.span.start)).collect();
        if dates.is_empty()
            && let Some(definition) = doc.structure.definition_at(region.start).filter(|d| d.body == region)
        {
            // "Scheduled Maturity Date" means the date set forth in Section 6 of Schedule A: the
            // schedule states it as "6. Scheduled Maturity Date: December 28, 2025".
            dates.extend(stated_after_its_name(doc, doc.slice(definition.term.clone())));
        }
        if dates.is_empty()
            && let Some(computed) = relative_maturity(doc, region.clone())
        {
            report.warnings.push(format!(
                "computed: /facilities/*/terminationDate {} from {} and {}",
                computed.date,
                quoted(doc.slice(computed.phrase.clone()), computed.phrase.clone()),
                quoted(doc.slice(computed.anchor.clone()), computed.anchor.clone()),
            ));
            candidates.extend(
                doc.sourced(computed.phrase.clone(), computed.date)
                    .map(|d| Scoped::new(d, scope_at(doc, computed.phrase.start))),
            );
            continue;
        }
        if dates.is_empty() {
            let shown = region.start..floor_boundary(doc.text, region.end.min(region.start + 160));
            report.dropped(
                "/facilities/*/terminationDate",
                doc.slice(shown.clone()),
                shown,
                "is not a calendar date and is not computed",
            );
            continue;
        }
        for date in dates {
            candidates.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
        }
    }
    let mut defined_in_passing: Vec<(String, Scoped<Sourced<Date>>)> = Vec::new();
    // "shall be due and payable on November 30, 1998, or such earlier date as … (the "Maturity
    // Date")": the sentence that defines the term in passing states its date before it.
    for captures in INLINE_TERM.captures_iter(doc.text) {
        let (Some(whole), Some(term)) = (captures.get(0), captures.name("term")) else { continue };
        if !is_maturity_term(&normalise_label(term.as_str())) {
            continue;
        }
        let sentence = sentence_around(doc.text, whole.start());
        // "prior to February 28, 1999 (the "Maturity Date")": a date the term names right after it
        // is the term's, whatever the words before it.
        let dates: Vec<_> = doc
            .dates_in(sentence.start..whole.start())
            .iter()
            .filter(|d| {
                !is_reference_date(doc, d.span.start)
                    || doc.slice(d.span.end..whole.start()).trim_matches([' ', ',', '\t', '\r', '\n']).is_empty()
            })
            .collect();
        let [date] = dates.as_slice() else { continue };
        let candidate =
            doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start)));
        if let Some(candidate) = candidate {
            defined_in_passing.push((normalise_label(term.as_str()), candidate.clone()));
            candidates.push(candidate);
        }
    }
    // "The Maturity Date of the Note is amended and extended to March 31, 2022", "is hereby
    // amended to be the Amended Maturity Date": the amendment's operative change prevails over
    // the maturity it recites ("the Note has a maturity date of December 31, 2022").
    let mut amended: Vec<Scoped<Sourced<Date>>> = Vec::new();
    for found in MATURITY_AMENDED_TO.find_iter(doc.text) {
        let window = after(doc.text, found.end(), 60);
        if let Some(date) =
            doc.dates_in(window.clone()).first().filter(|d| doc.slice(found.end()..d.span.start).trim().is_empty())
        {
            amended.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
            continue;
        }
        let named = normalise_label(doc.slice(window).trim_start_matches("the "));
        amended.extend(
            defined_in_passing.iter().filter(|(term, _)| named.starts_with(term.as_str())).map(|(_, c)| c.clone()),
        );
    }
    // An amendment that replaces the date of a maturity term: `The date "June 24, 1996" in the
    // definition of "Maturity Date" is deleted and replaced with the date "December 31, 1998"`.
    // What an amendment changes is read in one place (`amendments.rs`); a change that states the
    // value it replaces is an amendment's, never an original agreement's extension option.
    for change in changes {
        // A change without the old value counts when the parties consent to it in this document
        // ("each Lender … agrees to extend the Termination Date … expiring November 5, 2015"):
        // an option to extend is stated as what a lender may do, never as its agreement to do it.
        let replaces = change.before.is_some() || consents_to_extend(doc, change.term.span().start);
        if !replaces
            || change.category != AmendedTermCategory::MaturityDate
            || !is_maturity_term(&normalise_label(change.term.value()))
        {
            continue;
        }
        // The term names the facility whose maturity it is ("Revolving Credit Maturity Date"):
        // the other facilities keep theirs.
        let keys = unique_keys(doc.refs_in(change.term.span().range()));
        if let StatedValue::Date(date) = *change.after.value() {
            candidates.extend(doc.sourced(change.after.span().range(), date).map(|d| Scoped::new(d, keys.clone())));
        }
    }
    for found in MATURES_ON.find_iter(doc.text) {
        let window = after(doc.text, found.end(), 40);
        if let Some(date) =
            doc.dates_in(window).first().filter(|d| doc.slice(found.end()..d.span.start).trim().is_empty())
        {
            candidates.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
        }
    }
    if !amended.is_empty() {
        candidates = amended;
    }
    candidates.retain(|c| !applies_once_extended(doc, c.value.span().start));
    candidates
}

/// A maturity computed from a relative statement: the phrase that states it, the date it counts
/// from (as the anchor's definition states it), and the date.
struct RelativeMaturity {
    phrase: Range<usize>,
    anchor: Range<usize>,
    date: Date,
}

/// "the fifth anniversary of the Closing Date", "the date that is two (2) years after the
/// Effective Date", "60 months following the Funding Date".
static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:the[ \t\r\n]+(?P<ordinal>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|[4-9]th|10th)[ \t\r\n]+anniversary|(?P<count>[a-z]+(?:-[a-z]+)?|[0-9]{1,3})(?:[ \t\r\n]*\([0-9]{1,3}\))?[ \t\r\n]+(?P<unit>years?|months?)[ \t\r\n]+(?:after|following|from))[ \t\r\n]+(?:of[ \t\r\n]+)?the[ \t\r\n]+(?P<anchor>(?:[A-Z][A-Za-z]*[ \t\r\n]+){0,3}Date)\b",
    )
});

/// Words that let something else decide the date: another date it may be earlier or later than,
/// an adjustment to a business day, an extension.
const MOVES_THE_DATE: &[&str] =
    &["earlier", "later", "business day", "extended", "extension", "accelerat", "sooner", "unless", "if "];

/// Words saying a date is when something happens, not a calendar date ("the date on which the
/// conditions in Section 4.01 are satisfied").
const EVENT_DATE: &[&str] = &["on which", "satisf", "occur", "first date", "upon which", "when "];

/// The maturity a definition body states relatively, when it can be computed: one relative
/// phrase, counted from a term the document defines as one calendar date, with nothing that may
/// move it.
fn relative_maturity(doc: &Document<'_>, body: Range<usize>) -> Option<RelativeMaturity> {
    let text = doc.slice(body.clone());
    let mut found = RELATIVE.captures_iter(text);
    let captures = found.next()?;
    if found.next().is_some() || contains_any_ci(text, MOVES_THE_DATE) {
        return None;
    }
    let months = match (captures.name("ordinal"), captures.name("count"), captures.name("unit")) {
        (Some(ordinal), _, _) => 12 * parse_ordinal(ordinal.as_str())?,
        (None, Some(count), Some(unit)) => {
            let count = count_number(count.as_str())?;
            if unit.as_str().to_ascii_lowercase().starts_with("year") { 12 * count } else { count }
        }
        _ => return None,
    };
    let anchor_term = normalise_label(captures.name("anchor")?.as_str());
    let anchor = defined_date(doc, &anchor_term)?;
    let date = add_months(anchor.date, months)?;
    let whole = captures.get(0)?;
    Some(RelativeMaturity {
        phrase: body.start + whole.start()..body.start + whole.end(),
        anchor: anchor.span.clone(),
        date,
    })
}

/// The one calendar date a term is defined as: in its definition ("\"Funding Date\" means
/// November 15, 2021"), or where it is named right after that date ("dated as of September 25,
/// 2020 (the \"Effective Date\")"). None when the term names an event, or is given two dates.
fn defined_date<'d>(doc: &'d Document<'_>, term: &str) -> Option<&'d DateMatch> {
    let mut found: Vec<&DateMatch> = Vec::new();
    for definition in doc.structure.definitions_where(|key| key == term) {
        if contains_any_ci(doc.slice(definition.body.clone()), EVENT_DATE) {
            return None;
        }
        match doc.dates_in(definition.body.clone()) {
            [date] => found.push(date),
            [] => {}
            _ => return None,
        }
    }
    for captures in INLINE_TERM.captures_iter(doc.text) {
        let (Some(whole), Some(named)) = (captures.get(0), captures.name("term")) else { continue };
        if normalise_label(named.as_str()) != term {
            continue;
        }
        let lead = before(doc.text, whole.start(), 40);
        let date = doc
            .dates_in(lead)
            .last()
            .filter(|d| doc.slice(d.span.end..whole.start()).trim_matches([' ', ',', '\t', '\r', '\n']).is_empty());
        match date {
            Some(date) => found.push(date),
            None => return None,
        }
    }
    match found.as_slice() {
        [first, rest @ ..] if rest.iter().all(|d| d.date == first.date) => Some(first),
        _ => None,
    }
}

/// A count of years or months in figures or words ("36", "thirty-six").
fn count_number(word: &str) -> Option<u32> {
    let count = match word.parse::<u32>() {
        Ok(n) => n,
        Err(_) => parse_number_words(word)?.to_u32()?,
    };
    (count > 0).then_some(count)
}

/// `date` plus `months` calendar months; `None` when the day does not exist in the target month
/// (an anniversary of February 29, the 31st of a shorter month), which a lawyer would not guess.
fn add_months(date: Date, months: u32) -> Option<Date> {
    let total = i64::from(date.year()) * 12 + i64::from(u8::from(date.month())) - 1 + i64::from(months);
    let year = i32::try_from(total.div_euclid(12)).ok()?;
    let month = time::Month::try_from(u8::try_from(total.rem_euclid(12) + 1).ok()?).ok()?;
    Date::from_calendar_date(year, month, date.day()).ok()
}
