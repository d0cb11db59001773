//! The owner's view of the readers following a documentation or hub by email (issue 38):
//!
//! - `GET /api/v1/docs/{doc}/subscribers` and `GET /api/v1/hubs/{hub}/subscribers` (any token that reaches it, as the
//!   reader tokens' routes): `{subscribers: [{id, address, scope, operation, breaking_only, cadence, state,
//!   created_at, confirmed_at}], counts: {total, by_state, by_cadence}}`, oldest first. Addresses are masked
//!   (`j***@e***.com`): the owner never sees one whole. Pending requests past their 48 hours are left out.
//! - `DELETE .../subscribers/{id}`: 204; the follower and its sealed address are deleted, it receives nothing more.
//!
//! A hub's listing holds the hub's own followers (a documentation's followers are listed on the documentation).

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use serde::Serialize;
use specpress_api::auth::Auth;
use specpress_api::{AppState, Result};
use specpress_domain::DomainError;
use specpress_domain::follow::{Follower, FollowerId, mask};
use specpress_domain::token::Principal;
use specpress_domain::usecases::follow;
use specpress_domain::usecases::readers::{Target, resolve_target};
use specpress_domain::webhooks::SecretSealer;
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// The subscribers routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/v1/docs/{doc}/subscribers", get(list_doc))
        .route("/api/v1/docs/{doc}/subscribers/{id}", delete(remove_doc))
        .route("/api/v1/hubs/{hub}/subscribers", get(list_hub))
        .route("/api/v1/hubs/{hub}/subscribers/{id}", delete(remove_hub))
        .with_state(state)
}

/// One follower as the owner sees it.
#[derive(Debug, Serialize)]
struct Listed {
    id: String,
    /// Masked: `j***@e***.com`.
    address: String,
    /// `doc` or `hub`.
    scope: &'static str,
    operation: Option<String>,
    breaking_only: bool,
    cadence: &'static str,
    state: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    confirmed_at: Option<OffsetDateTime>,
}

#[derive(Debug, Serialize)]
struct Counts {
    total: usize,
    by_state: BTreeMap<&'static str, usize>,
    by_cadence: BTreeMap<&'static str, usize>,
}

#[derive(Debug, Serialize)]
struct Listing {
    subscribers: Vec<Listed>,
    counts: Counts,
}

fn listed(f: &Follower, sealer: &SecretSealer) -> Listed {
    // An address that does not open (another key) is shown fully masked rather than failing the whole list.
    let address = f
        .address(sealer)
        .map(|a| mask(&a))
        .unwrap_or_else(|_| "***@***".to_owned());
    Listed {
        id: f.id.to_string(),
        address,
        scope: f.scope.kind(),
        operation: f.operation.clone(),
        breaking_only: f.breaking_only,
        cadence: f.cadence.as_str(),
        state: f.state.as_str(),
        created_at: f.created_at,
        confirmed_at: f.confirmed_at,
    }
}

fn no_key() -> DomainError {
    DomainError::unexpected(
        "no secret key is configured (SPECPRESS_WEBHOOK_SECRET_KEY): followers' addresses cannot be opened",
    )
}

async fn list(st: &AppState, p: &Principal, target: Target<'_>) -> Result<Response> {
    let scope = resolve_target(st.store.as_ref(), p, target).await?;
    let sealer = st.sealer.as_ref().ok_or_else(no_key)?;
    let followers = st.store.list_followers(scope, st.now()).await?;
    let mut by_state = BTreeMap::from([("pending", 0), ("confirmed", 0), ("suspended", 0)]);
    let mut by_cadence = BTreeMap::from([("release", 0), ("daily", 0), ("weekly", 0)]);
    for f in &followers {
        *by_state.entry(f.state.as_str()).or_default() += 1;
        *by_cadence.entry(f.cadence.as_str()).or_default() += 1;
    }
    let body = Listing {
        subscribers: followers.iter().map(|f| listed(f, sealer)).collect(),
        counts: Counts {
            total: followers.len(),
            by_state,
            by_cadence,
        },
    };
    Ok((StatusCode::OK, axum::Json(body)).into_response())
}

async fn remove(st: &AppState, p: &Principal, target: Target<'_>, id: &str) -> Result<Response> {
    let scope = resolve_target(st.store.as_ref(), p, target).await?;
    let id =
        FollowerId::parse(id.trim()).ok_or_else(|| DomainError::NotFound("Not found".into()))?;
    follow::remove_follower(st.store.as_ref(), p.org_id, scope, id, st.now()).await?;
    tracing::info!(follower = %id, "follower removed by the owner");
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn list_doc(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
) -> Result<Response> {
    list(&st, &p, Target::Doc(&doc)).await
}

async fn list_hub(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(hub): Path<String>,
) -> Result<Response> {
    list(&st, &p, Target::Hub(&hub)).await
}

async fn remove_doc(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
) -> Result<Response> {
    remove(&st, &p, Target::Doc(&doc), &id).await
}

async fn remove_hub(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path((hub, id)): Path<(String, String)>,
) -> Result<Response> {
    remove(&st, &p, Target::Hub(&hub), &id).await
}
