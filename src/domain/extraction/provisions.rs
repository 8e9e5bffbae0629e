//! Which provisions of a document state its own terms. A lawyer reads a facility's terms from the
//! operative text, and sets aside two kinds of provision that also name amounts, dates and rates:
//!
//! - **recitals of fact** ("WHEREAS, the Borrower and the Lenders are parties to the Existing
//!   Credit Agreement, under which …"): the background, usually what an agreement being amended,
//!   restated or refinanced provided. A recital that says what the parties want *this* document
//!   to do ("the Borrower has requested …", "the parties wish to extend the Maturity Date to …")
//!   is not one of them ("the parties have agreed that this Agreement amends and restates the
//!   Existing Credit Agreement and that the Lenders shall extend Revolving Credit Commitments of
//!   $400,000,000" states this document's terms);
//! - **benchmark replacement provisions**: the definitions and sections that say which rate will
//!   replace the benchmark if it ends ("LIBOR Successor Rate", "Benchmark Replacement", an "Early
//!   Opt-in Election", a "Term SOFR" that is used only by them). A statement there that the
//!   replacement takes effect at signing ("from and after the Amendment Effective Date …") is in
//!   force, and stays;
//! - **what an amendment leaves unchanged**: in an amendment (not a restatement), a sentence of its
//!   own text saying that terms stay as they were ("nothing herein modifies the Term Loans, which
//!   continue to bear interest at …", "… is not amended hereby") describes the amended agreement,
//!   not a change this document makes;
//! - **attachments that describe other debt** (a schedule of existing indebtedness, of permitted
//!   debt, of the borrower's outstanding notes or capitalization): the terms of loans and
//!   securities that are not this facility (`provisions/other_debt.rs`);
//! - **sections and statements about other debt** in the body: a section captioned as debt (the
//!   covenant limiting other borrowing, the representation listing existing debt), and a
//!   statement whose subject is another instrument ("the Borrower's existing subordinated notes
//!   bear interest at …"). In an amendment, the agreement it amends and that agreement's existing
//!   facilities are this document's own (their terms continue), so only other instruments count
//!   there.
//!
//! Found once when the document is scanned; the readers of facility terms leave statements in
//! these provisions aside, and the evidence checks (`evidence.rs`) withhold any value still read
//! from them.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

mod other_debt;

use super::benchmarks::{BenchmarkMatch, find_benchmarks};
use super::model::AmendmentType;
use super::parts::RECITALS_HEADING;
use super::text::{
    Definition, Regions, Structure, any_word, clause_around, floor_boundary, lines_in, parentheticals, pattern,
    sentence_around, slice,
};

/// The provisions of a document that do not state its own facility terms.
pub(crate) struct Provisions {
    /// Every sentence of the recitals, and whether it states a fact rather than an intent.
    recitals: Vec<(Range<usize>, bool)>,
    /// The recitals set aside, by what kind of document this is read as (see [`Self::read_as`]).
    set_aside_recitals: Regions,
    /// Every clause stating, in the past tense, the interest loans bore ("under which advances
    /// bore interest at LIBOR plus 2.75%"): a fact about another agreement or an earlier time,
    /// set aside whatever the document is.
    past_rates: Regions,
    replacement: Regions,
    in_force_at_signing: Regions,
    other_debt: Regions,
    /// The sections of the body captioned as debt.
    other_debt_sections: Regions,
    /// Every statement about other debt, and whether its words may name, in an amendment, the
    /// agreement being amended; and those set aside as this document is read.
    other_debt_statements: Vec<(Range<usize>, bool)>,
    set_aside_other_debt: Regions,
    /// Every sentence saying that terms stay as they were, and those set aside as this document is
    /// read (see [`Self::read_as`]).
    leaves_unchanged: Vec<Range<usize>>,
    set_aside_unchanged: Regions,
}

/// Why a statement is not evidence of the document's own facility terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SetAside {
    /// In a recital of fact.
    FactRecital,
    /// In the benchmark replacement provisions.
    BenchmarkReplacement,
    /// In an attachment that describes the borrower's other debt.
    OtherDebt,
    /// In a section or a statement of the body about other debt.
    OtherDebtProvision,
    /// In an amendment's statement of terms it leaves as they were.
    Unchanged,
}

impl SetAside {
    /// The reason, as a warning says it after the quoted statement.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            SetAside::FactRecital => {
                "is in a recital of fact (what another agreement provides), not in the operative text of this document"
            }
            SetAside::BenchmarkReplacement => {
                "is in the benchmark replacement provisions (the terms of a rate that may replace the benchmark), not in those that set the loans' interest"
            }
            SetAside::Unchanged => {
                "is in a statement of terms this amendment leaves as they were (the amended agreement's), not a change it makes"
            }
            SetAside::OtherDebt => {
                "is in an attachment describing other debt (the borrower's existing, outstanding or permitted indebtedness), not this facility's terms"
            }
            SetAside::OtherDebtProvision => {
                "is in a provision about other debt (the borrower's existing, refinanced or permitted indebtedness, or notes that are not this facility), not this facility's terms"
            }
        }
    }
}

impl Provisions {
    /// Finds the recitals of fact and the benchmark replacement provisions of `text`.
    pub(crate) fn find(text: &str, structure: &Structure, benchmarks: &[BenchmarkMatch]) -> Self {
        let recitals: Vec<(Range<usize>, bool)> = recitals(text, structure)
            .into_iter()
            .flat_map(|recital| sentences(text, recital))
            .map(|sentence| {
                let fact = !states_intent(slice(text, sentence.clone()));
                (sentence, fact)
            })
            .collect();
        let fact_recitals = recitals.iter().filter(|(_, fact)| *fact).map(|(r, _)| r.clone()).collect();
        let in_force_at_signing = Regions::new(
            AT_SIGNING
                .find_iter(text)
                .map(|found| sentence_around(text, found.start()))
                .filter(|sentence| !CONDITIONAL.is_match(slice(text, sentence.clone())))
                .collect(),
        );
        let mut replacement = replacement_provisions(text, structure);
        replacement.extend(benchmarks_only_replacements_use(text, structure, benchmarks, &replacement));
        Self {
            recitals,
            set_aside_recitals: Regions::new(fact_recitals),
            past_rates: Regions::new(past_rate_clauses(text)),
            replacement: Regions::new(replacement),
            in_force_at_signing,
            other_debt: Regions::new(other_debt::other_debt_attachments(text)),
            other_debt_sections: Regions::new(other_debt::other_debt_sections(text, structure)),
            other_debt_statements: other_debt::other_debt_statements(text, structure),
            set_aside_other_debt: Regions::new(Vec::new()),
            leaves_unchanged: UNCHANGED.find_iter(text).map(|found| sentence_around(text, found.start())).collect(),
            set_aside_unchanged: Regions::new(Vec::new()),
        }
    }

    /// Sets aside the recitals of fact as a document of this kind is read: those of a new
    /// agreement, or of an amendment and restatement, describe another agreement (the one it
    /// refinances or replaces); those of an amendment state the terms of the agreement it amends,
    /// which continue unless the amendment changes them, so none is set aside. An amendment's
    /// statements, in its own text (`body`), that terms stay as they were are set aside: it states
    /// what it changes, and a facility it only mentions as unchanged is not one it provides.
    pub(crate) fn read_as(&mut self, amendment: Option<AmendmentType>, body: Range<usize>) {
        let set_aside = |fact: bool| fact && amendment != Some(AmendmentType::Amendment);
        let kept = self.recitals.iter().filter(|(_, fact)| set_aside(*fact)).map(|(r, _)| r.clone()).collect();
        self.set_aside_recitals = Regions::new(kept);
        let unchanged = match amendment {
            Some(AmendmentType::Amendment) => {
                self.leaves_unchanged.iter().filter(|s| body.contains(&s.start)).cloned().collect()
            }
            _ => Vec::new(),
        };
        self.set_aside_unchanged = Regions::new(unchanged);
        let amended = amendment == Some(AmendmentType::Amendment);
        self.set_aside_other_debt = Regions::new(
            self.other_debt_statements
                .iter()
                .filter(|(_, existing)| !(amended && *existing))
                .map(|(r, _)| r.clone())
                .collect(),
        );
    }

    /// Whether `pos` lies in the benchmark replacement provisions (and not in a statement that
    /// the replacement is in force at signing).
    pub(crate) fn in_replacement(&self, pos: usize) -> bool {
        self.replacement.contains(pos) && !self.in_force_at_signing.contains(pos)
    }

    /// Whether a defined term is used outside its own definition, and only in the benchmark
    /// replacement provisions ("in no event shall any Benchmark Replacement be less than the
    /// Floor"): then it is a term of a rate that may come, not of the rate in force. `ignore`
    /// leaves out matches of the words that are not uses of the term.
    pub(crate) fn only_replacements_use(
        &self,
        text: &str,
        definition: &Definition,
        ignore: impl Fn(Range<usize>) -> bool,
    ) -> bool {
        let Some(uses) = uses_of_term(slice(text, definition.term.clone())) else { return false };
        let own = definition.term.start..definition.body.end;
        let mut elsewhere = uses.find_iter(text).filter(|u| !own.contains(&u.start()) && !ignore(u.range())).peekable();
        elsewhere.peek().is_some() && elsewhere.all(|u| self.in_replacement(u.start()))
    }

    /// Why a statement of a facility term at `span` is not evidence of this document's terms, if
    /// it is not.
    pub(crate) fn set_aside(&self, span: Range<usize>) -> Option<SetAside> {
        if self.set_aside_recitals.contains(span.start) {
            Some(SetAside::FactRecital)
        } else if self.in_replacement(span.start) {
            Some(SetAside::BenchmarkReplacement)
        } else if self.other_debt.contains(span.start) {
            Some(SetAside::OtherDebt)
        } else if self.other_debt_sections.contains(span.start) || self.set_aside_other_debt.contains(span.start) {
            Some(SetAside::OtherDebtProvision)
        } else if self.set_aside_unchanged.contains(span.start) {
            Some(SetAside::Unchanged)
        } else if self.past_rates.contains(span.start) {
            Some(SetAside::FactRecital)
        } else {
            None
        }
    }
}

/// Words saying that terms stay as they were: "nothing herein shall modify", "is not amended
/// hereby", "remain unchanged", "continue to bear interest".
static UNCHANGED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bnothing[ \t\r\n]+(?:herein|in[ \t\r\n]+this[ \t\r\n]+\w+)[ \t\r\n]+shall[ \t\r\n]+(?:be[ \t\r\n]+deemed[ \t\r\n]+to[ \t\r\n]+)?(?:modify|amend|affect|change|alter)\b|\b(?:is|are|shall)[ \t\r\n]+not[ \t\r\n]+(?:be(?:ing)?[ \t\r\n]+)?(?:amended|modified|changed|affected)[ \t\r\n]+(?:hereby|by[ \t\r\n]+this)\b|\b(?:remains?|continues?)[ \t\r\n]+(?:unchanged|unaffected|unmodified)\b|\bcontinues?[ \t\r\n]+to[ \t\r\n]+(?:bear|accrue|mature)\b",
    )
});

/// A verb saying, in the past tense, what interest loans bore: "bore interest", "had borne
/// interest", "were bearing interest". Not "accrued interest", which is also a noun ("together
/// with accrued interest").
static PAST_INTEREST: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:bore|(?:had|has|have)[ \t\r\n]+borne|(?:was|were)[ \t\r\n]+bearing)[ \t\r\n]+interest\b")
});

/// The clauses stating the interest loans bore in the past: from the start of the clause holding
/// the verb (after the last comma or semicolon before it in its sentence) to the sentence's end.
fn past_rate_clauses(text: &str) -> Vec<Range<usize>> {
    PAST_INTEREST
        .find_iter(text)
        .map(|verb| {
            let sentence = sentence_around(text, verb.start());
            let before = slice(text, sentence.start..verb.start());
            let clause_start = before.rfind([',', ';']).map_or(sentence.start, |at| sentence.start + at + 1);
            clause_start..sentence.end.max(verb.end())
        })
        .collect()
}

/// "WHEREAS," opening a recital.
static WHEREAS: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(?:WHEREAS|Whereas)\b"));

/// The words that end the recitals and open the operative text.
static OPERATIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"\b(?:NOW|Now),?[ \t\r\n]+(?:THEREFORE|[Tt]herefore)\b|(?i:\bagree[sd]?[ \t\r\n]+as[ \t\r\n]+follows\b)")
});

/// The longest a recital is read for.
const MAX_RECITAL: usize = 4000;
/// The longest the paragraphs under a recitals heading are read for.
const MAX_RECITALS: usize = 12_000;

/// Every recital of `text`: each "WHEREAS" to the next one or to the operative words, and each
/// paragraph under a recitals heading up to the operative words or the first article, section or
/// definition.
fn recitals(text: &str, structure: &Structure) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let openers: Vec<usize> = WHEREAS.find_iter(text).map(|m| m.start()).collect();
    for (i, &start) in openers.iter().enumerate() {
        let limit = floor_boundary(text, start.saturating_add(MAX_RECITAL));
        let next = openers.get(i + 1).copied().unwrap_or(text.len()).min(limit);
        let end = OPERATIVE.find(slice(text, start..next)).map_or(next, |m| start + m.start());
        found.push(start..paragraph_end(text, start, end));
    }
    for heading in RECITALS_HEADING.find_iter(text) {
        let first_after = structure.definitions.partition_point(|d| d.term.start <= heading.end());
        let next_definition = structure.definitions.get(first_after).map(|d| d.term.start);
        let limit = floor_boundary(text, heading.end().saturating_add(MAX_RECITALS))
            .min(structure.next_heading_after(heading.end()).unwrap_or(text.len()))
            .min(next_definition.unwrap_or(text.len()));
        let end = OPERATIVE.find(slice(text, heading.end()..limit)).map_or(limit, |m| heading.end() + m.start());
        let mut paragraph_start = None;
        for line in lines_in(text, heading.end()..end) {
            let blank = slice(text, line.clone()).trim().is_empty();
            match (blank, paragraph_start) {
                (false, None) => paragraph_start = Some(line.start),
                (true, Some(start)) => {
                    found.push(start..line.start);
                    paragraph_start = None;
                }
                _ => {}
            }
        }
        if let Some(start) = paragraph_start {
            found.push(start..end);
        }
    }
    found
}

/// Where the recital starting at `start` ends, at most at `limit`: at the first blank line not
/// followed by an item of a list the recital runs on with ("(a) …").
fn paragraph_end(text: &str, start: usize, limit: usize) -> usize {
    let mut blank_seen = false;
    for line in lines_in(text, start..limit) {
        let content = slice(text, line.clone()).trim_start();
        if content.is_empty() {
            blank_seen = true;
            continue;
        }
        if blank_seen && !content.starts_with('(') {
            return line.start;
        }
        blank_seen = false;
    }
    limit
}

/// The sentences of `range`: a recital may recite a fact and then say what this document does
/// ("… are parties to the Existing Credit Agreement. The parties hereto have agreed that this
/// Agreement amends and restates it …").
fn sentences(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut pos = range.start;
    while pos < range.end {
        let sentence = sentence_around(text, pos);
        let end = sentence.end.min(range.end);
        if end <= pos {
            break;
        }
        found.push(pos.max(sentence.start)..end);
        pos = end;
    }
    found
}

/// Words by which a recital says what the parties want this document to do.
static INTENT: LazyLock<Regex> = LazyLock::new(|| {
    any_word(&[
        "request",
        "wish",
        "desire",
        "intend",
        "propose",
        "willing",
        "consent",
        "agree to",
        "agrees to",
        "have agreed to",
        "has agreed to",
        "agree that",
        "agrees that",
        "agreed that",
    ])
});

/// Whether a recital states what the parties want this document to do, rather than facts.
fn states_intent(recital: &str) -> bool {
    INTENT.is_match(recital)
}

/// A statement that the replacement of the benchmark takes effect when this document is signed:
/// "from and after the Amendment Effective Date", "as of the date hereof".
static AT_SIGNING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i:\b(?:on[ \t\r\n]+and[ \t\r\n]+after|from[ \t\r\n]+and[ \t\r\n]+after|with[ \t\r\n]+effect[ \t\r\n]+from|effective[ \t\r\n]+(?:as[ \t\r\n]+of|on)|as[ \t\r\n]+of)[ \t\r\n]+the[ \t\r\n]+)(?:date[ \t\r\n]+hereof|(?:[A-Z][a-z]+[ \t\r\n]+)?(?:Amendment[ \t\r\n]+|Restatement[ \t\r\n]+)?(?:Effective|Closing)[ \t\r\n]+Date)\b",
    )
});

/// Words that make a statement conditional: "if a Benchmark Transition Event has occurred as of the
/// Closing Date, …" says what happens then, not what is in force.
static CONDITIONAL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:if|unless|when|whenever|upon[ \t\r\n]+the[ \t\r\n]+occurrence|in[ \t\r\n]+the[ \t\r\n]+event)\b")
});

/// Words in a defined term that make its definition part of the replacement machinery.
static REPLACEMENT_TERM: LazyLock<Regex> = LazyLock::new(|| {
    any_word(&[
        "successor",
        "replacement",
        "transition",
        "opt-in",
        "opt in",
        "conforming changes",
        "unavailability",
        "cessation",
        "discontinu",
        "fallback",
    ])
});

/// Phrases of a sentence about replacing the benchmark.
static REPLACEMENT_SENTENCE: LazyLock<Regex> = LazyLock::new(|| {
    any_word(&[
        "successor rate",
        "successor benchmark",
        "successor index",
        "benchmark replacement",
        "replacement benchmark",
        "replacement rate",
        "replacement index",
        "benchmark transition",
        "transition event",
        "early opt-in",
        "early opt in",
        "opt-in election",
        "alternate benchmark",
        "alternative benchmark",
        "conforming changes",
        "unavailability period",
    ])
});

/// A heading about replacing a rate: it names a replacement and a rate.
static REPLACEMENT_HEADING: LazyLock<Regex> =
    LazyLock::new(|| any_word(&["successor", "replacement", "transition", "discontinu", "cessation", "unavailab"]));
static RATE_HEADING: LazyLock<Regex> =
    LazyLock::new(|| any_word(&["rate", "benchmark", "libor", "sofr", "index", "interest", "euribor", "sonia"]));

/// The longest a heading line is read for.
const MAX_HEADING_LINE: usize = 200;

/// The replacement provisions named as such: definitions of replacement terms, sections headed as
/// replacing a rate, and sentences about replacing the benchmark.
fn replacement_provisions(text: &str, structure: &Structure) -> Vec<Range<usize>> {
    let mut found: Vec<Range<usize>> =
        structure.definitions_where(|key| REPLACEMENT_TERM.is_match(key)).map(|d| d.term.start..d.body.end).collect();
    for (i, &heading) in structure.headings.iter().enumerate() {
        let line_end = slice(text, heading..floor_boundary(text, heading.saturating_add(MAX_HEADING_LINE)))
            .find('\n')
            .map_or(heading, |n| heading + n);
        let line = slice(text, heading..line_end);
        if REPLACEMENT_HEADING.is_match(line) && RATE_HEADING.is_match(line) {
            let end = structure.headings.get(i + 1).copied().unwrap_or(text.len());
            found.push(heading..end);
        }
    }
    found.extend(REPLACEMENT_SENTENCE.find_iter(text).map(|m| replacement_clause(text, m.start())));
    found
}

/// Words before a list item that make the whole sentence about replacing the benchmark.
static REPLACING: LazyLock<Regex> = LazyLock::new(|| any_word(&["replace", "transition"]));

/// The provision a replacement phrase at `pos` belongs to: its whole sentence, unless the phrase
/// is in one item of a list and nothing before that item speaks of replacing the benchmark
/// ("“Applicable Margin” means (a) … SOFR Loans, 1.95% …, and (c) with respect to any Benchmark
/// Replacement, …"), when it is that item only. ("… may amend this Agreement to replace LIBOR
/// with (x) Term SOFR or (y) another alternate benchmark rate" is about replacing it throughout.)
fn replacement_clause(text: &str, pos: usize) -> Range<usize> {
    let sentence = sentence_around(text, pos);
    // A rate definition may say in passing what replaces its source ("… the rate on the screen page
    // (or, if none, a comparable replacement rate the Agent selects) …"): the aside is the
    // replacement provision, the rest of the definition still sets the interest.
    let aside = parentheticals(slice(text, sentence.clone()))
        .into_iter()
        .map(|p| sentence.start + p.start..sentence.start + p.end)
        .find(|p| p.contains(&pos));
    if let Some(aside) = aside {
        let rest = [slice(text, sentence.start..aside.start), slice(text, aside.end..sentence.end)].concat();
        if !REPLACING.is_match(&rest) && !REPLACEMENT_SENTENCE.is_match(&rest) {
            return aside;
        }
    }
    let clause = clause_around(text, pos);
    let in_an_item = clause.start > sentence.start && slice(text, clause.clone()).starts_with('(');
    let before_item = slice(text, sentence.start..clause.start);
    if in_an_item && !REPLACING.is_match(before_item) && !REPLACEMENT_SENTENCE.is_match(before_item) {
        clause
    } else {
        sentence
    }
}

/// The uses of a defined term in the text, however its lines wrap; a use may be plural or
/// possessive ("SOFR-Based Rates", "the Eurodollar Rate's").
pub(crate) fn uses_of_term(term: &str) -> Option<Regex> {
    let words: Vec<String> = term.split_whitespace().map(regex::escape).collect();
    Regex::new(&format!(r"(?-u:\b){}(?:s|es|'s|’s)?(?-u:\b)", words.join(r"[ \t\r\n]+"))).ok()
}

/// Words of a defined term that name something priced on a benchmark ("Prime Rate Margin", "LIBOR
/// Floor"), not the benchmark.
static PRICED_ON_A_BENCHMARK: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:margin|spread|fee|premium|floor|cap|adjustment)s?\b"));

/// The definitions of benchmarks ("Term SOFR", "Daily Simple SOFR", "SOFR") that only the
/// replacement provisions use, or nothing does. A benchmark the loans bear is used by the provisions that set
/// interest — directly, or through the definition of another benchmark those provisions use
/// ("Adjusted Term SOFR" means Term SOFR plus 0.10%); one reached only from the replacement
/// provisions is a rate that may come, not the rate in force.
fn benchmarks_only_replacements_use(
    text: &str,
    structure: &Structure,
    benchmarks: &[BenchmarkMatch],
    replacement: &[Range<usize>],
) -> Vec<Range<usize>> {
    let replacement = Regions::new(replacement.to_vec());
    let defined: Vec<(Range<usize>, Range<usize>)> = structure
        .definitions
        .iter()
        .filter(|d| !replacement.contains(d.term.start))
        .filter(|d| !find_benchmarks(slice(text, d.term.clone())).is_empty() && !PRICED_ON_A_BENCHMARK.is_match(&d.key))
        .map(|d| (d.term.clone(), d.term.start..d.body.end))
        .collect();
    if defined.is_empty() || benchmarks.is_empty() {
        return Vec::new();
    }
    // Definitions are in text order and do not overlap.
    let owner = |pos: usize| {
        let index = defined.partition_point(|(_, whole)| whole.start <= pos).checked_sub(1)?;
        defined.get(index).filter(|(_, whole)| whole.contains(&pos)).map(|_| index)
    };
    // Which definitions each definition's text uses, and which the rest of the text uses.
    let mut used_by: Vec<Vec<usize>> = vec![Vec::new(); defined.len()];
    let mut in_force: Vec<bool> = vec![false; defined.len()];
    for (index, (term, _)) in defined.iter().enumerate() {
        let Some(uses) = uses_of_term(slice(text, term.clone())) else { continue };
        for found in uses.find_iter(text) {
            match owner(found.start()) {
                Some(user) if user == index => continue,
                Some(user) => used_by[user].push(index),
                None if replacement.contains(found.start()) => {}
                None => in_force[index] = true,
            }
        }
    }
    // What a definition in force uses is in force too.
    let mut pending: Vec<usize> = (0..defined.len()).filter(|&i| in_force[i]).collect();
    while let Some(user) = pending.pop() {
        for &used in &used_by[user] {
            if !in_force[used] {
                in_force[used] = true;
                pending.push(used);
            }
        }
    }
    // A benchmark nothing in force uses — not even the provisions that set interest — is not one
    // the loans bear.
    defined.into_iter().zip(in_force).filter(|(_, force)| !force).map(|((_, whole), _)| whole).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::extraction::benchmarks::find_benchmarks;

    fn provisions(text: &str) -> Provisions {
        Provisions::find(text, &Structure::scan(text), &find_benchmarks(text))
    }

    fn set_aside_at(text: &str, needle: &str) -> Option<SetAside> {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle} is in the text"));
        provisions(text).set_aside(at..at + needle.len())
    }

    #[test]
    fn a_recital_of_what_the_existing_agreement_provides_is_set_aside() {
        let text = "WHEREAS, the Company and the banks are parties to an Existing Loan Agreement under which \
            $80,000,000 of revolving loans mature on July 1, 2020;\n\nWHEREAS, the Company has asked the banks to \
            lend $95,000,000 and they are willing to do so;\n\nNOW, THEREFORE, the parties agree:\n\n\
            \"Commitment\" means $95,000,000.\n";
        assert_eq!(set_aside_at(text, "$80,000,000"), Some(SetAside::FactRecital));
        assert_eq!(set_aside_at(text, "July 1, 2020"), Some(SetAside::FactRecital));
        assert_eq!(set_aside_at(text, "lend $95,000,000"), None, "a recital of what the parties want is kept");
        let text = "PRELIMINARY STATEMENTS\n\nThe Borrower is party to a Credit Agreement of $80,000,000 (the \
            \"Existing Agreement\"). The parties have agreed that this Agreement restates it with Commitments of \
            $95,000,000.\n\nFirst, the Borrower repays $5,000,000 of the Existing Loans.\n\nARTICLE I\n\n\
            Section 1.01. The Maturity Date is June 1, 2030.\n";
        assert_eq!(set_aside_at(text, "$80,000,000"), Some(SetAside::FactRecital));
        assert_eq!(set_aside_at(text, "$95,000,000"), None, "each sentence of a recital is read on its own");
        assert_eq!(set_aside_at(text, "$5,000,000"), Some(SetAside::FactRecital));
        assert_eq!(set_aside_at(text, "June 1, 2030"), None, "the recitals end at the first article");
        let operative = text.rfind("$95,000,000").expect("present");
        assert_eq!(provisions(text).set_aside(operative..operative + 11), None);
    }

    #[test]
    fn a_clause_saying_what_interest_loans_bore_is_set_aside_whatever_the_document_is() {
        let text = "THIS AMENDED AND RESTATED LOAN AGREEMENT dated as of May 2, 2022 between ALDER BANK (\"Bank\") \
            and WILLOW FARMS, LLC (\"Borrower\") restates the Loan Agreement dated as of June 1, 2018, under which \
            advances bore interest at LIBOR plus 2.75%. The parties agree as follows:\n\n\
            2.2 Interest. Advances bear interest at the Prime Rate plus 0.75%, and had borne no fee.\n";
        for amendment in [None, Some(AmendmentType::AmendmentAndRestatement), Some(AmendmentType::Amendment)] {
            assert_eq!(set_aside_when_read_as(text, "LIBOR", amendment), Some(SetAside::FactRecital));
            assert_eq!(set_aside_when_read_as(text, "2.75%", amendment), Some(SetAside::FactRecital));
            // The clause starts after the comma: the preamble's date and parties are not in it.
            assert_eq!(set_aside_when_read_as(text, "June 1, 2018", amendment), None);
            assert_eq!(set_aside_when_read_as(text, "0.75%", amendment), None, "what advances bear is kept");
        }
        // Interest accrued is a noun as often as a verb: it sets nothing aside.
        let accrued = "Each Advance, with accrued interest at the Prime Rate plus 1.00%, is payable on demand.\n";
        assert_eq!(set_aside_at(accrued, "1.00%"), None);
    }

    fn set_aside_when_read_as(text: &str, needle: &str, amendment: Option<AmendmentType>) -> Option<SetAside> {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle} is in the text"));
        let mut provisions = provisions(text);
        provisions.read_as(amendment, 0..text.len());
        provisions.set_aside(at..at + needle.len())
    }

    #[test]
    fn a_statement_about_another_instrument_is_set_aside_to_the_end_of_its_clause() {
        let text = "Section 2.04. Interest. Each Advance bears interest at Daily Simple SOFR plus 2.10%.\n\n\
            Section 6.08. Other Obligations. The Company's prior equipment notes accrue interest at the Prime Rate \
            plus 3.5% and fall due in 2031; the Advances are payable quarterly.\n";
        let other = Some(SetAside::OtherDebtProvision);
        assert_eq!(set_aside_when_read_as(text, "3.5%", None), other);
        assert_eq!(set_aside_when_read_as(text, "2031", None), other);
        assert_eq!(set_aside_when_read_as(text, "2.10%", None), None);
        assert_eq!(set_aside_when_read_as(text, "quarterly", None), None, "a semicolon ends the statement");
    }

    #[test]
    fn a_statement_about_another_instrument_ends_where_the_sentence_turns_to_other_debt() {
        let text = "The Convertible Notes bear interest at 5.25% and rank behind the Advances, which bear interest \
            at Term SOFR plus 2%.\n";
        assert_eq!(set_aside_when_read_as(text, "5.25%", None), Some(SetAside::OtherDebtProvision));
        assert_eq!(set_aside_when_read_as(text, "Term SOFR plus 2%", None), None);
        let text =
            "The margins, by the rating of the Senior Notes, are as follows:\nLevel I   110 bps\nLevel II   125 bps\n";
        assert_eq!(set_aside_when_read_as(text, "110 bps", None), None, "a colon ends the statement");
    }

    #[test]
    fn a_loan_from_another_named_lender_is_other_debt_and_a_loan_from_this_facilitys_creditor_is_not() {
        let text = "2.3 Payoff. The first Advance shall pay off the Company's term loan from Osprey Growth Partners, \
            which accrues interest at Term SOFR plus 5.25%.\n\n2.4 Interest. Loans from the Lenders bear interest at \
            the Prime Rate plus 1.10%. Advances owed to Bank bear interest at the Prime Rate plus 0.90%.\n";
        assert_eq!(set_aside_when_read_as(text, "Term SOFR plus 5.25%", None), Some(SetAside::OtherDebtProvision));
        assert_eq!(set_aside_when_read_as(text, "Prime Rate plus 1.10%", None), None);
        assert_eq!(set_aside_when_read_as(text, "Prime Rate plus 0.90%", None), None);
    }

    #[test]
    fn a_definition_whose_term_is_other_debt_and_advances_that_existed_before_are_other_debt() {
        let text = "\"Existing Indebtedness\" means the Borrower's equipment loan from Ash Finance, which bears \
            interest at Term SOFR plus 4.10%.\n\"Revolving Line\" means Advances of up to $2,000,000.\n\n\
            2.2 Interest. Advances bear interest at the Prime Rate plus 0.75%. Until today the Existing Advances bore \
            interest at LIBOR plus 2.60%.\n";
        let other = Some(SetAside::OtherDebtProvision);
        assert_eq!(set_aside_when_read_as(text, "Term SOFR plus 4.10%", None), other);
        assert_eq!(set_aside_when_read_as(text, "$2,000,000", None), None, "a definition of this facility");
        assert_eq!(set_aside_when_read_as(text, "LIBOR plus 2.60%", None), other);
        assert_eq!(set_aside_when_read_as(text, "Prime Rate plus 0.75%", None), None);
    }

    #[test]
    fn in_an_amendment_the_agreement_it_amends_is_not_other_debt_but_notes_still_are() {
        let text = "The loans under the Existing Credit Agreement bear interest at LIBOR plus 2.00%. The Senior \
            Notes bear interest at 7.5%.\n";
        let other = Some(SetAside::OtherDebtProvision);
        assert_eq!(set_aside_when_read_as(text, "LIBOR plus 2.00%", None), other, "a new agreement refinances it");
        assert_eq!(
            set_aside_when_read_as(text, "LIBOR plus 2.00%", Some(AmendmentType::AmendmentAndRestatement)),
            other
        );
        assert_eq!(set_aside_when_read_as(text, "LIBOR plus 2.00%", Some(AmendmentType::Amendment)), None);
        assert_eq!(set_aside_when_read_as(text, "7.5%", Some(AmendmentType::Amendment)), other);
    }

    #[test]
    fn a_section_captioned_as_debt_is_about_other_debt_but_a_coverage_covenant_is_not() {
        let text = "Section 7.01. Limitation on Indebtedness. The Company shall not incur debt other than the \
            Advances and mortgage debt at not more than Prime plus 2%.\n\nSection 7.02. Liens. The Company shall not \
            grant liens.\n\nSection 7.03. Debt Service Coverage Ratio. The ratio shall be at least 1.25 to 1.00.\n";
        assert_eq!(set_aside_at(text, "Prime plus 2%"), Some(SetAside::OtherDebtProvision));
        assert_eq!(set_aside_at(text, "grant liens"), None, "the next section is about something else");
        assert_eq!(set_aside_at(text, "1.25 to 1.00"), None);
    }

    #[test]
    fn a_lettered_recital_under_a_recitals_heading_is_read_as_a_recital() {
        let text = "RECITALS\n\nA. The Borrower owes the Lender $3,000,000 under a Note maturing March 3, 2022.\n\n\
            B. The Borrower wishes to extend the Note to March 3, 2024.\n\nNOW, THEREFORE, the parties agree as follows:\n\n\
            1. The maturity of the Note is March 3, 2024.\n";
        assert_eq!(set_aside_at(text, "March 3, 2022"), Some(SetAside::FactRecital));
        assert_eq!(set_aside_at(text, "March 3, 2024"), None);
    }

    #[test]
    fn a_benchmark_named_only_as_a_possible_replacement_is_set_aside() {
        let text = "\"Eurodollar Rate\" means the London interbank offered rate for dollar deposits.\n\n\
            \"Term SOFR\" means the forward-looking term rate based on SOFR recommended by the Relevant Governmental Body.\n\n\
            \"Successor Rate\" means Term SOFR plus the spread the Administrative Agent selects.\n\n\
            Section 2.05. Interest. Each Loan bears interest at the Eurodollar Rate plus 1.25%.\n\n\
            Section 3.03. Changed Circumstances. If the Eurodollar Rate ends, the Borrower and the Administrative Agent \
            may choose an alternate benchmark rate, such as Term SOFR, for the Loans.\n";
        let p = provisions(text);
        let defined = text.find("Term SOFR").expect("present");
        assert!(p.in_replacement(defined), "a benchmark definition only the replacement provisions use");
        let in_section = text.rfind("Term SOFR").expect("present");
        assert!(p.in_replacement(in_section), "a sentence about an alternate benchmark");
        let interest = text.find("at the Eurodollar Rate").expect("present");
        assert!(!p.in_replacement(interest));
        let defined_libor = text.find("London interbank").expect("present");
        assert!(!p.in_replacement(defined_libor), "the rate the loans bear is in force");
    }

    #[test]
    fn a_benchmark_the_interest_provisions_use_through_another_definition_is_in_force() {
        let text = "\"Term SOFR\" means the CME term SOFR reference rate.\n\n\
            \"Adjusted Term SOFR\" means Term SOFR plus 0.10%.\n\n\
            \"Benchmark Replacement\" means Daily Simple SOFR plus the adjustment.\n\n\
            \"Daily Simple SOFR\" means SOFR compounded daily.\n\n\
            Section 2.05. Interest. Each Loan bears interest at Adjusted Term SOFR plus 1.25%.\n";
        let p = provisions(text);
        assert!(!p.in_replacement(text.find("the CME").expect("present")));
        assert!(p.in_replacement(text.find("SOFR compounded").expect("present")));
    }

    #[test]
    fn only_the_list_item_about_a_replacement_is_set_aside_when_the_list_is_about_something_else() {
        let text = "\"Applicable Margin\" means (a) for SOFR Loans, 2.10% per annum, (b) for Base Rate Loans, 1.10% \
            per annum, and (c) for any Benchmark Replacement, the margin in clause (a) above.\n\n\
            Section 3.03. If (i) LIBOR is unavailable or (ii) its administrator stops publishing it, the Borrower \
            and the Agent may amend this Agreement to replace it with (x) Term SOFR or (y) another alternate \
            benchmark rate.\n";
        let p = provisions(text);
        assert!(!p.in_replacement(text.find("2.10%").expect("present")));
        assert!(p.in_replacement(text.find("any Benchmark Replacement").expect("present")));
        assert!(p.in_replacement(text.find("Term SOFR").expect("present")), "the words before the list replace LIBOR");
    }

    #[test]
    fn a_replacement_named_in_an_aside_of_a_rate_definition_is_that_aside_only() {
        let text = "\"Eurodollar Rate\" means the greater of (a) 0.50% and (b) the rate on the Screen Page for the \
            Interest Period (or, if that page is no longer published, a comparable replacement rate the Agent selects \
            (which selection is conclusive)), divided by one minus the Reserve Percentage.\n\n\
            Section 2.05. Interest. Each Loan bears interest at the Eurodollar Rate plus 1.25%.\n";
        let p = provisions(text);
        assert!(p.in_replacement(text.find("a comparable").expect("present")));
        assert!(!p.in_replacement(text.find("0.50%").expect("present")), "the rate's own floor");
        assert!(!p.in_replacement(text.find("divided by").expect("present")));
        let replacing = "Loans bear interest at LIBOR plus 1.25%. If LIBOR ends, the Agent may amend this Agreement to \
            replace it with another rate (a replacement rate the Agent selects) that is never less than 0.50%.\n";
        assert!(
            provisions(replacing).in_replacement(replacing.find("0.50%").expect("present")),
            "a sentence about replacing the benchmark stays whole"
        );
    }

    #[test]
    fn a_benchmark_the_interest_provisions_name_in_the_plural_is_in_force() {
        let text = "\"LIBO Rate\" means the London interbank offered rate for the Interest Period.\n\n\
            Section 2.05. Interest. The Loans bear interest at the LIBO Rates for their Interest Periods plus 1.25%.\n";
        assert!(!provisions(text).in_replacement(text.find("London").expect("present")));
    }

    #[test]
    fn a_benchmark_nothing_uses_is_not_in_force_but_a_margin_on_one_is_kept() {
        let text = "\"Base Rate\" means the prime rate of First Bank.\n\n\
            \"Term SOFR\" means the CME term SOFR reference rate.\n\n\
            \"Applicable Prime Rate Margin\" means 0.50%.\n\n\
            Section 2.05. Interest. Each Loan bears interest at the Base Rate plus the Prime Rate Margin.\n";
        let p = provisions(text);
        assert!(p.in_replacement(text.find("the CME").expect("present")));
        assert!(!p.in_replacement(text.find("0.50%").expect("present")));
        assert!(!p.in_replacement(text.find("the prime rate").expect("present")));
    }

    #[test]
    fn a_replacement_stated_to_take_effect_at_signing_is_in_force() {
        let text = "Section 3.08. Benchmark Replacement. From and after the Amendment Effective Date, Term SOFR \
            replaces LIBOR as the Benchmark Replacement for all Loans.\n";
        let p = provisions(text);
        assert!(!p.in_replacement(text.find("Term SOFR").expect("present")));
        let text = "Section 3.08. Benchmark Replacement. If a Benchmark Transition Event has occurred as of the Closing \
            Date, Term SOFR replaces LIBOR as the Benchmark Replacement for all Loans.\n";
        assert!(
            provisions(text).in_replacement(text.find("Term SOFR").expect("present")),
            "a condition is not in force"
        );
    }
}
