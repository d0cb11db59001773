//! Custom hostnames (issue 40), served by the hubs function and `specpress serve` (organization token):
//!
//! - `PUT /api/v1/docs/{doc}/domain` and `/api/v1/hubs/{hub}/domain` `{"hostname": "docs.example.com"}`: sets the
//!   hostname, pending until verified: `{hostname, status: "pending", verification: {type: "TXT", name:
//!   "_specpress.<hostname>", value}}`. Setting another hostname replaces the previous one at once.
//! - `POST .../domain/verify`: looks the TXT record up; `status: "verified"` when a record there holds exactly the
//!   value, else 422 saying what the lookup found. From then on the hostname serves (`specpress_api::hosts`).
//! - `GET .../domain`: the hostname and its status; `DELETE .../domain`: removes it (204), it serves nothing more.
//!
//! `{doc}` and `{hub}` are slugs or ids. The rules (hostname syntax, one verified route per hostname across the
//! installation) are the domain's (`usecases::hostnames`); the lookups go through the [`TxtResolver`] port
//! (`specpress-dns` in the functions, `SPECPRESS_DNS_RESOLVER` naming a resolver).

use std::sync::Arc;

use axum::Extension;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::{ApiError, AppState};
use specpress_domain::hostname::CustomDomain;
use specpress_domain::ports::TxtResolver;
use specpress_domain::usecases::hostnames;
use specpress_domain::usecases::readers::Target;
use time::format_description::well_known::Rfc3339;

/// The resolver of the routes (an extension: the API's extractors take the plain [`AppState`]).
#[derive(Clone)]
struct Dns(Arc<dyn TxtResolver>);

/// The custom hostname routes, looking TXT records up through `dns`.
pub fn router(app: AppState, dns: Arc<dyn TxtResolver>) -> Router {
    Router::new()
        .route(
            "/api/v1/docs/{doc}/domain",
            get(show_doc).put(set_doc).delete(delete_doc),
        )
        .route("/api/v1/docs/{doc}/domain/verify", post(verify_doc))
        .route(
            "/api/v1/hubs/{hub}/domain",
            get(show_hub).put(set_hub).delete(delete_hub),
        )
        .route("/api/v1/hubs/{hub}/domain/verify", post(verify_hub))
        .layer(Extension(Dns(dns)))
        .with_state(app)
}

/// `PUT .../domain` body. Unknown fields are refused (422).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetRequest {
    hostname: String,
}

/// The TXT record that proves control of the hostname.
#[derive(Debug, Serialize)]
struct Verification {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
    value: String,
}

/// A hostname as the API shows it.
#[derive(Debug, Serialize)]
struct DomainJson {
    hostname: String,
    status: &'static str,
    verification: Verification,
    created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    verified_at: Option<String>,
}

fn domain_json(d: &CustomDomain) -> Response {
    let time = |t: time::OffsetDateTime| t.format(&Rfc3339).unwrap_or_default();
    axum::Json(DomainJson {
        hostname: d.hostname.to_string(),
        status: d.status.as_str(),
        verification: Verification {
            kind: "TXT",
            name: d.hostname.txt_name(),
            value: d.value.clone(),
        },
        created_at: time(d.created_at),
        verified_at: d.verified_at.map(time),
    })
    .into_response()
}

async fn set(
    st: &AppState,
    p: &Auth,
    target: Target<'_>,
    req: SetRequest,
) -> Result<Response, ApiError> {
    let d = hostnames::set_domain(&*st.store, &p.0, target, &req.hostname, st.now()).await?;
    Ok(domain_json(&d))
}

async fn show(st: &AppState, p: &Auth, target: Target<'_>) -> Result<Response, ApiError> {
    Ok(domain_json(
        &hostnames::get_domain(&*st.store, &p.0, target).await?,
    ))
}

async fn verify(
    st: &AppState,
    dns: &Dns,
    p: &Auth,
    target: Target<'_>,
) -> Result<Response, ApiError> {
    let d = hostnames::verify_domain(&*st.store, &*dns.0, &p.0, target, st.now()).await?;
    Ok(domain_json(&d))
}

async fn delete(st: &AppState, p: &Auth, target: Target<'_>) -> Result<Response, ApiError> {
    hostnames::delete_domain(&*st.store, &p.0, target).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn set_doc(
    State(st): State<AppState>,
    p: Auth,
    Path(doc): Path<String>,
    JsonBody(req): JsonBody<SetRequest>,
) -> Result<Response, ApiError> {
    set(&st, &p, Target::Doc(&doc), req).await
}

async fn set_hub(
    State(st): State<AppState>,
    p: Auth,
    Path(hub): Path<String>,
    JsonBody(req): JsonBody<SetRequest>,
) -> Result<Response, ApiError> {
    set(&st, &p, Target::Hub(&hub), req).await
}

async fn show_doc(
    State(st): State<AppState>,
    p: Auth,
    Path(doc): Path<String>,
) -> Result<Response, ApiError> {
    show(&st, &p, Target::Doc(&doc)).await
}

async fn show_hub(
    State(st): State<AppState>,
    p: Auth,
    Path(hub): Path<String>,
) -> Result<Response, ApiError> {
    show(&st, &p, Target::Hub(&hub)).await
}

async fn verify_doc(
    State(st): State<AppState>,
    Extension(dns): Extension<Dns>,
    p: Auth,
    Path(doc): Path<String>,
) -> Result<Response, ApiError> {
    verify(&st, &dns, &p, Target::Doc(&doc)).await
}

async fn verify_hub(
    State(st): State<AppState>,
    Extension(dns): Extension<Dns>,
    p: Auth,
    Path(hub): Path<String>,
) -> Result<Response, ApiError> {
    verify(&st, &dns, &p, Target::Hub(&hub)).await
}

async fn delete_doc(
    State(st): State<AppState>,
    p: Auth,
    Path(doc): Path<String>,
) -> Result<Response, ApiError> {
    delete(&st, &p, Target::Doc(&doc)).await
}

async fn delete_hub(
    State(st): State<AppState>,
    p: Auth,
    Path(hub): Path<String>,
) -> Result<Response, ApiError> {
    delete(&st, &p, Target::Hub(&hub)).await
}
