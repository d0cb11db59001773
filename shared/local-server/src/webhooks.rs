//! Webhooks in `specpress serve`: the same event path as in AWS, in-process.
//!
//! - Committed events go to a persistent queue stored in the embedded engine (`LocalQueue`), or to SQS when
//!   `SPECPRESS_QUEUE_URL` is set (moto or AWS, with `SPECPRESS_TABLE`).
//! - Consumer tasks run the delivery Lambda's per-message code over that queue; a sweeper task re-sends outbox
//!   events that never reached it, and a digest task mails the daily and weekly digests due. Stopping the server
//!   loses nothing: pending messages stay in the store and are picked up on the next start.
//! - Mail (issue 38, docs/mail.md) goes through the same event path: SMTP when `SPECPRESS_SMTP_URL` is set, else
//!   `.eml` files in `<data-dir>/outbox/` ([`specpress_mail::local_mailer`]); [`LocalWebhooks::mailer`] says where.
//! - The secret-sealing key comes from `SPECPRESS_WEBHOOK_SECRET_KEY`, or is generated once into
//!   `<data-dir>/webhook-secret.key` (owner-only permissions, [`crate::data_dir::webhook_secret_key`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use specpress_config::Config;
use specpress_domain::ports::{EventPublisher, Mailer, MessageQueue};
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::usecases::outbox::QueuePublisher;
use specpress_domain::{DomainError, Result};
use specpress_engines::Engines;
use specpress_local::LocalQueue;
use specpress_queue_sqs::SqsQueue;
use specpress_store_dynamodb::DynamoStore;
use specpress_workers::{BatchOptions, delivery_service, run_consumer, run_digests, run_sweeper};
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
/// How often the digest sender looks for daily and weekly digests due.
pub const DIGEST_INTERVAL: Duration = Duration::from_secs(60);

/// The running webhook machinery of the local server.
pub struct LocalWebhooks {
    /// The store (use it for the app state).
    pub store: Arc<DynamoStore>,
    /// The event path, for the subscriptions routes; its `publisher` is the one the deploys hand their events to.
    pub service: DeliveryService,
    /// Where mail goes (the event path's mailer; the app state sends the follow form's confirmations with it).
    pub mailer: Arc<dyn Mailer>,
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

impl LocalWebhooks {
    /// [`LocalWebhooks::start_with`] with the configuration from the environment (as `specpress serve` reads it).
    pub async fn start(
        store: &DynamoStore,
        public_base_url: &str,
        data_dir: &Path,
    ) -> Result<Self> {
        let mut config = Config::local_from_env().map_err(DomainError::unexpected)?;
        config.public_url = public_base_url.to_owned();
        LocalWebhooks::start_with(&config, store, data_dir).await
    }

    /// Builds the queue (SQS when `config` names one, else the persistent local queue in the store's table, written
    /// by the deploy commits themselves), and starts the consumers and the sweeper.
    pub async fn start_with(config: &Config, store: &DynamoStore, data_dir: &Path) -> Result<Self> {
        let mut config = config.clone();
        if config.webhooks.secret_key.is_none() {
            config.webhooks.secret_key = Some(crate::data_dir::webhook_secret_key(data_dir)?);
        }
        let (queue, publisher): (Arc<dyn MessageQueue>, Arc<dyn EventPublisher>) = match &config
            .queue_url
        {
            Some(_) => {
                let conf = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
                let queue: Arc<dyn MessageQueue> = Arc::new(
                    SqsQueue::from_config(&conf, &config).map_err(DomainError::unexpected)?,
                );
                // As in AWS: sent after the commit, with the outbox sweeper behind it.
                (queue.clone(), Arc::new(QueuePublisher(queue)))
            }
            None => {
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
                let publisher = local.in_commit_publisher(store.table())?;
                (Arc::new(local), Arc::new(publisher))
            }
        };
        let store = Arc::new(store.clone());
        let mut service = delivery_service(
            &config,
            store.clone(),
            Arc::new(Engines::default()),
            queue.clone(),
        )?;
        service.publisher = publisher;
        let mailer =
            specpress_mail::local_mailer(&config, data_dir).map_err(DomainError::unexpected)?;
        service.mailer = Some(mailer.clone());
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
            config.webhooks.outbox_grace,
            rx.clone(),
        )));
        tasks.push(tokio::spawn(run_digests(
            service.clone(),
            DIGEST_INTERVAL,
            rx,
        )));
        Ok(LocalWebhooks {
            store,
            service,
            mailer,
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
