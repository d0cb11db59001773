//! Publishing committed events to the webhook queue.
//!
//! The deploy commits through the store, which persists (the version, the branch head and the event, pending in the
//! outbox); then it hands the committed event to an [`EventPublisher`]. Where the queue is separate from the data
//! (SQS), the publisher sends the message after the commit and the deploy marks the event enqueued; the outbox sweeper
//! sends whatever a failed or skipped publish left pending. Where the queue lives in the data store itself (the
//! local server's queue is a partition of the same table), the publisher asks the commit to write the message in its
//! own transaction ([`EventRoute::InCommit`]), so the event is never pending, and after the commit only wakes the
//! queue's consumers.

use async_trait::async_trait;

use crate::error::Result;
use crate::model::Event;

/// Where a committed event's queue message is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventRoute {
    /// No queue: events stay pending in the outbox and the sweeper sends them.
    Outbox,
    /// After the commit: the commit leaves the event pending in the outbox, [`EventPublisher::publish`] sends its
    /// message, then the deploy marks it enqueued. A failure leaves it pending for the sweeper.
    AfterCommit,
    /// In the commit: the queue named here is stored with the data, so the commit writes the event's message into it
    /// in its own transaction and the event is never pending; [`EventPublisher::publish`] then only wakes the
    /// queue's consumers.
    InCommit {
        /// The store-resident queue.
        queue: String,
    },
}

/// Hands committed events to the webhook queue. Best effort: a deploy never fails because of the queue (the caller
/// logs a failure and the outbox sweeper covers it).
#[async_trait]
pub trait EventPublisher: Send + Sync {
    /// Where the commit writes the message of the event it records.
    fn route(&self) -> EventRoute;
    /// Publishes a committed event: sends its message ([`EventRoute::AfterCommit`]), or wakes the consumers of the
    /// message the commit wrote ([`EventRoute::InCommit`]).
    async fn publish(&self, event: &Event) -> Result<()>;
}

/// The publisher of a process with no queue: events wait in the outbox for the sweeper.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPublisher;

#[async_trait]
impl EventPublisher for NoPublisher {
    fn route(&self) -> EventRoute {
        EventRoute::Outbox
    }

    async fn publish(&self, _: &Event) -> Result<()> {
        Ok(())
    }
}
