//! The subscriptions API (`/docs/{doc}/webhooks`): documentation, hub or organization tokens manage the
//! webhooks of the documentations they reach. Secrets are generated here, shown once (on creation and on
//! rotation), and stored sealed.

use specpress_webhook::WebhookSecret;
use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::{BranchName, Documentation};
use crate::token::Principal;
use crate::usecases::delivery::DeliveryService;
use crate::usecases::resolve::resolve_doc;
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
    doc: &str,
    id: &str,
) -> Result<(Documentation, Subscription)> {
    let doc = resolve_doc(svc.store.as_ref(), p, doc).await?;
    let id = SubscriptionId::parse(id).ok_or_else(not_found)?;
    let sub = svc
        .store
        .get_subscription(doc.id, id)
        .await?
        .ok_or_else(not_found)?;
    if sub.org_id != doc.org_id {
        return Err(not_found());
    }
    Ok((doc, sub))
}

/// Creates a subscription with a fresh secret.
pub async fn create(
    svc: &DeliveryService,
    p: &Principal,
    doc: &str,
    input: CreateSubscription,
) -> Result<SubscriptionView> {
    let doc = resolve_doc(svc.store.as_ref(), p, doc).await?;
    let url = check_url(svc, &input.url).await?;
    let description = check_description(input.description)?;
    let branches = check_branches(input.branches.unwrap_or_default())?;
    if svc.store.list_subscriptions(doc.id).await?.len() >= MAX_SUBSCRIPTIONS_PER_DOC {
        return Err(DomainError::invalid(
            "url",
            format!("a documentation can have at most {MAX_SUBSCRIPTIONS_PER_DOC} webhooks"),
        ));
    }
    let now = OffsetDateTime::now_utc();
    let id = SubscriptionId::new();
    let secret = WebhookSecret::generate();
    let sub = Subscription {
        id,
        org_id: doc.org_id,
        doc_id: doc.id,
        url,
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
    svc.store.create_subscription(&sub).await?;
    Ok(SubscriptionView {
        subscription: sub,
        secret: Some(secret.expose_text().to_owned()),
    })
}

/// A documentation's subscriptions.
pub async fn list(svc: &DeliveryService, p: &Principal, doc: &str) -> Result<Vec<Subscription>> {
    let doc = resolve_doc(svc.store.as_ref(), p, doc).await?;
    let mut subs = svc.store.list_subscriptions(doc.id).await?;
    subs.retain(|s| s.org_id == doc.org_id);
    Ok(subs)
}

/// One subscription.
pub async fn get(
    svc: &DeliveryService,
    p: &Principal,
    doc: &str,
    id: &str,
) -> Result<Subscription> {
    Ok(load(svc, p, doc, id).await?.1)
}

/// Changes url, description, branches or enabled.
pub async fn update(
    svc: &DeliveryService,
    p: &Principal,
    doc: &str,
    id: &str,
    input: UpdateSubscription,
) -> Result<Subscription> {
    let (_, mut sub) = load(svc, p, doc, id).await?;
    if let Some(url) = input.url {
        sub.url = check_url(svc, &url).await?;
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
pub async fn delete(svc: &DeliveryService, p: &Principal, doc: &str, id: &str) -> Result<()> {
    let (doc, sub) = load(svc, p, doc, id).await?;
    if svc.store.delete_subscription(doc.id, sub.id).await? {
        Ok(())
    } else {
        Err(not_found())
    }
}

/// Rotates the secret: the new one signs from now on, the previous one keeps signing for 24 hours.
pub async fn rotate_secret(
    svc: &DeliveryService,
    p: &Principal,
    doc: &str,
    id: &str,
) -> Result<SubscriptionView> {
    let (_, mut sub) = load(svc, p, doc, id).await?;
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
pub async fn test(svc: &DeliveryService, p: &Principal, doc: &str, id: &str) -> Result<Delivery> {
    let (doc, sub) = load(svc, p, doc, id).await?;
    if !sub.enabled {
        return Err(DomainError::invalid(
            "enabled",
            "the webhook is disabled; enable it before testing",
        ));
    }
    svc.ping(&doc, &sub).await
}

/// A subscription's deliveries, newest first.
pub async fn deliveries(
    svc: &DeliveryService,
    p: &Principal,
    doc: &str,
    id: &str,
) -> Result<Vec<Delivery>> {
    let (_, sub) = load(svc, p, doc, id).await?;
    svc.store.list_deliveries(sub.id).await
}

/// Re-sends a finished delivery (same `webhook-id`, same body, new attempts).
pub async fn redeliver(
    svc: &DeliveryService,
    p: &Principal,
    doc: &str,
    id: &str,
    delivery: &str,
) -> Result<Delivery> {
    let (_, sub) = load(svc, p, doc, id).await?;
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
