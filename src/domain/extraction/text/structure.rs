//! The one-pass index of a document's structure: its definitions (`"Maturity Date" means …`),
//! term-sheet labels (`Borrower: …`) and top-level headings, in text order.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::matching::pattern;
use super::spans::{floor_boundary, lines_in, slice, trim_range};

/// A defined term and the body that defines it: `"Maturity Date" means March 15, 2029.`
#[derive(Clone, Debug)]
pub(crate) struct Definition {
    /// The term without its quotes.
    pub term: Range<usize>,
    /// The term in lower case with single spaces, for matching.
    pub key: String,
    /// From after `means` to the next definition or heading.
    pub body: Range<usize>,
}

/// A `Label: value` line of a term sheet; the value runs on to continuation lines.
#[derive(Clone, Debug)]
pub(crate) struct Label {
    /// The label without its colon.
    pub name: Range<usize>,
    /// The name in lower case with single spaces, for matching.
    pub key: String,
    /// The value, trimmed.
    pub value: Range<usize>,
}

/// A line opening a definition: `"Maturity Date" means …` (or, as bank loan and security
/// agreements define, `"Revolving Line" is …`), and the form an amendment restates a definition
/// in, the term in single quotes inside the double quotes that open the restated text
/// (`"'Final Maturity Date' means …"`).
static DEFINITION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"^[ \t]*(?:\([a-zA-Z0-9]{1,4}\)[ \t]*(?:\|[ \t]*)?)?["“]{1,2}(?:['‘](?P<restated>[^'’"”]{1,120})['’]|(?P<term>[^"“”]{1,120})["”]{1,2})[ \t]*(?:\([^)]{0,80}\)[ \t]*)?(?:,?[ \t]*(?:with[ \t]+respect[ \t]+to|in[ \t]+relation[ \t]+to|as[ \t]+to|for)\b[^.;:"”\n]{0,60}?,?[ \t]+)?(?:(?:means|shall mean|has the meaning|(?P<is>is))\b[ \t]*:?|:[ \t])"#,
    )
});

/// A definition opening inside a line, two or more spaces after the end of a sentence, a clause or
/// a number (`… such adjustments.  "Adjusted Term Rate" means …`, `… v.15  "Agent Fee Letter" means
/// …`): how a text copy of a page-image filing runs, each page's text one paragraph.
static INLINE_DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?:[.;:)]|[0-9])[ \t]{2,24}["“](?P<term>[^"“”\n]{1,120})["”][ \t]*(?:\([^)\n]{0,80}\)[ \t]*)?(?:means|shall[ \t]+mean|has[ \t]+the[ \t]+meaning|is[ \t]+defined)\b[ \t]*:?"#,
    )
});

/// The definitions that open inside a line after `from` (relative to the line), in order, when two
/// or more open in it: a page's definitions run together (`… Subsidiaries.  "Maturity Date" means
/// …  "Note" means …`). One alone in a long paragraph (a definition an amendment quotes in its
/// text, one a covenant gives in passing) is left to the readers of the text around it. Each ends
/// with its line at the latest.
fn inline_definitions(content: &str, line_start: usize, from: usize, out: &mut Vec<DefinitionStart>) {
    if !(content.contains("mean") || content.contains("defined")) {
        return;
    }
    let Some(rest) = content.get(from..) else { return };
    let mut found = Vec::new();
    for c in INLINE_DEFINITION.captures_iter(rest) {
        let (Some(whole), Some(term)) = (c.get(0), c.name("term")) else { continue };
        let open = term.start() - rest[..term.start()].chars().next_back().map_or(1, char::len_utf8);
        found.push(DefinitionStart {
            line: line_start + from + open,
            term: line_start + from + term.start()..line_start + from + term.end(),
            body: line_start + from + whole.end(),
            restated: false,
            ends_by: Some(line_start + content.len()),
        });
    }
    if found.len() >= 2 {
        out.extend(found);
    }
}

/// Whether the words after `"Term" is` say what happens to the term rather than what it is:
/// `"Maturity Date" is deleted and replaced with …`, `"Lender" is hereby amended …`.
fn changes_rather_than_defines(rest: &str) -> bool {
    let first = rest.trim_start().split(|c: char| !c.is_alphabetic()).next().unwrap_or_default().to_ascii_lowercase();
    matches!(
        first.as_str(),
        "hereby"
            | "deleted"
            | "amended"
            | "replaced"
            | "restated"
            | "modified"
            | "added"
            | "inserted"
            | "not"
            | "being"
            | "to"
            | "further"
            | "also"
            | "used"
            | "intended"
            | "renamed"
            | "removed"
            | "revised"
            | "supplemented"
    )
}

static HEADING_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[ \t]*(?:ARTICLE\b|Article[ \t]+[0-9IVXL]+\b|SECTION[ \t]+[0-9]|Section[ \t]+[0-9]+\.[0-9]+|SCHEDULE\b|Schedule[ \t]+[0-9]+[ \t]*$|[0-9]{1,2}\.[ \t]+[A-Z])",
    )
});

/// A term defined in passing by a parenthetical: `(the "Maturity Date")`.
pub(crate) static INLINE_TERM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"\([ \t\r\n]*(?:the[ \t\r\n]+)?["“](?P<term>[^"”()]{1,60})["”][ \t\r\n]*\)"#));

/// Where a definition line opens a definition, found while scanning.
struct DefinitionStart {
    /// The start of the line.
    line: usize,
    term: Range<usize>,
    /// Just after `means`.
    body: usize,
    /// Restated inside an amendment's quotes (`"'Term' means …"`).
    restated: bool,
    /// Where the body ends at the latest: the end of the line a definition opened inside.
    ends_by: Option<usize>,
}

/// The longest a definition body may run when no later definition or heading ends it.
const MAX_DEFINITION: usize = 6000;
/// The longest a label value may run onto continuation lines.
const MAX_LABEL: usize = 1500;

/// The one-pass index of a document's structure: definitions, labels and top-level headings,
/// in text order.
#[derive(Debug)]
pub(crate) struct Structure {
    pub definitions: Vec<Definition>,
    pub labels: Vec<Label>,
    pub headings: Vec<usize>,
}

impl Structure {
    /// Reads the text line by line. Only lines whose first character could open a definition, a
    /// heading or a label are matched against the (line-anchored) patterns, which keeps the pass
    /// close to the speed of finding the line ends.
    pub(crate) fn scan(text: &str) -> Self {
        let mut headings = Vec::new();
        let mut definition_starts: Vec<DefinitionStart> = Vec::new();
        let mut label_lines: Vec<(Range<usize>, Range<usize>, usize)> = Vec::new();
        for line in lines_in(text, 0..text.len()) {
            let content = slice(text, line.clone());
            let indent = content.len() - content.trim_start_matches([' ', '\t']).len();
            let Some(first) = content.as_bytes().get(indent).copied() else { continue };
            if matches!(first, b'"' | b'(' | 0xE2)
                && let Some(c) = DEFINITION_LINE.captures(content)
                && let Some(whole) = c.get(0)
                && let Some((term, restated)) =
                    c.name("term").map(|t| (t, false)).or_else(|| c.name("restated").map(|t| (t, true)))
                && (c.name("is").is_none() || !changes_rather_than_defines(&content[whole.end()..]))
            {
                definition_starts.push(DefinitionStart {
                    line: line.start,
                    term: line.start + term.start()..line.start + term.end(),
                    body: line.start + whole.end(),
                    restated,
                    ends_by: None,
                });
                inline_definitions(content, line.start, whole.end(), &mut definition_starts);
                continue;
            }
            inline_definitions(content, line.start, 0, &mut definition_starts);
            if (first.is_ascii_digit() || matches!(first, b'A' | b'S')) && HEADING_LINE.is_match(content) {
                headings.push(line.start + indent);
            }
            if first.is_ascii_uppercase()
                && let Some((name, value_start)) = label_parts(content, indent)
            {
                label_lines.push((
                    line.clone(),
                    line.start + name.start..line.start + name.end,
                    line.start + value_start,
                ));
            }
        }
        let mut definitions = Vec::with_capacity(definition_starts.len());
        for (index, start) in definition_starts.iter().enumerate() {
            let body_start = start.body;
            let next_definition = definition_starts.get(index + 1).map_or(text.len(), |next| next.line);
            let next_heading = next_after(&headings, body_start).unwrap_or(text.len());
            let mut end = next_definition.min(next_heading).min(body_start.saturating_add(MAX_DEFINITION));
            if let Some(line_end) = start.ends_by {
                end = end.min(line_end);
            }
            end = floor_boundary(text, end).max(body_start);
            if start.restated {
                // The restated text ends where the double quotes opened before the term close;
                // what follows is the amendment's own text ("… 0% per annum." (b) Section 2.1 …).
                if let Some(close) = slice(text, body_start..end).find(['"', '”']) {
                    end = body_start + close;
                }
            }
            let key = normalise_label(slice(text, start.term.clone()));
            definitions.push(Definition { term: start.term.clone(), key, body: trim_range(text, body_start..end) });
        }
        let mut labels = Vec::with_capacity(label_lines.len());
        for (index, (line, name, value_start)) in label_lines.iter().enumerate() {
            let next_label = label_lines.get(index + 1).map_or(text.len(), |(next, _, _)| next.start);
            let limit = floor_boundary(text, value_start.saturating_add(MAX_LABEL)).max(line.end);
            let blank_line = slice(text, line.end..limit).find("\n\n").map_or(limit, |i| line.end + i);
            let end = next_label.min(blank_line).min(limit);
            let end = floor_boundary(text, end).max(*value_start);
            let key = normalise_label(slice(text, name.clone()));
            labels.push(Label { name: name.clone(), key, value: trim_range(text, *value_start..end) });
        }
        Self { definitions, labels, headings }
    }

    /// The definition whose body contains `pos`.
    pub(crate) fn definition_at(&self, pos: usize) -> Option<&Definition> {
        let index = self.definitions.partition_point(|d| d.body.start <= pos);
        let candidate = self.definitions.get(index.checked_sub(1)?)?;
        (candidate.body.start <= pos && pos < candidate.body.end).then_some(candidate)
    }

    /// The label whose value contains `pos`.
    pub(crate) fn label_at(&self, pos: usize) -> Option<&Label> {
        let index = self.labels.partition_point(|l| l.value.start <= pos);
        let candidate = self.labels.get(index.checked_sub(1)?)?;
        (candidate.value.start <= pos && pos < candidate.value.end).then_some(candidate)
    }

    /// Definitions whose normalised term (lower case, single spaces) satisfies `accept`.
    pub(crate) fn definitions_where<'s>(
        &'s self,
        accept: impl Fn(&str) -> bool + 's,
    ) -> impl Iterator<Item = &'s Definition> + 's {
        self.definitions.iter().filter(move |d| accept(&d.key))
    }

    /// Labels whose normalised name (lower case, single spaces) satisfies `accept`.
    pub(crate) fn labels_where<'s>(
        &'s self,
        accept: impl Fn(&str) -> bool + 's,
    ) -> impl Iterator<Item = &'s Label> + 's {
        self.labels.iter().filter(move |l| accept(&l.key))
    }

    /// The first heading after `pos`.
    pub(crate) fn next_heading_after(&self, pos: usize) -> Option<usize> {
        next_after(&self.headings, pos)
    }
}

/// `Label: value` on one line: the label's range and where the value starts, both relative to the
/// line. A label is 2 to 60 characters of words and simple punctuation starting with a capital.
fn label_parts(line: &str, indent: usize) -> Option<(Range<usize>, usize)> {
    let head = line.get(indent..line.len().min(indent + 64))?;
    let colon = head.find(':')?;
    let name = head.get(..colon)?.trim_end_matches([' ', '\t']);
    let well_formed = name.len() >= 2
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || " /&'’().,-".contains(c));
    if !well_formed {
        return None;
    }
    let after_colon = indent + colon + 1;
    let rest = line.get(after_colon..)?;
    let value_offset = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest.trim().is_empty() {
        return None;
    }
    Some((indent..indent + name.len(), after_colon + value_offset))
}

fn next_after(sorted: &[usize], pos: usize) -> Option<usize> {
    let index = sorted.partition_point(|&p| p <= pos);
    sorted.get(index).copied()
}

/// A label name in lower case with single spaces, for matching.
pub(crate) fn normalise_label(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_opening_inside_a_page_long_paragraph_are_definitions() {
        let filler = "The Lender and the Borrower agree to the terms set out below in this page. ".repeat(14);
        let text = format!(
            "  12  Draft 7  \u{201c}Base Spread\u{201d} means two percent (2.00%).  {filler} \u{201c}Expiry Date\u{201d} means June 30, 2031.  \u{201c}Lender Letter\u{201d} is defined in Section 2.5.  The Lender says \u{201c}hello\u{201d} means well.\n\nA short line. \u{201c}Quiet Term\u{201d} means nothing here.\n"
        );
        let structure = Structure::scan(&text);
        let found: Vec<(&str, &str)> =
            structure.definitions.iter().map(|d| (&text[d.term.clone()], &text[d.body.clone()])).collect();
        assert_eq!(
            found.iter().map(|(term, _)| *term).collect::<Vec<_>>(),
            ["Base Spread", "Expiry Date", "Lender Letter"],
            "{found:?}"
        );
        assert!(found[0].1.starts_with("two percent (2.00%).") && found[0].1.ends_with("in this page."), "{found:?}");
        assert_eq!(found[1].1, "June 30, 2031.");

        // One opening alone in a long paragraph, or openings after a single space, are left alone.
        let alone =
            format!("{filler}Section 1.3 is amended:  \u{201c}Quiet Term\u{201d} means nothing here. {filler}\n");
        assert!(Structure::scan(&alone).definitions.is_empty());
        let single = format!("{filler}It ends. \u{201c}One\u{201d} means one. \u{201c}Two\u{201d} means two.\n");
        assert!(Structure::scan(&single).definitions.is_empty());

        // A short page end whose definitions run together: two openings make them definitions.
        let text =
            "  40  Draft 7  \u{201c}Note\u{201d} means a note.  \u{201c}Payoff Date\u{201d} means May 1, 2030.\n";
        let terms: Vec<String> =
            Structure::scan(text).definitions.iter().map(|d| text[d.term.clone()].to_owned()).collect();
        assert_eq!(terms, ["Note", "Payoff Date"]);
    }

    #[test]
    fn definitions_run_to_the_next_definition() {
        let text = "\"Floor\" means 0.00%.\n\n\"Maturity Date\" means March 15, 2029.\n";
        let structure = Structure::scan(text);
        let bodies: Vec<&str> = structure.definitions.iter().map(|d| &text[d.body.clone()]).collect();
        assert_eq!(bodies, ["0.00%.", "March 15, 2029."]);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Floor", "Maturity Date"]);
    }

    #[test]
    fn a_term_a_loan_and_security_agreement_defines_with_is_is_defined_but_not_one_an_amendment_changes() {
        let text = "\u{201c}Revolving Line\u{201d} is an aggregate principal amount of up to $15,000,000.\n\n\u{201c}Closing Date\u{201d} is defined in the preamble hereof.\n\n(c) The date \"June 1, 2024\" in the definition of\n\"Maturity Date\" is deleted and replaced with \"June 1, 2026\".\n\n\"Borrower\" is hereby amended to include Acme West LLC.\n";
        let structure = Structure::scan(text);
        let bodies: Vec<(&str, &str)> =
            structure.definitions.iter().map(|d| (&text[d.term.clone()], &text[d.body.clone()])).collect();
        assert_eq!(
            bodies.iter().map(|(term, _)| *term).collect::<Vec<_>>(),
            ["Revolving Line", "Closing Date"],
            "{bodies:?}"
        );
        assert!(bodies[0].1.starts_with("an aggregate principal amount of up to $15,000,000."), "{bodies:?}");
    }

    #[test]
    fn a_term_qualified_before_its_means_is_defined() {
        let text = "\u{201c}Overnight Rate\u{201d} with respect to any day means the rate published for that day.\n\n\u{201c}Eurodollar Rate\u{201d} for any Interest Period means the offered rate.\n\n\u{201c}Lender\u{201d} shall include its successors. The Agent means well.\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Overnight Rate", "Eurodollar Rate"]);
        // A conformed copy that doubles the quotes of a definition it inserts still defines it.
        let doubled = "\"\u{201c}Forward Rate\"\u{201d}: the rate for the tenor.\n";
        let terms: Vec<String> =
            Structure::scan(doubled).definitions.iter().map(|d| doubled[d.term.clone()].to_owned()).collect();
        assert_eq!(terms, ["Forward Rate"]);
        assert!(text[structure.definitions[0].body.clone()].starts_with("the rate published"));
    }

    #[test]
    fn a_term_followed_by_a_colon_is_defined_as_in_some_us_forms() {
        let text = "\u{201c}Applicable Margin\u{201d}: with respect to each Loan, 1.00%.\n\n\u{201c}Maturity Date\u{201d}: (i) March 1, 2027 or (ii) such later date.\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Applicable Margin", "Maturity Date"]);
        assert!(text[structure.definitions[1].body.clone()].starts_with("(i) March 1, 2027"));
    }

    #[test]
    fn an_amendment_restating_a_definition_in_nested_quotes_defines_the_term() {
        let text = "(c) \"Termination Date\" shall be amended to read as follows:\n\n     \"'Termination Date' shall mean \
            June 30, 2001; provided that the Borrower may request an extension.\"\n\n(d) Section 2.4 is amended by \
            deleting \"May 1, 1999\".\n\n     \u{201c}\u{2018}Revolving Margin\u{2019} means 0.50%.\u{201d}\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Termination Date", "Revolving Margin"]);
        assert_eq!(
            &text[structure.definitions[0].body.clone()],
            "June 30, 2001; provided that the Borrower may request an extension.",
            "the restated text ends with its closing quote, not with the amendment's next instruction"
        );
        assert_eq!(&text[structure.definitions[1].body.clone()], "0.50%.");
    }

    #[test]
    fn a_definition_in_a_lettered_table_row_is_a_definition() {
        let text = "(d) | \u{201c}Issue Date\u{201d} shall mean June 1, 2023.\n(e) | \u{201c}Maturity Date\u{201d} shall mean June 1, 2025.\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Issue Date", "Maturity Date"]);
    }

    #[test]
    fn a_definition_in_a_glossary_lettered_in_capitals_is_a_definition() {
        // A section's own glossary, its items lettered (A), (B), … and set close to the term.
        let text = "(v) As used in this Section:\n(K)\u{201c}Index Rate\u{201d} with respect to any day means the rate published.\n(L)\u{201c}Forward Rate\u{201d} means the term rate.\n";
        let structure = Structure::scan(text);
        let terms: Vec<&str> = structure.definitions.iter().map(|d| &text[d.term.clone()]).collect();
        assert_eq!(terms, ["Index Rate", "Forward Rate"]);
    }

    #[test]
    fn labels_carry_their_continuation_lines() {
        let text = "Borrower: Zenith Logistics Corp.\nFacility: A senior secured\n  bridge facility.\n\nOther text";
        let structure = Structure::scan(text);
        let values: Vec<&str> = structure.labels.iter().map(|l| &text[l.value.clone()]).collect();
        assert_eq!(values, ["Zenith Logistics Corp.", "A senior secured\n  bridge facility."]);
    }
}
