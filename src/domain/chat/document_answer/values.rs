//! The values of agreement data, read and written for people: a scalar is read from a string, a
//! number or a CDM wrapper (`{"@data": …}`, `{"value": …}`); rates are fractions in the data
//! (0.0275) and are written "2.75% (275 bps)"; dates are ISO 8601 and written "15 March 2024";
//! amounts are written exactly, at scale when the scale writes them exactly ("USD 250 m"), as
//! [`stated_amount`] writes every amount an agreement states; governing-law codes are named ("USNY"
//! → New York law).

use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value;

use crate::domain::quant::display::stated_amount;

/// The scalar of a value: a string, a number, or the `@data`/`value` of a CDM wrapper.
pub(super) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(object) => object.get("@data").or_else(|| object.get("value")).and_then(text_of),
        _ => None,
    }
}

pub(super) fn decimal_of(value: &Value) -> Option<Decimal> {
    let text = text_of(value)?;
    Decimal::from_str(&text).or_else(|_| Decimal::from_scientific(&text)).ok()
}

/// A rate given as a fraction, as a percentage and in basis points: 0.0275 → "2.75% (275 bps)".
/// A value too large to scale is shown as given.
pub(super) fn format_rate(rate: Decimal) -> String {
    match (rate.checked_mul(Decimal::ONE_HUNDRED), rate.checked_mul(Decimal::from(10_000))) {
        (Some(percent), Some(bps)) => format!("{}% ({} bps)", percent.normalize(), bps.normalize()),
        _ => format!("{rate} (as a fraction)"),
    }
}

/// An amount exactly, at scale when the scale writes it exactly: "250 m", "1,234,567.50".
pub(super) fn format_amount(amount: Decimal) -> String {
    stated_amount(amount, None)
}

/// A money value with its currency: "USD 250 m".
pub(super) fn format_money(value: &Value) -> Option<String> {
    let amount = decimal_of(value.get("value")?).or_else(|| decimal_of(value))?;
    let currency = value
        .get("currency")
        .and_then(text_of)
        .or_else(|| value.get("unit").and_then(|unit| unit.get("currency")).and_then(text_of));
    Some(stated_amount(amount, currency.as_deref()))
}

/// An ISO 8601 date in words ("2024-03-15" → "15 March 2024"); anything else as given.
pub(super) fn format_date(raw: &str) -> String {
    let iso = time::macros::format_description!("[year]-[month]-[day]");
    match time::Date::parse(raw.get(..10).unwrap_or(raw), &iso) {
        Ok(date) => format!("{} {} {}", date.day(), date.month(), date.year()),
        Err(_) => raw.to_owned(),
    }
}

/// A covenant level written as a ratio: 4.5 → "4.50:1.00".
pub(super) fn format_ratio(threshold: Decimal) -> String {
    format!("{:.2}:1.00", threshold.round_dp(2))
}

fn governing_law_name(code: &str) -> Option<&'static str> {
    Some(match code {
        "BE" => "Belgian law",
        "CAAB" => "the law of Alberta",
        "CABC" => "the law of British Columbia",
        "CAMN" => "the law of Manitoba",
        "CAON" => "the law of Ontario",
        "CAQC" => "the law of Quebec",
        "DE" => "German law",
        "FR" => "French law",
        "GBEN" => "English law",
        "GBGY" => "the law of Guernsey",
        "GBIM" => "the law of the Isle of Man",
        "GBJY" => "the law of Jersey",
        "GBSC" => "Scots law",
        "IE" => "Irish law",
        "JP" => "Japanese law",
        "LU" => "Luxembourg law",
        "USCA" => "California law",
        "USDE" => "Delaware law",
        "USIL" => "Illinois law",
        "USNY" => "New York law",
        _ => return None,
    })
}

pub(super) fn format_governing_law(code: &str) -> String {
    match governing_law_name(code) {
        Some(name) => format!("The agreement is governed by {name} ({code})."),
        None => format!("The agreement is governed by {code}."),
    }
}

/// A CDM period `{periodMultiplier, period}` as "3M".
pub(super) fn format_period(value: &Value) -> Option<String> {
    let multiplier = text_of(value.get("periodMultiplier")?)?;
    let unit = text_of(value.get("period")?)?;
    Some(format!("{multiplier}{unit}"))
}

/// "A", "A and B", "A, B and C".
pub(super) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// "AdministrativeAgent" → "administrative agent".
pub(super) fn role_words(role: &str) -> String {
    let mut words = String::new();
    for (i, c) in role.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            words.push(' ');
        }
        words.extend(c.to_lowercase());
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_amounts_format_exactly() {
        assert_eq!(format_rate(Decimal::from_str("0.0275").expect("decimal")), "2.75% (275 bps)");
        assert_eq!(format_rate(Decimal::from_str("0.00125").expect("decimal")), "0.125% (12.5 bps)");
        assert_eq!(format_amount(Decimal::from_str("1234567.5").expect("decimal")), "1,234,567.50");
        assert_eq!(format_amount(Decimal::from_str("999").expect("decimal")), "999");
        assert_eq!(format_amount(Decimal::from_str("250000000").expect("decimal")), "250 m");
        assert_eq!(
            format_money(&serde_json::json!({ "value": "1500000000", "currency": "USD" })).as_deref(),
            Some("USD 1.5 bn")
        );
        assert_eq!(format_date("2024-02-29"), "29 February 2024");
        assert_eq!(format_date("soon"), "soon");
        assert_eq!(format_rate(Decimal::MAX), format!("{} (as a fraction)", Decimal::MAX));
    }
}
