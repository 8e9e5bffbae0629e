//! Text plumbing shared by the extractors: pattern compilation, `char`-boundary-safe windows,
//! clause boundaries, table rows, and the one-pass index of definitions, labels and headings.
//!
//! Everything here works on byte offsets into the original text, never on a normalised copy, so
//! that every span the extractors produce quotes the input exactly.

mod clauses;
mod matching;
mod spans;
mod structure;
mod tables;

pub(crate) use clauses::{
    clause_around, clause_end, clause_start, parentheticals, sentence_around, sentence_end_after, sentence_start_before,
};
pub(crate) use matching::{any_word, capitalisable, contains_any_ci, contains_ci, matches_outside_date_names, pattern};
pub(crate) use spans::{
    Located, Regions, after, before, ceil_boundary, floor_boundary, last_word, line_around, lines_in, slice,
    trim_range, trim_range_and, within,
};
pub(crate) use structure::{Definition, INLINE_TERM, Structure, normalise_label};
pub(crate) use tables::{Table, is_page_furniture, table_after, table_cells, wrapped_table_after};
