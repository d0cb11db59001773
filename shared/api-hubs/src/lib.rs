//! The hub routes (bump-api.md §3.8), in the APIs.json shape, served by the hubs function:
//!
//! - `GET /api/v1/hubs` (organization token): the organization's hubs, paginated.
//! - `GET /api/v1/hubs/{hub}` (hub or organization token; id or slug): the hub with every documentation in it as
//!   `apis[]`; each API's `version` and property `type` come from the head of its default branch, and the property
//!   `url` downloads that very definition.
//! - `GET /api/v1/hubs/{hub}/apis`: the same APIs, paginated.
//! - `PATCH /api/v1/hubs/{hub}` `{"visibility": "public" | "private", "sso_readers": bool, "embed_origins": [..]}`
//!   (any of them; hub or organization token): who may read the hub's public page (a private hub makes every
//!   documentation in it private too), whether readers signed in through the organization's OpenID provider may,
//!   and the https origins that may frame its pages. `GET` of one hub and the `PATCH` answer show the last two.

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::pagination::{ListRequest, paginate};
use specpress_api::reader_settings::{ReaderSettingsOut, ReaderSettingsPatch};
use specpress_api::urls::PublicBase;
use specpress_api::{ApiError, AppState};
use specpress_domain::DomainError;
use specpress_domain::model::{Hub, Version, Visibility};
use specpress_domain::usecases::hubs::{self, HubApi};
use specpress_domain::usecases::manage;
use specpress_domain::usecases::readers::{self, Target};
use time::OffsetDateTime;
use time::macros::format_description;

/// The APIs.json version these documents follow.
pub const APIS_JSON_VERSION: &str = "0.16";

/// The hub routes.
pub fn router(state: AppState) -> Router {
    // `POST /api/v1/hubs` lives in the deploy function; axum merges the two methods of the path.
    Router::new()
        .route("/api/v1/hubs", get(list))
        .route("/api/v1/hubs/{hub}", get(show).patch(update))
        .route("/api/v1/hubs/{hub}/apis", get(apis))
        .with_state(state)
}

fn date(t: OffsetDateTime) -> String {
    t.format(format_description!("[year]-[month]-[day]"))
        .unwrap_or_default()
}

/// APIs.json hub.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HubJson {
    id: String,
    name: String,
    slug: String,
    description: String,
    url: String,
    created: String,
    modified: String,
    /// `public` or `private`: who may read the hub's public page (not an APIs.json field).
    visibility: &'static str,
    /// `sso_readers` and `embed_origins` (one hub's `GET` and `PATCH`; not in lists).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    readers: Option<ReaderSettingsOut>,
    specification_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    apis: Option<Vec<ApiJson>>,
}

fn hub_json(base: &str, hub: &Hub, apis: Option<Vec<ApiJson>>) -> HubJson {
    HubJson {
        id: hub.id.to_string(),
        name: hub.name.clone(),
        slug: hub.slug.to_string(),
        description: hub.description.clone().unwrap_or_default(),
        url: specpress_api::urls::hub_url(base, &hub.slug),
        created: date(hub.created_at),
        modified: date(hub.modified_at),
        visibility: hub.visibility.as_str(),
        readers: None,
        specification_version: APIS_JSON_VERSION,
        apis,
    }
}

/// APIs.json property.
#[derive(Debug, Serialize)]
struct PropertyJson {
    #[serde(rename = "type")]
    kind: &'static str,
    url: String,
}

/// APIs.json API.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiJson {
    id: String,
    name: String,
    description: String,
    slug: String,
    url: String,
    human_url: String,
    tags: Vec<String>,
    version: Option<String>,
    properties: Vec<PropertyJson>,
    created: String,
    modified: String,
    /// The documentation's own `public` or `private` (not an APIs.json field).
    visibility: &'static str,
}

/// `OpenAPI` or `AsyncAPI` from the engine's specification id (`openapi/v3/json`, `asyncapi/v2/yaml`, ...).
fn spec_type(v: &Version) -> &'static str {
    if v.analysis.specification.starts_with("asyncapi") {
        "AsyncAPI"
    } else {
        "OpenAPI"
    }
}

fn api_json(base: &str, api: &HubApi) -> ApiJson {
    let human_url = specpress_api::urls::doc_public_url(base, &api.doc.slug);
    let properties = match &api.head {
        Some(v) => vec![PropertyJson {
            kind: spec_type(v),
            url: format!("{human_url}/versions/{}/source", v.id),
        }],
        None => vec![],
    };
    let modified = api.head.as_ref().map_or(api.doc.modified_at, |v| {
        v.created_at.max(api.doc.modified_at)
    });
    ApiJson {
        id: api.doc.id.to_string(),
        name: api.doc.name.clone(),
        description: api
            .head
            .as_ref()
            .and_then(|v| v.analysis.description.clone())
            .unwrap_or_default(),
        slug: api.doc.slug.to_string(),
        url: human_url.clone(),
        human_url,
        tags: vec![],
        version: api.head.as_ref().map(|v| v.analysis.api_version.clone()),
        properties,
        created: date(api.doc.created_at),
        modified: date(modified),
        visibility: api.doc.visibility.as_str(),
    }
}

async fn list(
    State(state): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    list: ListRequest,
) -> Result<Response, ApiError> {
    let hubs = hubs::list_hubs(&*state.store, &p).await?;
    let items: Vec<HubJson> = hubs.iter().map(|h| hub_json(&base, h, None)).collect();
    paginate(&list, &format!("hubs:{}", p.org_id), items, |h| {
        h.slug.clone()
    })
}

async fn show(
    State(state): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(hub): Path<String>,
) -> Result<Response, ApiError> {
    let found = hubs::hub_with_apis(&*state.store, &p, &hub, state.now()).await?;
    let settings = readers::reader_settings(&*state.store, &p, Target::Hub(&hub)).await?;
    let apis = found.apis.iter().map(|a| api_json(&base, a)).collect();
    let mut out = hub_json(&base, &found.hub, Some(apis));
    out.readers = Some(settings.into());
    Ok(axum::Json(out).into_response())
}

async fn apis(
    State(state): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(hub): Path<String>,
    list: ListRequest,
) -> Result<Response, ApiError> {
    let hub = hubs::get_hub(&*state.store, &p, &hub).await?;
    let found = hubs::hub_apis(&*state.store, &hub, state.now()).await?;
    let items: Vec<ApiJson> = found.iter().map(|a| api_json(&base, a)).collect();
    paginate(&list, &format!("hub-apis:{}", hub.id), items, |a| {
        a.slug.clone()
    })
}

/// `PATCH /api/v1/hubs/{hub}` body. Unknown fields are refused (422), so a misspelled setting is never ignored.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateRequest {
    visibility: Option<String>,
    #[serde(default, deserialize_with = "specpress_api::reader_settings::present")]
    sso_readers: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "specpress_api::reader_settings::present")]
    embed_origins: Option<serde_json::Value>,
}

async fn update(
    State(state): State<AppState>,
    PublicBase(base): PublicBase,
    Auth(p): Auth,
    Path(hub): Path<String>,
    JsonBody(req): JsonBody<UpdateRequest>,
) -> Result<Response, ApiError> {
    let visibility = req
        .visibility
        .as_deref()
        .map(|v| Visibility::parse("visibility", v))
        .transpose()?;
    let changes = ReaderSettingsPatch::parse(req.sso_readers.as_ref(), req.embed_origins.as_ref())?;
    if visibility.is_none() && changes.is_empty() {
        return Err(DomainError::invalid(
            "visibility",
            "visibility is required (\"public\" or \"private\"), or sso_readers (true or false) or embed_origins (a list of https origins)",
        )
        .into());
    }
    let settings = if changes.is_empty() {
        readers::reader_settings(&*state.store, &p, Target::Hub(&hub)).await?
    } else {
        changes
            .apply(&*state.store, &p, Target::Hub(&hub), state.now())
            .await?
    };
    let found = match visibility {
        Some(v) => manage::set_hub_visibility(&*state.store, &p, &hub, v, state.now()).await?,
        None => hubs::get_hub(&*state.store, &p, &hub).await?,
    };
    let mut out = hub_json(&base, &found, None);
    out.readers = Some(settings.into());
    Ok(axum::Json(out).into_response())
}
