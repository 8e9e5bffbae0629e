//! Parties and their roles. A party is a named legal entity (the name ends in a legal form such
//! as "Inc.", "N.A." or "PLC", or is a bank's name) stated in a capacity:
//!
//! - `NAME, a Delaware corporation, as Borrower` / `NAME as mandated lead arranger` (US
//!   preambles, cover pages, LMA party lists, signature blocks);
//! - `NAME … (the "Borrower")` (defined-term parentheticals);
//! - `Borrower: NAME` (term sheets);
//! - rows of a lender commitment schedule, also one a plain-text copy flattened to a cell a line;
//! - signature blocks (`NAME, as a Lender / By: …`, or under a heading such as `GUARANTORS:`).
//!
//! Classes of parties ("THE LENDERS PARTY HERETO") are not parties. LEIs are attached to the
//! party named just before them and kept only when their check digits are valid.

mod drafts;
pub(super) mod names;
mod preamble;
pub(super) mod roles;
mod signatures;

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::document::{Document, Report, quoted};
use super::model::{Party, PartyRole};
use super::schedules::{MONEY_CELL, flattened_schedule, row_schedule};
use super::text::{capitalisable, clause_start, contains_ci, pattern, table_after};
use drafts::Drafts;
use names::NAME;
use preamble::{
    cover_parties, debtor_parties, defined_parties, is_cover_role, names_above, preamble_parties, printed_again,
};
use roles::{ONE_ROLE, ROLE_LIST, is_plural, is_role_term, roles_of};

static DEFINED_ROLE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"\((?:[^()"“”]{0,80}?)?["“](?P<term>[^"”\n]{1,40})["”](?:[^()]{0,80})?\)"#));

/// A statement of roles: its span, the roles with where each is stated, and whether the role is
/// plural ("as Joint Lead Arrangers").
type RoleMarker = (Range<usize>, Vec<(PartyRole, Range<usize>)>, bool);

/// Where the names a role marker applies to begin: the start of its clause, never before the
/// previous marker, and — for plural roles on cover pages — extended back over blocks joined by
/// "and" ("X\n\nand\n\nY,\nas Joint Lead Arrangers").
fn segment_start(doc: &Document<'_>, marker_start: usize, floor: usize, plural: bool) -> usize {
    let mut start = clause_start(doc.text, marker_start).max(floor);
    if plural {
        for _ in 0..4 {
            let preceding = doc.slice(floor..start).trim_end();
            let cut = preceding
                .strip_suffix(',')
                .or_else(|| {
                    preceding.strip_suffix("and").filter(|rest| rest.is_empty() || rest.ends_with(char::is_whitespace))
                })
                .map(str::trim_end);
            let Some(cut) = cut.filter(|c| !c.is_empty()) else { break };
            let earlier = clause_start(doc.text, floor + cut.len()).max(floor);
            if earlier >= start || start - earlier > 400 {
                break;
            }
            start = earlier;
        }
    }
    let segment = doc.slice(start..marker_start);
    let lower = segment.to_ascii_lowercase();
    for keyword in ["among", "between", "made by"] {
        if let Some(position) = lower.rfind(&format!("{keyword} ")).or_else(|| lower.rfind(&format!("{keyword}\n"))) {
            start = start.max(start + position + keyword.len());
        }
    }
    start
}

/// The names in `segment`: all of them for a plural role, else the first.
fn names_in(doc: &Document<'_>, segment: Range<usize>, plural: bool) -> Vec<Range<usize>> {
    let text = doc.slice(segment.clone());
    let found = NAME
        .find_iter(text)
        .map(|m| rejoin_wrapped_name(doc, segment.start, segment.start + m.start()..segment.start + m.end()));
    if plural { found.collect() } else { found.take(1).collect() }
}

/// A name that a line break split ("JPMORGAN CHASE\nBANK, N.A.", or a long prose line wrapped
/// inside "CASCADE MEDICAL\nSYSTEMS UK LIMITED"): the capitalised words ending the previous line
/// belong to it. Rejoined only when the name opens with "Bank" (never complete alone) or the
/// previous line is long, i.e. wrapped prose rather than a cover page's list of names.
fn rejoin_wrapped_name(doc: &Document<'_>, floor: usize, name: Range<usize>) -> Range<usize> {
    let stated = doc.slice(name.clone());
    let opens_with_bank = stated.starts_with("Bank") || stated.starts_with("BANK");
    let lead = doc.slice(super::text::ceil_boundary(doc.text, floor.max(name.start.saturating_sub(200)))..name.start);
    let Some(line_break) = lead.rfind('\n') else { return name };
    let (previous, indent) = lead.split_at(line_break);
    let break_at = name.start - indent.len();
    let previous_line_len =
        super::text::line_around(doc.text, break_at.saturating_sub(1), 200).map_or(200, |l| l.len());
    if !indent.trim().is_empty() || !(opens_with_bank || previous_line_len >= 60) {
        return name;
    }
    let previous = previous.trim_end_matches([' ', '\t', '\r']);
    let mut start = previous.len();
    let mut rest = previous;
    for _ in 0..5 {
        let word_start = rest.rfind([' ', '\t']).map_or(0, |i| i + 1);
        let word = rest.get(word_start..).unwrap_or("");
        if !names::continues_a_name(word) {
            break;
        }
        start = word_start;
        rest = rest.get(..word_start).unwrap_or("").trim_end_matches([' ', '\t']);
    }
    if start == previous.len() {
        return name;
    }
    let rejoined = name.start - lead.len() + start..name.end;
    if doc.text.get(rejoined.clone()).is_some() { rejoined } else { name }
}

/// A document without a preamble (a term sheet, a fragment): a role written under a whole-line
/// name, or a defined role (`(the "Borrower")`) applied to the name stated just before it.
fn marker_parties(doc: &Document<'_>, lma_style: bool, drafts: &mut Drafts) {
    let mut markers: Vec<RoleMarker> = Vec::new();
    for list in ROLE_LIST.find_iter(doc.text) {
        let mut roles = Vec::new();
        for one in ONE_ROLE.find_iter(list.as_str()) {
            let span = list.start() + one.start()..list.start() + one.end();
            for role in roles_of(one.as_str(), lma_style) {
                roles.push((role, span.clone()));
            }
        }
        // "NAME,\n as Administrative Agent": the whole-line name the role is written under.
        // A title role's holder may be named without a legal form ("ATB FINANCIAL,").
        let printed = |name: &str| printed_again(doc, name);
        let titles_only = !roles.is_empty() && roles.iter().all(|(role, _)| is_cover_role(*role));
        let unmarked: Option<&dyn Fn(&str) -> bool> = if titles_only { Some(&printed) } else { None };
        for name in names_above(doc.text, list.start(), is_plural(list.as_str()), unmarked) {
            drafts.add(doc, name, &roles);
        }
    }
    for captures in DEFINED_ROLE.captures_iter(doc.text) {
        let (Some(whole), Some(term)) = (captures.get(0), captures.name("term")) else { continue };
        if !is_role_term(term.as_str()) {
            continue;
        }
        let roles: Vec<(PartyRole, Range<usize>)> =
            roles_of(term.as_str(), lma_style).into_iter().map(|r| (r, term.range())).collect();
        if !roles.is_empty() {
            markers.push((whole.range(), roles, is_plural(term.as_str())));
        }
    }
    markers.sort_by_key(|(span, _, _)| span.start);
    let mut previous_end = 0;
    for (span, roles, plural) in &markers {
        let floor = previous_end.max(span.start.saturating_sub(400));
        let start = segment_start(doc, span.start, floor, *plural);
        // "… L.L.C. and each lender from time to time party hereto (each a "Lender")": the term
        // defines the class named right before it, not a party named earlier in the clause.
        let last_name_end = NAME.find_iter(doc.slice(start..span.start)).last().map_or(start, |m| start + m.end());
        if names_a_class(doc.slice(last_name_end..span.start)) {
            previous_end = span.end;
            continue;
        }
        for name in names_in(doc, start..span.start, *plural) {
            drafts.add(doc, name, roles);
        }
        previous_end = span.end;
    }
}

/// A class of parties as an item of the list, which no name stands for: "and each lender from time
/// to time party hereto", "the several banks and other financial institutions parties hereto", ",
/// the Lenders" (not "agent for the Lenders", a description of the name before it).
static CLASS_OF_PARTIES: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bpart(?:y|ies)[ \t\r\n]+(?:hereto|thereto)\b|(?:,|\band\b)[ \t\r\n]+(?:each|the|several|various|other)[ \t\r\n]+(?:lenders?|banks?|financial[ \t\r\n]+institutions?|guarantors?)\b",
    )
});

/// Whether the words between the last name and a defined role name a class of parties.
fn names_a_class(between: &str) -> bool {
    CLASS_OF_PARTIES.is_match(between)
}

/// Term sheets: "Borrower: Zenith Logistics Corp.".
fn label_parties(doc: &Document<'_>, lma_style: bool, drafts: &mut Drafts) {
    for label in &doc.structure.labels {
        let name = &label.key;
        if !is_role_term(name) {
            continue;
        }
        let roles: Vec<(PartyRole, Range<usize>)> =
            roles_of(name, lma_style).into_iter().map(|r| (r, label.name.clone())).collect();
        let value_line_end =
            doc.slice(label.value.clone()).find("\n\n").map_or(label.value.end, |i| label.value.start + i);
        for found in names_in(doc, label.value.start..value_line_end, is_plural(name)) {
            drafts.add(doc, found, &roles);
        }
    }
}

/// The parties of the agreement with their roles and LEIs.
pub(crate) fn extract(doc: &Document<'_>, report: &mut Report) -> Vec<Party> {
    let lma_style =
        ["Finance Part", "Original Lender", "Obligors' Agent", "Obligors’ Agent"].iter().any(|w| doc.text.contains(w));
    let mut drafts = Drafts::default();
    if let Some(preamble) = doc.parts.preamble.clone() {
        // The preamble names the parties; the cover page adds the title roles it lists; a
        // definition names the borrower or agent when the preamble only refers to it.
        preamble_parties(doc, preamble.clone(), lma_style, &mut drafts);
        cover_parties(doc, doc.parts.front.clone(), lma_style, &mut drafts);
        // A cover page read as the preamble (a block of lines with no sentence in it) runs on
        // over the role blocks below it, up to the table of contents.
        if !doc.slice(preamble.clone()).contains(". ") && !doc.slice(preamble.clone()).trim_end().ends_with('.') {
            cover_parties(doc, cover_after(doc, preamble.end), lma_style, &mut drafts);
        }
        if let Some(cover) = conformed_copy_cover(doc) {
            cover_parties(doc, cover, lma_style, &mut drafts);
        }
        defined_parties(doc, &mut drafts);
    } else {
        marker_parties(doc, lma_style, &mut drafts);
        label_parties(doc, lma_style, &mut drafts);
    }

    debtor_parties(doc, &mut drafts);
    lenders_from_schedules(doc, &mut drafts);
    signatures::signature_parties(doc, lma_style, &mut drafts);

    let mut drafts = drafts.0;
    // Borrowers first (CDM's Party1), then everyone in order of first statement.
    drafts.sort_by_key(|d| (!d.roles.iter().any(|r| *r.value() == PartyRole::Borrower), d.first_mention));
    let mentions: Vec<Vec<Range<usize>>> = drafts.iter().map(|d| d.mentions.clone()).collect();
    let mut parties: Vec<Party> =
        drafts.into_iter().map(|d| Party { party_id: None, name: d.name, roles: d.roles }).collect();
    attach_leis(doc, &mut parties, &mentions, report);
    parties
}

/// A party's roles as read, each once: a role stated in several places is kept once per place
/// until the evidence check chooses among them.
#[cfg(test)]
pub(crate) fn distinct_roles(party: &Party) -> Vec<PartyRole> {
    let mut roles: Vec<PartyRole> = Vec::new();
    for role in &party.roles {
        if !roles.contains(role.value()) {
            roles.push(*role.value());
        }
    }
    roles
}

/// How far below a cover read as the preamble its role blocks may run.
const COVER_REACH: usize = 6_000;

static TABLE_OF_CONTENTS: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\btable[ \t]+of[ \t]+contents\b"));

/// The rest of a cover page after the block read as the preamble: up to the table of contents, or
/// [`COVER_REACH`].
fn cover_after(doc: &Document<'_>, from: usize) -> Range<usize> {
    let reach = crate::domain::extraction::text::floor_boundary(doc.text, from.saturating_add(COVER_REACH));
    let end = TABLE_OF_CONTENTS.find(doc.slice(from..reach)).map_or(reach, |toc| from + toc.start());
    from..end
}

/// A line that is an agreement's title: "CREDIT AGREEMENT", "Amended and Restated Term Loan
/// Agreement".
static AGREEMENT_TITLE_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^[ \t|]*(?:[A-Za-z0-9\-]+[ \t]+){0,6}(?i:credit|loan)[ \t]+(?i:agreement)[ \t|]*$"));

/// "among", "by and among", "between": a cover page's opening of its parties.
static AMONG: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(?:among|between)\b"));

/// The cover page of the conformed copy an amendment attaches of the agreement it amends
/// ("Exhibit A / Conformed through the Second Amendment / CREDIT AGREEMENT / dated as of … /
/// among … / as Joint Lead Arrangers"): the first attachment, when it opens with an agreement's
/// title and its parties. It names the agreement's arrangers, bookrunners, syndication and
/// documentation agents, which the amendment itself often does not.
fn conformed_copy_cover(doc: &Document<'_>) -> Option<Range<usize>> {
    let start = doc.parts.body.end;
    if start >= doc.text.len() {
        return None;
    }
    let cover = cover_after(doc, start);
    let text = doc.slice(cover.clone());
    (AGREEMENT_TITLE_LINE.is_match(text) && AMONG.is_match(text)).then_some(cover)
}

static LENDER: LazyLock<Regex> = LazyLock::new(|| pattern(&format!(r"\b{}", capitalisable("lender"))));

static LENDER_TABLE_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t|]*(?P<lender>name[ \t]+of[ \t]+(?:original[ \t]+)?lender|lenders?)\b(?P<rest>.*)(?:commitment|percentage)",
    )
});

/// Lenders named in the rows of a commitment schedule.
fn lenders_from_schedules(doc: &Document<'_>, drafts: &mut Drafts) {
    let mut last_table_end = 0;
    for lender in LENDER.find_iter(doc.text) {
        if lender.start() < last_table_end {
            continue;
        }
        let Some(line) = super::text::line_around(doc.text, lender.start(), 300) else { continue };
        if let Some(schedule) = flattened_schedule(doc, line.clone()).or_else(|| row_schedule(doc, line.clone())) {
            last_table_end = schedule.end;
            // Only a name line that is one whole name ("Royal Bank of Canada", not "CDF").
            for lender in schedule.lenders {
                let label = doc.slice(lender.clone());
                if NAME.find(label).is_some_and(|m| m.start() == 0 && m.end() == label.len()) {
                    drafts.add(doc, lender, &[(PartyRole::Lender, line.clone())]);
                }
            }
            continue;
        }
        // A column of lender groups or of the lenders' agents ("Lender Group", "Lender Agent")
        // lists no lender.
        let header = LENDER_TABLE_HEADER.captures(doc.slice(line.clone()));
        if header.and_then(|h| h.name("rest")).is_none_or(|rest| roles::another_capacity_after(rest.as_str()).is_some())
        {
            continue;
        }
        let Some(table) = table_after(doc.text, line.start, |cell| MONEY_CELL.is_match(cell.trim())) else { continue };
        last_table_end = table.range.end;
        for row in &table.rows {
            let Some(first) = row.first() else { continue };
            let cell = doc.slice(first.clone());
            if contains_ci(cell, "total") {
                continue;
            }
            if let Some(name) = NAME.find(cell).filter(|m| m.start() == 0) {
                let span = first.start + name.start()..first.start + name.end();
                // The role is stated by the column the name is listed under.
                let role_span = table.header.as_ref().and_then(|h| h.first()).unwrap_or(first).clone();
                drafts.add(doc, span, &[(PartyRole::Lender, role_span)]);
            }
        }
    }
}

/// Gives each party the LEI stated right after its name. Invalid codes are reported, never used.
fn attach_leis(doc: &Document<'_>, parties: &mut [Party], mentions: &[Vec<Range<usize>>], report: &mut Report) {
    let keys: Vec<String> = parties.iter().map(|p| p.name.value().to_ascii_lowercase()).collect();
    for mention in &doc.leis {
        let window = super::text::before(doc.text, mention.span.start, 300);
        let lowered = doc.slice(window.clone()).to_ascii_lowercase();
        // The party named last before the code: by a recorded mention of its name, or by its name
        // appearing in the text just before.
        let by_text = keys
            .iter()
            .enumerate()
            .filter_map(|(i, key)| lowered.rfind(key.as_str()).map(|at| (i, window.start + at + key.len())));
        let by_mention = mentions.iter().enumerate().filter_map(|(i, spans)| {
            spans
                .iter()
                .filter(|s| window.start <= s.start && s.end <= mention.span.start)
                .map(|s| (i, s.end))
                .max_by_key(|(_, end)| *end)
        });
        let owner = by_text.chain(by_mention).max_by_key(|(_, end)| *end).map(|(i, _)| i);
        let code = doc.slice(mention.code.clone());
        let lei = match &mention.parsed {
            Ok(lei) => lei.clone(),
            Err(error) => {
                report.dropped(
                    "/parties/*/partyId",
                    code,
                    mention.code.clone(),
                    &format!("is not a valid LEI: {error}"),
                );
                continue;
            }
        };
        let Some(party) = owner.and_then(|i| parties.get_mut(i)) else {
            report.dropped("/parties/*/partyId", code, mention.code.clone(), "follows no named party");
            continue;
        };
        let Some(sourced) = doc.sourced(mention.code.clone(), lei) else { continue };
        match &party.party_id {
            None => party.party_id = Some(sourced),
            Some(existing) if existing.value() == sourced.value() => {}
            Some(existing) => {
                report.warnings.push(format!(
                    "conflict: {} is given two LEIs, {} and {}",
                    party.name.value(),
                    quoted(existing.quote(), existing.span().range()),
                    quoted(sourced.quote(), sourced.span().range()),
                ));
            }
        }
    }
}

/// Whether any party has `role`.
pub(crate) fn any_has_role(parties: &[Party], roles: &[PartyRole]) -> bool {
    parties.iter().any(|p| roles.iter().any(|&r| p.has_role(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parties(text: &str) -> (Vec<Party>, Report) {
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = extract(&doc, &mut report);
        (found, report)
    }

    fn summary(parties: &[Party]) -> Vec<(String, Vec<PartyRole>)> {
        parties.iter().map(|p| (p.name.value().clone(), distinct_roles(p))).collect()
    }

    const AMENDMENT: &str = "SECOND AMENDMENT TO CREDIT AGREEMENT\n\nThis SECOND AMENDMENT is entered into as of May 1, 2024, among ORCHARD FOODS CORP., a Delaware corporation (the \"Borrower\"), the Lenders party hereto and FIRST HARBOR BANK, N.A., as Administrative Agent.\n\nSection 1. The Credit Agreement is amended as set forth in Exhibit A.\n\nIN WITNESS WHEREOF, the parties have signed this Amendment.\n\nORCHARD FOODS CORP.\nBy: /s/ Ann Lee\n\n";

    #[test]
    fn without_a_preamble_a_role_term_defining_a_class_of_parties_is_given_to_no_name_before_it() {
        // A page header run into the opening keeps it from being read as a preamble.
        let text = "0042-7 v.3 LOAN AGREEMENT THIS LOAN AGREEMENT is made as of May 1, 2025 by and among ORCHARD FOODS CORP., a Delaware corporation (as \u{201c}Borrower\u{201d}), Ridge Credit Advisors LP and Ridge Health Advisors L.L.C. (collectively, the \u{201c}Ridge Representative\u{201d}) and each lender from time to time party hereto (each individually a \u{201c}Lender\u{201d}). WHEREAS, the Lenders have agreed to make term loans of $50,000,000 to the Borrower; WHEREAS, the Borrower will use the proceeds for general corporate purposes.\n";
        let (found, _) = parties(text);
        assert!(found.iter().all(|p| !p.has_role(PartyRole::Lender)), "{:?}", summary(&found));
        // A name the term follows directly is still given it.
        let named = text.replace("Ridge Credit Advisors LP and Ridge Health Advisors L.L.C. (collectively, the \u{201c}Ridge Representative\u{201d}) and each lender from time to time party hereto", "and GRANITE BANK, N.A.,");
        let (found, _) = parties(&named);
        assert!(
            found.iter().any(|p| p.has_role(PartyRole::Lender) && p.name.value() == "GRANITE BANK, N.A."),
            "{:?}",
            summary(&found)
        );
    }

    #[test]
    fn the_cover_of_an_attached_conformed_copy_names_the_agreements_arrangers() {
        let conformed = "EXHIBIT A\n\nConformed through the Second Amendment\n\nCREDIT AGREEMENT\ndated as of March 1, 2021\namong\nORCHARD FOODS CORP.,\nFIRST HARBOR BANK, N.A.,\nas Administrative Agent\n\nCEDAR CAPITAL MARKETS, LLC and\nPINE SECURITIES LLC,\nas Joint Lead Arrangers\n\nBIRCH BANK, N.A.,\nas Syndication Agent\n\nTABLE OF CONTENTS\n\nARTICLE I\n";
        let (found, _) = parties(&format!("{AMENDMENT}{conformed}"));
        let with =
            |role| found.iter().filter(|p| p.has_role(role)).map(|p| p.name.value().as_str()).collect::<Vec<_>>();
        assert_eq!(with(PartyRole::Arranger), ["CEDAR CAPITAL MARKETS, LLC", "PINE SECURITIES LLC"]);
        assert_eq!(with(PartyRole::SyndicationAgent), ["BIRCH BANK, N.A."]);
    }

    #[test]
    fn an_attachment_that_is_not_an_agreements_cover_names_no_arranger() {
        let form = "EXHIBIT A\n\nFORM OF ASSIGNMENT AND ASSUMPTION\n\nCEDAR CAPITAL MARKETS, LLC,\nas Lead Arranger\n";
        let (found, _) = parties(&format!("{AMENDMENT}{form}"));
        assert!(found.iter().all(|p| !p.has_role(PartyRole::Arranger)), "{:?}", summary(&found));
    }

    #[test]
    fn without_a_preamble_a_class_of_lenders_after_a_defined_name_gives_that_name_no_role() {
        let text = "Parties: ACME WIDGETS INC., a Delaware corporation (the \u{201c}Borrower Representative\u{201d}), the \
            lenders party hereto (the \u{201c}Lenders\u{201d}) and FIRST HARBOR BANK, N.A., as administrative agent (the \
            \u{201c}Agent\u{201d}).\n";
        let (found, _) = parties(text);
        assert!(found.iter().all(|p| !p.has_role(PartyRole::Lender)), "{:?}", summary(&found));
        let plain = "Parties: ACME WIDGETS INC., a Delaware corporation, as lender (the \u{201c}Lender\u{201d}).\n";
        let (found, _) = parties(plain);
        assert!(found.iter().any(|p| p.has_role(PartyRole::Lender)), "{:?}", summary(&found));
    }

    #[test]
    fn roles_each_followed_by_a_reference_to_their_definition_are_one_list() {
        let text = "SIXTH AMENDMENT TO CREDIT AGREEMENT, dated as of May 2, 2022 (this \"Amendment\"), among ORCHARD FOODS \
            CORP., a Delaware corporation (the \"Borrower\"), FIRST HARBOR BANK PLC, as Administrative Agent (as defined \
            below), Collateral Agent (as defined below) and Swingline Lender, and the Lenders party hereto.\n";
        let (found, _) = parties(text);
        let bank = found.iter().find(|p| p.name.value() == "FIRST HARBOR BANK PLC").expect("the bank");
        let roles = distinct_roles(bank);
        for role in [PartyRole::AdministrativeAgent, PartyRole::CollateralAgent, PartyRole::SwinglineLender] {
            assert!(roles.contains(&role), "{roles:?}");
        }
    }

    #[test]
    fn a_lead_administrative_agent_is_the_administrative_agent() {
        let text = "FIRST AMENDMENT TO CREDIT AGREEMENT (this \"Amendment\"), dated as of May 2, 2022, is entered into \
            among ORCHARD FOODS CORP. (the \"Borrower\"), the Lenders party hereto, and FIRST HARBOR BANK, N.A., as Lead \
            Administrative Agent (the \"Lead Administrative Agent\").\n";
        let (found, _) = parties(text);
        let bank = found.iter().find(|p| p.name.value() == "FIRST HARBOR BANK, N.A.").expect("the bank");
        assert!(bank.has_role(PartyRole::AdministrativeAgent), "{:?}", summary(&found));
    }

    #[test]
    fn a_us_preamble_names_borrower_and_agent_but_not_classes_of_lenders() {
        let text = "This CREDIT AGREEMENT is entered into as of March 15, 2024, among ACME HOLDINGS, INC., a Delaware corporation (the \"Borrower\"), the Guarantors party hereto, each lender from time to time party hereto (collectively, the \"Lenders\"), and JPMORGAN CHASE BANK, N.A., as Administrative Agent, Swing Line Lender and an L/C Issuer.";
        let (found, _) = parties(text);
        assert_eq!(
            summary(&found),
            [
                ("ACME HOLDINGS, INC.".to_owned(), vec![PartyRole::Borrower]),
                (
                    "JPMORGAN CHASE BANK, N.A.".to_owned(),
                    vec![PartyRole::AdministrativeAgent, PartyRole::SwinglineLender, PartyRole::IssuingBank]
                ),
            ]
        );
    }

    #[test]
    fn a_bank_a_bilateral_agreement_calls_the_bank_is_its_lender_but_an_account_bank_is_not() {
        let text = "This LOAN AND SECURITY AGREEMENT is entered into as of June 2, 2023 between CEDAR BANK (the \"Bank\") and ACME HOLDINGS, INC. (\"Borrower\"), and PINE TRUST COMPANY, as depositary (the \"Account Bank\").";
        let (found, _) = parties(text);
        assert_eq!(
            summary(&found),
            [
                ("ACME HOLDINGS, INC.".to_owned(), vec![PartyRole::Borrower]),
                ("CEDAR BANK".to_owned(), vec![PartyRole::Lender]),
            ]
        );
    }

    #[test]
    fn several_names_share_a_plural_role() {
        let text = "JPMORGAN CHASE BANK, N.A.\n\nand\n\nBOFA SECURITIES, INC.,\nas Joint Lead Arrangers and Joint Bookrunners\n";
        let (found, _) = parties(text);
        let names: Vec<String> = found.iter().map(|p| p.name.value().clone()).collect();
        assert_eq!(names, ["JPMORGAN CHASE BANK, N.A.", "BOFA SECURITIES, INC."]);
        assert!(found.iter().all(|p| p.has_role(PartyRole::Arranger) && p.has_role(PartyRole::Bookrunner)));
    }

    #[test]
    fn an_lma_party_list_reads_each_numbered_party() {
        let text = "THIS AGREEMENT is dated 15 March 2024 and made between:\n\n(1) BRITANNIA FOODS PLC (LEI: 549300BRITFOODS00020) as original borrower and original guarantor (the \"Company\");\n\n(2) BARCLAYS BANK PLC and HSBC BANK PLC as mandated lead arrangers (the \"Arrangers\");\n\n(3) LLOYDS BANK PLC as agent of the other Finance Parties (the \"Agent\").";
        let (found, report) = parties(text);
        assert_eq!(
            summary(&found),
            [
                ("BRITANNIA FOODS PLC".to_owned(), vec![PartyRole::Borrower, PartyRole::Guarantor]),
                ("BARCLAYS BANK PLC".to_owned(), vec![PartyRole::Arranger]),
                ("HSBC BANK PLC".to_owned(), vec![PartyRole::Arranger]),
                ("LLOYDS BANK PLC".to_owned(), vec![PartyRole::FacilityAgent]),
            ]
        );
        assert_eq!(found[0].party_id.as_ref().map(|l| l.value().to_string()).as_deref(), Some("549300BRITFOODS00020"));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn a_schedule_column_of_lender_groups_names_no_lender() {
        let schedule = |header: &str| {
            format!(
                "SCHEDULE 1\n\n{header}                    Commitment\nCEDAR BANK, N.A.                  $100,000,000\nPINE BANK, N.A.                    $50,000,000\n"
            )
        };
        let (found, _) = parties(&schedule("Lender Group"));
        assert!(found.is_empty(), "{:?}", summary(&found));
        let (found, _) = parties(&schedule("Lender"));
        assert_eq!(
            summary(&found),
            [
                ("CEDAR BANK, N.A.".to_owned(), vec![PartyRole::Lender]),
                ("PINE BANK, N.A.".to_owned(), vec![PartyRole::Lender])
            ]
        );
    }

    #[test]
    fn a_flattened_schedule_names_its_lenders_row_by_row() {
        let schedule = "SCHEDULE 2.01\nCOMMITMENTS\nLender\nCommitment\nApplicable Percentage\nCedar Bank, N.A.\n$60,000,000.00\n60.000000000%\n\nRMB\n$25,000,000\n25.000000000%\nPine Trust Company, New York Branch\n$10,000,000\n10.0%\nBirch Bank PLC\n$5,000,000\n5.0%\nTotal\n$100,000,000\n100%\n\nElm Bank, N.A.\n$1\n1%\n";
        let (found, _) = parties(schedule);
        // "RMB" is no whole name, and the line after the total is not a row.
        assert_eq!(
            summary(&found),
            [
                ("Cedar Bank, N.A.".to_owned(), vec![PartyRole::Lender]),
                ("Pine Trust Company, New York Branch".to_owned(), vec![PartyRole::Lender]),
                ("Birch Bank PLC".to_owned(), vec![PartyRole::Lender])
            ]
        );
        // A signature page's "Lender" caption, or rows with a figure missing, list no lender.
        for text in [
            "Lender\nBy: /s/ Ann Lee\nName: Ann Lee\nTitle: Director\nCedar Bank, N.A.\n$60,000,000\n",
            "Lender\nCommitment\nApplicable Percentage\nCedar Bank, N.A.\n$60,000,000\nBirch Bank PLC\n$5,000,000\n",
        ] {
            let (found, _) = parties(text);
            assert!(found.is_empty(), "{text}: {:?}", summary(&found));
        }
    }

    #[test]
    fn an_invalid_lei_is_reported_and_not_used() {
        let text = "Borrower: Zenith Logistics Corp. (LEI: 549300ZENITHLOG00076)\n";
        let (found, report) = parties(text);
        assert_eq!(summary(&found), [("Zenith Logistics Corp.".to_owned(), vec![PartyRole::Borrower])]);
        assert!(found[0].party_id.is_none());
        assert!(report.warnings[0].contains("549300ZENITHLOG00076"), "{:?}", report.warnings);
    }
}
