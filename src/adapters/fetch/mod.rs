//! [`HttpPageFetcher`]: the [`PageFetcher`] port over HTTP, with the limits that make fetching
//! URLs chosen by search results and language models safe: only http and https; at most
//! `max_redirects` redirects, each hop checked again; a whole-fetch timeout; a body cap enforced
//! while reading; at most `max_concurrent` fetches at once; and an SSRF guard that refuses
//! loopback, private, link-local (the cloud metadata service at 169.254.169.254 included), CGNAT
//! and other non-public addresses unless `allow_private_networks` is set.
//!
//! # Why the guard cannot be bypassed by DNS rebinding
//! A check that resolves a host and then lets the HTTP client resolve it again can be fooled by a
//! name that answers a public address to the check and a private one to the connection. Here there
//! is only one resolution: the client's DNS resolver is [`GuardedResolver`], which resolves the
//! name, refuses the whole host if any of its addresses is not allowed, and hands the vetted
//! addresses straight to the connector, which connects to exactly those. Hosts written as IP
//! literals never reach a resolver, so [`HttpPageFetcher`] checks them itself before each hop.
//! The client ignores proxy settings (`HTTP_PROXY` …): through a proxy, the proxy would resolve and
//! connect, out of the guard's sight. Redirects are followed here, not by the client, so every hop
//! passes the same checks.
//!
//! Bodies are read as `text/html` (converted to readable text by `html2text`: scripts, styles and
//! markup dropped, tables read cell by cell, the `<title>` kept apart), `text/plain` (as is) or
//! refused as unsupported.
//! Charsets other than UTF-8 are not decoded: bytes are read as UTF-8, invalid sequences replaced.

mod address_guard;

use std::borrow::Cow;
use std::fmt;
use std::net::IpAddr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use anyhow::{anyhow, bail};
use async_trait::async_trait;
use regex::Regex;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, LOCATION};
use reqwest::{StatusCode, Url, redirect};
use tokio::sync::Semaphore;

use crate::adapters::retry::{CONNECT_TIMEOUT_CAP, error_chain};
use crate::adapters::search::html_fragment_text;
use crate::config::ResearchConfig;
use crate::domain::documents::archive::FilingArchive;
use crate::domain::intake::MediaType;
use crate::ports::page_fetch::{FetchError, FetchedFile, FetchedPage, FileFetcher, PageFetcher};
use address_guard::{AddressPolicy, GuardedResolver, RefusedAddress};

pub use address_guard::is_public_address;

/// Sent with every page request.
pub const DEFAULT_FETCH_USER_AGENT: &str =
    concat!("creditflow/", env!("CARGO_PKG_VERSION"), " (credit research; page reader)");

/// What pages are asked for: the two media types that can be read.
const ACCEPTED_TYPES: &str = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1";

/// Width text is laid out in: wide enough that paragraphs stay on one line.
const TEXT_WIDTH: usize = 10_000;

/// Limits of [`HttpPageFetcher`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchSettings {
    /// Limit on one fetch as a whole: every redirect hop and the body (`FETCH_TIMEOUT`). Waiting for
    /// a free slot (see `max_concurrent`) does not count.
    pub timeout: Duration,
    /// Largest body read, in bytes (`FETCH_MAX_BYTES`); larger pages are refused, not truncated.
    pub max_bytes: usize,
    /// Redirects followed for one page (`FETCH_MAX_REDIRECTS`); 0 follows none.
    pub max_redirects: usize,
    /// Fetches running at once (`FETCH_MAX_CONCURRENT`); further calls wait for a slot.
    pub max_concurrent: usize,
    /// Let fetches reach loopback, private, link-local and other non-public addresses
    /// (`FETCH_ALLOW_PRIVATE_NETWORKS`).
    pub allow_private_networks: bool,
    /// Sent as `User-Agent`.
    pub user_agent: String,
}

impl Default for FetchSettings {
    /// 10 s, 2 MiB, 5 redirects, 8 at once, public addresses only.
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            max_bytes: 2 * 1024 * 1024,
            max_redirects: 5,
            max_concurrent: 8,
            allow_private_networks: false,
            user_agent: DEFAULT_FETCH_USER_AGENT.to_owned(),
        }
    }
}

/// Reads web pages as text within [`FetchSettings`].
pub struct HttpPageFetcher {
    client: reqwest::Client,
    may_connect: AddressPolicy,
    slots: Semaphore,
    settings: FetchSettings,
}

impl fmt::Debug for HttpPageFetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpPageFetcher").field("settings", &self.settings).finish_non_exhaustive()
    }
}

impl HttpPageFetcher {
    /// The fetcher for the `FETCH_*` configuration, with [`DEFAULT_FETCH_USER_AGENT`].
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn from_config(config: &ResearchConfig) -> anyhow::Result<Self> {
        Self::new(&FetchSettings {
            timeout: config.fetch_timeout,
            max_bytes: config.fetch_max_bytes,
            max_redirects: config.fetch_max_redirects,
            max_concurrent: config.fetch_max_concurrent,
            allow_private_networks: config.fetch_allow_private_networks,
            user_agent: DEFAULT_FETCH_USER_AGENT.to_owned(),
        })
    }

    /// A fetcher within `settings`.
    ///
    /// # Errors
    /// `max_concurrent` or `max_bytes` of 0, a User-Agent that is not a valid header value, or an
    /// HTTP client that cannot be built.
    pub fn new(settings: &FetchSettings) -> anyhow::Result<Self> {
        let policy: AddressPolicy =
            if settings.allow_private_networks { Arc::new(|_| true) } else { Arc::new(is_public_address) };
        Self::with_address_policy(settings, policy)
    }

    /// A fetcher that connects only where `may_connect` allows.
    fn with_address_policy(settings: &FetchSettings, may_connect: AddressPolicy) -> anyhow::Result<Self> {
        if settings.max_concurrent == 0 {
            bail!("invalid FETCH_MAX_CONCURRENT: must be at least 1");
        }
        if settings.max_bytes == 0 {
            bail!("invalid FETCH_MAX_BYTES: must be at least 1");
        }
        let client = reqwest::Client::builder()
            .redirect(redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver { may_connect: Arc::clone(&may_connect) }))
            .connect_timeout(settings.timeout.min(CONNECT_TIMEOUT_CAP))
            .user_agent(settings.user_agent.as_str())
            .build()
            .map_err(|e| anyhow!("cannot build the HTTP client of the page fetcher: {}", error_chain(&e)))?;
        Ok(Self { client, may_connect, slots: Semaphore::new(settings.max_concurrent), settings: settings.clone() })
    }

    /// Refuses `url` unless it is http(s) with a host; a host that is an IP literal must be allowed
    /// by the policy (names are checked by [`GuardedResolver`] when connecting).
    fn vet(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Blocked(format!("{}: URLs are not fetched, only http and https", url.scheme())));
        }
        let Some(host) = url.host_str().filter(|host| !host.is_empty()) else {
            return Err(FetchError::Blocked("the URL has no host".to_owned()));
        };
        // The URL parser writes every IPv4 form (`0x7f.1`, `2130706433`) as dotted decimal and IPv6
        // in brackets, so an address literal always parses here.
        let Ok(ip) = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() else {
            return Ok(());
        };
        if (self.may_connect)(ip) { Ok(()) } else { Err(FetchError::Blocked(format!("{ip} is not a public address"))) }
    }

    /// Follows redirects from `url` to a readable answer and reads its body within the cap.
    async fn download(&self, url: Url) -> Result<Download, FetchError> {
        let (final_url, content_type, body) = self.download_as(url, ACCEPTED_TYPES, &|_| true, &join_location).await?;
        let kind = match content_type.as_str() {
            "text/html" | "application/xhtml+xml" => Readable::Html,
            "text/plain" => Readable::Plain,
            "" => return Err(FetchError::Unsupported("(none given)".to_owned())),
            _ => return Err(FetchError::Unsupported(content_type)),
        };
        Ok(Download { final_url, content_type, kind, body })
    }

    /// Follows redirects from `url` (each hop's `Location` read by `follow`), asking for `accept`,
    /// to an answer whose media type `wanted` takes (checked before the body is read), and reads the
    /// body within the cap.
    async fn download_as(
        &self,
        mut url: Url,
        accept: &str,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        follow: &(dyn Fn(&Url, &str) -> Result<Url, FetchError> + Sync),
    ) -> Result<(Url, String, Vec<u8>), FetchError> {
        let mut redirects = 0;
        loop {
            self.vet(&url)?;
            let mut response =
                self.client.get(url.clone()).header(ACCEPT, accept).send().await.map_err(request_error)?;
            let status = response.status();
            if is_followed_redirect(status)
                && let Some(location) = response.headers().get(LOCATION)
            {
                if redirects >= self.settings.max_redirects {
                    return Err(FetchError::Blocked(format!("more than {} redirects", self.settings.max_redirects)));
                }
                let location = String::from_utf8_lossy(location.as_bytes());
                url = follow(&url, location.trim())?;
                redirects += 1;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status(status.as_u16()));
            }
            let content_type = media_type(response.headers());
            if !wanted(&content_type) {
                return Err(FetchError::Unsupported(content_type));
            }
            let limit = self.settings.max_bytes;
            let too_large = FetchError::TooLarge { limit_bytes: limit };
            let declared = response.content_length().map_or(0, |length| usize::try_from(length).unwrap_or(usize::MAX));
            if declared > limit {
                return Err(too_large);
            }
            // The declared length can lie or be absent; the cap is enforced on what actually arrives.
            let mut body = Vec::with_capacity(declared);
            while let Some(chunk) = response.chunk().await.map_err(request_error)? {
                if body.len() + chunk.len() > limit {
                    return Err(too_large);
                }
                body.extend_from_slice(&chunk);
            }
            return Ok((url, content_type, body));
        }
    }

    /// Runs `work` for one fetch: within a free slot and the whole-fetch time limit.
    async fn within_limits<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, FetchError>>,
    ) -> Result<T, FetchError> {
        // The semaphore is never closed, so acquiring only waits.
        let _slot =
            self.slots.acquire().await.map_err(|_| FetchError::Unreachable("the fetcher is closed".to_owned()))?;
        tokio::time::timeout(self.settings.timeout, work).await.map_err(|_| FetchError::Timeout)?
    }
}

/// What a document import asks for: the formats documents are read from.
const DOCUMENT_TYPES: &str = "application/pdf,text/html,text/plain,\
    application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.9,*/*;q=0.1";

/// A redirect's target: `location` read against the URL that answered it.
fn join_location(from: &Url, location: &str) -> Result<Url, FetchError> {
    from.join(location).map_err(|_| FetchError::Blocked("a redirect to something that is not a URL".to_owned()))
}

#[async_trait]
impl FileFetcher for HttpPageFetcher {
    #[tracing::instrument(name = "fetch.file", skip_all, fields(host = tracing::field::Empty))]
    async fn fetch_file(&self, url: &Url, archive: &FilingArchive) -> Result<FetchedFile, FetchError> {
        tracing::Span::current().record("host", url.host_str().unwrap_or_default());
        self.vet(url)?;
        // EDGAR serves some exhibits as application/octet-stream; the bytes are checked later.
        let wanted = |content_type: &str| {
            MediaType::from_content_type(content_type).is_some()
                || matches!(content_type, "application/octet-stream" | "")
        };
        let follow = |from: &Url, location: &str| {
            archive
                .follow(from, location)
                .map_err(|outside| FetchError::Blocked(format!("a redirect to {location:?}: {outside}")))
        };
        let (final_url, content_type, body) =
            self.within_limits(self.download_as(url.clone(), DOCUMENT_TYPES, &wanted, &follow)).await?;
        Ok(FetchedFile { final_url: final_url.into(), content_type, bytes: body.into() })
    }
}

#[async_trait]
impl PageFetcher for HttpPageFetcher {
    #[tracing::instrument(name = "fetch.page", skip_all, fields(host = tracing::field::Empty))]
    async fn fetch(&self, url: &str) -> Result<FetchedPage, FetchError> {
        let start = Url::parse(url.trim()).map_err(|_| FetchError::Blocked("not an absolute URL".to_owned()))?;
        tracing::Span::current().record("host", start.host_str().unwrap_or_default());
        self.vet(&start)?;
        let download = self.within_limits(self.download(start)).await?;
        let Download { final_url, content_type, kind, body } = download;
        // Converting a large page takes a while: off the async workers. A panic in the HTML
        // library becomes an unsupported page instead of taking the caller down.
        let (title, text) = tokio::task::spawn_blocking(move || kind.read(&body))
            .await
            .ok()
            .flatten()
            .ok_or_else(|| FetchError::Unsupported(format!("{content_type} that cannot be converted to text")))?;
        tracing::debug!(chars = text.len(), "page fetched");
        Ok(FetchedPage { requested_url: url.to_owned(), final_url: final_url.into(), title, text, content_type })
    }
}

/// A successful answer's body, before conversion.
struct Download {
    final_url: Url,
    content_type: String,
    kind: Readable,
    body: Vec<u8>,
}

/// The media types that can be read.
#[derive(Clone, Copy)]
enum Readable {
    Html,
    Plain,
}

impl Readable {
    /// The title and readable text of `body`, read as UTF-8 (invalid sequences replaced); `None` when
    /// the HTML cannot be rendered.
    fn read(self, body: &[u8]) -> Option<(Option<String>, String)> {
        let source = String::from_utf8_lossy(body);
        // U+0000 is no character of a page's text, and PostgreSQL cannot store the research state
        // that would quote it: a page with one would fail every run that read it.
        let source = if source.contains('\0') { Cow::Owned(source.replace('\0', "")) } else { source };
        match self {
            Self::Plain => Some((None, source.into_owned())),
            Self::Html => {
                let text = html2text::config::plain_no_decorate()
                    .raw_mode(true)
                    .allow_width_overflow()
                    .string_from_read(source.as_bytes(), TEXT_WIDTH)
                    .ok()?;
                Some((html_title(&source), tidy_text(&text)))
            }
        }
    }
}

/// The document's `<title>`, entities decoded and whitespace collapsed; `None` when absent or empty.
fn html_title(html: &str) -> Option<String> {
    static TITLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?is)<title\b[^>]*>(.*?)</title\s*>").expect("title pattern"));
    let inner = TITLE.captures(html)?.get(1)?.as_str();
    Some(html_fragment_text(inner)).filter(|title| !title.is_empty())
}

/// Text with trailing spaces removed from each line and runs of blank lines cut to one.
fn tidy_text(text: &str) -> String {
    let mut tidy = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        tidy.push_str(line);
        tidy.push('\n');
    }
    tidy.trim().to_owned()
}

/// The media type of a response, lower case, without parameters; empty when none is given.
fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(CONTENT_TYPE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .and_then(|value| value.split(';').next().map(|media| media.trim().to_ascii_lowercase()))
        .unwrap_or_default()
}

/// The statuses whose `Location` is followed; others (300, 304) are answers in their own right.
fn is_followed_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// Maps a transport error: a host refused by the guard is [`FetchError::Blocked`].
fn request_error(error: reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<RefusedAddress>() {
            return FetchError::Blocked(refused.to_string());
        }
        source = cause.source();
    }
    if error.is_timeout() { FetchError::Timeout } else { FetchError::Unreachable(error_chain(&error.without_url())) }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddr};
    use std::time::Instant;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::adapters::fake_provider::{Answer, FakeProvider, refused_url};

    const ARTICLE: &str = r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title> Acme &amp; Co
  Q3 results </title>
<style>body { color: red }</style><script>var secret = "do not show";</script></head>
<body><h1>Quarterly results</h1>
<p>Revenue rose 12&nbsp;% to <b>$4.2bn</b>.</p>
<ul><li>Leverage 2.1x</li><li>Interest cover 5.3x</li></ul>
<script>alert("hidden")</script><noscript>enable scripts</noscript>
</body></html>"#;

    /// A local web site with one page per path.
    async fn fake_site() -> FakeProvider {
        FakeProvider::answering(|request| page(&request.path, request.query_value("location"))).await
    }

    /// The page at `path`; `/to` redirects to its `location`.
    fn page(path: &str, location: Option<&str>) -> Answer {
        let ok = |content_type: &str, body: String| Answer::new(200, body).header("content-type", content_type);
        let redirect = |status: u16, location: &str| Answer::new(status, "").header("location", location);
        match path {
            "/article.html" => ok("text/html; charset=utf-8", ARTICLE.to_owned()),
            "/notes.txt" => ok("text/plain", "Covenant: net leverage < 3.5x\n\n  indented line\n".to_owned()),
            "/nul.txt" => ok("text/plain", "net\0 leverage\0".to_owned()),
            "/nul.html" => ok("text/html", "<title>Acme\0</title><p>net\0 leverage</p>".to_owned()),
            "/report.pdf" => ok("application/pdf", "%PDF-1.7".to_owned()),
            "/untyped" => Answer::new(200, "who knows"),
            "/huge.html" => ok("text/html", "x".repeat(3 * 1024 * 1024)),
            "/slow.html" => ok("text/html", "<p>late</p>".to_owned()).delayed(Duration::from_secs(3)),
            "/delayed.html" => ok("text/html", "<p>on time</p>".to_owned()).delayed(Duration::from_millis(200)),
            "/missing" => Answer::new(404, "gone"),
            "/to" => redirect(302, location.unwrap_or("/")),
            _ => match path.strip_prefix("/hops/").and_then(|n| n.parse::<u32>().ok()) {
                Some(0) => ok("text/plain", "arrived".to_owned()),
                Some(n) => redirect(if n % 2 == 0 { 301 } else { 307 }, &format!("/hops/{}", n - 1)),
                None => Answer::new(500, ""),
            },
        }
    }

    /// Settings for tests against the local fake site.
    fn local(settings: FetchSettings) -> FetchSettings {
        FetchSettings { allow_private_networks: true, ..settings }
    }

    fn fetcher(settings: FetchSettings) -> HttpPageFetcher {
        HttpPageFetcher::new(&settings).expect("fetcher")
    }

    /// A fetcher that may reach 127.0.0.1 (where the fake site listens) and public addresses only,
    /// so that redirects from the site to other non-public addresses can be tested.
    fn fetcher_trusting_the_fake_site() -> HttpPageFetcher {
        let policy: AddressPolicy = Arc::new(|ip| ip == IpAddr::V4(Ipv4Addr::LOCALHOST) || is_public_address(ip));
        HttpPageFetcher::with_address_policy(&FetchSettings::default(), policy).expect("fetcher")
    }

    #[tokio::test]
    async fn fetch_turns_html_into_readable_text_and_keeps_the_title() {
        let site = fake_site().await;

        let page = fetcher(local(FetchSettings::default())).fetch(&site.url("/article.html")).await.expect("page");

        assert_eq!(page.title.as_deref(), Some("Acme & Co Q3 results"));
        assert_eq!(page.content_type, "text/html");
        assert_eq!(
            (page.requested_url.as_str(), page.final_url.as_str()),
            (&*site.url("/article.html"), &*site.url("/article.html"))
        );
        for expected in ["Quarterly results", "Revenue rose 12", "$4.2bn", "Leverage 2.1x", "Interest cover 5.3x"] {
            assert!(page.text.contains(expected), "{expected:?} in {:?}", page.text);
        }
        for hidden in ["secret", "color: red", "alert", "<b>", "&amp;", "&nbsp;", "Acme & Co"] {
            assert!(!page.text.contains(hidden), "{hidden:?} in {:?}", page.text);
        }
    }

    #[tokio::test]
    async fn fetch_returns_plain_text_as_is() {
        let site = fake_site().await;

        let page = fetcher(local(FetchSettings::default())).fetch(&site.url("/notes.txt")).await.expect("page");

        assert_eq!(page.text, "Covenant: net leverage < 3.5x\n\n  indented line\n");
        assert_eq!((page.title, page.content_type.as_str()), (None, "text/plain"));
    }

    #[tokio::test]
    async fn fetch_drops_nul_characters_from_page_text() {
        let site = fake_site().await;
        let fetcher = fetcher(local(FetchSettings::default()));

        let plain = fetcher.fetch(&site.url("/nul.txt")).await.expect("plain");
        let html = fetcher.fetch(&site.url("/nul.html")).await.expect("html");

        assert_eq!(plain.text, "net leverage");
        assert_eq!((html.title.as_deref(), html.text.as_str()), (Some("Acme"), "net leverage"));
    }

    #[tokio::test]
    async fn fetch_refuses_media_types_that_are_not_text() {
        let site = fake_site().await;
        let fetcher = fetcher(local(FetchSettings::default()));

        let pdf = fetcher.fetch(&site.url("/report.pdf")).await.expect_err("pdf");
        let untyped = fetcher.fetch(&site.url("/untyped")).await.expect_err("untyped");

        assert_eq!(pdf, FetchError::Unsupported("application/pdf".to_owned()));
        assert!(matches!(untyped, FetchError::Unsupported(_)), "{untyped:?}");
    }

    #[tokio::test]
    async fn fetch_refuses_a_page_declared_larger_than_the_cap() {
        let site = fake_site().await;

        let error = fetcher(local(FetchSettings::default())).fetch(&site.url("/huge.html")).await.expect_err("huge");

        assert_eq!(error, FetchError::TooLarge { limit_bytes: 2 * 1024 * 1024 });
    }

    /// A server that answers every request with an endless HTML body of unknown length.
    async fn endless_page_server() -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut request = [0_u8; 4096];
                    let _ = socket.read(&mut request).await;
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n";
                    if socket.write_all(head.as_bytes()).await.is_err() {
                        return;
                    }
                    let chunk = vec![b'a'; 64 * 1024];
                    while socket.write_all(&chunk).await.is_ok() {}
                });
            }
        });
        addr
    }

    #[tokio::test]
    async fn fetch_stops_reading_a_body_of_unknown_length_at_the_cap() {
        let addr = endless_page_server().await;
        let settings = local(FetchSettings { max_bytes: 256 * 1024, ..FetchSettings::default() });

        let error = fetcher(settings).fetch(&format!("http://{addr}/stream")).await.expect_err("endless");

        assert_eq!(error, FetchError::TooLarge { limit_bytes: 256 * 1024 });
    }

    #[tokio::test]
    async fn fetch_of_a_slow_page_times_out() {
        let site = fake_site().await;
        let settings = local(FetchSettings { timeout: Duration::from_millis(300), ..FetchSettings::default() });
        let started = Instant::now();

        let error = fetcher(settings).fetch(&site.url("/slow.html")).await.expect_err("slow");

        assert_eq!(error, FetchError::Timeout);
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[tokio::test]
    async fn fetch_follows_redirects_and_reports_where_the_text_came_from() {
        let site = fake_site().await;

        let page = fetcher(local(FetchSettings::default())).fetch(&site.url("/hops/3")).await.expect("page");

        assert_eq!(page.text, "arrived");
        assert_eq!(page.requested_url, site.url("/hops/3"));
        assert_eq!(page.final_url, site.url("/hops/0"));
        assert_eq!(site.paths(), ["/hops/3", "/hops/2", "/hops/1", "/hops/0"]);
    }

    #[tokio::test]
    async fn fetch_refuses_more_redirects_than_allowed() {
        let site = fake_site().await;
        let settings = local(FetchSettings { max_redirects: 2, ..FetchSettings::default() });

        let error = fetcher(settings).fetch(&site.url("/hops/3")).await.expect_err("too many");

        assert!(matches!(error, FetchError::Blocked(ref reason) if reason.contains("redirects")), "{error:?}");
        assert_eq!(site.paths().len(), 3, "the third redirect is not followed");
        let none = local(FetchSettings { max_redirects: 0, ..FetchSettings::default() });
        assert!(matches!(fetcher(none).fetch(&site.url("/hops/1")).await, Err(FetchError::Blocked(_))));
    }

    #[tokio::test]
    async fn fetch_refuses_a_redirect_to_a_private_or_metadata_address() {
        let site = fake_site().await;
        let fetcher = fetcher_trusting_the_fake_site();
        let port = site.addr().port();

        for target in [
            "http://10.0.0.1/admin".to_owned(),
            "http://169.254.169.254/latest/meta-data/".to_owned(),
            format!("http://127.0.0.2:{port}/article.html"),
            format!("http://[::1]:{port}/article.html"),
            format!("http://[::ffff:127.0.0.2]:{port}/article.html"),
            "file:///etc/passwd".to_owned(),
        ] {
            let url = site.url(&format!(
                "/to?location={}",
                percent_encoding::utf8_percent_encode(&target, percent_encoding::NON_ALPHANUMERIC)
            ));

            let error = fetcher.fetch(&url).await.expect_err("redirect refused");

            assert!(matches!(error, FetchError::Blocked(_)), "{target}: {error:?}");
        }
        assert!(site.paths().iter().all(|path| path == "/to"), "{:?}", site.paths());
        let allowed = site.url(&format!("/to?location={}", site.url("/notes.txt")));
        assert!(fetcher.fetch(&allowed).await.is_ok(), "the same redirect to the trusted address is followed");
    }

    #[tokio::test]
    async fn fetch_blocks_loopback_unless_private_networks_are_allowed() {
        let site = fake_site().await;
        let guarded = fetcher(FetchSettings::default());
        let open = fetcher(local(FetchSettings::default()));
        let by_name = format!("http://localhost:{}/notes.txt", site.addr().port());

        let literal = guarded.fetch(&site.url("/notes.txt")).await.expect_err("loopback literal");
        let named = guarded.fetch(&by_name).await.expect_err("loopback by name");

        assert!(matches!(literal, FetchError::Blocked(ref reason) if reason.contains("127.0.0.1")), "{literal:?}");
        assert!(matches!(named, FetchError::Blocked(ref reason) if reason.contains("localhost")), "{named:?}");
        assert!(site.paths().is_empty(), "nothing reached the server");
        assert_eq!(open.fetch(&site.url("/notes.txt")).await.expect("allowed").content_type, "text/plain");
        assert_eq!(open.fetch(&by_name).await.expect("allowed by name").text.lines().count(), 3);
    }

    #[tokio::test]
    async fn fetch_refuses_schemes_other_than_http_and_https() {
        let fetcher = fetcher(local(FetchSettings::default()));
        for url in [
            "file:///etc/passwd",
            "ftp://example.com/file.txt",
            "javascript:alert(1)",
            "data:text/plain,hi",
            "gopher://x",
            "not a url",
            "/relative/path",
        ] {
            let error = fetcher.fetch(url).await.expect_err(url);

            assert!(matches!(error, FetchError::Blocked(_)), "{url}: {error:?}");
        }
    }

    #[tokio::test]
    async fn fetch_reports_error_statuses_and_unreachable_hosts() {
        let site = fake_site().await;
        let fetcher = fetcher(local(FetchSettings::default()));

        assert_eq!(fetcher.fetch(&site.url("/missing")).await, Err(FetchError::Status(404)));
        let refused = fetcher.fetch(&refused_url("/")).await.expect_err("refused");
        assert!(matches!(refused, FetchError::Unreachable(_)), "{refused:?}");
    }

    #[tokio::test]
    async fn fetches_beyond_the_concurrency_bound_wait_for_a_slot() {
        let site = fake_site().await;
        let settings =
            local(FetchSettings { max_concurrent: 2, timeout: Duration::from_secs(5), ..FetchSettings::default() });
        let fetcher = Arc::new(fetcher(settings));
        let url = site.url("/delayed.html");
        let started = Instant::now();

        let fetches = (0..8).map(|_| {
            let (fetcher, url) = (Arc::clone(&fetcher), url.clone());
            tokio::spawn(async move { fetcher.fetch(&url).await })
        });
        for fetch in futures_util::future::join_all(fetches).await {
            fetch.expect("task").expect("page");
        }

        assert!(
            started.elapsed() >= Duration::from_millis(750),
            "8 fetches of 200 ms, 2 at a time: {:?}",
            started.elapsed()
        );
        assert!(site.most_in_flight() <= 2);
    }

    #[test]
    fn html_without_a_title_has_none_and_text_is_tidied() {
        assert_eq!(html_title("<html><body>x</body></html>"), None);
        assert_eq!(html_title("<TITLE lang=en>Caf&eacute;</TITLE>"), Some("Café".to_owned()));
        assert_eq!(html_title("<title>  </title>"), None);
        assert_eq!(tidy_text("a  \n\n\n\nb\n  \n"), "a\n\nb");
    }

    #[test]
    fn from_config_takes_the_fetch_limits() {
        let config = crate::config::Config::for_tests(&[
            ("FETCH_MAX_BYTES", "1024"),
            ("FETCH_MAX_CONCURRENT", "3"),
            ("FETCH_MAX_REDIRECTS", "1"),
            ("FETCH_TIMEOUT", "4s"),
            ("FETCH_ALLOW_PRIVATE_NETWORKS", "true"),
        ])
        .expect("config");

        let fetcher = HttpPageFetcher::from_config(&config.research).expect("fetcher");

        assert_eq!(
            fetcher.settings,
            FetchSettings {
                timeout: Duration::from_secs(4),
                max_bytes: 1024,
                max_redirects: 1,
                max_concurrent: 3,
                allow_private_networks: true,
                user_agent: DEFAULT_FETCH_USER_AGENT.to_owned(),
            }
        );
        assert_eq!(fetcher.slots.available_permits(), 3);
        assert!(HttpPageFetcher::new(&FetchSettings { max_concurrent: 0, ..FetchSettings::default() }).is_err());
    }
}
