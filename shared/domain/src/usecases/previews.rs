//! `POST /previews`, `PUT /previews/{id}`, and `POST /validations`.

use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::{Analysis, Bundle, Preview, PreviewId, Retention};
use crate::ports::SpecEngine;
use crate::ports::Store;
use crate::usecases::PREVIEW_TTL;

/// Validates a definition without storing anything.
pub async fn validate(engine: &dyn SpecEngine, bundle: &Bundle) -> Result<Analysis> {
    engine.check(bundle).await
}

/// Creates a preview, live for 30 minutes.
pub async fn create_preview(
    store: &dyn Store,
    engine: &dyn SpecEngine,
    bundle: &Bundle,
    now: OffsetDateTime,
) -> Result<Preview> {
    let analysis = engine.check(bundle).await?;
    let expires_at = now + PREVIEW_TTL;
    let blob = store
        .put_bundle(bundle, Retention::Until(expires_at))
        .await?;
    let preview = Preview {
        id: PreviewId::new(),
        blob,
        analysis,
        expires_at,
        created_at: now,
        updated_at: now,
    };
    store.create_preview(&preview).await?;
    Ok(preview)
}

/// Replaces a live preview's definition and extends it for 30 minutes from now.
pub async fn update_preview(
    store: &dyn Store,
    engine: &dyn SpecEngine,
    id: &str,
    bundle: &Bundle,
    now: OffsetDateTime,
) -> Result<Preview> {
    let not_found = || DomainError::NotFound("Preview not found".into());
    let id = PreviewId::parse(id).ok_or_else(not_found)?;
    let existing = store.get_preview(id, now).await?.ok_or_else(not_found)?;
    let analysis = engine.check(bundle).await?;
    let expires_at = now + PREVIEW_TTL;
    let blob = store
        .put_bundle(bundle, Retention::Until(expires_at))
        .await?;
    let preview = Preview {
        id,
        blob,
        analysis,
        expires_at,
        created_at: existing.created_at,
        updated_at: now,
    };
    match store.update_preview(&preview, now).await {
        Ok(()) => Ok(preview),
        Err(DomainError::Conflict(ConflictKind::Stale)) => Err(not_found()),
        Err(e) => Err(e),
    }
}
