//! The parties of a document, read from the parts that name them and by the grammar those parts
//! are written in:
//!
//! - the preamble: `NAME, a Delaware corporation (the "Borrower")`, `NAME, as Administrative
//!   Agent`: a role belongs to the name just before it, across a description of that name but
//!   never across the start of the next party ("the Lenders party hereto", "; (2) …");
//!   `A, B and C (collectively, the "Borrowers")` gives the role to every name of the list;
//!   `DIVISION, a division of COMPANY INC., as Agent` names the division with its company;
//!   `(… together with Parent, each a "US Borrower")` gives it to the party defined as "Parent";
//! - the cover page, for the title roles it lists only (arrangers, bookrunners, syndication and
//!   documentation agents), each name a whole line of its own;
//! - a definition (`"Borrower" means AT&T Capital Corporation, …`) when the preamble names no one
//!   in that role.
//!
//! Names read anywhere else (a bank named as the agent of another facility, counsel named in a
//! condition precedent, a signature block) are not parties of this document.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::drafts::Drafts;
use super::names::{
    LEGAL_FORM_FIRST, NAME, PREAMBLE_NAME, STOP_WORDS, described_names, is_role_word_name, name_key,
    reads_as_lending_institution,
};
use super::roles::{ONE_ROLE, ROLE_LIST, is_plural, is_role_term, roles_of};
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::PartyRole;
use crate::domain::extraction::text::{ceil_boundary, floor_boundary, lines_in, parentheticals, pattern, slice};

/// A quoted defined term inside a parenthetical: (the "Borrower"), ("Parent").
/// A term may wrap onto the next line ("the "U.S.\nBorrower"").
static QUOTED_TERM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"["“](?P<term>[^"”\n]{1,60}(?:\r?\n[ \t]*[^"”\n]{1,40})?)["”]"#));

/// "together with Parent, each a …", "together with Magnite, Hopper, and Bell, collectively, …":
/// the defined terms another party is joined with, up to the next quoted term.
static TOGETHER_WITH: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\btogether[ \t\r\n]+with[ \t\r\n]+(?P<list>[^;()“”\x22]{1,160})"));

/// A parenthetical that opens by giving its term to each of the names before it: "(each a
/// "Guarantor" …)", "(each, an "Obligor")".
static EACH_OPENS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"(?i)^\([ \t\r\n]*each[ \t\r\n]*,?[ \t\r\n]+(?:a|an)[ \t\r\n]+["“]"#));

/// "and each direct and indirect Subsidiary of the foregoing": a class of entities joined to a
/// list of named borrowers or guarantors before the term they share. Read over, never a party.
static JOINED_SUBSIDIARIES: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^(?:and |or )?(?:each|all|any|every)(?: of)?(?: the| its| their)?(?: other)?(?: (?:direct|indirect|existing|future|present|domestic|wholly-owned|wholly|owned|restricted|and|or))* subsidiar(?:y|ies)\b",
    )
});

/// Words that may open a description of a party between its name and its role: "a Delaware
/// corporation", "not individually but solely as …", "organized under the laws of …".
const DESCRIPTION_OPENERS: &[&str] = &[
    "a ",
    "an ",
    "as ",
    "not ",
    "but solely",
    "in its ",
    "in their ",
    "solely",
    "individually",
    "acting",
    "together",
    "organized",
    "organised",
    "incorporated",
    "formed",
    "existing",
    "having",
    "with ",
    "whose",
    "registered",
    "doing business",
    "successor",
    "formerly",
    "through",
    "company number",
    "each in its",
];

/// Words a name may follow in a preamble without being the end of a longer capitalised name.
const LIST_WORDS: &[&str] = &["AMONG", "BETWEEN", "AND", "BY", "TO", "WITH", "OF"];

/// A role statement in the preamble: where it is, the roles with where each is stated, whether
/// it is plural, and — for a parenthetical — the other terms it defines for the same party.
struct Marker {
    span: Range<usize>,
    roles: Vec<(PartyRole, Range<usize>)>,
    plural: bool,
    aliases: Vec<String>,
}

/// Terms a debtor is defined by in documents that have no "Borrower": credit agreements of the
/// 1990s lend to "the Company", a note is made by "the Company" or "the Maker".
const DEBTOR_TERMS: &[&str] = &["company", "maker", "issuer", "obligor", "debtor"];

/// Terms of a lending side; one of them must be defined beside a debtor term for that term to
/// name the borrower ("the Company" of a merger agreement lends nothing).
const CREDITOR_TERMS: &[&str] = &[
    "bank",
    "banks",
    "lender",
    "lenders",
    "holder",
    "holders",
    "noteholder",
    "noteholders",
    "payee",
    "purchaser",
    "purchasers",
    "investor",
    "investors",
];

/// "(together, jointly and severally, the "Company")", "(collectively, the "Maker")": a term
/// several names share.
static COLLECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:collectively|jointly|joint[ \t\r\n]+and[ \t\r\n]+several(?:ly)?|together(?:[ \t]*,|[ \t\r\n]+the[ \t\r\n]))",
    )
});

/// What a reading of party statements looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Terms {
    /// Role phrases and role terms ("as Administrative Agent", (the "Borrower")).
    Roles,
    /// Only debtor terms, as the borrower's.
    Debtor,
}

/// The parties named in the preamble.
/// A class of parties closing a role list: ", and the Lenders", "and the Guarantors".
static CLASS_AFTER_ROLES: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i),?[ \t\r\n]+and[ \t\r\n]+the[ \t\r\n]+(?:lenders|banks|guarantors|borrowers)\b"));

pub(crate) fn preamble_parties(doc: &Document<'_>, preamble: Range<usize>, lma_style: bool, drafts: &mut Drafts) {
    read_parties(doc, preamble, lma_style, Terms::Roles, drafts);
}

/// The borrower of a document that defines none, when the opening defines a debtor term beside a
/// lending side: `CSC HOLDINGS, INC., a Delaware corporation (the "COMPANY") … (the "BANKS")`,
/// `FOR VALUE RECEIVED, X, a Nevada corporation (the "Company") hereby promises to pay to … ("Holder")`.
/// Read in the preamble and the recitals after it, or in the opening of a document without one.
pub(crate) fn debtor_parties(doc: &Document<'_>, drafts: &mut Drafts) {
    if drafts.any_has_role(PartyRole::Borrower) {
        return;
    }
    let region = doc.parts.opening(doc.text);
    let defines_creditor = QUOTED_TERM
        .captures_iter(doc.slice(region.clone()))
        .filter_map(|c| c.name("term"))
        .any(|term| CREDITOR_TERMS.contains(&alias_key(term.as_str()).as_str()));
    if defines_creditor {
        read_parties(doc, region, false, Terms::Debtor, drafts);
    }
}

fn read_parties(doc: &Document<'_>, preamble: Range<usize>, lma_style: bool, terms: Terms, drafts: &mut Drafts) {
    let text = doc.slice(preamble.clone());
    let base = preamble.start;
    let parens = parentheticals(text);
    let inside = |pos: usize| {
        let index = parens.partition_point(|p| p.start <= pos);
        index > 0 && parens.get(index - 1).is_some_and(|p| p.contains(&pos))
    };
    let mut names: Vec<Range<usize>> = PREAMBLE_NAME
        .find_iter(text)
        .map(|m| with_division_name(text, m.range()))
        .filter(|name| !inside(name.start) && !is_role_word_name(&text[name.clone()]) && opens_name(text, name.start))
        .collect();
    // A name without a legal form ("AMERCO", "PHILLIPS 66") is a name when the preamble describes
    // it as an entity right after it ("…, a Nevada corporation").
    for name in described_names(text) {
        let known = names.iter().any(|n| n.start < name.end && name.start < n.end);
        if !known && !inside(name.start) && !is_role_word_name(&text[name.clone()]) && opens_name(text, name.start) {
            names.push(name);
        }
    }
    names.sort_by_key(|n| n.start);

    let mut markers: Vec<Marker> = Vec::new();
    for list in ROLE_LIST.find_iter(text) {
        if inside(list.start()) || terms == Terms::Debtor {
            continue;
        }
        let mut roles = Vec::new();
        // "…, as co-syndication agents, and the Lenders": the lenders are the next party, a class.
        // ("the Lenders party hereto" is left to the evidence check, which names the class.)
        let after = text[list.end()..].trim_start().to_ascii_lowercase();
        let qualified = after.starts_with("party") || after.starts_with("from time");
        let own = CLASS_AFTER_ROLES
            .find(list.as_str())
            .filter(|_| !qualified)
            .map_or(list.as_str(), |class| &list.as_str()[..class.start()]);
        for one in ONE_ROLE.find_iter(own) {
            let span = base + list.start() + one.start()..base + list.start() + one.end();
            roles.extend(roles_of(one.as_str(), lma_style).into_iter().map(|role| (role, span.clone())));
        }
        if !roles.is_empty() {
            markers.push(Marker { span: list.range(), roles, plural: is_plural(list.as_str()), aliases: Vec::new() });
        }
    }
    for paren in &parens {
        let inner = slice(text, paren.clone());
        let mut roles = Vec::new();
        let mut plural = false;
        let mut aliases = Vec::new();
        for captures in QUOTED_TERM.captures_iter(inner) {
            let Some(term) = captures.name("term") else { continue };
            let span = base + paren.start + term.start()..base + paren.start + term.end();
            let words = term.as_str().split_whitespace().collect::<Vec<_>>().join(" ");
            if terms == Terms::Roles && (is_role_term(&words) || is_qualified_borrower(&words)) {
                plural |= is_plural(&words) && !inner.contains("each") || COLLECTIVE.is_match(inner);
                roles.extend(roles_of(&words, lma_style).into_iter().map(|role| (role, span.clone())));
            } else if terms == Terms::Debtor && DEBTOR_TERMS.contains(&alias_key(&words).as_str()) {
                plural |= COLLECTIVE.is_match(inner);
                roles.push((PartyRole::Borrower, span));
            } else {
                aliases.push(alias_key(term.as_str()));
            }
        }
        markers.push(Marker { span: paren.clone(), roles, plural, aliases });
    }
    markers.sort_by_key(|m| m.span.start);

    let mut alias_owner: HashMap<String, Range<usize>> = HashMap::new();
    // Names whose own parenthetical or role phrase gave them a role.
    let mut own_role: Vec<usize> = Vec::new();
    for marker in &markers {
        let index = names.partition_point(|n| n.end <= marker.span.start);
        let Some(owner) = index.checked_sub(1).and_then(|i| names.get(i)) else { continue };
        let gap = owner.end..marker.span.start;
        let joined_subsidiaries = shared_by_obligors(marker)
            && !own_role.contains(&owner.start)
            && joins_subsidiaries(text, gap.clone(), &parens);
        if !(describes(text, gap, &parens) || joined_subsidiaries) {
            // "certain Subsidiaries … (each a "Designated Borrower" and, together with the Company,
            // the "Borrowers")": the term belongs to a class, not to the name before it, but the
            // party defined as "the Company" shares it all the same.
            give_to_joined_terms(doc, base, marker, &alias_owner, drafts);
            continue;
        }
        for alias in &marker.aliases {
            alias_owner.entry(alias.clone()).or_insert_with(|| owner.clone());
        }
        if marker.roles.is_empty() {
            // "among THE BOEING COMPANY, a Delaware corporation ("TBC"), the banks … (the
            // "Lenders") and …, as agent": beside a lending side, the first party, named by a
            // short form of its own name and given no role, is the debtor.
            let stated = &text[owner.clone()];
            if terms == Terms::Debtor
                && index == 1
                && !drafts.has_any_role(stated)
                && !reads_as_lending_institution(stated)
                && marker.aliases.iter().any(|alias| shortens(stated, alias))
            {
                drafts.add(
                    doc,
                    base + owner.start..base + owner.end,
                    &[(PartyRole::Borrower, base + marker.span.start..base + marker.span.end)],
                );
            }
            continue;
        }
        drafts.add(doc, base + owner.start..base + owner.end, &marker.roles);
        own_role.push(owner.start);
        let inner = slice(text, marker.span.clone());
        // A term shared "together with" named terms is shared by those parties only: the list
        // before it may begin with a party of another side ("BANK ("Bank"), and A ("A"), B ("B")
        // and C ("C", together with A and B, collectively, "Borrower")").
        // "A and B (each a "Subsidiary Guarantor" and, together with Holdings, the
        // "Guarantors")": "each" opening the parenthetical gives its term to every name of the
        // list before it, whatever it is shared with besides.
        if marker.plural && !TOGETHER_WITH.is_match(inner) || EACH_OPENS.is_match(inner) {
            // "A, B and C (collectively, the "Borrowers")": every name of the list, back to a name
            // that has a role of its own ("GRC (… collectively, the "Lenders"), A, B and C (…
            // collectively, the "Borrowers")": GRC is a lender, not a borrower).
            let mut k = index - 1;
            while let Some(previous) = k.checked_sub(1).and_then(|i| names.get(i)) {
                let Some(current) = names.get(k) else { break };
                if own_role.contains(&previous.start)
                    || !is_list_separator(&without_parentheticals(text, previous.end..current.start, &parens))
                {
                    break;
                }
                drafts.add(doc, base + previous.start..base + previous.end, &marker.roles);
                k -= 1;
            }
        }
        give_to_joined_terms(doc, base, marker, &alias_owner, drafts);
    }
}

/// "(… together with Parent, each a "US Borrower" …)": the marker's roles go to the parties
/// defined by the terms it is shared "together with".
fn give_to_joined_terms(
    doc: &Document<'_>,
    base: usize,
    marker: &Marker,
    alias_owner: &HashMap<String, Range<usize>>,
    drafts: &mut Drafts,
) {
    if marker.roles.is_empty() {
        return;
    }
    let inner = slice(doc.text, base + marker.span.start..base + marker.span.end);
    for captures in TOGETHER_WITH.captures_iter(inner) {
        let Some(list) = captures.name("list") else { continue };
        for item in list.as_str().split([',', '\n']).flat_map(|piece| piece.split(" and ")) {
            if let Some(joined) = alias_owner.get(&alias_key(&capitalised_lead(item))) {
                drafts.add(doc, base + joined.start..base + joined.end, &marker.roles);
            }
        }
    }
}

/// Whether a marker is a collective term of borrowers or guarantors ("each a "Borrower" and,
/// collectively, the "Borrowers""), the only terms a list may share with a joined class of
/// subsidiaries.
fn shared_by_obligors(marker: &Marker) -> bool {
    marker.plural
        && !marker.roles.is_empty()
        && marker.roles.iter().all(|(role, _)| matches!(role, PartyRole::Borrower | PartyRole::Guarantor))
}

/// Whether the text between the last name of a list and the term the list shares describes that
/// name and then joins a class of subsidiaries: ", a Delaware limited liability company ("Ramos"),
/// and each direct and indirect Subsidiary of the foregoing from time to time".
fn joins_subsidiaries(text: &str, gap: Range<usize>, parens: &[Range<usize>]) -> bool {
    let plain = without_parentheticals(text, gap, parens);
    if plain.contains(';') {
        return false;
    }
    let normalised = plain.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let pieces: Vec<&str> = normalised.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    let Some((class, description)) = pieces.split_last() else { return false };
    JOINED_SUBSIDIARIES.is_match(class)
        && description.iter().all(|piece| DESCRIPTION_OPENERS.iter().any(|opener| piece.starts_with(opener)))
}

/// The capitalised words an item of a "together with" list opens with: "Bell" of "Bell
/// individually and collectively" (a defined term is capitalised, the words joining it are not).
fn capitalised_lead(item: &str) -> String {
    item.split_whitespace()
        .skip_while(|word| word.eq_ignore_ascii_case("the"))
        .take_while(|word| word.chars().next().is_some_and(|c| !c.is_lowercase()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// "a division of": what precedes it names a division, what follows the company it belongs to.
static DIVISION_OF: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)(?:^|[ \t\r\n])a[ \t\r\n]+division[ \t\r\n]+of(?:[ \t\r\n]+|$)"));

/// The most words a division's own name is read back over.
const MAX_DIVISION_WORDS: usize = 6;

/// "MERRILL LYNCH CAPITAL, A DIVISION OF MERRILL LYNCH BUSINESS FINANCIAL SERVICES INC.": a
/// division contracts under its own name followed by its company's, and only the company's part
/// ends in a legal form. A name found as (or right after) "a division of …" is extended back over
/// the division's capitalised name before the comma.
fn with_division_name(text: &str, name: Range<usize>) -> Range<usize> {
    let stated = slice(text, name.clone());
    let division_start = match DIVISION_OF.find(stated).filter(|m| m.start() == 0) {
        Some(_) => name.start,
        None => {
            let from = ceil_boundary(text, name.start.saturating_sub(40));
            let before = slice(text, from..name.start);
            match DIVISION_OF.find_iter(before).last().filter(|m| m.end() == before.len()) {
                Some(found) => {
                    let stated = before.get(found.range()).unwrap_or("");
                    from + found.start() + (stated.len() - stated.trim_start().len())
                }
                None => return name,
            }
        }
    };
    let Some(before) = text.get(..division_start).map(str::trim_end) else { return name };
    let Some(before) = before.strip_suffix(',') else { return name };
    let mut start = None;
    let mut rest = before.trim_end();
    for _ in 0..MAX_DIVISION_WORDS {
        let word_start =
            rest.char_indices().rev().find(|(_, c)| c.is_whitespace()).map_or(0, |(i, c)| i + c.len_utf8());
        let word = rest.get(word_start..).unwrap_or("");
        let capitalised = word.chars().next().is_some_and(char::is_uppercase)
            && word.chars().all(|c| c.is_alphanumeric() || matches!(c, '&' | '.' | '-' | '\'' | '’'));
        if !capitalised || LIST_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            break;
        }
        start = Some(word_start);
        rest = rest.get(..word_start).unwrap_or("").trim_end();
    }
    start.map_or(name.clone(), |start| start..name.end)
}

/// "Dutch Borrower", "German Borrower", "U.K. Borrower": a borrower term qualified by capitalised
/// words (a place, a kind), each borrower of a multi-borrower agreement.
fn is_qualified_borrower(term: &str) -> bool {
    let words: Vec<&str> = term.split(' ').collect();
    let Some((last, qualifiers)) = words.split_last() else { return false };
    matches!(*last, "Borrower" | "Borrowers" | "BORROWER" | "BORROWERS")
        && (1..=3).contains(&qualifiers.len())
        && qualifiers.iter().all(|w| w.chars().next().is_some_and(char::is_uppercase))
}

/// A defined term as a lookup key: lower case, single spaces, without a leading "the".
fn alias_key(term: &str) -> String {
    let words: Vec<&str> = term.split_whitespace().collect();
    let words = match words.first() {
        Some(first) if first.eq_ignore_ascii_case("the") => words.get(1..).unwrap_or(&[]),
        _ => &words[..],
    };
    words.join(" ").to_lowercase()
}

/// Whether `alias` (an [`alias_key`]) is a short form of `name`: its initials ("TBC" of "THE
/// BOEING COMPANY", with or without "The") or one of its distinctive words ("Boeing"), never a
/// generic word a term of another meaning shares ("Holdings", "Parent", "Company").
fn shortens(name: &str, alias: &str) -> bool {
    let words: Vec<String> = name
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let initials = |skip: usize| words.iter().skip(skip).filter_map(|w| w.chars().next()).collect::<String>();
    let is_initials = alias.len() >= 2 && !alias.contains(' ') && (alias == initials(0) || alias == initials(1));
    let generic = ["holdings", "parent", "company", "corporation", "group", "the", "bank", "trust"];
    let is_word = alias.len() >= 3 && !generic.contains(&alias) && words.iter().any(|w| w == alias);
    is_initials || is_word
}

/// Whether a name starting at `start` begins there rather than continuing capitalised words
/// before it ("Gibson, Dunn & Crutcher LLP" is not "Dunn & Crutcher LLP").
fn opens_name(text: &str, start: usize) -> bool {
    let before = text.get(..start).unwrap_or("").trim_end_matches([' ', '\t', '\r', '\n']);
    // A paragraph break ends whatever came before ("RECITALS\n\nOdyssey Group …").
    if text.get(before.len()..start).is_some_and(|gap| gap.matches('\n').count() >= 2) {
        return true;
    }
    let word_start =
        before.rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '&' | '.' | '-'))).map_or(0, |i| i + 1);
    let word = before.get(word_start..).unwrap_or("");
    match word.chars().next() {
        Some(c) if c.is_uppercase() => LIST_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word)),
        _ => true,
    }
}

/// Whether the text between a name and a role statement only describes that name: descriptions
/// after commas ("a Delaware corporation", "as agent for the Lenders") and parentheticals, but no
/// semicolon and no new party ("the Lenders party hereto", "and MORGAN GUARANTY …").
fn describes(text: &str, gap: Range<usize>, parens: &[Range<usize>]) -> bool {
    let plain = without_parentheticals(text, gap, parens);
    if plain.contains(';') {
        return false;
    }
    let normalised = plain.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    normalised.split(',').map(str::trim).all(|piece| {
        piece.is_empty() || DESCRIPTION_OPENERS.iter().any(|opener| piece.starts_with(opener) || piece == opener.trim())
    })
}

/// `text[gap]` with its parentheticals replaced by a space.
fn without_parentheticals(text: &str, gap: Range<usize>, parens: &[Range<usize>]) -> String {
    let mut plain = String::new();
    let mut pos = gap.start;
    let first = parens.partition_point(|p| p.end <= gap.start);
    for paren in parens.get(first..).unwrap_or(&[]) {
        if paren.start >= gap.end {
            break;
        }
        plain.push_str(slice(text, pos..paren.start.max(pos)));
        plain.push(' ');
        pos = paren.end.max(pos);
    }
    plain.push_str(slice(text, pos.min(gap.end)..gap.end));
    plain
}

/// Whether the text between two names only separates items of one list: commas, "and", and the
/// legal descriptions of the names ("X, a Delaware limited partnership and Y, …").
fn is_list_separator(gap: &str) -> bool {
    let normalised = gap.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    normalised.split(',').map(str::trim).all(|piece| {
        let piece = piece.strip_suffix(" and").unwrap_or(piece);
        // "JUPITER RESEARCH, LLC., an Arizona …": the period of an abbreviation left after a name.
        piece.is_empty() || piece == "and" || piece == "." || piece.starts_with("a ") || piece.starts_with("an ")
    })
}

/// Whether the document prints `name` (its words, in any case, over any spacing) more than once.
pub(crate) fn printed_again(doc: &Document<'_>, name: &str) -> bool {
    let words: Vec<String> = name.split_whitespace().map(regex::escape).collect();
    // Case matters only after the name: a name in capitals run into the next word by a lost
    // line break ("SOCIETE GENERALEby") is still printed whole.
    Regex::new(&format!(r"\b(?i:{})(?:\b|\p{{Ll}})", words.join(r"[ \t\r\n]+")))
        .is_ok_and(|printed| printed.find_iter(doc.text).nth(1).is_some())
}

/// The title roles a cover page lists, each for the whole-line names above it.
pub(crate) fn cover_parties(doc: &Document<'_>, front: Range<usize>, lma_style: bool, drafts: &mut Drafts) {
    let text = doc.slice(front.clone());
    let printed_elsewhere = |name: &str| printed_again(doc, name);
    // Where the role phrase before the current one ended, on the same line: a cover set as one
    // line ("A, as Borrower, B and C, as Co-Syndication Agents, D, as …") lists each role's
    // names between the previous role phrase and its own.
    let mut previous_end = 0;
    for list in ROLE_LIST.find_iter(text) {
        let segment_start = previous_end;
        previous_end = list.end();
        // "as Joint Lead Arrangers:": a caption of the names below it (read with the captions).
        if text.get(list.end()..).is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':')) {
            continue;
        }
        let mut roles = Vec::new();
        for one in ONE_ROLE.find_iter(list.as_str()) {
            let span = front.start + list.start() + one.start()..front.start + list.start() + one.end();
            for role in roles_of(one.as_str(), lma_style) {
                if is_cover_role(role) {
                    roles.push((role, span.clone()));
                }
            }
        }
        if roles.is_empty() {
            continue;
        }
        let plural = is_plural(list.as_str());
        let mut names = names_above(text, list.start(), plural, Some(&printed_elsewhere));
        if names.is_empty() {
            names = names_inline(text, segment_start, list.start(), plural);
        }
        for name in names {
            drafts.add(doc, front.start + name.start..front.start + name.end, &roles);
        }
    }
    for line in lines_in(doc.text, front.clone()) {
        let content = doc.slice(line.clone());
        let Some(roles) = title_roles_caption(content) else { continue };
        // A caption without a colon right under names may be theirs, written below them
        // ("BANK A / BANK B / Joint Lead Arrangers / BANK C / Syndication Agent"): not read.
        let above = doc.slice(front.start..line.start).trim_end().rsplit('\n').next().unwrap_or("");
        let names_above = !whole_names(above.trim().trim_end_matches(',').trim_end()).is_empty();
        if names_above && !content.trim_end().ends_with(':') {
            continue;
        }
        let roles: Vec<(PartyRole, Range<usize>)> = roles.into_iter().map(|role| (role, line.clone())).collect();
        for name in names_below(doc.text, line.end, front.end) {
            drafts.add(doc, name, &roles);
        }
    }
}

/// The names a role phrase of a cover set as one long line applies to: the text between the
/// previous role phrase on that line and this one, when it is whole names and nothing else
/// ("…, as Administrative Agent ____ A, B and C, as Co-Syndication Agents, …"); only the last
/// for a singular role. A line of ordinary length is read by [`names_above`].
fn names_inline(text: &str, segment_start: usize, marker: usize, plural: bool) -> Vec<Range<usize>> {
    let line_start = text.get(..marker).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let line_end = text.get(marker..).and_then(|t| t.find('\n')).map_or(text.len(), |i| marker + i);
    if line_end - line_start < 300 || segment_start < line_start {
        return Vec::new();
    }
    let segment = slice(text, segment_start..marker);
    // Furniture between the blocks ("____", "- - -") and the comma after the previous role.
    let opening = segment.len() - segment.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
    let body = segment[opening..].trim_end().trim_end_matches(',').trim_end();
    if body.is_empty() {
        return Vec::new();
    }
    let mut names = whole_names(body);
    if names.is_empty() {
        names = names_run_together(body);
    }
    let offset = segment_start + opening;
    let mut names: Vec<Range<usize>> = names.into_iter().map(|n| offset + n.start..offset + n.end).collect();
    if !plural && names.len() > 1 {
        names.drain(..names.len() - 1);
    }
    names
}

/// The title roles of a cover-page line that is a caption of roles and nothing else, written
/// above the names that hold them ("Joint Lead Arrangers and Joint Bookrunners:", or with the
/// capacity's "as" when a colon ends it: "as Joint Lead Arrangers:").
fn title_roles_caption(line: &str) -> Option<Vec<PartyRole>> {
    let written = line.trim();
    let caption = written.trim_end_matches(':').trim_end();
    let caption = match caption.get(..3) {
        Some(opening) if opening.eq_ignore_ascii_case("as ") && written.ends_with(':') => caption[3..].trim_start(),
        _ => caption,
    };
    if caption.is_empty() || caption.len() > 120 {
        return None;
    }
    let mut roles = Vec::new();
    for piece in caption.split([',', '&']).flat_map(|p| p.split(" and ")) {
        let piece = piece.trim();
        let piece = piece.strip_prefix("and ").unwrap_or(piece);
        if piece.is_empty() {
            continue;
        }
        if !is_role_term(piece) {
            return None;
        }
        roles.extend(roles_of(piece, false));
    }
    (!roles.is_empty() && roles.iter().all(|role| is_title_role(*role))).then_some(roles)
}

/// The roles a cover page gives by title: arrangers, bookrunners, syndication and documentation
/// agents (the borrower, agent and lenders are named by the preamble).
fn is_title_role(role: PartyRole) -> bool {
    matches!(
        role,
        PartyRole::Arranger | PartyRole::Bookrunner | PartyRole::SyndicationAgent | PartyRole::DocumentationAgent
    )
}

/// The roles a cover page's "as …" line gives the names written above it: the title roles and
/// the banks that issue letters of credit or make swing line loans ("REDFERN BANK, / as Swingline
/// Lender and as Issuing Bank"), which a cover often names where the preamble only says "the
/// L/C Issuers party hereto".
pub(crate) fn is_cover_role(role: PartyRole) -> bool {
    is_title_role(role) || matches!(role, PartyRole::IssuingBank | PartyRole::SwinglineLender)
}

/// The names on the lines below a caption of roles, each line whole names, up to the first line
/// that is not; a name whose own "as …" line follows it belongs to that role instead.
fn names_below(text: &str, caption_end: usize, floor_end: usize) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    // After a blank line the list goes on only if the line before it left it open ("…,", "… and").
    let mut open = true;
    let mut blank = false;
    for line in lines_in(text, caption_end..floor_end).take(16) {
        let content = slice(text, line.clone());
        let trimmed = content.trim().trim_end_matches(',').trim_end();
        if trimmed.is_empty() || trimmed.eq_ignore_ascii_case("and") {
            blank |= trimmed.is_empty();
            continue;
        }
        if blank && !found.is_empty() && !open {
            break;
        }
        blank = false;
        let written = content.trim_end();
        open = written.ends_with(',') || written.to_ascii_lowercase().ends_with(" and");
        if ROLE_LIST.find(trimmed).is_some_and(|m| m.start() == 0) {
            // "NAME,\nas Syndication Agent": the name above is that role's, not the caption's.
            found.pop();
            break;
        }
        let names = whole_names(trimmed);
        if names.is_empty() {
            break;
        }
        let offset = line.start + (content.len() - content.trim_start().len());
        found.extend(names.into_iter().map(|name| offset + name.start..offset + name.end));
    }
    found
}

/// The names a cover-page role line applies to: the lines above it (or the start of its own
/// line) that are each a whole name, skipping "and"; only the nearest for a singular role.
pub(crate) fn names_above(
    text: &str,
    marker: usize,
    plural: bool,
    printed_elsewhere: Option<&dyn Fn(&str) -> bool>,
) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let line_start = text.get(..marker).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let mut candidates: Vec<Range<usize>> = Vec::with_capacity(25);
    candidates.push(line_start..marker);
    let mut end = line_start.saturating_sub(1);
    for _ in 0..24 {
        if end == 0 {
            break;
        }
        let start = text.get(..end).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
        candidates.push(start..end);
        end = start.saturating_sub(1);
    }
    // "PNC CAPITAL MARKETS / LLC and RBC CAPITAL MARKETS,": a line opening with a legal form
    // continues the name the line above it ends with; the two are read as one line.
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(candidates.len());
    let mut index = 0;
    while let Some(line) = candidates.get(index) {
        index += 1;
        if LEGAL_FORM_FIRST.is_match(slice(text, line.clone()).trim_start()) {
            let above = candidates[index..].iter().position(|l| !slice(text, l.clone()).trim().is_empty());
            if let Some(above) = above.map(|k| index + k) {
                merged.push(candidates[above].start..line.end);
                index = above + 1;
                continue;
            }
        }
        merged.push(line.clone());
    }
    // Role lines side by side in cells ("as Co-Syndication Agents | as Co-Documentation Agents"):
    // each role is its own column's, so the names above it are only those in the same cell of
    // rows cut into as many cells; a row cut otherwise ends the names.
    let role_line_end = text.get(marker..).and_then(|t| t.find('\n')).map_or(text.len(), |i| marker + i);
    // A role in the cell after the names' ("A LLC B INC. | as Joint Lead Arrangers") is theirs
    // alone: the names of that row's cell before it, run together as a cell's line breaks are read.
    let role_line = slice(text, line_start..role_line_end);
    let role_cells = role_line.matches('|').count() + 1;
    let column = slice(text, line_start..marker).matches('|').count();
    let before_role = slice(text, line_start..marker);
    let role_opens_its_cell = before_role.rsplit('|').next().is_some_and(|cell| cell.trim().is_empty());
    if role_cells > 1 && column > 0 && role_opens_its_cell && !role_line.split('|').all(opens_a_capacity) {
        let row = before_role.trim_end().trim_end_matches('|');
        let cell_start = row.rfind('|').map_or(0, |p| p + 1);
        let cell = &row[cell_start..];
        let trimmed = cell.trim().trim_end_matches(',').trim_end();
        let offset = line_start + cell_start + (cell.len() - cell.trim_start().len());
        let mut names: Vec<Range<usize>> =
            names_run_together(trimmed).into_iter().map(|n| offset + n.start..offset + n.end).collect();
        if !plural {
            names.truncate(1);
        }
        return names;
    }
    for (i, line) in merged.into_iter().enumerate() {
        let joined = slice(text, line.clone()).replace(['\n', '\r'], " ");
        let (cell_start, content) = if role_cells == 1 {
            (0, joined.as_str())
        } else if i == 0 {
            // The role's own line up to the role: its cell only.
            let start = joined.rfind('|').map_or(0, |p| p + 1);
            (start, joined.get(start..).unwrap_or_default())
        } else {
            let cells: Vec<&str> = joined.split('|').collect();
            if joined.trim().is_empty() {
                continue;
            }
            let Some(cell) = cells.get(column).filter(|_| cells.len() == role_cells) else { break };
            let start = cells.iter().take(column).map(|c| c.len() + 1).sum::<usize>();
            (start, *cell)
        };
        let trimmed = content.trim().trim_end_matches(',').trim_end();
        if trimmed.is_empty() || trimmed.eq_ignore_ascii_case("and") {
            continue;
        }
        let offset = line.start + cell_start + (content.len() - content.trim_start().len());
        let mut names = whole_names(trimmed);
        // A line of several names of which some have no legal form ("BNP PARIBAS, DBS BANK
        // LTD., HSBC BANK USA, NATIONAL ASSOCIATION,"): each such item is read as below.
        if let Some(printed) = printed_elsewhere.filter(|_| names.is_empty()) {
            names = names_with_unmarked_items(trimmed, printed);
        }
        // A cover's list item in capitals with no legal form ("SOCIETE GENERALE,", "ATB
        // FINANCIAL,") is a name when its words are more than one and the document prints them
        // again elsewhere (a signature block, a commitments schedule): a line that is only a
        // fragment or a heading is not printed again as a name.
        if names.is_empty()
            && is_unmarked_name_item(content)
            && printed_elsewhere.is_some_and(|printed| printed(trimmed))
        {
            names.push(0..trimmed.len());
        }
        if names.is_empty() {
            // The marker's own line may hold only the role: look above it; any other list item
            // in capitals the reader does not read as a name is passed over.
            if i == 0 || plural && is_capitals_list_item(content) {
                continue;
            }
            break;
        }
        found.extend(names.into_iter().rev().map(|name| offset + name.start..offset + name.end));
        if !plural {
            found.truncate(1);
            break;
        }
    }
    found
}

/// The words of a line of a cover page's list that is one item in capitals and a comma, up to six
/// words and none of them a list or class word ("THE LENDERS PARTY HERETO," is a class, not a name).
fn capitals_item_words(line: &str) -> Option<Vec<&str>> {
    let words = line.trim().strip_suffix(',')?;
    let words: Vec<&str> = words.split_whitespace().collect();
    let capitals = |word: &&str| word.chars().all(|c| c.is_uppercase() || matches!(c, '.' | '&' | '-' | '\''));
    let listed = |word: &&str| STOP_WORDS.iter().any(|w| word.eq_ignore_ascii_case(w));
    (!words.is_empty() && words.len() <= 6 && words.iter().all(capitals) && !words.iter().any(listed)).then_some(words)
}

/// A line of a cover page's list that is one item in capitals, none of its words a role word:
/// "SOCIETE GENERALE,".
fn is_capitals_list_item(line: &str) -> bool {
    capitals_item_words(line).is_some_and(|words| !words.iter().any(|word| is_role_word_name(word)))
}

/// A line of a cover page's list that may be a name without a legal form: "ATB FINANCIAL,",
/// "SOCIETE GENERALE,". At least two words, neither opening with a role or class word nor made of
/// them only ("EACH LENDER,"; "CAPITAL ONE," is read elsewhere, if at all).
fn is_unmarked_name_item(line: &str) -> bool {
    capitals_item_words(line)
        .is_some_and(|words| words.len() >= 2 && !is_role_word_name(words[0]) && !is_role_word_name(&words.join(" ")))
}

/// Whether a cell opens with a capacity ("as Co-Documentation Agents").
fn opens_a_capacity(cell: &str) -> bool {
    let cell = cell.trim_start();
    cell.get(..3).is_some_and(|opening| opening.eq_ignore_ascii_case("as ")) || cell.trim().is_empty()
}

/// The names of a table cell: whole names as on any cover line, or whole names run together with
/// only a space between them, as a cell's line breaks are read ("A LLC B INC. C BANK, N.A.").
fn names_run_together(cell: &str) -> Vec<Range<usize>> {
    let names = whole_names(cell);
    if !names.is_empty() {
        return names;
    }
    let mut names = Vec::new();
    let mut end = 0;
    for name in NAME.find_iter(cell) {
        let gap = &cell[end..name.start()];
        let words = gap.trim_matches(|c: char| c == ',' || c.is_whitespace());
        let ends_in_bank = names.last().is_some_and(|last: &Range<usize>| {
            let read = &cell[last.clone()];
            read.ends_with("BANK") || read.ends_with("Bank")
        });
        if !(words.is_empty() || words.eq_ignore_ascii_case("and")) || ends_in_bank || is_role_word_name(name.as_str())
        {
            return Vec::new();
        }
        names.push(name.range());
        end = name.end();
    }
    if cell[end..].trim_matches(|c: char| c == ',' || c.is_whitespace()).is_empty() { names } else { Vec::new() }
}

/// The names a cover-page line consists of: one whole name, or whole names separated by commas or
/// "and" ("BARCLAYS BANK PLC, GOLDMAN SACHS BANK USA,"); nothing else may stand between them.
fn whole_names(line: &str) -> Vec<Range<usize>> {
    // "ALDER CAPITAL MARKETS, LLC (f/k/a ALDER SECURITIES LLC)": the former name a parenthetical
    // after the last name recalls is no name of a party here.
    let line = former_name_removed(line);
    // Between two names a comma or "and": a bare space joins the parts of one name the pattern
    // reads as two ("DEUTSCHE BANK SECURITIES INC.").
    // A table's cell boundary ("|") or a run of blanks between printed columns separates names
    // as a comma does.
    let separator = |gap: &str, first: bool| {
        let words = gap.trim_matches(|c: char| matches!(c, ',' | '|') || c.is_whitespace());
        let joined = gap.contains([',', '|']) || gap.contains("   ") || words.eq_ignore_ascii_case("and");
        (words.is_empty() || words.eq_ignore_ascii_case("and")) && (first || joined)
    };
    let mut names: Vec<Range<usize>> = Vec::new();
    let mut end = 0;
    for name in NAME.find_iter(line) {
        let gap = &line[end..name.start()];
        // "DEUTSCHE BANK SECURITIES INC.": a bank's name the pattern ends at "BANK", continued
        // after a bare space by the rest of the one name.
        let continues_bank = names.last().is_some_and(|last| {
            let read = &line[last.clone()];
            (read.ends_with("BANK") || read.ends_with("Bank")) && !gap.is_empty() && gap.trim().is_empty()
        });
        if continues_bank {
            if let Some(last) = names.last_mut() {
                last.end = name.end();
            }
            end = name.end();
            continue;
        }
        if !separator(gap, names.is_empty()) || is_role_word_name(name.as_str()) {
            return Vec::new();
        }
        names.push(name.range());
        end = name.end();
    }
    if separator(&line[end..], true) { names } else { Vec::new() }
}

/// The names of a cover-page line listing several names, commas between them, where an item
/// without a legal form is a name as a lone item is (`is_unmarked_name_item`, printed again
/// elsewhere in the document): "BNP PARIBAS, DBS BANK LTD., HSBC BANK USA, NATIONAL ASSOCIATION".
/// Empty unless the line is, whole, such items and whole names with commas or "and" between them.
fn names_with_unmarked_items(line: &str, printed: &dyn Fn(&str) -> bool) -> Vec<Range<usize>> {
    let mut names: Vec<Range<usize>> = Vec::new();
    let mut end = 0;
    let mut unmarked = 0;
    let mut gap_item = |gap: Range<usize>, names: &mut Vec<Range<usize>>| -> bool {
        let text = &line[gap.clone()];
        let inner = text.trim_matches(|c: char| c == ',' || c.is_whitespace());
        let inner = inner.strip_prefix("and ").unwrap_or(inner);
        let inner = inner.strip_suffix(" and").unwrap_or(inner).trim();
        if inner.is_empty() {
            return true;
        }
        // One item, closed by its comma, between the names around it.
        let closed = text.trim_end().ends_with(',') || gap.end == line.len();
        if !closed || inner.contains(',') || !is_unmarked_name_item(&format!("{inner},")) || !printed(inner) {
            return false;
        }
        let at = gap.start + text.find(inner).unwrap_or(0);
        names.push(at..at + inner.len());
        unmarked += 1;
        true
    };
    for name in NAME.find_iter(line) {
        if is_role_word_name(name.as_str()) || !gap_item(end..name.start(), &mut names) {
            return Vec::new();
        }
        names.push(name.range());
        end = name.end();
    }
    if !gap_item(end..line.len(), &mut names) {
        return Vec::new();
    }
    // Only a line the whole-name reading could not take, for an item it did not know.
    if unmarked == 0 || names.len() < 2 {
        return Vec::new();
    }
    names
}

/// `line` without a closing parenthetical that gives a former name ("(f/k/a …)", "(formerly
/// known as …)", "(formerly …)").
fn former_name_removed(line: &str) -> &str {
    let trimmed = line.trim_end().trim_end_matches(',').trim_end();
    if !trimmed.ends_with(')') {
        return line;
    }
    let Some(open) = trimmed.rfind('(') else { return line };
    let inner = trimmed[open + 1..].trim_start().to_ascii_lowercase();
    if ["f/k/a", "fka ", "f.k.a.", "formerly"].iter().any(|w| inner.starts_with(w)) {
        trimmed[..open].trim_end()
    } else {
        line
    }
}

/// The borrower or agent a definition names (`"Borrower" means AT&T Capital Corporation, a
/// Delaware corporation`), for a role the preamble gives no one.
pub(crate) fn defined_parties(doc: &Document<'_>, drafts: &mut Drafts) {
    for (role, terms) in [
        (PartyRole::Borrower, &["borrower"][..]),
        (PartyRole::AdministrativeAgent, &["administrative agent", "agent"][..]),
        (PartyRole::FacilityAgent, &["facility agent"][..]),
        (PartyRole::IssuingBank, ISSUER_TERMS),
        (PartyRole::Guarantor, &["guarantor", "parent guarantor"][..]),
    ] {
        if drafts.any_has_role(role) {
            continue;
        }
        let mut named: Vec<(Range<usize>, Range<usize>)> = Vec::new();
        for definition in doc.structure.definitions_where(|key| terms.contains(&key)) {
            if !doc.parts.in_body(definition.term.start) {
                continue;
            }
            // A list of issuers is read before the name it opens with ("X, Y and Z, each in its
            // capacity …" names three issuers, not X alone).
            let listed =
                if role == PartyRole::IssuingBank { issuers_listed(doc, definition.body.clone()) } else { None };
            if let Some(names) = listed {
                for name in names {
                    drafts.add(doc, name, &[(role, definition.term.clone())]);
                }
            } else if let Some(name) = name_opening(doc, definition.body.clone()) {
                named.push((name, definition.term.clone()));
            } else if let Some(name) = named_through_a_term(doc, definition.body.clone(), role) {
                named.push((name, definition.term.clone()));
            }
        }
        let Some((first, term)) = named.first().cloned() else { continue };
        let key = |r: &Range<usize>| {
            doc.slice(r.clone())
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_uppercase)
                .collect::<String>()
        };
        if named.iter().all(|(name, _)| key(name) == key(&first)) {
            drafts.add(doc, first, &[(role, term)]);
        }
    }
}

/// The defined terms of the banks that issue the letters of credit.
const ISSUER_TERMS: &[&str] = &[
    "issuing bank",
    "issuing banks",
    "issuing lender",
    "issuing lenders",
    "l/c issuer",
    "l/c issuers",
    "lc issuer",
    "lc issuers",
    "letter of credit issuer",
    "letter of credit issuers",
];

/// The banks an issuer definition lists, each as a whole name, when the list is the definition's
/// whole subject and says each issues in its own capacity: `"Issuing Banks" means each of X, Y
/// and Z, each in its capacity as an issuer of Letters of Credit`. A list that runs on into a class
/// ("X and any other Lender that agrees …") names no one here.
fn issuers_listed(doc: &Document<'_>, body: Range<usize>) -> Option<Vec<Range<usize>>> {
    let head_end = floor_boundary(doc.text, body.start.saturating_add(400)).min(body.end);
    let head = doc.slice(body.start..head_end);
    // "each of X, Y and Z", "individually and collectively, each of …", or the list alone.
    let skipped =
        ["individually and collectively, each of ", "collectively, each of ", "each of the following: ", "each of "]
            .iter()
            .find_map(|opening| head.trim_start_matches([',', ' ']).strip_prefix(opening))
            .unwrap_or(head);
    let offset = body.start + head.len() - skipped.len();
    let mut names = Vec::new();
    let mut at = 0;
    loop {
        let name = PREAMBLE_NAME.find_at(skipped, at).filter(|m| m.start() == at)?;
        if is_role_word_name(name.as_str()) {
            return None;
        }
        names.push(offset + name.start()..offset + name.end());
        let rest = &skipped[name.end()..];
        // The capacity closing the list, shared by each name ("in its capacity" after a list
        // is each one's).
        if [
            ", each in its capacity",
            ", in their respective capacities",
            ", each in their capacit",
            ", in its capacity",
            ", in their capacit",
            " (each in its capacity",
            ", each as an issuer",
            ", each as issuer",
        ]
        .iter()
        .any(|closing| rest.starts_with(closing))
        {
            return (names.len() >= 2).then_some(names);
        }
        let separator = [", and ", " and ", ", "].into_iter().find(|sep| rest.starts_with(sep))?;
        at = name.end() + separator.len();
    }
}

/// The name a definition's body opens with, when the name is the whole subject: followed by a
/// comma, a parenthesis, the end of the sentence or "in its capacity".
fn name_opening(doc: &Document<'_>, body: Range<usize>) -> Option<Range<usize>> {
    let head_end = floor_boundary(doc.text, body.start.saturating_add(240)).min(body.end);
    let head = doc.slice(body.start..head_end);
    let skipped = head.strip_prefix("the ").or_else(|| head.strip_prefix("The ")).unwrap_or(head);
    let offset = head.len() - skipped.len();
    let name = PREAMBLE_NAME.find(skipped).filter(|m| m.start() == 0)?;
    let rest = skipped.get(name.end()..)?.trim_start();
    let ends_subject = rest.is_empty()
        || rest.starts_with([',', '(', '.', ';'])
        || rest.starts_with("in its")
        || rest.starts_with("and its");
    let stated = skipped.get(name.range())?;
    (ends_subject && !is_role_word_name(stated))
        .then(|| body.start + offset + name.start()..body.start + offset + name.end())
}

/// "“Borrower” means the Company or any Subsidiary Borrower" / "“Company” means Acme Inc., an
/// Indiana corporation": the borrower a definition names through another defined term, the name
/// that term's own definition opens with. Only for the borrower, only a term of one to three
/// capitalised words that the definition opens with and that closes its subject, and only a name
/// the preamble prints as a party.
fn named_through_a_term(doc: &Document<'_>, body: Range<usize>, role: PartyRole) -> Option<Range<usize>> {
    if role != PartyRole::Borrower {
        return None;
    }
    let head = doc.slice(body.start..floor_boundary(doc.text, body.start.saturating_add(120)).min(body.end));
    let term = TERM_OPENING.captures(head)?.name("term")?.as_str().to_ascii_lowercase();
    if term == "borrower" {
        return None;
    }
    let mut named = doc.structure.definitions_where(|key| key == term).filter(|d| doc.parts.in_body(d.term.start));
    let name = name_opening(doc, named.next()?.body.clone())?;
    let preamble = doc.slice(doc.parts.preamble.clone()?);
    let key = name_key(doc.slice(name.clone()));
    (key.len() >= 3 && name_key(preamble).contains(&key)).then_some(name)
}

/// A definition opening with another defined term that closes its subject: "the Company or any
/// Subsidiary Borrower", "the Parent Borrower and each …", "the Company.".
static TERM_OPENING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*the[ \t]+(?P<term>[\p{Lu}][\p{L}]+(?:[ \t]+[\p{Lu}][\p{L}]+){0,2})(?:[ \t]*[,.;]|[ \t]+(?:or|and)\b|[ \t]*$)",
    )
});

#[cfg(test)]
mod tests {
    use super::super::extract;
    use super::*;
    use crate::domain::extraction::document::Report;
    use crate::domain::extraction::model::Party;

    #[test]
    fn a_borrower_defined_through_another_term_is_the_party_that_terms_definition_names() {
        let text = "THIS CREDIT AGREEMENT dated as of May 1, 2020 is among ACME TOOLS INC., the SUBSIDIARY BORROWERS referred to herein, the LENDERS party hereto and FIRST HARBOR BANK, N.A., as Administrative Agent.\n\nARTICLE I\n\nSection 1.01. Defined Terms.\n\n\u{201c}Borrower\u{201d} means the Company or any Subsidiary Borrower, as the context may require.\n\n\u{201c}Company\u{201d} means Acme Tools Inc., an Indiana corporation.\n\n\u{201c}Lenders\u{201d} means the banks party hereto.\n\nARTICLE II\n\nSection 2.01. Loans. Each Lender agrees to make Loans.\n";
        let found = parties(text);
        let borrowers: Vec<&str> =
            found.iter().filter(|p| p.has_role(PartyRole::Borrower)).map(|p| p.name.value().as_str()).collect();
        assert_eq!(borrowers, ["Acme Tools Inc."], "{found:?}");
        // A name the preamble does not print as a party is not taken from a definition.
        let elsewhere = text.replace("Acme Tools Inc., an Indiana", "Birch Holdings Inc., an Indiana");
        let found = parties(&elsewhere);
        assert!(found.iter().all(|p| !p.has_role(PartyRole::Borrower)), "{found:?}");
    }

    fn parties(text: &str) -> Vec<Party> {
        let doc = Document::scan(text);
        extract(&doc, &mut Report::default())
    }

    fn with_role(found: &[Party], role: PartyRole) -> Vec<String> {
        found.iter().filter(|p| p.has_role(role)).map(|p| p.name.value().clone()).collect()
    }

    const COVERED_PREAMBLE: &str = "\n\nTHIS CREDIT AGREEMENT is entered into as of March 15, 2024, among ORCHARD FOODS CORP., a Delaware corporation (the \"Borrower\"), the Lenders party hereto and FIRST HARBOR BANK, N.A., as Administrative Agent.\n";

    const TITLED_PREAMBLE: &str = "AMENDMENT NO. 2 TO THE CREDIT AGREEMENT\n\nDated as of June 3, 2015\n\nAMENDMENT NO. 2 TO THE CREDIT AGREEMENT among {first}, the banks, financial institutions and other lenders parties to the Credit Agreement referred to below (collectively, the \"Banks\") and SECOND BANK, N.A., as agent (the \"Agent\") for the Banks.\n\nPRELIMINARY STATEMENTS: WMC has requested an extension.\n";

    const LETTERED_PREAMBLE: &str = "FIRST AMENDED AND RESTATED CREDIT AGREEMENT\n\nThis FIRST AMENDED AND RESTATED CREDIT AGREEMENT, dated as of March 6, 2024 is entered into by and among:\n\n(a) GREYMOOR LENDING FUND SPV LLC, a Delaware limited liability company (the \"Borrower\");\n\n(b) the Lenders party hereto from time to time;\n\n(c) HALCYON ASSET LENDING LLC, in its capacity as Administrative Agent (in such capacity, the \"Administrative Agent\"); and\n\n(d) MARBLEHEAD TRUST COMPANY, N.A., a national banking association ({trustee}).\n\nRECITALS\n\nThe Borrower has requested a revolving credit facility.\n";

    #[test]
    fn a_preamble_ending_in_a_colon_reads_its_lettered_party_paragraphs() {
        let text = LETTERED_PREAMBLE.replace("{trustee}", "the \"Custodian\"");
        let found = parties(&text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["GREYMOOR LENDING FUND SPV LLC"], "{found:?}");
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["HALCYON ASSET LENDING LLC"], "{found:?}");
        // Lettered clauses after a preamble that does not end in a colon are its body, not parties.
        let closed = text.replace("by and among:", "by and among the parties named below.");
        assert!(parties(&closed).iter().all(|p| !p.has_role(PartyRole::AdministrativeAgent)));
    }

    #[test]
    fn a_lettered_collateral_agent_defined_as_bank_is_not_made_a_lender() {
        let text = LETTERED_PREAMBLE.replace(
            "{trustee}",
            "in its capacity as Collateral Agent (\"Bank\" and, in such capacity, the \"Collateral Agent\")",
        );
        let found = parties(&text);
        // A real restatement defines its collateral agent as "Bank"; reading its lettered list must
        // not make the collateral agent a lender.
        assert!(with_role(&found, PartyRole::Lender).is_empty(), "the collateral agent lends nothing: {found:?}");
        // Beside "the Agent" the bank is the lender and its agent both.
        let agent = "\n\nTHIS CREDIT AGREEMENT is dated as of May 1, 1996 between TIMBERWICK LABS, INC., a Delaware corporation (the \"Borrower\"), and ORCHARD LANE BANK, N.A. (\"Bank\" and, in its capacity as agent, the \"Agent\").\n";
        assert_eq!(with_role(&parties(agent), PartyRole::Lender), ["ORCHARD LANE BANK, N.A."]);
        // "Bank" alone is still the lending side of a bilateral agreement.
        let bilateral = "\n\nTHIS LOAN AND SECURITY AGREEMENT is dated as of May 1, 2023 between ORCHARD LANE BANK, a California corporation (\"Bank\"), and TIMBERWICK LABS, INC., a Delaware corporation (\"Borrower\").\n";
        assert_eq!(with_role(&parties(bilateral), PartyRole::Lender), ["ORCHARD LANE BANK"]);
    }

    #[test]
    fn a_title_case_preamble_reads_names_wrapped_over_its_lines_whole() {
        let text = "\n\n364-Day Credit Agreement dated as of May 2, 2021, among Juniper Valley\nMining Company, a Delaware corporation, as the Borrower, Harbor Point Bank,\nNational Association, as Administrative Agent, the Lenders party hereto, Bank of\nNorthland, N.A., as Syndication Agent, Eastgate Bank USA and The\nRiver-Stone Bank, Chicago Branch, as Co-Documentation Agents.\nThe parties hereto agree as follows:\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["Juniper Valley Mining Company"]);
        assert_eq!(with_role(&found, PartyRole::SyndicationAgent), ["Bank of Northland, N.A."]);
        assert_eq!(
            with_role(&found, PartyRole::DocumentationAgent),
            ["Eastgate Bank USA", "The River-Stone Bank, Chicago Branch"]
        );
    }

    #[test]
    fn the_first_party_named_by_a_short_form_of_its_name_beside_the_banks_is_the_borrower() {
        for first in [
            "WILLOW MOTORS CORPORATION, an Ohio corporation (\"WMC\")",
            "THE WILLOW MOTORS CORPORATION, an Ohio corporation (\"Willow\")",
        ] {
            let found = parties(&TITLED_PREAMBLE.replace("{first}", first));
            let borrowers = with_role(&found, PartyRole::Borrower);
            assert_eq!(borrowers.len(), 1, "{first}: {found:?}");
            assert!(borrowers[0].contains("WILLOW MOTORS CORPORATION"), "{borrowers:?}");
            assert!(
                with_role(&found, PartyRole::Lender).is_empty(),
                "the banks' term is not the borrower's: {found:?}"
            );
        }
    }

    #[test]
    fn a_name_without_a_legal_form_is_read_when_described_as_a_trust_or_banking_corporation() {
        let text = "\n\nTHIS CREDIT AGREEMENT is dated as of March 15, 2024, among WILLOW PROPERTIES, a Maryland real estate investment trust (the \"Borrower\"), the Lenders party hereto and HARBOR TRUST, a New York banking corporation, as Administrative Agent.\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["WILLOW PROPERTIES"]);
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["HARBOR TRUST"]);
    }

    #[test]
    fn a_generic_short_form_or_a_bank_named_first_is_no_borrower() {
        for first in [
            "WILLOW HOLDINGS INC., an Ohio corporation (\"Holdings\")",
            "THIRD NATIONAL BANK, a national banking association (\"TNB\")",
            "WILLOW MOTORS CORPORATION, an Ohio corporation (\"Seller\")",
        ] {
            let found = parties(&TITLED_PREAMBLE.replace("{first}", first));
            assert!(with_role(&found, PartyRole::Borrower).is_empty(), "{first}: {found:?}");
        }
    }

    #[test]
    fn names_in_columns_of_a_cover_line_share_the_role_line_under_them() {
        let cover = "CREDIT AGREEMENT\n\nCEDAR CAPITAL MARKETS, LLC | PINE SECURITIES LLC\nas Joint Lead Arrangers\n\nBIRCH SECURITIES INC.     ALDER CAPITAL LLC\nas Joint Bookrunners\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(with_role(&found, PartyRole::Arranger), ["CEDAR CAPITAL MARKETS, LLC", "PINE SECURITIES LLC"]);
        assert_eq!(with_role(&found, PartyRole::Bookrunner), ["BIRCH SECURITIES INC.", "ALDER CAPITAL LLC"]);
    }

    #[test]
    fn role_lines_side_by_side_in_cells_give_each_role_to_its_own_column_only() {
        let cover = "CREDIT AGREEMENT\n\nCEDAR BANK, N.A. | PINE BANK, N.A.\nBIRCH BANK, N.A., | ALDER TRUST COMPANY,\nas Co-Syndication Agents | as Co-Documentation Agents\n\nMAPLE SECURITIES LLC\nELM BANK, N.A. | OAK BANK, N.A.\nas Joint Lead Arrangers | as Joint Bookrunners\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(with_role(&found, PartyRole::SyndicationAgent), ["CEDAR BANK, N.A.", "BIRCH BANK, N.A."]);
        assert_eq!(with_role(&found, PartyRole::DocumentationAgent), ["PINE BANK, N.A.", "ALDER TRUST COMPANY"]);
        // A row cut into another number of cells ends the names: whose column it was is unknown.
        assert_eq!(with_role(&found, PartyRole::Arranger), ["ELM BANK, N.A."]);
        assert_eq!(with_role(&found, PartyRole::Bookrunner), ["OAK BANK, N.A."]);
    }

    #[test]
    fn names_run_together_in_the_cell_before_their_role_take_it_and_no_names_above() {
        let cover = "CREDIT AGREEMENT\n\nWILLOW SECURITIES LLC\nCEDAR CAPITAL LLC PINE BANK, N.A. and BIRCH SECURITIES INC. | as Joint Lead Arrangers\nALDER BANK, N.A. | as Syndication Agent\nOAK BANK, N.A. HOLLY NATIONAL BANK | as Documentation Agents\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(
            with_role(&found, PartyRole::Arranger),
            ["CEDAR CAPITAL LLC", "PINE BANK, N.A.", "BIRCH SECURITIES INC."]
        );
        assert_eq!(with_role(&found, PartyRole::SyndicationAgent), ["ALDER BANK, N.A."]);
        assert_eq!(with_role(&found, PartyRole::DocumentationAgent), ["OAK BANK, N.A.", "HOLLY NATIONAL BANK"]);
        // The line above the row is another row's: no arranger.
        assert!(!with_role(&found, PartyRole::Arranger).contains(&"WILLOW SECURITIES LLC".to_owned()));
    }

    #[test]
    fn a_cover_name_wrapped_before_its_legal_form_is_read_whole() {
        let cover = "CREDIT AGREEMENT\n\nCEDAR BANK, N.A., BIRCH CAPITAL MARKETS\n\nLLC and PINE SECURITIES INC.,\n\nas Joint Bookrunners\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(
            with_role(&found, PartyRole::Bookrunner),
            ["CEDAR BANK, N.A.", "BIRCH CAPITAL MARKETS LLC", "PINE SECURITIES INC."]
        );
    }

    #[test]
    fn a_caption_of_title_roles_gives_them_to_the_names_listed_under_it() {
        let cover = "CREDIT AGREEMENT\n\nFIRST HARBOR BANK, N.A.,\nas Administrative Agent\n\nJoint Lead Arrangers and Joint Bookrunners:\n\nCEDAR CAPITAL MARKETS, LLC,\n\nPINE SECURITIES LLC,\n\nBIRCH BANK, N.A.,\nas Syndication Agent\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(with_role(&found, PartyRole::Arranger), ["CEDAR CAPITAL MARKETS, LLC", "PINE SECURITIES LLC"]);
        assert_eq!(with_role(&found, PartyRole::SyndicationAgent), ["BIRCH BANK, N.A."]);
    }

    #[test]
    fn a_cover_names_the_issuing_banks_and_swing_line_lender_the_preamble_leaves_to_a_class() {
        let cover = "CREDIT AGREEMENT\n\nWILLOW BANK PLC and ASPEN BANK USA,\nas L/C Issuers\n\nLARCH BANK,\nas Swingline Lender and as an Issuing Bank\n\nTHE LENDERS AND L/C ISSUERS PARTY HERETO\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(with_role(&found, PartyRole::IssuingBank), ["WILLOW BANK PLC", "ASPEN BANK USA", "LARCH BANK"]);
        assert_eq!(with_role(&found, PartyRole::SwinglineLender), ["LARCH BANK"]);
    }

    #[test]
    fn an_issuer_definition_listing_banks_without_each_of_names_them_all() {
        let definitions = "\n\nARTICLE I\nDEFINITIONS\n\n\"L/C Issuer\" means Willow Bank, N.A., Aspen Bank USA and Larch Bank plc, in its capacity as an issuer of Letters of Credit hereunder, or any successor issuer thereof.\n\n\"Issuing Bank\" means any L/C Issuer.\n";
        let found = parties(&format!("CREDIT AGREEMENT\n{COVERED_PREAMBLE}{definitions}"));
        assert_eq!(
            with_role(&found, PartyRole::IssuingBank),
            ["Willow Bank, N.A.", "Aspen Bank USA", "Larch Bank plc"]
        );
        let collective = "\n\nARTICLE I\nDEFINITIONS\n\n\"Issuing Banks\" means, individually and collectively, each of Willow Bank, N.A. and Aspen Bank USA, in their respective capacities as issuers of Letters of Credit.\n";
        let found = parties(&format!("CREDIT AGREEMENT\n{COVERED_PREAMBLE}{collective}"));
        assert_eq!(with_role(&found, PartyRole::IssuingBank), ["Willow Bank, N.A.", "Aspen Bank USA"]);
    }

    #[test]
    fn a_capacity_ending_in_a_colon_is_a_caption_of_the_names_below_it() {
        let cover = "CREDIT AGREEMENT\n\nFIRST HARBOR BANK, N.A.,\nas Administrative Agent\n\nas Joint Lead Arrangers:\n\nCEDAR CAPITAL MARKETS, LLC\nPINE SECURITIES LLC\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(with_role(&found, PartyRole::Arranger), ["CEDAR CAPITAL MARKETS, LLC", "PINE SECURITIES LLC"]);
    }

    #[test]
    fn a_cover_line_of_names_may_hold_a_name_without_a_legal_form_printed_again_elsewhere() {
        let cover = "CREDIT AGREEMENT\n\nFIRST HARBOR BANK, N.A.,\n\nas Administrative Agent\n\nALDER BANK PLC, CEDAR BANK, N.A.,\n\nBIRCH PARIBAS, DUNE BANK LTD., ELM BANK USA, NATIONAL ASSOCIATION,\n\nFERN BANK AG NEW YORK BRANCH and THE BANK OF ELMWOOD,\nas Documentation Agents\n";
        let signed = "\nSection 1. Loans.\n\nIN WITNESS WHEREOF, the parties have signed this Agreement.\n\nBIRCH PARIBAS, as a Lender\nBy: /s/ Ann Lee\n";
        let text = format!("{cover}{COVERED_PREAMBLE}{signed}");
        let agents = with_role(&parties(&text), PartyRole::DocumentationAgent);
        for name in ["ALDER BANK PLC", "CEDAR BANK, N.A.", "BIRCH PARIBAS", "DUNE BANK LTD.", "THE BANK OF ELMWOOD"] {
            assert!(agents.iter().any(|a| a == name), "{name}: {agents:?}");
        }
        // An item the document prints nowhere else is no name: the line, and those above it, are not read.
        let text = format!("{cover}{COVERED_PREAMBLE}").replace("BIRCH PARIBAS", "BIRCH TIMBER");
        let agents = with_role(&parties(&text), PartyRole::DocumentationAgent);
        assert!(
            agents.iter().all(|a| !a.contains("BIRCH") && !a.contains("ALDER") && !a.contains("DUNE")),
            "{agents:?}"
        );
    }

    #[test]
    fn a_former_name_recalled_after_a_cover_name_is_read_over() {
        let cover =
            "CREDIT AGREEMENT\n\nCEDAR CAPITAL MARKETS, LLC (f/k/a CEDAR SECURITIES LLC),\nas Sole Lead Arranger\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(with_role(&found, PartyRole::Arranger), ["CEDAR CAPITAL MARKETS, LLC"]);
    }

    #[test]
    fn a_cover_set_as_one_line_gives_each_role_the_names_since_the_role_before_it() {
        let line = "CREDIT AGREEMENT\n\nORCHARD FOODS CORP., as Borrower, THE LENDERS PARTY HERETO and FIRST HARBOR BANK, N.A., as Administrative Agent ______ BIRCH BANK, N.A., ELM BANK PLC and OAK BANK USA, as Co-Syndication Agents, WILLOW BANK, N.A. ASPEN BANK USA and LARCH BANK, as Co-Documentation Agents, CEDAR CAPITAL MARKETS, LLC and PINE SECURITIES LLC, as Joint Lead Arrangers\n";
        let found = parties(&format!("{line}{COVERED_PREAMBLE}"));
        assert_eq!(
            with_role(&found, PartyRole::SyndicationAgent),
            ["BIRCH BANK, N.A.", "ELM BANK PLC", "OAK BANK USA"]
        );
        assert_eq!(
            with_role(&found, PartyRole::DocumentationAgent),
            ["WILLOW BANK, N.A.", "ASPEN BANK USA", "LARCH BANK"]
        );
        assert_eq!(with_role(&found, PartyRole::Arranger), ["CEDAR CAPITAL MARKETS, LLC", "PINE SECURITIES LLC"]);
        // The borrower and agent before them keep their own roles only.
        assert!(with_role(&found, PartyRole::SyndicationAgent).iter().all(|n| !n.contains("HARBOR")));
    }

    #[test]
    fn a_caption_under_names_without_a_colon_may_be_theirs_and_gives_the_next_names_nothing() {
        let cover = "CREDIT AGREEMENT\n\nCEDAR CAPITAL MARKETS, LLC\nJoint Lead Arrangers\n\nBIRCH BANK, N.A.\nSyndication Agent\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert!(with_role(&found, PartyRole::Arranger).is_empty(), "{found:?}");
        assert!(with_role(&found, PartyRole::SyndicationAgent).is_empty(), "{found:?}");
    }

    #[test]
    fn names_under_a_caption_stop_at_a_blank_line_the_list_did_not_leave_open() {
        let cover = "CREDIT AGREEMENT\n\nFIRST HARBOR BANK, N.A.,\nas Administrative Agent\n\nLead Arranger\nCEDAR CAPITAL MARKETS, LLC\n\nPINE SECURITIES LLC\n";
        let found = parties(&format!("{cover}{COVERED_PREAMBLE}"));
        assert_eq!(with_role(&found, PartyRole::Arranger), ["CEDAR CAPITAL MARKETS, LLC"]);
    }

    #[test]
    fn a_term_a_class_shares_together_with_a_defined_party_goes_to_that_party() {
        let found = parties(
            "THIS CREDIT AGREEMENT is entered into as of March 15, 2024, among ORCHARD FOODS CORP., a Delaware corporation (the \"Parent\"), such Subsidiaries of the Parent as become parties under Section 2.20 (each an \"Additional Borrower\" and, together with the Parent, the \"Borrowers\"), the Lenders party hereto and FIRST HARBOR BANK, N.A., as Administrative Agent.\n",
        );
        assert_eq!(with_role(&found, PartyRole::Borrower), vec!["ORCHARD FOODS CORP.".to_owned()]);
    }

    #[test]
    fn names_described_in_a_list_all_share_the_plural_term_after_the_last_one() {
        let found = parties(
            "THIS CREDIT AGREEMENT is entered into as of March 15, 2024, among ORCHARD FOODS CORP., a Delaware corporation (the \"Borrower\"), ORCHARD DAIRY LLC, a Vermont limited liability company, and ORCHARD BAKERY, INC., a Maine corporation (each a \"Guarantor\" and together the \"Guarantors\"), the Lenders party hereto and FIRST HARBOR BANK, N.A., as Administrative Agent.\n",
        );
        assert_eq!(
            with_role(&found, PartyRole::Guarantor),
            vec!["ORCHARD DAIRY LLC".to_owned(), "ORCHARD BAKERY, INC.".to_owned()]
        );
        assert_eq!(with_role(&found, PartyRole::Borrower), vec!["ORCHARD FOODS CORP.".to_owned()]);
    }

    #[test]
    fn the_lenders_closing_a_role_list_are_a_class_not_a_role_of_the_names_before() {
        let text = "This CREDIT AGREEMENT is entered into as of March 15, 2024, among ACME HOLDINGS, INC., a Delaware corporation (the \"Borrower\"), FIRST HARBOR BANK, N.A., as Administrative Agent, CEDAR BANK, N.A. and PINE TRUST COMPANY, as co-syndication agents, and the Lenders.\n";
        let doc = Document::scan(text);
        let mut drafts = Drafts::default();
        preamble_parties(&doc, doc.parts.preamble.clone().unwrap_or(0..text.len()), false, &mut drafts);
        for name in ["CEDAR BANK, N.A.", "PINE TRUST COMPANY"] {
            let party = drafts
                .0
                .iter()
                .find(|d| d.name.value() == name)
                .map(|d| d.roles.iter().map(|r| *r.value()).collect::<Vec<_>>());
            assert_eq!(party, Some(vec![PartyRole::SyndicationAgent]), "{name}");
        }
    }

    #[test]
    fn a_cover_list_reads_a_bank_s_securities_arm_book_managers_and_passes_over_an_item_without_a_legal_form() {
        let text = "TERM LOAN AGREEMENT\nby and among\nORBIT FOODS CORPORATION\nand\nRIVER BANK, N.A.,\nas Administrative Agent\n\nRIVER BANK, N.A. and\nSTONE BANK SECURITIES INC.,\nas Joint Lead Arrangers and Joint Book Managers\n\nHARBOR BANK PLC,\nSOCIETE LUMIERE,\nCEDAR TRUST COMPANY,\nas Co-Documentation Agents\n\n\nThis TERM LOAN AGREEMENT dated as of May 4, 2020 is among ORBIT FOODS CORPORATION (the \"Borrower\"), the Lenders party hereto and RIVER BANK, N.A., as Administrative Agent.\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Arranger), ["RIVER BANK, N.A.", "STONE BANK SECURITIES INC."]);
        assert_eq!(with_role(&found, PartyRole::Bookrunner), ["RIVER BANK, N.A.", "STONE BANK SECURITIES INC."]);
        assert_eq!(with_role(&found, PartyRole::DocumentationAgent), ["HARBOR BANK PLC", "CEDAR TRUST COMPANY"]);
    }

    #[test]
    fn a_role_belongs_to_the_name_before_it_not_to_a_class_of_lenders() {
        let text = "This CREDIT AGREEMENT dated as of June 30, 1995 is among AT&T CAPITAL\nCORPORATION, the BANKS party hereto and MORGAN GUARANTY TRUST COMPANY OF NEW\nYORK, as Agent.\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["MORGAN GUARANTY TRUST COMPANY OF NEW YORK"]);
        assert!(with_role(&found, PartyRole::Borrower).is_empty(), "the preamble names no borrower");
    }

    #[test]
    fn a_cover_list_of_comma_separated_names_takes_its_plural_co_agent_and_arranger_roles() {
        let text = "364-DAY CREDIT AGREEMENT\nby and among\nORBIT FOODS CORPORATION,\nTHE LENDERS PARTY HERETO,\nHARBOR BANK PLC, CEDAR BANK, NATIONAL ASSOCIATION,\nas Co-Syndication Agents,\nand\nRIVER BANK, N.A.,\nas Administrative Agent\n\nSTONE BANK SECURITIES INC.,\nRIVER SECURITIES, INC., HARBOR BANK PLC,\nBANCO LUNA, S.A. NEW YORK BRANCH\nas Joint Lead Arrangers and Joint Bookrunners\n\n\nThis 364-DAY CREDIT AGREEMENT dated as of May 4, 2020 is among ORBIT FOODS CORPORATION (the \"Borrower\"), the Lenders party hereto, RIVER BANK, N.A., as Administrative Agent, and HARBOR BANK PLC and CEDAR BANK, NATIONAL\nASSOCIATION, as co-syndication agents.\n";
        let found = parties(text);
        // The preamble names Cedar Bank over a line break: one party, not a second cut "CEDAR BANK".
        assert_eq!(
            with_role(&found, PartyRole::SyndicationAgent),
            ["HARBOR BANK PLC", "CEDAR BANK, NATIONAL ASSOCIATION"]
        );
        assert_eq!(
            with_role(&found, PartyRole::Arranger),
            [
                "HARBOR BANK PLC",
                "STONE BANK SECURITIES INC.",
                "RIVER SECURITIES, INC.",
                "BANCO LUNA, S.A. NEW YORK BRANCH"
            ],
            "a bank's name continued after a bare space (\"STONE BANK\" \"SECURITIES INC.\") is one name"
        );
    }

    #[test]
    fn a_cover_read_as_the_preamble_runs_on_over_the_role_blocks_below_it() {
        let text = "FIVE-YEAR CREDIT AGREEMENT\ndated as of March 6, 2020,\namong\nTHE ACME COMPANY,\nas Borrower,\nThe LENDERS Party Hereto\nand\nRIVER BANK, N.A.,\nas Administrative Agent\n______\n\n\nHARBOR BANK PLC,\nCEDAR BANK, NATIONAL ASSOCIATION, and\nTRUIST BANK,\nas Co-Documentation Agents\n\n\nRIVER SECURITIES LLC,\nas Sole Lead Arranger\n\n\nTABLE OF CONTENTS\n\nSection 9.01 Notices, as Agent may direct\n\n\nFIVE-YEAR CREDIT AGREEMENT dated as of March 6, 2020, among THE ACME COMPANY, a Delaware corporation (the \u{201c}Borrower\u{201d}), the LENDERS party hereto and RIVER BANK, N.A., as administrative agent for the Lenders.\n";
        let found = parties(text);
        assert_eq!(
            with_role(&found, PartyRole::DocumentationAgent),
            ["HARBOR BANK PLC", "CEDAR BANK, NATIONAL ASSOCIATION", "TRUIST BANK"]
        );
        assert_eq!(with_role(&found, PartyRole::Arranger), ["RIVER SECURITIES LLC"]);
    }

    #[test]
    fn a_name_without_a_legal_form_is_a_name_when_the_preamble_describes_it_as_an_entity() {
        let text = "This TERM LOAN AGREEMENT is entered into as of June 1, 2021, by and among ZENTRO, a Nevada corporation (the \u{201c}Borrower\u{201d}), the Lenders party hereto and FIRST HARBOR BANK, N.A., as administrative agent.\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["ZENTRO"]);
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["FIRST HARBOR BANK, N.A."]);
        // A role word before the description is no name.
        let role =
            "This AGREEMENT is made among the BORROWER, a Nevada corporation, and FIRST HARBOR BANK, N.A., as agent.\n";
        assert!(with_role(&parties(role), PartyRole::Borrower).is_empty());
    }

    #[test]
    fn a_description_between_the_name_and_its_defined_term_is_read_over() {
        let text = "This AMENDMENT NO. 3, dated as of January 3, 2023, is among KIMCO REALTY OP, LLC, a Delaware limited liability company (as successor by conversion to Kimco Realty Corporation) (the \u{201c}Borrower\u{201d}), the Lenders party hereto (the \u{201c}Lenders\u{201d}) and JPMORGAN CHASE BANK, N.A., as administrative agent for the Lenders (the \u{201c}Administrative Agent\u{201d}).\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["KIMCO REALTY OP, LLC"]);
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["JPMORGAN CHASE BANK, N.A."]);
        assert!(with_role(&found, PartyRole::Lender).is_empty());
    }

    #[test]
    fn every_name_of_a_list_takes_a_collective_role_and_defined_aliases_join_it() {
        let text = "This Amendment No. 1 dated as of February 26, 1996 is among Acme Australia Inc., Acme\nBaltic Inc., and Acme Drilling Company (collectively, the \"Borrowers\") and First Bank, N.A. (\"Bank\").\n";
        let found = parties(text);
        assert_eq!(
            with_role(&found, PartyRole::Borrower),
            ["Acme Australia Inc.", "Acme Baltic Inc.", "Acme Drilling Company"]
        );
        let text = "This SECOND AMENDMENT (this \u{201c}Agreement\u{201d}) is entered into as of December 29, 2022, by and among NOW INC., a Delaware corporation (\u{201c}Parent\u{201d}), DNOW L.P., a Texas limited partnership (\u{201c}DNOW\u{201d} and, together with Parent, each a \u{201c}US Borrower\u{201d}), and WELLS FARGO BANK, NATIONAL ASSOCIATION, as administrative agent.\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["NOW INC.", "DNOW L.P."]);
    }

    #[test]
    fn every_defined_term_a_party_is_joined_with_takes_its_role_however_the_list_is_punctuated() {
        let text = "This LOAN AGREEMENT dated as of March 2, 2021, is between HARBOR BANK, a California corporation (\u{201c}Bank\u{201d}), and Orchid Media, Inc., a Delaware corporation (\u{201c}Orchid\u{201d}), Orchid Reef, Inc., a Delaware corporation (\u{201c}Reef\u{201d}), Orchid Lagoon, Inc., a Delaware corporation (\u{201c}Lagoon\u{201d}), and Orchid TV, Inc., a Delaware corporation (\u{201c}TV\u{201d}, and together with Orchid, Reef, and Lagoon individually and collectively, \u{201c}Borrower\u{201d}).\n";
        assert_eq!(
            with_role(&parties(text), PartyRole::Borrower),
            ["Orchid Media, Inc.", "Orchid Reef, Inc.", "Orchid Lagoon, Inc.", "Orchid TV, Inc."]
        );
        let text = "This AMENDMENT is entered into as of May 3, 2022, by and among Keel Holdings Co., a Maryland corporation (\u{201c}Parent\u{201d}), Mast Works, LLC, a Delaware limited liability company (\u{201c}Mast\u{201d}), Sail Tech, Inc., a Michigan corporation (\u{201c}Sail\u{201d}; and together with Parent and Mast, each individually a \u{201c}US Borrower\u{201d}), and FIRST HARBOR BANK, N.A., as agent.\n";
        assert_eq!(
            with_role(&parties(text), PartyRole::Borrower),
            ["Keel Holdings Co.", "Mast Works, LLC", "Sail Tech, Inc."]
        );
    }

    #[test]
    fn named_borrowers_joined_by_a_class_of_subsidiaries_share_the_collective_term() {
        let text = "This TERM LOAN AGREEMENT is made as of May 1, 2021, by and among CEDAR ENERGY, LLC, a Nevada limited liability company (\u{201c}Cedar\u{201d}), CEDAR ENERGY TX, LLC, a Texas limited liability company (\u{201c}Cedar TX\u{201d}), BIRCH FIELD, L.L.C., a Delaware limited liability company (\u{201c}Birch\u{201d}), and each direct and indirect Subsidiary of the foregoing from time to time (each a \u{201c}Borrower\u{201d} and, collectively, the \u{201c}Borrowers\u{201d}), CEDAR HOLDINGS, LLC, a Nevada limited liability company (\u{201c}Holdings\u{201d}), each lender party hereto (collectively, the \u{201c}Lenders\u{201d}), and 77 ELM LLC, a Delaware limited liability company, as administrative agent for the Lenders (the \u{201c}Agent\u{201d}).\n";
        let found = parties(text);
        assert_eq!(
            with_role(&found, PartyRole::Borrower),
            ["CEDAR ENERGY, LLC", "CEDAR ENERGY TX, LLC", "BIRCH FIELD, L.L.C."]
        );
        assert!(with_role(&found, PartyRole::Lender).is_empty(), "{found:?}");
        // A party with a role of its own is not one of the subsidiaries' list.
        let text = "This CREDIT AGREEMENT is made as of May 1, 2021, among ALDER CORP., a Delaware corporation (the \u{201c}Borrower\u{201d}), FIRST HARBOR BANK, N.A., as administrative agent, and each Subsidiary of the Borrower from time to time party hereto (collectively, the \u{201c}Guarantors\u{201d}).\n";
        assert!(with_role(&parties(text), PartyRole::Guarantor).is_empty());
    }

    #[test]
    fn an_issuer_definition_naming_banks_makes_them_issuing_banks_but_a_class_or_a_successor_does_not() {
        let preamble = "This CREDIT AGREEMENT dated as of May 1, 2020 is among ALDER CORP., a Delaware corporation (the \u{201c}Borrower\u{201d}), the Lenders party hereto and RIVER BANK, N.A., as administrative agent.\n\n";
        let one = format!(
            "{preamble}\"LC Issuer\" means River Bank, N.A., in its capacity as issuer of Letters of Credit hereunder, and its successors in such capacity.\n"
        );
        assert_eq!(with_role(&parties(&one), PartyRole::IssuingBank), ["RIVER BANK, N.A."]);
        let listed = format!(
            "{preamble}\"Issuing Banks\" means each of River Bank, N.A., Stone Trust Company and Mill Bank PLC, each in its capacity as an issuer of Letters of Credit hereunder.\n"
        );
        assert_eq!(
            with_role(&parties(&listed), PartyRole::IssuingBank),
            ["RIVER BANK, N.A.", "Stone Trust Company", "Mill Bank PLC"]
        );
        for class in [
            "\"Issuing Bank\" means each Lender that agrees to issue Letters of Credit hereunder.\n",
            "\"Issuing Banks\" means each of River Bank, N.A. and any other Lender that agrees to issue Letters of Credit.\n",
            "\"Successor Issuing Bank\" means Stone Trust Company, upon its appointment.\n",
        ] {
            let text = format!("{preamble}{class}");
            assert!(with_role(&parties(&text), PartyRole::IssuingBank).is_empty(), "{class}");
        }
    }

    #[test]
    fn a_guarantor_definition_naming_one_whole_name_makes_it_the_guarantor() {
        let preamble = "This CREDIT AGREEMENT dated as of May 1, 2020 is among ALDER CORP., a Delaware corporation (the \u{201c}Borrower\u{201d}), the Lenders party hereto and RIVER BANK, N.A., as administrative agent.\n\n";
        let named = format!("{preamble}\"Guarantor\" means Alder Parent LLC, a Delaware limited liability company.\n");
        assert_eq!(with_role(&parties(&named), PartyRole::Guarantor), ["Alder Parent LLC"]);
        let class =
            format!("{preamble}\"Guarantor\" means Alder Parent LLC and each Subsidiary that signs a Guaranty.\n");
        assert!(with_role(&parties(&class), PartyRole::Guarantor).is_empty());
    }

    #[test]
    fn each_opening_a_shared_parenthetical_gives_its_term_to_every_name_of_the_list() {
        let text = "This AMENDMENT dated as of May 1, 2020 is among ALDER CORP., a Delaware corporation (the \u{201c}Borrower\u{201d}), ALDER PARENT LLC, a Delaware limited liability company (\u{201c}Holdings\u{201d}), ALDER EAST LLC and ALDER WEST LLC (each a \u{201c}Subsidiary Guarantor\u{201d} and, together with Holdings, the \u{201c}Guarantors\u{201d}), the Lenders party hereto and RIVER BANK, N.A., as administrative agent.\n";
        let found = parties(text);
        let mut guarantors = with_role(&found, PartyRole::Guarantor);
        guarantors.sort();
        assert_eq!(guarantors, ["ALDER EAST LLC", "ALDER PARENT LLC", "ALDER WEST LLC"], "{found:?}");
        assert_eq!(with_role(&found, PartyRole::Borrower), ["ALDER CORP."]);
    }

    #[test]
    fn co_bookrunners_and_book_runners_in_two_words_are_bookrunners() {
        let cover = "TERM LOAN AGREEMENT\n\nRIVER CAPITAL MARKETS LLC,\nHARBOR SECURITIES INC. and\nCEDAR BANK, N.A.\nas Co-Lead Arrangers and Co-Bookrunners\n\nThis agreement dated as of May 1, 2020 is among ALDER CORP., a Delaware corporation (the \u{201c}Borrower\u{201d}), and RIVER BANK, N.A., as administrative agent.\n";
        assert_eq!(
            with_role(&parties(cover), PartyRole::Bookrunner),
            ["RIVER CAPITAL MARKETS LLC", "HARBOR SECURITIES INC.", "CEDAR BANK, N.A."]
        );
        let preamble = "This CREDIT AGREEMENT dated as of May 1, 2020 is among ALDER CORP., a Delaware corporation (the \u{201c}Borrower\u{201d}), RIVER BANK, N.A., as administrative agent, and OAK SECURITIES LLC and PINE BANK PLC, as joint lead arrangers and joint book runners, and the Lenders party hereto.\n";
        assert_eq!(with_role(&parties(preamble), PartyRole::Bookrunner), ["OAK SECURITIES LLC", "PINE BANK PLC"]);
    }

    #[test]
    fn a_capital_markets_arm_is_a_whole_name_with_or_without_a_legal_form() {
        let text = "CREDIT AGREEMENT\n\nHARBOR CAPITAL MARKETS,\nRIVER CAPITAL MARKETS, LLC and\nCEDAR BANK, N.A.\nas Joint Lead Arrangers\n\nThis CREDIT AGREEMENT dated as of May 1, 2020 is among ALDER CORP., a Delaware corporation (the \u{201c}Borrower\u{201d}), and RIVER BANK, N.A., as administrative agent.\n";
        assert_eq!(
            with_role(&parties(text), PartyRole::Arranger),
            ["HARBOR CAPITAL MARKETS", "RIVER CAPITAL MARKETS, LLC", "CEDAR BANK, N.A."]
        );
    }

    #[test]
    fn a_collective_term_stops_at_a_name_with_a_role_of_its_own() {
        let text = "This Loan Agreement is entered into as of May 2, 2024 among Birch Capital LLC (\u{201c}Birch\u{201d}), \
            as agent for the Lenders (\u{201c}Agent\u{201d}), Oak Credit Fund, LP (\u{201c}Oak\u{201d}; and together with \
            Birch, collectively, the \u{201c}Lenders\u{201d}), Maple Mills, Inc., an Ohio corporation (\u{201c}Maple\u{201d}), \
            Pine Works, LLC, an Ohio limited liability company (\u{201c}Pine\u{201d}; and together with Maple, \
            collectively, the \u{201c}Borrowers\u{201d}).\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["Maple Mills, Inc.", "Pine Works, LLC"]);
        assert!(with_role(&found, PartyRole::Lender).contains(&"Oak Credit Fund, LP".to_owned()), "{found:?}");
    }

    #[test]
    fn cover_page_names_keep_only_their_title_roles_and_counsel_is_no_party() {
        let text = "TERM LOAN AGREEMENT\n\nTORONTO DOMINION (TEXAS) LLC,\n\nas Administrative Agent,\n\nTD SECURITIES (USA) LLC,\n\nas Sole Lead Arranger\n\nCAHILL GORDON & REINDEL LLP\n\nThis TERM LOAN AGREEMENT dated as of January 3, 2023 is entered into by and among AMAZON.COM, INC., a Delaware corporation (the \u{201c}Borrower\u{201d}), and TORONTO DOMINION (TEXAS) LLC, as Administrative Agent.\n\nSection 4.01. A customary opinion of Gibson, Dunn & Crutcher LLP, as counsel, addressed to the Administrative Agent.\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["TORONTO DOMINION (TEXAS) LLC"]);
        assert_eq!(with_role(&found, PartyRole::Arranger), ["TD SECURITIES (USA) LLC"]);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["AMAZON.COM, INC."]);
        assert_eq!(found.len(), 3, "{found:?}");
    }

    #[test]
    fn a_definition_names_the_borrower_the_preamble_only_refers_to() {
        let text = "AGREEMENT dated as of June 30, 1995 among ACME CAPITAL CORPORATION, the BANKS party hereto and FIRST BANK, N.A., as Agent.\n\n\"Borrower\" means Acme Capital Corporation, a Delaware corporation, and its successors.\n\n\"Issuing Bank\" means the Bank.\n";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["Acme Capital Corporation"]);
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["FIRST BANK, N.A."]);
    }

    #[test]
    fn capitalised_role_words_are_never_names() {
        for name in ["Issuing Bank", "Agent Bank", "Each Bank", "Capital Corporation", "HOLDINGS, INC."] {
            assert!(is_role_word_name(name), "{name}");
        }
        for name in ["JPMORGAN CHASE BANK, N.A.", "Bank of America, N.A.", "AT&T Capital Corporation"] {
            assert!(!is_role_word_name(name), "{name}");
        }
    }

    #[test]
    fn a_debtor_term_names_the_borrower_only_beside_a_lending_side_and_only_when_no_one_else_is() {
        let agreement = "AMENDED AND RESTATED CREDIT AGREEMENT dated as of May 2, 1997 among WIDGET WORKS, INC., a Delaware\ncorporation (the \"COMPANY\"), the banks which are parties hereto (the \"BANKS\") and GREAT LAKES BANK, N.A., as Agent.";
        assert_eq!(with_role(&parties(agreement), PartyRole::Borrower), ["WIDGET WORKS, INC."]);
        let note = "FOR VALUE RECEIVED, Harbor Foods Co., a Maine corporation (the \"Maker\"), hereby promises to pay to the order of Quay Capital LLC (\"Payee\") the principal sum of $400,000.";
        assert_eq!(with_role(&parties(note), PartyRole::Borrower), ["Harbor Foods Co."]);
        let merger = "AGREEMENT AND PLAN OF MERGER dated as of May 2, 2020 among Alpha Holdings, Inc., a Delaware corporation (\"Parent\"), and Beta Software, Inc., a Delaware corporation (the \"Company\").";
        assert!(with_role(&parties(merger), PartyRole::Borrower).is_empty());
        let both = "CREDIT AGREEMENT dated as of May 2, 2020 among Gamma Corp., a Delaware corporation (the \"Borrower\"), Delta Inc., a Delaware corporation (the \"Company\"), and the Lenders party hereto (the \"Lenders\").";
        assert_eq!(with_role(&parties(both), PartyRole::Borrower), ["Gamma Corp."]);
    }

    #[test]
    fn several_debtors_sharing_one_term_and_qualified_borrowers_are_all_borrowers() {
        let joint = "This AMENDMENT NO. 2 TO PROMISSORY NOTE (this \"Amendment\") is dated as of March 1, 2021, by and among NORTH FARMS, L.P., a Texas limited partnership and SOUTH FARMS, INC., a Texas corporation, EAST FARMS, LLC., an Ohio limited liability company, and WEST FARMS, INC., a Utah corporation (together, jointly and severally, the \"Company\") and Orchard Lending LLC (\"Noteholder\").";
        assert_eq!(
            with_role(&parties(joint), PartyRole::Borrower),
            ["NORTH FARMS, L.P.", "SOUTH FARMS, INC.", "EAST FARMS, LLC", "WEST FARMS, INC."]
        );
        let qualified = "CREDIT AGREEMENT, dated as of June 1, 2006, among TOOLS GROUP CORPORATION, a Delaware corporation (the \"Company\" or the \"U.S.\nBorrower\"), TOOLS HOLDING B.V., a Dutch company (the \"Dutch Borrower\"), TOOLS WERK GMBH, a German company (the \"German\nBorrower\"), the Lenders and CITYBANK, N.A., as administrative agent.";
        assert_eq!(
            with_role(&parties(qualified), PartyRole::Borrower),
            ["TOOLS GROUP CORPORATION", "TOOLS HOLDING B.V.", "TOOLS WERK GMBH"]
        );
    }

    #[test]
    fn a_second_legal_form_or_a_branch_completes_a_name() {
        let text = "FACILITY AGREEMENT, dated as of May 4, 2012 among RIVER POWER COMPANY, LLC, a Pennsylvania limited liability company (the \"Borrower\"), and ZURICH BANK AG, New York Branch, as lender and as administrative agent (the \"Administrative Agent\").";
        let found = parties(text);
        assert_eq!(with_role(&found, PartyRole::Borrower), ["RIVER POWER COMPANY, LLC"]);
        assert_eq!(with_role(&found, PartyRole::AdministrativeAgent), ["ZURICH BANK AG, New York Branch"]);
    }

    #[test]
    fn an_agent_acting_not_individually_but_solely_as_agent_takes_its_defined_role() {
        let text = "This Consent (this \u{201c}Consent\u{201d}) dated as of May 3, 2023, is among Birch Labs Inc., a Delaware corporation (\u{201c}Borrower\u{201d}), Oak Lending, LLC, not individually, but solely in its capacity as administrative and collateral agent for the Lenders (the \u{201c}Agent\u{201d}) and the Lenders party hereto.\n";
        assert_eq!(with_role(&parties(text), PartyRole::AdministrativeAgent), ["Oak Lending, LLC"]);
    }

    #[test]
    fn a_division_is_named_with_the_company_it_belongs_to() {
        let text = "CREDIT AGREEMENT dated as of May 5, 2003 among PINE FUNDING CORPORATION, a Delaware corporation, as Borrower, the financial institutions parties hereto, and SUMMIT CAPITAL, A\nDIVISION OF SUMMIT COMMERCIAL FINANCE INC., individually as a Lender and as Agent.\n";
        assert_eq!(
            with_role(&parties(text), PartyRole::AdministrativeAgent),
            ["SUMMIT CAPITAL, A DIVISION OF SUMMIT COMMERCIAL FINANCE INC."]
        );
        let text = "This LOAN AGREEMENT dated as of May 5, 2003 is among Pine Funding Corporation (the \"Borrower\") and Summit Capital, a division of Summit Commercial Finance Inc., as Agent.\n";
        assert_eq!(
            with_role(&parties(text), PartyRole::AdministrativeAgent),
            ["Summit Capital, a division of Summit Commercial Finance Inc."]
        );
    }

    #[test]
    fn an_unlimited_liability_company_is_a_legal_form() {
        let text = "This SECOND AMENDMENT (this \u{201c}Agreement\u{201d}) is entered into as of May 2, 2023, by and among MAPLE INC., a Delaware corporation (the \u{201c}US Borrower\u{201d}), MAPLE CANADA ULC, a British Columbia unlimited liability company (the \u{201c}Canadian Borrower\u{201d}), and FIRST BANK, N.A., as administrative agent.\n";
        assert_eq!(with_role(&parties(text), PartyRole::Borrower), ["MAPLE INC.", "MAPLE CANADA ULC"]);
    }
}
