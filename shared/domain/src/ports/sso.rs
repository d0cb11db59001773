//! The organization's OpenID provider settings and the grants its sign-ins leave.

use async_trait::async_trait;

use crate::error::Result;
use crate::model::OrgId;
use crate::session::Session;
use crate::sso::{SsoGrant, SsoSettings};
use crate::token::TokenHash;

/// Storage of provider settings (one per organization) and of sign-in grants.
#[async_trait]
pub trait SsoStore: Send + Sync {
    /// The organization's provider settings, if set.
    async fn get_sso(&self, org: OrgId) -> Result<Option<SsoSettings>>;
    /// Writes the organization's provider settings, only if they are still `previous` (as read: absent, or with the
    /// same incarnation and `updated_at`); `Conflict(Stale)` when they changed meanwhile.
    async fn put_sso(&self, settings: &SsoSettings, previous: Option<&SsoSettings>) -> Result<()>;
    /// Removes the organization's provider settings (every grant under them stops opening anything); `false` when
    /// there were none.
    async fn delete_sso(&self, org: OrgId) -> Result<bool>;
    /// Records a provider sign-in: the grant under `grant_hash` and the session naming it, in one transaction.
    async fn start_sso_session(
        &self,
        grant: &SsoGrant,
        grant_hash: &TokenHash,
        session: &Session,
    ) -> Result<()>;
}
