//! Hubs.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::{Hub, HubId, OrgId, Slug, Visibility};
use crate::token::TokenHash;

/// Hubs.
#[async_trait]
pub trait HubStore: Send + Sync {
    /// Creates a hub and its token; `Conflict(SlugTaken)` when the slug is used (across the installation).
    async fn create_hub(&self, hub: &Hub, token: &TokenHash) -> Result<()>;
    /// Reads a hub by id.
    async fn get_hub(&self, org: OrgId, id: HubId) -> Result<Option<Hub>>;
    /// Reads a hub by slug.
    async fn hub_by_slug(&self, org: OrgId, slug: &Slug) -> Result<Option<Hub>>;
    /// All hubs of an organization, by slug.
    async fn list_hubs(&self, org: OrgId) -> Result<Vec<Hub>>;
    /// Reads a hub by its public slug (public URLs: slugs are unique across the installation).
    async fn hub_by_public_slug(&self, slug: &Slug) -> Result<Option<Hub>>;
    /// Sets a hub's visibility (and its `modified_at`) and answers the hub as stored; `NotFound` when absent.
    async fn set_hub_visibility(
        &self,
        org: OrgId,
        id: HubId,
        visibility: Visibility,
        now: OffsetDateTime,
    ) -> Result<Hub>;
}
