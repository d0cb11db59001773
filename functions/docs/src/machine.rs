//! Pages for machines: what tools and AI agents read instead of scraping the HTML.
//!
//! - `{page URL}.md`: the Markdown variant of every reference page (`/doc/{doc}.md`, `/doc/{doc}/{page}.md`,
//!   `/doc/{doc}/branches/{branch}.md`, `/doc/{doc}/branches/{branch}/{page}.md`), rendered from the same model as
//!   the HTML page by `specpress_render` (document text escaped for Markdown). A page whose own path ends in `.md`
//!   (a schema named `notes.md`) stays the HTML page.
//! - `GET /doc/{doc}/llms.txt`: the documentation's pages (default branch), each with its Markdown URL and a
//!   one-line description; `GET /hub/{hub}/llms.txt`: the hub's documentations, each with its own `llms.txt`.
//! - `GET /doc/{doc}/sitemap.xml`: every page of the default branch, `lastmod` the publication time of the version
//!   it shows; `GET /hub/{hub}/sitemap.xml`: a sitemap index of the hub's documentations' sitemaps. XML is written by
//!   quick-xml (escaping included); at most [`MAX_SITEMAP_URLS`] URLs (the protocol's limit).
//!
//! Absolute URLs (llms.txt, sitemaps) are built on the public base of the request (`SPECPRESS_PUBLIC_URL`, else the
//! Host), like every `*_public_url` of the API. Documentations and hubs are resolved through
//! `specpress_domain::usecases::public` and [`DocView`], so what those lookups hide stays out of these files.

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use sha2::{Digest, Sha256};
use specpress_api::cpu::CpuGate;
use specpress_api::urls::PublicBase;
use specpress_domain::model::Slug;
use specpress_domain::usecases::public::{self, PublicDoc, Reader};

use crate::access::Viewer;
use specpress_render::{Lookup, MarkdownContext};
use tracing::instrument;

use crate::DocsState;
use crate::pages::serve_page;
use crate::view::{
    Answer, DocView, build_id, etag_of, not_found, not_modified, page_error, rfc3339_seconds,
};

/// URLs in one sitemap (the sitemap protocol's limit), and sitemaps in one index.
pub const MAX_SITEMAP_URLS: usize = 50_000;

/// What a `.md` URL under a documentation names: the branch (`None`: default) and the page path.
#[derive(Debug, PartialEq, Eq)]
pub struct MarkdownRequest<'a> {
    pub branch: Option<&'a str>,
    pub page: &'a str,
}

/// Reads the part of a documentation URL after `/doc/{doc}/` as a Markdown request, when it ends in `.md` (and is
/// not a change, a version or a search URL).
pub fn markdown_request(rest: &str) -> Option<MarkdownRequest<'_>> {
    let path = rest.strip_suffix(".md")?;
    if path.is_empty()
        || path.starts_with("changes/")
        || path.starts_with("change/")
        || path.starts_with("versions/")
    {
        return None;
    }
    match path.strip_prefix("branches/") {
        Some(b) => match b.split_once('/') {
            Some((branch, page)) => Some(MarkdownRequest {
                branch: Some(branch),
                page,
            }),
            None => Some(MarkdownRequest {
                branch: Some(b),
                page: "",
            }),
        },
        None => Some(MarkdownRequest {
            branch: None,
            page: path,
        }),
    }
}

fn markdown_response(text: String, etag: &str) -> Response {
    let mut resp = (
        [
            (header::CONTENT_TYPE, "text/markdown; charset=utf-8"),
            (header::CACHE_CONTROL, "public, no-cache"),
        ],
        text,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

/// `/doc/{doc}.md` (the home page's Markdown).
pub async fn markdown_root(
    st: &DocsState,
    reader: &Reader,
    headers: &HeaderMap,
    key: &str,
) -> Response {
    let doc = match public::find_doc(st.app.store.as_ref(), reader, key).await {
        Ok(doc) if doc.by_id => {
            return Redirect::permanent(&format!("/doc/{}.md", doc.slug)).into_response();
        }
        Ok(doc) => doc,
        Err(e) => return page_error(st, e),
    };
    markdown_page(st, headers, &doc, None, "")
        .await
        .unwrap_or_else(|r| r)
}

/// The Markdown variant of a page under a documentation (`rest` is what follows `/doc/{doc}/`).
pub async fn markdown(
    st: &DocsState,
    headers: &HeaderMap,
    doc: &PublicDoc,
    rest: &str,
    request: MarkdownRequest<'_>,
) -> Answer {
    let branch = match request.branch {
        None => None,
        Some(b) => {
            let Some(slug) = specpress_domain::branch_rules::slug_from_path(b) else {
                return Err(not_found(
                    st,
                    "Branch not found",
                    "This documentation has no such branch.",
                ));
            };
            if slug == doc.default_branch {
                let target = if request.page.is_empty() {
                    format!("/doc/{}.md", doc.slug)
                } else {
                    format!("/doc/{}/{}.md", doc.slug, request.page)
                };
                return Ok(Redirect::temporary(&target).into_response());
            }
            Some(slug)
        }
    };
    // A page whose own path ends in `.md` is that page, as HTML.
    if request.branch.is_none() {
        let view = DocView::open(st, doc.clone(), None).await?;
        let (loaded, _) = view.load_head(st).await?;
        if matches!(loaded.site.lookup(rest), Lookup::Page(_)) {
            return serve_page(st, headers, doc, None, rest).await;
        }
    }
    markdown_page(st, headers, doc, branch, request.page).await
}

async fn markdown_page(
    st: &DocsState,
    headers: &HeaderMap,
    doc: &PublicDoc,
    branch: Option<Slug>,
    page: &str,
) -> Answer {
    let view = DocView::open(st, doc.clone(), branch).await?;
    let (loaded, version) = view.load_head(st).await?;
    let page_ref = match loaded.site.lookup(page) {
        Lookup::Page(p) => p,
        Lookup::Redirect(to) => {
            let target = if to.is_empty() {
                format!("{}.md", view.base)
            } else {
                format!("{}/{to}.md", view.base)
            };
            return Ok(Redirect::permanent(&target).into_response());
        }
        Lookup::NotFound => {
            return Err(not_found(
                st,
                "Page not found",
                "This documentation has no such page (it may have been removed in a later version).",
            ));
        }
    };
    let mut h = Sha256::new();
    view.hash_into(&mut h);
    h.update(version.id.to_string());
    h.update("md\0");
    h.update(page);
    let etag = etag_of(h);
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(r);
    }
    let base = view.base.clone();
    let name = view.doc.name.clone();
    let api_version = version.analysis.api_version.clone();
    let published = rfc3339_seconds(version.created_at);
    let text = CpuGate::shared()
        .run(move || {
            loaded.site.render_markdown(
                &loaded.doc,
                &page_ref,
                &MarkdownContext {
                    base: &base,
                    doc_name: &name,
                    version: Some((&api_version, &published)),
                },
            )
        })
        .await
        .map_err(|e| page_error(st, e))?;
    Ok(markdown_response(text, &etag))
}

async fn public_base(st: &DocsState, parts: &mut Parts) -> String {
    match PublicBase::from_request_parts(parts, &st.app).await {
        Ok(PublicBase(b)) => b,
        Err(never) => match never {},
    }
}

/// A documentation named by slug for a machine file (the id form redirects to the slug form).
async fn doc_for(
    st: &DocsState,
    reader: &Reader,
    key: &str,
    file: &str,
) -> Result<PublicDoc, Response> {
    match public::find_doc(st.app.store.as_ref(), reader, key).await {
        Ok(doc) if doc.by_id => {
            Err(Redirect::permanent(&format!("/doc/{}/{file}", doc.slug)).into_response())
        }
        Ok(doc) => Ok(doc),
        Err(e) => Err(page_error(st, e)),
    }
}

/// The default branch behind a machine file of a documentation (`file`: `llms.txt`, `sitemap.xml`), the public
/// origin its URLs are written on, and its validator; or the answer already due (the slug redirect, a 404 page, a 304).
async fn machine_file(
    st: &DocsState,
    reader: &Reader,
    key: &str,
    file: &str,
    parts: &mut Parts,
) -> Result<(DocView, String, String), Response> {
    let doc = doc_for(st, reader, key, file).await?;
    let origin = public_base(st, parts).await;
    let view = DocView::open(st, doc, None).await?;
    let mut h = Sha256::new();
    view.hash_into(&mut h);
    h.update(view.head().to_string());
    h.update(file);
    h.update([0]);
    h.update(&origin);
    let etag = etag_of(h);
    match not_modified(&parts.headers, &etag) {
        Some(r) => Err(r),
        None => Ok((view, origin, etag)),
    }
}

/// `GET /doc/{doc}/llms.txt`.
#[instrument(skip_all)]
pub async fn doc_llms(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    mut parts: Parts,
) -> Response {
    let answer = async {
        let (view, origin, etag) = machine_file(&st, &reader, &key, "llms.txt", &mut parts).await?;
        let (loaded, version) = view.load_head(&st).await?;
        let base = format!("{origin}{}", view.base);
        let name = view.doc.name.clone();
        let api_version = version.analysis.api_version.clone();
        let text = CpuGate::shared()
            .run(move || {
                loaded.site.llms_txt(
                    &loaded.doc,
                    &MarkdownContext {
                        base: &base,
                        doc_name: &name,
                        version: Some((&api_version, "")),
                    },
                )
            })
            .await
            .map_err(|e| page_error(&st, e))?;
        Ok(text_response(text, "text/plain; charset=utf-8", &etag))
    };
    answer.await.unwrap_or_else(|r| r)
}

fn text_response(text: String, content_type: &'static str, etag: &str) -> Response {
    let mut resp = (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "public, no-cache"),
        ],
        text,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(etag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

/// An XML document written by quick-xml: the declaration, then `body`.
fn xml(body: impl FnOnce(&mut Writer<Vec<u8>>) -> std::io::Result<()>) -> std::io::Result<String> {
    let mut w = Writer::new_with_indent(Vec::with_capacity(64 * 1024), b' ', 1);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    body(&mut w)?;
    String::from_utf8(w.into_inner()).map_err(std::io::Error::other)
}

const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// `GET /doc/{doc}/sitemap.xml`.
#[instrument(skip_all)]
pub async fn doc_sitemap(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    mut parts: Parts,
) -> Response {
    let answer = async {
        let (view, origin, etag) =
            machine_file(&st, &reader, &key, "sitemap.xml", &mut parts).await?;
        let (loaded, version) = view.load_head(&st).await?;
        let base = format!("{origin}{}", view.base);
        let lastmod = rfc3339_seconds(version.created_at);
        let text = CpuGate::shared()
            .run(move || {
                xml(|w| {
                    w.create_element("urlset")
                        .with_attribute(("xmlns", SITEMAP_NS))
                        .write_inner_content(|w| {
                            for p in loaded.site.pages().take(MAX_SITEMAP_URLS) {
                                let loc = if p.path.is_empty() {
                                    base.clone()
                                } else {
                                    format!("{base}/{}", p.path)
                                };
                                w.create_element("url").write_inner_content(|w| {
                                    w.create_element("loc")
                                        .write_text_content(BytesText::new(&loc))?;
                                    w.create_element("lastmod")
                                        .write_text_content(BytesText::new(&lastmod))?;
                                    Ok::<(), std::io::Error>(())
                                })?;
                            }
                            Ok::<(), std::io::Error>(())
                        })?;
                    Ok(())
                })
            })
            .await
            .map_err(|e| page_error(&st, e))?
            .map_err(|e| page_error(&st, specpress_domain::DomainError::unexpected(e)))?;
        Ok(text_response(text, "application/xml; charset=utf-8", &etag))
    };
    answer.await.unwrap_or_else(|r| r)
}

/// A hub's documentations that have a published default branch, with their head versions.
async fn hub_heads(
    st: &DocsState,
    reader: &Reader,
    key: &str,
) -> Result<
    (
        specpress_domain::model::Hub,
        Vec<(DocView, specpress_domain::model::Version)>,
    ),
    Response,
> {
    let store = st.app.store.as_ref();
    let hub = public::find_hub(store, reader, key)
        .await
        .map_err(|e| page_error(st, e))?;
    let docs = public::hub_docs(store, reader, &hub)
        .await
        .map_err(|e| page_error(st, e))?;
    let mut out = Vec::new();
    for doc in docs.into_iter().take(MAX_SITEMAP_URLS) {
        let Ok(view) = DocView::open(st, doc, None).await else {
            continue;
        };
        let head = view.head();
        if let Some(v) = store
            .get_version(head, st.app.now())
            .await
            .map_err(|e| page_error(st, e))?
        {
            out.push((view, v));
        }
    }
    Ok((hub, out))
}

fn hub_etag(
    hub: &specpress_domain::model::Hub,
    heads: &[(DocView, specpress_domain::model::Version)],
    what: &str,
    origin: &str,
) -> String {
    let mut h = Sha256::new();
    h.update(build_id());
    h.update(hub.slug.as_str());
    h.update(&hub.name);
    h.update(hub.description.as_deref().unwrap_or(""));
    for (v, version) in heads {
        v.hash_into(&mut h);
        h.update(version.id.to_string());
    }
    h.update(what);
    h.update(origin);
    etag_of(h)
}

/// `GET /hub/{hub}/sitemap.xml`: a sitemap index of its documentations' sitemaps.
#[instrument(skip_all)]
pub async fn hub_sitemap(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    mut parts: Parts,
) -> Response {
    let answer = async {
        let (hub, heads) = hub_heads(&st, &reader, &key).await?;
        let origin = public_base(&st, &mut parts).await;
        let etag = hub_etag(&hub, &heads, "sitemap\0", &origin);
        if let Some(r) = not_modified(&parts.headers, &etag) {
            return Ok(r);
        }
        let text = xml(|w| {
            w.create_element("sitemapindex")
                .with_attribute(("xmlns", SITEMAP_NS))
                .write_inner_content(|w| {
                    for (view, version) in &heads {
                        let loc = format!("{origin}{}/sitemap.xml", view.base);
                        let lastmod = rfc3339_seconds(version.created_at);
                        w.create_element("sitemap").write_inner_content(|w| {
                            w.create_element("loc")
                                .write_text_content(BytesText::new(&loc))?;
                            w.create_element("lastmod")
                                .write_text_content(BytesText::new(&lastmod))?;
                            Ok::<(), std::io::Error>(())
                        })?;
                    }
                    Ok::<(), std::io::Error>(())
                })?;
            Ok(())
        })
        .map_err(|e| page_error(&st, specpress_domain::DomainError::unexpected(e)))?;
        Ok::<_, Response>(text_response(text, "application/xml; charset=utf-8", &etag))
    };
    answer.await.unwrap_or_else(|r| r)
}

/// `GET /hub/{hub}/llms.txt`: the hub's documentations, each with its `llms.txt`, Markdown home and HTML page.
#[instrument(skip_all)]
pub async fn hub_llms(
    State(st): State<DocsState>,
    Viewer(reader): Viewer,
    Path(key): Path<String>,
    mut parts: Parts,
) -> Response {
    use specpress_render::escape_markdown as esc;
    use std::fmt::Write;
    let answer = async {
        let (hub, heads) = hub_heads(&st, &reader, &key).await?;
        let origin = public_base(&st, &mut parts).await;
        let etag = hub_etag(&hub, &heads, "llms\0", &origin);
        if let Some(r) = not_modified(&parts.headers, &etag) {
            return Ok(r);
        }
        let mut out = String::with_capacity(256 + heads.len() * 200);
        let _ = writeln!(out, "# {}\n", esc(&hub.name));
        let summary = match hub
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            Some(d) => format!("API documentation hub. {}", d.lines().next().unwrap_or("")),
            None => "API documentation hub.".to_string(),
        };
        let _ = writeln!(out, "> {}\n", esc(&summary));
        out.push_str(
            "Each API below has its own llms.txt listing its pages as Markdown.\n\n## APIs\n\n",
        );
        for (view, version) in &heads {
            let a = &version.analysis;
            let mut line = format!(
                "- [{}]({origin}{}/llms.txt): {}",
                esc(&view.doc.name),
                view.base,
                esc(if a.title.is_empty() {
                    &view.doc.name
                } else {
                    &a.title
                })
            );
            if !a.api_version.is_empty() {
                let _ = write!(line, ", version {}", esc(&a.api_version));
            }
            if let Some(d) = a
                .description
                .as_deref()
                .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
            {
                let cut: String = d.trim().chars().take(200).collect();
                let _ = write!(line, ". {}", esc(&cut));
            }
            let _ = writeln!(line, " (Markdown: {origin}{}.md)", view.base);
            out.push_str(&line);
        }
        Ok::<_, Response>(text_response(out, "text/plain; charset=utf-8", &etag))
    };
    answer.await.unwrap_or_else(|r| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_markdown_url_names_a_branch_and_a_page() {
        assert_eq!(
            markdown_request("operation/x.md"),
            Some(MarkdownRequest {
                branch: None,
                page: "operation/x"
            })
        );
        assert_eq!(
            markdown_request("branches/next.md"),
            Some(MarkdownRequest {
                branch: Some("next"),
                page: ""
            })
        );
        assert_eq!(
            markdown_request("branches/next/schema/Pet.md"),
            Some(MarkdownRequest {
                branch: Some("next"),
                page: "schema/Pet"
            })
        );
        assert_eq!(markdown_request("changes/abc.md"), None);
        assert_eq!(markdown_request("operation/x"), None);
        assert_eq!(markdown_request(".md"), None);
    }
}
