//! Pure business logic: no HTTP framework, database driver, HTTP client, environment or wall clock.
//! Everything the domain needs from the outside world arrives through the traits in [`crate::ports`].
//!
//! One folder per bounded context, each holding its models, its service and its stored runs;
//! [`listing`] (paging and who may see whose records) and [`calendar`] (month and weekday names) are
//! the small kernel they share.

/// Declares a UUID identifier: `new_random`, `from_uuid`, `as_uuid`, and its text form (`Display`,
/// `FromStr`), with the given doc comment and any extra attributes.
macro_rules! uuid_id {
    ($(#[$meta:meta])* $name:ident) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $(#[$meta])*
        pub struct $name(uuid::Uuid);

        impl $name {
            pub fn new_random() -> Self {
                Self(uuid::Uuid::new_v4())
            }
            pub fn from_uuid(id: uuid::Uuid) -> Self {
                Self(id)
            }
            pub fn as_uuid(&self) -> uuid::Uuid {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                uuid::Uuid::parse_str(s).map(Self)
            }
        }
    };
}

pub mod auth;
pub mod calendar;
pub mod cdm;
pub mod chat;
pub mod deals;
pub mod documents;
pub mod extraction;
pub mod health;
pub mod intake;
pub mod listing;
pub mod people;
pub mod quant;
pub mod ratelimit;
pub mod research;
pub mod statements;
