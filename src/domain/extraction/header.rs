//! Agreement-level facts: the title, the date the agreement is dated, its effective date, and
//! what an amending document amends. The governing law is `governing_law.rs`'s.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use time::Date;

use super::document::{Document, Report, agree};
use super::model::{Amendment, AmendmentType};
use super::number_words::parse_ordinal;
use super::sourced::Sourced;
use super::text::{capitalisable, contains_ci, pattern, slice, trim_range};

/// How far after the title the amendment details are looked for.
const FRONT_MATTER: usize = 24_000;
/// Titles longer than this are prose, not titles.
const MAX_TITLE: usize = 160;

static TITLE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:credit|facility|facilities|loan|revolving|term[ \t]+loan|bridge)[ \t]+(?:[a-z]+[ \t]+){0,3}?agreement|term[ \t]+sheet|summary[ \t]+of[ \t]+(?:principal[ \t]+|indicative[ \t]+)?terms(?:[ \t]+and[ \t]+conditions)?|amendment[ \t]+(?:and[ \t]+restatement[ \t]+)?agreement|amendment[ \t]+(?:no\.?|number)[ \t]*(?:[0-9]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)[ \t]+amendment)\b",
    )
});

/// Whether a line reads as a title: upper case (cover pages), or a few capitalised words with no
/// sentence punctuation. Prose lines that merely mention "this Credit Agreement" are not titles.
fn reads_as_title(line: &str) -> bool {
    let letters: Vec<char> = line.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() {
        return false;
    }
    let upper = letters.iter().filter(|c| c.is_uppercase()).count();
    if upper * 10 >= letters.len() * 9 {
        return true;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let capitalised = words.iter().all(|w| {
        w.chars().next().is_some_and(|c| !c.is_lowercase()) || matches!(*w, "of" | "and" | "to" | "the" | "for" | "in")
    });
    words.len() <= 12 && capitalised && !line.ends_with(['.', ',', ';', ':'])
}

/// The title: the first short line, anywhere in the text, that reads as a title and names a
/// credit instrument.
pub(crate) fn title(doc: &Document<'_>) -> Option<Sourced<String>> {
    // The title block before the preamble names this document; a title found later may be a
    // signature-page footer or an attached agreement's.
    // Only the document's own text is searched after that: an attached term sheet or form of note
    // has a title of its own.
    let front = doc.parts.front.clone();
    title_in(doc, front).or_else(|| title_in(doc, 0..doc.parts.body.end))
}

/// A numbered section heading ("1.6. Amendments to the Schedules of the Credit Agreement") is
/// the document's structure, not its title.
static SECTION_NUMBER: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[0-9]{1,2}(?:\.[0-9]{1,2})*\.?[ \t]"));

/// Lower-case words a line of prose ends with when its sentence runs on to the next line.
const RUNS_ON: &[&str] = &["of", "the", "to", "and", "or", "for", "in", "under", "with", "by"];

/// Whether the line starting at `line_start` continues the line directly above it: a heading
/// or sentence "… (Definitions) of the" whose last words wrap onto a line of their own
/// ("Credit Agreement") is not a title.
fn continues_the_line_above(text: &str, line_start: usize) -> bool {
    let above = slice(text, super::text::before(text, line_start, MAX_TITLE + 40));
    let Some(above) = above.strip_suffix('\n').map(|a| a.strip_suffix('\r').unwrap_or(a)) else { return false };
    let last_line = above.rsplit('\n').next().unwrap_or(above);
    last_line.split_whitespace().last().is_some_and(|word| RUNS_ON.contains(&word))
}

/// Whether a line is a running footer of the signature pages: "[Signature Page to Amendment No.
/// 4 to the Note]" names the document it is attached to, in brackets, on every page.
fn is_signature_page_footer(line: &str) -> bool {
    line.starts_with('[') || contains_ci(line, "signature page")
}

/// The first title line within `range`.
fn title_in(doc: &Document<'_>, range: std::ops::Range<usize>) -> Option<Sourced<String>> {
    for found in TITLE.find_iter(doc.slice(range.clone())) {
        let found = range.start + found.start()..range.start + found.end();
        let Some(line) = super::text::line_around(doc.text, found.start, MAX_TITLE + 40) else { continue };
        let range = trim_range(doc.text, line.clone());
        let candidate = doc.slice(range.clone());
        if candidate.len() > MAX_TITLE
            || !reads_as_title(candidate)
            || is_signature_page_footer(candidate)
            // "to the Credit Agreement" ends a heading that wrapped; a title starts with a capital.
            || candidate.starts_with(char::is_lowercase)
            || SECTION_NUMBER.is_match(candidate)
            || continues_the_line_above(doc.text, line.start)
        {
            continue;
        }
        let lower = candidate.to_ascii_lowercase();
        if ["dated", "among", "between", "this ", "the "].iter().any(|p| lower.starts_with(p)) {
            continue;
        }
        return doc.sourced(range, candidate.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    None
}

static DATED: LazyLock<Regex> = LazyLock::new(|| pattern(&format!(r"\b{}\b", capitalisable("dated"))));

static COVER_DATE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)^[ \t]*dated(?:[ \t]+as[ \t]+of)?[ \t]*:?[ \t]*"));

static THIS_AGREEMENT_DATED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"\b(?:THIS|This)[ \t\r\n]+(?:(?:[A-Z0-9][A-Za-z0-9.]*|to|and|of|TO|AND|OF|\(this[ \t]+["“][A-Za-z ]+["”]\)),?[ \t\r\n]+){1,10}(?:is[ \t\r\n]+)?(?i:dated|entered[ \t\r\n]+into|made)(?:[ \t\r\n]+(?i:as[ \t\r\n]+of|on))?[ \t\r\n]+(?:this[ \t\r\n]+)?"#,
    )
});

/// "dated as of", "entered into as of", "is made as of this", "dated effective as of": the verb
/// that dates the document in its preamble, up to where the date starts.
static PREAMBLE_DATED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:dated|entered[ \t\r\n]+into|made(?:[ \t\r\n]+and[ \t\r\n]+entered[ \t\r\n]+into)?|effective)(?:[ \t\r\n]+(?:effective[ \t\r\n]+as[ \t\r\n]+of|effective(?:ly)?|as[ \t\r\n]+of|on))?(?:[ \t]*:)?[ \t\r\n]+(?:this[ \t\r\n]+)?",
    )
});

/// "as of the date first set forth above": the preamble dates the document by its title block.
static DATE_ABOVE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bdate[ \t\r\n]+first[ \t\r\n]+(?:set[ \t\r\n]+forth|written|above)"));

/// "dated as of the Effective Date": the preamble dates the document by a defined date, given
/// by the term's definition or by a label ("Effective Date: March 5, 2020" on the signature page).
static DATED_BY_TERM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^the[ \t\r\n]+((?:Effective|Closing|Agreement)[ \t\r\n]+Date)\b"));

/// The dates that the definitions and labels of a defined date term give: "Effective Date" means
/// March 5, 2020; `Effective Date: March 5, 2020`. Two different days are a conflict [`agree`]
/// reports, and the document is then dated by neither.
fn defined_date(doc: &Document<'_>, term: &str) -> Vec<Sourced<Date>> {
    let key = super::text::normalise_label(term);
    let defined =
        doc.structure.definitions.iter().filter(|d| d.key == key).map(|d| first_date_in(doc, d.body.clone(), 60));
    let labelled =
        doc.structure.labels.iter().filter(|l| l.key == key).map(|l| first_date_in(doc, l.value.clone(), 40));
    defined.chain(labelled).flatten().collect()
}

/// A title-block line that dates the document: "Dated as of March 15, 2024", or "dated as of"
/// with the date on the lines below it.
static TITLE_BLOCK_DATED: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?im)^[ \t]*dated(?:[ \t]+(?:effective[ \t]+)?as[ \t]+of)?[ \t]*:?[ \t\r\n]*"));

/// The date the document is dated. With a preamble: the date its preamble states ("dated as of",
/// "entered into as of", "made as of this …"), and the date line of the title block above it
/// ("Dated as of …", or a line holding only a date when the preamble says "as of the date first
/// set forth above"); dates of other agreements named in it are not candidates. Without one:
/// cover-page "Dated as of", "This … Agreement is dated …", a `Date:` label, a definition of the
/// "Agreement Date", or — on a note's face — its "Issuance Date:" or its dateline. Either way,
/// when none of these dates it, the day its operative text says it is executed as of.
pub(crate) fn agreement_date(doc: &Document<'_>, report: &mut Report) -> Option<Sourced<Date>> {
    let mut candidates = match doc.parts.preamble.clone() {
        Some(preamble) => own_date(doc, preamble),
        None => stated_date(doc),
    };
    if candidates.is_empty() {
        candidates = execution_date(doc);
    }
    dedupe_spans(&mut candidates);
    agree("/agreementDate", candidates, report)
}

/// The dates a document with a preamble gives itself there and in its title block.
fn own_date(doc: &Document<'_>, preamble: Range<usize>) -> Vec<Sourced<Date>> {
    let mut candidates = Vec::new();
    let opening = preamble.start..super::text::floor_boundary(doc.text, preamble.start + 600).min(preamble.end);
    let opening_text = doc.slice(opening.clone());
    let mut refers_above = false;
    let others_dates = other_instruments_dates(opening_text);
    for found in PREAMBLE_DATED.find_iter(opening_text) {
        if others_dates.contains(&found.end()) {
            // "…, amending the loan agreement dated as of March 9, 2019": another's date.
            continue;
        }
        let at = opening.start + found.end();
        if let Some(date) = date_starting_at(doc, at) {
            candidates.push(date);
            break;
        }
        let after = doc.slice(at..super::text::floor_boundary(doc.text, at + 60));
        if DATE_ABOVE.is_match(after) {
            refers_above = true;
            break;
        }
        if let Some(term) = DATED_BY_TERM.captures(after).and_then(|c| c.get(1)) {
            candidates.extend(defined_date(doc, term.as_str()));
            break;
        }
    }
    let front = doc.parts.front.clone();
    for found in TITLE_BLOCK_DATED.find_iter(doc.slice(front.clone())) {
        if let Some(date) = date_starting_at(doc, front.start + found.end()) {
            candidates.push(date);
        }
    }
    if refers_above && candidates.is_empty() {
        // The line above the preamble that holds nothing but a date.
        let lines: Vec<Range<usize>> = super::text::lines_in(doc.text, front.clone()).collect();
        for line in lines.iter().rev().take(12) {
            let trimmed = trim_range(doc.text, line.clone());
            if let Some(date) = doc.dates_in(trimmed.clone()).first()
                && date.span == trimmed
            {
                candidates.extend(doc.sourced(date.span.clone(), date.date));
                break;
            }
        }
    }
    candidates
}

/// The dates a document without a preamble gives itself (see [`agreement_date`]).
fn stated_date(doc: &Document<'_>) -> Vec<Sourced<Date>> {
    let mut candidates = Vec::new();
    for dated in DATED.find_iter(doc.text) {
        // A cover-page date stands alone on its line; "dated as of" opening a wrapped line of prose
        // usually dates some other document.
        let Some(line) = super::text::line_around(doc.text, dated.start(), 120) else { continue };
        let Some(found) = COVER_DATE.find(doc.slice(line.clone())) else { continue };
        if let Some(date) = date_starting_at(doc, line.start + found.end()) {
            let rest_of_line = doc.text.get(date.span().end..).and_then(|rest| rest.split('\n').next()).unwrap_or("");
            if rest_of_line.trim().trim_end_matches(',').is_empty() {
                candidates.push(date);
            }
        }
    }
    for found in THIS_AGREEMENT_DATED.find_iter(doc.text) {
        if let Some(date) = date_starting_at(doc, found.end()) {
            candidates.push(date);
        }
    }
    for label in doc.structure.labels_where(|name| matches!(name, "date" | "dated" | "date of agreement")) {
        if let Some(date) = first_date_in(doc, label.value.clone(), 40) {
            candidates.push(date);
        }
    }
    // "\"Agreement Date\" shall mean December 15, 1995.": the document names its own date.
    for definition in doc.structure.definitions_where(|key| matches!(key, "agreement date" | "date of this agreement"))
    {
        if let Some(date) = date_starting_at(doc, definition.body.start) {
            candidates.push(date);
        }
    }
    let opening = doc.parts.opening(doc.text);
    for found in ISSUE_DATE_LABEL.find_iter(doc.slice(opening.clone())) {
        candidates.extend(date_starting_at(doc, opening.start + found.end()));
    }
    candidates.extend(note_dateline(doc, opening));
    candidates
}

/// The words that close a document by dating its execution: "IN WITNESS WHEREOF, the parties
/// have executed this Agreement as of", "Executed to be effective as of", "EXECUTED on" (up to
/// eight words between the verb and "as of").
static EXECUTED_AS_OF: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:executed|signed)(?:[ \t\r\n]+[a-z]+){0,8}?[ \t\r\n]+(?:as[ \t\r\n]+of|on)[ \t\r\n]+(?:this[ \t\r\n]+)?",
    )
});

/// The date the operative text says the document is executed as of, when nothing else dates it:
/// only in a sentence that opens the signature pages ([`super::parts::IN_WITNESS`]) or with the
/// verb itself ("Executed to be effective as of December 28, 2023."), whose subject is the
/// document. A recital that another instrument "was executed as of" a day dates that instrument,
/// not this one.
fn execution_date(doc: &Document<'_>) -> Vec<Sourced<Date>> {
    let body = doc.parts.body.clone();
    EXECUTED_AS_OF
        .find_iter(doc.slice(body.clone()))
        .filter(|found| {
            let at = body.start + found.start();
            let sentence = super::text::sentence_around(doc.text, at);
            let lead = doc.slice(sentence.start.min(at)..at).trim_start();
            lead.is_empty() || super::parts::IN_WITNESS.find(lead).is_some_and(|witness| witness.start() == 0)
        })
        .filter_map(|found| date_starting_at(doc, body.start + found.end()))
        .collect()
}

/// "Issuance Date: December 27, 2022" on a note's face, often sharing its line with the principal
/// amount: a note is dated the day it is issued.
static ISSUE_DATE_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:(?:original[ \t]+)?issu(?:anc)?e[ \t]+date|date[ \t]+of[ \t]+issu(?:anc)?e)[ \t]*:[ \t]*")
});

/// "$25,000,000.00      Chicago, Illinois      November 30, 1995": the line above a promissory
/// note's text that states its amount, where it was made and its date, and nothing else.
static NOTE_DATELINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?m)^[ \t]*(?:U\.?S\.?[ \t]?)?\$[ \t]*[0-9][0-9,]*(?:\.[0-9]{2})?[ \t|]{2,}[A-Z][A-Za-z.]*(?:[ \t][A-Z][A-Za-z.]*){0,3},[ \t]+[A-Z][A-Za-z.]*(?:[ \t][A-Z][A-Za-z.]*){0,2}[ \t|]{2,}",
    )
});

/// The date of a note's dateline in `opening`: the date must end its line.
fn note_dateline(doc: &Document<'_>, opening: Range<usize>) -> Option<Sourced<Date>> {
    NOTE_DATELINE.find_iter(doc.slice(opening.clone())).find_map(|found| {
        let date = date_starting_at(doc, opening.start + found.end())?;
        let rest_of_line = doc.text.get(date.span().end..)?.split('\n').next()?;
        rest_of_line.trim().is_empty().then_some(date)
    })
}

/// The date that starts at `pos` (after optional whitespace).
fn date_starting_at(doc: &Document<'_>, pos: usize) -> Option<Sourced<Date>> {
    let after = super::text::after(doc.text, pos, 48);
    let date = doc.dates_in(after).first()?;
    let gap = doc.slice(pos..date.span.start);
    gap.trim().is_empty().then(|| doc.sourced(date.span.clone(), date.date)).flatten()
}

/// The first date within `max` bytes of the start of `range`.
fn first_date_in(doc: &Document<'_>, range: Range<usize>, max: usize) -> Option<Sourced<Date>> {
    let limit = super::text::floor_boundary(doc.text, range.start.saturating_add(max)).min(range.end);
    let date = doc.dates_in(range.start..limit).first()?;
    doc.sourced(date.span.clone(), date.date)
}

fn dedupe_spans<T>(candidates: &mut Vec<Sourced<T>>) {
    candidates.sort_by_key(|c| (c.span().start, c.span().end));
    candidates.dedup_by(|a, b| a.span() == b.span());
}

static BECOMES_EFFECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:become|becomes|be|is|shall[ \t]+be)[ \t\r\n]+effective[ \t\r\n]+(?:as[ \t\r\n]+of|on)[ \t\r\n]+")
});

/// How strongly a definition or label names the date the agreement takes effect: an amendment's
/// or restatement's own effective date beats a generic "Effective Date", which beats "Closing
/// Date". Only the strongest kind stated is used, so an amendment's effective date is not set
/// against the closing date of the agreement it amends.
fn effective_rank(term: &str) -> Option<u8> {
    let lower = term;
    if lower.ends_with("effective date") && (lower.contains("amendment") || lower.contains("restatement")) {
        Some(3)
    } else if lower == "effective date" || lower == "signing date" {
        Some(2)
    } else if lower == "closing date" || lower == "funding date" {
        Some(1)
    } else {
        None
    }
}

/// An amendment's number in a title or a defined term: "Second Amendment", "Amendment No. 3",
/// "AMENDMENT NUMBER TWO", "3rd Amendment".
static AMENDMENT_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?P<ordinal>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|(?P<nth>[0-9]{1,2})(?:st|nd|rd|th))[ \t\r\n]+(?:[a-z]+[ \t\r\n]+){0,2}?amendment|amendment[ \t\r\n]+(?:no\.?|number|\#)[ \t\r\n]*(?P<number>[0-9]{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))\b",
    )
});

/// The number of the amendment `words` name, if they name a numbered one.
fn amendment_number(words: &str) -> Option<u32> {
    const CARDINALS: [&str; 12] =
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    let found = AMENDMENT_NUMBER.captures(words)?;
    if let Some(digits) = found
        .name("nth")
        .or_else(|| found.name("number").filter(|n| n.as_str().starts_with(|c: char| c.is_ascii_digit())))
    {
        return digits.as_str().parse().ok();
    }
    if let Some(ordinal) = found.name("ordinal") {
        return parse_ordinal(ordinal.as_str());
    }
    let word = found.name("number")?.as_str().to_ascii_lowercase();
    let position = CARDINALS.iter().position(|c| *c == word)?;
    u32::try_from(position + 1).ok()
}

/// The date a numbered amendment took effect ("First Amendment Effective Date") is this
/// document's effective date only when this document is that amendment: an amendment, or a
/// conformed copy, keeps the effective dates of the amendments before it among its definitions.
fn another_amendments_date(term: &str, own_number: Option<u32>) -> bool {
    amendment_number(term).is_some_and(|number| own_number != Some(number))
}

/// Words before "shall become effective" that make this document what becomes effective: "This
/// Amendment shall become effective as of …", not "(which amendment shall be effective as of …)"
/// about a change to another instrument.
static THIS_DOCUMENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:[Tt]his|THIS)[ \t\r\n]+(?:[A-Z][A-Za-z\-]*[ \t\r\n]+){0,6}?(?:Agreement|AGREEMENT|Amendment|AMENDMENT|Note|NOTE|Waiver|WAIVER|Supplement|SUPPLEMENT)\b",
    )
});

/// The effective date, from definitions or labels that state a calendar date (a loan and
/// security agreement may define its terms in an annex), or "this Agreement shall become
/// effective on …" in the document's own text (an attachment's dates are its own). A definition that names a condition rather than a date yields nothing, and the
/// effective date of another numbered amendment is left aside with a warning.
pub(crate) fn effective_date(doc: &Document<'_>, report: &mut Report) -> Option<Sourced<Date>> {
    let own_number = title(doc).and_then(|t| amendment_number(t.value()));
    let mut ranked: Vec<(u8, Sourced<Date>)> = Vec::new();
    let mut other_amendments: Vec<Sourced<Date>> = Vec::new();
    for definition in &doc.structure.definitions {
        let Some(rank) = effective_rank(&definition.key) else { continue };
        if let Some(date) = first_date_in(doc, definition.body.clone(), 60) {
            if another_amendments_date(&definition.key, own_number) {
                other_amendments.push(date);
            } else {
                ranked.push((rank, date));
            }
        }
    }
    for label in &doc.structure.labels {
        let Some(rank) = effective_rank(&label.key) else { continue };
        if let Some(date) = first_date_in(doc, label.value.clone(), 40) {
            if another_amendments_date(&label.key, own_number) {
                other_amendments.push(date);
            } else {
                ranked.push((rank, date));
            }
        }
    }
    for found in BECOMES_EFFECTIVE.find_iter(doc.text).filter(|f| doc.parts.in_body(f.start())) {
        let sentence = super::text::sentence_around(doc.text, found.start());
        if !THIS_DOCUMENT.is_match(doc.slice(sentence.start..found.start())) {
            continue;
        }
        if let Some(date) = date_starting_at(doc, found.end()) {
            ranked.push((2, date));
        }
    }
    // An amendment's effective date left aside still outranks the closing date of the agreement
    // amended: the amendment's own date is not stated, so none is.
    let set_aside_rank = if other_amendments.is_empty() { None } else { Some(3) };
    for date in other_amendments {
        report.dropped(
            "/effectiveDate",
            date.quote(),
            date.span().range(),
            "is the effective date of another amendment than this document",
        );
    }
    let best = ranked.iter().map(|(rank, _)| *rank).chain(set_aside_rank).max()?;
    let mut candidates: Vec<Sourced<Date>> = ranked.into_iter().filter(|(r, _)| *r == best).map(|(_, d)| d).collect();
    dedupe_spans(&mut candidates);
    agree("/effectiveDate", candidates, report)
}

/// Another credit agreement named with its date, up to where the date starts: "that certain Credit
/// Agreement dated as of", "amending the loan agreement dated", "replacing the credit agreement
/// dated" (an amendment's, or a refinancing's, earlier agreement); also "that certain Loan and
/// Security Agreement, dated as of", "the Second Amended, Restated and Consolidated Credit
/// Agreement, dated as of" and "amends the Credit Agreement (as amended …, the "Credit
/// Agreement") dated as of".
static AMENDED_AGREEMENT_DATED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:that[ \t\r\n]+certain|the[ \t\r\n]+existing|the[ \t\r\n]+original|to[ \t\r\n]+the|amends(?:[ \t\r\n]+and[ \t\r\n]+restates)?[ \t\r\n]+the|amending(?:[ \t\r\n]+and[ \t\r\n]+restating)?[ \t\r\n]+the|(?:replaces|replacing|refinances|refinancing)[ \t\r\n]+the)[ \t\r\n]+(?:[a-z]+,?[ \t\r\n]+){0,5}?(?:credit|facility|facilities|loan)(?:[ \t\r\n]+and[ \t\r\n]+(?:security|guaranty|guarantee))?[ \t\r\n]+agreement[ \t]*,?(?:[ \t\r\n]+\([^()]{1,200}\))?[ \t]*,?[ \t]+dated[ \t\r\n]+(?:as[ \t\r\n]+of[ \t\r\n]+)?",
    )
});

static AMENDMENT_KIND: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:amended[ \t\r\n]+and[ \t\r\n]+restated[ \t\r\n]+(?:[a-z]+[ \t\r\n]+){0,5}?(?:credit|facility|facilities|loan)(?:[ \t\r\n]+and[ \t\r\n]+(?:security|guaranty|guarantee))?[ \t\r\n]+agreement|amendment[ \t\r\n]+and[ \t\r\n]+restatement(?:[ \t\r\n]+agreement)?|amends[ \t\r\n]+and[ \t\r\n]+restates[ \t\r\n]+(?:the|that)|(?:first|second|third|fourth|fifth|incremental)[ \t\r\n]+amendment|amendment[ \t\r\n]+(?:no\.?|number|\#)[ \t]*[0-9]+|amendment[ \t\r\n]+agreement)\b",
    )
});

/// "This Agreement amends and restates the Existing Financing Agreement in its entirety".
static RESTATES_EXISTING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:this[ \t\r\n]+agreement|hereby)[ \t\r\n]+amends[ \t\r\n]+and[ \t\r\n]+restates\b[^.;]{0,200}?\bin[ \t\r\n]+(?:its|their)[ \t\r\n]+entirety\b",
    )
});

/// A reference to another instrument by its name and date: "that certain Convertible Promissory
/// Note (the "Note") dated April 5, 2021", "holds a Promissory Note of the Company dated November 1,
/// 2019", "the Securities Purchase Agreement, dated as of October 10, 2022".
static REFERENCE_DATED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:[Tt]hat[ \t\r\n]+certain|the|a|an)[ \t\r\n]+(?:(?:[A-Z0-9][\w&\-]*|and|of)[ \t\r\n]+){0,8}?(?:Agreement|AGREEMENT|Note|NOTE)\b(?P<between>[^;]{0,300}?)\bdated[ \t\r\n]+(?:as[ \t\r\n]+of[ \t\r\n]+)?",
    )
});

/// The date of the first instrument an amendment's opening refers to by name and date: drafting
/// names the instrument being amended first. Read only when no "credit agreement dated" statement
/// says it; a reference whose words in between speak of this document ("This Amendment …") is not
/// one.
fn first_referenced_date(doc: &Document<'_>, amended_kind: Option<&str>) -> Option<Sourced<Date>> {
    let opening = doc.parts.opening(doc.text);
    let start = opening.start;
    let region = doc.slice(opening);
    let found = references_dated(region).find(|c| {
        let names = c.get(0).zip(c.name("between")).map_or("", |(whole, b)| &region[whole.start()..b.start()]);
        let names = names.split_whitespace().collect::<Vec<_>>().join(" ");
        // "FIRST AMENDMENT TO CREDIT AGREEMENT": the Pledge Agreement it also refers to is not it.
        amended_kind.is_none_or(|kind| contains_ci(&names, kind))
    })?;
    date_starting_at(doc, start + found.get(0)?.end())
}

/// The references to another instrument by name and date in `region` ([`REFERENCE_DATED`]),
/// without those whose words in between speak of this document ("the Credit Agreement (this
/// "Amendment") is dated …").
fn references_dated(region: &str) -> impl Iterator<Item = regex::Captures<'_>> {
    REFERENCE_DATED.captures_iter(region).filter(|c| {
        let between = c.name("between").map_or("", |b| b.as_str()).to_ascii_lowercase();
        !between.split(|ch: char| !ch.is_alphabetic()).any(|w| matches!(w, "this" | "hereof" | "hereby"))
    })
}

/// Where, in `region`, the date of another instrument named before it starts: after "amending the
/// loan agreement dated as of" ([`AMENDED_AGREEMENT_DATED`]) or "that certain Note dated"
/// ([`references_dated`]).
fn other_instruments_dates(region: &str) -> Vec<usize> {
    AMENDED_AGREEMENT_DATED
        .find_iter(region)
        .map(|found| found.end())
        .chain(references_dated(region).filter_map(|c| c.get(0).map(|whole| whole.end())))
        .collect()
}

/// The kind of instrument a title says it amends: "FIRST AMENDMENT TO CREDIT AGREEMENT" →
/// "CREDIT AGREEMENT", "Amendment No. 4 to the Convertible Promissory Note" → "Convertible
/// Promissory Note".
fn amended_kind(title: &str) -> Option<String> {
    let words: Vec<&str> = title.split_whitespace().collect();
    let to = words.iter().rposition(|w| w.eq_ignore_ascii_case("to"))?;
    let mut kind = &words[to + 1..];
    if kind.first().is_some_and(|w| w.eq_ignore_ascii_case("the")) {
        kind = &kind[1..];
    }
    let last = kind.last()?.trim_end_matches(['.', ',']);
    let names_an_instrument = ["agreement", "note", "notes"].iter().any(|w| last.eq_ignore_ascii_case(w));
    names_an_instrument.then(|| kind.join(" ").trim_end_matches(['.', ',']).to_owned())
}

/// "WHEREAS, on May 28, 1998, the Company, … and the Agent entered into that certain Credit
/// Agreement …": a recital that states the day the amended agreement was signed before naming it.
static RECITAL_ON: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\bwhereas,?[ \t\r\n]+on[ \t\r\n]+"));

/// What follows the date of such a recital: its parties, then "entered into that certain …
/// Credit Agreement". No semicolon (the end of a recital) comes between.
static ENTERED_INTO_AGREEMENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^,[^;]{0,1500}?\bentered[ \t\r\n]+into[ \t\r\n]+(?:that[ \t\r\n]+certain|the|an?)[ \t\r\n]+(?P<instrument>(?:[a-z]+[ \t\r\n]+){0,6}?(?:credit|facility|facilities|loan)[ \t\r\n]+agreement)\b",
    )
});

/// The date of a recital saying the amended agreement was entered into on that date, read in the
/// preamble and recitals.
fn recited_execution_date(doc: &Document<'_>) -> Option<Sourced<Date>> {
    let opening = doc.parts.opening(doc.text);
    RECITAL_ON.find_iter(doc.slice(opening.clone())).find_map(|found| {
        let date = date_starting_at(doc, opening.start + found.end())?;
        let after = date.span().end..opening.end;
        let instrument = ENTERED_INTO_AGREEMENT.captures(doc.slice(after))?.name("instrument")?;
        // "entered into the First Amendment to Credit Agreement" dates an earlier amendment.
        (!contains_ci(instrument.as_str(), "amendment")).then_some(date)
    })
}

/// Amendment details when the document amends another agreement: the kind (from the heading's
/// `change` words — "AMENDMENT #4", "WAIVER", "EXTENSION AGREEMENT" —, the title or the operative
/// words) and the amended agreement's date: "… Credit Agreement dated …" (not an earlier amendment's
/// date named beside it) or a recital that the parties entered into it on a stated day.
pub(crate) fn amendment(
    doc: &Document<'_>,
    title: Option<&Sourced<String>>,
    change: Option<Range<usize>>,
    report: &mut Report,
) -> Option<Amendment> {
    let front_start = title.map_or(0, |t| t.span().start);
    let front_end = super::text::floor_boundary(doc.text, front_start.saturating_add(FRONT_MATTER));
    let front_text = slice(doc.text, front_start..front_end);
    // With a preamble, only the title and the preamble's opening say what this document is; a
    // table of contents listing "Exhibit G - Fourth Amendment" does not.
    let opening = doc
        .parts
        .preamble
        .as_ref()
        .map(|p| p.start..super::text::floor_boundary(doc.text, p.start.saturating_add(400)).min(p.end));
    let search = match &opening {
        Some(opening) => opening.clone(),
        None => front_start..front_end,
    };
    let kind_span = change
        .or_else(|| {
            title.and_then(|t| {
                AMENDMENT_KIND.find(t.quote()).map(|m| t.span().start + m.start()..t.span().start + m.end())
            })
        })
        .or_else(|| {
            AMENDMENT_KIND.find(doc.slice(search.clone())).map(|m| search.start + m.start()..search.start + m.end())
        })
        .or_else(|| {
            // A document titled as an original agreement that says, in its recitals, that it
            // amends and restates the existing one in its entirety is a restatement.
            let opening = doc.parts.opening(doc.text);
            RESTATES_EXISTING
                .find(doc.slice(opening.clone()))
                .map(|m| opening.start + m.start()..opening.start + m.end())
        })?;
    let restated = contains_ci(doc.slice(kind_span.clone()), "restate");
    let kind = if restated { AmendmentType::AmendmentAndRestatement } else { AmendmentType::Amendment };
    let amendment_type = doc.sourced(kind_span, kind)?;
    let mut dates = Vec::new();
    for found in AMENDED_AGREEMENT_DATED.find_iter(front_text) {
        // "(as amended by that certain First Amendment to Credit Agreement, dated …)" dates an
        // earlier amendment, not the agreement it amended.
        if contains_ci(found.as_str(), "amendment") {
            continue;
        }
        // "… as amended and restated by that certain Second Amended and Restated Revolving Credit
        // Agreement dated …" names an instrument that changed the agreement, not the agreement.
        if super::text::last_word(front_text.get(..found.start()).unwrap_or("")).eq_ignore_ascii_case("by") {
            continue;
        }
        dates.extend(date_starting_at(doc, front_start + found.end()));
    }
    dates.extend(recited_execution_date(doc));
    dedupe_spans(&mut dates);
    if dates.is_empty() {
        dates.extend(first_referenced_date(doc, title.and_then(|t| amended_kind(t.quote())).as_deref()));
    }
    let amended_agreement_date = agree("/amendment/amendedAgreementDate", dates, report);
    Some(Amendment { amendment_type, amended_agreement_date, changes: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Document<'_> {
        Document::scan(text)
    }

    #[test]
    fn the_title_is_the_first_short_line_naming_a_credit_instrument() {
        let text = "EXECUTION VERSION\n\n  $500,000,000 CREDIT AGREEMENT  \n\ndated as of March 15, 2024\n";
        let doc = scan(text);
        let title = title(&doc).expect("title");
        assert_eq!(title.value(), "$500,000,000 CREDIT AGREEMENT");
        assert_eq!(&text[title.span().range()], title.quote());
    }

    #[test]
    fn a_restated_loan_and_security_agreement_and_one_whose_recitals_restate_are_restatements() {
        let titled = "THIRD AMENDED AND RESTATED LOAN AND SECURITY AGREEMENT\n\nTHIS THIRD AMENDED AND RESTATED LOAN AND SECURITY AGREEMENT dated as of May 1, 2021 between RIVER BANK (\"Bank\") and ACME LABS, INC. (\"Borrower\") provides the terms on which Bank shall lend to Borrower. Conditions: delivery of the Second Amendment to the Pledge Agreement.\n";
        let doc = scan(titled);
        let found = amendment(&doc, title(&doc).as_ref(), None, &mut Report::default()).expect("restatement");
        assert_eq!(*found.amendment_type.value(), AmendmentType::AmendmentAndRestatement);
        let recited = "CREDIT AND SECURITY AGREEMENT\n\nThis Credit and Security Agreement is entered into as of June 2, 2021 by and between ACME LABS, INC. (\"Borrower\") and RIVER BANK (\"Lender\").\n\nRECITALS\n\n(a) Borrower and Lender are parties to the Existing Agreement dated as of March 1, 2019.\n\n(b) This Agreement amends and restates the Existing Agreement in its entirety.\n";
        let doc = scan(recited);
        let found = amendment(&doc, title(&doc).as_ref(), None, &mut Report::default()).expect("restatement");
        assert_eq!(*found.amendment_type.value(), AmendmentType::AmendmentAndRestatement);
        let original = "CREDIT AGREEMENT\n\nThis Credit Agreement is entered into as of June 2, 2021 between ACME LABS, INC. and RIVER BANK. The Borrower may amend and restate its charter.\n";
        let doc = scan(original);
        assert!(amendment(&doc, title(&doc).as_ref(), None, &mut Report::default()).is_none());
    }

    #[test]
    fn the_last_words_of_a_wrapped_heading_are_not_the_title() {
        let text = "AMENDMENT NUMBER FOUR, dated as of May 1, 1997, among GRIST MILLS INC. and the banks named herein.\n\n\
            1.1.  Changes to Section 1 (Definitions) of the\nLoan Agreement\n\n(a) Section 1.1 is amended.\n\n\
            1.2.  Changes to Section 5 (Covenants)\nto the Loan Agreement\n\n(a) Section 5.1 is amended.\n";
        assert_eq!(title(&scan(text)).map(|t| t.value().to_owned()), None);
        let numbered =
            text.replace("1.2.  Changes to Section 5 (Covenants)\nto the", "1.2.  Changes to the Schedules of the");
        assert_eq!(title(&scan(&numbered)).map(|t| t.value().to_owned()), None, "a numbered section heading");
        let titled = format!("AMENDMENT NUMBER FOUR\n\n{text}");
        assert_eq!(title(&scan(&titled)).map(|t| t.value().to_owned()).as_deref(), Some("AMENDMENT NUMBER FOUR"));
        let stacked = "THIRD AMENDED AND RESTATED\nLOAN AGREEMENT\n\ndated as of May 1, 1997\n";
        assert_eq!(title(&scan(stacked)).map(|t| t.value().to_owned()).as_deref(), Some("LOAN AGREEMENT"));
    }

    #[test]
    fn neither_a_signature_page_footer_nor_an_attachment_titles_the_document() {
        let text = "SUPPORT AGREEMENT\n\nThis Support Agreement, dated as of March 3, 2023, is by and among TERN CO. and \
            the holders named herein.\n\nIN WITNESS WHEREOF, the parties have signed.\n\nTERN CO.\nBy: /s/\n\n\
            [Signature Page to Amendment No. 2 to Loan Agreement]\n\nEXHIBIT A\n\nTerm Sheet\n\nAmount | $40,000,000\n";
        assert_eq!(title(&scan(text)).map(|t| t.value().to_owned()), None);
    }

    #[test]
    fn the_agreement_date_ignores_the_date_of_the_agreement_being_amended() {
        let text = "AMENDMENT NO. 2 TO CREDIT AGREEMENT\n\nDated as of June 3, 2024\n\nThis AMENDMENT NO. 2 TO CREDIT AGREEMENT, dated as of June 3, 2024, amends the Credit Agreement dated as of March 15, 2021.";
        let doc = scan(text);
        let mut report = Report::default();
        let date = agreement_date(&doc, &mut report).expect("date");
        assert_eq!(date.quote(), "June 3, 2024");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let amendment = amendment(&doc, title(&doc).as_ref(), None, &mut report).expect("amendment");
        assert_eq!(*amendment.amendment_type.value(), AmendmentType::Amendment);
        assert_eq!(amendment.amended_agreement_date.map(|d| d.quote().to_owned()).as_deref(), Some("March 15, 2021"));
    }

    #[test]
    fn the_effective_date_of_an_earlier_numbered_amendment_is_not_this_amendment_s() {
        let text = "THIRD AMENDMENT TO LOAN AGREEMENT\n\nThis THIRD AMENDMENT TO LOAN AGREEMENT is dated as of May 2, \
            2024, between RIVET CO. (the \"Borrower\") and KEEL BANK (the \"Lender\").\n\n\
            \"Second Amendment Effective Date\" means July 9, 2023.\n\n\
            \"Closing Date\" means March 1, 2021.\n";
        let doc = scan(text);
        let mut report = Report::default();
        let date = effective_date(&doc, &mut report);
        assert_eq!(date, None, "the amended agreement's closing date is not the amendment's either");
        assert!(report.warnings.iter().any(|w| w.contains("\"July 9, 2023\"")), "{:?}", report.warnings);
        let own = text.replace(
            "\"Second Amendment Effective Date\" means July 9, 2023",
            "\"Third Amendment Effective \
            Date\" means May 9, 2024",
        );
        let doc = scan(&own);
        let date = effective_date(&doc, &mut Report::default());
        assert_eq!(date.map(|d| d.quote().to_owned()).as_deref(), Some("May 9, 2024"), "its own amendment's date");
    }

    #[test]
    fn a_change_to_another_instrument_that_takes_effect_on_a_date_does_not_date_this_document() {
        let text = "CREDIT AGREEMENT dated as of April 2, 1996 among DUNE CORP. and the banks named herein.\n\n\
            Section 7.1. The Pledge Agreement is amended by replacing clause (b) (which amendment shall be effective as \
            of June 30, 1996) with the following.\n\n\
            Section 9.2. This Agreement shall become effective as of April 5, 1996.\n";
        let doc = scan(text);
        let date = effective_date(&doc, &mut Report::default());
        assert_eq!(date.map(|d| d.quote().to_owned()).as_deref(), Some("April 5, 1996"));
    }

    #[test]
    fn an_effective_date_defined_by_conditions_is_absent() {
        let text = "\"Closing Date\" means the date on which the conditions precedent in Section 4.01 are satisfied.\n";
        let doc = scan(text);
        let mut report = Report::default();
        assert_eq!(effective_date(&doc, &mut report), None);
        let text = "AMENDMENT NO. 2 TO CREDIT AGREEMENT\n\n\"Amendment No. 2 Effective Date\" means June 3, 2024.\n\n\
            \"Closing Date\" means March 15, 2021.\n";
        let doc = scan(text);
        assert_eq!(effective_date(&doc, &mut report).map(|d| d.quote().to_owned()).as_deref(), Some("June 3, 2024"));
        // Without a title saying which amendment this is, the numbered amendment's date may be another's.
        let untitled = text.replace("AMENDMENT NO. 2 TO CREDIT AGREEMENT\n\n", "");
        assert_eq!(effective_date(&scan(&untitled), &mut report), None, "nor is the amended agreement's closing date");
    }

    #[test]
    fn the_date_above_the_preamble_dates_a_document_dated_as_of_the_date_first_set_forth_above() {
        let text = "AMENDMENT NO. 1\n\nDecember 29, 2022\n\nTHIS AMENDMENT NO. 1 (this \u{201c}Amendment\u{201d}), dated as of the date first set forth above, is entered into among ACME BRANDS, INC. (the \u{201c}Borrower\u{201d}) and FIRST BANK, N.A., as administrative agent.\n\nWHEREAS, the parties are party to the Loan Agreement, dated as of March 2, 2018.\n";
        let doc = scan(text);
        let mut report = Report::default();
        assert_eq!(
            agreement_date(&doc, &mut report).map(|d| d.quote().to_owned()).as_deref(),
            Some("December 29, 2022")
        );
        assert_eq!(title(&doc).map(|t| t.value().clone()).as_deref(), Some("AMENDMENT NO. 1"));
    }

    #[test]
    fn an_attached_conformed_copy_does_not_date_the_amendment() {
        let text = "This AMENDMENT NO. 3, dated as of January 3, 2023, is among ACME OP, LLC (the \"Borrower\") and FIRST BANK, N.A., as Administrative Agent.\n\nIN WITNESS WHEREOF, the parties have signed.\n\nEXHIBIT A\n\nAMENDED AND RESTATED CREDIT AGREEMENT\n\nDated as of February 27, 2020\n\nThis AMENDED AND RESTATED CREDIT AGREEMENT is dated as of February 27, 2020, among ACME OP, LLC and FIRST BANK, N.A.\n";
        let doc = scan(text);
        let mut report = Report::default();
        assert_eq!(agreement_date(&doc, &mut report).map(|d| d.quote().to_owned()).as_deref(), Some("January 3, 2023"));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn the_amended_agreement_is_read_through_its_longer_names_and_defining_parenthetical_but_not_its_amenders() {
        let amended = |text: &str| {
            let doc = scan(text);
            let found = amendment(&doc, title(&doc).as_ref(), None, &mut Report::default()).expect("amendment");
            found.amended_agreement_date.map(|d| d.value().to_string())
        };
        let security = "AMENDMENT NO. 3 TO LOAN AND SECURITY AGREEMENT\n\nThis AMENDMENT NO. 3 (this \"Amendment\") is \
            dated as of May 5, 2022. WHEREAS, Fern Outfitters, Inc. and Lakeside Capital LLC are parties to that certain \
            Loan and Security Agreement, dated as of August 2, 2018;\n";
        assert_eq!(amended(security), Some("2018-08-02".to_owned()));
        let defined = "THIRD AMENDMENT TO CREDIT AGREEMENT\n\nTHIS THIRD AMENDMENT (this \"Amendment\"), dated as of \
            June 3, 2021, amends the Credit Agreement (as amended or supplemented before the date hereof, the \"Credit \
            Agreement\") dated as of January 15, 2019 among Tern Corp. and the Lenders.\n";
        assert_eq!(amended(defined), Some("2019-01-15".to_owned()));
        let restated = "THIS FOURTH AMENDED AND RESTATED CREDIT AGREEMENT dated as of the 2nd day of July, 1997 (the \
            \"Agreement\"), between Dune Corp. and Shore Bank, amends and restates in its entirety that certain Credit \
            Agreement dated as of April 1, 1990 between Borrower and the Bank as amended and restated by that certain \
            Third Amended and Restated Revolving Credit Agreement dated as of May 5, 1996 between Borrower and the Bank.\n";
        assert_eq!(amended(restated), Some("1990-04-01".to_owned()));
        // The amendment's own date line under its title names no earlier agreement.
        let dated_title = "AMENDMENT NO. 2 TO THE CREDIT AGREEMENT\nDated as of March 3, 2016\n\nAMENDMENT NO. 2 TO THE CREDIT \
            AGREEMENT among Reed Co. and the banks party to the Credit Agreement referred to below.\n";
        assert_eq!(amended(dated_title), None);
    }

    #[test]
    fn an_amendment_names_the_date_of_the_instrument_it_refers_to_first() {
        let note = "AMENDMENT NO. 3 TO PROMISSORY NOTE\n\nThis AMENDMENT NO. 3 TO PROMISSORY NOTE (this \"Amendment\") is dated as of May 5, 2022, by and among Ridge Co., a Delaware corporation (the \"Company\") and Vale LLC (\"Noteholder\").\n\nWHEREAS, Noteholder holds a Promissory Note of the Company dated June 1, 2020, which has been amended by Amendment No. 1 to Promissory Note dated as of March 3, 2021;\n";
        let doc = scan(note);
        let mut report = Report::default();
        let found = amendment(&doc, title(&doc).as_ref(), None, &mut report).expect("amendment");
        assert_eq!(found.amended_agreement_date.map(|d| d.value().to_string()), Some("2020-06-01".to_owned()));
        let loan = "FIRST AMENDMENT TO SECOND AMENDED AND RESTATED LOAN AGREEMENT\n\nReference is made to that certain Second Amended and Restated Loan Agreement executed by Peak Corp., a Utah corporation (\"Borrower\") and Summit Inc., a Utah corporation (\"Lender\") dated August 9, 2019. This First Amendment is made as of this 1st day of March, 2022.";
        let doc = scan(loan);
        let found = amendment(&doc, title(&doc).as_ref(), None, &mut report).expect("amendment");
        assert_eq!(found.amended_agreement_date.map(|d| d.value().to_string()), Some("2019-08-09".to_owned()));
    }

    #[test]
    fn a_preamble_that_names_another_agreement_s_date_first_does_not_date_this_one_by_it() {
        let text = "LOAN AGREEMENT\n\nTHIS LOAN AGREEMENT, replacing the credit agreement dated as of March 9, 2019, is \
            between TERN CO. (the \"Borrower\") and ELM BANK (the \"Lender\").\n\n1. The Loan.";
        assert_eq!(agreement_date(&scan(text), &mut Report::default()), None);
        let text = "LOAN AGREEMENT\n\nTHIS LOAN AGREEMENT, replacing the credit agreement dated as of March 9, 2019, is \
            dated as of May 2, 2023 between TERN CO. (the \"Borrower\") and ELM BANK (the \"Lender\").\n\n1. The Loan.";
        let date = agreement_date(&scan(text), &mut Report::default()).map(|d| d.value().to_string());
        assert_eq!(date, Some("2023-05-02".to_owned()));
    }

    #[test]
    fn a_document_made_as_of_this_nth_day_is_dated_that_day() {
        let text = "FIRST AMENDMENT TO LOAN AGREEMENT\n\nReference is made to that certain Loan Agreement dated May 1, 2019. This First Amendment to Loan Agreement is made as of this 31st day of December, 2022 and amends the Loan Agreement.";
        let doc = scan(text);
        let date = agreement_date(&doc, &mut Report::default()).map(|d| d.value().to_string());
        assert_eq!(date, Some("2022-12-31".to_owned()));
    }

    #[test]
    fn the_date_of_an_earlier_amendment_named_beside_the_amended_agreement_is_not_its_date() {
        let text = "THIRD AMENDMENT TO CREDIT AGREEMENT\n\nThis THIRD AMENDMENT TO CREDIT AGREEMENT (this \"Amendment\"), dated as of May 1, 2023, is among PINE CO., a Delaware corporation (the \"Borrower\"), and FIRST BANK, N.A., as Administrative Agent.\n\nReference is made to that certain Credit Agreement dated as of June 1, 2019 (as amended by that certain Second Amendment to Credit Agreement, dated as of June 1, 2021, the \"Credit Agreement\").\n";
        let doc = scan(text);
        let mut report = Report::default();
        let found = amendment(&doc, title(&doc).as_ref(), None, &mut report).expect("amendment");
        assert_eq!(found.amended_agreement_date.map(|d| d.value().to_string()), Some("2019-06-01".to_owned()));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn a_recital_that_the_parties_entered_into_the_restated_agreement_on_a_day_dates_it() {
        let text = "AMENDED AND RESTATED CREDIT AGREEMENT dated as of March 1, 2005 among ALPHA CORP., a Delaware corporation (the \"Company\"), the banks party hereto (the \"Banks\") and FIRST BANK, N.A., as Administrative Agent.\n\nWHEREAS, on April 2, 2001, the Company, the banks named therein and First Bank, N.A., as agent, entered into that certain Credit Agreement (the \"Original Agreement\");\n\nWHEREAS, the Company wishes to amend and restate the Original Agreement;\n";
        let doc = scan(text);
        let mut report = Report::default();
        let found = amendment(&doc, title(&doc).as_ref(), None, &mut report).expect("amendment");
        assert_eq!(found.amended_agreement_date.map(|d| d.value().to_string()), Some("2001-04-02".to_owned()));
        for other in ["signed a merger agreement", "entered into that certain First Amendment to Credit Agreement"] {
            let unrelated = text.replace("entered into that certain Credit Agreement", other);
            let doc = scan(&unrelated);
            let found = amendment(&doc, title(&doc).as_ref(), None, &mut report).expect("amendment");
            assert_eq!(found.amended_agreement_date, None, "{other}");
        }
    }

    #[test]
    fn a_document_that_states_no_date_elsewhere_is_dated_by_the_day_it_says_it_is_executed_as_of() {
        let date_of = |text: &str| agreement_date(&scan(text), &mut Report::default()).map(|d| d.value().to_string());
        let closing = "LOAN AGREEMENT\n\nThe undersigned, Pine Hollow Holdings, Inc. (the \"Borrower\"), has asked Ridge Bank \
            (the \"Lender\") to lend it $4,000,000.\n\n1. Repayment. The Borrower shall repay the Loan.\n\n\
            Executed to be effective as of March 6, 2024.\n\nPINE HOLLOW HOLDINGS, INC.\nBy: ________\n";
        assert_eq!(date_of(closing), Some("2024-03-06".to_owned()));
        let witness = "LOAN AGREEMENT\n\n1. Repayment. The Borrower shall repay the Loan.\n\nIN WITNESS WHEREOF, the parties \
            have executed this Agreement as of July 9, 2021.\n\nRIDGE BANK\nBy: ________\n";
        assert_eq!(date_of(witness), Some("2021-07-09".to_owned()));
        // Another instrument said to be executed on a day is not this document.
        let recital = "LOAN AGREEMENT\n\n1. Existing Note. The Borrower's existing note, which was executed as of May 2, \
            2019, is cancelled.\n\nIN WITNESS WHEREOF, the parties have executed this Agreement as of the date first \
            written above.\n";
        assert_eq!(date_of(recital), None);
    }

    #[test]
    fn a_document_without_a_preamble_is_dated_by_its_agreement_date_issue_date_or_note_dateline() {
        let date_of = |text: &str| agreement_date(&scan(text), &mut Report::default()).map(|d| d.value().to_string());
        let defined = "TERM LOAN AGREEMENT\n\nARTICLE 1 - Definitions.\n\n    \"Agreement Date\" shall mean March 3, 1997.\n\n    \"Bank\" shall mean First Bank, N.A.\n";
        assert_eq!(date_of(defined), Some("1997-03-03".to_owned()));
        let issued = "Harbor Foods Co.\n\nSenior Secured Promissory Note\n\nPrincipal Amount: $400,000 Issue Date: April 4, 2023\n\nFOR VALUE RECEIVED, Harbor Foods Co. promises to pay to the order of Quay LLC (\"Holder\") the Principal Amount.\n";
        assert_eq!(date_of(issued), Some("2023-04-04".to_owned()));
        let dateline = "REVOLVING NOTE\n\n$10,000,000.00        Denver, Colorado        June 2, 1994\n\n     FOR VALUE RECEIVED, the undersigned promises to pay to the order of First Bank (\"Bank\") the principal sum of Ten Million Dollars.\n";
        assert_eq!(date_of(dateline), Some("1994-06-02".to_owned()));
        let prose = "REVOLVING NOTE\n\n$10,000,000.00 shall be repaid on June 2, 1994 and on each date thereafter.\n";
        assert_eq!(date_of(prose), None);
        let schedule_row = "REPAYMENT SCHEDULE\n\n$2,500,000.00        June 30, 1995\n";
        assert_eq!(date_of(schedule_row), None);
    }

    #[test]
    fn an_amendment_is_not_dated_by_another_kind_of_instrument_it_refers_to() {
        let text = "FIRST AMENDMENT TO LOAN AGREEMENT\n\nThis FIRST AMENDMENT TO LOAN AGREEMENT is entered into \
            among ACME HOLDINGS, INC., as the Borrower, and FIRST BANK, N.A., as Lender.\n\nReference is made to \
            the Pledge Agreement dated April 9, 2021 and to the Loan Agreement (the \"Agreement\") dated May 1, 2020 \
            between the Borrower and the Lender.\n";
        let doc = scan(text);
        let title = title(&doc);
        let found = amendment(&doc, title.as_ref(), None, &mut Report::default()).expect("an amendment");
        assert_eq!(found.amended_agreement_date.map(|d| d.value().to_string()), Some("2020-05-01".to_owned()));
        assert_eq!(
            amended_kind("Amendment No. 4 to the Convertible Promissory Note").as_deref(),
            Some("Convertible Promissory Note")
        );
        assert_eq!(amended_kind("WAIVER"), None);
    }
    #[test]
    fn a_preamble_dated_as_of_a_defined_date_is_dated_by_that_terms_definition_or_label() {
        let date_of = |text: &str| agreement_date(&scan(text), &mut Report::default()).map(|d| d.value().to_string());
        let preamble = "LOAN AND SECURITY AGREEMENT\n\nTHIS LOAN AND SECURITY AGREEMENT (this \"Agreement\") dated as of \
            the Effective Date between CEDAR BANK (\"Bank\") and WREN TOOLS, INC. (\"Borrower\") provides the terms on \
            which Bank shall lend to Borrower.\n\n1 LOAN. Bank shall lend.\n\n";
        let labelled =
            format!("{preamble}BORROWER:\n\nWREN TOOLS, INC.\n\nBy: /s/ Ann Lee\n\nEffective Date: August 14, 2020\n");
        assert_eq!(date_of(&labelled), Some("2020-08-14".to_owned()));
        let defined =
            format!("{preamble}13 DEFINITIONS\n\n\"Effective Date\" is October 2, 2019.\n\n\"Bank\" is Cedar Bank.\n");
        assert_eq!(date_of(&defined), Some("2019-10-02".to_owned()));
        // A term defined by an event states no day; two different days state none either.
        let event = format!(
            "{preamble}13 DEFINITIONS\n\n\"Effective Date\" means the date on which the conditions in Section 3.1 are satisfied.\n"
        );
        assert_eq!(date_of(&event), None);
        let conflicting = format!("{labelled}\n13 DEFINITIONS\n\n\"Effective Date\" is October 2, 2019.\n");
        let mut report = Report::default();
        assert_eq!(agreement_date(&scan(&conflicting), &mut report), None);
        assert!(
            !report.conflicted_fields.is_empty(),
            "two days are a conflict the warnings say: {:?}",
            report.warnings
        );
    }
    #[test]
    fn a_preamble_made_effective_as_of_a_day_or_dated_as_of_with_a_colon_is_dated_by_it() {
        let date_of = |text: &str| agreement_date(&scan(text), &mut Report::default()).map(|d| d.value().to_string());
        let made_effective = "TERM LOAN AGREEMENT\n\nTHIS TERM LOAN AGREEMENT (this \"Agreement\") is made effective as of \
            June 9, 2022 by and between WREN TOOLS, INC. (the \"Borrower\") and CEDAR BANK (the \"Lender\").\n";
        assert_eq!(date_of(made_effective), Some("2022-06-09".to_owned()));
        let colon = "TERM LOAN AGREEMENT\n\nTHIS TERM LOAN AGREEMENT, dated as of: June 9, 2022 (this \"Agreement\"), is \
            by and between WREN TOOLS, INC. (the \"Borrower\") and CEDAR BANK (the \"Lender\").\n";
        assert_eq!(date_of(colon), Some("2022-06-09".to_owned()));
    }
}
