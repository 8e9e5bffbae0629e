//! The answer to a research question, built from the knowledge items alone (extractive: every
//! sentence is quoted from a source and followed by its `[n]` citations), and the check that an
//! answer written by an LLM cites only sources that exist.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::bm25::Bm25Index;
use super::knowledge::{KnowledgeItem, Source, SourceOrigin};
use super::plan::SubQuestion;
use super::text::{split_sentences, tokenize, truncate_at_word};

/// Sentences quoted per sub-question.
pub const SENTENCES_PER_SUB_QUESTION: usize = 2;
/// Coverage of a sub-question's terms from which a sentence answers it.
pub const SENTENCE_THRESHOLD: f64 = 0.5;
/// Shorter sentences (headings, fragments) are not quoted, unless nothing else is found.
const MIN_SENTENCE_WORDS: usize = 8;
/// A quoted sentence is cut (at a word, marked `…`) to this many characters.
const MAX_SENTENCE_CHARS: usize = 400;

/// The extractive answer to `question`. For each sub-question, at most
/// [`SENTENCES_PER_SUB_QUESTION`] knowledge-item sentences, each followed by the numbers of the
/// sources its item cites. A sentence qualifies when it has at least eight words, covers the
/// sub-question's terms to [`SENTENCE_THRESHOLD`] and speaks to its facet, and was not quoted for
/// an earlier sub-question; sentences of items gathered for this sub-question come first, then
/// those naming more of its terms, then in reading order. When none qualifies, the best-scoring
/// sentence of an item gathered for it is quoted. Sub-questions without any are named as
/// unanswered, and the closing line says which sources are web pages and which internal
/// documents.
pub fn compose_answer(
    question: &str,
    sub_questions: &[SubQuestion],
    items: &[KnowledgeItem],
    sources: &[Source],
) -> String {
    let mut answer = format!("{question}\n");
    if sources.is_empty() {
        answer.push_str("\nNo source could be consulted, so nothing can be said about this question.\n");
        return answer;
    }

    let sentences: Vec<(usize, &str)> = items
        .iter()
        .enumerate()
        .flat_map(|(i, item)| split_sentences(item.content()).into_iter().map(move |sentence| (i, sentence)))
        .collect();
    let tokens: Vec<Vec<String>> = sentences.iter().map(|(_, sentence)| tokenize(sentence)).collect();
    let index = Bm25Index::new(&tokens);
    let mut quoted: BTreeSet<usize> = BTreeSet::new();
    let mut unanswered: Vec<&str> = Vec::new();

    for (number, sub) in sub_questions.iter().enumerate() {
        let gathered_for_sub = |s: usize| items[sentences[s].0].title() == sub.text();
        let mut ranked: Vec<(usize, bool, f64)> = (0..sentences.len())
            .filter(|&s| !quoted.contains(&s) && sentences[s].1.split_whitespace().count() >= MIN_SENTENCE_WORDS)
            .filter(|&s| {
                index.coverage(s, sub.terms()) >= SENTENCE_THRESHOLD
                    && sub.facet_is_evidenced_by(sentences[s].1, &tokens[s])
            })
            .map(|s| (s, gathered_for_sub(s), index.presence(s, sub.terms())))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(&b.0)));
        if ranked.is_empty() {
            let fallback = (0..sentences.len())
                .filter(|&s| !quoted.contains(&s) && gathered_for_sub(s))
                .max_by(|&a, &b| index.score(a, sub.terms()).total_cmp(&index.score(b, sub.terms())).then(b.cmp(&a)));
            ranked.extend(fallback.map(|s| (s, true, 0.0)));
        }

        let _ = writeln!(answer, "\n{}. {}", number + 1, sub.text());
        if ranked.is_empty() {
            answer.push_str("Nothing found: none of the consulted sources addressed this.\n");
            unanswered.push(sub.text());
            continue;
        }
        let mut line: Vec<String> = Vec::new();
        for (s, _, _) in ranked.into_iter().take(SENTENCES_PER_SUB_QUESTION) {
            quoted.insert(s);
            let (item, sentence) = sentences[s];
            line.push(format!("{} {}", clean_sentence(sentence), citation_markers(&items[item], sources)));
        }
        answer.push_str(&line.join(" "));
        answer.push('\n');
    }

    if !unanswered.is_empty() {
        let _ = writeln!(answer, "\nNot answered by the sources consulted: {}", unanswered.join("; "));
    }
    answer.push('\n');
    answer.push_str(&origin_line(sources));
    answer
}

/// `[n]` for each source the item cites (by position in `sources`, from 1).
fn citation_markers(item: &KnowledgeItem, sources: &[Source]) -> String {
    item.sources()
        .iter()
        .filter_map(|cited| sources.iter().position(|source| source.url() == cited.url()))
        .map(|position| format!("[{}]", position + 1))
        .collect()
}

/// A sentence as quoted in the answer: white space collapsed, the source's own bracketed
/// footnote numbers removed (they would read as citations), long ones cut.
fn clean_sentence(sentence: &str) -> String {
    let mut cleaned = String::with_capacity(sentence.len());
    let mut rest = sentence;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find(']') {
            Some(close) if close > 0 && after[..close].bytes().all(|b| b.is_ascii_digit()) => {
                cleaned.push_str(&rest[..open]);
                rest = &after[close + 1..];
            }
            _ => {
                cleaned.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    cleaned.push_str(rest);
    let collapsed = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = truncate_at_word(&collapsed, MAX_SENTENCE_CHARS);
    if cut.len() < collapsed.len() { format!("{cut}…") } else { collapsed }
}

/// `Web sources: [1], [2]. Internal documents: [3].`
fn origin_line(sources: &[Source]) -> String {
    let numbers = |origin: SourceOrigin| -> Vec<String> {
        sources
            .iter()
            .enumerate()
            .filter(|(_, source)| source.origin() == origin)
            .map(|(i, _)| format!("[{}]", i + 1))
            .collect()
    };
    let (web, internal) = (numbers(SourceOrigin::Web), numbers(SourceOrigin::Internal));
    let mut line = Vec::new();
    if !web.is_empty() {
        line.push(format!("Web sources: {}.", web.join(", ")));
    }
    if !internal.is_empty() {
        line.push(format!("Internal documents: {}.", internal.join(", ")));
    }
    line.join(" ") + "\n"
}

/// Whether `answer` cites at least one source and every citation is a source: each `[n]`,
/// `[n, m]` or `[n-m]` names numbers within `1..=source_count`. Brackets holding anything else
/// (`[sic]`) are not citations. The driver falls back to the extractive answer when this fails.
pub fn citations_are_valid(answer: &str, source_count: usize) -> bool {
    let mut cited = false;
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let inside = &after[..close];
        rest = &after[close + 1..];
        let Some(numbers) = citation_numbers(inside) else { continue };
        for number in numbers {
            match number {
                Some(n) if (1..=source_count).contains(&n) => cited = true,
                _ => return false,
            }
        }
    }
    cited
}

/// The numbers of a citation's inside (`3`, `1, 2`, `2-4`, `2–4`), `None` when it is not a citation.
/// A number too large to parse is `Some(None)`: a citation, and an invalid one.
fn citation_numbers(inside: &str) -> Option<Vec<Option<usize>>> {
    let mut numbers = Vec::new();
    for piece in inside.split(',') {
        for end in piece.split(['-', '–']) {
            let end = end.trim();
            if end.is_empty() || !end.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            numbers.push(end.parse::<usize>().ok());
        }
    }
    Some(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_within_the_source_list_are_valid() {
        assert!(citations_are_valid("SOFR replaced LIBOR [1]. Spreads widened [2][3].", 3));
        assert!(citations_are_valid("Both agree [1, 3] and more [2-3].", 3));
    }

    #[test]
    fn an_answer_citing_a_missing_source_or_nothing_is_invalid() {
        assert!(!citations_are_valid("SOFR replaced LIBOR [4].", 3));
        assert!(!citations_are_valid("Zero is not a source [0].", 3));
        assert!(!citations_are_valid("A range past the end [2–5].", 3));
        assert!(!citations_are_valid("Overflowing [99999999999999999999999].", 3));
        assert!(!citations_are_valid("No citations at all.", 3));
        assert!(!citations_are_valid("Brackets that are not citations [sic].", 3));
        assert!(!citations_are_valid("Anything cited with no sources [1].", 0));
    }

    #[test]
    fn non_citation_brackets_are_ignored_next_to_valid_citations() {
        assert!(citations_are_valid("The rate [sic] rose [1] per [a-b] notes [", 1));
    }

    #[test]
    fn quoted_sentences_lose_footnote_markers_and_extra_white_space() {
        assert_eq!(clean_sentence("SOFR[3] is  published\n daily [12]. [a]"), "SOFR is published daily . [a]");
    }
}
