//! Readers without deploy rights: reader tokens, the credential a presented token or session names, and the owner's
//! reader settings of documentations and hubs.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::embed::EmbedOrigins;
use crate::error::Result;
use crate::model::{DocOrHub, OrgId};
use crate::readers::{Credential, ReaderSettings, ReaderToken, ReaderTokenId};
use crate::token::TokenHash;

/// Storage of reader tokens and reader settings.
#[async_trait]
pub trait ReaderStore: Send + Sync {
    /// Records a reader token and its hash in one transaction, only while what it names exists (`NotFound`
    /// otherwise); `Conflict(AlreadyExists)` on an id or hash collision.
    async fn create_reader_token(&self, token: &ReaderToken, hash: &TokenHash) -> Result<()>;
    /// The reader tokens of a documentation or hub, oldest first, expired ones included (the caller filters).
    async fn list_reader_tokens(&self, org: OrgId, scope: DocOrHub) -> Result<Vec<ReaderToken>>;
    /// Deletes a reader token and its hash in one transaction: it opens nothing from then on. `false` when there
    /// was no such token.
    async fn revoke_reader_token(
        &self,
        org: OrgId,
        scope: DocOrHub,
        id: ReaderTokenId,
    ) -> Result<bool>;
    /// Records that the token (whose hash is `hash`) was used at `now`; nothing when it was revoked meanwhile.
    async fn touch_reader_token(
        &self,
        token: &ReaderToken,
        hash: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<()>;
    /// What the token or grant with this hash is, when live at `now`: an organization, hub or documentation token,
    /// a reader token, or a provider sign-in's grant. Expired ones are absent even before TTL deletes them.
    async fn credential_by_token(
        &self,
        hash: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<Option<Credential>>;
    /// The reader settings of a documentation or hub (`None` when it does not exist).
    async fn reader_settings(&self, org: OrgId, of: DocOrHub) -> Result<Option<ReaderSettings>>;
    /// Sets the given reader settings (and `modified_at`) of an existing documentation or hub, leaving the others
    /// as they are, and answers them all as stored; `NotFound` when it does not exist.
    async fn update_reader_settings(
        &self,
        org: OrgId,
        of: DocOrHub,
        sso_readers: Option<bool>,
        embed_origins: Option<&EmbedOrigins>,
        now: OffsetDateTime,
    ) -> Result<ReaderSettings>;
}
