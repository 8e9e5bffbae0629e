//! Facility commitments: which stated amounts are a facility's size (the definition of the
//! commitment, a term sheet's amount, the total of the lenders' amounts, an amount naming its
//! facility) and which mention it in passing, as against the sublimits, baskets, thresholds and
//! fees an agreement also states; and which of them a facility's commitment is.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use crate::domain::extraction::amendments::{fused_with_other_figures, substitutions};
use crate::domain::extraction::document::{Document, Report, quoted};
use crate::domain::extraction::facility_refs::FacilityKey;
use crate::domain::extraction::model::FacilityType;
use crate::domain::extraction::numbers::{Money, MoneyMatch};
use crate::domain::extraction::parties::names::LEGAL_FORM_FIRST;
use crate::domain::extraction::schedules::flattened_schedules;
use crate::domain::extraction::scope::{FacilityFrame, Scoped, applicable, nearest_scope, resolve, unique_keys};
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{
    Definition, INLINE_TERM, after, any_word, before, clause_around, floor_boundary, line_around,
    matches_outside_date_names, normalise_label, pattern, sentence_around,
};

/// Words that mark an amount as something other than a facility's commitment: sublimits,
/// incremental capacity, baskets, thresholds, minimum borrowings.
static NOT_A_COMMITMENT: LazyLock<Regex> = LazyLock::new(|| any_word(NOT_A_COMMITMENT_WORDS));

const NOT_A_COMMITMENT_WORDS: &[&str] = &[
    "sublimit",
    "sub-limit",
    "sub-line",
    "subline",
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
    any_word(&[
        "face amount",
        "increment",
        "reduc",
        "resulting",
        "less than",
        "fee",
        "exceeds",
        "any one borrowing",
        "as part of",
    ])
});

/// How far above a total the lenders' amounts it adds up may start.
const LENDER_LIST_REACH: usize = 80_000;

/// Whether `total` stands alone on its line below a column of lenders' amounts that add up to it
/// exactly: the signature pages' "$40,000,000   BANK ONE, NA, as a Bank" … "$2,400,000,000.00".
/// The sum is what makes it the total of the commitments rather than any other figure.
fn sums_the_lenders_above(doc: &Document<'_>, total: &MoneyMatch) -> bool {
    let Some(line) = line_around(doc.text, total.span.start, 200) else { return false };
    if doc.slice(line.clone()).trim() != doc.slice(total.span.clone()) {
        return false;
    }
    let reach = total.span.start.saturating_sub(LENDER_LIST_REACH);
    let above = doc.money.partition_point(|m| m.span.start < total.span.start);
    let mut sum = Decimal::ZERO;
    let mut count = 0;
    for lender in doc.money[..above].iter().rev().take_while(|m| m.span.start >= reach) {
        let opens_line = line_around(doc.text, lender.span.start, 200)
            .is_some_and(|l| doc.slice(l.start..lender.span.start).trim().is_empty());
        let named = doc.slice(after(doc.text, lender.span.end, 60)).trim_start().starts_with(char::is_uppercase);
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

/// The words before an amount that state it as the size of what they name: "an aggregate principal
/// amount of", "Commitments … not to exceed", "“Maximum Facility Amount” means, at any date,".
static AMOUNT_LEAD_IN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?:aggregate[ \t\r\n]+(?:original[ \t\r\n]+)?(?:principal[ \t\r\n]+)?amount|principal[ \t\r\n]+amount|(?:principal|aggregate)[ \t\r\n]+sum|facility[ \t\r\n]+(?:amount|limit)|commitments?|loans|advances|amount)\b[^$£€;]{0,80}?(?:\bof|\bequal[ \t\r\n]+to|\bnot[ \t\r\n]+to[ \t\r\n]+exceed|\bnot[ \t\r\n]+exceeding|\bshall[ \t\r\n]+not[ \t\r\n]+exceed|\bup[ \t\r\n]+to|\bis|\bare|\bmeans|\bshall[ \t\r\n]+mean|\bshall[ \t\r\n]+be|\bbeing|\btotall?ing|:)(?:,?[ \t\r\n]+(?:in[ \t\r\n]+the[ \t\r\n]+aggregate|(?:at|on)[ \t\r\n]+any[ \t\r\n]+(?:one[ \t\r\n]+)?(?:time|date)(?:[ \t\r\n]+outstanding)?),?)?(?:[ \t\r\n]+the[ \t\r\n]+lesser[ \t\r\n]+of[ \t\r\n]*(?:\((?:i|a|1)\))?)?[ \t\r\n]*$",
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
    // "Facility Limit": what a warehouse or securitisation facility may have outstanding, its
    // size. A qualified one ("Class B Facility Limit") caps a class of advances.
    let facility_limit = matches!(term, "facility limit" | "maximum facility limit" | "aggregate facility limit");
    let names_amount = term.contains("commitment")
        || term.ends_with("facility amount")
        || term == "maximum amount"
        || maximum_amount
        || facility_limit;
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

/// Whether `found` is followed by the label of the commitments it totals. A label that opens a
/// row of its own ("Total Commitments   $15,000,000" below the last lender's row, or alone on its
/// line above the amount in a table read cell by cell) names the amount after it, not the last
/// lender's amount before it.
fn labelled_total(doc: &Document<'_>, found: &MoneyMatch) -> bool {
    let following = after(doc.text, found.span.end, 40);
    let Some(label) = TOTAL_COMMITMENTS_AFTER.find(doc.slice(following.clone())) else { return false };
    let label_end = following.start + label.end();
    let next = doc.money.partition_point(|m| m.span.start < label_end);
    let heads_next = doc.money.get(next).is_some_and(|amount| {
        let gap = doc.slice(label_end..amount.span.start);
        gap.chars().all(|c| c.is_whitespace() || c == ':') && gap.matches('\n').count() <= 1
    });
    !heads_next
}

static BLANK_LINE: LazyLock<Regex> = LazyLock::new(|| pattern(r"\n[ \t\r]*\n"));

/// Candidates for the facilities' commitments. Those `defining` are stated by the provision that
/// sets the amount (the definition of the commitment, a term sheet's label, the total of the
/// lender schedule, the amount that names its facility); `passing` ones by a clause that mentions
/// the amount in the course of something else (a lending clause, a note's principal sum).
#[derive(Default)]
pub(super) struct Commitments {
    pub(super) defining: Vec<Scoped<Sourced<Money>>>,
    pub(super) passing: Vec<Scoped<Sourced<Money>>>,
}

impl Commitments {
    /// Drops every candidate `drop` selects, reporting each with `reason`.
    pub(super) fn drop_where(
        &mut self,
        report: &mut Report,
        reason: &str,
        drop: impl Fn(&Scoped<Sourced<Money>>) -> bool,
    ) {
        for list in [&mut self.defining, &mut self.passing] {
            list.retain(|candidate| {
                let dropped = drop(candidate);
                if dropped {
                    report.dropped(
                        "/facilities/*/commitment",
                        candidate.value.quote(),
                        candidate.value.span().range(),
                        reason,
                    );
                }
                !dropped
            });
        }
    }

    /// Every candidate, in text order.
    pub(super) fn all(&self) -> impl Iterator<Item = &Scoped<Sourced<Money>>> {
        let mut all: Vec<&Scoped<Sourced<Money>>> = self.defining.iter().chain(&self.passing).collect();
        all.sort_by_key(|c| c.value.span().start);
        all.into_iter()
    }
}

/// Every statement of a facility's commitment, with the facilities it is for.
pub(super) fn commitment_candidates(doc: &Document<'_>, report: &mut Report) -> Commitments {
    let mut candidates = Commitments::default();
    let schedule_totals: Vec<_> =
        flattened_schedules(doc).into_iter().filter_map(|s| Some((s.total?, s.heading_currency))).collect();
    let mut struck: Vec<Range<usize>> = Vec::new();
    let mut substituted: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    for substitution in substitutions(doc.text) {
        struck.push(substitution.struck);
        if let Some(context) = substitution.after_words {
            substituted.push(context);
        }
    }
    for found in &doc.money {
        if struck.iter().any(|r| r.contains(&found.span.start)) {
            continue;
        }
        // No facility is sized at nothing: "the Commitments are $0" says they have ended.
        if found.money.value.is_zero() {
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
        if let Some(why) = not_the_whole_amount(doc, found) {
            report.dropped("/facilities/*/commitment", doc.slice(found.span.clone()), found.span.clone(), why);
            continue;
        }
        // The substituted amount reads in the context of the words it follows.
        let replaced_context = substituted
            .iter()
            .find(|(_, new)| new.start <= found.span.start && found.span.end <= new.end)
            .map(|(words, _)| words.clone());
        let clause = clause_around(doc.text, found.span.start);
        let lead_start = lesser_of_lead_start(doc, clause.start, found.span.start).unwrap_or(clause.start);
        let lead_range = match &replaced_context {
            Some(words) => words.clone(),
            None => lead_start.max(found.span.start.saturating_sub(160))..found.span.start,
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
                || ["loan", "loan amount", "principal amount", "original principal amount", "maximum principal amount"]
                    .contains(&term.as_str())
        });
        // "the aggregate Revolving Commitments are increased from $750,000,000 to $1,000,000,000":
        // the amount after "to" is the commitments' size from then on, whatever the increase.
        let increased_total = TOTAL_INCREASED_TO.is_match(lead_in);
        if (!named_as_loan && !increased_total && NOT_A_COMMITMENT.is_match(doc.slice(judged)))
            || matches_outside_date_names(&NOT_A_COMMITMENT_LEAD, lead_in)
        {
            continue;
        }
        // An amount the text moves, splits, ends or names as other debt is no facility's size.
        let set_aside = if one_of_numbered_tranches(doc, found.span.end) {
            Some(
                "is the amount of one of the tranches the text numbers, not the facility's size (the total is stated, if at all, elsewhere)",
            )
        } else if said_right_after(doc, found.span.end, clause.end, &CONVERTED_AFTER) {
            Some("is an amount of loans converted or exchanged into another class, the size of neither")
        } else if said_right_after(doc, found.span.end, clause.end, &PART_OF_AFTER) {
            Some(
                "is the amount of a part of a facility (a tranche, portion or sublimit of it), not the facility's size",
            )
        } else if said_right_after(doc, found.span.end, clause.end, &ENDED_AFTER) {
            Some(
                "is the amount of commitments or loans the text says are terminated or repaid in full, no facility of the agreement as amended",
            )
        } else if of_an_extension_class(doc, lead_range.start, found.span.end, clause.end) {
            Some(
                "is the amount of one class of the facility (the commitments extended or not extended), not the facility's",
            )
        } else if names_other_debt(doc, found.span.end, clause.end) {
            // "$100M of term loans due 2023 (the "Existing Term Loans")": the clause names the
            // loans the amount measures as debt already owed, which this facility is not.
            Some("is the amount of debt the text names as existing or outstanding, not of this facility")
        } else {
            None
        };
        if let Some(reason) = set_aside {
            report.dropped("/facilities/*/commitment", doc.slice(found.span.clone()), found.span.clone(), reason);
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
                && !is_line_term(&d.key)
                && ["amount", "limit", "sublimit", "cap", "threshold", "basket"].iter().any(|w| d.key.ends_with(w))
        });
        if defines_other_amount {
            continue;
        }
        // The total row of a schedule a plain-text copy flattened, in the currency its heading
        // notes ("Lender's Commitment (Cdn.$)" above "$200,000,000").
        let schedule_total =
            schedule_totals.iter().find(|(total, _)| total.start <= found.span.start && found.span.end <= total.end);
        let mut money = found.money;
        if let Some((_, Some(noted))) = schedule_total {
            match noted {
                Some(code) if *code == money.currency => {}
                Some(code) if doc.slice(found.figures.clone()).starts_with('$') => money.currency = *code,
                _ => {
                    report.dropped(
                        "/facilities/*/commitment",
                        doc.slice(found.span.clone()),
                        found.span.clone(),
                        "is the total of a schedule whose heading notes a currency that cannot be read, or another than its figures'",
                    );
                    continue;
                }
            }
        }
        let totals = schedule_total.is_some() || labelled_total(doc, found) || sums_the_lenders_above(doc, found);
        let stated_in_passing = AMOUNT_LEAD_IN.is_match(lead_in)
            && (COMMITMENT_CONTEXT.is_match(lead_in) || !doc.refs_in(lead_range.clone()).is_empty());
        let defines_line = definition.is_some_and(|d| first_amount_of_a_line(doc, d, found));
        let defining = following.is_some()
            || labelled
            || totals
            || named_as_loan
            || increased_total
            || defines_line
            || (defined && stated_in_passing);
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
            (None, None, None) => {
                let nearest = nearest_scope(doc, found.span.start);
                defined_facility_over_generic(doc, definition, &nearest).unwrap_or(nearest)
            }
        };
        if let Some(money) = doc.sourced(found.span.clone(), money) {
            let list = if defining { &mut candidates.defining } else { &mut candidates.passing };
            list.push(Scoped::new(money, keys));
        }
    }
    candidates
}

/// `"Term A Loans" means the term loans made on the Closing Date in an aggregate principal amount
/// of $400,000,000`: an amount in the definition of a facility's loans or commitments is that
/// facility's, though the nearest reference before it is the generic kind ("the term loans") the
/// definition explains the facility by. The defined facility, when the nearest reference is only
/// that generic kind of it.
fn defined_facility_over_generic(
    doc: &Document<'_>,
    definition: Option<&Definition>,
    nearest: &[FacilityKey],
) -> Option<Vec<FacilityKey>> {
    let definition = definition?;
    let &[near] = nearest else { return None };
    let &[defined] = unique_keys(doc.refs_in(definition.term.clone())).as_slice() else { return None };
    let defined_type = defined.stated_type()?;
    let generic_of_it = match near {
        FacilityKey::Term => {
            matches!(defined_type, FacilityType::TermLoan | FacilityType::TermLoanA | FacilityType::TermLoanB)
        }
        FacilityKey::Revolving => defined_type == FacilityType::RevolvingCredit,
        _ => false,
    };
    (generic_of_it && defined != near).then(|| vec![defined])
}

/// A lower-case word and one space ending the text before an amount: the amount is read in a
/// sentence ("is", "of", "exceed"), not in a row of a table after a lender's name (one ending in a
/// lower-case legal form, "plc", too) or another column's figure, which runs of spaces set apart.
static PROSE_WORD_BEFORE: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(?P<word>[a-z]+) $"));

/// Whether `found` and another amount stand side by side, one space apart, where a
/// sentence states one amount: "the Aggregate Revolving Commitments … is $175,000,000
/// $225,000,000." A marked-up copy whose strike-through and underline were lost prints the
/// deleted amount and the inserted one so; the first is the old term, and which one the text
/// means cannot be told from the words. Figures side by side in a table (a lender's row of
/// columns) follow a name or another figure, not a word of a sentence.
pub(super) fn side_by_side_in_prose(doc: &Document<'_>, found: &MoneyMatch) -> bool {
    let gap_only = |range: Range<usize>| doc.slice(range) == " ";
    let at = doc.money.partition_point(|m| m.span.start < found.span.start);
    let next = doc.money.get(at + 1).filter(|next| gap_only(found.span.end..next.span.start));
    let previous = at.checked_sub(1).and_then(|i| doc.money.get(i)).filter(|p| gap_only(p.span.end..found.span.start));
    let first = match (previous, next) {
        (Some(previous), _) => previous,
        (None, Some(_)) => found,
        (None, None) => return false,
    };
    PROSE_WORD_BEFORE
        .captures(doc.slice(before(doc.text, first.span.start, 40)))
        .and_then(|c| c.name("word"))
        .is_some_and(|word| !LEGAL_FORM_FIRST.is_match(word.as_str()))
}

/// "not to exceed the lesser of (i) $10,000,000 and (ii) the Borrowing Base": the amount opens the
/// first item of a "lesser of" and its clause is that item; the lead-in that says what the amount
/// limits is the clause before it. Its start, when the amount is so placed.
fn lesser_of_lead_start(doc: &Document<'_>, clause_start: usize, amount_start: usize) -> Option<usize> {
    let item = doc.slice(clause_start..amount_start).trim();
    if !FIRST_ITEM.is_match(item) {
        return None;
    }
    let before_item = doc.slice(before(doc.text, clause_start, 40)).trim_end().to_ascii_lowercase();
    before_item.ends_with("lesser of").then(|| clause_around(doc.text, clause_start.saturating_sub(1)).start)
}

/// The first item's enumerator of a two-way choice: "(i)", "(a)", "(1)", "(x)".
static FIRST_ITEM: LazyLock<Regex> = LazyLock::new(|| pattern(r"^\((?:i|a|1|x|A)\)$"));

/// Defined terms that name a bank's or venture lender's line or loan by its size: `"Revolving
/// Line" is $15,000,000`, `"Term Loan Amount" means $20,000,000`, `"Line of Credit" means a
/// Credit Extension of up to $5,000,000`.
fn is_line_term(term: &str) -> bool {
    matches!(
        term,
        "revolving line"
            | "revolving line amount"
            | "revolving credit line"
            | "line of credit"
            | "credit line"
            | "term loan amount"
            | "loan amount"
    )
}

/// Whether `found` is the amount a line's definition (`is_line_term`) opens with: the first
/// amount in the definition, after a short lead ("is", "means an aggregate principal amount equal
/// to", "means a Credit Extension of up to") that speaks of no tranche or part of it. An amount
/// later in the definition (the size after an increase, a sublimit) is not what it defines.
fn first_amount_of_a_line(doc: &Document<'_>, definition: &Definition, found: &MoneyMatch) -> bool {
    if !is_line_term(&definition.key) || found.span.start < definition.body.start {
        return false;
    }
    let lead = doc.slice(definition.body.start..found.span.start);
    let first = doc.money.iter().find(|m| m.span.start >= definition.body.start).is_some_and(|m| m.span == found.span);
    first && lead.len() <= 100 && !LINE_LEAD_OF_A_PART.is_match(lead)
}

/// Words in a line definition's lead that make its first amount a part of the line: a tranche,
/// the first advance, an amount available on a condition.
static LINE_LEAD_OF_A_PART: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:tranche|first|initial|second|sub-?limit|portion|part|upon|after|until|prior)\b|\([a-z0-9]{1,3}\)",
    )
});

/// Whether the amount ending at `pos` is named right after as one of numbered tranches (`(the
/// "Tranche 1 Term Loan")`, `(the "Second Tranche Advance")`) in a text that numbers another:
/// the amount of one tranche, available perhaps only on a milestone, is not the facility's.
fn one_of_numbered_tranches(doc: &Document<'_>, pos: usize) -> bool {
    let Some(term) = named_after(doc, pos) else { return false };
    let Some(id) = tranche_id(&term) else { return false };
    NUMBERED_TRANCHE
        .captures_iter(doc.text)
        .filter_map(|c| c.get(0))
        .any(|m| tranche_id(&normalise_label(m.as_str())).is_some_and(|other| other != id))
}

/// "Tranche 2", "Tranche Two", "Second Tranche": a tranche named by its number or rank (a
/// lettered tranche, "Tranche A Term Loans", is as often a facility of its own).
static NUMBERED_TRANCHE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\btranche[ \t]+(?:[0-9]{1,2}|one|two|three|four)\b|\b(?:first|second|third|fourth)[ \t]+tranche\b")
});

/// The number or rank of a tranche a term names (lower case), if it names one.
fn tranche_id(term: &str) -> Option<String> {
    let found = NUMBERED_TRANCHE.find(term)?;
    let words: Vec<&str> = found.as_str().split_whitespace().collect();
    let id =
        if words.first().is_some_and(|w| w.eq_ignore_ascii_case("tranche")) { words.get(1) } else { words.first() };
    let id = id?.to_ascii_lowercase();
    let normal = match id.as_str() {
        "one" | "first" => "1",
        "two" | "second" => "2",
        "three" | "third" => "3",
        "four" | "fourth" => "4",
        other => other,
    };
    Some(normal.to_owned())
}

/// A term defined inside another definition's paragraph, in the sentence before `pos`: `…, and
/// "Dollar Revolving Commitments" shall mean the aggregate …`. Its span, without the quotes.
fn second_definition_before(doc: &Document<'_>, pos: usize) -> Option<Range<usize>> {
    let own = doc.structure.definition_at(pos)?;
    let sentence = sentence_around(doc.text, pos);
    let start = sentence.start.max(own.term.end).max(pos.saturating_sub(600));
    let start = floor_boundary(doc.text, start);
    let found = SECOND_DEFINITION.captures_iter(doc.slice(start..pos)).last()?.name("term")?.range();
    let term = start + found.start..start + found.end;
    is_commitment_term(&normalise_label(doc.slice(term.clone()))).then_some(term)
}

/// `"Dollar Revolving Commitments" shall mean`, `"Total Commitments" means`.
static SECOND_DEFINITION: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"["“](?P<term>[^"”\n]{1,80})["”][ \t\r\n]+(?:shall[ \t\r\n]+mean|means)\b"#));

/// A facility reference that directly follows an amount, with only descriptive words between
/// ("$150,000,000 senior secured bridge facility"). A conjunction between them opens the next item
/// of a list ("a revolving line of $8,000,000 and a term loan of …"): that facility is another's.
fn type_reference_after(doc: &Document<'_>, pos: usize, clause_end: usize) -> Option<FacilityKey> {
    let limit = clause_end.min(pos.saturating_add(60)).max(pos);
    let reference = doc.refs_in(pos..limit).first()?;
    let gap = doc.slice(pos..reference.span.start);
    let descriptive = gap.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '\t');
    let joins_another =
        gap.split_whitespace().any(|w| ["and", "or", "plus", "nor"].contains(&w.to_ascii_lowercase().as_str()));
    (descriptive && !joins_another).then_some(reference.key)
}

/// Words after an amount that move it from one class of loans into another: "Revolving Loans in the
/// amount of $120,000,000 shall be converted into Term A Loans", "$300,000,000 of Initial Term Loans
/// exchanged for Refinancing Term Loans". The amount is the part moved, neither class's size.
static CONVERTED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)^[^$;.]{0,60}?\b(?:converted|exchanged|reclassified|redesignated)[ \t\r\n]+(?:into|to|for|as)\b")
});

/// The lead-in of the amount the aggregate commitments are increased to: "the aggregate
/// Revolving Commitments are increased from $750,000,000 to", "the total Term Commitments shall
/// be increased by $100,000,000 to". Only the aggregate: one lender's commitment increased is
/// that lender's.
static TOTAL_INCREASED_TO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:aggregate|total)[ \t\r\n]+(?:[A-Za-z\-]+[ \t\r\n]+){0,3}commitments[ \t\r\n]+(?:are|shall[ \t\r\n]+be|will[ \t\r\n]+be)[ \t\r\n]+(?:hereby[ \t\r\n]+)?increased[ \t\r\n]+(?:from|by)[ \t\r\n]+(?:US)?\$[0-9][0-9,.]*[ \t\r\n]+to[ \t\r\n]*$",
    )
});

/// Words after an amount that make it a part of the facility named next: "FILO Loans of
/// $75,000,000 as a separate tranche of the Revolving Credit Facility", "a $50,000,000 portion of
/// the Revolving Commitments".
static PART_OF_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[^$;.]{0,40}?\b(?:tranche|portion|part|sub-?facility|sub-?tranche|sub-?limit)[ \t\r\n]+(?:of|under|within)\b|^[ \t\r\n]*(?:for|of)[ \t\r\n]+(?:the[ \t\r\n]+)?Class[ \t\r\n]+[A-Z0-9][A-Z0-9-]{0,3}\b",
    )
});

/// Words after an amount that end what it measures: "The Delayed Draw Term Commitments of
/// $300,000,000 terminated undrawn", "Term B-1 Loans of $700,000,000 shall be repaid in full",
/// "… are hereby permanently terminated". Only a statement that they end, not that they may
/// ("as such Commitments may be reduced or terminated", "shall be repaid in installments").
static ENDED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[^$;.]{0,60}?\b(?:(?:were|was|have[ \t\r\n]+been|has[ \t\r\n]+been|are[ \t\r\n]+hereby|is[ \t\r\n]+hereby|shall[ \t\r\n]+be)[ \t\r\n]+(?:permanently[ \t\r\n]+)?(?:terminated|cancell?ed|(?:re|pre)?paid[ \t\r\n]+in[ \t\r\n]+full)|(?:terminated|expired)[ \t\r\n]+(?:undrawn|unused|in[ \t\r\n]+full))\b",
    )
});

/// A class an extension splits a facility into: "Extended Revolving Commitments", "Non-Extended
/// Revolving Commitments", "Term Loans of Non-Extending Term Lenders", "Extending Term Lender".
static EXTENSION_CLASS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:[Nn]on-?[ \t\r\n]*)?(?:Extended|Extending|EXTENDED|EXTENDING)[ \t\r\n]+(?:Revolving|Term|Tranche|REVOLVING|TERM|TRANCHE)\b",
    )
});

/// Whether the amount at `lead_start..amount_end` is stated for an extension's class: named in
/// its lead-in or right after it, before its clause ends. An amendment that extends the maturity
/// of the lenders that agree splits the facility into the extended and the non-extended
/// commitments; the amount of one class is not the facility's size, and a total of both is
/// rarely written beside them, so the class's amount is withheld rather than stated.
fn of_an_extension_class(doc: &Document<'_>, lead_start: usize, amount_end: usize, clause_end: usize) -> bool {
    let end = clause_end.min(amount_end.saturating_add(60)).max(amount_end);
    EXTENSION_CLASS.is_match(doc.slice(lead_start..end))
}

/// Whether `words`, a pattern anchored at its start ([`CONVERTED_AFTER`], [`PART_OF_AFTER`],
/// [`ENDED_AFTER`]), is said right after the amount ending at `pos`, before its clause ends.
fn said_right_after(doc: &Document<'_>, pos: usize, clause_end: usize, words: &Regex) -> bool {
    let end = clause_end.min(pos.saturating_add(SAID_AFTER_REACH)).max(pos);
    words.is_match(doc.slice(pos..end))
}

/// How far after an amount [`said_right_after`] reads: each of its patterns bounds its own reach.
const SAID_AFTER_REACH: usize = 120;

/// A facility named by the defined-term parenthetical right after an amount: "$500,000,000 (the
/// "Term A Loans")".
fn defined_reference_after(doc: &Document<'_>, pos: usize) -> Option<FacilityKey> {
    let following = doc.slice(after(doc.text, pos, 80));
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

/// The first word of a term that names debt already owed: "Existing Term Loans", "Prior Notes",
/// "Outstanding Debentures".
/// What follows figures that a line break, a page's text layer or a table cell cut short: the
/// rest of a digit group ("$5,00" then ",0\n00"), whole groups after a comma and a break ("$5,000,"
/// then "\n000"), a scale on the next line ("$5" then "\nmillion"). Reading up to the break would
/// state a thousandth of the amount.
static RUN_ON_FIGURES: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^(?:,[0-9]{1,2}(?:[^0-9]|$)|,-?[ \t\r\n]+[0-9]{3}(?:[^0-9]|$)|[ \t]*\r?\n[ \t\r\n]*(?i:million|billion)\b)",
    )
});

/// Why the figures of `found` are not a whole amount the text states, if they are not: they run
/// on past a break where they were read, they run straight into other figures, or they stand side
/// by side with another amount in a sentence (the last two, a marked-up copy's deleted and
/// inserted amounts).
fn not_the_whole_amount(doc: &Document<'_>, found: &MoneyMatch) -> Option<&'static str> {
    if RUN_ON_FIGURES.is_match(doc.slice(after(doc.text, found.span.end, 40))) {
        Some("is cut short: its figures run on past a break in the text, so it is not the whole amount")
    } else if fused_with_other_figures(doc.text, found.figures.clone()) {
        Some(
            "runs straight into other figures: a marked-up copy fused a deleted and an inserted amount, and neither can be told for the commitment",
        )
    } else if side_by_side_in_prose(doc, found) {
        Some(
            "stands side by side with another amount in a sentence: a marked-up copy printed a deleted and an inserted amount, and neither can be told for the commitment",
        )
    } else {
        None
    }
}

static OTHER_DEBT_TERM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^[ \t]*(?i:existing|prior|previous|outstanding|refinanced|old)\b"));

/// Whether the first term defined after `pos` within its clause (ending at `clause_end`) names
/// debt already owed.
fn names_other_debt(doc: &Document<'_>, pos: usize, clause_end: usize) -> bool {
    INLINE_TERM
        .captures(doc.slice(pos..clause_end.max(pos)))
        .and_then(|found| found.name("term"))
        .is_some_and(|term| OTHER_DEBT_TERM.is_match(term.as_str()))
}

/// The term a parenthetical right after `pos` defines ("(the "Loan Amount")"), normalised.
fn named_after(doc: &Document<'_>, pos: usize) -> Option<String> {
    let following = doc.slice(after(doc.text, pos, 80));
    let trimmed = following.trim_start();
    let captures = INLINE_TERM.captures(trimmed)?;
    if captures.get(0)?.start() != 0 {
        return None;
    }
    Some(normalise_label(captures.name("term")?.as_str()))
}

/// Resolves a facility's commitment. The provision that sets the amount (the definition of the
/// commitment, the schedule total) prevails over amounts mentioned in passing, which may cap some
/// of the loans only ("Swing Loans in an aggregate amount not to exceed $5,000,000"); those that
/// disagree with it are reported, not used. In an agreement with several facilities, an amount
/// that names none of them is not any one facility's commitment.
pub(super) fn resolve_commitment(
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
