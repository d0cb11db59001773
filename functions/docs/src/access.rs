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
//! - `POST /sign-in`: a valid token starts a session (a stored item, [`auth::start_session`]; an `HttpOnly`,
//!   `SameSite=Lax` cookie naming it, `Secure` over HTTPS, lasting [`SESSION_HOURS`] hours) and returns to `next`;
//!   a refused token answers 401 with the form again.
//! - `POST /sign-out`: deletes the session, so a copy of the cookie opens nothing any more, and drops the cookie.
//!
//! Both posts must come from this site's own pages: their `Origin` must be this service's origin
//! ([`specpress_api::urls::own_origin`]: the configured public URL's, else the `Host` header's, never
//! `X-Forwarded-Host`), or, without `Origin`, `Sec-Fetch-Site` must say `same-origin`; anything else is 403.
//!
//! Failed credential checks are limited per client (`AppState::auth_failures`, docs/auth.md): a refused sign-in, a
//! token in `Authorization` that is not live, a session cookie that does not open. A client whose budget is spent
//! gets 429 with `Retry-After` for any request carrying credentials, before they are checked, so guesses stop being
//! answered; a live token or session never spends anything.
//!
//! A reader who may not see a private documentation gets exactly the page an unknown slug gets (404); every 404
//! page offers the sign-in link, so the link itself tells nothing.

use std::time::{Duration, SystemTime};

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use specpress_api::ApiConfig;
use specpress_api::auth::presented_token;
use specpress_api::limit::{client_of, retry_after_secs, set_retry_after};
use specpress_api::session::{self, SESSION_HOURS};
use specpress_api::urls::{PublicBase, own_origin};
use specpress_domain::DomainError;
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::auth::{self, MAX_TOKEN_LEN, authenticate};
use specpress_domain::usecases::public::Reader;
use time::OffsetDateTime;
use tracing::instrument;

use crate::DocsState;
use crate::request::RequestInfo;
pub use crate::request::{
    SIGN_IN_PATH, SIGN_OUT_PATH, request_target, session_href, sign_in_href, signed_in,
};

/// Largest sign-in form body read.
const MAX_FORM_BYTES: usize = 4 * 1024;
/// Longest return path kept.
const MAX_NEXT: usize = 2_048;

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

/// The client's budget of failed credential checks: `Err(retry_after)` when it is spent (nothing is taken).
fn budget_left(st: &DocsState, client: &str) -> Result<(), Duration> {
    match &st.app.auth_failures {
        Some(limiter) => limiter.peek(client),
        None => Ok(()),
    }
}

/// Spends one failed credential check of the client's budget.
fn spend_failure(st: &DocsState, client: &str) {
    if let Some(limiter) = &st.app.auth_failures {
        // A client that spent the last of its budget meanwhile was already answered: its next request is refused.
        let _ = limiter.check(client);
    }
}

/// The principal of a live token: `Ok(None)` for a token that is not one; `Err` when it could not be checked
/// (storage failing; logged).
async fn check_token(st: &DocsState, token: &str) -> Result<Option<Principal>, ()> {
    match authenticate(st.app.store.as_ref(), token).await {
        Ok(p) => Ok(Some(p)),
        Err(DomainError::Unauthorized) => Ok(None),
        Err(e) => {
            tracing::error!(error = %e, "a reader's token could not be checked");
            Err(())
        }
    }
}

async fn resolve(st: &DocsState, parts: &Parts) -> Resolved {
    let headers = &parts.headers;
    let cookie = session::cookie_value(headers);
    let has_token = headers.contains_key(header::AUTHORIZATION);
    if !has_token && cookie.is_none() {
        return Resolved::anonymous(false);
    }
    let client = client_of(&parts.extensions);
    if let Err(retry) = budget_left(st, &client) {
        return Resolved::Limited(retry);
    }
    if has_token {
        let principal = match presented_token(headers) {
            Some(t) => check_token(st, &t).await,
            None => Ok(None),
        };
        return match principal {
            Ok(Some(p)) => Resolved::Reader {
                reader: Reader::Member(p),
                stale_cookie: false,
            },
            Ok(None) => {
                spend_failure(st, &client);
                Resolved::anonymous(false)
            }
            // Storage failing: never more than anonymous, and not the client's fault.
            Err(()) => Resolved::anonymous(false),
        };
    }
    let Some(id) = cookie.and_then(|v| session::open(v, SystemTime::now())) else {
        // Not a cookie of ours, edited, or past its life: a session that does not open.
        spend_failure(st, &client);
        return Resolved::anonymous(true);
    };
    // A session that opens was minted by this service (its id cannot be guessed): when it has ended (signed out,
    // expired, its token rotated) the cookie is dropped, and nothing is spent.
    match auth::session_principal(st.app.store.as_ref(), &id, OffsetDateTime::now_utc()).await {
        Ok(Some(p)) => Resolved::Reader {
            reader: Reader::Member(p),
            stale_cookie: false,
        },
        Ok(None) => Resolved::anonymous(true),
        Err(e) => {
            tracing::error!(error = %e, "reader's session could not be checked; answering as anonymous");
            Resolved::anonymous(false)
        }
    }
}

/// Whether the service is served over HTTPS here (the session cookie is then `Secure`).
async fn over_https(st: &DocsState, parts: &mut Parts) -> bool {
    match PublicBase::from_request_parts(parts, &st.app).await {
        Ok(PublicBase(base)) => base.starts_with("https://"),
        Err(never) => match never {},
    }
}

/// The 429 page of a client whose budget of failed credential checks is spent.
fn too_many(st: &DocsState, retry: Duration) -> Response {
    let mut resp = crate::headers::error_page(
        &st.assets,
        StatusCode::TOO_MANY_REQUESTS,
        "Too many attempts",
        &format!(
            "Too many tokens that are not valid came from your network. Try again in {} s.",
            retry_after_secs(retry)
        ),
    );
    set_retry_after(&mut resp, retry);
    resp
}

/// The middleware of every public route (see the module documentation).
pub async fn readers(State(st): State<DocsState>, req: Request, next: Next) -> Response {
    if req.uri().path().starts_with(crate::headers::STATIC_PREFIX) {
        return next.run(req).await;
    }
    let (mut parts, body) = req.into_parts();
    let (reader, stale_cookie) = match resolve(&st, &parts).await {
        Resolved::Reader {
            reader,
            stale_cookie,
        } => (reader, stale_cookie),
        Resolved::Limited(retry) => {
            let mut resp = too_many(&st, retry);
            resp.headers_mut().append(
                header::VARY,
                HeaderValue::from_static("Authorization, Cookie"),
            );
            return resp;
        }
    };
    let secure = if stale_cookie {
        over_https(&st, &mut parts).await
    } else {
        false
    };
    let member = matches!(reader, Reader::Member(_));
    parts.extensions.insert(Viewer(reader));
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
    let mut resp = crate::request::scope(info, next.run(req)).await;
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

/// A return path that stays on this site: a path starting with one `/` (not `//`, no backslash, no control
/// character), at most [`MAX_NEXT`] characters; anything else returns to the sign-in page.
pub fn local_path(next: &str) -> &str {
    let ok = next.starts_with('/')
        && !next.starts_with("//")
        && next.len() <= MAX_NEXT
        && !next.chars().any(|c| c == '\\' || c.is_control());
    if ok { next } else { SIGN_IN_PATH }
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

/// Whether a form post comes from a page of this site: its `Origin` (browsers send it on every POST) is this
/// service's origin exactly (scheme, host and port), or, without `Origin`, `Sec-Fetch-Site` says `same-origin`.
/// A post from another site, from a page served over another scheme, or with neither header is refused, so no
/// other site can sign a reader in or out.
pub(crate) fn same_origin(config: &ApiConfig, headers: &HeaderMap) -> bool {
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

/// The answer to a post that did not come from this site's pages.
fn cross_site(st: &DocsState, what: &str, advice: &str) -> Response {
    crate::headers::error_page(&st.assets, StatusCode::FORBIDDEN, what, advice)
}

/// `POST /sign-in` (form: `token`, `next`).
#[instrument(skip_all)]
pub async fn sign_in(State(st): State<DocsState>, req: Request) -> Response {
    let (mut parts, body) = req.into_parts();
    if !same_origin(&st.app.config, &parts.headers) {
        return cross_site(
            &st,
            "Sign-in refused",
            "Sign in from this site's own sign-in page.",
        );
    }
    let client = client_of(&parts.extensions);
    if let Err(retry) = budget_left(&st, &client) {
        let mut resp = sign_in_page(
            &st,
            StatusCode::TOO_MANY_REQUESTS,
            "",
            Some(&format!(
                "Too many sign-in attempts with tokens that are not valid came from your network. Try again in {} s.",
                retry_after_secs(retry)
            )),
            None,
        );
        set_retry_after(&mut resp, retry);
        return resp;
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
    let refused = |message: &str| {
        spend_failure(&st, &client);
        sign_in_page(&st, StatusCode::UNAUTHORIZED, &next, Some(message), None)
    };
    if token.is_empty() {
        return refused("Paste a token to sign in.");
    }
    if token.len() > MAX_TOKEN_LEN {
        return refused("This token is not valid.");
    }
    let started = auth::start_session(
        st.app.store.as_ref(),
        token,
        OffsetDateTime::now_utc(),
        session::session_life(),
    )
    .await;
    let session = match started {
        Ok((_, session)) => session,
        Err(DomainError::Unauthorized) => {
            return refused(
                "This token is not valid: check it was copied whole, and that it was not rotated.",
            );
        }
        Err(e) => {
            tracing::error!(error = %e, "a session could not be started");
            return sign_in_page(
                &st,
                StatusCode::SERVICE_UNAVAILABLE,
                &next,
                Some("The token could not be checked just now. Try again in a moment."),
                None,
            );
        }
    };
    let secure = over_https(&st, &mut parts).await;
    let cookie = session::start_cookie(&session::seal(&session.id, SystemTime::now()), secure);
    let mut resp = Redirect::to(local_path(&next)).into_response();
    *resp.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        resp.headers_mut().insert(header::SET_COOKIE, v);
    }
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// `POST /sign-out`: the session is deleted (a copy of its cookie opens nothing any more) and the cookie dropped.
#[instrument(skip_all)]
pub async fn sign_out(State(st): State<DocsState>, mut parts: Parts) -> Response {
    if !same_origin(&st.app.config, &parts.headers) {
        return cross_site(
            &st,
            "Sign-out refused",
            "Sign out from this site's own pages.",
        );
    }
    let id =
        session::cookie_value(&parts.headers).and_then(|v| session::open(v, SystemTime::now()));
    if let Some(id) = id
        && let Err(e) = auth::end_session(st.app.store.as_ref(), &id).await
    {
        tracing::error!(error = %e, "a session could not be ended");
        return crate::headers::error_page(
            &st.assets,
            StatusCode::SERVICE_UNAVAILABLE,
            "Sign-out failed",
            "The session could not be ended just now. Try again in a moment.",
        );
    }
    let secure = over_https(&st, &mut parts).await;
    let mut resp = Redirect::to(SIGN_IN_PATH).into_response();
    *resp.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(v) = HeaderValue::from_str(&session::end_cookie(secure)) {
        resp.headers_mut().insert(header::SET_COOKIE, v);
    }
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
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
}
