//! The research summary: what the sources say about the person, quoted with `[n]` citations, or
//! plainly "No reliable information found about …" when no source names them; and the question the
//! research machinery plans from.
//!
//! # Which text counts as being about the person
//!
//! A source is about the person when one of its sentences names them, by the matching rules of
//! [`crate::domain::people::character`] (full name with optional middle names or initials, or the
//! surname when no other first name or firm word comes with it), or starts with a pronoun right
//! after such a sentence. Only those sentences make the summary, and only from the passages the
//! identity rule ([`crate::domain::people::identity`]) kept: text about a namesake is set aside and
//! counted, never quoted; when the name is ambiguous the summary is the question which person is
//! meant.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use super::identity::{IdentitySorting, IdentityStatus};
use super::text::{compile, cut, normalise, word_count};
use crate::domain::people::{CharacterAssessment, assess_character};
use crate::domain::research::ResearchState;
use crate::domain::research::service::Investigation;
use crate::domain::research::text::split_sentences;

/// Statements quoted in the summary at most.
const MAX_SUMMARY_STATEMENTS: usize = 10;
/// A statement longer than this is cut (at a word) in the summary.
const MAX_STATEMENT_CHARS: usize = 400;
/// A "sentence" shorter than this is a heading or a caption.
const MIN_STATEMENT_WORDS: usize = 4;

/// Sentences continuing about the person named in the sentence before.
static LEADING_PRONOUN: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*(?:He|She|They|His|Her|Their)\b"));

/// The question the research machinery plans from: who the person is (with the context, to tell
/// namesakes apart) and, as a second part, the adverse-media words, so that the planned queries are
/// "Jane Doe Acme Corp", "Jane Doe fraud lawsuit bankruptcy sanctions", "… recent developments",
/// "… biography". Characters that would split the question differently are removed from the input.
pub(super) fn research_question(person_name: &str, context: Option<&str>) -> String {
    let name = plain(person_name);
    let subject = match context.map(plain).filter(|context| !context.is_empty()) {
        Some(context) => format!("{name}, {context}"),
        None => name.clone(),
    };
    format!("Who is {subject}? {name} fraud lawsuit bankruptcy sanctions")
}

fn plain(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if matches!(c, '?' | '!' | ';' | '"' | '“' | '”') || c.is_control() { ' ' } else { c })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ").trim_end_matches(['.', ',', ':']).to_owned()
}

/// The sentences about the person, each with the source number `n` of its passage: those that name
/// them and those that continue with a pronoun right after one that did.
fn sentences_about(person: &str, passages: &[(&str, usize)]) -> Vec<(String, usize)> {
    let mut sentences: Vec<(&str, usize)> = Vec::new();
    let mut passage_of: Vec<usize> = Vec::new();
    for (p, (text, _)) in passages.iter().enumerate() {
        for sentence in split_sentences(text) {
            sentences.push((sentence, sentences.len()));
            passage_of.push(p);
        }
    }
    // Each sentence is its own "source" here, so the assessment says which sentences name them.
    let naming: BTreeSet<usize> =
        assess_character(person, &sentences).sources_mentioning_person().iter().copied().collect();
    let mut about = Vec::new();
    let mut previous_about = false;
    for (i, (sentence, _)) in sentences.iter().enumerate() {
        let continues =
            previous_about && i > 0 && passage_of[i - 1] == passage_of[i] && LEADING_PRONOUN.is_match(sentence);
        previous_about = naming.contains(&i) || continues;
        if previous_about {
            about.push(((*sentence).to_owned(), passages[passage_of[i]].1));
        }
    }
    about
}

/// `{text, found, sources, statistics}`; see the module documentation. `passages` are those the
/// identity rule kept ([`IdentitySorting::kept`]); each source says how it was matched
/// (`identity_match`).
pub(super) fn research_summary(
    person: &str,
    investigation: &Investigation,
    passages: &[(&str, usize)],
    character: &CharacterAssessment,
    sorting: &IdentitySorting,
) -> Value {
    let state = &investigation.state;
    let mentioning: BTreeSet<usize> = character.sources_mentioning_person().iter().copied().collect();
    let found = !mentioning.is_empty();
    let mut text = if sorting.status == IdentityStatus::Ambiguous {
        sorting.message(person)
    } else if found {
        found_text(person, state.sources().len(), &mentioning, &summary_statements(person, passages, character))
    } else if !sorting.set_aside.is_empty() {
        format!(
            "No reliable information found about {person} ({}): the sources that name someone of that name describe a different person, and were set aside (see identity.set_aside). Nothing is said about them beyond this; no profile is inferred from a name.",
            sorting.identity.in_words()
        )
    } else {
        no_information_text(person, state)
    };
    if found && !sorting.set_aside.is_empty() {
        text.push_str(&format!(
            " {} passage(s) about a different person named {person} were set aside and are not quoted (see identity.set_aside).",
            sorting.set_aside.len()
        ));
    }
    let sources: Vec<Value> = state
        .sources()
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let mut entry = serde_json::to_value(source).unwrap_or_else(|_| json!({}));
            if let Some(object) = entry.as_object_mut() {
                object.insert("n".into(), json!(i + 1));
                object.insert("mentions_person".into(), json!(mentioning.contains(&(i + 1))));
                object.insert("identity_match".into(), json!(sorting.source_match(i + 1)));
            }
            entry
        })
        .collect();
    json!({ "text": text, "found": found, "sources": sources, "statistics": statistics(investigation, &mentioning) })
}

/// The statements to quote, most telling first (adverse, mitigating, positive, then the other
/// sentences about the person in source order), each with the sources that say it.
fn summary_statements(
    person: &str,
    passages: &[(&str, usize)],
    character: &CharacterAssessment,
) -> Vec<(String, BTreeSet<usize>)> {
    let findings = character.adverse_findings().iter().chain(character.mitigating_findings());
    let candidates = findings
        .map(|finding| (finding.statement.clone(), finding.source_index))
        .chain(character.positive_signals().iter().map(|signal| (signal.statement.clone(), signal.source_index)))
        .chain(sentences_about(person, passages));
    let mut statements: Vec<(String, BTreeSet<usize>)> = Vec::new();
    for (statement, n) in candidates {
        let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
        if word_count(&statement) < MIN_STATEMENT_WORDS {
            continue;
        }
        let key = normalise(&statement);
        match statements.iter_mut().find(|(seen, _)| normalise(seen) == key) {
            Some((_, sources)) => {
                sources.insert(n);
            }
            None => statements.push((statement, BTreeSet::from([n]))),
        }
    }
    statements
}

fn found_text(
    person: &str,
    source_count: usize,
    mentioning: &BTreeSet<usize>,
    statements: &[(String, BTreeSet<usize>)],
) -> String {
    let named_in = format!(
        "{person} is named in {} of the {source_count} sources consulted ({}).",
        mentioning.len(),
        citations(mentioning)
    );
    if statements.is_empty() {
        return format!("{named_in} No complete statement about them could be quoted from those sources.");
    }
    let quoted: Vec<String> = statements
        .iter()
        .take(MAX_SUMMARY_STATEMENTS)
        .map(|(statement, sources)| format!("{} {}", cut(statement, MAX_STATEMENT_CHARS), citations(sources)))
        .collect();
    let mut text = format!("{named_in} What the sources say, quoted as found: {}", quoted.join(" "));
    if statements.len() > MAX_SUMMARY_STATEMENTS {
        text.push_str(&format!(
            " ({} further statements about them are in the sources.)",
            statements.len() - MAX_SUMMARY_STATEMENTS
        ));
    }
    text.push_str(" These statements are not verified and may concern a namesake; check each against its source.");
    text
}

/// "No reliable information found about <name>" and why: nothing could be read, or nothing read
/// names them.
fn no_information_text(person: &str, state: &ResearchState) -> String {
    let errors = state.provider_errors();
    let mut failures: Vec<String> =
        errors.iter().map(|error| format!("{}: {}", error.provider, error.message)).collect();
    failures.dedup();
    failures.truncate(5);
    let why = match (state.sources().len(), failures.is_empty()) {
        (0, true) => {
            "the searches returned nothing that could be read and none of your stored documents matched".to_owned()
        }
        (0, false) => format!(
            "no source could be read (the search providers failed: {}) and none of your stored documents matched",
            failures.join("; ")
        ),
        (count, true) => format!("none of the {count} sources consulted names them"),
        (count, false) => format!(
            "none of the {count} sources consulted names them, and some providers failed ({})",
            failures.join("; ")
        ),
    };
    format!(
        "No reliable information found about {person}: {why}. Nothing is said about them beyond this; no profile is inferred from a name."
    )
}

fn statistics(investigation: &Investigation, mentioning: &BTreeSet<usize>) -> Value {
    let state = &investigation.state;
    let mut statistics = serde_json::to_value(state.statistics()).unwrap_or_else(|_| json!({}));
    if let Some(object) = statistics.as_object_mut() {
        object.insert("sources_mentioning_person".into(), json!(mentioning.len()));
        object.insert("passages_read".into(), json!(investigation.passages.len()));
        object.insert("queries_issued".into(), json!(state.queries_issued()));
        object.insert("stopped_by_time_budget".into(), json!(investigation.stopped_by_time_budget));
        object.insert("time_taken_seconds".into(), json!(investigation.elapsed.as_secs_f64()));
    }
    statistics
}

fn citations(sources: &BTreeSet<usize>) -> String {
    sources.iter().map(|n| format!("[{n}]")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_research_question_asks_who_the_person_is_and_about_adverse_media() {
        assert_eq!(
            research_question("Jane Doe", Some("Acme Corp.")),
            "Who is Jane Doe, Acme Corp? Jane Doe fraud lawsuit bankruptcy sanctions"
        );
        assert_eq!(
            research_question("Jane \"JD\" Doe?", None),
            "Who is Jane JD Doe? Jane JD Doe fraud lawsuit bankruptcy sanctions"
        );
        let state = ResearchState::new(&research_question("Jane Doe", Some("Acme Corp")), 2);
        assert_eq!(
            state.queries_for_iteration()[..2],
            ["Jane Doe Acme Corp", "Jane Doe fraud lawsuit bankruptcy sanctions"]
        );
    }
}
