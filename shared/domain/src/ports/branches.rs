//! Branches: reading them (every deploy) and the branch administration writes (create, delete, promote).

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::{Branch, BranchName, DocId, Documentation, Slug};

/// Branches.
#[async_trait]
pub trait BranchStore: Send + Sync {
    /// Reads a branch and its head.
    async fn get_branch(&self, doc: DocId, slug: &Slug) -> Result<Option<Branch>>;
    /// All branches of a documentation, by slug.
    async fn list_branches(&self, doc: DocId) -> Result<Vec<Branch>>;
}

/// Why a branch delete or promotion was refused by its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchWriteError {
    /// The branch does not exist (any more).
    BranchMissing,
    /// The branch exists but has no published version.
    BranchEmpty,
    /// The branch is the documentation's default branch (delete).
    IsDefault,
    /// The documentation's default branch changed since it was read (promotion): re-read and retry.
    DefaultMoved,
    /// The documentation no longer exists.
    DocMissing,
}

/// Branch writes beyond what deploys do.
#[async_trait]
pub trait BranchAdminStore: Send + Sync {
    /// Creates an empty branch. `Conflict(AlreadyExists)` if a branch with that slug exists; `NotFound` if the
    /// documentation is gone.
    async fn create_branch(&self, doc: DocId, name: &BranchName, now: OffsetDateTime)
    -> Result<()>;
    /// Deletes a branch unless it is the default one, atomically. `Ok(Err(reason))` when a condition failed.
    async fn delete_branch(
        &self,
        doc: &Documentation,
        slug: &Slug,
    ) -> Result<Result<(), BranchWriteError>>;
    /// Makes `slug` the default branch if the documentation's default is still `doc.default_branch` and the branch
    /// has a head, atomically. `Ok(Err(reason))` when a condition failed.
    async fn set_default_branch(
        &self,
        doc: &Documentation,
        slug: &Slug,
        now: OffsetDateTime,
    ) -> Result<Result<(), BranchWriteError>>;
}
