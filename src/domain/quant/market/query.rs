//! Turning a free-text market question ("AAPL vs MSFT", "how are regional banks doing?") into the
//! instruments to fetch: explicit tickers, and sectors or markets mapped to a representative ETF
//! through the [`SECTOR_ETFS`] table. Company names are not resolved here (that needs a ticker
//! directory); the words left over are returned for the caller to look up.

use serde::Serialize;

/// A sector, market or asset class and the ETF that stands for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectorEtf {
    /// Lowercase phrases that name it, words separated by single spaces, as the tokeniser splits them
    /// (so "S&P 500" is `s&p 500`, "Nasdaq-100" is `nasdaq 100`).
    pub phrases: &'static [&'static str],
    pub etf: &'static str,
    pub description: &'static str,
}

/// The documented sector → ETF table. Broad, liquid US-listed ETFs; where a phrase could mean several
/// funds the most widely used one is chosen (e.g. treasuries → IEF, the 7–10 year fund; long
/// treasuries → TLT).
pub const SECTOR_ETFS: &[SectorEtf] = &[
    SectorEtf {
        phrases: &[
            "s&p 500",
            "s&p500",
            "s & p 500",
            "sp500",
            "sp 500",
            "spx",
            "stock market",
            "us stocks",
            "us equities",
        ],
        etf: "SPY",
        description: "SPDR S&P 500 ETF: US large caps",
    },
    SectorEtf { phrases: &["nasdaq 100", "nasdaq100", "nasdaq"], etf: "QQQ", description: "Invesco QQQ: Nasdaq-100" },
    SectorEtf {
        phrases: &["dow jones", "dow jones industrial average", "dow"],
        etf: "DIA",
        description: "SPDR Dow Jones Industrial Average ETF",
    },
    SectorEtf {
        phrases: &["russell 2000", "russell2000", "small caps", "small cap", "small cap stocks"],
        etf: "IWM",
        description: "iShares Russell 2000 ETF: US small caps",
    },
    SectorEtf {
        phrases: &["semiconductors", "semiconductor", "semis", "chipmakers", "chip makers", "chips"],
        etf: "SOXX",
        description: "iShares Semiconductor ETF",
    },
    SectorEtf {
        phrases: &["regional banks", "regional bank", "regional banking"],
        etf: "KRE",
        description: "SPDR S&P Regional Banking ETF",
    },
    SectorEtf { phrases: &["banks", "bank stocks", "banking"], etf: "KBE", description: "SPDR S&P Bank ETF" },
    SectorEtf {
        phrases: &["technology", "tech", "tech stocks", "information technology"],
        etf: "XLK",
        description: "Technology Select Sector SPDR",
    },
    SectorEtf {
        phrases: &["energy", "oil and gas", "oil & gas"],
        etf: "XLE",
        description: "Energy Select Sector SPDR",
    },
    SectorEtf { phrases: &["health care", "healthcare"], etf: "XLV", description: "Health Care Select Sector SPDR" },
    SectorEtf { phrases: &["biotech", "biotechnology"], etf: "XBI", description: "SPDR S&P Biotech ETF" },
    SectorEtf {
        phrases: &["financials", "financial sector", "financial stocks"],
        etf: "XLF",
        description: "Financial Select Sector SPDR",
    },
    SectorEtf { phrases: &["insurance", "insurers"], etf: "KIE", description: "SPDR S&P Insurance ETF" },
    SectorEtf { phrases: &["utilities"], etf: "XLU", description: "Utilities Select Sector SPDR" },
    SectorEtf {
        phrases: &["real estate", "reits", "reit"],
        etf: "VNQ",
        description: "Vanguard Real Estate ETF: US REITs",
    },
    SectorEtf {
        phrases: &["consumer staples", "staples"],
        etf: "XLP",
        description: "Consumer Staples Select Sector SPDR",
    },
    SectorEtf {
        phrases: &["consumer discretionary", "discretionary"],
        etf: "XLY",
        description: "Consumer Discretionary Select Sector SPDR",
    },
    SectorEtf { phrases: &["industrials"], etf: "XLI", description: "Industrial Select Sector SPDR" },
    SectorEtf { phrases: &["materials"], etf: "XLB", description: "Materials Select Sector SPDR" },
    SectorEtf {
        phrases: &["communication services", "communications", "telecom"],
        etf: "XLC",
        description: "Communication Services Select Sector SPDR",
    },
    SectorEtf {
        phrases: &["homebuilders", "homebuilding"],
        etf: "ITB",
        description: "iShares U.S. Home Construction ETF",
    },
    SectorEtf {
        phrases: &["high yield", "high yield bonds", "junk bonds", "junk"],
        etf: "HYG",
        description: "iShares iBoxx $ High Yield Corporate Bond ETF",
    },
    SectorEtf {
        phrases: &["investment grade", "investment grade bonds", "ig bonds", "corporate bonds"],
        etf: "LQD",
        description: "iShares iBoxx $ Investment Grade Corporate Bond ETF",
    },
    SectorEtf {
        phrases: &["treasuries", "treasury", "treasury bonds", "government bonds", "10 year treasuries"],
        etf: "IEF",
        description: "iShares 7-10 Year Treasury Bond ETF",
    },
    SectorEtf {
        phrases: &["long treasuries", "long term treasuries", "long bonds", "20 year treasuries"],
        etf: "TLT",
        description: "iShares 20+ Year Treasury Bond ETF",
    },
    SectorEtf {
        phrases: &["short term treasuries", "t bills", "treasury bills"],
        etf: "SHY",
        description: "iShares 1-3 Year Treasury Bond ETF",
    },
    SectorEtf {
        phrases: &["aggregate bonds", "bond market", "us bonds"],
        etf: "AGG",
        description: "iShares Core U.S. Aggregate Bond ETF",
    },
    SectorEtf {
        phrases: &["emerging markets", "emerging market"],
        etf: "EEM",
        description: "iShares MSCI Emerging Markets ETF",
    },
    SectorEtf {
        phrases: &["developed markets", "international developed"],
        etf: "EFA",
        description: "iShares MSCI EAFE ETF",
    },
    SectorEtf { phrases: &["gold miners"], etf: "GDX", description: "VanEck Gold Miners ETF" },
    SectorEtf { phrases: &["gold"], etf: "GLD", description: "SPDR Gold Shares" },
    SectorEtf { phrases: &["silver"], etf: "SLV", description: "iShares Silver Trust" },
    SectorEtf { phrases: &["oil", "crude oil", "crude"], etf: "USO", description: "United States Oil Fund" },
];

/// Words that are never tickers unless written with `$`, and never left over as company-name words:
/// connectives ("vs", "and", "the"), request verbs ("compare", "show") and generic finance nouns
/// ("stock", "returns", "sector"). Compared case-insensitively.
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "against",
    "ai",
    "also",
    "an",
    "analyse",
    "analysis",
    "analyze",
    "and",
    "are",
    "between",
    "both",
    "ceo",
    "compare",
    "compared",
    "comparison",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "etf",
    "etfs",
    "for",
    "from",
    "give",
    "has",
    "have",
    "how",
    "i",
    "in",
    "index",
    "is",
    "it",
    "its",
    "last",
    "market",
    "markets",
    "me",
    "month",
    "months",
    "my",
    "of",
    "on",
    "or",
    "over",
    "past",
    "perform",
    "performance",
    "performed",
    "plus",
    "price",
    "prices",
    "return",
    "returns",
    "risk",
    "sector",
    "sectors",
    "share",
    "shares",
    "show",
    "since",
    "stock",
    "stocks",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "this",
    "to",
    "up",
    "us",
    "usa",
    "usd",
    "v",
    "versus",
    "volatility",
    "vs",
    "was",
    "were",
    "what",
    "which",
    "with",
    "year",
    "years",
    "ytd",
];

/// A sector or market phrase found in a query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectorMatch {
    /// The table phrase that matched, e.g. `regional banks`.
    pub phrase: String,
    /// The words as written in the query, e.g. `Regional Banks`.
    pub matched_text: String,
    pub etf: String,
    pub description: String,
}

/// What a market query asks about.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MarketQuery {
    /// Explicit tickers, uppercase, in order of first appearance, without duplicates.
    pub tickers: Vec<String>,
    /// Sector and market phrases with their ETFs, in order of appearance, one per ETF.
    pub sectors: Vec<SectorMatch>,
    /// Words that are neither tickers, sector phrases nor stop words, as written: candidates for
    /// company-name resolution ("Apple", "Microsoft") and lowercase tickers ("aapl").
    pub remaining_words: Vec<String>,
}

impl MarketQuery {
    /// True when neither a ticker nor a sector was recognised.
    pub fn is_empty(&self) -> bool {
        self.tickers.is_empty() && self.sectors.is_empty()
    }

    /// Tickers followed by sector ETFs, without duplicates: the instruments to fetch.
    pub fn symbols(&self) -> Vec<String> {
        let mut symbols: Vec<String> = Vec::with_capacity(self.tickers.len() + self.sectors.len());
        for symbol in self.tickers.iter().chain(self.sectors.iter().map(|s| &s.etf)) {
            if !symbols.contains(symbol) {
                symbols.push(symbol.clone());
            }
        }
        symbols
    }
}

/// Parses a market query.
///
/// Tokens are runs of letters, digits, `&`, `.`, `$` and apostrophes; everything else separates them
/// (so "high-yield" is two words). Leading and trailing dots and a possessive `'s` are dropped.
/// Then, left to right:
/// 1. Sector phrases: the longest [`SECTOR_ETFS`] phrase starting at the token, compared
///    case-insensitively word by word (whole words only: "tech" does not match "technology").
/// 2. Tickers: `$` followed by 1–5 letters and an optional `.` class suffix of 1–2 letters (`$msft`,
///    `$BRK.B`), any case, always a ticker; or a bare token written in capitals that fits the same
///    pattern (`AAPL`, `BRK.B`) and is not in [`STOP_WORDS`] ("VS", "AND", "THE" are not tickers; `$A`
///    forces one). Lowercase words are never bare tickers: they go to `remaining_words`.
/// 3. Everything else that is not a stop word or pure punctuation goes to `remaining_words`.
pub fn parse_market_query(query: &str) -> MarketQuery {
    let tokens = tokenize(query);
    let lowered: Vec<String> = tokens.iter().map(|token| token.to_lowercase()).collect();
    let mut result = MarketQuery::default();
    let mut i = 0;
    while i < tokens.len() {
        if let Some((entry, phrase, words)) = longest_sector_phrase(&lowered[i..]) {
            if !result.sectors.iter().any(|s| s.etf == entry.etf) {
                result.sectors.push(SectorMatch {
                    phrase: phrase.to_owned(),
                    matched_text: tokens[i..i + words].join(" "),
                    etf: entry.etf.to_owned(),
                    description: entry.description.to_owned(),
                });
            }
            i += words;
            continue;
        }
        let token = tokens[i];
        if let Some(ticker) = ticker_of(token) {
            if !result.tickers.contains(&ticker) {
                result.tickers.push(ticker);
            }
        } else if token.chars().any(char::is_alphanumeric) && !is_stop_word(token) {
            result.remaining_words.push(token.to_owned());
        }
        i += 1;
    }
    result
}

fn tokenize(query: &str) -> Vec<&str> {
    query
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '&' | '.' | '$' | '\'' | '’')))
        .map(|token| {
            let token = token.trim_matches('.');
            let token = token.strip_suffix("'s").or_else(|| token.strip_suffix("’s")).unwrap_or(token);
            token.trim_matches(|c| matches!(c, '.' | '\'' | '’'))
        })
        .filter(|token| !token.is_empty() && *token != "$")
        .collect()
}

fn longest_sector_phrase(tokens: &[String]) -> Option<(&'static SectorEtf, &'static str, usize)> {
    let mut best: Option<(&'static SectorEtf, &'static str, usize)> = None;
    for entry in SECTOR_ETFS {
        for &phrase in entry.phrases {
            let words = phrase.split(' ').count();
            let matches = words <= tokens.len() && phrase.split(' ').zip(tokens).all(|(word, token)| word == token);
            if matches && best.is_none_or(|(_, _, longest)| words > longest) {
                best = Some((entry, phrase, words));
            }
        }
    }
    best
}

/// The ticker a token denotes, uppercase, per the rules of [`parse_market_query`].
fn ticker_of(token: &str) -> Option<String> {
    if let Some(explicit) = token.strip_prefix('$') {
        return is_ticker_shape(explicit).then(|| explicit.to_ascii_uppercase());
    }
    let written_in_capitals = !token.chars().any(|c| c.is_ascii_lowercase());
    (written_in_capitals && is_ticker_shape(token) && !is_stop_word(token)).then(|| token.to_owned())
}

/// 1–5 ASCII letters, optionally followed by `.` and 1–2 ASCII letters.
fn is_ticker_shape(candidate: &str) -> bool {
    let (base, class) = match candidate.split_once('.') {
        Some((base, class)) => (base, Some(class)),
        None => (candidate, None),
    };
    let letters = |s: &str, max: usize| (1..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphabetic());
    letters(base, 5) && class.is_none_or(|class| letters(class, 2))
}

fn is_stop_word(token: &str) -> bool {
    STOP_WORDS.iter().any(|stop| stop.eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn etfs(query: &MarketQuery) -> Vec<&str> {
        query.sectors.iter().map(|s| s.etf.as_str()).collect()
    }

    #[test]
    fn explicit_and_dollar_tickers_are_found_and_uppercased() {
        let query = parse_market_query("AAPL vs $msft and $BRK.B, also BRK.A.");
        assert_eq!(query.tickers, vec!["AAPL", "MSFT", "BRK.B", "BRK.A"]);
        assert!(query.sectors.is_empty());
        assert!(query.remaining_words.is_empty());
    }

    #[test]
    fn connectives_in_capitals_are_not_tickers_unless_forced_with_a_dollar() {
        let query = parse_market_query("COMPARE AAPL AND MSFT VS THE $A");
        assert_eq!(query.tickers, vec!["AAPL", "MSFT", "A"]);
    }

    #[test]
    fn compare_phrase_leaves_company_names_for_resolution() {
        let query = parse_market_query("compare Apple and Microsoft's returns");
        assert!(query.tickers.is_empty());
        assert_eq!(query.remaining_words, vec!["Apple", "Microsoft"]);
        assert!(query.is_empty());
    }

    #[test]
    fn lowercase_tickers_are_left_as_words() {
        let query = parse_market_query("aapl vs msft");
        assert!(query.tickers.is_empty());
        assert_eq!(query.remaining_words, vec!["aapl", "msft"]);
    }

    #[test]
    fn sector_phrases_map_to_etfs_preferring_the_longest_phrase() {
        let query = parse_market_query("How are Regional Banks doing versus banks and the S&P 500?");
        assert_eq!(etfs(&query), vec!["KRE", "KBE", "SPY"]);
        assert_eq!(query.sectors[0].phrase, "regional banks");
        assert_eq!(query.sectors[0].matched_text, "Regional Banks");
        assert!(query.tickers.is_empty());
        assert!(query.remaining_words.is_empty());
    }

    #[test]
    fn sector_matching_respects_word_boundaries_and_hyphens() {
        assert_eq!(etfs(&parse_market_query("high-yield vs investment grade")), vec!["HYG", "LQD"]);
        assert_eq!(etfs(&parse_market_query("semiconductors, gold miners and gold")), vec!["SOXX", "GDX", "GLD"]);
        assert_eq!(etfs(&parse_market_query("Nasdaq-100 and Russell 2000")), vec!["QQQ", "IWM"]);
        assert!(parse_market_query("technologically goldfish").sectors.is_empty());
        assert_eq!(etfs(&parse_market_query("long treasuries vs treasuries")), vec!["TLT", "IEF"]);
    }

    #[test]
    fn tickers_and_sectors_combine_and_symbols_dedupes() {
        let query = parse_market_query("NVDA vs semiconductors vs SOXX");
        assert_eq!(query.tickers, vec!["NVDA", "SOXX"]);
        assert_eq!(etfs(&query), vec!["SOXX"]);
        assert_eq!(query.symbols(), vec!["NVDA", "SOXX"]);
    }

    #[test]
    fn empty_and_punctuation_only_queries_yield_nothing() {
        assert_eq!(parse_market_query(""), MarketQuery::default());
        assert_eq!(parse_market_query(" $ ... & ?"), MarketQuery::default());
    }

    #[test]
    fn every_table_phrase_is_lowercase_single_spaced_and_tokenises_to_itself() {
        for entry in SECTOR_ETFS {
            assert!(is_ticker_shape(entry.etf), "{}", entry.etf);
            for phrase in entry.phrases {
                assert_eq!(*phrase, phrase.to_lowercase());
                let tokens: Vec<String> = tokenize(phrase).iter().map(|t| t.to_lowercase()).collect();
                assert_eq!(tokens.join(" "), *phrase, "phrase {phrase:?} does not survive tokenisation");
            }
        }
    }
}
