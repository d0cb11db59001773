//! Webhook deliveries storage, with the payload recorded once per event.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::EventId;
use crate::webhooks::{AttemptRecord, Delivery, DeliveryId, SubscriptionId};

/// Deliveries storage.
#[async_trait]
pub trait DeliveryStore: Send + Sync {
    /// Creates a delivery; `false` (and no change) when one with this id exists.
    async fn create_delivery(&self, d: &Delivery) -> Result<bool>;
    /// Reads a delivery.
    async fn get_delivery(&self, id: DeliveryId) -> Result<Option<Delivery>>;
    /// A subscription's deliveries, newest first.
    async fn list_deliveries(&self, subscription: SubscriptionId) -> Result<Vec<Delivery>>;
    /// Claims the next attempt: succeeds only if the delivery is pending, has made exactly `attempts_made`
    /// attempts of its series and is due at `now`; then sets the count to `attempts_made + 1` and defers the
    /// due time to `lease_until` (so a concurrent copy of the message does not attempt it too).
    async fn claim_attempt(
        &self,
        id: DeliveryId,
        attempts_made: u32,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
    ) -> Result<bool>;
    /// Records a claimed attempt and the new state; a no-op (`false`) if the claim was lost meanwhile.
    async fn record_attempt(&self, id: DeliveryId, record: &AttemptRecord) -> Result<bool>;
    /// Starts a new series of attempts on a finished delivery (manual redelivery):
    /// `Conflict(Stale)` while it is still pending.
    async fn restart_delivery(&self, id: DeliveryId, now: OffsetDateTime) -> Result<()>;
    /// The payload recorded for an event's deliveries, if one was.
    async fn get_event_payload(&self, event: EventId) -> Result<Option<String>>;
    /// Records the payload of an event's deliveries unless one is recorded already, and returns the recorded one
    /// (the first writer's): every delivery of an event carries the same bytes, and a redelivered event message
    /// does not compute the diff again. Kept as long as deliveries ([`DELIVERY_RETENTION`]).
    async fn record_event_payload(
        &self,
        event: EventId,
        payload: &str,
        now: OffsetDateTime,
    ) -> Result<String>;
}
