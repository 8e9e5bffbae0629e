//! Authentication and authorization: users and roles, credential policy, token claims,
//! Sign-In with Ethereum, login throttling, and the access rules every route obeys.

pub mod access;
pub mod ethereum;
pub mod models;
pub mod service;
pub mod sessions;
pub mod siwe;
pub mod throttle;
pub mod tokens;

pub use access::{Access, Operation, required_access};
pub use models::{EmailAddress, NewUser, Password, PasswordHash, Principal, Role, User, UserChanges, UserId};
pub use service::{AuthError, AuthService, AuthSettings, SignInContext, SignedIn, WalletChallenge};
pub use throttle::{ThrottlePolicy, ThrottleScope};
pub use tokens::{TokenClaims, TokenError, TokenType};
