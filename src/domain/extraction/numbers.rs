//! Amounts, percentages and ratios as agreements write them, normalised to exact decimals:
//! "Five Hundred Million Dollars ($500,000,000)", "EUR 750 million", "2.75%", "275 basis points",
//! "2¾ per cent.", "4.50:1.00". Percentages become fractions (2.75% = 0.0275), as CDM prices do.

use std::ops::Range;
use std::str::FromStr;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use rust_decimal::Decimal;
use serde::Serialize;

use super::currency::CurrencyCode;
use super::number_words::parse_number_words;
use super::sourced::sourced_value_via_serde;
use super::text::{Located, pattern, slice};

/// An amount of money: CDM's `{value, currency}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Money {
    /// The amount, exact.
    pub value: Decimal,
    /// ISO 4217 currency.
    pub currency: CurrencyCode,
}

sourced_value_via_serde!(Money);

/// Parses a decimal written with thousands separators ("500,000,000.00"), normalised so that equal
/// amounts compare and print equal. `None` for anything that is not a plain number or does not fit
/// a 96-bit decimal.
pub fn parse_decimal(raw: &str) -> Option<Decimal> {
    let digits: String = raw.chars().filter(|&c| c != ',').collect();
    let well_formed = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.matches('.').count() <= 1
        && !digits.starts_with('.')
        && !digits.ends_with('.');
    if !well_formed || digits.len() > 28 {
        return None;
    }
    Decimal::from_str(&digits).ok().map(|d| d.normalize())
}

fn scale_factor(scale: &str) -> Option<Decimal> {
    match scale.to_ascii_lowercase().as_str() {
        "thousand" | "k" => Some(Decimal::from(1_000)),
        "million" | "m" | "mm" | "mn" => Some(Decimal::from(1_000_000)),
        "billion" | "bn" | "b" => Some(Decimal::from(1_000_000_000)),
        _ => None,
    }
}

const NUMBER: &str = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]{1,4})?|[0-9]{1,30}(?:\.[0-9]{1,4})?";

static MONEY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?:(?P<sym>US\$|U\.S\.\$|USD\$|CAD\$|CA\$|C\$|AU\$|A\$|NZ\$|HK\$|S\$|\$|£|€|¥|\((?:pound|euro|yen)\))[ \t]?|\b(?P<code>[A-Z]{{3}})[ \t\u{{a0}}]?)(?P<num>{NUMBER})(?:[ \t]*(?P<scale>(?i:million|billion|thousand)|mm|mn|bn|m|k|MM|MN|BN|M|K|B)\b)?|\b(?P<num2>{NUMBER})(?:[ \t]*(?P<scale2>(?i:million|billion|thousand)))?[ \t]+(?P<code2>[A-Z]{{3}})\b"
    ))
});

static WORDS_BEFORE_PAREN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b((?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|and)[ \t\r\n-]+)+)(?:(?:and[ \t\r\n]+)?(?P<cents>no|[0-9]{2})/100(?:ths)?[ \t\r\n]+)?((?:(?:united[ \t]+states|u\.[ \t]?s\.|us|canadian|australian|new[ \t]+zealand|hong[ \t]+kong|singapore|swiss)[ \t]+)?(?:dollars|euros?|pounds(?:[ \t]+sterling)?|sterling|francs|yen))[ \t\r\n]*\([ \t]*$",
    )
});

/// A stated amount of money found in the text.
#[derive(Clone, Debug)]
pub(crate) struct MoneyMatch {
    /// The whole statement: the words, if any, and the figures ("Five Hundred Million Dollars
    /// ($500,000,000)").
    pub span: Range<usize>,
    /// The amount (from the figures).
    pub money: Money,
    /// When the words state a different amount or currency than the figures: the words' span.
    pub words_disagree: Option<Range<usize>>,
    /// The figures alone.
    pub figures: Range<usize>,
}

impl Located for MoneyMatch {
    fn location(&self) -> Range<usize> {
        self.span.clone()
    }
}

/// Every amount of money stated in `text`, in order.
pub(crate) fn find_money(text: &str) -> Vec<MoneyMatch> {
    // The figures never overlap, and the words a statement widens backwards over are number
    // words only, which no other amount contains: the matches stay disjoint and in order.
    MONEY.captures_iter(text).filter_map(|c| money_from_captures(text, &c)).collect()
}

fn money_from_captures(text: &str, captures: &Captures<'_>) -> Option<MoneyMatch> {
    let whole = captures.get(0)?;
    let (currency, number, scale) = if let Some(number) = captures.name("num") {
        let currency = match (captures.name("sym"), captures.name("code")) {
            (Some(symbol), _) => CurrencyCode::from_symbol(symbol.as_str())?,
            (None, Some(code)) => CurrencyCode::new(code.as_str())?,
            (None, None) => return None,
        };
        (currency, number.as_str(), captures.name("scale").map(|m| m.as_str()))
    } else {
        let number = captures.name("num2")?;
        let currency = CurrencyCode::new(captures.name("code2")?.as_str())?;
        (currency, number.as_str(), captures.name("scale2").map(|m| m.as_str()))
    };
    let mut figures = whole.range();
    let number = match footnote_after_whole_amount(number, scale) {
        // Symbol or code before the figures: the amount ends at the sentence's full stop.
        Some(whole_amount) if captures.name("num").is_some() => {
            figures.end -= number.len() - whole_amount.len();
            whole_amount
        }
        // Figures followed by a currency code: the digit sits inside the statement, so what it
        // belongs to is unclear and the amount is not read.
        Some(_) => return None,
        None => number,
    };
    let mut value = parse_decimal(number)?;
    if let Some(scale) = scale {
        value = value.checked_mul(scale_factor(scale)?)?.normalize();
    }
    let money = Money { value, currency };
    let mut span = figures.clone();
    let mut words_disagree = None;
    if let Some((words_span, words_money)) = words_before(text, figures.start) {
        let close = slice(text, figures.end..figures.end.saturating_add(4).min(text.len()));
        let closing = close.len() - close.trim_start_matches([' ', '\t']).len();
        if close.get(closing..).is_some_and(|rest| rest.starts_with(')')) {
            span = words_span.start..figures.end + closing + 1;
            if words_money != money {
                words_disagree = Some(words_span);
            }
        }
    }
    Some(MoneyMatch { span, money, words_disagree, figures })
}

/// The whole amount of figures grouped in thousands and followed by a full stop and a single
/// digit ("75,000,000.1"), when no scale word follows. Money is written in whole units or to the
/// cent, never to the tenth: such a digit is a footnote marker set after the sentence's full stop
/// (text printed from a filing whose footnote references were superscripts), not a fraction.
fn footnote_after_whole_amount<'a>(number: &'a str, scale: Option<&str>) -> Option<&'a str> {
    let (whole, fraction) = number.split_once('.')?;
    (scale.is_none() && whole.contains(',') && fraction.len() == 1).then_some(whole)
}

/// An amount in words directly before the opening parenthesis that precedes `figures_start`: its
/// span and value.
fn words_before(text: &str, figures_start: usize) -> Option<(Range<usize>, Money)> {
    let window = super::text::before(text, figures_start, 220);
    let haystack = slice(text, window.clone());
    if !haystack.trim_end_matches([' ', '\t']).ends_with('(') {
        return None;
    }
    let captures = WORDS_BEFORE_PAREN.captures(haystack)?;
    let number_words = captures.get(1)?;
    let currency_words = captures.get(3)?;
    // "Three Million and No/100 Dollars", "… and 50/100 Dollars": the cents as a fraction.
    let cents = match captures.name("cents").map(|c| c.as_str()) {
        None => Decimal::ZERO,
        Some(c) if c.eq_ignore_ascii_case("no") => Decimal::ZERO,
        Some(c) => Decimal::new(c.parse().ok()?, 2),
    };
    let mut words = number_words.as_str().trim_end();
    while let Some(rest) = words
        .strip_suffix("and")
        .or_else(|| words.strip_suffix("And"))
        .or_else(|| words.strip_suffix("AND"))
        .filter(|_| captures.name("cents").is_some())
    {
        words = rest.trim_end();
    }
    let mut start = window.start + number_words.start();
    // The pattern admits a leading "and" ("Term A Loans and Five Hundred ..."): not part of it.
    while let Some(rest) =
        words.strip_prefix("and").or_else(|| words.strip_prefix("And")).or_else(|| words.strip_prefix("AND"))
    {
        let trimmed = rest.trim_start();
        start += words.len() - trimmed.len();
        words = trimmed;
    }
    let value = parse_number_words(words)?.checked_add(cents)?.normalize();
    let currency = CurrencyCode::from_words(currency_words.as_str())?;
    let end = window.start + currency_words.end();
    Some((start..end, Money { value, currency }))
}

/// A stated percentage or number of basis points, as a fraction.
#[derive(Clone, Debug)]
pub(crate) struct PercentMatch {
    pub span: Range<usize>,
    /// 2.75% is 0.0275.
    pub fraction: Decimal,
}

impl Located for PercentMatch {
    fn location(&self) -> Range<usize> {
        self.span.clone()
    }
}

static PERCENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?:(?:(?:\b(?P<int>[0-9]{1,5})(?:\.(?P<frac>[0-9]{1,8}))?|\.(?P<dfrac>[0-9]{1,8}))(?:[ \t]?(?P<vulgar>[¼½¾⅛⅜⅝⅞])|[ \t]+(?P<fnum>[1-7])/(?P<fden>2|4|8))?|\((?P<pint>[0-9]{1,5})(?:\.(?P<pfrac>[0-9]{1,8}))?\))[ \t]*(?:\r?\n[ \t]*)?(?:(?P<pct>%|per[ \t]?cent\b\.?|percent\b|percentage[ \t\r\n]+points?\b)|(?P<bps>basis[ \t\r\n]+points?\b|bps\b|bp\b))|\b(?P<zero>zero)[ \t]+(?:per[ \t]?cent\b\.?|percent\b))",
    )
});

/// A fraction of one percent in figures: "3/8%", "3/8 of 1%", "1/2 of one percent". Halves,
/// quarters and eighths only: the rates a fee or margin is written in.
static FRACTION_OF_A_PERCENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?P<num>[1-7])/(?P<den>[248])(?:[ \t]*%|[ \t]+(?:per[ \t]?cent\b|percent\b)|[ \t\r\n]+of[ \t\r\n]+(?:1|one)[ \t]*(?:%|per[ \t]?cent\b|percent\b))",
    )
});

/// Words before a fraction of a percent that make it the step a rate is rounded to ("rounded
/// upward to the nearest 1/8 of 1%", "in multiples of 1/8%"), not a rate.
static ROUNDING_STEP_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:nearest|multiples?[ \t\r\n]+of|increments?[ \t\r\n]+of)[ \t\r\n]+(?:whole[ \t\r\n]+)?$")
});

/// The fractions of one percent in `text` ("3/8 of 1%" is 0.375 %), except rounding steps.
fn fractions_of_a_percent(text: &str) -> impl Iterator<Item = PercentMatch> + '_ {
    FRACTION_OF_A_PERCENT.captures_iter(text).filter_map(|c| {
        let span = c.get(0)?.range();
        if ROUNDING_STEP_BEFORE.is_match(slice(text, super::text::before(text, span.start, 40))) {
            return None;
        }
        let numerator = Decimal::from_str(c.name("num")?.as_str()).ok()?;
        let denominator = Decimal::from_str(c.name("den")?.as_str()).ok()?;
        if numerator >= denominator {
            return None;
        }
        let fraction = numerator.checked_div(denominator)?.checked_div(Decimal::ONE_HUNDRED)?.normalize();
        Some(PercentMatch { span, fraction })
    })
}

/// Every percentage or basis-point figure in `text`, in order.
pub(crate) fn find_percents(text: &str) -> Vec<PercentMatch> {
    let mut found = figures_of_percents(text);
    // "2 3/8%" is one figure with its fraction, already read.
    let overlaps_a_figure =
        |f: &PercentMatch| found.iter().any(|p| p.span.start < f.span.end && f.span.start < p.span.end);
    let fractions: Vec<PercentMatch> = fractions_of_a_percent(text).filter(|f| !overlaps_a_figure(f)).collect();
    if !fractions.is_empty() {
        found.extend(fractions);
        found.sort_by_key(|p| p.span.start);
    }
    found
}

/// The percentages written as a number (with any fraction after it) or in words restated in
/// figures, in order.
fn figures_of_percents(text: &str) -> Vec<PercentMatch> {
    PERCENT
        .captures_iter(text)
        .filter_map(|c| {
            let mut span = c.get(0)?.range();
            if is_part_of_a_fraction(text, span.start) {
                return None;
            }
            let fraction = percent_from_captures(&c)?;
            // "one hundred fifty (150) basis points": the figures in parentheses restate the words
            // before them, and the statement is both; words that say otherwise make it unusable.
            if let Some(figures) = c.name("pint")
                && let Some((words, value)) = number_words_before(text, span.start)
            {
                if parse_decimal(figures.as_str()) != Some(value) {
                    return None;
                }
                span = words.start..span.end;
            }
            // "two and 375/1000 percent (2.375%)": the same restatement with the unit on both.
            if c.name("pint").is_none()
                && let Some(words) = written_percent_before(text, span.clone())
            {
                match words {
                    (_, Some(value)) if value != fraction => return None,
                    (words, Some(_)) => span = words.start..span.end + 1,
                    // Words that cannot be read neither confirm nor contradict the figure.
                    (_, None) => {}
                }
            }
            Some(PercentMatch { span, fraction })
        })
        .collect()
}

/// A percentage written in words and restated in parentheses ("two and 375/1000 percent (2.375%)",
/// "one-half of one percent (0.50%)") around the figure at `figure`: the span from the words to the
/// closing parenthesis, with the words' value as a fraction (`None` when they cannot be read).
static WRITTEN_PERCENT_BEFORE_PAREN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b((?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|and|of|halfs?|halves|quarters?|fourths?|eighths?|sixteenths?|tenths?|hundredths?|[0-9]{1,4}/[0-9]{1,4})[ \t\r\n-]+)+)(?:percent|per[ \t]?cent\.?)[ \t\r\n]*\($",
    )
});

fn written_percent_before(text: &str, figure: Range<usize>) -> Option<(Range<usize>, Option<Decimal>)> {
    let before = figure.start.checked_sub(1)?;
    if text.get(before..figure.start)? != "(" || text.get(figure.end..figure.end + 1)? != ")" {
        return None;
    }
    let window = super::text::before(text, figure.start, 160);
    let captures = WRITTEN_PERCENT_BEFORE_PAREN.captures(slice(text, window.clone()))?;
    let words = captures.get(1)?;
    // The pattern admits a leading "and" or "of" ("a rate of two percent (2%)"): not part of it.
    let mut start = window.start + words.start();
    let mut trimmed = words.as_str();
    while let Some(rest) = ["and ", "of ", "And ", "Of ", "AND ", "OF "].iter().find_map(|w| trimmed.strip_prefix(w)) {
        let rest = rest.trim_start();
        start += trimmed.len() - rest.len();
        trimmed = rest;
    }
    let end = window.start + captures.get(0)?.end() - 1;
    Some((
        start..end,
        parse_written_percent(trimmed).and_then(|p| p.checked_div(Decimal::ONE_HUNDRED)).map(|p| p.normalize()),
    ))
}

/// Reads a number of percent written in words: "two", "two and 375/1000", "two and one-half",
/// "three-eighths of one", "one-half of one".
fn parse_written_percent(words: &str) -> Option<Decimal> {
    let lower = words.to_ascii_lowercase().replace('-', " ");
    let lower = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    // "three-eighths of one percent" is three eighths of a percent.
    let lower = lower.strip_suffix(" of one").or_else(|| lower.strip_suffix(" of 1")).unwrap_or(&lower);
    let (whole, part) = match lower.split_once(" and ") {
        Some((whole, part)) => (parse_number_words(whole)?, written_fraction(part)?),
        None => match written_fraction(lower) {
            Some(part) => (Decimal::ZERO, part),
            None => (parse_number_words(lower)?, Decimal::ZERO),
        },
    };
    whole.checked_add(part).map(|d| d.normalize())
}

/// "375/1000", "one half", "a quarter", "three eighths" as a decimal.
fn written_fraction(words: &str) -> Option<Decimal> {
    if let Some((numerator, denominator)) = words.split_once('/') {
        let numerator = Decimal::from_str(numerator.trim()).ok()?;
        return numerator.checked_div(Decimal::from_str(denominator.trim()).ok()?);
    }
    let (count, unit) = words.rsplit_once(' ').unwrap_or(("one", words));
    let denominator: u32 = match unit.trim_end_matches('s') {
        "half" | "halve" => 2,
        "quarter" | "fourth" => 4,
        "eighth" => 8,
        "tenth" => 10,
        "sixteenth" => 16,
        "hundredth" => 100,
        _ => return None,
    };
    let count = if count == "a" { Decimal::ONE } else { parse_number_words(count)? };
    count.checked_div(Decimal::from(denominator))
}

/// "3/8%", "125/1000 percent" (the figure is a fraction's denominator) and "3/8 of 1%",
/// "three-eighths of one percent" (the percentage is what a fraction is taken of): the figure
/// alone is not the percentage, and reading it so would state a wrong rate.
static FRACTION_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)(?:[0-9]/|(?:[0-9]+/[0-9]+|one-half|half|one-quarter|quarter|[a-z]+-(?:halves|thirds|third|quarters|fourths|fourth|eighths|eighth|sixteenths|sixteenth))[ \t\r\n]+of[ \t\r\n]+(?:one[ \t\r\n]+)?)$",
    )
});

fn is_part_of_a_fraction(text: &str, start: usize) -> bool {
    FRACTION_BEFORE.is_match(slice(text, super::text::before(text, start, 40)))
}

static NUMBER_WORDS_BEFORE_PAREN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b((?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|and)[ \t\r\n-]+)+)$",
    )
});

/// A number in words directly before the opening parenthesis at `paren`: its span and value.
fn number_words_before(text: &str, paren: usize) -> Option<(Range<usize>, Decimal)> {
    let window = super::text::before(text, paren, 120);
    let captures = NUMBER_WORDS_BEFORE_PAREN.captures(slice(text, window.clone()))?;
    let words = captures.get(1)?;
    let mut start = window.start + words.start();
    let mut trimmed = words.as_str().trim_end();
    // The pattern admits a leading "and" ("the Bank and one hundred (100) basis points").
    while let Some(rest) = ["and", "And", "AND"].iter().find_map(|and| trimmed.strip_prefix(and)) {
        let rest = rest.trim_start();
        start += trimmed.len() - rest.len();
        trimmed = rest;
    }
    let value = parse_number_words(trimmed)?;
    Some((start..start + trimmed.len(), value))
}

/// Parses one percentage ("2.75%", "275 basis points", "2¾ per cent.") to a fraction.
pub fn parse_percent(raw: &str) -> Option<Decimal> {
    let captures = PERCENT.captures(raw)?;
    let whole = captures.get(0)?;
    if whole.start() != 0 || whole.end() != raw.trim_end().len() {
        return None;
    }
    percent_from_captures(&captures)
}

fn percent_from_captures(captures: &Captures<'_>) -> Option<Decimal> {
    if captures.name("zero").is_some() {
        return Some(Decimal::ZERO);
    }
    // ".1875% per annum", as 1990s filings write fractions of a percent: no integer part.
    let integer = match (captures.name("int").or_else(|| captures.name("pint")), captures.name("dfrac")) {
        (Some(integer), _) => integer.as_str(),
        (None, Some(_)) => "0",
        (None, None) => return None,
    };
    let number = match captures.name("frac").or_else(|| captures.name("pfrac")).or_else(|| captures.name("dfrac")) {
        Some(frac) => parse_decimal(&format!("{integer}.{}", frac.as_str()))?,
        None => parse_decimal(integer)?,
    };
    let fraction_part = if let Some(vulgar) = captures.name("vulgar") {
        vulgar_fraction(vulgar.as_str())?
    } else if let (Some(numerator), Some(denominator)) = (captures.name("fnum"), captures.name("fden")) {
        let numerator = Decimal::from_str(numerator.as_str()).ok()?;
        let denominator = Decimal::from_str(denominator.as_str()).ok()?;
        numerator.checked_div(denominator)?
    } else {
        Decimal::ZERO
    };
    let amount = number.checked_add(fraction_part)?;
    let divisor = if captures.name("bps").is_some() { Decimal::from(10_000) } else { Decimal::ONE_HUNDRED };
    amount.checked_div(divisor).map(|d| d.normalize())
}

fn vulgar_fraction(symbol: &str) -> Option<Decimal> {
    let (numerator, denominator) = match symbol {
        "¼" => (1, 4),
        "½" => (1, 2),
        "¾" => (3, 4),
        "⅛" => (1, 8),
        "⅜" => (3, 8),
        "⅝" => (5, 8),
        "⅞" => (7, 8),
        _ => return None,
    };
    Decimal::from(numerator).checked_div(Decimal::from(denominator))
}

/// A stated ratio ("4.50:1.00", "4.50 to 1.00", "5.00x"; in capitals too, as older agreements
/// set their covenants: "3.0 TO 1.0").
#[derive(Clone, Debug)]
pub(crate) struct RatioMatch {
    pub span: Range<usize>,
    /// The first term: 4.50 for "4.50:1.00".
    pub value: Decimal,
}

impl Located for RatioMatch {
    fn location(&self) -> Range<usize> {
        self.span.clone()
    }
}

static RATIO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?P<a>[0-9]{1,2}(?:\.[0-9]{1,3})?)(?:[ \t]*|[ \t]*\r?\n[ \t]*)(?::|to|TO)(?:[ \t]*|[ \t]*\r?\n[ \t]*)1(?:\.0{1,3})?(?P<more>[0-9])?|\b(?P<x>[0-9]{1,2}(?:\.[0-9]{1,3})?)(?:x|X|[ \t](?:times|TIMES))\b",
    )
});

/// Every ratio stated in `text`, in order. A first term written without its zero (".55 to 1.00",
/// as older agreements do) is that fraction; digits after the point of a longer number ("1.55"
/// in "11.55 to 1") are no ratio.
pub(crate) fn find_ratios(text: &str) -> Vec<RatioMatch> {
    RATIO
        .captures_iter(text)
        .filter(|c| c.name("more").is_none())
        .filter_map(|c| {
            let number = c.name("a").or_else(|| c.name("x"))?;
            let span = c.get(0)?.range();
            let Some(lead) = text[..number.start()].strip_suffix('.') else {
                return Some(RatioMatch { span, value: parse_decimal(number.as_str())? });
            };
            if lead.ends_with(|c: char| c.is_ascii_digit()) || number.as_str().contains('.') {
                return None;
            }
            let value = parse_decimal(&format!("0.{}", number.as_str()))?;
            Some(RatioMatch { span: span.start - 1..span.end, value })
        })
        .collect()
}

/// Parses one ratio ("4.50:1.00", "5.00x") to its first term.
pub fn parse_ratio(raw: &str) -> Option<Decimal> {
    let found = find_ratios(raw);
    let first = found.first()?;
    (first.span.start == 0 && first.span.end == raw.trim_end().len()).then_some(first.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(raw: &str) -> Decimal {
        Decimal::from_str(raw).expect("test decimal")
    }

    fn only_money(text: &str) -> MoneyMatch {
        let mut found = find_money(text);
        assert_eq!(found.len(), 1, "{text}: {found:?}");
        found.remove(0)
    }

    #[test]
    fn figures_with_separators_and_scales_normalise_to_the_same_amount() {
        for text in [
            "$500,000,000",
            "US$500,000,000.00",
            "USD 500,000,000",
            "$500 million",
            "USD 0.5 billion",
            "500,000,000 USD",
        ] {
            let found = only_money(text);
            assert_eq!(found.money.value, dec("500000000"), "{text}");
            assert_eq!(found.money.currency.as_str(), "USD", "{text}");
            assert_eq!(found.span, 0..text.len(), "{text}");
        }
        assert_eq!(
            only_money("€750m").money,
            Money { value: dec("750000000"), currency: CurrencyCode::new("EUR").expect("EUR") }
        );
        assert_eq!(only_money("£1.5 billion").money.value, dec("1500000000"));
        assert_eq!(only_money("CHF 25,000,000").money.currency.as_str(), "CHF");
        assert_eq!(only_money("NOK 1,000").money.currency.as_str(), "NOK");
    }

    #[test]
    fn a_figure_with_an_upper_case_scale_letter_is_read_at_that_scale() {
        // Term sheets and tables abbreviate: "$221M of term loans", "$2.5B", "$750K", "$40MM".
        assert_eq!(only_money("$221M").money.value, dec("221000000"));
        assert_eq!(only_money("$40MM").money.value, dec("40000000"));
        assert_eq!(only_money("$2.5B").money.value, dec("2500000000"));
        assert_eq!(only_money("$750K").money.value, dec("750000"));
        assert_eq!(only_money("$221M").span, 0..5, "the scale letter is part of the statement");
    }

    #[test]
    fn a_single_digit_after_a_whole_amount_is_a_footnote_marker_not_a_tenth() {
        // A superscript note reference lands after the full stop when a filing is printed.
        let found = only_money("the total of the commitments is $40,000,000.3 Each lender");
        assert_eq!(found.money.value, dec("40000000"));
        assert_eq!(found.figures, 32..43, "the statement ends before the full stop");
        // Cents, scaled amounts and ungrouped figures keep their fraction.
        assert_eq!(only_money("$40,000,000.30").money.value, dec("40000000.3"));
        assert_eq!(only_money("$1,234.5 million").money.value, dec("1234500000"));
        assert_eq!(only_money("$2.5").money.value, dec("2.5"));
        // A digit between the figures and a currency code after them belongs to nothing clear.
        assert!(find_money("40,000,000.3 USD").is_empty());
    }

    #[test]
    fn words_and_figures_are_one_statement_and_agree() {
        let text = "an aggregate principal amount of Five Hundred Million Dollars ($500,000,000) and";
        let found = only_money(text);
        assert_eq!(&text[found.span.clone()], "Five Hundred Million Dollars ($500,000,000)");
        assert_eq!(found.money.value, dec("500000000"));
        assert!(found.words_disagree.is_none());
    }

    #[test]
    fn words_with_their_cents_as_a_fraction_of_a_hundred_are_one_statement_with_the_figures() {
        let text = "in the maximum principal amount of Three Million and No/100 Dollars ($3,000,000.00), under which";
        let found = only_money(text);
        assert_eq!(&text[found.span.clone()], "Three Million and No/100 Dollars ($3,000,000.00)");
        assert!(found.words_disagree.is_none());
        let cents = "the sum of Two Hundred Fifty Thousand and 50/100 Dollars ($250,000.50)";
        let found = only_money(cents);
        assert_eq!(found.money.value, dec("250000.50"));
        assert!(found.words_disagree.is_none());
        let wrong_cents = "the sum of One Million and 50/100 Dollars ($1,000,000.00)";
        assert!(only_money(wrong_cents).words_disagree.is_some());
    }

    #[test]
    fn words_that_disagree_with_the_figures_are_flagged() {
        let text = "Two Hundred Million United States Dollars (US$250,000,000)";
        let found = only_money(text);
        assert_eq!(found.money.value, dec("250000000"));
        assert_eq!(found.words_disagree.map(|r| &text[r]), Some("Two Hundred Million United States Dollars"));
    }

    #[test]
    fn symbols_spelled_out_by_plain_text_filings_are_currencies() {
        let found = find_money("shall be (pound)63,500.25 and (euro)1,000,000; (yen)5,000");
        let read: Vec<(String, String)> =
            found.iter().map(|m| (m.money.value.to_string(), m.money.currency.to_string())).collect();
        assert_eq!(
            read,
            [("63500.25".into(), "GBP".into()), ("1000000".into(), "EUR".into()), ("5000".into(), "JPY".into())]
        );
    }

    #[test]
    fn huge_numbers_do_not_overflow_or_panic() {
        assert_eq!(parse_decimal("9999999999999999999999999999999999"), None);
        assert_eq!(parse_number_words(&"billion ".repeat(40)), None);
        assert_eq!(
            parse_number_words("nine hundred ninety nine trillion nine hundred ninety nine billion"),
            Some(dec("999999000000000"))
        );
        assert_eq!(parse_number_words("one million two billion"), None);
        assert_eq!(parse_number_words(&"nine hundred ninety nine trillion ".repeat(400_000)), None);
        let text = format!("${}", "9".repeat(40));
        assert!(find_money(&text).is_empty());
        let text = "$99,999,999,999,999,999,999 billion";
        assert!(find_money(text).iter().all(|m| m.money.value > Decimal::ZERO));
    }

    #[test]
    fn a_percentage_in_words_and_figures_is_one_statement_and_must_agree() {
        let text = "means one hundred fifty (150) basis\npoints over Libor";
        let found = find_percents(text);
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].span.clone()], "one hundred fifty (150) basis\npoints");
        assert_eq!(found[0].fraction, dec("0.015"));
        let found = find_percents("Bank and two (2%) percent");
        assert!(found.iter().all(|p| p.fraction == dec("0.02")), "{found:?}");
        assert!(find_percents("one hundred (150) basis points").is_empty(), "words and figures differ");
        let found = find_percents("Section (150) basis points");
        assert_eq!(found.first().map(|p| p.fraction), Some(dec("0.015")));
    }

    #[test]
    fn percentages_in_every_common_form_become_fractions() {
        for (raw, expected) in [
            ("2.75%", "0.0275"),
            ("2.75 %", "0.0275"),
            ("275 basis points", "0.0275"),
            ("275 bps", "0.0275"),
            ("2¾ per cent", "0.0275"),
            ("2¾ per cent.", "0.0275"),
            ("2 3/4%", "0.0275"),
            ("2.25 per cent.", "0.0225"),
            ("0.375 percent", "0.00375"),
            ("35 per cent.", "0.35"),
            ("0.00%", "0"),
            ("zero per cent", "0"),
            ("1.25 percentage points", "0.0125"),
        ] {
            assert_eq!(parse_percent(raw), Some(dec(expected)), "{raw}");
        }
        assert_eq!(parse_percent("2.75"), None);
        assert_eq!(parse_percent("percent"), None);
    }

    #[test]
    fn ratios_read_their_first_term() {
        assert_eq!(parse_ratio("4.50:1.00"), Some(dec("4.5")));
        assert_eq!(parse_ratio("4.50 to 1.00"), Some(dec("4.5")));
        assert_eq!(parse_ratio("3.50:1"), Some(dec("3.5")));
        assert_eq!(parse_ratio("5.00x"), Some(dec("5")));
        assert_eq!(parse_ratio("4.50:1.005"), None);
    }

    #[test]
    fn a_percentage_in_words_restated_in_parentheses_is_one_statement() {
        let text = "interest at LIBOR plus two and 375/1000 percent (2.375%) per annum, a fee of one-half of one percent (0.50%), three and one-quarter percent (3.25%) and a rate of two percent (2%)";
        let found: Vec<(&str, Decimal)> =
            find_percents(text).into_iter().map(|p| (&text[p.span.clone()], p.fraction)).collect();
        assert_eq!(
            found,
            [
                ("two and 375/1000 percent (2.375%)", dec("0.02375")),
                ("one-half of one percent (0.50%)", dec("0.005")),
                ("three and one-quarter percent (3.25%)", dec("0.0325")),
                ("two percent (2%)", dec("0.02")),
            ]
        );
        // Words that say another rate than the figure make the statement unusable.
        assert!(find_percents("LIBOR plus two and one-half percent (2.75%)").is_empty());
        // A figure in parentheses after something other than a rate in words stays as it is.
        let found = find_percents("the Margin (2.25%) applies");
        assert_eq!(found.iter().map(|p| p.fraction).collect::<Vec<_>>(), [dec("0.0225")]);
    }

    #[test]
    fn a_fraction_of_a_percent_written_without_its_zero_is_that_fraction() {
        let found: Vec<(String, Decimal)> = find_percents("a fee of .1875% per annum and .625 percent, not 1.25%")
            .into_iter()
            .map(|p| (p.span.start.to_string(), p.fraction))
            .collect();
        let fractions: Vec<Decimal> = found.iter().map(|(_, f)| *f).collect();
        assert_eq!(fractions, [dec("0.001875"), dec("0.00625"), dec("0.0125")]);
    }

    #[test]
    fn a_figure_that_is_part_of_a_fraction_is_not_a_percentage_but_the_fraction_is() {
        for (text, expected) in [
            ("a rate of 3/8 of 1% per annum", "3/8 of 1%"),
            ("a fee of 3/8% of the Commitment", "3/8%"),
            ("one-half of one percent (1/2 of one percent)", "1/2 of one percent"),
        ] {
            let found: Vec<&str> = find_percents(text).iter().map(|p| &text[p.span.clone()]).collect();
            assert_eq!(found, [expected], "{text}");
        }
        assert_eq!(find_percents("a fee of 3/8 of 1% per annum")[0].fraction, dec("0.00375"));
        let mixed = find_percents("LIBOR plus 2 3/8%");
        assert_eq!(mixed.iter().map(|p| p.fraction).collect::<Vec<_>>(), [dec("0.02375")], "one figure");
        for text in [
            "one and 125/1000 percent",
            "rounded upward to the nearest 1/8 of 1%",
            "in multiples of 1/8%",
            "1/16 of 1%",
            "5/4%",
        ] {
            assert!(find_percents(text).is_empty(), "{text}: {:?}", find_percents(text));
        }
        let stated = find_percents("one and 125/1000 percent (1.125%)");
        assert_eq!(stated.iter().map(|p| p.fraction).collect::<Vec<_>>(), [dec("0.01125")]);
    }

    #[test]
    fn a_ratio_written_without_its_leading_zero_is_that_fraction() {
        let text = "to exceed .55 to 1.00 at any time, or .60:1 after an acquisition";
        let found: Vec<(&str, Decimal)> = find_ratios(text).into_iter().map(|r| (&text[r.span], r.value)).collect();
        assert_eq!(found, [(".55 to 1.00", dec("0.55")), (".60:1", dec("0.60"))]);
        assert!(find_ratios("Section 112.55 to 1.00").is_empty(), "the end of a longer number is no ratio");
    }

    #[test]
    fn a_ratio_wrapped_after_to_is_one_ratio() {
        let found = find_ratios("not less than 1.0 to\n     1.0 for the three Fiscal Quarter period");
        assert_eq!(found.iter().map(|r| r.value).collect::<Vec<_>>(), [dec("1.0")]);
    }

    #[test]
    fn a_ratio_wrapped_before_to_is_one_ratio() {
        let found = find_ratios("shall increase to 0.70\nto 1.00 for four fiscal quarters");
        assert_eq!(found.iter().map(|r| r.value).collect::<Vec<_>>(), [dec("0.70")]);
        assert_eq!(find_ratios("Section 7.11\n\nto 1.00").len(), 0, "a blank line ends a ratio");
    }

    #[test]
    fn a_ratio_written_in_capitals_is_read() {
        let found: Vec<Decimal> =
            find_ratios("NOT TO EXCEED 3.0 TO 1.0 NOR BE LESS THAN 2.50X").iter().map(|r| r.value).collect();
        assert_eq!(found, [dec("3.0"), dec("2.50")]);
        assert!(find_ratios("SECTION 7 TOTAL").is_empty());
    }
}
