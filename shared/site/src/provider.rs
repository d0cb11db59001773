//! Which organization's identity provider a sign-in is for, and what the browser keeps between leaving for the
//! provider and coming back.
//!
//! - [`offered`]: the provider the sign-in page offers for the page the reader returns to (`next`): the
//!   organization's, when that page is a documentation or hub whose owner opened it to provider readers
//!   (`sso_readers`). On a custom hostname, the hostname's documentation or hub.
//! - [`seal_pending`] / [`open_pending`]: the sign-in on its way through the provider (`state`, `nonce`, PKCE
//!   verifier, where to return), encrypted and authenticated with the process key under its own scope, valid
//!   [`LOGIN_LIFE`], in an `HttpOnly` cookie restricted to [`OIDC_PATH`].

use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use specpress_domain::ports::Store;
use specpress_domain::sso::{LOGIN_LIFE, PendingLogin, SsoSettings};
use specpress_domain::urls::{SiteRoot, host_site};
use specpress_domain::usecases::sso::{SignInTarget, provider_for};
use specpress_pagination::CursorCodec;

/// Where a sign-in through the provider starts.
pub const OIDC_PATH: &str = "/sign-in/oidc";
/// Where the provider sends the reader back.
pub const CALLBACK_PATH: &str = "/sign-in/oidc/callback";
/// The cookie that keeps a pending sign-in.
pub const PENDING_COOKIE: &str = "specpress_oidc";
/// Longest return path a pending sign-in keeps (the cookie stays far below browsers' 4 KB).
pub const MAX_PENDING_NEXT: usize = 1_024;
/// The associated data that binds a sealed value to this use.
const SCOPE: &str = "specpress-oidc-login-v1";

fn codec() -> &'static CursorCodec {
    static CODEC: OnceLock<CursorCodec> = OnceLock::new();
    CODEC.get_or_init(|| {
        specpress_api::pagination::cursor_codec()
            .clone()
            .with_ttl(Duration::from_secs(LOGIN_LIFE.whole_seconds().max(0) as u64))
    })
}

/// The cookie value keeping `pending`.
pub fn seal_pending(pending: &PendingLogin, now: SystemTime) -> Option<String> {
    let bytes = serde_json::to_vec(pending).ok()?;
    Some(codec().encode(SCOPE, 0, &bytes, now))
}

/// The pending sign-in a cookie value keeps, if it is one of ours and has not expired.
pub fn open_pending(value: &str, now: SystemTime) -> Option<PendingLogin> {
    if value.is_empty() || value.len() > specpress_pagination::MAX_CURSOR_LEN {
        return None;
    }
    let found = codec().decode(SCOPE, value, now).ok()?;
    serde_json::from_slice(&found.position).ok()
}

/// The pending sign-in cookie's value among a request's `Cookie` headers.
pub fn pending_cookie(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == PENDING_COOKIE)
        .map(|(_, value)| value.trim())
}

/// The `Set-Cookie` value keeping a pending sign-in (`value`), or dropping it (`None`).
pub fn pending_set_cookie(value: Option<&str>, secure: bool) -> String {
    let (value, age) = match value {
        Some(v) => (v, LOGIN_LIFE.whole_seconds().max(0)),
        None => ("", 0),
    };
    format!(
        "{PENDING_COOKIE}={value}; Path={OIDC_PATH}; Max-Age={age}; HttpOnly; SameSite=Lax{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The documentation or hub a return path names: `/doc/{key}...` or `/hub/{key}...`; on a custom hostname, its
/// documentation, or its hub (a documentation of the hub at `/{doc}/...`).
fn target_of(next: &str) -> Option<(bool, String)> {
    let path = next.split(['?', '#']).next().unwrap_or_default();
    let key = |rest: &str| -> String {
        let end = rest.find(['/', '.']).unwrap_or(rest.len());
        rest[..end].to_owned()
    };
    if let Some(site) = host_site() {
        return match site.root {
            SiteRoot::Doc(slug) => Some((true, slug.to_string())),
            SiteRoot::Hub(hub) => {
                let first = key(path.trim_start_matches('/'));
                // The hub's own pages (`/`, `/search`, `/llms.txt`, ...), else a documentation of the hub.
                let hub_own = matches!(
                    first.as_str(),
                    "" | "search" | "llms" | "sitemap" | "changes" | "mcp" | "sign-in"
                );
                Some(if hub_own {
                    (false, hub.to_string())
                } else {
                    (true, first)
                })
            }
        };
    }
    if let Some(rest) = path.strip_prefix("/doc/") {
        return Some((true, key(rest))).filter(|(_, k)| !k.is_empty());
    }
    if let Some(rest) = path.strip_prefix("/hub/") {
        return Some((false, key(rest))).filter(|(_, k)| !k.is_empty());
    }
    None
}

/// The provider the sign-in page offers for returning to `next` (see the module documentation). A store failure
/// offers nothing (the token form still works) and is logged.
pub async fn offered(store: &dyn Store, next: &str) -> Option<SsoSettings> {
    let (is_doc, key) = target_of(next)?;
    let target = if is_doc {
        SignInTarget::Doc(&key)
    } else {
        SignInTarget::Hub(&key)
    };
    match provider_for(store, target).await {
        Ok(found) => found,
        Err(e) => {
            tracing::error!(error = %e, "the sign-in page's provider could not be looked up");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use specpress_domain::model::{OrgId, Slug};
    use specpress_domain::sso::{LoginSecrets, SsoConfigId};
    use specpress_domain::urls::{HostSite, on_host};

    fn pending() -> PendingLogin {
        PendingLogin {
            org_id: OrgId::new(),
            config_id: SsoConfigId::new(),
            secrets: LoginSecrets {
                state: "s".repeat(43),
                nonce: "n".repeat(43),
                pkce_verifier: "v".repeat(43),
            },
            next: format!("/doc/{}", "a".repeat(MAX_PENDING_NEXT - 5)),
            expires_at: time::OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000),
        }
    }

    #[test]
    fn a_pending_sign_in_opens_to_itself_within_its_life_and_fits_a_cookie() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let p = pending();
        let value = seal_pending(&p, now).expect("sealed");
        assert!(value.len() < 3_000, "{}", value.len());
        assert_eq!(open_pending(&value, now), Some(p));
        assert_eq!(open_pending(&value, now + Duration::from_secs(601)), None);
        let mut edited = value.into_bytes();
        edited[20] ^= 1;
        assert_eq!(open_pending(&String::from_utf8_lossy(&edited), now), None);
        // A session cookie is sealed with the same key for another use: it is no pending sign-in.
        let session =
            specpress_api::session::seal(&specpress_domain::session::SessionId::new(), now);
        assert_eq!(open_pending(&session, now), None);
    }

    #[test]
    fn the_pending_cookie_is_http_only_lax_and_scoped_to_the_sign_in_paths() {
        let set = pending_set_cookie(Some("abc"), true);
        assert_eq!(
            set,
            "specpress_oidc=abc; Path=/sign-in/oidc; Max-Age=600; HttpOnly; SameSite=Lax; Secure"
        );
        assert!(pending_set_cookie(None, false).contains("Max-Age=0"));
    }

    #[tokio::test]
    async fn a_return_path_names_its_documentation_or_hub_on_either_host() {
        assert_eq!(
            target_of("/doc/pets/operation/x?y=1"),
            Some((true, "pets".into()))
        );
        assert_eq!(target_of("/doc/pets.md"), Some((true, "pets".into())));
        assert_eq!(
            target_of("/hub/acme/search?q=a"),
            Some((false, "acme".into()))
        );
        assert_eq!(target_of("/sign-in"), None);
        assert_eq!(target_of("/doc/"), None);
        let hub = HostSite {
            origin: "https://docs.acme.test".into(),
            root: SiteRoot::Hub(Slug::parse("acme").unwrap()),
        };
        let (a, b, c) = on_host(hub, async {
            (
                target_of("/"),
                target_of("/search?q=x"),
                target_of("/pets/operation/y"),
            )
        })
        .await;
        assert_eq!(a, Some((false, "acme".into())));
        assert_eq!(b, Some((false, "acme".into())));
        assert_eq!(c, Some((true, "pets".into())));
        let doc = HostSite {
            origin: "https://pets.acme.test".into(),
            root: SiteRoot::Doc(Slug::parse("pets").unwrap()),
        };
        let d = on_host(doc, async { target_of("/operation/y") }).await;
        assert_eq!(d, Some((true, "pets".into())));
    }
}
