//! Webhooks in `specpress serve`: the same event path as in AWS, in-process.
//!
//! - Committed events go to a persistent queue stored in the embedded engine (`LocalQueue`), or to SQS when
//!   `SPECPRESS_QUEUE_URL` is set (moto or AWS, with `SPECPRESS_TABLE`).
//! - Consumer tasks run the delivery Lambda's per-message code over that queue; a sweeper task re-sends outbox
//!   events that never reached it. Stopping the server loses nothing: pending messages stay in the store and
//!   are picked up on the next start.
//! - The secret-sealing key comes from `SPECPRESS_WEBHOOK_SECRET_KEY`, or is generated once into
//!   `<data-dir>/webhook-secret.key` (owner-only permissions).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use specpress_api::engine::Engines;
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::webhooks::MessageQueue;
use specpress_domain::{DomainError, Result};
use specpress_queue_sqs::config::{WebhookSettings, delivery_service};
use specpress_queue_sqs::{BatchOptions, SqsClient, SqsQueue, run_consumer, run_sweeper};
use specpress_store_dynamodb::{DynamoStore, LocalQueue};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Name of the embedded queue.
pub const LOCAL_QUEUE_NAME: &str = "webhooks";
/// Consumer tasks running side by side.
pub const CONSUMERS: usize = 4;
/// How long a consumer woken by a new message waits for more before it takes them (the embedded queue's batching
/// window): a steady stream of deploys is then received and deleted a batch at a time, and a webhook leaves at most
/// this much later.
pub const BATCHING_WINDOW: Duration = Duration::from_millis(20);
/// How often the sweeper looks at the outbox.
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(5);

/// The running webhook machinery of the local server.
pub struct LocalWebhooks {
    /// The store whose deploys publish to the queue (use it for the app state).
    pub store: Arc<DynamoStore>,
    /// The event path, for the subscriptions routes.
    pub service: DeliveryService,
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for LocalWebhooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalWebhooks")
            .field("tasks", &self.tasks.len())
            .finish_non_exhaustive()
    }
}

fn key_from_data_dir(dir: &Path) -> Result<String> {
    use base64::Engine as _;
    let file = dir.join("webhook-secret.key");
    if let Ok(text) = std::fs::read_to_string(&file) {
        return Ok(text.trim().to_owned());
    }
    std::fs::create_dir_all(dir).map_err(DomainError::unexpected)?;
    let key: [u8; 32] = rand::random();
    let text = base64::engine::general_purpose::STANDARD.encode(key);
    std::fs::write(&file, &text).map_err(DomainError::unexpected)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
            .map_err(DomainError::unexpected)?;
    }
    Ok(text)
}

impl LocalWebhooks {
    /// Builds the queue, wires it into the store, and starts the consumers and the sweeper.
    pub async fn start(
        store: &DynamoStore,
        public_base_url: &str,
        data_dir: &Path,
    ) -> Result<Self> {
        let fallback = match std::env::var(specpress_queue_sqs::config::SECRET_KEY_ENV) {
            Ok(v) if !v.trim().is_empty() => None,
            _ => Some(key_from_data_dir(data_dir)?),
        };
        let settings = WebhookSettings::from_env(fallback.as_deref())?;
        let (queue, store): (Arc<dyn MessageQueue>, DynamoStore) =
            match std::env::var(specpress_queue_sqs::config::QUEUE_URL_ENV) {
                Ok(url) if !url.trim().is_empty() => {
                    let conf =
                        aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
                    let dlq =
                        std::env::var(specpress_queue_sqs::config::DEAD_LETTER_QUEUE_URL_ENV).ok();
                    let queue: Arc<dyn MessageQueue> =
                        Arc::new(SqsQueue::new(SqsClient::new(&conf), url.trim(), dlq));
                    // As in AWS: sent after the commit, with the outbox sweeper behind it.
                    (queue.clone(), store.clone().with_event_queue(queue))
                }
                _ => {
                    let local = LocalQueue::new(
                        store.client().clone(),
                        store.table(),
                        LOCAL_QUEUE_NAME,
                        Duration::from_secs(60),
                        // Retries are visibility changes, which do not count as failed receives; this bounds
                        // only messages that keep failing to process (poison), as the SQS redrive policy does.
                        12,
                    )
                    .with_batching_window(BATCHING_WINDOW);
                    // The queue lives in the store's table, so the deploy transaction enqueues the event itself.
                    let store = store.clone().with_in_table_queue(local.clone())?;
                    (Arc::new(local), store)
                }
            };
        let store = Arc::new(store);
        let service = delivery_service(
            store.clone(),
            Arc::new(Engines::default()),
            queue.clone(),
            &settings,
            public_base_url,
        )?;
        let (shutdown, rx) = watch::channel(false);
        let mut tasks = Vec::new();
        for _ in 0..CONSUMERS {
            let options = BatchOptions {
                concurrency: 10,
                ..BatchOptions::default()
            };
            tasks.push(tokio::spawn(run_consumer(
                service.clone(),
                queue.clone(),
                options,
                rx.clone(),
            )));
        }
        tasks.push(tokio::spawn(run_sweeper(
            service.clone(),
            SWEEP_INTERVAL,
            settings.sweep_grace,
            rx,
        )));
        Ok(LocalWebhooks {
            store,
            service,
            shutdown,
            tasks,
        })
    }

    /// Stops the tasks (in-flight messages become visible again after their visibility timeout).
    pub async fn stop(self) {
        let _ = self.shutdown.send(true);
        for t in self.tasks {
            let _ = tokio::time::timeout(Duration::from_secs(20), t).await;
        }
    }
}
