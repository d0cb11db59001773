//! Opaque, tamper-proof, list-bound, expiring cursors.
//!
//! Wire format (before base64url without padding):
//!
//! ```text
//! version (1 byte = 2) | nonce (24 bytes) | XChaCha20-Poly1305(plaintext, aad) (n + 16 bytes)
//! plaintext = expiry (u64 BE, unix seconds) | page (u32 BE) | position (n - 12 bytes)
//! aad       = "specpress-cursor-v2" | len(scope) (u32 BE) | scope | version
//! key       = HMAC-SHA256(configured key, "specpress-cursor-v2 aead key")
//! ```
//!
//! Security choices:
//! * **Encrypted and authenticated** (AEAD, the RustCrypto `chacha20poly1305` crate the webhook secrets use): a
//!   client can neither read the position (the sort key of the last item it saw) nor forge or edit one (for example
//!   a raw DynamoDB `ExclusiveStartKey` pointing into another tenant's partition, reliability.md §3). The cursor is
//!   opaque for real: its bytes are a version byte, a random nonce and ciphertext.
//! * **Random 192-bit nonce** per cursor (XChaCha20): no nonce bookkeeping, no reuse across processes sharing a key.
//! * **Scope bound, not carried**: the list scope (`branches:<doc_id>`) is associated data, not part of the token, so
//!   a cursor from another list or tenant fails exactly like a forged one, and the token does not reveal which list it
//!   came from. The scope is length-prefixed so two different (scope, payload) splits never give the same input.
//! * **Expiry inside the ciphertext**, checked only after the tag verified.
//! * **Key separation**: the AEAD key is derived from the configured key with HMAC-SHA256 under a fixed label, so the
//!   configured text (any length from [`MIN_KEY_BYTES`]) is never used directly as a cipher key.
//! * **Bounded input**: tokens over [`MAX_CURSOR_LEN`] characters are refused before decoding.
//! * **Versioned**: cursors of the previous format (version 1, HMAC-signed but readable) are refused as malformed, so a
//!   client holding one gets the usual 400 and starts again from the first page.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use rand::RngCore as _;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

const VERSION: u8 = 2;
const DOMAIN: &[u8] = b"specpress-cursor-v2";
const KEY_LABEL: &[u8] = b"specpress-cursor-v2 aead key";
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const PLAIN_HEADER_LEN: usize = 8 + 4;
/// Longest cursor accepted, in characters (about 3 KB of position).
pub const MAX_CURSOR_LEN: usize = 4096;
/// Shortest accepted key: 256 bits.
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
    /// Not base64url, too long, too short, or an unknown version (including the old readable format).
    #[error("malformed cursor")]
    Malformed,
    /// The tag does not verify: tampered with, forged, or issued for another list or under another key.
    #[error("cursor does not verify for this list")]
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
    /// The service's position payload (an offset, a last-seen key, ...), private to the service.
    pub position: Vec<u8>,
}

/// Encodes and verifies cursors with a service-held key.
#[derive(Clone)]
pub struct CursorCodec {
    cipher: XChaCha20Poly1305,
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

fn aad(scope: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(DOMAIN.len() + 4 + scope.len() + 1);
    aad.extend_from_slice(DOMAIN);
    let scope_len = u32::try_from(scope.len()).unwrap_or(u32::MAX);
    aad.extend_from_slice(&scope_len.to_be_bytes());
    aad.extend_from_slice(scope.as_bytes());
    aad.push(VERSION);
    aad
}

impl CursorCodec {
    /// A codec with the given key (at least 32 bytes) and the default 24 h lifetime.
    pub fn new(key: &[u8]) -> Result<Self, CursorKeyError> {
        if key.len() < MIN_KEY_BYTES {
            return Err(CursorKeyError(key.len()));
        }
        let mut kdf = match <HmacSha256 as Mac>::new_from_slice(key) {
            Ok(mac) => mac,
            // HMAC takes keys of any length; this arm cannot run.
            Err(_) => unreachable!("HMAC-SHA256 accepts keys of every length"),
        };
        kdf.update(KEY_LABEL);
        let derived = kdf.finalize().into_bytes();
        Ok(Self {
            cipher: XChaCha20Poly1305::new(&derived),
            ttl: DEFAULT_CURSOR_TTL,
        })
    }

    /// Sets the lifetime of cursors encoded from now on.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// A cursor for `scope` leading to `page`, carrying `position`, valid until `now + ttl`.
    pub fn encode(&self, scope: &str, page: u32, position: &[u8], now: SystemTime) -> String {
        let expiry = unix_secs(now).saturating_add(self.ttl.as_secs());
        let mut plain = Vec::with_capacity(PLAIN_HEADER_LEN + position.len());
        plain.extend_from_slice(&expiry.to_be_bytes());
        plain.extend_from_slice(&page.to_be_bytes());
        plain.extend_from_slice(position);
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let aad = aad(scope);
        let sealed = match self.cipher.encrypt(
            XNonce::from_slice(&nonce),
            Payload {
                msg: &plain,
                aad: &aad,
            },
        ) {
            Ok(sealed) => sealed,
            // XChaCha20-Poly1305 refuses only messages over 256 GiB; positions are a few bytes.
            Err(_) => unreachable!("a cursor position is far below the AEAD message limit"),
        };
        let mut bytes = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
        bytes.push(VERSION);
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&sealed);
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
        let Some((version, rest)) = bytes.split_first() else {
            return Err(CursorError::Malformed);
        };
        if *version != VERSION || rest.len() < NONCE_LEN + TAG_LEN + PLAIN_HEADER_LEN {
            return Err(CursorError::Malformed);
        }
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let aad = aad(scope);
        let plain = self
            .cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: &aad,
                },
            )
            .map_err(|_| CursorError::BadSignature)?;
        // Authentic from here on: our own encoder wrote these fields.
        let (header, position) = plain.split_at(PLAIN_HEADER_LEN);
        let [e0, e1, e2, e3, e4, e5, e6, e7, p0, p1, p2, p3] = header else {
            return Err(CursorError::Malformed);
        };
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
        // Long enough to hold a nonce, a header and a tag, but forged.
        let mut forged = vec![VERSION];
        forged.extend_from_slice(&[1u8; 60]);
        assert_eq!(
            c.decode("hubs", &URL_SAFE_NO_PAD.encode(forged), now()),
            Err(CursorError::BadSignature)
        );
    }

    #[test]
    fn cursors_of_the_previous_readable_format_are_refused_as_malformed() {
        // Version 1: version | expiry | page | position | HMAC-SHA256 tag, the position in clear.
        let mut v1 = vec![1u8];
        v1.extend_from_slice(&u64::MAX.to_be_bytes());
        v1.extend_from_slice(&2u32.to_be_bytes());
        v1.extend_from_slice(b"feature-login");
        v1.extend_from_slice(&[0u8; 32]);
        assert_eq!(
            codec().decode("branches:d", &URL_SAFE_NO_PAD.encode(v1), now()),
            Err(CursorError::Malformed)
        );
    }

    /// Every encoding of `needle` a reader might try on a cursor: as is, hex (both cases), and base64 (standard and
    /// URL alphabets) at each of the three byte alignments it can take inside a longer encoded string.
    fn encodings_of(needle: &[u8]) -> Vec<Vec<u8>> {
        use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD as URL};
        let mut out = vec![
            needle.to_vec(),
            hex_lower(needle).into_bytes(),
            hex_lower(needle).to_ascii_uppercase().into_bytes(),
        ];
        for shift in 0..3usize {
            let mut shifted = vec![0u8; shift];
            shifted.extend_from_slice(needle);
            for engine in [&STANDARD_NO_PAD, &URL] {
                let text = engine.encode(&shifted);
                // Drop the characters that mix the padding bytes in, and the last one (it mixes what follows).
                let skip = (shift * 8).div_ceil(6);
                let stable: String = text.chars().skip(skip).collect();
                let stable = &stable[..stable.len().saturating_sub(1)];
                out.push(stable.as_bytes().to_vec());
            }
        }
        out
    }

    fn hex_lower(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
    }

    #[test]
    fn a_cursor_does_not_reveal_its_sort_key_in_any_encoding() {
        let c = codec();
        for key in [
            "feature-login",
            "00000001700000000000000000#0191a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b",
            "my-api",
        ] {
            let token = c.encode("branches:doc1", 2, key.as_bytes(), now());
            let raw = URL_SAFE_NO_PAD.decode(&token).expect("own token decodes");
            for needle in encodings_of(key.as_bytes()) {
                for haystack in [token.as_bytes(), raw.as_slice()] {
                    assert!(
                        !contains(haystack, &needle),
                        "cursor {token} shows {:?} of the key {key:?}",
                        String::from_utf8_lossy(&needle)
                    );
                }
            }
            // The encodings helper does find what is there: a plain base64 of the key shows it.
            let leaky = URL_SAFE_NO_PAD.encode(format!("xx{key}yy"));
            assert!(
                encodings_of(key.as_bytes())
                    .iter()
                    .any(|n| contains(leaky.as_bytes(), n)),
                "the leak check finds a readable key"
            );
        }
    }

    #[test]
    fn two_cursors_for_the_same_position_differ() {
        let c = codec();
        let a = c.encode("hubs", 2, b"same", now());
        let b = c.encode("hubs", 2, b"same", now());
        assert_ne!(a, b, "a fresh nonce per cursor");
        assert_eq!(c.decode("hubs", &a, now()), c.decode("hubs", &b, now()));
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
