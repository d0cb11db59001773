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

use serde_json::{Map, Value, json};
use specpress_webhook::{AttemptOutcome, Decision, RetryPolicy, parse_retry_after, sign_headers};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::{DomainError, Result};
use crate::model::{DocId, Documentation, EVENT_DOCUMENTATION_PUBLISHED, Event, EventId, Version};
use crate::ports::SpecEngine;
use crate::ports::Store;
use crate::ports::{EventPublisher, MessageQueue, PostOutcome, WebhookSender};
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
            if !subs.iter().any(|s| s.enabled) {
                return Ok(());
            }
            listed = Some((doc, subs));
        }
        let Some(event) = self.store.get_event(event_id).await? else {
            return Ok(());
        };
        at.doc = Some(event.doc_id);
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
        let payload = self.recorded_payload(&event).await?;
        let now = OffsetDateTime::now_utc();
        for sub in subs {
            at.subscription = Some(sub.id);
            let id = DeliveryId::for_event(event.id, sub.id);
            at.delivery = Some(id);
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

    /// The payload of an event's deliveries: the one recorded by an earlier copy of the event message if there is
    /// one (so the diff is computed once per event, not once per receive), otherwise computed now and recorded
    /// (first writer wins: concurrent copies end up sending the same bytes).
    async fn recorded_payload(&self, event: &Event) -> Result<String> {
        if let Some(payload) = self.store.get_event_payload(event.id).await? {
            return Ok(payload);
        }
        let payload = self.event_payload(event).await?;
        self.store
            .record_event_payload(event.id, &payload, OffsetDateTime::now_utc())
            .await
    }

    /// The exact JSON body of an event's deliveries: Bump.sh's `{api, diff}` plus the envelope, at most
    /// [`MAX_PAYLOAD_BYTES`] (see [`bounded_payload`]).
    pub async fn event_payload(&self, event: &Event) -> Result<String> {
        let now = OffsetDateTime::now_utc();
        // Events are written by the deploy's commit with their version; versions and documentations are never
        // deleted. One missing is an inconsistency that handling the message again cannot mend.
        let missing =
            || DomainError::NotFound("event refers to a missing version or documentation".into());
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
        let public_url = format!("{doc_url}/changes/{}", version.id);
        // `details`, `details_truncated` and `details_summary` are placeholders here, filled by `bounded_payload`
        // (in place: the keys keep this order).
        let diff_json = json!({
            "id": version.id.to_string(),
            "title": clip(&version.analysis.title, MAX_PAYLOAD_TEXT_BYTES),
            "public_url": public_url,
            "details_url": details_url(&public_url),
            "breaking": diff.as_ref().is_some_and(|d| d.breaking),
            "details_truncated": false,
            "details_summary": null,
            "details": [],
            "previous_version_url": previous.as_ref().map(|p| format!("{doc_url}/changes/{}", p.id)),
            "current_version_url": public_url,
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
        let details = match diff.map(|d| d.details) {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(_) => return Err(DomainError::unexpected("diff details are not an array")),
        };
        bounded_payload(body, details)
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
    async fn attempt(&self, id: DeliveryId, raw_body: &str, at: &mut Trace) -> Result<Disposition> {
        let Some(delivery) = self.store.get_delivery(id).await? else {
            return Ok(Disposition::Done);
        };
        at.event = delivery.event_id;
        at.doc = Some(delivery.doc_id);
        at.subscription = Some(delivery.subscription_id);
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
                    error: Some(excerpt(&e)),
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

/// The start of `s` kept in an attempt's log: at most [`RESPONSE_EXCERPT_BYTES`] of text and at most
/// [`ATTEMPT_TEXT_JSON_BYTES`] once escaped as JSON, cut on a char boundary.
fn excerpt(s: &str) -> String {
    let (mut raw, mut escaped) = (0, 0);
    for (i, c) in s.char_indices() {
        let json = match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if u32::from(c) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if raw + c.len_utf8() > RESPONSE_EXCERPT_BYTES || escaped + json > ATTEMPT_TEXT_JSON_BYTES {
            return s[..i].to_owned();
        }
        raw += c.len_utf8();
        escaped += json;
    }
    s.to_owned()
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

/// The link to a change's full `DiffItem[]` JSON: its public page with `.json` appended.
pub fn details_url(public_url: &str) -> String {
    format!("{public_url}.json")
}

/// At most `max` bytes of `s`, cut on a char boundary.
fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Fills the `details`, `details_truncated` and `details_summary` members of `body["diff"]` and serializes the body
/// within [`MAX_PAYLOAD_BYTES`]:
/// - when the full `details` fit, they are sent as they are, with `details_truncated: false`;
/// - otherwise `details` is a summary: top-level items only, each stripped of its `children` (and, if still over
///   [`MAX_SUMMARY_ITEM_BYTES`], of everything but its identity and breaking flags) and marked `truncated: true`
///   when something was dropped; breaking items are chosen first, then the others, as many as fit, listed in the
///   diff's own order; `details_truncated: true`.
///
/// `details_summary` counts the full diff's top-level items, its breaking ones and those included. The result is
/// a pure function of its input, so the same event always gives the same bytes.
pub fn bounded_payload(mut body: Value, details: Vec<Value>) -> Result<String> {
    let total = details.len();
    let breaking = details.iter().filter(|i| is_breaking(i)).count();
    let fill = |body: &mut Value, items: Vec<Value>, truncated: bool, included: usize| {
        if let Some(diff) = body.get_mut("diff").and_then(Value::as_object_mut) {
            diff.insert("details".into(), Value::Array(items));
            diff.insert("details_truncated".into(), Value::Bool(truncated));
            diff.insert(
                "details_summary".into(),
                json!({"total_items": total, "breaking_items": breaking, "included_items": included}),
            );
        }
    };
    let to_text = |body: &Value| serde_json::to_string(body).map_err(DomainError::unexpected);
    fill(&mut body, details, false, total);
    let full = to_text(&body)?;
    if full.len() <= MAX_PAYLOAD_BYTES {
        return Ok(full);
    }
    drop(full);
    let details = match body.pointer_mut("/diff/details").map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    // The body around an empty list; `included_items` at `total` has at least as many digits as the final count.
    fill(&mut body, Vec::new(), true, total);
    let room = MAX_PAYLOAD_BYTES.saturating_sub(to_text(&body)?.len());
    let chosen = summary_items(&details, room)?;
    let included = chosen.len();
    fill(&mut body, chosen, true, included);
    let text = to_text(&body)?;
    if text.len() > MAX_PAYLOAD_BYTES {
        // The envelope alone is over the bound: its document texts are clipped, so this is a bug.
        return Err(DomainError::unexpected(format!(
            "a webhook payload of {} bytes is over its {MAX_PAYLOAD_BYTES}-byte bound",
            text.len()
        )));
    }
    Ok(text)
}

fn is_breaking(item: &Value) -> bool {
    item.get("breaking") == Some(&Value::Bool(true))
}

/// The summaries of `details` whose serialized list takes at most `room` bytes more than `[]`: breaking items
/// first, then the others, each while it fits; in the diff's order.
fn summary_items(details: &[Value], room: usize) -> Result<Vec<Value>> {
    let mut summaries = Vec::with_capacity(details.len());
    for item in details {
        summaries.push(match summary_item(item) {
            Some(v) => {
                let size = serde_json::to_string(&v)
                    .map_err(DomainError::unexpected)?
                    .len();
                Some((v, size))
            }
            None => None,
        });
    }
    let order = (0..details.len())
        .filter(|&i| is_breaking(&details[i]))
        .chain((0..details.len()).filter(|&i| !is_breaking(&details[i])));
    let mut taken = vec![false; details.len()];
    let (mut used, mut count) = (0usize, 0usize);
    for i in order {
        let Some((_, size)) = &summaries[i] else {
            continue;
        };
        // A comma before every item but the first.
        let cost = size + usize::from(count > 0);
        if used + cost <= room {
            used += cost;
            count += 1;
            taken[i] = true;
        }
    }
    Ok(summaries
        .into_iter()
        .zip(taken)
        .filter_map(|(s, t)| if t { s.map(|(v, _)| v) } else { None })
        .collect())
}

/// Members of a top-level item kept when it must shrink further than dropping its children.
const IDENTITY: [&str; 8] = [
    "id",
    "name",
    "status",
    "type",
    "breaking",
    "level",
    "breaking_details",
    "ref",
];

/// A top-level item without its children (nor the list of operations a shared component affects), at most
/// [`MAX_SUMMARY_ITEM_BYTES`]; `None` when even its identity is larger.
fn summary_item(item: &Value) -> Option<Value> {
    let object = item.as_object()?;
    let non_empty = |k: &str| {
        object
            .get(k)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    let cut = non_empty("children") || non_empty("affected");
    let mut summary: Map<String, Value> = object
        .iter()
        .filter(|(k, _)| *k != "children" && *k != "affected")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let finish = |mut m: Map<String, Value>, truncated: bool| {
        m.insert("children".into(), Value::Array(Vec::new()));
        if truncated {
            m.insert("truncated".into(), Value::Bool(true));
        }
        let v = Value::Object(m);
        let fits = serde_json::to_string(&v).is_ok_and(|t| t.len() <= MAX_SUMMARY_ITEM_BYTES);
        fits.then_some(v)
    };
    if let Some(v) = finish(summary.clone(), cut) {
        return Some(v);
    }
    summary.retain(|k, _| IDENTITY.contains(&k.as_str()));
    finish(summary, true)
}

fn doc_json(doc: &Documentation) -> serde_json::Value {
    json!({ "id": doc.id.to_string(), "slug": doc.slug.as_str(), "name": doc.name })
}

fn version_json(v: &Version) -> serde_json::Value {
    json!({
        "id": v.id.to_string(),
        "previous_version_id": v.previous_version_id.map(|p| p.to_string()),
        "title": clip(&v.analysis.title, MAX_PAYLOAD_TEXT_BYTES),
        "api_version": clip(&v.analysis.api_version, MAX_PAYLOAD_TEXT_BYTES),
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
        "version": version.map(|v| clip(&v.analysis.api_version, MAX_PAYLOAD_TEXT_BYTES)),
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

    /// A body as `event_payload` builds it, around `details`.
    fn body() -> Value {
        let public_url = "https://docs.example.com/doc/pets/changes/v2";
        json!({
            "event": "documentation.published",
            "id": "e1",
            "diff": {
                "id": "v2",
                "title": "Pets",
                "public_url": public_url,
                "details_url": details_url(public_url),
                "breaking": true,
                "details_truncated": false,
                "details_summary": null,
                "details": [],
            },
        })
    }

    /// A top-level item with `children` leaves of about 200 bytes each.
    fn item(n: usize, breaking: bool, children: usize) -> Value {
        let children: Vec<Value> = (0..children)
            .map(|c| {
                json!({"id": format!("get-path-{n}-property-{c}"), "name": format!("property{c}"),
                       "status": "added", "type": "property", "breaking": false, "level": "info", "children": [],
                       "changes": [{"rule": "response-property-added", "message": "a property was added"}]})
            })
            .collect();
        json!({"id": format!("get-path-{n}"), "name": format!("GET /path/{n}"), "status": "modified",
               "type": "endpoint", "breaking": breaking, "level": if breaking { "breaking" } else { "info" },
               "previous": {"path": format!("/path/{n}"), "verb": "GET", "deprecated": false},
               "current": {"path": format!("/path/{n}"), "verb": "GET", "deprecated": false},
               "children": children})
    }

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).expect("a payload is JSON")
    }

    #[test]
    fn a_small_diff_is_sent_whole_and_marked_complete() {
        // GIVEN a diff whose details fit the bound
        let details = vec![item(1, true, 3), item(2, false, 1)];
        // WHEN the payload is built
        let text = bounded_payload(body(), details.clone()).expect("payload");
        // THEN the details are the diff's own, marked complete, with the counts and the link
        let p = parse(&text);
        assert_eq!(p["diff"]["details"], Value::Array(details));
        assert_eq!(p["diff"]["details_truncated"], json!(false));
        assert_eq!(
            p["diff"]["details_summary"],
            json!({"total_items": 2, "breaking_items": 1, "included_items": 2})
        );
        assert_eq!(
            p["diff"]["details_url"],
            json!("https://docs.example.com/doc/pets/changes/v2.json")
        );
        // and the members keep the envelope's order (details after their summary, before nothing else).
        let keys: Vec<&str> = p["diff"]
            .as_object()
            .expect("diff")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "id",
                "title",
                "public_url",
                "details_url",
                "breaking",
                "details_truncated",
                "details_summary",
                "details"
            ]
        );
    }

    #[test]
    fn a_huge_diff_is_bounded_marked_and_keeps_every_breaking_item_first() {
        // GIVEN 3,000 top-level items, about 4 MB, every twentieth breaking (the first at 19: not a prefix)
        let details: Vec<Value> = (0..3000).map(|n| item(n, n % 20 == 19, 20)).collect();
        assert!(serde_json::to_string(&details).expect("json").len() > 3_000_000);
        // WHEN the payload is built
        let text = bounded_payload(body(), details.clone()).expect("payload");
        // THEN it is within the bound, marked truncated, and counts what it holds
        assert!(text.len() <= MAX_PAYLOAD_BYTES, "{} bytes", text.len());
        assert!(
            text.len() > MAX_PAYLOAD_BYTES - 2 * MAX_SUMMARY_ITEM_BYTES,
            "the budget is used"
        );
        let p = parse(&text);
        let diff = &p["diff"];
        assert_eq!(diff["details_truncated"], json!(true));
        let listed = diff["details"].as_array().expect("details");
        assert_eq!(
            diff["details_summary"],
            json!({"total_items": 3000, "breaking_items": 150, "included_items": listed.len()})
        );
        // every breaking item is listed although they come last, then as many others as fit, in the diff's order
        assert_eq!(listed.iter().filter(|i| is_breaking(i)).count(), 150);
        assert!(listed.len() > 150 && listed.len() < 3000);
        assert!(
            listed.iter().any(|i| i["id"] == json!("get-path-2999")),
            "the last breaking item is listed"
        );
        let ids: Vec<usize> = listed
            .iter()
            .map(|i| {
                i["id"].as_str().expect("id")["get-path-".len()..]
                    .parse()
                    .expect("n")
            })
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "the diff's order");
        // each listed item is its top-level item without children, marked truncated
        for (i, n) in listed.iter().zip(&ids) {
            let mut expected = details[*n].clone();
            expected["children"] = json!([]);
            expected["truncated"] = json!(true);
            assert_eq!(i, &expected);
        }
        // and the same diff always gives the same bytes.
        assert_eq!(bounded_payload(body(), details).expect("payload"), text);
    }

    #[test]
    fn an_item_too_large_even_stripped_is_left_out_but_counted() {
        // GIVEN a huge diff whose first item is breaking with a 5 KB name, and whose second has a 5 KB `current`
        let mut long_name = item(0, true, 1);
        long_name["name"] = json!("x".repeat(5000));
        let mut long_current = item(1, true, 0);
        long_current["current"] = json!({"path": "y".repeat(5000)});
        let mut details = vec![long_name, long_current];
        details.extend((2..2000).map(|n| item(n, false, 20)));
        // WHEN the payload is built
        let p = parse(&bounded_payload(body(), details).expect("payload"));
        // THEN the first is counted as breaking but not listed; the second is listed by its identity alone
        let listed = p["diff"]["details"].as_array().expect("details");
        assert_eq!(p["diff"]["details_summary"]["breaking_items"], json!(2));
        assert!(listed.iter().all(|i| i["id"] != json!("get-path-0")));
        let second = listed
            .iter()
            .find(|i| i["id"] == json!("get-path-1"))
            .expect("listed");
        assert!(second.get("current").is_none() && second.get("previous").is_none());
        assert_eq!(second["truncated"], json!(true));
        assert_eq!(second["breaking"], json!(true));
    }

    #[test]
    fn document_texts_are_clipped_on_a_char_boundary() {
        let title = "é".repeat(MAX_PAYLOAD_TEXT_BYTES);
        let clipped = clip(&title, MAX_PAYLOAD_TEXT_BYTES);
        assert_eq!(clipped.len(), MAX_PAYLOAD_TEXT_BYTES);
        assert_eq!(clip("short", MAX_PAYLOAD_TEXT_BYTES), "short");
        let odd = format!("a{title}");
        assert_eq!(
            clip(&odd, MAX_PAYLOAD_TEXT_BYTES).len(),
            MAX_PAYLOAD_TEXT_BYTES - 1
        );
    }

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
    fn an_excerpt_of_control_characters_stays_small_once_escaped() {
        let nasty = "\u{1}".repeat(RESPONSE_EXCERPT_BYTES);
        let e = excerpt(&nasty);
        let escaped = serde_json::to_string(&e).expect("json").len() - 2;
        assert!(escaped <= ATTEMPT_TEXT_JSON_BYTES, "{escaped}");
        assert_eq!(e.len(), ATTEMPT_TEXT_JSON_BYTES / 6);
    }

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
