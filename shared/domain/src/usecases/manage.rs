//! Management: organizations, hubs, documentations, and their tokens (organization token only).

use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::*;
use crate::ports::Store;
use crate::token::{
    MintedToken, Principal, Scope, TokenHash, TokenKind, TokenOwner, check_format, mint,
};
use crate::usecases::auth::{MAX_TOKEN_LEN, MIN_TOKEN_LEN, require_org};
use crate::usecases::resolve::{resolve_doc, resolve_hub};

/// Maximum length of a display name, in characters.
pub const NAME_MAX: usize = 200;

/// Validates a display name (documentations, hubs, organizations): 1 to 200 characters after trimming, no control
/// characters, and none of the invisible or text-direction characters branch names refuse
/// ([`crate::branch_rules::display_unsafe`]), so a name cannot be made to look like another.
pub fn check_name(field: &str, name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > NAME_MAX || name.chars().any(char::is_control) {
        return Err(DomainError::invalid(
            field,
            format!("{field} must be 1 to {NAME_MAX} printable characters"),
        ));
    }
    if let Some(code) = crate::branch_rules::first_display_unsafe(name) {
        return Err(DomainError::invalid(
            field,
            format!(
                "{field} must not contain invisible or text-direction characters (found {code}); they make \
                 different names look the same"
            ),
        ));
    }
    Ok(name.to_owned())
}

fn pick_slug(name: &str, slug: Option<&str>) -> Result<Slug> {
    match slug.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => Slug::parse(s),
        None => Slug::from_name(name).ok_or_else(|| {
            DomainError::invalid(
                "slug",
                "the name has no letter or digit to build a slug from; pass a slug",
            )
        }),
    }
}

fn slug_taken(what: &str, slug: &Slug) -> DomainError {
    DomainError::invalid(
        "slug",
        format!("a {what} with slug '{slug}' already exists"),
    )
}

/// How the default organization's token was established.
#[derive(Debug)]
pub enum Bootstrap {
    /// A new organization and token were created; the secret must be shown once.
    Minted(Organization, MintedToken),
    /// A new organization was created with the operator-supplied token.
    CreatedWithGiven(Organization),
    /// The default organization already existed and the given token already works for it.
    Unchanged(OrgId),
    /// The default organization existed and its token was replaced by the operator-supplied one.
    Rotated(OrgId),
    /// The default organization existed and no token was supplied (its token was shown on first start).
    Existing(OrgId),
}

/// Ensures the installation has a default organization. `given` is an operator-chosen token
/// (`SPECPRESS_ORG_TOKEN`), at least 20 characters.
pub async fn bootstrap_default_org(
    store: &dyn Store,
    name: &str,
    given: Option<&str>,
    now: OffsetDateTime,
) -> Result<Bootstrap> {
    if let Some(t) = given
        && (t.len() < MIN_TOKEN_LEN
            || t.len() > MAX_TOKEN_LEN
            || t.chars().any(|c| c.is_whitespace()))
    {
        return Err(DomainError::invalid(
            "SPECPRESS_ORG_TOKEN",
            format!(
                "the token must be {MIN_TOKEN_LEN} to {MAX_TOKEN_LEN} characters without spaces"
            ),
        ));
    }
    // Tokens that look like ours are checked as ours are at every request (prefix, length, checksum): one that
    // would fail there is refused here, with the reason, rather than accepted and then refused on every call.
    if let Some(t) = given
        && t.starts_with("sp_")
        && check_format(t) != Some(TokenKind::Org)
    {
        return Err(DomainError::invalid(
            "SPECPRESS_ORG_TOKEN",
            "the token starts with `sp_`, the prefix of the tokens Specpress mints, but is not a valid organization \
             token (`sp_org_` followed by 32 random characters and a checksum). Give a token Specpress printed, or \
             choose a secret that does not start with `sp_`",
        ));
    }
    for _ in 0..3 {
        if let Some(org) = store.get_default_org().await? {
            return match given {
                None => Ok(Bootstrap::Existing(org)),
                Some(t) => {
                    let hash = TokenHash::of(t);
                    match store.principal_by_token(&hash).await? {
                        Some(p) if p.org_id == org && p.scope == Scope::Org => {
                            Ok(Bootstrap::Unchanged(org))
                        }
                        _ => {
                            store
                                .rotate_token(TokenOwner::Org(org), None, &hash, now)
                                .await?;
                            Ok(Bootstrap::Rotated(org))
                        }
                    }
                }
            };
        }
        let org = Organization {
            id: OrgId::new(),
            name: check_name("name", name)?,
            created_at: now,
        };
        let (hash, minted) = match given {
            Some(t) => (TokenHash::of(t), None),
            None => {
                let m = mint(TokenKind::Org);
                (m.hash.clone(), Some(m))
            }
        };
        match store.create_org(&org, &hash, true).await {
            Ok(()) => {
                return Ok(match minted {
                    Some(m) => Bootstrap::Minted(org, m),
                    None => Bootstrap::CreatedWithGiven(org),
                });
            }
            Err(DomainError::Conflict(_)) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(DomainError::unexpected(
        "could not establish the default organization",
    ))
}

/// Creates a new organization with a freshly minted token (operator command for deployed stacks).
pub async fn create_org(
    store: &dyn Store,
    name: &str,
    now: OffsetDateTime,
) -> Result<(Organization, MintedToken)> {
    let org = Organization {
        id: OrgId::new(),
        name: check_name("name", name)?,
        created_at: now,
    };
    let token = mint(TokenKind::Org);
    store.create_org(&org, &token.hash, false).await?;
    Ok((org, token))
}

/// Creates a hub (`POST /hubs`).
pub async fn create_hub(
    store: &dyn Store,
    p: &Principal,
    name: &str,
    slug: Option<&str>,
    description: Option<&str>,
    visibility: Visibility,
    now: OffsetDateTime,
) -> Result<(Hub, MintedToken)> {
    require_org(p)?;
    let name = check_name("name", name)?;
    let slug = pick_slug(&name, slug)?;
    let hub = Hub {
        id: HubId::new(),
        org_id: p.org_id,
        slug,
        name,
        description: description
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned),
        created_at: now,
        modified_at: now,
        visibility,
    };
    let token = mint(TokenKind::Hub);
    match store.create_hub(&hub, &token.hash).await {
        Err(DomainError::Conflict(ConflictKind::SlugTaken)) => Err(slug_taken("hub", &hub.slug)),
        Err(e) => Err(e),
        Ok(()) => Ok((hub, token)),
    }
}

/// Creates a documentation (`POST /docs`), optionally inside a hub.
pub async fn create_doc(
    store: &dyn Store,
    p: &Principal,
    name: &str,
    slug: Option<&str>,
    hub: Option<&str>,
    visibility: Visibility,
    now: OffsetDateTime,
) -> Result<(Documentation, MintedToken)> {
    require_org(p)?;
    let name = check_name("name", name)?;
    let slug = pick_slug(&name, slug)?;
    let hub_id = match hub.map(str::trim).filter(|h| !h.is_empty()) {
        Some(h) => Some(resolve_hub(store, p, h).await?.id),
        None => None,
    };
    let doc = Documentation {
        id: DocId::new(),
        org_id: p.org_id,
        hub_id,
        slug,
        name,
        default_branch: Slug::parse(DEFAULT_BRANCH)?,
        created_at: now,
        modified_at: now,
        never_subscribed: true,
        visibility,
        try_it: Default::default(),
    };
    let token = mint(TokenKind::Doc);
    match store.create_doc(&doc, &token.hash).await {
        Err(DomainError::Conflict(ConflictKind::SlugTaken)) => {
            Err(slug_taken("documentation", &doc.slug))
        }
        Err(e) => Err(e),
        Ok(()) => Ok((doc, token)),
    }
}

/// Lists documentations (`GET /docs`, optionally `?hub=`).
pub async fn list_docs(
    store: &dyn Store,
    p: &Principal,
    hub: Option<&str>,
) -> Result<Vec<Documentation>> {
    require_org(p)?;
    let hub_id = match hub.map(str::trim).filter(|h| !h.is_empty()) {
        Some(h) => Some(resolve_hub(store, p, h).await?.id),
        None => None,
    };
    store.list_docs(p.org_id, hub_id).await
}

/// Reads one documentation (`GET /docs/{doc}`): any token that reaches it.
pub async fn get_doc(store: &dyn Store, p: &Principal, key: &str) -> Result<Documentation> {
    resolve_doc(store, p, key.trim()).await
}

/// What readers meet of a documentation: [`Visibility::Private`] when it is private on its own or because its hub is
/// (`visibility` in the API is its own setting, what `PATCH` changes).
pub async fn effective_visibility(store: &dyn Store, doc: &Documentation) -> Result<Visibility> {
    let hub = match doc.hub_id {
        Some(h) => store.get_hub(doc.org_id, h).await?,
        None => None,
    };
    Ok(effective(doc, hub.as_ref()))
}

/// [`effective_visibility`] of each of `docs` (of organization `org`), with one read of the organization's hubs.
pub async fn effective_visibilities(
    store: &dyn Store,
    org: OrgId,
    docs: &[Documentation],
) -> Result<Vec<Visibility>> {
    let hubs = if docs.iter().any(|d| d.hub_id.is_some()) {
        store.list_hubs(org).await?
    } else {
        Vec::new()
    };
    Ok(docs
        .iter()
        .map(|d| effective(d, d.hub_id.and_then(|id| hubs.iter().find(|h| h.id == id))))
        .collect())
}

fn effective(doc: &Documentation, hub: Option<&Hub>) -> Visibility {
    if crate::usecases::public::is_private(doc, hub) {
        Visibility::Private
    } else {
        Visibility::Public
    }
}

/// Sets who may read a documentation's public pages (`PATCH /docs/{doc}`): an organization token, or the token of
/// the hub it belongs to. A documentation token may not change its own documentation's visibility (403); a
/// documentation out of the caller's reach is answered as absent (404).
pub async fn set_doc_visibility(
    store: &dyn Store,
    p: &Principal,
    key: &str,
    visibility: Visibility,
    now: OffsetDateTime,
) -> Result<Documentation> {
    let doc = resolve_doc(store, p, key.trim()).await?;
    if let Scope::Doc(_) = p.scope {
        return Err(DomainError::Forbidden(
            "Changing a documentation's visibility takes an organization token or the token of its hub.".into(),
        ));
    }
    if doc.visibility == visibility {
        return Ok(doc);
    }
    store
        .set_doc_visibility(doc.org_id, doc.id, visibility, now)
        .await
}

/// Sets whether and how readers may send requests from a documentation's operation pages (`PATCH /docs/{doc}`
/// `try_it`): like its visibility, an organization token or its hub's token (a documentation token may not turn on
/// a proxy that sends requests from this service, 403).
pub async fn set_doc_try_it(
    store: &dyn Store,
    p: &Principal,
    key: &str,
    try_it: TryIt,
    now: OffsetDateTime,
) -> Result<Documentation> {
    let doc = resolve_doc(store, p, key.trim()).await?;
    if let Scope::Doc(_) = p.scope {
        return Err(DomainError::Forbidden(
            "Changing a documentation's try_it takes an organization token or the token of its hub.".into(),
        ));
    }
    if doc.try_it == try_it {
        return Ok(doc);
    }
    store.set_doc_try_it(doc.org_id, doc.id, try_it, now).await
}

/// Sets who may read a hub's public page (`PATCH /hubs/{hub}`): an organization token or the hub's own token. A
/// private hub makes every documentation in it private as well.
pub async fn set_hub_visibility(
    store: &dyn Store,
    p: &Principal,
    key: &str,
    visibility: Visibility,
    now: OffsetDateTime,
) -> Result<Hub> {
    let hub = resolve_hub(store, p, key.trim()).await?;
    if hub.visibility == visibility {
        return Ok(hub);
    }
    store
        .set_hub_visibility(hub.org_id, hub.id, visibility, now)
        .await
}

/// What a rotation targets.
#[derive(Debug, Clone, Copy)]
pub enum RotateTarget<'a> {
    /// The organization's own token.
    Org,
    /// A hub's token (id or slug).
    Hub(&'a str),
    /// A documentation's token (id or slug).
    Doc(&'a str),
}

/// Most attempts of one rotation that keeps losing to concurrent rotations of the same token before it answers
/// `Conflict` (409): only reached with more than this many rotations of one token at the same moment.
pub const MAX_ROTATION_ATTEMPTS: usize = 8;

/// Replaces a token; the old one stops working at once. Returns the new secret (shown once).
///
/// `caller` is the hash of the organization token the request came with. Concurrent rotations are deterministic
/// (docs/auth.md, "Concurrent rotations"):
/// - the organization's own token ([`RotateTarget::Org`]) is replaced only if it is still `caller`: of two
///   rotations made with the same token, exactly one wins and the other answers 401, its token being gone;
/// - a hub's or documentation's token: a rotation that lost the race re-reads and applies after the winner, so both
///   answer 200 as if sent one after the other, and the token of the one applied last is the one that works;
/// - whenever the caller's own token was replaced meanwhile, the answer is 401, like any request made with it next.
pub async fn rotate_token(
    store: &dyn Store,
    p: &Principal,
    caller: &TokenHash,
    target: RotateTarget<'_>,
    now: OffsetDateTime,
) -> Result<MintedToken> {
    require_org(p)?;
    let (owner, current) = match target {
        RotateTarget::Org => (TokenOwner::Org(p.org_id), Some(caller)),
        RotateTarget::Hub(h) => (
            TokenOwner::Hub(p.org_id, resolve_hub(store, p, h).await?.id),
            None,
        ),
        RotateTarget::Doc(d) => (
            TokenOwner::Doc(p.org_id, resolve_doc(store, p, d).await?.id),
            None,
        ),
    };
    for _ in 0..MAX_ROTATION_ATTEMPTS {
        let token = mint(owner.kind());
        match store.rotate_token(owner, current, &token.hash, now).await {
            Ok(()) => return Ok(token),
            Err(DomainError::Conflict(_)) => {
                // Lost to a concurrent rotation. Whoever called with a token that no longer exists is answered as
                // every later request with it will be.
                match store.principal_by_token(caller).await? {
                    Some(q) if q.org_id == p.org_id && q.scope == Scope::Org => continue,
                    _ => return Err(DomainError::Unauthorized),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(DomainError::Conflict(ConflictKind::Stale))
}
