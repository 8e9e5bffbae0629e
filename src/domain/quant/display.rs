//! Figures as analysts write them in prose: the one place where a summary, a finding or a chat
//! answer turns a number into words. Raw values stay raw in `metrics` and `data`; only text uses this.
//!
//! The conventions:
//! - **Amounts** carry their currency first and, from a million up, a scale with one decimal:
//!   `USD 383.3 bn`, `EUR 12.5 m`, `USD 1.2 tn`. Below a million the amount is written in full with
//!   thousands separators (`USD 750,000`), with cents only below a thousand and only when there are
//!   any (`USD 12.50`). The scale is chosen after rounding, so 999.95 m is `USD 1.0 bn`, never
//!   `USD 1,000.0 m`, and 40 m is `USD 40.0 m`, never `USD 0.0 bn`. A negative amount is written
//!   with a minus sign after the currency (`USD -1.2 bn`): in a sentence a sign reads more plainly
//!   than accounting parentheses. Where the currency is not known, the scaled number stands alone
//!   (`383.3 bn`); no currency is invented.
//! - **Stated amounts** — a commitment an agreement sets — are exact: written at scale only when the
//!   scale writes them exactly (`USD 250 m`, `USD 1.5 bn`, `USD 250.125 m`), otherwise in full
//!   (`USD 1,234,567.50`). A computed figure is rounded; a contractual one is not.
//! - **Multiples** end in `×`, **percentages** in `%`, both with three significant figures and at
//!   most two decimals: `0.88×`, `29.1×`, `1,235×`; `1.25%`, `29.8%`, `150%`.
//! - **Scores** (Altman Z, Sharpe, beta, distance to default) have two decimals; whole ones and
//!   **counts** are written as integers with thousands separators.
//! - A value that would round to zero although it is not zero keeps two significant digits
//!   (`0.0012%`, not `0.00%`), so no figure loses its meaning by rounding; below 0.000001 it
//!   is written as a bound (`< 0.000001%`), not as a hundred zeros.
//! - NaN and infinity are written `n/a`: they never reach a reader as such.

use rust_decimal::{Decimal, RoundingStrategy};

use super::Unit;

/// How a value that is not a finite number is written.
pub const NOT_AVAILABLE: &str = "n/a";

/// Scales of amounts, largest first: a million and up is written at scale.
const SCALES: [(f64, &str); 3] = [(1e12, "tn"), (1e9, "bn"), (1e6, "m")];

/// An amount with its currency and scale: `USD 383.3 bn`, `USD -1.2 bn`, `USD 750,000`, `383.3 bn`.
pub fn amount(value: f64, currency: Option<&str>) -> String {
    let number = scaled_amount(value);
    match currency.map(str::trim).filter(|c| !c.is_empty()) {
        Some(currency) if value.is_finite() => format!("{currency} {number}"),
        _ => number,
    }
}

/// The number part of [`amount`]: `383.3 bn`, `-1.2 bn`, `750,000`, `12.50`.
fn scaled_amount(value: f64) -> String {
    if !value.is_finite() {
        return NOT_AVAILABLE.to_owned();
    }
    let magnitude = value.abs();
    if let Some(i) = SCALES.iter().position(|(size, _)| magnitude >= *size) {
        let (size, name) = SCALES[i];
        let at_scale = round_to(magnitude / size, 1);
        // 999.95 m rounds to 1,000.0 m: that is the next scale's 1.0.
        if let Some((larger, larger_name)) = i.checked_sub(1).map(|j| SCALES[j]).filter(|_| at_scale >= 1000.0) {
            return signed(value, &format!("{} {larger_name}", grouped(round_to(magnitude / larger, 1), 1)));
        }
        return signed(value, &format!("{} {name}", grouped(at_scale, 1)));
    }
    let whole = magnitude.round();
    if whole >= 1e6 {
        // 999,999.5 rounds up to a million: that is 1.0 m.
        return signed(value, "1.0 m");
    }
    if whole >= 1000.0 || magnitude.fract() == 0.0 {
        return signed(value, &grouped(whole, 0));
    }
    let cents = round_to(magnitude, 2);
    if cents >= 1000.0 {
        return signed(value, &grouped(cents, 0));
    }
    if cents == 0.0 {
        return small(value);
    }
    signed(value, &grouped(cents, 2))
}

/// An amount an agreement states, exactly: `USD 250 m`, `USD 250.125 m`, `USD 1,234,567.50`.
pub fn stated_amount(value: Decimal, currency: Option<&str>) -> String {
    let number = exact_number(value);
    match currency.map(str::trim).filter(|c| !c.is_empty()) {
        Some(currency) => format!("{currency} {number}"),
        None => number,
    }
}

/// Decimals a stated amount may have at scale and still read as a round figure.
const STATED_SCALE_DECIMALS: u32 = 3;

fn exact_number(value: Decimal) -> String {
    let magnitude = value.abs();
    for (size, name) in SCALES {
        let Some(size) = Decimal::from_f64_retain(size) else { continue };
        if magnitude < size {
            continue;
        }
        if let Some(scaled) = magnitude.checked_div(size).map(|d| d.normalize())
            && scaled.scale() <= STATED_SCALE_DECIMALS
        {
            return decimal_signed(value, &format!("{} {name}", decimal_grouped(scaled)));
        }
        break;
    }
    let rounded = magnitude.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero).normalize();
    let text = if rounded.scale() == 0 {
        decimal_grouped(rounded)
    } else {
        // Cents are written as two digits: 1,234,567.50.
        let mut cents = rounded;
        cents.rescale(2);
        decimal_grouped(cents)
    };
    decimal_signed(value, &text)
}

fn decimal_grouped(magnitude: Decimal) -> String {
    with_thousands_separators(&magnitude.to_string())
}

fn decimal_signed(value: Decimal, text: &str) -> String {
    if value.is_sign_negative() && !value.is_zero() { format!("-{text}") } else { text.to_owned() }
}

/// A multiple: `0.88×`, `29.1×`, `1,235×`.
pub fn multiple(value: f64) -> String {
    three_figures(value).map_or_else(|| NOT_AVAILABLE.to_owned(), |number| format!("{number}×"))
}

/// A fraction as a percentage: 0.2984 → `29.8%`, 0.0125 → `1.25%`, -0.069 → `-6.90%`.
pub fn percent(fraction: f64) -> String {
    three_figures(fraction * 100.0).map_or_else(|| NOT_AVAILABLE.to_owned(), |number| format!("{number}%"))
}

/// A change as a signed percentage: 0.078 → `+7.80%`, -0.12 → `-12.0%`, 0 → `0.00%`.
pub fn percent_change(fraction: f64) -> String {
    let text = percent(fraction);
    let starts_with_a_digit = text.starts_with(|c: char| c.is_ascii_digit());
    if fraction > 0.0 && starts_with_a_digit && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        format!("+{text}")
    } else {
        text
    }
}

/// A score: two decimals (`3.21`, `-0.45`), a whole score as an integer (`7`).
pub fn score(value: f64) -> String {
    if !value.is_finite() {
        return NOT_AVAILABLE.to_owned();
    }
    if value.fract() == 0.0 {
        return signed(value, &grouped(value.abs(), 0));
    }
    with_decimals(value, 2)
}

/// A count: an integer with thousands separators (`1,260`), or two decimals when it has a
/// fraction (`0.98` years).
pub fn count(value: f64) -> String {
    score(value)
}

/// A value written in its unit; `currency` names the currency of an amount when it is known.
pub fn figure(value: f64, unit: Unit, currency: Option<&str>) -> String {
    match unit {
        Unit::Currency => amount(value, currency),
        Unit::Ratio => multiple(value),
        Unit::Fraction => percent(value),
        Unit::Score => score(value),
        Unit::Count => count(value),
    }
}

/// Three significant figures with at most two decimals and at least none: `0.88`, `29.8`, `1,235`;
/// two significant digits for a value that would otherwise round to zero. `None` when not finite.
fn three_figures(value: f64) -> Option<String> {
    if !value.is_finite() {
        return None;
    }
    let magnitude = value.abs();
    // The number of decimals is decided on the value rounded to them, so 9.996 is 10.0 (not 10.00)
    // and 99.51 is 99.5 (not 100).
    let decimals = if round_to(magnitude, 1) >= 100.0 {
        0
    } else if round_to(magnitude, 2) >= 10.0 {
        1
    } else {
        2
    };
    Some(with_decimals(value, decimals))
}

/// `value` rounded to `decimals`, grouped by thousands, signed; a nonzero value that would round to
/// zero keeps two significant digits.
fn with_decimals(value: f64, decimals: i32) -> String {
    let magnitude = value.abs();
    let rounded = round_to(magnitude, decimals);
    if rounded == 0.0 && magnitude > 0.0 {
        return small(value);
    }
    signed(value, &grouped(rounded, decimals))
}

/// `text` (the written magnitude) with a minus sign when `value` is negative and the text is not zero.
fn signed(value: f64, text: &str) -> String {
    let is_zero = !text.chars().any(|c| c.is_ascii_digit() && c != '0');
    if value < 0.0 && !is_zero { format!("-{text}") } else { text.to_owned() }
}

fn round_to(value: f64, decimals: i32) -> f64 {
    let factor = 10f64.powi(decimals);
    (value * factor).round() / factor
}

/// A non-negative value with `decimals` decimals and thousands separators: `1,234.5`.
fn grouped(magnitude: f64, decimals: i32) -> String {
    with_thousands_separators(&format!("{magnitude:.*}", usize::try_from(decimals).unwrap_or(0)))
}

/// A non-negative decimal written with digits and an optional `.fraction` (`1234.5`), with commas
/// between its thousands: `1,234.5`.
fn with_thousands_separators(text: &str) -> String {
    let (integer, fraction) = text.split_once('.').map_or((text, None), |(i, f)| (i, Some(f)));
    let mut out = String::with_capacity(text.len() + integer.len() / 3);
    for (i, digit) in integer.chars().enumerate() {
        if i > 0 && (integer.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(fraction);
    }
    out
}

/// The smallest magnitude written with its digits (a variance of daily returns is 0.00002); anything
/// closer to zero is written as a bound.
const SMALLEST_WRITTEN: f64 = 1e-6;

/// A nonzero value that rounds to zero: two significant digits (`0.0012`), or the bound it is
/// within (`< 0.000001`, `> -0.000001`).
fn small(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= SMALLEST_WRITTEN {
        signed(value, &significant(magnitude, 2))
    } else if value > 0.0 {
        format!("< {}", significant(SMALLEST_WRITTEN, 1))
    } else {
        format!("> -{}", significant(SMALLEST_WRITTEN, 1))
    }
}

/// A small positive value with at most `digits` significant digits, trailing zeros dropped:
/// 0.001234 → `0.0012`, 0.004 → `0.004`.
fn significant(magnitude: f64, digits: i32) -> String {
    let exponent = magnitude.log10().floor() as i32;
    let decimals = (digits - 1 - exponent).max(0);
    let text = format!("{magnitude:.*}", usize::try_from(decimals).unwrap_or(0));
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_owned() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_written_with_their_currency_at_the_scale_they_reach() {
        assert_eq!(amount(383_285_000_000.0, Some("USD")), "USD 383.3 bn");
        assert_eq!(amount(12_500_000.0, Some("EUR")), "EUR 12.5 m");
        assert_eq!(amount(1_234_000_000_000.0, Some("USD")), "USD 1.2 tn");
        assert_eq!(amount(2_500_000_000_000_000.0, Some("USD")), "USD 2,500.0 tn");
        assert_eq!(amount(750_000.0, Some("USD")), "USD 750,000");
        assert_eq!(amount(1_000_000.0, Some("GBP")), "GBP 1.0 m");
    }

    #[test]
    fn an_amount_of_unknown_currency_is_scaled_without_inventing_one() {
        assert_eq!(amount(383_285_000_000.0, None), "383.3 bn");
        assert_eq!(amount(750_000.0, None), "750,000");
        assert_eq!(amount(5.0, Some("  ")), "5");
    }

    #[test]
    fn the_scale_is_chosen_after_rounding() {
        assert_eq!(amount(999_950_000.0, Some("USD")), "USD 1.0 bn");
        assert_eq!(amount(999_940_000.0, Some("USD")), "USD 999.9 m");
        assert_eq!(amount(999_950_000_000.0, Some("USD")), "USD 1.0 tn");
        assert_eq!(amount(999_999.5, Some("USD")), "USD 1.0 m");
        assert_eq!(amount(999_999.4, Some("USD")), "USD 999,999");
        assert_eq!(amount(999.996, Some("USD")), "USD 1,000");
    }

    #[test]
    fn a_small_amount_at_a_large_scale_keeps_its_meaning() {
        assert_eq!(amount(40_000_000.0, Some("USD")), "USD 40.0 m", "never 0.0 bn");
        assert_eq!(amount(-40_000_000.0, Some("USD")), "USD -40.0 m");
        assert_eq!(amount(12.5, Some("USD")), "USD 12.50");
        assert_eq!(amount(12.0, Some("USD")), "USD 12");
        assert_eq!(amount(0.001_234, Some("USD")), "USD 0.0012");
        assert_eq!(amount(0.0, Some("USD")), "USD 0");
    }

    #[test]
    fn negative_amounts_carry_a_minus_after_the_currency_and_negative_zero_is_zero() {
        assert_eq!(amount(-1_234_000_000.0, Some("USD")), "USD -1.2 bn");
        assert_eq!(amount(-750_000.0, None), "-750,000");
        assert_eq!(amount(-0.0, Some("USD")), "USD 0");
        assert_eq!(amount(-0.004, Some("USD")), "USD -0.004");
    }

    #[test]
    fn numbers_that_are_not_finite_are_never_printed_as_such() {
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(amount(value, Some("USD")), "n/a");
            assert_eq!(multiple(value), "n/a");
            assert_eq!(percent(value), "n/a");
            assert_eq!(percent_change(value), "n/a");
            assert_eq!(score(value), "n/a");
            assert_eq!(figure(value, Unit::Count, None), "n/a");
        }
    }

    fn decimal(text: &str) -> Decimal {
        text.parse().expect("decimal")
    }

    #[test]
    fn a_stated_amount_is_written_at_scale_only_when_the_scale_writes_it_exactly() {
        assert_eq!(stated_amount(decimal("250000000"), Some("USD")), "USD 250 m");
        assert_eq!(stated_amount(decimal("1500000000"), Some("USD")), "USD 1.5 bn");
        assert_eq!(stated_amount(decimal("250125000"), Some("EUR")), "EUR 250.125 m");
        assert_eq!(stated_amount(decimal("250125500"), Some("USD")), "USD 250,125,500");
        assert_eq!(stated_amount(decimal("1234567.5"), None), "1,234,567.50");
        assert_eq!(stated_amount(decimal("750000"), Some("USD")), "USD 750,000");
        assert_eq!(stated_amount(decimal("999"), None), "999");
        assert_eq!(stated_amount(decimal("12.345"), None), "12.35");
        assert_eq!(stated_amount(decimal("-5000000"), Some("USD")), "USD -5 m");
        assert_eq!(stated_amount(decimal("2000000000000000"), Some("USD")), "USD 2,000 tn");
        assert_eq!(stated_amount(Decimal::MAX, None).chars().filter(|c| *c == ',').count(), 9, "in full");
    }

    #[test]
    fn multiples_and_percentages_have_three_significant_figures() {
        assert_eq!(multiple(0.8812), "0.88×");
        assert_eq!(multiple(4.5), "4.50×");
        assert_eq!(multiple(29.0641), "29.1×");
        assert_eq!(multiple(9.996), "10.0×", "the decimals follow the rounded value");
        assert_eq!(multiple(1234.56), "1,235×");
        assert_eq!(multiple(99.509), "99.5×", "not 100×");
        assert_eq!(multiple(99.96), "100×");
        assert_eq!(multiple(-1.2), "-1.20×");
        assert_eq!(percent(0.298_41), "29.8%");
        assert_eq!(percent(0.0125), "1.25%");
        assert_eq!(percent(0.0003), "0.03%");
        assert_eq!(percent(0.000_012), "0.0012%", "not 0.00%");
        assert_eq!(percent(1.5), "150%");
        assert_eq!(percent(-0.069), "-6.90%");
        assert_eq!(percent(-0.000_01), "-0.001%");
        assert_eq!(percent(8.5e-103), "< 0.000001%", "a bound, not a hundred zeros");
        assert_eq!(percent(-8.5e-103), "> -0.000001%");
        assert_eq!(score(2.1e-5), "0.000021");
        assert_eq!(score(1e-9), "< 0.000001");
        assert_eq!(amount(1e-9, Some("USD")), "USD < 0.000001");
        assert_eq!(percent(0.0), "0.00%");
    }

    #[test]
    fn a_change_says_its_direction() {
        assert_eq!(percent_change(0.078), "+7.80%");
        assert_eq!(percent_change(-0.12), "-12.0%");
        assert_eq!(percent_change(0.0), "0.00%");
        assert_eq!(percent_change(1e-11), "< 0.000001%");
    }

    #[test]
    fn scores_have_two_decimals_and_counts_none() {
        assert_eq!(score(3.2134), "3.21");
        assert_eq!(score(-0.454), "-0.45");
        assert_eq!(score(7.0), "7");
        assert_eq!(score(0.000_123), "0.00012");
        assert_eq!(count(1260.0), "1,260");
        assert_eq!(count(0.98), "0.98");
    }

    #[test]
    fn a_figure_is_written_in_its_unit() {
        assert_eq!(figure(383_285_000_000.0, Unit::Currency, Some("USD")), "USD 383.3 bn");
        assert_eq!(figure(0.8812, Unit::Ratio, Some("USD")), "0.88×");
        assert_eq!(figure(0.298_41, Unit::Fraction, None), "29.8%");
        assert_eq!(figure(3.2134, Unit::Score, None), "3.21");
        assert_eq!(figure(252.0, Unit::Count, None), "252");
    }
}
