//! Reading a row label as people write it: the synonym table's label with the qualifiers
//! statements put around it, each qualifier judged by whether it leaves the figure what the item
//! is.
//!
//! A label is read in this order, and the first reading that applies is the answer:
//! 1. the normalised label is in [`synonyms::SYNONYMS`] (an item) or [`synonyms::NOT_USED`]
//!    (refused, with its reason);
//! 2. a loss hint joined to a profit word is dropped, because the figure is signed as income
//!    (`Operating (loss)/profit`, `(Loss) income from operations`, `Net profit/loss after tax`);
//! 3. a tax label's parentheses say which side is shown negative: `Tax provision (benefit)` is
//!    the expense, read; `Income tax (expense) benefit`, `Benefit for income taxes` show the
//!    benefit positive, the opposite of the item's sign, refused;
//! 4. a loss where the table has income (`Net loss`, `Operating loss`, `Loss from operations`)
//!    is refused: a loss stated as a positive number has the opposite sign;
//! 5. depreciation or amortisation alone is half of the item, with impairment more than it;
//! 6. qualifiers are peeled off the end (`(…)`, `, …`, ` - …`) and `total`, `consolidated` or
//!    `group` off the front until a table label is left; every qualifier must then leave the
//!    figure unchanged for that item: units the sheet reader honours (`(in millions)`), `total`,
//!    `consolidated`, `unaudited`, `restated`, `as reported`, and per item `(EBIT)` for operating
//!    income, `, net` for revenue, `including current portion` for total debt, `non-operating`
//!    for interest expense. A qualifier that changes the figure (`, net` for interest expense or
//!    capital expenditure, `net of …`, `before …`, `attributable to …`, `from continuing
//!    operations`, `excluding …`, `adjusted`, `less current portion`) refuses the row with the
//!    reason; one not known either way refuses it as not known to leave the item unchanged (a
//!    comma list such as `Sales, general and administrative` is not a qualifier: unknown);
//! 7. a table label followed by words that change its figure (`Operating profit before
//!    exceptional items`, `Net income attributable to common shareholders`), or preceded by a
//!    modifier that does (`Adjusted EBITDA`, `Net interest expense`, `Current operating profit`,
//!    `Short-term borrowings`), is refused with the reason;
//! 8. anything else is unknown. Words that merely follow a table label (`Cash and cash
//!    equivalents at end of the year`, `Interest paid`, `Income before income taxes`) are never
//!    read as it: only the qualifiers above are.
//!
//! A refused row is as unread as an unknown one; the difference is that the analyst is told what
//! it looked like and why it was not used, so the row can be relabelled if it is meant.

use super::StatementItem;
use super::items::Sign;
use super::sheet::units;
use super::synonyms::{self, NET_OF_INTEREST_INCOME, PART_OF_DEBT, normalise_label};

/// A row that looks like an item but is not read as it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotUsed {
    pub resembles: StatementItem,
    /// Why, in words for the analyst.
    pub reason: String,
}

/// What a row label says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LabelReading {
    /// The row states this item.
    Item(StatementItem),
    /// The row looks like an item, but its figure is not that item.
    NotUsed(NotUsed),
    /// The label names nothing the synonym table knows.
    Unknown,
}

/// Bytes of the longest label read: no line item, with every qualifier people write around it,
/// comes near. A longer label is unknown without being read, so that a sheet of long labels costs
/// no more to read than one of short ones (normalising each 11.5 KB label of the review's 23 MB
/// sheet took most of its 23 s of reading in a debug build).
pub const MAX_READ_LABEL_BYTES: usize = 1_000;

/// Reads a row label as it is written in the sheet.
pub fn read_label(label: &str) -> LabelReading {
    if label.len() > MAX_READ_LABEL_BYTES {
        return LabelReading::Unknown;
    }
    let text = normalise_label(label);
    if text.is_empty() { LabelReading::Unknown } else { read(&text) }
}

fn not_used(resembles: StatementItem, reason: impl Into<String>) -> LabelReading {
    LabelReading::NotUsed(NotUsed { resembles, reason: reason.into() })
}

/// Reads a normalised label (the order is the module docs').
fn read(text: &str) -> LabelReading {
    if let Some(item) = synonyms::synonym(text) {
        return LabelReading::Item(item);
    }
    if let Some((item, reason)) = synonyms::not_used(text) {
        return not_used(item, reason);
    }
    if let Some(signed) = without_loss_hint(text) {
        return match read(&signed) {
            LabelReading::Item(item) if item.sign() != Sign::Any => LabelReading::Unknown,
            reading => reading,
        };
    }
    tax_presentation(text)
        .or_else(|| loss_for_profit(text))
        .or_else(|| depreciation_part(text))
        .or_else(|| qualified(text))
        .or_else(|| followed_by_change(text))
        .or_else(|| modified(text))
        .unwrap_or(LabelReading::Unknown)
}

/// Words that name a profit, beside which a loss hint only says the figure may be negative.
fn has_profit_word(text: &str) -> bool {
    text.split([' ', '/', ',', '(', ')']).any(|word| matches!(word, "income" | "profit" | "earnings" | "result"))
}

/// `operating (loss)/profit` → `operating profit`, `(loss) income from operations` → `income
/// from operations`: the loss hint dropped when a profit word stays.
fn without_loss_hint(text: &str) -> Option<String> {
    if !has_profit_word(text) {
        return None;
    }
    let marks = ["(loss)/", "/(loss)", "(loss) ", " (loss)", "/loss", "loss/"];
    let mark = marks.iter().find(|mark| text.contains(*mark))?;
    let stripped = text.replacen(mark, if mark.ends_with(' ') || mark.starts_with(' ') { " " } else { "" }, 1);
    let signed = stripped.split_whitespace().collect::<Vec<_>>().join(" ");
    (!signed.is_empty() && signed != text).then_some(signed)
}

/// Why a tax label with the benefit shown positive is not read.
const BENEFIT_POSITIVE: &str = "presented with the benefit positive and the expense negative, the opposite of income_tax's sign (an expense is a positive figure)";

/// A tax label whose parentheses or words say which side is shown negative.
fn tax_presentation(text: &str) -> Option<LabelReading> {
    if !text.split([' ', '/']).any(|word| matches!(word, "tax" | "taxes" | "taxation")) {
        return None;
    }
    let is_cost = |word: &str| matches!(word, "expense" | "charge" | "provision");
    let is_relief = |word: &str| matches!(word, "benefit" | "credit" | "income");
    let mut marked = text.contains("(benefit from) ");
    let mut reversed = false;
    let text = text.replace("(benefit from) ", "").replace("(provision for) ", "(provision) ");
    let mut kept: Vec<&str> = Vec::new();
    for chunk in text.split(' ') {
        let parts: Vec<&str> = chunk.split('/').collect();
        let bare = |part: &str| part.trim_start_matches('(').trim_end_matches(')').to_owned();
        let in_parentheses = |part: &str| part.starts_with('(') && part.ends_with(')');
        let all_sign_words = parts.iter().all(|part| is_cost(&bare(part)) || is_relief(&bare(part)));
        if parts.len() > 1 && all_sign_words {
            // `credit/(expense)`: the word in parentheses is the one shown negative.
            marked = true;
            for part in &parts {
                let word = bare(part);
                if in_parentheses(part) && is_cost(&word) || !in_parentheses(part) && is_relief(&word) {
                    reversed = true;
                }
                if !in_parentheses(part) && is_cost(&word) {
                    kept.push(part);
                }
            }
        } else if in_parentheses(chunk) && is_cost(&bare(chunk)) {
            (marked, reversed) = (true, true);
        } else if in_parentheses(chunk) && matches!(bare(chunk).as_str(), "benefit" | "credit") {
            marked = true;
        } else if matches!(chunk, "benefit" | "credit") {
            // A benefit named as the figure is shown positive.
            (marked, reversed) = (true, true);
        } else {
            kept.push(chunk);
        }
    }
    if !marked {
        return None;
    }
    let core = kept.join(" ");
    let core = core.trim_start_matches("for ").trim_start_matches("from ");
    match read(core) {
        LabelReading::Item(StatementItem::IncomeTax) if reversed => {
            Some(not_used(StatementItem::IncomeTax, BENEFIT_POSITIVE))
        }
        reading @ LabelReading::Item(StatementItem::IncomeTax) => Some(reading),
        _ => None,
    }
}

/// `net loss` where the table has `net income`: refused, the sign is the opposite.
fn loss_for_profit(text: &str) -> Option<LabelReading> {
    if has_profit_word(text) || !text.split([' ', ',']).any(|word| word == "loss") {
        return None;
    }
    ["income", "profit"].into_iter().find_map(|profit| {
        let as_profit = replace_word(text, "loss", profit);
        if as_profit == text {
            return None;
        }
        match read(&as_profit) {
            LabelReading::Item(item) if item.sign() == Sign::Any => Some(not_used(
                item,
                format!("a loss stated as a positive figure has the opposite sign of {}; give it as {} with the loss negative", item.name(), item.name()),
            )),
            reading @ LabelReading::NotUsed(_) => Some(reading),
            _ => None,
        }
    })
}

/// `text` with every whole-word `word` (bounded by anything but a letter) replaced.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        let whole = !before.is_some_and(char::is_alphabetic) && !after.is_some_and(char::is_alphabetic);
        out.push_str(&rest[..at]);
        out.push_str(if whole { by } else { word });
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// `Depreciation` alone, `Depreciation of property, plant and equipment`, `Amortisation`: half of
/// the item; `Depreciation, amortisation and impairment`: more than it.
fn depreciation_part(text: &str) -> Option<LabelReading> {
    let item = StatementItem::DepreciationAmortization;
    let amortisation = text.contains("amortisation") || text.contains("amortization");
    if text.starts_with("depreciation") && amortisation && text.contains("impairment") {
        return Some(not_used(
            item,
            "includes impairment, which is not a recurring charge to add back to earnings; give depreciation and amortisation alone",
        ));
    }
    let depreciation_alone = text.starts_with("depreciation") && !amortisation;
    let amortisation_alone =
        matches!(text, "amortisation" | "amortization" | "amortisation expense" | "amortization expense");
    (depreciation_alone || amortisation_alone)
        .then(|| not_used(item, "half of depreciation and amortisation; give both in one row"))
}

/// Where a qualifier sits: it matters for a comma list, which is not a qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Parentheses,
    Comma,
    Dash,
}

/// What a qualifier does to an item's figure.
enum Effect {
    Neutral,
    Changes(String),
    NotKnown,
}

/// The table label `text` is, once the prefixes that leave any item what it is are dropped
/// (`total taxation` → income tax), with the NOT_USED reason when the label is refused.
fn table_label(text: &str) -> Option<(StatementItem, Option<&'static str>)> {
    let mut text = text;
    loop {
        if let Some(item) = synonyms::synonym(text) {
            return Some((item, None));
        }
        if let Some((item, reason)) = synonyms::not_used(text) {
            return Some((item, Some(reason)));
        }
        text = ["total ", "consolidated ", "group "].iter().find_map(|prefix| text.strip_prefix(prefix))?;
    }
}

/// The last qualifier of `text`: a trailing `(…)`, `, …` or ` - …`, and what is left.
fn peel(text: &str) -> Option<(&str, &str, Place)> {
    if let Some(inner) = text.strip_suffix(')')
        && let Some(open) = inner.rfind('(')
        && open > 0
    {
        return Some((inner[..open].trim_end(), &inner[open + 1..], Place::Parentheses));
    }
    let comma = text.rfind(", ").map(|at| (at, 2, Place::Comma));
    let dash = text.rfind(" - ").map(|at| (at, 3, Place::Dash));
    let (at, width, place) = [comma, dash].into_iter().flatten().max_by_key(|&(at, ..)| at)?;
    (at > 0).then(|| (text[..at].trim_end(), text[at + width..].trim(), place))
}

/// A table label with the qualifiers peeled off its end, judged qualifier by qualifier.
fn qualified(text: &str) -> Option<LabelReading> {
    let mut core = text;
    let mut qualifiers = Vec::new();
    loop {
        if let Some((item, refused)) = table_label(core) {
            return Some(match refused {
                Some(reason) => not_used(item, reason),
                None => judge(item, &qualifiers),
            });
        }
        let (rest, qualifier, place) = peel(core)?;
        qualifiers.push((qualifier, place));
        core = rest;
    }
}

fn judge(item: StatementItem, qualifiers: &[(&str, Place)]) -> LabelReading {
    let effects: Vec<(Effect, &str, Place)> =
        qualifiers.iter().map(|&(words, place)| (effect(item, words), words, place)).collect();
    if let Some((Effect::Changes(reason), ..)) =
        effects.iter().find(|(effect, ..)| matches!(effect, Effect::Changes(_)))
    {
        return not_used(item, reason.clone());
    }
    if let Some((_, words, place)) = effects.iter().find(|(effect, ..)| matches!(effect, Effect::NotKnown)) {
        if *place != Place::Parentheses && words.contains(" and ") {
            // `Sales, general and administrative`: a list, not a qualifier of sales.
            return LabelReading::Unknown;
        }
        let shown = match place {
            Place::Parentheses => format!("({words})"),
            Place::Comma => format!(", {words}"),
            Place::Dash => format!("- {words}"),
        };
        return not_used(
            item,
            format!(
                "the qualifier '{shown}' is not one known to leave {} unchanged; relabel the row if it is the plain item",
                item.name()
            ),
        );
    }
    LabelReading::Item(item)
}

/// What the words of a qualifier (or the words after a table label) do to the item's figure.
fn effect(item: StatementItem, words: &str) -> Effect {
    if let Some(reason) = change(item, words) {
        return Effect::Changes(reason);
    }
    let neutral_everywhere = matches!(
        words,
        "total"
            | "consolidated"
            | "group"
            | "unaudited"
            | "audited"
            | "restated"
            | "as restated"
            | "reported"
            | "as reported"
    ) || units::unit_in_words(words).is_some()
        || words.starts_with("note ")
        || words.starts_with("see note");
    let neutral_here = match item {
        StatementItem::OperatingIncome => matches!(words, "ebit" | "operating profit" | "operating income"),
        StatementItem::Ebitda => words == "ebitda",
        StatementItem::Revenue => words == "net",
        StatementItem::TotalDebt => matches!(
            words,
            "including current portion"
                | "incl. current portion"
                | "including current maturities"
                | "current and non current"
                | "current and long term"
                | "short and long term"
        ),
        StatementItem::InterestExpense => words == "non operating",
        _ => false,
    };
    if neutral_everywhere || neutral_here { Effect::Neutral } else { Effect::NotKnown }
}

/// Why a label's words make its figure something other than the item, when they do.
fn change(item: StatementItem, words: &str) -> Option<String> {
    let name = item.name();
    let has = |phrase: &str| words.contains(phrase);
    if has("attributable to") || has("available to") || has("allocated to") {
        return Some(format!(
            "only the share of {name} attributable to some holders (after non-controlling interests or preferred dividends), not the consolidated figure"
        ));
    }
    if has("continuing operations") {
        return Some(format!(
            "continuing operations only: leaves out discontinued operations, which the period's {name} includes"
        ));
    }
    if has("discontinued") {
        return Some(format!("discontinued operations only, not the period's {name}"));
    }
    if ["adjusted", "underlying", "pro forma", "normalised", "normalized", "recurring", "exceptional", "non gaap"]
        .iter()
        .any(|word| has(word))
    {
        return Some(format!("an adjusted figure: the company's adjustments are not the reported {name}"));
    }
    let includes_current = ["incl", "current and ", "short and "].iter().any(|start| words.starts_with(start));
    if item == StatementItem::TotalDebt
        && !includes_current
        && ["current portion", "current maturities", "non current", "long term portion"].iter().any(|word| has(word))
    {
        return Some(PART_OF_DEBT.to_owned());
    }
    if item == StatementItem::Cash && (has("end of") || has("beginning of")) {
        return Some("the cash flow statement's opening or closing cash, which may be net of bank overdrafts; give the balance sheet's cash".to_owned());
    }
    if let Some(rest) = words.strip_prefix("before ") {
        return Some(format!("stated before {rest}: a different subtotal, not {name}"));
    }
    if ["excluding", "excl.", "exclusive of", "ex "].iter().any(|word| words.starts_with(word)) {
        return Some(format!("excludes part of {name} ({words})"));
    }
    if words.starts_with("per ") {
        return Some("a per-share figure, not an amount".to_owned());
    }
    if item == StatementItem::Revenue && words == "net" {
        return None;
    }
    if words == "net" || words.starts_with("net ") {
        return Some(net_reason(item, words));
    }
    None
}

/// Why a net figure is not the item.
fn net_reason(item: StatementItem, words: &str) -> String {
    match item {
        StatementItem::InterestExpense => NET_OF_INTEREST_INCOME.to_owned(),
        StatementItem::CapitalExpenditure => {
            "net of proceeds from disposals or incentives, so it understates what was spent; give the purchases alone"
                .to_owned()
        }
        StatementItem::TotalDebt | StatementItem::Cash => "net of cash, not the amount itself".to_owned(),
        _ => format!("'{words}': something {} includes is deducted from it", item.name()),
    }
}

/// A table label followed by words that change its figure: `operating profit before
/// exceptional items`, `net income attributable to common shareholders`.
fn followed_by_change(text: &str) -> Option<LabelReading> {
    let text = without_neutral_prefix(text);
    let labels = synonyms::SYNONYMS
        .iter()
        .map(|&(label, item)| (label, item))
        .chain(synonyms::NOT_USED.iter().map(|&(label, item, _)| (label, item)));
    let (label, item) = labels
        .filter(|(label, _)| {
            text.strip_prefix(label).is_some_and(|after| after.starts_with(' ') || after.starts_with(", "))
        })
        .max_by_key(|(label, _)| label.len())?;
    let after = text[label.len()..].trim_start_matches(',').trim();
    change(item, after).map(|reason| not_used(item, reason))
}

/// `total taxation` → `taxation`: the prefixes that leave any item what it is.
fn without_neutral_prefix(text: &str) -> &str {
    let mut text = text;
    while let Some(rest) = ["total ", "consolidated ", "group "].iter().find_map(|prefix| text.strip_prefix(prefix)) {
        text = rest;
    }
    text
}

/// A modifier before a table label that changes its figure: `adjusted ebitda`, `net interest
/// expense`, `current operating profit`, `short term borrowings`.
fn modified(text: &str) -> Option<LabelReading> {
    const MODIFIERS: [&str; 13] = [
        "adjusted",
        "underlying",
        "pro forma",
        "normalised",
        "normalized",
        "recurring",
        "current",
        "deferred",
        "non current",
        "long term",
        "short term",
        "net",
        "segment",
    ];
    let text = without_neutral_prefix(text);
    let (modifier, rest) = MODIFIERS
        .iter()
        .find_map(|modifier| text.strip_prefix(modifier)?.strip_prefix(' ').map(|rest| (*modifier, rest)))?;
    let item = match read(rest) {
        LabelReading::Item(item) => item,
        LabelReading::NotUsed(refused) => refused.resembles,
        LabelReading::Unknown => return None,
    };
    let reason = match modifier {
        "adjusted" | "underlying" | "pro forma" | "normalised" | "normalized" | "recurring" => {
            format!("an adjusted figure: the company's adjustments are not the reported {}", item.name())
        }
        "net" => net_reason(item, modifier),
        "non current" | "long term" | "short term" | "current" if item == StatementItem::TotalDebt => {
            PART_OF_DEBT.to_owned()
        }
        "current" if item == StatementItem::IncomeTax => "only current tax, without deferred tax".to_owned(),
        "deferred" => format!("only the deferred part of {}", item.name()),
        "current" => format!(
            "'current' (recurring) {} leaves out other operating income and expenses; give the reported figure",
            item.name()
        ),
        _ => format!("only part of {} ('{modifier}')", item.name()),
    };
    Some(not_used(item, reason))
}

#[cfg(test)]
mod published;
#[cfg(test)]
mod tests;
