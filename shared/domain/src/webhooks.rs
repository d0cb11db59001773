//! Webhooks: the entities of the event path (subscriptions, deliveries, attempts, queue messages) and the sealing of
//! signing secrets. The ports that store and move them are in [`crate::ports`] (subscriptions, deliveries, queue,
//! publisher, sender).
//!
//! The flow (docs/webhooks.md):
//! 1. A published deploy writes an [`Event`] in its transaction (the outbox), then hands it to the
//!    queue through the [`EventPublisher`](crate::ports::EventPublisher); the sweeper re-sends events that never reached the queue.
//! 2. The consumer turns an event message into one [`Delivery`] per enabled, matching
//!    [`Subscription`] (a deterministic id, so a redelivered event message never duplicates them)
//!    and one delivery message each.
//! 3. A delivery message makes one attempt when due, records it, and either finishes or comes back
//!    after the retry delay (queue visibility).

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{DocId, Event, EventId, OrgId};

/// The `ping` event kind (`POST .../webhooks/{id}/test`).
pub const EVENT_PING: &str = "ping";
/// How long a rotated-out secret keeps signing next to its successor.
pub const SECRET_OVERLAP: time::Duration = time::Duration::hours(24);
/// Bytes of a subscriber's response body kept per attempt.
pub const RESPONSE_EXCERPT_BYTES: usize = 2048;
/// Most bytes an attempt's response excerpt or error takes once escaped into the attempt's stored JSON (control
/// characters take up to six bytes each there), so the attempt log's size has a bound whatever the subscriber
/// answers.
pub const ATTEMPT_TEXT_JSON_BYTES: usize = 3072;
/// Attempts kept in a delivery's log (older ones are dropped first).
pub const MAX_LOGGED_ATTEMPTS: usize = 50;
/// Subscriptions per documentation.
pub const MAX_SUBSCRIPTIONS_PER_DOC: usize = 50;
/// Longest accepted subscriber URL.
pub const MAX_URL_LEN: usize = 2048;
/// Deliveries are kept this long, then expire by TTL.
pub const DELIVERY_RETENTION: time::Duration = time::Duration::days(30);

crate::model::id_type!(/// Subscription (webhook endpoint) id.
    SubscriptionId);
crate::model::id_type!(/// Delivery id.
    DeliveryId);

impl DeliveryId {
    /// The delivery of `event` to `subscription`: the same pair always gives the same id, so fanning an
    /// event out twice (a redelivered queue message, the sweeper racing the deploy) creates one delivery.
    pub fn for_event(event: EventId, subscription: SubscriptionId) -> Self {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"specpress-delivery:");
        h.update(event.0.as_bytes());
        h.update(subscription.0.as_bytes());
        let digest = h.finalize();
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        DeliveryId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
    }

    /// The deterministic id of the digest mail of follower `subscription` for the period ending at `period_end`
    /// (issue 38): every run of the digest job finds the same record for the same digest.
    pub fn for_digest(subscription: SubscriptionId, period_end: time::OffsetDateTime) -> Self {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"specpress-digest:");
        h.update(subscription.0.as_bytes());
        h.update(period_end.unix_timestamp_nanos().to_be_bytes());
        let digest = h.finalize();
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        DeliveryId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
    }
}

/// One signing secret of a subscription, sealed at rest.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredSecret {
    /// `nonce || ciphertext` of the `whsec_...` text (see [`SecretSealer`]).
    pub sealed: Vec<u8>,
    /// When it was created.
    pub created_at: OffsetDateTime,
    /// When it stops signing (`None` for the current secret; set to rotation + 24 h on rotation).
    pub expires_at: Option<OffsetDateTime>,
}

impl std::fmt::Debug for StoredSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredSecret")
            .field("created_at", &self.created_at)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl StoredSecret {
    /// Whether it still signs at `now`.
    pub fn is_active(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_none_or(|e| e > now)
    }
}

/// A webhook endpoint subscribed to a documentation's events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    /// Id.
    pub id: SubscriptionId,
    /// Owner organization.
    pub org_id: OrgId,
    /// The documentation whose events it receives.
    pub doc_id: DocId,
    /// Where deliveries are POSTed; for a Slack or Teams subscription, the URL masked (its secret part hidden: what
    /// answers show and logs may name), the URL itself being in `sealed_url`.
    pub url: String,
    /// A Slack or Teams URL (a secret: whoever has it can post to the channel), sealed with the subscription's
    /// id as associated data (see [`SecretSealer::seal_url`]).
    pub sealed_url: Option<Vec<u8>>,
    /// How its deliveries are written.
    pub format: Format,
    /// Which releases, and which of their changes, it receives (issue 38).
    pub filter: crate::notify::Filter,
    /// A hub's subscription (`/hubs/{hub}/webhooks`): `doc_id` is then the hub's id, and it receives the events of
    /// every documentation of the hub.
    pub hub: bool,
    /// Free text.
    pub description: Option<String>,
    /// Branch slugs whose events it receives; empty means every branch.
    pub branches: Vec<String>,
    /// Disabled subscriptions receive nothing.
    pub enabled: bool,
    /// Why it was disabled automatically (410, failing for 5 days), if it was.
    pub disabled_reason: Option<String>,
    /// Signing secrets, newest first.
    pub secrets: Vec<StoredSecret>,
    /// Start of the endpoint's current streak of failed attempts (`None` after a success).
    pub failing_since: Option<OffsetDateTime>,
    /// Creation time.
    pub created_at: OffsetDateTime,
    /// Last change by the API.
    pub updated_at: OffsetDateTime,
}

/// How a subscription's deliveries are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// The Bump.sh-compatible body, signed per Standard Webhooks.
    #[default]
    Standard,
    /// A Slack incoming-webhook message (Block Kit), unsigned.
    Slack,
    /// An Adaptive Card in the envelope of a Teams workflow webhook, unsigned.
    Teams,
}

impl Format {
    /// API and storage spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Standard => "standard",
            Format::Slack => "slack",
            Format::Teams => "teams",
        }
    }

    /// Parses the API and storage spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "standard" => Some(Format::Standard),
            "slack" => Some(Format::Slack),
            "teams" => Some(Format::Teams),
            _ => None,
        }
    }

    /// Whether its URL is a secret (sealed at rest, shown masked).
    pub fn secret_url(self) -> bool {
        self != Format::Standard
    }
}

/// A secret URL as answers show it: its origin, its first path segment and the first four characters of the next
/// one, then `...` (`https://hooks.slack.com/services/T000...`); never its query.
pub fn mask_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let mut parts = rest.splitn(4, '/');
    let host = parts.next().unwrap_or("");
    let mut out = format!("{scheme}://{host}");
    if let Some(first) = parts.next().filter(|p| !p.is_empty()) {
        out.push('/');
        out.push_str(&first.chars().take(40).collect::<String>());
        if let Some(second) = parts.next().filter(|p| !p.is_empty()) {
            out.push('/');
            out.push_str(&second.chars().take(4).collect::<String>());
        }
    }
    out.push_str("...");
    out
}

impl Subscription {
    /// Whether events of branch `slug` go to this subscription.
    pub fn wants_branch(&self, slug: &str) -> bool {
        self.branches.is_empty() || self.branches.iter().any(|b| b == slug)
    }
}

/// State of a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Waiting for its next attempt.
    Pending,
    /// A 2xx was received.
    Delivered,
    /// Gave up (schedule exhausted, endpoint disabled or deleted).
    Failed,
}

impl DeliveryStatus {
    /// Storage and API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        }
    }

    /// Parses the storage spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(DeliveryStatus::Pending),
            "delivered" => Some(DeliveryStatus::Delivered),
            "failed" => Some(DeliveryStatus::Failed),
            _ => None,
        }
    }
}

/// One HTTP attempt of a delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// 1-based number within the delivery's current series.
    pub number: u32,
    /// When it started.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// HTTP status received, if any.
    pub status_code: Option<u16>,
    /// Transport error (timeout, connection refused, refused address), if no status was received.
    pub error: Option<String>,
    /// Duration of the request.
    pub latency_ms: u64,
    /// The first 2 KB of the response body (lossy UTF-8).
    pub response: Option<String>,
}

/// One event's delivery to one subscription, with its attempt log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Id.
    pub id: DeliveryId,
    /// Owner organization.
    pub org_id: OrgId,
    /// Documentation.
    pub doc_id: DocId,
    /// Target subscription.
    pub subscription_id: SubscriptionId,
    /// The event (absent for `ping`).
    pub event_id: Option<EventId>,
    /// `documentation.published` or `ping`.
    pub kind: String,
    /// `webhook-id` header: constant across retries and redeliveries.
    pub webhook_id: String,
    /// The exact body bytes every attempt sends and signs.
    pub payload: String,
    /// State.
    pub status: DeliveryStatus,
    /// Attempts made in the current series (a redelivery starts a new series).
    pub attempt_count: u32,
    /// When the next attempt is due (while pending).
    pub next_attempt_at: OffsetDateTime,
    /// Attempt log, oldest first, at most [`MAX_LOGGED_ATTEMPTS`].
    pub attempts: Vec<Attempt>,
    /// Creation time.
    pub created_at: OffsetDateTime,
    /// Last change.
    pub updated_at: OffsetDateTime,
}

impl Delivery {
    /// A new delivery of `kind` to `subscription_id`: pending, no attempt yet, due and created at `now`, with no
    /// event, `webhook-id` or payload (the caller sets those it has).
    pub fn pending(
        id: DeliveryId,
        org_id: OrgId,
        doc_id: DocId,
        subscription_id: SubscriptionId,
        kind: impl Into<String>,
        now: OffsetDateTime,
    ) -> Self {
        Delivery {
            id,
            org_id,
            doc_id,
            subscription_id,
            event_id: None,
            kind: kind.into(),
            webhook_id: String::new(),
            payload: String::new(),
            status: DeliveryStatus::Pending,
            attempt_count: 0,
            next_attempt_at: now,
            attempts: Vec::new(),
            created_at: now,
            updated_at: now,
        }
    }
}

/// What is recorded after an attempt.
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    /// The attempt (its `number` is the claimed attempt count).
    pub attempt: Attempt,
    /// The delivery's new state.
    pub status: DeliveryStatus,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: OffsetDateTime,
}

/// Seals secrets at rest with XChaCha20-Poly1305 under a 32-byte key from configuration
/// (`SPECPRESS_WEBHOOK_SECRET_KEY`): webhook signing secrets and MCP server secrets. What a sealed value belongs to
/// is authenticated as associated data (a webhook secret: its subscription id; an MCP server secret: the server id
/// and the secret's name, see [`crate::mcp`]), so a sealed value copied anywhere else does not open. `Debug` never
/// shows the key.
#[derive(Clone)]
pub struct SecretSealer {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for SecretSealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretSealer(***)")
    }
}

const NONCE_LEN: usize = 24;

impl SecretSealer {
    /// A sealer from a 32-byte key.
    pub fn new(key: &[u8; 32]) -> Self {
        SecretSealer {
            cipher: XChaCha20Poly1305::new(key.into()),
        }
    }

    /// A sealer from the base64 text of a 32-byte key (the configuration format).
    pub fn from_base64(text: &str) -> Result<Self> {
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|_| DomainError::unexpected("webhook secret key is not valid base64"))?;
        let key: [u8; 32] = bytes.try_into().map_err(|_| {
            DomainError::unexpected("webhook secret key must be 32 bytes (base64-encoded)")
        })?;
        Ok(Self::new(&key))
    }

    /// Seals `plain` bound to `aad` (associated data: what the value belongs to): `nonce || ciphertext`.
    pub fn seal_bound(&self, aad: &[u8], plain: &[u8]) -> Result<Vec<u8>> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let ct = self
            .cipher
            .encrypt(XNonce::from_slice(&nonce), Payload { msg: plain, aad })
            .map_err(|_| DomainError::unexpected("sealing a secret failed"))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ct);
        Ok(out)
    }

    /// Opens what [`SecretSealer::seal_bound`] sealed with the same `aad`; `None` for a wrong key, another `aad`, or
    /// corrupted bytes.
    pub fn open_bound(&self, aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() <= NONCE_LEN {
            return None;
        }
        let (nonce, ct) = sealed.split_at(NONCE_LEN);
        self.cipher
            .decrypt(XNonce::from_slice(nonce), Payload { msg: ct, aad })
            .ok()
    }

    /// Seals a secret's text for subscription `id`.
    pub fn seal(
        &self,
        id: SubscriptionId,
        secret: &specpress_webhook::WebhookSecret,
    ) -> Result<Vec<u8>> {
        self.seal_bound(id.0.as_bytes(), secret.expose_text().as_bytes())
            .map_err(|_| DomainError::unexpected("sealing a webhook secret failed"))
    }

    /// Seals a Slack or Teams URL of subscription `id` (bound to the id and to its use: a sealed URL cannot pass for
    /// a sealed signing secret).
    pub fn seal_url(&self, id: SubscriptionId, url: &str) -> Result<Vec<u8>> {
        self.seal_bound(&url_aad(id), url.as_bytes())
            .map_err(|_| DomainError::unexpected("sealing a webhook URL failed"))
    }

    /// Opens what [`SecretSealer::seal_url`] sealed.
    pub fn open_url(&self, id: SubscriptionId, sealed: &[u8]) -> Result<String> {
        let fail = || {
            DomainError::unexpected(
                "a stored webhook URL cannot be opened (wrong key or corrupted)",
            )
        };
        let plain = self.open_bound(&url_aad(id), sealed).ok_or_else(fail)?;
        String::from_utf8(plain).map_err(|_| fail())
    }

    /// Opens a sealed secret of subscription `id`.
    pub fn open(
        &self,
        id: SubscriptionId,
        sealed: &[u8],
    ) -> Result<specpress_webhook::WebhookSecret> {
        let fail = || {
            DomainError::unexpected(
                "a stored webhook secret cannot be opened (wrong key or corrupted)",
            )
        };
        let plain = self.open_bound(id.0.as_bytes(), sealed).ok_or_else(fail)?;
        let text = String::from_utf8(plain).map_err(|_| fail())?;
        specpress_webhook::WebhookSecret::parse(&text).map_err(|_| fail())
    }
}

fn url_aad(id: SubscriptionId) -> Vec<u8> {
    let mut aad = b"url:".to_vec();
    aad.extend_from_slice(id.0.as_bytes());
    aad
}

/// The body of a webhook queue message. Thin: ids only, everything else is read from the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueBody {
    /// Fan an outbox event out to its subscriptions.
    Event {
        /// The event.
        event_id: EventId,
        /// The event's documentation, so that the consumer of an event whose documentation has no enabled
        /// subscription is done after listing them, without reading the event. Absent in messages written before
        /// it existed; the event read then supplies it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        doc_id: Option<DocId>,
    },
    /// Make the next attempt of one delivery.
    Delivery {
        /// The delivery.
        delivery_id: DeliveryId,
    },
}

/// Largest queue message body the consumer parses.
pub const MAX_QUEUE_BODY: usize = 4096;

impl QueueBody {
    /// The message that fans `event` out.
    pub fn for_event(event: &Event) -> Self {
        QueueBody::Event {
            event_id: event.id,
            doc_id: Some(event.doc_id),
        }
    }

    /// The JSON text sent to the queue.
    pub fn to_json(&self) -> String {
        // Serializing these plain structs cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses a received body; `None` for anything malformed or oversized.
    pub fn parse(body: &str) -> Option<Self> {
        if body.len() > MAX_QUEUE_BODY {
            return None;
        }
        serde_json::from_str(body).ok()
    }
}

/// Keys derived from the sealer's key (issue 38: the follower path's address hash and link MACs).
impl SecretSealer {
    /// A 32-byte key for `purpose`, derived from the sealer's key: the XChaCha20 keystream under a nonce named by
    /// the purpose (a pseudo-random function of the key), so it needs no key of its own and changes with the
    /// sealer's key.
    pub fn derive_key(&self, purpose: &str) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        let named = Sha256::digest(purpose.as_bytes());
        let nonce = XNonce::from_slice(&named[..NONCE_LEN]);
        let stream = self
            .cipher
            .encrypt(
                nonce,
                Payload {
                    msg: &[0u8; 32],
                    aad: b"specpress-derived-key",
                },
            )
            .unwrap_or_default();
        let mut key = [0u8; 32];
        let n = stream.len().min(32);
        key[..n].copy_from_slice(&stream[..n]);
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_ids_are_deterministic_per_event_and_subscription() {
        let (e, s) = (EventId::new(), SubscriptionId::new());
        assert_eq!(DeliveryId::for_event(e, s), DeliveryId::for_event(e, s));
        assert_ne!(
            DeliveryId::for_event(e, s),
            DeliveryId::for_event(e, SubscriptionId::new())
        );
        assert_ne!(
            DeliveryId::for_event(e, s),
            DeliveryId::for_event(EventId::new(), s)
        );
    }

    #[test]
    fn sealed_secrets_open_only_with_the_same_key_and_subscription() {
        let sealer = SecretSealer::new(&[7u8; 32]);
        let id = SubscriptionId::new();
        let secret = specpress_webhook::WebhookSecret::generate();
        let sealed = sealer.seal(id, &secret).unwrap();
        assert!(
            !sealed.windows(10).any(|w| secret
                .expose_text()
                .as_bytes()
                .windows(10)
                .any(|x| x == w))
        );
        assert_eq!(sealer.open(id, &sealed).unwrap(), secret);
        assert!(
            sealer.open(SubscriptionId::new(), &sealed).is_err(),
            "bound to the subscription id"
        );
        assert!(
            SecretSealer::new(&[8u8; 32]).open(id, &sealed).is_err(),
            "bound to the key"
        );
        let mut tampered = sealed.clone();
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        assert!(sealer.open(id, &tampered).is_err());
        assert!(sealer.open(id, &[1, 2, 3]).is_err());
        assert!(format!("{sealer:?}").contains("***"));
    }

    #[test]
    fn sealed_urls_open_only_for_their_subscription_and_never_as_secrets() {
        let sealer = SecretSealer::new(&[7u8; 32]);
        let id = SubscriptionId::new();
        let url = "https://hooks.slack.com/services/T000/B000/XXXXSECRET";
        let sealed = sealer.seal_url(id, url).expect("sealed");
        assert!(!sealed.windows(6).any(|w| w == b"SECRET"));
        assert_eq!(sealer.open_url(id, &sealed).expect("opened"), url);
        assert!(sealer.open_url(SubscriptionId::new(), &sealed).is_err());
        assert!(
            sealer.open(id, &sealed).is_err(),
            "a URL is no signing secret"
        );
    }

    #[test]
    fn masked_urls_keep_the_origin_and_hide_the_secret_part() {
        assert_eq!(
            mask_url("https://hooks.slack.com/services/T000ABCD/B000/XXXXSECRET"),
            "https://hooks.slack.com/services/T000..."
        );
        let teams = "https://prod-1.westus.logic.azure.com:443/workflows/abcdef/triggers/manual/paths/invoke?sig=SECRET";
        let masked = mask_url(teams);
        assert_eq!(
            masked,
            "https://prod-1.westus.logic.azure.com:443/workflows/abcd..."
        );
        assert!(!mask_url("https://h.example/?sig=SECRET").contains("SECRET"));
        assert_eq!(Format::parse("slack"), Some(Format::Slack));
        assert_eq!(Format::parse("email"), None);
        assert!(Format::Teams.secret_url() && !Format::Standard.secret_url());
    }

    #[test]
    fn sealer_key_config_must_be_32_base64_bytes() {
        use base64::Engine as _;
        let good = base64::engine::general_purpose::STANDARD.encode([1u8; 32]);
        assert!(SecretSealer::from_base64(&good).is_ok());
        let short = base64::engine::general_purpose::STANDARD.encode([1u8; 16]);
        assert!(SecretSealer::from_base64(&short).is_err());
        assert!(SecretSealer::from_base64("not base64!").is_err());
    }

    #[test]
    fn queue_bodies_round_trip_and_malformed_ones_are_refused() {
        let b = QueueBody::Delivery {
            delivery_id: DeliveryId::new(),
        };
        assert_eq!(QueueBody::parse(&b.to_json()), Some(b));
        for bad in [
            "",
            "{",
            "{\"type\":\"event\"}",
            "{\"type\":\"nope\",\"event_id\":\"x\"}",
            "null",
            "[1]",
        ] {
            assert_eq!(QueueBody::parse(bad), None, "{bad}");
        }
        assert_eq!(QueueBody::parse(&" ".repeat(MAX_QUEUE_BODY + 1)), None);
    }
}
