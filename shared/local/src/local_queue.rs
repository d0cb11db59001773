//! The persistent in-process queue of `specpress serve`: SQS semantics (visibility timeout, receive count,
//! redrive to a dead-letter queue after `max_receive` receives) stored in the same table, so stopping the
//! server loses no pending delivery.
//!
//! Items: `LQ#<queue>` / `<visible-at millis, 15 digits>#<message id>` with `body`, `receive_count`, `sent_at`.
//! The sort key orders messages by the time they become visible, so a receive is one range query
//! (`sk <= now`). The dead-letter queue is the partition `LQ#<queue>#DLQ`.
//!
//! Receiving writes nothing: the consumers of one server share one `LocalQueue` (clones share its state), which
//! leases each received message in memory for the visibility timeout, so two consumers never both hold one copy,
//! and counts its receives. A delete removes the item; a visibility change (a retry) moves it to its new
//! visible-at key with the receive count written; a message received more than `max_receive` times moves to the
//! dead-letter partition. If the server stops, its leases go with it and every message not deleted is received
//! again on the next start: at least once, never lost. The receipt handle is the message's sort key.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{Delete, Put, TransactWriteItem};
use specpress_domain::model::Event;
use specpress_domain::ports::{EventPublisher, EventRoute, MessageQueue, ReceivedMessage};
use specpress_domain::{DomainError, Result};
use tokio::sync::Notify;

use specpress_store_dynamodb::attr::*;
use specpress_store_dynamodb::queue_items::{self, message_id, ms, now_ms, sort_key};

/// Longest a waiting receive sleeps between looks at the queue. Sends from this process wake a receive at once and
/// a look tells when the next delayed message is due (see [`LocalQueue::receive`]); this bound matters only for
/// messages another process wrote into the same table, or a look that could not see past many visible messages.
const IDLE_POLL: Duration = Duration::from_millis(250);
/// Shortest sleep before a delayed message becomes visible (avoids spinning on clock granularity).
const MIN_NAP: Duration = Duration::from_millis(2);

/// A queue persisted in a DynamoDB table (the embedded engine in `specpress serve`).
#[derive(Clone, Debug)]
pub struct LocalQueue {
    client: Client,
    table: String,
    name: String,
    visibility: Duration,
    max_receive: u32,
    /// Wakes receivers waiting on this queue when a message is written or made visible (shared by clones).
    wake: Arc<Notify>,
    /// How long a woken receive waits for more messages before it looks (see [`LocalQueue::with_batching_window`]).
    window: Duration,
    /// True while a woken receive is waiting out the batching window: sends then wake no other receive, since
    /// that one is about to look (shared by clones).
    gathering: Arc<AtomicBool>,
    /// Messages received by this process and not yet deleted or moved (shared by clones).
    leases: Arc<Mutex<HashMap<String, Lease>>>,
}

/// A message received in this process: hidden from other receives until `until`.
#[derive(Debug, Clone, Copy)]
struct Lease {
    until: Instant,
    /// Receives since the stored `receive_count` was last written.
    receives: u32,
}

/// Most actions DynamoDB takes in one `TransactWriteItems`.
const MAX_TRANSACTION_ITEMS: usize = 100;
/// Leases kept before expired ones are pruned (a message deleted by another process leaves its lease behind).
const MAX_LEASES: usize = 4096;

/// Marks a receive waiting out the batching window; clears the mark when dropped, also if the receive is cancelled
/// mid-window (a flag left set would keep every later send from waking a receive).
struct Gathering<'a>(&'a AtomicBool);

impl Drop for Gathering<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
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
            wake: Arc::new(Notify::new()),
            window: Duration::ZERO,
            gathering: Arc::default(),
            leases: Arc::default(),
        }
    }

    /// Sets the batching window: a receive woken by a send waits this long for more messages before it looks, as
    /// an SQS event source's `MaximumBatchingWindowInSeconds` does. Under a steady stream of sends, one look then
    /// takes several messages instead of each send waking a receive for one, and a consumer can delete them in one
    /// write ([`MessageQueue::delete_batch`]). Messages already waiting are returned at once, whatever the window.
    /// Zero (the default) looks at once.
    pub fn with_batching_window(mut self, window: Duration) -> Self {
        self.window = window;
        self
    }

    fn leases(&self) -> std::sync::MutexGuard<'_, HashMap<String, Lease>> {
        // A poisoned lock only means a panic elsewhere while holding it; the map itself stays consistent.
        self.leases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Forgets a message's lease, returning the receives not yet written to its item.
    fn release(&self, id: &str) -> u32 {
        self.leases().remove(id).map_or(0, |l| l.receives)
    }

    /// Leases currently held, and when the first of them ends.
    fn active_leases(&self) -> (usize, Option<Instant>) {
        let now = Instant::now();
        let leases = self.leases();
        let active = leases.values().filter(|l| l.until > now);
        active.fold((0, None), |(n, first), l| {
            (
                n + 1,
                Some(first.map_or(l.until, |f: Instant| f.min(l.until))),
            )
        })
    }

    /// The table the queue lives in.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The queue's name (its partition is `LQ#<name>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A new message item (visible after `delay`).
    fn message_item(&self, body: &str, delay: Duration) -> Item {
        queue_items::message_item(&self.name, body, delay)
    }

    /// A dead-letter item for message `id`, received `receive_count` times.
    fn dead_letter_item(&self, id: &str, body: &str, receive_count: u32) -> Item {
        queue_items::dead_letter_item(&self.name, id, body, receive_count)
    }

    /// Wakes one receive waiting on this queue (after a message was written or made visible); if none is
    /// waiting, the next receive that waits returns to look at once. One is enough: a receive takes up to ten.
    fn wake_receivers(&self) {
        if !self.gathering.load(Ordering::Acquire) {
            self.wake.notify_one();
        }
    }

    fn pk(&self) -> String {
        queue_items::message_pk(&self.name)
    }

    fn dlq_pk(&self) -> String {
        queue_items::dead_letter_pk(&self.name)
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

    /// Deletes the message at `sk`. With `must_exist`, the transaction is cancelled if it is gone (a move must not
    /// resurrect a message another consumer deleted); without, a gone message is no error (as
    /// [`MessageQueue::delete`]).
    fn delete(&self, sk: &str, must_exist: bool) -> Result<TransactWriteItem> {
        let del = Delete::builder()
            .table_name(&self.table)
            .key("pk", s(self.pk()))
            .key("sk", s(sk))
            .set_condition_expression(must_exist.then(|| "attribute_exists(pk)".to_owned()))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().delete(del).build())
    }

    /// Waits out the batching window (cut at `until`) after a wake, unless the window is zero or another receive is
    /// already waiting one out; true if it waited. Sends wake no other receive meanwhile. The mark is cleared before
    /// the caller looks, so a send from then on wakes another receive and none waits unseen.
    async fn gather(&self, until: Instant) -> bool {
        let window = self
            .window
            .min(until.saturating_duration_since(Instant::now()));
        if window.is_zero() || self.gathering.swap(true, Ordering::AcqRel) {
            return false;
        }
        let _mark = Gathering(&self.gathering);
        tokio::time::sleep(window).await;
        true
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

    /// One look at the queue: up to `max` visible messages not leased here, and, when the look reached past the
    /// visible ones, the time (ms) the next delayed message becomes visible.
    async fn receive_once(&self, max: u32) -> Result<(Vec<ReceivedMessage>, Option<u64>)> {
        let max = max.clamp(1, 10) as usize;
        let now = now_ms();
        // Visible messages leased here come first in key order too: read past them, and one item further, which
        // (if it is not visible yet) tells when the next delayed message is due.
        let (leased, _) = self.active_leases();
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(self.pk()))
            .limit(i32::try_from((max + leased + 1).min(1000)).unwrap_or(1000))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("Query"))?;
        let mut got = Vec::new();
        let mut next_due = None;
        for item in out.items.unwrap_or_default() {
            if got.len() >= max {
                break;
            }
            let sk = get_s(&item, "sk")?.to_owned();
            let visible_at: u64 = sk
                .split_once('#')
                .and_then(|(at, _)| at.parse().ok())
                .ok_or_else(|| bad("queue sort key"))?;
            if visible_at > now {
                next_due = Some(visible_at);
                break;
            }
            let id = get_s(&item, "id")?.to_owned();
            let stored: u32 = get_n::<u32>(&item, "receive_count")?;
            let count = {
                let at = Instant::now();
                let mut leases = self.leases();
                if leases.len() > MAX_LEASES {
                    let horizon = self.visibility * 10;
                    leases.retain(|_, l| l.until + horizon > at);
                }
                let lease = leases.entry(id.clone()).or_insert(Lease {
                    until: at,
                    receives: 0,
                });
                if lease.until > at {
                    // In flight with another consumer of this process.
                    continue;
                }
                lease.receives += 1;
                lease.until = at + self.visibility;
                stored.saturating_add(lease.receives)
            };
            let body = get_s(&item, "body")?.to_owned();
            if count > self.max_receive {
                // Redrive: the message has been received too often without being deleted.
                self.release(&id);
                let dead = self.dead_letter_item(&id, &body, count - 1);
                self.transact(vec![self.delete(&sk, true)?, self.put(dead, None)?])
                    .await?;
                tracing::warn!(queue = %self.name, message_id = %id, "message moved to the dead-letter queue");
                continue;
            }
            got.push(ReceivedMessage {
                message_id: id,
                receipt: sk,
                body,
                receive_count: count,
            });
        }
        Ok((got, next_due))
    }
}

/// The publisher of a [`LocalQueue`] that lives in the deploys' own table: each deploy commit writes its event's
/// message into the queue within its transaction ([`EventRoute::InCommit`]), so the event is enqueued atomically with
/// the version and never waits for the sweeper; publishing after the commit only wakes the queue's receivers.
#[derive(Clone, Debug)]
pub struct InCommitPublisher {
    queue: LocalQueue,
}

impl LocalQueue {
    /// The publisher that has the commits of a store over `store_table` write their events' messages into this
    /// queue. The queue must live in that same table (it does when both come from the same engine): a transaction
    /// cannot reach another table's queue, so anything else is an error.
    pub fn in_commit_publisher(&self, store_table: &str) -> Result<InCommitPublisher> {
        if store_table != self.table {
            return Err(DomainError::unexpected(
                "the in-table queue must live in the store's own table",
            ));
        }
        Ok(InCommitPublisher {
            queue: self.clone(),
        })
    }
}

#[async_trait]
impl EventPublisher for InCommitPublisher {
    fn route(&self) -> EventRoute {
        EventRoute::InCommit {
            queue: self.queue.name.clone(),
        }
    }

    async fn publish(&self, _: &Event) -> Result<()> {
        self.queue.wake_receivers();
        Ok(())
    }
}

#[async_trait]
impl MessageQueue for LocalQueue {
    async fn send(&self, body: &str, delay: Duration) -> Result<()> {
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(self.message_item(body, delay)))
            .send()
            .await
            .map_err(sdk("PutItem"))?;
        // Also for delayed messages: a waiting receive recomputes when the next message is due.
        self.wake_receivers();
        Ok(())
    }

    /// Waits up to `wait` for messages. Instead of polling, an idle receive sleeps until the next delayed message
    /// is due or a send from this process wakes it (whichever comes first).
    async fn receive(&self, max: u32, wait: Duration) -> Result<Vec<ReceivedMessage>> {
        let until = Instant::now() + wait;
        let mut gathered = false;
        loop {
            // Registered before looking, so a send between the look and the sleep still wakes this receive.
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let (got, next_due) = self.receive_once(max).await?;
            if gathered && got.len() >= max.clamp(1, 10) as usize {
                // Sends during the window woke no other receive, and there may be more than one look takes.
                self.wake.notify_one();
            }
            let now = Instant::now();
            if !got.is_empty() || now >= until {
                return Ok(got);
            }
            let mut nap = (until - now).min(IDLE_POLL);
            if let Some(at) = next_due {
                nap = nap.min(Duration::from_millis(at.saturating_sub(now_ms())));
            }
            if let (_, Some(first)) = self.active_leases() {
                // A lease that runs out makes its message visible again.
                nap = nap.min(first.saturating_duration_since(Instant::now()));
            }
            let nap = nap.max(MIN_NAP);
            tokio::select! {
                () = &mut woken => gathered = self.gather(until).await,
                () = tokio::time::sleep(nap) => {}
            }
        }
    }

    async fn delete(&self, receipt: &str) -> Result<()> {
        if let Some(id) = message_id(receipt) {
            self.release(id);
        }
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

    /// Deletes the messages in one transaction (up to 100 per write), so a batch costs one commit instead of one
    /// per message. A receipt whose message is already gone is no error.
    async fn delete_batch(&self, receipts: &[String]) -> Result<()> {
        let mut unique: Vec<&String> = receipts.iter().collect();
        unique.sort_unstable();
        unique.dedup();
        for chunk in unique.chunks(MAX_TRANSACTION_ITEMS) {
            let mut actions = Vec::with_capacity(chunk.len());
            for receipt in chunk {
                if let Some(id) = message_id(receipt) {
                    self.release(id);
                }
                actions.push(self.delete(receipt, false)?);
            }
            if !self.transact(actions).await? {
                return Err(DomainError::unexpected(
                    "the queue refused to delete a batch of messages",
                ));
            }
        }
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
        // The receives counted in memory are written with the move (they would be lost with the lease).
        let stored: u32 = get_n::<u32>(&item, "receive_count")?;
        moved.insert(
            "receive_count".into(),
            n(stored.saturating_add(self.release(id))),
        );
        if !self
            .transact(vec![self.delete(receipt, true)?, self.put(moved, None)?])
            .await?
        {
            return Err(DomainError::unexpected("receipt handle is no longer valid"));
        }
        // Also for delayed messages: a waiting receive recomputes when the next message is due.
        self.wake_receivers();
        Ok(())
    }

    async fn send_to_dead_letter(&self, body: &str) -> Result<()> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let item = self.dead_letter_item(&id, body, 0);
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
