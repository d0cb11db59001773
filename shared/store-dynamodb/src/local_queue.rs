//! The persistent in-process queue of `specpress serve`: SQS semantics (visibility timeout, receive count,
//! redrive to a dead-letter queue after `max_receive` receives) stored in the same table, so stopping the
//! server loses no pending delivery.
//!
//! Items: `LQ#<queue>` / `<visible-at millis, 15 digits>#<message id>` with `body`, `receive_count`, `sent_at`.
//! The sort key orders messages by the time they become visible, so a receive is one range query
//! (`sk <= now`). Receiving moves a message to a new sort key (now + visibility timeout) in one transaction
//! conditioned on the old item existing: two consumers can never both receive one copy. The receipt handle
//! is the new sort key. The dead-letter queue is the partition `LQ#<queue>#DLQ`.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{Delete, Put, TransactWriteItem};
use specpress_domain::webhooks::{MessageQueue, ReceivedMessage};
use specpress_domain::{DomainError, Result};
use time::OffsetDateTime;

use crate::attr::*;
use crate::items::keyed;

/// How often an empty queue is polled while a receive waits.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// A queue persisted in a DynamoDB table (the embedded engine in `specpress serve`).
#[derive(Clone, Debug)]
pub struct LocalQueue {
    client: Client,
    table: String,
    name: String,
    visibility: Duration,
    max_receive: u32,
}

fn now_ms() -> u64 {
    u64::try_from(OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}

fn sort_key(visible_at_ms: u64, id: &str) -> String {
    format!("{visible_at_ms:015}#{id}")
}

fn message_id(receipt: &str) -> Option<&str> {
    receipt
        .split_once('#')
        .map(|(_, id)| id)
        .filter(|id| !id.is_empty())
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX / 2)
}

impl LocalQueue {
    /// A queue named `name` in `table`: received messages stay hidden for `visibility`, and a message received
    /// more than `max_receive` times moves to the dead-letter partition instead (SQS redrive policy).
    pub fn new(
        client: Client,
        table: impl Into<String>,
        name: &str,
        visibility: Duration,
        max_receive: u32,
    ) -> Self {
        LocalQueue {
            client,
            table: table.into(),
            name: name.to_owned(),
            visibility,
            max_receive: max_receive.max(1),
        }
    }

    fn pk(&self) -> String {
        format!("LQ#{}", self.name)
    }

    fn dlq_pk(&self) -> String {
        format!("LQ#{}#DLQ", self.name)
    }

    fn put(&self, item: Item, condition: Option<&str>) -> Result<TransactWriteItem> {
        let put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_owned))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().put(put).build())
    }

    fn delete(&self, pk: String, sk: &str) -> Result<TransactWriteItem> {
        let del = Delete::builder()
            .table_name(&self.table)
            .key("pk", s(pk))
            .key("sk", s(sk))
            .condition_expression("attribute_exists(pk)")
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().delete(del).build())
    }

    /// Moves an item to a new key atomically; `false` if the old item was gone (another consumer took it).
    async fn transact(&self, items: Vec<TransactWriteItem>) -> Result<bool> {
        match self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|se| se.is_transaction_canceled_exception()) =>
            {
                Ok(false)
            }
            Err(e) => Err(sdk("TransactWriteItems")(e)),
        }
    }

    /// Messages currently in the dead-letter partition (bodies), oldest first.
    pub async fn dead_letters(&self) -> Result<Vec<String>> {
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(self.dlq_pk()))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("Query"))?;
        out.items
            .unwrap_or_default()
            .iter()
            .map(|i| get_s(i, "body").map(str::to_owned))
            .collect()
    }

    /// Messages waiting or in flight (not dead-lettered).
    pub async fn depth(&self) -> Result<usize> {
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(self.pk()))
            .select(aws_sdk_dynamodb::types::Select::Count)
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("Query"))?;
        Ok(usize::try_from(out.count).unwrap_or(0))
    }

    async fn receive_once(&self, max: u32) -> Result<Vec<ReceivedMessage>> {
        let now = now_ms();
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND sk <= :upto")
            .expression_attribute_values(":pk", s(self.pk()))
            .expression_attribute_values(":upto", s(format!("{now:015}#~")))
            .limit(i32::try_from(max.clamp(1, 10)).unwrap_or(10))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("Query"))?;
        let mut got = Vec::new();
        for item in out.items.unwrap_or_default() {
            let old_sk = get_s(&item, "sk")?.to_owned();
            let id = get_s(&item, "id")?.to_owned();
            let body = get_s(&item, "body")?.to_owned();
            let count: u32 = get_n::<u32>(&item, "receive_count")?.saturating_add(1);
            if count > self.max_receive {
                // Redrive: the message has been received too often without being deleted.
                let mut dead = keyed(self.dlq_pk(), &sort_key(now, &id));
                dead.insert("id".into(), s(&id));
                dead.insert("body".into(), s(&body));
                dead.insert("receive_count".into(), n(count - 1));
                self.transact(vec![
                    self.delete(self.pk(), &old_sk)?,
                    self.put(dead, None)?,
                ])
                .await?;
                tracing::warn!(queue = %self.name, message_id = %id, "message moved to the dead-letter queue");
                continue;
            }
            let new_sk = sort_key(now + ms(self.visibility), &id);
            let mut moved = keyed(self.pk(), &new_sk);
            moved.insert("id".into(), s(&id));
            moved.insert("body".into(), s(&body));
            moved.insert("receive_count".into(), n(count));
            if let Some(v) = item.get("sent_at") {
                moved.insert("sent_at".into(), v.clone());
            }
            if self
                .transact(vec![
                    self.delete(self.pk(), &old_sk)?,
                    self.put(moved, None)?,
                ])
                .await?
            {
                got.push(ReceivedMessage {
                    message_id: id,
                    receipt: new_sk,
                    body,
                    receive_count: count,
                });
            }
        }
        Ok(got)
    }
}

#[async_trait]
impl MessageQueue for LocalQueue {
    async fn send(&self, body: &str, delay: Duration) -> Result<()> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let mut item = keyed(self.pk(), &sort_key(now_ms() + ms(delay), &id));
        item.insert("id".into(), s(&id));
        item.insert("body".into(), s(body));
        item.insert("receive_count".into(), n(0));
        item.insert("sent_at".into(), ts(OffsetDateTime::now_utc()));
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .send()
            .await
            .map_err(sdk("PutItem"))?;
        Ok(())
    }

    async fn receive(&self, max: u32, wait: Duration) -> Result<Vec<ReceivedMessage>> {
        let until = Instant::now() + wait;
        loop {
            let got = self.receive_once(max).await?;
            if !got.is_empty() || Instant::now() >= until {
                return Ok(got);
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    async fn delete(&self, receipt: &str) -> Result<()> {
        self.client
            .delete_item()
            .table_name(&self.table)
            .key("pk", s(self.pk()))
            .key("sk", s(receipt))
            .send()
            .await
            .map_err(sdk("DeleteItem"))?;
        Ok(())
    }

    async fn change_visibility(&self, receipt: &str, delay: Duration) -> Result<()> {
        let id =
            message_id(receipt).ok_or_else(|| DomainError::unexpected("invalid receipt handle"))?;
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("pk", s(self.pk()))
            .key("sk", s(receipt))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        let Some(item) = out.item else {
            return Err(DomainError::unexpected("receipt handle is no longer valid"));
        };
        let mut moved = item.clone();
        moved.insert("sk".into(), s(sort_key(now_ms() + ms(delay), id)));
        if !self
            .transact(vec![
                self.delete(self.pk(), receipt)?,
                self.put(moved, None)?,
            ])
            .await?
        {
            return Err(DomainError::unexpected("receipt handle is no longer valid"));
        }
        Ok(())
    }

    async fn send_to_dead_letter(&self, body: &str) -> Result<()> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let mut item = keyed(self.dlq_pk(), &sort_key(now_ms(), &id));
        item.insert("id".into(), s(&id));
        item.insert("body".into(), s(body));
        item.insert("receive_count".into(), n(0));
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .send()
            .await
            .map_err(sdk("PutItem"))?;
        Ok(())
    }
}
