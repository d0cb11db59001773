//! The [`DeliveryService`] every webhook entry point uses (the SQS consumer, the sweeper, the subscriptions API,
//! the local server), built from the [`Config`].

use std::sync::Arc;

use specpress_config::Config;
use specpress_domain::ports::{MessageQueue, SpecEngine, Store};
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::usecases::outbox::QueuePublisher;
use specpress_domain::webhooks::SecretSealer;
use specpress_domain::{DomainError, Result};
use specpress_webhook::RetryPolicy;

use crate::sender::FetchSender;

/// The retry policy with the given scale (ignored unless finite and positive).
pub fn policy_with_scale(scale: Option<f64>) -> RetryPolicy {
    match scale {
        Some(s) if s.is_finite() && s > 0.0 => RetryPolicy::default().with_scale(s),
        _ => RetryPolicy::default(),
    }
}

/// The event path over `store` and `queue`, with the hardened sender, the sealing key, the retry schedule and the
/// public base URL of `config`. Deploys of this process publish to `queue` after their commit unless the caller sets
/// another `publisher` (the local server's in-commit queue). `Err` names `SPECPRESS_WEBHOOK_SECRET_KEY` when it is
/// missing or malformed.
pub fn delivery_service(
    config: &Config,
    store: Arc<dyn Store>,
    engine: Arc<dyn SpecEngine>,
    queue: Arc<dyn MessageQueue>,
) -> Result<DeliveryService> {
    let key = config
        .webhooks
        .secret_key()
        .map_err(DomainError::unexpected)?;
    let sender =
        FetchSender::new(config.webhooks.allow_loopback_urls).map_err(DomainError::unexpected)?;
    Ok(DeliveryService {
        store,
        engine,
        publisher: Arc::new(QueuePublisher(queue.clone())),
        queue,
        sender: Arc::new(sender),
        sealer: SecretSealer::new(&key),
        policy: policy_with_scale(config.webhooks.retry_scale),
        public_base_url: config.public_url.trim_end_matches('/').to_owned(),
        mailer: None,
    })
}
