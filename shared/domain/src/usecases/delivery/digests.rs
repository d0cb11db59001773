//! Daily and weekly digests (issue 38): the job that mails each digest follower the releases kept for it since its
//! last digest, grouped per documentation, once its period has ended; nothing for an empty period.
//!
//! A release reaches a digest follower as a digest entry (a delivery record of kind `mail.digest-entry` written when
//! the release's event is handled, [`super::followers`]). The digest itself is a delivery record with an id derived
//! from the follower and the period's end ([`DeliveryId::for_digest`]) whose payload lists the entries it carries,
//! fixed when it is first written: claimed before the mailer is called and recorded as delivered after, as release
//! mails are. Only then are those entries marked delivered and the follower's period moved on (a conditional
//! write: one runner wins). A run that crashed between sending and marking finds the record delivered and only
//! marks and moves on: a digest goes at least once, never twice when nothing crashed, and an entry written while a
//! digest was under way goes in the next one.

use time::OffsetDateTime;

use super::DeliveryService;
use super::followers::{KIND_DIGEST_ENTRY, Sent};
use super::{ATTEMPT_LEASE, to_time};
use crate::error::{DomainError, Result};
use crate::follow::{Follower, FollowerState};
use crate::model::DocOrHub;
use crate::ports::{MailContent, Mailer, ReleaseNote};
use crate::usecases::follow::follow_links;
use crate::webhooks::*;

/// The delivery kind of a digest mail.
pub const KIND_DIGEST_MAIL: &str = "mail.digest";
/// Most releases one digest lists (the oldest are left out beyond it; their change pages remain).
pub const MAX_DIGEST_RELEASES: usize = 50;
/// Changes a digest lists per release when it holds more than a few releases (the rest are counted).
pub const DIGEST_NOTES_PER_RELEASE: usize = 5;

/// What one run of the digest job did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DigestRun {
    /// Digests mailed.
    pub sent: usize,
    /// Periods that ended with nothing to send (moved on, nothing mailed).
    pub empty: usize,
    /// Digests not sent this time (the transport failed, or another runner holds them): tried at the next run.
    pub held: usize,
}

/// What became of one follower's due digest.
enum Outcome {
    /// Mailed (now, or by an earlier run that stopped before moving the period on).
    Sent,
    /// Nothing to send for the period: moved on.
    Empty,
    /// Not sent this time.
    Held,
}

impl DeliveryService {
    /// Sends the digests due at `now` (at most `limit` followers, soonest first). Nothing when this process sends no
    /// mail. A failure with one follower is logged and counted as held; the others go on.
    pub async fn send_due_digests(&self, now: OffsetDateTime, limit: usize) -> Result<DigestRun> {
        let mut run = DigestRun::default();
        let Some(mailer) = self.mailer.clone() else {
            return Ok(run);
        };
        for f in self.store.due_digests(now, limit).await? {
            match self.digest_one(mailer.as_ref(), &f, now).await {
                Ok(Outcome::Sent) => run.sent += 1,
                Ok(Outcome::Empty) => run.empty += 1,
                Ok(Outcome::Held) => run.held += 1,
                Err(e) => {
                    tracing::warn!(follower = %f.id, error = %e, "a digest was not sent; it is tried at the next run");
                    run.held += 1;
                }
            }
        }
        Ok(run)
    }

    /// One follower's due digest.
    async fn digest_one(
        &self,
        mailer: &dyn Mailer,
        f: &Follower,
        now: OffsetDateTime,
    ) -> Result<Outcome> {
        let (Some(end), Some(period)) = (f.next_digest_at, f.cadence.period()) else {
            return Ok(Outcome::Held);
        };
        if f.state != FollowerState::Confirmed {
            return Ok(Outcome::Held);
        }
        // The next period ends one period later; periods missed while no job ran are skipped, not sent one by one.
        let mut next = end + period;
        while next <= now {
            next += period;
        }
        let subscription = SubscriptionId(f.id.0);
        let mut entries: Vec<Delivery> = self
            .store
            .list_deliveries(subscription)
            .await?
            .into_iter()
            .filter(|d| d.kind == KIND_DIGEST_ENTRY && d.status == DeliveryStatus::Pending)
            .collect();
        let id = DeliveryId::for_digest(subscription, end);
        let existing = self.store.get_delivery(id).await?;
        if existing.is_none() && entries.is_empty() {
            self.store.advance_digest(f.id, end, next).await?;
            return Ok(Outcome::Empty);
        }
        entries.sort_by_key(|d| d.created_at);
        let Some(scope_url) = self.scope_url(f).await? else {
            return Ok(Outcome::Held);
        };
        let Some(links) =
            follow_links(&crate::follow::FollowKeys::new(&self.sealer), f, &scope_url)
        else {
            return Ok(Outcome::Held);
        };
        let carried: Vec<String> = entries.iter().map(|d| d.id.0.to_string()).collect();
        let doc = entries
            .first()
            .map_or(crate::model::DocId(uuid::Uuid::nil()), |d| d.doc_id);
        let record = Delivery {
            webhook_id: format!("msg_digest_{}", id.0.simple()),
            payload: serde_json::to_string(&carried).map_err(DomainError::unexpected)?,
            ..Delivery::pending(id, f.org_id, doc, subscription, KIND_DIGEST_MAIL, now)
        };
        let period_name = f.cadence.as_str().to_owned();
        let mail_id = format!("digest-{}-{}", f.id.0.simple(), end.unix_timestamp());
        // The entries the record carries, as stored when it was first written (the same on every retry).
        let mut carried_entries: Vec<Delivery> = Vec::new();
        let sent = self
            .send_recorded(mailer, record, f, mail_id, now, |stored| {
                let ids: Vec<String> = serde_json::from_str(&stored.payload).ok()?;
                carried_entries = entries
                    .iter()
                    .filter(|d| ids.contains(&d.id.0.to_string()))
                    .cloned()
                    .collect();
                let releases = digest_releases(&carried_entries);
                (!releases.is_empty()).then_some(MailContent::Digest {
                    period: period_name,
                    releases,
                    links,
                })
            })
            .await?;
        if sent == Sent::Before && carried_entries.is_empty() {
            // Sent by an earlier run that stopped before marking: mark what its record carries.
            let stored = self
                .store
                .get_delivery(id)
                .await?
                .map(|d| d.payload)
                .unwrap_or_default();
            let ids: Vec<String> = serde_json::from_str(&stored).unwrap_or_default();
            carried_entries = entries
                .into_iter()
                .filter(|d| ids.contains(&d.id.0.to_string()))
                .collect();
        }
        match sent {
            Sent::Now | Sent::Before => {
                for entry in &carried_entries {
                    self.mark_entry_sent(entry, now).await?;
                }
                self.store.advance_digest(f.id, end, next).await?;
                Ok(Outcome::Sent)
            }
            Sent::Held if existing.is_some() && carried_entries.is_empty() => {
                // A pending record whose entries are all gone (marked, or past their retention): nothing is left to
                // send for this period.
                let pending = self.store.get_delivery(id).await?;
                if pending.is_some_and(|d| d.next_attempt_at <= now) {
                    self.store.advance_digest(f.id, end, next).await?;
                    return Ok(Outcome::Empty);
                }
                Ok(Outcome::Held)
            }
            Sent::Held | Sent::Failed => Ok(Outcome::Held),
        }
    }

    /// The followed page's URL (the base of the follower's links); `None` when it is gone.
    async fn scope_url(&self, f: &Follower) -> Result<Option<String>> {
        Ok(match f.scope {
            DocOrHub::Doc(doc) => self
                .store
                .get_doc(f.org_id, doc)
                .await?
                .map(|d| crate::urls::of_doc(&self.public_base_url, &d)),
            DocOrHub::Hub(hub) => self
                .store
                .get_hub(f.org_id, hub)
                .await?
                .map(|h| crate::urls::of_hub(&self.public_base_url, &h)),
        })
    }

    /// Marks a digest entry as sent (claimed, then recorded delivered); an entry another runner marked is left.
    async fn mark_entry_sent(&self, entry: &Delivery, now: OffsetDateTime) -> Result<()> {
        if !self
            .store
            .claim_attempt(
                entry.id,
                entry.attempt_count,
                now,
                now + to_time(ATTEMPT_LEASE),
            )
            .await?
        {
            return Ok(());
        }
        let attempt = Attempt {
            number: entry.attempt_count + 1,
            at: now,
            status_code: None,
            error: None,
            latency_ms: 0,
            response: None,
        };
        self.store
            .record_attempt(
                entry.id,
                &AttemptRecord {
                    attempt,
                    status: DeliveryStatus::Delivered,
                    next_attempt_at: now,
                },
            )
            .await
            .map(drop)
    }
}

/// The releases a digest lists, oldest first: at most [`MAX_DIGEST_RELEASES`] (the newest), each with at most
/// [`DIGEST_NOTES_PER_RELEASE`] changes once the digest holds more than three releases.
fn digest_releases(entries: &[Delivery]) -> Vec<ReleaseNote> {
    let mut releases: Vec<ReleaseNote> = entries
        .iter()
        .filter_map(|d| serde_json::from_str::<ReleaseNote>(&d.payload).ok())
        .collect();
    releases.sort_by_key(|r| r.published_at);
    let skip = releases.len().saturating_sub(MAX_DIGEST_RELEASES);
    releases.drain(..skip);
    if releases.len() > 3 {
        for r in &mut releases {
            if r.notes.len() > DIGEST_NOTES_PER_RELEASE {
                r.more += r.notes.len() - DIGEST_NOTES_PER_RELEASE;
                r.notes.truncate(DIGEST_NOTES_PER_RELEASE);
            }
        }
    }
    releases
}
