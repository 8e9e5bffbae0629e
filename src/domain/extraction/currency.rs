//! ISO 4217 currency codes, and the symbols and words agreements use for them.

use std::fmt;

use serde::{Serialize, Serializer};

use super::sourced::sourced_value_via_serde;

/// The ISO 4217 alphabetic codes in use, sorted, so that a lookup is a binary search. `XTS`
/// (testing) and `XXX` (no currency) are left out: neither can denominate a commitment.
const ISO_4217: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BGN", "BHD", "BIF",
    "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHE", "CHF", "CHW", "CLF",
    "CLP", "CNY", "COP", "COU", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR",
    "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS",
    "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT",
    "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR",
    "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP",
    "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE",
    "SLL", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD",
    "TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED", "VES", "VND", "VUV", "WST", "XAF", "XAG",
    "XAU", "XBA", "XBB", "XBC", "XBD", "XCD", "XCG", "XDR", "XOF", "XPD", "XPF", "XPT", "XSU", "XUA", "YER", "ZAR",
    "ZMW", "ZWG", "ZWL",
];

/// An ISO 4217 alphabetic currency code. Only codes on the ISO list can be constructed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CurrencyCode([u8; 3]);

impl CurrencyCode {
    /// The code, if `raw` is exactly an ISO 4217 code in upper case.
    pub fn new(raw: &str) -> Option<Self> {
        let bytes: [u8; 3] = raw.as_bytes().try_into().ok()?;
        ISO_4217.binary_search(&raw).ok().map(|_| Self(bytes))
    }

    /// The three-letter code.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("XXX")
    }

    /// The code a currency symbol stands for. `$` is read as US dollars, as credit agreements
    /// define it ("`$` and `Dollars` mean lawful money of the United States").
    pub(crate) fn from_symbol(symbol: &str) -> Option<Self> {
        let code = match symbol {
            "$" | "US$" | "U.S.$" | "USD$" => "USD",
            "C$" | "CA$" | "CAD$" => "CAD",
            "A$" | "AU$" => "AUD",
            "NZ$" => "NZD",
            "HK$" => "HKD",
            "S$" => "SGD",
            // EDGAR's plain-text filings of the 1990s and 2000s spell the symbols they could not
            // encode as "(pound)", "(euro)" and "(yen)".
            "£" | "(pound)" => "GBP",
            "€" | "(euro)" => "EUR",
            "¥" | "(yen)" => "JPY",
            _ => return None,
        };
        Self::new(code)
    }

    /// The code for a currency named in words ("U.S. Dollars", "Pounds Sterling", "euro").
    pub(crate) fn from_words(words: &str) -> Option<Self> {
        let lower = words.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        let code = if lower.contains("canadian") {
            "CAD"
        } else if lower.contains("australian") {
            "AUD"
        } else if lower.contains("new zealand") {
            "NZD"
        } else if lower.contains("hong kong") {
            "HKD"
        } else if lower.contains("singapore") {
            "SGD"
        } else if lower.contains("dollar") {
            "USD"
        } else if lower.contains("euro") {
            "EUR"
        } else if lower.contains("sterling") || lower.contains("pound") {
            "GBP"
        } else if lower.contains("swiss franc") || lower == "francs" || lower == "franc" {
            "CHF"
        } else if lower.contains("yen") {
            "JPY"
        } else {
            return None;
        };
        Self::new(code)
    }
}

impl fmt::Display for CurrencyCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CurrencyCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

sourced_value_via_serde!(CurrencyCode);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_list_is_sorted_so_lookups_are_correct() {
        assert!(ISO_4217.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn any_listed_iso_code_is_accepted_and_others_are_not() {
        for code in ["USD", "EUR", "GBP", "CHF", "JPY", "NOK", "ZAR", "XOF"] {
            assert_eq!(CurrencyCode::new(code).map(|c| c.to_string()), Some(code.to_owned()));
        }
        for raw in ["usd", "US", "USDX", "ABC", "XXX", "€"] {
            assert_eq!(CurrencyCode::new(raw), None, "{raw}");
        }
    }

    #[test]
    fn symbols_and_words_map_to_their_codes() {
        assert_eq!(CurrencyCode::from_symbol("£").map(|c| c.to_string()).as_deref(), Some("GBP"));
        assert_eq!(CurrencyCode::from_symbol("US$").map(|c| c.to_string()).as_deref(), Some("USD"));
        assert_eq!(CurrencyCode::from_words("United States Dollars").map(|c| c.to_string()).as_deref(), Some("USD"));
        assert_eq!(CurrencyCode::from_words("Pounds Sterling").map(|c| c.to_string()).as_deref(), Some("GBP"));
        assert_eq!(CurrencyCode::from_words("Canadian Dollars").map(|c| c.to_string()).as_deref(), Some("CAD"));
        assert_eq!(CurrencyCode::from_words("Swiss Francs").map(|c| c.to_string()).as_deref(), Some("CHF"));
    }
}
