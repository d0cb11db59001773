//! Authentication (token -> principal) and authorization rules (parent tokens act on children).

use crate::error::{DomainError, Result};
use crate::model::{Documentation, Hub};
use crate::ports::TokenStore;
use crate::token::{Principal, Scope, TokenHash, check_format};

/// Shortest accepted token (operator-chosen tokens via `SPECPRESS_ORG_TOKEN` must be at least this long).
pub const MIN_TOKEN_LEN: usize = 20;
/// Longest accepted token.
pub const MAX_TOKEN_LEN: usize = 256;

/// Resolves a presented token to its principal. `Unauthorized` for anything that is not a live token.
///
/// Tokens in our format with a wrong checksum are refused without a storage round trip. The lookup is by SHA-256,
/// so no secret is ever compared.
pub async fn authenticate(store: &dyn TokenStore, token: &str) -> Result<Principal> {
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
