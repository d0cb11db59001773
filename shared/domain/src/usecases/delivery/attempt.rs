//! One attempt of a delivery: claimed by a conditional write, signed with every active secret at this attempt's
//! timestamp, POSTed, recorded, and scheduled again, disabled or dead-lettered as the retry policy decides.

use std::time::{Duration, Instant, SystemTime};

use specpress_webhook::{AttemptOutcome, Decision, parse_retry_after, sign_headers};
use time::OffsetDateTime;

use super::{
    ATTEMPT_LEASE, DeliveryService, Disposition, MAX_VISIBILITY_DELAY, Trace, to_std, to_time,
};
use crate::error::{DomainError, Result};
use crate::ports::PostOutcome;
use crate::webhooks::*;

/// The headers of every attempt: JSON from Specpress.
fn plain_headers() -> Vec<(String, String)> {
    vec![
        ("content-type".into(), "application/json".into()),
        ("user-agent".into(), "Specpress-Webhooks/1".into()),
    ]
}

impl DeliveryService {
    /// Makes the next attempt of a delivery if it is due: claim it, sign and POST it, record the outcome, and say
    /// when the queue should bring the message back.
    pub(super) async fn attempt(
        &self,
        id: DeliveryId,
        raw_body: &str,
        at: &mut Trace,
    ) -> Result<Disposition> {
        let (delivery, sub, now) = match self.claim_due(id, at).await? {
            Claim::Ready(ready) => *ready,
            Claim::Answered(disposition) => return Ok(disposition),
        };
        let number = delivery.attempt_count + 1;
        let body = delivery.payload.as_bytes();
        let headers = match sub.format {
            Format::Standard => self.signed_headers(&sub, &delivery, now)?,
            // Slack and Teams take no signature: the URL is the secret.
            Format::Slack | Format::Teams => plain_headers(),
        };
        let target = match &sub.sealed_url {
            Some(sealed) => self.sealer.open_url(sub.id, sealed)?,
            None => sub.url.clone(),
        };
        let started = Instant::now();
        let outcome = self.sender.post(&target, &headers, body).await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let after = OffsetDateTime::now_utc();
        let (outcome, attempt) = attempt_log(outcome, number, now, latency_ms);
        self.conclude(id, &sub, raw_body, outcome, attempt, after)
            .await
    }

    /// Reads the delivery and claims its next attempt when it is due and its subscription still wants it; otherwise
    /// what the queue should do with the message.
    async fn claim_due(&self, id: DeliveryId, at: &mut Trace) -> Result<Claim> {
        let Some(delivery) = self.store.get_delivery(id).await? else {
            return Ok(Claim::Answered(Disposition::Done));
        };
        at.event = delivery.event_id;
        at.doc = Some(delivery.doc_id);
        at.subscription = Some(delivery.subscription_id);
        if delivery.status != DeliveryStatus::Pending {
            // Delivered or failed already: a redelivered message never POSTs again.
            return Ok(Claim::Answered(Disposition::Done));
        }
        let now = OffsetDateTime::now_utc();
        if delivery.next_attempt_at > now {
            return Ok(Claim::Answered(Disposition::RetryIn(to_std(
                delivery.next_attempt_at - now,
            ))));
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
                return Ok(Claim::Answered(Disposition::Done));
            }
        };
        let lease = now + to_time(ATTEMPT_LEASE);
        if !self
            .store
            .claim_attempt(id, delivery.attempt_count, now, lease)
            .await?
        {
            // Another copy of the message holds it; look again once its lease or schedule is due.
            return Ok(Claim::Answered(match self.store.get_delivery(id).await? {
                Some(d) if d.status == DeliveryStatus::Pending => Disposition::RetryIn(
                    to_std(d.next_attempt_at - now).max(Duration::from_millis(10)),
                ),
                _ => Disposition::Done,
            }));
        }
        Ok(Claim::Ready(Box::new((delivery, sub, now))))
    }

    /// The request headers of an attempt: the exact bytes sent are signed with every active secret of the
    /// subscription, at this attempt's timestamp.
    fn signed_headers(
        &self,
        sub: &Subscription,
        delivery: &Delivery,
        now: OffsetDateTime,
    ) -> Result<Vec<(String, String)>> {
        let mut secrets = Vec::new();
        for s in sub.secrets.iter().filter(|s| s.is_active(now)) {
            secrets.push(self.sealer.open(sub.id, &s.sealed)?);
        }
        let signed = sign_headers(
            &secrets,
            &delivery.webhook_id,
            now.unix_timestamp(),
            delivery.payload.as_bytes(),
        )
        .map_err(DomainError::unexpected)?;
        let mut headers = plain_headers();
        for (name, value) in &signed {
            if let Ok(v) = value.to_str() {
                headers.push((name.as_str().to_owned(), v.to_owned()));
            }
        }
        Ok(headers)
    }

    /// Records an attempt's outcome and what the retry policy makes of it: delivered, due again later (the queue
    /// brings the message back then), or failed for good (the endpoint disabled on a 410 or after failing for days;
    /// a spent schedule sends the message to the dead-letter queue).
    async fn conclude(
        &self,
        id: DeliveryId,
        sub: &Subscription,
        raw_body: &str,
        outcome: AttemptOutcome,
        attempt: Attempt,
        after: OffsetDateTime,
    ) -> Result<Disposition> {
        let success = matches!(
            specpress_webhook::classify(&outcome),
            specpress_webhook::OutcomeClass::Success
        );
        let failing_since = self
            .store
            .record_endpoint_outcome(sub.doc_id, sub.id, success, after)
            .await?;
        let decision = {
            let mut rng = rand::rng();
            self.policy.decide(
                attempt.number,
                &outcome,
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

/// Whether an attempt may go ahead.
enum Claim {
    /// Claimed: the delivery, its subscription, and the time of the attempt.
    Ready(Box<(Delivery, Subscription, OffsetDateTime)>),
    /// Not now: what the queue does with the message.
    Answered(Disposition),
}

/// What the retry policy reads of a POST's outcome, and the attempt's entry in the delivery log.
fn attempt_log(
    outcome: PostOutcome,
    number: u32,
    at: OffsetDateTime,
    latency_ms: u64,
) -> (AttemptOutcome, Attempt) {
    let log = |status_code, error, response| Attempt {
        number,
        at,
        status_code,
        error,
        latency_ms,
        response,
    };
    match outcome {
        PostOutcome::Response {
            status,
            retry_after,
            body_excerpt,
        } => {
            let retry_after = retry_after
                .as_deref()
                .and_then(|v| parse_retry_after(v, SystemTime::now()));
            (
                AttemptOutcome::Response {
                    status,
                    retry_after,
                },
                log(Some(status), None, Some(excerpt(&body_excerpt))),
            )
        }
        PostOutcome::Timeout => (
            AttemptOutcome::Timeout,
            log(None, Some("timeout".into()), None),
        ),
        PostOutcome::Failed(e) => (
            AttemptOutcome::ConnectionError,
            log(None, Some(excerpt(&e)), None),
        ),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
