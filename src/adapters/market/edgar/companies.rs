//! Company lookup: SEC's ticker list ([`TickerIndex`]) and how a query's ticker or name finds a
//! company (CIK) in it.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use crate::ports::financial_data::{CompanyQuery, FinancialDataError, MAX_CANDIDATES, ResolvedCompany};

/// One company of `company_tickers.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TickerEntry {
    cik: u64,
    ticker: String,
    title: String,
    normalised_title: String,
}

impl TickerEntry {
    fn to_company(&self) -> ResolvedCompany {
        ResolvedCompany {
            cik: self.cik,
            name: self.title.clone(),
            ticker: (!self.ticker.is_empty()).then(|| self.ticker.clone()),
        }
    }
}

/// The ticker list in SEC's order (roughly by market value; a company's first entry is its primary
/// share class), searchable by ticker and normalised name.
#[derive(Clone, Debug, Default)]
pub struct TickerIndex {
    entries: Vec<TickerEntry>,
    by_ticker: HashMap<String, usize>,
}

#[derive(Deserialize)]
struct RawTickerEntry {
    cik_str: serde_json::Value,
    #[serde(default)]
    ticker: String,
    title: String,
}

impl TickerIndex {
    /// Parses `company_tickers.json`: an object keyed `"0"`, `"1"`, … in SEC's order, whose values
    /// hold `cik_str` (a number, or digits as a string), `ticker` and `title`.
    ///
    /// # Errors
    /// [`FinancialDataError::InvalidData`] naming `provider` when the document has another shape.
    pub fn parse(json: &[u8], provider: &'static str) -> Result<Self, FinancialDataError> {
        let invalid = |reason: String| FinancialDataError::InvalidData { provider, reason };
        let mut deserializer = serde_json::Deserializer::from_slice(json);
        let raw: HashMap<String, RawTickerEntry> = serde_path_to_error::deserialize(&mut deserializer)
            .map_err(|e| invalid(format!("company_tickers.json is malformed at '{}': {}", e.path(), e.inner())))?;
        let mut keyed: Vec<(Option<u64>, String, RawTickerEntry)> =
            raw.into_iter().map(|(key, entry)| (key.parse().ok(), key, entry)).collect();
        // Numeric keys in numeric order first (SEC's order), anything else after, by key.
        keyed.sort_by(|a, b| (a.0.is_none(), a.0, &a.1).cmp(&(b.0.is_none(), b.0, &b.1)));
        let mut index = Self::default();
        for (_, key, raw) in keyed {
            let cik = match &raw.cik_str {
                serde_json::Value::Number(n) => n.as_u64(),
                serde_json::Value::String(s) => s.trim().parse().ok(),
                _ => None,
            }
            .ok_or_else(|| invalid(format!("company_tickers.json entry '{key}' has no numeric cik_str")))?;
            let ticker = normalise_ticker(&raw.ticker);
            let position = index.entries.len();
            if !ticker.is_empty() {
                index.by_ticker.entry(ticker.clone()).or_insert(position);
            }
            index.entries.push(TickerEntry {
                cik,
                ticker,
                normalised_title: normalise_company_name(&raw.title),
                title: raw.title.trim().to_owned(),
            });
        }
        Ok(index)
    }

    /// Number of entries (share classes count separately).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Resolves a query in this order: the query's ticker exactly; the name exactly (normalised by
    /// [`normalise_company_name`]); the name taken as a ticker; the companies whose normalised name
    /// contains the query's normalised words as whole words (a prefix included). Entries of one CIK
    /// (share classes) count once, as their first entry.
    ///
    /// # Errors
    /// [`FinancialDataError::UnknownCompany`] when nothing matches, [`FinancialDataError::Ambiguous`]
    /// (at most [`MAX_CANDIDATES`], in SEC's order) when one step matches several companies.
    pub fn resolve(&self, query: &CompanyQuery) -> Result<ResolvedCompany, FinancialDataError> {
        if let Some(entry) = query.ticker.as_deref().and_then(|ticker| self.by_ticker(ticker)) {
            return Ok(entry.to_company());
        }
        let name = query.name.trim();
        let wanted = normalise_company_name(name);
        let unknown = || FinancialDataError::UnknownCompany { query: query.describe() };
        if !wanted.is_empty() {
            let exact = self.distinct_companies(|entry| entry.normalised_title == wanted);
            if !exact.is_empty() {
                return self.single_or_ambiguous(query, exact);
            }
        }
        if let Some(entry) = self.by_ticker(name) {
            return Ok(entry.to_company());
        }
        if wanted.is_empty() {
            return Err(unknown());
        }
        let needle = format!(" {wanted} ");
        let containing = self.distinct_companies(|entry| format!(" {} ", entry.normalised_title).contains(&needle));
        if containing.is_empty() {
            return Err(unknown());
        }
        self.single_or_ambiguous(query, containing)
    }

    fn by_ticker(&self, ticker: &str) -> Option<&TickerEntry> {
        let ticker = normalise_ticker(ticker);
        if ticker.is_empty() {
            return None;
        }
        self.by_ticker.get(&ticker).and_then(|&position| self.entries.get(position))
    }

    /// Matching entries, one per CIK, in SEC's order.
    fn distinct_companies(&self, matches: impl Fn(&TickerEntry) -> bool) -> Vec<&TickerEntry> {
        let mut seen = HashSet::new();
        self.entries.iter().filter(|entry| matches(entry) && seen.insert(entry.cik)).collect()
    }

    fn single_or_ambiguous(
        &self,
        query: &CompanyQuery,
        matches: Vec<&TickerEntry>,
    ) -> Result<ResolvedCompany, FinancialDataError> {
        match matches.as_slice() {
            [only] => Ok(only.to_company()),
            _ => Err(FinancialDataError::Ambiguous {
                query: query.describe(),
                candidates: matches.iter().take(MAX_CANDIDATES).map(|entry| entry.to_company()).collect(),
            }),
        }
    }
}

/// Tickers compare upper-case, with `.` as `-` (`brk.b` finds SEC's `BRK-B`) and without a leading `$`.
fn normalise_ticker(raw: &str) -> String {
    raw.trim().trim_start_matches('$').to_uppercase().replace('.', "-")
}

/// Legal-form words dropped from the end of a name. `holdings`, `group` and the like are kept: they
/// tell apart companies that share a stem ("Acme Holdings" is not "Acme"); the containment step of
/// [`TickerIndex::resolve`] still finds them.
const LEGAL_SUFFIXES: &[&str] = &[
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "co",
    "company",
    "ltd",
    "limited",
    "plc",
    "llc",
    "lp",
    "llp",
    "sa",
    "ag",
    "nv",
    "se",
];

/// SEC titles carry state-of-incorporation or history tags such as `/DE/` or `/NEW/`.
static STATE_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"/[a-z]{1,4}/").unwrap_or_else(|error| panic!("the state-tag pattern must compile: {error}"))
});

/// A company name for comparison: lower case; `/DE/`-style tags removed; apostrophes dropped
/// (`McDonald's` = `mcdonalds`); any other punctuation a word break (`Amazon.com` = `amazon com`,
/// `AT&T` = `at t`); the word `and` and a leading `the` dropped; legal-form suffixes
/// (`LEGAL_SUFFIXES`: inc, corp, co, ltd, plc, …) dropped from the end, keeping at least one word.
pub fn normalise_company_name(raw: &str) -> String {
    let lower = raw.to_lowercase();
    let untagged = STATE_TAG.replace_all(&lower, " ");
    let spaced: String = untagged
        .chars()
        .filter(|c| !matches!(c, '\'' | '’'))
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut words: Vec<&str> = spaced.split_whitespace().filter(|word| *word != "and").collect();
    if words.len() > 1 && words.first() == Some(&"the") {
        words.remove(0);
    }
    while words.len() > 1 && words.last().is_some_and(|word| LEGAL_SUFFIXES.contains(word)) {
        words.pop();
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::market::edgar::PROVIDER;
    use crate::adapters::market::edgar::fixtures::TICKERS_JSON;

    #[test]
    fn market_company_names_normalise_case_punctuation_and_suffixes() {
        assert_eq!(normalise_company_name("Apple Inc."), "apple");
        assert_eq!(normalise_company_name("APPLE INC"), "apple");
        assert_eq!(normalise_company_name("Acme Capital Holdings Inc /DE/"), "acme capital holdings");
        assert_eq!(normalise_company_name("McDonald's Corp"), "mcdonalds");
        assert_eq!(normalise_company_name("AT&T Inc."), "at t");
        assert_eq!(normalise_company_name("Johnson & Johnson"), "johnson johnson");
        assert_eq!(normalise_company_name("Amazon.com, Inc."), "amazon com");
        assert_eq!(normalise_company_name("The Coca-Cola Co"), "coca cola");
        assert_eq!(normalise_company_name("Inc."), "inc", "one word is always kept");
    }

    #[test]
    fn market_malformed_ticker_lists_are_invalid_data() {
        for body in [
            "[]",
            "{\"0\":{\"ticker\":\"X\",\"title\":\"X\"}}",
            "{\"0\":{\"cik_str\":\"abc\",\"ticker\":\"X\",\"title\":\"X\"}}",
            "<html>",
        ] {
            let error = TickerIndex::parse(body.as_bytes(), PROVIDER).expect_err(body);
            assert!(
                matches!(error, FinancialDataError::InvalidData { provider: "SEC EDGAR", .. }),
                "{body}: {error:?}"
            );
        }
        let index = TickerIndex::parse(TICKERS_JSON.as_bytes(), PROVIDER).expect("fixture");
        assert_eq!(index.len(), 11);
    }
}
