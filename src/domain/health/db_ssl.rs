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

    /// What an operator gives up by choosing this mode over `verify-full`, with plain text still
    /// refused (`required`) or not; `None` for `verify-full`.
    pub fn weakness(&self, required: bool) -> Option<&'static str> {
        match self {
            SslMode::Disable => {
                Some("the database connection is not encrypted: passwords and data cross the network in clear")
            }
            SslMode::Prefer if !required => Some(
                "the database connection falls back to plain text when the server offers no TLS, and the server's \
                 certificate is not checked: anyone on the path can read and change the traffic",
            ),
            SslMode::Prefer | SslMode::Require => Some(
                "the server's certificate is not checked: anyone on the path can pose as the database and read and \
                 change the traffic",
            ),
            SslMode::VerifyCa => Some(
                "the server's host name is not checked: any server with a certificate of DB_SSL_CA_CERT can pose as \
                 the database",
            ),
            SslMode::VerifyFull => None,
        }
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

/// How the connection is configured, as far as the report is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DbSslExpectation {
    pub mode: SslMode,
    /// `DB_SSL_REQUIRED`.
    pub required: bool,
}

impl DbSslExpectation {
    /// Whether a plain connection is a failure, by the mode or by `DB_SSL_REQUIRED`.
    pub fn encryption_required(&self) -> bool {
        self.required || self.mode.requires_encryption()
    }
}

/// Overall verdict of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbSslStatus {
    /// The database answered and the connection meets the configuration.
    Healthy,
    /// The database did not answer in time, or TLS is required but not in use.
    Unhealthy,
    /// No database is configured (in-memory store).
    NotApplicable,
}

impl DbSslStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            DbSslStatus::Healthy => "healthy",
            DbSslStatus::Unhealthy => "unhealthy",
            DbSslStatus::NotApplicable => "not_applicable",
        }
    }
}

/// What `GET /health/database/ssl` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbSslReport {
    pub status: DbSslStatus,
    pub ssl_enabled: bool,
    pub ssl_mode: Option<SslMode>,
    pub ssl_version: Option<String>,
    pub ssl_cipher: Option<String>,
    pub ssl_bits: Option<i32>,
    pub certificate_validation: bool,
    pub ssl_required: bool,
    pub client_certificate: bool,
    pub message: Option<String>,
}

/// Why no observation could be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbSslProbeFailure {
    /// No answer within the probe's deadline.
    TimedOut { seconds: u64 },
    /// The pool or the query failed.
    Unavailable,
}

/// The report for a service without a database.
pub fn report_without_database() -> DbSslReport {
    DbSslReport {
        status: DbSslStatus::NotApplicable,
        ssl_enabled: false,
        ssl_mode: None,
        ssl_version: None,
        ssl_cipher: None,
        ssl_bits: None,
        certificate_validation: false,
        ssl_required: false,
        client_certificate: false,
        message: Some("no database is configured (STORE=memory)".to_owned()),
    }
}

/// Turns the server's view of the connection (or the failure to get it) into the report.
pub fn assess_db_ssl(expectation: DbSslExpectation, probe: Result<DbSslObservation, DbSslProbeFailure>) -> DbSslReport {
    let base = DbSslReport {
        status: DbSslStatus::Healthy,
        ssl_enabled: false,
        ssl_mode: Some(expectation.mode),
        ssl_version: None,
        ssl_cipher: None,
        ssl_bits: None,
        certificate_validation: expectation.mode.verifies_certificate(),
        ssl_required: expectation.encryption_required(),
        client_certificate: false,
        message: None,
    };
    let observation = match probe {
        Ok(observation) => observation,
        Err(failure) => {
            let message = match failure {
                DbSslProbeFailure::TimedOut { seconds } => format!("the database did not answer within {seconds} s"),
                DbSslProbeFailure::Unavailable => "the database is unavailable".to_owned(),
            };
            return DbSslReport { status: DbSslStatus::Unhealthy, message: Some(message), ..base };
        }
    };
    let client_certificate = observation.client_dn.as_deref().is_some_and(|dn| !dn.is_empty());
    let report = DbSslReport {
        ssl_enabled: observation.ssl,
        ssl_version: observation.version,
        ssl_cipher: observation.cipher,
        ssl_bits: observation.bits,
        client_certificate,
        ..base
    };
    if observation.ssl {
        report
    } else if expectation.encryption_required() {
        DbSslReport {
            status: DbSslStatus::Unhealthy,
            message: Some("TLS is required but this database connection is not encrypted".to_owned()),
            ..report
        }
    } else {
        DbSslReport {
            message: Some(format!("this database connection is not encrypted (DB_SSL_MODE={})", expectation.mode)),
            ..report
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls13() -> DbSslObservation {
        DbSslObservation {
            ssl: true,
            version: Some("TLSv1.3".into()),
            cipher: Some("TLS_AES_256_GCM_SHA384".into()),
            bits: Some(256),
            client_dn: Some("/CN=creditflow".into()),
        }
    }

    fn plain() -> DbSslObservation {
        DbSslObservation { ssl: false, version: None, cipher: None, bits: None, client_dn: None }
    }

    fn expect(mode: SslMode, required: bool) -> DbSslExpectation {
        DbSslExpectation { mode, required }
    }

    #[test]
    fn a_verified_mutual_tls_connection_is_healthy_and_reported_as_observed() {
        let report = assess_db_ssl(expect(SslMode::VerifyFull, false), Ok(tls13()));
        assert_eq!(report.status, DbSslStatus::Healthy);
        assert!(
            report.ssl_enabled && report.certificate_validation && report.client_certificate && report.ssl_required
        );
        assert_eq!(report.ssl_version.as_deref(), Some("TLSv1.3"));
        assert_eq!(report.ssl_cipher.as_deref(), Some("TLS_AES_256_GCM_SHA384"));
        assert_eq!(report.message, None);
    }

    #[test]
    fn certificate_validation_follows_the_mode() {
        for (mode, validated) in [
            (SslMode::Prefer, false),
            (SslMode::Require, false),
            (SslMode::VerifyCa, true),
            (SslMode::VerifyFull, true),
        ] {
            assert_eq!(assess_db_ssl(expect(mode, false), Ok(tls13())).certificate_validation, validated, "{mode}");
        }
    }

    #[test]
    fn a_plain_connection_is_unhealthy_when_tls_is_required() {
        let by_flag = assess_db_ssl(expect(SslMode::Prefer, true), Ok(plain()));
        assert_eq!(by_flag.status, DbSslStatus::Unhealthy);
        let by_mode = assess_db_ssl(expect(SslMode::Require, false), Ok(plain()));
        assert_eq!(by_mode.status, DbSslStatus::Unhealthy);
        assert!(by_mode.message.is_some_and(|m| m.contains("not encrypted")));
    }

    #[test]
    fn a_plain_connection_that_the_configuration_allows_is_healthy_with_a_warning() {
        let report = assess_db_ssl(expect(SslMode::Prefer, false), Ok(plain()));
        assert_eq!(report.status, DbSslStatus::Healthy);
        assert!(!report.ssl_enabled && !report.client_certificate);
        assert!(report.message.is_some_and(|m| m.contains("DB_SSL_MODE=prefer")));
    }

    #[test]
    fn no_answer_is_unhealthy() {
        let report = assess_db_ssl(expect(SslMode::VerifyFull, false), Err(DbSslProbeFailure::TimedOut { seconds: 2 }));
        assert_eq!(report.status, DbSslStatus::Unhealthy);
        assert_eq!(report.message.as_deref(), Some("the database did not answer within 2 s"));
        assert!(!report.ssl_enabled);
    }

    #[test]
    fn without_a_database_the_report_is_not_applicable() {
        let report = report_without_database();
        assert_eq!(report.status.as_str(), "not_applicable");
        assert!(!report.ssl_enabled);
    }
}
