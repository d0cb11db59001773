//! The per-batch logic shared by the SQS consumer Lambda and the local server's consumer: each message is handled
//! on its own, work that cannot finish before the deadline is handed back untouched, retries are scheduled through
//! visibility changes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use specpress_domain::ports::{MessageQueue, ReceivedMessage};
use specpress_domain::usecases::delivery::{DeliveryService, Disposition};
use specpress_queue_sqs::MAX_SQS_DELAY;
use tokio::sync::Semaphore;

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
    /// The budget of a Lambda invocation whose deadline cannot be real (local emulators), from now: the template's
    /// timeout of the delivery function, [`FALLBACK_TIMEOUT`] unless `SPECPRESS_LOCAL_FUNCTION_TIMEOUT` says
    /// otherwise.
    pub fallback_budget: Duration,
}

/// The budget assumed when a Lambda invocation's deadline cannot be real: the template's timeout of the delivery
/// function (60 s).
pub const FALLBACK_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            concurrency: 10,
            per_message_budget: Duration::from_secs(20),
            delete_done: false,
            reenqueue_after: 4,
            fallback_budget: FALLBACK_TIMEOUT,
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
