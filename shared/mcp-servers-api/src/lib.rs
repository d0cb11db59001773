//! The MCP servers API: workflow documents (Arazzo, Flower) published as MCP servers (docs/api.md, "MCP
//! servers"), as the router the `mcp-servers` function (and `specpress serve`) runs. Every route needs an
//! organization token.
//!
//! - `POST   /api/v1/mcp-servers` `{name, slug?, description?}`: 201 with the server's `token` (shown only here and
//!   on rotation).
//! - `GET    /api/v1/mcp-servers`: paginated list.
//! - `GET | PATCH | DELETE /api/v1/mcp-servers/{server}`: read, update (`name`, `description`, `visibility`:
//!   `public` or `private`; a private server's page answers anyone without its token or the organization's as an
//!   unknown server does), delete (204, with its versions and secrets).
//! - `POST   /api/v1/mcp-servers/{server}/rotate_token`: 200 `{token}`; the old one stops working.
//! - `POST   /api/v1/mcp-servers/{server}/deploy` `{definition, references}` (bump-cli `deploy --mcp-server`): 201
//!   `{id, mcp_server_id, mcp_server_name}`, 204 unchanged, 422 invalid; an unknown slug creates the server.
//! - `GET    /api/v1/mcp-servers/{server}/versions` (paginated, newest first), `.../versions/{version}`.
//! - `PUT | DELETE /api/v1/mcp-servers/{server}/secrets/{name}`, `GET .../secrets`: write-only secrets.

mod validate;

use axum::Router;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::{Deserialize, Serialize};
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::pagination::{ListRequest, paginate};
use specpress_api::urls::PublicBase;
use specpress_api::{ApiError, AppState};
use specpress_domain::mcp::{McpServer, McpVersion, WorkflowSummary};
use specpress_domain::model::{Bundle, Reference};
use specpress_domain::usecases::mcp_servers as uc;
use specpress_domain::webhooks::SecretSealer;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The MCP servers routes; `sealer` seals the servers' secrets (`SPECPRESS_WEBHOOK_SECRET_KEY`).
pub fn router(state: AppState, sealer: SecretSealer) -> Router {
    let api = Router::new()
        .route("/mcp-servers", post(create).get(list))
        .route(
            "/mcp-servers/{server}",
            get(show).patch(update).delete(remove),
        )
        .route("/mcp-servers/{server}/rotate_token", post(rotate_token))
        .route("/mcp-servers/{server}/deploy", post(deploy))
        .route("/mcp-servers/{server}/versions", get(versions))
        .route("/mcp-servers/{server}/versions/{version}", get(version))
        .route("/mcp-servers/{server}/secrets", get(secrets))
        .route(
            "/mcp-servers/{server}/secrets/{name}",
            put(put_secret).delete(delete_secret),
        )
        .layer(Extension(sealer));
    Router::new().nest("/api/v1", api).with_state(state)
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// A server as the API shows it (no `Debug`: it may carry the token).
#[derive(Serialize)]
struct ServerJson {
    id: String,
    slug: String,
    name: String,
    description: Option<String>,
    visibility: &'static str,
    current_version_id: Option<String>,
    mcp_url: String,
    created_at: String,
    updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
}

fn server_json(base: &str, s: &McpServer, token: Option<String>) -> ServerJson {
    ServerJson {
        id: s.id.to_string(),
        slug: s.slug.to_string(),
        name: s.name.clone(),
        description: s.description.clone(),
        visibility: s.visibility.as_str(),
        current_version_id: s.current_version_id.map(|v| v.to_string()),
        mcp_url: format!("{base}/mcp/{}", s.slug),
        created_at: rfc3339(s.created_at),
        updated_at: rfc3339(s.updated_at),
        token,
    }
}

/// A version as lists show it; one version adds its `definition`.
#[derive(Debug, Serialize)]
struct VersionJson {
    id: String,
    created_at: String,
    digest: String,
    format: String,
    format_version: String,
    title: String,
    workflows: Vec<WorkflowSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    definition: Option<String>,
}

fn version_json(v: &McpVersion, definition: Option<String>) -> VersionJson {
    VersionJson {
        id: v.id.to_string(),
        created_at: rfc3339(v.created_at),
        digest: v.digest.clone(),
        format: v.format.clone(),
        format_version: v.format_version.clone(),
        title: v.title.clone(),
        workflows: v.workflows.clone(),
        definition,
    }
}

/// `POST /mcp-servers` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: String,
    #[serde(default)]
    slug: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

/// `PATCH /mcp-servers/{server}` body; an empty or null `description` clears it; `visibility` is `public` or
/// `private`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    description: Option<Option<String>>,
    #[serde(default)]
    visibility: Option<String>,
}

/// A field that is present (even `null`) is `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// `POST /mcp-servers/{server}/deploy` body (bump-cli's).
#[derive(Debug, Deserialize)]
struct DeployBody {
    definition: String,
    #[serde(default)]
    references: Option<Vec<ReferenceBody>>,
}

#[derive(Debug, Deserialize)]
struct ReferenceBody {
    location: String,
    content: String,
    #[serde(default)]
    name: Option<String>,
}

/// `PUT /mcp-servers/{server}/secrets/{name}` body. `Debug` hides the value.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SecretBody {
    value: String,
}

impl std::fmt::Debug for SecretBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBody(***)")
    }
}

#[tracing::instrument(skip_all)]
async fn create(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    JsonBody(body): JsonBody<CreateBody>,
) -> Result<Response, ApiError> {
    let (server, token) = uc::create(
        &*st.store,
        &p,
        &body.name,
        body.slug.as_deref(),
        body.description,
        now(),
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(server_json(&base, &server, Some(token.secret))),
    )
        .into_response())
}

#[tracing::instrument(skip_all)]
async fn list(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    req: ListRequest,
) -> Result<Response, ApiError> {
    let servers = uc::list(&*st.store, &p).await?;
    let items: Vec<Keyed<ServerJson>> = servers
        .iter()
        .map(|s| Keyed {
            key: format!(
                "{:024}#{}",
                s.created_at.unix_timestamp_nanos().max(0),
                s.id
            ),
            item: server_json(&base, s, None),
        })
        .collect();
    paginate(&req, &format!("mcp-servers:{}", p.org_id), items, |k| {
        k.key.clone()
    })
}

/// An item with its sort key (not serialized).
#[derive(Serialize)]
#[serde(transparent)]
struct Keyed<T: Serialize> {
    #[serde(skip)]
    key: String,
    item: T,
}

#[tracing::instrument(skip_all)]
async fn show(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(server): Path<String>,
) -> Result<Response, ApiError> {
    let s = uc::resolve(&*st.store, &p, &server).await?;
    Ok(axum::Json(server_json(&base, &s, None)).into_response())
}

#[tracing::instrument(skip_all)]
async fn update(
    State(st): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(server): Path<String>,
    JsonBody(body): JsonBody<UpdateBody>,
) -> Result<Response, ApiError> {
    let input = uc::UpdateServer {
        name: body.name,
        description: body.description.map(|d| d.filter(|d| !d.trim().is_empty())),
        visibility: body.visibility,
    };
    let s = uc::update(&*st.store, &p, &server, input, now()).await?;
    Ok(axum::Json(server_json(&base, &s, None)).into_response())
}

#[tracing::instrument(skip_all)]
async fn remove(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(server): Path<String>,
) -> Result<Response, ApiError> {
    uc::delete(&*st.store, &p, &server).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[tracing::instrument(skip_all)]
async fn rotate_token(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(server): Path<String>,
) -> Result<Response, ApiError> {
    let token = uc::rotate_token(&*st.store, &p, &server, now()).await?;
    Ok(axum::Json(serde_json::json!({ "token": token.secret })).into_response())
}

#[tracing::instrument(skip_all)]
async fn deploy(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(server): Path<String>,
    JsonBody(body): JsonBody<DeployBody>,
) -> Result<Response, ApiError> {
    let bundle = Bundle {
        definition: body.definition,
        references: body
            .references
            .unwrap_or_default()
            .into_iter()
            .map(|r| Reference {
                location: r.location,
                content: r.content,
                name: r.name,
            })
            .collect(),
    };
    validate::check_sizes(&bundle, st.config.max_document_bytes)?;
    let outcome = uc::deploy(&*st.store, &p, &server, bundle, validate::validate, now()).await?;
    match outcome {
        uc::DeployOutcome::Unchanged(_) => Ok(StatusCode::NO_CONTENT.into_response()),
        uc::DeployOutcome::Created { server, version } => Ok((
            StatusCode::CREATED,
            axum::Json(serde_json::json!({
                "id": version.id.to_string(),
                "mcp_server_id": server.id.to_string(),
                "mcp_server_name": server.name,
                "mcp_server_slug": server.slug.to_string(),
            })),
        )
            .into_response()),
    }
}

#[tracing::instrument(skip_all)]
async fn versions(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(server): Path<String>,
    req: ListRequest,
) -> Result<Response, ApiError> {
    let (s, list) = uc::versions(&*st.store, &p, &server).await?;
    let items: Vec<Keyed<VersionJson>> = list
        .iter()
        .map(|v| {
            // Newest first: the inverted creation time sorts ascending from the newest.
            let inverted = i128::MAX - v.created_at.unix_timestamp_nanos().max(0);
            Keyed {
                key: format!("{inverted:040}#{}", v.id),
                item: version_json(v, None),
            }
        })
        .collect();
    paginate(&req, &format!("mcp-versions:{}", s.id), items, |k| {
        k.key.clone()
    })
}

#[tracing::instrument(skip_all)]
async fn version(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path((server, version)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let (v, definition) = uc::version(&*st.store, &p, &server, &version).await?;
    Ok(axum::Json(version_json(&v, Some(definition))).into_response())
}

#[tracing::instrument(skip_all)]
async fn put_secret(
    State(st): State<AppState>,
    Extension(sealer): Extension<SecretSealer>,
    Auth(p): Auth,
    Path((server, name)): Path<(String, String)>,
    JsonBody(body): JsonBody<SecretBody>,
) -> Result<Response, ApiError> {
    uc::put_secret(&*st.store, &sealer, &p, &server, &name, &body.value, now()).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[tracing::instrument(skip_all)]
async fn secrets(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path(server): Path<String>,
) -> Result<Response, ApiError> {
    let listing = uc::secrets(&*st.store, &p, &server).await?;
    let secrets: Vec<serde_json::Value> = listing
        .secrets
        .iter()
        .map(|s| {
            serde_json::json!({
                "name": s.name,
                "updated_at": rfc3339(s.updated_at),
                "used_by_current_version": s.used_by_current_version,
            })
        })
        .collect();
    Ok(
        axum::Json(serde_json::json!({ "secrets": secrets, "missing": listing.missing }))
            .into_response(),
    )
}

#[tracing::instrument(skip_all)]
async fn delete_secret(
    State(st): State<AppState>,
    Auth(p): Auth,
    Path((server, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    uc::delete_secret(&*st.store, &p, &server, &name).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
