//! The webhook work queue: SQS in AWS, the persistent local queue in `specpress serve`.

use std::time::Duration;

use async_trait::async_trait;

use crate::error::Result;

/// A message as received from a queue.
#[derive(Debug, Clone)]
pub struct ReceivedMessage {
    /// Queue-assigned message id.
    pub message_id: String,
    /// Handle for delete and visibility changes.
    pub receipt: String,
    /// The body.
    pub body: String,
    /// How many times it has been received (1 on the first receive).
    pub receive_count: u32,
}

/// The webhook work queue: SQS in AWS, the embedded persistent queue in `specpress serve`.
#[async_trait]
pub trait MessageQueue: Send + Sync {
    /// Sends a message, visible after `delay` (at most 15 minutes).
    async fn send(&self, body: &str, delay: Duration) -> Result<()>;
    /// Receives up to `max` visible messages, waiting at most `wait` for the first one.
    async fn receive(&self, max: u32, wait: Duration) -> Result<Vec<ReceivedMessage>>;
    /// Deletes a received message.
    async fn delete(&self, receipt: &str) -> Result<()>;
    /// Deletes several received messages, in as few requests as the queue allows. The default deletes them one by
    /// one, stopping at the first failure.
    async fn delete_batch(&self, receipts: &[String]) -> Result<()> {
        for receipt in receipts {
            self.delete(receipt).await?;
        }
        Ok(())
    }
    /// Makes a received message visible again after `delay` (at most 12 hours).
    async fn change_visibility(&self, receipt: &str, delay: Duration) -> Result<()>;
    /// Puts a message on the dead-letter queue (deliveries whose schedule is exhausted).
    async fn send_to_dead_letter(&self, body: &str) -> Result<()>;
}
