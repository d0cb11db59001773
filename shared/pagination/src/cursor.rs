//! Tamper-proof, list-bound, expiring cursors.
//!
//! Wire format (before base64url without padding):
//!
//! ```text
//! version (1 byte = 1) | expiry (u64 BE, unix seconds) | page (u32 BE) | position (n bytes) | tag (32 bytes)
//! tag = HMAC-SHA256(key, "specpress-cursor-v1" | len(scope) (u32 BE) | scope | version | expiry | page | position)
//! ```
//!
//! Security choices:
//! * **MAC, not just encoding**: a client cannot forge or edit a position (for example a raw
//!   DynamoDB `ExclusiveStartKey` pointing into another tenant's partition, reliability.md §3).
//! * **Scope bound, not carried**: the list scope (`branches:<doc_id>`) enters the MAC but not
//!   the token, so a cursor from another list or tenant fails verification exactly like a forged
//!   one, and the token does not reveal which list it came from. The scope is length-prefixed so
//!   two different (scope, payload) splits can never produce the same MAC input.
//! * **Expiry inside the MAC**, checked only after the MAC verified.
//! * **Constant-time** tag comparison (`hmac::Mac::verify_slice`), after a length check.
//! * **Bounded input**: tokens over [`MAX_CURSOR_LEN`] characters are refused before decoding.
//! * The position is authenticated, **not encrypted**: services must not put secrets in it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

const VERSION: u8 = 1;
const DOMAIN: &[u8] = b"specpress-cursor-v1";
const TAG_LEN: usize = 32;
const HEADER_LEN: usize = 1 + 8 + 4;
/// Longest cursor accepted, in characters (about 3 KB of position).
pub const MAX_CURSOR_LEN: usize = 4096;
/// Shortest accepted MAC key: 256 bits, the HMAC-SHA256 security level.
pub const MIN_KEY_BYTES: usize = 32;
/// Default lifetime of a cursor.
pub const DEFAULT_CURSOR_TTL: Duration = Duration::from_secs(24 * 3_600);

/// The key given to [`CursorCodec::new`] is too short.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cursor key must be at least {MIN_KEY_BYTES} bytes, got {0}")]
pub struct CursorKeyError(pub usize);

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not base64url, too long, too short, or an unknown version.
    #[error("malformed cursor")]
    Malformed,
    /// The MAC does not verify: tampered with, forged, or issued for another list.
    #[error("cursor signature does not verify for this list")]
    BadSignature,
    /// Authentic but past its expiry.
    #[error("cursor expired")]
    Expired,
}

impl From<CursorError> for crate::ParamError {
    fn from(e: CursorError) -> Self {
        match e {
            CursorError::Expired => crate::ParamError::ExpiredCursor,
            CursorError::Malformed | CursorError::BadSignature => crate::ParamError::InvalidCursor,
        }
    }
}

/// What a verified cursor says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorPosition {
    /// The page number the cursor leads to (for `X-Page` and the `prev` link).
    pub page: u32,
    /// The service's opaque position payload (an offset, a last-seen key, ...).
    pub position: Vec<u8>,
}

/// Encodes and verifies cursors with a service-held key.
#[derive(Clone)]
pub struct CursorCodec {
    key: Vec<u8>,
    ttl: Duration,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CursorCodec")
            .field("key", &"***")
            .field("ttl", &self.ttl)
            .finish()
    }
}

fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl CursorCodec {
    /// A codec with the given key (at least 32 bytes) and the default 24 h lifetime.
    pub fn new(key: &[u8]) -> Result<Self, CursorKeyError> {
        if key.len() < MIN_KEY_BYTES {
            return Err(CursorKeyError(key.len()));
        }
        Ok(Self {
            key: key.to_vec(),
            ttl: DEFAULT_CURSOR_TTL,
        })
    }

    /// Sets the lifetime of cursors encoded from now on.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    fn mac(&self, scope: &str, body: &[u8]) -> HmacSha256 {
        let mut mac = match <HmacSha256 as Mac>::new_from_slice(&self.key) {
            Ok(mac) => mac,
            // HMAC takes keys of any length; this arm cannot run.
            Err(_) => unreachable!("HMAC-SHA256 accepts keys of every length"),
        };
        mac.update(DOMAIN);
        let scope_len = u32::try_from(scope.len()).unwrap_or(u32::MAX);
        mac.update(&scope_len.to_be_bytes());
        mac.update(scope.as_bytes());
        mac.update(body);
        mac
    }

    /// A cursor for `scope` leading to `page`, carrying `position`, valid until `now + ttl`.
    pub fn encode(&self, scope: &str, page: u32, position: &[u8], now: SystemTime) -> String {
        let expiry = unix_secs(now).saturating_add(self.ttl.as_secs());
        let mut bytes = Vec::with_capacity(HEADER_LEN + position.len() + TAG_LEN);
        bytes.push(VERSION);
        bytes.extend_from_slice(&expiry.to_be_bytes());
        bytes.extend_from_slice(&page.to_be_bytes());
        bytes.extend_from_slice(position);
        let tag = self.mac(scope, &bytes).finalize().into_bytes();
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Verifies a cursor for `scope` at `now` and returns what it carries.
    pub fn decode(
        &self,
        scope: &str,
        cursor: &str,
        now: SystemTime,
    ) -> Result<CursorPosition, CursorError> {
        if cursor.len() > MAX_CURSOR_LEN {
            return Err(CursorError::Malformed);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| CursorError::Malformed)?;
        if bytes.len() < HEADER_LEN + TAG_LEN {
            return Err(CursorError::Malformed);
        }
        let (body, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        self.mac(scope, body)
            .verify_slice(tag)
            .map_err(|_| CursorError::BadSignature)?;
        // Authentic from here on: our own encoder wrote these fields.
        let (header, position) = body.split_at(HEADER_LEN);
        let [version, e0, e1, e2, e3, e4, e5, e6, e7, p0, p1, p2, p3] = header else {
            return Err(CursorError::Malformed);
        };
        if *version != VERSION {
            return Err(CursorError::Malformed);
        }
        let expiry = u64::from_be_bytes([*e0, *e1, *e2, *e3, *e4, *e5, *e6, *e7]);
        if unix_secs(now) >= expiry {
            return Err(CursorError::Expired);
        }
        Ok(CursorPosition {
            page: u32::from_be_bytes([*p0, *p1, *p2, *p3]),
            position: position.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEY: [u8; 32] = [7u8; 32];

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }

    fn codec() -> CursorCodec {
        CursorCodec::new(&KEY).expect("key long enough")
    }

    #[test]
    fn short_keys_are_refused() {
        assert_eq!(CursorCodec::new(&[0u8; 31]).err(), Some(CursorKeyError(31)));
    }

    #[test]
    fn cursor_round_trips_within_its_list() {
        let c = codec();
        let token = c.encode("branches:doc1", 4, b"offset:30", now());
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(
            c.decode("branches:doc1", &token, now()),
            Ok(CursorPosition {
                page: 4,
                position: b"offset:30".to_vec()
            })
        );
    }

    #[test]
    fn cursor_from_another_list_or_key_is_refused() {
        let c = codec();
        let token = c.encode("branches:doc1", 2, b"x", now());
        assert_eq!(
            c.decode("branches:doc2", &token, now()),
            Err(CursorError::BadSignature)
        );
        assert_eq!(
            c.decode("versions:doc1", &token, now()),
            Err(CursorError::BadSignature)
        );
        let other = CursorCodec::new(&[8u8; 32]).expect("key");
        assert_eq!(
            other.decode("branches:doc1", &token, now()),
            Err(CursorError::BadSignature)
        );
    }

    #[test]
    fn expired_cursor_is_refused_after_its_ttl() {
        let c = codec().with_ttl(Duration::from_secs(60));
        let token = c.encode("hubs", 2, b"", now());
        assert!(
            c.decode("hubs", &token, now() + Duration::from_secs(59))
                .is_ok()
        );
        assert_eq!(
            c.decode("hubs", &token, now() + Duration::from_secs(60)),
            Err(CursorError::Expired)
        );
    }

    #[test]
    fn garbage_and_oversized_cursors_are_malformed() {
        let c = codec();
        for bad in [
            "",
            "!!!",
            "abc",
            "AAAA",
            "a+b/c=",
            &"A".repeat(MAX_CURSOR_LEN + 1),
        ] {
            assert_eq!(
                c.decode("hubs", bad, now()),
                Err(CursorError::Malformed),
                "{bad}"
            );
        }
        // Long enough to hold a tag, but forged.
        let forged = URL_SAFE_NO_PAD.encode([1u8; 60]);
        assert_eq!(
            c.decode("hubs", &forged, now()),
            Err(CursorError::BadSignature)
        );
    }

    #[test]
    fn cursor_errors_map_to_the_cursor_parameter() {
        let e: crate::ParamError = CursorError::BadSignature.into();
        assert_eq!(e.parameter(), "cursor");
        let e: crate::ParamError = CursorError::Expired.into();
        assert_eq!(e, crate::ParamError::ExpiredCursor);
    }

    proptest! {
        #[test]
        fn encode_decode_round_trip(
            scope in "[a-z]{1,10}:[A-Za-z0-9_-]{0,30}",
            page in 1u32..=1_000_000,
            position in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let c = codec();
            let token = c.encode(&scope, page, &position, now());
            prop_assert_eq!(
                c.decode(&scope, &token, now()),
                Ok(CursorPosition { page, position })
            );
        }

        #[test]
        fn any_bit_flip_in_the_decoded_bytes_is_rejected(
            position in proptest::collection::vec(any::<u8>(), 0..64),
            bit in any::<usize>(),
        ) {
            let c = codec();
            let token = c.encode("branches:d", 3, &position, now());
            let mut bytes = URL_SAFE_NO_PAD.decode(&token).expect("own token decodes");
            let bit = bit % (bytes.len() * 8);
            bytes[bit / 8] ^= 1 << (bit % 8);
            let flipped = URL_SAFE_NO_PAD.encode(&bytes);
            prop_assert!(c.decode("branches:d", &flipped, now()).is_err());
        }

        #[test]
        fn any_bit_flip_in_the_token_text_is_rejected(
            position in proptest::collection::vec(any::<u8>(), 0..64),
            bit in any::<usize>(),
        ) {
            let c = codec();
            let token = c.encode("branches:d", 3, &position, now());
            let mut text = token.into_bytes();
            let bit = bit % (text.len() * 7);
            text[bit / 7] ^= 1 << (bit % 7);
            let flipped = String::from_utf8(text).expect("ASCII stays ASCII");
            prop_assert!(c.decode("branches:d", &flipped, now()).is_err());
        }
    }
}
