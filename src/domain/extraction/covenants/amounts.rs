//! Financial covenants on amounts: a minimum liquidity, net worth or tangible net worth, and a
//! maximum of capital expenditures.
//!
//! An amount is a covenant level only when its own clause says so: inside the financial covenant
//! regions (or a covenant sentence that names the measure), after a covenant verb ("permit",
//! "maintain", "shall not make"), naming the measure and, between the measure and the amount, the
//! direction the measure's covenant takes ("less than", "at least" for a minimum; "exceed", "in
//! excess of" for a maximum). Everything else is left unread, because a wrong level is worse than
//! none:
//! - an amount in a condition ("if Liquidity is less than $25,000,000, …") is a trigger, not a level;
//! - a level that grows ("$500,000,000 plus 50% of Net Income") or is the greater or lesser of two
//!   things is a formula this reader does not state as a single amount;
//! - a defined term that merely starts with the measure ("Liquidity Event", "Net Worth Test") is
//!   not the measure; amounts inside definitions are not covenant levels.
//!
//! A step table (capital expenditures per fiscal year) is read when the sentence that introduces it
//! is such a covenant clause and ends with a colon; each row's other cell is the level's period.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::super::document::Document;
use super::super::model::{CovenantLevel, CovenantType, FinancialCovenant};
use super::super::numbers::MoneyMatch;
use super::super::text::{clause_start, pattern, sentence_around, table_cells};
use super::{COVENANT_FORM, condition_before, period_of, qualifiers_after};

/// The measures an amount covenant tests, with the defined-term words agreements put before them.
static AMOUNT_METRIC: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:consolidated|adjusted|minimum|maximum|total|aggregate)[ \t\r\n]+){0,3}(?:tangible[ \t\r\n]+net[ \t\r\n]+worth|net[ \t\r\n]+worth|liquidity|capital[ \t\r\n]+expenditures?)\b",
    )
});

/// A covenant verb: the clause binds the borrower to the level.
static COVENANT_VERB: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:permit|maintain|make|incur|expend|(?:shall|will)[ \t\r\n]+(?:not[ \t\r\n]+)?(?:be|exceed))\b")
});

/// The direction of a minimum between the measure and its amount.
static AT_LEAST: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:less[ \t\r\n]+than|at[ \t\r\n]+least|not[ \t\r\n]+less[ \t\r\n]+than|a[ \t\r\n]+minimum[ \t\r\n]+of|below)\b",
    )
});

/// The direction of a maximum between the measure and its amount.
static AT_MOST: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:exceed(?:s|ing)?|in[ \t\r\n]+excess[ \t\r\n]+of|(?:greater|more)[ \t\r\n]+than|(?:a|the)[ \t\r\n]+maximum[ \t\r\n]+(?:aggregate[ \t\r\n]+)?(?:amount[ \t\r\n]+)?of|aggregating[ \t\r\n]+more[ \t\r\n]+than)\b",
    )
});

/// Words that make the amount part of a formula rather than the level itself.
static FORMULA_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?:\b(?:plus|minus|sum[ \t\r\n]+of|greater[ \t\r\n]+of|lesser[ \t\r\n]+of|increased|decreased|reduced|percent|per[ \t\r\n]+cent|multiplied)\b|%)",
    )
});

/// Words that make the clause a trigger for something else.
static CONDITION_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:if|when|whenever|unless|until|during[ \t\r\n]+any[ \t\r\n]+(?:period|time)[ \t\r\n]+(?:in[ \t\r\n]+which|when|that)|provided|(?:so|as)[ \t\r\n]+long[ \t\r\n]+as|subject[ \t\r\n]+to|to[ \t\r\n]+the[ \t\r\n]+extent|pro[ \t\r\n]+forma|after[ \t\r\n]+giving[ \t\r\n]+effect|in[ \t\r\n]+the[ \t\r\n]+event|at[ \t\r\n]+any[ \t\r\n]+time[ \t\r\n]+(?:that|when))\b",
    )
});

/// The end of a line that introduces a table.
static INTRO_END: LazyLock<Regex> = LazyLock::new(|| pattern(r":[ \t]*\r?\n"));

/// Words after a level that raise it: unused amounts carried forward, a level "increased by" an
/// amount. The level stated is then only a base, not the limit in force.
static RAISED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:carr(?:y|ied|ying)[ \t\r\n-]*(?:forward|over)|carry-?(?:over|forward)|(?:shall|will|may)[ \t\r\n]+be[ \t\r\n]+increased|increased[ \t\r\n]+by)\b",
    )
});
/// How far after a level (or its table) the words that raise it are looked for.
const RAISED_REACH: usize = 600;

/// How far before its amount the measure may be named in the same clause.
const METRIC_REACH: usize = 250;
/// How far before a table row the sentence introducing the table may be.
const TABLE_REACH: usize = 3_000;

/// The covenant a measure's name tests; a name wrapped over lines ("Tangible Net⏎Worth") is the
/// same name.
fn covenant_type(metric: &str) -> CovenantType {
    let lower = metric.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase();
    if lower.contains("tangible") {
        CovenantType::MinimumTangibleNetWorth
    } else if lower.contains("net worth") {
        CovenantType::MinimumNetWorth
    } else if lower.contains("liquidity") {
        CovenantType::MinimumLiquidity
    } else {
        CovenantType::MaximumCapitalExpenditures
    }
}

fn is_maximum(kind: CovenantType) -> bool {
    kind == CovenantType::MaximumCapitalExpenditures
}

/// The amount covenants stated in `regions` (the financial covenant regions) or in covenant
/// sentences that name their measure.
pub(super) fn extract(doc: &Document<'_>, regions: &[Range<usize>], items: &[Range<usize>]) -> Vec<FinancialCovenant> {
    let mut covenants: Vec<FinancialCovenant> = Vec::new();
    for money in &doc.money {
        if doc.structure.definitions.iter().any(|d| d.body.start <= money.span.start && money.span.end <= d.body.end) {
            continue;
        }
        let region = regions.iter().find(|r| r.start <= money.span.start && money.span.end <= r.end);
        let Some((metric, period, condition)) =
            level_in_prose(doc, money, region, items).or_else(|| level_in_table(doc, money, region))
        else {
            continue;
        };
        let kind = covenant_type(doc.slice(metric.clone()));
        let name = doc.slice(metric.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
        let Some(threshold) = doc.sourced(money.figures.clone(), money.money.value) else { continue };
        let level = CovenantLevel { threshold, period, condition };
        let currency = money.money.currency;
        match covenants
            .iter_mut()
            .find(|c| *c.covenant_type.value() == kind && c.metric.value().eq_ignore_ascii_case(&name))
        {
            // Levels in two currencies are not one schedule: the later one is left unread.
            Some(covenant) if covenant.currency.as_ref().is_some_and(|c| *c.value() != currency) => {}
            Some(covenant) => covenant.levels.push(level),
            None => {
                let (Some(covenant_type), Some(metric), Some(currency)) = (
                    doc.sourced(metric.clone(), kind),
                    doc.sourced(metric.clone(), name),
                    doc.sourced(money.figures.clone(), currency),
                ) else {
                    continue;
                };
                covenants.push(FinancialCovenant {
                    covenant_type,
                    metric,
                    levels: vec![level],
                    currency: Some(currency),
                });
            }
        }
    }
    covenants
}

type Read =
    (Range<usize>, Option<super::super::sourced::Sourced<String>>, Option<super::super::sourced::Sourced<String>>);

/// A level stated in a covenant clause: "permit Liquidity to be less than $25,000,000".
fn level_in_prose(
    doc: &Document<'_>,
    money: &MoneyMatch,
    region: Option<&Range<usize>>,
    items: &[Range<usize>],
) -> Option<Read> {
    let metric = metric_before(doc, money.span.start)?;
    let clause = clause_start(doc.text, metric.start)..money.span.start;
    let sentence = sentence_around(doc.text, money.span.start);
    let in_covenant = region.is_some() || COVENANT_FORM.is_match(doc.slice(sentence.start..money.span.start));
    let bound = binds(doc, &clause, &metric, money)
        || (super::bound_by_its_lead_in(doc, items, metric.clone(), money.span.start)
            && unconditioned(doc, &clause, &metric, money));
    if !in_covenant || !bound {
        return None;
    }
    if formula_after(doc, money) || raised_after(doc, money.span.end) {
        return None;
    }
    let region_end = region.map_or(sentence.end, |r| r.end);
    let (period, condition) = match qualifiers_after(doc, money.span.end, region_end) {
        (period, None) => (period, condition_before(doc, money.span.start)),
        stated => stated,
    };
    Some((metric, period, condition))
}

/// A level in a row of a step table introduced by a covenant clause that names the measure:
/// "… Capital Expenditures in any Fiscal Year in excess of the amount set forth below:".
fn level_in_table(doc: &Document<'_>, money: &MoneyMatch, region: Option<&Range<usize>>) -> Option<Read> {
    let line = super::super::text::line_around(doc.text, money.span.start, 400)?;
    // A row of exactly two cells, the amount and its period.
    if table_cells(doc.text, line.clone()).len() != 2 {
        return None;
    }
    let period = period_of(doc, money.span.clone())?;
    // The introducing sentence: the nearest line before the row that ends with a colon.
    let reach = super::super::text::floor_boundary(doc.text, line.start.saturating_sub(TABLE_REACH));
    let lead = doc.slice(reach..line.start);
    let colon = reach + INTRO_END.find_iter(lead).last()?.start();
    let intro = sentence_around(doc.text, colon);
    // Between the introduction and the row only table rows stand: no other sentence.
    if doc.slice(colon + 1..line.start).contains(". ") {
        return None;
    }
    let metric = last_metric(doc, intro.start..colon)?;
    let in_covenant = region.is_some() || COVENANT_FORM.is_match(doc.slice(intro.clone()));
    let clause = clause_start(doc.text, metric.start)..colon;
    let kind = covenant_type(doc.slice(metric.clone()));
    let words = doc.slice(metric.end..colon);
    let direction = if is_maximum(kind) { AT_MOST.is_match(words) } else { AT_LEAST.is_match(words) };
    if !in_covenant
        || !direction
        || !COVENANT_VERB.is_match(doc.slice(clause.start..metric.start))
        || CONDITION_LEAD.is_match(doc.slice(clause.start..metric.start))
        || FORMULA_WORDS.is_match(words)
        || FORMULA_WORDS.is_match(doc.slice(line.clone()))
    {
        return None;
    }
    if raised_after(doc, table_end(doc, line.end)) {
        return None;
    }
    Some((metric, Some(period), None))
}

/// Whether words soon after `from` raise the level: "provided that … the Base Amount shall be
/// increased by … carrying over …".
fn raised_after(doc: &Document<'_>, from: usize) -> bool {
    let end = super::super::text::floor_boundary(doc.text, from.saturating_add(RAISED_REACH));
    RAISED.is_match(doc.slice(from..end.max(from)))
}

/// Where the table whose row ends at `row_end` ends: after its last line of two cells.
fn table_end(doc: &Document<'_>, row_end: usize) -> usize {
    let mut end = row_end;
    for line in doc.slice(row_end..doc.text.len()).split_inclusive('\n').take(60) {
        let range = end..end + line.len();
        let blank = line.trim().is_empty();
        if !blank && table_cells(doc.text, range.clone()).len() < 2 {
            break;
        }
        end = range.end;
    }
    end
}

/// The measure named last before `pos` in its clause, within [`METRIC_REACH`].
fn metric_before(doc: &Document<'_>, pos: usize) -> Option<Range<usize>> {
    let start = clause_start(doc.text, pos).max(pos.saturating_sub(METRIC_REACH));
    let start = super::super::text::floor_boundary(doc.text, start);
    last_metric(doc, start..pos)
}

/// The last measure named in `range` that is the measure itself, not a longer defined term that
/// starts with it ("Liquidity Event", "Net Worth Ratio").
fn last_metric(doc: &Document<'_>, range: Range<usize>) -> Option<Range<usize>> {
    let found = AMOUNT_METRIC.find_iter(doc.slice(range.clone())).last()?;
    let metric = range.start + found.start()..range.start + found.end();
    let next_word = doc.slice(metric.end..range.end).trim_start_matches([' ', '\t', '\r', '\n']);
    let continues_a_term =
        next_word.starts_with(|c: char| c.is_ascii_uppercase()) || next_word.to_ascii_lowercase().starts_with("ratio");
    // A capitalised word before the measure makes a longer term ("Unfunded Capital Expenditures",
    // "Maintenance Capital Expenditures") than the measure, unless it is a possessive ("the
    // Borrower's Liquidity") or an article opening a sentence ("A Tangible Net Worth of at least").
    let previous_word = doc.slice(range.start..metric.start).split_whitespace().next_back().unwrap_or("");
    let longer_term = previous_word.starts_with(|c: char| c.is_ascii_uppercase())
        && !["A", "An", "The"].contains(&previous_word)
        && !previous_word.ends_with(['\'', '’'])
        && !previous_word.ends_with("'s")
        && !previous_word.ends_with("’s")
        && !previous_word.ends_with(['.', ':', ')']);
    // The measure a covenant tests is a defined term: "net worth" in lower case is anyone's.
    let measure = doc.slice(metric.clone()).split_whitespace().last().unwrap_or("");
    let defined = measure.starts_with(|c: char| c.is_ascii_uppercase());
    (!continues_a_term && !longer_term && defined).then_some(metric)
}

/// Whether the clause binds the measure to the amount: a covenant verb before the measure, no
/// condition before it, the measure's direction between it and the amount (or in its own name:
/// "a Minimum Liquidity of"), and nothing between that makes the amount part of something else.
fn binds(doc: &Document<'_>, clause: &Range<usize>, metric: &Range<usize>, money: &MoneyMatch) -> bool {
    let before = doc.slice(clause.start..metric.start);
    let between = doc.slice(metric.end..money.span.start);
    let kind = covenant_type(doc.slice(metric.clone()));
    let named = doc.slice(metric.clone()).to_ascii_lowercase();
    let direction = if is_maximum(kind) {
        AT_MOST.is_match(between) || (named.contains("maximum") && between.to_ascii_lowercase().contains(" of"))
    } else {
        AT_LEAST.is_match(between) || (named.contains("minimum") && between.to_ascii_lowercase().contains(" of"))
    };
    direction && COVENANT_VERB.is_match(&format!("{before} {between}")) && unconditioned(doc, clause, metric, money)
}

/// Whether the words of a level leave it unconditioned and whole: no condition, no formula, no
/// other amount or ratio between the measure and the level.
fn unconditioned(doc: &Document<'_>, clause: &Range<usize>, metric: &Range<usize>, money: &MoneyMatch) -> bool {
    let between = doc.slice(metric.end..money.span.start);
    !CONDITION_LEAD.is_match(doc.slice(clause.start..metric.start))
        && !CONDITION_LEAD.is_match(between)
        && !FORMULA_WORDS.is_match(between)
        && !doc.money.iter().any(|m| metric.end <= m.span.start && m.span.end <= money.span.start)
        && doc.ratios_in(metric.end..money.span.start).is_empty()
}

/// Whether the words right after the amount make it part of a formula ("… plus 50% of …").
fn formula_after(doc: &Document<'_>, money: &MoneyMatch) -> bool {
    let end = super::super::text::clause_end(doc.text, money.span.end);
    let after = doc.slice(money.span.end..end.max(money.span.end));
    let first_words: String = after.split_whitespace().take(6).collect::<Vec<_>>().join(" ");
    FORMULA_WORDS.is_match(&first_words) || after.trim_start().starts_with(['+', '-'])
}

#[cfg(test)]
mod tests {
    use super::super::extract as extract_all;
    use super::*;

    /// A covenant as read: type, metric, levels with their periods, currency.
    type Read = (CovenantType, String, Vec<(String, Option<String>)>, Option<String>);

    fn read(text: &str) -> Vec<Read> {
        extract_all(&Document::scan(text))
            .into_iter()
            .filter(|c| c.currency.is_some())
            .map(|c| {
                (
                    *c.covenant_type.value(),
                    c.metric.value().clone(),
                    c.levels
                        .iter()
                        .map(|l| (l.threshold.value().to_string(), l.period.as_ref().map(|p| p.value().clone())))
                        .collect(),
                    c.currency.map(|code| code.value().to_string()),
                )
            })
            .collect()
    }

    #[test]
    fn liquidity_and_net_worth_minimums_in_the_financial_covenants_are_read_with_their_currency() {
        let text = "Section 6.10 Financial Covenants.\n\n(a) Minimum Liquidity. The Borrower shall not permit Liquidity, as of the last day of any fiscal quarter, to be less than $15,000,000.\n\n(b) Minimum Consolidated Net Worth. The Borrower shall maintain Consolidated Net Worth of not less than $120,000,000 at all times.\n\nSection 6.11 Liens. The Borrower shall not create any Lien.\n";
        assert_eq!(
            read(text),
            [
                (
                    CovenantType::MinimumLiquidity,
                    "Liquidity".to_owned(),
                    vec![("15000000".to_owned(), None)],
                    Some("USD".to_owned())
                ),
                (
                    CovenantType::MinimumNetWorth,
                    "Consolidated Net Worth".to_owned(),
                    vec![("120000000".to_owned(), None)],
                    Some("USD".to_owned())
                ),
            ]
        );
    }

    #[test]
    fn a_capital_expenditure_table_gives_one_level_per_fiscal_year() {
        let text = "Section 7.4 Financial Covenants.\n\n(c) Capital Expenditures. The Borrower will not make Capital Expenditures in any Fiscal Year in excess of the amount set forth below opposite such Fiscal Year:\n\nFiscal Year | Maximum Capital Expenditures\nFiscal Year 2025 | $8,000,000\nFiscal Year 2026 and each Fiscal Year thereafter | $9,500,000\n\nSection 7.5 Dividends.\n";
        assert_eq!(
            read(text),
            [(
                CovenantType::MaximumCapitalExpenditures,
                "Capital Expenditures".to_owned(),
                vec![
                    ("8000000".to_owned(), Some("Fiscal Year 2025".to_owned())),
                    ("9500000".to_owned(), Some("Fiscal Year 2026 and each Fiscal Year thereafter".to_owned())),
                ],
                Some("USD".to_owned())
            )]
        );
    }

    #[test]
    fn the_period_a_limit_covers_is_not_a_condition() {
        let text = "7.2 Financial Covenants.\n\n(a) Capex. The Company shall not permit the total Capital Expenditures made by it during any fiscal year to exceed $3,250,000.\n\n(b) Liquidity. At all times during the term of this Agreement the Company shall maintain Liquidity at a minimum of $2,000,000.\n\n(c) During any period in which a Default exists, the Company shall maintain Liquidity of at least $9,000,000.\n\n7.3 Liens.\n";
        let found = read(text);
        let levels: Vec<(CovenantType, String)> = found.iter().map(|c| (c.0, c.2[0].0.clone())).collect();
        assert_eq!(
            levels,
            [
                (CovenantType::MaximumCapitalExpenditures, "3250000".to_owned()),
                (CovenantType::MinimumLiquidity, "2000000".to_owned())
            ]
        );
    }

    #[test]
    fn a_measure_whose_name_wraps_over_lines_keeps_its_type_and_direction() {
        let text = "Section 6.10 Financial Covenants.\n\n(a) The Borrower shall not permit its Consolidated Net\nWorth to be less than $90,000,000 at any time.\n\n(b) The Borrower shall maintain Tangible Net\nWorth of at least $60,000,000.\n\nSection 6.11 Liens.\n";
        let found = read(text);
        let kinds: Vec<(CovenantType, String)> = found.iter().map(|c| (c.0, c.2[0].0.clone())).collect();
        assert_eq!(
            kinds,
            [
                (CovenantType::MinimumNetWorth, "90000000".to_owned()),
                (CovenantType::MinimumTangibleNetWorth, "60000000".to_owned())
            ]
        );
    }

    #[test]
    fn a_tangible_net_worth_minimum_stated_without_a_covenants_heading_is_read() {
        let text = "10.3 The Company shall not permit its Tangible Net Worth to be less than $40,000,000 as of the end of any fiscal quarter.\n";
        let found = read(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, CovenantType::MinimumTangibleNetWorth);
        assert_eq!(found[0].2[0].0, "40000000");
    }

    #[test]
    fn triggers_growing_levels_definitions_and_longer_terms_are_not_levels() {
        let text = "\"Liquidity\" means unrestricted cash plus Availability, provided Liquidity shall not be less than $1,000,000 for this definition.\n\nSection 6.10 Financial Covenants.\n\n(a) Fixed Charge Coverage Ratio. If Liquidity is less than $20,000,000, the Borrower shall not permit the Fixed Charge Coverage Ratio to be less than 1.10 to 1.00.\n\n(b) Net Worth. The Borrower shall not permit Consolidated Tangible Net Worth to be less than $300,000,000 plus 50% of positive Consolidated Net Income for each fiscal quarter.\n\n(c) The Borrower shall not permit a Liquidity Event to occur unless cash is at least $5,000,000.\n\n(d) Capital Expenditures. The Borrower shall not make Capital Expenditures in excess of the greater of $10,000,000 and 5% of revenues.\n\nSection 6.11 Liens.\n";
        assert_eq!(read(text), []);
    }

    #[test]
    fn a_longer_measure_a_third_partys_measure_and_a_level_raised_by_carry_forward_are_not_read() {
        let text = "Section 8 Financial Covenants.\n\n(a) Growth Capex. The Borrower shall not permit Growth Capital Expenditures for any fiscal year to be more than $4,000,000.\n\n(b) Investments. The Borrower may buy notes of banks each of which shall have a net worth of at least $500 million.\n\n(c) Capital Expenditures. The Borrower shall not make Capital Expenditures in any fiscal year in excess of $6,000,000; provided that any unused portion may be carried forward to the next fiscal year.\n\nSection 9 Liens.\n";
        assert_eq!(read(text), []);
    }

    #[test]
    fn amounts_outside_covenant_clauses_are_not_levels() {
        let text = "The Borrower may make Capital Expenditures with the proceeds. Asset sales in excess of $5,000,000 require consent. The Lenders shall make Loans in excess of $1,000,000.\n";
        assert_eq!(read(text), []);
    }
}
