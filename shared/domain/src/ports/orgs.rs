//! Organizations and the installation's default one.

use async_trait::async_trait;

use crate::error::Result;
use crate::model::{OrgId, Organization};
use crate::token::TokenHash;

/// Organizations.
#[async_trait]
pub trait OrgStore: Send + Sync {
    /// Creates an organization with its first token. With `as_default`, also records it as the installation's
    /// default organization (the one `specpress serve` bootstraps); `Conflict(AlreadyExists)` if one is recorded.
    async fn create_org(
        &self,
        org: &Organization,
        token: &TokenHash,
        as_default: bool,
    ) -> Result<()>;
    /// The installation's default organization, if recorded.
    async fn get_default_org(&self) -> Result<Option<OrgId>>;
    /// Reads an organization.
    async fn get_org(&self, id: OrgId) -> Result<Option<Organization>>;
}
