//! Signing and verifying webhook deliveries.
//!
//! Two signature headers are produced for every attempt:
//!
//! * **Standard Webhooks v1** (`webhook-id`, `webhook-timestamp`, `webhook-signature`):
//!   `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>` where `key` is the base64-decoded
//!   part of the secret after `whsec_`. One signature per active secret, space-separated, so a
//!   receiver keeps verifying while a rotated secret and its predecessor overlap (24 h).
//! * **Bump.sh style** `X-Bump-Signature-256: sha256=<hex HMAC-SHA256(key, body)>`.
//!   **Key decision:** the HMAC key is the *full secret text* as UTF-8 bytes, prefix included
//!   (`whsec_...`), not the decoded bytes. GitHub-style receivers (`X-Hub-Signature-256`
//!   recipes, Bump.sh integrations) paste the secret string they were shown into their config
//!   and use it verbatim as the key; they do not know about the `whsec_` base64 convention.
//!   This header carries exactly one signature, made with the *newest* secret (the first in the
//!   list given to [`sign_headers`]); receivers that need zero-downtime rotation should verify
//!   the Standard Webhooks header, which lists every active secret. Note that this header signs
//!   no timestamp, so it does not protect against replays; the Standard header does.
//!
//! Both are computed over the exact body bytes that are sent: callers must not re-serialise.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use http::{HeaderMap, HeaderName, HeaderValue};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::secret::WebhookSecret;

type HmacSha256 = Hmac<Sha256>;

/// `webhook-id`: the event id, constant across retries (the receiver's idempotency key).
pub const WEBHOOK_ID_HEADER: &str = "webhook-id";
/// `webhook-timestamp`: integer unix seconds of *this attempt*.
pub const WEBHOOK_TIMESTAMP_HEADER: &str = "webhook-timestamp";
/// `webhook-signature`: space-separated `v1,<base64>` list.
pub const WEBHOOK_SIGNATURE_HEADER: &str = "webhook-signature";
/// `X-Bump-Signature-256`: `sha256=<hex>` of the body, for Bump.sh-style receivers.
pub const BUMP_SIGNATURE_HEADER: &str = "x-bump-signature-256";
/// Timestamp tolerance of the verifier, both directions (the reference libraries use 5 min).
pub const DEFAULT_TOLERANCE_SECS: u64 = 5 * 60;

/// Longest message id accepted (ids are ours: `msg_<ulid>`; this bounds header size).
const MAX_MESSAGE_ID_LEN: usize = 255;
/// HMAC-SHA256 output length; any other length is refused *before* comparing.
const MAC_LEN: usize = 32;
/// Upper bound on signatures parsed from one header, so a hostile header cannot make the
/// verifier do unbounded HMAC comparisons.
const MAX_SIGNATURES: usize = 16;

/// Why signing was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    /// No secret was given: an unsigned delivery must never be sent by mistake.
    #[error("at least one webhook secret is required to sign")]
    NoSecret,
    /// The message id is empty, too long, or contains `.`, whitespace or control characters
    /// (the spec forbids `.` because it separates the signed fields).
    #[error("invalid webhook message id")]
    InvalidMessageId,
}

/// Why a delivery failed verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// A required header is absent or not visible ASCII.
    #[error("missing or unreadable header `{0}`")]
    MissingHeader(&'static str),
    /// `webhook-timestamp` is not an integer.
    #[error("invalid webhook-timestamp")]
    InvalidTimestamp,
    /// The timestamp is older than the tolerance.
    #[error("webhook-timestamp is too old")]
    TimestampTooOld,
    /// The timestamp is further in the future than the tolerance.
    #[error("webhook-timestamp is too far in the future")]
    TimestampTooNew,
    /// No listed signature matches any of the verifier's secrets.
    #[error("no matching signature")]
    NoMatchingSignature,
    /// The verifier was built without secrets.
    #[error("verifier has no secrets")]
    NoSecret,
    /// The message id is not one we could have signed.
    #[error("invalid webhook-id")]
    InvalidMessageId,
}

fn mac_with(key: &[u8]) -> HmacSha256 {
    match <HmacSha256 as Mac>::new_from_slice(key) {
        Ok(mac) => mac,
        // `new_from_slice` only fails for MACs with a fixed key size; HMAC accepts keys of
        // every length (longer ones are hashed), so this arm cannot run.
        Err(_) => unreachable!("HMAC-SHA256 accepts keys of every length"),
    }
}

fn standard_mac(key: &[u8], msg_id: &str, timestamp: i64, body: &[u8]) -> [u8; MAC_LEN] {
    let mut mac = mac_with(key);
    mac.update(msg_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// Checks a message id: non-empty, at most 255 bytes, visible ASCII without `.`.
pub fn validate_message_id(msg_id: &str) -> Result<(), SignError> {
    let ok = !msg_id.is_empty()
        && msg_id.len() <= MAX_MESSAGE_ID_LEN
        && msg_id.bytes().all(|b| b.is_ascii_graphic() && b != b'.');
    if ok {
        Ok(())
    } else {
        Err(SignError::InvalidMessageId)
    }
}

/// One Standard Webhooks v1 signature: `v1,<base64 HMAC-SHA256(key, "{id}.{ts}.{body}")>`.
pub fn standard_signature(
    secret: &WebhookSecret,
    msg_id: &str,
    timestamp: i64,
    body: &[u8],
) -> Result<String, SignError> {
    validate_message_id(msg_id)?;
    let mac = standard_mac(secret.key_bytes(), msg_id, timestamp, body);
    Ok(format!("v1,{}", STANDARD.encode(mac)))
}

/// The Bump.sh-style body signature: `sha256=<hex HMAC-SHA256(secret text UTF-8, body)>`.
/// See the module docs for why the key is the full secret text.
pub fn bump_signature(secret: &WebhookSecret, body: &[u8]) -> String {
    let mut mac = mac_with(secret.expose_text().as_bytes());
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// All signature headers of one delivery attempt.
///
/// `secrets` are the subscription's active secrets, **newest first**: every one of them signs
/// `webhook-signature`; the first also signs `X-Bump-Signature-256`. `timestamp` is the unix time
/// of this attempt (recomputed on every retry), `msg_id` the event id (constant across retries).
pub fn sign_headers(
    secrets: &[WebhookSecret],
    msg_id: &str,
    timestamp: i64,
    body: &[u8],
) -> Result<HeaderMap, SignError> {
    let newest = secrets.first().ok_or(SignError::NoSecret)?;
    validate_message_id(msg_id)?;
    let signatures = secrets
        .iter()
        .map(|s| standard_signature(s, msg_id, timestamp, body))
        .collect::<Result<Vec<_>, _>>()?
        .join(" ");
    let mut headers = HeaderMap::new();
    // Every value below is visible ASCII by construction (validated id, digits, base64, hex),
    // so `from_str` cannot fail; map the impossible error rather than unwrap.
    let value = |s: &str| HeaderValue::from_str(s).map_err(|_| SignError::InvalidMessageId);
    headers.insert(HeaderName::from_static(WEBHOOK_ID_HEADER), value(msg_id)?);
    headers.insert(
        HeaderName::from_static(WEBHOOK_TIMESTAMP_HEADER),
        value(&timestamp.to_string())?,
    );
    headers.insert(
        HeaderName::from_static(WEBHOOK_SIGNATURE_HEADER),
        value(&signatures)?,
    );
    headers.insert(
        HeaderName::from_static(BUMP_SIGNATURE_HEADER),
        value(&bump_signature(newest, body))?,
    );
    Ok(headers)
}

/// Verifies Standard Webhooks deliveries: the receiver side, used by our tests and offered to
/// subscribers.
///
/// Security choices, each a known failure in other implementations:
/// * a signature is compared only if it decodes to exactly 32 bytes, then in constant time
///   (`subtle`); empty (`v1,`), short and long signatures never match (the zip-compare bug of
///   the Rust reference verifier, reliability.md §1.1);
/// * the timestamp must lie within the tolerance in both directions, and a tolerance of zero
///   means "exactly now", never "skip the check" (the stripe-node footgun, §1.4);
/// * at most 16 signatures are examined per header;
/// * a verifier without secrets refuses everything.
#[derive(Clone)]
pub struct Verifier {
    secrets: Vec<WebhookSecret>,
    tolerance_secs: u64,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("secrets", &self.secrets.len())
            .field("tolerance_secs", &self.tolerance_secs)
            .finish()
    }
}

impl Verifier {
    /// A verifier accepting signatures by any of `secrets`, with the 5-minute tolerance.
    pub fn new(secrets: Vec<WebhookSecret>) -> Self {
        Self {
            secrets,
            tolerance_secs: DEFAULT_TOLERANCE_SECS,
        }
    }

    /// Overrides the timestamp tolerance (seconds, applied in both directions).
    pub fn with_tolerance_secs(mut self, tolerance_secs: u64) -> Self {
        self.tolerance_secs = tolerance_secs;
        self
    }

    /// Verifies a delivery from its headers and exact body bytes, at unix time `now`.
    pub fn verify_headers(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        now: i64,
    ) -> Result<(), VerifyError> {
        let get = |name: &'static str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .ok_or(VerifyError::MissingHeader(name))
        };
        let msg_id = get(WEBHOOK_ID_HEADER)?;
        let timestamp = get(WEBHOOK_TIMESTAMP_HEADER)?;
        let signatures = get(WEBHOOK_SIGNATURE_HEADER)?;
        self.verify(msg_id, timestamp, signatures, body, now)
    }

    /// Verifies raw header values (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
    pub fn verify(
        &self,
        msg_id: &str,
        timestamp: &str,
        signatures: &str,
        body: &[u8],
        now: i64,
    ) -> Result<(), VerifyError> {
        if self.secrets.is_empty() {
            return Err(VerifyError::NoSecret);
        }
        validate_message_id(msg_id).map_err(|_| VerifyError::InvalidMessageId)?;
        let ts: i64 = timestamp
            .trim()
            .parse()
            .map_err(|_| VerifyError::InvalidTimestamp)?;
        let tolerance = i64::try_from(self.tolerance_secs).unwrap_or(i64::MAX);
        if ts < now.saturating_sub(tolerance) {
            return Err(VerifyError::TimestampTooOld);
        }
        if ts > now.saturating_add(tolerance) {
            return Err(VerifyError::TimestampTooNew);
        }
        let expected: Vec<[u8; MAC_LEN]> = self
            .secrets
            .iter()
            .map(|s| standard_mac(s.key_bytes(), msg_id, ts, body))
            .collect();
        for candidate in signatures.split(' ').take(MAX_SIGNATURES) {
            let Some(("v1", encoded)) = candidate.split_once(',') else {
                continue;
            };
            let Ok(given) = STANDARD.decode(encoded) else {
                continue;
            };
            if given.len() != MAC_LEN {
                continue;
            }
            let mut matched = subtle::Choice::from(0u8);
            for exp in &expected {
                matched |= exp.as_slice().ct_eq(&given);
            }
            if bool::from(matched) {
                return Ok(());
            }
        }
        Err(VerifyError::NoMatchingSignature)
    }
}

/// Verifies an `X-Bump-Signature-256` value (`sha256=<64 hex>`) in constant time, keyed by the
/// full secret text. Returns `false` for any malformed, short or long value.
pub fn verify_bump_signature(secret: &WebhookSecret, body: &[u8], header_value: &str) -> bool {
    let Some(hex_part) = header_value.trim().strip_prefix("sha256=") else {
        return false;
    };
    if hex_part.len() != MAC_LEN * 2 {
        return false;
    }
    let Ok(given) = hex::decode(hex_part) else {
        return false;
    };
    let mut mac = mac_with(secret.expose_text().as_bytes());
    mac.update(body);
    // `verify_slice` is constant-time over equal lengths; the length was checked above.
    mac.verify_slice(&given).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTOR_SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    const VECTOR_ID: &str = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
    const VECTOR_TS: i64 = 1_649_367_553;
    const VECTOR_BODY: &[u8] = br#"{"email":"test@example.com","username":"test_user"}"#;
    const VECTOR_SIG: &str = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=";

    fn vector_secret() -> WebhookSecret {
        WebhookSecret::parse(VECTOR_SECRET).expect("vector secret parses")
    }

    #[test]
    fn standard_webhooks_spec_vector_is_reproduced() {
        let sig =
            standard_signature(&vector_secret(), VECTOR_ID, VECTOR_TS, VECTOR_BODY).expect("signs");
        assert_eq!(sig, VECTOR_SIG);
    }

    #[test]
    fn standard_webhooks_spec_vector_verifies_within_tolerance_only() {
        let v = Verifier::new(vec![vector_secret()]);
        let ts = VECTOR_TS.to_string();
        assert_eq!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS),
            Ok(())
        );
        assert_eq!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS + 300),
            Ok(())
        );
        assert_eq!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS + 301),
            Err(VerifyError::TimestampTooOld)
        );
        assert_eq!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS - 301),
            Err(VerifyError::TimestampTooNew)
        );
    }

    #[test]
    fn github_hub_signature_vector_is_reproduced_by_the_same_hmac() {
        // reliability.md §1.3: GitHub's documented vector. The Bump-style header is the same
        // construction keyed by the secret text, so check the primitive with GitHub's key.
        let mut mac = mac_with(b"It's a Secret to Everybody");
        mac.update(b"Hello, World!");
        assert_eq!(
            hex::encode(mac.finalize().into_bytes()),
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
    }

    #[test]
    fn bump_signature_is_keyed_by_the_full_secret_text() {
        let secret = vector_secret();
        let mut mac = mac_with(VECTOR_SECRET.as_bytes());
        mac.update(VECTOR_BODY);
        let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
        assert_eq!(bump_signature(&secret, VECTOR_BODY), expected);
        assert!(verify_bump_signature(&secret, VECTOR_BODY, &expected));
        assert!(!verify_bump_signature(&secret, b"tampered", &expected));
    }

    #[test]
    fn bump_verifier_rejects_empty_short_long_and_non_hex_values() {
        let secret = vector_secret();
        let good = bump_signature(&secret, VECTOR_BODY);
        for bad in [
            "",
            "sha256=",
            "sha256=00",
            &good[..good.len() - 2],
            &format!("{good}00"),
            &good.replace("sha256=", "sha1="),
            &format!("sha256={}", "zz".repeat(32)),
        ] {
            assert!(
                !verify_bump_signature(&secret, VECTOR_BODY, bad),
                "accepted {bad:?}"
            );
        }
    }

    #[test]
    fn verifier_rejects_empty_short_long_and_garbage_signatures() {
        let v = Verifier::new(vec![vector_secret()]);
        let ts = VECTOR_TS.to_string();
        let short = format!("v1,{}", STANDARD.encode([0u8; 31]));
        let long = format!("v1,{}", STANDARD.encode([0u8; 33]));
        let truncated_real = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3";
        for bad in [
            "",
            "v1,",
            "v1",
            ",",
            " ",
            "v1,AA==",
            short.as_str(),
            long.as_str(),
            truncated_real,
            "v2,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
            "v1a,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
            "v1,not-base64!!",
        ] {
            assert_eq!(
                v.verify(VECTOR_ID, &ts, bad, VECTOR_BODY, VECTOR_TS),
                Err(VerifyError::NoMatchingSignature),
                "accepted {bad:?}"
            );
        }
    }

    #[test]
    fn verifier_rejects_tampered_body_id_or_timestamp() {
        let v = Verifier::new(vec![vector_secret()]);
        let ts = VECTOR_TS.to_string();
        assert!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, b"{}", VECTOR_TS)
                .is_err()
        );
        assert!(
            v.verify("msg_other", &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS)
                .is_err()
        );
        let ts2 = (VECTOR_TS + 1).to_string();
        assert!(
            v.verify(VECTOR_ID, &ts2, VECTOR_SIG, VECTOR_BODY, VECTOR_TS)
                .is_err()
        );
        assert_eq!(
            v.verify(VECTOR_ID, "12abc", VECTOR_SIG, VECTOR_BODY, VECTOR_TS),
            Err(VerifyError::InvalidTimestamp)
        );
    }

    #[test]
    fn verifier_without_secrets_refuses_everything() {
        let v = Verifier::new(vec![]);
        let ts = VECTOR_TS.to_string();
        assert_eq!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS),
            Err(VerifyError::NoSecret)
        );
    }

    #[test]
    fn zero_tolerance_means_exactly_now_not_no_check() {
        let v = Verifier::new(vec![vector_secret()]).with_tolerance_secs(0);
        let ts = VECTOR_TS.to_string();
        assert_eq!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS),
            Ok(())
        );
        assert_eq!(
            v.verify(VECTOR_ID, &ts, VECTOR_SIG, VECTOR_BODY, VECTOR_TS + 1),
            Err(VerifyError::TimestampTooOld)
        );
    }

    #[test]
    fn rotation_headers_carry_one_signature_per_secret_and_each_verifies_alone() {
        let old = vector_secret();
        let new = WebhookSecret::generate();
        let headers = sign_headers(
            &[new.clone(), old.clone()],
            VECTOR_ID,
            VECTOR_TS,
            VECTOR_BODY,
        )
        .expect("signs");
        let sig = headers
            .get(WEBHOOK_SIGNATURE_HEADER)
            .and_then(|v| v.to_str().ok())
            .expect("signature header");
        assert_eq!(sig.split(' ').count(), 2);
        assert!(
            sig.ends_with(VECTOR_SIG),
            "old secret's signature listed: {sig}"
        );
        for secret in [old, new.clone()] {
            assert_eq!(
                Verifier::new(vec![secret]).verify_headers(&headers, VECTOR_BODY, VECTOR_TS),
                Ok(())
            );
        }
        let bump = headers
            .get(BUMP_SIGNATURE_HEADER)
            .and_then(|v| v.to_str().ok())
            .expect("bump header");
        assert!(verify_bump_signature(&new, VECTOR_BODY, bump));
        assert_eq!(
            headers.get(WEBHOOK_ID_HEADER).and_then(|v| v.to_str().ok()),
            Some(VECTOR_ID)
        );
        assert_eq!(
            headers
                .get(WEBHOOK_TIMESTAMP_HEADER)
                .and_then(|v| v.to_str().ok()),
            Some("1649367553")
        );
    }

    #[test]
    fn a_signature_by_an_unknown_secret_does_not_verify() {
        let headers = sign_headers(
            &[WebhookSecret::generate()],
            VECTOR_ID,
            VECTOR_TS,
            VECTOR_BODY,
        )
        .expect("signs");
        assert_eq!(
            Verifier::new(vec![vector_secret()]).verify_headers(&headers, VECTOR_BODY, VECTOR_TS),
            Err(VerifyError::NoMatchingSignature)
        );
    }

    #[test]
    fn signing_refuses_no_secret_and_bad_message_ids() {
        assert_eq!(
            sign_headers(&[], VECTOR_ID, VECTOR_TS, VECTOR_BODY),
            Err(SignError::NoSecret)
        );
        let s = vector_secret();
        for bad in ["", "msg.1", "msg 1", "msg\n1", &"a".repeat(256)] {
            assert_eq!(
                standard_signature(&s, bad, VECTOR_TS, VECTOR_BODY),
                Err(SignError::InvalidMessageId),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn missing_headers_are_named() {
        let v = Verifier::new(vec![vector_secret()]);
        assert_eq!(
            v.verify_headers(&HeaderMap::new(), VECTOR_BODY, VECTOR_TS),
            Err(VerifyError::MissingHeader(WEBHOOK_ID_HEADER))
        );
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn sign_then_verify_round_trips_and_any_body_change_fails(
                body in proptest::collection::vec(any::<u8>(), 0..512),
                flip in any::<usize>(),
                ts in 0i64..4_000_000_000,
            ) {
                let secret = WebhookSecret::generate();
                let headers = sign_headers(std::slice::from_ref(&secret), "msg_prop", ts, &body)
                    .expect("signs");
                let v = Verifier::new(vec![secret]);
                prop_assert_eq!(v.verify_headers(&headers, &body, ts), Ok(()));
                let mut tampered = body.clone();
                if tampered.is_empty() {
                    tampered.push(0);
                } else {
                    let i = flip % tampered.len();
                    tampered[i] ^= 1;
                }
                prop_assert_eq!(
                    v.verify_headers(&headers, &tampered, ts),
                    Err(VerifyError::NoMatchingSignature)
                );
            }
        }
    }
}
