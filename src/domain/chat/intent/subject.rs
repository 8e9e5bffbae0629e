//! The company a phrase names once its framing words are peeled off: "the company Northwind
//! Industrial", "the firm Fabrikam Inc", "a company called X", "ticker MSFT", "the ticker AAPL",
//! "Microsoft, ticker MSFT", "shares of X", "the stock of X", "X's stock", "X stock". Framing words
//! say what the name is; they are never part of it, so "analyse company Northwind Industrial"
//! analyses "Northwind Industrial".
//!
//! A phrase without framing words is left to the grammar's plain name rules; framing words around
//! something that is not a name ("the company", "ticker", "shares of it") name nothing.

use std::sync::LazyLock;

use regex::Regex;

use crate::domain::chat::phrases::{
    compile, is_company_reference, is_informal_company, is_proper_company, is_ticker, split_ticker, trim_sentence_end,
};

/// A company named with framing words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FramedCompany {
    /// The name, without its framing words.
    pub name: String,
    /// The ticker, when the phrase gave one.
    pub ticker: Option<String>,
    /// The phrase named the company's stock ("shares of X", "X's stock"): a market focus.
    pub as_stock: bool,
}

/// "ticker" and its synonyms, without a capture group.
const TICKER_WORD: &str = r"(?:(?:stock\s+|share\s+)?ticker(?:\s+symbol)?|(?:stock\s+)?symbol)";
/// A ticker as typed after "ticker": any case, an optional "$" and class suffix.
const TYPED_TICKER: &str = r"\$?(?P<t>[A-Za-z]{1,5}(?:\.[A-Za-z]{1,2})?)";

static COMPANY_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:the|a|an)\s+)?(?:company|firm|business|corporate|issuer|counterparty|obligor|entity)(?:\s+(?:called|named|known\s+as))?(?:\s*:\s*|\s+)(?P<n>\S.*)$",
    )
});
static TICKER_FRAME: LazyLock<Regex> =
    LazyLock::new(|| compile(&format!(r"(?i)^(?:(?:the|a)\s+)?{TICKER_WORD}\s*:?\s*{TYPED_TICKER}$")));
static NAME_THEN_TICKER: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)^(?P<n>.+?)(?:\s*,\s*|\s+\(\s*|\s+with\s+)(?:the\s+)?{TICKER_WORD}\s*:?\s*{TYPED_TICKER}\s*\)?$"
    ))
});
static STOCK_OF: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)^(?:the\s+)?(?:shares|stock|equity|share\s+price|stock\s+price)\s+(?:of|in)\s+(?P<n>.+)$")
});
static STOCK_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)^(?P<n>.+?)(?P<possessive>'s|')?\s+(?:stock|shares|share\s+price|stock\s+price|equity)$")
});

/// The ticker typed after "ticker": one letter, or a symbol that is not finance vocabulary.
fn typed_ticker(raw: &str) -> Option<String> {
    let ticker = raw.to_ascii_uppercase();
    (ticker.len() == 1 || is_ticker(&ticker)).then_some(ticker)
}

/// A plain company name (with an optional parenthesised ticker): a proper name, or, when
/// `informal`, a lower-case one.
fn plain_company(phrase: &str, informal: bool) -> Option<(String, Option<String>)> {
    let phrase = trim_sentence_end(phrase);
    if is_company_reference(phrase) {
        return None;
    }
    (is_proper_company(phrase) || informal && is_informal_company(phrase)).then(|| split_ticker(phrase))
}

/// The company named by "the company X", "ticker MSFT" or "X, ticker MSFT", else a plain name.
fn company_or_ticker(phrase: &str, informal: bool) -> Option<(String, Option<String>)> {
    let phrase = trim_sentence_end(phrase);
    if let Some(captures) = TICKER_FRAME.captures(phrase) {
        let ticker = typed_ticker(captures.name("t")?.as_str())?;
        return Some((ticker.clone(), Some(ticker)));
    }
    if let Some(captures) = NAME_THEN_TICKER.captures(phrase) {
        let ticker = typed_ticker(captures.name("t")?.as_str())?;
        let (name, _) = company_or_ticker(captures.name("n")?.as_str(), informal)?;
        return Some((name, Some(ticker)));
    }
    if let Some(captures) = COMPANY_FRAME.captures(phrase) {
        // After "the company" a name is expected: a lower-case one is as good as after a verb.
        return plain_company(captures.name("n")?.as_str(), true);
    }
    plain_company(phrase, informal)
}

/// The company `phrase` names with framing words; `None` when it has none or they frame no name.
/// `informal` admits lower-case names where the framing does not already say "company".
pub(super) fn framed_company(phrase: &str, informal: bool) -> Option<FramedCompany> {
    let phrase = trim_sentence_end(phrase);
    let stock = STOCK_OF.captures(phrase).or_else(|| STOCK_AFTER.captures(phrase));
    if let Some(captures) = stock {
        let inner = captures.name("n")?.as_str();
        // "X stock" without the possessive needs a proper name: "the stock" or "tech stock" is no company.
        let informal = informal && captures.name("possessive").is_some();
        let (name, ticker) = company_or_ticker(inner, informal)?;
        return Some(FramedCompany { name, ticker, as_stock: true });
    }
    let framed = TICKER_FRAME.is_match(phrase) || NAME_THEN_TICKER.is_match(phrase) || COMPANY_FRAME.is_match(phrase);
    if !framed {
        return None;
    }
    let (name, ticker) = company_or_ticker(phrase, informal)?;
    Some(FramedCompany { name, ticker, as_stock: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(phrase: &str) -> Option<(String, Option<String>, bool)> {
        framed_company(phrase, true).map(|f| (f.name, f.ticker, f.as_stock))
    }

    fn named(name: &str, ticker: Option<&str>, as_stock: bool) -> Option<(String, Option<String>, bool)> {
        Some((name.to_owned(), ticker.map(str::to_owned), as_stock))
    }

    #[test]
    fn framing_words_are_never_part_of_the_name() {
        assert_eq!(framed("company Northwind Industrial"), named("Northwind Industrial", None, false));
        assert_eq!(framed("the firm Fabrikam Inc"), named("Fabrikam Inc", None, false));
        assert_eq!(framed("a company called contoso"), named("contoso", None, false));
        assert_eq!(framed("the ticker AAPL"), named("AAPL", Some("AAPL"), false));
        assert_eq!(framed("ticker msft"), named("MSFT", Some("MSFT"), false));
        assert_eq!(framed("Microsoft, ticker MSFT"), named("Microsoft", Some("MSFT"), false));
        assert_eq!(framed("Northwind Industrial (ticker: NWI)"), named("Northwind Industrial", Some("NWI"), false));
        assert_eq!(framed("shares of Contoso"), named("Contoso", None, true));
        assert_eq!(framed("the stock of ticker TSLA"), named("TSLA", Some("TSLA"), true));
        assert_eq!(framed("Tesla's stock"), named("Tesla", None, true));
        assert_eq!(framed("Tesla stock"), named("Tesla", None, true));
    }

    #[test]
    fn framing_around_no_name_names_nothing() {
        assert_eq!(framed("Northwind Industrial"), None);
        assert_eq!(framed("the company"), None);
        assert_eq!(framed("ticker"), None);
        assert_eq!(framed("ticker SOFR"), None);
        assert_eq!(framed("shares of it"), None);
        assert_eq!(framed("tech stock"), None);
        assert_eq!(framed("the company it"), None);
    }
}
