//! The webhook work queue.
//!
//! - [`SqsQueue`]: the [`MessageQueue`] port over Amazon SQS (every `aws-sdk-sqs` type stays in this crate).
//! - [`process_batch`]: the per-batch logic shared by the delivery Lambda and the in-process consumer: each
//!   message is handled on its own, work that cannot finish before the deadline is handed back untouched,
//!   retries are scheduled through visibility changes.
//! - [`run_consumer`] and [`run_sweeper`]: the loops `specpress serve` runs in-process over its persistent
//!   embedded queue (`specpress_store_dynamodb::LocalQueue`), with the same per-message code as the Lambda.
//! - [`sender::FetchSender`]: webhook POSTs through the hardened HTTP client; [`config`]: settings from env.

pub mod config;
pub mod sender;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_sqs::types::{DeleteMessageBatchRequestEntry, MessageSystemAttributeName};
use specpress_domain::usecases::delivery::{DeliveryService, Disposition};
use specpress_domain::webhooks::{MessageQueue, ReceivedMessage};
use specpress_domain::{DomainError, Result};
use tokio::sync::{Semaphore, watch};

/// The SQS client type, re-exported so functions build it from their shared AWS config without naming the SDK.
pub use aws_sdk_sqs::Client as SqsClient;

/// Most entries SQS takes in one batch request.
const MAX_SQS_BATCH: usize = 10;
/// Longest `DelaySeconds` SQS accepts.
pub const MAX_SQS_DELAY: Duration = Duration::from_secs(900);
/// Longest visibility timeout SQS accepts.
pub const MAX_SQS_VISIBILITY: Duration = Duration::from_secs(43_200);

fn sdk<E, R>(op: &'static str) -> impl FnOnce(SdkError<E, R>) -> DomainError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    move |e| {
        tracing::error!(operation = op, code = ?e.code(), message = ?e.message(), "sqs call failed");
        DomainError::unexpected(e)
    }
}

/// Whole seconds, rounded up, capped.
fn secs_ceil(d: Duration, cap: Duration) -> i32 {
    let d = d.min(cap);
    let s = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    i32::try_from(s).unwrap_or(i32::MAX)
}

/// An SQS queue with its dead-letter queue.
#[derive(Clone, Debug)]
pub struct SqsQueue {
    client: Client,
    queue_url: String,
    dead_letter_url: Option<String>,
}

impl SqsQueue {
    /// Wraps a client, the queue URL and the dead-letter queue URL (needed to dead-letter exhausted deliveries).
    pub fn new(
        client: Client,
        queue_url: impl Into<String>,
        dead_letter_url: Option<String>,
    ) -> Self {
        SqsQueue {
            client,
            queue_url: queue_url.into(),
            dead_letter_url,
        }
    }

    /// The queue URL.
    pub fn queue_url(&self) -> &str {
        &self.queue_url
    }

    /// The SDK client (for queue administration in tests and tools).
    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// Builds an SQS client for an endpoint with static credentials (moto in tests).
pub async fn client_for_endpoint(endpoint: &str) -> Client {
    let conf = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_sqs::config::Credentials::new(
            "testing",
            "testing",
            None,
            None,
            "specpress-static",
        ))
        .load()
        .await;
    Client::new(&conf)
}

/// Builds an SQS client from the standard AWS environment (Lambda, or `AWS_ENDPOINT_URL` for moto).
pub async fn client_from_env() -> Client {
    Client::new(&aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await)
}

#[async_trait]
impl MessageQueue for SqsQueue {
    async fn send(&self, body: &str, delay: Duration) -> Result<()> {
        self.client
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(body)
            .delay_seconds(secs_ceil(delay, MAX_SQS_DELAY))
            .send()
            .await
            .map_err(sdk("SendMessage"))?;
        Ok(())
    }

    async fn receive(&self, max: u32, wait: Duration) -> Result<Vec<ReceivedMessage>> {
        let out = self
            .client
            .receive_message()
            .queue_url(&self.queue_url)
            .max_number_of_messages(i32::try_from(max.clamp(1, 10)).unwrap_or(10))
            .wait_time_seconds(secs_ceil(wait, Duration::from_secs(20)))
            .message_system_attribute_names(MessageSystemAttributeName::ApproximateReceiveCount)
            .send()
            .await
            .map_err(sdk("ReceiveMessage"))?;
        let mut got = Vec::new();
        for m in out.messages.unwrap_or_default() {
            let (Some(message_id), Some(receipt)) =
                (m.message_id.clone(), m.receipt_handle.clone())
            else {
                continue;
            };
            let receive_count = m
                .attributes
                .as_ref()
                .and_then(|a| a.get(&MessageSystemAttributeName::ApproximateReceiveCount))
                .and_then(|v| v.parse().ok())
                .unwrap_or(1);
            got.push(ReceivedMessage {
                message_id,
                receipt,
                body: m.body.unwrap_or_default(),
                receive_count,
            });
        }
        Ok(got)
    }

    async fn delete(&self, receipt: &str) -> Result<()> {
        self.client
            .delete_message()
            .queue_url(&self.queue_url)
            .receipt_handle(receipt)
            .send()
            .await
            .map_err(sdk("DeleteMessage"))?;
        Ok(())
    }

    /// `DeleteMessageBatch`, ten receipts per request (SQS's limit).
    async fn delete_batch(&self, receipts: &[String]) -> Result<()> {
        for chunk in receipts.chunks(MAX_SQS_BATCH) {
            let mut entries = Vec::with_capacity(chunk.len());
            for (i, receipt) in chunk.iter().enumerate() {
                entries.push(
                    DeleteMessageBatchRequestEntry::builder()
                        .id(i.to_string())
                        .receipt_handle(receipt)
                        .build()
                        .map_err(DomainError::unexpected)?,
                );
            }
            let out = self
                .client
                .delete_message_batch()
                .queue_url(&self.queue_url)
                .set_entries(Some(entries))
                .send()
                .await
                .map_err(sdk("DeleteMessageBatch"))?;
            if let Some(first) = out.failed.first() {
                return Err(DomainError::unexpected(format!(
                    "SQS DeleteMessageBatch: {} of {} failed (first: {})",
                    out.failed.len(),
                    chunk.len(),
                    first.code
                )));
            }
        }
        Ok(())
    }

    async fn change_visibility(&self, receipt: &str, delay: Duration) -> Result<()> {
        self.client
            .change_message_visibility()
            .queue_url(&self.queue_url)
            .receipt_handle(receipt)
            .visibility_timeout(secs_ceil(delay, MAX_SQS_VISIBILITY))
            .send()
            .await
            .map_err(sdk("ChangeMessageVisibility"))?;
        Ok(())
    }

    async fn send_to_dead_letter(&self, body: &str) -> Result<()> {
        let url = self.dead_letter_url.as_deref().ok_or_else(|| {
            DomainError::unexpected("no dead-letter queue URL configured (DEAD_LETTER_QUEUE_URL)")
        })?;
        self.client
            .send_message()
            .queue_url(url)
            .message_body(body)
            .send()
            .await
            .map_err(sdk("SendMessage"))?;
        Ok(())
    }
}

/// How a batch is processed.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// Messages processed at the same time.
    pub concurrency: usize,
    /// Time one message may need (the 15 s request plus storage calls): a message is started only if this
    /// much time remains before the deadline.
    pub per_message_budget: Duration,
    /// Delete finished messages (the in-process consumer). The Lambda runtime deletes them itself.
    pub delete_done: bool,
    /// A retry of a message received this many times or more is sent as a fresh message (delay up to 15 min)
    /// instead of a visibility change, so long retry series never reach the redrive policy's `maxReceiveCount`.
    pub reenqueue_after: u32,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            concurrency: 10,
            per_message_budget: Duration::from_secs(20),
            delete_done: false,
            reenqueue_after: 4,
        }
    }
}

/// What happened to a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchReport {
    /// Message ids to report as failed (`batchItemFailures`): retries, unprocessable messages, and work
    /// handed back before the deadline.
    pub failed: Vec<String>,
    /// Message ids finished.
    pub done: Vec<String>,
    /// Message ids not started because the deadline was near.
    pub handed_back: Vec<String>,
}

/// Processes a batch: each message on its own (one bad message never fails the others), at most
/// `concurrency` at once, and none started unless `per_message_budget` remains before `deadline`; those are
/// made visible again at once and reported as failed.
pub async fn process_batch(
    service: &DeliveryService,
    queue: &Arc<dyn MessageQueue>,
    messages: Vec<ReceivedMessage>,
    deadline: Instant,
    options: &BatchOptions,
) -> BatchReport {
    let mut report = BatchReport::default();
    let permits = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    let mut iter = messages.into_iter();
    while let Some(msg) = iter.next() {
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
            break;
        };
        if Instant::now() + options.per_message_budget > deadline {
            drop(permit);
            for m in std::iter::once(msg).chain(iter.by_ref()) {
                // Best effort: if this fails the message returns after its visibility timeout instead.
                if let Err(e) = queue.change_visibility(&m.receipt, Duration::ZERO).await {
                    tracing::warn!(message_id = %m.message_id, error = %e, "could not hand a message back");
                }
                report.failed.push(m.message_id.clone());
                report.handed_back.push(m.message_id);
            }
            break;
        }
        let service = service.clone();
        let queue = Arc::clone(queue);
        let reenqueue_after = options.reenqueue_after;
        tasks.spawn(async move {
            let disposition = service.handle(&msg.body).await;
            let ok = match &disposition {
                Disposition::Done => true,
                Disposition::RetryIn(delay) if msg.receive_count >= reenqueue_after => {
                    // A fresh copy restarts the receive count; if the delay exceeds SQS's 15-minute DelaySeconds the
                    // copy arrives early and is deferred again by a visibility change.
                    match queue.send(&msg.body, (*delay).min(MAX_SQS_DELAY)).await {
                        // The old copy is finished: deleted with the batch.
                        Ok(()) => true,
                        Err(e) => {
                            tracing::warn!(message_id = %msg.message_id, error = %e, "could not re-enqueue; deferring instead");
                            let _ = queue.change_visibility(&msg.receipt, *delay).await;
                            false
                        }
                    }
                }
                Disposition::RetryIn(delay) => {
                    if let Err(e) = queue.change_visibility(&msg.receipt, *delay).await {
                        tracing::warn!(message_id = %msg.message_id, error = %e, "could not schedule a retry");
                    }
                    false
                }
                Disposition::Failed => {
                    tracing::warn!(message_id = %msg.message_id, receive_count = msg.receive_count, "message could not be processed");
                    false
                }
            };
            drop(permit);
            (msg.message_id, ok, msg.receipt)
        });
    }
    let mut finished = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((id, true, receipt)) => {
                // Finished (done, or re-enqueued as a fresh copy): deleted with the rest of the batch below.
                if options.delete_done {
                    finished.push(receipt);
                }
                report.done.push(id);
            }
            Ok((id, false, _)) => report.failed.push(id),
            Err(e) => tracing::error!(error = %e, "a message task panicked"),
        }
    }
    // One delete for the whole batch. If it fails, the messages come back after their visibility timeout and are
    // handled again, which the handlers allow (deliveries are keyed by event and subscription, and claimed).
    if !finished.is_empty()
        && let Err(e) = queue.delete_batch(&finished).await
    {
        tracing::warn!(messages = finished.len(), error = %e, "could not delete finished messages");
    }
    report
}

/// The in-process consumer of `specpress serve`: receives batches until `shutdown` turns true.
pub async fn run_consumer(
    service: DeliveryService,
    queue: Arc<dyn MessageQueue>,
    options: BatchOptions,
    mut shutdown: watch::Receiver<bool>,
) {
    let options = BatchOptions {
        delete_done: true,
        ..options
    };
    while !*shutdown.borrow() {
        let received = tokio::select! {
            r = queue.receive(10, Duration::from_millis(500)) => r,
            _ = shutdown.changed() => break,
        };
        match received {
            Ok(batch) if !batch.is_empty() => {
                let deadline = Instant::now() + options.per_message_budget * 4;
                process_batch(&service, &queue, batch, deadline, &options).await;
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, "queue receive failed; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
}

/// The in-process outbox sweeper of `specpress serve`: every `interval`, re-sends events older than `grace`
/// that never reached the queue.
pub async fn run_sweeper(
    service: DeliveryService,
    interval: Duration,
    grace: Duration,
    mut shutdown: watch::Receiver<bool>,
) {
    while !*shutdown.borrow() {
        match service.sweep(grace, 100).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(events = n, "outbox sweeper re-sent events"),
            Err(e) => tracing::warn!(error = %e, "outbox sweep failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_round_up_to_whole_seconds_and_are_capped() {
        assert_eq!(secs_ceil(Duration::ZERO, MAX_SQS_DELAY), 0);
        assert_eq!(secs_ceil(Duration::from_millis(1), MAX_SQS_DELAY), 1);
        assert_eq!(secs_ceil(Duration::from_secs(5), MAX_SQS_DELAY), 5);
        assert_eq!(secs_ceil(Duration::from_secs(3600), MAX_SQS_DELAY), 900);
        assert_eq!(
            secs_ceil(Duration::from_secs(50_000), MAX_SQS_VISIBILITY),
            43_200
        );
    }
}
