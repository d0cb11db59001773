//! What only `specpress serve` (and the tests) use; no Lambda function links this crate.
//!
//! - [`embedded`]: the dynoxide engine in this process, reached by the very same `aws-sdk-dynamodb` code as AWS, by
//!   default over the [`in_process`] transport (the SDK's own requests and error parsing, unsigned, without TCP).
//! - [`LocalQueue`]: the persistent webhook queue stored in a partition of the store's table (SQS semantics:
//!   visibility, receive counts, dead letters), and [`InCommitPublisher`], the event publisher that has each deploy
//!   commit write its event's message into that queue within its own transaction.

pub mod embedded;
pub mod in_process;
mod local_queue;

pub use local_queue::{InCommitPublisher, LocalQueue};
