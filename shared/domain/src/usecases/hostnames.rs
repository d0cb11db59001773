//! Custom hostnames (issue 40): `PUT /api/v1/docs/{doc}/domain` and `/hubs/{hub}/domain` `{hostname}`,
//! `POST .../domain/verify`, `GET` and `DELETE` (organization token), and the lookup `Host`-based routing makes.

use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::hostname::{
    CustomDomain, DomainStatus, Hostname, TxtCheck, check_txt, verification_failure,
};
use crate::model::{DocOrHub, Documentation, Hub, OrgId};
use crate::ports::{Store, TxtResolver};
use crate::token::Principal;
use crate::urls::{SiteRoot, href};
use crate::usecases::auth::require_org;
use crate::usecases::readers::{Target, resolve_target};

/// Attempts of a change that keeps meeting a concurrent one on the same target.
const ATTEMPTS: usize = 4;

fn no_domain() -> DomainError {
    DomainError::NotFound("No hostname is set".into())
}

fn in_use() -> DomainError {
    DomainError::invalid(
        "hostname",
        "This hostname is already verified for another documentation or hub.",
    )
}

/// Sets the hostname of what `target` names: a new pending claim with a fresh verification value, replacing any
/// hostname it had (whose route ends at once). Setting the hostname it already has answers it unchanged (its value
/// and status kept).
pub async fn set_domain(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
    hostname: &str,
    now: OffsetDateTime,
) -> Result<CustomDomain> {
    require_org(p)?;
    let of = resolve_target(store, p, target).await?;
    let hostname = Hostname::parse("hostname", hostname)?;
    for _ in 0..ATTEMPTS {
        let current = store.domain_of(p.org_id, of).await?;
        if let Some(c) = &current
            && c.hostname == hostname
        {
            return Ok(c.clone());
        }
        let domain = CustomDomain::new(hostname.clone(), p.org_id, of, now);
        match store.set_domain(&domain, current.as_ref()).await {
            Ok(()) => return Ok(domain),
            Err(DomainError::Conflict(ConflictKind::AlreadyExists)) => return Err(in_use()),
            Err(DomainError::Conflict(ConflictKind::Stale)) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(DomainError::Conflict(ConflictKind::Stale))
}

/// The hostname of what `target` names (`GET .../domain`); `NotFound` when none is set.
pub async fn get_domain(
    store: &dyn Store,
    p: &Principal,
    target: Target<'_>,
) -> Result<CustomDomain> {
    require_org(p)?;
    let of = resolve_target(store, p, target).await?;
    store.domain_of(p.org_id, of).await?.ok_or_else(no_domain)
}

/// Looks the verification record up (`POST .../domain/verify`): when a TXT record at `_specpress.<hostname>` holds
/// exactly the value, the hostname is verified and serves from then on; otherwise a 422 says what was found (or
/// that the lookup failed). A verified hostname stays verified when checked again.
pub async fn verify_domain(
    store: &dyn Store,
    dns: &dyn TxtResolver,
    p: &Principal,
    target: Target<'_>,
    now: OffsetDateTime,
) -> Result<CustomDomain> {
    require_org(p)?;
    let of = resolve_target(store, p, target).await?;
    let mut domain = store.domain_of(p.org_id, of).await?.ok_or_else(no_domain)?;
    let name = domain.hostname.txt_name();
    let records = dns.txt_records(&name).await.map_err(|e| {
        DomainError::invalid(
            "hostname",
            format!("The DNS lookup of the TXT records at {name} failed: {e}. Try again later."),
        )
    })?;
    let check = check_txt(&records, &domain.value);
    if check != TxtCheck::Match {
        if domain.is_verified() {
            return Ok(domain);
        }
        return Err(verification_failure(&domain, &check));
    }
    match store.mark_domain_verified(&domain, now).await {
        Ok(()) => {}
        Err(DomainError::Conflict(ConflictKind::AlreadyExists)) => return Err(in_use()),
        Err(DomainError::Conflict(ConflictKind::Stale)) => {
            return Err(DomainError::Conflict(ConflictKind::Stale));
        }
        Err(e) => return Err(e),
    }
    if !domain.is_verified() {
        domain.status = DomainStatus::Verified;
        domain.verified_at = Some(now);
    }
    Ok(domain)
}

/// Removes the hostname of what `target` names (`DELETE .../domain`): it serves nothing from then on.
pub async fn delete_domain(store: &dyn Store, p: &Principal, target: Target<'_>) -> Result<()> {
    require_org(p)?;
    let of = resolve_target(store, p, target).await?;
    let domain = store.domain_of(p.org_id, of).await?.ok_or_else(no_domain)?;
    if store.delete_domain(&domain).await? {
        Ok(())
    } else {
        Err(no_domain())
    }
}

/// The hostname a `Host` header names: the name without its port, normalized; `None` for anything that is not a
/// DNS name (an address, garbage).
pub fn hostname_of_host_header(host: &str) -> Option<Hostname> {
    let host = host.trim();
    let name = match host.rsplit_once(':') {
        Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => name,
        Some(_) => return None,
        None => host,
    };
    Hostname::parse("host", name).ok()
}

/// What a request for `host` serves, when `host` is a verified custom hostname (one read); `None` otherwise (the
/// caller answers an unknown or unverified hostname with 404).
pub async fn site_for_host(store: &dyn Store, host: &str) -> Result<Option<CustomDomain>> {
    let Some(hostname) = hostname_of_host_header(host) else {
        return Ok(None);
    };
    Ok(store
        .verified_domain(&hostname)
        .await?
        .filter(CustomDomain::is_verified))
}

/// What a verified hostname serves at its root, by slug, with the hub's id (the documentations its hostname reaches
/// are that hub's): `None` when what it was set on is gone.
pub async fn root_of(store: &dyn Store, domain: &CustomDomain) -> Result<Option<SiteRoot>> {
    Ok(match domain.target {
        DocOrHub::Doc(id) => store
            .get_doc(domain.org_id, id)
            .await?
            .map(|d| SiteRoot::Doc(d.slug)),
        DocOrHub::Hub(id) => store
            .get_hub(domain.org_id, id)
            .await?
            .map(|h| SiteRoot::Hub(h.slug)),
    })
}

/// Whether the verified hostname `domain` may serve `doc`: the documentation it was set on, or a documentation of
/// the hub it was set on (never another organization's, never another hub's).
pub fn serves_doc(domain: &CustomDomain, doc: &Documentation) -> bool {
    doc.org_id == domain.org_id
        && match domain.target {
            DocOrHub::Doc(id) => doc.id == id,
            DocOrHub::Hub(hub) => doc.hub_id == Some(hub),
        }
}

/// The verified hostname of what `of` names, if any.
async fn verified_of(store: &dyn Store, org: OrgId, of: DocOrHub) -> Result<Option<Hostname>> {
    Ok(store
        .domain_of(org, of)
        .await?
        .filter(CustomDomain::is_verified)
        .map(|d| d.hostname))
}

/// Where a documentation's pages live on a verified hostname: its own (at `/`), else its hub's (at `/{slug}`), as
/// the hostname and the path prefix; `None` when neither has one.
pub async fn doc_home(
    store: &dyn Store,
    doc: &Documentation,
) -> Result<Option<(Hostname, String)>> {
    if let Some(h) = verified_of(store, doc.org_id, DocOrHub::Doc(doc.id)).await? {
        return Ok(Some((h, String::new())));
    }
    let Some(hub) = doc.hub_id else {
        return Ok(None);
    };
    Ok(verified_of(store, doc.org_id, DocOrHub::Hub(hub))
        .await?
        .map(|h| (h, format!("/{}", doc.slug))))
}

/// The verified hostname a hub's page lives at, if any.
pub async fn hub_home(store: &dyn Store, hub: &Hub) -> Result<Option<Hostname>> {
    verified_of(store, hub.org_id, DocOrHub::Hub(hub.id)).await
}

/// A documentation's public URL (`doc_public_url`): on its verified hostname (or its hub's) when it has one, else
/// `{base}/doc/{slug}`.
pub async fn doc_public_url(store: &dyn Store, base: &str, doc: &Documentation) -> Result<String> {
    Ok(match doc_home(store, doc).await? {
        Some((host, prefix)) => format!("https://{host}{}", href(prefix)),
        None => crate::urls::doc_url(base, &doc.slug),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_header_names_a_hostname_without_its_port() {
        let h = |s: &str| hostname_of_host_header(s).map(|h| h.as_str().to_owned());
        assert_eq!(h("Docs.Example.com"), Some("docs.example.com".into()));
        assert_eq!(h("docs.example.com:8443"), Some("docs.example.com".into()));
        assert_eq!(h("docs.example.com."), Some("docs.example.com".into()));
        for none in [
            "127.0.0.1:3000",
            "[::1]:3000",
            "localhost:3000",
            "docs.example.com:",
            "docs.example.com:x",
            "a:b:c",
            "",
        ] {
            assert_eq!(h(none), None, "{none}");
        }
    }

    fn doc(org: OrgId, hub: Option<crate::model::HubId>) -> Documentation {
        Documentation {
            id: crate::model::DocId::new(),
            org_id: org,
            hub_id: hub,
            slug: crate::model::Slug::parse("pets").unwrap(),
            name: "Pets".into(),
            default_branch: crate::model::Slug::parse("main").unwrap(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            modified_at: OffsetDateTime::UNIX_EPOCH,
            never_subscribed: false,
            visibility: Default::default(),
            try_it: Default::default(),
        }
    }

    #[test]
    fn a_hostname_serves_only_what_it_was_verified_for_never_another_organization_s() {
        let org = OrgId::new();
        let hub = crate::model::HubId::new();
        let name = Hostname::parse("hostname", "docs.example.com").unwrap();
        let on_hub = CustomDomain::new(
            name.clone(),
            org,
            DocOrHub::Hub(hub),
            OffsetDateTime::UNIX_EPOCH,
        );
        assert!(serves_doc(&on_hub, &doc(org, Some(hub))));
        assert!(!serves_doc(&on_hub, &doc(org, None)));
        assert!(!serves_doc(
            &on_hub,
            &doc(org, Some(crate::model::HubId::new()))
        ));
        // Another organization's documentation, even one naming the same hub id, is never served.
        assert!(!serves_doc(&on_hub, &doc(OrgId::new(), Some(hub))));
        let mine = doc(org, None);
        let on_doc = CustomDomain::new(
            name,
            org,
            DocOrHub::Doc(mine.id),
            OffsetDateTime::UNIX_EPOCH,
        );
        assert!(serves_doc(&on_doc, &mine));
        assert!(!serves_doc(&on_doc, &doc(org, None)));
        let mut theirs = mine.clone();
        theirs.org_id = OrgId::new();
        assert!(!serves_doc(&on_doc, &theirs));
    }
}
