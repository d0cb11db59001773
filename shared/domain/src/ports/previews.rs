//! Previews.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::{Preview, PreviewId};

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
