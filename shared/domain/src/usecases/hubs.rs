//! Hubs (bump-api.md §3.8): `GET /hubs` (organization token) and `GET /hubs/{hub}` (hub or organization token),
//! with each documentation's version and specification type taken from its default branch's head.

use time::OffsetDateTime;

use crate::error::Result;
use crate::model::{Documentation, Hub, Version};
use crate::ports::Store;
use crate::token::Principal;
use crate::usecases::auth::require_org;
use crate::usecases::resolve::resolve_hub;

/// All hubs of the caller's organization, by slug. Organization token only.
pub async fn list_hubs(store: &dyn Store, p: &Principal) -> Result<Vec<Hub>> {
    require_org(p)?;
    store.list_hubs(p.org_id).await
}

/// One documentation of a hub and the head of its default branch (if anything was published).
#[derive(Debug, Clone)]
pub struct HubApi {
    /// The documentation.
    pub doc: Documentation,
    /// The default branch's head version.
    pub head: Option<Version>,
}

/// A hub and its documentations.
#[derive(Debug, Clone)]
pub struct HubWithApis {
    /// The hub.
    pub hub: Hub,
    /// Its documentations, by slug.
    pub apis: Vec<HubApi>,
}

/// Resolves a hub the caller may see (hub token of that hub, or organization token).
pub async fn get_hub(store: &dyn Store, p: &Principal, key: &str) -> Result<Hub> {
    resolve_hub(store, p, key.trim()).await
}

/// The head of a documentation's default branch.
pub async fn default_head(
    store: &dyn Store,
    doc: &Documentation,
    now: OffsetDateTime,
) -> Result<Option<Version>> {
    let Some(branch) = store.get_branch(doc.id, &doc.default_branch).await? else {
        return Ok(None);
    };
    match branch.head {
        Some(h) => store.get_version(h.version_id, now).await,
        None => Ok(None),
    }
}

/// The documentations of a hub with their default-branch heads, by slug.
pub async fn hub_apis(store: &dyn Store, hub: &Hub, now: OffsetDateTime) -> Result<Vec<HubApi>> {
    let docs = store.list_docs(hub.org_id, Some(hub.id)).await?;
    let mut apis = Vec::with_capacity(docs.len());
    for doc in docs {
        let head = default_head(store, &doc, now).await?;
        apis.push(HubApi { doc, head });
    }
    Ok(apis)
}

/// `GET /hubs/{hub}`: the hub and every documentation in it.
pub async fn hub_with_apis(
    store: &dyn Store,
    p: &Principal,
    key: &str,
    now: OffsetDateTime,
) -> Result<HubWithApis> {
    let hub = get_hub(store, p, key).await?;
    let apis = hub_apis(store, &hub, now).await?;
    Ok(HubWithApis { hub, apis })
}
