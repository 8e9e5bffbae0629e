//! The interpreter on hand-built grids: each test one layout an analyst sends.

use time::macros::date;

use super::*;
use StatementItem::*;

/// A cell from shorthand: "" is empty, a plain number is a number, anything else text.
fn cell(text: &str) -> CellValue {
    if text.is_empty() {
        CellValue::Empty
    } else if let Ok(number) = text.parse::<f64>() {
        CellValue::Number(number)
    } else {
        CellValue::Text(text.to_owned())
    }
}

fn grid(rows: &[&[&str]]) -> Grid {
    Grid { sheet: "Sheet1".into(), rows: rows.iter().map(|row| row.iter().map(|c| cell(c)).collect()).collect() }
}

fn read(grid: &Grid) -> SheetStatements {
    interpret(grid, "statements.xlsx").unwrap_or_else(|e| panic!("{e}"))
}

fn value(statements: &SheetStatements, period: usize, item: StatementItem) -> Option<(f64, String)> {
    statements.periods[period].values.iter().find(|(i, _, _)| *i == item).map(|(_, v, cell)| (*v, cell.cell.clone()))
}

fn has_assumption(statements: &SheetStatements, words: &str) -> bool {
    statements.assumptions.iter().any(|a| a.contains(words))
}

#[test]
fn date_headers_in_thousands_with_label_variants_negatives_and_blanks() {
    let mut sheet = grid(&[
        &["Acme Ltd - financial statements (USD in thousands)"],
        &["", "", ""],
        &["Income statement"],
        &["1. Net sales (1)", "12,500", "11000"],
        &["Operating income (loss)", "1500", "(200)"],
        &["Interest expense", "(300)", "(250)"],
        &["Gross margin %", "12%", "10%"],
        &["Cash & cash equivalents:", "—", "800"],
        &["Total debt", "400", "see note 4"],
    ]);
    sheet.rows[1] =
        vec![CellValue::Empty, CellValue::Date(date!(2023 - 12 - 31)), CellValue::Date(date!(2022 - 12 - 31))];
    let read = read(&sheet);

    assert_eq!((read.unit, read.unit_source.as_deref()), (1_000.0, Some("statements.xlsx!Sheet1!A1")));
    assert_eq!(read.currency.as_deref(), Some("USD"));
    let ends: Vec<_> = read.periods.iter().map(|p| (p.period_end, p.months)).collect();
    assert_eq!(ends, vec![(date!(2023 - 12 - 31), 12), (date!(2022 - 12 - 31), 12)]);
    assert!(has_assumption(&read, "column B ('2023-12-31') does not say how many months it covers: taken as twelve"));
    assert_eq!(value(&read, 0, Revenue), Some((12_500.0, "B4".into())));
    assert_eq!(value(&read, 1, OperatingIncome), Some((-200.0, "C5".into())));
    assert_eq!(value(&read, 0, InterestExpense), Some((300.0, "B6".into())));
    assert!(has_assumption(&read, "row 6 ('Interest expense'): interest_expense is stated as negative figures"));
    assert_eq!(value(&read, 0, Cash), None, "a dash is no figure");
    assert_eq!(value(&read, 1, Cash), Some((800.0, "C8".into())));
    assert!(has_assumption(&read, "statements.xlsx!Sheet1!C9 ('see note 4') is not an amount"));
    assert_eq!(read.unrecognised, vec![UnrecognisedRow { row: 7, label: "Gross margin %".into(), not_used: None }]);
    let items: Vec<_> = read.recognised.iter().map(|r| (r.row, r.item)).collect();
    assert_eq!(items, vec![(4, Revenue), (5, OperatingIncome), (6, InterestExpense), (8, Cash), (9, TotalDebt)]);
}

#[test]
fn a_two_row_header_gives_each_column_its_length() {
    let read = read(&grid(&[
        &["€m", "Three months ended", "", "Nine months ended"],
        &["", "March 31, 2024", "March 31, 2023", "September 30, 2024"],
        &["Revenue", "10", "9", "31"],
    ]));
    let periods: Vec<_> = read.periods.iter().map(|p| (p.header.as_str(), p.period_end, p.months)).collect();
    assert_eq!(
        periods,
        vec![
            ("Three months ended March 31, 2024", date!(2024 - 03 - 31), 3),
            ("Three months ended March 31, 2023", date!(2023 - 03 - 31), 3),
            ("Nine months ended September 30, 2024", date!(2024 - 09 - 30), 9),
        ]
    );
    assert_eq!((read.unit, read.currency.as_deref()), (1_000_000.0, Some("EUR")));
    assert!(read.assumptions.is_empty(), "{:?}", read.assumptions);
}

#[test]
fn fiscal_labels_use_the_stated_year_end_and_a_trailing_column_is_not_read() {
    let read = read(&grid(&[
        &["Fiscal year end: 30 June"],
        &["", "FY2023", "FY 2024", "LTM Dec-24"],
        &["Revenue", "100", "120", "130"],
    ]));
    let ends: Vec<_> = read.periods.iter().map(|p| (p.period_end, p.months)).collect();
    assert_eq!(ends, vec![(date!(2023 - 06 - 30), 12), (date!(2024 - 06 - 30), 12)]);
    assert_eq!(read.assumptions.len(), 1, "{:?}", read.assumptions);
    assert!(has_assumption(&read, "column D ('LTM Dec-24') is a trailing twelve months"));
    assert_eq!((read.unit, read.unit_source.as_deref()), (1.0, None));
}

#[test]
fn fiscal_labels_without_a_year_end_assume_december_and_say_so() {
    let read = read(&grid(&[&["", "Q1 2024", "Fiscal 2023"], &["Sales", "25", "100"]]));
    let ends: Vec<_> = read.periods.iter().map(|p| (p.period_end, p.months)).collect();
    assert_eq!(ends, vec![(date!(2024 - 03 - 31), 3), (date!(2023 - 12 - 31), 12)]);
    assert!(has_assumption(&read, "read with a December 31 year end"));
}

#[test]
fn a_units_row_a_currency_row_and_a_months_row_are_honoured() {
    let read = read(&grid(&[
        &["Units", "1000"],
        &["Currency", "GBP"],
        &["", "31/12/2023", "30/06/2024"],
        &["Months", "12", "6"],
        &["Turnover", "500", "260"],
    ]));
    assert_eq!((read.unit, read.unit_source.as_deref()), (1_000.0, Some("statements.xlsx!Sheet1!B1")));
    assert_eq!(read.currency.as_deref(), Some("GBP"));
    let months: Vec<_> = read.periods.iter().map(|p| p.months).collect();
    assert_eq!(months, vec![12, 6]);
    assert!(read.assumptions.is_empty(), "{:?}", read.assumptions);
    assert_eq!(read.recognised.len(), 1, "the meta rows are not line items");
}

#[test]
fn figures_in_units_stay_as_stated() {
    let read = read(&grid(&[&["(in units)", "2023-12-31"], &["Total assets", "1234567.5"]]));
    assert_eq!(read.unit, 1.0);
    assert_eq!(read.unit_source.as_deref(), Some("statements.xlsx!Sheet1!A1"));
    assert_eq!(value(&read, 0, TotalAssets), Some((1_234_567.5, "B2".into())));
}

#[test]
fn section_headers_are_neither_recognised_nor_unrecognised_and_unknown_rows_are_listed() {
    let read = read(&grid(&[
        &["", "Dec 31, 2023"],
        &["Balance sheet"],
        &["Current assets"],
        &["Inventories", "40"],
        &["Total current assets", "90"],
        &["Adjusted EBITDA", "70"],
        &["", "3"],
    ]));
    let items: Vec<_> = read.recognised.iter().map(|r| (r.row, r.item)).collect();
    assert_eq!(items, vec![(5, CurrentAssets)]);
    let unknown: Vec<_> = read.unrecognised.iter().map(|r| (r.row, r.label.as_str())).collect();
    assert_eq!(unknown, vec![(4, "Inventories"), (6, "Adjusted EBITDA"), (7, "")]);
}

#[test]
fn labels_with_qualifiers_are_read_and_a_refused_one_is_listed_with_what_it_resembles() {
    let read = read(&grid(&[
        &["", "FY2023"],
        &["Revenue, net", "1200"],
        &["Operating income (EBIT)", "150"],
        &["Interest expense, net", "30"],
        &["Net income (loss)", "-20"],
    ]));
    let items: Vec<_> = read.recognised.iter().map(|r| (r.row, r.item)).collect();
    assert_eq!(items, vec![(2, Revenue), (3, OperatingIncome), (5, NetIncome)]);
    assert_eq!(value(&read, 0, NetIncome), Some((-20.0, "B5".into())));
    let [refused] = &read.unrecognised[..] else { panic!("one row is refused: {:?}", read.unrecognised) };
    assert_eq!((refused.row, refused.label.as_str()), (4, "Interest expense, net"));
    let not_used = refused.not_used.as_ref().expect("a reason");
    assert_eq!(not_used.resembles, InterestExpense);
    assert!(not_used.reason.contains("net of interest income"), "{}", not_used.reason);
}

#[test]
fn one_item_on_two_rows_is_refused_naming_both() {
    let error =
        interpret(&grid(&[&["", "FY2023"], &["Total assets", "10"], &["Total Assets", "11"]]), "f.csv").unwrap_err();
    assert_eq!(
        error,
        SheetError::DuplicateItem {
            item: "total_assets",
            first_row: 2,
            first_label: "Total assets".into(),
            second_row: 3,
            second_label: "Total Assets".into(),
        }
    );
    assert!(error.to_string().contains("row 2 ('Total assets') and row 3 ('Total Assets')"), "{error}");
}

#[test]
fn contradictory_units_are_refused_naming_both_cells() {
    let error =
        interpret(&grid(&[&["USD in thousands"], &["", "FY2023"], &["Units", "1000000"], &["Revenue", "1"]]), "f.xlsx")
            .unwrap_err();
    let SheetError::ContradictoryUnits { first, second, .. } = &error else { panic!("{error}") };
    assert_eq!((first.as_str(), second.as_str()), ("f.xlsx!Sheet1!B3", "f.xlsx!Sheet1!A1"));
}

#[test]
fn contradictory_currencies_are_refused() {
    let error = interpret(&grid(&[&["EUR '000"], &["Currency", "USD"], &["", "FY2023"], &["Revenue", "1"]]), "f.xlsx")
        .unwrap_err();
    assert!(matches!(error, SheetError::ContradictoryCurrencies { .. }), "{error}");
}

#[test]
fn a_months_row_that_contradicts_the_header_is_refused() {
    let error = interpret(&grid(&[&["", "Q1 2024"], &["Months", "12"], &["Revenue", "1"]]), "f.xlsx").unwrap_err();
    assert!(error.to_string().starts_with("f.xlsx!Sheet1!B2: the months row says 12"), "{error}");
}

#[test]
fn a_sheet_without_a_period_header_is_refused() {
    let error = interpret(&grid(&[&["Revenue", "1"], &["Net income", "2"]]), "f.xlsx").unwrap_err();
    assert_eq!(error, SheetError::NoHeaderRow { searched: HEADER_SEARCH_ROWS });
}

#[test]
fn two_columns_for_one_period_are_refused() {
    let error = interpret(&grid(&[&["", "FY2023", "Dec 31, 2023"], &["Revenue", "1", "1"]]), "f.xlsx").unwrap_err();
    assert!(matches!(error, SheetError::DuplicatePeriod { .. }), "{error}");
}

#[test]
fn sheets_past_the_bounds_are_refused() {
    let mut header = vec![""];
    let labels: Vec<String> = (0..=MAX_PERIODS).map(|i| format!("FY{}", 1980 + i)).collect();
    header.extend(labels.iter().map(String::as_str));
    let error = interpret(&grid(&[&header]), "f.xlsx").unwrap_err();
    assert_eq!(error, SheetError::TooManyPeriods { row: 1, found: MAX_PERIODS + 1, limit: MAX_PERIODS });

    let mut tall = grid(&[&["", "FY2023"]]);
    tall.rows.resize(MAX_ROWS + 1, vec![cell("Revenue"), cell("1")]);
    assert!(matches!(interpret(&tall, "f.xlsx"), Err(SheetError::TooManyRows { .. })));

    let mut wide = grid(&[&["", "FY2023"]]);
    wide.rows[0].resize(MAX_COLUMNS + 1, cell("x"));
    assert!(matches!(interpret(&wide, "f.xlsx"), Err(SheetError::TooManyColumns { row: 1, .. })));
}

#[test]
fn cell_references_use_a1_notation() {
    assert_eq!(a1(13, 2), "C14");
    assert_eq!(column_letters(25), "Z");
    assert_eq!(column_letters(26), "AA");
    assert_eq!(column_letters(701), "ZZ");
    assert_eq!(column_letters(702), "AAA");
    let cell = CellRef { file: "statements.xlsx".into(), sheet: "Sheet1".into(), cell: "C14".into() };
    assert_eq!(cell.to_string(), "statements.xlsx!Sheet1!C14");
}

#[test]
fn numbers_written_as_text_are_read_and_odd_ones_are_not() {
    assert_eq!(parse_number_text("(1,234)"), Some(-1_234.0));
    assert_eq!(parse_number_text("1,234.50"), Some(1_234.5));
    assert_eq!(parse_number_text("$ 12,345,678"), Some(12_345_678.0));
    assert_eq!(parse_number_text("-12"), Some(-12.0));
    assert_eq!(parse_number_text("12,34"), None);
    assert_eq!(parse_number_text("1.234,5"), None);
    assert_eq!(parse_number_text("abc"), None);
    assert_eq!(read_amount_text("12%"), Amount::Percent("12%".into()));
}

#[test]
fn long_labels_names_and_quoted_cells_are_kept_to_two_hundred_characters() {
    let long_label = format!("Revenue {}", "x".repeat(400));
    let unknown = "é".repeat(5_000);
    let words = format!("see note {}", "4".repeat(1_000));
    let header_words = format!("Remarks {}", "r".repeat(1_000));
    let mut sheet = grid(&[
        &["", "FY2023", "FY2022", &header_words],
        &["Revenue", "1200", "1100", ""],
        &[&unknown, "5", "4", ""],
        &["Total debt", "400", &words, ""],
    ]);
    sheet.sheet = "S".repeat(300);
    let file = format!("{}.xlsx", "f".repeat(300));

    let read = interpret(&sheet, &file).unwrap_or_else(|e| panic!("{e}"));

    let kept = |text: &str| text.chars().count() <= MAX_LABEL_CHARS;
    assert_eq!(read.unrecognised.len(), 1);
    let label = &read.unrecognised[0].label;
    assert!(kept(label) && label.ends_with('…') && label.starts_with("éé"), "{label}");
    let (_, _, source) = &read.periods[0].values[0];
    assert!(kept(&source.file) && kept(&source.sheet), "{source}");
    // A sentence quotes at most three kept texts: the file's and sheet's names and the cell's words.
    let longest = read.assumptions.iter().map(|a| a.chars().count()).max();
    assert!(longest.is_some_and(|n| n < 3 * MAX_LABEL_CHARS + 100), "{:?}", read.assumptions);
    assert!(has_assumption(&read, "('see note 444"), "{read:?}");
    assert!(has_assumption(&read, "('Remarks rrr"), "{:?}", read.assumptions);

    // Whichever way a long label reads, the row keeps it short.
    let sheet = grid(&[&["", "FY2023"], &[&long_label, "1200"]]);
    let read = interpret(&sheet, "s.csv").unwrap_or_else(|e| panic!("{e}"));
    let labels = read.recognised.iter().map(|r| &r.label).chain(read.unrecognised.iter().map(|r| &r.label));
    assert!(labels.clone().count() == 1 && labels.clone().all(|label| kept(label)), "{read:?}");
}

#[test]
fn a_kept_text_holds_no_nul_that_postgres_could_not_store() {
    assert_eq!(kept_text("Net\0 sales"), "Net sales");
}

#[test]
fn a_kept_text_is_cut_on_a_character_boundary_and_marked() {
    assert_eq!(kept_text("Net sales"), "Net sales");
    let exact = "ü".repeat(MAX_LABEL_CHARS);
    assert_eq!(kept_text(&exact), exact);
    let cut = kept_text(&"ü".repeat(MAX_LABEL_CHARS + 1));
    assert_eq!((cut.chars().count(), cut.ends_with('…')), (MAX_LABEL_CHARS, true));
}

#[test]
fn a_cell_longer_than_any_label_is_read_neither_as_an_item_nor_as_a_unit() {
    let padded = |words: &str, tail: &str| format!("{words}{}{tail}", " ".repeat(labels::MAX_READ_LABEL_BYTES));
    let sheet = grid(&[
        &[&padded("Figures", "in thousands")],
        &["", "FY2023"],
        &[&padded("Revenue", "(net)"), "1200"],
        &["Total assets", "1000"],
    ]);

    let read = read(&sheet);

    assert_eq!((read.unit, read.unit_source.as_deref()), (1.0, None));
    let recognised: Vec<_> = read.recognised.iter().map(|r| r.item).collect();
    assert_eq!(recognised, vec![TotalAssets]);
    assert_eq!(read.unrecognised.iter().map(|r| r.row).collect::<Vec<_>>(), vec![3]);
    assert!(read.unrecognised[0].label.starts_with("Revenue"));
}
