//! The two non-HTTP Lambda kinds, each one helper its `main.rs` calls: the SQS consumer ([`run_sqs_consumer`], the
//! webhook delivery function) and the scheduled job ([`run_scheduled`], the outbox sweeper). Each sets up tracing,
//! reads the [`Config`] once, builds its clients once (DynamoDB, SQS, the engines, the hardened sender) and runs.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use lambda_runtime::{LambdaEvent, service_fn};
use specpress_config::{Config, Runtime, logging};
use specpress_domain::ports::{MessageQueue, ReceivedMessage};
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_engines::Engines;
use specpress_queue_sqs::SqsQueue;
use specpress_store_dynamodb::DynamoStore;

use crate::batch::{BatchOptions, process_batch};

/// What the SQS handler needs, built once per container.
#[derive(Clone)]
pub struct Handler {
    /// The event path.
    pub service: DeliveryService,
    /// The queue the records came from (visibility changes, dead-lettering).
    pub queue: Arc<dyn MessageQueue>,
    /// Concurrency and per-message budget.
    pub options: BatchOptions,
}

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handler")
            .field("service", &self.service)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Converts the invocation's deadline (wall clock) to an [`Instant`].
pub fn deadline_instant(deadline: SystemTime) -> Instant {
    let remaining = deadline
        .duration_since(SystemTime::now())
        .unwrap_or(Duration::ZERO);
    Instant::now() + remaining
}

/// Handles one SQS batch: an SQS batch in, a partial batch response out.
///
/// Each record is handled on its own by the same per-message code `specpress serve` runs ([`process_batch`]): a
/// malformed or failing record is reported in `batchItemFailures` and never fails the others; a retry is scheduled
/// by changing the record's visibility; records that could not be started before the invocation's deadline (minus
/// one message's budget) are handed back at once. The handler itself never returns `Err` (that would retry the
/// whole batch).
pub async fn handle(
    handler: &Handler,
    event: LambdaEvent<SqsEvent>,
) -> Result<SqsBatchResponse, lambda_runtime::Error> {
    let deadline = deadline_instant(event.context.deadline());
    let mut messages = Vec::with_capacity(event.payload.records.len());
    for record in event.payload.records {
        let Some(message_id) = record.message_id.filter(|id| !id.is_empty()) else {
            // Without an id the record cannot be reported; Lambda treats it as processed. Log it loudly.
            tracing::error!("SQS record without a messageId skipped");
            continue;
        };
        let receive_count = record
            .attributes
            .get("ApproximateReceiveCount")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        messages.push(ReceivedMessage {
            message_id,
            receipt: record.receipt_handle.unwrap_or_default(),
            body: record.body.unwrap_or_default(),
            receive_count,
        });
    }
    let report = process_batch(
        &handler.service,
        &handler.queue,
        messages,
        deadline,
        &handler.options,
    )
    .await;
    if !report.handed_back.is_empty() {
        tracing::warn!(
            count = report.handed_back.len(),
            "deadline near: records handed back unstarted"
        );
    }
    let mut response = SqsBatchResponse::default();
    for id in report.failed {
        let mut failure = BatchItemFailure::default();
        failure.item_identifier = id;
        response.batch_item_failures.push(failure);
    }
    Ok(response)
}

/// Tracing, the [`Config`] (table, queue and sealing key required), and the event path over DynamoDB and SQS.
async fn event_path()
-> Result<(Config, DeliveryService, Arc<dyn MessageQueue>), lambda_runtime::Error> {
    let _ = logging::init_tracing(Runtime::Lambda);
    let config = Config::from_env()?;
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let queue: Arc<dyn MessageQueue> = Arc::new(SqsQueue::from_config(&aws, &config)?);
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&aws), config.require_table()?);
    let service = crate::service::delivery_service(
        &config,
        Arc::new(store),
        Arc::new(Engines::default()),
        queue.clone(),
    )?;
    Ok((config, service, queue))
}

/// The SQS consumer Lambda (webhook delivery): runs [`handle`] on every batch until the runtime stops.
pub async fn run_sqs_consumer() -> Result<(), lambda_runtime::Error> {
    let (_, service, queue) = event_path().await?;
    let handler = Handler {
        service,
        queue,
        options: BatchOptions::default(),
    };
    lambda_runtime::run(service_fn(|event| handle(&handler, event))).await
}

/// A scheduled Lambda (EventBridge): runs `job` over the event path on every invocation, answering
/// `{"<name>": <count>}`.
pub async fn run_scheduled<F, Fut>(name: &'static str, job: F) -> Result<(), lambda_runtime::Error>
where
    F: Fn(DeliveryService, Duration) -> Fut,
    Fut: Future<Output = Result<usize, lambda_runtime::Error>>,
{
    let (config, service, _) = event_path().await?;
    let grace = config.webhooks.outbox_grace;
    let job = &job;
    lambda_runtime::run(service_fn(|_: LambdaEvent<serde_json::Value>| {
        let service = service.clone();
        async move {
            job(service, grace)
                .await
                .map(|n| serde_json::json!({ name: n }))
        }
    }))
    .await
}

/// Events handled per sweeper invocation, so one run stays well inside its timeout; the next run continues.
pub const EVENTS_PER_RUN: u32 = 500;

/// The outbox sweeper's job: sends to the webhook queue every event committed more than `grace` ago and never marked
/// enqueued (the deploy died after its transaction, or SQS refused the send). Duplicates with the deploy's own send
/// are harmless: fan-out is idempotent. Returns the number of events sent.
pub async fn sweep_once(
    service: DeliveryService,
    grace: Duration,
) -> Result<usize, lambda_runtime::Error> {
    let sent = service.sweep(grace, EVENTS_PER_RUN).await?;
    if sent > 0 {
        tracing::info!(events = sent, "outbox sweeper re-sent events");
    }
    Ok(sent)
}
