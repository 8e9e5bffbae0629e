//! Request and response bodies of the HTTP API, with their OpenAPI schemas. Bodies carrying
//! secrets implement no `Debug`, so they cannot end up in a log line.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::auth::{Role, SignedIn, User};
use crate::domain::health::db_ssl::DbSslReport;

/// A role, as the API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ApiRole {
    Viewer,
    Analyst,
    Admin,
}

impl From<Role> for ApiRole {
    fn from(role: Role) -> Self {
        match role {
            Role::Viewer => ApiRole::Viewer,
            Role::Analyst => ApiRole::Analyst,
            Role::Admin => ApiRole::Admin,
        }
    }
}

impl From<ApiRole> for Role {
    fn from(role: ApiRole) -> Self {
        match role {
            ApiRole::Viewer => Role::Viewer,
            ApiRole::Analyst => Role::Analyst,
            ApiRole::Admin => Role::Admin,
        }
    }
}

#[derive(Deserialize, ToSchema)]
pub struct LoginRequest {
    /// Case and surrounding spaces do not matter.
    #[schema(
        example = "analyst@example.com",
        pattern = r"^[^@\s\u0000-\u001f\u007f-\u009f]{1,64}@[^@.\s\u0000-\u001f\u007f-\u009f]+(\.[^@.\s\u0000-\u001f\u007f-\u009f]+)+$",
        max_length = 254
    )]
    pub email: String,
    #[schema(example = "correct horse battery staple", format = Password, max_length = 256)]
    pub password: String,
    /// The `device_token` of an earlier successful sign-in to this account from this client: such
    /// a client is throttled by its own failures only, not by guesses others make at the account.
    #[serde(default)]
    pub device_token: Option<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct RefreshRequest {
    /// A refresh token from a sign-in or an earlier refresh; each works once.
    pub refresh_token: String,
}

#[derive(Deserialize, ToSchema)]
pub struct WalletNonceRequest {
    /// `0x` + 40 hex digits; mixed case must be a valid EIP-55 checksum.
    #[schema(example = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", pattern = "^0x[0-9a-fA-F]{40}$")]
    pub wallet_address: String,
}

#[derive(Serialize, ToSchema)]
pub struct WalletNonceResponse {
    /// Single-use; put it in the `Nonce:` line of the message you sign.
    pub nonce: String,
    /// A ready EIP-4361 message for this service; sign exactly these bytes (EIP-191).
    pub message: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

#[derive(Deserialize, ToSchema)]
pub struct WalletLoginRequest {
    #[schema(example = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", pattern = "^0x[0-9a-fA-F]{40}$")]
    pub wallet_address: String,
    /// `0x` + 130 hex digits: r ‖ s ‖ v (v 27/28 or 0/1).
    #[schema(pattern = "^0x[0-9a-fA-F]{130}$")]
    pub signature: String,
    /// The EIP-4361 message that was signed, byte for byte.
    pub message: String,
}

#[derive(Deserialize, ToSchema)]
pub struct CreateUserRequest {
    #[schema(
        example = "analyst@example.com",
        pattern = r"^[^@\s\u0000-\u001f\u007f-\u009f]{1,64}@[^@.\s\u0000-\u001f\u007f-\u009f]+(\.[^@.\s\u0000-\u001f\u007f-\u009f]+)+$",
        max_length = 254
    )]
    pub email: String,
    /// At least 12 characters.
    #[schema(format = Password, min_length = 12, max_length = 256)]
    pub password: String,
    pub role: ApiRole,
}

/// An administrator's change to a user; omitted fields stay as they are.
#[derive(Deserialize, ToSchema)]
pub struct UpdateUserRequest {
    pub role: Option<ApiRole>,
    /// A disabled user cannot sign in or refresh; their refresh tokens are revoked.
    pub disabled: Option<bool>,
}

/// The user a token pair was issued to.
#[derive(Serialize, ToSchema)]
pub struct UserSummary {
    pub id: Uuid,
    /// Absent (null) for wallet-only users.
    pub email: Option<String>,
    pub role: ApiRole,
    /// EIP-55 form; absent for password-only users.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wallet_address: Option<String>,
}

/// A token pair. Send `access_token` as `Authorization: Bearer …`; exchange `refresh_token` at
/// `POST /api/auth/refresh`.
#[derive(Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    pub refresh_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    /// Seconds until the refresh token expires.
    pub refresh_expires_in: i64,
    /// Password sign-in only: keep it on this device and send it with later sign-ins to this
    /// account (`LoginRequest.device_token`). Valid 180 days; it grants no access by itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_token: Option<String>,
    pub user: UserSummary,
}

impl From<SignedIn> for TokenResponse {
    fn from(signed_in: SignedIn) -> Self {
        Self {
            access_token: signed_in.access_token,
            refresh_token: signed_in.refresh_token,
            token_type: "Bearer",
            expires_in: signed_in.expires_in,
            refresh_expires_in: signed_in.refresh_expires_in,
            device_token: signed_in.device_token,
            user: UserSummary::from(&signed_in.user),
        }
    }
}

impl From<&User> for UserSummary {
    fn from(user: &User) -> Self {
        Self {
            id: user.id.as_uuid(),
            email: user.email.as_ref().map(|e| e.as_str().to_owned()),
            role: user.role.into(),
            wallet_address: user.wallet_address.map(|a| a.to_checksum()),
        }
    }
}

/// A user, as administrators and the user themself see it.
#[derive(Serialize, ToSchema)]
pub struct UserResponse {
    pub id: Uuid,
    pub email: Option<String>,
    pub role: ApiRole,
    pub wallet_address: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    pub disabled: bool,
}

impl From<&User> for UserResponse {
    fn from(user: &User) -> Self {
        Self {
            id: user.id.as_uuid(),
            email: user.email.as_ref().map(|e| e.as_str().to_owned()),
            role: user.role.into(),
            wallet_address: user.wallet_address.map(|a| a.to_checksum()),
            created_at: user.created_at,
            disabled: user.disabled,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct UserListResponse {
    pub users: Vec<UserResponse>,
    pub total: usize,
}

#[derive(Serialize, ToSchema)]
pub struct HealthResponse {
    /// `ok` when healthy, `unavailable` otherwise.
    pub status: &'static str,
}

/// The TLS state of the database connection, from the server's view (`pg_stat_ssl`).
#[derive(Serialize, ToSchema)]
pub struct DbSslReportResponse {
    /// `healthy`, `unhealthy` (503) or `not_applicable` (no database configured).
    #[schema(example = "healthy")]
    pub status: &'static str,
    pub ssl_enabled: bool,
    /// `disable`, `prefer`, `require`, `verify-ca` or `verify-full`; null without a database.
    #[schema(example = "verify-full")]
    pub ssl_mode: Option<&'static str>,
    #[schema(example = "TLSv1.3")]
    pub ssl_version: Option<String>,
    #[schema(example = "TLS_AES_256_GCM_SHA384")]
    pub ssl_cipher: Option<String>,
    pub ssl_bits: Option<i32>,
    /// `enabled` for verify-ca and verify-full, else `disabled`.
    #[schema(example = "enabled")]
    pub certificate_validation: &'static str,
    /// Whether a plain connection would be refused (by the mode or DB_SSL_REQUIRED).
    pub ssl_required: bool,
    /// Whether the connection presented a client certificate (mutual TLS).
    pub client_certificate: bool,
    /// Why the status is not healthy, or a warning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl From<DbSslReport> for DbSslReportResponse {
    fn from(report: DbSslReport) -> Self {
        Self {
            status: report.status.as_str(),
            ssl_enabled: report.ssl_enabled,
            ssl_mode: report.ssl_mode.map(|mode| mode.as_str()),
            ssl_version: report.ssl_version,
            ssl_cipher: report.ssl_cipher,
            ssl_bits: report.ssl_bits,
            certificate_validation: if report.certificate_validation { "enabled" } else { "disabled" },
            ssl_required: report.ssl_required,
            client_certificate: report.client_certificate,
            message: report.message,
        }
    }
}
