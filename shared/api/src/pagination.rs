//! The one pagination convention of every list endpoint, over `specpress-pagination` (docs/api.md, "Pagination").
//!
//! - Query: `page` (>= 1, default 1), `limit` (1-100, default 10; alias `per_page`), `cursor` (opaque), `envelope`.
//!   A malformed or out-of-range value is a 400 `{message}` naming the parameter and its limits.
//! - Default response: the contract's bare JSON array, with `X-Total-Count`, `X-Page`, `X-Per-Page` and `Link`
//!   (`next`, `prev`, `first`, `last`). `?envelope=true`: `{data, meta, links}` built from the same values.
//! - Cursors are keyset positions (the sort key of the last item returned), encrypted and authenticated
//!   (XChaCha20-Poly1305) and bound to the list they come from (`branches:<doc id>`, `hubs:<org id>`, ...), valid 24
//!   hours. Keyset positions stay correct when items are added or removed between requests: each item is returned at
//!   most once, and every item present for the whole walk is returned exactly once.
//! - Links: built from the request's full path ([`axum::extract::OriginalUri`]), so a router nested under `/api/v1`
//!   links to `/api/v1/...` like the others.
//! - The key: `SPECPRESS_CURSOR_KEY` (at least 32 bytes, e.g. `openssl rand -hex 32`), read once per process with the
//!   configuration and installed at start; the SAM template passes its `CursorKey` parameter to every function.
//!   `specpress serve` installs a key kept in its data directory when the variable is not set
//!   ([`install_cursor_key`]). Without either, a random key is generated at the first list request (a warning is
//!   logged): cursors then only work within that process.

use std::sync::OnceLock;
use std::time::SystemTime;

use axum::Json;
use axum::extract::{FromRequestParts, OriginalUri};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use specpress_domain::DomainError;
use specpress_pagination::{CursorCodec, ListUrl, PageInfo, PageRequest};

use crate::ApiError;

/// Environment variable holding the cursor key.
pub const CURSOR_KEY_ENV: &str = "SPECPRESS_CURSOR_KEY";
/// Shortest accepted cursor key, in bytes.
pub const MIN_CURSOR_KEY_BYTES: usize = specpress_pagination::MIN_KEY_BYTES;

static CODEC: OnceLock<CursorCodec> = OnceLock::new();

/// A codec with a random key, for a process given none: cursors then only work within this process.
fn random_codec() -> CursorCodec {
    tracing::warn!(
        variable = CURSOR_KEY_ENV,
        "no cursor key configured; cursors are valid in this process only"
    );
    let key: [u8; 32] = rand::random();
    match CursorCodec::new(&key) {
        Ok(c) => c,
        // 32 bytes is the documented minimum; this arm cannot run.
        Err(_) => unreachable!("a 32-byte key is accepted"),
    }
}

/// Installs the configured key ([`Config::cursor_key`](specpress_config::Config::cursor_key), a Lambda function at
/// start). A key that is refused (too short) is logged and a random key is used, as without one.
pub fn install_configured_key(key: Option<&str>) {
    if let Some(key) = key
        && let Err(problem) = install_cursor_key(key.as_bytes())
    {
        tracing::error!(variable = CURSOR_KEY_ENV, %problem, "cursor key refused; using a random key");
    }
}

/// Installs the cursor key explicitly (call once at start, before serving). `Err` if the key is too short or a codec
/// is already in use.
pub fn install_cursor_key(key: &[u8]) -> Result<(), String> {
    let codec = CursorCodec::new(key).map_err(|e| e.to_string())?;
    CODEC
        .set(codec)
        .map_err(|_| "the cursor key is already set".to_owned())
}

/// The process-wide cursor codec.
pub fn cursor_codec() -> &'static CursorCodec {
    CODEC.get_or_init(random_codec)
}

/// The pagination part of a list request: parsed parameters and the request URL (for links).
#[derive(Debug, Clone)]
pub struct ListRequest {
    /// Parsed `page`/`limit`/`cursor`/`envelope`.
    pub page: PageRequest,
    /// The request path and its other query parameters.
    pub url: ListUrl,
}

impl<S: Send + Sync> FromRequestParts<S> for ListRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        // A router nested under a prefix (`Router::nest("/api/v1", ..)`) sees the path with the prefix stripped;
        // links must carry the path the client asked for.
        let uri = parts
            .extensions
            .get::<OriginalUri>()
            .map(|o| &o.0)
            .unwrap_or(&parts.uri);
        let query = uri.query();
        let page =
            PageRequest::from_query(query).map_err(|e| DomainError::BadRequest(e.message()))?;
        Ok(ListRequest {
            page,
            url: ListUrl::new(uri.path(), query),
        })
    }
}

/// Where a requested page starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageStart {
    /// The page number it answers as (`X-Page`): `page`, or the one carried by the cursor.
    pub page: u32,
    /// For a cursor request, the key of the last item already returned (the page holds the items after it); `None`
    /// for a page number (the page starts at [`specpress_pagination::PageRequest::offset`]).
    pub after: Option<Vec<u8>>,
}

impl ListRequest {
    /// Where this request's page starts in the list `scope`: the cursor (if any) is verified against it.
    pub fn start(&self, scope: &str) -> Result<PageStart, ApiError> {
        match &self.page.cursor {
            Some(c) => {
                let pos = cursor_codec()
                    .decode(scope, c, SystemTime::now())
                    .map_err(|e| {
                        DomainError::BadRequest(specpress_pagination::ParamError::from(e).message())
                    })?;
                Ok(PageStart {
                    page: pos.page,
                    after: Some(pos.position),
                })
            }
            None => Ok(PageStart {
                page: self.page.page,
                after: None,
            }),
        }
    }
}

/// The 400 for a cursor whose position this list cannot use.
pub fn invalid_cursor() -> ApiError {
    DomainError::BadRequest(specpress_pagination::ParamError::InvalidCursor.message()).into()
}

/// Answers one page the caller read itself (a store that pages, so the list is never loaded whole): `items` is the
/// page starting at `start`, `total` the length of the whole list, and `next_after` the key of the page's last item
/// when more items follow it (the position of the next cursor).
pub fn respond_page<T: Serialize>(
    req: &ListRequest,
    scope: &str,
    start: &PageStart,
    total: u64,
    items: Vec<T>,
    next_after: Option<&[u8]>,
) -> Result<Response, ApiError> {
    let next_cursor = next_after.map(|key| {
        cursor_codec().encode(scope, start.page.saturating_add(1), key, SystemTime::now())
    });
    let info = PageInfo::new(&req.page, total)
        .with_page(start.page)
        .with_next_cursor(next_cursor);
    if req.page.envelope {
        let body = info
            .envelope(&items, &req.url)
            .map_err(DomainError::unexpected)?;
        Ok(Json(body).into_response())
    } else {
        let mut resp = Json(items).into_response();
        resp.headers_mut().extend(info.headers(&req.url));
        Ok(resp)
    }
}

/// Answers one page of `items` in the pagination convention.
///
/// `scope` names the list and its owner (cursors from elsewhere are refused); `key` is the sort key of an item, unique
/// in the list; items are sorted by it here (ascending), so the caller picks the order through the key.
pub fn paginate<T: Serialize>(
    req: &ListRequest,
    scope: &str,
    mut items: Vec<T>,
    key: impl Fn(&T) -> String,
) -> Result<Response, ApiError> {
    items.sort_by_cached_key(|i| key(i));
    let total = items.len();
    let limit = usize::try_from(req.page.limit).unwrap_or(usize::MAX);
    let start = req.start(scope)?;
    let first = match &start.after {
        Some(after) => {
            let after = std::str::from_utf8(after).map_err(|_| invalid_cursor())?;
            items.partition_point(|i| key(i).as_str() <= after)
        }
        None => usize::try_from(req.page.offset())
            .unwrap_or(usize::MAX)
            .min(total),
    };
    let end = first.saturating_add(limit).min(total);
    let next_after = (end < total && end > first).then(|| key(&items[end - 1]));
    let page: Vec<T> = items.into_iter().skip(first).take(end - first).collect();
    respond_page(
        req,
        scope,
        &start,
        total as u64,
        page,
        next_after.as_deref().map(str::as_bytes),
    )
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::body::Body;
    use axum::http::Request;
    use axum::routing::get;
    use http_body_util::BodyExt as _;
    use serde_json::Value;
    use tower::ServiceExt as _;

    use super::*;

    async fn items(list: ListRequest) -> Result<Response, ApiError> {
        paginate(&list, "items:test", vec!["a", "b", "c"], |s| {
            (*s).to_owned()
        })
    }

    async fn get_json(app: &Router, uri: &str) -> (axum::http::HeaderMap, Value) {
        let resp = app
            .clone()
            .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
            .await
            .expect("infallible");
        assert_eq!(resp.status(), axum::http::StatusCode::OK, "{uri}");
        let headers = resp.headers().clone();
        let bytes = resp.into_body().collect().await.expect("body").to_bytes();
        (headers, serde_json::from_slice(&bytes).expect("json"))
    }

    #[tokio::test]
    async fn links_of_a_router_nested_under_a_prefix_keep_the_prefix() {
        let app = Router::new().nest("/api/v1", Router::new().route("/items", get(items)));
        let (headers, _) = get_json(&app, "/api/v1/items?limit=1&x=y").await;
        let link = headers
            .get("link")
            .and_then(|v| v.to_str().ok())
            .expect("Link");
        assert!(link.starts_with("</api/v1/items?x=y&cursor="), "{link}");
        let (_, body) = get_json(&app, "/api/v1/items?limit=1&envelope=true").await;
        let next = body["links"]["next"].as_str().expect("next link");
        assert!(next.starts_with("/api/v1/items?"), "{next}");
        // The link leads to the next page of the same list.
        let (_, page2) = get_json(&app, next).await;
        assert_eq!(page2["data"], serde_json::json!(["b"]));
    }
}
