//! Which workflow a chat message asks for, decided by a fixed grammar rather than a model.
//!
//! [`parse_intent`] reads one message (plus the last [`HISTORY_WINDOW`] turns, to resolve "it" and
//! "and over 5Y?") and returns an [`Intent`]. A false launch costs an analysis run and confuses the
//! user, a missed one costs a rephrasing, so every rule below errs towards [`Intent::None`].
//!
//! This module holds what a message can ask for ([`Intent`] and its parameters) and the turns it
//! is read against ([`HistoryTurn`]); the rules themselves are in `grammar`, in the order below,
//! and the framing words around a company name in `subject`. The phrasings below are exercised by
//! the phrase table (`phrase_table`, test data: one row per phrasing and the intent it must get),
//! which one test reads in full.
//!
//! # How a message is read
//!
//! 1. **Normalised**: typographic quotes made ASCII, whitespace collapsed, contractions expanded
//!    ("what's" → "what is", "don't" → "do not").
//! 2. **Refused outright** (→ `None`) when the message is hedged, deferred, negated or meta:
//!    - negation or cancellation at the start: "don't …", "do not …", "never …", "no …", "stop",
//!      "cancel", "hold off", "wait", "not now";
//!    - deferral anywhere: "later", "tomorrow", "next week", "at some point", "eventually",
//!      "not yet", "another time" ("should I analyse this later?");
//!    - advice questions: "should I / should we …" (except "should we lend …", which is a loan
//!      request), "do you think", "would it make sense", "is it worth", "what if", "hypothetically",
//!      "for example" — except a loan proposal with a request for an opinion, read before these
//!      refusals (see [Loan proposals as prose](#loan-proposals-as-prose)); its proposal must pass
//!      them on its own ("what do you think about a 1.5bn facility for Globex next week?" is
//!      deferred);
//!    - how-to and capability questions: "how do I …", "how can we …", "how to …",
//!      "what can you do", "who are you", "help".
//! 3. **Framing peeled off**: greetings and fillers at the front ("hi", "ok", "thanks", "so",
//!    "now", "please", "just"; "great," and the like only when followed by punctuation), request
//!    frames ("can/could/would/will you (please)", "I'd like you to", "I want to", "let's",
//!    "go ahead and"), and politeness at the end ("please", "for me", "thanks", "asap").
//! 4. **Questions about the document** (→ [`Intent::DocumentQuestion`]), before anything else:
//!    see [`recognise_document_question`](super::recognise_document_question). They name an agreement
//!    term with a definite article ("what is *the* margin?", "who is *the* borrower?", "what is
//!    *the* governing law", "what are *the* covenants?") or use a loan verb ("when does it mature?",
//!    "which law governs the agreement?"). "What is *a* covenant?" is a definition, not a question
//!    about the document.
//! 5. **Definitions** (→ `None`): "what is a/an …", "what does … mean", "explain …", "define …",
//!    "meaning of …", "how is … calculated".
//! 6. **Workflows**, first match wins, each pattern anchored at the start of the request, so that
//!    "I analysed Apple last week" or "my boss asked me to look into Acme Corp" launch nothing:
//!
//! | order | workflow | patterns (after framing) | parameters |
//! |---|---|---|---|
//! | 1 | quant loan application | "assess / evaluate / review / analyse / underwrite / price / consider / do / fund / finance / back **a AMOUNT (TYPE) (loan/facility)** for/to BORROWER (as a TYPE)"; "(can/could/should we) lend / extend / provide / advance **AMOUNT** … to BORROWER (as a TYPE)"; "loan application(:) BORROWER, AMOUNT (TYPE)"; "BORROWER is requesting / wants / needs / is asking (us) for / has applied for / is seeking **a AMOUNT TYPE-or-loan**"; "BORROWER wants / needs / plans … to borrow **AMOUNT**"; "we have a request for **a AMOUNT TYPE-or-loan** from BORROWER"; any of these after or before a request for an opinion ([Loan proposals as prose](#loan-proposals-as-prose)). A purpose or term after the borrower ("to refinance their revolver", "for an acquisition", "over 5 years", ", 7-year tenor", "due 2029") is read past: never part of the name, and not carried, since the analysis takes neither | borrower as named, framing words removed ("to the company X" → X); amount parsed exactly ("$5m", "$25mm", "$25MM", "2.5 million", "€40 million", "750k", "1.2bn", "250,000,000", "$5,000,000", "EUR 750k", "USD 10m", "£5m", "10 million euro"), > 0, and with a stated currency or at least 1,000 ("lend 500 to Bob" launches nothing); type: term loan / TLA / TLB → `term_loan`, revolver / revolving / RCF / credit line → `revolving`, bridge → `bridge`, mezzanine / ABL / asset-based / equipment → `other`, none stated → `None`; currency kept when stated |
//! | 2 | quant market, follow-up | a message that is only a time range, optionally after "and", "what about", "how about", "same", "now" ("and over 5Y?", "what about the last 3 months?") | the query of the most recent market request in the history, with the new range ("and YTD?" → 1Y, "YTD" added to the query); nothing when there is none or the range is not offered ("and over 2 years?") |
//! | 3 | quant market | "compare X and/with/to/vs Y", "compare X, Y and Z" (no side a pronoun: "compare it with Y" launches nothing); "X vs Y", "X versus Y", "X vs Y vs Z" when every side names a company or ticker (no digits, single letters, days, months or scenario words: "SOFR vs LIBOR", "Q1 vs Q2", "Plan A vs Plan B" launch nothing), or, for any topics, with a verb or a time range ("how did X vs Y do", "X vs Y over 1Y"); "(give me a) market/sector/industry view/outlook/analysis/update **on** X"; "how has/is X performed/doing" where X names a market (market, sector, index, stocks, bonds, yields, semiconductors, banks …) or is a company or ticker with a time range | the compared or named topic as `query`; the time range as in [Time ranges](#time-ranges) |
//! | 4 | people | "who is/was PERSON"; "(run a) background / character / reference / KYC / due diligence / credit check **on** PERSON"; "(do / run / pull / get me) (some) background (info) / (due) diligence / KYC **on** PERSON", the check noun left out ("do some background on Jane Doe, CFO of Initech"; a company or topic falls to row 5); "vet / screen PERSON" | `person_name`; `context` from "at/of/from …", ", CFO of …", ", the treasurer at …" or "(CEO, Acme Corp)", as written |
//! | 5 | people, quant company or research | "look into / dig into / investigate / deep dive into / check up on / find out about X", "(do / run / perform / conduct) (due) diligence on X": a name with framing words ("the company X", "ticker MSFT", "shares of X") → company (comprehensive, or market for shares); a PERSON → people; a name with a corporate suffix or a ticker → company (comprehensive); a reference or the deal under discussion ("it", "the deal", "this loan") → nothing; any other topic → research with X as query |
//! | 6 | research | "research (on) X"; "do (some) research on X"; "run a research (job) on X"; "deep research on X"; "find out X"; "figure out X"; "search the web for information on X" | X as `query` |
//! | 7 | quant company | "analyse / analyze / assess / evaluate / review / rate / underwrite X"; "(run / do / give me) a (risk / financial / credit / credit risk / stock) analysis / assessment / review / report **of/on/for** X"; "how risky / creditworthy / solvent / leveraged / profitable is X"; "is X creditworthy / risky / a good credit / likely to default / investment grade"; "what is / estimate / calculate / check / I want **the PD / probability of default / default risk / credit risk of/for/on** X", "PD for X"; "what are X's margins", "what is X's PD" (and other financial, risk or market aspects); "what are its margins". After an analysis verb or noun, X may also be a comparison ("analyse X vs Y", "analyse X, Y and Z") or carry a time range ("analyse X over 6 months"): that is a market analysis | `company_name` without framing words, `ticker` from "(MSFT)", "(NASDAQ: AAPL)", "(ticker NWI)", ", ticker MSFT", "$MSFT", "ticker msft" or a bare ticker, `analysis_type`: risk words (PD, probability of default, credit risk …) → `risk`, financial words (margins, revenue, leverage, debt, cash flow, balance sheet …) → `financial`, stock / shares / share price / valuation / market position, or "shares of X", "X's stock", "X stock" → `market`, else `comprehensive` |
//!
//! # Loan proposals as prose
//!
//! Analysts describe a deal and ask what the chatbot thinks: "We're looking at a $25mm term loan
//! for Acme Corp to refinance their revolver — thoughts?", "what do you think about a 1.5bn facility
//! for Globex?", "Any view on lending 8m to Hooli Inc for 3 years?". Such a message is read before
//! the refusals: a request for an opinion is peeled off the front ("what do you think about/of",
//! "thoughts / views / your take on", "how would you view", "how do you feel about", "(would you)
//! be comfortable lending/with", "we're / we are looking at / considering / weighing") or the end,
//! behind punctuation ("— thoughts?", ": your view?", ", what do you think?"), and what is left must
//! be a loan by row 1 of the table (an amount beside a lending verb or a loan word, a borrower that
//! names a company): "a AMOUNT …" is read as "assess a AMOUNT …", "lending …" as "lend …". When it
//! is not ("what do you think about Acme Corp?", "thoughts on the $25mm term loan?" with no
//! borrower, "… a 40mm pipe for Contoso Ltd?"), or the proposal is hedged, deferred or negated,
//! the message is read as it always was, and the refusals apply. A report of past work ("we looked
//! at …") asks for no opinion and launches nothing.
//!
//! # Time ranges
//!
//! The market analysis offers 1M, 3M, 6M, 1Y and 5Y. "over 1Y", "1y", "5Y", "over the last 6
//! months", "past 12 months", "past year", "last year" (read as the trailing year), "last quarter",
//! "last month", "over five years" are read as one of them. A range needs a preposition or
//! "last/past" before it, or the compact form, so "5-year treasuries" is no range.
//!
//! A range the service does not offer never silently becomes another one:
//!
//! - **Year to date** ("YTD", "year to date", "this year") → 1Y, the shortest offered window that
//!   always covers it (in December the year to date is eleven months, so nothing shorter is
//!   honest), with the words kept in the query ("semiconductors YTD"), so the analysis says which
//!   period was meant.
//! - Any other range ("over 2 years", "over 18 months", "the last 2 weeks", "this quarter", "QTD",
//!   "this month") → no `time_range` (the service's default), with the words kept in the query
//!   ("gold and oil over 2 years"). Quarter and month to date are not read as 3M and 1M: a
//!   quarter can hold more than 63 trading days and a month more than 21.
//!
//! # Names, companies and people
//!
//! - **Framing words are never part of a name.** "analyze company Northwind Industrial" analyses
//!   "Northwind Industrial". Peeled off: "(the / a) company / firm / business / issuer /
//!   counterparty / obligor / entity (called / named) X"; "(the) ticker (symbol) MSFT" and
//!   "symbol MSFT" (any case, → ticker); "X, ticker MSFT", "X (ticker NWI)", "X with ticker MSFT";
//!   "(the) shares / stock / equity / share price of X", "X's stock", "X stock" (→ `market` focus
//!   unless the request named another). Framing around no name ("analyse the company", "analyze
//!   ticker", "ticker SOFR") names nothing.
//! - A **company** in a question ("how risky is X") must look like one: a corporate suffix (Inc,
//!   Corp, LLC, Ltd, plc, AG, SA, NV, GmbH, LP, Co, Bank, Group, Holdings, Partners, Capital …), a
//!   ticker (two to five capitals, not a finance acronym such as SOFR, DSCR, YTD or EBITDA), or
//!   capitalised words without a topic word ("Apple", "Bank of America"; not "High Yield").
//!   After an explicit analysis verb a lower-case name of up to three plain words is accepted too
//!   ("analyse apple"), unless it is a topic or framing word or a finance acronym ("analyse
//!   shares", "analyse ytd"). A name holds no time range and is not an amount.
//! - **Several companies**: "X vs Y" and, with a comma, "X, Y and Z" name several companies when
//!   every side does; "X and Y" without a comma may be one name ("Procter and Gamble") and is read
//!   as one.
//! - A **person** is two to four capitalised name words (initials, particles such as "van",
//!   "O'Brien" allowed, an honorific such as "Dr." in front) without any corporate or institution
//!   word (so "Northwind Industrial" is not a person). One word is never a person.
//! - **Person or company?** "look into Jane Doe" is a person, "look into Acme Corp" is a company
//!   analysis because of the suffix, "look into Tesla" (one word, no suffix) is research. A
//!   two-word company name without a suffix ("Goldman Sachs") looks like a person to the
//!   "look into" rule: say "Goldman Sachs Group" or "analyse Goldman Sachs" instead.
//! - **References**: "it", "them", "this/that company", "the firm" after an analysis verb or in a
//!   company question resolve to the company most recently named in the history: a user turn that
//!   requested a company or loan analysis, or that mentions a company (suffix, ticker, "about
//!   Apple"); an assistant turn that mentions exactly one company by suffix or ticker. If the most
//!   recent subject was a market, research topic or person, or an assistant turn names several
//!   companies, the reference is ambiguous and nothing is launched. "analyse this" is never
//!   resolved ("this" may be the document).
//!
//! # What never launches
//!
//! Greetings and thanks; capability questions; definitions ("what is a covenant?", "explain
//! DSCR", "what is SOFR?", "what is a PD?", "how is PD calculated?"); questions about the
//! document; hedged, deferred or negated requests ("should I look into Acme later?"); reports of
//! past work ("I analysed Apple last week", "we ran a credit analysis on Contoso Ltd last
//! month"); requests with a pronoun and nothing in the history to resolve it ("analyse it",
//! "compare them", "what's the PD of them?"); a measure with no company ("what's the PD?", "what
//! is the PD of a company?"); a measure over a past period ("what was the PD of Contoso Ltd last
//! year?"); comparisons of things that are not companies without a verb ("SOFR vs LIBOR", "stocks
//! vs bonds", "Q1 vs Q2"); topics that are not names ("how risky is lending to startups?").

mod grammar;
mod subject;

use serde::Serialize;

use super::document_answer::AgreementField;
use crate::domain::quant::loan::LoanType;
use crate::domain::quant::market::TimeRange;
use crate::domain::quant::request::CompanyAnalysisType;
use grammar::parse_message;

/// How many earlier turns the parser looks at; older turns are ignored even when passed.
pub const HISTORY_WINDOW: usize = 10;

/// Who said a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person chatting.
    User,
    /// The chatbot.
    Assistant,
}

impl Role {
    /// The role named `user` or `assistant` (any case); `None` for anything else.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "user" => Some(Self::User),
            "assistant" => Some(Self::Assistant),
            _ => None,
        }
    }

    /// The API name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

/// One earlier message of the conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HistoryTurn {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: String,
}

impl HistoryTurn {
    /// A turn by the user.
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: Role::User, content: content.into() }
    }

    /// A turn by the chatbot.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: Role::Assistant, content: content.into() }
    }
}

/// A quantitative analysis to run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuantRequest {
    /// `POST /api/quantitative-analysis/company`.
    Company {
        /// The company as the user named it.
        company_name: String,
        /// The ticker, when the user gave one.
        ticker: Option<String>,
        /// The focus.
        analysis_type: CompanyAnalysisType,
    },
    /// `POST /api/quantitative-analysis/market`.
    Market {
        /// What to analyse ("semiconductors and banks", "AAPL vs MSFT", "high yield").
        query: String,
        /// The window, when the user named one the service offers (the service defaults to 3M).
        time_range: Option<TimeRange>,
    },
    /// `POST /api/quantitative-analysis/loan-application`.
    LoanApplication {
        /// The borrower as the user named it.
        borrower_name: String,
        /// The amount, > 0, in units of `currency`.
        loan_amount: f64,
        /// The kind of loan, when the user named it (the service defaults to a term loan).
        loan_type: Option<LoanType>,
        /// ISO 4217 code, when the user stated a currency. The service takes amounts in USD, so a
        /// caller should mention (or convert) any other currency.
        currency: Option<String>,
    },
}

impl QuantRequest {
    /// Which analysis endpoint: `company`, `market` or `loan_application`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Company { .. } => "company",
            Self::Market { .. } => "market",
            Self::LoanApplication { .. } => "loan_application",
        }
    }
}

/// What a chat message asks for.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "intent", content = "params", rename_all = "snake_case")]
pub enum Intent {
    /// Launch a quantitative analysis.
    Quant(QuantRequest),
    /// Launch iterative web research.
    Research {
        /// The research question.
        query: String,
    },
    /// Launch the people workflow.
    People {
        /// The person as the user named them.
        person_name: String,
        /// Where the person works or what they do, when stated ("Acme Corp", "CFO of Widget Ltd").
        context: Option<String>,
    },
    /// Answer from the agreement under discussion; launches nothing.
    DocumentQuestion(AgreementField),
    /// Ordinary chat: launch nothing.
    None,
}

impl Intent {
    /// The workflow this intent launches (`quant`, `research`, `people`), if any.
    pub fn workflow_type(&self) -> Option<&'static str> {
        match self {
            Self::Quant(_) => Some("quant"),
            Self::Research { .. } => Some("research"),
            Self::People { .. } => Some("people"),
            Self::DocumentQuestion(_) | Self::None => None,
        }
    }
}

/// What `message` asks for, given the conversation so far (oldest first; only the last
/// [`HISTORY_WINDOW`] turns are considered). The grammar is described in the [module
/// documentation](self).
pub fn parse_intent(message: &str, history: &[HistoryTurn]) -> Intent {
    let window = &history[history.len().saturating_sub(HISTORY_WINDOW)..];
    parse_message(message, window)
}

#[cfg(test)]
mod phrase_table;
/// What `message` asks for when the answer cannot depend on earlier turns; `None` when it might
/// (it refers back: "analyse it", "and over 5Y?"), so that the history must be read first. Lets a
/// turn skip reading its session when the message needs no history.
///
/// The grammar reads the history in two places only — the last market request (for "and over
/// 5Y?") and the last company (for "analyse it"), both for a reference the message makes — and a
/// parse that asked neither does not depend on the history. One parse, no more.
pub fn parse_intent_without_history(message: &str) -> Option<Intent> {
    let (intent, asked) = grammar::parse_without_history(message);
    (!asked).then_some(intent)
}

#[cfg(test)]
mod tests;
