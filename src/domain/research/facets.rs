//! What aspect of a topic a sub-question asks about ([`Facet`]): the words that ask for it, the
//! queries that search for it, and what a passage must hold to speak to it (a risk word for
//! "risks", a number for "figures", …).

use serde::{Deserialize, Serialize};

use super::text::stem;

/// What aspect of the topic a sub-question asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Facet {
    /// What the subject is.
    Definition,
    /// Who a person is (a definition for people).
    Profile,
    /// What the subject changes or causes.
    Impact,
    /// Risks, exposures, losses, litigation.
    Risks,
    /// Numbers: volumes, rates, percentages.
    Figures,
    /// Recent developments and news.
    Recent,
    /// How several entities compare.
    Comparison,
}

impl Facet {
    /// Words in a question that ask for this facet; they are represented by the facet and so are
    /// not required of the evidence as words.
    pub(super) fn triggers(self) -> &'static [&'static str] {
        match self {
            Facet::Definition => &["define", "definition", "explain", "meaning", "means"],
            Facet::Profile => &[],
            Facet::Impact => &[
                "affect",
                "affected",
                "affects",
                "consequence",
                "consequences",
                "effect",
                "effects",
                "impact",
                "impacts",
                "influence",
                "influences",
            ],
            Facet::Risks => &["danger", "dangers", "exposure", "exposures", "risk", "risks", "risky"],
            Facet::Figures => &["data", "figure", "figures", "numbers", "statistics"],
            Facet::Recent => &["developments", "development", "latest", "news", "recent", "recently", "updates"],
            Facet::Comparison => {
                &["compare", "compared", "comparison", "differ", "difference", "differences", "versus", "vs"]
            }
        }
    }

    /// Query templates, best first; `{s}` is the subject (entities and content words).
    pub(super) fn query_templates(facet: Option<Facet>) -> &'static [&'static str] {
        match facet {
            None => &["{s}", "{s} overview", "{s} news", "{s} analysis"],
            Some(Facet::Definition) => &["what is {s}", "{s} definition", "{s} explained", "{s} overview"],
            Some(Facet::Profile) => &["{s}", "{s} biography", "{s} career background", "who is {s}"],
            Some(Facet::Impact) => &["{s} impact", "{s} effects", "{s} consequences"],
            Some(Facet::Risks) => &["{s} risks", "{s} credit risk exposure", "{s} concerns challenges"],
            Some(Facet::Figures) => &["{s} statistics", "{s} data figures", "{s} market size volume"],
            Some(Facet::Recent) => &["{s} recent developments", "{s} latest news", "{s} update"],
            Some(Facet::Comparison) => &["{s} comparison", "{s} versus", "{s} differences"],
        }
    }

    /// Whether a passage (its lower-case `text` and its `tokens`) speaks to this facet: it uses one
    /// of the facet's words (compared after stemming) or phrases, or — for figures and recent
    /// developments — states a number or a year.
    pub fn is_evidenced_by(self, text: &str, tokens: &[String]) -> bool {
        let evidence = self.evidence();
        let lower = text.to_lowercase();
        let stems: Vec<String> = evidence.words.iter().map(|word| stem(word)).collect();
        let has_word = tokens.iter().any(|token| stems.contains(token));
        let has_phrase = evidence.phrases.iter().any(|phrase| lower.contains(phrase));
        let has_number = evidence.numbers && tokens.iter().any(|token| is_number(token) && !is_year(token));
        let has_year = evidence.years && tokens.iter().any(|token| is_year(token));
        has_word || has_phrase || has_number || has_year
    }

    fn evidence(self) -> FacetEvidence {
        const DEFINING: &[&str] =
            &[" is a ", " is an ", " is the ", " are ", "refers to", "defined as", "stands for", "known as", " means "];
        match self {
            Facet::Definition => {
                FacetEvidence { words: &["definition"], phrases: DEFINING, numbers: false, years: false }
            }
            Facet::Profile => FacetEvidence {
                words: &[
                    "born",
                    "career",
                    "ceo",
                    "chairman",
                    "chief",
                    "director",
                    "executive",
                    "founder",
                    "joined",
                    "partner",
                    "president",
                    "professor",
                    "served",
                    "serves",
                ],
                phrases: &[" is a ", " is an ", " is the ", " was a ", " was the "],
                numbers: false,
                years: false,
            },
            Facet::Impact => FacetEvidence {
                words: &[
                    "affect",
                    "affected",
                    "caused",
                    "causes",
                    "change",
                    "changed",
                    "consequence",
                    "decrease",
                    "decreased",
                    "driven",
                    "drove",
                    "effect",
                    "fell",
                    "higher",
                    "impact",
                    "increase",
                    "increased",
                    "influence",
                    "influenced",
                    "led",
                    "lower",
                    "pressure",
                    "result",
                    "resulted",
                    "rise",
                    "rose",
                    "shift",
                    "shifted",
                    "transition",
                    "widened",
                ],
                phrases: &[],
                numbers: false,
                years: false,
            },
            Facet::Risks => FacetEvidence {
                words: &[
                    "challenge",
                    "concern",
                    "default",
                    "defaulted",
                    "distress",
                    "downgrade",
                    "exposure",
                    "fraud",
                    "litigation",
                    "lawsuit",
                    "loss",
                    "mismatch",
                    "risk",
                    "risky",
                    "stress",
                    "threat",
                    "uncertainty",
                    "volatile",
                    "volatility",
                    "vulnerable",
                    "warned",
                ],
                phrases: &[],
                numbers: false,
                years: false,
            },
            Facet::Figures => FacetEvidence {
                words: &[
                    "average",
                    "billion",
                    "bps",
                    "data",
                    "figure",
                    "million",
                    "percent",
                    "percentage",
                    "ratio",
                    "statistic",
                    "total",
                    "trillion",
                    "volume",
                ],
                phrases: &["%"],
                numbers: true,
                years: false,
            },
            Facet::Recent => FacetEvidence {
                words: &[
                    "announced",
                    "current",
                    "currently",
                    "development",
                    "introduced",
                    "latest",
                    "launched",
                    "month",
                    "quarter",
                    "recent",
                    "recently",
                    "today",
                    "update",
                    "updated",
                    "week",
                ],
                phrases: &[],
                numbers: false,
                years: true,
            },
            Facet::Comparison => FacetEvidence {
                words: &["compared", "comparison", "contrast", "similar", "unlike", "versus", "whereas"],
                phrases: &[" than ", " vs ", " both "],
                numbers: false,
                years: false,
            },
        }
    }
}

struct FacetEvidence {
    words: &'static [&'static str],
    phrases: &'static [&'static str],
    numbers: bool,
    years: bool,
}

fn is_number(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_digit())
}

fn is_year(token: &str) -> bool {
    token.len() == 4 && token.parse::<u32>().is_ok_and(|year| (1900..=2099).contains(&year))
}

pub(super) fn is_any_trigger(lower: &str) -> bool {
    ALL_FACETS.iter().any(|facet| facet.triggers().contains(&lower))
}

const ALL_FACETS: [Facet; 7] =
    [Facet::Definition, Facet::Profile, Facet::Impact, Facet::Risks, Facet::Figures, Facet::Recent, Facet::Comparison];
