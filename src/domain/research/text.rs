//! Text handling for the research loop: the tokens BM25 ranks on, and the passages and sentences
//! evidence is quoted from.
//!
//! Passages and sentences are slices of the input, never normalised copies, so that a knowledge
//! item's content is always a verbatim substring of the page or document it cites.

/// Passages are grown until they reach this many characters (when the text allows).
pub const PASSAGE_MIN_CHARS: usize = 300;
/// Passages are at most this many characters, unless a single word is longer.
pub const PASSAGE_MAX_CHARS: usize = 800;

/// English function words that carry no topic. Sorted, so lookups can binary-search; a test keeps
/// it so.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "many",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Words that end an abbreviation rather than a sentence when followed by a full stop.
const ABBREVIATIONS: &[&str] = &[
    "co", "corp", "dr", "e.g", "eg", "etc", "fig", "i.e", "ie", "inc", "jr", "ltd", "mr", "mrs", "ms", "no", "prof",
    "sr", "st", "u.k", "u.s", "vs",
];

/// Whether `word` (lower-case) is an English stop word.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Light plural stemming (the first step of Porter's algorithm, plus `-ches/-shes/-xes`), so that
/// "loans" meets "loan" and "companies" meets "company". Only ASCII words of four or more letters
/// are touched; "analysis", "status" and "loss" keep their `s`.
pub fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() < 4 {
        return word.to_owned();
    }
    let cut = |suffix_len: usize, replacement: &str| format!("{}{replacement}", &word[..word.len() - suffix_len]);
    if word.ends_with("sses") {
        cut(2, "")
    } else if word.ends_with("ies") && word.len() > 4 {
        cut(3, "y")
    } else if word.ends_with("ches") || word.ends_with("shes") || word.ends_with("xes") {
        cut(2, "")
    } else if word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is") {
        cut(1, "")
    } else {
        word.to_owned()
    }
}

/// The search terms of `text`: lower-cased, split on anything that is not a letter or digit, stop
/// words and single letters dropped, plurals stemmed. Order and repetitions are kept (BM25 counts
/// them).
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|piece| !piece.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !is_stop_word(word))
        .filter(|word| word.chars().count() > 1 || word.chars().all(|c| c.is_ascii_digit()))
        .map(|word| stem(&word))
        .collect()
}

/// The sentences of `text`, as trimmed slices of it. A sentence ends at a blank line (so a heading
/// is a sentence of its own), or at `.`, `!`, `?` or `…` (with any closing quotes or brackets)
/// followed by white space and then an upper-case letter, a digit or an opening quote or bracket;
/// "U.S. lenders", "Inc. announced" and "J. Smith" do not end one.
pub fn split_sentences(text: &str) -> Vec<&str> {
    paragraph_ranges(text).into_iter().flat_map(|(start, end)| sentences_of_paragraph(&text[start..end])).collect()
}

fn sentences_of_paragraph(text: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (_, c) = chars[i];
        if matches!(c, '.' | '!' | '?' | '…') {
            let mut end = i + 1;
            while end < chars.len() && matches!(chars[end].1, '"' | '\'' | ')' | ']' | '”' | '’') {
                end += 1;
            }
            let mut next = end;
            while next < chars.len() && chars[next].1.is_whitespace() {
                next += 1;
            }
            let followed_by_space = next > end;
            let starts_sentence = next == chars.len()
                || chars[next].1.is_uppercase()
                || chars[next].1.is_ascii_digit()
                || matches!(chars[next].1, '"' | '\'' | '(' | '[' | '“' | '‘');
            let byte_end = chars.get(end).map_or(text.len(), |&(b, _)| b);
            if followed_by_space && starts_sentence && !(c == '.' && ends_with_abbreviation(&text[start..chars[i].0])) {
                push_trimmed(text, start, byte_end, &mut sentences);
                start = byte_end;
            }
            i = end;
        } else {
            i += 1;
        }
    }
    push_trimmed(text, start, text.len(), &mut sentences);
    sentences
}

/// Whether the text before a full stop ends with an abbreviation or a single initial.
fn ends_with_abbreviation(before_stop: &str) -> bool {
    let last_word = before_stop.rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    let letters = last_word.trim_start_matches(|c: char| !c.is_alphanumeric());
    if letters.chars().count() == 1 && letters.chars().all(char::is_uppercase) {
        return true;
    }
    ABBREVIATIONS.contains(&letters.to_lowercase().as_str())
}

fn push_trimmed<'a>(text: &'a str, start: usize, end: usize, into: &mut Vec<&'a str>) {
    let piece = text[start..end].trim();
    if !piece.is_empty() {
        into.push(piece);
    }
}

/// Splits `text` into passages of roughly [`PASSAGE_MIN_CHARS`]..=[`PASSAGE_MAX_CHARS`]
/// characters, each a trimmed slice of `text`. Paragraphs (separated by blank lines) are kept
/// whole when they fit and merged with their neighbours while the passage is still short; longer
/// paragraphs are cut between sentences, and a sentence longer than the maximum between words. A
/// passage never starts or ends inside a word; only a text shorter than the minimum (or a short
/// last paragraph that fits nowhere) gives a shorter one.
pub fn split_passages(text: &str) -> Vec<&str> {
    let mut units: Vec<(usize, usize)> = Vec::new();
    for (start, end) in paragraph_ranges(text) {
        let paragraph = &text[start..end];
        if char_count(paragraph) <= PASSAGE_MAX_CHARS {
            units.push((start, end));
            continue;
        }
        for sentence in split_sentences(paragraph) {
            let offset = start + subslice_offset(paragraph, sentence);
            if char_count(sentence) <= PASSAGE_MAX_CHARS {
                units.push((offset, offset + sentence.len()));
            } else {
                units.extend(split_between_words(sentence).into_iter().map(|(a, b)| (offset + a, offset + b)));
            }
        }
    }

    let mut passages: Vec<(usize, usize)> = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    for (start, end) in units {
        current = match current {
            None => Some((start, end)),
            Some((cur_start, cur_end)) => {
                let short = char_count(&text[cur_start..cur_end]) < PASSAGE_MIN_CHARS;
                if short && char_count(&text[cur_start..end]) <= PASSAGE_MAX_CHARS {
                    Some((cur_start, end))
                } else {
                    passages.push((cur_start, cur_end));
                    Some((start, end))
                }
            }
        };
    }
    if let Some((start, end)) = current {
        match passages.last_mut() {
            Some(previous)
                if char_count(&text[start..end]) < PASSAGE_MIN_CHARS
                    && char_count(&text[previous.0..end]) <= PASSAGE_MAX_CHARS =>
            {
                previous.1 = end;
            }
            _ => passages.push((start, end)),
        }
    }
    passages.into_iter().map(|(start, end)| &text[start..end]).collect()
}

/// Byte ranges of the paragraphs of `text`: runs of non-blank lines, trimmed.
fn paragraph_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut paragraph: Option<(usize, usize)> = None;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if let Some(range) = paragraph.take() {
                ranges.push(range);
            }
        } else {
            let start = line_start + subslice_offset(line, trimmed);
            let end = start + trimmed.len();
            paragraph = Some(paragraph.map_or((start, end), |(first, _)| (first, end)));
        }
        line_start += line.len();
    }
    if let Some(range) = paragraph {
        ranges.push(range);
    }
    ranges
}

/// Cuts an over-long sentence into chunks of at most [`PASSAGE_MAX_CHARS`] characters at white
/// space (a single longer word stays whole). Byte ranges relative to `sentence`, trimmed.
fn split_between_words(sentence: &str) -> Vec<(usize, usize)> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < sentence.len() {
        let rest = &sentence[start..];
        let window_end = rest.char_indices().nth(PASSAGE_MAX_CHARS).map_or(rest.len(), |(b, _)| b);
        let cut = if window_end == rest.len() {
            rest.len()
        } else if rest[window_end..].starts_with(char::is_whitespace) {
            window_end
        } else {
            match rest[..window_end].rfind(char::is_whitespace) {
                Some(space) if space > 0 => space,
                _ => rest[window_end..].find(char::is_whitespace).map_or(rest.len(), |space| window_end + space),
            }
        };
        let piece = &rest[..cut];
        let trimmed = piece.trim();
        if !trimmed.is_empty() {
            let a = start + subslice_offset(piece, trimmed);
            chunks.push((a, a + trimmed.len()));
        }
        start += cut;
        start += sentence[start..].len() - sentence[start..].trim_start().len();
    }
    chunks
}

/// The byte offset of `inner` within `outer`; `inner` must be a slice of `outer`.
fn subslice_offset(outer: &str, inner: &str) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

/// The number of `char`s in `text`.
pub fn char_count(text: &str) -> usize {
    text.chars().count()
}

/// The longest prefix of `text` of at most `max_chars` characters that ends at a word boundary
/// (the whole text when it fits; a prefix cut inside a word only when its first word is longer).
pub fn truncate_at_word(text: &str, max_chars: usize) -> &str {
    let Some((limit, _)) = text.char_indices().nth(max_chars) else {
        return text;
    };
    if text[limit..].starts_with(char::is_whitespace) {
        return text[..limit].trim_end();
    }
    match text[..limit].rfind(char::is_whitespace) {
        Some(space) if space > 0 => text[..space].trim_end(),
        _ => &text[..limit],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_word_list_is_sorted_so_binary_search_finds_every_word() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(STOP_WORDS.iter().all(|word| is_stop_word(word)));
    }

    #[test]
    fn tokenize_lowercases_splits_on_punctuation_and_drops_stop_words() {
        assert_eq!(
            tokenize("What is the impact of SOFR on leveraged-loan spreads (2023)?"),
            vec!["impact", "sofr", "leveraged", "loan", "spread", "2023"]
        );
    }

    #[test]
    fn tokenize_drops_single_letters_but_keeps_single_digits() {
        assert_eq!(tokenize("U.S. tier 1 capital"), vec!["tier", "1", "capital"]);
    }

    #[test]
    fn stemming_folds_common_plurals_and_leaves_other_words_alone() {
        let cases = [
            ("loans", "loan"),
            ("companies", "company"),
            ("classes", "class"),
            ("searches", "search"),
            ("taxes", "tax"),
            ("rates", "rate"),
            ("analysis", "analysis"),
            ("status", "status"),
            ("loss", "loss"),
            ("gas", "gas"),
            ("sofr", "sofr"),
            ("façades", "façades"),
        ];
        for (word, expected) in cases {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn sentences_end_at_terminal_punctuation_before_a_capital_but_not_after_abbreviations() {
        let text = "U.S. lenders moved to SOFR. Acme Inc. announced it in 2023! Did J. Smith agree? \"Yes,\" he said.";
        assert_eq!(
            split_sentences(text),
            vec![
                "U.S. lenders moved to SOFR.",
                "Acme Inc. announced it in 2023!",
                "Did J. Smith agree?",
                "\"Yes,\" he said."
            ]
        );
    }

    #[test]
    fn a_heading_separated_by_a_blank_line_is_a_sentence_of_its_own() {
        assert_eq!(
            split_sentences("How SOFR changed loans\n\nThe move from LIBOR\nto SOFR changed pricing."),
            vec!["How SOFR changed loans", "The move from LIBOR\nto SOFR changed pricing."]
        );
    }

    #[test]
    fn sentences_do_not_end_at_a_decimal_point_or_before_a_lower_case_word() {
        assert_eq!(split_sentences("Rates rose 5.3 percent. then fell."), vec!["Rates rose 5.3 percent. then fell."]);
    }

    #[test]
    fn short_paragraphs_merge_into_one_passage_until_the_minimum_is_reached() {
        let first = "a".repeat(10) + " short first paragraph.";
        let second = "Second paragraph ".repeat(18);
        let third = "Third paragraph ".repeat(20);
        let text = format!("{first}\n\n{second}\n\n{third}");
        let passages = split_passages(&text);
        assert_eq!(passages.len(), 2, "{passages:#?}");
        assert!(passages[0].starts_with("aaaa") && passages[0].ends_with("paragraph"));
        assert!(passages[0].contains("Second paragraph"));
        assert!(passages[1].starts_with("Third"));
    }

    #[test]
    fn a_long_paragraph_is_cut_between_sentences_within_the_bounds() {
        let sentence = "The secured overnight financing rate replaced LIBOR for new leveraged loans. ";
        let paragraph = sentence.repeat(30);
        let passages = split_passages(&paragraph);
        assert!(passages.len() >= 3);
        for passage in &passages {
            let length = char_count(passage);
            assert!((PASSAGE_MIN_CHARS..=PASSAGE_MAX_CHARS).contains(&length), "{length}");
            assert!(passage.starts_with("The secured") && passage.ends_with("loans."), "{passage}");
        }
    }

    #[test]
    fn a_sentence_longer_than_the_maximum_is_cut_between_words_never_inside_one() {
        let words: Vec<String> = (0..300).map(|i| format!("word{i}")).collect();
        let text = words.join(" ");
        let passages = split_passages(&text);
        assert!(passages.len() > 1);
        for passage in &passages {
            assert!(char_count(passage) <= PASSAGE_MAX_CHARS);
            for token in passage.split(' ') {
                assert!(words.contains(&token.to_owned()), "cut inside a word: {token}");
            }
        }
        assert_eq!(passages.join(" "), text);
    }

    #[test]
    fn passages_are_slices_of_the_input_and_blank_text_has_none() {
        let text = "  First line\nsecond line of the same paragraph.  \n\n\n  Another one.  ";
        let passages = split_passages(text);
        assert_eq!(passages, vec!["First line\nsecond line of the same paragraph.  \n\n\n  Another one."]);
        assert!(split_passages(" \n\n \t").is_empty());
    }

    #[test]
    fn a_short_last_paragraph_joins_the_passage_before_it_when_it_fits() {
        let body = "Body sentence with enough words to count. ".repeat(8);
        let text = format!("{body}\n\nTail.");
        let passages = split_passages(&text);
        assert_eq!(passages.len(), 1);
        assert!(passages[0].ends_with("Tail."));
    }

    #[test]
    fn truncation_stops_at_a_word_boundary() {
        assert_eq!(truncate_at_word("alpha beta gamma", 12), "alpha beta");
        assert_eq!(truncate_at_word("alpha beta gamma", 10), "alpha beta");
        assert_eq!(truncate_at_word("alpha beta", 50), "alpha beta");
        assert_eq!(truncate_at_word("supercalifragilistic", 5), "super");
    }
}
