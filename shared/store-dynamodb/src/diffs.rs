//! [`DiffStore`] over DynamoDB (docs/storage.md, "Diffs").
//!
//! - A diff is one `DIFF#<id>` / `DIFF` record. A diff created with a token (and every diff stored before anonymous
//!   diffs owned their bytes) points at three content-addressed blobs (`BLOB#<sha256>`, possibly shared with other
//!   diffs or with deployed versions). An anonymous diff owns its three parts: chunks in its own partition,
//!   `DIFF#<id>` / `PART#<part>#<nnnn>`, with the diff's TTL, deleted with it and nothing else.
//! - The anonymous quota lives in partition `ANONDIFFS`: the count (`USAGE`: `bytes`, `diffs`), one slot per
//!   anonymous diff ordered by creation (`C#<created ns, 24 digits>#<id>`: `bytes`, `expires`, `lease_until?`), and
//!   one entry per diff ordered by expiry (`X#<expires epoch s, 12 digits>#<id>`, pointing at the slot). None of them
//!   has a TTL: a slot leaves only through [`DiffStore::remove_anonymous`], in the transaction that subtracts its
//!   bytes, and every change of the count happens in a transaction with the slot it is for. So the count is always
//!   exactly the sum of the slots' `bytes`; TTL deletions of records and parts never touch it (until a removal
//!   catches up, the count overstates what is kept, never understates it).

use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, DeleteRequest, Put, PutRequest, TransactWriteItem, Update, WriteRequest,
};
use specpress_domain::model::{AnonymousSlot, DiffId, DiffPart, DiffRecord, DiffStorage};
use specpress_domain::model::{BlobRef, Bundle};
use specpress_domain::ports::DiffStore;
use specpress_domain::ports::{BlobStore, EncodedBundle};
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::blob;
use crate::items::{epoch, keyed};

/// Partition key of a diff (its record, and an anonymous diff's parts).
pub fn diff_pk(id: DiffId) -> String {
    format!("DIFF#{id}")
}
/// Sort key of a diff's record.
pub const DIFF_SK: &str = "DIFF";
/// Sort key of chunk `i` of an anonymous diff's part.
fn part_sk(part: DiffPart, i: usize) -> String {
    format!("{}{i:04}", part_prefix(part))
}
fn part_prefix(part: DiffPart) -> String {
    format!("PART#{}#", part.name())
}
/// The anonymous quota's partition: the count, the slots and the expiry entries.
pub const ANON_PK: &str = "ANONDIFFS";
/// Sort key of the count.
pub const USAGE_SK: &str = "USAGE";
fn slot_sk(slot: &AnonymousSlot) -> String {
    format!(
        "C#{:024}#{}",
        slot.created_at.unix_timestamp_nanos(),
        slot.id
    )
}
fn expiry_sk(slot: &AnonymousSlot) -> String {
    format!("X#{:012}#{}", epoch(slot.expires_at), slot.id)
}

/// What each stored item of an anonymous diff is counted for besides its data: keys, attribute names and values,
/// and the 100 bytes DynamoDB adds to every item. A chunk item's keys and attributes take about 110 bytes, a
/// record about 500 (plus its title), a slot about 300 and an expiry entry about 170.
const CHUNK_ITEM_BYTES: u64 = 256;
const RECORD_ITEM_BYTES: u64 = 640;
const SLOT_ITEMS_BYTES: u64 = 640;

/// Pauses between attempts of a transaction DynamoDB cancelled for a conflicting concurrent transaction.
const CONFLICT_ATTEMPTS: u32 = 8;

fn put_ref(i: &mut Item, prefix: &str, r: &BlobRef) {
    i.insert(format!("{prefix}_sha256"), s(&r.sha256));
    i.insert(format!("{prefix}_size"), n(r.size));
}

fn get_ref(i: &Item, prefix: &str) -> Result<BlobRef> {
    Ok(BlobRef {
        sha256: get_s(i, &format!("{prefix}_sha256"))?.to_owned(),
        size: get_n(i, &format!("{prefix}_size"))?,
    })
}

fn diff_item(d: &DiffRecord) -> Item {
    let mut i = keyed(diff_pk(d.id), DIFF_SK);
    i.insert("id".into(), s(d.id.to_string()));
    i.insert("title".into(), s(&d.title));
    i.insert("breaking".into(), AttributeValue::Bool(d.breaking));
    put_ref(&mut i, "previous", &d.previous);
    put_ref(&mut i, "current", &d.current);
    put_ref(&mut i, "result", &d.result);
    if let Some(e) = d.expires_at {
        i.insert("expires_at".into(), ts(e));
        i.insert("ttl".into(), n(epoch(e)));
    }
    i.insert("created_at".into(), ts(d.created_at));
    if let DiffStorage::Owned { bytes } = d.storage {
        i.insert("owned_bytes".into(), n(bytes));
    }
    i
}

fn diff_from(i: &Item) -> Result<DiffRecord> {
    Ok(DiffRecord {
        id: DiffId(parse_uuid(i, "id")?),
        title: get_s(i, "title")?.to_owned(),
        breaking: get_bool(i, "breaking"),
        previous: get_ref(i, "previous")?,
        current: get_ref(i, "current")?,
        result: get_ref(i, "result")?,
        expires_at: opt_ts(i, "expires_at")?,
        created_at: get_ts(i, "created_at")?,
        // Records written before anonymous diffs owned their parts have no `owned_bytes`: shared blobs.
        storage: match i.get("owned_bytes") {
            Some(_) => DiffStorage::Owned {
                bytes: get_n(i, "owned_bytes")?,
            },
            None => DiffStorage::Shared,
        },
    })
}

fn slot_item(slot: &AnonymousSlot) -> Item {
    let mut i = keyed(ANON_PK.to_owned(), &slot_sk(slot));
    i.insert("id".into(), s(slot.id.to_string()));
    i.insert("bytes".into(), n(slot.bytes));
    i.insert("expires".into(), n(epoch(slot.expires_at)));
    if let Some(l) = slot.lease_until {
        i.insert("lease_until".into(), n(epoch(l)));
    }
    i
}

fn slot_from(i: &Item) -> Result<AnonymousSlot> {
    let sk = get_s(i, "sk")?;
    let nanos: i128 = sk
        .strip_prefix("C#")
        .and_then(|rest| rest.split_once('#'))
        .and_then(|(ns, _)| ns.parse().ok())
        .ok_or_else(|| bad("slot key"))?;
    let at = |secs: i64| OffsetDateTime::from_unix_timestamp(secs).map_err(|_| bad("slot time"));
    Ok(AnonymousSlot {
        id: DiffId(parse_uuid(i, "id")?),
        created_at: OffsetDateTime::from_unix_timestamp_nanos(nanos)
            .map_err(|_| bad("slot key"))?,
        expires_at: at(get_n(i, "expires")?)?,
        bytes: get_n(i, "bytes")?,
        lease_until: match i.get("lease_until") {
            Some(_) => Some(at(get_n(i, "lease_until")?)?),
            None => None,
        },
    })
}

impl DynamoStore {
    fn tx_put(&self, item: Item, condition: Option<&str>) -> Result<TransactWriteItem> {
        let put = Put::builder()
            .table_name(self.table())
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_owned))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().put(put).build())
    }

    fn tx_delete(&self, pk: String, sk: String) -> Result<TransactWriteItem> {
        let delete = Delete::builder()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .build()
            .map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().delete(delete).build())
    }

    /// A change of the count by `bytes` (and `diffs`), on condition that the new total stays within `quota` when
    /// given.
    fn usage_update(
        &self,
        bytes: i128,
        diffs: i64,
        quota: Option<u64>,
    ) -> Result<TransactWriteItem> {
        let mut u = Update::builder()
            .table_name(self.table())
            .key("pk", s(ANON_PK))
            .key("sk", s(USAGE_SK))
            .update_expression("ADD #b :b, #d :d")
            .expression_attribute_names("#b", "bytes")
            .expression_attribute_names("#d", "diffs")
            .expression_attribute_values(":b", n(bytes))
            .expression_attribute_values(":d", n(diffs));
        if let Some(quota) = quota {
            let max = i128::from(quota) - bytes;
            u = u
                .condition_expression("attribute_not_exists(#b) OR #b <= :max")
                .expression_attribute_values(":max", n(max));
        }
        let u = u.build().map_err(DomainError::unexpected)?;
        Ok(TransactWriteItem::builder().update(u).build())
    }

    /// Runs a transaction. `Ok(None)` when it was written; `Ok(Some(i))` when it was cancelled because the
    /// condition of action `i` failed (nothing written). A cancellation for a conflicting concurrent transaction
    /// (the count is one item every anonymous creation and removal writes) is retried after a short pause.
    async fn transact_at(&self, items: Vec<TransactWriteItem>) -> Result<Option<usize>> {
        for attempt in 0..CONFLICT_ATTEMPTS {
            let r = self
                .client()
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .send()
                .await;
            let se = match r {
                Ok(_) => return Ok(None),
                Err(SdkError::ServiceError(se)) => se,
                Err(e) => return Err(sdk("TransactWriteItems")(e)),
            };
            if let TransactWriteItemsError::TransactionCanceledException(tc) = se.err() {
                let reasons = tc.cancellation_reasons();
                if let Some(i) = reasons
                    .iter()
                    .position(|r| r.code() == Some("ConditionalCheckFailed"))
                {
                    return Ok(Some(i));
                }
                let conflict = reasons
                    .iter()
                    .any(|r| r.code() == Some("TransactionConflict"));
                if conflict && attempt + 1 < CONFLICT_ATTEMPTS {
                    let jitter = rand::random::<u64>() % 10;
                    tokio::time::sleep(Duration::from_millis((5 << attempt) + jitter)).await;
                    continue;
                }
            }
            return Err(sdk("TransactWriteItems")(SdkError::ServiceError(se)));
        }
        Err(DomainError::unexpected(
            "TransactWriteItems kept conflicting",
        ))
    }

    /// Deletes every part chunk of an anonymous diff (keys only are read, not the data).
    async fn delete_parts(&self, id: DiffId) -> Result<()> {
        let mut keys: Vec<WriteRequest> = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client()
                .query()
                .table_name(self.table())
                .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
                .expression_attribute_values(":pk", s(diff_pk(id)))
                .expression_attribute_values(":p", s("PART#"))
                .projection_expression("pk, sk")
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(sdk("Query"))?;
            for key in page.items.unwrap_or_default() {
                let delete = DeleteRequest::builder()
                    .set_key(Some(key))
                    .build()
                    .map_err(DomainError::unexpected)?;
                keys.push(WriteRequest::builder().delete_request(delete).build());
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        self.batch_write(keys).await
    }

    async fn get_item(&self, pk: String, sk: &str) -> Result<Option<Item>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(pk))
            .key("sk", s(sk))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        Ok(out.item)
    }
}

#[async_trait]
impl DiffStore for DynamoStore {
    async fn create_diff(&self, d: &DiffRecord) -> Result<()> {
        let r = self
            .client()
            .put_item()
            .table_name(self.table())
            .set_item(Some(diff_item(d)))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        conditional("PutItem", r)?
            .map(drop)
            .ok_or(DomainError::Conflict(ConflictKind::AlreadyExists))
    }

    async fn get_diff(&self, id: DiffId, now: OffsetDateTime) -> Result<Option<DiffRecord>> {
        let Some(i) = self.get_item(diff_pk(id), DIFF_SK).await? else {
            return Ok(None);
        };
        let d = diff_from(&i)?;
        Ok(if d.is_expired(now) { None } else { Some(d) })
    }

    async fn get_diff_part(&self, d: &DiffRecord, part: DiffPart) -> Result<Option<Bundle>> {
        let r = match part {
            DiffPart::Previous => &d.previous,
            DiffPart::Current => &d.current,
            DiffPart::Result => &d.result,
        };
        if d.storage == DiffStorage::Shared {
            return self.get_bundle(r).await;
        }
        let items = self
            .query_all(
                None,
                "pk = :pk AND begins_with(sk, :p)",
                vec![(":pk", s(diff_pk(d.id))), (":p", s(part_prefix(part)))],
                true,
                None,
            )
            .await?;
        // An incomplete set is a diff being removed (its parts go before its slot): absent, not corrupt.
        match blob::assemble(&items, |i| part_sk(part, i))? {
            Some(compressed) => blob::decode(&r.sha256, r.size, &compressed).map(Some),
            None => Ok(None),
        }
    }

    fn owned_part_bytes(&self, encoded: &EncodedBundle) -> u64 {
        let chunks = blob::chunks(encoded).len() as u64;
        encoded.compressed.len() as u64 + chunks * CHUNK_ITEM_BYTES
    }

    fn anonymous_fixed_bytes(&self) -> u64 {
        RECORD_ITEM_BYTES + SLOT_ITEMS_BYTES
    }

    async fn put_owned_part(
        &self,
        id: DiffId,
        part: DiffPart,
        encoded: &EncodedBundle,
        expires_at: OffsetDateTime,
    ) -> Result<()> {
        let chunks = blob::chunks(encoded);
        let total = chunks.len();
        let mut requests = Vec::with_capacity(total);
        for (i, data) in chunks.into_iter().enumerate() {
            let mut item =
                blob::chunk_item(keyed(diff_pk(id), &part_sk(part, i)), encoded, total, data);
            item.insert("ttl".into(), n(epoch(expires_at)));
            let put = PutRequest::builder()
                .set_item(Some(item))
                .build()
                .map_err(DomainError::unexpected)?;
            requests.push(WriteRequest::builder().put_request(put).build());
        }
        self.batch_write(requests).await
    }

    async fn anonymous_usage(&self) -> Result<u64> {
        match self.get_item(ANON_PK.to_owned(), USAGE_SK).await? {
            Some(i) if i.contains_key("bytes") => get_n(&i, "bytes"),
            _ => Ok(0),
        }
    }

    async fn reserve_anonymous(&self, slot: &AnonymousSlot, quota: u64) -> Result<bool> {
        let mut entry = keyed(ANON_PK.to_owned(), &expiry_sk(slot));
        entry.insert("id".into(), s(slot.id.to_string()));
        entry.insert("slot_sk".into(), s(slot_sk(slot)));
        let items = vec![
            self.tx_put(slot_item(slot), Some("attribute_not_exists(pk)"))?,
            self.tx_put(entry, Some("attribute_not_exists(pk)"))?,
            self.usage_update(i128::from(slot.bytes), 1, Some(quota))?,
        ];
        match self.transact_at(items).await? {
            None => Ok(true),
            Some(2) => Ok(false),
            Some(_) => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
        }
    }

    async fn grow_anonymous(&self, slot: &AnonymousSlot, bytes: u64, quota: u64) -> Result<bool> {
        let grow = Update::builder()
            .table_name(self.table())
            .key("pk", s(ANON_PK))
            .key("sk", s(slot_sk(slot)))
            .update_expression("SET #b = :new")
            .condition_expression("#b = :old AND attribute_exists(lease_until)")
            .expression_attribute_names("#b", "bytes")
            .expression_attribute_values(":new", n(bytes))
            .expression_attribute_values(":old", n(slot.bytes))
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().update(grow).build(),
            self.usage_update(i128::from(bytes) - i128::from(slot.bytes), 0, Some(quota))?,
        ];
        match self.transact_at(items).await? {
            None => Ok(true),
            Some(1) => Ok(false),
            Some(_) => Err(DomainError::Conflict(ConflictKind::Stale)),
        }
    }

    async fn commit_anonymous(&self, d: &DiffRecord, slot: &AnonymousSlot) -> Result<()> {
        let settle = Update::builder()
            .table_name(self.table())
            .key("pk", s(ANON_PK))
            .key("sk", s(slot_sk(slot)))
            .update_expression("REMOVE lease_until")
            .condition_expression("#b = :b")
            .expression_attribute_names("#b", "bytes")
            .expression_attribute_values(":b", n(slot.bytes))
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            self.tx_put(diff_item(d), Some("attribute_not_exists(pk)"))?,
            TransactWriteItem::builder().update(settle).build(),
        ];
        match self.transact_at(items).await? {
            None => Ok(()),
            Some(0) => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
            Some(_) => Err(DomainError::Conflict(ConflictKind::Stale)),
        }
    }

    async fn expired_anonymous(
        &self,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnonymousSlot>> {
        // Entries whose expiry second is before `now`'s: strictly expired whatever their sub-second part.
        let entries = self
            .query_all(
                None,
                "pk = :pk AND sk BETWEEN :lo AND :hi",
                vec![
                    (":pk", s(ANON_PK)),
                    (":lo", s("X#")),
                    (":hi", s(format!("X#{:012}#", epoch(now)))),
                ],
                true,
                Some(limit),
            )
            .await?;
        let mut slots = Vec::with_capacity(entries.len());
        for entry in entries.iter().take(limit as usize) {
            // A slot already removed (by a concurrent removal) is simply not listed.
            if let Some(i) = self
                .get_item(ANON_PK.to_owned(), get_s(entry, "slot_sk")?)
                .await?
            {
                slots.push(slot_from(&i)?);
            }
        }
        Ok(slots)
    }

    async fn oldest_anonymous(&self, limit: u32) -> Result<Vec<AnonymousSlot>> {
        let items = self
            .query_all(
                None,
                "pk = :pk AND begins_with(sk, :p)",
                vec![(":pk", s(ANON_PK)), (":p", s("C#"))],
                true,
                Some(limit),
            )
            .await?;
        items.iter().take(limit as usize).map(slot_from).collect()
    }

    async fn remove_anonymous(&self, slot: &AnonymousSlot) -> Result<bool> {
        // The record first, so readers answer 404 at once; then the parts; then the slot, its expiry entry and its
        // bytes in one transaction. A crash in between leaves the slot counting (the bound holds) and the next
        // removal finishes the work (every step is idempotent).
        let first = self
            .client()
            .delete_item()
            .table_name(self.table())
            .key("pk", s(diff_pk(slot.id)))
            .key("sk", s(DIFF_SK))
            .send()
            .await;
        if let Err(e) = first {
            // The transaction below deletes the record too: losing to a concurrent removal's transaction on it is
            // no failure.
            if !e
                .as_service_error()
                .is_some_and(|e| e.is_transaction_conflict_exception())
            {
                return Err(sdk("DeleteItem")(e));
            }
        }
        self.delete_parts(slot.id).await?;
        let remove_slot = Delete::builder()
            .table_name(self.table())
            .key("pk", s(ANON_PK))
            .key("sk", s(slot_sk(slot)))
            .condition_expression("#b = :b")
            .expression_attribute_names("#b", "bytes")
            .expression_attribute_values(":b", n(slot.bytes))
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().delete(remove_slot).build(),
            self.tx_delete(ANON_PK.to_owned(), expiry_sk(slot))?,
            // Again in the transaction: a creator outliving its lease may have written it since the first delete.
            self.tx_delete(diff_pk(slot.id), DIFF_SK.to_owned())?,
            self.usage_update(-i128::from(slot.bytes), -1, None)?,
        ];
        Ok(self.transact_at(items).await?.is_none())
    }
}
