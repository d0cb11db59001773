//! Branches of a documentation (bump-api.md §3.9): list, create, delete, promote to default; and the version
//! history of a branch.
//!
//! Consistency under races comes from conditional transactions in the store:
//! - delete = { delete the branch IF it exists; check the documentation's `default_branch <> slug` };
//! - promote = { set the documentation's `default_branch` IF it still equals the value read; check the branch
//!   still exists with a head }.
//!
//! Both touch the same two items, so DynamoDB serializes them: promote-vs-delete ends either with the branch
//! promoted and the delete refused (422), or the branch deleted and the promotion refused (404). Two promotions end
//! with the last one winning, each answering as if it ran alone. A deploy racing a delete either lands before it (and
//! is deleted with the branch) or fails its `seq` condition and recreates the branch.

use async_trait::async_trait;
use serde::Serialize;
use time::OffsetDateTime;

use crate::branch_rules::{slug_from_path, validate_branch_name};
use crate::error::{ConflictKind, DomainError, Result};
use crate::model::{Branch, BranchName, DocId, Documentation, Slug, Version};
use crate::ports::Store;
use crate::token::Principal;
use crate::usecases::resolve::resolve_doc;

/// Attempts of an optimistic promotion before giving up (each attempt re-reads the documentation).
const MAX_PROMOTE_ATTEMPTS: usize = 16;

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

/// The contract's `Branch` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BranchView {
    /// The name as given.
    pub name: String,
    /// The slug (identity, URL key).
    pub slug: String,
    /// Whether it is the documentation's default branch.
    pub is_default: bool,
}

impl BranchView {
    /// The view of a stored branch.
    pub fn of(branch: &Branch, doc: &Documentation) -> Self {
        BranchView {
            name: branch.name.name().to_owned(),
            slug: branch.name.slug().as_str().to_owned(),
            is_default: branch.name.slug() == &doc.default_branch,
        }
    }
}

fn branch_not_found() -> DomainError {
    DomainError::NotFound("Branch not found".into())
}

fn slug_of(segment: &str) -> Result<Slug> {
    slug_from_path(segment).ok_or_else(branch_not_found)
}

/// All branches of a documentation, sorted by slug.
pub async fn list_branches(
    store: &dyn Store,
    p: &Principal,
    doc: &str,
) -> Result<(Documentation, Vec<BranchView>)> {
    let doc = resolve_doc(store, p, doc).await?;
    let mut branches = store.list_branches(doc.id).await?;
    branches.sort_by(|a, b| a.name.slug().as_str().cmp(b.name.slug().as_str()));
    let views = branches.iter().map(|b| BranchView::of(b, &doc)).collect();
    Ok((doc, views))
}

/// What `POST /docs/{doc}/branches` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateBranch {
    /// A new branch (201).
    Created(BranchView),
    /// A branch with that slug exists already (204).
    Exists,
}

/// Creates an empty branch.
pub async fn create_branch(
    store: &dyn Store,
    p: &Principal,
    doc: &str,
    name: &str,
    now: OffsetDateTime,
) -> Result<CreateBranch> {
    let doc = resolve_doc(store, p, doc).await?;
    let name = validate_branch_name(name)?;
    match store.create_branch(doc.id, &name, now).await {
        Ok(()) => Ok(CreateBranch::Created(BranchView {
            name: name.name().to_owned(),
            slug: name.slug().as_str().to_owned(),
            is_default: name.slug() == &doc.default_branch,
        })),
        Err(DomainError::Conflict(ConflictKind::AlreadyExists)) => Ok(CreateBranch::Exists),
        Err(e) => Err(e),
    }
}

/// Deletes a branch (not the default one). Its published versions stay readable by id; a branch later created with
/// the same slug starts a new history.
pub async fn delete_branch(store: &dyn Store, p: &Principal, doc: &str, slug: &str) -> Result<()> {
    let doc = resolve_doc(store, p, doc).await?;
    let slug = slug_of(slug)?;
    match store.delete_branch(&doc, &slug).await? {
        Ok(()) => Ok(()),
        Err(BranchWriteError::IsDefault) => Err(DomainError::invalid(
            "branch",
            "The default branch can't be deleted; promote another branch first",
        )),
        Err(BranchWriteError::DocMissing) => {
            Err(DomainError::NotFound("Documentation does not exist".into()))
        }
        Err(_) => Err(branch_not_found()),
    }
}

/// What `PATCH .../set_default` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Promotion {
    /// Already the default branch (200).
    AlreadyDefault,
    /// Now the default branch (204).
    Promoted,
}

/// Makes a branch the documentation's default: from then on the documentation's default view, `doc_public_url`,
/// hub listings and deploys without `branch_name` use it.
pub async fn set_default_branch(
    store: &dyn Store,
    p: &Principal,
    doc: &str,
    slug: &str,
    now: OffsetDateTime,
) -> Result<Promotion> {
    let mut doc = resolve_doc(store, p, doc).await?;
    let slug = slug_of(slug)?;
    for _ in 0..MAX_PROMOTE_ATTEMPTS {
        let branch = store
            .get_branch(doc.id, &slug)
            .await?
            .ok_or_else(branch_not_found)?;
        if branch.head.is_none() {
            return Err(empty_history());
        }
        if doc.default_branch == slug {
            return Ok(Promotion::AlreadyDefault);
        }
        match store.set_default_branch(&doc, &slug, now).await? {
            Ok(()) => return Ok(Promotion::Promoted),
            Err(BranchWriteError::BranchMissing) => return Err(branch_not_found()),
            Err(BranchWriteError::BranchEmpty) => return Err(empty_history()),
            Err(BranchWriteError::DocMissing) => {
                return Err(DomainError::NotFound("Documentation does not exist".into()));
            }
            Err(BranchWriteError::DefaultMoved | BranchWriteError::IsDefault) => {
                doc = store
                    .get_doc(doc.org_id, doc.id)
                    .await?
                    .ok_or_else(|| DomainError::NotFound("Documentation does not exist".into()))?;
            }
        }
    }
    Err(DomainError::unexpected(
        "too much contention on the documentation's default branch",
    ))
}

fn empty_history() -> DomainError {
    DomainError::invalid(
        "branch",
        "Branch has an empty history: deploy a version to it before making it the default",
    )
}

/// The published versions of one branch of a documentation (default branch when `branch` is `None`), newest first.
/// Versions from an earlier, deleted branch with the same slug are not included.
pub async fn list_versions(
    store: &dyn Store,
    p: &Principal,
    doc: &str,
    branch: Option<&str>,
) -> Result<(Documentation, Slug, Vec<Version>)> {
    let doc = resolve_doc(store, p, doc).await?;
    let slug = match branch.map(str::trim).filter(|b| !b.is_empty()) {
        Some(b) => slug_of(b)?,
        None => doc.default_branch.clone(),
    };
    let Some(current) = store.get_branch(doc.id, &slug).await? else {
        return Err(branch_not_found());
    };
    // The store pages through the whole history; the bound only keeps the request count valid.
    let mut versions = store.list_versions(doc.id, &slug, i32::MAX as u32).await?;
    versions.retain(|v| {
        !v.temporary
            && v.created_at >= current.created_at
            && v.seq.is_some_and(|s| s <= current.seq)
    });
    versions.sort_by(|a, b| b.seq.cmp(&a.seq).then(b.created_at.cmp(&a.created_at)));
    Ok((doc, slug, versions))
}
