//! Scoring the IPIP-50: the public-domain 50-item Big-Five factor markers of the International
//! Personality Item Pool (Goldberg, 1992; published at ipip.ori.org). This is the honest way to put
//! numbers on personality: the person answers the inventory, and every score can be traced to the
//! answers that produced it.
//!
//! # Instrument and key
//!
//! Fifty first-person statements ("Am the life of the party") rated 1 (very inaccurate) to 5 (very
//! accurate). Items cycle through the five scales in the published order: item 1, 6, 11, … 46 are
//! Extraversion; 2, 7, … 47 Agreeableness; 3, 8, … 48 Conscientiousness; 4, 9, … 49 Emotional
//! Stability; 5, 10, … 50 Intellect/Imagination. Each item is keyed `+` or `−` as in the published
//! key, [`IPIP50_KEY`].
//!
//! # Scoring
//!
//! - A `−` keyed answer is reversed: 6 − x. A `+` keyed answer counts as given.
//! - A scale's item mean is the mean of its ten keyed answers (1–5).
//! - Its score is that mean on 0–100: (mean − 1) / 4 · 100. All 3s give 50 everywhere.
//! - Scores are reported under the OCEAN names the rest of the service uses. Intellect/Imagination
//!   is reported as **openness**. The IPIP measures **emotional stability**, the opposite pole of
//!   neuroticism; **neuroticism** is reported by scoring the same ten items with their keys
//!   inverted, which gives item mean 6 − (emotional-stability mean) and score 100 − (emotional-
//!   stability score). Both are exact transformations of the answers, not estimates.
//! - Confidence is 1.0: the scores are computed from the person's own answers, not inferred. (That
//!   says nothing about whether the person answered candidly; a self-report inventory cannot.)
//!
//! Without answers there is nothing to score: [`BigFiveScores::unavailable`] reports every trait as
//! unknown with confidence 0, which is what text-only "personality estimates" should honestly be
//! when there is too little text.

use std::collections::BTreeMap;

use serde::Serialize;

use IpipScale::{
    Agreeableness as A, Conscientiousness as C, EmotionalStability as ES, Extraversion as E, IntellectImagination as I,
};
use Keying::{Minus, Plus};

/// The instrument, as cited in every score.
pub const IPIP50_INSTRUMENT: &str =
    "IPIP Big-Five Factor Markers, 50 items (Goldberg, 1992; ipip.ori.org; public domain)";

/// A scale of the IPIP-50.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IpipScale {
    /// Factor I.
    Extraversion,
    /// Factor II.
    Agreeableness,
    /// Factor III.
    Conscientiousness,
    /// Factor IV, the opposite pole of neuroticism.
    EmotionalStability,
    /// Factor V, reported as openness.
    IntellectImagination,
}

impl IpipScale {
    /// The scale's name as the IPIP publishes it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Extraversion => "Extraversion",
            Self::Agreeableness => "Agreeableness",
            Self::Conscientiousness => "Conscientiousness",
            Self::EmotionalStability => "Emotional Stability",
            Self::IntellectImagination => "Intellect/Imagination",
        }
    }
}

/// Whether agreeing with an item raises (`Plus`) or lowers (`Minus`) its scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Keying {
    /// Scored as answered.
    Plus,
    /// Reverse-scored: 6 − answer.
    Minus,
}

/// One item of the inventory with its scoring key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IpipItem {
    /// Position in the questionnaire, 1–50.
    pub number: u8,
    /// The scale it measures.
    pub scale: IpipScale,
    /// Its key.
    pub keying: Keying,
    /// The statement rated.
    pub text: &'static str,
}

const fn item(number: u8, scale: IpipScale, keying: Keying, text: &'static str) -> IpipItem {
    IpipItem { number, scale, keying, text }
}

/// The published IPIP-50 scoring key: item number, scale, key and text, in questionnaire order.
/// Per scale, the `−` keyed items are: Extraversion 6, 16, 26, 36, 46; Agreeableness 2, 12, 22, 32;
/// Conscientiousness 8, 18, 28, 38; Emotional Stability 4, 14, 24, 29, 34, 39, 44, 49;
/// Intellect/Imagination 10, 20, 30.
pub const IPIP50_KEY: [IpipItem; 50] = [
    item(1, E, Plus, "Am the life of the party."),
    item(2, A, Minus, "Feel little concern for others."),
    item(3, C, Plus, "Am always prepared."),
    item(4, ES, Minus, "Get stressed out easily."),
    item(5, I, Plus, "Have a rich vocabulary."),
    item(6, E, Minus, "Don't talk a lot."),
    item(7, A, Plus, "Am interested in people."),
    item(8, C, Minus, "Leave my belongings around."),
    item(9, ES, Plus, "Am relaxed most of the time."),
    item(10, I, Minus, "Have difficulty understanding abstract ideas."),
    item(11, E, Plus, "Feel comfortable around people."),
    item(12, A, Minus, "Insult people."),
    item(13, C, Plus, "Pay attention to details."),
    item(14, ES, Minus, "Worry about things."),
    item(15, I, Plus, "Have a vivid imagination."),
    item(16, E, Minus, "Keep in the background."),
    item(17, A, Plus, "Sympathize with others' feelings."),
    item(18, C, Minus, "Make a mess of things."),
    item(19, ES, Plus, "Seldom feel blue."),
    item(20, I, Minus, "Am not interested in abstract ideas."),
    item(21, E, Plus, "Start conversations."),
    item(22, A, Minus, "Am not interested in other people's problems."),
    item(23, C, Plus, "Get chores done right away."),
    item(24, ES, Minus, "Am easily disturbed."),
    item(25, I, Plus, "Have excellent ideas."),
    item(26, E, Minus, "Have little to say."),
    item(27, A, Plus, "Have a soft heart."),
    item(28, C, Minus, "Often forget to put things back in their proper place."),
    item(29, ES, Minus, "Get upset easily."),
    item(30, I, Minus, "Do not have a good imagination."),
    item(31, E, Plus, "Talk to a lot of different people at parties."),
    item(32, A, Minus, "Am not really interested in others."),
    item(33, C, Plus, "Like order."),
    item(34, ES, Minus, "Change my mood a lot."),
    item(35, I, Plus, "Am quick to understand things."),
    item(36, E, Minus, "Don't like to draw attention to myself."),
    item(37, A, Plus, "Take time out for others."),
    item(38, C, Minus, "Shirk my duties."),
    item(39, ES, Minus, "Have frequent mood swings."),
    item(40, I, Plus, "Use difficult words."),
    item(41, E, Plus, "Don't mind being the center of attention."),
    item(42, A, Plus, "Feel others' emotions."),
    item(43, C, Plus, "Follow a schedule."),
    item(44, ES, Minus, "Get irritated easily."),
    item(45, I, Plus, "Spend time reflecting on things."),
    item(46, E, Minus, "Am quiet around strangers."),
    item(47, A, Plus, "Make people feel at ease."),
    item(48, C, Plus, "Am exacting in my work."),
    item(49, ES, Minus, "Often feel blue."),
    item(50, I, Plus, "Am full of ideas."),
];

/// One trait's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraitScore {
    /// 0–100, or `None` when the trait could not be measured.
    pub score: Option<f64>,
    /// The mean keyed answer on the 1–5 scale the score was computed from.
    pub item_mean: Option<f64>,
    /// 1.0 for the inventory's own answers; 0 when unavailable.
    pub confidence: f64,
    /// Which items produced the score and how, or why there is none.
    pub evidence: String,
    /// The instrument, when one was used.
    pub instrument: Option<String>,
}

impl TraitScore {
    fn unavailable(reason: &str) -> Self {
        Self { score: None, item_mean: None, confidence: 0.0, evidence: reason.to_owned(), instrument: None }
    }
}

/// The Big Five, under their OCEAN names.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BigFiveScores {
    /// IPIP Intellect/Imagination.
    pub openness: TraitScore,
    /// IPIP Conscientiousness.
    pub conscientiousness: TraitScore,
    /// IPIP Extraversion.
    pub extraversion: TraitScore,
    /// IPIP Agreeableness.
    pub agreeableness: TraitScore,
    /// IPIP Emotional Stability with its keys inverted (100 − emotional stability).
    pub neuroticism: TraitScore,
    /// Whether any trait was measured.
    pub available: bool,
}

impl BigFiveScores {
    /// Every trait unknown, with confidence 0 and `reason` as the evidence ("no questionnaire
    /// answers and too little text by the person to estimate traits").
    pub fn unavailable(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self {
            openness: TraitScore::unavailable(&reason),
            conscientiousness: TraitScore::unavailable(&reason),
            extraversion: TraitScore::unavailable(&reason),
            agreeableness: TraitScore::unavailable(&reason),
            neuroticism: TraitScore::unavailable(&reason),
            available: false,
        }
    }
}

/// Why a set of answers cannot be scored. Each variant names the offending item where there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IpipError {
    /// The IPIP-50 has exactly 50 items.
    #[error("the IPIP-50 needs exactly 50 answers, got {got}")]
    WrongCount {
        /// How many answers were given.
        got: usize,
    },
    /// Answers are 1 (very inaccurate) to 5 (very accurate).
    #[error("item {item}: answer {value} is outside 1 to 5")]
    OutOfRange {
        /// The item number, 1–50.
        item: u32,
        /// The answer given.
        value: u8,
    },
    /// An answer to an item the inventory does not have.
    #[error("item {item} is not an IPIP-50 item (items are numbered 1 to 50)")]
    UnknownItem {
        /// The item number given.
        item: u32,
    },
    /// An item without an answer.
    #[error("item {item} is unanswered")]
    MissingItem {
        /// The item number, 1–50.
        item: u32,
    },
}

/// Scores 50 answers given in questionnaire order (`responses[0]` answers item 1).
///
/// # Errors
///
/// [`IpipError::WrongCount`] unless there are exactly 50 answers; [`IpipError::OutOfRange`] for
/// the first answer outside 1–5, naming its item.
pub fn score_ipip50(responses: &[u8]) -> Result<BigFiveScores, IpipError> {
    if responses.len() != IPIP50_KEY.len() {
        return Err(IpipError::WrongCount { got: responses.len() });
    }
    let mut answers = [0u8; 50];
    for (i, &value) in responses.iter().enumerate() {
        let item = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if !(1..=5).contains(&value) {
            return Err(IpipError::OutOfRange { item, value });
        }
        answers[i] = value;
    }
    Ok(score_answers(&answers))
}

/// Scores answers keyed by item number (1–50).
///
/// # Errors
///
/// [`IpipError::UnknownItem`] for an item number outside 1–50, [`IpipError::OutOfRange`] for an
/// answer outside 1–5, [`IpipError::MissingItem`] for the first unanswered item.
pub fn score_ipip50_items(answers: &BTreeMap<u32, u8>) -> Result<BigFiveScores, IpipError> {
    let mut ordered = [0u8; 50];
    for (&item, &value) in answers {
        if !(1..=50).contains(&item) {
            return Err(IpipError::UnknownItem { item });
        }
        if !(1..=5).contains(&value) {
            return Err(IpipError::OutOfRange { item, value });
        }
        ordered[(item - 1) as usize] = value;
    }
    if let Some(missing) = ordered.iter().position(|&value| value == 0) {
        return Err(IpipError::MissingItem { item: u32::try_from(missing + 1).unwrap_or(u32::MAX) });
    }
    Ok(score_answers(&ordered))
}

/// The keyed answer: as given for `+` items, 6 − x for `−` items.
fn keyed(item: &IpipItem, answer: u8) -> u32 {
    match item.keying {
        Keying::Plus => u32::from(answer),
        Keying::Minus => 6 - u32::from(answer),
    }
}

fn numbers(items: &[&IpipItem]) -> String {
    items.iter().map(|item| item.number.to_string()).collect::<Vec<_>>().join(", ")
}

/// Scores one scale; `invert` reports its opposite pole (emotional stability as neuroticism).
fn scale_score(answers: &[u8; 50], scale: IpipScale, invert: bool) -> TraitScore {
    let items: Vec<&IpipItem> = IPIP50_KEY.iter().filter(|item| item.scale == scale).collect();
    let sum: u32 = items
        .iter()
        .map(|item| {
            let keyed = keyed(item, answers[usize::from(item.number - 1)]);
            if invert { 6 - keyed } else { keyed }
        })
        .sum();
    // Ten items: mean − 1 = (sum − 10) / 10, and / 4 · 100 makes (sum − 10) · 2.5, exact in f64.
    let score = (f64::from(sum) - 10.0) * 2.5;
    let item_mean = f64::from(sum) / 10.0;
    let reversed: Vec<&IpipItem> =
        items.iter().copied().filter(|item| (item.keying == Keying::Minus) != invert).collect();
    let evidence = if invert {
        format!(
            "IPIP-50 {} items {} scored with inverted keys for neuroticism (reverse-scored: {}); item mean {item_mean} of 5; equals 100 minus the emotional stability score",
            scale.name(),
            numbers(&items),
            numbers(&reversed)
        )
    } else {
        format!(
            "IPIP-50 {} items {} (reverse-scored: {}); item mean {item_mean} of 5",
            scale.name(),
            numbers(&items),
            numbers(&reversed)
        )
    };
    TraitScore {
        score: Some(score),
        item_mean: Some(item_mean),
        confidence: 1.0,
        evidence,
        instrument: Some(IPIP50_INSTRUMENT.to_owned()),
    }
}

fn score_answers(answers: &[u8; 50]) -> BigFiveScores {
    BigFiveScores {
        openness: scale_score(answers, IpipScale::IntellectImagination, false),
        conscientiousness: scale_score(answers, IpipScale::Conscientiousness, false),
        extraversion: scale_score(answers, IpipScale::Extraversion, false),
        agreeableness: scale_score(answers, IpipScale::Agreeableness, false),
        neuroticism: scale_score(answers, IpipScale::EmotionalStability, true),
        available: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(scores: &BigFiveScores) -> [Option<f64>; 5] {
        [
            scores.openness.score,
            scores.conscientiousness.score,
            scores.extraversion.score,
            scores.agreeableness.score,
            scores.neuroticism.score,
        ]
    }

    #[test]
    fn the_key_cycles_through_the_scales_with_ten_items_each() {
        let scales = [IpipScale::Extraversion, A, C, ES, I];
        for (i, item) in IPIP50_KEY.iter().enumerate() {
            assert_eq!(usize::from(item.number), i + 1);
            assert_eq!(item.scale, scales[i % 5], "item {}", item.number);
        }
        let minus = |scale| IPIP50_KEY.iter().filter(|i| i.scale == scale && i.keying == Keying::Minus).count();
        assert_eq!([minus(E), minus(A), minus(C), minus(ES), minus(I)], [5, 4, 4, 8, 3]);
    }

    #[test]
    fn all_threes_score_fifty_everywhere() {
        let result = score_ipip50(&[3; 50]).expect("valid answers");
        assert_eq!(scores(&result), [Some(50.0); 5]);
        assert!(result.available);
        assert_eq!(result.openness.confidence, 1.0);
        assert_eq!(result.openness.instrument.as_deref(), Some(IPIP50_INSTRUMENT));
    }

    #[test]
    fn all_fives_show_the_reverse_keyed_items() {
        // A keyed answer is 5 for a + item and 6 − 5 = 1 for a − item; score = (sum − 10) · 2.5.
        // Openness (I/I): 7 plus · 5 + 3 minus · 1 = 38 → 70.
        // Conscientiousness: 6 · 5 + 4 · 1 = 34 → 60.
        // Extraversion: 5 · 5 + 5 · 1 = 30 → 50.
        // Agreeableness: 6 · 5 + 4 · 1 = 34 → 60.
        // Emotional stability: 2 · 5 + 8 · 1 = 18 → 20, so neuroticism = 100 − 20 = 80
        //   (inverted keys: 2 · 1 + 8 · 5 = 42 → 80).
        let result = score_ipip50(&[5; 50]).expect("valid answers");
        assert_eq!(scores(&result), [Some(70.0), Some(60.0), Some(50.0), Some(60.0), Some(80.0)]);
        assert_eq!(result.neuroticism.item_mean, Some(4.2));
    }

    #[test]
    fn all_ones_mirror_all_fives() {
        // Openness: 7 · 1 + 3 · 5 = 22 → 30; C and A: 6 · 1 + 4 · 5 = 26 → 40; E: 30 → 50;
        // emotional stability: 2 · 1 + 8 · 5 = 42 → 80, so neuroticism 20.
        let result = score_ipip50(&[1; 50]).expect("valid answers");
        assert_eq!(scores(&result), [Some(30.0), Some(40.0), Some(50.0), Some(40.0), Some(20.0)]);
    }

    #[test]
    fn a_mixed_vector_scores_as_computed_by_hand() {
        // Items 1–25 answered 4, items 26–50 answered 2. Keyed values (− items reversed: 6 − 4 = 2,
        // 6 − 2 = 4):
        // E  1+4  6−2 11+4 16−2 21+4 | 26−4 31+2 36−4 41+2 46−4 = 32 → (32 − 10) · 2.5 = 55
        // A  2−2  7+4 12−2 17+4 22−2 | 27+2 32−4 37+2 42+2 47+2 = 26 → 40
        // C  3+4  8−2 13+4 18−2 23+4 | 28−4 33+2 38−4 43+2 48+2 = 30 → 50
        // ES 4−2  9+4 14−2 19+4 24−2 | 29−4 34−4 39−4 44−4 49−4 = 34 → 60, neuroticism 40
        // I  5+4 10−2 15+4 20−2 25+4 | 30−4 35+2 40+2 45+2 50+2 = 28 → 45
        let mut answers = [4u8; 50];
        answers[25..].fill(2);
        let result = score_ipip50(&answers).expect("valid answers");
        assert_eq!(scores(&result), [Some(45.0), Some(50.0), Some(55.0), Some(40.0), Some(40.0)]);
        assert_eq!(result.extraversion.item_mean, Some(3.2));
        assert!(result.extraversion.evidence.contains("items 1, 6, 11, 16, 21, 26, 31, 36, 41, 46"));
        assert!(result.extraversion.evidence.contains("reverse-scored: 6, 16, 26, 36, 46"));
    }

    #[test]
    fn answers_by_item_number_score_like_answers_in_order() {
        let mut answers = [4u8; 50];
        answers[25..].fill(2);
        let by_item: BTreeMap<u32, u8> = (1..=50).zip(answers).collect();
        assert_eq!(score_ipip50_items(&by_item), score_ipip50(&answers));
    }

    #[test]
    fn invalid_answers_name_the_offending_item() {
        assert_eq!(score_ipip50(&[3; 49]), Err(IpipError::WrongCount { got: 49 }));
        assert_eq!(score_ipip50(&[3; 51]), Err(IpipError::WrongCount { got: 51 }));
        let mut answers = [3u8; 50];
        answers[16] = 6;
        assert_eq!(score_ipip50(&answers), Err(IpipError::OutOfRange { item: 17, value: 6 }));
        answers[16] = 0;
        assert_eq!(score_ipip50(&answers), Err(IpipError::OutOfRange { item: 17, value: 0 }));

        let mut by_item: BTreeMap<u32, u8> = (1..=50).map(|item| (item, 3)).collect();
        by_item.remove(&33);
        assert_eq!(score_ipip50_items(&by_item), Err(IpipError::MissingItem { item: 33 }));
        by_item.insert(33, 3);
        by_item.insert(51, 3);
        assert_eq!(score_ipip50_items(&by_item), Err(IpipError::UnknownItem { item: 51 }));
        by_item.remove(&51);
        by_item.insert(8, 9);
        assert_eq!(score_ipip50_items(&by_item), Err(IpipError::OutOfRange { item: 8, value: 9 }));
        assert_eq!(IpipError::OutOfRange { item: 8, value: 9 }.to_string(), "item 8: answer 9 is outside 1 to 5");
    }

    #[test]
    fn unavailable_scores_are_null_with_zero_confidence() {
        let result = BigFiveScores::unavailable("too little text by the person");
        assert!(!result.available);
        assert_eq!(scores(&result), [None; 5]);
        assert_eq!(result.agreeableness.confidence, 0.0);
        let json = serde_json::to_value(&result).expect("serialises");
        assert_eq!(json["neuroticism"]["score"], serde_json::Value::Null);
        assert_eq!(json["neuroticism"]["evidence"], "too little text by the person");
    }
}
