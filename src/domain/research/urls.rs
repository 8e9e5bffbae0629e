//! Canonical URLs: one spelling per web page, so that the same page found by two providers (or
//! with a tracking parameter, a fragment or a trailing slash) is read once and never refetched.

/// Query parameters that only track the visitor and never change the page.
const TRACKING_PARAMETERS: &[&str] = &["fbclid", "gclid"];

/// The canonical form of an absolute http(s) URL, or `None` for anything else (another scheme, no
/// host, credentials in the URL, a bad port, white space or control characters).
///
/// Canonical means: scheme and host lower-cased (a trailing dot on the host dropped), the default
/// port (80 for http, 443 for https) dropped, the fragment dropped, `utm_*`, `gclid` and `fbclid`
/// parameters dropped and the remaining parameters sorted, and a trailing slash removed from the
/// path except for the root `/`. The path's case and percent-encoding are kept as they are: servers
/// may distinguish them.
pub fn canonical_url(raw: &str) -> Option<String> {
    let raw = raw.trim();
    if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (scheme, rest) = raw.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let without_fragment = rest.split_once('#').map_or(rest, |(before, _)| before);
    let authority_end = without_fragment.find(['/', '?']).unwrap_or(without_fragment.len());
    let (authority, path_and_query) = without_fragment.split_at(authority_end);
    if authority.contains('@') {
        return None;
    }
    let (host, port) = split_host_and_port(authority)?;
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() || host.starts_with('.') {
        return None;
    }
    let (path, query) = path_and_query.split_once('?').unwrap_or((path_and_query, ""));
    let path = match path.trim_end_matches('/') {
        "" => "/",
        trimmed => trimmed,
    };

    let mut parameters: Vec<&str> = query.split('&').filter(|pair| !pair.is_empty() && !is_tracking(pair)).collect();
    parameters.sort_unstable();

    let mut canonical = format!("{scheme}://{host}");
    if let Some(port) = port.filter(|&port| port != default_port) {
        canonical.push_str(&format!(":{port}"));
    }
    canonical.push_str(path);
    if !parameters.is_empty() {
        canonical.push('?');
        canonical.push_str(&parameters.join("&"));
    }
    Some(canonical)
}

/// The host and the explicit port of an authority (`host`, `host:port`, `[v6]`, `[v6]:port`).
fn split_host_and_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (inside, after) = bracketed.split_once(']')?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (&authority[..inside.len() + 2], port)
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        None | Some("") => None,
        Some(digits) if digits.bytes().all(|b| b.is_ascii_digit()) => Some(digits.parse::<u16>().ok()?),
        Some(_) => return None,
    };
    Some((host, port))
}

fn is_tracking(pair: &str) -> bool {
    let name = pair.split_once('=').map_or(pair, |(name, _)| name).to_ascii_lowercase();
    name.starts_with("utm_") || TRACKING_PARAMETERS.contains(&name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_urls_follow_the_table() {
        let cases: &[(&str, Option<&str>)] = &[
            ("https://example.com", Some("https://example.com/")),
            ("https://example.com/", Some("https://example.com/")),
            ("HTTPS://Example.COM/News/", Some("https://example.com/News")),
            ("http://example.com:80/a", Some("http://example.com/a")),
            ("https://example.com:443/a", Some("https://example.com/a")),
            ("https://example.com:8443/a", Some("https://example.com:8443/a")),
            ("http://example.com:443/a", Some("http://example.com:443/a")),
            ("https://example.com/a#section-2", Some("https://example.com/a")),
            ("https://example.com/a/?b=2&a=1", Some("https://example.com/a?a=1&b=2")),
            (
                "https://example.com/a?utm_source=x&id=7&UTM_Medium=y&gclid=z&fbclid=w#top",
                Some("https://example.com/a?id=7"),
            ),
            ("https://example.com/?utm_campaign=c", Some("https://example.com/")),
            ("https://example.com?q=sofr", Some("https://example.com/?q=sofr")),
            ("https://example.com.:443/", Some("https://example.com/")),
            ("https://[2001:DB8::1]:443/x", Some("https://[2001:db8::1]/x")),
            ("https://[2001:db8::1]:8080/x", Some("https://[2001:db8::1]:8080/x")),
            ("  https://example.com/a  ", Some("https://example.com/a")),
            ("ftp://example.com/file", None),
            ("javascript:alert(1)", None),
            ("/api/documents/4", None),
            ("https://", None),
            ("https://:443/a", None),
            ("https://user:secret@example.com/", None),
            ("https://example.com:99999/", None),
            ("https://example.com:8o/", None),
            ("https://exa mple.com/", None),
        ];
        for (raw, expected) in cases {
            assert_eq!(canonical_url(raw).as_deref(), *expected, "{raw}");
        }
    }

    #[test]
    fn url_variants_of_one_page_share_a_canonical_form() {
        let variants = [
            "https://Example.com/sofr/?utm_source=newsletter",
            "https://example.com:443/sofr#history",
            "HTTPS://EXAMPLE.COM/sofr?fbclid=abc",
        ];
        let canonical: Vec<_> = variants.iter().map(|url| canonical_url(url)).collect();
        assert!(canonical.iter().all(|c| c.as_deref() == Some("https://example.com/sofr")), "{canonical:?}");
    }
}
