//! The layout every reader writes, whatever the format: a paragraph or heading per line, a blank
//! line kept between blocks where the source had one, and a table row per line with its non-empty
//! cells separated by ` | `. A cell holding only `%` joins the cell before it and a cell holding
//! only a currency sign joins the cell after it, because filings put them in cells of their own:
//! `2.50 | %` reads `2.50%`, `$ | 25,000,000` reads `$25,000,000`.

/// The text being written: finished lines, the current line, and the row and cell of a table.
pub(super) struct Layout {
    text: String,
    line: String,
    row: Vec<String>,
    cell: String,
    in_row: bool,
    pub(super) skipping: bool,
    pub(super) preformatted: bool,
    max: usize,
    pub(super) overflowed: bool,
}

impl Layout {
    pub(super) fn new(max: usize) -> Self {
        Layout {
            text: String::new(),
            line: String::new(),
            row: Vec::new(),
            cell: String::new(),
            in_row: false,
            skipping: false,
            preformatted: false,
            max,
            overflowed: false,
        }
    }

    pub(super) fn characters(&mut self, text: &str) {
        if self.skipping || self.overflowed {
            return;
        }
        if self.preformatted && !self.in_row {
            let mut pieces = text.split('\n');
            if let Some(first) = pieces.next() {
                self.line.push_str(&first.replace('\u{a0}', " "));
            }
            for piece in pieces {
                // An empty line of preformatted text is a blank line kept.
                if self.line.trim().is_empty() {
                    self.line.clear();
                    self.block();
                } else {
                    self.end_line();
                }
                self.line.push_str(&piece.replace('\u{a0}', " "));
            }
            return;
        }
        let target = if self.in_row { &mut self.cell } else { &mut self.line };
        for c in text.chars() {
            if c.is_whitespace() || is_invisible(c) {
                if !target.is_empty() && !target.ends_with(' ') {
                    target.push(' ');
                }
            } else {
                target.push(c);
            }
        }
        if target.len() > self.max {
            self.overflowed = true;
        }
    }

    /// The end of a paragraph, heading or other block: inside a cell a space, elsewhere the end
    /// of the line and a blank line after it.
    pub(super) fn block(&mut self) {
        if self.in_row {
            self.space_in_cell();
        } else {
            self.end_line();
            if !self.text.is_empty() && !self.text.ends_with("\n\n") {
                self.text.push('\n');
            }
        }
    }

    /// The end of a line of preformatted text given a paragraph each (a Word document's): the
    /// line is kept as typed, and an empty one is a blank line.
    pub(super) fn preformatted_line_end(&mut self) {
        if self.line.trim().is_empty() {
            self.line.clear();
            self.block();
        } else {
            self.end_line();
        }
    }

    /// A blank line before the line being written, unless the text already ends with one.
    pub(super) fn blank_line_before(&mut self) {
        if !self.in_row && !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.text.push('\n');
        }
    }

    /// Whether a table's row is being written.
    pub(super) fn in_table(&self) -> bool {
        self.in_row
    }

    /// A line break within a block (`<br>`): inside a cell a space.
    pub(super) fn line_break(&mut self) {
        if self.in_row { self.space_in_cell() } else { self.end_line() }
    }

    fn space_in_cell(&mut self) {
        if !self.cell.is_empty() && !self.cell.ends_with(' ') {
            self.cell.push(' ');
        }
    }

    pub(super) fn end_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        self.push_line(line.trim_end());
    }

    fn push_line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        if self.text.len() + line.len() > self.max {
            self.overflowed = true;
            return;
        }
        self.text.push_str(line);
        self.text.push('\n');
    }

    pub(super) fn end_cell(&mut self) {
        if !self.in_row {
            // A cell without a row (`<td>` straight in `<table>`): the row starts here.
            self.end_line();
            self.in_row = true;
        }
        let cell = std::mem::take(&mut self.cell);
        add_cell(&mut self.row, &cell);
    }

    pub(super) fn end_row(&mut self) {
        if self.in_row {
            self.end_cell();
            let row = std::mem::take(&mut self.row);
            let line = row.join(" | ");
            self.push_line(&line);
        } else {
            self.end_line();
        }
        self.in_row = false;
    }

    pub(super) fn finish(mut self) -> String {
        self.end_row();
        self.end_line();
        self.text
    }
}

/// Adds a cell to a row, as every reader's rows are written: an empty cell is dropped, a `%` cell
/// joins the cell before it and a cell after a currency sign joins the sign.
pub(super) fn add_cell(row: &mut Vec<String>, cell: &str) {
    let cell = cell.trim();
    if cell.is_empty() {
        return;
    }
    match row.last_mut() {
        Some(previous) if cell == "%" || cell.starts_with('%') && cell.len() <= 3 => previous.push_str(cell),
        Some(previous) if is_currency_sign(previous) => previous.push_str(cell),
        _ => row.push(cell.to_owned()),
    }
}

fn is_currency_sign(cell: &str) -> bool {
    matches!(cell, "$" | "U.S.$" | "US$" | "€" | "£" | "¥")
}

/// Characters that print nothing and separate nothing a reader sees: filings fill "empty" table
/// cells and spacing with zero-width spaces and byte-order marks. They read as whitespace, so a
/// cell holding only them is empty.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}')
}
