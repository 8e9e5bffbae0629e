//! The PostgreSQL adapter: TLS exactly as libpq means it, a deadpool pool, embedded migrations,
//! the repositories, the SSL inspector, and the embedded TLS cluster launcher with its
//! certificates.

pub mod certs;
pub mod embedded;
