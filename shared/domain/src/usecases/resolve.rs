//! Finding hubs and documentations by "UUID or slug", as the API's `documentation` and `hub` fields allow.
//! Objects outside the caller's reach are reported exactly like absent ones.

use crate::error::{DomainError, Result};
use crate::model::{DocId, Documentation, Hub, HubId, Slug};
use crate::ports::{DocStore, HubStore};
use crate::token::Principal;
use crate::usecases::auth::{can_access_doc, can_access_hub};

/// Result of looking a documentation up.
#[derive(Debug, Clone)]
pub enum DocLookup {
    /// Found and accessible.
    Found(Documentation),
    /// No such documentation in the organization.
    Absent,
    /// Exists but the caller may not see it (answer as if absent, never create over it).
    Hidden,
}

/// Looks up a hub by id or slug; `NotFound("Hub not found")` when absent or out of reach.
pub async fn resolve_hub(store: &dyn HubStore, p: &Principal, key: &str) -> Result<Hub> {
    let not_found = || DomainError::NotFound("Hub not found".into());
    let hub = match HubId::parse(key) {
        Some(id) => store.get_hub(p.org_id, id).await?,
        None => match Slug::parse(key) {
            Ok(slug) => store.hub_by_slug(p.org_id, &slug).await?,
            Err(_) => None,
        },
    };
    match hub {
        Some(h) if can_access_hub(p, &h) => Ok(h),
        _ => Err(not_found()),
    }
}

/// Looks up a documentation by id or slug, checking the caller's reach and, if given, that it is in `hub`.
pub async fn find_doc(
    store: &dyn DocStore,
    p: &Principal,
    key: &str,
    hub: Option<&Hub>,
) -> Result<DocLookup> {
    let doc = match DocId::parse(key) {
        Some(id) => store.get_doc(p.org_id, id).await?,
        None => match Slug::parse(key) {
            Ok(slug) => store.doc_by_slug(p.org_id, &slug).await?,
            Err(_) => None,
        },
    };
    Ok(match doc {
        None => DocLookup::Absent,
        Some(d) if !can_access_doc(p, &d) => DocLookup::Hidden,
        Some(d) if hub.is_some_and(|h| d.hub_id != Some(h.id)) => DocLookup::Hidden,
        Some(d) => DocLookup::Found(d),
    })
}

/// Like [`find_doc`] but `NotFound` unless found.
pub async fn resolve_doc(store: &dyn DocStore, p: &Principal, key: &str) -> Result<Documentation> {
    match find_doc(store, p, key, None).await? {
        DocLookup::Found(d) => Ok(d),
        _ => Err(DomainError::NotFound("Documentation does not exist".into())),
    }
}

/// Like [`resolve_hub`], but a documentation token may also name the hub its own documentation belongs to
/// (bump-cli users pass `--hub` together with a documentation token).
pub async fn resolve_hub_in_scope(
    hubs: &dyn HubStore,
    docs: &dyn DocStore,
    p: &Principal,
    key: &str,
) -> Result<Hub> {
    let crate::token::Scope::Doc(own) = p.scope else {
        return resolve_hub(hubs, p, key).await;
    };
    let not_found = || DomainError::NotFound("Hub not found".into());
    let hub = match HubId::parse(key) {
        Some(id) => hubs.get_hub(p.org_id, id).await?,
        None => match Slug::parse(key) {
            Ok(slug) => hubs.hub_by_slug(p.org_id, &slug).await?,
            Err(_) => None,
        },
    }
    .ok_or_else(not_found)?;
    match docs.get_doc(p.org_id, own).await? {
        Some(d) if d.hub_id == Some(hub.id) => Ok(hub),
        _ => Err(not_found()),
    }
}
