//! Prose grids read from their lists, with the loans each list prices judged by its words.

use super::*;

fn dec(raw: &str) -> Decimal {
    raw.parse().expect("test decimal")
}

/// The loans a header names, judged by its words alone (the pricing module judges them by the
/// benchmarks it finds).
fn by_words(doc: &Document<'_>, range: Range<usize>) -> LoanRate {
    let text = doc.slice(range).to_ascii_lowercase();
    if text.contains(" cd ") {
        LoanRate::Other
    } else if text.contains("base rate") {
        LoanRate::BaseRate
    } else if text.contains("eurodollar") || text.contains("sofr") {
        LoanRate::Benchmark(None)
    } else {
        LoanRate::Unstated
    }
}

fn grids_in(text: &str) -> Vec<ProseGrid> {
    let doc = Document::scan(text);
    let regions: Vec<Range<usize>> = doc
        .structure
        .definitions
        .iter()
        .filter(|d| d.key.ends_with("margin") || d.key.ends_with("applicable rate"))
        .map(|d| d.body.clone())
        .collect();
    read(&doc, &regions, |range| by_words(&doc, range))
}

fn spreads(column: &ProseColumn) -> Vec<Decimal> {
    column.levels.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect()
}

fn conditions(column: &ProseColumn) -> Vec<String> {
    column.levels.iter().filter_map(|l| l.condition.as_ref().map(|c| c.value().clone())).collect()
}

#[test]
fn a_list_of_leverage_levels_in_a_margin_definition_is_a_grid() {
    let text = "\"Applicable Margin\" means, for any day, (A) if the Leverage Ratio is less than 2.00:1.00, \
        1.25%; (B) if the Leverage Ratio is at least 2.00:1.00 but less than 3.00:1.00, 1.50%; and (C) if \
        the Leverage Ratio is at least 3.00:1.00, 1.875%.\n\n\"Borrower\" means Acme.\n";
    let grids = grids_in(text);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    let [column] = grid.columns.as_slice() else { panic!("one column") };
    assert_eq!(spreads(column), [dec("0.0125"), dec("0.015"), dec("0.01875")]);
    assert_eq!(
        conditions(column),
        [
            "if the Leverage Ratio is less than 2.00:1.00",
            "if the Leverage Ratio is at least 2.00:1.00 but less than 3.00:1.00",
            "if the Leverage Ratio is at least 3.00:1.00",
        ]
    );
    assert!(text[grid.range.clone()].starts_with("(A) if"));
}

#[test]
fn lists_under_loan_types_are_columns_and_the_base_rate_fills_matching_levels() {
    let text = "\"Applicable Margin\" shall mean:\n\n     (a) for Base Rate Loans\n\n          (i) 0.25% per annum \
        whenever the Total Leverage Ratio exceeds 4.00 to 1;\n\n          (ii) 0% per annum whenever the Total \
        Leverage Ratio is 4.00 to 1 or less; and\n\n     (b) for Eurodollar Loans\n\n          (i) 1.50% per \
        annum whenever the Total Leverage Ratio exceeds 4.00 to 1;\n\n          (ii) 1.25% per annum whenever the \
        Total Leverage Ratio exceeds 3.00 to 1 but is 4.00 to 1 or less;\n\n          14\n<PAGE>\n\n          \
        (iii) 1.00% per annum whenever the Total Leverage Ratio is 3.00 to 1 or less.\n";
    let grids = grids_in(text);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    let [column] = grid.columns.as_slice() else { panic!("the Eurodollar list only: {grid:?}") };
    assert_eq!(spreads(column), [dec("0.015"), dec("0.0125"), dec("0.01")]);
    assert_eq!(conditions(column)[1], "whenever the Total Leverage Ratio exceeds 3.00 to 1 but is 4.00 to 1 or less");
    let base: Vec<Option<Decimal>> =
        column.levels.iter().map(|l| l.base_rate_spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(base, [Some(dec("0.0025")), None, None], "only the level with the same condition");
    assert!(text[grid.range.clone()].contains("0.25%"), "the base rate's figures are the grid's too");
}

#[test]
fn a_lead_in_naming_both_loan_types_leaves_each_list_to_its_own_header() {
    let text = "\"Applicable Margin\" means, with respect to Base Rate Loans and Eurodollar Loans, the rate per \
        annum determined as follows: (a) for Base Rate Loans, (i) 0.50% if the Leverage Ratio exceeds 2.5 to 1 and \
        (ii) 0% if the Leverage Ratio is 2.5 to 1 or less; and (b) for Eurodollar Loans, (i) 1.50% if the \
        Leverage Ratio exceeds 2.5 to 1 and (ii) 1.00% if the Leverage Ratio is 2.5 to 1 or less.\n";
    let grids = grids_in(text);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    let [column] = grid.columns.as_slice() else { panic!("the Eurodollar list only: {grid:?}") };
    assert_eq!(spreads(column), [dec("0.015"), dec("0.01")]);
    let text = "\"Applicable Margin\" means, with respect to Base Rate Loans and Eurodollar Loans: (a) 1.50% if \
        the Leverage Ratio exceeds 2.5 to 1 and (b) 1.00% if the Leverage Ratio is 2.5 to 1 or less.\n";
    let doc = Document::scan(text);
    let regions: Vec<Range<usize>> = doc.structure.definitions.iter().map(|d| d.body.clone()).collect();
    let both = |range: Range<usize>| {
        let named = doc.slice(range).to_ascii_lowercase();
        if named.contains("base rate") && named.contains("eurodollar") { LoanRate::Other } else { LoanRate::Unstated }
    };
    assert!(read(&doc, &regions, both).is_empty(), "a list only the lead-in qualifies, ambiguously");
}

#[test]
fn sub_clauses_lettered_from_x_after_a_shared_condition_are_levels() {
    let text = "\"Eurodollar Margin\" means, if the Senior Debt Ratio is (x) more than 3.5 to 1.0, 2.00% per \
        annum, (y) more than 2.5 to 1.0 but not more than 3.5 to 1.0, 1.625% per annum, (z) more than 1.5 to 1.0 \
        but not more than 2.5 to 1.0, 1.25% per annum and (xx) not more than 1.5 to 1.0, .875% per annum.\n";
    let grids = grids_in(text);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    let [column] = grid.columns.as_slice() else { panic!("one column") };
    assert_eq!(spreads(column), [dec("0.02"), dec("0.01625"), dec("0.0125"), dec("0.00875")]);
    assert_eq!(conditions(column)[3], "not more than 1.5 to 1.0");
}

#[test]
fn levels_named_in_a_sentence_about_the_margin_are_a_grid() {
    let text = "Section 2.8. Interest. The Applicable Margin for SOFR Loans shall be determined as follows:\n\
        Level I: if the Net Leverage Ratio is less than 1.50 to 1.00, 1.00%;\n\
        Level II: if the Net Leverage Ratio is at least 1.50 to 1.00 but less than 2.50 to 1.00, 1.25%;\n\
        Level III: if the Net Leverage Ratio is at least 2.50 to 1.00, 1.75%.\n";
    let grids = grids_in(text);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    let [column] = grid.columns.as_slice() else { panic!("one column") };
    assert_eq!(spreads(column), [dec("0.01"), dec("0.0125"), dec("0.0175")]);
    let names: Vec<&str> = column.levels.iter().filter_map(|l| l.level.as_ref().map(|n| n.value().as_str())).collect();
    assert_eq!(names, ["Level I", "Level II", "Level III"]);
}

#[test]
fn a_term_sheet_list_naming_the_benchmark_in_each_item_gives_it_and_clean_conditions() {
    let text = "Interest Rate: (a) if the Total Leverage Ratio is greater than 4.00x, Term SOFR + 3.25%; and \
        (b) if the Total Leverage Ratio is less than or equal to 4.00x, Term SOFR + 3.00%.\n";
    let doc = Document::scan(text);
    let regions: Vec<Range<usize>> = doc.structure.labels.iter().map(|l| l.value.clone()).collect();
    let loans = |range: Range<usize>| {
        let named = doc.benchmarks_in(range).first().cloned();
        named.map_or(LoanRate::Unstated, |b| LoanRate::Benchmark(doc.sourced(b.span, b.index)))
    };
    let grids = read(&doc, &regions, loans);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    let [column] = grid.columns.as_slice() else { panic!("one column") };
    assert_eq!(spreads(column), [dec("0.0325"), dec("0.03")]);
    assert_eq!(
        conditions(column),
        [
            "if the Total Leverage Ratio is greater than 4.00x",
            "if the Total Leverage Ratio is less than or equal to 4.00x"
        ]
    );
    assert_eq!(column.index.as_ref().map(|i| *i.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
    let base_rate = "Interest Rate: (a) if the Total Leverage Ratio is greater than 4.00x, Base Rate + 2.25%; and \
        (b) otherwise, Base Rate + 2.00%.\n";
    let doc = Document::scan(base_rate);
    let regions: Vec<Range<usize>> = doc.structure.labels.iter().map(|l| l.value.clone()).collect();
    let loans = |range: Range<usize>| {
        if doc.benchmarks_in(range).is_empty() { LoanRate::Unstated } else { LoanRate::BaseRate }
    };
    assert!(read(&doc, &regions, loans).is_empty(), "margins over the base rate are not the benchmark's grid");
}

#[test]
fn ratings_are_conditions_when_the_list_speaks_of_ratings() {
    let text = "\"Applicable Rate\" means the rate per annum based on the Debt Rating: (1) if the Debt Rating is \
        BBB+ or higher, 0.875%; (2) if the Debt Rating is BBB, 1.000%; (3) if the Debt Rating is BBB-, 1.125%; \
        and (4) otherwise, 1.375%.\n";
    let grids = grids_in(text);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    let [column] = grid.columns.as_slice() else { panic!("one column") };
    assert_eq!(spreads(column), [dec("0.00875"), dec("0.01"), dec("0.01125"), dec("0.01375")]);
    assert_eq!(
        conditions(column),
        [
            "if the Debt Rating is BBB+ or higher",
            "if the Debt Rating is BBB",
            "if the Debt Rating is BBB-",
            "otherwise"
        ]
    );
}

#[test]
fn a_list_of_fees_is_not_a_margin_grid() {
    let text = "\"Applicable Margin\" means 2.00%. The facility fee shall be payable at the rate of (i) 0.25% \
        if the Leverage Ratio exceeds 3.00:1.00 and (ii) 0.20% if the Leverage Ratio is 3.00:1.00 or less.\n";
    assert!(grids_in(text).is_empty());
    let text = "\"Applicable Fee Margin\" means, with respect to the commitment fee, (i) 0.25% if the Leverage \
        Ratio exceeds 3.00:1.00 and (ii) 0.20% if the Leverage Ratio is 3.00:1.00 or less.\n";
    assert!(grids_in(text).is_empty());
}

#[test]
fn a_list_of_baskets_with_percentages_is_not_a_grid() {
    let text = "The Borrower may make Investments (a) in an amount up to 5% of Consolidated Total Assets, \
        (b) in Joint Ventures up to 10% of Consolidated Net Worth, so long as the Margin Stock held is \
        not more than 25% of the assets.\n";
    assert!(grids_in(text).is_empty());
    let text = "The Applicable Margin shall be reduced by (a) 0.25% if the Leverage Ratio is less than 2.00:1.00 \
        and (b) 0.50% if the Leverage Ratio is less than 1.50:1.00.\n";
    assert!(grids_in(text).is_empty(), "a step down is not the margin");
}

#[test]
fn a_list_where_an_item_states_two_percentages_gives_no_grid() {
    let text = "\"Applicable Margin\" means (a) if the Leverage Ratio is greater than 3.00:1.00, 2.25% for \
        Eurodollar Loans and 1.25% for Base Rate Loans; and (b) if the Leverage Ratio is 3.00:1.00 or less, \
        2.00%.\n";
    assert!(grids_in(text).is_empty());
}

#[test]
fn an_item_without_a_condition_withholds_the_whole_grid() {
    let text = "\"Applicable Margin\" means (a) if the Leverage Ratio is greater than 3.00:1.00, 2.25%; (b) \
        during any period in which the Borrower is investment grade, 1.75%; and (c) if the Leverage Ratio is \
        1.00:1.00 or less, 1.50%.\n";
    assert!(grids_in(text).is_empty());
}

#[test]
fn flat_margins_per_loan_type_are_not_a_grid() {
    let text = "\"Applicable Margin\" means (i) with respect to Eurodollar Loans, 1.125% per annum; and (ii) with \
        respect to Base Rate Loans, 0.25% per annum.\n";
    assert!(grids_in(text).is_empty());
}

#[test]
fn a_cross_reference_is_not_an_item() {
    let text = "\"Applicable Margin\" means (a) if the Leverage Ratio (calculated as provided in clause (c) \
        below) is greater than 3.00:1.00, 2.25%; and (b) if the Leverage Ratio is 3.00:1.00 or less, 2.00%.\n";
    let grids = grids_in(text);
    let [grid] = grids.as_slice() else { panic!("one grid: {grids:?}") };
    assert_eq!(spreads(&grid.columns[0]), [dec("0.0225"), dec("0.02")]);
}

#[test]
fn a_cd_rate_list_is_not_a_margin_over_the_benchmark() {
    let text = "\"Applicable Margin\" means (a) for CD Rate Loans, (i) 1.50% if the Leverage Ratio exceeds 2.0 \
        to 1 and (ii) 1.25% if the Leverage Ratio is 2.0 to 1 or less.\n";
    assert!(grids_in(text).is_empty());
}

#[test]
fn enumerators_are_read_in_every_style() {
    assert_eq!(readings("i"), [(Style::LowerRoman, 1), (Style::LowerAlpha, 9)]);
    assert_eq!(readings("x"), [(Style::LowerRoman, 10), (Style::LowerAlpha, 24), (Style::FromX, 1)]);
    assert_eq!(readings("xx"), [(Style::LowerRoman, 20), (Style::LowerAlpha, 50), (Style::FromX, 4)]);
    assert_eq!(readings("zz"), [(Style::LowerAlpha, 52), (Style::FromX, 6)]);
    assert_eq!(readings("B"), [(Style::UpperAlpha, 2)]);
    assert_eq!(readings("iv"), [(Style::LowerRoman, 4)]);
    assert_eq!(readings("12"), [(Style::Arabic, 12)]);
    assert!(readings("iiii").is_empty());
}
