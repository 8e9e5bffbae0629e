//! Parties read from the signature pages: each block names the party that signs and, most often,
//! the capacity it signs in ("BANK OF AMERICA, N.A., as a Lender / By: …"), or a heading above the
//! blocks gives it ("GUARANTORS:", "LENDERS:"). The lenders of a syndicated agreement and the
//! guarantors of a group are named here and nowhere else.
//!
//! Precision first: a block is read only when the lines above its signature line are, whole, one
//! legal entity's name, optionally its description ("a Delaware corporation") and its roles; a
//! block whose caption holds anything else (an officer's title, a general partner signing for a
//! partnership, an unknown capacity) gives nothing. A block without its own role takes the role of
//! the single-role heading above it, or — in a run of lenders' pages — the lender role of the
//! blocks before it.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::drafts::Drafts;
use super::names::{LEGAL_FORM_FIRST, NAME, is_role_word_name, reads_as_lending_institution};
use super::roles::{CAPACITY_ROLE, ONE_ROLE, OTHER_LOAN_PARTY_CAPACITY, ROLE_LIST, is_plural, is_role_term, roles_of};
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::PartyRole;
use crate::domain::extraction::text::{contains_ci, lines_in, pattern};

/// A signature line: "By:", "By: /s/ …", "By ____", "By: | /s/ …", "By: X, its general partner".
static SIGNATURE_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^[ \t|]*(?:By|BY)\b[ \t]*(?::|_|/s/|\||$|[\p{Lu}])"));

/// A row whose first cell is not a signature and whose next cell is: "ACME LLC | By: /s/ …".
/// Between them a cell may hold the party's jurisdiction, as a guarantors' table lists it:
/// "ACME LLC | Delaware | By: …".
static SIGNED_IN_NEXT_CELL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?P<caption>[^|\s][^|]*?)[ \t]*\|(?:[ \t]*(?P<place>[\p{Lu}][\p{L}.]*(?:[ \t]+[\p{Lu}][\p{L}.]*){0,2})[ \t]*\|)?[ \t]*(?P<signature>(?:By|BY)\b[ \t]*(?::|_|/s/|$).*)$",
    )
});

/// Lines that belong to a signature, not to a caption: the signatory's name, title and details.
static OFFICER_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t|]*(?:name|title|its|print(?:ed)?[ \t]+name|date|attest|address|attention|attn|tel|telephone|fax|facsimile|e-?mail|witness)\b[ \t]*[:|_]|^[ \t|]*(?:its|title)[ \t]|^[ \t|]*/s/|^[ \t|_.\-]+$",
    )
});

/// Lines repeated on every signature page: "[Signature Page to Credit Agreement]", page numbers,
/// rules, the document's title.
static FOOTER_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t]*\[.*\][ \t]*$|signature[ \t]+page|^[ \t]*(?:<page>.*|-?[ \t]*[0-9ivx]+[ \t]*-?|page[ \t]+[0-9]+.*|ex-[0-9]+-|s-[0-9]+|[-=_*]{3,})[ \t]*$|\bagreement\b|\bamendment\b",
    )
});

/// A heading over signature blocks: "BORROWERS:", "AGENT AND LENDERS:", "“GUARANTOR”", "LENDERS",
/// possibly followed on its line by the first name ("BORROWER: ACME INC.").
static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r#"^[ \t|]*["“]?(?P<words>[A-Za-z][A-Za-z.,&/ \t\-]{1,80})["”]?[ \t]*(?P<colon>:)?[ \t|]*(?P<rest>.*)$"#)
});

/// Words a heading may be made of.
const HEADING_WORDS: &[&str] = &[
    "&",
    "additional",
    "administrative",
    "agent",
    "agents",
    "and",
    "arranger",
    "arrangers",
    "bank",
    "banks",
    "borrower",
    "borrowers",
    "bookrunner",
    "bookrunners",
    "co-borrower",
    "co-borrowers",
    "collateral",
    "company",
    "documentation",
    "existing",
    "guarantor",
    "guarantors",
    "holder",
    "holders",
    "initial",
    "issuer",
    "issuing",
    "l/c",
    "lead",
    "lender",
    "lenders",
    "line",
    "loan",
    "new",
    "parent",
    "parties",
    "party",
    "sole",
    "subsidiary",
    "swing",
    "swingline",
    "syndication",
    "the",
];

/// "Name of Lender: CITIBANK, N.A." ("[Name of Lender]:") on a lender's own signature page.
static NAME_OF_LENDER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i:name[ \t]+of[ \t]+(?:lender|institution|bank))\]?[ \t]*:[ \t|]*(?P<name>[^\n]*)"));

/// An entity's description after its name: ", a Delaware corporation", ", a national banking
/// association", ", an Alberta unlimited liability corporation", or in the next cell of its row
/// ("ACME LLC | a Delaware limited liability company").
static DESCRIPTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?:,|[ \t]*\|)?[ \t\r\n]+an?[ \t\r\n]+(?:[\p{L}.\-]+[ \t\r\n]+){0,8}?(?:corporation|company|partnership|association|bank|trust|organization|institution|society)[ \t\r\n]*$",
    )
});

/// What may join two role phrases of one block, or open its capacity.
static ROLE_JOIN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*,?[ \t\r\n]*(?:and[ \t\r\n]+)?(?:individually[ \t\r\n]+and[ \t\r\n]+)?(?:in[ \t\r\n]+its[ \t\r\n]+capacit(?:y|ies)[ \t\r\n]+)?",
    )
});

/// A capacity stated in a caption line: "…, as Funding Agent", "as Account Bank".
static AS_CAPACITY: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)(?:^|[ \t,|])as[ \t]+\S"));

/// A consent or reaffirmation on the signature pages naming its signers as guarantors: "Each of
/// the undersigned Guarantors hereby consents …", "the undersigned, each as a Subsidiary
/// Guarantor, …". The blocks after it sign as guarantors, as under a "GUARANTORS:" heading.
/// Also the other ways a consent names its signers' capacity: "each of the undersigned, in its
/// capacity as a Guarantor, hereby …" (a capacity that goes on, "as a Guarantor or as the
/// Borrower", is not read), "the undersigned (each, a “Guarantor”) …", "the undersigned, being
/// all of the Guarantors, …", and "Each Guarantor hereby consents / acknowledges / reaffirms …".
static UNDERSIGNED_GUARANTORS: LazyLock<Regex> = LazyLock::new(|| {
    let qualified = r"(?:(?:subsidiary|parent)[ \t\r\n]+)?";
    let guarantor = format!("{qualified}guarantors?");
    pattern(&format!(
        r#"(?i)\bundersigned[ \t\r\n]*,?[ \t\r\n]*(?:each[ \t\r\n]+)?(?:as[ \t\r\n]+)?(?:an?[ \t\r\n]+)?{guarantor}\b|\bundersigned[ \t\r\n]*,?[ \t\r\n]*(?:each[ \t\r\n]+)?in[ \t\r\n]+(?:its|their)[ \t\r\n]+(?:respective[ \t\r\n]+)?capacit(?:y|ies)[ \t\r\n]+as[ \t\r\n]+(?:an?[ \t\r\n]+|the[ \t\r\n]+)?{guarantor}[ \t\r\n]*(?:,|hereby\b)|\bundersigned[ \t\r\n]*\((?:each|collectively)[ \t\r\n]*,?[ \t\r\n]*(?:an?|the)[ \t\r\n]+["“]?{guarantor}["”]?\)|\bundersigned[ \t\r\n]*,?[ \t\r\n]*being[ \t\r\n]+(?:all[ \t\r\n]+(?:of[ \t\r\n]+)?)?the[ \t\r\n]+{qualified}guarantors\b|\beach[ \t\r\n]+(?:of[ \t\r\n]+the[ \t\r\n]+)?{guarantor}[ \t\r\n]+(?:party[ \t\r\n]+hereto[ \t\r\n]+)?hereby[ \t\r\n]+(?:consents|acknowledges|reaffirms|ratifies|confirms|agrees)\b"#
    ))
});

/// "each as a Guarantor", "as Guarantors": the capacity that closes a caption listing several
/// names, at a line's start or after a comma.
static SHARED_CAPACITY: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)(?:^|\n|,)[ \t|]*(?:each[ \t]+|all[ \t]+)?as[ \t]"));

/// Roles one party holds, which the signature pages do not give a second party.
const SINGLE_HOLDER: &[PartyRole] = &[PartyRole::AdministrativeAgent, PartyRole::FacilityAgent];

/// The most caption lines a block's name, description and roles may take.
const MAX_CAPTION_LINES: usize = 4;

/// A signature block's party: its name and the roles its caption states, each where it is stated.
type SignedBlock = (Range<usize>, Vec<(PartyRole, Range<usize>)>);

/// The roles a heading gives the blocks under it.
struct Heading {
    roles: Vec<PartyRole>,
    /// "LENDERS:" covers every block up to the next heading; "LENDER:" only the next one.
    plural: bool,
    /// Stated in prose ("Each of the undersigned Guarantors …") rather than as a heading, or read
    /// from a heading naming the loan parties: a party the document has already named as its
    /// borrower is not also given the role.
    spares_the_borrower: bool,
}

/// Reads the signature pages of `doc` into `drafts`.
pub(super) fn signature_parties(doc: &Document<'_>, lma_style: bool, drafts: &mut Drafts) {
    let Some(pages) = doc.parts.signature_pages(doc.text) else { return };
    let mut caption: Vec<Range<usize>> = Vec::new();
    let mut heading: Option<Heading> = None;
    let mut lender_run = false;
    let mut signing_for_above = false;
    // The testimonium is prose up to its first full stop; captions start after it.
    let mut in_testimonium = true;
    let lines: Vec<Range<usize>> = lines_in(doc.text, pages.clone()).collect();
    let mut skip_to = 0;
    for (index, line) in lines.iter().cloned().enumerate() {
        if index < skip_to {
            continue;
        }
        let content = doc.slice(line.clone());
        if in_testimonium {
            if content.trim_end().ends_with('.') {
                in_testimonium = false;
            }
            continue;
        }
        if content.trim().is_empty() {
            continue;
        }
        // Read before the footer test: the consent's prose names the agreement it consents to.
        let joined_with_previous = caption.last().map_or(line.clone(), |previous| previous.start..line.end);
        if UNDERSIGNED_GUARANTORS.is_match(doc.slice(joined_with_previous)) {
            heading = Some(Heading { roles: vec![PartyRole::Guarantor], plural: true, spares_the_borrower: true });
            lender_run = false;
            caption.clear();
            continue;
        }
        if FOOTER_LINE.is_match(content) {
            // "[Lender Signature Page to Credit Agreement]": the blocks of the lenders' pages are
            // lenders when their names are lending institutions', as after a block signed as one.
            lender_run |= heads_the_lenders_pages(content);
            continue;
        }
        if let Some(name_of) = NAME_OF_LENDER.captures(content).and_then(|c| c.name("name")) {
            let name = line.start + name_of.start()..line.start + name_of.end();
            if let Some(name) = labelled_name(doc, name) {
                drafts.add(doc, name.clone(), &[(PartyRole::Lender, line.start..line.start + name_of.start())]);
            }
            caption.clear();
            continue;
        }
        // "NAME | By: …": a table row with the name in one cell and its signature in the next.
        let mut content = content;
        let mut capacity_below: Option<CapacityBelow> = None;
        let mut co_signers: Vec<Range<usize>> = Vec::new();
        let signed_here = signed_on_the_caption_line(doc, line.clone(), lma_style)
            .or_else(|| (!caption.is_empty()).then(|| capacity_signed_on_its_line(doc, line.clone())).flatten());
        if let Some(signature) = signed_here {
            caption.push(line.start..signature);
            content = &doc.text[signature..line.end];
        } else if let Some((name_cell, cell)) = signed_in_next_cell(content) {
            caption.push(line.start + name_cell.start..line.start + name_cell.end);
            content = &content[cell..];
            if let Some((below, next)) = capacity_in_next_row(doc, &lines[index + 1..], lma_style) {
                capacity_below = Some(below);
                skip_to = index + 1 + next;
            } else if heading.as_ref().is_some_and(|h| h.plural && h.roles.len() == 1) {
                let (names, rows) = names_beside_the_signatory(doc, &lines[index + 1..]);
                co_signers = names;
                skip_to = skip_to.max(index + 1 + rows);
            }
        }
        if signed_here.is_some() || SIGNATURE_LINE.is_match(content) {
            // The entity named between a party's "By: its Administrator" and the next signature
            // signs for that party (its administrator, attorney-in-fact, manager): it holds none
            // of the party's roles.
            if signing_for_above {
                signing_for_above = false;
                caption.clear();
                continue;
            }
            signing_for_above = signs_through_another(content);
            let block = read_block(doc, &caption, lma_style);
            let states_a_capacity = caption.iter().any(|line| AS_CAPACITY.is_match(doc.slice(line.clone())));
            let listed = heading.as_ref().filter(|h| h.plural && h.roles.len() == 1).and_then(|h| {
                names_listed(doc, &caption, lma_style)
                    .filter(|names| names.len() > 1)
                    .map(|names| names.into_iter().map(|name| (name.clone(), vec![(h.roles[0], name)])).collect())
            });
            let listed = listed
                .or_else(|| names_sharing_a_capacity(doc, &caption, lma_style))
                .or_else(|| names_each_with_a_capacity(doc, &caption, lma_style));
            caption.clear();
            // A singular heading ("BORROWER:") is spent by the first signature under it, read or
            // not: the block after an unreadable one is another party's.
            let heading_here = if heading.as_ref().is_some_and(|h| !h.plural) { heading.take() } else { None };
            let heading_here = heading_here.as_ref().or(heading.as_ref());
            // Entities listed in the rows under a block signed in its next cell, beside its
            // signatory's name and title: they sign through the same officer under the heading.
            if let Some(given) = heading_here.filter(|h| h.plural && h.roles.len() == 1) {
                for name in co_signers {
                    let borrower =
                        given.spares_the_borrower && drafts.has_role(doc.slice(name.clone()), PartyRole::Borrower);
                    if !borrower {
                        drafts.add(doc, name.clone(), &[(given.roles[0], name)]);
                    }
                }
            }
            // The capacity printed under the name in the next row ("as Administrative Agent |
            // Name: …"): the block's own roles, or — a capacity the reader does not know, or one
            // that runs on into further rows — nothing for the block.
            let (block, states_a_capacity) = match capacity_below {
                Some(CapacityBelow::Roles(roles)) => (block.map(|(name, _)| (name, roles)), true),
                Some(CapacityBelow::Unread) => (None, true),
                None => (block, states_a_capacity),
            };
            // Entities signing through one officer under a plural heading ("GUARANTORS:" / each
            // name on its line / one "By:"), or listed above the capacity they share ("A LLC, /
            // B INC. and / C CORP., / each as a Guarantor").
            if let Some(listed) = listed {
                for (name, roles) in listed {
                    drafts.add(doc, name, &roles);
                }
                continue;
            }
            let Some((name, own_roles)) = block else {
                // A party signing in a capacity the reader does not know (a funding agent, an
                // account bank) interrupts the run of lenders' pages.
                lender_run &= !states_a_capacity;
                continue;
            };
            let roles = if !own_roles.is_empty() {
                lender_run = heading.is_none() && own_roles.iter().any(|(r, _)| *r == PartyRole::Lender);
                own_roles
            } else if let Some(given) = heading_here.filter(|h| h.roles.len() == 1 || !h.plural) {
                // A singular heading joining roles ("Administrative Agent & Lender:") gives the one
                // block under it each of them.
                let borrower =
                    given.spares_the_borrower && drafts.has_role(doc.slice(name.clone()), PartyRole::Borrower);
                if borrower { Vec::new() } else { given.roles.iter().map(|r| (*r, name.clone())).collect() }
            } else if lender_run && reads_as_lending_institution(doc.slice(name.clone())) {
                // A block among the lenders' pages is a lender only if its name is a lending
                // institution's: the borrower's affiliates sign acknowledgments there too.
                vec![(PartyRole::Lender, name.clone())]
            } else {
                Vec::new()
            };
            // The agent is named by the preamble; a second one read here would contradict it.
            let roles: Vec<(PartyRole, Range<usize>)> = roles
                .into_iter()
                .filter(|(role, _)| !(SINGLE_HOLDER.contains(role) && drafts.any_has_role(*role)))
                .collect();
            if !roles.is_empty() {
                drafts.add(doc, name, &roles);
            }
            continue;
        }
        if OFFICER_LINE.is_match(content) {
            signing_for_above = false;
            caption.clear();
            continue;
        }
        if let Some((found, rest)) = heading_of(doc, line.clone()) {
            heading = Some(found);
            lender_run = false;
            caption.clear();
            if !rest.is_empty() {
                caption.push(rest);
            }
            continue;
        }
        // A sentence between blocks (a reaffirmation's or consent's prose) is no caption: the
        // block under it starts after it.
        if is_prose(content) {
            caption.clear();
            continue;
        }
        caption.push(line);
    }
}

/// Whether a line is a sentence: it ends in a full stop after at least six words that open in
/// lower case ("Each of the undersigned hereby reaffirms its obligations under the Guaranty."),
/// which no name, description or capacity of a caption has.
fn is_prose(line: &str) -> bool {
    let trimmed = line.trim_end();
    trimmed.ends_with('.')
        && trimmed.split_whitespace().filter(|w| w.chars().next().is_some_and(char::is_lowercase)).count() >= 6
}

/// The caption cell and where the signature starts on a row signed in its next cell; a middle
/// cell must be a place ("Delaware"), never a role ("Guarantor"), which the caption would lose.
fn signed_in_next_cell(content: &str) -> Option<(Range<usize>, usize)> {
    let captures = SIGNED_IN_NEXT_CELL.captures(content)?;
    if captures
        .name("place")
        .is_some_and(|place| ONE_ROLE.is_match(place.as_str()) || is_role_word_name(place.as_str()))
    {
        return None;
    }
    Some((captures.name("caption")?.range(), captures.name("signature")?.start()))
}

/// Where the signature starts on a line that holds the whole caption before it: "ACME LLC, as a
/// Lender By: /s/ …" — an HTML or Word cell holding name and signature, its line breaks read as
/// spaces. Only a "By:" with its colon, after a caption that reads whole as a block.
fn signed_on_the_caption_line(doc: &Document<'_>, line: Range<usize>, lma_style: bool) -> Option<usize> {
    let content = doc.slice(line.clone());
    let signature = SIGNED_IN_LINE.captures(content)?.name("signature")?;
    let caption = line.start..line.start + signature.start();
    if name_starts_on_the_line_above(doc, line.start) {
        return None;
    }
    read_caption(doc, caption, lma_style).map(|_| line.start + signature.start())
}

/// Where the signature starts on a line that holds only the capacity of the name above it and the
/// signature: "JPMORGAN CHASE BANK, N.A., / as Administrative Agent and a Lender   By: /s/ …".
fn capacity_signed_on_its_line(doc: &Document<'_>, line: Range<usize>) -> Option<usize> {
    let captures = CAPACITY_SIGNED_IN_LINE.captures(doc.slice(line.clone()))?;
    let (capacity, signature) = (captures.name("capacity")?, captures.name("signature")?);
    ONE_ROLE.is_match(capacity.as_str()).then(|| line.start + signature.start())
}

/// A capacity and its signature on one line: "as a Lender   By: /s/ Ann Lee", or a conformed
/// signature set beside it without its "By" ("as a Lender      /s/ Ann Lee").
static CAPACITY_SIGNED_IN_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"^[ \t]*(?P<capacity>(?i:as)[ \t].*?)[ \t]+(?P<signature>(?:By|BY)(?:[ \t]*:|[ \t]+/s/).*|/s/.*)$")
});

/// Whether a page heading or footer says the page is a lender's signature page ("LENDER
/// SIGNATURE PAGE TO …", "[Signature Page of Lenders to …]") and names no other party's.
fn heads_the_lenders_pages(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| !w.is_empty()).collect();
    let others =
        ["borrower", "borrowers", "agent", "agents", "guarantor", "guarantors", "parent", "holdings", "company"];
    lower.contains("signature page")
        && words.iter().any(|w| matches!(*w, "lender" | "lenders"))
        && !words.iter().any(|w| others.contains(w))
}

/// Whether the line right above `start` ends in two words in capitals with nothing after them
/// ("… Title: Director WILLOW FINANCIAL" above "SERVICES LIMITED, as a Lender By /s/ …"): a
/// name's first words, run on from the block above; the caption below holds only its end. A
/// heading ("THE LENDERS") is no name.
fn name_starts_on_the_line_above(doc: &Document<'_>, start: usize) -> bool {
    let Some(above) = doc.text[..start].strip_suffix('\n') else { return false };
    let above = above.strip_suffix('\r').unwrap_or(above);
    let last_line = above.rsplit('\n').next().unwrap_or_default();
    let words: Vec<&str> = last_line.split_whitespace().collect();
    let capitals = |w: &str| w.len() > 1 && w.chars().all(|c| c.is_alphabetic() && c.is_uppercase());
    let heading = words.iter().all(|w| HEADING_WORDS.contains(&w.to_ascii_lowercase().as_str()));
    words.len() >= 2 && words[words.len() - 2..].iter().all(|w| capitals(w)) && !heading
}

/// A caption and its signature on one line, no cell between them: "ACME LLC By: /s/ Ann Lee", or
/// "ACME LLC By /s/ Ann Lee" (an electronic signature after a "By" without its colon).
static SIGNED_IN_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^[ \t]*[^|\s][^|]*?[ \t](?P<signature>(?:By|BY)(?:[ \t]*:|[ \t]+/s/).*)$"));

/// The names in the first cells of the rows under a block signed in its next cell, each beside
/// the signatory's details ("PEBBLE LLC | Name: Ann Lee" / "RIVER INC. OAK CORP. | Title: CFO"), a
/// PDF's rendering of one signature for several entities; with the number of rows read. Nothing
/// when a row's first cell is anything but names.
fn names_beside_the_signatory(doc: &Document<'_>, below: &[Range<usize>]) -> (Vec<Range<usize>>, usize) {
    let mut names = Vec::new();
    let mut rows = 0;
    for row in below.iter().take(MAX_CO_SIGNER_ROWS) {
        let Some(cell) = CELL_BESIDE_OFFICER.captures(doc.slice(row.clone())).and_then(|c| c.name("cell")) else {
            break;
        };
        // A name closed by a comma goes on below ("CEDAR BANK, | Name: …" / "as Agent | Title: …").
        if cell.as_str().ends_with(',') {
            return (Vec::new(), 0);
        }
        let cell = row.start + cell.start()..row.start + cell.end();
        let in_cell = match NAME.find(doc.slice(cell.clone())) {
            Some(whole) if whole.start() == 0 && whole.end() == cell.len() && !is_role_word_name(whole.as_str()) => {
                vec![cell.clone()]
            }
            _ => match names_run_together(doc, cell) {
                Some(found) => found,
                None => return (Vec::new(), 0),
            },
        };
        names.extend(in_cell);
        rows += 1;
    }
    // A capacity right under the names is some block's own: whose is not known.
    if below.get(rows).is_some_and(|next| CAPACITY_OPENS.is_match(doc.slice(next.clone()))) {
        return (Vec::new(), 0);
    }
    (names, rows)
}

/// How many rows under one signature may list entities signing through it.
const MAX_CO_SIGNER_ROWS: usize = 4;

/// A block's capacity printed in the row under its name, beside the signatory's details: a PDF
/// of a two-column signature table puts "NAME, | By: …" on one row and "as Administrative Agent
/// | Name: …" on the next.
enum CapacityBelow {
    /// The capacity reads whole as the block's roles.
    Roles(Vec<(PartyRole, Range<usize>)>),
    /// A capacity the reader does not read whole: the block is given nothing.
    Unread,
}

/// The capacity cell of the next non-empty row after a block signed in its next cell, when that
/// row opens with "as …" and its next cell holds the signatory's name or title; with the number
/// of rows read (the caller passes over them).
fn capacity_in_next_row(doc: &Document<'_>, below: &[Range<usize>], lma_style: bool) -> Option<(CapacityBelow, usize)> {
    let at = below.iter().position(|l| !doc.slice(l.clone()).trim().is_empty())?;
    let row = below.get(at)?.clone();
    let row_text = doc.slice(row.clone());
    if !CAPACITY_OPENS.is_match(row_text) {
        return None;
    }
    // A capacity whose cell the reader cannot tell from the signatory's details beside it ("as
    // Administrative Agent and L/C Name: Jo Park") is still the block's, unread.
    let Some(cell) = CAPACITY_BESIDE_OFFICER.captures(row_text).and_then(|c| c.name("capacity")) else {
        return Some((CapacityBelow::Unread, at + 1));
    };
    let span = row.start + cell.start()..row.start + cell.end();
    // A capacity running on into the next row beside the signatory's details is not read whole.
    let runs_on = below.get(at + 1).is_some_and(|next| {
        let next = doc.slice(next.clone());
        CELL_BESIDE_OFFICER.is_match(next) && !OFFICER_LINE.is_match(next)
    });
    let roles = if runs_on {
        None
    } else {
        let text = doc.slice(span.clone()).trim_end_matches([',', ';', ' ', '\t']);
        roles_to_end(text, 0, lma_style)
            .map(|roles| roles.into_iter().map(|(role, r)| (role, span.start + r.start..span.start + r.end)).collect())
    };
    Some((roles.map_or(CapacityBelow::Unread, CapacityBelow::Roles), at + 1))
}

/// A row opening with a capacity: "as Administrative Agent …".
static CAPACITY_OPENS: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)^[ \t]*as[ \t]+\S"));

/// A row whose first cell states a capacity and whose next cell holds the signatory's details:
/// "as Administrative Agent | Name: Jo Park".
static CAPACITY_BESIDE_OFFICER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^[ \t]*(?P<capacity>as[ \t][^|]*?)[ \t]*\|[ \t]*(?:name|title|its)\b[ \t]*[:_]"));

/// A row whose first cell is followed by the signatory's details: "Lender and L/C Issuer | Title: …".
static CELL_BESIDE_OFFICER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^[ \t]*(?P<cell>[^|\s][^|]*?)[ \t]*\|[ \t]*(?:name|title|its)\b[ \t]*[:_]"));

/// Whether a signature line names another entity or a capacity through which the party above
/// signs ("By: its Administrator", "By: HARBOR BANK, N.A., as attorney-in-fact"), rather than
/// the signature of an officer.
fn signs_through_another(line: &str) -> bool {
    let after_by = line.trim_start_matches([' ', '\t', '|']);
    let Some(rest) = after_by.get(2..) else { return false };
    let rest = rest.trim_start_matches([' ', '\t', '|', ':', '_']).trim_start();
    let lower = rest.to_ascii_lowercase();
    lower.starts_with("its ") || lower.starts_with("as ") || NAME.find(rest).is_some_and(|m| m.start() == 0)
}

/// A heading line's roles and the rest of its line (a name written beside the heading).
fn heading_of(doc: &Document<'_>, line: Range<usize>) -> Option<(Heading, Range<usize>)> {
    let content = doc.slice(line.clone());
    let captures = HEADING.captures(content)?;
    let words = captures.name("words")?;
    let rest = captures.name("rest").map_or(line.end..line.end, |r| line.start + r.start()..line.start + r.end());
    let upper_case = words.as_str().chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase);
    // A heading ends in a colon or stands alone in capitals ("LENDERS").
    if captures.name("colon").is_none() && !(upper_case && rest.is_empty()) {
        return None;
    }
    let lower = words.as_str().to_ascii_lowercase();
    let tokens: Vec<&str> = lower.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
    if tokens.is_empty() {
        return None;
    }
    // "OTHER LOAN PARTIES:", "SUBSIDIARY LOAN PARTIES:", "LOAN PARTIES:": the obligors besides the
    // borrower, who sign an amendment as its guarantors.
    if matches!(
        tokens.as_slice(),
        ["loan" | "credit", "parties" | "party"] | ["other" | "subsidiary", "loan" | "credit", "parties" | "party"]
    ) {
        let heading = Heading { roles: vec![PartyRole::Guarantor], plural: true, spares_the_borrower: true };
        return Some((heading, rest));
    }
    if !tokens.iter().all(|t| HEADING_WORDS.contains(t)) {
        // A heading of another kind ("HOLDINGS", "PLEDGORS:") ends the one above it; a line of
        // capitals that is a name ("TRUIST BANK") is no heading.
        // Words closed by a colon with nothing after them head blocks even when they read as a
        // name ("ACCOUNT BANK:").
        let colon = captures.name("colon").is_some();
        // "BRANCH" or "LLC" alone on a line ends the name on the line above: no heading.
        let ends_a_name = !colon && (tokens == ["branch"] || LEGAL_FORM_FIRST.is_match(content.trim_start()));
        let other_heading = colon && rest.is_empty() && tokens.len() <= 4
            || !ends_a_name
                && NAME.find(content).is_none()
                && (colon && tokens.len() <= 4 || upper_case && tokens.len() == 1);
        return other_heading.then(|| (Heading { roles: Vec::new(), plural: true, spares_the_borrower: false }, rest));
    }
    let mut roles: Vec<PartyRole> = Vec::new();
    for piece in lower.split([',', '&']).flat_map(|p| p.split(" and ")) {
        let piece = piece.trim();
        // Only a piece that is a role whole: "LENDER AGENT:" heads no lender.
        let role_term = piece.strip_prefix("the ").unwrap_or(piece);
        // "INITIAL GUARANTOR:", "EXISTING GUARANTORS:", "ADDITIONAL BORROWER:": a role qualified
        // by when its holder joined is that role.
        let role_term = ["initial ", "existing ", "additional ", "new "]
            .iter()
            .find_map(|q| role_term.strip_prefix(q))
            .filter(|rest| is_role_term(rest))
            .unwrap_or(role_term);
        let found = if matches!(piece, "bank" | "banks") {
            vec![PartyRole::Lender]
        } else if is_role_term(role_term) {
            roles_of(role_term, false)
        } else {
            Vec::new()
        };
        for role in found {
            if !roles.contains(&role) {
                roles.push(role);
            }
        }
    }
    Some((Heading { roles, plural: is_plural(&lower) || lower.ends_with("banks"), spares_the_borrower: false }, rest))
}

/// The party a block's caption names, with the roles it states. `None` when the caption is not,
/// whole, a name with its description and roles.
fn read_block(doc: &Document<'_>, caption: &[Range<usize>], lma_style: bool) -> Option<SignedBlock> {
    let last = caption.last()?;
    // The fewest lines that read as one block: the name's first line is the latest that parses.
    for lines in 1..=caption.len().min(MAX_CAPTION_LINES) {
        let first = caption.get(caption.len() - lines)?;
        // A line above ending in a connector ("MERRILL CAPITAL, a division of") runs on into this
        // one: the name starts above, and a read from here would take part of it.
        let above = (caption.len() > lines).then(|| caption.get(caption.len() - lines - 1)).flatten();
        if above.is_some_and(|line| ends_in_a_connector(doc.slice(line.clone()))) {
            continue;
        }
        // A line opening with a connector ("OF CHINA LIMITED, NEW YORK") continues the one above.
        if above.is_some() && opens_with_a_connector(doc.slice(first.clone())) {
            continue;
        }
        let span = first.start..last.end;
        if let Some(read) = read_caption(doc, span, lma_style) {
            return Some(read);
        }
    }
    None
}

/// Whether a caption line opens with a word that joins it to the line above: "of", "and", "&".
fn opens_with_a_connector(line: &str) -> bool {
    is_connector(line.trim_start().split([' ', '\t']).next().unwrap_or_default())
}

/// Whether a caption line ends in a word that joins it to the next: "of", "and", "&".
fn ends_in_a_connector(line: &str) -> bool {
    is_connector(line.trim_end().rsplit([' ', '\t', '|']).next().unwrap_or_default())
}

/// A word that joins the two parts of a name written over two lines.
fn is_connector(word: &str) -> bool {
    matches!(word.to_ascii_lowercase().as_str(), "of" | "and" | "&")
}

/// The names of a caption that lists several entities, a line each (with their descriptions),
/// and nothing else; `None` when any line is something else.
/// A line may also hold several names run together, as an HTML or Word cell's line breaks are
/// read ("A LLC B INC. C CORP.").
fn names_listed(doc: &Document<'_>, caption: &[Range<usize>], lma_style: bool) -> Option<Vec<Range<usize>>> {
    let mut names = Vec::new();
    for line in caption {
        let padded = format!(" {}", doc.slice(line.clone()).trim());
        if DESCRIPTION.find(&padded).is_some_and(|d| d.start() == 0) {
            continue;
        }
        match read_caption(doc, line.clone(), lma_style) {
            Some((_, roles)) if !roles.is_empty() => return None,
            Some((name, _)) => names.push(name),
            None => names.extend(names_run_together(doc, line.clone())?),
        }
    }
    (names.len() > 1).then_some(names)
}

/// The names of a line made of two or more whole names and nothing else but commas and "and"
/// between them: "A LLC B INC. and C CORP.". `None` when anything else stands on the line.
fn names_run_together(doc: &Document<'_>, line: Range<usize>) -> Option<Vec<Range<usize>>> {
    let text = doc.slice(line.clone());
    let text = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|'));
    let only_joins = |gap: &str| gap.split_whitespace().all(|w| matches!(w.trim_matches(','), "" | "and"));
    let mut names = Vec::new();
    let mut previous_end = 0;
    for found in NAME.find_iter(text) {
        if !only_joins(text.get(previous_end..found.start())?) || is_role_word_name(found.as_str()) {
            return None;
        }
        names.push(line.start + found.start()..line.start + found.end());
        previous_end = found.end();
    }
    (names.len() > 1 && text.get(previous_end..)?.trim().is_empty()).then_some(names)
}

/// The names of a caption listing several entities before the one capacity they share: "A LLC,
/// / B INC. and / C CORP., / each as a Guarantor" (a line each, or run together on one line as an
/// HTML cell's breaks are), or "A LLC and B INC., as Guarantors". `None` unless the text before
/// the capacity is names and the commas and "and"s between them, and the capacity is stated for
/// each ("each as …") or in the plural.
fn names_sharing_a_capacity(doc: &Document<'_>, caption: &[Range<usize>], lma_style: bool) -> Option<Vec<SignedBlock>> {
    let (first, last) = (caption.first()?, caption.last()?);
    let span = first.start..last.end;
    let text = doc.slice(span.clone());
    let text = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|'));
    let opening = SHARED_CAPACITY.find_iter(text).last()?;
    let as_at = opening.end() - 3;
    let roles = roles_to_end(text, as_at, lma_style)?;
    let for_each = opening.as_str().to_ascii_lowercase().contains("each");
    if !(for_each || is_plural(text.get(as_at..).unwrap_or_default())) {
        return None;
    }
    let listed = text.get(..opening.start())?;
    let names: Vec<Range<usize>> = NAME.find_iter(listed).map(|m| m.range()).collect();
    let mut previous_end = 0;
    for name in &names {
        let between = listed.get(previous_end..name.start)?;
        if !between.split_whitespace().all(|w| matches!(w.trim_matches([',', '|']), "" | "and")) {
            return None;
        }
        previous_end = name.end;
    }
    let rest = listed.get(previous_end..)?;
    if names.len() < 2 || !rest.split_whitespace().all(|w| matches!(w.trim_matches([',', '|']), "" | "and")) {
        return None;
    }
    if names.iter().any(|name| is_role_word_name(&listed[name.clone()])) {
        return None;
    }
    let roles: Vec<(PartyRole, Range<usize>)> =
        roles.into_iter().map(|(role, r)| (role, span.start + r.start..span.start + r.end)).collect();
    Some(names.into_iter().map(|name| (span.start + name.start..span.start + name.end, roles.clone())).collect())
}

/// The parties of a caption listing several entities above one signature, a line each, each line
/// whole a name with its own roles ("A LLC, as a Guarantor" / "B INC., as a Guarantor"); `None`
/// unless every line reads so.
fn names_each_with_a_capacity(
    doc: &Document<'_>,
    caption: &[Range<usize>],
    lma_style: bool,
) -> Option<Vec<SignedBlock>> {
    if caption.len() < 2 {
        return None;
    }
    caption
        .iter()
        .map(|line| read_caption(doc, line.clone(), lma_style).filter(|(_, roles)| !roles.is_empty()))
        .collect()
}

/// Reads `NAME[, a … corporation][, as ROLE[ and ROLE…]]` from `span`, all of it.
fn read_caption(doc: &Document<'_>, span: Range<usize>, lma_style: bool) -> Option<SignedBlock> {
    let text = doc.slice(span.clone());
    let trimmed_end = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|')).len();
    let text = &text[..trimmed_end];
    // The roles: role phrases from the first "as …" that the rest of the caption is made of.
    let mut roles = Vec::new();
    let mut name_end = text.len();
    for phrase in ROLE_LIST.find_iter(text) {
        if let Some(read) = roles_to_end(text, phrase.start(), lma_style) {
            let capacity_start = capacity_opening(text, phrase.start());
            name_end = capacity_start;
            roles = read.into_iter().map(|(role, r)| (role, span.start + r.start..span.start + r.end)).collect();
            break;
        }
    }
    if roles.is_empty() {
        // A capacity that holds a loan party's other capacity beside its roles ("as Holdings and
        // a Guarantor", "as a Guarantor and Grantor").
        for opening in CAPACITY_AS.find_iter(text) {
            if let Some(read) = roles_beside_other_capacities(text, opening.start(), lma_style) {
                name_end = capacity_opening(text, opening.start());
                roles = read.into_iter().map(|(role, r)| (role, span.start + r.start..span.start + r.end)).collect();
                break;
            }
        }
    }
    let mut name_text = text[..name_end].trim_end_matches([',', ' ', '\t', '\r', '\n']);
    if let Some(description) = DESCRIPTION.find(name_text) {
        name_text = name_text[..description.start()].trim_end_matches([',', ' ', '\t', '\r', '\n']);
    }
    let leading = name_text.len() - name_text.trim_start_matches([' ', '\t', '|']).len();
    let name_text = &name_text[leading..];
    let whole = NAME.find(name_text).filter(|m| m.start() == 0 && m.end() == name_text.len())?;
    if is_role_word_name(whole.as_str()) || name_text.contains('\n') && !wraps_inside_a_name(name_text) {
        return None;
    }
    let start = span.start + leading;
    Some((start..start + whole.end(), roles))
}

/// Where the capacity before a role phrase opens: ", individually and as", ", individually as a
/// Lender and as …", ", in its capacity as".
fn capacity_opening(text: &str, role_start: usize) -> usize {
    let before = &text[..role_start];
    let lower = before.to_ascii_lowercase();
    let trimmed = lower.trim_end();
    for opener in ["individually and", "individually", "in its capacity", "in its capacities"] {
        if let Some(rest) = trimmed.strip_suffix(opener) {
            return rest.len();
        }
    }
    before.len()
}

/// The roles of the role phrases from `start` to the end of `text`, or `None` when anything else
/// is left ("as general partner of …").
fn roles_to_end(text: &str, start: usize, lma_style: bool) -> Option<Vec<(PartyRole, Range<usize>)>> {
    let mut roles = Vec::new();
    let mut at = start;
    while at < text.len() {
        let phrase = ROLE_LIST.find_at(text, at).filter(|m| m.start() == at)?;
        for one in ONE_ROLE.find_iter(phrase.as_str()) {
            for role in roles_of(one.as_str(), lma_style) {
                roles.push((role, phrase.start() + one.start()..phrase.start() + one.end()));
            }
        }
        if roles.is_empty() {
            return None;
        }
        at = phrase.end();
        if at == text.len() {
            break;
        }
        let join = ROLE_JOIN.find(&text[at..]).map_or(0, |m| m.end());
        if join == 0 {
            return None;
        }
        at += join;
    }
    (!roles.is_empty()).then_some(roles)
}

/// "as " opening a capacity in a caption.
static CAPACITY_AS: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\bas[ \t\r\n]+\S"));

/// Like `roles_to_end`, but a loan party's other capacity ("Grantor", "Holdings") may stand among
/// the roles: the roles from `start` to the end of `text` when every item there is a role or such
/// a capacity, at least one of each.
fn roles_beside_other_capacities(text: &str, start: usize, lma_style: bool) -> Option<Vec<(PartyRole, Range<usize>)>> {
    let mut roles = Vec::new();
    let mut other = false;
    let mut at = start;
    while at < text.len() {
        let rest = &text[at..];
        if let Some(item) = CAPACITY_ROLE.find(rest) {
            let found = item.as_str();
            for one in ONE_ROLE.find_iter(found) {
                for role in roles_of(one.as_str(), lma_style) {
                    roles.push((role, at + one.start()..at + one.end()));
                }
            }
            at += item.end();
        } else if let Some(item) = OTHER_LOAN_PARTY_CAPACITY.find(rest) {
            other = true;
            at += item.end();
        } else {
            return None;
        }
        if at == text.len() {
            break;
        }
        let join = ROLE_JOIN.find(&text[at..]).map_or(0, |m| m.end());
        if join == 0 {
            return None;
        }
        at += join;
    }
    (other && !roles.is_empty()).then_some(roles)
}

/// A name written over two lines is one name only where the break falls inside it: the first line
/// cannot stand alone ("MORGAN GUARANTY TRUST COMPANY OF" / "NEW YORK").
fn wraps_inside_a_name(name: &str) -> bool {
    name.split('\n').rev().skip(1).all(|line| NAME.find(line.trim()).is_none_or(|m| m.end() < line.trim().len()))
}

/// A name written after "Name of Lender:": capitalised words, with the small words names use, up
/// to the signature that follows it — "by" on the same line or at the end of the next (the name
/// wrapped), or a signature line below. A name not followed by its signature within two lines may
/// run on further, so it is not read.
fn labelled_name(doc: &Document<'_>, span: Range<usize>) -> Option<Range<usize>> {
    let mut lines = lines_in(doc.text, span.start..doc.text.len()).take(3);
    let first = lines.next()?;
    let second = lines.next();
    let third = lines.next();
    let in_line = |line: &Range<usize>| SIGNED_HERE.find(doc.slice(line.clone())).map(|m| line.start + m.start());
    let end = in_line(&first)
        .or_else(|| second.as_ref().filter(|l| SIGNATURE_LINE.is_match(doc.slice((*l).clone()))).map(|_| first.end))
        .or_else(|| second.as_ref().and_then(in_line))
        .or_else(|| {
            let signed_below = third.as_ref().is_some_and(|l| SIGNATURE_LINE.is_match(doc.slice(l.clone())));
            second.as_ref().filter(|_| signed_below).map(|l| l.end)
        })?;
    let text = doc.slice(span.start..end);
    let text = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '|' | ','));
    let leading = text.len() - text.trim_start().len();
    let text = text.trim_start();
    let small = ["and", "of", "de", "del", "du", "des", "la", "le", "the", "y", "&"];
    let words_ok = text
        .split_whitespace()
        .all(|w| w.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit()) || small.contains(&w));
    let plain = !text.contains(['[', ']', '_', ':', '/']) && (3..=120).contains(&text.len());
    if !words_ok || !plain || is_role_word_name(text) || contains_ci(text, "lender") {
        return None;
    }
    Some(span.start + leading..span.start + leading + text.len())
}

/// A signature glued to the end of a name's line: "… N.A.by", "… Paribasby/s/ …".
static SIGNED_HERE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?:by|By|BY)[ \t]*(?:/s/.*)?$"));

#[cfg(test)]
mod tests {
    use super::super::extract;
    use crate::domain::extraction::document::{Document, Report};
    use crate::domain::extraction::model::PartyRole;

    const PREAMBLE: &str = "THIS CREDIT AGREEMENT is entered into as of May 1, 2024, among NORTHWIND TOOLS INC., a Delaware corporation (the \"Borrower\"), the Lenders party hereto, and FIRST HARBOR BANK, N.A., as Administrative Agent.\n\nSection 1. Loans. The Lenders shall make loans.\n\n";

    fn roles_signed(pages: &str) -> Vec<(String, Vec<PartyRole>)> {
        let text = format!("{PREAMBLE}{pages}");
        let doc = Document::scan(&text);
        extract(&doc, &mut Report::default())
            .into_iter()
            .map(|p| (p.name.value().clone(), super::super::distinct_roles(&p)))
            .collect()
    }

    const TESTIMONIUM: &str =
        "IN WITNESS WHEREOF, the parties have signed this Agreement as of the date first written above.\n\n";

    fn signed(blocks: &str) -> Vec<(String, Vec<PartyRole>)> {
        roles_signed(&format!("{TESTIMONIUM}{blocks}"))
    }

    fn roles_of_party(found: &[(String, Vec<PartyRole>)], name: &str) -> Option<Vec<PartyRole>> {
        found.iter().find(|(n, _)| n == name).map(|(_, roles)| roles.clone())
    }

    #[test]
    fn a_bank_signing_as_a_lender_is_a_lender_and_its_wrapped_roles_are_read_whole() {
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\nName: Ann Lee\nTitle: Treasurer\n\n[Signature Page to Credit Agreement]\n\nFIRST HARBOR BANK, N.A.,\nas Administrative Agent, Issuing Bank and a Lender\n\nBy: /s/ Tom Ray\nName: Tom Ray\nTitle: Director\n\nLAKESHORE SAVINGS BANK, as a\nLender\nBy: | /s/ Jo Park\nName: | Jo Park\n",
        );
        assert_eq!(
            roles_of_party(&found, "FIRST HARBOR BANK, N.A."),
            Some(vec![PartyRole::AdministrativeAgent, PartyRole::IssuingBank, PartyRole::Lender])
        );
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]));
        assert_eq!(roles_of_party(&found, "NORTHWIND TOOLS INC."), Some(vec![PartyRole::Borrower]));
    }

    #[test]
    fn a_second_administrative_agent_is_never_taken_from_a_signature_block() {
        let found = signed("GRANITE TRUST COMPANY, as Administrative Agent\nBy: /s/ Tom Ray\n");
        assert_eq!(roles_of_party(&found, "GRANITE TRUST COMPANY"), None);
    }

    #[test]
    fn a_plural_heading_gives_its_role_to_every_block_under_it_and_a_singular_one_to_the_next_only() {
        let found = signed(
            "SUBSIDIARY GUARANTORS:\n\nNORTHWIND LOGISTICS LLC,\na Texas limited liability company\nBy: /s/ Ann Lee\nName: Ann Lee\nTitle: Manager\n\nNORTHWIND RETAIL CORP.\nBy: /s/ Ann Lee\nName: Ann Lee\n\nPARENT GUARANTOR:\nNORTHWIND HOLDINGS INC.\nBy: /s/ Ann Lee\n\nRIVERBEND CAPITAL LLC\nBy: /s/ Sam Cole\n",
        );
        assert_eq!(roles_of_party(&found, "NORTHWIND LOGISTICS LLC"), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "NORTHWIND RETAIL CORP."), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "NORTHWIND HOLDINGS INC."), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "RIVERBEND CAPITAL LLC"), None, "{found:?}");
    }

    #[test]
    fn a_capacity_printed_in_the_row_under_a_name_signed_in_the_next_cell_is_that_block_s() {
        let found = signed(
            "GUARANTORS:\nPEBBLE CREEK LLC | By: /s/ Ann Lee\nName: Ann Lee | Title: Manager\n\n[Signature Page to First Amendment]\n\nFIRST HARBOR BANK, N.A., | By: /s/ Tom Ray\nas Administrative Agent | Name: Tom Ray Title: Director\n\nLAKESHORE SAVINGS BANK, | By: /s/ Jo Park\nas a Lender and an Issuing Lender | Name: Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "FIRST HARBOR BANK, N.A."), Some(vec![PartyRole::AdministrativeAgent]));
        assert_eq!(
            roles_of_party(&found, "LAKESHORE SAVINGS BANK"),
            Some(vec![PartyRole::Lender, PartyRole::IssuingBank])
        );
    }

    #[test]
    fn a_capacity_under_the_name_that_runs_into_the_signatory_s_details_gives_the_block_nothing() {
        let found = signed(
            "GUARANTORS:\nPEBBLE CREEK LLC | By: /s/ Ann Lee\nName: Ann Lee | Title: Manager\n\nGRANITE VALLEY BANK, | By: /s/ Tom Ray\nas Administrative Agent, Swing Line Lender and L/C Name: Tom Ray\nIssuer | Title: Director\n\nCEDAR POINT BANK, | By: /s/ Jo Park\nas Administrative Agent, Swing Line | Name: Jo Park\nLender and Issuing Bank | Title: Director\n",
        );
        assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "GRANITE VALLEY BANK"), None);
        assert_eq!(roles_of_party(&found, "CEDAR POINT BANK"), None);
    }

    #[test]
    fn a_singular_heading_is_spent_by_the_first_signature_under_it_even_when_that_block_is_unread() {
        let found = signed(
            "BORROWER:\nNORTHWIND TOOLS INC. GUARANTORS: | By: /s/ Ann Lee Name: Ann Lee\nPEBBLE CREEK LLC | By: /s/ Ann Lee Name: Ann Lee\n",
        );
        assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), None);
    }

    #[test]
    fn a_caption_and_its_signature_on_one_line_are_read_as_a_block_only_when_the_caption_is_whole() {
        let found = signed(
            "GUARANTORS:\nPEBBLE CREEK LLC By: /s/ Ann Lee Name: Ann Lee Title: Manager\nRIVER STONE LP, by its general partner By: /s/ Ann Lee\n\nLAKESHORE SAVINGS BANK, as a Lender By: /s/ Jo Park Name: Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "RIVER STONE LP"), None);
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]));
    }

    #[test]
    fn a_loan_party_s_other_capacity_beside_its_role_leaves_the_role_and_alone_gives_nothing() {
        let found = signed(
            "TALLOW HOLDINGS LLC, as Holdings and a Guarantor\nBy: /s/ Ann Lee\nName: Ann Lee\n\nBRACKEN MILLS INC.,\nas a Guarantor and Grantor\nBy: /s/ Ann Lee\nName: Ann Lee\n\nFERN VALLEY LLC, as Pledgor\nBy: /s/ Ann Lee\nName: Ann Lee\n\nQUILL ROAD LLC, as Grantor and general partner of Quill Fund\nBy: /s/ Ann Lee\nName: Ann Lee\n",
        );
        for name in ["TALLOW HOLDINGS LLC", "BRACKEN MILLS INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
        assert_eq!(roles_of_party(&found, "FERN VALLEY LLC"), None, "{found:?}");
        assert_eq!(roles_of_party(&found, "QUILL ROAD LLC"), None, "{found:?}");
    }

    #[test]
    fn a_sentence_above_names_sharing_a_capacity_is_no_part_of_their_caption() {
        let found = signed(
            "ELM ROW LLC, as Borrower\nBy: /s/ Ann Lee\nName: Ann Lee\nTitle: Treasurer\n\nCONFIRMATION OF GUARANTY\n\nEach of the undersigned hereby confirms that its obligations remain in full force and effect.\n\nPEBBLE CREEK LLC,\nRIVER STONE INC.,\neach as a Guarantor\nBy: /s/ Ann Lee\nName: Ann Lee\n",
        );
        for name in ["PEBBLE CREEK LLC", "RIVER STONE INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
        assert!(!super::is_prose("FIRST HARBOR BANK, N.A."));
        assert!(!super::is_prose("as Administrative Agent, Swing Line Lender and an L/C Issuer"));
    }

    #[test]
    fn names_run_together_on_one_line_under_a_plural_heading_each_take_its_role() {
        let found = signed(
            "SUBSIDIARY GUARANTORS:\nPEBBLE CREEK LLC RIVER STONE INC. and OAK HILL CORP. | By: /s/ Ann Lee\nName: Ann Lee\n\nGUARANTORS:\nELM ROW LLC MAPLE PRESS INC., its sole member | By: /s/ Ann Lee\n",
        );
        for name in ["PEBBLE CREEK LLC", "RIVER STONE INC.", "OAK HILL CORP."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
        assert_eq!(roles_of_party(&found, "ELM ROW LLC"), None, "{found:?}");
        assert_eq!(roles_of_party(&found, "MAPLE PRESS INC."), None, "{found:?}");
    }

    #[test]
    fn a_bank_signing_individually_as_a_lender_and_as_an_issuing_lender_holds_both_roles() {
        let found = signed(
            "CEDAR POINT BANK, N.A., individually as a Lender and as an Issuing Lender\nBy: /s/ Jo Park\nName: Jo Park\n",
        );
        assert_eq!(
            roles_of_party(&found, "CEDAR POINT BANK, N.A."),
            Some(vec![PartyRole::Lender, PartyRole::IssuingBank])
        );
    }

    #[test]
    fn the_loan_parties_signing_under_their_own_heading_are_guarantors_but_the_borrower_is_not() {
        let found = signed(
            "OTHER LOAN PARTIES:\nPEBBLE CREEK LLC | By: /s/ Ann Lee\nName: Ann Lee\n\nLOAN PARTIES:\nNORTHWIND TOOLS INC. | By: /s/ Ann Lee\nName: Ann Lee\n\nRIVER STONE INC. | By: /s/ Ann Lee\nName: Ann Lee\n",
        );
        assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "RIVER STONE INC."), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "NORTHWIND TOOLS INC."), Some(vec![PartyRole::Borrower]));
    }

    #[test]
    fn names_listed_a_row_each_with_their_description_in_the_next_cell_take_the_heading_s_role() {
        let found = signed(
            "SUBSIDIARY GUARANTORS:\nPEBBLE CREEK LLC | a Delaware limited liability company\nRIVER STONE INC. | an Ohio corporation\nBy: /s/ Ann Lee\nName: Ann Lee\n",
        );
        for name in ["PEBBLE CREEK LLC", "RIVER STONE INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
    }

    #[test]
    fn a_bank_and_trust_company_is_one_name() {
        let found = signed(
            "LENDER:\nPIEDMONT BANK & TRUST COMPANY | By: /s/ Jo Park\nName: Jo Park\n\nLENDER:\nLAKE BANK AND TRUST COMPANY OF TOLEDO | By: /s/ Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "PIEDMONT BANK & TRUST COMPANY"), Some(vec![PartyRole::Lender]));
        assert_eq!(roles_of_party(&found, "LAKE BANK AND TRUST COMPANY OF TOLEDO"), Some(vec![PartyRole::Lender]));
    }

    #[test]
    fn entities_listed_in_the_rows_beside_one_signatory_s_details_take_the_plural_heading_s_role() {
        let found = signed(
            "SUBSIDIARY GUARANTORS:\nPEBBLE CREEK LLC | By: /s/ Ann Lee\nRIVER STONE INC. | Name: Ann Lee\nOAK HILL CORP. ELM ROW LLC | Title: Secretary\n\nGUARANTORS:\nMAPLE PRESS LLC | By: /s/ Ann Lee\nCEDAR POINT BANK, | Name: Jo Park\nas Administrative Agent | Title: Director\n",
        );
        for name in ["PEBBLE CREEK LLC", "RIVER STONE INC.", "OAK HILL CORP.", "ELM ROW LLC", "MAPLE PRESS LLC"] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
        assert_eq!(roles_of_party(&found, "CEDAR POINT BANK"), None, "{found:?}");
    }

    #[test]
    fn a_caption_read_from_below_a_line_ending_in_a_connector_would_take_part_of_a_name_and_gives_nothing() {
        let found = signed(
            "WILLOW CAPITAL, a division of\nWillow Business Credit Services\nInc., individually as a Lender and as\nAgent\nBy: /s/ Jo Park\n",
        );
        assert!(found.iter().all(|(name, _)| !name.contains("Willow") && !name.contains("WILLOW")), "{found:?}");
    }

    #[test]
    fn a_guarantors_table_with_a_jurisdiction_cell_before_each_signature_is_read() {
        let found = signed(
            "GUARANTORS:\nGuarantor | Jurisdiction of Organization\nPEBBLE CREEK LLC | Delaware | By: /s/ Ann Lee Name: Ann Lee\nRIVER STONE INC. | New York | By: /s/ Ann Lee Name: Ann Lee\n",
        );
        for name in ["PEBBLE CREEK LLC", "RIVER STONE INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
    }

    #[test]
    fn a_cell_between_the_name_and_its_signature_may_be_a_place_but_never_a_role_the_caption_would_lose() {
        let place = "PEBBLE CREEK LLC | Delaware | By: /s/ Ann Lee";
        assert_eq!(super::signed_in_next_cell(place), Some((0..16, 30)));
        assert_eq!(super::signed_in_next_cell("OAK HILL CORP. | Guarantor | By: /s/ Ann Lee"), None);
        assert_eq!(super::signed_in_next_cell("CEDAR BANK, N.A. | Lenders | By: /s/ Jo Park"), None);
    }

    #[test]
    fn entities_listed_under_a_plural_heading_above_one_signature_each_take_its_role() {
        let found = signed(
            "SUBSIDIARY GUARANTORS:\nNORTHWIND LOGISTICS LLC\nNORTHWIND RETAIL CORP.,\na Texas corporation\nNORTHWIND FLEET, INC.\nBy: /s/ Ann Lee\nName: Ann Lee, as Secretary of each of the foregoing\n\nPLEDGORS:\nRIVERBEND CAPITAL LLC\nPresident of the Pledgors\nRIVERBEND EQUITY LLC\nBy: /s/ Sam Cole\n",
        );
        for name in ["NORTHWIND LOGISTICS LLC", "NORTHWIND RETAIL CORP.", "NORTHWIND FLEET, INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
        assert!(found.iter().all(|(name, _)| !name.starts_with("RIVERBEND")), "{found:?}");
    }

    #[test]
    fn a_heading_the_reader_does_not_know_ends_the_one_above_it() {
        let found = signed(
            "GUARANTORS:\nNORTHWIND LOGISTICS LLC\nBy: /s/ Ann Lee\nName: Ann Lee\nTitle: President\nPLEDGOR\nNORTHWIND EQUITY LLC\nBy: /s/ Ann Lee\n",
        );
        assert_eq!(roles_of_party(&found, "NORTHWIND LOGISTICS LLC"), Some(vec![PartyRole::Guarantor]));
        assert_eq!(roles_of_party(&found, "NORTHWIND EQUITY LLC"), None, "{found:?}");
    }

    #[test]
    fn a_heading_may_carry_the_first_name_on_its_own_line() {
        let found = signed("LENDER:     LAKESHORE SAVINGS BANK\nBy: _________________\n");
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]));
    }

    #[test]
    fn a_caption_that_is_more_than_a_name_and_its_roles_gives_nothing() {
        let found = signed(
            "RIVERBEND MANAGEMENT LTD., as general partner of RIVERBEND FUND, L.P.\nBy: /s/ Sam Cole\nName: Sam Cole\n\nChief Financial Officer\nPRESIDENT AND CHIEF EXECUTIVE OFFICER\nLAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "RIVERBEND MANAGEMENT LTD."), None);
        assert_eq!(roles_of_party(&found, "RIVERBEND FUND, L.P."), None);
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
    }

    #[test]
    fn a_bank_signing_without_a_role_among_the_lenders_is_a_lender_until_another_heading() {
        let found = signed(
            "LAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\n\n[Signature Page]\n\nPRAIRIE STATE BANK\nBy: /s/ Al Kim\n\nACKNOWLEDGED:\nNORTHWIND EQUITY LLC\nBy: /s/ Ann Lee\n",
        );
        assert_eq!(roles_of_party(&found, "PRAIRIE STATE BANK"), Some(vec![PartyRole::Lender]));
        assert_eq!(roles_of_party(&found, "NORTHWIND EQUITY LLC"), None, "{found:?}");
    }

    #[test]
    fn a_lenders_own_page_names_it_after_name_of_lender_up_to_its_signature() {
        let found = signed(
            "LENDER SIGNATURE PAGE\nName of Lender: Harbor Point Bank, N.A.\nBy: /s/ Jo Park\n\nName of Lender: CASCADE TRUST COMPANY,\nN.A.by\n/s/ Al Kim\n\nName of Lender: Summit Valley Banking Corporation\nof Ohio, New York\nBranch\n",
        );
        assert_eq!(roles_of_party(&found, "Harbor Point Bank, N.A."), Some(vec![PartyRole::Lender]));
        assert_eq!(roles_of_party(&found, "CASCADE TRUST COMPANY, N.A."), Some(vec![PartyRole::Lender]));
        assert!(
            found.iter().all(|(name, _)| !name.contains("Summit")),
            "a name not followed by its signature: {found:?}"
        );
    }

    #[test]
    fn an_entity_signing_for_the_party_above_it_takes_none_of_its_roles() {
        let found = signed(
            "WILLOW FUNDING LLC, as a Lender\nBy: its Administrator,\nCEDAR BANK, N.A.\nBy: /s/ Jo Park\nName: Jo Park\n\nPRAIRIE STATE BANK\nBy: /s/ Al Kim\nName: Al Kim\n",
        );
        assert_eq!(roles_of_party(&found, "WILLOW FUNDING LLC"), Some(vec![PartyRole::Lender]));
        assert_eq!(roles_of_party(&found, "CEDAR BANK, N.A."), None, "{found:?}");
        assert_eq!(roles_of_party(&found, "PRAIRIE STATE BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
    }

    #[test]
    fn a_block_in_a_capacity_the_reader_does_not_know_ends_the_run_of_lenders() {
        let found = signed(
            "LAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\n\nCEDAR BANK, N.A.,\nas Funding Agent for its Lender Group\nBy: /s/ Al Kim\nName: Al Kim\n\nCEDAR BANK, N.A.\nBy: /s/ Al Kim\n",
        );
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]));
        assert_eq!(roles_of_party(&found, "CEDAR BANK, N.A."), None, "{found:?}");
    }

    #[test]
    fn a_heading_closed_by_a_colon_is_a_heading_even_when_its_words_read_as_a_name() {
        let found = signed(
            "LAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\n\nACCOUNT BANK:\nCEDAR BANK, N.A.\nBy: /s/ Al Kim\n",
        );
        assert_eq!(roles_of_party(&found, "CEDAR BANK, N.A."), None, "{found:?}");
    }

    #[test]
    fn a_heading_over_the_agent_of_the_lenders_heads_no_lender() {
        let found = signed(
            "LENDER AGENT:\nCEDAR BANK, N.A.\nBy: /s/ Al Kim\nName: Al Kim\n\nLENDERS:\nPRAIRIE STATE BANK\nBy: /s/ Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "CEDAR BANK, N.A."), None, "{found:?}");
        assert_eq!(roles_of_party(&found, "PRAIRIE STATE BANK"), Some(vec![PartyRole::Lender]));
    }

    #[test]
    fn a_company_signing_among_the_lenders_pages_is_no_lender_unless_its_name_is_a_lenders() {
        let found = signed(
            "LAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\nName: Jo Park\n\nAcknowledged and agreed as of the date first written above by\nNORTHWIND SOLAR SERVICES LLC\nBy: /s/ Ann Lee\nName: Ann Lee\n\nBIRCH CREDIT FUND LP\nBy: /s/ Al Kim\n",
        );
        assert_eq!(roles_of_party(&found, "NORTHWIND SOLAR SERVICES LLC"), None, "{found:?}");
        assert_eq!(roles_of_party(&found, "BIRCH CREDIT FUND LP"), Some(vec![PartyRole::Lender]), "{found:?}");
    }

    #[test]
    fn blocks_of_an_attached_form_are_not_the_agreements_signatures() {
        let found = signed(
            "LAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\n\nEXHIBIT A\nFORM OF ASSIGNMENT\n\nPRAIRIE STATE BANK, as a Lender\nBy: ______\n",
        );
        assert_eq!(roles_of_party(&found, "PRAIRIE STATE BANK"), None, "{found:?}");
    }

    #[test]
    fn names_listed_above_the_capacity_they_share_each_take_it() {
        let found = signed(
            "LAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\nName: Jo Park\n\nNORTHWIND LOGISTICS LLC,\nNORTHWIND RETAIL CORP., and\nNORTHWIND FLEET, INC.,\neach as a Subsidiary Guarantor\n\nBy: /s/ Ann Lee\nName: Ann Lee\nTitle: Secretary\n",
        );
        for name in ["NORTHWIND LOGISTICS LLC", "NORTHWIND RETAIL CORP.", "NORTHWIND FLEET, INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
    }

    #[test]
    fn names_run_together_before_a_capacity_for_each_or_in_the_plural_each_take_it() {
        let found = signed(
            "NORTHWIND LOGISTICS LLC, NORTHWIND RETAIL CORP., each as a Guarantor\nBy: /s/ Ann Lee\n\nLAKESHORE SAVINGS BANK and PRAIRIE STATE BANK, as Lenders\nBy: /s/ Jo Park\n\nCEDAR BANK, N.A. and PINE TRUST COMPANY, as Issuing Bank\nBy: /s/ Al Kim\n",
        );
        for name in ["NORTHWIND LOGISTICS LLC", "NORTHWIND RETAIL CORP."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
        for name in ["LAKESHORE SAVINGS BANK", "PRAIRIE STATE BANK"] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Lender]), "{name}: {found:?}");
        }
        assert_eq!(roles_of_party(&found, "CEDAR BANK, N.A."), None, "a singular capacity after two names: {found:?}");
    }

    #[test]
    fn a_list_above_a_shared_capacity_gives_nothing_when_a_line_is_not_a_name() {
        let found = signed(
            "NORTHWIND LOGISTICS LLC,\nthe general partner of the foregoing,\nNORTHWIND FLEET, INC.,\neach as a Guarantor\nBy: /s/ Ann Lee\n",
        );
        assert_eq!(roles_of_party(&found, "NORTHWIND LOGISTICS LLC"), None, "{found:?}");
    }

    #[test]
    fn blocks_after_a_consent_of_the_undersigned_guarantors_sign_as_guarantors_but_not_the_borrower() {
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n\nLAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\nName: Jo Park\n\nCONSENT AND REAFFIRMATION\n\nEach of the undersigned Guarantors consents to the foregoing Amendment and confirms that its\nguarantee remains in full force and effect.\n\nNORTHWIND LOGISTICS LLC\nBy: /s/ Ann Lee\nName: Ann Lee\n\nNORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\nNORTHWIND FLEET, INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n",
        );
        assert_eq!(roles_of_party(&found, "NORTHWIND LOGISTICS LLC"), Some(vec![PartyRole::Guarantor]), "{found:?}");
        assert_eq!(roles_of_party(&found, "NORTHWIND FLEET, INC."), Some(vec![PartyRole::Guarantor]), "{found:?}");
        assert_eq!(roles_of_party(&found, "NORTHWIND TOOLS INC."), Some(vec![PartyRole::Borrower]), "{found:?}");
    }

    #[test]
    fn a_name_in_one_cell_and_its_signature_in_the_next_sign_as_one_block() {
        let found = signed(
            "SUBSIDIARY GUARANTORS:\nNORTHWIND LOGISTICS LLC | By: /s/ Ann Lee\n | Name: Ann Lee\n | Title: Manager\nNORTHWIND RETAIL CORP. | By: /s/ Ann Lee\n | Name: Ann Lee\n",
        );
        for name in ["NORTHWIND LOGISTICS LLC", "NORTHWIND RETAIL CORP."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
    }

    #[test]
    fn a_role_heading_qualified_by_when_its_holders_joined_gives_that_role() {
        let found = signed(
            "NORTHWIND TOOLS INC., as Borrower\nBy: /s/ Ann Lee\nName: Ann Lee\n\nINITIAL GUARANTOR:\nNORTHWIND LOGISTICS LLC\nBy: /s/ Ann Lee\nName: Ann Lee\n\nEXISTING GUARANTORS:\nNORTHWIND FLEET, INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n\nRIVER STONE INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n",
        );
        for name in ["NORTHWIND LOGISTICS LLC", "NORTHWIND FLEET, INC.", "RIVER STONE INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
    }

    #[test]
    fn the_credit_parties_signing_under_their_own_heading_are_guarantors_but_the_borrower_is_not() {
        let found = signed(
            "CREDIT PARTIES:\nNORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n\nPEBBLE CREEK LLC\nBy: /s/ Ann Lee\nName: Ann Lee\n\nOTHER CREDIT PARTIES:\nRIVER STONE INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n",
        );
        assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), Some(vec![PartyRole::Guarantor]), "{found:?}");
        assert_eq!(roles_of_party(&found, "RIVER STONE INC."), Some(vec![PartyRole::Guarantor]), "{found:?}");
        assert_eq!(roles_of_party(&found, "NORTHWIND TOOLS INC."), Some(vec![PartyRole::Borrower]), "{found:?}");
    }

    #[test]
    fn a_consent_stating_its_signers_guarantors_in_other_words_makes_the_blocks_after_it_guarantors() {
        for consent in [
            "Each of the undersigned, in its capacity as a Guarantor, hereby consents to the Amendment.",
            "The undersigned (each, a \u{201c}Guarantor\u{201d}) consent to the Amendment.",
            "The undersigned, being all of the Guarantors, ratify the Loan Documents.",
            "Each Guarantor hereby reaffirms its obligations under the Guaranty.",
        ] {
            let found = signed(&format!(
                "NORTHWIND TOOLS INC., as Borrower\nBy: /s/ Ann Lee\nName: Ann Lee\n\n{consent}\n\nPEBBLE CREEK LLC\nBy: /s/ Ann Lee\nName: Ann Lee\n\nNORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\nName: Ann Lee\n",
            ));
            assert_eq!(
                roles_of_party(&found, "PEBBLE CREEK LLC"),
                Some(vec![PartyRole::Guarantor]),
                "{consent}: {found:?}"
            );
            assert_eq!(
                roles_of_party(&found, "NORTHWIND TOOLS INC."),
                Some(vec![PartyRole::Borrower]),
                "{consent}: {found:?}"
            );
        }
    }

    #[test]
    fn a_consent_in_another_capacity_or_in_a_capacity_that_goes_on_names_no_guarantor() {
        for consent in [
            "Each of the undersigned, in its capacity as a Pledgor, hereby consents to the Amendment.",
            "Each of the undersigned, in its capacity as a Guarantor or as a Grantor, hereby consents.",
        ] {
            let found = signed(&format!(
                "NORTHWIND TOOLS INC., as Borrower\nBy: /s/ Ann Lee\nName: Ann Lee\n\n{consent}\n\nPEBBLE CREEK LLC\nBy: /s/ Ann Lee\nName: Ann Lee\n",
            ));
            assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), None, "{consent}: {found:?}");
        }
    }

    #[test]
    fn entities_listed_a_line_each_with_their_own_capacity_above_one_signature_each_hold_it() {
        let found = signed(
            "NORTHWIND TOOLS INC., as Borrower\nBy: /s/ Ann Lee\n\nPEBBLE CREEK LLC, as a Guarantor\nRIVER STONE INC., as a Guarantor\nBy: /s/ Ann Lee\nName: Ann Lee\n\nOAK HILL CORP., as a Guarantor\nOak Hill signs for its affiliates\nBy: /s/ Ann Lee\n",
        );
        for name in ["PEBBLE CREEK LLC", "RIVER STONE INC."] {
            assert_eq!(roles_of_party(&found, name), Some(vec![PartyRole::Guarantor]), "{name}: {found:?}");
        }
        assert_eq!(roles_of_party(&found, "OAK HILL CORP."), None, "{found:?}");
    }

    #[test]
    fn a_capacity_signed_on_its_own_line_closes_the_block_of_the_name_above_it() {
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\n  LAKESHORE SAVINGS BANK,\nas Syndication Agent and a Lender        By:     /s/ Jo Park\n  Name: Jo Park\n",
        );
        assert_eq!(
            roles_of_party(&found, "LAKESHORE SAVINGS BANK"),
            Some(vec![PartyRole::SyndicationAgent, PartyRole::Lender]),
            "{found:?}"
        );
        // A line that is no capacity ("Approved as to form") closes nothing.
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\nPINE RIVER LLC\nApproved as to form        By:     /s/ Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "PINE RIVER LLC"), None, "{found:?}");
    }

    #[test]
    fn a_capacity_beside_a_conformed_signature_without_by_closes_the_block() {
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\nLAKESHORE SAVINGS BANK,\nas a Lender        /s/ Jo Park\nName: Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
    }

    #[test]
    fn the_lenders_signature_pages_make_lending_institutions_on_them_lenders() {
        let pages = "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\n[LENDER SIGNATURE PAGE TO CREDIT AGREEMENT]\n\nLAKESHORE SAVINGS BANK\nBy: /s/ Jo Park\n\n[LENDER SIGNATURE PAGE TO CREDIT AGREEMENT]\n\nPEBBLE CREEK LLC\nBy: /s/ Ann Lee\n";
        let found = signed(pages);
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
        // A name that is no lending institution's is not made a lender by the page it is on.
        assert_eq!(roles_of_party(&found, "PEBBLE CREEK LLC"), None, "{found:?}");
        // A page naming other parties besides the lenders makes no one a lender.
        let shared = pages.replace("[LENDER SIGNATURE PAGE", "[AGENT AND LENDER SIGNATURE PAGE");
        assert_eq!(roles_of_party(&signed(&shared), "LAKESHORE SAVINGS BANK"), None);
    }

    #[test]
    fn a_bracketed_name_of_lender_label_names_the_lender() {
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\n[Name of Lender]: LAKESHORE SAVINGS BANK\nBy: /s/ Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
    }

    #[test]
    fn a_bank_of_a_place_wrapped_after_of_is_read_whole() {
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\nHILLCREST SAVINGS BANK OF\nNEW ENGLAND, as a Lender\n\nBy: /s/ Jo Park\n",
        );
        assert_eq!(
            roles_of_party(&found, "HILLCREST SAVINGS BANK OF NEW ENGLAND"),
            Some(vec![PartyRole::Lender]),
            "{found:?}"
        );
    }

    #[test]
    fn a_caption_line_opening_with_a_connector_continues_the_name_above_it() {
        let found = signed(
            "NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\nUNITED TRADERS AND MERCHANTS BANK\nOF EASTLAND LIMITED, NEW YORK\nBRANCH, as a Lender\nBy: /s/ Jo Park\n",
        );
        assert!(found.iter().all(|(name, _)| !name.starts_with("OF ")), "{found:?}");
    }

    #[test]
    fn a_singular_heading_joining_two_roles_gives_the_block_under_it_both() {
        let found = signed(
            "Borrower:     NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\nAdministrative Agent & Lender:  FIRST HARBOR BANK, N.A.\nBy:\nName:\n\nLender:     LAKESHORE SAVINGS BANK\nBy:\nName:\n",
        );
        assert_eq!(
            roles_of_party(&found, "FIRST HARBOR BANK, N.A."),
            Some(vec![PartyRole::AdministrativeAgent, PartyRole::Lender]),
            "{found:?}"
        );
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
    }

    #[test]
    fn a_name_wrapped_before_its_branch_is_read_whole_under_its_role_heading() {
        let found = signed(
            "Borrower:     NORTHWIND TOOLS INC.\nBy: /s/ Ann Lee\n\nLender:     EASTGATE BANK OF COMMERCE, GRAND CAYMAN   \nBRANCH\nBy:\nName:\n",
        );
        assert_eq!(
            roles_of_party(&found, "EASTGATE BANK OF COMMERCE, GRAND CAYMAN BRANCH"),
            Some(vec![PartyRole::Lender]),
            "{found:?}"
        );
    }

    #[test]
    fn a_caption_signed_on_its_line_by_an_electronic_signature_without_a_colon_is_read_when_whole() {
        let found = signed(
            "NORTHWIND TOOLS INC., as Borrower By /s/ Ann Lee Name: Ann Lee\n\nLAKESHORE SAVINGS BANK, as a Lender By /s/ Jo Park Name: Jo Park\n\nApproved as to form by counsel By /s/ Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
        assert_eq!(roles_of_party(&found, "NORTHWIND TOOLS INC."), Some(vec![PartyRole::Borrower]), "{found:?}");
        assert_eq!(found.len(), 3, "{found:?}");
    }

    #[test]
    fn a_caption_whose_name_starts_on_the_line_above_after_a_signatory_s_title_gives_no_fragment() {
        let found = signed(
            "NORTHWIND TOOLS INC., as Borrower By /s/ Ann Lee Name: Ann Lee Title: Director WILLOW FINANCIAL\nSERVICES LIMITED, as a Lender By /s/ Jo Park Name: Jo Park\n\nTHE LENDERS\nLAKESHORE SAVINGS BANK, as a Lender By: /s/ Jo Park\n",
        );
        assert_eq!(roles_of_party(&found, "SERVICES LIMITED"), None, "{found:?}");
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), Some(vec![PartyRole::Lender]), "{found:?}");
    }

    #[test]
    fn without_a_testimonium_nothing_is_read_as_a_signature() {
        let found = roles_signed("LAKESHORE SAVINGS BANK, as a Lender\nBy: /s/ Jo Park\n");
        assert_eq!(roles_of_party(&found, "LAKESHORE SAVINGS BANK"), None);
    }
}
