//! The organization's OpenID provider (issue 40), organization token only:
//!
//! - `PUT /api/v1/sso` `{issuer, client_id, client_secret, allowed_domains?, groups_claim?, allowed_groups?}`: sets
//!   it (200). The client secret is write-only: sealed at rest, never answered; it may be left out while the issuer
//!   and client id stay the same. Changing either ends every session the previous provider started.
//! - `GET /api/v1/sso`: the settings without the secret, plus the `redirect_uri` to register at the provider and
//!   the label of the sign-in button; 404 when none is set.
//! - `DELETE /api/v1/sso`: 204; every session it started ends at once.
//!
//! A plain `http` issuer is refused unless it is on a loopback address and `SPECPRESS_ALLOW_LOOPBACK_URLS=true`.

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::urls::public_base;
use specpress_api::{AppState, Result};
use specpress_domain::DomainError;
use specpress_domain::sso::{SsoInput, SsoSettings};
use specpress_domain::usecases::sso;
use time::OffsetDateTime;

/// Where the provider sends readers back, under the public base URL (on a custom hostname, that hostname's).
pub const CALLBACK_PATH: &str = "/sign-in/oidc/callback";

/// The routes of `/api/v1/sso`. The client secret is sealed with the state's sealer (`AppState::sealer`).
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/v1/sso", get(show).put(put).delete(remove))
        .with_state(state)
}

/// The settings as answered: never the secret.
#[derive(Debug, Serialize)]
struct Shown {
    issuer: String,
    client_id: String,
    /// Always true: a secret is stored (it is never shown).
    client_secret_set: bool,
    allowed_domains: Vec<String>,
    groups_claim: Option<String>,
    allowed_groups: Vec<String>,
    /// The redirect URI to register at the provider.
    redirect_uri: String,
    /// What the sign-in page's button says after "Sign in with".
    provider: String,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    updated_at: OffsetDateTime,
}

fn shown(s: &SsoSettings, base: &str) -> Shown {
    Shown {
        issuer: s.issuer.clone(),
        client_id: s.client_id.clone(),
        client_secret_set: true,
        allowed_domains: s.allowed_domains.iter().map(|d| d.to_string()).collect(),
        groups_claim: s.groups_claim.clone(),
        allowed_groups: s.allowed_groups.clone(),
        redirect_uri: format!("{}{CALLBACK_PATH}", base.trim_end_matches('/')),
        provider: s.provider_label(),
        created_at: s.created_at,
        updated_at: s.updated_at,
    }
}

async fn put(
    State(st): State<AppState>,
    Auth(p): Auth,
    headers: HeaderMap,
    JsonBody(input): JsonBody<SsoInput>,
) -> Result<Response> {
    let Some(sealer) = &st.sealer else {
        return Err(DomainError::unexpected(
            "no secret key is configured (SPECPRESS_WEBHOOK_SECRET_KEY): a client secret cannot be sealed",
        )
        .into());
    };
    let allow_loopback = st.settings.webhooks.allow_loopback_urls;
    let settings = sso::put_sso(
        st.store.as_ref(),
        sealer,
        &p,
        &input,
        allow_loopback,
        st.now(),
    )
    .await?;
    tracing::info!(org = %p.org_id, "identity provider set");
    let base = public_base(&st.config, &headers);
    Ok((StatusCode::OK, axum::Json(shown(&settings, &base))).into_response())
}

async fn show(State(st): State<AppState>, Auth(p): Auth, headers: HeaderMap) -> Result<Response> {
    let settings = sso::get_sso(st.store.as_ref(), &p).await?;
    let base = public_base(&st.config, &headers);
    Ok(axum::Json(shown(&settings, &base)).into_response())
}

async fn remove(State(st): State<AppState>, Auth(p): Auth) -> Result<Response> {
    sso::delete_sso(st.store.as_ref(), &p).await?;
    tracing::info!(org = %p.org_id, "identity provider removed");
    Ok(StatusCode::NO_CONTENT.into_response())
}
