//! The embedded PostgreSQL cluster launcher.
