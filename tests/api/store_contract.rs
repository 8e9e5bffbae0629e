//! The repository contract: one suite that every store adapter must pass. The memory store runs
//! it here; the PostgreSQL adapter runs the same functions against a real database.

use std::sync::Arc;

use creditflow::adapters::memory::{
    MemoryAnalysisStore, MemoryConversationStore, MemoryDocumentStore, MemoryPeopleStore, MemoryRateLimiter,
    MemoryResearchStore, MemoryStatementSetStore, MemoryStorageLedger, MemoryStore,
};
use creditflow::domain::auth::ethereum::EthAddress;
use creditflow::domain::auth::sessions::{
    NonceConsumption, RefreshConsumption, RefreshTokenRecord, TokenHash, WalletNonce,
};
use creditflow::domain::auth::{EmailAddress, NewUser, PasswordHash, Role, UserChanges, UserId};
use creditflow::domain::chat::sessions::{OPENING_CHARS, SessionQuery};
use creditflow::domain::documents::{
    AgreementSummary, DeletedKind, Deletion, DocumentQuery, DocumentQuota, ExtractionRecord, Money, OriginalFile,
    QuotaKind, ReviewEvent, ReviewState, StorageUsage,
};
use creditflow::domain::intake::{MediaType, PageMap};
use creditflow::domain::listing::RunQuery;
use creditflow::domain::people::identity::PersonIdentity;
use creditflow::domain::people::runs::{PeopleId, PeopleRecord};
use creditflow::domain::quant::runs::{AnalysisId, AnalysisKind, AnalysisOutcome, AnalysisRecord, AnalysisStatus};
use creditflow::domain::ratelimit::RatePolicy;
use creditflow::domain::research::runs::{
    ResearchId, ResearchOutcome, ResearchProgress, ResearchRun, ResearchStatus, WorkerId,
};
use creditflow::domain::statements::stored::{SetOrigin, StatementSetId, StatementSetRecord};
use creditflow::domain::statements::{FinancialsInput, check_input};
use creditflow::ports::analyses::{AnalysisChangeError, AnalysisRepository};
use creditflow::ports::cache::ResponseCache;
use creditflow::ports::conversations::{AppendError, ConversationRepository, StoredMessage};
use creditflow::ports::deletions::DeletionTrail;
use creditflow::ports::documents::{DocumentChangeError, DocumentRepository, NewDocument, NewVersion};
use creditflow::ports::people::PeopleRepository;
use creditflow::ports::rate_limit::RateLimiter;
use creditflow::ports::research::{LeaseError, ResearchRepository};
use creditflow::ports::statement_sets::{StatementSetRepository, StatementSetWriteError};
use creditflow::ports::store::{CreateUserError, RefreshTokenRepository, UserRepository, WalletNonceRepository};
use rust_decimal::Decimal;
use serde_json::json;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

const NOW: OffsetDateTime = datetime!(2026-06-01 12:00 UTC);

fn new_user(email: Option<&str>, wallet: Option<&str>) -> NewUser {
    NewUser {
        id: UserId::new_random(),
        email: email.map(|e| EmailAddress::new(e).expect("email")),
        password_hash: email.map(|_| PasswordHash::from_phc("$argon2id$v=19$m=64,t=1,p=1$c2FsdA$aGFzaA".into())),
        role: Role::Analyst,
        wallet_address: wallet.map(|w| EthAddress::parse(w).expect("address")),
        created_at: NOW,
    }
}

pub async fn users_are_unique_by_email_and_wallet(store: Arc<dyn UserRepository>) {
    let alice = store.create(new_user(Some("alice@example.com"), None)).await.expect("create");
    assert!(matches!(
        store.create(new_user(Some("alice@example.com"), None)).await,
        Err(CreateUserError::DuplicateEmail)
    ));
    let wallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
    let holder = store.create(new_user(None, Some(wallet))).await.expect("create");
    assert!(matches!(store.create(new_user(None, Some(wallet))).await, Err(CreateUserError::DuplicateWallet)));
    // Users without e-mail do not collide with each other.
    store.create(new_user(None, Some("0x71CB05EE1b1F506fF321Da3dac38f25c0c9ce6E1"))).await.expect("second wallet user");

    let found = store.find_by_email(&EmailAddress::new("ALICE@example.com").expect("email")).await.expect("find");
    assert_eq!(found.map(|u| u.id), Some(alice.id));
    assert_eq!(store.find_by_id(alice.id).await.expect("find"), Some(alice.clone()));
    let by_wallet = store.find_by_wallet(&EthAddress::parse(wallet).expect("address")).await.expect("find");
    assert_eq!(by_wallet.map(|u| u.id), Some(holder.id));
    assert_eq!(store.find_by_id(UserId::new_random()).await.expect("find"), None);
    assert_eq!(store.list().await.expect("list").len(), 3);

    let changed = store
        .update(alice.id, UserChanges { role: Some(Role::Viewer), disabled: Some(true) })
        .await
        .expect("update")
        .expect("alice exists");
    assert_eq!((changed.role, changed.disabled), (Role::Viewer, true));
    let partly = store
        .update(alice.id, UserChanges { role: None, disabled: Some(false) })
        .await
        .expect("update")
        .expect("alice exists");
    assert_eq!((partly.role, partly.disabled), (Role::Viewer, false));
    assert_eq!(store.find_by_id(alice.id).await.expect("find"), Some(partly));
    assert_eq!(store.update(UserId::new_random(), UserChanges::default()).await.expect("update"), None);
}

fn record(family_id: Uuid, user_id: UserId, token: &str) -> RefreshTokenRecord {
    RefreshTokenRecord {
        token_hash: TokenHash::of(token),
        jti: Uuid::new_v4(),
        family_id,
        user_id,
        issued_at: NOW,
        expires_at: NOW + Duration::days(30),
        used_at: None,
        revoked_at: None,
    }
}

pub async fn refresh_tokens_are_single_use_and_revoked_by_family(store: Arc<dyn RefreshTokenRepository>) {
    let user = UserId::new_random();
    let family = Uuid::new_v4();
    let other_family = Uuid::new_v4();
    store.insert(record(family, user, "first")).await.expect("insert");
    store.insert(record(family, user, "second")).await.expect("insert");
    store.insert(record(other_family, user, "elsewhere")).await.expect("insert");

    assert!(matches!(
        store.consume(&TokenHash::of("first"), NOW).await.expect("consume"),
        RefreshConsumption::Fresh(_)
    ));
    assert!(matches!(
        store.consume(&TokenHash::of("first"), NOW).await.expect("consume"),
        RefreshConsumption::AlreadyUsed(_)
    ));
    assert!(matches!(
        store.consume(&TokenHash::of("never issued"), NOW).await.expect("consume"),
        RefreshConsumption::Unknown
    ));

    assert_eq!(store.revoke_family(family, NOW).await.expect("revoke"), 2);
    assert!(matches!(
        store.consume(&TokenHash::of("second"), NOW).await.expect("consume"),
        RefreshConsumption::Revoked(_)
    ));
    assert!(matches!(
        store.consume(&TokenHash::of("elsewhere"), NOW).await.expect("consume"),
        RefreshConsumption::Fresh(_)
    ));
    assert_eq!(store.find(&TokenHash::of("second")).await.expect("find").map(|r| r.family_id), Some(family));

    let other_user = UserId::new_random();
    store.insert(record(Uuid::new_v4(), other_user, "theirs")).await.expect("insert");
    assert_eq!(store.revoke_user(user, NOW).await.expect("revoke"), 1, "only the user's unrevoked token");
    assert!(matches!(
        store.consume(&TokenHash::of("theirs"), NOW).await.expect("consume"),
        RefreshConsumption::Fresh(_)
    ));

    assert_eq!(store.purge_expired(NOW + Duration::days(31)).await.expect("purge"), 4);
    assert_eq!(store.find(&TokenHash::of("second")).await.expect("find"), None);
}

pub async fn concurrent_consumption_of_one_refresh_token_has_one_winner(store: Arc<dyn RefreshTokenRepository>) {
    store.insert(record(Uuid::new_v4(), UserId::new_random(), "raced")).await.expect("insert");
    let attempts = (0..16).map(|_| {
        let store = store.clone();
        tokio::spawn(async move { store.consume(&TokenHash::of("raced"), NOW).await })
    });
    let mut fresh = 0;
    for attempt in attempts {
        if matches!(attempt.await.expect("join").expect("consume"), RefreshConsumption::Fresh(_)) {
            fresh += 1;
        }
    }
    assert_eq!(fresh, 1);
}

pub async fn nonces_are_single_use(store: Arc<dyn WalletNonceRepository>) {
    let nonce = WalletNonce {
        nonce: "abcdEFGH12345678".into(),
        wallet_address: EthAddress::parse("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266").expect("address"),
        issued_at: NOW,
        expires_at: NOW + Duration::minutes(5),
    };
    store.insert(nonce.clone()).await.expect("insert");
    assert_eq!(store.consume("abcdEFGH12345678").await.expect("consume"), NonceConsumption::Fresh(nonce));
    assert_eq!(store.consume("abcdEFGH12345678").await.expect("consume"), NonceConsumption::AlreadyUsed);
    assert_eq!(store.consume("unknownNonce0000").await.expect("consume"), NonceConsumption::Unknown);
    assert_eq!(store.purge_expired(NOW + Duration::minutes(6)).await.expect("purge"), 1);
    assert_eq!(store.consume("abcdEFGH12345678").await.expect("consume"), NonceConsumption::Unknown);
}

#[tokio::test]
async fn the_memory_store_honours_the_repository_contract() {
    users_are_unique_by_email_and_wallet(Arc::new(MemoryStore::new())).await;
    refresh_tokens_are_single_use_and_revoked_by_family(Arc::new(MemoryStore::new())).await;
    concurrent_consumption_of_one_refresh_token_has_one_winner(Arc::new(MemoryStore::new())).await;
    nonces_are_single_use(Arc::new(MemoryStore::new())).await;
}

fn version(text: &str, borrower: &str, author: UserId, at: OffsetDateTime) -> NewVersion {
    NewVersion {
        original: None,
        pages: PageMap::default(),
        quota: DocumentQuota::UNLIMITED,
        text: text.to_owned(),
        text_sha256: format!("{:0>64}", text.len()),
        extraction: ExtractionRecord {
            status: "success".into(),
            agreement: json!({ "agreementName": "Credit Agreement" }),
            report: json!({ "status": "success", "missing_fields": [] }),
            summary: AgreementSummary {
                borrower: Some(borrower.to_owned()),
                total_commitment: Some(Money { amount: Decimal::new(500_000_000, 0), currency: "USD".into() }),
                governing_law: Some("USNY".into()),
                agreement_date: Some(time::macros::date!(2024 - 03 - 15)),
                parties: vec![borrower.to_owned(), "First Bank, N.A.".to_owned()],
            },
        },
        author,
        created_at: at,
    }
}

fn review(from: Option<ReviewState>, to: ReviewState, action: &str, actor: UserId, at: OffsetDateTime) -> ReviewEvent {
    ReviewEvent { from, to, action: action.into(), actor, at, comment: Some(format!("{action} by the test")) }
}

pub fn new_document(owner: UserId, title: &str, text: &str, borrower: &str, at: OffsetDateTime) -> NewDocument {
    NewDocument {
        owner,
        title: title.to_owned(),
        deal_id: Some(7),
        first_version: version(text, borrower, owner, at),
        created: review(None, ReviewState::Draft, "create", owner, at),
    }
}

fn query(owner: Option<UserId>, search: Option<&str>, page: u32, limit: u32) -> DocumentQuery {
    DocumentQuery { owner, search: search.map(str::to_owned), deal_id: None, page, limit }
}

pub async fn documents_are_versioned_reviewed_and_listed(store: Arc<dyn DocumentRepository>) {
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let first = store
        .create(new_document(alice, "Acme term loan", "Term SOFR plus 2.75%", "Acme Corp", NOW))
        .await
        .expect("create");
    assert_eq!((first.state, first.versions.len(), first.history.len()), (ReviewState::Draft, 1, 1));
    assert_eq!(first.versions[0].version, 1);
    assert_eq!(
        first.versions[0].extraction.summary.total_commitment.as_ref().map(|m| m.amount),
        Some(Decimal::new(500_000_000, 0))
    );
    assert_eq!(store.find(first.id).await.expect("find").as_ref(), Some(&first));

    let second = store
        .create(new_document(
            bob,
            "Globex revolver",
            "SONIA plus 1.50 per cent",
            "Globex plc",
            NOW + Duration::minutes(1),
        ))
        .await
        .expect("create");
    assert_ne!(first.id, second.id);

    let later = NOW + Duration::minutes(5);
    let revised = store
        .add_version(
            first.id,
            version("Term SOFR plus 3.00%", "Acme Corp", alice, later),
            review(Some(ReviewState::Draft), ReviewState::Draft, "new_version", alice, later),
        )
        .await
        .expect("second version");
    assert_eq!(revised.versions.iter().map(|v| v.version).collect::<Vec<_>>(), [1, 2]);
    assert_eq!((revised.updated_at, revised.history.len()), (later, 2));

    let stale = store
        .record_review(first.id, review(Some(ReviewState::Submitted), ReviewState::Approved, "approve", bob, later))
        .await;
    assert!(matches!(stale, Err(DocumentChangeError::StateChanged { current: ReviewState::Draft })));
    let submitted = store
        .record_review(first.id, review(Some(ReviewState::Draft), ReviewState::Submitted, "submit", alice, later))
        .await
        .expect("submit");
    assert_eq!(submitted.state, ReviewState::Submitted);
    assert_eq!(submitted.history.last().and_then(|e| e.comment.as_deref()), Some("submit by the test"));
    let unknown = creditflow::domain::documents::DocumentId::new(999_999).expect("id");
    assert!(matches!(
        store
            .record_review(unknown, review(Some(ReviewState::Draft), ReviewState::Submitted, "submit", alice, later))
            .await,
        Err(DocumentChangeError::NotFound)
    ));
    assert_eq!(store.find(unknown).await.expect("find"), None);

    // Newest change first; owners see theirs; search needs every word, in title, parties or text.
    let everyone = store.list(&query(None, None, 1, 50)).await.expect("list");
    assert_eq!(everyone.total, 2);
    assert_eq!(everyone.documents.iter().map(|d| d.id).collect::<Vec<_>>(), [first.id, second.id]);
    assert_eq!(everyone.documents[0].current_version, 2);
    assert_eq!(everyone.documents[0].state, ReviewState::Submitted);
    assert_eq!(store.list(&query(Some(bob), None, 1, 50)).await.expect("list").total, 1);
    for (term, expected) in [
        ("globex", vec![second.id]),
        ("SOFR", vec![first.id]),
        ("first bank", vec![first.id, second.id]),
        ("acme sonia", vec![]),
    ] {
        let found = store.list(&query(None, Some(term), 1, 50)).await.expect("search");
        assert_eq!(found.documents.iter().map(|d| d.id).collect::<Vec<_>>(), expected, "{term}");
        assert_eq!(found.total, expected.len() as u64, "{term}");
    }
    let page_two = store.list(&query(None, None, 2, 1)).await.expect("page 2");
    assert_eq!((page_two.total, page_two.documents.len()), (2, 1));
    assert_eq!(page_two.documents[0].id, second.id);
    let beyond = store.list(&query(None, None, 5, 1)).await.expect("page 5");
    assert_eq!((beyond.total, beyond.documents.len()), (2, 0));
}

pub async fn document_quotas_hold_under_concurrent_writes(store: Arc<dyn DocumentRepository>) {
    let quota = DocumentQuota { max_documents: 3, max_statement_sets: 3, max_bytes: 1_000 };
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let limited = |owner: UserId, text: &str| {
        let mut document = new_document(owner, "Quota test", text, "Acme Corp", NOW);
        document.first_version.quota = quota;
        document
    };
    let hundred = "x".repeat(100);
    let first = store.create(limited(alice, &hundred)).await.expect("within quota");
    store.create(limited(alice, &hundred)).await.expect("within quota");

    // A version that would take alice past 1,000 bytes is refused and leaves nothing behind.
    let mut large = version(&"y".repeat(900), "Acme Corp", alice, NOW);
    large.quota = quota;
    let refused = store
        .add_version(first.id, large, review(Some(ReviewState::Draft), ReviewState::Draft, "new_version", alice, NOW))
        .await;
    match refused {
        Err(DocumentChangeError::QuotaExceeded(exceeded)) => {
            assert_eq!(
                (exceeded.kind, exceeded.limit, exceeded.used, exceeded.requested),
                (QuotaKind::Bytes, 1_000, 200, 900)
            );
        }
        other => panic!("expected the byte quota, got {other:?}"),
    }
    let unchanged = store.find(first.id).await.expect("find").expect("exists");
    assert_eq!((unchanged.versions.len(), unchanged.history.len()), (1, 1));

    // Eight uploads at once with room for one more document: exactly one gets in.
    let uploads = (0..8).map(|_| {
        let store = store.clone();
        let document = limited(alice, &hundred);
        tokio::spawn(async move { store.create(document).await })
    });
    let mut stored = 0;
    for upload in uploads {
        match upload.await.expect("task") {
            Ok(_) => stored += 1,
            Err(DocumentChangeError::QuotaExceeded(exceeded)) => assert_eq!(exceeded.kind, QuotaKind::Documents),
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(stored, 1, "the quota admits exactly the document that fits");
    let alices = store.list(&query(Some(alice), None, 1, 50)).await.expect("list");
    assert_eq!(alices.total, 3);
    // Another owner's storage is their own.
    store.create(limited(bob, &hundred)).await.expect("bob has his own quota");
}

pub async fn uploaded_files_are_kept_with_their_versions_and_count_against_the_quota(
    store: Arc<dyn DocumentRepository>,
) {
    let alice = UserId::new_random();
    let pdf = OriginalFile::new(MediaType::Pdf, bytes::Bytes::from(b"%PDF-1.7 \x00\xff binary".repeat(10)));
    let mut document = new_document(alice, "Uploaded", "CREDIT AGREEMENT\n\nSection 1", "Acme Corp", NOW);
    document.first_version.original = Some(pdf.clone());
    document.first_version.pages = PageMap::new(vec![0, 18]);
    let created = store.create(document).await.expect("create");
    let first = &created.versions[0];
    assert_eq!(first.original, Some(pdf.info()));
    assert_eq!(first.pages.starts(), &[0, 18]);
    assert_eq!(first.stored_bytes(), 27 + pdf.bytes.len() as u64);
    assert_eq!(store.find(created.id).await.expect("find").as_ref(), Some(&created));
    assert_eq!(store.original(created.id, 1).await.expect("original"), Some((pdf.info(), pdf.bytes.clone())));

    // A version sent as text has no file; unknown versions and documents have none either.
    let text_version = version("plain text", "Acme Corp", alice, NOW);
    let event = review(Some(ReviewState::Draft), ReviewState::Draft, "new_version", alice, NOW);
    let changed = store.add_version(created.id, text_version, event).await.expect("add version");
    assert_eq!((changed.versions[1].original.as_ref(), changed.versions[1].pages.is_empty()), (None, true));
    assert_eq!(store.original(created.id, 2).await.expect("text version"), None);
    assert_eq!(store.original(created.id, 3).await.expect("no version"), None);

    // The file's bytes count against the owner's quota, beside the text.
    let used = 27 + pdf.bytes.len() as u64 + 10;
    let mut over = version("x", "Acme Corp", alice, NOW);
    over.quota = DocumentQuota { max_documents: 10, max_statement_sets: 10, max_bytes: used + 50 };
    over.original = Some(OriginalFile::new(MediaType::Pdf, bytes::Bytes::from(vec![b'%'; 60])));
    let event = review(Some(ReviewState::Draft), ReviewState::Draft, "new_version", alice, NOW);
    match store.add_version(created.id, over, event).await {
        Err(DocumentChangeError::QuotaExceeded(exceeded)) => {
            assert_eq!((exceeded.used, exceeded.requested), (used, 61))
        }
        other => panic!("expected the byte quota, got {other:?}"),
    }
}

#[tokio::test]
async fn the_memory_document_store_honours_the_repository_contract() {
    documents_are_versioned_reviewed_and_listed(Arc::new(MemoryDocumentStore::new())).await;
    document_quotas_hold_under_concurrent_writes(Arc::new(MemoryDocumentStore::new())).await;
    uploaded_files_are_kept_with_their_versions_and_count_against_the_quota(Arc::new(MemoryDocumentStore::new())).await;
    the_current_agreements_of_a_deal_are_read_newest_first_per_owner(Arc::new(MemoryDocumentStore::new())).await;
}

/// An agreement with one facility at `spread`, told apart by it.
fn agreement_at(spread: &str) -> serde_json::Value {
    json!({ "agreementName": "Credit Agreement", "facilities": [{ "name": "Term Loan", "spread": spread }] })
}

/// A document of `owner` on `deal_id`, created `minutes` after `NOW`, its agreement at `spread`.
fn deal_document(owner: UserId, title: &str, deal_id: Option<i64>, spread: &str, minutes: i64) -> NewDocument {
    let mut document =
        new_document(owner, title, "Term SOFR plus a margin", "Acme Corp", NOW + Duration::minutes(minutes));
    document.deal_id = deal_id;
    document.first_version.extraction.agreement = agreement_at(spread);
    document
}

pub async fn the_current_agreements_of_a_deal_are_read_newest_first_per_owner(store: Arc<dyn DocumentRepository>) {
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let create = |document: NewDocument| {
        let store = Arc::clone(&store);
        async move { store.create(document).await.expect("create") }
    };
    let term_loan = create(deal_document(alice, "Acme term loan", Some(7), "0.0250", 0)).await;
    let revolver = create(deal_document(alice, "Acme revolver", Some(7), "0.0200", 1)).await;
    let bridge = create(deal_document(bob, "Bob's bridge", Some(7), "0.0400", 2)).await;
    create(deal_document(alice, "Initech lease", Some(8), "0.0100", 3)).await;
    create(deal_document(alice, "Unlinked memo", None, "0.0300", 4)).await;
    let later = NOW + Duration::minutes(5);
    let mut amended = version("Term SOFR plus 2.75%", "Acme Corp", alice, later);
    amended.extraction.agreement = agreement_at("0.0275");
    store
        .add_version(
            term_loan.id,
            amended,
            review(Some(ReviewState::Draft), ReviewState::Draft, "new_version", alice, later),
        )
        .await
        .expect("second version");

    // The amended term loan changed last, so it comes first, with its second version's agreement.
    let alices = store.current_agreements(7, Some(alice), 20).await.expect("agreements");
    assert_eq!(alices.iter().map(|a| a.id).collect::<Vec<_>>(), [term_loan.id, revolver.id]);
    assert_eq!((alices[0].title.as_str(), alices[0].version), ("Acme term loan", 2));
    assert_eq!(alices[0].agreement, agreement_at("0.0275"));
    assert_eq!((alices[1].title.as_str(), alices[1].version), ("Acme revolver", 1));
    assert_eq!(alices[1].agreement, agreement_at("0.0200"));

    let everyone = store.current_agreements(7, None, 20).await.expect("agreements");
    assert_eq!(everyone.iter().map(|a| a.id).collect::<Vec<_>>(), [term_loan.id, bridge.id, revolver.id]);
    let first_two = store.current_agreements(7, None, 2).await.expect("agreements");
    assert_eq!(first_two.iter().map(|a| a.id).collect::<Vec<_>>(), [term_loan.id, bridge.id], "limit");
    let bobs = store.current_agreements(7, Some(bob), 20).await.expect("agreements");
    assert_eq!(bobs.iter().map(|a| a.id).collect::<Vec<_>>(), [bridge.id]);
    assert!(store.current_agreements(8, Some(bob), 20).await.expect("agreements").is_empty(), "another owner's deal");
    assert!(store.current_agreements(99, None, 20).await.expect("agreements").is_empty(), "a deal without documents");
}

fn analysis(owner: UserId, kind: AnalysisKind, deal_id: Option<i64>, minutes: i64) -> AnalysisRecord {
    AnalysisRecord::pending(
        owner,
        kind,
        json!({ "query": "SPY", "n": minutes }),
        deal_id,
        NOW + Duration::minutes(minutes),
    )
}

pub async fn analyses_move_forward_once_and_list_newest_first(store: Arc<dyn AnalysisRepository>) {
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let first = analysis(alice, AnalysisKind::Company, Some(7), 0);
    let second = analysis(alice, AnalysisKind::Market, None, 1);
    let theirs = analysis(bob, AnalysisKind::LoanApplication, Some(7), 2);
    for record in [&first, &second, &theirs] {
        store.create(record.clone()).await.expect("create");
    }
    assert_eq!(store.find(first.id).await.expect("find").as_ref(), Some(&first));
    let unfinished = |limit| {
        let store = store.clone();
        async move { store.unfinished_here(limit).await.expect("unfinished").into_iter().map(|r| r.id).collect::<Vec<_>>() }
    };
    assert_eq!(unfinished(10).await, [first.id, second.id, theirs.id], "this instance's unfinished runs, oldest first");
    assert_eq!(unfinished(1).await, [first.id], "at most the limit");

    assert!(matches!(
        store.finish(first.id, AnalysisOutcome::Completed { result: json!({}) }, vec![], NOW).await,
        Err(AnalysisChangeError::WrongState { current: AnalysisStatus::Pending })
    ));
    store.start(first.id).await.expect("start");
    assert!(matches!(
        store.start(first.id).await,
        Err(AnalysisChangeError::WrongState { current: AnalysisStatus::Running })
    ));
    let event = json!({ "@type": "cdm.event.workflow.WorkflowStep" });
    let done = store
        .finish(
            first.id,
            AnalysisOutcome::Completed { result: json!({ "summary": "ok" }) },
            vec![event.clone()],
            NOW + Duration::hours(1),
        )
        .await
        .expect("finish");
    assert_eq!(
        (done.status, done.result, done.cdm_events),
        (AnalysisStatus::Completed, Some(json!({ "summary": "ok" })), vec![event])
    );
    assert_eq!(done.completed_at, Some(NOW + Duration::hours(1)));
    assert!(matches!(
        store.finish(first.id, AnalysisOutcome::Failed { error: "late".into() }, vec![], NOW).await,
        Err(AnalysisChangeError::WrongState { current: AnalysisStatus::Completed })
    ));
    store.start(second.id).await.expect("start");
    let failed = store
        .finish(second.id, AnalysisOutcome::Failed { error: "provider down".into() }, vec![], NOW)
        .await
        .expect("fail");
    assert_eq!(
        (failed.status, failed.error.as_deref(), failed.result),
        (AnalysisStatus::Failed, Some("provider down"), None)
    );
    assert!(matches!(store.start(AnalysisId::new_random()).await, Err(AnalysisChangeError::NotFound)));
    assert_eq!(unfinished(10).await, [theirs.id], "finished runs are not listed");

    let query = |owner, deal_id, page, limit| RunQuery { owner, deal_id, page, limit };
    let (all, total) = store.list(&query(None, None, 1, 10)).await.expect("list");
    assert_eq!((all.iter().map(|r| r.id).collect::<Vec<_>>(), total), (vec![theirs.id, second.id, first.id], 3));
    let (alices, total) = store.list(&query(Some(alice), None, 1, 1)).await.expect("list");
    assert_eq!((alices.iter().map(|r| r.id).collect::<Vec<_>>(), total), (vec![second.id], 2));
    let (deal, total) = store.list(&query(None, Some(7), 1, 10)).await.expect("list");
    assert_eq!((deal.len(), total), (2, 2));
    let (beyond, total) = store.list(&query(Some(alice), None, 3, 1)).await.expect("list");
    assert_eq!((beyond.len(), total), (0, 2));
}

#[tokio::test]
async fn the_memory_analysis_store_honours_the_repository_contract() {
    analyses_move_forward_once_and_list_newest_first(Arc::new(MemoryAnalysisStore::new())).await;
}

pub async fn rate_limits_are_exact_under_concurrency_and_roll(limiter: Arc<dyn RateLimiter>) {
    let policy = RatePolicy { limit: 10, window_ms: 60_000 };
    let start = 1_700_000_000_000_i64;
    let key = format!("workflow:{}", Uuid::new_v4());
    let burst = (0..40).map(|i| {
        let (limiter, key) = (limiter.clone(), key.clone());
        tokio::spawn(async move { limiter.try_acquire(&key, policy, start + i % 3).await })
    });
    let mut admitted = 0;
    for attempt in burst {
        if attempt.await.expect("join").expect("decision").allowed {
            admitted += 1;
        }
    }
    assert_eq!(admitted, 10, "exactly the budget is admitted");

    let refused = limiter.try_acquire(&key, policy, start + 30_000).await.expect("decision");
    assert!(!refused.allowed);
    assert_eq!((refused.remaining, refused.limit), (0, 10));
    assert_eq!(refused.reset_at_ms, start + 60_000, "the oldest event leaves the window then");
    let peeked = limiter.peek(&key, policy, start + 30_000).await.expect("peek");
    assert!(!peeked.allowed);

    let other = limiter.try_acquire(&format!("{key}-other"), policy, start).await.expect("decision");
    assert!(other.allowed && other.remaining == 9, "separate keys have separate budgets");

    let rolled = limiter.try_acquire(&key, policy, start + 60_003).await.expect("decision");
    assert!(rolled.allowed, "a minute later the window has rolled");
    let second = limiter.try_acquire(&key, policy, start + 60_003).await.expect("decision");
    assert_eq!(second.remaining, 8, "two events admitted in the same millisecond hold two slots");
    limiter.release(&key, start + 60_003).await.expect("release");
    let after_release = limiter.peek(&key, policy, start + 60_004).await.expect("peek");
    assert_eq!(after_release.remaining, 9, "a release gives back one slot, not both of that millisecond");
    limiter.reset(&key).await.expect("reset");
    assert_eq!(limiter.peek(&key, policy, start + 60_004).await.expect("peek").remaining, 10);
}

#[tokio::test]
async fn the_memory_rate_limiter_honours_the_contract() {
    rate_limits_are_exact_under_concurrency_and_roll(Arc::new(MemoryRateLimiter::new())).await;
}

pub async fn cached_responses_are_served_while_fresh(cache: Arc<dyn ResponseCache>) {
    cache.put("https://sec.example/CIK1.json", b"{\"v\":1}".to_vec(), NOW).await.expect("put");
    assert_eq!(
        cache.get("https://sec.example/CIK1.json", NOW - Duration::hours(1)).await.expect("get"),
        Some(b"{\"v\":1}".to_vec())
    );
    assert_eq!(
        cache.get("https://sec.example/CIK1.json", NOW + Duration::seconds(1)).await.expect("get"),
        None,
        "stale"
    );
    cache.put("https://sec.example/CIK1.json", b"{\"v\":2}".to_vec(), NOW + Duration::hours(2)).await.expect("replace");
    assert_eq!(
        cache.get("https://sec.example/CIK1.json", NOW + Duration::hours(1)).await.expect("get"),
        Some(b"{\"v\":2}".to_vec())
    );
    assert_eq!(cache.get("https://sec.example/unknown", NOW - Duration::days(1)).await.expect("get"), None);

    // Past its capacity the cache drops the oldest entries first.
    let capacity = cache.capacity();
    for n in 0..capacity + 2 {
        let at = NOW + Duration::hours(3) + Duration::seconds(i64::try_from(n).expect("small"));
        cache.put(&format!("prices:test:S{n}"), vec![1], at).await.expect("put");
    }
    let long_ago = NOW - Duration::days(1);
    assert_eq!(cache.get("https://sec.example/CIK1.json", long_ago).await.expect("get"), None, "oldest dropped");
    assert_eq!(cache.get("prices:test:S0", long_ago).await.expect("get"), None);
    assert_eq!(cache.get("prices:test:S1", long_ago).await.expect("get"), None);
    assert!(cache.get("prices:test:S2", long_ago).await.expect("get").is_some());
    let newest = format!("prices:test:S{}", capacity + 1);
    assert!(cache.get(&newest, long_ago).await.expect("get").is_some());
}

#[tokio::test]
async fn the_memory_cache_honours_the_contract() {
    cached_responses_are_served_while_fresh(Arc::new(creditflow::adapters::memory::MemoryResponseCache::new())).await;
}

pub async fn the_corpus_search_finds_any_word_ranked_and_per_owner(store: Arc<dyn DocumentRepository>) {
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let sofr_heavy = store
        .create(new_document(
            alice,
            "SOFR transition memo",
            "SOFR replaced LIBOR. SOFR spreads on leveraged loans widened; SOFR floors matter.",
            "Acme Corp",
            NOW,
        ))
        .await
        .expect("create");
    let sofr_once = store
        .create(new_document(alice, "Globex revolver", "Interest at SOFR plus a margin of 2.00%.", "Globex plc", NOW))
        .await
        .expect("create");
    store
        .create(new_document(alice, "Initech lease", "Rent is payable monthly in advance.", "Initech", NOW))
        .await
        .expect("create");
    store
        .create(new_document(bob, "Bob's SOFR note", "SOFR SOFR SOFR leveraged loans", "Bob Ltd", NOW))
        .await
        .expect("create");

    let terms = ["impact".to_owned(), "SOFR".to_owned(), "leveraged loans?".to_owned()];
    let hits = store.search_corpus(Some(alice), &terms, 10).await.expect("search");
    assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), [sofr_heavy.id, sofr_once.id], "any word, best first");
    assert!(hits[0].rank > hits[1].rank);
    assert!(hits[0].text.starts_with("SOFR replaced LIBOR"), "the current text comes along");
    assert_eq!(hits[0].title, "SOFR transition memo");
    assert_eq!(store.search_corpus(Some(alice), &terms, 1).await.expect("search").len(), 1, "limit");
    assert_eq!(store.search_corpus(None, &terms, 10).await.expect("search").len(), 3, "everyone's");
    let operators = ["' | !:* & (".to_owned()];
    assert!(store.search_corpus(Some(alice), &operators, 10).await.expect("no words, no error").is_empty());
    assert!(store.search_corpus(Some(alice), &["zebra".to_owned()], 10).await.expect("search").is_empty());
}

#[tokio::test]
async fn the_memory_corpus_search_honours_the_contract() {
    the_corpus_search_finds_any_word_ranked_and_per_owner(Arc::new(MemoryDocumentStore::new())).await;
}

fn progress(iterations: u64) -> ResearchProgress {
    ResearchProgress { progress: json!({ "iterations": iterations }), elapsed_ms: iterations * 100 }
}

pub async fn research_runs_are_claimed_once_leased_and_resumed(store: Arc<dyn ResearchRepository>) {
    let lease = std::time::Duration::from_secs(30);
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let mut first = ResearchRun::pending(alice, "SOFR and leveraged loans".into(), Some(7), 5, NOW);
    first.cdm_events = vec![json!({ "kind": "queued" })];
    let second = ResearchRun::pending(bob, "Covenant-lite trends".into(), None, 3, NOW + Duration::seconds(1));
    store.create(second.clone()).await.expect("create");
    store.create(first.clone()).await.expect("create");
    assert_eq!(store.find(first.id).await.expect("find").as_ref(), Some(&first));
    assert_eq!(store.queue_depth(NOW).await.expect("depth"), 2, "both runs wait");

    // Ten workers race for two runs: each run goes to exactly one, oldest first.
    let claims = (0..10).map(|_| {
        let store = store.clone();
        tokio::spawn(async move {
            let worker = WorkerId::new_random();
            (worker, store.claim(worker, NOW + Duration::seconds(2), lease).await.expect("claim"))
        })
    });
    let mut winners = Vec::new();
    for claim in claims {
        if let (worker, Some(run)) = claim.await.expect("join") {
            winners.push((worker, run));
        }
    }
    winners.sort_by_key(|(_, run)| run.created_at);
    assert_eq!(winners.iter().map(|(_, run)| run.id).collect::<Vec<_>>(), [first.id, second.id]);
    assert!(winners.iter().all(|(_, run)| run.status == ResearchStatus::Running && run.attempts == 1));
    let (worker, _) = winners[0];
    let (other_worker, _) = winners[1];

    // Progress is saved by the holder only.
    let at = NOW + Duration::seconds(10);
    store.save_progress(first.id, worker, progress(1), at, lease).await.expect("holder saves");
    assert!(matches!(store.save_progress(first.id, other_worker, progress(9), at, lease).await, Err(LeaseError::Lost)));
    assert!(matches!(store.renew(first.id, other_worker, at, lease).await, Err(LeaseError::Lost)));
    let saved = store.find(first.id).await.expect("find").expect("run");
    assert_eq!((saved.progress.clone(), saved.elapsed_ms), (json!({ "iterations": 1 }), 100));

    // Nothing is claimable while leases hold; once the first lease runs out, another worker resumes it.
    assert_eq!(store.claim(WorkerId::new_random(), at, lease).await.expect("claim"), None);
    assert_eq!(store.queue_depth(at).await.expect("depth"), 0, "both runs are held");
    store.renew(second.id, other_worker, at + Duration::seconds(25), lease).await.expect("renewed");
    assert_eq!(store.queue_depth(at + Duration::seconds(41)).await.expect("depth"), 1, "the first lease ran out");
    let successor = WorkerId::new_random();
    let resumed = store.claim(successor, at + Duration::seconds(41), lease).await.expect("claim").expect("expired run");
    assert_eq!((resumed.id, resumed.attempts), (first.id, 2));
    assert_eq!(resumed.progress, json!({ "iterations": 1 }), "resumes from the saved progress");
    assert!(matches!(
        store.save_progress(first.id, worker, progress(2), at + Duration::seconds(42), lease).await,
        Err(LeaseError::Lost)
    ));

    // The successor finishes it; the closing event is appended; then nobody can touch it.
    let done = at + Duration::seconds(50);
    let finished = store
        .finish(
            first.id,
            successor,
            ResearchOutcome::Completed { answer: "SOFR floors [1]".into() },
            progress(3),
            json!({ "kind": "completed" }),
            done,
        )
        .await
        .expect("finish");
    assert_eq!(finished.status, ResearchStatus::Completed);
    assert_eq!((finished.answer.as_deref(), finished.completed_at), (Some("SOFR floors [1]"), Some(done)));
    assert_eq!(finished.cdm_events, [json!({ "kind": "queued" }), json!({ "kind": "completed" })]);
    assert_eq!(finished.elapsed_ms, 300);
    assert_eq!(store.find(first.id).await.expect("find").as_ref(), Some(&finished));
    assert!(matches!(store.renew(first.id, successor, done, lease).await, Err(LeaseError::Lost)));
    assert_eq!(
        store.claim(WorkerId::new_random(), done + Duration::hours(1), lease).await.expect("claim").map(|r| r.id),
        Some(second.id),
        "only the unfinished run is claimable again"
    );

    let failed = store
        .finish(
            second.id,
            other_worker,
            ResearchOutcome::Failed { error: "no source".into() },
            progress(0),
            json!({ "kind": "failed" }),
            done,
        )
        .await;
    assert!(matches!(failed, Err(LeaseError::Lost)), "the lease moved to the last claimer");
    assert!(matches!(
        store
            .finish(
                ResearchId::new_random(),
                successor,
                ResearchOutcome::Failed { error: "x".into() },
                progress(0),
                json!({}),
                done
            )
            .await,
        Err(LeaseError::Lost)
    ));

    // Listing: owner, deal, newest first, pages.
    let third = ResearchRun::pending(alice, "Third".into(), Some(7), 1, NOW + Duration::seconds(5));
    store.create(third.clone()).await.expect("create");
    let page = |owner, deal_id, page, limit| RunQuery { owner, deal_id, page, limit };
    let (runs, total) = store.list(&page(Some(alice), None, 1, 10)).await.expect("list");
    assert_eq!((runs.iter().map(|r| r.id).collect::<Vec<_>>(), total), (vec![third.id, first.id], 2));
    let (runs, total) = store.list(&page(None, Some(7), 2, 1)).await.expect("list");
    assert_eq!((runs.iter().map(|r| r.id).collect::<Vec<_>>(), total), (vec![first.id], 2));
    assert_eq!(store.list(&page(None, None, 1, 10)).await.expect("list").1, 3);
}

#[tokio::test]
async fn the_memory_research_queue_honours_the_contract() {
    research_runs_are_claimed_once_leased_and_resumed(Arc::new(MemoryResearchStore::new())).await;
}

fn said(role: &str, content: &str, minutes: i64) -> StoredMessage {
    StoredMessage {
        role: role.into(),
        content: content.into(),
        workflow_launched: None,
        workflow_result: None,
        at: NOW + Duration::minutes(minutes),
    }
}

pub async fn chat_sessions_are_owned_and_append_in_order(store: Arc<dyn ConversationRepository>) {
    let (owner, stranger) = (UserId::new_random(), UserId::new_random());
    let first = vec![said("user", "Analyse Acme", 0), said("assistant", "Which facility?", 0)];
    store.append("session-a", owner, first.clone(), NOW).await.expect("first append creates the session");
    let launched = StoredMessage {
        workflow_launched: Some("quant".into()),
        workflow_result: Some(json!({"analysis_id": Uuid::new_v4().to_string(), "status": "pending"})),
        ..said("assistant", "Running the quant analysis.", 1)
    };
    let second = vec![said("user", "The term loan", 1), launched];
    store.append("session-a", owner, second.clone(), NOW + Duration::minutes(1)).await.expect("second append");

    let session = store.find("session-a").await.expect("find").expect("the session exists");
    assert_eq!((session.id.as_str(), session.owner), ("session-a", owner));
    assert_eq!(session.messages, [first.clone(), second.clone()].concat(), "order and workflow fields kept");
    assert_eq!((session.created_at, session.updated_at), (NOW, NOW + Duration::minutes(1)));

    assert!(matches!(
        store.append("session-a", stranger, vec![said("user", "Let me in", 2)], NOW + Duration::minutes(2)).await,
        Err(AppendError::OwnedByAnother)
    ));
    let unchanged = store.find("session-a").await.expect("find").expect("the session exists");
    assert_eq!(unchanged, session, "the refused append stored nothing");
    assert_eq!(store.find("no-such-session").await.expect("find"), None);

    let appends = (0..10).map(|call| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let pair =
                vec![said("user", &format!("question {call}"), 3), said("assistant", &format!("answer {call}"), 3)];
            store.append("session-b", owner, pair, NOW + Duration::minutes(3)).await
        })
    });
    for append in appends.collect::<Vec<_>>() {
        append.await.expect("join").expect("concurrent append");
    }
    let busy = store.find("session-b").await.expect("find").expect("the session exists");
    assert_eq!(busy.messages.len(), 20);
    let mut calls: Vec<String> = busy
        .messages
        .chunks(2)
        .map(|pair| {
            let call = pair[0].content.strip_prefix("question ").expect("a question opens each pair");
            assert_eq!(pair[1].content, format!("answer {call}"), "each call's pair is adjacent and in order");
            call.to_owned()
        })
        .collect();
    calls.sort();
    calls.dedup();
    assert_eq!(calls.len(), 10, "every call's pair is stored once");

    let last_three = store.recent("session-b", 3).await.expect("recent").expect("the session exists");
    assert_eq!(last_three.messages, busy.messages[17..], "the last messages, oldest first");
    assert_eq!((last_three.id.as_str(), last_three.owner), ("session-b", owner));
    let bare = store.recent("session-a", 0).await.expect("recent").expect("the session exists");
    assert_eq!((bare.owner, bare.messages.len(), bare.updated_at), (owner, 0, NOW + Duration::minutes(1)));
    let all = store.recent("session-a", 100).await.expect("recent").expect("the session exists");
    assert_eq!(all, session, "a limit above the length gives every message");
    assert_eq!(store.recent("no-such-session", 10).await.expect("recent"), None);

    // Appending to an existing session only: a missing or foreign session is refused, none is created.
    let later = NOW + Duration::minutes(4);
    let pair = vec![said("user", "thanks", 4), said("assistant", "You are welcome.", 4)];
    store.append_existing("session-a", owner, pair.clone(), later).await.expect("the owner's session");
    let extended = store.find("session-a").await.expect("find").expect("the session exists");
    assert_eq!(extended.messages, [first, second, pair.clone()].concat());
    assert_eq!(extended.updated_at, later);
    assert!(matches!(
        store.append_existing("session-a", stranger, pair.clone(), later).await,
        Err(AppendError::NotFound)
    ));
    assert!(matches!(
        store.append_existing("no-such-session", owner, pair.clone(), later).await,
        Err(AppendError::NotFound)
    ));
    assert_eq!(store.find("no-such-session").await.expect("find"), None, "nothing was created");
    assert_eq!(store.find("session-a").await.expect("find").expect("exists"), extended, "nothing was added");
    let concurrent = (0..6).map(|call| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let pair = vec![said("user", &format!("q {call}"), 5), said("assistant", &format!("a {call}"), 5)];
            store.append_existing("session-b", owner, pair, NOW + Duration::minutes(5)).await
        })
    });
    for append in concurrent.collect::<Vec<_>>() {
        append.await.expect("join").expect("concurrent append to an existing session");
    }
    let busier = store.find("session-b").await.expect("find").expect("the session exists");
    assert_eq!(busier.messages.len(), 32);
    for pair in busier.messages[20..].chunks(2) {
        assert_eq!(pair[0].content.replace("q ", "a "), pair[1].content, "pairs stay together");
    }
}

pub async fn chat_sessions_are_listed_latest_activity_first_with_their_openings(
    store: Arc<dyn ConversationRepository>,
) {
    let (owner, other) = (UserId::new_random(), UserId::new_random());
    let at = |minutes: i64| NOW + Duration::minutes(minutes);
    let opened = vec![said("user", "What is the margin?", 0), said("assistant", "2.25% over SOFR.", 0)];
    store.append("s-a", owner, opened, at(0)).await.expect("append");
    store.create("s-b", owner, at(1)).await.expect("an empty session");
    let launch = StoredMessage {
        workflow_launched: Some("research".into()),
        workflow_result: Some(json!({"research_id": Uuid::new_v4().to_string(), "status": "pending"})),
        ..said("assistant", "Research queued.", 2)
    };
    store.append("s-c", owner, vec![launch], at(2)).await.expect("a launch only");
    // The user's first message comes after the assistant's, and is longer than a store hands over.
    let long = format!("Analyse Société Générale {}", "ÿ".repeat(OPENING_CHARS));
    store.append("s-d", owner, vec![said("assistant", "Hello.", 3), said("user", &long, 3)], at(3)).await.expect("d");
    for id in ["s-e", "s-f"] {
        store.append(id, owner, vec![said("user", id, 4)], at(4)).await.expect("same time");
    }
    store.append("s-x", other, vec![said("user", "Someone else's", 9)], at(9)).await.expect("another owner's");
    let later = vec![said("user", "And the maturity?", 5), said("assistant", "2030.", 5)];
    store.append_existing("s-a", owner, later, at(5)).await.expect("the latest activity");

    let list = |owner: Option<UserId>, page: u32, limit: u32| {
        let store = Arc::clone(&store);
        async move {
            let (sessions, total) =
                store.list(&SessionQuery { owner, deal_id: None, page, limit }).await.expect("list");
            (sessions.into_iter().map(|s| s.id).collect::<Vec<_>>(), total)
        }
    };
    let ids = |names: &[&str]| names.iter().map(|name| (*name).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        list(Some(owner), 1, 50).await,
        (ids(&["s-a", "s-f", "s-e", "s-d", "s-c", "s-b"]), 6),
        "latest activity first, ties by id descending"
    );
    assert_eq!(list(Some(owner), 2, 4).await, (ids(&["s-c", "s-b"]), 6));
    assert_eq!(list(Some(owner), 3, 4).await, (Vec::new(), 6), "past the end: empty, with the total");
    assert_eq!(list(Some(other), 1, 50).await, (ids(&["s-x"]), 1), "only the owner's");
    assert_eq!(list(Some(UserId::new_random()), 1, 50).await, (Vec::new(), 0));
    assert_eq!(list(None, 1, 2).await, (ids(&["s-x", "s-a"]), 7), "everyone's");

    let (sessions, _) =
        store.list(&SessionQuery { owner: Some(owner), deal_id: None, page: 1, limit: 50 }).await.expect("list");
    let by_id = |id: &str| sessions.iter().find(|s| s.id == id).expect(id).clone();
    let a = by_id("s-a");
    assert_eq!((a.owner, a.created_at, a.updated_at), (owner, at(0), at(5)));
    assert_eq!((a.message_count, a.opening.as_deref()), (4, Some("What is the margin?")), "the first user message");
    let b = by_id("s-b");
    assert_eq!((b.created_at, b.updated_at, b.message_count, b.opening), (at(1), at(1), 0, None));
    let c = by_id("s-c");
    assert_eq!((c.message_count, c.opening), (1, None), "a launch only has no user message");
    let d = by_id("s-d");
    let expected: String = long.chars().take(OPENING_CHARS).collect();
    assert_eq!((d.message_count, d.opening), (2, Some(expected)), "the user's, cut to OPENING_CHARS characters");

    store.append_existing("s-b", owner, vec![said("user", "Now a question", 6)], at(6)).await.expect("append");
    let (first, _) = list(Some(owner), 1, 1).await;
    assert_eq!(first, ids(&["s-b"]), "new activity moves a session to the top");
}

#[tokio::test]
async fn the_memory_conversation_store_honours_the_contract() {
    chat_sessions_are_owned_and_append_in_order(Arc::new(MemoryConversationStore::new())).await;
    chat_sessions_are_listed_latest_activity_first_with_their_openings(Arc::new(MemoryConversationStore::new())).await;
}

fn person(owner: UserId, name: &str, deal_id: Option<i64>, created: OffsetDateTime) -> PeopleRecord {
    PeopleRecord {
        id: PeopleId::new_random(),
        owner,
        person_name: name.into(),
        context: Some(format!("{name}, CFO of Acme")),
        identity: PersonIdentity::new(Some("Acme Corp"), Some("CFO"), Some("London")).expect("valid identity"),
        deal_id,
        session_id: Some("session-people".into()),
        result: json!({
            "person_name": name,
            "research_summary": "Twenty years in corporate finance.",
            "psychometric_profile": { "conscientiousness": 0.8 },
            "sources": ["https://example.com/profile"],
        }),
        cdm_events: vec![json!({ "@type": "cdm.event.workflow.WorkflowStep", "step": "PersonResearchCompleted" })],
        created_at: created,
        completed_at: created + Duration::seconds(40),
    }
}

pub async fn people_results_are_stored_found_and_listed(store: Arc<dyn PeopleRepository>) {
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let first = person(alice, "Ada Lovelace", Some(7), NOW);
    let second = PeopleRecord {
        context: None,
        identity: PersonIdentity::default(),
        session_id: None,
        ..person(alice, "Alan Turing", None, NOW + Duration::minutes(1))
    };
    let theirs = person(bob, "Grace Hopper", Some(7), NOW + Duration::minutes(2));
    // Created at the same instant as `second`: the tie is broken by id, highest first.
    let twin = person(alice, "Edsger Dijkstra", None, NOW + Duration::minutes(1));
    for record in [&first, &second, &theirs, &twin] {
        store.create(record.clone()).await.expect("create");
    }

    assert_eq!(store.find(first.id).await.expect("find").as_ref(), Some(&first), "every field kept");
    assert_eq!(store.find(second.id).await.expect("find").as_ref(), Some(&second), "absent fields stay absent");
    assert_eq!(store.find(PeopleId::new_random()).await.expect("find"), None);

    let ids = |records: &[PeopleRecord]| records.iter().map(|r| r.id).collect::<Vec<_>>();
    let (later, earlier) = if twin.id > second.id { (twin.id, second.id) } else { (second.id, twin.id) };
    let query = |owner, deal_id, page, limit| RunQuery { owner, deal_id, page, limit };
    let (all, total) = store.list(&query(None, None, 1, 10)).await.expect("list");
    assert_eq!((ids(&all), total), (vec![theirs.id, later, earlier, first.id], 4), "every owner's, newest first");
    let (alices, total) = store.list(&query(Some(alice), None, 1, 10)).await.expect("list");
    assert_eq!((ids(&alices), total), (vec![later, earlier, first.id], 3), "another owner's is not listed");
    let (bobs, total) = store.list(&query(Some(bob), None, 1, 10)).await.expect("list");
    assert_eq!((ids(&bobs), total), (vec![theirs.id], 1));
    let (deal, total) = store.list(&query(None, Some(7), 1, 10)).await.expect("list");
    assert_eq!((ids(&deal), total), (vec![theirs.id, first.id], 2));
    let (alices_deal, total) = store.list(&query(Some(alice), Some(7), 1, 10)).await.expect("list");
    assert_eq!((ids(&alices_deal), total), (vec![first.id], 1));
    let (none, total) = store.list(&query(Some(alice), Some(8), 1, 10)).await.expect("list");
    assert_eq!((none.len(), total), (0, 0));

    let (page_one, total) = store.list(&query(Some(alice), None, 1, 2)).await.expect("list");
    assert_eq!((ids(&page_one), total), (vec![later, earlier], 3));
    let (page_two, total) = store.list(&query(Some(alice), None, 2, 2)).await.expect("list");
    assert_eq!((ids(&page_two), total), (vec![first.id], 3));
    let (beyond, total) = store.list(&query(Some(alice), None, 3, 2)).await.expect("list");
    assert_eq!((beyond.len(), total), (0, 3), "a page past the end is empty but still counts");
}

#[tokio::test]
async fn the_memory_people_store_honours_the_contract() {
    people_results_are_stored_found_and_listed(Arc::new(MemoryPeopleStore::new())).await;
}

pub fn statement_set(
    owner: UserId,
    borrower: &str,
    deal_id: Option<i64>,
    created: OffsetDateTime,
) -> StatementSetRecord {
    let input: FinancialsInput = serde_json::from_value(json!({
        "currency": "EUR",
        "unit": 1000,
        "periods": [{
            "period_end": "2023-12-31", "months": 12,
            "revenue": 1200.5, "operating_income": -15.0, "interest_expense": 30.0, "net_income": -40.0,
            "cash": 80.0, "current_assets": 400.0, "total_assets": 1000.0,
            "current_liabilities": 250.0, "total_liabilities": 600.0, "total_debt": 350.0, "total_equity": 400.0
        }]
    }))
    .expect("input");
    let mut origin = SetOrigin::json_body();
    origin.format = "xlsx".into();
    origin.file_name = Some("statements.xlsx".into());
    origin.unrecognised = json!([{ "row": 14, "label": "Adjusted EBITDA" }]);
    origin.assumptions = vec!["column C: a bare date is taken as a fiscal year".into()];
    StatementSetRecord {
        id: StatementSetId::new_random(),
        owner,
        borrower_name: borrower.into(),
        deal_id,
        origin,
        statements: check_input(&input).expect("valid"),
        created_at: created,
    }
}

pub async fn statement_sets_are_kept_whole_and_the_latest_of_a_deal_found(store: Arc<dyn StatementSetRepository>) {
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let older = statement_set(alice, "Northwind GmbH", Some(41), NOW);
    let newer = statement_set(alice, "Northwind GmbH", Some(41), NOW + Duration::minutes(5));
    let bobs = statement_set(bob, "Northwind GmbH", Some(41), NOW + Duration::minutes(9));
    let elsewhere = statement_set(alice, "Contoso", None, NOW + Duration::minutes(20));
    for record in [&older, &newer, &bobs, &elsewhere] {
        store.create(record.clone(), DocumentQuota::UNLIMITED).await.expect("create");
    }
    assert_eq!(store.find(older.id).await.expect("find").as_ref(), Some(&older), "every figure and source kept");
    assert_eq!(store.find(StatementSetId::new_random()).await.expect("find"), None);
    let latest = |owner| store.latest_for_deal(41, owner);
    assert_eq!(latest(Some(alice)).await.expect("latest").map(|r| r.id), Some(newer.id));
    assert_eq!(latest(None).await.expect("latest").map(|r| r.id), Some(bobs.id), "any owner's for administrators");
    assert_eq!(store.latest_for_deal(42, None).await.expect("latest"), None);
}

#[tokio::test]
async fn the_memory_statement_set_store_honours_the_contract() {
    statement_sets_are_kept_whole_and_the_latest_of_a_deal_found(Arc::new(MemoryStatementSetStore::new())).await;
}

pub async fn statement_sets_share_the_owners_quota_with_documents_and_deleting_gives_it_back(
    documents: Arc<dyn DocumentRepository>,
    sets: Arc<dyn StatementSetRepository>,
) {
    let (alice, bob) = (UserId::new_random(), UserId::new_random());
    let set_bytes = statement_set(alice, "Northwind GmbH", None, NOW).stored_bytes();
    // Room for the document's 100 bytes and one set and a half.
    let quota = DocumentQuota { max_documents: 10, max_statement_sets: 2, max_bytes: 100 + set_bytes * 3 / 2 };
    let mut document = new_document(alice, "Agreement", &"x".repeat(100), "Acme Corp", NOW);
    document.first_version.quota = quota;
    documents.create(document).await.expect("the document fits");
    let first = statement_set(alice, "Northwind GmbH", Some(5), NOW);
    sets.create(first.clone(), quota).await.expect("one set fits beside the document");

    match sets.create(statement_set(alice, "Northwind GmbH", Some(5), NOW), quota).await {
        Err(StatementSetWriteError::QuotaExceeded(exceeded)) => assert_eq!(
            (exceeded.kind, exceeded.used, exceeded.requested),
            (QuotaKind::Bytes, 100 + set_bytes, set_bytes),
            "the set's bytes are counted with the document's"
        ),
        other => panic!("expected the byte quota, got {other:?}"),
    }
    sets.create(statement_set(bob, "Contoso", None, NOW), quota).await.expect("bob has his own quota");

    // Deleting gives back exactly what the set was counted for; the next one fits again.
    let deletion = Deletion { actor: alice, at: NOW + Duration::minutes(1) };
    let entry = sets.delete(first.id, deletion).await.expect("delete").expect("it was there");
    assert_eq!(entry.freed, StorageUsage::new_statement_set(set_bytes));
    assert_eq!((entry.kind, entry.owner, entry.deleted_by), (DeletedKind::StatementSet, alice, alice));
    assert_eq!(entry.summary["borrower_name"], "Northwind GmbH");
    assert_eq!(sets.find(first.id).await.expect("find"), None);
    assert_eq!(sets.latest_for_deal(5, None).await.expect("latest"), None);
    assert!(sets.delete(first.id, deletion).await.expect("delete again").is_none(), "gone is gone");
    sets.create(statement_set(alice, "Northwind GmbH", None, NOW), quota).await.expect("room again");

    // Eight sets at once with room for one more by count: exactly one gets in.
    let roomy = DocumentQuota { max_bytes: u64::MAX, ..quota };
    let uploads = (0..8).map(|_| {
        let sets = sets.clone();
        let record = statement_set(alice, "Northwind GmbH", None, NOW);
        tokio::spawn(async move { sets.create(record, roomy).await })
    });
    let mut stored = 0;
    for upload in uploads {
        match upload.await.expect("task") {
            Ok(()) => stored += 1,
            Err(StatementSetWriteError::QuotaExceeded(exceeded)) => {
                assert_eq!((exceeded.kind, exceeded.limit), (QuotaKind::StatementSets, 2));
            }
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(stored, 1, "the quota admits exactly the set that fits");
}

pub async fn a_deleted_document_goes_whole_leaves_its_audit_entry_and_gives_its_quota_back(
    documents: Arc<dyn DocumentRepository>,
    trail: Arc<dyn DeletionTrail>,
) {
    let (alice, admin) = (UserId::new_random(), UserId::new_random());
    let quota = DocumentQuota { max_documents: 1, max_statement_sets: 1, max_bytes: 10_000 };
    let pdf = OriginalFile::new(MediaType::Pdf, bytes::Bytes::from(b"%PDF-1.7 binary".repeat(10)));
    let mut document = new_document(alice, "Uploaded", "CREDIT AGREEMENT\n\nSection 1", "Acme Corp", NOW);
    document.first_version.quota = quota;
    document.first_version.original = Some(pdf.clone());
    let created = documents.create(document.clone()).await.expect("create");
    let mut second = version("second text", "Acme Corp", alice, NOW);
    second.quota = quota;
    let event = review(Some(ReviewState::Draft), ReviewState::Draft, "new_version", alice, NOW);
    let created = documents.add_version(created.id, second, event).await.expect("add version");
    match documents.create(document.clone()).await {
        Err(DocumentChangeError::QuotaExceeded(exceeded)) => assert_eq!(exceeded.kind, QuotaKind::Documents),
        other => panic!("expected the count quota, got {other:?}"),
    }

    let deletion = Deletion { actor: admin, at: NOW + Duration::minutes(3) };
    let entry = documents.delete(created.id, deletion).await.expect("delete").expect("it was there");

    let bytes = created.versions.iter().map(|v| v.stored_bytes()).sum::<u64>();
    assert_eq!(entry.freed, StorageUsage::new_document(bytes));
    assert_eq!(
        (entry.kind, entry.record_id.clone(), entry.owner, entry.deleted_by),
        (DeletedKind::Document, created.id.to_string(), alice, admin)
    );
    assert_eq!(entry.summary["versions"].as_array().map(Vec::len), Some(2));
    assert_eq!(entry.summary["versions"][0]["original"]["sha256"], pdf.info().sha256);
    assert_eq!(entry.summary["history"].as_array().map(Vec::len), Some(2), "create and new_version");
    assert_eq!(documents.find(created.id).await.expect("find"), None);
    assert_eq!(documents.original(created.id, 1).await.expect("original"), None, "its file went with it");
    assert_eq!(documents.list(&query(Some(alice), None, 1, 50)).await.expect("list").total, 0);
    assert!(documents.delete(created.id, deletion).await.expect("again").is_none());
    let (listed, total) = trail.list(1, 50).await.expect("trail");
    assert_eq!((total, listed), (1, vec![entry]), "the audit trail keeps the entry as returned");
    documents.create(document).await.expect("the quota was given back");
}

#[tokio::test]
async fn the_memory_stores_share_one_quota_and_one_audit_trail() {
    let ledger = Arc::new(MemoryStorageLedger::new());
    statement_sets_share_the_owners_quota_with_documents_and_deleting_gives_it_back(
        Arc::new(MemoryDocumentStore::sharing(ledger.clone())),
        Arc::new(MemoryStatementSetStore::sharing(ledger.clone())),
    )
    .await;
    let ledger = Arc::new(MemoryStorageLedger::new());
    a_deleted_document_goes_whole_leaves_its_audit_entry_and_gives_its_quota_back(
        Arc::new(MemoryDocumentStore::sharing(ledger.clone())),
        ledger,
    )
    .await;
}
