//! CPU cost of the chatbot's deterministic engine (issue 7, "Measure"), in-process with criterion.
//!
//! - `chat/parse_intent/mixed_table`: [`parse_intent`] over a table of 40 realistic messages, one
//!   iteration = the whole table, reported as messages/second (`Throughput::Elements`). The table
//!   mixes 12 launching requests (company, market, research, people and loan phrasings), 8 questions
//!   about the document, 14 short messages that launch nothing (greetings, thanks, definitions,
//!   hedged, deferred and past-tense requests) and 6 long rambling messages of ~500 characters that
//!   launch nothing. Every message's class is asserted before timing, so the table measures what it
//!   says.
//! - `chat/parse_intent/long_non_launching`: the 6 long messages alone.
//! - `chat/parse_intent/non_launching_10_turn_history`: "thanks, that is helpful" with a full
//!   10-turn history (a market comparison and its follow-up, a company analysis, a margin question,
//!   the company's margins): the parser's share of the chat turn that `scripts/load-chat.sh` sends.
//!   `.../non_launching_no_history` is the same message alone.
//! - `chat/parse_intent/reference_10_turn_history`: "how risky is it?" resolved to the company named
//!   in the same history (the history is scanned for the reference).
//! - `chat/answer_from_agreement/margin` and `.../all_16_fields`: [`answer_from_agreement`] on the
//!   agreement JSON `POST /api/extract` returns for the corpus US syndicated agreement (Term SOFR,
//!   three facilities, pricing grid, covenants), i.e. the `document_context` a client sends.
//!
//! Run: `CARGO_TARGET_DIR=/tmp/bench-target cargo bench --bench chat`; see `docs/BENCHMARKS.md`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

use creditflow::domain::chat::follow_up::recognise_follow_up;
use creditflow::domain::chat::{
    AgreementField, HISTORY_WINDOW, HistoryTurn, Intent, answer_from_agreement, parse_intent,
    parse_intent_without_history,
};
use creditflow::domain::extraction::{ExtractionStatus, extract_credit_agreement};

const AGREEMENT_TEXT: &str = include_str!("../src/domain/extraction/corpus/us_syndicated_term_sofr.txt");

/// What a message of the table is expected to be read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Launches a workflow.
    Launch,
    /// A question about the agreement in context.
    Document,
    /// Launches nothing.
    Nothing,
}

const LAUNCHING: &[&str] = &[
    "analyse Apple Inc.",
    "run a credit analysis on Microsoft (MSFT)",
    "how risky is MSFT?",
    "Hi! Please analyse Siemens AG",
    "compare semiconductors and banks over 1Y",
    "give me a market outlook for European banks over the past year",
    "research the impact of SOFR on leveraged loans",
    "can you do some research on private credit default rates?",
    "look into Jane Doe",
    "run a background check on Dr. Ahmed Khan, CFO of Widget Ltd",
    "assess a $5m term loan for Acme Corp",
    "Delta plc is requesting a $5,000,000 term loan",
];

const DOCUMENT_QUESTIONS: &[&str] = &[
    "what is the margin?",
    "who is the borrower?",
    "when does it mature?",
    "what's the governing law",
    "what are the financial covenants?",
    "is there a SOFR floor?",
    "Hi, could you tell me what's the margin?",
    "who are the lenders under the agreement?",
];

const SHORT_NON_LAUNCHING: &[&str] = &[
    "hello",
    "thanks, that is helpful",
    "Good morning, how are you?",
    "what can you do?",
    "what is a covenant?",
    "explain DSCR",
    "what is SOFR?",
    "should I analyse this later?",
    "don't analyse Apple yet",
    "I analysed Apple last week",
    "my manager asked me to look into Acme Corp",
    "how risky is lending to startups?",
    "would it make sense to analyse Tesla?",
    "I think Tesla is risky",
];

/// ~500 characters each, launching nothing: notes, opinions and context a user types between requests.
const LONG_NON_LAUNCHING: &[&str] = &[
    "Thanks, that is really helpful. I was on a call with the relationship team this morning and we went \
     through the borrower's quarterly numbers line by line; revenue held up better than we expected, although \
     the working capital swing in the third quarter still worries me a little because inventory built up ahead \
     of the holiday season and receivables stretched by about a week. The sponsor says it is seasonal and will \
     unwind in January, and honestly their track record supports that, so I am inclined to believe them.",
    "I analysed Acme Corp last quarter and the picture was broadly the same as it is today: leverage around \
     four times, interest cover comfortably above three, and a revolver that has barely been drawn since the \
     refinancing. The credit committee liked the deal then and I expect they will like the amendment too, \
     provided the margin step-down is tied to the leverage grid rather than to the rating. My manager wants a \
     one-page summary by Friday, which I will write myself once the legal team has finished its mark-up.",
    "Just so you know, the agent circulated the amended and restated agreement last night. The main changes \
     are the move from LIBOR to Term SOFR with a credit spread adjustment of ten basis points, a new incremental \
     facility basket sized at the greater of a fixed amount and one hundred percent of EBITDA, and a looser \
     restricted payments covenant. Nothing in it looks unusual for a sponsor-backed borrower of this size, and \
     the lenders seem comfortable, but I would like to keep track of how the pricing compares with last year.",
    "Good morning. Our team met the borrower's management on Tuesday and the conversation was mostly about \
     their expansion plans in Europe. They intend to open two distribution centres over the next eighteen \
     months, funded partly from operating cash flow and partly from the delayed-draw tranche. The treasurer \
     was candid that margins will compress while the new sites ramp up, and that they have already discussed \
     a covenant holiday with the agent. I found them credible, and the numbers they showed us were consistent.",
    "I think the market has been too relaxed about floating-rate borrowers this year. Many of the companies in \
     our portfolio hedged only half of their exposure when rates were low, and the hedges roll off over the \
     next two years. Interest coverage ratios that look fine on a trailing basis will tighten as the swaps \
     expire, and the borrowers with thin margins will feel it first. This is my view rather than a request; I \
     am writing it down here so that the notes of this session capture what we discussed in the meeting.",
    "Some background for the file: the borrower is a family-owned manufacturer of industrial valves with \
     plants in Ohio and Bavaria, about eight hundred employees, and a customer base concentrated in oil and \
     gas, water utilities and chemicals. Its previous lender exited the relationship after a change of \
     strategy, not because of any problem with the credit. The owners want a five-year facility with room to \
     fund a small acquisition, and they have asked for a quick answer on indicative terms from our side.",
];

fn table() -> Vec<(&'static str, Class)> {
    let classes = [
        (LAUNCHING, Class::Launch),
        (DOCUMENT_QUESTIONS, Class::Document),
        (SHORT_NON_LAUNCHING, Class::Nothing),
        (LONG_NON_LAUNCHING, Class::Nothing),
    ];
    // Interleaved, so that consecutive messages are of different kinds, as in a real stream.
    let longest = classes.iter().map(|(messages, _)| messages.len()).max().unwrap_or(0);
    let mut table = Vec::new();
    for i in 0..longest {
        for (messages, class) in classes {
            if let Some(message) = messages.get(i) {
                table.push((*message, class));
            }
        }
    }
    table
}

fn class_of(intent: &Intent) -> Class {
    match intent {
        Intent::DocumentQuestion(_) => Class::Document,
        Intent::None => Class::Nothing,
        _ => Class::Launch,
    }
}

/// A 10-turn conversation: a market comparison and its follow-up, a company analysis, a question
/// about the agreement in context, and the company's margins.
fn history() -> Vec<HistoryTurn> {
    let history = vec![
        HistoryTurn::user("compare semiconductors and banks over 1Y"),
        HistoryTurn::assistant("I have launched a market analysis of semiconductors and banks over 1Y."),
        HistoryTurn::user("and over 5Y?"),
        HistoryTurn::assistant("I have launched a market analysis of semiconductors and banks over 5Y."),
        HistoryTurn::user("run a credit analysis on Microsoft (MSFT)"),
        HistoryTurn::assistant(
            "I have launched a comprehensive analysis of Microsoft (MSFT). It covers the annual and quarterly \
             statements, the credit ratios and the share price over the last year; the result is stored.",
        ),
        HistoryTurn::user("what is the margin?"),
        HistoryTurn::assistant(
            "Term Loan A: USD-SOFR CME Term + 1.75% (175 bps), by pricing grid. Term Loan B: USD-SOFR CME Term + \
             2.75% (275 bps). Revolving Credit Facility: by pricing grid, Level I 1.5% (150 bps) to Level IV 2.25% \
             (225 bps).",
        ),
        HistoryTurn::user("what are its margins?"),
        HistoryTurn::assistant("I have launched a financial analysis of Microsoft (MSFT) focused on its margins."),
    ];
    assert_eq!(history.len(), HISTORY_WINDOW, "a full history window");
    history
}

/// The `agreement` of `POST /api/extract` for the corpus US syndicated agreement.
fn extracted_agreement() -> Value {
    let extraction = extract_credit_agreement(AGREEMENT_TEXT);
    assert_eq!(extraction.status, ExtractionStatus::Success, "the corpus agreement extracts");
    serde_json::to_value(&extraction.agreement).expect("the agreement serialises")
}

fn parser(c: &mut Criterion) {
    let table = table();
    assert_eq!(table.len(), 40);
    let misread: Vec<String> = table
        .iter()
        .filter_map(|(message, class)| {
            let intent = parse_intent(message, &[]);
            (class_of(&intent) != *class).then(|| format!("{message:?}: expected {class:?}, got {intent:?}"))
        })
        .collect();
    assert!(misread.is_empty(), "messages not read as their class:\n{}", misread.join("\n"));
    for message in LONG_NON_LAUNCHING {
        let chars = message.chars().count();
        assert!((450..=600).contains(&chars), "a long message has {chars} characters");
    }
    let messages: Vec<&str> = table.iter().map(|(message, _)| *message).collect();

    let history = history();
    assert_eq!(parse_intent("thanks, that is helpful", &history), Intent::None);
    assert_eq!(class_of(&parse_intent("how risky is it?", &history)), Class::Launch, "the reference resolves");

    let mut group = c.benchmark_group("chat/parse_intent");
    group.throughput(Throughput::Elements(messages.len() as u64));
    group.bench_function("mixed_table", |b| {
        b.iter(|| {
            for message in &messages {
                black_box(parse_intent(black_box(message), &[]));
            }
        });
    });
    group.throughput(Throughput::Elements(LONG_NON_LAUNCHING.len() as u64));
    group.bench_function("long_non_launching", |b| {
        b.iter(|| {
            for message in LONG_NON_LAUNCHING {
                black_box(parse_intent(black_box(message), &[]));
            }
        });
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("non_launching_10_turn_history", |b| {
        b.iter(|| parse_intent(black_box("thanks, that is helpful"), black_box(&history)));
    });
    group.bench_function("non_launching_no_history", |b| {
        b.iter(|| parse_intent(black_box("thanks, that is helpful"), &[]));
    });
    group.bench_function("non_launching_without_history", |b| {
        b.iter(|| parse_intent_without_history(black_box("thanks, that is helpful")))
    });
    group.bench_function("follow_up_recognised", |b| b.iter(|| recognise_follow_up(black_box("what's its leverage?"))));
    group.bench_function("follow_up_not_one", |b| b.iter(|| recognise_follow_up(black_box("thanks, that is helpful"))));
    group.bench_function("reference_10_turn_history", |b| {
        b.iter(|| parse_intent(black_box("how risky is it?"), black_box(&history)));
    });
    group.finish();
}

fn document_answers(c: &mut Criterion) {
    let agreement = extracted_agreement();
    for field in
        [AgreementField::Borrower, AgreementField::Margin, AgreementField::Maturity, AgreementField::GoverningLaw]
    {
        let answer = answer_from_agreement(field, &agreement);
        assert!(answer.found, "{field:?} is answered from the extracted agreement: {}", answer.text);
    }
    let mut group = c.benchmark_group("chat/answer_from_agreement");
    group.throughput(Throughput::Elements(1));
    group.bench_function("margin", |b| b.iter(|| answer_from_agreement(AgreementField::Margin, black_box(&agreement))));
    group.throughput(Throughput::Elements(AgreementField::ALL.len() as u64));
    group.bench_function("all_16_fields", |b| {
        b.iter(|| {
            for field in AgreementField::ALL {
                black_box(answer_from_agreement(field, black_box(&agreement)));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, parser, document_answers);
criterion_main!(benches);
