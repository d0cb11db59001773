//! Reader sessions of the public site (sign-in, sign-out).

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::Result;
use crate::session::{Session, SessionId};

/// Storage of reader sessions. An expired session is reported as absent even before TTL deletes it.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Records a new session; `Conflict(AlreadyExists)` when its id is taken.
    async fn create_session(&self, session: &Session) -> Result<()>;
    /// The session `id` names, unless it was deleted or has expired at `now`.
    async fn get_session(&self, id: &SessionId, now: OffsetDateTime) -> Result<Option<Session>>;
    /// Deletes the session (nothing happens when it is already gone).
    async fn delete_session(&self, id: &SessionId) -> Result<()>;
}
