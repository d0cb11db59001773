//! `GET /versions/{id}`: a version with its diff against the version it was compared to.

use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{Documentation, Version, VersionId};
use crate::ports::Store;
use crate::ports::{DiffSummary, SpecEngine};
use crate::token::Principal;
use crate::usecases::auth::can_access_doc;

/// A version, its documentation, and its diff (absent for a first version or an expired baseline).
#[derive(Debug, Clone)]
pub struct VersionView {
    /// The version.
    pub version: Version,
    /// Its documentation.
    pub doc: Documentation,
    /// The diff against `version.previous_version_id`.
    pub diff: Option<DiffSummary>,
}

fn not_found() -> DomainError {
    DomainError::NotFound("Version not found".into())
}

/// Loads a version the caller may see, and computes its diff synchronously.
pub async fn get_version(
    store: &dyn Store,
    engine: &dyn SpecEngine,
    p: &Principal,
    id: &str,
    now: OffsetDateTime,
) -> Result<VersionView> {
    let id = VersionId::parse(id).ok_or_else(not_found)?;
    let version = store.get_version(id, now).await?.ok_or_else(not_found)?;
    if version.org_id != p.org_id {
        return Err(not_found());
    }
    let doc = store
        .get_doc(p.org_id, version.doc_id)
        .await?
        .ok_or_else(not_found)?;
    if !can_access_doc(p, &doc) {
        return Err(not_found());
    }
    let previous = match version.previous_version_id {
        Some(pid) => store.get_version(pid, now).await?,
        None => None,
    };
    let diff = match previous {
        Some(prev) => {
            let missing = || DomainError::unexpected("stored definition missing");
            let before = store.get_bundle(&prev.blob).await?.ok_or_else(missing)?;
            let after = store.get_bundle(&version.blob).await?.ok_or_else(missing)?;
            Some(engine.diff(&before, &after).await?)
        }
        None => None,
    };
    Ok(VersionView { version, doc, diff })
}
