//! Hardened outbound HTTP client (work in progress).
