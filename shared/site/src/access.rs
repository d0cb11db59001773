//! Private documentation's sign-in (who is reading is `specpress_api::readers`, shared with the MCP servers and
//! "Try it").
//!
//! - `GET /sign-in[?next=/doc/...]`: the form (a token, posted), or, signed in, who you are and a sign-out button.
//! - `POST /sign-in`: a valid token (organization, hub, documentation or reader token) starts a session (a stored
//!   item, [`readers::start_reader_session`], never outliving a reader token's expiry; an `HttpOnly`,
//!   `SameSite=Lax` cookie naming it, `Secure` over HTTPS, lasting [`SESSION_HOURS`] hours) and returns to `next`;
//!   a refused token answers 401 with the form again, and spends one failed credential check of the client's
//!   budget (a client whose budget is spent gets 429 with `Retry-After`, before the token is checked).
//! - `POST /sign-out`: deletes the session, so a copy of the cookie opens nothing any more, and drops the cookie.
//!
//! - `GET /sign-in/oidc` and `GET /sign-in/oidc/callback`: signing in through the organization's identity provider
//!   (`crate::oidc`), offered on the sign-in page when the page to return to admits provider readers.
//!
//! Both posts must come from this site's own pages ([`same_origin`]); anything else is 403.
//!
//! A reader who may not see a private documentation gets exactly the page an unknown slug gets (404); every 404
//! page offers the sign-in link, so the link itself tells nothing.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use specpress_api::ApiConfig;
use specpress_api::limit::{retry_after_secs, set_retry_after};
use specpress_api::readers::{Credentials, Viewer, over_https, same_origin};
use specpress_api::session::{self, SESSION_HOURS};
use specpress_domain::DomainError;
use specpress_domain::ports::Store;
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::auth::{self, MAX_TOKEN_LEN};
use specpress_domain::usecases::public::Reader;
use specpress_domain::usecases::readers;
use time::OffsetDateTime;
use tracing::instrument;

use specpress_domain::ports::IdentityProvider;
use specpress_domain::webhooks::SecretSealer;

use crate::SiteState;
use crate::assets::{error_page, shell};
use crate::provider::{self, OIDC_PATH};
pub use crate::request::{SIGN_IN_PATH, SIGN_OUT_PATH};

/// Largest sign-in form body read.
const MAX_FORM_BYTES: usize = 4 * 1024;
/// Longest return path kept.
const MAX_NEXT: usize = 2_048;

/// What the sign-in pages use: the storage ports (sessions, tokens), the HTTP settings (this service's origin, is it
/// served over HTTPS) and the client's budget of failed credential checks.
#[derive(Clone)]
pub struct Access {
    pub store: Arc<dyn Store>,
    pub config: Arc<ApiConfig>,
    pub credentials: Credentials,
    /// The relying party of sign-ins through organizations' identity providers, and the sealer that opens their
    /// client secrets; `None` when the process has no secret key (then no provider is offered).
    pub identity: Option<(Arc<dyn IdentityProvider>, SecretSealer)>,
}

/// The routes of the sign-in pages.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route(SIGN_IN_PATH, get(sign_in_form).post(sign_in))
        .route(SIGN_OUT_PATH, post(sign_out))
}

/// The 429 page of a client whose budget of failed credential checks is spent (answered by the readers middleware
/// to any request carrying credentials).
pub fn too_many_attempts(retry: Duration) -> Response {
    let mut resp = error_page(
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

/// How the sign-in page names what the reader signed in with (`None`: not signed in).
fn reader_words(reader: &Reader) -> Option<&'static str> {
    match reader {
        Reader::Anonymous => None,
        Reader::Member(p) => Some(token_words(p)),
        Reader::ReaderToken(_) => Some("a reader token"),
        Reader::Sso(_) => Some("your organization's identity provider"),
    }
}

/// The sign-in page: its status, the form or the signed-in state, never cached or indexed.
pub(crate) fn sign_in_page(
    status: StatusCode,
    next: &str,
    message: Option<&str>,
    who: Option<&'static str>,
) -> Response {
    sign_in_page_offering(status, next, message, who, None)
}

/// [`sign_in_page`], offering the sign-in through `provider` (its label) beside the token form.
fn sign_in_page_offering(
    status: StatusCode,
    next: &str,
    message: Option<&str>,
    who: Option<&'static str>,
    provider: Option<&str>,
) -> Response {
    let provider_href = format!(
        "{OIDC_PATH}?next={}",
        form_urlencoded::byte_serialize(local_path(next).as_bytes()).collect::<String>()
    );
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
        signed_in_as: who,
        hours: SESSION_HOURS,
        max_token: MAX_TOKEN_LEN,
        provider,
        provider_href: &provider_href,
    });
    let html = shell(heading, &body);
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
pub(crate) fn form_value(text: &str, name: &str) -> Option<String> {
    form_urlencoded::parse(text.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The `next` of a request's query string (empty when absent or too long).
pub(crate) fn next_of(parts: &Parts) -> String {
    parts
        .uri
        .query()
        .filter(|q| q.len() <= MAX_NEXT * 3)
        .and_then(|q| form_value(q, "next"))
        .unwrap_or_default()
}

/// `GET /sign-in`: the organization's provider is offered when the page to return to admits its readers.
#[instrument(skip_all)]
pub async fn sign_in_form(
    State(access): State<Access>,
    Viewer(reader): Viewer,
    parts: Parts,
) -> Response {
    let next = next_of(&parts);
    let who = reader_words(&reader);
    let provider = match (&access.identity, who) {
        (Some(_), None) => provider::offered(access.store.as_ref(), local_path(&next)).await,
        _ => None,
    };
    let label = provider.as_ref().map(|p| p.provider_label());
    sign_in_page_offering(StatusCode::OK, &next, None, who, label.as_deref())
}

/// The answer to a post that did not come from this site's pages.
pub(crate) fn cross_site(what: &str, advice: &str) -> Response {
    error_page(StatusCode::FORBIDDEN, what, advice)
}

/// `POST /sign-in` (form: `token`, `next`).
#[instrument(skip_all)]
pub async fn sign_in(State(access): State<Access>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    if !same_origin(&access.config, &parts.headers) {
        return cross_site(
            "Sign-in refused",
            "Sign in from this site's own sign-in page.",
        );
    }
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return sign_in_page(
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
    // The API's rule (`CredentialLimit`): a token in the format Specpress mints is never refused by the budget nor
    // spends it; anything else is refused while the client's budget is spent, before it is checked.
    let limit = access.credentials.limit(&parts.extensions);
    if let Err(retry) = limit.admit(Some(token)) {
        let mut resp = sign_in_page(
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
    let refused = |message: &str| {
        limit.failed(Some(token));
        sign_in_page(StatusCode::UNAUTHORIZED, &next, Some(message), None)
    };
    if token.is_empty() {
        return refused("Paste a token to sign in.");
    }
    if token.len() > MAX_TOKEN_LEN {
        return refused("This token is not valid.");
    }
    let started = readers::start_reader_session(
        access.store.as_ref(),
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
                StatusCode::SERVICE_UNAVAILABLE,
                &next,
                Some("The token could not be checked just now. Try again in a moment."),
                None,
            );
        }
    };
    let secure = over_https(&access.config, &parts.headers);
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
pub async fn sign_out(State(access): State<Access>, parts: Parts) -> Response {
    if !same_origin(&access.config, &parts.headers) {
        return cross_site("Sign-out refused", "Sign out from this site's own pages.");
    }
    let id =
        session::cookie_value(&parts.headers).and_then(|v| session::open(v, SystemTime::now()));
    if let Some(id) = id
        && let Err(e) = auth::end_session(access.store.as_ref(), &id).await
    {
        tracing::error!(error = %e, "a session could not be ended");
        return error_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Sign-out failed",
            "The session could not be ended just now. Try again in a moment.",
        );
    }
    let secure = over_https(&access.config, &parts.headers);
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
}
