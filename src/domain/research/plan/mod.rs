//! Deterministic research planning, no LLM involved: a question becomes at most
//! [`MAX_SUB_QUESTIONS`] sub-questions, each sub-question a list of search queries.
//!
//! 1. The question is split into parts on `?`, `;`, `!` and sentence ends, and on "and" when both
//!    halves carry content on their own (an entity, or two content words, or — for the second
//!    half — a new clause opening with a question word: "Who is Jane Doe and has she been
//!    involved in litigation?"). "Apple and Microsoft" joins two entities and is not split. A
//!    pronoun in a later part without an entity of its own stands for the first entity named
//!    before it.
//! 2. Each part is a sub-question as asked, with its [`Facet`] read from its wording ("impact",
//!    "risks", "compare", "who is", …). A comparison of several entities adds one sub-question per
//!    entity.
//! 3. Facets the question type calls for are added as further sub-questions (an impact question
//!    also asks what the subject is, its risks, figures and recent developments).
//!
//! Entities are quoted phrases, runs of capitalised words ("Bank of America", "Jane Doe"),
//! acronyms ("SOFR", "EBITDA") and tickers (`$AAPL`, `NASDAQ:MSFT`). Queries are the entities,
//! the remaining content words and the facet's keywords; each sub-question has a fixed, ordered
//! list of query variants, and [`plan_queries`] hands out the first variant not issued yet, so
//! an uncovered sub-question is searched differently each iteration and a query never repeats.

use serde::{Deserialize, Serialize};

use super::facets::{Facet, is_any_trigger};
use super::text::{is_stop_word, split_sentences, tokenize};

/// The most sub-questions a question is planned into.
pub const MAX_SUB_QUESTIONS: usize = 5;
/// The most parts a compound question is split into (further parts are dropped).
const MAX_PARTS: usize = 3;
/// The most entities read from one part.
const MAX_ENTITIES: usize = 6;
/// Queries are cut to this many words.
const MAX_QUERY_WORDS: usize = 10;
/// An uncovered sub-question gets at most this many queries in one iteration.
const QUERIES_PER_SUB_QUESTION_PER_ITERATION: usize = 2;

/// Imperatives that frame a question without being its topic.
const QUESTION_VERBS: &[&str] = &[
    "analyse",
    "analyze",
    "compare",
    "describe",
    "discuss",
    "explain",
    "find",
    "give",
    "know",
    "list",
    "outline",
    "please",
    "show",
    "summarise",
    "summarize",
    "tell",
];

/// Words too vague to require of the evidence ("has she been involved in litigation").
const VAGUE_WORDS: &[&str] = &[
    "anything",
    "concerning",
    "happen",
    "happened",
    "involve",
    "involved",
    "involvement",
    "regarding",
    "related",
    "relating",
    "something",
];

/// Words that open a question (or a new clause of one after "and").
const QUESTION_STARTERS: &[&str] = &[
    "are", "can", "could", "did", "do", "does", "had", "has", "have", "how", "is", "should", "was", "were", "what",
    "when", "where", "which", "who", "why", "will", "would",
];

/// Words that may join capitalised words into one name ("Bank of America").
const NAME_CONNECTORS: &[&str] = &["&", "de", "del", "der", "for", "la", "of", "van", "von"];

/// What kind of thing an entity is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntityKind {
    /// A run of capitalised words: a company, person, place or institution.
    Name,
    /// An all-capitals word such as SOFR or EBITDA.
    Acronym,
    /// A stock ticker written `$AAPL` or `NASDAQ:AAPL` (the ticker is kept without decoration).
    Ticker,
    /// A phrase the question put in quotes.
    Quoted,
}

/// A named thing the question is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entity {
    /// The entity as written (without quotes or a possessive `'s`).
    pub text: String,
    pub kind: EntityKind,
    /// Byte range in the text it was read from.
    start: usize,
    end: usize,
}

/// A word of a question, with its surrounding punctuation removed.
#[derive(Debug)]
struct Word<'a> {
    text: &'a str,
    lower: String,
    start: usize,
    end: usize,
    /// The first word of the text or of a sentence within it.
    opens_sentence: bool,
    /// Followed by punctuation (`,` `.` `?` `;` `:` `'s`), which ends a name.
    closes_phrase: bool,
}

impl Word<'_> {
    fn is_capitalised(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }

    fn is_acronym(&self) -> bool {
        let uppercase = self.text.chars().filter(|c| c.is_uppercase()).count();
        uppercase >= 2
            && self.text.chars().count() <= 10
            && self.text.chars().all(|c| c.is_uppercase() || c.is_ascii_digit() || c == '&' || c == '-')
            && !is_stop_word(&self.lower)
    }

    /// Whether the word can be (part of) a name: capitalised and not a function word, a question
    /// verb, or — at the start of a sentence — a facet word ("Risks of …").
    fn is_name_like(&self) -> bool {
        if !self.is_capitalised() || is_stop_word(&self.lower) || QUESTION_VERBS.contains(&self.lower.as_str()) {
            return false;
        }
        !(self.opens_sentence && is_any_trigger(&self.lower))
    }
}

/// The words of `text` with byte offsets; punctuation around a word and a possessive `'s` are
/// stripped.
fn scan_words(text: &str) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    let mut opens_sentence = true;
    for raw in text.split_whitespace() {
        let raw_start = raw.as_ptr() as usize - text.as_ptr() as usize;
        let leading = raw.len() - raw.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '$' && c != '&').len();
        let inner = &raw[leading..];
        let core = inner.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '&');
        let mut closes_phrase = core.len() < inner.len();
        let core = match core.strip_suffix("'s").or_else(|| core.strip_suffix("’s")) {
            Some(stripped) if !stripped.is_empty() => {
                closes_phrase = true;
                stripped
            }
            _ => core,
        };
        let ends_sentence = raw.ends_with(['.', '?', '!', ';', ':']);
        if !core.is_empty() {
            let start = raw_start + leading;
            words.push(Word {
                text: core,
                lower: core.to_lowercase(),
                start,
                end: start + core.len(),
                opens_sentence,
                closes_phrase,
            });
        }
        opens_sentence = ends_sentence;
    }
    words
}

/// The entities named in `text`, in order of appearance, without duplicates (compared
/// case-insensitively).
pub fn extract_entities(text: &str) -> Vec<Entity> {
    let mut entities: Vec<Entity> = quoted_phrases(text);
    let words = scan_words(text);
    let inside_quotes = |word: &Word| {
        entities.iter().any(|e| e.kind == EntityKind::Quoted && e.start <= word.start && word.end <= e.end)
    };
    let mut found: Vec<Entity> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        if inside_quotes(word) {
            i += 1;
            continue;
        }
        if let Some(ticker) = ticker(word.text) {
            found.push(Entity { text: ticker.to_owned(), kind: EntityKind::Ticker, start: word.start, end: word.end });
            i += 1;
            continue;
        }
        if !(word.is_acronym() || word.is_name_like()) {
            i += 1;
            continue;
        }
        // Grow a name over capitalised words and connectors between them.
        let mut last = i;
        let mut j = i;
        while !words[last].closes_phrase && j + 1 < words.len() {
            let next = &words[j + 1];
            if next.is_acronym() || (next.is_capitalised() && !is_stop_word(&next.lower)) {
                last = j + 1;
                j += 1;
            } else if NAME_CONNECTORS.contains(&next.lower.as_str())
                && !next.closes_phrase
                && words.get(j + 2).is_some_and(|after| after.is_capitalised() && !is_stop_word(&after.lower))
            {
                j += 1;
            } else {
                break;
            }
        }
        let (start, end) = (words[i].start, words[last].end);
        let kind = if last == i && word.is_acronym() { EntityKind::Acronym } else { EntityKind::Name };
        found.push(Entity { text: text[start..end].to_owned(), kind, start, end });
        i = last + 1;
    }
    entities.append(&mut found);
    entities.sort_by_key(|entity| entity.start);
    let mut seen: Vec<String> = Vec::new();
    entities.retain(|entity| {
        let key = entity.text.to_lowercase();
        let fresh = !seen.contains(&key);
        seen.push(key);
        fresh
    });
    entities.truncate(MAX_ENTITIES);
    entities
}

/// Phrases between straight or curly double quotes.
fn quoted_phrases(text: &str) -> Vec<Entity> {
    let mut phrases = Vec::new();
    let mut rest_start = 0;
    while let Some(open) = text[rest_start..].find(['"', '“']).map(|i| rest_start + i) {
        let open_len = text[open..].chars().next().map_or(1, char::len_utf8);
        let inner_start = open + open_len;
        let Some(close) = text[inner_start..].find(['"', '”']).map(|i| inner_start + i) else {
            break;
        };
        let inner = text[inner_start..close].trim();
        if !inner.is_empty() {
            let start = inner_start + (text[inner_start..close].len() - text[inner_start..close].trim_start().len());
            phrases.push(Entity { text: inner.to_owned(), kind: EntityKind::Quoted, start, end: start + inner.len() });
        }
        rest_start = close + text[close..].chars().next().map_or(1, char::len_utf8);
    }
    phrases
}

/// The ticker in `$AAPL` or `NASDAQ:AAPL`.
fn ticker(word: &str) -> Option<&str> {
    let symbol = match word.strip_prefix('$') {
        Some(symbol) => symbol,
        None => {
            let (exchange, symbol) = word.split_once(':')?;
            if exchange.len() < 2 || !exchange.chars().all(|c| c.is_ascii_uppercase()) {
                return None;
            }
            symbol
        }
    };
    let valid = (1..=5).contains(&symbol.len()) && symbol.chars().all(|c| c.is_ascii_uppercase());
    valid.then_some(symbol)
}

/// One part of a question, analysed.
#[derive(Debug)]
struct Part {
    text: String,
    facet: Option<Facet>,
    entities: Vec<Entity>,
    keywords: Vec<String>,
    /// Stretches of the part made of topic words and the function words between them ("the 2023
    /// banking crisis", "SOFR on leveraged loans"); a facet word or question verb ends one.
    topic_runs: Vec<String>,
}

impl Part {
    /// The topic as a phrase for follow-up sub-questions: the runs joined by "and".
    fn topic_phrase(&self) -> String {
        self.topic_runs.join(" and ")
    }

    fn entity_texts(&self) -> Vec<String> {
        self.entities.iter().map(|entity| entity.text.clone()).collect()
    }
}

fn analyse(text: &str) -> Part {
    let words = scan_words(text);
    let entities = extract_entities(text);
    let facet = detect_facet(&words);
    let entity_of = |word: &Word| entities.iter().find(|e| e.start <= word.start && word.end <= e.end);
    let mut keywords: Vec<String> = Vec::new();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let mut article: Option<usize> = None;
    for word in &words {
        let is_keyword =
            is_content_word(&word.lower) && !facet.is_some_and(|f| f.triggers().contains(&word.lower.as_str()));
        if let Some(entity) = entity_of(word) {
            let (start, end) = with_quotes(text, entity);
            run = Some(run.map_or((article.unwrap_or(start), end), |(first, _)| (first, end)));
            article = None;
        } else if is_keyword {
            if !keywords.contains(&word.lower) {
                keywords.push(word.lower.clone());
            }
            run = Some(run.map_or((article.unwrap_or(word.start), word.end), |(first, _)| (first, word.end)));
            article = None;
        } else if is_stop_word(&word.lower) {
            if run.is_none() {
                article = matches!(word.lower.as_str(), "the" | "a" | "an").then_some(word.start);
            }
        } else {
            runs.extend(run.take());
            article = None;
        }
    }
    runs.extend(run);
    Part {
        text: text.to_owned(),
        facet,
        entities,
        keywords,
        topic_runs: runs.into_iter().map(|(start, end)| text[start..end].to_owned()).collect(),
    }
}

/// The extent of an entity including the quotes around a quoted phrase.
fn with_quotes(text: &str, entity: &Entity) -> (usize, usize) {
    if entity.kind != EntityKind::Quoted {
        return (entity.start, entity.end);
    }
    let open = text[..entity.start].char_indices().next_back().filter(|(_, c)| matches!(c, '"' | '“'));
    let close = text[entity.end..].chars().next().filter(|c| matches!(c, '"' | '”'));
    match (open, close) {
        (Some((start, _)), Some(c)) => (start, entity.end + c.len_utf8()),
        _ => (entity.start, entity.end),
    }
}

fn is_content_word(lower: &str) -> bool {
    (lower.chars().count() > 1 || lower.chars().all(|c| c.is_ascii_digit()))
        && lower.chars().any(char::is_alphanumeric)
        && !is_stop_word(lower)
        && !QUESTION_VERBS.contains(&lower)
        && !VAGUE_WORDS.contains(&lower)
}

/// The facet a part asks for, from its wording; comparisons first, definitions last.
fn detect_facet(words: &[Word]) -> Option<Facet> {
    let lower: Vec<&str> = words.iter().map(|word| word.lower.as_str()).collect();
    let mentions = |facet: Facet| lower.iter().any(|word| facet.triggers().contains(word));
    let opening = (lower.first().copied(), lower.get(1).copied());
    if mentions(Facet::Comparison) {
        Some(Facet::Comparison)
    } else if mentions(Facet::Impact) {
        Some(Facet::Impact)
    } else if mentions(Facet::Risks) {
        Some(Facet::Risks)
    } else if mentions(Facet::Figures) || matches!(opening, (Some("how"), Some("much" | "many"))) {
        Some(Facet::Figures)
    } else if mentions(Facet::Recent) {
        Some(Facet::Recent)
    } else if opening.0 == Some("who") {
        Some(Facet::Profile)
    } else if matches!(opening, (Some("what"), Some("is" | "are" | "was" | "were"))) || mentions(Facet::Definition) {
        Some(Facet::Definition)
    } else {
        None
    }
}

/// A question's parts: split on `?`, `;`, `!`, sentence ends, and a content-carrying "and";
/// pronouns resolved; capitalised, with a `?` when they open like a question.
fn split_parts(question: &str) -> Vec<String> {
    let mut clauses: Vec<String> = Vec::new();
    for sentence in split_sentences(question) {
        for clause in sentence.split(['?', ';', '!']) {
            let clause = clause.trim().trim_end_matches(['.', ',', ':']).trim();
            if clause.is_empty() {
                continue;
            }
            clauses.extend(split_on_and(clause));
        }
    }
    let mut parts: Vec<String> = Vec::new();
    let mut previous_entity: Option<String> = None;
    for clause in clauses.into_iter().take(MAX_PARTS) {
        let entities = extract_entities(&clause);
        let resolved = match (&previous_entity, entities.is_empty()) {
            (Some(entity), true) => resolve_pronoun(&clause, entity),
            _ => clause,
        };
        if let Some(first) = extract_entities(&resolved).into_iter().next() {
            previous_entity.get_or_insert(first.text);
        }
        parts.push(as_question(&resolved));
    }
    parts
}

/// Splits `clause` at each "and" whose two halves both carry content, unless the "and" joins two
/// entities ("Apple and Microsoft") or the things compared ("between a term loan and a revolver").
fn split_on_and(clause: &str) -> Vec<String> {
    let words = scan_words(clause);
    for (k, word) in words.iter().enumerate() {
        if word.lower != "and" || k == 0 || k + 1 == words.len() {
            continue;
        }
        let entity_like = |w: &Word| w.is_acronym() || w.is_name_like();
        if entity_like(&words[k - 1]) && entity_like(&words[k + 1]) {
            continue;
        }
        let comparing =
            words[..k].iter().any(|w| w.lower == "between" || Facet::Comparison.triggers().contains(&w.lower.as_str()));
        if comparing {
            continue;
        }
        let left = clause[..word.start].trim().trim_end_matches(',').trim();
        let right = clause[word.end..].trim();
        if carries_content(left, false) && carries_content(right, true) {
            let mut parts = vec![left.to_owned()];
            parts.extend(split_on_and(right));
            return parts;
        }
    }
    vec![clause.to_owned()]
}

/// Whether half of a clause could stand as a question: it names an entity, or has two content
/// words that are not facet words, or (`opens_clause`) starts with a question word and has a
/// content word.
fn carries_content(half: &str, opens_clause: bool) -> bool {
    if !extract_entities(half).is_empty() {
        return true;
    }
    let words = scan_words(half);
    let content: Vec<&Word> = words.iter().filter(|word| is_content_word(&word.lower)).collect();
    let topical = content.iter().filter(|word| !is_any_trigger(&word.lower)).count();
    let opens_with_question = words.first().is_some_and(|word| QUESTION_STARTERS.contains(&word.lower.as_str()));
    topical >= 2 || (opens_clause && opens_with_question && !content.is_empty())
}

/// Replaces the first personal pronoun of `clause` with `entity` ("has she been" → "has Jane Doe
/// been"; "its" → "SOFR's").
fn resolve_pronoun(clause: &str, entity: &str) -> String {
    for word in scan_words(clause) {
        let replacement = match word.lower.as_str() {
            "he" | "she" | "it" | "they" | "him" | "her" | "them" => entity.to_owned(),
            "his" | "its" | "their" => format!("{entity}'s"),
            _ => continue,
        };
        return format!("{}{replacement}{}", &clause[..word.start], &clause[word.end..]);
    }
    clause.to_owned()
}

fn as_question(clause: &str) -> String {
    let mut chars = clause.chars();
    let capitalised: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    let opens_like_question =
        scan_words(&capitalised).first().is_some_and(|word| QUESTION_STARTERS.contains(&word.lower.as_str()));
    if opens_like_question { format!("{capitalised}?") } else { capitalised }
}

/// One thing the research must find out, with its search state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubQuestion {
    text: String,
    facet: Option<Facet>,
    entities: Vec<String>,
    keywords: Vec<String>,
    terms: Vec<String>,
    covered: bool,
    attempts: u32,
}

impl SubQuestion {
    fn new(text: String, facet: Option<Facet>, entities: Vec<String>, keywords: Vec<String>) -> Self {
        let mut terms: Vec<String> = Vec::new();
        for term in tokenize(&format!("{} {}", entities.join(" "), keywords.join(" "))) {
            if !terms.contains(&term) {
                terms.push(term);
            }
        }
        Self { text, facet, entities, keywords, terms, covered: false, attempts: 0 }
    }

    fn from_part(part: &Part) -> Self {
        Self::new(part.text.clone(), part.facet, part.entity_texts(), part.keywords.clone())
    }

    /// The sub-question, as a sentence.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The aspect it asks about; `None` for a part of the question with no recognised facet.
    pub fn facet(&self) -> Option<Facet> {
        self.facet
    }

    /// The (stemmed) terms evidence must contain: its entities and content words.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether a passage has answered it (see the coverage rule in [`super::state`]).
    pub fn is_covered(&self) -> bool {
        self.covered
    }

    /// How many queries were planned for it.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    pub(super) fn mark_covered(&mut self) {
        self.covered = true;
    }

    /// Whether a passage speaks to this sub-question's facet (always, without a facet).
    pub fn facet_is_evidenced_by(&self, text: &str, tokens: &[String]) -> bool {
        self.facet.is_none_or(|facet| facet.is_evidenced_by(text, tokens))
    }

    /// Its search queries, best first: each facet template on the subject (entities, then
    /// content words), then variants with multi-word entities in quotes, with the entities alone,
    /// and with one entity at a time.
    pub fn query_variants(&self) -> Vec<String> {
        let templates = Facet::query_templates(self.facet);
        let subject = self.entities.iter().chain(&self.keywords).cloned().collect::<Vec<_>>().join(" ");
        let mut variants: Vec<String> = templates.iter().map(|template| compose_query(template, &subject)).collect();
        let first = templates[0];
        if self.entities.iter().any(|entity| entity.contains(' ')) {
            let quoted: Vec<String> = self
                .entities
                .iter()
                .map(|entity| if entity.contains(' ') { format!("\"{entity}\"") } else { entity.clone() })
                .chain(self.keywords.iter().cloned())
                .collect();
            variants.push(compose_query(first, &quoted.join(" ")));
        }
        if !self.entities.is_empty() && !self.keywords.is_empty() {
            variants.push(compose_query(first, &self.entities.join(" ")));
        }
        if self.entities.len() > 1 {
            for entity in &self.entities {
                variants.push(compose_query(first, &format!("{entity} {}", self.keywords.join(" "))));
            }
        }
        let mut unique: Vec<String> = Vec::new();
        for variant in variants {
            if !variant.is_empty() && !unique.iter().any(|seen| same_query(seen, &variant)) {
                unique.push(variant);
            }
        }
        unique
    }
}

/// A query from a template and a subject: words repeated by the template are dropped, and the
/// query is cut to [`MAX_QUERY_WORDS`] words.
fn compose_query(template: &str, subject: &str) -> String {
    let filled = template.replace("{s}", subject);
    let mut words: Vec<&str> = Vec::new();
    for word in filled.split_whitespace() {
        let key = |w: &str| w.trim_matches('"').to_lowercase();
        if !words.iter().any(|seen| key(seen) == key(word)) {
            words.push(word);
        }
    }
    words.truncate(MAX_QUERY_WORDS);
    words.join(" ")
}

/// Whether two queries are the same search: equal ignoring case and spacing.
pub fn same_query(a: &str, b: &str) -> bool {
    normalise_query(a) == normalise_query(b)
}

fn normalise_query(query: &str) -> String {
    query.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// Plans `question` into at most [`MAX_SUB_QUESTIONS`] sub-questions: its parts as asked, one per
/// side of a comparison, then the facets its type calls for. A question without any topic word
/// ("What are the risks?") has none.
pub fn plan_sub_questions(question: &str) -> Vec<SubQuestion> {
    let parts: Vec<Part> = split_parts(question)
        .iter()
        .map(|part| analyse(part))
        .filter(|part| !part.entities.is_empty() || !part.keywords.is_empty())
        .collect();
    let Some(primary) = parts.first() else {
        return Vec::new();
    };
    let mut sub_questions: Vec<SubQuestion> = parts.iter().map(SubQuestion::from_part).collect();
    if primary.facet == Some(Facet::Comparison) {
        sub_questions.extend(comparison_sides(primary));
    }

    for &facet in follow_up_facets(primary.facet) {
        if sub_questions.len() >= MAX_SUB_QUESTIONS {
            break;
        }
        let facet =
            if facet == Facet::Definition && primary.facet == Some(Facet::Profile) { Facet::Profile } else { facet };
        if sub_questions.iter().any(|sub| sub.facet == Some(facet)) {
            continue;
        }
        sub_questions.push(facet_sub_question(facet, primary));
    }

    let mut unique: Vec<SubQuestion> = Vec::new();
    for sub in sub_questions {
        if !unique.iter().any(|seen| same_query(&seen.text, &sub.text)) && !sub.terms.is_empty() {
            unique.push(sub);
        }
    }
    unique.truncate(MAX_SUB_QUESTIONS);
    unique
}

/// One sub-question per side of a comparison. The sides are its entities (names, tickers and
/// quoted phrases when there are two of those, else all entities), each asked about with the rest
/// of the topic ("Compare Apple and Microsoft credit risk" → "What is the credit risk of Apple?");
/// without two entities, the phrases around "and" (or "or", "vs", "with") after "between" or
/// "compare" ("the difference between a term loan and a revolving facility" → "What is a term
/// loan?").
fn comparison_sides(part: &Part) -> Vec<SubQuestion> {
    let named: Vec<&Entity> = part.entities.iter().filter(|e| e.kind != EntityKind::Acronym).collect();
    let sides: Vec<&Entity> = if named.len() >= 2 { named } else { part.entities.iter().collect() };
    if sides.len() < 2 {
        return phrase_sides(&part.text)
            .into_iter()
            .map(|side| {
                let side_part = analyse(&side);
                SubQuestion::new(
                    format!("What is {side}?"),
                    Some(Facet::Definition),
                    side_part.entity_texts(),
                    side_part.keywords,
                )
            })
            .collect();
    }
    let rest: Vec<String> = part
        .entities
        .iter()
        .filter(|entity| !sides.iter().any(|side| side.text == entity.text))
        .map(|entity| entity.text.clone())
        .chain(part.keywords.iter().cloned())
        .collect();
    let rest_text = rest.join(" ");
    let rest_facet = if rest.is_empty() { Some(Facet::Definition) } else { detect_facet(&scan_words(&rest_text)) };
    let rest_keywords: Vec<String> = rest
        .iter()
        .filter(|word| !rest_facet.is_some_and(|facet| facet.triggers().contains(&word.to_lowercase().as_str())))
        .cloned()
        .collect();
    sides
        .into_iter()
        .take(MAX_SUB_QUESTIONS - 1)
        .map(|side| {
            let text = if rest.is_empty() {
                format!("What is {}?", side.text)
            } else {
                format!("What is the {rest_text} of {}?", side.text)
            };
            SubQuestion::new(text, rest_facet, vec![side.text.clone()], rest_keywords.clone())
        })
        .collect()
}

/// The two phrases compared after "between" or "compare", split at "and", "or", "vs", "versus"
/// or "with"; none when the text has no such shape or a side has no content word.
fn phrase_sides(text: &str) -> Vec<String> {
    let words = scan_words(text);
    let Some(anchor) = words.iter().position(|w| matches!(w.lower.as_str(), "between" | "compare" | "comparing"))
    else {
        return Vec::new();
    };
    let Some(joint) = words[anchor + 1..]
        .iter()
        .position(|w| matches!(w.lower.as_str(), "and" | "or" | "vs" | "versus" | "with"))
        .map(|i| anchor + 1 + i)
    else {
        return Vec::new();
    };
    let left = text[words[anchor].end..words[joint].start].trim();
    let right = text[words[joint].end..].trim().trim_end_matches(['?', '.', '!']).trim_end();
    let has_content = |side: &str| scan_words(side).iter().any(|w| is_content_word(&w.lower));
    if has_content(left) && has_content(right) { vec![left.to_owned(), right.to_owned()] } else { Vec::new() }
}

/// The facets a question of the primary part's type should also cover, in order of importance.
fn follow_up_facets(primary: Option<Facet>) -> &'static [Facet] {
    match primary {
        Some(Facet::Comparison) => &[Facet::Figures, Facet::Recent],
        Some(Facet::Impact) => &[Facet::Definition, Facet::Risks, Facet::Figures, Facet::Recent],
        Some(Facet::Risks) => &[Facet::Definition, Facet::Impact, Facet::Figures, Facet::Recent],
        Some(Facet::Figures) => &[Facet::Definition, Facet::Recent, Facet::Risks],
        Some(Facet::Recent) => &[Facet::Definition, Facet::Impact, Facet::Risks],
        Some(Facet::Profile) => &[Facet::Recent],
        Some(Facet::Definition) => &[Facet::Impact, Facet::Risks, Facet::Figures, Facet::Recent],
        None => &[Facet::Definition, Facet::Risks, Facet::Figures, Facet::Recent],
    }
}

/// A follow-up sub-question asking for `facet` about the primary part's topic. Definitions and
/// profiles are about its first entity alone (or, without one, its first topic run).
fn facet_sub_question(facet: Facet, primary: &Part) -> SubQuestion {
    let phrase = primary.topic_phrase();
    let (entities, keywords) = (primary.entity_texts(), primary.keywords.clone());
    match facet {
        Facet::Definition | Facet::Profile => {
            let (subject, entities, keywords) = match (primary.entities.first(), primary.topic_runs.first()) {
                (Some(entity), _) => (entity.text.clone(), vec![entity.text.clone()], Vec::new()),
                (None, Some(run)) => (run.clone(), Vec::new(), analyse(run).keywords),
                (None, None) => (phrase, entities, keywords),
            };
            let text =
                if facet == Facet::Profile { format!("Who is {subject}?") } else { format!("What is {subject}?") };
            SubQuestion::new(text, Some(facet), entities, keywords)
        }
        Facet::Impact => SubQuestion::new(format!("What is the impact of {phrase}?"), Some(facet), entities, keywords),
        Facet::Risks => SubQuestion::new(format!("What are the risks of {phrase}?"), Some(facet), entities, keywords),
        Facet::Figures => {
            SubQuestion::new(format!("What figures and data describe {phrase}?"), Some(facet), entities, keywords)
        }
        Facet::Recent => {
            SubQuestion::new(format!("What are the recent developments on {phrase}?"), Some(facet), entities, keywords)
        }
        Facet::Comparison => SubQuestion::new(format!("How do {phrase} compare?"), Some(facet), entities, keywords),
    }
}

/// The queries for the next iteration, at most `limit`: uncovered sub-questions take turns, the
/// least searched first, each contributing its first query variant that is not in `issued` (nor
/// planned in this call), at most two per sub-question. Counts the attempts on the sub-questions.
/// Empty when every uncovered sub-question has run out of variants.
pub fn plan_queries(sub_questions: &mut [SubQuestion], issued: &[String], limit: usize) -> Vec<String> {
    let mut order: Vec<usize> = (0..sub_questions.len()).filter(|&i| !sub_questions[i].covered).collect();
    order.sort_by_key(|&i| (sub_questions[i].attempts, i));
    let mut planned: Vec<String> = Vec::new();
    for _ in 0..QUERIES_PER_SUB_QUESTION_PER_ITERATION {
        for &i in &order {
            if planned.len() >= limit {
                return planned;
            }
            let fresh = sub_questions[i]
                .query_variants()
                .into_iter()
                .find(|variant| !issued.iter().chain(&planned).any(|seen| same_query(seen, variant)));
            if let Some(query) = fresh {
                planned.push(query);
                sub_questions[i].attempts += 1;
            }
        }
    }
    planned
}

#[cfg(test)]
mod tests;
