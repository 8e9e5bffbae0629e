//! The attachments that describe the borrower's other debt: a schedule of existing indebtedness,
//! of permitted debt, of outstanding notes or of the borrower's capitalization lists loans and
//! securities that are not the facility this document makes available. Their rates, margins,
//! amounts and maturities are those instruments' terms, never the facility's, however closely a
//! sentence there reads like a pricing clause ("… bear interest at Term SOFR plus 2.50% …").
//!
//! An attachment is known by its heading line ("SCHEDULE 7.03", "Exhibit B – Existing Notes") and
//! by its caption, on the same line or on the next lines. Only a caption written as a caption
//! counts (short, every word capitalised but the small joining words), so that a hard-wrapped
//! sentence of the body that starts with "Schedule 7.03 lists the …" opens nothing.
//!
//! The body describes other debt too, in two ways a lawyer reads past when looking for the
//! facility's terms:
//! - a **section** captioned as debt ("Section 7.01 Indebtedness", "Section 5.12 Existing
//!   Indebtedness", "Limitation on Debt"): the covenant that limits the borrower's borrowing
//!   elsewhere, or the representation listing what it owes, names others' rates and amounts;
//! - a **statement** whose subject is another instrument ("the Borrower's existing subordinated
//!   notes bear interest at …", "… repay the loans under the Existing Credit Agreement, which bear
//!   interest at …", "the Seller Note shall bear interest at …"): from the words naming the other
//!   debt to the end of their clause (a semicolon or a colon ends it: what a colon introduces is
//!   a list or a grid of its own), at most a few lines on, or to the next debt the sentence names
//!   (which may be the facility again: "… and shall be subordinated to the Term Loan"), and the
//!   body of a definition whose term is other debt ("Existing Indebtedness" means …).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::domain::extraction::parties::roles::{ONE_ROLE, is_role_term};
use crate::domain::extraction::text::{Structure, floor_boundary, lines_in, pattern, sentence_around, slice};

/// A line that opens an attachment: its kind, its designation ("B", "7.03(a)", "A-1", "II") and
/// whatever follows on the line.
static ATTACHMENT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?m)^[ \t]*(?:EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|SCHEDULE|Schedule|ATTACHMENT|Attachment)[ \t]+(?P<designation>[0-9]{1,2}(?:\.[0-9]{1,2}){0,2}(?:\([a-z0-9]{1,3}\))?|[A-Z]{1,2}(?:-[0-9]{1,2})?|[IVX]{1,5})\.?(?P<rest>[^\r\n]*)$",
    )
});

/// What may stand between a designation and a caption on the same line: "SCHEDULE 7.03 – Existing
/// Indebtedness", "Schedule B: Existing Notes".
const CAPTION_SEPARATORS: &[char] = &['-', '–', '—', ':', '|', '.', ' ', '\t'];

/// The longest caption line read.
const MAX_CAPTION: usize = 100;
/// How many lines after the heading a caption is looked for (a blank line may stand between).
const CAPTION_LINES: usize = 4;
/// The longest an attachment is read for: a schedule of debt is a few pages, and a longer reach
/// would run over whatever the filing attaches after it without a heading.
const MAX_ATTACHMENT: usize = 40_000;

/// The words a caption may keep in lower case.
const JOINING_WORDS: &[&str] = &["and", "or", "of", "the", "to", "for", "in", "on", "under", "by", "with", "a", "an"];

/// A caption naming other debt: a qualifier that places the debt outside this facility
/// ("existing", "outstanding", "permitted") before a kind of debt, a caption that is the debt
/// itself ("Indebtedness", "Debt and Liens"), or the borrower's capitalization (its outstanding
/// securities).
static OTHER_DEBT_CAPTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:existing|outstanding|permitted|prior|other|surviving|continuing|refinanced)\b(?:[ \t]+[\w’'\-]+){0,3}?[ \t]+(?:indebtedness|debt|notes?|loans?|securities|bonds|debentures|borrowings?|credit[ \t]+facilities|obligations)\b|^[ \t]*(?:indebtedness|debt|capitali[sz]ation)\b",
    )
});

/// A section caption that is debt and nothing else: "Indebtedness", "Existing Indebtedness",
/// "Limitation on Debt", "Indebtedness and Preferred Stock" (not "Debt Service Coverage Ratio", a
/// covenant of this facility's).
static SECTION_CAPTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^(?:(?:limitations?|restrictions?)[ \t]+on[ \t]+)?(?:(?:existing|permitted|other|subordinated)[ \t]+)?(?:indebtedness|debt)(?:[ \t]*(?:;|,|and)[ \t]*(?:liens|guarant(?:ees|ies)|contingent[ \t]+obligations|preferred[ \t]+stock|disqualified[ \t]+stock))?[ \t]*$",
    )
});

/// A section heading line: its number and the caption after it, up to the caption's full stop.
static SECTION_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"^[ \t]*(?:SECTION|Section)?[ \t]*[0-9]{1,2}(?:\.[0-9]{1,2}){0,2}\.?[ \t]+(?P<caption>[^.\r\n]{1,80})")
});

/// The longest a section about other debt is read for, when no later heading closes it.
const MAX_SECTION: usize = 20_000;

/// Every section of `text` captioned as debt, from its heading to the next heading.
pub(super) fn other_debt_sections(text: &str, structure: &Structure) -> Vec<Range<usize>> {
    structure
        .headings
        .iter()
        .filter_map(|&start| {
            let line_end = text.get(start..).and_then(|rest| rest.find('\n')).map_or(text.len(), |at| start + at);
            let found = SECTION_HEADING.captures(slice(text, start..line_end))?;
            let caption = found.name("caption")?.as_str().trim();
            if !SECTION_CAPTION.is_match(caption) || !is_caption(caption) {
                return None;
            }
            let limit = floor_boundary(text, start.saturating_add(MAX_SECTION));
            Some(start..structure.next_heading_after(line_end).unwrap_or(text.len()).min(limit))
        })
        .collect()
}

/// Words naming another instrument than the facility: a qualifier placing the debt outside it
/// ("existing", "prior", "refinanced", "predecessor") a few words before a kind of debt, "other
/// indebtedness", an instrument a credit facility is not ("Senior Notes", "Subordinated Debt",
/// "Convertible Notes", "Seller Note") or a defined term for the debt being refinanced ("Existing
/// Credit Agreement", "Existing Term Loans"). The `existing` group marks the words that, in an
/// amendment, name the agreement it amends and its facilities (this document's own terms there).
static OTHER_DEBT_MENTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?P<existing>\b(?i:existing|prior|refinanced|predecessor)(?:[ \t\r\n]+[A-Za-z\-]+){0,2}?[ \t\r\n]+(?i:indebtedness|debt|notes?|loans?|advances?|credit[ \t\r\n]+(?:agreements?|facilit(?:y|ies))|facilit(?:y|ies)|bonds|debentures|borrowings|lines?[ \t\r\n]+of[ \t\r\n]+credit)\b)|\b(?i:other)[ \t\r\n]+(?i:indebtedness|debt)\b|\b(?:Senior|Subordinated|Convertible|Exchangeable|Seller|Mezzanine)[ \t\r\n]+(?:(?:Secured|Unsecured|Subordinated|Promissory)[ \t\r\n]+)?(?:Notes?|Debentures|Bonds|Debt|Indebtedness)\b|\b(?i:loans?|notes?|indebtedness|debt|credit[ \t\r\n]+facilit(?:y|ies)|lines?[ \t\r\n]+of[ \t\r\n]+credit)[ \t\r\n]+(?i:from|owed[ \t\r\n]+to|payable[ \t\r\n]+to)[ \t\r\n]+(?:the[ \t\r\n]+)?(?P<creditor>[A-Z][A-Za-z0-9&'.\-]*(?:[ \t\r\n]+(?:of[ \t\r\n]+)?[A-Z][A-Za-z0-9&'.\-]*){0,5})",
    )
});

/// The longest a statement about other debt is read for after the words naming it: a rate or
/// an amount of that debt follows them closely ("… notes bear interest at …"), and a sentence
/// that runs on (a definition, a grid introduced by it) is about something else by then.
const MAX_STATEMENT: usize = 250;

/// Where a statement about other debt ends: a kind of debt named after it (the sentence turns to
/// another instrument, maybe the facility).
static NEXT_DEBT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:loans?|advances?|notes?|facilit(?:y|ies)|commitments?|obligations|borrowings?|indebtedness|debt)\b",
    )
});

/// Every statement of `text` about other debt (see the module's documentation), and the body of
/// every definition whose term is other debt ("Existing Indebtedness" means the Borrower's term
/// loan from …, which bears interest at …); each with whether its words may name, in an
/// amendment, the agreement being amended or its facilities.
pub(super) fn other_debt_statements(text: &str, structure: &Structure) -> Vec<(Range<usize>, bool)> {
    let definitions = structure.definitions.iter().filter_map(|definition| {
        let term = slice(text, definition.term.clone());
        let found = OTHER_DEBT_MENTION.captures(term)?;
        let whole = found.get(0)?;
        (whole.start() == 0 && whole.end() == term.len())
            .then(|| (definition.body.clone(), found.name("existing").is_some()))
    });
    let statements = OTHER_DEBT_MENTION.captures_iter(text).filter_map(|found| {
        // "loans from the Lenders", "advances owed to Bank": the facility's own creditor.
        if found.name("creditor").is_some_and(|creditor| names_this_facilitys_creditor(creditor.as_str())) {
            return None;
        }
        let mention = found.get(0)?;
        let clause_end = sentence_around(text, mention.start())
            .end
            .min(floor_boundary(text, mention.end().saturating_add(MAX_STATEMENT)));
        let clause_end =
            slice(text, mention.end()..clause_end).find([';', ':']).map_or(clause_end, |at| mention.end() + at);
        let end = NEXT_DEBT
            .find(slice(text, mention.end()..clause_end))
            .map_or(clause_end, |next| mention.end() + next.start());
        Some((mention.start()..end, found.name("existing").is_some()))
    });
    statements.chain(definitions).collect()
}

/// Words naming a class of the facility's creditors that is not a role: "Secured Parties",
/// "Holders", "Credit Parties".
static CREDITOR_CLASS: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(?:secured|holders?|credit)\b"));

/// Whether the creditor a debt is "from" or "owed to" is this facility's: a role or a role word
/// ("Lenders", "Bank", "Administrative Agent") or a class of its creditors ("Secured Parties"),
/// rather than another lender's name.
fn names_this_facilitys_creditor(creditor: &str) -> bool {
    let phrase = creditor.split_whitespace().collect::<Vec<_>>().join(" ");
    is_role_term(&phrase) || ONE_ROLE.is_match(&phrase) || CREDITOR_CLASS.is_match(&phrase)
}

/// Every attachment of `text` whose caption names debt other than the facility, from its heading
/// to the next attachment of another designation (a running "Schedule 7.03 (continued)" heading
/// stays in it), at most [`MAX_ATTACHMENT`] bytes on.
pub(super) fn other_debt_attachments(text: &str) -> Vec<Range<usize>> {
    let headings: Vec<(usize, &str, Option<&str>)> = ATTACHMENT_LINE
        .captures_iter(text)
        .filter_map(|found| {
            let whole = found.get(0)?;
            let designation = found.name("designation")?.as_str();
            let rest = found.name("rest").map_or("", |r| r.as_str());
            let caption = caption(text, rest, whole.end())?;
            Some((whole.start(), designation, caption))
        })
        .collect();
    let mut found = Vec::new();
    for (index, &(start, designation, caption)) in headings.iter().enumerate() {
        if !caption.is_some_and(|c| OTHER_DEBT_CAPTION.is_match(c)) {
            continue;
        }
        if index > 0 && headings.get(index - 1).is_some_and(|&(_, previous, _)| previous == designation) {
            // A running heading of an attachment already found.
            continue;
        }
        let next_other = headings.iter().skip(index + 1).find(|&&(_, d, _)| d != designation).map(|&(at, _, _)| at);
        let limit = floor_boundary(text, start.saturating_add(MAX_ATTACHMENT));
        found.push(start..next_other.unwrap_or(text.len()).min(limit));
    }
    found
}

/// The caption of an attachment whose heading line ends at `line_end` with `rest` after its
/// designation: `rest` itself when it reads as a caption, else the first non-blank line within
/// [`CAPTION_LINES`] when that one does. `None` when `rest` is not a caption but words of a
/// sentence (the line is then no heading at all); `Some(None)` when the heading has no caption.
fn caption<'t>(text: &'t str, rest: &'t str, line_end: usize) -> Option<Option<&'t str>> {
    let same_line = rest.trim_start_matches(CAPTION_SEPARATORS).trim_end();
    if !same_line.is_empty() {
        return is_caption(same_line).then_some(Some(same_line));
    }
    let window = line_end..floor_boundary(text, line_end.saturating_add(CAPTION_LINES * (MAX_CAPTION + 2)));
    let next =
        lines_in(text, window).take(CAPTION_LINES).map(|line| slice(text, line).trim()).find(|line| !line.is_empty());
    Some(next.filter(|line| is_caption(line)))
}

/// Whether a line reads as a caption: short, and every word capitalised but the joining words.
fn is_caption(line: &str) -> bool {
    line.len() <= MAX_CAPTION
        && line.split_whitespace().all(|word| {
            let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
            bare.chars().next().is_none_or(|c| !c.is_lowercase()) || JOINING_WORDS.contains(&bare)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(text: &str, needle: &str) -> bool {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle} is in the text"));
        other_debt_attachments(text).iter().any(|r| r.contains(&at))
    }

    #[test]
    fn a_schedule_captioned_on_its_own_line_as_existing_debt_describes_other_debt() {
        let text = "Section 2.05. The Loan bears interest as the Note provides.\n\nSCHEDULE C\n\n\
            PRIOR BORROWINGS and LIENS\n\nIn 2021 the Borrower issued $40 million of notes due 2031, which bear \
            interest at Term SOFR plus 295 basis points.\n\nSCHEDULE D\n\nINSURANCE\n\nThe Borrower keeps \
            property insurance of $2,000,000.\n";
        assert!(covered(text, "295 basis points"));
        assert!(!covered(text, "$2,000,000"), "the next schedule is about something else");
        assert!(!covered(text, "as the Note provides"), "the body is not an attachment");
    }

    #[test]
    fn a_schedule_of_permitted_or_outstanding_debt_captioned_on_its_heading_line_is_found() {
        let text = "ARTICLE VII\n\nSchedule 7.02 – Permitted Indebtedness\n\n1. Equipment loan of $3,500,000 \
            maturing 2027 at 6.10%.\n\nExhibit B: Form of Revolving Note\n\nThe Borrower promises to pay $25,000,000.\n";
        assert!(covered(text, "$3,500,000"));
        assert!(!covered(text, "$25,000,000"), "a form of this facility's note describes this facility");
        let text = "ANNEX II Outstanding Debt Securities\n\n7.25% debentures of $12,000,000 due 2035.\n";
        assert!(covered(text, "7.25%"));
    }

    #[test]
    fn a_running_heading_of_the_same_schedule_keeps_it_open() {
        let text = "SCHEDULE 6.01\nEXISTING INDEBTEDNESS\n\nTerm loan of $9,000,000.\n\nSCHEDULE 6.01\n(continued)\n\n\
            Mortgage note of $1,500,000 at LIBOR plus 2.00%.\n\nSCHEDULE 6.02\nCOMMITMENTS\n\nFirst Bank $50,000,000\n";
        assert!(covered(text, "LIBOR plus 2.00%"));
        assert!(!covered(text, "$50,000,000"), "the lenders' commitments are this facility's");
    }

    #[test]
    fn a_wrapped_sentence_that_starts_with_a_schedule_number_opens_no_attachment() {
        let text = "the Borrower may incur the Indebtedness listed in\nSchedule 7.03 and other indebtedness not \
            exceeding\n$5,000,000, and the Revolving Loans bear interest at LIBOR plus 1.75%.\n";
        assert!(!covered(text, "1.75%"));
    }

    #[test]
    fn schedules_of_this_facilitys_terms_describe_no_other_debt() {
        let text = "SCHEDULE 1.01\n\nPRICING GRID\n\nLevel I 1.25%\n\nSCHEDULE 2.01\n\nCommitments and Applicable \
            Percentages\n\nFirst Bank $50,000,000\n";
        assert!(other_debt_attachments(text).is_empty());
    }
}
