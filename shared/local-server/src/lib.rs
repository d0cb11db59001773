//! What `specpress serve` runs besides its routers; no Lambda function links this crate.
//!
//! - [`data_dir`]: the data directory (owner-only) and the keys a start keeps there when none is configured (the
//!   pagination cursor key, the webhook secret-sealing key).
//! - [`backend`]: where data lives: the embedded engine in the data directory, or a DynamoDB table (AWS or moto)
//!   named by `SPECPRESS_TABLE`.
//! - [`webhooks`]: the webhook event path in-process ([`webhooks::LocalWebhooks`]: the persistent queue in the same
//!   table or SQS, the consumers and the outbox sweeper).
//! - [`self_doc`]: Specpress's own API reference, published as the documentation `specpress-api` at start.

pub mod backend;
pub mod data_dir;
pub mod self_doc;
pub mod webhooks;
