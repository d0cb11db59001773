//! The outbox of durable events: written by the deploy commit, drained by the publisher and the sweeper.

use async_trait::async_trait;

use crate::error::Result;
use crate::model::{Event, EventId};

/// The outbox of durable events (written by [`VersionStore::commit`], drained by the webhook issue).
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Events not yet marked as enqueued, oldest first.
    async fn pending_events(&self, limit: u32) -> Result<Vec<Event>>;
    /// Marks an event as handed to the queue (removes it from the pending index). Idempotent.
    async fn mark_event_enqueued(&self, id: EventId) -> Result<()>;
    /// Reads an event.
    async fn get_event(&self, id: EventId) -> Result<Option<Event>>;
}
