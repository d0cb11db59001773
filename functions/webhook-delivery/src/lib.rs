//! The webhook delivery Lambda's handler: an SQS batch in, a partial batch response out.
//!
//! Each record is handled on its own by the same per-message code `specpress serve` runs
//! ([`specpress_queue_sqs::process_batch`]): a malformed or failing record is reported in `batchItemFailures` and
//! never fails the others; a retry is scheduled by changing the record's visibility; records that could not be
//! started before the invocation's deadline (minus one message's budget) are handed back at once. The handler
//! itself never returns `Err` (that would retry the whole batch).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use lambda_runtime::LambdaEvent;
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::webhooks::{MessageQueue, ReceivedMessage};
use specpress_queue_sqs::{BatchOptions, process_batch};

/// What the handler needs, built once per container.
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

/// Handles one SQS batch.
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
