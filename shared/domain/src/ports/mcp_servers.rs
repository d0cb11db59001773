//! MCP servers storage: servers, their versions and their sealed secrets.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::mcp::{McpServer, McpServerId, McpVersion, McpVersionId, StoredMcpSecret};
use crate::model::{OrgId, Slug};
use crate::token::TokenHash;

/// MCP servers storage.
#[async_trait]
pub trait McpServerStore: Send + Sync {
    /// Creates a server with its slug marker, installation-wide slug claim and id pointer, in one transaction;
    /// `Conflict(SlugTaken)` when the slug is taken anywhere.
    async fn create_mcp_server(&self, server: &McpServer) -> Result<()>;
    /// A server of an organization by id.
    async fn get_mcp_server(&self, org: OrgId, id: McpServerId) -> Result<Option<McpServer>>;
    /// A server of an organization by slug.
    async fn mcp_server_by_slug(&self, org: OrgId, slug: &Slug) -> Result<Option<McpServer>>;
    /// A server by id without its organization (public page, runtime).
    async fn get_mcp_server_public(&self, id: McpServerId) -> Result<Option<McpServer>>;
    /// A server by slug without its organization (public page, runtime).
    async fn mcp_server_by_public_slug(&self, slug: &Slug) -> Result<Option<McpServer>>;
    /// An organization's servers (any order).
    async fn list_mcp_servers(&self, org: OrgId) -> Result<Vec<McpServer>>;
    /// Writes `name`, `description` and `updated_at`; `NotFound` when it no longer exists.
    async fn update_mcp_server(&self, server: &McpServer) -> Result<()>;
    /// Replaces the server's token hash `old` by `new`; `Conflict(Stale)` when the token is no longer `old`.
    async fn rotate_mcp_token(
        &self,
        server: &McpServer,
        old: &TokenHash,
        new: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<()>;
    /// Deletes the server (its entity, marker, claim and pointer in one transaction), then its versions and secrets;
    /// `false` when it did not exist.
    async fn delete_mcp_server(&self, server: &McpServer) -> Result<bool>;
    /// Records `version` (whose blobs are written) and makes it the server's current one, in one transaction, only if
    /// the server's current version is still `expected`; `Conflict(Stale)` otherwise (or when the server is gone).
    async fn commit_mcp_version(
        &self,
        version: &McpVersion,
        expected: Option<McpVersionId>,
    ) -> Result<()>;
    /// A server's versions, newest first.
    async fn list_mcp_versions(&self, server: McpServerId) -> Result<Vec<McpVersion>>;
    /// One version of a server.
    async fn get_mcp_version(
        &self,
        server: McpServerId,
        id: McpVersionId,
    ) -> Result<Option<McpVersion>>;
    /// Writes (creates or replaces) a sealed secret, only while the server exists (`NotFound` otherwise).
    async fn put_mcp_secret(&self, server: &McpServer, secret: &StoredMcpSecret) -> Result<()>;
    /// A server's secrets, by name.
    async fn list_mcp_secrets(&self, server: McpServerId) -> Result<Vec<StoredMcpSecret>>;
    /// Deletes a secret; `false` when it did not exist.
    async fn delete_mcp_secret(&self, server: McpServerId, name: &str) -> Result<bool>;
}
