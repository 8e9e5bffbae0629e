//! The rules of the chat grammar, in the order the [intent module](super) documents them: what is
//! refused outright, questions about the document, definitions, then the workflows — loan
//! applications, market follow-ups and market analyses, people, investigations, research and
//! company analyses. [`parse_message`] tries them in that order; the first that matches decides.

use std::cell::Cell;
use std::sync::LazyLock;

use regex::Regex;

use super::{CompanyAnalysisType, HistoryTurn, Intent, LoanType, QuantRequest, Role, TimeRange};
use crate::domain::chat::amount::{AMOUNT, parse_amount};
use crate::domain::chat::document_answer::recognise_document_question;
use crate::domain::chat::mentions::company_mentions;
use crate::domain::chat::phrases::{
    bare_word, compile, has_corporate_suffix, is_company_reference, is_corporate_suffix, is_informal_company,
    is_person_name, is_proper_company, is_research_topic, normalise, person_with_context, split_ticker, strip_framing,
    trim_sentence_end, without,
};
use crate::domain::chat::time_range::{TimeRangeMention, find_time_range};

use super::subject::framed_company;
use crate::domain::calendar::is_month_or_weekday;

thread_local! {
    /// Set when the grammar asks the history for something: the message refers back. Read by
    /// [`parse_without_history`]; a parse is synchronous, so no other parse runs on this thread
    /// between setting and reading it.
    static HISTORY_ASKED: Cell<bool> = const { Cell::new(false) };
}

fn history_asked() {
    HISTORY_ASKED.with(|asked| asked.set(true));
}

/// The intent of `message` read without history, and whether reading it asked the history for
/// anything (a reference: "analyse it", "and over 5Y?"). When it did not, no history can change it.
pub(super) fn parse_without_history(message: &str) -> (Intent, bool) {
    HISTORY_ASKED.with(|asked| asked.set(false));
    let intent = parse_message(message, &[]);
    (intent, HISTORY_ASKED.with(Cell::get))
}

/// The grammar proper. `history` is empty while earlier turns are being read, so references in
/// them stay unresolved instead of recursing.
pub(super) fn parse_message(message: &str, history: &[HistoryTurn]) -> Intent {
    let normalised = normalise(message);
    if normalised.is_empty() {
        return Intent::None;
    }
    // "What do you think about a $25mm term loan for Acme Corp?" asks for an opinion on a loan:
    // read before the advice questions are refused.
    if let Some(intent) = loan_opinion(&normalised) {
        return intent;
    }
    if is_hedged_or_meta(&normalised) {
        return Intent::None;
    }
    let request = strip_framing(&normalised);
    if request.is_empty() || is_hedged_or_meta(&request) {
        return Intent::None;
    }
    if let Some(field) = recognise_document_question(&request) {
        return Intent::DocumentQuestion(field);
    }
    if DEFINITION.is_match(&request) {
        return Intent::None;
    }
    loan_application(&request)
        .or_else(|| market_follow_up(&request, history))
        .or_else(|| market(&request))
        .or_else(|| people(&request))
        .or_else(|| investigation(&request))
        .or_else(|| research(&request))
        .or_else(|| company(&request, history))
        .unwrap_or(Intent::None)
}

// ---- refusals ----------------------------------------------------------------------------------

static HEDGES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)^(?:please\s+)?(?:do\s+not|never|no\s+need|no|stop|cancel|hold\s+off|wait|not\s+now)\b",
        r"(?i)\b(?:later|tomorrow|next\s+(?:week|month|time|quarter)|at\s+some\s+point|sometime|some\s+time|eventually|someday|one\s+day|in\s+a\s+(?:bit|while)|another\s+time|not\s+yet|not\s+now)\b",
        r"(?i)^(?:\w+[\s,]+){0,3}?(?:should|shall|must|ought)\s+(?:i|we)\b(?:\s+(?:lend|loan|extend|provide|advance)\b)?",
        r"(?i)\b(?:do\s+you\s+think|would\s+it\s+(?:make\s+sense|be\s+(?:worth|useful|wise|a\s+good\s+idea|possible))|is\s+it\s+(?:worth|possible|a\s+good\s+idea|wise)|what\s+if|what\s+would\s+happen|what\s+happens\s+(?:if|when)|in\s+theory|hypothetically|for\s+example|for\s+instance|such\s+as)\b",
        r"(?i)^how\s+(?:do|can|could|would|should|might|may)\s+(?:i|we|you|one)\b|^how\s+to\b|^how\s+does\s+(?:it|this|that)\s+work",
        r"(?i)^(?:what|which)\s+(?:can|could|do|would|will)\s+you\b|\b(?:who|what)\s+are\s+you\b|^help\b|\bhelp\s+me\s+understand\b|\bwhat\s+(?:workflows|tools|commands|features)\b|\byour\s+(?:capabilities|features|workflows)\b",
    ]
    .into_iter()
    .map(compile)
    .collect()
});

/// Whether the message is hedged, deferred, negated or about the chatbot itself. "should we
/// lend …" is a loan request and not an advice question.
fn is_hedged_or_meta(text: &str) -> bool {
    HEDGES.iter().enumerate().any(|(i, pattern)| match pattern.captures(text) {
        // The advice pattern: its optional tail marks the one exception, a loan request.
        Some(captures) if i == 2 => {
            let whole = captures.get(0).map_or("", |m| m.as_str()).to_ascii_lowercase();
            !["lend", "loan", "extend", "provide", "advance"].iter().any(|verb| whole.ends_with(verb))
        }
        Some(_) => true,
        None => false,
    })
}

static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:what\s+(?:is|are|was|were)\s+(?:a|an)\s|what\s+does\s.+\s(?:mean|stand\s+for)$|what\s+is\s+meant\s+by\s|(?:explain|define|describe)\s|(?:the\s+)?meaning\s+of\s|(?:the\s+)?definition\s+of\s|tell\s+me\s+(?:what|how)\s|how\s+(?:is|are)\s.+\s(?:calculated|computed|defined|measured|determined)$|what\s+(?:is|are)\s+(?:the\s+)?differences?\s)",
    )
});

// ---- loan applications -------------------------------------------------------------------------

/// Kinds of loan as written; no capture groups so that it can be embedded twice.
const LOAN_TYPE: &str = r"(?:term\s+loan(?:\s+[ab]\b)?|term\s+facility|tl[ab]\b|revolving(?:\s+credit)?(?:\s+(?:facility|line|loan))?|revolver|rcf\b|credit\s+line|line\s+of\s+credit|bridge(?:\s+(?:loan|facility|financing))?|mezzanine(?:\s+(?:loan|facility|financing))?|asset[-\s]based(?:\s+(?:loan|facility))?|abl\b|delayed[-\s]draw(?:\s+term\s+loan)?|equipment\s+(?:loan|financing))";
/// Nouns that make an amount a loan.
const LOAN_NOUN: &str = r"(?:credit\s+facility|loan|facility|financing|credit\s+line|request|application|deal)";
/// What a loan is for or how long it runs, after the borrower: read past, never part of the name.
/// The analysis takes neither a purpose nor a term, so neither is carried.
const LOAN_TAIL: &str = r"(?:,\s*|\s+)(?:(?:in\s+order\s+)?to\s+(?:refinance|refi|fund|finance|pay|repay|support|acquire|buy|build|expand|cover|bridge|grow|purchase)\b|for\s+(?:an?\s+|the\s+|its\s+|their\s+|our\s+)?(?:acquisition|expansion|capex|working\s+capital|general\s+corporate\s+purposes|refinancing|buyout|lbo|recap(?:italisation|italization)?|dividend|growth|construction|purchase|project)\b|(?:over|for)\s+(?:a\s+|an\s+|the\s+next\s+)?(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)[\s-]?(?:years?|yrs?|months?)\b|(?:with\s+)?(?:a\s+|an\s+)?\d+[\s-]?(?:year|yr|month)\s+(?:tenor|term|maturity)\b|(?:due|maturing)\s+(?:in\s+)?\d{4}\b)";

static LOAN_TAIL_START: LazyLock<Regex> = LazyLock::new(|| compile(&format!("(?i){LOAN_TAIL}")));

/// The borrower without the purpose or term that follows it: "Acme Corp to refinance their
/// revolver" → "Acme Corp", "Contoso Ltd over 5 years" → "Contoso Ltd".
fn without_loan_tail(borrower: &str) -> &str {
    LOAN_TAIL_START.find(borrower).map_or(borrower, |tail| borrower[..tail.start()].trim_end())
}

struct LoanPattern {
    pattern: Regex,
    /// The pattern's verb does not say "loan" by itself: a loan type or noun must be stated.
    needs_loan_word: bool,
    /// The borrower comes first, unanchored by a preposition: only a proper company name counts.
    strict_borrower: bool,
}

static LOAN_PATTERNS: LazyLock<Vec<LoanPattern>> = LazyLock::new(|| {
    let assess = format!(
        r"(?i)^(?:assess|evaluate|review|analy[sz]e|underwrite|consider|price|score|check|look\s+at|do|fund|finance|back)\s+(?:a|an|the|this)?\s*(?:(?:proposed|new|requested|potential)\s+)?(?P<amt>{AMOUNT})\s*(?:(?P<t1>{LOAN_TYPE})\s*)?(?P<noun>{LOAN_NOUN})?\s+(?:for|to)\s+(?P<b>.+?)(?:,?\s+(?:as|via|structured\s+as|in\s+the\s+form\s+of)\s+(?:a|an)\s+(?P<t2>{LOAN_TYPE}))?$"
    );
    let lend = format!(
        r"(?i)^(?:(?:can|could|should|shall|would|will|do|may)\s+(?:we|i|you|the\s+bank)\s+)?(?:lend|loan|extend|provide|advance)\s+(?:a|an)?\s*(?P<amt>{AMOUNT})\s*(?:(?P<t1>{LOAN_TYPE})\s*)?(?P<noun>{LOAN_NOUN})?\s+to\s+(?P<b>.+?)(?:,?\s+(?:as|via|on|under|in|through|with)\s+(?:a|an)\s+(?P<t2>{LOAN_TYPE})(?:\s+basis)?)?$"
    );
    let application = format!(
        r"(?i)^(?:new\s+)?loan\s+(?:application|request)(?:\s+(?:from|for|by))?\s*[:\-]?\s*(?P<b>[^,;:]+?)\s*(?:[,;:\-]|\s+for)\s*(?:a|an)?\s*(?P<amt>{AMOUNT})\s*(?:(?P<t1>{LOAN_TYPE})\s*)?(?P<noun>{LOAN_NOUN})?$"
    );
    let requested = format!(
        r"(?i)^(?P<b>.+?)\s+(?:is\s+requesting|requests|has\s+requested|wants|needs|is\s+asking(?:\s+us)?\s+for|asks(?:\s+us)?\s+for|has\s+applied\s+for|applied\s+for|is\s+applying\s+for|is\s+seeking|seeks)\s+(?:a|an)?\s*(?P<amt>{AMOUNT})\s*(?:(?P<t1>{LOAN_TYPE})\s*)?(?P<noun>{LOAN_NOUN})?(?:{LOAN_TAIL}.*)?$"
    );
    let borrow = format!(
        r"(?i)^(?P<b>.+?)\s+(?:wants|needs|would\s+like|is\s+looking|is\s+hoping|hopes|is\s+planning|plans|intends)\s+to\s+borrow\s+(?:a|an)?\s*(?P<amt>{AMOUNT})\s*(?:(?P<t1>{LOAN_TYPE})\s*)?(?P<noun>{LOAN_NOUN})?(?:{LOAN_TAIL}.*)?$"
    );
    let request_for = format!(
        r"(?i)^(?:we\s+(?:have|got|received)|we've\s+(?:got|received)|there\s+is|there's|i\s+have)\s+(?:a|an)\s+(?:new\s+)?(?:request|proposal|application)\s+for\s+(?:a|an)?\s*(?P<amt>{AMOUNT})\s*(?:(?P<t1>{LOAN_TYPE})\s*)?(?P<noun>{LOAN_NOUN})?\s+from\s+(?P<b>.+?)$"
    );
    vec![
        LoanPattern { pattern: compile(&assess), needs_loan_word: true, strict_borrower: false },
        LoanPattern { pattern: compile(&lend), needs_loan_word: false, strict_borrower: false },
        LoanPattern { pattern: compile(&application), needs_loan_word: false, strict_borrower: false },
        LoanPattern { pattern: compile(&requested), needs_loan_word: true, strict_borrower: true },
        LoanPattern { pattern: compile(&borrow), needs_loan_word: false, strict_borrower: true },
        LoanPattern { pattern: compile(&request_for), needs_loan_word: true, strict_borrower: false },
    ]
});

fn loan_type_of(text: &str) -> LoanType {
    let text = text.to_ascii_lowercase();
    if text.starts_with("bridge") {
        LoanType::Bridge
    } else if text.contains("revolv")
        || text.starts_with("rcf")
        || text.contains("credit line")
        || text.contains("line of credit")
    {
        LoanType::Revolving
    } else if text.contains("term") || text.starts_with("tl") || text.contains("delayed") {
        LoanType::TermLoan
    } else {
        LoanType::Other
    }
}

fn loan_application(request: &str) -> Option<Intent> {
    LOAN_PATTERNS.iter().find_map(|rule| {
        let captures = rule.pattern.captures(request)?;
        let amount = parse_amount(captures.name("amt")?.as_str())?;
        // "lend 500 to Bob" is not a credit request; a stated currency or a four-digit amount is.
        if amount.currency.is_none() && amount.value < 1_000.0 {
            return None;
        }
        let loan_type = captures.name("t1").or_else(|| captures.name("t2")).map(|m| loan_type_of(m.as_str()));
        if rule.needs_loan_word && loan_type.is_none() && captures.name("noun").is_none() {
            return None;
        }
        let borrower = without_loan_tail(trim_sentence_end(captures.name("b")?.as_str()));
        let borrower_name = if let Some(framed) = framed_company(borrower, !rule.strict_borrower) {
            framed.name
        } else {
            let acceptable = is_proper_company(borrower) || (!rule.strict_borrower && is_informal_company(borrower));
            if !acceptable || is_company_reference(borrower) {
                return None;
            }
            split_ticker(borrower).0
        };
        Some(Intent::Quant(QuantRequest::LoanApplication {
            borrower_name,
            loan_amount: amount.value,
            loan_type,
            currency: amount.currency.map(str::to_owned),
        }))
    })
}

/// Asking for an opinion on a loan before the proposal: "what do you think about", "thoughts on",
/// "how would you view", "we're looking at", "(would you) be comfortable lending".
static OPINION_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:what\s+do\s+you\s+think\s+(?:about|of)|what\s+(?:is|are)\s+your\s+(?:thoughts|views?|take|read|opinion)\s+on|(?:any\s+)?(?:thoughts|views?|comments|opinions?)\s+on|your\s+(?:thoughts|views?|take|read|opinion)\s+on|how\s+do\s+you\s+feel\s+about|how\s+would\s+you\s+(?:view|look\s+at|see|rate|feel\s+about)|(?:(?:would|could)\s+you\s+)?be\s+comfortable\s+(?:with|(?P<lending>lending))|(?:we're|we\s+are|i'm|i\s+am)\s+(?:looking\s+at|considering|weighing|evaluating|reviewing))\s+",
    )
});
/// Asking for an opinion after the proposal, behind punctuation: "… - thoughts?", "…: your view?".
static OPINION_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\s*[-,:;.?!]+\s*(?:so\s+)?(?:any\s+)?(?:thoughts|views?|comments|opinions?|what\s+do\s+you\s+think|what\s+is\s+your\s+(?:view|take|read|opinion)|your\s+(?:view|take|read|thoughts|opinion)|how\s+does\s+(?:that|it|this)\s+look|does\s+(?:that|it|this)\s+work(?:\s+for\s+you)?)\s*[?.!]*$",
    )
});
/// A proposal that starts with its amount: "a $25mm term loan for …", "proposed €30m revolver to …".
static PROPOSAL_START: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)^(?:(?:a|an|the|this|that)\s+)?(?:(?:proposed|new|requested|potential|possible)\s+)?{AMOUNT}\s"
    ))
});

/// A loan proposal written as prose with a request for an opinion ("We're looking at a $25mm term
/// loan for Acme Corp to refinance their revolver — thoughts?", "what do you think about a 1.5bn
/// facility for Globex?"): the proposal read as a loan application. `None` when there is no
/// opinion asked or no loan in it, and when the proposal itself is hedged, deferred or negated:
/// the rest of the grammar then reads the message as it always has.
fn loan_opinion(normalised: &str) -> Option<Intent> {
    let framed = strip_framing(normalised);
    let mut text = framed.as_str();
    let mut asked = false;
    if let Some(tail) = OPINION_TAIL.find(text)
        && tail.start() > 0
    {
        text = &text[..tail.start()];
        asked = true;
    }
    let mut lending = false;
    if let Some(lead) = OPINION_LEAD.captures(text)
        && let Some(whole) = lead.get(0)
    {
        lending = lead.name("lending").is_some();
        text = &text[whole.end()..];
        asked = true;
    }
    if !asked {
        return None;
    }
    let proposal = strip_framing(text);
    if proposal.is_empty() || is_hedged_or_meta(&proposal) {
        return None;
    }
    let lending_verb = proposal.get(..8).filter(|verb| verb.eq_ignore_ascii_case("lending ")).map(|_| &proposal[8..]);
    let request = match lending_verb {
        Some(rest) => format!("lend {rest}"),
        None if lending => format!("lend {proposal}"),
        None if PROPOSAL_START.is_match(&proposal) => format!("assess {proposal}"),
        None => proposal,
    };
    loan_application(&request)
}

// ---- market ------------------------------------------------------------------------------------

static FOLLOW_UP_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:and\s+now|and|what\s+about|how\s+about|now|same\s+(?:thing|again|query|analysis)|same|but|ok|okay|also|then|try|do\s+it|run\s+it|redo\s+it|again|repeat(?:\s+it)?)\b[\s,]*)+",
    )
});
static FOLLOW_UP_TAIL: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)(?:[\s,]+(?:instead|too|as\s+well|please|then|again|now))+$"));
static STARTS_WITH_TIME_WORD: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)^(?:over|for|across|in|during|within|from|the|last|past|previous|trailing|prior)\b")
});

/// The time range of a message that is nothing but a time range ("and over 5Y?", "what about the
/// last 3 months"), and its words ("over 5Y", "YTD").
fn follow_up_time_range(request: &str) -> Option<(TimeRangeMention, &str)> {
    let lead = FOLLOW_UP_LEAD.find(request).map_or(0, |m| m.end());
    let rest = &request[lead..];
    let rest = FOLLOW_UP_TAIL.find(rest).map_or(rest, |m| &rest[..m.start()]).trim();
    // "and 5 years?" reads as "over 5 years"; a bare number with a unit is otherwise not a range.
    let candidate = if STARTS_WITH_TIME_WORD.is_match(rest) { rest.to_owned() } else { format!("over {rest}") };
    let (mention, span) = find_time_range(&candidate)?;
    let remainder = without(&candidate, span);
    let remainder = remainder.trim_matches(|c: char| !c.is_alphanumeric());
    (remainder.is_empty() || remainder.eq_ignore_ascii_case("over")).then_some((mention, rest))
}

fn market_follow_up(request: &str, history: &[HistoryTurn]) -> Option<Intent> {
    let (mention, words) = follow_up_time_range(request)?;
    Some(match (mention, last_market_query(history)) {
        (TimeRangeMention::Supported(range), Some(query)) => {
            Intent::Quant(QuantRequest::Market { query, time_range: Some(range) })
        }
        (TimeRangeMention::Covering(range), Some(query)) => {
            Intent::Quant(QuantRequest::Market { query: format!("{query} {words}"), time_range: Some(range) })
        }
        // A window the service does not offer, or nothing to repeat: ask again in words.
        _ => Intent::None,
    })
}

/// The query of the most recent market request; `None` when a different request came after it.
fn last_market_query(history: &[HistoryTurn]) -> Option<String> {
    history_asked();
    for turn in history.iter().rev().filter(|turn| turn.role == Role::User) {
        let request = strip_framing(&normalise(&turn.content));
        if follow_up_time_range(&request).is_some() {
            continue;
        }
        match parse_message(&turn.content, &[]) {
            Intent::Quant(QuantRequest::Market { query, .. }) => return Some(query),
            Intent::None | Intent::DocumentQuestion(_) => continue,
            _ => return None,
        }
    }
    None
}

static COMPARE: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)^compare\s+(?P<q>.+)$"));
static COMPARISON_SEPARATOR: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\s(?:and|with|to|vs\.?|versus|against)\s|,"));
static VERSUS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:how\s+(?P<how>did|does|do|has|have|is|are|were|was)\s+|(?:analy[sz]e|assess|evaluate|review|show\s+me)\s+)?(?P<q>.+?\s(?:vs\.?|versus|v\.|against|compared\s+(?:to|with))\s.+?)(?:\s+(?P<verb>do|did|done|doing|perform|performed|performing|fare|fared|trade|traded|trading|compare|stack\s+up|move|moved))?$",
    )
});
static MARKET_VIEW: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:give\s+me|get\s+me|share|send\s+me|i\s+would\s+like|i\s+want|i\s+need|what\s+is|do\s+you\s+have|run|do|prepare|produce|start)\s+)?(?:a\s+|an\s+|your\s+|the\s+|some\s+)?(?:quick\s+|brief\s+|short\s+)?(?:market|sector|industry)\s+(?:view|outlook|analysis|overview|update|read|take|commentary|snapshot|performance|review|report|check)\s+(?:on|for|of|about|in|regarding)\s+(?P<q>.+)$",
    )
});
static PERFORMANCE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^how\s+(?:did|does|do|has|have|is|are|were|was)\s+(?P<q>.+?)\s+(?:do|did|done|doing|perform|performed|performing|fare|fared|trade|traded|trading|move|moved|moving|behave|behaved|been\s+doing|been\s+performing)$",
    )
});
static MARKET_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:markets?|sectors?|industry|industries|index|indices|stocks|shares|bonds|equities|yields?|spreads|treasuries|gilts|bunds|etfs?|semis|semiconductors?|banks|banking|high\s+yield|investment\s+grade|leveraged\s+loans|s&p|nasdaq|dow|ftse|dax|stoxx|nikkei|commodities|oil|gold|crypto|bitcoin|reits|small\s+caps|large\s+caps|tech|energy|utilities|financials)\b",
    )
});
static DOCUMENT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:facility|facilities|tranche|tranches|covenants?|margins?|agreement|clauses?|term\s+loan|revolver|drafts?|versions?|documents?)\b",
    )
});

/// Words that point back rather than name: a comparison holding one compares nothing yet.
fn is_pronoun(phrase: &str) -> bool {
    is_company_reference(phrase)
        || ["this", "that", "these", "those", "him", "her", "us", "me", "both", "each other", "the others"]
            .contains(&phrase.to_ascii_lowercase().as_str())
}

static VERSUS_SEPARATOR: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)\s(?:vs\.?|versus|v\.)\s"));

/// Capitalised words that name a time or a scenario, not a company ("Q1 vs Q2", "Monday vs Friday"),
/// besides the months and weekdays of [`is_month_or_weekday`].
const NOT_COMPANY_WORDS: &[&str] = &[
    "spring",
    "summer",
    "autumn",
    "fall",
    "winter",
    "today",
    "yesterday",
    "plan",
    "option",
    "scenario",
    "case",
    "version",
    "draft",
    "model",
    "approach",
    "strategy",
    "method",
    "team",
    "side",
];

/// One side of a bare comparison that names a company: a ticker, or a company name without
/// digits, single letters or calendar and scenario words.
fn names_a_company(side: &str) -> bool {
    let (name, ticker) = split_ticker(side);
    ticker.is_some()
        || is_proper_company(side)
            && !is_corporate_suffix(side)
            && !is_person_name(side)
            && !name.split_whitespace().any(|word| {
                let word = bare_word(word);
                word.chars().count() == 1
                    || word.chars().any(|c| c.is_ascii_digit())
                    || NOT_COMPANY_WORDS.contains(&word.as_str())
                    || is_month_or_weekday(&word)
            })
}

/// "Contoso vs Fabrikam", "AAPL vs. MSFT": two or more sides, each a company or ticker. Without a
/// verb or a time range, only names make a comparison a request ("SOFR vs LIBOR" is a question).
fn names_only_companies(query: &str) -> bool {
    let sides: Vec<&str> = VERSUS_SEPARATOR.split(query).map(trim_sentence_end).collect();
    sides.len() >= 2 && sides.iter().all(|side| names_a_company(side))
}

static LIST_SEPARATOR: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i),\s*(?:(?:and|&)\s+)?|\s+(?:and|&)\s+"));

/// "Contoso, Fabrikam and Northwind": a list with a comma, each item a company ("Contoso, Inc." is
/// one company). Without a comma, "Procter and Gamble" may be one name, so it is not a list.
fn lists_only_companies(query: &str) -> bool {
    let sides: Vec<&str> = LIST_SEPARATOR.split(query).map(trim_sentence_end).collect();
    query.contains(',') && sides.len() >= 2 && sides.iter().all(|side| names_a_company(side))
}

fn market_query(raw: &str) -> Option<String> {
    let query = trim_sentence_end(raw);
    let query = query.strip_prefix("the ").or_else(|| query.strip_prefix("The ")).unwrap_or(query);
    (is_research_topic(query) && !is_company_reference(query) && !DOCUMENT_WORDS.is_match(query))
        .then(|| query.to_owned())
}

fn market(request: &str) -> Option<Intent> {
    let (mention, span) = match find_time_range(request) {
        Some((mention, span)) => (Some(mention), Some(span)),
        None => (None, None),
    };
    let rest = match &span {
        Some(span) => without(request, span.clone()),
        None => request.to_owned(),
    };
    let rest = trim_sentence_end(&rest);
    let has_range = mention.is_some();
    let query = if let Some(captures) = COMPARE.captures(rest) {
        let q = captures.name("q")?.as_str();
        let sides: Vec<&str> = COMPARISON_SEPARATOR.split(q).map(str::trim).collect();
        // "compare it with Microsoft": what "it" is, the grammar does not guess.
        if sides.len() < 2 || sides.iter().any(|side| side.is_empty() || is_pronoun(side)) {
            return None;
        }
        q
    } else if let Some(captures) = VERSUS.captures(rest) {
        let asked = captures.name("how").is_some() && captures.name("verb").is_some();
        let q = captures.name("q")?.as_str();
        if !(asked || has_range || names_only_companies(q)) {
            return None;
        }
        q
    } else if let Some(captures) = MARKET_VIEW.captures(rest) {
        captures.name("q")?.as_str()
    } else if let Some(captures) = PERFORMANCE.captures(rest) {
        let q = captures.name("q")?.as_str();
        if !(MARKET_WORDS.is_match(q) || has_range && is_proper_company(q)) {
            return None;
        }
        q
    } else {
        return None;
    };
    let mut query = market_query(query)?;
    let time_range = match (mention, span) {
        (Some(mention), Some(span)) => {
            let (time_range, keep_words) = read_mention(mention);
            if keep_words {
                query = format!("{query} {}", request[span].trim());
            }
            time_range
        }
        _ => None,
    };
    Some(Intent::Quant(QuantRequest::Market { query, time_range }))
}

/// The window a mention asks for, and whether its words must stay in the query: a window the
/// service does not offer, or the year to date read as 1Y, is kept in words so that it never
/// silently becomes another one.
fn read_mention(mention: TimeRangeMention) -> (Option<TimeRange>, bool) {
    match mention {
        TimeRangeMention::Supported(range) => (Some(range), false),
        TimeRangeMention::Covering(range) => (Some(range), true),
        TimeRangeMention::Unsupported => (None, true),
    }
}

// ---- people, investigations, research ----------------------------------------------------------

static WHO_IS: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)^who\s+(?:is|was)\s+(?P<obj>.+)$"));
static PERSON_CHECK: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:run|do|perform|get|order|start|launch|prepare|i\s+need|i\s+want|we\s+need|give\s+me)\s+)?(?:a\s+|an\s+|the\s+|some\s+)?(?:(?:full|quick|thorough)\s+)?(?P<kind>background|character|reference|integrity|people|person|kyc|credit|due\s+diligence|fit\s+and\s+proper|adverse\s+media|psychometric|personality)\s+(?:check|checks|screen|screening|review|search|assessment|profile|report|investigation)\s+(?:on|of|for|into|about)\s+(?P<obj>.+)$",
    )
});
static VET: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)^(?:vet|screen|background[-\s]check|profile)\s+(?P<obj>.+)$"));
static PERSON_POSSESSIVE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?P<p>.+?)(?:'s|')\s+(?:background|history|track\s+record|reputation|record|career|past|character|integrity)$",
    )
});

/// "(do some) background on", "(run) diligence on", "KYC on" a person, the check noun left out.
static PERSON_BACKGROUND: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:run|do|perform|get|pull|find|gather|dig\s+up|order|prepare|i\s+need|we\s+need|i\s+want|we\s+want|need|want|give\s+me|get\s+me|send\s+me)\s+)?(?:a\s+|an\s+|the\s+|some\s+|a\s+bit\s+of\s+|any\s+|more\s+)?(?:(?:full|quick|thorough|light|basic)\s+)?(?:background(?:\s+(?:info|information|research|work))?|(?:due\s+)?diligence|kyc)\s+(?:on|about|into|for|regarding)\s+(?P<obj>.+)$",
    )
});

fn people_intent(person_name: String, context: Option<String>) -> Intent {
    Intent::People { person_name, context }
}

fn person_of(phrase: &str) -> Option<Intent> {
    if let Some((name, context)) = person_with_context(phrase) {
        return Some(people_intent(name, context));
    }
    let captures = PERSON_POSSESSIVE.captures(phrase)?;
    let name = captures.name("p")?.as_str();
    is_person_name(name).then(|| people_intent(name.to_owned(), None))
}

/// A company named unmistakably: with framing words ("the company X", "ticker MSFT"), a ticker,
/// or a capitalised name with a corporate suffix.
fn unmistakable_company(phrase: &str) -> Option<(String, Option<String>)> {
    if let Some(framed) = framed_company(phrase, false) {
        return Some((framed.name, framed.ticker));
    }
    let (name, ticker) = split_ticker(phrase);
    (ticker.is_some() || has_corporate_suffix(&name) && is_proper_company(&name)).then_some((name, ticker))
}

fn company_intent(company_name: String, ticker: Option<String>, analysis_type: CompanyAnalysisType) -> Intent {
    Intent::Quant(QuantRequest::Company { company_name, ticker, analysis_type })
}

fn people(request: &str) -> Option<Intent> {
    if let Some(captures) = WHO_IS.captures(request) {
        let obj = captures.name("obj")?.as_str();
        return Some(person_of(obj).unwrap_or(Intent::None));
    }
    if let Some(captures) = PERSON_CHECK.captures(request) {
        let obj = trim_sentence_end(captures.name("obj")?.as_str());
        if framed_company(obj, false).is_none()
            && let Some(person) = person_of(obj)
        {
            return Some(person);
        }
        let analysis_type = match captures.name("kind").map(|m| m.as_str().to_ascii_lowercase()).as_deref() {
            Some("credit") => CompanyAnalysisType::Risk,
            _ => CompanyAnalysisType::Comprehensive,
        };
        return Some(match unmistakable_company(obj) {
            Some((name, ticker)) => company_intent(name, ticker, analysis_type),
            None => Intent::None,
        });
    }
    if let Some(captures) = PERSON_BACKGROUND.captures(request) {
        let obj = trim_sentence_end(captures.name("obj")?.as_str());
        if framed_company(obj, false).is_none()
            && let Some(person) = person_of(obj)
        {
            return Some(person);
        }
        // A company or a topic is left to the investigation rules ("due diligence on Fabrikam Inc").
    }
    if let Some(captures) = VET.captures(request) {
        let obj = trim_sentence_end(captures.name("obj")?.as_str());
        return Some(person_of(obj).unwrap_or(Intent::None));
    }
    None
}

static INVESTIGATE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:look\s+into|look\s+in\s+to|dig\s+(?:deeper\s+)?into|dig\s+in\s+to|(?:do\s+a\s+)?deep[-\s]?dive\s+(?:into|on)|investigate|check\s+up\s+on|find\s+out\s+about|do\s+(?:some\s+)?(?:digging|homework)\s+on|(?:(?:do|run|perform|conduct|start)\s+(?:some\s+|a\s+)?)?(?:due\s+)?diligence\s+(?:on|into|for)|dig\s+up\s+(?:anything|something|dirt|whatever\s+you\s+can)\s+on)\s+(?P<obj>.+)$",
    )
});

fn investigation(request: &str) -> Option<Intent> {
    let captures = INVESTIGATE.captures(request)?;
    let obj = trim_sentence_end(captures.name("obj")?.as_str());
    if let Some(framed) = framed_company(obj, false) {
        let analysis_type =
            if framed.as_stock { CompanyAnalysisType::Market } else { CompanyAnalysisType::Comprehensive };
        return Some(company_intent(framed.name, framed.ticker, analysis_type));
    }
    if let Some(person) = person_of(obj) {
        return Some(person);
    }
    if is_company_reference(obj) {
        return Some(Intent::None);
    }
    if let Some((name, ticker)) = unmistakable_company(obj) {
        return Some(company_intent(name, ticker, CompanyAnalysisType::Comprehensive));
    }
    Some(if is_research_topic(obj) { Intent::Research { query: obj.to_owned() } } else { Intent::None })
}

static RESEARCH: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:research(?:\s+(?:on|into|about|regarding))?\s*:?|do\s+(?:some\s+|a\s+bit\s+of\s+|more\s+|a\s+little\s+|some\s+deep\s+|deep\s+)?research\s+(?:on|into|about|regarding)|(?:run|start|launch|kick\s+off|begin)\s+(?:a\s+|some\s+)?(?:deep\s+|web\s+)?research(?:\s+(?:run|job|task|query|workflow))?\s+(?:on|into|about|regarding)|deep\s+research(?:\s+(?:on|into|about))?|find\s+out|figure\s+out|search\s+(?:the\s+web\s+|online\s+)?for\s+(?:information|info|news)\s+(?:on|about|regarding))\s+(?P<q>.+)$",
    )
});

fn research(request: &str) -> Option<Intent> {
    let captures = RESEARCH.captures(request)?;
    let query = trim_sentence_end(captures.name("q")?.as_str());
    Some(if is_research_topic(query) && !is_company_reference(query) {
        Intent::Research { query: query.to_owned() }
    } else {
        Intent::None
    })
}

// ---- companies ---------------------------------------------------------------------------------

static HOW_ADJECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^how\s+(?P<adj>risky|creditworthy|credit-worthy|safe|solvent|stable|leveraged|indebted|profitable|liquid|healthy)\s+(?:is|are|was)\s+(?P<obj>.+?)(?:\s+(?:right\s+now|now|today|these\s+days|at\s+the\s+moment|currently))?$",
    )
});
static IS_RISKY: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:is|are)\s+(?P<obj>.+?)\s+(?:creditworthy|credit-worthy|a\s+good\s+credit(?:\s+risk)?|a\s+(?:good|bad|high|low|big|safe)\s+(?:credit\s+)?risk|a\s+credit\s+risk|risky|too\s+risky|likely\s+to\s+default|at\s+risk\s+of\s+default(?:ing)?|in\s+financial\s+trouble|investment[-\s]grade|solvent|insolvent|a\s+safe\s+bet)$",
    )
});
static POSSESSIVE_ASPECT_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:what|how|show\s+me|give\s+me|tell\s+me\s+about)\s+(?:(?:is|are|were|was|about)\s+)?(?P<obj>.+?)(?:'s|')\s+(?P<aspect>.+?)(?:\s+(?:like|looking|doing|trending|now|lately|these\s+days|right\s+now))?$",
    )
});
static ITS_ASPECT_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:what|how)\s+(?:is|are|were|was)\s+(?:its|their)\s+(?P<aspect>.+?)(?:\s+(?:like|looking|doing|trending))?$",
    )
});
static RISK_MEASURE_OF: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:what\s+(?:is|are)|i\s+(?:want|need)|we\s+need|check|look\s+up|pull|estimate|calculate|compute|get|get\s+me|give\s+me|show\s+me|find|tell\s+me)\s+)?(?:the\s+|a\s+)?(?:(?:current|latest|implied|estimated|1y|one[-\s]year|12[-\s]month|annual|through-the-cycle|point-in-time)\s+)*(?:pds?|probability\s+of\s+default|default\s+probability|likelihood\s+of\s+default|distance\s+to\s+default|default\s+risk|credit\s+risk)\s+(?:of|for|at|on)\s+(?P<obj>.+)$",
    )
});
static ASPECT_OF_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)^(?:what|how)\s+(?:is|are|were|was)\s+the\s+(?P<aspect>.+?)\s+(?:of|for|at)\s+(?P<obj>.+)$")
});
static ANALYSIS_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:run|do|perform|prepare|produce|start|kick\s+off|launch|create|generate|build|give\s+me|get\s+me|show\s+me|send\s+me|i\s+would\s+like|i\s+want|i\s+need|we\s+need|we\s+would\s+like|let\s+us\s+(?:do|run|see|get))\s+)?(?:a\s+|an\s+|the\s+|me\s+a\s+|me\s+an\s+|us\s+a\s+|us\s+an\s+)?(?:(?:full|quick|detailed|complete|thorough|new|deep|proper)\s+)?(?P<kind>(?:credit\s+risk|risk|financial|credit|comprehensive|fundamental|quantitative|quant|company|stock|equity)\s+)?(?:analysis|assessment|review|report|evaluation|workup|work-up|deep[-\s]dive)\s+(?:on|of|for|about|into)\s+(?P<obj>.+)$",
    )
});
static ANALYSE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:analy[sz]e|assess|evaluate|review|rate|score|underwrite|examine|appraise|(?:run|crunch)\s+(?:the\s+)?numbers\s+on)\s+(?P<obj>.+)$",
    )
});
static OBJECT_POSSESSIVE_ASPECT: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)^(?P<obj>.+?)(?:'s|')\s+(?P<aspect>.+)$"));
static ASPECT_OF_OBJECT: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)^(?:the\s+)?(?P<aspect>.+?)\s+(?:of|for|at)\s+(?P<obj>.+)$"));
static OBJECT_FOR_ASPECT: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?P<obj>.+?)\s+(?:for|focusing\s+on|with\s+a\s+focus\s+on|from\s+an?|in\s+terms\s+of|on)\s+(?P<aspect>.+?)(?:\s+(?:perspective|angle|standpoint|basis|grounds|side))?$",
    )
});
static MARKET_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)^(?:the\s+)?(?P<m>.+?\s+(?:market|markets|sector|sectors|industry|space|segment))$")
});
static IMPACT_TOPIC: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)^(?:the\s+)?(?:impact|effect|effects|implications|consequences|drivers|causes)\s+(?:of|on|for)\s+\S")
});
static FINANCIAL_ASPECT: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:(?:gross|operating|net|ebitda|ebit|profit|pre-tax)\s+)?margins?$|^(?:revenues?|sales|earnings|profits?|profitability|leverage|debt|debt\s+load|indebtedness|cash\s+flows?|free\s+cash\s+flow|balance\s+sheet|financials|financial\s+(?:position|health|statements|ratios|performance)|ratios|ebitda|(?:net\s+)?income|liquidity|interest\s+cover(?:age)?|capex|growth|fundamentals|numbers|results|accounts)$",
    )
});
static RISK_ASPECT: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:risks?|credit\s+risk|default\s+risk|risk\s+profile|credit\s+profile|credit\s+quality|credit\s*worthiness|credit\s+rating|ratings?|probability\s+of\s+default|pd|solvency|downside|credit)$",
    )
});
static MARKET_ASPECT: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^(?:stock|shares|share\s+price|stock\s+price|valuation|market\s+cap(?:itali[sz]ation)?|market\s+position|market\s+share|competitive\s+position|stock\s+performance|share\s+performance)$",
    )
});
static ASPECT_QUALIFIER: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)^(?:(?:current|latest|recent|overall|last|reported|recent)\s+)+"));

/// The analysis focus named by an aspect ("margins" → financial, "credit risk" → risk).
fn aspect_type(aspect: &str) -> Option<CompanyAnalysisType> {
    let aspect = trim_sentence_end(aspect);
    let aspect = ASPECT_QUALIFIER.find(aspect).map_or(aspect, |m| &aspect[m.end()..]);
    if RISK_ASPECT.is_match(aspect) {
        Some(CompanyAnalysisType::Risk)
    } else if FINANCIAL_ASPECT.is_match(aspect) {
        Some(CompanyAnalysisType::Financial)
    } else if MARKET_ASPECT.is_match(aspect) {
        Some(CompanyAnalysisType::Market)
    } else {
        None
    }
}

/// The company a reference points back to: see "References" in the module documentation.
fn last_company(history: &[HistoryTurn]) -> Option<(String, Option<String>)> {
    history_asked();
    for turn in history.iter().rev() {
        match turn.role {
            Role::User => match parse_message(&turn.content, &[]) {
                Intent::Quant(QuantRequest::Company { company_name, ticker, .. }) => {
                    return Some((company_name, ticker));
                }
                Intent::Quant(QuantRequest::LoanApplication { borrower_name, .. }) => {
                    return Some((borrower_name, None));
                }
                Intent::Quant(QuantRequest::Market { .. }) | Intent::People { .. } | Intent::Research { .. } => {
                    return None;
                }
                Intent::DocumentQuestion(_) | Intent::None => {
                    let mentions = company_mentions(&turn.content, true);
                    match mentions.as_slice() {
                        [] => continue,
                        [only] => return Some((only.name.clone(), only.ticker.clone())),
                        _ => return None,
                    }
                }
            },
            Role::Assistant => {
                let mentions = company_mentions(&turn.content, false);
                match mentions.as_slice() {
                    [] => continue,
                    [only] => return Some((only.name.clone(), only.ticker.clone())),
                    _ => return None,
                }
            }
        }
    }
    None
}

/// The company `phrase` names (or refers back to), analysed with `analysis_type`. `informal`
/// admits lower-case names, which only an explicit analysis verb justifies. `Some(Intent::None)`
/// when the phrase is a reference that the history cannot resolve.
fn resolve_company(
    phrase: &str,
    analysis_type: CompanyAnalysisType,
    history: &[HistoryTurn],
    informal: bool,
) -> Option<Intent> {
    let phrase = trim_sentence_end(phrase);
    // A name holds no time range ("Contoso Ltd last year") and is not an amount ("$25mm").
    if find_time_range(phrase).is_some() || parse_amount(phrase).is_some() {
        return None;
    }
    if is_company_reference(phrase) {
        return Some(match last_company(history) {
            Some((name, ticker)) => company_intent(name, ticker, analysis_type),
            None => Intent::None,
        });
    }
    if let Some(framed) = framed_company(phrase, informal) {
        // "shares of X": the stock is the focus unless the request named another one.
        let analysis_type = match analysis_type {
            CompanyAnalysisType::Comprehensive if framed.as_stock => CompanyAnalysisType::Market,
            named => named,
        };
        return Some(company_intent(framed.name, framed.ticker, analysis_type));
    }
    if is_proper_company(phrase) || informal && is_informal_company(phrase) {
        let (name, ticker) = split_ticker(phrase);
        return Some(company_intent(name, ticker, analysis_type));
    }
    None
}

/// What the object of an analysis verb or noun names: a company (with the focus its aspect
/// implies), a market, or a research topic.
fn analysis_target(object: &str, default_type: CompanyAnalysisType, history: &[HistoryTurn]) -> Option<Intent> {
    let object = trim_sentence_end(object);
    // "analyse Apple vs Microsoft", "analyse Contoso, Fabrikam and Northwind" compare: a market
    // analysis of the names.
    if names_only_companies(object) || lists_only_companies(object) {
        return Some(Intent::Quant(QuantRequest::Market { query: object.to_owned(), time_range: None }));
    }
    for pattern in [&*OBJECT_POSSESSIVE_ASPECT, &*ASPECT_OF_OBJECT, &*OBJECT_FOR_ASPECT] {
        if let Some(captures) = pattern.captures(object) {
            let (Some(obj), Some(aspect)) = (captures.name("obj"), captures.name("aspect")) else { continue };
            if let Some(analysis_type) = aspect_type(aspect.as_str())
                && let Some(intent) = resolve_company(obj.as_str(), analysis_type, history, true)
            {
                return Some(intent);
            }
        }
    }
    if let Some((mention, span)) = find_time_range(object) {
        let rest = without(object, span.clone());
        let stock = framed_company(&rest, false).is_some_and(|framed| framed.as_stock);
        let several = names_only_companies(&rest) || lists_only_companies(&rest);
        if is_proper_company(&rest) || MARKET_WORDS.is_match(&rest) || several || stock {
            let (time_range, keep_words) = read_mention(mention);
            let mut query = market_query(&rest)?;
            if keep_words {
                query = format!("{query} {}", object[span].trim());
            }
            return Some(Intent::Quant(QuantRequest::Market { query, time_range }));
        }
    }
    if let Some(captures) = MARKET_SUBJECT.captures(object) {
        let query = market_query(captures.name("m")?.as_str())?;
        return Some(Intent::Quant(QuantRequest::Market { query, time_range: None }));
    }
    if IMPACT_TOPIC.is_match(object) {
        return Some(Intent::Research { query: object.to_owned() });
    }
    resolve_company(object, default_type, history, true)
}

fn company(request: &str, history: &[HistoryTurn]) -> Option<Intent> {
    if let Some(captures) = HOW_ADJECTIVE.captures(request) {
        let analysis_type = match captures.name("adj")?.as_str().to_ascii_lowercase().as_str() {
            "leveraged" | "indebted" | "profitable" | "liquid" | "healthy" => CompanyAnalysisType::Financial,
            _ => CompanyAnalysisType::Risk,
        };
        return resolve_company(captures.name("obj")?.as_str(), analysis_type, history, false);
    }
    if let Some(captures) = IS_RISKY.captures(request) {
        return resolve_company(captures.name("obj")?.as_str(), CompanyAnalysisType::Risk, history, false);
    }
    if let Some(captures) = RISK_MEASURE_OF.captures(request) {
        return resolve_company(captures.name("obj")?.as_str(), CompanyAnalysisType::Risk, history, false);
    }
    if let Some(captures) = ITS_ASPECT_QUESTION.captures(request) {
        let analysis_type = aspect_type(captures.name("aspect")?.as_str())?;
        return resolve_company("it", analysis_type, history, false);
    }
    if let Some(captures) = POSSESSIVE_ASPECT_QUESTION.captures(request) {
        let analysis_type = aspect_type(captures.name("aspect")?.as_str())?;
        return resolve_company(captures.name("obj")?.as_str(), analysis_type, history, false);
    }
    if let Some(captures) = ASPECT_OF_QUESTION.captures(request) {
        let analysis_type = aspect_type(captures.name("aspect")?.as_str())?;
        return resolve_company(captures.name("obj")?.as_str(), analysis_type, history, false);
    }
    if let Some(captures) = ANALYSIS_NOUN.captures(request) {
        let analysis_type = match captures.name("kind").map(|m| m.as_str().trim().to_ascii_lowercase()).as_deref() {
            Some("credit risk" | "risk") => CompanyAnalysisType::Risk,
            Some("financial") => CompanyAnalysisType::Financial,
            Some("stock" | "equity") => CompanyAnalysisType::Market,
            _ => CompanyAnalysisType::Comprehensive,
        };
        return analysis_target(captures.name("obj")?.as_str(), analysis_type, history);
    }
    if let Some(captures) = ANALYSE_VERB.captures(request) {
        return analysis_target(captures.name("obj")?.as_str(), CompanyAnalysisType::Comprehensive, history);
    }
    None
}
