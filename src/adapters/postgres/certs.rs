//! Certificates for the embedded cluster and tests (rcgen).
//!
//! A local certificate authority lives in one directory and stays stable across runs, so clients
//! that trust it once keep trusting it. Server and client certificates are issued by it and reused
//! for as long as they still say the right thing (same host names or role, signed by this CA, at
//! least [`RENEW_BEFORE`] left); anything missing, changed or expiring is reissued. Private keys are
//! PKCS#8 PEM files with mode 0600, written atomically so a crash never leaves half a key behind.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::net::IpAddr;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, PublicKeyData, SanType,
};
use time::{Duration, OffsetDateTime};
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::GeneralName;

/// A certificate (the CA's or a leaf) is replaced once it has less than this left.
pub const RENEW_BEFORE: Duration = Duration::days(30);
/// The CA outlives many leaves so that trusting it is a one-time step.
const CA_VALIDITY: Duration = Duration::days(3650);
const LEAF_VALIDITY: Duration = Duration::days(365);
/// Back-dating tolerates a clock that is slightly behind the one that issued the certificate.
const BACKDATE: Duration = Duration::hours(1);
const CA_COMMON_NAME: &str = "creditflow local CA";
const PRIVATE_KEY_MODE: u32 = 0o600;
const CERTIFICATE_MODE: u32 = 0o644;
/// The CA certificate's file name in its directory.
const CA_CERT_FILE: &str = "ca.crt";

/// The local certificate authority: `ca.crt` and `ca.key` in one directory.
pub struct CertificateAuthority {
    cert_path: PathBuf,
    cert_pem: String,
    cert_der: Vec<u8>,
    issuer: Issuer<'static, KeyPair>,
}

impl std::fmt::Debug for CertificateAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CertificateAuthority").field("cert_path", &self.cert_path).finish_non_exhaustive()
    }
}

/// What a leaf certificate is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeafKind {
    /// A TLS server certificate with one subject alternative name per host (an IP address when the
    /// host parses as one, else a DNS name) and the serverAuth extended key usage.
    Server { hosts: Vec<String> },
    /// A TLS client certificate whose common name is the PostgreSQL role: `cert` authentication
    /// maps the CN to the user name. Carries the clientAuth extended key usage.
    Client { common_name: String },
}

impl LeafKind {
    /// A server certificate for `localhost` and `127.0.0.1`, what the embedded cluster listens on.
    pub fn localhost_server() -> Self {
        Self::Server { hosts: vec!["localhost".to_owned(), "127.0.0.1".to_owned()] }
    }
}

/// Where [`ensure_tls_material`] put the CA certificate and the server and client pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsMaterial {
    pub ca_cert: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
}

impl TlsMaterial {
    /// Where [`ensure_tls_material`] keeps the files in `dir`, whether they exist or not: for a
    /// client of a cluster that is already running, which must not reissue anything under it.
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            ca_cert: dir.join(CA_CERT_FILE),
            server_cert: dir.join("server.crt"),
            server_key: dir.join("server.key"),
            client_cert: dir.join("client.crt"),
            client_key: dir.join("client.key"),
        }
    }
}

/// Makes sure `dir` holds a CA, a server certificate for `localhost`/`127.0.0.1` and a client
/// certificate for `client_role`, reusing whatever is still valid.
///
/// # Errors
/// When the directory or a file cannot be created, read or written, or `client_role` cannot be a
/// certificate common name.
pub fn ensure_tls_material(dir: &Path, client_role: &str) -> anyhow::Result<TlsMaterial> {
    let ca = CertificateAuthority::load_or_create(dir)?;
    let material = TlsMaterial::in_dir(dir);
    ca.ensure_leaf(LeafKind::localhost_server(), &material.server_cert, &material.server_key)?;
    ca.ensure_leaf(
        LeafKind::Client { common_name: client_role.to_owned() },
        &material.client_cert,
        &material.client_key,
    )?;
    Ok(material)
}

impl CertificateAuthority {
    /// Loads `dir/ca.crt` and `dir/ca.key`, or creates them (10 years, CN "creditflow local CA")
    /// when they are missing, unusable or have less than [`RENEW_BEFORE`] left. A replaced CA
    /// invalidates every leaf it signed; [`Self::ensure_leaf`] notices and reissues them.
    ///
    /// # Errors
    /// When the directory or the files cannot be created, read or written.
    pub fn load_or_create(dir: &Path) -> anyhow::Result<Self> {
        Self::load_or_create_at(dir, OffsetDateTime::now_utc(), CA_VALIDITY)
    }

    fn load_or_create_at(dir: &Path, now: OffsetDateTime, validity: Duration) -> anyhow::Result<Self> {
        // 0700 only applies to directories created here: an existing directory keeps its mode.
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("creating the certificate directory {}", dir.display()))?;
        let cert_path = dir.join(CA_CERT_FILE);
        let key_path = dir.join("ca.key");

        match (read_if_exists(&cert_path)?, read_if_exists(&key_path)?) {
            (Some(cert_pem), Some(key_pem)) => match Self::from_pem(&cert_path, cert_pem, &key_pem, now) {
                Ok(ca) => {
                    restrict_to_owner(&key_path)?;
                    tracing::info!(ca = %cert_path.display(), "reusing the local certificate authority");
                    return Ok(ca);
                }
                Err(reason) => tracing::warn!(
                    ca = %cert_path.display(),
                    reason = %format!("{reason:#}"),
                    "replacing the local certificate authority; every certificate it signed will be reissued"
                ),
            },
            _ => tracing::info!(ca = %cert_path.display(), "creating the local certificate authority"),
        }

        let key = KeyPair::generate().context("generating the CA key")?;
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, CA_COMMON_NAME);
        params.distinguished_name.push(DnType::OrganizationName, "creditflow");
        // Path length 0: this CA signs leaves only, never another CA.
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages =
            vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        params.not_before = now - BACKDATE;
        params.not_after = now + validity;
        let cert = params.self_signed(&key).context("signing the CA certificate")?;

        write_atomically(&key_path, key.serialize_pem().as_bytes(), PRIVATE_KEY_MODE)?;
        write_atomically(&cert_path, cert.pem().as_bytes(), CERTIFICATE_MODE)?;
        Ok(Self { cert_pem: cert.pem(), cert_der: cert.der().to_vec(), issuer: Issuer::new(params, key), cert_path })
    }

    /// Accepts an existing CA only if it is one, its key matches and it has time left.
    fn from_pem(cert_path: &Path, cert_pem: String, key_pem: &str, now: OffsetDateTime) -> anyhow::Result<Self> {
        let key = KeyPair::from_pem(key_pem).map_err(|e| anyhow!("ca.key is not a usable PKCS#8 key: {e}"))?;
        let cert_der = pem_to_der(&cert_pem).context("ca.crt")?;
        let (_, cert) = x509_parser::parse_x509_certificate(&cert_der).map_err(|e| anyhow!("ca.crt: {e}"))?;
        if !cert.is_ca() {
            bail!("ca.crt is not a CA certificate");
        }
        if cert.public_key().raw != key.subject_public_key_info().as_slice() {
            bail!("ca.key does not belong to ca.crt");
        }
        check_time_left(&cert, now)?;
        let issuer = Issuer::from_ca_cert_der(&cert_der.as_slice().into(), key)
            .map_err(|e| anyhow!("ca.crt cannot sign: {e}"))?;
        Ok(Self { cert_path: cert_path.to_path_buf(), cert_pem, cert_der, issuer })
    }

    /// Where the CA certificate is (what clients and the server trust).
    pub fn cert_path(&self) -> &Path {
        &self.cert_path
    }

    /// The CA certificate in PEM.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// Makes sure `cert_path`/`key_path` hold a leaf of `kind` signed by this CA: an existing pair is
    /// reused when it parses, is signed by this CA, names the same hosts (server) or common name
    /// (client), and has at least [`RENEW_BEFORE`] left; otherwise a new one (1 year) is issued.
    ///
    /// # Errors
    /// When `kind` has no host or an empty common name, a name cannot go into a certificate, or a
    /// file cannot be read or written.
    pub fn ensure_leaf(&self, kind: LeafKind, cert_path: &Path, key_path: &Path) -> anyhow::Result<()> {
        self.ensure_leaf_at(&kind, cert_path, key_path, OffsetDateTime::now_utc())
    }

    fn ensure_leaf_at(
        &self,
        kind: &LeafKind,
        cert_path: &Path,
        key_path: &Path,
        now: OffsetDateTime,
    ) -> anyhow::Result<()> {
        match (read_if_exists(cert_path)?, read_if_exists(key_path)?) {
            (Some(cert_pem), Some(key_pem)) => match self.check_leaf(kind, &cert_pem, &key_pem, now) {
                Ok(()) => {
                    restrict_to_owner(key_path)?;
                    tracing::debug!(cert = %cert_path.display(), "reusing certificate");
                    return Ok(());
                }
                Err(reason) => tracing::info!(
                    cert = %cert_path.display(),
                    reason = %format!("{reason:#}"),
                    "reissuing certificate"
                ),
            },
            _ => tracing::info!(cert = %cert_path.display(), "issuing certificate"),
        }
        let (cert_pem, key_pem) = self.issue_leaf(kind, now, LEAF_VALIDITY)?;
        // Key first: if the process dies in between, the next run sees a mismatched pair and reissues.
        write_atomically(key_path, key_pem.as_bytes(), PRIVATE_KEY_MODE)?;
        write_atomically(cert_path, cert_pem.as_bytes(), CERTIFICATE_MODE)?;
        Ok(())
    }

    fn issue_leaf(&self, kind: &LeafKind, now: OffsetDateTime, validity: Duration) -> anyhow::Result<(String, String)> {
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        match kind {
            LeafKind::Server { hosts } => {
                let first = hosts.first().ok_or_else(|| anyhow!("a server certificate needs at least one host"))?;
                params.distinguished_name.push(DnType::CommonName, first.as_str());
                params.subject_alt_names = hosts
                    .iter()
                    .map(|host| match host.parse::<IpAddr>() {
                        Ok(ip) => Ok(SanType::IpAddress(ip)),
                        Err(_) => host
                            .as_str()
                            .try_into()
                            .map(SanType::DnsName)
                            .map_err(|e| anyhow!("host {host:?} cannot be a DNS name in a certificate: {e}")),
                    })
                    .collect::<anyhow::Result<_>>()?;
                params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
            }
            LeafKind::Client { common_name } => {
                if common_name.is_empty() {
                    bail!("a client certificate needs a common name (the PostgreSQL role)");
                }
                params.distinguished_name.push(DnType::CommonName, common_name.as_str());
                params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
            }
        }
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        // OpenSSL builds the chain faster, and unambiguously, with the authority key identifier.
        params.use_authority_key_identifier_extension = true;
        params.not_before = now - BACKDATE;
        params.not_after = now + validity;
        let key = KeyPair::generate().context("generating a certificate key")?;
        let cert = params.signed_by(&key, &self.issuer).context("signing a certificate")?;
        Ok((cert.pem(), key.serialize_pem()))
    }

    /// `Ok` when the pair can be reused; otherwise why not.
    fn check_leaf(&self, kind: &LeafKind, cert_pem: &str, key_pem: &str, now: OffsetDateTime) -> anyhow::Result<()> {
        let (_, ca) = x509_parser::parse_x509_certificate(&self.cert_der).map_err(|e| anyhow!("CA: {e}"))?;
        let der = pem_to_der(cert_pem)?;
        let (_, cert) =
            x509_parser::parse_x509_certificate(&der).map_err(|e| anyhow!("unparsable certificate: {e}"))?;
        if cert.issuer().as_raw() != ca.subject().as_raw() || cert.verify_signature(Some(ca.public_key())).is_err() {
            bail!("not signed by the current CA");
        }
        check_key_belongs_to(&cert, key_pem)?;
        check_time_left(&cert, now)?;
        let usage = cert.extended_key_usage().ok().flatten().map(|ext| ext.value);
        match kind {
            LeafKind::Server { hosts } => {
                if !usage.is_some_and(|u| u.server_auth) {
                    bail!("no serverAuth extended key usage");
                }
                let wanted: BTreeSet<String> = hosts.iter().map(|h| normalized_host(h)).collect();
                let present = subject_alt_names(&cert)?;
                if wanted != present {
                    bail!("names {present:?} differ from {wanted:?}");
                }
            }
            LeafKind::Client { common_name } => {
                if !usage.is_some_and(|u| u.client_auth) {
                    bail!("no clientAuth extended key usage");
                }
                let present = common_name_of(&cert);
                if present.as_deref() != Some(common_name.as_str()) {
                    bail!("common name {present:?} differs from {common_name:?}");
                }
            }
        }
        Ok(())
    }
}

/// Checks that `key_pem` (PKCS#8 PEM) is the private key of the PEM certificate `cert_pem`.
///
/// # Errors
/// When either does not parse, or the key's public half is not the certificate's.
pub fn check_key_pair(cert_pem: &str, key_pem: &str) -> anyhow::Result<()> {
    let der = pem_to_der(cert_pem)?;
    let (_, cert) = x509_parser::parse_x509_certificate(&der).map_err(|e| anyhow!("unparsable certificate: {e}"))?;
    check_key_belongs_to(&cert, key_pem)
}

fn check_key_belongs_to(cert: &X509Certificate<'_>, key_pem: &str) -> anyhow::Result<()> {
    let key = KeyPair::from_pem(key_pem).map_err(|e| {
        anyhow!("not a usable PKCS#8 private key ({e}); convert one with `openssl pkcs8 -topk8 -nocrypt`")
    })?;
    if cert.public_key().raw != key.subject_public_key_info().as_slice() {
        bail!("the key does not belong to the certificate");
    }
    Ok(())
}

fn check_time_left(cert: &X509Certificate<'_>, now: OffsetDateTime) -> anyhow::Result<()> {
    let validity = cert.validity();
    if validity.not_before.timestamp() > now.unix_timestamp() {
        bail!("not valid yet");
    }
    if validity.not_after.timestamp() < (now + RENEW_BEFORE).unix_timestamp() {
        bail!("expires within {} days", RENEW_BEFORE.whole_days());
    }
    Ok(())
}

/// Host names compare case-insensitively and IP addresses by value, so `::1` and `0::1` match.
fn normalized_host(host: &str) -> String {
    match host.parse::<IpAddr>() {
        Ok(ip) => format!("ip:{ip}"),
        Err(_) => format!("dns:{}", host.to_ascii_lowercase()),
    }
}

fn subject_alt_names(cert: &X509Certificate<'_>) -> anyhow::Result<BTreeSet<String>> {
    let Some(san) = cert.subject_alternative_name().map_err(|e| anyhow!("bad subjectAltName: {e}"))? else {
        return Ok(BTreeSet::new());
    };
    san.value
        .general_names
        .iter()
        .map(|name| match name {
            GeneralName::DNSName(dns) => Ok(format!("dns:{}", dns.to_ascii_lowercase())),
            GeneralName::IPAddress(octets) => match octets.len() {
                4 => Ok(format!("ip:{}", IpAddr::from(<[u8; 4]>::try_from(*octets)?))),
                16 => Ok(format!("ip:{}", IpAddr::from(<[u8; 16]>::try_from(*octets)?))),
                n => Err(anyhow!("an IP address SAN of {n} bytes")),
            },
            other => Ok(format!("other:{other}")),
        })
        .collect()
}

fn common_name_of(cert: &X509Certificate<'_>) -> Option<String> {
    cert.subject().iter_common_name().next().and_then(|cn| cn.as_str().ok()).map(str::to_owned)
}

fn pem_to_der(pem: &str) -> anyhow::Result<Vec<u8>> {
    let (_, parsed) = x509_parser::pem::parse_x509_pem(pem.as_bytes()).map_err(|e| anyhow!("not PEM: {e}"))?;
    if parsed.label != "CERTIFICATE" {
        bail!("PEM block is {:?}, not a CERTIFICATE", parsed.label);
    }
    Ok(parsed.contents)
}

/// `None` when the file does not exist; other I/O errors are real problems (a CA we cannot read
/// must not be silently replaced).
fn read_if_exists(path: &Path) -> anyhow::Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        // Not UTF-8, so not PEM: hand back an empty text, which fails parsing and gets replaced.
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Ok(Some(String::new())),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

fn restrict_to_owner(path: &Path) -> anyhow::Result<()> {
    let mode = fs::metadata(path).with_context(|| format!("reading {}", path.display()))?.permissions().mode();
    if mode & 0o777 != PRIVATE_KEY_MODE {
        tracing::warn!(key = %path.display(), mode = format!("{:o}", mode & 0o777), "private key was not mode 0600; fixing it");
        fs::set_permissions(path, fs::Permissions::from_mode(PRIVATE_KEY_MODE))
            .with_context(|| format!("restricting {} to mode 0600", path.display()))?;
    }
    Ok(())
}

/// Writes through a temporary file in the same directory and renames it into place, so readers see
/// the old content or the new, never a torn file; the mode is set before any byte is written.
pub(crate) fn write_atomically(path: &Path, contents: &[u8], mode: u32) -> anyhow::Result<()> {
    let file_name = path.file_name().ok_or_else(|| anyhow!("{} is not a file path", path.display()))?;
    let temporary = path.with_file_name(format!(".{}.tmp-{}", file_name.to_string_lossy(), std::process::id()));
    let write = || -> io::Result<()> {
        let mut file = fs::OpenOptions::new().write(true).create(true).truncate(true).mode(mode).open(&temporary)?;
        // `mode` above is filtered by the umask and ignored for a leftover file: set it explicitly.
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&temporary);
        anyhow::Error::new(e).context(format!("writing {}", path.display()))
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A fresh directory under /tmp, removed on drop. /tmp rather than the build directory: when the
    /// tests run as root, the embedded cluster's `postgres` user must be able to reach it.
    pub(crate) struct TempDir(PathBuf);

    impl TempDir {
        pub(crate) fn new(label: &str) -> Self {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "creditflow-{label}-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).expect("create temp dir");
            Self(path)
        }

        pub(crate) fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn read(path: &Path) -> Vec<u8> {
        fs::read(path).expect("read file")
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    fn parse(pem: &[u8]) -> x509_parser::pem::Pem {
        x509_parser::pem::parse_x509_pem(pem).expect("PEM").1
    }

    #[test]
    fn first_call_creates_the_ca_and_both_leaves_with_private_keys_mode_0600() {
        let dir = TempDir::new("certs-create");

        let material = ensure_tls_material(dir.path(), "creditflow").expect("material");

        assert_eq!(material.ca_cert, dir.path().join("ca.crt"));
        for cert in [&material.ca_cert, &material.server_cert, &material.client_cert] {
            assert_eq!(mode(cert), 0o644, "{}", cert.display());
        }
        for key in [&dir.path().join("ca.key"), &material.server_key, &material.client_key] {
            assert_eq!(mode(key), 0o600, "{}", key.display());
            assert!(String::from_utf8(read(key)).expect("utf8").starts_with("-----BEGIN PRIVATE KEY-----"));
        }
        let ca_pem = parse(&read(&material.ca_cert));
        let ca = ca_pem.parse_x509().expect("CA parses");
        assert!(ca.is_ca());
        assert_eq!(common_name_of(&ca).as_deref(), Some(CA_COMMON_NAME));
        let years = (ca.validity().not_after.timestamp() - ca.validity().not_before.timestamp()) / 86_400 / 365;
        assert_eq!(years, 10);
    }

    #[test]
    fn second_call_reuses_every_file_byte_for_byte() {
        let dir = TempDir::new("certs-reuse");
        let first = ensure_tls_material(dir.path(), "creditflow").expect("first");
        let files = [&first.ca_cert, &first.server_cert, &first.server_key, &first.client_cert, &first.client_key];
        let before: Vec<Vec<u8>> = files.iter().map(|p| read(p)).collect();
        // A loosened key mode is repaired without reissuing.
        fs::set_permissions(&first.client_key, fs::Permissions::from_mode(0o644)).expect("chmod");

        let second = ensure_tls_material(dir.path(), "creditflow").expect("second");

        assert_eq!(first, second);
        let after: Vec<Vec<u8>> = files.iter().map(|p| read(p)).collect();
        assert_eq!(before, after);
        assert_eq!(mode(&second.client_key), 0o600);
    }

    #[test]
    fn a_missing_leaf_is_reissued_without_touching_the_ca_or_the_other_leaf() {
        let dir = TempDir::new("certs-missing");
        let first = ensure_tls_material(dir.path(), "creditflow").expect("first");
        let ca_before = read(&first.ca_cert);
        let server_before = read(&first.server_cert);
        let client_before = read(&first.client_cert);
        fs::remove_file(&first.client_cert).expect("remove client.crt");

        let second = ensure_tls_material(dir.path(), "creditflow").expect("second");

        assert_eq!(read(&second.ca_cert), ca_before);
        assert_eq!(read(&second.server_cert), server_before);
        let client_after = read(&second.client_cert);
        assert_ne!(client_after, client_before);
        let ca_pem = parse(&ca_before);
        let ca = ca_pem.parse_x509().expect("CA");
        let client_pem = parse(&client_after);
        let client = client_pem.parse_x509().expect("client");
        assert!(client.verify_signature(Some(ca.public_key())).is_ok());
    }

    #[test]
    fn server_certificate_names_localhost_and_the_loopback_address_for_server_auth() {
        let dir = TempDir::new("certs-san");
        let material = ensure_tls_material(dir.path(), "creditflow").expect("material");

        let pem = parse(&read(&material.server_cert));
        let cert = pem.parse_x509().expect("server cert");

        let san = cert.subject_alternative_name().expect("valid").expect("present");
        let names = &san.value.general_names;
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().any(|n| matches!(n, GeneralName::DNSName("localhost"))), "{names:?}");
        assert!(names.iter().any(|n| matches!(n, GeneralName::IPAddress([127, 0, 0, 1]))), "{names:?}");
        let eku = cert.extended_key_usage().expect("valid").expect("present").value;
        assert!(eku.server_auth && !eku.client_auth);
        assert!(!cert.is_ca());
        assert_eq!(common_name_of(&cert).as_deref(), Some("localhost"));
    }

    #[test]
    fn client_certificate_carries_the_role_as_common_name_and_native_tls_accepts_the_pair() {
        let dir = TempDir::new("certs-client");
        let material = ensure_tls_material(dir.path(), "creditflow_app").expect("material");

        let cert_pem = read(&material.client_cert);
        let pem = parse(&cert_pem);
        let cert = pem.parse_x509().expect("client cert");

        assert_eq!(common_name_of(&cert).as_deref(), Some("creditflow_app"));
        let eku = cert.extended_key_usage().expect("valid").expect("present").value;
        assert!(eku.client_auth && !eku.server_auth);
        let identity = native_tls::Identity::from_pkcs8(&cert_pem, &read(&material.client_key));
        assert!(identity.is_ok(), "{:?}", identity.err());
        let ca = native_tls::Certificate::from_pem(&read(&material.ca_cert));
        assert!(ca.is_ok());
    }

    #[test]
    fn a_leaf_is_reissued_when_its_names_change_it_expires_soon_or_another_ca_signed_it() {
        let dir = TempDir::new("certs-reissue");
        let ca = CertificateAuthority::load_or_create(&dir.path().join("ca")).expect("CA");
        let (cert, key) = (dir.path().join("leaf.crt"), dir.path().join("leaf.key"));
        let localhost = LeafKind::Server { hosts: vec!["localhost".into()] };
        ca.ensure_leaf(localhost.clone(), &cert, &key).expect("issue");
        let original = read(&cert);

        ca.ensure_leaf(localhost.clone(), &cert, &key).expect("reuse");
        assert_eq!(read(&cert), original, "same names: reused");

        let wider = LeafKind::Server { hosts: vec!["localhost".into(), "db.internal".into()] };
        ca.ensure_leaf(wider.clone(), &cert, &key).expect("names changed");
        let widened = read(&cert);
        assert_ne!(widened, original);

        let now = OffsetDateTime::now_utc();
        let (short_cert, short_key) = ca.issue_leaf(&wider, now, Duration::days(10)).expect("short leaf");
        fs::write(&cert, short_cert.as_bytes()).expect("write");
        fs::write(&key, short_key.as_bytes()).expect("write");
        ca.ensure_leaf(wider.clone(), &cert, &key).expect("expiring");
        assert_ne!(read(&cert), short_cert.as_bytes(), "10 days left: reissued");

        let other = CertificateAuthority::load_or_create(&dir.path().join("other-ca")).expect("other CA");
        let before = read(&cert);
        other.ensure_leaf(wider, &cert, &key).expect("foreign");
        assert_ne!(read(&cert), before, "signed by another CA: reissued");
    }

    #[test]
    fn an_expiring_ca_is_replaced_and_a_valid_one_is_kept() {
        let dir = TempDir::new("certs-ca-expiry");
        let now = OffsetDateTime::now_utc();
        let short = CertificateAuthority::load_or_create_at(dir.path(), now, Duration::days(20)).expect("short CA");
        let short_pem = short.cert_pem().to_owned();

        let replaced = CertificateAuthority::load_or_create(dir.path()).expect("replaced");
        assert_ne!(replaced.cert_pem(), short_pem);

        let kept = CertificateAuthority::load_or_create(dir.path()).expect("kept");
        assert_eq!(kept.cert_pem(), replaced.cert_pem());
        assert_eq!(read(kept.cert_path()), replaced.cert_pem().as_bytes());
    }

    #[test]
    fn leaves_without_hosts_or_common_name_are_refused() {
        let dir = TempDir::new("certs-refuse");
        let ca = CertificateAuthority::load_or_create(dir.path()).expect("CA");
        let (cert, key) = (dir.path().join("x.crt"), dir.path().join("x.key"));

        assert!(ca.ensure_leaf(LeafKind::Server { hosts: vec![] }, &cert, &key).is_err());
        assert!(ca.ensure_leaf(LeafKind::Client { common_name: String::new() }, &cert, &key).is_err());
        assert!(!cert.exists());
    }
}
