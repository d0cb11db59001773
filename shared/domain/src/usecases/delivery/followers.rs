//! Release mails to the readers who follow the event's documentation, or its hub, by email (issue 38), through the
//! same outbox as webhooks; a digest follower (cadence `daily` or `weekly`) gets a digest entry instead, which the
//! digest job ([`super::digests`]) sends with the period's other releases.
//!
//! Each (release, follower) pair has a delivery record with a deterministic id, claimed by the same conditional
//! write as a webhook attempt before the mailer is called and recorded as delivered after it: a redelivered event
//! message never mails the same release to the same follower twice. A mail that failed, or that another copy of the
//! message holds, makes the handling fail, so the queue brings the event message back and the mail goes then: at
//! least once, never twice when nothing crashed. The record holds no address and no body (the address is opened
//! from the follower when the mail is sent); a digest entry holds the release as the digest shows it.

use std::time::Instant;

use time::OffsetDateTime;

use super::bodies::Bodies;
use super::{ATTEMPT_LEASE, DeliveryService, to_time, webhook_id_for_event};
use crate::error::{DomainError, Result};
use crate::follow::{Cadence, FollowKeys, Follower, FollowerState};
use crate::model::{DocId, DocOrHub, Documentation, Event, Visibility};
use crate::notify::{Filter, OperationPattern, change_notes};
use crate::ports::{Mail, MailContent, ReleaseNote};
use crate::usecases::follow::follow_links;
use crate::webhooks::*;

/// Changes a release mail lists (the rest is counted, and on the change page).
pub const MAX_MAIL_NOTES: usize = 10;
/// The delivery kind of a release mail.
pub const KIND_RELEASE_MAIL: &str = "mail.release";
/// The delivery kind of a release kept for a digest follower's next digest.
pub const KIND_DIGEST_ENTRY: &str = "mail.digest-entry";
/// Largest digest entry, in bytes of JSON: beyond it the entry keeps titles, counts and links only.
pub const MAX_ENTRY_BYTES: usize = 32 * 1024;
/// How long a failed mail waits before the next try.
pub(super) const MAIL_RETRY: time::Duration = time::Duration::minutes(1);

impl DeliveryService {
    /// The confirmed followers of documentation `doc` and of its hub (every cadence), when this process sends mail.
    pub(super) async fn release_followers(
        &self,
        doc: &Documentation,
        now: OffsetDateTime,
    ) -> Result<Vec<Follower>> {
        if self.mailer.is_none() {
            return Ok(Vec::new());
        }
        let mut all = self
            .store
            .list_followers(DocOrHub::Doc(doc.id), now)
            .await?;
        if let Some(hub) = doc.hub_id {
            all.extend(self.store.list_followers(DocOrHub::Hub(hub), now).await?);
        }
        all.retain(|f| f.state == FollowerState::Confirmed && f.org_id == doc.org_id);
        Ok(all)
    }

    /// Whether documentation `doc` has followers to mail (read before the event is, like its subscriptions).
    pub(super) async fn has_release_followers(&self, doc: DocId) -> Result<bool> {
        if self.mailer.is_none() {
            return Ok(false);
        }
        let Some(doc) = self.store.get_doc_public(doc).await? else {
            return Ok(false);
        };
        Ok(!self
            .release_followers(&doc, OffsetDateTime::now_utc())
            .await?
            .is_empty())
    }

    /// Mails the event's release to each follower whose filter it matches (releases of the default branch only: what
    /// readers of the documentation see).
    pub(super) async fn mail_followers(
        &self,
        event: &Event,
        bodies: &mut Bodies<'_>,
    ) -> Result<()> {
        let Some(mailer) = self.mailer.clone() else {
            return Ok(());
        };
        let Some(doc) = self.store.get_doc(event.org_id, event.doc_id).await? else {
            return Ok(());
        };
        if event.branch.as_str() != doc.default_branch.as_str() {
            return Ok(());
        }
        let followers = self
            .release_followers(&doc, OffsetDateTime::now_utc())
            .await?;
        if followers.is_empty() {
            return Ok(());
        }
        // Each follower's filter: every change, or its operation, or its breaking changes.
        let mut chosen_by = Vec::new();
        for f in followers {
            let operations = match f.operation.as_deref().map(OperationPattern::parse) {
                None => Vec::new(),
                Some(Ok(p)) => vec![p],
                // Stored before patterns were checked as they are now: mail nothing rather than everything.
                Some(Err(_)) => continue,
            };
            let filter = Filter {
                breaking_only: f.breaking_only,
                operations,
                ..Filter::default()
            };
            chosen_by.push((f, filter));
        }
        let facts = chosen_by
            .iter()
            .any(|(_, filter)| filter.needs_operation_facts());
        let (envelope, items) = bodies.parts(facts).await?;
        let (envelope, items) = (envelope.clone(), items.clone());
        let keys = FollowKeys::new(&self.sealer);
        let doc_url = crate::urls::of_doc(&self.public_base_url, &doc);
        let mut unsent = 0usize;
        for (f, filter) in chosen_by {
            let chosen = if filter.is_empty() {
                items.clone()
            } else {
                let selection = filter.select(&items);
                if selection.items.is_empty() {
                    continue;
                }
                selection.items
            };
            let scope_url = match f.scope {
                DocOrHub::Doc(_) => doc_url.clone(),
                DocOrHub::Hub(hub) => match self.store.get_hub(doc.org_id, hub).await? {
                    Some(h) => crate::urls::of_hub(&self.public_base_url, &h),
                    None => continue,
                },
            };
            let Some(links) = follow_links(&keys, &f, &scope_url) else {
                continue;
            };
            let release = release_note(&doc, event, &envelope, &chosen);
            if f.cadence != Cadence::Release {
                // Kept for the follower's next digest (written once per release and follower).
                self.record_digest_entry(event, &f, &release).await?;
                continue;
            }
            let content = MailContent::Release { release, links };
            if !self.send_once(mailer.as_ref(), event, &f, content).await? {
                unsent += 1;
            }
        }
        if unsent > 0 {
            return Err(DomainError::unexpected(format!(
                "{unsent} release mails not sent yet; the event comes back"
            )));
        }
        Ok(())
    }

    /// Records `release` as a pending digest entry of digest follower `f` (kind [`KIND_DIGEST_ENTRY`], the release as
    /// the digest shows it in its payload); the same (event, follower) pair is written once.
    async fn record_digest_entry(
        &self,
        event: &Event,
        f: &Follower,
        release: &ReleaseNote,
    ) -> Result<()> {
        let mut release = release.clone();
        let mut payload = serde_json::to_string(&release).map_err(DomainError::unexpected)?;
        if payload.len() > MAX_ENTRY_BYTES {
            // Titles and links always fit; very long notes give way (the change page has them all).
            release.more += release.notes.len();
            release.notes.clear();
            payload = serde_json::to_string(&release).map_err(DomainError::unexpected)?;
        }
        let now = OffsetDateTime::now_utc();
        let subscription = SubscriptionId(f.id.0);
        let id = DeliveryId::for_event(event.id, subscription);
        let entry = Delivery {
            event_id: Some(event.id),
            webhook_id: webhook_id_for_event(event.id),
            payload,
            ..Delivery::pending(
                id,
                event.org_id,
                event.doc_id,
                subscription,
                KIND_DIGEST_ENTRY,
                now,
            )
        };
        // `false`: written by an earlier copy of the message; nothing more to do.
        self.store.create_delivery(&entry).await.map(drop)
    }

    /// Sends one release mail unless its record says it went already: `true` when it is sent (now or before),
    /// `false` when it must be tried again (it failed, or another copy of the message holds it).
    async fn send_once(
        &self,
        mailer: &dyn crate::ports::Mailer,
        event: &Event,
        f: &Follower,
        content: MailContent,
    ) -> Result<bool> {
        let now = OffsetDateTime::now_utc();
        let subscription = SubscriptionId(f.id.0);
        let id = DeliveryId::for_event(event.id, subscription);
        let record = Delivery {
            event_id: Some(event.id),
            webhook_id: webhook_id_for_event(event.id),
            ..Delivery::pending(
                id,
                event.org_id,
                event.doc_id,
                subscription,
                KIND_RELEASE_MAIL,
                now,
            )
        };
        let mail_id = format!("release-{}-{}", event.id.0.simple(), f.id.0.simple());
        let sent = self
            .send_recorded(mailer, record, f, mail_id, now, |_| Some(content))
            .await?;
        Ok(sent == Sent::Now || sent == Sent::Before)
    }

    /// Sends the mail of delivery record `record` (created when absent, else the stored one) to follower `f` unless
    /// the record says it went already. `content` gives the mail from the record as stored (`None`: nothing to send
    /// any more, the record is left pending). The record is claimed at `now` before the mailer is called and
    /// recorded after.
    pub(super) async fn send_recorded(
        &self,
        mailer: &dyn crate::ports::Mailer,
        record: Delivery,
        f: &Follower,
        mail_id: String,
        now: OffsetDateTime,
        content: impl FnOnce(&Delivery) -> Option<MailContent>,
    ) -> Result<Sent> {
        let id = record.id;
        let current = if self.store.create_delivery(&record).await? {
            record
        } else {
            match self.store.get_delivery(id).await? {
                Some(d) => d,
                None => return Ok(Sent::Held),
            }
        };
        if current.status != DeliveryStatus::Pending {
            return Ok(Sent::Before);
        }
        let Some(content) = content(&current) else {
            return Ok(Sent::Held);
        };
        if current.next_attempt_at > now
            || !self
                .store
                .claim_attempt(id, current.attempt_count, now, now + to_time(ATTEMPT_LEASE))
                .await?
        {
            return Ok(Sent::Held);
        }
        let address = f.address(&self.sealer)?;
        let mail = Mail {
            to: address,
            id: mail_id,
            content,
        };
        let started = Instant::now();
        let sent = mailer.send(&mail).await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if let Err(e) = &sent {
            tracing::warn!(delivery = %id, follower = %f.id, kind = %current.kind, error = %e, "a mail was not sent; it is tried again");
        }
        let after = now + started.elapsed();
        let attempt = Attempt {
            number: current.attempt_count + 1,
            at: now,
            status_code: None,
            error: sent.is_err().then(|| {
                "the mail transport refused the message or could not be reached".to_owned()
            }),
            latency_ms,
            response: None,
        };
        let (status, next_attempt_at) = match sent {
            Ok(()) => (DeliveryStatus::Delivered, after),
            Err(_) => (DeliveryStatus::Pending, after + MAIL_RETRY),
        };
        self.store
            .record_attempt(
                id,
                &AttemptRecord {
                    attempt,
                    status,
                    next_attempt_at,
                },
            )
            .await?;
        Ok(if status == DeliveryStatus::Delivered {
            Sent::Now
        } else {
            Sent::Failed
        })
    }
}

/// What became of a recorded mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sent {
    /// Sent by this call.
    Now,
    /// Its record says it went already.
    Before,
    /// The transport refused it or could not be reached: tried again later.
    Failed,
    /// Not tried: another runner holds it, its retry is not due, or there is nothing to send.
    Held,
}

/// The release as a mail shows it: its chosen changes as notes (none for a private documentation: its mails carry
/// titles and links only).
fn release_note(
    doc: &Documentation,
    event: &Event,
    envelope: &serde_json::Value,
    items: &[serde_json::Value],
) -> ReleaseNote {
    let (notes, _) = change_notes(items, usize::MAX);
    let breaking = notes.iter().filter(|n| n.is_breaking()).count();
    let private = doc.visibility == Visibility::Private;
    let total = notes.len();
    let shown: Vec<_> = if private {
        Vec::new()
    } else {
        notes.into_iter().take(MAX_MAIL_NOTES).collect()
    };
    let more = if private { 0 } else { total - shown.len() };
    let text = |p: &str| {
        envelope
            .pointer(p)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    ReleaseNote {
        doc_title: doc.name.clone(),
        version: text("/version/api_version").filter(|v| !v.is_empty()),
        branch: event.branch.as_str().to_owned(),
        published_at: event.created_at,
        change_url: text("/diff/public_url").unwrap_or_else(|| crate::urls::of_doc("", doc)),
        breaking,
        notes: shown,
        more,
    }
}
