//! Follow-up questions about the runs a chat session launched: "what's its leverage?", "why that
//! rating?", "show me the sources", "what are the main risks?", "is it done?", "compare it with
//! Contoso". They are recognised here by a fixed grammar ([`recognise_follow_up`]) and answered in
//! [`answer`] from the stored result only, each figure cited to its metric (name, formula, inputs)
//! or its source (URL, filing); a run still going answers with its progress.
//!
//! # Which messages are follow-ups
//!
//! A follow-up refers to a run already there — "its", "it", "the", "that", "this", "their" — and
//! asks about one of:
//!
//! | question | examples | answered from |
//! |---|---|---|
//! | a figure | "what's its leverage?", "the interest coverage?", "how volatile was it?", "and the PD?" | the run's metrics: name, value, formula, inputs |
//! | the rating or recommendation | "why that rating?", "what grade did it get?", "why approve with conditions?" | the grade, its PD and spread, the figure it was read from; a loan's recommendation with each reason |
//! | the risks | "what are the main risks?", "any red flags?", "how risky is it?" | the findings of concern, then those to watch, each with its metric and threshold |
//! | the sources | "show me the sources", "where does that come from?" | filings (form, date, accession, URL), price series, research and people sources `[n]` with URLs |
//! | the state | "is it done?", "how is the research going?", "status?" | status, and for research the iterations, sources and knowledge items so far |
//! | the findings | "what did it find?", "summarise it", "what's the answer?" | the stored summary or research answer with its sources |
//! | a comparison | "compare it with Contoso", "how does it compare to MSFT?", "and vs SOXX?" | launches a market analysis of both |
//!
//! A message naming a subject of its own ("what are Tesla's margins?") is not a follow-up: the
//! grammar launches an analysis of it. A definition ("what is leverage?") has no reference and is
//! not a follow-up either. Only runs of this session are read, and only those the caller may see.

mod answer;
mod topics;

use std::sync::LazyLock;

use regex::Regex;

pub use answer::{FollowUpReply, SessionRun, answer};
pub use topics::MetricTopic;

/// What a language model may ask about the session's runs (its `read_session_run` tool): the same
/// questions as the grammar's, answered by the same [`answer`].
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunQuestion {
    /// What to read from the newest run that has it.
    pub question: RunQuestionKind,
    /// For `figure`: which figure.
    #[serde(default)]
    pub topic: Option<MetricTopic>,
}

/// The kinds of [`RunQuestion`].
#[derive(Clone, Copy, Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunQuestionKind {
    Figure,
    Rating,
    Risks,
    Sources,
    Status,
    Summary,
}

impl RunQuestion {
    /// The follow-up it asks; `None` for a figure without a topic.
    pub fn follow_up(&self) -> Option<FollowUp> {
        Some(match self.question {
            RunQuestionKind::Figure => FollowUp::Metric(self.topic?),
            RunQuestionKind::Rating => FollowUp::Rating,
            RunQuestionKind::Risks => FollowUp::Risks,
            RunQuestionKind::Sources => FollowUp::Sources,
            RunQuestionKind::Status => FollowUp::Status,
            RunQuestionKind::Summary => FollowUp::Summary,
        })
    }
}

/// What a follow-up asks about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FollowUp {
    /// A figure of the run.
    Metric(MetricTopic),
    /// The rating, grade or recommendation, and why.
    Rating,
    /// The findings of concern.
    Risks,
    /// Where the figures or statements come from.
    Sources,
    /// Whether it is done, and how far it got.
    Status,
    /// What it found.
    Summary,
    /// The run's subject against another (as the user named it).
    Compare(String),
}

fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|error| panic!("follow-up pattern {pattern:?}: {error}"))
}

/// A reference to something already there.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)\b(?:its|it|the|that|this|their|them)\b"));

/// "compare it with X", "how does it compare to X", "and vs X", "what about against X".
static COMPARE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:ok|so|now|and|then|please|can you|could you)[,\s]+)*(?:compare (?:it|this|that|them|the (?:company|firm|borrower|result)|this company|that company) (?:with|to|against|and|vs\.?|versus)|how (?:does|did|do) (?:it|this|that|they) (?:compare|stack up|fare) (?:with|to|against)|(?:and |what about |how about )?(?:vs\.?|versus|against))\s+(?P<other>[^?.!]+?)\s*[?.!]*$",
    )
});

static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:ok|so|and)[,\s]+)?(?:is (?:it|that|the (?:analysis|research|run|report)) (?:done|finished|complete|completed|ready)(?: yet)?|how(?: is|'s) (?:it|that|the (?:analysis|research|run)) (?:going|coming along|doing)|(?:what(?: is|'s) )?the (?:status|progress)(?: of (?:it|that|the (?:analysis|research|run)))?|(?:any )?(?:progress|status|updates?)(?: on (?:it|that|the (?:analysis|research|run)))?)\s*[?.!]*$",
    )
});

static SOURCES: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:sources?|references|citations|provenance|filings? (?:used|read|behind)|where (?:does|did|do) (?:it|that|this|these|the (?:numbers|figures|data)) come from|where (?:is|are) (?:it|that|this|these|the (?:numbers|figures|data)) from)\b",
    )
});

static RATING: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:rating|rated|grade|graded|recommendation|recommend(?:ed)?|approve(?:d)?|decline(?:d)?|verdict)\b",
    )
});

static RISKS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:risks?|concerns?|red flags?|weak(?:ness|nesses|points?)|worries|what should (?:i|we) worry about|how risky)\b",
    )
});

static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:ok|so|and)[,\s]+)?(?:what did (?:it|that|the (?:analysis|research|run)) (?:find|say|conclude|show)|what(?: is|'s| was) (?:the|its) (?:answer|conclusion|result|outcome|summary|bottom line)|summari[sz]e (?:it|that|the (?:results?|analysis|research|findings))|(?:give me )?the (?:summary|gist|highlights))\s*[?.!]*$",
    )
});

/// Asks something rather than tells: a question mark, a question word, or an imperative of showing.
static ASKS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:\?\s*$|^(?:(?:ok|so|and|then|now|please)[,\s]+)*(?:what|which|why|how|where|show|list|give|tell|explain|any|is|are|was|were|did|does|do|can|could|walk)\b|^(?:and )?(?:its|the|their)\b)",
    )
});

/// Words that make a message about something else than a finished run.
static OTHER_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"\b[A-Z][A-Za-z0-9&.-]*'s\b|(?i:\b(?:analy[sz]e|analy[sz]is of|research|look into|launch)\b)")
});

/// Contractions that look like a possessive of a name.
const CONTRACTIONS: [&str; 9] = ["it's", "that's", "what's", "how's", "where's", "who's", "there's", "here's", "let's"];

/// The follow-up `message` asks, if it is one (see the [module documentation](self)).
pub fn recognise_follow_up(message: &str) -> Option<FollowUp> {
    let message = message.trim().replace(['’', '‘'], "'");
    if message.is_empty() || message.len() > 300 {
        return None;
    }
    if let Some(captures) = COMPARE.captures(&message) {
        let other = captures["other"].trim().trim_start_matches("with ").trim();
        let blank = other.is_empty() || REFERENCE.is_match(other) && other.split_whitespace().count() == 1;
        return (!blank).then(|| FollowUp::Compare(other.to_owned()));
    }
    if STATUS.is_match(&message) {
        return Some(FollowUp::Status);
    }
    if SUMMARY.is_match(&message) {
        return Some(FollowUp::Summary);
    }
    // The rest must ask about something already there, and name no other subject.
    let possessive_of_another = OTHER_SUBJECT
        .find_iter(&message)
        .any(|found| !CONTRACTIONS.contains(&found.as_str().to_ascii_lowercase().as_str()));
    if !ASKS.is_match(&message) || !REFERENCE.is_match(&message) || possessive_of_another {
        return None;
    }
    if SOURCES.is_match(&message) {
        return Some(FollowUp::Sources);
    }
    if let Some(topic) = MetricTopic::named_in(&message) {
        return Some(FollowUp::Metric(topic));
    }
    if RATING.is_match(&message) {
        return Some(FollowUp::Rating);
    }
    if RISKS.is_match(&message) {
        return Some(FollowUp::Risks);
    }
    None
}

#[cfg(test)]
mod tests;
