//! Versions and the deploy commit: one transaction writes a version, its branch head move and its event.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::{
    Branch, BranchGeneration, BranchName, Documentation, Event, Slug, Version, VersionId,
};
use crate::ports::blobs::EncodedBundle;
use crate::token::TokenHash;

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
    /// With `queue_event`: the store-resident queue into which the commit writes the event's message in its own
    /// transaction, the event then never pending in the outbox ([`EventRoute::InCommit`]). `None`: the event stays
    /// pending in the outbox until it is published.
    ///
    /// [`EventRoute::InCommit`]: crate::ports::EventRoute::InCommit
    pub enqueue_in: Option<String>,
    /// For a published version: its definition, stored permanently with the commit (inside the transaction when
    /// it fits in one item, else just before it; content-addressed and idempotent either way).
    pub blob: Option<EncodedBundle>,
    /// For a published version on a branch other than the documentation's default: the default branch as read,
    /// which has no published version. The branch this version is published on becomes the default in the same
    /// transaction, which holds only if the default is still that branch and it still has no published version
    /// (else `Conflict(Stale)` and nothing is written). A documentation whose first release went to a branch shows
    /// that release at its URL, not an empty default branch.
    pub default_from: Option<Slug>,
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
