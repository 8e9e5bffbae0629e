//! The one place filings are imported from (EDGAR's archive, `EDGAR_ARCHIVE_URL`) and the rule
//! every URL of an import must pass: the URL asked for, and each redirect on the way to the file.
//!
//! # Why the URL is parsed before it is judged
//! A check on the text of a URL and a fetch of the parsed URL disagree wherever parsing changes the
//! text: `…/Archives/edgar/data/%2e%2e/%2e%2e/%2e%2e/etc` starts with the archive's text, but the URL
//! parser reads `%2e%2e` as `..` and fetches `/etc`. Here the URL is parsed first, judged in its
//! parsed (normalised) form, and that same parsed URL is what is fetched. Encodings no filing's URL
//! needs are refused outright, before parsing: `%2e` (a dot), `%2f` and `%5c` (the separators `/`
//! and `\`), `%25` (a percent sign, which could encode any of them once more for a server that
//! decodes twice), a literal `\` (read as `/`), and white space or control characters (which the
//! parser silently removes, so that `%2<TAB>e` would become `%2e`).

use std::fmt;

use url::Url;

/// EDGAR's archive of filings: the default of `EDGAR_ARCHIVE_URL`.
pub const SEC_EDGAR_ARCHIVE: &str = "https://www.sec.gov/Archives/edgar/data/";

/// Percent-encodings refused anywhere in an import URL (compared ignoring case).
const REFUSED_ENCODINGS: [&str; 4] = ["%2e", "%2f", "%5c", "%25"];

/// The archive filings are imported from: a scheme, a host, a port and a folder. A URL is inside
/// when it has the same scheme, host and port and its normalised path lies under the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilingArchive {
    /// Parsed, without credentials, query or fragment; its path ends with `/`.
    root: Url,
}

/// Why a URL is not a filing in the archive.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutsideArchive {
    #[error("not an absolute URL")]
    NotAUrl,
    #[error("encoded dots, slashes, backslashes or percent signs, white space and control characters are refused")]
    RefusedEncoding,
    #[error("credentials in the URL are refused")]
    Credentials,
    #[error("only filings in the SEC EDGAR archive are imported: {archive}…")]
    Elsewhere { archive: String },
}

impl FilingArchive {
    /// The archive at `raw`, an absolute http(s) URL of a folder (a missing final `/` is added).
    ///
    /// # Errors
    /// A sentence saying what is wrong: not an http(s) URL with a host, credentials, a query or a
    /// fragment, or one of the encodings every import URL is refused for.
    pub fn new(raw: &str) -> Result<Self, String> {
        let raw = raw.trim();
        if has_refused_encoding(raw) {
            return Err(OutsideArchive::RefusedEncoding.to_string());
        }
        let mut root = Url::parse(raw).map_err(|error| format!("not an absolute URL: {error}"))?;
        if !matches!(root.scheme(), "http" | "https") || root.host().is_none() {
            return Err("must be an http or https URL with a host".to_owned());
        }
        if has_credentials(&root) {
            return Err(OutsideArchive::Credentials.to_string());
        }
        if root.query().is_some() || root.fragment().is_some() {
            return Err("must not have a query or a fragment".to_owned());
        }
        if !root.path().ends_with('/') {
            let folder = format!("{}/", root.path());
            root.set_path(&folder);
        }
        Ok(Self { root })
    }

    /// SEC EDGAR's archive ([`SEC_EDGAR_ARCHIVE`]).
    pub fn sec_edgar() -> Self {
        Self::new(SEC_EDGAR_ARCHIVE).expect("the SEC EDGAR archive URL is a valid archive")
    }

    /// The URL to fetch for `raw`, when it is a file in the archive.
    ///
    /// # Errors
    /// [`OutsideArchive`] saying why it is not.
    pub fn admit(&self, raw: &str) -> Result<Url, OutsideArchive> {
        let raw = raw.trim();
        if has_refused_encoding(raw) {
            return Err(OutsideArchive::RefusedEncoding);
        }
        self.inside(Url::parse(raw).map_err(|_| OutsideArchive::NotAUrl)?)
    }

    /// The URL a redirect from `from` to `location` (its `Location` header, relative or absolute)
    /// leads to, when that is a file in the archive: every hop passes the rule the first URL did.
    ///
    /// # Errors
    /// [`OutsideArchive`] saying why it is not.
    pub fn follow(&self, from: &Url, location: &str) -> Result<Url, OutsideArchive> {
        let location = location.trim();
        if has_refused_encoding(location) {
            return Err(OutsideArchive::RefusedEncoding);
        }
        self.inside(from.join(location).map_err(|_| OutsideArchive::NotAUrl)?)
    }

    /// `url` (parsed, so its path is normalised) when it is below the archive's folder.
    fn inside(&self, url: Url) -> Result<Url, OutsideArchive> {
        if has_credentials(&url) {
            return Err(OutsideArchive::Credentials);
        }
        let root = &self.root;
        let same_origin = url.scheme() == root.scheme()
            && url.host() == root.host()
            && url.port_or_known_default() == root.port_or_known_default();
        // The root's path ends with `/`, so a prefix match is a match of whole segments.
        let below = url.path().len() > root.path().len() && url.path().starts_with(root.path());
        if same_origin && below { Ok(url) } else { Err(OutsideArchive::Elsewhere { archive: root.to_string() }) }
    }
}

impl fmt::Display for FilingArchive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root.fmt(f)
    }
}

fn has_refused_encoding(raw: &str) -> bool {
    let lower = raw.to_ascii_lowercase();
    REFUSED_ENCODINGS.iter().any(|encoding| lower.contains(encoding))
        || raw.chars().any(|c| c == '\\' || c.is_whitespace() || c.is_control())
}

fn has_credentials(url: &Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARCHIVE: &str = "https://www.sec.gov/Archives/edgar/data/";
    const FILING: &str = "https://www.sec.gov/Archives/edgar/data/1018724/000119312523000849/ex10-1.htm";

    fn archive() -> FilingArchive {
        FilingArchive::new(ARCHIVE).expect("archive")
    }

    #[test]
    fn a_filing_in_the_archive_is_fetched_as_written() {
        assert_eq!(archive().admit(FILING).map(String::from), Ok(FILING.to_owned()));
        let explicit_port = "https://WWW.SEC.GOV:443/Archives/edgar/data/1/2/a.htm";
        assert_eq!(
            archive().admit(explicit_port).map(String::from),
            Ok("https://www.sec.gov/Archives/edgar/data/1/2/a.htm".to_owned())
        );
    }

    #[test]
    fn encoded_dot_segments_are_refused_however_they_are_spelled() {
        for escape in [
            "https://www.sec.gov/Archives/edgar/data/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
            "https://www.sec.gov/Archives/edgar/data/%2E%2E/%2E%2E/%2E%2E/robots.txt",
            "https://www.sec.gov/Archives/edgar/data/.%2e/.%2e/x",
            "https://www.sec.gov/Archives/edgar/data/1/%2e/a.htm",
            "https://www.sec.gov/Archives/edgar/data/%252e%252e/x",
            "https://www.sec.gov/Archives/edgar/data/%2\te%2e/%2e%2e/x",
        ] {
            assert_eq!(archive().admit(escape), Err(OutsideArchive::RefusedEncoding), "{escape}");
        }
    }

    #[test]
    fn encoded_and_literal_separators_are_refused() {
        for escape in [
            "https://www.sec.gov/Archives/edgar/data/..%2f..%2f..%2fx",
            "https://www.sec.gov/Archives/edgar/data/..%2F..%2Fx",
            "https://www.sec.gov/Archives/edgar/data/..%5c..%5cx",
            "https://www.sec.gov/Archives/edgar/data/..\\..\\..\\x",
        ] {
            assert_eq!(archive().admit(escape), Err(OutsideArchive::RefusedEncoding), "{escape}");
        }
    }

    #[test]
    fn a_path_that_normalises_outside_the_folder_is_refused() {
        let elsewhere = Err(OutsideArchive::Elsewhere { archive: ARCHIVE.to_owned() });
        for outside in [
            "https://www.sec.gov/Archives/edgar/data/../../../x",
            "https://www.sec.gov/Archives/edgar/data/./../x",
            "https://www.sec.gov/Archives/edgar/database/x",
            "https://www.sec.gov/Archives/edgar/data/",
            "https://www.sec.gov/Archives/edgar/data",
            "https://www.sec.gov/archives/edgar/data/1/2/a.htm",
        ] {
            assert_eq!(archive().admit(outside), elsewhere, "{outside}");
        }
        assert_eq!(
            archive().admit("https://www.sec.gov/Archives/edgar/data/1/../2/a.htm").map(String::from),
            Ok("https://www.sec.gov/Archives/edgar/data/2/a.htm".to_owned()),
            "what is fetched is the normalised path, which is inside"
        );
    }

    #[test]
    fn another_scheme_host_or_port_is_refused() {
        let elsewhere = Err(OutsideArchive::Elsewhere { archive: ARCHIVE.to_owned() });
        for outside in [
            "http://www.sec.gov/Archives/edgar/data/1/2/a.htm",
            "https://sec.gov/Archives/edgar/data/1/2/a.htm",
            "https://www.sec.gov.evil.example/Archives/edgar/data/1/2/a.htm",
            "https://www.sec.gov:8443/Archives/edgar/data/1/2/a.htm",
            "https://93.184.216.34/Archives/edgar/data/1/2/a.htm",
            "ftp://www.sec.gov/Archives/edgar/data/1/2/a.htm",
        ] {
            assert_eq!(archive().admit(outside), elsewhere, "{outside}");
        }
        assert_eq!(archive().admit("/Archives/edgar/data/1/2/a.htm"), Err(OutsideArchive::NotAUrl));
        for credentials in [
            "https://user:secret@www.sec.gov/Archives/edgar/data/1/2/a.htm",
            "https://www.sec.gov@evil.example/Archives/edgar/data/1/2/a.htm",
        ] {
            assert_eq!(archive().admit(credentials), Err(OutsideArchive::Credentials), "{credentials}");
        }
    }

    #[test]
    fn every_redirect_hop_passes_the_same_rule() {
        let from = archive().admit(FILING).expect("inside");

        assert_eq!(
            archive().follow(&from, "/Archives/edgar/data/1018724/000119312523000849/ex10-1.txt").map(String::from),
            Ok("https://www.sec.gov/Archives/edgar/data/1018724/000119312523000849/ex10-1.txt".to_owned())
        );
        assert_eq!(
            archive().follow(&from, "ex10-2.htm").map(String::from),
            Ok("https://www.sec.gov/Archives/edgar/data/1018724/000119312523000849/ex10-2.htm".to_owned())
        );
        for (location, refused) in [
            ("https://evil.example/x", OutsideArchive::Elsewhere { archive: ARCHIVE.to_owned() }),
            ("../../../../../x", OutsideArchive::Elsewhere { archive: ARCHIVE.to_owned() }),
            ("//evil.example/Archives/edgar/data/1/a.htm", OutsideArchive::Elsewhere { archive: ARCHIVE.to_owned() }),
            ("%2e%2e/%2e%2e/%2e%2e/%2e%2e/x", OutsideArchive::RefusedEncoding),
        ] {
            assert_eq!(archive().follow(&from, location), Err(refused), "{location}");
        }
    }

    #[test]
    fn the_archive_is_an_http_folder_without_credentials_or_query() {
        let without_slash = FilingArchive::new("http://127.0.0.1:8080/Archives/edgar/data").expect("archive");
        assert_eq!(without_slash.to_string(), "http://127.0.0.1:8080/Archives/edgar/data/");
        assert!(without_slash.admit("http://127.0.0.1:8080/Archives/edgar/data/1/a.htm").is_ok());
        assert!(without_slash.admit("http://127.0.0.1:8080/Archives/edgar/database/a.htm").is_err());
        for invalid in [
            "www.sec.gov/Archives/",
            "file:///Archives/",
            "https://user:pw@www.sec.gov/Archives/",
            "https://www.sec.gov/Archives/?q=1",
            "https://www.sec.gov/%2e%2e/",
        ] {
            assert!(FilingArchive::new(invalid).is_err(), "{invalid}");
        }
        assert_eq!(FilingArchive::sec_edgar().to_string(), SEC_EDGAR_ARCHIVE);
    }
}
