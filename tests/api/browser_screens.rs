//! The console's screens, used as an analyst and an administrator use them, in headless Chromium:
//! password and wallet sign-in with a quiet token refresh, a chat launch followed to its end (and the
//! conversations listed by the API, one started outside the console included, older ones on demand,
//! another user's read-only for an administrator), an
//! analysis streamed and charted, an agreement uploaded with each field shown where the text says
//! it, the review workflow up to an administrator's approval (on both stores), a title made of
//! markup shown as text, and the administration of roles.

use creditflow::Adapters;
use creditflow::domain::auth::ethereum::sign_message;
use serde_json::{Value, json};

use crate::browser::{Browser, SCREENSHOTS, create_user};
use crate::chatbot::with_market_data;
use crate::documents::AGREEMENT;
use crate::helpers::*;
use crate::research::{app_on_web_around, fake_web, research_vars};
use crate::wallet::wallet;

/// No access or refresh token may be in the page's storage or cookies (JWTs start with `eyJ`); the
/// one entry allowed is each account's device token, which cannot sign anyone in by itself.
const STORED_TOKENS: &str = "const kept = (storage) => Object.entries({ ...storage }) \
     .filter(([key]) => !key.startsWith('creditflow.device.')); \
     return JSON.stringify(kept(localStorage)) + JSON.stringify(kept(sessionStorage)) + document.cookie;";

#[tokio::test]
async fn an_analyst_signs_in_refreshes_quietly_and_signs_out() {
    let app = spawn_app().await;
    let email = create_user(&app, "analyst").await;
    let browser = Browser::open(&app, "sign-in").await;
    browser.screenshot("form").await;

    browser.type_into("input[name=email]", &email).await;
    browser.type_into("input[name=password]", "not the password at all").await;
    browser.click("form button[type=submit]").await;
    browser.wait_for(".error").await;
    let refusal = browser.text(".error").await;
    assert!(refusal.contains("nvalid e-mail or password"), "{refusal}");
    assert!(!refusal.contains('{'), "errors are words, not JSON: {refusal}");
    browser.screenshot("refused").await;

    browser.sign_in(&email, PASSWORD).await;
    browser.wait_for_text("#view h1", "Chat").await;
    assert_eq!(browser.text("#who-role").await, "analyst");
    assert!(
        !browser.run(STORED_TOKENS, vec![]).await.as_str().unwrap_or_default().contains("eyJ"),
        "tokens stay in memory"
    );
    browser.screenshot("signed-in").await;

    // The access token expires (15 minutes); the next call is refreshed without a word to the analyst.
    app.clock.advance(time::Duration::minutes(20));
    browser.go("#/documents").await;
    browser.wait_for_text("#view", "No documents yet.").await;
    assert!(
        browser.run("return document.querySelector('input[name=password]') === null;", vec![]).await == json!(true)
    );

    browser.sign_out().await;
    browser.wait_for_text("#notice", "You are signed out.").await;

    // Someone guesses the password from this same address until the account is locked out for it;
    // the analyst still gets in from this browser, which the service knows by its device token.
    let device = browser.run(&format!("return localStorage.getItem('creditflow.device.{email}');"), vec![]).await;
    assert!(device.as_str().is_some_and(|token| !token.is_empty()), "the device is remembered: {device}");
    let guess = json!({ "email": email, "password": "a guess that is wrong" });
    let mut refused = 0;
    while app.post("/api/auth/login", None, &guess).await.status() != 429 {
        refused += 1;
        assert!(refused < 20, "guessing is never throttled");
    }
    let without_device = app.post("/api/auth/login", None, &json!({ "email": email, "password": PASSWORD })).await;
    assert_eq!(without_device.status(), 429, "the right password from an unknown device waits");
    browser.sign_in(&email, PASSWORD).await;
    browser.wait_for_text("#view h1", "Documents").await;
    browser.screenshot("known-device").await;
    browser.close().await;
}

/// An EIP-1193 provider whose `personal_sign` waits for the test to sign in Rust.
const TEST_PROVIDER: &str = r#"
const account = arguments[0];
window.__signRequests = [];
window.ethereum = {
  request: ({ method, params }) => {
    if (method === 'eth_requestAccounts') return Promise.resolve([account]);
    if (method === 'personal_sign') {
      return new Promise((resolve, reject) => window.__signRequests.push({ message: params[0], account: params[1], resolve, reject }));
    }
    return Promise.reject(new Error(`unsupported ${method}`));
  },
};
"#;

#[tokio::test]
async fn a_wallet_signs_in_and_an_administrator_promotes_it() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let browser = Browser::open(&app, "wallet").await;
    browser.run(TEST_PROVIDER, vec![json!(address)]).await;
    browser.click("#wallet-sign-in").await;

    let request =
        browser.until("the wallet to be asked to sign", "return window.__signRequests[0] ?? null;", vec![]).await;
    assert_eq!(request["account"], address);
    let hex_message = request["message"].as_str().expect("message").trim_start_matches("0x");
    let message = hex::decode(hex_message).expect("the message is sent to the wallet as hex");
    let text = String::from_utf8(message.clone()).expect("utf-8");
    assert!(text.starts_with("localhost:3000 wants you to sign in with your Ethereum account:"), "{text}");
    browser.screenshot("asked-to-sign").await;
    let signature = sign_message(&key, &message);
    browser.run("window.__signRequests[0].resolve(arguments[0]);", vec![json!(signature)]).await;

    browser.wait_for_text("#who-name", &address).await;
    assert_eq!(browser.text("#who-role").await, "viewer");
    browser.go("#/documents").await;
    browser.wait_for_text("#view", "Viewers read documents").await;
    browser.screenshot("signed-in-viewer").await;
    browser.sign_out().await;

    browser.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    browser.go("#/admin").await;
    let row = format!("select[aria-label='Role of {address}']");
    browser.wait_for(&row).await;
    browser.run(
        "const s = document.querySelector(arguments[0]); s.value = 'analyst'; s.dispatchEvent(new Event('change'));",
        vec![json!(row)],
    )
    .await;
    browser
        .run("document.querySelector(arguments[0]).closest('tr').querySelector('button').click();", vec![json!(row)])
        .await;
    browser.wait_for_text("#view td", "Saved: analyst.").await;
    browser.screenshot("admin").await;

    // A new password user, made on the same screen: listed, and able to sign in with the role given.
    let created = format!("made-in-the-console-{}@example.com", uuid::Uuid::new_v4().simple());
    browser.type_into("form input[name=email]", &created).await;
    browser.type_into("form input[name=password]", PASSWORD).await;
    browser.run("document.querySelector('form select[name=role]').value = 'viewer';", vec![]).await;
    browser.click_labelled("Create the user").await;
    browser.wait_for_text("#view", &format!("Created {created} (viewer).")).await;
    browser.wait_for_text("#view table", &created).await;
    browser.screenshot("admin-created").await;
    browser.close().await;

    let admin = app.admin_token().await;
    let users: Value = app.get("/api/admin/users", Some(&admin)).await.json().await.expect("json");
    let promoted = users["users"].as_array().expect("users").iter().find(|u| u["wallet_address"] == address.as_str());
    assert_eq!(promoted.expect("the wallet's user")["role"], "analyst");
    let signed_in: Value = app
        .post("/api/auth/login", None, &json!({ "email": created, "password": PASSWORD }))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(signed_in["user"]["role"], "viewer", "{signed_in}");
}

/// Research asked on its own screen is followed on the run's event stream until the answer.
#[tokio::test]
async fn a_research_question_is_followed_on_its_event_stream_until_the_answer() {
    let web = fake_web(std::time::Duration::from_millis(60)).await;
    let app = app_on_web_around(with_market_data(), &research_vars(&web)).await;
    let email = create_user(&app, "analyst").await;
    let browser = Browser::open(&app, "research").await;
    browser.sign_in(&email, PASSWORD).await;
    browser.go("#/research").await;
    browser.wait_for("textarea[name=query]").await;
    browser.type_into("textarea[name=query]", "What is the impact of SOFR on leveraged loans?").await;
    browser.run("document.querySelector('input[name=max_iterations]').value = '2';", vec![]).await;
    browser.click_labelled("Start the research").await;
    browser.wait_for("#question").await;
    browser.screenshot("running").await;
    browser.wait_for(".answer a.citation").await;
    assert!(browser.text("#question").await.contains("SOFR"));
    let streamed = browser
        .run("return performance.getEntriesByType('resource').some((e) => e.name.endsWith('/events'));", vec![])
        .await;
    assert_eq!(streamed, json!(true), "the run was followed on its event stream");
    browser.screenshot("answered").await;
    browser.close().await;
}

#[tokio::test]
async fn a_chat_launch_is_followed_until_it_completes_and_links_to_its_result() {
    let web = fake_web(std::time::Duration::from_millis(5)).await;
    let app = app_on_web_around(with_market_data(), &research_vars(&web)).await;
    let email = create_user(&app, "analyst").await;
    let browser = Browser::open(&app, "chat").await;
    browser.sign_in(&email, PASSWORD).await;
    browser.wait_for("textarea[name=message]").await;
    browser.screenshot("empty").await;

    browser.type_into("textarea[name=message]", "research the impact of SOFR on leveraged loans").await;
    browser.click_labelled("Send").await;
    browser.wait_for(".run-card").await;
    browser.screenshot("launched").await;
    browser
        .until(
            "the research card to complete",
            "return document.querySelector('.run-card[data-status=completed]') !== null;",
            vec![],
        )
        .await;
    let streamed = browser
        .run("return performance.getEntriesByType('resource').some((e) => e.name.endsWith('/events'));", vec![])
        .await;
    assert_eq!(streamed, json!(true), "the card followed the run's event stream");
    browser.wait_for_text(".session-list a", "research the impact of SOFR").await;
    browser.screenshot("completed").await;
    browser.screenshot_at(800, "completed-800px").await;

    browser.click_labelled("Open the result").await;
    browser.wait_for(".answer a.citation").await;
    let citation = browser.run("return document.querySelector('.answer a.citation').href;", vec![]).await;
    assert!(citation.as_str().is_some_and(|href| href.starts_with("http://127.0.0.1:")), "{citation}");
    browser.wait_for_text("#stats-heading", "Statistics").await;
    assert!(browser.run("return document.querySelectorAll('.sources li').length;", vec![]).await.as_u64() >= Some(1));
    browser.screenshot("research").await;
    browser.run("document.getElementById('sources-heading').scrollIntoView();", vec![]).await;
    browser.screenshot("research-sources").await;

    // A quantitative launch completes within the turn; its card links to the analysis.
    browser.go("#/chat").await;
    browser.type_into("textarea[name=message]", &format!("analyse Apple Inc{}", fantoccini::key::Key::Enter)).await;
    browser
        .until(
            "two completed cards",
            "return document.querySelectorAll('.run-card[data-status=completed]').length === 2;",
            vec![],
        )
        .await;
    browser.screenshot("analysis-launched").await;
    browser.run("[...document.querySelectorAll('.run-link')].at(-1).click();", vec![]).await;
    browser.wait_for("svg.chart").await;

    // A reload forgets the tokens; signed in again, the conversation is still listed and opens.
    browser.client.refresh().await.expect("reload");
    browser.wait_for("input[name=email]").await;
    browser.watch_the_policy().await;
    browser.sign_in(&email, PASSWORD).await;
    browser.go("#/chat").await;
    browser.wait_for_text(".session-list a", "research the impact of SOFR").await;
    browser
        .until(
            "the two cards of the conversation",
            "return document.querySelectorAll('.run-card[data-status=completed]').length === 2;",
            vec![],
        )
        .await;

    // A conversation started elsewhere (here straight through the API) is listed too, and, being
    // the most recently active, is the one the chat opens; the earlier one is a click away.
    let token = access_token(&app.sign_in(&email, PASSWORD).await);
    app.clock.advance(time::Duration::minutes(1));
    let turn = json!({ "message": "what can you do? (asked through the API)" });
    assert_eq!(app.post("/api/digitizer-chatbot/chat", Some(&token), &turn).await.status(), 200);
    browser.go("#/chat").await;
    browser.wait_for_text(".session-list a[aria-current]", "asked through the API").await;
    browser.wait_for_text(".message.from-user .text", "asked through the API").await;
    let listed = browser
        .run("return [...document.querySelectorAll('.session-list a')].map((a) => a.textContent);", vec![])
        .await;
    assert_eq!(
        listed,
        json!(["what can you do? (asked through the API)", "research the impact of SOFR on leveraged loans"]),
        "the latest activity first"
    );
    browser.screenshot("listed-from-the-api").await;
    browser.click_labelled("research the impact of SOFR on leveraged loans").await;
    browser.wait_for_text(".session-list a[aria-current]", "research the impact of SOFR").await;
    browser
        .until(
            "the two cards of the earlier conversation",
            "return document.querySelectorAll('.run-card[data-status=completed]').length === 2;",
            vec![],
        )
        .await;
    assert_eq!(
        browser
            .run(
                "return Object.keys(localStorage).filter((key) => !key.startsWith('creditflow.device.')).length;",
                vec![]
            )
            .await,
        json!(0),
        "nothing about the conversations is kept in the browser (only the device token)"
    );
    browser.close().await;
}

#[tokio::test]
async fn older_conversations_load_on_demand_and_an_administrator_reads_others_without_replying() {
    let app = spawn_app_with(&[("RATE_LIMIT_PER_MINUTE", "1000")], |_| {}).await;
    let email = create_user(&app, "analyst").await;
    let token = access_token(&app.sign_in(&email, PASSWORD).await);
    let oldest = "what is the margin? (the oldest conversation)";
    assert_eq!(
        app.post("/api/digitizer-chatbot/chat", Some(&token), &json!({ "message": oldest })).await.status(),
        200
    );
    // A page holds 20: one more than a page of newer, empty conversations.
    for _ in 0..20 {
        // Seconds, not minutes: the tokens expire after 15 minutes of this clock.
        app.clock.advance(time::Duration::seconds(10));
        assert_eq!(app.post("/api/digitizer-chatbot/sessions", Some(&token), &json!({})).await.status(), 201);
    }
    let count = "return document.querySelectorAll('.session-list a').length;";

    let browser = Browser::open(&app, "chat-pages").await;
    browser.sign_in(&email, PASSWORD).await;
    browser.wait_for_text(".session-list a[aria-current]", "Empty conversation").await;
    assert_eq!(browser.run(count, vec![]).await, json!(20));
    browser.click_labelled("Show older conversations").await;
    browser.wait_for_text(".session-list a", oldest).await;
    assert_eq!(browser.run(count, vec![]).await, json!(21), "each conversation once");
    assert_eq!(browser.run("return document.querySelector('.sessions .slot button');", vec![]).await, Value::Null);
    assert_eq!(browser.run("return document.querySelectorAll('.session-list .owner').length;", vec![]).await, json!(0));
    browser.screenshot("older").await;

    // An administrator lists everyone's conversations, marked as another user's, and reads one
    // without a message box: only its owner can continue it.
    browser.sign_out().await;
    browser.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    browser.go("#/chat").await;
    browser.wait_for_text(".session-list .owner", "Another user").await;
    browser.click_labelled("Show older conversations").await;
    browser.click_labelled(oldest).await;
    browser.wait_for_text(".message.from-user .text", oldest).await;
    browser.wait_for_text(".read-only", "only they can continue it").await;
    assert_eq!(browser.text(".message.from-user .who").await, "The user", "not the administrator");
    assert_eq!(browser.run("return document.querySelector('form.composer').hidden;", vec![]).await, json!(true));
    browser.screenshot("administrator").await;
    browser.close().await;
}

/// Records every text the progress line of the launch form shows, to see the stream's events.
const RECORD_PROGRESS: &str = "window.__progress = []; new MutationObserver(() => { \
    for (const e of document.querySelectorAll('.progress span')) window.__progress.push(e.textContent); \
    }).observe(document.getElementById('view'), { subtree: true, childList: true, characterData: true });";

#[tokio::test]
async fn analyses_stream_their_progress_and_draw_their_charts() {
    let app = spawn_app_around(with_market_data(), &[], |_| {}).await;
    let email = create_user(&app, "analyst").await;
    let browser = Browser::open(&app, "analyses").await;
    browser.sign_in(&email, PASSWORD).await;
    browser.go("#/analyses").await;
    browser.wait_for_text("#view", "No analyses yet").await;

    // A company the data does not know: the API's refusal, in words.
    browser.type_into("input[name=company_name]", "Nonexistent Widgets Plc").await;
    browser.click_labelled("Run the analysis").await;
    browser.wait_for("form .error").await;
    let refusal = browser.text("form .error").await;
    assert!(!refusal.contains('{') && !refusal.contains("\"status\""), "in words, not JSON: {refusal}");
    browser.screenshot("refused").await;

    // A company: its ratios over the fiscal years as a line chart, each metric's formula on demand.
    browser.run(RECORD_PROGRESS, vec![]).await;
    browser.type_into("input[name=company_name]", "Apple Inc").await;
    browser.type_into("input[name=ticker]", "AAPL").await;
    browser.click_labelled("Run the analysis").await;
    browser.wait_for_text("#view h1", "Company analysis").await;
    let seen = browser.run("return window.__progress;", vec![]).await;
    assert!(seen.to_string().contains("Completed"), "the stream's events were shown: {seen}");
    browser.wait_for("svg.chart polyline").await;
    let points = browser.run("return document.querySelectorAll('svg.chart circle').length;", vec![]).await;
    assert!(points.as_u64() >= Some(6), "ratio charts with a point per year and ratio: {points}");
    browser.screenshot("company").await;
    browser.run("document.getElementById('charts-heading').scrollIntoView();", vec![]).await;
    browser.screenshot("company-charts").await;
    // Figures as an analyst writes them: the summary's amounts with their currency and scale, the
    // metrics under their labels (acronyms kept), each value in its unit.
    let summary = browser.text("#summary-heading + p").await;
    assert!(summary.contains("Revenue was USD 383.3 bn."), "{summary}");
    let rows = browser
        .run(
            "return [...document.querySelectorAll('table.metrics tbody tr')].map((row) => \
             [row.cells[0].firstChild.textContent, row.cells[1].textContent]);",
            vec![],
        )
        .await;
    let rows: Vec<(String, String)> = serde_json::from_value(rows).expect("name and value cells");
    let rows: std::collections::HashMap<String, String> = rows.into_iter().collect();
    for (label, value) in [
        ("Revenue", "USD 383.3 bn"),
        ("EBITDA", "USD 125.8 bn"),
        ("Debt / EBITDA", "0.88×"),
        ("EBIT interest coverage", "29.1×"),
        ("EBIT margin", "29.8%"),
        ("Revenue CAGR", "2.36%"),
        ("FFO / debt", "94.7%"),
    ] {
        assert_eq!(rows.get(label).map(String::as_str), Some(value), "{label}: {rows:?}");
    }
    assert!(rows.keys().all(|name| !name.contains('_') && !name.contains("Ebit")), "no key shown humanised: {rows:?}");
    browser.click("table.metrics button[aria-controls]").await;
    browser.wait_for(".formula:not([hidden])").await;
    let formula = browser.text(".formula:not([hidden])").await;
    assert!(formula.starts_with("= ") && formula.contains("where Revenue = USD 383.3 bn"), "{formula}");
    browser.screenshot("company-formula").await;

    // A market analysis: return, volatility and drawdown as bars.
    browser.go("#/analyses").await;
    browser.wait_for("select[name=kind]").await;
    browser
        .run("const s = document.querySelector('select[name=kind]'); s.value = 'market'; s.dispatchEvent(new Event('change'));", vec![])
        .await;
    browser.type_into("input[name=query]", "AAPL vs semiconductors").await;
    browser.run("document.querySelector('select[name=time_range]').value = '1Y';", vec![]).await;
    browser.click_labelled("Run the analysis").await;
    browser.wait_for_text("#view h1", "Market analysis").await;
    browser.wait_for("svg.chart rect").await;
    let bars = browser.run("return document.querySelectorAll('svg.chart rect').length;", vec![]).await;
    assert!(bars.as_u64() >= Some(6), "{bars}");
    browser.screenshot("market").await;
    // The daily closes behind the statistics: a line per instrument, rebased to 100, and its
    // drawdown from the running peak, each with a point per trading day of the window.
    browser.wait_for_text("#view", "Price history, rebased to 100").await;
    let lines = browser
        .run(
            "return ['Price history, rebased to 100', 'Drawdown from the running peak'].map((title) => \
             [...[...document.querySelectorAll('figure')].find((f) => f.querySelector('figcaption').textContent === title) \
             .querySelectorAll('polyline')].map((line) => line.getAttribute('points').split(' ').length));",
            vec![],
        )
        .await;
    let lines: Vec<Vec<u64>> = serde_json::from_value(lines).expect("point counts");
    assert_eq!(lines[0], lines[1], "one drawdown line per price line, as long");
    assert!(
        lines[0].len() >= 3 && lines[0].iter().all(|&points| points > 200),
        "AAPL, the ETF and SPY over a year: {lines:?}"
    );
    browser
        .run(
            "[...document.querySelectorAll('figcaption')].find((c) => c.textContent.startsWith('Price history')).scrollIntoView();",
            vec![],
        )
        .await;
    browser.screenshot("market-prices").await;

    // A loan application: the recommendation and the suggested covenants.
    browser.go("#/analyses").await;
    browser.wait_for("select[name=kind]").await;
    browser
        .run(
            "const s = document.querySelector('select[name=kind]'); s.value = 'loan_application'; s.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await;
    browser.type_into("input[name=borrower_name]", "Apple Inc").await;
    browser.type_into("input[name=loan_amount]", "250000000").await;
    browser.click_labelled("Run the analysis").await;
    browser.wait_for(".recommendation").await;
    browser.wait_for_text("caption", "Suggested covenants").await;
    let recommendation = browser.text(".recommendation").await;
    assert!(recommendation.ends_with(" for USD 250.0 m term loan"), "{recommendation}");
    let loan = browser.text("#view").await;
    assert!(loan.contains("Pro-forma DSCR") && loan.contains("RAROC minimum spread"), "the tests under their labels");
    assert!(loan.contains("DSCR") && loan.contains("at most") && !loan.contains("Dscr"), "{loan}");
    browser.screenshot("loan").await;
    browser
        .run(
            "[...document.querySelectorAll('caption')].find((c) => c.textContent === 'Suggested covenants').scrollIntoView();",
            vec![],
        )
        .await;
    browser.screenshot("loan-covenants").await;

    browser.go("#/analyses").await;
    browser.wait_for("table.list").await;
    assert_eq!(browser.run("return document.querySelectorAll('table.list tbody tr').length;", vec![]).await, json!(3));
    browser.screenshot("list").await;
    browser.close().await;
}

/// An agreement to upload and what its commitment's quote is, with the page when the file has pages.
struct Upload {
    file_name: &'static str,
    bytes: Vec<u8>,
    commitment_quote: &'static str,
    commitment_page: Option<u32>,
}

async fn an_uploaded_agreement_shows_its_fields_in_the_text_and_an_administrator_approves_it(
    adapters: Adapters,
    test: &'static str,
    upload: Upload,
) {
    let app = spawn_app_around(adapters, &[], |_| {}).await;
    let email = create_user(&app, "analyst").await;
    let file = std::path::PathBuf::from(SCREENSHOTS).join(format!("{test}-{}", upload.file_name));
    std::fs::create_dir_all(SCREENSHOTS).expect("folder");
    std::fs::write(&file, &upload.bytes).expect("agreement file");

    let browser = Browser::open(&app, test).await;
    browser.sign_in(&email, PASSWORD).await;
    browser.go("#/documents").await;
    browser.wait_for("input[type=file]").await;
    browser
        .client
        .find(fantoccini::Locator::Css("input[type=file]"))
        .await
        .expect("file input")
        .send_keys(&file.display().to_string())
        .await
        .expect("file chosen");
    browser.type_into("input[name=title]", "Acme term loan").await;
    browser.click_labelled("Upload and extract").await;
    browser.wait_for(".field-button").await;
    browser.wait_for_text("#view h1", "Acme term loan").await;
    let spread = browser.text(".field-button[data-pointer$='pread'] .field-value").await;
    assert!(spread.ends_with('%') && !spread.ends_with(" %"), "a rate is shown as agreements state it: {spread}");
    browser.screenshot("document").await;

    let field = "[data-pointer='/facilities/0/commitment']";
    browser.click(field).await;
    browser.wait_for("mark#quote").await;
    assert_eq!(browser.text("mark#quote").await, upload.commitment_quote);
    let place = browser.text(".extraction .card.text p.muted").await;
    match upload.commitment_page {
        Some(page) => assert!(place.ends_with(&format!("— page {page}")), "{place}"),
        None => assert!(!place.contains("page"), "{place}"),
    }
    assert_eq!(
        browser
            .run("return document.querySelector(arguments[0]).getAttribute('aria-pressed');", vec![json!(field)])
            .await,
        json!("true")
    );
    let visible = browser
        .run(
            "const m = document.querySelector('mark#quote').getBoundingClientRect(); \
             const p = document.querySelector('pre.document-text').getBoundingClientRect(); \
             return m.top >= p.top && m.bottom <= p.bottom;",
            vec![],
        )
        .await;
    assert_eq!(visible, json!(true), "the quote is scrolled into view");
    browser.screenshot("quote-highlighted").await;
    // At 800 px the fields stay beside the text, and a click still brings the quote into view.
    browser.resize(800).await;
    // This time with the keyboard: the field is a button that Enter presses.
    browser.wait_for("[data-pointer='/agreementDate']").await;
    let date = browser.client.find(fantoccini::Locator::Css("[data-pointer='/agreementDate']")).await.expect("field");
    date.send_keys(&fantoccini::key::Key::Enter.to_string()).await.expect("Enter");
    browser.wait_for_text("mark#quote", "March 15, 2024").await;
    browser.screenshot("quote-highlighted-800px").await;
    browser.resize(1280).await;

    // The same file again, as the next version: it becomes current, the first stays listed.
    browser
        .client
        .find(fantoccini::Locator::Css("input[name=version_file]"))
        .await
        .expect("new version input")
        .send_keys(&file.display().to_string())
        .await
        .expect("file chosen");
    browser.click_labelled("Upload as the next version").await;
    browser.wait_for_text(".doc-state", "version 2").await;
    assert_eq!(
        browser.run("return document.querySelectorAll('select[name=version] option').length;", vec![]).await,
        json!(2)
    );
    browser.wait_for(".field-button").await;
    browser.screenshot("second-version").await;
    // The original file comes back as uploaded: the download hands the browser its exact bytes.
    browser
        .run(
            "window.__downloads = []; const make = URL.createObjectURL; \
             URL.createObjectURL = (blob) => { window.__downloads.push(blob.size); return make.call(URL, blob); };",
            vec![],
        )
        .await;
    browser.run("[...document.querySelectorAll('.versions button')].find((b) => b.textContent.startsWith('Download the original')).click();", vec![]).await;
    let size = browser.until("the original's download", "return window.__downloads[0] ?? null;", vec![]).await;
    assert_eq!(size.as_u64(), Some(upload.bytes.len() as u64), "the original's bytes");

    assert_eq!(
        browser.run("return document.querySelector('[data-action=approve]') === null;", vec![]).await,
        json!(true),
        "an analyst cannot approve"
    );
    browser.click("[data-action=submit]").await;
    browser.wait_for_text(".doc-state .badge", "submitted").await;
    let id = browser.run("return location.hash.split('/').at(-1);", vec![]).await;
    let id = id.as_str().expect("document id").to_owned();

    browser.go("#/documents").await;
    browser.type_into("input[name=search]", "Acme").await;
    browser.click_labelled("Search").await;
    browser.wait_for_text("a.document-title", "Acme term loan").await;
    browser.screenshot("list").await;
    browser.sign_out().await;

    browser.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    browser.go(&format!("#/documents/{id}")).await;
    browser.click("[data-action=approve]").await;
    browser.wait_for_text(".doc-state .badge", "approved").await;
    browser.wait_for("[data-action=publish]").await;
    browser.wait_for_text("#notice", "the document is now approved").await;
    browser.screenshot("approved").await;
    browser.close().await;
}

#[tokio::test]
async fn an_uploaded_agreement_shows_its_fields_in_the_text_and_an_administrator_approves_it_in_memory() {
    let upload = Upload {
        file_name: "acme-credit-agreement.txt",
        bytes: AGREEMENT.as_bytes().to_vec(),
        commitment_quote: "Five Hundred Million Dollars ($500,000,000)",
        commitment_page: None,
    };
    an_uploaded_agreement_shows_its_fields_in_the_text_and_an_administrator_approves_it(
        Adapters::in_memory(),
        "document",
        upload,
    )
    .await;
}

#[tokio::test]
async fn an_uploaded_pdf_shows_its_fields_on_their_pages_and_an_administrator_approves_it_on_postgres() {
    let adapters = crate::test_cluster::shared().await.fresh_adapters().await;
    // A PDF this time: each quote is on a page.
    let upload = Upload {
        file_name: "agreement.pdf",
        bytes: std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/intake/agreement.pdf"))
            .expect("fixture"),
        commitment_quote: "$150,000,000",
        commitment_page: Some(2),
    };
    an_uploaded_agreement_shows_its_fields_in_the_text_and_an_administrator_approves_it(
        adapters,
        "document-postgres-pdf",
        upload,
    )
    .await;
}

#[tokio::test]
async fn a_title_made_of_markup_is_shown_as_its_characters_and_each_version_as_its_text() {
    const TITLE: &str = "<img src=x onerror=alert(1)>";
    let app = spawn_app().await;
    let email = create_user(&app, "analyst").await;
    let token = access_token(&app.sign_in(&email, PASSWORD).await);
    let created = app.post("/api/documents", Some(&token), &json!({ "title": TITLE, "text": AGREEMENT })).await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.expect("json");
    let created_id = created["document"]["document_id"].as_i64().expect("document id");

    let browser = Browser::open(&app, "markup-title").await;
    browser.sign_in(&email, PASSWORD).await;
    // Any alert the page would raise is recorded (and a real one would also block WebDriver).
    browser.run("window.__alerts = []; window.alert = (m) => window.__alerts.push(String(m));", vec![]).await;
    browser.go("#/documents").await;
    browser.wait_for("a.document-title").await;
    assert_eq!(browser.text("a.document-title").await, TITLE);
    browser.screenshot("list").await;
    browser.click("a.document-title").await;
    browser.wait_for_text("#view h1", TITLE).await;
    assert_eq!(browser.text("#view h1").await, TITLE);
    browser.screenshot("detail").await;

    assert_eq!(
        browser.run("return document.querySelectorAll('img').length;", vec![]).await,
        json!(0),
        "no element was made of the title"
    );
    assert_eq!(browser.run("return window.__alerts;", vec![]).await, json!([]));
    assert!(browser.client.get_alert_text().await.is_err(), "no alert is open");

    // A second version: the text shown follows the version chosen.
    let id = created_id;
    let text = AGREEMENT.replace("March 15, 2029", "March 15, 2030");
    let added = app.post(&format!("/api/documents/{id}/versions"), Some(&token), &json!({ "text": text })).await;
    assert_eq!(added.status(), 201);
    browser.go("#/documents").await;
    browser.go(&format!("#/documents/{id}")).await;
    browser.wait_for_text(".card.text h2", "Text of version 2").await;
    assert!(browser.text("pre.document-text").await.contains("March 15, 2030"));
    browser
        .run(
            "const s = document.querySelector('select[name=version]'); s.value = '1'; s.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await;
    browser.wait_for_text(".card.text h2", "Text of version 1").await;
    assert!(browser.text("pre.document-text").await.contains("March 15, 2029"));
    browser.screenshot("versions").await;
    browser.close().await;
}

/// Reads the covenants' table of the deal screen: per covenant its level, actual, headroom and status.
const COVENANT_ROWS: &str = "return Object.fromEntries([...document.querySelectorAll('table.covenants tbody tr')].map((row) => \
     [row.dataset.covenant, { level: row.querySelector('.threshold').textContent, actual: row.querySelector('.actual').textContent, \
     headroom: row.querySelector('.headroom-cell .figure').textContent, status: row.querySelector('.status').textContent }]));";

const LEVERAGE: &str = "Consolidated Total Net Leverage Ratio";

#[tokio::test]
async fn a_deal_shows_its_covenants_against_their_schedule_runs_a_test_and_prints_its_summary() {
    let app = spawn_app().await;
    let email = create_user(&app, "analyst").await;
    let token = access_token(&app.sign_in(&email, PASSWORD).await);
    let agreement = json!({
        "title": "Northwind credit agreement",
        "deal_id": 42,
        "text": include_str!("../../examples/deals/northwind-credit-agreement.txt"),
    });
    let created = app.post("/api/documents", Some(&token), &agreement).await;
    assert_eq!(created.status(), 201);
    let document_id = created.json::<Value>().await.expect("json")["document"]["document_id"].as_i64().expect("id");
    let statements: Value =
        serde_json::from_str(include_str!("../../examples/deals/northwind-statements.json")).expect("example");
    let stored = app.post("/api/financial-statements", Some(&token), &statements).await;
    assert_eq!(stored.status(), 201);
    let set = stored.json::<Value>().await.expect("json")["statement_set_id"].as_str().expect("set").to_owned();
    let tested = app.post("/api/deals/42/covenant-tests", Some(&token), &json!({ "statement_set_id": set })).await;
    assert_eq!(tested.status(), 201);
    let first_test = tested.json::<Value>().await.expect("json")["test_id"].as_str().expect("test id").to_owned();

    // Opened by its number from the Deals screen: the latest test's covenants, as the API judged them.
    let browser = Browser::open(&app, "deal").await;
    browser.sign_in(&email, PASSWORD).await;
    browser.click("#nav a[data-screen=deals]").await;
    browser.type_into("input[name=deal_id]", "42").await;
    browser.click_labelled("Open the deal").await;
    browser.wait_for_text("#view h1", "Deal 42").await;
    browser.wait_for("table.covenants").await;
    let rows = browser.run(COVENANT_ROWS, vec![]).await;
    assert_eq!(
        rows[LEVERAGE],
        json!({ "level": "at most 4.50×", "actual": "1.23×", "headroom": "72.7%", "status": "pass" }),
        "{rows}"
    );
    assert_eq!(rows["Consolidated Interest Coverage Ratio"]["level"], "at least 3.00×", "{rows}");
    assert_eq!(browser.text(".compliance .badge").await, "pass");

    // The leverage's history: its actual against the schedule's 4.50 then 4.00, drawn as steps,
    // with the numbers as text.
    let chart = browser
        .run(
            "const figure = [...document.querySelectorAll('figure')].find((f) => f.querySelector('figcaption').textContent.startsWith(arguments[0])); \
             return { steps: figure.querySelector('.step polyline').getAttribute('points').split(' ').length, \
             actuals: figure.querySelectorAll('[data-series=Actual] circle').length, \
             described: figure.querySelector('svg desc').textContent, \
             table: [...figure.querySelectorAll('tbody tr')].map((row) => [...row.cells].map((cell) => cell.textContent)) };",
            vec![json!(LEVERAGE)],
        )
        .await;
    assert_eq!(chart["actuals"], 1, "{chart}");
    assert!(chart["steps"].as_u64() >= Some(4), "a level, then a step down: {chart}");
    let described = chart["described"].as_str().unwrap_or_default();
    assert!(
        described.contains("1.23× at 2024-09-30") && described.contains("4.00× from 2025-06-30 onwards"),
        "{chart}"
    );
    assert_eq!(chart["table"][1], json!(["2024-09-30", "1.23×", "4.50×"]), "{chart}");
    // A flat minimum, with no dates, holds across the whole chart.
    let flat = browser
        .run(
            "return [...document.querySelectorAll('figure')].find((f) => f.querySelector('figcaption').textContent.startsWith('Consolidated Interest')) \
             .querySelector('.step polyline').getAttribute('points').split(' ').length;",
            vec![],
        )
        .await;
    assert_eq!(flat, json!(3), "from the left edge through the test date to the right edge");
    // Everything filed under the deal, linked to its screen.
    let document_link =
        browser.run("return document.querySelector('table.kind-documents a').getAttribute('href');", vec![]).await;
    assert_eq!(document_link, json!(format!("#/documents/{document_id}")));
    browser.screenshot("latest-test").await;
    browser.screenshot_at(800, "latest-test-800px").await;
    browser.run("document.getElementById('history-heading').scrollIntoView();", vec![]).await;
    browser.screenshot("history").await;

    // A test run from the screen at an earlier date: before the leverage covenant's first test
    // date it is not testable; the result is shown and listed.
    browser.run("document.querySelector('input[name=period_end]').value = '2023-12-31';", vec![]).await;
    browser.click_labelled("Run the test").await;
    browser.wait_for_text("#notice", "Covenants tested for the period ending 2023-12-31").await;
    browser.wait_for_text("table.covenants caption", "2023-12-31").await;
    let rows = browser.run(COVENANT_ROWS, vec![]).await;
    assert_eq!(rows[LEVERAGE]["status"], "not testable", "{rows}");
    assert_eq!(rows[LEVERAGE]["actual"], "—", "{rows}");
    let why = browser.text(&format!("tr[data-covenant='{LEVERAGE}'] .why")).await;
    assert!(why.contains("first tested for the period ending 2024-06-30"), "the API's reason is shown: {why}");
    assert_eq!(browser.run("return document.querySelectorAll('table.tests tbody tr').length;", vec![]).await, json!(2));
    let address = browser.run("return location.hash;", vec![]).await;
    assert!(address.as_str().is_some_and(|hash| hash.starts_with("#/deals/42/tests/") && !hash.contains(&first_test)));
    browser.screenshot("ran").await;

    // The first test again, and its compliance summary: per covenant the calculation, with the
    // agreement's words for the level and its schedule; the Print button prints it.
    browser.click_labelled("2024-09-30").await;
    browser.wait_for_text("table.covenants caption", "2024-09-30").await;
    browser.click_labelled("Print summary").await;
    browser.wait_for(".compliance-summary").await;
    let leverage = browser
        .run(
            "return document.querySelector(`.calculation[data-covenant='${arguments[0]}']`).textContent;",
            vec![json!(LEVERAGE)],
        )
        .await;
    let leverage = leverage.as_str().unwrap_or_default();
    for expected in [
        "the agreement's definition",
        "total_debt",
        "USD 3,500,000",
        "Cash netted",
        "up to USD 1,000,000",
        "4.50:1.00",
        "June 30, 2025 and thereafter",
        "Consolidated EBITDA",
    ] {
        assert!(leverage.contains(expected), "{expected} in {leverage}");
    }
    browser.run("window.__printed = 0; window.print = () => { window.__printed += 1; };", vec![]).await;
    browser.click_labelled("Print").await;
    assert_eq!(browser.run("return window.__printed;", vec![]).await, json!(1));
    browser.screenshot("summary").await;
    browser.run("document.querySelector('.calculation').scrollIntoView();", vec![]).await;
    browser.screenshot("summary-calculation").await;
    browser.emulate_media("print").await;
    let printed = browser
        .run("return ['header.top', 'button', '.no-print'].map((css) => getComputedStyle(document.querySelector(css)).display);", vec![])
        .await;
    assert_eq!(printed, json!(["none", "none", "none"]), "printed, the summary stands alone");
    browser.screenshot("summary-printed").await;
    browser.emulate_media("").await;

    // A deal with nothing the analyst may see: the API's refusal, and the form to try another.
    browser.go("#/deals/999").await;
    browser.wait_for_text("#view .error", "eal not found").await;
    browser.wait_for("form.open-deal input[name=deal_id]").await;
    // A test that is not the deal's: refused where the covenants go; the rest of the deal is shown.
    browser.go("#/deals/42/tests/00000000-0000-4000-8000-000000000000").await;
    browser.wait_for_text("#view .card .error", "ovenant test not found").await;
    browser.wait_for("#records-heading").await;

    // The agreement's screen links to its deal.
    browser.go(&format!("#/documents/{document_id}")).await;
    browser.click_labelled("Deal 42").await;
    browser.wait_for("table.covenants").await;
    browser.close().await;
}
