//! Sustainability-linked loan features: the designation, the margin adjustment tied to the
//! sustainability performance targets, and the KPIs.

use std::sync::LazyLock;

use regex::Regex;

use super::document::{Document, Report, agree};
use super::model::SustainabilityLinked;
use super::text::{contains_any_ci, pattern, sentence_around, trim_range_and};

static DESIGNATION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bsustainability[- ]linked(?:[ \t]+(?:loan|revolving[ \t]+credit[ \t]+facility|credit[ \t]+facility|facility|term[ \t]+loan))?\b|\bsustainability[ \t]+performance[ \t]+targets?\b|\besg[ \t]+margin[ \t]+adjustment\b",
    )
});

static KPI_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?m)^[ \t]*(?:\([a-z0-9]{1,4}\)[ \t]*)?(?:KPI|Key[ \t]+Performance[ \t]+Indicator)[ \t]*(?:[0-9]{1,2}|[A-Z])?[ \t]*(?:[:–—-]|means)[ \t]*(?P<name>[^\n;]{3,200})",
    )
});

/// The sustainability-linked features, when the agreement designates itself sustainability-linked.
pub(crate) fn extract(doc: &Document<'_>, report: &mut Report) -> Option<SustainabilityLinked> {
    let first = DESIGNATION.find(doc.text)?;
    let designation = doc.sourced(first.range(), first.as_str().split_whitespace().collect::<Vec<_>>().join(" "))?;

    let mut adjustments = Vec::new();
    for pct in &doc.percents {
        // The figure must be the adjustment itself ("decreased by 0.025 per cent."), not a margin
        // that merely refers to the adjustment clause.
        let lead = doc.slice(super::text::before(doc.text, pct.span.start, 40));
        if !contains_any_ci(lead, &["increase", "decrease", "reduc", "adjust", "step", "±", "plus or minus"]) {
            continue;
        }
        let sentence = doc.slice(sentence_around(doc.text, pct.span.start));
        let about_targets = contains_any_ci(sentence, &["sustainab", "kpi", "esg"]);
        let adjusts_margin = contains_any_ci(sentence, &["margin"]);
        if about_targets && adjusts_margin {
            adjustments.extend(doc.sourced(pct.span.clone(), pct.fraction));
        }
    }
    let margin_adjustment = agree("/sustainabilityLinked/marginAdjustment", adjustments, report);

    let mut kpis = Vec::new();
    for captures in KPI_LINE.captures_iter(doc.text) {
        let Some(name) = captures.name("name") else { continue };
        let range = trim_range_and(doc.text, name.range(), &['.', ',', ';']);
        let stated = doc.slice(range.clone()).split_whitespace().collect::<Vec<_>>().join(" ");
        if !kpis.iter().any(|k: &super::sourced::Sourced<String>| k.value() == &stated) {
            kpis.extend(doc.sourced(range, stated));
        }
    }
    Some(SustainabilityLinked { designation, margin_adjustment, kpis })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn designation_adjustment_and_kpis_are_read() {
        let text = "This is a sustainability-linked loan.\n\nKPI 1: Scope 1 and 2 greenhouse gas emissions intensity.\nKPI 2: Share of renewable electricity.\n\nIf each Sustainability Performance Target is met the Margin shall be decreased by 0.05 per cent. per annum and if none is met the Margin shall be increased by 0.05 per cent. per annum.";
        let doc = Document::scan(text);
        let mut report = Report::default();
        let found = extract(&doc, &mut report).expect("sustainability-linked");
        assert_eq!(found.designation.value(), "sustainability-linked loan");
        assert_eq!(found.margin_adjustment.map(|m| m.value().to_string()).as_deref(), Some("0.0005"));
        let kpis: Vec<&str> = found.kpis.iter().map(|k| k.value().as_str()).collect();
        assert_eq!(kpis, ["Scope 1 and 2 greenhouse gas emissions intensity", "Share of renewable electricity"]);
    }

    #[test]
    fn an_ordinary_agreement_has_no_sustainability_features() {
        let doc = Document::scan("The Margin is 2.00 per cent. per annum.");
        assert!(extract(&doc, &mut Report::default()).is_none());
    }
}
