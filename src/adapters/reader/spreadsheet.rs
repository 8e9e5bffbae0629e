//! Spreadsheets of financial statements (XLSX, CSV) read into the [`Grid`] the statements' layout
//! interpreter ([`crate::domain::statements::sheet`]) reads. Both are untrusted uploads:
//!
//! - An XLSX workbook is a ZIP package. Before `calamine` sees it, every part is inflated once up
//!   to [`MAX_UNPACKED_BYTES`] in total ([`check_zip_expansion`]): a zip bomb, or a part whose
//!   header lies about its size, is refused having inflated no more than the cap. The shared
//!   strings are then counted as their part streams by ([`check_shared_strings`]), whether or not
//!   the table declares a `uniqueCount`: `calamine` keeps every one in memory, and 64 MiB of
//!   `<si/>` is 13 million of them. The cells are then streamed (never a whole-sheet `Range`,
//!   which a single cell at XFD1048576 would make 17 billion cells wide) and only the first
//!   [`MAX_ROWS`] × [`MAX_COLUMNS`] kept, plus one row and column beyond so that the interpreter
//!   can say the sheet is too large.
//! - A CSV file is decoded as the text reader decodes (UTF-8 with or without a BOM, UTF-16 with a
//!   BOM, else Windows-1252), its delimiter told from its lines (`;` and tab as European and
//!   spreadsheet exports write them, else `,`), its records' shape checked field by field
//!   ([`check_csv_shape`]: at most [`MAX_CSV_FIELDS`] fields of [`MAX_CSV_FIELD_CHARS`]
//!   characters, Excel's own limits) so that no record is ever held whole past them, and read with
//!   the `csv` crate.
//!
//! The text kept in the grid is capped (the readers' text limit), and so is the byte size of the
//! upload, by the caller. Reading runs in the reader's worker process (see [`super::worker`]),
//! within its memory, CPU and wall-clock limits.

use std::io::{BufReader, Cursor, Read};

use calamine::{DataRef, Reader, Xlsx, XlsxError};
use quick_xml::events::Event;

use super::decode;
use crate::domain::intake::ReadError;
use crate::domain::statements::sheet::{CellValue, Grid, MAX_COLUMNS, MAX_ROWS};

pub use crate::domain::statements::sheet::SheetFormat;

/// The most an XLSX package may unpack to, all parts together: a workbook of 2,000 rows is well
/// under 5 MiB of XML.
pub const MAX_UNPACKED_BYTES: u64 = 64 * 1024 * 1024;

/// Parts an XLSX package may have: a workbook has a few dozen.
const MAX_ZIP_ENTRIES: usize = 10_000;

/// The signature of an OLE compound file: a legacy `.xls` workbook, or an encrypted `.xlsx`
/// (Excel wraps a password-protected workbook in one).
const COMPOUND_FILE_SIGNATURE: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// The name a CSV file's one sheet is given in cell references, as Excel names a new sheet.
pub const CSV_SHEET_NAME: &str = "Sheet1";

/// Reads a spreadsheet's cells: the XLSX workbook's sheet named like "statements" or "financials",
/// else its first sheet with data; or the CSV file. The text of the cells kept is at most
/// `max_text_bytes`.
///
/// # Errors
/// [`ReadError::Corrupt`] for a file that is not a readable spreadsheet of its format (with the
/// reason: a password-protected or legacy `.xls` workbook, too many shared strings, a CSV record
/// past Excel's limits say so), [`ReadError::Expands`] for a package that unpacks past
/// [`MAX_UNPACKED_BYTES`], [`ReadError::TextTooLong`].
pub fn read_grid(format: SheetFormat, bytes: &[u8], max_text_bytes: usize) -> Result<Grid, ReadError> {
    match format {
        SheetFormat::Xlsx => read_xlsx(bytes, MAX_UNPACKED_BYTES, max_text_bytes),
        SheetFormat::Csv => read_csv(bytes, max_text_bytes),
    }
}

fn corrupt(format: SheetFormat, reason: impl Into<String>) -> ReadError {
    ReadError::Corrupt { media_type: format.name().to_owned(), reason: reason.into() }
}

fn read_xlsx(bytes: &[u8], max_unpacked: u64, max_text_bytes: usize) -> Result<Grid, ReadError> {
    let corrupt = |reason: String| corrupt(SheetFormat::Xlsx, reason);
    if bytes.starts_with(&COMPOUND_FILE_SIGNATURE) {
        return Err(corrupt("password-protected or legacy .xls workbook: save as .xlsx".into()));
    }
    check_zip_expansion(bytes, max_unpacked, "XLSX")?;
    check_shared_strings(bytes, MAX_SHARED_STRINGS)?;
    let mut workbook = Xlsx::new(Cursor::new(bytes)).map_err(|e| corrupt(format!("not a readable workbook: {e}")))?;
    for name in sheets_in_reading_order(workbook.sheet_names()) {
        let Some(rows) = read_worksheet(&mut workbook, &name, max_text_bytes)? else { continue };
        if rows.iter().any(|row| !row.is_empty()) {
            return Ok(Grid { sheet: name, rows });
        }
    }
    Err(corrupt("the workbook has no worksheet with data".into()))
}

/// A sheet named for the statements first, then the others in workbook order.
fn sheets_in_reading_order(names: Vec<String>) -> Vec<String> {
    let is_statements = |name: &String| {
        let lower = name.to_lowercase();
        ["statement", "financials", "financial"].iter().any(|word| lower.contains(word))
    };
    let (named, others): (Vec<String>, Vec<String>) = names.into_iter().partition(is_statements);
    named.into_iter().chain(others).collect()
}

/// The cells of one worksheet, within the bounds; `None` for a chart sheet or dialog sheet.
fn read_worksheet(
    workbook: &mut Xlsx<Cursor<&[u8]>>,
    name: &str,
    max_text_bytes: usize,
) -> Result<Option<Vec<Vec<CellValue>>>, ReadError> {
    let corrupt = |e: XlsxError| corrupt(SheetFormat::Xlsx, format!("worksheet '{name}' cannot be read: {e}"));
    let mut cells = match workbook.worksheet_cells_reader(name) {
        Ok(cells) => cells,
        Err(XlsxError::NotAWorksheet(_)) => return Ok(None),
        Err(e) => return Err(corrupt(e)),
    };
    let mut grid = BoundedRows::new(max_text_bytes);
    while let Some(cell) = cells.next_cell().map_err(corrupt)? {
        let (row, col) = cell.get_position();
        let (row, col) = (row as usize, col as usize);
        let value = cell_value(cell.get_value());
        if value != CellValue::Empty {
            grid.put(row, col, value)?;
        }
    }
    Ok(Some(grid.rows))
}

/// The rows of a grid as they are read, within its bounds and its text limit.
struct BoundedRows {
    rows: Vec<Vec<CellValue>>,
    text_bytes: usize,
    max_text_bytes: usize,
}

impl BoundedRows {
    fn new(max_text_bytes: usize) -> Self {
        Self { rows: Vec::new(), text_bytes: 0, max_text_bytes }
    }

    /// Puts a cell in the grid. A cell past the bounds is put one row or column past them (where
    /// that slot is still empty) and no further: the interpreter refuses the sheet as too large,
    /// naming the bound, and the grid never grows past (`MAX_ROWS` + 1) × (`MAX_COLUMNS` + 1).
    ///
    /// # Errors
    /// [`ReadError::TextTooLong`] when the text kept passes the limit.
    fn put(&mut self, row: usize, col: usize, value: CellValue) -> Result<(), ReadError> {
        let (row, col) = (row.min(MAX_ROWS), col.min(MAX_COLUMNS));
        if self.rows.len() <= row {
            self.rows.resize_with(row + 1, Vec::new);
        }
        let cells = &mut self.rows[row];
        if cells.len() <= col {
            cells.resize(col + 1, CellValue::Empty);
        }
        if cells[col] != CellValue::Empty {
            return Ok(());
        }
        if let CellValue::Text(text) = &value {
            self.text_bytes = self.text_bytes.saturating_add(text.len());
            if self.text_bytes > self.max_text_bytes {
                return Err(ReadError::TextTooLong { limit_bytes: self.max_text_bytes as u64 });
            }
        }
        cells[col] = value;
        Ok(())
    }
}

fn cell_value(data: &DataRef<'_>) -> CellValue {
    match data {
        DataRef::Int(n) => CellValue::Number(*n as f64),
        DataRef::Float(n) => CellValue::Number(*n),
        DataRef::String(text) => CellValue::Text(text.clone()),
        DataRef::SharedString(text) => CellValue::Text((*text).to_owned()),
        DataRef::Bool(b) => CellValue::Text(if *b { "TRUE" } else { "FALSE" }.to_owned()),
        DataRef::DateTime(datetime) if datetime.is_datetime() => {
            // Excel's serial date (1900 or 1904 system, the 1900 leap-year bug included) as the
            // calendar date it shows; a serial outside the calendar is kept as its number.
            let (year, month, day, ..) = datetime.to_ymd_hms_milli();
            time::Month::try_from(month)
                .ok()
                .and_then(|month| time::Date::from_calendar_date(i32::from(year), month, day).ok())
                .map_or(CellValue::Number(datetime.as_f64()), CellValue::Date)
        }
        DataRef::DateTime(duration) => CellValue::Number(duration.as_f64()),
        DataRef::DateTimeIso(text) => iso_date(text).map_or_else(|| CellValue::Text(text.clone()), CellValue::Date),
        DataRef::DurationIso(text) => CellValue::Text(text.clone()),
        DataRef::Error(_) | DataRef::Empty => CellValue::Empty,
    }
}

fn iso_date(text: &str) -> Option<time::Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(text.get(..10)?, format).ok()
}

/// Refuses a ZIP package that unpacks to more than `limit` bytes, by the sizes its headers declare
/// and by what its parts actually inflate to (inflating no more than `limit`, so a header that
/// lies is caught too). A file that is not a ZIP package, or is damaged, is [`ReadError::Corrupt`].
///
/// # Errors
/// [`ReadError::Expands`] past `limit`; [`ReadError::Corrupt`] naming `media_type`.
pub fn check_zip_expansion(bytes: &[u8], limit: u64, media_type: &str) -> Result<(), ReadError> {
    let corrupt = |reason: String| ReadError::Corrupt { media_type: media_type.to_owned(), reason };
    let mut archive =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| corrupt(format!("not a readable ZIP package: {e}")))?;
    if archive.len() > MAX_ZIP_ENTRIES {
        return Err(corrupt(format!("the package has {} parts; at most {MAX_ZIP_ENTRIES} are read", archive.len())));
    }
    let mut declared: u64 = 0;
    for index in 0..archive.len() {
        let entry = archive.by_index_raw(index).map_err(|e| corrupt(format!("part {index}: {e}")))?;
        declared = declared.saturating_add(entry.size());
    }
    if declared > limit {
        return Err(ReadError::Expands { limit_bytes: limit });
    }
    let mut remaining = limit;
    for index in 0..archive.len() {
        let entry = archive.by_index(index).map_err(|e| corrupt(format!("part {index}: {e}")))?;
        let name = entry.name().map_or_else(|_| format!("part {index}"), |name| name.into_owned());
        let inflated = std::io::copy(&mut entry.take(remaining + 1), &mut std::io::sink())
            .map_err(|e| corrupt(format!("{name} cannot be inflated: {e}")))?;
        if inflated > remaining {
            return Err(ReadError::Expands { limit_bytes: limit });
        }
        remaining -= inflated;
    }
    Ok(())
}

/// Shared strings a workbook may hold: far above a statements workbook's few thousand, and few
/// enough that `calamine`'s table of them stays tens of MiB.
const MAX_SHARED_STRINGS: u64 = 1_000_000;

/// Refuses a workbook whose shared-string table holds, or declares, more than `limit` strings,
/// counting the `<si>` elements of every shared-string part as it inflates (the part is already
/// known to unpack within the cap). `calamine` keeps every string, and reserves room for the
/// declared `uniqueCount` before reading one, so a count that lies would allocate without bound
/// too (an allocation failure aborts the process rather than panicking); each string takes at
/// least five bytes (`<si/>`).
fn check_shared_strings(bytes: &[u8], limit: u64) -> Result<(), ReadError> {
    let corrupt = |reason: String| corrupt(SheetFormat::Xlsx, reason);
    let mut archive =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| corrupt(format!("not a readable ZIP package: {e}")))?;
    for index in 0..archive.len() {
        let entry = archive.by_index(index).map_err(|e| corrupt(format!("part {index}: {e}")))?;
        // calamine reads `<workbook dir>/sharedStrings.xml`, matching names without case.
        let is_shared_strings = entry.name().is_ok_and(|name| {
            name.rsplit('/').next().is_some_and(|file| file.eq_ignore_ascii_case("sharedStrings.xml"))
        });
        if !is_shared_strings {
            continue;
        }
        let size = entry.size();
        let too_many = |count: String| {
            corrupt(format!("the shared-string table {count} strings (at most {limit} are read) in {size} bytes"))
        };
        let mut xml = quick_xml::Reader::from_reader(BufReader::new(entry));
        let config = xml.config_mut();
        config.check_end_names = false;
        config.check_comments = false;
        let mut buffer = Vec::new();
        let mut strings: u64 = 0;
        loop {
            buffer.clear();
            match xml.read_event_into(&mut buffer) {
                Ok(Event::Start(element) | Event::Empty(element)) => match element.local_name().as_ref() {
                    "sst" => {
                        let declared = element
                            .try_get_attribute("uniqueCount")
                            .ok()
                            .flatten()
                            .map(|count| count.value.trim().parse::<u64>().unwrap_or(u64::MAX));
                        if let Some(declared) = declared
                            && (declared > limit || declared.saturating_mul(5) > size)
                        {
                            return Err(too_many(format!("declares {declared}")));
                        }
                    }
                    "si" => {
                        strings += 1;
                        if strings > limit {
                            return Err(too_many(format!("holds more than {limit}")));
                        }
                    }
                    _ => {}
                },
                Ok(Event::Eof) => break,
                Ok(_) => {}
                Err(e) => return Err(corrupt(format!("the shared-string table cannot be read: {e}"))),
            }
        }
    }
    Ok(())
}

/// Fields a CSV record may have: Excel's column limit (XFD), so no spreadsheet's export has more.
pub const MAX_CSV_FIELDS: usize = 16_384;

/// Characters a CSV field may have: Excel's limit for a cell.
pub const MAX_CSV_FIELD_CHARS: usize = 32_767;

/// Refuses a CSV text with a record of more than [`MAX_CSV_FIELDS`] fields or a field of more
/// than [`MAX_CSV_FIELD_CHARS`] characters, reading it field by field with the parser the `csv`
/// crate is built on, configured as [`read_csv`] configures it (so both see the same fields),
/// through a fixed buffer: a 25 MB line of 12 million fields costs nothing here, where the `csv`
/// crate would hold the whole record (hundreds of MiB).
fn check_csv_shape(text: &[u8], delimiter: u8) -> Result<(), ReadError> {
    use csv_core::ReadFieldResult;
    let mut reader = csv_core::ReaderBuilder::new().delimiter(delimiter).build();
    let mut input = text;
    let mut output = [0_u8; 8 * 1024];
    let (mut record, mut fields, mut field_chars) = (1_u64, 0_usize, 0_usize);
    loop {
        let (result, read, written) = reader.read_field(input, &mut output);
        input = &input[read..];
        // Characters, not bytes: the text is UTF-8, and continuation bytes start with 0b10.
        field_chars += output[..written].iter().filter(|byte| (**byte & 0xC0) != 0x80).count();
        if field_chars > MAX_CSV_FIELD_CHARS {
            return Err(corrupt(
                SheetFormat::Csv,
                format!(
                    "record {record} has a field longer than {MAX_CSV_FIELD_CHARS} characters (Excel's cell limit)"
                ),
            ));
        }
        match result {
            ReadFieldResult::InputEmpty | ReadFieldResult::OutputFull => {}
            ReadFieldResult::Field { record_end } => {
                fields += 1;
                field_chars = 0;
                if fields > MAX_CSV_FIELDS {
                    return Err(corrupt(
                        SheetFormat::Csv,
                        format!("record {record} has more than {MAX_CSV_FIELDS} fields (Excel's column limit)"),
                    ));
                }
                if record_end {
                    record += 1;
                    fields = 0;
                }
            }
            ReadFieldResult::End => return Ok(()),
        }
    }
}

fn read_csv(bytes: &[u8], max_text_bytes: usize) -> Result<Grid, ReadError> {
    let corrupt = |reason: String| corrupt(SheetFormat::Csv, reason);
    let text = decode(bytes);
    if let Some(at) = text.find(|c: char| c.is_control() && !matches!(c, '\t' | '\r' | '\n')) {
        return Err(corrupt(format!("a binary file, not text (control character at byte {at})")));
    }
    let delimiter = detect_delimiter(&text);
    check_csv_shape(text.as_bytes(), delimiter)?;
    let mut reader =
        csv::ReaderBuilder::new().has_headers(false).flexible(true).delimiter(delimiter).from_reader(text.as_bytes());
    let mut grid = BoundedRows::new(max_text_bytes);
    // Line breaks inside quoted fields so far: the record's line less these is its row, as a
    // spreadsheet shows the file (blank lines are rows there, and the csv crate skips them).
    let mut breaks_in_fields: u64 = 0;
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(corrupt(e.to_string())),
        }
        let line = record.position().map_or(1, |position| first_line_of_record(&text, position));
        let row = usize::try_from(line.saturating_sub(1).saturating_sub(breaks_in_fields)).unwrap_or(usize::MAX);
        breaks_in_fields += record.iter().map(|field| field.matches('\n').count() as u64).sum::<u64>();
        for (col, field) in record.iter().enumerate() {
            let value = csv_cell(field, delimiter);
            if value != CellValue::Empty {
                grid.put(row, col, value)?;
            }
        }
        if row >= MAX_ROWS && grid.rows.len() > MAX_ROWS {
            break;
        }
    }
    Ok(Grid { sheet: CSV_SHEET_NAME.to_owned(), rows: grid.rows })
}

/// The line a record starts on: the csv crate positions a record after blank lines at the first
/// of them, so the blank lines are stepped over.
fn first_line_of_record(text: &str, position: &csv::Position) -> u64 {
    let from = usize::try_from(position.byte()).unwrap_or(usize::MAX);
    let blank_lines = text.get(from..).map_or(0, |rest| {
        let skipped = rest.len() - rest.trim_start_matches(['\r', '\n']).len();
        rest[..skipped].matches('\n').count()
    });
    position.line() + blank_lines as u64
}

/// Tab or `;` when most of the first lines split on it, else `,`. The order matters: a `;` file
/// has commas in its numbers ("1.234,5") and dates ("Dec 31, 2023"); a `,` file rarely has `;`.
fn detect_delimiter(text: &str) -> u8 {
    let sample: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).take(20).collect();
    for delimiter in ['\t', ';'] {
        let splitting = sample.iter().filter(|line| line.contains(delimiter)).count();
        if !sample.is_empty() && splitting * 2 >= sample.len() {
            return delimiter as u8;
        }
    }
    b','
}

/// A plain number is a number; with the `;` delimiter of European exports, a number with `,` for
/// decimals and `.` grouping thousands is one too. Anything else is text for the interpreter.
fn csv_cell(field: &str, delimiter: u8) -> CellValue {
    let field = field.trim();
    if field.is_empty() {
        return CellValue::Empty;
    }
    let plain = |text: &str| {
        let valid = text.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))
            && text.chars().any(|c| c.is_ascii_digit());
        valid.then(|| text.parse::<f64>().ok()).flatten()
    };
    let number = if delimiter == b';' { european_number(field).or_else(|| plain(field)) } else { plain(field) };
    number.map_or_else(|| CellValue::Text(field.to_owned()), CellValue::Number)
}

/// "1.234,56", "-1234,5", "(1.234)", "1.234.567": `.` groups thousands, `,` marks decimals. "1.5"
/// is not one (a `.` followed by other than three digits): it is read as a plain number.
fn european_number(field: &str) -> Option<f64> {
    let (negative, body) = match field.strip_prefix('(').and_then(|inner| inner.strip_suffix(')')) {
        Some(inner) => (true, inner.trim()),
        None => match field.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, field),
        },
    };
    let (whole, fraction) = body.split_once(',').unwrap_or((body, ""));
    let groups: Vec<&str> = whole.split('.').collect();
    let grouped = groups.len() == 1 || (matches!(groups[0].len(), 1..=3) && groups[1..].iter().all(|g| g.len() == 3));
    let digits = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
    let has_mark = groups.len() > 1 || body.contains(',');
    if !has_mark || !grouped || !groups.iter().all(|g| digits(g)) || !(fraction.is_empty() || digits(fraction)) {
        return None;
    }
    let number: f64 =
        format!("{}.{}", groups.concat(), if fraction.is_empty() { "0" } else { fraction }).parse().ok()?;
    Some(if negative { -number } else { number })
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};
    use time::macros::date;
    use zip::write::SimpleFileOptions;

    use super::*;
    use crate::domain::statements::StatementItem;
    use crate::domain::statements::sheet::{SheetError, interpret};

    /// The text limit, where a test is not about it.
    const TEXT: usize = 1 << 20;

    /// A workbook as an analyst sends it: a cover sheet without data first, then the statements
    /// on a sheet named for them, in thousands, with a date-formatted header row.
    fn statements_workbook() -> Vec<u8> {
        let mut workbook = Workbook::new();
        workbook.add_worksheet().set_name("Cover").unwrap();
        let sheet = workbook.add_worksheet().set_name("Financial statements").unwrap();
        let date_format = Format::new().set_num_format("mmm d, yyyy");
        sheet.write_string(0, 0, "Borrower Co. (in thousands of dollars)").unwrap();
        for (col, year) in [(1, 2023), (2, 2022)] {
            let end = ExcelDateTime::from_ymd(year, 12, 31).unwrap();
            sheet.write_datetime_with_format(2, col, &end, &date_format).unwrap();
        }
        let rows: [(&str, [f64; 2]); 4] = [
            ("Total revenues", [12_500.0, 11_000.0]),
            ("Income from operations", [1_500.0, -200.0]),
            ("Purchases of property, plant and equipment", [-300.0, -250.0]),
            ("Customer count", [40.0, 38.0]),
        ];
        for (offset, (label, values)) in rows.iter().enumerate() {
            let row = 3 + u32::try_from(offset).unwrap();
            sheet.write_string(row, 0, *label).unwrap();
            sheet.write_number(row, 1, values[0]).unwrap();
            sheet.write_number(row, 2, values[1]).unwrap();
        }
        sheet.write_string(7, 0, "Net income (loss)").unwrap();
        sheet.write_string(7, 1, "(1,234)").unwrap();
        workbook.save_to_buffer().unwrap()
    }

    #[test]
    fn an_xlsx_workbook_is_read_from_its_statements_sheet_with_dates() {
        let grid = read_grid(SheetFormat::Xlsx, &statements_workbook(), TEXT).unwrap();
        assert_eq!(grid.sheet, "Financial statements");
        assert_eq!(grid.rows[2][1], CellValue::Date(date!(2023 - 12 - 31)));

        let read = interpret(&grid, "statements.xlsx").unwrap();
        assert_eq!(
            (read.unit, read.unit_source.as_deref()),
            (1_000.0, Some("statements.xlsx!Financial statements!A1"))
        );
        assert_eq!(read.periods[0].period_end, date!(2023 - 12 - 31));
        let revenue = read.periods[0].values.iter().find(|(item, ..)| *item == StatementItem::Revenue).unwrap();
        assert_eq!(
            (revenue.1, revenue.2.to_string()),
            (12_500.0, "statements.xlsx!Financial statements!B4".to_owned())
        );
        let net_income = read.periods[0].values.iter().find(|(item, ..)| *item == StatementItem::NetIncome).unwrap();
        assert_eq!(net_income.1, -1_234.0);
        let capex =
            read.periods[1].values.iter().find(|(item, ..)| *item == StatementItem::CapitalExpenditure).unwrap();
        assert_eq!(capex.1, 250.0);
        assert_eq!(read.unrecognised.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), vec!["Customer count"]);
    }

    #[test]
    fn a_semicolon_csv_with_european_numbers_and_a_bom() {
        let csv = "\u{feff}Line item;Dec 31, 2023;Dec 31, 2022\nUnits;1000\n\nRevenue;1.234,5;1.100\nNet income;(12,5);-3\nNotes;\"two\nlines\";x\nCash;7;8\n";
        let grid = read_grid(SheetFormat::Csv, csv.as_bytes(), TEXT).unwrap();
        assert_eq!(grid.sheet, CSV_SHEET_NAME);
        assert_eq!(grid.rows[3][1], CellValue::Number(1_234.5));
        assert_eq!(grid.rows[3][2], CellValue::Number(1_100.0));
        assert_eq!(grid.rows[4][1], CellValue::Number(-12.5));
        assert_eq!(grid.rows[6][0], CellValue::Text("Cash".into()), "rows counted as a spreadsheet shows them");

        let read = interpret(&grid, "statements.csv").unwrap();
        assert_eq!(read.unit, 1_000.0);
        assert_eq!(read.periods.len(), 2);
        let cash = read.periods[0].values.iter().find(|(item, ..)| *item == StatementItem::Cash).unwrap();
        assert_eq!(cash.2.to_string(), "statements.csv!Sheet1!B7");
    }

    #[test]
    fn a_comma_csv_keeps_formatted_numbers_as_text_and_windows_1252_is_decoded() {
        let csv = b"Item,FY2023,FY2022\nRevenue,\"1,234\",900\nNet income,(5),\x80 3\n";
        let grid = read_grid(SheetFormat::Csv, csv, TEXT).unwrap();
        assert_eq!(grid.rows[1][1], CellValue::Text("1,234".into()));
        assert_eq!(grid.rows[1][2], CellValue::Number(900.0));
        assert_eq!(grid.rows[2][2], CellValue::Text("€ 3".into()));
        assert_eq!(detect_delimiter("a\tb\tc\n1\t2\t3"), b'\t');
    }

    #[test]
    fn a_zip_bomb_is_refused_having_inflated_no_more_than_the_cap() {
        // 8 MiB of zeros deflates to a few KB; with a 1 MiB cap it is refused (the real cap is
        // larger, the rule the same).
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("xl/worksheets/sheet1.xml", options).unwrap();
        zip.write_all(&vec![b'0'; 8 << 20]).unwrap();
        let bomb = zip.finish().unwrap().into_inner();
        assert!(bomb.len() < 100 * 1024, "bomb is {} bytes", bomb.len());
        assert_eq!(read_xlsx(&bomb, 1 << 20, TEXT), Err(ReadError::Expands { limit_bytes: 1 << 20 }));
        assert_eq!(check_zip_expansion(&bomb, 1 << 20, "XLSX"), Err(ReadError::Expands { limit_bytes: 1 << 20 }));
        assert_eq!(check_zip_expansion(&bomb, 16 << 20, "XLSX"), Ok(()));
    }

    /// A workbook's package with one part, deflated.
    fn package(part: &str, content: &[u8]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(part, options).unwrap();
        zip.write_all(content).unwrap();
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn a_shared_string_table_that_declares_more_strings_than_it_holds_is_refused() {
        let lying = package(
            "xl/sharedStrings.xml",
            br#"<?xml version="1.0"?><sst xmlns="x" count="1" uniqueCount="4000000000000"><si><t>a</t></si></sst>"#,
        );
        let error = read_grid(SheetFormat::Xlsx, &lying, TEXT).unwrap_err();
        assert!(error.to_string().contains("declares 4000000000000"), "{error}");
    }

    #[test]
    fn shared_strings_without_a_unique_count_are_counted_as_they_stream_and_refused_past_the_limit() {
        // The review's bomb: no uniqueCount, millions of empty strings deflated to a few KB, which
        // calamine would hold at 24 bytes and more each.
        let mut table = String::from(
            r#"<?xml version="1.0"?><x:sst xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main">"#,
        );
        table.push_str(&"<x:si/>".repeat(MAX_SHARED_STRINGS as usize + 1));
        table.push_str("</x:sst>");
        let bomb = package("xl/SharedStrings.xml", table.as_bytes());
        assert!(bomb.len() < 200 * 1024, "bomb is {} bytes", bomb.len());
        let error = read_grid(SheetFormat::Xlsx, &bomb, TEXT).unwrap_err();
        assert!(error.to_string().contains(&format!("holds more than {MAX_SHARED_STRINGS} strings")), "{error}");

        let within = package("xl/sharedStrings.xml", b"<sst><si><t>Revenue</t></si><si/></sst>");
        assert_eq!(check_shared_strings(&within, 2), Ok(()));
        assert!(check_shared_strings(&within, 1).is_err());
    }

    #[test]
    fn truncated_encrypted_and_random_files_are_refused_as_corrupt() {
        let whole = statements_workbook();
        let corrupt = |result: Result<Grid, ReadError>| match result {
            Err(ReadError::Corrupt { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        corrupt(read_grid(SheetFormat::Xlsx, &whole[..whole.len() / 2], TEXT));
        corrupt(read_grid(SheetFormat::Xlsx, &whole[..whole.len() - 10], TEXT));
        let mut legacy = COMPOUND_FILE_SIGNATURE.to_vec();
        legacy.extend([0; 504]);
        assert!(corrupt(read_grid(SheetFormat::Xlsx, &legacy, TEXT)).contains("password-protected or legacy .xls"));

        // A fixed pseudo-random sequence, so a failure is reproducible.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()[0]
            })
            .collect();
        corrupt(read_grid(SheetFormat::Xlsx, &random, TEXT));
        corrupt(read_grid(SheetFormat::Csv, &random, TEXT));
    }

    #[test]
    fn data_past_the_bounds_is_kept_one_row_or_column_past_for_the_interpreter_to_refuse() {
        let mut workbook = Workbook::new();
        let sheet = workbook.add_worksheet();
        sheet.write_string(0, 1, "FY2023").unwrap();
        sheet.write_number(5_000, 0, 1.0).unwrap();
        sheet.write_number(0, 16_000, 1.0).unwrap();
        let grid = read_grid(SheetFormat::Xlsx, &workbook.save_to_buffer().unwrap(), TEXT).unwrap();
        assert_eq!(grid.rows.len(), MAX_ROWS + 1);
        assert_eq!(grid.rows[0].len(), MAX_COLUMNS + 1);
        assert!(matches!(interpret(&grid, "f.xlsx"), Err(SheetError::TooManyRows { .. })));

        let mut csv = String::from("Item,FY2023\n");
        csv.push_str(&"Revenue,1\n".repeat(MAX_ROWS + 50));
        let grid = read_grid(SheetFormat::Csv, csv.as_bytes(), TEXT).unwrap();
        assert_eq!(grid.rows.len(), MAX_ROWS + 1);
        assert!(matches!(interpret(&grid, "f.csv"), Err(SheetError::TooManyRows { .. })));
    }

    #[test]
    fn a_csv_record_past_excels_column_limit_or_a_field_past_its_cell_limit_is_refused() {
        let reason = |csv: &str| match read_grid(SheetFormat::Csv, csv.as_bytes(), usize::MAX) {
            Err(ReadError::Corrupt { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        // The review's shape: one line of commas.
        let wide = format!("Item,FY2023\nRevenue{}\n", ",1".repeat(MAX_CSV_FIELDS));
        assert_eq!(reason(&wide), format!("record 2 has more than {MAX_CSV_FIELDS} fields (Excel's column limit)"));
        let long = format!("Item,FY2023\n\"{}\",1\n", "é".repeat(MAX_CSV_FIELD_CHARS + 1));
        assert!(reason(&long).starts_with("record 2 has a field longer than"), "{}", reason(&long));

        // At the limits, a file is read: an Excel export of a full-width row, a cell of 32,767.
        let widest =
            format!("Item{}\nRevenue,\"{}\"\n", ",".repeat(MAX_CSV_FIELDS - 1), "é".repeat(MAX_CSV_FIELD_CHARS));
        let grid = read_grid(SheetFormat::Csv, widest.as_bytes(), usize::MAX).unwrap();
        assert_eq!(grid.rows[1][1], CellValue::Text("é".repeat(MAX_CSV_FIELD_CHARS)));
    }

    #[test]
    fn the_text_kept_from_a_sheet_is_capped() {
        let csv = format!("Item,FY2023\n{}", "A long unrecognised label,1\n".repeat(100));
        assert_eq!(
            read_grid(SheetFormat::Csv, csv.as_bytes(), 1_000),
            Err(ReadError::TextTooLong { limit_bytes: 1_000 })
        );
        assert!(read_grid(SheetFormat::Csv, csv.as_bytes(), 10_000).is_ok());
    }
}
