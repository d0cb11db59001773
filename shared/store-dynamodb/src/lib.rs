//! DynamoDB adapter for the Specpress storage ports (see `docs/storage.md` for the single-table design).
//!
//! - [`DynamoStore`] implements every storage port of `specpress_domain::ports` over `aws-sdk-dynamodb`. It persists;
//!   it never publishes (a deploy's commit writes a queue message only when the commit names a queue stored in this
//!   table, see [`queue_items`]).
//! - [`schema::ensure_table`] creates the table, its GSIs and TTL (local and test use; AWS uses template.yaml).
//! - [`items`]: keys and entity <-> item conversions (docs/storage.md).
//! - [`queue_items`] and [`attr`]: the item layout of a queue stored in the table and the attribute helpers, shared
//!   with that queue's adapter (`specpress-local`, which also runs the embedded engine).

mod accepted;
pub mod attr;
mod blob;
mod branches;
mod default_branch;
mod diffs;
mod digests;
mod followers;
mod hostnames;
pub mod items;
mod mcp_servers;
pub mod queue_items;
mod readers;
pub mod schema;
mod sessions;
mod settings;
mod sso;
mod store;
mod transact;
mod webhooks;

pub use store::DynamoStore;

/// Builds an SDK client for a DynamoDB-compatible endpoint with static credentials (embedded engine, moto).
pub async fn client_for_endpoint(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let conf = local_config_loader(endpoint).load().await;
    aws_sdk_dynamodb::Client::new(&conf)
}

/// SDK configuration for a local endpoint: fixed region and static credentials.
pub fn local_config_loader(endpoint: &str) -> aws_config::ConfigLoader {
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
