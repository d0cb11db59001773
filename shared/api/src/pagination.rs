//! The one pagination convention of every list endpoint, over `specpress-pagination` (docs/api.md, "Pagination").
//!
//! - Query: `page` (>= 1, default 1), `limit` (1-100, default 10; alias `per_page`), `cursor` (opaque), `envelope`.
//!   A malformed or out-of-range value is a 400 `{message}` naming the parameter and its limits.
//! - Default response: the contract's bare JSON array, with `X-Total-Count`, `X-Page`, `X-Per-Page` and `Link`
//!   (`next`, `prev`, `first`, `last`). `?envelope=true`: `{data, meta, links}` built from the same values.
//! - Cursors are keyset positions (the sort key of the last item returned), HMAC-SHA256-signed and bound to the list
//!   they come from (`branches:<doc id>`, `hubs:<org id>`, ...), valid 24 hours. Keyset positions stay correct when
//!   items are added or removed between requests: each item is returned at most once, and every item present for
//!   the whole walk is returned exactly once.
//! - The key: `SPECPRESS_CURSOR_KEY` (at least 32 bytes, e.g. `openssl rand -hex 32`), read once per process. Without
//!   it a random key is generated at start (a warning is logged): cursors then only work within one process, which
//!   is fine for `specpress serve` but not for several Lambda instances, so template.yaml always sets it.

use std::sync::OnceLock;
use std::time::SystemTime;

use axum::Json;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use specpress_domain::DomainError;
use specpress_pagination::{CursorCodec, ListUrl, PageInfo, PageRequest};

use crate::ApiError;

/// Environment variable holding the cursor MAC key.
pub const CURSOR_KEY_ENV: &str = "SPECPRESS_CURSOR_KEY";

static CODEC: OnceLock<CursorCodec> = OnceLock::new();

fn codec_from_env() -> CursorCodec {
    if let Ok(key) = std::env::var(CURSOR_KEY_ENV) {
        match CursorCodec::new(key.trim().as_bytes()) {
            Ok(c) => return c,
            Err(e) => {
                tracing::error!(variable = CURSOR_KEY_ENV, problem = %e, "cursor key refused; using a random key")
            }
        }
    } else {
        tracing::warn!(
            variable = CURSOR_KEY_ENV,
            "no cursor key configured; cursors are valid in this process only"
        );
    }
    let key: [u8; 32] = rand::random();
    match CursorCodec::new(&key) {
        Ok(c) => c,
        // 32 bytes is the documented minimum; this arm cannot run.
        Err(_) => unreachable!("a 32-byte key is accepted"),
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
    CODEC.get_or_init(codec_from_env)
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
        let query = parts.uri.query();
        let page =
            PageRequest::from_query(query).map_err(|e| DomainError::BadRequest(e.message()))?;
        Ok(ListRequest {
            page,
            url: ListUrl::new(parts.uri.path(), query),
        })
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
    let codec = cursor_codec();
    let now = SystemTime::now();
    let limit = usize::try_from(req.page.limit).unwrap_or(usize::MAX);
    let (start, page_no) = match &req.page.cursor {
        Some(c) => {
            let pos = codec.decode(scope, c, now).map_err(|e| {
                DomainError::BadRequest(specpress_pagination::ParamError::from(e).message())
            })?;
            let after = String::from_utf8(pos.position).map_err(|_| {
                DomainError::BadRequest(specpress_pagination::ParamError::InvalidCursor.message())
            })?;
            (items.partition_point(|i| key(i) <= after), pos.page)
        }
        None => (
            usize::try_from(req.page.offset())
                .unwrap_or(usize::MAX)
                .min(total),
            req.page.page,
        ),
    };
    let end = start.saturating_add(limit).min(total);
    let next_cursor = (end < total && end > start).then(|| {
        codec.encode(
            scope,
            page_no.saturating_add(1),
            key(&items[end - 1]).as_bytes(),
            now,
        )
    });
    let info = PageInfo::new(&req.page, total as u64)
        .with_page(page_no)
        .with_next_cursor(next_cursor);
    let page: Vec<T> = items.into_iter().skip(start).take(end - start).collect();
    if req.page.envelope {
        let body = info
            .envelope(&page, &req.url)
            .map_err(DomainError::unexpected)?;
        Ok(Json(body).into_response())
    } else {
        let mut resp = Json(page).into_response();
        resp.headers_mut().extend(info.headers(&req.url));
        Ok(resp)
    }
}
