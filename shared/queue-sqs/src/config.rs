//! Webhook settings from the environment, shared by every function that touches webhooks and by
//! `specpress serve`.

use std::time::Duration;

use std::sync::Arc;

use specpress_domain::engine::SpecEngine;
use specpress_domain::ports::Store;
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::webhooks::{MessageQueue, SecretSealer};
use specpress_domain::{DomainError, Result};
use specpress_webhook::RetryPolicy;

/// Base64 of the 32-byte key sealing webhook secrets at rest.
pub const SECRET_KEY_ENV: &str = "SPECPRESS_WEBHOOK_SECRET_KEY";
/// Multiplies the retry schedule (tests: `0.001` turns 5 s into 5 ms). Default 1.
pub const RETRY_SCALE_ENV: &str = "SPECPRESS_WEBHOOK_RETRY_SCALE";
/// Seconds an outbox event waits before the sweeper re-sends it. Default 30.
pub const SWEEP_GRACE_ENV: &str = "SPECPRESS_OUTBOX_GRACE_SECS";
/// The work queue URL.
pub const QUEUE_URL_ENV: &str = "SPECPRESS_QUEUE_URL";
/// The dead-letter queue URL.
pub const DEAD_LETTER_QUEUE_URL_ENV: &str = "SPECPRESS_DEAD_LETTER_QUEUE_URL";

/// Webhook settings.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// Seals and opens subscription secrets.
    pub sealer: SecretSealer,
    /// Retry schedule (scaled).
    pub policy: RetryPolicy,
    /// Loopback subscriber URLs allowed (local development and tests only).
    pub allow_loopback: bool,
    /// How old an unsent outbox event must be before the sweeper sends it.
    pub sweep_grace: Duration,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// The retry policy with the given scale (ignored unless finite and positive).
pub fn policy_with_scale(scale: Option<f64>) -> RetryPolicy {
    match scale {
        Some(s) if s.is_finite() && s > 0.0 => RetryPolicy::default().with_scale(s),
        _ => RetryPolicy::default(),
    }
}

impl WebhookSettings {
    /// Reads the settings. `key_fallback` is used when `SPECPRESS_WEBHOOK_SECRET_KEY` is unset (`specpress serve`
    /// keeps a generated key in its data directory); the functions pass `None` and fail fast without a key.
    pub fn from_env(key_fallback: Option<&str>) -> Result<Self> {
        let key = var(SECRET_KEY_ENV)
            .or_else(|| key_fallback.map(str::to_owned))
            .ok_or_else(|| {
                DomainError::unexpected(format!(
                    "{SECRET_KEY_ENV} is not set (base64 of 32 random bytes)"
                ))
            })?;
        let scale = match var(RETRY_SCALE_ENV) {
            Some(v) => Some(v.parse::<f64>().map_err(|_| {
                DomainError::unexpected(format!("{RETRY_SCALE_ENV} must be a number"))
            })?),
            None => None,
        };
        let grace = match var(SWEEP_GRACE_ENV) {
            Some(v) => Duration::from_secs_f64(
                v.parse::<f64>()
                    .ok()
                    .filter(|g| g.is_finite() && *g >= 0.0)
                    .ok_or_else(|| {
                        DomainError::unexpected(format!(
                            "{SWEEP_GRACE_ENV} must be a number of seconds"
                        ))
                    })?,
            ),
            None => Duration::from_secs(30),
        };
        Ok(WebhookSettings {
            sealer: SecretSealer::from_base64(&key)?,
            policy: policy_with_scale(scale),
            allow_loopback: specpress_fetch::allow_loopback_from_env_value(
                std::env::var(specpress_fetch::ALLOW_LOOPBACK_ENV)
                    .ok()
                    .as_deref(),
            ),
            sweep_grace: grace,
        })
    }
}

/// The queue URLs from `SPECPRESS_QUEUE_URL` and `SPECPRESS_DEAD_LETTER_QUEUE_URL`.
pub fn queue_urls_from_env() -> Result<(String, Option<String>)> {
    let q = var(QUEUE_URL_ENV)
        .ok_or_else(|| DomainError::unexpected(format!("{QUEUE_URL_ENV} is not set")))?;
    Ok((q, var(DEAD_LETTER_QUEUE_URL_ENV)))
}

/// Builds the [`DeliveryService`] every webhook entry point uses, with the hardened sender.
pub fn delivery_service(
    store: Arc<dyn Store>,
    engine: Arc<dyn SpecEngine>,
    queue: Arc<dyn MessageQueue>,
    settings: &WebhookSettings,
    public_base_url: &str,
) -> Result<DeliveryService> {
    let sender = crate::sender::FetchSender::new(settings.allow_loopback)
        .map_err(DomainError::unexpected)?;
    Ok(DeliveryService {
        store,
        engine,
        queue,
        sender: Arc::new(sender),
        sealer: settings.sealer.clone(),
        policy: settings.policy.clone(),
        public_base_url: public_base_url.trim_end_matches('/').to_owned(),
    })
}
