//! Intake: what an uploaded credit document is, and the text the extraction reads from it.
//!
//! A file arrives with the media type its sender declares. [`MediaType::check`] compares that claim
//! with the bytes themselves (a PDF starts `%PDF-`, a DOCX is a ZIP package, HTML has markup, text
//! has no binary bytes) so that a file is never read as something it is not. Reading the file is a
//! port's job ([`crate::ports::reader::DocumentReader`]): parsers of untrusted files live outside
//! the domain. What comes back is a [`ReadDocument`]: one normalised text (paragraphs and headings a
//! line each, table rows a line each with cells separated by ` | `) and, for paged files, where each
//! page starts, so that every quote of the extraction can say its page.

mod media;
mod read;

pub use media::{MediaMismatch, MediaType};
pub use read::{PageMap, ReadDocument, ReadError};
