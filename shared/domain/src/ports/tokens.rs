//! Tokens: lookup by hash and rotation.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::token::{Principal, TokenHash, TokenOwner};

/// Token lookup and rotation.
#[async_trait]
pub trait TokenStore: Send + Sync {
    /// The principal a token hash grants, if any.
    async fn principal_by_token(&self, hash: &TokenHash) -> Result<Option<Principal>>;
    /// Replaces the owner's token by `new` in one transaction: the old token stops working at once. With `current`,
    /// only if the owner's token is still that one (an organization replacing the very token it called with).
    /// `Conflict(Stale)` when the owner does not exist, its token is not `current`, or it was rotated concurrently.
    async fn rotate_token(
        &self,
        owner: TokenOwner,
        current: Option<&TokenHash>,
        new: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<()>;
}
