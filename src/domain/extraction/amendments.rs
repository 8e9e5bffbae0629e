//! What an amendment says it changes: the dates, amounts and rates it replaces, each with the
//! value before (when the amendment states it) and after, read from the amendment's own text (an
//! attached conformed copy states terms, not changes).
//!
//! Amendments state changes in a few settled ways, and only those are read:
//! - a quoted value replaced by another: `The date "June 24, 1996" in the definition of "Maturity
//!   Date" is deleted and replaced with the date "December 31, 1998"`, `by deleting "$150,000,000"
//!   … and substituting "$300,000,000" therefor`, `by replacing "2.25%" with "2.00%"`;
//! - a definition restated with its value first: `"Maturity Date" … is amended and restated in its
//!   entirety to read as follows: "Maturity Date" means June 30, 2027.`;
//! - a term extended, increased or reduced: `the Maturity Date is hereby extended from June 30,
//!   2025 to June 30, 2027`, `the Aggregate Commitments are increased to $750,000,000`.
//!
//! A quoted value counts only when the quote holds that value and nothing more, and both sides
//! must be values of the kind the term is (a maturity is a date, a commitment an amount): a
//! replaced passage of prose is a change of wording, not of a value, and is not reported.
//!
//! The textual substitutions themselves (what a `deleting "…" … substituting "…"` strikes, and
//! the words its substitute follows) are read here too, for the facilities' commitments.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::document::Document;
use super::model::{AmendedTerm, AmendedTermCategory, StatedValue};
use super::text::{contains_any_ci, pattern, sentence_around};

/// A quoted passage, straight or curly quotes.
const QUOTE: &str = r#"["“](?:[^"“”]{1,300})["”]"#;

/// A value named before its quote: "the date", "the amount of", "the percentage".
const VALUE_NOUN: &str = r"(?:(?:the|such)[ \t\r\n]+)?(?:(?:amount|date|percentage|figure|number|rate|reference)s?[ \t\r\n]+(?:of[ \t\r\n]+|to[ \t\r\n]+)?)?";

/// One character of the words between a change's two values: neither a semicolon nor a blank
/// line, which end the statement of a change.
const GAP: &str = r"(?:[^;\n]|\r?\n[ \t]*[^;\s])";

/// `deleting OLD … (and) substituting|inserting|replacing it with NEW`, `replacing OLD with NEW`,
/// `changing OLD to NEW`: the changes that open on their operative word. The passive form, `OLD …
/// is deleted and replaced with NEW`, is [`PASSIVE_REPLACED`]: it opens on any quote and lets 250
/// characters follow it, and searched for across a long agreement full of quoted terms it overflows
/// the lazy DFA's cache, so that the regex crate falls back to its slowest engine over the whole
/// text (a quarter of a plain-text filing's extraction time; a larger `dfa_size_limit` does not
/// keep it in the DFA). The forms open on different characters, so a change starts with one form
/// only, and the two searches together find what one pattern of all three forms would.
static REPLACED_ACTIVELY: LazyLock<Regex> = LazyLock::new(|| {
    let [deleting, _, replacing] = replaced_forms();
    pattern(&format!("(?i)(?:{deleting}|{replacing})"))
});

/// The passive change, `OLD … is deleted and replaced with NEW`, matched only where its haystack
/// starts: it is tried at the quotes before each [`PASSIVE_VERB`] that can reach it (see
/// [`passive_reach`]), never searched for.
static PASSIVE_REPLACED: LazyLock<Regex> = LazyLock::new(|| {
    let [_, passive, _] = replaced_forms();
    pattern(&format!(r"(?i)\A(?:{passive})"))
});

/// The verb every passive change holds: `is deleted and replaced`, `shall be amended to read`.
static PASSIVE_CHANGE: LazyLock<Regex> = LazyLock::new(|| pattern(&format!("(?i){PASSIVE_VERB}")));

const PASSIVE_VERB: &str = r"\b(?:is|are|shall[ \t\r\n]+be)[ \t\r\n]+(?:hereby[ \t\r\n]+)?(?:deleted[ \t\r\n]+and[ \t\r\n]+)?(?:replaced|amended[ \t\r\n]+to[ \t\r\n]+read)";

/// The longest a passive change's gap (the words between its old value and its verb) may be: at
/// most this many characters other than spaces, tabs and line breaks (each [`GAP`] unit holds at
/// most one).
const PASSIVE_GAP_UNITS: usize = 250;
/// The longest a [`QUOTE`] may be, in characters, with its two quotation marks.
const QUOTE_CHARS: usize = 302;

/// The three forms of a replaced value, each with its own capture names: `deleting OLD … substituting
/// NEW`, `OLD … is replaced with NEW`, `replacing|changing OLD with|to NEW`.
fn replaced_forms() -> [String; 3] {
    let ws = r"[ \t\r\n]+";
    [
        format!(
            r"\bdeleting{ws}{VALUE_NOUN}(?P<old1>{QUOTE})(?P<gap1>{GAP}{{0,250}}?)\b(?:and{ws})?(?:substituting|inserting|replacing{ws}(?:it|the{ws}same|such{ws}\w+){ws}with)(?:{ws}(?:therefor|in{ws}lieu{ws}thereof),?)?{ws}{VALUE_NOUN}(?P<new1>{QUOTE})"
        ),
        format!(
            r"(?P<old2>{QUOTE})(?P<gap2>{GAP}{{0,250}}?){PASSIVE_VERB}(?:{ws}in{ws}(?:its|their){ws}entirety)?{ws}(?:with|by|as){ws}{VALUE_NOUN}(?P<new2>{QUOTE})"
        ),
        format!(
            r"\b(?:replacing|changing){ws}{VALUE_NOUN}(?P<old3>{QUOTE})(?P<gap3>{GAP}{{0,120}}?)\b(?:with|by|to){ws}{VALUE_NOUN}(?P<new3>{QUOTE})"
        ),
    ]
}

/// A defined term named in a change: `the definition of "Maturity Date"`, `the words "…"`.
static NAMED_TERM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?i)\b(?:definitions?[ \t\r\n]+of|the[ \t\r\n]+(?:words?|phrase|term))[ \t\r\n]+["“](?P<term>[^"“”]{1,80})["”]"#,
    )
});

/// A defined term that a sentence says is amended: `"Maturity Date" shall be amended …`.
static AMENDED_TERM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"["“](?P<term>[^"“”]{1,80})["”][ \t\r\n]+(?:(?:in|of)[ \t\r\n]+Section[ \t]+[0-9.()a-z]+[ \t\r\n]+)?(?:is|are|shall[ \t\r\n]+be)[ \t\r\n]+(?:hereby[ \t\r\n]+)?(?:further[ \t\r\n]+)?amended"#,
    )
});

/// A section reference: `Section 2.1(a)`.
static SECTION: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b(?:Section|SECTION|Clause|CLAUSE)[ \t]+[0-9]+(?:\.[0-9]+)*(?:\([a-z0-9]+\))*"));

/// A definition restated: `"Maturity Date" means`, `'Final Maturity Date' shall mean`.
static MEANS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"["“'‘]{1,2}(?P<term>[A-Z][^"“”'’\n]{1,80})["”'’]{1,2}[ \t\r\n]+(?:means|shall[ \t\r\n]+mean)\b[ \t\r\n:,]*"#,
    )
});

/// Operative words that introduce a restated definition.
const RESTATING: &[&str] = &["amended", "restated", "replaced", "deleted", "read as follows", "substitut"];

/// `the Maturity Date is hereby extended from OLD to NEW`, `the Commitments are increased to NEW`.
static MOVED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?P<term>(?:[A-Z][\w\-]*[ \t\r\n]+){0,4}(?:Date|Commitments?|Amount|Margin|Spread|Rate))(?:[ \t\r\n]+(?:of|under|for)[ \t\r\n]+the[ \t\r\n]+[A-Z]\w*(?:[ \t\r\n]+[A-Z]\w*){0,2})?[ \t\r\n]+(?:is|are|shall[ \t\r\n]+be)[ \t\r\n]+(?:hereby[ \t\r\n]+)?(?:amended[ \t\r\n]+and[ \t\r\n]+)?(?:extended|increased|decreased|reduced|changed|amended)[ \t\r\n]+(?:from[ \t\r\n]+(?P<old>\S)[^;]{0,80}?[ \t\r\n]+)?to[ \t\r\n]+(?:and[ \t\r\n]+including[ \t\r\n]+)?(?P<new>\S)",
    )
});

/// `to extend the Maturity Date from OLD to NEW`, `increasing the Revolving Commitments from OLD to
/// NEW`: the active form states both values.
static MOVED_ACTIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i:\b(?:extend|extending|increase|increasing|reduce|reducing|decrease|decreasing|change|changing))[ \t\r\n]+(?:the[ \t\r\n]+)?(?P<term>(?:[A-Z][\w\-]*[ \t\r\n]+){0,4}(?:Date|Commitments?|Amount|Margin|Spread|Rate))(?:[ \t\r\n]+(?:of|under|for)[ \t\r\n]+the[ \t\r\n]+[A-Z]\w*(?:[ \t\r\n]+[A-Z]\w*){0,2})?[ \t\r\n]+from[ \t\r\n]+(?P<old>\S)[^;]{0,80}?[ \t\r\n]+to[ \t\r\n]+(?P<new>\S)",
    )
});

/// A lender's or the parties' operative consent to a later date, without the old one: "each Lender
/// agrees to extend the Termination Date with respect to its Commitment for a period of 364 days,
/// expiring November 5, 2015", "the Lenders hereby extend the Maturity Date to June 30, 2027". A
/// request or an option to extend ("may request to extend") is not one.
static EXTENDED_BY_CONSENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i:\b(?:agrees?[ \t\r\n]+to|hereby)[ \t\r\n]+extends?)[ \t\r\n]+(?:the[ \t\r\n]+)?(?P<term>(?:[A-Z][\w\-]*[ \t\r\n]+){0,4}Date)\b[^;.]{0,100}?[ \t\r\n,]+(?i:to|until|expiring(?:[ \t\r\n]+on)?|ending[ \t\r\n]+on)[ \t\r\n]+(?P<new>[A-Z0-9])",
    )
});

/// An amendment's textual substitution: `deleting "$150,000,000" immediately following the words
/// "the Total Commitment is" and substituting "$300,000,000" therefor`. The deleted text is no
/// longer a term of the agreement; the substituted text is, read in the context of the words it
/// follows. Unlike [`changes`], which reads a change of value and so takes a quote only when it
/// holds a value and nothing more, this reads whatever is struck.
static SUBSTITUTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?i)\bdeleting[ \t\r\n]+["“](?P<old>[^"”]{1,300})["”](?:[^"”]{0,120}?\b(?:following|after)[ \t\r\n]+the[ \t\r\n]+words?[ \t\r\n]+["“](?P<words>[^"”]{1,200})["”])?[^"”]{0,120}?\b(?:substituting|inserting)[ \t\r\n]+(?:therefor[ \t\r\n]+)?["“](?P<new>[^"”]{1,300})["”]"#,
    )
});

/// One textual substitution (see [`SUBSTITUTION`]), each range inside its quotes.
pub(crate) struct Substitution {
    /// The struck text.
    pub struck: Range<usize>,
    /// When the amendment says where the substitute goes: the words it follows, and the substitute.
    pub after_words: Option<(Range<usize>, Range<usize>)>,
}

/// Every textual substitution in `text`, in order. Facilities read their commitments through
/// them: a struck amount is no longer the commitment, a substituted one reads as the words it
/// follows say.
pub(crate) fn substitutions(text: &str) -> Vec<Substitution> {
    SUBSTITUTION
        .captures_iter(text)
        .filter_map(|captures| {
            let struck = captures.name("old")?.range();
            let after_words = match (captures.name("words"), captures.name("new")) {
                (Some(words), Some(new)) => Some((words.range(), new.range())),
                _ => None,
            };
            Some(Substitution { struck, after_words })
        })
        .collect()
}

/// Whether the figures at `figures` run straight into other figures, with nothing between: a
/// marked-up copy whose strike-through and underline were lost prints the deleted figure and the
/// inserted one as one run of digits ("$250,000,000300,000,000", "3.753.25%"). Neither part can be
/// told for the term's value: the first is the old one, and the second is read from the middle of
/// a number.
pub(crate) fn fused_with_other_figures(text: &str, figures: Range<usize>) -> bool {
    let bytes = text.as_bytes();
    let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let start = figures.start;
    let before = start
        .checked_sub(1)
        .is_some_and(|i| digit_at(i) || (matches!(bytes[i], b'.' | b',') && i.checked_sub(1).is_some_and(digit_at)));
    before || digit_at(figures.end)
}

/// How far after "means" a restated definition's value must start to be its value.
const MEANS_REACH: usize = 40;
/// How far after the operative words a restated definition may start.
const RESTATEMENT_REACH: usize = 400;

/// The changes an amendment states in its own text.
pub(crate) fn changes(doc: &Document<'_>) -> Vec<AmendedTerm> {
    let mut found = Vec::new();
    // A candidate that is not a change (its first quote is a defined term, say) must not hide a
    // change that starts inside it, so the search resumes just after a failed candidate's start.
    // The next change of each kind is kept while the search has not passed its start: it is still
    // the first of its kind from there.
    let mut from = 0;
    let mut active = ReplacedValue::active(doc.text, from);
    let mut passive = ReplacedValue::passive(doc.text, from);
    loop {
        if active.as_ref().is_some_and(|next| next.start() < from) {
            active = ReplacedValue::active(doc.text, from);
        }
        if passive.as_ref().is_some_and(|next| next.start() < from) {
            passive = ReplacedValue::passive(doc.text, from);
        }
        let next = match (&active, &passive) {
            (Some(a), Some(p)) => Some(if a.start() < p.start() { a } else { p }),
            (a, p) => a.as_ref().or(p.as_ref()),
        };
        let Some(next) = next else { break };
        match replaced_value(doc, next) {
            Some(change) => {
                found.push(change);
                from = next.end();
            }
            None => from = super::text::ceil_boundary(doc.text, next.start() + 1),
        }
    }
    for means in MEANS.captures_iter(doc.text) {
        found.extend(restated_definition(doc, &means));
    }
    for captures in MOVED
        .captures_iter(doc.text)
        .chain(MOVED_ACTIVE.captures_iter(doc.text))
        .chain(EXTENDED_BY_CONSENT.captures_iter(doc.text))
    {
        found.extend(moved_value(doc, &captures));
    }
    found.retain(|change| doc.parts.in_body(change.after.span().start));
    // A redline's run-together dates are a change wherever they stand: the marked copy of the
    // amended agreement an amendment attaches exists to show what it changes.
    found.extend(REDLINED_DATE.captures_iter(doc.text).filter_map(|captures| redlined_date(doc, &captures)));
    found.sort_by_key(|change| change.after.span().start);
    found.dedup_by(|later, earlier| later.after.span() == earlier.after.span());
    found
}

/// A quoted value replaced by another, found by [`REPLACED_ACTIVELY`] or [`PASSIVE_REPLACED`]. The
/// passive form is matched on the text from its start, so its captures are offset by `at`.
struct ReplacedValue<'t> {
    captures: Captures<'t>,
    at: usize,
}

impl<'t> ReplacedValue<'t> {
    /// The first change of the forms that open on their operative word at or after `from`.
    fn active(text: &'t str, from: usize) -> Option<Self> {
        REPLACED_ACTIVELY.captures_at(text, from).map(|captures| Self { captures, at: 0 })
    }

    /// The first passive change starting at or after `from`: tried at every quote that can reach a
    /// passive verb, in order (the stretches before successive verbs start in order too).
    fn passive(text: &'t str, from: usize) -> Option<Self> {
        let mut tried = from;
        let mut verbs = from;
        while let Some(verb) = PASSIVE_CHANGE.find_at(text, verbs) {
            verbs = verb.end();
            let stretch = passive_reach(text, verb.start()).max(tried)..verb.start();
            tried = tried.max(verb.start());
            for (offset, mark) in text[stretch.clone()].char_indices() {
                if mark != '"' && mark != '“' {
                    continue;
                }
                let at = stretch.start + offset;
                if let Some(captures) = PASSIVE_REPLACED.captures(&text[at..]) {
                    return Some(Self { captures, at });
                }
            }
        }
        None
    }

    fn group(&self, name: &str) -> Option<Range<usize>> {
        self.captures.name(name).map(|group| self.at + group.start()..self.at + group.end())
    }

    fn start(&self) -> usize {
        self.at + self.captures.get(0).map_or(0, |whole| whole.start())
    }

    fn end(&self) -> usize {
        self.at + self.captures.get(0).map_or(0, |whole| whole.end())
    }
}

/// The earliest a passive change whose verb starts at `verb` can start: its gap reaches back from
/// the verb over no semicolon, no blank line and at most [`PASSIVE_GAP_UNITS`] characters other
/// than spaces and line breaks ([`GAP`]), and its old value's quote is at most [`QUOTE_CHARS`]
/// long before that.
fn passive_reach(text: &str, verb: usize) -> usize {
    let before = &text[..verb];
    let mut gap = verb;
    let mut units = 0;
    for (at, c) in before.char_indices().rev() {
        let blank_line = c == '\n' && before[at + 1..].trim_start_matches([' ', '\t']).starts_with([';', '\r', '\n']);
        if c == ';' || blank_line {
            break;
        }
        if !matches!(c, ' ' | '\t' | '\r' | '\n') {
            units += 1;
            if units > PASSIVE_GAP_UNITS {
                break;
            }
        }
        gap = at;
    }
    text[..gap].char_indices().rev().take(QUOTE_CHARS).last().map_or(gap, |(at, _)| at)
}

fn replaced_value(doc: &Document<'_>, found: &ReplacedValue<'_>) -> Option<AmendedTerm> {
    let (old, gap, new) = ["1", "2", "3"].iter().find_map(|n| {
        Some((found.group(&format!("old{n}"))?, found.group(&format!("gap{n}"))?, found.group(&format!("new{n}"))?))
    })?;
    let before = quoted_value(doc, old.clone())?;
    let after = quoted_value(doc, new.clone())?;
    let sentence = sentence_around(doc.text, old.start);
    let term = NAMED_TERM
        .captures(doc.slice(gap.clone()))
        .and_then(|c| c.name("term"))
        .map(|t| gap.start + t.start()..gap.start + t.end())
        .or_else(|| last_term_before(doc, sentence.start..old.start))
        .or_else(|| {
            SECTION
                .find_iter(doc.slice(sentence.start..old.start))
                .last()
                .map(|m| sentence.start + m.start()..sentence.start + m.end())
        })?;
    change(doc, term, Some(before), after)
}

/// The defined term the words before a change name: the last `definition of "…"` or `"…" shall be
/// amended` of the sentence.
fn last_term_before(doc: &Document<'_>, lead: Range<usize>) -> Option<Range<usize>> {
    let text = doc.slice(lead.clone());
    let named = NAMED_TERM.captures_iter(text).last().and_then(|c| c.name("term").map(|t| t.range()));
    let amended = AMENDED_TERM.captures_iter(text).last().and_then(|c| c.name("term").map(|t| t.range()));
    let term = match (named, amended) {
        (Some(a), Some(b)) => Some(if a.start > b.start { a } else { b }),
        (a, b) => a.or(b),
    }?;
    Some(lead.start + term.start..lead.start + term.end)
}

/// `"Maturity Date" means June 30, 2027`, when the operative words before it restate that
/// definition and the value opens the definition.
fn restated_definition(doc: &Document<'_>, means: &Captures<'_>) -> Option<AmendedTerm> {
    let whole = means.get(0)?;
    let term = means.name("term")?;
    let lead_start = super::text::floor_boundary(doc.text, whole.start().saturating_sub(RESTATEMENT_REACH));
    let lead = doc.slice(lead_start..whole.start());
    // The operative words must name this very term: `definition of "Maturity Date" … amended`.
    let named_here = lead.contains(&format!("\"{}\"", term.as_str())) || lead.contains(&format!("“{}”", term.as_str()));
    if !named_here || !contains_any_ci(lead, RESTATING) {
        return None;
    }
    let category = category_of(term.as_str());
    let reach = super::text::floor_boundary(doc.text, whole.end() + MEANS_REACH);
    let after = first_value(doc, whole.end()..reach, category)?;
    if after.span.start > whole.end() + MEANS_REACH {
        return None;
    }
    change(doc, term.range(), None, doc.sourced(after.span, after.value)?)
}

fn moved_value(doc: &Document<'_>, captures: &Captures<'_>) -> Option<AmendedTerm> {
    let term = captures.name("term")?;
    let category = category_of(term.as_str());
    let new = captures.name("new")?;
    let after = value_at(doc, new.start(), category)?;
    let before = match captures.name("old") {
        Some(old) => Some(value_at(doc, old.start(), category)?),
        None => None,
    };
    let after = doc.sourced(after.span, after.value)?;
    let before = before.and_then(|b| doc.sourced(b.span, b.value));
    change(doc, term.range(), before, after)
}

/// A value found in the text.
struct Found {
    span: Range<usize>,
    value: StatedValue,
}

/// The value a quoted passage holds, when the passage is that value and nothing more (a leading
/// "the" or trailing punctuation aside).
fn quoted_value(doc: &Document<'_>, quote: Range<usize>) -> Option<super::sourced::Sourced<StatedValue>> {
    let quoted = doc.slice(quote.clone());
    let open = quoted.chars().next().map_or(0, char::len_utf8);
    let close = quoted.chars().next_back().map_or(0, char::len_utf8);
    let inner = quote.start + open..quote.end - close;
    let inner = super::text::trim_range_and(doc.text, inner, &[',', '.', ';', ':']);
    let found = first_value(doc, inner.clone(), AmendedTermCategory::Other)?;
    let filler = |text: &str| {
        text.split_whitespace()
            .all(|w| w.eq_ignore_ascii_case("the") || w.eq_ignore_ascii_case("per") || w.eq_ignore_ascii_case("annum"))
    };
    let after = doc.slice(found.span.end..inner.end);
    // "$200,000,000, of which $180,000,000 may be used solely for …": the value, then what part of
    // it is for.
    let qualified =
        after.trim_start_matches([',', ' ', '\t', '\r', '\n']).to_ascii_lowercase().starts_with("of which ");
    let alone = filler(doc.slice(inner.start..found.span.start)) && (filler(after) || qualified);
    alone.then(|| doc.sourced(found.span, found.value)).flatten()
}

/// The first date, amount or rate in `range` of the kind `category` takes.
fn first_value(doc: &Document<'_>, range: Range<usize>, category: AmendedTermCategory) -> Option<Found> {
    let date =
        doc.dates_in(range.clone()).first().map(|d| Found { span: d.span.clone(), value: StatedValue::Date(d.date) });
    let money = super::text::within(&doc.money, range.clone())
        .first()
        .map(|m| Found { span: m.span.clone(), value: StatedValue::Money(m.money) });
    let rate =
        doc.percents_in(range).first().map(|p| Found { span: p.span.clone(), value: StatedValue::Rate(p.fraction) });
    match category {
        AmendedTermCategory::MaturityDate => date,
        AmendedTermCategory::Commitment => money,
        AmendedTermCategory::Margin | AmendedTermCategory::Fee => rate,
        AmendedTermCategory::Other => [date, money, rate].into_iter().flatten().min_by_key(|f| f.span.start),
    }
}

const MONTHS: &str = "January|February|March|April|May|June|July|August|September|October|November|December";

/// A defined date as a redline shows it once its strike-through and underline are lost: the
/// struck date runs straight into the inserted one. `"Maturity Date": March 18November 20,
/// 20212023` (month and day, then month and day, then the two years), `March 18, 2021November 20,
/// 2023` (two whole dates), `March 18, 20212023` (the year alone changed). Read only right after
/// the term's definition opens, where a date is the value the term is given.
static REDLINED_DATE: LazyLock<Regex> = LazyLock::new(|| {
    let ws = r"[ \t]+";
    let year = r"(?:19|20)[0-9]{2}";
    pattern(&format!(
        r#"["“](?P<term>[A-Z][A-Za-z\- ]{{1,60}})["”][ \t]*(?::|means|shall{ws}mean)[ \t\r\n]+(?:(?P<m1>{MONTHS}){ws}(?P<d1>[0-9]{{1,2}})(?:(?P<m2>{MONTHS}){ws}(?P<d2>[0-9]{{1,2}}),[ \t]*(?P<y1>{year})(?P<y2>{year})|,[ \t]*(?P<y3>{year})(?:(?P<m4>{MONTHS}){ws}(?P<d4>[0-9]{{1,2}}),[ \t]*(?P<y4>{year})|(?P<y5>{year}))))\b"#
    ))
});

/// The change a [`REDLINED_DATE`] shows, struck date first as redlines set it. A maturity or other
/// date that the reading would move earlier is withheld: which of the two was struck is then in
/// doubt.
fn redlined_date(doc: &Document<'_>, captures: &Captures<'_>) -> Option<AmendedTerm> {
    let whole = captures.get(0)?;
    let term = captures.name("term")?;
    let number = |name: &str| captures.name(name).and_then(|m| m.as_str().parse::<i32>().ok());
    let month = |name: &str| {
        let index = MONTHS.split('|').position(|m| Some(m) == captures.name(name).map(|c| c.as_str()))?;
        time::Month::try_from(u8::try_from(index + 1).ok()?).ok()
    };
    let date = |m: &str, d: &str, y: &str| {
        time::Date::from_calendar_date(number(y)?, month(m)?, u8::try_from(number(d)?).ok()?).ok()
    };
    let (before, after) = if captures.name("m2").is_some() {
        (date("m1", "d1", "y1")?, date("m2", "d2", "y2")?)
    } else if captures.name("m4").is_some() {
        (date("m1", "d1", "y3")?, date("m4", "d4", "y4")?)
    } else {
        (date("m1", "d1", "y3")?, date("m1", "d1", "y5")?)
    };
    if after <= before {
        return None;
    }
    let values = captures.name("m1")?.start()..whole.end();
    let before = doc.sourced(values.clone(), StatedValue::Date(before));
    change(doc, term.range(), before, doc.sourced(values, StatedValue::Date(after))?)
}

/// The value that starts at `pos`.
fn value_at(doc: &Document<'_>, pos: usize, category: AmendedTermCategory) -> Option<Found> {
    let reach = super::text::floor_boundary(doc.text, pos + 60);
    first_value(doc, pos..reach, category).filter(|f| f.span.start == pos)
}

/// What a term is, from its words.
fn category_of(term: &str) -> AmendedTermCategory {
    let lower = term.to_lowercase();
    if ["maturity", "termination date", "expiry", "expiration"].iter().any(|w| lower.contains(w)) {
        AmendedTermCategory::MaturityDate
    } else if lower.contains("fee") {
        AmendedTermCategory::Fee
    } else if ["margin", "spread", "applicable rate", "applicable percentage"].iter().any(|w| lower.contains(w)) {
        AmendedTermCategory::Margin
    } else if ["commitment", "facility amount", "maximum amount", "aggregate amount"].iter().any(|w| lower.contains(w))
    {
        AmendedTermCategory::Commitment
    } else {
        AmendedTermCategory::Other
    }
}

/// The change, when both values are of one kind and of the kind the term is.
fn change(
    doc: &Document<'_>,
    term: Range<usize>,
    before: Option<super::sourced::Sourced<StatedValue>>,
    after: super::sourced::Sourced<StatedValue>,
) -> Option<AmendedTerm> {
    // "The Aggregate Commitments are increased": the article is not part of the term.
    let words = doc.slice(term.clone());
    let article = ["The ", "the "].iter().find(|a| words.starts_with(**a)).map_or(0, |a| a.len());
    let mut term = term.start + article..term.end;
    // "the words "the Total Revolving Loan Commitment is"": the verb after the term is not part of it.
    while let Some(last) = doc.slice(term.clone()).rsplit(char::is_whitespace).next()
        && matches!(last, "is" | "are" | "of" | "to" | "be")
        && term.len() > last.len()
    {
        term = super::text::trim_range(doc.text, term.start..term.end - last.len());
    }
    let name = doc.slice(term.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
    let category = category_of(&name);
    let kind_fits = |value: &StatedValue| {
        matches!(
            (category, value),
            (AmendedTermCategory::MaturityDate, StatedValue::Date(_))
                | (AmendedTermCategory::Commitment, StatedValue::Money(_))
                | (AmendedTermCategory::Margin | AmendedTermCategory::Fee, StatedValue::Rate(_))
                | (AmendedTermCategory::Other, _)
        )
    };
    let same_kind =
        before.as_ref().is_none_or(|b| std::mem::discriminant(b.value()) == std::mem::discriminant(after.value()));
    if !kind_fits(after.value()) || !same_kind || before.as_ref().is_some_and(|b| b.value() == after.value()) {
        return None;
    }
    Some(AmendedTerm { term: doc.sourced(term, name)?, category, before, after })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(String, String, Option<String>, String)> {
        let doc = Document::scan(text);
        changes(&doc)
            .into_iter()
            .map(|c| {
                let value = |v: &StatedValue| match v {
                    StatedValue::Date(d) => d.to_string(),
                    StatedValue::Money(m) => format!("{} {}", m.value, m.currency),
                    StatedValue::Rate(r) => r.to_string(),
                };
                (
                    c.term.value().clone(),
                    c.category.to_string(),
                    c.before.map(|b| value(b.value())),
                    value(c.after.value()),
                )
            })
            .collect()
    }

    #[test]
    fn a_redlined_definition_whose_dates_run_together_is_a_change_to_the_later_date() {
        let dates = |text: &str| {
            read(text).into_iter().map(|(term, _, before, after)| (term, before, after)).collect::<Vec<_>>()
        };
        let merged = "EXHIBIT A\n\"Final Maturity Date\": June 2September 14, 20242026, or the next Business Day.\n";
        let expected = [("Final Maturity Date".to_owned(), Some("2024-06-02".to_owned()), "2026-09-14".to_owned())];
        assert_eq!(dates(merged), expected);
        let whole = "\"Final Maturity Date\" means June 2, 2024September 14, 2026.\n";
        assert_eq!(dates(whole), expected);
        let year = "\"Final Maturity Date\": June 2, 20242026.\n";
        assert_eq!(dates(year)[0].2, "2026-06-02");
        // Read struck-first, the later date would be struck: which one was is in doubt.
        let backwards = "\"Final Maturity Date\": September 14June 2, 20262024.\n";
        assert!(dates(backwards).is_empty());
        // Two dates of a schedule are no redline.
        let listed = "\"Payment Dates\": June 2, 2024 and September 14, 2026.\n";
        assert!(dates(listed).is_empty());
    }

    #[test]
    fn a_quoted_value_replaced_in_a_definition_is_a_change_of_that_term() {
        let text = "SECOND AMENDMENT\n\n(a) The date \"March 1, 2026\" appearing in the definition of \"Revolving \
            Termination Date\" is hereby deleted and replaced with the date \"March 1, 2028\".\n\n(b) Section 2.01(b) \
            is amended by deleting \"$40,000,000\" immediately after the words \"Swing Line Sublimit of\" and \
            substituting \"$55,000,000\" therefor.\n\n(d)Section 2.6 is hereby amended by replacing the reference to \
            “5.00%” in such section with “4.50%”.\n\n(c) Section 9.04 is amended by deleting \"the Borrower\" and \
            substituting \"each Borrower\" therefor.\n";
        assert_eq!(
            read(text),
            [
                (
                    "Revolving Termination Date".into(),
                    "MaturityDate".into(),
                    Some("2026-03-01".into()),
                    "2028-03-01".into()
                ),
                ("Swing Line Sublimit".into(), "Other".into(), Some("40000000 USD".into()), "55000000 USD".into()),
                ("Section 2.6".into(), "Other".into(), Some("0.05".into()), "0.045".into()),
            ]
        );
    }

    #[test]
    fn a_replacement_value_followed_by_what_part_of_it_is_for_is_that_value() {
        let text = "Section 2.3 is amended by deleting \"$10,000,000\" following the words \"the Term Loans shall not \
            exceed\" and substituting \"$25,000,000, of which $5,000,000 may be used only for Capital Expenditures\" \
            therefor.\n\nSection 2.4 is amended by deleting \"$1,000,000\" and substituting \"$2,000,000 and any \
            other amount the Agent approves\" therefor.\n";
        assert_eq!(
            read(text),
            [(
                "Term Loans shall not exceed".into(),
                "Other".into(),
                Some("10000000 USD".into()),
                "25000000 USD".into()
            )]
        );
    }

    #[test]
    fn a_restated_definition_that_opens_with_its_value_is_a_change() {
        let text = "1.1 The definition of \"Maturity Date\" in Section 1.01 of the Credit Agreement is amended and \
            restated in its entirety to read as follows:\n\n\"Maturity Date\" means September 30, 2029, or such \
            earlier date on which the Commitments terminate.\n\n1.2 The definition of \"Applicable Margin\" is \
            amended and restated as follows: \"Applicable Margin\" means, for any day, the rate per annum set forth \
            in the grid below under the caption \"Margin\", being 1.75% at Level I.\n";
        assert_eq!(read(text), [("Maturity Date".into(), "MaturityDate".into(), None, "2029-09-30".into())]);
    }

    #[test]
    fn a_consent_to_extend_a_date_to_a_later_one_is_a_change_but_a_request_or_option_is_not() {
        let text = "Section 2. Extension. Each Consenting Lender hereby agrees to extend the Expiry Date with respect to \
            its Revolving Commitment for a further period of one year, expiring April 12, 2027.\n\n\
            Section 3. The Borrower may request that the Lenders extend the Maturity Date to March 1, 2030.\n";
        assert_eq!(read(text), [("Expiry Date".into(), "MaturityDate".into(), None, "2027-04-12".into())]);
    }

    #[test]
    fn a_term_extended_or_increased_from_one_value_to_another_is_a_change() {
        let text = "Effective as of the date hereof, the Maturity Date is hereby extended from June 30, 2025 to June \
            30, 2027. The Aggregate Revolving Commitments are hereby increased to $750,000,000. The Borrower shall \
            pay interest from January 1, 2025 to the date of payment.\n\nWHEREAS, the parties wish to extend the \
            Termination Date from March 31, 2026 to September 30, 2026.\n";
        assert_eq!(
            read(text),
            [
                ("Maturity Date".into(), "MaturityDate".into(), Some("2025-06-30".into()), "2027-06-30".into()),
                ("Aggregate Revolving Commitments".into(), "Commitment".into(), None, "750000000 USD".into()),
                ("Termination Date".into(), "MaturityDate".into(), Some("2026-03-31".into()), "2026-09-30".into()),
            ]
        );
    }

    #[test]
    fn a_replaced_value_of_the_wrong_kind_or_in_an_attachment_is_not_a_change() {
        let text = "THIRD AMENDMENT TO CREDIT AGREEMENT\n\nTHIS THIRD AMENDMENT TO CREDIT AGREEMENT, dated as of May \
            1, 2024, is among ACME CORP., as the Borrower, and FIRST BANK, as Administrative Agent.\n\nThe \
            definition of \"Maturity Date\" is amended by replacing \"$10,000,000\" with \"$12,000,000\".\n\nIN \
            WITNESS WHEREOF, the parties have executed this Amendment.\n\nEXHIBIT A\n\nCONFORMED CREDIT \
            AGREEMENT\n\nThe Maturity Date is hereby extended to June 30, 2031.\n";
        assert_eq!(read(text), []);
    }

    #[test]
    fn a_passive_change_is_read_when_its_words_before_the_verb_wrap_over_deeply_indented_lines() {
        // 199 characters of words, but 562 with the indentation: the words' reach counts the former.
        let indent = format!("\n{}", " ".repeat(120));
        let gap = [
            "appearing in the definition of \"Revolving Termination Date\"",
            "in Section 1.01 of the Credit Agreement, as amended by",
            "the First Amendment and the Second Amendment and as",
            "used in each other Loan Document,",
        ]
        .join(&indent);
        let text = format!(
            "THIRD AMENDMENT\n\n(a) The date \"March 1, 2026\" {gap} is hereby deleted and replaced with the date \
             \"March 1, 2028\".\n"
        );
        assert_eq!(
            read(&text),
            [(
                "Revolving Termination Date".into(),
                "MaturityDate".into(),
                Some("2026-03-01".into()),
                "2028-03-01".into()
            )]
        );
    }

    #[test]
    fn the_stretch_a_passive_verb_is_tried_from_holds_the_longest_quote_and_gap_before_it_and_no_semicolon() {
        let quote = format!("“{}”", "q".repeat(300));
        let gap = "g".repeat(PASSIVE_GAP_UNITS);
        let text = format!("(a) The words {quote}{gap}is replaced with “1.00%”.");
        let verb = text.find("is replaced").unwrap_or(text.len());
        assert_eq!(passive_reach(&text, verb), "(a) The words ".len());
        // The quote may hold a semicolon, the words after it may not.
        let after_a_semicolon = format!("{}; {} is replaced with “2.00%”.", "x".repeat(800), "g".repeat(10));
        let verb = after_a_semicolon.find("is replaced").unwrap_or(0);
        assert_eq!(passive_reach(&after_a_semicolon, verb), 801 - QUOTE_CHARS);
    }
}
