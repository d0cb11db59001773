//! Search: `GET /doc/{doc}/search?q=`, `GET /doc/{doc}/branches/{branch}/search?q=` (one documentation on one
//! branch) and `GET /hub/{hub}/search?q=` (every documentation of a hub, default branches), answered as a results
//! page in the site shell (a plain GET form: no script needed). Each has a `.json` twin (`/doc/{doc}/search.json?q=`
//! ...): the same results, order and words as JSON, which the search fields use to suggest results as one types.
//!
//! The index of a version ([`specpress_render::SearchIndex`]) is built on demand from the parsed document the page
//! cache holds, off the async workers, and kept in its own cache keyed like it by the definition's content address
//! (so it never goes stale) and bounded by the indexes' measured sizes (`SPECPRESS_SEARCH_CACHE_BYTES`, default
//! 64 MiB). Concurrent first searches of a version wait for one build.
//!
//! Documentations and hubs are resolved through `specpress_domain::usecases::public` and [`DocView`], like every
//! other page, so whatever those lookups hide (unknown slugs, documentations a reader may not see) is hidden here too.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use sha2::{Digest, Sha256};
use specpress_api::cpu::CpuGate;
use specpress_domain::DomainError;
use specpress_domain::model::{BlobRef, Hub, Slug, Version};
use specpress_domain::usecases::public::{self, PublicDoc};

use crate::access::Viewer;
use specpress_render::search::{Found, MAX_RESULTS, QueryError};
use specpress_render::{SearchIndex, SearchPage, SearchResult, search_json, search_page};
use tracing::instrument;

use crate::DocsState;
use crate::cache::Loaded;
use crate::view::{
    Answer, Chrome, DocView, build_id, etag_of, not_found, not_modified, page_error,
};

/// Default budget of the search index cache (`SPECPRESS_SEARCH_CACHE_BYTES`).
pub const DEFAULT_SEARCH_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// Documentations of a hub searched together (the first ones by slug).
pub const MAX_HUB_DOCS: usize = 50;

#[derive(Clone)]
struct BySize;

impl Weighter<String, Arc<SearchIndex>> for BySize {
    fn weight(&self, _: &String, v: &Arc<SearchIndex>) -> u64 {
        (v.size_bytes() as u64).max(1)
    }
}

/// The search indexes of parsed versions, by the definition's content address.
pub struct SearchCache {
    cache: Cache<String, Arc<SearchIndex>, BySize>,
}

impl std::fmt::Debug for SearchCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchCache")
            .field("entries", &self.cache.len())
            .field("weight", &self.cache.weight())
            .finish()
    }
}

impl SearchCache {
    /// A cache holding at most about `budget` bytes of indexes (one larger than that is built per request).
    pub fn new(budget: u64) -> Self {
        let cache = crate::cache::weighted(64, budget, BySize);
        SearchCache { cache }
    }

    /// The index of a loaded definition, built (on the CPU gate) when it is not cached.
    pub async fn get_or_build(
        &self,
        blob: &BlobRef,
        loaded: Arc<Loaded>,
    ) -> Result<Arc<SearchIndex>, DomainError> {
        self.cache
            .get_or_insert_async(&blob.sha256, async move {
                CpuGate::shared()
                    .run(move || Arc::new(SearchIndex::build(&loaded.doc, &loaded.site)))
                    .await
            })
            .await
    }

    /// Entries and the bytes they count.
    pub fn usage(&self) -> (usize, u64) {
        (self.cache.len(), self.cache.weight())
    }
}

/// Reads `SPECPRESS_SEARCH_CACHE_BYTES` (a malformed value is logged and the default kept).
pub fn cache_bytes_from_env() -> u64 {
    match std::env::var("SPECPRESS_SEARCH_CACHE_BYTES") {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| {
            tracing::warn!(
                variable = "SPECPRESS_SEARCH_CACHE_BYTES",
                "ignoring a malformed byte count"
            );
            DEFAULT_SEARCH_CACHE_BYTES
        }),
        Err(_) => DEFAULT_SEARCH_CACHE_BYTES,
    }
}

/// The `q` parameter of a query string (the first one; `+` and percent escapes decoded, invalid UTF-8 replaced).
fn query_param(raw: Option<&str>) -> String {
    raw.map(|r| {
        form_urlencoded::parse(r.as_bytes())
            .find(|(k, _)| k == "q")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// `?q=` with the query percent-encoded, for redirects.
fn with_query(path: &str, q: &str) -> String {
    if q.is_empty() {
        path.to_string()
    } else {
        let encoded: String = form_urlencoded::byte_serialize(q.as_bytes()).collect();
        format!("{path}?q={encoded}")
    }
}

/// The status of a results page: 400 when the query is refused (too long), else 200.
fn status_of(error: Option<QueryError>) -> StatusCode {
    match error {
        Some(QueryError::TooLong) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// What a search answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The results page.
    Page,
    /// The results as JSON (the `.json` twin of the page's URL).
    Json,
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Format {
    type Rejection = std::convert::Infallible;

    /// The format a search URL names: its `.json` twin, else the page.
    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(if parts.uri.path().ends_with(".json") {
            Format::Json
        } else {
            Format::Page
        })
    }
}

impl Format {
    /// The last segment of the search URL.
    fn segment(self) -> &'static str {
        match self {
            Format::Page => "search",
            Format::Json => "search.json",
        }
    }
}

fn results_response(status: StatusCode, body: String, etag: &str, format: Format) -> Response {
    let mut resp = crate::view::html_page(body, etag);
    *resp.status_mut() = status;
    if format == Format::Json {
        resp.headers_mut().insert(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json; charset=utf-8"),
        );
    }
    resp
}

/// `GET /doc/{doc}/search` and its `.json` twin.
#[instrument(skip_all)]
pub async fn doc_search(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    Path(key): Path<String>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Response {
    let q = query_param(raw.as_deref());
    let doc = match public::find_doc(st.app.store.as_ref(), &reader, &key).await {
        Ok(doc) if doc.by_id => {
            let path = format!("/doc/{}/{}", doc.slug, format.segment());
            return Redirect::permanent(&with_query(&path, &q)).into_response();
        }
        Ok(doc) => doc,
        Err(e) => return page_error(&st, e),
    };
    search_doc(&st, &headers, doc, None, &q, format)
        .await
        .unwrap_or_else(|r| r)
}

/// `GET /doc/{doc}/branches/{branch}/search` and its `.json` twin.
#[instrument(skip_all)]
pub async fn branch_search(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    Path((key, branch)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Response {
    let q = query_param(raw.as_deref());
    let doc = match public::find_doc(st.app.store.as_ref(), &reader, &key).await {
        Ok(doc) if doc.by_id => {
            let path = format!("/doc/{}/branches/{branch}/{}", doc.slug, format.segment());
            return Redirect::permanent(&with_query(&path, &q)).into_response();
        }
        Ok(doc) => doc,
        Err(e) => return page_error(&st, e),
    };
    let Some(slug) = specpress_domain::branch_rules::slug_from_path(&branch) else {
        return not_found(
            &st,
            "Branch not found",
            "This documentation has no such branch.",
        );
    };
    if slug == doc.default_branch {
        let path = format!("/doc/{}/{}", doc.slug, format.segment());
        return Redirect::temporary(&with_query(&path, &q)).into_response();
    }
    search_doc(&st, &headers, doc, Some(slug), &q, format)
        .await
        .unwrap_or_else(|r| r)
}

/// A documentation's published head on a branch, with its index.
async fn indexed(
    st: &DocsState,
    view: &DocView,
) -> Result<(Arc<Loaded>, Arc<SearchIndex>, Version), Response> {
    let (loaded, version) = view.load_head(st).await?;
    let index = st
        .search
        .get_or_build(&version.blob, loaded.clone())
        .await
        .map_err(|e| page_error(st, e))?;
    Ok((loaded, index, version))
}

async fn search_doc(
    st: &DocsState,
    headers: &HeaderMap,
    doc: PublicDoc,
    branch: Option<Slug>,
    q: &str,
    format: Format,
) -> Answer {
    let view = DocView::open(st, doc, branch).await?;
    let mut h = Sha256::new();
    view.hash_into(&mut h);
    h.update(view.head().to_string());
    h.update(format.segment());
    h.update("\0");
    h.update(q);
    let etag = etag_of(h);
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let (loaded, index, version) = indexed(st, &view).await?;
    let chrome = view.chrome(st, Some(&version));
    let action = format!("{}/search", view.base);
    let base = view.base.clone();
    let q = q.to_owned();
    let (status, body) = CpuGate::shared()
        .run(move || {
            let found = index.search(&loaded.site, &q, MAX_RESULTS);
            let (found, error) = match found {
                Ok(f) => (f, None),
                Err(e) => (Found::default(), Some(e)),
            };
            let results: Vec<SearchResult<'_>> = found
                .hits
                .iter()
                .map(|hit| SearchResult::of(hit, &base, None))
                .collect();
            let page = SearchPage {
                query: &q,
                action: &action,
                scope: "this documentation",
                results: &results,
                total: found.total,
                partial: found.partial,
                error,
            };
            let body = match format {
                Format::Page => chrome.with(|ctx| search_page(ctx, &page)),
                Format::Json => search_json(&page),
            };
            (status_of(error), body)
        })
        .await
        .map_err(|e| page_error(st, e))?;
    Ok(results_response(status, body, &etag, format))
}

/// The chrome of a hub's pages: the hub's name in the header, its search form.
pub fn hub_chrome(st: &DocsState, hub: &Hub) -> Chrome {
    Chrome {
        base: format!("/hub/{}", hub.slug),
        doc_name: hub.name.clone(),
        branches: Vec::new(),
        version: None,
        assets: st.assets.clone(),
        links: Vec::new(),
        search_action: Some(format!("/hub/{}/search", hub.slug)),
        alternates: Vec::new(),
        noindex: hub.visibility.is_private(),
        signed_in: crate::access::signed_in(),
    }
}

/// `GET /hub/{hub}/search` and its `.json` twin: every documentation of the hub (its default branch), results
/// merged by score.
#[instrument(skip_all)]
pub async fn hub_search(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    Path(key): Path<String>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Response {
    let q = query_param(raw.as_deref());
    let answer = async {
        let store = st.app.store.as_ref();
        let hub = public::find_hub(store, &reader, &key)
            .await
            .map_err(|e| page_error(&st, e))?;
        let docs = public::hub_docs(store, &reader, &hub)
            .await
            .map_err(|e| page_error(&st, e))?;
        let mut views = Vec::new();
        for doc in docs.into_iter().take(MAX_HUB_DOCS) {
            // A documentation with nothing published has nothing to find.
            if let Ok(v) = DocView::open(&st, doc, None).await {
                views.push(v);
            }
        }
        let mut h = Sha256::new();
        h.update(build_id());
        h.update(hub.slug.as_str());
        h.update(&hub.name);
        for v in &views {
            v.hash_into(&mut h);
            h.update(v.head().to_string());
        }
        h.update(format.segment());
        h.update("\0");
        h.update(&q);
        let etag = etag_of(h);
        if let Some(r) = not_modified(&headers, &etag) {
            return Ok::<_, Response>(r);
        }
        let mut sources = Vec::with_capacity(views.len());
        let searched = crate::search::query_words_ok(&q);
        for v in &views {
            // Indexes are built only when there is something to search for.
            if !searched {
                break;
            }
            let (loaded, index, _) = indexed(&st, v).await?;
            sources.push((v.base.clone(), v.doc.name.clone(), loaded, index));
        }
        let chrome = hub_chrome(&st, &hub);
        let action = format!("/hub/{}/search", hub.slug);
        let scope = format!("the {} hub", hub.name);
        let q = q.clone();
        let (status, body) =
            CpuGate::shared()
                .run(move || {
                    let mut error = None;
                    let mut all: Vec<(SearchResult<'_>, f32)> = Vec::new();
                    let mut total = 0;
                    let mut partial = false;
                    if let Err(e) = specpress_render::search::query_words(&q) {
                        error = Some(e);
                    }
                    let founds: Vec<(&String, &String, Found<'_>)> = sources
                        .iter()
                        .filter_map(|(base, name, loaded, index)| {
                            let found = index.search(&loaded.site, &q, MAX_RESULTS).ok()?;
                            Some((base, name, found))
                        })
                        .collect();
                    // Documentations with every word take precedence over those with some of them.
                    let complete = founds.iter().any(|(_, _, f)| !f.partial && f.total > 0);
                    for (base, name, found) in &founds {
                        if complete && found.partial {
                            continue;
                        }
                        total += found.total;
                        partial |= found.partial;
                        all.extend(found.hits.iter().map(|hit| {
                            (SearchResult::of(hit, base, Some(name.as_str())), hit.score)
                        }));
                    }
                    all.sort_by(|a, b| b.1.total_cmp(&a.1));
                    all.truncate(MAX_RESULTS);
                    let results: Vec<SearchResult<'_>> = all.into_iter().map(|(r, _)| r).collect();
                    let page = SearchPage {
                        query: &q,
                        action: &action,
                        scope: &scope,
                        results: &results,
                        total,
                        partial,
                        error,
                    };
                    let body = match format {
                        Format::Page => chrome.with(|ctx| search_page(ctx, &page)),
                        Format::Json => search_json(&page),
                    };
                    (status_of(error), body)
                })
                .await
                .map_err(|e| page_error(&st, e))?;
        Ok(results_response(status, body, &etag, format))
    };
    answer.await.unwrap_or_else(|r| r)
}

/// True when `q` has something to search for.
fn query_words_ok(q: &str) -> bool {
    specpress_render::search::query_words(q).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_q_parameter_is_decoded_and_the_first_one_wins() {
        assert_eq!(query_param(Some("q=list+pets&q=other")), "list pets");
        assert_eq!(query_param(Some("x=1&q=%3Cscript%3E")), "<script>");
        assert_eq!(query_param(Some("q=%FF")), "\u{FFFD}");
        assert_eq!(query_param(None), "");
        assert_eq!(
            with_query("/doc/a/search", "a b&c"),
            "/doc/a/search?q=a+b%26c"
        );
    }
}
