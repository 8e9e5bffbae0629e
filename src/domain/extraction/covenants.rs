//! Financial maintenance covenants: maximum leverage, minimum interest cover, fixed charge and
//! debt service cover, with every level of a step-down schedule and what starts a level; the
//! covenants on amounts (liquidity, net worth, capital expenditures) are read by [`amounts`].
//!
//! Ratios are read inside the financial covenant section (or a term sheet's `Financial
//! Covenants:` line), where a ratio is a covenant level. Elsewhere ratios are pricing-grid
//! conditions or incurrence baskets, so outside such a section only sentences in covenant form
//! ("shall not permit the Leverage Ratio … to exceed 4.50:1.00") are read, and only when the
//! agreement has no such section at all. A financial covenants article runs over its sections when
//! they are named after financial tests ("Section 5.1 Maximum Leverage Ratio", "Section 5.2
//! Minimum Interest Coverage Ratio").
//!
//! A level belongs to the ratio its own clause names: a ratio this module does not know ("(b)
//! Total Priority Indebtedness Ratio. … 0.35 to 1.00") is not a level of the leverage covenant
//! stated before it. Each metric as named is one covenant, so a total and a secured leverage test
//! are never mixed into one schedule. A level's test period comes from its row in a step-down table
//! or from the words after it ("for the fiscal quarters ending on or before June 30, 2025"); the
//! words that make it conditional ("in the event that … Major Acquisitions", "following the
//! Delayed Draw Funding Date") are its condition.
//!
//! Inside a section a ratio stated in prose is a level only when a covenant verb binds the
//! borrower to it: a section also defines ratios ("… shall be deemed to be 1.50 to 1.00") and
//! sets the triggers of other terms ("if the Leverage Ratio exceeds 3.00 to 1.00 the Applicable
//! Margin increases"), and those are no levels. A recital ("WHEREAS …") or a statement of fact
//! ("does not exceed") is no covenant.

mod amounts;

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::document::Document;
use super::model::{CovenantLevel, CovenantType, FinancialCovenant};
use super::numbers::RatioMatch;
use super::text::{capitalisable, contains_ci, pattern, sentence_around, table_cells};

static FINANCIAL: LazyLock<Regex> = LazyLock::new(|| pattern(&format!(r"\b{}\b", capitalisable("financial"))));

static SECTION_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t]*(?:(?:section|clause|article)[ \t]+[0-9.]+[ \t.]*)?(?:[0-9]+(?:\.[0-9]+)*\.?[ \t]+)?(?:\([a-z0-9]{1,4}\)[ \t]*)?(?:financial[ \t]+(?:maintenance[ \t]+)?(?:condition[ \t]+)?covenants?|financial[ \t]+condition)\b",
    )
});

static METRIC: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:consolidated|adjusted|total|senior|secured|first[ \t\r\n]+lien|net|gross)[ \t\r\n]+){0,4}(?:leverage|interest[ \t\r\n]+cover(?:age)?|fixed[ \t\r\n]+charge[ \t\r\n]+cover(?:age)?|debt[ \t\r\n]+service[ \t\r\n]+cover(?:age)?)(?:[ \t\r\n]+ratio)?\b",
    )
});

/// A ratio named after what it divides, in title or upper case: "Income Available for Fixed
/// Charges to Fixed Charges Ratio", "EBITDA TO INTEREST EXPENSE RATIO". Only a denominator this
/// module can classify makes it a metric.
static TO_RATIO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:(?:[A-Z][A-Za-z'\-]*|for|of|and|FOR|OF|AND)[ \t\r\n]+){1,7}?(?:to|TO)[ \t\r\n]+(?:(?:Consolidated|CONSOLIDATED|Total|TOTAL)[ \t\r\n]+)?(?:Fixed[ \t\r\n]+Charges?|FIXED[ \t\r\n]+CHARGES?|Interest(?:[ \t\r\n]+Expense)?|INTEREST(?:[ \t\r\n]+EXPENSE)?|Debt[ \t\r\n]+Service|DEBT[ \t\r\n]+SERVICE)[ \t\r\n]+(?:Coverage[ \t\r\n]+|COVERAGE[ \t\r\n]+)?(?:Ratio|RATIO)\b",
    )
});

/// A leverage ratio named after what it divides: "ratio of Consolidated Debt to Total
/// Capitalization", "ratio of Debt to Tangible Net Worth", "ratio of Total Indebtedness to
/// EBITDA". Debt over capital, net worth or earnings is leverage, a maximum.
static DEBT_RATIO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bratio[ \t\r\n]+of[ \t\r\n]+(?:(?:consolidated|total|funded|senior|adjusted|net)[ \t\r\n]+){0,3}(?:debt|indebtedness|liabilities)[ \t\r\n]+to[ \t\r\n]+(?:(?:consolidated|total|tangible|adjusted|annualized)[ \t\r\n]+){0,3}(?:capitali[sz]ation|net[ \t\r\n]+worth|ebitda|operating[ \t\r\n]+cash[ \t\r\n]+flow|cash[ \t\r\n]+flow|equity)\b",
    )
});

static COVENANT_FORM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:(?:shall|will)[ \t\r\n]+)?not[ \t\r\n]+(?:(?:suffer|permit|allow)[ \t\r\n]+or[ \t\r\n]+)?(?:permit|allow|exceed|be[ \t\r\n]+(?:less|greater|more)[ \t\r\n]+than)|(?:shall|will)[ \t\r\n]+(?:be[ \t\r\n]+)?(?:at[ \t\r\n]+least|not[ \t\r\n]+less[ \t\r\n]+than))\b",
    )
});

/// A promise to keep a measure: "shall maintain", "will at all times have", "agrees to keep".
static PROMISE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:shall|will|agrees?[ \t\r\n]+to|covenants?[ \t\r\n]+(?:that|to))[ \t\r\n]+(?:(?:at[ \t\r\n]+all[ \t\r\n]+times|cause[ \t\r\n]+\S+[ \t\r\n]+to)[ \t\r\n]+)?(?:maintain|have|keep|achieve)\b",
    )
});

/// Words that bind the borrower to a level: a covenant verb ("permit", "maintain", "shall not
/// exceed", "to be less than") or a term sheet's "Maximum" / "Minimum" before the ratio's name.
static BINDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:permit|allow|suffer|maintain|keep|achieve|maximum|minimum|(?:(?:shall|will|must)(?:[ \t\r\n]+not)?|may[ \t\r\n]+not)[ \t\r\n]+(?:at[ \t\r\n]+any[ \t\r\n]+time[ \t\r\n]+)?(?:be|exceed|have|fall)|to[ \t\r\n]+(?:exceed|be|fall))\b",
    )
});

/// A sentence end in running prose: a full stop, then a capital or an opening quote.
static SENTENCE_END: LazyLock<Regex> = LazyLock::new(|| pattern(r#"[A-Za-z0-9)]\.[ \t\r\n]+["“(]?[A-Z]"#));

/// Words that say what a ratio is rather than bind the borrower to it: a definition or a ratio
/// deemed or treated as another for a calculation.
static DEFINES: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:means|shall[ \t\r\n]+mean|(?:is|are)[ \t\r\n]+defined[ \t\r\n]+as|deemed|treated[ \t\r\n]+as|(?:shall[ \t\r\n]+)?constitutes?|referred[ \t\r\n]+to[ \t\r\n]+as)\b",
    )
});

/// Words opening a clause in which a ratio is the subject of a condition: "for any fiscal quarter
/// in which the Leverage Ratio is greater than …", "whenever …", "upon …".
static CONDITION_ON_A_RATIO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:in|for|during)[ \t\r\n]+which|upon|at[ \t\r\n]+any[ \t\r\n]+time[ \t\r\n]+(?:that|when|in[ \t\r\n]+which))\b",
    )
});

/// A promise to keep a measure at a level: "shall maintain", "will at all times keep".
static MAINTAIN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:shall|will|agrees?[ \t\r\n]+to)[ \t\r\n]+(?:at[ \t\r\n]+all[ \t\r\n]+times[ \t\r\n]+)?(?:maintain|keep)\b",
    )
});

/// The verb that opens an item of a negative covenants list, the lead-in's "will not" standing
/// before the list: "(b) Permit the Fixed Charge Coverage Ratio … to be less than 1.25 to 1.00".
static ITEM_VERB: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(?:Permit|Allow|Suffer|PERMIT|ALLOW|SUFFER)\b"));

/// How far before its colon a lead-in's "will" or "shall" may stand.
const LEAD_IN_WORDS: usize = 300;

/// A line that opens an article: "ARTICLE VIII", "ARTICLE 7. REPORTING". Only in capitals: a
/// wrapped line of prose may start with "Article 7 hereof".
static ARTICLE_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^[ \t]*ARTICLE[ \t]+[0-9IVXLC]+\.?[ \t]*(?:[A-Z][A-Z ,&-]*)?\r?$"));

/// How far before a list item its lead-in may stand.
const LEAD_IN_REACH: usize = 40_000;

/// How far a section runs when no later heading ends it.
const MAX_SECTION: usize = 10_000;
/// How far a financial covenants article may run over sections named after financial tests.
const MAX_ARTICLE: usize = 40_000;
/// How far before a ratio its metric may be named.
const METRIC_REACH: usize = 1_500;
/// A numbered section heading that runs into its first sentence: "7.6. INCOME AVAILABLE FOR FIXED
/// CHARGES TO FIXED CHARGES RATIO.", "Section 10.6.2 Fixed Charge Coverage Ratio.".
static NUMBERED_HEADING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^[ \t]*(?:section[ \t]+)?[0-9]+(?:\.[0-9]+)*\.?[ \t]+[^.\n]{3,100}\.[ \t]*$"));

/// How long a section heading that runs into its first sentence may be.
const HEADING_REACH: usize = 120;
/// How far after a ratio the words that qualify it may run.
const QUALIFIER_REACH: usize = 300;

/// A section heading named after a financial test.
static FINANCIAL_TEST_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:ratio|coverage|leverage|net[ \t]+worth|capital[ \t]+expenditures?|ebitda|liquidity|debt[ \t]+service|fixed[ \t]+charges?)\b",
    )
});

/// Any named ratio: "Total Priority Indebtedness Ratio", "Consolidated Interest Coverage Ratio".
static NAMED_RATIO: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(?:[A-Z][\w\-]*[ \t\r\n]+){1,6}(?:Ratio|RATIO)\b"));

/// Words of a ratio's name that do not say which ratio it is.
const GENERIC_RATIO_WORDS: &[&str] = &[
    "minimum",
    "maximum",
    "required",
    "applicable",
    "permitted",
    "ratio",
    "level",
    "levels",
    "period",
    "periods",
    "ending",
    "ended",
    "fiscal",
    "quarter",
    "quarters",
    "four",
    "test",
    "date",
    "covenant",
    "the",
];

/// How far before a level in a table row its metric may be named (the table's header and the
/// sentence that introduces it, over many rows).
const TABLE_METRIC_REACH: usize = 8_000;

/// Words after a level that give its test period.
static PERIOD_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t\r\n]*(?:(?:for|during|as[ \t\r\n]+of|on|at)[ \t\r\n]+(?:the[ \t\r\n]+|each[ \t\r\n]+|any[ \t\r\n]+)?(?:(?:(?:one|two|three|four|[0-9]+|consecutive)[ \t\r\n]+)*(?:fiscal|test|calendar)[ \t\r\n]+(?:quarters?|periods?|years?)|test[ \t\r\n]+periods?|period)|(?:commencing|beginning|starting)[ \t\r\n]+(?:with|on)|thereafter)\b",
    )
});

/// Words that make a level conditional. "Funded" is not one: it names a measure ("Funded Debt",
/// "Funded Indebtedness"); a funding that starts a level is a "Funding Date" or follows "after the".
static CONDITION_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:in[ \t\r\n]+the[ \t\r\n]+event|if|upon|following|after[ \t\r\n]+the|provided[ \t\r\n]+that|elects?|election|acquisitions?|funding|consummation|springing|(?:covenant|trigger|compliance|testing)[ \t\r\n]+periods?|at[ \t\r\n]+any[ \t\r\n]+time[ \t\r\n]+(?:that|when|during))\b",
    )
});

/// The covenant a metric's name tests; a name wrapped over lines ("Fixed⏎Charge Coverage Ratio")
/// is the same name.
fn covenant_type(metric: &str) -> Option<CovenantType> {
    let lower = metric.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase();
    if lower.contains("leverage") || DEBT_RATIO.is_match(metric) {
        Some(CovenantType::MaximumLeverageRatio)
    } else if lower.contains("interest") {
        Some(CovenantType::MinimumInterestCoverageRatio)
    } else if lower.contains("fixed charge") {
        Some(CovenantType::MinimumFixedChargeCoverageRatio)
    } else if lower.contains("debt service") {
        Some(CovenantType::MinimumDebtServiceCoverageRatio)
    } else {
        None
    }
}

/// The regions in which ratios are covenant levels.
fn covenant_regions(doc: &Document<'_>, maintain_items: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut regions: Vec<Range<usize>> = FINANCIAL
        .find_iter(doc.text)
        .filter_map(|word| {
            let line = super::text::line_around(doc.text, word.start(), 200)?;
            if !SECTION_HEADING.is_match(doc.slice(line.clone())) || word.start() - line.start > 40 {
                return None;
            }
            let end = super::text::floor_boundary(doc.text, section_end(doc, line.end)).max(line.end);
            // "Financial Condition" heads a representation as often as covenants ("the Leverage
            // Ratio is not greater than …" represented, not promised): without "covenants" in
            // its heading, a section is covenants only when it promises something.
            let covenants_named = contains_ci(doc.slice(line.clone()), "covenant");
            let promises =
                || COVENANT_FORM.is_match(doc.slice(line.start..end)) || PROMISE.is_match(doc.slice(line.start..end));
            (covenants_named || promises()).then_some(line.start..end)
        })
        .collect();
    regions.extend(
        doc.structure.labels_where(|name| name.starts_with("financial covenant")).map(|label| label.value.clone()),
    );
    // A section headed by the ratio it tests ("7.6. Fixed Charge Coverage Ratio. Borrower shall
    // not permit …") is a covenant wherever it stands; without a covenants heading anywhere, any
    // covenant sentence that names its metric is one.
    let without_heading = regions.is_empty();
    regions.extend(
        COVENANT_FORM.find_iter(doc.text).filter_map(|found| covenant_sentence(doc, found.start(), without_heading)),
    );
    regions
        .extend(negative_list_items(doc).into_iter().filter_map(|item| covenant_sentence(doc, item, without_heading)));
    // A promise to maintain a ratio ("The Borrower will maintain a Leverage Ratio of no greater
    // than 3.00 to 1.00") is a covenant sentence too.
    regions.extend(
        MAINTAIN.find_iter(doc.text).filter_map(|found| covenant_sentence(doc, found.start(), without_heading)),
    );
    // The items of a list of levels to maintain, bound by its lead-in ([`maintain_items`]).
    regions.extend(maintain_items.iter().cloned());
    regions.sort_by_key(|r| r.start);
    regions.dedup_by(|later, earlier| later.start < earlier.end);
    regions
}

/// The region of the covenant sentence around `pos` with the section heading it runs on from,
/// when the heading or (if `bare` sentences count) the sentence names a metric; a sentence that
/// ends by introducing its levels ("… set forth in the following schedule:") runs on to the end
/// of its section.
fn covenant_sentence(doc: &Document<'_>, pos: usize, bare: bool) -> Option<Range<usize>> {
    let sentence = sentence_around(doc.text, pos);
    let heading = super::text::line_around(doc.text, sentence.start, 2000)
        .map(|line| line.start)
        .filter(|&start| sentence.start - start <= HEADING_REACH)
        .unwrap_or(sentence.start);
    let heading_names = |text: &str| METRIC.is_match(text) || TO_RATIO.is_match(text) || DEBT_RATIO.is_match(text);
    // Only a numbered heading belongs to the sentence; the rest of a wrapped line is the end of
    // the sentence before.
    let lead = doc.slice(heading..sentence.start);
    let heading = if heading < sentence.start && NUMBERED_HEADING.is_match(lead) { heading } else { sentence.start };
    let headed = heading < sentence.start && heading_names(lead);
    // A recital ("WHEREAS, Section 7.11 currently requires that the Borrower not permit …")
    // tells what an earlier agreement says; a statement in the present ("the Leverage Ratio does
    // not exceed 2.25 to 1.00") represents a fact. Neither is a promise.
    let recital = doc.slice(sentence.clone()).trim_start().get(..7).is_some_and(|w| w.eq_ignore_ascii_case("whereas"));
    if recital || is_a_statement_of_fact(doc, pos) {
        return None;
    }
    let names_its_metric = headed || (bare && heading_names(doc.slice(heading..sentence.end)));
    if !names_its_metric
        || (!headed
            && (is_incurrence_test(doc.slice(heading..sentence.end))
                || is_a_condition(doc, sentence.start, pos)
                || is_hypothetical(doc, pos)))
    {
        return None;
    }
    let introduces_levels = doc.slice(sentence.clone()).trim_end().ends_with(':');
    let end = if introduces_levels { section_end(doc, sentence.end).max(sentence.end) } else { sentence.end };
    Some(heading..end)
}

/// Where the items of negative covenants lists open with their verb: a capitalised "Permit",
/// "Allow" or "Suffer" right after a heading, an enumerator or a colon, whose nearest lead-in
/// before it says "will not" / "shall not". Under an affirmative lead-in ("the Borrower shall:")
/// or none, the verb binds nothing. An item is a covenant only when its sentence or heading
/// names a metric ([`covenant_sentence`]): "Permit any Lien …" is not one.
fn negative_list_items(doc: &Document<'_>) -> Vec<usize> {
    let opens_an_item = |pos: usize| {
        let lead = doc.slice(super::text::before(doc.text, pos, 12)).trim_end();
        lead.ends_with(['.', ')', ':'])
    };
    let items: Vec<usize> = ITEM_VERB.find_iter(doc.text).map(|m| m.start()).filter(|&at| opens_an_item(at)).collect();
    if items.is_empty() {
        return items;
    }
    // Every lead-in and article line, found once and only when an item may need them: a search
    // between each item and its lead-in would repeat over the same text for every item.
    let lead_ins = lead_ins(doc);
    let articles: Vec<usize> = ARTICLE_LINE.find_iter(doc.text).map(|m| m.start()).collect();
    items
        .into_iter()
        .filter(|&item| {
            let before = lead_ins.partition_point(|(end, _)| *end <= item);
            before > 0 && {
                let (end, negative) = lead_ins[before - 1];
                // A new article ends the lead-in's list ("ARTICLE VIII REPORTING The Borrower
                // shall, within 45 days …:" is not read as a lead-in, so it cannot end it).
                let next_article = articles.partition_point(|&start| start < end);
                let article_between = articles.get(next_article).is_some_and(|&start| start < item);
                negative && item - end <= LEAD_IN_REACH && !article_between
            }
        })
        .collect()
}

/// The lead-ins of lists, in order: where each one's colon ends, and whether it says "not". A
/// lead-in is a colon whose clause (the words since the last full stop, semicolon or colon, at most
/// [`LEAD_IN_WORDS`] back) holds "will" or "shall" and ends with it, with "not" after it, or with
/// "to": "the Borrower will not:", "the Company will not, and will not permit any Subsidiary to:",
/// "the Borrower shall:". Found colon by colon, each clause read back to the one before it: a
/// pattern with a long gap before "to:" searched over a whole agreement cost up to a third of its
/// extraction time.
fn lead_ins(doc: &Document<'_>) -> Vec<(usize, bool)> {
    doc.text
        .match_indices(':')
        .filter_map(|(colon, _)| {
            let words = words_of(clause_before(doc, colon));
            let is = |word: &&str, expected: &str| word.eq_ignore_ascii_case(expected);
            let verb = words.iter().position(|w| is(w, "shall") || is(w, "will"))?;
            let rest = &words[verb + 1..];
            let says_not = rest.iter().any(|w| is(w, "not"));
            let opens_a_list =
                rest.is_empty() || (rest.len() == 1 && says_not) || rest.last().is_some_and(|w| is(w, "to"));
            opens_a_list.then_some((colon + 1, says_not))
        })
        .collect()
}

/// The clause a colon ends: the words since the last full stop, semicolon or colon, at most
/// [`LEAD_IN_WORDS`] back.
fn clause_before<'t>(doc: &Document<'t>, colon: usize) -> &'t str {
    let clause = doc.slice(super::text::before(doc.text, colon, LEAD_IN_WORDS));
    clause.rfind(['.', ';', ':']).map_or(clause, |cut| &clause[cut + 1..])
}

/// The words of `clause`, letters only.
fn words_of(clause: &str) -> Vec<&str> {
    clause.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| !w.is_empty()).collect()
}

/// An enumerator opening a line: "(a)", "(ii)", "(3)".
static ITEM_ENUMERATOR: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?m)^[ \t]*\([a-z0-9]{1,4}\)[ \t]"));

/// A line that opens the next section or article and so ends a list: "6.10 Bank Accounts.",
/// "Section 7.1", "ARTICLE 7". Not the document structure's headings: those are top-level only,
/// and a list ends at the next numbered section ("6.10") too.
static NEXT_SECTION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?m)^[ \t]*(?:(?:Section|SECTION)[ \t]+[0-9]|[0-9]{1,2}\.[0-9]{1,2}\.?[ \t]|ARTICLE[ \t]|Article[ \t]+[0-9IVX])",
    )
});

/// How far after its lead-in a list of levels to maintain may run.
const MAINTAIN_LIST_REACH: usize = 4_000;

/// Words between a measure's name and its level in an item of a list of levels to maintain that
/// say which way the level binds: "A Liquidity Ratio of at least 1.25 to 1.00", "a Leverage Ratio
/// not to exceed 3.00 to 1.00".
static ITEM_DIRECTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:at|not|no)[ \t\r\n]+(?:less|more|greater|least)(?:[ \t\r\n]+than)?|not[ \t\r\n]+(?:to[ \t\r\n]+)?exceed(?:ing)?|(?:a[ \t\r\n]+)?(?:minimum|maximum)[ \t\r\n]+of)\b",
    )
});

/// The items of lists of levels to keep, each from its enumerator to the next one: the lists a
/// lead-in opens with a promise to maintain, ending with a colon ("Maintain at all times, to be
/// tested as of the last day of each month:", "the Borrower shall maintain the following:"),
/// whose items name the measure and its level without a verb of their own ("(a) Liquidity. A
/// Liquidity of at least $3,000,000."). A lead-in that says "not", or that is a condition ("If the
/// Borrower fails to maintain the following: …"), opens no such list; the list ends at the next
/// section or article, or at the first line after an item that opens no item.
fn maintain_items(doc: &Document<'_>) -> Vec<Range<usize>> {
    let mut items = Vec::new();
    for (colon, _) in doc.text.match_indices(':') {
        let clause = clause_before(doc, colon);
        if !contains_ci(clause, "maintain") {
            continue;
        }
        let words = words_of(clause);
        let promises = words.iter().any(|w| w.eq_ignore_ascii_case("maintain"))
            && !words.iter().any(|w| ["not", "fail", "fails", "failure"].iter().any(|n| w.eq_ignore_ascii_case(n)))
            && !CONDITION_OPENER.is_match(clause);
        if !promises {
            continue;
        }
        let reach = super::text::floor_boundary(doc.text, colon.saturating_add(MAINTAIN_LIST_REACH));
        let list = colon + 1..reach.max(colon + 1);
        let end = NEXT_SECTION_LINE.find(doc.slice(list.clone())).map_or(list.end, |m| list.start + m.start());
        let starts: Vec<usize> =
            ITEM_ENUMERATOR.find_iter(doc.slice(list.start..end)).map(|m| list.start + m.start()).collect();
        // The first item opens the line right after the lead-in (blank lines aside).
        if starts.first().is_none_or(|&first| !doc.slice(list.start..first).trim().is_empty()) {
            continue;
        }
        for (n, &start) in starts.iter().enumerate() {
            items.push(start..starts.get(n + 1).copied().unwrap_or(end));
        }
    }
    items
}

/// Whether the level at `level` is bound by the lead-in of the list whose item holds it and its
/// measure's name: same sentence, the words between the name and the level saying which way it
/// binds, no condition or definition before the level.
fn bound_by_its_lead_in(doc: &Document<'_>, items: &[Range<usize>], metric: Range<usize>, level: usize) -> bool {
    let Some(item) = items.iter().find(|i| i.start <= metric.start && level < i.end) else { return false };
    let between = doc.slice(metric.end.min(level)..level);
    let lead = doc.slice(item.start..level);
    ITEM_DIRECTION.is_match(between)
        && !SENTENCE_END.is_match(between)
        && !CONDITION_OPENER.is_match(lead)
        && !CONDITION_ON_A_RATIO.is_match(lead)
        && !DEFINES.is_match(lead)
}

/// Words that test a ratio as of an action the borrower takes: "after giving pro forma effect
/// thereto", "immediately after giving effect to such Restricted Payment".
static AS_OF_AN_ACTION: LazyLock<Regex> = LazyLock::new(|| {
    super::text::any_word(&["pro forma", "after giving effect", "immediately after", "immediately before"])
});

/// Words that test a ratio on dates, whatever the borrower does: "as of the last day of any fiscal
/// quarter", "at any time".
static ON_TEST_DATES: LazyLock<Regex> = LazyLock::new(|| {
    super::text::any_word(&["last day of", "end of any fiscal", "end of each fiscal", "at any time", "at all times"])
});

/// Whether a sentence in covenant form is an incurrence test: a ratio the borrower must meet to
/// take an action ("may request Incremental Term Loans, provided that after giving pro forma
/// effect thereto the Leverage Ratio shall not exceed 3.50 to 1.00"), not one it keeps on test
/// dates. A maintenance covenant calculated on a pro forma basis still names its test dates.
fn is_incurrence_test(sentence: &str) -> bool {
    AS_OF_AN_ACTION.is_match(sentence) && !ON_TEST_DATES.is_match(sentence)
}

/// Whether the words in covenant form at `verb` are a hypothetical ("the Leverage Ratio would not
/// exceed 3.25 to 1.00"): a test of what an action would do, which is a condition of the action,
/// not a covenant.
fn is_hypothetical(doc: &Document<'_>, verb: usize) -> bool {
    word_before(doc, verb).eq_ignore_ascii_case("would")
}

/// Whether the words in covenant form at `verb` are in the present indicative ("does not
/// exceed"): a representation or a condition, not a promise.
fn is_a_statement_of_fact(doc: &Document<'_>, verb: usize) -> bool {
    let word = word_before(doc, verb);
    ["does", "do", "did"].iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// The word right before `pos` (letters only: "“would" gives "would").
fn word_before<'t>(doc: &Document<'t>, pos: usize) -> &'t str {
    super::text::last_word(doc.slice(super::text::before(doc.text, pos, 12)))
}

/// A past tense right before a ratio: the figure the borrower reports ("as of September 30 the
/// Leverage Ratio was 2.85 to 1.00"), not a level it must keep.
static REPORTED: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:was|were|had[ \t\r\n]+been|equall?ed|amounted[ \t\r\n]+to)[ \t\r\n]*$"));

/// Words right before a ratio that make it the level another replaces: "(which level replaces
/// the 3.50 to 1.00 level of the Existing Credit Agreement)", "in place of 3.50 to 1.00".
static REPLACED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?i)\b(?:replac(?:es|ed|ing)|in[ \t\r\n]+(?:place|lieu)[ \t\r\n]+of|instead[ \t\r\n]+of|formerly|previously)(?:[ \t\r\n]+the)?[ \t\r\n]*["“]?$"#,
    )
});

/// Words right before a ratio that make it a step added to or taken from a level: "the maximum
/// ratio may be increased by 0.50 to 1.00 for four quarters", "a step-up of 0.25 to 1.00".
static STEP: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:increased|decreased|reduced|raised|lowered|stepped[ \t\r\n]+(?:up|down))[ \t\r\n]+by|(?:increase|decrease|reduction|step-?[ \t\r\n]*(?:up|down))[ \t\r\n]+of)[ \t\r\n]*$",
    )
});

/// Words after a ratio, in its sentence, that say the provision stating it is struck out: "Section
/// 7.12, which requires a Fixed Charge Coverage Ratio of at least 1.25 to 1.00, is hereby deleted
/// in its entirety". New text the sentence goes on to insert states its ratios after these words.
static DELETED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:is|are|shall[ \t\r\n]+be|will[ \t\r\n]+be)[ \t\r\n]+(?:hereby[ \t\r\n]+)?(?:deleted|removed|eliminated|stricken)\b",
    )
});

/// Whether the ratio at `level` is a reported figure (see [`REPORTED`]), a replaced one (see
/// [`REPLACED`]), a step (see [`STEP`]) or one of a provision the sentence deletes (see
/// [`DELETED_AFTER`]): none is a level in force.
fn is_reported(doc: &Document<'_>, level: usize) -> bool {
    let lead = doc.slice(super::text::before(doc.text, level, 40));
    let rest_of_sentence = doc.slice(level..sentence_around(doc.text, level).end.max(level));
    REPORTED.is_match(lead)
        || REPLACED.is_match(lead)
        || STEP.is_match(lead)
        || DELETED_AFTER.is_match(rest_of_sentence)
}

/// Words opening a clause that states a condition, not an obligation: "if", "so long as",
/// "provided that", "until", "on which".
static CONDITION_OPENER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:if|so[ \t\r\n]+long[ \t\r\n]+as|as[ \t\r\n]+long[ \t\r\n]+as|provided[ \t\r\n]+that|unless|when|whenever|until|(?:on|upon|after)[ \t\r\n]+which|in[ \t\r\n]+the[ \t\r\n]+event[ \t\r\n]+that|such[ \t\r\n]+that|to[ \t\r\n]+the[ \t\r\n]+extent[ \t\r\n]+that)\b",
    )
});

/// How far before its verb a condition's opening words are looked for.
const CONDITION_REACH: usize = 300;

/// Whether the words in covenant form at `verb` (in the sentence starting at `sentence_start`)
/// are those of a condition: a clause opened by "if", "so long as", "provided that", "until" …
/// and not closed by a comma before the verb ("… Restricted Payments so long as the Leverage
/// Ratio shall not exceed 2.75 to 1.00", "the ECF Percentage is 25% if the Leverage Ratio shall
/// not exceed 3.00 to 1.00"). A covenant that springs on a condition states it first and then its
/// obligation, after a comma ("If Liquidity is below $50,000,000, the Borrower shall not
/// permit …").
fn is_a_condition(doc: &Document<'_>, sentence_start: usize, verb: usize) -> bool {
    let from = super::text::floor_boundary(doc.text, verb.saturating_sub(CONDITION_REACH)).max(sentence_start);
    let lead = doc.slice(from..verb);
    let clause = lead.rfind([',', ';', ':']).map_or(lead, |at| &lead[at + 1..]);
    CONDITION_OPENER.is_match(clause)
}

/// Where the section whose heading line ends at `heading_end` ends: at the next heading, unless
/// that heading names a financial test (a section of a financial covenants article), up to
/// [`MAX_ARTICLE`].
fn section_end(doc: &Document<'_>, heading_end: usize) -> usize {
    let limit = heading_end.saturating_add(MAX_ARTICLE).min(doc.text.len());
    let mut end = heading_end;
    let mut first = true;
    while let Some(next) = doc.structure.next_heading_after(end) {
        if next >= limit {
            break;
        }
        let names_a_test = match super::text::line_around(doc.text, next, 200) {
            Some(line) => FINANCIAL_TEST_HEADING.is_match(doc.slice(line)),
            // A heading that runs on into a long first paragraph ("SECTION 6.1. FUNDED DEBT TO
            // EBITDA. THE COMPANY WILL NOT PERMIT …") names its test in its caption.
            None => FINANCIAL_TEST_HEADING.is_match(heading_caption(doc.slice(super::text::after(
                doc.text,
                next,
                HEADING_REACH,
            )))),
        };
        if !names_a_test {
            return if first { next.min(heading_end.saturating_add(MAX_SECTION)) } else { next };
        }
        first = false;
        end = next;
    }
    if first { doc.text.len().min(heading_end.saturating_add(MAX_SECTION)) } else { limit }
}

/// The caption of a numbered heading that runs into its text: "FUNDED DEBT TO EBITDA" in
/// "SECTION 6.1. FUNDED DEBT TO EBITDA. THE COMPANY …", up to the period that ends it.
fn heading_caption(heading: &str) -> &str {
    let number = heading.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
    let after_number =
        heading[number..].find(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(heading.len(), |at| number + at);
    let caption = &heading[after_number..];
    caption.find('.').map_or(caption, |end| &caption[..end])
}

/// The metric names in `text` (which starts at `offset`), in order; a ratio named after what it
/// divides is one name, not the coverage words at its end.
fn metrics_in(text: &str, offset: usize) -> Vec<Range<usize>> {
    let named: Vec<Range<usize>> =
        TO_RATIO.find_iter(text).chain(DEBT_RATIO.find_iter(text)).map(|m| m.range()).collect();
    let mut metrics: Vec<Range<usize>> = METRIC
        .find_iter(text)
        .map(|m| m.range())
        .filter(|m| !named.iter().any(|n| n.start <= m.start && m.end <= n.end))
        .chain(named.iter().cloned())
        .collect();
    metrics.sort_by_key(|m| m.start);
    metrics.into_iter().map(|m| offset + m.start..offset + m.end).collect()
}

/// The financial covenants, one per metric as named, levels in the order stated: the ratios, then
/// the covenants on amounts.
pub(crate) fn extract(doc: &Document<'_>) -> Vec<FinancialCovenant> {
    let items = maintain_items(doc);
    let regions = covenant_regions(doc, &items);
    let mut covenants = ratio_covenants(doc, &regions, &items);
    covenants.extend(amounts::extract(doc, &regions, &items));
    covenants
}

/// The covenants on ratios found in `regions`.
fn ratio_covenants(doc: &Document<'_>, regions: &[Range<usize>], items: &[Range<usize>]) -> Vec<FinancialCovenant> {
    let mut covenants: Vec<FinancialCovenant> = Vec::new();
    for region in regions.iter().cloned() {
        let region_text = doc.slice(region.clone());
        let metrics = metrics_in(region_text, region.start);
        let mut stated: Vec<(RatioMatch, bool)> =
            doc.ratios_in(region.clone()).iter().map(|r| (r.clone(), false)).collect();
        stated.extend(
            doc.percents_in(region.clone())
                .iter()
                .map(|p| (RatioMatch { span: p.span.clone(), value: p.fraction }, true)),
        );
        stated.sort_by_key(|(level, _)| level.span.start);
        for (ratio, in_percent) in &stated {
            let table_period = if *in_percent { None } else { period_of(doc, ratio.span.clone()) };
            let reach = if table_period.is_some() { TABLE_METRIC_REACH } else { METRIC_REACH };
            let Some(metric) =
                metrics.iter().rev().find(|m| m.end <= ratio.span.start && ratio.span.start - m.end <= reach)
            else {
                continue;
            };
            if !names_its_own_metric(doc, metric.clone(), ratio.span.start)
                || is_reported(doc, ratio.span.start)
                || (table_period.is_none()
                    && !binds(doc, metric.clone(), ratio.span.start)
                    && !bound_by_its_lead_in(doc, items, metric.clone(), ratio.span.start))
                || (*in_percent && !is_a_capitalisation_level(doc, metric.clone(), ratio))
            {
                continue;
            }
            let Some(kind) = covenant_type(doc.slice(metric.clone())) else { continue };
            let Some(threshold) = doc.sourced(ratio.span.clone(), ratio.value) else { continue };
            let name = doc.slice(metric.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
            let (period, condition) = match table_period {
                Some(period) => (Some(period), None),
                None => match qualifiers_after(doc, ratio.span.end, region.end) {
                    (period, None) => (period, condition_before(doc, ratio.span.start)),
                    stated => stated,
                },
            };
            let level = CovenantLevel { threshold, period, condition };
            let same_metric = |c: &&mut FinancialCovenant| {
                *c.covenant_type.value() == kind && c.metric.value().eq_ignore_ascii_case(&name)
            };
            match covenants.iter_mut().find(same_metric) {
                Some(covenant) => {
                    if !covenant
                        .levels
                        .iter()
                        .any(|l| l.threshold.span() == level.threshold.span() || restates(l, &level))
                    {
                        covenant.levels.push(level);
                    }
                }
                None => {
                    let (Some(covenant_type), Some(metric)) =
                        (doc.sourced(metric.clone(), kind), doc.sourced(metric.clone(), name))
                    else {
                        continue;
                    };
                    covenants.push(FinancialCovenant { covenant_type, metric, levels: vec![level], currency: None });
                }
            }
        }
    }
    covenants
}

/// Whether the words around a level stated in prose bind the borrower to it: a covenant verb
/// whose subject is the metric ("shall not permit the Leverage Ratio … to exceed 4.00 to 1.00",
/// "Minimum Interest Coverage Ratio of 2.50x"). Inside a covenants section a ratio is also named
/// by what the section defines ("\"Qualifying Leverage\" means a Leverage Ratio of 3.00 to 1.00",
/// "shall be deemed to be 1.50 to 1.00") and by the triggers of other terms ("if the Leverage
/// Ratio exceeds 3.00 to 1.00 the Applicable Margin increases", "for any fiscal quarter in which
/// the Leverage Ratio is greater than 3.25 to 1.00, the Commitment Fee …"); those are no levels.
///
/// The binding words are the first after the metric's name, or else the last before it; the
/// latter binds only when no condition stands between them and the name.
fn binds(doc: &Document<'_>, metric: Range<usize>, level: usize) -> bool {
    let clause = super::text::clause_start(doc.text, metric.start).min(metric.start);
    if DEFINES.is_match(doc.slice(clause..level)) {
        return false;
    }
    let lead = sentence_around(doc.text, metric.start).start.min(metric.start)..level;
    let text = doc.slice(lead.clone());
    let metric_at = metric.start - lead.start;
    let name_end = metric.end.min(level) - lead.start;
    // `get`, not indexing: a hostile text must not panic the reader.
    let (Some(before_the_name), Some(after_the_name)) = (text.get(..metric_at), text.get(name_end..)) else {
        return false;
    };
    // A verb of an earlier sentence binds nothing in this one ("… to exceed 3.00 to 1.00. If the
    // ratio exceeds 2.50 to 1.00, …"; "… to exceed 4.00 to 1.00. The margin steps up while it
    // stands at 3.00 to 1.00").
    if SENTENCE_END.is_match(after_the_name) {
        return false;
    }
    if BINDS.find_iter(text).any(|b| b.start() >= name_end) {
        return true;
    }
    let Some(before_name) = BINDS.find_iter(before_the_name).last() else { return false };
    let between = before_the_name.get(before_name.end()..).unwrap_or("");
    // Past a semicolon the verb binds only the items of its list ("(a) … ; and (b) an Interest
    // Coverage Ratio of at least …"), not a new clause ("…; for purposes of this Section, a …").
    let next_item = between.rsplit_once(';').is_none_or(|(_, rest)| {
        let rest = rest.trim_start();
        let rest = rest.strip_prefix("and").or_else(|| rest.strip_prefix("or")).unwrap_or(rest);
        rest.trim_start().starts_with('(')
    });
    next_item && !(CONDITION_ON_A_RATIO.is_match(between) || CONDITION_OPENER.is_match(between))
}

/// Debt over capitalisation, equity or net worth: a ratio agreements often state in percent.
static CAPITALISATION_RATIO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bto[ \t\r\n]+(?:(?:consolidated|total|tangible|adjusted)[ \t\r\n]+){0,3}(?:capitali[sz]ation|net[ \t\r\n]+worth|equity)\b",
    )
});

/// The direction of a maximum between a ratio's name and its level.
static MAXIMUM_WORDS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:exceed|(?:more|greater)[ \t\r\n]+than|in[ \t\r\n]+excess[ \t\r\n]+of)\b"));

/// How far after a ratio's name its level in percent may stand.
const PERCENT_REACH: usize = 200;

/// Whether a percentage is the level of a debt-to-capitalisation covenant ("shall not permit the
/// ratio of Total Debt to Total Capitalization to exceed 60%", "… of not more than 55%"): the
/// metric divides debt by capitalisation, equity or net worth, a maximum's words stand between the
/// name and the figure, and no other figure does (a figure said twice, "sixty percent (60%)", is
/// one). A leverage ratio in percent of any other kind (a bank's Tier 1 leverage, a minimum) is a
/// covenant the model has no type for, so it is not read.
fn is_a_capitalisation_level(doc: &Document<'_>, metric: Range<usize>, level: &RatioMatch) -> bool {
    let name = doc.slice(metric.clone());
    if !DEBT_RATIO.is_match(name)
        || !CAPITALISATION_RATIO.is_match(name)
        || level.span.start - metric.end > PERCENT_REACH
    {
        return false;
    }
    let between = metric.end..level.span.start;
    MAXIMUM_WORDS.is_match(doc.slice(between.clone()))
        && doc.ratios_in(between.clone()).is_empty()
        && doc.percents_in(between).iter().all(|other| other.fraction == level.value)
}

/// Whether `level` says again what `earlier` said: the same figure with no test period or
/// condition of its own, as where an equity cure speaks of the amount "needed to cause the
/// Leverage Ratio to be 3.75 to 1.00". It is not another level of the schedule.
fn restates(earlier: &CovenantLevel, level: &CovenantLevel) -> bool {
    level.period.is_none()
        && level.condition.is_none()
        && earlier.threshold.value() == level.threshold.value()
        && earlier.condition.is_none()
}

/// Whether the ratio name nearest before the level is the metric found for it: a level stated
/// under a ratio this module does not know ("Total Priority Indebtedness Ratio") is not a level of
/// a known metric named earlier.
fn names_its_own_metric(doc: &Document<'_>, metric: Range<usize>, level: usize) -> bool {
    let lead = metric.start..level;
    // A table header's "Minimum Ratio" or "Maximum Ratio" names no ratio in particular.
    let specific = |name: &str| {
        name.split_whitespace()
            .any(|word| !GENERIC_RATIO_WORDS.iter().any(|generic| generic.eq_ignore_ascii_case(word.trim_matches(','))))
    };
    let nearest = NAMED_RATIO.find_iter(doc.slice(lead.clone())).filter(|m| specific(m.as_str())).last();
    match nearest {
        None => true,
        Some(named) => {
            let named = lead.start + named.start()..lead.start + named.end();
            // The nearest ratio name is the metric itself, or contains it ("Maximum Leverage Ratio").
            named.end <= metric.end || METRIC.is_match(doc.slice(named))
        }
    }
}

/// The test period or the condition stated in the words right after a level: "for the fiscal
/// quarters ending on or before June 30, 2025", "(or 0.65 to 1.00 for four consecutive fiscal
/// quarters in the event that … Major Acquisitions)". The words run to the next ratio, semicolon,
/// closing parenthesis or sentence end.
fn qualifiers_after(
    doc: &Document<'_>,
    level_end: usize,
    region_end: usize,
) -> (Option<super::sourced::Sourced<String>>, Option<super::sourced::Sourced<String>>) {
    let reach = super::text::floor_boundary(doc.text, level_end.saturating_add(QUALIFIER_REACH)).min(region_end);
    let mut end = reach;
    if let Some(next_ratio) = doc.ratios_in(level_end..reach).first() {
        end = end.min(next_ratio.span.start);
    }
    let words = doc.slice(level_end..end);
    let stop = qualifier_end(words);
    // "4.50 to 1.00 for the first four quarters and 4.00 to 1.00 thereafter": the connective to
    // the next level is not part of this level's words.
    let kept = words[..stop].trim_end_matches([' ', ',', '\n', '\r', '\t']);
    let stop = ["and", "or"]
        .iter()
        .find_map(|w| kept.strip_suffix(w).filter(|rest| rest.ends_with(char::is_whitespace)).map(str::len))
        .unwrap_or(stop);
    let range = super::text::trim_range_and(doc.text, level_end..level_end + stop, &[',', ' ']);
    let stated = doc.slice(range.clone());
    if stated.is_empty() {
        return (None, None);
    }
    let text = stated.split_whitespace().collect::<Vec<_>>().join(" ");
    if CONDITION_WORDS.is_match(stated) {
        return (None, doc.sourced(range, text));
    }
    if PERIOD_WORDS.is_match(stated) {
        return (doc.sourced(range, text), None);
    }
    (None, None)
}

/// The condition stated before a level in its own clause: "Commencing with the first fiscal
/// quarter ending after the Delayed Draw Funding Date, …", "…, calculated for each 4 quarter
/// period ending on the first day of any Covenant Testing Period, …". The comma-separated part
/// that holds the conditional words is quoted.
fn condition_before(doc: &Document<'_>, level_start: usize) -> Option<super::sourced::Sourced<String>> {
    let mut start = super::text::clause_start(doc.text, level_start);
    // The clause starts at its enumerator ("(b) Commencing …"), which is not part of the words.
    if doc.slice(start..level_start).starts_with('(')
        && let Some(close) = doc.slice(start..level_start).find(')').filter(|&close| close <= 5)
    {
        start += close + 1;
    }
    let lead = doc.slice(start..level_start);
    let mut offset = 0;
    for part in lead.split(',') {
        let range = start + offset..start + offset + part.len();
        offset += part.len() + 1;
        if CONDITION_WORDS.is_match(part) {
            let range = super::text::trim_range(doc.text, range);
            let text = doc.slice(range.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
            return doc.sourced(range, text);
        }
    }
    None
}

/// Where the words qualifying a level end: at a semicolon, a sentence end, the parenthesis that
/// closes one opened before the level, or the enumerator of the next item ("(ii)").
fn qualifier_end(words: &str) -> usize {
    // Parentheses opened after the level; one still open where the words end opens the next
    // level's words ("thereafter (or 5.25 to 1.00 …)").
    let mut open: Vec<usize> = Vec::new();
    for (i, c) in words.char_indices() {
        match c {
            ';' => return open.first().copied().unwrap_or(i),
            '.' if words[i + 1..].starts_with(char::is_whitespace) => return open.first().copied().unwrap_or(i),
            '(' => {
                let rest = &words[i + 1..];
                let label = rest.split(')').next().unwrap_or("");
                let enumerator = rest.contains(')')
                    && !label.is_empty()
                    && label.len() <= 4
                    && label.chars().all(|ch| ch.is_ascii_lowercase());
                if enumerator {
                    return open.first().copied().unwrap_or(i);
                }
                open.push(i);
            }
            ')' if open.is_empty() => return i,
            ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.first().copied().unwrap_or(words.len())
}

/// The test period of a level stated in a step-down table: the row's other cell, when the level
/// (a ratio or an amount at `level`) is a cell of its own in a row of several cells.
fn period_of(doc: &Document<'_>, level: Range<usize>) -> Option<super::sourced::Sourced<String>> {
    let line = super::text::line_around(doc.text, level.start, 400)?;
    let cells = table_cells(doc.text, line);
    // In a table row the level is a cell of its own; in prose it sits inside a longer cell.
    let level_is_a_cell = cells.iter().any(|cell| doc.slice(cell.clone()).trim() == doc.slice(level.clone()));
    if cells.len() < 2 || !level_is_a_cell {
        return None;
    }
    let period = cells.into_iter().find(|cell| !(cell.start <= level.start && level.end <= cell.end))?;
    let text = doc.slice(period.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
    doc.sourced(period, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_headed_by_a_ratio_named_after_what_it_divides_is_a_covenant_with_its_schedule() {
        let text = "5.1. FINANCIAL CONDITION. The Company is solvent.\n\n8.4. CASH FLOW TO DEBT SERVICE RATIO. The Company shall not permit the ratio of its Cash Flow to its Debt Service for any four fiscal quarters to be less than the ratio set forth below:\n\nPERIOD                              RATIO\nClosing through June 30, 2026       1.20:1.00\nJuly 1, 2026 and thereafter         1.30:1.00\n\n8.5. LIENS. The Company shall not permit any Lien.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].metric.value(), "CASH FLOW TO DEBT SERVICE RATIO");
        assert_eq!(*found[0].covenant_type.value(), CovenantType::MinimumDebtServiceCoverageRatio);
        let levels: Vec<String> = found[0].levels.iter().map(|l| l.threshold.value().to_string()).collect();
        assert_eq!(levels, ["1.2", "1.3"]);
        // A wrapped line of prose that mentions a ratio is not a heading.
        let prose = "the Designation may be made if the Leverage Ratio is greater than 3.75 to 1.00. The\nCompany shall not permit any such Designation to be less than the amount set forth below:\n";
        assert!(extract(&Document::scan(prose)).is_empty());
    }

    #[test]
    fn a_financial_condition_section_holds_covenants_only_when_it_promises_something() {
        let represented = "ARTICLE IV REPRESENTATIONS\n\nSection 4.6 Financial Condition. The balance sheet of the Company \
            fairly presents its condition, and on the Closing Date the Leverage Ratio is not greater than 2.40 to 1.00.\n\n\
            Section 4.7 Litigation. There is no litigation.\n";
        assert!(extract(&Document::scan(represented)).is_empty(), "{:?}", extract(&Document::scan(represented)));
        let promised = "ARTICLE VI COVENANTS\n\nSection 6.9 Financial Condition. The Company will maintain as of the end \
            of each fiscal quarter a Leverage Ratio of not more than 3.10 to 1.00.\n\nSection 6.10 Liens. None.\n";
        let found = extract(&Document::scan(promised));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(*found[0].covenant_type.value(), CovenantType::MaximumLeverageRatio);
    }

    #[test]
    fn a_ratio_the_borrower_must_meet_to_take_an_action_is_no_covenant_where_no_section_holds_covenants() {
        let text = "Section 2.14 Incremental Term Loans. The Borrower may request Incremental Term Loans, provided that \
            after giving pro forma effect thereto the Senior Secured Leverage Ratio shall not exceed 3.25 to 1.00.\n\n\
            Section 7.06 Dividends. The Borrower may pay dividends if, immediately after giving effect thereto, the \
            Interest Coverage Ratio shall be not less than 3.00 to 1.00.\n";
        assert!(extract(&Document::scan(text)).is_empty(), "{:?}", extract(&Document::scan(text)));
        let maintained = "Section 7.11 Compliance. The Borrower shall not permit the Leverage Ratio, calculated on a pro \
            forma basis, as of the last day of any fiscal quarter to exceed 3.75 to 1.00.\n";
        let found = extract(&Document::scan(maintained));
        assert_eq!(found.len(), 1, "a maintenance covenant names its test dates: {found:?}");
        assert_eq!(found[0].levels[0].threshold.quote(), "3.75 to 1.00");
    }

    #[test]
    fn a_ratio_test_in_a_clause_of_condition_is_no_covenant_but_a_covenant_springing_on_one_is() {
        let conditions = [
            "Section 7.06 Dividends. The Borrower may pay dividends so long as the Total Leverage Ratio as of the \
            last day of the latest fiscal quarter shall not exceed 2.50 to 1.00.\n",
            "Section 2.10 Prepayments. The sweep percentage is 50%, or 25% if the Senior Leverage Ratio as of the \
            last day of the fiscal year shall not exceed 2.00 to 1.00.\n",
            "\"Relief Period\" ends when the Borrower so elects, provided that the Net Leverage Ratio as of the last \
            day of the latest fiscal quarter shall not exceed 3.25 to 1.00.\n",
        ];
        for text in conditions {
            assert!(extract(&Document::scan(text)).is_empty(), "{text}: {:?}", extract(&Document::scan(text)));
        }
        let springing = "Section 7.11 Compliance. If on the last day of any fiscal quarter the revolving loans exceed \
            40% of the commitments, the Borrower shall not permit the First Lien Leverage Ratio to exceed 5.00 to 1.00.\n";
        let found = extract(&Document::scan(springing));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].levels[0].threshold.quote(), "5.00 to 1.00");
    }

    #[test]
    fn a_covenant_the_amendment_deletes_is_none_but_one_it_puts_in_its_place_is() {
        let deleted = "SECTION 2. Amendment. Section 6.09 of the Credit Agreement (Minimum Debt Service Coverage \
            Ratio), which provides that the Borrower shall not permit the Debt Service Coverage Ratio as of the last \
            day of any fiscal quarter to be less than 1.35 to 1.00, is hereby deleted in its entirety.\n";
        let found = extract(&Document::scan(deleted));
        assert!(found.is_empty(), "{found:?}");
        let replaced = "SECTION 2. Amendment. Section 6.09 of the Credit Agreement is hereby deleted in its entirety \
            and replaced with the following: the Borrower shall not permit the Debt Service Coverage Ratio as of the \
            last day of any fiscal quarter to be less than 1.20 to 1.00.\n";
        let found = extract(&Document::scan(replaced));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].levels[0].threshold.quote(), "1.20 to 1.00");
    }

    #[test]
    fn a_covenant_s_figure_said_again_by_its_equity_cure_is_not_a_second_level() {
        let text = "Section 7.11 Financial Covenants.\n\n(a) Leverage Ratio. The Borrower shall not permit the Leverage \
            Ratio as of the last day of any fiscal quarter to exceed 3.75 to 1.00.\n\n(b) Cure. The Borrower may \
            contribute equity in an amount not exceeding what is needed to cause the Leverage Ratio to be 3.75 to \
            1.00.\n\nSection 7.12 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].levels.len(), 1, "{:?}", found[0].levels);
    }

    #[test]
    fn a_ratio_of_debt_to_capital_or_net_worth_is_a_leverage_covenant() {
        let text = "Section 6.10 Financial Covenant. As of the last day of each fiscal quarter the ratio of Funded Debt \
            to Total Capitalization shall not be greater than 0.55:1.00.\n\nSection 6.11 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(*found[0].covenant_type.value(), CovenantType::MaximumLeverageRatio);
        assert_eq!(found[0].metric.value(), "ratio of Funded Debt to Total Capitalization");
        assert_eq!(found[0].levels[0].threshold.quote(), "0.55:1.00");
        let other = "Section 6.10 Financial Covenant. As of the last day of each fiscal quarter the ratio of current \
            assets to current liabilities shall not be less than 1.20:1.00.\n";
        assert!(extract(&Document::scan(other)).is_empty(), "liabilities as the divisor is no leverage ratio");
    }

    #[test]
    fn a_verb_after_a_character_of_several_bytes_is_read_without_a_panic() {
        let text = "the Leverage Ratio “” not exceed 3.50 to 1.00";
        let verb = text.find("not").unwrap_or_default();
        assert!(!is_hypothetical(&Document::scan(text), verb));
        assert!(is_hypothetical(&Document::scan("the Leverage Ratio would not exceed"), 25));
    }

    #[test]
    fn a_ratio_an_action_would_keep_is_a_condition_of_the_action_not_a_covenant() {
        let text = "Section 7.04 Acquisitions. The Borrower may make a Permitted Acquisition if, after giving pro forma \
            effect thereto, the Leverage Ratio would not exceed 3.25 to 1.00 as of the last day of the most recent \
            fiscal quarter.\n\nSection 7.05 Mergers. The Borrower may merge so long as, on a pro forma basis, the \
            Interest Coverage Ratio as of the last day of the latest fiscal quarter would not be less than 3.00 to \
            1.00.\n";
        assert!(extract(&Document::scan(text)).is_empty(), "{:?}", extract(&Document::scan(text)));
        let kept = "Section 7.11 Leverage. The Borrower shall not permit the Leverage Ratio as of the last day of any \
            fiscal quarter to exceed 3.50 to 1.00.\n";
        assert_eq!(extract(&Document::scan(kept)).len(), 1);
    }

    #[test]
    fn a_ratio_the_borrower_reports_in_the_past_tense_is_no_level() {
        let text = "Section 3 Compliance. As of June 30, 2024 the Leverage Ratio was 2.60 to 1.00, and the Borrower \
            shall not permit the Leverage Ratio at any time to exceed 4.00 to 1.00.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        let levels: Vec<&str> = found[0].levels.iter().map(|l| l.threshold.quote()).collect();
        assert_eq!(levels, ["4.00 to 1.00"]);
    }

    #[test]
    fn a_metric_whose_name_wraps_over_lines_is_still_that_metric() {
        let text = "ARTICLE VI\n\nFINANCIAL COVENANTS\n\nSection 6.1 Coverage. The Borrower shall not permit the Fixed\nCharge Coverage Ratio as of the last day of any Fiscal Quarter to be less than\n2.5 to 1.0.\n\nARTICLE VII\n\nEVENTS OF DEFAULT\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(*found[0].covenant_type.value(), CovenantType::MinimumFixedChargeCoverageRatio);
        assert_eq!(found[0].metric.value(), "Fixed Charge Coverage Ratio");
        assert_eq!(found[0].levels[0].threshold.quote(), "2.5 to 1.0");
    }

    #[test]
    fn a_ratio_of_funded_debt_is_no_condition_of_its_own_level() {
        let text = "Section 6.12. Ratio of Funded Debt to EBITDA. The Company will not permit the ratio of Funded Debt \
            to EBITDA, determined as of the end of each fiscal quarter, to be greater than 3.25 to 1.0.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("3.25".to_owned(), None, None)]);
    }

    #[test]
    fn a_section_heading_names_the_metric_its_first_sentence_tests() {
        let text = "6.3 Interest Coverage Ratio. The Company shall not permit the ratio of EBITDA to Interest Expense for any four consecutive fiscal quarters to be less than 2.75 to 1.\n\n6.4 Other Ratio. The Company shall not permit the ratio of its receivables to payables to be less than 1.10 to 1.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].metric.value(), "Interest Coverage Ratio");
        assert_eq!(found[0].levels[0].threshold.quote(), "2.75 to 1");
    }

    #[test]
    fn covenant_levels_with_step_downs_are_read_from_the_covenant_section() {
        let text = "\"Applicable Rate\" means 2.00% if the Consolidated Total Net Leverage Ratio is greater than 3.50:1.00.\n\nSection 7.11 Financial Covenants.\n\n(a) Consolidated Total Net Leverage Ratio. Permit the Consolidated Total Net Leverage Ratio as of the end of any fiscal quarter to be greater than the ratio set forth below opposite such fiscal quarter:\n\nFiscal Quarter Ending | Maximum Consolidated Total Net Leverage Ratio\nJune 30, 2024 through March 31, 2025 | 4.50:1.00\nJune 30, 2025 and thereafter | 4.00:1.00\n\n(b) Consolidated Interest Coverage Ratio. Permit the Consolidated Interest Coverage Ratio to be less than 3.00 to 1.00.\n\nSection 7.12 Amendments.";
        let doc = Document::scan(text);
        let found = extract(&doc);
        assert_eq!(found.len(), 2);
        assert_eq!(*found[0].covenant_type.value(), CovenantType::MaximumLeverageRatio);
        let levels: Vec<(String, Option<String>)> = found[0]
            .levels
            .iter()
            .map(|l| (l.threshold.value().to_string(), l.period.as_ref().map(|p| p.value().clone())))
            .collect();
        assert_eq!(
            levels,
            [
                ("4.5".to_owned(), Some("June 30, 2024 through March 31, 2025".to_owned())),
                ("4".to_owned(), Some("June 30, 2025 and thereafter".to_owned()))
            ]
        );
        assert_eq!(*found[1].covenant_type.value(), CovenantType::MinimumInterestCoverageRatio);
        assert_eq!(found[1].levels[0].threshold.quote(), "3.00 to 1.00");
    }

    #[test]
    fn a_term_sheet_covenant_line_is_read() {
        let text = "Financial Covenants: Maximum Total Net Leverage Ratio of 5.00x; minimum Interest Coverage Ratio of 2.50x.\n";
        let doc = Document::scan(text);
        let found = extract(&doc);
        let read: Vec<(CovenantType, String)> =
            found.iter().map(|c| (*c.covenant_type.value(), c.levels[0].threshold.value().to_string())).collect();
        assert_eq!(
            read,
            [
                (CovenantType::MaximumLeverageRatio, "5".to_owned()),
                (CovenantType::MinimumInterestCoverageRatio, "2.5".to_owned())
            ]
        );
    }

    fn levels(found: &FinancialCovenant) -> Vec<(String, Option<String>, Option<String>)> {
        found
            .levels
            .iter()
            .map(|l| {
                (
                    l.threshold.value().to_string(),
                    l.period.as_ref().map(|p| p.value().clone()),
                    l.condition.as_ref().map(|c| c.value().clone()),
                )
            })
            .collect()
    }

    #[test]
    fn a_financial_covenants_article_runs_over_sections_named_after_financial_tests() {
        let text = "ARTICLE VI\n\nFINANCIAL COVENANTS\n\nSection 6.1 Maximum Senior Leverage Ratio\n\nThe Parent shall \
            not permit the Senior Leverage Ratio to exceed 3.25 to 1.\n\nSection 6.2 Minimum Debt Service Coverage \
            Ratio\n\nThe Parent shall maintain a Debt Service Coverage Ratio of at least 1.20 to 1.\n\nSection 6.3 \
            Maximum Total Leverage Ratio\n\nThe Parent shall not permit the Total Leverage Ratio to exceed 4.00 to \
            1.\n\nARTICLE VII\n\nEVENTS OF DEFAULT\n\nSection 7.1 Cross-default at a Leverage Ratio above 5.00 \
            to 1.\n";
        let found = extract(&Document::scan(text));
        let read: Vec<(String, String)> =
            found.iter().map(|c| (c.metric.value().clone(), c.levels[0].threshold.value().to_string())).collect();
        assert_eq!(
            read,
            [
                ("Senior Leverage Ratio".to_owned(), "3.25".to_owned()),
                ("Debt Service Coverage Ratio".to_owned(), "1.2".to_owned()),
                ("Total Leverage Ratio".to_owned(), "4".to_owned()),
            ],
            "two leverage tests stay two covenants; the events of default are not covenants"
        );
    }

    #[test]
    fn a_level_stated_under_a_ratio_not_known_here_is_not_given_to_an_earlier_metric() {
        let text = "Section 8.1 Financial Covenants.\n\n(a) Maximum Leverage Ratio. Permit the Consolidated Leverage \
            Ratio to exceed 3.75 to 1.00.\n\n(b) Unencumbered Asset Ratio. Permit the Unencumbered Asset Ratio to \
            be less than 1.60 to 1.00.\n\nSection 8.2 Liens.";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1);
        assert_eq!(levels(&found[0]), [("3.75".to_owned(), None, None)]);
    }

    #[test]
    fn prose_step_downs_keep_their_periods_and_conditional_levels_their_conditions() {
        let text = "Section 7.15 Financial Covenants.\n\n(a) Consolidated Net Leverage Ratio. Permit the Consolidated \
            Net Leverage Ratio as of the last day of any fiscal quarter to exceed (i) 5.25 to 1.00 for the fiscal \
            quarters ending on or before December 31, 2025 and (ii) 4.75 to 1.00 thereafter (or 5.25 to 1.00 for \
            the four fiscal quarters following the consummation of a Material Acquisition).\n\n(b) Commencing with \
            the first full fiscal quarter ending after the Delayed Draw Funding Date, permit the Consolidated \
            Interest Coverage Ratio to be less than 2.50 to 1.00.\n\nSection 7.16 Amendments.";
        let found = extract(&Document::scan(text));
        assert_eq!(
            levels(&found[0]),
            [
                (
                    "5.25".to_owned(),
                    Some("for the fiscal quarters ending on or before December 31, 2025".to_owned()),
                    None
                ),
                ("4.75".to_owned(), Some("thereafter".to_owned()), None),
                (
                    "5.25".to_owned(),
                    None,
                    Some(
                        "for the four fiscal quarters following the consummation of a Material Acquisition".to_owned()
                    )
                ),
            ]
        );
        assert_eq!(
            levels(&found[1]),
            [(
                "2.5".to_owned(),
                None,
                Some(
                    "Commencing with the first full fiscal quarter ending after the Delayed Draw Funding Date"
                        .to_owned()
                )
            )]
        );
    }

    #[test]
    fn an_item_of_a_will_not_list_that_opens_with_its_verb_is_a_covenant() {
        let text = "ARTICLE 7\nNEGATIVE COVENANTS\nWhile any Advance is unpaid, the Company will not:\n\n\
            7.01 Liens. Create or permit any Lien on its property, except Permitted Liens.\n\n\
            7.02 Debt Service Coverage Ratio. Permit the Debt Service Coverage Ratio for any period of four \
            fiscal quarters to be less than 1.40 to 1.00.\n\n\
            7.03 Dividends. Pay any dividend, except as permitted by this Article.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].metric.value(), "Debt Service Coverage Ratio");
        assert_eq!(levels(&found[0]), [("1.4".to_owned(), None, None)]);

        // The lead-in may name the subsidiaries it also binds before its colon.
        let text = "The Guarantor will not, and will not permit any of its Subsidiaries to:\n\
            (a) Fundamental Changes. Merge into any other Person.\n\
            (b) Capital Ratio. Permit the ratio of Consolidated Debt to Total Capitalization to exceed 0.55 to 1.00 \
            at any time.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("0.55".to_owned(), None, None)]);
    }

    #[test]
    fn a_permit_item_binds_nothing_under_an_affirmative_lead_in_or_after_a_list_has_ended() {
        // "shall:" opens things the borrower must do; "Permit" there is not a prohibition.
        let affirmative = "So long as any Loan is outstanding, the Company shall:\n\n\
            (a) Inspections. Permit the Agent to inspect its books.\n\n\
            (b) Reporting. Permit the Agent to verify that the Interest Coverage Ratio is at least 2.00 to 1.00.\n";
        assert!(extract(&Document::scan(affirmative)).is_empty());
        // A new article ends the negative list, whatever its own lead-in says.
        let next_article = "ARTICLE VII\nNEGATIVE COVENANTS\nThe Company will not:\n(a) Merge with any Person.\n\n\
            ARTICLE VIII\nREPORTING\nThe Company shall, within 45 days after each fiscal quarter:\n\
            (a) Certificates. Permit the Agent to receive a certificate showing the Fixed Charge Coverage Ratio, which \
            must be at least 1.20 to 1.00 for pricing purposes.\n";
        assert!(extract(&Document::scan(next_article)).is_empty());
        // A later affirmative lead-in ends the negative list.
        let ended = "The Company will not:\n(a) Merge with any Person.\n\nThe Company shall:\n\
            (a) Reports. Permit the Agent to review each computation of the Leverage Ratio being 3.00 to 1.00 or less.\n";
        assert!(extract(&Document::scan(ended)).is_empty());
    }

    #[test]
    fn a_negative_covenant_list_item_states_a_level_without_a_covenants_heading() {
        let text = "10.6 The Company shall:\n\n10.6.1 Adjusted Leverage Ratio. Not permit the Adjusted Leverage Ratio to \
            be greater than 3.25 to 1 as of the last day of any Computation Period.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].metric.value(), "Adjusted Leverage Ratio");
        assert_eq!(levels(&found[0]), [("3.25".to_owned(), None, None)]);
    }
    #[test]
    fn a_ratio_the_covenants_section_defines_or_deems_is_no_level() {
        let text = "Section 7.11 Financial Covenants.\n\n(a) The Borrower shall not permit the Fixed Charge Coverage \
            Ratio for any four fiscal quarters to be less than 1.15 to 1.00.\n\n(b) \"Fixed Charge Coverage Ratio\" \
            means EBITDA less capital spending over Fixed Charges; provided that for a period before the Closing Date \
            the Fixed Charge Coverage Ratio shall be deemed to be 1.50 to 1.00.\n\n(c) As used here, \"Strong \
            Cover\" means a Fixed Charge Coverage Ratio of 2.00 to 1.00 or more.\n\n(d) Any Fixed Charge Coverage \
            Ratio above 9.00 to 1.00 shall be treated as a ratio of 9.00 to 1.00.\n\nSection 7.12 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("1.15".to_owned(), None, None)]);
    }

    #[test]
    fn a_pricing_trigger_inside_a_covenants_section_is_no_level() {
        let text = "Section 7.11 Financial Covenants.\n\n(a) Permit the Total Leverage Ratio at the end of any fiscal \
            quarter to be greater than 4.25 to 1.00; provided that for any fiscal quarter in which the Total Leverage \
            Ratio is greater than 3.50 to 1.00, the Commitment Fee shall be 0.35%.\n\n(b) If the Total Leverage Ratio \
            exceeds 3.00 to 1.00 on a test date, the Applicable Margin shall rise by 0.25% until the Total Leverage \
            Ratio is 3.00 to 1.00 or less.\n\n(c) The margin steps up by 25 basis points whenever the Total Leverage \
            Ratio is 2.75x or higher.\n\nSection 7.12 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("4.25".to_owned(), None, None)]);
    }

    #[test]
    fn one_covenant_verb_binds_every_item_of_its_list_but_not_the_clause_after_it() {
        let listed = "Section 6.1 Financial Covenants. The Company shall maintain: (a) a Leverage Ratio of not more \
            than 3.00 to 1.00; and (b) an Interest Coverage Ratio of at least 3.50 to 1.00.\n\nSection 6.2 Liens.\n";
        let found = extract(&Document::scan(listed));
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[1].levels[0].threshold.quote(), "3.50 to 1.00");
        let defined = "Section 6.1 Financial Covenants. The Company shall not permit the Total Leverage Ratio to exceed \
            3.75 to 1.00; for purposes of this Section, a Total Leverage Ratio of 2.50 to 1.00 or lower is an \
            \"Investment Grade Ratio\".\n\nSection 6.2 Liens.\n";
        let found = extract(&Document::scan(defined));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("3.75".to_owned(), None, None)]);
    }

    #[test]
    fn a_lettered_subsection_headed_financial_covenants_holds_covenants() {
        let text = "6. Covenants.\n\n(b)Insurance. Dealers shall keep the Inventory insured.\n\n(c)Financial Covenants.  \
            Dealers covenant and agree that, so long as any Obligations remain outstanding, Dealers shall:\n\n(i)maintain \
            at all times a ratio of Debt to Tangible Net Worth of not more than 3.10 to 1.0 as of each fiscal quarter \
            end; and\n\n(ii)maintain at all times a Current Ratio of not less than 1.3 to 1.0.\n\n(d)No Dealer will \
            merge.\n";
        let found = extract(&Document::scan(text));
        let stated: Vec<(CovenantType, String)> = found
            .iter()
            .flat_map(|c| c.levels.iter().map(|l| (*c.covenant_type.value(), l.threshold.value().to_string())))
            .collect();
        assert_eq!(stated, [(CovenantType::MaximumLeverageRatio, "3.1".to_owned())], "{found:?}");
    }

    #[test]
    fn a_step_added_to_a_level_after_an_acquisition_is_no_level() {
        let text = "Section 7.11 Financial Covenants. The Borrower will not permit the Net Leverage Ratio to exceed \
            4.00 to 1.00; provided that following a Material Acquisition the maximum ratio may be increased by 0.50 \
            to 1.00 for four fiscal quarters.\n\nSection 7.12 Liens.\n";
        let found = extract(&Document::scan(text));
        let levels: Vec<String> =
            found.iter().flat_map(|c| c.levels.iter().map(|l| l.threshold.value().to_string())).collect();
        assert_eq!(levels, ["4"], "{found:?}");
    }

    #[test]
    fn a_level_the_covenant_says_it_replaces_is_no_level() {
        let text = "Section 7.11 Financial Covenants. The Borrower shall not permit the Leverage Ratio as of the last \
            day of any fiscal quarter to exceed 4.00 to 1.00 (which replaces the 3.50 to 1.00 of the Existing Credit \
            Agreement).\n\nSection 7.12 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("4".to_owned(), None, None)]);
    }

    #[test]
    fn a_recital_or_a_statement_of_fact_is_no_covenant() {
        let texts = [
            "WHEREAS, Section 7.11 of the Credit Agreement now requires that the Borrower not permit the Leverage \
            Ratio to exceed 3.50 to 1.00;\n\nSection 2. Amendments. The Credit Agreement is amended as set out below.\n",
            "Section 5.14 Ratios. As of the Closing Date, the Leverage Ratio does not exceed 2.25 to 1.00.\n",
        ];
        for text in texts {
            assert!(extract(&Document::scan(text)).is_empty(), "{text}: {:?}", extract(&Document::scan(text)));
        }
    }

    #[test]
    fn a_covenant_not_to_suffer_or_allow_a_ratio_is_read() {
        let text = "Section 7.11 Leverage. The Borrower will not suffer or allow the Total Leverage Ratio as of any \
            Test Date to be more than 4.00:1.00.\n\nSection 7.12 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("4".to_owned(), None, None)]);
    }

    #[test]
    fn an_article_runs_over_a_test_heading_that_runs_into_a_long_paragraph() {
        let text = "ARTICLE VI\n\nFINANCIAL COVENANTS\n\nSECTION 6.1. FUNDED DEBT TO EBITDA. THE COMPANY WILL NOT PERMIT THE \
            RATIO OF FUNDED DEBT TO EBITDA TO EXCEED 3.00 TO 1.00 AT THE END OF ANY FISCAL QUARTER. IF THE RATIO OF \
            FUNDED DEBT TO EBITDA EXCEEDS 2.50 TO 1.00, THE INTEREST RATE SHALL RISE BY ONE-HALF OF ONE PERCENT.\n\n\
            ARTICLE VII\n\nEVENTS OF DEFAULT\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("3".to_owned(), None, None)], "the rate trigger after it is no level");
    }

    #[test]
    fn the_verb_of_an_earlier_sentence_binds_no_level_in_the_next() {
        let text = "Section 7.11 Financial Covenants. The Borrower shall not permit the Leverage Ratio to exceed 4.00 to \
            1.00. The Applicable Margin steps up while it stands at 3.00 to 1.00 or more.\n\nSection 7.12 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("4".to_owned(), None, None)]);
    }

    #[test]
    fn a_debt_to_capitalisation_covenant_in_percent_is_read_as_a_fraction() {
        let text = "Section 6.8 Financial Covenants. The Company shall not permit the ratio of Consolidated Debt to \
            Total Capitalization to exceed 60% at any time; provided that for the fiscal quarter in which a Material \
            Acquisition closes and the three fiscal quarters after it, the Company shall not permit the ratio of \
            Consolidated Debt to Total Capitalization to exceed sixty-five percent (65%).\n\nSection 6.9 Liens.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(*found[0].covenant_type.value(), CovenantType::MaximumLeverageRatio);
        let read: Vec<String> = found[0].levels.iter().map(|l| l.threshold.value().to_string()).collect();
        assert_eq!(read, ["0.6", "0.65"]);
    }

    #[test]
    fn a_leverage_ratio_in_percent_of_another_kind_is_not_read() {
        let texts = [
            "Section 7.11 Financial Covenants. The Borrower shall not permit the Bank's Leverage Ratio to be less \
            than eight percent (8.00%) at any time.\n",
            "Section 7.11 Financial Covenants. The Borrower shall not permit Capital Expenditures to exceed 10% of \
            revenues, nor the ratio of Total Debt to EBITDA to exceed 45%.\n",
            "Section 7.06 Dividends. The Borrower may pay dividends so long as the ratio of Total Debt to Total \
            Capitalization does not exceed 45%.\n",
        ];
        for text in texts {
            let ratios: Vec<_> = extract(&Document::scan(text)).into_iter().filter(|c| c.currency.is_none()).collect();
            assert!(ratios.is_empty(), "{text}: {ratios:?}");
        }
    }

    #[test]
    fn a_promise_to_maintain_a_ratio_is_a_covenant_without_a_covenants_heading() {
        let text = "Section 5.08 Leverage. The Borrower will maintain a Leverage Ratio of no greater than 3.00 to 1.00 \
            as of the end of each fiscal quarter.\n\nSection 5.09 Insurance. The Borrower will maintain insurance.\n";
        let found = extract(&Document::scan(text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(levels(&found[0]), [("3".to_owned(), None, None)]);
        let represented = "Section 4.09 Ratios. The Borrower maintains a Leverage Ratio of not more than 2.00 to 1.00 as \
            of the date hereof.\n";
        assert!(extract(&Document::scan(represented)).is_empty(), "a representation is no promise");
    }
    #[test]
    fn the_items_of_a_list_of_levels_to_maintain_are_bound_by_its_lead_in() {
        let read = |text: &str| -> Vec<(CovenantType, Vec<String>)> {
            extract(&Document::scan(text))
                .into_iter()
                .map(|c| (*c.covenant_type.value(), c.levels.iter().map(|l| l.threshold.value().to_string()).collect()))
                .collect()
        };
        let list = "7 COVENANTS\n\n7.4 Ratios and Worth. Keep on a consolidated basis, and maintain as of each month end:\n\n\
            (a) Coverage. A Fixed Charge Coverage Ratio of at least 1.40 to 1.00.\n\n\
            (b) Worth. A Tangible Net Worth of not less than $6,500,000.\n\n\
            7.5 Books. Keep proper books.\n";
        assert_eq!(
            read(list),
            [
                (CovenantType::MinimumFixedChargeCoverageRatio, vec!["1.4".to_owned()]),
                (CovenantType::MinimumTangibleNetWorth, vec!["6500000".to_owned()]),
            ]
        );
        // A condition that names the levels, a list of other things to maintain, an item whose
        // amount names no direction and an item after the next section bind nothing.
        let trigger = list.replace("Keep on a consolidated basis, and maintain", "If the Borrower fails to maintain");
        assert!(read(&trigger).is_empty(), "{:?}", read(&trigger));
        let insurance = "7.4 Insurance. Maintain the following policies:\n\n(a) Worth Cover. Fidelity insurance of at least $2,000,000.\n";
        assert!(read(insurance).is_empty(), "{:?}", read(insurance));
        let no_direction =
            "7.4 Levels. Maintain as of each month end:\n\n(a) Liquidity. Liquidity equal to $3,000,000.\n";
        assert!(read(no_direction).is_empty(), "{:?}", read(no_direction));
        let after = "7.4 Levels. Maintain as of each month end:\n\n(a) Books. Proper books.\n\n7.5 Other.\n\n(a) Coverage. A Fixed Charge Coverage Ratio of at least 1.40 to 1.00.\n";
        assert!(read(after).is_empty(), "{:?}", read(after));
    }
}
