//! The branch routes (bump-api.md §3.9), served by the branches function, all under `/api/v1/docs/{doc}` where
//! `{doc}` is an id or a slug:
//!
//! - `GET .../branches`: the branches, paginated (bare array + `X-Total-Count`/`X-Page`/`X-Per-Page`/`Link`, or
//!   `?envelope=true`); 404 for an unknown documentation.
//! - `POST .../branches {name}`: 201 `{name, slug, is_default}`; 204 when a branch with that slug exists; 422 for an
//!   invalid name (rules in docs/api.md).
//! - `DELETE .../branches/{slug}`: 204; 422 for the default branch; 404 for an unknown branch.
//! - `PATCH .../branches/{slug}/set_default`: 200 when already the default; 204 when promoted; 404 unknown; 422 for
//!   a branch without any published version.
//! - `GET .../versions?branch=<slug>`: the published versions of a branch (default branch when absent), newest
//!   first, paginated in the store (one range read of the history per page, whatever its length; docs/storage.md,
//!   "Branch histories").
//!
//! Every route needs a token that reaches the documentation (its own, its hub's, or the organization's).

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch};
use serde::{Deserialize, Serialize};
use specpress_api::auth::Auth;
use specpress_api::body::JsonBody;
use specpress_api::pagination::{ListRequest, invalid_cursor, paginate, respond_page};
use specpress_api::{ApiError, AppState};
use specpress_domain::model::Version;
use specpress_domain::usecases::branches::{self, CreateBranch, HistoryStart, Promotion};
use time::format_description::well_known::Rfc3339;

/// The branch routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/v1/docs/{doc}/branches", get(list).post(create))
        .route("/api/v1/docs/{doc}/branches/{slug}", delete(remove))
        .route(
            "/api/v1/docs/{doc}/branches/{slug}/set_default",
            patch(set_default),
        )
        .route("/api/v1/docs/{doc}/versions", get(versions))
        .with_state(state)
}

async fn list(
    State(state): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    list: ListRequest,
) -> Result<Response, ApiError> {
    let (doc, items) = branches::list_branches(&*state.store, &p, &doc).await?;
    paginate(&list, &format!("branches:{}", doc.id), items, |b| {
        b.slug.clone()
    })
}

/// `POST .../branches` body.
#[derive(Debug, Deserialize)]
struct CreateBody {
    #[serde(default)]
    name: Option<String>,
}

async fn create(
    State(state): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    JsonBody(body): JsonBody<CreateBody>,
) -> Result<Response, ApiError> {
    let name = body.name.unwrap_or_default();
    match branches::create_branch(&*state.store, &p, &doc, &name, state.now()).await? {
        CreateBranch::Created(view) => Ok((StatusCode::CREATED, axum::Json(view)).into_response()),
        CreateBranch::Exists => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

async fn remove(
    State(state): State<AppState>,
    Auth(p): Auth,
    Path((doc, slug)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    branches::delete_branch(&*state.store, &p, &doc, &slug).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn set_default(
    State(state): State<AppState>,
    Auth(p): Auth,
    Path((doc, slug)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    match branches::set_default_branch(&*state.store, &p, &doc, &slug, state.now()).await? {
        Promotion::AlreadyDefault => Ok((
            StatusCode::OK,
            axum::Json(serde_json::json!({"message": "Branch is already the default branch."})),
        )
            .into_response()),
        Promotion::Promoted => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

/// `GET .../versions` filters.
#[derive(Debug, Deserialize)]
struct VersionsQuery {
    #[serde(default)]
    branch: Option<String>,
}

/// One entry of a branch's history.
#[derive(Debug, Serialize)]
struct VersionItem {
    id: String,
    doc_id: String,
    branch_name: String,
    position: u64,
    title: String,
    api_version: String,
    specification: String,
    previous_version_id: Option<String>,
    created_at: String,
}

impl VersionItem {
    fn of(v: &Version) -> Self {
        VersionItem {
            id: v.id.to_string(),
            doc_id: v.doc_id.to_string(),
            branch_name: v.branch.to_string(),
            position: v.seq.unwrap_or(0),
            title: v.analysis.title.clone(),
            api_version: v.analysis.api_version.clone(),
            specification: v.analysis.specification.clone(),
            previous_version_id: v.previous_version_id.map(|p| p.to_string()),
            created_at: v.created_at.format(&Rfc3339).unwrap_or_default(),
        }
    }
}

/// The cursor position of a history entry: newest first, so the key orders by descending position. It is the position
/// text the in-memory listing used, so a cursor that listing issued stays valid.
fn history_key(position: u64) -> String {
    format!("{:020}", u64::MAX - position)
}

/// The position a history cursor key stands for.
fn position_of_key(key: &[u8]) -> Option<u64> {
    let digits = std::str::from_utf8(key).ok()?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    u64::MAX.checked_sub(digits.parse().ok()?)
}

async fn versions(
    State(state): State<AppState>,
    Auth(p): Auth,
    Path(doc): Path<String>,
    Query(q): Query<VersionsQuery>,
    list: ListRequest,
) -> Result<Response, ApiError> {
    let history = branches::version_history(&*state.store, &p, &doc, q.branch.as_deref()).await?;
    let scope = format!("versions:{}:{}", history.doc.id, history.slug());
    let start = list.start(&scope)?;
    let from = match &start.after {
        Some(key) => HistoryStart::Below(position_of_key(key).ok_or_else(invalid_cursor)?),
        None => HistoryStart::Offset(list.page.offset()),
    };
    let versions = branches::history_page(&*state.store, &history, from, list.page.limit).await?;
    // More follow unless the page reached position 1 (positions are dense, newest first).
    let next_after = versions
        .last()
        .and_then(|v| v.seq)
        .filter(|position| *position > 1)
        .map(history_key);
    let items: Vec<VersionItem> = versions.iter().map(VersionItem::of).collect();
    respond_page(
        &list,
        &scope,
        &start,
        history.total(),
        items,
        next_after.as_deref().map(str::as_bytes),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_cursor_keys_round_trip_and_refuse_anything_else() {
        for position in [1, 2, 10, 99_999, 100_000, u64::MAX] {
            assert_eq!(
                position_of_key(history_key(position).as_bytes()),
                Some(position)
            );
        }
        assert!(history_key(2) < history_key(1), "newest first");
        for bad in [
            "",
            "12",
            "-0000000000000000001",
            "1844674407370955161a",
            "99999999999999999999",
        ] {
            assert_eq!(position_of_key(bad.as_bytes()), None, "{bad}");
        }
    }
}
