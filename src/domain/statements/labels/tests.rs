//! The qualifier rules one by one, on the labels the issue names and their near misses.

use super::*;
use StatementItem::*;

fn reason(label: &str) -> String {
    match read_label(label) {
        LabelReading::NotUsed(refused) => refused.reason,
        other => panic!("{label:?} should be refused with a reason, read {other:?}"),
    }
}

#[test]
fn qualifiers_that_leave_the_figure_unchanged_are_read() {
    for (label, item) in [
        ("Operating income (EBIT)", OperatingIncome),
        ("Net income (loss)", NetIncome),
        ("Revenue, net", Revenue),
        ("Total debt (including current portion)", TotalDebt),
        ("Total debt, including current maturities", TotalDebt),
        ("Revenue (in millions)", Revenue),
        ("Revenue (€m)", Revenue),
        ("Revenue (note 5)", Revenue),
        ("EBITDA — total", Ebitda),
        ("Income tax – Total", IncomeTax),
        ("Total taxation", IncomeTax),
        ("Consolidated net income", NetIncome),
        ("Net income (unaudited)", NetIncome),
        ("Operating (loss)/profit", OperatingIncome),
        ("(Loss) income from operations", OperatingIncome),
        ("Operating profit/(loss) (EBIT)", OperatingIncome),
        ("Interest expense - non-operating", InterestExpense),
        ("Tax provision (benefit)", IncomeTax),
        ("Provision (benefit) for income taxes", IncomeTax),
    ] {
        assert_eq!(read_label(label), LabelReading::Item(item), "{label}");
    }
}

#[test]
fn a_qualifier_that_changes_the_figure_is_refused_with_its_reason() {
    assert!(reason("Interest expense, net").contains("net of interest income"));
    assert!(reason("Net interest expense").contains("net of interest income"));
    assert!(reason("Finance costs, net").contains("net of interest income"));
    assert!(reason("Purchases of property and equipment, net").contains("net of proceeds"));
    assert!(reason("Adjusted EBITDA").contains("adjusted"));
    assert!(reason("EBITDA (adjusted)").contains("adjusted"));
    assert!(reason("Operating profit before exceptional items").contains("adjusted"));
    assert!(reason("Operating income before depreciation").contains("before depreciation"));
    assert!(reason("Net income attributable to common stockholders").contains("attributable"));
    assert!(reason("Net income from continuing operations").contains("continuing operations only"));
    assert!(reason("Long-term debt, less current portion").contains("not total debt"));
    assert!(reason("Short-term borrowings").contains("not total debt"));
    assert!(reason("Total debt (excluding leases)").contains("excludes"));
    assert!(reason("Revenue, net of interest expense").contains("net of interest expense"));
}

#[test]
fn a_loss_or_a_benefit_shown_positive_is_refused_for_its_sign() {
    for label in ["Net loss", "Operating loss", "Loss from operations", "Loss for the year"] {
        assert!(reason(label).contains("opposite sign"), "{label}");
    }
    for label in [
        "Income tax benefit",
        "Income tax (expense) benefit",
        "Income tax benefit (expense)",
        "Benefit for income taxes",
        "Income tax credit/(expense)",
        "Total tax (expense)/income",
    ] {
        assert!(reason(label).contains("benefit positive"), "{label}");
    }
}

#[test]
fn a_qualifier_not_known_either_way_is_refused_and_said() {
    let refused = reason("Revenue (Europe)");
    assert!(refused.contains("'(europe)'") && refused.contains("revenue"), "{refused}");
    assert!(reason("Interest expense, related party").contains("', related party'"));
    // Units the sheet reader does not honour would leave the figure in the wrong unit.
    assert!(reason("Revenue (in lakhs)").contains("'(in lakhs)'"));
}

#[test]
fn words_after_a_table_label_are_never_read_as_it() {
    for label in [
        "Income from discontinued operations, net of tax",
        "Cash and cash equivalents at beginning of year",
        "Interest paid",
        "Sales and marketing",
        "Selling, general and administrative",
        "Cash, cash equivalents and restricted cash",
        "Total liabilities and equity",
        "Total equity and liabilities",
        "Income before income taxes",
        "Other operating income",
        "Net cash used in investing activities",
    ] {
        assert!(!matches!(read_label(label), LabelReading::Item(_)), "{label} read as {:?}", read_label(label));
    }
}

#[test]
fn depreciation_alone_or_with_impairment_is_not_the_item() {
    assert!(reason("Depreciation").contains("half"));
    assert!(reason("Depreciation of property, plant and equipment").contains("half"));
    assert!(reason("Depreciation, amortisation and impairment").contains("impairment"));
    assert_eq!(read_label("Depreciation, depletion, and amortization"), LabelReading::Item(DepreciationAmortization));
}
