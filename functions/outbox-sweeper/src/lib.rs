//! The outbox sweeper: run every minute by an EventBridge schedule, it sends to the webhook queue every event
//! committed more than the grace period ago and never marked enqueued (the deploy died after its transaction,
//! or SQS refused the send). Duplicates with the deploy's own send are harmless: fan-out is idempotent.

use std::time::Duration;

use specpress_domain::usecases::delivery::DeliveryService;

/// Events handled per invocation, so one run stays well inside its timeout; the next run continues.
pub const EVENTS_PER_RUN: u32 = 500;

/// One sweep; returns the number of events sent.
pub async fn sweep_once(
    service: &DeliveryService,
    grace: Duration,
) -> Result<usize, lambda_runtime::Error> {
    let sent = service.sweep(grace, EVENTS_PER_RUN).await?;
    if sent > 0 {
        tracing::info!(events = sent, "outbox sweeper re-sent events");
    }
    Ok(sent)
}
