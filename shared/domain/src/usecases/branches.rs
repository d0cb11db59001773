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
//! is deleted with the branch) or fails its `seq` and generation condition and recreates the branch.
//!
//! A branch's history is keyed by its generation (minted when the branch item is created), so a branch recreated
//! with the same slug starts an empty history without any filter, and every version committed to an incarnation is
//! in that incarnation's history, whatever the interleaving of the deploys that created it.

use serde::Serialize;
use time::OffsetDateTime;

use crate::branch_rules::{slug_from_path, validate_branch_name};
use crate::error::{ConflictKind, DomainError, Result};
use crate::model::{Branch, Documentation, Slug, Version};
use crate::ports::{BranchWriteError, Store};
use crate::token::Principal;
use crate::usecases::resolve::resolve_doc;

/// Attempts of an optimistic promotion before giving up (each attempt re-reads the documentation).
const MAX_PROMOTE_ATTEMPTS: usize = 16;

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

/// A branch's version history as read at one instant: the branch item says how long it is (`seq`: its versions are
/// at positions `1..=seq`) and which incarnation it is (its generation, part of the history's key), so neither the
/// count nor the choice of versions needs the history itself.
#[derive(Debug, Clone)]
pub struct History {
    /// The documentation.
    pub doc: Documentation,
    /// The branch as read.
    pub branch: Branch,
}

impl History {
    /// The branch's slug.
    pub fn slug(&self) -> &Slug {
        self.branch.name.slug()
    }

    /// Number of published versions in this history.
    pub fn total(&self) -> u64 {
        self.branch.seq
    }
}

/// Where a page of a history starts (newest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryStart {
    /// After skipping this many of the newest versions (`page = N`).
    Offset(u64),
    /// With the versions older than this position (a cursor: the position of the last version already returned).
    Below(u64),
}

/// The history of one branch of a documentation (the default branch when `branch` is `None`). Versions of an earlier,
/// deleted branch with the same slug are not part of it (another generation), though they stay readable by id.
pub async fn version_history(
    store: &dyn Store,
    p: &Principal,
    doc: &str,
    branch: Option<&str>,
) -> Result<History> {
    let doc = resolve_doc(store, p, doc).await?;
    let slug = match branch.map(str::trim).filter(|b| !b.is_empty()) {
        Some(b) => slug_of(b)?,
        None => doc.default_branch.clone(),
    };
    let branch = store
        .get_branch(doc.id, &slug)
        .await?
        .ok_or_else(branch_not_found)?;
    Ok(History { doc, branch })
}

/// One page of a history, newest first: at most `limit` versions from `start`. Positions are dense (`1..=seq`), so a
/// page is one range read of the history index whatever its depth, for page numbers as for cursors; versions
/// published after the branch was read (positions above `seq`) are left for the next read.
pub async fn history_page(
    store: &dyn Store,
    history: &History,
    start: HistoryStart,
    limit: u32,
) -> Result<Vec<Version>> {
    let Some(positions) = page_positions(history.total(), start, limit) else {
        return Ok(Vec::new());
    };
    store.list_versions(&history.branch, positions).await
}

/// The positions of a page of a history of `total` versions, newest first; `None` for an empty page.
fn page_positions(
    total: u64,
    start: HistoryStart,
    limit: u32,
) -> Option<std::ops::RangeInclusive<u64>> {
    let newest = match start {
        HistoryStart::Offset(skip) => total.checked_sub(skip)?,
        HistoryStart::Below(position) => position.checked_sub(1)?.min(total),
    };
    if newest == 0 || limit == 0 {
        return None;
    }
    Some(newest.saturating_sub(u64::from(limit) - 1).max(1)..=newest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_of_a_history_are_dense_position_ranges_newest_first() {
        use HistoryStart::*;
        assert_eq!(
            page_positions(100_000, Offset(0), 10),
            Some(99_991..=100_000)
        );
        assert_eq!(page_positions(100_000, Offset(99_990), 10), Some(1..=10));
        assert_eq!(
            page_positions(25, Offset(20), 10),
            Some(1..=5),
            "a short last page"
        );
        assert_eq!(page_positions(25, Offset(25), 10), None, "past the end");
        assert_eq!(page_positions(25, Offset(u64::MAX), 10), None);
        assert_eq!(page_positions(25, Below(16), 10), Some(6..=15));
        assert_eq!(page_positions(25, Below(3), 10), Some(1..=2));
        assert_eq!(
            page_positions(25, Below(1), 10),
            None,
            "nothing below the first"
        );
        assert_eq!(page_positions(25, Below(0), 10), None);
        assert_eq!(
            page_positions(25, Below(u64::MAX), 10),
            Some(16..=25),
            "never above the branch as read"
        );
        assert_eq!(page_positions(0, Offset(0), 10), None, "an empty branch");
        assert_eq!(page_positions(5, Offset(0), 0), None);
        assert_eq!(page_positions(1, Offset(0), 100), Some(1..=1));
    }
}
