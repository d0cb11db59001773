//! The webhook event path after the deploy transaction: publishing events to the queue, sweeping events that
//! never got there, fanning events out to deliveries, and making each delivery attempt.
//!
//! Every function here is idempotent under the queue's at-least-once delivery:
//! - fan-out creates deliveries with deterministic ids (one per event and subscription);
//! - an attempt is *claimed* by a conditional write on the delivery's attempt count and due time, so a
//!   duplicate message cannot attempt the same delivery concurrently, and a delivery recorded as delivered
//!   is never POSTed again.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use specpress_webhook::RetryPolicy;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::{DomainError, Result};
use crate::model::{
    DocId, Documentation, EVENT_DOCUMENTATION_PUBLISHED, Event, EventId, Hub, OrgId,
};
use crate::ports::SpecEngine;
use crate::ports::Store;
use crate::ports::{EventPublisher, MessageQueue, WebhookSender};
use crate::webhooks::*;

mod attempt;
mod bodies;
pub mod digests;
mod followers;
pub mod formats;
mod payload;

pub use digests::DigestRun;
pub use followers::{KIND_DIGEST_ENTRY, KIND_RELEASE_MAIL};
use payload::{api_json, doc_json};
pub use payload::{bounded_filtered_payload, bounded_payload, details_url};

/// How long a claimed attempt holds its delivery (the 15 s request plus margin); a crashed consumer's claim
/// lapses after it and the queue's redelivery retries.
pub const ATTEMPT_LEASE: Duration = Duration::from_secs(60);

/// What the queue consumer must do with a message after [`DeliveryService::handle`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// Finished (delivered, failed for good, or nothing to do): acknowledge (delete) it.
    Done,
    /// Not finished: make it visible again after this delay and report it as failed.
    RetryIn(Duration),
    /// Could not be processed (malformed, storage failure): report it as failed and let the queue's
    /// visibility timeout and redrive policy (dead-letter queue) take over.
    Failed,
}

/// Everything the event path needs, built once per process and shared by the queue consumer, the sweeper,
/// the subscriptions API and the deploy's publisher.
#[derive(Clone)]
pub struct DeliveryService {
    /// Storage.
    pub store: Arc<dyn Store>,
    /// Diffs for the payload.
    pub engine: Arc<dyn SpecEngine>,
    /// The work queue.
    pub queue: Arc<dyn MessageQueue>,
    /// Where this process's deploys hand their committed events (the queue above, after the commit or within it):
    /// what `specpress serve` puts in its app state with the webhook routes.
    pub publisher: Arc<dyn EventPublisher>,
    /// Outbound HTTP.
    pub sender: Arc<dyn WebhookSender>,
    /// Opens the sealed secrets.
    pub sealer: SecretSealer,
    /// Retry schedule and disable rules.
    pub policy: RetryPolicy,
    /// Base of public URLs in payloads (no trailing slash), e.g. `https://docs.example.com`.
    pub public_base_url: String,
    /// Outbound mail for the readers who follow a documentation by email; `None` when this process sends none.
    pub mailer: Option<Arc<dyn crate::ports::Mailer>>,
}

impl std::fmt::Debug for DeliveryService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeliveryService")
            .field("policy", &self.policy)
            .field("public_base_url", &self.public_base_url)
            .finish_non_exhaustive()
    }
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

fn to_std(d: time::Duration) -> Duration {
    Duration::try_from(d).unwrap_or(Duration::ZERO)
}

fn to_time(d: Duration) -> time::Duration {
    time::Duration::try_from(d).unwrap_or(time::Duration::MAX)
}

/// The `webhook-id` of an event's deliveries: constant across retries and redeliveries.
pub fn webhook_id_for_event(event: EventId) -> String {
    format!("msg_{}", event.0.simple())
}

/// The `webhook-id` of a ping delivery.
pub fn webhook_id_for_ping(delivery: DeliveryId) -> String {
    format!("msg_ping_{}", delivery.0.simple())
}

/// Hard bound on a webhook body, whatever the diff (docs/webhooks.md, "Payload size"). A diff whose full details
/// would make the body larger is sent as a bounded summary of its top-level items, marked
/// `diff.details_truncated`, with `diff.details_url` linking to the full details.
pub const MAX_PAYLOAD_BYTES: usize = 64 * 1024;
/// Largest top-level item of a truncated payload's summary (an item still larger once stripped to its identity is
/// left out and only counted).
pub const MAX_SUMMARY_ITEM_BYTES: usize = 1024;
/// Longest text taken from a document into a payload (`info.title`, `info.version`), cut on a char boundary.
pub const MAX_PAYLOAD_TEXT_BYTES: usize = 1024;

/// Longest a message may be deferred by one visibility change (SQS allows 12 h from the receive).
pub const MAX_VISIBILITY_DELAY: Duration = Duration::from_secs(12 * 3600 - 60);

impl DeliveryService {
    /// Sends an event to the queue and marks it enqueued (removing it from the outbox index).
    pub async fn publish(&self, event: &Event) -> Result<()> {
        let body = QueueBody::for_event(event).to_json();
        self.queue.send(&body, Duration::ZERO).await?;
        self.store.mark_event_enqueued(event.id).await
    }

    /// Re-sends events committed more than `grace` ago that were never marked enqueued (the deploy died or
    /// the queue refused the send). Returns how many were sent. At most `limit` per call.
    pub async fn sweep(&self, grace: Duration, limit: u32) -> Result<usize> {
        let cutoff = OffsetDateTime::now_utc() - to_time(grace);
        let mut sent = 0;
        for event in self.store.pending_events(limit).await? {
            if event.created_at > cutoff {
                // Oldest first: everything after this one is younger still.
                break;
            }
            self.publish(&event).await?;
            sent += 1;
        }
        Ok(sent)
    }

    /// Processes one received message. Never panics and never fails the batch: a malformed body is
    /// [`Disposition::Failed`] for this message alone.
    ///
    /// A failure that handling the message again cannot mend ([`is_permanent`]: the store refusing a record as
    /// invalid, an event whose version is missing) is logged at error level with the ids involved and the message is
    /// moved to the dead-letter queue at once (alarmed), instead of coming back every visibility timeout until the
    /// redrive policy gives up. Other failures (a store or queue outage) are [`Disposition::Failed`]: the message comes
    /// back after its visibility timeout.
    pub async fn handle(&self, body: &str) -> Disposition {
        let Some(parsed) = QueueBody::parse(body) else {
            return Disposition::Failed;
        };
        let mut at = Trace::default();
        let result = match parsed {
            QueueBody::Event { event_id, doc_id } => {
                at.event = Some(event_id);
                at.doc = doc_id;
                self.fan_out_traced(event_id, doc_id, &mut at)
                    .await
                    .map(|()| Disposition::Done)
            }
            QueueBody::Delivery { delivery_id } => {
                at.delivery = Some(delivery_id);
                self.attempt(delivery_id, body, &mut at).await
            }
        };
        let error = match result {
            Ok(disposition) => return disposition,
            Err(e) => e,
        };
        let (event_id, doc_id, subscription_id, delivery_id) = at.fields();
        let reason = describe(&error);
        if !is_permanent(&error) {
            tracing::warn!(%event_id, %doc_id, %subscription_id, %delivery_id, error = %reason,
                "webhook message not processed; it comes back after its visibility timeout");
            return Disposition::Failed;
        }
        tracing::error!(%event_id, %doc_id, %subscription_id, %delivery_id, error = %reason,
            "webhook message failed permanently; moved to the dead-letter queue");
        match self.queue.send_to_dead_letter(body).await {
            Ok(()) => Disposition::Done,
            Err(e) => {
                tracing::error!(%event_id, %doc_id, %subscription_id, %delivery_id, error = %describe(&e),
                    "could not dead-letter the message; the queue's redrive policy will");
                Disposition::Failed
            }
        }
    }

    /// Creates one delivery per enabled subscription that wants the event's branch, and queues each one.
    ///
    /// `doc_hint` is the event's documentation as its message names it (the message is ours: written with the
    /// event, by the commit or the publisher). When that documentation has no enabled subscription (the common
    /// case), there is nothing to deliver and the event itself is not read. Once read, the event is the authority:
    /// subscriptions are those of its own documentation.
    pub async fn fan_out(&self, event_id: EventId, doc_hint: Option<DocId>) -> Result<()> {
        self.fan_out_traced(event_id, doc_hint, &mut Trace::default())
            .await
    }

    async fn fan_out_traced(
        &self,
        event_id: EventId,
        doc_hint: Option<DocId>,
        at: &mut Trace,
    ) -> Result<()> {
        let mut listed = None;
        if let Some(doc) = doc_hint {
            let subs = self.store.list_subscriptions(doc).await?;
            // Or its hub's, if it is in a hub that has some (documentations of a hub queue their events, so a hub's
            // subscription gets the releases of documentations added later too).
            if !subs.iter().any(|s| s.enabled)
                && !self.hub_subscriptions(doc).await?.iter().any(|s| s.enabled)
                && !self.has_release_followers(doc).await?
            {
                return Ok(());
            }
            listed = Some((doc, subs));
        }
        let Some(event) = self.store.get_event(event_id).await? else {
            return Ok(());
        };
        at.doc = Some(event.doc_id);
        let mut all = match listed {
            Some((doc, subs)) if doc == event.doc_id => subs,
            _ => self.store.list_subscriptions(event.doc_id).await?,
        };
        all.extend(self.hub_subscriptions(event.doc_id).await?);
        let subs: Vec<Subscription> = all
            .into_iter()
            .filter(|s| {
                s.enabled && s.org_id == event.org_id && s.wants_branch(event.branch.as_str())
            })
            .collect();
        if subs.is_empty() && !self.has_release_followers(event.doc_id).await? {
            return Ok(());
        }
        let payload = self.recorded_payload(&event).await?;
        let mut bodies = bodies::Bodies::new(self, &event, payload);
        for sub in subs {
            at.subscription = Some(sub.id);
            // Only a subscription with a matching change gets the event (its filter's items, in its format).
            let Some(body) = bodies.for_subscription(&sub).await? else {
                continue;
            };
            at.delivery = Some(DeliveryId::for_event(event.id, sub.id));
            self.deliver_event(&event, &sub, body).await?;
        }
        at.subscription = None;
        at.delivery = None;
        self.mail_followers(&event, &mut bodies).await
    }

    /// The subscriptions of the hub of documentation `doc` (none when it is in no hub).
    async fn hub_subscriptions(&self, doc: DocId) -> Result<Vec<Subscription>> {
        let Some(hub) = self.store.get_doc_public(doc).await?.and_then(|d| d.hub_id) else {
            return Ok(Vec::new());
        };
        let mut subs = self.store.list_subscriptions(DocId(hub.0)).await?;
        subs.retain(|s| s.hub);
        Ok(subs)
    }

    /// Creates the delivery of an event to one subscription with its body, and queues it while it is pending.
    async fn deliver_event(
        &self,
        event: &Event,
        sub: &Subscription,
        payload: String,
    ) -> Result<()> {
        let now = OffsetDateTime::now_utc();
        {
            let id = DeliveryId::for_event(event.id, sub.id);
            let delivery = Delivery {
                event_id: Some(event.id),
                webhook_id: webhook_id_for_event(event.id),
                payload,
                // The subscription's own key (a hub's subscription is stored under its hub), where attempts read it.
                ..Delivery::pending(
                    id,
                    event.org_id,
                    sub.doc_id,
                    sub.id,
                    event.kind.clone(),
                    now,
                )
            };
            let created = self.store.create_delivery(&delivery).await?;
            // A delivery created by an earlier copy of this message may not have been queued (the consumer
            // died in between): queue it again while it is pending; duplicates are harmless (claims).
            let pending = created
                || self
                    .store
                    .get_delivery(id)
                    .await?
                    .is_some_and(|d| d.status == DeliveryStatus::Pending);
            if pending {
                self.queue
                    .send(
                        &QueueBody::Delivery { delivery_id: id }.to_json(),
                        Duration::ZERO,
                    )
                    .await?;
            }
        }
        Ok(())
    }

    /// Creates and queues a `ping` delivery to one subscription (`POST .../webhooks/{id}/test`).
    pub async fn ping(&self, doc: &Documentation, sub: &Subscription) -> Result<Delivery> {
        let standard = |id: DeliveryId, now| {
            json!({
                "event": EVENT_PING,
                "id": id.to_string(),
                "created_at": rfc3339(now),
                "documentation": doc_json(doc),
                "branch": null,
                "version": null,
                "structural": false,
                "api": api_json(doc, None, &self.public_base_url),
                "diff": null,
            })
        };
        self.queue_ping(sub, doc.org_id, &doc.name, standard).await
    }

    /// Creates and queues a `ping` delivery to one of a hub's subscriptions: the envelope names the hub
    /// (`hub`), `documentation` and `api` are null.
    pub async fn ping_hub(&self, hub: &Hub, sub: &Subscription) -> Result<Delivery> {
        let standard = |id: DeliveryId, now| {
            json!({
                "event": EVENT_PING,
                "id": id.to_string(),
                "created_at": rfc3339(now),
                "hub": {"id": hub.id.to_string(), "slug": hub.slug.as_str(), "name": hub.name},
                "documentation": null,
                "branch": null,
                "version": null,
                "structural": false,
                "api": null,
                "diff": null,
            })
        };
        self.queue_ping(sub, hub.org_id, &hub.name, standard).await
    }

    async fn queue_ping(
        &self,
        sub: &Subscription,
        org: OrgId,
        name: &str,
        standard: impl FnOnce(DeliveryId, OffsetDateTime) -> serde_json::Value,
    ) -> Result<Delivery> {
        let now = OffsetDateTime::now_utc();
        let id = DeliveryId::new();
        let body = match sub.format {
            Format::Standard => standard(id, now),
            Format::Slack => formats::slack_ping(name),
            Format::Teams => formats::teams_ping(name),
        };
        let delivery = Delivery {
            webhook_id: webhook_id_for_ping(id),
            payload: serde_json::to_string(&body).map_err(DomainError::unexpected)?,
            ..Delivery::pending(id, org, sub.doc_id, sub.id, EVENT_PING, now)
        };
        self.store.create_delivery(&delivery).await?;
        self.queue
            .send(
                &QueueBody::Delivery { delivery_id: id }.to_json(),
                Duration::ZERO,
            )
            .await?;
        Ok(delivery)
    }

    /// Starts a new series of attempts of a finished delivery and queues it.
    ///
    /// Returns the delivery as restarted, read before its message is queued: once queued, a consumer may attempt
    /// it at once, so a later read could already show the attempt's outcome instead of the restart.
    pub async fn redeliver(&self, id: DeliveryId) -> Result<Option<Delivery>> {
        self.store
            .restart_delivery(id, OffsetDateTime::now_utc())
            .await?;
        let restarted = self.store.get_delivery(id).await?;
        self.queue
            .send(
                &QueueBody::Delivery { delivery_id: id }.to_json(),
                Duration::ZERO,
            )
            .await?;
        Ok(restarted)
    }
}

/// Where the ids of the message being handled are collected as they become known, for its log lines.
#[derive(Debug, Default)]
struct Trace {
    event: Option<EventId>,
    doc: Option<DocId>,
    subscription: Option<SubscriptionId>,
    delivery: Option<DeliveryId>,
}

impl Trace {
    /// The ids as log fields (`-` when not known).
    fn fields(&self) -> (String, String, String, String) {
        fn or_dash<T: ToString>(v: Option<T>) -> String {
            v.map_or_else(|| "-".to_owned(), |v| v.to_string())
        }
        (
            or_dash(self.event),
            or_dash(self.doc),
            or_dash(self.subscription),
            or_dash(self.delivery),
        )
    }
}

/// Whether handling the same message again would fail the same way: a record the store refuses as invalid
/// (DynamoDB's `ValidationException`), a missing object the message depends on. Everything else (outages,
/// throttling, timeouts) may pass on a later receive.
pub fn is_permanent(e: &DomainError) -> bool {
    matches!(
        e,
        DomainError::Invalid { .. } | DomainError::NotFound(_) | DomainError::BadRequest(_)
    )
}

/// An error and its sources on one line, for the log (domain errors never carry secrets or payloads).
fn describe(e: &DomainError) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// `true` when the event kind is one this path delivers.
pub fn is_deliverable_kind(kind: &str) -> bool {
    kind == EVENT_DOCUMENTATION_PUBLISHED || kind == EVENT_PING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permanent_failures_are_invalid_records_and_missing_objects_only() {
        assert!(is_permanent(&DomainError::invalid("delivery", "too large")));
        assert!(is_permanent(&DomainError::NotFound("version".into())));
        assert!(!is_permanent(&DomainError::unexpected("throttled")));
        assert!(!is_permanent(&DomainError::Conflict(
            crate::error::ConflictKind::Stale
        )));
    }

    #[test]
    fn webhook_ids_are_valid_standard_webhooks_message_ids() {
        assert!(
            specpress_webhook::validate_message_id(&webhook_id_for_event(EventId::new())).is_ok()
        );
        assert!(
            specpress_webhook::validate_message_id(&webhook_id_for_ping(DeliveryId::new())).is_ok()
        );
    }
}
