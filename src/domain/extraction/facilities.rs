//! Facilities: which facilities an agreement makes available, and each one's type, name,
//! commitment and final maturity, with its pricing (see [`super::pricing`]) applied. Every
//! stated value is a candidate scoped to facilities and resolved per facility as
//! [`super::scope`] describes.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;
use time::Date;

use super::document::{Document, Report, quoted};
use super::facility_refs::{FacilityKey, FacilityRef, Qualifier};
use super::model::{AmendedTerm, AmendedTermCategory, Facility, FacilityType, StatedValue};
use super::numbers::{Money, MoneyMatch};
use super::pricing::{self, PricingCandidates};
use super::scope::{
    FacilityFrame, Scoped, applicable, applies_once_extended, covers, nearest_scope, resolve, scope_at, unique_keys,
};
use super::sourced::Sourced;
use super::text::{any_word, clause_around, contains_any_ci, contains_ci, pattern};

/// Words that mark an amount as something other than a facility's commitment: sublimits,
/// incremental capacity, baskets, thresholds, minimum borrowings.
static NOT_A_COMMITMENT: LazyLock<Regex> = LazyLock::new(|| any_word(NOT_A_COMMITMENT_WORDS));

const NOT_A_COMMITMENT_WORDS: &[&str] = &[
    "sublimit",
    "incremental",
    "increase",
    "accordion",
    "swing line",
    "swingline",
    "indebtedness",
    "liens",
    "investments",
    "threshold",
    "judgment",
    "in excess of",
    "greater of",
    "minimum",
    "multiple",
    "basket",
    "restricted payment",
    "prepay",
    "fee letter",
    "purchase price",
    "dividend",
];

/// Words before an amount that make it something measured against the commitment rather than
/// the commitment itself: a letter of credit's face amount, a reduction step or its result, a fee.
/// Read before the amount only: "$25,000,000 minus the face amount of all outstanding Letters of
/// Credit" is still a statement of the loans' limit.
static NOT_A_COMMITMENT_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    any_word(&["face amount", "increment", "reduc", "resulting", "less than", "fee", "exceeds", "any one borrowing"])
});

/// How far above a total the lenders' amounts it adds up may start.
const LENDER_LIST_REACH: usize = 80_000;

/// Whether `total` stands alone on its line below a column of lenders' amounts that add up to it
/// exactly: the signature pages' "$40,000,000   BANK ONE, NA, as a Bank" … "$2,400,000,000.00".
/// The sum is what makes it the total of the commitments rather than any other figure.
fn sums_the_lenders_above(doc: &Document<'_>, total: &MoneyMatch) -> bool {
    let Some(line) = super::text::line_around(doc.text, total.span.start, 200) else { return false };
    if doc.slice(line.clone()).trim() != doc.slice(total.span.clone()) {
        return false;
    }
    let reach = total.span.start.saturating_sub(LENDER_LIST_REACH);
    let above = doc.money.partition_point(|m| m.span.start < total.span.start);
    let mut sum = Decimal::ZERO;
    let mut count = 0;
    for lender in doc.money[..above].iter().rev().take_while(|m| m.span.start >= reach) {
        let opens_line = super::text::line_around(doc.text, lender.span.start, 200)
            .is_some_and(|l| doc.slice(l.start..lender.span.start).trim().is_empty());
        let named =
            doc.slice(super::text::after(doc.text, lender.span.end, 60)).trim_start().starts_with(char::is_uppercase);
        if !opens_line || !named || lender.money.currency != total.money.currency {
            continue;
        }
        sum += lender.money.value;
        count += 1;
        if sum >= total.money.value {
            break;
        }
    }
    count >= 2 && sum == total.money.value
}

static AMOUNT_LEAD_IN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?:aggregate[ \t\r\n]+(?:original[ \t\r\n]+)?(?:principal[ \t\r\n]+)?amount|principal[ \t\r\n]+amount|(?:principal|aggregate)[ \t\r\n]+sum|facility[ \t\r\n]+amount|commitments?|loans|advances|amount)\b[^$£€;]{0,80}?(?:\bof|\bequal[ \t\r\n]+to|\bnot[ \t\r\n]+to[ \t\r\n]+exceed|\bnot[ \t\r\n]+exceeding|\bshall[ \t\r\n]+not[ \t\r\n]+exceed|\bup[ \t\r\n]+to|\bis|\bare|\bmeans|\bshall[ \t\r\n]+mean|\bshall[ \t\r\n]+be|\bbeing|\btotall?ing|:)(?:[ \t\r\n]+(?:in[ \t\r\n]+the[ \t\r\n]+aggregate|at[ \t\r\n]+any[ \t\r\n]+(?:one[ \t\r\n]+)?time(?:[ \t\r\n]+outstanding)?))?[ \t\r\n]*$",
    )
});

/// Words that tie an amount's clause to the facility: the commitment, the facility, the lenders'
/// undertaking to lend, or a note's principal sum. An amount of "goodwill in an amount not to
/// exceed" or "an assignment fee in the amount of" is none of these.
static COMMITMENT_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bcommitments?\b|\bfacilit(?:y|ies)\b|\bagree[sd]?[ \t\r\n]+to[ \t\r\n]+(?:make|lend|extend|provide)\b|\bprincipal[ \t\r\n]+sum\b|\bline[ \t\r\n]+of[ \t\r\n]+credit\b|\bcredit[ \t\r\n]+line\b",
    )
});

/// Labels whose value is a facility amount.
const AMOUNT_LABELS: &[&str] = &[
    "amount",
    "facility amount",
    "facility size",
    "size",
    "commitment",
    "commitments",
    "principal amount",
    "total commitments",
    "aggregate commitments",
    "facility",
    "facilities",
];

/// Defined terms whose definition states the amount of a facility ("Commitment", "Total
/// Commitments", "Maximum Revolving Credit Commitment", "Facility Amount"), not the sublimits,
/// fees, unused or available portions and increases measured against it.
fn is_commitment_term(term: &str) -> bool {
    // "Maximum Revolver Amount", "Maximum Credit Amount": the cap an asset-based facility is sized
    // by. A qualified one ("Canadian Maximum Revolver Amount") caps a part of it.
    let maximum_amount = term.starts_with("maximum ")
        && term.ends_with(" amount")
        && ["revolver", "revolving", "credit", "loan", "facility"].iter().any(|w| term.contains(w));
    let names_amount =
        term.contains("commitment") || term.ends_with("facility amount") || term == "maximum amount" || maximum_amount;
    names_amount
        && ![
            "sublimit",
            "fee",
            "increase",
            "incremental",
            "reduction",
            "percentage",
            "swing",
            "letter of credit",
            "l/c",
            "available",
            "unused",
            "utilized",
            "date",
            "period",
            "extension",
            "additional",
            "new ",
        ]
        .iter()
        .any(|w| term.contains(w))
}

/// An amount directly followed by the commitments it totals: "$500,000,000 Total Commitments" at
/// the foot of a lender schedule or signature pages.
static TOTAL_COMMITMENTS_AFTER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^[ \t\r\n]*(?:Total|TOTAL|Aggregate|AGGREGATE)[ \t\r\n]+(?:Commitments|COMMITMENTS)\b"));

/// An amendment's textual substitution: `deleting "$150,000,000" immediately following the words
/// "the Total Commitment is" and substituting "$300,000,000" therefor`. The deleted text is no
/// longer a term of the agreement; the substituted text is, read in the context of the words it
/// follows.
static SUBSTITUTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?i)\bdeleting[ \t\r\n]+["“](?P<old>[^"”]{1,300})["”](?:[^"”]{0,120}?\b(?:following|after)[ \t\r\n]+the[ \t\r\n]+words?[ \t\r\n]+["“](?P<words>[^"”]{1,200})["”])?[^"”]{0,120}?\b(?:substituting|inserting)[ \t\r\n]+(?:therefor[ \t\r\n]+)?["“](?P<new>[^"”]{1,300})["”]"#,
    )
});

static BLANK_LINE: LazyLock<Regex> = LazyLock::new(|| pattern(r"\n[ \t\r]*\n"));

/// Candidates for the facilities' commitments. Those `defining` are stated by the provision that
/// sets the amount (the definition of the commitment, a term sheet's label, the total of the
/// lender schedule, the amount that names its facility); `passing` ones by a clause that mentions
/// the amount in the course of something else (a lending clause, a note's principal sum).
#[derive(Default)]
struct Commitments {
    defining: Vec<Scoped<Sourced<Money>>>,
    passing: Vec<Scoped<Sourced<Money>>>,
}

impl Commitments {
    /// Every candidate, in text order.
    fn all(&self) -> impl Iterator<Item = &Scoped<Sourced<Money>>> {
        let mut all: Vec<&Scoped<Sourced<Money>>> = self.defining.iter().chain(&self.passing).collect();
        all.sort_by_key(|c| c.value.span().start);
        all.into_iter()
    }
}

/// Every statement of a facility's commitment, with the facilities it is for.
fn commitment_candidates(doc: &Document<'_>, report: &mut Report) -> Commitments {
    let mut candidates = Commitments::default();
    let mut struck: Vec<Range<usize>> = Vec::new();
    let mut substituted: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    for captures in SUBSTITUTION.captures_iter(doc.text) {
        if let Some(old) = captures.name("old") {
            struck.push(old.range());
        }
        if let (Some(words), Some(new)) = (captures.name("words"), captures.name("new")) {
            substituted.push((words.range(), new.range()));
        }
    }
    for found in &doc.money {
        if struck.iter().any(|r| r.contains(&found.span.start)) {
            continue;
        }
        if let Some(words) = &found.words_disagree {
            report.warnings.push(format!(
                "conflict: an amount is stated in words as {} and in figures as {}; the statement is not used",
                quoted(doc.slice(words.clone()), words.clone()),
                quoted(doc.slice(found.figures.clone()), found.figures.clone()),
            ));
            continue;
        }
        // The substituted amount reads in the context of the words it follows.
        let replaced_context = substituted
            .iter()
            .find(|(_, new)| new.start <= found.span.start && found.span.end <= new.end)
            .map(|(words, _)| words.clone());
        let clause = clause_around(doc.text, found.span.start);
        let lead_range = match &replaced_context {
            Some(words) => words.clone(),
            None => clause.start.max(found.span.start.saturating_sub(160))..found.span.start,
        };
        let lead_in = doc.slice(lead_range.clone());
        // Within the definition's own paragraph: a definition runs on to the next one, over any
        // unrelated paragraph between them.
        let definition = doc
            .structure
            .definition_at(found.span.start)
            .filter(|d| !BLANK_LINE.is_match(doc.slice(d.body.start..found.span.start)));
        let defined = definition.is_some_and(|d| is_commitment_term(&d.key));
        // What follows the amount in the definition of the commitment says how it changes ("and
        // increased by the amount of any Increase"), not that it is some other amount.
        let judged = if defined { clause.start..found.span.end } else { clause.clone() };
        // "in the amount of $1,050,000.00 (the "Loan Amount")": the amount the document itself names
        // as the loan's, whatever else its sentence mentions (a lender called "… Investments, LLC").
        let named_as_loan = named_after(doc, found.span.end).is_some_and(|term| {
            is_commitment_term(&term)
                || ["loan amount", "principal amount", "original principal amount", "maximum principal amount"]
                    .contains(&term.as_str())
        });
        if (!named_as_loan && NOT_A_COMMITMENT.is_match(doc.slice(judged)))
            || super::text::matches_outside_date_names(&NOT_A_COMMITMENT_LEAD, lead_in)
        {
            continue;
        }
        let following = type_reference_after(doc, found.span.end, clause.end)
            .or_else(|| defined_reference_after(doc, found.span.end));
        let labelled =
            doc.structure.label_at(found.span.start).is_some_and(|label| AMOUNT_LABELS.contains(&label.key.as_str()));
        // "Canadian Maximum Revolver Amount" means $50,000,000": the amount of another defined
        // amount (a sublimit, a cap, a threshold), not a statement of the facility's size.
        let defines_other_amount = definition.is_some_and(|d| {
            !is_commitment_term(&d.key)
                && ["amount", "limit", "sublimit", "cap", "threshold", "basket"].iter().any(|w| d.key.ends_with(w))
        });
        if defines_other_amount {
            continue;
        }
        let totals = TOTAL_COMMITMENTS_AFTER.is_match(doc.slice(super::text::after(doc.text, found.span.end, 40)))
            || sums_the_lenders_above(doc, found);
        let stated_in_passing = AMOUNT_LEAD_IN.is_match(lead_in)
            && (COMMITMENT_CONTEXT.is_match(lead_in) || !doc.refs_in(lead_range.clone()).is_empty());
        let defining = following.is_some() || labelled || totals || named_as_loan || (defined && stated_in_passing);
        if !defining && !stated_in_passing {
            continue;
        }
        // "Current Liabilities" means … the Revolving Credit Loans outstanding but not up to
        // $3,980,000 in reserves: an amount in passing in the definition of something that is not
        // a loan, a facility or an amount of either is part of that other thing.
        let in_unrelated_definition = definition.is_some_and(|d| {
            ![
                "loan",
                "advance",
                "credit",
                "facilit",
                "note",
                "commitment",
                "amount",
                "principal",
                "borrowing",
                "revolv",
                "tranche",
            ]
            .iter()
            .any(|w| d.key.contains(w))
        });
        if !defining && in_unrelated_definition {
            continue;
        }
        let keys = match (following, &replaced_context, second_definition_before(doc, found.span.start)) {
            (Some(key), _, _) => vec![key],
            (None, Some(words), _) => unique_keys(doc.refs_in(words.clone())).into_iter().take(1).collect(),
            // `… and "Euro Term-1 Commitments" shall mean the aggregate …, which amount … shall be
            // €7,226,303.75`: the amount is the one this second definition sets, for the facility
            // it names, or for none when it names a part of one.
            (None, None, Some(term)) => unique_keys(doc.refs_in(term)).into_iter().take(1).collect(),
            (None, None, None) => nearest_scope(doc, found.span.start),
        };
        if let Some(money) = doc.sourced(found.span.clone(), found.money) {
            let list = if defining { &mut candidates.defining } else { &mut candidates.passing };
            list.push(Scoped::new(money, keys));
        }
    }
    candidates
}

/// A term defined inside another definition's paragraph, in the sentence before `pos`: `…, and
/// "Dollar Revolving Commitments" shall mean the aggregate …`. Its span, without the quotes.
fn second_definition_before(doc: &Document<'_>, pos: usize) -> Option<Range<usize>> {
    let own = doc.structure.definition_at(pos)?;
    let sentence = super::text::sentence_around(doc.text, pos);
    let start = sentence.start.max(own.term.end).max(pos.saturating_sub(600));
    let start = super::text::floor_boundary(doc.text, start);
    let found = SECOND_DEFINITION.captures_iter(doc.slice(start..pos)).last()?.name("term")?.range();
    let term = start + found.start..start + found.end;
    is_commitment_term(&super::text::normalise_label(doc.slice(term.clone()))).then_some(term)
}

/// `"Dollar Revolving Commitments" shall mean`, `"Total Commitments" means`.
static SECOND_DEFINITION: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"["“](?P<term>[^"”\n]{1,80})["”][ \t\r\n]+(?:shall[ \t\r\n]+mean|means)\b"#));

/// A facility reference that directly follows an amount, with only descriptive words between
/// ("$150,000,000 senior secured bridge facility").
fn type_reference_after(doc: &Document<'_>, pos: usize, clause_end: usize) -> Option<FacilityKey> {
    let limit = clause_end.min(pos.saturating_add(60)).max(pos);
    let reference = doc.refs_in(pos..limit).first()?;
    let gap = doc.slice(pos..reference.span.start);
    gap.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '\t').then_some(reference.key)
}

/// A facility named by the defined-term parenthetical right after an amount: "$500,000,000 (the
/// "Term A Loans")".
fn defined_reference_after(doc: &Document<'_>, pos: usize) -> Option<FacilityKey> {
    let following = doc.slice(super::text::after(doc.text, pos, 80));
    let open = following.len() - following.trim_start().len();
    let rest = following.get(open..)?;
    if !rest.starts_with('(') {
        return None;
    }
    let close = rest.find(')')?;
    let inside = rest.get(..close)?;
    if !(inside.contains('"') || inside.contains('“')) {
        return None;
    }
    doc.refs_in(pos + open..pos + open + close).first().map(|r| r.key)
}

/// The term a parenthetical right after `pos` defines ("(the "Loan Amount")"), normalised.
fn named_after(doc: &Document<'_>, pos: usize) -> Option<String> {
    let following = doc.slice(super::text::after(doc.text, pos, 80));
    let trimmed = following.trim_start();
    let captures = INLINE_TERM.captures(trimmed)?;
    if captures.get(0)?.start() != 0 {
        return None;
    }
    Some(super::text::normalise_label(captures.name("term")?.as_str()))
}

/// The dates stated right after `term` and a colon anywhere in the text, as a schedule of key
/// terms states them ("6. Scheduled Maturity Date: December 28, 2025").
fn stated_after_its_name<'d>(doc: &'d Document<'_>, term: &str) -> Vec<&'d super::dates::DateMatch> {
    let name = regex::escape(term.trim()).replace(' ', r"[ \t\r\n]+");
    let Ok(keyed) = Regex::new(&format!(r"(?i)\b{name}[ \t]*:[ \t\r\n]*")) else { return Vec::new() };
    keyed
        .find_iter(doc.text)
        .filter_map(|found| {
            doc.dates_in(found.end()..doc.text.len().min(found.end() + 40))
                .first()
                .filter(|d| d.span.start == found.end())
        })
        .collect()
}

/// Definition terms and labels that state a final maturity.
fn is_maturity_term(term: &str) -> bool {
    let lower = term;
    let names_maturity = lower.ends_with("maturity date")
        || lower.ends_with("termination date")
        || matches!(lower, "maturity" | "final maturity" | "tenor" | "term");
    names_maturity
        && !["commitment", "availability", "notice", "extended", "incremental"].iter().any(|w| lower.contains(w))
}

/// A term defined in passing by a parenthetical: `(the "Maturity Date")`.
static INLINE_TERM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"\([ \t\r\n]*(?:the[ \t\r\n]+)?["“](?P<term>[^"”()]{1,60})["”][ \t\r\n]*\)"#));

/// Dates that, from the words just before them, are not the date a definition sets: "after",
/// "following" or "prior to" a date, a document "dated" one, a deadline ("written notice no later
/// than January 15, 1999" to extend the maturity).
fn is_reference_date(doc: &Document<'_>, start: usize) -> bool {
    let lead = doc.slice(super::text::before(doc.text, start, 24));
    // "from June 30, 2023 to September 30, 2023": the date a change runs to is not a reference.
    let lower = lead.trim_end().to_ascii_lowercase();
    if lower.ends_with(" to") && !lower.ends_with("prior to") {
        return false;
    }
    contains_any_ci(lead, &["after", "following", "from", "dated", "prior to", "later than", "earlier than"])
}

/// The operative words of an amendment that changes the maturity: "the Maturity Date of the Note
/// is amended and extended to", "the Maturity Date is hereby amended to be".
static MATURITY_AMENDED_TO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bmaturity[ \t\r\n]+date\b[^.;]{0,60}?\b(?:is|shall[ \t\r\n]+be)[ \t\r\n]+(?:hereby[ \t\r\n]+)?(?:amended[ \t\r\n]+and[ \t\r\n]+extended|extended|amended)[ \t\r\n]+(?:to[ \t\r\n]+be|to|until)[ \t\r\n]+",
    )
});

static MATURES_ON: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:matures?|maturing|repaid[ \t\r\n]+in[ \t\r\n]+full)[ \t\r\n]+on[ \t\r\n]+"));

/// Whether a defined term names the date the commitments end: "Commitment Termination Date",
/// "Commitment Expiry Date".
fn is_commitment_end_term(term: &str) -> bool {
    ["commitment termination date", "commitment expiry date", "commitment expiration date"]
        .iter()
        .any(|end| term.ends_with(end))
        && !["availability", "incremental", "delayed", "term loan"].iter().any(|w| term.contains(w))
}

/// The dates the commitments end. For a revolving or letter of credit facility that is its final
/// maturity: nothing can be borrowed or issued after it, and the loans fall due with it. For a term
/// loan it is only the end of the period in which the loan may be drawn, so these dates are used
/// only when every facility revolves.
fn commitment_end_candidates(doc: &Document<'_>) -> Vec<Scoped<Sourced<Date>>> {
    let mut candidates = Vec::new();
    for definition in doc.structure.definitions_where(is_commitment_end_term) {
        for date in doc.dates_in(definition.body.clone()).iter().filter(|d| !is_reference_date(doc, d.span.start)) {
            candidates.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
        }
    }
    candidates.retain(|c| !applies_once_extended(doc, c.value.span().start));
    candidates
}

/// Every statement of a final maturity date, with the facilities it is for. A maturity stated
/// relatively ("the fifth anniversary of the Closing Date") is reported, not computed.
fn maturity_candidates(doc: &Document<'_>, changes: &[AmendedTerm], report: &mut Report) -> Vec<Scoped<Sourced<Date>>> {
    let mut candidates = Vec::new();
    let mut regions: Vec<Range<usize>> = doc
        .structure
        .definitions_where(is_maturity_term)
        .map(|d| d.body.clone())
        .chain(doc.structure.labels_where(is_maturity_term).map(|l| l.value.clone()))
        .collect();
    regions.sort_by_key(|r| r.start);
    for region in regions {
        let mut dates: Vec<_> =
            doc.dates_in(region.clone()).iter().filter(|d| !is_reference_date(doc, d.span.start)).collect();
        if dates.is_empty()
            && let Some(definition) = doc.structure.definition_at(region.start).filter(|d| d.body == region)
        {
            // "Scheduled Maturity Date" means the date set forth in Section 6 of Schedule A: the
            // schedule states it as "6. Scheduled Maturity Date: December 28, 2025".
            dates.extend(stated_after_its_name(doc, doc.slice(definition.term.clone())));
        }
        if dates.is_empty() {
            let shown = region.start..super::text::floor_boundary(doc.text, region.end.min(region.start + 160));
            report.dropped(
                "/facilities/*/terminationDate",
                doc.slice(shown.clone()),
                shown,
                "is not a calendar date and is not computed",
            );
            continue;
        }
        for date in dates {
            candidates.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
        }
    }
    let mut defined_in_passing: Vec<(String, Scoped<Sourced<Date>>)> = Vec::new();
    // "shall be due and payable on November 30, 1998, or such earlier date as … (the "Maturity
    // Date")": the sentence that defines the term in passing states its date before it.
    for captures in INLINE_TERM.captures_iter(doc.text) {
        let (Some(whole), Some(term)) = (captures.get(0), captures.name("term")) else { continue };
        if !is_maturity_term(&super::text::normalise_label(term.as_str())) {
            continue;
        }
        let sentence = super::text::sentence_around(doc.text, whole.start());
        // "prior to February 28, 1999 (the "Maturity Date")": a date the term names right after it
        // is the term's, whatever the words before it.
        let dates: Vec<_> = doc
            .dates_in(sentence.start..whole.start())
            .iter()
            .filter(|d| {
                !is_reference_date(doc, d.span.start)
                    || doc.slice(d.span.end..whole.start()).trim_matches([' ', ',', '\t', '\r', '\n']).is_empty()
            })
            .collect();
        let [date] = dates.as_slice() else { continue };
        let candidate =
            doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start)));
        if let Some(candidate) = candidate {
            defined_in_passing.push((super::text::normalise_label(term.as_str()), candidate.clone()));
            candidates.push(candidate);
        }
    }
    // "The Maturity Date of the Note is amended and extended to March 31, 2022", "is hereby
    // amended to be the Amended Maturity Date": the amendment's operative change prevails over
    // the maturity it recites ("the Note has a maturity date of December 31, 2022").
    let mut amended: Vec<Scoped<Sourced<Date>>> = Vec::new();
    for found in MATURITY_AMENDED_TO.find_iter(doc.text) {
        let window = super::text::after(doc.text, found.end(), 60);
        if let Some(date) =
            doc.dates_in(window.clone()).first().filter(|d| doc.slice(found.end()..d.span.start).trim().is_empty())
        {
            amended.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
            continue;
        }
        let named = super::text::normalise_label(doc.slice(window).trim_start_matches("the "));
        amended.extend(
            defined_in_passing.iter().filter(|(term, _)| named.starts_with(term.as_str())).map(|(_, c)| c.clone()),
        );
    }
    // An amendment that replaces the date of a maturity term: `The date "June 24, 1996" in the
    // definition of "Maturity Date" is deleted and replaced with the date "December 31, 1998"`.
    // What an amendment changes is read in one place (`amendments.rs`); a change that states the
    // value it replaces is an amendment's, never an original agreement's extension option.
    for change in changes {
        let replaces = change.before.is_some() && change.category == AmendedTermCategory::MaturityDate;
        if !replaces || !is_maturity_term(&super::text::normalise_label(change.term.value())) {
            continue;
        }
        if let StatedValue::Date(date) = *change.after.value() {
            candidates.extend(doc.sourced(change.after.span().range(), date).map(|d| Scoped::new(d, Vec::new())));
        }
    }
    for found in MATURES_ON.find_iter(doc.text) {
        let window = super::text::after(doc.text, found.end(), 40);
        if let Some(date) =
            doc.dates_in(window).first().filter(|d| doc.slice(found.end()..d.span.start).trim().is_empty())
        {
            candidates.extend(
                doc.sourced(date.span.clone(), date.date).map(|d| Scoped::new(d, scope_at(doc, date.span.start))),
            );
        }
    }
    if !amended.is_empty() {
        candidates = amended;
    }
    candidates.retain(|c| !applies_once_extended(doc, c.value.span().start));
    candidates
}

/// Resolves a facility's commitment. The provision that sets the amount (the definition of the
/// commitment, the schedule total) prevails over amounts mentioned in passing, which may cap some
/// of the loans only ("Swing Loans in an aggregate amount not to exceed $5,000,000"); those that
/// disagree with it are reported, not used. In an agreement with several facilities, an amount
/// that names none of them is not any one facility's commitment.
fn resolve_commitment(
    field: &str,
    candidates: &Commitments,
    facility: &FacilityFrame,
    all: &[FacilityFrame],
    report: &mut Report,
) -> Option<Sourced<Money>> {
    let named = |list: &[Scoped<Sourced<Money>>]| -> Vec<Scoped<Sourced<Money>>> {
        list.iter().filter(|c| all.len() == 1 || !c.keys.is_empty()).cloned().collect()
    };
    let defining = named(&candidates.defining);
    let passing = named(&candidates.passing);
    let settled = resolve(field, &defining, facility, all, report);
    let Some(settled) = settled else {
        if !applicable(&defining, facility, all).is_empty() {
            return None;
        }
        return resolve(field, &passing, facility, all, report);
    };
    for other in applicable(&passing, facility, all) {
        if other.value() != settled.value() {
            report.dropped(field, other.quote(), other.span().range(), "is not the amount the commitment is stated as");
        }
    }
    Some(settled)
}

/// The type of a lettered LMA facility: the type named in the same clause as an early reference
/// to it ("(a) a sterling term loan facility … the Total Facility A Commitments").
fn lettered_type(doc: &Document<'_>, letter: u8) -> Option<Sourced<FacilityType>> {
    let references = doc.facility_refs.iter().filter(|r| r.key == FacilityKey::Lettered(letter)).take(20);
    for reference in references {
        let clause = clause_around(doc.text, reference.span.start);
        let typed = doc
            .refs_in(clause)
            .iter()
            .filter(|r| !matches!(r.key, FacilityKey::Lettered(_)))
            .min_by_key(|r| r.span.start.abs_diff(reference.span.start));
        if let Some(typed) = typed
            && let Some(facility_type) = typed.key.stated_type()
        {
            return doc.sourced(typed.span.clone(), facility_type);
        }
    }
    None
}

/// The facility's name: its first reference ending in "Facility", else in "Loans", else its
/// shortest reference. A lettered LMA facility is named by its letter ("Facility A").
fn facility_name(doc: &Document<'_>, key: FacilityKey) -> Option<Sourced<String>> {
    let refs: Vec<&FacilityRef> = doc.facility_refs.iter().filter(|r| r.key == key).collect();
    let ending =
        |suffix: &str| refs.iter().find(|r| doc.slice(r.span.clone()).to_ascii_lowercase().ends_with(suffix)).copied();
    let shortest = || refs.iter().min_by_key(|r| (r.span.len(), r.span.start)).copied();
    let chosen = if matches!(key, FacilityKey::Lettered(_)) {
        shortest()
    } else {
        ending("facility").or_else(|| ending("loans")).or_else(shortest)
    }?;
    let name = doc.slice(chosen.span.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
    doc.sourced(chosen.span.clone(), name)
}

/// The facilities of the agreement with every field resolved.
/// The facilities, with `changes` the values the document states it replaces (see `amendments.rs`).
pub(crate) fn extract(doc: &Document<'_>, changes: &[AmendedTerm], report: &mut Report) -> Vec<Facility> {
    let commitments = commitment_candidates(doc, report);
    let mut maturities = maturity_candidates(doc, changes, report);
    let pricing = pricing::candidates(doc);

    let mut frames: Vec<FacilityFrame> = Vec::new();
    let add_key = |key: FacilityKey, frames: &mut Vec<FacilityFrame>| {
        if frames.iter().any(|f| f.key == key) {
            return;
        }
        let facility_type = match key {
            FacilityKey::Lettered(letter) => lettered_type(doc, letter).map(|t| *t.value()),
            other => other.stated_type(),
        };
        frames.push(FacilityFrame { key, facility_type, currency: None });
    };
    for candidate in commitments.all() {
        for &key in &candidate.keys {
            add_key(key, &mut frames);
        }
    }
    // Facilities without a stated commitment still exist if values are stated for them, unless a
    // generic reference ("Term Loans") merely covers facilities already found.
    let scoped_keys = maturities
        .iter()
        .flat_map(|c| c.keys.iter())
        .chain(pricing.spreads.iter().flat_map(|c| c.keys.iter()))
        .chain(pricing.grids.iter().flat_map(|c| c.keys.iter()))
        .copied()
        .collect::<Vec<_>>();
    for key in scoped_keys {
        let covered = frames.iter().any(|f| covers(key, f, &frames));
        if !covered {
            add_key(key, &mut frames);
        }
    }
    let general_commitments = commitments.all().filter(|c| c.keys.is_empty()).count();
    // An amendment may restate the facility's maturity or pricing without its amount.
    let general_terms = maturities.iter().any(|c| c.keys.is_empty())
        || pricing.spreads.iter().any(|c| c.keys.is_empty())
        || pricing.grids.iter().any(|c| c.keys.is_empty());
    if frames.is_empty() && (general_commitments > 0 || general_terms) {
        // A single-facility agreement states its amount without naming the facility ("Total
        // Commitments", "Amount:"). When the text refers to one kind of facility only, that is the
        // facility; otherwise it stays unnamed rather than guessed.
        let mut kinds = doc.facility_refs.iter().map(|r| r.key);
        match kinds.next() {
            Some(only) if kinds.all(|k| k == only) => add_key(only, &mut frames),
            _ => return single_unnamed_facility(doc, &commitments, maturities, &pricing, report),
        }
    }

    // Revolving loans that may be borrowed only to reimburse drawings under letters of credit do
    // not make a revolving credit facility: the facility is the letters of credit.
    let reimbursing = match frames.as_slice() {
        [only] if only.key == FacilityKey::Revolving => reimbursement_loans(doc),
        _ => None,
    };
    if let (Some(_), [only]) = (&reimbursing, frames.as_mut_slice()) {
        only.facility_type = Some(FacilityType::LetterOfCredit);
    }
    let revolving =
        |t: Option<FacilityType>| matches!(t, Some(FacilityType::RevolvingCredit | FacilityType::LetterOfCredit));
    if !frames.is_empty() && frames.iter().all(|f| revolving(f.facility_type)) {
        maturities.extend(commitment_end_candidates(doc));
    }

    // Currencies come from the commitments, so resolve those first.
    let mut resolved_commitments = Vec::with_capacity(frames.len());
    let snapshot = frames.clone();
    for (index, frame) in frames.iter_mut().enumerate() {
        let field = format!("/facilities/{index}/commitment");
        let commitment = resolve_commitment(&field, &commitments, frame, &snapshot, report);
        // A tranche named by its currency lends in it, even when its size is stated as a dollar
        // equivalent ("Euro Revolving Commitments … the Dollar Equivalent of $20,000,000").
        frame.currency =
            frame.key.qualifier().and_then(Qualifier::currency).or(commitment.as_ref().map(|c| c.value().currency));
        resolved_commitments.push(commitment);
    }
    let unused_general: Vec<&Scoped<Sourced<Money>>> = commitments.all().filter(|c| c.keys.is_empty()).collect();
    if frames.len() > 1 {
        for candidate in unused_general {
            report.dropped(
                "/facilities/*/commitment",
                candidate.value.quote(),
                candidate.value.span().range(),
                "names no facility in an agreement with several",
            );
        }
    }

    let mut facilities = Vec::with_capacity(frames.len());
    for (index, (frame, commitment)) in frames.iter().zip(resolved_commitments).enumerate() {
        let base = format!("/facilities/{index}");
        let facility_type = match frame.key {
            _ if reimbursing.is_some() => reimbursing.clone(),
            FacilityKey::Lettered(letter) => lettered_type(doc, letter),
            key => facility_name(doc, key).and_then(|name| {
                let ty = key.stated_type()?;
                doc.sourced(name.span().range(), ty)
            }),
        };
        let termination_date = resolve(&format!("{base}/terminationDate"), &maturities, frame, &frames, report);
        // The letters of credit keep the name of their own when the revolving loans are split off.
        let name = match reimbursing {
            Some(_) => facility_name(doc, FacilityKey::LetterOfCredit),
            None => facility_name(doc, frame.key),
        };
        let mut facility = unpriced(name, facility_type, commitment, termination_date);
        pricing::apply(doc, &pricing, &mut facility, frame, &frames, &base, report);
        facilities.push(facility);
    }
    if let (Some(_), [letters]) = (&reimbursing, frames.as_slice()) {
        facilities.push(reimbursement_loan_facility(doc, &pricing, &maturities, letters, report));
    }
    facilities
}

/// A facility with its name, type, amount and maturity, before pricing is applied to it.
fn unpriced(
    name: Option<Sourced<String>>,
    facility_type: Option<Sourced<FacilityType>>,
    commitment: Option<Sourced<Money>>,
    termination_date: Option<Sourced<Date>>,
) -> Facility {
    Facility {
        name,
        facility_type,
        commitment,
        optional_currencies: Vec::new(),
        floating_rate_index: None,
        index_tenor: None,
        interest_periods: None,
        spread: None,
        base_rate_spread: None,
        pricing_grid: Vec::new(),
        floor: None,
        commitment_fee: None,
        payment_frequency: None,
        day_count_fraction: None,
        termination_date,
    }
}

/// The revolving loans that only reimburse letter of credit drawings, as a facility beside the
/// letters: the loans bear interest (the letters bear fees) and fall due at the maturity, but they
/// draw on the letters' commitment, so no commitment of their own is stated (a second copy of the
/// amount would double the credit).
fn reimbursement_loan_facility(
    doc: &Document<'_>,
    pricing: &PricingCandidates,
    maturities: &[Scoped<Sourced<Date>>],
    letters: &FacilityFrame,
    report: &mut Report,
) -> Facility {
    let frame = FacilityFrame {
        key: FacilityKey::Revolving,
        facility_type: Some(FacilityType::RevolvingCredit),
        currency: letters.currency,
    };
    let frames = [frame.clone()];
    let base = "/facilities/1";
    let name = facility_name(doc, FacilityKey::Revolving);
    let facility_type = name.as_ref().and_then(|n| doc.sourced(n.span().range(), FacilityType::RevolvingCredit));
    let termination_date = resolve(&format!("{base}/terminationDate"), maturities, &frame, &frames, report);
    let mut facility = unpriced(name, facility_type, None, termination_date);
    pricing::apply_floating_rate(doc, pricing, &mut facility, &frame, &frames, base, report);
    facility
}

/// An agreement whose only commitment statements name no facility (a term sheet's "Amount:"):
/// one facility, without a name or type, holding every general value.
fn single_unnamed_facility(
    doc: &Document<'_>,
    commitments: &Commitments,
    mut maturities: Vec<Scoped<Sourced<Date>>>,
    pricing: &PricingCandidates,
    report: &mut Report,
) -> Vec<Facility> {
    let mut frame = FacilityFrame { key: FacilityKey::Term, facility_type: None, currency: None };
    let frames = [frame.clone()];
    let commitment = resolve_commitment("/facilities/0/commitment", commitments, &frame, &frames, report);
    frame.currency = commitment.as_ref().map(|c| c.value().currency);
    let facility_type = reborrowing(doc);
    frame.facility_type = facility_type.as_ref().map(|t| *t.value());
    if frame.facility_type == Some(FacilityType::RevolvingCredit) {
        maturities.extend(commitment_end_candidates(doc));
    }
    let termination_date = resolve("/facilities/0/terminationDate", &maturities, &frame, &frames, report);
    let mut facility = unpriced(None, facility_type, commitment, termination_date);
    pricing::apply(doc, pricing, &mut facility, &frame, &frames, "/facilities/0", report);
    vec![facility]
}

/// Loans "requested solely for the purpose of satisfying Borrower's Reimbursement Obligations",
/// "made solely to reimburse drawings under Letters of Credit".
static REIMBURSEMENT_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bsolely[ \t\r\n]+(?:for[ \t\r\n]+the[ \t\r\n]+purposes?[ \t\r\n]+of[ \t\r\n]+|to[ \t\r\n]+)(?:satisfy(?:ing)?|reimburs(?:e|ing)|pay(?:ing)?|fund(?:ing)?)\b[^.;]{0,60}?\b(?:reimbursement[ \t\r\n]+obligations?|drawings?|letters?[ \t\r\n]+of[ \t\r\n]+credit)\b",
    )
});

/// The letter of credit type of a facility whose revolving loans serve only to reimburse letter
/// of credit drawings, with the words that say so: the loans are named in the same sentence.
fn reimbursement_loans(doc: &Document<'_>) -> Option<Sourced<FacilityType>> {
    REIMBURSEMENT_ONLY.find_iter(doc.text).find_map(|found| {
        let sentence = super::text::sentence_around(doc.text, found.start());
        let names_loans = doc.refs_in(sentence.start..found.start()).iter().any(|r| r.key == FacilityKey::Revolving);
        names_loans.then(|| doc.sourced(found.range(), FacilityType::LetterOfCredit)).flatten()
    })
}

/// "may borrow, repay and reborrow", "may be borrowed, repaid and borrowed again", "to lend and
/// relend": what makes a facility revolving, whatever it is called. "may not be reborrowed" says the opposite.
static REBORROW: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bre-?(?:borrow|lend)(?:ed|ing|s)?\b|\bborrowed[ \t\r\n]+again\b"));

/// The type of a facility the text describes only by whether its loans may be reborrowed, with
/// the words that say so: revolving when they may be; a term loan when every mention forbids it
/// ("Amounts borrowed and repaid may not be reborrowed"), since reborrowing is what distinguishes a
/// revolving facility from a term loan. Mentions that disagree settle nothing.
fn reborrowing(doc: &Document<'_>) -> Option<Sourced<FacilityType>> {
    let mut allowed = None;
    let mut forbidden = None;
    for found in REBORROW.find_iter(doc.text) {
        let lead = doc.slice(super::text::before(doc.text, found.start(), 40)).to_ascii_lowercase();
        let lead = lead.split_whitespace().collect::<Vec<_>>().join(" ");
        // "may not be reborrowed" forbids it; "is to be repaid and not reborrowed" in a notice
        // only describes one borrowing.
        let slot =
            if ["may not be", "shall not be", "cannot be", "may not", "not be re-"].iter().any(|w| lead.ends_with(w)) {
                &mut forbidden
            } else {
                &mut allowed
            };
        slot.get_or_insert(found.range());
    }
    // "to make Loans … from time to time … not to exceed at any time outstanding its
    // Commitment": a limit on what is outstanding, not on what is lent, lets repaid loans be lent
    // again.
    if allowed.is_none() {
        allowed = OUTSTANDING_CAP.find_iter(doc.text).map(|found| found.range()).find(|found| {
            let sentence = doc.slice(super::text::sentence_around(doc.text, found.start));
            contains_ci(sentence, "from time to time") && LENDS.is_match(sentence)
        });
    }
    match (allowed, forbidden) {
        (Some(span), None) => doc.sourced(span, FacilityType::RevolvingCredit),
        (None, Some(span)) => doc.sourced(span, FacilityType::TermLoan),
        _ => None,
    }
}

/// A cap on the amount outstanding at any time.
static OUTSTANDING_CAP: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bat[ \t\r\n]+any[ \t\r\n]+(?:one[ \t\r\n]+)?time[ \t\r\n]+outstanding\b|\boutstanding[ \t\r\n]+at[ \t\r\n]+any[ \t\r\n]+(?:one[ \t\r\n]+)?time\b",
    )
});

/// An undertaking to lend: "agrees to make Loans", "to make advances", "will lend".
static LENDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:make|makes|making)[ \t\r\n]+(?:[a-z]+[ \t\r\n]+){0,3}?(?:loans?|advances?|revolving)\b|\b(?:lend|advance)[ \t\r\n]+to\b",
    )
});

#[cfg(test)]
mod tests {
    use super::super::amendments::changes;
    use super::*;

    #[test]
    fn a_date_named_after_a_reduction_does_not_make_an_amount_a_reduction() {
        let (defining, passing) = commitment_quotes(
            "On the Step-Down Date the Bank shall make a term loan (the \"Term Loan\") in the amount of $15,000,000. Each reduction of the Term Loan shall be in the amount of $1,000,000.",
        );
        let found: Vec<String> = defining.into_iter().chain(passing).collect();
        assert_eq!(found, ["$15,000,000"]);
        let (defining, passing) = commitment_quotes(
            "On the Reduction Date the Bank shall make a term loan (the \"Term Loan\") in the amount of $15,000,000.",
        );
        assert_eq!(defining.into_iter().chain(passing).collect::<Vec<_>>(), ["$15,000,000"]);
    }

    #[test]
    fn a_value_belongs_to_the_facility_named_in_its_own_clause() {
        let text = "\"Termination Date\" means: (a) in relation to Facility A, 15 March 2029; and (b) in relation to Facility B, 15 March 2028.\n";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = maturity_candidates(&doc, &changes(&doc), &mut report);
        let scoped: Vec<(&str, Vec<FacilityKey>)> = found.iter().map(|c| (c.value.quote(), c.keys.clone())).collect();
        assert_eq!(
            scoped,
            [
                ("15 March 2029", vec![FacilityKey::Lettered(b'A')]),
                ("15 March 2028", vec![FacilityKey::Lettered(b'B')])
            ]
        );
    }

    #[test]
    fn a_maturity_defined_by_reference_to_a_schedule_is_read_from_the_schedule() {
        let text = "\"Final Maturity Date\" means the date stated in item 4 of the Key Terms Schedule.\n\nKEY TERMS SCHEDULE\n\n3. Borrower: Ridge Foods LLC 4. Final Maturity Date: March 15, 2027 5. Commitment: $20,000,000\n";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = maturity_candidates(&doc, &changes(&doc), &mut report);
        let quotes: Vec<&str> = found.iter().map(|c| c.value.quote()).collect();
        assert_eq!(quotes, ["March 15, 2027"]);
    }

    #[test]
    fn a_relative_maturity_is_reported_not_computed() {
        let text = "\"Maturity Date\" means the fifth anniversary of the Closing Date.\n";
        let doc = Document::scan(text);
        let mut report = Report::default();
        assert!(maturity_candidates(&doc, &changes(&doc), &mut report).is_empty());
        assert!(report.warnings[0].contains("fifth anniversary"), "{:?}", report.warnings);
    }

    #[test]
    fn commitments_are_read_from_lead_ins_and_type_phrases_but_not_from_baskets() {
        let text = "the Lenders agree to make (a) Term A Loans in an aggregate principal amount of Five Hundred Million Dollars ($500,000,000) and (b) a $250,000,000 revolving credit facility. Indebtedness in an aggregate principal amount not to exceed $50,000,000.";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = commitment_candidates(&doc, &mut report);
        let scoped: Vec<(&str, Vec<FacilityKey>)> = found.all().map(|c| (c.value.quote(), c.keys.clone())).collect();
        assert_eq!(
            scoped,
            [
                ("Five Hundred Million Dollars ($500,000,000)", vec![FacilityKey::TermLetter(b'A')]),
                ("$250,000,000", vec![FacilityKey::Revolving]),
            ]
        );
    }

    fn commitment_quotes(text: &str) -> (Vec<String>, Vec<String>) {
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = commitment_candidates(&doc, &mut report);
        let quotes = |list: &[Scoped<Sourced<Money>>]| list.iter().map(|c| c.value.quote().to_owned()).collect();
        (quotes(&found.defining), quotes(&found.passing))
    }

    fn only_facility(text: &str) -> Facility {
        let doc = Document::scan(text);
        let mut report = Report::default();
        let mut found = extract(&doc, &changes(&doc), &mut report);
        assert_eq!(found.len(), 1, "{found:?} {:?}", report.warnings);
        found.remove(0)
    }

    #[test]
    fn the_defined_commitment_prevails_over_amounts_that_cap_some_loans() {
        let text = "\"Maximum Revolving Credit Commitment\" shall mean an amount equal to $75,000,000 on the Closing Date.\n\nThe Agent may fund Revolving Credit Advances in an aggregate amount not to exceed $5,000,000 without notice to the Lenders.\n";
        let (defining, passing) = commitment_quotes(text);
        assert_eq!(defining, ["$75,000,000"]);
        assert_eq!(passing, ["$5,000,000"]);
        let facility = only_facility(text);
        assert_eq!(facility.commitment.map(|c| c.value().value), Some("75000000".parse().expect("decimal")));
    }

    #[test]
    fn amounts_of_other_things_are_not_commitments() {
        for text in [
            "goodwill associated with the Acquisition, in an amount not to exceed $35,000,000, shall be added back.",
            "the transferor Bank shall pay an administrative fee for processing such assignment in the amount of $2,500.",
            "The Bank's commitment to issue Letters of Credit up to a maximum aggregate face amount not exceeding Three Million Dollars ($3,000,000).",
            "the Borrower may reduce the Revolving Credit Commitment, in increments of $5,000,000.",
            "such that the resulting Total Revolving Loan Commitment is $150,000,000.",
            "time deposits in dollars having a maturity comparable to the related Interest Period and in an amount of $100,000.",
        ] {
            assert_eq!(commitment_quotes(text), (Vec::<String>::new(), Vec::<String>::new()), "{text}");
        }
    }

    #[test]
    fn a_notes_principal_sum_and_its_loan_limit_state_the_commitment() {
        let (_, passing) = commitment_quotes(
            "promises to pay to the order of the Bank the principal sum of Twenty Five Million Dollars ($25,000,000.00) or so much thereof as may be advanced.\n\nThe Revolving Loans shall not exceed at any one time outstanding Twenty-Five Million Dollars ($25,000,000) minus the face amount of all outstanding Letters of Credit.\n",
        );
        assert_eq!(
            passing,
            ["Twenty Five Million Dollars ($25,000,000.00)", "Twenty-Five Million Dollars ($25,000,000)"]
        );
    }

    #[test]
    fn commitments_are_defined_with_means_or_totalled_at_the_foot_of_the_signatures() {
        assert_eq!(
            commitment_quotes("\u{201c}Commitment\u{201d} means $500,000,000 or such lesser amount.\n").0,
            ["$500,000,000"]
        );
        assert_eq!(commitment_quotes("By: ______\n\n$500,000,000\nTotal Commitments\n").0, ["$500,000,000"]);
        assert!(commitment_quotes("$500,000,000\nTotal Assets\n").0.is_empty());
        assert_eq!(
            commitment_quotes("\"Commitment\" shall mean the several obligations of the Banks to advance funds in the aggregate sum of up to $100,000,000 to the Borrower.\n").0,
            ["$100,000,000"]
        );
    }

    #[test]
    fn a_figure_below_the_lenders_amounts_that_adds_them_up_is_the_total_commitment() {
        let pages = "By: /s/ A. Signer\n\n$60,000,000     NORTH RIVER BANK, as a Lender\n\nBy: /s/ B. Signer\n\n$40,000,000     SOUTH BAY TRUST COMPANY, as a Lender\n\nBy: /s/ C. Signer\n\n---------------\n";
        assert_eq!(commitment_quotes(&format!("{pages}$100,000,000.00\n")).0, ["$100,000,000.00"]);
        // A figure that is not their sum is some other figure.
        assert!(commitment_quotes(&format!("{pages}$90,000,000\n")).0.is_empty());
    }

    #[test]
    fn an_amount_in_passing_in_the_definition_of_something_else_is_not_a_commitment() {
        let text = "\"Working Capital\" means current assets less current liabilities, including all Revolving Loans outstanding but excluding up to $2,500,000 of deferred revenue.\n\n\"Revolving Credit Note\" means the note evidencing the Revolving Loans in the principal amount of $30,000,000.\n";
        let (defining, passing) = commitment_quotes(text);
        let found: Vec<String> = defining.into_iter().chain(passing).collect();
        assert_eq!(found, ["$30,000,000"]);
    }

    #[test]
    fn a_cap_on_what_is_outstanding_makes_an_unnamed_facility_revolving() {
        let lends = "Each Lender agrees to make Loans to the Borrower from time to time before the Termination Date in an aggregate principal amount not to exceed at any time outstanding its Commitment.";
        let doc = Document::scan(lends);
        assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
        // A basket capped on what is outstanding says nothing about the loans.
        let basket =
            "The Borrower may from time to time incur Indebtedness not to exceed $5,000,000 at any time outstanding.";
        assert_eq!(reborrowing(&Document::scan(basket)), None);
    }

    #[test]
    fn an_amount_named_as_the_loan_amount_is_the_commitment() {
        let text = "the Company issued to Harbor Investments, LLC that certain Promissory Note dated May 1, 2021 in the amount of $750,000.00 (the \u{201c}Loan Amount\u{201d}), and paid a fee of $5,000.00 (the \u{201c}Fee\u{201d}).\n";
        assert_eq!(commitment_quotes(text).0, ["$750,000.00"]);
    }

    #[test]
    fn an_amendment_substitutes_the_commitment_it_replaces() {
        let text = "(a) Section 2.1(a) shall be amended by deleting \"$150,000,000\" immediately following the words \"the Total Revolving Loan Commitment is\" and substituting \"$300,000,000\" therefor.\n";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = commitment_candidates(&doc, &mut report);
        let read: Vec<(&str, Vec<FacilityKey>)> = found.all().map(|c| (c.value.quote(), c.keys.clone())).collect();
        assert_eq!(read, [("$300,000,000", vec![FacilityKey::Revolving])]);
        let text = "Section 2.14 shall be amended by deleting \"$20,000,000\" immediately following the words \"all Letters of Credit would exceed\" and substituting \"$200,000,000\" therefor.\n";
        assert_eq!(commitment_quotes(text), (Vec::<String>::new(), Vec::<String>::new()));
    }

    #[test]
    fn reborrowing_makes_a_facility_revolving_and_forbidding_it_a_term_loan() {
        for text in [
            "The principal balance hereof may be borrowed, repaid and borrowed again.",
            "the Borrower may borrow, prepay Loans and reborrow at any time prior to the Termination Date.",
            "the several obligations of the Banks to lend and relend to the Borrower.",
        ] {
            let doc = Document::scan(text);
            assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::RevolvingCredit), "{text}");
        }
        let doc = Document::scan("Term Loans repaid or prepaid shall not be reborrowed.");
        assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::TermLoan));
        let mixed = "Amounts repaid may not be reborrowed. Lenders may reborrow nothing.";
        assert!(reborrowing(&Document::scan(mixed)).is_none(), "{mixed}");
        let doc = Document::scan(
            "the notice states whether the Advance is to be repaid and not reborrowed; Advances may be reborrowed.",
        );
        assert_eq!(reborrowing(&doc).map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
    }

    #[test]
    fn a_single_unnamed_loan_that_may_not_be_reborrowed_is_a_term_loan() {
        let text = "Each Lender agrees to make a loan to the Borrower in a single drawing in an amount not exceeding its Commitment. Amounts repaid in respect of the Loans may not be reborrowed.\n\n\"Maturity Date\" means March 1, 2027.\n";
        assert_eq!(only_facility(text).facility_type.map(|t| *t.value()), Some(FacilityType::TermLoan));
    }

    #[test]
    fn a_maturity_that_applies_only_once_extended_is_not_the_maturity() {
        let text = "\"Maturity Date\" means June 30, 2027; provided that if the Maturity Date has been extended under Section 2.15, then the Maturity Date shall mean June 30, 2028.\n";
        let doc = Document::scan(text);
        let candidates = maturity_candidates(&doc, &changes(&doc), &mut Report::default());
        let found: Vec<&str> = candidates.iter().map(|c| c.value.quote()).collect();
        assert_eq!(found, ["June 30, 2027"]);
    }

    #[test]
    fn an_amendments_operative_change_of_maturity_prevails_over_the_maturity_it_recites() {
        let text = "WHEREAS, the Note has a maturity date of June 30, 2023 (the \"Maturity Date\"); and\n\nWHEREAS, the parties wish to extend the Maturity Date from June 30, 2023 to September 30, 2023 (the \"Amended Maturity Date\").\n\n1. The Maturity Date of the Note is hereby amended to be the Amended Maturity Date.\n";
        let doc = Document::scan(text);
        let candidates = maturity_candidates(&doc, &changes(&doc), &mut Report::default());
        let found: Vec<&str> = candidates.iter().map(|c| c.value.quote()).collect();
        assert_eq!(found, ["September 30, 2023"]);
        let text = "The Note matures on May 1, 2022.\n\n1. The Maturity Date of the Note is amended and extended to August 1, 2022.\n";
        let doc = Document::scan(text);
        let candidates = maturity_candidates(&doc, &changes(&doc), &mut Report::default());
        let found: Vec<&str> = candidates.iter().map(|c| c.value.quote()).collect();
        assert_eq!(found, ["August 1, 2022"]);
    }

    #[test]
    fn a_maturity_defined_in_passing_takes_the_date_of_its_sentence() {
        let text = "The entire principal balance shall be due and payable on November 30, 1998, or such earlier date on which it becomes due on acceleration (the \"Maturity Date\").\n";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let candidates = maturity_candidates(&doc, &changes(&doc), &mut report);
        let found: Vec<&str> = candidates.iter().map(|c| c.value.quote()).collect();
        assert_eq!(found, ["November 30, 1998"]);
        for text in [
            "The Loans made after December 1, 1998 shall be repaid on demand (the \"Maturity Date\").\n",
            "payable on March 1, 1998 or on June 1, 1998 (the \"Maturity Date\").\n",
            "payable on November 30, 1998 (the \"Closing Date\").\n",
        ] {
            let doc = Document::scan(text);
            assert!(maturity_candidates(&doc, &changes(&doc), &mut report).is_empty(), "{text}");
        }
    }

    #[test]
    fn the_end_of_the_commitments_is_the_maturity_of_a_revolver_only() {
        let revolver = "\"Revolving Credit Commitment\" means $10,000,000.\n\n\"Commitment Termination Date\" shall mean the earliest of (i) January 1, 1999 and (ii) the date of acceleration.\n";
        assert_eq!(
            only_facility(revolver).termination_date.map(|d| d.quote().to_owned()),
            Some("January 1, 1999".to_owned())
        );
        let term = "The Term Loans shall bear interest.\n\n\"Commitment Termination Date\" shall mean January 1, 1999.\n\n\"Total Commitments\" means $10,000,000.\n";
        let doc = Document::scan(term);
        let mut report = Report::default();
        let found = extract(&doc, &changes(&doc), &mut report);
        assert!(found.iter().all(|f| f.termination_date.is_none()), "{found:?}");
    }

    #[test]
    fn loans_only_to_reimburse_drawings_are_priced_beside_the_letter_of_credit_facility() {
        let text = "Each Lender agrees to make revolving loans (\"LOANS\") requested by Borrower solely for the purpose of satisfying Borrower's Reimbursement Obligations. \"COMMITMENT\" means the sum of each Lender's Commitment Amount. As of the Closing Date, the amount of the Commitment is $40,000,000. The Loans shall bear interest at a rate equal to LIBOR plus two and one-half percent (2.50%) per annum.\n\n\"MATURITY DATE\" means October 6, 2008.\n";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = extract(&doc, &changes(&doc), &mut report);
        let [letters, loans] = found.as_slice() else { panic!("{found:?}") };
        assert_eq!(letters.facility_type.as_ref().map(|t| *t.value()), Some(FacilityType::LetterOfCredit));
        assert_eq!(letters.commitment.as_ref().map(|c| c.value().value), Some(Decimal::from(40_000_000)));
        assert!(letters.spread.is_none(), "letters of credit bear fees, not interest");
        assert_eq!(loans.facility_type.as_ref().map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
        assert!(loans.commitment.is_none(), "the loans draw on the letters' commitment");
        assert_eq!(loans.spread.as_ref().map(|s| *s.value()), Some(Decimal::new(25, 3)));
        assert_eq!(loans.termination_date.as_ref().map(|d| d.quote()), Some("October 6, 2008"));
        let text = "Each Lender agrees to make revolving loans, which may be used to reimburse drawings under Letters of Credit. \"Commitment\" means $40,000,000.\n";
        assert_eq!(only_facility(text).facility_type.map(|t| *t.value()), Some(FacilityType::RevolvingCredit));
    }

    #[test]
    fn an_amendment_replacing_the_date_in_the_maturity_definition_states_the_new_maturity() {
        let text = "(iii) The date \"June 24, 1996\" in the definition of \"Maturity Date\" is deleted and replaced with the date \"December 31, 1998\".\n(iv) The date \"May 1, 1996\" in the definition of \"Closing Date\" is deleted and replaced with the date \"June 1, 1996\".\n";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let candidates = maturity_candidates(&doc, &changes(&doc), &mut report);
        let found: Vec<&str> = candidates.iter().map(|c| c.value.quote()).collect();
        assert_eq!(found, ["December 31, 1998"]);
    }

    #[test]
    fn an_amendment_restating_only_the_maturity_still_describes_the_facility() {
        let text = "AMENDMENT NO. 1\n\n\"Maturity Date\" means December 31, 1998.\n";
        let facility = only_facility(text);
        assert_eq!(facility.termination_date.map(|d| d.quote().to_owned()), Some("December 31, 1998".to_owned()));
        assert!(facility.commitment.is_none());
        let doc = Document::scan("A letter about the weather.\n");
        let mut report = Report::default();
        assert!(extract(&doc, &changes(&doc), &mut report).is_empty());
    }

    #[test]
    fn the_amount_of_another_defined_amount_is_not_the_facility_size() {
        let text = "\u{201c}Canadian Maximum Revolver Amount\u{201d} means $50,000,000, decreased by reductions in the Canadian Revolver Commitments.\n\n\u{201c}Revolver Commitments\u{201d} means $500,000,000.\n";
        let facility = only_facility(text);
        assert_eq!(facility.commitment.map(|c| c.quote().to_owned()), Some("$500,000,000".to_owned()));
        let text = "\u{201c}Canadian Maximum Revolver Amount\u{201d} means $50,000,000.\n\n\u{201c}Maximum Revolver Amount\u{201d} means $400,000,000, decreased by reductions in the Revolver Commitments and increased by the amount of any Increase.\n";
        assert_eq!(only_facility(text).commitment.map(|c| c.quote().to_owned()), Some("$400,000,000".to_owned()));
        let only_the_sublimit = "\u{201c}Canadian Revolver Sublimit\u{201d} means $50,000,000 of revolving loans.\n";
        let doc = Document::scan(only_the_sublimit);
        let found = extract(&doc, &changes(&doc), &mut Report::default());
        assert!(found.iter().all(|f| f.commitment.is_none()), "{found:?}");
    }

    #[test]
    fn a_date_named_by_the_term_right_after_it_is_the_terms_whatever_precedes_it() {
        let text = "\"Revolving Credit Commitment\" means $10,000,000.\n\nThe Bank agrees to make Revolving Credit \
            Loans from time to time on and after the date hereof but prior to March 31, 2030 (the \"Maturity \
            Date\") in amounts selected by the Borrower.\n";
        assert_eq!(
            only_facility(text).termination_date.map(|d| d.quote().to_owned()),
            Some("March 31, 2030".to_owned())
        );
    }
}
