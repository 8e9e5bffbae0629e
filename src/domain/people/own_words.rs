//! The person's own words: quotations attributed to them by name, the only text a trait estimate
//! may rest on.
//!
//! Their *own words* are quotations attributed
//! to them by name with a speech verb next to the quotation: `"…," Doe said`, `said Jane Doe: "…"`,
//! `Jane Doe told Reuters: "…"`, `according to Jane Doe, "…"`. Text written about them is not their
//! words, and a quotation attributed only by a pronoun is left out: that under-collects rather than
//! attributing someone else's words to them.

use std::sync::LazyLock;

use regex::Regex;

use super::text::{compile, normalise, word_count};

/// Words of the person's own quoted speech or writing needed before a language model is asked to
/// estimate traits from them: below this, text estimates are noise.
pub const MIN_OWN_WORDS: usize = 300;
/// Words of the person's quotations sent to the model at most.
pub(super) const MAX_OWN_WORDS_SENT: usize = 3_000;
/// A quotation shorter than this is a scare quote or a title, not the person's speech.
const MIN_QUOTATION_WORDS: usize = 4;

/// A quotation in double quotes, straight or curly.
static QUOTATION: LazyLock<Regex> = LazyLock::new(|| compile(r#"["“]([^"“”]+)["”]"#));

const SPEECH_VERBS: &str = r"(?:said|says|told|tells|wrote|writes|added|adds|explained|explains|stated|states|recalled|recalls|argued|argues|noted|notes|insisted|insists|declared|declares|posted|posts|tweeted|tweets|commented|comments|remarked|remarks|replied|replies|continued|continues|acknowledged|acknowledges|admitted|admits)";
const HONORIFICS: &[&str] = &["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "lord", "lady"];
const NAME_SUFFIXES: &[&str] = &["jr", "sr", "ii", "iii", "iv"];

/// Recognises a quotation's speaker as the person: the full name (middle names or initials
/// optional, case-insensitive) or the capitalised surname, next to a speech verb.
struct SpeakerPatterns {
    /// `"…," Doe said` / `"…," said Jane Doe`: matched against the text after the quotation.
    after: Regex,
    /// `Jane Doe told Reuters: "…"` / `according to Doe, "…"`: matched against the text before it.
    before: Regex,
}

impl SpeakerPatterns {
    fn new(person_name: &str) -> Option<Self> {
        let words: Vec<&str> = person_name
            .split_whitespace()
            .map(|word| word.trim_matches(|c: char| c == ',' || c == '.'))
            .filter(|word| !word.is_empty())
            .filter(|word| {
                let lower = word.to_lowercase();
                !HONORIFICS.contains(&lower.as_str()) && !NAME_SUFFIXES.contains(&lower.as_str())
            })
            .collect();
        let (first, last) = (words.first()?, words.last()?);
        let speaker = if words.len() == 1 {
            format!(r"(?i:\b{})", regex::escape(first))
        } else {
            format!(
                r"(?:(?i:\b{first})\s+(?:[A-Z]\.?\s+|[A-Z][a-z]+\s+)?(?i:{last})|(?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?\b{last})\b",
                first = regex::escape(first),
                last = regex::escape(last)
            )
        };
        let verb = format!(r"(?i:\b{SPEECH_VERBS}\b)");
        let after = format!(r"^[\s,;:—–-]*(?:{speaker}\s+(?:\w+\s+)?{verb}|{verb}\s+{speaker})");
        let before = format!(
            r#"(?:{speaker}(?:,[^,"“”]{{0,80}},)?\s+(?:\w+\s+)?{verb}[^"“”.!?]{{0,60}}|(?i:according\s+to)\s+{speaker}[\s,:]*)$"#
        );
        Some(Self { after: Regex::new(&after).ok()?, before: Regex::new(&before).ok()? })
    }
}

/// The quotations attributed to the person by name (see the module documentation), each of at
/// least [`MIN_QUOTATION_WORDS`] words, without repeats.
pub(super) fn quotations_by(person: &str, passages: &[(&str, usize)]) -> Vec<String> {
    let Some(speaker) = SpeakerPatterns::new(person) else { return Vec::new() };
    let mut quotations: Vec<String> = Vec::new();
    for (text, _) in passages {
        let mut previous_end = 0;
        for quotation in QUOTATION.captures_iter(text) {
            let (Some(whole), Some(inner)) = (quotation.get(0), quotation.get(1)) else { continue };
            let before = &text[window_start(text, previous_end, whole.start())..whole.start()];
            let after = &text[whole.end()..window_end(text, whole.end())];
            previous_end = whole.end();
            let quote = inner.as_str().split_whitespace().collect::<Vec<_>>().join(" ");
            let quote = quote.trim_end_matches([',', ';', ':']);
            let attributed = speaker.after.is_match(after) || speaker.before.is_match(before);
            if attributed
                && word_count(quote) >= MIN_QUOTATION_WORDS
                && !quotations.iter().any(|seen| normalise(seen) == normalise(quote))
            {
                quotations.push(quote.to_owned());
            }
        }
    }
    quotations
}

/// Up to 160 bytes before `end`, not before the previous quotation, on a character boundary.
fn window_start(text: &str, floor: usize, end: usize) -> usize {
    let mut start = end.saturating_sub(160).max(floor);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    start
}

/// Up to 100 bytes after `start`, on a character boundary.
fn window_end(text: &str, start: usize) -> usize {
    let mut end = (start + 100).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The first quotations holding at most `limit` words in all.
pub(super) fn within_word_limit(quotations: &[String], limit: usize) -> Vec<String> {
    let mut words = 0;
    quotations
        .iter()
        .take_while(|quotation| {
            words += word_count(quotation);
            words <= limit
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotations_count_as_the_persons_words_only_when_attributed_to_them_by_name() {
        let text = "\"We never cut corners on underwriting,\" Doe said. \
            According to Jane Doe, \"growth without discipline ends badly for everyone\". \
            \"She cut every corner she could find,\" said Bob Roe. \
            Bob Roe said of Jane Doe: \"a careless and reckless manager\". \
            Jane A. Doe told Reuters on Monday: \"our lenders were repaid in full\". \
            \"Too short,\" Doe said.";
        let quotations = quotations_by("Jane Doe", &[(text, 1)]);
        assert_eq!(
            quotations,
            vec![
                "We never cut corners on underwriting",
                "growth without discipline ends badly for everyone",
                "our lenders were repaid in full",
            ]
        );
    }
}
