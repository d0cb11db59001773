//! Custom hostnames (issue 40): `PUT /api/v1/docs/{doc}/domain` and `/hubs/{hub}/domain` `{hostname}`,
//! `POST .../domain/verify`, `GET` and `DELETE` (organization token), and the lookup `Host`-based routing makes.

use time::OffsetDateTime;

use crate::error::{ConflictKind, DomainError, Result};
use crate::hostname::{
    CustomDomain, DomainStatus, Hostname, TxtCheck, check_txt, verification_failure,
};
use crate::ports::{Store, TxtResolver};
use crate::token::Principal;
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
}
