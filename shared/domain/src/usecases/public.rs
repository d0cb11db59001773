//! Public URLs (`doc_public_url`, `diff_public_url`, preview `public_url`): finding what a reader asked for. A
//! documentation is named by its slug (slugs are unique across the installation); its id is also accepted, and the
//! caller answers that form with a redirect to the slug form.

use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{
    Branch, Bundle, DocId, Documentation, Hub, PreviewId, Slug, Version, VersionId,
};
use crate::ports::Store;
use crate::usecases::branches::{History, HistoryStart, history_page};
use crate::usecases::hubs::HubApi;

fn missing() -> DomainError {
    DomainError::unexpected("stored definition missing")
}

fn doc_not_found() -> DomainError {
    DomainError::NotFound("Documentation does not exist".into())
}

/// How a reader named a documentation.
#[derive(Debug, Clone)]
pub enum PublicDoc {
    /// By its slug: the canonical form.
    Slug(Documentation),
    /// By its id: answer with a redirect to the slug form.
    Id(Documentation),
}

impl PublicDoc {
    /// The documentation, however it was named.
    pub fn doc(&self) -> &Documentation {
        match self {
            PublicDoc::Slug(d) | PublicDoc::Id(d) => d,
        }
    }
}

/// Finds a documentation by slug or id for a public page. `NotFound` when there is none.
pub async fn find_doc(store: &dyn Store, key: &str) -> Result<PublicDoc> {
    if let Some(id) = DocId::parse(key) {
        return store
            .get_doc_public(id)
            .await?
            .map(PublicDoc::Id)
            .ok_or_else(doc_not_found);
    }
    let slug = Slug::parse(key).map_err(|_| doc_not_found())?;
    store
        .doc_by_public_slug(&slug)
        .await?
        .map(PublicDoc::Slug)
        .ok_or_else(doc_not_found)
}

/// The definition at the head of a documentation's default branch.
pub async fn doc_definition(store: &dyn Store, doc: &Documentation) -> Result<Bundle> {
    let branch = store.get_branch(doc.id, &doc.default_branch).await?;
    let head = branch
        .and_then(|b| b.head)
        .ok_or_else(|| DomainError::NotFound("No version published yet".into()))?;
    let now = OffsetDateTime::now_utc();
    let version = store
        .get_version(head.version_id, now)
        .await?
        .ok_or_else(doc_not_found)?;
    store.get_bundle(&version.blob).await?.ok_or_else(missing)
}

/// The definition of one published version of a documentation.
pub async fn version_definition(
    store: &dyn Store,
    doc: &Documentation,
    version: &str,
    now: OffsetDateTime,
) -> Result<Bundle> {
    let not_found = || DomainError::NotFound("Version not found".into());
    let id = VersionId::parse(version).ok_or_else(not_found)?;
    let v = store
        .get_version(id, now)
        .await?
        .filter(|v| v.doc_id == doc.id)
        .ok_or_else(not_found)?;
    store.get_bundle(&v.blob).await?.ok_or_else(missing)
}

/// The definition of a live preview.
pub async fn preview_definition(
    store: &dyn Store,
    id: &str,
    now: OffsetDateTime,
) -> Result<Bundle> {
    let not_found = || DomainError::NotFound("Preview not found".into());
    let id = PreviewId::parse(id).ok_or_else(not_found)?;
    let p = store.get_preview(id, now).await?.ok_or_else(not_found)?;
    store.get_bundle(&p.blob).await?.ok_or_else(missing)
}

fn hub_not_found() -> DomainError {
    DomainError::NotFound("Hub does not exist".into())
}

/// Finds a hub by its slug for a public page (`/hub/{slug}`). `NotFound` when there is none.
pub async fn find_hub(store: &dyn Store, key: &str) -> Result<Hub> {
    let slug = Slug::parse(key).map_err(|_| hub_not_found())?;
    store
        .hub_by_public_slug(&slug)
        .await?
        .ok_or_else(hub_not_found)
}

/// The documentations a hub's public page lists, with the head of their default branch, by slug.
pub async fn hub_apis(store: &dyn Store, hub: &Hub, now: OffsetDateTime) -> Result<Vec<HubApi>> {
    crate::usecases::hubs::hub_apis(store, hub, now).await
}

/// A branch of a documentation found for a public page; `None` when it does not exist.
pub async fn doc_branch(
    store: &dyn Store,
    doc: &Documentation,
    slug: &Slug,
) -> Result<Option<Branch>> {
    store.get_branch(doc.id, slug).await
}

/// One page of a branch's published versions, newest first: at most `limit` after skipping the `skip` newest. One
/// range read of the branch's history index whatever its length (docs/storage.md, "Branch histories").
pub async fn releases(
    store: &dyn Store,
    doc: &Documentation,
    branch: &Branch,
    skip: u64,
    limit: u32,
) -> Result<Vec<Version>> {
    let history = History {
        doc: doc.clone(),
        branch: branch.clone(),
    };
    history_page(store, &history, HistoryStart::Offset(skip), limit).await
}

/// A version of a documentation, published or temporary (until it expires): what its change page shows.
pub async fn doc_version(
    store: &dyn Store,
    doc: &Documentation,
    version: &str,
    now: OffsetDateTime,
) -> Result<Version> {
    let not_found = || DomainError::NotFound("Version not found".into());
    let id = VersionId::parse(version).ok_or_else(not_found)?;
    store
        .get_version(id, now)
        .await?
        .filter(|v| v.doc_id == doc.id)
        .ok_or_else(not_found)
}

/// The version another one was compared against, when it still exists (a temporary baseline expires).
pub async fn previous_version(
    store: &dyn Store,
    version: &Version,
    now: OffsetDateTime,
) -> Result<Option<Version>> {
    match version.previous_version_id {
        Some(id) => Ok(store
            .get_version(id, now)
            .await?
            .filter(|p| p.doc_id == version.doc_id)),
        None => Ok(None),
    }
}

/// The documentations a hub lists on its public pages, by slug.
pub async fn hub_docs(store: &dyn Store, hub: &Hub) -> Result<Vec<Documentation>> {
    let mut docs = store.list_docs(hub.org_id, Some(hub.id)).await?;
    docs.sort_by(|a, b| a.slug.as_str().cmp(b.slug.as_str()));
    Ok(docs)
}
