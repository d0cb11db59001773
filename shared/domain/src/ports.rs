//! Storage ports: one trait per capability, plus the [`Store`] supertrait that adapters implement and that
//! `AppState` carries as `Arc<dyn Store>`. Callers take the narrowest trait they need.
//!
//! Conventions every implementation follows (the DynamoDB adapter is the reference, see docs/storage.md):
//! - reads of single items are strongly consistent;
//! - uniqueness (slugs, branch names, ids) is enforced by conditional writes and reported as
//!   [`DomainError::Conflict`](crate::DomainError::Conflict);
//! - expired temporary objects are reported as absent even if TTL has not deleted them yet.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::*;
use crate::token::{Principal, TokenHash, TokenOwner};

/// Token lookup and rotation.
#[async_trait]
pub trait TokenStore: Send + Sync {
    /// The principal a token hash grants, if any.
    async fn principal_by_token(&self, hash: &TokenHash) -> Result<Option<Principal>>;
    /// Replaces the owner's token by `new` in one transaction: the old token stops working at once. With `current`,
    /// only if the owner's token is still that one (an organization replacing the very token it called with).
    /// `Conflict(Stale)` when the owner does not exist, its token is not `current`, or it was rotated concurrently.
    async fn rotate_token(
        &self,
        owner: TokenOwner,
        current: Option<&TokenHash>,
        new: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<()>;
}

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
}

/// Branches.
#[async_trait]
pub trait BranchStore: Send + Sync {
    /// Reads a branch and its head.
    async fn get_branch(&self, doc: DocId, slug: &Slug) -> Result<Option<Branch>>;
    /// All branches of a documentation, by slug.
    async fn list_branches(&self, doc: DocId) -> Result<Vec<Branch>>;
}

/// What the branch must look like for a publish to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchExpectation {
    /// The branch does not exist yet; the commit creates it as the incarnation `generation`.
    Absent {
        /// The new branch's incarnation (fresh for each attempt).
        generation: BranchGeneration,
    },
    /// The branch exists with this `seq`, as the incarnation `generation` (`None`: a branch created before
    /// generations existed); the commit sets `seq + 1`. A branch deleted and recreated meanwhile fails this even if
    /// it reached the same `seq` again.
    AtSeq {
        /// The `seq` read.
        seq: u64,
        /// The incarnation read.
        generation: Option<BranchGeneration>,
    },
}

impl BranchExpectation {
    /// The expectation of a publish onto the branch as read (`None`: absent, so a new incarnation).
    pub fn of(current: Option<&Branch>) -> Self {
        match current {
            Some(b) => BranchExpectation::AtSeq {
                seq: b.seq,
                generation: b.generation,
            },
            None => BranchExpectation::Absent {
                generation: BranchGeneration::new(),
            },
        }
    }
}

/// One atomic deploy: everything here is written in a single transaction or not at all.
#[derive(Debug, Clone)]
pub struct Commit {
    /// A documentation to create in the same transaction (auto-create), with its token.
    pub create_doc: Option<(Documentation, TokenHash)>,
    /// The version to write.
    pub version: Version,
    /// For a published version: the branch head move (name, expectation). `None` for temporary versions.
    pub branch: Option<(BranchName, BranchExpectation)>,
    /// For a published version: the durable event.
    pub event: Option<Event>,
    /// Whether the event goes to the webhook queue. `false` when the documentation has never had a webhook
    /// subscription ([`Documentation::never_subscribed`]): the event is recorded, neither queued nor pending in the
    /// outbox, and the commit holds only if that is still true of the documentation; if a first subscription was
    /// created meanwhile, the commit fails with `Conflict(Stale)` and writes nothing.
    pub queue_event: bool,
    /// For a published version: its definition, stored permanently with the commit (inside the transaction when
    /// it fits in one item, else just before it; content-addressed and idempotent either way).
    pub blob: Option<EncodedBundle>,
}

/// A bundle encoded for storage: its content address and the compressed bytes the store writes. A [`Commit`]
/// carries it so the store can write the definition in the deploy transaction itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedBundle {
    /// Where it lives once written.
    pub blob: BlobRef,
    /// The compressed serialization (produced and read by the store; opaque here).
    pub compressed: std::sync::Arc<[u8]>,
}

/// Versions.
#[async_trait]
pub trait VersionStore: Send + Sync {
    /// Writes a [`Commit`] atomically. `Conflict(BranchMoved)` when the branch expectation fails,
    /// `Conflict(SlugTaken)` when the auto-created documentation's slug was taken meanwhile.
    async fn commit(&self, commit: &Commit) -> Result<()>;
    /// Reads a version; `None` if absent or expired at `now`.
    async fn get_version(&self, id: VersionId, now: OffsetDateTime) -> Result<Option<Version>>;
    /// The published versions of `branch`'s history (its incarnation only) whose position (`seq`) lies in
    /// `positions`, newest first, one per position. One indexed range read: its cost depends on the width of the
    /// range, not on the length of the history.
    async fn list_versions(
        &self,
        branch: &Branch,
        positions: std::ops::RangeInclusive<u64>,
    ) -> Result<Vec<Version>>;
}

/// Content-addressed definition storage.
#[async_trait]
pub trait BlobStore: Send + Sync {
    /// Stores a bundle losslessly (any size up to the API limit) and returns its reference. Idempotent.
    /// A permanent write makes an existing temporary blob permanent; a temporary write never shortens a life.
    async fn put_bundle(&self, bundle: &Bundle, retention: Retention) -> Result<BlobRef>;
    /// Encodes a bundle (serialization, content address, compression) without writing it, for a [`Commit`].
    async fn encode_bundle(&self, bundle: &Bundle) -> Result<EncodedBundle>;
    /// Reads a bundle back byte for byte, verifying its hash; `None` if absent.
    async fn get_bundle(&self, blob: &BlobRef) -> Result<Option<Bundle>>;
}

/// Previews.
#[async_trait]
pub trait PreviewStore: Send + Sync {
    /// Creates a preview.
    async fn create_preview(&self, preview: &Preview) -> Result<()>;
    /// Replaces a live preview's content and expiry; `Conflict(Stale)` if it is absent or expired at `now`.
    async fn update_preview(&self, preview: &Preview, now: OffsetDateTime) -> Result<()>;
    /// Reads a preview; `None` if absent or expired at `now`.
    async fn get_preview(&self, id: PreviewId, now: OffsetDateTime) -> Result<Option<Preview>>;
}

/// The outbox of durable events (written by [`VersionStore::commit`], drained by the webhook issue).
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Events not yet marked as enqueued, oldest first.
    async fn pending_events(&self, limit: u32) -> Result<Vec<Event>>;
    /// Marks an event as handed to the queue (removes it from the pending index). Idempotent.
    async fn mark_event_enqueued(&self, id: EventId) -> Result<()>;
    /// Reads an event.
    async fn get_event(&self, id: EventId) -> Result<Option<Event>>;
}

/// Everything: what `AppState` holds.
pub trait Store:
    TokenStore
    + OrgStore
    + HubStore
    + DocStore
    + BranchStore
    + VersionStore
    + BlobStore
    + PreviewStore
    + EventStore
    + crate::webhooks::SubscriptionStore
    + crate::webhooks::DeliveryStore
    + crate::webhooks::EventPublisher
    + crate::usecases::diffs::DiffStore
    + crate::usecases::branches::BranchAdminStore
{
}

impl<T> Store for T where
    T: TokenStore
        + OrgStore
        + HubStore
        + DocStore
        + BranchStore
        + VersionStore
        + BlobStore
        + PreviewStore
        + EventStore
        + crate::webhooks::SubscriptionStore
        + crate::webhooks::DeliveryStore
        + crate::webhooks::EventPublisher
        + crate::usecases::diffs::DiffStore
        + crate::usecases::branches::BranchAdminStore
{
}
