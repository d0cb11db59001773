//! Readers following a documentation or a hub by email (issue 38; docs/followers.md).
//!
//! - `POST /doc/{doc}/follow`, `POST /hub/{hub}/follow` (the "Follow changes" form of every documentation, hub and
//!   operation page: `email`, `cadence`, `breaking_only=on`, `operation`): answers "check your mail" whatever the
//!   address (known, confirmed, over its quota: the same page), 422 for a malformed form, 429 past the client's
//!   limit, 413 for a body over [`MAX_FORM_BYTES`], 503 when the process sends no mail. Only from this site's own
//!   pages ([`same_origin`]). A private documentation or hub answers a reader who may not see it exactly as an
//!   unknown one (404): only a signed-in reader can follow it.
//! - `GET`/`POST {page}/follow/confirm/{token}`: the confirmation page shows one button (mail scanners fetch links);
//!   the post confirms (the link is single-use).
//! - `GET {page}/follow/manage/{token}`: what the follower receives, their address masked, and an unsubscribe button.
//! - `GET`/`POST {page}/follow/unsubscribe/{token}`: a page with one button; the post unsubscribes, deleting the
//!   follower and its address. It is the mails' `List-Unsubscribe` URL (RFC 8058 one-click): a mail provider posts
//!   there without `Origin` and without a cookie, so the token in the URL is the only authority asked for.
//!
//! `{page}` is `/doc/{doc}` or `/hub/{hub}` (on a custom hostname, its own paths). The token names and
//! authenticates the follower whatever the page's key; nothing about an address is ever logged.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use specpress_api::ApiConfig;
use specpress_api::limit::{RateLimiter, client_of, retry_after_secs, set_retry_after};
use specpress_api::readers::{Viewer, same_origin};
use specpress_domain::DomainError;
use specpress_domain::follow::{Follower, LinkPurpose};
use specpress_domain::model::DocOrHub;
use specpress_domain::ports::{Mailer, Store};
use specpress_domain::urls;
use specpress_domain::usecases::follow::{self, FollowForm, FollowTarget};
use specpress_domain::webhooks::SecretSealer;
use specpress_reader::Library;
use specpress_render::follow::{FollowPage, follow_body};
use time::OffsetDateTime;
use tracing::instrument;

use crate::SiteState;
use crate::access::form_value;
use crate::assets::shell;
use crate::error::Page;
use crate::respond::origin_of;

/// Largest follow form body read.
pub const MAX_FORM_BYTES: usize = 4 * 1024;
/// Follow requests per client and minute (and the burst allowed).
pub const FOLLOWS_PER_MINUTE: u32 = 6;

/// What the follow routes use: storage, the sealer (addresses at rest, link tokens), the mailer, the per-client
/// limit of follow requests.
#[derive(Clone)]
pub struct Follow {
    pub store: Arc<dyn Store>,
    pub sealer: Option<SecretSealer>,
    pub mailer: Option<Arc<dyn Mailer>>,
    pub limiter: Option<Arc<RateLimiter>>,
}

/// The follow routes.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/doc/{doc}/follow", post(follow_doc))
        .route("/hub/{hub}/follow", post(follow_hub))
        .route(
            "/doc/{doc}/follow/confirm/{token}",
            get(confirm_page).post(confirm),
        )
        .route(
            "/hub/{hub}/follow/confirm/{token}",
            get(confirm_page).post(confirm),
        )
        .route("/doc/{doc}/follow/manage/{token}", get(manage))
        .route("/hub/{hub}/follow/manage/{token}", get(manage))
        .route(
            "/doc/{doc}/follow/unsubscribe/{token}",
            get(unsubscribe_page).post(unsubscribe),
        )
        .route(
            "/hub/{hub}/follow/unsubscribe/{token}",
            get(unsubscribe_page).post(unsubscribe),
        )
}

/// A follow page in the site's shell, never cached.
fn page(status: StatusCode, p: &FollowPage<'_>) -> Response {
    let html = shell(p.heading, &follow_body(p));
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

fn notice(status: StatusCode, heading: &str, text: &str) -> Response {
    page(
        status,
        &FollowPage {
            heading,
            paragraphs: vec![text.to_owned()],
            ..Default::default()
        },
    )
}

fn unavailable() -> Response {
    notice(
        StatusCode::SERVICE_UNAVAILABLE,
        "Following by email is not available",
        "This server sends no email, so it cannot take follow requests. Its operator can configure mail \
         (SMTP, or Amazon SES on AWS); until then, follow the changelog's Atom or RSS feed.",
    )
}

fn invalid_link() -> Response {
    notice(
        StatusCode::NOT_FOUND,
        "This link is not valid",
        "It was already used, it expired (a follow request waits 48 hours for its confirmation), or it is not \
         complete: copy the whole link from the email, or follow again from the page.",
    )
}

/// `POST /doc/{doc}/follow`.
#[instrument(skip_all)]
pub async fn follow_doc(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    State(state): State<Follow>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    req: Request,
) -> Page {
    if let Some(refused) = admit(&state, &config, &req) {
        return Ok(refused);
    }
    let doc = library.find_doc(&reader, &key).await?;
    let origin = origin_of(&config, req.headers());
    let target = FollowTarget {
        org_id: doc.org_id,
        scope: DocOrHub::Doc(doc.id),
        title: doc.name.clone(),
        scope_url: format!("{origin}{}", urls::doc_path(&doc.slug)),
    };
    let back = urls::href(urls::doc_path(&doc.slug));
    Ok(request(&state, &target, &back, req).await)
}

/// `POST /hub/{hub}/follow`.
#[instrument(skip_all)]
pub async fn follow_hub(
    State(library): State<Arc<Library>>,
    State(config): State<Arc<ApiConfig>>,
    State(state): State<Follow>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    req: Request,
) -> Page {
    if let Some(refused) = admit(&state, &config, &req) {
        return Ok(refused);
    }
    let hub = library.find_hub(&reader, &key).await?;
    let origin = origin_of(&config, req.headers());
    let target = FollowTarget {
        org_id: hub.org_id,
        scope: DocOrHub::Hub(hub.id),
        title: hub.name.clone(),
        scope_url: format!("{origin}{}", urls::hub_path(&hub.slug)),
    };
    let back = urls::href(urls::hub_path(&hub.slug));
    Ok(request(&state, &target, &back, req).await)
}

/// What refuses a follow request before anything is read: a post from another site (403), no mail or no key in
/// this process (503), the client's limit (429).
fn admit(state: &Follow, config: &ApiConfig, req: &Request) -> Option<Response> {
    if !same_origin(config, req.headers()) {
        return Some(crate::access::cross_site(
            "Follow request refused",
            "Follow from the documentation's own page.",
        ));
    }
    if state.mailer.is_none() || state.sealer.is_none() {
        return Some(unavailable());
    }
    if let Some(limiter) = &state.limiter
        && let Err(retry) = limiter.check(&client_of(req.extensions()))
    {
        let mut resp = notice(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many follow requests",
            &format!(
                "Too many follow requests came from your network. Try again in {} s.",
                retry_after_secs(retry)
            ),
        );
        set_retry_after(&mut resp, retry);
        return Some(resp);
    }
    None
}

/// Reads the form and runs the follow request.
async fn request(state: &Follow, target: &FollowTarget, back: &str, req: Request) -> Response {
    let (Some(sealer), Some(mailer)) = (&state.sealer, &state.mailer) else {
        return unavailable();
    };
    let Ok(bytes) = axum::body::to_bytes(req.into_body(), MAX_FORM_BYTES).await else {
        return notice(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The form is too large",
            "Send the follow form as the page shows it.",
        );
    };
    let text = String::from_utf8_lossy(&bytes);
    let cadence = form_value(&text, "cadence").unwrap_or_default();
    let form = FollowForm {
        email: form_value(&text, "email").unwrap_or_default(),
        cadence,
        breaking_only: form_value(&text, "breaking_only").is_some_and(|v| v == "on"),
        operation: form_value(&text, "operation"),
    };
    let now = OffsetDateTime::now_utc();
    match follow::follow(
        state.store.as_ref(),
        sealer,
        mailer.as_ref(),
        target,
        &form,
        now,
    )
    .await
    {
        Ok(()) => page(
            StatusCode::OK,
            &FollowPage {
                heading: "Check your email",
                paragraphs: vec![
                    format!(
                        "If this address can follow {}, an email with a confirmation link is on its way. Open \
                         it within 48 hours to start receiving changes; until then, nothing else is sent.",
                        target.title
                    ),
                    "No email? Look in the spam folder. An address receives at most three confirmation emails \
                     a day."
                        .to_owned(),
                ],
                back: Some((back, "Back to the documentation")),
                ..Default::default()
            },
        ),
        Err(DomainError::Invalid { message, .. }) => page(
            StatusCode::UNPROCESSABLE_ENTITY,
            &FollowPage {
                heading: "Check the form",
                paragraphs: vec![message],
                back: Some((back, "Back to the form")),
                ..Default::default()
            },
        ),
        Err(e) => {
            tracing::error!(error = %e, "a follow request failed");
            notice(
                StatusCode::SERVICE_UNAVAILABLE,
                "The request could not be sent",
                "The confirmation email could not be sent just now. Try again in a moment.",
            )
        }
    }
}

/// The path of the request (the page's own URL: the one-button forms post back to it).
fn own_path(req: &axum::http::request::Parts) -> String {
    req.uri.path().to_owned()
}

fn failed(e: DomainError) -> Response {
    tracing::error!(error = %e, "a follow link could not be answered");
    notice(
        StatusCode::SERVICE_UNAVAILABLE,
        "Try again in a moment",
        "This link could not be checked just now.",
    )
}

/// `GET {page}/follow/confirm/{token}`: one button; nothing is confirmed by opening the link.
#[instrument(skip_all)]
pub async fn confirm_page(
    State(state): State<Follow>,
    Path((_, token)): Path<(String, String)>,
    parts: axum::http::request::Parts,
) -> Response {
    let found = |f: &Follower, action: &str| {
        one_button_page(
            "Confirm that you follow",
            format!("{}.", follow::describe(f)),
            action,
            "Confirm",
        )
    };
    one_button(
        &state,
        &token,
        LinkPurpose::Confirm,
        &parts,
        found,
        invalid_link,
    )
    .await
}

/// The one-button page of a follow link: `found` renders it for the follower the token names, with the page's own
/// path as the button's action (a POST back to the link); `gone` answers a token that names none.
async fn one_button(
    state: &Follow,
    token: &str,
    purpose: LinkPurpose,
    parts: &axum::http::request::Parts,
    found: impl FnOnce(&Follower, &str) -> Response,
    gone: impl FnOnce() -> Response,
) -> Response {
    let Some(sealer) = &state.sealer else {
        return unavailable();
    };
    let now = OffsetDateTime::now_utc();
    match follow::check_link(state.store.as_ref(), sealer, token, purpose, now).await {
        Ok(Some(f)) => found(&f, &own_path(parts)),
        Ok(None) => gone(),
        Err(e) => failed(e),
    }
}

/// A page with a heading, one paragraph and one button posting to `action`.
fn one_button_page(heading: &str, paragraph: String, action: &str, label: &str) -> Response {
    page(
        StatusCode::OK,
        &FollowPage {
            heading,
            paragraphs: vec![paragraph],
            button: Some((action, label)),
            ..Default::default()
        },
    )
}

/// `POST {page}/follow/confirm/{token}`.
#[instrument(skip_all)]
pub async fn confirm(
    State(state): State<Follow>,
    Path((_, token)): Path<(String, String)>,
) -> Response {
    let Some(sealer) = &state.sealer else {
        return unavailable();
    };
    let now = OffsetDateTime::now_utc();
    match follow::confirm(state.store.as_ref(), sealer, &token, now).await {
        Ok(Some(f)) => {
            let keys = specpress_domain::follow::FollowKeys::new(sealer);
            let manage = keys
                .token(&f, LinkPurpose::Manage)
                .map(|t| format!("../manage/{t}"))
                .unwrap_or_default();
            page(
                StatusCode::OK,
                &FollowPage {
                    heading: "You follow it now",
                    paragraphs: vec![format!(
                        "{}. Every email has a link to stop.",
                        follow::describe(&f)
                    )],
                    back: Some((&manage, "See what you follow")),
                    ..Default::default()
                },
            )
        }
        Ok(None) => invalid_link(),
        Err(e) => failed(e),
    }
}

/// `GET {page}/follow/manage/{token}`.
#[instrument(skip_all)]
pub async fn manage(
    State(state): State<Follow>,
    Path((_, token)): Path<(String, String)>,
) -> Response {
    let Some(sealer) = &state.sealer else {
        return unavailable();
    };
    let now = OffsetDateTime::now_utc();
    match follow::manage(state.store.as_ref(), sealer, &token, now).await {
        Ok(Some(view)) => {
            let action = format!("../unsubscribe/{token}");
            let state_line = match view.follower.state {
                specpress_domain::follow::FollowerState::Suspended => {
                    "Mail to this address is suspended: the mail provider reported it could not be delivered. \
                     Follow again from the page to start over."
                }
                specpress_domain::follow::FollowerState::Pending => {
                    "It waits for its confirmation: open the link of the confirmation email."
                }
                specpress_domain::follow::FollowerState::Confirmed => "It is confirmed.",
            };
            page(
                StatusCode::OK,
                &FollowPage {
                    heading: "What you follow",
                    paragraphs: vec![
                        format!("{} receives: {}.", view.masked_address, view.description),
                        state_line.to_owned(),
                    ],
                    button: Some((&action, "Unsubscribe")),
                    ..Default::default()
                },
            )
        }
        Ok(None) => invalid_link(),
        Err(e) => failed(e),
    }
}

/// `GET {page}/follow/unsubscribe/{token}`: one button.
#[instrument(skip_all)]
pub async fn unsubscribe_page(
    State(state): State<Follow>,
    Path((_, token)): Path<(String, String)>,
    parts: axum::http::request::Parts,
) -> Response {
    let found = |f: &Follower, action: &str| {
        one_button_page(
            "Unsubscribe",
            format!(
                "Stop receiving: {}. Your address is deleted.",
                follow::describe(f)
            ),
            action,
            "Unsubscribe",
        )
    };
    let gone = || {
        notice(
            StatusCode::OK,
            "You are not subscribed",
            "This link follows nothing any more: you unsubscribed already, or the request was never confirmed.",
        )
    };
    one_button(&state, &token, LinkPurpose::Manage, &parts, found, gone).await
}

/// `POST {page}/follow/unsubscribe/{token}` (RFC 8058 one-click: no `Origin`, no cookie; the token is the
/// authority). The same answer whether it was subscribed or not.
#[instrument(skip_all)]
pub async fn unsubscribe(
    State(state): State<Follow>,
    Path((_, token)): Path<(String, String)>,
) -> Response {
    let Some(sealer) = &state.sealer else {
        return unavailable();
    };
    let now = OffsetDateTime::now_utc();
    match follow::unsubscribe(state.store.as_ref(), sealer, &token, now).await {
        Ok(_) => notice(
            StatusCode::OK,
            "Unsubscribed",
            "You receive no more email about it, and your address is deleted.",
        ),
        Err(e) => failed(e),
    }
}
