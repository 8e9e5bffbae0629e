//! The analysts' web console: plain HTML, CSS and ES modules embedded in the binary at compile
//! time, served at `/` (the page) and under `/console/` (its assets). The console is a client of
//! the public API like any other; these routes only hand out its files.
//!
//! Every console response carries a Content-Security-Policy that allows nothing but this origin's
//! own scripts, styles and API (no inline script or style, no third-party origin, no framing), and
//! an ETag: browsers revalidate with `If-None-Match` and get a 304 while the file is unchanged, so a
//! new binary is picked up at once without hashed file names. The routes need no token, so they are
//! outside the per-user rate limit.

use std::sync::LazyLock;

use sha2::{Digest, Sha256};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::filters::path::Tail;
use warp::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, X_FRAME_OPTIONS};
use warp::http::{HeaderName, HeaderValue, StatusCode};
use warp::reply::Response;

/// The policy of every console response. `connect-src 'self'` is what lets the page call the API;
/// images (the icon) come from this origin only; nothing may frame the page or post a form elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// Where the assets are served (the page itself is at `/`).
const PREFIX: &str = "/console/";
/// The metrics' route label of every asset: one template, never the raw path.
const ASSET_TEMPLATE: &str = "/console/{asset}";
const PAGE: &str = "index.html";

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// One embedded file.
struct Asset {
    /// Its path under `/console/` (the page: `index.html`, served at `/`).
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $content_type:expr) => {
        Asset { name: $name, content_type: $content_type, body: include_bytes!(concat!("assets/", $name)) }
    };
}

/// Every file of the console. A file missing here is a compile error, not a 404 in production.
const ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("console.css", CSS),
    asset!("icon.svg", SVG),
    asset!("js/app.js", JS),
    asset!("js/api.js", JS),
    asset!("js/render.js", JS),
    asset!("js/charts.js", JS),
    asset!("js/format.js", JS),
    asset!("js/covenants.js", JS),
    asset!("js/wallet.js", JS),
    asset!("js/device.js", JS),
    asset!("js/screens/signin.js", JS),
    asset!("js/screens/chat.js", JS),
    asset!("js/screens/analyses.js", JS),
    asset!("js/screens/analysis_detail.js", JS),
    asset!("js/screens/research.js", JS),
    asset!("js/screens/documents.js", JS),
    asset!("js/screens/document_detail.js", JS),
    asset!("js/screens/deals.js", JS),
    asset!("js/screens/deal_detail.js", JS),
    asset!("js/screens/admin.js", JS),
];

/// Each asset's strong validator: the first 128 bits of its SHA-256, quoted.
static ETAGS: LazyLock<Vec<String>> = LazyLock::new(|| {
    ASSETS.iter().map(|asset| format!("\"{}\"", hex::encode(&Sha256::digest(asset.body)[..16]))).collect()
});

fn find(name: &str) -> Option<usize> {
    ASSETS.iter().position(|asset| asset.name == name)
}

/// `GET /` (the page) and `GET /console/{asset}`, HEAD as well. An unknown asset is left to the
/// other routes, so it ends as the API's 404 JSON.
pub fn routes() -> BoxedFilter<(Response,)> {
    let read = warp::get().or(warp::head()).unify();
    let if_none_match = warp::header::optional::<String>("if-none-match");
    let page = warp::path::end().and(read).and(if_none_match).map(|condition: Option<String>| {
        // The page is in the table: `find` cannot miss it.
        serve(find(PAGE).unwrap_or_default(), condition.as_deref())
    });
    let asset = warp::path("console").and(warp::path::tail()).and(read).and(if_none_match).and_then(
        |tail: Tail, condition: Option<String>| async move {
            match find(tail.as_str()).filter(|&index| ASSETS[index].name != PAGE) {
                Some(index) => Ok(serve(index, condition.as_deref())),
                None => Err(warp::reject::not_found()),
            }
        },
    );
    page.or(asset).unify().boxed()
}

fn serve(index: usize, if_none_match: Option<&str>) -> Response {
    let asset = &ASSETS[index];
    let etag = ETAGS[index].as_str();
    let unchanged =
        if_none_match.is_some_and(|condition| condition.split(',').map(str::trim).any(|tag| tag == etag || tag == "*"));
    let mut response = if unchanged {
        let mut response = Response::new(Vec::new().into());
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        Response::new(asset.body.into())
    };
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    if let Ok(value) = HeaderValue::from_str(etag) {
        headers.insert(ETAG, value);
    }
    // Revalidate every time: a 304 is cheap, and a new release is never hidden behind a cache.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers
        .insert(HeaderName::from_static("content-security-policy"), HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin"));
    headers.insert(HeaderName::from_static("cross-origin-resource-policy"), HeaderValue::from_static("same-origin"));
    response
}

/// The metrics' route label of a console path: `/` or `/console/{asset}`; `None` for anything the
/// console does not serve (an unknown asset counts as unmatched, like any unknown path).
pub fn route_template(path: &str) -> Option<&'static str> {
    if path == "/" {
        return Some("/");
    }
    let name = path.strip_prefix(PREFIX)?;
    find(name).filter(|&index| ASSETS[index].name != PAGE).map(|_| ASSET_TEMPLATE)
}

/// The methods of a console path, for the `Allow` header of a 405.
pub fn allowed_methods(path: &str) -> Option<&'static str> {
    route_template(path).map(|_| "GET, HEAD")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_paths_fall_under_two_templates() {
        assert_eq!(route_template("/"), Some("/"));
        assert_eq!(route_template("/console/js/app.js"), Some(ASSET_TEMPLATE));
        assert_eq!(route_template("/console/index.html"), None, "the page has one address");
        assert_eq!(route_template("/console/nothing.js"), None);
        assert_eq!(route_template("/console/../Cargo.toml"), None);
        assert_eq!(allowed_methods("/"), Some("GET, HEAD"));
    }

    #[test]
    fn every_module_the_page_imports_is_embedded() {
        for asset in ASSETS.iter().filter(|asset| asset.content_type == JS) {
            let text = std::str::from_utf8(asset.body).expect("utf-8");
            for line in text.lines().filter(|line| line.starts_with("import ")) {
                let target = line.split(['\'', '"']).nth(1).expect("quoted module path");
                let base = asset.name.rsplit_once('/').map_or("", |(dir, _)| dir);
                let resolved = resolve(base, target);
                assert!(
                    find(&resolved).is_some(),
                    "{} imports {target} ({resolved}), which is not embedded",
                    asset.name
                );
            }
        }
    }

    /// `./x.js` and `../x.js` relative to `base`, as a browser resolves them.
    fn resolve(base: &str, target: &str) -> String {
        let mut parts: Vec<&str> = base.split('/').filter(|part| !part.is_empty()).collect();
        for segment in target.split('/') {
            match segment {
                "." => {}
                ".." => {
                    parts.pop();
                }
                other => parts.push(other),
            }
        }
        parts.join("/")
    }

    #[test]
    fn no_asset_parses_html_runs_inline_code_or_stores_a_token() {
        let page = std::str::from_utf8(ASSETS[find(PAGE).expect("page")].body).expect("utf-8");
        assert!(!page.contains("<script>") && !page.contains("style="), "the policy would block it");
        for asset in ASSETS.iter().filter(|asset| asset.content_type == JS) {
            let text = std::str::from_utf8(asset.body).expect("utf-8");
            for parser in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                assert!(!text.contains(parser), "{} uses {parser}", asset.name);
            }
        }
        // The tokens live in api.js alone, which touches no storage; the one module that stores
        // anything (chat session ids) sees no token.
        let api = std::str::from_utf8(ASSETS[find("js/api.js").expect("api")].body).expect("utf-8");
        let code: Vec<&str> = api.lines().filter(|line| !line.trim_start().starts_with("//")).collect();
        assert!(
            code.iter().all(|line| !line.contains("Storage") && !line.contains("document.cookie")),
            "api.js keeps tokens in memory only"
        );
        for asset in ASSETS.iter().filter(|asset| asset.content_type == JS && asset.name != "js/api.js") {
            let text = std::str::from_utf8(asset.body).expect("utf-8");
            assert!(!text.contains("access_token") && !text.contains("refresh_token"), "{} handles tokens", asset.name);
        }
    }
}
