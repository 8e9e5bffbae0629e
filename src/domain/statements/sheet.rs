//! The layout interpreter: reads an analyst's spreadsheet of financial statements, already turned
//! into a [`Grid`] of cells by an adapter, into periods of line items, each figure keeping the cell
//! it came from.
//!
//! The layout is the one analysts use: line items down the first column, one column per period
//! with its period end in a header row near the top ("Dec 31, 2023", "FY2023", "Q1 2024", "Three
//! months ended" above "March 31, 2024"…). What the interpreter does not know it says: row labels
//! the label reader ([`super::labels`], over the synonym table [`super::synonyms`]) does not read
//! as an item are listed as unrecognised, never guessed, with the reason when a label looks like
//! an item whose figure it is not; every reading that is not stated in the sheet (a December year end, a date header taken as twelve
//! months, a column that is not read) is a line in [`SheetStatements::assumptions`]. A sheet that
//! contradicts itself (two units, one item on two rows) is a [`SheetError`] naming the cells.
//!
//! Figures stay in the sheet's unit: the caller multiplies by [`SheetStatements::unit`].

mod headers;
pub(super) mod units;

use std::collections::HashSet;
use std::fmt;

use time::{Date, Month};

use super::StatementItem;
use super::labels::{self, LabelReading, NotUsed};
use super::synonyms;
use headers::HeaderReading;

/// Rows of a sheet that are read; a sheet with data further down is refused.
pub const MAX_ROWS: usize = 2_000;
/// Columns of a sheet that are read; a sheet with data further right is refused.
pub const MAX_COLUMNS: usize = 200;
/// Period columns a sheet may have.
pub const MAX_PERIODS: usize = 40;
/// The header row is looked for among the first rows only: below them is data.
pub const HEADER_SEARCH_ROWS: usize = 15;
/// Characters kept of a text the sheet gives (a row label, a header, a cell quoted in an
/// assumption, the file's and the sheet's names): enough to find it in the sheet, while a stored
/// set stays small whatever the cells hold.
pub const MAX_LABEL_CHARS: usize = 200;

/// `text` as a set keeps it: at most [`MAX_LABEL_CHARS`] characters, a cut marked with `…`, and
/// without U+0000, which PostgreSQL cannot store (a cell holding one would otherwise be kept by the
/// memory store and refused by PostgreSQL).
pub fn kept_text(text: &str) -> String {
    let text: std::borrow::Cow<'_, str> = if text.contains('\0') { text.replace('\0', "").into() } else { text.into() };
    if text.chars().nth(MAX_LABEL_CHARS).is_none() {
        return text.into_owned();
    }
    let mut kept: String = text.chars().take(MAX_LABEL_CHARS - 1).collect();
    kept.push('…');
    kept
}

/// The spreadsheet formats statements are read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SheetFormat {
    Xlsx,
    Csv,
}

impl SheetFormat {
    /// As messages name it: `XLSX`, `CSV`.
    pub fn name(self) -> &'static str {
        match self {
            SheetFormat::Xlsx => "XLSX",
            SheetFormat::Csv => "CSV",
        }
    }
}

/// One cell as the adapter read it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum CellValue {
    Empty,
    Number(f64),
    Text(String),
    Date(Date),
}

/// One worksheet: `rows[r][c]`, both 0-based; rows may differ in length.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Grid {
    pub sheet: String,
    pub rows: Vec<Vec<CellValue>>,
}

/// Where a figure came from: `statements.xlsx!Sheet1!C14`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellRef {
    pub file: String,
    pub sheet: String,
    /// A1 notation.
    pub cell: String,
}

impl fmt::Display for CellRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}!{}!{}", self.file, self.sheet, self.cell)
    }
}

/// One period column.
#[derive(Clone, Debug, PartialEq)]
pub struct SheetPeriod {
    /// The header as written (both rows of a two-row header).
    pub header: String,
    pub period_end: Date,
    pub months: u32,
    /// Figures in the sheet's unit.
    pub values: Vec<(StatementItem, f64, CellRef)>,
}

/// A row whose label the synonym table knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecognisedRow {
    /// 1-based, as the spreadsheet shows it.
    pub row: u32,
    pub label: String,
    pub item: StatementItem,
}

/// A row with figures that is not read: its label names nothing the synonym table knows, or
/// looks like an item whose figure it is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnrecognisedRow {
    /// 1-based.
    pub row: u32,
    /// Empty when the row has figures but no label.
    pub label: String,
    /// The item the label looks like and why it is not read as it, when it looks like one.
    pub not_used: Option<NotUsed>,
}

/// What a sheet says.
#[derive(Clone, Debug, PartialEq)]
pub struct SheetStatements {
    /// ISO code, when the sheet states it.
    pub currency: Option<String>,
    /// 1, 1000 or 1000000: what every figure is to be multiplied by.
    pub unit: f64,
    /// The cell that stated the unit; `None` when nothing did (then `unit` is 1).
    pub unit_source: Option<String>,
    pub periods: Vec<SheetPeriod>,
    pub recognised: Vec<RecognisedRow>,
    pub unrecognised: Vec<UnrecognisedRow>,
    /// Each reading not stated in the sheet, one sentence each.
    pub assumptions: Vec<String>,
}

/// Why a sheet cannot be read; every message names the row, column or cell. Answered 422.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SheetError {
    #[error("the sheet has data below row {limit}; at most {limit} rows are read")]
    TooManyRows { limit: usize },
    #[error("row {row} has data right of column {last_column}; at most {limit} columns are read")]
    TooManyColumns { row: u32, last_column: String, limit: usize },
    #[error(
        "no header row: none of rows 1-{searched} has a period end to the right of column A (a date, 'FY2023', 'Q1 2024', 'Year ended December 31, 2023'…)"
    )]
    NoHeaderRow { searched: usize },
    #[error("header row {row} has {found} period columns; at most {limit} are read")]
    TooManyPeriods { row: u32, found: usize, limit: usize },
    #[error("the units contradict each other: {first} says '{first_text}', {second} says '{second_text}'")]
    ContradictoryUnits { first: String, first_text: String, second: String, second_text: String },
    #[error("the currencies contradict each other: {first} says {first_currency}, {second} says {second_currency}")]
    ContradictoryCurrencies { first: String, first_currency: String, second: String, second_currency: String },
    #[error(
        "{item} is given twice: row {first_row} ('{first_label}') and row {second_row} ('{second_label}'); remove or relabel one"
    )]
    DuplicateItem { item: &'static str, first_row: u32, first_label: String, second_row: u32, second_label: String },
    #[error("two columns head the same period: {first} and {second} ('{header}')")]
    DuplicatePeriod { first: String, second: String, header: String },
    #[error("{cell}: '{text}' is not a unit (expected 1, 1000, 1000000, thousands or millions)")]
    UnreadableUnit { cell: String, text: String },
    #[error("{cell}: '{text}' is not a period length in months (1 to 12)")]
    UnreadableMonths { cell: String, text: String },
    #[error("{cell}: the months row says {stated} but the header '{header}' says {from_header}")]
    ContradictoryMonths { cell: String, stated: u32, header: String, from_header: u32 },
    #[error("{cell}: '{text}' is not a fiscal year end such as 'December 31' or '30 June'")]
    UnreadableFiscalYearEnd { cell: String, text: String },
}

/// Reads the statements a grid lays out; `file` names the upload in every [`CellRef`].
///
/// # Errors
/// A [`SheetError`] when the sheet is too large, has no period header, or contradicts itself.
pub fn interpret(grid: &Grid, file: &str) -> Result<SheetStatements, SheetError> {
    check_bounds(grid)?;
    // Every figure's source names the file and the sheet: each name is kept short once, here.
    let sheet = Sheet { grid, file: kept_text(file), name: kept_text(&grid.sheet) };
    let mut assumptions = Vec::new();
    let meta = MetaRows::find(&sheet)?;
    let header = find_header(&sheet, &meta)?;
    if header.uses_fiscal_labels && meta.fiscal_year_end.is_none() {
        assumptions.push(
            "no fiscal year end is stated (a 'Fiscal year end' row): fiscal labels such as FY or Q1 are read with a December 31 year end"
                .to_owned(),
        );
    }
    let unit_statements = find_unit_statements(&sheet, &header, &meta)?;
    let unit = agreed_unit(&unit_statements)?;
    let currency = agreed_currency(&sheet, &meta, &unit_statements)?;
    let mut periods = read_periods(&sheet, &header, &meta, &mut assumptions)?;
    let (recognised, unrecognised) = read_rows(&sheet, &header, &meta, &mut periods, &mut assumptions)?;
    Ok(SheetStatements {
        currency,
        unit: unit.as_ref().map_or(1.0, |s| s.unit),
        unit_source: unit.map(|s| s.cell),
        periods: periods.into_iter().map(|column| column.period).collect(),
        recognised,
        unrecognised,
        assumptions,
    })
}

/// `A`, `B`, … `Z`, `AA`: the letters of a 0-based column.
pub fn column_letters(col: usize) -> String {
    let mut letters = Vec::new();
    let mut n = col + 1;
    while n > 0 {
        let rem = (n - 1) % 26;
        letters.push(char::from(b'A' + u8::try_from(rem).unwrap_or(0)));
        n = (n - 1) / 26;
    }
    letters.iter().rev().collect()
}

/// A1 notation of a 0-based cell.
pub fn a1(row: usize, col: usize) -> String {
    format!("{}{}", column_letters(col), row + 1)
}

fn one_based(row: usize) -> u32 {
    u32::try_from(row + 1).unwrap_or(u32::MAX)
}

fn check_bounds(grid: &Grid) -> Result<(), SheetError> {
    let used = |cells: &[CellValue]| cells.iter().rposition(|c| *c != CellValue::Empty).map_or(0, |i| i + 1);
    let rows = grid.rows.iter().rposition(|row| used(row) > 0).map_or(0, |i| i + 1);
    if rows > MAX_ROWS {
        return Err(SheetError::TooManyRows { limit: MAX_ROWS });
    }
    for (index, row) in grid.rows.iter().enumerate() {
        if used(row) > MAX_COLUMNS {
            let last_column = column_letters(MAX_COLUMNS - 1);
            return Err(SheetError::TooManyColumns { row: one_based(index), last_column, limit: MAX_COLUMNS });
        }
    }
    Ok(())
}

/// The grid with the file it came from, read cell by cell.
struct Sheet<'a> {
    grid: &'a Grid,
    /// The file's name, as [`kept_text`] keeps it.
    file: String,
    /// The worksheet's name, as [`kept_text`] keeps it.
    name: String,
}

static EMPTY: CellValue = CellValue::Empty;

impl Sheet<'_> {
    fn cell(&self, row: usize, col: usize) -> &CellValue {
        self.grid.rows.get(row).and_then(|cells| cells.get(col)).unwrap_or(&EMPTY)
    }

    /// A cell's text, trimmed, when it is a non-blank text.
    fn text(&self, row: usize, col: usize) -> Option<&str> {
        match self.cell(row, col) {
            CellValue::Text(text) if !text.trim().is_empty() => Some(text.trim()),
            _ => None,
        }
    }

    fn is_blank(&self, row: usize, col: usize) -> bool {
        match self.cell(row, col) {
            CellValue::Empty => true,
            CellValue::Text(text) => text.trim().is_empty(),
            _ => false,
        }
    }

    fn rows(&self) -> usize {
        self.grid.rows.len()
    }

    fn width(&self, row: usize) -> usize {
        self.grid.rows.get(row).map_or(0, Vec::len)
    }

    fn cell_ref(&self, row: usize, col: usize) -> CellRef {
        CellRef { file: self.file.clone(), sheet: self.name.clone(), cell: a1(row, col) }
    }

    fn cell_name(&self, row: usize, col: usize) -> String {
        self.cell_ref(row, col).to_string()
    }

    /// The first non-blank cell of a row, when it is a text: the row's label.
    fn first_text(&self, row: usize) -> Option<(usize, &str)> {
        let col = (0..self.width(row)).find(|&col| !self.is_blank(row, col))?;
        self.text(row, col).map(|text| (col, text))
    }

    /// The row's label among the columns left of the data.
    fn label(&self, row: usize, before: usize) -> Option<&str> {
        (0..before.min(self.width(row))).find_map(|col| self.text(row, col))
    }

    /// The first non-blank cell right of `col`.
    fn next_value(&self, row: usize, col: usize) -> Option<(usize, &CellValue)> {
        (col + 1..self.width(row)).find(|&c| !self.is_blank(row, c)).map(|c| (c, self.cell(row, c)))
    }

    /// A cell as text, for messages.
    fn shown(&self, row: usize, col: usize) -> String {
        shown(self.cell(row, col))
    }
}

/// A cell as text, for messages and assumptions, as [`kept_text`] keeps it.
fn shown(cell: &CellValue) -> String {
    match cell {
        CellValue::Empty => String::new(),
        CellValue::Number(n) => n.to_string(),
        CellValue::Text(text) => kept_text(text.trim()),
        CellValue::Date(date) => date.to_string(),
    }
}

/// The rows that say something about the sheet rather than give figures: a fiscal year end, the
/// months each column covers, the unit, the currency.
#[derive(Default)]
struct MetaRows {
    rows: HashSet<usize>,
    fiscal_year_end: Option<Month>,
    months_row: Option<usize>,
    /// (row, col, text) of each units row's value.
    units: Vec<(usize, usize, String)>,
    /// (row, col, text) of each currency row's value.
    currencies: Vec<(usize, usize, String)>,
}

enum MetaLabel {
    FiscalYearEnd,
    Months,
    Units,
    Currency,
}

fn meta_label(label: &str) -> Option<MetaLabel> {
    if label.len() > labels::MAX_READ_LABEL_BYTES {
        return None;
    }
    match synonyms::normalise_label(label).as_str() {
        "fiscal year end"
        | "financial year end"
        | "year end"
        | "fiscal year ending"
        | "financial year ending"
        | "fye" => Some(MetaLabel::FiscalYearEnd),
        "months"
        | "period length (months)"
        | "period length"
        | "number of months"
        | "months in period"
        | "no. of months"
        | "period (months)" => Some(MetaLabel::Months),
        "units" | "unit" => Some(MetaLabel::Units),
        "currency" | "reporting currency" => Some(MetaLabel::Currency),
        _ => None,
    }
}

impl MetaRows {
    fn find(sheet: &Sheet<'_>) -> Result<Self, SheetError> {
        let mut meta = MetaRows::default();
        for row in 0..sheet.rows() {
            let Some((col, text)) = sheet.first_text(row) else { continue };
            let (label, inline) = match text.split_once(':') {
                Some((label, value)) => (label, Some(value.trim()).filter(|v| !v.is_empty())),
                None => (text, None),
            };
            let Some(kind) = meta_label(label) else { continue };
            meta.rows.insert(row);
            // The value is after the colon in the label's cell, or in the next cell to the right.
            let value = match inline {
                Some(value) => Some((col, CellValue::Text(value.to_owned()))),
                None => sheet.next_value(row, col).map(|(c, v)| (c, v.clone())),
            };
            match kind {
                MetaLabel::Months => meta.months_row = Some(row),
                MetaLabel::FiscalYearEnd => {
                    if let Some((c, value)) = value {
                        let month = read_fiscal_year_end(&value).ok_or_else(|| {
                            SheetError::UnreadableFiscalYearEnd { cell: sheet.cell_name(row, c), text: shown(&value) }
                        })?;
                        meta.fiscal_year_end = Some(month);
                    }
                }
                MetaLabel::Units => meta.units.extend(value.map(|(c, v)| (row, c, shown(&v)))),
                MetaLabel::Currency => meta.currencies.extend(value.map(|(c, v)| (row, c, shown(&v)))),
            }
        }
        Ok(meta)
    }
}

/// "December 31", "30 June", "Dec", "12/31", a date cell, or a month number.
fn read_fiscal_year_end(value: &CellValue) -> Option<Month> {
    match value {
        CellValue::Date(date) => Some(date.month()),
        CellValue::Number(n) if n.fract() == 0.0 && (1.0..=12.0).contains(n) => Month::try_from(*n as u8).ok(),
        CellValue::Text(text) => {
            let lower = text.to_lowercase();
            let named = lower.split(|c: char| !c.is_ascii_alphabetic()).find_map(headers::month_named);
            named.or_else(|| numeric_month_day(&lower))
        }
        _ => None,
    }
}

/// "12/31" or "31/12" or "31.12.": the month is the number that is 12 or less.
fn numeric_month_day(lower: &str) -> Option<Month> {
    let numbers: Vec<u8> = lower.split(['/', '.', '-']).filter_map(|part| part.trim().parse().ok()).collect();
    let [a, b] = numbers[..] else { return None };
    let month = if a > 12 { b } else { a };
    Month::try_from(month).ok()
}

/// The header row and its period columns.
struct Header {
    row: usize,
    columns: Vec<HeaderColumn>,
    /// Columns right of this one are data; labels are left of it.
    first_period_col: usize,
    /// Non-blank header cells right of the first period column that are not periods.
    others: Vec<(usize, String)>,
    uses_fiscal_labels: bool,
}

struct HeaderColumn {
    col: usize,
    text: String,
    reading: HeaderReading,
}

fn find_header(sheet: &Sheet<'_>, meta: &MetaRows) -> Result<Header, SheetError> {
    let fiscal_year_end = meta.fiscal_year_end.unwrap_or(Month::December);
    let searched = sheet.rows().min(HEADER_SEARCH_ROWS);
    for row in (0..searched).filter(|row| !meta.rows.contains(row)) {
        let columns: Vec<HeaderColumn> =
            (1..sheet.width(row)).filter_map(|col| read_header_cell(sheet, meta, row, col, fiscal_year_end)).collect();
        let Some(first_period_col) = columns.iter().map(|c| c.col).min() else { continue };
        let others = (first_period_col..sheet.width(row))
            .filter(|&col| !sheet.is_blank(row, col) && !columns.iter().any(|c| c.col == col))
            .map(|col| (col, sheet.shown(row, col)))
            .collect();
        let uses_fiscal_labels =
            columns.iter().any(|c| matches!(c.reading, HeaderReading::Period { fiscal_label: true, .. }));
        return Ok(Header { row, columns, first_period_col, others, uses_fiscal_labels });
    }
    Err(SheetError::NoHeaderRow { searched: HEADER_SEARCH_ROWS })
}

fn read_header_cell(
    sheet: &Sheet<'_>,
    meta: &MetaRows,
    row: usize,
    col: usize,
    fiscal_year_end: Month,
) -> Option<HeaderColumn> {
    let above = text_spanning_above(sheet, meta, row, col);
    let join = |own: &str| match above {
        Some(above) => format!("{above} {own}"),
        None => own.to_owned(),
    };
    let (text, reading) = match sheet.cell(row, col) {
        CellValue::Date(end) => {
            let text = join(&end.to_string());
            let lower = text.to_lowercase();
            let reading = if headers::is_trailing(&lower) {
                HeaderReading::TrailingTwelveMonths
            } else {
                HeaderReading::Period { end: *end, months: headers::months_from_words(&lower), fiscal_label: false }
            };
            (text, reading)
        }
        CellValue::Text(own) => {
            let own = own.trim();
            let own_lower = own.to_lowercase();
            // A header that states its own length is read alone; otherwise with the words above.
            let states_length = headers::months_from_words(&own_lower).is_some() || headers::is_trailing(&own_lower);
            let text = if states_length { own.to_owned() } else { join(own) };
            let reading = headers::read_header_text(&text.to_lowercase(), fiscal_year_end)?;
            (text, reading)
        }
        CellValue::Number(year) if year.fract() == 0.0 && (1900.0..=2100.0).contains(year) => {
            let text = join(&format!("{year}"));
            let reading = headers::read_header_text(&text.to_lowercase(), fiscal_year_end)?;
            (text, reading)
        }
        _ => return None,
    };
    Some(HeaderColumn { col, text: kept_text(&text), reading })
}

/// The words of the row above that head this column ("Three months ended" over two date columns,
/// written once in the first): the nearest text at or left of the column, when it states a period
/// length.
fn text_spanning_above<'a>(sheet: &'a Sheet<'_>, meta: &MetaRows, row: usize, col: usize) -> Option<&'a str> {
    let above = row.checked_sub(1).filter(|r| !meta.rows.contains(r))?;
    let nearest = (1..=col).rev().find(|&c| !sheet.is_blank(above, c))?;
    let text = sheet.text(above, nearest)?;
    let lower = text.to_lowercase();
    (headers::months_from_words(&lower).is_some() || headers::is_trailing(&lower)).then_some(text)
}

/// A statement of the unit and the cell that made it.
struct UnitStatement {
    unit: f64,
    cell: String,
    text: String,
}

/// Every statement of the unit: units rows, and words ("in thousands", "€m") in the cells above
/// the data and in the label columns.
fn find_unit_statements(sheet: &Sheet<'_>, header: &Header, meta: &MetaRows) -> Result<Vec<UnitStatement>, SheetError> {
    let mut statements = Vec::new();
    for (row, col, text) in &meta.units {
        let unit = units::unit_value(&text.to_lowercase())
            .ok_or_else(|| SheetError::UnreadableUnit { cell: sheet.cell_name(*row, *col), text: text.clone() })?;
        statements.push(UnitStatement { unit, cell: sheet.cell_name(*row, *col), text: text.clone() });
    }
    for row in 0..sheet.rows() {
        let columns = if row <= header.row { sheet.width(row) } else { header.first_period_col };
        for col in 0..columns {
            // A cell longer than any label read states no unit either (and costs nothing to pass over).
            let Some(text) = sheet.text(row, col).filter(|text| text.len() <= labels::MAX_READ_LABEL_BYTES) else {
                continue;
            };
            if let Some(unit) = units::unit_in_words(&text.to_lowercase()) {
                statements.push(UnitStatement { unit, cell: sheet.cell_name(row, col), text: text.to_owned() });
            }
        }
    }
    Ok(statements)
}

/// The one unit the statements agree on.
fn agreed_unit(statements: &[UnitStatement]) -> Result<Option<UnitStatement>, SheetError> {
    let Some(first) = statements.first() else { return Ok(None) };
    if let Some(other) = statements.iter().find(|s| s.unit != first.unit) {
        return Err(SheetError::ContradictoryUnits {
            first: first.cell.clone(),
            first_text: first.text.clone(),
            second: other.cell.clone(),
            second_text: other.text.clone(),
        });
    }
    Ok(Some(UnitStatement { unit: first.unit, cell: first.cell.clone(), text: first.text.clone() }))
}

/// The currency a currency row or the unit's words name; two different ones are an error.
fn agreed_currency(
    sheet: &Sheet<'_>,
    meta: &MetaRows,
    unit_statements: &[UnitStatement],
) -> Result<Option<String>, SheetError> {
    let from_rows = meta.currencies.iter().filter_map(|(row, col, text)| {
        let lower = text.to_lowercase();
        let code = units::currency_in_words(&lower).or_else(|| {
            (text.len() == 3 && text.chars().all(|c| c.is_ascii_alphabetic())).then(|| text.to_ascii_uppercase())
        })?;
        Some((sheet.cell_name(*row, *col), code))
    });
    let from_units = unit_statements
        .iter()
        .filter_map(|s| units::currency_in_words(&s.text.to_lowercase()).map(|code| (s.cell.clone(), code)));
    let stated: Vec<(String, String)> = from_rows.chain(from_units).collect();
    let Some((first_cell, first_code)) = stated.first() else { return Ok(None) };
    if let Some((cell, code)) = stated.iter().find(|(_, code)| code != first_code) {
        return Err(SheetError::ContradictoryCurrencies {
            first: first_cell.clone(),
            first_currency: first_code.clone(),
            second: cell.clone(),
            second_currency: code.clone(),
        });
    }
    Ok(Some(first_code.clone()))
}

/// A period and the column its figures are in.
struct PeriodColumn {
    col: usize,
    period: SheetPeriod,
}

fn read_periods(
    sheet: &Sheet<'_>,
    header: &Header,
    meta: &MetaRows,
    assumptions: &mut Vec<String>,
) -> Result<Vec<PeriodColumn>, SheetError> {
    let found = header.columns.iter().filter(|c| matches!(c.reading, HeaderReading::Period { .. })).count();
    if found > MAX_PERIODS {
        return Err(SheetError::TooManyPeriods { row: one_based(header.row), found, limit: MAX_PERIODS });
    }
    let mut periods: Vec<PeriodColumn> = Vec::new();
    for column in &header.columns {
        let letters = column_letters(column.col);
        let HeaderReading::Period { end, months, .. } = column.reading else {
            assumptions.push(format!(
                "column {letters} ('{}') is a trailing twelve months, not a fiscal period: not read (trailing twelve months are worked out from the fiscal periods)",
                column.text
            ));
            continue;
        };
        let months = period_months(sheet, header, meta, column, months, assumptions)?;
        if let Some(same) = periods.iter().find(|p| p.period.period_end == end && p.period.months == months) {
            return Err(SheetError::DuplicatePeriod {
                first: sheet.cell_name(header.row, same.col),
                second: sheet.cell_name(header.row, column.col),
                header: column.text.clone(),
            });
        }
        let period = SheetPeriod { header: column.text.clone(), period_end: end, months, values: Vec::new() };
        periods.push(PeriodColumn { col: column.col, period });
    }
    for (col, text) in &header.others {
        assumptions.push(format!(
            "column {} ('{text}') is not a period header: its figures are not read",
            column_letters(*col)
        ));
    }
    Ok(periods)
}

/// The months a column covers: the months row, else the header's words, else twelve (said so).
fn period_months(
    sheet: &Sheet<'_>,
    header: &Header,
    meta: &MetaRows,
    column: &HeaderColumn,
    from_header: Option<u32>,
    assumptions: &mut Vec<String>,
) -> Result<u32, SheetError> {
    let stated = match meta.months_row {
        Some(row) => read_months_cell(sheet, row, column.col)?,
        None => None,
    };
    match (stated, from_header) {
        (Some(stated), Some(from_header)) if stated != from_header => Err(SheetError::ContradictoryMonths {
            cell: sheet.cell_name(meta.months_row.unwrap_or(header.row), column.col),
            stated,
            header: column.text.clone(),
            from_header,
        }),
        (Some(months), _) | (None, Some(months)) => Ok(months),
        (None, None) => {
            assumptions.push(format!(
                "column {} ('{}') does not say how many months it covers: taken as twelve",
                column_letters(column.col),
                column.text
            ));
            Ok(12)
        }
    }
}

fn read_months_cell(sheet: &Sheet<'_>, row: usize, col: usize) -> Result<Option<u32>, SheetError> {
    let months = match sheet.cell(row, col) {
        CellValue::Empty => return Ok(None),
        CellValue::Number(n) if n.fract() == 0.0 && (1.0..=12.0).contains(n) => Some(*n as u32),
        CellValue::Text(text) if text.trim().is_empty() => return Ok(None),
        CellValue::Text(text) => text.trim().parse::<u32>().ok().filter(|m| (1..=12).contains(m)),
        _ => None,
    };
    months
        .map(Some)
        .ok_or_else(|| SheetError::UnreadableMonths { cell: sheet.cell_name(row, col), text: sheet.shown(row, col) })
}

/// What one figure cell holds.
#[derive(Clone, Debug, PartialEq)]
enum Amount {
    Blank,
    Value(f64),
    /// A ratio, not an amount: "12%".
    Percent(String),
    /// Text that is not a number: "see note 4".
    Words(String),
}

impl Amount {
    /// Whether the cell holds a figure: a row with one is a data row, not a section header.
    fn is_figure(&self) -> bool {
        matches!(self, Amount::Value(_) | Amount::Percent(_))
    }
}

fn read_amount(cell: &CellValue) -> Amount {
    match cell {
        CellValue::Empty => Amount::Blank,
        CellValue::Number(n) if n.is_finite() => Amount::Value(*n),
        CellValue::Number(n) => Amount::Words(n.to_string()),
        CellValue::Date(date) => Amount::Words(date.to_string()),
        CellValue::Text(text) => read_amount_text(text.trim()),
    }
}

/// Dashes and "n/a" mark a figure that is not there.
const BLANK_MARKS: &[&str] = &["", "-", "--", "—", "–", "n/a", "na", "n.a.", "nm", "n.m.", "n/m"];

fn read_amount_text(text: &str) -> Amount {
    if BLANK_MARKS.contains(&text.to_lowercase().as_str()) {
        return Amount::Blank;
    }
    if text.ends_with('%') {
        return Amount::Percent(text.to_owned());
    }
    parse_number_text(text).map_or_else(|| Amount::Words(text.to_owned()), Amount::Value)
}

/// "1,234", "(1,234)", "-1234.5", "$ 1,234": a number written as text. Commas must group thousands.
fn parse_number_text(text: &str) -> Option<f64> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let (negative, body) = match compact.strip_prefix('(').and_then(|inner| inner.strip_suffix(')')) {
        Some(inner) => (true, inner),
        None => match compact.strip_prefix(['-', '−', '–']) {
            Some(rest) => (true, rest),
            None => (false, compact.as_str()),
        },
    };
    let body = body.trim_matches(['$', '€', '£']);
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let groups: Vec<&str> = whole.split(',').collect();
    let grouped =
        groups.len() == 1 || (matches!(groups[0].len(), 1..=3) && groups[1..].iter().all(|group| group.len() == 3));
    let digits = |part: &str| part.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !grouped || !groups.iter().all(|g| digits(g)) || !digits(fraction) {
        return None;
    }
    let number: f64 =
        format!("{}.{}", groups.concat(), if fraction.is_empty() { "0" } else { fraction }).parse().ok()?;
    Some(if negative { -number } else { number })
}

/// Items stated as positive amounts that a cash flow or cost-negative income statement shows in
/// parentheses.
fn is_outflow(item: StatementItem) -> bool {
    matches!(
        item,
        StatementItem::DepreciationAmortization
            | StatementItem::InterestExpense
            | StatementItem::CapitalExpenditure
            | StatementItem::ScheduledPrincipal
    )
}

type ReadRows = (Vec<RecognisedRow>, Vec<UnrecognisedRow>);

fn read_rows(
    sheet: &Sheet<'_>,
    header: &Header,
    meta: &MetaRows,
    periods: &mut [PeriodColumn],
    assumptions: &mut Vec<String>,
) -> Result<ReadRows, SheetError> {
    let mut recognised: Vec<RecognisedRow> = Vec::new();
    let mut unrecognised = Vec::new();
    for row in (header.row + 1..sheet.rows()).filter(|row| !meta.rows.contains(row)) {
        let amounts: Vec<Amount> = periods.iter().map(|p| read_amount(sheet.cell(row, p.col))).collect();
        if !amounts.iter().any(Amount::is_figure) {
            continue;
        }
        let whole_label = sheet.label(row, header.first_period_col).unwrap_or_default();
        // Read whole, kept short: the reading needs every word, the set only enough to find the row.
        let label = kept_text(whole_label);
        let item = match labels::read_label(whole_label) {
            LabelReading::Item(item) => item,
            LabelReading::NotUsed(not_used) => {
                unrecognised.push(UnrecognisedRow { row: one_based(row), label, not_used: Some(not_used) });
                continue;
            }
            LabelReading::Unknown => {
                unrecognised.push(UnrecognisedRow { row: one_based(row), label, not_used: None });
                continue;
            }
        };
        if let Some(first) = recognised.iter().find(|r| r.item == item) {
            return Err(SheetError::DuplicateItem {
                item: item.name(),
                first_row: first.row,
                first_label: first.label.clone(),
                second_row: one_based(row),
                second_label: label,
            });
        }
        record_row(sheet, row, item, &label, &amounts, periods, assumptions);
        recognised.push(RecognisedRow { row: one_based(row), label, item });
    }
    Ok((recognised, unrecognised))
}

/// Puts a recognised row's figures into their periods, saying what was not read.
fn record_row(
    sheet: &Sheet<'_>,
    row: usize,
    item: StatementItem,
    label: &str,
    amounts: &[Amount],
    periods: &mut [PeriodColumn],
    assumptions: &mut Vec<String>,
) {
    let values = amounts.iter().filter_map(|a| if let Amount::Value(v) = a { Some(*v) } else { None });
    // An outflow shown in parentheses throughout is the same outflow; mixed signs are left for
    // validation to refuse.
    let flip = is_outflow(item) && values.clone().all(|v| v <= 0.0) && values.clone().any(|v| v < 0.0);
    if flip {
        assumptions.push(format!(
            "row {} ('{label}'): {} is stated as negative figures (an outflow); read as positive amounts",
            one_based(row),
            item.name()
        ));
    }
    for (period, amount) in periods.iter_mut().zip(amounts) {
        let cell = sheet.cell_ref(row, period.col);
        match amount {
            Amount::Value(value) => {
                let value = if flip { value.abs() } else { *value };
                period.period.values.push((item, value, cell));
            }
            Amount::Percent(text) => {
                let text = kept_text(text);
                assumptions.push(format!("{cell} ('{text}') is a percentage, not an amount: not read"));
            }
            Amount::Words(text) => {
                let text = kept_text(text);
                assumptions.push(format!("{cell} ('{text}') is not an amount: not read"));
            }
            Amount::Blank => {}
        }
    }
}

#[cfg(test)]
mod tests;
