//! `GET /versions/{id}`: a version with its diff against the version it was compared to.

use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{Documentation, Version, VersionId};
use crate::ports::Store;
use crate::ports::{DiffSummary, SpecEngine};
use crate::token::Principal;
use crate::usecases::accepted;
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

/// Loads a version the caller may see, and computes its diff synchronously, with the documentation's accepted
/// changes applied (`breaking` is false once every breaking change is accepted).
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
            let mut diff = engine.diff(&before, &after).await?;
            // The documentation's accepted changes: marked in the details, and no longer breaking CI once every
            // breaking change is accepted (an expired acceptance counts no more). Without any, the engine's flag.
            let found = accepted::apply(store, &doc, &mut diff.details, now).await?;
            if found.accepted > 0 {
                diff.breaking = diff.breaking && found.breaking;
            }
            Some(diff)
        }
        None => None,
    };
    Ok(VersionView { version, doc, diff })
}
