//! A documentation's accepted changes.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::accepted::AcceptedChanges;
use crate::error::Result;
use crate::model::DocId;

/// Storage of each documentation's accepted changes: one set per documentation, replaced as a whole.
#[async_trait]
pub trait AcceptedChangeStore: Send + Sync {
    /// The documentation's set (empty when none was ever stored, or after an empty one replaced it).
    async fn get_accepted(&self, doc: DocId) -> Result<AcceptedChanges>;
    /// Replaces the documentation's set with `set` (an empty set removes it), at `now`.
    async fn put_accepted(
        &self,
        doc: DocId,
        set: &AcceptedChanges,
        now: OffsetDateTime,
    ) -> Result<()>;
}
