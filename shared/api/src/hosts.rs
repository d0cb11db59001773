//! `Host`-based routing (issue 40): what readers open on a verified custom hostname, and the default URLs of what
//! has one redirected there. [`routed`] wraps the routers that serve readers (the site, the documentation's MCP
//! servers, "Try it"; in `specpress serve` every router, once), so that each sees the paths it always served:
//!
//! - On a **hub's hostname**: `/` is the hub (`/hub/{hub}`), `/search`, `/search.json`, `/llms.txt`,
//!   `/sitemap.xml`, `/changes.atom`, `/changes.rss` and `/mcp` its own; `/{doc}/...` a documentation of that hub
//!   (`/doc/{doc}/...`), and only of that hub.
//! - On a **documentation's hostname**: `/` is the documentation, `/{rest}` its `/doc/{doc}/{rest}`, `/.md`,
//!   `/.json`, `/.yaml` its own forms.
//! - On both, `/static/...`, `/sign-in...` and `/sign-out` are the site's own; the installation's own paths
//!   (`/doc/...`, `/hub/...`, `/preview/...`, `/diff/...`, `/mcp/...`) are not served there (404), and `/api/` is
//!   the API's on every host.
//!
//! The request is then answered inside [`specpress_domain::urls::on_host`], so every path and absolute URL the pages
//! build is on the hostname ([`crate::urls::public_base`] answers its origin). A hostname that is not verified (or
//! is unknown) serves nothing: 404 when the installation's public URL is configured and names another host. The
//! installation's own hosts are served as before: addresses and `localhost`, the public URL's host, any host when
//! no public URL is configured, and a host the trusted proxy forwards (`X-Forwarded-Host` with
//! `trust_forwarded_host`: the proxy only forwards the names its operator gave it, and the public URL still names
//! every URL). On the installation's own host, a `GET` or `HEAD` of a documentation or hub that has a verified
//! hostname (a documentation's own, else its hub's) is redirected there (308), the rest of the path and the query
//! kept. `/api/` is never routed by host.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use specpress_domain::hostname::{CustomDomain, Hostname};
use specpress_domain::model::{DocId, Documentation, Slug};
use specpress_domain::urls::{HostSite, SiteRoot, on_host};
use specpress_domain::usecases::hostnames::{
    doc_home, hostname_of_host_header, hub_home, root_of, serves_doc, site_for_host,
};
use tower::ServiceExt;

use crate::AppState;
use crate::error::ApiError;

/// The paths of a hub's own pages under its root (`/hub/{hub}/...`).
const HUB_OWN: &[&str] = &[
    "search",
    "search.json",
    "llms.txt",
    "sitemap.xml",
    "changes.atom",
    "changes.rss",
    "mcp",
];

/// What the layer holds: the state, and the routers themselves, which a hostname's request is routed through again
/// once its path is rewritten.
#[derive(Clone)]
pub struct Hosts {
    state: AppState,
    inner: Router,
}

/// `app` answered with `Host`-based routing (see the module documentation): a layer over its routes and fallback
/// (so its route table stays its own), which sends a hostname's request, rewritten, through `app` again.
pub fn routed(state: AppState, app: Router) -> Router {
    let hosts = Hosts {
        state,
        inner: app.clone(),
    };
    app.layer(axum::middleware::from_fn_with_state(hosts, host_routing))
}

/// The paths of the installation's own routes that a hostname does not serve (a request for them was routed
/// already, on the path as asked).
fn installation_only(path: &str) -> bool {
    ["/doc/", "/hub/", "/preview/", "/diff/", "/mcp/"]
        .iter()
        .any(|p| path.starts_with(p))
}

/// Whether the path is the site's own on every host.
fn site_wide(path: &str) -> bool {
    path.starts_with("/static/")
        || path == "/sign-in"
        || path.starts_with("/sign-in/")
        || path == "/sign-out"
}

fn not_found() -> Response {
    ApiError::from(specpress_domain::DomainError::NotFound("Not found".into())).into_response()
}

/// The middleware.
pub async fn host_routing(State(hosts): State<Hosts>, mut req: Request, next: Next) -> Response {
    let state = &hosts.state;
    let path = req.uri().path().to_owned();
    if path.starts_with("/api/") {
        return next.run(req).await;
    }
    let Some(host) = crate::urls::request_host(&state.config, req.headers()) else {
        return default_host(state, req, next).await;
    };
    let host = host.to_owned();
    let Some(hostname) = hostname_of_host_header(&host) else {
        // An address or `localhost`: the installation itself.
        return default_host(state, req, next).await;
    };
    if own_hostname(state).as_ref() == Some(&hostname) {
        return default_host(state, req, next).await;
    }
    let domain = match site_for_host(&*state.store, &host).await {
        Ok(d) => d,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let Some(domain) = domain else {
        if unknown_is_own(state, req.headers()) {
            return default_host(state, req, next).await;
        }
        return not_found();
    };
    let root = match root_of(&*state.store, &domain).await {
        Ok(Some(root)) => root,
        Ok(None) => return not_found(),
        Err(e) => return ApiError::from(e).into_response(),
    };
    if installation_only(&path) {
        return not_found();
    }
    let site = HostSite {
        origin: format!(
            "{}://{}",
            crate::urls::forwarded_scheme(&state.config, req.headers()).unwrap_or("https"),
            domain.hostname
        ),
        root: root.clone(),
    };
    if site_wide(&path) {
        // Routed already, on its own path.
        return on_host(site, next.run(req)).await;
    }
    let inner = match inner_path(state, &domain, &root, &path).await {
        Ok(Some(p)) => p,
        Ok(None) => return not_found(),
        Err(e) => return e.into_response(),
    };
    let uri = match req.uri().query() {
        Some(q) => format!("{inner}?{q}"),
        None => inner,
    };
    match uri.parse::<Uri>() {
        Ok(u) => *req.uri_mut() = u,
        Err(_) => return not_found(),
    }
    // Routed again, on the path the routers serve. The first routing found no route (the paths a hostname serves
    // are none of the installation's own, `installation_only`), so nothing of it is left on the request.
    match on_host(site, hosts.inner.clone().oneshot(req)).await {
        Ok(resp) => resp,
        Err(never) => match never {},
    }
}

/// Whether a host that is not a verified hostname is the installation's own: always without a public URL (the
/// installation is whatever host reaches it), and with one when the trusted proxy reports it (`X-Forwarded-Host`
/// with `trust_forwarded_host`: the proxy answers only the names its operator gave it, such as CloudFront's
/// alternate domain names, and every URL of the pages is the public URL's, which wins over the headers). A `Host`
/// that reaches the service directly, with a public URL naming another host, is unknown.
fn unknown_is_own(state: &AppState, headers: &axum::http::HeaderMap) -> bool {
    state.config.public_base_url.is_empty()
        || crate::urls::trusted_forwarded_host(&state.config, headers).is_some()
}

/// The hostname of the configured public URL, when there is one.
fn own_hostname(state: &AppState) -> Option<Hostname> {
    let base = &state.config.public_base_url;
    let (_, rest) = base.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    hostname_of_host_header(authority)
}

/// The path the routers serve for `path` asked on the hostname of `domain` (whose root is `root`); `None` for what
/// that hostname does not serve.
async fn inner_path(
    state: &AppState,
    domain: &CustomDomain,
    root: &SiteRoot,
    path: &str,
) -> Result<Option<String>, ApiError> {
    let rest = path.strip_prefix('/').unwrap_or(path);
    match root {
        SiteRoot::Doc(doc) => Ok(Some(if rest.is_empty() {
            format!("/doc/{doc}")
        } else if rest.starts_with('.') {
            format!("/doc/{doc}{rest}")
        } else {
            format!("/doc/{doc}/{rest}")
        })),
        SiteRoot::Hub(hub) => {
            if rest.is_empty() {
                return Ok(Some(format!("/hub/{hub}")));
            }
            // The hub's follow form and its followers' links (issue 38).
            if HUB_OWN.contains(&rest) || rest == "follow" || rest.starts_with("follow/") {
                return Ok(Some(format!("/hub/{hub}/{rest}")));
            }
            let (key, after) = split_key(rest);
            match find_doc(state, key).await? {
                Some(doc) if serves_doc(domain, &doc) => Ok(Some(format!("/doc/{key}{after}"))),
                _ => Ok(None),
            }
        }
    }
}

/// A documentation or hub key and what follows it: `pets/operation/x` is `pets` and `/operation/x`, `pets.md` is
/// `pets` and `.md` (slugs and ids hold no dot).
fn split_key(rest: &str) -> (&str, &str) {
    let end = rest.find(['/', '.']).unwrap_or(rest.len());
    rest.split_at(end)
}

/// The documentation a key of a URL names (slug or id), whoever may read it.
async fn find_doc(state: &AppState, key: &str) -> Result<Option<Documentation>, ApiError> {
    if let Some(id) = DocId::parse(key) {
        return Ok(state.store.get_doc_public(id).await?);
    }
    match Slug::parse(key) {
        Ok(slug) => Ok(state.store.doc_by_public_slug(&slug).await?),
        Err(_) => Ok(None),
    }
}

/// On the installation's own host: a `GET` or `HEAD` of a documentation or hub with a verified hostname goes there
/// (308); anything else is served.
async fn default_host(state: &AppState, req: Request, next: Next) -> Response {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return next.run(req).await;
    }
    let path = req.uri().path();
    let found = if let Some(rest) = path.strip_prefix("/doc/") {
        let (key, after) = split_key(rest);
        match find_doc(state, key).await {
            Ok(Some(doc)) => doc_home(&*state.store, &doc)
                .await
                .map(|home| home.map(|(h, prefix)| (h, prefix, after.to_owned()))),
            Ok(None) => Ok(None),
            Err(e) => return e.into_response(),
        }
    } else if let Some(rest) = path.strip_prefix("/hub/") {
        let (key, after) = split_key(rest);
        match Slug::parse(key) {
            Ok(slug) => match state.store.hub_by_public_slug(&slug).await {
                Ok(Some(hub)) => hub_home(&*state.store, &hub)
                    .await
                    .map(|h| h.map(|h| (h, String::new(), after.to_owned()))),
                Ok(None) => Ok(None),
                Err(e) => return ApiError::from(e).into_response(),
            },
            Err(_) => Ok(None),
        }
    } else {
        Ok(None)
    };
    match found {
        Ok(Some((host, prefix, after))) => {
            let mut path = format!("{prefix}{after}");
            if !path.starts_with('/') {
                path.insert(0, '/');
            }
            let location = match req.uri().query() {
                Some(q) => format!("https://{host}{path}?{q}"),
                None => format!("https://{host}{path}"),
            };
            match HeaderValue::from_str(&location) {
                Ok(v) => (StatusCode::PERMANENT_REDIRECT, [(header::LOCATION, v)]).into_response(),
                Err(_) => next.run(req).await,
            }
        }
        Ok(None) => next.run(req).await,
        Err(e) => ApiError::from(e).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_cut_at_the_first_slash_or_dot() {
        assert_eq!(split_key("pets"), ("pets", ""));
        assert_eq!(split_key("pets/operation/x"), ("pets", "/operation/x"));
        assert_eq!(split_key("pets.md"), ("pets", ".md"));
        assert_eq!(split_key("pets/schema/Pet.md"), ("pets", "/schema/Pet.md"));
    }

    #[test]
    fn the_site_s_own_paths_are_served_on_every_host() {
        assert!(site_wide("/static/site.css"));
        assert!(site_wide("/sign-in"));
        assert!(site_wide("/sign-in/oidc/callback"));
        assert!(!site_wide("/sign-inx"));
        assert!(!site_wide("/pets"));
    }
}
