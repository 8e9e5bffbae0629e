//! The companies a turn of the conversation mentions, so that "analyse it" can resolve to the
//! company an earlier turn talked about: names with a parenthesised ticker, names with a corporate
//! suffix, cashtags and, in the user's own words, a capitalised name after "about", "on", "of" and
//! the like.

use std::sync::LazyLock;

use regex::Regex;

use super::phrases::{bare_word, compile, is_person_name, is_proper_company, split_ticker, trim_sentence_end};

/// A company mentioned in a turn of the conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct CompanyMention {
    pub name: String,
    pub ticker: Option<String>,
}

/// Leading words that the mention patterns may sweep up at the start of a sentence.
const MENTION_NOISE: &[&str] = &[
    "the",
    "a",
    "an",
    "i",
    "we",
    "you",
    "analysis",
    "report",
    "review",
    "assessment",
    "summary",
    "overview",
    "here",
    "launched",
    "started",
    "of",
    "and",
    "&",
    "de",
    "for",
    "on",
    "about",
    "what",
    "tell",
    "me",
    "analyse",
    "analyze",
    "assess",
    "sure",
    "ok",
    "okay",
    "done",
    "great",
    "thanks",
    "hi",
    "hello",
    "so",
    "is",
    "are",
    "how",
    "why",
    "when",
];

fn tidy_mention(raw: &str) -> Option<String> {
    let words: Vec<&str> = raw.split_whitespace().collect();
    let start = words.iter().position(|w| !MENTION_NOISE.contains(&bare_word(w).as_str()))?;
    let name = words[start..].join(" ");
    (name.chars().any(|c| c.is_alphabetic())).then_some(name)
}

static NAME_WITH_TICKER: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?P<name>[A-Z][\w&.'-]*(?:\s+(?:[A-Z][\w&.'-]*|&|of|de))*)\s*\((?:(?:NYSE|NASDAQ|Nasdaq|LSE):\s*)?(?P<t>[A-Z]{1,5}(?:\.[A-Z]{1,2})?)\)",
    )
});
static NAME_WITH_SUFFIX: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?P<name>[A-Z][\w&.'-]*(?:\s+(?:[A-Z][\w&.'-]*|&|of|de))*?\s+(?:Inc\.?|Incorporated|Corp\.?|Corporation|LLC|Ltd\.?|Limited|plc|PLC|Plc|AG|SA|S\.A\.|NV|N\.V\.|GmbH|SE|LP|L\.P\.|LLP|Co\.|Bank|Bancorp|Group|Holdings))(?:\s|$|[,;:!?)]|\.)",
    )
});
static CASHTAG: LazyLock<Regex> = LazyLock::new(|| compile(r"\$(?P<t>[A-Z]{1,5})\b"));
static USER_OBJECT: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"\b(?:about|on|of|for|into|analy[sz]e|assess)\s+(?P<name>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})")
});

/// The distinct companies a turn mentions: names with a parenthesised ticker, names with a
/// corporate suffix, cashtags, and (in the user's own words) a capitalised name after "about",
/// "on", "of", "for" or an analysis verb.
pub(super) fn company_mentions(text: &str, from_user: bool) -> Vec<CompanyMention> {
    let mut mentions: Vec<CompanyMention> = Vec::new();
    let mut add = |name: String, ticker: Option<String>| {
        let key = name.to_lowercase();
        match mentions.iter_mut().find(|m| {
            m.name.to_lowercase() == key
                || (ticker.is_some() && m.ticker == ticker)
                || m.ticker.as_deref() == Some(name.as_str())
        }) {
            Some(existing) => {
                if existing.ticker.is_none() {
                    existing.ticker = ticker;
                }
            }
            None => mentions.push(CompanyMention { name, ticker }),
        }
    };
    for captures in NAME_WITH_TICKER.captures_iter(text) {
        if let (Some(name), Some(ticker)) = (captures.name("name"), captures.name("t"))
            && let Some(name) = tidy_mention(name.as_str())
        {
            add(trim_sentence_end(&name).to_owned(), Some(ticker.as_str().to_owned()));
        }
    }
    for captures in NAME_WITH_SUFFIX.captures_iter(text) {
        if let Some(name) = captures.name("name").and_then(|m| tidy_mention(m.as_str()))
            && name.split_whitespace().count() >= 2
            && !is_person_name(&name)
        {
            add(name, None);
        }
    }
    for captures in CASHTAG.captures_iter(text) {
        if let Some(ticker) = captures.name("t") {
            add(ticker.as_str().to_owned(), Some(ticker.as_str().to_owned()));
        }
    }
    if from_user {
        for captures in USER_OBJECT.captures_iter(text) {
            if let Some(name) = captures.name("name") {
                let name = trim_sentence_end(name.as_str());
                if is_proper_company(name) && !is_person_name(name) {
                    let (name, ticker) = split_ticker(name);
                    add(name, ticker);
                }
            }
        }
    }
    mentions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_find_suffixed_names_and_tickers() {
        let mentions = company_mentions("I launched a credit analysis for Microsoft (MSFT).", false);
        assert_eq!(mentions, vec![CompanyMention { name: "Microsoft".into(), ticker: Some("MSFT".into()) }]);
        let mentions = company_mentions("What do you know about Apple Inc.?", true);
        assert_eq!(mentions, vec![CompanyMention { name: "Apple Inc.".into(), ticker: None }]);
        assert!(company_mentions("Sure, here is an overview of the market.", false).is_empty());
    }
}
