//! The reader routes of `/api/v1` (issue 40): reader tokens, which let someone read a private documentation or hub
//! without any right to change it.
//!
//! - `POST /api/v1/docs/{doc}/reader_tokens` and `POST /api/v1/hubs/{hub}/reader_tokens` `{name, expires_at?}`
//!   (an organization token, the hub's token, or the documentation's own): 201 `{id, name, token, expires_at,
//!   created_at}`; the token (`sp_read_...`) is in this answer only.
//! - `GET` of the same paths: the live reader tokens, oldest first, paginated: `{id, name, expires_at, created_at,
//!   last_used_at}`, never a secret.
//! - `DELETE .../reader_tokens/{id}`: 204; the token opens nothing from this moment, and the sessions started with
//!   it end.
//!
//! A reader token is no API token: presented to any route of `/api/v1` it is answered as no token at all (the API's
//! authentication never resolves it). It opens what it names on the reader surfaces (`specpress_api::readers`).
//!
//! - `PUT`, `GET`, `DELETE /api/v1/sso`: the organization's OpenID provider, through which readers sign in to the
//!   documentations and hubs that admit them (`sso_readers`); see [`sso`].
//!
//! - `GET /api/v1/docs/{doc}/subscribers`, `GET /api/v1/hubs/{hub}/subscribers`, `DELETE .../subscribers/{id}`: the
//!   readers following by email, addresses masked, and their counts; see [`subscribers`].
//!
//! [`router`] is mounted by the hubs Lambda and by `specpress serve`.

pub mod sso;
pub mod subscribers;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::pagination::{ListRequest, paginate};
use specpress_api::{AppState, Result};
use specpress_domain::DomainError;
use specpress_domain::readers::ReaderToken;
use specpress_domain::usecases::readers::{self, Target};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The reader routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route(
            "/api/v1/docs/{doc}/reader_tokens",
            get(list_doc).post(create_doc),
        )
        .route("/api/v1/docs/{doc}/reader_tokens/{id}", delete(revoke_doc))
        .route(
            "/api/v1/hubs/{hub}/reader_tokens",
            get(list_hub).post(create_hub),
        )
        .route("/api/v1/hubs/{hub}/reader_tokens/{id}", delete(revoke_hub))
        .with_state(state.clone())
        .merge(subscribers::router(state.clone()))
        .merge(sso::router(state))
}

/// `POST .../reader_tokens` body. Unknown fields are refused (422).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateRequest {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    expires_at: Option<Value>,
}

/// 201 of `POST .../reader_tokens`: the only answer that holds the secret.
#[derive(Debug, Serialize)]
struct Created {
    id: String,
    name: String,
    token: String,
    #[serde(with = "time::serde::rfc3339::option")]
    expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

/// One reader token of a listing: never its secret.
#[derive(Debug, Serialize)]
struct Listed {
    id: String,
    name: String,
    #[serde(with = "time::serde::rfc3339::option")]
    expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    /// When it last opened something, to the hour (`null`: never used).
    #[serde(with = "time::serde::rfc3339::option")]
    last_used_at: Option<OffsetDateTime>,
    /// Sort key: creation time, then id (not shown).
    #[serde(skip)]
    key: String,
}

fn listed(t: ReaderToken) -> Listed {
    Listed {
        key: format!(
            "{:020}:{}",
            t.created_at.unix_timestamp_nanos().max(0),
            t.id
        ),
        id: t.id.to_string(),
        name: t.name,
        expires_at: t.expires_at,
        created_at: t.created_at,
        last_used_at: t.last_used_at,
    }
}

/// The name and expiry a body gives, with a 422 naming the member that is wrong.
fn read_body(req: &CreateRequest) -> Result<(String, Option<OffsetDateTime>)> {
    let name = match &req.name {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => {
            return Err(DomainError::invalid(
                "name",
                "name is required: say who the token is for (\"Partner X\")",
            )
            .into());
        }
        Some(_) => return Err(DomainError::invalid("name", "name must be a string").into()),
    };
    let expires_at = match &req.expires_at {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(OffsetDateTime::parse(s.trim(), &Rfc3339).map_err(|_| {
            DomainError::invalid(
                "expires_at",
                "expires_at must be a date and time in RFC 3339 form, such as 2027-01-31T00:00:00Z",
            )
        })?),
        Some(_) => {
            return Err(DomainError::invalid(
                "expires_at",
                "expires_at must be a date and time in RFC 3339 form, such as 2027-01-31T00:00:00Z",
            )
            .into());
        }
    };
    Ok((name, expires_at))
}

async fn create(
    st: &AppState,
    p: &specpress_domain::token::Principal,
    target: Target<'_>,
    req: &CreateRequest,
) -> Result<Response> {
    let (name, expires_at) = read_body(req)?;
    let (token, minted) =
        readers::create_reader_token(st.store.as_ref(), p, target, &name, expires_at, st.now())
            .await?;
    tracing::info!(reader_token = %token.id, "reader token created");
    let body = Created {
        id: token.id.to_string(),
        name: token.name,
        token: minted.secret,
        expires_at: token.expires_at,
        created_at: token.created_at,
    };
    Ok((StatusCode::CREATED, axum::Json(body)).into_response())
}

async fn list(
    st: &AppState,
    p: &specpress_domain::token::Principal,
    target: Target<'_>,
    req: &ListRequest,
) -> Result<Response> {
    let tokens = readers::list_reader_tokens(st.store.as_ref(), p, target, st.now()).await?;
    let scope = match target {
        Target::Doc(d) => format!("reader-tokens:{}:doc:{d}", p.org_id),
        Target::Hub(h) => format!("reader-tokens:{}:hub:{h}", p.org_id),
    };
    let items: Vec<Listed> = tokens.into_iter().map(listed).collect();
    paginate(req, &scope, items, |t| t.key.clone())
}

async fn revoke(
    st: &AppState,
    p: &specpress_domain::token::Principal,
    target: Target<'_>,
    id: &str,
) -> Result<Response> {
    readers::revoke_reader_token(st.store.as_ref(), p, target, id).await?;
    tracing::info!(reader_token = %id, "reader token revoked");
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn create_doc(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    JsonBody(req): JsonBody<CreateRequest>,
) -> Result<Response> {
    create(&st, &p, Target::Doc(&doc), &req).await
}

async fn create_hub(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(hub): Path<String>,
    JsonBody(req): JsonBody<CreateRequest>,
) -> Result<Response> {
    create(&st, &p, Target::Hub(&hub), &req).await
}

async fn list_doc(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    req: ListRequest,
) -> Result<Response> {
    list(&st, &p, Target::Doc(&doc), &req).await
}

async fn list_hub(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(hub): Path<String>,
    req: ListRequest,
) -> Result<Response> {
    list(&st, &p, Target::Hub(&hub), &req).await
}

async fn revoke_doc(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path((doc, id)): Path<(String, String)>,
) -> Result<Response> {
    revoke(&st, &p, Target::Doc(&doc), &id).await
}

async fn revoke_hub(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path((hub, id)): Path<(String, String)>,
) -> Result<Response> {
    revoke(&st, &p, Target::Hub(&hub), &id).await
}
