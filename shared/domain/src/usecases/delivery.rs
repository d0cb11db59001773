//! The webhook event path after the deploy transaction: publishing events to the queue, sweeping events that
//! never got there, fanning events out to deliveries, and making each delivery attempt.
//!
//! Every function here is idempotent under the queue's at-least-once delivery:
//! - fan-out creates deliveries with deterministic ids (one per event and subscription);
//! - an attempt is *claimed* by a conditional write on the delivery's attempt count and due time, so a
//!   duplicate message cannot attempt the same delivery concurrently, and a delivery recorded as delivered
//!   is never POSTed again.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::json;
use specpress_webhook::{AttemptOutcome, Decision, RetryPolicy, parse_retry_after, sign_headers};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::engine::SpecEngine;
use crate::error::{DomainError, Result};
use crate::model::{DocId, Documentation, EVENT_DOCUMENTATION_PUBLISHED, Event, EventId, Version};
use crate::ports::Store;
use crate::webhooks::*;

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
    /// Outbound HTTP.
    pub sender: Arc<dyn WebhookSender>,
    /// Opens the sealed secrets.
    pub sealer: SecretSealer,
    /// Retry schedule and disable rules.
    pub policy: RetryPolicy,
    /// Base of public URLs in payloads (no trailing slash), e.g. `https://docs.example.com`.
    pub public_base_url: String,
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
    pub async fn handle(&self, body: &str) -> Disposition {
        let Some(parsed) = QueueBody::parse(body) else {
            return Disposition::Failed;
        };
        let result = match parsed {
            QueueBody::Event { event_id, doc_id } => self
                .fan_out(event_id, doc_id)
                .await
                .map(|()| Disposition::Done),
            QueueBody::Delivery { delivery_id } => self.attempt(delivery_id, body).await,
        };
        result.unwrap_or(Disposition::Failed)
    }

    /// Creates one delivery per enabled subscription that wants the event's branch, and queues each one.
    ///
    /// `doc_hint` is the event's documentation as its message names it (the message is ours: written with the
    /// event, by the commit or the publisher). When that documentation has no enabled subscription (the common
    /// case), there is nothing to deliver and the event itself is not read. Once read, the event is the authority:
    /// subscriptions are those of its own documentation.
    pub async fn fan_out(&self, event_id: EventId, doc_hint: Option<DocId>) -> Result<()> {
        let mut listed = None;
        if let Some(doc) = doc_hint {
            let subs = self.store.list_subscriptions(doc).await?;
            if !subs.iter().any(|s| s.enabled) {
                return Ok(());
            }
            listed = Some((doc, subs));
        }
        let Some(event) = self.store.get_event(event_id).await? else {
            return Ok(());
        };
        let all = match listed {
            Some((doc, subs)) if doc == event.doc_id => subs,
            _ => self.store.list_subscriptions(event.doc_id).await?,
        };
        let subs: Vec<Subscription> = all
            .into_iter()
            .filter(|s| {
                s.enabled && s.org_id == event.org_id && s.wants_branch(event.branch.as_str())
            })
            .collect();
        if subs.is_empty() {
            return Ok(());
        }
        let payload = self.event_payload(&event).await?;
        let now = OffsetDateTime::now_utc();
        for sub in subs {
            let id = DeliveryId::for_event(event.id, sub.id);
            let delivery = Delivery {
                id,
                org_id: event.org_id,
                doc_id: event.doc_id,
                subscription_id: sub.id,
                event_id: Some(event.id),
                kind: event.kind.clone(),
                webhook_id: webhook_id_for_event(event.id),
                payload: payload.clone(),
                status: DeliveryStatus::Pending,
                attempt_count: 0,
                next_attempt_at: now,
                attempts: Vec::new(),
                created_at: now,
                updated_at: now,
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

    /// The exact JSON body of an event's deliveries: Bump.sh's `{api, diff}` plus the envelope.
    pub async fn event_payload(&self, event: &Event) -> Result<String> {
        let now = OffsetDateTime::now_utc();
        let missing =
            || DomainError::unexpected("event refers to a missing version or documentation");
        let version = self
            .store
            .get_version(event.version_id, now)
            .await?
            .ok_or_else(missing)?;
        let doc = self
            .store
            .get_doc(event.org_id, event.doc_id)
            .await?
            .ok_or_else(missing)?;
        let previous = match event.previous_version_id {
            Some(p) => self.store.get_version(p, now).await?,
            None => None,
        };
        let diff = match &previous {
            Some(prev) => {
                let before = self
                    .store
                    .get_bundle(&prev.blob)
                    .await?
                    .ok_or_else(missing)?;
                let after = self
                    .store
                    .get_bundle(&version.blob)
                    .await?
                    .ok_or_else(missing)?;
                Some(self.engine.diff(&before, &after).await?)
            }
            None => None,
        };
        // A first version is all structure; otherwise the diff engine tells structural changes from
        // content-only ones (descriptions, summaries, examples, formatting).
        let structural = match &diff {
            None => true,
            Some(d) => d.structural,
        };
        let base = &self.public_base_url;
        let doc_url = crate::urls::of_doc(base, &doc);
        let diff_json = json!({
            "id": version.id.to_string(),
            "title": version.analysis.title,
            "public_url": format!("{doc_url}/changes/{}", version.id),
            "breaking": diff.as_ref().is_some_and(|d| d.breaking),
            "details": diff.as_ref().map(|d| d.details.clone()).unwrap_or_else(|| json!([])),
            "previous_version_url": previous.as_ref().map(|p| format!("{doc_url}/changes/{}", p.id)),
            "current_version_url": format!("{doc_url}/changes/{}", version.id),
        });
        let body = json!({
            "event": event.kind,
            "id": event.id.to_string(),
            "created_at": rfc3339(event.created_at),
            "documentation": doc_json(&doc),
            "branch": event.branch.as_str(),
            "version": version_json(&version),
            "structural": structural,
            "api": api_json(&doc, Some(&version), base),
            "diff": diff_json,
        });
        serde_json::to_string(&body).map_err(DomainError::unexpected)
    }

    /// Creates and queues a `ping` delivery to one subscription (`POST .../webhooks/{id}/test`).
    pub async fn ping(&self, doc: &Documentation, sub: &Subscription) -> Result<Delivery> {
        let now = OffsetDateTime::now_utc();
        let id = DeliveryId::new();
        let body = json!({
            "event": EVENT_PING,
            "id": id.to_string(),
            "created_at": rfc3339(now),
            "documentation": doc_json(doc),
            "branch": null,
            "version": null,
            "structural": false,
            "api": api_json(doc, None, &self.public_base_url),
            "diff": null,
        });
        let delivery = Delivery {
            id,
            org_id: doc.org_id,
            doc_id: doc.id,
            subscription_id: sub.id,
            event_id: None,
            kind: EVENT_PING.into(),
            webhook_id: webhook_id_for_ping(id),
            payload: serde_json::to_string(&body).map_err(DomainError::unexpected)?,
            status: DeliveryStatus::Pending,
            attempt_count: 0,
            next_attempt_at: now,
            attempts: Vec::new(),
            created_at: now,
            updated_at: now,
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

    /// Makes the next attempt of a delivery if it is due.
    async fn attempt(&self, id: DeliveryId, raw_body: &str) -> Result<Disposition> {
        let Some(delivery) = self.store.get_delivery(id).await? else {
            return Ok(Disposition::Done);
        };
        if delivery.status != DeliveryStatus::Pending {
            // Delivered or failed already: a redelivered message never POSTs again.
            return Ok(Disposition::Done);
        }
        let now = OffsetDateTime::now_utc();
        if delivery.next_attempt_at > now {
            return Ok(Disposition::RetryIn(to_std(delivery.next_attempt_at - now)));
        }
        let sub = match self
            .store
            .get_subscription(delivery.doc_id, delivery.subscription_id)
            .await?
        {
            Some(s) if s.enabled => s,
            other => {
                let reason = if other.is_some() {
                    "subscription disabled"
                } else {
                    "subscription deleted"
                };
                self.finish_without_attempt(&delivery, reason, now).await?;
                return Ok(Disposition::Done);
            }
        };
        let lease = now + to_time(ATTEMPT_LEASE);
        if !self
            .store
            .claim_attempt(id, delivery.attempt_count, now, lease)
            .await?
        {
            // Another copy of the message holds it; look again once its lease or schedule is due.
            return Ok(match self.store.get_delivery(id).await? {
                Some(d) if d.status == DeliveryStatus::Pending => Disposition::RetryIn(
                    to_std(d.next_attempt_at - now).max(Duration::from_millis(10)),
                ),
                _ => Disposition::Done,
            });
        }
        let number = delivery.attempt_count + 1;

        // Sign the exact bytes sent, with every active secret, at this attempt's timestamp.
        let mut secrets = Vec::new();
        for s in sub.secrets.iter().filter(|s| s.is_active(now)) {
            secrets.push(self.sealer.open(sub.id, &s.sealed)?);
        }
        let body = delivery.payload.as_bytes();
        let signed = sign_headers(&secrets, &delivery.webhook_id, now.unix_timestamp(), body)
            .map_err(DomainError::unexpected)?;
        let mut headers: Vec<(String, String)> = vec![
            ("content-type".into(), "application/json".into()),
            ("user-agent".into(), "Specpress-Webhooks/1".into()),
        ];
        for (name, value) in &signed {
            if let Ok(v) = value.to_str() {
                headers.push((name.as_str().to_owned(), v.to_owned()));
            }
        }

        let started = Instant::now();
        let outcome = self.sender.post(&sub.url, &headers, body).await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let after = OffsetDateTime::now_utc();
        let (attempt_outcome, attempt) = match outcome {
            PostOutcome::Response {
                status,
                retry_after,
                body_excerpt,
            } => {
                let ra = retry_after
                    .as_deref()
                    .and_then(|v| parse_retry_after(v, SystemTime::now()));
                (
                    AttemptOutcome::Response {
                        status,
                        retry_after: ra,
                    },
                    Attempt {
                        number,
                        at: now,
                        status_code: Some(status),
                        error: None,
                        latency_ms,
                        response: Some(excerpt(&body_excerpt)),
                    },
                )
            }
            PostOutcome::Timeout => (
                AttemptOutcome::Timeout,
                Attempt {
                    number,
                    at: now,
                    status_code: None,
                    error: Some("timeout".into()),
                    latency_ms,
                    response: None,
                },
            ),
            PostOutcome::Failed(e) => (
                AttemptOutcome::ConnectionError,
                Attempt {
                    number,
                    at: now,
                    status_code: None,
                    error: Some(e),
                    latency_ms,
                    response: None,
                },
            ),
        };
        let success = matches!(
            specpress_webhook::classify(&attempt_outcome),
            specpress_webhook::OutcomeClass::Success
        );
        let failing_since = self
            .store
            .record_endpoint_outcome(sub.doc_id, sub.id, success, after)
            .await?;
        let decision = {
            let mut rng = rand::rng();
            self.policy.decide(
                number,
                &attempt_outcome,
                failing_since.map(SystemTime::from),
                SystemTime::from(after),
                &mut rng,
            )
        };
        let (status, next, disposition, disable) = match decision {
            Decision::Delivered => (DeliveryStatus::Delivered, after, Disposition::Done, None),
            Decision::RetryIn(d) => {
                let d = d.min(MAX_VISIBILITY_DELAY);
                (
                    DeliveryStatus::Pending,
                    after + to_time(d),
                    Disposition::RetryIn(d),
                    None,
                )
            }
            Decision::DisableNow => (
                DeliveryStatus::Failed,
                after,
                Disposition::Done,
                Some("the endpoint answered 410 Gone"),
            ),
            Decision::DisableFailingTooLong => (
                DeliveryStatus::Failed,
                after,
                Disposition::Done,
                Some("the endpoint failed every attempt for 5 days"),
            ),
            Decision::Exhausted => (DeliveryStatus::Failed, after, Disposition::Done, None),
        };
        let recorded = self
            .store
            .record_attempt(
                id,
                &AttemptRecord {
                    attempt,
                    status,
                    next_attempt_at: next,
                },
            )
            .await?;
        if let Some(reason) = disable {
            self.store
                .disable_subscription(sub.doc_id, sub.id, reason, after)
                .await?;
        }
        if decision == Decision::Exhausted && recorded {
            // The schedule is spent: the message goes to the dead-letter queue for inspection and redrive.
            self.queue.send_to_dead_letter(raw_body).await?;
        }
        Ok(disposition)
    }

    async fn finish_without_attempt(
        &self,
        d: &Delivery,
        reason: &str,
        now: OffsetDateTime,
    ) -> Result<()> {
        let lease = now + to_time(ATTEMPT_LEASE);
        if self
            .store
            .claim_attempt(d.id, d.attempt_count, now, lease)
            .await?
        {
            let attempt = Attempt {
                number: d.attempt_count + 1,
                at: now,
                status_code: None,
                error: Some(format!("not sent: {reason}")),
                latency_ms: 0,
                response: None,
            };
            self.store
                .record_attempt(
                    d.id,
                    &AttemptRecord {
                        attempt,
                        status: DeliveryStatus::Failed,
                        next_attempt_at: now,
                    },
                )
                .await?;
        }
        Ok(())
    }
}

fn excerpt(s: &str) -> String {
    if s.len() <= RESPONSE_EXCERPT_BYTES {
        return s.to_owned();
    }
    let mut end = RESPONSE_EXCERPT_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

fn doc_json(doc: &Documentation) -> serde_json::Value {
    json!({ "id": doc.id.to_string(), "slug": doc.slug.as_str(), "name": doc.name })
}

fn version_json(v: &Version) -> serde_json::Value {
    json!({
        "id": v.id.to_string(),
        "previous_version_id": v.previous_version_id.map(|p| p.to_string()),
        "title": v.analysis.title,
        "api_version": v.analysis.api_version,
        "specification": v.analysis.specification,
        "created_at": rfc3339(v.created_at),
    })
}

/// The Bump.sh `Api` object of a documentation.
fn api_json(doc: &Documentation, version: Option<&Version>, base: &str) -> serde_json::Value {
    let kind = match version.map(|v| v.analysis.specification.as_str()) {
        Some(s) if s.starts_with("asyncapi") => "AsyncAPI",
        _ => "OpenAPI",
    };
    let doc_url = crate::urls::of_doc(base, doc);
    json!({
        "id": doc.id.to_string(),
        "name": doc.name,
        "description": version.and_then(|v| v.analysis.description.clone()),
        "slug": doc.slug.as_str(),
        "url": doc_url,
        "humanUrl": doc_url,
        "tags": [],
        "version": version.map(|v| v.analysis.api_version.clone()),
        "properties": version.map(|v| vec![json!({
            "url": format!("{doc_url}/versions/{}/source", v.id),
            "type": kind,
        })]).unwrap_or_default(),
        "created": doc.created_at.date().to_string(),
        "modified": doc.modified_at.date().to_string(),
    })
}

/// `true` when the event kind is one this path delivers.
pub fn is_deliverable_kind(kind: &str) -> bool {
    kind == EVENT_DOCUMENTATION_PUBLISHED || kind == EVENT_PING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_keep_two_kilobytes_on_a_char_boundary() {
        let s = "é".repeat(3000);
        let e = excerpt(&s);
        assert!(e.len() <= RESPONSE_EXCERPT_BYTES && e.len() >= RESPONSE_EXCERPT_BYTES - 1);
        assert_eq!(excerpt("short"), "short");
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
