//! Authentication (token -> principal), reader sessions (sign-in, a session's reader, sign-out) and
//! authorization rules (parent tokens act on children).

use time::{Duration, OffsetDateTime};

use crate::error::{DomainError, Result};
use crate::model::{Documentation, Hub};
use crate::ports::{SessionStore, TokenStore};
use crate::session::{Session, SessionId};
use crate::token::{Principal, Scope, TokenHash, check_format};

/// Shortest accepted token (operator-chosen tokens via `SPECPRESS_ORG_TOKEN` must be at least this long).
pub const MIN_TOKEN_LEN: usize = 20;
/// Longest accepted token.
pub const MAX_TOKEN_LEN: usize = 256;

/// Resolves a presented token to its principal. `Unauthorized` for anything that is not a live token.
///
/// Tokens in our format with a wrong checksum are refused without a storage round trip. The lookup is by SHA-256,
/// so no secret is ever compared.
pub async fn authenticate<S: TokenStore + ?Sized>(store: &S, token: &str) -> Result<Principal> {
    if token.len() < MIN_TOKEN_LEN || token.len() > MAX_TOKEN_LEN {
        return Err(DomainError::Unauthorized);
    }
    if token.starts_with("sp_") && check_format(token).is_none() {
        return Err(DomainError::Unauthorized);
    }
    store
        .principal_by_token(&TokenHash::of(token))
        .await?
        .ok_or(DomainError::Unauthorized)
}

/// Signs a reader in: the token must be live (`Unauthorized` otherwise); a new session naming it is stored, lasting
/// `life` from `now`.
pub async fn start_session<S: TokenStore + SessionStore + ?Sized>(
    store: &S,
    token: &str,
    now: OffsetDateTime,
    life: Duration,
) -> Result<(Principal, Session)> {
    let principal = authenticate(store, token).await?;
    let session = Session {
        id: SessionId::new(),
        token_hash: TokenHash::of(token),
        created_at: now,
        expires_at: now + life,
    };
    store.create_session(&session).await?;
    Ok((principal, session))
}

/// The reader of a session: `None` when the session is gone (signed out, expired) or its token no longer resolves
/// (rotated, or revoked with its documentation or hub), which ends every session of that token at once.
pub async fn session_principal<S: TokenStore + SessionStore + ?Sized>(
    store: &S,
    id: &SessionId,
    now: OffsetDateTime,
) -> Result<Option<Principal>> {
    match store.get_session(id, now).await? {
        Some(session) => store.principal_by_token(&session.token_hash).await,
        None => Ok(None),
    }
}

/// Signs out: the session is deleted, so a copy of its cookie opens nothing any more.
pub async fn end_session<S: SessionStore + ?Sized>(store: &S, id: &SessionId) -> Result<()> {
    store.delete_session(id).await
}

/// True when the principal may act on the documentation (its org; its hub; or that very doc).
pub fn can_access_doc(p: &Principal, doc: &Documentation) -> bool {
    if p.org_id != doc.org_id {
        return false;
    }
    match p.scope {
        Scope::Org => true,
        Scope::Hub(h) => doc.hub_id == Some(h),
        Scope::Doc(d) => doc.id == d,
    }
}

/// True when the principal may act on the hub (its org, or that hub).
pub fn can_access_hub(p: &Principal, hub: &Hub) -> bool {
    if p.org_id != hub.org_id {
        return false;
    }
    match p.scope {
        Scope::Org => true,
        Scope::Hub(h) => hub.id == h,
        Scope::Doc(_) => false,
    }
}

/// Refuses anything but an organization token.
pub fn require_org(p: &Principal) -> Result<()> {
    if p.scope == Scope::Org {
        Ok(())
    } else {
        Err(DomainError::Forbidden(
            "This action requires an organization token.".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocId, HubId, OrgId, Slug};
    use time::OffsetDateTime;

    fn doc(org: OrgId, hub: Option<HubId>) -> Documentation {
        Documentation {
            id: DocId::new(),
            org_id: org,
            hub_id: hub,
            slug: Slug::parse("d").unwrap(),
            name: "d".into(),
            default_branch: Slug::parse("main").unwrap(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            modified_at: OffsetDateTime::UNIX_EPOCH,
            never_subscribed: true,
            visibility: crate::model::Visibility::Public,
            try_it: Default::default(),
        }
    }

    #[test]
    fn parents_reach_children_and_nothing_crosses_organizations_or_siblings() {
        let org = OrgId::new();
        let hub = HubId::new();
        let in_hub = doc(org, Some(hub));
        let sibling = doc(org, Some(hub));
        let standalone = doc(org, None);
        let foreign = doc(OrgId::new(), Some(hub));
        let org_p = Principal {
            org_id: org,
            scope: Scope::Org,
        };
        let hub_p = Principal {
            org_id: org,
            scope: Scope::Hub(hub),
        };
        let doc_p = Principal {
            org_id: org,
            scope: Scope::Doc(in_hub.id),
        };
        assert!(can_access_doc(&org_p, &in_hub) && can_access_doc(&org_p, &standalone));
        assert!(can_access_doc(&hub_p, &in_hub) && can_access_doc(&hub_p, &sibling));
        assert!(!can_access_doc(&hub_p, &standalone));
        assert!(can_access_doc(&doc_p, &in_hub));
        assert!(
            !can_access_doc(&doc_p, &sibling),
            "a doc token never reaches another doc"
        );
        assert!(!can_access_doc(&doc_p, &standalone));
        for p in [&org_p, &hub_p, &doc_p] {
            assert!(
                !can_access_doc(p, &foreign),
                "no token reaches another organization"
            );
        }
        assert!(
            require_org(&org_p).is_ok()
                && require_org(&hub_p).is_err()
                && require_org(&doc_p).is_err()
        );
    }
}
