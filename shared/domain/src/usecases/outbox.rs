//! After a deploy's commit: handing its event to the publisher, and the publisher over any message queue.
//!
//! The transactional outbox (docs/webhooks.md, "How nothing is lost"): the commit writes the event, pending in the
//! outbox, with the version; [`hand_over`] then publishes it and marks it enqueued. Whatever fails or is skipped
//! between the two stays pending, and the outbox sweeper ([`DeliveryService::sweep`]) sends it.
//!
//! [`DeliveryService::sweep`]: crate::usecases::delivery::DeliveryService::sweep

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::error::Result;
use crate::model::Event;
use crate::ports::{EventPublisher, EventRoute, EventStore, MessageQueue};
use crate::webhooks::QueueBody;

/// Hands a committed event to `publisher` as its route says. Never fails: a publish that fails is logged and left to
/// the sweeper (the event is still pending), so a deploy never fails because of the queue.
pub async fn hand_over(store: &dyn EventStore, publisher: &dyn EventPublisher, event: &Event) {
    match publisher.route() {
        EventRoute::Outbox => {}
        EventRoute::AfterCommit => {
            if let Err(e) = publisher.publish(event).await {
                tracing::warn!(event_id = %event.id, error = %e, "event not enqueued after commit; the outbox sweeper will send it");
                return;
            }
            if let Err(e) = store.mark_event_enqueued(event.id).await {
                tracing::warn!(event_id = %event.id, error = %e, "event enqueued but not marked; the sweeper may send it again");
            }
        }
        EventRoute::InCommit { .. } => {
            // The commit wrote the message; this wakes the consumers.
            if let Err(e) = publisher.publish(event).await {
                tracing::warn!(event_id = %event.id, error = %e, "consumers not woken after commit; they find the message on their next look");
            }
        }
    }
}

/// Publishes each committed event by sending its message to a queue after the commit: SQS in AWS, or any
/// [`MessageQueue`] (the local queue when it is not written by the commit itself).
#[derive(Clone)]
pub struct QueuePublisher(pub Arc<dyn MessageQueue>);

impl std::fmt::Debug for QueuePublisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QueuePublisher")
    }
}

#[async_trait]
impl EventPublisher for QueuePublisher {
    fn route(&self) -> EventRoute {
        EventRoute::AfterCommit
    }

    async fn publish(&self, event: &Event) -> Result<()> {
        self.0
            .send(&QueueBody::for_event(event).to_json(), Duration::ZERO)
            .await
    }
}
