//! Sign-in with the organization's OpenID provider (issue 40): the settings (`PUT`, `GET`, `DELETE /api/v1/sso`,
//! organization token) and the two halves of a sign-in: [`begin_sign_in`] (the provider's authorization URL and
//! the [`PendingLogin`] the browser keeps) and [`finish_sign_in`] (the callback: `state`, code exchange, ID token
//! verification by the provider adapter, then the organization's rules, then a reader session).
//!
//! A reader the rules refuse gets exactly what a failed sign-in gets (`Unauthorized`): nothing a stranger would
//! not. Why is logged (the rule, never the address).

use rand::Rng;
use subtle::ConstantTimeEq;
use time::{Duration, OffsetDateTime};

use crate::error::{ConflictKind, DomainError, Result};
use crate::model::OrgId;
use crate::ports::{IdentityProvider, Store};
use crate::session::{Session, SessionId};
use crate::sso::{
    LOGIN_LIFE, PendingLogin, ProviderConfig, SsoConfigId, SsoGrant, SsoInput, SsoSettings,
    open_client_secret, seal_client_secret,
};
use crate::token::{Principal, TokenHash};
use crate::usecases::auth::require_org;
use crate::webhooks::SecretSealer;

/// Attempts of a settings change that keeps meeting a concurrent one.
const ATTEMPTS: usize = 4;

fn not_configured() -> DomainError {
    DomainError::NotFound("Sign-in with an identity provider is not set up".into())
}

/// Sets the organization's provider (`PUT /api/v1/sso`). The client secret is sealed and never answered; it may be
/// left out to keep the stored one while the issuer and client id stay the same. Changing the issuer or the client
/// id starts a new incarnation: every session of the previous provider ends.
pub async fn put_sso(
    store: &dyn Store,
    sealer: &SecretSealer,
    p: &Principal,
    input: &SsoInput,
    allow_loopback: bool,
    now: OffsetDateTime,
) -> Result<SsoSettings> {
    require_org(p)?;
    let valid = input.validate(allow_loopback)?;
    for _ in 0..ATTEMPTS {
        let previous = store.get_sso(p.org_id).await?;
        let same_client = previous
            .as_ref()
            .filter(|s| s.issuer == valid.issuer && s.client_id == valid.client_id);
        let sealed_secret = match (&valid.client_secret, same_client) {
            (Some(secret), _) => seal_client_secret(sealer, p.org_id, secret)?,
            (None, Some(s)) => s.sealed_secret.clone(),
            (None, None) => {
                return Err(DomainError::invalid(
                    "client_secret",
                    "client_secret is required when the issuer or client_id changes",
                ));
            }
        };
        let settings = SsoSettings {
            org_id: p.org_id,
            config_id: same_client.map_or_else(SsoConfigId::new, |s| s.config_id),
            issuer: valid.issuer.clone(),
            client_id: valid.client_id.clone(),
            sealed_secret,
            allowed_domains: valid.allowed_domains.clone(),
            groups_claim: valid.groups_claim.clone(),
            allowed_groups: valid.allowed_groups.clone(),
            created_at: previous.as_ref().map_or(now, |s| s.created_at),
            updated_at: now,
        };
        match store.put_sso(&settings, previous.as_ref()).await {
            Ok(()) => return Ok(settings),
            Err(DomainError::Conflict(ConflictKind::Stale)) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(DomainError::Conflict(ConflictKind::Stale))
}

/// The organization's provider settings (`GET /api/v1/sso`; the caller shows them without the secret).
pub async fn get_sso(store: &dyn Store, p: &Principal) -> Result<SsoSettings> {
    require_org(p)?;
    store.get_sso(p.org_id).await?.ok_or_else(not_configured)
}

/// Removes the organization's provider (`DELETE /api/v1/sso`): every session it started ends.
pub async fn delete_sso(store: &dyn Store, p: &Principal) -> Result<()> {
    require_org(p)?;
    if store.delete_sso(p.org_id).await? {
        Ok(())
    } else {
        Err(not_configured())
    }
}

/// The organization's provider, if it has one (what the sign-in page offers).
pub async fn provider_of(store: &dyn Store, org: OrgId) -> Result<Option<SsoSettings>> {
    store.get_sso(org).await
}

fn provider_config(sealer: &SecretSealer, settings: &SsoSettings) -> Result<ProviderConfig> {
    Ok(ProviderConfig {
        issuer: settings.issuer.clone(),
        client_id: settings.client_id.clone(),
        client_secret: open_client_secret(sealer, settings.org_id, &settings.sealed_secret)?,
        groups_claim: settings.groups_claim.clone(),
    })
}

/// Starts a sign-in through the organization's provider: the URL to send the browser to, and what the browser keeps
/// (sealed) until it comes back to `redirect_uri` (valid [`LOGIN_LIFE`]). `next` is where to return afterwards (a
/// local path; the caller checks it). `NotFound` when the organization has no provider.
pub async fn begin_sign_in(
    store: &dyn Store,
    provider: &dyn IdentityProvider,
    sealer: &SecretSealer,
    org: OrgId,
    redirect_uri: &str,
    next: &str,
    now: OffsetDateTime,
) -> Result<(String, PendingLogin)> {
    let settings = store.get_sso(org).await?.ok_or_else(not_configured)?;
    let config = provider_config(sealer, &settings)?;
    let (url, secrets) = provider.authorization_url(&config, redirect_uri).await?;
    Ok((
        url,
        PendingLogin {
            org_id: org,
            config_id: settings.config_id,
            secrets,
            next: next.to_owned(),
            expires_at: now + LOGIN_LIFE,
        },
    ))
}

/// Finishes a sign-in at the callback: the `state` the provider returned must be the browser's (compared in
/// constant time), the sign-in still current (same provider incarnation, within [`LOGIN_LIFE`]), the code
/// exchanged and the ID token verified by `provider`, and the identity admitted by the organization's rules. Then a
/// grant and a session lasting `life` are stored. Any failure is `Unauthorized`, the same for every cause.
#[allow(clippy::too_many_arguments)]
pub async fn finish_sign_in(
    store: &dyn Store,
    provider: &dyn IdentityProvider,
    sealer: &SecretSealer,
    pending: &PendingLogin,
    returned_state: &str,
    code: &str,
    redirect_uri: &str,
    now: OffsetDateTime,
    life: Duration,
) -> Result<(SsoGrant, Session)> {
    let refuse = |why: &'static str| {
        tracing::info!(reason = why, "provider sign-in refused");
        DomainError::Unauthorized
    };
    if pending.expires_at <= now {
        return Err(refuse("the sign-in took too long"));
    }
    let state_matches: bool = returned_state
        .as_bytes()
        .ct_eq(pending.secrets.state.as_bytes())
        .into();
    if !state_matches || returned_state.is_empty() {
        return Err(refuse("state does not match"));
    }
    if code.is_empty() || code.len() > 4096 {
        return Err(refuse("no usable code"));
    }
    let settings = store
        .get_sso(pending.org_id)
        .await?
        .filter(|s| s.config_id == pending.config_id)
        .ok_or_else(|| refuse("the provider changed during the sign-in"))?;
    let config = provider_config(sealer, &settings)?;
    let identity = provider
        .identity(&config, redirect_uri, &pending.secrets, code)
        .await?;
    let admission = settings.admit(&identity).map_err(|r| {
        tracing::info!(org = %settings.org_id, refusal = ?r, "provider sign-in not admitted");
        DomainError::Unauthorized
    })?;
    let grant = SsoGrant {
        org_id: settings.org_id,
        config_id: settings.config_id,
        email_domain: admission.email_domain,
        groups: admission.groups,
        created_at: now,
        expires_at: now + life,
    };
    // The grant is named by the hash of a random value nobody ever sees: it is a credential only through the
    // session that names it.
    let grant_hash = TokenHash::of(&hex::encode(rand::rng().random::<[u8; 32]>()));
    let session = Session {
        id: SessionId::new(),
        token_hash: grant_hash.clone(),
        created_at: now,
        expires_at: grant.expires_at,
    };
    store
        .start_sso_session(&grant, &grant_hash, &session)
        .await?;
    Ok((grant, session))
}

/// What a sign-in is for: the documentation or hub named in the page the reader wants to return to (a
/// documentation's slug or id, a hub's slug, as in a public URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInTarget<'a> {
    /// A documentation's key.
    Doc(&'a str),
    /// A hub's key.
    Hub(&'a str),
}

/// The provider the sign-in page offers for `target`: its organization's, when `target` is private (itself or
/// through its hub) and every private layer admits provider readers (`sso_readers`), so that signing in there can
/// open it. `None` for anything else: unknown, public, not admitting provider readers, or an organization without
/// a provider. (Only a documentation or hub whose owner opened it to provider readers says so; the others answer
/// exactly as an unknown key.)
pub async fn provider_for(
    store: &dyn Store,
    target: SignInTarget<'_>,
) -> Result<Option<SsoSettings>> {
    use crate::model::{DocId, DocOrHub, Slug};
    let admits = |org: OrgId, of: DocOrHub| async move {
        Ok::<bool, DomainError>(
            store
                .reader_settings(org, of)
                .await?
                .is_some_and(|s| s.sso_readers),
        )
    };
    let (org, private, admitted) = match target {
        SignInTarget::Doc(key) => {
            let doc = match (DocId::parse(key), Slug::parse(key)) {
                (Some(id), _) => store.get_doc_public(id).await?,
                (None, Ok(slug)) => store.doc_by_public_slug(&slug).await?,
                (None, Err(_)) => None,
            };
            let Some(doc) = doc else { return Ok(None) };
            let hub = match doc.hub_id {
                Some(h) => store.get_hub(doc.org_id, h).await?,
                None => None,
            };
            let mut private = false;
            let mut admitted = true;
            if doc.visibility.is_private() {
                private = true;
                admitted &= admits(doc.org_id, DocOrHub::Doc(doc.id)).await?;
            }
            if let Some(h) = hub.filter(|h| h.visibility.is_private()) {
                private = true;
                admitted &= admits(h.org_id, DocOrHub::Hub(h.id)).await?;
            }
            (doc.org_id, private, admitted)
        }
        SignInTarget::Hub(key) => {
            let hub = match Slug::parse(key) {
                Ok(slug) => store.hub_by_public_slug(&slug).await?,
                Err(_) => None,
            };
            let Some(hub) = hub else { return Ok(None) };
            let private = hub.visibility.is_private();
            let admitted = private && admits(hub.org_id, DocOrHub::Hub(hub.id)).await?;
            (hub.org_id, private, admitted)
        }
    };
    if !private || !admitted {
        return Ok(None);
    }
    store.get_sso(org).await
}
