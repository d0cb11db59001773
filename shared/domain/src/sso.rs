//! Sign-in with the organization's OpenID provider (issue 40): the organization's settings, what the provider
//! vouched for at a sign-in, and who of those may read.
//!
//! - [`SsoSettings`]: issuer, client id, the client secret sealed at rest (write-only through the API), and the
//!   optional `allowed_domains`, `groups_claim` and `allowed_groups`. [`SsoInput::validate`] checks what an owner
//!   sends; [`SsoSettings::admit`] decides whether an [`Identity`] may read.
//! - [`SsoGrant`]: what a sign-in leaves, named by the reader's session; checked again against the organization's
//!   current settings on every request ([`SsoGrant::still_admitted`]), so a session ends when the organization
//!   removes or replaces its provider, or no longer allows the reader's domain or groups.
//! - [`LoginSecrets`] and [`PendingLogin`]: the `state`, `nonce` and PKCE verifier of a sign-in on its way through
//!   the provider, kept by the browser in a short-lived sealed cookie.
//!
//! Addresses are personal data: a grant keeps the domain of a verified address, not the address.

use serde::{Deserialize, Serialize};
use std::fmt;
use time::OffsetDateTime;

use crate::error::{DomainError, Result};
use crate::hostname::Hostname;
use crate::mcp::SecretValue;
use crate::model::OrgId;
use crate::webhooks::SecretSealer;

crate::model::id_type!(/// One incarnation of an organization's provider settings: minted when the issuer or client changes
    /// (or after a removal), so the sessions of a provider end when it is replaced.
    SsoConfigId);

/// Longest issuer URL.
pub const ISSUER_MAX: usize = 1024;
/// Longest client id.
pub const CLIENT_ID_MAX: usize = 255;
/// Longest client secret, in bytes.
pub const CLIENT_SECRET_MAX: usize = 1024;
/// Most allowed domains, and most allowed groups.
pub const MAX_ALLOWED: usize = 100;
/// Longest group name.
pub const GROUP_MAX: usize = 256;
/// Longest claim name.
pub const CLAIM_MAX: usize = 100;
/// How long a sign-in may spend at the provider.
pub const LOGIN_LIFE: time::Duration = time::Duration::minutes(10);

/// What an owner sends (`PUT /api/v1/sso`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsoInput {
    /// The provider's issuer identifier (`https://login.example.com`), exactly as its ID tokens name it.
    pub issuer: String,
    /// The client registered at the provider for this service.
    pub client_id: String,
    /// Its secret; may be left out to keep the stored one when the issuer and client id do not change.
    #[serde(default)]
    pub client_secret: Option<String>,
    /// When given, only readers whose verified address is at one of these domains.
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// The ID token claim listing the reader's groups.
    #[serde(default)]
    pub groups_claim: Option<String>,
    /// When given, only readers in at least one of these groups (read from `groups_claim`).
    #[serde(default)]
    pub allowed_groups: Option<Vec<String>>,
}

/// The organization's provider settings, as stored.
#[derive(Clone, PartialEq, Eq)]
pub struct SsoSettings {
    /// The organization.
    pub org_id: OrgId,
    /// This incarnation (see [`SsoConfigId`]).
    pub config_id: SsoConfigId,
    /// Issuer identifier.
    pub issuer: String,
    /// Client id.
    pub client_id: String,
    /// The client secret, sealed ([`seal_client_secret`]); never answered.
    pub sealed_secret: Vec<u8>,
    /// Allowed address domains (none: any reader the provider signs in).
    pub allowed_domains: Vec<Hostname>,
    /// Claim holding the groups.
    pub groups_claim: Option<String>,
    /// Allowed groups (none: no group condition).
    pub allowed_groups: Vec<String>,
    /// First set.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
}

impl fmt::Debug for SsoSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SsoSettings")
            .field("org_id", &self.org_id)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("allowed_domains", &self.allowed_domains)
            .field("groups_claim", &self.groups_claim)
            .field("allowed_groups", &self.allowed_groups)
            .finish_non_exhaustive()
    }
}

/// Settings checked from an [`SsoInput`], before sealing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidSso {
    /// Issuer.
    pub issuer: String,
    /// Client id.
    pub client_id: String,
    /// The secret, when given.
    pub client_secret: Option<SecretValue>,
    /// Allowed domains.
    pub allowed_domains: Vec<Hostname>,
    /// Groups claim.
    pub groups_claim: Option<String>,
    /// Allowed groups.
    pub allowed_groups: Vec<String>,
}

fn printable_ascii(s: &str) -> bool {
    s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// Checks an issuer identifier: an `https` URL without query, fragment or user info; plain `http` only for a
/// loopback host (`127.0.0.0/8`, `::1`, `localhost`) and only when `allow_loopback` (`SPECPRESS_ALLOW_LOOPBACK_URLS`)
/// is on. The text is kept as given (ID tokens must name it exactly).
pub fn check_issuer(issuer: &str, allow_loopback: bool) -> Result<String> {
    let bad = |why: &str| DomainError::invalid("issuer", format!("issuer {why}"));
    let issuer = issuer.trim();
    if issuer.is_empty() || issuer.len() > ISSUER_MAX {
        return Err(bad(&format!(
            "must be the provider's issuer URL (1 to {ISSUER_MAX} characters)"
        )));
    }
    let url = url::Url::parse(issuer).map_err(|_| bad("is not a URL"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not carry a user name or password"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("must not have a query or fragment"));
    }
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => return Err(bad("has no host")),
    };
    match url.scheme() {
        "https" => Ok(issuer.to_owned()),
        "http" if loopback && allow_loopback => Ok(issuer.to_owned()),
        "http" if loopback => Err(bad(
            "uses plain http: only a loopback provider may, and only when SPECPRESS_ALLOW_LOOPBACK_URLS=true",
        )),
        "http" => Err(bad("must use https")),
        _ => Err(bad("must be an https URL")),
    }
}

/// Checks a claim name: 1 to 100 characters of letters, digits and `_ - . : /` (a URL-named claim is common).
fn check_claim(claim: &str) -> Result<String> {
    let claim = claim.trim();
    let ok = !claim.is_empty()
        && claim.len() <= CLAIM_MAX
        && claim
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/'));
    if ok {
        Ok(claim.to_owned())
    } else {
        Err(DomainError::invalid(
            "groups_claim",
            format!(
                "groups_claim must be 1 to {CLAIM_MAX} letters, digits, '_', '-', '.', ':' or '/'"
            ),
        ))
    }
}

impl SsoInput {
    /// Checks every field (a 422 naming the first wrong one); `allow_loopback` as for [`check_issuer`].
    pub fn validate(&self, allow_loopback: bool) -> Result<ValidSso> {
        let issuer = check_issuer(&self.issuer, allow_loopback)?;
        let client_id = self.client_id.trim();
        if client_id.is_empty() || client_id.len() > CLIENT_ID_MAX || !printable_ascii(client_id) {
            return Err(DomainError::invalid(
                "client_id",
                format!("client_id must be 1 to {CLIENT_ID_MAX} printable ASCII characters"),
            ));
        }
        let client_secret = match &self.client_secret {
            None => None,
            Some(s)
                if !s.is_empty()
                    && s.len() <= CLIENT_SECRET_MAX
                    && !s.chars().any(char::is_control) =>
            {
                Some(SecretValue::new(s.clone()))
            }
            Some(_) => {
                return Err(DomainError::invalid(
                    "client_secret",
                    format!(
                        "client_secret must be 1 to {CLIENT_SECRET_MAX} bytes without control characters"
                    ),
                ));
            }
        };
        let domains = self.allowed_domains.as_deref().unwrap_or_default();
        if domains.len() > MAX_ALLOWED {
            return Err(DomainError::invalid(
                "allowed_domains",
                format!("allowed_domains lists at most {MAX_ALLOWED} domains"),
            ));
        }
        let mut allowed_domains: Vec<Hostname> = Vec::with_capacity(domains.len());
        for d in domains {
            let h = Hostname::parse("allowed_domains", d)?;
            if !allowed_domains.contains(&h) {
                allowed_domains.push(h);
            }
        }
        let groups = self.allowed_groups.as_deref().unwrap_or_default();
        if groups.len() > MAX_ALLOWED {
            return Err(DomainError::invalid(
                "allowed_groups",
                format!("allowed_groups lists at most {MAX_ALLOWED} groups"),
            ));
        }
        let mut allowed_groups: Vec<String> = Vec::with_capacity(groups.len());
        for g in groups {
            if g.is_empty() || g.len() > GROUP_MAX || g.chars().any(char::is_control) {
                return Err(DomainError::invalid(
                    "allowed_groups",
                    format!("each group is 1 to {GROUP_MAX} bytes without control characters"),
                ));
            }
            if !allowed_groups.contains(g) {
                allowed_groups.push(g.clone());
            }
        }
        let groups_claim = self.groups_claim.as_deref().map(check_claim).transpose()?;
        if !allowed_groups.is_empty() && groups_claim.is_none() {
            return Err(DomainError::invalid(
                "groups_claim",
                "allowed_groups needs groups_claim: the ID token claim that lists a reader's groups",
            ));
        }
        Ok(ValidSso {
            issuer,
            client_id: client_id.to_owned(),
            client_secret,
            allowed_domains,
            groups_claim,
            allowed_groups,
        })
    }
}

/// The associated data binding a sealed client secret to its organization.
fn secret_aad(org: OrgId) -> Vec<u8> {
    let mut aad = b"specpress-sso-client-secret\0".to_vec();
    aad.extend_from_slice(org.0.as_bytes());
    aad
}

/// Seals an organization's client secret.
pub fn seal_client_secret(
    sealer: &SecretSealer,
    org: OrgId,
    secret: &SecretValue,
) -> Result<Vec<u8>> {
    sealer.seal_bound(&secret_aad(org), secret.expose().as_bytes())
}

/// Opens an organization's sealed client secret; `Err` for another organization's, another key, or corruption.
pub fn open_client_secret(sealer: &SecretSealer, org: OrgId, sealed: &[u8]) -> Result<SecretValue> {
    let fail = || {
        DomainError::unexpected(
            "the stored client secret cannot be opened (wrong key or corrupted)",
        )
    };
    let plain = sealer
        .open_bound(&secret_aad(org), sealed)
        .ok_or_else(fail)?;
    String::from_utf8(plain)
        .map(SecretValue::new)
        .map_err(|_| fail())
}

/// What the provider vouched for, once its ID token was verified (issuer, audience, expiry, signature, nonce).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The `sub` claim.
    pub subject: String,
    /// The `email` claim.
    pub email: Option<String>,
    /// The `email_verified` claim (`false` when absent).
    pub email_verified: bool,
    /// The groups read from the configured claim (empty without one).
    pub groups: Vec<String>,
}

/// Why an identity may not read (for the log; the reader is told nothing a stranger would not be).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Domains are restricted and the ID token has no address.
    NoEmail,
    /// Domains are restricted and the address is not verified by the provider.
    EmailNotVerified,
    /// The address's domain is not allowed.
    DomainNotAllowed,
    /// Groups are restricted and the reader is in none of them.
    GroupNotAllowed,
}

/// What an admitted identity leaves in its grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    /// The domain of the verified address (when the provider gave one, verified).
    pub email_domain: Option<String>,
    /// The reader's groups among the allowed ones.
    pub groups: Vec<String>,
}

/// The domain part of an address, lowercase (`None` when it has none).
fn domain_of(email: &str) -> Option<String> {
    let (local, domain) = email.rsplit_once('@')?;
    if local.is_empty() || domain.is_empty() {
        return None;
    }
    Some(domain.trim_end_matches('.').to_ascii_lowercase())
}

impl SsoSettings {
    fn domain_allowed(&self, domain: Option<&str>) -> bool {
        self.allowed_domains.is_empty()
            || domain.is_some_and(|d| self.allowed_domains.iter().any(|a| a.as_str() == d))
    }

    fn groups_allowed(&self, groups: &[String]) -> bool {
        self.allowed_groups.is_empty() || groups.iter().any(|g| self.allowed_groups.contains(g))
    }

    /// Whether `identity` may read: with `allowed_domains`, a verified address at one of them (exact domain, no
    /// subdomains); with `allowed_groups`, membership of one of them.
    pub fn admit(&self, identity: &Identity) -> std::result::Result<Admission, Refusal> {
        let email_domain = match (&identity.email, identity.email_verified) {
            (Some(e), true) => domain_of(e),
            _ => None,
        };
        if !self.allowed_domains.is_empty() {
            match (&identity.email, identity.email_verified) {
                (None, _) => return Err(Refusal::NoEmail),
                (Some(_), false) => return Err(Refusal::EmailNotVerified),
                (Some(_), true) => {}
            }
            if !self.domain_allowed(email_domain.as_deref()) {
                return Err(Refusal::DomainNotAllowed);
            }
        }
        if !self.groups_allowed(&identity.groups) {
            return Err(Refusal::GroupNotAllowed);
        }
        let groups = identity
            .groups
            .iter()
            .filter(|g| self.allowed_groups.contains(g))
            .cloned()
            .collect();
        Ok(Admission {
            email_domain,
            groups,
        })
    }

    /// The label of the sign-in button: the issuer's host ("Sign in with login.example.com").
    pub fn provider_label(&self) -> String {
        url::Url::parse(&self.issuer)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| self.issuer.clone())
    }
}

/// What a sign-in through the provider leaves: the credential a reader session names (stored by hash like a token,
/// never shown to anyone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoGrant {
    /// The organization whose provider signed the reader in.
    pub org_id: OrgId,
    /// The settings incarnation it was granted under.
    pub config_id: SsoConfigId,
    /// The domain of the reader's verified address, if any.
    pub email_domain: Option<String>,
    /// The reader's groups among those allowed at sign-in.
    pub groups: Vec<String>,
    /// Sign-in time.
    pub created_at: OffsetDateTime,
    /// End of the session it backs.
    pub expires_at: OffsetDateTime,
}

impl SsoGrant {
    /// Whether the grant still opens anything under the organization's current settings (`None`: the provider was
    /// removed): the same incarnation, not expired, the domain and the groups still allowed.
    pub fn still_admitted(&self, settings: Option<&SsoSettings>, now: OffsetDateTime) -> bool {
        let Some(s) = settings else {
            return false;
        };
        s.org_id == self.org_id
            && s.config_id == self.config_id
            && self.expires_at > now
            && s.domain_allowed(self.email_domain.as_deref())
            && s.groups_allowed(&self.groups)
    }
}

/// The provider's view of the organization's settings, with the secret opened (for the provider adapter only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// Issuer.
    pub issuer: String,
    /// Client id.
    pub client_id: String,
    /// Client secret.
    pub client_secret: SecretValue,
    /// Claim holding the groups.
    pub groups_claim: Option<String>,
}

/// The random values of one sign-in: `state` (binds the answer to this browser), `nonce` (binds the ID token to
/// this sign-in) and the PKCE verifier (binds the code to this client).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginSecrets {
    /// The `state` parameter.
    pub state: String,
    /// The `nonce` parameter.
    pub nonce: String,
    /// The PKCE code verifier (its S256 challenge went in the authorization URL).
    pub pkce_verifier: String,
}

impl fmt::Debug for LoginSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LoginSecrets(***)")
    }
}

/// A sign-in on its way through the provider, as the browser keeps it (sealed) until the callback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingLogin {
    /// The organization whose provider it goes through.
    pub org_id: OrgId,
    /// The settings incarnation it started under.
    pub config_id: SsoConfigId,
    /// Its random values.
    pub secrets: LoginSecrets,
    /// Where to return afterwards (a local path, checked by the caller).
    pub next: String,
    /// When it stops being accepted.
    #[serde(with = "time::serde::timestamp")]
    pub expires_at: OffsetDateTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> SsoInput {
        SsoInput {
            issuer: "https://login.example.com".into(),
            client_id: "specpress".into(),
            client_secret: Some("s3cret-value".into()),
            ..Default::default()
        }
    }

    fn settings(v: &ValidSso) -> SsoSettings {
        SsoSettings {
            org_id: OrgId::new(),
            config_id: SsoConfigId::new(),
            issuer: v.issuer.clone(),
            client_id: v.client_id.clone(),
            sealed_secret: vec![],
            allowed_domains: v.allowed_domains.clone(),
            groups_claim: v.groups_claim.clone(),
            allowed_groups: v.allowed_groups.clone(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            updated_at: OffsetDateTime::UNIX_EPOCH,
        }
    }

    fn person(email: Option<&str>, verified: bool, groups: &[&str]) -> Identity {
        Identity {
            subject: "sub-1".into(),
            email: email.map(str::to_owned),
            email_verified: verified,
            groups: groups.iter().map(|g| g.to_string()).collect(),
        }
    }

    fn field_of(e: DomainError) -> String {
        match e {
            DomainError::Invalid { field, .. } => field,
            other => panic!("not a 422: {other:?}"),
        }
    }

    #[test]
    fn an_issuer_is_https_and_plain_http_only_on_loopback_when_allowed() {
        assert!(check_issuer("https://login.example.com", false).is_ok());
        assert!(check_issuer("https://login.example.com/realms/acme", false).is_ok());
        assert_eq!(
            check_issuer(" https://login.example.com/ ", false).unwrap(),
            "https://login.example.com/",
            "kept as given, trimmed"
        );
        for (issuer, allow) in [
            ("http://login.example.com", true),
            ("http://127.0.0.1:4000", false),
            ("http://localhost:4000", false),
            ("http://10.0.0.1", true),
            ("ftp://login.example.com", true),
            ("https://u:p@login.example.com", true),
            ("https://login.example.com/?x=1", true),
            ("https://login.example.com/#f", true),
            ("login.example.com", true),
            ("", true),
        ] {
            assert!(check_issuer(issuer, allow).is_err(), "{issuer} {allow}");
        }
        for loopback in [
            "http://127.0.0.1:4000",
            "http://localhost:4000/x",
            "http://[::1]:4000",
        ] {
            assert!(check_issuer(loopback, true).is_ok(), "{loopback}");
        }
    }

    #[test]
    fn settings_input_is_checked_field_by_field() {
        let v = input().validate(false).unwrap();
        assert_eq!(v.issuer, "https://login.example.com");
        assert_eq!(
            v.client_secret.as_ref().map(|s| s.expose()),
            Some("s3cret-value")
        );
        let mut i = input();
        i.client_id = "has space".into();
        assert_eq!(field_of(i.validate(false).unwrap_err()), "client_id");
        let mut i = input();
        i.client_secret = Some(String::new());
        assert_eq!(field_of(i.validate(false).unwrap_err()), "client_secret");
        let mut i = input();
        i.allowed_domains = Some(vec![
            "Example.COM".into(),
            "example.com".into(),
            "corp.example.org".into(),
        ]);
        let v = i.validate(false).unwrap();
        assert_eq!(
            v.allowed_domains
                .iter()
                .map(Hostname::as_str)
                .collect::<Vec<_>>(),
            ["example.com", "corp.example.org"]
        );
        i.allowed_domains = Some(vec!["@example.com".into()]);
        assert_eq!(field_of(i.validate(false).unwrap_err()), "allowed_domains");
        let mut i = input();
        i.allowed_groups = Some(vec!["docs-readers".into()]);
        assert_eq!(field_of(i.validate(false).unwrap_err()), "groups_claim");
        i.groups_claim = Some("https://example.com/claims/groups".into());
        assert!(i.validate(false).is_ok());
        i.groups_claim = Some("groups claim".into());
        assert_eq!(field_of(i.validate(false).unwrap_err()), "groups_claim");
        let mut i = input();
        i.allowed_groups = Some((0..=MAX_ALLOWED).map(|n| n.to_string()).collect());
        i.groups_claim = Some("groups".into());
        assert_eq!(field_of(i.validate(false).unwrap_err()), "allowed_groups");
    }

    #[test]
    fn a_verified_address_at_an_allowed_domain_is_needed_when_domains_are_restricted() {
        let mut i = input();
        i.allowed_domains = Some(vec!["example.com".into()]);
        let s = settings(&i.validate(false).unwrap());
        let ok = s
            .admit(&person(Some("Ann@Example.com"), true, &[]))
            .unwrap();
        assert_eq!(ok.email_domain.as_deref(), Some("example.com"));
        assert_eq!(s.admit(&person(None, true, &[])), Err(Refusal::NoEmail));
        assert_eq!(
            s.admit(&person(Some("ann@example.com"), false, &[])),
            Err(Refusal::EmailNotVerified)
        );
        for outside in [
            "ann@sub.example.com",
            "ann@example.com.evil.test",
            "ann@evil.test",
            "example.com",
            "@example.com",
        ] {
            assert_eq!(
                s.admit(&person(Some(outside), true, &[])),
                Err(Refusal::DomainNotAllowed),
                "{outside}"
            );
        }
        // Without a domain condition, anyone the provider signs in may read; an unverified address is not kept.
        let open = settings(&input().validate(false).unwrap());
        let a = open
            .admit(&person(Some("x@anywhere.test"), false, &[]))
            .unwrap();
        assert_eq!(a.email_domain, None);
    }

    #[test]
    fn groups_are_required_when_restricted_and_only_the_allowed_ones_are_kept() {
        let mut i = input();
        i.groups_claim = Some("groups".into());
        i.allowed_groups = Some(vec!["readers".into(), "staff".into()]);
        let s = settings(&i.validate(false).unwrap());
        let a = s
            .admit(&person(None, false, &["engineering", "readers"]))
            .unwrap();
        assert_eq!(a.groups, ["readers"]);
        assert_eq!(
            s.admit(&person(None, false, &["engineering"])),
            Err(Refusal::GroupNotAllowed)
        );
        assert_eq!(
            s.admit(&person(None, false, &[])),
            Err(Refusal::GroupNotAllowed)
        );
    }

    #[test]
    fn a_grant_ends_with_its_provider_its_domain_or_its_groups() {
        let mut i = input();
        i.allowed_domains = Some(vec!["example.com".into()]);
        let s = settings(&i.validate(false).unwrap());
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(1);
        let grant = SsoGrant {
            org_id: s.org_id,
            config_id: s.config_id,
            email_domain: Some("example.com".into()),
            groups: vec![],
            created_at: now,
            expires_at: now + time::Duration::hours(12),
        };
        assert!(grant.still_admitted(Some(&s), now));
        assert!(!grant.still_admitted(None, now), "provider removed");
        assert!(!grant.still_admitted(Some(&s), grant.expires_at), "expired");
        let mut replaced = s.clone();
        replaced.config_id = SsoConfigId::new();
        assert!(
            !grant.still_admitted(Some(&replaced), now),
            "provider replaced"
        );
        let mut narrowed = s.clone();
        narrowed.allowed_domains = vec![Hostname::parse("d", "corp.example.com").unwrap()];
        assert!(
            !grant.still_admitted(Some(&narrowed), now),
            "domain no longer allowed"
        );
        let mut grouped = s.clone();
        grouped.groups_claim = Some("groups".into());
        grouped.allowed_groups = vec!["readers".into()];
        assert!(
            !grant.still_admitted(Some(&grouped), now),
            "groups now required"
        );
        let mut other_org = s.clone();
        other_org.org_id = OrgId::new();
        assert!(!grant.still_admitted(Some(&other_org), now));
    }

    #[test]
    fn a_client_secret_opens_only_for_its_organization_and_never_shows_in_debug() {
        let sealer = SecretSealer::new(&[5u8; 32]);
        let org = OrgId::new();
        let sealed =
            seal_client_secret(&sealer, org, &SecretValue::new("s3cret-value".into())).unwrap();
        assert!(!sealed.windows(6).any(|w| w == b"s3cret"));
        assert_eq!(
            open_client_secret(&sealer, org, &sealed).unwrap().expose(),
            "s3cret-value"
        );
        assert!(open_client_secret(&sealer, OrgId::new(), &sealed).is_err());
        assert!(open_client_secret(&SecretSealer::new(&[6u8; 32]), org, &sealed).is_err());
        let mut s = settings(&input().validate(false).unwrap());
        s.sealed_secret = sealed;
        assert!(!format!("{s:?}").contains("sealed"));
        let secrets = LoginSecrets {
            state: "st4te".into(),
            nonce: "n0nce".into(),
            pkce_verifier: "v3rifier".into(),
        };
        let shown = format!("{secrets:?}");
        assert!(
            !shown.contains("st4te") && !shown.contains("n0nce") && !shown.contains("v3rifier")
        );
    }

    #[test]
    fn the_sign_in_button_names_the_issuer_host() {
        let s = settings(&input().validate(false).unwrap());
        assert_eq!(s.provider_label(), "login.example.com");
    }
}
