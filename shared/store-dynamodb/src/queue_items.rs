//! The items of a queue stored in the table (the local server's persistent queue, docs/storage.md "Local queue
//! message"): `LQ#<queue>` / `<visible-at ms, 15 digits>#<message id>` with `id`, `body`, `receive_count`,
//! `sent_at`; dead letters in `LQ#<queue>#DLQ`. Written here so that a deploy commit can put its event's message
//! in such a queue within its own transaction ([`Commit::enqueue_in`]), and read and moved by the queue adapter.
//!
//! [`Commit::enqueue_in`]: specpress_domain::ports::Commit::enqueue_in

use std::time::Duration;

use time::OffsetDateTime;

use crate::attr::{Item, n, s, ts};
use crate::items::keyed;

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    u64::try_from(OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}

/// Milliseconds of a duration (saturating far in the future).
pub fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX / 2)
}

/// The partition of queue `queue`'s messages.
pub fn message_pk(queue: &str) -> String {
    format!("LQ#{queue}")
}

/// The partition of queue `queue`'s dead letters.
pub fn dead_letter_pk(queue: &str) -> String {
    format!("LQ#{queue}#DLQ")
}

/// The sort key (and receipt handle) of message `id` visible at `visible_at_ms`.
pub fn sort_key(visible_at_ms: u64, id: &str) -> String {
    format!("{visible_at_ms:015}#{id}")
}

/// The message id of a receipt handle (a sort key).
pub fn message_id(receipt: &str) -> Option<&str> {
    receipt
        .split_once('#')
        .map(|(_, id)| id)
        .filter(|id| !id.is_empty())
}

/// A new message of `queue` with `body`, visible after `delay`.
pub fn message_item(queue: &str, body: &str, delay: Duration) -> Item {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let mut item = keyed(message_pk(queue), &sort_key(now_ms() + ms(delay), &id));
    item.insert("id".into(), s(&id));
    item.insert("body".into(), s(body));
    item.insert("receive_count".into(), n(0));
    item.insert("sent_at".into(), ts(OffsetDateTime::now_utc()));
    item
}

/// A dead letter of `queue`: message `id`, received `receive_count` times.
pub fn dead_letter_item(queue: &str, id: &str, body: &str, receive_count: u32) -> Item {
    let mut item = keyed(dead_letter_pk(queue), &sort_key(now_ms(), id));
    item.insert("id".into(), s(id));
    item.insert("body".into(), s(body));
    item.insert("receive_count".into(), n(receive_count));
    item
}
