//! Rule 4: a party holds a role only when its own role phrase says so. A lawyer reads each party
//! block of the cover, preamble or signature pages as "NAME, description, as ROLE" or "NAME …
//! (the "ROLE")", and sets aside a role phrase that:
//!
//! - belongs to another party: the name stated before it in its block is another's (a plural
//!   role, "as Joint Lead Arrangers", belongs to every name of the list before it);
//! - states another capacity: a co-, deputy, sub-, syndication or documentation agent
//!   ("Co-Administrative Agent", "Co-Agent"), or an agent for the borrowers rather than for the
//!   lenders, or for one group of them;
//! - is the first word of another capacity ("as Lender Agent", "as Borrower Representative"): the
//!   agent or representative of a class of parties is not one of them;
//! - makes the party the lender of the assets the borrower pledges ("as the lender of record on
//!   the Receivables"), not of this facility;
//! - names a class of parties, not a capacity ("…, as Borrower, and the Lenders party hereto");
//!
//! and the borrower is never an agent, arranger or lender of its own facility.
//!
//! Roles stated by a definition ("Administrative Agent" means …), a term sheet's label or a lender
//! schedule's column are read by readers that bind the name within them, and are not re-read here.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::domain::extraction::document::{Document, quoted};
use crate::domain::extraction::model::{Party, PartyRole};
use crate::domain::extraction::parties::names::{PREAMBLE_NAME, described_names, is_role_word_name, name_key};
use crate::domain::extraction::parties::roles::{
    ROLE_LIST, another_capacity_after, is_plural, lender_of_the_assets_after, roles_of,
};
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{before, ceil_boundary, floor_boundary, pattern};

/// How far back from a role phrase its party block is read.
const BLOCK: usize = 600;
/// How far back a role parenthetical's opening is looked for.
const MAX_PARENTHETICAL: usize = 240;
/// The fewest letters and digits a name must have to be compared by containment.
const MIN_NAME_KEY: usize = 4;
/// How many role statements one party's role list may run over.
const MAX_ROLE_STATEMENTS: usize = 4;

/// A quoted term: ("Wells Fargo"), (the "Borrower").
static QUOTED_TERM: LazyLock<Regex> = LazyLock::new(|| pattern(r#"["“](?P<term>[^"”]{1,60})["”]"#));

/// A role phrase followed by the words that make it a class of parties.
static CLASS_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]+(?:(?:party|parties)[ \t\r\n]+(?:hereto|thereto)|from[ \t\r\n]+time[ \t\r\n]+to[ \t\r\n]+time)\b",
    )
});

/// "agent for the Borrowers", "agent on behalf of the Loan Parties": whom an agent acts for.
static ACTS_FOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]+(?:for|of|on[ \t\r\n]+behalf[ \t\r\n]+of)[ \t\r\n]+(?:(?:the|each|all|such|other|several)[ \t\r\n]+)*(?P<principal>[A-Za-z'’ -]{1,60})",
    )
});

/// Principals an agent of the lenders does not act for.
const NOT_THE_LENDERS: &[&str] =
    &["borrower", "obligor", "loan part", "credit part", "grantor", "guarantor", "compan", "agents", "issuer"];

/// Words of a principal that is some of the lenders, not all: a funding agent acts for its own
/// lender group ("agent for the Lenders in its Lender Group", "agent for the related Conduit
/// Lenders"); "agent for each member of the Lender Group" is every lender.
const SOME_LENDERS: &[&str] = &["its", "related", "conduit", "conduits"];

/// Parenthetical words that give one role to several names: "(… together with Parent, each a "US
/// Borrower")", "(collectively, the "Guarantors")".
static SHARED: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:together[ \t\r\n]*(?:with|,)|collectively|joint(?:ly)?|each)\b"));

/// "A DIVISION OF MERRILL LYNCH …": the company part of a division's name, which names the party.
static DIVISION_OF: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)^an?[ \t\r\n]+division[ \t\r\n]+of\b"));

/// The roles a borrower never holds in its own facility.
const LENDING_SIDE: &[PartyRole] = &[
    PartyRole::AdministrativeAgent,
    PartyRole::FacilityAgent,
    PartyRole::CollateralAgent,
    PartyRole::SyndicationAgent,
    PartyRole::DocumentationAgent,
    PartyRole::Arranger,
    PartyRole::Bookrunner,
    PartyRole::Lender,
    PartyRole::IssuingBank,
    PartyRole::SwinglineLender,
    PartyRole::SustainabilityCoordinator,
];

/// Why `role` is not `party`'s by its own role phrase, if it is not.
pub(super) fn objection(doc: &Document<'_>, party: &Party, role: &Sourced<PartyRole>) -> Option<String> {
    let phrase = role.span().range();
    let shown = quoted(role.quote(), phrase.clone());
    if party.has_role(PartyRole::Borrower) && LENDING_SIDE.contains(role.value()) {
        return Some("is the borrower, which is never an agent, arranger or lender of its own facility".to_owned());
    }
    let following = doc.slice(phrase.end..floor_boundary(doc.text, phrase.end.saturating_add(80)));
    if let Some(rest) = another_capacity_after(following) {
        let capacity = phrase.start..phrase.end + rest.len();
        return Some(format!(
            "is given the role by {shown}, the first word of another capacity, {}",
            quoted(doc.slice(capacity.clone()), capacity)
        ));
    }
    if *role.value() == PartyRole::Lender
        && let Some(rest) = lender_of_the_assets_after(following)
    {
        let capacity = phrase.start..phrase.end + rest.len();
        return Some(format!(
            "is given the role by {}, a lender of the assets the borrower pledges, not of this facility",
            quoted(doc.slice(capacity.clone()), capacity)
        ));
    }
    if CLASS_AFTER.is_match(following) {
        return Some(format!("is given the role by {shown}, which names a class of parties, not its capacity"));
    }
    if matches!(role.value(), PartyRole::AdministrativeAgent | PartyRole::FacilityAgent | PartyRole::CollateralAgent) {
        if let Some(qualifier) = deputy_qualifier(doc, phrase.start) {
            return Some(format!("is stated a {qualifier}agent by {shown}, another capacity"));
        }
        let principal =
            ACTS_FOR.captures(following).and_then(|c| c.name("principal")).map(|p| p.as_str().to_lowercase());
        if principal.as_ref().is_some_and(|p| NOT_THE_LENDERS.iter().any(|w| p.contains(w))) {
            return Some(format!("is given the role by {shown}, an agent for others than the lenders"));
        }
        let words = |p: &String| p.split(|c: char| !c.is_alphabetic()).any(|w| SOME_LENDERS.contains(&w));
        if principal.as_ref().is_some_and(words) {
            return Some(format!("is given the role by {shown}, an agent for some of the lenders only"));
        }
    }
    let statement = role_statement(doc, phrase.clone())?;
    let names = block_names(doc, statement.start);
    let key = name_key(party.name.value());
    let same = |name: &Range<usize>| {
        let other = name_key(doc.slice(name.clone()));
        other.len() >= MIN_NAME_KEY && (other.contains(&key) || key.contains(&other))
    };
    let shared = statement.shared || is_plural(role.quote());
    let block = doc.slice(block_before(doc, statement.start).0);
    let owned = match names.last() {
        // A block that holds no name the pattern reads may still hold only this party's name,
        // one without a legal form ("- and - / ATB FINANCIAL, / as Co-Lead Arranger").
        _ if holds_only(block, &key) => true,
        Some(nearest) if same(nearest) => true,
        _ if shared => {
            names.iter().any(same)
                || joins_by_alias(doc, party, &statement)
                || block.lines().any(|line| holds_only(line, &key))
        }
        _ => false,
    };
    if owned {
        return None;
    }
    Some(match names.last() {
        Some(nearest) => format!(
            "is given the role by {shown}, which belongs to {}, the name stated before it",
            quoted(doc.slice(nearest.clone()), nearest.clone())
        ),
        None => format!("is given the role by {shown}, but its name is not stated in that party block"),
    })
}

/// Whether `text` (a party block, or one line of a list of names) is the name whose key is `key`
/// and nothing else but list furniture ("- and -", "and", commas).
fn holds_only(text: &str, key: &str) -> bool {
    let words: String = text
        .split_whitespace()
        .filter(|word| !matches!(word.to_ascii_lowercase().as_str(), "-" | "and" | "&" | "," | "among" | "between"))
        .collect::<Vec<_>>()
        .join(" ");
    key.len() >= MIN_NAME_KEY && name_key(&words) == key
}

/// "Co-", "Deputy ", "Documentation " just before an agent's role phrase: another capacity.
fn deputy_qualifier(doc: &Document<'_>, phrase_start: usize) -> Option<&'static str> {
    // Words of the phrase may wrap across lines: compare with single spaces.
    let raw = doc.slice(before(doc.text, phrase_start, 24));
    let mut lead = raw.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase();
    if raw.ends_with(char::is_whitespace) {
        lead.push(' ');
    }
    [
        ("co-", "co-"),
        ("co ", "co-"),
        ("deputy ", "deputy "),
        ("sub-", "sub-"),
        ("sub ", "sub-"),
        ("syndication ", "syndication "),
        ("documentation ", "documentation "),
        ("managing ", "managing "),
        ("paying ", "paying "),
    ]
    .into_iter()
    .find(|(written, _)| lead.ends_with(written))
    .map(|(_, qualifier)| qualifier)
}

/// A statement of roles: where it starts and ends, and whether its words give the role to several
/// names.
struct RoleStatement {
    start: usize,
    end: usize,
    shared: bool,
}

/// How far back the term a party is defined by ("Siena Lending Group LLC (“Siena”)") is looked for.
const ALIAS_REACH: usize = 1500;

/// Whether a statement that gives a role to several names joins `party` by the term it is
/// defined by: "GRC SPV Investments, LLC (“GRC”; and together with Siena …, collectively, the
/// “Lenders”)" joins the party defined as "Siena".
fn joins_by_alias(doc: &Document<'_>, party: &Party, statement: &RoleStatement) -> bool {
    let words: Vec<String> = party.name.value().split_whitespace().map(regex::escape).collect();
    let Ok(defined) = Regex::new(&format!(
        r#"(?i)(?-u:\b){}[ \t\r\n]*\([ \t\r\n]*(?:the[ \t\r\n]+)?["“](?P<alias>[^"”]{{1,40}})["”]"#,
        words.join(r"[ \t\r\n]+")
    )) else {
        return false;
    };
    let reach = before(doc.text, statement.start, ALIAS_REACH);
    let inner = doc.slice(statement.start..statement.end);
    defined.captures_iter(doc.slice(reach)).filter_map(|c| c.name("alias")).any(|alias| {
        Regex::new(&format!(r"(?-u:\b){}(?-u:\b)", regex::escape(alias.as_str()))).is_ok_and(|a| a.is_match(inner))
    })
}

/// The statement a role phrase at `phrase` belongs to: "as …" before the name's role list, or the
/// parenthetical defining the role; `None` for a role stated another way (a definition, a label,
/// a schedule's column), whose reader binds the name itself.
fn role_statement(doc: &Document<'_>, phrase: Range<usize>) -> Option<RoleStatement> {
    let window = before(doc.text, phrase.start, MAX_PARENTHETICAL);
    let lead = doc.slice(window.clone());
    let quoted_term = lead.ends_with(['"', '“']);
    if quoted_term {
        let open = lead.rfind('(').filter(|&i| !lead[i..].contains(')'))?;
        let start = window.start + open;
        let close = doc.slice(phrase.end..floor_boundary(doc.text, phrase.end.saturating_add(120))).find(')');
        let end = close.map_or(phrase.end, |c| phrase.end + c);
        return Some(RoleStatement { start, end, shared: SHARED.is_match(doc.slice(start..end)) });
    }
    let search = ceil_boundary(doc.text, phrase.start.saturating_sub(MAX_PARENTHETICAL))..phrase.end;
    ROLE_LIST
        .find_iter(doc.slice(search.clone()))
        .map(|m| search.start + m.start()..search.start + m.end())
        .find(|list| list.start <= phrase.start && phrase.end <= list.end)
        .map(|list| {
            // "A LLC, B INC. and C CORP., each as a Guarantor": one role phrase for every name.
            let lead = doc.slice(before(doc.text, list.start, 8)).trim_end().to_ascii_lowercase();
            let shared = lead.ends_with(" each") || lead.ends_with("\neach") || lead == "each";
            RoleStatement { start: list.start, end: list.end, shared }
        })
}

/// The party block a role statement at `start` closes: back to the previous role statement, the
/// previous semicolon, or [`BLOCK`] bytes; and where that previous role statement starts, when
/// it is what ends the block.
fn block_before(doc: &Document<'_>, start: usize) -> (Range<usize>, Option<usize>) {
    let window = before(doc.text, start, BLOCK);
    let text = doc.slice(window.clone());
    let mut floor = window.start;
    let mut previous = None;
    if let Some(semicolon) = text.rfind(';') {
        floor = floor.max(window.start + semicolon + 1);
    }
    if let Some(list) = ROLE_LIST.find_iter(text).last()
        && window.start + list.end() > floor
    {
        floor = window.start + list.end();
        previous = Some(window.start + list.start());
    }
    for (close, _) in text.match_indices(')') {
        let open = text.get(..close).and_then(|t| t.rfind('(')).unwrap_or(0);
        let defines_role = QUOTED_TERM
            .captures_iter(text.get(open..close).unwrap_or(""))
            .filter_map(|c| c.name("term"))
            .any(|term| !roles_of(term.as_str(), false).is_empty());
        if defines_role && window.start + close + 1 > floor {
            floor = window.start + close + 1;
            previous = Some(window.start + open);
        }
    }
    (floor..start, previous)
}

/// The names of the party block a role statement at `start` closes. A party's role list may run
/// over several statements ("UBS AG as lender (… the "Bank") and as administrative agent"): a
/// block that holds no name continues the one before it.
fn block_names(doc: &Document<'_>, start: usize) -> Vec<Range<usize>> {
    let mut start = start;
    for _ in 0..MAX_ROLE_STATEMENTS {
        let (block, previous) = block_before(doc, start);
        let names = names_in(doc, block);
        match previous {
            Some(previous) if names.is_empty() => start = previous,
            _ => return names,
        }
    }
    Vec::new()
}

/// The names stated in `block` outside parentheticals, in order: not descriptions ("a Delaware
/// Limited Partnership") nor role and class words.
fn names_in(doc: &Document<'_>, block: Range<usize>) -> Vec<Range<usize>> {
    let text = doc.slice(block.clone());
    let mut depth_at = vec![0usize; text.len() + 1];
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        depth_at[i] = depth;
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut names: Vec<Range<usize>> = PREAMBLE_NAME
        .find_iter(text)
        .filter(|m| depth_at.get(m.start()).is_some_and(|&d| d == 0))
        .filter(|m| !is_role_word_name(m.as_str()) || DIVISION_OF.is_match(m.as_str()))
        .filter(|m| {
            // "a Delaware Limited Partnership" describes; "A DIVISION OF …" is part of a name.
            let lead = text.get(..m.start()).unwrap_or("").trim_end();
            let last = lead.rsplit(char::is_whitespace).next().unwrap_or(lead);
            !matches!(last, "a" | "an")
        })
        .map(|m| m.range())
        .collect();
    // "AMERCO, a Nevada corporation": a name without a legal form, described as an entity.
    for name in described_names(text) {
        let known = names.iter().any(|n| n.start < name.end && name.start < n.end);
        if !known && depth_at.get(name.start).is_some_and(|&d| d == 0) && !is_role_word_name(&text[name.clone()]) {
            names.push(name);
        }
    }
    names.sort_by_key(|n| n.start);
    names.into_iter().map(|n| block.start + n.start..block.start + n.end).collect()
}
