//! Readers following a documentation or hub by email (issue 38): the followers, their addresses' confirmation quota,
//! and the digests due.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::follow::{Follower, FollowerId, FollowerState};
use crate::model::DocOrHub;

/// Storage of followers.
#[async_trait]
pub trait FollowerStore: Send + Sync {
    /// Writes a pending follower (a new one, or the same id's pending entry again, replaced whole); a confirmed or
    /// suspended follower with this id that is still there is left alone: `Conflict(AlreadyExists)`. A pending entry
    /// expires at its `expires_at` (TTL), with its address's index entry.
    async fn put_pending_follower(&self, follower: &Follower, now: OffsetDateTime) -> Result<()>;
    /// A follower by id; a pending one past its expiry is absent.
    async fn get_follower(&self, id: FollowerId, now: OffsetDateTime) -> Result<Option<Follower>>;
    /// Confirms the pending follower whose confirmation value is `nonce`: `confirmed`, the value cleared (the link
    /// is single-use), no expiry any more, `next_digest_at` set; a documentation's follower also makes the
    /// documentation queue its deploys' events (it clears `never_subscribed` first). `false` when it is
    /// no longer pending with that value (or expired).
    async fn confirm_follower(
        &self,
        id: FollowerId,
        nonce: &str,
        now: OffsetDateTime,
        next_digest_at: Option<OffsetDateTime>,
    ) -> Result<bool>;
    /// Deletes a follower and its sealed address (and its address's index entry); the deleted entry, if there was one.
    async fn delete_follower(&self, id: FollowerId) -> Result<Option<Follower>>;
    /// The followers of a documentation or hub (at most [`crate::follow::MAX_FOLLOWERS_PER_SCOPE`]), oldest first;
    /// expired pending ones left out.
    async fn list_followers(&self, scope: DocOrHub, now: OffsetDateTime) -> Result<Vec<Follower>>;
    /// The ids of every follower of the address with this keyed hash.
    async fn followers_of_address(&self, address_hash: &str) -> Result<Vec<FollowerId>>;
    /// Sets a follower's state (and its reason: `Some` when suspending); `false` when there is no such follower.
    async fn set_follower_state(
        &self,
        id: FollowerId,
        state: FollowerState,
        reason: Option<&str>,
    ) -> Result<bool>;
    /// Counts one confirmation mail to the address with this hash on `day`: `true` when it was under `limit` (and is
    /// now counted), `false` when the day's quota is used up.
    async fn count_confirmation(&self, address_hash: &str, day: &str, limit: u32) -> Result<bool>;
    /// Confirmed digest followers whose `next_digest_at` is at or before `now`, soonest first, at most `limit`.
    async fn due_digests(&self, now: OffsetDateTime, limit: usize) -> Result<Vec<Follower>>;
    /// Moves a follower's digest time from `from` to `to`; `false` when it was not `from` any more (another runner
    /// sent that digest).
    async fn advance_digest(
        &self,
        id: FollowerId,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Result<bool>;
}
