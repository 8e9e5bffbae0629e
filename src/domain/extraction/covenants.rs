//! Financial maintenance covenants: maximum leverage, minimum interest cover, fixed charge and
//! debt service cover, with every level of a step-down schedule.
//!
//! Ratios are read inside the financial covenant section (or a term sheet's `Financial
//! Covenants:` line), where a ratio is a covenant level. Elsewhere ratios are pricing-grid
//! conditions or incurrence baskets, so outside such a section only sentences in covenant form
//! ("shall not permit the Leverage Ratio … to exceed 4.50:1.00") are read, and only when the
//! agreement has no such section at all.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::document::Document;
use super::model::{CovenantLevel, CovenantType, FinancialCovenant};
use super::numbers::RatioMatch;
use super::text::{capitalisable, pattern, sentence_around, table_cells};

static FINANCIAL: LazyLock<Regex> = LazyLock::new(|| pattern(&format!(r"\b{}\b", capitalisable("financial"))));

static SECTION_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^[ \t]*(?:(?:section|clause|article)[ \t]+[0-9.]+[ \t.]*)?(?:[0-9]+(?:\.[0-9]+)*\.?[ \t]+)?(?:financial[ \t]+(?:maintenance[ \t]+)?(?:condition[ \t]+)?covenants?|financial[ \t]+condition)\b",
    )
});

static METRIC: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:consolidated|total|senior|secured|first[ \t\r\n]+lien|net|gross)[ \t\r\n]+){0,4}(?:leverage|interest[ \t\r\n]+cover(?:age)?|fixed[ \t\r\n]+charge[ \t\r\n]+cover(?:age)?|debt[ \t\r\n]+service[ \t\r\n]+cover(?:age)?)(?:[ \t\r\n]+ratio)?\b",
    )
});

static COVENANT_FORM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?:shall|will)[ \t\r\n]+not[ \t\r\n]+(?:permit|exceed|be[ \t\r\n]+(?:less|greater|more)[ \t\r\n]+than)|(?:shall|will)[ \t\r\n]+(?:be[ \t\r\n]+)?(?:at[ \t\r\n]+least|not[ \t\r\n]+less[ \t\r\n]+than))\b",
    )
});

/// How far a section runs when no later heading ends it.
const MAX_SECTION: usize = 10_000;
/// How far before a ratio its metric may be named.
const METRIC_REACH: usize = 1_500;

fn covenant_type(metric: &str) -> Option<CovenantType> {
    let lower = metric.to_ascii_lowercase();
    if lower.contains("leverage") {
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
fn covenant_regions(doc: &Document<'_>) -> Vec<Range<usize>> {
    let mut regions: Vec<Range<usize>> = FINANCIAL
        .find_iter(doc.text)
        .filter_map(|word| {
            let line = super::text::line_around(doc.text, word.start(), 200)?;
            if !SECTION_HEADING.is_match(doc.slice(line.clone())) || word.start() - line.start > 40 {
                return None;
            }
            let end = doc.structure.next_heading_after(line.end).unwrap_or(doc.text.len());
            let end = end.min(line.end.saturating_add(MAX_SECTION));
            Some(line.start..super::text::floor_boundary(doc.text, end).max(line.end))
        })
        .collect();
    regions.extend(
        doc.structure.labels_where(|name| name.starts_with("financial covenant")).map(|label| label.value.clone()),
    );
    if regions.is_empty() {
        regions.extend(COVENANT_FORM.find_iter(doc.text).filter_map(|found| {
            let sentence = sentence_around(doc.text, found.start());
            METRIC.is_match(doc.slice(sentence.clone())).then_some(sentence)
        }));
    }
    regions.sort_by_key(|r| r.start);
    regions.dedup_by(|later, earlier| later.start < earlier.end);
    regions
}

/// The financial covenants, one per covenant type, levels in the order stated.
pub(crate) fn extract(doc: &Document<'_>) -> Vec<FinancialCovenant> {
    let mut covenants: Vec<FinancialCovenant> = Vec::new();
    for region in covenant_regions(doc) {
        let region_text = doc.slice(region.clone());
        let metrics: Vec<Range<usize>> =
            METRIC.find_iter(region_text).map(|m| region.start + m.start()..region.start + m.end()).collect();
        for ratio in doc.ratios_in(region.clone()) {
            let Some(metric) =
                metrics.iter().rev().find(|m| m.end <= ratio.span.start && ratio.span.start - m.end <= METRIC_REACH)
            else {
                continue;
            };
            let Some(kind) = covenant_type(doc.slice(metric.clone())) else { continue };
            let Some(threshold) = doc.sourced(ratio.span.clone(), ratio.value) else { continue };
            let level = CovenantLevel { threshold, period: period_of(doc, ratio) };
            match covenants.iter_mut().find(|c| *c.covenant_type.value() == kind) {
                Some(covenant) => {
                    if !covenant.levels.iter().any(|l| l.threshold.span() == level.threshold.span()) {
                        covenant.levels.push(level);
                    }
                }
                None => {
                    let name = doc.slice(metric.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
                    let (Some(covenant_type), Some(metric)) =
                        (doc.sourced(metric.clone(), kind), doc.sourced(metric.clone(), name))
                    else {
                        continue;
                    };
                    covenants.push(FinancialCovenant { covenant_type, metric, levels: vec![level] });
                }
            }
        }
    }
    covenants
}

/// The test period of a level stated in a step-down table: the row's first cell, when the ratio
/// sits in a row of several cells.
fn period_of(doc: &Document<'_>, ratio: &RatioMatch) -> Option<super::sourced::Sourced<String>> {
    let line = super::text::line_around(doc.text, ratio.span.start, 400)?;
    let cells = table_cells(doc.text, line);
    // In a table row the ratio is a cell of its own; in prose it sits inside a longer cell.
    let ratio_is_a_cell = cells.iter().any(|cell| doc.slice(cell.clone()).trim() == doc.slice(ratio.span.clone()));
    if cells.len() < 2 || !ratio_is_a_cell {
        return None;
    }
    let period = cells.into_iter().find(|cell| !(cell.start <= ratio.span.start && ratio.span.end <= cell.end))?;
    let text = doc.slice(period.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
    doc.sourced(period, text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
