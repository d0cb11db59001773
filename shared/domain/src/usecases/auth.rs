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
    store.principal_by_token(&TokenHash::of(token)).await?.ok_or(DomainError::Unauthorized)
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
        Err(DomainError::Forbidden("This action requires an organization token.".into()))
    }
}
