//! Storage of public diffs: records, the parts anonymous diffs own, and the anonymous quota's slots and count.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::model::{AnonymousSlot, Bundle, DiffId, DiffPart, DiffRecord};
use crate::ports::blobs::EncodedBundle;

/// Storage of diffs: records, the parts anonymous diffs own, and the anonymous quota's slots and count.
#[async_trait]
pub trait DiffStore: Send + Sync {
    /// Writes a new diff record whose parts are shared blobs (written first). `Conflict(AlreadyExists)` on an id
    /// collision.
    async fn create_diff(&self, diff: &DiffRecord) -> Result<()>;
    /// Reads a diff; `None` when absent or expired at `now`.
    async fn get_diff(&self, id: DiffId, now: OffsetDateTime) -> Result<Option<DiffRecord>>;
    /// One part of a diff: its own stored part for an owned diff, the content-addressed blob otherwise. `None` when
    /// absent, or (owned) incomplete because the diff is being removed.
    async fn get_diff_part(&self, diff: &DiffRecord, part: DiffPart) -> Result<Option<Bundle>>;

    /// Bytes a part takes once stored as an owned part (its data and its items).
    fn owned_part_bytes(&self, encoded: &EncodedBundle) -> u64;
    /// Bytes an anonymous diff takes besides its parts and its title: its record and its slot.
    fn anonymous_fixed_bytes(&self) -> u64;
    /// Writes one part of an anonymous diff under the diff, expiring with it.
    async fn put_owned_part(
        &self,
        id: DiffId,
        part: DiffPart,
        encoded: &EncodedBundle,
        expires_at: OffsetDateTime,
    ) -> Result<()>;

    /// Bytes counted for anonymous diffs: the sum of every slot's `bytes`.
    async fn anonymous_usage(&self) -> Result<u64>;
    /// Writes a new slot and adds its bytes to the count, in one transaction, if the count stays within `quota`;
    /// `Ok(false)` (nothing written) when it would not.
    async fn reserve_anonymous(&self, slot: &AnonymousSlot, quota: u64) -> Result<bool>;
    /// Grows a slot still being created from `slot.bytes` to `bytes`, adding the difference to the count, if the
    /// count stays within `quota`; `Ok(false)` (nothing written) when it would not. `Conflict(Stale)` when the slot
    /// is gone or no longer as given (evicted).
    async fn grow_anonymous(&self, slot: &AnonymousSlot, bytes: u64, quota: u64) -> Result<bool>;
    /// Writes the record of an anonymous diff and ends its slot's lease, in one transaction. `Conflict(Stale)`
    /// (nothing written) when the slot is gone or no longer counts `slot.bytes`.
    async fn commit_anonymous(&self, diff: &DiffRecord, slot: &AnonymousSlot) -> Result<()>;
    /// Slots of diffs expired at `now`, soonest expired first, at most `limit`.
    async fn expired_anonymous(
        &self,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnonymousSlot>>;
    /// The oldest slots, at most `limit`.
    async fn oldest_anonymous(&self, limit: u32) -> Result<Vec<AnonymousSlot>>;
    /// Deletes an anonymous diff (record and parts), then its slot, subtracting its bytes in the transaction that
    /// deletes the slot, on condition that the slot still counts `slot.bytes`. `Ok(true)` when this call removed
    /// the slot; `Ok(false)` when it was already gone or changed (then nothing is subtracted), so a diff removed
    /// twice, even concurrently, is subtracted once.
    async fn remove_anonymous(&self, slot: &AnonymousSlot) -> Result<bool>;
}
