//! Webhook signing, verification and the delivery retry policy for Specpress.
//!
//! This crate is pure logic: it performs no I/O, reads no clock on its own in the decision
//! functions (callers pass `now`), and takes an injectable random number generator wherever
//! randomness is involved, so every rule can be tested deterministically.
//!
//! * [`WebhookSecret`]: `whsec_` + base64 of 32 random bytes, the per-subscription secret.
//! * [`sign_headers`] / [`standard_signature`] / [`bump_signature`]: the headers each delivery
//!   attempt carries (Standard Webhooks v1 and the Bump.sh-style `X-Bump-Signature-256`).
//!   The Standard signature is keyed by the base64-decoded bytes after `whsec_`; the Bump-style
//!   one by the **full secret text** (`whsec_...` as UTF-8), the way GitHub-style receivers use
//!   the secret string they were shown (see the `signature` module docs for the reasoning).
//! * [`Verifier`] / [`verify_bump_signature`]: the receiver side, used by our tests and offered
//!   to subscribers; constant-time, with a 5-minute timestamp tolerance.
//! * [`RetryPolicy`]: the Svix schedule with jitter, `Retry-After`, outcome classification and
//!   the "failing for 5 days" auto-disable rule.

mod retry;
mod secret;
mod signature;

pub use retry::{
    AttemptOutcome, DEFAULT_DISABLE_AFTER, DEFAULT_JITTER, DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_SCHEDULE_SECS, Decision, OutcomeClass, RetryPolicy, classify, parse_retry_after,
};
pub use secret::{MAX_SECRET_BYTES, MIN_SECRET_BYTES, SECRET_PREFIX, SecretError, WebhookSecret};
pub use signature::{
    BUMP_SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECS, SignError, Verifier, VerifyError,
    WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, bump_signature,
    sign_headers, standard_signature, validate_message_id, verify_bump_signature,
};
