//! Readers without deploy rights (issue 40): reader tokens (`POST/GET /docs/{doc}/reader_tokens`, the hubs' ones,
//! `DELETE .../{id}`), what a credential presented on a reader surface is ([`reader_credential`],
//! [`session_credential`]), reader sessions started with any reader credential ([`start_reader_session`]), and the
//! reader settings of documentations and hubs (`sso_readers`, `embed_origins`).
//!
//! A reader token never reaches the API: `usecases::auth::authenticate` resolves only organization, hub and
//! documentation tokens (the storage port answers a reader token as no token there).

use time::{Duration, OffsetDateTime};

use crate::embed::EmbedOrigins;
use crate::error::{DomainError, Result};
use crate::model::DocOrHub;
use crate::ports::Store;
use crate::readers::{Credential, MAX_READER_TOKENS, ReaderSettings, ReaderToken, ReaderTokenId};
use crate::session::{Session, SessionId};
use crate::token::{MintedToken, Principal, Scope, TokenHash, TokenKind, check_format, mint};
use crate::usecases::auth::{MAX_TOKEN_LEN, MIN_TOKEN_LEN};
use crate::usecases::manage::check_name;
use crate::usecases::resolve::{resolve_doc, resolve_hub};

/// A documentation or hub as an API path names it (id or slug).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// `/docs/{doc}/...`.
    Doc(&'a str),
    /// `/hubs/{hub}/...`.
    Hub(&'a str),
}

/// Resolves a target within the caller's reach: a documentation for any token that reaches it, a hub for the
/// organization's token or its own (the same 404 as an absent one otherwise).
pub async fn resolve_target(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
) -> Result<DocOrHub> {
    Ok(match target {
        Target::Doc(key) => DocOrHub::Doc(resolve_doc(store, p, key.trim()).await?.id),
        Target::Hub(key) => DocOrHub::Hub(resolve_hub(store, p, key.trim()).await?.id),
    })
}

/// Creates a reader token for what `target` names (`POST .../reader_tokens {name, expires_at?}`): any token that
/// reaches it (organization, its hub's, its own). `expires_at`, when given, must be in the future. At most
/// [`MAX_READER_TOKENS`] live ones per documentation or hub. The secret is in the answer only.
pub async fn create_reader_token(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
    name: &str,
    expires_at: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> Result<(ReaderToken, MintedToken)> {
    let scope = resolve_target(store, p, target).await?;
    let name = check_name("name", name)?;
    if let Some(e) = expires_at
        && e <= now
    {
        return Err(DomainError::invalid(
            "expires_at",
            "expires_at must be in the future",
        ));
    }
    let live = store
        .list_reader_tokens(p.org_id, scope)
        .await?
        .iter()
        .filter(|t| t.is_live(now))
        .count();
    if live >= MAX_READER_TOKENS {
        return Err(DomainError::invalid(
            "name",
            format!(
                "a {} has at most {MAX_READER_TOKENS} reader tokens; revoke one first",
                match scope {
                    DocOrHub::Doc(_) => "documentation",
                    DocOrHub::Hub(_) => "hub",
                }
            ),
        ));
    }
    let token = ReaderToken {
        id: ReaderTokenId::new(),
        org_id: p.org_id,
        scope,
        name,
        created_at: now,
        expires_at,
        last_used_at: None,
    };
    let minted = mint(TokenKind::Read);
    store.create_reader_token(&token, &minted.hash).await?;
    Ok((token, minted))
}

/// The live reader tokens of what `target` names, oldest first (never a secret).
pub async fn list_reader_tokens(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
    now: OffsetDateTime,
) -> Result<Vec<ReaderToken>> {
    let scope = resolve_target(store, p, target).await?;
    let mut tokens = store.list_reader_tokens(p.org_id, scope).await?;
    tokens.retain(|t| t.is_live(now));
    Ok(tokens)
}

/// Revokes a reader token (`DELETE .../reader_tokens/{id}`): from this moment it opens nothing, and the sessions
/// started with it end. `NotFound` for an unknown id, or one of another documentation or hub.
pub async fn revoke_reader_token(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
    id: &str,
) -> Result<()> {
    let scope = resolve_target(store, p, target).await?;
    let not_found = || DomainError::NotFound("Reader token not found".into());
    let id = ReaderTokenId::parse(id.trim()).ok_or_else(not_found)?;
    if store.revoke_reader_token(p.org_id, scope, id).await? {
        Ok(())
    } else {
        Err(not_found())
    }
}

/// What the credential with this hash is, when live at `now`; a reader token's use is recorded (hourly), a
/// provider grant is checked against the organization's current provider settings.
async fn live_credential(
    store: &dyn Store,
    hash: &TokenHash,
    now: OffsetDateTime,
) -> Result<Option<Credential>> {
    match store.credential_by_token(hash, now).await? {
        Some(Credential::ReaderToken(t)) => {
            if !t.is_live(now) {
                return Ok(None);
            }
            if t.needs_touch(now)
                && let Err(e) = store.touch_reader_token(&t, hash, now).await
            {
                // The read goes on: a missed "last used" is not worth refusing a reader.
                tracing::warn!(error = %e, "recording a reader token's use failed");
            }
            Ok(Some(Credential::ReaderToken(t)))
        }
        Some(Credential::Sso(grant)) => {
            let settings = store.get_sso(grant.org_id).await?;
            Ok(grant
                .still_admitted(settings.as_ref(), now)
                .then_some(Credential::Sso(grant)))
        }
        other => Ok(other),
    }
}

/// What a token presented on a reader surface (`Authorization: Token ...`) is: `None` for anything that is not a
/// live token (checked for shape and checksum first, without a storage read).
pub async fn reader_credential(
    store: &dyn Store,
    token: &str,
    now: OffsetDateTime,
) -> Result<Option<Credential>> {
    if token.len() < MIN_TOKEN_LEN || token.len() > MAX_TOKEN_LEN {
        return Ok(None);
    }
    match check_format(token) {
        // Only organization, hub, documentation and reader tokens open pages: an MCP server's token has no item.
        Some(TokenKind::Mcp) => return Ok(None),
        None if token.starts_with("sp_") => return Ok(None),
        _ => {}
    }
    live_credential(store, &TokenHash::of(token), now).await
}

/// Signs a reader in with any reader credential (an organization, hub, documentation or reader token):
/// `Unauthorized` unless it is live. The session lasts `life`, and no longer than a reader token's own expiry.
pub async fn start_reader_session(
    store: &dyn Store,
    token: &str,
    now: OffsetDateTime,
    life: Duration,
) -> Result<(Credential, Session)> {
    let credential = reader_credential(store, token, now)
        .await?
        .ok_or(DomainError::Unauthorized)?;
    let mut expires_at = now + life;
    if let Credential::ReaderToken(t) = &credential
        && let Some(e) = t.expires_at
    {
        expires_at = expires_at.min(e);
    }
    let session = Session {
        id: SessionId::new(),
        token_hash: TokenHash::of(token),
        created_at: now,
        expires_at,
    };
    store.create_session(&session).await?;
    Ok((credential, session))
}

/// The reader of a session: `None` when the session is gone (signed out, expired) or its credential no longer
/// opens anything (a token rotated or revoked, a reader token revoked or expired, a provider removed, replaced, or
/// no longer admitting the reader).
pub async fn session_credential(
    store: &dyn Store,
    id: &SessionId,
    now: OffsetDateTime,
) -> Result<Option<Credential>> {
    match store.get_session(id, now).await? {
        Some(session) => live_credential(store, &session.token_hash, now).await,
        None => Ok(None),
    }
}

/// The reader settings of what `target` names (any token that reaches it).
pub async fn reader_settings(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
) -> Result<ReaderSettings> {
    let of = resolve_target(store, p, target).await?;
    store
        .reader_settings(p.org_id, of)
        .await?
        .ok_or_else(|| DomainError::NotFound("Not found".into()))
}

/// Changes reader settings (`PATCH /docs/{doc}` and `/hubs/{hub}` with `sso_readers` and/or `embed_origins`): like
/// visibility, an organization token or the hub's token (for the hub and its documentations); a documentation
/// token gets 403. `embed_origins` is checked and normalized ([`EmbedOrigins::parse`]).
pub async fn update_reader_settings(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
    sso_readers: Option<bool>,
    embed_origins: Option<&[String]>,
    now: OffsetDateTime,
) -> Result<ReaderSettings> {
    let of = resolve_target(store, p, target).await?;
    if let Scope::Doc(_) = p.scope {
        return Err(DomainError::Forbidden(
            "Changing who reads a documentation takes an organization token or the token of its hub.".into(),
        ));
    }
    let origins = embed_origins
        .map(|o| EmbedOrigins::parse("embed_origins", o))
        .transpose()?;
    store
        .update_reader_settings(p.org_id, of, sso_readers, origins.as_ref(), now)
        .await
}
