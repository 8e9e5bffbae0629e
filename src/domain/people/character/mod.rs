//! The "character" C of credit (willingness to repay: track record, litigation, integrity), read
//! from evidence passages about a person, and nothing more: no personality inference, no score
//! without the sentences behind it, and always a person in the loop.
//!
//! # What is read
//!
//! Passages are split into sentences. A sentence is about the person when it names them (the full
//! name, middle names or initials optional, case-insensitive; or the surname as a capitalised word,
//! unless another first name precedes it, "Tom Smith", or a firm word follows it, "Smith &
//! Wesson", "Smith Holdings"), or when it starts with a pronoun ("He", "She", "They", "His", "Her")
//! right after a sentence that was about them. In those sentences:
//!
//! - **Adverse findings**, by [`AdverseCategory`]: fraud, litigation, bankruptcy or insolvency,
//!   sanctions, regulatory action, criminal charges or convictions. Patterns cover inflections and
//!   the usual phrasings ("sued", "lawsuit", "indicted", "convicted", "filed for Chapter 11",
//!   "OFAC", "SEC charged", "fined by"). "Charged with" counts as criminal only when no regulator is
//!   named in the sentence.
//! - **Attribution**: a trigger counts for the person only when the person is the nearest name
//!   before it, or the person follows it in the same clause ("the SEC charged John Smith",
//!   "Bob Roe sued Jane Doe"). "John Smith testified against Bob Jones, who was convicted" is
//!   not a finding against John Smith. A name is two or more capitalised words; a company name
//!   counts as a name, so "Smith, CEO of Acme Corp, which filed for Chapter 11" is Acme's
//!   bankruptcy, not Smith's.
//! - **Mitigation**: a finding that is negated a few words before its trigger ("no record of
//!   bankruptcy", "was never sued"; "not only … but" is no negation) or resolved in the person's
//!   favour in the same `;`-delimited part of the sentence is recorded as mitigating, not adverse.
//!   Resolutions are specific to the matter: an acquittal or "cleared of" clears criminal and fraud
//!   findings, "the lawsuit was dismissed" clears litigation, "the charges were dropped" clears
//!   charges, "removed from the SDN list" clears sanctions; nothing but a negation clears a
//!   bankruptcy. So "convicted of fraud and an unrelated lawsuit was dismissed" stays adverse for
//!   the conviction, and being dismissed from a job is not an exoneration.
//! - **Businesses the person ran**: "Smith's restaurant group filed for Chapter 11" is recorded
//!   against the person (the track record of businesses they controlled is part of character); the
//!   quoted sentence shows the reviewer that it was the business.
//! - **Positive signals**, by [`PositiveKind`]: founding, leading, board service, recognition,
//!   repayment, track record ("founded", "led the", "board member", "awarded", "repaid in full").
//!
//! # Bands
//!
//! | band | when |
//! |---|---|
//! | `insufficient_evidence` | no sentence is about the person, or those that are hold no finding, mitigation or signal |
//! | `weak` | any fraud, criminal or sanctions finding; or two or more bankruptcy / regulatory findings; or one of those plus litigation; or three or more litigation findings |
//! | `adequate` | a single bankruptcy or regulatory finding, one or two litigation findings, or no adverse finding without corroborated positive signals |
//! | `strong` | no adverse finding and positive signals from at least two different sources |
//!
//! Findings are counted by distinct sentence. Every assessment requires human review and carries
//! [`CHARACTER_NOTICE`].
//!
//! # Known limits
//!
//! Pattern reading, not understanding: a namesake with the same surname is taken for the person
//! (the people workflow sets namesakes' passages aside before they get here, by
//! [`super::identity`]; this module only sees names);
//! coreference beyond a leading pronoun is not followed; sarcasm, hypotheticals and reported
//! allegations read as stated. Hence the mandatory review.

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::text::compile;

/// The fixed notice every character assessment carries.
pub const CHARACTER_NOTICE: &str = "This assessment is an adjunct to human credit judgement and must never be the sole basis of a credit decision. It was produced automatically from public text by pattern matching, may be incomplete or wrong (including confusing people with the same name), and every finding must be verified by a person against its source. Adverse-action rules (ECOA / Regulation B) require specific, accurate reasons for any denial; GDPR Art. 22 gives individuals the right not to be subject to decisions based solely on automated processing; creditworthiness assessment of natural persons is a high-risk use under the EU AI Act.";

/// A kind of adverse finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AdverseCategory {
    /// Fraud, embezzlement, bribery, money laundering, misrepresentation.
    Fraud,
    /// Lawsuits, judgments, legal action.
    Litigation,
    /// Personal or business bankruptcy, insolvency, receivership, payment default.
    BankruptcyInsolvency,
    /// Sanctions listings (OFAC, SDN, asset freezes).
    Sanctions,
    /// Regulatory enforcement: fines, bans, consent orders, cease-and-desist.
    RegulatoryAction,
    /// Criminal charges, indictments, arrests, pleas, convictions, sentences.
    Criminal,
}

impl AdverseCategory {
    /// The API value.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Fraud => "fraud",
            Self::Litigation => "litigation",
            Self::BankruptcyInsolvency => "bankruptcy_insolvency",
            Self::Sanctions => "sanctions",
            Self::RegulatoryAction => "regulatory_action",
            Self::Criminal => "criminal",
        }
    }

    /// The category in words.
    pub fn description(&self) -> &'static str {
        match self {
            Self::Fraud => "fraud",
            Self::Litigation => "litigation",
            Self::BankruptcyInsolvency => "bankruptcy or insolvency",
            Self::Sanctions => "sanctions",
            Self::RegulatoryAction => "regulatory action",
            Self::Criminal => "criminal charge or conviction",
        }
    }

    fn is_severe(&self) -> bool {
        matches!(self, Self::Fraud | Self::Criminal | Self::Sanctions)
    }
}

/// A statement about the person, quoted from a passage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What kind of finding.
    pub category: AdverseCategory,
    /// The sentence, verbatim.
    pub statement: String,
    /// The passage it was read from, as the caller numbered it.
    pub source_index: usize,
}

/// A kind of positive track-record signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PositiveKind {
    /// Founded or built a business.
    Founder,
    /// Led a business or team.
    Leadership,
    /// Serves or served on a board.
    Governance,
    /// Awards and honours.
    Recognition,
    /// Repaid debts.
    Repayment,
    /// Stated track record or experience.
    TrackRecord,
}

/// A positive statement about the person, quoted from a passage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositiveSignal {
    /// What kind of signal.
    pub kind: PositiveKind,
    /// The sentence, verbatim.
    pub statement: String,
    /// The passage it was read from.
    pub source_index: usize,
}

/// The overall reading; see "Bands" in the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreBand {
    /// No adverse finding, corroborated positive signals.
    Strong,
    /// Nothing serious found.
    Adequate,
    /// Serious or repeated adverse findings.
    Weak,
    /// Too little about the person to say anything.
    InsufficientEvidence,
}

/// The character dimension of a people assessment. Built only by [`assess_character`], so it always
/// requires human review and always carries [`CHARACTER_NOTICE`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CharacterAssessment {
    dimension: &'static str,
    score_band: ScoreBand,
    reasons: Vec<String>,
    adverse_findings: Vec<Finding>,
    mitigating_findings: Vec<Finding>,
    positive_signals: Vec<PositiveSignal>,
    sources_mentioning_person: Vec<usize>,
    requires_human_review: bool,
    notice: &'static str,
}

impl CharacterAssessment {
    /// Always `"character"`.
    pub fn dimension(&self) -> &'static str {
        self.dimension
    }

    /// The band.
    pub fn score_band(&self) -> ScoreBand {
        self.score_band
    }

    /// Why the band, in sentences a reviewer can check.
    pub fn reasons(&self) -> &[String] {
        &self.reasons
    }

    /// Adverse statements attributed to the person.
    pub fn adverse_findings(&self) -> &[Finding] {
        &self.adverse_findings
    }

    /// Adverse matters reported as negated, dismissed or cleared.
    pub fn mitigating_findings(&self) -> &[Finding] {
        &self.mitigating_findings
    }

    /// Positive track-record statements.
    pub fn positive_signals(&self) -> &[PositiveSignal] {
        &self.positive_signals
    }

    /// The passages with at least one sentence about the person.
    pub fn sources_mentioning_person(&self) -> &[usize] {
        &self.sources_mentioning_person
    }

    /// Always true.
    pub fn requires_human_review(&self) -> bool {
        self.requires_human_review
    }

    /// Always [`CHARACTER_NOTICE`].
    pub fn notice(&self) -> &'static str {
        self.notice
    }
}

static ADVERSE_PATTERNS: LazyLock<Vec<(AdverseCategory, Regex)>> = LazyLock::new(|| {
    [
        (
            AdverseCategory::Fraud,
            r"(?i)\b(?:fraud\w*|defraud\w*|embezzl\w*|ponzi|misappropriat\w*|money[\s-]laundering|launder(?:ed|ing)|forg(?:ed|ery)|insider\s+trading|brib(?:e|es|ed|ery|ing)|kickbacks?|falsif(?:y|ied|ying|ication)|cooked\s+the\s+books|accounting\s+irregularities|misrepresent(?:ed|ation))\b",
        ),
        (
            AdverseCategory::Litigation,
            r"(?i)\b(?:sued|sues|suing|lawsuits?|litigation|class[\s-]action|(?:filed|brought)\s+(?:a\s+)?(?:suit|complaint|claim)|named\s+(?:as\s+)?(?:a\s+)?defendant|defendant\s+in|judgments?\s+against|court\s+(?:ruled|found)\s+against|arbitration\s+(?:claim|award)\s+against|legal\s+action|breach\s+of\s+(?:contract|fiduciary\s+duty))\b",
        ),
        (
            AdverseCategory::BankruptcyInsolvency,
            r"(?i)\b(?:bankrupt(?:cy|cies)?|insolven(?:t|cy)|chapter\s+(?:7|11|13)|filed\s+for\s+(?:bankruptcy|protection)|creditor\s+protection|receivership|(?:went|placed)\s+into\s+administration|administration\s+order|liquidat(?:ion|ed)|defaulted\s+on|default\s+on\s+(?:\w+\s+){0,3}(?:loans?|debts?|bonds?|mortgages?|obligations)|foreclos(?:ure|ed)|individual\s+voluntary\s+arrangement|debt\s+restructuring)\b",
        ),
        (
            AdverseCategory::Sanctions,
            r"(?i)\b(?:sanctioned|subject\s+to\s+(?:\w+\s+)?sanctions|sanctions\s+list|ofac|sdn\s+list|specially\s+designated\s+nationals?|asset\s+freeze|assets\s+(?:were\s+)?frozen|designated\s+(?:by|under)\s+(?:the\s+)?(?:treasury|ofac|eu|un|uk))\b",
        ),
        (
            AdverseCategory::RegulatoryAction,
            r"(?i)\b(?:(?:sec|fca|finra|cftc|occ|fdic|doj|ftc|regulators?|authorities)\s+(?:charged|fined|sanctioned|censured|sued|barred|banned|suspended|penali[sz]ed)|(?:charged|fined|sanctioned|censured|barred|banned|suspended|penali[sz]ed)\s+by\s+(?:the\s+)?(?:sec|fca|finra|cftc|occ|fdic|doj|ftc|securities\s+and\s+exchange\s+commission|financial\s+conduct\s+authority|regulators?)|fined|civil\s+penalt(?:y|ies)|consent\s+order|cease[\s-]and[\s-]desist|enforcement\s+action|barred\s+from|banned\s+from|disqualified\s+(?:as|from)|struck\s+off|licen[cs]e\s+(?:was\s+)?revoked|revoked\s+(?:his|her|their)\s+licen[cs]e|regulatory\s+action|settled\s+with\s+the\s+(?:sec|fca|finra|cftc|doj))\b",
        ),
        (
            AdverseCategory::Criminal,
            r"(?i)\b(?:convicted|convictions?|pleaded\s+guilty|pled\s+guilty|found\s+guilty|sentenced|imprisoned|jailed|prison\s+sentence|indicted|indictment|arrested|criminal\s+(?:charges?|case|record|complaint)|charged\s+with)\b",
        ),
    ]
    .into_iter()
    .map(|(category, pattern)| (category, compile(pattern)))
    .collect()
});

static REGULATOR: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"\b(?:SEC|FCA|FINRA|CFTC|OCC|FDIC|FTC|Securities and Exchange Commission|Financial Conduct Authority)\b")
});

/// Phrases that resolve a matter of each category in the person's favour. A dismissal needs its
/// legal noun ("the lawsuit was dismissed", "charges were dropped"): being dismissed from a job is
/// not an exoneration, and a dismissed lawsuit does not clear a conviction in the same sentence.
static EXONERATIONS: LazyLock<Vec<(AdverseCategory, Regex)>> = LazyLock::new(|| {
    const DISMISSED: &str = r"(?:was|were|has\s+been|have\s+been|had\s+been)\s+(?:\w+\s+)?(?:dismissed|dropped|withdrawn|thrown\s+out|abandoned)";
    const OVERTURNED: &str = r"(?:was|were|has\s+been|have\s+been|had\s+been)\s+(?:\w+\s+)?(?:overturned|vacated|quashed|reversed|set\s+aside|rescinded|lifted)";
    let acquitted = r"cleared\s+(?:of|by)|acquitted|acquittal|exonerated|found\s+not\s+guilty|not\s+guilty|pardoned|no\s+wrongdoing";
    [
        (
            AdverseCategory::Litigation,
            format!(
                r"(?i)\b(?:(?:case|suit|lawsuit|claims?|complaint|action|proceedings?)\s+(?:\w+\s+){{0,4}}?{DISMISSED}|(?:dismissed|dropped|withdrew|withdrawn)\s+(?:the\s+|all\s+|its\s+)?(?:case|suit|lawsuit|claims?|complaint)|dismissal\s+of|ruled\s+in\s+(?:his|her|their)\s+favou?r|found\s+not\s+liable|not\s+liable|cleared\s+(?:of|by)|(?:judgment|ruling|verdict)\s+(?:\w+\s+){{0,3}}?{OVERTURNED})\b"
            ),
        ),
        (
            AdverseCategory::Criminal,
            format!(
                r"(?i)\b(?:{acquitted}|(?:charges?|indictment|case|prosecution)\s+(?:\w+\s+){{0,4}}?{DISMISSED}|(?:dismissed|dropped|withdrew|withdrawn)\s+(?:the\s+|all\s+)?(?:charges?|indictment|case)|(?:conviction|sentence|verdict)\s+(?:\w+\s+){{0,3}}?{OVERTURNED})\b"
            ),
        ),
        (
            AdverseCategory::Fraud,
            format!(
                r"(?i)\b(?:{acquitted}|(?:charges?|allegations?|claims?|accusations?|case)\s+(?:\w+\s+){{0,4}}?(?:{DISMISSED}|(?:were|was)\s+(?:found\s+)?(?:unfounded|baseless|false))|(?:conviction|verdict)\s+(?:\w+\s+){{0,3}}?{OVERTURNED})\b"
            ),
        ),
        (
            AdverseCategory::RegulatoryAction,
            format!(
                r"(?i)\b(?:cleared\s+(?:of|by)|no\s+wrongdoing|exonerated|(?:fine|penalty|order|action|ban|bar|charges?|case|suspension)\s+(?:\w+\s+){{0,4}}?(?:{DISMISSED}|{OVERTURNED}))\b"
            ),
        ),
        (
            AdverseCategory::Sanctions,
            r"(?i)\b(?:(?:removed|delisted)\s+from|sanctions\s+(?:were|have\s+been)\s+lifted|lifted\s+(?:the\s+)?sanctions|mistaken\s+identity|not\s+the\s+same\s+person)\b"
                .to_owned(),
        ),
    ]
    .into_iter()
    .map(|(category, pattern)| (category, compile(&pattern)))
    .collect()
});
static NEGATION: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\b(?:no|never|not|nor|without|neither|none|free\s+of|clean)\b"));

static POSITIVE_PATTERNS: LazyLock<Vec<(PositiveKind, Regex)>> = LazyLock::new(|| {
    [
        (
            PositiveKind::Founder,
            r"(?i)\b(?:founded|co-founded|cofounded|(?:co-)?founder\s+of|started\s+(?:the\s+|a\s+)?(?:company|business|firm)|built\s+(?:the\s+|a\s+)?(?:company|business|firm))\b",
        ),
        (
            PositiveKind::Leadership,
            r"(?i)\b(?:led\s+(?:the|a|an|its|his|her|their)\s+|leads\s+(?:the|a|an|its|his|her|their)\s+|(?:chief\s+executive|ceo|cfo|coo|president|managing\s+director|chair(?:man|woman|person)?)\s+of|served\s+as\s+(?:ceo|cfo|coo|president|chair\w*|managing\s+director)|turned\s+around|grew\s+(?:the\s+)?(?:company|business|revenue))",
        ),
        (
            PositiveKind::Governance,
            r"(?i)\b(?:board\s+member|member\s+of\s+the\s+board|(?:serves|served|sits|sat)\s+on\s+the\s+board|non-executive\s+director|independent\s+director|trustee\s+of|audit\s+committee)\b",
        ),
        (
            PositiveKind::Recognition,
            r"(?i)\b(?:awarded|award|honou?red|recogni[sz]ed\s+(?:as|for)|named\s+(?:to|one\s+of)|fellow\s+of|prize)\b",
        ),
        (
            PositiveKind::Repayment,
            r"(?i)\b(?:repaid|paid\s+(?:off|back)|never\s+missed\s+a\s+payment|on-time\s+payments?|timely\s+repayment)\b",
        ),
        (
            PositiveKind::TrackRecord,
            r"(?i)\b(?:track\s+record|successfully|profitable\s+exit|sold\s+(?:the|his|her|their)\s+company|\d+\s+years\s+of\s+experience|decades?\s+of\s+experience|well[\s-]regarded|reputation\s+for)\b",
        ),
    ]
    .into_iter()
    .map(|(kind, pattern)| (kind, compile(pattern)))
    .collect()
});

// ---- names and sentences -----------------------------------------------------------------------

const HONORIFICS: &[&str] = &["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "lord", "lady"];
const NAME_SUFFIXES: &[&str] = &["jr", "sr", "ii", "iii", "iv"];

/// How the person is recognised in text.
pub(in crate::domain::people) struct PersonMatcher {
    first_name: String,
    full: Regex,
    surname: Option<Regex>,
}

impl PersonMatcher {
    pub(in crate::domain::people) fn new(person_name: &str) -> Option<Self> {
        let words: Vec<String> = person_name
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| c == ',' || c == '.').to_owned())
            .filter(|w| !w.is_empty())
            .filter(|w| {
                let lower = w.to_lowercase();
                !HONORIFICS.contains(&lower.as_str()) && !NAME_SUFFIXES.contains(&lower.as_str())
            })
            .collect();
        let (first, last) = (words.first()?, words.last()?);
        let full = if words.len() == 1 {
            format!(r"(?i)\b{}\b", regex::escape(first))
        } else {
            // Middle names and initials are optional in the text: "John Smith" finds "John A. Smith".
            format!(r"(?i)\b{}\s+(?:[A-Z]\.?\s+|[A-Z][a-z]+\s+)?{}\b", regex::escape(first), regex::escape(last))
        };
        let surname_usable = words.len() > 1 && last.chars().count() >= 2 && last.chars().next()?.is_uppercase();
        Some(Self {
            first_name: first.clone(),
            full: Regex::new(&full).ok()?,
            surname: if surname_usable { Regex::new(&format!(r"\b{}\b", regex::escape(last))).ok() } else { None },
        })
    }

    /// Where the sentence names the person. A bare surname does not count when it is another
    /// person's ("Tom Smith") or a firm's ("Smith & Wesson", "Smith Holdings").
    pub(in crate::domain::people) fn spans(&self, sentence: &str) -> Vec<Range<usize>> {
        let mut spans: Vec<Range<usize>> = self.full.find_iter(sentence).map(|m| m.range()).collect();
        if let Some(surname) = &self.surname {
            for m in surname.find_iter(sentence) {
                let inside_full = spans.iter().any(|s| s.start <= m.start() && m.end() <= s.end);
                if !inside_full && !self.other_bearer(sentence, m.range()) {
                    spans.push(m.range());
                }
            }
        }
        spans.sort_by_key(|s| s.start);
        spans
    }

    fn other_bearer(&self, sentence: &str, surname: Range<usize>) -> bool {
        let previous = sentence[..surname.start].split_whitespace().next_back().unwrap_or("");
        let previous_word = previous.trim_end_matches('.');
        let another_first_name = previous_word.chars().next().is_some_and(char::is_uppercase)
            && previous_word.chars().count() >= 2
            && previous_word.chars().all(char::is_alphabetic)
            && !previous_word.eq_ignore_ascii_case(&self.first_name)
            && !NOT_NAME_WORDS.contains(&previous_word)
            && !TITLES.iter().any(|t| t.eq_ignore_ascii_case(previous_word));
        another_first_name || FIRM_AFTER_SURNAME.is_match(&sentence[surname.end..])
    }
}

/// Words before a surname that still mean the person ("Mr. Smith", "CEO Smith").
const TITLES: &[&str] = &[
    "mr",
    "mrs",
    "ms",
    "miss",
    "dr",
    "prof",
    "sir",
    "dame",
    "lord",
    "lady",
    "ceo",
    "cfo",
    "coo",
    "chairman",
    "chairwoman",
    "chair",
    "president",
    "founder",
    "director",
    "executive",
];

static FIRM_AFTER_SURNAME: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"^(?:\s*&|\s+(?:and\s+(?:Co|Sons|Company|Partners)|Inc|Corp|Corporation|Ltd|Limited|LLC|LLP|plc|PLC|Group|Holdings|Bank|Partners|Capital|Company|Co)\b)",
    )
});

/// Two or more capitalised words: a name (of a person or an organisation).
static NAME_SEQUENCE: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"\b[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?:\s+(?:[A-Z]\.\s+)?[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)+\b")
});

/// Capitalised words that start a sentence or a date rather than a name.
const NOT_NAME_WORDS: &[&str] = &[
    "The",
    "A",
    "An",
    "In",
    "On",
    "At",
    "He",
    "She",
    "It",
    "They",
    "His",
    "Her",
    "Their",
    "This",
    "That",
    "These",
    "Those",
    "When",
    "After",
    "Before",
    "Since",
    "During",
    "While",
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
    "Prof",
    "Former",
    "Later",
    "Also",
    "But",
    "And",
    "However",
    "According",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Chapter",
    "Yesterday",
    "Today",
    "Meanwhile",
    "Separately",
    "Earlier",
    "Previously",
    "Then",
    "Now",
    "Still",
    "Moreover",
    "Furthermore",
    "Additionally",
    "Both",
    "Neither",
    "Under",
    "Through",
    "With",
    "For",
    "From",
    "By",
    "As",
    "Of",
    "To",
    "Until",
    "Judge",
];

/// Words that make a name an organisation's. Organisations do not block attribution the way a
/// second person does ("Jane Doe founded Widget Ltd and led the company" is about Jane Doe).
const ORGANISATION_WORDS: &[&str] = &[
    "Inc",
    "Corp",
    "Corporation",
    "Ltd",
    "Limited",
    "LLC",
    "Plc",
    "PLC",
    "Bank",
    "Group",
    "Holdings",
    "Partners",
    "Capital",
    "Company",
    "Co",
    "Fund",
    "Trust",
    "Commission",
    "Authority",
    "Court",
    "University",
    "Department",
    "Agency",
    "Bureau",
    "Office",
    "Council",
    "Foundation",
    "Association",
    "Exchange",
    "Reserve",
    "Securities",
    "Industries",
    "Technologies",
    "Systems",
    "Services",
    "Solutions",
    "Ventures",
    "Investments",
    "Hospital",
];

/// Another name in a sentence.
struct OtherName {
    range: Range<usize>,
    /// A person's name rather than an organisation's.
    person_like: bool,
}

/// Names in the sentence other than the person's.
fn other_names(sentence: &str, person: &[Range<usize>]) -> Vec<OtherName> {
    NAME_SEQUENCE
        .find_iter(sentence)
        .filter_map(|m| {
            let matched = m.as_str();
            let mut kept: Vec<&str> = Vec::new();
            let mut start = m.start();
            for word in matched.split_whitespace() {
                if kept.is_empty() && NOT_NAME_WORDS.contains(&word.trim_end_matches('.')) {
                    continue;
                }
                if kept.is_empty() {
                    // The word is a slice of `matched`: its offset is where the name starts.
                    start = m.start() + (word.as_ptr() as usize - matched.as_ptr() as usize);
                }
                kept.push(word);
            }
            let range = start..m.end();
            let overlaps_person = person.iter().any(|p| p.start < range.end && range.start < p.end);
            let person_like = !kept.iter().any(|w| ORGANISATION_WORDS.contains(&w.trim_end_matches('.')));
            (kept.len() >= 2 && !overlaps_person).then_some(OtherName { range, person_like })
        })
        .collect()
}

const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "inc", "corp", "co", "ltd", "jr", "sr", "st", "vs", "no", "u.s", "e.g", "i.e",
    "plc",
];

/// The sentences of a passage, as byte ranges. Splits after ". ", "! ", "? " and at line breaks,
/// but not after abbreviations or initials.
pub(in crate::domain::people) fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut result = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let boundary = match c {
            '\n' => true,
            '.' | '!' | '?' => {
                let next_is_space = bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
                let word = text[start..i].rsplit(|ch: char| ch.is_whitespace()).next().unwrap_or("").to_lowercase();
                let is_initial = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
                next_is_space && (c != '.' || !(ABBREVIATIONS.contains(&word.as_str()) || is_initial))
            }
            _ => false,
        };
        if boundary {
            let end = i + c.len_utf8();
            if !text[start..end].trim().is_empty() {
                result.push(start..end);
            }
            start = end;
        }
    }
    if !text[start..].trim().is_empty() {
        result.push(start..text.len());
    }
    result
}

static LEADING_PRONOUN: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*(?:He|She|They|His|Her|Their)\b"));
static CLAUSE_END: LazyLock<Regex> = LazyLock::new(|| compile(r"[,;:]|\s(?:who|which|whose|whom)\s"));
static RELATIVE_PRONOUN: LazyLock<Regex> = LazyLock::new(|| compile(r"\b(?:who|which|whose|whom)\b"));

/// Whether the trigger at `trigger` in `sentence` is about the person: see "Attribution" in the
/// module documentation. In detail:
///
/// - the person following the trigger in its clause attributes it ("Bob Roe sued Jane Doe");
/// - otherwise the person must be named before it, with no other person named in between
///   ("John Smith said Bob Jones committed fraud" is not about John Smith);
/// - not when the person's name sits in an apposition after another name ("Mary Major, a rival
///   of Smith, was indicted");
/// - not when the trigger is in a relative clause about another name ("Smith, CEO of Acme Corp,
///   which filed for bankruptcy");
/// - a sentence that only continues about the person with a pronoun attributes triggers that no
///   other name precedes.
fn attributed(
    sentence: &str,
    trigger: &Range<usize>,
    person: &[Range<usize>],
    others: &[OtherName],
    continues_about_person: bool,
) -> bool {
    let clause_end = CLAUSE_END.find(&sentence[trigger.end..]).map_or(sentence.len(), |m| trigger.end + m.start());
    if person.iter().any(|s| s.start >= trigger.end && s.start < clause_end) {
        return true;
    }
    let before_trigger = |name: &&OtherName| name.range.end <= trigger.start;
    let Some(nearest_person) = person.iter().filter(|s| s.end <= trigger.start).max_by_key(|s| s.end) else {
        return continues_about_person && person.is_empty() && !others.iter().any(|n| before_trigger(&n));
    };
    let person_in_between =
        others.iter().filter(before_trigger).any(|n| n.person_like && n.range.start >= nearest_person.end);
    if person_in_between {
        return false;
    }
    let apposition = others.iter().filter(|n| n.range.end <= nearest_person.start).any(|n| {
        sentence[n.range.end..nearest_person.start].contains(',')
            && sentence[nearest_person.end..trigger.start].contains(',')
    });
    if apposition {
        return false;
    }
    let between = &sentence[nearest_person.end..trigger.start];
    let relative_about_other = RELATIVE_PRONOUN.find(between).is_some_and(|relative| {
        let relative_start = nearest_person.end + relative.start();
        others.iter().any(|n| n.range.start >= nearest_person.end && n.range.end <= relative_start)
    });
    !relative_about_other
}

/// Whether the trigger is negated by a word shortly before it in its clause ("no record of
/// bankruptcy", "has never been sued").
fn negated(sentence: &str, trigger: &Range<usize>) -> bool {
    let before = &sentence[..trigger.start];
    let clause_start = before.rfind([',', ';', ':']).map_or(0, |i| i + 1);
    let window: Vec<&str> = before[clause_start..].split_whitespace().rev().take(6).collect();
    let window = window.into_iter().rev().collect::<Vec<_>>().join(" ").to_lowercase();
    // "not only sued but also fined" affirms.
    NEGATION.is_match(&window.replace("not only", ""))
}

/// Whether the `;`-delimited part of the sentence holding the trigger reports the matter resolved
/// in the person's favour.
fn exonerated(sentence: &str, trigger: &Range<usize>, category: AdverseCategory) -> bool {
    let part_start = sentence[..trigger.start].rfind(';').map_or(0, |i| i + 1);
    let part_end = sentence[trigger.end..].find(';').map_or(sentence.len(), |i| trigger.end + i);
    let part = &sentence[part_start..part_end];
    EXONERATIONS.iter().any(|(exonerated, pattern)| *exonerated == category && pattern.is_match(part))
}

// ---- assessment --------------------------------------------------------------------------------

/// Assesses the character of `person_name` from evidence `passages`, each with the index of its
/// source (as the caller numbers its sources). See the module documentation for what is read and
/// how the band is decided. Never fails: no passage about the person gives
/// [`ScoreBand::InsufficientEvidence`].
pub fn assess_character<S: AsRef<str>>(person_name: &str, passages: &[(S, usize)]) -> CharacterAssessment {
    let name = person_name.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut adverse: Vec<Finding> = Vec::new();
    let mut mitigating: Vec<Finding> = Vec::new();
    let mut positive: Vec<PositiveSignal> = Vec::new();
    let mut mentioning: BTreeSet<usize> = BTreeSet::new();

    if let Some(matcher) = PersonMatcher::new(&name) {
        for (text, source_index) in passages {
            let text = text.as_ref();
            let mut previous_about_person = false;
            for range in sentences(text) {
                let sentence = &text[range];
                let person = matcher.spans(sentence);
                let continues = previous_about_person && LEADING_PRONOUN.is_match(sentence);
                let about_person = !person.is_empty() || continues;
                previous_about_person = about_person;
                if !about_person {
                    continue;
                }
                mentioning.insert(*source_index);
                let others = other_names(sentence, &person);
                let statement = sentence.trim().to_owned();
                for (category, pattern) in ADVERSE_PATTERNS.iter() {
                    for trigger in pattern.find_iter(sentence) {
                        let trigger_text = trigger.as_str().to_lowercase();
                        if *category == AdverseCategory::Criminal
                            && trigger_text.starts_with("charged")
                            && REGULATOR.is_match(sentence)
                        {
                            continue;
                        }
                        let trigger = trigger.range();
                        if !attributed(sentence, &trigger, &person, &others, continues) {
                            continue;
                        }
                        let finding =
                            Finding { category: *category, statement: statement.clone(), source_index: *source_index };
                        let list = if negated(sentence, &trigger) || exonerated(sentence, &trigger, *category) {
                            &mut mitigating
                        } else {
                            &mut adverse
                        };
                        if !list.contains(&finding) {
                            list.push(finding);
                        }
                        break;
                    }
                }
                for (kind, pattern) in POSITIVE_PATTERNS.iter() {
                    let signal = pattern.find_iter(sentence).map(|m| m.range()).find(|trigger| {
                        attributed(sentence, trigger, &person, &others, continues) && !negated(sentence, trigger)
                    });
                    if signal.is_some() {
                        let signal =
                            PositiveSignal { kind: *kind, statement: statement.clone(), source_index: *source_index };
                        if !positive.contains(&signal) {
                            positive.push(signal);
                        }
                    }
                }
            }
        }
    }

    // An adverse finding outweighs a mitigating reading of the same sentence and category.
    mitigating.retain(|m| !adverse.iter().any(|a| a.category == m.category && a.statement == m.statement));
    let (score_band, rationale) = band(&adverse, &mitigating, &positive);
    let reasons = reasons(&name, passages.len(), &mentioning, &adverse, &mitigating, &positive, rationale);
    CharacterAssessment {
        dimension: "character",
        score_band,
        reasons,
        adverse_findings: adverse,
        mitigating_findings: mitigating,
        positive_signals: positive,
        sources_mentioning_person: mentioning.into_iter().collect(),
        requires_human_review: true,
        notice: CHARACTER_NOTICE,
    }
}

fn distinct_statements<'a>(findings: impl Iterator<Item = &'a Finding>) -> usize {
    findings.map(|f| (f.source_index, f.statement.as_str())).collect::<BTreeSet<_>>().len()
}

fn band(adverse: &[Finding], mitigating: &[Finding], positive: &[PositiveSignal]) -> (ScoreBand, String) {
    if let Some(severe) = adverse.iter().find(|f| f.category.is_severe()) {
        return (
            ScoreBand::Weak,
            format!("Weak: a {} finding is serious enough on its own.", severe.category.description()),
        );
    }
    let moderate =
        distinct_statements(adverse.iter().filter(|f| {
            matches!(f.category, AdverseCategory::BankruptcyInsolvency | AdverseCategory::RegulatoryAction)
        }));
    let litigation = distinct_statements(adverse.iter().filter(|f| f.category == AdverseCategory::Litigation));
    if moderate >= 2 || (moderate >= 1 && litigation >= 1) || litigation >= 3 {
        return (
            ScoreBand::Weak,
            format!(
                "Weak: repeated adverse findings ({moderate} bankruptcy or regulatory, {litigation} litigation statements)."
            ),
        );
    }
    if moderate + litigation > 0 {
        return (
            ScoreBand::Adequate,
            format!(
                "Adequate: limited adverse findings ({moderate} bankruptcy or regulatory, {litigation} litigation statements) that a reviewer should weigh."
            ),
        );
    }
    let corroborating_sources = positive.iter().map(|p| p.source_index).collect::<BTreeSet<_>>().len();
    if corroborating_sources >= 2 {
        return (
            ScoreBand::Strong,
            format!(
                "Strong: no adverse findings, and positive signals from {corroborating_sources} independent sources."
            ),
        );
    }
    if !positive.is_empty() || !mitigating.is_empty() {
        return (
            ScoreBand::Adequate,
            "Adequate: no adverse findings; positive signals, if any, come from a single source.".to_owned(),
        );
    }
    (
        ScoreBand::InsufficientEvidence,
        "Insufficient evidence: nothing in the passages bears on the person's track record or integrity.".to_owned(),
    )
}

fn sources_list(sources: impl IntoIterator<Item = usize>) -> String {
    let sources: BTreeSet<usize> = sources.into_iter().collect();
    sources.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

fn reasons(
    name: &str,
    passage_count: usize,
    mentioning: &BTreeSet<usize>,
    adverse: &[Finding],
    mitigating: &[Finding],
    positive: &[PositiveSignal],
    rationale: String,
) -> Vec<String> {
    let mut reasons = Vec::new();
    if mentioning.is_empty() {
        reasons.push(format!("None of the {passage_count} passages mentions {name}."));
    } else {
        reasons.push(format!(
            "{} of the {passage_count} passages mention {name} (sources {}).",
            mentioning.len(),
            sources_list(mentioning.iter().copied())
        ));
    }
    let categories: BTreeSet<AdverseCategory> = adverse.iter().map(|f| f.category).collect();
    for category in categories {
        let findings: Vec<&Finding> = adverse.iter().filter(|f| f.category == category).collect();
        reasons.push(format!(
            "Adverse, {}: {} statement(s) (sources {}).",
            category.description(),
            findings.len(),
            sources_list(findings.iter().map(|f| f.source_index))
        ));
    }
    if !mitigating.is_empty() {
        let categories: BTreeSet<&str> = mitigating.iter().map(|f| f.category.description()).collect();
        reasons.push(format!(
            "Mitigating: {} statement(s) report {} as absent, dismissed or cleared (sources {}).",
            mitigating.len(),
            categories.into_iter().collect::<Vec<_>>().join(", "),
            sources_list(mitigating.iter().map(|f| f.source_index))
        ));
    }
    if !positive.is_empty() {
        reasons.push(format!(
            "Positive: {} track-record signal(s) (sources {}).",
            positive.len(),
            sources_list(positive.iter().map(|p| p.source_index))
        ));
    }
    reasons.push(rationale);
    reasons.push("Every finding must be verified by a person against its source before any use.".to_owned());
    reasons
}

#[cfg(test)]
mod tests;
