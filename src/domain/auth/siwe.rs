//! Sign-In with Ethereum (EIP-4361) messages: strict parsing of the text a wallet signed, and
//! rendering of the text the service hands to clients. Policy checks (domain, chain, nonce,
//! validity window) belong to the service, not here.

use std::str::FromStr;

use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

use super::ethereum::{AddressError, EthAddress};

const HEADER_SUFFIX: &str = " wants you to sign in with your Ethereum account:";

/// Field labels in the order EIP-4361 requires them; used to tell a misplaced field from junk.
const FIELD_LABELS: [&str; 9] =
    ["URI", "Version", "Chain ID", "Nonce", "Issued At", "Expiration Time", "Not Before", "Request ID", "Resources"];

/// A parsed EIP-4361 message.
///
/// `domain` holds everything before " wants you to sign in…", including the optional
/// `scheme://` the spec allows there. Keeping the scheme inside `domain` (rather than dropping
/// it) means nothing the wallet displayed is lost, rendering reproduces it, and a service that
/// compares `domain` with its own bare authority rejects scheme-prefixed messages instead of
/// silently ignoring a scheme it never checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiweMessage {
    pub domain: String,
    pub address: EthAddress,
    /// Rendered only when non-empty: the text format cannot distinguish an empty statement
    /// from none.
    pub statement: Option<String>,
    pub uri: String,
    pub version: String,
    pub chain_id: u64,
    pub nonce: String,
    pub issued_at: OffsetDateTime,
    pub expiration_time: Option<OffsetDateTime>,
    pub not_before: Option<OffsetDateTime>,
    pub request_id: Option<String>,
    /// Empty means no `Resources:` section.
    pub resources: Vec<String>,
}

/// Why a SIWE message was rejected. Line numbers are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SiweParseError {
    #[error("SIWE message: lines must end with LF; carriage returns (CRLF) are not allowed")]
    CarriageReturn,
    #[error("SIWE message: line 1 must be '<domain> wants you to sign in with your Ethereum account:'")]
    BadHeader,
    #[error("SIWE message: the domain on line 1 is not a valid [scheme://]authority")]
    InvalidDomain,
    #[error("SIWE message: missing the address on line 2")]
    MissingAddress,
    // Not marked #[source]: the text already includes it, and error-chain printers would
    // otherwise repeat it.
    #[error("SIWE message: invalid address: {0}")]
    InvalidAddress(AddressError),
    #[error("SIWE message: line {line} must be empty")]
    MissingBlankLine { line: usize },
    #[error("SIWE message: the statement on line {line} must not contain control characters")]
    InvalidStatement { line: usize },
    #[error("SIWE message: missing '{field}:' line")]
    MissingField { field: &'static str },
    #[error("SIWE message: line {line} must read '{field}: <value>'")]
    MalformedField { field: &'static str, line: usize },
    #[error("SIWE message: '{field}:' on line {line} is out of order or repeated")]
    OutOfOrder { field: &'static str, line: usize },
    #[error("SIWE message: unexpected content on line {line}")]
    UnexpectedLine { line: usize },
    #[error("SIWE message: 'URI' must be an absolute URI")]
    InvalidUri,
    #[error("SIWE message: 'Version' must be 1")]
    UnsupportedVersion,
    #[error("SIWE message: 'Chain ID' must be a decimal integer of at most 64 bits")]
    InvalidChainId,
    #[error("SIWE message: nonce must be at least 8 alphanumeric characters")]
    InvalidNonce,
    #[error("SIWE message: '{field}' is not an RFC 3339 timestamp")]
    InvalidTimestamp { field: &'static str },
    #[error("SIWE message: 'Request ID' may contain only URI path characters")]
    InvalidRequestId,
    #[error("SIWE message: resource on line {line} must be '- ' followed by an absolute URI")]
    InvalidResource { line: usize },
}

impl FromStr for SiweMessage {
    type Err = SiweParseError;

    /// Parses exactly the EIP-4361 layout. Deviations are errors rather than being repaired,
    /// because the signature covers the exact bytes: a lenient parse could show the service a
    /// different message from the one the wallet displayed.
    ///
    /// Accepted beyond the ABNF: a single trailing LF; an address in all-lowercase or
    /// all-uppercase form (mixed case must be valid EIP-55); statements with any printable
    /// characters (the ABNF's narrower set would reject ordinary punctuation such as quotes).
    /// A `Resources:` line with no items parses as an empty list, which renders as no section.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        use SiweParseError as E;

        if text.contains('\r') {
            return Err(E::CarriageReturn);
        }
        let body = text.strip_suffix('\n').unwrap_or(text);
        let mut lines = Lines::new(body);

        let header = lines.take().map(|(_, line)| line).unwrap_or_default();
        let domain = header.strip_suffix(HEADER_SUFFIX).ok_or(E::BadHeader)?;
        if !is_domain(domain) {
            return Err(E::InvalidDomain);
        }

        let (_, address_line) = lines.take().ok_or(E::MissingAddress)?;
        let address = EthAddress::parse(address_line).map_err(E::InvalidAddress)?;

        lines.expect_blank()?;
        let statement = match lines.peek() {
            Some((_, "")) => {
                lines.take();
                None
            }
            Some((number, line)) => {
                if line.chars().any(char::is_control) {
                    return Err(E::InvalidStatement { line: number });
                }
                lines.take();
                // Old clients omit the statement's blank line when there is no statement, so
                // "URI:" lands where the statement goes; point at that line, not the next one.
                lines.expect_blank().map_err(|err| {
                    if line.starts_with("URI: ") { E::MissingBlankLine { line: number } } else { err }
                })?;
                Some(line.to_owned())
            }
            None => return Err(E::MissingField { field: "URI" }),
        };

        let uri = lines.field("URI")?;
        if !is_absolute_uri(uri) {
            return Err(E::InvalidUri);
        }
        let version = lines.field("Version")?;
        if version != "1" {
            return Err(E::UnsupportedVersion);
        }
        let chain_id = lines.field("Chain ID")?;
        // u64::from_str alone would also accept a leading '+'.
        if !chain_id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(E::InvalidChainId);
        }
        let chain_id: u64 = chain_id.parse().map_err(|_| E::InvalidChainId)?;
        let nonce = lines.field("Nonce")?;
        if nonce.len() < 8 || !nonce.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(E::InvalidNonce);
        }
        let issued_at = parse_timestamp(lines.field("Issued At")?, "Issued At")?;

        let expiration_time = lines
            .optional_field("Expiration Time")
            .map(|value| parse_timestamp(value, "Expiration Time"))
            .transpose()?;
        let not_before =
            lines.optional_field("Not Before").map(|value| parse_timestamp(value, "Not Before")).transpose()?;
        let request_id = lines.optional_field("Request ID");
        if request_id.is_some_and(|id| !id.chars().all(is_pchar)) {
            return Err(E::InvalidRequestId);
        }

        let mut resources = Vec::new();
        if lines.peek().is_some_and(|(_, line)| line == "Resources:") {
            lines.take();
            while let Some((number, line)) = lines.peek() {
                let Some(resource) = line.strip_prefix("- ") else {
                    break;
                };
                if !is_absolute_uri(resource) {
                    return Err(E::InvalidResource { line: number });
                }
                resources.push(resource.to_owned());
                lines.take();
            }
        }

        if let Some((number, line)) = lines.peek() {
            return Err(match label_of(line) {
                Some(field) => E::OutOfOrder { field, line: number },
                None => E::UnexpectedLine { line: number },
            });
        }

        Ok(SiweMessage {
            domain: domain.to_owned(),
            address,
            statement,
            uri: uri.to_owned(),
            version: version.to_owned(),
            chain_id,
            nonce: nonce.to_owned(),
            issued_at,
            expiration_time,
            not_before,
            request_id: request_id.map(str::to_owned),
            resources,
        })
    }
}

impl SiweMessage {
    /// The exact EIP-4361 text for this message, without a trailing LF: address in EIP-55
    /// form, timestamps in UTC with millisecond precision (`2025-01-01T00:00:00.000Z`).
    ///
    /// Parsing the result gives back an equal message as long as the timestamps carry no
    /// sub-millisecond part (rendering truncates them) and the text fields are valid.
    #[must_use]
    pub fn to_message_string(&self) -> String {
        let mut out = String::with_capacity(512);
        out.push_str(&self.domain);
        out.push_str(HEADER_SUFFIX);
        out.push('\n');
        out.push_str(&self.address.to_checksum());
        out.push_str("\n\n");
        if let Some(statement) = self.statement.as_deref().filter(|s| !s.is_empty()) {
            out.push_str(statement);
            out.push('\n');
        }
        out.push('\n');
        push_field(&mut out, "URI", &self.uri);
        out.push('\n');
        push_field(&mut out, "Version", &self.version);
        out.push('\n');
        push_field(&mut out, "Chain ID", &self.chain_id.to_string());
        out.push('\n');
        push_field(&mut out, "Nonce", &self.nonce);
        out.push('\n');
        push_field(&mut out, "Issued At", &render_timestamp(self.issued_at));
        if let Some(expiration_time) = self.expiration_time {
            out.push('\n');
            push_field(&mut out, "Expiration Time", &render_timestamp(expiration_time));
        }
        if let Some(not_before) = self.not_before {
            out.push('\n');
            push_field(&mut out, "Not Before", &render_timestamp(not_before));
        }
        if let Some(request_id) = &self.request_id {
            out.push('\n');
            push_field(&mut out, "Request ID", request_id);
        }
        if !self.resources.is_empty() {
            out.push_str("\nResources:");
            for resource in &self.resources {
                out.push_str("\n- ");
                out.push_str(resource);
            }
        }
        out
    }
}

fn push_field(out: &mut String, label: &str, value: &str) {
    out.push_str(label);
    out.push_str(": ");
    out.push_str(value);
}

/// Formatted by hand because it cannot fail, unlike `time`'s formatters (which reject years
/// outside 0..=9999 for RFC 3339), and `to_message_string` has no error to return.
fn render_timestamp(at: OffsetDateTime) -> String {
    let at = at.to_offset(UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}

fn parse_timestamp(value: &str, field: &'static str) -> Result<OffsetDateTime, SiweParseError> {
    OffsetDateTime::parse(value, &Rfc3339).map_err(|_| SiweParseError::InvalidTimestamp { field })
}

/// RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
fn is_scheme(scheme: &str) -> bool {
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `[scheme "://"] authority`, checked only as far as needed to keep the header unambiguous:
/// no whitespace, no path, query or fragment.
fn is_domain(domain: &str) -> bool {
    let authority = match domain.split_once("://") {
        Some((scheme, authority)) if is_scheme(scheme) => authority,
        Some(_) => return false,
        None => domain,
    };
    !authority.is_empty() && authority.chars().all(|c| c.is_ascii_graphic() && !matches!(c, '/' | '?' | '#'))
}

/// A scheme followed by printable ASCII; full RFC 3986 validation is left to whoever
/// compares the URI with what it expects.
fn is_absolute_uri(uri: &str) -> bool {
    uri.split_once(':').is_some_and(|(scheme, _)| is_scheme(scheme)) && uri.chars().all(|c| c.is_ascii_graphic())
}

/// RFC 3986 pchar (percent-escapes are not decoded, only their characters allowed).
fn is_pchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~%!$&'()*+,;=:@".contains(c)
}

/// The field a line claims to be, even when its value is malformed.
fn label_of(line: &str) -> Option<&'static str> {
    FIELD_LABELS.into_iter().find(|label| has_label(line, label))
}

fn has_label(line: &str, label: &str) -> bool {
    line.strip_prefix(label).is_some_and(|rest| rest.starts_with(':'))
}

/// Cursor over the message lines that remembers 1-based line numbers for error messages.
struct Lines<'a> {
    lines: Vec<&'a str>,
    next: usize,
}

impl<'a> Lines<'a> {
    fn new(body: &'a str) -> Self {
        Lines { lines: body.split('\n').collect(), next: 0 }
    }

    fn peek(&self) -> Option<(usize, &'a str)> {
        self.lines.get(self.next).map(|line| (self.next + 1, *line))
    }

    fn take(&mut self) -> Option<(usize, &'a str)> {
        let current = self.peek();
        if current.is_some() {
            self.next += 1;
        }
        current
    }

    fn expect_blank(&mut self) -> Result<(), SiweParseError> {
        match self.peek() {
            Some((_, "")) => {
                self.take();
                Ok(())
            }
            _ => Err(SiweParseError::MissingBlankLine { line: self.next + 1 }),
        }
    }

    /// The value of the required field `label`, which must be on the next line.
    fn field(&mut self, label: &'static str) -> Result<&'a str, SiweParseError> {
        let Some((number, line)) = self.peek() else {
            return Err(SiweParseError::MissingField { field: label });
        };
        if let Some(value) = line.strip_prefix(label).and_then(|r| r.strip_prefix(": ")) {
            self.take();
            return Ok(value);
        }
        if has_label(line, label) {
            return Err(SiweParseError::MalformedField { field: label, line: number });
        }
        // If the field turns up further down, the line in its place is what is misplaced.
        let later = self.lines.get(self.next + 1..).unwrap_or_default().iter().any(|later| has_label(later, label));
        if !later {
            return Err(SiweParseError::MissingField { field: label });
        }
        Err(match label_of(line) {
            Some(field) => SiweParseError::OutOfOrder { field, line: number },
            None => SiweParseError::UnexpectedLine { line: number },
        })
    }

    fn optional_field(&mut self, label: &str) -> Option<&'a str> {
        let (_, line) = self.peek()?;
        let value = line.strip_prefix(label)?.strip_prefix(": ")?;
        self.take();
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ethereum::{eip191_hash, recover_signer, sign_message};
    use super::*;
    use k256::ecdsa::SigningKey;
    use time::macros::datetime;

    const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const ADDRESS: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
    const HASH: &str = "682e1f38c51701f2d9ae5bc54be8a6d71ddf911cc3f5da27018e8adb7dd334e3";
    const SIGNATURE: &str = "0xbf1cd4933ece17742808e6f95f7bb63d5020f689eecdbc0553df36265a4ba76776c35b6e330610e522a0e23ca7518a9e4be11415fbef6c0524f8a29b8a1d70c61b";

    /// DOMAIN.md §5, byte-exact (LF line ends, no trailing LF).
    const MESSAGE: &str = concat!(
        "localhost:3000 wants you to sign in with your Ethereum account:\n",
        "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n",
        "\n",
        "Sign in to the credit workflow service.\n",
        "\n",
        "URI: http://localhost:3000/login\n",
        "Version: 1\n",
        "Chain ID: 1\n",
        "Nonce: 32891756abcDEF12\n",
        "Issued At: 2025-01-01T00:00:00.000Z\n",
        "Expiration Time: 2025-01-01T00:10:00.000Z",
    );

    fn parse(text: &str) -> Result<SiweMessage, SiweParseError> {
        text.parse()
    }

    /// MESSAGE with its lines edited; `lines[0]` is line 1.
    fn edited(edit: impl FnOnce(&mut Vec<String>)) -> String {
        let mut lines: Vec<String> = MESSAGE.split('\n').map(str::to_owned).collect();
        edit(&mut lines);
        lines.join("\n")
    }

    fn expected_message() -> SiweMessage {
        SiweMessage {
            domain: "localhost:3000".to_owned(),
            address: EthAddress::parse(ADDRESS).expect("valid address"),
            statement: Some("Sign in to the credit workflow service.".to_owned()),
            uri: "http://localhost:3000/login".to_owned(),
            version: "1".to_owned(),
            chain_id: 1,
            nonce: "32891756abcDEF12".to_owned(),
            issued_at: datetime!(2025-01-01 00:00:00 UTC),
            expiration_time: Some(datetime!(2025-01-01 00:10:00 UTC)),
            not_before: None,
            request_id: None,
            resources: Vec::new(),
        }
    }

    #[test]
    fn the_domain_md_message_hashes_and_signs_to_its_vectors() {
        assert_eq!(hex::encode(eip191_hash(MESSAGE.as_bytes())), HASH);
        let key = SigningKey::from_slice(&hex::decode(KEY).expect("hex")).expect("valid key");
        assert_eq!(sign_message(&key, MESSAGE.as_bytes()), SIGNATURE);
        let signer = recover_signer(MESSAGE.as_bytes(), SIGNATURE).expect("valid signature");
        assert_eq!(signer.to_checksum(), ADDRESS);
    }

    #[test]
    fn the_domain_md_message_parses_to_the_expected_fields() {
        assert_eq!(parse(MESSAGE), Ok(expected_message()));
    }

    #[test]
    fn rendering_the_parsed_domain_md_message_gives_back_the_same_bytes() {
        let message = parse(MESSAGE).expect("valid message");
        assert_eq!(message.to_message_string(), MESSAGE);
    }

    #[test]
    fn a_single_trailing_lf_is_tolerated_but_not_two() {
        assert_eq!(parse(&format!("{MESSAGE}\n")), Ok(expected_message()));
        assert_eq!(parse(&format!("{MESSAGE}\n\n")), Err(SiweParseError::UnexpectedLine { line: 12 }));
    }

    #[test]
    fn a_message_without_statement_has_two_empty_lines_and_round_trips() {
        let text = edited(|lines| {
            lines.remove(3);
        });
        assert!(text.contains("266\n\n\nURI: "), "{text}");
        let message = parse(&text).expect("valid message");
        assert_eq!(message.statement, None);
        assert_eq!(message.to_message_string(), text);
    }

    #[test]
    fn every_optional_field_parses_and_round_trips() {
        let text = edited(|lines| {
            lines.push("Not Before: 2024-12-31T23:59:00.000Z".to_owned());
            lines.push("Request ID: req-42_a.b~c:d@e".to_owned());
            lines.push("Resources:".to_owned());
            lines.push("- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/".to_owned());
            lines.push("- https://example.com/my-web2-claim.json".to_owned());
        });
        let message = parse(&text).expect("valid message");
        assert_eq!(message.expiration_time, Some(datetime!(2025-01-01 00:10:00 UTC)));
        assert_eq!(message.not_before, Some(datetime!(2024-12-31 23:59:00 UTC)));
        assert_eq!(message.request_id.as_deref(), Some("req-42_a.b~c:d@e"));
        assert_eq!(
            message.resources,
            [
                "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
                "https://example.com/my-web2-claim.json",
            ]
        );
        assert_eq!(message.to_message_string(), text);
    }

    #[test]
    fn each_optional_field_may_appear_without_the_others() {
        let only_not_before = edited(|lines| {
            lines[10] = "Not Before: 2025-01-01T00:00:00.000Z".to_owned();
        });
        assert!(
            parse(&only_not_before)
                .is_ok_and(|m| m.expiration_time.is_none() && m.not_before == Some(datetime!(2025-01-01 00:00:00 UTC)))
        );

        let only_request_id = edited(|lines| {
            lines[10] = "Request ID: 7f3c".to_owned();
        });
        assert!(parse(&only_request_id).is_ok_and(|m| m.request_id.as_deref() == Some("7f3c")));

        let only_resources = edited(|lines| {
            lines[10] = "Resources:\n- https://example.com/a".to_owned();
        });
        assert!(
            parse(&only_resources)
                .is_ok_and(|m| m.expiration_time.is_none() && m.resources == ["https://example.com/a"])
        );

        let no_optional = edited(|lines| {
            lines.pop();
        });
        let message = parse(&no_optional).expect("valid message");
        assert_eq!(message.expiration_time, None);
        assert_eq!(message.to_message_string(), no_optional);
    }

    #[test]
    fn a_scheme_before_the_domain_is_kept_in_the_domain_field() {
        let text = edited(|lines| {
            lines[0] = format!("https://localhost:3000{HEADER_SUFFIX}");
        });
        let message = parse(&text).expect("valid message");
        assert_eq!(message.domain, "https://localhost:3000");
        assert_eq!(message.to_message_string(), text);
    }

    #[test]
    fn a_wrong_header_line_is_rejected() {
        for header in [
            "localhost:3000 wants you to sign in with your Ethereum account",
            "localhost:3000 wants you to sign in with your Bitcoin account:",
            "",
        ] {
            let text = edited(|lines| lines[0] = header.to_owned());
            assert_eq!(parse(&text), Err(SiweParseError::BadHeader), "{header}");
        }
        assert_eq!(parse(""), Err(SiweParseError::BadHeader));
    }

    #[test]
    fn an_empty_or_malformed_domain_is_rejected() {
        for domain in ["", "local host", "localhost/login", "1http://localhost", "https://"] {
            let text = edited(|lines| lines[0] = format!("{domain}{HEADER_SUFFIX}"));
            assert_eq!(parse(&text), Err(SiweParseError::InvalidDomain), "{domain:?}");
        }
    }

    #[test]
    fn a_missing_address_line_is_reported() {
        let text = format!("localhost:3000{HEADER_SUFFIX}");
        assert_eq!(parse(&text), Err(SiweParseError::MissingAddress));
    }

    #[test]
    fn a_mixed_case_address_with_a_bad_checksum_is_rejected() {
        let text = edited(|lines| {
            lines[1] = "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266".to_owned();
        });
        let err = parse(&text).expect_err("bad checksum");
        assert_eq!(err, SiweParseError::InvalidAddress(AddressError::BadChecksum));
        assert!(err.to_string().starts_with("SIWE message: invalid address: "));
    }

    #[test]
    fn a_lowercase_address_is_accepted_and_rendered_with_its_checksum() {
        let text = edited(|lines| lines[1] = ADDRESS.to_ascii_lowercase());
        let message = parse(&text).expect("valid message");
        assert_eq!(message, expected_message());
        assert_eq!(message.to_message_string(), MESSAGE);
    }

    #[test]
    fn a_missing_chain_id_is_reported_by_name() {
        let text = edited(|lines| {
            lines.remove(7);
        });
        let err = parse(&text).expect_err("missing field");
        assert_eq!(err, SiweParseError::MissingField { field: "Chain ID" });
        assert_eq!(err.to_string(), "SIWE message: missing 'Chain ID:' line");
    }

    #[test]
    fn a_message_that_stops_early_reports_the_first_missing_field() {
        let text = edited(|lines| lines.truncate(6));
        assert_eq!(parse(&text), Err(SiweParseError::MissingField { field: "Version" }));
        // The final empty string makes the text end in "\n\n", one of which is the tolerated
        // trailing LF.
        let text = edited(|lines| {
            lines.truncate(5);
            lines.push(String::new());
        });
        assert_eq!(parse(&text), Err(SiweParseError::MissingField { field: "URI" }));
    }

    #[test]
    fn a_field_without_the_space_after_its_colon_is_malformed() {
        let text = edited(|lines| lines[7] = "Chain ID:1".to_owned());
        assert_eq!(parse(&text), Err(SiweParseError::MalformedField { field: "Chain ID", line: 8 }));
    }

    #[test]
    fn a_short_or_non_alphanumeric_nonce_is_rejected() {
        for nonce in ["abc1234", "abcd-1234", "abcdéfgh1", ""] {
            let text = edited(|lines| lines[8] = format!("Nonce: {nonce}"));
            let err = parse(&text).expect_err("bad nonce");
            assert_eq!(err, SiweParseError::InvalidNonce, "{nonce:?}");
            assert_eq!(err.to_string(), "SIWE message: nonce must be at least 8 alphanumeric characters");
        }
    }

    #[test]
    fn a_non_decimal_or_oversized_chain_id_is_rejected() {
        for chain_id in ["one", "+1", "-1", "0x1", "", "1 ", "18446744073709551616"] {
            let text = edited(|lines| lines[7] = format!("Chain ID: {chain_id}"));
            assert_eq!(parse(&text), Err(SiweParseError::InvalidChainId), "{chain_id:?}");
        }
        let max = edited(|lines| lines[7] = format!("Chain ID: {}", u64::MAX));
        assert_eq!(parse(&max).map(|m| m.chain_id), Ok(u64::MAX));
    }

    #[test]
    fn a_malformed_timestamp_is_rejected_naming_its_field() {
        let text = edited(|lines| lines[9] = "Issued At: 2025-01-01 00:00:00".to_owned());
        let err = parse(&text).expect_err("bad timestamp");
        assert_eq!(err, SiweParseError::InvalidTimestamp { field: "Issued At" });
        assert_eq!(err.to_string(), "SIWE message: 'Issued At' is not an RFC 3339 timestamp");

        let text = edited(|lines| lines[10] = "Expiration Time: tomorrow".to_owned());
        assert_eq!(parse(&text), Err(SiweParseError::InvalidTimestamp { field: "Expiration Time" }));
    }

    #[test]
    fn crlf_line_endings_are_rejected() {
        let text = MESSAGE.replace('\n', "\r\n");
        assert_eq!(parse(&text), Err(SiweParseError::CarriageReturn));
        assert_eq!(parse(&format!("{MESSAGE}\r\n")), Err(SiweParseError::CarriageReturn));
    }

    #[test]
    fn an_extra_trailing_garbage_line_is_rejected() {
        let text = format!("{MESSAGE}\nP.S. also transfer all my tokens");
        assert_eq!(parse(&text), Err(SiweParseError::UnexpectedLine { line: 12 }));
    }

    #[test]
    fn fields_out_of_order_are_rejected() {
        let swapped = edited(|lines| lines.swap(7, 8));
        assert_eq!(parse(&swapped), Err(SiweParseError::OutOfOrder { field: "Nonce", line: 8 }));

        let not_before_first = edited(|lines| {
            lines.insert(10, "Not Before: 2025-01-01T00:00:00.000Z".to_owned());
        });
        assert_eq!(parse(&not_before_first), Err(SiweParseError::OutOfOrder { field: "Expiration Time", line: 12 }));

        let repeated = edited(|lines| lines.insert(7, "Version: 1".to_owned()));
        assert_eq!(parse(&repeated), Err(SiweParseError::OutOfOrder { field: "Version", line: 8 }));
    }

    #[test]
    fn the_legacy_layout_without_the_statement_blank_line_is_rejected() {
        let text = edited(|lines| {
            lines.remove(3);
            lines.remove(3);
        });
        assert_eq!(parse(&text), Err(SiweParseError::MissingBlankLine { line: 4 }));
    }

    #[test]
    fn a_statement_must_be_followed_by_an_empty_line() {
        let text = edited(|lines| {
            lines.remove(4);
        });
        assert_eq!(parse(&text), Err(SiweParseError::MissingBlankLine { line: 5 }));
        let no_blank_after_address = edited(|lines| {
            lines.remove(2);
        });
        assert_eq!(parse(&no_blank_after_address), Err(SiweParseError::MissingBlankLine { line: 3 }));
    }

    #[test]
    fn a_statement_with_control_characters_is_rejected() {
        let text = edited(|lines| lines[3] = "Sign in\tplease".to_owned());
        assert_eq!(parse(&text), Err(SiweParseError::InvalidStatement { line: 4 }));
    }

    #[test]
    fn a_version_other_than_1_is_rejected() {
        let text = edited(|lines| lines[6] = "Version: 2".to_owned());
        assert_eq!(parse(&text), Err(SiweParseError::UnsupportedVersion));
    }

    #[test]
    fn a_relative_uri_or_resource_is_rejected() {
        let text = edited(|lines| lines[5] = "URI: /login".to_owned());
        assert_eq!(parse(&text), Err(SiweParseError::InvalidUri));
        let text = edited(|lines| lines[5] = "URI: http://local host/".to_owned());
        assert_eq!(parse(&text), Err(SiweParseError::InvalidUri));

        let text = format!("{MESSAGE}\nResources:\n- https://ok.example/\n- not a uri");
        assert_eq!(parse(&text), Err(SiweParseError::InvalidResource { line: 14 }));
    }

    #[test]
    fn a_request_id_with_spaces_is_rejected() {
        let text = format!("{MESSAGE}\nRequest ID: two words");
        assert_eq!(parse(&text), Err(SiweParseError::InvalidRequestId));
    }

    #[test]
    fn rendering_converts_offsets_to_utc_and_truncates_to_milliseconds() {
        let mut message = expected_message();
        message.issued_at = datetime!(2025-01-01 02:00:00.123456 +02:00);
        message.expiration_time = None;
        message.statement = Some(String::new());
        let text = message.to_message_string();
        assert!(text.ends_with("\nIssued At: 2025-01-01T00:00:00.123Z"), "{text}");
        assert!(text.contains("266\n\n\nURI: "), "{text}");
        let reparsed = parse(&text).expect("rendered text parses");
        assert_eq!(reparsed.issued_at, datetime!(2025-01-01 00:00:00.123 UTC));
        assert_eq!(reparsed.statement, None);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_parser() {
        for text in [
            "\n",
            "\n\n\n\n",
            " wants you to sign in with your Ethereum account:",
            "é wants you to sign in with your Ethereum account:\n0x",
            &MESSAGE[..MESSAGE.len() / 2],
            &MESSAGE.replace("URI: ", "URI:"),
            &MESSAGE.replace(": ", ""),
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }
}
