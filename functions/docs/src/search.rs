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

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use specpress_domain::model::{Hub, Slug};
use specpress_domain::usecases::public::PublicDoc;
use specpress_engines::cpu::CpuGate;
use specpress_reader::{BranchInUrl, DocView, branch_in_url};
use specpress_render::search::{Found, MAX_RESULTS, QueryError};
use specpress_render::{SearchPage, SearchResult, search_json, search_page};
use tracing::instrument;

use crate::DocsState;
use crate::access::Viewer;
use crate::respond::{
    Answer, Chrome, OwnedMcp, Validator, not_modified, page_error, redirect, revalidated,
    to_slug_form, types,
};

/// Documentations of a hub searched together (the first ones by slug).
pub const MAX_HUB_DOCS: usize = 50;

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

/// A redirect to a search URL, the query `q` kept (percent-encoded).
fn search_redirect(status: StatusCode, path: &str, q: &str) -> Response {
    let encoded: String = form_urlencoded::byte_serialize(q.as_bytes()).collect();
    let query = (!q.is_empty()).then(|| format!("q={encoded}"));
    redirect(status, path, query.as_deref())
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
    let content_type = match format {
        Format::Page => types::HTML,
        Format::Json => types::JSON,
    };
    let mut resp = revalidated(content_type, body, etag);
    *resp.status_mut() = status;
    resp
}

/// The documentation a search URL names, or the answer already due (the slug form, a 404 page).
async fn searched_doc(
    st: &DocsState,
    reader: &specpress_domain::usecases::public::Reader,
    key: &str,
    uri: &Uri,
) -> Result<PublicDoc, Response> {
    match st.library.find_doc(reader, key).await {
        Ok(doc) if doc.by_id => Err(to_slug_form(doc.slug.as_str(), uri, key)),
        Ok(doc) => Ok(doc),
        Err(e) => Err(page_error(st, e)),
    }
}

/// `GET /doc/{doc}/search` and its `.json` twin.
#[instrument(skip_all)]
pub async fn doc_search(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    Path(key): Path<String>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Response {
    let q = query_param(raw.as_deref());
    let doc = match searched_doc(&st, &reader, &key, &uri).await {
        Ok(doc) => doc,
        Err(r) => return r,
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
    uri: Uri,
    Path((key, branch)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Response {
    let q = query_param(raw.as_deref());
    let doc = match searched_doc(&st, &reader, &key, &uri).await {
        Ok(doc) => doc,
        Err(r) => return r,
    };
    let slug = match branch_in_url(&doc, &branch) {
        Err(e) => return page_error(&st, e),
        Ok(BranchInUrl::Default) => {
            let path = format!("/doc/{}/{}", doc.slug, format.segment());
            return search_redirect(StatusCode::TEMPORARY_REDIRECT, &path, &q);
        }
        Ok(BranchInUrl::Named(slug)) => slug,
    };
    search_doc(&st, &headers, doc, Some(slug), &q, format)
        .await
        .unwrap_or_else(|r| r)
}

async fn search_doc(
    st: &DocsState,
    headers: &HeaderMap,
    doc: PublicDoc,
    branch: Option<Slug>,
    q: &str,
    format: Format,
) -> Answer {
    let view = st
        .library
        .open(doc, branch)
        .await
        .map_err(|e| page_error(st, e))?;
    let etag = Validator::of_view(&view)
        .add(view.head().to_string())
        .add(format.segment())
        .add("\0")
        .add(q)
        .etag();
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let (loaded, index, version) = st
        .library
        .indexed(&view)
        .await
        .map_err(|e| page_error(st, e))?;
    let chrome = Chrome::of_view(st, &view, Some(&version));
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
        .map_err(|e| page_error(st, e.into()))?;
    Ok(results_response(status, body, &etag, format))
}

/// The chrome of a hub's pages: the hub's name in the header, its search form, its MCP server in the footer.
pub fn hub_chrome(st: &DocsState, hub: &Hub) -> Chrome {
    Chrome {
        search_action: Some(format!("/hub/{}/search", hub.slug)),
        noindex: hub.visibility.is_private(),
        mcp: Some(OwnedMcp::of_hub(
            hub.slug.as_str(),
            hub.visibility.is_private(),
        )),
        ..Chrome::bare(st, format!("/hub/{}", hub.slug), hub.name.clone())
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
        let hub = st
            .library
            .find_hub(&reader, &key)
            .await
            .map_err(|e| page_error(&st, e))?;
        // A documentation with nothing published has nothing to find.
        let views: Vec<DocView> = st
            .library
            .hub_views(&reader, &hub, MAX_HUB_DOCS)
            .await
            .map_err(|e| page_error(&st, e))?;
        let mut v = Validator::new()
            .add(hub.slug.as_str())
            .add(&hub.name)
            .add([u8::from(hub.visibility.is_private())]);
        for view in &views {
            v = v.add_view(view).add(view.head().to_string());
        }
        let etag = v.add(format.segment()).add("\0").add(&q).etag();
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
            let (loaded, index, _) = st
                .library
                .indexed(v)
                .await
                .map_err(|e| page_error(&st, e))?;
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
                .map_err(|e| page_error(&st, e.into()))?;
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
        let r = search_redirect(StatusCode::PERMANENT_REDIRECT, "/doc/a/search", "a b&c");
        assert_eq!(
            r.headers()[axum::http::header::LOCATION],
            "/doc/a/search?q=a+b%26c"
        );
    }
}
