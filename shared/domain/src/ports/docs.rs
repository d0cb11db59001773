//! Documentations.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::{DocId, Documentation, HubId, OrgId, Slug, TryIt, Visibility};
use crate::token::TokenHash;

/// Documentations.
#[async_trait]
pub trait DocStore: Send + Sync {
    /// Creates a documentation and its token; `Conflict(SlugTaken)` when the slug is used (slugs are unique across
    /// the installation, since public URLs name documentations by slug alone).
    async fn create_doc(&self, doc: &Documentation, token: &TokenHash) -> Result<()>;
    /// Reads a documentation by id.
    async fn get_doc(&self, org: OrgId, id: DocId) -> Result<Option<Documentation>>;
    /// Reads a documentation by id without knowing its organization (public URLs).
    async fn get_doc_public(&self, id: DocId) -> Result<Option<Documentation>>;
    /// Reads a documentation by slug.
    async fn doc_by_slug(&self, org: OrgId, slug: &Slug) -> Result<Option<Documentation>>;
    /// Reads a documentation by its public slug, without knowing its organization (public URLs: documentation
    /// slugs are unique across the installation).
    async fn doc_by_public_slug(&self, slug: &Slug) -> Result<Option<Documentation>>;
    /// Documentations of an organization (all, or one hub's), by slug.
    async fn list_docs(&self, org: OrgId, hub: Option<HubId>) -> Result<Vec<Documentation>>;
    /// Sets a documentation's visibility (and its `modified_at`) and answers the documentation as stored;
    /// `NotFound` when absent.
    async fn set_doc_visibility(
        &self,
        org: OrgId,
        id: DocId,
        visibility: Visibility,
        now: OffsetDateTime,
    ) -> Result<Documentation>;
    /// Sets whether and how readers may send requests from its operation pages (and its `modified_at`) and answers
    /// the documentation as stored; `NotFound` when absent.
    async fn set_doc_try_it(
        &self,
        org: OrgId,
        id: DocId,
        try_it: TryIt,
        now: OffsetDateTime,
    ) -> Result<Documentation>;
}
