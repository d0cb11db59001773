//! The subscriptions API (`/docs/{doc}/webhooks`, `/hubs/{hub}/webhooks`): documentation, hub or organization
//! tokens manage the webhooks of the documentations they reach; hub or organization tokens those of the hubs they
//! reach (a hub's subscription receives the events of every documentation of the hub). Secrets are generated here, shown once (on creation and on
//! rotation), and stored sealed.

use specpress_webhook::WebhookSecret;
use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::{BranchName, DocId, Documentation, Hub, OrgId};
use crate::notify::Filter;
use crate::token::Principal;
use crate::usecases::delivery::DeliveryService;
use crate::usecases::resolve::{resolve_doc, resolve_hub};
use crate::webhooks::*;

/// Longest description.
pub const MAX_DESCRIPTION_LEN: usize = 1000;
/// Most branch filters per subscription.
pub const MAX_BRANCH_FILTERS: usize = 50;

/// `POST /docs/{doc}/webhooks` body.
#[derive(Debug, Clone, Default)]
pub struct CreateSubscription {
    /// Endpoint URL.
    pub url: String,
    /// Free text.
    pub description: Option<String>,
    /// Branch names; empty or absent means every branch.
    pub branches: Option<Vec<String>>,
    /// Which releases and changes; absent: everything.
    pub filter: Option<Filter>,
    /// `standard` (absent), `slack` or `teams`.
    pub format: Option<String>,
}

/// `PATCH /docs/{doc}/webhooks/{id}` body: absent fields are unchanged.
#[derive(Debug, Clone, Default)]
pub struct UpdateSubscription {
    /// New URL.
    pub url: Option<String>,
    /// New description (`Some(None)` clears it).
    pub description: Option<Option<String>>,
    /// New branch filter.
    pub branches: Option<Vec<String>>,
    /// New filter (replaces the old one as a whole).
    pub filter: Option<Filter>,
    /// New format (a change of format needs the `url` of the new format too).
    pub format: Option<String>,
    /// Enable or disable. Enabling clears an automatic disable and its failure streak.
    pub enabled: Option<bool>,
}

/// A subscription and, on creation and rotation only, its new secret's text.
#[derive(Debug, Clone)]
pub struct SubscriptionView {
    /// The subscription.
    pub subscription: Subscription,
    /// The `whsec_...` text, shown once.
    pub secret: Option<String>,
}

/// Whose webhooks: a documentation's or a hub's, by id or slug.
#[derive(Debug, Clone, Copy)]
pub enum Owner<'a> {
    /// `/docs/{doc}/webhooks`.
    Doc(&'a str),
    /// `/hubs/{hub}/webhooks`.
    Hub(&'a str),
}

impl<'a> From<&'a str> for Owner<'a> {
    fn from(doc: &'a str) -> Self {
        Owner::Doc(doc)
    }
}

impl<'a> From<&'a String> for Owner<'a> {
    fn from(doc: &'a String) -> Self {
        Owner::Doc(doc)
    }
}

/// The documentation or hub found.
enum Target {
    Doc(Documentation),
    Hub(Hub),
}

impl Target {
    /// The key its subscriptions are stored under (a hub's id for a hub).
    fn key(&self) -> DocId {
        match self {
            Target::Doc(d) => d.id,
            Target::Hub(h) => DocId(h.id.0),
        }
    }

    fn org(&self) -> OrgId {
        match self {
            Target::Doc(d) => d.org_id,
            Target::Hub(h) => h.org_id,
        }
    }

    fn is_hub(&self) -> bool {
        matches!(self, Target::Hub(_))
    }
}

async fn resolve(svc: &DeliveryService, p: &Principal, owner: Owner<'_>) -> Result<Target> {
    Ok(match owner {
        Owner::Doc(doc) => Target::Doc(resolve_doc(svc.store.as_ref(), p, doc).await?),
        Owner::Hub(hub) => Target::Hub(resolve_hub(svc.store.as_ref(), p, hub).await?),
    })
}

fn not_found() -> DomainError {
    DomainError::NotFound("Webhook not found".into())
}

async fn check_url(svc: &DeliveryService, url: &str) -> Result<String> {
    let url = url.trim();
    if url.is_empty() {
        return Err(DomainError::invalid("url", "url is required"));
    }
    if url.len() > MAX_URL_LEN {
        return Err(DomainError::invalid(
            "url",
            format!("url must be at most {MAX_URL_LEN} characters"),
        ));
    }
    svc.sender
        .check_url(url)
        .await
        .map_err(|m| DomainError::invalid("url", m))?;
    Ok(url.to_owned())
}

fn check_format(format: Option<String>) -> Result<Option<Format>> {
    format
        .map(|f| {
            Format::parse(f.trim()).ok_or_else(|| {
                DomainError::invalid(
                    "format",
                    "format must be one of `standard`, `slack`, `teams`",
                )
            })
        })
        .transpose()
}

fn check_filter(filter: Filter) -> Result<Filter> {
    filter
        .validate()
        .map_err(|m| DomainError::invalid("filter", m))?;
    Ok(filter)
}

/// Where a subscription of `format` posts: checked, then (for Slack and Teams) sealed and masked. A Slack or Teams
/// URL must use https (plain http only to a loopback address, for local development; the sender refuses loopback
/// unless it is allowed).
async fn place_url(
    svc: &DeliveryService,
    sub: &mut Subscription,
    format: Format,
    url: &str,
) -> Result<()> {
    let url = check_url(svc, url).await?;
    if format.secret_url() {
        let lower = url.to_ascii_lowercase();
        let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"]
            .iter()
            .any(|p| lower.starts_with(p));
        if !lower.starts_with("https://") && !loopback {
            return Err(DomainError::invalid(
                "url",
                format!("a {} webhook URL must use https", format.as_str()),
            ));
        }
        sub.sealed_url = Some(svc.sealer.seal_url(sub.id, &url)?);
        sub.url = mask_url(&url);
    } else {
        sub.sealed_url = None;
        sub.url = url;
    }
    sub.format = format;
    Ok(())
}

fn check_description(d: Option<String>) -> Result<Option<String>> {
    match d.map(|d| d.trim().to_owned()).filter(|d| !d.is_empty()) {
        Some(d) if d.chars().count() > MAX_DESCRIPTION_LEN => Err(DomainError::invalid(
            "description",
            format!("description must be at most {MAX_DESCRIPTION_LEN} characters"),
        )),
        Some(d) if d.chars().any(|c| c.is_control() && c != '\n' && c != '\t') => {
            Err(DomainError::invalid(
                "description",
                "description must not contain control characters",
            ))
        }
        other => Ok(other),
    }
}

fn check_branches(branches: Vec<String>) -> Result<Vec<String>> {
    if branches.len() > MAX_BRANCH_FILTERS {
        return Err(DomainError::invalid(
            "branches",
            format!("at most {MAX_BRANCH_FILTERS} branches"),
        ));
    }
    let mut slugs = Vec::new();
    for b in branches {
        let name = BranchName::parse(&b).map_err(|e| match e {
            DomainError::Invalid { message, .. } => DomainError::invalid("branches", message),
            other => other,
        })?;
        let slug = name.slug().as_str().to_owned();
        if !slugs.contains(&slug) {
            slugs.push(slug);
        }
    }
    Ok(slugs)
}

async fn load(
    svc: &DeliveryService,
    p: &Principal,
    owner: Owner<'_>,
    id: &str,
) -> Result<(Target, Subscription)> {
    let target = resolve(svc, p, owner).await?;
    let id = SubscriptionId::parse(id).ok_or_else(not_found)?;
    let sub = svc
        .store
        .get_subscription(target.key(), id)
        .await?
        .ok_or_else(not_found)?;
    if sub.org_id != target.org() || sub.hub != target.is_hub() {
        return Err(not_found());
    }
    Ok((target, sub))
}

/// Creates a subscription with a fresh secret.
pub async fn create<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    input: CreateSubscription,
) -> Result<SubscriptionView> {
    let target = resolve(svc, p, owner.into()).await?;
    let format = check_format(input.format)?.unwrap_or_default();
    let filter = check_filter(input.filter.unwrap_or_default())?;
    let description = check_description(input.description)?;
    let branches = check_branches(input.branches.unwrap_or_default())?;
    if svc.store.list_subscriptions(target.key()).await?.len() >= MAX_SUBSCRIPTIONS_PER_DOC {
        return Err(DomainError::invalid(
            "url",
            format!("a documentation or hub can have at most {MAX_SUBSCRIPTIONS_PER_DOC} webhooks"),
        ));
    }
    let now = OffsetDateTime::now_utc();
    let id = SubscriptionId::new();
    let secret = WebhookSecret::generate();
    let mut sub = Subscription {
        id,
        org_id: target.org(),
        doc_id: target.key(),
        url: String::new(),
        sealed_url: None,
        format,
        filter,
        hub: target.is_hub(),
        description,
        branches,
        enabled: true,
        disabled_reason: None,
        secrets: vec![StoredSecret {
            sealed: svc.sealer.seal(id, &secret)?,
            created_at: now,
            expires_at: None,
        }],
        failing_since: None,
        created_at: now,
        updated_at: now,
    };
    place_url(svc, &mut sub, format, &input.url).await?;
    svc.store.create_subscription(&sub).await?;
    Ok(SubscriptionView {
        subscription: sub,
        secret: Some(secret.expose_text().to_owned()),
    })
}

/// A documentation's (or hub's) subscriptions.
pub async fn list<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
) -> Result<Vec<Subscription>> {
    let target = resolve(svc, p, owner.into()).await?;
    let mut subs = svc.store.list_subscriptions(target.key()).await?;
    subs.retain(|s| s.org_id == target.org() && s.hub == target.is_hub());
    Ok(subs)
}

/// One subscription.
pub async fn get<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    id: &str,
) -> Result<Subscription> {
    Ok(load(svc, p, owner.into(), id).await?.1)
}

/// Changes url, description, branches or enabled.
pub async fn update<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    id: &str,
    input: UpdateSubscription,
) -> Result<Subscription> {
    let (_, mut sub) = load(svc, p, owner.into(), id).await?;
    let format = check_format(input.format)?;
    match (input.url, format) {
        (Some(url), f) => {
            let f = f.unwrap_or(sub.format);
            place_url(svc, &mut sub, f, &url).await?;
        }
        (None, Some(f)) if f != sub.format => {
            return Err(DomainError::invalid(
                "url",
                "changing the format needs the url of the new format",
            ));
        }
        (None, _) => {}
    }
    if let Some(f) = input.filter {
        sub.filter = check_filter(f)?;
    }
    if let Some(d) = input.description {
        sub.description = check_description(d)?;
    }
    if let Some(b) = input.branches {
        sub.branches = check_branches(b)?;
    }
    if let Some(enabled) = input.enabled {
        if enabled && !sub.enabled {
            sub.disabled_reason = None;
        }
        sub.enabled = enabled;
    }
    sub.updated_at = OffsetDateTime::now_utc();
    svc.store
        .update_subscription(&sub)
        .await
        .map_err(|e| match e {
            DomainError::Conflict(ConflictKind::Stale) => not_found(),
            other => other,
        })?;
    if input.enabled == Some(true) {
        // A re-enabled endpoint starts with a clean failure streak.
        svc.store
            .record_endpoint_outcome(sub.doc_id, sub.id, true, sub.updated_at)
            .await?;
        sub.failing_since = None;
    }
    Ok(sub)
}

/// Deletes a subscription (its deliveries expire with their TTL).
pub async fn delete<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    id: &str,
) -> Result<()> {
    let (target, sub) = load(svc, p, owner.into(), id).await?;
    if svc.store.delete_subscription(target.key(), sub.id).await? {
        Ok(())
    } else {
        Err(not_found())
    }
}

/// Rotates the secret: the new one signs from now on, the previous one keeps signing for 24 hours.
pub async fn rotate_secret<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    id: &str,
) -> Result<SubscriptionView> {
    let (_, mut sub) = load(svc, p, owner.into(), id).await?;
    let now = OffsetDateTime::now_utc();
    let secret = WebhookSecret::generate();
    let mut secrets = vec![StoredSecret {
        sealed: svc.sealer.seal(sub.id, &secret)?,
        created_at: now,
        expires_at: None,
    }];
    for mut old in std::mem::take(&mut sub.secrets)
        .into_iter()
        .filter(|s| s.is_active(now))
    {
        let until = now + SECRET_OVERLAP;
        old.expires_at = Some(old.expires_at.map_or(until, |e| e.min(until)));
        secrets.push(old);
    }
    // Rotating repeatedly must not grow the signature list without bound.
    secrets.truncate(4);
    sub.secrets = secrets;
    sub.updated_at = now;
    svc.store.update_subscription(&sub).await?;
    Ok(SubscriptionView {
        subscription: sub,
        secret: Some(secret.expose_text().to_owned()),
    })
}

/// Sends a `ping` to the subscription (even a disabled one is refused: enable it first).
pub async fn test<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    id: &str,
) -> Result<Delivery> {
    let (target, sub) = load(svc, p, owner.into(), id).await?;
    if !sub.enabled {
        return Err(DomainError::invalid(
            "enabled",
            "the webhook is disabled; enable it before testing",
        ));
    }
    match &target {
        Target::Doc(doc) => svc.ping(doc, &sub).await,
        Target::Hub(hub) => svc.ping_hub(hub, &sub).await,
    }
}

/// A subscription's deliveries, newest first.
pub async fn deliveries<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    id: &str,
) -> Result<Vec<Delivery>> {
    let (_, sub) = load(svc, p, owner.into(), id).await?;
    svc.store.list_deliveries(sub.id).await
}

/// Re-sends a finished delivery (same `webhook-id`, same body, new attempts).
pub async fn redeliver<'a>(
    svc: &DeliveryService,
    p: &Principal,
    owner: impl Into<Owner<'a>>,
    id: &str,
    delivery: &str,
) -> Result<Delivery> {
    let (_, sub) = load(svc, p, owner.into(), id).await?;
    let missing = || DomainError::NotFound("Delivery not found".into());
    let did = DeliveryId::parse(delivery).ok_or_else(missing)?;
    let d = svc
        .store
        .get_delivery(did)
        .await?
        .filter(|d| d.subscription_id == sub.id)
        .ok_or_else(missing)?;
    if !sub.enabled {
        return Err(DomainError::invalid(
            "enabled",
            "the webhook is disabled; enable it before redelivering",
        ));
    }
    if d.status == DeliveryStatus::Pending {
        return Err(DomainError::Conflict(ConflictKind::Stale));
    }
    // The restarted delivery (pending), not a read after queueing that may race the consumer's attempt.
    svc.redeliver(did).await?.ok_or_else(missing)
}
