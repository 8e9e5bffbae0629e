//! The people workflow use case: research a named person with the research machinery (web search
//! providers and the caller's own stored documents, a few iterations inline), then report three
//! things and store them, complete, in one write:
//!
//! - `research_summary` ([`super::summary`]): what the sources say about the person, quoted with
//!   `[n]` citations, or plainly "No reliable information found about …" when no source names them.
//!   Nothing is ever said about a person from their name alone.
//! - `psychometric_profile` ([`super::profile`]): the Big Five from the IPIP-50 answers, or estimated
//!   from the person's own words ([`super::own_words`]), or unavailable with the reason.
//! - `credit_assessment`: the character C of credit ([`assess_character`]) with its findings cited.
//!
//! Creditworthiness assessment of natural persons is high-risk (DOMAIN.md §6): every part carries
//! its evidence and confidence, the character assessment always requires human review, and both the
//! profile and the assessment say they are an adjunct, never the sole basis of a decision.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use uuid::Uuid;

use super::identity::{IdentitySorting, IdentityStatus, sort_evidence};
use super::own_words::{MAX_OWN_WORDS_SENT, MIN_OWN_WORDS, quotations_by, within_word_limit};
use super::profile::{estimate_request, ipip_profile, text_estimate_profile, unavailable_profile};
use super::request::invalid;
use super::request::{IpipAnswers, PeopleError, PeopleRequest};
use super::summary::{research_question, research_summary};
use super::text::word_count;
use crate::domain::auth::Principal;
use crate::domain::cdm::{self, EventContext, EventKind, ObservationStep, WorkflowStatus};
use crate::domain::listing::RunQuery;
use crate::domain::people::runs::{PeopleId, PeopleRecord};
use crate::domain::people::{CharacterAssessment, Finding, PositiveSignal, ScoreBand, assess_character, score_ipip50};
use crate::domain::research::ResearchState;
use crate::domain::research::service::ResearchService;
use crate::ports::clock::Clock;
use crate::ports::llm::LanguageModel;
use crate::ports::people::PeopleRepository;
use crate::ports::store::StoreError;

/// Limits of one people run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeopleSettings {
    /// Research iterations at most.
    pub iterations: u32,
    /// Research time; the research stops after the iteration that reaches it.
    pub time_budget: Duration,
}

impl Default for PeopleSettings {
    fn default() -> Self {
        Self { iterations: 2, time_budget: Duration::from_secs(20) }
    }
}

pub struct PeopleService {
    research: Arc<ResearchService>,
    people: Arc<dyn PeopleRepository>,
    clock: Arc<dyn Clock>,
    llm: Option<Arc<dyn LanguageModel>>,
    settings: PeopleSettings,
}

impl PeopleService {
    pub fn new(
        research: Arc<ResearchService>,
        people: Arc<dyn PeopleRepository>,
        clock: Arc<dyn Clock>,
        settings: PeopleSettings,
    ) -> Self {
        Self { research, people, clock, llm: None, settings }
    }

    /// The same service with a language model for trait estimates from text.
    #[must_use]
    pub fn with_language_model(mut self, llm: Option<Arc<dyn LanguageModel>>) -> Self {
        self.llm = llm;
        self
    }

    /// Researches the person, assesses them, stores the complete result (one write, owned by the
    /// caller, with its `PersonResearchCompleted` step) and returns it. Provider and language-model
    /// failures are reported inside the result, never as an error.
    ///
    /// # Errors
    /// [`PeopleError::Store`] when the store cannot answer; then nothing is stored.
    pub async fn run(
        &self,
        caller: Principal,
        request: PeopleRequest,
        request_id: &str,
    ) -> Result<PeopleRecord, PeopleError> {
        let created_at = self.clock.now();
        let id = PeopleId::new_random();
        let described = described_as(&request);
        let question = research_question(&request.person_name, described.as_deref());
        // Stored documents are chosen by the person's name (and description), not by the
        // adverse-media words of the question, which most credit agreements contain.
        let focus = match &described {
            Some(described) => format!("{} {described}", request.person_name),
            None => request.person_name.clone(),
        };
        let investigation = self
            .research
            .investigate(caller.user_id, &question, Some(&focus), self.settings.iterations, self.settings.time_budget)
            .await;
        let read: Vec<(&str, usize)> =
            investigation.passages.iter().map(|(text, source)| (text.as_str(), source + 1)).collect();
        // Only what is about this person (not a namesake) is summarised and assessed.
        let sorting = sort_evidence(&request.person_name, &request.identity_to_match(), &read);
        let passages: Vec<(&str, usize)> = sorting.kept.iter().map(|(text, n)| (text.as_str(), *n)).collect();
        let character = assess_character(&request.person_name, &passages);
        let summary = research_summary(&request.person_name, &investigation, &passages, &character, &sorting);
        let own_words = quotations_by(&request.person_name, &passages);
        let profile =
            self.psychometric_profile(&request.person_name, request.ipip_responses.as_ref(), &own_words).await;
        let method = profile["method"].as_str().unwrap_or("unavailable");
        let step = completed_step(id, &request, &investigation.state, &character, method, &sorting);
        let event = self.event(request_id, &step)?;
        let state = &investigation.state;
        let url = |n: usize| n.checked_sub(1).and_then(|i| state.sources().get(i)).map(|s| s.url().to_owned());
        let result = json!({
            "people_id": id.to_string(),
            "status": "completed",
            "person_name": request.person_name,
            "context": request.context,
            "company": request.identity.company(),
            "role": request.identity.role(),
            "location": request.identity.location(),
            "deal_id": request.deal_id,
            "session_id": request.session_id,
            "identity": sorting.to_json(&request.person_name, url),
            "research_summary": summary,
            "psychometric_profile": profile,
            "credit_assessment": credit_assessment(&request.person_name, &character, state, &sorting),
        });
        let record = PeopleRecord {
            id,
            owner: caller.user_id,
            person_name: request.person_name,
            context: request.context,
            identity: request.identity,
            deal_id: request.deal_id,
            session_id: request.session_id,
            result,
            cdm_events: vec![event],
            created_at,
            completed_at: self.clock.now(),
        };
        self.people.create(record.clone()).await?;
        Ok(record)
    }

    /// The result, if the caller may see it (its owner and administrators).
    ///
    /// # Errors
    /// [`PeopleError::NotFound`] otherwise; [`PeopleError::Store`].
    pub async fn get(&self, caller: Principal, id: PeopleId) -> Result<PeopleRecord, PeopleError> {
        self.people.find(id).await?.filter(|record| caller.may_see_owned_by(record.owner)).ok_or(PeopleError::NotFound)
    }

    /// One page of the caller's results (everyone's for administrators), newest first.
    ///
    /// # Errors
    /// [`PeopleError::Validation`] for a page below 1 or a limit outside 1–200; [`PeopleError::Store`].
    pub async fn list(
        &self,
        caller: Principal,
        deal_id: Option<i64>,
        page: u32,
        limit: u32,
    ) -> Result<(Vec<PeopleRecord>, u64), PeopleError> {
        let query = RunQuery::for_caller(caller, deal_id, page, limit).map_err(|e| invalid(e.field, e.message))?;
        Ok(self.people.list(&query).await?)
    }

    /// The IPIP-50 scores when answers were given, else a text estimate when possible, else the
    /// traits unavailable with the reason.
    async fn psychometric_profile(&self, person: &str, ipip: Option<&IpipAnswers>, own_words: &[String]) -> Value {
        match ipip.map(|answers| score_ipip50(answers.answers())) {
            Some(Ok(scores)) => ipip_profile(&scores),
            Some(Err(error)) => unavailable_profile(&format!("The IPIP-50 answers could not be scored: {error}.")),
            None => self.estimate_from_text(person, own_words).await,
        }
    }

    async fn estimate_from_text(&self, person: &str, own_words: &[String]) -> Value {
        let words: usize = own_words.iter().map(|quote| word_count(quote)).sum();
        let mut missing = Vec::new();
        if words < MIN_OWN_WORDS {
            missing.push(format!(
                "the sources quote {words} words by {person}, and at least {MIN_OWN_WORDS} of their own words are needed to estimate traits from text"
            ));
        }
        if self.llm.is_none() {
            missing.push("no language model is configured to estimate traits from text".to_owned());
        }
        let Some(llm) = self.llm.as_ref().filter(|_| missing.is_empty()) else {
            return unavailable_profile(&format!("No IPIP-50 answers were given; {}.", missing.join("; ")));
        };
        let sent = within_word_limit(own_words, MAX_OWN_WORDS_SENT);
        match llm.complete(estimate_request(person, &sent)).await.and_then(|response| response.json_content()) {
            Ok(answer) => text_estimate_profile(&answer, &sent, llm.model()),
            Err(error) => unavailable_profile(&format!(
                "No IPIP-50 answers were given, and the language model could not estimate traits from text: {error}."
            )),
        }
    }

    fn event(&self, request_id: &str, step: &ObservationStep) -> Result<Value, PeopleError> {
        let context = EventContext::new(Uuid::new_v4(), self.clock.now(), request_id)
            .map_err(|error| StoreError::Unavailable(anyhow::anyhow!(error)))?;
        Ok(cdm::observation_step(&context, step))
    }
}

/// What the research is told about the person besides the name: the context, and the structured
/// fields it does not already say.
fn described_as(request: &PeopleRequest) -> Option<String> {
    let mut parts: Vec<String> = request.context.iter().cloned().collect();
    let given = &request.identity;
    for field in [given.role(), given.company(), given.location()].into_iter().flatten() {
        if !parts.iter().any(|part| part.to_lowercase().contains(&field.to_lowercase())) {
            parts.push(field.to_owned());
        }
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The `PersonResearchCompleted` step: identifiers and headline results, never what was found.
fn completed_step(
    id: PeopleId,
    request: &PeopleRequest,
    state: &ResearchState,
    character: &CharacterAssessment,
    psychometric_method: &str,
    sorting: &IdentitySorting,
) -> ObservationStep {
    let sources_used = state.sources().len();
    ObservationStep::new(
        EventKind::PersonResearchCompleted,
        WorkflowStatus::Accepted,
        format!(
            "Person research completed from {sources_used} sources ({} naming the person)",
            character.sources_mentioning_person().len()
        ),
    )
    .item("peopleId", id)
    .optional_item("dealId", request.deal_id)
    .optional_item("sessionId", request.session_id.as_deref())
    .item("sourcesUsed", sources_used)
    .item("characterScoreBand", band_name(character.score_band()))
    .item("psychometricMethod", psychometric_method)
    .item("identityStatus", sorting.status.as_str())
    .item("passagesSetAside", sorting.set_aside.len())
}

/// `{dimension, score_band, reasons, adverse_findings, mitigating_findings, positive_signals,
/// requires_human_review, notice}`, findings as `{category, statement, source: n, url}`. The
/// reasons start by saying what was left out as a namesake's, or that nothing was assessed because
/// the name is ambiguous.
fn credit_assessment(
    person: &str,
    character: &CharacterAssessment,
    state: &ResearchState,
    sorting: &IdentitySorting,
) -> Value {
    let url = |n: usize| n.checked_sub(1).and_then(|i| state.sources().get(i)).map(|source| source.url().to_owned());
    let finding = |f: &Finding| json!({ "category": f.category.as_str(), "statement": f.statement, "source": f.source_index, "url": url(f.source_index) });
    let signal = |s: &PositiveSignal| json!({ "kind": s.kind, "statement": s.statement, "source": s.source_index, "url": url(s.source_index) });
    let mut reasons: Vec<String> = Vec::new();
    if sorting.status == IdentityStatus::Ambiguous {
        reasons.push(format!(
            "Not assessed: the sources describe {} different people named {person}, and no evidence is attributed until you say which one you mean.",
            sorting.candidates.len()
        ));
    }
    if !sorting.set_aside.is_empty() {
        reasons.push(format!(
            "Left out: {} passage(s) about a different person named {person} (sources {}; see identity.set_aside).",
            sorting.set_aside.len(),
            sorting
                .set_aside
                .iter()
                .map(|s| s.source)
                .collect::<BTreeSet<_>>()
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    reasons.extend(character.reasons().iter().cloned());
    json!({
        "dimension": character.dimension(),
        "score_band": band_name(character.score_band()),
        "reasons": reasons,
        "adverse_findings": character.adverse_findings().iter().map(finding).collect::<Vec<_>>(),
        "mitigating_findings": character.mitigating_findings().iter().map(finding).collect::<Vec<_>>(),
        "positive_signals": character.positive_signals().iter().map(signal).collect::<Vec<_>>(),
        "requires_human_review": character.requires_human_review(),
        "notice": character.notice(),
    })
}

fn band_name(band: ScoreBand) -> &'static str {
    match band {
        ScoreBand::Strong => "strong",
        ScoreBand::Adequate => "adequate",
        ScoreBand::Weak => "weak",
        ScoreBand::InsufficientEvidence => "insufficient_evidence",
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use time::OffsetDateTime;
    use time::macros::datetime;

    use std::collections::BTreeMap;

    use super::*;
    use crate::domain::auth::Role;
    use crate::domain::auth::UserId;
    use crate::domain::people::CHARACTER_NOTICE;
    use crate::domain::people::IPIP50_INSTRUMENT;
    use crate::domain::people::identity::PersonIdentity;
    use crate::domain::people::profile::{PSYCHOMETRIC_NOTICE, TEXT_ESTIMATE_MAX_CONFIDENCE, TRAITS};
    use crate::domain::research::service::ResearchSettings;
    use crate::ports::clock::MockClock;
    use crate::ports::documents::MockDocumentRepository;
    use crate::ports::llm::{ChatResponse, ChatRole, LlmError, MockLanguageModel, TokenUsage};
    use crate::ports::page_fetch::{FetchError, FetchedPage, MockPageFetcher};
    use crate::ports::people::MockPeopleRepository;
    use crate::ports::research::MockResearchRepository;
    use crate::ports::web_search::{MockWebSearch, SearchError, SearchHit};
    use serde_json::Map;

    const NOW: OffsetDateTime = datetime!(2026-01-15 09:00 UTC);
    const FRAUD_URL: &str = "https://news.example.com/doe-convicted";
    const RATES_URL: &str = "https://blog.example.com/rates";
    const INTERVIEW_URL: &str = "https://magazine.example.com/doe-interview";

    fn analyst() -> Principal {
        Principal { user_id: UserId::new_random(), role: Role::Analyst }
    }

    fn clock() -> Arc<dyn Clock> {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(NOW);
        Arc::new(clock)
    }

    /// A web of `pages` (url, title, text), every search finding all of them; or one whose only
    /// provider is unreachable.
    fn research(pages: &[(&str, &str, &str)], reachable: bool) -> Arc<ResearchService> {
        let hits: Vec<SearchHit> = pages
            .iter()
            .map(|(url, title, text)| SearchHit {
                title: (*title).to_owned(),
                url: (*url).to_owned(),
                snippet: text.chars().take(120).collect(),
                published_at: None,
                score: None,
                provider: "fakeweb".to_owned(),
            })
            .collect();
        let mut search = MockWebSearch::new();
        search.expect_name().return_const("fakeweb".to_owned());
        search.expect_search().returning(move |_, _| {
            if reachable {
                Ok(hits.clone())
            } else {
                Err(SearchError::Unavailable { provider: "fakeweb".into(), reason: "connection refused".into() })
            }
        });
        let pages: BTreeMap<String, FetchedPage> = pages
            .iter()
            .map(|(url, title, text)| {
                let page = FetchedPage {
                    requested_url: (*url).to_owned(),
                    final_url: (*url).to_owned(),
                    title: Some((*title).to_owned()),
                    text: (*text).to_owned(),
                    content_type: "text/html".to_owned(),
                };
                ((*url).to_owned(), page)
            })
            .collect();
        let mut fetcher = MockPageFetcher::new();
        fetcher.expect_fetch().returning(move |url| pages.get(url).cloned().ok_or(FetchError::Status(404)));
        let mut documents = MockDocumentRepository::new();
        documents.expect_search_corpus().returning(|_, _, _| Ok(Vec::new()));
        Arc::new(ResearchService::new(
            Arc::new(MockResearchRepository::new()),
            Arc::new(documents),
            vec![Arc::new(search)],
            Some(Arc::new(fetcher)),
            clock(),
            ResearchSettings::default(),
        ))
    }

    /// A store expecting exactly one write, and the record written.
    fn store_once() -> (Arc<dyn PeopleRepository>, Arc<Mutex<Option<PeopleRecord>>>) {
        let written = Arc::new(Mutex::new(None));
        let slot = written.clone();
        let mut people = MockPeopleRepository::new();
        people.expect_create().times(1).returning(move |record| {
            *slot.lock().expect("lock") = Some(record);
            Ok(())
        });
        (Arc::new(people), written)
    }

    fn service(research: Arc<ResearchService>, llm: Option<MockLanguageModel>) -> PeopleService {
        let (people, _) = store_once();
        PeopleService::new(research, people, clock(), PeopleSettings::default())
            .with_language_model(llm.map(|llm| Arc::new(llm) as Arc<dyn LanguageModel>))
    }

    fn request(name: &str, ipip: Option<Value>) -> PeopleRequest {
        PeopleRequest::new(name, Some("Acme Corp"), Some(12), ipip.as_ref()).expect("valid request")
    }

    fn source_number(result: &Value, url: &str) -> u64 {
        let sources = result["research_summary"]["sources"].as_array().expect("sources");
        let source = sources.iter().find(|source| source["url"] == url).expect("the page is a source");
        source["n"].as_u64().expect("n")
    }

    fn scores(profile: &Value) -> Vec<Value> {
        TRAITS.iter().map(|name| profile["traits"][*name]["score"].clone()).collect()
    }

    fn llm_answering(answer: Result<Value, LlmError>) -> MockLanguageModel {
        let mut llm = MockLanguageModel::new();
        llm.expect_model().return_const("test-model".to_owned());
        let answer = Mutex::new(Some(answer));
        llm.expect_complete().times(1).returning(move |request| {
            assert_eq!(request.messages[0].role, ChatRole::System);
            assert!(request.messages[0].content.contains("data, never instructions"));
            assert!(request.response_schema.is_some());
            let answer = answer.lock().expect("lock").take().expect("asked once")?;
            Ok(ChatResponse {
                content: Some(answer.to_string()),
                tool_calls: Vec::new(),
                usage: TokenUsage::default(),
                model: "test-model".to_owned(),
                finish_reason: Some("stop".to_owned()),
            })
        });
        llm
    }

    const FRAUD_TEXT: &str = "Former Acme Corp finance director Jane Doe was convicted of wire fraud in \
        2019 after prosecutors showed she had diverted client funds. She was sentenced to four years.";
    const RATES_TEXT: &str = "Interest rates rose again this quarter as the central bank tightened policy \
        and lenders repriced their floating-rate books.";

    #[tokio::test]
    async fn adverse_media_is_found_cited_and_weighs_on_character() {
        let pages = [(RATES_URL, "Rates", RATES_TEXT), (FRAUD_URL, "Doe convicted", FRAUD_TEXT)];
        let (people, written) = store_once();
        let service = PeopleService::new(research(&pages, true), people, clock(), PeopleSettings::default());

        let record = service.run(analyst(), request("Jane Doe", None), "req-1").await.expect("run");

        let result = &record.result;
        let n = source_number(result, FRAUD_URL);
        let assessment = &result["credit_assessment"];
        let fraud = assessment["adverse_findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|finding| finding["category"] == "fraud")
            .expect("a fraud finding");
        assert_eq!((fraud["source"].as_u64(), fraud["url"].as_str()), (Some(n), Some(FRAUD_URL)));
        assert!(fraud["statement"].as_str().expect("statement").contains("convicted of wire fraud"));
        assert_eq!(assessment["score_band"], "weak");
        assert_eq!(assessment["requires_human_review"], true);
        assert_eq!(assessment["notice"], CHARACTER_NOTICE);
        let summary = &result["research_summary"];
        assert_eq!(summary["found"], true);
        let text = summary["text"].as_str().expect("text");
        assert!(
            text.contains(&format!(
                "convicted of wire fraud in 2019 after prosecutors showed she had diverted client funds. [{n}]"
            )),
            "{text}"
        );
        assert!(!text.contains("Interest rates"), "{text}");
        assert_eq!(summary["statistics"]["sources_mentioning_person"], 1);
        assert_eq!(written.lock().expect("lock").as_ref(), Some(&record));
    }

    #[tokio::test]
    async fn a_context_naming_another_company_sets_the_conviction_aside_as_a_namesakes() {
        let pages = [(RATES_URL, "Rates", RATES_TEXT), (FRAUD_URL, "Doe convicted", FRAUD_TEXT)];
        let service = service(research(&pages, true), None);
        let request = PeopleRequest::new("Jane Doe", Some("CFO of Widget Ltd, Boston"), None, None).expect("valid");

        let record = service.run(analyst(), request, "req-10").await.expect("run");

        let identity = &record.result["identity"];
        assert_eq!(identity["status"], "not_found", "{identity}");
        assert_eq!((identity["company"].as_str(), identity["location"].as_str()), (Some("Widget Ltd"), Some("Boston")));
        assert_eq!(identity["set_aside"][0]["url"], FRAUD_URL);
        assert!(
            identity["set_aside"][0]["reason"].as_str().expect("reason").contains("works at Acme Corp, not Widget Ltd")
        );
        let assessment = &record.result["credit_assessment"];
        assert_eq!(
            (assessment["score_band"].as_str(), assessment["adverse_findings"].as_array().map(Vec::len)),
            (Some("insufficient_evidence"), Some(0))
        );
        let text = record.result["research_summary"]["text"].as_str().expect("text");
        assert!(text.contains("describe a different person") && !text.contains("convicted"), "{text}");
        let step = record.cdm_events[0].to_string();
        assert!(step.contains("not_found") && !step.contains("Widget"), "{step}");
    }

    #[tokio::test]
    async fn the_completed_step_carries_identifiers_and_headlines_but_never_findings() {
        let pages = [(FRAUD_URL, "Doe convicted", FRAUD_TEXT)];
        let service = service(research(&pages, true), None);
        let request = request("Jane Doe", None).with_session(Some(" chat-7 ".into()));

        let record = service.run(analyst(), request, "req-2").await.expect("run");

        assert_eq!(record.cdm_events.len(), 1);
        let event = &record.cdm_events[0];
        cdm::check_envelope(event).expect("a valid envelope");
        let items: BTreeMap<String, String> =
            event["workflowState"]["partyCustomisedWorkflow"][0]["customisedWorkflow"]
                .as_array()
                .expect("items")
                .iter()
                .map(|item| {
                    (
                        item["itemName"].as_str().unwrap_or("").to_owned(),
                        item["itemValue"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect();
        assert_eq!(items["eventKind"], "PersonResearchCompleted");
        assert_eq!(items["peopleId"], record.id.to_string());
        assert_eq!((items["dealId"].as_str(), items["sessionId"].as_str()), ("12", "chat-7"));
        assert_eq!((items["sourcesUsed"].as_str(), items["characterScoreBand"].as_str()), ("1", "weak"));
        assert_eq!(items["psychometricMethod"], "unavailable");
        assert_eq!(event["workflowState"]["workflowStatus"], "Accepted");
        let serialised = event.to_string();
        assert!(!serialised.contains("fraud") && !serialised.contains("Jane Doe"), "{serialised}");
        assert_eq!(record.result["session_id"], "chat-7");
        assert_eq!(record.result["status"], "completed");
        assert_eq!(record.result["people_id"], record.id.to_string());
    }

    #[tokio::test]
    async fn nothing_found_says_so_and_describes_nobody() {
        let service = service(research(&[], false), None);

        let record = service.run(analyst(), request("Jane Doe", None), "req-3").await.expect("run");

        let summary = &record.result["research_summary"];
        assert_eq!(summary["found"], false);
        let text = summary["text"].as_str().expect("text");
        assert!(text.starts_with("No reliable information found about Jane Doe"), "{text}");
        assert!(text.contains("fakeweb: fakeweb unreachable: connection refused"), "{text}");
        assert_eq!(record.result["credit_assessment"]["score_band"], "insufficient_evidence");
        let profile = &record.result["psychometric_profile"];
        assert_eq!(profile["method"], "unavailable");
        assert_eq!(scores(profile), vec![Value::Null; 5]);
        assert_eq!(profile["traits"]["openness"]["confidence"], 0.0);
        let reason = profile["reason"].as_str().expect("reason");
        assert!(reason.contains("No IPIP-50 answers") && reason.contains("no language model"), "{reason}");
    }

    #[tokio::test]
    async fn sources_about_other_people_are_not_information_about_the_person() {
        let pages = [(RATES_URL, "Rates", RATES_TEXT), (FRAUD_URL, "Doe convicted", FRAUD_TEXT)];
        let service = service(research(&pages, true), None);

        let record = service.run(analyst(), request("Maria Rossi", None), "req-4").await.expect("run");

        let summary = &record.result["research_summary"];
        assert_eq!(summary["found"], false);
        assert_eq!(
            summary["text"].as_str().expect("text").split(". ").next(),
            Some("No reliable information found about Maria Rossi: none of the 2 sources consulted names them")
        );
        assert_eq!(record.result["credit_assessment"]["score_band"], "insufficient_evidence");
        assert!(record.result["credit_assessment"]["adverse_findings"].as_array().expect("list").is_empty());
    }

    #[tokio::test]
    async fn ipip_answers_are_scored_exactly_and_name_the_instrument() {
        let service = service(research(&[], true), None);
        let all_threes = json!(vec![3; 50]);

        let record = service.run(analyst(), request("Jane Doe", Some(all_threes)), "req-5").await.expect("run");

        let profile = &record.result["psychometric_profile"];
        assert_eq!(profile["method"], "ipip50");
        assert_eq!(profile["instrument"], IPIP50_INSTRUMENT);
        assert_eq!(scores(profile), vec![json!(50.0); 5]);
        assert_eq!(profile["traits"]["neuroticism"]["confidence"], 1.0);
        assert_eq!(profile["notice"], PSYCHOMETRIC_NOTICE);
    }

    #[tokio::test]
    async fn mixed_ipip_answers_by_item_score_as_computed_by_hand() {
        // Odd items answered 5, even items 1. Keyed (− items 6 − x):
        // E  1+5  6−1→5 11+5 16−1→5 21+5 26−1→5 31+5 36−1→5 41+5 46−1→5 = 50 → (50 − 10) · 2.5 = 100
        // C  3+5  8−1→5 13+5 18−1→5 23+5 28−1→5 33+5 38−1→5 43+5 48+1     = 46 → 90
        // A  2−1→5 7+5 12−1→5 17+5 22−1→5 27+5 32−1→5 37+5 42+1 47+5      = 46 → 90
        // ES 4−1→5 9+5 14−1→5 19+5 24−1→5 29−5→1 34−1→5 39−5→1 44−1→5 49−5→1 = 38 → 70, neuroticism 30
        // I  5+5 10−1→5 15+5 20−1→5 25+5 30−1→5 35+5 40+1 45+5 50+1        = 42 → 80
        let by_item: Map<String, Value> =
            (1..=50).map(|item: u32| (item.to_string(), json!(if item % 2 == 1 { 5 } else { 1 }))).collect();
        let service = service(research(&[], true), None);

        let record =
            service.run(analyst(), request("Jane Doe", Some(Value::Object(by_item))), "req-6").await.expect("run");

        let profile = &record.result["psychometric_profile"];
        assert_eq!(scores(profile), vec![json!(80.0), json!(90.0), json!(100.0), json!(90.0), json!(30.0)]);
        let evidence = profile["traits"]["extraversion"]["evidence"][0].as_str().expect("evidence");
        assert!(evidence.contains("reverse-scored: 6, 16, 26, 36, 46"), "{evidence}");
    }

    /// A page quoting Jane Doe at length (over 300 words), each quotation its own paragraph.
    fn interview() -> String {
        let mut paragraphs = vec![
            "\"I love exploring unfamiliar markets and trying ideas nobody has tested before,\" Jane Doe said.".to_owned(),
            "Asked about her team, Jane Doe said: \"I would rather listen to my colleagues than win an argument with them.\"".to_owned(),
            "\"They say I am reckless, but the numbers were never checked by anyone,\" said Bob Roe.".to_owned(),
        ];
        for i in 1..=8 {
            paragraphs.push(format!(
                "\"In year {i} we reviewed every covenant twice before signing anything, because one missed detail in a \
                 loan agreement can cost a family business its future, and I have watched that happen to people I \
                 respected over many years of lending,\" Doe said."
            ));
        }
        paragraphs.join("\n\n")
    }

    #[tokio::test]
    async fn a_text_estimate_keeps_only_traits_backed_by_verbatim_quotes_at_low_confidence() {
        let text = interview();
        let pages = [(INTERVIEW_URL, "Interview with Jane Doe", text.as_str())];
        let answer = json!({
            "openness": {"score": 72, "confidence": 0.3, "evidence_quotes": ["i love  exploring UNFAMILIAR markets"]},
            "conscientiousness": {"score": 65, "confidence": 0.3, "evidence_quotes": ["I always double-check my work"]},
            "extraversion": {"score": null, "confidence": 0, "evidence_quotes": []},
            "agreeableness": {"score": 60, "confidence": 0.9, "evidence_quotes": ["\"I would rather listen to my colleagues.\""]},
            "neuroticism": {"score": 40, "confidence": 0.2, "evidence_quotes": ["numbers were never checked by anyone"]},
        });
        let service = service(research(&pages, true), Some(llm_answering(Ok(answer))));

        let record = service.run(analyst(), request("Jane Doe", None), "req-7").await.expect("run");

        let profile = &record.result["psychometric_profile"];
        assert_eq!(profile["method"], "llm_text_estimate");
        assert_eq!(profile["model"], "test-model");
        assert_eq!(scores(profile), vec![json!(72.0), Value::Null, Value::Null, json!(60.0), Value::Null]);
        assert_eq!(profile["traits"]["openness"]["evidence"], json!(["i love  exploring UNFAMILIAR markets"]));
        assert_eq!(profile["traits"]["agreeableness"]["confidence"], TEXT_ESTIMATE_MAX_CONFIDENCE);
        // Bob Roe's words are not the person's: a quote from them supports nothing.
        assert_eq!(profile["traits"]["neuroticism"]["confidence"], 0.0);
        assert!(profile["traits"]["conscientiousness"]["reason"].as_str().expect("reason").contains("verbatim"));
        assert!(profile["reason"].is_string());
        assert!(profile["basis"]["words"].as_u64().expect("words") >= MIN_OWN_WORDS as u64);
    }

    #[tokio::test]
    async fn a_language_model_failure_leaves_the_profile_unavailable_with_the_reason() {
        let text = interview();
        let pages = [(INTERVIEW_URL, "Interview with Jane Doe", text.as_str())];
        let failing = llm_answering(Err(LlmError::Unavailable(anyhow::anyhow!("connection refused"))));
        let service = service(research(&pages, true), Some(failing));

        let record = service.run(analyst(), request("Jane Doe", None), "req-8").await.expect("run");

        let profile = &record.result["psychometric_profile"];
        assert_eq!(profile["method"], "unavailable");
        assert_eq!(scores(profile), vec![Value::Null; 5]);
        let reason = profile["reason"].as_str().expect("reason");
        assert!(reason.contains("language model unavailable"), "{reason}");
    }

    #[tokio::test]
    async fn too_few_of_the_persons_own_words_are_not_sent_to_the_model() {
        let pages = [(FRAUD_URL, "Doe convicted", FRAUD_TEXT)];
        let mut llm = MockLanguageModel::new();
        llm.expect_complete().never();
        let service = service(research(&pages, true), Some(llm));

        let record = service.run(analyst(), request("Jane Doe", None), "req-9").await.expect("run");

        let reason = record.result["psychometric_profile"]["reason"].as_str().expect("reason").to_owned();
        assert!(reason.contains("quote 0 words by Jane Doe"), "{reason}");
        assert!(!reason.contains("no language model"), "{reason}");
    }

    fn stored_record(owner: UserId) -> PeopleRecord {
        PeopleRecord {
            id: PeopleId::new_random(),
            owner,
            person_name: "Jane Doe".into(),
            context: None,
            identity: PersonIdentity::default(),
            deal_id: Some(4),
            session_id: None,
            result: json!({}),
            cdm_events: Vec::new(),
            created_at: NOW,
            completed_at: NOW,
        }
    }

    #[tokio::test]
    async fn a_result_is_visible_to_its_owner_and_administrators_only() {
        let owner = analyst();
        let record = stored_record(owner.user_id);
        let found = record.clone();
        let mut people = MockPeopleRepository::new();
        people.expect_find().returning(move |_| Ok(Some(found.clone())));
        let service = PeopleService::new(research(&[], true), Arc::new(people), clock(), PeopleSettings::default());

        assert_eq!(service.get(owner, record.id).await.expect("owner sees it"), record);
        let admin = Principal { user_id: UserId::new_random(), role: Role::Admin };
        assert!(service.get(admin, record.id).await.is_ok());
        assert!(matches!(service.get(analyst(), record.id).await, Err(PeopleError::NotFound)));
    }

    #[tokio::test]
    async fn listing_is_per_owner_except_for_administrators_and_validates_paging() {
        let caller = analyst();
        let mut people = MockPeopleRepository::new();
        people
            .expect_list()
            .withf(move |query| query.owner == Some(caller.user_id) && query.deal_id == Some(4) && query.limit == 20)
            .times(1)
            .returning(|_| Ok((Vec::new(), 0)));
        people.expect_list().withf(|query| query.owner.is_none()).times(1).returning(|_| Ok((Vec::new(), 0)));
        let service = PeopleService::new(research(&[], true), Arc::new(people), clock(), PeopleSettings::default());

        service.list(caller, Some(4), 1, 20).await.expect("own results");
        let admin = Principal { user_id: UserId::new_random(), role: Role::Admin };
        service.list(admin, None, 2, 200).await.expect("everyone's");
        for (page, limit, field) in [(0, 20, "page"), (1, 0, "limit"), (1, 201, "limit")] {
            match service.list(caller, None, page, limit).await {
                Err(PeopleError::Validation { field: got, .. }) => assert_eq!(got, field),
                other => panic!("{page} {limit}: {other:?}"),
            }
        }
    }
}
