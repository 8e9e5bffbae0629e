//! The console driven in headless Chromium through WebDriver (fantoccini and Debian's
//! `chromium-driver`), against a `TestApp`: every step waits for what the page shows, never for a
//! fixed time. One chromedriver serves the whole test binary; each test opens its own browser with
//! a fresh profile, and the tests take turns (two Chromiums on two cores would only slow each other).
//! Each screen a test visits is saved as a PNG under `target/console-screenshots/`.
//!
//! Statics are never dropped, so chromedriver is started in a process group of its own and a
//! watchdog process ends that group (the driver and any browser it started) once the test binary
//! has exited, whatever way it exits.

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use tokio::sync::{Mutex, MutexGuard, OnceCell};

use crate::helpers::*;

const WAIT: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(50);
const CHROMIUM: &str = "/usr/bin/chromium";
pub const SCREENSHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/console-screenshots");

/// The chromedriver of this test binary.
struct Driver {
    url: String,
}

static DRIVER: OnceCell<Driver> = OnceCell::const_new();
/// One browser at a time.
static TURN: Mutex<()> = Mutex::const_new(());
static NEXT_PROFILE: AtomicUsize = AtomicUsize::new(0);

fn chromedriver_path() -> PathBuf {
    ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .unwrap_or_else(|| {
            panic!("chromedriver is not installed: `apt-get install chromium chromium-driver` (.ci/run does this)")
        })
}

async fn driver() -> &'static Driver {
    DRIVER
        .get_or_init(|| async {
            let port =
                std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("port").port();
            let log = PathBuf::from(SCREENSHOTS).join("chromedriver.log");
            std::fs::create_dir_all(SCREENSHOTS).expect("screenshot folder");
            start_chromedriver(port, &log);
            let url = format!("http://127.0.0.1:{port}");
            let client = reqwest::Client::new();
            let deadline = Instant::now() + WAIT;
            loop {
                let ready = client.get(format!("{url}/status")).send().await.ok();
                if let Some(response) = ready
                    && let Ok(status) = response.json::<Value>().await
                    && status["value"]["ready"] == true
                {
                    break;
                }
                assert!(Instant::now() < deadline, "chromedriver did not become ready");
                tokio::time::sleep(POLL).await;
            }
            Driver { url }
        })
        .await
}

/// Starts chromedriver on `port` in a process group of its own, ended by a watchdog after the tests.
#[expect(clippy::zombie_processes, reason = "the driver lives as long as the test binary; the watchdog ends it")]
fn start_chromedriver(port: u16, log: &std::path::Path) {
    let child = Command::new(chromedriver_path())
        .args([format!("--port={port}"), format!("--log-path={}", log.display())])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group, so that the watchdog ends the driver and its browsers together.
        .process_group(0)
        .spawn()
        .expect("chromedriver starts");
    end_group_after_the_tests(child.id());
}

/// A shell that waits for this test process to end, then ends the driver's process group (`kill
/// -SIG -PGID`: dash's `kill` takes no `--`).
fn end_group_after_the_tests(group: u32) {
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; kill -TERM -{group} 2>/dev/null; sleep 2; \
         kill -KILL -{group} 2>/dev/null",
        pid = std::process::id(),
    );
    crate::test_cluster::after_the_tests(&script);
}

/// One headless Chromium on one `TestApp`, for one test.
pub struct Browser {
    pub client: Client,
    test: &'static str,
    profile: PathBuf,
    _turn: MutexGuard<'static, ()>,
}

impl Browser {
    /// Opens the console at `/` in a new browser, 1280 px wide.
    pub async fn open(app: &TestApp, test: &'static str) -> Self {
        let turn = TURN.lock().await;
        let driver = driver().await;
        let profile = std::env::temp_dir().join(format!(
            "creditflow-chromium-{}-{}",
            std::process::id(),
            NEXT_PROFILE.fetch_add(1, Ordering::SeqCst)
        ));
        let mut capabilities = Capabilities::new();
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": CHROMIUM,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1280,900", "--lang=en-GB",
                    format!("--user-data-dir={}", profile.display()),
                ],
            }),
        );
        let client =
            ClientBuilder::native().capabilities(capabilities).connect(&driver.url).await.expect("a browser session");
        client.set_window_size(1280, 900).await.expect("window size");
        client.goto(&format!("{}/", app.address)).await.expect("the console loads");
        let browser = Self { client, test, profile, _turn: turn };
        browser.wait_for("#view h1").await;
        browser.watch_the_policy().await;
        browser
    }

    /// Records whatever the Content-Security-Policy blocks from now on (an inline style the code
    /// set, a foreign request): [`Self::close`] fails the test if anything was.
    pub async fn watch_the_policy(&self) {
        self.run(
            "window.__blocked = []; document.addEventListener('securitypolicyviolation', \
             (e) => window.__blocked.push(`${e.violatedDirective} ${e.blockedURI}`));",
            vec![],
        )
        .await;
    }

    /// Ends the browser and removes its profile, after checking that the policy blocked nothing.
    pub async fn close(self) {
        let blocked = self.run("return window.__blocked ?? [];", vec![]).await;
        assert_eq!(blocked, json!([]), "the Content-Security-Policy blocked something the console did");
        let Self { client, profile, .. } = self;
        client.close().await.expect("the browser closes");
        let _ = std::fs::remove_dir_all(profile);
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page.
    pub async fn run(&self, script: &str, args: Vec<Value>) -> Value {
        self.client.execute(script, args).await.unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Waits until `script` returns something other than null, false or undefined, and returns it.
    pub async fn until(&self, what: &str, script: &str, args: Vec<Value>) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let value = self.run(script, args.clone()).await;
            if !value.is_null() && value != Value::Bool(false) {
                return value;
            }
            if Instant::now() > deadline {
                self.screenshot("timed-out").await;
                let text = self.run("return document.getElementById('view').innerText", vec![]).await;
                panic!("waited {WAIT:?} for {what}; the page shows:\n{text}");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits for an element matching `css` that is displayed.
    pub async fn wait_for(&self, css: &str) {
        self.until(
            css,
            "const e = document.querySelector(arguments[0]); return !!e && e.getClientRects().length > 0;",
            vec![json!(css)],
        )
        .await;
    }

    /// Waits for an element matching `css` whose text contains `text`.
    pub async fn wait_for_text(&self, css: &str, text: &str) {
        self.until(
            &format!("{css} to say {text:?}"),
            "return [...document.querySelectorAll(arguments[0])].some((e) => e.textContent.includes(arguments[1]));",
            vec![json!(css), json!(text)],
        )
        .await;
    }

    /// The text of the first element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        let value =
            self.run("return document.querySelector(arguments[0])?.textContent ?? null;", vec![json!(css)]).await;
        value.as_str().unwrap_or_else(|| panic!("no {css}")).to_owned()
    }

    pub async fn click(&self, css: &str) {
        self.wait_for(css).await;
        self.client
            .find(Locator::Css(css))
            .await
            .expect(css)
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    /// Clicks the button or link whose text is `label`.
    pub async fn click_labelled(&self, label: &str) {
        let selector = format!("//*[self::button or self::a][normalize-space(.)='{label}']");
        self.until(
            &format!("a control labelled {label:?}"),
            "return document.evaluate(arguments[0], document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue !== null;",
            vec![json!(selector)],
        )
        .await;
        let element = self.client.find(Locator::XPath(&selector)).await.expect(label);
        element.click().await.unwrap_or_else(|e| panic!("click {label}: {e}"));
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        self.wait_for(css).await;
        let element = self.client.find(Locator::Css(css)).await.expect(css);
        element.clear().await.expect("clear");
        element.send_keys(text).await.unwrap_or_else(|e| panic!("type into {css}: {e}"));
    }

    /// Moves to a screen of the console the way its links do (a new hash; the page and the
    /// tokens it holds in memory stay).
    pub async fn go(&self, hash: &str) {
        self.run("location.hash = arguments[0];", vec![json!(hash)]).await;
    }

    pub async fn sign_in(&self, email: &str, password: &str) {
        self.type_into("input[name=email]", email).await;
        self.type_into("input[name=password]", password).await;
        self.click("form button[type=submit]").await;
        self.wait_for("#who").await;
        self.wait_for_text("#who-name", email).await;
    }

    pub async fn sign_out(&self) {
        self.click("#sign-out").await;
        self.wait_for("input[name=email]").await;
    }

    /// Saves the page as `<test>-<screen>.png` under `target/console-screenshots/`.
    pub async fn screenshot(&self, screen: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        std::fs::create_dir_all(SCREENSHOTS).expect("screenshot folder");
        let path = PathBuf::from(SCREENSHOTS).join(format!("{}-{screen}.png", self.test));
        std::fs::write(&path, png).expect("screenshot written");
        path
    }

    /// Makes the window `width` px wide and waits until the page has been laid out for it.
    pub async fn resize(&self, width: u32) {
        self.client.set_window_size(width, 900).await.expect("window size");
        self.until(
            &format!("the page to be {width} px wide"),
            "return document.documentElement.clientWidth <= arguments[0] && \
             new Promise((resolve) => requestAnimationFrame(() => resolve(true)));",
            vec![json!(width)],
        )
        .await;
    }

    /// Lays the page out for `media` (`"print"`, or `""` for the screen again) through the
    /// DevTools protocol, as the browser does when it prints, so that a screenshot shows the page
    /// as printed.
    pub async fn emulate_media(&self, media: &str) {
        let command = DevTools { cmd: "Emulation.setEmulatedMedia", params: json!({ "media": media }) };
        self.client.issue_cmd(command).await.unwrap_or_else(|e| panic!("emulate {media:?} media: {e}"));
    }

    /// As [`Self::screenshot`], with the window `width` px wide (then back to 1280).
    pub async fn screenshot_at(&self, width: u32, screen: &str) {
        self.resize(width).await;
        self.screenshot(screen).await;
        self.resize(1280).await;
    }
}

/// A DevTools protocol command sent through chromedriver's `goog/cdp/execute` extension.
#[derive(Debug)]
struct DevTools {
    cmd: &'static str,
    params: Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for DevTools {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/goog/cdp/execute", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(json!({ "cmd": self.cmd, "params": self.params }).to_string()))
    }
}

/// Creates a password user with `role` through the admin API; returns the e-mail.
pub async fn create_user(app: &TestApp, role: &str) -> String {
    app.create_user(role).await
}
