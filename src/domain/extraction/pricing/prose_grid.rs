//! Pricing grids written as prose lists rather than tables, as plain-text filings of the 1990s and
//! 2000s often state them:
//!
//! ```text
//! "Applicable Margin" shall mean: (a) With respect to Base Rate Loans (i) 0.750% … if the
//! Leverage Ratio … was greater than 6.00 to 1; (ii) 0.500% … ; and (b) With respect to
//! Eurodollar Loans (i) 1.750% … ; (ii) …
//! ```
//!
//! or `"'Applicable Margin' shall mean: … is (x) greater than 2.70 to 1.0, 1.125% per annum, (y) …`.
//! The list's outline is read from its enumerators the way a reader follows them: `(b)` continues
//! the list `(a)` opened, `(i)` after `(a)` opens a list inside it, `(xx)` continues `(x)`, `(y)`,
//! `(z)`; an enumerator that continues no open list and opens none (a cross-reference, a list this
//! reader cannot follow) is part of the text around it.
//!
//! A list is read as a grid only when all of this holds, because a wrong margin is worse than none:
//!
//! - it sits in a pricing definition or label, or in a sentence that names the margin before the
//!   list, and nothing introducing it makes it a fee, a step-up or a default rate;
//! - it has two or more items, each stating exactly one percentage and, on one side of it, the
//!   condition of the level: a ratio or a rating (the last item may be "otherwise");
//! - lists under different loan types are the grid's columns, as a table's are: the benchmark's
//!   list gives the levels; the base rate's gives each level with the same condition its
//!   base-rate margin; the lists of other rates (a CD rate, a fixed rate) and of fees are not
//!   margins.
//!
//! A list whose items cannot all be read gives no grid. What the loans a list prices bear is
//! judged by the caller (see [`LoanRate`]), which knows the benchmarks.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rust_decimal::Decimal;

use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::{FloatingRateIndex, PricingGridLevel};
use crate::domain::extraction::sourced::Sourced;
use crate::domain::extraction::text::{
    before, contains_any_ci, floor_boundary, is_page_furniture, pattern, sentence_end_after, sentence_start_before,
    slice, trim_range,
};

/// What the loans a list prices bear, as the words introducing the list say ("with respect to
/// Eurodollar Loans", "(a) for Base Rate Loans", "the commitment fee shall be").
#[derive(Clone, Debug)]
pub(crate) enum LoanRate {
    /// A margin over the benchmark, and the benchmark when the words name it.
    Benchmark(Option<Sourced<FloatingRateIndex>>),
    /// A margin over the base rate.
    BaseRate,
    /// A fee, another rate (a CD rate, a fixed rate), a default rate or a step: not a margin.
    Other,
    /// The words do not say.
    Unstated,
}

/// A pricing grid read from a prose list.
#[derive(Clone, Debug)]
pub(crate) struct ProseGrid {
    /// From the list's first item to the end of its sentence: every figure in it belongs to the
    /// grid, none is a flat margin.
    pub range: Range<usize>,
    /// One column per list of margins over a benchmark.
    pub columns: Vec<ProseColumn>,
}

/// The levels of one list of margins over a benchmark.
#[derive(Clone, Debug)]
pub(crate) struct ProseColumn {
    /// The words that introduce the list, which name the facilities it prices when it prices some
    /// only.
    pub header: Range<usize>,
    pub levels: Vec<PricingGridLevel>,
    /// The benchmark the header names.
    pub index: Option<Sourced<FloatingRateIndex>>,
}

/// How far back from a mention of the margin its sentence is looked for.
const MAX_LEAD_IN: usize = 1500;
/// The longest sentence a list is read from.
const MAX_LIST: usize = 8000;

/// A mention of the margin in running text: "the Applicable Margin shall be as follows: (a) …".
static MARGIN_MENTION: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(?i:margin|spread|applicable[ \t\r\n]+rate)\b"));

/// `(a)`, `(ii)`, `(B)`, `(3)`, `(xx)`.
static ENUMERATOR: LazyLock<Regex> = LazyLock::new(|| pattern(r"\((?P<n>[0-9]{1,2}|[a-z]{1,4}|[A-Z]{1,4})\)"));

/// "Level I", "Pricing Level 2", "Tier III", "Category A", "Level IV Status".
static LEVEL_NAME: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:(?:Pricing|PRICING)[ \t]+)?(?:Level|LEVEL|Tier|TIER|Category|CATEGORY)[ \t]+(?P<n>[IVX]{1,4}|[1-9][0-9]?|[A-F])\b(?:[ \t]+(?:Status|STATUS))?",
    )
});

/// A credit rating as S&P, Fitch and Moody's write them ("BBB+", "Baa1"). A bare "A" is left out:
/// in prose it is the article.
static RATING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?:^|[^A-Za-z0-9])(?:AAA|AA\+|AA-|AA|A\+|A-|BBB\+|BBB-|BBB|BB\+|BB-|BB|B\+|B-|CCC\+|CCC|Aaa|Aa[1-3]|A[1-3]|Baa[1-3]|Ba[1-3]|B[1-3]|Caa[1-3])(?:$|[^A-Za-z0-9+\-])",
    )
});

/// Words that make the ratings in a list the pricing's conditions.
const RATING_WORDS: &[&str] = &["rating", "rated", "s&p", "moody", "fitch", "standard & poor"];

/// Words that make what a list states something other than the margin: a fee, a letter of credit
/// fee, a default rate, a step up or down from the margin, a floor.
const NOT_A_MARGIN: &[&str] = &[
    "fee",
    "letter of credit",
    "letters of credit",
    "default",
    "increased by",
    "decreased by",
    "reduced by",
    "increase of",
    "reduction of",
    "step-up",
    "step up",
    "step-down",
    "step down",
    "sustainab",
    "floor",
];

/// The words of a last item that applies in every case the others do not.
const OTHERWISE: &[&str] = &["otherwise", "all other times", "all other cases", "any other time"];

/// Words before an enumerator that make it a reference to a clause, not an item.
const REFERENCE_WORDS: &[&str] = &[
    "clause",
    "clauses",
    "paragraph",
    "paragraphs",
    "subparagraph",
    "subparagraphs",
    "section",
    "sections",
    "subsection",
    "subsections",
    "subclause",
    "subclauses",
    "item",
    "items",
    "article",
];

/// Words after an enumerator that make it a reference.
const REFERENCE_AFTER: &[&str] = &["above", "below", "hereof", "herein", "of this", "of such", "of section"];

/// Reads the pricing grids written as prose lists: in `pricing_regions` (the bodies of margin
/// definitions and the values of rate labels), and in sentences elsewhere that name the margin
/// before their list. `loans` says what the loans named in a range of the text bear.
pub(crate) fn read(
    doc: &Document<'_>,
    pricing_regions: &[Range<usize>],
    loans: impl Fn(Range<usize>) -> LoanRate,
) -> Vec<ProseGrid> {
    // Each sentence to read, with where its list may start at the earliest.
    let mut sentences: Vec<(Range<usize>, usize)> = Vec::new();
    for region in pricing_regions {
        let mut start = region.start;
        while start < region.end {
            let end = sentence_end_after(doc.text, start, region.end - start);
            if end <= start {
                break;
            }
            sentences.push((start..end, start));
            start = end;
        }
    }
    let mut read_until = 0;
    for mention in MARGIN_MENTION.find_iter(doc.text) {
        let at = mention.start();
        // Definitions are read as pricing regions when they define the margin, and not at all
        // otherwise (a fee's definition may speak of the margin); so is the term that opens one.
        let definitions = &doc.structure.definitions;
        let next_definition = definitions.partition_point(|d| d.term.start <= at);
        let in_definition =
            next_definition.checked_sub(1).and_then(|i| definitions.get(i)).is_some_and(|d| at < d.body.end);
        let in_region = pricing_regions.iter().any(|r| r.contains(&at));
        if at < read_until || in_definition || in_region || !names_the_margin(doc.text, mention.range()) {
            continue;
        }
        let start = sentence_start_before(doc.text, at, MAX_LEAD_IN);
        let mut end = sentence_end_after(doc.text, mention.end(), MAX_LIST);
        // A sentence of running text does not run on into the definitions that follow it.
        if let Some(definition) = definitions.get(next_definition) {
            end = end.min(definition.term.start.saturating_sub(1)).max(mention.end());
        }
        read_until = end;
        sentences.push((start..end, mention.end()));
    }
    let mut grids: Vec<ProseGrid> = sentences
        .into_iter()
        .filter_map(|(sentence, list_from)| read_sentence(doc, sentence, list_from, &loans))
        .collect();
    grids.sort_by_key(|grid| grid.range.start);
    grids.dedup_by(|later, earlier| later.range.start < earlier.range.end);
    grids
}

/// Whether a mention of "margin" or "spread" names the loans' margin, not margin stock, margin
/// regulations or a credit spread adjustment.
fn names_the_margin(text: &str, mention: Range<usize>) -> bool {
    let following = slice(text, mention.end..floor_boundary(text, mention.end + 16)).to_ascii_lowercase();
    let following = following.trim_start();
    let preceding = slice(text, before(text, mention.start, 12)).to_ascii_lowercase();
    !["stock", "regulation", "requirement", "call", "account"].iter().any(|w| following.starts_with(w))
        && !preceding.trim_end().ends_with("credit")
}

/// The grid a sentence states as a list, if it states one.
fn read_sentence(
    doc: &Document<'_>,
    sentence: Range<usize>,
    list_from: usize,
    loans: &impl Fn(Range<usize>) -> LoanRate,
) -> Option<ProseGrid> {
    let markers = markers_in(doc.text, sentence.clone());
    let outline = Outline::of(markers, sentence.end);
    let list_start = outline.items.first()?.label.start;
    if list_start < list_from {
        return None;
    }
    // What the lead-in says the loans bear counts only for a list nothing nearer qualifies (see
    // `Outline::role`): "with respect to Base Rate Loans and Eurodollar Loans, as follows: (a) for
    // Base Rate Loans …" names both.
    let lead_in = sentence.start..list_start;
    if contains_any_ci(doc.slice(lead_in.clone()), NOT_A_MARGIN) {
        return None;
    }
    let rating_context = contains_any_ci(doc.slice(sentence.clone()), RATING_WORDS);
    let mut columns: Vec<ProseColumn> = Vec::new();
    let mut base_rate_lists: Vec<Vec<PricingGridLevel>> = Vec::new();
    for (number, list) in outline.lists.iter().enumerate() {
        let leaves = list.items.iter().all(|&item| !outline.items[item].has_children);
        if list.items.len() < 2 || !leaves {
            continue;
        }
        let role = combine(outline.role(doc, number, &lead_in, loans), items_rate(&outline, list, loans));
        let levels = || read_levels(doc, &outline, list, rating_context);
        let header = outline.header(number, &lead_in);
        match role {
            LoanRate::Benchmark(index) => {
                if let Some(levels) = levels() {
                    columns.push(ProseColumn { header, levels, index });
                }
            }
            LoanRate::Unstated => {
                if let Some(levels) = levels() {
                    columns.push(ProseColumn { header, levels, index: None });
                }
            }
            LoanRate::BaseRate => base_rate_lists.extend(levels()),
            LoanRate::Other => {}
        }
    }
    if columns.is_empty() {
        return None;
    }
    // The base rate's list gives a level its base-rate margin only where it states the same
    // condition (its levels may be fewer: "(v) 0.000% … less than or equal to 4.50 to 1").
    if let [base_rate] = base_rate_lists.as_slice() {
        for level in columns.iter_mut().flat_map(|c| c.levels.iter_mut()) {
            level.base_rate_spread =
                base_rate.iter().find(|b| condition_key(b) == condition_key(level)).and_then(|b| b.spread.clone());
        }
    }
    Some(ProseGrid { range: list_start..sentence.end, columns })
}

/// What the items of a list say their loans bear ("…, Term SOFR + 3.25%"): the one rate every
/// item that names one names, unstated when none does.
fn items_rate(outline: &Outline, list: &List, loans: &impl Fn(Range<usize>) -> LoanRate) -> LoanRate {
    let mut stated = LoanRate::Unstated;
    for &index in &list.items {
        let item = &outline.items[index];
        stated = match (stated, loans(item.text_start..item.end)) {
            (stated, LoanRate::Unstated) => stated,
            (LoanRate::Unstated, named) => named,
            (LoanRate::Benchmark(a), LoanRate::Benchmark(b)) if same_index(&a, &b) => LoanRate::Benchmark(a.or(b)),
            (LoanRate::BaseRate, LoanRate::BaseRate) => LoanRate::BaseRate,
            _ => return LoanRate::Other,
        };
    }
    stated
}

fn same_index(a: &Option<Sourced<FloatingRateIndex>>, b: &Option<Sourced<FloatingRateIndex>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.value() == b.value(),
        _ => true,
    }
}

/// A list's rate from its header and from its items: they must not disagree.
fn combine(header: LoanRate, items: LoanRate) -> LoanRate {
    match (header, items) {
        (header, LoanRate::Unstated) => header,
        (LoanRate::Unstated, items) => items,
        (LoanRate::Benchmark(a), LoanRate::Benchmark(b)) if same_index(&a, &b) => LoanRate::Benchmark(a.or(b)),
        (LoanRate::BaseRate, LoanRate::BaseRate) => LoanRate::BaseRate,
        _ => LoanRate::Other,
    }
}

fn condition_key(level: &PricingGridLevel) -> Option<String> {
    level.condition.as_ref().map(|c| c.value().to_lowercase())
}

/// The levels of one list, or `None` unless every item states one margin and its condition.
fn read_levels(
    doc: &Document<'_>,
    outline: &Outline,
    list: &List,
    rating_context: bool,
) -> Option<Vec<PricingGridLevel>> {
    let mut levels = Vec::with_capacity(list.items.len());
    for (position, &index) in list.items.iter().enumerate() {
        let item = &outline.items[index];
        let last = position + 1 == list.items.len();
        let (spread, condition) = read_item(doc, item.text_start..item.end, last, rating_context)?;
        let level = item.level.clone().and_then(|name| {
            let words = doc.slice(name.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
            doc.sourced(name, words)
        });
        levels.push(PricingGridLevel {
            level,
            condition: Some(condition),
            spread: Some(spread),
            base_rate_spread: None,
            commitment_fee: None,
        });
    }
    Some(levels)
}

/// One item's margin and condition: exactly one percentage, and the condition on one side of it
/// only ("1.750% … if the Cash Flow Ratio … was greater than 6.00 to 1", "(x) greater than 2.70 to
/// 1.0, 1.125% per annum").
fn read_item(
    doc: &Document<'_>,
    body: Range<usize>,
    last: bool,
    rating_context: bool,
) -> Option<(Sourced<Decimal>, Sourced<String>)> {
    let [percent] = doc.percents_in(body.clone()) else { return None };
    // What follows a semicolon is the list's own text ("; and"), not the level's.
    let tail = doc.slice(percent.span.end..body.end);
    let cut = tail.find(';').map_or(body.end, |i| percent.span.end + i);
    let before = body.start..percent.span.start;
    let after = percent.span.end..cut.max(percent.span.end);
    let states_condition = |side: &Range<usize>| {
        let text = doc.slice(side.clone());
        !doc.ratios_in(side.clone()).is_empty()
            || (rating_context && RATING.is_match(text))
            || (last && contains_any_ci(text, OTHERWISE))
    };
    let mut side = match (states_condition(&before), states_condition(&after)) {
        (true, false) => before,
        (false, true) => after,
        _ => return None,
    };
    // "if the Leverage Ratio is greater than 4.00x, Term SOFR +": a part set off by a comma that
    // states no condition is not the level's ("as set forth in the Compliance Certificate").
    while let Some(comma) = doc.slice(side.clone()).rfind(',') {
        let rest = side.start + comma + 1..side.end;
        if states_condition(&rest) {
            break;
        }
        side = side.start..side.start + comma;
    }
    let condition = tidy(doc.text, side);
    if condition.is_empty() {
        return None;
    }
    let spread = doc.sourced(percent.span.clone(), percent.fraction)?;
    let words = readable(doc.slice(condition.clone()));
    Some((spread, doc.sourced(condition, words)?))
}

/// The condition's text without what surrounds it in the list: punctuation, "per annum" after the
/// margin, a joining "and" or "or", and page breaks.
fn tidy(text: &str, range: Range<usize>) -> Range<usize> {
    let mut range = trim_range(text, range);
    loop {
        let before = range.clone();
        let piece = slice(text, range.clone());
        let lower = piece.to_ascii_lowercase();
        if lower.starts_with("per annum") {
            range.start += "per annum".len();
        } else if piece.starts_with([',', ';', ':', '-']) {
            range.start += 1;
        }
        let piece = slice(text, range.clone());
        let lower = piece.to_ascii_lowercase();
        if piece.ends_with([',', ';', ':', '.']) {
            range.end -= 1;
        } else if let Some(word) = ["and", "or", "per annum"].iter().find(|w| {
            lower.ends_with(*w) && lower[..lower.len() - w.len()].ends_with(|c: char| c.is_whitespace() || c == ',')
        }) {
            range.end -= word.len();
        } else if let Some(newline) = piece.rfind('\n')
            && is_page_break_line(piece, newline)
        {
            range.end = range.start + newline;
        }
        range = trim_range(text, range);
        if range == before || range.is_empty() {
            return range;
        }
    }
}

/// Whether the line after `piece[newline]` is a page break: EDGAR's page tag, or a page number on
/// a line of its own after a blank line (a "1" that ends a ratio wrapped as "6.00 to" / "1" is
/// text).
fn is_page_break_line(piece: &str, newline: usize) -> bool {
    let line = piece.get(newline + 1..).unwrap_or("");
    if !is_page_furniture(line) {
        return false;
    }
    let above = piece.get(..newline).unwrap_or("");
    let previous_line = above.rsplit('\n').next().unwrap_or("");
    line.trim_start().starts_with('<') || previous_line.trim().is_empty()
}

/// The words of a text, without the page breaks inside it, joined by single spaces.
fn readable(text: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    let mut previous_blank = false;
    for line in text.split('\n') {
        let furniture = is_page_furniture(line) && (line.trim_start().starts_with('<') || previous_blank);
        previous_blank = line.trim().is_empty();
        if !furniture {
            words.extend(line.split_whitespace());
        }
    }
    words.join(" ")
}

/// How a list numbers its items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Arabic,
    LowerAlpha,
    UpperAlpha,
    LowerRoman,
    UpperRoman,
    /// `(x)`, `(y)`, `(z)`, `(xx)`, `(yy)`, `(zz)`: sub-clauses lettered from the end of the
    /// alphabet, as older agreements letter them.
    FromX,
    /// "Level I", "Level II".
    Level,
}

/// An enumerator or level name that may open an item.
#[derive(Clone, Debug)]
struct Marker {
    label: Range<usize>,
    /// Each way the label can be read: its style and its number in that style.
    readings: Vec<(Style, u32)>,
    /// The level the item names ("(b) Level II: …").
    level: Option<Range<usize>>,
    /// Where the item's own text starts.
    text_start: usize,
}

/// The markers of a sentence that can open items, in order.
fn markers_in(text: &str, sentence: Range<usize>) -> Vec<Marker> {
    let piece = slice(text, sentence.clone());
    let base = sentence.start;
    let mut markers: Vec<Marker> = Vec::new();
    let mut previous_reference: Option<usize> = None;
    for found in ENUMERATOR.captures_iter(piece) {
        let (Some(whole), Some(label)) = (found.get(0), found.name("n")) else { continue };
        let opens = whole.start() == 0 || piece[..whole.start()].ends_with(|c: char| c.is_whitespace() || c == ':');
        let closes = piece[whole.end()..].chars().next().is_none_or(char::is_whitespace);
        if !opens || !closes {
            continue;
        }
        let lead = piece[..whole.start()].trim_end().to_ascii_lowercase();
        let previous_word = super::super::text::last_word(&lead);
        let following = piece[whole.end()..].trim_start().to_ascii_lowercase();
        // "clauses (a) and (b)": a reference, and so is what it joins.
        let joined_to_reference = previous_reference.is_some_and(|end| {
            piece[end..whole.start()]
                .split(|c: char| c.is_whitespace() || c == ',')
                .all(|w| matches!(w, "" | "and" | "or" | "through" | "to" | "and/or"))
        });
        if REFERENCE_WORDS.contains(&previous_word)
            || REFERENCE_AFTER.iter().any(|w| following.starts_with(w))
            || joined_to_reference
        {
            previous_reference = Some(whole.end());
            continue;
        }
        previous_reference = None;
        let readings = readings(label.as_str());
        if readings.is_empty() {
            continue;
        }
        markers.push(Marker {
            label: base + whole.start()..base + whole.end(),
            readings,
            level: None,
            text_start: base + whole.end(),
        });
    }
    for found in LEVEL_NAME.captures_iter(piece) {
        let (Some(whole), Some(number)) = (found.get(0), found.name("n")) else { continue };
        let start = base + whole.start();
        let rest = &piece[whole.end()..];
        let punctuated = rest.trim_start_matches([' ', '\t']).starts_with([':', '-', '–', '—']);
        let text_start = {
            let trimmed = rest.trim_start_matches([' ', '\t']);
            let skipped = rest.len() - trimmed.len();
            let punctuation = trimmed.chars().next().filter(|c| matches!(c, ':' | '-' | '–' | '—' | '.'));
            base + whole.end() + skipped + punctuation.map_or(0, char::len_utf8)
        };
        let name = start..base + whole.end();
        // "(b) Level II: …": the level names the item the enumerator opens.
        let index = markers.partition_point(|m| m.label.start < start);
        if let Some(marker) = index.checked_sub(1).and_then(|i| markers.get_mut(i))
            && slice(text, marker.label.end..start).trim().is_empty()
        {
            marker.level = Some(name);
            marker.text_start = text_start;
            continue;
        }
        // At a break in the text: after a line break or a semicolon, colon or period, and an
        // "and" or "or" joining the last item.
        let lead = piece[..whole.start()].trim_end_matches([' ', '\t']);
        let joined = [" and", " or", "\nand", "\nor"].iter().find_map(|joint| lead.strip_suffix(joint));
        let lead = joined.map_or(lead, str::trim_end);
        let at_break = lead.is_empty() || lead.ends_with(['\n', ';', ':', '.']);
        let Some(number) = level_number(number.as_str()) else { continue };
        if punctuated || at_break {
            markers.insert(
                index,
                Marker { label: name.clone(), readings: vec![(Style::Level, number)], level: Some(name), text_start },
            );
        }
    }
    markers
}

/// The ways an enumerator's label can be read: `i` is the first roman numeral or the ninth
/// letter, `x` the tenth numeral, the twenty-fourth letter or the first of `x`, `y`, `z`.
fn readings(label: &str) -> Vec<(Style, u32)> {
    let mut found = Vec::new();
    if label.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(number) = label.parse() {
            found.push((Style::Arabic, number));
        }
        return found;
    }
    let lower = label.bytes().all(|b| b.is_ascii_lowercase());
    let (roman_style, alpha_style) =
        if lower { (Style::LowerRoman, Style::LowerAlpha) } else { (Style::UpperRoman, Style::UpperAlpha) };
    if let Some(number) = roman(label) {
        found.push((roman_style, number));
    }
    let bytes = label.as_bytes();
    let Some(&first) = bytes.first() else { return found };
    let repeated = bytes.iter().all(|&b| b == first);
    let letter = u32::from(first.to_ascii_lowercase() - b'a') + 1;
    match bytes.len() {
        1 => found.push((alpha_style, letter)),
        2 if repeated => found.push((alpha_style, 26 + letter)),
        _ => {}
    }
    if lower && repeated && matches!(first, b'x' | b'y' | b'z') {
        let round = u32::try_from(bytes.len()).unwrap_or(u32::MAX).saturating_sub(1);
        found.push((Style::FromX, round * 3 + u32::from(first - b'x') + 1));
    }
    found
}

/// A level's number: "I", "2", "C".
fn level_number(raw: &str) -> Option<u32> {
    if let Ok(number) = raw.parse() {
        return Some(number);
    }
    if let Some(number) = roman(raw) {
        return Some(number);
    }
    let [letter] = raw.as_bytes() else { return None };
    Some(u32::from(letter.to_ascii_uppercase().checked_sub(b'A')?) + 1)
}

/// The value of a roman numeral up to 49 written the canonical way (`iv`, not `iiii`).
fn roman(raw: &str) -> Option<u32> {
    let lower = raw.to_ascii_lowercase();
    let mut total: u32 = 0;
    let mut largest = 0;
    for c in lower.chars().rev() {
        let value = match c {
            'i' => 1,
            'v' => 5,
            'x' => 10,
            _ => return None,
        };
        if value < largest {
            total = total.checked_sub(value)?;
        } else {
            total += value;
            largest = value;
        }
    }
    (total > 0 && to_roman(total) == lower).then_some(total)
}

fn to_roman(mut number: u32) -> String {
    let mut out = String::new();
    for (value, numeral) in [(40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")] {
        while number >= value {
            out.push_str(numeral);
            number -= value;
        }
    }
    out
}

/// One item of a list.
#[derive(Clone, Debug)]
struct Item {
    label: Range<usize>,
    level: Option<Range<usize>>,
    text_start: usize,
    /// Where the next item (of any list) starts, or the sentence ends.
    end: usize,
    list: usize,
    has_children: bool,
}

/// One list: its numbering and items, and the item it is nested in.
#[derive(Clone, Debug)]
struct List {
    style: Style,
    last: u32,
    items: Vec<usize>,
    parent: Option<usize>,
}

/// The nested lists of a sentence.
#[derive(Debug, Default)]
struct Outline {
    items: Vec<Item>,
    lists: Vec<List>,
}

impl Outline {
    /// Follows the markers: a marker continues the innermost open list it is the next number of;
    /// otherwise a first number (`(a)`, `(i)`, `(x)`, "Level I") opens a list inside the current
    /// item; anything else is text.
    fn of(markers: Vec<Marker>, end: usize) -> Self {
        let mut outline = Outline::default();
        let mut open: Vec<usize> = Vec::new();
        for marker in markers {
            let lists = &outline.lists;
            let continued = open.iter().rposition(|&l| {
                let list = &lists[l];
                marker.readings.iter().any(|&(style, number)| style == list.style && number == list.last + 1)
            });
            let list = if let Some(depth) = continued {
                open.truncate(depth + 1);
                open[depth]
            } else if let Some(&(style, _)) = marker.readings.iter().find(|&&(_, number)| number == 1) {
                let parent = open.last().and_then(|&l| outline.lists[l].items.last().copied());
                if let Some(parent) = parent {
                    outline.items[parent].has_children = true;
                }
                outline.lists.push(List { style, last: 0, items: Vec::new(), parent });
                open.push(outline.lists.len() - 1);
                outline.lists.len() - 1
            } else {
                continue;
            };
            let index = outline.items.len();
            outline.lists[list].last += 1;
            outline.lists[list].items.push(index);
            if let Some(previous) = outline.items.last_mut() {
                previous.end = marker.label.start;
            }
            outline.items.push(Item {
                label: marker.label,
                level: marker.level,
                text_start: marker.text_start,
                end,
                list,
                has_children: false,
            });
        }
        outline
    }

    /// The words introducing a list: its parent item's text before it, or the sentence's lead-in.
    fn header(&self, list: usize, lead_in: &Range<usize>) -> Range<usize> {
        let list = &self.lists[list];
        let first = list.items.first().map_or(lead_in.end, |&i| self.items[i].label.start);
        match list.parent {
            Some(parent) => self.items[parent].text_start..first.max(self.items[parent].text_start),
            None => lead_in.clone(),
        }
    }

    /// What the loans a list prices bear: said by its header, else by the headers it is nested in;
    /// a list nothing qualifies is the margin the sentence states.
    /// A list under a header that makes it a fee or a step ("(c) for the commitment fee") prices
    /// nothing the margin is.
    fn role(
        &self,
        doc: &Document<'_>,
        list: usize,
        lead_in: &Range<usize>,
        loans: &impl Fn(Range<usize>) -> LoanRate,
    ) -> LoanRate {
        let mut stated = LoanRate::Unstated;
        let mut current = Some(list);
        while let Some(list) = current {
            let header = self.header(list, lead_in);
            if contains_any_ci(doc.slice(header.clone()), NOT_A_MARGIN) {
                return LoanRate::Other;
            }
            if matches!(stated, LoanRate::Unstated) {
                stated = loans(header);
            }
            current = self.lists[list].parent.map(|parent| self.items[parent].list);
        }
        stated
    }
}

#[cfg(test)]
mod tests;
