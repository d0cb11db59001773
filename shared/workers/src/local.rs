//! The loops `specpress serve` runs in-process over its queue (the persistent local queue, or SQS when configured):
//! the consumer, with the same per-message code as the Lambda, and the outbox sweeper.

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
