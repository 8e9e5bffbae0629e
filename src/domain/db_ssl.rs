//! Database connection security: the libpq SSL modes, and the policy that turns the server's view
//! of the live connection (`pg_stat_ssl`) into the `/health/database/ssl` report.

use std::fmt;
use std::str::FromStr;

/// libpq's `sslmode` values, with libpq's meaning (DOMAIN.md §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SslMode {
    /// Never encrypt.
    Disable,
    /// Encrypt when the server offers TLS, without verifying it; fall back to plain otherwise.
    Prefer,
    /// Encrypt or fail; do not verify the certificate.
    Require,
    /// Encrypt and verify the chain against the configured CA; not the host name.
    VerifyCa,
    /// Encrypt, verify the chain and the host name.
    VerifyFull,
}

impl SslMode {
    pub const ALL: [SslMode; 5] =
        [SslMode::Disable, SslMode::Prefer, SslMode::Require, SslMode::VerifyCa, SslMode::VerifyFull];

    pub fn as_str(&self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    /// Whether the server certificate is checked against a CA.
    pub fn verifies_certificate(&self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }

    /// Whether a connection without TLS is refused by the mode itself.
    pub fn requires_encryption(&self) -> bool {
        matches!(self, SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

impl fmt::Display for SslMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown SSL mode '{0}': expected disable, prefer, require, verify-ca or verify-full")]
pub struct UnknownSslMode(pub String);

impl FromStr for SslMode {
    type Err = UnknownSslMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SslMode::ALL.into_iter().find(|mode| mode.as_str() == s).ok_or_else(|| UnknownSslMode(s.to_owned()))
    }
}

/// What the database server says about the connection (one row of `pg_stat_ssl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbSslObservation {
    pub ssl: bool,
    pub version: Option<String>,
    pub cipher: Option<String>,
    pub bits: Option<i32>,
    /// Distinguished name of the client certificate, when one was presented.
    pub client_dn: Option<String>,
}
