//! The non-HTTP Lambda kinds, each one helper its `main.rs` calls: the SQS consumer ([`run_sqs_consumer`], the
//! webhook delivery function), the scheduled jobs ([`run_scheduled`]: the outbox sweeper, [`sweep_once`], and the
//! digest sender, [`send_digests_once`]) and the SNS subscriber
//! ([`run_mail_events`], SES bounces and complaints). Each sets up tracing,
//! reads the [`Config`] once, builds its clients once (DynamoDB, SQS, the engines, the hardened sender) and runs.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use lambda_runtime::{LambdaEvent, service_fn};
use specpress_config::{Config, Runtime, logging};
use specpress_domain::ports::{MessageQueue, ReceivedMessage, Store};
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

/// Lambda's longest function timeout (15 minutes): no real invocation deadline lies further ahead.
pub const MAX_LAMBDA_TIMEOUT: Duration = Duration::from_secs(900);

/// Converts the invocation's deadline (wall clock) to an [`Instant`].
///
/// A deadline already past when the invocation starts, or more than [`MAX_LAMBDA_TIMEOUT`] ahead, cannot come from
/// Lambda (local emulators have sent a deadline in 1970, which made every record look out of time and handed the
/// whole batch back, forever): it is logged and replaced by now + `fallback`.
pub fn deadline_instant(deadline: SystemTime, fallback: Duration) -> Instant {
    deadline_from(deadline, SystemTime::now(), Instant::now(), fallback)
}

/// [`deadline_instant`] with the clocks and the fallback given (tested without waiting).
pub fn deadline_from(
    deadline: SystemTime,
    now: SystemTime,
    now_instant: Instant,
    fallback: Duration,
) -> Instant {
    match deadline.duration_since(now) {
        Ok(remaining)
            if !remaining.is_zero() && remaining <= MAX_LAMBDA_TIMEOUT + Duration::from_secs(5) =>
        {
            now_instant + remaining
        }
        _ => {
            tracing::warn!(
                deadline_ms = deadline
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis()),
                fallback_secs = fallback.as_secs(),
                "the invocation deadline cannot be real (past, or beyond Lambda's 15 minutes); using the fallback budget"
            );
            now_instant + fallback
        }
    }
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
    let deadline = deadline_instant(event.context.deadline(), handler.options.fallback_budget);
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

/// The event path over `store` and the SQS queue of `config` (its URL and the sealing key required): the delivery
/// service, with the engines for the payloads' diffs, and the queue. The subscriptions API (the webhooks function)
/// builds its service with it too.
pub fn sqs_event_path(
    config: &Config,
    aws: &aws_config::SdkConfig,
    store: Arc<dyn Store>,
) -> Result<(DeliveryService, Arc<dyn MessageQueue>), lambda_runtime::Error> {
    let queue: Arc<dyn MessageQueue> = Arc::new(SqsQueue::from_config(aws, config)?);
    let engine = Arc::new(Engines::for_config(config));
    let service = crate::service::delivery_service(config, store, engine, queue.clone())?;
    Ok((service, queue))
}

/// Tracing, the [`Config`] (table, queue and sealing key required), and the event path over DynamoDB and SQS, with
/// the Amazon SES mailer when `SPECPRESS_MAIL_FROM` is set (the delivery and digest functions send mail).
async fn event_path()
-> Result<(Config, DeliveryService, Arc<dyn MessageQueue>), lambda_runtime::Error> {
    let _ = logging::init_tracing(Runtime::Lambda);
    let config = Config::from_env()?;
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&aws), config.require_table()?);
    let (mut service, queue) = sqs_event_path(&config, &aws, Arc::new(store))?;
    service.mailer = specpress_mail::aws_mailer(&config, &aws)?;
    Ok((config, service, queue))
}

/// The SQS consumer Lambda (webhook delivery): runs [`handle`] on every batch until the runtime stops.
pub async fn run_sqs_consumer() -> Result<(), lambda_runtime::Error> {
    let (config, service, queue) = event_path().await?;
    let handler = Handler {
        service,
        queue,
        options: BatchOptions {
            fallback_budget: Duration::from_secs(config.webhooks.local_function_timeout),
            ..BatchOptions::default()
        },
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

/// The `mail-events` Lambda (SNS: SES bounces and complaints): suspends every address of a permanent bounce or a
/// complaint through `usecases::follow::suspend_address` over DynamoDB, with the sealing key of the configuration
/// (the followers' address hashes are keyed with it). Answers `{"suspended": n, "skipped": n}`.
pub async fn run_mail_events() -> Result<(), lambda_runtime::Error> {
    let _ = logging::init_tracing(Runtime::Lambda);
    let config = Config::from_env()?;
    let sealer = specpress_domain::webhooks::SecretSealer::new(&config.webhooks.secret_key()?);
    let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&aws), config.require_table()?);
    let (store, sealer) = (&store, &sealer);
    lambda_runtime::run(service_fn(
        |event: LambdaEvent<serde_json::Value>| async move {
            let outcome = crate::mail_events::handle(&event.payload, |s| async move {
                let reason = match s.reason {
                    specpress_mail::bounces::Reason::Bounce => "bounce",
                    specpress_mail::bounces::Reason::Complaint => "complaint",
                };
                specpress_domain::usecases::follow::suspend_address(
                    store, sealer, &s.address, reason,
                )
                .await
                .map(|_| ())
            })
            .await?;
            Ok::<_, lambda_runtime::Error>(serde_json::json!({
                "suspended": outcome.suspended,
                "skipped": outcome.skipped,
            }))
        },
    ))
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

/// Followers whose digest is due handled per digests invocation; the next run (every 10 minutes) continues.
pub const DIGESTS_PER_RUN: usize = 200;

/// The digests function's job: mails the daily and weekly digests due now (issue 38, docs/followers.md). Returns
/// the number of digests sent; those not sent (the mail transport failed) are tried at the next run.
pub async fn send_digests_once(
    service: DeliveryService,
    _grace: Duration,
) -> Result<usize, lambda_runtime::Error> {
    let run = service
        .send_due_digests(time::OffsetDateTime::now_utc(), DIGESTS_PER_RUN)
        .await?;
    tracing::info!(
        sent = run.sent,
        empty = run.empty,
        held = run.held,
        "digest run"
    );
    Ok(run.sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(now: SystemTime, deadline: SystemTime) -> Duration {
        let base = Instant::now();
        deadline_from(deadline, now, base, Duration::from_secs(60)) - base
    }

    #[test]
    fn a_real_deadline_is_kept() {
        let now = SystemTime::now();
        assert_eq!(
            at(now, now + Duration::from_secs(29)),
            Duration::from_secs(29)
        );
        assert_eq!(
            at(now, now + Duration::from_secs(900)),
            Duration::from_secs(900)
        );
    }

    #[test]
    fn a_deadline_that_cannot_be_real_gets_the_fallback_budget() {
        let now = SystemTime::now();
        // The emulator's deadline in 1970.
        assert_eq!(at(now, SystemTime::UNIX_EPOCH), Duration::from_secs(60));
        // Already past, or exactly now.
        assert_eq!(
            at(now, now - Duration::from_secs(1)),
            Duration::from_secs(60)
        );
        assert_eq!(at(now, now), Duration::from_secs(60));
        // Beyond Lambda's 15 minutes.
        assert_eq!(
            at(now, now + Duration::from_secs(3600)),
            Duration::from_secs(60)
        );
    }
}
