//! The loops `specpress serve` runs in-process over its queue (the persistent local queue, or SQS when configured):
//! the consumer, with the same per-message code as the Lambda, the outbox sweeper and the digest sender.

use std::sync::Arc;
use std::time::{Duration, Instant};

use specpress_domain::ports::MessageQueue;
use specpress_domain::usecases::delivery::DeliveryService;
use tokio::sync::watch;

use crate::batch::{BatchOptions, process_batch};

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

/// The in-process digest sender of `specpress serve`: every `interval`, mails the daily and weekly digests due
/// ([`DeliveryService::send_due_digests`], the `digests` Lambda's job).
pub async fn run_digests(
    service: DeliveryService,
    interval: Duration,
    mut shutdown: watch::Receiver<bool>,
) {
    while !*shutdown.borrow() {
        match service
            .send_due_digests(
                time::OffsetDateTime::now_utc(),
                crate::lambda::DIGESTS_PER_RUN,
            )
            .await
        {
            Ok(run) if run.sent + run.held > 0 => {
                tracing::info!(sent = run.sent, held = run.held, "digests");
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "the digest run failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => break,
        }
    }
}
