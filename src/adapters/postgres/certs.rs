//! Certificates for the embedded cluster and tests (rcgen).
