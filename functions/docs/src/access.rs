//! Who is reading, and private documentation's sign-in.
//!
//! [`readers`] runs before every public route: it resolves the request's reader once (a token in `Authorization`,
//! or the session cookie, [`specpress_api::session`]) and hands it to the handlers as a [`Viewer`]. Anything
//! answered to a reader who presented credentials may show private documentation, so it is marked
//! `Cache-Control: private, no-store` and `X-Robots-Tag: noindex`; every answer varies on `Authorization` and
//! `Cookie`, so no shared cache serves one reader's page to another. An anonymous reader pays nothing: no cookie, no
//! lookup.
//!
//! - `GET /sign-in[?next=/doc/...]`: the form (a token, posted), or, signed in, who you are and a sign-out button.
//! - `POST /sign-in`: a valid token starts a session (an `HttpOnly`, `SameSite=Lax` cookie, `Secure` over HTTPS,
//!   lasting [`SESSION_HOURS`] hours) and returns to `next`; a refused token answers 401 with the form again.
//! - `POST /sign-out`: ends the session.
//!
//! A reader who may not see a private documentation gets exactly the page an unknown slug gets (404); every 404
//! page offers the sign-in link, so the link itself tells nothing.

use std::time::SystemTime;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use specpress_api::auth::presented_token;
use specpress_api::session::{self, SESSION_HOURS};
use specpress_api::urls::PublicBase;
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::auth::{MAX_TOKEN_LEN, authenticate};
use specpress_domain::usecases::public::Reader;
use tracing::instrument;

use crate::DocsState;

/// Where the sign-in form lives.
pub const SIGN_IN_PATH: &str = "/sign-in";
/// Where the sign-out form posts.
pub const SIGN_OUT_PATH: &str = "/sign-out";
/// Largest sign-in form body read.
const MAX_FORM_BYTES: usize = 4 * 1024;
/// Longest return path kept.
const MAX_NEXT: usize = 2_048;

/// What the pages of one request need to know of it beyond their own route.
#[derive(Debug, Clone, Default)]
struct RequestInfo {
    /// The path and query asked for (the sign-in link of a 404 page returns there).
    target: String,
    /// The reader presented live credentials (the footer says they are signed in).
    member: bool,
}

tokio::task_local! {
    /// Set by [`readers`] around the handler of each request.
    static REQUEST: RequestInfo;
}

/// The path and query of the request being answered (empty outside a request).
pub fn request_target() -> String {
    REQUEST.try_with(|r| r.target.clone()).unwrap_or_default()
}

/// Whether the request being answered comes from a signed-in reader (a token or a session): its pages name the
/// session in their footer. `false` outside a request.
pub fn signed_in() -> bool {
    REQUEST.try_with(|r| r.member).unwrap_or(false)
}

/// Where a signed-in reader's pages point for the session, if the request being answered has one.
pub fn session_href() -> Option<&'static str> {
    signed_in().then_some(SIGN_IN_PATH)
}

/// The reader of a request, as [`readers`] resolved it (anonymous when it did not run: never more than that).
#[derive(Debug, Clone, Default)]
pub struct Viewer(pub Reader);

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

/// What the request's credentials resolved to.
struct Resolved {
    reader: Reader,
    /// The request carried a session cookie that no longer opens (expired, revoked, forged): drop it.
    stale_cookie: bool,
}

/// The principal of a live token: `Ok(None)` for a token that is not one; `Err` when it could not be checked
/// (storage failing; logged).
async fn check_token(st: &DocsState, token: &str) -> Result<Option<Principal>, ()> {
    match authenticate(st.app.store.as_ref(), token).await {
        Ok(p) => Ok(Some(p)),
        Err(specpress_domain::DomainError::Unauthorized) => Ok(None),
        Err(e) => {
            tracing::error!(error = %e, "a reader's token could not be checked");
            Err(())
        }
    }
}

/// The principal of a live token, or `None` (an unknown token, a storage failure: never more than anonymous).
async fn principal_of_token(st: &DocsState, token: &str) -> Option<Principal> {
    check_token(st, token).await.ok().flatten()
}

async fn resolve(st: &DocsState, headers: &HeaderMap) -> Resolved {
    if headers.contains_key(header::AUTHORIZATION) {
        let reader = match presented_token(headers) {
            Some(t) => principal_of_token(st, &t)
                .await
                .map_or(Reader::Anonymous, Reader::Member),
            None => Reader::Anonymous,
        };
        return Resolved {
            reader,
            stale_cookie: false,
        };
    }
    let Some(value) = session::cookie_value(headers) else {
        return Resolved {
            reader: Reader::Anonymous,
            stale_cookie: false,
        };
    };
    let principal = match session::open(value, SystemTime::now()) {
        Some(hash) => match st.app.store.principal_by_token(&hash).await {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(error = %e, "reader's session could not be checked; answering as anonymous");
                return Resolved {
                    reader: Reader::Anonymous,
                    stale_cookie: false,
                };
            }
        },
        None => None,
    };
    match principal {
        Some(p) => Resolved {
            reader: Reader::Member(p),
            stale_cookie: false,
        },
        None => Resolved {
            reader: Reader::Anonymous,
            stale_cookie: true,
        },
    }
}

/// Whether the service is served over HTTPS here (the session cookie is then `Secure`).
async fn over_https(st: &DocsState, parts: &mut Parts) -> bool {
    match PublicBase::from_request_parts(parts, &st.app).await {
        Ok(PublicBase(base)) => base.starts_with("https://"),
        Err(never) => match never {},
    }
}

/// The middleware of every public route (see the module documentation).
pub async fn readers(State(st): State<DocsState>, req: Request, next: Next) -> Response {
    if req.uri().path().starts_with(crate::headers::STATIC_PREFIX) {
        return next.run(req).await;
    }
    let (mut parts, body) = req.into_parts();
    let resolved = resolve(&st, &parts.headers).await;
    let secure = if resolved.stale_cookie {
        over_https(&st, &mut parts).await
    } else {
        false
    };
    let member = matches!(resolved.reader, Reader::Member(_));
    parts.extensions.insert(Viewer(resolved.reader));
    if member {
        // A signed-in reader's answers differ from an anonymous reader's (private documentation, the session in the
        // footer) and are never stored: a validator a browser kept from an anonymous visit must not turn into a
        // 304 for them.
        parts.headers.remove(header::IF_NONE_MATCH);
    }
    let info = RequestInfo {
        target: parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default(),
        member,
    };
    let req = Request::from_parts(parts, body);
    let mut resp = REQUEST.scope(info, next.run(req)).await;
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
    if resolved.stale_cookie
        && let Ok(v) = HeaderValue::from_str(&session::end_cookie(secure))
    {
        h.append(header::SET_COOKIE, v);
    }
    resp
}

/// A return path that stays on this site: a path starting with one `/` (not `//`, no backslash, no control
/// character), at most [`MAX_NEXT`] characters; anything else returns to the sign-in page.
pub fn local_path(next: &str) -> &str {
    let ok = next.starts_with('/')
        && !next.starts_with("//")
        && next.len() <= MAX_NEXT
        && !next.chars().any(|c| c == '\\' || c.is_control());
    if ok { next } else { SIGN_IN_PATH }
}

/// The sign-in link of a 404 page, returning to the page asked for.
pub fn sign_in_href() -> String {
    let target = request_target();
    if target.is_empty() || target.starts_with(SIGN_IN_PATH) {
        return SIGN_IN_PATH.to_owned();
    }
    let next: String = form_urlencoded::byte_serialize(target.as_bytes()).collect();
    format!("{SIGN_IN_PATH}?next={next}")
}

fn token_words(p: &Principal) -> &'static str {
    match p.scope {
        Scope::Org => "an organization token",
        Scope::Hub(_) => "a hub token",
        Scope::Doc(_) => "a documentation token",
    }
}

/// The sign-in page: its status, the form or the signed-in state, never cached or indexed.
fn sign_in_page(
    st: &DocsState,
    status: StatusCode,
    next: &str,
    message: Option<&str>,
    who: Option<&Principal>,
) -> Response {
    let heading = if who.is_some() {
        "Signed in"
    } else {
        "Sign in"
    };
    let body = specpress_render::access::sign_in_body(&specpress_render::access::SignInPage {
        heading,
        sign_in_action: SIGN_IN_PATH,
        sign_out_action: SIGN_OUT_PATH,
        next: local_path(next),
        message,
        signed_in_as: who.map(token_words),
        hours: SESSION_HOURS,
        max_token: MAX_TOKEN_LEN,
    });
    let html = crate::headers::shell(&st.assets, heading, &body);
    let mut resp = (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        resp.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Token realm=\"Specpress documentation\""),
        );
    }
    resp
}

/// One value of a query string or form body (the first of that name).
fn form_value(text: &str, name: &str) -> Option<String> {
    form_urlencoded::parse(text.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// `GET /sign-in`.
#[instrument(skip_all)]
pub async fn sign_in_form(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    parts: Parts,
) -> Response {
    let next = parts
        .uri
        .query()
        .filter(|q| q.len() <= MAX_NEXT * 3)
        .and_then(|q| form_value(q, "next"))
        .unwrap_or_default();
    match &reader {
        Reader::Member(p) => sign_in_page(&st, StatusCode::OK, &next, None, Some(p)),
        Reader::Anonymous => sign_in_page(&st, StatusCode::OK, &next, None, None),
    }
}

/// Whether a form post comes from a page of this site (browsers send `Origin` on every POST, and
/// `Sec-Fetch-Site`): a post from another site is refused, so no other site can sign a reader in or out.
fn same_site(headers: &HeaderMap) -> bool {
    let value = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    if value(header::HeaderName::from_static("sec-fetch-site"))
        .is_some_and(|s| s != "same-origin" && s != "none")
    {
        return false;
    }
    match value(header::ORIGIN) {
        None => true,
        Some(origin) => {
            let host = value(header::HeaderName::from_static("x-forwarded-host"))
                .or_else(|| value(header::HOST))
                .unwrap_or("");
            origin
                .split_once("://")
                .is_some_and(|(_, rest)| !host.is_empty() && rest == host)
        }
    }
}

/// `POST /sign-in` (form: `token`, `next`).
#[instrument(skip_all)]
pub async fn sign_in(State(st): State<DocsState>, req: Request) -> Response {
    let (mut parts, body) = req.into_parts();
    if !same_site(&parts.headers) {
        return crate::headers::error_page(
            &st.assets,
            StatusCode::FORBIDDEN,
            "Sign-in refused",
            "Sign in from this site's own sign-in page.",
        );
    }
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return sign_in_page(
            &st,
            StatusCode::PAYLOAD_TOO_LARGE,
            "",
            Some("The form is too large."),
            None,
        );
    };
    let text = String::from_utf8_lossy(&bytes);
    let next = form_value(&text, "next").unwrap_or_default();
    let token = form_value(&text, "token").unwrap_or_default();
    let token = token.trim();
    let refused =
        |message: &str| sign_in_page(&st, StatusCode::UNAUTHORIZED, &next, Some(message), None);
    if token.is_empty() {
        return refused("Paste a token to sign in.");
    }
    if token.len() > MAX_TOKEN_LEN {
        return refused("This token is not valid.");
    }
    match check_token(&st, token).await {
        Ok(Some(_)) => {}
        Ok(None) => {
            return refused(
                "This token is not valid: check it was copied whole, and that it was not rotated.",
            );
        }
        Err(()) => {
            return sign_in_page(
                &st,
                StatusCode::SERVICE_UNAVAILABLE,
                &next,
                Some("The token could not be checked just now. Try again in a moment."),
                None,
            );
        }
    }
    let secure = over_https(&st, &mut parts).await;
    let hash = specpress_domain::token::TokenHash::of(token);
    let cookie = session::start_cookie(&session::seal(&hash, SystemTime::now()), secure);
    let mut resp = Redirect::to(local_path(&next)).into_response();
    *resp.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        resp.headers_mut().insert(header::SET_COOKIE, v);
    }
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// `POST /sign-out`.
#[instrument(skip_all)]
pub async fn sign_out(State(st): State<DocsState>, mut parts: Parts) -> Response {
    if !same_site(&parts.headers) {
        return crate::headers::error_page(
            &st.assets,
            StatusCode::FORBIDDEN,
            "Sign-out refused",
            "Sign out from this site's own pages.",
        );
    }
    let secure = over_https(&st, &mut parts).await;
    let mut resp = Redirect::to(SIGN_IN_PATH).into_response();
    *resp.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(v) = HeaderValue::from_str(&session::end_cookie(secure)) {
        resp.headers_mut().insert(header::SET_COOKIE, v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_returned_to() {
        assert_eq!(local_path("/doc/pets?x=1"), "/doc/pets?x=1");
        for bad in [
            "",
            "https://evil.example/",
            "//evil.example/",
            "/\\evil.example",
            "doc/pets",
            "/doc/\npets",
            &format!("/{}", "a".repeat(3000)),
        ] {
            assert_eq!(local_path(bad), SIGN_IN_PATH, "{bad:?}");
        }
    }

    #[test]
    fn posts_from_another_site_are_refused() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("docs.example"));
        assert!(same_site(&h), "no Origin: a non-browser client");
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://docs.example"),
        );
        assert!(same_site(&h));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://evil.example"),
        );
        assert!(!same_site(&h));
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("docs.example"));
        h.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
        assert!(!same_site(&h));
    }
}
