//! Whole-loop scenarios driven by hand, as the async driver would: synthetic search hits and
//! pages, several iterations, and the invariants the driver and the API rely on.

use std::collections::{BTreeMap, BTreeSet};

use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use super::*;
use crate::ports::page_fetch::{FetchError, FetchedPage};
use crate::ports::web_search::SearchHit;

const QUESTION: &str = "What is the impact of SOFR on leveraged loans?";

const IMPACT_URL: &str = "https://example.com/sofr-impact?utm_source=feed";
const IMPACT_TEXT: &str = "How SOFR changed leveraged loans\n\n\
The move from LIBOR to SOFR changed how leveraged loans are priced. Because SOFR is a secured overnight \
rate, lenders added a credit spread adjustment, and the impact on leveraged loans was higher coupons for \
many borrowers. Arrangers said the transition also shifted hedging practice across the syndicated market \
for leveraged loans.\n\n\
About the author: she writes a weekly-ish newsletter on syndicated finance; subscribe for podcasts, \
events and conference invitations.";

const DEFINITION_URL: &str = "https://en.wikipedia.org/wiki/SOFR";
const DEFINITION_TEXT: &str = "The Secured Overnight Financing Rate (SOFR) is a broad measure of the cost \
of borrowing cash overnight collateralized by Treasury securities. SOFR is published each business day by \
the Federal Reserve Bank of New York, and SOFR is the benchmark that replaced LIBOR in most dollar \
contracts. Unlike LIBOR, SOFR is based on observed repurchase agreement transactions rather than on bank \
submissions, which made SOFR harder to manipulate.";

const RISKS_URL: &str = "https://risk.example.org/sofr-risks";
const RISKS_TEXT: &str = "Risks of SOFR for leveraged loans. Because SOFR is a risk-free overnight \
rate, it does not widen in a credit crunch, so banks funding leveraged loans face a basis mismatch \
between their funding costs and SOFR. Borrowers of leveraged loans face the risk of default when SOFR \
climbs quickly, since most leveraged loans float over SOFR without hedges. Lenders therefore watch \
interest coverage of leveraged loans closely.";

const FIGURES_URL: &str = "https://data.example.net/sofr-volumes";
const FIGURES_SNIPPET: &str = "SOFR-based leveraged loans reached 1.4 trillion dollars outstanding, with 95 percent of new leveraged loans priced over SOFR.";

const MEMO_TEXT: &str = "Credit memo. Our leveraged loans book reprices monthly over SOFR; exposure to a \
rising SOFR is a key risk for the weaker borrowers of leveraged loans in the portfolio.";

const RECENT_URL: &str = "https://news.example.com/sofr-2024";
const RECENT_TEXT: &str = "In 2024 the Federal Reserve Bank of New York and loan market groups reviewed \
how SOFR fallbacks work in leveraged loans. Recent developments include wider use of term SOFR in new \
leveraged loans and updated hedging guidance for leveraged loans.";

const UNRELATED_URL: &str = "https://blog.example.com/weather";

fn at(minutes: i64) -> OffsetDateTime {
    datetime!(2025-03-01 12:00 UTC) + Duration::minutes(minutes)
}

fn hit(provider: &str, url: &str, title: &str, snippet: &str) -> SearchHit {
    SearchHit {
        title: title.to_owned(),
        url: url.to_owned(),
        snippet: snippet.to_owned(),
        published_at: None,
        score: None,
        provider: provider.to_owned(),
    }
}

fn page(url: &str, title: &str, text: &str) -> FetchedPage {
    FetchedPage {
        requested_url: url.to_owned(),
        final_url: url.to_owned(),
        title: Some(title.to_owned()),
        text: text.to_owned(),
        content_type: "text/html".to_owned(),
    }
}

/// What the synthetic web answers to a fetch of `url`.
fn fetch(url: &str) -> Result<FetchedPage, FetchError> {
    match canonical_url(url).as_deref() {
        Some("https://example.com/sofr-impact") => Ok(page(url, "How SOFR changed leveraged loans", IMPACT_TEXT)),
        Some("https://en.wikipedia.org/wiki/SOFR") => Ok(page(url, "SOFR - Wikipedia", DEFINITION_TEXT)),
        Some("https://risk.example.org/sofr-risks") => Ok(page(url, "Risks of SOFR", RISKS_TEXT)),
        Some("https://news.example.com/sofr-2024") => Ok(page(url, "SOFR in 2024", RECENT_TEXT)),
        Some("https://data.example.net/sofr-volumes") => Err(FetchError::Timeout),
        _ => Ok(page(url, "Weather", "Sunny with a light breeze all week, and rain expected on Sunday.")),
    }
}

/// The text each source's content must come from (the page text, the snippet, or the document),
/// by canonical URL.
fn source_texts() -> BTreeMap<String, &'static str> {
    [
        (IMPACT_URL, IMPACT_TEXT),
        (DEFINITION_URL, DEFINITION_TEXT),
        (RISKS_URL, RISKS_TEXT),
        (FIGURES_URL, FIGURES_SNIPPET),
        (RECENT_URL, RECENT_TEXT),
    ]
    .into_iter()
    .filter_map(|(url, text)| Some((canonical_url(url)?, text)))
    .chain([("/api/documents/42".to_owned(), MEMO_TEXT)])
    .collect()
}

/// The synthetic search engine "searxng": hits per query; "brave" fails in iteration 1.
fn search(provider: &str, query: &str, iteration: u32) -> Result<Vec<SearchHit>, String> {
    if provider == "brave" {
        return if iteration == 1 {
            Err("brave answered 429".to_owned())
        } else {
            Ok(vec![
                hit("brave", RECENT_URL, "SOFR in 2024", "Regulators reviewed SOFR fallbacks in leveraged loans."),
                hit("brave", UNRELATED_URL, "Weather", "Sunny all week."),
            ])
        };
    }
    let hits = match query {
        "SOFR leveraged loans impact" => vec![hit(
            provider,
            IMPACT_URL,
            "How SOFR changed leveraged loans",
            "The move from LIBOR to SOFR changed leveraged loans.",
        )],
        "what is SOFR" => {
            vec![hit(provider, DEFINITION_URL, "SOFR - Wikipedia", "The Secured Overnight Financing Rate.")]
        }
        "SOFR leveraged loans risks" => vec![
            hit(provider, RISKS_URL, "Risks of SOFR for leveraged loans", "Basis mismatch and default risk."),
            hit(
                provider,
                "https://EXAMPLE.com:443/sofr-impact#comments",
                "How SOFR changed leveraged loans (comments)",
                "",
            ),
        ],
        "SOFR leveraged loans statistics" => {
            vec![
                hit(provider, FIGURES_URL, "SOFR loan volumes", FIGURES_SNIPPET),
                hit(provider, "ftp://example.com/x", "FTP", ""),
            ]
        }
        _ => vec![
            hit(
                provider,
                "https://news.example.com/sofr-2024/?utm_medium=email",
                "SOFR in 2024",
                "Recent developments.",
            ),
            hit(provider, "https://example.com/sofr-impact/", "How SOFR changed leveraged loans", ""),
            hit(provider, "https://en.wikipedia.org/wiki/SOFR#History", "SOFR - Wikipedia", ""),
        ],
    };
    Ok(hits)
}

/// One iteration as the driver runs it. Returns the candidates fetched.
fn run_iteration(state: &mut ResearchState, fetch_limit: usize) -> Vec<PageCandidate> {
    let iteration = state.iterations_done() + 1;
    for query in state.queries_for_iteration() {
        for provider in ["searxng", "brave"] {
            state.record_search(provider, &query, search(provider, &query, iteration));
        }
    }
    if iteration == 1 {
        state.record_internal_document(42, "Credit memo: leveraged book", MEMO_TEXT, at(1));
    }
    let candidates = state.pages_to_fetch(fetch_limit);
    for candidate in &candidates {
        state.record_page(candidate, fetch(candidate.url()), at(i64::from(iteration) * 10));
    }
    state.finish_iteration();
    candidates
}

/// Every `[n]` in `text`.
fn cited_numbers(text: &str) -> Vec<usize> {
    text.split('[').skip(1).filter_map(|rest| rest.split_once(']')?.0.parse().ok()).collect()
}

#[test]
fn research_loop_reads_each_page_once_cites_what_it_quotes_and_stops_when_everything_is_covered() {
    let mut state = ResearchState::new(QUESTION, 5);
    let mut all_queries: Vec<String> = Vec::new();
    let mut fetched: Vec<String> = Vec::new();

    while !state.is_finished() {
        all_queries.extend(state.queries_for_iteration());
        // Four pages in the first iteration, then one: the weather page stays unread.
        let fetch_limit = if state.iterations_done() == 0 { 4 } else { 1 };
        let candidates = run_iteration(&mut state, fetch_limit);
        fetched.extend(candidates.iter().map(|c| c.canonical_url().to_owned()));
        assert!(state.iterations_done() <= 5);
    }

    // Coverage ended the loop early: two iterations of five, every sub-question covered.
    assert_eq!(state.iterations_done(), 2);
    assert!(state.sub_questions().iter().all(SubQuestion::is_covered));

    // Queries never repeat.
    let distinct: BTreeSet<String> = all_queries.iter().map(|q| q.to_lowercase()).collect();
    assert_eq!(distinct.len(), all_queries.len(), "{all_queries:?}");
    assert_eq!(all_queries.len(), 6);
    assert_eq!(state.queries_issued(), all_queries.as_slice());

    // Visited pages are never handed out again, whatever their URL spelling.
    let distinct_fetched: BTreeSet<&String> = fetched.iter().collect();
    assert_eq!(distinct_fetched.len(), fetched.len(), "{fetched:?}");
    assert_eq!(
        fetched.iter().filter(|url| url.as_str() == "https://example.com/sofr-impact").count(),
        1,
        "the comments-anchor, :443 and trailing-slash variants were not fetched again"
    );
    assert!(!state.candidates().iter().any(|c| distinct_fetched.contains(&c.canonical_url().to_owned())));

    // Knowledge items quote the very source they cite.
    let texts = source_texts();
    assert!(state.knowledge_items().len() >= 5);
    for item in state.knowledge_items() {
        assert!(!item.sources().is_empty());
        assert!(item.content().chars().count() <= state::MAX_ITEM_CONTENT_CHARS);
        for cited in item.sources() {
            let key = canonical_url(cited.url()).unwrap_or_else(|| cited.url().to_owned());
            let text = texts.get(key.as_str()).unwrap_or_else(|| panic!("unknown source {}", cited.url()));
            assert!(text.contains(item.content()), "{} does not contain {:?}", cited.url(), item.content());
        }
    }
    let contents: BTreeSet<&str> = state.knowledge_items().iter().map(KnowledgeItem::content).collect();
    assert_eq!(contents.len(), state.knowledge_items().len(), "no duplicated content");

    // The failed fetch fell back to its snippet, still cited as a web source.
    let figures = state.sources().iter().find(|s| s.url() == FIGURES_URL).expect("snippet source");
    assert_eq!((figures.origin(), figures.provider()), (SourceOrigin::Web, "searxng"));
    assert!(state.knowledge_items().iter().any(|item| item.content() == FIGURES_SNIPPET));

    // The stored document is an internal source.
    let memo = state.sources().iter().find(|s| s.url() == "/api/documents/42").expect("internal source");
    assert_eq!(
        (memo.origin(), memo.provider(), memo.title()),
        (SourceOrigin::Internal, "internal", "Credit memo: leveraged book")
    );

    // Provider errors were recorded and the run went on.
    let errors = state.provider_errors();
    let search_errors: Vec<_> = errors.iter().filter(|e| e.stage == ErrorStage::Search).collect();
    assert_eq!(search_errors.len(), 4);
    assert!(
        search_errors.iter().all(|e| e.provider == "brave" && e.iteration == 1 && e.message == "brave answered 429")
    );
    let fetch_error = errors.iter().find(|e| e.stage == ErrorStage::Fetch).expect("fetch error");
    assert_eq!((fetch_error.provider.as_str(), fetch_error.iteration), ("searxng", 1));
    assert!(fetch_error.message.contains(FIGURES_URL) && fetch_error.message.contains("timed out"));

    // Every citation of the answer resolves to a source; web and internal sources are named.
    let answer = state.answer();
    assert!(citations_are_valid(&answer, state.sources().len()), "{answer}");
    assert!(cited_numbers(&answer).iter().all(|&n| (1..=state.sources().len()).contains(&n)));
    let memo_number = state.sources().iter().position(|s| s.url() == "/api/documents/42").map(|i| i + 1);
    assert!(answer.contains(&format!("Internal documents: [{}].", memo_number.unwrap_or(0))), "{answer}");
    assert!(answer.contains("Web sources: ["), "{answer}");
    assert!(!answer.contains("Nothing found"), "{answer}");
    for sub in state.sub_questions() {
        assert!(answer.contains(sub.text()));
    }

    let statistics = state.statistics();
    assert_eq!(statistics.iterations, 2);
    assert_eq!(statistics.queries, 6);
    assert_eq!(statistics.pages_fetched, 4);
    assert_eq!(statistics.sources_used, 6);
    assert_eq!((statistics.web_sources, statistics.internal_sources), (5, 1));
    assert_eq!(statistics.provider_error_count, 5);
    assert_eq!(statistics.sub_questions_covered, 5);
    assert!(state.has_consulted_any_source());
}

#[test]
fn the_state_round_trips_through_json_in_the_middle_of_an_iteration_and_between_iterations() {
    let mut state = ResearchState::new(QUESTION, 5);
    for query in state.queries_for_iteration() {
        state.record_search("searxng", &query, search("searxng", &query, 1));
        state.record_search("brave", &query, search("brave", &query, 1));
    }
    state.record_internal_document(42, "Credit memo", MEMO_TEXT, at(1));
    for candidate in state.pages_to_fetch(2) {
        state.record_page(&candidate, fetch(candidate.url()), at(2));
    }

    let json = serde_json::to_string(&state).expect("serializes");
    let restored: ResearchState = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(restored, state);

    let mut resumed = restored;
    state.finish_iteration();
    resumed.finish_iteration();
    assert_eq!(resumed, state, "a resumed run continues exactly as the original");
    let json = serde_json::to_string(&state).expect("serializes");
    assert_eq!(serde_json::from_str::<ResearchState>(&json).expect("deserializes"), state);
}

#[test]
fn max_iterations_ends_the_loop_even_with_questions_open_and_pages_left() {
    let mut state = ResearchState::new(QUESTION, 2);
    let mut iterations = 0;
    while !state.is_finished() {
        for query in state.queries_for_iteration() {
            let hits = (0..5)
                .map(|i| {
                    hit(
                        "searxng",
                        &format!("https://blog.example.com/{query}/{i}").replace(' ', "-"),
                        "Weather",
                        "Sunny.",
                    )
                })
                .collect();
            state.record_search("searxng", &query, Ok(hits));
        }
        for candidate in state.pages_to_fetch(1) {
            state.record_page(&candidate, fetch(candidate.url()), at(0));
        }
        state.finish_iteration();
        iterations += 1;
    }
    assert_eq!((iterations, state.iterations_done()), (2, 2));
    assert!(!state.sub_questions().iter().any(SubQuestion::is_covered));
    assert!(!state.candidates().is_empty(), "pages were left, so only the budget stopped it");
    assert!(state.queries_for_iteration().is_empty(), "no queries are planned past the budget");
    assert!(state.knowledge_items().is_empty());

    let answer = state.answer();
    assert!(answer.contains("Nothing found: none of the consulted sources addressed this."), "{answer}");
    assert!(answer.contains(&format!("Not answered by the sources consulted: {}", state.sub_questions()[0].text())));
}

#[test]
fn a_run_whose_providers_all_fail_has_consulted_no_source() {
    let mut state = ResearchState::new(QUESTION, 3);
    while !state.is_finished() {
        for query in state.queries_for_iteration() {
            state.record_search("tavily", &query, Err("tavily unreachable: connection refused".to_owned()));
        }
        assert!(state.pages_to_fetch(5).is_empty());
        state.finish_iteration();
    }
    assert!(!state.has_consulted_any_source());
    assert_eq!(state.iterations_done(), 3);
    assert!(state.statistics().provider_error_count >= 4);
    assert!(state.answer().contains("No source could be consulted"));
}

#[test]
fn a_page_redirecting_to_one_already_read_adds_no_second_source() {
    let mut state = ResearchState::new(QUESTION, 5);
    state.record_search(
        "searxng",
        "SOFR leveraged loans impact",
        Ok(vec![
            hit("searxng", DEFINITION_URL, "SOFR - Wikipedia", "definition"),
            hit("searxng", "https://en.m.wikipedia.org/wiki/SOFR", "SOFR (mobile)", "definition"),
        ]),
    );
    let candidates = state.pages_to_fetch(2);
    assert_eq!(candidates.len(), 2);
    for candidate in &candidates {
        let mut redirected = page(DEFINITION_URL, "SOFR - Wikipedia", DEFINITION_TEXT);
        redirected.requested_url = candidate.url().to_owned();
        state.record_page(candidate, Ok(redirected), at(0));
    }
    assert_eq!(state.sources().len(), 1);
    assert_eq!(state.statistics().pages_fetched, 2);
}

#[test]
fn an_internal_document_is_recorded_once() {
    let mut state = ResearchState::new(QUESTION, 5);
    state.record_internal_document(42, "Credit memo", MEMO_TEXT, at(0));
    state.record_internal_document(42, "Credit memo", MEMO_TEXT, at(5));
    state.record_internal_document(7, "  ", "", at(5));
    assert_eq!(state.sources().len(), 2);
    assert_eq!(state.sources()[1].title(), "Document 7");
    assert!(state.sources().iter().all(|s| s.origin() == SourceOrigin::Internal));
}

#[test]
fn the_same_passage_on_two_pages_is_one_knowledge_item_citing_both() {
    let mut state = ResearchState::new(QUESTION, 5);
    let mirror = "https://mirror.example.com/risks";
    state.record_search(
        "searxng",
        "SOFR leveraged loans risks",
        Ok(vec![hit("searxng", RISKS_URL, "Risks", "risks"), hit("searxng", mirror, "Risks (mirror)", "risks")]),
    );
    for candidate in state.pages_to_fetch(2) {
        state.record_page(&candidate, Ok(page(candidate.url(), "Risks", RISKS_TEXT)), at(0));
    }
    state.finish_iteration();
    let items = state.knowledge_items();
    assert_eq!(items.len(), 1, "{items:#?}");
    let cited: Vec<&str> = items[0].sources().iter().map(SourceCitation::url).collect();
    assert_eq!(cited, vec![RISKS_URL, mirror]);
}

#[test]
fn a_snippet_too_short_to_say_anything_is_not_evidence() {
    let mut state = ResearchState::new(QUESTION, 5);
    state.record_search("brave", "SOFR leveraged loans impact", Ok(vec![hit("brave", RISKS_URL, "Risks", "SOFR.")]));
    let candidate = state.pages_to_fetch(1).remove(0);
    state.record_page(&candidate, Err(FetchError::Status(503)), at(0));
    assert!(!state.has_consulted_any_source());
    assert_eq!(state.provider_errors()[0].provider, "brave");
    assert!(state.pages_to_fetch(1).is_empty());
}

#[test]
fn knowledge_items_and_sources_serialize_with_the_api_field_names() {
    let mut state = ResearchState::new(QUESTION, 5);
    state.record_internal_document(42, "Credit memo", MEMO_TEXT, datetime!(2025-03-01 12:00:30.5 UTC));
    state.finish_iteration();
    let item = serde_json::to_value(&state.knowledge_items()[0]).expect("serializes");
    let mut keys: Vec<&String> = item.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    keys.sort();
    assert_eq!(keys, ["content", "sources", "title"]);
    assert_eq!(
        item["sources"][0],
        serde_json::json!({
            "url": "/api/documents/42",
            "title": "Credit memo",
            "provider": "internal",
            "retrieved_at": "2025-03-01T12:00:30.5Z",
        })
    );
    let source = serde_json::to_value(&state.sources()[0]).expect("serializes");
    assert_eq!(source["origin"], "internal");
    let statistics = serde_json::to_value(state.statistics()).expect("serializes");
    assert_eq!(statistics["sources_used"], 1);
    assert_eq!(statistics["iterations"], 1);
}

#[test]
fn candidates_are_ranked_by_how_well_their_title_and_snippet_match_the_open_questions() {
    let mut state = ResearchState::new(QUESTION, 5);
    state.record_search(
        "searxng",
        "SOFR leveraged loans impact",
        Ok(vec![
            hit("searxng", UNRELATED_URL, "Weather", "Sunny all week."),
            hit("searxng", RISKS_URL, "Risks of SOFR for leveraged loans", "SOFR and leveraged loans."),
            hit("searxng", "https://example.com/libor", "LIBOR history", "LIBOR was retired."),
        ]),
    );
    let first = state.pages_to_fetch(1);
    assert_eq!(first[0].url(), RISKS_URL);
    assert_eq!(state.candidates().len(), 2);
}
