//! Use cases: each HTTP handler calls exactly one of these; the queue consumer and the sweeper call
//! [`delivery`].

pub mod accepted;
pub mod auth;
pub mod branches;
pub mod delivery;
pub mod deploy;
pub mod diffs;
pub mod follow;
pub mod hostnames;
pub mod hubs;
pub mod manage;
pub mod mcp_servers;
pub mod outbox;
pub mod previews;
pub mod public;
pub mod readers;
pub mod resolve;
pub mod sso;
pub mod versions;
pub mod webhooks;

use time::Duration;

/// Life of a temporary version (bump-api.md §3.2: "a time to live of 7 days").
pub const TEMPORARY_VERSION_TTL: Duration = Duration::days(7);
/// Life of a preview after its last update (bump-api.md §3.5).
pub const PREVIEW_TTL: Duration = Duration::minutes(30);
/// Upper bound on optimistic-concurrency retries of one deploy.
pub const MAX_COMMIT_ATTEMPTS: usize = 64;
