//! Phrase-level building blocks of the chat grammar: normalising a message, peeling off greetings
//! and politeness, and telling a company from a person from a topic. Amounts, time ranges and the
//! companies an earlier turn mentioned have their own modules ([`super::amount`],
//! [`super::time_range`], [`super::mentions`]), built on these.
//!
//! These are heuristics over English word shapes, tuned to err towards "not a name": a phrase that
//! is not recognised as a company or a person makes the grammar launch nothing.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// Compiles one of the grammar's constant patterns.
pub(super) fn compile(source: &str) -> Regex {
    Regex::new(source).unwrap_or_else(|error| panic!("chat grammar pattern {source:?} must compile: {error}"))
}

// ---- normalisation -----------------------------------------------------------------------------

static CONTRACTIONS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"(?i)\bwhat's\b|\bwhats\b", "what is"),
        (r"(?i)\bwho's\b", "who is"),
        (r"(?i)\bhow's\b", "how is"),
        (r"(?i)\bwhere's\b", "where is"),
        (r"(?i)\bwhen's\b", "when is"),
        (r"(?i)\bthat's\b", "that is"),
        (r"(?i)\bit's\b", "it is"),
        (r"(?i)\blet's\b", "let us"),
        (r"(?i)\bi'd\b", "i would"),
        (r"(?i)\bwe'd\b", "we would"),
        (r"(?i)\bi'm\b", "i am"),
        (r"(?i)\bdon't\b|\bdont\b", "do not"),
        (r"(?i)\bdoesn't\b", "does not"),
        (r"(?i)\bdidn't\b", "did not"),
        (r"(?i)\bcan't\b", "cannot"),
        (r"(?i)\bwon't\b", "will not"),
        (r"(?i)\bisn't\b", "is not"),
        (r"(?i)\baren't\b", "are not"),
        (r"(?i)\bshouldn't\b", "should not"),
    ]
    .into_iter()
    .map(|(pattern, replacement)| (compile(pattern), replacement))
    .collect()
});

/// One line of plain text: typographic quotes and dashes made ASCII, whitespace collapsed, and the
/// common contractions expanded ("what's" → "what is"), so the grammar has one spelling to match.
pub(super) fn normalise(message: &str) -> String {
    let ascii: String = message
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{02BC}' | '`' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            c if c.is_whitespace() => ' ',
            c => c,
        })
        .collect();
    let mut text = ascii.split_whitespace().collect::<Vec<_>>().join(" ");
    for (pattern, replacement) in CONTRACTIONS.iter() {
        text = pattern.replace_all(&text, *replacement).into_owned();
    }
    text
}

static LEADING_INTERJECTION: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:hi|hello|hey|hiya|yo|ok|okay|alright|thanks|thank you|thx|so|now|also|and|then|please|pls|plz|kindly|just|quickly)(?: there| team| again| so much| a lot)?\b[\s,.!;:-]*|(?:great|cool|perfect|nice|sure|right|well|next|first|all right|good (?:morning|afternoon|evening))(?: there| team)?\s*[,.!;:-]+\s*)",
    )
});

static REQUEST_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:can|could|would|will) (?:you|u)(?: please| kindly| also| now| quickly| just)?(?: go ahead and)?|(?:i|we) (?:would like|want|need) (?:you )?to|go ahead and|let us|help me|try to|be so kind as to)\s+",
    )
});

static TRAILING_POLITENESS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:[\s,]+(?:please|pls|thanks|thank you|thx|for me|for us|now|then|too|as well|again|instead|asap|right now|right away|today|quickly|if you can|if possible|when you can|for the committee))+[\s?!.,;:]*$",
    )
});

/// The request itself: greetings, politeness and request frames ("could you please", "I'd like you
/// to") removed from the front, politeness and sentence punctuation from the end.
pub(super) fn strip_framing(text: &str) -> String {
    let mut rest = text.trim();
    loop {
        let before = rest.len();
        if let Some(m) = LEADING_INTERJECTION.find(rest) {
            rest = rest[m.end()..].trim_start();
        }
        if let Some(m) = REQUEST_FRAME.find(rest) {
            rest = rest[m.end()..].trim_start();
        }
        if rest.len() == before {
            break;
        }
    }
    let without_politeness = match TRAILING_POLITENESS.find(rest) {
        Some(m) if m.start() > 0 => &rest[..m.start()],
        _ => rest,
    };
    trim_sentence_end(without_politeness).to_owned()
}

/// Abbreviations whose full stop belongs to the word, so "Apple Inc." keeps its point.
const ABBREVIATIONS: &[&str] = &[
    "inc", "corp", "co", "ltd", "plc", "llc", "bros", "jr", "sr", "st", "l.p", "n.v", "s.a", "s.p.a", "a.g", "dr",
    "mr", "mrs", "ms", "prof",
];

/// Removes sentence punctuation and stray quotes from the end; keeps the point of an abbreviation
/// or an initial.
pub(super) fn trim_sentence_end(text: &str) -> &str {
    let mut rest = text.trim().trim_end_matches(['?', '!', ',', ';', ':', '"', ' ']);
    while let Some(stripped) = rest.strip_suffix('.') {
        let last_word = stripped.rsplit(' ').next().unwrap_or("").to_ascii_lowercase();
        let is_initial = last_word.len() == 1 && last_word.chars().all(|c| c.is_ascii_alphabetic());
        if ABBREVIATIONS.contains(&last_word.as_str()) || is_initial {
            break;
        }
        rest = stripped.trim_end_matches(['?', '!', ',', ';', ':', '"', ' ']);
    }
    rest.trim()
}

// ---- word classes ------------------------------------------------------------------------------

/// Words that make a name a company's (checked case-insensitively, with any final point removed).
const CORPORATE_SUFFIXES: &[&str] = &[
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "llc",
    "ltd",
    "limited",
    "plc",
    "ag",
    "sa",
    "s.a",
    "nv",
    "n.v",
    "gmbh",
    "se",
    "lp",
    "l.p",
    "llp",
    "co",
    "company",
    "bank",
    "bancorp",
    "group",
    "holdings",
    "holding",
    "partners",
    "capital",
    "industries",
    "technologies",
    "enterprises",
    "trust",
    "fund",
    "ventures",
    "pharmaceuticals",
    "airlines",
    "motors",
    "systems",
    "spa",
    "s.p.a",
    "kg",
    "bv",
    "b.v",
    "oyj",
    "asa",
    "ab",
];

/// Words that never occur in a person's name as written in a request; a phrase holding one is
/// not a person (so "Goldman Capital Partners" is not somebody).
const INSTITUTION_WORDS: &[&str] = &[
    "financial",
    "securities",
    "investments",
    "associates",
    "insurance",
    "energy",
    "labs",
    "foods",
    "brands",
    "solutions",
    "services",
    "international",
    "global",
    "resources",
    "properties",
    "realty",
    "management",
    "advisors",
    "advisers",
    "media",
    "networks",
    "software",
    "electric",
    "motor",
    "university",
    "council",
    "agency",
    "authority",
    "ministry",
    "department",
    "bureau",
    "commission",
    "reserve",
    "exchange",
    "index",
    "sector",
    "market",
    "markets",
    "industrial",
    "manufacturing",
    "logistics",
    "shipping",
    "mining",
    "chemicals",
    "pharma",
    "retail",
    "construction",
    "utilities",
    "telecom",
    "airways",
];

/// Words of a topic rather than a name: a phrase holding one is not taken for a company unless it
/// carries a corporate suffix ("Silicon Valley Bank" is a company, "high yield" is a market).
const TOPIC_WORDS: &[&str] = &[
    "market",
    "markets",
    "sector",
    "sectors",
    "industry",
    "industries",
    "trend",
    "trends",
    "impact",
    "effect",
    "effects",
    "loan",
    "loans",
    "lending",
    "credit",
    "debt",
    "yield",
    "yields",
    "bond",
    "bonds",
    "stock",
    "stocks",
    "equity",
    "equities",
    "rate",
    "rates",
    "economy",
    "inflation",
    "spread",
    "spreads",
    "default",
    "defaults",
    "covenant",
    "covenants",
    "risk",
    "risks",
    "deal",
    "deals",
    "document",
    "agreement",
    "facility",
    "facilities",
    "portfolio",
    "companies",
    "borrower",
    "borrowers",
    "people",
    "person",
    "startups",
    "banks",
    "things",
    "stuff",
    "everything",
    "something",
    "anything",
    "later",
    "margin",
    "margins",
    "dscr",
    "leverage",
    "analysis",
    "report",
    "question",
    "questions",
    "idea",
    "ideas",
    "weather",
    "news",
    "data",
    "numbers",
    "share",
    "shares",
    // Framing words: they say what a name is, and are never a name themselves.
    "company",
    "firm",
    "ticker",
    "tickers",
    "symbol",
];

/// Words that start a phrase that is not a name: determiners, pronouns, question words.
const NON_NAME_STARTS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "it", "its", "them", "they", "their", "him", "her", "his",
    "me", "my", "us", "our", "we", "you", "your", "i", "someone", "somebody", "anyone", "anybody", "everyone", "some",
    "any", "all", "each", "every", "how", "why", "what", "which", "when", "where", "who", "whether", "if", "to", "for",
    "with", "about", "more", "other", "another", "one", "whatever", "whoever", "here", "there",
];

/// Acronyms that look like tickers but are finance vocabulary, regulators, currencies or places.
const NOT_TICKERS: &[&str] = &[
    "SOFR", "SONIA", "LIBOR", "EURIBOR", "ESTR", "SARON", "TONA", "CORRA", "DSCR", "EBITDA", "EBIT", "LTV", "ICR",
    "FCCR", "ESG", "CLO", "CLOS", "CDO", "CDS", "ABL", "RCF", "TLA", "TLB", "LBO", "IPO", "GDP", "CPI", "PMI", "FOMC",
    "FED", "ECB", "BOE", "BOJ", "SEC", "FCA", "PRA", "OFAC", "FINRA", "CFTC", "KYC", "AML", "CEO", "CFO", "COO", "CTO",
    "USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "US", "USA", "UK", "EU", "AI", "IT", "HR", "PD", "LGD", "EAD",
    "IRR", "NPV", "ROE", "ROA", "ROI", "YTD", "QOQ", "YOY", "OK", "HY", "IG", "PIK", "DIP", "NAV", "ETF", "ETFS",
    "REIT", "REITS", "LMA", "LSTA", "ISDA", "CDM", "API", "PDF", "FAQ", "ASAP", "FYI", "TBD", "NDA", "LOI", "SPV",
    "M&A",
];

/// A token as the word lists spell it: lower case, without surrounding punctuation or a final point.
pub(super) fn bare_word(token: &str) -> String {
    token.trim_matches(|c: char| !c.is_alphanumeric() && c != '&' && c != '.').trim_end_matches('.').to_lowercase()
}

fn tokens(phrase: &str) -> Vec<&str> {
    phrase.split_whitespace().collect()
}

/// Whether the phrase is nothing but a corporate suffix ("Inc.", "plc").
pub(super) fn is_corporate_suffix(phrase: &str) -> bool {
    matches!(tokens(phrase).as_slice(), [word] if CORPORATE_SUFFIXES.contains(&bare_word(word).as_str()))
}

/// Whether the phrase ends in (or, for banks and groups, holds) a corporate suffix.
pub(super) fn has_corporate_suffix(phrase: &str) -> bool {
    let words = tokens(phrase);
    (words.len() >= 2 && words.iter().skip(1).any(|w| CORPORATE_SUFFIXES.contains(&bare_word(w).as_str())))
        || words.iter().any(|w| w.contains('&'))
}

/// A ticker symbol: two to five capitals (with an optional class suffix such as ".B"), not a
/// finance acronym. One-letter tickers ("F", "T") are only recognised in parentheses or as cashtags.
pub(super) fn is_ticker(token: &str) -> bool {
    static TICKER: LazyLock<Regex> = LazyLock::new(|| compile(r"^[A-Z]{2,5}(?:\.[A-Z]{1,2})?$"));
    TICKER.is_match(token) && !NOT_TICKERS.contains(&token)
}

static PARENTHESISED_TICKER: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"\s*\((?:(?:NYSE|NASDAQ|Nasdaq|LSE|ticker):\s*)?\$?(?P<t>[A-Z]{1,5}(?:\.[A-Z]{1,2})?)\)")
});

/// Splits "Microsoft (MSFT)" into the name and the ticker; a bare ticker ("MSFT", "$MSFT") is both.
pub(super) fn split_ticker(phrase: &str) -> (String, Option<String>) {
    if let Some(captures) = PARENTHESISED_TICKER.captures(phrase)
        && let (Some(whole), Some(ticker)) = (captures.get(0), captures.name("t"))
    {
        let name = format!("{}{}", &phrase[..whole.start()], &phrase[whole.end()..]);
        let name = trim_sentence_end(name.trim()).to_owned();
        let ticker = ticker.as_str().to_owned();
        return if name.is_empty() { (ticker.clone(), Some(ticker)) } else { (name, Some(ticker)) };
    }
    let bare = phrase.strip_prefix('$').unwrap_or(phrase);
    let one_letter_cashtag = phrase.starts_with('$') && bare.len() == 1 && bare.chars().all(|c| c.is_ascii_uppercase());
    if is_ticker(bare) || one_letter_cashtag {
        return (bare.to_owned(), Some(bare.to_owned()));
    }
    (phrase.to_owned(), None)
}

fn starts_like_a_name(words: &[&str]) -> bool {
    words.first().is_some_and(|first| !NON_NAME_STARTS.contains(&bare_word(first).as_str()))
}

fn holds_topic_word(words: &[&str]) -> bool {
    words.iter().any(|w| TOPIC_WORDS.contains(&bare_word(w).as_str()))
}

fn is_capitalised(word: &str) -> bool {
    word.trim_start_matches(['"', '(', '$']).chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// A company named the way people write company names: with a corporate suffix, as a ticker, or
/// as one to five words that start with a capital (connectives such as "&", "and", "of" allowed)
/// and hold no topic word. "Apple", "Microsoft (MSFT)", "Acme Corp", "Bank of America".
pub(super) fn is_proper_company(phrase: &str) -> bool {
    let (name, ticker) = split_ticker(phrase);
    if ticker.is_some() {
        return true;
    }
    let words = tokens(&name);
    if words.is_empty() || words.len() > 6 || !starts_like_a_name(&words) {
        return false;
    }
    if has_corporate_suffix(&name) && is_capitalised(words[0]) {
        return true;
    }
    let connective = |w: &str| matches!(bare_word(w).as_str(), "&" | "and" | "of" | "de" | "du" | "la" | "von" | "van");
    words.len() <= 5
        && words.iter().all(|w| is_capitalised(w) || connective(w))
        && !holds_topic_word(&words)
        && !words.iter().any(|w| NOT_TICKERS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
        && name.chars().any(|c| c.is_alphabetic())
}

/// A company named informally in lower case after an explicit analysis verb ("analyse apple"):
/// one to three plain words, no determiner or pronoun, no topic word, no finance acronym ("ytd",
/// "sofr").
pub(super) fn is_informal_company(phrase: &str) -> bool {
    let words = tokens(phrase);
    !words.is_empty()
        && words.len() <= 3
        && starts_like_a_name(&words)
        && !holds_topic_word(&words)
        && !words.iter().any(|w| NOT_TICKERS.contains(&w.to_ascii_uppercase().as_str()))
        && words.iter().all(|w| w.chars().all(|c| c.is_alphanumeric() || matches!(c, '&' | '.' | '-' | '\'')))
        && words.iter().any(|w| w.chars().any(|c| c.is_alphabetic()))
}

/// Phrases that point back at a company named earlier in the conversation.
pub(super) fn is_company_reference(phrase: &str) -> bool {
    static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
        compile(
            r"(?i)^(?:it|them|they|(?:this|that|the) (?:company|firm|business|name|issuer|one|corporate|credit|borrower|group))$",
        )
    });
    REFERENCE.is_match(phrase.trim())
}

const HONORIFICS: &[&str] = &["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "lord", "lady"];
const NAME_PARTICLES: &[&str] =
    &["de", "da", "di", "del", "della", "van", "von", "der", "den", "du", "la", "le", "bin", "ibn", "al"];
const NAME_SUFFIXES: &[&str] = &["jr", "sr", "ii", "iii", "iv"];

/// A person's name as written in a request: two to four capitalised name words (initials, "O'Brien",
/// "Jean-Luc" and particles such as "van" allowed), optionally after an honorific, with no corporate
/// or institution word and no ticker-like capitals. Single words are not taken for people.
pub(super) fn is_person_name(phrase: &str) -> bool {
    static NAME_WORD: LazyLock<Regex> = LazyLock::new(|| compile(r"^(?:[A-Z][a-z]*(?:['-]?[A-Z]?[a-z]+)*|[A-Z]\.)$"));
    let words = tokens(phrase);
    let mut name_words: Vec<&str> = words.clone();
    if name_words.first().is_some_and(|w| HONORIFICS.contains(&bare_word(w).as_str())) {
        name_words.remove(0);
    }
    if name_words.last().is_some_and(|w| NAME_SUFFIXES.contains(&bare_word(w).as_str())) && name_words.len() > 2 {
        name_words.pop();
    }
    let Some((first, rest)) = name_words.split_first() else {
        return false;
    };
    fn plain<'a>(word: &&'a str) -> &'a str {
        word.trim_end_matches(',')
    }
    (2..=4).contains(&name_words.len())
        && NAME_WORD.is_match(plain(first))
        && !NON_NAME_STARTS.contains(&bare_word(first).as_str())
        && rest.last().is_some_and(|w| NAME_WORD.is_match(plain(w)) && plain(w).len() > 1)
        && rest.iter().all(|w| NAME_WORD.is_match(plain(w)) || NAME_PARTICLES.contains(&bare_word(w).as_str()))
        && !words.iter().any(|w| {
            let word = bare_word(w);
            CORPORATE_SUFFIXES.contains(&word.as_str())
                || INSTITUTION_WORDS.contains(&word.as_str())
                || TOPIC_WORDS.contains(&word.as_str())
        })
}

/// Splits "John Smith at Acme Corp" / "Dr. Ahmed Khan, CFO of Widget Ltd" / "Jane Doe (Acme)" into
/// the person and the context; `None` when the phrase does not start with a person's name.
pub(super) fn person_with_context(phrase: &str) -> Option<(String, Option<String>)> {
    static SEPARATOR: LazyLock<Regex> =
        LazyLock::new(|| compile(r",\s*|\s+\(|\s+(?:at|of|from|with|who is|who was|who runs|in)\s+|\s+-\s+"));
    let phrase = trim_sentence_end(phrase);
    if is_person_name(phrase) {
        return Some((phrase.to_owned(), None));
    }
    for separator in SEPARATOR.find_iter(phrase) {
        let name = phrase[..separator.start()].trim();
        if is_person_name(name) {
            let context = phrase[separator.end()..].trim().trim_end_matches(')').trim();
            let context = trim_sentence_end(context);
            let context = (!context.is_empty()).then(|| context.to_owned());
            return Some((name.to_owned(), context));
        }
    }
    None
}

/// A research topic worth launching on: some words, not a bare pronoun, deferral or the deal under
/// discussion ("the deal", "this loan": the web knows nothing about it).
pub(super) fn is_research_topic(phrase: &str) -> bool {
    static EMPTY_TOPIC: LazyLock<Regex> = LazyLock::new(|| {
        compile(
            r"(?i)^(?:it|this|that|them|these|those|him|her|something|anything|everything|stuff|things|more|that one|this one|this topic|that topic|the topic|the above|above|(?:the|this|that|our|my|your)\s+(?:deal|loan|facility|agreement|borrower|document|transaction|credit|file|case|company|firm|client|counterparty))$",
        )
    });
    let phrase = phrase.trim();
    phrase.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !EMPTY_TOPIC.is_match(phrase)
}

/// `text` without the span, whitespace tidied.
pub(super) fn without(text: &str, span: Range<usize>) -> String {
    let joined = format!("{} {}", &text[..span.start], &text[span.end..]);
    joined.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_expands_contractions_and_straightens_quotes() {
        assert_eq!(normalise("  What\u{2019}s   the margin?\n"), "what is the margin?");
        assert_eq!(normalise("Don't analyse Tesla's margins"), "do not analyse Tesla's margins");
    }

    #[test]
    fn framing_is_peeled_off_both_ends() {
        assert_eq!(strip_framing("Hi! Could you please analyse Apple Inc.?"), "analyse Apple Inc.");
        assert_eq!(strip_framing("ok thanks, now research SOFR for me please."), "research SOFR");
        assert_eq!(strip_framing("I would like you to look into Jane Doe"), "look into Jane Doe");
        assert_eq!(strip_framing("thanks!"), "");
    }

    #[test]
    fn companies_people_and_topics_are_told_apart() {
        assert!(is_proper_company("Acme Corp"));
        assert!(is_proper_company("Microsoft (MSFT)"));
        assert!(is_proper_company("Bank of America"));
        assert!(is_proper_company("MSFT"));
        assert!(!is_proper_company("SOFR"));
        assert!(!is_proper_company("High Yield"));
        assert!(!is_proper_company("the borrower"));
        assert!(is_person_name("Jane Doe"));
        assert!(is_person_name("Dr. Ahmed Khan"));
        assert!(is_person_name("Mary van der Berg"));
        assert!(!is_person_name("Acme Corp"));
        assert!(!is_person_name("Silicon Valley Bank"));
        assert!(!is_person_name("Apple"));
        assert!(!is_person_name("AAPL MSFT"));
        assert_eq!(
            person_with_context("John Smith at Acme Corp"),
            Some(("John Smith".to_owned(), Some("Acme Corp".to_owned())))
        );
        assert_eq!(split_ticker("Microsoft (MSFT)"), ("Microsoft".to_owned(), Some("MSFT".to_owned())));
        assert_eq!(split_ticker("$AAPL"), ("AAPL".to_owned(), Some("AAPL".to_owned())));
    }
}
