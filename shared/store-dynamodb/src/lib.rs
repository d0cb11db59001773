//! DynamoDB adapter for the Specpress storage ports (see `docs/storage.md` for the single-table design).
//!
//! - [`DynamoStore`] implements every port of `specpress_domain::ports` over `aws-sdk-dynamodb`.
//! - [`schema::ensure_table`] creates the table, its GSIs and TTL (local and test use; AWS uses template.yaml).
//! - [`embedded`] runs dynoxide in this process, reached through the very same SDK code path (by default over
//!   the [`in_process`] transport), for `specpress serve` and the tests.

mod attr;
mod blob;
mod branches;
mod diffs;
pub mod embedded;
pub mod in_process;
mod items;
mod local_queue;
pub mod schema;
mod store;
mod webhooks;

pub use local_queue::LocalQueue;
pub use store::DynamoStore;
pub use webhooks::EventQueueSlot;

/// Builds an SDK client for a DynamoDB-compatible endpoint with static credentials (embedded engine, moto).
pub async fn client_for_endpoint(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let conf = local_config_loader(endpoint).load().await;
    aws_sdk_dynamodb::Client::new(&conf)
}

/// SDK configuration for a local endpoint: fixed region and static credentials.
fn local_config_loader(endpoint: &str) -> aws_config::ConfigLoader {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "local",
            "local",
            None,
            None,
            "specpress-static",
        ))
}
