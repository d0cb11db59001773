//! Signing in through the organization's OpenID provider (issue 40; docs/auth.md):
//!
//! - `GET /sign-in/oidc?next=...`: the page to return to must admit provider readers (`provider::offered`); the
//!   reader is sent (303) to the provider's authorization URL (code flow, PKCE S256, `state`, `nonce`), and the
//!   browser keeps the pending sign-in in a sealed `HttpOnly` cookie scoped to `/sign-in/oidc` for ten minutes.
//! - `GET /sign-in/oidc/callback?code=...&state=...`: the pending sign-in is opened, the `state` compared, the code
//!   exchanged and the ID token verified (issuer, audience, expiry, signature through the provider's keys, nonce),
//!   the organization's rules applied (`allowed_domains`, `allowed_groups`); then a session starts as with a token
//!   and the reader returns to the page. Every refusal answers the same 401 page and spends one failed credential
//!   check of the client's budget; a reader the rules refuse learns nothing a stranger would not.
//!
//! The redirect URI is `{public base}/sign-in/oidc/callback` (on a custom hostname, that hostname's): each one must
//! be registered at the provider (`GET /api/v1/sso` names the installation's).

use std::time::SystemTime;

use axum::Router;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use specpress_api::limit::{retry_after_secs, set_retry_after};
use specpress_api::readers::over_https;
use specpress_api::session;
use specpress_api::urls::public_base;
use specpress_domain::DomainError;
use specpress_domain::usecases::sso::{begin_sign_in, finish_sign_in};
use time::OffsetDateTime;
use tracing::instrument;

use crate::SiteState;
use crate::access::{Access, SIGN_IN_PATH, form_value, local_path, next_of, sign_in_page};
use crate::provider::{
    self, CALLBACK_PATH, MAX_PENDING_NEXT, OIDC_PATH, open_pending, pending_cookie,
    pending_set_cookie, seal_pending,
};

/// Longest callback query read (a code and a state are far shorter).
const MAX_QUERY: usize = 8 * 1024;

/// The routes of the provider's sign-in.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route(OIDC_PATH, get(begin))
        .route(CALLBACK_PATH, get(callback))
}

fn redirect_uri(access: &Access, parts: &Parts) -> String {
    let base = public_base(&access.config, &parts.headers);
    format!("{}{CALLBACK_PATH}", base.trim_end_matches('/'))
}

/// A 303 to `location` that nobody caches, setting `cookies`.
fn see_other(location: &str, cookies: &[String]) -> Response {
    let mut resp = StatusCode::SEE_OTHER.into_response();
    let headers = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(location) {
        headers.insert(header::LOCATION, v);
    }
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            headers.append(header::SET_COOKIE, v);
        }
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// `GET /sign-in/oidc`.
#[instrument(skip_all)]
pub async fn begin(State(access): State<Access>, parts: Parts) -> Response {
    let next = next_of(&parts);
    let next = match local_path(&next) {
        n if n.len() <= MAX_PENDING_NEXT => n.to_owned(),
        _ => SIGN_IN_PATH.to_owned(),
    };
    let not_offered = || {
        sign_in_page(
            StatusCode::NOT_FOUND,
            &next,
            Some("No identity provider signs readers in to this page: sign in with a token."),
            None,
        )
    };
    let Some((identity, sealer)) = &access.identity else {
        return not_offered();
    };
    let Some(settings) = provider::offered(access.store.as_ref(), &next).await else {
        return not_offered();
    };
    let now = OffsetDateTime::now_utc();
    let started = begin_sign_in(
        access.store.as_ref(),
        identity.as_ref(),
        sealer,
        settings.org_id,
        &redirect_uri(&access, &parts),
        &next,
        now,
    )
    .await;
    let (url, pending) = match started {
        Ok(found) => found,
        Err(e) => {
            tracing::error!(error = %e, org = %settings.org_id, "a provider sign-in could not start");
            return sign_in_page(
                StatusCode::SERVICE_UNAVAILABLE,
                &next,
                Some("The identity provider could not be reached just now. Try again in a moment."),
                None,
            );
        }
    };
    let Some(sealed) = seal_pending(&pending, SystemTime::now()) else {
        return sign_in_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            &next,
            Some("The sign-in could not start."),
            None,
        );
    };
    let secure = over_https(&access.config, &parts.headers);
    see_other(&url, &[pending_set_cookie(Some(&sealed), secure)])
}

/// `GET /sign-in/oidc/callback`.
#[instrument(skip_all)]
pub async fn callback(State(access): State<Access>, parts: Parts) -> Response {
    let secure = over_https(&access.config, &parts.headers);
    let query = parts
        .uri
        .query()
        .filter(|q| q.len() <= MAX_QUERY)
        .unwrap_or_default();
    let pending = pending_cookie(&parts.headers).and_then(|v| open_pending(v, SystemTime::now()));
    let next = pending
        .as_ref()
        .map_or(SIGN_IN_PATH, |p| local_path(&p.next))
        .to_owned();
    let limit = access.credentials.limit(&parts.extensions);
    if let Err(retry) = limit.admit(None) {
        let mut resp = sign_in_page(
            StatusCode::TOO_MANY_REQUESTS,
            &next,
            Some(&format!(
                "Too many sign-ins that did not succeed came from your network. Try again in {} s.",
                retry_after_secs(retry)
            )),
            None,
        );
        set_retry_after(&mut resp, retry);
        return resp;
    }
    // Every refusal: the same page, one failure spent, the pending sign-in dropped.
    let refused = |message: &str| {
        limit.failed(None);
        let mut resp = sign_in_page(StatusCode::UNAUTHORIZED, &next, Some(message), None);
        if let Ok(v) = HeaderValue::from_str(&pending_set_cookie(None, secure)) {
            resp.headers_mut().append(header::SET_COOKIE, v);
        }
        resp
    };
    let Some(pending) = pending else {
        return refused(
            "This sign-in expired or began in another browser. Start it again from the sign-in page.",
        );
    };
    if form_value(query, "error").is_some() {
        return refused("The identity provider did not sign you in.");
    }
    let (Some(identity), state, code) = (
        access.identity.as_ref(),
        form_value(query, "state").unwrap_or_default(),
        form_value(query, "code").unwrap_or_default(),
    ) else {
        return refused("Sign-in with an identity provider is not available here.");
    };
    let (provider, sealer) = identity;
    let finished = finish_sign_in(
        access.store.as_ref(),
        provider.as_ref(),
        sealer,
        &pending,
        &state,
        &code,
        &redirect_uri(&access, &parts),
        OffsetDateTime::now_utc(),
        session::session_life(),
    )
    .await;
    let session = match finished {
        Ok((_, session)) => session,
        Err(DomainError::Unauthorized) => {
            return refused(
                "The sign-in did not succeed, or your account may not read this documentation. Ask its owner, or sign in with a token.",
            );
        }
        Err(e) => {
            tracing::error!(error = %e, "a provider sign-in could not finish");
            return sign_in_page(
                StatusCode::SERVICE_UNAVAILABLE,
                &next,
                Some("The sign-in could not be checked just now. Try again in a moment."),
                None,
            );
        }
    };
    let started = session::start_cookie(&session::seal(&session.id, SystemTime::now()), secure);
    see_other(&next, &[started, pending_set_cookie(None, secure)])
}
