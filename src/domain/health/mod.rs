//! Health of the service's dependencies as the API reports it: what the live database connection's TLS state
//! means against the configured expectation.

pub mod db_ssl;
