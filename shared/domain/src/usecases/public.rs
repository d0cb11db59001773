//! Public URLs (`doc_public_url`, `diff_public_url`, preview `public_url`). Until rendered pages exist they return
//! the stored definition text.

use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{Bundle, DocId, PreviewId, VersionId};
use crate::ports::Store;

fn missing() -> DomainError {
    DomainError::unexpected("stored definition missing")
}

/// The definition at the head of a documentation's default branch.
pub async fn doc_definition(store: &dyn Store, doc: &str) -> Result<Bundle> {
    let not_found = || DomainError::NotFound("Documentation does not exist".into());
    let id = DocId::parse(doc).ok_or_else(not_found)?;
    let doc = store.get_doc_public(id).await?.ok_or_else(not_found)?;
    let branch = store.get_branch(doc.id, &doc.default_branch).await?;
    let head = branch
        .and_then(|b| b.head)
        .ok_or_else(|| DomainError::NotFound("No version published yet".into()))?;
    let now = OffsetDateTime::now_utc();
    let version = store
        .get_version(head.version_id, now)
        .await?
        .ok_or_else(not_found)?;
    store.get_bundle(&version.blob).await?.ok_or_else(missing)
}

/// The definition of one version of a documentation.
pub async fn version_definition(
    store: &dyn Store,
    doc: &str,
    version: &str,
    now: OffsetDateTime,
) -> Result<Bundle> {
    let not_found = || DomainError::NotFound("Version not found".into());
    let doc = DocId::parse(doc).ok_or_else(not_found)?;
    let id = VersionId::parse(version).ok_or_else(not_found)?;
    let v = store
        .get_version(id, now)
        .await?
        .filter(|v| v.doc_id == doc)
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
