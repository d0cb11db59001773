//! Search: `GET /doc/{doc}/search?q=`, `GET /doc/{doc}/branches/{branch}/search?q=` (one documentation on one
//! branch) and `GET /hub/{hub}/search?q=` (every documentation of a hub, default branches), answered as a results
//! page in the site shell (a plain GET form: no script needed). Each has a `.json` twin (`/doc/{doc}/search.json?q=`
//! ...): the same results, order and words as JSON, which the search fields use to suggest results as one types.
//!
//! The query is read once ([`specpress_reader::search::Query`]); the indexes, and the merge of several
//! documentations' results, are the reader layer's ([`specpress_reader::search`]), shared with the MCP servers'
//! `search` tool. Documentations and hubs are resolved by the reader layer, like every other page, so whatever it
//! hides (unknown slugs, documentations a reader may not see) is hidden here too.

use specpress_domain::urls;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::routing::get;
use specpress_api::readers::Viewer;
use specpress_domain::model::{Hub, Slug};
use specpress_domain::usecases::public::PublicDoc;
use specpress_engines::cpu::CpuGate;
use specpress_reader::search::{MAX_HUB_DOCS, Merged, Query, Source, merge};
use specpress_reader::{BranchInUrl, DocView, Library, branch_in_url};
use specpress_render::search::{Hit, MAX_RESULTS, QueryError};
use specpress_render::{SearchPage, SearchResult, search_json, search_page};
use tracing::instrument;

use crate::SiteState;
use crate::chrome::{Chrome, OwnedMcp};
use crate::error::{Page, PageError};
use crate::respond::{Validator, not_modified, redirect, revalidated, to_slug_form, types};

/// The routes of search pages and their `.json` twins.
pub fn routes() -> Router<SiteState> {
    Router::new()
        .route("/doc/{doc}/search", get(doc_search))
        .route("/doc/{doc}/branches/{branch}/search", get(branch_search))
        .route("/hub/{hub}/search", get(hub_search))
        .route("/doc/{doc}/search.json", get(doc_search))
        .route(
            "/doc/{doc}/branches/{branch}/search.json",
            get(branch_search),
        )
        .route("/hub/{hub}/search.json", get(hub_search))
}

/// The `q` parameter of a query string (the first one; `+` and percent escapes decoded, invalid UTF-8 replaced).
pub(crate) fn query_param(raw: Option<&str>) -> String {
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
    library: &Library,
    reader: &specpress_domain::usecases::public::Reader,
    key: &str,
    uri: &Uri,
) -> Result<PublicDoc, PageError> {
    let doc = library.find_doc(reader, key).await?;
    if doc.by_id {
        return Err(PageError::answered(to_slug_form(
            doc.slug.as_str(),
            uri,
            key,
        )));
    }
    Ok(doc)
}

/// `GET /doc/{doc}/search` and its `.json` twin.
#[instrument(skip_all)]
pub async fn doc_search(
    State(library): State<Arc<Library>>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    Path(key): Path<String>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Page {
    let q = query_param(raw.as_deref());
    let doc = searched_doc(&library, &reader, &key, &uri).await?;
    search_doc(&library, &headers, doc, None, &q, format).await
}

/// `GET /doc/{doc}/branches/{branch}/search` and its `.json` twin.
#[instrument(skip_all)]
pub async fn branch_search(
    State(library): State<Arc<Library>>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    uri: Uri,
    Path((key, branch)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Page {
    let q = query_param(raw.as_deref());
    let doc = searched_doc(&library, &reader, &key, &uri).await?;
    let slug = match branch_in_url(&doc, &branch)? {
        BranchInUrl::Default => {
            let path = format!("{}/{}", urls::doc_path(&doc.slug), format.segment());
            return Ok(search_redirect(StatusCode::TEMPORARY_REDIRECT, &path, &q));
        }
        BranchInUrl::Named(slug) => slug,
    };
    search_doc(&library, &headers, doc, Some(slug), &q, format).await
}

/// The results of `query` over `sources` (each hit shown by `present`), written by `page` with the total, whether
/// they are partial, and the query's error when it was refused; with the answer's status.
fn results<'s, K>(
    sources: &'s [Source<K>],
    query: &Result<Query, QueryError>,
    present: impl Fn(&'s K, &Hit<'s>) -> SearchResult<'s>,
    page: impl FnOnce(&[SearchResult<'_>], usize, bool, Option<QueryError>) -> String,
) -> (StatusCode, String) {
    match query {
        Ok(query) => {
            let Merged {
                hits,
                total,
                partial,
            } = merge(sources, query, MAX_RESULTS, MAX_RESULTS, None);
            let shown: Vec<SearchResult<'s>> = hits.iter().map(|(k, h)| present(k, h)).collect();
            (StatusCode::OK, page(&shown, total, partial, None))
        }
        Err(e) => (status_of(Some(*e)), page(&[], 0, false, Some(*e))),
    }
}

async fn search_doc(
    library: &Library,
    headers: &HeaderMap,
    doc: PublicDoc,
    branch: Option<Slug>,
    q: &str,
    format: Format,
) -> Page {
    let view = library.open(doc, branch).await?;
    let etag = Validator::of_view(&view)
        .add(view.head().to_string())
        .add(format.segment())
        .add("\0")
        .add(q)
        .etag();
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let (loaded, index, version) = library.indexed(&view).await?;
    let chrome = Chrome::of_view(&view, Some(&version));
    let base = view.base.clone();
    release_results(chrome, base, (loaded, index), q, format, &etag).await
}

/// The results of `q` over one parsed release of a documentation (`index` its search index), as a results page in
/// `chrome` or as JSON, every link and the form's action on `base` (a branch's latest release, or an earlier
/// release read at its own address).
pub(crate) async fn release_results(
    chrome: Chrome,
    base: String,
    (loaded, index): (
        Arc<specpress_reader::Loaded>,
        Arc<specpress_render::SearchIndex>,
    ),
    q: &str,
    format: Format,
    etag: &str,
) -> Page {
    let action = format!("{base}/search");
    let query = Query::parse(q);
    let q = q.to_owned();
    let source = Source {
        key: base,
        loaded,
        index,
    };
    let (status, body) = CpuGate::shared()
        .run(move || {
            let sources = [source];
            results(
                &sources,
                &query,
                |base, hit| SearchResult::of(hit, base, None),
                |shown, total, partial, error| {
                    let page = SearchPage {
                        query: &q,
                        action: &action,
                        scope: "this documentation",
                        results: shown,
                        total,
                        partial,
                        error,
                    };
                    match format {
                        Format::Page => chrome.with(|ctx| search_page(ctx, &page)),
                        Format::Json => search_json(&page),
                    }
                },
            )
        })
        .await?;
    Ok(results_response(status, body, etag, format))
}

/// The chrome of a hub's pages: the hub's name in the header, its search form, its MCP server in the footer.
pub fn hub_chrome(hub: &Hub) -> Chrome {
    Chrome {
        search_action: Some(format!("{}/search", urls::hub_path(&hub.slug))),
        noindex: hub.visibility.is_private(),
        mcp: Some(OwnedMcp::of_hub(
            hub.slug.as_str(),
            hub.visibility.is_private(),
        )),
        ..Chrome::bare(urls::hub_path(&hub.slug), hub.name.clone())
    }
}

/// `GET /hub/{hub}/search` and its `.json` twin: every documentation of the hub (its default branch), results
/// merged by score.
#[instrument(skip_all)]
pub async fn hub_search(
    State(library): State<Arc<Library>>,
    Viewer(reader): Viewer,
    headers: HeaderMap,
    Path(key): Path<String>,
    RawQuery(raw): RawQuery,
    format: Format,
) -> Page {
    let q = query_param(raw.as_deref());
    let hub = library.find_hub(&reader, &key).await?;
    // A documentation with nothing published has nothing to find.
    let views: Vec<DocView> = library.hub_views(&reader, &hub, MAX_HUB_DOCS).await?;
    let mut v = Validator::new()
        .add(hub.slug.as_str())
        .add(&hub.name)
        .add([u8::from(hub.visibility.is_private())]);
    for view in &views {
        v = v.add_view(view).add(view.head().to_string());
    }
    let etag = v.add(format.segment()).add("\0").add(&q).etag();
    if let Some(r) = not_modified(&headers, &etag) {
        return Ok(r);
    }
    let query = Query::parse(&q);
    // Indexes are built only when there is something to search for.
    let sources = match &query {
        Ok(_) => {
            let keys: Vec<((String, String), &DocView)> = views
                .iter()
                .map(|v| ((v.base.clone(), v.doc.name.clone()), v))
                .collect();
            library.search_sources(keys).await?
        }
        Err(_) => Vec::new(),
    };
    let chrome = hub_chrome(&hub);
    let action = format!("{}/search", urls::hub_path(&hub.slug));
    let scope = format!("the {} hub", hub.name);
    let (status, body) = CpuGate::shared()
        .run(move || {
            results(
                &sources,
                &query,
                |(base, name), hit| SearchResult::of(hit, base, Some(name.as_str())),
                |shown, total, partial, error| {
                    let page = SearchPage {
                        query: &q,
                        action: &action,
                        scope: &scope,
                        results: shown,
                        total,
                        partial,
                        error,
                    };
                    match format {
                        Format::Page => chrome.with(|ctx| search_page(ctx, &page)),
                        Format::Json => search_json(&page),
                    }
                },
            )
        })
        .await?;
    Ok(results_response(status, body, &etag, format))
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
