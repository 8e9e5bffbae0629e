//! Provenance for values a language model proposes for extraction fields: a value is kept only if
//! the words the model says it read can be found in the document, so every accepted value carries
//! the byte span it came from; anything else is dropped and reported with the reason.
//!
//! Also the two helpers around such a request: [`proposal_schema`], the JSON schema the model
//! answers in (one `{value, quote}` per field), with [`proposals_from_answer`] to read the answer;
//! and [`chunk_by_sections`], which splits a text too long for one request at article / section /
//! clause headings so each chunk is reviewed against its own text ([`review_proposals_in`]).
//!
//! The rule is deliberately literal: `value` must appear in `quote` as written in the document
//! (case and whitespace aside), so ask the model for values verbatim and normalise them (dates,
//! amounts) afterwards, in the domain, from the accepted text.

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value, json};

/// A value the model proposes for one field, with the words it says it read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    /// JSON pointer of the field, like `/agreementDate`.
    pub field: String,
    /// The value as written in the document.
    pub value: String,
    /// The exact words of the document that state the value.
    pub quote: String,
}

impl Proposal {
    pub fn new(field: impl Into<String>, value: impl Into<String>, quote: impl Into<String>) -> Self {
        Self { field: field.into(), value: value.into(), quote: quote.into() }
    }
}

/// A proposal whose quote was found: `&text[start..end] == quote`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptedProposal {
    pub field: String,
    pub value: String,
    /// Byte offset of the quote in the text.
    pub start: usize,
    /// Byte offset just past the quote.
    pub end: usize,
    /// The text as it stands in the document (it may differ from the model's quote in whitespace).
    pub quote: String,
}

impl AcceptedProposal {
    /// `start..end`.
    pub fn span(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// A proposal that was dropped, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectedProposal {
    pub field: String,
    pub value: String,
    pub reason: RejectionReason,
}

/// Why a proposal was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RejectionReason {
    /// The field is not a JSON pointer (`/name`, `/parties/0/name`).
    InvalidField,
    /// The value is empty or only whitespace.
    EmptyValue,
    /// The model gave no quote.
    EmptyQuote,
    /// The value does not occur in the quote (ignoring case and whitespace).
    ValueNotInQuote,
    /// The quote is not in the text, even allowing for different whitespace.
    QuoteNotFound,
    /// Another proposal for the same field was accepted before this one.
    DuplicateField,
}

impl fmt::Display for RejectionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InvalidField => "the field is not a JSON pointer",
            Self::EmptyValue => "the value is empty",
            Self::EmptyQuote => "no quote supports the value",
            Self::ValueNotInQuote => "the value does not occur in its quote",
            Self::QuoteNotFound => "the quote is not in the document",
            Self::DuplicateField => "another value for this field was accepted first",
        })
    }
}

/// The outcome of [`review_proposals`]: both lists keep the proposals' order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProposalReview {
    pub accepted: Vec<AcceptedProposal>,
    pub rejected: Vec<RejectedProposal>,
}

/// Keeps the proposals whose quote can be located in `text` and whose value occurs in the quote;
/// rejects the others with the reason. Of several acceptable proposals for one field, the first
/// wins. Quotes are located exactly first, then allowing runs of whitespace to differ (see
/// [`locate_quote`]).
pub fn review_proposals(text: &str, proposals: impl IntoIterator<Item = Proposal>) -> ProposalReview {
    review_proposals_in(text, 0..text.len(), proposals)
}

/// [`review_proposals`] for proposals made from the chunk `text[chunk]` (one of
/// [`chunk_by_sections`]): quotes are searched in the chunk only, spans are offsets in `text`.
/// A chunk that is not a valid range of `text` locates nothing.
pub fn review_proposals_in(
    text: &str,
    chunk: Range<usize>,
    proposals: impl IntoIterator<Item = Proposal>,
) -> ProposalReview {
    let window = text.get(chunk.clone());
    let mut review = ProposalReview::default();
    let mut accepted_fields = HashSet::new();
    for proposal in proposals {
        let located = check_proposal(&proposal).and_then(|()| {
            window
                .and_then(|window| locate_quote(window, &proposal.quote))
                .map(|local| (chunk.start + local.start)..(chunk.start + local.end))
                .ok_or(RejectionReason::QuoteNotFound)
        });
        let located = located.and_then(|span| {
            if accepted_fields.contains(&proposal.field) { Err(RejectionReason::DuplicateField) } else { Ok(span) }
        });
        match located
            .and_then(|span| text.get(span.clone()).map(|quote| (span, quote)).ok_or(RejectionReason::QuoteNotFound))
        {
            Ok((span, quote)) => {
                accepted_fields.insert(proposal.field.clone());
                review.accepted.push(AcceptedProposal {
                    field: proposal.field,
                    value: proposal.value,
                    start: span.start,
                    end: span.end,
                    quote: quote.to_owned(),
                });
            }
            Err(reason) => {
                review.rejected.push(RejectedProposal { field: proposal.field, value: proposal.value, reason });
            }
        }
    }
    review
}

/// The checks that need no text: a JSON-pointer field, a value, a quote, the value in the quote.
fn check_proposal(proposal: &Proposal) -> Result<(), RejectionReason> {
    if !is_json_pointer(&proposal.field) {
        return Err(RejectionReason::InvalidField);
    }
    let value = comparable(&proposal.value);
    if value.is_empty() {
        return Err(RejectionReason::EmptyValue);
    }
    if proposal.quote.trim().is_empty() {
        return Err(RejectionReason::EmptyQuote);
    }
    if !comparable(&proposal.quote).contains(&value) {
        return Err(RejectionReason::ValueNotInQuote);
    }
    Ok(())
}

/// Lower case, whitespace removed: what "contains, ignoring case and whitespace" compares.
fn comparable(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

/// RFC 6901: empty (the whole document) is not a field; otherwise `/` segments with `~0`/`~1`.
fn is_json_pointer(field: &str) -> bool {
    let Some(rest) = field.strip_prefix('/') else {
        return false;
    };
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return false;
        }
    }
    true
}

/// The byte span of the first occurrence of `quote` (trimmed) in `text`: exactly if it occurs so,
/// else allowing every run of whitespace in the quote to match any non-empty run of whitespace in
/// the text (a line break for a space, two spaces for one…). `None` when the quote is blank or
/// not found. The span is always of the original text, so `&text[span]` is what the document says.
pub fn locate_quote(text: &str, quote: &str) -> Option<Range<usize>> {
    let quote = quote.trim();
    if quote.is_empty() {
        return None;
    }
    if let Some(start) = text.find(quote) {
        return Some(start..start + quote.len());
    }
    let words: Vec<String> = quote.split_whitespace().map(regex::escape).collect();
    if words.len() < 2 {
        return None;
    }
    // Linear-time matching whatever the text; an absurdly long quote that does not compile is
    // simply not found.
    let pattern = RegexBuilder::new(&words.join(r"\s+")).size_limit(1 << 24).build().ok()?;
    pattern.find(text).map(|found| found.range())
}

/// A heading that starts a line: `ARTICLE V`, `Article 5`, `Section 2.01`, `SECTION 3`, `Clause 5`,
/// `Schedule 1`, `Exhibit A`-style words followed by a number or roman numeral, `§ 4`, or a
/// numbered heading like `1. Definitions` / `2.01 Loans` (a number, then a capitalised word).
static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^[ \t]*(?:(?i:article|section|clause|schedule|exhibit|annex|appendix|part)[ \t]+(?:\d|[IVXLC]+\b|[A-Z]\b)|§[ \t]*\d|\d{1,3}(?:\.\d{1,3})*\.?[ \t]+\p{Lu})",
    )
    .expect("a valid literal pattern")
});

/// One or more blank lines (spaces, tabs, carriage returns allowed on them).
static PARAGRAPH_BREAK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\n(?:[ \t\r]*\n)+").expect("a valid literal pattern"));

/// Splits `text` into consecutive chunks of at most `max_bytes` bytes that cover it exactly (no gap,
/// no overlap, nothing dropped), for texts too long for one model request.
///
/// Each chunk ends, by preference, just before a heading (article, section, clause, schedule, `§`,
/// numbered heading at a line start), else after a paragraph break, else after a line break, else
/// after whitespace, else at a character boundary. A boundary is only taken if it leaves the chunk
/// at least a quarter full; failing that, the latest boundary of any kind is taken, so chunks do
/// not shrink to a heading's length. A chunk exceeds `max_bytes` only when `max_bytes` is smaller
/// than one character (it then holds that one character). An empty text has no chunks.
pub fn chunk_by_sections(text: &str, max_bytes: usize) -> Vec<Range<usize>> {
    let max_bytes = max_bytes.max(1);
    let headings: Vec<usize> = HEADING.find_iter(text).map(|found| found.start()).collect();
    let mut chunks = Vec::with_capacity(text.len() / max_bytes + 1);
    let mut start = 0;
    while start < text.len() {
        let end = if text.len() - start <= max_bytes {
            text.len()
        } else {
            chunk_end(text, start, start + max_bytes, &headings)
        };
        chunks.push(start..end);
        start = end;
    }
    chunks
}

/// Where the chunk starting at `start` ends, given that it may not reach past `limit` (< len).
fn chunk_end(text: &str, start: usize, limit: usize, headings: &[usize]) -> usize {
    let window_end = floor_char_boundary(text, limit);
    if window_end <= start {
        // `max_bytes` is smaller than this character: take the character whole.
        return text[start..].chars().next().map_or(text.len(), |c| start + c.len_utf8());
    }
    let window = &text[start..window_end];
    let relative = |offset: Option<usize>| offset.map(|offset| start + offset);
    let candidates = [
        headings[..headings.partition_point(|&h| h <= window_end)].last().copied().filter(|&h| h > start),
        relative(PARAGRAPH_BREAK.find_iter(window).last().map(|found| found.end())),
        relative(window.rfind('\n').map(|at| at + 1)),
        relative(window.char_indices().rev().find(|(_, c)| c.is_whitespace()).map(|(at, c)| at + c.len_utf8())),
    ];
    let min_fill = start + (window_end - start) / 4;
    candidates
        .iter()
        .flatten()
        .copied()
        .find(|&cut| cut > min_fill)
        .or_else(|| candidates.iter().flatten().copied().max())
        .unwrap_or(window_end)
}

/// The largest character boundary at or below `index` (`str::floor_char_boundary`, stable only
/// from Rust 1.91).
fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The JSON schema for asking a model to propose values for `fields` (JSON pointers): an object
/// with one property per field, each `{"value": string|null, "quote": string|null}` (`null` when the
/// text does not say). Every property is required and nothing else allowed, as strict structured
/// output (OpenAI `strict: true`) demands. Duplicate fields are listed once.
pub fn proposal_schema(fields: &[&str]) -> Value {
    let mut seen = HashSet::new();
    let fields: Vec<&str> = fields.iter().copied().filter(|field| seen.insert(*field)).collect();
    let entry = json!({
        "type": "object",
        "properties": {
            "value": {
                "type": ["string", "null"],
                "description": "The value exactly as written in the text; null if the text does not state it."
            },
            "quote": {
                "type": ["string", "null"],
                "description": "The exact words of the text that state the value, copied verbatim (a short sentence or phrase); null if there is no value."
            }
        },
        "required": ["value", "quote"],
        "additionalProperties": false
    });
    let properties: Map<String, Value> = fields.iter().map(|field| ((*field).to_owned(), entry.clone())).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": fields,
        "additionalProperties": false
    })
}

/// The model's answer to a [`proposal_schema`] request was not a JSON object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the proposals answer is a JSON {0}, not an object of fields")]
pub struct ProposalAnswerError(&'static str);

/// Reads an answer shaped by [`proposal_schema`] into proposals, leniently: fields whose value is
/// null or missing are skipped (the model found nothing); numbers and booleans become text; a
/// missing quote becomes empty, or the entry's bare value if the model sent one instead of an
/// object, so [`review_proposals`] reports it instead of silently losing it.
///
/// # Errors
/// [`ProposalAnswerError`] when the answer is not a JSON object.
pub fn proposals_from_answer(answer: &Value) -> Result<Vec<Proposal>, ProposalAnswerError> {
    let Value::Object(fields) = answer else {
        return Err(ProposalAnswerError(json_kind(answer)));
    };
    Ok(fields
        .iter()
        .filter_map(|(field, entry)| {
            let (value, quote) = match entry {
                Value::Object(entry) => {
                    (entry.get("value").and_then(scalar_text)?, entry.get("quote").and_then(scalar_text))
                }
                bare => (scalar_text(bare)?, None),
            };
            Some(Proposal { field: field.clone(), value, quote: quote.unwrap_or_default() })
        })
        .collect())
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The JSON type name of `value`, for messages about unexpected answers.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const AGREEMENT: &str = "CREDIT AGREEMENT\n\ndated as of March 15, 2024,\namong ACME HOLDINGS, INC., as Borrower,\n\
        the LENDERS party hereto\nand FIRST BANK, N.A., as Administrative Agent.\n";

    fn single(text: &str, proposal: Proposal) -> ProposalReview {
        review_proposals(text, [proposal])
    }

    #[test]
    fn llm_proposal_with_an_exact_quote_is_accepted_with_its_span() {
        let review = single(AGREEMENT, Proposal::new("/agreementDate", "March 15, 2024", "dated as of March 15, 2024"));

        assert!(review.rejected.is_empty(), "{review:?}");
        let accepted = &review.accepted[0];
        assert_eq!(&AGREEMENT[accepted.span()], "dated as of March 15, 2024");
        assert_eq!(accepted.quote, "dated as of March 15, 2024");
        assert_eq!(accepted.value, "March 15, 2024");
    }

    #[test]
    fn llm_proposal_quote_may_differ_in_whitespace_and_maps_to_the_original_text() {
        let quote = "among  ACME HOLDINGS, INC., as Borrower, the LENDERS party hereto";

        let review = single(AGREEMENT, Proposal::new("/borrower", "Acme Holdings, Inc.", quote));

        let accepted = &review.accepted[0];
        assert_eq!(accepted.quote, "among ACME HOLDINGS, INC., as Borrower,\nthe LENDERS party hereto");
        assert_eq!(&AGREEMENT[accepted.start..accepted.end], accepted.quote);
    }

    #[test]
    fn llm_proposal_with_an_invented_quote_is_rejected() {
        let review = single(AGREEMENT, Proposal::new("/agreementDate", "March 16, 2024", "dated as of March 16, 2024"));

        assert!(review.accepted.is_empty());
        assert_eq!(review.rejected[0].reason, RejectionReason::QuoteNotFound);
        assert_eq!(review.rejected[0].value, "March 16, 2024");
    }

    #[test]
    fn llm_proposal_whose_value_is_not_in_its_quote_is_rejected() {
        let review = single(AGREEMENT, Proposal::new("/agreementDate", "2024-03-15", "dated as of March 15, 2024"));

        assert_eq!(review.rejected[0].reason, RejectionReason::ValueNotInQuote);
    }

    #[test]
    fn llm_proposal_value_is_compared_ignoring_case_and_whitespace() {
        let review =
            single(AGREEMENT, Proposal::new("/agent", "first bank,N.A.", "FIRST BANK, N.A., as Administrative Agent"));

        assert_eq!(review.accepted.len(), 1, "{review:?}");
    }

    #[test]
    fn llm_proposal_whitespace_tolerance_does_not_join_or_split_words() {
        assert_eq!(locate_quote("the reof", "thereof"), None);
        assert_eq!(locate_quote("thereof", "the reof"), None);
        assert_eq!(locate_quote("a\u{a0}\tb", "a b"), Some(0.."a\u{a0}\tb".len()));
    }

    #[test]
    fn llm_proposals_are_checked_for_field_value_and_quote() {
        let reasons: Vec<_> = review_proposals(
            AGREEMENT,
            [
                Proposal::new("agreementDate", "March 15, 2024", "March 15, 2024"),
                Proposal::new("/bad~2escape", "March 15, 2024", "March 15, 2024"),
                Proposal::new("/agreementDate", "  ", "March 15, 2024"),
                Proposal::new("/agreementDate", "March 15, 2024", " \n"),
            ],
        )
        .rejected
        .into_iter()
        .map(|rejected| rejected.reason)
        .collect();

        assert_eq!(
            reasons,
            [
                RejectionReason::InvalidField,
                RejectionReason::InvalidField,
                RejectionReason::EmptyValue,
                RejectionReason::EmptyQuote
            ]
        );
    }

    #[test]
    fn llm_proposals_first_located_value_of_a_field_wins() {
        let review = review_proposals(
            AGREEMENT,
            [
                Proposal::new("/agent", "Second Bank", "SECOND BANK"),
                Proposal::new("/agent", "FIRST BANK, N.A.", "FIRST BANK, N.A."),
                Proposal::new("/agent", "ACME", "ACME HOLDINGS"),
            ],
        );

        assert_eq!(review.accepted.len(), 1);
        assert_eq!(review.accepted[0].value, "FIRST BANK, N.A.");
        let reasons: Vec<_> = review.rejected.iter().map(|rejected| rejected.reason).collect();
        assert_eq!(reasons, [RejectionReason::QuoteNotFound, RejectionReason::DuplicateField]);
    }

    #[test]
    fn llm_proposals_in_a_chunk_are_located_there_with_document_offsets() {
        let text = "Section 1.01 Borrower: Alpha.\n\nSection 1.02 Borrower: Beta.\n";
        let second = text.find("Section 1.02").expect("heading");

        let review = review_proposals_in(
            text,
            second..text.len(),
            [Proposal::new("/borrower", "Beta", "Borrower: Beta"), Proposal::new("/agent", "Alpha", "Borrower: Alpha")],
        );

        assert_eq!(review.accepted.len(), 1);
        assert_eq!(&text[review.accepted[0].span()], "Borrower: Beta");
        assert!(review.accepted[0].start > second);
        assert_eq!(review.rejected[0].reason, RejectionReason::QuoteNotFound, "outside the chunk");
        let invalid = review_proposals_in(text, 0..text.len() + 1, [Proposal::new("/b", "Beta", "Beta")]);
        assert_eq!(invalid.rejected[0].reason, RejectionReason::QuoteNotFound);
    }

    #[test]
    fn llm_chunks_end_before_article_and_section_headings() {
        let text = "ARTICLE I\nDEFINITIONS\nSection 1.01 Defined Terms. As used herein.\n\n\
                    Section 1.02 Other Terms. Lorem ipsum dolor.\nARTICLE II\nTHE CREDITS\n\
                    Section 2.01 Commitments. Each Lender agrees.\n";

        let chunks = chunk_by_sections(text, 90);

        let section_1_02 = text.find("Section 1.02").expect("heading");
        let section_2_01 = text.find("Section 2.01").expect("heading");
        assert_eq!(chunks, vec![0..section_1_02, section_1_02..section_2_01, section_2_01..text.len()]);
    }

    #[test]
    fn llm_chunks_prefer_a_heading_to_a_later_paragraph_break() {
        let clauses = "Clause 1 Alpha alpha.\nClause 2 Beta beta beta.\n\nMore beta text here.\n\nEnd of it all.";
        assert_eq!(chunk_by_sections(clauses, 60)[0], 0..22);
        let numbered = "1. Definitions\nterms terms terms\n2.01 The Loans\nloans loans loans loans";
        assert_eq!(chunk_by_sections(numbered, 50)[0], 0..33);
    }

    #[test]
    fn llm_headings_are_recognised_only_at_line_starts_with_a_number() {
        for heading in [
            "ARTICLE XI",
            "Article 5",
            "  Section 5.02 Fees",
            "SECTION 3",
            "Clause 12",
            "Exhibit B",
            "§ 4",
            "1. Definitions",
            "10.1 Governing Law",
        ] {
            assert!(HEADING.is_match(&format!("text\n{heading}\nmore")), "{heading}");
        }
        for prose in
            ["2024 was a year", "Section hereof", "Part Inc.", "as set out in Section 2.01", "1.5 million dollars"]
        {
            assert!(!HEADING.is_match(&format!("text\n{prose}\nmore")), "{prose}");
        }
    }

    #[test]
    fn llm_chunks_fall_back_to_paragraphs_then_words_then_characters() {
        let paragraphs = "aaaa aaaa aaaa\n\nbbbb bbbb bbbb\n\ncccc";
        assert_eq!(chunk_by_sections(paragraphs, 18), vec![0..16, 16..32, 32..36]);
        let words = "alpha beta gamma delta";
        assert_eq!(chunk_by_sections(words, 12), vec![0..11, 11..22]);
        let unbroken = "ééééé";
        assert_eq!(chunk_by_sections(unbroken, 3), vec![0..2, 2..4, 4..6, 6..8, 8..10]);
        assert_eq!(chunk_by_sections("日本", 1), vec![0..3, 3..6], "a character wider than the limit stays whole");
        assert!(chunk_by_sections("", 10).is_empty());
        assert_eq!(chunk_by_sections("short", 100), vec![0..5]);
    }

    #[test]
    fn llm_chunks_do_not_shrink_to_an_early_heading() {
        let text = format!("Section 1 Intro\nSection 2 {}\n\n{}", "x ".repeat(40), "y".repeat(50));

        let chunks = chunk_by_sections(&text, 100);

        assert!(chunks[0].end > 16, "{chunks:?}");
    }

    #[test]
    fn llm_proposal_schema_lists_every_field_strictly() {
        let schema = proposal_schema(&["/agreementDate", "/borrower", "/agreementDate"]);

        assert_eq!(schema["required"], json!(["/agreementDate", "/borrower"]));
        assert_eq!(schema["additionalProperties"], json!(false));
        let entry = &schema["properties"]["/borrower"];
        assert_eq!(entry["required"], json!(["value", "quote"]));
        assert_eq!(entry["properties"]["quote"]["type"], json!(["string", "null"]));
        assert_eq!(entry["additionalProperties"], json!(false));
    }

    #[test]
    fn llm_proposals_are_read_leniently_from_the_answer() {
        let answer = json!({
            "/agreementDate": {"value": "March 15, 2024", "quote": "dated as of March 15, 2024"},
            "/amount": {"value": 250, "quote": null},
            "/agent": {"value": null, "quote": null},
            "/borrower": "ACME",
            "/lenders": null
        });

        let mut proposals = proposals_from_answer(&answer).expect("object");
        proposals.sort_by(|a, b| a.field.cmp(&b.field));

        assert_eq!(
            proposals,
            vec![
                Proposal::new("/agreementDate", "March 15, 2024", "dated as of March 15, 2024"),
                Proposal::new("/amount", "250", ""),
                Proposal::new("/borrower", "ACME", ""),
            ]
        );
        assert_eq!(proposals_from_answer(&json!([1])), Err(ProposalAnswerError("array")));
    }

    fn assert_exact_cover(text: &str, chunks: &[Range<usize>], max_bytes: usize) {
        let mut expected_start = 0;
        for chunk in chunks {
            assert_eq!(chunk.start, expected_start, "no gap, no overlap");
            assert!(chunk.end > chunk.start, "no empty chunk");
            let piece = text.get(chunk.clone()).expect("char boundaries");
            assert!(piece.len() <= max_bytes.max(piece.chars().next().map_or(1, char::len_utf8)));
            expected_start = chunk.end;
        }
        assert_eq!(expected_start, text.len(), "the whole text");
    }

    fn document_text() -> impl Strategy<Value = String> {
        let fragment = prop_oneof![
            Just("ARTICLE IV\n".to_owned()),
            Just("Section 2.01 ".to_owned()),
            Just("1. Definitions\n".to_owned()),
            Just("\n\n".to_owned()),
            Just("\r\n".to_owned()),
            Just(" ".to_owned()),
            "[a-zé日 ]{1,12}",
            any::<String>(),
        ];
        prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn llm_chunks_cover_arbitrary_text_exactly(text in any::<String>(), max_bytes in 0usize..64) {
            assert_exact_cover(&text, &chunk_by_sections(&text, max_bytes), max_bytes);
        }

        #[test]
        fn llm_chunks_cover_document_like_text_exactly(text in document_text(), max_bytes in 1usize..120) {
            assert_exact_cover(&text, &chunk_by_sections(&text, max_bytes), max_bytes);
        }

        #[test]
        fn llm_accepted_spans_always_quote_the_text(
            text in document_text(),
            picks in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<bool>()), 0..6),
            invented in prop::collection::vec(any::<String>(), 0..3),
        ) {
            let boundaries: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
            let mut proposals: Vec<Proposal> = picks
                .iter()
                .map(|(a, b, respace)| {
                    let (x, y) = (a.get(&boundaries), b.get(&boundaries));
                    let quote = &text[*x.min(y)..*x.max(y)];
                    let quote = if *respace { quote.split_whitespace().collect::<Vec<_>>().join("  ") } else { quote.to_owned() };
                    let value = quote.split_whitespace().last().unwrap_or("").to_owned();
                    Proposal::new("/field", value, quote)
                })
                .collect();
            proposals.extend(invented.into_iter().map(|quote| Proposal::new("/other", quote.clone(), quote)));

            let review = review_proposals(&text, proposals.clone());

            prop_assert_eq!(review.accepted.len() + review.rejected.len(), proposals.len());
            for accepted in &review.accepted {
                prop_assert_eq!(text.get(accepted.span()), Some(accepted.quote.as_str()));
                prop_assert!(comparable(&accepted.quote).contains(&comparable(&accepted.value)));
            }
        }
    }
}
