//! The parts of a document, read the way a lawyer reads one: the title block (cover page and
//! table of contents) before the preamble; the preamble, the one sentence that says what this
//! document is, when it is dated and who its parties are; the body; and what is attached after
//! the signature pages (exhibits, schedules, an attached conformed copy of the agreement an
//! amendment amends).
//!
//! Parties, the document's own date and its own governing law are read from these parts only: a
//! bank named as the agent of another facility in a negative covenant, a law firm named in a
//! condition precedent, or the New York law clause of an attached form of note say nothing about
//! this document.
//!
//! Found in one pass over the line starts; each candidate line is examined within a bounded
//! window, so the work stays linear in the text.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::text::{ceil_boundary, floor_boundary, lines_in, pattern, slice};

/// The parts of a document found in its text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Parts {
    /// The preamble: the opening sentence naming the document, its date and its parties, with an
    /// LMA-style numbered list of parties that follows it.
    pub preamble: Option<Range<usize>>,
    /// Everything before the preamble: cover page, title block, table of contents.
    pub front: Range<usize>,
    /// The operative text: from the preamble to the first attachment after the signature pages
    /// (to the end when nothing is attached, or when there is no preamble).
    pub body: Range<usize>,
}

/// How far into a paragraph the opening words of a preamble are looked for.
const OPENING: usize = 700;
/// The longest a preamble paragraph is read for.
const MAX_PREAMBLE: usize = 6000;
/// How far past the preamble's start its recitals are read.
const RECITALS: usize = 6000;
/// How much of a document without a preamble is its opening.
const OPENING_WITHOUT_PREAMBLE: usize = 3000;
/// The most numbered party paragraphs an LMA preamble is extended over.
const MAX_PARTY_PARAGRAPHS: usize = 30;

/// "THIS AMENDMENT NO. 1 …", "This Credit Agreement …".
static OPENS_WITH_THIS: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[ \t]*(?:THIS|This)[ \t\r\n]+"));

/// "CREDIT AGREEMENT, dated as of …", "AMENDMENT NO. 1 dated as of …", "AMENDMENT NUMBER TWO,
/// dated as of …", "AMENDMENT NO. 1 TO CREDIT AGREEMENT (this "Amendment"), dated as of …",
/// "CONSENT TO CREDIT AGREEMENT (AMENDMENT NO. 7 TO CREDIT AGREEMENT) (this "Agreement"), dated …"
/// (a second title in parentheses): the title opening the sentence, as 1990s filings and many
/// amendments write their preambles.
static OPENS_WITH_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:[A-Z0-9$][A-Z0-9$,.&'’()\-]*[ \t\r\n]+){0,14}?(?:AGREEMENT|AMENDMENT(?:[ \t]+(?:NO\.|NUMBER|\#)[ \t]*[0-9A-Z]+)?)(?:[ \t\r\n]*\([A-Z0-9][A-Z0-9 .,&'’\-]{0,80}\))?(?:[ \t\r\n]*\((?:this|the)[ \t\r\n]+[^()]{1,40}\))?[ \t]*,?[ \t\r\n]+(?:is[ \t\r\n]+)?(?:dated|made|entered)\b",
    )
});

/// "364-Day Credit Agreement dated as of …", "Term Loan Agreement, dated as of …": the title in
/// title case opening the sentence, its words capitalised (or joining words), up to the document
/// noun and the verb that dates or makes it.
static OPENS_WITH_TITLE_CASE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:(?:[A-Z0-9$][A-Za-z0-9$,.&'’()\-]*|to|of|and|the|for)[ \t\r\n]+){0,14}?(?:Agreement|Amendment(?:[ \t]+(?:No\.|Number|\#)[ \t]*[0-9A-Za-z]+)?)(?:[ \t\r\n]*\((?:this|the)[ \t\r\n]+[^()]{1,40}\))?[ \t]*,?[ \t\r\n]+(?:is[ \t\r\n]+)?(?:dated|made|entered)\b",
    )
});

/// "AMENDMENT NO. 1 TO THE CREDIT AGREEMENT among …", "CREDIT AGREEMENT, by and between …".
static OPENS_WITH_TITLE_AND_PARTIES: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:[A-Z0-9$][A-Z0-9$,.&'’()\-]*[ \t\r\n]+){0,14}?(?:AGREEMENT|AMENDMENT(?:[ \t]+(?:NO\.|NUMBER|\#)[ \t]*[0-9A-Z]+)?)[ \t]*,?[ \t\r\n]+(?:by[ \t\r\n]+and[ \t\r\n]+)?(?:among|between)\b",
    )
});

/// A term defined in a parenthetical: `("TBC")`, `(the “Agent”)`.
static QUOTED_DEFINITION: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"\([^()"“”]{0,40}["“][A-Z][^"“”]{0,40}["”][ \t]*\)"#));

/// The nouns that name a document of the kinds the engine reads.
static DOCUMENT_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:AGREEMENT|Agreement|AMENDMENT|Amendment|WAIVER|Waiver|SUPPLEMENT|Supplement|EXTENSION|Extension|NOTE|Note)\b",
    )
});

/// The verbs of a preamble: the document is dated, made or entered into.
static PREAMBLE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:dated|entered[ \t\r\n]+into|made|is[ \t\r\n]+(?:among|between|by|effective|entered))\b")
});

/// The words that introduce the parties.
static PARTY_LIST: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:among|between|by[ \t\r\n]+and[ \t\r\n]+among|by[ \t\r\n]+and[ \t\r\n]+between|made[ \t\r\n]+by)\b",
    )
});

/// A numbered party of an LMA party list: "(1) BRITANNIA FOODS PLC …", or its number alone on a
/// line with the party's paragraph after it, as a text copy of a two-column list prints it.
static NUMBERED_PARTY: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^[ \t]*\([0-9]{1,2}\)(?:[ \t]+\S|[ \t]*\r?\n[ \t\r\n]*[A-Z])"));

/// A lettered party of a US preamble's list: "(a) ACME FUND SPV LLC, a Delaware limited liability
/// company …", "(b) the Lenders party hereto".
static LETTERED_PARTY: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[ \t]*\([a-z]\)[ \t]+\S"));

/// A number standing alone on its line: "(2)".
static NUMBER_ALONE: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[ \t]*\([0-9]{1,2}\)[ \t]*$"));

/// "THIS AGREEMENT is made on 6 October 2021:", "This Agreement is dated 1 March 2024:": an LMA
/// opening that dates the document and ends in a colon before its numbered list of parties.
static DATED_BEFORE_PARTY_LIST: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:THIS|This)[ \t]+(?:[A-Z][A-Za-z\-]*[ \t]+){0,6}?(?:AGREEMENT|Agreement)[ \t]+is[ \t]+(?:made|dated)[ \t]+(?:on[ \t]+)?[0-9]{1,2}(?:st|nd|rd|th)?[ \t]+[A-Z][a-z]+[ \t]+[0-9]{4}[ \t]*:[ \t]*$",
    )
});

/// The signature pages begin: "IN WITNESS WHEREOF", "IN WITNESS OF WHICH", "AS EVIDENCE of the
/// agreement by the parties hereto …".
pub(crate) static IN_WITNESS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\bIN[ \t\r\n]+WITNESS[ \t\r\n]+(?:WHEREOF|OF[ \t\r\n]+WHICH)\b|\bAS[ \t\r\n]+EVIDENCE[ \t\r\n]+(?i:of[ \t\r\n]+the[ \t\r\n]+agreement)\b",
    )
});

/// A line that opens an attachment: "EXHIBIT A", "Exhibit 10.1"'s own heading excluded by
/// requiring a letter or number designation and nothing else on the line but a short caption.
static ATTACHMENT_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|SCHEDULE|Schedule|ATTACHMENT|Attachment)[ \t]+[A-Z0-9][A-Za-z0-9.\-]{0,8}\b",
    )
});

impl Parts {
    /// Finds the parts of `text`.
    pub(crate) fn find(text: &str) -> Self {
        let Some(preamble) = find_preamble(text) else {
            return Parts { preamble: None, front: 0..0, body: 0..text.len() };
        };
        let attachments = find_attachments(text, preamble.end);
        let body_end = attachments.unwrap_or(text.len());
        Parts { front: 0..preamble.start, body: preamble.start..body_end, preamble: Some(preamble) }
    }

    /// The opening where a document says what it is, whom it binds and what it refers to: the
    /// preamble and the recitals after it, or — without a preamble — the first lines ("FOR VALUE
    /// RECEIVED, …", "Reference is made to that certain …").
    pub(crate) fn opening(&self, text: &str) -> Range<usize> {
        match &self.preamble {
            Some(preamble) => {
                preamble.start..floor_boundary(text, preamble.start.saturating_add(RECITALS)).min(self.body.end)
            }
            None => 0..floor_boundary(text, OPENING_WITHOUT_PREAMBLE),
        }
    }

    /// The signature pages: from the testimonium ("IN WITNESS WHEREOF, …") after the preamble to
    /// the first attachment. `None` when the document has no testimonium.
    pub(crate) fn signature_pages(&self, text: &str) -> Option<Range<usize>> {
        let after = self.preamble.as_ref().map_or(0, |p| p.end);
        let witness = IN_WITNESS.find_at(text, after)?;
        (witness.start() < self.body.end).then(|| witness.start()..self.body.end)
    }

    /// Whether `pos` lies in the document's own text (not in an attachment).
    pub(crate) fn in_body(&self, pos: usize) -> bool {
        self.body.contains(&pos)
    }
}

/// The first paragraph that reads as a preamble, extended over a numbered list of parties. A
/// paragraph that only opens with the title and its parties ("AMENDMENT NO. 1 TO THE CREDIT
/// AGREEMENT among …", its date in the title block above) is the preamble when no paragraph
/// says the document is dated, made or entered into.
fn find_preamble(text: &str) -> Option<Range<usize>> {
    find_preamble_opening(text, opens_preamble).or_else(|| find_preamble_opening(text, opens_with_title_and_parties))
}

fn find_preamble_opening(text: &str, opens: fn(&str) -> bool) -> Option<Range<usize>> {
    let mut previous: Range<usize> = 0..0;
    for line in lines_in(text, 0..text.len()) {
        let content = slice(text, line.clone());
        let stripped = content.trim_start();
        let indent = content.len() - stripped.len();
        let first = stripped.as_bytes().first().copied();
        let previous_line = slice(text, previous.clone()).trim();
        let previous_short = previous_line.len() <= 8;
        let starts_paragraph = line.start == 0 || previous_short || indent >= 3 || is_whole_title(previous_line);
        previous = line.clone();
        if !first.is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) || !starts_paragraph {
            continue;
        }
        let head_end = paragraph_end(text, line.start, OPENING);
        let head = slice(text, line.start..head_end);
        // A title may open with a figure when it is written in title case ("364-Day Credit
        // Agreement dated as of …"), or in capitals run on into its verb on one line ("364-DAY
        // CREDIT AGREEMENT dated as of May 1, 2020 among …"); a figure opening capitals set over
        // lines is as often a cover's block.
        let title_runs_on = OPENS_WITH_TITLE.find(head).is_some_and(|title| !title.as_str().contains('\n'));
        let figure_allowed = OPENS_WITH_TITLE_CASE.is_match(head) || title_runs_on;
        let numbered_list_follows = || {
            next_paragraph_start(text, paragraph_end(text, line.start, MAX_PREAMBLE))
                .is_some_and(|next| NUMBERED_PARTY.is_match(slice(text, next..floor_boundary(text, next + 40))))
        };
        if first.is_some_and(|b| b.is_ascii_digit()) && !figure_allowed
            || !(opens(head) || DATED_BEFORE_PARTY_LIST.is_match(head) && numbered_list_follows())
        {
            continue;
        }
        let mut end = recitals_cut(text, line.start, paragraph_end(text, line.start, MAX_PREAMBLE));
        // A US preamble that ends in a colon ("is entered into by and among:") may list its
        // parties in lettered paragraphs: "(a) ACME FUND SPV LLC, … (the "Borrower");".
        let lettered = slice(text, line.start..end).trim_end().ends_with(':');
        // An LMA preamble lists its parties in numbered paragraphs after "made between:".
        for _ in 0..MAX_PARTY_PARAGRAPHS {
            let next = next_paragraph_start(text, end);
            let Some(next) = next else { break };
            let opening = slice(text, next..floor_boundary(text, next + 40));
            if !(NUMBERED_PARTY.is_match(opening) || lettered && LETTERED_PARTY.is_match(opening)) {
                break;
            }
            end = paragraph_end(text, next, MAX_PREAMBLE);
            // A number alone on its line: the party is the paragraph after it.
            if NUMBER_ALONE.is_match(slice(text, next..end))
                && let Some(party) = next_paragraph_start(text, end)
            {
                end = paragraph_end(text, party, MAX_PREAMBLE);
            }
        }
        return Some(line.start..end);
    }
    None
}

/// "The parties agree as follows:", "the parties hereto hereby agree as follows:": the words that
/// close a preamble sentence and open the agreement's terms.
static AGREE_AS_FOLLOWS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bagrees?[ \t\r\n]+as[ \t\r\n]+follows[ \t]*[:.]"));

/// A line that only heads the recitals: "RECITALS", "Recitals.", "R E C I T A L S",
/// "W I T N E S S E T H:", "PRELIMINARY STATEMENTS", "BACKGROUND". Where a preamble ends, and
/// where the recitals the provisions set aside begin.
pub(crate) static RECITALS_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?m)^[ \t]*(?:RECITALS|Recitals|R[ \t]E[ \t]C[ \t]I[ \t]T[ \t]A[ \t]L[ \t]S|W[ \t]*I[ \t]*T[ \t]*N[ \t]*E[ \t]*S[ \t]*S[ \t]*E[ \t]*T[ \t]*H|Witnesseth|PRELIMINARY[ \t]+STATEMENTS?|Preliminary[ \t]+Statements?|BACKGROUND|Background)[ \t]*[.:]?[ \t]*\r?$",
    )
});

/// The end of a preamble paragraph that runs on, with no blank line, into what follows it (a text
/// copy that keeps only line breaks): the preamble ends where it says the parties "agree as
/// follows", or before a line that heads the recitals. The recitals tell of other agreements and
/// their parties ("Gold Hill, in its capacity as Administrative Agent, … entered into that certain
/// Loan and Security Agreement"), who are not this document's parties in those capacities.
fn recitals_cut(text: &str, start: usize, end: usize) -> usize {
    let paragraph = slice(text, start..end);
    // Only after the words that introduce the parties: the cut never leaves a preamble without them.
    let Some(parties) = PARTY_LIST.find(paragraph) else { return end };
    let rest = &paragraph[parties.end()..];
    let heading = RECITALS_HEADING.find(rest).map(|m| m.start());
    let agreed = AGREE_AS_FOLLOWS.find(rest).map(|m| m.end());
    match heading.into_iter().chain(agreed).min() {
        Some(cut) => {
            let cut = start + parties.end() + cut;
            start + slice(text, start..cut).trim_end().len()
        }
        None => end,
    }
}

/// Whether `line` is a title in capitals that ends in its document noun ("SECOND AMENDMENT TO
/// CREDIT AGREEMENT"): the title is complete, so the next line opens a paragraph even without a
/// blank line between (a title wrapped over lines, "… AMENDED, RESTATED", is not complete).
fn is_whole_title(line: &str) -> bool {
    // "(AMENDMENT NO. 7 TO CREDIT AGREEMENT)": a second title, set in parentheses under the first.
    let line = line.strip_prefix('(').and_then(|l| l.strip_suffix(')')).unwrap_or(line);
    let capitals = line.chars().any(char::is_alphabetic) && !line.chars().any(char::is_lowercase);
    let last_word = line.rsplit(char::is_whitespace).next().unwrap_or("");
    capitals && DOCUMENT_NOUN.find(last_word).is_some_and(|noun| noun.range() == (0..last_word.len()))
}

/// Whether a paragraph's opening reads as a preamble: "THIS <title> … dated / entered into …
/// among …", or "<TITLE>, dated as of … among …".
fn opens_preamble(head: &str) -> bool {
    let Some(verb) = PREAMBLE_VERB.find(head) else { return false };
    if !PARTY_LIST.is_match(head) {
        return false;
    }
    if let Some(this) = OPENS_WITH_THIS.find(head) {
        // The subject is the document's title: capitalised words up to the verb or a parenthesis,
        // and it names a document ("This Note is the Note referred to in …" is not a preamble).
        let subject_end = head
            .get(this.end()..verb.start())
            .and_then(|s| s.find(['(', ',']))
            .map_or(verb.start(), |i| this.end() + i);
        let subject = head.get(this.end()..subject_end).unwrap_or("");
        let title_words = subject.split_whitespace().all(|word| {
            word.chars().next().is_some_and(|c| !c.is_lowercase())
                || matches!(word, "to" | "and" | "of" | "the" | "for" | "on" | "is")
        });
        return title_words && DOCUMENT_NOUN.is_match(subject);
    }
    OPENS_WITH_TITLE.is_match(head) || OPENS_WITH_TITLE_CASE.is_match(head)
}

/// "CREDIT AGREEMENT among ACME CORP., a Delaware corporation ("Acme"), …": the title followed by
/// its parties, defined in the sentence (a cover page's "CREDIT AGREEMENT among ACME CORP. and
/// FIRST BANK" defines no one).
fn opens_with_title_and_parties(head: &str) -> bool {
    OPENS_WITH_TITLE_AND_PARTIES.is_match(head) && QUOTED_DEFINITION.is_match(head)
}

/// The end of the paragraph starting at `start`: the next blank line, at most `max` bytes on.
fn paragraph_end(text: &str, start: usize, max: usize) -> usize {
    let limit = floor_boundary(text, start.saturating_add(max));
    let window = slice(text, start..limit);
    let bytes = window.as_bytes();
    let mut i = 0;
    while let Some(offset) = window.get(i..).and_then(|w| w.find('\n')) {
        let at = i + offset;
        let mut k = at + 1;
        while bytes.get(k).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\x0c')) {
            k += 1;
        }
        if bytes.get(k) == Some(&b'\n') || k >= bytes.len() && limit == text.len() {
            return start + at;
        }
        i = at + 1;
    }
    limit
}

/// The start of the next paragraph after `pos` (past blank lines), if one follows closely.
fn next_paragraph_start(text: &str, pos: usize) -> Option<usize> {
    let window = slice(text, pos..floor_boundary(text, pos.saturating_add(200)));
    let skipped = window.len() - window.trim_start().len();
    (skipped > 0 && skipped < window.len()).then(|| {
        let at = pos + skipped;
        // Back to the start of that line, so the enumerator's indent is kept.
        let line_start = slice(text, pos..at).rfind('\n').map_or(at, |i| pos + i + 1);
        ceil_boundary(text, line_start)
    })
}

/// Where the attachments start: the first exhibit, annex, appendix or schedule heading after the
/// signature pages that follow the preamble.
fn find_attachments(text: &str, after: usize) -> Option<usize> {
    let witness = IN_WITNESS.find_at(text, after)?;
    for line in lines_in(text, witness.end()..text.len()) {
        let content = slice(text, line.clone());
        if content.len() > 120 {
            continue;
        }
        let first = content.trim_start().as_bytes().first().copied();
        if matches!(first, Some(b'E' | b'A' | b'S')) && ATTACHMENT_HEADING.is_match(content) {
            return Some(line.start);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preamble_is_the_sentence_that_names_the_document_and_its_parties() {
        let text = "CREDIT AGREEMENT\n\nTABLE OF CONTENTS\n1.01 | Defined Terms | 1\n\nThis CREDIT AGREEMENT (this \u{201c}Agreement\u{201d}) is entered into as of May 1, 2023, among ACME INC., a Delaware corporation (the \u{201c}Borrower\u{201d}), and FIRST BANK, N.A., as Administrative Agent.\n\nRECITALS\n";
        let parts = Parts::find(text);
        let preamble = parts.preamble.clone().expect("preamble");
        assert!(text[preamble.clone()].starts_with("This CREDIT AGREEMENT"));
        assert!(text[preamble].ends_with("as Administrative Agent."));
        assert!(text[parts.front].contains("TABLE OF CONTENTS"));
    }

    #[test]
    fn a_preamble_run_on_into_its_recitals_ends_where_the_parties_agree_or_the_recitals_begin() {
        // A text copy that keeps only line breaks: the preamble sentence, then the recitals of an
        // earlier agreement and its agent, with no blank line between.
        let text = "THIS AMENDED AND RESTATED LOAN AND SECURITY AGREEMENT (this \"Agreement\") dated as of\nthe Effective Date by and between ORCHARD LANE BANK (\"Bank\"), and TIMBERWICK LABS, INC.\n(\"Borrower\"). The parties agree as follows:\nRecitals.\nA. Bank, Crestfall Capital II, LP (\"Crestfall\"), as Administrative Agent, and certain lenders entered into\nan earlier loan agreement with Borrower.\n";
        let preamble = Parts::find(text).preamble.expect("preamble");
        assert!(text[preamble.clone()].ends_with("The parties agree as follows:"), "{:?}", &text[preamble]);
        // A recitals heading alone on its line ends it as well.
        let headed = text.replace(" The parties agree as follows:", "");
        let preamble = Parts::find(&headed).preamble.expect("preamble");
        assert!(headed[preamble.clone()].ends_with("(\"Borrower\")."), "{:?}", &headed[preamble]);
        // Words that only look like it before the parties are introduced do not cut.
        let early = "THIS LOAN AGREEMENT, which the parties agree as follows: is dated as of May 1, 2024 between ORCHARD LANE BANK (\"Bank\") and TIMBERWICK LABS, INC. (\"Borrower\").\n";
        let preamble = Parts::find(early).preamble.expect("preamble");
        assert!(early[preamble].ends_with("(\"Borrower\")."));
    }

    #[test]
    fn a_title_followed_by_its_defined_parties_is_the_preamble_when_no_sentence_dates_the_document() {
        let text = "AMENDMENT NO. 2 TO THE CREDIT AGREEMENT\n\nDated as of June 3, 2015\n\nAMENDMENT NO. 2 TO THE CREDIT AGREEMENT among WILLOW MOTORS CORPORATION, an Ohio corporation (\u{201c}WMC\u{201d}), the banks parties hereto (the \u{201c}Banks\u{201d}) and SECOND BANK, N.A., as agent.\n\nPRELIMINARY STATEMENTS:\n";
        let preamble = Parts::find(text).preamble.expect("preamble");
        assert!(
            text[preamble.clone()].starts_with("AMENDMENT NO. 2 TO THE CREDIT AGREEMENT among"),
            "{:?}",
            &text[preamble]
        );
    }

    #[test]
    fn a_title_over_names_that_defines_no_one_is_a_cover_and_a_dated_sentence_is_preferred() {
        let cover = "CREDIT AGREEMENT among WILLOW MOTORS CORPORATION and SECOND BANK, N.A.\n\n";
        assert_eq!(Parts::find(cover).preamble, None, "a cover line is not a preamble");
        let titled =
            "CREDIT AGREEMENT among WILLOW MOTORS CORPORATION (\"WMC\") and SECOND BANK, N.A. (the \"Bank\")\n\n";
        let text = format!(
            "{titled}THIS CREDIT AGREEMENT is dated as of June 3, 2015 between WILLOW MOTORS CORPORATION (the \"Borrower\") and SECOND BANK, N.A. (the \"Bank\").\n"
        );
        let preamble = Parts::find(&text).preamble.expect("preamble");
        assert!(text[preamble].starts_with("THIS CREDIT AGREEMENT is dated"));
    }

    #[test]
    fn a_note_that_refers_to_an_agreement_is_not_a_preamble() {
        let text = "This Note is the Revolving Credit Note referred to in the Credit Agreement dated as of May 1, 1995, between the Company and the Bank.\n\n      THIS CREDIT AGREEMENT dated as of May 1, 1995 is between ACME INC. and FIRST BANK.\n";
        let parts = Parts::find(text);
        let preamble = parts.preamble.expect("preamble");
        assert!(text[preamble].trim_start().starts_with("THIS CREDIT AGREEMENT"));
    }

    #[test]
    fn a_title_in_title_case_dated_and_naming_its_parties_opens_the_preamble() {
        let text = "Revolving Credit Agreement\n\nTABLE OF CONTENTS\n1.01 Defined Terms 1\n\n364-Day Credit Agreement dated as of March 2, 2022, among Juniper\nValley Mining Company, as the Borrower, and Harbor Bank, N.A., as Agent.\nThe parties hereto agree as follows:\n";
        let preamble = Parts::find(text).preamble.expect("a preamble");
        assert!(text[preamble.clone()].starts_with("364-Day Credit Agreement dated as of"), "{:?}", &text[preamble]);
        // Words in lower case before the title are prose that refers to an agreement, not its title.
        let prose = "Loans made under the Credit Agreement dated as of March 2, 2022, among Juniper Valley Mining Company and Harbor Bank, N.A. are due.\n";
        assert_eq!(Parts::find(prose).preamble, None);
        // A cover block in capitals that opens with a figure is no preamble, title case or not.
        let cover = "364-DAY CREDIT AGREEMENT\ndated as of\nMarch 2, 2022\namong\nJUNIPER VALLEY MINING COMPANY,\nas the Borrower\n\nTABLE OF CONTENTS\n";
        assert_eq!(Parts::find(cover).preamble, None);
    }

    #[test]
    fn a_title_in_capitals_opening_with_a_figure_opens_the_preamble_when_it_runs_on_into_its_date() {
        let text = "364-DAY CREDIT AGREEMENT\n\ndated as of\n\nMarch 2, 2022\n\n364-DAY CREDIT AGREEMENT dated as of March 2, 2022 among JUNIPER\nVALLEY MINING INC., the LENDERS party hereto and HARBOR BANK, N.A., as Agent.\n";
        let preamble = Parts::find(text).preamble.expect("a preamble");
        assert!(
            text[preamble.clone()].starts_with("364-DAY CREDIT AGREEMENT dated as of March"),
            "{:?}",
            &text[preamble]
        );
        // Its title on a line of its own, the date below it, is a cover block.
        let cover = "364-DAY CREDIT AGREEMENT\ndated as of March 2, 2022\namong\nJUNIPER VALLEY MINING INC.,\nas the Borrower\n";
        assert_eq!(Parts::find(cover).preamble, None);
    }

    #[test]
    fn signature_pages_may_open_with_as_evidence_of_the_agreement() {
        let text = "THIS CREDIT AGREEMENT dated as of May 1, 2024 is among ACME INC. and FIRST BANK, N.A.\n\nSection 1. Loans.\n\nAS EVIDENCE of the agreement by the parties hereto to the terms herein contained, each such party has caused this Agreement to be executed.\nACME INC.\nBy: /s/ Ann Lee\n";
        let parts = Parts::find(text);
        let pages = parts.signature_pages(text).expect("signature pages");
        assert!(text[pages].starts_with("AS EVIDENCE of the agreement"));
        let prose = text.replace("AS EVIDENCE of the agreement", "As evidence of the agreement");
        assert_eq!(Parts::find(&prose).signature_pages(&prose), None, "prose in lower case opens no signature pages");
    }

    #[test]
    fn a_1990s_preamble_opens_with_the_title_and_wraps_over_lines() {
        let text = "                    CREDIT AGREEMENT\n\n6\n          CREDIT AGREEMENT, dated as of December 19, 1995, among\n     ACME INTERNATIONAL INC., a Delaware corporation (the\n     \"Borrower\"), and FIRST CAPITAL CORPORATION, as agent.\n\n     RECITALS\n";
        let parts = Parts::find(text);
        let preamble = parts.preamble.expect("preamble");
        assert!(text[preamble.clone()].contains("CREDIT AGREEMENT, dated as of December 19, 1995"));
        assert!(text[preamble].ends_with("as agent."));
    }

    #[test]
    fn a_preamble_right_under_its_title_opens_after_the_title_is_complete() {
        let text = "Exhibit 10.1\n\nFIRST AMENDMENT TO LOAN AGREEMENT\nTHIS FIRST AMENDMENT TO LOAN AGREEMENT (this \"Amendment\"), dated as of May 1, 2023, amends the Loan Agreement dated as of\nJune 2, 2021 among ACME INC. (the \"Borrower\") and FIRST BANK, N.A., as agent.\nWHEREAS, the parties wish to amend it;\n";
        let preamble = Parts::find(text).preamble.expect("a preamble");
        assert!(text[preamble].contains("THIS FIRST AMENDMENT TO LOAN AGREEMENT (this"));
        let text = "AMENDMENT NO. 2 TO AMENDED, RESTATED\nAND CONSOLIDATED LOAN AGREEMENT\nAMENDMENT NO. 2 TO AMENDED, RESTATED AND CONSOLIDATED LOAN AGREEMENT\n(this \"Amendment\"), dated as of May 1, 2023, relating to the Loan Agreement dated as of June 2, 2021,\namong ACME INC. (the \"Borrower\") and FIRST BANK, N.A., as agent.\nRECITALS\n";
        let preamble = Parts::find(text).preamble.expect("a preamble");
        assert!(
            text[preamble].starts_with("AMENDMENT NO. 2 TO AMENDED, RESTATED AND CONSOLIDATED"),
            "{}",
            &text[Parts::find(text).preamble.unwrap_or(0..0)]
        );
    }

    #[test]
    fn an_lma_preamble_runs_over_its_numbered_parties() {
        let text = "THIS AGREEMENT is dated 1 March 2024 and made between:\n\n(1) ACME PLC (the \"Company\");\n\n(2) BIG BANK PLC as agent (the \"Agent\").\n\nIT IS AGREED as follows:\n";
        let parts = Parts::find(text);
        let preamble = parts.preamble.expect("preamble");
        assert!(text[preamble].ends_with("(the \"Agent\")."));
    }

    #[test]
    fn an_lma_agreement_made_on_a_date_opens_its_preamble_over_numbers_set_apart_from_their_parties() {
        let text = "INTERIM FACILITIES AGREEMENT\n\nTHIS AGREEMENT is made on 9 May 2022:\n\n \n\n(1)\n\nWREN HOLDINGS LIMITED, a company incorporated in Jersey (the \u{201c}Borrower\u{201d});\n\n \n\n(2)\n\nTALLOW BANK PLC as agent of the other Finance Parties (the \u{201c}Agent\u{201d}).\n\n1.\n\nDEFINITIONS\n";
        let preamble = Parts::find(text).preamble.expect("a preamble");
        assert!(text[preamble.clone()].starts_with("THIS AGREEMENT is made on 9 May 2022:"), "{:?}", &text[preamble]);
        assert!(text[preamble.clone()].ends_with("(the \u{201c}Agent\u{201d})."), "{:?}", &text[preamble]);
        // Without a list of parties after it, a dated sentence ending in a colon is no preamble.
        let alone = "THIS AGREEMENT is made on 9 May 2022:\n\nthe parties agree as follows.\n";
        assert_eq!(Parts::find(alone).preamble, None);
    }

    #[test]
    fn attachments_start_at_the_first_exhibit_after_the_signature_pages() {
        let text = "This AMENDMENT NO. 1 dated as of May 1, 2023 is among ACME INC. and FIRST BANK, N.A.\n\nSection 1. Exhibit A hereto is attached.\n\nIN WITNESS WHEREOF, the parties have signed.\n\nACME INC.\nBy: /s/\n\nEXHIBIT A\n\nCONFORMED COPY\nCREDIT AGREEMENT\n";
        let parts = Parts::find(text);
        let exhibit = text.find("EXHIBIT A").expect("present");
        assert_eq!(parts.body.end, exhibit);
        assert!(parts.in_body(text.find("Section 1.").expect("present")));
        assert!(!parts.in_body(text.find("CONFORMED").expect("present")));
    }

    #[test]
    fn a_second_title_in_parentheses_is_part_of_the_title_above_or_opening_the_preamble() {
        let sentence = "CONSENT TO LOAN AGREEMENT (AMENDMENT NO. 4 TO LOAN AGREEMENT) (this \"Agreement\"), dated as of June 2, \
            2021, among WIDGET CORP., a Delaware corporation (the \"Borrower\"), and FIRST BANK, as agent.\n";
        for text in [
            format!("Exhibit 10.2\nCONSENT TO LOAN AGREEMENT\n(AMENDMENT NO. 4 TO LOAN AGREEMENT)\n{sentence}"),
            sentence.to_owned(),
        ] {
            let preamble = Parts::find(&text).preamble.expect("a preamble");
            assert!(text[preamble].starts_with("CONSENT TO LOAN AGREEMENT (AMENDMENT"), "{text}");
        }
    }

    #[test]
    fn an_amendment_numbered_in_words_opens_its_preamble_with_its_title() {
        let text = "EXHIBIT 4\n\n          AMENDMENT NUMBER THREE, dated as of March 2, 1997\n(\"Amendment\") to the Credit Agreement dated as of May 1, 1995, among\nWIDGET CORP., a Delaware corporation (the \"Borrower\"), and the lenders.\n";
        let parts = Parts::find(text);
        let preamble = parts.preamble.expect("a preamble");
        assert!(text[preamble].trim_start().starts_with("AMENDMENT NUMBER THREE"));
    }
}
