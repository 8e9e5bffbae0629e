//! Unit tests of the authentication use cases.
