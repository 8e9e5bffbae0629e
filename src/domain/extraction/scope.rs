//! Which facilities a stated value is for, and which stated values apply to a facility.
//!
//! A value belongs to the facilities referenced in its clause ("(b) in relation to Facility B, 15
//! March 2028"), or, failing that, in the defined term or label that states it ("Term A Maturity
//! Date" means …). A value stated with no facility reference applies to every facility, but a
//! value stated for a facility prevails over such a general one, as the specific prevails over the
//! general in the agreements themselves. In an agreement with a single facility both describe the
//! same loans and are pooled. Values that still disagree are a conflict and are withheld.
//!
//! Facilities (`facilities/`) and pricing (`pricing/`) both read their candidates through this
//! module, and resolve them per [`FacilityFrame`].

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::currency::CurrencyCode;
use super::document::{Document, Report, agree};
use super::facility_refs::{FacilityKey, FacilityRef};
use super::model::FacilityType;
use super::sourced::Sourced;
use super::text::{clause_around, pattern};

/// A candidate value and the facilities it is stated for: none means every facility; a currency
/// means facilities in that currency.
#[derive(Clone, Debug)]
pub(crate) struct Scoped<T> {
    pub value: T,
    pub keys: Vec<FacilityKey>,
    pub currency: Option<CurrencyCode>,
    /// Facilities a value stated for every facility excludes: "For all Loans other than U.S.
    /// Term Loans".
    pub except: Vec<FacilityKey>,
}

impl<T> Scoped<T> {
    pub(crate) fn new(value: T, keys: Vec<FacilityKey>) -> Self {
        Self { value, keys, currency: None, except: Vec::new() }
    }

    pub(crate) fn with_scope(value: T, scope: Scope) -> Self {
        Self { value, keys: scope.keys, currency: None, except: scope.except }
    }
}

/// The facilities a statement is for, and those it excludes by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    pub keys: Vec<FacilityKey>,
    pub except: Vec<FacilityKey>,
}

/// How far back in a clause a facility reference still scopes a value.
const SCOPE_BACK: usize = 300;
/// How far after a value a facility reference may name what it is for ("2.00% for Term B Loans").
const SCOPE_AHEAD: usize = 120;

/// The facilities a value stated at `pos` is for: references earlier in its clause, else in the
/// defined term or label stating it, else shortly after it in its clause.
pub(crate) fn scope_at(doc: &Document<'_>, pos: usize) -> Vec<FacilityKey> {
    scope_of(doc, pos).keys
}

/// As [`scope_at`], with the facilities the statement excludes ("for all Loans other than Term
/// Loans"), which are never among those it is for.
pub(crate) fn scope_of(doc: &Document<'_>, pos: usize) -> Scope {
    let clause = clause_around(doc.text, pos);
    let back = clause.start.max(pos.saturating_sub(SCOPE_BACK));
    let mut scope = split_excluded(doc, doc.refs_in(back..pos));
    // "(b) with respect to Term B Loans, (i) 2.75% … and (ii) 1.75% …": a roman sub-item is
    // scoped by the lead-in of the list it belongs to, which comes before its "(i)".
    let mut item_start = clause.start;
    if scope.keys.is_empty()
        && !starts_with_roman_item(doc.slice(item_start..pos))
        && let Some(item) = roman_item_before(doc, pos)
    {
        item_start = item;
    }
    for _ in 0..3 {
        if !scope.keys.is_empty() || !starts_with_roman_item(doc.slice(item_start..pos)) || item_start == 0 {
            break;
        }
        let first_item = first_item_of_list(doc, item_start);
        // The lead-in ends before the list, often with a colon that closes its clause.
        let lead_end = doc.slice(0..first_item).trim_end().trim_end_matches(':').len();
        let parent = clause_around(doc.text, lead_end.saturating_sub(1));
        let lead_in =
            split_excluded(doc, doc.refs_in(parent.start.max(first_item.saturating_sub(SCOPE_BACK))..first_item));
        for key in lead_in.except {
            if !scope.except.contains(&key) {
                scope.except.push(key);
            }
        }
        scope.keys = lead_in.keys;
        item_start = parent.start;
    }
    if scope.keys.is_empty()
        && let Some(definition) = doc.structure.definition_at(pos)
    {
        scope.keys = unique_keys(doc.refs_in(definition.term.clone()));
    }
    if scope.keys.is_empty()
        && let Some(label) = doc.structure.label_at(pos)
    {
        scope.keys = unique_keys(doc.refs_in(label.name.clone()));
    }
    if scope.keys.is_empty() && scope.except.is_empty() {
        let ahead = clause.end.min(pos.saturating_add(SCOPE_AHEAD));
        scope = split_excluded(doc, doc.refs_in(pos..ahead.max(pos)));
    }
    scope.except.retain(|key| !scope.keys.contains(key));
    scope
}

/// A roman-numbered list item opening a line or following the end of the previous item
/// ("…; and (ii)"), not a cross-reference ("clause (i) above").
static ROMAN_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?m)(?:^[ \t]*|[;:][ \t\r\n]*(?:(?:and|or)[ \t\r\n]+)?)(?P<item>\((?:i|ii|iii|iv|v|vi|vii|viii|ix|x)\))")
});

/// The start of the roman-numbered item that `pos` lies in, if one opens within a few lines
/// before it.
fn roman_item_before(doc: &Document<'_>, pos: usize) -> Option<usize> {
    let from = super::text::floor_boundary(doc.text, pos.saturating_sub(600));
    let item = ROMAN_ITEM.captures_iter(doc.slice(from..pos)).last()?.name("item")?;
    Some(from + item.start())
}

/// How far back the "(i)" of a list may be from a later item of it.
const LIST_REACH: usize = 3000;

/// The start of the "(i)" item of the roman-numbered list whose item starts at `item_start`
/// (`item_start` itself when it is the "(i)" or no "(i)" is near).
fn first_item_of_list(doc: &Document<'_>, item_start: usize) -> usize {
    if doc.slice(item_start..doc.text.len().min(item_start + 3)) == "(i)" {
        return item_start;
    }
    // Within the definition the item belongs to: an "(i)" of an earlier one starts another list.
    let definition_start = doc.structure.definition_at(item_start).map_or(0, |d| d.term.start);
    let from = super::text::floor_boundary(doc.text, item_start.saturating_sub(LIST_REACH).max(definition_start));
    // An opening "(i)", not a cross-reference to one ("referred to in clause (i) above").
    ROMAN_ITEM
        .captures_iter(doc.slice(from..item_start))
        .filter_map(|c| c.name("item"))
        .filter(|item| item.as_str() == "(i)")
        .last()
        .map_or(item_start, |item| from + item.start())
}

/// The facilities `refs` name, less those named as exclusions ("other than U.S. Term Loans",
/// "except Swing Loans", "excluding the Term B Loans").
fn split_excluded(doc: &Document<'_>, refs: &[FacilityRef]) -> Scope {
    let mut scope = Scope::default();
    for r in refs {
        let lead = doc.slice(super::text::before(doc.text, r.span.start, 24)).to_ascii_lowercase();
        let lead = lead.split_whitespace().collect::<Vec<_>>().join(" ");
        let excluded =
            ["other than", "except", "excluding", "but not", "other than the", "except the", "excluding the"]
                .iter()
                .any(|w| lead.ends_with(w));
        let list = if excluded { &mut scope.except } else { &mut scope.keys };
        if !list.contains(&r.key) {
            list.push(r.key);
        }
    }
    scope
}

/// Whether `text` opens with a roman-numeral list item: `(i)`, `(ii)`, `(iv)`.
fn starts_with_roman_item(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('(') else { return false };
    let numeral_len = rest.bytes().take_while(|b| matches!(b, b'i' | b'v' | b'x')).count();
    numeral_len > 0 && rest.as_bytes().get(numeral_len) == Some(&b')')
}

/// The facilities `refs` name, each once, in order of first reference.
pub(crate) fn unique_keys(refs: &[FacilityRef]) -> Vec<FacilityKey> {
    let mut keys = Vec::new();
    for r in refs {
        if !keys.contains(&r.key) {
            keys.push(r.key);
        }
    }
    keys
}

/// The facilities referenced in `range`, each once, in order of first reference.
pub(crate) fn facilities_named_in(doc: &Document<'_>, range: Range<usize>) -> Vec<FacilityKey> {
    unique_keys(doc.refs_in(range))
}

/// For amounts: the single nearest facility reference scoping the value.
pub(crate) fn nearest_scope(doc: &Document<'_>, pos: usize) -> Vec<FacilityKey> {
    let clause = clause_around(doc.text, pos);
    let back = clause.start.max(pos.saturating_sub(SCOPE_BACK));
    if let Some(last) = doc.refs_in(back..pos).last() {
        return vec![last.key];
    }
    scope_at(doc, pos).into_iter().take(1).collect()
}

/// One facility being assembled: its key, resolved type and currency.
#[derive(Clone, Debug)]
pub(crate) struct FacilityFrame {
    pub key: FacilityKey,
    pub facility_type: Option<FacilityType>,
    pub currency: Option<CurrencyCode>,
}

/// Whether a value scoped to `key` is for `facility`. A generic "Term Loans" or "Revolving
/// Loans" covers lettered facilities of that type when no facility is keyed that way itself.
pub(crate) fn covers(key: FacilityKey, facility: &FacilityFrame, all: &[FacilityFrame]) -> bool {
    if key == facility.key {
        return true;
    }
    let keyed_itself = all.iter().any(|f| f.key == key);
    match key {
        FacilityKey::Term => {
            !keyed_itself
                && matches!(
                    facility.facility_type,
                    Some(FacilityType::TermLoanA | FacilityType::TermLoanB | FacilityType::TermLoan)
                )
        }
        FacilityKey::Revolving => !keyed_itself && facility.facility_type == Some(FacilityType::RevolvingCredit),
        _ => false,
    }
}

/// The candidates that apply to `facility`: those stated for it, else those stated for its
/// currency, else those stated for every facility.
pub(crate) fn applicable<'c, T>(
    candidates: &'c [Scoped<T>],
    facility: &FacilityFrame,
    all: &[FacilityFrame],
) -> Vec<&'c T> {
    let currency_matches = |c: &Scoped<T>| c.currency.is_none_or(|cur| Some(cur) == facility.currency);
    let excluded = |c: &Scoped<T>| c.except.iter().any(|&k| covers(k, facility, all));
    if all.len() == 1 {
        // With one facility, "the Loans" and "the Term Loans" are the same loans: a general and a
        // specific statement that disagree are a conflict, not a general rule and its exception.
        return candidates
            .iter()
            .filter(|c| (c.keys.is_empty() || c.keys.iter().any(|&k| covers(k, facility, all))) && currency_matches(c))
            .filter(|c| !excluded(c))
            .map(|c| &c.value)
            .collect();
    }
    let specific: Vec<&T> = candidates
        .iter()
        .filter(|c| {
            c.keys.iter().any(|&k| covers(k, facility, all))
                && c.currency.is_none_or(|cur| Some(cur) == facility.currency)
        })
        .map(|c| &c.value)
        .collect();
    if !specific.is_empty() {
        return specific;
    }
    let by_currency: Vec<&T> = candidates
        .iter()
        .filter(|c| c.keys.is_empty() && c.currency.is_some() && c.currency == facility.currency)
        .map(|c| &c.value)
        .collect();
    if !by_currency.is_empty() {
        return by_currency;
    }
    candidates.iter().filter(|c| c.keys.is_empty() && c.currency.is_none() && !excluded(c)).map(|c| &c.value).collect()
}

/// Resolves one field of one facility from its applicable candidates.
pub(crate) fn resolve<T: PartialEq + Clone>(
    field: &str,
    candidates: &[Scoped<Sourced<T>>],
    facility: &FacilityFrame,
    all: &[FacilityFrame],
    report: &mut Report,
) -> Option<Sourced<T>> {
    let pool: Vec<Sourced<T>> = applicable(candidates, facility, all).into_iter().cloned().collect();
    let mut pool = pool;
    pool.sort_by_key(|c| (c.span().start, c.span().end));
    pool.dedup_by(|a, b| a.span() == b.span());
    agree(field, pool, report)
}

/// The condition of a term that applies only once the borrower extends the facility: "provided
/// that if the Maturity Date shall have been extended pursuant to Section 2.12, then …".
static IF_EXTENDED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bif\b[^.;]{0,160}?\b(?:shall[ \t\r\n]+have[ \t\r\n]+been|has[ \t\r\n]+been|have[ \t\r\n]+been|is|are)[ \t\r\n]+extended\b",
    )
});

/// Whether the value at `pos` is stated for after an extension the borrower may or may not
/// exercise ("… then the term "Maturity Date" shall mean January 3, 2025"): the agreement as it
/// stands is the value stated without that condition.
pub(crate) fn applies_once_extended(doc: &Document<'_>, pos: usize) -> bool {
    let sentence = super::text::sentence_around(doc.text, pos);
    let lead = doc.slice(sentence.start..pos);
    IF_EXTENDED.find_iter(lead).last().is_some_and(|condition| !lead[condition.end()..].contains(';'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_facility_named_after_other_than_is_excluded_from_the_statement() {
        let text = "\"Applicable Margin\" means (a) for Term Loans, 3.00%; and (b) for all Loans other than Term Loans:\n\n(i) before the Step-Down Date, 2.50%; and\n\n(ii) after the Step-Down Date, as set out in clause (i) above less 0.25%.\n";
        let doc = Document::scan(text);
        let at = |needle: &str| text.find(needle).expect("needle");
        assert_eq!(scope_of(&doc, at("3.00%")), Scope { keys: vec![FacilityKey::Term], except: vec![] });
        let excluding_term = Scope { keys: vec![], except: vec![FacilityKey::Term] };
        assert_eq!(scope_of(&doc, at("2.50%")), excluding_term);
        // A later item of the list is scoped by the list's lead-in too, not by a cross-reference.
        assert_eq!(scope_of(&doc, at("0.25%")), excluding_term);
        let later = text.replace("less 0.25%.\n", "less 0.25%; and\n\n(iii) from the Maturity Date, 1.75%.\n");
        let doc = Document::scan(&later);
        assert_eq!(scope_of(&doc, later.find("1.75%").expect("needle")), excluding_term);
    }
}
