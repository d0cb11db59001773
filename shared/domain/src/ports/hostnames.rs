//! Custom hostnames of documentations and hubs.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::hostname::{CustomDomain, Hostname};
use crate::model::{DocOrHub, OrgId};

/// Storage of custom hostnames. Any documentation or hub may claim a hostname (a pending claim blocks nobody, so
/// nobody can hold a name they do not control); the first claim verified gets the hostname's one installation-wide
/// route, and the hostname is mirrored on the item of what it serves.
#[async_trait]
pub trait HostnameStore: Send + Sync {
    /// The hostname set on a documentation or hub, if any.
    async fn domain_of(&self, org: OrgId, target: DocOrHub) -> Result<Option<CustomDomain>>;
    /// Records the pending claim of `domain.hostname` for its target and the hostname on the target's item, in one
    /// transaction, releasing `replacing` (the target's previous hostname, as read: its claim, and its route when
    /// the target holds it).
    /// `Conflict(AlreadyExists)` when the hostname is already verified for anything else (of any organization);
    /// `Conflict(Stale)` when the target's hostname is no longer `replacing`'s (or the target no longer exists).
    async fn set_domain(
        &self,
        domain: &CustomDomain,
        replacing: Option<&CustomDomain>,
    ) -> Result<()>;
    /// Gives the hostname's route to this claim and marks it verified (claim and target item), in one transaction:
    /// `Conflict(AlreadyExists)` when another target's claim was verified first; `Conflict(Stale)` when the claim
    /// changed or was removed meanwhile (another value, another hostname on the target).
    async fn mark_domain_verified(&self, domain: &CustomDomain, now: OffsetDateTime) -> Result<()>;
    /// Removes the claim, the route when the target holds it, and the hostname on the target's item, in one
    /// transaction; `false` when it was no longer the target's hostname.
    async fn delete_domain(&self, domain: &CustomDomain) -> Result<bool>;
    /// The verified claim a hostname routes to, if any (what `Host`-based routing reads: one item).
    async fn verified_domain(&self, hostname: &Hostname) -> Result<Option<CustomDomain>>;
}
