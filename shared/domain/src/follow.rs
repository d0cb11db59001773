//! Readers who follow a documentation or a hub by email (issue 38): the follower entity, its address (personal data:
//! sealed at rest, looked up by a keyed hash, never logged, deleted at unsubscribe) and the links of its mails.
//!
//! A follower is one (address, documentation or hub, operation) triple: its id is a keyed hash of the three, so a
//! repeated request for the same scope finds the same entry. It starts `pending` (nothing but one confirmation mail
//! is sent; it expires after [`PENDING_TTL`]), becomes `confirmed` through the single-use link of that mail, and is
//! `suspended` when the mail provider reports a bounce or a complaint. Unsubscribing deletes it.
//!
//! Links carry a token `<follower id>.<MAC>`: the MAC (HMAC-SHA256 under a key derived from the sealer's) covers the
//! follower id, what the link does and a random value of the entry, so a link works for that entry only (a later
//! entry of the same address gets another value) and cannot be forged. The confirmation MAC also covers a value the
//! confirmation clears: it is single-use.

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::model::{DocOrHub, OrgId};
use crate::webhooks::SecretSealer;

crate::model::id_type!(/// Follower id: a keyed hash of the address, the documentation or hub, and the operation.
    FollowerId);

/// How long a follow request waits for its confirmation.
pub const PENDING_TTL: time::Duration = time::Duration::hours(48);
/// Confirmation mails per address per (UTC) day.
pub const CONFIRMATIONS_PER_DAY: u32 = 3;
/// Longest accepted address (RFC 5321's path limit).
pub const MAX_ADDRESS_LEN: usize = 254;
/// Longest accepted operation (`METHOD /path`).
pub const MAX_OPERATION_LEN: usize = 512;
/// Followers per documentation or hub.
pub const MAX_FOLLOWERS_PER_SCOPE: usize = 10_000;

/// When mail is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cadence {
    /// One mail per matching release, at once.
    Release,
    /// A daily digest.
    Daily,
    /// A weekly digest.
    Weekly,
}

impl Cadence {
    /// Storage, form and API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Cadence::Release => "release",
            Cadence::Daily => "daily",
            Cadence::Weekly => "weekly",
        }
    }

    /// Parses the spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "release" => Some(Cadence::Release),
            "daily" => Some(Cadence::Daily),
            "weekly" => Some(Cadence::Weekly),
            _ => None,
        }
    }

    /// The length of a digest's period (`None` for `release`).
    pub fn period(self) -> Option<time::Duration> {
        match self {
            Cadence::Release => None,
            Cadence::Daily => Some(time::Duration::days(1)),
            Cadence::Weekly => Some(time::Duration::weeks(1)),
        }
    }
}

/// Where a follower stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FollowerState {
    /// Asked to follow; waits for the confirmation (nothing else is sent).
    Pending,
    /// Confirmed: receives mail.
    Confirmed,
    /// The provider reported a bounce or a complaint: receives nothing.
    Suspended,
}

impl FollowerState {
    /// Storage and API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FollowerState::Pending => "pending",
            FollowerState::Confirmed => "confirmed",
            FollowerState::Suspended => "suspended",
        }
    }

    /// Parses the spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(FollowerState::Pending),
            "confirmed" => Some(FollowerState::Confirmed),
            "suspended" => Some(FollowerState::Suspended),
            _ => None,
        }
    }
}

/// A reader following a documentation or a hub by email.
#[derive(Clone, PartialEq, Eq)]
pub struct Follower {
    /// Id (see [`FollowerId::for_request`]).
    pub id: FollowerId,
    /// The organization owning what is followed.
    pub org_id: OrgId,
    /// The documentation or hub followed.
    pub scope: DocOrHub,
    /// `METHOD /path` pattern of the one operation followed (`None`: every change).
    pub operation: Option<String>,
    /// Only releases with a breaking change.
    pub breaking_only: bool,
    /// When mail is sent.
    pub cadence: Cadence,
    /// Where it stands.
    pub state: FollowerState,
    /// Why it was suspended.
    pub suspended_reason: Option<String>,
    /// The keyed hash of the normalized address (hex): what finds it by address.
    pub address_hash: String,
    /// The address, sealed bound to the follower id (`nonce || ciphertext`).
    pub sealed_address: Vec<u8>,
    /// A random value of this entry that every link's MAC covers (hex).
    pub link_salt: String,
    /// The confirmation link's value (hex), cleared by the confirmation: the link is single-use.
    pub confirm_nonce: Option<String>,
    /// When asked (a repeated request of a pending entry keeps the first time).
    pub created_at: OffsetDateTime,
    /// When a pending entry expires (`None` once confirmed).
    pub expires_at: Option<OffsetDateTime>,
    /// When confirmed.
    pub confirmed_at: Option<OffsetDateTime>,
    /// The end of the current digest period (`daily`/`weekly`, once confirmed).
    pub next_digest_at: Option<OffsetDateTime>,
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower")
            .field("id", &self.id)
            .field("scope", &self.scope)
            .field("operation", &self.operation)
            .field("cadence", &self.cadence)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl Follower {
    /// Whether it is live at `now` (a pending entry past its expiry is gone, even before TTL deletes it).
    pub fn is_live(&self, now: OffsetDateTime) -> bool {
        self.state != FollowerState::Pending || self.expires_at.is_none_or(|e| e > now)
    }

    /// Opens the sealed address.
    pub fn address(&self, sealer: &SecretSealer) -> Result<String> {
        let fail = || DomainError::unexpected("a follower's address cannot be opened");
        let plain = sealer
            .open_bound(&address_aad(self.id), &self.sealed_address)
            .ok_or_else(fail)?;
        String::from_utf8(plain).map_err(|_| fail())
    }
}

/// The associated data an address is sealed under.
pub fn address_aad(id: FollowerId) -> Vec<u8> {
    let mut aad = b"specpress-follower-address\0".to_vec();
    aad.extend_from_slice(id.0.as_bytes());
    aad
}

/// A normalized email address (trimmed, lower-case); never logged (`Debug` hides it).
#[derive(Clone, PartialEq, Eq)]
pub struct Address(String);

impl std::fmt::Debug for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Address(***)")
    }
}

impl Address {
    /// Parses what a form or a provider notification gives: one `local@domain` with a dotted domain, printable ASCII
    /// without spaces, quotes, angle brackets or commas, at most [`MAX_ADDRESS_LEN`] bytes. `Invalid` on `email`
    /// otherwise (the message never repeats the input).
    pub fn parse(text: &str) -> Result<Self> {
        let t = text.trim().to_ascii_lowercase();
        let bad =
            || DomainError::invalid("email", "enter one email address, like name@example.com");
        if t.is_empty() || t.len() > MAX_ADDRESS_LEN {
            return Err(bad());
        }
        let (local, domain) = t.split_once('@').ok_or_else(bad)?;
        let ok_char = |c: char| {
            c.is_ascii_graphic()
                && !matches!(
                    c,
                    '@' | '"' | '<' | '>' | ',' | ';' | '(' | ')' | '[' | ']' | '\\'
                )
        };
        let labels_ok = domain.split('.').count() >= 2
            && domain.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && !l.starts_with('-')
                    && !l.ends_with('-')
                    && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            });
        if local.is_empty() || local.len() > 64 || !local.chars().all(ok_char) || !labels_ok {
            return Err(bad());
        }
        Ok(Address(t))
    }

    /// The normalized text (to seal or to send to).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The masked form an owner sees: `j***@e***.com`.
    pub fn masked(&self) -> String {
        mask(&self.0)
    }
}

/// Masks an address: its first character, the domain's first character and its last label.
pub fn mask(address: &str) -> String {
    let (local, domain) = address.split_once('@').unwrap_or((address, ""));
    let first = |s: &str| s.chars().next().map(String::from).unwrap_or_default();
    let tld = domain.rsplit_once('.').map(|(_, t)| t).unwrap_or("");
    format!("{}***@{}***.{}", first(local), first(domain), tld)
}

type HmacSha256 = Hmac<Sha256>;

/// Keys of the follower path, derived from the sealer's key: the address hash and the link MACs.
#[derive(Clone)]
pub struct FollowKeys {
    key: [u8; 32],
}

impl std::fmt::Debug for FollowKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FollowKeys(***)")
    }
}

/// What a link does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkPurpose {
    /// Confirms a follow request (single-use).
    Confirm,
    /// Shows the manage page and unsubscribes.
    Manage,
}

impl FollowKeys {
    /// The keys under `sealer`.
    pub fn new(sealer: &SecretSealer) -> Self {
        FollowKeys {
            key: sealer.derive_key("specpress-follow-keys-v1"),
        }
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        // HMAC takes a key of any length.
        let mut m = <HmacSha256 as Mac>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        for p in parts {
            m.update(&(p.len() as u64).to_be_bytes());
            m.update(p);
        }
        m.finalize().into_bytes().into()
    }

    /// The keyed hash of an address (hex): what finds its entries, counts its confirmations and suspends it.
    pub fn address_hash(&self, address: &Address) -> String {
        hex::encode(self.mac(&[b"address", address.expose().as_bytes()]))
    }

    /// The id of the follower of `address_hash` on `scope` and `operation`.
    pub fn follower_id(
        &self,
        address_hash: &str,
        scope: DocOrHub,
        operation: Option<&str>,
    ) -> FollowerId {
        let id = scope.id_string();
        let d = self.mac(&[
            b"follower",
            address_hash.as_bytes(),
            scope.kind().as_bytes(),
            id.as_bytes(),
            operation.unwrap_or("").as_bytes(),
        ]);
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&d[..16]);
        FollowerId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
    }

    fn link_mac(&self, f: &Follower, purpose: LinkPurpose) -> Option<[u8; 32]> {
        let id = f.id.0.as_bytes();
        match purpose {
            LinkPurpose::Confirm => {
                let nonce = f.confirm_nonce.as_deref()?;
                Some(self.mac(&[b"confirm", id, f.link_salt.as_bytes(), nonce.as_bytes()]))
            }
            LinkPurpose::Manage => Some(self.mac(&[b"manage", id, f.link_salt.as_bytes()])),
        }
    }

    /// The token of a link of `f` (`None` for a confirmation link of a confirmed follower).
    pub fn token(&self, f: &Follower, purpose: LinkPurpose) -> Option<String> {
        let mac = self.link_mac(f, purpose)?;
        Some(format!("{}.{}", f.id.0.simple(), hex::encode(&mac[..20])))
    }

    /// Whether `token` is a valid link token of `f` for `purpose` (constant-time comparison).
    pub fn verify(&self, f: &Follower, purpose: LinkPurpose, token: &str) -> bool {
        use subtle::ConstantTimeEq;
        let Some(expected) = self.token(f, purpose) else {
            return false;
        };
        expected.as_bytes().ct_eq(token.as_bytes()).into()
    }
}

/// The follower id a link token names (`None` for anything malformed); verify the token against the entry next.
pub fn token_follower(token: &str) -> Option<FollowerId> {
    let (id, mac) = token.split_once('.')?;
    if id.len() != 32 || mac.len() != 40 || !mac.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    FollowerId::parse(id)
}

/// A fresh random value (hex, 16 bytes).
pub fn random_hex() -> String {
    let mut b = [0u8; 16];
    rand::rng().fill_bytes(&mut b);
    hex::encode(b)
}

/// The UTC day of `now`, `YYYY-MM-DD` (the confirmation quota's window).
pub fn day_of(now: OffsetDateTime) -> String {
    let d = now.to_offset(time::UtcOffset::UTC).date();
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DocId;

    fn keys() -> FollowKeys {
        FollowKeys::new(&SecretSealer::new(&[7u8; 32]))
    }

    #[test]
    fn addresses_are_normalized_validated_and_masked() {
        let a = Address::parse("  Jane.Doe@Example.COM ").unwrap();
        assert_eq!(a.expose(), "jane.doe@example.com");
        assert_eq!(a.masked(), "j***@e***.com");
        assert_eq!(format!("{a:?}"), "Address(***)");
        for bad in [
            "",
            "jane",
            "jane@localhost",
            "a b@example.com",
            "<a@example.com>",
            "a@example.com,b@example.com",
            "a@-example.com",
            "a@@example.com",
        ] {
            assert!(Address::parse(bad).is_err(), "{bad}");
        }
        assert!(Address::parse(&format!("{}@example.com", "a".repeat(65))).is_err());
    }

    #[test]
    fn ids_are_one_per_address_scope_and_operation_and_hashes_depend_on_the_key() {
        let k = keys();
        let doc = DocOrHub::Doc(DocId::new());
        let a = k.address_hash(&Address::parse("a@example.com").unwrap());
        assert_eq!(a, k.address_hash(&Address::parse("A@example.com").unwrap()));
        assert_ne!(
            a,
            FollowKeys::new(&SecretSealer::new(&[8u8; 32]))
                .address_hash(&Address::parse("a@example.com").unwrap())
        );
        assert_eq!(k.follower_id(&a, doc, None), k.follower_id(&a, doc, None));
        assert_ne!(
            k.follower_id(&a, doc, None),
            k.follower_id(&a, doc, Some("GET /pets"))
        );
        assert_ne!(
            k.follower_id(&a, doc, None),
            k.follower_id(&a, DocOrHub::Doc(DocId::new()), None)
        );
    }

    #[test]
    fn link_tokens_verify_for_their_entry_and_purpose_only_and_confirmation_is_single_use() {
        let k = keys();
        let sealer = SecretSealer::new(&[7u8; 32]);
        let id = FollowerId::new();
        let mut f = Follower {
            id,
            org_id: OrgId::new(),
            scope: DocOrHub::Doc(DocId::new()),
            operation: None,
            breaking_only: false,
            cadence: Cadence::Release,
            state: FollowerState::Pending,
            suspended_reason: None,
            address_hash: "h".into(),
            sealed_address: sealer
                .seal_bound(&address_aad(id), b"a@example.com")
                .unwrap(),
            link_salt: random_hex(),
            confirm_nonce: Some(random_hex()),
            created_at: OffsetDateTime::now_utc(),
            expires_at: None,
            confirmed_at: None,
            next_digest_at: None,
        };
        assert_eq!(f.address(&sealer).unwrap(), "a@example.com");
        assert!(f.address(&SecretSealer::new(&[9u8; 32])).is_err());
        let confirm = k.token(&f, LinkPurpose::Confirm).unwrap();
        let manage = k.token(&f, LinkPurpose::Manage).unwrap();
        assert_eq!(token_follower(&confirm), Some(id));
        assert!(k.verify(&f, LinkPurpose::Confirm, &confirm));
        assert!(!k.verify(&f, LinkPurpose::Manage, &confirm));
        assert!(k.verify(&f, LinkPurpose::Manage, &manage));
        let mut tampered = manage.clone();
        tampered.pop();
        tampered.push('0');
        tampered.pop();
        tampered.push(if manage.ends_with('1') { '2' } else { '1' });
        assert!(!k.verify(&f, LinkPurpose::Manage, &tampered));
        f.confirm_nonce = None;
        assert!(!k.verify(&f, LinkPurpose::Confirm, &confirm));
        f.link_salt = random_hex();
        assert!(!k.verify(&f, LinkPurpose::Manage, &manage));
        assert_eq!(token_follower("nope"), None);
    }
}
