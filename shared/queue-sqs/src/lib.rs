//! The SQS adapter: [`SqsQueue`], the [`MessageQueue`] port over Amazon SQS (every `aws-sdk-sqs` type stays in this
//! crate). Deploys publish to it through the domain's `QueuePublisher`; the workers consume it.

use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_sqs::types::{DeleteMessageBatchRequestEntry, MessageSystemAttributeName};
use specpress_domain::ports::{EventPublisher, MessageQueue, ReceivedMessage};
use specpress_domain::usecases::outbox::QueuePublisher;
use specpress_domain::{DomainError, Result};

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

    /// The queue of `config` (`SPECPRESS_QUEUE_URL`, required; `SPECPRESS_DEAD_LETTER_QUEUE_URL`) with a client from
    /// the process's AWS configuration.
    pub fn from_config(
        aws: &aws_config::SdkConfig,
        config: &specpress_config::Config,
    ) -> std::result::Result<Self, specpress_config::ConfigError> {
        Ok(SqsQueue::new(
            Client::new(aws),
            config.require_queue_url()?,
            config.dead_letter_queue_url.clone(),
        ))
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

/// The deploys' publisher when `config` names a webhook queue (`SPECPRESS_QUEUE_URL`): each committed event is sent
/// there right after its transaction ([`QueuePublisher`]); `None` without a queue (events wait in the outbox).
pub fn publisher(
    aws: &aws_config::SdkConfig,
    config: &specpress_config::Config,
) -> Option<std::sync::Arc<dyn EventPublisher>> {
    let queue = SqsQueue::from_config(aws, config).ok()?;
    Some(std::sync::Arc::new(QueuePublisher(std::sync::Arc::new(
        queue,
    ))))
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
