//! Who is reading the public outputs (the pages, the documentation MCP servers, "Try it"): one middleware,
//! [`readers`], resolves the request's reader once and hands it to the handlers as a [`Viewer`].
//!
//! The reader is a token in `Authorization` or the session cookie ([`crate::session`]); an anonymous reader pays
//! nothing (no cookie, no lookup). Anything answered to a reader who presented live credentials may show private
//! documentation, so it is marked `Cache-Control: private, no-store` and `X-Robots-Tag: noindex`; every answer
//! varies on `Authorization` and `Cookie`, so no shared cache serves one reader's answer to another. A session
//! cookie that no longer opens is dropped (`Set-Cookie` ending it).
//!
//! Failed credential checks are limited per client ([`Credentials`], `AppState::auth_failures`, docs/auth.md): a
//! token in `Authorization` that is not live, a session cookie that does not open (and, on the site, a refused
//! sign-in). A client whose budget is spent gets 429 with `Retry-After` for any request carrying credentials,
//! before they are checked, so guesses stop being answered; a live token or session never spends anything. How the
//! 429 is worded is the router's ([`Readers::limited`]): a page on the site, JSON on the MCP servers and the proxy.
//!
//! [`same_origin`] is the rule of the posts a page of this site makes (sign-in, sign-out, "Try it");
//! [`public_headers`] the security headers of every public answer.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use specpress_domain::ports::Store;
use specpress_domain::readers::Credential;
use specpress_domain::usecases::public::Reader;
use specpress_domain::usecases::readers;
use time::OffsetDateTime;

use crate::auth::{CredentialLimit, presented_token};
use crate::limit::{RateLimiter, set_retry_after};
use crate::session;
use crate::urls::{own_origin, public_base};
use crate::{ApiConfig, AppState};

/// The reader of a request, as [`readers`] resolved it (anonymous when it did not run: never more than that).
#[derive(Debug, Clone, Default)]
pub struct Viewer(pub Reader);

impl Viewer {
    /// Whether the reader presented live credentials (a token, a reader token, a session of any kind).
    pub fn is_member(&self) -> bool {
        self.0.is_signed_in()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Viewer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<Viewer>()
            .cloned()
            .unwrap_or_default())
    }
}

/// A client's budget of failed credential checks (`SPECPRESS_AUTH_FAILURE_*`; `None` inside: disabled). One per
/// process: in `specpress serve` every router counts against the same budget.
#[derive(Clone, Default)]
pub struct Credentials(Option<Arc<RateLimiter>>);

impl Credentials {
    /// The budget of `app`.
    pub fn of(app: &AppState) -> Self {
        Credentials(app.auth_failures.clone())
    }

    /// The failed-credential limit of one request under this budget (the API's rule, [`CredentialLimit`]).
    pub fn limit(&self, extensions: &axum::http::Extensions) -> CredentialLimit<'_> {
        CredentialLimit::new(self.0.as_deref(), extensions)
    }
}

/// How a router answers a client whose budget of failed credential checks is spent.
pub type Limited = Arc<dyn Fn(Duration) -> Response + Send + Sync>;

/// What [`readers`] needs: the storage ports (tokens, sessions), the HTTP settings (is the service served over
/// HTTPS), the budget of failed checks, and how to say 429.
#[derive(Clone)]
pub struct Readers {
    pub store: Arc<dyn Store>,
    pub config: Arc<ApiConfig>,
    pub credentials: Credentials,
    pub limited: Limited,
}

impl Readers {
    /// The readers of `app`'s routes, a spent budget answered by `limited`.
    pub fn of(app: &AppState, limited: Limited) -> Self {
        Readers {
            store: app.store.clone(),
            config: app.config.clone(),
            credentials: Credentials::of(app),
            limited,
        }
    }

    /// The readers of routes that answer JSON: a spent budget is a 429 `{message}` with `Retry-After`.
    pub fn json(app: &AppState) -> Self {
        Readers::of(
            app,
            Arc::new(|retry| {
                too_many_json(
                    retry,
                    "Too many failed credential checks from this client; retry after the time in Retry-After.",
                )
            }),
        )
    }
}

/// A 429 in the API's error shape (`{message}`) with `Retry-After`.
pub fn too_many_json(retry: Duration, message: &str) -> Response {
    let mut resp = (
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(json!({ "message": message })),
    )
        .into_response();
    set_retry_after(&mut resp, retry);
    resp
}

/// What the request's credentials resolved to.
enum Resolved {
    /// A reader (anonymous or a member).
    Reader {
        reader: Reader,
        /// The request carried a session cookie that no longer opens (expired, revoked, forged): drop it.
        stale_cookie: bool,
    },
    /// The client's budget of failed credential checks is spent: nothing was checked; retry after this long.
    Limited(Duration),
}

impl Resolved {
    fn anonymous(stale_cookie: bool) -> Self {
        Resolved::Reader {
            reader: Reader::Anonymous,
            stale_cookie,
        }
    }
}

/// What a live token presented on a reader surface is: `Ok(None)` for a token that is not one; `Err` when it could
/// not be checked (storage failing; logged).
async fn check_token(store: &dyn Store, token: &str) -> Result<Option<Reader>, ()> {
    match readers::reader_credential(store, token, OffsetDateTime::now_utc()).await {
        Ok(c) => Ok(c.map(reader_of)),
        Err(e) => {
            tracing::error!(error = %e, "a reader's token could not be checked");
            Err(())
        }
    }
}

/// The reader a live credential makes.
pub fn reader_of(credential: Credential) -> Reader {
    match credential {
        Credential::Member(p) => Reader::Member(p),
        Credential::ReaderToken(t) => Reader::ReaderToken(t),
        Credential::Sso(g) => Reader::Sso(g),
    }
}

async fn resolve(r: &Readers, parts: &Parts) -> Resolved {
    let headers = &parts.headers;
    let cookie = session::cookie_value(headers);
    let has_token = headers.contains_key(header::AUTHORIZATION);
    if !has_token && cookie.is_none() {
        return Resolved::anonymous(false);
    }
    // The API's rule (`CredentialLimit`): a token in the format Specpress mints is never refused by the budget nor
    // spends it; anything else (another token, a session cookie) is refused while the client's budget is spent.
    let limit = CredentialLimit::new(r.credentials.0.as_deref(), &parts.extensions);
    if has_token {
        let token = presented_token(headers);
        if let Err(retry) = limit.admit(token.as_deref()) {
            return Resolved::Limited(retry);
        }
        let found = match &token {
            Some(t) => check_token(r.store.as_ref(), t).await,
            None => Ok(None),
        };
        return match found {
            Ok(Some(reader)) => Resolved::Reader {
                reader,
                stale_cookie: false,
            },
            Ok(None) => {
                limit.failed(token.as_deref());
                Resolved::anonymous(false)
            }
            // Storage failing: never more than anonymous, and not the client's fault.
            Err(()) => Resolved::anonymous(false),
        };
    }
    if let Err(retry) = limit.admit(None) {
        return Resolved::Limited(retry);
    }
    let Some(id) = cookie.and_then(|v| session::open(v, SystemTime::now())) else {
        // Not a cookie of ours, edited, or past its life: a session that does not open.
        limit.failed(None);
        return Resolved::anonymous(true);
    };
    // A session that opens was minted by this service (its id cannot be guessed): when it has ended (signed out,
    // expired, its token rotated or revoked) the cookie is dropped, and nothing is spent.
    match readers::session_credential(r.store.as_ref(), &id, OffsetDateTime::now_utc()).await {
        Ok(Some(c)) => Resolved::Reader {
            reader: reader_of(c),
            stale_cookie: false,
        },
        Ok(None) => Resolved::anonymous(true),
        Err(e) => {
            tracing::error!(error = %e, "reader's session could not be checked; answering as anonymous");
            Resolved::anonymous(false)
        }
    }
}

/// Whether the service is served over HTTPS for a request with these headers (the session cookie is then
/// `Secure`).
pub fn over_https(config: &ApiConfig, headers: &HeaderMap) -> bool {
    public_base(config, headers).starts_with("https://")
}

/// The middleware (see the module documentation).
pub async fn readers(State(r): State<Readers>, req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    let (reader, stale_cookie) = match resolve(&r, &parts).await {
        Resolved::Reader {
            reader,
            stale_cookie,
        } => (reader, stale_cookie),
        Resolved::Limited(retry) => {
            let mut resp = (r.limited)(retry);
            resp.headers_mut().append(
                header::VARY,
                HeaderValue::from_static("Authorization, Cookie"),
            );
            return resp;
        }
    };
    let secure = stale_cookie && over_https(&r.config, &parts.headers);
    let member = reader.is_signed_in();
    parts.extensions.insert(Viewer(reader));
    if member {
        // A signed-in reader's answers differ from an anonymous reader's (private documentation, the session in the
        // footer) and are never stored: a validator a browser kept from an anonymous visit must not turn into a
        // 304 for them.
        parts.headers.remove(header::IF_NONE_MATCH);
    }
    let mut resp = next.run(Request::from_parts(parts, body)).await;
    let h = resp.headers_mut();
    h.append(
        header::VARY,
        HeaderValue::from_static("Authorization, Cookie"),
    );
    if member {
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        );
        h.insert("x-robots-tag", HeaderValue::from_static("noindex"));
    }
    if stale_cookie && let Ok(v) = HeaderValue::from_str(&session::end_cookie(secure)) {
        h.append(header::SET_COOKIE, v);
    }
    resp
}

/// Adds the security headers to every answer of the public routes (pages, MCP servers, "Try it"), with the pages'
/// Content-Security-Policy ([`PAGE_CSP`](crate::security::PAGE_CSP)) unless the handler set its own. A router alone,
/// as tests mount it, carries them too; the common layers then find them set.
pub async fn public_headers(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    crate::security::add_security_headers(resp.headers_mut(), crate::security::PAGE_CSP);
    resp
}

/// Whether a post comes from a page of this site: its `Origin` (browsers send it on every POST) is this service's
/// origin exactly (scheme, host and port, [`own_origin`]: the configured public URL's, else the `Host` header's,
/// never `X-Forwarded-Host` unless trusted), or, without `Origin`, `Sec-Fetch-Site` says `same-origin`. A post from
/// another site, from a page served over another scheme, or with neither header is refused, so no other site can
/// sign a reader in or out, or send requests through "Try it".
pub fn same_origin(config: &ApiConfig, headers: &HeaderMap) -> bool {
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let fetch_site = value("sec-fetch-site");
    if fetch_site.is_some_and(|s| s != "same-origin") {
        return false;
    }
    match value(header::ORIGIN.as_str()) {
        Some(origin) => {
            own_origin(config, headers).is_some_and(|own| origin.eq_ignore_ascii_case(&own))
        }
        None => fetch_site == Some("same-origin"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn posts_are_accepted_only_from_this_service_s_own_origin() {
        let derived = ApiConfig::new("");
        let host = ("host", "docs.example");
        for (pairs, ok, why) in [
            (
                vec![host, ("origin", "https://docs.example")],
                true,
                "same origin",
            ),
            (
                vec![
                    host,
                    ("origin", "https://docs.example"),
                    ("sec-fetch-site", "same-origin"),
                ],
                true,
                "same origin, said twice",
            ),
            (
                vec![host, ("sec-fetch-site", "same-origin")],
                true,
                "no Origin, but same-origin",
            ),
            (vec![host], false, "neither Origin nor Sec-Fetch-Site"),
            (
                vec![host, ("origin", "https://evil.example")],
                false,
                "another site",
            ),
            (
                vec![host, ("origin", "http://docs.example")],
                false,
                "another scheme",
            ),
            (
                vec![host, ("origin", "https://docs.example:8443")],
                false,
                "another port",
            ),
            (vec![host, ("origin", "null")], false, "an opaque origin"),
            (
                vec![
                    ("host", "evil.example"),
                    ("x-forwarded-host", "docs.example"),
                    ("origin", "https://evil.example"),
                ],
                true,
                "the Host itself is what is compared",
            ),
            (
                vec![
                    host,
                    ("x-forwarded-host", "evil.example"),
                    ("origin", "https://evil.example"),
                ],
                false,
                "X-Forwarded-Host is never trusted",
            ),
            (
                vec![
                    host,
                    ("origin", "https://docs.example"),
                    ("sec-fetch-site", "cross-site"),
                ],
                false,
                "a cross-site fetch",
            ),
            (
                vec![host, ("sec-fetch-site", "none")],
                false,
                "not a page's post",
            ),
        ] {
            assert_eq!(same_origin(&derived, &headers(&pairs)), ok, "{why}");
        }
        // With a configured public URL, its origin is the only one; the Host header no longer matters.
        let configured = ApiConfig::new("https://docs.example/");
        let h = headers(&[
            ("host", "internal.example"),
            ("origin", "https://docs.example"),
        ]);
        assert!(same_origin(&configured, &h));
        let h = headers(&[
            ("host", "internal.example"),
            ("origin", "https://internal.example"),
        ]);
        assert!(!same_origin(&configured, &h));
        // Plain HTTP on a loopback address (specpress serve): the scheme is http.
        let h = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "http://127.0.0.1:3000"),
        ]);
        assert!(same_origin(&derived, &h));
    }

    #[test]
    fn a_spent_budget_on_json_routes_is_a_json_429_with_retry_after() {
        let resp = too_many_json(Duration::from_millis(1500), "slow down");
        assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(resp.headers()[header::RETRY_AFTER], "2");
        assert!(
            resp.headers()[header::CONTENT_TYPE]
                .to_str()
                .is_ok_and(|c| c.starts_with("application/json"))
        );
    }
}
